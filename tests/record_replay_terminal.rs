//! `warpstep replay` in a real terminal (tmux): it starts paused with
//! `--paused`, `]` plays to the next marker, Space plays, the end of the
//! recording hands over the stepper, a key during playback takes over, and
//! the terminal is restored afterwards; at 24 rows (80, 90 and 120
//! columns) the bar over the top border says paused, playing and the end.
//! Skipped without tmux.

mod support;

use std::process::Command;
use std::time::Duration;

use support::{BIN, Session, have_tmux, status_cycle};

/// A tmux server of its own running `warpstep replay` on a cast recorded
/// from `keys`, then a line saying how it ended.
fn start(name: &str, keys: &str, replay_args: &[&str]) -> Session {
    start_sized(name, keys, replay_args, (100, 30))
}

/// [`start`] in a terminal of `size` columns by rows.
fn start_sized(name: &str, keys: &str, replay_args: &[&str], size: (u16, u16)) -> Session {
    let s = Session::new("replay", Some(name));
    let cast = s.dir.join("s.cast");
    let o = Command::new(BIN)
        .args(["record", "divergent-loop", "--keys", keys, "-o"])
        .arg(&cast)
        .output()
        .expect("records");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let args: Vec<String> = replay_args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "#!/bin/sh\n'{BIN}' replay {} '{}'\nrc=$?\n\
         mode=$(stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon)\n\
         echo \"DONE rc=$rc $mode\"\nexec sleep 600\n",
        args.join(" "),
        cast.display()
    );
    std::fs::write(s.dir.join("run.sh"), script).expect("script");
    s.new_session_sized(
        &format!("sh '{}'", s.dir.join("run.sh").display()),
        size.0,
        size.1,
    );
    s
}

#[test]
fn paused_replay_steps_through_markers_then_hands_over() {
    if !have_tmux() {
        return;
    }
    let s = start("markers", "2n 3n p", &["--paused"]);
    let first = s.wait_for("the paused replay", |scr| scr.contains("paused"));
    assert_eq!(status_cycle(&first), Some(0), "{first}");
    // The bar is the last row; the stepper's status line above it.
    let rows: Vec<&str> = first.lines().collect();
    assert_eq!(rows.len(), 30);
    assert!(rows[29].contains("] next marker"), "{first}");
    assert!(rows[28].starts_with(" cycle 0"), "{first}");
    // Nothing plays while paused.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(status_cycle(&s.screen()), Some(0));

    // `]`: to the marker of 2n, then of 3n, paused at each.
    s.keys(&["]"]);
    let m1 = s.wait_for("cycle 2", |scr| status_cycle(scr) == Some(2));
    assert!(m1.contains("cycle 2 · w1 S2R"), "{m1}");
    s.keys(&["]"]);
    s.wait_for("cycle 5", |scr| status_cycle(scr) == Some(5));
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(status_cycle(&s.screen()), Some(5), "still paused");

    // Space plays the rest (p), and the recording hands over.
    s.keys(&["Space"]);
    let end = s.wait_for("the end of the recording", |scr| {
        scr.contains("the stepper is yours")
    });
    assert_eq!(status_cycle(&end), Some(4));
    assert!(!end.contains("] next marker"), "the bar is gone:\n{end}");
    // Live: the viewer's keys step.
    s.keys(&["n"]);
    s.wait_for("cycle 5", |scr| status_cycle(scr) == Some(5));
    s.keys(&["q"]);
    let done = s.wait_for("the shell", |scr| scr.contains("DONE rc="));
    assert!(done.contains("DONE rc=0 icanon"), "{done}");
}

#[test]
fn a_key_during_playback_takes_over() {
    if !have_tmux() {
        return;
    }
    // Eight steps, one every 2 s at a quarter of the recorded pace.
    let s = start("takeover", "n n n n n n n n", &["--speed", "0.25"]);
    s.wait_for("the first step", |scr| status_cycle(scr) == Some(1));
    s.keys(&["p"]);
    let taken = s.wait_for("the take-over", |scr| scr.contains("the stepper is yours"));
    let at = status_cycle(&taken).expect("a cycle");
    assert!(at < 8, "{taken}");
    // Playback has stopped: the cycle stays where the viewer put it.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(status_cycle(&s.screen()), Some(at));
    s.keys(&["C-c"]);
    let done = s.wait_for("the shell", |scr| scr.contains("DONE rc="));
    assert!(done.contains("DONE rc=0 icanon"), "{done}");
}

/// At 24 rows the stepper needs every row: the bar is drawn over its top
/// border (the first row) instead of below it, and says the same things.
#[test]
fn a_replay_at_24_rows_is_marked_paused_playing_and_ended() {
    if !have_tmux() {
        return;
    }
    for (w, h) in [(80, 24), (90, 24), (120, 24)] {
        let s = start_sized(&format!("rows{w}"), "2n 3n", &["--paused"], (w, h));
        let first = s.wait_for("the paused replay", |scr| scr.contains("paused"));
        let rows: Vec<&str> = first.lines().collect();
        assert_eq!(rows.len(), usize::from(h), "{first}");
        // The bar: state, pace, the key that starts playback, and the
        // marker keys, all on the top row at every width.
        assert!(rows[0].contains("⏸ paused 1x"), "{w}x{h}:\n{first}");
        assert!(rows[0].contains("Space play "), "{w}x{h}:\n{first}");
        assert!(rows[0].contains("] next marker"), "{w}x{h}:\n{first}");
        assert!(rows[0].contains("q quit"), "{w}x{h}:\n{first}");
        assert_eq!(status_cycle(&first), Some(0), "{first}");
        // Space plays: the bar says so, and offers Space to pause.
        s.keys(&["Space"]);
        let end = s.wait_for("the end of the recording", |scr| {
            scr.contains("the stepper is yours")
        });
        // 2n then 3n: cycle 5 (the recorded session's end).
        assert_eq!(status_cycle(&end), Some(5), "{end}");
        assert!(!end.contains("] next marker"), "the bar is gone:\n{end}");
        s.keys(&["q"]);
        s.wait_for("the shell", |scr| scr.contains("DONE rc=0"));
    }
}

/// While it plays, a 24-row replay says `replay` and how to pause.
#[test]
fn a_playing_replay_at_24_rows_says_so() {
    if !have_tmux() {
        return;
    }
    // Eight steps at a quarter of the recorded pace: 16 s of playback.
    let s = start_sized("playing", "n n n n n n n n", &["--speed", "0.25"], (80, 24));
    let playing = s.wait_for("the first step", |scr| status_cycle(scr) == Some(1));
    let top = playing.lines().next().unwrap_or_default();
    assert!(top.contains("▶ replay 0.25x"), "{playing}");
    assert!(top.contains("Space pause"), "{playing}");
    s.keys(&["q"]);
    s.wait_for("the shell", |scr| scr.contains("DONE rc=0"));
}
