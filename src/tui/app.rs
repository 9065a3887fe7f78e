//! The stepper's state and its screen: driven only by key events and ticks,
//! drawn into any ratatui buffer, with no terminal I/O here (the loop in
//! `mod.rs` reads the keyboard; tests and recordings feed keys directly).
//!
//! The screen, at 80x24 and up to 119 columns or 31 rows (compact):
//!
//! ```text
//! ┌ Mask grid ───────────────────────────┐┌ Program (Lanes when focused) ─┐
//! │ last cycle: what issued               ││ ●◆▶/*0050*/ FFMA R1, ...   32 │
//! │ ▶◆0 ████████ ████████ ...             ││                               │
//! │ SIMT stack / its groups of the focus  ││                               │
//! │ legend                                ││                               │
//! └───────────────────────────────────────┘└───────────────────────────────┘
//! ┌ Scoreboards ──────┐┌ Counters ─────────┐┌ Ready queue ────────────────┐
//! │ next control code ││ focused warp, all ││ per scheduler, policy order │
//! │ SB0..SB5          ││ sparkline         ││                             │
//! └───────────────────┘└───────────────────┘└─────────────────────────────┘
//!  cycle N │ message │ scenario name │ model · policy │ ? help  q quit
//! ```
//!
//! From 120x32 (full), with the about pane from 160 columns:
//!
//! ```text
//! ┌ Mask grid ─────────────────────────────┐┌ Program ──────────────────────┐
//! │                                        ││ control codes, warps at each  │
//! ├ Scoreboards ───────────────────────────┤│ pc, executions, avg lanes     │
//! │ focused warp detail + all warps table  ││                               │
//! └────────────────────────────────────────┘└───────────────────────────────┘
//! ┌ Counters ─────┐┌ Ready queue ──┐┌ Lanes ────────┐┌ About ─────────────┐
//! │ per warp, all ││               ││ regs, preds   ││ description        │
//! └───────────────┘└───────────────┘└───────────────┘└────────────────────┘
//!  status line
//! ```
//!
//! `l`, `m` and `u` put the lanes view, the memory pane or a buffer in the
//! compact layout's bottom row; in the full layout the lanes view is the
//! third bottom pane and the memory pane or buffer takes the about pane's
//! place (the ready queue's below 160 columns).
//!
//! Below 80x24 a message asks for a larger terminal. The help (`?`) and
//! about (`i`) windows are drawn over the panes.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Clear;

#[path = "app_data.rs"]
mod data;
#[path = "app_nav.rs"]
mod nav;
#[path = "app_tour.rs"]
mod tour;

pub use tour::{
    StepOutcome, check_step, play_headless as play_tour_headless, wrap as wrap_caption,
};

use super::keys;
use super::panes::{self, addr};
use super::theme::Theme;
use crate::engine::ConfigError;
use crate::engine::stats::{Counters, PcCounters};
use crate::engine::view::{AccessView, LaneView, QueueEntry, RegSel, WarpView};
use crate::engine::{IssueRecord, Machine, WarpRecord};
use crate::scenario::Scenario;
use crate::scenario::source::{LineCounters, SourcePos};
use crate::session::{CycleSample, Refused, Session, Stop, Timeline};
/// Runs and their goals are the session's; the stepper shows them.
pub use crate::session::{Goal, Run};

/// The smallest terminal the stepper draws its panes in.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;
/// From this size on, the full layout.
const FULL_WIDTH: u16 = 120;
const FULL_HEIGHT: u16 = 32;
/// From this width on, the about pane is part of the full layout.
const ABOUT_WIDTH: u16 = 160;

/// The help window scrolls at most this many lines (the page drawn
/// stops at its last line anyway).
const HELP_SCROLL_MAX: usize = 200;
/// Largest count prefix.
const MAX_COUNT: u64 = 1_000_000_000;
/// Wall time a fast run (`s`, a go-to, and runs at the top speed)
/// simulates per tick before it looks at the keys again.
pub const TICK_BUDGET: Duration = Duration::from_millis(25);
/// From this long on, the status line shows a run's progress.
pub const PROGRESS_AFTER: Duration = Duration::from_millis(250);

/// Run speeds: (milliseconds per tick, cycles per tick, label); 0 cycles
/// per tick is the top speed, paced by wall time ([`TICK_BUDGET`] of
/// simulation per tick).
const SPEEDS: &[(u64, u64, &str)] = &[
    (200, 1, "5 cycles/s"),
    (100, 1, "10 cycles/s"),
    (33, 1, "30 cycles/s"),
    (16, 1, "60 cycles/s"),
    (16, 4, "250 cycles/s"),
    (16, 16, "1k cycles/s"),
    (16, 64, "4k cycles/s"),
    (16, 256, "16k cycles/s"),
    (16, 1024, "64k cycles/s"),
    (16, 4096, "256k cycles/s"),
    (0, 0, "max"),
];
/// Runs go as fast as the machine simulates unless slowed down with `-`.
const DEFAULT_SPEED: usize = SPEEDS.len() - 1;

/// How the app is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// ASCII glyphs and borders.
    pub ascii: bool,
    /// Colours (false under `NO_COLOR`).
    pub color: bool,
    /// Runs (`c`, `d`, `r`, `e`, `s`) advance on [`App::tick`]; when false
    /// they complete inside the key press that starts them, which is what
    /// headless use and tests want. The stopping cycle is the same.
    pub animate: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ascii: false,
            color: true,
            animate: false,
        }
    }
}

