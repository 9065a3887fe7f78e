//! Issue: a selected warp's instruction is charged, executed on its lanes,
//! sets its scoreboards, moves the warp's control flow, and the warp is
//! filed for the cycle it may issue again.

use super::convergence::{self, Convergence};
use super::exec::{self, Env, MemEffect, MemEnv, Scratch};
use super::hazards::{check_hazards_at, record_writes};
use super::link::Decoded;
use super::machine::{Issuing, Shared, State};
use super::memory::{FaultKind, GlobalMemory};
use super::records::{Fault, IssueRecord, MAX_RECORDS, RunError};
use super::scoreboard::Producer;
use super::sm::{ResidentBlock, Sm};
use super::stats::{MemoryCounters, PcCounters, Reason};
use super::warp::{Status, Warp};
use crate::asm::ir::{Class, Op};

impl State {
    /// Each scheduler of SM `s` issues; returns whether the SM has
    /// eligible warps left.
    // Always inlined, as `issue` and `exec::execute` are: one function for
    // the whole issue path measured faster than calls the compiler chose.
    #[inline(always)]
    pub(crate) fn issue_sm<const HAZARDS: bool>(&mut self, sh: &Shared, s: usize, t: u64) -> bool {
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
            Self::issue::<HAZARDS>(sh, sm, &mut cx, s, k, slot, pc, lanes, t);
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

    /// Issues the next instruction of warp `slot` on SM `s` at cycle `t`:
    /// charges it, executes it on its lanes, sets its scoreboards and stall
    /// count, moves its control flow, and files the warp for the cycle it
    /// may issue again. Each step is its own function, always inlined, so
    /// that the whole issue path still compiles as one.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn issue<const HAZARDS: bool>(
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
        } = cx;
        let (record_issues, check_hazards) = (*record_issues, HAZARDS);
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
        let d = &sh.code[pc as usize];
        let ins = &d.instr;
        // Eligible (after waiting out any stall count), selected at t: the
        // status is charged here, and replaced once the next cycle's
        // readiness is known, by `file_next`.
        let (_, open) = w.open(t, &sched[k]);
        w.pipe_mark = None;
        sched[k].lazy &= !(1 << slot);
        *eligible &= !(1 << slot);
        sched[k].last = Some(slot);
        sched[k].greedy = Some(slot);

        let on = active & w.pred_mask(ins.guard);
        charge_issue(w, &mut pcs[pc as usize], open, active, on);
        if record_issues {
            issues.push(IssueRecord::new(s, k, slot, w.gid, pc, active, on, false));
        }
        if check_hazards {
            check_hazards_at(hazards, w, d, pc, active, t);
        }

        let latency = execute(sh, w, d, blocks, global, scratch, memory, active, on, t);
        let ways = if matches!(ins.op, Op::Ret { .. } | Op::Brx { .. }) {
            indirect_ways(sh, w, d, pc, on, &mut scratch.faults)
        } else {
            Vec::new()
        };
        record_faults(w, faults, faults_total, &scratch.faults, pc, ins.line, t);
        set_scoreboards(w, d, pc, t, latency);
        if check_hazards {
            let on_now = active & w.pred_mask(ins.guard);
            record_writes(hazards, w, d, pc, on_now, t, latency);
        }
        let stall = u64::from(ins.control.stall.max(1));
        w.stall_until = t + stall;
        w.yielded = ins.control.yield_hint;
        if d.is_mufu {
            sched[k].accept_mufu(t, d.pipe_interval);
        }

        let divergent_before = w.counters.divergent_branches;
        let branches_before = w.counters.branches;
        let bar_arrived = control_flow(sh, w, d, pc, on, active, &ways, error, t);
        // The warp's branch counters moved by this issue, if at all: the
        // pc's move with them.
        let p = &mut pcs[pc as usize];
        p.branches += w.counters.branches - branches_before;
        p.divergent_branches += w.counters.divergent_branches - divergent_before;
        if record_issues {
            flag_convergence(issues, w, active, divergent_before);
        }

