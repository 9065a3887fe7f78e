//! Stepping back: checkpoints of the machine and re-simulation.
//!
//! The machine only runs forward. To show cycle `t` after being at a later
//! cycle, the timeline restores the nearest checkpoint at or before `t` (a
//! clone of the machine: register files are per warp, global memory pages
//! are shared copy-on-write) and simulates forward again. Back and forward
//! therefore run the same code and can never disagree.
//!
//! Two sets of checkpoints keep that cheap at any cycle with bounded memory:
//!
//! - *coarse* ones at multiples of a spacing `K`, at most [`COARSE_KEEP`];
//!   when full, `K` doubles and every other one is dropped, so a run of any
//!   length keeps at most 64 (at cycle 1,000,000, `K` is 16,384);
//! - *fine* ones every [`FINE_EVERY`] cycles near where the user is, at
//!   most [`FINE_KEEP`], the farthest dropped first; every seek lays them
//!   down again around its target, so stepping back one cycle re-simulates
//!   at most `FINE_EVERY + HISTORY` cycles.
//!
//! The last [`HISTORY`] cycles before the current one are always simulated
//! with [`Machine::step`] (one cycle per call), never skipped over with
//! [`Machine::run_until`]: their samples feed the SIMD-efficiency sparkline
//! and [`Machine::issues`] is that of the last cycle, whichever way the
//! cycle was reached.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use crate::engine::Machine;

/// Cycles of per-cycle samples kept for the sparkline.
pub const HISTORY: usize = 200;
/// Spacing of fine checkpoints.
pub const FINE_EVERY: u64 = 64;
/// Fine checkpoints kept.
pub const FINE_KEEP: usize = 16;
/// Coarse checkpoints kept; the spacing doubles when more would be needed.
pub const COARSE_KEEP: usize = 64;
/// The first coarse spacing.
const COARSE_START: u64 = 256;

/// What the schedulers issued in one cycle, summed over schedulers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CycleSample {
    /// Warp instructions issued.
    pub issued: u32,
    /// Active lanes of those instructions.
    pub active: u32,
    /// Predicated-on lanes of those instructions.
    pub on: u32,
    /// A branch split a warp.
    pub diverged: bool,
    /// Lanes joined others.
    pub reconverged: bool,
}

impl CycleSample {
    /// The sample of the cycle `m` just simulated.
    fn of(m: &Machine) -> Self {
        let mut s = CycleSample::default();
        for r in m.issues().iter().filter(|r| !r.dispatch_stall) {
            s.issued += 1;
            s.active += r.active.count_ones();
            s.on += r.on.count_ones();
            s.diverged |= r.diverged;
            s.reconverged |= r.reconverged;
        }
        s
    }

    /// SIMD efficiency of the cycle's issues (`None`: nothing issued).
    pub fn simd_efficiency(&self, width: u32) -> Option<f64> {
        let slots = u64::from(self.issued) * u64::from(width);
        (slots != 0).then(|| f64::from(self.on) / slots as f64)
    }
}

/// The machine at the cycle being shown, with the means to go back.
#[derive(Debug, Clone)]
pub struct Timeline {
    current: Machine,
    /// The machine's cycle limit, read once: a run stops there.
    max_cycles: u64,
    /// Samples of the cycles just before `current.cycle()`, oldest first.
    history: VecDeque<CycleSample>,
    coarse: BTreeMap<u64, Arc<Machine>>,
    coarse_every: u64,
    fine: BTreeMap<u64, Arc<Machine>>,
    /// The cycle at which the run halts, once known.
    end: Option<u64>,
}

impl Timeline {
    /// A timeline starting from `m` (a machine at cycle 0, as built).
    pub fn new(m: Machine) -> Timeline {
        let max_cycles = m.config().max_cycles;
        let mut coarse = BTreeMap::new();
        coarse.insert(m.cycle(), Arc::new(m.clone()));
        Timeline {
            current: m,
            max_cycles,
            history: VecDeque::with_capacity(HISTORY),
            coarse,
            coarse_every: COARSE_START,
            fine: BTreeMap::new(),
            end: None,
        }
    }

    /// The machine at the current cycle (read it, never step it).
    pub fn machine(&self) -> &Machine {
        &self.current
    }

