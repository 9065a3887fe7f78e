//! Playing a scenario's tour (`tour:`) in the stepper: `t` or `warpstep
//! tour` starts it, `Space` plays the next step, `Backspace` goes back to
//! the step before (its cycle and what it focused), a stepping key leaves
//! the tour for free exploration and `t` comes back to the step left.
//!
//! A step moves the machine from where the step before left it, so the
//! stepper keeps, per step played, the cycle it reached and what the
//! screen focused: going back is a seek to that cycle (the machine is a
//! pure function of its cycle) and the focus restored.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Padding, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::tui::theme::Role;

use super::{App, DataView, Goal, MessageKind, Pane};
use crate::report::{ExpectResult, Report};
use crate::scenario::source::SourcePos;
use crate::scenario::{TourAction, TourGoal, TourPane, TourStep};

/// The caption box's widest (columns, borders included).
const BOX_WIDTH: u16 = 78;

/// What the stepper saw when a step was played: where going back to the
/// step returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mark {
    cycle: u64,
    focus: Pane,
    warp: u32,
    lane: u32,
    cursor: u32,
    follow: bool,
    source_cursor: usize,
    data_view: DataView,
    lane_detail: bool,
    message: Option<super::Message>,
}

/// The tour's state in the stepper.
#[derive(Debug, Clone, Default)]
pub(super) struct TourState {
    /// The step shown, or left (`t` returns to it).
    step: Option<usize>,
    /// The caption is shown and `Space`/`Backspace` move through steps.
    on: bool,
    /// Per step played, in order: what it left on screen.
    marks: Vec<Mark>,
    /// The step's `expect:` checked where it was played.
    results: Vec<ExpectResult>,
}

/// The report keys of a step checked against the machine as the step
/// left it.
pub fn check_step(app: &App, step: &TourStep) -> Vec<ExpectResult> {
    if step.expect.is_empty() {
        return Vec::new();
    }
    let sc = app.scenario();
    let m = app.machine();
    let mut names: Vec<String> = step
        .expect
        .iter()
        .filter_map(|e| e.key.strip_prefix("buffers."))
        .map(|rest| rest.split('.').next().unwrap_or(rest).to_string())
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut r = Report::new(sc, m);
    if !names.is_empty() {
        r = r.with_buffers(sc, m, &names);
    }
    r.check_expectations(&step.expect);
    r.expect.unwrap_or_default()
}

/// Breaks a caption line into rows of at most `width` columns, at spaces
/// where it can.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    for word in line.split(' ') {
        let sep = usize::from(!row.is_empty());
        if row.width() + sep + word.width() <= width {
            if sep == 1 {
                row.push(' ');
            }
            row.push_str(word);
            continue;
        }
        if !row.is_empty() {
            rows.push(std::mem::take(&mut row));
        }
        // A word wider than the row is cut.
        let mut w = word;
        while w.width() > width {
            let mut cut = 0;
            let mut used = 0;
            for (i, c) in w.char_indices() {
                let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                if used + cw > width {
                    break;
                }
                used += cw;
                cut = i + c.len_utf8();
            }
            if cut == 0 {
                break;
            }
            rows.push(w[..cut].to_string());
            w = &w[cut..];
        }
        row.push_str(w);
    }
    rows.push(row);
    rows
}

impl App {
    /// The scenario's tour.
    pub fn tour(&self) -> &[TourStep] {
        &self.session.scenario().tour
    }

    /// The step shown (0-based) while the tour's caption is up.
    pub fn tour_step(&self) -> Option<usize> {
        self.tour_state.step.filter(|_| self.tour_state.on)
    }

    /// The step's `expect:` outcomes, checked when it was played.
    pub fn tour_results(&self) -> &[ExpectResult] {
        &self.tour_state.results
    }

