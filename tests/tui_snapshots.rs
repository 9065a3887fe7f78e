//! Snapshots of the stepper's screen on `TestBackend`, every pane at 80x24
//! (compact layout) and 200x60 (full layout), from fixed scenarios and
//! cycles. Each snapshot was read against the numbers of
//! `warpstep run divergent-loop` (and the inline scenarios' reports); the
//! comments say what to check.

mod support;
use support::load_scenario;

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use warpstep::engine::view::WarpView;
use warpstep::tui::keys::parse_keys;
use warpstep::tui::{App, Options};

/// An 8-lane `its` warp split 4/4, meeting again at `BSYNC B0`.
const ITS: &str = "\
name: its if/else with a convergence barrier
description: |
  Eight lanes split 4/4 at a branch; BSSY/BSYNC make them meet again.
machine: {warp_width: 8, convergence: its}
launch: {threads: 8}
inputs: {R0: \"lane\"}
program: |
  BSSY B0, join
  ISETP.LT.AND P0, PT, R0, 4, PT
  @P0 BRA then
  FADD R1, R1, 2.0
  FADD R1, R1, 2.0
  BRA join
  then:
  FADD R1, R1, 1.0
  join:
  BSYNC B0
  EXIT
";

/// Six threads of an 8-lane warp read a 4-element buffer: lanes 4 and 5
/// fault, lanes 6 and 7 never launched. The name carries an escape
/// sequence that must not reach the screen.
const FAULTS: &str = "\
name: \"out of bounds\\u001b[31m read\"
machine: {warp_width: 8}
launch: {threads: 6}
memory:
  data: {type: u32, len: 4}
constants: {0x160: data}
program: |
  S2R R0, SR_TID.X
  IMAD R4, R0, 4, c[0x0][0x160]
  LDG.E R5, [R4]
  EXIT
";

/// 64 warps on two schedulers (more rows than the grid has).
const MANY: &str = "\
name: 64 warps, two schedulers, gto
machine: {warp_width: 32, schedulers: 2, policy: gto, max_warps_per_sm: 64}
launch: {threads: 2048}
inputs: {R5: \"tid % 3 + 1\"}
program: |
  loop:
  IADD3 R2, R2, 1, RZ
  ISETP.LT.AND P0, PT, R2, R5, PT
  @P0 BRA loop
  EXIT
";

/// One 64-lane wavefront whose lanes split by parity.
const WAVE64: &str = "\
name: 64-lane wavefront, odd/even split
machine: {warp_width: 64}
launch: {threads: 64}
inputs: {R0: \"lane % 2\"}
program: |
  ISETP.EQ.AND P0, PT, R0, 1, PT
  @P0 BRA odd
  FADD R1, R1, 2.0
  BRA join
  odd:
  FADD R1, R1, 1.0
  join:
  EXIT
";

fn app_with(arg: &str, keys: &str, ascii: bool) -> App {
    let opts = Options {
        ascii,
        color: true,
        animate: false,
    };
    let mut app = App::new(load_scenario(arg), opts).expect("links");
    for k in parse_keys(keys).expect("key script") {
        app.handle_key(k);
    }
    app
}

fn app(arg: &str, keys: &str) -> App {
    app_with(arg, keys, false)
}

/// The resident warp `w` as the panes see it.
fn warp(app: &App, w: u32) -> &WarpView {
    app.views()
        .iter()
        .find(|v| v.warp == w)
        .unwrap_or_else(|| panic!("w{w} is not resident"))
}

fn screen(app: &App, w: u16, h: u16) -> TestBackend {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| app.draw(f)).expect("draws");
    t.backend().clone()
}

// divergent-loop, `warpstep run divergent-loop`: 540 cycles, 160 issued,
// SIMD 0.625, branch efficiency 0.125 (28 of 32 branches divergent).

#[test]
fn divergent_loop_cycle_0() {
    // Nothing simulated: no warp resident, one block waiting to launch.
    let a = app("divergent-loop", "");
    assert_snapshot!("divergent_loop_c0_80x24", screen(&a, 80, 24));
    assert_snapshot!("divergent_loop_c0_200x60", screen(&a, 200, 60));
}

#[test]
fn divergent_loop_cycle_12() {
    // lrr over 4 warps: S2R at 0-3, IMAD at 4-7 (S04), LDG at 8-11. w3
    // issued the LDG in cycle 11; w0 waits 396 more cycles on SB0 (400 -
    // 4); every warp issued 3 instructions with 32 lanes (12 in all).
    let a = app("divergent-loop", "12n");
    assert_eq!(a.cycle(), 12);
    // w0's LDG issued at cycle 8 with global latency 400: SB0 clears at
    // 408, 408 - 12 = 396 cycles from now.
    assert_eq!(warp(&a, 0).scoreboards[0].cycles_left, 396);
    // 4 warps x 3 instructions, 32 lanes each: 12 issued, 384 lane-work.
    assert_eq!(a.totals().issued, 12);
    assert_eq!(a.totals().thread_inst_executed_pred_on, 12 * 32);
    assert_snapshot!("divergent_loop_c12_80x24", screen(&a, 80, 24));
    assert_snapshot!("divergent_loop_c12_200x60", screen(&a, 200, 60));
}

#[test]
fn divergent_loop_cycle_120() {
    // Every warp stalls at ISETP on the long scoreboard (w0 288 cycles
    // left: 408 - 120); 7 instructions each, all 32 lanes on.
    let a = app("divergent-loop", "120n");
    // SB0 of w0 clears at 408 (LDG at 8 + 400): 408 - 120 = 288 left.
    assert_eq!(warp(&a, 0).scoreboards[0].cycles_left, 288);
    for w in 0..4 {
        // 7 instructions up to the ISETP, each with all 32 lanes on.
        assert_eq!(warp(&a, w).counters.issued, 7, "w{w}");
        assert_eq!(warp(&a, w).counters.thread_inst_executed_pred_on, 7 * 32);
    }
    assert_snapshot!("divergent_loop_c120_80x24", screen(&a, 80, 24));
    assert_snapshot!("divergent_loop_c120_120x40", screen(&a, 120, 40));
    assert_snapshot!("divergent_loop_c120_200x60", screen(&a, 200, 60));
}

#[test]
fn divergent_loop_first_divergence() {
    // w0's first `@P0 BRA loop` splits it: 28 of 32 lanes loop again (the
    // 4 lanes with one trip leave). The SIMT stack holds the loop entry
    // (pc 0050, 28 lanes, reconverging at 0090) over the reconvergence
    // entry (0090, all 32). w0: 9 issued, sum P 284 = 8 x 32 + 28.
    let a = app("divergent-loop", "d");
    let w0 = warp(&a, 0);
    // 8 instructions at 32 lanes, then the split BRA itself at 28.
    assert_eq!(w0.counters.issued, 9);
    assert_eq!(w0.counters.thread_inst_executed_pred_on, 8 * 32 + 28);
    // Stack, bottom first: the reconvergence entry (0x90 = instruction 9,
    // all 32 lanes) under the loop entry (0x50 = 5, the 28 lanes).
    let stack: Vec<(u32, u32)> = w0
        .stack
        .iter()
        .map(|e| (e.pc, e.mask.count_ones()))
        .collect();
    assert_eq!(stack, [(9, 32), (5, 28)]);
    assert_snapshot!("divergent_loop_divergence_80x24", screen(&a, 80, 24));
    assert_snapshot!("divergent_loop_divergence_200x60", screen(&a, 200, 60));
}

#[test]
fn divergent_loop_end() {
    // The totals of the report: 160 issued, 3328 / 3200, SIMD 0.625,
    // branch efficiency 0.125, 28/32 divergent, 20.8 threads per inst.
    let a = app("divergent-loop", "e");
    assert_eq!(a.cycle(), 540);
    // The scenario file's hand-worked totals (its expect: block).
    assert_eq!(a.totals().issued, 160);
    assert_eq!(a.totals().thread_inst_executed, 3328);
    assert_eq!(a.totals().thread_inst_executed_pred_on, 3200);
    assert_eq!(
        (a.totals().branches, a.totals().divergent_branches),
        (32, 28)
    );
    assert_snapshot!("divergent_loop_end_200x60", screen(&a, 200, 60));
}

#[test]
fn its_groups_and_barrier() {
    // After the split: the group at 0060 (lanes 0-3) runs, the group at
    // 0030 (4-7) waits; B0 has all 8 lanes due, none arrived.
    let a = app(ITS, "d");
    let w0 = warp(&a, 0);
    // Groups by instruction index: 0x60 = 6 (`then:`, lanes 0-3) and
    // 0x30 = 3 (the fall-through FADD, lanes 4-7).
    let mut groups: Vec<(u32, u64)> = w0.groups.iter().map(|g| (g.pc, g.lanes)).collect();
    groups.sort();
    assert_eq!(groups, [(3, 0xf0), (6, 0x0f)]);
    assert_eq!(w0.pc, Some(6), "the group at 0060 issues next");
    let b0: Vec<(u8, u64, u64)> = w0
        .barriers
        .iter()
        .map(|b| (b.index, b.participants, b.arrived))
        .collect();
    assert_eq!(b0, [(0, 0xff, 0)]);
    assert_snapshot!("its_split_80x24", screen(&a, 80, 24));
    assert_snapshot!("its_split_200x60", screen(&a, 200, 60));
    // Lanes 0-3 arrived at BSYNC B0 (without issuing it) and wait; the
    // other group runs its path.
    let a = app(ITS, "d 5n");
    assert_eq!(warp(&a, 0).barriers[0].arrived, 0x0f, "lanes 0-3 arrived");
    assert_snapshot!("its_arrived_80x24", screen(&a, 80, 24));
}

#[test]
fn faulted_and_never_launched_lanes() {
    // Cycle 9: the LDG issued in cycle 8 faulted lanes 4 and 5 (`!`);
    // lanes 6 and 7 never launched. The escape in the name is shown as
    // `\u{1b}`, not sent to the terminal.
    let a = app(FAULTS, "9n");
    // Buffer of 4 elements: lanes 4 and 5 (bits 4, 5) read past it; 6
    // threads launch lanes 0-5 only.
    assert_eq!(warp(&a, 0).faulted, 0b11_0000);
    assert_eq!(warp(&a, 0).launched, 0b11_1111);
    assert_snapshot!("faults_80x24", screen(&a, 80, 24));
    assert_snapshot!("faults_200x60", screen(&a, 200, 60));
    // The lane inspector on faulted lane 4.
    let a = app(FAULTS, "9n <BackTab> ....");
    assert_snapshot!("faults_lane4_80x24", screen(&a, 80, 24));
}

#[test]
fn many_warps_scroll_and_two_schedulers() {
    let a = app(MANY, "150n 40w");
    assert_snapshot!("many_warps_80x24", screen(&a, 80, 24));
    assert_snapshot!("many_warps_200x60", screen(&a, 200, 60));
}

#[test]
fn wavefront_of_64_lanes() {
    let a = app(WAVE64, "d");
    assert_snapshot!("wave64_80x24", screen(&a, 80, 24));
    assert_snapshot!("wave64_200x60", screen(&a, 200, 60));
}

#[test]
fn lane_inspector_compact() {
    // Tab x5 focuses the lane pane, which takes the listing's place;
    // lane 5 of w0 at cycle 120: R2 = 1 (i), R5 = 6 (trip count 5 % 8 + 1).
    let a = app("divergent-loop", "120n <Tab><Tab><Tab><Tab><Tab> 5.");
    let lane = a.lane_view().expect("the inspector shows a lane");
    assert_eq!((lane.warp, lane.lane), (0, 5));
    assert_eq!((lane.regs[2], lane.regs[5]), (1, 6));
    assert_snapshot!("lanes_80x24", screen(&a, 80, 24));
}

#[test]
fn program_pane_focused_with_breakpoint() {
    // Cursor moved to /*0090*/ (focus on the listing, 9 down), breakpoint set.
    let a = app("divergent-loop", "<Tab> 9j b");
    assert_snapshot!("program_breakpoint_80x24", screen(&a, 80, 24));
}

#[test]
fn help_and_about_windows() {
    let a = app("divergent-loop", "12n ?");
    assert_snapshot!("help_80x24", screen(&a, 80, 24));
    assert_snapshot!("help_200x60", screen(&a, 200, 60));
    let a = app("divergent-loop", "12n i");
    assert_snapshot!("about_80x24", screen(&a, 80, 24));
}

/// The help's pages after the keys, one per pane: every glyph, mark,
/// abbreviation and stall name the panes draw, each read against the pane
/// it explains (and the stall names against `engine::stats::Reason`). At
/// 80x24 a page taller than the window says it scrolls (`j k`), and `j`
/// scrolls it; `Tab`, the arrows and the digits turn the pages.
#[test]
fn help_pages() {
    let names = [
        "mask_grid",
        "program",
        "scoreboards",
        "counters",
        "ready_queue",
        "lanes_memory",
        "status_line",
    ];
    for (i, name) in names.iter().enumerate() {
        let a = app("divergent-loop", &format!("12n ? {}", i + 2));
        assert_eq!(a.help_page(), i + 1);
        assert_snapshot!(format!("help_{name}_80x24"), screen(&a, 80, 24));
        assert_snapshot!(format!("help_{name}_200x60"), screen(&a, 200, 60));
    }
    let a = app("divergent-loop", "12n ? <Tab> j j");
    assert_eq!((a.help_page(), a.help_scroll()), (1, 2));
    assert_snapshot!("help_mask_grid_scrolled_80x24", screen(&a, 80, 24));
    assert_eq!(app("divergent-loop", "12n ? <Left>").help_page(), 7);
    assert_eq!(
        app("divergent-loop", "12n ? <Right> <Right>").help_page(),
        2
    );
    // Reopened, the help starts at the keys again.
    assert_eq!(app("divergent-loop", "12n ? 3 ? ?").help_page(), 0);
}

#[test]
fn prompt_and_count_in_the_status_line() {
    let a = app("divergent-loop", "g 12");
    assert_snapshot!("goto_prompt_80x24", screen(&a, 80, 24));
}

#[test]
fn ascii_mode() {
    let a = app_with("divergent-loop", "d", true);
    assert_snapshot!("ascii_divergence_80x24", screen(&a, 80, 24));
}

#[test]
fn too_small_terminal() {
    let a = app("divergent-loop", "5n");
    assert_snapshot!("too_small_60x20", screen(&a, 60, 20));
}

/// The corpus's seed kernel for sm_90 with line info (`nvdisasm -g`), one
/// block of 64 threads over n = 40: warp 1's bounds check keeps 8 lanes.
fn seed_scenario(text: bool) -> std::sync::Arc<warpstep::scenario::Scenario> {
    let listing = include_str!("kernels/seed.sm_90.nvdisasm");
    let mut y = String::from(
        "name: seed kernel, source beside SASS\nlaunch: {blocks: 1, block_dim: 64}\n\
         memory:\n  data: {type: f32, len: 64, init: \"i % 4 * 0.25\"}\n\
         args: [data, 40]\nprogram: |\n",
    );
    for l in listing.lines() {
        y.push_str(if l.trim().is_empty() { "" } else { "  " });
        y.push_str(l);
        y.push('\n');
    }
    let mut sc = warpstep::scenario::Scenario::from_text(
        &y,
        warpstep::scenario::Origin::Builtin("seed".into()),
    )
    .expect("the seed scenario loads");
    if text {
        let map = sc.source_map.as_mut().expect("line info");
        assert!(map.set_text("seed.cu", include_str!("kernels/seed.cu").into()));
    }
    std::sync::Arc::new(sc)
}

fn seed_app(text: bool, keys: &str) -> App {
    let mut app = App::new(seed_scenario(text), Options::default()).expect("links");
    for k in parse_keys(keys).expect("key script") {
        app.handle_key(k);
    }
    app
}

#[test]
fn source_pane_beside_the_listing() {
    // At the end of the run (seed.cu, by hand): 2 warps; line 5's three
    // instructions run 2 x 3 = 6 times, SIMD (2 x 64 + 24) / (32 x 6) =
    // 152 / 192 = 0.79 (the @P0 EXIT has only warp 1's 24 out-of-range
    // lanes on); line 7 (the predicated else) runs 2 x 2 = 4 times with
    // the 30 lanes of i % 4 != 3 on (24 + 6) each: 60 / 128 = 0.47; no
    // branches at all, so every divergent count is 0.
    let a = seed_app(true, "e");
    let l5 = a
        .line_counters()
        .iter()
        .find(|c| c.pos.line == 5)
        .expect("line 5");
    assert_eq!((l5.executions, l5.thread_inst_executed_pred_on), (6, 152));
    let l7 = a
        .line_counters()
        .iter()
        .find(|c| c.pos.line == 7)
        .expect("line 7");
    assert_eq!((l7.executions, l7.thread_inst_executed_pred_on), (4, 60));
    assert_snapshot!("source_end_200x60", screen(&a, 200, 60));
    // Mid-run, focus on the source pane (Tab from the grid past the
    // listing), its cursor on line 7 (rows 1..9: down six from line 1
    // after following w0's line): the listing's cursor is at 00d0 and
    // both of line 7's instructions are marked. A breakpoint on line 7.
    let a = seed_app(true, "20n <Tab> <Tab> k k k k k k k k 6j b");
    assert_eq!(a.source_rows()[a.source_cursor()].line, 7);
    assert_eq!(a.cursor(), 13);
    assert!(a.session().breakpoints().has_line(0, 7));
    assert_snapshot!("source_focused_80x24", screen(&a, 80, 24));
    assert_snapshot!("source_focused_200x60", screen(&a, 200, 60));
}

#[test]
fn source_pane_without_the_text_lists_lines_by_number() {
    // No set_text: only the six lines with instructions (3 4 5 6 7 9).
    let a = seed_app(false, "20n <Tab> <Tab>");
    let lines: Vec<u32> = a.source_rows().iter().map(|p| p.line).collect();
    assert_eq!(lines, [3, 4, 5, 6, 7, 9]);
    assert_snapshot!("source_notext_80x24", screen(&a, 80, 24));
    let a = seed_app(false, "20n ?");
    assert_snapshot!("source_help_200x60", screen(&a, 200, 60));
}

/// The text of each row of `app` drawn at `w` x `h`.
fn rows(app: &App, w: u16, h: u16) -> Vec<String> {
    let b = screen(app, w, h);
    let buf = b.buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect())
        .collect()
}

/// The part of `row` from `start` to the next pane border.
fn segment<'a>(row: &'a str, start: &str) -> Option<&'a str> {
    let at = row.find(start)?;
    let rest = &row[at..];
    let end = rest.find(['┃', '│']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// At 80x24 no legend or caption is cut short on any built-in: the ready
/// queue's legend and the convergence caption are whole words, never an
/// ellipsis; the mask grid's legend, where the grid leaves it two rows,
/// names all eight glyphs.
#[test]
fn legends_are_whole_at_80_columns() {
    let labels = [
        "█on",
        "▒off",
        "·parked",
        "×exit",
        "░none",
        "!fault",
        "◆issued",
        "▶focus",
    ];
    for name in warpstep::builtin::names() {
        for keys in ["", "12n"] {
            let a = app(name, keys);
            let r = rows(&a, 80, 24);
            let whole = r.join("\n");
            for row in &r {
                for start in ["◆ issued", "SIMT stack of", "its groups"] {
                    if let Some(s) = segment(row, start) {
                        assert!(!s.contains('…'), "{name} {keys:?}: {s:?} is cut\n{whole}");
                    }
                }
            }
            let legend: Vec<usize> = (0..r.len())
                .filter(|&y| r[y].contains("█on ▒off"))
                .collect();
            assert_eq!(legend.len(), 1, "{name}: one mask-grid legend\n{whole}");
            let y = legend[0];
            // The legend's second row, when it has one, sits under the first.
            if r[y + 1].contains("▶focus") {
                let both = format!("{} {}", r[y], r[y + 1]);
                for l in labels {
                    assert!(both.contains(l), "{name} {keys:?}: {l} missing\n{whole}");
                }
            }
        }
    }
    // divergent-loop at cycle 12: a header, four warp rows and a two-row
    // SIMT stack (caption and one entry) fill 7 of the grid's 10 inner rows
    // (rows 1 to 10 of the screen); the legend takes the last two, 9 and 10,
    // and names all eight.
    let r = rows(&app("divergent-loop", "12n"), 80, 24);
    let both = format!("{} {}", r[9], r[10]);
    for l in labels {
        assert!(both.contains(l), "{l} missing:\n{}", r.join("\n"));
    }
}
