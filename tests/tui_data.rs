//! The data panes on `TestBackend`: the lanes view, the memory pane, the
//! buffer view and faults, at 80x24 (compact) and 200x60 (full), with the
//! numbers on screen worked out by hand in the comments and asserted on
//! the app's views; and the export's SVG opened by a real renderer.

mod support;
use support::{BIN, Session, have_tmux, load_scenario, skip_or_fail};

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use warpstep::engine::view::{AccessSpace, RegSel};
use warpstep::tui::app::{AccessOrigin, ValueFormat};
use warpstep::tui::keys::parse_keys;
use warpstep::tui::{App, Options};

fn app(arg: &str, keys: &str) -> App {
    let opts = Options {
        ascii: false,
        color: true,
        animate: false,
    };
    let mut app = App::new(load_scenario(arg), opts).expect("links");
    for k in parse_keys(keys).expect("key script") {
        app.handle_key(k);
    }
    app
}

/// The app on inline YAML (see `support::load_scenario`).
fn app_text(yaml: &str, keys: &str) -> App {
    app(yaml, keys)
}

fn screen(app: &App, w: u16, h: u16) -> TestBackend {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| app.draw(f)).expect("draws");
    t.backend().clone()
}

/// Lane `l` = `lane` as a float, halved, plus 2.5: lane 0 holds 2.5
/// (0x40200000), lane 1 3.0, lane 31 31 / 2 + 2.5 = 18.
const FFMA: &str = "\
name: ffma across lanes
machine: {warp_width: 32}
launch: {threads: 32}
inputs: {R0: \"lane\"}
program: |
  I2F R1, R0
  FFMA R2, R1, 0.5, 2.5
  EXIT
";

/// Six threads of an 8-lane warp read a 4-element buffer: lanes 4 and 5
/// read data[4] and data[5], past its 16 bytes, and fault.
const FAULTS: &str = "\
name: out of bounds read
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

fn text(app: &App, w: u16, h: u16) -> String {
    warpstep::tui::buffer_text(&warpstep::tui::render_to_buffer(app, w, h))
}

// ---- the lanes view ---------------------------------------------------

#[test]
fn lanes_view_shows_an_ffma_result_as_f32() {
    // `s` runs to the warp's next issue: I2F in cycle 0, then the FFMA.
    // `l` shows the lanes view in the bottom row at 80x24.
    let a = app_text(FFMA, "s s l");
    // The FFMA's destination is R2, and an FFMA result defaults to f32.
    assert_eq!(a.lanes_register(), RegSel::Reg(2));
    assert_eq!(a.lanes_format(), ValueFormat::F32);
    let v = a.data().values.as_ref().expect("w0 resident");
    // lane * 0.5 + 2.5: 2.5 = 0x40200000, 3.0 = 0x40400000, 18.0 = 0x41900000.
    assert_eq!(v[0], 0x4020_0000);
    assert_eq!(v[1], 0x4040_0000);
    assert_eq!(v[31], 0x4190_0000);
    // Every lane's R2 was 0 a cycle back: all 32 changed.
    let before = a.data().before.as_ref().expect("a cycle back");
    assert!(before.iter().all(|&b| b == 0));
    let t = text(&a, 80, 24);
    assert!(t.contains("Lanes · R2 of w0 · f32"), "{t}");
    assert!(t.contains("32 changed"), "{t}");
    assert!(t.contains(" 2.5*") && t.contains(" 18*"), "{t}");
    assert_snapshot!("lanes_ffma_80x24", screen(&a, 80, 24));
    assert_snapshot!("lanes_ffma_200x60", screen(&a, 200, 60));
    // `v` cycles f32 -> i32: 0x40200000 = 1075838976.
    let mut b = a.clone();
    for k in parse_keys("v").expect("keys") {
        b.handle_key(k);
    }
    assert_eq!(b.lanes_format(), ValueFormat::I32);
    assert!(text(&b, 80, 24).contains("1075838976*"));
    // `[` goes back to R1 (the I2F's: not a float op, so i32; lane 31 = 31.0
    // = 0x41f80000 = 1106771968).
    for k in parse_keys("[").expect("keys") {
        b.handle_key(k);
    }
    assert_eq!(b.lanes_register(), RegSel::Reg(1));
    assert_eq!(b.data().values.as_ref().expect("resident")[31], 0x41f8_0000);
}

#[test]
fn lanes_view_table_of_every_warp_at_200x60() {
    // divergent-loop at cycle 12: 4 warps, each has run S2R, IMAD, LDG.
    // R0 = tid (S2R SR_TID.X): w1's lane 0 is thread 32.
    let a = app("divergent-loop", "12n [ [");
    let d = a.data();
    assert_eq!(d.table.len(), 4);
    let w1 = &d.table.iter().find(|(w, _)| *w == 1).expect("w1").1;
    assert_eq!(w1[0], 32);
    let t = text(&a, 200, 60);
    assert!(t.contains("L0"), "{t}");
    assert_snapshot!("lanes_table_200x60", screen(&a, 200, 60));
}

// ---- the memory pane ----------------------------------------------------

#[test]
fn memory_pane_counts_a_scattered_load() {
    // load-scattered: the LDG issues in cycle 8 (S2R 0, IMAD 4); lane l
    // reads data + 128 l: 32 lanes in 32 lines, one sector each. 128 B
    // asked: ideal ceil(128 / 32) = 4 sectors, ceil(128 / 128) = 1 line.
    let a = app("load-scattered", "9n m");
    let (acc, origin) = a.data().access.as_ref().expect("an access");
    assert_eq!(*origin, AccessOrigin::Issued(8));
    assert_eq!(acc.space, AccessSpace::Global);
    assert_eq!((acc.sectors, acc.lines, acc.requested_bytes), (32, 32, 128));
    assert_eq!((acc.ideal_sectors(), acc.ideal_lines()), (4, 1));
    // The same numbers `run` reports for the whole scenario (one request).
    let m = a.machine().memory_counters();
    assert_eq!((m.global_sectors, m.global_transactions), (32, 32));
    let t = text(&a, 80, 24);
    assert!(
        t.contains("sectors 32 (ideal 4) · transactions 32 (ideal 1)"),
        "{t}"
    );
    assert!(t.contains("data+0x80 █··· lanes 1"), "{t}");
    assert_snapshot!("memory_scattered_80x24", screen(&a, 80, 24));
    assert_snapshot!("memory_scattered_200x60", screen(&a, 200, 60));
}

#[test]
fn memory_pane_names_the_words_of_the_worst_bank() {
    // shared-bank-conflicts: the 9th issue is `LDS R6, [R3]`, R3 = tid <<
    // 7: lane l reads word 32 l, all in bank 0: 32 words, 32 passes, 31
    // replays, 1 of 32 banks hit.
    let a = app("shared-bank-conflicts", "9s m");
    let (acc, _) = a.data().access.as_ref().expect("an access");
    assert_eq!(acc.space, AccessSpace::Shared);
    assert_eq!(acc.passes, 32);
    let t = text(&a, 80, 24);
    assert!(t.contains("1 of 32 banks hit"), "{t}");
    assert!(t.contains("passes 32 · replays 31"), "{t}");
    assert!(
        t.contains("worst bank 0: 32 words: 0x0 (lanes 0), 0x80 (lanes 1)"),
        "{t}"
    );
    assert_snapshot!("memory_bank_conflicts_80x24", screen(&a, 80, 24));
    // The 7th, `LDS R5, [R2]`, R2 = tid << 3: words 2 l, so banks 0, 2, ..
    // 30 each hold words 2 l and 2 l + 32: 16 banks, 2 passes.
    let b = app("shared-bank-conflicts", "7s m");
    let (acc, _) = b.data().access.as_ref().expect("an access");
    assert_eq!(acc.passes, 2);
    let t = text(&b, 200, 60);
    assert!(t.contains("16 of 32 banks hit"), "{t}");
    assert!(
        t.contains("worst bank 0: 2 words: 0x0 (lanes 0), 0x80 (lanes 16)"),
        "{t}"
    );
    assert_snapshot!("memory_bank_stride2_200x60", screen(&b, 200, 60));
}

// ---- the buffer view ----------------------------------------------------

#[test]
fn buffer_view_marks_the_words_just_read() {
    // load-scattered's data: f32, data[i] = i; the LDG read data[32 l].
    let a = app("load-scattered", "9n u");
    let touched = &a.data().touched;
    assert_eq!(touched.len(), 32);
    let base = a.machine().kernel().buffers()[0].base;
    assert_eq!(touched[1], (base + 128, 4));
    let t = text(&a, 80, 24);
    // Row 0 of 5 elements at 80 columns: 0 is read, 1 to 4 are not.
    assert!(t.contains("+0x0"), "{t}");
    assert!(t.contains("0*") && t.contains(" 1 "), "{t}");
    assert_snapshot!("buffer_scattered_80x24", screen(&a, 80, 24));
    // j scrolls a row: the first row shown starts at element 5 (+0x14).
    let mut b = a.clone();
    for k in parse_keys("j").expect("keys") {
        b.handle_key(k);
    }
    assert!(text(&b, 80, 24).contains("+0x14"));
    assert_snapshot!("buffer_scattered_200x60", screen(&a, 200, 60));
}

// ---- faults and the grid ---------------------------------------------------

#[test]
fn faults_show_lane_address_and_buffer() {
    // data is 4 u32 = 16 bytes: lane 4 reads data+0x10, lane 5 data+0x14,
    // both past its end. After `e` every warp has retired.
    let a = app_text(FAULTS, "e");
    assert_eq!(a.machine().faults().len(), 2);
    let base = a.machine().kernel().buffers()[0].base;
    assert_eq!(a.machine().faults()[0].address, base + 0x10);
    let t = text(&a, 200, 60);
    assert!(t.contains("every warp has retired, 2 lanes faulted"), "{t}");
    assert!(t.contains("w0 lane 4: out_of_bounds at "), "{t}");
    assert!(t.contains("data+0x10 (past its 0x10 bytes)"), "{t}");
    assert_snapshot!("faults_grid_80x24", screen(&a, 80, 24));
    let b = app_text(FAULTS, "e l");
    let t = text(&b, 80, 24);
    assert!(t.contains("w0 has retired; its lanes faulted:"), "{t}");
    // At 80 columns the line is cut after the buffer offset.
    assert!(
        t.contains("w0 lane 5: out_of_bounds at ") && t.contains(", data+0x14"),
        "{t}"
    );
    assert_snapshot!("faults_lanes_200x60", screen(&b, 200, 60));
}

#[test]
fn page_keys_move_the_grid_ten_warps() {
    // 64 warps of one block on one SM: all resident from cycle 1.
    let a = app_text(MANY, "1n <PageDown> <PageDown> <PageUp>");
    assert_eq!(a.selected_warp(), 10);
}

/// 64 warps on one SM.
const MANY: &str = "\
name: 64 warps
machine: {warp_width: 32, max_warps_per_sm: 64}
launch: {threads: 2048}
program: |
  EXIT
";

// ---- export -------------------------------------------------------------

#[test]
fn export_writes_text_svg_and_json_and_the_svg_renders() {
    let dir = std::env::temp_dir().join(format!("warpstep-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let mut a = app("load-scattered", "9n");
    // Drawn at 80x24 first: the export writes the size last drawn.
    let _ = screen(&a, 80, 24);
    a.set_export_dir(dir.clone());
    for k in parse_keys("x").expect("keys") {
        a.handle_key(k);
    }
    let stem = dir.join("scattered-load-32-transactions-c9");
    let msg = a.message().expect("a message").text.clone();
    assert!(
        msg.contains("scattered-load-32-transactions-c9.svg"),
        "{msg}"
    );
    let txt = std::fs::read_to_string(stem.with_extension("txt")).expect("text");
    assert_eq!(txt.lines().count(), 24);
    assert!(txt.contains("LDG.E R5, [R4]"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stem.with_extension("json")).expect("json"))
            .expect("valid JSON");
    assert_eq!(json["cycle"], 9);
    // R4 = &data[32 l]: lane 1's is 128 past lane 0's.
    let r4 = &json["warps"][0]["registers"]["R4"];
    assert_eq!(r4[1].as_u64().unwrap() - r4[0].as_u64().unwrap(), 128);
    assert_eq!(json["buffers"]["data"]["elements"][3], "3");

    let svg = stem.with_extension("svg");
    let png = dir.join("screen.png");
    let ran = std::process::Command::new("rsvg-convert")
        .arg("-o")
        .arg(&png)
        .arg(&svg)
        .status();
    match ran {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("rsvg-convert failed: {s}"),
        Err(e) => {
            skip_or_fail(&format!(
                "rsvg-convert not found ({e}): install librsvg2-bin"
            ));
            return;
        }
    }
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png).expect("png"),
    ));
    let mut reader = decoder.read_info().expect("png header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut pixels).expect("png frame");
    // 80 x 24 cells of 8 x 16 pixels.
    assert_eq!((info.width, info.height), (640, 384));
    let bpp = info.color_type.samples();
    let px = |x: u32, y: u32| {
        let i = (y as usize * info.width as usize + x as usize) * bpp;
        (pixels[i], pixels[i + 1], pixels[i + 2])
    };
    // The cell at (col, row), sampled 2 pixels in from its top left: a
    // cell's own background there, whatever glyph it holds.
    let buf = warpstep::tui::render_to_buffer(&a, 80, 24);
    let find = |bg: ratatui::style::Color| {
        buf.area
            .positions()
            .find(|p| buf[*p].bg == bg && buf[*p].symbol() == " ")
            .expect("a cell of that background")
    };
    // The listing's next line (Role::Current): xterm colour 236 = grey
    // 8 + 10 x (236 - 232) = 48 = 0x30.
    let cur = find(ratatui::style::Color::Indexed(236));
    assert_eq!(
        px(u32::from(cur.x) * 8 + 2, u32::from(cur.y) * 16 + 2),
        (0x30, 0x30, 0x30)
    );
    // A blank default cell: the black background.
    let blank = find(ratatui::style::Color::Reset);
    assert_eq!(
        px(u32::from(blank.x) * 8 + 2, u32::from(blank.y) * 16 + 2),
        (0, 0, 0)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn record_svg_writes_the_last_frame() {
    let dir = std::env::temp_dir().join(format!("warpstep-recsvg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let cast = dir.join("a.cast");
    let svg = dir.join("a.svg");
    let out = std::process::Command::new(BIN)
        .args([
            "record",
            "load-scattered",
            "--keys",
            "9n m",
            "--size",
            "80x24",
            "-o",
        ])
        .arg(&cast)
        .arg("--svg")
        .arg(&svg)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = std::fs::read_to_string(&svg).expect("svg written");
    // 80 x 8 by 24 x 16 pixels; the memory pane's counts are in it.
    assert!(
        s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"384\"")
    );
    assert!(s.contains("sectors 32 (ideal 4)"), "{s}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- the real binary in tmux, at 80x24 -----------------------------------

/// `warpstep ARG` in tmux at 80x24; inline YAML is written to a file first.
fn tmux_at_80x24(name: &str, arg: &str) -> Session {
    let s = Session::new("data", Some(name)).without_env("NO_COLOR");
    let arg = if arg.contains('\n') {
        let path = s.dir.join("scenario.yaml");
        std::fs::write(&path, arg).expect("scenario");
        path.display().to_string()
    } else {
        arg.to_string()
    };
    s.new_session_sized(&format!("'{BIN}' '{arg}'; sleep 600"), 80, 24);
    s
}

#[test]
fn tmux_f32_register_across_32_lanes() {
    if !have_tmux() {
        return;
    }
    let s = tmux_at_80x24("ffma", FFMA);
    s.wait_for("the stepper", |scr| scr.contains("Mask grid"));
    s.keys(&["s", "s", "l"]);
    // 32 lanes of lane / 2 + 2.5, each marked changed: 2.5 .. 18.
    let scr = s.wait_for("the lanes view", |scr| {
        scr.contains("Lanes · R2 of w0 · f32") && scr.contains("18*")
    });
    for v in ["2.5*", "3*", "10.5*", "18*", "32 changed"] {
        assert!(scr.contains(v), "{v} missing:\n{scr}");
    }
}

#[test]
fn tmux_scattered_load_sectors_and_transactions() {
    if !have_tmux() {
        return;
    }
    let s = tmux_at_80x24("scattered", "load-scattered");
    s.wait_for("the stepper", |scr| scr.contains("Mask grid"));
    s.keys(&["m", "9", "n"]);
    // LDG in cycle 8: 32 sectors and 32 transactions against 4 and 1.
    let scr = s.wait_for("the memory pane", |scr| scr.contains("issued in cycle 8"));
    assert!(
        scr.contains("sectors 32 (ideal 4) · transactions 32 (ideal 1)"),
        "{scr}"
    );
}