    /// Starts the tour at its first step, from cycle 0. False, with a
    /// message, when the scenario has none.
    pub fn start_tour(&mut self) -> bool {
        if self.tour().is_empty() {
            self.say(
                MessageKind::Warn,
                "this scenario has no tour (`tour:` in the file)".into(),
            );
            return false;
        }
        self.session.stop();
        self.session.goto(0);
        self.tour_state.marks.clear();
        self.refresh();
        self.play_step(0);
        true
    }

    /// Plays the next step; false at the last one.
    pub fn tour_next(&mut self) -> bool {
        let Some(i) = self.tour_state.step else {
            return self.start_tour();
        };
        if i + 1 >= self.tour().len() {
            self.say(
                MessageKind::Info,
                "the last step of the tour: Backspace goes back, t leaves".into(),
            );
            return false;
        }
        self.play_step(i + 1);
        true
    }

    /// Goes back to the step before; false at the first.
    pub fn tour_back(&mut self) -> bool {
        match self.tour_state.step {
            Some(i) if i > 0 => {
                self.return_to(i - 1);
                true
            }
            _ => {
                self.say(MessageKind::Warn, "the first step of the tour".into());
                false
            }
        }
    }

    /// Leaves the tour where it is; `t` comes back to this step.
    pub fn leave_tour(&mut self) {
        self.tour_state.on = false;
    }

    /// The key, if the tour takes it: `Space` (no count typed), `Backspace`,
    /// `t` and `Esc` while the caption is up, `t` when it is not. A
    /// stepping key leaves the tour and goes on to the stepper.
    pub(super) fn tour_key(&mut self, key: &KeyEvent) -> bool {
        let on = self.tour_state.on;
        let counting = self.count.is_some();
        match key.code {
            KeyCode::Char('t') if !counting => {
                self.overlay = super::Overlay::None;
                if on {
                    self.tour_state.on = false;
                    let n = self.tour().len();
                    let i = self.tour_state.step.unwrap_or(0);
                    self.say(
                        MessageKind::Info,
                        format!("left the tour at step {}/{n}: t returns", i + 1),
                    );
                } else {
                    match self.tour_state.step {
                        Some(i) if i < self.tour_state.marks.len() => self.return_to(i),
                        _ => {
                            self.start_tour();
                        }
                    }
                }
                self.refresh();
                true
            }
            _ if !on => false,
            KeyCode::Char(' ') if !counting => {
                self.overlay = super::Overlay::None;
                self.tour_next();
                true
            }
            KeyCode::Backspace => {
                self.count = None;
                self.overlay = super::Overlay::None;
                self.tour_back();
                true
            }
            KeyCode::Esc if self.overlay == super::Overlay::None && !counting => {
                self.leave_tour();
                self.say(MessageKind::Info, "left the tour: t returns".into());
                true
            }
            KeyCode::Char(' ' | 'n' | 'p' | 's' | 'c' | 'd' | 'r' | 'e' | 'g' | 'G' | 'R')
            | KeyCode::Right
            | KeyCode::Left
            | KeyCode::End
            | KeyCode::Home => {
                self.tour_state.on = false;
                false
            }
            _ => false,
        }
    }

    /// Plays step `i` from where the machine is (where step `i - 1` left
    /// it, or cycle 0), and shows its caption.
    fn play_step(&mut self, i: usize) {
        let Some(step) = self.tour().get(i).cloned() else {
            return;
        };
        // The step's keys are the stepper's own, not the tour's; runs
        // complete within the step.
        self.tour_state.on = false;
        let animate = std::mem::replace(&mut self.animate, false);
        self.message = None;
        self.overlay = super::Overlay::None;
        self.count = None;
        match &step.action {
            TourAction::Keys(script) => {
                // Checked when the scenario loaded.
                for k in super::keys::parse_keys(script).unwrap_or_default() {
                    self.handle_key(k);
                    self.finish_run();
                }
                self.prompt = None;
                self.count = None;
            }
            TourAction::Cycle(c) => self.goto(*c),
            TourAction::Pc(pc) => self.start(Goal::Pc(*pc), 1, false),
            TourAction::Next(g) => {
                let goal = match g {
                    TourGoal::Divergence => Goal::Divergence,
                    TourGoal::Reconvergence => Goal::Reconvergence,
                    TourGoal::Breakpoint => Goal::Breakpoint,
                    TourGoal::End => Goal::End,
                };
                self.start(goal, 1, false);
            }
        }
        self.finish_run();
        self.animate = animate;
        self.apply_focus(&step);
        self.refresh();
        self.tour_state.marks.truncate(i);
        let mark = self.mark();
        self.tour_state.marks.push(mark);
        self.tour_state.step = Some(i);
        self.tour_state.on = true;
        self.tour_state.results = check_step(self, &step);
        self.overlay = super::Overlay::None;
    }

