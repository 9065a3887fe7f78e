//! The stepper's keys, and key scripts (`"10n p c q"`) for headless use.
//!
//! | key | action |
//! | --- | --- |
//! | `Space`, `n`, `Right` | one cycle (issue slot) forward |
//! | `p`, `Left` | one cycle back |
//! | `1`..`9`, then digits | count prefix: `10n` ten cycles forward, `5p` five back, `3s`, `2d`... |
//! | `s` | step until the focused warp issues |
//! | `c` | run until an instruction with a breakpoint issues (none set: says so) |
//! | `d` | run until a branch diverges |
//! | `r` | run until lanes reconverge |
//! | `e` | run to the end |
//! | `D` / `J` / `C` | back to the previous divergence / reconvergence (lanes rejoin) / breakpoint hit: the latest cycle before this one that a forward run would stop at, shown as it would; none: says so and stays |
//! | `+` / `-` | faster / slower runs (the top speed, the default, is paced by wall time) |
//! | `Esc`, any other key | stops a run or a go-to (`q` and `Ctrl-C` still quit) |
//! | `g` | go to cycle N (type N, then `Enter`; `Esc` cancels); `120g` goes at once |
//! | `End`, `G` | jump to the end of the run |
//! | `R`, `Home` | restart at cycle 0 (breakpoints stay) |
//! | `b` | toggle a breakpoint at the listing cursor (`Enter` too, in the program pane); in the source pane, on the cursor's source line |
//! | `B` | a conditional breakpoint at the listing cursor (`?` in the gutter): type `w3` (that warp issues it), `active<8` (with fewer active lanes), `div` (the issue diverges) or `R2==5` (the register holds the value in an active lane), `Enter`; empty clears it, `b` too |
//! | `Up`/`Down`, `k`/`j` | in the program pane: move the cursor; source pane: the source line (the listing cursor goes to its first instruction); lane pane: lane; else: warp |
//! | `PageUp`/`PageDown` | cursor up or down a page |
//! | `f` | the listing cursor follows the focused warp again |
//! | `Tab` / `Shift-Tab` | focus the next / previous pane |
//! | `w` / `W` | focus the next / previous warp |
//! | `.` / `,` (`>` / `<`) | select the next / previous lane (lane pane: its registers) |
//! | `/` | search the program's text and labels (type, `Enter`): the cursor goes to the next match |
//! | `o` / `O` | the next / previous match of the last search, wrapping around |
//! | `:` | go to an address (`0x40`, `40`, `/*0040*/`) or a label, in the program pane |
//! | `i` | about: the scenario's description and machine |
//! | `?` | help: this table |
//! | `Esc` | close a window, clear a count |
//! | `q`, `Ctrl-C` | quit |
//!
//! A key script is what a user types, as text: every character outside
//! angle brackets is one key, whitespace separates and is not a key, and
//! `<Name>` names a key that is not a character: `<Space>`, `<Enter>`,
//! `<Esc>`, `<Tab>`, `<BackTab>`, `<Backspace>`, `<Up>`, `<Down>`,
//! `<Left>`, `<Right>`, `<Home>`, `<End>`, `<PageUp>`, `<PageDown>`,
//! `<F1>`..`<F12>`, `<lt>` and `<gt>` (a literal `<` and `>`), `<C-c>`
//! (Ctrl plus a character; `<C-lt>`, `<C-gt>`, `<C-Space>` for those
//! three). A word that is exactly one of those names is that key
//! without the brackets (`Enter`, `PageDown`, `F5`, `C-c`; case matters),
//! and a capitalized word of letters that names no key (`Entr`) is an
//! error. So `"10n p c q"` is `1 0 n p c q`, and
//! `"<Right> <Space> g 120 Enter"` is Right, Space, `g 1 2 0`, Enter.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The keys of the source pane, listed after [`HELP`] when the program has
/// line info.
pub const HELP_SOURCE: &[(&str, &str)] = &[
    ("Tab to Source", "source lines (line info)"),
    ("Up Down k j", "source line; SASS follows"),
    ("b Enter", "breakpoint on the line"),
];

