//! Turning a stepping session into cast events: the bytes of each frame as
//! a terminal receives them (ratatui's `CrosstermBackend` writing into a
//! copy, so only changed cells are in a frame), each key as the bytes a
//! terminal sends, each resize, and a marker whenever a frame shows a new
//! cycle.

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use super::cast::{CastWriter, Header, KEY_DELAY};
use super::{RecordError, key_bytes, marker};
use crate::scenario::Scenario;
use crate::text::clean;
use crate::tui::{self, App, Options, Tap};

/// Home and clear, before the first frame: ratatui draws only the cells
/// that differ from a blank screen, so a player must start from one.
const CLEAR: &str = "\u{1b}[H\u{1b}[2J";

/// A writer that passes everything on to `inner` and keeps a copy of what
/// it has not handed out yet.
pub struct Tee<W> {
    inner: W,
    copy: Rc<RefCell<Vec<u8>>>,
}

impl<W: Write> Tee<W> {
    pub fn new(inner: W) -> (Tee<W>, Rc<RefCell<Vec<u8>>>) {
        let copy = Rc::new(RefCell::new(Vec::new()));
        (
            Tee {
                inner,
                copy: Rc::clone(&copy),
            },
            copy,
        )
    }
}

impl<W: Write> Write for Tee<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.copy.borrow_mut().extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a session's events into a cast.
pub struct Recorder<W: Write> {
    cast: CastWriter<W>,
    /// The cycle the last frame showed.
    shown: u64,
    /// The tour step the last frame showed.
    shown_step: Option<usize>,
    first: bool,
}

impl<W: Write> Recorder<W> {
    /// Writes the header; `app` is the session at its start.
    pub fn new(out: W, header: &Header, app: &App) -> io::Result<Self> {
        Ok(Recorder {
            cast: CastWriter::new(out, header)?,
            shown: app.session().cycle(),
            shown_step: None,
            first: true,
        })
    }

