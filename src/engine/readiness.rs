//! Readiness: whether a warp's next instruction can issue in a given
//! cycle, and if not, the stall reason and the cycle it may change. One
//! rule for both convergence models, asked in three places: when a warp
//! wakes, right after it issues (to file it for the cycle its stall count
//! runs out), and by the view.
//!
//! The order of the checks is the stall rule: a finished warp; a block
//! barrier; the stall count (`wait`); a taken branch resolving; then the
//! instruction's own scoreboards and the MUFU pipe. Under `its` the rule is
//! asked of each group and the group policy picks among the ready ones.

use super::config::GroupPolicy;
use super::convergence::{Convergence, ItsState, LaneWait};
use super::link::Decoded;
use super::machine::{Shared, State};
use super::sm::{SchedState, Sm, Wheel};
use super::stats::{PcCounters, Reason};
use super::warp::{Status, Warp};
use crate::asm::ir::{Class, Op};

impl State {
    /// Files warp `w`, which issued at `t`, by its readiness from `t + 1`:
    /// done, eligible from a known cycle, waiting out its stall count, or
    /// evaluated now. Returns whether the warp is done.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn file_next(
        sh: &Shared,
        pcs: &mut [PcCounters],
        eligible: &mut u64,
        wheel: &mut Wheel,
        sched: &mut [SchedState],
        w: &mut Warp,
        slot: u32,
        pc: u32,
        t: u64,
    ) -> bool {
        let code = &sh.code;
        let next = t + 1;
        if w.is_done() {
            w.status = Status::Done { since: next };
            w.at_bar = false;
            return true;
        }
        // Nothing another warp does later in this cycle changes this
        // warp's readiness (a barrier release re-wakes it), so its status
        // from the next cycle is settled now.
        //
        // The common case: a stack warp not at a barrier whose next
        // instruction is not a MUFU (the one whose readiness another warp
        // can change, through the pipe) depends only on its own state, so
        // its readiness once the stall count runs out is known now. Ready
        // then, it is filed as eligible from that cycle, and the wake-up
        // only sets its bit.
        //
        // So does an `its` warp's: only its own issue moves its lanes
        // (lanes of it waiting at a block barrier hold that barrier until
        // its running groups arrive too). Waiting out its stall count, it
        // is charged `wait` at the group it prefers, so it is filed ready
        // here when that group, or any group with no wait, is picked then.
        // A group at a MUFU is asked with the pipe free: it can only be
        // kept waiting, never picked instead, by the pipe, so a pick that
        // is not a MUFU stands.
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
            Convergence::Its(its) if !w.at_bar => {
                // The group charged `wait` meanwhile is
                // `ItsState::preferred` (a warp of one group prefers it).
                match readiness(code, w, at, 0, sh.cfg.group_policy) {
                    Readiness::Ready { pc, lanes }
                        if !code[pc as usize].is_mufu
                            && (at == next
                                || its.groups.len() == 1
                                || Some(pc) == its.preferred()) =>
                    {
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
            Convergence::Stack(st) if !w.at_bar && w.stall_until > next => st.top().map(|e| e.pc),
            _ => None,
        } {
            // Inside its stall count: it waits until the count runs out,
            // and is evaluated then.
            w.status = Status::Blocked {
                reason: Reason::Wait,
                labelled: Reason::Wait,
                since: next,
                until: w.stall_until,
                pc: top_pc,
            };
            w.wake_at = wheel.schedule(next, w.stall_until, slot);
        } else {
            // A placeholder from t + 1, replaced (and charged nothing) by
            // the evaluation.
            w.status = Status::Blocked {
                reason: Reason::Wait,
                labelled: Reason::Wait,
                since: next,
                until: next,
                pc,
            };
            let pipe = &mut sched[w.scheduler as usize];
            Self::evaluate(sh, pcs, eligible, wheel, pipe, w, slot, next);
        }
        false
    }

    /// Charges the warp's current status up to `t` and replaces it. A
    /// lazily charged status ([`Warp::pipe_mark`]) is settled first, by
    /// [`State::settle_pipe_wait`], which knows the warp's scheduler.
    #[inline(always)]
    pub(crate) fn set_status(pcs: &mut [PcCounters], w: &mut Warp, new: Status, t: u64) {
        debug_assert!(
            w.pipe_mark.is_none(),
            "a lazily charged status is settled first"
        );
        if w.status.start() < t {
            let open = w.status.open(t);
            charge_open(pcs, w, open);
        }
        w.status = new;
    }

    /// Evaluates warp `slot` at cycle `t` and files it as eligible or as
    /// blocked with a wake-up.
    pub(crate) fn evaluate_into(
        sh: &Shared,
        sm: &mut Sm,
        pcs: &mut [PcCounters],
        slot: u32,
        t: u64,
    ) {
        let Sm {
            slots,
            sched,
            eligible,
            wheel,
            ..
        } = sm;
        let Some(w) = slots[slot as usize].as_deref_mut() else {
            return;
        };
        let pipe = &mut sched[w.scheduler as usize];
        Self::evaluate(sh, pcs, eligible, wheel, pipe, w, slot, t);
    }

    /// Ends the lazily charged status of warp `slot` (eligible at a MUFU,
    /// [`Warp::pipe_mark`]) at `t`: charges it up to `t` and leaves the
    /// same status charged as any other, from `t`.
    #[cold]
    #[inline(never)]
    pub(crate) fn settle_pipe_wait(
        pcs: &mut [PcCounters],
        pipe: &mut SchedState,
        w: &mut Warp,
        slot: u32,
        t: u64,
    ) {
        let open = w.open(t, pipe);
        charge_open(pcs, w, open);
        if let Status::Eligible { pc, lanes, .. } = w.status {
            w.status = Status::Eligible {
                since: t,
                wait_from: t,
                pc,
                lanes,
            };
        }
        w.pipe_mark = None;
        pipe.lazy &= !(1 << slot);
    }

    /// [`State::evaluate_into`] with the SM's parts borrowed apart.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn evaluate(
        sh: &Shared,
        pcs: &mut [PcCounters],
        eligible: &mut u64,
        wheel: &mut Wheel,
        pipe: &mut SchedState,
        w: &mut Warp,
        slot: u32,
        t: u64,
    ) {
        if w.pipe_mark.is_some() {
            Self::settle_pipe_wait(pcs, pipe, w, slot, t);
        }
        match readiness(&sh.code, w, t, pipe.sfu_free, sh.cfg.group_policy) {
            Readiness::Ready { pc, lanes } => {
                Self::set_status(
                    pcs,
                    w,
                    Status::Eligible {
                        since: t,
                        wait_from: t,
                        pc,
                        lanes,
                    },
                    t,
                );
                *eligible |= 1 << slot;
                // At a MUFU, with nothing but the pipe (other warps' MUFU
                // issues) able to keep it from issuing until it does: its
                // status is charged lazily.
                if sh.code[pc as usize].is_mufu && only_the_pipe_can_stop(w, pc) {
                    w.pipe_mark = Some(pipe.pipe_busy_before(t));
                    pipe.lazy |= 1 << slot;
                }
            }
            Readiness::Blocked {
                reason,
                labelled,
                until,
                pc,
            } => {
                Self::set_status(
                    pcs,
                    w,
                    Status::Blocked {
                        reason,
                        labelled,
                        since: t,
                        until,
                        pc,
                    },
                    t,
                );
                *eligible &= !(1 << slot);
                if until != u64::MAX {
                    w.wake_at = wheel.schedule(t, until, slot);
                }
            }
            Readiness::Done => {}
        }
    }
}