/// The source pane's columns, as the help overlay's legend explains them.
pub const SOURCE_LEGEND: &str = "Source: execs issues of the line's instructions, SIMD on-lanes/(W x execs), \
div divergent branches, top stall (LS long_sb SS short_sb WT wait NS not_sel BA barrier \
BR branch MP mufu_pipe DS dispatch CB conv_bar EX exited); \u{25b6} focused warp, 1-9 other warps";

/// Every key, as the help overlay lists it: (keys, what they do).
pub const HELP: &[(&str, &str)] = &[
    ("Space n Right", "one cycle forward"),
    ("p Left", "one cycle back"),
    ("1-9 0-9", "count: 10n 5p 3s 120g"),
    ("s", "until the warp issues"),
    ("c", "run to breakpoint"),
    ("d", "run to divergence"),
    ("r", "run to reconvergence"),
    ("e", "run to the end"),
    ("D", "back to divergence"),
    ("J", "back to reconvergence"),
    ("C", "back to breakpoint"),
    ("+ -", "faster / slower runs"),
    ("Esc, any key", "stops a run or a go-to"),
    ("g", "go to cycle: g N Enter"),
    ("End G", "jump to the end"),
    ("R Home", "restart at cycle 0"),
    ("b", "breakpoint at cursor"),
    ("B", "if w3 active<8 div R2==5"),
    ("Up Down k j", "cursor/warp/lane by pane"),
    ("PgUp PgDn", "cursor by a page"),
    ("f", "cursor follows the warp"),
    ("Tab S-Tab", "next / previous pane"),
    ("w W", "next / previous warp"),
    (". , > <", "next / previous lane"),
    ("/ o O", "search; next / previous"),
    (":", "go to address or label"),
    ("t", "tour on/off; Space: next"),
    ("Backspace", "tour: the step before"),
    ("i", "about the scenario"),
    ("?", "this help"),
    ("Esc", "close, clear the count"),
    ("q Ctrl-C", "quit"),
];

/// A key script that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("key script, at character {}: {message}", .offset + 1)]
pub struct KeyScriptError {
    /// Character offset of the offending text.
    pub offset: usize,
    pub message: String,
}

const NAMED: &[(&str, KeyCode)] = &[
    ("Space", KeyCode::Char(' ')),
    ("Enter", KeyCode::Enter),
    ("Esc", KeyCode::Esc),
    ("Tab", KeyCode::Tab),
    ("BackTab", KeyCode::BackTab),
    ("Backspace", KeyCode::Backspace),
    ("Up", KeyCode::Up),
    ("Down", KeyCode::Down),
    ("Left", KeyCode::Left),
    ("Right", KeyCode::Right),
    ("Home", KeyCode::Home),
    ("End", KeyCode::End),
    ("PageUp", KeyCode::PageUp),
    ("PageDown", KeyCode::PageDown),
    ("lt", KeyCode::Char('<')),
    ("gt", KeyCode::Char('>')),
];

/// A key press with no modifiers.
pub fn press(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// `Ctrl` plus a character.
pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn named(name: &str) -> Option<KeyEvent> {
    if let Some((_, code)) = NAMED.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return Some(if *code == KeyCode::BackTab {
            KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)
        } else {
            press(*code)
        });
    }
    let lower = name.to_ascii_lowercase();
    for prefix in ["c-", "ctrl-", "ctrl+"] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let mut chars = rest.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) => Some(ctrl(c)),
                // `<C-gt>`, `<C-lt>`, `<C-Space>`: a character that a
                // key name cannot hold as itself.
                _ => NAMED.iter().find_map(|(n, code)| match code {
                    KeyCode::Char(c) if n.eq_ignore_ascii_case(rest) => Some(ctrl(*c)),
                    _ => None,
                }),
            };
        }
    }
    let n: u8 = lower.strip_prefix('f')?.parse().ok()?;
    (1..=12).contains(&n).then(|| press(KeyCode::F(n)))
}

