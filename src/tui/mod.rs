//! The interactive stepper.
//!
//! [`App`] holds a [`Session`](crate::session::Session) (the machine's
//! timeline, breakpoints, a run in progress) and what the user selected
//! (focus, windows, messages), and knows nothing of terminals: it takes
//! key events ([`App::handle_key`]), advances runs on [`App::tick`], and
//! draws into any ratatui frame ([`App::draw`]). This module is the only
//! part that touches the terminal: it reads crossterm events, polls with
//! the run's tick interval while a run animates, and restores the terminal
//! on every way out (quit, Ctrl-C, a panic, SIGTERM, SIGINT, SIGHUP;
//! after a signal the process exits 128 plus its number).
//!
//! [`with_terminal`] takes the terminal over and gives it back; the
//! [`event_loop`] draws through any writer and tells a [`Tap`] about every
//! key, resize and frame, which is how `record` tees the session into a
//! cast without a loop of its own.
//!
//! Headless frontends (recordings, tests) drive the same `App` with
//! [`keys::parse_keys`] and draw with [`render_to_buffer`]; with
//! [`Options::animate`] off, a run key completes within its key press, so a
//! key list alone decides every screen.

pub mod app;
pub mod export;
pub mod keys;
pub mod panes;
pub mod theme;
pub mod viewport;

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{self, Event, KeyEvent};

pub use app::{App, Options};
pub use viewport::ClampedBackend;

use crate::scenario::Scenario;

/// How often the loop looks at the signal flags while idle.
pub const IDLE_POLL: Duration = Duration::from_millis(250);

/// What can go wrong at the terminal: taking it over, reading keys and
/// drawing.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// Raw mode or the alternate screen could not be set up: no terminal.
    #[error("error: the stepper needs a terminal; `warpstep run SCENARIO` reports without one")]
    NoTerminal(#[source] io::Error),
    /// Installing the signal handlers, reading events or drawing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Runs the stepper in this terminal until the user quits.
pub fn run_interactive(app: &mut App) -> Result<(), TuiError> {
    with_terminal(std::io::stdout(), |terminal, stop| {
        event_loop(terminal, app, stop, &mut NoTap)
    })
}

/// What a frontend watching an interactive session (a recording) is told:
/// every key press as it arrives, every resize, and every frame after it
/// was drawn, in that order.
pub trait Tap {
    fn key(&mut self, _key: &KeyEvent) -> io::Result<()> {
        Ok(())
    }
    fn resize(&mut self, _width: u16, _height: u16) -> io::Result<()> {
        Ok(())
    }
    fn frame(&mut self, _app: &App) -> io::Result<()> {
        Ok(())
    }
}

/// A session nobody watches.
pub struct NoTap;

impl Tap for NoTap {}

/// How long a terminating signal waits for the loop to come back and
/// restore the terminal itself before the signal watcher does it and ends
/// the process (a long computation, or a reader spinning on a closed tty).
pub const SIGNAL_GRACE: Duration = Duration::from_millis(1000);

/// The signal that ended the last session at the terminal (SIGTERM,
/// SIGINT or SIGHUP), 0 while none arrived.
/// Set in the signal handler itself, so it is known as soon as the loop
/// sees `stop`.
static SIGNALLED: LazyLock<Arc<AtomicUsize>> = LazyLock::new(|| Arc::new(AtomicUsize::new(0)));

/// Whether the terminal was given back, so the signal watcher leaves it be.
static RESTORED: AtomicBool = AtomicBool::new(false);

/// The exit status the process should end with because a signal ended the
/// stepper: 128 plus the signal's number, as a shell reports it (143 for
/// SIGTERM, 130 for SIGINT, 129 for SIGHUP); `None` when no signal came.
pub fn signal_exit_status() -> Option<i32> {
    match SIGNALLED.load(Ordering::SeqCst) {
        0 => None,
        sig => i32::try_from(sig).ok().map(|n| 128 + n),
    }
}

/// Gives the terminal back without reporting failures: after a hangup the
/// tty may be gone, writes fail, and a message about it (or a panic from
/// `eprintln!` on a closed stderr) could only make things worse.
fn restore_quietly() {
    use ratatui::crossterm::{cursor::Show, execute, terminal::LeaveAlternateScreen};
    let _ = ratatui::crossterm::terminal::disable_raw_mode();
    let _ = execute!(io::stdout(), LeaveAlternateScreen, Show);
}

/// Takes over the terminal (raw mode, the alternate screen, a panic hook
/// and SIGTERM/SIGINT/SIGHUP handlers), runs `body` with a terminal that
/// draws through `out` (stdout, or a writer that also keeps a copy), and
/// restores the terminal however `body` ends.
///
/// A terminating signal sets `stop`, which the loops check at least every
/// [`IDLE_POLL`]; they return, the terminal is restored here, and
/// [`signal_exit_status`] gives the status to exit with. A hangup is
/// treated like the others rather than ending the process at once: a
/// `kill -HUP` or a detaching multiplexer leaves the tty in place, and it
/// would be left in raw mode on the alternate screen; where the tty is
/// gone, the writes fail and are ignored. Should the loop not come back
/// within [`SIGNAL_GRACE`], a watcher thread restores what it can and
/// exits with the signal's status itself.
pub fn with_terminal<W: Write, T>(
    out: W,
    body: impl FnOnce(&mut StepperTerminal<W>, &AtomicBool) -> io::Result<T>,
) -> Result<T, TuiError> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    // Ctrl-C arrives as a key in raw mode; SIGINT is caught for the
    // moments before raw mode and for a `kill -INT`.
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGTERM, SIGINT, SIGHUP] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
        let number = usize::try_from(sig).unwrap_or(15);
        signal_hook::flag::register_usize(sig, Arc::clone(&SIGNALLED), number)?;
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    let watcher = signals.handle();
    RESTORED.store(false, Ordering::SeqCst);
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            std::thread::sleep(SIGNAL_GRACE);
            if !RESTORED.load(Ordering::SeqCst) {
                restore_quietly();
                std::process::exit(signal_exit_status().unwrap_or(143));
            }
        }
    });

    // `try_init` is `init` without the panic on a missing terminal; both
    // install the panic hook that restores the terminal. Its own terminal
    // (on stdout) is dropped: we draw through `out`.
    if let Err(e) = ratatui::try_init() {
        // Undo whatever part of the set-up succeeded.
        let _ = ratatui::crossterm::terminal::disable_raw_mode();
        watcher.close();
        return Err(TuiError::NoTerminal(e));
    }
    let mut terminal = match Terminal::new(ClampedBackend::new(CrosstermBackend::new(out))) {
        Ok(t) => t,
        Err(e) => {
            ratatui::restore();
            watcher.close();
            return Err(TuiError::NoTerminal(e));
        }
    };
    let result = body(&mut terminal, &stop);
    // The flag is set in the handler itself, so it is already true here if
    // a signal ended the loop, whatever the watcher thread has done yet.
    if stop.load(Ordering::SeqCst) {
        restore_quietly();
        // The terminal's drop would show the cursor again and report a
        // failure on stderr, which may be a closed tty: that is done.
        std::mem::forget(terminal);
    } else {
        ratatui::restore();
        drop(terminal);
    }
    RESTORED.store(true, Ordering::SeqCst);
    watcher.close();
    Ok(result?)
}

