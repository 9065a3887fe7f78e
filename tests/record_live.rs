//! Interactive `warpstep record` in a real terminal (tmux): the cast has the
//! terminal's size and type, one `i` per key typed, an `r` for a resize, a
//! marker per cycle shown, and replaying it stops an animated run that a
//! key interrupted at the cycle the screen showed. A recording killed with
//! SIGKILL is still a valid cast. Skipped without tmux.

mod support;

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use support::{BIN, Session, have_tmux, status_cycle};
use warpstep::record::cast::{self, EventKind};
use warpstep::record::replay_headless;
use warpstep::report::Report;
use warpstep::tui::keys::parse_keys;
use warpstep::tui::{App, Options};

/// A tmux server of its own running `warpstep record divergent-loop -o
/// s.cast`, then a line saying how it ended.
fn start(name: &str) -> Session {
    let s = Session::new("reclive", Some(name)).with_poll(Duration::from_millis(30));
    let script = format!(
        "#!/bin/sh\ncd '{d}'\nsh -c 'echo $$ > pid; exec \"$0\" \"$@\"' '{BIN}' \
         record divergent-loop -o s.cast\necho \"DONE rc=$?\"\nexec sleep 600\n",
        d = s.dir.display()
    );
    std::fs::write(s.dir.join("run.sh"), script).expect("script");
    s.new_session(&format!(
        "TERM=xterm-256color sh '{}'",
        s.dir.join("run.sh").display()
    ));
    s
}

/// The cast the recording wrote.
fn recorded_cast(s: &Session) -> String {
    std::fs::read_to_string(s.dir.join("s.cast")).expect("the cast")
}

#[test]
fn an_interactive_recording_replays_to_where_a_key_stopped_a_run() {
    if !have_tmux() {
        return;
    }
    let s = start("live");
    s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    for (key, want) in [("n", 1), ("n", 2), ("Right", 3)] {
        s.keys(&[key]);
        s.wait_for(&format!("cycle {want}"), |scr| {
            status_cycle(scr) == Some(want)
        });
    }
    s.tmux(&["resize-window", "-t", "main", "-x", "120", "-y", "40"]);
    s.wait_for("the full layout", |scr| scr.contains("Lanes · "));
    // Seven `-` from the top speed: 60 cycles/s.
    for _ in 0..7 {
        s.keys(&["-"]);
    }
    s.wait_for("the speed", |scr| scr.contains("run speed 60 cycles/s"));
    // An animated run to the end (60 cycles/s), stopped part way.
    s.keys(&["e"]);
    s.wait_for_moving("the run under way", |scr| {
        status_cycle(scr).is_some_and(|c| c >= 20)
    });
    s.keys(&["x"]);
    let stopped = s.wait_for("the run stopped", |scr| scr.contains("stopped at cycle"));
    let at = status_cycle(&stopped).expect("a cycle");
    assert!((20..540).contains(&at), "{stopped}");
    s.keys(&["q"]);
    let done = s.wait_for("the shell", |scr| scr.contains("DONE rc="));
    assert!(done.contains("DONE rc=0"), "{done}");

    let text = recorded_cast(&s);
    let h: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (h["width"].as_u64(), h["height"].as_u64()),
        (Some(100), Some(30))
    );
    assert_eq!(h["env"]["TERM"], "xterm-256color");
    assert_eq!(h["warpstep"]["animate"], true);
    assert!(h["timestamp"].as_u64().unwrap() > 1_600_000_000);
    let c = cast::parse("s.cast", &text).expect("a valid cast");
    let inputs: Vec<usize> = c
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Input(k) => Some(k.len()),
            _ => None,
        })
        .collect();
    assert_eq!(inputs, vec![1; 13], "n n Right - - - - - - - e x q");
    assert!(
        c.events
            .iter()
            .any(|e| e.kind == EventKind::Resize(120, 40))
    );
    // A marker for each cycle the run showed: 60 cycles/s is one a tick.
    let marked: Vec<u64> = c
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Marker { cycle, .. } => *cycle,
            _ => None,
        })
        .collect();
    let want: Vec<u64> = (1..=at).collect();
    assert_eq!(marked, want);

    // The replay stops the run where the screen did, with the same numbers
    // as going to that cycle directly.
    let replayed = replay_headless("s.cast", &text).expect("replays");
    assert_eq!(replayed.cycle(), at);
    assert!(!replayed.is_running());
    let sc = warpstep::builtin::resolve("divergent-loop").unwrap();
    let mut direct = App::new(Arc::new(sc), Options::default()).unwrap();
    for k in parse_keys(&format!("{at}g")).unwrap() {
        direct.handle_key(k);
    }
    assert_eq!(
        Report::new(replayed.scenario(), replayed.machine()).to_value(),
        Report::new(direct.scenario(), direct.machine()).to_value()
    );
}

#[test]
fn a_killed_recording_is_a_valid_cast() {
    if !have_tmux() {
        return;
    }
    let s = start("killed");
    s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    s.keys(&["5", "n"]);
    s.wait_for("cycle 5", |scr| status_cycle(scr) == Some(5));
    let pid = std::fs::read_to_string(s.dir.join("pid")).expect("pid");
    let killed = Command::new("kill")
        .args(["-KILL", pid.trim()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    s.wait_for("the shell", |scr| scr.contains("DONE rc="));
    let text = recorded_cast(&s);
    let c = cast::parse("s.cast", &text).expect("valid up to its last event");
    let replayed = replay_headless("s.cast", &text).expect("replays");
    assert_eq!(replayed.cycle(), 5);
    assert!(
        c.events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Marker { cycle: Some(5), .. }))
    );
}
