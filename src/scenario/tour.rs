//! `tour:`: a guided walk through a scenario's run, one captioned step at
//! a time (docs/scenario-format.md, "Tours").
//!
//! Each step moves the machine (keys as `record --keys` takes them, a
//! cycle, an instruction, or the next divergence, reconvergence,
//! breakpoint or the end), says what to look at in a caption, may focus a
//! pane, a warp, a lane or a line, and may check report keys at that
//! point with the syntax of the top-level `expect:`. Everything is checked
//! here, when the scenario loads: a tour that loads can be played.

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::Node;
use super::{BufferSpec, Expectation, LoadError, leaf};
use crate::asm::Program;
use crate::expr::spelling::did_you_mean;

/// Most steps in a tour.
pub const MAX_STEPS: usize = 64;
/// Most lines in a caption.
pub const MAX_CAPTION_LINES: usize = 8;
/// Most characters in a caption.
pub const MAX_CAPTION_CHARS: usize = 600;
/// Most characters in a step's `keys:`.
pub const MAX_KEYS_CHARS: usize = 200;

/// A pane a step focuses (`focus.pane`), by the names the stepper's panes
/// have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TourPane {
    Grid,
    Program,
    Source,
    Scoreboards,
    Counters,
    Queue,
    Lanes,
    Memory,
    Buffer,
}

const PANES: &[(&str, TourPane)] = &[
    ("grid", TourPane::Grid),
    ("program", TourPane::Program),
    ("source", TourPane::Source),
    ("scoreboards", TourPane::Scoreboards),
    ("counters", TourPane::Counters),
    ("queue", TourPane::Queue),
    ("lanes", TourPane::Lanes),
    ("memory", TourPane::Memory),
    ("buffer", TourPane::Buffer),
];

/// What `next:` runs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TourGoal {
    Divergence,
    Reconvergence,
    Breakpoint,
    End,
}

const GOALS: &[(&str, TourGoal)] = &[
    ("divergence", TourGoal::Divergence),
    ("reconvergence", TourGoal::Reconvergence),
    ("breakpoint", TourGoal::Breakpoint),
    ("end", TourGoal::End),
];

/// How a step moves the machine from where the step before left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TourAction {
    /// A key script, as `record --keys` takes it.
    Keys(String),
    /// Go to this cycle.
    Cycle(u64),
    /// Run until a warp issues the instruction with this index.
    Pc(u32),
    /// Run to the next divergence, reconvergence, breakpoint hit, or the
    /// end.
    Next(TourGoal),
}

/// What a step points at. Unset fields leave the stepper's choice as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TourFocus {
    pub pane: Option<TourPane>,
    /// A global warp index.
    pub warp: Option<u32>,
    pub lane: Option<u32>,
    /// The line as written: a line of the CUDA source with line info, else
    /// a line of the scenario file that holds an instruction.
    pub line: Option<u32>,
    /// The first instruction of `line`, which the listing cursor goes to.
    pub line_pc: Option<u32>,
}

/// One step of a tour.
#[derive(Debug, Clone, PartialEq)]
pub struct TourStep {
    pub action: TourAction,
    /// The caption's lines, cleaned for a terminal (no control, bidi or
    /// zero-width characters).
    pub caption: Vec<String>,
    pub focus: TourFocus,
    /// Report keys checked at this step.
    pub expect: Vec<Expectation>,
    /// Where the step is written.
    pub line: u32,
    pub column: u32,
}

impl TourStep {
    /// The caption's first line: the step's title (markers, messages).
    pub fn title(&self) -> &str {
        self.caption.first().map_or("", String::as_str)
    }
}

/// What loading the tour needs of the rest of the scenario.
pub(super) struct TourContext<'a> {
    pub program: &'a Program,
    pub program_line: u32,
    pub buffers: &'a [BufferSpec],
    pub warps: u64,
    pub warp_width: u32,
    pub has_source: bool,
    pub source_map: Option<&'a super::source::SourceMap>,
}

const STEP_KEYS: &[&str] = &["caption", "keys", "cycle", "pc", "next", "focus", "expect"];
const FOCUS_KEYS: &[&str] = &["pane", "warp", "lane", "line"];

fn name_of(k: &Spanned<Node>) -> String {
    match &k.value {
        Node::Str(s) => s.clone(),
        Node::Int(v) => v.to_string(),
        other => other.kind().to_string(),
    }
}

