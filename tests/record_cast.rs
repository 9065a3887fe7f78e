//! Recording with `--keys` and replaying: the asciicast v2 file checked
//! line by line, its markers against the engine stepped by hand, the
//! frames played by the real asciinema client into a terminal emulator,
//! replays that reach the original session's numbers, cut and malformed
//! casts.
//!
//! The asciinema test needs `asciinema` and `pyte` (`pip install asciinema
//! pyte`); without them it is skipped with a message, or fails when
//! `WARPSTEP_REQUIRE_ALL_TESTS=1`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use ratatui::crossterm::event::KeyEvent;
use serde_json::Value;
use warpstep::record::cast::{self, KEY_DELAY};
use warpstep::record::recorder::{self, Headless, Recorder, Screen};
use warpstep::record::replay_headless;
use warpstep::report::Report;
use warpstep::scenario::{Origin, Scenario};
use warpstep::tui::keys::parse_keys;
use warpstep::tui::{App, Options, buffer_text, render_to_buffer};

const BIN: &str = env!("CARGO_BIN_EXE_warpstep");

/// A temp directory of its own, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("warpstep-rec-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temp dir");
        TempDir(p)
    }

    fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn builtin(name: &str) -> Scenario {
    warpstep::builtin::resolve(name).expect("built-in loads")
}

/// `warpstep record NAME --keys KEYS --size SIZE -o FILE [extra]`.
fn record_cli(name: &str, keys: &str, size: &str, out: &Path, extra: &[&str]) -> String {
    let o = Command::new(BIN)
        .args(["record", name, "--keys", keys, "--size", size, "-o"])
        .arg(out)
        .args(extra)
        .env_remove("SOURCE_DATE_EPOCH")
        .env_remove("NO_COLOR")
        .output()
        .expect("warpstep runs");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read_to_string(out).expect("the cast was written")
}

/// A headless recording in memory, and the session it recorded.
fn record(sc: Scenario, keys: &str, w: u16, h: u16, ascii: bool) -> (String, App) {
    let how = Headless {
        width: w,
        height: h,
        ascii,
        color: true,
        timestamp: 0,
    };
    let keys = parse_keys(keys).expect("key script");
    let (done, bytes) =
        recorder::record_keys(Arc::new(sc), &keys, &how, Vec::new()).expect("records");
    (String::from_utf8(bytes).expect("UTF-8"), done.app)
}

/// The label a marker should have after `n` cycles, from the engine
/// stepped one cycle at a time (not from the recorder's code).
fn label_by_hand(sc: &Scenario, n: u64) -> String {
    let mut m = sc.new_machine().expect("builds");
    for _ in 0..n {
        m.step();
    }
    if n == 0 {
        return "cycle 0 · start".into();
    }
    let issued: Vec<String> = m
        .issues()
        .iter()
        .filter(|r| !r.dispatch_stall)
        .map(|r| format!("w{} {}", r.warp, m.code()[r.pc as usize].instr.mnemonic))
        .collect();
    if issued.is_empty() {
        return format!("cycle {n} · no issue");
    }
    format!("cycle {n} · {}", issued.join(", "))
}

fn report(app: &App) -> Value {
    Report::new(app.scenario(), app.machine()).to_value()
}

/// Everything that decides the screens: numbers, cycle and selection.
fn assert_same_session(a: &App, b: &App) {
    assert_eq!(a.cycle(), b.cycle());
    assert_eq!(report(a), report(b));
    assert_eq!(a.views(), b.views());
    assert_eq!(a.selected_warp(), b.selected_warp());
    assert_eq!(a.selected_lane(), b.selected_lane());
    assert_eq!(a.cursor(), b.cursor());
    assert_eq!(a.focus(), b.focus());
    assert_eq!(a.breakpoints(), b.breakpoints());
    assert_eq!(a.pending_count(), b.pending_count());
}

