//! The real binary in a real terminal: tmux runs `warpstep` in a detached
//! session, `send-keys` types, `capture-pane` reads the screen. Checks that
//! the cycle counter moves by exactly one per key, forward and back, that
//! resizing redraws, and that the terminal is restored (alternate screen
//! left, canonical mode and echo back, cursor shown) after `q`, Ctrl-C,
//! SIGTERM, SIGINT and SIGHUP, with the signal's exit status, and that a
//! hung-up terminal ends the process.
//!
//! Each test uses its own tmux server (`-L`), killed at the end even when
//! the test fails. Without tmux the tmux tests are skipped with a message
//! (they fail instead when `WARPSTEP_REQUIRE_ALL_TESTS=1`).

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use support::{BIN, Session, have_tmux, status_cycle};

/// A tmux server of its own with one session running `warpstep ARGS`
/// under a shell that reports how it ended and then waits.
fn start(name: &str, args: &[&str]) -> Session {
    let s = Session::new("e2e", Some(name)).without_env("NO_COLOR");
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    // The inner shell writes its pid and becomes warpstep (exec), so
    // `pid` is warpstep's. Afterwards: exit status and tty mode.
    let script = format!(
        "#!/bin/sh\ncd '{dir}'\nsh -c 'echo $$ > pid; exec \"$0\" \"$@\"' '{BIN}' {args}\n\
         rc=$?\nmode=$(stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' ')\n\
         echo \"DONE rc=$rc $mode\"\nexec sleep 600\n",
        dir = s.dir.display(),
        args = quoted.join(" "),
    );
    let path = s.dir.join("run.sh");
    std::fs::write(&path, script).expect("script");
    s.new_session(&format!("sh '{}'", path.display()));
    s
}

fn alternate_on(s: &Session) -> bool {
    s.tmux(&["display-message", "-p", "-t", "main", "#{alternate_on}"])
        .trim()
        == "1"
}

fn wait_cycle(s: &Session, want: u64) {
    s.wait_for(&format!("cycle {want}"), |scr| {
        status_cycle(scr) == Some(want)
    });
}

/// After quitting: the shell's line, the normal screen, a cooked tty.
fn assert_restored(s: &Session) {
    assert_restored_with(s, 0);
}

/// As [`assert_restored`], with the exit status `rc` (128 plus the signal's
/// number after a signal, as POSIX shells report it) and the cursor shown.
fn assert_restored_with(s: &Session, rc: i32) {
    let screen = s.wait_for("the shell after warpstep", |scr| scr.contains("DONE rc="));
    // `stty -a` lists `icanon` before `echo`; a leading `-` would mean off.
    assert!(
        screen.contains(&format!("DONE rc={rc} icanon echo")),
        "{screen}"
    );
    let cursor = s.tmux(&["display-message", "-p", "-t", "main", "#{cursor_flag}"]);
    assert_eq!(cursor.trim(), "1", "cursor still hidden");
    assert!(
        !screen.contains("Mask grid"),
        "still on the TUI's screen:\n{screen}"
    );
    assert!(!alternate_on(s), "alternate screen still on");
}

#[test]
fn each_key_moves_the_cycle_by_one_and_q_restores_the_terminal() {
    if !have_tmux() {
        return;
    }
    let s = start("keys", &[]);
    let first = s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    assert!(
        first.contains("Mask grid") && first.contains("Ready queue"),
        "{first}"
    );
    assert!(
        alternate_on(&s),
        "the stepper should use the alternate screen"
    );
    let mut want = 0;
    for (key, d) in [
        ("Right", 1i64),
        ("Space", 1),
        ("n", 1),
        ("Left", -1),
        ("p", -1),
        ("n", 1),
        ("n", 1),
        ("p", -1),
    ] {
        want = (want as i64 + d) as u64;
        s.keys(&[key]);
        wait_cycle(&s, want);
        // Still exactly there a moment later: one key, one cycle.
        std::thread::sleep(Duration::from_millis(150));
        assert_eq!(status_cycle(&s.screen()), Some(want), "after {key}");
    }
    // Live resize: below the minimum, then back.
    s.tmux(&["resize-window", "-t", "main", "-x", "70", "-y", "20"]);
    s.wait_for("the enlarge message", |scr| {
        scr.contains("enlarge the terminal")
    });
    s.tmux(&["resize-window", "-t", "main", "-x", "120", "-y", "40"]);
    let big = s.wait_for("the full layout", |scr| scr.contains("Lanes · "));
    assert_eq!(status_cycle(&big), Some(want));
    s.keys(&["q"]);
    assert_restored(&s);
}

#[test]
fn ctrl_c_quits_and_restores_the_terminal() {
    if !have_tmux() {
        return;
    }
    let s = start("ctrlc", &["--ascii", "if-else-predicated"]);
    s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    s.keys(&["3", "n"]);
    wait_cycle(&s, 3);
    s.keys(&["C-c"]);
    assert_restored(&s);
}

