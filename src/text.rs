//! Text from a scenario or a cast, made safe for a terminal.
//!
//! A scenario's name, description and program text, and a cast's header
//! and markers, reach the screen through the stepper, the text report,
//! `check` and `test`, recordings, warnings and error messages; a file must
//! not be able to move the cursor, write the clipboard (OSC 52), recolour
//! or clear the terminal, reorder what is shown (bidi overrides) or hide
//! text (zero-width characters). Every output path to a terminal passes
//! such text through [`clean`] or [`escape`]; JSON keeps the exact text,
//! which JSON's own escaping makes safe.

/// Whether `c` is a character that changes how other text is shown
/// without being seen itself: the bidirectional embeddings, overrides and
/// isolates (U+202A..U+202E, U+2066..U+2069), the directional marks
/// (U+200E, U+200F, U+061C), and the zero-width characters (U+200B..U+200D,
/// U+2060, U+FEFF).
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{200e}'
            | '\u{200f}'
            | '\u{061c}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200b}'..='\u{200d}'
            | '\u{2060}'
            | '\u{feff}'
    )
}

/// Whether `c` must not reach a terminal as it is: a control character
/// (C0, DEL, C1; tab aside, which only moves to the next column) or an
/// invisible format character.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\t') || is_invisible_format(c)
}

/// `s` with every unsafe character shown as a visible escape (`\u{1b}` for
/// ESC, `\n`, `\u{202e}`), so the reader sees that it is there and nothing
/// acts on it; tabs are kept.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Several lines of output made safe for a terminal: each line as
/// [`escape`], the line breaks kept. For whole reports and messages that
/// carry scenario text among their own.
pub fn escape_lines(s: &str) -> String {
    if !s.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return s.to_string();
    }
    s.split('\n').map(escape).collect::<Vec<_>>().join("\n")
}

/// Scenario text made safe to draw in a cell grid: as [`escape`], with
/// tabs as single spaces (a cell grid has no tab stops).
pub fn clean(s: &str) -> String {
    if s.contains('\t') {
        escape(&s.replace('\t', " "))
    } else {
        escape(s)
    }
}

/// `1234567` as `1,234,567`.
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `s` for XML and HTML text and attribute values, appended to `out`:
/// `&`, `<`, `>`, `"` and `'` as entities, a newline kept, any other
/// control character (which XML 1.0 cannot hold) as `?`.
pub fn escape_markup(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' => out.push('\n'),
            c if c.is_control() => out.push('?'),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_are_grouped_by_thousands() {
        use super::group_digits;
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
        assert_eq!(group_digits(539_391), "539,391");
        assert_eq!(group_digits(1_000_003), "1,000,003");
    }

    use super::*;

    #[test]
    fn clean_shows_escapes_bidi_and_zero_width_characters_as_escapes() {
        // By hand: ESC as \u{1b}, CR and LF as \r \n, the tab a space,
        // U+202E and U+200B as their escapes.
        assert_eq!(
            clean("a\u{1b}[31mb\r\nc\td\u{202e}e\u{200b}f"),
            "a\\u{1b}[31mb\\r\\nc d\\u{202e}e\\u{200b}f"
        );
        assert_eq!(clean("plain: ok"), "plain: ok");
        // OSC 52 with its BEL terminator.
        assert_eq!(clean("\u{1b}]52;c;aGk=\u{7}"), "\\u{1b}]52;c;aGk=\\u{7}");
        for c in [
            '\u{61c}', '\u{200e}', '\u{2066}', '\u{2069}', '\u{2060}', '\u{feff}', '\u{9b}',
        ] {
            assert!(!clean(&format!("x{c}y")).contains(c), "{c:?}");
        }
        assert_eq!(escape("a\tb"), "a\tb");
        assert_eq!(
            escape_lines("a\u{1b}\nb\u{200b}\n"),
            "a\\u{1b}\nb\\u{200b}\n"
        );
    }
}
