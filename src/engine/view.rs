//! Read-only views of the machine for frontends (the TUI, the report, any
//! other program).
//!
//! Every function takes ids (SM, scheduler, warp, lane) and returns plain
//! data, never the engine's own structures, so a frontend depends on this
//! file only. Everything is computed from the state without changing it:
//! the status shown for a warp is what it would be evaluated as in the
//! cycle about to be simulated.

use super::convergence::{self, Convergence};
use super::exec;
pub use super::exec::AccessSpace;
use super::machine::Machine;
use super::memory;
use super::readiness::{Readiness, readiness};
use super::scoreboard::Producer;
use super::sm::SchedState;
use super::stats::{Counters, Reason};
use super::warp::Warp;
use crate::asm::ir::{Class, SCOREBOARDS};

/// One lane's state, for the mask grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneState {
    /// Active in the next issue and its guard holds.
    On,
    /// Active in the next issue, guard false.
    PredOff,
    /// Live but not in the next issue's mask (divergence, or waiting).
    Parked,
    Exited,
    NeverLaunched,
    Faulted,
}

/// A group of an `its` warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupView {
    pub pc: u32,
    pub lanes: u64,
}

/// A convergence barrier in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarrierView {
    pub index: u8,
    pub participants: u64,
    pub arrived: u64,
    pub target: u32,
}

/// The next instruction's readiness as a scheduler sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpStatus {
    Eligible,
    Stalled {
        reason: Reason,
        /// What a profiler would call it (differs for recycled scoreboards).
        labelled: Reason,
        /// Cycles until it may change (`None`: until another warp acts).
        cycles_left: Option<u64>,
    },
    Exited,
}

/// An instruction in flight that a scoreboard counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerView {
    pub sb: u8,
    /// Instruction index of the producer.
    pub pc: u32,
    pub class: Class,
    /// Cycle it issued.
    pub issued: u64,
    /// Cycle from which the scoreboard no longer counts it.
    pub done: u64,
    /// True when this is a read barrier (operands read), not a result.
    pub read: bool,
}

impl From<Producer> for ProducerView {
    fn from(p: Producer) -> Self {
        ProducerView {
            sb: p.sb,
            pc: p.pc,
            class: p.class,
            issued: p.issued,
            done: p.done,
            read: p.read,
        }
    }
}

/// One scoreboard's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoreboardView {
    pub index: u8,
    pub pending: u32,
    /// The producer completing last.
    pub producer: Option<ProducerView>,
    pub cycles_left: u64,
}

/// One entry of a `stack` warp's SIMT reconvergence stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackEntryView {
    pub pc: u32,
    /// Reconvergence pc (`EXIT_PC`: the lanes only meet at exit).
    pub rpc: u32,
    pub mask: u64,
}

/// What an `its` lane waits for, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneWait {
    Running,
    /// At `BSYNC Bn` until every participant arrived or left.
    Bsync(u8),
    /// At `WARPSYNC` until every lane of its mask arrived.
    Warpsync,
    /// At `BAR.SYNC` until the whole block arrived.
    Bar,
}

impl From<convergence::LaneWait> for LaneWait {
    fn from(w: convergence::LaneWait) -> Self {
        match w {
            convergence::LaneWait::Running => LaneWait::Running,
            convergence::LaneWait::Bsync(b) => LaneWait::Bsync(b),
            convergence::LaneWait::Warpsync => LaneWait::Warpsync,
            convergence::LaneWait::Bar => LaneWait::Bar,
        }
    }
}

/// Everything the panes show about one resident warp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpView {
    pub warp: u32,
    pub block: u32,
    pub sm: u32,
    pub slot: u32,
    pub scheduler: u32,
    pub width: u32,
    /// The pc the warp would issue next (`its`: the chosen group's).
    pub pc: Option<u32>,
    /// The lanes that would issue.
    pub active: u64,
    pub launched: u64,
    pub exited: u64,
    pub faulted: u64,
    pub lanes: Vec<LaneState>,
    pub stack: Vec<StackEntryView>,
    pub groups: Vec<GroupView>,
    pub barriers: Vec<BarrierView>,
    /// Lanes waiting at a convergence barrier, WARPSYNC or block barrier.
    pub waiting: u64,
    pub status: WarpStatus,
    pub scoreboards: Vec<ScoreboardView>,
    /// Scoreboards the next instruction waits on that are still pending.
    pub blocking_scoreboards: u8,
    pub counters: Counters,
}