#[test]
fn a_keys_recording_is_asciicast_v2_line_by_line() {
    let dir = TempDir::new("format");
    let out = dir.path("s.cast");
    let script = "3n <Right> p 2n e R <C-c>";
    let text = record_cli("divergent-loop", script, "100x30", &out, &[]);
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();

    // The header.
    let h: Value = serde_json::from_str(lines[0]).expect("header is JSON");
    assert_eq!(h["version"], 2);
    assert_eq!(h["width"], 100);
    assert_eq!(h["height"], 30);
    assert_eq!(h["timestamp"], 0, "SOURCE_DATE_EPOCH unset: 0");
    assert_eq!(
        h["title"],
        "warpstep: divergent loop, trip counts 1..8 per lane"
    );
    assert_eq!(h["env"]["TERM"], "xterm-256color");
    let ws = &h["warpstep"];
    assert_eq!(ws["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        ws["scenario"].as_str(),
        warpstep::builtin::text("divergent-loop")
    );
    assert_eq!(ws["origin"], "builtin:divergent-loop");
    assert_eq!(ws["ascii"], false);
    assert_eq!(ws["animate"], false);
    assert_eq!(ws["key_delay"], KEY_DELAY);

    // The events: [float time, code, string], times never going back.
    let mut last = 0.0;
    let mut inputs = Vec::new();
    let mut markers = Vec::new();
    let mut outputs = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(1) {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        let a = v.as_array().expect("an array");
        assert_eq!(a.len(), 3, "line {}", i + 1);
        assert!(a[0].is_f64(), "time is a float: {l}");
        let t = a[0].as_f64().unwrap();
        assert!(t >= last, "line {}: time goes back", i + 1);
        last = t;
        let code = a[1].as_str().expect("code is a string");
        let data = a[2].as_str().expect("data is a string").to_string();
        match code {
            "o" => outputs.push((t, data)),
            "i" => inputs.push((t, data)),
            "m" => markers.push((t, data)),
            other => panic!("line {}: unexpected code {other}", i + 1),
        }
    }
    // One `i` per key, as a terminal sends it, one KEY_DELAY apart.
    let keys = parse_keys(script).unwrap();
    assert_eq!(inputs.len(), keys.len());
    let want = ["3", "n", "\u{1b}[C", "p", "2", "n", "e", "R", "\u{3}"];
    for (k, ((t, data), w)) in inputs.iter().zip(want).enumerate() {
        assert_eq!(data, w);
        assert_eq!(*t, (k + 1) as f64 * KEY_DELAY);
    }
    assert!(lines[1].starts_with("[0.0,\"o\",\"\\u001b[H\\u001b[2J"));

    // A marker per issue slot shown: 3n -> 3, Right -> 4, p -> 3, 2n -> 5,
    // e -> 540 (the run's end, as `warpstep run divergent-loop`), R -> 0.
    // The count digits and Ctrl-C show no new cycle.
    let sc = builtin("divergent-loop");
    let cycles = [3, 4, 3, 5, 540, 0];
    assert_eq!(markers.len(), cycles.len(), "{markers:?}");
    for ((t, label), c) in markers.iter().zip(cycles) {
        assert_eq!(*label, label_by_hand(&sc, c));
        // At the time of the key that got there.
        assert!(inputs.iter().any(|(ti, _)| ti == t), "{t}");
    }
    assert_eq!(markers[0].1, "cycle 3 · w2 S2R");

    // Frames redraw what changed: one step (Right) sends far less than the
    // first frame, which draws the whole screen.
    let first = outputs[0].1.len();
    let step = &outputs
        .iter()
        .find(|(t, _)| *t == 3.0 * KEY_DELAY)
        .unwrap()
        .1;
    assert!(
        step.len() * 8 < first,
        "one step: {} bytes, first frame {first}",
        step.len()
    );

    // The same inputs, the same file.
    let again = dir.path("again.cast");
    assert_eq!(
        record_cli("divergent-loop", script, "100x30", &again, &[]),
        text
    );
}

#[test]
fn several_warps_in_a_cycle_share_a_marker() {
    // Two schedulers, two warps: in the first cycle each scheduler issues
    // its warp's S2R.
    let text = "name: two schedulers\nmachine: {schedulers: 2}\nlaunch: {threads: 64}\n\
                program: |\n  S2R R0, SR_TID.X\n  IADD3 R1, R0, 1, RZ\n  EXIT\n";
    let sc = Scenario::from_text(text, Origin::Builtin("test".into())).expect("loads");
    let (cast_text, _) = record(sc.clone(), "n n", 80, 24, false);
    let c = cast::parse("t.cast", &cast_text).expect("parses");
    let labels: Vec<String> = warpstep::record::page::chapters(&c)
        .into_iter()
        .map(|ch| ch.label)
        .collect();
    assert_eq!(labels[0], "cycle 1 · w0 S2R, w1 S2R");
    assert_eq!(labels, vec![label_by_hand(&sc, 1), label_by_hand(&sc, 2)]);
}

#[test]
fn a_replay_reaches_the_recorded_session() {
    for (name, script) in [
        (
            "divergent-loop",
            "5n c d 3p 2d <Tab> 9j b c w s p r . . 4n q",
        ),
        ("nested-branches", "d r 2d <End> p p g 17 <Enter> R 30n ? i"),
        ("sched-gto", "e 5p <Tab> <Tab> j j 3s"),
    ] {
        let (text, recorded) = record(builtin(name), script, 100, 30, false);
        let replayed = replay_headless("t.cast", &text).expect("replays");
        assert_same_session(&recorded, &replayed);
        // And the same as pressing the keys in the stepper directly.
        let mut direct = App::new(Arc::new(builtin(name)), Options::default()).unwrap();
        for k in parse_keys(script).unwrap() {
            direct.handle_key(k);
        }
        assert_same_session(&direct, &replayed);
    }
}

/// An interactive session, simulated: animated runs that keys stop part
/// way, with the frames a terminal would get between ticks.
fn animated_session() -> (String, App) {
    let sc = Arc::new(builtin("divergent-loop"));
    let options = Options {
        ascii: false,
        color: true,
        animate: true,
    };
    let mut app = App::new(Arc::clone(&sc), options).unwrap();
    let head = recorder::header(&sc, 100, 30, 0, "xterm".into(), options);
    let mut rec = Recorder::new(Vec::new(), &head, &app).unwrap();
    let mut screen = Screen::new(100, 30).unwrap();
    let mut t = 0.0;
    let mut frame = |rec: &mut Recorder<Vec<u8>>, app: &App, t: f64| {
        let bytes = screen.draw(app).unwrap();
        rec.frame(t, &bytes, app).unwrap();
    };
    frame(&mut rec, &app, t);
    let key = |rec: &mut Recorder<Vec<u8>>, app: &mut App, k: KeyEvent, t: f64| {
        rec.key(t, &k).unwrap();
        app.handle_key(k);
    };
    let k = |s: &str| parse_keys(s).unwrap()[0];
    // Seven `-` from the top speed: 60 cycles/s, one cycle a tick.
    for _ in 0..7 {
        key(&mut rec, &mut app, k("-"), 0.2);
    }
    assert_eq!(app.speed_label(), "60 cycles/s");
    // `e` runs to the end at 60 cycles/s; a key stops it after 7 ticks.
    key(&mut rec, &mut app, k("e"), 0.3);
    frame(&mut rec, &app, 0.3);
    for _ in 0..7 {
        t += 1.0 / 60.0;
        app.tick();
        frame(&mut rec, &app, 0.3 + t);
    }
    key(&mut rec, &mut app, k("x"), 1.0);
    frame(&mut rec, &app, 1.0);
    key(&mut rec, &mut app, k("n"), 1.5);
    frame(&mut rec, &app, 1.5);
    // A faster run to a divergence, stopped by `p` after 3 ticks.
    for s in ["+", "+", "d"] {
        key(&mut rec, &mut app, k(s), 2.0);
    }
    frame(&mut rec, &app, 2.0);
    for i in 0..3 {
        app.tick();
        frame(&mut rec, &app, 2.1 + f64::from(i) / 10.0);
    }
    // A key during a run only stops it; the next `p` steps back.
    key(&mut rec, &mut app, k("p"), 3.0);
    frame(&mut rec, &app, 3.0);
    key(&mut rec, &mut app, k("p"), 3.5);
    frame(&mut rec, &app, 3.5);
    let text = String::from_utf8(rec.into_inner()).unwrap();
    (text, app)
}

#[test]
fn a_replay_stops_animated_runs_where_the_recording_did() {
    let (text, recorded) = animated_session();
    // 7 ticks of one cycle, then n; 3 ticks of 16 cycles (1k cycles/s),
    // stopped, then p: 8 + 48 - 1.
    assert_eq!(recorded.cycle(), 55);
    assert!(!recorded.is_running());
    let replayed = replay_headless("t.cast", &text).expect("replays");
    assert_same_session(&recorded, &replayed);

    // Without the markers, the keys alone would let the runs go on.
    let no_markers: String = text
        .lines()
        .filter(|l| !l.contains(",\"m\","))
        .map(|l| format!("{l}\n"))
        .collect();
    let keys_only = replay_headless("t.cast", &no_markers).expect("replays");
    assert_ne!(keys_only.cycle(), recorded.cycle());
}

#[test]
fn a_cut_cast_replays_up_to_its_last_whole_event() {
    let (text, _) = record(builtin("divergent-loop"), "4n p 3n", 100, 30, false);
    // Cut in the middle of the last key's `i` line (`n`): the 3 is a
    // count typed, the step not taken.
    let last_i = text.rfind("[2.5,\"i\"").expect("the last key");
    let cut = &text[..last_i + 6];
    let c = cast::parse("cut.cast", cut).expect("parses");
    assert_eq!(c.warnings.len(), 1);
    let n_lines = cut.lines().count();
    assert!(
        c.warnings[0].contains(&format!("line {n_lines} is cut short")),
        "{:?}",
        c.warnings
    );
    let replayed = replay_headless("cut.cast", cut).expect("replays");
    let mut want = App::new(Arc::new(builtin("divergent-loop")), Options::default()).unwrap();
    for k in parse_keys("4n p 3").unwrap() {
        want.handle_key(k);
    }
    assert_same_session(&want, &replayed);
    assert_eq!(replayed.cycle(), 3);

    // Cut inside a frame after the last key: every key is there.
    let cut = &text[..text.len() - 10];
    let replayed = replay_headless("cut.cast", cut).expect("replays");
    assert_eq!(replayed.cycle(), 6);
}

/// `warpstep replay FILE` on a broken cast: exit 2 and the message.
fn replay_error(dir: &TempDir, name: &str, text: &str) -> String {
    let path = dir.path(name);
    std::fs::write(&path, text).unwrap();
    let o = Command::new(BIN)
        .arg("replay")
        .arg(&path)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    assert!(o.stdout.is_empty());
    err
}

#[test]
fn malformed_casts_say_which_line_and_what_is_wrong() {
    let dir = TempDir::new("bad");
    let (good, _) = record(builtin("if-else-predicated"), "2n p", 80, 24, false);
    let lines: Vec<&str> = good.lines().collect();
    let with = |i: usize, repl: &str| {
        let mut l = lines.clone();
        l[i] = repl;
        l.join("\n") + "\n"
    };
    let cases = [
        ("notjson.cast", with(3, "[0.5, \"i\", "), "line 4: not JSON"),
        (
            "v1.cast",
            with(0, "{\"version\": 1, \"width\": 80, \"height\": 24}"),
            "line 1: asciicast version 1 is not supported",
        ),
        (
            "plain.cast",
            with(0, "{\"version\": 2, \"width\": 80, \"height\": 24}"),
            "line 1: the header has no `warpstep` key",
        ),
        (
            "noheight.cast",
            with(0, "{\"version\": 2, \"width\": 80}"),
            "line 1: the header has no `height`",
        ),
        (
            "shape.cast",
            with(2, "{\"time\": 0.5}"),
            "line 3: an event is `[time, code, data]`",
        ),
        (
            "back.cast",
            with(5, "[0.1, \"o\", \"x\"]"),
            "line 6: time 0.1 s is before",
        ),
        ("empty.cast", String::new(), "line 1: the file is empty"),
    ];
    for (name, text, want) in cases {
        let err = replay_error(&dir, name, &text);
        assert!(err.contains(&format!("{name}: {want}")), "{name}: {err}");
    }

    // Not a speed.
    let ok = dir.path("ok.cast");
    std::fs::write(&ok, &good).unwrap();
    for speed in ["0", "-1", "inf"] {
        let o = Command::new(BIN)
            .args(["replay", &format!("--speed={speed}")])
            .arg(&ok)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "--speed {speed}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--speed"));
    }

    // A scenario that no longer loads: its own error, under the cast's line 1.
    let mut h: Value = serde_json::from_str(lines[0]).unwrap();
    let sc = h["warpstep"]["scenario"].as_str().unwrap().to_string();
    h["warpstep"]["scenario"] = Value::from(sc.replace("ISETP", "ISTEP"));
    let stale = with(0, &h.to_string());
    let err = replay_error(&dir, "stale.cast", &stale);
    assert!(
        err.contains("stale.cast: line 1: the scenario in the header no longer loads"),
        "{err}"
    );
    assert!(err.contains("ISTEP"), "the load error itself: {err}");
}

