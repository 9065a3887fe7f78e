//! Several runs of one scenario side by side (`--convergence stack,its`).

use std::fmt::Write;

use super::Report;
use crate::engine::stats::Reason;

fn f(v: Option<f64>, d: usize) -> String {
    v.map_or("—".into(), |x| format!("{x:.d$}"))
}

/// Renders labelled reports as columns; rows whose values differ are
/// marked with `*`.
pub fn render(reports: &[(String, Report)]) -> String {
    let mut rows: Vec<(String, Vec<String>)> = vec![
        (
            "cycles".into(),
            reports.iter().map(|(_, r)| r.cycles.to_string()).collect(),
        ),
        (
            "issued".into(),
            reports.iter().map(|(_, r)| r.issued.to_string()).collect(),
        ),
        (
            "issue-slot utilization".into(),
            reports
                .iter()
                .map(|(_, r)| f(r.issue_slot_utilization, 3))
                .collect(),
        ),
        (
            "SIMD efficiency".into(),
            reports
                .iter()
                .map(|(_, r)| f(r.simd_efficiency, 3))
                .collect(),
        ),
        (
            "active-lane efficiency".into(),
            reports
                .iter()
                .map(|(_, r)| f(r.active_lane_efficiency, 3))
                .collect(),
        ),
        (
            "avg threads per inst".into(),
            reports
                .iter()
                .map(|(_, r)| f(r.avg_threads_per_inst, 2))
                .collect(),
        ),
        (
            "branch efficiency".into(),
            reports
                .iter()
                .map(|(_, r)| f(r.branch_efficiency, 3))
                .collect(),
        ),
        (
            "divergent branches".into(),
            reports
                .iter()
                .map(|(_, r)| r.divergent_branches.to_string())
                .collect(),
        ),
        (
            "warp cycles per issue".into(),
            reports
                .iter()
                .map(|(_, r)| f(r.warp_cycles_per_issued_instruction, 2))
                .collect(),
        ),
        (
            "global transactions".into(),
            reports
                .iter()
                .map(|(_, r)| r.memory.global_transactions.to_string())
                .collect(),
        ),
        (
            "shared bank conflicts".into(),
            reports
                .iter()
                .map(|(_, r)| r.memory.shared_bank_conflicts.to_string())
                .collect(),
        ),
    ];
    for reason in Reason::ALL {
        let vals: Vec<u64> = reports
            .iter()
            .map(|(_, r)| r.stalls.0.get(reason))
            .collect();
        if vals.iter().any(|&v| v > 0) {
            rows.push((
                format!("stall {}", reason.name()),
                vals.iter().map(u64::to_string).collect(),
            ));
        }
    }
    rows.push((
        "expectations".into(),
        reports
            .iter()
            .map(|(_, r)| match &r.expect {
                None => "—".into(),
                Some(v) => format!("{}/{} ok", v.iter().filter(|e| e.ok).count(), v.len()),
            })
            .collect(),
    ));
    let label_w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let col_w: Vec<usize> = reports
        .iter()
        .enumerate()
        .map(|(i, (l, _))| {
            rows.iter()
                .map(|(_, v)| v[i].chars().count())
                .max()
                .unwrap_or(0)
                .max(l.chars().count())
        })
        .collect();
    let mut o = String::new();
    if let Some((_, r)) = reports.first() {
        let _ = writeln!(
            o,
            "{}  ({})\n",
            super::text::sanitize(&r.scenario),
            super::text::sanitize(&r.file)
        );
    }
    let _ = write!(o, "  {:label_w$}", "");
    for (i, (l, _)) in reports.iter().enumerate() {
        let _ = write!(o, "  {:>w$}", l, w = col_w[i]);
    }
    let _ = writeln!(o);
    for (k, vals) in &rows {
        let differs = vals.iter().any(|v| v != &vals[0]);
        let _ = write!(o, "{} {k:label_w$}", if differs { "*" } else { " " });
        for (i, v) in vals.iter().enumerate() {
            let _ = write!(o, "  {:>w$}", v, w = col_w[i]);
        }
        let _ = writeln!(o);
    }
    for (l, r) in reports {
        if let Some(e) = &r.error {
            let _ = writeln!(o, "\n{l}: STOPPED {e}");
        }
    }
    let _ = writeln!(o, "\n* differs between runs");
    o
}
