//! The cycle: blocks dispatched into free warp slots, stalled warps woken
//! when their time comes, each SM's schedulers issuing, finished blocks
//! retired, and the checks that stop a run (the cycle limit, a deadlock).
//!
//! SMs are independent within a cycle: nothing one issues changes which
//! warps of another wake or can issue, so the loop visits them in turn.

use super::config::Convergence as Model;
use super::convergence::{self, Convergence, ItsState, SimtStack};
use super::hazards::HazardTables;
use super::kernel::{InitTarget, ThreadIds};
use super::machine::{Shared, State};
use super::memory::SharedMemory;
use super::records::{FinalState, RunError, WarpRecord};
use super::sm::{ResidentBlock, Sm};
use super::stats::{Counters, Reason};
use super::warp::{Status, Warp, lane_mask};

impl State {
    pub(crate) fn halted(&self) -> bool {
        self.finished || self.error.is_some()
    }

    pub(crate) fn resident(&self) -> impl Iterator<Item = &Warp> {
        self.sms
            .iter()
            .flat_map(|sm| sm.slots.iter().filter_map(|w| w.as_deref()))
    }

    /// Runs to completion, skipping cycles in which nothing can happen.
    pub(crate) fn run(&mut self, sh: &Shared) -> Result<(), RunError> {
        self.run_until(sh, u64::MAX);
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Steps until cycle `target` (or the end), skipping idle cycles.
    pub(crate) fn run_until(&mut self, sh: &Shared, target: u64) {
        if self.check_hazards {
            self.run_loop::<true>(sh, target);
        } else {
            self.run_loop::<false>(sh, target);
        }
    }

    /// [`State::run_until`] compiled for one setting of hazard checking
    /// (`HAZARDS`: [`State::check_hazards`], fixed for a run): a run that
    /// checks none has no trace of the checks on its issue path, and one
    /// that does has them inline.
    fn run_loop<const HAZARDS: bool>(&mut self, sh: &Shared, target: u64) {
        let mut idle = self.idle();
        while self.cycle < target && !self.halted() {
            if idle {
                self.skip_idle(sh, target);
                if self.cycle >= target || self.halted() {
                    break;
                }
            }
            match self.cycle_once::<HAZARDS>(sh) {
                Some(now_idle) => idle = now_idle,
                None => break,
            }
        }
    }

    /// No warp on any SM is eligible to issue.
    pub(crate) fn idle(&self) -> bool {
        self.sms.iter().all(|sm| sm.eligible == 0)
    }

    /// On an [`State::idle`] machine where no block waits for a slot,
    /// jumps to the next cycle at which a warp wakes (never past
    /// `target`). Skipped cycles would have changed nothing: stall time is
    /// charged lazily.
    // Inline, the usual case: out of line, its call cost as much as the
    // check.
    #[inline(always)]
    pub(crate) fn skip_idle(&mut self, sh: &Shared, target: u64) {
        // A warp due at this very cycle (the usual idle cycle: a warp wakes
        // in the next): nothing to skip, found without the searches.
        let t = self.cycle;
        if !self.sms.iter().any(|sm| sm.wheel.due_at(t)) {
            self.skip_to_next_due(sh, target);
        }
    }

    /// [`State::skip_idle`] when no warp is due at the current cycle.
    #[cold]
    #[inline(never)]
    fn skip_to_next_due(&mut self, sh: &Shared, target: u64) {
        if self.next_block < sh.cfg.blocks && self.sms.iter().any(|sm| self.fits(sh, sm)) {
            return;
        }
        let next = self
            .sms
            .iter()
            .filter_map(|sm| sm.wheel.next_due(self.cycle))
            .min();
        if let Some(next) = next {
            let limit = sh.cfg.max_cycles;
            let to = next.min(target).min(limit).max(self.cycle);
            if to > self.cycle {
                // Nothing issued in the skipped cycles.
                self.issues.clear();
                self.cycle = to;
                self.check_limit(sh);
            }
        }
    }

    /// Stops the run once `max_cycles` cycles were simulated without
    /// finishing.
    pub(crate) fn check_limit(&mut self, sh: &Shared) {
        let limit = sh.cfg.max_cycles;
        if !self.finished && self.error.is_none() && self.cycle >= limit {
            self.error = Some(RunError::MaxCycles { limit });
        }
    }

    pub(crate) fn fits(&self, sh: &Shared, sm: &Sm) -> bool {
        let need = sh.cfg.warps_per_block;
        sm.blocks.len() < sh.cfg.max_blocks_per_sm as usize && sm.free_slots().count_ones() >= need
    }

    /// Simulates exactly one cycle. Returns false, doing nothing, once the
    /// run finished or stopped.
    pub(crate) fn step(&mut self, sh: &Shared) -> bool {
        if self.check_hazards {
            self.cycle_once::<true>(sh).is_some()
        } else {
            self.cycle_once::<false>(sh).is_some()
        }
    }

    /// [`State::step`], returning whether the machine is [`State::idle`]
    /// after the cycle (`None`: it did nothing). Inlined into the run loop
    /// with the whole issue path (see `issue_sm`).
    #[inline(always)]
    pub(crate) fn cycle_once<const HAZARDS: bool>(&mut self, sh: &Shared) -> Option<bool> {
        if self.halted() {
            return None;
        }
        let t = self.cycle;
        if t >= sh.cfg.max_cycles {
            self.check_limit(sh);
            return None;
        }
        self.issues.clear();
        if self.dispatch_due {
            self.dispatch(sh, t);
        }
        // SMs are independent within a cycle: nothing one issues changes
        // which warps of another wake or can issue.
        let mut busy = false;
        for s in 0..self.sms.len() {
            self.wake(sh, s, t);
            busy |= self.issue_sm::<HAZARDS>(sh, s, t);
        }
        // Blocks leave only when they retire, so the run can only have
        // finished after a retirement.
        let retired = self.retire_due;
        if retired {
            self.retire(t);
        }
        self.cycle = t + 1;
        // Retiring leaves the eligible sets as issuing left them (a warp
        // that finished is never eligible).
        let idle = !busy;
        if (retired || sh.cfg.blocks == 0)
            && self.next_block >= sh.cfg.blocks
            && self.sms.iter().all(|sm| sm.blocks.is_empty())
        {
            self.finished = true;
        } else if self.error.is_none() {
            // Only a machine with no eligible warp can be deadlocked.
            if idle {
                self.check_deadlock(sh);
            }
            if self.cycle >= sh.cfg.max_cycles {
                self.check_limit(sh);
            }
        }
        Some(idle)
    }

    /// Dispatches waiting blocks into SMs with room, round robin over SMs.
    pub(crate) fn dispatch(&mut self, sh: &Shared, t: u64) {
        let nblocks = sh.cfg.blocks;
        self.dispatch_due = false;
        loop {
            let mut any = false;
            for s in 0..self.sms.len() {
                if self.next_block >= nblocks {
                    return;
                }
                if self.fits(sh, &self.sms[s]) {
                    self.launch_block(sh, s, t);
                    any = true;
                }
            }
            if !any {
                return;
            }
        }
    }

    pub(crate) fn launch_block(&mut self, sh: &Shared, s: usize, t: u64) {
        let kernel = &*sh.kernel;
        let config = &sh.config;
        let launch = kernel.launch();
        let block = self.next_block;
        self.next_block += 1;
        let w = self.width;
        let wpb = sh.cfg.warps_per_block;
        let block_dim = launch.block_dim;
        let num_regs = kernel.program().num_regs;
        let nregs = num_regs.max(1) as usize;
        let mut slots_mask = 0u64;
        let free = self.sms[s].free_slots();
        let mut free_iter = convergence::its::lanes(free);
        for in_block in 0..wpb {
            let Some(slot) = free_iter.next() else { break };
            let slot = slot as u32;
            slots_mask |= 1 << slot;
            let first_thread = in_block * w;
            let threads = block_dim.saturating_sub(first_thread).min(w);
            let launched = lane_mask(threads);
            let gid = block * wpb + in_block;
            // Reuse a finished warp's allocations when there is one.
            let mut spare = self.sms[s].spare.pop();
            let mut regs = spare
                .as_mut()
                .map(|b| std::mem::take(&mut b.regs))
                .unwrap_or_default();
            regs.clear();
            regs.resize(nregs * w as usize, 0);
            let conv = match (config.convergence, spare.as_mut().map(|b| &mut b.conv)) {
                (Model::Stack, Some(Convergence::Stack(old))) => {
                    let mut st = std::mem::take(old);
                    st.reset(launched);
                    Convergence::Stack(st)
                }
                (Model::Stack, _) => Convergence::Stack(SimtStack::new(launched)),
                (Model::Its, Some(old @ Convergence::Its(_))) => {
                    let mut its = std::mem::replace(old, Convergence::Stack(SimtStack::default()));
                    if let Convergence::Its(st) = &mut its {
                        st.reset(launched);
                    }
                    its
                }
                (Model::Its, _) => Convergence::Its(Box::new(ItsState::new(launched))),
            };
            let mut sb = spare
                .as_mut()
                .map(|b| std::mem::take(&mut b.sb))
                .unwrap_or_default();
            sb.clear();
            let mut warp = Warp {
                gid,
                block,
                in_block,
                slot,
                scheduler: slot % config.schedulers,
                age: self.next_age,
                width: w,
                all_lanes: lane_mask(w),
                launched,
                exited: 0,
                faulted: 0,
                live: launched,
                regs,
                preds: [0, 0, 0, 0, 0, 0, 0, lane_mask(w)],
                uregs: [0; crate::asm::ir::UNIFORM_REGS],
                upreds: 0,
                local: Vec::new(),
                conv,
                sb,
                stall_until: t,
                branch_until: t,
                yielded: false,
                at_bar: false,
                status: Status::Blocked {
                    reason: Reason::Wait,
                    labelled: Reason::Wait,
                    since: t,
                    until: t,
                    pc: 0,
                },
                pipe_mark: None,
                wake_at: t,
                counters: Counters::default(),
                dispatched_at: t,
                counted: (0, 0),
                hazards: HazardTables::none(),
            };
            if self.check_hazards {
                // One row per register the program names, then P0..P7.
                let old = spare
                    .as_mut()
                    .map(|b| std::mem::take(&mut b.hazards))
                    .unwrap_or_default();
                warp.hazards = HazardTables::new(old, num_regs as usize, w as usize);
            }
            self.next_age += 1;
            // Per-thread initial values, when the kernel has any.
            let inits = kernel.inits();
            if !inits.is_empty() {
                let first = ThreadIds {
                    tid: u64::from(block) * u64::from(block_dim) + u64::from(first_thread),
                    lane: 0,
                    warp: u64::from(gid),
                    block: u64::from(block),
                    ntid: block_dim,
                    nthreads: launch.threads(),
                };
                let mut values = [0u32; 64];
                let values = &mut values[..(threads as usize).min(64)];
                for init in inits {
                    init.source.values(&first, values);
                    match init.target {
                        InitTarget::Reg(r) => {
                            let row = usize::from(r) * w as usize;
                            if let Some(x) = warp.regs.get_mut(row..row + values.len()) {
                                x.copy_from_slice(values);
                            }
                        }
                        InitTarget::Pred(p) => {
                            for (lane, &v) in values.iter().enumerate() {
                                if v != 0 {
                                    warp.preds[usize::from(p) % 7] |= 1 << lane;
                                }
                            }
                        }
                    }
                }
            }
            let sm = &mut self.sms[s];
            sm.wheel.schedule(t, t, slot);
            sm.free &= !(1 << slot);
            let boxed = match spare {
                Some(mut b) => {
                    *b = warp;
                    b
                }
                None => Box::new(warp),
            };
            sm.slots[slot as usize] = Some(boxed);
        }
        self.sms[s].blocks.push(ResidentBlock {
            id: block,
            slots: slots_mask,
            shared: SharedMemory::new(launch.shared_bytes),
        });
    }

    /// Adds the warps filed ready from cycle `t` to the eligible set and
    /// re-evaluates the warps due at `t`. Inlined into the cycle loop: most
    /// cycles of a busy SM have only warps filed ready, a few instructions,
    /// and the re-evaluations stay a call.
    #[inline(always)]
    pub(crate) fn wake(&mut self, sh: &Shared, s: usize, t: u64) {
        let sm = &mut self.sms[s];
        sm.eligible |= sm.wheel.take_ready(t);
        let due = sm.wheel.take(t);
        if due != 0 {
            self.wake_due(sh, s, t, due);
        }
    }

    /// Re-evaluates the warps of `due`, scheduled for cycle `t`.
    #[inline(never)]
    fn wake_due(&mut self, sh: &Shared, s: usize, t: u64, mut due: u64) {
        let State { sms, pcs, .. } = self;
        let Sm {
            slots,
            sched,
            eligible,
            wheel,
            ..
        } = &mut sms[s];
        while due != 0 {
            let slot = due.trailing_zeros();
            due &= due - 1;
            let Some(w) = slots[slot as usize].as_deref_mut() else {
                continue;
            };
            if w.wake_at != t {
                continue;
            }
            match w.status {
                // Filed when it issued: ready from now.
                Status::Eligible { since, .. } if since == t => *eligible |= 1 << slot,
                Status::Done { .. } => {}
                _ => {
                    let pipe = &mut sched[w.scheduler as usize];
                    Self::evaluate(sh, pcs, eligible, wheel, pipe, w, slot, t);
                }
            }
        }
    }

    /// Frees the slots of blocks whose warps all finished (at the end of
    /// cycle `t`, so they count as resident through `t`).
    pub(crate) fn retire(&mut self, t: u64) {
        self.retire_due = false;
        for s in 0..self.sms.len() {
            let mut i = 0;
            while i < self.sms[s].blocks.len() {
                let slots = self.sms[s].blocks[i].slots;
                let all_done = convergence::its::lanes(slots)
                    .all(|slot| self.sms[s].slots[slot].as_ref().is_none_or(|w| w.is_done()));
                if !all_done {
                    i += 1;
                    continue;
                }
                self.sms[s].blocks.swap_remove(i);
                self.dispatch_due = true;
                for slot in convergence::its::lanes(slots) {
                    let sm = &mut self.sms[s];
                    sm.free |= 1 << slot;
                    if let Some(mut w) = sm.slots[slot].take() {
                        Self::set_status(
                            &mut self.pcs,
                            &mut w,
                            Status::Done { since: t + 1 },
                            t + 1,
                        );
                        self.retired.merge(&w.counters);
                        self.records.push(WarpRecord {
                            warp: w.gid,
                            block: w.block,
                            counters: w.counters,
                            resident_cycles: t + 1 - w.dispatched_at,
                        });
                        if self.keep_final {
                            self.finals.push(FinalState {
                                warp: w.gid,
                                width: w.width,
                                launched: w.launched,
                                exited: w.exited,
                                faulted: w.faulted,
                                regs: std::mem::take(&mut w.regs),
                                preds: [0, 1, 2, 3, 4, 5, 6].map(|p| w.preds[p]),
                                uregs: w.uregs,
                                upreds: w.upreds,
                            });
                        }
                        sm.spare.push(w);
                    }
                    sm.eligible &= !(1 << slot);
                    for st in &mut sm.sched[..sm.schedulers] {
                        if st.greedy == Some(slot as u32) {
                            st.greedy = None;
                        }
                    }
                }
            }
        }
    }

    /// Stops the run of an [`State::idle`] machine when no warp can ever
    /// issue again.
    pub(crate) fn check_deadlock(&mut self, sh: &Shared) {
        let nothing_pending = self.sms.iter().all(|sm| sm.wheel.is_empty());
        if !nothing_pending {
            return;
        }
        let mut waiting = Vec::new();
        for w in self.resident() {
            if let Status::Blocked { reason, pc, .. } = w.status {
                let line = sh
                    .code
                    .get(pc as usize)
                    .map_or(0, |d| sh.kernel.source_line(d.instr.line));
                waiting.push(format!("warp {} at line {line} ({})", w.gid, reason.name()));
            }
        }
        if waiting.is_empty() {
            return;
        }
        waiting.truncate(8);
        self.error = Some(RunError::Deadlock {
            cycle: self.cycle,
            detail: format!(
                "no warp can issue again: {}; a BAR.SYNC that not every warp of the block reaches \
                 waits forever",
                waiting.join(", ")
            ),
        });
    }
}
