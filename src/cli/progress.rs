//! Work the command line does without a stepper to drive it: ending it on
//! a signal, and showing how far a long `run` has got.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::engine::Machine;

/// While it lives, SIGINT and SIGTERM end the process at once with 130
/// and 143, as a shell reports a signal, after `message` on standard
/// error (and after clearing a progress line, if one is shown). A watcher
/// thread waits on the signals, so the process ends as soon as one
/// arrives whatever the main thread is doing: a run, sorting a report,
/// one long key of a headless recording.
pub struct ExitOnSignal {
    handle: signal_hook::iterator::Handle,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Set while a progress line is on standard error, so the watcher clears it.
static PROGRESS_SHOWN: AtomicBool = AtomicBool::new(false);

impl ExitOnSignal {
    pub fn install(message: &'static str) -> io::Result<ExitOnSignal> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
        let handle = signals.handle();
        let thread = std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let name = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
                let clear = if PROGRESS_SHOWN.load(Ordering::Relaxed) {
                    "\r\u{1b}[2K"
                } else {
                    ""
                };
                eprintln!("{clear}warpstep: {message} by {name}");
                std::process::exit(128 + sig);
            }
        });
        Ok(ExitOnSignal {
            handle,
            thread: Some(thread),
        })
    }
}

impl Drop for ExitOnSignal {
    fn drop(&mut self) {
        self.handle.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A run shows no progress before this.
const QUIET: Duration = Duration::from_secs(1);
/// How often the progress line is redrawn.
const REDRAW: Duration = Duration::from_millis(100);
/// Cycles the first slice runs; later slices are sized to take about
/// [`SLICE`].
const FIRST_SLICE: u64 = 1_024;
const SLICE: Duration = Duration::from_millis(20);

/// Runs `m` to its end as [`Machine::run`] does. When standard error is
/// a terminal and the run takes longer than a second, a line there shows
/// the cycles done and the cycles per second, redrawn ten times a second
/// and cleared at the end; with standard error anything else, nothing is
/// written. The run is the same either way: slices of `run_until` end
/// where one call would have passed.
/// With `show` false there is never a line (a run beside others, whose
/// progress [`Finished`] shows).
pub fn run_with_progress(m: &mut Machine, show: bool) {
    let mut line = Progress::new(show && io::stderr().is_terminal());
    let start = Instant::now();
    let mut slice = FIRST_SLICE;
    while !m.halted() {
        let t = Instant::now();
        let target = m.cycle().saturating_add(slice);
        m.run_until(target);
        if m.cycle() < target && !m.halted() {
            // `run_until` came back early with nothing halted: nothing more
            // will happen (it stops only at the target or a halt).
            break;
        }
        // Aim the next slice at SLICE of wall time, at most doubling.
        let took = t.elapsed().as_secs_f64().max(1e-6);
        let ideal = (slice as f64 * SLICE.as_secs_f64() / took) as u64;
        slice = ideal.clamp(64, slice.saturating_mul(2));
        let cycle = m.cycle();
        line.update(start, |elapsed| cycle_line(cycle, elapsed));
    }
    line.clear();
}

/// The progress line of a run at `cycle` after `elapsed` seconds.
fn cycle_line(cycle: u64, elapsed: f64) -> String {
    format!(
        "running: cycle {} ({} cycles/s, {:.1} s)",
        crate::text::group_digits(cycle),
        crate::text::group_digits((cycle as f64 / elapsed) as u64),
        elapsed
    )
}

/// [`run_with_progress`] with the SMs simulated on up to `jobs` threads
/// ([`Machine::run_split`]); the line shows the cycle every SM reached.
/// A run that cannot be split runs serially, as `run_with_progress`.
pub fn run_jobs_with_progress(m: &mut Machine, jobs: usize) {
    let mut line = Progress::new(io::stderr().is_terminal());
    let start = Instant::now();
    let split = m.run_split(jobs, &mut |cycle| {
        line.update(start, |elapsed| cycle_line(cycle, elapsed))
    });
    line.clear();
    if !split {
        run_with_progress(m, true);
    }
}

/// Runs under way beside each other (`--jobs`): after a second, with
/// standard error a terminal, a line there says how many have finished.
pub struct Finished {
    line: Progress,
    start: Instant,
    what: &'static str,
}

impl Finished {
    /// `what` names the runs, in the plural ("variants").
    pub fn new(what: &'static str) -> Finished {
        Finished {
            line: Progress::new(io::stderr().is_terminal()),
            start: Instant::now(),
            what,
        }
    }

    pub fn update(&mut self, done: usize, total: usize) {
        let what = self.what;
        self.line.update(self.start, |elapsed| {
            format!("running: {done} of {total} {what} finished ({elapsed:.1} s)")
        });
    }

    /// Takes the line away (before other output, and at the end).
    pub fn clear(&mut self) {
        self.line.clear();
        // Drawn again at once when asked, not a redraw interval later.
        self.line.last = None;
    }
}

struct Progress {
    enabled: bool,
    shown: bool,
    last: Option<Instant>,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        Progress {
            enabled,
            shown: false,
            last: None,
        }
    }

    /// Draws `text(seconds since start)`, at most every [`REDRAW`] and not
    /// in the first [`QUIET`].
    fn update(&mut self, start: Instant, text: impl FnOnce(f64) -> String) {
        let elapsed = start.elapsed();
        if !self.enabled || elapsed < QUIET || self.last.is_some_and(|l| l.elapsed() < REDRAW) {
            return;
        }
        self.last = Some(Instant::now());
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\u{1b}[2K{}", text(elapsed.as_secs_f64().max(1e-9)));
        let _ = err.flush();
        self.shown = true;
        PROGRESS_SHOWN.store(true, Ordering::Relaxed);
    }

    fn clear(&mut self) {
        if self.shown {
            let mut err = io::stderr().lock();
            let _ = write!(err, "\r\u{1b}[2K");
            let _ = err.flush();
            self.shown = false;
            PROGRESS_SHOWN.store(false, Ordering::Relaxed);
        }
    }
}
