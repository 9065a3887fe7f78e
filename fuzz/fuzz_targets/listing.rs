//! Text -> `asm::listing::read` -> the first kernel -> `assemble_kernel`:
//! the cuobjdump / nvdisasm / `.cuasm` reader and the listing assembler.
//! Any text is a listing or errors, never a panic; every error's line lies
//! inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpstep::asm::listing::{self, Arch};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.lines().count().max(1) as u32;
    let inside = |e: &warpstep::asm::AsmError| {
        assert!(
            e.line >= 1 && e.line <= lines,
            "line {} of {lines}: {e}",
            e.line
        );
        let _ = e.to_string();
    };
    let l = match listing::read(text) {
        Ok(l) => l,
        Err(errs) => {
            assert!(!errs.is_empty(), "a failed read says why");
            errs.iter().for_each(inside);
            return;
        }
    };
    let k = match l.kernel(None) {
        Ok(k) => k,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let arch = l.arch.unwrap_or(Arch {
        sm: 90,
        feature: None,
    });
    if listing::check_arch(arch).is_err() {
        return;
    }
    match listing::assemble_kernel(k, arch, 4) {
        Ok(p) => {
            let _ = listing::info(&l, k, arch, &p);
        }
        Err(errs) => errs.iter().for_each(inside),
    }
});
