//! The report as a readable table (`warpstep run FILE`).

use std::fmt::Write;

use super::Report;
use crate::engine::stats::Reason;

/// Warps listed in the table before "... N more" (JSON lists all).
const MAX_WARP_ROWS: usize = 16;

fn pct(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{:.1} %", x * 100.0))
}

fn fixed(v: Option<f64>, digits: usize) -> String {
    v.map_or("—".into(), |x| format!("{x:.digits$}"))
}

/// Renders the report as text.
pub fn render(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}  ({})", sanitize(&r.scenario), sanitize(&r.file));
    let _ = writeln!(
        o,
        "machine  {}-lane warps · {} · {} · {} SM{} x {} scheduler{}",
        r.warp_width,
        r.convergence,
        r.policy,
        r.sms,
        if r.sms == 1 { "" } else { "s" },
        r.schedulers,
        if r.schedulers == 1 { "" } else { "s" },
    );
    if let Some(e) = &r.error {
        let _ = writeln!(o, "STOPPED  {}", sanitize(e));
    }
    let _ = writeln!(o);
    let rows: Vec<(&str, String, &str)> = vec![
        ("cycles", r.cycles.to_string(), ""),
        ("warps launched", r.warps_launched.to_string(), ""),
        ("issued", r.issued.to_string(), "warp instructions"),
        (
            "issue-slot utilization",
            pct(r.issue_slot_utilization),
            "issued / (cycles x schedulers)",
        ),
        (
            "SIMD efficiency",
            fixed(r.simd_efficiency, 3),
            "useful lane-work / lane-slots",
        ),
        (
            "active-lane efficiency",
            fixed(r.active_lane_efficiency, 3),
            "active lanes / lane-slots",
        ),
        ("avg threads per inst", fixed(r.avg_threads_per_inst, 2), ""),
        (
            "branch efficiency",
            fixed(r.branch_efficiency, 3),
            "uniform branches / branches",
        ),
        (
            "branches",
            format!("{} ({} divergent)", r.branches, r.divergent_branches),
            "",
        ),
        (
            "warp cycles per issue",
            fixed(r.warp_cycles_per_issued_instruction, 2),
            "",
        ),
    ];
    for (k, v, note) in rows {
        if note.is_empty() {
            let _ = writeln!(o, "  {k:<24}{v:>14}");
        } else {
            let _ = writeln!(o, "  {k:<24}{v:>14}   {note}");
        }
    }
    let ls = &r.lane_slots;
    let _ = writeln!(
        o,
        "\nlane slots  {} = {} on + {} predicated off + {} parked by divergence + {} exited + {} never launched",
        ls.total, ls.predicated_on, ls.predicated_off, ls.divergence, ls.exited, ls.never_launched
    );
    let m = &r.memory;
    let _ = writeln!(
        o,
        "\nmemory  global  {} requests · {} sectors (ideal {}) · {} transactions · {}/{} bytes ({})",
        m.global_requests,
        m.global_sectors,
        m.global_sectors_ideal,
        m.global_transactions,
        m.requested_bytes,
        m.transferred_bytes,
        pct(m.transaction_efficiency)
    );
    let _ = writeln!(
        o,
        "        shared  {} requests · {} bank-conflict replays",
        m.shared_requests, m.shared_bank_conflicts
    );
    let _ = writeln!(o, "\nstalls (warp-cycles)      cause   profiler");
    for reason in Reason::ALL {
        let (a, b) = (r.stalls.0.get(reason), r.stalls_profiled.0.get(reason));
        if a == 0 && b == 0 {
            continue;
        }
        let _ = writeln!(o, "  {:<22}{a:>8}   {b:>8}", reason.name());
    }
    if r.scoreboard_mislabeled_cycles > 0 {
        let _ = writeln!(
            o,
            "  {} warp-cycles where a profiler's short/long label is wrong (recycled scoreboard)",
            r.scoreboard_mislabeled_cycles
        );
    }
    let _ = writeln!(
        o,
        "\nwarps   warp  block  issued    sum A    sum P    SIMD  branches  divergent"
    );
    for w in r.warps.iter().take(MAX_WARP_ROWS) {
        let _ = writeln!(
            o,
            "        {:>4}  {:>5}  {:>6}  {:>7}  {:>7}  {:>6}  {:>8}  {:>9}",
            w.warp,
            w.block,
            w.issued,
            w.thread_inst_executed,
            w.thread_inst_executed_pred_on,
            fixed(w.simd_efficiency, 3),
            w.branches,
            w.divergent_branches
        );
    }
    if r.warps.len() > MAX_WARP_ROWS {
        let _ = writeln!(
            o,
            "        ... {} more (see --format json)",
            r.warps.len() - MAX_WARP_ROWS
        );
    }
    let _ = writeln!(
        o,
        "\nprogram  pc    line   execs    sum A    sum P  top stall            instruction"
    );
    for p in &r.pcs {
        let top = top_stall(&p.stalls);
        let _ = writeln!(
            o,
            "        {:04x}  {:>4}  {:>6}  {:>7}  {:>7}  {:<20} {}",
            p.pc,
            p.line,
            p.executions,
            p.thread_inst_executed,
            p.thread_inst_executed_pred_on,
            top,
            crate::report::text::sanitize(&p.text)
        );
    }
    if let Some(lines) = &r.lines {
        let _ = writeln!(
            o,
            "\nsource  line   execs    sum A    sum P    SIMD  branches  divergent  top stall            text"
        );
        let mut file: Option<&str> = None;
        for l in lines {
            if file != Some(l.file.as_str()) {
                let _ = writeln!(o, "  {}", sanitize(&l.file));
                file = Some(l.file.as_str());
            }
            let top = top_stall(&l.stalls);
            let _ = writeln!(
                o,
                "        {:>4}  {:>6}  {:>7}  {:>7}  {:>6}  {:>8}  {:>9}  {:<20} {}",
                l.line,
                l.executions,
                l.thread_inst_executed,
                l.thread_inst_executed_pred_on,
                fixed(l.simd_efficiency, 3),
                l.branches,
                l.divergent_branches,
                top,
                l.text
                    .as_deref()
                    .map_or("(text not available)".into(), |t| sanitize(t.trim_end()))
            );
        }
    }
    if r.faults_total > 0 {
        let _ = writeln!(o, "\nfaults ({} lanes)", r.faults_total);
        for f in &r.faults {
            let _ = writeln!(
                o,
                "  warp {} lane {} pc {:04x} line {}: {} at {:#x} (cycle {})",
                f.warp, f.lane, f.pc, f.line, f.kind, f.address, f.cycle
            );
        }
    }
    if !r.hazards.is_empty() {
        let _ = writeln!(
            o,
            "\nhazards (explicit control codes that break a dependence)"
        );
        for h in &r.hazards {
            let _ = writeln!(
                o,
                "  pc {:04x} line {}: {} on {} by {} cycles (warp {} lane {}, {} times)",
                h.pc, h.line, h.kind, h.register, h.early_by, h.warp, h.lane, h.count
            );
        }
    }
    if let Some(buffers) = &r.buffers {
        let _ = writeln!(o, "\nbuffers (final contents)");
        for (name, values) in buffers {
            let items: Vec<String> = values
                .as_array()
                .map(|a| a.iter().map(element).collect())
                .unwrap_or_default();
            let _ = writeln!(o, "  {name} ({} elements)", items.len());
            // Eight elements a line, each line led by its first index.
            for (row, chunk) in items.chunks(8).enumerate() {
                let _ = writeln!(o, "    [{:>4}] {}", row * 8, chunk.join(" "));
            }
        }
    }
    if let Some(results) = &r.expect {
        let _ = writeln!(o, "\nexpect");
        for e in results {
            let _ = writeln!(
                o,
                "  {} {} = {} (actual {})",
                if e.ok { "ok  " } else { "FAIL" },
                e.key,
                e.expected,
                e.actual
            );
        }
    }
    o
}

/// `long_scoreboard 120`: the reason other than `selected` with the most
/// warp-cycles (the last in `Reason::ALL` on a tie), or nothing.
fn top_stall(s: &super::Stalls) -> String {
    Reason::ALL
        .iter()
        .filter(|&&x| x != Reason::Selected)
        .map(|&x| (s.0.get(x), x))
        .max_by_key(|(n, _)| *n)
        .filter(|(n, _)| *n > 0)
        .map_or(String::new(), |(n, x)| format!("{} {n}", x.name()))
}

/// One buffer element as text: numbers as JSON writes them, the strings
/// standing for NaN and infinities without quotes.
fn element(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Scenario text with control, bidi and zero-width characters shown as
/// escapes ([`crate::text::escape`]), before printing.
pub fn sanitize(s: &str) -> String {
    crate::text::escape(s)
}
