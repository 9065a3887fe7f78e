//! Issue: a selected warp's instruction is charged, executed on its lanes,
//! sets its scoreboards, moves the warp's control flow, and the warp is
//! filed for the cycle it may issue again.

use super::convergence::{self, Convergence};
use super::exec::{self, Env, MemEffect, MemEnv};
use super::hazards::{check_hazards_at, record_writes};
use super::machine::{Issuing, Shared, State};
use super::readiness::{Readiness, readiness};
use super::records::{Fault, IssueRecord, MAX_RECORDS};
use super::scoreboard::Producer;
use super::sm::Sm;
use super::stats::{PcCounters, Reason};
use super::warp::{Status, Warp};
use crate::asm::ir::{Class, Op};

impl State {
    /// Each scheduler of SM `s` issues; returns whether the SM has
    /// eligible warps left.
    // Always inlined, as `issue` and `exec::execute` are: one function for
    // the whole issue path measured faster than calls the compiler chose.
    #[inline(always)]
    pub(crate) fn issue_sm(&mut self, sh: &Shared, s: usize, t: u64) -> bool {
        let policy = sh.cfg.policy;
        // Disjoint borrows of what issuing touches, so that the SM is
        // looked up once and the compiler knows that nothing else aliases
        // it or another part.
        let State {
            sms,
            pcs,
            global,
            scratch,
            memory,
            faults,
            faults_total,
            hazards,
            issues,
            error,
            retire_due,
            record_issues,
            check_hazards,
            ..
        } = self;
        let mut cx = Issuing {
            pcs,
            global,
            scratch,
            memory,
            faults,
            faults_total,
            hazards,
            issues,
            error,
            retire_due,
            record_issues: *record_issues,
            check_hazards: *check_hazards,
        };
        let sm = &mut sms[s];
        for k in 0..sm.schedulers {
            let cand = sm.eligible & sm.sched_mask[k];
            let Some(slot) = sm.select(k, policy, cand) else {
                continue;
            };
            let Some(Status::Eligible { pc, lanes, .. }) =
                sm.slots[slot as usize].as_deref().map(|w| w.status)
            else {
                continue;
            };
            if sh.code[pc as usize].uses_lsu {
                if sm.lsu_busy == Some(t) {
                    let at = (s, k, slot, pc, lanes, t);
                    let issues = (cx.record_issues, &mut *cx.issues);
                    Self::dispatch_stall(sm, cx.pcs, issues, at);
                    continue;
                }
                sm.lsu_busy = Some(t);
            }
            Self::issue(sh, sm, &mut cx, s, k, slot, pc, lanes, t);
        }
        sm.eligible != 0
    }

    /// Warp `slot` was selected at `t`, but another scheduler took the SM's
    /// shared load/store pipe: it stays eligible, charged a dispatch stall.
    // Its own few arguments: a cold call passed the issuing context would
    // make the hot path build that context in memory.
    #[cold]
    #[inline(never)]
    pub(crate) fn dispatch_stall(
        sm: &mut Sm,
        pcs: &mut [PcCounters],
        (record, issues): (bool, &mut Vec<IssueRecord>),
        (s, k, slot, pc, lanes, t): (usize, usize, u32, u32, u64, u64),
    ) {
        let Some(w) = sm.slots[slot as usize].as_deref_mut() else {
            return;
        };
        Self::set_status(
            pcs,
            w,
            Status::Eligible {
                since: t + 1,
                wait_from: t + 1,
                pc,
                lanes,
            },
            t,
        );
        w.counters.stalls.add(Reason::DispatchStall, 1);
        pcs[pc as usize].stalls.add(Reason::DispatchStall, 1);
        if record {
            issues.push(IssueRecord::new(s, k, slot, w.gid, pc, 0, 0, true));
        }
    }

