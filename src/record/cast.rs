//! The asciicast v2 file: a header object on the first line, then one
//! event per line, `[time, code, data]`, times in seconds from the start.
//! The reader also takes asciicast v3, as asciinema 3 records it: the size
//! in `term: {cols, rows}`, each event's time the interval since the one
//! before, `#` comment lines and `x` (exit) events.
//!
//! ```text
//! {"version":2,"width":100,"height":30,"timestamp":0,"title":"warpstep: divergent loop",
//!  "env":{"TERM":"xterm-256color"},
//!  "warpstep":{"version":"0.1.0","scenario":"name: ...","origin":"builtin:divergent-loop",
//!              "ascii":false,"animate":false,"key_delay":0.5}}
//! [0.0,"o","\u001b[H\u001b[2J\u001b[1;1H┌ Mask grid ..."]
//! [0.5,"i","\u001b[C"]
//! [0.5,"o","\u001b[30;8H1 ..."]
//! [0.5,"m","cycle 1 · w0 S2R"]
//! [3.2,"r","120x40"]
//! ```
//!
//! The header (written as one line) carries the scenario's full text under
//! the extra key `warpstep`, so a cast is self-contained. The writer writes
//! and flushes each line whole, so a recording that is killed is a valid
//! cast up to its last event; the reader ignores a last line that was cut
//! short, with a warning, and reports anything else that is wrong with the
//! line it is on.

use std::io::{self, Write};

use ratatui::crossterm::event::KeyEvent;
use serde::Serialize;
use serde_json::Value;

use super::{key_bytes, marker};

/// Seconds between keys in a headless recording (`record --keys`).
pub const KEY_DELAY: f64 = 0.5;

/// The header line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Header {
    pub version: u32,
    pub width: u16,
    pub height: u16,
    /// Unix time the recording began (headless: `SOURCE_DATE_EPOCH`, or 0).
    pub timestamp: u64,
    pub title: String,
    pub env: Env,
    pub warpstep: Meta,
}

/// `env` of the header: the terminal type the frames were drawn for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Env {
    #[serde(rename = "TERM")]
    pub term: String,
}

/// The header's `warpstep` key: what replay needs to re-run the session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Meta {
    /// The warpstep version that recorded the cast.
    pub version: String,
    /// The scenario's full YAML text.
    pub scenario: String,
    /// Where it came from (`builtin:NAME` or the path), for messages.
    pub origin: String,
    /// Drawn with `--ascii`.
    pub ascii: bool,
    /// Runs animated (an interactive recording): a key could stop a run
    /// part way, and the markers say where each frame was. Headless
    /// recordings complete every run within its key.
    pub animate: bool,
    /// Seconds between keys of a headless recording.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_delay: Option<f64>,
    /// `--convergence` of the recording, where it changed the scenario's
    /// model (`stack` or `its`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convergence: Option<String>,
    /// `--policy` of the recording, where it changed the scenario's
    /// (`lrr` or `gto`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

/// Writes a cast line by line, each line flushed as soon as it is whole.
pub struct CastWriter<W: Write> {
    out: W,
    last_time: f64,
}

impl<W: Write> CastWriter<W> {
    /// Writes the header line.
    pub fn new(mut out: W, header: &Header) -> io::Result<Self> {
        let mut line = serde_json::to_string(header).map_err(io::Error::other)?;
        line.push('\n');
        out.write_all(line.as_bytes())?;
        out.flush()?;
        Ok(CastWriter {
            out,
            last_time: 0.0,
        })
    }

