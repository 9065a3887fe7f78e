//! Bytes -> `Scenario::from_text`; a scenario that loads is run on a
//! small machine with a low cycle cap, so the engine sees every shape of
//! program the loader accepts. Loading and running must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpstep::report::Report;
use warpstep::scenario::{Origin, Scenario};

/// Keeps one input fast: a fuzzer wants thousands of runs a second.
const MAX_CYCLES: u64 = 20_000;
const MAX_THREADS: u64 = 4096;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sc = match Scenario::from_text(text, Origin::Builtin("fuzz".into())) {
        Ok(sc) => sc,
        Err(e) => {
            // Rendering the diagnostic is part of the contract too.
            let _ = e.to_string();
            return;
        }
    };
    if sc.launch.threads() > MAX_THREADS {
        return;
    }
    sc.machine.max_cycles = sc.machine.max_cycles.min(MAX_CYCLES);
    let Ok(mut m) = sc.new_machine() else {
        return;
    };
    m.set_hazard_checks(true);
    // Stopping at the cap or in a deadlock is a fine outcome; a panic is not.
    let _ = m.run();
    let _ = Report::new(&sc, &m).to_value();
});
