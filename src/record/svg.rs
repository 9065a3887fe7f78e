//! `warpstep svg FILE.cast -o FILE.svg`: a cast as one animated SVG image,
//! for places that run no JavaScript (README files, slides, issue
//! trackers).
//!
//! The cast's output is played through a terminal emulator ([`vt100`]) at
//! the cast's size; every time the screen changes it becomes a frame,
//! shown from the time of the event that drew it until the next one, so
//! the frames, their timing and their colours are the recording's. A
//! cast from `asciinema rec` plays as well as one from `warpstep record`:
//! nothing is re-simulated.
//!
//! The image is a strip of frames, one below the other, behind a window
//! one screen high; a CSS animation moves the strip a screen at a time
//! (`steps(1, end)` between keyframes, so each frame holds still), and
//! loops after the last frame has held for [`HOLD`] seconds. A row that
//! appears in several frames is drawn once (`<defs>`) and placed with
//! `<use>`, which keeps a stepper session, where most rows stay put from
//! key to key, small. A renderer without CSS animation (`rsvg-convert`,
//! a PDF converter) shows the first frame.
//!
//! `--chapter N` keeps the frames between the cast's marker N and the
//! next (the chapters of `warpstep page`): the screen as it stood at the
//! marker, then what was drawn until the next one.

use std::collections::HashMap;
use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};

use super::cast::{Cast, EventKind};
use crate::tui::export::{CELL_H, CELL_W, DEFAULT_BG, svg_row};

/// Seconds the last frame holds before the animation starts again.
pub const HOLD: f64 = 2.0;
/// The largest screen an image is made of (a cast header says any size up
/// to 65,535 cells a side; the emulator allocates every cell).
pub const MAX_COLS: u16 = 500;
pub const MAX_ROWS: u16 = 200;
/// Frames in one image; a longer cast is written a chapter at a time.
pub const MAX_FRAMES: usize = 20_000;
/// Bytes of one image.
pub const MAX_BYTES: usize = 64 << 20;

/// One screen of the animation and when it appears.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Seconds from the start of the image.
    pub time: f64,
    pub screen: Buffer,
}

/// The frames of a cast, or of one chapter of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Film {
    pub cols: u16,
    pub rows: u16,
    pub frames: Vec<Frame>,
    /// Seconds from the start to the loop (the last frame included).
    pub duration: f64,
}

/// Why a cast cannot become an image. Each is a whole message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SvgError {
    #[error("error: --chapter {asked}: the cast has {count} chapters (markers); give 1 to {count}")]
    NoChapter { asked: usize, count: usize },
    #[error(
        "error: --chapter {asked}: the cast has no markers, so no chapters; leave --chapter out"
    )]
    NoChapters { asked: usize },
    #[error(
        "error: the cast's terminal is {cols}x{rows}; an image is at most {MAX_COLS}x{MAX_ROWS} cells"
    )]
    TooLarge { cols: u16, rows: u16 },
    #[error(
        "error: the cast draws more than {MAX_FRAMES} different screens; write a chapter at a time (--chapter N)"
    )]
    TooManyFrames,
    #[error(
        "error: the image would pass {} MiB; write a chapter at a time (--chapter N)",
        MAX_BYTES >> 20
    )]
    TooBig,
}

fn bounded(cols: u16, rows: u16) -> Result<(), SvgError> {
    if cols > MAX_COLS || rows > MAX_ROWS {
        return Err(SvgError::TooLarge { cols, rows });
    }
    Ok(())
}

/// A terminal colour of the emulator as ratatui names it.
fn color(c: vt100::Color) -> Color {
    match c {
        vt100::Color::Default => Color::Reset,
        vt100::Color::Idx(i) => Color::Indexed(i),
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

/// The emulator's screen as a buffer of cells, `cols` x `rows` (the
/// image's size; a screen made smaller by a resize leaves blank cells).
fn snapshot(screen: &vt100::Screen, cols: u16, rows: u16) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, cols, rows));
    let (h, w) = screen.size();
    for r in 0..rows.min(h) {
        for c in 0..cols.min(w) {
            let Some(cell) = screen.cell(r, c) else {
                continue;
            };
            let out = &mut buf[(c, r)];
            if cell.is_wide_continuation() {
                out.set_symbol(" ");
            } else if cell.has_contents() {
                out.set_symbol(cell.contents());
            }
            out.fg = color(cell.fgcolor());
            out.bg = color(cell.bgcolor());
            let mut m = Modifier::empty();
            m.set(Modifier::BOLD, cell.bold());
            m.set(Modifier::UNDERLINED, cell.underline());
            m.set(Modifier::REVERSED, cell.inverse());
            m.set(Modifier::ITALIC, cell.italic());
            out.modifier = m;
        }
    }
    buf
}