/// The panes that take focus, in `Tab` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Grid,
    Program,
    /// The CUDA source beside the program (a program with line info only).
    Source,
    Scoreboards,
    Counters,
    Queue,
    Lanes,
    /// The memory pane (`m`); not in the `Tab` order.
    Memory,
    /// The buffer view (`u`); not in the `Tab` order.
    Buffer,
}

impl Pane {
    pub const ORDER: [Pane; 7] = [
        Pane::Grid,
        Pane::Program,
        Pane::Source,
        Pane::Scoreboards,
        Pane::Counters,
        Pane::Queue,
        Pane::Lanes,
    ];

    fn index(self) -> usize {
        Pane::ORDER.iter().position(|&p| p == self).unwrap_or(0)
    }

    fn next(self) -> Pane {
        Pane::ORDER[(self.index() + 1) % Pane::ORDER.len()]
    }

    fn prev(self) -> Pane {
        Pane::ORDER[(self.index() + Pane::ORDER.len() - 1) % Pane::ORDER.len()]
    }
}

/// What an open prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `g`: a cycle.
    Cycle,
    /// `/`: text to find in the program.
    Search,
    /// `:`: an address or a label.
    Pc,
    /// `B`: a breakpoint's condition.
    Condition,
}

/// A window drawn over the panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    About,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    Info,
    Warn,
    Error,
}

/// A line about the last action, shown in the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub kind: MessageKind,
    pub text: String,
}

// ---- data panes: the lanes view, memory, buffers ----------------------------

/// How the lanes view writes a 32-bit value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueFormat {
    I32,
    U32,
    Hex,
    F32,
}

impl ValueFormat {
    const ORDER: [ValueFormat; 4] = [
        ValueFormat::I32,
        ValueFormat::U32,
        ValueFormat::Hex,
        ValueFormat::F32,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ValueFormat::I32 => "i32",
            ValueFormat::U32 => "u32",
            ValueFormat::Hex => "hex",
            ValueFormat::F32 => "f32",
        }
    }

    fn next(self) -> ValueFormat {
        let i = ValueFormat::ORDER
            .iter()
            .position(|&f| f == self)
            .unwrap_or(0);
        ValueFormat::ORDER[(i + 1) % ValueFormat::ORDER.len()]
    }
}

/// What the compact layout's bottom row shows (the full layout: its
/// right-hand pane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataView {
    /// Compact: scoreboards, counters, ready queue. Full: about.
    Panes,
    /// Compact: the lanes view across the row.
    Lanes,
    Memory,
    Buffer,
}

/// Where the access the memory pane shows comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessOrigin {
    /// Issued in the last simulated cycle (addresses as it read them).
    Issued(u64),
    /// The focused warp's next instruction, from its registers now.
    Next,
    /// The listing cursor's instruction, from the focused warp's registers now.
    Cursor,
}

/// What the data panes show, read from the machine (and the machine one
/// cycle back) after every change.
#[derive(Debug, Clone, Default)]
pub struct DataState {
    /// The lanes view's register of the focused warp, now and a cycle back.
    pub values: Option<Vec<u32>>,
    pub before: Option<Vec<u32>>,
    /// The same register of every resident warp: `(warp, values)`.
    pub table: Vec<(u32, Vec<u32>)>,
    /// The access the memory pane shows.
    pub access: Option<(AccessView, AccessOrigin)>,
    /// Global `(address, bytes)` accessed by what issued in the last cycle.
    pub touched: Vec<(u32, u32)>,
}

/// The stepper: a stepping session plus what the user selected.
#[derive(Debug, Clone)]
pub struct App {
    session: Session,
    theme: Theme,
    animate: bool,
    // Read from the machine after every change, so drawing only formats.
    views: Vec<WarpView>,
    records: Vec<WarpRecord>,
    pcs: Vec<PcCounters>,
    /// Per source line (a program with line info): `pcs` summed.
    line_counters: Vec<LineCounters>,
    totals: Counters,
    queues: Vec<(u32, u32, Vec<QueueEntry>)>,
    lane_view: Option<LaneView>,
    // What the user chose.
    focus: Pane,
    warp: u32,
    lane: u32,
    cursor: u32,
    /// The source pane's rows (fixed by the scenario) and its cursor row.
    source_rows: Vec<SourcePos>,
    source_cursor: usize,
    follow: bool,
    count: Option<u64>,
    prompt: Option<String>,
    prompt_kind: PromptKind,
    /// The last `/` search.
    search: Option<String>,
    overlay: Overlay,
    /// The help window's page and how far it is scrolled.
    help_page: usize,
    help_scroll: usize,
    speed: usize,
    message: Option<Message>,
    quit: bool,
    /// When the run in progress began, and at which cycle.
    run_began: Option<(Instant, u64)>,
    /// The goal of the last run started (to word how it ended).
    last_goal: Option<Goal>,
    // ---- data panes
    data_view: DataView,
    /// The lanes view shows one lane's registers instead of one register.
    lane_detail: bool,
    lanes_reg: Option<RegSel>,
    lanes_format: Option<ValueFormat>,
    buffer: usize,
    buffer_scroll: Option<usize>,
    data: DataState,
    /// The size last drawn in: what an export writes.
    drawn: Cell<Rect>,
    export_dir: PathBuf,
    /// The scenario's tour, as far as it was played.
    tour_state: tour::TourState,
}

