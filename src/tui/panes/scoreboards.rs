//! Scoreboards: the focused warp's SB0..SB5 (pending producers, the one
//! completing last with its pc and opcode, short or long, cycles left) and
//! its next instruction's control code with the scoreboards it waits on
//! highlighted; with room, every warp's scoreboards as a table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{addr, fit, hex, pad, pane_block, rpad, scroll};
use crate::engine::view::{ScoreboardView, WarpView};
use crate::tui::app::{App, Pane};
use crate::tui::theme::{Role, clean};

/// The scoreboards pane.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    match app.focused_view() {
        None => lines.push(Line::from(Span::styled(
            fit(
                &format!("w{} is not resident", app.selected_warp()),
                w,
                g.ellipsis,
            ),
            t.style(Role::Dim),
        ))),
        Some(v) => detail(app, v, w, h, &mut lines),
    }
    let table_rows = h.saturating_sub(lines.len() + 1);
    if table_rows >= 2 && w >= 50 && !app.views().is_empty() {
        // A blank line before the table when every warp still fits.
        let rows = if table_rows > app.views().len() + 1 {
            lines.push(Line::default());
            table_rows
        } else {
            table_rows + 1
        };
        table(app, w, rows, &mut lines);
    }
    let title = format!("Scoreboards · w{}", app.selected_warp());
    frame.render_widget(
        Paragraph::new(lines).block(pane_block(app, Pane::Scoreboards, title)),
        area,
    );
}

fn kind(p: &crate::engine::view::ProducerView, short: bool) -> &'static str {
    match (p.read, p.class.is_long(), short) {
        (true, _, true) => "R",
        (true, _, false) => "read",
        (false, true, true) => "L",
        (false, true, false) => "long",
        (false, false, true) => "S",
        (false, false, false) => "short",
    }
}

/// The next instruction, its control code, and one row per scoreboard.
fn detail(app: &App, v: &WarpView, w: usize, h: usize, lines: &mut Vec<Line<'static>>) {
    let t = app.theme();
    let g = t.glyphs;
    let code = app.machine().code();
    let next = v.pc.and_then(|pc| code.get(pc as usize).map(|d| (pc, d)));
    let wide = w >= 40;
    match next {
        None => lines.push(Line::from(Span::styled(
            fit(
                &format!("w{}: no next instruction (exited)", v.warp),
                w,
                g.ellipsis,
            ),
            t.style(Role::Dim),
        ))),
        Some((pc, d)) => {
            let head = format!("w{} next {} {}", v.warp, addr(pc), clean(&d.instr.text));
            lines.push(Line::from(fit(&head, w, g.ellipsis)));
            // The control code, with the wait-mask digits of scoreboards
            // still pending highlighted.
            let ctl = d.instr.control.to_string();
            let mut spans = Vec::new();
            for (i, ch) in ctl.chars().enumerate() {
                let sb = i.checked_sub(2).filter(|&n| n < 6);
                let blocking = sb.is_some_and(|n| v.blocking_scoreboards & (1 << n) != 0);
                let style = if blocking {
                    t.style(Role::Blocking)
                } else {
                    t.style(Role::Dim)
                };
                spans.push(Span::styled(ch.to_string(), style));
            }
            spans.push(Span::styled(
                if d.instr.explicit_control { " " } else { "*" },
                t.style(Role::Dim),
            ));
            let waits: Vec<String> = (0..6)
                .filter(|n| v.blocking_scoreboards & (1 << n) != 0)
                .map(|n| format!("SB{n}"))
                .collect();
            let note = if waits.is_empty() {
                if d.instr.control.wait_mask != 0 {
                    " ok".to_string()
                } else {
                    String::new()
                }
            } else {
                format!(" waits {}", waits.join(","))
            };
            let room = w.saturating_sub(ctl.len() + 1);
            let note = if super::width(&note) <= room {
                note
            } else {
                String::new()
            };
            spans.push(Span::styled(
                note,
                if waits.is_empty() {
                    t.style(Role::Good)
                } else {
                    t.style(Role::Blocking)
                },
            ));
            lines.push(Line::from(spans));
        }
    }
    if h >= 9 {
        let head = if wide {
            "  SB  n  producer pc, opcode    kind  left"
        } else {
            "  SB n  producer  left"
        };
        lines.push(Line::from(Span::styled(
            fit(head, w, g.ellipsis),
            t.style(Role::Dim),
        )));
    }
    for sb in &v.scoreboards {
        lines.push(sb_row(app, v, sb, w, wide));
    }
}