/// Charges what a status ended (`open`: its pc and parts, as
/// [`Status::open`] gives them) to warp `w` and to its pc.
#[inline(always)]
fn charge_open(
    pcs: &mut [PcCounters],
    w: &mut Warp,
    (pc, parts): (Option<u32>, [(Reason, Reason, u64); 2]),
) {
    for (reason, labelled, n) in parts {
        if n == 0 {
            continue;
        }
        w.counters.charge(reason, labelled, n);
        if let Some(p) = pc.and_then(|pc| pcs.get_mut(pc as usize)) {
            p.stalls.add(reason, n);
        }
    }
}

/// Whether warp `w`, ready to issue the MUFU at `pc`, stays ready at it
/// until it issues except while the pipe is busy: a `stack` warp (only its
/// own issue changes its state), or an `its` warp whose live lanes are all
/// in that one group, the one that issued last (no other group to pick, no
/// lane waiting for a barrier to release it). Its readiness at a cycle the
/// pipe is busy is then `math_pipe_throttle` until the pipe frees.
fn only_the_pipe_can_stop(w: &Warp, pc: u32) -> bool {
    match &w.conv {
        Convergence::Stack(_) => true,
        Convergence::Its(its) => {
            its.groups.len() == 1
                && its.groups[0] == (pc, w.live())
                && its.current.is_none_or(|c| c == pc)
        }
    }
}

