//! The headless report: every number of docs/execution-model.md for a run, as JSON (the
//! contract of docs/scenario-format.md) or as a readable table. It is built from the same
//! [`Machine`] the TUI steps, so both frontends show the same figures.

pub mod compare;
pub mod expect;
pub mod json;
pub mod keys;
pub mod text;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

use crate::engine::Machine;
use crate::engine::stats::{Counters, Reason, ReasonCounts, ratio};
use crate::scenario::{Convergence, Policy, Scenario};

/// Warp-cycles per stall reason, serialised as a map with its keys in
/// byte order, as every object of the report has them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stalls(pub ReasonCounts);

/// The stall reasons in byte order of their names.
fn reasons_by_name() -> &'static [Reason; Reason::COUNT] {
    static SORTED: std::sync::OnceLock<[Reason; Reason::COUNT]> = std::sync::OnceLock::new();
    SORTED.get_or_init(|| {
        let mut rs = Reason::ALL;
        rs.sort_unstable_by_key(|r| r.name());
        rs
    })
}

impl Serialize for Stalls {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(Reason::COUNT))?;
        for &r in reasons_by_name() {
            m.serialize_entry(r.name(), &self.0.get(r))?;
        }
        m.end()
    }
}

/// Where the lane-slots of issued instructions went.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LaneSlotsReport {
    pub divergence: u64,
    pub exited: u64,
    pub never_launched: u64,
    pub predicated_off: u64,
    pub predicated_on: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MemoryReport {
    pub global_requests: u64,
    pub global_sectors: u64,
    pub global_sectors_ideal: u64,
    pub global_transactions: u64,
    pub requested_bytes: u64,
    pub shared_bank_conflicts: u64,
    pub shared_requests: u64,
    pub transaction_efficiency: Option<f64>,
    pub transferred_bytes: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WarpReport {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub barriers: Vec<BarrierReport>,
    pub block: u32,
    pub branches: u64,
    pub divergent_branches: u64,
    /// A warp still on its SM (the run stopped early, or a report taken
    /// mid-run): its `its` groups and convergence barriers in use.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupReport>,
    pub issued: u64,
    pub simd_efficiency: Option<f64>,
    pub stalls: Stalls,
    pub thread_inst_executed: u64,
    pub thread_inst_executed_pred_on: u64,
    pub warp: u32,
}

/// Lanes at one pc of an `its` warp.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GroupReport {
    pub lanes: u64,
    pub pc: u32,
}

/// A convergence barrier `Bn` in use.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BarrierReport {
    pub arrived: u64,
    pub barrier: u8,
    pub participants: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PcReport {
    /// The control code the run used (written or derived).
    pub control: String,
    pub executions: u64,
    /// Line in the scenario file.
    pub line: u32,
    /// SASS-style byte address (16 bytes an instruction).
    pub pc: u32,
    pub stalls: Stalls,
    pub text: String,
    pub thread_inst_executed: u64,
    pub thread_inst_executed_pred_on: u64,
}

/// One CUDA source line's counters: its instructions' per-pc counters
/// summed (a program with line info only).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LineReport {
    pub branches: u64,
    pub divergent_branches: u64,
    pub executions: u64,
    /// The file as the listing's line table names it.
    pub file: String,
    /// 1-based line in that file.
    pub line: u32,
    /// `thread_inst_executed_pred_on / (warp_width * executions)`.
    pub simd_efficiency: Option<f64>,
    pub stalls: Stalls,
    /// The line's text, when the scenario gives the source; null otherwise.
    pub text: Option<String>,
    pub thread_inst_executed: u64,
    pub thread_inst_executed_pred_on: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FaultReport {
    pub address: u32,
    pub cycle: u64,
    pub kind: &'static str,
    pub lane: u32,
    pub line: u32,
    pub pc: u32,
    pub warp: u32,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HazardReport {
    pub count: u64,
    pub cycle: u64,
    pub early_by: u64,
    pub kind: &'static str,
    pub lane: u32,
    pub line: u32,
    pub pc: u32,
    pub register: String,
    pub warp: u32,
}

/// One `expect:` entry's outcome.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ExpectResult {
    pub actual: Value,
    pub expected: Value,
    pub key: String,
    pub ok: bool,
}