#[test]
fn bad_record_arguments_exit_2() {
    let dir = TempDir::new("args");
    let out = dir.path("x.cast");
    for (args, want) in [
        (vec!["no-such-scenario", "--keys", "n"], "no scenario file"),
        (
            vec!["divergent-loop", "--keys", "n <Rigth>"],
            "--keys: key script",
        ),
        (
            vec!["divergent-loop", "--keys", "n", "--size", "100by30"],
            "--size",
        ),
        // Below 80x24 the stepper draws only "enlarge the terminal".
        (
            vec!["divergent-loop", "--keys", "n", "--size", "60x20"],
            "smaller than the stepper's smallest layout, 80x24",
        ),
        (
            vec!["divergent-loop", "--keys", "n", "--size", "80x23"],
            "--size: `80x23`",
        ),
        // Without --keys it records a person, and needs a terminal.
        (vec!["divergent-loop"], "needs a terminal"),
    ] {
        let o = Command::new(BIN)
            .arg("record")
            .args(&args)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!out.exists(), "no file for a failed start");
    }
}

/// The final screen of `asciinema cat FILE` in pyte (the client on PATH,
/// or `client`), or None to skip.
fn asciinema_screen(cast: &Path, client: Option<&str>) -> Option<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cast_screen.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script);
    if let Some(c) = client {
        cmd.args(["--client", c]);
    }
    let o = match cmd.arg(cast).output() {
        Ok(o) => o,
        Err(e) => {
            support::skip_or_fail(&format!(
                "python3 does not run ({e}); CI installs asciinema and pyte"
            ));
            return None;
        }
    };
    if o.status.code() == Some(3) {
        support::skip_or_fail(&format!(
            "{} (CI runs `pip install asciinema pyte` and `cargo install asciinema`)",
            String::from_utf8_lossy(&o.stderr).trim()
        ));
        return None;
    }
    assert!(
        o.status.success(),
        "cast_screen.py: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Some(String::from_utf8(o.stdout).expect("UTF-8"))
}

