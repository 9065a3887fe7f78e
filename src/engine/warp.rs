//! A warp: its lanes, register file, convergence state, scoreboards and the
//! timing state the scheduler reads.

use crate::asm::ir::{PT, PredSrc, UNIFORM_REGS, UPT, URZ};

use super::convergence::Convergence;
use super::hazards::HazardTables;
use super::scoreboard::Scoreboards;
use super::sm::SchedState;
use super::stats::{Counters, Reason};

/// Where a warp is in its life, for stall accounting: each resident warp is
/// in one status per cycle, and the time since the status began
/// ([`Status::start`]) is charged to it when the status changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `lanes` at `pc` can issue from `since`. Before that, from
    /// `wait_from`, the warp waits out its stall count (`Wait`): a warp
    /// whose readiness after the stall count was known when it issued is
    /// filed at once (`wait_from == since` when it did not wait).
    Eligible {
        since: u64,
        wait_from: u64,
        pc: u32,
        lanes: u64,
    },
    /// Cannot issue before `until` (`u64::MAX`: until another warp or lane
    /// acts). `labelled` is what a profiler would call `reason`.
    Blocked {
        reason: Reason,
        labelled: Reason,
        since: u64,
        until: u64,
        pc: u32,
    },
    /// Every lane exited or faulted; resident until its block finishes.
    Done { since: u64 },
}

/// One warp's architectural and timing state.
#[derive(Debug, Clone)]
pub struct Warp {
    /// Global warp index (block * warps_per_block + warp in block).
    pub gid: u32,
    pub block: u32,
    /// Warp index within its block.
    pub in_block: u32,
    /// Warp slot on its SM.
    pub slot: u32,
    pub scheduler: u32,
    /// Dispatch order, for greedy-then-oldest.
    pub age: u64,
    pub width: u32,
    /// All `width` lanes, as a mask.
    pub all_lanes: u64,
    /// Lanes that hold a thread.
    pub launched: u64,
    pub exited: u64,
    pub faulted: u64,
    /// `launched & !exited & !faulted`, read on every issue: whatever
    /// sets lanes in `exited` or `faulted` clears them here too.
    pub(super) live: u64,
    /// Register file, row-major by register: `regs[r * width + lane]`.
    pub regs: Vec<u32>,
    /// Predicates P0..P6, one bit per lane, then PT (every lane of the
    /// warp; never written).
    pub preds: [u64; 8],
    /// Uniform registers UR0..UR63: one value for the whole warp.
    pub uregs: [u32; UNIFORM_REGS],
    /// Uniform predicates UP0..UP6 as bits 0..6 (UPT, bit 7, reads true).
    pub upreds: u8,
    /// Per-thread local memory (`LDL`/`STL`), `local_bytes` per lane,
    /// lane after lane; empty until the warp first touches it.
    pub local: Vec<u8>,
    pub conv: Convergence,
    pub sb: Scoreboards,
    /// Earliest cycle the next instruction may issue (static stall count).
    pub stall_until: u64,
    /// Earliest cycle after a taken branch resolves.
    pub branch_until: u64,
    /// The last instruction carried the yield hint.
    pub yielded: bool,
    /// Waiting at a block barrier (`stack` model: the whole warp).
    pub at_bar: bool,
    pub status: Status,
    /// While the warp is eligible at a MUFU that only the pipe can stop
    /// ([`SchedState::lazy`]): its scheduler's
    /// [`SchedState::pipe_busy_before`] the cycle its status began. The
    /// pipe's busy cycles since then are charged `math_pipe_throttle`,
    /// the others `not_selected`, when the status ends ([`Warp::open`]).
    pub pipe_mark: Option<u64>,
    /// Cycle of the pending re-evaluation, if one is scheduled.
    pub wake_at: u64,
    pub counters: Counters,
    pub dispatched_at: u64,
    /// The last active mask whose lanes were counted, and the count.
    pub counted: (u64, u64),
    /// When each lane's registers are written and read, for hazard
    /// checks (empty when not checking).
    pub hazards: HazardTables,
}

impl Warp {
    /// Lanes still running: launched, not exited, not faulted.
    #[inline(always)]
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Mask of all `width` lanes.
    pub fn full(&self) -> u64 {
        self.all_lanes
    }

    pub fn is_done(&self) -> bool {
        self.live() == 0
    }

