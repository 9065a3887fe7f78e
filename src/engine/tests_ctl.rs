//! Engine tests of calls and returns, indirect jumps (`BRX`), convergence
//! barrier moves (`BMOV`), branch conditions and uniform guards: small
//! programs written by hand, each count and value worked out by hand in a
//! comment, in both convergence models where the two agree.

use super::tests::{kernel_with, one_warp};
use super::*;
use crate::asm::assemble;

fn run_in(program: &str, model: Convergence) -> Machine {
    let mut m = kernel_with(program, |c| c.convergence = model, one_warp(), vec![]).machine();
    m.set_keep_final_states(true);
    m.run().expect("runs");
    m
}

/// Register `r` of lane `l` at the end (one warp of 32).
fn reg(m: &Machine, r: u32, l: u32) -> u32 {
    m.final_states()[0].regs[(r * 32 + l) as usize]
}

const MODELS: [Convergence; 2] = [Convergence::Stack, Convergence::Its];

/// nvcc's call: the return address (a byte address, 16 per instruction)
/// in a register, `CALL.REL.NOINC`, and `RET.REL.NODEC` through it.
const CALL: &str = "
    S2R R0, SR_LANEID
    MOV R4, 0x30
    CALL.REL.NOINC f
    IADD3 R2, R1, 0x1, RZ
    EXIT
f:
    IADD3 R1, R0, R0, RZ
    RET.REL.NODEC R4, 0x0
";

#[test]
fn call_and_return_through_a_register() {
    for model in MODELS {
        let m = run_in(CALL, model);
        let c = m.totals();
        // pcs 0 1 2 (call) 5 6 (return to 0x30 = pc 3) 3 4: seven issues,
        // each at the full mask; the CALL and the RET are two branches.
        assert_eq!(c.issued, 7, "{model:?}");
        assert_eq!(c.thread_inst_executed, 7 * 32);
        assert_eq!((c.branches, c.divergent_branches), (2, 0));
        let pcs = m.pc_counters();
        assert!(pcs.iter().all(|p| p.executions == 1), "{model:?}");
        for l in [0, 5, 31] {
            assert_eq!(reg(&m, 1, l), 2 * l);
            assert_eq!(reg(&m, 2, l), 2 * l + 1);
        }
    }
}

/// Lanes 0..15 return to pc 5, lanes 16..31 to pc 7: a return diverges.
const SPLIT_RETURN: &str = "
    S2R R0, SR_LANEID
    ISETP.LT.AND P0, PT, R0, 0x10, PT
    MOV R4, 0x50
    @!P0 MOV R4, 0x70
    CALL.REL.NOINC f
    IADD3 R2, RZ, 0x1, RZ
    BRA done
    IADD3 R2, RZ, 0x2, RZ
    BRA done
done:
    EXIT
f:
    RET.REL.NODEC R4, 0x0
";

#[test]
fn a_return_to_two_places_diverges_and_runs_each_way() {
    for model in MODELS {
        let m = run_in(SPLIT_RETURN, model);
        let c = m.totals();
        // 0..4 and the RET (pc 10): 6 at 32 lanes. Then each way alone,
        // the lower pc first: 5 6 9 (16 lanes), 7 8 9 (16 lanes). `stack`:
        // the RET reconverges at its only return point, pc 5, where the
        // first way ends (its entry pops); `its`: no barrier, each group
        // exits on its own. 12 issues in both.
        assert_eq!(c.issued, 12, "{model:?}");
        assert_eq!(c.thread_inst_executed, 6 * 32 + 6 * 16, "{model:?}");
        // CALL, RET (divergent), BRA done twice.
        assert_eq!((c.branches, c.divergent_branches), (4, 1), "{model:?}");
        assert_eq!((reg(&m, 2, 0), reg(&m, 2, 15)), (1, 1));
        assert_eq!((reg(&m, 2, 16), reg(&m, 2, 31)), (2, 2));
        assert_eq!(m.final_states()[0].exited, 0xffff_ffff);
    }
}