impl App {
    /// The stepper at cycle 0 of a loaded scenario.
    pub fn new(scenario: Arc<Scenario>, options: Options) -> Result<App, ConfigError> {
        let mut app = App {
            session: Session::new(Arc::clone(&scenario))?,
            theme: Theme::new(options.ascii, options.color),
            animate: options.animate,
            views: Vec::new(),
            records: Vec::new(),
            pcs: Vec::new(),
            line_counters: Vec::new(),
            totals: Counters::default(),
            queues: Vec::new(),
            lane_view: None,
            focus: Pane::Grid,
            warp: 0,
            lane: 0,
            cursor: 0,
            source_rows: source_rows(&scenario),
            source_cursor: 0,
            follow: true,
            count: None,
            prompt: None,
            prompt_kind: PromptKind::Cycle,
            search: None,
            overlay: Overlay::None,
            help_page: 0,
            help_scroll: 0,
            speed: DEFAULT_SPEED,
            message: None,
            quit: false,
            run_began: None,
            last_goal: None,
            data_view: DataView::Panes,
            lane_detail: false,
            lanes_reg: None,
            lanes_format: None,
            buffer: 0,
            buffer_scroll: None,
            data: DataState::default(),
            drawn: Cell::new(Rect::new(0, 0, 100, 30)),
            export_dir: PathBuf::from("."),
            tour_state: tour::TourState::default(),
        };
        app.refresh();
        Ok(app)
    }

    // ---- reading, for the panes and for frontends -------------------------

    /// The stepping session the keys drive.
    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn scenario(&self) -> &Scenario {
        self.session.scenario()
    }

    pub fn machine(&self) -> &Machine {
        self.session.machine()
    }

    pub fn timeline(&self) -> &Timeline {
        self.session.timeline()
    }

    pub fn cycle(&self) -> u64 {
        self.session.cycle()
    }

    pub fn theme(&self) -> &Theme {
        &self.theme
    }

    /// Resident warps, by SM then slot.
    pub fn views(&self) -> &[WarpView] {
        &self.views
    }

    /// Every warp's counters, retired and resident, by warp index.
    pub fn records(&self) -> &[WarpRecord] {
        &self.records
    }

    pub fn pc_counters(&self) -> &[PcCounters] {
        &self.pcs
    }

    /// Per source line with instructions, by file then line (empty
    /// without line info).
    pub fn line_counters(&self) -> &[LineCounters] {
        &self.line_counters
    }

    /// Whether the program has line info: the source pane is shown.
    pub fn has_source(&self) -> bool {
        self.session.scenario().source_map.is_some()
    }

    /// The source pane's rows: every line of a file whose text the
    /// scenario gives, else the lines that have instructions.
    pub fn source_rows(&self) -> &[SourcePos] {
        &self.source_rows
    }

    /// The source pane's cursor (a row of [`App::source_rows`]).
    pub fn source_cursor(&self) -> usize {
        self.source_cursor
    }

    pub fn totals(&self) -> &Counters {
        &self.totals
    }

    /// `(sm, scheduler, queue)` for every scheduler.
    pub fn queues(&self) -> &[(u32, u32, Vec<QueueEntry>)] {
        &self.queues
    }

    /// What issued in the last simulated cycle.
    pub fn issues(&self) -> &[IssueRecord] {
        self.session.machine().issues()
    }

    /// The warp issued in the last simulated cycle.
    pub fn issued_last(&self, warp: u32) -> bool {
        self.issues()
            .iter()
            .any(|r| r.warp == warp && !r.dispatch_stall)
    }

    /// Per-cycle samples before the current cycle, oldest first.
    pub fn history(&self) -> impl ExactSizeIterator<Item = &CycleSample> {
        self.session.timeline().history().iter()
    }

    pub fn focus(&self) -> Pane {
        self.focus
    }

    /// The focused warp (global index); it may not be resident.
    pub fn selected_warp(&self) -> u32 {
        self.warp
    }

    pub fn focused_view(&self) -> Option<&WarpView> {
        self.views.iter().find(|v| v.warp == self.warp)
    }

    pub fn selected_lane(&self) -> u32 {
        self.lane
    }

    pub fn lane_view(&self) -> Option<&LaneView> {
        self.lane_view.as_ref()
    }

    /// The listing cursor (instruction index).
    pub fn cursor(&self) -> u32 {
        self.cursor
    }

    pub fn follows(&self) -> bool {
        self.follow
    }

    /// The instructions with a breakpoint.
    pub fn breakpoints(&self) -> &BTreeSet<u32> {
        self.session.breakpoints().pcs()
    }

    /// A count prefix being typed.
    pub fn pending_count(&self) -> Option<u64> {
        self.count
    }

    /// The go-to-cycle prompt's text, while it is open.
    pub fn prompt(&self) -> Option<&str> {
        self.prompt.as_deref()
    }

    pub fn overlay(&self) -> Overlay {
        self.overlay
    }

    /// The help window's page (an index of [`panes::help::PAGES`]).
    pub fn help_page(&self) -> usize {
        self.help_page
    }

    /// The help page's first line shown.
    pub fn help_scroll(&self) -> usize {
        self.help_scroll
    }

    /// With the help open, the keys that turn and scroll its pages; true
    /// if `key` was one.
    fn help_key(&mut self, key: KeyEvent) -> bool {
        let n = panes::help::PAGES.len();
        let page = match key.code {
            KeyCode::Tab | KeyCode::Right => (self.help_page + 1) % n,
            KeyCode::BackTab | KeyCode::Left => (self.help_page + n - 1) % n,
            KeyCode::Char(d @ '1'..='9') if (d as usize - '1' as usize) < n => {
                d as usize - '1' as usize
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.help_scroll = (self.help_scroll + 1).min(HELP_SCROLL_MAX);
                return true;
            }
            KeyCode::PageDown => {
                self.help_scroll = (self.help_scroll + 10).min(HELP_SCROLL_MAX);
                return true;
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.help_scroll = self.help_scroll.saturating_sub(1);
                return true;
            }
            KeyCode::PageUp => {
                self.help_scroll = self.help_scroll.saturating_sub(10);
                return true;
            }
            _ => return false,
        };
        self.help_page = page;
        self.help_scroll = 0;
        true
    }

    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    pub fn run(&self) -> Option<&Run> {
        self.session.run()
    }

