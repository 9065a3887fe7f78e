//! Export (`x`): the screen as drawn, as text and as SVG (every cell with
//! its colours, bold and underline), and the machine at the shown cycle
//! as JSON, to `<scenario>-c<cycle>.{txt,svg,json}`. `record --svg FILE`
//! writes the SVG of a recording's last frame with [`write_svg`].

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use serde_json::{Value, json};
use unicode_width::UnicodeWidthStr;

use super::App;
use crate::engine::view::{LaneState, RegSel};

/// Pixels per cell in the SVG.
pub const CELL_W: u32 = 8;
pub const CELL_H: u32 = 16;
/// The colours of `Color::Reset`: a dark terminal.
pub const DEFAULT_FG: &str = "#e5e5e5";
pub const DEFAULT_BG: &str = "#000000";

/// xterm's 16 colours.
const ANSI: [&str; 16] = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
];

/// A colour as `#rrggbb`, `None` for the terminal's default.
pub fn rgb(c: Color) -> Option<String> {
    let ansi = |i: usize| Some(ANSI[i].to_string());
    match c {
        Color::Reset => None,
        Color::Black => ansi(0),
        Color::Red => ansi(1),
        Color::Green => ansi(2),
        Color::Yellow => ansi(3),
        Color::Blue => ansi(4),
        Color::Magenta => ansi(5),
        Color::Cyan => ansi(6),
        Color::Gray => ansi(7),
        Color::DarkGray => ansi(8),
        Color::LightRed => ansi(9),
        Color::LightGreen => ansi(10),
        Color::LightYellow => ansi(11),
        Color::LightBlue => ansi(12),
        Color::LightMagenta => ansi(13),
        Color::LightCyan => ansi(14),
        Color::White => ansi(15),
        Color::Rgb(r, g, b) => Some(format!("#{r:02x}{g:02x}{b:02x}")),
        Color::Indexed(i) => Some(indexed(i)),
    }
}

/// xterm's 256-colour palette: 16 system colours, a 6x6x6 cube, 24 greys.
fn indexed(i: u8) -> String {
    match i {
        0..=15 => ANSI[i as usize].to_string(),
        16..=231 => {
            let n = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(n / 36),
                level(n / 6 % 6),
                level(n % 6)
            )
        }
        _ => {
            let v = 8 + 10 * (i - 232);
            format!("#{v:02x}{v:02x}{v:02x}")
        }
    }
}

/// One cell's drawn look: foreground, background, bold, underline.
#[derive(Clone, PartialEq, Eq)]
struct Look {
    fg: String,
    bg: Option<String>,
    bold: bool,
    underline: bool,
}

/// The buffer as an SVG image: [`CELL_W`] x [`CELL_H`] pixels a cell, the
/// default background under everything, then each run of cells of one
/// look as a background rectangle and a text span placed on the grid.
pub fn svg(buf: &Buffer) -> String {
    let (w, h) = (u32::from(buf.area.width), u32::from(buf.area.height));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{pw}\" height=\"{ph}\" viewBox=\"0 0 {pw} {ph}\">",
        pw = w * CELL_W,
        ph = h * CELL_H
    );
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"{DEFAULT_BG}\"/>\n<g font-family=\"DejaVu Sans Mono, monospace\" font-size=\"13\">"
    );
    for y in 0..h {
        let row = &buf.content[(y * w) as usize..((y + 1) * w) as usize];
        svg_row(row, y * CELL_H, &mut out);
    }
    out.push_str("</g>\n</svg>\n");
    out
}

