//! Finding one's way in the real binary, in a real terminal (tmux, as in
//! `tui_e2e.rs`): long operations show their progress and stop at once.
//!
//! Without tmux the tests are skipped with a message (they fail instead
//! when `WARPSTEP_REQUIRE_ALL_TESTS=1`).

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use support::{BIN, Session, have_tmux, status_cycle};

/// One warp on a branch to itself, with the largest cycle limit a scenario
/// may ask for: going to the end would take hours.
const SPIN: &str = "name: spin\nlaunch: {threads: 32}\nmachine: {max_cycles: 10000000000}\n\
                    program: |\n  loop:\n  BRA loop\n  EXIT\n";

/// A tmux server of its own with one session running `warpstep ARGS` in
/// the test's directory, under a shell that reports how it ended. `files`
/// are written into that directory before warpstep starts.
fn start(name: &str, files: &[(&str, &str)], args: &[&str]) -> Session {
    let s = Session::new("nav", Some(name)).without_env("NO_COLOR");
    for (file, text) in files {
        std::fs::write(s.dir.join(file), text).expect("test file");
    }
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "#!/bin/sh\ncd '{dir}'\nsh -c 'echo $$ > pid; exec \"$0\" \"$@\"' '{BIN}' {args}\n\
         echo \"DONE rc=$?\"\nexec sleep 600\n",
        dir = s.dir.display(),
        args = quoted.join(" "),
    );
    let path = s.dir.join("run.sh");
    std::fs::write(&path, script).expect("script");
    s.new_session(&format!("sh '{}'", path.display()));
    s
}

fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The spin scenario's stepper, at cycle 0.
fn spin_stepper(name: &str) -> (Session, String) {
    let s = start(name, &[("spin.yaml", SPIN)], &["spin.yaml"]);
    let pid = s.pid();
    s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    (s, pid)
}

#[test]
fn q_during_a_jump_to_the_end_of_an_endless_loop_quits_within_a_second() {
    if !have_tmux() {
        return;
    }
    let (s, pid) = spin_stepper("g_then_q");
    s.keys(&["G"]);
    // After a quarter second the status line shows how far the run got.
    let running = s.wait_for_moving("the progress of the run", |scr| {
        scr.contains("running to the end") && scr.contains("cycles in") && scr.contains("/s)")
    });
    assert!(status_cycle(&running).is_some_and(|c| c > 0), "{running}");
    assert!(alive(&pid));
    let sent = Instant::now();
    s.keys(&["q"]);
    while alive(&pid) && sent.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = sent.elapsed();
    assert!(!alive(&pid), "still running 5 s after q");
    assert!(took < Duration::from_secs(1), "q took {took:?}");
    let done = s.wait_for("the shell", |scr| scr.contains("DONE rc="));
    assert!(done.contains("DONE rc=0"), "{done}");
}

#[test]
fn esc_stops_a_run_where_it_is_and_the_stepper_goes_on() {
    if !have_tmux() {
        return;
    }
    let (s, pid) = spin_stepper("esc");
    s.keys(&["e"]);
    s.wait_for_moving("the run under way", |scr| {
        scr.contains("running to the end")
    });
    let sent = Instant::now();
    s.keys(&["Escape"]);
    let stopped = s.wait_for("the run stopped", |scr| scr.contains("stopped at cycle"));
    assert!(sent.elapsed() < Duration::from_secs(2));
    let at = status_cycle(&stopped).expect("a cycle");
    assert!(at > 0, "{stopped}");
    assert!(
        stopped.contains(&format!("stopped at cycle {at}")),
        "{stopped}"
    );
    // Still live: a step moves one cycle on.
    s.keys(&["n"]);
    s.wait_for("one cycle on", |scr| status_cycle(scr) == Some(at + 1));
    assert!(alive(&pid));
    s.keys(&["q"]);
    s.wait_for("the shell", |scr| scr.contains("DONE rc=0"));
}

/// An animating stepper on built-in `name` after `script`, its run ticked
/// to the end as the event loop would (no waiting between ticks at the
/// top speed); the wall time the run took.
fn animated_run(name: &str, script: &str) -> (warpstep::tui::App, Duration) {
    use warpstep::tui::{App, Options, keys::parse_keys};
    let opts = Options {
        animate: true,
        ..Options::default()
    };
    let sc = std::sync::Arc::new(warpstep::builtin::resolve(name).expect("built-in"));
    let mut a = App::new(sc, opts).expect("links");
    let t = Instant::now();
    for k in parse_keys(script).expect("keys") {
        a.handle_key(k);
    }
    while a.is_running() && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(a.tick_interval());
        a.tick();
    }
    (a, t.elapsed())
}

