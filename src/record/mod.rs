//! Recording and replaying stepping sessions as asciicast v2 files.
//!
//! `warpstep record SCENARIO -o FILE.cast` runs the stepper and writes the
//! session as it goes ([`recorder`]); with `--keys "10n p c q"` it plays
//! the keys with no terminal at a fixed size and a fixed
//! [`cast::KEY_DELAY`] between keys, so the same inputs give the same
//! file. `warpstep replay FILE.cast` rebuilds the stepper from the scenario
//! the cast carries and feeds it the recorded keys ([`player`]).
//!
//! Determinism is the contract: a session is its scenario plus its keys
//! (and, for runs a key stopped part way, the cycle each frame showed,
//! which the markers carry), so a replay reaches the same machine state
//! and the same numbers as the session that was recorded. The frames (`o`
//! events) are there for asciinema players; replay redraws at the
//! viewer's size.

pub mod cast;
pub mod key_bytes;
pub mod marker;
pub mod page;
pub mod player;
pub mod recorder;
pub mod svg;

use std::io::{self, IsTerminal};
use std::sync::Arc;

use crate::builtin;
use crate::engine::ConfigError;
use crate::scenario::{LoadError, Origin, Scenario};
use crate::session::Session;
use crate::text::clean;
use crate::tui::app::MessageKind;
use crate::tui::keys::{KeyScriptError, parse_keys};
use crate::tui::{self, App, Options, TuiError};
use cast::{Cast, CastError};

/// Why a recording or a replay could not be made. The arguments' faults
/// (exit 2) are whole messages; the others (exit 1) carry their cause.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The scenario loads but the machine it describes cannot be built.
    #[error("{}: {error}", clean(.origin))]
    Machine { origin: String, error: ConfigError },
    #[error(
        "error: recording a session needs a terminal; \
         `warpstep record SCENARIO --keys \"10n p q\" -o FILE.cast` records without one"
    )]
    NoTerminal,
    #[error("error: --size: {0}")]
    Size(String),
    #[error("error: --keys: {0}")]
    Keys(KeyScriptError),
    #[error(
        "error: --tour: {} has no tour (`tour:` in the file; docs/scenario-format.md, \"Tours\")",
        clean(.origin)
    )]
    NoTour { origin: String },
    #[error("error: --speed {0}: give a factor above 0, like 0.5 or 2")]
    Speed(f64),
    #[error("error: cannot read `{file}`: {error}")]
    Read { file: String, error: io::Error },
    #[error("{file}: line {line}: not UTF-8 text; a cast is JSON lines")]
    NotUtf8 { file: String, line: usize },
    #[error(transparent)]
    Cast(#[from] CastError),
    #[error(transparent)]
    Svg(#[from] svg::SvgError),
    #[error(
        "error: replay needs a terminal (it is a live stepper); `asciinema cat {file}` prints the frames"
    )]
    ReplayNoTerminal { file: String },
    #[error("cannot create `{path}`")]
    Create {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("writing `{path}`")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
    /// An interactive recording could not read the terminal's size.
    #[error(
        "recording needs a terminal; `warpstep record SCENARIO --keys \"...\"` records without one"
    )]
    TerminalSize(#[source] io::Error),
    #[error(transparent)]
    Tui(#[from] TuiError),
    /// Writing the cast of an interactive recording failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl RecordError {
    /// 2 when the arguments (scenario, keys, size, speed, cast) cannot be
    /// used, 1 when the terminal or a file failed.
    pub fn exit_code(&self) -> i32 {
        match self {
            RecordError::Create { .. }
            | RecordError::Write { .. }
            | RecordError::TerminalSize(_)
            | RecordError::Tui(_)
            | RecordError::Io(_) => 1,
            _ => 2,
        }
    }
}

/// Checks that a loaded scenario's program links, before anything is
/// written.
fn linked(sc: Arc<Scenario>) -> Result<Arc<Scenario>, RecordError> {
    if let Err(error) = Session::new(Arc::clone(&sc)) {
        return Err(RecordError::Machine {
            origin: sc.origin.to_string(),
            error,
        });
    }
    Ok(sc)
}

/// What `warpstep record` was asked for.
pub struct RecordRequest<'a> {
    /// A built-in's name or a scenario file.
    pub scenario: &'a str,
    /// The cast to write.
    pub output: &'a str,
    /// The keys to play with no terminal; none records a live session.
    pub keys: Option<&'a str>,
    /// Play the scenario's tour (`t`, then Space for each next step).
    pub tour: bool,
    /// `COLSxROWS` of a headless recording.
    pub size: &'a str,
    /// Also write the last screen as an SVG image here.
    pub svg: Option<&'a str>,
    /// ASCII glyphs only.
    pub ascii: bool,
    /// The machine options given on the command line.
    pub model: &'a crate::cli::ModelArgs,
}