    pub fn is_running(&self) -> bool {
        self.session.is_running()
    }

    pub fn speed_label(&self) -> &'static str {
        SPEEDS[self.speed].2
    }

    /// How long the frontend waits between [`App::tick`]s while running.
    pub fn tick_interval(&self) -> Duration {
        match self.session.run() {
            Some(r) if r.fast => Duration::ZERO,
            _ => Duration::from_millis(SPEEDS[self.speed].0),
        }
    }

    /// A run that has gone on for [`PROGRESS_AFTER`] or longer: the cycles
    /// it simulated and the seconds it took so far.
    pub fn progress(&self) -> Option<(u64, f64)> {
        let (began, at) = self.run_began?;
        let took = began.elapsed();
        // A search backwards stays at its cycle: what it simulated counts.
        let done = self
            .session
            .searched_back()
            .map_or_else(|| self.cycle().abs_diff(at), |(_, n)| n);
        (self.is_running() && took >= PROGRESS_AFTER).then_some((done, took.as_secs_f64()))
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    // ---- driving ------------------------------------------------------------

    /// Handles one key press (releases are ignored).
    pub fn handle_key(&mut self, key: KeyEvent) {
        if !keys::is_press(&key) {
            return;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c' | 'C')) {
            self.quit = true;
            return;
        }
        if self.session.is_running() {
            match key.code {
                KeyCode::Char('+' | '=') => self.faster(),
                KeyCode::Char('-' | '_') => self.slower(),
                KeyCode::Char('q') => self.quit = true,
                _ => {
                    let searched = self.session.searched_back();
                    self.session.stop();
                    let text = match searched {
                        Some((reached, _)) => format!(
                            "stopped searching back at cycle {reached}: still at cycle {}",
                            self.cycle()
                        ),
                        None => format!("stopped at cycle {}", self.cycle()),
                    };
                    self.say(MessageKind::Info, text);
                }
            }
            return;
        }
        if self.prompt.is_some() {
            self.prompt_key(key);
            self.refresh();
            return;
        }
        if ctrl {
            return;
        }
        if self.overlay == Overlay::Help && self.count.is_none() && self.help_key(key) {
            return;
        }
        if self.tour_key(&key) {
            return;
        }
        if let KeyCode::Char(d @ '0'..='9') = key.code
            && (d != '0' || self.count.is_some())
        {
            let digit = u64::from(d) - u64::from('0');
            let n = self
                .count
                .unwrap_or(0)
                .saturating_mul(10)
                .saturating_add(digit);
            self.count = Some(n.min(MAX_COUNT));
            return;
        }
        let count = self.count.take();
        let n = count.unwrap_or(1).max(1);
        if !matches!(key.code, KeyCode::Char('?' | 'i')) {
            self.overlay = Overlay::None;
        }
        self.message = None;
        match key.code {
            KeyCode::Char(' ' | 'n') | KeyCode::Right => self.forward(n),
            KeyCode::Char('p') | KeyCode::Left => self.back(n),
            KeyCode::Char('s') => self.start(Goal::Issue(self.warp), n, true),
            KeyCode::Char('c') => self.start(Goal::Breakpoint, n, false),
            KeyCode::Char('d') => self.start(Goal::Divergence, n, false),
            KeyCode::Char('r') => self.start(Goal::Reconvergence, n, false),
            KeyCode::Char('e') => self.start(Goal::End, 1, false),
            KeyCode::Char('C') => self.start_back(Goal::Breakpoint, n),
            KeyCode::Char('D') => self.start_back(Goal::Divergence, n),
            KeyCode::Char('J') => self.start_back(Goal::Reconvergence, n),
            KeyCode::Char('+' | '=') => self.faster(),
            KeyCode::Char('-' | '_') => self.slower(),
            KeyCode::Char('g') => match count {
                Some(c) => self.goto(c),
                None => self.open_prompt(PromptKind::Cycle),
            },
            KeyCode::End | KeyCode::Char('G') => self.goto(u64::MAX),
            KeyCode::Home | KeyCode::Char('R') => {
                self.goto(0);
                self.say(MessageKind::Info, "restarted at cycle 0".into());
            }
            KeyCode::Char('b') | KeyCode::Enter if self.focus == Pane::Source => {
                self.toggle_line_breakpoint();
            }
            KeyCode::Char('b') => self.toggle_breakpoint(),
            KeyCode::Char('B') => self.open_prompt(PromptKind::Condition),
            KeyCode::Enter if self.focus == Pane::Program => self.toggle_breakpoint(),
            KeyCode::Up | KeyCode::Char('k') => self.move_in_pane(-(n as i64)),
            KeyCode::Down | KeyCode::Char('j') => self.move_in_pane(n as i64),
            KeyCode::PageUp if self.focus == Pane::Source => self.move_source(-10 * n as i64),
            KeyCode::PageDown if self.focus == Pane::Source => self.move_source(10 * n as i64),
            // ---- data panes' keys
            KeyCode::PageUp if self.focus == Pane::Grid => self.next_warp(-10 * n as i64),
            KeyCode::PageDown if self.focus == Pane::Grid => self.next_warp(10 * n as i64),
            KeyCode::PageUp if self.focus == Pane::Buffer => self.scroll_buffer(-10 * n as i64),
            KeyCode::PageDown if self.focus == Pane::Buffer => self.scroll_buffer(10 * n as i64),
            KeyCode::Char('l') => self.lanes_key(),
            KeyCode::Char('v') => self.cycle_format(),
            KeyCode::Char('[') => self.step_register(-(n as i64)),
            KeyCode::Char(']') => self.step_register(n as i64),
            KeyCode::Char('m') => self.memory_key(),
            KeyCode::Char('u') => self.buffer_key(),
            KeyCode::Char('x') => self.export(),
            // ----
            KeyCode::PageUp => self.move_cursor(-10 * n as i64),
            KeyCode::PageDown => self.move_cursor(10 * n as i64),
            KeyCode::Char('f') => {
                self.follow = true;
                self.say(
                    MessageKind::Info,
                    format!("the listing follows w{}", self.warp),
                );
            }
            KeyCode::Tab => {
                self.focus = self.focus.next();
                if self.focus == Pane::Source && !self.has_source() {
                    self.focus = self.focus.next();
                }
            }
            KeyCode::BackTab => {
                self.focus = self.focus.prev();
                if self.focus == Pane::Source && !self.has_source() {
                    self.focus = self.focus.prev();
                }
            }
            KeyCode::Char('w') => self.next_warp(n as i64),
            KeyCode::Char('W') => self.next_warp(-(n as i64)),
            KeyCode::Char('.' | '>') => self.next_lane(n as i64),
            KeyCode::Char(',' | '<') => self.next_lane(-(n as i64)),
            KeyCode::Char('?') => self.toggle_overlay(Overlay::Help),
            KeyCode::Char('i') => self.toggle_overlay(Overlay::About),
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char('/') => self.open_prompt(PromptKind::Search),
            KeyCode::Char(':') => self.open_prompt(PromptKind::Pc),
            KeyCode::Char('o') => self.search_again(true),
            KeyCode::Char('O') => self.search_again(false),
            KeyCode::Esc => {}
            other => {
                let name = match other {
                    KeyCode::Char(c) => clean_key(c),
                    k => format!("{k:?}"),
                };
                self.say(
                    MessageKind::Warn,
                    format!("unknown key {name} \u{2014} ? for help"),
                );
            }
        }
        self.refresh();
    }

    /// Advances a run by one tick's worth of cycles (its speed's, or a
    /// fast chunk), stopping exactly at the goal. Ticking only changes how
    /// soon a run gets there, never where it stops.
    pub fn tick(&mut self) {
        let Some(&run) = self.session.run() else {
            return;
        };
        let per_tick = SPEEDS[self.speed].1;
        if run.fast || per_tick == 0 {
            let stop = self.session.advance_for(TICK_BUDGET);
            self.said_stop(stop);
            self.refresh();
        } else {
            self.advance_run(per_tick);
        }
    }

    /// Advances a run by at most `cycles` cycles, stopping exactly at the
    /// goal: a tick with an explicit budget. A replay uses it to bring a
    /// run to the cycle a recorded frame showed, whatever its own pace.
    pub fn advance_run(&mut self, cycles: u64) {
        if !self.session.is_running() {
            return;
        }
        let stop = self.session.advance(cycles);
        self.said_stop(stop);
        self.refresh();
    }

    /// Advances a run for about `budget` of wall time (a replay catching
    /// a recorded run up in slices).
    pub fn advance_run_for(&mut self, budget: Duration) {
        if !self.session.is_running() {
            return;
        }
        let stop = self.session.advance_for(budget);
        self.said_stop(stop);
        self.refresh();
    }

    /// Completes a run now (what headless use does after a run key).
    pub fn finish_run(&mut self) {
        if !self.session.is_running() {
            return;
        }
        let stop = self.session.finish();
        self.said_stop(stop);
        self.refresh();
    }

    /// Says how a run stopped, if it did.
    fn said_stop(&mut self, stop: Option<Stop>) {
        let Some(stop) = stop else {
            return;
        };
        let goal = self.last_goal;
        let took = self.run_began.take().map(|(t, _)| t.elapsed());
        match stop {
            Stop::Reached(hit) => self.say(MessageKind::Info, hit.text),
            Stop::Arrived(c) => {
                if let Some(t) = took.filter(|t| *t >= PROGRESS_AFTER) {
                    let text = format!("at cycle {c} after {:.1} s", t.as_secs_f64());
                    self.say(MessageKind::Info, text);
                }
            }
            Stop::NoneBefore(c) => {
                let what = goal.and_then(Goal::sought).unwrap_or_default();
                self.say(
                    MessageKind::Warn,
                    format!(
                        "no {what} before cycle {c} (searched back to cycle 0): still at cycle {c}"
                    ),
                );
            }
            Stop::Halted => match goal.and_then(Goal::sought) {
                Some(what) => self.say_none_found(&what),
                None => self.say_end(),
            },
        }
    }

    /// A run to a goal that met none before the machine halted.
    fn say_none_found(&mut self, what: &str) {
        let m = self.session.machine();
        let c = m.cycle();
        match m.error() {
            Some(e) => {
                let text = format!("no {what} before the run stopped at cycle {c}: {e}");
                self.say(MessageKind::Error, text);
            }
            None => {
                let text = format!("no {what} until the end (cycle {c})");
                self.say(MessageKind::Warn, text);
            }
        }
    }

    /// Draws the whole screen into the frame.
    pub fn draw(&self, frame: &mut Frame) {
        self.draw_in(frame, frame.area());
    }

    /// Draws the screen into part of the frame (a replay keeps the last
    /// row for its own bar).
    pub fn draw_in(&self, frame: &mut Frame, area: Rect) {
        self.drawn.set(area);
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            panes::too_small::render(frame, area, self);
        } else {
            let [main, status] =
                Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(area);
            if area.width >= FULL_WIDTH && area.height >= FULL_HEIGHT {
                self.draw_full(frame, main);
            } else {
                self.draw_compact(frame, main);
            }
            panes::status::render(frame, status, self);
            let full = area.width >= FULL_WIDTH && area.height >= FULL_HEIGHT;
            self.draw_tour(frame, main, full);
            self.draw_overlay(frame, main);
        }
        if self.theme.ascii {
            let buf = frame.buffer_mut();
            for pos in area.positions() {
                let cell = &mut buf[pos];
                let folded = super::theme::ascii_fold(cell.symbol());
                if folded != cell.symbol() {
                    let folded = folded.to_string();
                    cell.set_symbol(&folded);
                }
            }
        }
    }

    fn draw_overlay(&self, frame: &mut Frame, main: Rect) {
        match self.overlay {
            Overlay::None => {}
            Overlay::Help => panes::help::render(frame, main, self),
            Overlay::About => {
                let r = centered(main, 76.min(main.width), 20.min(main.height));
                frame.render_widget(Clear, r);
                panes::about::render(frame, r, self);
            }
        }
    }

    fn draw_compact(&self, frame: &mut Frame, area: Rect) {
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(52), Constraint::Fill(1)]).areas(area);
        let grid_w =
            panes::mask_grid::compact_width(self).clamp(30, area.width / 2 + area.width / 10);
        let [grid, right] =
            Layout::horizontal([Constraint::Length(grid_w), Constraint::Fill(1)]).areas(top);
        // The source pane takes the mask grid's place while it has focus,
        // so the listing beside it still follows its cursor.
        if self.focus == Pane::Source && self.has_source() {
            panes::source::render(frame, grid, self);
        } else {
            panes::mask_grid::render(frame, grid, self);
        }
        // The lane inspector takes the listing's place while it has focus
        // (unless the lanes view has the bottom row).
        if self.focus == Pane::Lanes && self.data_view != DataView::Lanes {
            panes::lanes::render(frame, right, self);
        } else {
            panes::program::render(frame, right, self);
        }
        match self.data_view {
            DataView::Lanes => return panes::lanes::render(frame, bottom, self),
            DataView::Memory => return panes::memory::render(frame, bottom, self),
            DataView::Buffer => return panes::buffer::render(frame, bottom, self),
            DataView::Panes => {}
        }
        let [sb, counters, queue] = Layout::horizontal([
            Constraint::Ratio(1, 3),
            Constraint::Ratio(1, 3),
            Constraint::Ratio(1, 3),
        ])
        .areas(bottom);
        panes::scoreboards::render(frame, sb, self);
        panes::counters::render(frame, counters, self);
        panes::ready_queue::render(frame, queue, self);
    }

    fn draw_full(&self, frame: &mut Frame, area: Rect) {
        let bottom_h = (area.height * 7 / 20).clamp(12, 24);
        let [top, bottom] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(bottom_h)]).areas(area);
        // With line info the source pane stands beside the listing.
        let (left, program) = if self.has_source() {
            let [left, program, source] = Layout::horizontal([
                Constraint::Percentage(40),
                Constraint::Fill(1),
                Constraint::Fill(1),
            ])
            .areas(top);
            panes::source::render(frame, source, self);
            (left, program)
        } else {
            let [left, program] =
                Layout::horizontal([Constraint::Percentage(56), Constraint::Fill(1)]).areas(top);
            (left, program)
        };
        let grid_h =
            panes::mask_grid::wanted_height(self, left.width).clamp(8, left.height * 3 / 5);
        let [grid, sb] =
            Layout::vertical([Constraint::Length(grid_h), Constraint::Fill(1)]).areas(left);
        panes::mask_grid::render(frame, grid, self);
        panes::scoreboards::render(frame, sb, self);
        panes::program::render(frame, program, self);
        // The memory pane or a buffer takes the about pane's place (below
        // the about pane's width, the ready queue's).
        let data = |frame: &mut Frame, r: Rect| match self.data_view {
            DataView::Memory => panes::memory::render(frame, r, self),
            DataView::Buffer => panes::buffer::render(frame, r, self),
            DataView::Panes | DataView::Lanes => {}
        };
        let data_shown = matches!(self.data_view, DataView::Memory | DataView::Buffer);
        if area.width >= ABOUT_WIDTH {
            let [counters, queue, lanes, about] = Layout::horizontal([
                Constraint::Fill(4),
                Constraint::Fill(3),
                Constraint::Fill(6),
                Constraint::Fill(5),
            ])
            .areas(bottom);
            panes::counters::render(frame, counters, self);
            panes::ready_queue::render(frame, queue, self);
            panes::lanes::render(frame, lanes, self);
            if data_shown {
                data(frame, about);
            } else {
                panes::about::render(frame, about, self);
            }
        } else {
            let [counters, queue, lanes] = Layout::horizontal([
                Constraint::Ratio(1, 3),
                Constraint::Ratio(1, 3),
                Constraint::Ratio(1, 3),
            ])
            .areas(bottom);
            panes::counters::render(frame, counters, self);
            if data_shown {
                data(frame, queue);
            } else {
                panes::ready_queue::render(frame, queue, self);
            }
            panes::lanes::render(frame, lanes, self);
        }
    }

    // ---- actions ------------------------------------------------------------

    /// Shows a message in the status line until the next key.
    pub fn say(&mut self, kind: MessageKind, text: String) {
        self.message = Some(Message { kind, text });
    }

    /// Says how the run ended.
    fn say_end(&mut self) {
        let m = self.session.machine();
        match m.error() {
            Some(e) => {
                let text = format!("stopped: {e}");
                self.say(MessageKind::Error, text);
            }
            None => {
                let text = format!("finished at cycle {}: p steps back, R restarts", m.cycle());
                self.say(MessageKind::Info, text);
            }
        }
    }

    fn forward(&mut self, n: u64) {
        if !self.session.forward(n) {
            self.say_end();
        }
    }

    fn back(&mut self, n: u64) {
        if !self.session.back(n) {
            self.say(MessageKind::Warn, "already at cycle 0".into());
        }
    }

    /// Goes to cycle `target` (the end for `u64::MAX`): a run to the cycle,
    /// advanced in ticks while animating, so it can be watched and stopped.
    fn goto(&mut self, target: u64) {
        self.start(Goal::Cycle(target), 1, true);
    }

    fn prompt_key(&mut self, key: KeyEvent) {
        let kind = self.prompt_kind;
        let Some(text) = self.prompt.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Char(d @ '0'..='9') if kind == PromptKind::Cycle && text.len() < 12 => {
                text.push(d)
            }
            KeyCode::Char(c)
                if kind != PromptKind::Cycle
                    && !c.is_control()
                    && text.chars().count() < nav::PROMPT_MAX =>
            {
                text.push(c)
            }
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Esc => self.prompt = None,
            KeyCode::Enter => {
                let text = self.prompt.take().unwrap_or_default();
                self.message = None;
                match kind {
                    PromptKind::Cycle => {
                        if let Ok(t) = text.parse::<u64>() {
                            self.goto(t);
                        }
                    }
                    PromptKind::Search => {
                        if !text.is_empty() {
                            self.search = Some(text.clone());
                        }
                        self.search(&text, true);
                    }
                    PromptKind::Pc => self.go_to_pc(&text),
                    PromptKind::Condition => self.set_condition(&text),
                }
            }
            _ => {}
        }
    }

    fn start(&mut self, goal: Goal, n: u64, fast: bool) {
        match self.session.start(goal, n, fast) {
            Err(Refused::Halted) => {
                self.say_end();
                return;
            }
            Err(Refused::WarpExited(w)) => {
                self.say(
                    MessageKind::Warn,
                    format!("w{w} has exited: it will not issue again (w picks another warp)"),
                );
                return;
            }
            Err(Refused::NoBreakpoint) => {
                self.say(
                    MessageKind::Warn,
                    "no breakpoint set (b sets one at the cursor)".into(),
                );
                return;
            }
            Err(Refused::AtStart | Refused::NotAnEvent) => {
                self.say(MessageKind::Warn, "already at cycle 0".into());
                return;
            }
            Ok(_) => {}
        }
        self.began(goal, fast);
    }

    /// A run just started: timed, and completed at once unless animating.
    fn began(&mut self, goal: Goal, fast: bool) {
        self.last_goal = Some(goal);
        self.run_began = Some((Instant::now(), self.cycle()));
        if !self.animate {
            self.finish_run();
        } else if fast {
            self.tick();
        }
    }

    /// `D`, `J`, `C`: back to the `n`th previous hit of `goal` (always at
    /// the top speed: a search backwards has nothing to watch).
    fn start_back(&mut self, goal: Goal, n: u64) {
        match self.session.start_back(goal, n, true) {
            Ok(_) => self.began(goal, true),
            Err(Refused::NoBreakpoint) => self.say(
                MessageKind::Warn,
                "no breakpoint set (b sets one at the cursor)".into(),
            ),
            Err(_) => {
                let what = goal.sought().unwrap_or_default();
                self.say(
                    MessageKind::Warn,
                    format!("already at cycle 0: no {what} before it"),
                );
            }
        }
    }

    fn faster(&mut self) {
        self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
        self.say(
            MessageKind::Info,
            format!("run speed {}", self.speed_label()),
        );
    }

    fn slower(&mut self) {
        self.speed = self.speed.saturating_sub(1);
        self.say(
            MessageKind::Info,
            format!("run speed {}", self.speed_label()),
        );
    }

    fn toggle_overlay(&mut self, o: Overlay) {
        self.overlay = if self.overlay == o { Overlay::None } else { o };
        if self.overlay == Overlay::Help {
            self.help_page = 0;
            self.help_scroll = 0;
        }
    }

    fn toggle_breakpoint(&mut self) {
        let pc = self.cursor;
        if self.session.toggle_breakpoint(pc) {
            self.say(MessageKind::Info, format!("breakpoint at {} set", addr(pc)));
        } else {
            self.say(
                MessageKind::Info,
                format!("breakpoint at {} cleared", addr(pc)),
            );
        }
    }

    /// `B` then a condition: a conditional breakpoint at the cursor; an
    /// empty condition clears the one there.
    fn set_condition(&mut self, text: &str) {
        let pc = self.cursor;
        if text.trim().is_empty() {
            let text = if self.session.set_condition(pc, None) {
                format!("conditional breakpoint at {} cleared", addr(pc))
            } else {
                format!("no conditional breakpoint at {} to clear", addr(pc))
            };
            self.say(MessageKind::Info, text);
            return;
        }
        match crate::session::Condition::parse(text) {
            Ok(c) => {
                self.session.set_condition(pc, Some(c));
                self.say(
                    MessageKind::Info,
                    format!("breakpoint at {} if {c} set (b clears it)", addr(pc)),
                );
            }
            Err(e) => self.say(MessageKind::Error, e),
        }
    }

    /// The conditional breakpoints, by pc.
    pub fn conditions(&self) -> &std::collections::BTreeMap<u32, crate::session::Condition> {
        self.session.breakpoints().conditions()
    }

    /// Sets or clears the breakpoint on the source cursor's line.
    fn toggle_line_breakpoint(&mut self) {
        let Some(&p) = self.source_rows.get(self.source_cursor) else {
            return;
        };
        match self.session.toggle_line_breakpoint(p.file, p.line) {
            Some(true) => self.say(
                MessageKind::Info,
                format!("breakpoint on source line {} set", p.line),
            ),
            Some(false) => self.say(
                MessageKind::Info,
                format!("breakpoint on source line {} cleared", p.line),
            ),
            None => self.say(
                MessageKind::Warn,
                format!("source line {} has no instructions", p.line),
            ),
        }
    }

    /// Moves the source cursor `d` rows; the listing cursor goes to the
    /// line's first instruction (a line without any leaves it).
    fn move_source(&mut self, d: i64) {
        let last = self.source_rows.len().saturating_sub(1) as i64;
        self.source_cursor = (self.source_cursor as i64 + d).clamp(0, last.max(0)) as usize;
        let Some(map) = self.session.scenario().source_map.as_ref() else {
            return;
        };
        if let Some(&p) = self.source_rows.get(self.source_cursor)
            && let Some(&pc) = map.pcs_of(p).first()
        {
            self.cursor = pc;
            self.follow = false;
        }
    }

    /// Puts the source cursor on the listing cursor's line, if it has one.
    fn source_follows_listing(&mut self) {
        let Some(map) = self.session.scenario().source_map.as_ref() else {
            return;
        };
        if let Some(p) = map.at(self.cursor)
            && let Some(row) = self.source_rows.iter().position(|&r| r == p)
        {
            self.source_cursor = row;
        }
    }

    fn move_in_pane(&mut self, d: i64) {
        match self.focus {
            Pane::Source => self.move_source(d),
            Pane::Program => self.move_cursor(d),
            Pane::Lanes => self.next_lane(d),
            Pane::Buffer => self.scroll_buffer(d),
            _ => self.next_warp(d),
        }
    }

    fn move_cursor(&mut self, d: i64) {
        let last = self.scenario().program.instrs.len().saturating_sub(1) as i64;
        self.cursor = (i64::from(self.cursor) + d).clamp(0, last.max(0)) as u32;
        self.follow = false;
        self.source_follows_listing();
    }

    /// Moves the focus `d` warps on among the resident ones (by index),
    /// wrapping around.
    fn next_warp(&mut self, d: i64) {
        let mut ids: Vec<u32> = self.views.iter().map(|v| v.warp).collect();
        ids.sort_unstable();
        if ids.is_empty() {
            self.say(MessageKind::Warn, "no warp is resident".into());
            return;
        }
        let n = ids.len() as i64;
        let at = match ids.binary_search(&self.warp) {
            Ok(i) => i as i64,
            // Not resident: the next one up counts as one step.
            Err(i) if d > 0 => i as i64 - 1,
            Err(i) => i as i64,
        };
        let i = (at + d).rem_euclid(n);
        self.warp = ids[i as usize];
        self.follow = true;
    }

    fn next_lane(&mut self, d: i64) {
        let w = i64::from(self.scenario().machine.warp_width.max(1));
        self.lane = (i64::from(self.lane) + d).rem_euclid(w) as u32;
    }

    /// Reads what the panes show from the machine.
    fn refresh(&mut self) {
        let m = self.session.machine();
        self.views = m.warp_views();
        self.records = m.warp_records();
        self.pcs = m.pc_counters();
        self.line_counters = self
            .session
            .scenario()
            .source_map
            .as_ref()
            .map_or_else(Vec::new, |map| map.counters(&self.pcs));
        let m = self.session.machine();
        self.totals = m.totals();
        let (sms, schedulers) = (m.config().sms, m.config().schedulers);
        self.queues = (0..sms)
            .flat_map(|s| (0..schedulers).map(move |k| (s, k)))
            .map(|(s, k)| (s, k, m.ready_queue(s, k)))
            .collect();
        self.lane_view = m.lane_view(self.warp, self.lane);
        // Following, the cursor is a function of the machine alone (the
        // top when the focused warp is not resident), so stepping there
        // and back shows the same screen.
        if self.follow {
            let pc = self.focused_view().and_then(|v| v.pc).unwrap_or(0);
            if (pc as usize) < self.session.scenario().program.instrs.len() {
                self.cursor = pc;
            }
            self.source_follows_listing();
        }
        // After the cursor: the lanes view's register may be the cursor's.
        self.refresh_data();
    }
}

/// The source pane's rows: per file of the source map, every line of its
/// text (and any line past its end that has instructions), or without the
/// text the lines that have instructions.
fn source_rows(sc: &Scenario) -> Vec<SourcePos> {
    let Some(map) = sc.source_map.as_ref() else {
        return Vec::new();
    };
    let code = map.code_lines();
    let mut rows = Vec::new();
    for file in 0..map.files.len() as u32 {
        let mut lines: Vec<u32> = code
            .iter()
            .filter(|c| c.pos.file == file)
            .map(|c| c.pos.line)
            .collect();
        let n = map.text_lines(file) as u32;
        lines.extend(1..=n);
        lines.sort_unstable();
        lines.dedup();
        rows.extend(lines.into_iter().map(|line| SourcePos { file, line }));
    }
    rows
}

/// A typed character as a status line names it: visible, or escaped.
fn clean_key(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        c.escape_default().to_string()
    } else {
        crate::text::clean(&c.to_string())
    }
}

/// A `w` x `h` rectangle in the middle of `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}
