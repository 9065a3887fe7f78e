//! Replay: the cast's keys fed to a live stepper at the recorded pace.
//!
//! The stepper is rebuilt from the scenario in the header and drawn at the
//! viewer's size; the cast's frames are not shown (they are for asciinema
//! players). Its keys go through [`App::handle_key`] as they did when they
//! were recorded. A run that was animated advances only to the cycle each
//! recorded marker names, so a key that stopped it part way stops it at the
//! same cycle, whatever the pace here. A headless cast (`animate: false`)
//! completes each run within its key, as its recording did.
//!
//! Keys of the viewer while the recording plays: `Space` pauses and
//! resumes, `]` plays up to the next marker and pauses there, `q` or
//! `Ctrl-C` quits, and any other key stops playback and is the first key
//! of a live stepper (take over). A recorded key that quit the original
//! session ends playback instead, and the viewer has the stepper.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{self, Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::cast::{Event, EventKind};
use crate::tui::app::{MIN_HEIGHT, MessageKind};
use crate::tui::{App, IDLE_POLL, keys};

/// Where playback is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Playing,
    Paused,
    /// The recording is over or the viewer took over: a plain stepper.
    Live,
}

/// Feeds a cast's events to a stepper.
pub struct Player {
    events: Vec<Event>,
    next: usize,
    /// The recording animated its runs (see the module documentation).
    animate: bool,
    speed: f64,
    mode: Mode,
    /// Cast time reached when `anchor` was taken.
    base: f64,
    anchor: Instant,
    /// The last marker played.
    marker: Option<String>,
    duration: f64,
    /// Runs are caught up in slices ([`Player::pump`]), so a long one
    /// never holds the viewer's keys: a replay in a terminal. Headless
    /// play completes each at once.
    sliced: bool,
    /// The cycle a run must reach before the next event plays (`u64::MAX`:
    /// its end), while it is caught up in slices.
    pending: Option<u64>,
}

impl Player {
    /// A player at the start of `events`, playing (or paused).
    pub fn new(events: Vec<Event>, animate: bool, speed: f64, paused: bool) -> Player {
        let duration = events.last().map_or(0.0, |e| e.time);
        Player {
            events,
            next: 0,
            animate,
            speed,
            mode: if paused { Mode::Paused } else { Mode::Playing },
            base: 0.0,
            anchor: Instant::now(),
            marker: None,
            duration,
            sliced: false,
            pending: None,
        }
    }

    /// Catches runs up in slices of at most [`CATCH_UP_SLICE`] from now
    /// on, for [`Player::pump`].
    pub fn sliced(mut self) -> Player {
        self.sliced = true;
        self
    }

    /// A run being caught up before the next event plays.
    pub fn catching_up(&self) -> bool {
        self.pending.is_some()
    }