/// A jump table: lane & 3 = 0, 1, 2, 3 (min 2) picks case c0, c1 or c2,
/// two instructions (0x20 bytes) each; `BRX R2, 0x0` jumps to
/// `R2 + 0x0 + 0x60` (the address after the BRX), pc 6 + 2 x case.
const SWITCH: &str = "
    S2R R0, SR_LANEID
    LOP3.LUT R1, R0, 0x3, RZ, 0xc0, !PT
    VIMNMX.U32 R1, R1, 0x2, PT
    IMAD R2, R1, 0x20, RZ
    BSSY B0, done
    BRX R2, 0x0, c0, c1, c2
c0:
    MOV R3, 0xa
    BRA done
c1:
    MOV R3, 0x14
    BRA done
c2:
    MOV R3, 0x1e
    BRA done
done:
    BSYNC B0
    EXIT
";

#[test]
fn brx_jumps_to_each_of_three_targets() {
    for model in MODELS {
        let m = run_in(SWITCH, model);
        let c = m.totals();
        // 0..5 at 32 lanes (6), each case's MOV and BRA (8, 8, 16 lanes),
        // then BSYNC (the IPDOM in `stack`, the barrier in `its`) and EXIT
        // at 32: 6 + 6 + 2 = 14 issues.
        assert_eq!(c.issued, 14, "{model:?}");
        assert_eq!(c.thread_inst_executed, 8 * 32 + 2 * (8 + 8 + 16));
        // The BRX (three ways: divergent) and three BRAs.
        assert_eq!((c.branches, c.divergent_branches), (4, 1), "{model:?}");
        let pcs = m.pc_counters();
        assert_eq!(
            (pcs[6].executions, pcs[8].executions, pcs[10].executions),
            (1, 1, 1)
        );
        for (l, want) in [
            (0, 10),
            (4, 10),
            (1, 20),
            (5, 20),
            (2, 30),
            (3, 30),
            (31, 30),
        ] {
            assert_eq!(reg(&m, 3, l), want, "lane {l} {model:?}");
        }
    }
}

#[test]
fn brx_to_an_address_it_does_not_list_faults_the_lane() {
    // Without the VIMNMX, lane & 3 = 3 jumps to pc 12 (the BSYNC), which
    // the BRX does not list: lanes 3, 7, .., 31 fault; the rest run.
    let prog = SWITCH.replace("VIMNMX.U32 R1, R1, 0x2, PT", "NOP");
    for model in MODELS {
        let m = run_in(&prog, model);
        let s = m.final_states()[0];
        assert_eq!(s.faulted, 0x8888_8888, "{model:?}");
        assert_eq!(s.exited, !0x8888_8888u32 as u64);
        let f = &m.faults()[0];
        assert_eq!(
            (f.kind, f.pc, f.lane, f.address),
            (FaultKind::BadBranchTarget, 5, 3, 0xc0)
        );
        assert_eq!(reg(&m, 3, 2), 30);
    }
}

/// The outer barrier B0 saved (and cleared) by `BMOV.32.CLEAR`, B0
/// reused for an inner loop of the lanes 0..15, then restored:
///
/// ```text
///  0..3  lanes, trip = lane & 3, R2 = 0, P1 = lane >= 16
///  4  BSSY B0        B0 = 0xffffffff (all 32 issue it)
///  5  BMOV.CLEAR     R5 = 0xffffffff, B0 = 0
///  6  BMOV R8, B0    R8 = 0
///  7  @P1 EXIT       lanes 16..31 leave
///  8  BSSY B0        B0 = 0x0000ffff
///  9..12 loop        trip 0..3: 2 + 3 x 4 = 14 issues; BRA@10 4 times
///                    (3 divergent), BRA@12 3 times
/// 13  BSYNC B0       releases lanes 0..15 and empties B0 (spent)
/// 14  BMOV R6, B0    R6 = 0
/// 15  BMOV B0, R5    B0 = 0xffffffff
/// 16  BMOV R7, B0    R7 = 0xffffffff
/// 17  BSYNC B0       lanes 0..15 arrive; 16..31 exited: released
/// ```
///
/// 9 + 14 + 6 = 29 issues.
const NESTED: &str = "
    S2R R0, SR_LANEID
    LOP3.LUT R1, R0, 0x3, RZ, 0xc0, !PT
    MOV R2, RZ
    ISETP.GE.AND P1, PT, R0, 0x10, PT
    BSSY B0, join0
    BMOV.32.CLEAR R5, B0
    BMOV.32 R8, B0
    @P1 EXIT
    BSSY B0, join1
