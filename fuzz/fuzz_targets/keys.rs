//! The two ways keys come in from outside: a cast's `i` event data (the
//! bytes a terminal sends, `record::key_bytes::decode`) and a `--keys`
//! script (`tui::keys::parse_keys`). Neither panics on any text, and what
//! they read writes back to the same keys: `decode(encode(k)) == [k]` for
//! every decoded key and `parse_keys(format_keys(ks)) == ks`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpstep::record::key_bytes::{decode, encode};
use warpstep::tui::keys::{format_keys, parse_keys};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(keys) = decode(text) {
        for k in &keys {
            if let Some(bytes) = encode(k) {
                assert_eq!(
                    decode(&bytes).as_deref(),
                    Ok(std::slice::from_ref(k)),
                    "{bytes:?}"
                );
            }
        }
    }
    match parse_keys(text) {
        Ok(keys) => {
            let script = format_keys(&keys);
            assert_eq!(parse_keys(&script).ok(), Some(keys), "{script:?}");
        }
        Err(e) => {
            assert!(
                e.offset <= text.chars().count(),
                "offset {} past the end",
                e.offset
            );
            let _ = e.to_string();
        }
    }
});
