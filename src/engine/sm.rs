//! A streaming multiprocessor: warp slots, resident blocks, warp
//! schedulers and the event wheel that wakes stalled warps.

use super::config::{MachineConfig, Policy};
use super::memory::SharedMemory;
use super::warp::Warp;

/// Cycles the wheel can look ahead; a later wake is split into re-checks.
pub const WHEEL: u64 = 1024;

/// Warp schedulers an SM can have (a scenario is checked against it).
pub const MAX_SCHEDULERS: usize = MachineConfig::MAX_SCHEDULERS as usize;

/// Cycles ahead a warp can be filed as ready (see [`Wheel::file_ready`]):
/// more than any stall count.
pub const SOON: u64 = 32;

// One bit of `Wheel::ready_bits` per entry of the ring.
const _: () = assert!(SOON == u32::BITS as u64);

/// A timing wheel of warp-slot masks: slot `t % WHEEL` holds the warps to
/// re-evaluate at cycle `t`. An occupancy bitmap finds the next busy slot
/// quickly when the whole SM is idle. Both are fixed-size arrays, so that
/// indexing by `t % WHEEL` needs no bounds check.
///
/// Beside it, `ready[t % SOON]` holds the warps already known to be
/// eligible from cycle `t`: they join the eligible set then, with nothing
/// to re-evaluate.
#[derive(Debug, Clone)]
pub struct Wheel {
    slots: Box<[u64; WHEEL as usize]>,
    occupied: [u64; WHEEL as usize / 64],
    ready: [u64; SOON as usize],
    /// Bit `i` set exactly when `ready[i]` is not empty.
    ready_bits: u32,
}

impl Default for Wheel {
    fn default() -> Self {
        Wheel {
            slots: Box::new([0; WHEEL as usize]),
            occupied: [0; WHEEL as usize / 64],
            ready: [0; SOON as usize],
            ready_bits: 0,
        }
    }
}

impl Wheel {
    /// Schedules warp slot `slot` at cycle `when` (`now < when`), clamped to
    /// the horizon. Returns the cycle actually scheduled.
    // Out of line: inlined into the cycle loop, its arithmetic was done
    // (and kept on the stack) every cycle, whether a warp was filed or not.
    #[inline(never)]
    pub fn schedule(&mut self, now: u64, when: u64, slot: u32) -> u64 {
        let when = when.min(now + WHEEL - 1).max(now);
        let i = (when % WHEEL) as usize;
        self.slots[i] |= 1 << slot;
        self.occupied[i / 64] |= 1 << (i % 64);
        when
    }

    /// Files warp slot `slot`, whose status is already `Eligible` from
    /// cycle `at` (`now < at`), to join the eligible set then. Nothing may
    /// change its status before `at`: it is not in the eligible set, and
    /// only its own issue changes a warp that is not (except a barrier
    /// release, and a warp at a barrier is never filed ready). Past the
    /// ring's reach it is scheduled on the wheel instead, to be checked.
    /// Returns the cycle filed.
    pub fn file_ready(&mut self, now: u64, at: u64, slot: u32) -> u64 {
        if at - now < SOON {
            self.file_ready_all(at, 1 << slot);
            at
        } else {
            self.schedule(now, at, slot)
        }
    }

    /// Files the warp slots of `mask` to join the eligible set at cycle
    /// `at`, which is less than [`SOON`] cycles ahead, with nothing to
    /// re-check: as [`Wheel::file_ready`], for warps whose readiness from
    /// `at` is known now (their status may have begun earlier).
    pub fn file_ready_all(&mut self, at: u64, mask: u64) {
        let i = (at % SOON) as usize;
        self.ready[i] |= mask;
        if mask != 0 {
            self.ready_bits |= 1 << i;
        }
    }

    /// Takes the warps filed ready from cycle `t`.
    pub fn take_ready(&mut self, t: u64) -> u64 {
        let i = (t % SOON) as usize;
        self.ready_bits &= !(1 << i);
        std::mem::take(&mut self.ready[i])
    }

    /// Takes the warps due at cycle `t`.
    pub fn take(&mut self, t: u64) -> u64 {
        let i = (t % WHEEL) as usize;
        let m = self.slots[i];
        if m != 0 {
            self.empty(i);
        }
        m
    }

    /// Empties wheel slot `i`. Out of line: inlined, its bit arithmetic was
    /// worked out every cycle, whether the slot held anything or not.
    #[inline(never)]
    fn empty(&mut self, i: usize) {
        self.slots[i] = 0;
        self.occupied[i / 64] &= !(1 << (i % 64));
    }

