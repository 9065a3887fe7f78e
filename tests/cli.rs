//! The command line as a user meets it: the real binary, its stdout,
//! stderr and exit status (docs/scenario-format.md, "Report" and "Command
//! line").
//!
//! Every expected number is worked out by hand in a comment next to it,
//! from docs/execution-model.md and the control codes it says the
//! assembler derives (alu latency 4: a dependent instruction right after a
//! fixed-latency producer waits 4 cycles, S04; otherwise S01).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod support;
use support::CROSSED;

const BIN: &str = env!("CARGO_BIN_EXE_warpstep");

fn warpstep<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    support::warpstep_output(args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally, not by a signal")
}

/// A fresh directory of this test binary's scratch space.
fn scratch(name: &str) -> PathBuf {
    support::fresh_dir("cli", name)
}

fn write(dir: &Path, file: &str, text: &str) -> PathBuf {
    let p = dir.join(file);
    std::fs::write(&p, text).expect("write scenario");
    p
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", stdout(o)))
}

fn u(v: &Value, path: &str) -> u64 {
    let mut cur = v;
    for seg in path.split('.') {
        cur = match seg.parse::<usize>() {
            Ok(i) => &cur[i],
            Err(_) => &cur[seg],
        };
    }
    cur.as_u64()
        .unwrap_or_else(|| panic!("`{path}` is not an unsigned integer: {cur}"))
}

fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number: {}", v[key]))
}

/// A scenario with hand-computed expectations that all hold.
///
/// MOV R1 at cycle 0; IADD3 reads R1, so MOV carries S04 and IADD3 issues
/// at 4 (S01); EXIT at 5: 6 cycles, 3 issued, 8 of 8 lanes on throughout.
const PASSING: &str = "name: two dependent adds
machine: {warp_width: 8}
launch: {threads: 8}
program: |
  MOV R1, 1
  IADD3 R1, R1, 2, RZ
  EXIT
expect:
  issued: 3
  cycles: 6
  simd_efficiency: 1
  thread_inst_executed: 24
";

/// The same program with one wrong expectation (6 cycles, not 5).
const FAILING: &str = "name: two dependent adds, wrong cycles
machine: {warp_width: 8}
launch: {threads: 8}
program: |
  MOV R1, 1
  IADD3 R1, R1, 2, RZ
  EXIT
expect:
  issued: 3
  cycles: 5
";

/// Four lanes store to a two-element buffer: lanes 2 and 3 fault.
const FAULTING: &str = "name: overrun
launch: {threads: 4}
memory:
  out: {type: u32, len: 2}
constants:
  0x160: out
program: |
  S2R R0, SR_TID.X
  IMAD R4, R0, 4, c[0x0][0x160]
  STG.E [R4], R0
  EXIT
";

// ---------------------------------------------------------------- run

