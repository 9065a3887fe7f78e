//! `warpstep run --buffers`: the final contents of buffers in the report,
//! typed, and `expect:` on buffer elements, through the real binary.

use serde_json::{Value, json};

mod support;

/// Four threads store tid, as u32, to `out[tid]`; `a` (f64) and `b` (u8)
/// keep their initial contents. By hand: out = [0, 1, 2, 3], a = [0, 1.5,
/// 3, 4.5], b = [1, 255, 255] (-1 as a u8).
const SCENARIO: &str = "name: buffers
launch: {threads: 4}
memory:
  a: {type: f64, len: 4, init: \"i * 1.5\"}
  b: {type: u8, init: [1, 255, -1]}
  out: {type: u32, len: 4}
constants: {0x160: out}
program: |
  S2R R0, SR_TID.X
  IMAD R4, R0, 4, c[0x0][0x160]
  STG.E [R4], R0
  EXIT
expect:
  buffers.out: [0, 1, 2, 3]
  buffers.out.3: 3
";

fn run(text: &str, args: &[&str]) -> (i32, String, String) {
    support::run_text("run_buffers", text, args)
}

#[test]
fn the_report_holds_the_buffers_asked_for() {
    let (code, out, err) = run(SCENARIO, &["--format", "json", "--buffers", "out,a,b"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        v["buffers"],
        json!({"out": [0, 1, 2, 3], "a": [0.0, 1.5, 3.0, 4.5], "b": [1, 255, 255]})
    );
    assert!(
        v["expect"]
            .as_array()
            .is_some_and(|e| e.iter().all(|r| r["ok"] == json!(true)))
    );
    // Without --buffers the report has none, though `expect:` checked them.
    let (_, out, _) = run(SCENARIO, &["--format", "json"]);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v.get("buffers"), None);
    assert_eq!(v["expect"][0]["actual"], json!([0, 1, 2, 3]));
    // The text report has a section of its own.
    let (_, out, _) = run(SCENARIO, &["--buffers", "all"]);
    assert!(
        out.contains("buffers (final contents)\n  a (4 elements)\n    [   0] 0.0 1.5 3.0 4.5\n"),
        "{out}"
    );
    assert!(
        out.contains("  out (4 elements)\n    [   0] 0 1 2 3\n"),
        "{out}"
    );
}

#[test]
fn a_wrong_buffer_is_a_failed_expectation_or_an_error() {
    let wrong = SCENARIO.replace("buffers.out.3: 3", "buffers.out.3: 4");
    let (code, out, _) = run(&wrong, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL buffers.out.3 = 4 (actual 3)"), "{out}");
    let (code, _, err) = run(SCENARIO, &["--buffers", "out,ot"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("has no buffer `ot`: its buffers are a, b, out; did you mean `out`?"),
        "{err}"
    );
}
