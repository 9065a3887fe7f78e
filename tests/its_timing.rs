//! Independent thread scheduling against the SIMT stack, with cycle and
//! slot counts worked out by hand from the timing model in the README.

use warpstep::report::Report;
use warpstep::scenario::{Origin, Scenario};

mod support;
use support::CROSSED;

fn run(text: &str, convergence: &str) -> Report {
    let text = text.replace("CONVERGENCE", convergence);
    let sc = match Scenario::from_text(&text, Origin::Builtin("its-test".into())) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let mut m = sc.new_machine().expect("builds");
    m.run().expect("runs");
    Report::new(&sc, &m)
}

/// Even lanes load a[tid] and add 1, odd lanes load b[tid] and double it;
/// each path is one global load and its consumer.
const LATENCY_SPLIT: &str = r#"
name: latency split
machine: {convergence: CONVERGENCE}
launch: {threads: 32}
memory:
  a: {type: f32, len: 32, init: "i"}
  b: {type: f32, len: 32, init: "100 + i"}
  out: {type: f32, len: 32}
constants: {0x160: a, 0x164: b, 0x168: out}
program: |
  S2R R0, SR_TID.X
  IMAD R2, R0, 4, c[0x0][0x160]
  IMAD R4, R0, 4, c[0x0][0x164]
  IMAD R6, R0, 4, c[0x0][0x168]
  LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT
  ISETP.NE.AND P0, PT, R1, RZ, PT
  BSSY B0, join
  @P0 BRA odd
  LDG.E R8, [R2]
  FADD R8, R8, 1.0
  BRA join
  odd:
  LDG.E R8, [R4]
  FMUL R8, R8, 2.0
  join:
  BSYNC B0
  STG.E [R6], R8
  EXIT
"#;

#[test]
fn latency_bound_split_costs_max_under_its_and_sum_on_the_stack() {
    let stack = run(LATENCY_SPLIT, "stack");
    let its = run(LATENCY_SPLIT, "its");
    // Prologue: S2R..BRA issue by cycle 15, so the paths start at 16.
    // Each path: its load (400) and the consumer's stall (4): T = 404.
    // Epilogue: BSYNC, STG, EXIT: 3 cycles.
    let (prologue, t_path, epilogue) = (16.0, 404.0, 3.0);
    let stack_model = prologue + 2.0 * t_path + epilogue; // 827
    let its_model = prologue + t_path + epilogue; // 423
    let within = |actual: u64, model: f64| (actual as f64 - model).abs() <= 0.1 * model;
    assert!(
        within(stack.cycles, stack_model),
        "stack {} vs {stack_model}",
        stack.cycles
    );
    assert!(
        within(its.cycles, its_model),
        "its {} vs {its_model}",
        its.cycles
    );
    // The same instructions issue in both: a group arrives at BSYNC
    // without issuing it; the merged warp issues it once.
    assert_eq!(stack.issued, its.issued);
    assert_eq!(
        stack.thread_inst_executed_pred_on,
        its.thread_inst_executed_pred_on
    );
}

/// An ALU-bound split: ten dependent FFMAs on each side.
const ALU_SPLIT: &str = r#"
name: alu split
machine: {convergence: CONVERGENCE}
launch: {threads: 32}
inputs: {R0: "lane"}
program: |
  LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT
  ISETP.NE.AND P0, PT, R1, RZ, PT
  BSSY B0, join
  @P0 BRA odd
  FFMA R2, R2, 1.5, 1.0
  FFMA R2, R2, 1.5, 1.0
  FFMA R2, R2, 1.5, 1.0
  FFMA R2, R2, 1.5, 1.0
  BRA join
  odd:
  FFMA R2, R2, 0.5, 1.0
  FFMA R2, R2, 0.5, 1.0
  FFMA R2, R2, 0.5, 1.0
  FFMA R2, R2, 0.5, 1.0
  join:
  BSYNC B0
  EXIT
"#;

#[test]
fn alu_bound_split_costs_the_sum_in_both_models() {
    let stack = run(ALU_SPLIT, "stack");
    let its = run(ALU_SPLIT, "its");
    // Nothing to hide: every FFMA waits 4 cycles for the previous one, in
    // whichever order the paths run. Both models take the same time.
    assert_eq!(stack.cycles, its.cycles);
    assert_eq!(stack.issued, its.issued);
    // LOP3, ISETP, BSSY, BRA, the odd side's 4 FFMAs, the even side's 4
    // FFMAs and its BRA join, BSYNC, EXIT: 2 + 1 + 1 + 4 + 4 + 1 + 1 + 1.
    assert_eq!(stack.issued, 15);
}

/// A diamond followed by four instructions, with or without the BSSY/BSYNC
/// a Volta compiler emits around it.
const DIAMOND: &str = r#"
name: diamond
machine: {convergence: its}
launch: {threads: 32}
inputs: {R0: "lane"}
program: |
  ISETP.LT.AND P0, PT, R0, 16, PT
  SYNC_START
  @P0 BRA low
  FADD R1, R1, 2.0
  BRA join
  low:
  FADD R1, R1, 1.0
  join:
  SYNC_END
  FADD R2, R1, 1.0
  FADD R3, R2, 1.0
  FADD R4, R3, 1.0
  FADD R5, R4, 1.0
  EXIT
"#;

#[test]
fn without_bssy_its_groups_stay_split_after_the_branch() {
    let synced = DIAMOND
        .replace("SYNC_START", "BSSY B0, join")
        .replace("SYNC_END", "BSYNC B0");
    let unsynced = DIAMOND
        .replace("SYNC_START", "NOP")
        .replace("SYNC_END", "NOP");
    let with = run(&synced, "its");
    let without = run(&unsynced, "its");
    // The four FADDs after the join: pcs 8..11 (BSYNC or NOP is pc 7).
    let after = |r: &Report| -> (u64, u64) {
        r.pcs[8..12].iter().fold((0, 0), |(e, a), p| {
            (e + p.executions, a + p.thread_inst_executed)
        })
    };
    // With the barrier the warp meets again: each FADD once with 32 lanes.
    assert_eq!(after(&with), (4, 128));
    // Without it the two groups never meet: each FADD twice with 16.
    assert_eq!(after(&without), (8, 128));
    let eff = |r: &Report| r.simd_efficiency.expect("issued");
    assert!(
        eff(&without) < eff(&with),
        "{} vs {}",
        eff(&without),
        eff(&with)
    );
}

#[test]
fn a_stopped_run_reports_the_barriers_its_warps_wait_at() {
    let sc = Scenario::from_text(CROSSED, Origin::Builtin("crossed".into())).expect("loads");
    let mut m = sc.new_machine().expect("builds");
    assert!(m.run().is_err());
    let r = Report::new(&sc, &m);
    let w = &r.warps[0];
    // Every lane waits: no group can issue.
    assert!(w.groups.is_empty());
    let bars: Vec<(u8, u64, u64)> = w
        .barriers
        .iter()
        .map(|b| (b.barrier, b.participants, b.arrived))
        .collect();
    // B0: all 8 lanes take part, lanes 4..7 arrived; B1: lanes 0..3.
    assert_eq!(bars, vec![(0, 0xff, 0xf0), (1, 0xff, 0x0f)]);
    assert!(
        r.error
            .as_deref()
            .unwrap_or("")
            .contains("line 11, line 14")
    );
}