    /// An `i` event; false (and nothing written) for a key that no
    /// terminal sends as bytes.
    pub fn key(&mut self, time: f64, key: &KeyEvent) -> io::Result<bool> {
        match key_bytes::encode(key) {
            Some(bytes) => {
                self.cast.event(time, "i", &bytes)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The `o` event of a frame drawn with `bytes`, then a marker if it
    /// shows a cycle the frame before did not, or a tour step: a step's
    /// marker is its caption's first line (a chapter in a player).
    pub fn frame(&mut self, time: f64, bytes: &[u8], app: &App) -> io::Result<()> {
        let mut data = String::from_utf8_lossy(bytes).into_owned();
        if std::mem::take(&mut self.first) {
            data.insert_str(0, CLEAR);
        }
        if !data.is_empty() {
            self.cast.event(time, "o", &data)?;
        }
        let session = app.session();
        let step = app.tour_step();
        if step != self.shown_step {
            self.shown_step = step;
            if let Some(title) = step.and_then(|i| app.tour().get(i)).map(|s| s.title()) {
                self.shown = session.cycle();
                self.cast.event(time, "m", title)?;
                return Ok(());
            }
        }
        if session.cycle() != self.shown {
            self.shown = session.cycle();
            self.cast.event(time, "m", &marker::label(session))?;
        }
        Ok(())
    }

    /// An `r` event.
    pub fn resize(&mut self, time: f64, width: u16, height: u16) -> io::Result<()> {
        self.cast.event(time, "r", &format!("{width}x{height}"))
    }

    pub fn into_inner(self) -> W {
        self.cast.into_inner()
    }
}

/// A terminal of a fixed size that exists only as the bytes drawn to it.
pub struct Screen {
    terminal: Terminal<CrosstermBackend<Tee<io::Sink>>>,
    copy: Rc<RefCell<Vec<u8>>>,
}

impl Screen {
    pub fn new(width: u16, height: u16) -> io::Result<Screen> {
        let (tee, copy) = Tee::new(io::sink());
        // A fixed viewport: ratatui never asks a terminal for its size. It
        // is clamped as a live terminal's is, so `--size` cannot ask for
        // more cells than a live stepper draws.
        let size = crate::tui::viewport::clamp(ratatui::layout::Size::new(width, height));
        let terminal = Terminal::with_options(
            CrosstermBackend::new(tee),
            TerminalOptions {
                viewport: Viewport::Fixed(Rect::new(0, 0, size.width, size.height)),
            },
        )?;
        Ok(Screen { terminal, copy })
    }

    /// Draws the app; the bytes a terminal would have received.
    pub fn draw(&mut self, app: &App) -> io::Result<Vec<u8>> {
        self.terminal.draw(|f| app.draw(f))?;
        Ok(std::mem::take(&mut *self.copy.borrow_mut()))
    }
}

/// How a headless recording is made.
#[derive(Debug, Clone)]
pub struct Headless {
    pub width: u16,
    pub height: u16,
    pub ascii: bool,
    pub color: bool,
    /// The header's `timestamp`.
    pub timestamp: u64,
}

/// What a headless recording did.
pub struct Recorded {
    /// The session at its end.
    pub app: App,
    /// Keys played (a quitting key ends the session; keys after it are not).
    pub keys: usize,
}

/// The header of a recording of `scenario`.
pub fn header(
    scenario: &Scenario,
    width: u16,
    height: u16,
    timestamp: u64,
    term: String,
    options: Options,
) -> Header {
    Header {
        version: 2,
        width,
        height,
        timestamp,
        title: format!("warpstep: {}", clean(&scenario.name)),
        env: super::cast::Env { term },
        warpstep: super::cast::Meta {
            version: env!("CARGO_PKG_VERSION").to_string(),
            scenario: self_contained(scenario),
            origin: scenario.origin.to_string(),
            ascii: options.ascii,
            animate: options.animate,
            key_delay: (!options.animate).then_some(KEY_DELAY),
            convergence: scenario.model_overrides().0.map(|c| {
                match c {
                    crate::scenario::Convergence::Stack => "stack",
                    crate::scenario::Convergence::Its => "its",
                }
                .to_string()
            }),
            policy: scenario.model_overrides().1.map(|p| {
                match p {
                    crate::scenario::Policy::Lrr => "lrr",
                    crate::scenario::Policy::Gto => "gto",
                }
                .to_string()
            }),
        },
    }
}

/// The scenario text a cast carries. `replay` compiles nothing (the cast
/// may be a stranger's), so a scenario whose listing nvcc made here at
/// load (`cuda:` and no `program:`) is carried with that listing appended
/// as `program:`, which loads anywhere. Text that would not load that way
/// (a document that does not end in its top-level mapping) is carried as
/// written.
pub(super) fn self_contained(scenario: &Scenario) -> String {
    let compiled = scenario.cuda.as_ref().is_some_and(|c| c.compiled.is_some());
    if !compiled {
        return scenario.source.clone();
    }
    let mut text = scenario.source.trim_end().to_string();
    text.push_str("\n# The listing nvcc wrote when this was recorded:\nprogram: |\n");
    for line in scenario.program_text.lines() {
        if !line.trim().is_empty() {
            text.push_str("  ");
            text.push_str(line.trim_end());
        }
        text.push('\n');
    }
    match Scenario::from_text(&text, scenario.origin.clone()) {
        Ok(_) => text,
        Err(_) => scenario.source.clone(),
    }
}

/// Plays `keys` into the stepper with no terminal and writes the cast:
/// the first frame at 0 s, then each key and the frame it led to at
/// [`KEY_DELAY`] s intervals. The same inputs give the same bytes.
pub fn record_keys<W: Write>(
    scenario: Arc<Scenario>,
    keys: &[KeyEvent],
    how: &Headless,
    out: W,
) -> io::Result<(Recorded, W)> {
    let options = Options {
        ascii: how.ascii,
        color: how.color,
        animate: false,
    };
    // A key like `e` on a long run is one call into the stepper, and no
    // terminal is there to read a `q` from: SIGINT and SIGTERM end the
    // process at once (130, 143). The cast keeps the lines written so far;
    // `replay` drops a cut last line with a warning.
    let _signals = crate::cli::progress::ExitOnSignal::install("record stopped")?;
    let mut app = App::new(Arc::clone(&scenario), options).map_err(io::Error::other)?;
    // A fixed TERM: the bytes are xterm's whatever terminal runs CI.
    let head = header(
        &scenario,
        how.width,
        how.height,
        how.timestamp,
        "xterm-256color".into(),
        options,
    );
    let mut rec = Recorder::new(out, &head, &app)?;
    let mut screen = Screen::new(how.width, how.height)?;
    rec.frame(0.0, &screen.draw(&app)?, &app)?;
    let mut played = 0;
    for (i, k) in keys.iter().enumerate() {
        let t = (i + 1) as f64 * KEY_DELAY;
        rec.key(t, k)?;
        app.handle_key(*k);
        played += 1;
        if app.should_quit() {
            break;
        }
        rec.frame(t, &screen.draw(&app)?, &app)?;
    }
    Ok((Recorded { app, keys: played }, rec.into_inner()))
}

/// Records what the terminal shows while a person steps: `tui`'s event
/// loop with a tap on its keys, resizes and frames.
struct LiveTap<W: Write> {
    rec: Recorder<W>,
    copy: Rc<RefCell<Vec<u8>>>,
    start: Instant,
}

impl<W: Write> LiveTap<W> {
    fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

impl<W: Write> Tap for LiveTap<W> {
    fn key(&mut self, key: &KeyEvent) -> io::Result<()> {
        let t = self.now();
        self.rec.key(t, key).map(|_| ())
    }

    fn resize(&mut self, width: u16, height: u16) -> io::Result<()> {
        let t = self.now();
        self.rec.resize(t, width, height)
    }

    fn frame(&mut self, app: &App) -> io::Result<()> {
        let bytes = std::mem::take(&mut *self.copy.borrow_mut());
        let t = self.now();
        self.rec.frame(t, &bytes, app)
    }
}

/// The interactive recording: the stepper in this terminal, every line of
/// the cast written to `out` as it happens.
pub fn record_live<W: Write>(
    scenario: Arc<Scenario>,
    ascii: bool,
    out: W,
) -> Result<(), RecordError> {
    let options = Options {
        ascii,
        color: tui::theme::Theme::color_from_env(),
        animate: true,
    };
    let mut app =
        App::new(Arc::clone(&scenario), options).map_err(|error| RecordError::Machine {
            origin: scenario.origin.to_string(),
            error,
        })?;
    let (width, height) =
        ratatui::crossterm::terminal::size().map_err(RecordError::TerminalSize)?;
    let term = std::env::var("TERM")
        .ok()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "xterm-256color".into());
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let head = header(&scenario, width, height, timestamp, term, options);
    let rec = Recorder::new(out, &head, &app)?;
    let (tee, copy) = Tee::new(io::stdout());
    let mut tap = LiveTap {
        rec,
        copy,
        start: Instant::now(),
    };
    tui::with_terminal(tee, |terminal, stop| {
        tui::event_loop(terminal, &mut app, stop, &mut tap)
    })?;
    Ok(())
}