/// One line of a scheduler's ready queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueEntry {
    pub slot: u32,
    pub warp: u32,
    pub status: WarpStatus,
    /// It issued in the last simulated cycle.
    pub issued_last: bool,
    /// The policy would pick it in the next cycle.
    pub next: bool,
}

/// One lane of a resident warp: its registers and predicates, for the
/// TUI's lane inspector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneView {
    pub warp: u32,
    pub lane: u32,
    /// Thread index in the grid.
    pub tid: u64,
    pub state: LaneState,
    /// The lane's pc: its own under `its`; under `stack`, the pc of the
    /// topmost stack entry that holds it. `None` once it exited.
    pub pc: Option<u32>,
    /// `its`: what the lane waits for, if anything.
    pub wait: Option<LaneWait>,
    /// `R0`.. up to the highest register the program names.
    pub regs: Vec<u32>,
    /// Bit n: predicate `Pn` (P0..P6).
    pub preds: u8,
}

/// A register or predicate of every lane, for the lanes view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegSel {
    /// `R0`..
    Reg(u8),
    /// `P0`..`P6` (each lane's value is 0 or 1).
    Pred(u8),
}

impl RegSel {
    pub fn name(self) -> String {
        match self {
            RegSel::Reg(r) => format!("R{r}"),
            RegSel::Pred(p) => format!("P{p}"),
        }
    }
}

/// One warp-wide load, store or atomic: each lane's address and how the
/// addresses group, computed by the engine's own rules (`coalesce`,
/// `bank_passes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessView {
    pub warp: u32,
    pub pc: u32,
    pub space: AccessSpace,
    /// Bytes per lane.
    pub size: u32,
    pub store: bool,
    pub atomic: bool,
    /// `(lane, address)` of the lanes that access, in lane order.
    pub lanes: Vec<(u32, u32)>,
    /// Lanes whose 64-bit address is outside the device window (they fault).
    pub outside: u64,
    /// Global: distinct 32-byte sectors.
    pub sectors: u32,
    /// Global: distinct 128-byte lines (transactions).
    pub lines: u32,
    /// Global: distinct bytes requested.
    pub requested_bytes: u32,
    /// Shared: the passes the worst bank takes (1: conflict free).
    pub passes: u32,
    /// Shared: banks of 4 bytes.
    pub banks: u32,
}

impl AccessView {
    /// Sectors a perfectly coalesced access of the same bytes takes.
    pub fn ideal_sectors(&self) -> u32 {
        self.requested_bytes.div_ceil(32)
    }

    /// Lines (transactions) a perfectly coalesced access takes.
    pub fn ideal_lines(&self) -> u32 {
        self.requested_bytes.div_ceil(128)
    }
}

/// Where an address lies against the scenario's buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferPlace {
    pub name: String,
    pub base: u32,
    pub bytes: u32,
    /// `address - base` (negative: before the buffer).
    pub offset: i64,
}

impl BufferPlace {
    pub fn inside(&self) -> bool {
        self.offset >= 0 && self.offset < i64::from(self.bytes)
    }

    /// `data+0x10`, `data-0x4 (before it)` or `data+0x40 (past its 0x40 bytes)`.
    pub fn describe(&self) -> String {
        if self.offset < 0 {
            format!("{}-{:#x} (before it)", self.name, -self.offset)
        } else if self.inside() {
            format!("{}+{:#x}", self.name, self.offset)
        } else {
            format!(
                "{}+{:#x} (past its {:#x} bytes)",
                self.name, self.offset, self.bytes
            )
        }
    }
}