    /// Nothing is scheduled or filed ready: [`Wheel::next_due`] is `None`
    /// at every cycle.
    pub fn is_empty(&self) -> bool {
        self.ready_bits == 0 && !self.occupied.iter().any(|&o| o != 0)
    }

    /// Something is scheduled or filed ready at `t` itself: exactly when
    /// [`Wheel::next_due`]`(t)` is `t`, at the cost of two bit tests.
    #[inline(always)]
    pub fn due_at(&self, t: u64) -> bool {
        let i = (t % WHEEL) as usize;
        self.ready_bits >> (t % SOON) & 1 != 0 || self.occupied[i / 64] >> (i % 64) & 1 != 0
    }

    /// The first cycle at or after `t` with something scheduled or filed
    /// ready. Every ready entry is within `SOON` cycles of the current
    /// cycle: no cycle is skipped past one.
    pub fn next_due(&self, t: u64) -> Option<u64> {
        // The ring's entries from `t % SOON` on, in cycle order.
        let ahead = self.ready_bits.rotate_right((t % SOON) as u32);
        let ready = (ahead != 0).then(|| u64::from(ahead.trailing_zeros()));
        let due = self.next_scheduled(t);
        match (ready.map(|k| t + k), due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn next_scheduled(&self, t: u64) -> Option<u64> {
        let start = (t % WHEEL) as usize;
        let words = self.occupied.len();
        for k in 0..=words {
            let w = (start / 64 + k) % words;
            let mut bits = self.occupied[w];
            if k == 0 {
                bits &= u64::MAX << (start % 64);
            } else if k == words {
                bits &= !(u64::MAX << (start % 64));
            }
            if bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                let dist = (i + WHEEL as usize - start) % WHEEL as usize;
                return Some(t + dist as u64);
            }
        }
        None
    }
}

/// A block resident on an SM.
#[derive(Debug, Clone)]
pub struct ResidentBlock {
    pub id: u32,
    /// Warp slots it occupies.
    pub slots: u64,
    pub shared: SharedMemory,
}

/// One warp scheduler's state.
#[derive(Debug, Clone, Default)]
pub struct SchedState {
    /// Slot issued last (loose round robin starts after it).
    pub last: Option<u32>,
    /// The warp greedy-then-oldest sticks to.
    pub greedy: Option<u32>,
    /// The MUFU pipe accepts the next instruction from this cycle.
    pub sfu_free: u64,
    /// The first cycle the latest MUFU issue keeps the pipe busy: that
    /// issue's busy window is `pipe_start..sfu_free`.
    pub pipe_start: u64,
    /// Cycles the pipe has been busy, every window so far counted whole
    /// (the latest's cycles to come included).
    pub pipe_busy: u64,
    /// Warps of this scheduler eligible at a MUFU that only the pipe can
    /// stop (a `stack` warp, or an `its` warp with all its lanes in one
    /// group), whose status is charged lazily: the cycles of their wait in
    /// which the pipe was busy are `math_pipe_throttle`, worked out from
    /// [`Self::pipe_busy`] when the status ends
    /// ([`super::warp::Warp::pipe_mark`]), not warp by warp at each MUFU
    /// issue.
    pub lazy: u64,
}

impl SchedState {
    /// A scheduler that has issued nothing.
    pub const IDLE: SchedState = SchedState {
        last: None,
        greedy: None,
        sfu_free: 0,
        pipe_start: 0,
        pipe_busy: 0,
        lazy: 0,
    };

    /// The MUFU pipe accepts an instruction at cycle `t` that keeps it
    /// busy for `interval` cycles: no other MUFU issues before
    /// `t + interval`, so windows never overlap.
    pub fn accept_mufu(&mut self, t: u64, interval: u32) {
        self.pipe_start = t + 1;
        self.sfu_free = t + u64::from(interval.max(1));
        self.pipe_busy += self.sfu_free - self.pipe_start;
    }

