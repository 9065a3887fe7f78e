//! The stepper driven by keys, with no terminal: stepping, runs, counts,
//! selection, and that back and forward always show the same screens.
//! Cycle numbers are those of `warpstep run divergent-loop` (540 cycles)
//! or worked out in the comments.

mod support;
use support::load_scenario;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use warpstep::tui::app::{Overlay, Pane};
use warpstep::tui::keys::{ctrl, parse_keys, press};
use warpstep::tui::{App, Options, buffer_text, render_to_buffer};

fn app_opts(arg: &str, opts: Options) -> App {
    App::new(load_scenario(arg), opts).expect("links")
}

fn app(arg: &str) -> App {
    app_opts(arg, Options::default())
}

fn keys(app: &mut App, script: &str) {
    for k in parse_keys(script).expect("key script") {
        app.handle_key(k);
    }
}

fn after(script: &str) -> App {
    let mut a = app("divergent-loop");
    keys(&mut a, script);
    a
}

fn screens(app: &App) -> [Buffer; 3] {
    [
        render_to_buffer(app, 80, 24),
        render_to_buffer(app, 120, 40),
        render_to_buffer(app, 200, 60),
    ]
}

#[test]
fn fixed_keys_move_one_cycle() {
    let mut a = app("divergent-loop");
    for (key, want) in [
        (press(KeyCode::Char(' ')), 1),
        (press(KeyCode::Char('n')), 2),
        (press(KeyCode::Right), 3),
        (press(KeyCode::Left), 2),
        (press(KeyCode::Char('p')), 1),
    ] {
        a.handle_key(key);
        assert_eq!(a.cycle(), want, "{key:?}");
        let text = buffer_text(&render_to_buffer(&a, 80, 24));
        assert!(text.contains(&format!(" cycle {want} ")), "{text}");
    }
}

#[test]
fn key_releases_are_ignored() {
    let mut a = app("divergent-loop");
    let mut release = press(KeyCode::Right);
    release.kind = KeyEventKind::Release;
    a.handle_key(release);
    assert_eq!(a.cycle(), 0);
}

#[test]
fn counts_repeat_steps() {
    assert_eq!(after("10n").cycle(), 10);
    assert_eq!(after("10n 5p").cycle(), 5);
    assert_eq!(after("3<Right>").cycle(), 3);
    assert_eq!(after("20n 100p").cycle(), 0);
    // A count past the end stops there.
    assert_eq!(after("99999n").cycle(), 540);
    // Esc drops a count being typed.
    assert_eq!(after("12 <Esc> n").cycle(), 1);
}

#[test]
fn forward_n_then_back_n_shows_the_start_screen() {
    for start in [0u64, 12, 120, 400] {
        let mut a = app("divergent-loop");
        if start > 0 {
            keys(&mut a, &format!("{start}g"));
        }
        let before = screens(&a);
        for n in [1u64, 7, 64, 130] {
            keys(&mut a, &format!("{n}n"));
            keys(&mut a, &format!("{n}p"));
            // The last key's message differs; compare with it cleared.
            keys(&mut a, "<Esc>");
            assert_eq!(a.cycle(), start);
            let after = screens(&a);
            for (b, c) in before.iter().zip(&after) {
                assert_eq!(buffer_text(b), buffer_text(c), "start {start}, n {n}");
            }
        }
    }
}

#[test]
fn forward_back_forward_equals_a_fresh_run() {
    let mut a = app("divergent-loop");
    for c in [5u64, 13, 130, 412, 413, 500] {
        keys(&mut a, &format!("{}g", c + 37));
        keys(&mut a, "37p");
        keys(&mut a, "<Esc>");
        let mut fresh = app("divergent-loop");
        for _ in 0..c {
            fresh.handle_key(press(KeyCode::Right));
        }
        keys(&mut fresh, "<Esc>");
        assert_eq!(a.cycle(), c);
        for (x, y) in screens(&a).iter().zip(&screens(&fresh)) {
            assert_eq!(x, y, "cycle {c}");
        }
        keys(&mut a, "n <Esc>");
        keys(&mut fresh, "n <Esc>");
        for (x, y) in screens(&a).iter().zip(&screens(&fresh)) {
            assert_eq!(x, y, "cycle {}", c + 1);
        }
    }
}