/// `warpstep record`: exit 0, or an error when the scenario, the keys or
/// the size are not usable or there is no terminal to record.
pub fn record_command(req: &RecordRequest<'_>) -> Result<i32, RecordError> {
    let RecordRequest {
        scenario,
        output,
        keys,
        tour,
        size,
        svg,
        ascii,
        model,
    } = *req;
    let create = || {
        std::fs::File::create(output).map_err(|source| RecordError::Create {
            path: output.to_string(),
            source,
        })
    };
    let mut sc = builtin::resolve(scenario)?;
    crate::cli::apply_model(&mut sc, model)?;
    sc.check_stepper_budget()?;
    let sc = Arc::new(sc);
    if tour && sc.tour.is_empty() {
        return Err(RecordError::NoTour {
            origin: sc.origin.to_string(),
        });
    }
    // The tour is its keys: `t` starts it, Space plays each next step.
    let tour_script = tour.then(|| {
        std::iter::once("t")
            .chain(std::iter::repeat_n("Space", sc.tour.len() - 1))
            .collect::<Vec<_>>()
            .join(" ")
    });
    let Some(script) = keys.or(tour_script.as_deref()) else {
        if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
            return Err(RecordError::NoTerminal);
        }
        let sc = linked(sc)?;
        recorder::record_live(sc, ascii, create()?)?;
        eprintln!("recorded to {output}");
        return Ok(0);
    };
    let (width, height) = parse_size(size).map_err(RecordError::Size)?;
    let (min_w, min_h) = (tui::app::MIN_WIDTH, tui::app::MIN_HEIGHT);
    if width < min_w || height < min_h {
        return Err(RecordError::Size(format!(
            "`{size}` is smaller than the stepper's smallest layout, {min_w}x{min_h}: \
             the cast would only say to enlarge the terminal"
        )));
    }
    let keys = parse_keys(script).map_err(RecordError::Keys)?;
    let sc = linked(sc)?;
    let how = recorder::Headless {
        width,
        height,
        ascii,
        color: tui::theme::Theme::color_from_env(),
        timestamp: source_date_epoch(),
    };
    let (done, _) =
        recorder::record_keys(sc, &keys, &how, create()?).map_err(|source| RecordError::Write {
            path: output.to_string(),
            source,
        })?;
    if let Some(p) = svg {
        tui::export::write_svg(&done.app, width, height, std::path::Path::new(p)).map_err(
            |source| RecordError::Write {
                path: p.to_string(),
                source,
            },
        )?;
    }
    if done.keys < keys.len() {
        eprintln!(
            "warning: --keys: the session quit after key {} of {}; the rest were not played",
            done.keys,
            keys.len()
        );
    }
    println!(
        "recorded {} keys to {output} ({width}x{height}, {:.1} s, ends at cycle {})",
        done.keys,
        done.keys as f64 * cast::KEY_DELAY,
        done.app.session().cycle()
    );
    Ok(0)
}

/// `COLSxROWS`.
pub fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let bad = || format!("`{s}` is not COLSxROWS, like 100x30");
    let (c, r) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let c: u16 = c.trim().parse().map_err(|_| bad())?;
    let r: u16 = r.trim().parse().map_err(|_| bad())?;
    if c == 0 || r == 0 {
        return Err(bad());
    }
    Ok((c, r))
}

