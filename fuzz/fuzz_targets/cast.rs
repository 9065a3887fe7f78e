//! Bytes -> `record::cast::parse`: the reader `replay` trusts with a
//! stranger's file. Any text is a cast or an error on a line of the text,
//! never a panic; a cast that reads has events in time order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpstep::record::cast;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.lines().count().max(1);
    match cast::parse("fuzz.cast", text) {
        Ok(c) => {
            for w in c.events.windows(2) {
                assert!(w[0].time <= w[1].time, "events go back in time");
            }
            for e in &c.events {
                assert!(
                    e.line >= 2 && e.line <= lines,
                    "event line {} of {lines}",
                    e.line
                );
            }
        }
        Err(e) => {
            assert!(
                e.line >= 1 && e.line <= lines.max(1),
                "error line {} of {lines}",
                e.line
            );
            let _ = e.to_string();
        }
    }
});
