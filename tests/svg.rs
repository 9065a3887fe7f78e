//! `warpstep svg`: a cast as an animated SVG image. Its frames are checked
//! cell by cell against the stepper driven by the same keys (the screens
//! it drew, found without the cast or the terminal emulator); the image is
//! opened by real renderers: `rsvg-convert` (the first frame, the one a
//! renderer without animation shows) and headless Chromium (the CSS
//! animation paused at chosen times, the frame it shows read from the
//! DOM, and a screenshot).
//!
//! `rsvg-convert` (Debian's librsvg2-bin) and `chromium` are installed by
//! `.ci/run`; without them their tests skip with a message, or fail when
//! `WARPSTEP_REQUIRE_ALL_TESTS=1`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::style::Modifier;
use warpstep::record::cast;
use warpstep::record::svg::{self, HOLD};
use warpstep::tui::export::rgb;
use warpstep::tui::keys::parse_keys;
use warpstep::tui::{App, Options, render_to_buffer};

const BIN: &str = env!("CARGO_BIN_EXE_warpstep");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpstep-svg-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn warpstep(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("warpstep runs")
}

const KEYS: &str = "5n d 3n ] p";
const SIZE: (u16, u16) = (100, 30);

/// Records divergent-loop headless with [`KEYS`] into `d/a.cast`.
fn recorded(d: &Path) -> PathBuf {
    let cast = d.join("a.cast");
    let o = warpstep(&[
        "record",
        "divergent-loop",
        "--keys",
        KEYS,
        "--size",
        "100x30",
        "-o",
        cast.to_str().expect("UTF-8 path"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    cast
}

/// The screens the stepper draws for [`KEYS`], one before the first key
/// and one after each, consecutive repeats dropped: what the image must
/// show, in order.
fn stepper_screens() -> Vec<Buffer> {
    let sc = warpstep::builtin::resolve("divergent-loop").expect("built-in");
    let mut app = App::new(Arc::new(sc), Options::default()).expect("app");
    let mut out = vec![render_to_buffer(&app, SIZE.0, SIZE.1)];
    for k in parse_keys(KEYS).expect("keys") {
        app.handle_key(k);
        let b = render_to_buffer(&app, SIZE.0, SIZE.1);
        if out.last() != Some(&b) {
            out.push(b);
        }
    }
    out
}

/// Cell by cell: the same symbol, the same colours once both are made
/// `#rrggbb` (the terminal names `Cyan` colour 6), bold, underline and
/// reverse alike.
fn same_cells(film: &Buffer, drawn: &Buffer) -> Result<(), String> {
    assert_eq!(film.area, drawn.area);
    let look = Modifier::BOLD | Modifier::UNDERLINED | Modifier::REVERSED;
    for y in 0..drawn.area.height {
        for x in 0..drawn.area.width {
            let (a, b) = (&film[(x, y)], &drawn[(x, y)]);
            let ok = a.symbol() == b.symbol()
                && rgb(a.fg) == rgb(b.fg)
                && rgb(a.bg) == rgb(b.bg)
                && (a.modifier & look) == (b.modifier & look);
            if !ok {
                return Err(format!(
                    "cell ({x}, {y}): the image has {:?} {:?}/{:?} {:?}, the stepper drew {:?} {:?}/{:?} {:?}",
                    a.symbol(),
                    a.fg,
                    a.bg,
                    a.modifier,
                    b.symbol(),
                    b.fg,
                    b.bg,
                    b.modifier
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn the_frames_are_the_screens_the_stepper_drew_at_the_recorded_times() {
    let d = scratch("frames");
    let text = std::fs::read_to_string(recorded(&d)).expect("cast");
    let c = cast::parse_frames("a.cast", &text).expect("cast reads");
    let film = svg::film(&c, None).expect("film");
    let want = stepper_screens();
    assert_eq!(film.frames.len(), want.len(), "one frame per screen drawn");
    for (k, (f, w)) in film.frames.iter().zip(&want).enumerate() {
        if let Err(e) = same_cells(&f.screen, w) {
            panic!("frame {k}: {e}");
        }
    }
    // Each frame appears at the time of an output event of the cast, the
    // first at 0; the loop lasts to the last event plus HOLD.
    let outputs: Vec<f64> = c
        .events
        .iter()
        .filter(|e| matches!(e.kind, cast::EventKind::Output(_)))
        .map(|e| e.time)
        .collect();
    assert_eq!(film.frames[0].time, 0.0);
    for f in &film.frames[1..] {
        assert!(outputs.contains(&f.time), "frame at {} s", f.time);
    }
    let last = c.events.last().expect("events").time;
    assert_eq!(film.duration, last + HOLD);
    // A chapter is the whole film's frames from its marker to the next.
    let markers: Vec<f64> = c
        .events
        .iter()
        .filter(|e| matches!(e.kind, cast::EventKind::Marker { .. }))
        .map(|e| e.time)
        .collect();
    assert!(markers.len() >= 3, "{markers:?}");
    let two = svg::film(&c, Some(2)).expect("chapter 2");
    let inside: Vec<&svg::Frame> = film
        .frames
        .iter()
        .filter(|f| f.time > markers[1] && f.time < markers[2])
        .collect();
    assert_eq!(two.frames.len(), 1 + inside.len());
    let before = film
        .frames
        .iter()
        .rfind(|f| f.time <= markers[1])
        .expect("a frame before marker 2");
    assert_eq!(two.frames[0].screen, before.screen);
    assert_eq!(two.duration, markers[2] - markers[1]);
}

fn have(tool: &str, args: &[&str]) -> bool {
    match Command::new(tool).args(args).output() {
        Ok(_) => true,
        Err(e) => {
            support::skip_or_fail(&format!(
                "{tool} does not run ({e}); .ci/run installs it from Debian"
            ));
            false
        }
    }
}

/// Pixel `(x, y)` of an 8-bit RGB or RGBA PNG, and its size.
fn png_pixel(path: &Path, x: u32, y: u32) -> ((u32, u32), [u8; 3]) {
    let dec = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("png"),
    ));
    let mut r = dec.read_info().expect("png header");
    let mut buf = vec![0; r.output_buffer_size().expect("size")];
    let info = r.next_frame(&mut buf).expect("png frame");
    let ch = info.color_type.samples();
    let i = ((y * info.width + x) as usize) * ch;
    ((info.width, info.height), [buf[i], buf[i + 1], buf[i + 2]])
}

#[test]
fn rsvg_draws_the_first_frame() {
    if !have("rsvg-convert", &["--version"]) {
        return;
    }
    let d = scratch("rsvg");
    let image = d.join("a.svg");
    let o = warpstep(&[
        "svg",
        recorded(&d).to_str().expect("path"),
        "-o",
        image.to_str().expect("path"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("frames"), "{err}");
    let png = d.join("a.png");
    let r = Command::new("rsvg-convert")
        .arg(&image)
        .arg("-o")
        .arg(&png)
        .output()
        .expect("rsvg-convert");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // 100x30 cells of 8x16 pixels. At cycle 0 the top-left cell is the
    // corner of the focused mask-grid pane, drawn in cyan (xterm's
    // #00cdcd); a cell of the blank grid below it is the black ground.
    let first = &stepper_screens()[0];
    assert_eq!(rgb(first[(0, 0)].fg).as_deref(), Some("#00cdcd"));
    let (size, corner) = png_pixel(&png, 3, 8);
    assert_eq!(size, (800, 480));
    assert!(
        corner[1] > 150 && corner[2] > 150 && corner[0] < 60,
        "{corner:?}"
    );
    let (_, ground) = png_pixel(&png, 20 * 8 + 4, 8 * 16 + 8);
    assert_eq!(ground, [0, 0, 0]);
}

#[test]
fn chromium_plays_the_frames_at_their_times() {
    if !have("chromium", &["--version"]) {
        return;
    }
    let d = scratch("chromium");
    let image = d.join("a.svg");
    let cast_path = recorded(&d);
    let o = warpstep(&[
        "svg",
        cast_path.to_str().expect("path"),
        "-o",
        image.to_str().expect("path"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = cast::parse_frames(
        "a.cast",
        &std::fs::read_to_string(&cast_path).expect("cast"),
    )
    .expect("cast reads");
    let film = svg::film(&c, None).expect("film");
    // The image inline in a page whose script pauses the animation at the
    // time in the address and writes the strip's offset into the body.
    let page = d.join("a.html");
    let svg_text = std::fs::read_to_string(&image).expect("svg");
    std::fs::write(
        &page,
        format!(
            "<!doctype html><html><body style=\"margin:0;background:#000\">{svg_text}<script>\n\
             const t = parseFloat(location.hash.slice(1));\n\
             for (const a of document.getAnimations()) {{ a.pause(); a.currentTime = t * 1000; }}\n\
             const m = new DOMMatrix(getComputedStyle(document.querySelector('.film')).transform);\n\
             document.body.setAttribute('data-offset', String(m.f));\n\
             </script></body></html>"
        ),
    )
    .expect("page");
    let profile = d.join("profile");
    let chromium = |extra: &[String], url: &str| {
        Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--hide-scrollbars",
                "--window-size=800,480",
                "--virtual-time-budget=2000",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(url)
            .output()
            .expect("chromium")
    };
    // Midway through each frame's time on screen, the strip is moved up by
    // that many screens of 480 pixels.
    let mut ends: Vec<f64> = film.frames[1..].iter().map(|f| f.time).collect();
    ends.push(film.duration);
    for (k, (f, end)) in film.frames.iter().zip(&ends).enumerate() {
        let t = (f.time + end) / 2.0;
        let url = format!("file://{}#{t}", page.display());
        let o = chromium(&["--dump-dom".into()], &url);
        let dom = String::from_utf8_lossy(&o.stdout);
        let want = format!("data-offset=\"{}\"", -(k as i64) * 480);
        assert!(
            dom.contains(&want),
            "at {t} s frame {k}: want {want}; chromium: {}",
            dom.lines()
                .find(|l| l.contains("data-offset"))
                .unwrap_or("no offset")
        );
    }
    // A screenshot of the last frame: the image's size, the cyan corner.
    let shot = d.join("shot.png");
    let t = (film.frames.last().expect("frames").time + film.duration) / 2.0;
    let o = chromium(
        &[format!("--screenshot={}", shot.display())],
        &format!("file://{}#{t}", page.display()),
    );
    assert!(shot.exists(), "{}", String::from_utf8_lossy(&o.stderr));
    let (size, corner) = png_pixel(&shot, 3, 8);
    assert_eq!(size, (800, 480));
    assert!(
        corner[1] > 150 && corner[2] > 150 && corner[0] < 60,
        "{corner:?}"
    );
}

#[test]
fn bad_chapters_and_casts_are_clear_errors() {
    let d = scratch("errors");
    let c = recorded(&d);
    let c = c.to_str().expect("path");
    let out = d.join("x.svg");
    let out = out.to_str().expect("path");
    for (args, want) in [
        (
            vec!["svg", c, "-o", out, "--chapter", "99"],
            "--chapter 99: the cast has",
        ),
        (vec!["svg", c, "-o", out, "--chapter", "0"], "give 1 to"),
        (vec!["svg", "/nonexistent.cast", "-o", out], "cannot read"),
    ] {
        let o = warpstep(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let bad = d.join("bad.cast");
    std::fs::write(
        &bad,
        "{\"version\": 2, \"width\": 80, \"height\": 24}\n[1, \"o\"]\n",
    )
    .expect("write");
    let o = warpstep(&["svg", bad.to_str().expect("path"), "-o", out]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("line 2"), "{err}");
    assert!(!Path::new(out).exists());
}
