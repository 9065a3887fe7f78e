//! Tours (`tour:`): the built-in tours played headless reach the cycles
//! their captions were written for, the keys move through a tour as the
//! docs say, `warpstep test` names a step whose `expect:` fails, a bad
//! tour is refused at load with its position, the caption sits away from
//! what a step points at, and `record --tour` writes a chapter per step.

mod support;
use support::{BIN, load_scenario};

use std::ops::RangeInclusive;
use std::process::Command;

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use warpstep::record::cast::{self, EventKind};
use warpstep::record::page::chapters;
use warpstep::scenario::{Origin, Scenario};
use warpstep::tui::app::{Pane, play_tour_headless};
use warpstep::tui::keys::parse_keys;
use warpstep::tui::{App, Options};

/// Every built-in tour and the cycle each of its steps leaves the machine
/// at, computed by hand from the scenario's program and the model's
/// latencies (the derivations are the comments beside each step's
/// `expect:` in scenarios/*.yaml; a `cycle: N` step is at N by definition).
const TOURS: &[(&str, &[u64])] = &[
    // BRA of w0 at 64 x 4 + 0 = 256; the straddling warp's BRA at
    // 538752 + 24 x 4 + 18 = 538866; the last EXIT at 539390.
    ("bounds-check-large-grid", &[257, 538867, 539391]),
    // ISETP at 0 (S04), BRA at 4; else FADD at 5; FADD at 9, BRA join
    // at 10; EXIT at 13.
    ("if-else-branch-short", &[5, 6, 11, 14]),
    // BRA at 15; cycle 18; both LDGs overlap: the end at 426.
    ("latency-split-its", &[16, 18, 427]),
    // BRA at 15; cycle 18; the even LDG waits for the odd side: 420; the
    // end at 826.
    ("latency-split-stack", &[16, 18, 421, 827]),
    // trip 1's BRA at 4 + 9 = 13, trip 2's at 23; cycle 75; EXIT at 84.
    ("loop-trip-count", &[14, 24, 75, 85]),
    // LDG a at 13, LDG b at 14; cycle 100; FADD at 421; EXIT at 426.
    ("scoreboard-two-loads", &[14, 15, 100, 422, 427]),
];

#[test]
fn every_builtin_tour_reaches_its_hand_computed_cycles() {
    let with_tours: Vec<&str> = warpstep::builtin::names()
        .filter(|n| !load_scenario(n).tour.is_empty())
        .collect();
    let listed: Vec<&str> = TOURS.iter().map(|(n, _)| *n).collect();
    assert_eq!(with_tours, listed, "a new built-in tour belongs in TOURS");
    for (name, cycles) in TOURS {
        let steps = play_tour_headless(load_scenario(name)).expect("links");
        let got: Vec<u64> = steps.iter().map(|s| s.cycle).collect();
        assert_eq!(&got, cycles, "{name}: the cycle after each step");
        for s in &steps {
            assert!(!s.results.is_empty(), "{name} step {}: checks", s.step + 1);
            for r in &s.results {
                assert!(r.ok, "{name} step {}: {r:?}", s.step + 1);
            }
        }
    }
}

fn app(name: &str) -> App {
    App::new(
        load_scenario(name),
        Options {
            ascii: false,
            color: true,
            animate: false,
        },
    )
    .expect("links")
}

fn press(app: &mut App, script: &str) {
    for k in parse_keys(script).expect("key script") {
        app.handle_key(k);
        app.finish_run();
    }
}