    /// One turn of a replay in a terminal: a slice of the run being caught
    /// up, if there is one (the cast's clock waits for it, as the
    /// recording did), else the events due by `now`. Returns within about
    /// [`CATCH_UP_SLICE`]; true if anything changed.
    pub fn pump(&mut self, app: &mut App, now: Instant) -> bool {
        if self.mode == Mode::Live {
            self.pending = None;
        }
        let Some(target) = self.pending else {
            return self.play_due(app, now);
        };
        if !app.is_running() || app.cycle() >= target {
            self.pending = None;
            return self.play_due(app, now);
        }
        let held = self.position(now);
        if target == u64::MAX {
            app.advance_run_for(CATCH_UP_SLICE);
        } else {
            let began = Instant::now();
            while app.is_running() && app.cycle() < target && began.elapsed() < CATCH_UP_SLICE {
                app.advance_run((target - app.cycle()).min(CATCH_UP_CHUNK));
            }
        }
        if !app.is_running() || app.cycle() >= target {
            self.pending = None;
        }
        self.base = held;
        self.anchor = Instant::now();
        true
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Plays every event now, with no clock: what the viewer would see at
    /// the end of an uninterrupted replay.
    pub fn play_all(&mut self, app: &mut App) {
        while self.mode != Mode::Live {
            self.play_next(app);
        }
    }

    /// Plays the next event; at the end (or a recorded quit) the player is
    /// live.
    fn play_next(&mut self, app: &mut App) {
        let Some(ev) = self.events.get(self.next) else {
            self.go_live(app, "end of the recording: the stepper is yours (q quits)");
            return;
        };
        self.next += 1;
        match &ev.kind {
            EventKind::Input(keys) => {
                for k in keys.clone() {
                    if !self.press(app, k) {
                        self.go_live(
                            app,
                            "the recording quit here: the stepper is yours (q quits)",
                        );
                        return;
                    }
                }
            }
            EventKind::Marker { label, cycle } => {
                self.marker = Some(label.clone());
                // A recorded run was at this cycle when the frame was drawn.
                let session = app.session();
                if let Some(c) = *cycle
                    && session.is_running()
                    && c > session.cycle()
                {
                    if self.sliced {
                        self.pending = Some(c);
                    } else {
                        let behind = c - session.cycle();
                        app.advance_run(behind);
                    }
                }
            }
            // Frames are redrawn from the app at the viewer's size.
            EventKind::Output(_) | EventKind::Resize(..) => {}
        }
        if self.next == self.events.len() {
            self.go_live(app, "end of the recording: the stepper is yours (q quits)");
        }
    }

    /// Gives a recorded key to the app; false for a key that would quit.
    fn press(&mut self, app: &mut App, k: KeyEvent) -> bool {
        if could_quit(&k) {
            // Try it on a copy: `q` in the go-to prompt does not quit.
            let mut probe = app.clone();
            probe.handle_key(k);
            if probe.should_quit() {
                return false;
            }
            *app = probe;
        } else {
            app.handle_key(k);
        }
        if !self.animate {
            if self.sliced {
                self.pending = app.is_running().then_some(u64::MAX);
            } else {
                app.finish_run();
            }
        }
        true
    }

    fn go_live(&mut self, app: &mut App, why: &str) {
        if self.mode != Mode::Live {
            self.mode = Mode::Live;
            self.next = self.events.len();
            if app.message().is_none() {
                app.say(MessageKind::Info, why.to_string());
            }
        }
    }

    /// The cast time playback has reached.
    fn position(&self, now: Instant) -> f64 {
        match self.mode {
            Mode::Playing => self.base + now.duration_since(self.anchor).as_secs_f64() * self.speed,
            _ => self.base,
        }
    }

    /// Plays the events due by `now`; true if any was played.
    fn play_due(&mut self, app: &mut App, now: Instant) -> bool {
        if self.mode != Mode::Playing {
            return false;
        }
        let pos = self.position(now);
        let mut played = false;
        while self.mode == Mode::Playing
            && self.pending.is_none()
            && self.events.get(self.next).is_some_and(|e| e.time <= pos)
        {
            self.play_next(app);
            played = true;
        }
        if self.mode == Mode::Playing && self.pending.is_none() && self.next == self.events.len() {
            self.go_live(app, "end of the recording: the stepper is yours (q quits)");
            played = true;
        }
        played
    }

    /// How long until the next event is due.
    fn wait(&self, now: Instant) -> Duration {
        match (self.mode, self.events.get(self.next)) {
            (Mode::Playing, Some(e)) => {
                let secs = ((e.time - self.position(now)) / self.speed).max(0.0);
                Duration::from_secs_f64(secs.min(IDLE_POLL.as_secs_f64()))
            }
            _ => IDLE_POLL,
        }
    }

    fn toggle_pause(&mut self, now: Instant) {
        match self.mode {
            Mode::Playing => {
                self.base = self.position(now);
                self.mode = Mode::Paused;
            }
            Mode::Paused => {
                self.anchor = now;
                self.mode = Mode::Playing;
            }
            Mode::Live => {}
        }
    }

    /// Plays up to and including the next marker, then pauses there.
    pub fn next_marker(&mut self, app: &mut App, now: Instant) {
        if self.mode == Mode::Live {
            return;
        }
        self.base = self.position(now);
        self.mode = Mode::Paused;
        while self.mode != Mode::Live && self.pending.is_none() {
            let is_marker = self
                .events
                .get(self.next)
                .is_some_and(|e| matches!(e.kind, EventKind::Marker { .. }));
            if let Some(e) = self.events.get(self.next) {
                self.base = self.base.max(e.time);
            }
            self.play_next(app);
            if is_marker {
                break;
            }
        }
    }

    /// The viewer's key while the recording plays; false to quit.
    fn viewer_key(&mut self, app: &mut App, k: KeyEvent, now: Instant) -> bool {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match k.code {
            KeyCode::Char('c') if ctrl => return false,
            KeyCode::Char('q') if !ctrl => return false,
            KeyCode::Char(' ') if !ctrl => self.toggle_pause(now),
            KeyCode::Char(']') if !ctrl => self.next_marker(app, now),
            _ => {
                // Take over: the key is the live stepper's first.
                let at = self.position(now);
                self.mode = Mode::Live;
                app.handle_key(k);
                if app.message().is_none() && !app.is_running() {
                    app.say(
                        MessageKind::Info,
                        format!("playback stopped at {at:.1} s: the stepper is yours"),
                    );
                }
            }
        }
        true
    }

    /// The bar under the stepper while the recording plays: state, pace,
    /// keys, then the last marker (cut first when the row is short).
    fn bar(&self, now: Instant, ascii: bool) -> String {
        let state = match (self.mode, ascii) {
            (Mode::Paused, false) => "⏸ paused",
            (Mode::Paused, true) => "|| paused",
            (_, false) => "▶ replay",
            (_, true) => "> replay",
        };
        let sep = if ascii { "|" } else { "│" };
        let space = if self.mode == Mode::Paused {
            "Space play"
        } else {
            "Space pause"
        };
        let mut s = format!(
            " {state} {}x {:.0}s/{:.0}s {sep} {space}  ] next marker  other keys take over  q quit ",
            self.speed,
            self.position(now).min(self.duration),
            self.duration
        );
        if let Some(m) = &self.marker {
            s.push_str(&format!("{sep} {} ", crate::text::clean(m)));
        }
        if ascii {
            s.chars().filter(char::is_ascii).collect()
        } else {
            s
        }
    }
}

/// Only `q` and Ctrl-C can quit the stepper.
fn could_quit(k: &KeyEvent) -> bool {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    matches!(k.code, KeyCode::Char('q')) || (ctrl && matches!(k.code, KeyCode::Char('c' | 'C')))
}

/// The longest a slice of catching a run up takes before the replay reads
/// the viewer's keys again.
pub const CATCH_UP_SLICE: Duration = Duration::from_millis(25);

/// Cycles per step while catching a run up to a marker's cycle.
const CATCH_UP_CHUNK: u64 = 1024;

/// The replay loop in a terminal: plays events when they are due, reads
/// the viewer's keys, and, once live, is the stepper's own loop.
pub fn run<W: Write>(
    terminal: &mut crate::tui::StepperTerminal<W>,
    app: &mut App,
    player: &mut Player,
    stop: &AtomicBool,
    ascii: bool,
) -> io::Result<()> {
    let mut dirty = true;
    player.anchor = Instant::now();
    let mut last_bar = String::new();
    loop {
        if stop.load(Ordering::Relaxed) || app.should_quit() {
            return Ok(());
        }
        let now = Instant::now();
        dirty |= player.pump(app, now);
        let bar = if player.mode == Mode::Live {
            String::new()
        } else {
            player.bar(now, ascii)
        };
        if dirty || bar != last_bar {
            terminal.draw(|f| {
                let area = f.area();
                if bar.is_empty() {
                    app.draw(f);
                    return;
                }
                // A row of its own below the stepper when the stepper keeps
                // its minimum height; over its top border otherwise.
                let line = if area.height > MIN_HEIGHT {
                    let [main, line] =
                        Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(area);
                    app.draw_in(f, main);
                    line
                } else {
                    app.draw(f);
                    Rect { height: 1, ..area }
                };
                let style = Style::default().add_modifier(Modifier::REVERSED);
                f.render_widget(Paragraph::new(Line::from(bar.as_str())).style(style), line);
            })?;
            dirty = false;
            last_bar = bar;
        }
        let timeout = match player.mode {
            Mode::Live if app.is_running() => app.tick_interval(),
            Mode::Live => IDLE_POLL,
            _ if player.catching_up() => Duration::ZERO,
            _ => player.wait(now),
        };
        if event::poll(timeout)? {
            loop {
                match event::read()? {
                    TermEvent::Key(k) if keys::is_press(&k) => {
                        if player.mode == Mode::Live {
                            app.handle_key(k);
                        } else if !player.viewer_key(app, k, Instant::now()) {
                            return Ok(());
                        }
                        dirty = true;
                    }
                    TermEvent::Resize(..) => dirty = true,
                    _ => {}
                }
                if app.should_quit() || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
        } else if player.mode == Mode::Live && app.is_running() {
            app.tick();
            dirty = true;
        }
    }
}
