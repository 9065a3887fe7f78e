//! Bytes -> `Scenario::from_text`; a scenario that loads is run, so the
//! engine sees every shape of program and launch the loader accepts.
//! Loading and running must never panic, and must stay inside the memory
//! the load-time budgets promise: the budget here is 512 MiB and
//! libFuzzer's `-rss_limit_mb` (2 GiB by default) turns an estimate that
//! is badly low into a reported crash.
//!
//! No launch is skipped for its size: the budgets refuse what is too
//! large. A run stops at a wall-clock deadline instead of a low cycle cap,
//! so a large launch still runs its first cycles.
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use warpstep::report::Report;
use warpstep::scenario::{Origin, Scenario, budget};

/// The budget every input loads under (`--memory-limit 512M`).
const MEMORY_LIMIT: u64 = 512 << 20;
/// Wall-clock time one input may run for.
const DEADLINE: Duration = Duration::from_millis(250);
/// Cycles between deadline checks.
const CHUNK: u64 = 256;

fuzz_target!(|data: &[u8]| {
    budget::set_memory_limit(MEMORY_LIMIT);
    // No nvcc and no file reads: what a stranger's file gets.
    warpstep::scenario::set_foreign(true);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let sc = match Scenario::from_text(text, Origin::Builtin("fuzz".into())) {
        Ok(sc) => sc,
        Err(e) => {
            // Rendering the diagnostic is part of the contract too.
            assert!(e.line >= 1, "an error has a line: {e}");
            let _ = e.to_string();
            return;
        }
    };
    let Ok(mut m) = sc.new_machine() else {
        return;
    };
    m.set_hazard_checks(true);
    let start = Instant::now();
    let mut target = 0u64;
    while !m.finished() && !m.halted() && start.elapsed() < DEADLINE {
        target = target.saturating_add(CHUNK);
        m.run_until(target);
        if m.cycle() < target && !m.finished() && !m.halted() {
            // Nothing left to run before `target`: a deadlock or the cap.
            break;
        }
    }
    // The JSON report only when the budget allows it, as `run` checks.
    let f = sc.footprint();
    if budget::over_budget(f.engine.saturating_add(f.json_report), "fuzz").is_none() {
        let _ = Report::new(&sc, &m).to_value();
    }
});