    /// Issues the next instruction of warp `slot` on SM `s` at cycle `t`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn issue(
        sh: &Shared,
        sm: &mut Sm,
        cx: &mut Issuing,
        s: usize,
        k: usize,
        slot: u32,
        pc: u32,
        active: u64,
        t: u64,
    ) {
        let code = &sh.code;
        let lat = sh.cfg.latency;
        let taken_first = sh.cfg.taken_first;
        let Issuing {
            pcs,
            global,
            scratch,
            memory,
            faults,
            faults_total,
            hazards,
            issues,
            error,
            retire_due,
            record_issues,
            check_hazards,
        } = cx;
        let (record_issues, check_hazards) = (*record_issues, *check_hazards);
        let Sm {
            slots,
            eligible,
            sched,
            wheel,
            blocks,
            ..
        } = &mut *sm;
        let Some(w) = slots[slot as usize].as_deref_mut() else {
            return;
        };
        let d = &code[pc as usize];
        let ins = &d.instr;
        // Eligible (after waiting out any stall count), selected at t: the
        // status is charged here, and replaced once the next cycle's
        // readiness is known, below.
        let (_, open) = w.status.open(t);
        *eligible &= !(1 << slot);
        sched[k].last = Some(slot);
        sched[k].greedy = Some(slot);

        let live = w.live();
        let on = active & w.pred_mask(ins.guard);
        let full = w.full();
        // Counting lanes is a dozen instructions on a CPU without POPCNT:
        // a warp usually issues several instructions with one active mask,
        // so its count is kept; and the masks usually empty are skipped.
        let n_active = if w.counted.0 == active {
            w.counted.1
        } else {
            let n = u64::from(active.count_ones());
            w.counted = (active, n);
            n
        };
        let n_on = if on == active {
            n_active
        } else {
            u64::from(on.count_ones())
        };
        let c = &mut w.counters;
        let p = &mut pcs[pc as usize];
        for (reason, labelled, n) in open {
            c.charge(reason, labelled, n);
            p.stalls.add(reason, n);
        }
        c.stalls.add(Reason::Selected, 1);
        c.issued += 1;
        c.thread_inst_executed += n_active;
        c.thread_inst_executed_pred_on += n_on;
        let gone = w.launched & !live;
        if gone != 0 {
            c.exited_slots += u64::from(gone.count_ones());
        }
        let unlaunched = full & !w.launched;
        if unlaunched != 0 {
            c.never_launched_slots += u64::from(unlaunched.count_ones());
        }
        p.stalls.add(Reason::Selected, 1);
        p.executions += 1;
        p.thread_inst_executed += n_active;
        p.thread_inst_executed_pred_on += n_on;
        if record_issues {
            issues.push(IssueRecord::new(s, k, slot, w.gid, pc, active, on, false));
        }

        if check_hazards {
            check_hazards_at(hazards, w, d, pc, active, t);
        }

        // Data effects.
        scratch.faults.clear();
        let access = if d.uses_lsu {
            exec::access(&ins.op)
        } else {
            None
        };
        let effect = match access {
            Some(acc) => {
                let block = w.block;
                let shared = match ins.class {
                    Class::Shared => blocks
                        .iter_mut()
                        .find(|b| b.id == block)
                        .map(|b| &mut b.shared),
                    _ => None,
                };
                let mut env = MemEnv {
                    global,
                    shared,
                    banks: sh.cfg.shared_banks,
                    scratch,
                };
                if w.width == 32 {
                    exec::memory_op::<32>(w, &mut env, acc, on)
                } else {
                    exec::memory_op::<0>(w, &mut env, acc, on)
                }
            }
            None => {
                // Built in each branch: one built before the branch is
                // stored to memory for the call, on the inlined path too.
                let env = |scratch| Env {
                    scratch,
                    block_dim: sh.cfg.block_dim,
                    blocks: sh.cfg.blocks,
                    c_hi: d.c_hi,
                };
                if w.width == 32 {
                    exec::execute::<32>(w, &ins.op, on, active, &mut env(scratch))
                } else {
                    exec::execute_any(w, &ins.op, on, active, &mut env(scratch))
                }
                MemEffect::None
            }
        };
        let mut latency = d.latency;
        match effect {
            MemEffect::Global(co) => {
                let m = &mut *memory;
                m.global_requests += 1;
                m.global_sectors += u64::from(co.sectors);
                m.global_transactions += u64::from(co.lines);
                m.requested_bytes += u64::from(co.requested_bytes);
                m.transferred_bytes += u64::from(co.sectors) * 32;
                m.ideal_sectors += u64::from(co.requested_bytes.div_ceil(32));
                latency += lat.global_per_extra_line * co.lines.saturating_sub(1);
            }
            MemEffect::Shared { passes } => {
                memory.shared_requests += 1;
                memory.shared_bank_conflicts += u64::from(passes.saturating_sub(1));
                latency += lat.shared_replay * passes.saturating_sub(1);
            }
            MemEffect::None => {}
        }
        let mut faulted = 0u64;
        for &(lane, address, kind) in &scratch.faults {
            faulted |= 1 << lane;
            **faults_total += 1;
            if faults.len() < MAX_RECORDS {
                faults.push(Fault {
                    warp: w.gid,
                    lane,
                    pc,
                    line: ins.line,
                    address,
                    kind,
                    cycle: t,
                });
            }
        }
        w.faulted |= faulted;
        w.live &= !faulted;

        // Scoreboards, stall count, yield.
        w.sb.retire(t);
        if let Some(sb) = ins.control.write_barrier {
            w.sb.set(Producer {
                sb,
                pc,
                class: ins.class,
                issued: t,
                done: t + u64::from(latency),
                read: false,
            });
        }
        if let Some(sb) = ins.control.read_barrier {
            w.sb.set(Producer {
                sb,
                pc,
                class: ins.class,
                issued: t,
                done: t + u64::from(d.read_latency),
                read: true,
            });
        }
        if check_hazards {
            let on_now = active & w.pred_mask(ins.guard);
            record_writes(hazards, w, d, pc, on_now, t, latency);
        }
        let stall = u64::from(ins.control.stall.max(1));
        w.stall_until = t + stall;
        w.yielded = ins.control.yield_hint;
        if d.is_mufu {
            sched[k].sfu_free = t + u64::from(d.pipe_interval);
        }

        // Control flow.
        let divergent_before = w.counters.divergent_branches;
        let mut bar_arrived = false;
        let mut taken_any = false;
        let live = w.live();
        match &mut w.conv {
            Convergence::Stack(stack) => match ins.op {
                Op::Bra { target } => {
                    w.counters.branches += 1;
                    taken_any = on != 0;
                    let b = convergence::stack::Branch {
                        pc,
                        target,
                        taken: on,
                        active,
                        rpc: d.reconv,
                    };
                    if stack.branch(b, taken_first, live) {
                        w.counters.divergent_branches += 1;
                    }
                }
                Op::Break { .. } => {
                    w.counters.branches += 1;
                    if on != 0 && on != active {
                        w.counters.divergent_branches += 1;
                    }
                    stack.goto(pc + 1, live);
                }
                Op::Exit => {
                    w.exited |= on;
                    w.live &= !on;
                    stack.goto(pc + 1, w.live);
                }
                Op::BarSync { .. } => {
                    stack.goto(pc + 1, live);
                    if on != 0 {
                        w.at_bar = true;
                        bar_arrived = true;
                    }
                }
                _ => stack.goto(pc + 1, live),
            },
            Convergence::Its(_) => {
                let (arrived, taken) =
                    convergence::its::its_control(sh, w, d, pc, on, active, error, t);
                bar_arrived = arrived;
                taken_any = taken;
            }
        }
        if taken_any {
            w.branch_until = w.stall_until + u64::from(lat.branch);
        }
        if record_issues {
            flag_convergence(issues, w, active, divergent_before);
        }

        let done = w.is_done();
        let next = t + 1;
        if done {
            **retire_due = true;
            w.status = Status::Done { since: next };
            w.at_bar = false;
        } else {
            // Nothing another warp does later in this cycle changes this
            // warp's readiness (a barrier release re-wakes it), so its
            // status from the next cycle is settled now.
            //
            // The common case: a stack warp not at a barrier whose next
            // instruction is not a MUFU (the one whose readiness another
            // warp can change, through the pipe) depends only on its own
            // state, so its readiness once the stall count runs out is
            // known now. Ready then, it is filed as eligible from that
            // cycle, and the wake-up only sets its bit.
            let at = w.stall_until.max(next);
            let ready = match &w.conv {
                // No MUFU pipe limit is passed: a MUFU next is excluded.
                Convergence::Stack(_) if !w.at_bar => {
                    match readiness(code, w, at, 0, sh.cfg.group_policy) {
                        Readiness::Ready { pc, lanes } if !code[pc as usize].is_mufu => {
                            Some((pc, lanes))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some((next_pc, lanes)) = ready {
                w.status = Status::Eligible {
                    since: at,
                    wait_from: next,
                    pc: next_pc,
                    lanes,
                };
                if at == next {
                    *eligible |= 1 << slot;
                } else {
                    w.wake_at = wheel.file_ready(next, at, slot);
                }
            } else if let Some(top_pc) = match &w.conv {
                Convergence::Stack(st) if !w.at_bar && w.stall_until > next => {
                    st.top().map(|e| e.pc)
                }
                _ => None,
            } {
                // Inside its stall count: it waits until the count runs
                // out, and is evaluated then.
                w.status = Status::Blocked {
                    reason: Reason::Wait,
                    labelled: Reason::Wait,
                    since: next,
                    until: w.stall_until,
                    pc: top_pc,
                };
                w.wake_at = wheel.schedule(next, w.stall_until, slot);
            } else {
                // A placeholder from t + 1, replaced (and charged nothing)
                // by the evaluation.
                w.status = Status::Blocked {
                    reason: Reason::Wait,
                    labelled: Reason::Wait,
                    since: next,
                    until: next,
                    pc,
                };
                let sfu_free = sched[w.scheduler as usize].sfu_free;
                Self::evaluate(sh, pcs, eligible, wheel, sfu_free, w, slot, next);
            }
        }
        let block = w.block;
        if d.is_mufu {
            Self::throttle_others(sh, sm, pcs, k, slot, t);
        }
        if bar_arrived || done {
            Self::check_block_barrier(sm, block, t);
        }
    }

    /// After a MUFU issue, warps of the same scheduler waiting to issue a
    /// MUFU are throttled from the next cycle.
    pub(crate) fn throttle_others(
        sh: &Shared,
        sm: &mut Sm,
        pcs: &mut [PcCounters],
        k: usize,
        issuer: u32,
        t: u64,
    ) {
        let mut cand = sm.eligible & sm.sched_mask[k] & !(1 << issuer);
        while cand != 0 {
            let slot = cand.trailing_zeros();
            cand &= cand - 1;
            let wants_mufu = sm.slots[slot as usize]
                .as_ref()
                .is_some_and(|w| match w.status {
                    Status::Eligible { pc, .. } => sh.code[pc as usize].is_mufu,
                    _ => false,
                });
            if wants_mufu {
                // Not selected this cycle; from the next, the pipe is busy.
                if let Some(w) = sm.slots[slot as usize].as_mut() {
                    w.wake_at = t + 1;
                }
                Self::evaluate_into(sh, sm, pcs, slot, t + 1);
            }
        }
    }

    /// Releases a block barrier once every live warp of the block arrived.
    pub(crate) fn check_block_barrier(sm: &mut Sm, block: u32, t: u64) {
        let Some(b) = sm.blocks.iter().find(|b| b.id == block) else {
            return;
        };
        let slots = b.slots;
        let warps = || convergence::its::lanes(slots);
        let mut any_waiting = false;
        for slot in warps() {
            if let Some(w) = sm.slots[slot].as_ref() {
                if w.is_done() {
                    continue;
                }
                if !w.at_bar {
                    return;
                }
                any_waiting = true;
            }
        }
        if !any_waiting {
            return;
        }
        for slot in warps() {
            if let Some(w) = sm.slots[slot].as_mut()
                && w.at_bar
            {
                w.at_bar = false;
                if let Convergence::Its(its) = &mut w.conv {
                    let live = w.live;
                    its.bar_release(live);
                    its.refresh(live);
                }
                if matches!(w.status, Status::Blocked { .. }) {
                    w.wake_at = sm.wheel.schedule(t, t + 1, slot as u32);
                }
            }
        }
    }
}

/// Marks the last issue record as a divergence or a reconvergence.
fn flag_convergence(issues: &mut [IssueRecord], w: &Warp, active: u64, divergent_before: u64) {
    let diverged = w.counters.divergent_branches > divergent_before;
    let live = w.live();
    let joined = match &w.conv {
        Convergence::Stack(st) => st.active(live).map_or(0, |(_, m)| m),
        Convergence::Its(its) => its
            .groups
            .iter()
            .find(|g| g.1 & active != 0)
            .map_or(0, |g| g.1),
    };
    if let Some(rec) = issues.last_mut() {
        rec.diverged = diverged;
        rec.reconverged = !diverged && joined & active != 0 && joined & !active != 0;
    }
}