fn trimmed(s: &str) -> Vec<String> {
    s.lines().map(|l| l.trim_end().to_string()).collect()
}

/// Recordings the asciinema clients play: scenario, keys, size, flags.
const PLAYED: [(&str, &str, &str, &[&str]); 4] = [
    ("divergent-loop", "5n <Right> d 2p <Tab> j j", "100x30", &[]),
    ("nested-branches", "3n i", "80x24", &["--ascii"]),
    (
        "divergent-loop",
        "20n <Tab> <Tab> <Tab> <Tab> <Tab> .",
        "160x45",
        &[],
    ),
    ("sched-gto", "e 3p ?", "120x32", &[]),
];

/// The screen the stepper draws after `script`, found without a cast or a
/// terminal emulator: the independent reference for the clients.
fn stepper_screen(name: &str, script: &str, size: &str, ascii: bool) -> String {
    let (w, h) = warpstep::record::parse_size(size).unwrap();
    let mut app = App::new(
        Arc::new(builtin(name)),
        Options {
            ascii,
            ..Options::default()
        },
    )
    .unwrap();
    for k in parse_keys(script).unwrap() {
        app.handle_key(k);
    }
    buffer_text(&render_to_buffer(&app, w, h))
}

#[test]
fn asciinema_plays_the_cast_to_the_screen_the_stepper_drew() {
    let dir = TempDir::new("asciinema");
    for (name, script, size, extra) in PLAYED {
        let out = dir.path("a.cast");
        record_cli(name, script, size, &out, extra);
        let Some(screen) = asciinema_screen(&out, None) else {
            return;
        };
        let want = stepper_screen(name, script, size, !extra.is_empty());
        assert_eq!(
            trimmed(&screen),
            trimmed(&want),
            "{name} {script}: asciinema + pyte:\n{screen}\nthe stepper:\n{want}"
        );
    }
}

