//! The report's key schema, so `expect:` paths can be checked before a run.
//!
//! This is the one list of the report's keys: [`accepted`] and
//! [`NOT_CHECKABLE`] together name every key of the JSON report, and
//! `tests/report_schema.rs` fails when a report holds a key they do not
//! name, or they name a key no report holds. A field added to [`Report`]
//! goes here too.
//!
//! [`Report`]: super::Report

use crate::engine::stats::Reason;

const TOP: &[&str] = &[
    "scenario",
    "file",
    "convergence",
    "policy",
    "cycles",
    "sms",
    "schedulers",
    "warp_width",
    "warps_launched",
    "issued",
    "issue_slot_utilization",
    "thread_inst_executed",
    "thread_inst_executed_pred_on",
    "simd_efficiency",
    "active_lane_efficiency",
    "avg_threads_per_inst",
    "branches",
    "divergent_branches",
    "branch_efficiency",
    "warp_cycles_per_issued_instruction",
    "scoreboard_mislabeled_cycles",
    "faults_total",
];

const LANE_SLOTS: &[&str] = &[
    "total",
    "predicated_on",
    "predicated_off",
    "divergence",
    "exited",
    "never_launched",
];

const MEMORY: &[&str] = &[
    "global_requests",
    "global_sectors",
    "global_sectors_ideal",
    "global_transactions",
    "requested_bytes",
    "transferred_bytes",
    "transaction_efficiency",
    "shared_requests",
    "shared_bank_conflicts",
];

const WARP: &[&str] = &[
    "warp",
    "block",
    "issued",
    "thread_inst_executed",
    "thread_inst_executed_pred_on",
    "simd_efficiency",
    "branches",
    "divergent_branches",
];

const PC: &[&str] = &[
    "pc",
    "line",
    "executions",
    "thread_inst_executed",
    "thread_inst_executed_pred_on",
];

const LINE: &[&str] = &[
    "line",
    "executions",
    "thread_inst_executed",
    "thread_inst_executed_pred_on",
    "simd_efficiency",
    "branches",
    "divergent_branches",
];

const FAULT: &[&str] = &["warp", "lane", "pc", "line", "address", "cycle"];
const HAZARD: &[&str] = &["warp", "lane", "pc", "line", "early_by", "cycle", "count"];

/// Keys that hold groups of keys.
const GROUPS: &[&str] = &[
    "lane_slots",
    "memory",
    "stalls",
    "stalls_profiled",
    "warps",
    "pcs",
    "lines",
    "ncu",
    "faults",
    "hazards",
    "buffers",
];

/// Report keys that `expect:` cannot name, as patterns (`N` for a list
/// index): text, the outcome of `expect:` itself, and the convergence state
/// of warps still on their SM, which only a run that stopped early reports.
pub const NOT_CHECKABLE: &[&str] = &[
    "error",
    "expect.N.key",
    "expect.N.expected",
    "expect.N.actual",
    "expect.N.ok",
    "pcs.N.text",
    "pcs.N.control",
    "lines.N.file",
    "lines.N.text",
    "faults.N.kind",
    "hazards.N.register",
    "hazards.N.kind",
    "warps.N.groups.N.pc",
    "warps.N.groups.N.lanes",
    "warps.N.barriers.N.barrier",
    "warps.N.barriers.N.participants",
    "warps.N.barriers.N.arrived",
];

/// Every key [`validate`] accepts, as a pattern: `N` stands for any list
/// index and `ncu.*` for any key of the `ncu` group. With
/// [`NOT_CHECKABLE`], this is the report's whole schema; a test holds the
/// JSON report to it, key for key.
pub fn accepted() -> Vec<String> {
    let stall_names = reasons();
    let mut out: Vec<String> = TOP.iter().map(|k| (*k).to_string()).collect();
    let mut group = |prefix: &str, keys: &[&str]| {
        out.extend(keys.iter().map(|k| format!("{prefix}.{k}")));
    };
    group("lane_slots", LANE_SLOTS);
    group("memory", MEMORY);
    group("stalls", &stall_names);
    group("stalls_profiled", &stall_names);
    group("warps.N", WARP);
    group("warps.N.stalls", &stall_names);
    group("pcs.N", PC);
    group("pcs.N.stalls", &stall_names);
    group("lines.N", LINE);
    group("lines.N.stalls", &stall_names);
    group("faults.N", FAULT);
    group("hazards.N", HAZARD);
    out.push("ncu.*".into());
    out.push("buffers.*.N".into());
    out
}

fn reasons() -> Vec<&'static str> {
    Reason::ALL.iter().map(|r| r.name()).collect()
}