    /// Back to step `i` as it was played: its cycle and its focus.
    fn return_to(&mut self, i: usize) {
        let Some(mark) = self.tour_state.marks.get(i).cloned() else {
            return;
        };
        self.session.stop();
        self.session.goto(mark.cycle);
        self.focus = mark.focus;
        self.warp = mark.warp;
        self.lane = mark.lane;
        self.cursor = mark.cursor;
        self.follow = mark.follow;
        self.source_cursor = mark.source_cursor;
        self.data_view = mark.data_view;
        self.lane_detail = mark.lane_detail;
        self.message = mark.message;
        self.tour_state.marks.truncate(i + 1);
        self.tour_state.step = Some(i);
        self.tour_state.on = true;
        self.refresh();
        if let Some(step) = self.tour().get(i).cloned() {
            self.tour_state.results = check_step(self, &step);
        }
    }

    fn mark(&self) -> Mark {
        Mark {
            cycle: self.cycle(),
            focus: self.focus,
            warp: self.warp,
            lane: self.lane,
            cursor: self.cursor,
            follow: self.follow,
            source_cursor: self.source_cursor,
            data_view: self.data_view,
            lane_detail: self.lane_detail,
            message: self.message.clone(),
        }
    }

    fn apply_focus(&mut self, step: &TourStep) {
        let f = &step.focus;
        if let Some(w) = f.warp {
            self.warp = w;
            self.follow = true;
        }
        if let Some(l) = f.lane {
            self.lane = l;
        }
        if let Some(p) = f.pane {
            match p {
                TourPane::Memory => {
                    self.data_view = DataView::Memory;
                    self.focus = Pane::Memory;
                }
                TourPane::Buffer => {
                    if self.data_view != DataView::Buffer {
                        self.buffer_key();
                    }
                }
                TourPane::Lanes => {
                    if self.compact() {
                        self.data_view = DataView::Lanes;
                    }
                    self.focus = Pane::Lanes;
                }
                other => {
                    if self.data_view != DataView::Panes {
                        self.data_view = DataView::Panes;
                    }
                    self.focus = match other {
                        TourPane::Grid => Pane::Grid,
                        TourPane::Program => Pane::Program,
                        TourPane::Source => Pane::Source,
                        TourPane::Scoreboards => Pane::Scoreboards,
                        TourPane::Counters => Pane::Counters,
                        _ => Pane::Queue,
                    };
                }
            }
        }
        if let Some(pc) = f.line_pc {
            self.cursor = pc;
            self.follow = false;
            let map = self.session.scenario().source_map.as_ref();
            if let (Some(map), Some(line)) = (map, f.line)
                && let Some(row) = self.source_rows.iter().position(|r| {
                    *r == SourcePos {
                        file: map.at(pc).map_or(0, |p| p.file),
                        line,
                    }
                })
            {
                self.source_cursor = row;
            }
        }
    }

    /// Whether the focused pane (or the line pointed at) is in the upper
    /// part of the screen, so the caption goes in the lower part.
    fn focus_is_high(&self, full: bool) -> bool {
        match self.focus {
            Pane::Grid | Pane::Program | Pane::Source => true,
            Pane::Scoreboards => full,
            Pane::Lanes => !full && self.data_view != DataView::Lanes,
            Pane::Counters | Pane::Queue | Pane::Memory | Pane::Buffer => false,
        }
    }