impl Machine {
    /// A resident warp by global index, with its SM.
    pub(crate) fn resident_warp(&self, warp: u32) -> Option<(u32, &Warp)> {
        self.st.sms.iter().find_map(|sm| {
            sm.slots
                .iter()
                .filter_map(|w| w.as_deref())
                .find(|w| w.gid == warp)
                .map(|w| (sm.id, w))
        })
    }

    /// Lane `lane` of resident warp `warp` (global index).
    pub fn lane_view(&self, warp: u32, lane: u32) -> Option<LaneView> {
        let (sm, w) = self.resident_warp(warp)?;
        if lane >= w.width {
            return None;
        }
        let bit = 1u64 << lane;
        let state = self.view_of(sm, w).lanes[lane as usize];
        let live = w.live() & bit != 0;
        let (pc, wait) = match &w.conv {
            Convergence::Stack(s) => (
                s.entries
                    .iter()
                    .rev()
                    .find(|e| e.mask & bit != 0)
                    .map(|e| e.pc)
                    .filter(|_| live),
                None,
            ),
            Convergence::Its(its) => (
                live.then_some(its.lane_pc(lane as usize)),
                Some(its.wait[lane as usize])
                    .filter(|&x| live && x != convergence::LaneWait::Running)
                    .map(LaneWait::from),
            ),
        };
        let regs = (0..self.sh.kernel.program().num_regs.min(255))
            .map(|r| w.reg(r as u8, lane))
            .collect();
        let preds = (0..7).fold(0u8, |m, p| m | (((w.preds[p] >> lane) & 1) as u8) << p);
        Some(LaneView {
            warp,
            lane,
            tid: u64::from(w.block) * u64::from(self.sh.cfg.block_dim)
                + u64::from(w.in_block) * u64::from(w.width)
                + u64::from(lane),
            state,
            pc,
            wait,
            regs,
            preds,
        })
    }

    /// Register or predicate `sel` of every lane of resident warp `warp`.
    pub fn lane_values(&self, warp: u32, sel: RegSel) -> Option<Vec<u32>> {
        let (_, w) = self.resident_warp(warp)?;
        Some(match sel {
            RegSel::Reg(r) => (0..w.width).map(|l| w.reg(r, l)).collect(),
            RegSel::Pred(p) => {
                let bits = w.preds.get(usize::from(p)).copied().unwrap_or(0);
                (0..w.width).map(|l| ((bits >> l) & 1) as u32).collect()
            }
        })
    }

    /// The access instruction `pc` makes for lanes `on` of resident warp
    /// `warp`, with the addresses read from the registers as they are now
    /// (so: before it issues). `None` when it is no load or store.
    pub fn access_view(&self, warp: u32, pc: u32, on: u64) -> Option<AccessView> {
        let (_, w) = self.resident_warp(warp)?;
        let d = self.sh.code.get(pc as usize)?;
        let cfg = &self.sh.cfg;
        let la = exec::lane_addresses(w, &d.instr.op, on, cfg.wide_addresses, cfg.shared_base)?;
        let mut pairs: Vec<(u32, u32)> = la.lanes.iter().map(|&(_, a)| (a, la.size)).collect();
        let (mut sectors, mut lines, mut requested, mut passes) = (0, 0, 0, 0);
        match la.space {
            AccessSpace::Global if !pairs.is_empty() => {
                let c = memory::coalesce(&mut pairs);
                (sectors, lines, requested) = (c.sectors, c.lines, c.requested_bytes);
            }
            AccessSpace::Shared => {
                let mut scratch = Vec::new();
                passes = memory::bank_passes(&pairs, cfg.shared_banks, &mut scratch);
            }
            _ => {}
        }
        Some(AccessView {
            warp,
            pc,
            space: la.space,
            size: la.size,
            store: la.store,
            atomic: la.atomic,
            lanes: la.lanes,
            outside: la.outside,
            sectors,
            lines,
            requested_bytes: requested,
            passes,
            banks: cfg.shared_banks,
        })
    }