/// Why `path` names no numeric report value, with the nearest valid one.
pub fn validate(path: &str) -> Result<(), String> {
    let segs: Vec<&str> = path.split('.').collect();
    let stall_names = reasons();
    let one_of = |seg: &str, set: &[&str], prefix: &str| -> Result<(), String> {
        if set.contains(&seg) {
            return Ok(());
        }
        let near = set
            .iter()
            .map(|c| (strsim::levenshtein(seg, c), *c))
            .min_by_key(|(d, _)| *d)
            .filter(|(d, c)| *d <= 3.max(c.len() / 3));
        Err(match near {
            Some((_, c)) => format!("no report key `{prefix}{seg}`; did you mean `{prefix}{c}`?"),
            None => format!(
                "no report key `{prefix}{seg}`; expected one of {}",
                set.join(", ")
            ),
        })
    };
    // Lists of records: `NAME.INDEX.FIELD`, and `NAME.INDEX.stalls.REASON`
    // for the lists that carry stalls.
    let indexed =
        |segs: &[&str], fields: &[&str], name: &str, stalls: bool| -> Result<(), String> {
            match segs {
                [i, field] if i.parse::<usize>().is_ok() => {
                    one_of(field, fields, &format!("{name}.{i}."))
                }
                [i, "stalls", r] if stalls && i.parse::<usize>().is_ok() => {
                    one_of(r, &stall_names, &format!("{name}.{i}.stalls."))
                }
                _ => Err(format!(
                    "`{path}`: expected `{name}.INDEX.FIELD`, e.g. `{name}.0.{}`",
                    fields[0]
                )),
            }
        };
    match segs.as_slice() {
        [one] => one_of(one, TOP, "").map_err(|e| {
            if GROUPS.contains(one) {
                format!(
                    "`{one}` is a group of keys; name one inside it, e.g. `{one}.{}`",
                    match *one {
                        "lane_slots" => LANE_SLOTS[1],
                        "memory" => MEMORY[1],
                        "warps" => "0.issued",
                        "pcs" => "0.executions",
                        "lines" => "0.simd_efficiency",
                        "ncu" => "smsp__thread_inst_executed_per_inst_executed.ratio",
                        "buffers" => "out.0",
                        _ => "wait",
                    }
                )
            } else {
                e
            }
        }),
        ["lane_slots", k] => one_of(k, LANE_SLOTS, "lane_slots."),
        ["memory", k] => one_of(k, MEMORY, "memory."),
        ["stalls", k] => one_of(k, &stall_names, "stalls."),
        ["stalls_profiled", k] => one_of(k, &stall_names, "stalls_profiled."),
        ["ncu", _, ..] => Ok(()),
        // A buffer's elements (`run --buffers`): the whole list, or one.
        ["buffers", _] => Ok(()),
        ["buffers", _, i] if i.parse::<usize>().is_ok() => Ok(()),
        ["buffers", name, other, ..] => Err(format!(
            "`{path}`: expected `buffers.{name}` or `buffers.{name}.INDEX`, not `.{other}`"
        )),
        ["warps", rest @ ..] => indexed(rest, WARP, "warps", true),
        ["pcs", rest @ ..] => indexed(rest, PC, "pcs", true),
        ["lines", rest @ ..] => indexed(rest, LINE, "lines", true),
        ["faults", rest @ ..] => indexed(rest, FAULT, "faults", false),
        ["hazards", rest @ ..] => indexed(rest, HAZARD, "hazards", false),
        [first, ..] => one_of(first, GROUPS, ""),
        [] => Err("empty key".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_keys() {
        for k in [
            "simd_efficiency",
            "memory.global_sectors",
            "stalls.long_scoreboard",
            "warps.3.issued",
            "warps.0.stalls.wait",
            "pcs.2.executions",
            "lines.1.divergent_branches",
            "lines.0.stalls.long_scoreboard",
            "ncu.smsp__thread_inst_executed_per_inst_executed.ratio",
            "lane_slots.never_launched",
        ] {
            assert_eq!(validate(k), Ok(()), "{k}");
        }
    }

    #[test]
    fn typos_get_suggestions() {
        assert!(
            validate("simd_eficiency")
                .unwrap_err()
                .contains("`simd_efficiency`")
        );
        assert!(
            validate("memory.global_sector")
                .unwrap_err()
                .contains("`memory.global_sectors`")
        );
        assert!(
            validate("stalls.long_scorebaord")
                .unwrap_err()
                .contains("long_scoreboard")
        );
        assert!(validate("warps.x.issued").is_err());
        assert!(validate("memory").unwrap_err().contains("group of keys"));
    }
}