/// One row of cells as SVG, its top edge at `top` pixels: a background
/// rectangle for each run of cells of one look that has a background, then
/// a text span for each run that shows something.
pub fn svg_row(row: &[Cell], top: u32, out: &mut String) {
    // Runs of cells with one look: (first column, cells, look, text).
    let mut runs: Vec<(u32, u32, Look, String)> = Vec::new();
    let mut skip = 0usize;
    for (x, cell) in row.iter().enumerate() {
        let hidden = skip > 0;
        skip = skip.saturating_sub(1);
        let mut fg = rgb(cell.fg);
        let mut bg = rgb(cell.bg);
        if cell.modifier.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
            fg = fg.or_else(|| Some(DEFAULT_BG.to_string()));
            bg = bg.or_else(|| Some(DEFAULT_FG.to_string()));
        }
        let look = Look {
            fg: fg.unwrap_or_else(|| DEFAULT_FG.to_string()),
            bg,
            bold: cell.modifier.contains(Modifier::BOLD),
            underline: cell.modifier.contains(Modifier::UNDERLINED),
        };
        let sym = if hidden { "" } else { cell.symbol() };
        if !hidden {
            skip = UnicodeWidthStr::width(sym).saturating_sub(1);
        }
        match runs.last_mut() {
            Some(r) if r.2 == look => {
                r.1 += 1;
                r.3.push_str(sym);
            }
            _ => runs.push((x as u32, 1, look, sym.to_string())),
        }
    }
    for (x, n, look, _) in &runs {
        if let Some(bg) = &look.bg {
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{CELL_H}\" fill=\"{bg}\"/>",
                x * CELL_W,
                top,
                n * CELL_W
            );
        }
    }
    for (x, n, look, text) in &runs {
        if text.trim().is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" fill=\"{}\" textLength=\"{}\" lengthAdjust=\"spacingAndGlyphs\" xml:space=\"preserve\"{}{}>",
            x * CELL_W,
            top + 12,
            look.fg,
            n * CELL_W,
            if look.bold {
                " font-weight=\"bold\""
            } else {
                ""
            },
            if look.underline {
                " text-decoration=\"underline\""
            } else {
                ""
            }
        );
        crate::text::escape_markup(text, out);
        out.push_str("</text>\n");
    }
}

/// The buffer's text, one line per row, trailing spaces cut.
pub fn text(buf: &Buffer) -> String {
    super::buffer_text(buf)
        .lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect()
}

fn lane_state(s: LaneState) -> &'static str {
    match s {
        LaneState::On => "on",
        LaneState::PredOff => "pred_off",
        LaneState::Parked => "parked",
        LaneState::Exited => "exited",
        LaneState::NeverLaunched => "never_launched",
        LaneState::Faulted => "faulted",
    }
}

/// The machine at the shown cycle: every resident warp (pc, masks, lane
/// states, registers and predicates per lane), every buffer's elements,
/// the faults and the memory counters.
pub fn state_json(app: &App) -> Value {
    let m = app.machine();
    let nregs = app.scenario().program.num_regs.min(255) as u8;
    let warps: Vec<Value> = app
        .views()
        .iter()
        .map(|v| {
            let mut regs = serde_json::Map::new();
            for r in 0..nregs {
                let vals = m.lane_values(v.warp, RegSel::Reg(r)).unwrap_or_default();
                regs.insert(format!("R{r}"), json!(vals));
            }
            let mut preds = serde_json::Map::new();
            for p in 0..7 {
                let vals = m.lane_values(v.warp, RegSel::Pred(p)).unwrap_or_default();
                preds.insert(format!("P{p}"), json!(vals));
            }
            json!({
                "warp": v.warp,
                "block": v.block,
                "sm": v.sm,
                "slot": v.slot,
                "pc": v.pc.map(|p| format!("{:#06x}", crate::asm::Program::address(p))),
                "active": format!("{:#x}", v.active),
                "lanes": v.lanes.iter().map(|&s| lane_state(s)).collect::<Vec<_>>(),
                "registers": regs,
                "predicates": preds,
            })
        })
        .collect();
    let mut buffers = serde_json::Map::new();
    for b in m.kernel().buffers() {
        let bytes = m.buffer(&b.name).unwrap_or_default();
        let elems: Vec<String> = (0..b.len as usize)
            .map(|i| super::panes::buffer::element(&bytes, b.ty, i))
            .collect();
        buffers.insert(
            b.name.clone(),
            json!({"type": b.ty.name(), "base": format!("{:#x}", b.base), "elements": elems}),
        );
    }
    let faults: Vec<Value> = m
        .faults()
        .iter()
        .map(|f| {
            json!({
                "warp": f.warp,
                "lane": f.lane,
                "pc": format!("{:#06x}", crate::asm::Program::address(f.pc)),
                "address": format!("{:#x}", f.address),
                "kind": f.kind.name(),
                "cycle": f.cycle,
                "buffer": m.nearest_buffer(f.address).map(|b| b.describe()),
            })
        })
        .collect();
    let mc = m.memory_counters();
    json!({
        "scenario": app.scenario().name,
        "cycle": m.cycle(),
        "finished": m.finished(),
        "error": m.error().map(|e| e.to_string()),
        "warps": warps,
        "buffers": buffers,
        "faults": faults,
        "memory": {
            "global_requests": mc.global_requests,
            "global_sectors": mc.global_sectors,
            "global_transactions": mc.global_transactions,
            "ideal_sectors": mc.ideal_sectors,
            "requested_bytes": mc.requested_bytes,
            "shared_requests": mc.shared_requests,
            "shared_bank_conflicts": mc.shared_bank_conflicts,
        },
    })
}