fn sb_row(app: &App, v: &WarpView, sb: &ScoreboardView, w: usize, wide: bool) -> Line<'static> {
    let t = app.theme();
    let g = t.glyphs;
    let blocking = v.blocking_scoreboards & (1 << sb.index) != 0;
    let mark = if blocking { g.focus } else { " " };
    let style = if blocking {
        t.style(Role::Blocking)
    } else if sb.pending == 0 {
        t.style(Role::Dim)
    } else {
        Style::default()
    };
    let mut s = format!(" SB{} {:>2}", sb.index, sb.pending);
    if let Some(p) = &sb.producer {
        let d = app.machine().code().get(p.pc as usize);
        if wide {
            let op = d.map_or(String::new(), |d| clean(&d.instr.mnemonic));
            s.push_str(&format!(
                "  {} {} {} {}",
                hex(p.pc),
                pad(&op, 14, g.ellipsis),
                pad(kind(p, false), 5, g.ellipsis),
                rpad(&sb.cycles_left.to_string(), 5, g.ellipsis)
            ));
        } else {
            let op = d.map_or(String::new(), |d| clean(d.instr.opcode()));
            s.push_str(&format!(
                " {} {} {}{}",
                hex(p.pc),
                pad(&op, 4, g.ellipsis),
                kind(p, true),
                rpad(&sb.cycles_left.to_string(), 5, g.ellipsis)
            ));
        }
        if wide && sb.pending > 1 {
            s.push_str(&format!(" (+{} more)", sb.pending - 1));
        }
    }
    Line::from(vec![
        Span::styled(mark, t.style(Role::Blocking)),
        Span::styled(fit(&s, w.saturating_sub(1), g.ellipsis), style),
    ])
}

/// Every resident warp's scoreboards: `n:left` per pending scoreboard.
fn table(app: &App, w: usize, rows: usize, lines: &mut Vec<Line<'static>>) {
    let t = app.theme();
    let g = t.glyphs;
    let mut head = String::from(" warp ");
    for n in 0..6 {
        head.push_str(&rpad(&format!("SB{n}"), 8, g.ellipsis));
    }
    head.push_str("  next waits");
    lines.push(Line::from(Span::styled(
        fit(&head, w, g.ellipsis),
        t.style(Role::Dim),
    )));
    let views = app.views();
    let at = views
        .iter()
        .position(|v| v.warp == app.selected_warp())
        .unwrap_or(0);
    let first = scroll(views.len(), at, rows - 1);
    for v in views.iter().skip(first).take(rows - 1) {
        let focused = v.warp == app.selected_warp();
        let mut spans = vec![Span::styled(
            format!(
                "{}{:>4} ",
                if focused { g.focus } else { " " },
                format!("w{}", v.warp)
            ),
            if focused {
                t.style(Role::Focus)
            } else {
                Style::default()
            },
        )];
        for sb in &v.scoreboards {
            let blocking = v.blocking_scoreboards & (1 << sb.index) != 0;
            let cell = if sb.pending == 0 {
                g.idle.to_string()
            } else {
                format!("{}:{}", sb.pending, sb.cycles_left)
            };
            spans.push(Span::styled(
                rpad(&cell, 8, g.ellipsis),
                if blocking {
                    t.style(Role::Blocking)
                } else if sb.pending == 0 {
                    t.style(Role::Dim)
                } else {
                    Style::default()
                },
            ));
        }
        let waits: Vec<String> = (0..6)
            .filter(|n| v.blocking_scoreboards & (1 << n) != 0)
            .map(|n| format!("SB{n}"))
            .collect();
        let note = if waits.is_empty() {
            g.none.to_string()
        } else {
            waits.join(",")
        };
        spans.push(Span::styled(format!("  {note}"), t.style(Role::Blocking)));
        lines.push(Line::from(spans));
    }
}
