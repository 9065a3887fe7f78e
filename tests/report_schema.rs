//! The report's key schema (`report::keys`) against the JSON the binary
//! prints: every key of a full report is either one `expect:` can name or
//! one the schema lists as not checkable, and every key the schema accepts
//! appears in a report. A field added to the report without a key, or a key
//! left behind by a removed field, fails here.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;
use warpstep::report::keys::{self, NOT_CHECKABLE};

mod support;

/// Lanes 0..7 of warp 0 read R0 two cycles before S2R wrote it (the
/// written S01 is too short: a hazard), then every lane stores to shared
/// address `out + 4 * tid`, a global address outside shared memory: 16
/// faults, one per lane of both warps. The `expect:` entry holds.
const FAULTS_AND_HAZARDS: &str = "name: faults and hazards
machine: {warp_width: 8}
launch: {threads: 16}
memory:
  out: {type: u32, len: 16}
constants: {0x160: out}
program: |
  [B------:R-:W-:-:S01] S2R R0, SR_TID.X
  [B------:R-:W-:-:S04] IMAD R4, R0, 4, c[0x0][0x160]
  [B------:R-:W-:-:S04] STS [R4], R0
  [B------:R-:W-:-:S04] EXIT
expect:
  cycles: {min: 1}
";

/// Lanes 4..7 spin in a loop while lanes 0..3 wait for them at `BSYNC B0`:
/// the run stops at `max_cycles` with the warp resident, one group (lanes
/// 4..7 at the loop) and barrier B0 (4 of 8 lanes arrived) in its report.
const STOPPED_MID_SPLIT: &str = "name: stopped mid-split
machine: {warp_width: 8, convergence: its, max_cycles: 20}
launch: {threads: 8}
inputs: {P0: \"lane < 4\"}
program: |
  BSSY B0, join
  @P0 BRA join
  loop:
  BRA loop
  join:
  BSYNC B0
  EXIT
";

/// The JSON report of one run (the exit status is not this test's concern:
/// faults and a deadlock exit 1).
fn report(args: &[&str]) -> Value {
    let o = Command::new(support::BIN)
        .args(["run"])
        .args(args)
        .args(["--format", "json"])
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .output()
        .expect("the warpstep binary runs");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// Every leaf of `v` as (dotted path with real indices, pattern with `N`
/// for indices and `ncu.*` for the ncu group, whether it is a number or
/// null). A key the schema lists as not checkable is one leaf, whatever it
/// holds (`expect.N.expected` may be `{min, max}`).
fn leaves(v: &Value, path: &str, pattern: &str, out: &mut Vec<(String, String, bool)>) {
    if NOT_CHECKABLE.contains(&pattern) {
        out.push((path.into(), pattern.into(), false));
        return;
    }
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}.{b}")
        }
    };
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let pat = if pattern == "ncu" {
                    "ncu.*".into()
                } else if pattern == "buffers" {
                    "buffers.*".into()
                } else {
                    join(pattern, k)
                };
                leaves(x, &join(path, k), &pat, out);
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                leaves(x, &join(path, &i.to_string()), &join(pattern, "N"), out);
            }
        }
        Value::Number(_) | Value::Null => out.push((path.into(), pattern.into(), true)),
        Value::String(_) | Value::Bool(_) => out.push((path.into(), pattern.into(), false)),
    }
}

#[test]
fn every_report_key_is_in_the_schema_and_every_schema_key_in_a_report() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_schema");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let faulting = dir.join("faults.yaml");
    std::fs::write(&faulting, FAULTS_AND_HAZARDS).expect("write scenario");
    let stopped = dir.join("stopped.yaml");
    std::fs::write(&stopped, STOPPED_MID_SPLIT).expect("write scenario");
    // Between them: branches, global memory, expect: and four warps
    // (divergent-loop); shared memory (warp-reduce-race); faults, hazards
    // (FAULTS_AND_HAZARDS, with its buffer's final contents); a run that stopped early with its warp still
    // holding a group and a convergence barrier (STOPPED_MID_SPLIT).
    // A listing with line info (the corpus's seed kernel, `nvdisasm -g`):
    // the `lines` section.
    let seed = dir.join("seed.yaml");
    let mut y = String::from(
        "name: seed\nlaunch: {blocks: 1, block_dim: 64}\n\
         memory:\n  data: {type: f32, len: 64}\nargs: [data, 40]\nprogram: |\n",
    );
    for l in include_str!("kernels/seed.sm_90.nvdisasm").lines() {
        y.push_str(if l.trim().is_empty() { "" } else { "  " });
        y.push_str(l);
        y.push('\n');
    }
    std::fs::write(&seed, y).expect("write scenario");
    let runs = [
        report(&[seed.to_str().expect("UTF-8 path")]),
        report(&["divergent-loop"]),
        report(&["warp-reduce-race"]),
        report(&[faulting.to_str().expect("UTF-8 path"), "--buffers", "all"]),
        report(&[stopped.to_str().expect("UTF-8 path")]),
    ];
    let mut all = Vec::new();
    for r in &runs {
        leaves(r, "", "", &mut all);
    }

    let accepted: BTreeSet<String> = keys::accepted().into_iter().collect();
    let not_checkable: BTreeSet<String> = NOT_CHECKABLE.iter().map(|k| k.to_string()).collect();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for (path, pattern, numeric) in &all {
        seen.insert(pattern.clone());
        let valid = keys::validate(path);
        if not_checkable.contains(pattern) {
            if valid.is_ok() {
                problems.push(format!(
                    "`{path}` is listed as not checkable, but validates"
                ));
            }
        } else if !accepted.contains(pattern) {
            problems.push(format!("`{path}` is in the report, not in report::keys"));
        } else if let Err(e) = valid {
            problems.push(format!("`{path}` is accepted in the schema, but: {e}"));
        } else if !numeric
            && !matches!(
                pattern.as_str(),
                "scenario" | "file" | "convergence" | "policy"
            )
        {
            // The four names of the run are text; `expect:` has always
            // accepted them.
            problems.push(format!("`{path}` validates but holds no number"));
        }
    }
    for k in accepted.iter().chain(&not_checkable) {
        if !seen.contains(k) {
            problems.push(format!("`{k}` is in report::keys, in none of the reports"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What a typo costs: a key outside the schema is refused with the nearest
/// key, and an index past the end of a list is still a valid key (its value
/// is null at run time, so the expectation fails then).
#[test]
fn the_schema_refuses_what_no_report_holds() {
    assert!(keys::validate("warps.0.groups.0.pc").is_err());
    assert!(keys::validate("pcs.0.text").is_err());
    assert!(
        keys::validate("hazards.0.early_bye")
            .unwrap_err()
            .contains("`hazards.0.early_by`")
    );
    assert_eq!(keys::validate("faults.99.address"), Ok(()));
}