/// A run's report (docs/scenario-format.md, "Report").
///
/// The report is written straight from these types, with no JSON tree
/// between: every struct of the report declares its fields in byte order
/// of their names, so each object's keys come out sorted, as the format
/// promises (a test holds the written report to that).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub active_lane_efficiency: Option<f64>,
    pub avg_threads_per_inst: Option<f64>,
    pub branch_efficiency: Option<f64>,
    pub branches: u64,
    /// Final contents of the buffers `run --buffers` asked for, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffers: Option<serde_json::Map<String, Value>>,
    pub convergence: &'static str,
    pub cycles: u64,
    pub divergent_branches: u64,
    /// Why the run stopped early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<Vec<ExpectResult>>,
    /// Final contents of the buffers `expect:` names, for checking only
    /// (not part of the report unless asked for).
    #[serde(skip)]
    pub expect_buffers: serde_json::Map<String, Value>,
    pub faults: Vec<FaultReport>,
    pub faults_total: u64,
    pub file: String,
    pub hazards: Vec<HazardReport>,
    pub issue_slot_utilization: Option<f64>,
    pub issued: u64,
    pub lane_slots: LaneSlotsReport,
    /// Per CUDA source line, when the program carries line info.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<LineReport>>,
    pub memory: MemoryReport,
    pub ncu: serde_json::Map<String, Value>,
    pub pcs: Vec<PcReport>,
    pub policy: &'static str,
    pub scenario: String,
    pub schedulers: u32,
    /// Warp-cycles whose profiler label differs from the true cause.
    pub scoreboard_mislabeled_cycles: u64,
    pub simd_efficiency: Option<f64>,
    pub sms: u32,
    pub stalls: Stalls,
    /// Stalls as a profiler labels them (scoreboard stalls by the
    /// scoreboard's latest setter).
    pub stalls_profiled: Stalls,
    pub thread_inst_executed: u64,
    pub thread_inst_executed_pred_on: u64,
    /// The variant's label, in a run of several (`--convergence
    /// stack,its`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub warp_cycles_per_issued_instruction: Option<f64>,
    pub warp_width: u32,
    pub warps: Vec<WarpReport>,
    pub warps_launched: u64,
}

/// The final contents of buffer `b`, one JSON value per element: integers
/// exactly, floats as numbers (`f32` widened to `f64` exactly), and the
/// floats JSON has no number for as the strings `NaN`, `inf`, `-inf`.
pub fn buffer_values(b: &crate::engine::BufferSpec, bytes: &[u8]) -> Vec<Value> {
    use crate::engine::ElemType;
    let size = b.ty.size() as usize;
    let float = |f: f64| {
        serde_json::Number::from_f64(f).map_or_else(
            || {
                Value::from(if f.is_nan() {
                    "NaN"
                } else if f > 0.0 {
                    "inf"
                } else {
                    "-inf"
                })
            },
            Value::Number,
        )
    };
    bytes
        .chunks_exact(size)
        .take(b.len as usize)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..size].copy_from_slice(c);
            let bits = u64::from_le_bytes(w);
            match b.ty {
                ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => Value::from(bits),
                ElemType::I8 => Value::from(bits as u8 as i8),
                ElemType::I16 => Value::from(bits as u16 as i16),
                ElemType::I32 => Value::from(bits as u32 as i32),
                ElemType::I64 => Value::from(bits as i64),
                ElemType::F32 => float(f64::from(f32::from_bits(bits as u32))),
                ElemType::F64 => float(f64::from_bits(bits)),
            }
        })
        .collect()
}

/// The buffer names of `expect:` keys `buffers.NAME...`.
fn expected_buffers(sc: &Scenario) -> Vec<&str> {
    let mut names: Vec<&str> = sc
        .expect
        .iter()
        .filter_map(|e| e.key.strip_prefix("buffers."))
        .map(|rest| rest.split('.').next().unwrap_or(rest))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The named buffers' final contents in `m`.
fn buffer_map<'a>(
    sc: &Scenario,
    m: &Machine,
    names: impl IntoIterator<Item = &'a str>,
) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for name in names {
        if let (Some(spec), Some(bytes)) =
            (sc.buffers.iter().find(|b| b.name == name), m.buffer(name))
        {
            out.insert(name.to_string(), Value::Array(buffer_values(spec, &bytes)));
        }
    }
    out
}

