//! Engine tests: every expected number is worked out by hand from docs/execution-model.md
//! and the control codes the assembler derives (alu latency 4 unless said).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::stats::Reason;
use super::*;
use crate::asm::assemble;

/// A machine and the kernel it runs, built straight from program text:
/// what a scenario would build, without a YAML document.
pub(crate) struct Setup {
    pub(crate) config: MachineConfig,
    pub(crate) kernel: Arc<Kernel>,
}

impl Setup {
    /// The machine at cycle 0.
    pub(crate) fn machine(&self) -> Machine {
        match Machine::new(self.config.clone(), Arc::clone(&self.kernel)) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        }
    }
}

/// `program` assembled and linked for the default machine changed by
/// `machine`, launched as `launch` with `buffers`. Constant bank 0 holds
/// the block and grid dimensions, and the first buffer's base at 0x160.
pub(crate) fn kernel_with(
    program: &str,
    machine: impl FnOnce(&mut MachineConfig),
    launch: Launch,
    buffers: Vec<BufferSpec>,
) -> Setup {
    let mut config = MachineConfig::default();
    machine(&mut config);
    let prog = match assemble(program, config.latency.alu) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let mut constants = BTreeMap::new();
    constants.insert(0x0, launch.block_dim);
    constants.insert(0x4, 1);
    constants.insert(0x8, 1);
    constants.insert(0xc, launch.blocks);
    if let Some(b) = buffers.first() {
        constants.insert(0x160, b.base);
    }
    let kernel = match Kernel::link(prog, constants, &config.latency, launch) {
        Ok(k) => k.with_buffers(buffers),
        Err(e) => panic!("{e}"),
    };
    Setup {
        config,
        kernel: Arc::new(kernel),
    }
}

pub(crate) fn one_warp() -> Launch {
    Launch::linear(1, 32, 49152)
}

pub(crate) fn words(name: &str, len: u32, f: impl Fn(u32) -> u32) -> BufferSpec {
    BufferSpec {
        name: name.into(),
        ty: ElemType::U32,
        len,
        base: 0x10_0000,
        init: (0..len).flat_map(|i| f(i).to_le_bytes()).collect(),
    }
}

fn run(sc: Setup) -> Machine {
    let mut m = sc.machine();
    m.run().expect("runs");
    m
}

