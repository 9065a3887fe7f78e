//! Building and rendering [`LoadError`]s: positions, source snippets, and
//! the translation of YAML parser errors into our wording.

use std::fmt;

use serde_saphyr::{MessageFormatter, Spanned, UserMessageFormatter};

use super::LoadError;
use super::raw::SECTIONS;
use crate::expr::spelling::did_you_mean;

/// A position in the file: 1-based line and column (in characters), and the
/// length of the offending text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pos {
    pub line: u32,
    pub column: u32,
    pub len: u32,
}

impl Pos {
    pub(super) fn new(line: u32, column: u32, len: u32) -> Pos {
        Pos { line, column, len }
    }

    /// Where a YAML value is written.
    pub(super) fn of<T>(s: &Spanned<T>) -> Pos {
        let loc = s.referenced;
        Pos {
            line: clamp(loc.line()),
            column: clamp(loc.column()),
            len: clamp(loc.span().len()),
        }
    }

    /// The start of the file.
    pub(super) fn top() -> Pos {
        Pos::new(1, 1, 0)
    }
}

fn clamp(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// The file being loaded: its name for messages and its text for snippets.
pub(super) struct SourceFile<'a> {
    pub file: String,
    pub text: &'a str,
}

impl SourceFile<'_> {
    /// Line `n` (1-based) without its line break, if it exists.
    pub(super) fn line(&self, n: u32) -> Option<&str> {
        let idx = usize::try_from(n).ok()?.checked_sub(1)?;
        self.text
            .split('\n')
            .nth(idx)
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
    }

    /// An error at `pos` about `key`.
    pub(super) fn error(&self, pos: Pos, key: &str, message: impl Into<String>) -> LoadError {
        let source_line = self.line(pos.line).map(sanitize_line);
        // Underline at most to the end of the line: a block scalar's span
        // runs over many lines.
        let len = match &source_line {
            Some(l) => {
                let rest = (l.chars().count() as u32 + 1).saturating_sub(pos.column);
                pos.len.min(rest).max(1)
            }
            None => pos.len.max(1),
        };
        LoadError {
            file: self.file.clone(),
            line: pos.line,
            column: pos.column,
            len,
            key: (!key.is_empty()).then(|| key.to_string()),
            message: message.into(),
            expected: None,
            hint: None,
            source_line,
            also: Vec::new(),
        }
    }

    /// Whether the nearest top-level key above `line` is a block-scalar
    /// `program:` (so an unindented line there ended the program early).
    fn after_block_program(&self, line: u32) -> Option<()> {
        let above: Vec<&str> = self
            .text
            .lines()
            .take(line.saturating_sub(1) as usize)
            .collect();
        let key_line = above
            .iter()
            .rev()
            .find(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()))?;
        let rest = key_line.strip_prefix("program:")?.trim_start();
        (rest.starts_with('|') || rest.starts_with('>')).then_some(())
    }

    /// Translates a YAML parser error (syntax, unknown key, wrong shape).
    pub(super) fn yaml_error(&self, err: &serde_saphyr::Error) -> LoadError {
        let mut inner = err.without_snippet();
        if let serde_saphyr::Error::AliasError { error, .. } = inner {
            inner = error.without_snippet();
        }
        let (line, column) = err.location().map_or((1, 1), |l| {
            (clamp(l.line()).max(1), clamp(l.column()).max(1))
        });
        let path = key_path_at(self.text, line, column);
        let joined = path.join(".");
        let pos = Pos::new(line, column, 1);
        match inner {
            serde_saphyr::Error::SerdeUnknownField {
                field, expected, ..
            } => {
                let section = if joined.is_empty() && !is_top_level(expected) {
                    section_of(expected).to_string()
                } else {
                    joined
                };
                let (message, key) = if section.is_empty() {
                    (format!("unknown key `{field}`"), field.clone())
                } else {
                    (
                        format!("unknown key `{field}` in `{section}`"),
                        format!("{section}.{field}"),
                    )
                };
                let len = field.chars().count() as u32;
                let label_hint = (section.is_empty() && column == 1)
                    .then(|| self.after_block_program(line))
                    .flatten()
                    .map(|_| {
                        format!(
                            "if `{field}:` is a label of the program, indent it like the \
                             instructions: a line at column 1 ends the `program: |` block"
                        )
                    });
                self.error(Pos::new(line, column, len), &key, message)
                    .expected(format!("one of {}", expected.join(", ")))
                    .hint(
                        label_hint
                            .or_else(|| elsewhere(field, &section))
                            .or_else(|| did_you_mean(field, expected.iter().copied()))
                            .or_else(|| {
                                Some("keys are lowercase, with `_` between words".to_string())
                            }),
                    )
            }
            serde_saphyr::Error::DuplicateMappingKey { key, .. } => {
                let name = key.clone().unwrap_or_default();
                let len = name.chars().count() as u32;
                self.error(
                    Pos::new(line, column, len),
                    &joined,
                    format!("duplicate key `{name}`"),
                )
                .hint(Some(
                    "each key may appear once in a mapping; remove one".into(),
                ))
            }
            serde_saphyr::Error::Unexpected { expected, .. } => {
                let wanted = match *expected {
                    "mapping start" => "a mapping (`key: value` lines, or `{ ... }`)",
                    "sequence start" => "a list",
                    other => other,
                };
                let message = if joined.is_empty() {
                    "a scenario must be a mapping of keys such as `name:` and `program:`"
                        .to_string()
                } else {
                    format!("`{joined}` has the wrong type")
                };
                self.error(pos, &joined, message).expected(wanted)
            }
            serde_saphyr::Error::SerdeInvalidType {
                unexpected,
                expected,
                ..
            } => {
                let message = if joined.is_empty() {
                    format!("wrong type: found {unexpected}")
                } else {
                    format!("`{joined}` has the wrong type: found {unexpected}")
                };
                self.error(pos, &joined, message).expected(expected.clone())
            }
            serde_saphyr::Error::MultipleDocuments { .. } => self
                .error(pos, "", "a scenario is a single YAML document")
                .hint(Some(
                    "remove the `---` line and what follows, or merge the documents".into(),
                )),
            other => {
                let text = UserMessageFormatter.format_message(other);
                let message = match text.find(" at line ") {
                    Some(cut) => text.get(..cut).unwrap_or(&text).to_string(),
                    None => text.into_owned(),
                };
                let hint = if message.contains("tab") {
                    "indent with spaces: YAML does not allow tabs for indentation"
                } else if message.contains("not a finite number") {
                    "expected a finite number here, like `0`, `1.5` or `-2e3`: \
                     YAML's `.nan` and `.inf` are not values a key or a register takes"
                } else {
                    "check the indentation and quoting around here"
                };
                self.error(pos, &joined, format!("invalid YAML: {message}"))
                    .hint(Some(hint.into()))
            }
        }
    }
}