/// Loads `tour:` (none: an empty tour).
pub(super) fn load_tour(
    src: &SourceFile<'_>,
    raw: Option<&Spanned<Node>>,
    cx: &TourContext<'_>,
) -> Result<Vec<TourStep>, LoadError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    let items = match &raw.value {
        Node::Seq(items) => items,
        other => {
            return Err(src
                .error(
                    Pos::of(raw),
                    "tour",
                    format!("`tour` must be a list of steps, found {}", other.kind()),
                )
                .expected("a list: `- caption: ...` with `next:`, `cycle:`, `pc:` or `keys:`")
                .hint(Some("each step starts with `- ` under `tour:`".into())));
        }
    };
    if items.is_empty() {
        return Err(src
            .error(Pos::of(raw), "tour", "`tour` has no steps")
            .expected("at least one step")
            .hint(Some("remove `tour:`, or add a step".into())));
    }
    if items.len() > MAX_STEPS {
        return Err(src
            .error(
                Pos::of(&items[MAX_STEPS]),
                "tour",
                format!("`tour` has {} steps", items.len()),
            )
            .expected(format!("at most {MAX_STEPS} steps"))
            .hint(Some("split the tour into several scenarios".into())));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| step(src, i + 1, item, cx))
        .collect()
}

fn step(
    src: &SourceFile<'_>,
    n: usize,
    item: &Spanned<Node>,
    cx: &TourContext<'_>,
) -> Result<TourStep, LoadError> {
    let at = format!("tour.{n}");
    let Node::Map(entries) = &item.value else {
        return Err(src
            .error(
                Pos::of(item),
                &at,
                format!(
                    "step {n} of `tour` must be a mapping, found {}",
                    item.value.kind()
                ),
            )
            .expected("`caption:` and one of `next:`, `cycle:`, `pc:`, `keys:`"));
    };
    let mut action: Option<(TourAction, &str)> = None;
    let mut caption = None;
    let mut focus = TourFocus::default();
    let mut expect = Vec::new();
    for (k, v) in entries {
        let name = name_of(k);
        let key = format!("{at}.{name}");
        let moved = match name.as_str() {
            "caption" => {
                caption = Some(load_caption(src, v, &key)?);
                None
            }
            "keys" => Some(TourAction::Keys(load_keys(src, v, &key)?)),
            "cycle" => {
                let c = leaf::int(src, v, &key, 0, i128::from(i64::MAX), None)?;
                Some(TourAction::Cycle(c as u64))
            }
            "pc" => Some(TourAction::Pc(load_pc(src, v, &key, cx.program)?)),
            "next" => Some(TourAction::Next(leaf::choice(src, v, &key, GOALS)?)),
            "focus" => {
                focus = load_focus(src, v, &key, cx)?;
                None
            }
            "expect" => {
                let Node::Map(checks) = &v.value else {
                    return Err(src
                        .error(
                            Pos::of(v),
                            &key,
                            format!("`{key}` must be a mapping, found {}", v.value.kind()),
                        )
                        .expected("report keys and values, as the top-level `expect:`"));
                };
                expect = super::expect::load_entries(src, &key, checks, cx.buffers)?;
                None
            }
            _ => {
                return Err(src
                    .error(
                        Pos::of(k),
                        &key,
                        format!("unknown key `{name}` in step {n} of `tour`"),
                    )
                    .expected(format!("one of {}", STEP_KEYS.join(", ")))
                    .hint(did_you_mean(&name, STEP_KEYS.iter().copied())));
            }
        };
        if let Some(a) = moved {
            if let Some((_, first)) = &action {
                return Err(src
                    .error(
                        Pos::of(k),
                        &key,
                        format!("step {n} of `tour` has both `{first}` and `{name}`"),
                    )
                    .expected("one of `next:`, `cycle:`, `pc:`, `keys:` per step")
                    .hint(Some("split it into two steps".into())));
            }
            let first = STEP_KEYS
                .iter()
                .find(|s| **s == name)
                .copied()
                .unwrap_or("keys");
            action = Some((a, first));
        }
    }
    let pos = Pos::of(item);
    let Some(caption) = caption else {
        return Err(src
            .error(pos, &at, format!("step {n} of `tour` has no `caption`"))
            .expected("`caption:` with a few lines for the learner")
            .hint(Some("a caption says what to look at, and why".into())));
    };
    let Some((action, _)) = action else {
        return Err(src
            .error(pos, &at, format!("step {n} of `tour` does not move"))
            .expected(
                "one of `next: divergence`, `cycle: N`, `pc: 0x40` or a label, `keys: \"3n\"`",
            )
            .hint(Some(
                "`keys: \"\"` stays where the step before left the machine".into(),
            )));
    };
    Ok(TourStep {
        action,
        caption,
        focus,
        expect,
        line: pos.line,
        column: pos.column,
    })
}

