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
pub mod player;
pub mod recorder;

use std::io::IsTerminal;
use std::sync::Arc;

use crate::builtin;
use crate::scenario::{Origin, Scenario};
use crate::tui::app::MessageKind;
use crate::tui::keys::parse_keys;
use crate::tui::{self, App, Options};
use cast::{Cast, CastError};

/// `warpstep record`: exit 0, or 2 when the scenario, the keys or the size
/// are not usable or there is no terminal to record.
pub fn record_command(
    scenario: &str,
    output: &str,
    keys: Option<&str>,
    size: &str,
    ascii: bool,
) -> color_eyre::Result<i32> {
    use color_eyre::eyre::WrapErr;
    let sc = match builtin::resolve(scenario) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("{e}");
            return Ok(2);
        }
    };
    let Some(script) = keys else {
        if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
            eprintln!(
                "error: recording a session needs a terminal; \
                 `warpstep record SCENARIO --keys \"10n p q\" -o FILE.cast` records without one"
            );
            return Ok(2);
        }
        if let Err(e) = App::new(Arc::clone(&sc), Options::default()) {
            eprintln!("{}: {e}", tui::theme::clean(&sc.origin.to_string()));
            return Ok(2);
        }
        let file =
            std::fs::File::create(output).wrap_err_with(|| format!("cannot create `{output}`"))?;
        recorder::record_live(sc, ascii, file)?;
        eprintln!("recorded to {output}");
        return Ok(0);
    };
    let (width, height) = match parse_size(size) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: --size: {e}");
            return Ok(2);
        }
    };
    let keys = match parse_keys(script) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("error: --keys: {e}");
            return Ok(2);
        }
    };
    if let Err(e) = App::new(Arc::clone(&sc), Options::default()) {
        eprintln!("{}: {e}", tui::theme::clean(&sc.origin.to_string()));
        return Ok(2);
    }
    let how = recorder::Headless {
        width,
        height,
        ascii,
        color: tui::theme::Theme::color_from_env(),
        timestamp: source_date_epoch(),
    };
    let file =
        std::fs::File::create(output).wrap_err_with(|| format!("cannot create `{output}`"))?;
    let (done, _) = recorder::record_keys(sc, &keys, &how, file)
        .wrap_err_with(|| format!("writing `{output}`"))?;
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
        done.app.cycle()
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
    let cast = cast::parse(file, text)?;
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
    let sc =
        Scenario::from_text(&cast.meta.scenario, origin).map_err(|e| no_longer(e.to_string()))?;
    let options = Options {
        ascii: ascii || cast.meta.ascii,
        color: tui::theme::Theme::color_from_env(),
        animate: true,
    };
    let app = App::new(Arc::new(sc), options).map_err(|e| no_longer(e.to_string()))?;
    Ok((cast, app))
}

/// Replays a cast with no terminal and no clock: the stepper as an
/// uninterrupted replay leaves it.
pub fn replay_headless(file: &str, text: &str) -> Result<App, CastError> {
    let (cast, mut app) = open_cast(file, text, false)?;
    let mut player = player::Player::new(cast.events, cast.meta.animate, 1.0, false);
    player.play_all(&mut app);
    Ok(app)
}

/// `warpstep replay`: exit 0, or 2 for a cast that cannot be replayed.
pub fn replay_command(
    file: &str,
    speed: f64,
    ascii: bool,
    paused: bool,
) -> color_eyre::Result<i32> {
    if !(speed.is_finite() && speed > 0.0) {
        eprintln!("error: --speed {speed}: give a factor above 0, like 0.5 or 2");
        return Ok(2);
    }
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot read `{file}`: {e}");
            return Ok(2);
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            eprintln!("{file}: line {line}: not UTF-8 text; a cast is JSON lines");
            return Ok(2);
        }
    };
    let (cast, mut app) = match open_cast(file, &text, ascii) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return Ok(2);
        }
    };
    let mut warnings = cast.warnings.clone();
    if cast.meta.version != env!("CARGO_PKG_VERSION") {
        warnings.push(format!(
            "{file}: recorded with warpstep {}, this is {}: if the model changed, the numbers may too",
            cast.meta.version,
            env!("CARGO_PKG_VERSION")
        ));
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "error: replay needs a terminal (it is a live stepper); `asciinema cat {file}` prints the frames"
        );
        return Ok(2);
    }
    if let Some(w) = warnings.first() {
        app.say(MessageKind::Warn, w.clone());
    }
    let ascii = ascii || cast.meta.ascii;
    let mut player = player::Player::new(cast.events, cast.meta.animate, speed, paused);
    tui::with_terminal(std::io::stdout(), |terminal, stop| {
        player::run(terminal, &mut app, &mut player, stop, ascii)
    })?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    Ok(0)
}