/// The header timestamp of a headless recording: `SOURCE_DATE_EPOCH`
/// (the reproducible-builds convention) when set, else 0, so the same
/// inputs give the same file.
fn source_date_epoch() -> u64 {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Reads a cast and builds the stepper from the scenario it carries. A
/// scenario that no longer loads is an error on the header's line.
pub fn open_cast(file: &str, text: &str, ascii: bool) -> Result<(Cast, App), CastError> {
    open_cast_with(file, text, ascii, None)
}

/// [`open_cast`] with `given`, the scenario `replay --scenario` names
/// ([`given_meta`]), in place of the header's.
pub fn open_cast_with(
    file: &str,
    text: &str,
    ascii: bool,
    given: Option<cast::Meta>,
) -> Result<(Cast, App), CastError> {
    let cast = cast::parse_with(file, text, given)?;
    let recorded = &cast.meta.version;
    let ours = env!("CARGO_PKG_VERSION");
    let no_longer = |e: String| CastError {
        file: file.to_string(),
        line: 1,
        message: format!(
            "the scenario in the header no longer loads (recorded with warpstep {recorded}, \
             this is {ours}):\n{e}"
        ),
    };
    // The recorded origin as it was, so reports (`file`) match the session's.
    let origin = match cast.meta.origin.strip_prefix("builtin:") {
        Some(name) => Origin::Builtin(name.to_string()),
        None => Origin::File(cast.meta.origin.clone()),
    };
    let builtin = matches!(origin, Origin::Builtin(_));
    let mut sc =
        Scenario::from_text(&cast.meta.scenario, origin).map_err(|e| no_longer(e.to_string()))?;
    if builtin {
        // As the recording showed it: a built-in's CUDA source beside it.
        crate::builtin::attach_sources(&mut sc);
    }
    // What the recording's command line changed.
    let convergence = cast.meta.convergence.as_deref().map(|c| match c {
        "stack" => crate::scenario::Convergence::Stack,
        _ => crate::scenario::Convergence::Its,
    });
    let policy = cast.meta.policy.as_deref().map(|p| match p {
        "gto" => crate::scenario::Policy::Gto,
        _ => crate::scenario::Policy::Lrr,
    });
    if convergence.is_some() || policy.is_some() {
        sc.set_model(convergence, policy)
            .map_err(|e| no_longer(e.to_string()))?;
    }
    sc.check_stepper_budget().map_err(|e| CastError {
        file: file.to_string(),
        line: 1,
        message: format!("the scenario in the header: {e}"),
    })?;
    let options = Options {
        ascii: ascii || cast.meta.ascii,
        color: tui::theme::Theme::color_from_env(),
        animate: true,
    };
    let app = App::new(Arc::new(sc), options).map_err(|e| no_longer(e.to_string()))?;
    Ok((cast, app))
}

/// What a cast's `warpstep` header key would say of `scenario`, for a
/// replay that names it (`replay --scenario`): this version, the
/// scenario's text (with the listing nvcc wrote, if it compiled), and
/// real-time playback, as a person recorded it.
pub fn given_meta(scenario: &Scenario) -> cast::Meta {
    cast::Meta {
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: recorder::self_contained(scenario),
        origin: scenario.origin.to_string(),
        ascii: false,
        animate: true,
        key_delay: None,
        convergence: None,
        policy: None,
    }
}

/// Replays a cast with no terminal and no clock: the stepper as an
/// uninterrupted replay leaves it.
pub fn replay_headless(file: &str, text: &str) -> Result<App, CastError> {
    replay_headless_with(file, text, None)
}

/// [`replay_headless`] of a cast with `given` in place of its scenario
/// ([`open_cast_with`]).
pub fn replay_headless_with(
    file: &str,
    text: &str,
    given: Option<cast::Meta>,
) -> Result<App, CastError> {
    let (cast, mut app) = open_cast_with(file, text, false, given)?;
    let mut player = player::Player::new(cast.events, cast.meta.animate, 1.0, false);
    player.play_all(&mut app);
    Ok(app)
}

/// A cast file's text, read with the file size cap (special files and
/// directories refused).
fn read_cast_file(file: &str) -> Result<String, RecordError> {
    use crate::scenario::file::{MAX_FILE_BYTES, ReadError, read_bounded};
    let bytes = read_bounded(std::path::Path::new(file), MAX_FILE_BYTES).map_err(|e| {
        RecordError::Read {
            file: file.to_string(),
            error: match e {
                ReadError::Io(error) => error,
                refused => io::Error::other(refused.to_string()),
            },
        }
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        RecordError::NotUtf8 {
            file: file.to_string(),
            line,
        }
    })
}

/// `warpstep page`: writes `output`, one HTML file that plays the cast
/// ([`page::render`]); the report below the player is the scenario's
/// whole run, as `warpstep run` gives it.
pub fn page_command(
    file: &str,
    output: &str,
    given: Option<cast::Meta>,
) -> Result<i32, RecordError> {
    let text = read_cast_file(file)?;
    let (cast, app) = open_cast_with(file, &text, false, given)?;
    let sc = app.scenario();
    let mut m = sc.new_machine().map_err(|error| RecordError::Machine {
        origin: sc.origin.to_string(),
        error,
    })?;
    m.set_record_issues(false);
    // A run that stops (a fault, the cycle limit) still has its report.
    let _ = m.run();
    let report = crate::report::Report::new(sc, &m);
    let name = std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned());
    let html = page::render(&text, &cast, sc, &report, &name);
    std::fs::write(output, &html).map_err(|source| RecordError::Create {
        path: output.to_string(),
        source,
    })?;
    eprintln!(
        "wrote {output}: {} KB, {} chapters",
        html.len().div_ceil(1024),
        page::chapters(&cast).len()
    );
    Ok(0)
}