/// The frames of `cast`, of chapter `chapter` (1-based) when given.
pub fn film(cast: &Cast, chapter: Option<usize>) -> Result<Film, SvgError> {
    let (mut cols, mut rows) = (cast.width, cast.height);
    bounded(cols, rows)?;
    for e in &cast.events {
        if let EventKind::Resize(c, r) = e.kind {
            bounded(c, r)?;
            cols = cols.max(c);
            rows = rows.max(r);
        }
    }
    let markers: Vec<f64> = cast
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Marker { .. }))
        .map(|e| e.time)
        .collect();
    let last = cast.events.last().map_or(0.0, |e| e.time);
    // The window [start, end) of the cast the image shows; `None`: to the
    // end, the last frame then holding for HOLD seconds.
    let (start, end) = match chapter {
        None => (0.0, None),
        Some(n) if markers.is_empty() => return Err(SvgError::NoChapters { asked: n }),
        Some(n) if n == 0 || n > markers.len() => {
            return Err(SvgError::NoChapter {
                asked: n,
                count: markers.len(),
            });
        }
        Some(n) => (markers[n - 1], markers.get(n).copied()),
    };
    let mut term = vt100::Parser::new(cast.height, cast.width, 0);
    let mut frames: Vec<Frame> = Vec::new();
    let mut push = |time: f64, screen: Buffer| -> Result<(), SvgError> {
        if frames.last().is_some_and(|f| f.screen == screen) {
            return Ok(());
        }
        if frames.len() == MAX_FRAMES {
            return Err(SvgError::TooManyFrames);
        }
        frames.push(Frame { time, screen });
        Ok(())
    };
    let events = &cast.events;
    // The screen as it stands at the window's start is the first frame;
    // then every instant after it that changes the screen.
    let mut opened = false;
    for (i, e) in events.iter().enumerate() {
        if end.is_some_and(|end| e.time >= end) {
            break;
        }
        if !opened && e.time > start {
            push(0.0, snapshot(term.screen(), cols, rows))?;
            opened = true;
        }
        match &e.kind {
            EventKind::Output(data) => term.process(data.as_bytes()),
            EventKind::Resize(c, r) => term.screen_mut().set_size(*r, *c),
            EventKind::Input(_) | EventKind::Marker { .. } => {}
        }
        // A frame is the screen once every event of one instant is in.
        let instant_ends = events.get(i + 1).is_none_or(|n| n.time != e.time);
        if opened && instant_ends {
            push(e.time - start, snapshot(term.screen(), cols, rows))?;
        }
    }
    if !opened {
        push(0.0, snapshot(term.screen(), cols, rows))?;
    }
    let duration = match end {
        Some(end) => end - start,
        None => (last - start) + HOLD,
    };
    // A frame drawn at the window's very end would never show.
    let duration = duration.max(frames.last().map_or(0.0, |f| f.time) + 1e-3);
    Ok(Film {
        cols,
        rows,
        frames,
        duration,
    })
}