fn load_caption(
    src: &SourceFile<'_>,
    v: &Spanned<Node>,
    key: &str,
) -> Result<Vec<String>, LoadError> {
    let text = leaf::string(src, v, key)?;
    let text = text.trim();
    if text.is_empty() {
        return Err(src
            .error(Pos::of(v), key, format!("`{key}` is empty"))
            .expected("a few lines of text"));
    }
    let chars = text.chars().count();
    let lines: Vec<String> = text
        .lines()
        .map(|l| crate::text::clean(l.trim_end()))
        .collect();
    if chars > MAX_CAPTION_CHARS || lines.len() > MAX_CAPTION_LINES {
        return Err(src
            .error(
                Pos::of(v),
                key,
                format!("`{key}` is {chars} characters on {} lines", lines.len()),
            )
            .expected(format!(
                "at most {MAX_CAPTION_CHARS} characters on {MAX_CAPTION_LINES} lines"
            ))
            .hint(Some(
                "a caption sits over the panes: say one thing, and split the rest into more steps"
                    .into(),
            )));
    }
    Ok(lines)
}

/// The keys a tour's step may not press: they would quit, write a file,
/// or start the tour inside itself.
const REFUSED_KEYS: &[(char, &str)] = &[
    ('q', "quits the stepper"),
    ('t', "starts the tour"),
    ('x', "writes files"),
];

fn load_keys(src: &SourceFile<'_>, v: &Spanned<Node>, key: &str) -> Result<String, LoadError> {
    let script = match &v.value {
        Node::Null => String::new(),
        _ => leaf::string(src, v, key)?,
    };
    let pos = Pos::of(v);
    if script.chars().count() > MAX_KEYS_CHARS {
        return Err(src
            .error(
                pos,
                key,
                format!("`{key}` is longer than {MAX_KEYS_CHARS} characters"),
            )
            .expected(format!(
                "a key script of at most {MAX_KEYS_CHARS} characters"
            ))
            .hint(Some("a count says it shorter: `20n`, or `cycle: N`".into())));
    }
    #[cfg(feature = "tui")]
    {
        let keys = crate::tui::keys::parse_keys(&script).map_err(|e| {
            src.error(pos, key, format!("`{key}`: {e}"))
                .expected("a key script, as `warpstep record --keys` takes it: `3n d Tab`")
        })?;
        for k in &keys {
            use ratatui::crossterm::event::{KeyCode, KeyModifiers};
            let refused = match k.code {
                _ if k.modifiers.contains(KeyModifiers::CONTROL) => Some("is a control key"),
                KeyCode::Char(c) => REFUSED_KEYS
                    .iter()
                    .find(|(r, _)| *r == c)
                    .map(|(_, why)| *why),
                _ => None,
            };
            if let Some(why) = refused {
                let name = crate::tui::keys::format_key(k);
                return Err(src
                    .error(pos, key, format!("`{key}` presses {name}, which {why}"))
                    .expected("stepping and focus keys (q, t, x and Ctrl keys are not for tours)")
                    .hint(Some(
                        "the learner leaves the tour with their own keys".into(),
                    )));
            }
        }
    }
    #[cfg(not(feature = "tui"))]
    let _ = REFUSED_KEYS;
    Ok(script)
}