#[test]
fn keys_move_through_a_tour_and_leave_it() {
    // if-else-branch-short: steps at cycles 5, 6, 11, 14 (TOURS).
    let mut a = app("if-else-branch-short");
    let else_pc = a
        .scenario()
        .program
        .labels
        .iter()
        .find(|l| l.name == "else")
        .expect("label else")
        .target;
    press(&mut a, "t");
    assert_eq!((a.tour_step(), a.cycle()), (Some(0), 5));
    assert_eq!((a.focus(), a.selected_warp()), (Pane::Grid, 0));
    press(&mut a, "Space");
    assert_eq!((a.tour_step(), a.cycle()), (Some(1), 6));
    // `focus: {pane: program, line: 26}`: line 26 is the else FADD, the
    // first instruction after the label.
    assert_eq!((a.focus(), a.cursor()), (Pane::Program, else_pc));
    press(&mut a, "Backspace");
    assert_eq!((a.tour_step(), a.cycle()), (Some(0), 5));
    assert_eq!(a.focus(), Pane::Grid, "going back restores the focus");
    // A stepping key leaves the tour and steps.
    press(&mut a, "n");
    assert_eq!((a.tour_step(), a.cycle()), (None, 6));
    // `t` returns to the step left, as it was played.
    press(&mut a, "t");
    assert_eq!((a.tour_step(), a.cycle()), (Some(0), 5));
    press(&mut a, "Space Space Space");
    assert_eq!((a.tour_step(), a.cycle()), (Some(3), 14));
    assert_eq!(a.focus(), Pane::Counters);
    // Space at the last step stays and says so.
    press(&mut a, "Space");
    assert_eq!((a.tour_step(), a.cycle()), (Some(3), 14));
    let said = a.message().map(|m| m.text.clone()).unwrap_or_default();
    assert!(said.contains("last step"), "{said}");
    // Esc leaves; `t` comes back to step 4.
    press(&mut a, "Esc");
    assert_eq!(a.tour_step(), None);
    press(&mut a, "t");
    assert_eq!((a.tour_step(), a.cycle()), (Some(3), 14));
}

#[test]
fn t_without_a_tour_says_so() {
    let mut a = app("divergent-loop");
    press(&mut a, "t");
    assert_eq!((a.tour_step(), a.cycle()), (None, 0));
    let said = a.message().map(|m| m.text.clone()).unwrap_or_default();
    assert!(said.contains("has no tour"), "{said}");
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tours");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(format!("{}-{name}", std::process::id()))
}