    /// Busy cycles of the MUFU pipe before cycle `t`, for any `t` from the
    /// latest window's issue on (every status is charged at the current
    /// cycle, which is).
    pub fn pipe_busy_before(&self, t: u64) -> u64 {
        let to_come = self.sfu_free.saturating_sub(t.max(self.pipe_start));
        self.pipe_busy - to_come
    }
}

/// One SM.
#[derive(Debug, Clone)]
pub struct Sm {
    pub id: u32,
    /// Boxed so that taking a warp out to issue it moves a pointer.
    pub slots: Vec<Option<Box<Warp>>>,
    /// Free slots, by bit.
    pub free: u64,
    pub blocks: Vec<ResidentBlock>,
    /// Warps that can issue now, by slot.
    pub eligible: u64,
    /// Warp schedulers: the first `schedulers` entries of `sched` and
    /// `sched_mask` (fixed arrays, so that indexing them loads no length).
    pub schedulers: usize,
    /// Slots belonging to each scheduler.
    pub sched_mask: [u64; MAX_SCHEDULERS],
    pub sched: [SchedState; MAX_SCHEDULERS],
    /// Warps of finished blocks, kept so launching a block reuses their
    /// allocations (register file, stack) instead of allocating anew.
    // Boxed: a spare moves back into a slot (`Option<Box<Warp>>`) as a
    // pointer, not as the whole warp.
    #[allow(clippy::vec_box)]
    pub spare: Vec<Box<Warp>>,
    pub wheel: Wheel,
    /// Last cycle the shared-memory pipe accepted an instruction.
    pub lsu_busy: Option<u64>,
}

impl Sm {
    pub fn new(id: u32, slots: u32, schedulers: u32) -> Self {
        let schedulers = (schedulers as usize).clamp(1, MAX_SCHEDULERS);
        let mut sched_mask = [0u64; MAX_SCHEDULERS];
        for s in 0..slots as usize {
            sched_mask[s % schedulers] |= 1 << s;
        }
        Sm {
            id,
            slots: vec![None; slots as usize],
            free: super::warp::lane_mask(slots),
            blocks: Vec::new(),
            eligible: 0,
            schedulers,
            sched_mask,
            sched: Default::default(),
            spare: Vec::new(),
            wheel: Wheel::default(),
            lsu_busy: None,
        }
    }

    /// Free warp slots.
    pub fn free_slots(&self) -> u64 {
        self.free
    }