loop:
    ISETP.GE.AND P0, PT, R2, R1, PT
    @P0 BRA join1
    IADD3 R2, R2, 0x1, RZ
    BRA loop
join1:
    BSYNC B0
    BMOV.32 R6, B0
    BMOV.32 B0, R5
    BMOV.32 R7, B0
join0:
    BSYNC B0
    EXIT
";

#[test]
fn bmov_saves_and_restores_a_barrier_around_a_nested_loop() {
    for model in MODELS {
        let m = run_in(NESTED, model);
        let c = m.totals();
        assert_eq!(c.issued, 29, "{model:?}");
        assert_eq!((c.branches, c.divergent_branches), (7, 3), "{model:?}");
        for l in [0, 3, 6, 15] {
            assert_eq!(reg(&m, 5, l), 0xffff_ffff, "R5 lane {l} {model:?}");
            assert_eq!(reg(&m, 8, l), 0, "R8 lane {l}");
            assert_eq!(reg(&m, 6, l), 0, "R6 lane {l} {model:?}");
            assert_eq!(reg(&m, 7, l), 0xffff_ffff, "R7 lane {l} {model:?}");
            assert_eq!(reg(&m, 2, l), l & 3);
        }
        // Lanes 16..31 left before the inner region.
        assert_eq!(
            (reg(&m, 5, 20), reg(&m, 6, 20), reg(&m, 7, 20)),
            (0xffff_ffff, 0, 0)
        );
        assert_eq!(m.final_states()[0].exited, 0xffff_ffff);
    }
}

/// `@P0 BRA P1, a`: lanes 0..7 (P0 and P1) jump; `BRA !P1` the others.
/// Then a uniform predicate: UP0 = (UR4 != 0) is true, so `@UP0` runs,
/// `@!UP0` does not, and `BRA.U !UP0` falls through.
const CONDITIONS: &str = "
    S2R R0, SR_LANEID
    ISETP.LT.AND P0, PT, R0, 0x10, PT
    ISETP.LT.AND P1, PT, R0, 0x8, PT
    BSSY B1, b
    @P0 BRA P1, a
    MOV R3, 0x1
    BRA !P1, b
a:
    MOV R3, 0x2
b:
    BSYNC B1
    UMOV UR4, 0x1
    UISETP.NE.U32.AND UP0, UPT, UR4, URZ, UPT
    @UP0 IADD3 R4, R3, 0xa, RZ
    @!UP0 IADD3 R4, R3, 0x14, RZ
    BRA.U !UP0, end
    MOV R5, 0x7
end:
    EXIT
";

#[test]
fn branch_conditions_and_uniform_guards() {
    for model in MODELS {
        let m = run_in(CONDITIONS, model);
        for (l, r3) in [(0, 2), (7, 2), (8, 1), (31, 1)] {
            assert_eq!(reg(&m, 3, l), r3, "lane {l} {model:?}");
            assert_eq!(reg(&m, 4, l), r3 + 10, "lane {l} {model:?}");
            assert_eq!(reg(&m, 5, l), 7, "lane {l} {model:?}");
        }
        let c = m.totals();
        // The first BRA splits 8 / 24; `BRA !P1, b` (24 lanes, all !P1)
        // and `BRA.U !UP0` (false for the warp) do not.
        assert_eq!((c.branches, c.divergent_branches), (3, 1), "{model:?}");
        // `@!UP0` has no lane on; `@UP0` all 32.
        let pcs = m.pc_counters();
        let pc_of = |text: &str| {
            m.kernel()
                .program()
                .instrs
                .iter()
                .position(|i| i.text.starts_with(text))
                .expect("instruction")
        };
        assert_eq!(pcs[pc_of("@UP0")].thread_inst_executed_pred_on, 32);
        assert_eq!(pcs[pc_of("@!UP0")].thread_inst_executed_pred_on, 0);
    }
}