#[test]
fn go_to_cycle_restart_and_end() {
    assert_eq!(after("g 120 <Enter>").cycle(), 120);
    assert_eq!(after("120g").cycle(), 120);
    assert_eq!(after("g 12 <Backspace> 5 <Enter>").cycle(), 15);
    assert_eq!(after("g 12 <Esc>").cycle(), 0);
    assert_eq!(after("50n R").cycle(), 0);
    assert_eq!(after("50n <Home>").cycle(), 0);
    assert_eq!(after("<End>").cycle(), 540);
    assert_eq!(after("G").cycle(), 540);
    let a = after("<End> n");
    assert_eq!(a.cycle(), 540);
    assert!(
        a.message()
            .is_some_and(|m| m.text.contains("finished at cycle 540"))
    );
    // The prompt takes digits only; `q` there is not quit.
    let a = after("g 1q2 <Enter>");
    assert_eq!(a.cycle(), 12);
    assert!(!a.should_quit());
}

#[test]
fn step_until_the_focused_warp_issues() {
    // w0 issues S2R in cycle 0, then IMAD in cycle 4 (stall count 4),
    // while w1..w3 issue their S2R in cycles 1..3.
    let a = after("n s");
    assert_eq!(a.cycle(), 5);
    let m = a.message().expect("a message");
    assert!(m.text.starts_with("w0 issued /*0010*/ IMAD"), "{}", m.text);
    // Three issues of w1: S2R (1), IMAD (5), LDG (9).
    assert_eq!(after("n w 3s").cycle(), 10);
}

#[test]
fn runs_stop_at_divergence_reconvergence_breakpoint_and_end() {
    // The first divergent branch: w0's `@P0 BRA loop` in cycle 412.
    let a = after("d");
    assert_eq!(a.cycle(), 413);
    let last = a.machine().issues();
    assert!(last.iter().any(|r| r.diverged && r.warp == 0 && r.pc == 8));
    // The second is w1's, in the same loop trip.
    let a = after("2d");
    assert!(
        a.machine()
            .issues()
            .iter()
            .any(|r| r.diverged && r.warp == 1)
    );
    // Reconvergence: some issue rejoins lanes; it comes after a split.
    let a = after("r");
    assert!(a.machine().issues().iter().any(|r| r.reconverged));
    assert!(a.cycle() > 413);
    // A breakpoint at /*0090*/ (the first instruction after the loop):
    // the run stops when the first warp issues it, then at the second.
    let mut a = after("<Tab> 9j b");
    assert_eq!(a.breakpoints().iter().copied().collect::<Vec<_>>(), vec![9]);
    keys(&mut a, "c");
    assert_eq!(a.pc_counters()[9].executions, 1);
    assert!(a.machine().issues().iter().any(|r| r.pc == 9));
    keys(&mut a, "c");
    assert_eq!(a.pc_counters()[9].executions, 2);
    // Toggling it off again: `c` has nothing to stop at and says so,
    // staying where it is.
    let at = a.cycle();
    keys(&mut a, "b c");
    assert_eq!(a.cycle(), at);
    assert!(!a.is_running());
    assert!(
        a.message()
            .is_some_and(|m| m.text.starts_with("no breakpoint set")),
        "{:?}",
        a.message()
    );
    assert_eq!(after("e").cycle(), 540);
    // `warpstep run divergent-loop`: 28 divergent branches, 540 cycles.
    // Past the 28th, `d` runs to the end and says it found none.
    let a = after("28d");
    assert!(a.cycle() < 540);
    assert!(a.machine().issues().iter().any(|r| r.diverged));
    let a = after("28d d");
    assert_eq!(a.cycle(), 540);
    assert_eq!(
        a.message().map(|m| m.text.as_str()),
        Some("no divergence until the end (cycle 540)")
    );
}