fn close(a: Option<f64>, b: f64) {
    let a = a.expect("defined");
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

const PREDICATED: &str = "
    S2R R0, SR_LANEID
    ISETP.LT.AND P0, PT, R0, 16, PT
    @P0 FADD R1, R1, 1.0
    @!P0 FADD R1, R1, 2.0
    EXIT
";

#[test]
fn predicated_if_else_counts_and_cycles() {
    let m = run(kernel_with(PREDICATED, |_| {}, one_warp(), vec![]));
    let c = m.totals();
    assert_eq!(c.issued, 5);
    // 32 + 32 + 16 + 16 + 32 predicated-on lanes over 5 x 32 slots.
    assert_eq!(c.thread_inst_executed_pred_on, 128);
    assert_eq!(c.thread_inst_executed, 160);
    close(c.simd_efficiency(32), 0.8);
    close(c.active_lane_efficiency(32), 1.0);
    assert_eq!(c.branch_efficiency(), None);
    // Issue at 0, 4 (R0), 8 (P0), 12 (R1), 13: 14 cycles.
    assert_eq!(m.cycle(), 14);
    assert_eq!(c.stalls.get(Reason::Selected), 5);
    assert_eq!(c.stalls.get(Reason::Wait), 9);
    assert_eq!(c.stalls.total(), 14);
    assert_eq!(c.lane_slots(32).predicated_off, 32);
}

const BRANCHY: &str = "
    S2R R0, SR_LANEID
    ISETP.LT.AND P0, PT, R0, 16, PT
    @P0 BRA else_
    FADD R1, R1, 1.0
    BRA join
else_:
    FADD R1, R1, 2.0
join:
    EXIT
";

#[test]
fn branch_if_else_on_the_stack() {
    let m = run(kernel_with(BRANCHY, |_| {}, one_warp(), vec![]));
    let c = m.totals();
    // S2R, ISETP, BRA (32 active), else (16), then (16), BRA join (16), EXIT.
    assert_eq!(c.issued, 7);
    assert_eq!(c.thread_inst_executed, 176);
    // The conditional BRA has 16 lanes on; the unconditional one 16.
    assert_eq!(c.thread_inst_executed_pred_on, 160);
    close(c.simd_efficiency(32), 160.0 / 224.0);
    assert_eq!((c.branches, c.divergent_branches), (2, 1));
    close(c.branch_efficiency(), 0.5);
    // 0 S2R(S4) 4 ISETP(S4) 8 BRA(S1) 9 else FADD(S4: drains R1)
    // 13 FADD(S1) 14 BRA(S3: drains R1) 17 EXIT -> 18 cycles.
    assert_eq!(m.cycle(), 18);
    assert_eq!(c.lane_slots(32).divergence, 16 * 3);
    let pcs = m.pc_counters();
    assert_eq!(pcs[5].executions, 1);
    assert_eq!(pcs[5].thread_inst_executed, 16);
    assert_eq!(pcs[6].thread_inst_executed, 32);
}

#[test]
fn a_stall_count_is_charged_as_it_elapses() {
    // 0 MOV (S4, IADD3 reads R1) 4 IADD3 (S1) 5 EXIT; the warp waits out
    // the count in cycles 1..=3, at the IADD3's pc.
    let prog = "
    MOV R1, 1
    IADD3 R2, R1, 1, RZ
    EXIT
";
    let mut m = kernel_with(prog, |_| {}, one_warp(), vec![]).machine();
    let mut seen = Vec::new();
    while m.step() {
        let now = m.cycle();
        let Some((w, pipe)) = m.resident_with_scheduler().next() else {
            break;
        };
        let c = w.counters_at(now, pipe);
        assert_eq!(c.stalls.total(), now, "every resident cycle once, at {now}");
        let pc_wait = m.pc_counters()[1].stalls.get(Reason::Wait);
        seen.push((now, c.stalls.get(Reason::Wait), pc_wait, c.issued));
    }
    // (cycles simulated, waits so far on the warp and at pc 1, issued),
    // while the warp is resident.
    assert_eq!(
        seen,
        vec![
            (1, 0, 0, 1),
            (2, 1, 1, 1),
            (3, 2, 2, 1),
            (4, 3, 3, 1),
            (5, 3, 3, 2),
        ]
    );
    // The EXIT at cycle 5 ends the block: nothing stays resident.
    assert_eq!((m.cycle(), m.totals().issued), (6, 3));
    assert_eq!(m.totals().stalls.get(Reason::Wait), 3);
}

const LOAD_USE: &str = "
    MOV R10, c[0x0][0x160]
    S2R R0, SR_LANEID
    IMAD R2, R0, 4, R10
    LDG.E R3, [R2]
    IMAD R4, R3, 2, RZ
    STG.E [R2], R4
    EXIT
";

#[test]
fn load_then_dependent_use_takes_the_global_latency() {
    let m = run(kernel_with(
        LOAD_USE,
        |_| {},
        one_warp(),
        vec![words("data", 32, |i| i)],
    ));
    // MOV 0 (S1), S2R 1 (S4), IMAD 5 (S4), LDG 9 (S1, W0), IMAD waits on
    // SB0 until 9 + 400 = 409 (S4), STG 413 (S1), EXIT 414: 415 cycles.
    assert_eq!(m.cycle(), 415);
    let c = m.totals();
    assert_eq!(c.stalls.get(Reason::LongScoreboard), 399);
    // S2R, the first IMAD and the second IMAD each stall 4: 3 x 3 cycles.
    assert_eq!(c.stalls.get(Reason::Wait), 9);
    assert_eq!(c.stalls.get(Reason::Selected), 7);
    assert_eq!(c.stalls.total(), 415);
    let mem = m.memory_counters();
    assert_eq!(mem.global_requests, 2);
    // 128 contiguous bytes, 128-aligned: 4 sectors, 1 line per request.
    assert_eq!((mem.global_sectors, mem.global_transactions), (8, 2));
    assert_eq!((mem.requested_bytes, mem.transferred_bytes), (256, 256));
    let data = m.buffer("data").expect("buffer");
    for i in 0..32u32 {
        let v = u32::from_le_bytes(data[4 * i as usize..4 * i as usize + 4].try_into().unwrap());
        assert_eq!(v, 2 * i);
    }
}

#[test]
fn consumer_of_two_loads_on_one_scoreboard_waits_for_the_later() {
    let text = "
        [B------:R-:W-:-:S04] MOV R2, 0x100000
        [B------:R-:W2:-:S01] LDG.E R3, [R2]
        [B------:R-:W2:-:S01] LDG.E R5, [R2+0x80]
        [B--2---:R-:W-:-:S04] IADD3 R6, R3, R5, RZ
        [B------:R-:W-:-:S01] EXIT
    ";
    let m = run(kernel_with(
        text,
        |_| {},
        one_warp(),
        vec![words("data", 64, |i| i)],
    ));
    // LDGs issue at 4 and 5; the second completes at 405: IADD3 at 405,
    // EXIT at 409, 410 cycles.
    assert_eq!(m.cycle(), 410);
    let pcs = m.pc_counters();
    assert_eq!(pcs[3].stalls.get(Reason::LongScoreboard), 405 - 6);
    assert!(m.hazards().is_empty());
}

#[test]
fn wrong_control_codes_are_reported_as_hazards() {
    // The consumer does not wait for the load: a read-after-write hazard.
    let text = "
        [B------:R-:W-:-:S04] MOV R2, 0x100000
        [B------:R-:W2:-:S01] LDG.E R3, [R2]
        [B------:R-:W-:-:S01] IADD3 R6, R3, 1, RZ
        [B------:R-:W-:-:S01] EXIT
    ";
    let setup = || kernel_with(text, |_| {}, one_warp(), vec![words("data", 32, |i| i)]);
    // Run through, and stepped a cycle at a time (the stepper's way): the
    // same hazard either way.
    let mut stepped = setup().machine();
    while stepped.step() {}
    for m in [run(setup()), stepped] {
        assert_eq!(m.cycle(), 7);
        let h = &m.hazards()[0];
        assert_eq!(h.kind, HazardKind::ReadAfterWrite);
        assert_eq!(h.register, "R3");
        assert_eq!(h.pc, 2);
        // Issued at 5, the load lands at 4 + 400.
        assert_eq!(h.early_by, 399);
    }
}

#[test]
fn out_of_bounds_lanes_fault_and_the_rest_continue() {
    let text = "
        S2R R0, SR_LANEID
        IMAD R2, R0, 4, c[0x0][0x160]
        LDG.E R3, [R2]
        IADD3 R4, R3, 1, RZ
        EXIT
    ";
    // 24 words: lanes 24..31 read past the end.
    let m = run(kernel_with(
        text,
        |_| {},
        one_warp(),
        vec![words("data", 24, |i| i)],
    ));
    assert_eq!(m.faults().len(), 8);
    let f = &m.faults()[0];
    assert_eq!(
        (f.warp, f.lane, f.pc, f.address),
        (0, 24, 2, 0x10_0000 + 96)
    );
    assert_eq!(f.kind, FaultKind::OutOfBounds);
    let c = m.totals();
    // After the fault, 24 lanes remain: IADD3 and EXIT run with 24.
    assert_eq!(c.thread_inst_executed, 32 * 3 + 24 * 2);
    assert_eq!(c.lane_slots(32).exited, 16);
}

#[test]
fn partial_warp_lanes_are_never_launched() {
    let launch = Launch::linear(1, 20, 0);
    let m = run(kernel_with(PREDICATED, |_| {}, launch, vec![]));
    let c = m.totals();
    // 20 live lanes: S2R, ISETP, EXIT 20 on; @P0 16 on; @!P0 4 on.
    assert_eq!(c.thread_inst_executed, 100);
    assert_eq!(c.thread_inst_executed_pred_on, 20 * 3 + 16 + 4);
    assert_eq!(c.lane_slots(32).never_launched, 12 * 5);
    close(c.simd_efficiency(32), 80.0 / 160.0);
}

#[test]
fn every_resident_cycle_has_exactly_one_reason() {
    let launch = Launch::linear(6, 96, 0);
    let sc = kernel_with(
        LOAD_USE,
        |m| {
            m.max_warps_per_sm = 8;
            m.schedulers = 2;
        },
        launch,
        vec![words("data", 6 * 96, |i| i)],
    );
    let m = run(sc);
    let recs = m.warp_records();
    assert_eq!(recs.len(), 18);
    let total: u64 = recs.iter().map(|r| r.counters.stalls.total()).sum();
    assert_eq!(m.totals().stalls.total(), total);
    // Each warp is resident from its block's dispatch to its block's end;
    // with 8 slots and 3 warps a block, two blocks are resident at a time.
    assert!(total > 0);
    for r in &recs {
        assert_eq!(r.counters.stalls.get(Reason::Selected), 7);
    }
}

#[test]
fn its_splits_and_merges_by_pc() {
    let m = run(kernel_with(
        BRANCHY,
        |m| m.convergence = Convergence::Its,
        one_warp(),
        vec![],
    ));
    let c = m.totals();
    // Without BSSY/BSYNC the groups only meet if they reach a pc together:
    // sticky runs the taken group (else, then EXIT) to the end, then the
    // other group (then, BRA join, EXIT).
    assert_eq!(c.issued, 3 + 2 + 3);
    assert_eq!(c.thread_inst_executed, 32 * 3 + 16 * 5);
}

/// Which warp issued in each cycle, stepping to the end.
fn issue_order(sc: Setup) -> Vec<u32> {
    let mut m = sc.machine();
    let mut order = Vec::new();
    while m.step() {
        order.extend(
            m.issues()
                .iter()
                .filter(|i| !i.dispatch_stall)
                .map(|i| i.warp),
        );
    }
    order
}

pub(crate) fn two_warps() -> Launch {
    Launch::linear(1, 64, 0)
}

#[test]
fn mufu_pipe_throttles_the_second_warp() {
    let m = run(kernel_with(
        "MUFU.RCP R1, R0\nEXIT\n",
        |_| {},
        two_warps(),
        vec![],
    ));
    // Warp 0: MUFU 0, EXIT 1. Warp 1: not selected at 0, the MUFU pipe is
    // busy at 1 (sfu_interval 2), MUFU 2, EXIT 3: 4 cycles.
    assert_eq!(m.cycle(), 4);
    let w = m.warp_records();
    assert_eq!(w[1].counters.stalls.get(Reason::NotSelected), 1);
    assert_eq!(w[1].counters.stalls.get(Reason::MathPipeThrottle), 1);
    assert_eq!(w[0].counters.stalls.get(Reason::Exited), 2);
}

/// Four warps of one scheduler take turns at the MUFU pipe, each busy for
/// `interval` cycles, under both convergence models (each warp's wait is
/// charged lazily: a `stack` warp, and an `its` warp whose lanes are one
/// group; an `its` warp with several groups is evaluated, and the divergent
/// MUFU stress scenario covers it). Hand-computed:
/// warp k issues its MUFU at `k * interval` (loose round robin starts
/// after the warp issued last) and its EXIT the cycle after; until its
/// MUFU it is not selected in the k cycles another MUFU issues and
/// throttled in the other `k * (interval - 1)`. Read at every cycle, not
/// only at the end: a warp's wait is charged up to any cycle it is read.
#[test]
fn four_warps_queue_for_the_mufu_pipe_read_at_every_cycle() {
    use super::config::Convergence;
    // 40 is past the ring that files warps ready (32 cycles): the waiting
    // warps are woken by the wheel instead.
    for interval in [2u32, 3, 40] {
        for conv in [Convergence::Stack, Convergence::Its] {
            let i = u64::from(interval);
            let mut m = kernel_with(
                "MUFU.RCP R1, R0\nEXIT\n",
                |m| {
                    m.latency.sfu_interval = interval;
                    m.convergence = conv;
                },
                Launch::linear(1, 128, 0),
                vec![],
            )
            .machine();
            // (not selected, throttled, selected) of warp k in cycles
            // 0..now, counted cycle by cycle from the timeline above.
            let expect = |k: u64, now: u64| {
                let mufu = k * i;
                let before = |c: u64| c < now && c < mufu;
                let not_selected = (0..k).filter(|&j| before(j * i)).count() as u64;
                let throttled = (0..now.min(mufu)).filter(|c| c % i != 0).count() as u64;
                let selected = [mufu, mufu + 1].iter().filter(|&&c| c < now).count() as u64;
                (not_selected, throttled, selected)
            };
            while m.step() {
                let now = m.cycle();
                for r in m.warp_records() {
                    let k = u64::from(r.warp);
                    if now > k * i + 1 {
                        continue;
                    }
                    let st = &r.counters.stalls;
                    let got = (
                        st.get(Reason::NotSelected),
                        st.get(Reason::MathPipeThrottle),
                        st.get(Reason::Selected),
                    );
                    let at = format!("warp {k} at cycle {now}, interval {interval}, {conv:?}");
                    assert_eq!(got, expect(k, now), "{at}");
                    assert_eq!(st.total(), now, "every cycle once: {at}");
                }
            }
            assert_eq!(m.cycle(), 3 * i + 2, "{conv:?}, interval {interval}");
            // The MUFU's pc carries every warp's throttle: 0 + 1 + 2 + 3
            // windows of interval - 1 cycles.
            let throttled = m.pc_counters()[0].stalls.get(Reason::MathPipeThrottle);
            assert_eq!(throttled, 6 * (i - 1), "{conv:?}, interval {interval}");
        }
    }
}

#[test]
fn two_schedulers_contend_for_the_memory_pipe() {
    let text = "MOV R2, c[0x0][0x160]\nLDG.E R1, [R2]\nEXIT\n";
    let m = run(kernel_with(
        text,
        |m| m.schedulers = 2,
        two_warps(),
        vec![words("data", 32, |i| i)],
    ));
    // Both MOVs at 0 (S04); at 4 both LDGs are selected, scheduler 1
    // loses the slot (dispatch stall) and issues at 5; EXITs 5 and 6.
    assert_eq!(m.cycle(), 7);
    let w = m.warp_records();
    assert_eq!(w[0].counters.stalls.get(Reason::DispatchStall), 0);
    assert_eq!(w[1].counters.stalls.get(Reason::DispatchStall), 1);
}

#[test]
fn taken_branches_pay_the_branch_latency() {
    let m = run(kernel_with(
        "BRA next\nnext:\nEXIT\n",
        |m| m.latency.branch = 3,
        one_warp(),
        vec![],
    ));
    // BRA 0 (S01), then 3 cycles resolving: EXIT 4.
    assert_eq!(m.cycle(), 5);
    let c = m.totals();
    assert_eq!(c.stalls.get(Reason::BranchResolving), 3);
}

#[test]
fn depbar_waits_until_few_enough_loads_remain() {
    let text = "
        [B------:R-:W-:-:S04] MOV R2, 0x100000
        [B------:R-:W0:-:S01] LDG.E R3, [R2]
        [B------:R-:W0:-:S01] LDG.E R5, [R2+0x200]
        [B------:R-:W-:-:S01] DEPBAR.LE SB0, 0x1
        [B------:R-:W-:-:S01] IADD3 R6, R3, 1, RZ
        [B0-----:R-:W-:-:S01] IADD3 R7, R5, 1, RZ
        [B------:R-:W-:-:S01] EXIT
    ";
    let m = run(kernel_with(
        text,
        |_| {},
        one_warp(),
        vec![words("data", 256, |i| i)],
    ));
    // Loads at 4 and 5 complete at 404 and 405. DEPBAR.LE SB0, 1 clears
    // when one is left: 404. IADD3 405, IADD3 (waits for SB0 = 0 at 405)
    // 406, EXIT 407.
    assert_eq!(m.cycle(), 408);
    assert!(m.hazards().is_empty());
}

#[test]
fn yield_hands_the_scheduler_to_another_warp_under_gto() {
    let with = "[B------:R-:W-:Y:S01] NOP\n[B------:R-:W-:-:S01] NOP\n[B------:R-:W-:-:S01] EXIT\n";
    let without = with.replace(":Y:", ":-:");
    let gto = |m: &mut MachineConfig| m.policy = Policy::Gto;
    // Greedy stays on warp 0 unless it yields.
    assert_eq!(
        issue_order(kernel_with(&without, gto, two_warps(), vec![])),
        vec![0, 0, 0, 1, 1, 1]
    );
    assert_eq!(
        issue_order(kernel_with(with, gto, two_warps(), vec![])),
        vec![0, 1, 0, 0, 1, 1]
    );
    // Loose round robin alternates either way.
    let lrr = |_: &mut MachineConfig| {};
    assert_eq!(
        issue_order(kernel_with(&without, lrr, two_warps(), vec![])),
        vec![0, 1, 0, 1, 0, 1]
    );
}

#[test]
fn overwriting_a_store_source_too_early_is_a_war_hazard() {
    let text = "
        [B------:R-:W-:-:S04] MOV R2, 0x100000
        [B------:R0:W-:-:S01] STG.E [R2], R4
        [B------:R-:W-:-:S01] MOV R4, 0x7
        [B------:R-:W-:-:S01] EXIT
    ";
    let m = run(kernel_with(
        text,
        |_| {},
        one_warp(),
        vec![words("data", 32, |i| i)],
    ));
    let h = &m.hazards()[0];
    assert_eq!(
        (h.kind, h.register.as_str(), h.pc),
        (HazardKind::WriteAfterRead, "R4", 2)
    );
    // The store reads its sources until 4 + read_barrier (2) = 6; the MOV
    // issues at 5.
    assert_eq!(h.early_by, 1);
}

#[test]
fn derived_codes_never_break_a_dependence() {
    for sc in [
        kernel_with(LOAD_USE, |_| {}, one_warp(), vec![words("data", 32, |i| i)]),
        kernel_with(BRANCHY, |_| {}, one_warp(), vec![]),
        kernel_with(
            BRANCHY,
            |m| m.convergence = Convergence::Its,
            one_warp(),
            vec![],
        ),
    ] {
        let mut m = sc.machine();
        m.set_hazard_checks(true);
        m.run().expect("runs");
        assert!(m.hazards().is_empty(), "{:?}", m.hazards());
    }
}

#[test]
fn max_cycles_stops_a_runaway_loop_at_the_limit() {
    let text = "spin:\nBRA spin\n";
    let mut m = kernel_with(text, |m| m.max_cycles = 50, one_warp(), vec![]).machine();
    let err = m.run().unwrap_err();
    assert_eq!(err, RunError::MaxCycles { limit: 50 });
    // The error is set when the 50th cycle has been simulated.
    assert_eq!(m.cycle(), 50);
    assert!(err.to_string().contains("max_cycles"));
    let mut m2 = kernel_with(text, |m| m.max_cycles = 50, one_warp(), vec![]).machine();
    for _ in 0..50 {
        m2.step();
    }
    assert!(m2.error().is_some());
    assert!(!m2.step());
}

#[test]
fn skipping_idle_cycles_leaves_no_stale_issue_records() {
    let mut m = kernel_with(LOAD_USE, |_| {}, one_warp(), vec![words("data", 32, |i| i)]).machine();
    m.run_until(10);
    assert_eq!(m.issues().len(), 1, "the LDG issued in cycle 9");
    m.run_until(300);
    assert!(m.issues().is_empty());
}

#[test]
fn bank_conflicts_replay_the_shared_access() {
    // Lane l reads word l * stride: stride 2, 4 and 32 put 2, 4 and 32
    // distinct words in the worst bank. S2R 0 (S04), IMAD 4 (S04), LDS 8
    // (SB0), the IADD3 waits 24 + 2 x (passes - 1), EXIT one cycle later.
    for (stride, passes) in [(1u32, 1u64), (2, 2), (4, 4), (32, 32)] {
        let text = format!(
            "S2R R0, SR_LANEID\nIMAD R1, R0, {}, RZ\nLDS R2, [R1]\nIADD3 R3, R2, 1, RZ\nEXIT\n",
            4 * stride
        );
        let m = run(kernel_with(&text, |_| {}, one_warp(), vec![]));
        assert_eq!(
            m.memory_counters().shared_bank_conflicts,
            passes - 1,
            "stride {stride}"
        );
        assert_eq!(m.cycle(), 34 + 2 * (passes - 1), "stride {stride}");
    }
}

/// `program` run as one warp of `width` lanes on a machine of that warp
/// width: the warp's registers and predicates when it left its SM.
fn one_warp_final_state(program: &str, width: u32) -> FinalState {
    let launch = Launch::linear(1, width, 0);
    let sc = kernel_with(program, |m| m.warp_width = width, launch, vec![]);
    let mut m = sc.machine();
    m.set_keep_final_states(true);
    m.run().expect("runs");
    let states = m.final_states();
    match states.as_slice() {
        [s] => (*s).clone(),
        _ => panic!("one warp, got {}", states.len()),
    }
}

/// Every kind of source (register, register with a modifier, immediate, RZ,
/// constant, in any position) reads the same whether the warp has 32 lanes,
/// where rows are read in place, or another width, where they are gathered.
#[test]
fn sources_of_every_kind_read_alike_at_every_width() {
    const PROGRAM: &str = "
        S2R R0, SR_LANEID
        IADD3 R1, -R0, 10, RZ
        IADD3 R2, RZ, ~R0, 5
        IMAD R3, R0, c[0x0][0x0], 3
        I2F R4, R0
        FFMA R5, -R4, 0.5, 2.0
        FADD R6, |R5|, -1.0
        FMUL R7, R4, R4
        ISETP.LT.AND P0, PT, R0, 5, PT
        @P0 IADD3 R8, R0, R0, R0
        @!P0 IMAD R9, RZ, R0, 7
        ISETP.GE.U32.AND P1, PT, RZ, R1, PT
        FSETP.GT.AND P2, PT, R5, RZ, PT
        EXIT
    ";
    for width in [32u32, 8] {
        let s = one_warp_final_state(PROGRAM, width);
        let reg = |r: u32, l: u32| s.regs[(r * width + l) as usize];
        for l in 0..width {
            let lf = l as f32;
            let half = 2.0 - lf / 2.0;
            assert_eq!(
                reg(1, l),
                10u32.wrapping_sub(l),
                "R1 lane {l} width {width}"
            );
            assert_eq!(reg(2, l), 4u32.wrapping_sub(l), "R2 lane {l} width {width}");
            assert_eq!(reg(3, l), l * width + 3, "R3 lane {l} width {width}");
            assert_eq!(reg(5, l), half.to_bits(), "R5 lane {l} width {width}");
            assert_eq!(reg(6, l), (half.abs() - 1.0).to_bits(), "R6 lane {l}");
            assert_eq!(reg(7, l), (lf * lf).to_bits(), "R7 lane {l} width {width}");
            // Predicated: lanes below 5 add, the others keep zero.
            let r8 = if l < 5 { 3 * l } else { 0 };
            assert_eq!(reg(8, l), r8, "R8 lane {l} width {width}");
            let r9 = if l < 5 { 0 } else { 7 };
            assert_eq!(reg(9, l), r9, "R9 lane {l} width {width}");
        }
        let all = if width == 32 {
            u64::from(u32::MAX)
        } else {
            0xff
        };
        assert_eq!(s.preds[0], 0b1_1111 & all, "P0 width {width}");
        // 0 >= 10 - l unsigned only where 10 - l is 0: lane 10.
        assert_eq!(s.preds[1], (1 << 10) & all, "P1 width {width}");
        // 2 - l/2 > 0 for lanes 0..=3.
        assert_eq!(s.preds[2], 0b1111, "P2 width {width}");
    }
}

/// `MUFU` over every lane of a warp and over a predicate's lanes (the
/// others keep their value), at a 32-lane width and another. Values worked out by hand: `l * l` is
/// exact in `f32` for these lanes, so its square root is `l`; `2^l` and
/// its reciprocal `2^-l` are powers of two, exact.
#[test]
fn mufu_computes_every_lane_and_only_the_predicated_ones() {
    const PROGRAM: &str = "
        S2R R0, SR_LANEID
        I2F R4, R0
        FMUL R5, R4, R4
        MUFU.SQRT R1, R5
        MUFU.EX2 R6, R4
        MUFU.RCP R7, R6
        ISETP.LT.AND P0, PT, R0, 5, PT
        @P0 MUFU.SQRT R8, R5
        @!P0 MUFU.EX2 R9, R4
        EXIT
    ";
    for width in [32u32, 8] {
        let s = one_warp_final_state(PROGRAM, width);
        let reg = |r: u32, l: u32| s.regs[(r * width + l) as usize];
        for l in 0..width {
            let lf = l as f32;
            let pow = (1u32 << l) as f32;
            assert_eq!(reg(1, l), lf.to_bits(), "R1 lane {l} width {width}");
            assert_eq!(reg(6, l), pow.to_bits(), "R6 lane {l} width {width}");
            assert_eq!(
                reg(7, l),
                (1.0 / pow).to_bits(),
                "R7 lane {l} width {width}"
            );
            let r8 = if l < 5 { lf.to_bits() } else { 0 };
            assert_eq!(reg(8, l), r8, "R8 lane {l} width {width}");
            let r9 = if l < 5 { 0 } else { pow.to_bits() };
            assert_eq!(reg(9, l), r9, "R9 lane {l} width {width}");
        }
    }
}

/// Warp 0 reaches the barrier long before warp 1 (which runs eight
/// dependent adds first), so warp 0's stall count after BAR.SYNC runs out
/// while it waits. Counted by hand: each warp issues the BAR.SYNC once
/// and each instruction after it once (2 warps), whatever the timing;
/// warp 0 issues 3 + 4 = 7 instructions (S2R, ISETP, BRA; BAR.SYNC, two
/// adds, EXIT), warp 1 3 + 8 + 4 = 15.
#[test]
fn its_warp_waiting_at_a_barrier_issues_it_once() {
    let program = "
    S2R R0, SR_TID.X
    ISETP.LT.AND P0, PT, R0, 32, PT
    @P0 BRA bar
    IADD3 R3, R3, 1, RZ
    IADD3 R3, R3, 1, RZ
    IADD3 R3, R3, 1, RZ
    IADD3 R3, R3, 1, RZ
    IADD3 R3, R3, 1, RZ
    IADD3 R3, R3, 1, RZ
    IADD3 R3, R3, 1, RZ
    IADD3 R3, R3, 1, RZ
bar:
    BAR.SYNC 0x0
    IADD3 R4, R4, 1, RZ
    IADD3 R4, R4, 1, RZ
    EXIT
";
    let m = run(kernel_with(
        program,
        |m| m.convergence = Convergence::Its,
        two_warps(),
        vec![],
    ));
    let pcs = m.pc_counters();
    // pc 11: BAR.SYNC; 12, 13: the adds after it; 14: EXIT
    let executions: Vec<u64> = pcs[11..15].iter().map(|p| p.executions).collect();
    assert_eq!(executions, vec![2, 2, 2, 2]);
    let issued: Vec<u64> = m.warp_records().iter().map(|r| r.counters.issued).collect();
    assert_eq!(issued, vec![7, 15]);
}

#[test]
fn a_warp_reusing_a_finished_ones_hazard_tables_starts_clean() {
    // Two one-warp blocks, one at a time on the SM: the second warp takes
    // the first one's tables. The first exits with its load of R3 still in
    // flight (issued at 9 or so, it lands 400 cycles later); the second
    // reads R3 at pc 0 long before that, writes it on lanes 0..15 only,
    // reads it on all 32, and writes R4, which the first's store read,
    // right away. None of it is a hazard: what the first warp left in the
    // tables must read zero (ready since before the launch), both in rows
    // the second never wrote and in lanes of a row it wrote in part.
    let text = "
        [B------:R-:W-:-:S01] IADD3 R6, R3, 1, RZ
        [B------:R-:W0:-:S01] S2R R0, SR_LANEID
        [B0-----:R-:W-:-:S04] ISETP.LT.AND P0, PT, R0, 16, PT
        [B------:R-:W-:-:S04] @P0 MOV R3, 0x1
        [B------:R-:W-:-:S01] IADD3 R7, R3, 1, RZ
        [B------:R-:W-:-:S01] MOV R4, 0x7
        [B------:R-:W-:-:S04] MOV R2, 0x100000
        [B------:R1:W-:-:S01] STG.E [R2], R4
        [B------:R-:W2:-:S01] LDG.E R3, [R2]
        [B------:R-:W-:-:S01] EXIT
    ";
    let m = run(kernel_with(
        text,
        |m| m.max_blocks_per_sm = 1,
        Launch::linear(2, 32, 0),
        vec![words("data", 32, |i| i)],
    ));
    assert_eq!(m.totals().issued, 20);
    assert!(m.hazards().is_empty(), "{:?}", m.hazards());
}