/// The asciinema 3 client (Rust, crates.io): `WARPSTEP_ASCIINEMA3` names
/// it (`.ci/run` installs it with `cargo install`), else None and a skip.
fn asciinema3() -> Option<String> {
    let Some(exe) = std::env::var_os("WARPSTEP_ASCIINEMA3") else {
        support::skip_or_fail(
            "WARPSTEP_ASCIINEMA3 is not set (the asciinema 3.x client; .ci/run installs it \
             with `cargo install asciinema --version 3.2.0`)",
        );
        return None;
    };
    let exe = exe.to_string_lossy().into_owned();
    let v = Command::new(&exe).arg("--version").output();
    match v {
        Ok(o) if String::from_utf8_lossy(&o.stdout).starts_with("asciinema 3") => Some(exe),
        Ok(o) => panic!(
            "WARPSTEP_ASCIINEMA3={exe} is not asciinema 3: {}",
            String::from_utf8_lossy(&o.stdout)
        ),
        Err(e) => panic!("WARPSTEP_ASCIINEMA3={exe} does not run: {e}"),
    }
}

/// asciinema 3 plays what warpstep records (its raw output, in pyte, is
/// the stepper's last screen), and what it converts a warpstep cast into
/// (asciicast v3, without the `warpstep` header key) still plays in it and
/// replays in warpstep with the scenario named: the same cycle and report
/// as the recording, and the same frames in `warpstep svg`.
#[test]
fn asciinema3_plays_the_cast_and_its_v3_conversion() {
    use warpstep::record::{given_meta, replay_headless, replay_headless_with, svg};
    let Some(client) = asciinema3() else {
        return;
    };
    let dir = TempDir::new("asciinema3");
    for (name, script, size, extra) in PLAYED {
        let v2 = dir.path("a.cast");
        record_cli(name, script, size, &v2, extra);
        let want = stepper_screen(name, script, size, !extra.is_empty());
        let Some(screen) = asciinema_screen(&v2, Some(&client)) else {
            return;
        };
        assert_eq!(
            trimmed(&screen),
            trimmed(&want),
            "{name} {script}: asciinema 3 + pyte:\n{screen}\nthe stepper:\n{want}"
        );
        // asciinema 3 writes the cast as v3.
        let v3 = dir.path("a3.cast");
        let o = Command::new(&client)
            .args(["convert", "--overwrite"])
            .arg(&v2)
            .arg(&v3)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("asciinema convert");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text3 = std::fs::read_to_string(&v3).expect("v3 cast");
        let header: Value =
            serde_json::from_str(text3.lines().next().expect("header")).expect("JSON");
        assert_eq!(header["version"], 3, "{header}");
        let Some(screen3) = asciinema_screen(&v3, Some(&client)) else {
            return;
        };
        assert_eq!(trimmed(&screen3), trimmed(&want), "{name} {script}: v3");
        // warpstep replays it with the scenario named, to where the v2
        // cast's own replay ends.
        let text2 = std::fs::read_to_string(&v2).expect("v2 cast");
        let mine = replay_headless("a.cast", &text2).expect("v2 replays");
        let given = given_meta(&builtin(name));
        let theirs = replay_headless_with("a3.cast", &text3, Some(given)).expect("v3 replays");
        assert_eq!(theirs.cycle(), mine.cycle(), "{name} {script}");
        assert_eq!(
            Report::new(theirs.scenario(), theirs.machine()).to_value(),
            Report::new(mine.scenario(), mine.machine()).to_value()
        );
        // The same film: screen for screen, at the same times (asciinema 3
        // writes intervals to the microsecond; the keys are 0.5 s apart).
        let f2 = svg::film(&cast::parse_frames("a.cast", &text2).expect("v2"), None).expect("film");
        let f3 =
            svg::film(&cast::parse_frames("a3.cast", &text3).expect("v3"), None).expect("film");
        assert_eq!(f3.frames.len(), f2.frames.len(), "{name} {script}");
        for (a, b) in f3.frames.iter().zip(&f2.frames) {
            assert!((a.time - b.time).abs() < 1e-5, "{} {}", a.time, b.time);
            assert_eq!(a.screen, b.screen, "{name} {script} at {} s", b.time);
        }
    }
}