#[test]
fn runs_at_the_default_speed_reach_the_first_divergence_of_every_builtin_within_a_second() {
    // divergent-loop: w0's `@P0 BRA loop` diverges in cycle 412 (see
    // tui_app.rs), at 60 cycles a second that took 7 s.
    let (a, took) = animated_run("divergent-loop", "d");
    assert_eq!(a.cycle(), 413);
    assert!(took < Duration::from_millis(500), "{took:?}");
    for name in warpstep::builtin::names() {
        let (a, took) = animated_run(name, "d");
        assert!(!a.is_running(), "{name}");
        assert!(took < Duration::from_secs(1), "{name}: {took:?}");
    }
}

/// A headless stepper on divergent-loop after `script`. Its listing (from
/// `warpstep run divergent-loop`): 0000 S2R, 0010 IMAD, 0020 LDG.E,
/// 0030 MOV R2, 0040 MOV R1, 0050 `loop:` FFMA, 0060 IADD3, 0070 ISETP,
/// 0080 @P0 BRA loop, 0090 IMAD, 00a0 STG.E, 00b0 EXIT.
fn after(script: &str) -> warpstep::tui::App {
    use warpstep::tui::{App, Options, keys::parse_keys};
    let sc = std::sync::Arc::new(warpstep::builtin::resolve("divergent-loop").expect("built-in"));
    let mut a = App::new(sc, Options::default()).expect("links");
    for k in parse_keys(script).expect("keys") {
        a.handle_key(k);
    }
    a
}

fn message(a: &warpstep::tui::App) -> String {
    a.message().map(|m| m.text.clone()).unwrap_or_default()
}

#[test]
fn search_finds_the_next_match_from_the_cursor_and_wraps() {
    use warpstep::tui::app::Pane;
    // IMAD is at 0010 (pc 1) and 0090 (pc 9).
    let a = after("/ imad <Enter>");
    assert_eq!(a.cursor(), 1);
    assert_eq!(a.focus(), Pane::Program);
    assert!(!a.follows());
    assert_eq!(
        message(&a),
        "\"imad\" 1 of 2: /*0010*/ IMAD R4, R0, 4, c[0x0][0x160] (o next, O previous)"
    );
    assert_eq!(after("/ imad <Enter> o").cursor(), 9);
    // After the last, the first again.
    let a = after("/ imad <Enter> o o");
    assert_eq!(a.cursor(), 1);
    assert!(message(&a).contains("1 of 2, wrapped"), "{}", message(&a));
    // Backwards from pc 1: wraps to pc 9.
    assert_eq!(after("/ IMAD <Enter> O").cursor(), 9);
    // A label matches its instruction: `loop` names 0050 (pc 5), and the
    // BRA at 0080 (pc 8) names it in its text.
    assert_eq!(after("/ loop <Enter>").cursor(), 5);
    assert_eq!(after("/ loop <Enter> o").cursor(), 8);
    // Nothing found: said, the cursor stays.
    let a = after("/ HMMA <Enter>");
    assert_eq!(a.cursor(), 0);
    assert_eq!(message(&a), "no instruction or label matches \"HMMA\"");
    // `o` before any search.
    assert!(message(&after("o")).starts_with("no search yet"));
    // Keys typed in the prompt are text, not commands: `q` does not quit.
    let a = after("/ q <Esc>");
    assert!(!a.should_quit());
    assert_eq!(a.prompt(), None);
}

#[test]
fn colon_goes_to_an_address_or_a_label() {
    use warpstep::tui::app::Pane;
    for (text, pc) in [
        ("0x40", 4),
        ("40", 4),
        ("/*0040*/", 4),
        ("loop", 5),
        ("LOOP", 5),
        ("0xb0", 11),
    ] {
        let a = after(&format!(": {text} <Enter>"));
        assert_eq!(a.cursor(), pc, "{text}");
        assert_eq!(a.focus(), Pane::Program);
    }
    assert_eq!(
        message(&after(": loop <Enter>")),
        "/*0050*/ (loop) FFMA R1, R1, 1.5, 1.0"
    );
    // 12 instructions: the last is at 0x0b0.
    assert_eq!(
        message(&after(": 0xc0 <Enter>")),
        "go to \"0xc0\": past the program's last instruction, /*00b0*/"
    );
    assert!(message(&after(": 0x44 <Enter>")).contains("multiples of 0x10 (0x40 or 0x50)"));
    assert_eq!(
        message(&after(": nowhere <Enter>")),
        "go to \"nowhere\": no such label or hex address (labels: loop; addresses /*0000*/../*00b0*/)"
    );
}

#[test]
fn unknown_keys_say_so() {
    assert_eq!(message(&after("z")), "unknown key z \u{2014} ? for help");
    // Esc and known keys say nothing of the kind.
    assert!(!message(&after("<Esc>")).contains("unknown"));
    assert!(!message(&after("n")).contains("unknown"));
}