#[test]
fn run_builtin_prints_a_text_report() {
    let o = warpstep(&["run", "divergent-loop"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("cycles"), "{out}");
    assert!(out.contains("SIMD efficiency"), "{out}");
    // The scenario's own hand-computed expectations are listed and hold.
    assert!(out.contains("ok   issued = 160 (actual 160)"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

/// The JSON report of a built-in as a script reads it. Which keys exist is
/// the schema's (`report::keys`, held to the JSON key for key by
/// `tests/report_schema.rs`); here every key of that schema outside the
/// lists is a number in this report (the four names of the run are text).
#[test]
fn json_report_has_every_documented_key() {
    let o = warpstep(&["run", "divergent-loop", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json(&o);
    for k in warpstep::report::keys::accepted() {
        if k.contains(".N") || k.starts_with("ncu.") {
            continue;
        }
        let v = k.split('.').fold(&r, |v, seg| &v[seg]);
        match k.as_str() {
            "scenario" | "file" | "convergence" | "policy" => assert!(v.is_string(), "{k}: {v}"),
            _ => assert!(v.is_number(), "`{k}` is not a number: {v}"),
        }
    }
    // The stall reasons of docs/execution-model.md, exactly.
    let reasons: BTreeSet<&str> = [
        "selected",
        "not_selected",
        "wait",
        "long_scoreboard",
        "short_scoreboard",
        "barrier",
        "branch_resolving",
        "math_pipe_throttle",
        "dispatch_stall",
        "convergence_barrier",
        "exited",
    ]
    .into();
    let keys = |v: &Value| -> BTreeSet<String> {
        v.as_object().expect("an object").keys().cloned().collect()
    };
    let want: BTreeSet<String> = reasons.iter().map(|s| s.to_string()).collect();
    assert_eq!(keys(&r["stalls"]), want);
    let warps = r["warps"].as_array().expect("warps is a list");
    // 128 threads / 32 lanes.
    assert_eq!(warps.len(), 4);
    for w in warps {
        assert_eq!(keys(&w["stalls"]), want);
    }
    let pcs = r["pcs"].as_array().expect("pcs is a list");
    // 12 instructions in the program.
    assert_eq!(pcs.len(), 12);
    for (i, p) in pcs.iter().enumerate() {
        assert!(p["text"].is_string());
        // SASS addresses: 16 bytes an instruction.
        assert_eq!(u(p, "pc"), 16 * i as u64);
    }
    // The program starts on line 26 of the file (`program: |` is line 25).
    assert_eq!(u(&pcs[0], "line"), 26);
    assert_eq!(pcs[0]["text"], "S2R R0, SR_TID.X");
    assert!(r["ncu"]["smsp__thread_inst_executed_per_inst_executed.ratio"].is_number());
    assert!(r["ncu"]["smsp__sass_average_branch_targets_threads_uniform.pct"].is_number());
    assert_eq!(r["faults"], Value::Array(vec![]));
    let expect = r["expect"].as_array().expect("expect is a list");
    assert_eq!(expect.len(), 10, "the scenario writes 10 expectations");
    for e in expect {
        assert!(e["key"].is_string() && e["expected"].is_number());
        assert!(e["actual"].is_number());
        assert_eq!(e["ok"], Value::Bool(true), "{e}");
    }

    // The numbers the scenario's author computed by hand (see its file):
    // 160 issued, sum A 3328, sum P 3200, 32 branches of which 28 split.
    assert_eq!(u(&r, "issued"), 160);
    assert_eq!(u(&r, "thread_inst_executed"), 3328);
    assert_eq!(u(&r, "thread_inst_executed_pred_on"), 3200);
    assert_eq!(u(&r, "branches"), 32);
    assert_eq!(u(&r, "divergent_branches"), 28);
    // The ratios are the counters' ratios (docs/execution-model.md).
    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} != {b}");
    close(f(&r, "simd_efficiency"), 3200.0 / (32.0 * 160.0));
    close(f(&r, "active_lane_efficiency"), 3328.0 / (32.0 * 160.0));
    close(f(&r, "avg_threads_per_inst"), 3328.0 / 160.0);
    close(f(&r, "branch_efficiency"), 4.0 / 32.0);
    close(
        r["ncu"]["smsp__sass_average_branch_targets_threads_uniform.pct"]
            .as_f64()
            .unwrap_or(-1.0),
        12.5,
    );
    close(
        r["ncu"]["smsp__thread_inst_executed_per_inst_executed.ratio"]
            .as_f64()
            .unwrap_or(-1.0),
        20.8,
    );
    let cycles = u(&r, "cycles") as f64;
    close(f(&r, "issue_slot_utilization"), 160.0 / cycles);
    // Per-warp counters add up to the totals.
    for k in [
        "issued",
        "thread_inst_executed",
        "thread_inst_executed_pred_on",
        "branches",
        "divergent_branches",
    ] {
        let sum: u64 = warps.iter().map(|w| u(w, k)).sum();
        assert_eq!(sum, u(&r, k), "sum of warps[].{k}");
        if !k.contains("branches") {
            let field = if k == "issued" { "executions" } else { k };
            let sum: u64 = pcs.iter().map(|p| u(p, field)).sum();
            assert_eq!(sum, u(&r, k), "sum of pcs[].{field}");
        }
    }
}

/// Reads the `  label      value` rows of the text report (`* label` in
/// a comparison, for a row whose values differ).
fn text_row<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find_map(|l| {
            let l = l.strip_prefix("  ").or_else(|| l.strip_prefix("* "))?;
            let rest = l.strip_prefix(label)?;
            rest.starts_with("  ").then(|| rest.trim())
        })
        .unwrap_or_else(|| panic!("no row `{label}` in:\n{text}"))
}

fn first_word(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or("")
}

#[test]
fn text_table_shows_the_json_numbers() {
    for name in ["divergent-loop", "partial-warp", "data-branch-its"] {
        let t = stdout(&warpstep(&["run", name]));
        let r = json(&warpstep(&["run", name, "--format", "json"]));
        let num = |k: &str| u(&r, k).to_string();
        let fix = |k: &str, d: usize| match r[k].as_f64() {
            Some(x) => format!("{x:.d$}"),
            None => "—".to_string(),
        };
        assert_eq!(first_word(text_row(&t, "cycles")), num("cycles"), "{name}");
        assert_eq!(
            first_word(text_row(&t, "warps launched")),
            num("warps_launched")
        );
        assert_eq!(first_word(text_row(&t, "issued")), num("issued"));
        assert_eq!(
            first_word(text_row(&t, "SIMD efficiency")),
            fix("simd_efficiency", 3)
        );
        assert_eq!(
            first_word(text_row(&t, "active-lane efficiency")),
            fix("active_lane_efficiency", 3)
        );
        assert_eq!(
            first_word(text_row(&t, "avg threads per inst")),
            fix("avg_threads_per_inst", 2)
        );
        assert_eq!(
            first_word(text_row(&t, "branch efficiency")),
            fix("branch_efficiency", 3)
        );
        assert_eq!(
            text_row(&t, "branches"),
            format!(
                "{} ({} divergent)",
                u(&r, "branches"),
                u(&r, "divergent_branches")
            )
        );
        let util = f(&r, "issue_slot_utilization") * 100.0;
        assert_eq!(
            text_row(&t, "issue-slot utilization")
                .split("   ")
                .next()
                .unwrap_or(""),
            format!("{util:.1} %")
        );
        // Stall rows: every non-zero reason, cause then profiler column.
        for (reason, v) in r["stalls"].as_object().expect("stalls") {
            let n = v.as_u64().unwrap_or(0);
            let profiled = u(&r["stalls_profiled"], reason);
            if n == 0 && profiled == 0 {
                continue;
            }
            let row: Vec<&str> = text_row(&t, reason).split_whitespace().collect();
            assert_eq!(
                row,
                [n.to_string(), profiled.to_string()],
                "{name} {reason}"
            );
        }
        // Lane slots: `total = on + off + parked + exited + never`.
        let ls = &r["lane_slots"];
        let line = format!(
            "lane slots  {} = {} on + {} predicated off + {} parked by divergence + {} exited + {} never launched",
            u(ls, "total"),
            u(ls, "predicated_on"),
            u(ls, "predicated_off"),
            u(ls, "divergence"),
            u(ls, "exited"),
            u(ls, "never_launched")
        );
        assert!(t.contains(&line), "{name}: no `{line}` in\n{t}");
        // Memory line.
        let m = &r["memory"];
        let mem = format!(
            "memory  global  {} requests · {} sectors (ideal {}) · {} transactions · {}/{} bytes",
            u(m, "global_requests"),
            u(m, "global_sectors"),
            u(m, "global_sectors_ideal"),
            u(m, "global_transactions"),
            u(m, "requested_bytes"),
            u(m, "transferred_bytes")
        );
        assert!(t.contains(&mem), "{name}: no `{mem}` in\n{t}");
        // One table row per warp: warp, block, issued, sum A, sum P, SIMD,
        // branches, divergent.
        for w in r["warps"].as_array().expect("warps") {
            let simd = w["simd_efficiency"]
                .as_f64()
                .map_or("—".into(), |x| format!("{x:.3}"));
            let want = [
                u(w, "warp").to_string(),
                u(w, "block").to_string(),
                u(w, "issued").to_string(),
                u(w, "thread_inst_executed").to_string(),
                u(w, "thread_inst_executed_pred_on").to_string(),
                simd,
                u(w, "branches").to_string(),
                u(w, "divergent_branches").to_string(),
            ];
            assert!(
                t.lines()
                    .any(|l| l.split_whitespace().collect::<Vec<_>>() == want),
                "{name}: no warp row {want:?} in\n{t}"
            );
        }
        // One program row per pc: pc (hex), line, execs, sum A, sum P.
        for p in r["pcs"].as_array().expect("pcs") {
            let want = [
                format!("{:04x}", u(p, "pc")),
                u(p, "line").to_string(),
                u(p, "executions").to_string(),
                u(p, "thread_inst_executed").to_string(),
                u(p, "thread_inst_executed_pred_on").to_string(),
            ];
            let text = p["text"].as_str().unwrap_or("");
            assert!(
                t.lines().any(|l| {
                    let words: Vec<&str> = l.split_whitespace().collect();
                    words.len() > 5 && words[..5] == want && l.trim_end().ends_with(text)
                }),
                "{name}: no program row {want:?} {text} in\n{t}"
            );
        }
    }
}

#[test]
fn same_scenario_twice_gives_byte_identical_json() {
    for name in ["divergent-loop", "latency-split-its", "occupancy-16-warps"] {
        let a = warpstep(&["run", name, "--format", "json"]);
        let b = warpstep(&["run", name, "--format", "json"]);
        assert_eq!(code(&a), 0, "{name}: {}", stderr(&a));
        assert!(!a.stdout.is_empty());
        assert!(a.stdout == b.stdout, "{name}: two runs differ");
    }
    // Text, and the side-by-side comparison, too.
    let args = ["run", "alu-split-stack", "--convergence", "stack,its"];
    assert!(warpstep(&args).stdout == warpstep(&args).stdout);
}

#[test]
fn convergence_stack_and_its_side_by_side() {
    // latency-split-stack: two paths each waiting on a global load. Under
    // `its` the paths hide each other's latency, so the cycle counts
    // differ (docs/execution-model.md: about T_A + T_B against max(T_A, T_B)).
    let o = warpstep(&["run", "latency-split-stack", "--convergence", "stack,its"]);
    // The scenario's expectations describe its own machine (the stack):
    // they are checked for that column only, and hold.
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let t = stdout(&o);
    let header = t
        .lines()
        .find(|l| l.contains("convergence=stack"))
        .unwrap_or_else(|| panic!("no column header in\n{t}"));
    assert!(header.contains("convergence=its"), "{header}");
    let cycles: Vec<&str> = text_row(&t, "cycles").split_whitespace().collect();
    assert_eq!(cycles.len(), 2, "two columns: {cycles:?}");

    let o = warpstep(&[
        "run",
        "latency-split-stack",
        "--convergence",
        "stack,its",
        "--format",
        "json",
    ]);
    let list = json(&o);
    let list = list.as_array().expect("a JSON list of reports");
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["convergence"], "stack");
    assert_eq!(list[1]["convergence"], "its");
    // The text columns are the JSON reports, in order.
    assert_eq!(
        cycles,
        [
            u(&list[0], "cycles").to_string(),
            u(&list[1], "cycles").to_string()
        ]
    );
    assert!(
        u(&list[1], "cycles") < u(&list[0], "cycles"),
        "its hides one path's load latency behind the other's"
    );
    // The same instructions issue either way: only their timing differs
    // (the groups arrive at BSYNC without issuing it; the merged warp
    // issues it once, as the stack does).
    assert_eq!(u(&list[1], "issued"), u(&list[0], "issued"));
    // A differing row is marked, an equal one is not.
    assert!(t.lines().any(|l| l.starts_with("* cycles")), "{t}");
    assert!(
        t.lines().any(|l| l.starts_with("  branch efficiency")),
        "{t}"
    );
}

// ------------------------------------------------------- exit statuses

#[test]
fn exit_0_when_every_expectation_holds() {
    let d = scratch("exit0");
    let p = write(&d, "pass.yaml", PASSING);
    let o = warpstep(&["run".as_ref(), p.as_os_str()]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let o = warpstep(&[
        "run".as_ref(),
        p.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(code(&o), 0);
    let r = json(&o);
    assert_eq!(u(&r, "cycles"), 6);
    assert_eq!(u(&r, "issued"), 3);
    let e = r["expect"].as_array().expect("expect results");
    assert_eq!(e.len(), 4);
    assert!(e.iter().all(|x| x["ok"] == Value::Bool(true)), "{e:?}");
}

#[test]
fn exit_1_when_an_expectation_fails() {
    let d = scratch("exit1");
    let p = write(&d, "fail.yaml", FAILING);
    let o = warpstep(&["run".as_ref(), p.as_os_str()]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("FAIL cycles = 5 (actual 6)"),
        "{}",
        stdout(&o)
    );
    let o = warpstep(&[
        "run".as_ref(),
        p.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(code(&o), 1);
    let r = json(&o);
    let e = &r["expect"];
    assert_eq!(e[0]["key"], "issued");
    assert_eq!(e[0]["ok"], Value::Bool(true));
    assert_eq!(e[1]["key"], "cycles");
    assert_eq!(e[1]["expected"].as_f64(), Some(5.0));
    assert_eq!(e[1]["actual"].as_u64(), Some(6));
    assert_eq!(e[1]["ok"], Value::Bool(false));
}

#[test]
fn exit_1_when_a_lane_faults() {
    let d = scratch("fault");
    let p = write(&d, "fault.yaml", FAULTING);
    let o = warpstep(&[
        "run".as_ref(),
        p.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json(&o);
    let faults = r["faults"].as_array().expect("faults");
    assert_eq!(faults.len(), 2);
    assert_eq!(u(&r, "faults_total"), 2);
    // `out` is the first buffer: base 0x100000; lanes 2 and 3 store at
    // base + 8 and base + 12, past its 8 bytes. STG is the third
    // instruction (pc 0x20), on file line 10.
    for (fault, lane) in faults.iter().zip([2u64, 3]) {
        assert_eq!(u(fault, "lane"), lane);
        assert_eq!(u(fault, "warp"), 0);
        assert_eq!(u(fault, "pc"), 0x20);
        assert_eq!(u(fault, "line"), 10);
        assert_eq!(u(fault, "address"), 0x10_0000 + 4 * lane);
        assert_eq!(fault["kind"], "out_of_bounds");
    }
    // S2R 0 (S04), IMAD 4 (S04: STG reads R4), STG 8, EXIT 9: 10 cycles;
    // EXIT runs with the 2 lanes that did not fault.
    assert_eq!(u(&r, "cycles"), 10);
    assert_eq!(u(&r, "thread_inst_executed"), 4 + 4 + 4 + 2);
    let t = stdout(&warpstep(&["run".as_ref(), p.as_os_str()]));
    assert!(
        t.contains("warp 0 lane 2 pc 0020 line 10: out_of_bounds at 0x100008"),
        "{t}"
    );
}

#[test]
fn exit_1_when_the_run_hits_max_cycles() {
    let d = scratch("maxcycles");
    let p = write(
        &d,
        "spin.yaml",
        "name: spins\nmachine: {max_cycles: 100}\nprogram: |\n  spin:\n  BRA spin\n",
    );
    let o = warpstep(&["run".as_ref(), p.as_os_str()]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("STOPPED"), "{}", stdout(&o));
    let r = json(&warpstep(&[
        "run".as_ref(),
        p.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]));
    assert!(
        r["error"]
            .as_str()
            .unwrap_or("")
            .contains("max_cycles (100)")
    );
    assert_eq!(u(&r, "cycles"), 100);
}

#[test]
fn exit_2_when_a_scenario_cannot_be_loaded() {
    let d = scratch("exit2");
    let p = write(
        &d,
        "broken.yaml",
        "name: t\nprogram: |\n  FFMAA R1, R1, R1, R1\n  EXIT\n",
    );
    let o = warpstep(&["run".as_ref(), p.as_os_str()]);
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty(), "nothing on stdout: {}", stdout(&o));
    let o = warpstep(&["run", "/nonexistent/dir/x.yaml"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn unknown_scenario_name_suggests_the_nearest_builtin() {
    let o = warpstep(&["run", "divergnt-loop"]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(e.contains("divergnt-loop"), "{e}");
    assert!(
        e.contains("did you mean the built-in `divergent-loop`?"),
        "{e}"
    );
    let o = warpstep(&["check", "sched-gtoo"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("`sched-gto`"), "{}", stderr(&o));
}

// ---------------------------------------------------------- check, test, list

#[test]
fn check_exit_statuses() {
    let d = scratch("check");
    let good = write(&d, "good.yaml", PASSING);
    let bad = write(&d, "bad.yaml", "name: t\nprogram: |\n  MOV R1, RZ\n");
    let o = warpstep(&["check".as_ref(), good.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("ok  two dependent adds"),
        "{}",
        stdout(&o)
    );
    let o = warpstep(&["check", "divergent-loop", "sched-lrr"]);
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o).lines().count(), 2);
    // One bad file among good ones: 2, and the good ones are still checked.
    let o = warpstep(&["check".as_ref(), good.as_os_str(), bad.as_os_str()]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout(&o).lines().count(), 1);
    assert!(stderr(&o).contains("bad.yaml:3:3"), "{}", stderr(&o));
}

#[test]
fn check_controls_shows_derived_codes_marked_and_written_ones_as_written() {
    let d = scratch("controls");
    // Derived, by docs/execution-model.md's rules: MOV feeds the next instruction (S04);
    // LDG and MUFU are variable-latency producers, given scoreboards 0 and
    // 1 in turn (W0, W1); their consumers wait on exactly those (B0, B1).
    let p = write(
        &d,
        "derived.yaml",
        "name: derived codes
launch: {threads: 32}
memory:
  data: {type: u32, len: 32, init: \"i\"}
inputs:
  R4: \"data + 4 * tid\"
program: |
  MOV R1, 1
  IADD3 R1, R1, 2, RZ
  LDG.E R2, [R4]
  MUFU.RCP R3, R4
  IADD3 R5, R2, 1, RZ
  FADD R6, R3, 1.0
  EXIT
",
    );
    let o = warpstep(&["check".as_ref(), "--controls".as_ref(), p.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let t = stdout(&o);
    for line in [
        "/*0000*/ [B------:R-:W-:-:S04]* MOV R1, 1",
        "/*0020*/ [B------:R-:W0:-:S01]* LDG.E R2, [R4]",
        "/*0030*/ [B------:R-:W1:-:S01]* MUFU.RCP R3, R4",
        "/*0040*/ [B0-----:R-:W-:-:S01]* IADD3 R5, R2, 1, RZ",
        "/*0050*/ [B-1----:R-:W-:-:S01]* FADD R6, R3, 1.0",
    ] {
        assert!(t.contains(line), "no `{line}` in\n{t}");
    }
    // Every instruction line is marked derived.
    let instr_lines: Vec<&str> = t.lines().filter(|l| l.contains("/*")).collect();
    assert_eq!(instr_lines.len(), 7);
    assert!(instr_lines.iter().all(|l| l.contains("]* ")), "{t}");

    // Written codes, in both spellings, come back as written (normalised to
    // the B-first spelling) and without the mark.
    let p = write(
        &d,
        "written.yaml",
        "name: written codes
program: |
  [B------:R-:W-:-:S02] MOV R1, 1
  [R---:B------:R-:W-:Y:S04] IADD3 R1, R1, 2, RZ
  done:
  [B------:R-:W-:-:S01] EXIT
",
    );
    let o = warpstep(&["check".as_ref(), "--controls".as_ref(), p.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("/*0000*/ [B------:R-:W-:-:S02]  MOV R1, 1"),
        "{t}"
    );
    assert!(
        t.contains("/*0010*/ [B------:R-:W-:Y:S04]  IADD3 R1, R1, 2, RZ"),
        "{t}"
    );
    assert!(t.contains("done:\n"), "labels are listed: {t}");
    assert!(!t.contains("]*"), "nothing derived: {t}");
}

#[test]
fn test_command_counts_passes_and_failures() {
    let d = scratch("test-mixed");
    write(&d, "a_pass.yaml", PASSING);
    write(&d, "b_fail.yaml", FAILING);
    write(&d, "notes.txt", "not a scenario");
    let o = warpstep(&["test".as_ref(), d.as_os_str()]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let t = stdout(&o);
    assert_eq!(t.lines().last(), Some("1 passed, 1 failed"), "{t}");
    assert!(t.contains("FAIL") && t.contains("b_fail.yaml"), "{t}");
    assert!(t.contains("cycles expected 5 got 6"), "{t}");

    let d = scratch("test-pass");
    write(&d, "a_pass.yaml", PASSING);
    let o = warpstep(&["test".as_ref(), d.as_os_str()]);
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o).lines().last(), Some("1 passed, 0 failed"));

    // A faulting scenario fails `test` unless it expects the faults.
    let d = scratch("test-fault");
    write(&d, "f.yaml", &format!("{FAULTING}expect:\n  issued: 4\n"));
    let o = warpstep(&["test".as_ref(), d.as_os_str()]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("2 lanes faulted"), "{}", stdout(&o));
    write(
        &d,
        "f.yaml",
        &format!("{FAULTING}expect:\n  faults_total: 2\n"),
    );
    let o = warpstep(&["test".as_ref(), d.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

#[test]
fn list_prints_every_builtin_once_per_line() {
    let o = warpstep(&["list"]);
    assert_eq!(code(&o), 0);
    let t = stdout(&o);
    let names: Vec<&str> = t.lines().map(first_word).collect();
    let mut files: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))
            .expect("scenarios dir")
            .filter_map(|e| {
                let p = e.ok()?.path();
                (p.extension()? == "yaml").then(|| p.file_stem()?.to_str().map(String::from))?
            })
            .collect();
    files.sort();
    assert_eq!(names, files, "one line per scenarios/*.yaml, sorted");
    assert!(names.contains(&"divergent-loop"));
    // Each line carries the scenario's title.
    assert!(t.lines().any(|l| l.starts_with("divergent-loop ")
        && l.ends_with("divergent loop, trip counts 1..8 per lane")));
}

#[test]
fn builtins_all_pass_their_own_expectations() {
    // `test` without paths runs every built-in's hand-computed `expect:`.
    let o = warpstep(&["test"]);
    let t = stdout(&o);
    let n = t.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(
        t.lines().last(),
        Some(format!("{n} passed, 0 failed").as_str()),
        "{t}"
    );
    assert_eq!(code(&o), 0);
}

// ----------------------------------------------------- malformed scenarios

/// One malformed scenario: the file, where the error must point (counted
/// by hand from the text), and what the message must name.
struct Bad {
    file: &'static str,
    text: &'static str,
    line: u32,
    column: u32,
    needles: &'static [&'static str],
}

const MALFORMED: &[Bad] = &[
    // The flow mapping opened on line 2 runs on into line 3; at `:` after
    // `program` (column 8) a `,` or `}` was due.
    Bad {
        file: "yaml_syntax.yaml",
        text: "name: t\nmachine: {warp_width: 32\nprogram: EXIT\n",
        line: 3,
        column: 8,
        needles: &["invalid YAML", "did not find expected ',' or '}'"],
    },
    Bad {
        file: "tab_indent.yaml",
        text: "name: t\nmachine:\n\twarp_width: 8\nprogram: EXIT\n",
        line: 3,
        column: 2,
        needles: &["tab", "indent with spaces"],
    },
    Bad {
        file: "unknown_key.yaml",
        text: "name: t\nmachine:\n  warp_widht: 32\nprogram: EXIT\n",
        line: 3,
        column: 3,
        needles: &[
            "unknown key `warp_widht` in `machine`",
            "did you mean `warp_width`?",
        ],
    },
    Bad {
        file: "misplaced_key.yaml",
        text: "name: t\nwarp_width: 32\nprogram: EXIT\n",
        line: 2,
        column: 1,
        needles: &["unknown key `warp_width`", "belongs under `machine:`"],
    },
    Bad {
        file: "duplicate_key.yaml",
        text: "name: t\nname: u\nprogram: EXIT\n",
        line: 2,
        column: 1,
        needles: &["duplicate key `name`"],
    },
    // `  threads: many`: the value starts at column 12.
    Bad {
        file: "wrong_type.yaml",
        text: "name: t\nlaunch:\n  threads: many\nprogram: EXIT\n",
        line: 3,
        column: 12,
        needles: &["`launch.threads` must be an integer", "many"],
    },
    Bad {
        file: "out_of_range.yaml",
        text: "name: t\nmachine:\n  warp_width: 0\nprogram: EXIT\n",
        line: 3,
        column: 15,
        needles: &["`machine.warp_width` is 0, out of range", "from 1 to 64"],
    },
    Bad {
        file: "bad_enum.yaml",
        text: "name: t\nmachine: {convergence: stak}\nprogram: EXIT\n",
        line: 2,
        column: 24,
        needles: &[
            "`machine.convergence` cannot be `stak`",
            "did you mean `stack`?",
        ],
    },
    // `  R1: "tid +* 2"`: the quote is column 7, `*` column 13.
    Bad {
        file: "bad_expression.yaml",
        text: "name: t\ninputs:\n  R1: \"tid +* 2\"\nprogram: EXIT\n",
        line: 3,
        column: 13,
        needles: &["unexpected `*` in `inputs.R1`"],
    },
    Bad {
        file: "unknown_buffer.yaml",
        text: "name: t\nmemory:\n  data: {type: u32, len: 32}\ninputs:\n  R4: \"dta + 4 * tid\"\nprogram: EXIT\n",
        line: 5,
        column: 8,
        needles: &["unknown name `dta` in `inputs.R4`", "did you mean `data`?"],
    },
    Bad {
        file: "bad_register.yaml",
        text: "name: t\ninputs:\n  R300: 1\nprogram: EXIT\n",
        line: 3,
        column: 3,
        needles: &["`R300` is out of range", "R0..R254"],
    },
    // 5 values for 4 threads: the fifth (column 20) is one too many.
    Bad {
        file: "list_too_long.yaml",
        text: "name: t\nlaunch: {threads: 4}\ninputs:\n  R1: [1, 2, 3, 4, 5]\nprogram: EXIT\n",
        line: 4,
        column: 20,
        needles: &["`inputs.R1` lists 5 values but the launch has 4 threads"],
    },
    Bad {
        file: "init_length.yaml",
        text: "name: t\nmemory:\n  d: {type: u32, len: 3, init: [1, 2]}\nprogram: EXIT\n",
        line: 3,
        column: 23,
        needles: &["`len` is 3 but `init` lists 2 values"],
    },
    // Program line 2 is file line 4; the text is indented 2.
    Bad {
        file: "unknown_opcode.yaml",
        text: "name: t\nprogram: |\n  MOV R1, RZ\n  FFMAA R1, R1, R1, R1\n  EXIT\n",
        line: 4,
        column: 3,
        needles: &["unknown opcode `FFMAA`", "did you mean `FFMA`?"],
    },
    Bad {
        file: "bad_operand.yaml",
        text: "name: t\nprogram: |\n  IADD3 R1, R1, Q5, RZ\n  EXIT\n",
        line: 3,
        column: 17,
        needles: &["`Q5` is not a register", "IADD3 Rd"],
    },
    Bad {
        file: "bad_guard.yaml",
        text: "name: t\nprogram: |\n  @P9 MOV R1, RZ\n  EXIT\n",
        line: 3,
        column: 3,
        needles: &["bad guard `@P9`"],
    },
    Bad {
        file: "missing_label.yaml",
        text: "name: t\nprogram: |\n  BRA nowhere\n  EXIT\n",
        line: 3,
        column: 7,
        needles: &["no label `nowhere`"],
    },
    Bad {
        file: "bad_control.yaml",
        text: "name: t\nprogram: |\n  [B------:R-:W9:-:S04] MOV R1, RZ\n  EXIT\n",
        line: 3,
        column: 3,
        needles: &["malformed control code", "`W9`", "`W0`..`W5`"],
    },
    Bad {
        file: "falls_off_end.yaml",
        text: "name: t\nprogram: |\n  MOV R1, RZ\n  IADD3 R1, R1, 1, RZ\n",
        line: 4,
        column: 3,
        needles: &["can run past its last instruction", "EXIT"],
    },
    // `  MOV R1, c[0x0][0x160]`: `c[` starts at column 11.
    Bad {
        file: "constant_not_set.yaml",
        text: "name: t\nprogram: |\n  MOV R1, c[0x0][0x160]\n  EXIT\n",
        line: 3,
        column: 11,
        needles: &[
            "c[0x0][0x160] is not set",
            "`0x160: VALUE` under `constants:`",
        ],
    },
    Bad {
        file: "unknown_expect_key.yaml",
        text: "name: t\nprogram: |\n  EXIT\nexpect:\n  simd_eficiency: 0.5\n",
        line: 5,
        column: 3,
        needles: &["simd_eficiency", "did you mean `simd_efficiency`?"],
    },
    Bad {
        file: "expect_bound.yaml",
        text: "name: t\nprogram: EXIT\nexpect:\n  cycles: {min: 5, maxx: 3}\n",
        line: 4,
        column: 20,
        needles: &[
            "unknown key `maxx` in `expect.cycles`",
            "did you mean `max`?",
        ],
    },
    // A label at column 0 ends the `program: |` block: YAML reads
    // `loop:` as a new top-level key.
    Bad {
        file: "label_at_column_0.yaml",
        text: "name: t\nprogram: |\n  MOV R1, RZ\nloop:\n  IADD3 R1, R1, 1, RZ\n  EXIT\n",
        line: 4,
        column: 1,
        needles: &["unknown key `loop`"],
    },
    Bad {
        file: "both_launch_forms.yaml",
        text: "name: t\nlaunch: {threads: 32, blocks: 2, block_dim: 16}\nprogram: EXIT\n",
        line: 2,
        column: 19,
        needles: &["`launch.threads` cannot be combined with `blocks`"],
    },
];

#[test]
fn malformed_scenarios_exit_2_with_file_line_column_and_the_culprit() {
    assert!(MALFORMED.len() >= 15);
    let d = scratch("malformed");
    let mut problems = Vec::new();
    for bad in MALFORMED {
        let p = write(&d, bad.file, bad.text);
        let at = format!("{}:{}:{}", p.display(), bad.line, bad.column);
        for cmd in ["run", "check"] {
            let o = warpstep(&[cmd.as_ref(), p.as_os_str()]);
            let err = stderr(&o);
            if code(&o) != 2 {
                problems.push(format!("{cmd} {}: exit {:?}\n{err}", bad.file, code(&o)));
                continue;
            }
            if !err.contains(&at) {
                problems.push(format!("{cmd} {}: no `{at}` in\n{err}", bad.file));
            }
            for n in bad.needles {
                if !err.contains(n) {
                    problems.push(format!("{cmd} {}: no `{n}` in\n{err}", bad.file));
                }
            }
            if err.contains("panicked") {
                problems.push(format!("{cmd} {}: panicked\n{err}", bad.file));
            }
            // The offending line is echoed under the position.
            let src_line = bad.text.lines().nth(bad.line as usize - 1).unwrap_or("");
            if !err.contains(src_line) {
                problems.push(format!("{cmd} {}: source line not shown\n{err}", bad.file));
            }
            if !o.stdout.is_empty() {
                problems.push(format!("{cmd} {}: stdout not empty", bad.file));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// A label at column 0 inside `program: |` is the likeliest YAML slip a
/// SASS user makes (listings put labels at column 0). The message today is
/// "unknown key `loop`" with the hint "keys are lowercase, with `_`
/// between words", which points away from the cause.
#[test]
fn label_at_column_0_hint_explains_the_block_ended() {
    let d = scratch("label-col0");
    let p = write(
        &d,
        "l.yaml",
        "name: t\nprogram: |\n  MOV R1, RZ\nloop:\n  IADD3 R1, R1, 1, RZ\n  EXIT\n",
    );
    let err = stderr(&warpstep(&["check".as_ref(), p.as_os_str()]));
    let hint = err.lines().find(|l| l.contains("= hint:")).unwrap_or("");
    assert!(
        hint.contains("program") && hint.contains("indent"),
        "the hint should say the label ended the `program: |` block and must be indented: {err}"
    );
}

/// Assembler hints that name a line use program lines, while every
/// position around them is a file line.
#[test]
fn duplicate_label_hint_names_the_file_line() {
    let d = scratch("dup-label");
    // `a:` first on file line 3 (program line 1), again on file line 5.
    let p = write(
        &d,
        "d.yaml",
        "name: t\nprogram: |\n  a:\n  MOV R1, RZ\n  a:\n  EXIT\n",
    );
    let err = stderr(&warpstep(&["check".as_ref(), p.as_os_str()]));
    assert!(err.contains("d.yaml:5:3"), "{err}");
    // File line 3, two lines above: the hint counts back.
    assert!(err.contains("first defined 2 lines above"), "{err}");
}

/// `warpstep run X --format json | head -1` is how scripts peek at a
/// report. Rust ignores SIGPIPE, so `println!` to a closed pipe panics and
/// the panic message goes to stderr.
#[cfg(unix)]
#[test]
fn closed_stdout_pipe_is_not_a_crash() {
    // 512 warps: a report of about 290 KB, far more than a pipe holds, so
    // once `head` has its 100 bytes and exits, a later write must fail. A
    // shell pipeline owns the pipe: no other test's child can hold its
    // read end open.
    let d = scratch("pipe");
    let p = write(
        &d,
        "many.yaml",
        "name: many warps\nlaunch: {blocks: 16, block_dim: 1024}\nprogram: EXIT\n",
    );
    let o = Command::new("sh")
        .arg("-c")
        .arg("\"$0\" run \"$1\" --format json | head -c 100 >/dev/null")
        .arg(BIN)
        .arg(&p)
        .output()
        .expect("sh runs");
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_deadlocked_run_stops_with_exit_1() {
    let d = scratch("deadlock");
    let p = write(&d, "crossed.yaml", CROSSED);
    let o = warpstep(&[
        "run".as_ref(),
        p.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json(&o);
    let err = r["error"].as_str().unwrap_or("");
    assert!(err.contains("deadlock at cycle 2"), "{err}");
    assert_eq!(u(&r, "issued"), 3);
}

#[test]
fn deadlock_message_names_the_file_line_of_a_waiting_bsync() {
    let d = scratch("deadlock-line");
    let p = write(&d, "crossed.yaml", CROSSED);
    let o = warpstep(&["run".as_ref(), p.as_os_str()]);
    let t = stdout(&o);
    let stopped = t.lines().find(|l| l.starts_with("STOPPED")).unwrap_or("");
    assert!(
        stopped.contains("line 11") || stopped.contains("line 14"),
        "{stopped}"
    );
}

#[test]
fn machine_overrides_rerun_the_scenario() {
    // divergent-loop at 8 lanes: 128 threads make 16 warps, and every
    // warp still holds trip counts 1..8 (tid % 8 + 1), so each runs 8
    // trips: 5 setup + 8 x 4 + 3 tail = 40 issues, 640 in all. Lane-work
    // is unchanged: per warp 8 x 8 (setup, tail) + 3 x 36 (body, 9 - k
    // lanes in trip k) + 28 (BRA, 8 - k lanes go on) = 200; x 16 = 3200.
    let r = json(&warpstep(&[
        "run",
        "divergent-loop",
        "--warp-width",
        "8",
        "--format",
        "json",
    ]));
    assert_eq!(u(&r, "warp_width"), 8);
    assert_eq!(u(&r, "warps_launched"), 16);
    assert_eq!(u(&r, "issued"), 640);
    assert_eq!(u(&r, "thread_inst_executed_pred_on"), 3200);
    // sum A adds the BRA's 36 active lanes a warp: (64 + 4 x 36) x 16.
    assert_eq!(u(&r, "thread_inst_executed"), 3328);
    assert_eq!(f(&r, "simd_efficiency"), 3200.0 / (640.0 * 8.0));
}

#[test]
fn bad_overrides_exit_2() {
    let o = warpstep(&["run", "divergent-loop", "--convergence", "foo"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("`foo` is not one of stack, its"),
        "{}",
        stderr(&o)
    );
    let o = warpstep(&["run", "divergent-loop", "--warp-width", "65"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("`machine.warp_width` is 65, out of range"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
}

/// Written control codes that break a dependence load fine, but `check`
/// runs them and warns: the IADD3 at pc 0x20 (file line 8) reads R3 one
/// cycle after the load issued at 4; it lands at 404, 399 cycles later.
#[test]
fn check_warns_about_hazards_in_written_control_codes() {
    let d = scratch("hazard-check");
    let p = write(
        &d,
        "h.yaml",
        "name: hazard\nlaunch: {threads: 32}\nmemory:\n  data: {type: u32, len: 32}\n\
         program: |\n  [B------:R-:W-:-:S04] MOV R2, 0x100000\n  [B------:R-:W2:-:S01] LDG.E R3, [R2]\n\
         \x20 [B------:R-:W-:-:S01] IADD3 R6, R3, 1, RZ\n  [B------:R-:W-:-:S01] EXIT\n",
    );
    let o = warpstep(&["check".as_ref(), p.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("h.yaml:8: read_after_write on R3 by 399 cycles (warp 0, pc 0020)"),
        "{t}"
    );
}

/// Errors that end a command are one plain line on stderr: no report with
/// a source location, no backtrace, no colour codes, even with
/// `RUST_BACKTRACE` set. What the user gave cannot be used: exit 2 (a
/// stepper with no terminal among them, as `replay` does); a file that
/// cannot be made: exit 1, its cause after a colon.
#[test]
fn errors_are_one_clean_line() {
    let o = Command::new(BIN)
        .arg("divergent-loop")
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "error: the stepper needs a terminal; `warpstep run SCENARIO` reports without one\n"
    );
    let d = scratch("clean-errors");
    let out = d.join("no-such-dir").join("x.cast");
    let o = Command::new(BIN)
        .args(["record", "divergent-loop", "--keys", "q", "-o"])
        .arg(&out)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("runs");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("error: cannot create `{}`: ", out.display())),
        "{err}"
    );
    assert!(
        err.contains("(os error 2)") && !err.contains('\x1b'),
        "{err}"
    );
}

/// `check DIR` checks the scenario files below it, as `test DIR` does;
/// a directory with none is an error.
#[test]
fn check_takes_a_directory() {
    let d = scratch("check-dir");
    write(
        &d,
        "a.yaml",
        "name: first\nlaunch: {blocks: 1, block_dim: 32}\nprogram: EXIT\n",
    );
    write(
        &d,
        "b.yml",
        "name: second\nlaunch: {blocks: 1, block_dim: 32}\nprogram: EXIT\n",
    );
    write(&d, "notes.txt", "not a scenario\n");
    let o = Command::new(BIN)
        .arg("check")
        .arg(&d)
        .output()
        .expect("runs");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    // Both scenario files, sorted; the text file is not one.
    let names: Vec<&str> = out.lines().filter(|l| l.starts_with("ok  ")).collect();
    assert_eq!(names.len(), 2, "{out}");
    assert!(
        names[0].starts_with("ok  first ") && names[1].starts_with("ok  second "),
        "{out}"
    );
    let empty = d.join("empty");
    std::fs::create_dir_all(&empty).expect("dir");
    let o = Command::new(BIN)
        .arg("check")
        .arg(&empty)
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("no scenario file (*.yaml, *.yml) under the directory"),
        "{}",
        stderr(&o)
    );
}

/// A constant word no instruction reads is said: here `0x170`, where an
/// sm_75 listing's third parameter would be, set for a program that reads
/// only c[0x0][0x160] and its 64-bit pair (0x164 counts as read, as the
/// high word of that pair).
#[test]
fn a_constant_nothing_reads_is_a_warning() {
    let d = scratch("unread-constant");
    let p = write(
        &d,
        "c.yaml",
        "name: c\nlaunch: {blocks: 1, block_dim: 32}\nconstants: {0x160: 4, 0x164: 0, 0x170: 7}\n\
         program: |\n  MOV R1, c[0x0][0x160]\n  EXIT\n",
    );
    let o = warpstep(&["check".as_ref(), p.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(
        err.contains("`constants.0x170` sets c[0x0][0x170], which no instruction reads"),
        "{err}"
    );
}
