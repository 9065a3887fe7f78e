//! Keys as the bytes a terminal sends for them (xterm's encoding, what
//! crossterm parses), so a cast's `i` events read like a terminal's input:
//! `n`, `"\u001b[C"` for Right, `"\r"` for Enter, `"\u0003"` for Ctrl-C.
//! [`decode`] maps them back; `decode(encode(k))` is `k` for every key
//! warpstep can record.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The bytes a terminal sends for the key, or `None` for a key no
/// terminal sends as bytes (media keys, lone modifiers).
pub fn encode(key: &KeyEvent) -> Option<String> {
    let m = key.modifiers;
    let ctrl = m.contains(KeyModifiers::CONTROL);
    let alt = m.contains(KeyModifiers::ALT);
    // xterm's modifier parameter: 1 + shift(1) + alt(2) + ctrl(4).
    let param =
        1 + u8::from(m.contains(KeyModifiers::SHIFT)) + 2 * u8::from(alt) + 4 * u8::from(ctrl);
    let csi = |last: char| {
        if param > 1 {
            format!("\u{1b}[1;{param}{last}")
        } else {
            format!("\u{1b}[{last}")
        }
    };
    let tilde = |n: u8| {
        if param > 1 {
            format!("\u{1b}[{n};{param}~")
        } else {
            format!("\u{1b}[{n}~")
        }
    };
    let prefix = if alt { "\u{1b}" } else { "" };
    let s = match key.code {
        KeyCode::Char(c) if ctrl => format!("{prefix}{}", control_byte(c)?),
        KeyCode::Char(c) => format!("{prefix}{c}"),
        KeyCode::Enter => format!("{prefix}\r"),
        // Alt is an ESC before the key, for Tab and Null as for the rest:
        // `decode` reads "\u{1b}\t" as Alt-Tab.
        KeyCode::Tab => format!("{prefix}\t"),
        // Shift is what makes it BackTab; any other modifier is a CSI
        // parameter, as `decode` reads it.
        KeyCode::BackTab if param > 2 => format!("\u{1b}[1;{param}Z"),
        KeyCode::BackTab => "\u{1b}[Z".into(),
        KeyCode::Backspace => format!("{prefix}\u{7f}"),
        KeyCode::Esc => format!("{prefix}\u{1b}"),
        KeyCode::Null => format!("{prefix}\0"),
        KeyCode::Up => csi('A'),
        KeyCode::Down => csi('B'),
        KeyCode::Right => csi('C'),
        KeyCode::Left => csi('D'),
        KeyCode::Home => csi('H'),
        KeyCode::End => csi('F'),
        KeyCode::Insert => tilde(2),
        KeyCode::Delete => tilde(3),
        KeyCode::PageUp => tilde(5),
        KeyCode::PageDown => tilde(6),
        KeyCode::F(n @ 1..=4) => {
            let last = char::from(b'P' + n - 1);
            if param > 1 {
                format!("\u{1b}[1;{param}{last}")
            } else {
                format!("\u{1b}O{last}")
            }
        }
        KeyCode::F(n @ 5..=12) => tilde(F_TILDE[usize::from(n - 5)]),
        _ => return None,
    };
    Some(s)
}

/// `CSI n ~` numbers of F5..F12.
const F_TILDE: [u8; 8] = [15, 17, 18, 19, 20, 21, 23, 24];

/// The C0 byte Ctrl plus `c` sends.
fn control_byte(c: char) -> Option<char> {
    let b = match c.to_ascii_lowercase() {
        c @ 'a'..='z' => c as u8 - b'a' + 1,
        ' ' | '@' | '2' => 0,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' => 0x1e,
        '_' | '-' | '7' => 0x1f,
        _ => return None,
    };
    Some(char::from(b))
}

/// The keys in a terminal's input, or what part of it is not a key.
pub fn decode(input: &str) -> Result<Vec<KeyEvent>, String> {
    let chars: Vec<char> = input.chars().collect();
    let mut keys = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (key, len) = decode_one(&chars[i..])
            .ok_or_else(|| format!("`{}` is not a key warpstep knows", escaped(&chars[i..])))?;
        keys.push(key);
        i += len;
    }
    Ok(keys)
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

/// The first key of `s` and how many characters it took.
fn decode_one(s: &[char]) -> Option<(KeyEvent, usize)> {
    let none = KeyModifiers::NONE;
    let c = *s.first()?;
    let plain = match c {
        '\r' | '\n' => key(KeyCode::Enter, none),
        '\t' => key(KeyCode::Tab, none),
        '\u{7f}' | '\u{8}' => key(KeyCode::Backspace, none),
        '\0' => key(KeyCode::Null, none),
        '\u{1b}' => return decode_escape(s),
        '\u{1}'..='\u{1a}' => key(
            KeyCode::Char(char::from(c as u8 - 1 + b'a')),
            KeyModifiers::CONTROL,
        ),
        '\u{1c}'..='\u{1f}' => key(
            KeyCode::Char(char::from(c as u8 - 0x1c + b'4')),
            KeyModifiers::CONTROL,
        ),
        c if c.is_control() => return None,
        c => key(KeyCode::Char(c), none),
    };
    Some((plain, 1))
}

/// `s` starts with ESC: a lone Esc, an escape sequence, or Alt plus a key.
fn decode_escape(s: &[char]) -> Option<(KeyEvent, usize)> {
    let esc = key(KeyCode::Esc, KeyModifiers::NONE);
    match s.get(1) {
        None | Some('\u{1b}') => Some((esc, 1)),
        Some('[') if s.len() > 2 => decode_csi(s),
        Some('O') if s.len() > 2 => Some((key(final_key(s[2])?, KeyModifiers::NONE), 3)),
        Some(_) => {
            let (mut k, len) = decode_one(&s[1..])?;
            k.modifiers |= KeyModifiers::ALT;
            Some((k, len + 1))
        }
    }
}