/// `warpstep svg`: exit 0, or an error for a cast that cannot be read or
/// made an image of.
pub fn svg_command(file: &str, output: &str, chapter: Option<usize>) -> Result<i32, RecordError> {
    let text = read_cast_file(file)?;
    let cast = cast::parse_frames(file, &text)?;
    for w in &cast.warnings {
        eprintln!("warning: {w}");
    }
    let film = svg::film(&cast, chapter)?;
    let name = std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned());
    let title = match (&cast.title, chapter) {
        (Some(t), Some(n)) => format!("{} (chapter {n})", clean(t)),
        (Some(t), None) => clean(t),
        (None, Some(n)) => format!("{name} (chapter {n})"),
        (None, None) => name,
    };
    let image = svg::render(&film, &title)?;
    std::fs::write(output, &image).map_err(|source| RecordError::Create {
        path: output.to_string(),
        source,
    })?;
    eprintln!(
        "wrote {output}: {} KB, {} frames, {:.1} s",
        image.len().div_ceil(1024),
        film.frames.len(),
        film.duration
    );
    Ok(0)
}

/// `warpstep replay`: exit 0, or an error for a cast that cannot be
/// replayed.
pub fn replay_command(
    file: &str,
    speed: f64,
    ascii: bool,
    paused: bool,
    given: Option<cast::Meta>,
) -> Result<i32, RecordError> {
    if !(speed.is_finite() && speed > 0.0) {
        return Err(RecordError::Speed(speed));
    }
    let text = read_cast_file(file)?;
    let (cast, mut app) = open_cast_with(file, &text, ascii, given)?;
    let mut warnings = cast.warnings.clone();
    if cast.meta.version != env!("CARGO_PKG_VERSION") {
        warnings.push(format!(
            "{file}: recorded with warpstep {}, this is {}: if the model changed, the numbers may too",
            cast.meta.version,
            env!("CARGO_PKG_VERSION")
        ));
    }
    for w in &warnings {
        eprintln!("warning: {}", crate::text::escape_lines(w));
    }
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(RecordError::ReplayNoTerminal {
            file: file.to_string(),
        });
    }
    if let Some(w) = warnings.first() {
        app.say(MessageKind::Warn, w.clone());
    }
    let ascii = ascii || cast.meta.ascii;
    let mut player = player::Player::new(cast.events, cast.meta.animate, speed, paused).sliced();
    tui::with_terminal(std::io::stdout(), |terminal, stop| {
        player::run(terminal, &mut app, &mut player, stop, ascii)
    })?;
    // After a signal the terminal may be gone (a hangup): say nothing more.
    if tui::signal_exit_status().is_some() {
        return Ok(0);
    }
    for w in &warnings {
        eprintln!("warning: {}", crate::text::escape_lines(w));
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_faults_exit_2_with_their_whole_message_and_failures_exit_1() {
        // The messages `warpstep record` and `replay` printed themselves
        // before these errors existed, word for word.
        let size = RecordError::Size(parse_size("1x").expect_err("not a size"));
        assert_eq!(
            size.to_string(),
            "error: --size: `1x` is not COLSxROWS, like 100x30"
        );
        assert_eq!(size.exit_code(), 2);
        let speed = RecordError::Speed(0.0);
        assert_eq!(
            speed.to_string(),
            "error: --speed 0: give a factor above 0, like 0.5 or 2"
        );
        assert_eq!(speed.exit_code(), 2);
        let keys = RecordError::Keys(parse_keys("n <Rigth>").expect_err("not a key"));
        assert!(
            keys.to_string()
                .starts_with("error: --keys: key script, at character 3: ")
        );
        assert_eq!(keys.exit_code(), 2);
        // A file that cannot be created is the environment's failure: its
        // cause goes with it, for `main` to print after the message.
        let create = RecordError::Create {
            path: "o.cast".into(),
            source: io::Error::from(io::ErrorKind::PermissionDenied),
        };
        assert_eq!(create.to_string(), "cannot create `o.cast`");
        assert!(std::error::Error::source(&create).is_some());
        assert_eq!(create.exit_code(), 1);
    }
}