/// `cast` as asciinema 3 writes a recording of the same session: a v3
/// header (`term: {cols, rows, type}`, no `warpstep` key), each event's
/// time the interval since the one before, a comment line and the exit
/// event at the end. Written here from the v2 cast's own lines, so the
/// two must replay alike.
fn as_asciicast_v3(v2: &str) -> String {
    let mut lines = v2.lines();
    let header: Value = serde_json::from_str(lines.next().expect("header")).expect("JSON");
    let mut out = serde_json::json!({
        "version": 3,
        "term": {"cols": header["width"], "rows": header["height"], "type": "xterm-256color"},
        "timestamp": 1_700_000_000u64,
        "command": "warpstep divergent-loop",
    })
    .to_string();
    out.push_str("\n# recorded by asciinema 3\n");
    let mut before = 0.0;
    for l in lines {
        let ev: Value = serde_json::from_str(l).expect("event");
        let t = ev[0].as_f64().expect("time");
        out.push_str(&serde_json::json!([t - before, ev[1], ev[2]]).to_string());
        out.push('\n');
        before = t;
    }
    out.push_str("[0.25,\"x\",\"0\"]\n");
    out
}

#[test]
fn an_asciicast_v3_replays_with_the_scenario_named() {
    use warpstep::record::{given_meta, replay_headless_with};
    // Hand count: `5n` is five issue slots of divergent-loop from cycle 0,
    // `p` one back: the v2 cast's own replay ends where the recording did.
    let (v2, recorded) = record(builtin("divergent-loop"), "5n p 2n", 100, 30, false);
    let v3 = as_asciicast_v3(&v2);
    let c2 = cast::parse("a.cast", &v2).expect("v2");
    let given = given_meta(&builtin("divergent-loop"));
    let c3 = cast::parse_with("a3.cast", &v3, Some(given.clone())).expect("v3");
    assert_eq!((c3.width, c3.height), (100, 30));
    // The intervals add up to the v2 times (sums of 0.5 s steps: exact).
    let times = |c: &cast::Cast| c.events.iter().map(|e| e.time).collect::<Vec<_>>();
    assert_eq!(times(&c3), times(&c2));
    assert_eq!(
        c3.events.len(),
        c2.events.len(),
        "the `x` event is no event"
    );
    let app = replay_headless_with("a3.cast", &v3, Some(given)).expect("replays");
    assert_eq!(app.cycle(), recorded.cycle());
    // Without the scenario, the error says how to give it.
    let e = cast::parse("a3.cast", &v3).expect_err("no warpstep key");
    assert_eq!(e.line, 1);
    assert!(e.message.contains("`--scenario`"), "{e}");
    // A bad interval is a v3 error on its line.
    let bad = v3.replacen("[0.5,", "[-0.5,", 1);
    let e = cast::parse_with("b.cast", &bad, Some(given_meta(&builtin("divergent-loop"))))
        .expect_err("negative interval");
    assert!(e.message.contains("interval -0.5"), "{e}");
}