/// A percentage of the animation, to the ten-thousandth.
fn percent(t: f64, duration: f64) -> String {
    let p = (t / duration * 100.0).clamp(0.0, 100.0);
    let s = format!("{p:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// The film as one SVG document.
pub fn render(film: &Film, title: &str) -> Result<String, SvgError> {
    let (pw, ph) = (u32::from(film.cols) * CELL_W, u32::from(film.rows) * CELL_H);
    // Each distinct row once, by what it draws.
    let mut rows: HashMap<String, usize> = HashMap::new();
    let mut defs = String::new();
    let mut strip = String::new();
    let w = usize::from(film.cols);
    let blank = Buffer::empty(Rect::new(0, 0, film.cols, 1));
    for (k, f) in film.frames.iter().enumerate() {
        let _ = writeln!(
            strip,
            "<g transform=\"translate(0 {})\">",
            k as u64 * u64::from(ph)
        );
        for (y, row) in f.screen.content.chunks(w).enumerate() {
            if row == blank.content.as_slice() {
                continue;
            }
            let mut body = String::new();
            svg_row(row, 0, &mut body);
            if body.is_empty() {
                continue;
            }
            let next = rows.len();
            let id = *rows.entry(body).or_insert_with_key(|body| {
                let _ = write!(defs, "<g id=\"r{next}\">\n{body}</g>\n");
                next
            });
            let _ = writeln!(
                strip,
                "<use xlink:href=\"#r{id}\" y=\"{}\"/>",
                y as u32 * CELL_H
            );
        }
        strip.push_str("</g>\n");
        if defs.len() + strip.len() > MAX_BYTES {
            return Err(SvgError::TooBig);
        }
    }
    let mut out = String::with_capacity(defs.len() + strip.len() + 4096);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \
         width=\"{pw}\" height=\"{ph}\" viewBox=\"0 0 {pw} {ph}\">"
    );
    out.push_str("<title>");
    crate::text::escape_markup(title, &mut out);
    out.push_str("</title>\n<style>\n@keyframes film {\n");
    for (k, f) in film.frames.iter().enumerate() {
        let _ = writeln!(
            out,
            "{} {{ transform: translateY(-{}px); }}",
            percent(f.time, film.duration),
            k as u64 * u64::from(ph)
        );
    }
    let last = film.frames.len().saturating_sub(1) as u64 * u64::from(ph);
    let _ = writeln!(out, "100% {{ transform: translateY(-{last}px); }}\n}}");
    let _ = writeln!(
        out,
        ".film {{ animation: film {:.3}s steps(1, end) infinite; }}\n</style>",
        film.duration
    );
    let _ = writeln!(
        out,
        "<defs>\n<clipPath id=\"screen\"><rect width=\"{pw}\" height=\"{ph}\"/></clipPath>"
    );
    out.push_str(&defs);
    out.push_str("</defs>\n");
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"{DEFAULT_BG}\"/>\n\
         <g clip-path=\"url(#screen)\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"13\">\n\
         <g class=\"film\">"
    );
    out.push_str(&strip);
    out.push_str("</g>\n</g>\n</svg>\n");
    if out.len() > MAX_BYTES {
        return Err(SvgError::TooBig);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::cast;

    fn cast_of(events: &str) -> Cast {
        let text = format!("{{\"version\": 2, \"width\": 4, \"height\": 2}}\n{events}");
        cast::parse_frames("t.cast", &text).expect("a cast")
    }

    fn text_of(b: &Buffer) -> String {
        crate::tui::buffer_text(b)
    }

    #[test]
    fn each_change_of_screen_is_a_frame_at_its_time() {
        // By hand: `ab` at 0 s, red `c` at 1 s (the same instant as a
        // cursor move that draws nothing, so one frame), nothing new at
        // 2 s (the same screen: no frame), `d` on row 2 at 3 s. The image
        // then holds 3 + HOLD = 5 s.
        let c = cast_of(concat!(
            "[0.0, \"o\", \"ab\"]\n",
            "[1.0, \"o\", \"\\u001b[31mc\"]\n",
            "[1.0, \"o\", \"\\u001b[1;1H\"]\n",
            "[2.0, \"o\", \"\\u001b[1;1H\"]\n",
            "[3.0, \"o\", \"\\u001b[2;1Hd\"]\n",
        ));
        let f = film(&c, None).expect("a film");
        let times: Vec<f64> = f.frames.iter().map(|f| f.time).collect();
        assert_eq!(times, [0.0, 1.0, 3.0]);
        assert_eq!(f.duration, 5.0);
        assert_eq!(text_of(&f.frames[0].screen), "ab  \n    \n");
        assert_eq!(text_of(&f.frames[2].screen), "abc \nd   \n");
        assert_eq!(f.frames[1].screen[(2, 0)].fg, Color::Indexed(1));
        // Keyframes at 0/5, 1/5 and 3/5 of the loop, one screen (32 px)
        // a frame.
        let svg = render(&f, "t").expect("an image");
        assert!(svg.contains("0% { transform: translateY(-0px); }"), "{svg}");
        assert!(
            svg.contains("20% { transform: translateY(-32px); }"),
            "{svg}"
        );
        assert!(
            svg.contains("60% { transform: translateY(-64px); }"),
            "{svg}"
        );
        assert!(
            svg.contains("100% { transform: translateY(-64px); }"),
            "{svg}"
        );
        assert!(svg.contains("animation: film 5.000s steps(1, end) infinite"));
        // xterm's red for index 1.
        assert!(svg.contains("fill=\"#cd0000\""), "{svg}");
    }

    #[test]
    fn a_row_shared_by_frames_is_drawn_once() {
        // Row 1 reads `ab` in all three frames: one definition of it, and
        // one each for the rows `c` and `cd` of frames 2 and 3.
        let c = cast_of(concat!(
            "[0.0, \"o\", \"ab\"]\n",
            "[1.0, \"o\", \"\\u001b[2;1Hc\"]\n",
            "[2.0, \"o\", \"d\"]\n",
        ));
        let svg = render(&film(&c, None).expect("a film"), "t").expect("an image");
        assert_eq!(svg.matches("<g id=\"r").count(), 3, "{svg}");
        assert_eq!(svg.matches("xlink:href=\"#r0\"").count(), 3, "{svg}");
    }

    #[test]
    fn a_chapter_starts_from_the_screen_at_its_marker() {
        // Markers at 1 s and 2.5 s. Chapter 1 starts with the screen as it
        // stood at 1 s (`xy`, drawn at 0.5 s) and keeps `z` drawn at 2 s
        // (1 s in); `w` at 3 s belongs to chapter 2. Chapter 1 lasts
        // 2.5 - 1 = 1.5 s; chapter 2 is the last: 3 - 2.5 + HOLD.
        let c = cast_of(concat!(
            "[0.5, \"o\", \"xy\"]\n",
            "[1.0, \"m\", \"one\"]\n",
            "[2.0, \"o\", \"z\"]\n",
            "[2.5, \"m\", \"two\"]\n",
            "[3.0, \"o\", \"w\"]\n",
        ));
        let one = film(&c, Some(1)).expect("chapter 1");
        let times: Vec<f64> = one.frames.iter().map(|f| f.time).collect();
        assert_eq!(times, [0.0, 1.0]);
        assert_eq!(text_of(&one.frames[0].screen), "xy  \n    \n");
        assert_eq!(text_of(&one.frames[1].screen), "xyz \n    \n");
        assert_eq!(one.duration, 1.5);
        let two = film(&c, Some(2)).expect("chapter 2");
        assert_eq!(two.frames.len(), 2);
        assert_eq!(text_of(&two.frames[0].screen), "xyz \n    \n");
        assert_eq!(two.frames[1].time, 0.5);
        assert_eq!(two.duration, 0.5 + HOLD);
        assert_eq!(
            film(&c, Some(3)),
            Err(SvgError::NoChapter { asked: 3, count: 2 })
        );
        assert_eq!(
            film(&c, Some(0)),
            Err(SvgError::NoChapter { asked: 0, count: 2 })
        );
    }

    #[test]
    fn sizes_are_bounded_before_the_terminal_is_made() {
        let text = "{\"version\": 2, \"width\": 60000, \"height\": 60000}\n";
        let c = cast::parse_frames("t.cast", text).expect("a cast");
        assert_eq!(
            film(&c, None),
            Err(SvgError::TooLarge {
                cols: 60000,
                rows: 60000
            })
        );
        let c = cast_of("[1.0, \"r\", \"900x30\"]\n");
        assert_eq!(
            film(&c, None),
            Err(SvgError::TooLarge {
                cols: 900,
                rows: 30
            })
        );
    }

    #[test]
    fn text_from_the_cast_cannot_break_the_markup() {
        let c = cast_of("[0.0, \"o\", \"<&>\"]\n");
        let svg = render(&film(&c, None).expect("a film"), "a <b> & c").expect("an image");
        assert!(svg.contains("&lt;&amp;&gt;"), "{svg}");
        assert!(svg.contains("<title>a &lt;b&gt; &amp; c</title>"), "{svg}");
    }
}