    /// Writes `[time, code, data]`. Times are rounded to microseconds and
    /// never go back.
    pub fn event(&mut self, time: f64, code: &str, data: &str) -> io::Result<()> {
        let t = ((time * 1e6).round() / 1e6).max(self.last_time);
        self.last_time = t;
        let mut line = serde_json::to_string(&(t, code, data)).map_err(io::Error::other)?;
        line.push('\n');
        // One write per line: a kill leaves whole lines, or a cut last one.
        self.out.write_all(line.as_bytes())?;
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// A cast that warpstep can replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Cast {
    pub width: u16,
    pub height: u16,
    pub title: Option<String>,
    pub meta: Meta,
    pub events: Vec<Event>,
    /// What was tolerated: a cut last line.
    pub warnings: Vec<String>,
}

/// One event and the line it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub time: f64,
    /// 1-based line of the cast.
    pub line: usize,
    pub kind: EventKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// `o`: bytes for the terminal.
    Output(String),
    /// `i`: the keys typed, decoded.
    Input(Vec<KeyEvent>),
    /// `m`: a marker; `cycle` is read from a `cycle N · ...` label.
    Marker { label: String, cycle: Option<u64> },
    /// `r`: the terminal became COLS x ROWS.
    Resize(u16, u16),
}

/// What is wrong with a cast, and on which line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: line {line}: {message}")]
pub struct CastError {
    pub file: String,
    /// 1-based line of the cast.
    pub line: usize,
    pub message: String,
}

/// Reads and checks a cast that `warpstep record` made; `file` names it in
/// errors.
pub fn parse(file: &str, text: &str) -> Result<Cast, CastError> {
    parse_with(file, text, None)
}

/// Reads a cast for its frames only (`warpstep svg`): any asciicast v2 or
/// v3, with or without the `warpstep` header key, which is not read.
pub fn parse_frames(file: &str, text: &str) -> Result<Cast, CastError> {
    let none = Meta {
        version: String::new(),
        scenario: String::new(),
        origin: String::new(),
        ascii: false,
        animate: false,
        key_delay: None,
        convergence: None,
        policy: None,
    };
    parse_with(file, text, Some(none))
}

/// Reads and checks a cast, asciicast v2 or v3. `given` is the scenario
/// to re-run when the header has no `warpstep` key (a cast recorded by
/// asciinema itself, `asciinema rec --stdin -c warpstep`), or instead of
/// the one it has (`replay --scenario`).
pub fn parse_with(file: &str, text: &str, given: Option<Meta>) -> Result<Cast, CastError> {
    let err = |line: usize, message: String| CastError {
        file: file.to_string(),
        line,
        message,
    };
    let mut lines: Vec<&str> = text.split('\n').collect();
    // A final newline leaves an empty last piece; without one, the last
    // line may have been cut by a killed recording.
    let cut_last = match lines.last() {
        Some(&"") => {
            lines.pop();
            false
        }
        _ => true,
    };
    if lines.iter().all(|l| l.trim().is_empty()) {
        return Err(err(
            1,
            "the file is empty; a cast starts with an asciicast v2 header line".into(),
        ));
    }
    let n = lines.len();
    let strip = |l: &str| l.strip_suffix('\r').unwrap_or(l).to_string();
    let first = strip(lines[0]);
    let header: Value = serde_json::from_str(&first).map_err(|e| {
        if cut_last && n == 1 {
            err(
                1,
                "the header line is cut short: the recording stopped before it began".into(),
            )
        } else {
            err(
                1,
                format!("not JSON ({e}); a cast starts with an asciicast v2 header object"),
            )
        }
    })?;
    let (version, width, height, title, meta) =
        read_header(&header, given).map_err(|m| err(1, m))?;

    let mut events = Vec::new();
    let mut warnings = Vec::new();
    let mut last: Option<(f64, usize)> = None;
    // v3 times are intervals from the event before: the sum is the time.
    let mut clock = 0.0;
    for (i, raw) in lines.iter().enumerate().skip(1) {
        let line_no = i + 1;
        let line = strip(raw);
        if line.trim().is_empty() || (version == 3 && line.starts_with('#')) {
            continue;
        }
        let value: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(_) if cut_last && i == n - 1 => {
                warnings.push(format!(
                    "{file}: line {line_no} is cut short (the recording was interrupted); \
                     replaying the {} whole events before it",
                    events.len()
                ));
                break;
            }
            Err(e) => return Err(err(line_no, format!("not JSON ({e})"))),
        };
        let Some(mut ev) = read_event(&value, line_no, version).map_err(|m| err(line_no, m))?
        else {
            continue;
        };
        if version == 3 {
            clock += ev.time;
            ev.time = clock;
        }
        if let Some((t, at)) = last
            && ev.time < t
        {
            return Err(err(
                line_no,
                format!(
                    "time {} s is before the {} s of the event on line {at}: \
                     event times must not go back",
                    ev.time, t
                ),
            ));
        }
        last = Some((ev.time, line_no));
        events.push(ev);
    }
    Ok(Cast {
        width,
        height,
        title,
        meta,
        events,
        warnings,
    })
}