/// Sends `signal` to the stepper and expects the terminal restored and
/// the exit status 128 + the signal's number (POSIX: TERM 15, INT 2, HUP 1).
fn signal_restores_the_terminal(name: &str, signal: &str, rc: i32) {
    if !have_tmux() {
        return;
    }
    let s = start(name, &["divergent-loop"]);
    s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    let pid = s.pid();
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    assert_restored_with(&s, rc);
}

#[test]
fn sigterm_restores_the_terminal_and_exits_143() {
    signal_restores_the_terminal("sigterm", "TERM", 143);
}

#[test]
fn sigint_restores_the_terminal_and_exits_130() {
    signal_restores_the_terminal("sigint", "INT", 130);
}

/// A hangup whose tty is still there (`kill -HUP`, a detaching
/// multiplexer) gets it back cooked, and the hangup's status.
#[test]
fn sighup_restores_the_terminal_and_exits_129() {
    signal_restores_the_terminal("sighup", "HUP", 129);
}

/// When the terminal goes away (a killed tmux, a dropped SSH link) the
/// stepper gets SIGHUP and must end, not spin on the closed tty.
#[test]
fn a_hung_up_terminal_ends_the_stepper() {
    if !have_tmux() {
        return;
    }
    let s = start("hangup", &[]);
    s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    let pid = s.pid();
    s.tmux(&["kill-server"]);
    let start = Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}")).exists()
        && std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|st| !st.contains(") Z "))
            .unwrap_or(false)
    {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "warpstep {pid} still runs after its terminal went away"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_scenario_that_does_not_load_exits_2_without_touching_the_terminal() {
    let out = Command::new(BIN)
        .arg("no-such-scenario-here")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no scenario file or built-in scenario named `no-such-scenario-here`"),
        "{err}"
    );
    // The alternate screen was never entered, raw mode never set.
    let all = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
    let all = String::from_utf8_lossy(&all);
    assert!(!all.contains("\u{1b}[?1049h"), "{all:?}");
    assert!(out.stdout.is_empty(), "{all:?}");
}

/// The seed kernel's listing with line info (`nvdisasm -g`), as a
/// scenario file: the source pane lists its lines by number.
fn seed_scenario_file(dir: &std::path::Path) -> std::path::PathBuf {
    let listing = include_str!("kernels/seed.sm_90.nvdisasm");
    let mut y = String::from(
        "name: seed kernel with line info\nlaunch: {blocks: 1, block_dim: 64}\n\
         memory:\n  data: {type: f32, len: 64}\nargs: [data, 40]\nprogram: |\n",
    );
    for l in listing.lines() {
        y.push_str(if l.trim().is_empty() { "" } else { "  " });
        y.push_str(l);
        y.push('\n');
    }
    let path = dir.join("seed.yaml");
    std::fs::write(&path, y).expect("scenario written");
    path
}

#[test]
fn the_listing_follows_the_source_cursor() {
    if !have_tmux() {
        return;
    }
    let probe = Session::new("e2e", Some("source-probe"));
    let file = seed_scenario_file(&probe.dir);
    let s = start("source", &[file.to_str().expect("utf-8 path")]);
    // 100x30: the compact layout; Tab twice focuses the source pane, which
    // takes the grid's place beside the listing.
    s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    s.keys(&["Tab", "Tab"]);
    let first = s.wait_for("the source pane", |scr| {
        scr.contains("Source · seed.cu · text not available")
    });
    // At cycle 0 both cursors are at the top: line 3 and /*0000*/. The
    // listing shows 13 of its 24 rows (20 instructions, 4 labels), so
    // /*00f0*/ (row 17) is out of sight.
    assert!(
        first.contains("/*0000*/") && !first.contains("/*00f0*/"),
        "{first}"
    );
    // Down five source lines: 3 4 5 6 7 9, so line 9, whose one
    // instruction is /*00f0*/ @!P0 EXIT. The listing scrolls to it (rows
    // 11..24 in view: /*0000*/ is gone) and stops following the warp.
    s.keys(&["j", "j", "j", "j", "j"]);
    let moved = s.wait_for("the listing at line 9's instruction", |scr| {
        scr.contains("/*00f0*/") && !scr.contains("/*0000*/")
    });
    assert!(moved.contains("f follows"), "{moved}");
    // And back up to line 3: /*0000*/ is in view again.
    s.keys(&["k", "k", "k", "k", "k"]);
    s.wait_for("the listing back at the top", |scr| {
        scr.contains("/*0000*/") && !scr.contains("/*00f0*/")
    });
    s.keys(&["q"]);
    assert_restored(&s);
}