    /// The buffer holding `addr`, else the nearest one (by distance to its
    /// first or last byte); `None` without buffers.
    pub fn nearest_buffer(&self, addr: u32) -> Option<BufferPlace> {
        self.sh
            .kernel
            .buffers()
            .iter()
            .map(|b| {
                let offset = i64::from(addr) - i64::from(b.base);
                let bytes = b.bytes();
                let dist = if offset < 0 {
                    -offset
                } else {
                    (offset - i64::from(bytes) + 1).max(0)
                };
                (dist, b.base, b, offset)
            })
            .min_by_key(|&(dist, base, _, _)| (dist, base))
            .map(|(_, _, b, offset)| BufferPlace {
                name: b.name.clone(),
                base: b.base,
                bytes: b.bytes(),
                offset,
            })
    }

    /// The state of warp `w`'s scheduler on SM `sm`.
    fn scheduler_of(&self, sm: u32, w: &Warp) -> &SchedState {
        static NONE: SchedState = SchedState::IDLE;
        self.st
            .sms
            .get(sm as usize)
            .and_then(|s| s.sched[..s.schedulers].get(w.scheduler as usize))
            .unwrap_or(&NONE)
    }

    fn status_of(&self, sm: u32, w: &Warp) -> (WarpStatus, Option<u32>, u64) {
        let t = self.st.cycle;
        let sfu_free = self.scheduler_of(sm, w).sfu_free;
        match readiness(&self.sh.code, w, t, sfu_free, self.sh.cfg.group_policy) {
            Readiness::Ready { pc, lanes } => (WarpStatus::Eligible, Some(pc), lanes),
            Readiness::Blocked {
                reason,
                labelled,
                until,
                pc,
            } => (
                WarpStatus::Stalled {
                    reason,
                    labelled,
                    cycles_left: (until != u64::MAX).then(|| until.saturating_sub(t)),
                },
                Some(pc),
                match &w.conv {
                    Convergence::Stack(s) => s.active(w.live()).map_or(0, |a| a.1),
                    Convergence::Its(its) => {
                        its.groups.iter().find(|g| g.0 == pc).map_or(0, |g| g.1)
                    }
                },
            ),
            Readiness::Done => (WarpStatus::Exited, None, 0),
        }
    }

    /// Resident warp `warp` (global index), if it is on an SM.
    pub fn warp_view(&self, warp: u32) -> Option<WarpView> {
        let (sm, w) = self.resident_warp(warp)?;
        Some(self.view_of(sm, w))
    }