fn convergence_name(c: Convergence) -> &'static str {
    match c {
        Convergence::Stack => "stack",
        Convergence::Its => "its",
    }
}

fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Lrr => "lrr",
        Policy::Gto => "gto",
    }
}

fn num(v: Option<f64>) -> Value {
    v.and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

impl Report {
    /// Builds the report of a machine running scenario `sc` (finished or
    /// not: the counters so far).
    pub fn new(sc: &Scenario, m: &Machine) -> Report {
        let w = m.width();
        let c: Counters = m.totals();
        let ls = c.lane_slots(w);
        let mem = m.memory_counters();
        let slots = u64::from(sc.machine.schedulers) * u64::from(sc.machine.sms);
        let resident: std::collections::HashMap<u32, crate::engine::view::WarpView> =
            m.warp_views().into_iter().map(|v| (v.warp, v)).collect();
        let warps = m
            .warp_records()
            .into_iter()
            .map(|r| WarpReport {
                groups: resident.get(&r.warp).map_or_else(Vec::new, |v| {
                    v.groups
                        .iter()
                        .map(|g| GroupReport {
                            pc: crate::asm::Program::address(g.pc),
                            lanes: g.lanes,
                        })
                        .collect()
                }),
                barriers: resident.get(&r.warp).map_or_else(Vec::new, |v| {
                    v.barriers
                        .iter()
                        .map(|b| BarrierReport {
                            barrier: b.index,
                            participants: b.participants,
                            arrived: b.arrived,
                        })
                        .collect()
                }),
                warp: r.warp,
                block: r.block,
                issued: r.counters.issued,
                thread_inst_executed: r.counters.thread_inst_executed,
                thread_inst_executed_pred_on: r.counters.thread_inst_executed_pred_on,
                simd_efficiency: r.counters.simd_efficiency(w),
                branches: r.counters.branches,
                divergent_branches: r.counters.divergent_branches,
                stalls: Stalls(r.counters.stalls),
            })
            .collect();
        let pc_counters = m.pc_counters();
        let lines = sc.source_map.as_ref().map(|map| {
            map.counters(&pc_counters)
                .into_iter()
                .map(|l| LineReport {
                    file: map.file_name(l.pos.file).to_string(),
                    line: l.pos.line,
                    text: map.line_text(l.pos).map(str::to_string),
                    executions: l.executions,
                    thread_inst_executed: l.thread_inst_executed,
                    thread_inst_executed_pred_on: l.thread_inst_executed_pred_on,
                    simd_efficiency: l.simd_efficiency(w),
                    branches: l.branches,
                    divergent_branches: l.divergent_branches,
                    stalls: Stalls(l.stalls),
                })
                .collect()
        });
        let pcs = pc_counters
            .into_iter()
            .zip(m.code())
            .enumerate()
            .map(|(i, (p, d))| PcReport {
                pc: crate::asm::Program::address(i as u32),
                line: sc.program_line + d.instr.line - 1,
                text: d.instr.text.clone(),
                control: d.instr.control.to_string(),
                executions: p.executions,
                thread_inst_executed: p.thread_inst_executed,
                thread_inst_executed_pred_on: p.thread_inst_executed_pred_on,
                stalls: Stalls(p.stalls),
            })
            .collect();
        let mut ncu = serde_json::Map::new();
        ncu.insert(
            "smsp__thread_inst_executed_per_inst_executed.ratio".into(),
            num(c.avg_threads_per_inst()),
        );
        ncu.insert(
            "smsp__sass_average_branch_targets_threads_uniform.pct".into(),
            num(c.branch_efficiency().map(|e| e * 100.0)),
        );
        ncu.insert("smsp__inst_executed.sum".into(), Value::from(c.issued));
        ncu.insert(
            "smsp__thread_inst_executed.sum".into(),
            Value::from(c.thread_inst_executed),
        );
        ncu.insert(
            "smsp__thread_inst_executed_pred_on.sum".into(),
            Value::from(c.thread_inst_executed_pred_on),
        );
        for r in Reason::ALL {
            // Per issue-active cycle: a scheduler is issue-active in a
            // cycle it issues, so the denominator is the issue count.
            ncu.insert(
                format!(
                    "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio",
                    r.name()
                ),
                num(ratio(c.stalls_profiled().get(r), c.issued)),
            );
        }
        Report {
            scenario: sc.name.clone(),
            file: sc.origin.to_string(),
            convergence: convergence_name(sc.machine.convergence),
            policy: policy_name(sc.machine.policy),
            cycles: m.cycle(),
            sms: sc.machine.sms,
            schedulers: sc.machine.schedulers,
            warp_width: w,
            warps_launched: m.warps_launched(),
            issued: c.issued,
            issue_slot_utilization: ratio(c.issued, m.cycle() * slots),
            thread_inst_executed: c.thread_inst_executed,
            thread_inst_executed_pred_on: c.thread_inst_executed_pred_on,
            simd_efficiency: c.simd_efficiency(w),
            active_lane_efficiency: c.active_lane_efficiency(w),
            avg_threads_per_inst: c.avg_threads_per_inst(),
            branches: c.branches,
            divergent_branches: c.divergent_branches,
            branch_efficiency: c.branch_efficiency(),
            warp_cycles_per_issued_instruction: ratio(c.stalls.total(), c.issued),
            lane_slots: LaneSlotsReport {
                total: u64::from(w) * c.issued,
                predicated_on: ls.predicated_on,
                predicated_off: ls.predicated_off,
                divergence: ls.divergence,
                exited: ls.exited,
                never_launched: ls.never_launched,
            },
            memory: MemoryReport {
                global_requests: mem.global_requests,
                global_sectors: mem.global_sectors,
                global_sectors_ideal: mem.ideal_sectors,
                global_transactions: mem.global_transactions,
                requested_bytes: mem.requested_bytes,
                transferred_bytes: mem.transferred_bytes,
                transaction_efficiency: mem.transaction_efficiency(),
                shared_requests: mem.shared_requests,
                shared_bank_conflicts: mem.shared_bank_conflicts,
            },
            stalls: Stalls(c.stalls),
            stalls_profiled: Stalls(c.stalls_profiled()),
            scoreboard_mislabeled_cycles: c.mislabeled_cycles(),
            warps,
            pcs,
            lines,
            ncu,
            faults: m
                .faults()
                .iter()
                .map(|f| FaultReport {
                    warp: f.warp,
                    lane: f.lane,
                    pc: crate::asm::Program::address(f.pc),
                    line: sc.program_line + f.line - 1,
                    address: f.address,
                    kind: f.kind.name(),
                    cycle: f.cycle,
                })
                .collect(),
            faults_total: m.faults_total(),
            hazards: m
                .hazards()
                .iter()
                .map(|h| HazardReport {
                    warp: h.warp,
                    lane: h.lane,
                    pc: crate::asm::Program::address(h.pc),
                    line: sc.program_line + h.line - 1,
                    register: h.register.clone(),
                    kind: h.kind.name(),
                    early_by: h.early_by,
                    cycle: h.cycle,
                    count: h.count,
                })
                .collect(),
            error: m.error().map(|e| e.to_string()),
            expect: None,
            buffers: None,
            variant: None,
            expect_buffers: buffer_map(sc, m, expected_buffers(sc)),
        }
    }

    /// Adds the final contents of the named buffers (names the scenario
    /// has; others are left out, so check them first) to the report.
    pub fn with_buffers(mut self, sc: &Scenario, m: &Machine, names: &[String]) -> Report {
        self.buffers = Some(buffer_map(sc, m, names.iter().map(String::as_str)));
        self
    }

    /// The report as a JSON value (for tests and tools; the report itself
    /// is written without one, by [`Report::write_json`]).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The value at an `expect:` key (a dotted path: object keys by name,
    /// list items by index, an `ncu` key whole), read from the report
    /// itself: only the part the key lies in is turned into JSON. Buffers
    /// come from `buffers` or, when `run --buffers` did not ask for them,
    /// from the ones `expect:` names.
    pub fn lookup(&self, path: &str) -> Option<Value> {
        fn split(p: &str) -> (&str, Option<&str>) {
            match p.split_once('.') {
                Some((h, r)) => (h, Some(r)),
                None => (p, None),
            }
        }
        fn within(v: Value, rest: Option<&str>) -> Option<Value> {
            match rest {
                None => Some(v),
                Some(r) => expect::lookup(&v, r).cloned(),
            }
        }
        fn item<T: Serialize>(list: &[T], rest: Option<&str>) -> Option<Value> {
            let Some(rest) = rest else {
                return serde_json::to_value(list).ok();
            };
            let (i, more) = split(rest);
            let v = serde_json::to_value(list.get(i.parse::<usize>().ok()?)?).ok()?;
            within(v, more)
        }
        macro_rules! field {
            ($head:expr, $($f:ident),* $(,)?) => {
                match $head {
                    $(stringify!($f) => serde_json::to_value(&self.$f).ok(),)*
                    _ => None,
                }
            };
        }
        let (head, rest) = split(path);
        match head {
            // Keys the report leaves out when they hold nothing.
            "error" => within(serde_json::to_value(self.error.as_ref()?).ok()?, rest),
            "expect" => within(serde_json::to_value(self.expect.as_ref()?).ok()?, rest),
            "variant" => within(serde_json::to_value(self.variant.as_ref()?).ok()?, rest),
            "warps" => item(&self.warps, rest),
            "pcs" => item(&self.pcs, rest),
            "lines" => item(self.lines.as_deref()?, rest),
            "faults" => item(&self.faults, rest),
            "hazards" => item(&self.hazards, rest),
            "buffers" => {
                let asked = self.buffers.as_ref();
                let Some(rest) = rest else {
                    if asked.is_none() && self.expect_buffers.is_empty() {
                        return None;
                    }
                    let mut all = asked.cloned().unwrap_or_default();
                    for (k, v) in &self.expect_buffers {
                        all.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                    return Some(Value::Object(all));
                };
                let (name, more) = split(rest);
                let list = asked
                    .and_then(|b| b.get(name))
                    .or_else(|| self.expect_buffers.get(name))?;
                match more {
                    None => Some(list.clone()),
                    Some(m) => expect::lookup(list, m).cloned(),
                }
            }
            _ => within(
                field!(
                    head,
                    active_lane_efficiency,
                    avg_threads_per_inst,
                    branch_efficiency,
                    branches,
                    convergence,
                    cycles,
                    divergent_branches,
                    faults_total,
                    file,
                    issue_slot_utilization,
                    issued,
                    lane_slots,
                    memory,
                    ncu,
                    policy,
                    scenario,
                    schedulers,
                    scoreboard_mislabeled_cycles,
                    simd_efficiency,
                    sms,
                    stalls,
                    stalls_profiled,
                    thread_inst_executed,
                    thread_inst_executed_pred_on,
                    warp_cycles_per_issued_instruction,
                    warp_width,
                    warps_launched,
                )?,
                rest,
            ),
        }
    }

    /// Checks the scenario's `expect:` entries and records the outcomes.
    /// Returns true when all held (or there were none).
    pub fn check_expectations(&mut self, exp: &[crate::scenario::Expectation]) -> bool {
        if exp.is_empty() {
            return true;
        }
        let results: Vec<ExpectResult> = exp
            .iter()
            .map(|e| expect::check_value(self.lookup(&e.key).unwrap_or(Value::Null), e))
            .collect();
        let ok = results.iter().all(|r| r.ok);
        self.expect = Some(results);
        ok
    }

    /// Exit status per docs/scenario-format.md: 1 when an expectation failed, a lane
    /// faulted or the run stopped early; 0 otherwise.
    pub fn exit_code(&self) -> i32 {
        let expect_failed = self
            .expect
            .as_ref()
            .is_some_and(|v| v.iter().any(|r| !r.ok));
        if expect_failed || self.faults_total > 0 || self.error.is_some() {
            1
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in scenario's report, with every buffer asked for and
    /// its `expect:` checked, under both convergence models.
    fn reports() -> Vec<Report> {
        let mut out = Vec::new();
        for name in crate::builtin::names() {
            for conv in [Convergence::Stack, Convergence::Its] {
                let mut sc = crate::builtin::resolve(name).expect("built-in loads");
                sc.machine.convergence = conv;
                let Ok(mut m) = sc.new_machine() else {
                    continue;
                };
                let _ = m.run();
                let names: Vec<String> = sc.buffers.iter().map(|b| b.name.clone()).collect();
                // Half of them with `run --buffers`, so `expect:` also reads
                // buffers the report does not print.
                let asked = &names[..names.len() / 2];
                let mut r = Report::new(&sc, &m).with_buffers(&sc, &m, asked);
                r.check_expectations(&sc.expect);
                out.push(r);
            }
        }
        out
    }

    // The reference is the report turned into a `serde_json::Value` first:
    // its objects are ordered maps, so it prints every object's keys
    // sorted, as the report did before it was written without a tree.
    #[test]
    fn the_streamed_report_is_the_tree_printed_key_for_key() {
        let all = reports();
        assert!(all.len() > 20, "{} reports", all.len());
        for mut r in all {
            let tree = serde_json::to_string_pretty(&r.to_value()).unwrap();
            assert_eq!(
                serde_json::to_string_pretty(&r).unwrap(),
                tree,
                "{}",
                r.scenario
            );
            // And as warpstep prints it, through its own formatter.
            assert_eq!(json::to_string_pretty(&r).unwrap(), tree, "{}", r.scenario);
            // In a run of variants each report carries its label.
            r.variant = Some("its".into());
            let list = vec![&r, &r];
            let tree = serde_json::to_string_pretty(&serde_json::to_value(&list).unwrap());
            assert_eq!(serde_json::to_string_pretty(&list).unwrap(), tree.unwrap());
        }
    }

    /// The keys `keys::accepted` describes, made concrete for `r`.
    fn concrete_keys(r: &Report, tree: &Value) -> Vec<String> {
        let mut out = vec![
            "no_such_key".to_string(),
            "memory.no_such".into(),
            "warps.99999.issued".into(),
            "warps.x.issued".into(),
            "lane_slots".into(),
            "buffers.none_such".into(),
            "buffers.none_such.0".into(),
        ];
        for pat in keys::accepted()
            .into_iter()
            .chain(keys::NOT_CHECKABLE.iter().map(|k| (*k).to_string()))
        {
            if pat == "ncu.*" {
                out.extend(r.ncu.keys().map(|k| format!("ncu.{k}")));
            } else if pat == "buffers.*.N" {
                if let Some(Value::Object(b)) = expect::lookup(tree, "buffers") {
                    for (name, v) in b {
                        let n = v.as_array().map_or(0, Vec::len);
                        for i in [0, n.saturating_sub(1), n] {
                            out.push(format!("buffers.{name}.{i}"));
                        }
                        out.push(format!("buffers.{name}"));
                    }
                }
            } else {
                for i in ["0", "1", "2"] {
                    out.push(pat.replace(".N.", &format!(".{i}.")));
                }
            }
        }
        out
    }

    // The reference is `expect::lookup` on the whole report as a JSON
    // value, with the buffers `expect:` names merged in: how `expect:`
    // was checked before it read the typed report.
    #[test]
    fn lookup_reads_what_the_tree_holds_at_every_key() {
        let mut checked = 0;
        for r in reports() {
            let mut tree = r.to_value();
            if !r.expect_buffers.is_empty()
                && let Some(obj) = tree.as_object_mut()
                && let Some(map) = obj
                    .entry("buffers")
                    .or_insert_with(|| Value::Object(serde_json::Map::new()))
                    .as_object_mut()
            {
                for (k, v) in &r.expect_buffers {
                    map.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            for k in concrete_keys(&r, &tree) {
                assert_eq!(
                    r.lookup(&k),
                    expect::lookup(&tree, &k).cloned(),
                    "{}: {k}",
                    r.scenario
                );
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked} keys");
    }
}