/// The names a key script accepts, for messages.
fn known_names() -> String {
    let names: Vec<String> = NAMED.iter().map(|(n, _)| format!("<{n}>")).collect();
    format!("{}, <F1>..<F12>, <C-x> (Ctrl plus x)", names.join(", "))
}

/// What a whitespace-separated word of a key script is.
enum Word {
    /// A key's name written without brackets (`Enter`, `PageDown`, `F5`,
    /// `C-c`), as written in [`NAMED`] (case matters: `up` is `u p`).
    Key(KeyEvent),
    /// A capitalized word of letters that names no key (`Entr`): a typo
    /// of a name, refused rather than played as letters.
    Unknown,
    /// Keys, one per character (`10n`, `q`).
    Characters,
}

fn bare_word(word: &str) -> Word {
    let mut chars = word.chars();
    let (Some(first), Some(_)) = (chars.next(), chars.next()) else {
        return Word::Characters;
    };
    // `lt` and `gt` are names only inside brackets: a bare `gt` is `g t`.
    let exact = NAMED
        .iter()
        .any(|(n, _)| *n == word && n.starts_with(|c: char| c.is_ascii_uppercase()))
        || word
            .strip_prefix('F')
            .is_some_and(|n| n.parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)))
        || (word.starts_with("C-") && word.chars().count() == 3);
    if exact && let Some(key) = named(word) {
        return Word::Key(key);
    }
    let capitalized = first.is_ascii_uppercase()
        && word.chars().all(|c| c.is_ascii_alphabetic())
        && word.chars().skip(1).any(|c| c.is_ascii_lowercase());
    if capitalized && word.len() >= 3 {
        Word::Unknown
    } else {
        Word::Characters
    }
}

/// Parses a key script (see the module documentation) into key presses.
pub fn parse_keys(script: &str) -> Result<Vec<KeyEvent>, KeyScriptError> {
    let mut keys = Vec::new();
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '<' {
            let Some(len) = chars[i + 1..].iter().position(|&c| c == '>') else {
                return Err(KeyScriptError {
                    offset: i,
                    message: "`<` opens a key name that is never closed with `>` (write <lt> for the key `<`)"
                        .into(),
                });
            };
            let name: String = chars[i + 1..i + 1 + len].iter().collect();
            let Some(key) = named(name.trim()) else {
                return Err(KeyScriptError {
                    offset: i,
                    message: format!("unknown key <{name}>; known: {}", known_names()),
                });
            };
            keys.push(key);
            i += len + 2;
            continue;
        }
        // A whole word that is a key's name is that key: `g 100 Enter q`.
        if i == 0 || chars[i - 1].is_whitespace() {
            let len = chars[i..]
                .iter()
                .position(|c| c.is_whitespace())
                .unwrap_or(chars.len() - i);
            let word: String = chars[i..i + len].iter().collect();
            match bare_word(&word) {
                Word::Key(key) => {
                    keys.push(key);
                    i += len;
                    continue;
                }
                Word::Unknown => {
                    return Err(KeyScriptError {
                        offset: i,
                        message: format!(
                            "`{word}` is not a key name; known: {}; to press its letters one \
                             by one, separate them with spaces",
                            known_names()
                        ),
                    });
                }
                Word::Characters => {}
            }
        }
        if c.is_control() {
            return Err(KeyScriptError {
                offset: i,
                message: format!(
                    "control character {:?} in a key script; name the key instead: {}",
                    c,
                    known_names()
                ),
            });
        }
        keys.push(press(KeyCode::Char(c)));
        i += 1;
    }
    Ok(keys)
}