#[test]
fn a_barrier_no_bssy_set_does_not_wait() {
    // Documented: BSYNC on a barrier holding none of its lanes issues and
    // moves on; BREAK and BMOV on it change nothing else. A program must
    // set a barrier on some path before it reads one (a load-time check),
    // so the BSSY is on a path no lane takes (P0 is false). 8 issues:
    // ISETP, @P0 BRA, BRA, BREAK, BMOV, BSYNC, MOV, EXIT.
    let prog = "
        ISETP.NE.AND P0, PT, RZ, RZ, PT
        @P0 BRA set
        BRA go
        set:
        BSSY B3, go
        go:
        BREAK B3
        BMOV.32 R1, B3
        BSYNC B3
        MOV R2, 0x5
        EXIT
    ";
    for model in MODELS {
        let m = run_in(prog, model);
        assert_eq!(m.totals().issued, 8, "{model:?}");
        assert_eq!((reg(&m, 1, 0), reg(&m, 2, 9)), (0, 5));
    }
}

#[test]
fn call_stack_forms_and_bad_operands_are_refused_at_load() {
    let cases = [
        ("CALL.REL f\nf: EXIT", "hardware call stack"),
        ("RET.REL R0, 0x0\nEXIT", "hardware call stack"),
        ("RET.REL.NODEC 0x0\nEXIT", "not the register"),
        ("BRX R2, 0x0, nowhere\nEXIT", "no label `nowhere`"),
        ("BMOV.32 R1, R2\nEXIT", "convergence barrier"),
        ("BRA P1, P2\nEXIT", "not a label"),
    ];
    for (text, want) in cases {
        match assemble(text, 4) {
            Ok(_) => panic!("`{text}` loaded"),
            Err(e) => {
                let shown = format!("{e}");
                assert!(shown.contains(want), "`{text}`: {shown}");
                assert_eq!(e.line, 1, "`{text}`");
            }
        }
    }
}

/// Programs whose warps split: calls, returns, jumps through tables,
/// nested convergence barriers, branch conditions.
const SPLITTING: [&str; 5] = [CALL, SPLIT_RETURN, SWITCH, NESTED, CONDITIONS];

/// Steps two warps of each program under `its`, with each group policy,
/// and calls `f` with every resident warp and its groups at every cycle
/// (statuses hold from `m.st.cycle`, the cycle to step next).
fn each_its_warp_each_cycle<'p>(
    programs: impl IntoIterator<Item = &'p str>,
    mut f: impl FnMut(
        &Machine,
        &super::warp::Warp,
        &super::convergence::ItsState,
        super::config::GroupPolicy,
    ),
) {
    use super::config::GroupPolicy;
    use super::convergence::Convergence as Conv;
    for program in programs {
        for policy in [GroupPolicy::Sticky, GroupPolicy::LowestPc] {
            let setup = kernel_with(
                program,
                |c| {
                    c.convergence = Convergence::Its;
                    c.group_policy = policy;
                },
                super::tests::two_warps(),
                vec![],
            );
            let mut m = setup.machine();
            while m.step() {
                for w in m.st.resident() {
                    if let Conv::Its(its) = &w.conv {
                        f(&m, w, its, policy);
                    }
                }
            }
        }
    }
}