    /// A view of resident warp `w` on SM `sm`.
    fn view_of(&self, sm: u32, w: &Warp) -> WarpView {
        let t = self.st.cycle;
        let (status, pc, active) = self.status_of(sm, w);
        let guard = pc
            .and_then(|p| self.sh.code.get(p as usize))
            .map_or(w.full(), |d| w.pred_mask(d.instr.guard));
        let live = w.live();
        let (stack, groups, barriers, waiting) = match &w.conv {
            Convergence::Stack(s) => (
                s.entries
                    .iter()
                    .map(|e| StackEntryView {
                        pc: e.pc,
                        rpc: e.rpc,
                        mask: e.mask,
                    })
                    .collect(),
                Vec::new(),
                Vec::new(),
                if w.at_bar { live } else { 0 },
            ),
            Convergence::Its(its) => (
                Vec::new(),
                its.groups
                    .iter()
                    .map(|&(pc, lanes)| GroupView { pc, lanes })
                    .collect(),
                its.barriers
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.participants != 0)
                    .map(|(i, b)| BarrierView {
                        index: i as u8,
                        participants: b.participants,
                        arrived: b.arrived,
                        target: b.target,
                    })
                    .collect(),
                its.waiting(live, None),
            ),
        };
        let lanes = (0..w.width)
            .map(|l| {
                let bit = 1u64 << l;
                if w.launched & bit == 0 {
                    LaneState::NeverLaunched
                } else if w.faulted & bit != 0 {
                    LaneState::Faulted
                } else if w.exited & bit != 0 {
                    LaneState::Exited
                } else if active & bit == 0 {
                    LaneState::Parked
                } else if guard & bit != 0 {
                    LaneState::On
                } else {
                    LaneState::PredOff
                }
            })
            .collect();
        let summary = w.sb.summary(t);
        let scoreboards = (0..SCOREBOARDS)
            .map(|i| {
                let (pending, producer) = summary[i];
                ScoreboardView {
                    index: i as u8,
                    pending,
                    producer: producer.map(ProducerView::from),
                    cycles_left: producer.map_or(0, |p| p.done.saturating_sub(t)),
                }
            })
            .collect();
        let blocking_scoreboards = pc
            .and_then(|p| self.sh.code.get(p as usize))
            .map_or(0, |d| {
                (0..SCOREBOARDS as u8)
                    .filter(|&i| {
                        d.instr.control.wait_mask & (1 << i) != 0 && summary[usize::from(i)].0 > 0
                    })
                    .fold(0, |m, i| m | 1 << i)
            });
        WarpView {
            warp: w.gid,
            block: w.block,
            sm,
            slot: w.slot,
            scheduler: w.scheduler,
            width: w.width,
            pc,
            active,
            launched: w.launched,
            exited: w.exited,
            faulted: w.faulted,
            lanes,
            stack,
            groups,
            barriers,
            waiting,
            status,
            scoreboards,
            blocking_scoreboards,
            counters: w.counters_at(t, self.scheduler_of(sm, w)),
        }
    }

    /// Views of every resident warp, by SM then slot.
    pub fn warp_views(&self) -> Vec<WarpView> {
        self.st
            .sms
            .iter()
            .flat_map(|sm| {
                sm.slots
                    .iter()
                    .filter_map(Option::as_ref)
                    .map(move |w| self.view_of(sm.id, w))
            })
            .collect()
    }

    /// Scheduler `k` of SM `sm`: its warps in the order its policy
    /// considers them, each with its status for the next cycle.
    pub fn ready_queue(&self, sm: u32, k: u32) -> Vec<QueueEntry> {
        let Some(s) = self.st.sms.get(sm as usize) else {
            return Vec::new();
        };
        let policy = self.sh.cfg.policy;
        let order = s.policy_order(k as usize, policy);
        let mut eligible = 0u64;
        let mut entries: Vec<QueueEntry> = order
            .iter()
            .filter_map(|&slot| {
                let w = s.slots.get(slot as usize)?.as_ref()?;
                let (status, _, _) = self.status_of(sm, w);
                if status == WarpStatus::Eligible {
                    eligible |= 1 << slot;
                }
                Some(QueueEntry {
                    slot,
                    warp: w.gid,
                    status,
                    issued_last: self
                        .st
                        .issues
                        .iter()
                        .any(|i| i.sm == sm && i.slot == slot && !i.dispatch_stall),
                    next: false,
                })
            })
            .collect();
        if let Some(pick) = s.select(k as usize, policy, eligible) {
            for e in &mut entries {
                e.next = e.slot == pick;
            }
        }
        entries
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::tests::{kernel_with, one_warp};

    #[test]
    fn a_warp_is_viewed_by_its_id() {
        let mut m = kernel_with("MOV R1, 1\nEXIT\n", |_| {}, one_warp(), vec![]).machine();
        // Before the first cycle no block is dispatched.
        assert_eq!(m.warp_view(0), None);
        assert!(m.step());
        // Cycle 0 issued the MOV at pc 0: all 32 lanes are next at pc 1.
        let v = m.warp_view(0).expect("warp 0 is resident");
        assert_eq!((v.warp, v.sm, v.pc, v.active), (0, 0, Some(1), 0xffff_ffff));
        assert_eq!(m.warp_views(), vec![v]);
        // One block of 32 threads is one warp, of lanes 0..=31.
        assert_eq!(m.warp_view(1), None);
        assert!(m.lane_view(0, 31).is_some());
        assert_eq!(m.lane_view(0, 32), None);
    }
}
