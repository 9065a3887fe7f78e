//! Text from a scenario or a cast, made safe for a terminal.
//!
//! A scenario's name, description and program text, and a cast's markers,
//! reach the screen through the stepper, recordings and error messages; a
//! file must not be able to move the cursor, recolour the terminal or
//! reorder what is shown. Every output path passes such text through
//! [`clean`].

/// Scenario text made safe to draw: control characters (escape sequences,
/// carriage returns; tabs become spaces) and bidirectional overrides
/// removed, so a file cannot move the cursor, recolour the terminal or
/// reorder the screen.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .filter(|&c| {
            !c.is_control()
                && !matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_strips_escapes_and_bidi_overrides() {
        // By hand: ESC, CR and LF dropped, the tab a space, U+202E dropped.
        assert_eq!(clean("a\u{1b}[31mb\r\nc\td\u{202e}e"), "a[31mbc de");
        assert_eq!(clean("plain: ok"), "plain: ok");
    }
}