#[test]
fn animated_runs_stop_where_instant_ones_do() {
    let opts = Options {
        animate: true,
        ..Options::default()
    };
    for (script, want) in [("d", 413u64), ("e", 540)] {
        for speed in ["", "+++", "-", "+++++++++"] {
            let mut a = app_opts("divergent-loop", opts);
            keys(&mut a, speed);
            keys(&mut a, script);
            assert!(a.is_running());
            let mut ticks = 0;
            while a.is_running() {
                a.tick();
                ticks += 1;
                assert!(ticks < 10_000);
            }
            assert_eq!(a.cycle(), want, "{script} at speed {speed:?}");
        }
    }
    // `s` runs fast: done within its key press here.
    let mut a = app_opts("divergent-loop", opts);
    keys(&mut a, "n s");
    assert!(!a.is_running());
    assert_eq!(a.cycle(), 5);
}

#[test]
fn any_key_stops_a_run_and_speed_keys_do_not() {
    let opts = Options {
        animate: true,
        ..Options::default()
    };
    let mut a = app_opts("divergent-loop", opts);
    // From the top speed (paced by wall time) down to 60 cycles/s.
    keys(&mut a, "- - - - - - - e");
    a.tick();
    a.tick();
    let at = a.cycle();
    assert_eq!(at, 2);
    assert!(at > 0 && at < 540);
    keys(&mut a, "+ -");
    assert!(a.is_running());
    assert_eq!(a.cycle(), at);
    keys(&mut a, "x");
    assert!(!a.is_running());
    a.tick();
    assert_eq!(a.cycle(), at);
    assert!(
        a.message()
            .is_some_and(|m| m.text == format!("stopped at cycle {at}"))
    );
}

#[test]
fn quit_keys() {
    assert!(after("q").should_quit());
    let mut a = app("divergent-loop");
    a.handle_key(ctrl('c'));
    assert!(a.should_quit());
    // Ctrl-C also quits in the middle of a prompt and of a run.
    assert!({
        let mut a = after("g 12");
        a.handle_key(ctrl('c'));
        a.should_quit()
    });
    let mut a = app_opts(
        "divergent-loop",
        Options {
            animate: true,
            ..Options::default()
        },
    );
    keys(&mut a, "e");
    a.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(a.should_quit());
    // `q` quits during a run too (it does not merely stop it).
    let mut a = app_opts(
        "divergent-loop",
        Options {
            animate: true,
            ..Options::default()
        },
    );
    keys(&mut a, "e q");
    assert!(a.should_quit());
}

#[test]
fn focus_warp_and_lane_selection() {
    let a = after("12n");
    assert_eq!(a.selected_warp(), 0);
    assert_eq!(after("12n w").selected_warp(), 1);
    assert_eq!(after("12n W").selected_warp(), 3);
    assert_eq!(after("12n 5w").selected_warp(), 1);
    // Up/down pick warps in the grid, lanes in the lane pane.
    assert_eq!(after("12n jj").selected_warp(), 2);
    let a = after("12n <BackTab> jjj");
    assert_eq!(a.focus(), Pane::Lanes);
    assert_eq!(a.selected_lane(), 3);
    assert_eq!(after("12n ,").selected_lane(), 31);
    assert_eq!(after("12n 33.").selected_lane(), 1);
    let a = after("12n w 5.");
    let lv = a.lane_view().expect("w1 is resident");
    // Lane 5 of w1 is thread 37; after S2R, R0 holds the thread index.
    assert_eq!((lv.warp, lv.lane, lv.tid, lv.regs[0]), (1, 5, 37, 37));
    // Tab walks every pane and comes back.
    let mut a = app("divergent-loop");
    let mut seen = vec![a.focus()];
    for _ in 0..6 {
        keys(&mut a, "<Tab>");
        seen.push(a.focus());
    }
    assert_eq!(seen.first(), seen.last());
    // Without line info the source pane is not shown, so Tab skips it.
    let shown: Vec<Pane> = Pane::ORDER
        .into_iter()
        .filter(|&p| p != Pane::Source)
        .collect();
    assert_eq!(shown, seen[..6].to_vec());
}

#[test]
fn the_listing_follows_the_focused_warp() {
    let a = after("120n");
    // Every warp waits at ISETP (/*0070*/) on the long scoreboard.
    assert_eq!(a.cursor(), 7);
    assert!(a.follows());
    let a = after("120n <Tab> kk");
    assert_eq!(a.cursor(), 5);
    assert!(!a.follows());
    let a = after("120n <Tab> kk f");
    assert_eq!(a.cursor(), 7);
    let a = after("120n <Tab> <PageDown>");
    assert_eq!(a.cursor(), 11);
}