    /// The lanes for which predicate `p` holds.
    pub fn pred_mask(&self, p: PredSrc) -> u64 {
        if let Some(u) = p.as_uniform() {
            // A uniform guard or branch condition: the warp's one value.
            return if self.upred(u) { self.full() } else { 0 };
        }
        // Every predicate is within the warp's lanes, so negating is
        // flipping them: no branch on either the index or the negation.
        let v = self.preds[usize::from(p.index & PT)];
        v ^ (0u64.wrapping_sub(u64::from(p.negate)) & self.full())
    }

    /// Uniform register `u` (`URZ` reads zero).
    pub fn ureg(&self, u: u8) -> u32 {
        if u == URZ {
            return 0;
        }
        self.uregs.get(usize::from(u)).copied().unwrap_or(0)
    }

    /// Uniform predicate `p` (`UPT` true), negation applied.
    pub fn upred(&self, p: PredSrc) -> bool {
        let v = p.index >= UPT || self.upreds >> p.index & 1 != 0;
        v != p.negate
    }

    /// Register `r` of lane `lane` (`RZ` reads zero).
    pub fn reg(&self, r: u8, lane: u32) -> u32 {
        if r == crate::asm::ir::RZ {
            return 0;
        }
        self.regs
            .get(usize::from(r) * self.width as usize + lane as usize)
            .copied()
            .unwrap_or(0)
    }

    /// What the warp's status charges from its start up to `now`, as
    /// [`Status::open`]; `pipe` is its scheduler, whose MUFU pipe's busy
    /// cycles are `math_pipe_throttle` for a warp eligible at a MUFU
    /// ([`Warp::pipe_mark`]: such a status waits out no stall count).
    #[inline(always)]
    pub fn open(&self, now: u64, pipe: &SchedState) -> (Option<u32>, [(Reason, Reason, u64); 2]) {
        let (pc, mut parts) = self.status.open(now);
        if let Some(mark) = self.pipe_mark {
            debug_assert_eq!(
                parts[0].2, 0,
                "a lazily charged status waits no stall count"
            );
            let throttled = pipe.pipe_busy_before(now).saturating_sub(mark);
            let not_selected = parts[1].2.saturating_sub(throttled);
            let reason = Reason::MathPipeThrottle;
            parts = [
                (reason, reason, throttled),
                (Reason::NotSelected, Reason::NotSelected, not_selected),
            ];
        }
        (pc, parts)
    }

    /// The counters including the open accounting interval up to `now`
    /// (`pipe`: the warp's scheduler).
    pub fn counters_at(&self, now: u64, pipe: &SchedState) -> Counters {
        let mut c = self.counters;
        let (_, parts) = self.open(now, pipe);
        for (reason, labelled, n) in parts {
            c.charge(reason, labelled, n);
        }
        c
    }
}

impl Status {
    /// What the status charges from its start up to `now`: at most two
    /// parts, `(reason, labelled, cycles)` (waiting out the stall count,
    /// then not selected), and the pc they belong to (none once done).
    #[inline(always)]
    pub fn open(&self, now: u64) -> (Option<u32>, [(Reason, Reason, u64); 2]) {
        let none = (Reason::NotSelected, Reason::NotSelected, 0);
        match *self {
            Status::Eligible {
                since,
                wait_from,
                pc,
                ..
            } => {
                let wait = now.min(since).saturating_sub(wait_from);
                let not_selected = now.saturating_sub(since);
                (
                    Some(pc),
                    [
                        (Reason::Wait, Reason::Wait, wait),
                        (Reason::NotSelected, Reason::NotSelected, not_selected),
                    ],
                )
            }
            Status::Blocked {
                reason,
                labelled,
                since,
                pc,
                ..
            } => (
                Some(pc),
                [(reason, labelled, now.saturating_sub(since)), none],
            ),
            Status::Done { since } => (
                None,
                [
                    (Reason::Exited, Reason::Exited, now.saturating_sub(since)),
                    none,
                ],
            ),
        }
    }

    /// The cycle the status's accounting starts.
    #[inline(always)]
    pub fn start(&self) -> u64 {
        match *self {
            Status::Eligible { wait_from, .. } => wait_from,
            Status::Blocked { since, .. } | Status::Done { since } => since,
        }
    }
}

/// The mask of lanes `0..width`.
pub fn lane_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}