type HeaderParts = (u32, u16, u16, Option<String>, Meta);

fn read_header(v: &Value, given: Option<Meta>) -> Result<HeaderParts, String> {
    let Some(obj) = v.as_object() else {
        return Err(format!(
            "the header is {}, not a JSON object; a cast starts with an asciicast v2 header",
            kind(v)
        ));
    };
    let version = match obj.get("version") {
        None => {
            return Err("the header has no `version` (asciicast v2 has `\"version\": 2`)".into());
        }
        Some(Value::Number(n)) if n.as_u64() == Some(2) => 2,
        Some(Value::Number(n)) if n.as_u64() == Some(3) => 3,
        Some(other) => {
            return Err(format!(
                "asciicast version {other} is not supported; warpstep reads versions 2 and 3"
            ));
        }
    };
    let cells = |v: Option<&Value>, key: &str| -> Result<u16, String> {
        match v {
            None => Err(format!("the header has no `{key}`")),
            Some(v) => v
                .as_u64()
                .and_then(|n| u16::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    format!("the header's `{key}` is {v}, not a whole number of cells above 0")
                }),
        }
    };
    // v2: `width` and `height`; v3: `term: {cols, rows, type}`.
    let (width, height) = if version == 2 {
        (
            cells(obj.get("width"), "width")?,
            cells(obj.get("height"), "height")?,
        )
    } else {
        let term = obj.get("term").and_then(Value::as_object);
        let Some(term) = term else {
            return Err("the header has no `term` object (asciicast v3 has \
                        `\"term\": {\"cols\": 80, \"rows\": 24}`)"
                .into());
        };
        (
            cells(term.get("cols"), "term.cols")?,
            cells(term.get("rows"), "term.rows")?,
        )
    };
    let title = obj.get("title").and_then(Value::as_str).map(String::from);
    if let Some(meta) = given {
        return Ok((version, width, height, title, meta));
    }
    let Some(ws) = obj.get("warpstep") else {
        return Err(
            "the header has no `warpstep` key: this cast was not made by `warpstep record`, \
             so it has no scenario to re-run; name the one it shows with `--scenario`"
                .into(),
        );
    };
    let Some(ws) = ws.as_object() else {
        return Err(format!(
            "the header's `warpstep` is {}, not an object",
            kind(ws)
        ));
    };
    let text = |key: &str| -> Result<String, String> {
        match ws.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            None => Err(format!("the header's `warpstep` has no `{key}`")),
            Some(v) => Err(format!(
                "the header's `warpstep.{key}` is {}, not a string",
                kind(v)
            )),
        }
    };
    let flag = |key: &str, default: bool| -> Result<bool, String> {
        match ws.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(format!(
                "the header's `warpstep.{key}` is {}, not true or false",
                kind(v)
            )),
        }
    };
    let choice = |key: &str, names: &[&str]| -> Result<Option<String>, String> {
        match ws.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if names.contains(&s.as_str()) => Ok(Some(s.clone())),
            Some(v) => Err(format!(
                "the header's `warpstep.{key}` is {}, not one of {}",
                short(v),
                names.join(", ")
            )),
        }
    };
    let meta = Meta {
        version: text("version")?,
        scenario: text("scenario")?,
        origin: ws
            .get("origin")
            .and_then(Value::as_str)
            .unwrap_or("the cast")
            .to_string(),
        ascii: flag("ascii", false)?,
        // Without the key, assume the general case: markers say where runs were.
        animate: flag("animate", true)?,
        key_delay: ws.get("key_delay").and_then(Value::as_f64),
        convergence: choice("convergence", &["stack", "its"])?,
        policy: choice("policy", &["lrr", "gto"])?,
    };
    Ok((version, width, height, title, meta))
}