/// The scenario's name as a file name: lower case letters, digits and
/// `-` (at most 48 characters; `scenario` when nothing is left).
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
        if s.len() >= 48 {
            break;
        }
    }
    let s = s.trim_end_matches('-').to_string();
    if s.is_empty() { "scenario".into() } else { s }
}

/// Writes the screen (text and SVG, at the size last drawn) and the
/// machine (JSON) into `dir`; the paths written.
pub fn export_all(app: &App, dir: &Path) -> io::Result<Vec<PathBuf>> {
    let (w, h) = app.drawn_size();
    let buf = super::render_to_buffer(app, w, h);
    let stem = format!("{}-c{}", slug(&app.scenario().name), app.cycle());
    let txt = dir.join(format!("{stem}.txt"));
    let svg_path = dir.join(format!("{stem}.svg"));
    let json_path = dir.join(format!("{stem}.json"));
    std::fs::write(&txt, text(&buf))?;
    std::fs::write(&svg_path, svg(&buf))?;
    let mut j =
        crate::report::json::to_string_pretty(&state_json(app)).map_err(io::Error::other)?;
    j.push('\n');
    std::fs::write(&json_path, j)?;
    Ok(vec![txt, svg_path, json_path])
}

/// The SVG of the screen at `width` x `height`, written to `path`.
pub fn write_svg(app: &App, width: u16, height: u16, path: &Path) -> io::Result<()> {
    std::fs::write(path, svg(&super::render_to_buffer(app, width, height)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_matches_xterm() {
        // xterm 256: index 16 is black, 196 = 16 + 36*5 is pure red (5 ->
        // 55 + 200 = 255), 232 is the darkest grey (8), 255 the lightest
        // (8 + 230 = 238 = 0xee).
        assert_eq!(indexed(16), "#000000");
        assert_eq!(indexed(196), "#ff0000");
        assert_eq!(indexed(236), "#303030");
        assert_eq!(indexed(255), "#eeeeee");
        assert_eq!(rgb(Color::Reset), None);
        assert_eq!(rgb(Color::Cyan).as_deref(), Some("#00cdcd"));
    }

    #[test]
    fn names_become_file_names() {
        assert_eq!(
            slug("scattered load, 32 transactions"),
            "scattered-load-32-transactions"
        );
        assert_eq!(slug("../../etc"), "etc");
        assert_eq!(slug("***"), "scenario");
    }

    #[test]
    fn text_is_escaped() {
        let mut s = String::new();
        crate::text::escape_markup("a<b&\"c\u{1b}", &mut s);
        assert_eq!(s, "a&lt;b&amp;&quot;c?");
    }
}