#[test]
fn conditional_breakpoints_stop_only_when_their_condition_holds() {
    // The cursor on 0080 `@P0 BRA loop` (pc 8), then `B` and a condition.
    let bra = "<Tab> 8j";
    // Plain, the first warp to issue it stops the run: w0.
    let a = after(&format!("{bra} b c"));
    assert!(
        message(&a).starts_with("breakpoint: w0 issued /*0080*/"),
        "{}",
        message(&a)
    );
    // Only w2's issue stops it; the three others issued it before (lrr
    // order: w0, w1 then w2 reach it first in the first trip).
    let a = after(&format!("{bra} B w2 <Enter> c"));
    assert!(
        message(&a).starts_with("breakpoint: w2 issued /*0080*/"),
        "{}",
        message(&a)
    );
    assert_eq!(a.pc_counters()[8].executions, 3);
    // Trip counts 1..8 per lane: in its first trip a warp's 32 lanes are
    // active at the BRA; in its second the 4 lanes with a trip count of
    // 1 have left, 28 remain: `active<32` stops at the first second trip.
    let a = after(&format!("{bra} B active<lt>32 <Enter> c"));
    let last = a
        .machine()
        .issues()
        .iter()
        .find(|r| r.pc == 8 && !r.dispatch_stall)
        .cloned();
    let r = last.expect("the BRA issued");
    assert_eq!(r.active.count_ones(), 28);
    assert_eq!(a.pc_counters()[8].executions, 5);
    // R2 counts the trips (IADD3 R2, R2, 1 at 0060): R2==3 at that
    // IADD3 stops at its third issue by w0, the 9th over the four warps.
    let a = after("<Tab> 6j B R2==3 <Enter> c");
    assert!(
        message(&a).starts_with("breakpoint: w0 issued /*0060*/"),
        "{}",
        message(&a)
    );
    assert_eq!(a.pc_counters()[6].executions, 9);
    // The gutter shows `?`, and `b` clears it.
    let a = after(&format!("{bra} B div <Enter>"));
    assert_eq!(
        message(&a),
        "breakpoint at /*0080*/ if div set (b clears it)"
    );
    let screen = warpstep::tui::buffer_text(&warpstep::tui::render_to_buffer(&a, 100, 30));
    // Gutter: breakpoint mark, issued mark, focused warp's pc, then the address.
    assert!(screen.contains("┃?  /*0080*/ @P0 BRA loop"), "{screen}");
    let a = after(&format!("{bra} B div <Enter> b c"));
    assert!(
        message(&a).starts_with("no breakpoint set"),
        "{}",
        message(&a)
    );
    // A condition that does not parse says what would.
    let a = after(&format!("{bra} B active<lt>0 <Enter>"));
    assert_eq!(
        message(&a),
        "condition \"active<0\": the count after `active<` must be a number from 1 to 64; give one of \
         w3 (that warp), active<8 (fewer active lanes), div (the issue diverges), R2==5 (a register \
         value in an active lane)"
    );
    assert!(a.conditions().is_empty());
}

/// The divergences of divergent-loop, found by forward runs from cycle 0
/// (the reference a run backwards must land on): `(cycle, message)`.
fn forward_divergences() -> Vec<(u64, String)> {
    use warpstep::session::{Goal, Session, Stop};
    let sc = std::sync::Arc::new(warpstep::builtin::resolve("divergent-loop").expect("built-in"));
    let mut s = Session::new(sc).expect("links");
    let mut out = Vec::new();
    loop {
        s.start(Goal::Divergence, 1, false).expect("starts");
        match s.finish() {
            Some(Stop::Reached(h)) => out.push((h.cycle, h.text)),
            _ => return out,
        }
    }
}

#[test]
fn shift_d_at_the_end_goes_back_to_the_last_divergence_and_the_one_before() {
    if !have_tmux() {
        return;
    }
    let hits = forward_divergences();
    // Four warps, seven divergent BRAs each (the scenario's description).
    assert_eq!(hits.len(), 28);
    let s = start("back_d", &[], &["divergent-loop"]);
    s.wait_for("the stepper", |scr| status_cycle(scr) == Some(0));
    s.keys(&["e"]);
    // `warpstep run divergent-loop`: 540 cycles.
    s.wait_for("the end", |scr| status_cycle(scr) == Some(540));
    for (cycle, text) in hits.iter().rev().take(2) {
        s.keys(&["D"]);
        let scr = s.wait_for("the previous divergence", |scr| {
            status_cycle(scr) == Some(*cycle)
        });
        let status = scr
            .lines()
            .rev()
            .find(|l| l.starts_with(" cycle "))
            .unwrap_or("");
        assert!(status.contains(text.as_str()), "{status}");
    }
    // From the first divergence there is none before: said, and it stays.
    s.keys(&[&format!("{}", hits.len() - 2), "D"]);
    s.wait_for("the first divergence", |scr| {
        status_cycle(scr) == Some(hits[0].0)
    });
    s.keys(&["D"]);
    let scr = s.wait_for("none before", |scr| scr.contains("no divergence before"));
    assert_eq!(status_cycle(&scr), Some(hits[0].0));
    s.keys(&["q"]);
    s.wait_for("the shell", |scr| scr.contains("DONE rc=0"));
}