/// `ESC [ params final`.
fn decode_csi(s: &[char]) -> Option<(KeyEvent, usize)> {
    let end = s[2..]
        .iter()
        .position(|c| ('\u{40}'..='\u{7e}').contains(c))?
        + 2;
    let params: String = s[2..end].iter().collect();
    let mut nums = params.split(';').map(|p| {
        if p.is_empty() {
            Some(1)
        } else {
            p.parse::<u8>().ok()
        }
    });
    let first = nums.next().flatten().unwrap_or(1);
    let modifiers = match nums.next() {
        Some(m) => modifiers(m?)?,
        None => KeyModifiers::NONE,
    };
    let code = match s[end] {
        'Z' => {
            return Some((
                key(KeyCode::BackTab, modifiers | KeyModifiers::SHIFT),
                end + 1,
            ));
        }
        '~' => match first {
            1 | 7 => KeyCode::Home,
            2 => KeyCode::Insert,
            3 => KeyCode::Delete,
            4 | 8 => KeyCode::End,
            5 => KeyCode::PageUp,
            6 => KeyCode::PageDown,
            11..=14 => KeyCode::F(first - 10),
            n => KeyCode::F(F_TILDE.iter().position(|&t| t == n)? as u8 + 5),
        },
        c => final_key(c)?,
    };
    Some((key(code, modifiers), end + 1))
}

/// The key that the final character of `ESC O x` and `ESC [ params x`
/// names in both: the arrows, Home, End and F1 to F4.
fn final_key(c: char) -> Option<KeyCode> {
    Some(match c {
        'A' => KeyCode::Up,
        'B' => KeyCode::Down,
        'C' => KeyCode::Right,
        'D' => KeyCode::Left,
        'H' => KeyCode::Home,
        'F' => KeyCode::End,
        'P'..='S' => KeyCode::F(c as u8 - b'P' + 1),
        _ => return None,
    })
}

fn modifiers(param: u8) -> Option<KeyModifiers> {
    let bits = param.checked_sub(1)?;
    let mut m = KeyModifiers::NONE;
    if bits & 1 != 0 {
        m |= KeyModifiers::SHIFT;
    }
    if bits & 2 != 0 {
        m |= KeyModifiers::ALT;
    }
    if bits & 4 != 0 {
        m |= KeyModifiers::CONTROL;
    }
    Some(m)
}

/// Control characters written as `\u{1b}` escapes, for messages.
fn escaped(s: &[char]) -> String {
    s.iter()
        .take(12)
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", *c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keys::{ctrl, parse_keys, press};

    #[test]
    fn keys_read_like_a_terminals_input() {
        let cases = [
            (press(KeyCode::Char('n')), "n"),
            (press(KeyCode::Right), "\u{1b}[C"),
            (press(KeyCode::Left), "\u{1b}[D"),
            (press(KeyCode::Enter), "\r"),
            (press(KeyCode::Esc), "\u{1b}"),
            (ctrl('c'), "\u{3}"),
            (press(KeyCode::F(1)), "\u{1b}OP"),
            (press(KeyCode::F(5)), "\u{1b}[15~"),
            (press(KeyCode::PageDown), "\u{1b}[6~"),
            (
                KeyEvent::new(KeyCode::Up, KeyModifiers::CONTROL),
                "\u{1b}[1;5A",
            ),
        ];
        for (k, want) in cases {
            assert_eq!(encode(&k).as_deref(), Some(want), "{k:?}");
        }
    }

    #[test]
    fn decode_inverts_encode() {
        let script = "1 0 n <Right> <Left> <Up> <Down> <Space> <lt> > <C-c> <Enter> <Esc> \
                      <BackTab> <Tab> <Backspace> <Home> <End> <PageUp> <PageDown> \
                      <F1> <F4> <F5> <F12> g G ? . , é";
        let keys = parse_keys(script).unwrap();
        let bytes: String = keys.iter().map(|k| encode(k).unwrap()).collect();
        assert_eq!(decode(&bytes).unwrap(), keys);
        for k in [
            KeyEvent::new(KeyCode::Right, KeyModifiers::SHIFT | KeyModifiers::CONTROL),
            KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT),
            KeyEvent::new(KeyCode::Delete, KeyModifiers::NONE),
            KeyEvent::new(KeyCode::F(3), KeyModifiers::SHIFT),
            KeyEvent::new(KeyCode::PageUp, KeyModifiers::ALT),
            // Found by fuzzing: Alt-Null, Alt-Tab and Alt-Shift-Tab came
            // back without their Alt.
            KeyEvent::new(KeyCode::Null, KeyModifiers::ALT),
            KeyEvent::new(KeyCode::Tab, KeyModifiers::ALT),
            KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT | KeyModifiers::ALT),
        ] {
            assert_eq!(decode(&encode(&k).unwrap()).unwrap(), vec![k]);
        }
    }

    #[test]
    fn unknown_sequences_are_errors() {
        assert!(decode("\u{1b}[99~").is_err());
        assert!(decode("\u{1b}[1;5").is_err());
        assert_eq!(
            decode("\u{1b}[").unwrap(),
            vec![KeyEvent::new(KeyCode::Char('['), KeyModifiers::ALT)]
        );
    }
}