#[test]
fn help_and_about_toggle() {
    assert_eq!(after("?").overlay(), Overlay::Help);
    assert_eq!(after("??").overlay(), Overlay::None);
    assert_eq!(after("? <Esc>").overlay(), Overlay::None);
    assert_eq!(after("i").overlay(), Overlay::About);
    assert_eq!(after("? i").overlay(), Overlay::About);
    // A step closes the window and steps.
    let a = after("? n");
    assert_eq!((a.overlay(), a.cycle()), (Overlay::None, 1));
    let text = buffer_text(&render_to_buffer(&after("?"), 80, 24));
    for (k, d) in warpstep::tui::keys::HELP {
        assert!(text.contains(k) && text.contains(d), "help lacks {k} {d}");
    }
}

#[test]
fn ascii_mode_draws_only_ascii() {
    let odd_name = "name: \"ünïcode ☃ name 日本\"\nlaunch: {threads: 20}\nprogram: |\n  EXIT\n";
    for (arg, script) in [
        ("divergent-loop", "d"),
        ("divergent-loop", "120n ?"),
        ("divergent-loop", "i"),
        ("divergent-loop", "e"),
        (odd_name, "n"),
    ] {
        let mut a = app_opts(
            arg,
            Options {
                ascii: true,
                ..Options::default()
            },
        );
        keys(&mut a, script);
        for (w, h) in [(80, 24), (120, 40), (200, 60), (50, 10)] {
            let text = buffer_text(&render_to_buffer(&a, w, h));
            assert!(text.is_ascii(), "{script} at {w}x{h}:\n{text}");
        }
    }
}

#[test]
fn no_color_draws_no_colour() {
    let mut a = app_opts(
        "divergent-loop",
        Options {
            color: false,
            ..Options::default()
        },
    );
    keys(&mut a, "d");
    for (w, h) in [(80, 24), (200, 60)] {
        let buf = render_to_buffer(&a, w, h);
        for cell in &buf.content {
            assert_eq!(cell.fg, ratatui::style::Color::Reset, "{cell:?}");
            assert_eq!(cell.bg, ratatui::style::Color::Reset, "{cell:?}");
        }
    }
    // With colour, some cells are coloured: the check above can fail.
    let mut a = app("divergent-loop");
    keys(&mut a, "d");
    let buf = render_to_buffer(&a, 80, 24);
    assert!(
        buf.content
            .iter()
            .any(|c| c.fg != ratatui::style::Color::Reset)
    );
}

#[test]
fn control_characters_never_reach_the_screen() {
    let yaml = "name: \"evil\\u001b]0;title\\u0007 name\\r\"\n\
                description: \"line\\u001b[2J one\\ttab\\u202e\"\n\
                launch: {threads: 32}\nprogram: |\n  EXIT\n";
    let mut a = app(yaml);
    keys(&mut a, "n i");
    for (w, h) in [(80, 24), (200, 60)] {
        let buf = render_to_buffer(&a, w, h);
        for cell in &buf.content {
            assert!(
                !cell
                    .symbol()
                    .chars()
                    .any(|c| c.is_control() || c == '\u{202e}'),
                "{:?}",
                cell.symbol()
            );
        }
        let text = buffer_text(&buf);
        // Shown as escapes (by hand from `char::escape_default`), not sent.
        assert!(text.contains("evil\\u{1b}]0;title\\u{7} name"), "{text}");
    }
}

#[test]
fn the_too_small_screen_keeps_the_cycle() {
    let a = after("7n");
    let text = buffer_text(&render_to_buffer(&a, 79, 24));
    assert!(text.contains("enlarge the terminal to at least 80x24"));
    assert!(text.contains("cycle 7"));
    let text = buffer_text(&render_to_buffer(&a, 80, 23));
    assert!(text.contains("enlarge the terminal"));
    // Resizing back shows the panes again, from the same state.
    let text = buffer_text(&render_to_buffer(&a, 80, 24));
    assert!(text.contains("Mask grid") && text.contains(" cycle 7 "));
    // Degenerate sizes draw without panicking.
    for (w, h) in [(0, 0), (1, 1), (3, 2), (200, 3)] {
        render_to_buffer(&a, w, h);
    }
}