/// Whether a warp can issue at cycle `t`, and if not, why and until when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Readiness {
    /// `lanes` at `pc` can issue.
    Ready {
        pc: u32,
        lanes: u64,
    },
    Blocked {
        reason: Reason,
        labelled: Reason,
        /// `u64::MAX`: until another warp or lane acts.
        until: u64,
        pc: u32,
    },
    Done,
}

fn sb_reason(class: Class) -> Reason {
    if class.is_long() {
        Reason::LongScoreboard
    } else {
        Reason::ShortScoreboard
    }
}

/// What stops the instruction at `pc` from issuing at `t`, if anything.
/// Inlined, and so is its scoreboard check: most instructions of a
/// memory or MUFU kernel wait on a scoreboard, and the call's register
/// saves cost more than the larger issue path (fewer host instructions in
/// every bench kernel, the ALU loops too).
#[inline(always)]
fn instruction_block(
    code: &[Decoded],
    w: &Warp,
    pc: u32,
    t: u64,
    sfu_free: u64,
) -> Option<(Reason, Reason, u64)> {
    let d = code.get(pc as usize)?;
    let ins = &d.instr;
    if (ins.control.wait_mask != 0 || matches!(ins.op, Op::Depbar { .. }))
        && let Some(b) = scoreboard_block(d, w, t)
    {
        return Some(b);
    }
    if d.is_mufu && t < sfu_free {
        return Some((Reason::MathPipeThrottle, Reason::MathPipeThrottle, sfu_free));
    }
    None
}

/// The scoreboards the instruction `d` waits on at `t`, if any is busy.
#[inline(always)]
fn scoreboard_block(d: &Decoded, w: &Warp, t: u64) -> Option<(Reason, Reason, u64)> {
    let ins = &d.instr;
    let blocking = match ins.op {
        Op::Depbar { sb, le } => {
            w.sb.depbar(sb, le, t)
                .or_else(|| w.sb.blocking(ins.control.wait_mask, t))
        }
        _ => w.sb.blocking(ins.control.wait_mask, t),
    };
    blocking.map(|b| {
        (
            sb_reason(b.truth.class),
            sb_reason(b.labelled.class),
            b.until,
        )
    })
}

/// The readiness of warp `w` at cycle `t`: a pure function of its state.
/// Inlined for the `stack` model; the `its` model's part is not.
#[inline(always)]
pub(crate) fn readiness(
    code: &[Decoded],
    w: &Warp,
    t: u64,
    sfu_free: u64,
    policy: GroupPolicy,
) -> Readiness {
    if w.is_done() {
        return Readiness::Done;
    }
    let live = w.live();
    let blocked = |reason, until, pc| Readiness::Blocked {
        reason,
        labelled: reason,
        until,
        pc,
    };
    match &w.conv {
        Convergence::Stack(stack) => {
            let Some((pc, active)) = stack.active(live) else {
                return Readiness::Done;
            };
            if w.at_bar {
                return blocked(Reason::Barrier, u64::MAX, pc);
            }
            if t < w.stall_until {
                return blocked(Reason::Wait, w.stall_until, pc);
            }
            if t < w.branch_until {
                return blocked(Reason::BranchResolving, w.branch_until, pc);
            }
            match instruction_block(code, w, pc, t, sfu_free) {
                Some((reason, labelled, until)) => Readiness::Blocked {
                    reason,
                    labelled,
                    until,
                    pc,
                },
                None => Readiness::Ready { pc, lanes: active },
            }
        }
        Convergence::Its(its) => its_readiness(code, w, its, live, t, sfu_free, policy),
    }
}

/// [`readiness`] of a warp under the `its` model.
// Inlined: the one-group rule is a few comparisons, less than a call's
// own cost; the general rule stays a call.
#[inline(always)]
pub(super) fn its_readiness(
    code: &[Decoded],
    w: &Warp,
    its: &ItsState,
    live: u64,
    t: u64,
    sfu_free: u64,
    policy: GroupPolicy,
) -> Readiness {
    // One group that is (or follows) the lanes that issued last: no
    // group to choose, and no lanes of it waiting elsewhere; the rule is
    // the `stack` one at the group's pc. `its_groups_readiness` would
    // find the same.
    if let [(pc, lanes)] = its.groups[..]
        && its.current.is_none_or(|c| c == pc)
    {
        let blocked = |reason, until| Readiness::Blocked {
            reason,
            labelled: reason,
            until,
            pc,
        };
        if t < w.stall_until {
            return blocked(Reason::Wait, w.stall_until);
        }
        if t < w.branch_until {
            return blocked(Reason::BranchResolving, w.branch_until);
        }
        return match instruction_block(code, w, pc, t, sfu_free) {
            Some((reason, labelled, until)) => Readiness::Blocked {
                reason,
                labelled,
                until,
                pc,
            },
            None => Readiness::Ready { pc, lanes },
        };
    }
    its_groups_readiness(code, w, its, live, t, sfu_free, policy)
}