/// One event line; `None` for one that says nothing to a replay (v3's
/// `x`, the exit status of the recorded command).
fn read_event(v: &Value, line: usize, version: u32) -> Result<Option<Event>, String> {
    let shape = || {
        format!(
            "an event is `[time, code, data]`, like `[0.5, \"i\", \"n\"]`; this is {}",
            short(v)
        )
    };
    let Some([t, code, data]) = v.as_array().map(Vec::as_slice) else {
        return Err(shape());
    };
    let time = t
        .as_f64()
        .filter(|t| t.is_finite() && *t >= 0.0)
        .ok_or_else(|| {
            if version == 3 {
                format!("the interval {t} is not a number of seconds since the event before")
            } else {
                format!("the time {t} is not a number of seconds from the start")
            }
        })?;
    let Some(code) = code.as_str() else {
        return Err(shape());
    };
    if version == 3 && code == "x" {
        return Ok(None);
    }
    let Some(data) = data.as_str() else {
        return Err(format!(
            "the data of an `{code}` event is {}, not a string",
            kind(data)
        ));
    };
    let kind = match code {
        "o" => EventKind::Output(data.to_string()),
        "i" => EventKind::Input(key_bytes::decode(data).map_err(|e| format!("input: {e}"))?),
        "m" => EventKind::Marker {
            label: data.to_string(),
            cycle: marker::cycle_of(data),
        },
        "r" => {
            let size = data.split_once('x').and_then(|(c, r)| {
                let c: u16 = c.trim().parse().ok()?;
                let r: u16 = r.trim().parse().ok()?;
                (c > 0 && r > 0).then_some((c, r))
            });
            let (c, r) = size.ok_or_else(|| {
                format!("a resize is `COLSxROWS`, like `100x30`; this is `{data}`")
            })?;
            EventKind::Resize(c, r)
        }
        other => {
            return Err(format!(
                "unknown event code `{other}`; asciicast v{version} has `o` (output), `i` \
                 (input), `m` (marker){} and `r` (resize)",
                if version == 3 { ", `x` (exit)" } else { "" }
            ));
        }
    };
    Ok(Some(Event { time, line, kind }))
}