fn warpstep(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the warpstep binary runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn warpstep_test_names_the_step_whose_expect_fails() {
    let text = warpstep::builtin::text("if-else-branch-short").expect("built-in");
    // Step 2 leaves the machine at cycle 6 (the else FADD issues at 5);
    // the broken tour says 7.
    assert_eq!(text.matches("      cycles: 6\n").count(), 1);
    let broken = text.replace("      cycles: 6\n", "      cycles: 7\n");
    let file = scratch("broken-tour.yaml");
    std::fs::write(&file, broken).expect("write");
    let path = file.to_str().expect("utf-8 path");
    let (code, out, err) = warpstep(&["test", path]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(
            "tour step 2/4 (The taken side runs first: lanes 16..31 run the else FADD, \
             while) at cycle 6: cycles expected 7 got 6"
        ),
        "{out}"
    );
    assert!(out.contains("0 passed, 1 failed"), "{out}");
    // The built-in as written passes.
    let (code, out, _) = warpstep(&["test", "if-else-branch-short"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn tour_and_record_tour_refuse_a_scenario_without_one() {
    let (code, _, err) = warpstep(&["tour", "divergent-loop"]);
    assert_eq!(code, 2);
    assert!(err.contains("builtin:divergent-loop has no tour"), "{err}");
    assert!(err.contains("`warpstep divergent-loop` opens it"), "{err}");
    let out = scratch("none.cast");
    let (code, _, err) = warpstep(&[
        "record",
        "divergent-loop",
        "--tour",
        "-o",
        out.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--tour: builtin:divergent-loop has no tour"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
}

/// A scenario of 32 lanes whose tour's step 1 is `step`; line 8 holds the
/// step.
fn with_step(step: &str) -> String {
    format!(
        "name: t\nlaunch: {{threads: 32}}\nprogram: |\n  S2R R0, SR_LANEID\n  loop:\n  EXIT\n\
         tour:\n{step}\n"
    )
}

/// The load error of `text`: its line, column, and rendering.
fn refused(text: &str) -> (u32, u32, String) {
    match Scenario::from_text(text, Origin::Builtin("case".into())) {
        Ok(_) => panic!("loads, but should not:\n{text}"),
        Err(e) => (e.line, e.column, e.to_string()),
    }
}

#[test]
fn a_bad_tour_is_refused_at_its_position() {
    // Columns counted by hand in line 8 of `with_step`.
    let cases: &[(&str, u32, &[&str])] = &[
        (
            "  - next: end",
            5,
            &[
                "step 1 of `tour` has no `caption`",
                "= hint: a caption says",
            ],
        ),
        (
            "  - {caption: a, next: end, cycle: 3}",
            29,
            &["step 1 of `tour` has both `next` and `cycle`", "split it"],
        ),
        (
            "  - captoin: a",
            5,
            &["unknown key `captoin`", "did you mean `caption`?"],
        ),
        (
            "  - {caption: a, keys: \"3n q\"}",
            24,
            &["`tour.1.keys` presses q, which quits the stepper"],
        ),
        (
            "  - {caption: a, keys: \"3n x\"}",
            24,
            &["presses x, which writes files"],
        ),
        (
            "  - {caption: a, pc: 0x18}",
            22,
            &[
                "`tour.1.pc` 0x18 is not the address of an instruction",
                "0x0 to 0x10 in steps of 0x10",
            ],
        ),
        (
            "  - {caption: a, pc: lop}",
            22,
            &["the program has no label `lop`", "did you mean `loop`?"],
        ),
        (
            // Line 5 is the label `loop:`, which holds no instruction.
            "  - {caption: a, next: end, focus: {line: 5}}",
            43,
            &["`tour.1.focus.line`: line 5 has no instruction"],
        ),
        (
            "  - {caption: a, next: end, focus: {pane: source}}",
            43,
            &["`tour.1.focus.pane`: the source pane needs line info"],
        ),
        (
            "  - {caption: a, next: end, focus: {warp: 1}}",
            43,
            &["`tour.1.focus.warp` is 1, out of range", "0 to 0"],
        ),
        (
            "  - {caption: a, next: sideways}",
            24,
            &[
                "`tour.1.next` cannot be `sideways`",
                "divergence, reconvergence",
            ],
        ),
        (
            "  - {caption: \"\", next: end}",
            15,
            &["`tour.1.caption` is empty"],
        ),
        (
            "  - {caption: a, next: end, expect: {cycels: 3}}",
            38,
            &["cycels"],
        ),
        (
            "  - 3",
            5,
            &["step 1 of `tour` must be a mapping, found an integer"],
        ),
        (
            "  - {caption: a}",
            5,
            &["step 1 of `tour` does not move", "`keys: \"\"` stays"],
        ),
    ];
    for (step, column, needles) in cases {
        let text = with_step(step);
        let (line, col, shown) = refused(&text);
        assert_eq!((line, col), (8, *column), "{shown}");
        assert!(
            shown.contains(&format!("builtin:case:8:{column}")),
            "{shown}"
        );
        for n in *needles {
            assert!(shown.contains(n), "missing {n:?} in:\n{shown}");
        }
    }
}

#[test]
fn a_tour_is_bounded() {
    // 65 steps: the 65th is refused, at its line (8 + 64).
    let many: String = (0..65).map(|_| "  - {caption: a, keys: n}\n").collect();
    let (line, col, shown) = refused(&with_step(many.trim_end()));
    assert_eq!((line, col), (72, 5), "{shown}");
    assert!(shown.contains("`tour` has 65 steps"), "{shown}");
    assert!(shown.contains("at most 64 steps"), "{shown}");
    // A caption of 9 lines.
    let caption: String = (1..=9).map(|i| format!("      line {i}\n")).collect();
    let (line, col, shown) = refused(&with_step(&format!(
        "  - next: end\n    caption: |\n{caption}"
    )));
    // At the block's first line of text: 9 x 6 characters and 8 line ends.
    assert_eq!((line, col), (10, 7), "{shown}");
    assert!(shown.contains("is 62 characters on 9 lines"), "{shown}");
    // Keys longer than 200 characters.
    let long = "n ".repeat(101);
    let (line, col, shown) = refused(&with_step(&format!("  - {{caption: a, keys: \"{long}\"}}")));
    assert_eq!((line, col), (8, 24), "{shown}");
    assert!(shown.contains("longer than 200 characters"), "{shown}");
}

fn screen(app: &App, w: u16, h: u16) -> TestBackend {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| app.draw(f)).expect("draws");
    t.backend().clone()
}

fn rows(backend: &TestBackend) -> Vec<String> {
    let buf = backend.buffer();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

/// The rows the caption box takes: from its title row to its bottom
/// border.
fn caption_rows(rows: &[String]) -> RangeInclusive<usize> {
    let top = rows
        .iter()
        .position(|r| r.contains(" tour step "))
        .expect("a caption");
    let bottom = (top + 1..rows.len())
        .find(|&y| rows[y].contains('┛') || rows[y].contains('╯') || rows[y].contains('┘'))
        .unwrap_or(rows.len() - 1);
    top..=bottom
}

/// The screen at `w`x`h`, its rows, and the rows of its caption box.
fn captioned(app: &App, w: u16, h: u16) -> (TestBackend, Vec<String>, RangeInclusive<usize>) {
    let b = screen(app, w, h);
    let r = rows(&b);
    let cap = caption_rows(&r);
    (b, r, cap)
}

#[test]
fn the_caption_sits_away_from_what_the_step_points_at() {
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let mut a = app("if-else-branch-short");
        // Step 1 focuses the mask grid, at the top: the caption is in the
        // lower half and w0's row is still on screen above it.
        press(&mut a, "t");
        let (b, r, cap) = captioned(&a, w, h);
        assert!(
            *cap.start() >= usize::from(h) / 2,
            "{w}x{h}:\n{}",
            r.join("\n")
        );
        let w0 = r.iter().position(|l| l.contains(" w0 ")).expect("w0's row");
        assert!(w0 < *cap.start(), "{w}x{h}: w0's row is covered");
        assert!(r[*cap.start()].contains("step 1/4"));
        assert_snapshot!(format!("if_else_step_1_{w}x{h}"), b);
        // Step 4 focuses the counters, at the bottom: the caption is at
        // the top, and the counters' SIMD efficiency shows below it.
        press(&mut a, "Space Space Space");
        let (b, r, cap) = captioned(&a, w, h);
        assert!(
            *cap.end() < usize::from(h) / 2 + 2,
            "{w}x{h}:\n{}",
            r.join("\n")
        );
        assert!(r[*cap.start()].contains("step 4/4"));
        assert!(
            r[*cap.end() + 1..].iter().any(|l| l.contains("0.667")),
            "{w}x{h}: the counters are covered:\n{}",
            r.join("\n")
        );
        assert_snapshot!(format!("if_else_step_4_{w}x{h}"), b);
    }
}

#[test]
fn record_tour_writes_a_chapter_per_step_and_replays_to_its_end() {
    let out = scratch("tour.cast");
    let path = out.to_str().expect("utf-8 path");
    let (code, stdout, err) = warpstep(&[
        "record",
        "if-else-branch-short",
        "--tour",
        "--size",
        "100x30",
        "-o",
        path,
    ]);
    assert_eq!(code, 0, "{err}");
    // `t` and three Spaces: four keys, at the last step's cycle.
    assert!(stdout.contains("recorded 4 keys"), "{stdout}");
    assert!(stdout.contains("ends at cycle 14"), "{stdout}");
    let text = std::fs::read_to_string(&out).expect("the cast");
    let c = cast::parse(path, &text).expect("parses");
    let labels: Vec<String> = chapters(&c).into_iter().map(|ch| ch.label).collect();
    let sc = load_scenario("if-else-branch-short");
    let titles: Vec<String> = sc.tour.iter().map(|s| s.title().to_string()).collect();
    assert_eq!(
        labels, titles,
        "one chapter per step, titled by its caption"
    );
    assert_eq!(
        labels[0],
        "One warp of 32 lanes: R0 is the lane number. The ISETP sets P0 for"
    );
    // The captions are in the frames, as the viewer saw them: the screen
    // the cast's output draws at each chapter holds that step's caption.
    let mut term = vt100::Parser::new(30, 100, 0);
    let mut chapter = 0;
    for e in &c.events {
        match &e.kind {
            EventKind::Output(bytes) => term.process(bytes.as_bytes()),
            EventKind::Marker { .. } => {
                let shown = term.screen().contents();
                assert!(
                    shown.contains(&format!("tour step {}/4", chapter + 1)),
                    "chapter {chapter}:\n{shown}"
                );
                assert!(shown.contains(&titles[chapter]), "{shown}");
                chapter += 1;
            }
            _ => {}
        }
    }
    assert_eq!(chapter, 4);
    let replayed = warpstep::record::replay_headless(path, &text).expect("replays");
    assert_eq!((replayed.tour_step(), replayed.cycle()), (Some(3), 14));
}