/// "`warp_width` belongs under `machine:`" when the key exists in another
/// section.
fn elsewhere(field: &str, section: &str) -> Option<String> {
    SECTIONS
        .iter()
        .find(|(name, keys)| *name != section && keys.contains(&field))
        .map(|(name, _)| match *name {
            "" => format!("`{field}` is a top-level key; move it to the start of a line"),
            "memory.<buffer>" => format!("`{field}` belongs to a buffer under `memory:`"),
            name => format!("`{field}` belongs under `{name}:`"),
        })
}

fn is_top_level(expected: &[&str]) -> bool {
    SECTIONS.first().is_some_and(|(_, keys)| *keys == expected)
}

/// The section whose keys are exactly `expected`.
fn section_of(expected: &[&str]) -> &'static str {
    SECTIONS
        .iter()
        .find(|(_, keys)| *keys == expected)
        .map_or("", |(name, _)| name)
}

impl LoadError {
    pub(super) fn expected(mut self, e: impl Into<String>) -> LoadError {
        self.expected = Some(e.into());
        self
    }

    pub(super) fn hint(mut self, h: Option<String>) -> LoadError {
        self.hint = h;
        self
    }

    /// A whole-file error with no position (a file that cannot be read).
    pub(super) fn file_error(file: String, message: String) -> LoadError {
        LoadError {
            file,
            line: 0,
            column: 0,
            len: 0,
            key: None,
            message,
            expected: None,
            hint: None,
            source_line: None,
            also: Vec::new(),
        }
    }