/// [`its_readiness`] by the general rule: each group asked, and the group
/// policy picking among the ready ones.
#[inline(never)]
pub(super) fn its_groups_readiness(
    code: &[Decoded],
    w: &Warp,
    its: &ItsState,
    live: u64,
    t: u64,
    sfu_free: u64,
    policy: GroupPolicy,
) -> Readiness {
    groups_rule::<true>(code, w, its, live, t, sfu_free, policy)
}

/// The general rule, with (`PREFERRED_FIRST`) or without the sticky
/// policy's shortcut of asking the preferred group alone first. Without
/// it, every group is asked: the reference the tests hold the shortcut to.
#[inline(always)]
pub(super) fn groups_rule<const PREFERRED_FIRST: bool>(
    code: &[Decoded],
    w: &Warp,
    its: &ItsState,
    live: u64,
    t: u64,
    sfu_free: u64,
    policy: GroupPolicy,
) -> Readiness {
    let blocked = |reason, until, pc| Readiness::Blocked {
        reason,
        labelled: reason,
        until,
        pc,
    };
    let preferred_group = its.preferred_group();
    let preferred = preferred_group.map_or(0, |g| g.0);
    if its.groups.is_empty() {
        let at_bar = its.waiting(live, Some(LaneWait::Bar)) != 0;
        let pc = (0..64)
            .find(|&l| live >> l & 1 != 0)
            .map_or(0, |l| its.lane_pc(l));
        let reason = if at_bar {
            Reason::Barrier
        } else {
            Reason::ConvergenceBarrier
        };
        return blocked(reason, u64::MAX, pc);
    }
    if t < w.stall_until {
        return blocked(Reason::Wait, w.stall_until, preferred);
    }
    if t < w.branch_until {
        return blocked(Reason::BranchResolving, w.branch_until, preferred);
    }
    // The sticky policy takes the preferred group whenever it can issue,
    // whatever the others can do: ask it alone first.
    if PREFERRED_FIRST
        && policy == GroupPolicy::Sticky
        && !w.yielded
        && let Some((gpc, lanes)) = preferred_group
        && instruction_block(code, w, gpc, t, sfu_free).is_none()
    {
        return Readiness::Ready { pc: gpc, lanes };
    }
    let mut first_ready = None;
    let mut first_other = None;
    let mut preferred_ready = None;
    let mut soonest = u64::MAX;
    let mut preferred_block = None;
    for &(gpc, lanes) in &its.groups {
        match instruction_block(code, w, gpc, t, sfu_free) {
            None => {
                first_ready = first_ready.or(Some((gpc, lanes)));
                if gpc == preferred {
                    preferred_ready = Some((gpc, lanes));
                } else {
                    first_other = first_other.or(Some((gpc, lanes)));
                }
            }
            Some((reason, labelled, until)) => {
                soonest = soonest.min(until);
                if gpc == preferred {
                    preferred_block = Some((reason, labelled));
                }
            }
        }
    }
    // A yield hands the slot to another group when there is one.
    let choice = match (policy, w.yielded) {
        (GroupPolicy::Sticky, false) => preferred_ready.or(first_ready),
        (GroupPolicy::Sticky, true) => first_other.or(preferred_ready),
        (GroupPolicy::LowestPc, false) => first_ready,
        (GroupPolicy::LowestPc, true) => first_other.or(first_ready),
    };
    if let Some((pc, lanes)) = choice {
        return Readiness::Ready { pc, lanes };
    }
    // The lanes that issued last wait for their siblings at a
    // convergence barrier: that is why this warp does not issue.
    if let Some(c) = its.current
        && !its.groups.iter().any(|g| g.0 == c)
    {
        return Readiness::Blocked {
            reason: Reason::ConvergenceBarrier,
            labelled: Reason::ConvergenceBarrier,
            until: soonest,
            pc: c,
        };
    }
    let (reason, labelled) = preferred_block.unwrap_or((Reason::Wait, Reason::Wait));
    Readiness::Blocked {
        reason,
        labelled,
        until: soonest,
        pc: preferred,
    }
}
