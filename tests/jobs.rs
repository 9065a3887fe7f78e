//! `--jobs`: a comparison grid's variants and `warpstep test`'s scenarios
//! run side by side, and what is printed is the same byte for byte for any
//! number of jobs. The reference is the serial run (`--jobs 1`), and each
//! variant of a grid is also checked against the same machine run on its
//! own (`run` without a grid, no other run beside it).

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

mod support;

fn warpstep(args: &[&str]) -> Output {
    support::warpstep_output(args)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Everything a run printed, and how it ended.
fn seen(o: &Output) -> (Option<i32>, String, String) {
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

/// Multi-SM machines: the histogram (2 blocks, shared and global
/// atomics) on 1, 2 and 4 SMs under both models and both policies (12
/// variants), and the large grid (3907 blocks) on 2 and 8 SMs.
const GRIDS: [&[&str]; 2] = [
    &[
        "real-histogram-shared",
        "--sms",
        "1,2,4",
        "--convergence",
        "stack,its",
        "--policy",
        "lrr,gto",
    ],
    &["bounds-check-large-grid", "--sms", "2,8"],
];

#[test]
fn a_grid_reports_the_same_bytes_for_one_two_and_eight_jobs() {
    for grid in GRIDS {
        for format in ["json", "text"] {
            let run = |jobs: &str| {
                let mut args = vec!["run"];
                args.extend_from_slice(grid);
                args.extend_from_slice(&["--format", format, "--jobs", jobs]);
                seen(&warpstep(&args))
            };
            let serial = run("1");
            assert_eq!(serial.0, Some(0), "{grid:?} {format}: {}", serial.2);
            for jobs in ["2", "8"] {
                assert!(
                    run(jobs) == serial,
                    "{grid:?} --format {format} --jobs {jobs} differs from --jobs 1"
                );
            }
        }
    }
}

/// The grid's JSON entry for each variant is the report of that machine
/// run alone (less the `variant` label the grid adds).
#[test]
fn each_variant_of_a_parallel_grid_is_its_machine_run_alone() {
    let grid = warpstep(&[
        "run",
        "real-histogram-shared",
        "--sms",
        "1,4",
        "--policy",
        "lrr,gto",
        "--format",
        "json",
        "--jobs",
        "4",
    ]);
    assert_eq!(grid.status.code(), Some(0), "{}", text(&grid.stderr));
    let list: Vec<Value> = serde_json::from_slice(&grid.stdout).expect("a JSON list");
    // The grid's order: its axes in a fixed order (the policy before the
    // SMs), the first varying slowest.
    let order = [("1", "lrr"), ("4", "lrr"), ("1", "gto"), ("4", "gto")];
    assert_eq!(list.len(), order.len());
    for (mut entry, (sms, policy)) in list.into_iter().zip(order) {
        let label = entry["variant"].as_str().map(String::from);
        assert_eq!(
            label.as_deref(),
            Some(&*format!("policy={policy} sms={sms}"))
        );
        if let Some(map) = entry.as_object_mut() {
            map.remove("variant");
        }
        let alone = warpstep(&[
            "run",
            "real-histogram-shared",
            "--sms",
            sms,
            "--policy",
            policy,
            "--format",
            "json",
        ]);
        let alone: Value = serde_json::from_slice(&alone.stdout).expect("JSON");
        assert_eq!(entry, alone, "sms={sms} policy={policy}");
    }
}

fn scratch(name: &str) -> PathBuf {
    support::fresh_dir("jobs", name)
}

/// One warp, two ALU instructions and EXIT: 3 issued (counted by hand).
fn scenario(name: &str, issued: u32) -> String {
    format!(
        "name: {name}\nlaunch: {{threads: 32}}\nprogram: |\n  IADD R1, R0, 1\n  IADD R2, R0, 2\n  EXIT\nexpect:\n  issued: {issued}\n"
    )
}

#[test]
fn test_prints_the_same_lines_in_the_same_order_for_any_number_of_jobs() {
    let dir = scratch("test_order");
    // Eight that pass, one whose expectation is wrong, one that does not
    // load, one with nothing to check; named so that directory order
    // (sorted) interleaves them.
    for i in 0..8 {
        std::fs::write(
            dir.join(format!("a{i}.yaml")),
            scenario(&format!("pass {i}"), 3),
        )
        .expect("write");
    }
    std::fs::write(dir.join("b-wrong.yaml"), scenario("wrong", 4)).expect("write");
    std::fs::write(
        dir.join("c-broken.yaml"),
        "name: broken\nlaunch: {threads: 32}\nprogram: |\n  NOPE R1\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("d-nothing.yaml"),
        "name: nothing\nlaunch: {threads: 32}\nprogram: |\n  EXIT\n",
    )
    .expect("write");
    let path = dir.to_string_lossy().into_owned();
    let serial = seen(&warpstep(&["test", &path, "--jobs", "1"]));
    assert_eq!(serial.0, Some(1), "a failure ends with 1");
    let lines: Vec<String> = serial.1.lines().map(|l| l.replace(&path, "DIR")).collect();
    let mut want: Vec<String> = (0..8)
        .map(|i| format!("ok   DIR/a{i}.yaml  (pass {i})"))
        .collect();
    want.push("FAIL DIR/b-wrong.yaml  (wrong): issued expected 4 got 3".into());
    want.push("FAIL DIR/c-broken.yaml: does not load".into());
    want.push("--   DIR/d-nothing.yaml: no expect: block".into());
    want.push("8 passed, 2 failed".into());
    assert_eq!(lines, want);
    assert!(
        serial.2.contains("NOPE"),
        "the load error names the opcode: {}",
        serial.2
    );
    for jobs in ["2", "3", "8"] {
        let o = seen(&warpstep(&["test", &path, "--jobs", jobs]));
        assert!(
            o == serial,
            "--jobs {jobs}: {o:?}\nagainst --jobs 1: {serial:?}"
        );
    }
}

#[test]
fn jobs_must_be_a_whole_number_from_one() {
    for bad in ["0", "many", "100000"] {
        let o = warpstep(&["run", "divergent-loop", "--jobs", bad]);
        assert_eq!(o.status.code(), Some(2), "--jobs {bad}");
        let err = text(&o.stderr);
        assert!(
            err.contains("expected a whole number of jobs from 1 to 256"),
            "--jobs {bad}: {err}"
        );
    }
    let o = warpstep(&["test", "divergent-loop", "-j", "0"]);
    assert_eq!(o.status.code(), Some(2));
}