    /// Resident slots of `mask`, oldest (first dispatched) first.
    fn by_age(&self, mask: u64) -> Vec<u32> {
        let mut v: Vec<(u64, u32)> = (0..self.slots.len() as u32)
            .filter(|&slot| mask >> slot & 1 != 0)
            .filter_map(|slot| self.slots[slot as usize].as_ref().map(|w| (w.age, slot)))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, slot)| slot).collect()
    }

    /// The scheduler's candidates in the order its policy considers them.
    pub fn policy_order(&self, s: usize, policy: Policy) -> Vec<u32> {
        let mask = self.sched_mask[s];
        match policy {
            Policy::Lrr => {
                let mut v: Vec<u32> = (0..self.slots.len() as u32)
                    .filter(|&slot| mask >> slot & 1 != 0 && self.slots[slot as usize].is_some())
                    .collect();
                if let Some(last) = self.sched[s].last {
                    let k = v.iter().position(|&x| x > last).unwrap_or(0);
                    v.rotate_left(k);
                }
                v
            }
            Policy::Gto => {
                let mut v = self.by_age(mask);
                if let Some(g) = self.sched[s].greedy
                    && let Some(k) = v.iter().position(|&x| x == g)
                {
                    let g = v.remove(k);
                    v.insert(0, g);
                }
                v
            }
        }
    }

    /// Picks the warp scheduler `s` issues from among `cand` (eligible
    /// warps of that scheduler), per policy. Inlined into the issue loop
    /// (a call there measured slower).
    #[inline(always)]
    pub fn select(&self, s: usize, policy: Policy, cand: u64) -> Option<u32> {
        if cand == 0 {
            return None;
        }
        let st = &self.sched[s];
        match policy {
            Policy::Lrr => {
                // Slots are below 64, so `l + 1` is at most 64: shifted
                // in two steps, the mask is empty above slot 63.
                let above = match st.last {
                    Some(l) => cand & (u64::MAX << 1).wrapping_shl(l),
                    None => cand,
                };
                let pick = if above != 0 { above } else { cand };
                Some(pick.trailing_zeros())
            }
            Policy::Gto => {
                if let Some(g) = st.greedy
                    && cand >> g & 1 != 0
                    && self.slots[g as usize].as_ref().is_some_and(|w| !w.yielded)
                {
                    return Some(g);
                }
                // The oldest eligible warp other than the one that yielded.
                let others = match st.greedy {
                    Some(g) => cand & !(1 << g),
                    None => cand,
                };
                let oldest = super::convergence::its::lanes(others)
                    .filter_map(|slot| self.slots[slot].as_ref().map(|w| (w.age, slot as u32)))
                    .min()
                    .map(|(_, slot)| slot);
                oldest.or(st.greedy.filter(|&g| cand >> g & 1 != 0))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_schedules_takes_and_finds_the_next() {
        let mut w = Wheel::default();
        assert_eq!(w.schedule(10, 15, 3), 15);
        assert_eq!(w.schedule(10, 5000, 4), 10 + WHEEL - 1);
        assert_eq!(w.next_due(10), Some(15));
        assert!(!w.is_empty());
        assert_eq!(w.take(15), 1 << 3);
        assert_eq!(w.next_due(16), Some(10 + WHEEL - 1));
        assert_eq!(w.take(10 + WHEEL - 1), 1 << 4);
        assert_eq!(w.next_due(16), None);
        assert!(w.is_empty());
        // Wrapping around the end of the wheel.
        w.schedule(1000, 1030, 1);
        assert_eq!(w.next_due(1001), Some(1030));
    }

    #[test]
    fn ready_warps_join_at_their_cycle_and_far_ones_go_on_the_wheel() {
        let mut w = Wheel::default();
        assert_eq!(w.file_ready(100, 104, 5), 104);
        assert_eq!(w.file_ready(100, 104, 6), 104);
        assert_eq!(w.next_due(100), Some(104));
        // Filed ready and nothing scheduled: not empty.
        assert!(!w.is_empty());
        // Nothing ready before its cycle; both at once then, and only once.
        assert_eq!(w.take_ready(103), 0);
        assert_eq!(w.take_ready(104), 1 << 5 | 1 << 6);
        assert_eq!(w.take_ready(104), 0);
        assert_eq!(w.next_due(105), None);
        assert!(w.is_empty());
        // Past the ring's reach: scheduled on the wheel, to be checked.
        assert_eq!(w.file_ready(100, 100 + SOON, 7), 100 + SOON);
        assert_eq!(w.take_ready(100 + SOON), 0);
        assert_eq!(w.take(100 + SOON), 1 << 7);
        // The earlier of a ready entry and a scheduled one is next.
        w.schedule(200, 210, 1);
        w.file_ready(200, 220, 2);
        assert_eq!(w.next_due(200), Some(210));
        w.take(210);
        assert_eq!(w.next_due(211), Some(220));
        w.take_ready(220);
        assert!(w.is_empty());
        // Across the end of the ring (60 % 32 = 28, 65 % 32 = 1), the
        // nearest first.
        w.file_ready(60, 65, 1);
        w.file_ready(60, 62, 2);
        assert_eq!(w.next_due(60), Some(62));
        assert_eq!(w.take_ready(62), 1 << 2);
        assert_eq!(w.next_due(63), Some(65));
        // An empty mask files nothing.
        w.file_ready_all(64, 0);
        assert_eq!(w.next_due(63), Some(65));
    }

    /// `due_at(t)` holds exactly when `next_due(t)` is `t`, over filings
    /// and schedules that wrap both rings (the reference is `next_due`'s
    /// own scan).
    #[test]
    fn due_at_is_next_due_at_the_cycle_itself() {
        let mut w = Wheel::default();
        let agree = |w: &Wheel, t: u64| {
            assert_eq!(w.due_at(t), w.next_due(t) == Some(t), "cycle {t}");
            w.due_at(t)
        };
        assert!(!agree(&w, 0));
        w.file_ready(100, 104, 5);
        w.schedule(100, 100 + WHEEL + 7, 6);
        let mut due = 0;
        for t in 100..100 + 2 * WHEEL {
            due += u32::from(agree(&w, t));
        }
        // The ready entry at 104 (and 104 + 32k, the ring's later laps)
        // and the wheel's entry at 100 + WHEEL - 1 (clamped; and one lap
        // on): each found at its own cycles only.
        assert_eq!(due, 2 * WHEEL as u32 / SOON as u32 + 2);
        w.take_ready(104);
        w.take(100 + WHEEL - 1);
        for t in 100..100 + 2 * WHEEL {
            assert!(!agree(&w, t));
        }
    }

    #[test]
    fn loose_round_robin_starts_after_the_last_issued() {
        let mut sm = Sm::new(0, 8, 1);
        sm.sched[0].last = Some(2);
        assert_eq!(sm.select(0, Policy::Lrr, 0b1000_0101), Some(7));
        sm.sched[0].last = Some(7);
        assert_eq!(sm.select(0, Policy::Lrr, 0b1000_0101), Some(0));
        sm.sched[0].last = Some(63);
        assert_eq!(sm.select(0, Policy::Lrr, 0b100), Some(2));
    }

    #[test]
    fn schedulers_own_every_sth_slot() {
        let sm = Sm::new(0, 8, 4);
        assert_eq!(sm.schedulers, 4);
        assert_eq!(sm.sched_mask, [0x11, 0x22, 0x44, 0x88]);
    }
}