/// The key as a key script writes it (`n`, `<Right>`, `<C-c>`).
pub fn format_key(key: &KeyEvent) -> String {
    if key.modifiers.contains(KeyModifiers::CONTROL)
        && let KeyCode::Char(c) = key.code
    {
        // The characters a bracketed name cannot hold go by their names.
        return match c {
            ' ' => "<C-Space>".into(),
            '<' => "<C-lt>".into(),
            '>' => "<C-gt>".into(),
            c => format!("<C-{c}>"),
        };
    }
    match key.code {
        KeyCode::Char(' ') => "<Space>".into(),
        KeyCode::Char('<') => "<lt>".into(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::F(n) => format!("<F{n}>"),
        code => NAMED
            .iter()
            .find(|(_, k)| *k == code)
            .map_or_else(|| format!("<{code:?}>"), |(n, _)| format!("<{n}>")),
    }
}

/// A key script for a list of keys: the inverse of [`parse_keys`].
pub fn format_keys(keys: &[KeyEvent]) -> String {
    keys.iter().map(format_key).collect::<Vec<_>>().join(" ")
}

/// True for presses and repeats (some terminals also report releases).
pub fn is_press(key: &KeyEvent) -> bool {
    key.kind != KeyEventKind::Release
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<KeyEvent> {
        s.chars().map(|c| press(KeyCode::Char(c))).collect()
    }

    #[test]
    fn counts_and_letters_are_one_key_per_character() {
        assert_eq!(parse_keys("10n p c q").unwrap(), chars("10npcq"));
        assert_eq!(parse_keys("").unwrap(), vec![]);
        assert_eq!(parse_keys("  \n ").unwrap(), vec![]);
    }

    #[test]
    fn named_keys_in_angle_brackets() {
        let mut want = vec![press(KeyCode::Right), press(KeyCode::Char(' '))];
        want.extend(chars("g120"));
        want.push(press(KeyCode::Enter));
        assert_eq!(parse_keys("<Right> <Space> g 120 <Enter>").unwrap(), want);
        assert_eq!(
            parse_keys("<c-c><F5><lt>>").unwrap(),
            vec![
                ctrl('c'),
                press(KeyCode::F(5)),
                press(KeyCode::Char('<')),
                press(KeyCode::Char('>'))
            ]
        );
        assert_eq!(parse_keys("<left><ESC>").unwrap()[1], press(KeyCode::Esc));
        assert_eq!(
            parse_keys("<BackTab>").unwrap(),
            vec![KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)]
        );
    }

    #[test]
    fn bad_scripts_say_where() {
        let e = parse_keys("n <Rigth> q").unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(e.message.contains("unknown key <Rigth>"), "{e}");
        let e = parse_keys("5n <Right").unwrap_err();
        assert_eq!(e.offset, 3);
        assert!(parse_keys("<F13>").is_err());
        assert!(parse_keys("<C-ab>").is_err());
        assert!(parse_keys("a\u{1b}b").is_err());
    }

    #[test]
    fn format_is_the_inverse_of_parse() {
        let script = "1 0 n <Right> <Space> <lt> > <C-c> <Enter> <BackTab> <F2> g";
        let keys = parse_keys(script).unwrap();
        assert_eq!(format_keys(&keys), script);
        assert_eq!(parse_keys(&format_keys(&keys)).unwrap(), keys);
    }

    #[test]
    fn ctrl_with_a_bracket_or_space_is_written_by_name() {
        // `C->` as a bare word is Ctrl plus `>`; written back as `<C->>` it
        // would not parse (the name would end at the first `>`).
        let keys = parse_keys("C-> C-<").unwrap();
        assert_eq!(keys, vec![ctrl('>'), ctrl('<')]);
        assert_eq!(format_keys(&keys), "<C-gt> <C-lt>");
        assert_eq!(parse_keys("<C-gt> <C-lt>").unwrap(), keys);
        assert_eq!(format_key(&ctrl(' ')), "<C-Space>");
        assert_eq!(parse_keys("<ctrl-space>").unwrap(), vec![ctrl(' ')]);
        // The names are bracketed only: a bare `gt` is `g t`.
        assert_eq!(parse_keys("gt").unwrap(), chars("gt"));
        assert_eq!(parse_keys("<gt>").unwrap(), chars(">"));
    }
}