#[test]
fn replay_takes_a_scenario_for_a_cast_asciinema_recorded() {
    let dir = TempDir::new("v3");
    let (v2, _) = record(builtin("divergent-loop"), "3n", 80, 24, false);
    let file = dir.path("v3.cast");
    std::fs::write(&file, as_asciicast_v3(&v2)).expect("write");
    // No terminal: the cast and the scenario were read, then refused for
    // want of a terminal (exit 2). Without --scenario: the header's error.
    for (extra, want) in [
        (
            vec!["--scenario", "divergent-loop"],
            "replay needs a terminal",
        ),
        (vec![], "name the one it shows with `--scenario`"),
        (vec!["--scenario", "no-such-scenario"], "no-such-scenario"),
    ] {
        let o = Command::new(BIN)
            .arg("replay")
            .arg(&file)
            .args(&extra)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
}

/// A replay in a terminal catches a recorded run up in slices: each turn
/// returns within a slice (so the viewer's `q` is read), even when the
/// run never ends, and a run that ends lands where the recording did.
#[test]
fn a_replay_catches_long_runs_up_in_slices() {
    use std::time::{Duration, Instant};
    use warpstep::record::open_cast;
    use warpstep::record::player::{CATCH_UP_SLICE, Player};
    // Finite: `d e` on divergent-loop ends at its 540 cycles (the
    // scenario's own expect: block), in slices as in one go.
    let (text, recorded) = record(builtin("divergent-loop"), "d e", 100, 30, false);
    assert_eq!(recorded.cycle(), 540);
    let (c, mut app) = open_cast("a.cast", &text, false).expect("opens");
    let mut p = Player::new(c.events, c.meta.animate, 1.0, false).sliced();
    let later = Instant::now() + Duration::from_secs(60);
    for _ in 0..10_000 {
        p.pump(&mut app, later);
        if p.mode() == warpstep::record::player::Mode::Live {
            break;
        }
    }
    assert_eq!(app.cycle(), 540);
    // Endless: a branch to itself under a 1e10-cycle limit, and `e`.
    let spin = "name: spin\nmachine: {max_cycles: 10000000000}\nlaunch: {blocks: 1, block_dim: 32}\n\
                program: |\n  loop:\n  BRA loop\n";
    let sc = Scenario::from_text(spin, Origin::Builtin("spin".into())).expect("loads");
    let header = serde_json::json!({
        "version": 2, "width": 80, "height": 24, "timestamp": 0,
        "warpstep": {"version": env!("CARGO_PKG_VERSION"), "scenario": sc.source,
                     "origin": "builtin:spin", "animate": false, "key_delay": 0.5},
    });
    let text = format!("{header}\n[0.5,\"i\",\"e\"]\n[1.0,\"i\",\"n\"]\n");
    let (c, mut app) = open_cast("spin.cast", &text, false).expect("opens");
    let mut p = Player::new(c.events, c.meta.animate, 1.0, false).sliced();
    // The first turn plays `e`, which starts the run.
    p.pump(&mut app, later);
    let mut last = 0;
    for _ in 0..5 {
        let t = Instant::now();
        p.pump(&mut app, later);
        // A slice, plus one chunk of 1,024 cycles of one warp: far below
        // the 100 ms a viewer's key may wait.
        assert!(t.elapsed() < CATCH_UP_SLICE * 4, "{:?}", t.elapsed());
        assert!(p.catching_up() && app.is_running());
        assert!(app.cycle() > last, "the run goes on");
        last = app.cycle();
    }
}