    /// This error followed by `more`, found in the same pass.
    pub(super) fn with_more(mut self, more: Vec<LoadError>) -> LoadError {
        self.also.extend(more);
        self
    }

    /// This error and the ones found with it, in order.
    pub fn all(&self) -> impl Iterator<Item = &LoadError> {
        std::iter::once(self).chain(&self.also)
    }
}

/// The dotted path of block-mapping keys that encloses (line, column):
/// `machine.latency` for a value under `latency:` under `machine:`. Worked
/// out from indentation, for the parser errors that do not say which key
/// they are about; best effort (flow mappings count as their line's key).
pub(super) fn key_path_at(text: &str, line: u32, column: u32) -> Vec<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(idx) = usize::try_from(line).ok().and_then(|l| l.checked_sub(1)) else {
        return Vec::new();
    };
    let Some(current) = lines.get(idx) else {
        return Vec::new();
    };
    let mut path = Vec::new();
    let mut limit = match block_key(current) {
        Some((indent, key_end, key)) => {
            // Past the key (in its value): the key itself encloses the spot.
            if column as usize > key_end {
                path.push(key);
            }
            indent
        }
        None => current.len() - current.trim_start_matches(' ').len(),
    };
    for l in lines.iter().take(idx).rev() {
        if limit == 0 {
            break;
        }
        if let Some((indent, _, key)) = block_key(l)
            && indent < limit
        {
            path.push(key);
            limit = indent;
        }
    }
    path.reverse();
    path
}

/// `(indent, end column of the key, key)` when `line` is `key:` or
/// `key: value` in block style (also after `- `); columns 0-based, in
/// characters.
fn block_key(line: &str) -> Option<(usize, usize, String)> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut indent = line.len() - line.trim_start_matches(' ').len();
    let mut rest = line.get(indent..)?;
    while let Some(r) = rest.strip_prefix("- ") {
        let pad = r.len() - r.trim_start_matches(' ').len();
        indent += 2 + pad;
        rest = r.get(pad..)?;
    }
    let first = rest.chars().next()?;
    if matches!(first, '#' | '{' | '[' | '-' | '"' | '\'' | '|' | '>') {
        return None;
    }
    let colon = rest
        .find(": ")
        .or_else(|| rest.strip_suffix(':').map(str::len))?;
    let key = rest.get(..colon)?.trim_end();
    if key.is_empty() || key.contains(['{', '[', '#']) {
        return None;
    }
    // Indentation is ASCII spaces, so its byte count is its char count.
    Some((indent, indent + key.chars().count(), key.to_string()))
}

/// A source line as it may be echoed to a terminal: control characters
/// (other than tab), bidi controls and zero-width characters become `?`,
/// one for one, so columns still line up.
pub(super) fn sanitize_line(line: &str) -> String {
    line.chars()
        .map(|c| if crate::text::is_unsafe(c) { '?' } else { c })
        .collect()
}

/// Message text with control, bidi and zero-width characters escaped
/// (`\u{1b}`, `\u{202e}`), so a file cannot drive or reorder the terminal
/// through an error message.
fn sanitize_text(s: &str) -> String {
    crate::text::escape(s)
}