/// The terminal the stepper draws on: `W` is where the bytes go, and the
/// size ratatui sees is clamped (see [`viewport`]).
pub type StepperTerminal<W> = Terminal<ClampedBackend<CrosstermBackend<W>>>;

/// The stepper's loop: draw when something changed, read keys, tick runs.
pub fn event_loop<W: Write>(
    terminal: &mut StepperTerminal<W>,
    app: &mut App,
    stop: &AtomicBool,
    tap: &mut dyn Tap,
) -> io::Result<()> {
    let mut dirty = true;
    loop {
        if stop.load(Ordering::Relaxed) || app.should_quit() {
            return Ok(());
        }
        if dirty {
            terminal.draw(|f| app.draw(f))?;
            tap.frame(app)?;
            dirty = false;
        }
        let timeout = if app.is_running() {
            app.tick_interval()
        } else {
            IDLE_POLL
        };
        if event::poll(timeout)? {
            // Take every event already queued before drawing again, so a
            // held key does not fall behind.
            loop {
                match event::read()? {
                    Event::Key(k) => {
                        if keys::is_press(&k) {
                            tap.key(&k)?;
                        }
                        app.handle_key(k);
                        dirty = true;
                    }
                    Event::Resize(w, h) => {
                        tap.resize(w, h)?;
                        dirty = true;
                    }
                    _ => {}
                }
                if app.should_quit() || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
        } else if app.is_running() {
            app.tick();
            dirty = true;
        }
    }
}

/// Draws the app into a fresh `width` x `height` buffer, as a terminal of
/// that size would show it: at most [`viewport::MAX_WIDTH`] x
/// [`viewport::MAX_HEIGHT`], the part the stepper draws in.
pub fn render_to_buffer(app: &App, width: u16, height: u16) -> Buffer {
    let size = viewport::clamp(ratatui::layout::Size::new(width, height));
    let mut terminal = match Terminal::new(TestBackend::new(size.width, size.height)) {
        Ok(t) => t,
        Err(e) => match e {},
    };
    if let Err(e) = terminal.draw(|f| app.draw(f)) {
        match e {}
    }
    terminal.backend().buffer().clone()
}

/// The buffer's text, one line per row, trailing spaces kept.
pub fn buffer_text(buf: &Buffer) -> String {
    let w = buf.area.width as usize;
    let mut out = String::with_capacity(buf.content.len() + buf.area.height as usize);
    for row in buf.content.chunks(w.max(1)) {
        let mut skip = 0usize;
        for cell in row {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            out.push_str(cell.symbol());
            skip = unicode_width::UnicodeWidthStr::width(cell.symbol()).saturating_sub(1);
        }
        out.push('\n');
    }
    out
}

/// Builds the app for a scenario (for frontends that already loaded one).
pub fn app_for(scenario: Scenario, options: Options) -> Result<App, crate::engine::ConfigError> {
    App::new(Arc::new(scenario), options)
}
