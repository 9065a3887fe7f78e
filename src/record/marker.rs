//! Marker labels: the issue slot a frame shows, `cycle 12 · w3 FFMA`.
//!
//! A recording writes one marker each time a frame shows a cycle the frame
//! before did not, so a player's marker list is the issue slots the viewer
//! saw, in order. The label starts with `cycle N`, which replay reads back:
//! it is where a recorded run was when that frame was drawn.

use crate::session::Session;
use crate::text::clean;

/// `cycle 12 · w3 FFMA`, with every warp that issued in the last simulated
/// cycle (`cycle 7 · w0 FFMA, w1 LDG`); `cycle 5 · no issue` when none
/// did, and `cycle 0 · start` before the first.
pub fn label(session: &Session) -> String {
    let cycle = session.cycle();
    if cycle == 0 {
        return "cycle 0 · start".into();
    }
    let m = session.machine();
    let code = m.code();
    let issued: Vec<String> = m
        .issues()
        .iter()
        .filter(|r| !r.dispatch_stall)
        .map(|r| {
            let op = code
                .get(r.pc as usize)
                .map_or_else(|| "?".to_string(), |d| clean(&d.instr.mnemonic));
            format!("w{} {op}", r.warp)
        })
        .collect();
    if issued.is_empty() {
        format!("cycle {cycle} · no issue")
    } else {
        format!("cycle {cycle} · {}", issued.join(", "))
    }
}

/// The cycle a label names (`cycle 12 · ...` is 12).
pub fn cycle_of(label: &str) -> Option<u64> {
    let rest = label.strip_prefix("cycle ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_is_read_back() {
        assert_eq!(cycle_of("cycle 12 · w3 FFMA"), Some(12));
        assert_eq!(cycle_of("cycle 0 · start"), Some(0));
        assert_eq!(cycle_of("chapter 2"), None);
        assert_eq!(cycle_of("cycle x"), None);
    }
}