    /// The caption box over the panes in `main`, on the side away from
    /// what the step points at.
    pub(super) fn draw_tour(&self, frame: &mut Frame, main: Rect, full: bool) {
        let (Some(i), true) = (self.tour_state.step, self.tour_state.on) else {
            return;
        };
        let Some(step) = self.tour().get(i) else {
            return;
        };
        let n = self.tour().len();
        let w = BOX_WIDTH.min(main.width.saturating_sub(2)).max(20);
        let inner = usize::from(w.saturating_sub(4));
        let mut rows: Vec<Line> = Vec::new();
        for l in &step.caption {
            for r in wrap(l, inner) {
                rows.push(Line::from(r));
            }
        }
        let failed: Vec<&ExpectResult> = self.tour_state.results.iter().filter(|r| !r.ok).collect();
        let mut tail: Vec<Line> = Vec::new();
        if let Some(f) = failed.first() {
            let text = format!(
                "! expect {}: {} here, the tour says {}",
                f.key, f.actual, f.expected
            );
            for r in wrap(&crate::text::clean(&text), inner) {
                tail.push(Line::styled(r, self.theme.style(Role::Error)));
            }
        }
        let hint = if i + 1 < n {
            "Space next  Backspace back  other keys explore, t returns"
        } else {
            "last step  Backspace back  t leaves the tour"
        };
        for r in wrap(hint, inner) {
            tail.push(Line::styled(r, self.theme.style(Role::Dim)));
        }
        // Half the panes' height at most, the caption cut to fit.
        let half = (main.height / 2).max(6);
        let room = usize::from(half.saturating_sub(2)).saturating_sub(tail.len() + 1);
        if rows.len() > room {
            rows.truncate(room.max(1));
            if let Some(last) = rows.last_mut() {
                let s = last.to_string();
                let cut =
                    crate::tui::panes::fit(&format!("{s}  "), inner, self.theme.glyphs.ellipsis);
                *last = Line::from(cut);
            }
        }
        rows.push(Line::from(""));
        rows.extend(tail);
        let h = (rows.len() as u16 + 2).min(main.height);
        let x = main.x + (main.width - w) / 2;
        let y = if self.focus_is_high(full) {
            main.y + main.height - h
        } else {
            main.y
        };
        let area = Rect::new(x, y, w, h);
        frame.render_widget(Clear, area);
        let title = Line::from(vec![
            Span::styled(" tour ", self.theme.style(Role::FocusedTitle)),
            Span::styled(
                format!("step {}/{n} ", i + 1),
                Style::default().add_modifier(Modifier::BOLD),
            ),
        ]);
        let block = Block::bordered()
            .border_set(self.theme.glyphs.focused_border)
            .border_style(self.theme.style(Role::FocusedBorder))
            .title(title)
            .padding(Padding::horizontal(1));
        let body = Paragraph::new(rows).block(block);
        frame.render_widget(body, area);
    }
}

/// One step of a tour played headless: where it left the machine and
/// how its `expect:` came out.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutcome {
    /// 0-based.
    pub step: usize,
    /// The caption's first line.
    pub title: String,
    pub cycle: u64,
    pub results: Vec<ExpectResult>,
    /// The status line's message after the step (what a run found).
    pub message: Option<String>,
}

/// Plays a scenario's whole tour with no terminal, as `Space` would step
/// by step, and checks every step's `expect:`.
pub fn play_headless(
    scenario: std::sync::Arc<crate::scenario::Scenario>,
) -> Result<Vec<StepOutcome>, crate::engine::ConfigError> {
    let mut app = App::new(scenario, super::Options::default())?;
    let n = app.tour().len();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if i == 0 {
            app.start_tour();
        } else {
            app.tour_next();
        }
        out.push(StepOutcome {
            step: i,
            title: app.tour()[i].title().to_string(),
            cycle: app.cycle(),
            results: app.tour_results().to_vec(),
            message: app.message().map(|m| m.text.clone()),
        });
    }
    Ok(out)
}