/// `a string`, `an array`, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The value as JSON, cut to a readable length.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("`{cut}...`")
    } else {
        format!("`{s}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        r#"{"version":2,"width":80,"height":24,"warpstep":{"version":"0.1.0","scenario":"x"}}"#;

    fn cast(body: &str) -> Result<Cast, CastError> {
        parse("t.cast", &format!("{HEADER}\n{body}"))
    }

    fn line_err(body: &str) -> (usize, String) {
        let e = cast(body).unwrap_err();
        (e.line, e.message)
    }

    #[test]
    fn events_are_read_with_their_lines() {
        let c = cast("[0.0,\"o\",\"x\"]\n[0.5,\"i\",\"2n\"]\n[0.5,\"m\",\"cycle 2 · w0 MOV\"]\n[1,\"r\",\"90x30\"]\n").unwrap();
        assert_eq!(c.events.len(), 4);
        assert_eq!(c.events[1].line, 3);
        assert!(matches!(&c.events[1].kind, EventKind::Input(k) if k.len() == 2));
        assert!(matches!(
            c.events[2].kind,
            EventKind::Marker { cycle: Some(2), .. }
        ));
        assert_eq!(c.events[3].kind, EventKind::Resize(90, 30));
        assert!(c.meta.animate, "absent: the general case");
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn malformed_lines_say_where_and_what() {
        assert_eq!(line_err("[0,\"o\",\"x\"]\n{oops\n").0, 3);
        assert!(
            line_err("{oops\n[0,\"o\",\"x\"]\n")
                .1
                .starts_with("not JSON")
        );
        assert!(line_err("[0,\"o\"]\n").1.contains("`[time, code, data]`"));
        assert!(
            line_err("[\"a\",\"o\",\"x\"]\n")
                .1
                .contains("not a number of seconds")
        );
        assert!(
            line_err("[0,\"x\",\"x\"]\n")
                .1
                .contains("unknown event code `x`")
        );
        assert!(line_err("[0,\"o\",5]\n").1.contains("not a string"));
        assert!(line_err("[0,\"r\",\"big\"]\n").1.contains("COLSxROWS"));
        assert!(
            line_err("[0,\"i\",\"\\u001b[99~\"]\n")
                .1
                .contains("not a key")
        );
        let (line, msg) = line_err("[1.5,\"o\",\"a\"]\n[1.0,\"o\",\"b\"]\n");
        assert_eq!(line, 3);
        assert!(
            msg.contains("line 2") && msg.contains("must not go back"),
            "{msg}"
        );
    }

    #[test]
    fn header_problems_are_line_1() {
        for (text, want) in [
            ("", "empty"),
            ("[1,2]\n", "not a JSON object"),
            ("{\"version\":1}\n", "version 1 is not supported"),
            ("{\"width\":3}\n", "no `version`"),
            ("{\"version\":2,\"height\":3}\n", "no `width`"),
            ("{\"version\":2,\"width\":0,\"height\":3}\n", "above 0"),
            (
                "{\"version\":2,\"width\":80,\"height\":24}\n",
                "not made by `warpstep record`",
            ),
            (
                "{\"version\":2,\"width\":80,\"height\":24,\"warpstep\":{\"version\":\"1\"}}\n",
                "no `scenario`",
            ),
            ("{\"version\":2,\"wid", "cut short"),
        ] {
            let e = parse("t.cast", text).unwrap_err();
            assert_eq!(e.line, 1, "{text}");
            assert!(e.message.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn a_cut_last_line_is_dropped_with_a_warning() {
        let c = cast("[0.0,\"o\",\"x\"]\n[0.5,\"i\",\"n\"]\n[0.5,\"o\",\"\\u001b[3").unwrap();
        assert_eq!(c.events.len(), 2);
        assert_eq!(c.warnings.len(), 1);
        assert!(
            c.warnings[0].contains("line 4 is cut short"),
            "{:?}",
            c.warnings
        );
        // A complete last line without its newline is fine.
        let c = cast("[0.0,\"o\",\"x\"]").unwrap();
        assert_eq!((c.events.len(), c.warnings.len()), (1, 0));
        // A broken line with a newline after it is an error, not a cut.
        assert!(cast("[0.5,\"o\",\"\\u001b[3\n").is_err());
    }

    #[test]
    fn the_writer_never_goes_back_in_time() {
        let header = Header {
            version: 2,
            width: 80,
            height: 24,
            timestamp: 0,
            title: "t".into(),
            env: Env {
                term: "xterm-256color".into(),
            },
            warpstep: Meta {
                version: "0.1.0".into(),
                scenario: "x".into(),
                origin: "o".into(),
                ascii: false,
                animate: false,
                key_delay: Some(KEY_DELAY),
                convergence: None,
                policy: None,
            },
        };
        let mut w = CastWriter::new(Vec::new(), &header).unwrap();
        w.event(0.5, "o", "\u{1b}[H").unwrap();
        w.event(0.4999999, "i", "n").unwrap();
        let text = String::from_utf8(w.into_inner()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("{\"version\":2,\"width\":80,\"height\":24,\"timestamp\":0"));
        assert_eq!(lines[1], "[0.5,\"o\",\"\\u001b[H\"]");
        assert_eq!(lines[2], "[0.5,\"i\",\"n\"]");
    }
}