        let done = Self::file_next(sh, pcs, eligible, wheel, sched, w, slot, pc, t);
        if done {
            **retire_due = true;
        }
        let block = w.block;
        if d.is_mufu {
            Self::throttle_others(sh, sm, pcs, k, slot, t);
        }
        if bar_arrived || done {
            Self::check_block_barrier(sm, block, t);
        }
    }

    /// After a MUFU issue at `t`, the other warps of scheduler `k` eligible
    /// at a MUFU wait from `t + 1` until the pipe frees.
    ///
    /// A `stack` warp's readiness then is the pipe's alone (nothing but
    /// its own issue changes it), and so is an `its` warp's whose lanes
    /// are all in the one group: their statuses are charged lazily
    /// ([`super::sm::SchedState::lazy`]), and all of them leave the
    /// eligible set together and are filed to join it again in the cycle
    /// the pipe frees, with no status of their own changed. Any other
    /// `its` warp is evaluated: another of its groups may be ready.
    pub(crate) fn throttle_others(
        sh: &Shared,
        sm: &mut Sm,
        pcs: &mut [PcCounters],
        k: usize,
        issuer: u32,
        t: u64,
    ) {
        let free = sm.sched[k].sfu_free;
        let held = sm.sched[k].lazy & sm.eligible & !(1 << issuer);
        if free > t + 1 && held != 0 {
            sm.eligible &= !held;
            if free - t < super::sm::SOON {
                sm.wheel.file_ready_all(free, held);
            } else {
                // Past the ring's reach: each is woken then (or checked on
                // the way, past the wheel's), and found ready or not.
                let mut rest = held;
                while rest != 0 {
                    let slot = rest.trailing_zeros();
                    rest &= rest - 1;
                    if let Some(w) = sm.slots[slot as usize].as_deref_mut() {
                        w.wake_at = sm.wheel.schedule(t, free, slot);
                    }
                }
            }
        }
        if !sh.cfg.its {
            return;
        }
        // The lazily charged warps need no evaluation, held or not (with
        // an interval of 1 the pipe is free again next cycle).
        let mut cand = sm.eligible & sm.sched_mask[k] & !sm.sched[k].lazy & !(1 << issuer);
        while cand != 0 {
            let slot = cand.trailing_zeros();
            cand &= cand - 1;
            let Some(w) = sm.slots[slot as usize].as_deref_mut() else {
                continue;
            };
            let Status::Eligible { pc, .. } = w.status else {
                continue;
            };
            if !sh.code[pc as usize].is_mufu {
                continue;
            }
            // Not selected this cycle; from the next, the pipe is busy.
            w.wake_at = t + 1;
            Self::evaluate_into(sh, sm, pcs, slot, t + 1);
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

/// Charges the status the warp held until it issued, and counts the issue
/// for the warp and its pc.
#[inline(always)]
fn charge_issue(
    w: &mut Warp,
    p: &mut PcCounters,
    open: [(Reason, Reason, u64); 2],
    active: u64,
    on: u64,
) {
    let live = w.live();
    let full = w.full();
    // Counting lanes is a dozen instructions on a CPU without POPCNT: a
    // warp usually issues several instructions with one active mask, so
    // its count is kept; and the masks usually empty are skipped.
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
}

/// The data effects of instruction `d` on the lanes that are on: registers,
/// memory, the memory counters. Returns its latency, replays included.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn execute(
    sh: &Shared,
    w: &mut Warp,
    d: &Decoded,
    blocks: &mut [ResidentBlock],
    global: &mut GlobalMemory,
    scratch: &mut Scratch,
    memory: &mut MemoryCounters,
    active: u64,
    on: u64,
    clock: u64,
) -> u32 {
    let ins = &d.instr;
    let lat = sh.cfg.latency;
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
                wide_addresses: sh.cfg.wide_addresses,
                shared_base: sh.cfg.shared_base,
                local_bytes: sh.cfg.local_bytes,
            };
            if w.width == 32 {
                exec::memory_op::<32>(w, &mut env, acc, on)
            } else {
                exec::memory_op::<0>(w, &mut env, acc, on)
            }
        }
        None => {
            // Built in each branch: one built before the branch is stored
            // to memory for the call, on the inlined path too.
            let env = |scratch| Env {
                scratch,
                block_dim: sh.cfg.block_dim,
                blocks: sh.cfg.blocks,
                c_hi: d.c_hi,
                constants: sh.kernel.constants(),
                clock,
                block_dim3: sh.cfg.block_dim3,
                grid_dim3: sh.cfg.grid_dim3,
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
    latency
}

/// Takes the lanes that faulted out of the warp, recording the first
/// [`MAX_RECORDS`] faults of the run.
#[inline(always)]
fn record_faults(
    w: &mut Warp,
    faults: &mut Vec<Fault>,
    faults_total: &mut u64,
    lanes: &[(u32, u32, FaultKind)],
    pc: u32,
    line: u32,
    t: u64,
) {
    let mut faulted = 0u64;
    for &(lane, address, kind) in lanes {
        faulted |= 1 << lane;
        *faults_total += 1;
        if faults.len() < MAX_RECORDS {
            faults.push(Fault {
                warp: w.gid,
                lane,
                pc,
                line,
                address,
                kind,
                cycle: t,
            });
        }
    }
    w.faulted |= faulted;
    w.live &= !faulted;
}

/// Retires the scoreboards whose producers finished, and sets the ones
/// this instruction's control code names.
#[inline(always)]
fn set_scoreboards(w: &mut Warp, d: &Decoded, pc: u32, t: u64, latency: u32) {
    let ins = &d.instr;
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
}

/// Where each lane that is on goes at an indirect branch (`RET`, `BRX`)
/// at `pc`: `(pc, lanes)` sorted by pc. A lane whose target is not an
/// instruction of the kernel (not a multiple of 16 bytes, past the end, or
/// not one of the targets a `BRX` lists) faults instead (`faults`).
fn indirect_ways(
    sh: &Shared,
    w: &Warp,
    d: &Decoded,
    pc: u32,
    on: u64,
    faults: &mut Vec<(u32, u32, FaultKind)>,
) -> Vec<(u32, u64)> {
    let (a, base) = match d.instr.op {
        Op::Ret { a, base } => (a, base),
        Op::Brx { a, offset } => (a, offset.wrapping_add(pc.wrapping_add(1).wrapping_mul(16))),
        _ => return Vec::new(),
    };
    let n = u32::try_from(sh.code.len()).unwrap_or(u32::MAX);
    let listed = &d.instr.targets;
    let mut ways: Vec<(u32, u64)> = Vec::new();
    for l in convergence::its::lanes(on) {
        let address = w.reg(a, l as u32).wrapping_add(base);
        let target = address / 16;
        if !address.is_multiple_of(16)
            || target >= n
            || (!listed.is_empty() && !listed.contains(&target))
        {
            faults.push((l as u32, address, FaultKind::BadBranchTarget));
            continue;
        }
        match ways.binary_search_by_key(&target, |way| way.0) {
            Ok(i) => ways[i].1 |= 1 << l,
            Err(i) => ways.insert(i, (target, 1 << l)),
        }
    }
    ways
}

/// `BMOV`: a convergence barrier's lane mask to a register (in each lane
/// that is on; `.CLEAR` then empties the barrier), or from one (the value
/// of the lowest lane that is on: a barrier is one mask per warp). Nothing
/// happens when no lane is on.
fn barrier_move(w: &mut Warp, op: &Op, on: u64) {
    let Op::Bmov {
        d,
        barrier,
        a,
        to_barrier,
        clear,
    } = *op
    else {
        return;
    };
    if on == 0 {
        return;
    }
    let b = usize::from(barrier);
    let set = |w: &mut Warp, mask: u64| match &mut w.conv {
        Convergence::Stack(st) => st.barriers[b] = mask,
        Convergence::Its(its) => its.set_barrier(barrier, mask),
    };
    if to_barrier {
        let lane = on.trailing_zeros();
        let v = match a {
            crate::asm::ir::Src::Reg(r) => w.reg(r.reg, lane),
            crate::asm::ir::Src::UReg(r) => w.ureg(r.reg),
            crate::asm::ir::Src::Imm(v) => v,
            crate::asm::ir::Src::Const { .. } => 0,
        };
        let mask = u64::from(v) & w.full();
        set(w, mask);
    } else {
        let mask = match &w.conv {
            Convergence::Stack(st) => st.barriers[b],
            Convergence::Its(its) => its.barriers[b].participants,
        };
        if d != crate::asm::ir::RZ {
            let width = w.width as usize;
            for l in convergence::its::lanes(on) {
                if let Some(r) = w.regs.get_mut(usize::from(d) * width + l) {
                    // `.32`: lanes 0..31 of the mask.
                    *r = mask as u32;
                }
            }
        }
        if clear {
            set(w, 0);
        }
    }
}

/// Moves the warp's control flow past the instruction under its
/// convergence model (branches, exits, barriers) and charges a taken
/// branch. `ways` are where an indirect branch's lanes go. Returns whether
/// the warp arrived at a block barrier.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn control_flow(
    sh: &Shared,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    on: u64,
    active: u64,
    ways: &[(u32, u64)],
    error: &mut Option<RunError>,
    t: u64,
) -> bool {
    let mut bar_arrived = false;
    let mut taken_any = false;
    let live = w.live();
    // `BRA P1, target`: the lanes that are on jump where the condition holds.
    let on = match d.instr.op {
        Op::Bra { cond, .. } if !cond.is_always_true() => on & w.pred_mask(cond),
        Op::Bmov { .. } => {
            barrier_move(w, &d.instr.op, on);
            on
        }
        _ => on,
    };
    match &mut w.conv {
        Convergence::Stack(stack) => match d.instr.op {
            Op::Bra { target, .. } | Op::Call { target } => {
                w.counters.branches += 1;
                taken_any = on != 0;
                let b = convergence::stack::Branch {
                    pc,
                    target,
                    taken: on,
                    active,
                    rpc: d.reconv,
                };
                if stack.branch(b, sh.cfg.taken_first, live) {
                    w.counters.divergent_branches += 1;
                }
            }
            Op::Ret { .. } | Op::Brx { .. } => {
                w.counters.branches += 1;
                taken_any = !ways.is_empty();
                // Lanes the guard turned off fall through.
                let rest = active & !on & live;
                let mut all = ways.to_vec();
                if rest != 0 {
                    match all.binary_search_by_key(&(pc + 1), |way| way.0) {
                        Ok(i) => all[i].1 |= rest,
                        Err(i) => all.insert(i, (pc + 1, rest)),
                    }
                }
                if stack.multiway(&all, d.reconv, live) {
                    w.counters.divergent_branches += 1;
                }
            }
            Op::Bssy { barrier, .. } => {
                stack.barriers[usize::from(barrier)] = on;
                stack.goto(pc + 1, live);
            }
            Op::Bsync { barrier } => {
                // Spent, as in `its` when it releases its lanes.
                stack.barriers[usize::from(barrier)] = 0;
                stack.goto(pc + 1, live);
            }
            Op::Break { barrier } => {
                w.counters.branches += 1;
                if on != 0 && on != active {
                    w.counters.divergent_branches += 1;
                }
                stack.barriers[usize::from(barrier)] &= !on;
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
        Convergence::Its(its) => {
            // An ordinary instruction of one of the warp's groups (the
            // usual issue) moves the group on here; the rest takes the call.
            let syncs = |p| convergence::its::syncs_at(&sh.code, p);
            if !(d.moves_group_only && its.advance_group(pc, active, live, d.next_syncs, syncs)) {
                let (arrived, taken) =
                    convergence::its::its_control(sh, w, d, pc, on, active, ways, error, t);
                bar_arrived = arrived;
                taken_any = taken;
            }
        }
    }
    if taken_any {
        w.branch_until = w.stall_until + u64::from(sh.cfg.latency.branch);
    }
    bar_arrived
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