/// Longest source line echoed in full; longer ones are cropped around the
/// error so a minified file does not flood the terminal.
const MAX_SNIPPET: usize = 120;

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error: {}", sanitize_text(&self.message))?;
        let width = self.line.to_string().len();
        let pad = " ".repeat(width + 1);
        if self.line == 0 {
            write!(f, "{pad}--> {}", sanitize_text(&self.file))?;
        } else {
            write!(
                f,
                "{pad}--> {}:{}:{}",
                sanitize_text(&self.file),
                self.line,
                self.column
            )?;
        }
        if let (Some(src), true) = (&self.source_line, self.line > 0) {
            let chars: Vec<char> = src.chars().collect();
            let col = (self.column.max(1) - 1) as usize;
            // Crop long lines to a window that holds the caret.
            let start = if chars.len() > MAX_SNIPPET {
                col.saturating_sub(MAX_SNIPPET / 2)
                    .min(chars.len().saturating_sub(MAX_SNIPPET))
            } else {
                0
            };
            let end = (start + MAX_SNIPPET).min(chars.len());
            let shown: String = chars.get(start..end).unwrap_or_default().iter().collect();
            let lead = if start > 0 { "..." } else { "" };
            let tail = if end < chars.len() { "..." } else { "" };
            // The caret line copies the tabs of the source so it lines up.
            let under: String = lead
                .chars()
                .map(|_| ' ')
                .chain(
                    chars
                        .get(start..col.min(chars.len()).max(start))
                        .unwrap_or_default()
                        .iter()
                        .map(|&c| if c == '\t' { '\t' } else { ' ' }),
                )
                .chain(std::iter::repeat_n(' ', col.saturating_sub(chars.len())))
                .collect();
            let carets = "^".repeat(self.len.max(1) as usize);
            write!(f, "\n{pad} |")?;
            write!(
                f,
                "\n {:>width$} | {lead}{}{tail}",
                self.line,
                sanitize_line(&shown)
            )?;
            write!(f, "\n{pad} | {under}{carets}")?;
        }
        if let Some(e) = &self.expected {
            write!(f, "\n{pad} = expected: {}", sanitize_text(e))?;
        }
        if let Some(h) = &self.hint {
            write!(f, "\n{pad} = hint: {}", sanitize_text(h))?;
        }
        for more in &self.also {
            write!(f, "\n\n{more}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_follow_indentation() {
        let text = "name: x\nmachine:\n  latency:\n    alu: 5\n  warp_width: [1]\nmemory:\n  out: {type: f32, lenn: 3}\n";
        assert_eq!(key_path_at(text, 4, 5), ["machine", "latency"]);
        assert_eq!(key_path_at(text, 4, 10), ["machine", "latency", "alu"]);
        assert_eq!(key_path_at(text, 5, 15), ["machine", "warp_width"]);
        assert_eq!(key_path_at(text, 7, 20), ["memory", "out"]);
        assert_eq!(key_path_at(text, 1, 1), Vec::<String>::new());
        assert_eq!(key_path_at(text, 99, 1), Vec::<String>::new());
    }

    #[test]
    fn renders_like_rustc() {
        let src = SourceFile {
            file: "scenarios/foo.yaml".into(),
            text: "name: x\nmachine:\n  warp_widht: 32\n",
        };
        let err = src
            .error(
                Pos::new(3, 3, 10),
                "machine.warp_widht",
                "unknown key `warp_widht` in `machine`",
            )
            .expected("one of warp_width, convergence")
            .hint(Some("did you mean `warp_width`?".into()));
        let want = "error: unknown key `warp_widht` in `machine`\n  --> scenarios/foo.yaml:3:3\n   |\n 3 |   warp_widht: 32\n   |   ^^^^^^^^^^\n   = expected: one of warp_width, convergence\n   = hint: did you mean `warp_width`?";
        assert_eq!(err.to_string(), want);
    }

    #[test]
    fn control_characters_are_not_echoed() {
        let src = SourceFile {
            file: "f.yaml".into(),
            text: "name: \u{1b}[31mred\n",
        };
        let err = src.error(Pos::new(1, 7, 3), "name", "bad `\u{1b}`");
        let shown = err.to_string();
        assert!(!shown.contains('\u{1b}'));
        assert!(shown.contains("name: ?[31mred"));
        assert!(shown.contains("bad `\\u{1b}`"));
    }

    #[test]
    fn long_lines_are_cropped_around_the_caret() {
        let line = format!("k: {}X{}", "a".repeat(300), "b".repeat(300));
        let src = SourceFile {
            file: "f".into(),
            text: &line,
        };
        let shown = src.error(Pos::new(1, 304, 1), "k", "here").to_string();
        let lines: Vec<&str> = shown.lines().collect();
        // The X sits right above the caret.
        let x = lines[3].find('X').unwrap();
        let caret = lines[4].find('^').unwrap();
        assert_eq!(x, caret);
        assert!(lines[3].len() < 140);
    }
}