/// An instruction by its byte address (`0x40`, `"/*0040*/"`) or label.
fn load_pc(
    src: &SourceFile<'_>,
    v: &Spanned<Node>,
    key: &str,
    program: &Program,
) -> Result<u32, LoadError> {
    let n = program.instrs.len() as u32;
    let last = Program::address(n.saturating_sub(1));
    let expected =
        format!("the address of an instruction, 0x0 to {last:#x} in steps of 0x10, or a label");
    let by_address = |addr: i128| -> Result<u32, LoadError> {
        if addr >= 0 && addr % 16 == 0 && addr / 16 < i128::from(n) {
            Ok((addr / 16) as u32)
        } else {
            Err(src
                .error(
                    Pos::of(v),
                    key,
                    format!("`{key}` {addr:#x} is not the address of an instruction"),
                )
                .expected(expected.clone())
                .hint(Some(
                    "instructions are 16 bytes apart, as the listing's /*0040*/ shows".into(),
                )))
        }
    };
    match &v.value {
        Node::Int(a) => by_address(*a),
        Node::Str(s) => {
            let t = s.trim();
            let hex = t
                .strip_prefix("/*")
                .and_then(|r| r.strip_suffix("*/"))
                .or_else(|| t.strip_prefix("0x"));
            if let Some(h) = hex
                && let Ok(a) = i128::from_str_radix(h, 16)
            {
                return by_address(a);
            }
            match program.labels.iter().find(|l| l.name == t) {
                Some(l) => Ok(l.target),
                None => Err(src
                    .error(
                        Pos::of(v),
                        key,
                        format!("`{key}`: the program has no label `{t}`"),
                    )
                    .expected(expected)
                    .hint(did_you_mean(
                        t,
                        program.labels.iter().map(|l| l.name.as_str()),
                    ))),
            }
        }
        other => Err(src
            .error(
                Pos::of(v),
                key,
                format!(
                    "`{key}` must be an address or a label, found {}",
                    other.kind()
                ),
            )
            .expected(expected)),
    }
}

fn load_focus(
    src: &SourceFile<'_>,
    v: &Spanned<Node>,
    key: &str,
    cx: &TourContext<'_>,
) -> Result<TourFocus, LoadError> {
    let Node::Map(entries) = &v.value else {
        return Err(src
            .error(
                Pos::of(v),
                key,
                format!("`{key}` must be a mapping, found {}", v.value.kind()),
            )
            .expected("`{pane: program, warp: 0, lane: 3, line: 12}`, any of them"));
    };
    let mut f = TourFocus::default();
    for (k, v) in entries {
        let name = name_of(k);
        let at = format!("{key}.{name}");
        match name.as_str() {
            "pane" => {
                let p = leaf::choice(src, v, &at, PANES)?;
                if p == TourPane::Source && !cx.has_source {
                    return Err(src
                        .error(
                            Pos::of(v),
                            &at,
                            format!("`{at}`: the source pane needs line info"),
                        )
                        .expected("a pane this scenario shows")
                        .hint(Some(
                            "a listing compiled with `-lineinfo` has a source pane".into(),
                        )));
                }
                f.pane = Some(p);
            }
            "warp" => {
                let max = i128::from(cx.warps.saturating_sub(1));
                let w = leaf::int(
                    src,
                    v,
                    &at,
                    0,
                    max,
                    Some("warps are numbered from 0 across the grid"),
                )?;
                f.warp = Some(w as u32);
            }
            "lane" => {
                let max = i128::from(cx.warp_width.saturating_sub(1));
                f.lane = Some(leaf::int(src, v, &at, 0, max, None)? as u32);
            }
            "line" => {
                let line = leaf::int(src, v, &at, 1, i128::from(u32::MAX), None)? as u32;
                let pc = line_pc(cx, line).ok_or_else(|| {
                    let what = if cx.source_map.is_some() {
                        "a line of the CUDA source that has instructions"
                    } else {
                        "a line of this file that holds an instruction of `program:`"
                    };
                    src.error(
                        Pos::of(v),
                        &at,
                        format!("`{at}`: line {line} has no instruction"),
                    )
                    .expected(what)
                })?;
                f.line = Some(line);
                f.line_pc = Some(pc);
            }
            _ => {
                return Err(src
                    .error(Pos::of(k), &at, format!("unknown key `{name}` in `{key}`"))
                    .expected(format!("one of {}", FOCUS_KEYS.join(", ")))
                    .hint(did_you_mean(&name, FOCUS_KEYS.iter().copied())));
            }
        }
    }
    Ok(f)
}

/// The first instruction of `line`: of the CUDA source when the program
/// has line info, else of the scenario file.
fn line_pc(cx: &TourContext<'_>, line: u32) -> Option<u32> {
    if let Some(map) = cx.source_map {
        return (0..map.files.len() as u32).find_map(|file| {
            map.pcs_of(super::source::SourcePos { file, line })
                .first()
                .copied()
        });
    }
    cx.program
        .instrs
        .iter()
        .position(|i| cx.program_line + i.line - 1 == line)
        .map(|p| p as u32)
}