/// The one-group rule of `its` readiness gives what the general rule
/// (every group asked, the policy choosing) gives: the reference is the
/// general rule, asked of every resident warp at every cycle of programs
/// that split, call, jump through tables, wait at BSYNC, WARPSYNC and
/// BAR.SYNC and queue for the MUFU pipe, at the cycle and later ones,
/// with the pipe free and busy, under both group policies. The general
/// rule's own shortcut (the sticky policy asking the preferred group
/// first) is held the same way to the rule that asks every group.
#[test]
fn its_readiness_of_one_group_is_the_general_rule() {
    use super::readiness::{Readiness, groups_rule, its_groups_readiness, its_readiness};
    let sync_and_pipe = "
    S2R R0, SR_TID.X
    ISETP.LT.AND P0, PT, R0, 8, PT
    @P0 BRA skip
    MUFU.EX2 R1, R0
    MUFU.RSQ R2, R1
skip:
    WARPSYNC 0xffffffff
    BAR.SYNC 0x0
    MUFU.SIN R3, R0
    EXIT
";
    // The taken lanes wait at BSYNC while the others queue for the pipe.
    let wait_beside_pipe = "
    S2R R0, SR_TID.X
    BSSY B0, join
    ISETP.LT.AND P0, PT, R0, 8, PT
    @P0 BRA join
    MUFU.EX2 R1, R0
    MUFU.RSQ R2, R1
join:
    BSYNC B0
    EXIT
";
    let programs = SPLITTING
        .into_iter()
        .chain([sync_and_pipe, wait_beside_pipe]);
    let mut asked = 0;
    let mut one_group = 0;
    let mut sticky_split_ready = 0;
    each_its_warp_each_cycle(programs, |m, w, its, policy| {
        let t = m.st.cycle;
        one_group += usize::from(its.groups.len() == 1);
        // Before, at and after the warp's own stalls end; the pipe free,
        // soon free and busy long after.
        let own = w.stall_until.max(w.branch_until);
        for at in [t, t + 1, t + 7, own] {
            for sfu_free in [0, t + 3, own + 50] {
                let code = &m.sh.code;
                let live = w.live();
                let fast = its_readiness(code, w, its, live, at, sfu_free, policy);
                let general = its_groups_readiness(code, w, its, live, at, sfu_free, policy);
                assert_eq!(fast, general, "warp {} at {at}", w.gid);
                // The general rule's shortcut for the sticky policy, held
                // to every group asked.
                let every = groups_rule::<false>(code, w, its, live, at, sfu_free, policy);
                assert_eq!(general, every, "warp {} at {at}", w.gid);
                asked += 1;
                sticky_split_ready += usize::from(
                    policy == super::config::GroupPolicy::Sticky
                        && its.groups.len() > 1
                        && matches!(general, Readiness::Ready { .. }),
                );
            }
        }
    });
    // Both rules were asked often, of warps that are one group, and of
    // split warps the sticky shortcut answers.
    assert!(
        asked > 1000 && one_group > 100 && sticky_split_ready > 50,
        "{asked} {one_group} {sticky_split_ready}"
    );
}

/// An `its` warp filed at its issue as eligible from a later cycle (after
/// its stall count) is what the general rule, asked at every cycle, makes
/// it: waiting (`wait`) at the pc it is filed at until then, and ready
/// there with the same lanes from then on. The reference is the general
/// rule, asked of every eligible warp at every cycle of programs whose
/// warps split into several groups that each wait out stall counts, under
/// both group policies.
#[test]
fn its_warps_filed_at_issue_are_what_the_general_rule_gives() {
    use super::readiness::{Readiness, its_groups_readiness};
    use super::warp::Status;
    use crate::engine::stats::Reason;
    // Each lane loops (lane % 8) + 1 times: the warp splits at each turn.
    let divergent_loop = "
    S2R R0, SR_TID.X
    LOP3.LUT R5, R0, 0x7, RZ, 0xc0, !PT
    IADD3 R5, R5, 1, RZ
    MOV R2, RZ
    MOV R3, RZ
loop:
    FFMA R3, R3, 1.5, 1.0
    IADD3 R2, R2, 1, RZ
    ISETP.LT.AND P0, PT, R2, R5, PT
    @P0 BRA loop
    IADD3 R6, R3, 1, RZ
    EXIT
";
    let programs = SPLITTING.into_iter().chain([divergent_loop]);
    let (mut waiting, mut waiting_split, mut ready) = (0, 0, 0);
    each_its_warp_each_cycle(programs, |m, w, its, policy| {
        let t = m.st.cycle;
        let Status::Eligible {
            since, pc, lanes, ..
        } = w.status
        else {
            return;
        };
        let general = its_groups_readiness(&m.sh.code, w, its, w.live(), t, 0, policy);
        if t < since {
            let expected = Readiness::Blocked {
                reason: Reason::Wait,
                labelled: Reason::Wait,
                until: w.stall_until,
                pc,
            };
            assert_eq!(general, expected, "warp {} at {t}", w.gid);
            waiting += 1;
            waiting_split += usize::from(its.groups.len() > 1);
        } else {
            assert_eq!(
                general,
                Readiness::Ready { pc, lanes },
                "warp {} at {t}",
                w.gid
            );
            ready += 1;
        }
    });
    // Warps of several groups were filed while they waited, often.
    assert!(
        waiting_split > 50 && waiting > 100 && ready > 100,
        "{waiting_split} {waiting} {ready}"
    );
}
