//! Program text -> `asm::assemble`: any text is an error or a program,
//! never a panic; an error's position lies inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpstep::asm::assemble;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match assemble(text, 4) {
        Ok(p) => assert!(!p.instrs.is_empty(), "a program has an instruction"),
        Err(e) => {
            let lines = text.lines().count().max(1) as u32;
            assert!(e.line >= 1 && e.line <= lines, "line {} of {lines}", e.line);
            assert!(e.column >= 1, "column {}", e.column);
            let _ = e.to_string();
        }
    }
});