#[test]
fn every_required_pane_is_on_the_80x24_screen() {
    let text = buffer_text(&render_to_buffer(&after("12n"), 80, 24));
    for title in [
        "Mask grid",
        "Scoreboards",
        "Counters",
        "Ready queue",
        "Program",
        " cycle 12 ",
    ] {
        assert!(text.contains(title), "{title} missing:\n{text}");
    }
    let text = buffer_text(&render_to_buffer(&after("12n"), 200, 60));
    for title in ["Lanes · R2 of w0", "About"] {
        assert!(text.contains(title), "{title} missing:\n{text}");
    }
}

#[test]
fn a_deadlock_shows_in_the_status_line() {
    // its: lanes 4-7 wait at BSYNC B0 for lanes 0-3, which wait at
    // WARPSYNC for lanes 4-7. No lane can move again.
    let yaml = "name: deadlock\nmachine: {warp_width: 8, convergence: its}\n\
                launch: {threads: 8}\ninputs: {R0: lane}\nprogram: |\n  \
                BSSY B0, join\n  ISETP.LT.AND P0, PT, R0, 4, PT\n  @P0 BRA a\n  \
                BSYNC B0\n  EXIT\n  a:\n  WARPSYNC 0xff\n  join:\n  BSYNC B0\n  EXIT\n";
    let mut a = app(yaml);
    keys(&mut a, "e");
    let stop = a.machine().error().expect("a deadlock").to_string();
    assert!(stop.starts_with("deadlock at cycle"), "{stop}");
    let end = a.cycle();
    let text = buffer_text(&render_to_buffer(&a, 200, 60));
    assert!(text.contains("stopped: deadlock at cycle"), "{text}");
    // Stepping back from the stop and forward again stops at the same cycle.
    keys(&mut a, "3p 3n");
    assert_eq!(a.cycle(), end);
    assert!(a.machine().error().is_some());
}

#[test]
fn max_cycles_stops_the_run_with_its_error() {
    let yaml = "name: never ends\nmachine: {max_cycles: 1000}\nlaunch: {threads: 32}\n\
                program: |\n  loop:\n  BRA loop\n";
    let mut a = app(yaml);
    keys(&mut a, "e");
    assert_eq!(a.cycle(), 1000);
    assert!(
        a.message()
            .is_some_and(|m| m.text.contains("max_cycles (1000)"))
    );
    let stopped = screens(&a);
    // The same state reached by stepping one cycle at a time, and by
    // going back and forward.
    let mut b = app(yaml);
    keys(&mut b, "999n n n");
    assert_eq!(b.cycle(), 1000);
    keys(&mut a, "<Esc>");
    keys(&mut b, "<Esc>");
    assert_eq!(screens(&a), screens(&b));
    keys(&mut b, "500p 600n <Esc>");
    assert_eq!(screens(&a), screens(&b));
    let text = buffer_text(&stopped[0]);
    assert!(text.contains("max_cycles"), "{text}");
}

/// A long wait says how long and which keys go past it. `load-scattered`:
/// its FADD waits for the 32-line load until cycle 656 (the scenario's
/// 658 cycles end with EXIT at 657, one cycle after the FADD, S01), so
/// at cycle 200 (cycles 0..199 simulated, nothing issued in 199) w0 has
/// 656 - 200 = 456 cycles to go, on the long scoreboard.
#[test]
fn an_idle_cycle_in_a_long_wait_suggests_s_and_d() {
    let mut a = app("load-scattered");
    keys(&mut a, "g200<Enter>");
    assert_eq!(a.cycle(), 200);
    let screen = buffer_text(&render_to_buffer(&a, 200, 60));
    assert!(
        screen.contains(
            "cycle 199: no warp issued; w0 waits 456 more cycles (long_scoreboard): s to its \
             next issue, d to a divergence"
        ),
        "{screen}"
    );
    // Two cycles in, S2R's short wait is below the hint's 4 cycles: no hint.
    let mut a = app("load-scattered");
    keys(&mut a, "n n");
    let screen = buffer_text(&render_to_buffer(&a, 200, 60));
    assert!(!screen.contains("more cycles ("), "{screen}");
}