    pub fn cycle(&self) -> u64 {
        self.current.cycle()
    }

    /// Per-cycle samples of up to [`HISTORY`] cycles before the current
    /// one, oldest first.
    pub fn history(&self) -> &VecDeque<CycleSample> {
        &self.history
    }

    /// The sample of the last simulated cycle, if any.
    pub fn last_sample(&self) -> Option<&CycleSample> {
        self.history.back()
    }

    /// The cycle at which the run halts (finished or stopped), once a seek
    /// or a step has reached it.
    pub fn end(&self) -> Option<u64> {
        self.end
    }

    /// Checkpoints held now (coarse and fine; one shared by both counts once).
    pub fn checkpoint_count(&self) -> usize {
        let shared = self
            .fine
            .keys()
            .filter(|c| self.coarse.contains_key(c))
            .count();
        self.coarse.len() + self.fine.len() - shared
    }

    /// The cycles of the checkpoints held, ascending (for tests and benches).
    pub fn checkpoint_cycles(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .coarse
            .keys()
            .chain(self.fine.keys())
            .copied()
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The current coarse spacing.
    pub fn coarse_every(&self) -> u64 {
        self.coarse_every
    }

    /// Simulates one cycle. False, doing nothing, once the run halted.
    pub fn step(&mut self) -> bool {
        self.step_keeping(true)
    }

    /// As [`Timeline::step`], taking only the coarse checkpoints: what a
    /// long run to a goal does, which would otherwise copy the machine
    /// every [`FINE_EVERY`] cycles (the fine ones are laid down again by
    /// the next seek back).
    pub fn step_coarse(&mut self) -> bool {
        self.step_keeping(false)
    }

    fn step_keeping(&mut self, fine: bool) -> bool {
        if self.current.halted() || !self.current.step() {
            self.settle();
            return false;
        }
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(CycleSample::of(&self.current));
        self.settle();
        self.checkpoint_here(fine);
        true
    }

    /// Shows cycle `target` (or the end of the run, if it halts before).
    pub fn seek(&mut self, target: u64) {
        let target = self.end.map_or(target, |e| target.min(e));
        let now = self.cycle();
        if target == now {
            return;
        }
        // A short way forward is cheaper stepped than rebuilt.
        if target > now && target - now <= HISTORY as u64 + FINE_EVERY {
            while self.cycle() < target && self.step() {}
            return;
        }
        self.rebuild(target);
        if self.cycle() < target {
            // It halted on the way: show the end the way stepping reaches it.
            let end = self.cycle();
            self.rebuild(end);
        }
    }

    /// Goes back to the checkpoint from which `target` (earlier than the
    /// current cycle) is reached, without simulating: a seek forward to
    /// `target` then takes the rest of the way, in as many steps as the
    /// caller likes. Nothing happens for a target at or after the current
    /// cycle.
    pub fn rewind(&mut self, target: u64) {
        if target >= self.cycle() {
            return;
        }
        let start = target.saturating_sub(HISTORY as u64);
        if let Some(c) = self.latest_checkpoint(start) {
            self.current = Machine::clone(&c);
            self.history.clear();
        }
    }

    /// Goes `n` cycles back (to cycle 0 at most).
    pub fn back(&mut self, n: u64) {
        self.seek(self.cycle().saturating_sub(n));
    }

    /// The machine at cycle `c` (at most the current one), stepped from
    /// the nearest checkpoint at or before it; the timeline stays where
    /// it is. `None` past the current cycle.
    pub fn machine_at(&self, c: u64) -> Option<Machine> {
        if c >= self.cycle() {
            return (c == self.cycle()).then(|| self.current.clone());
        }
        let ckpt = self.latest_checkpoint(c)?;
        let mut m = Machine::clone(&ckpt);
        while m.cycle() < c && m.step() {}
        (m.cycle() == c).then_some(m)
    }

    /// Reaches `target` from the latest checkpoint that allows stepping its
    /// last [`HISTORY`] cycles one by one.
    fn rebuild(&mut self, target: u64) {
        let start = target.saturating_sub(HISTORY as u64);
        let ckpt = self.latest_checkpoint(start);
        let here = self.current.cycle();
        let keep_current = here <= start && ckpt.as_ref().is_none_or(|c| c.cycle() <= here);
        if !keep_current && let Some(c) = ckpt {
            self.current = Machine::clone(&c);
        }
        self.history.clear();
        self.bulk_to(start, target);
        while self.cycle() < target && self.step() {}
    }

    /// The checkpoint with the greatest cycle before `cycle` (`None` for
    /// cycle 0): where a backward search starts a segment.
    pub(crate) fn checkpoint_before(&self, cycle: u64) -> Option<Arc<Machine>> {
        self.latest_checkpoint(cycle.checked_sub(1)?)
    }

    /// The checkpoint with the greatest cycle at or before `cycle`.
    fn latest_checkpoint(&self, cycle: u64) -> Option<Arc<Machine>> {
        let c = self.coarse.range(..=cycle).next_back();
        let f = self.fine.range(..=cycle).next_back();
        match (c, f) {
            (Some(c), Some(f)) => Some(if f.0 > c.0 { f.1 } else { c.1 }),
            (Some(c), None) => Some(c.1),
            (None, Some(f)) => Some(f.1),
            (None, None) => None,
        }
        .cloned()
    }

    /// Runs to `start`, skipping idle cycles, pausing at checkpoint cycles
    /// (fine ones only in the window before `target`).
    fn bulk_to(&mut self, start: u64, target: u64) {
        let fine_from = target.saturating_sub(FINE_EVERY * FINE_KEEP as u64);
        while self.cycle() < start && !self.current.halted() {
            let c = self.cycle();
            let next_coarse = (c / self.coarse_every + 1) * self.coarse_every;
            let next_fine = (c.max(fine_from) / FINE_EVERY + 1) * FINE_EVERY;
            let stop = start.min(next_coarse).min(next_fine);
            self.current.run_until(stop);
            self.settle();
            if self.cycle() == stop {
                self.checkpoint_here(stop >= fine_from);
            }
        }
    }

    /// Latches a `max_cycles` stop as soon as the limit is reached, so a
    /// machine at that cycle looks the same however it got there.
    fn settle(&mut self) {
        let m = &mut self.current;
        if !m.halted() && m.cycle() >= self.max_cycles {
            m.step();
        }
        if m.halted() {
            self.end = Some(m.cycle());
        }
    }

    /// Takes the checkpoints due at the current cycle.
    fn checkpoint_here(&mut self, fine: bool) {
        let c = self.cycle();
        let want_coarse = c.is_multiple_of(self.coarse_every) && !self.coarse.contains_key(&c);
        let want_fine = fine && c.is_multiple_of(FINE_EVERY) && !self.fine.contains_key(&c);
        if !want_coarse && !want_fine {
            return;
        }
        let snap = self
            .coarse
            .get(&c)
            .or_else(|| self.fine.get(&c))
            .cloned()
            .unwrap_or_else(|| Arc::new(self.current.clone()));
        if want_coarse {
            self.coarse.insert(c, Arc::clone(&snap));
            while self.coarse.len() > COARSE_KEEP {
                self.coarse_every *= 2;
                let every = self.coarse_every;
                self.coarse.retain(|k, _| k.is_multiple_of(every));
            }
        }
        if want_fine {
            self.fine.insert(c, snap);
            while self.fine.len() > FINE_KEEP {
                let far = self
                    .fine
                    .keys()
                    .copied()
                    .max_by_key(|k| k.abs_diff(c))
                    .unwrap_or(c);
                self.fine.remove(&far);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin;
    use crate::scenario::Scenario;
    use crate::session::fresh_machine;

    fn divergent_loop() -> Arc<Scenario> {
        Arc::new(builtin::resolve("divergent-loop").expect("built-in loads"))
    }

    /// A scenario that runs for a long time: one warp, a loop of `trips`.
    fn long_loop(trips: u32) -> Arc<Scenario> {
        let yaml = format!(
            "name: long loop\nlaunch: {{threads: 32}}\ninputs: {{R5: {trips}}}\nprogram: |\n  \
             loop:\n  IADD3 R2, R2, 1, RZ\n  ISETP.LT.AND P0, PT, R2, R5, PT\n  @P0 BRA loop\n  EXIT\n"
        );
        Arc::new(
            Scenario::from_text(&yaml, crate::scenario::Origin::Builtin("long".into()))
                .expect("loads"),
        )
    }

    /// Everything a frontend can read about the machine, as text.
    fn fingerprint(t: &Timeline) -> String {
        let m = t.machine();
        format!(
            "{} {:?} {:?} {:?} {:?} {:?} {}",
            m.cycle(),
            m.warp_views(),
            m.issues(),
            m.totals(),
            m.pc_counters(),
            t.history(),
            m.halted()
        )
    }

    fn stepped_to(sc: &Arc<Scenario>, cycle: u64) -> Timeline {
        let mut t = Timeline::new(fresh_machine(sc).expect("links"));
        while t.cycle() < cycle && t.step() {}
        t
    }

    #[test]
    fn back_equals_a_fresh_run_stepped_one_cycle_at_a_time() {
        let sc = divergent_loop();
        let mut t = stepped_to(&sc, 530);
        for target in [529, 500, 420, 12, 1, 0, 300, 401, 539] {
            t.seek(target);
            assert_eq!(t.cycle(), target);
            assert_eq!(fingerprint(&t), fingerprint(&stepped_to(&sc, target)));
        }
    }

    #[test]
    fn forward_back_forward_agrees_with_stepping() {
        let sc = divergent_loop();
        let mut t = Timeline::new(fresh_machine(&sc).expect("links"));
        for c in [7u64, 120, 333] {
            t.seek(c + 50);
            t.back(50);
            assert_eq!(fingerprint(&t), fingerprint(&stepped_to(&sc, c)));
            t.step();
            assert_eq!(fingerprint(&t), fingerprint(&stepped_to(&sc, c + 1)));
        }
    }

    #[test]
    fn seeking_past_the_end_stops_at_the_end() {
        let sc = divergent_loop();
        let mut t = Timeline::new(fresh_machine(&sc).expect("links"));
        t.seek(1_000_000);
        // `cargo run -- run divergent-loop`: 540 cycles.
        assert_eq!(t.cycle(), 540);
        assert!(t.machine().finished());
        assert_eq!(t.end(), Some(540));
        assert_eq!(fingerprint(&t), fingerprint(&stepped_to(&sc, 540)));
        assert!(!t.step());
        assert_eq!(t.cycle(), 540);
    }

    #[test]
    fn checkpoint_thinning_keeps_their_number_bounded() {
        let sc = long_loop(200_000);
        let mut t = Timeline::new(fresh_machine(&sc).expect("links"));
        t.seek(500_000);
        assert_eq!(t.cycle(), 500_000);
        assert!(t.checkpoint_count() <= COARSE_KEEP + FINE_KEEP);
        // 500,000 / 64 checkpoints needs a spacing of at least 7,813: 8,192
        // after doubling from 256.
        assert_eq!(t.coarse_every(), 8192);
        let cycles = t.checkpoint_cycles();
        assert!(cycles.iter().all(|&c| c <= 500_000));
        // A fine checkpoint lies within FINE_EVERY cycles before the start
        // of the history window, so stepping back stays cheap.
        let start = 500_000 - HISTORY as u64;
        assert!(cycles.iter().any(|&c| c <= start && c + FINE_EVERY > start));
        // Stepping back one cycle re-simulates from a fine checkpoint.
        t.back(1);
        assert_eq!(t.cycle(), 499_999);
        assert!(t.checkpoint_count() <= COARSE_KEEP + FINE_KEEP);
    }

    #[test]
    fn history_holds_the_last_cycles() {
        let sc = divergent_loop();
        let mut t = Timeline::new(fresh_machine(&sc).expect("links"));
        assert!(t.history().is_empty());
        t.step();
        // Cycle 0: the block is dispatched and warp 0 issues S2R with all
        // 32 lanes on.
        assert_eq!(
            t.last_sample(),
            Some(&CycleSample {
                issued: 1,
                active: 32,
                on: 32,
                diverged: false,
                reconverged: false
            })
        );
        t.seek(400);
        assert_eq!(t.history().len(), HISTORY);
    }
}
