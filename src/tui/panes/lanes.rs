//! The lanes view: one register or predicate across every lane of the
//! focused warp (and, with room, of every resident warp), in the format
//! `v` picks, values changed this cycle marked; and the lane inspector
//! (`l` again): the selected lane's state, pc, predicates and registers.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{addr, fit, line, pad, pane_block, rpad};
use crate::engine::Fault;
use crate::engine::view::LaneState;
use crate::engine::view::LaneWait;
use crate::tui::app::{App, Pane, ValueFormat};
use crate::tui::theme::{Role, clean};

fn state_name(s: LaneState) -> &'static str {
    match s {
        LaneState::On => "on: active, guard true",
        LaneState::PredOff => "active, predicated off",
        LaneState::Parked => "parked by divergence",
        LaneState::Exited => "exited",
        LaneState::NeverLaunched => "never launched",
        LaneState::Faulted => "faulted",
    }
}

/// The lanes view's glyphs and abbreviations, for the help.
pub const LEGEND: &[(&str, &str)] = &[
    ("*", "value changed this cycle"),
    ("i32 u32 hex f32", "how the values are written (v cycles)"),
    ("[ ]", "previous / next register or predicate"),
    (
        "l",
        "show the lanes view; again: the selected lane's registers",
    ),
    ("▶", "the selected lane (. and , move it)"),
    (
        "fault",
        "the lane faulted: kind, address, pc and nearest buffer",
    ),
];

/// A value as `f` writes it.
pub fn value(v: u32, f: ValueFormat) -> String {
    match f {
        ValueFormat::I32 => (v as i32).to_string(),
        ValueFormat::U32 => v.to_string(),
        ValueFormat::Hex => format!("0x{v:08x}"),
        ValueFormat::F32 => float(v),
    }
}

/// One fault as a line: `w0 lane 4: out_of_bounds at 0x1010, /*0020*/, data+0x10 (0x0 past its end)`.
pub fn fault_text(app: &App, f: &Fault) -> String {
    let place = app
        .machine()
        .nearest_buffer(f.address)
        .map_or(String::new(), |b| format!(", {}", b.describe()));
    format!(
        "w{} lane {}: {} at {:#x}, {}{place}",
        f.warp,
        f.lane,
        f.kind.name(),
        f.address,
        addr(f.pc)
    )
}

/// The lanes view (or, after `l` twice, the lane inspector).
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    if app.lane_detail() {
        render_lane(frame, area, app);
    } else {
        render_register(frame, area, app);
    }
}

/// Values of one register across lanes, `cols` lanes a row.
fn register_rows(app: &App, w: usize, cell: usize, h: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let g = t.glyphs;
    let f = app.lanes_format();
    let d = app.data();
    let Some(vals) = d.values.as_ref() else {
        return Vec::new();
    };
    let states = app
        .focused_view()
        .map(|v| v.lanes.clone())
        .unwrap_or_default();
    let n = vals.len();
    let cols = (w / cell).max(1);
    // Lanes run down the columns (lane = c * per + r); a pane too short
    // for them all shows the first rows of each column.
    let per = n.div_ceil(cols).max(1);
    let rows = per.min(h.max(1));
    let mut out = Vec::new();
    for r in 0..rows {
        let mut spans = Vec::new();
        for c in 0..cols {
            let l = c * per + r;
            let Some(&v) = vals.get(l) else { break };
            let changed = d.before.as_ref().is_some_and(|b| b.get(l) != Some(&v));
            let state = states.get(l).copied().unwrap_or(LaneState::On);
            let sel = l as u32 == app.selected_lane();
            let text = if state == LaneState::Faulted {
                "fault".to_string()
            } else {
                value(v, f)
            };
            let body = format!(
                "{}{:>2} {}{}",
                if sel { g.focus } else { " " },
                l,
                rpad(&text, cell.saturating_sub(6), g.ellipsis),
                if changed { "*" } else { " " }
            );
            let role = if changed {
                Role::Issued
            } else {
                match state {
                    LaneState::On | LaneState::PredOff | LaneState::Parked => Role::Title,
                    s => Role::Lane(s),
                }
            };
            let mut style = t.style(role);
            if sel {
                style = style.patch(t.style(Role::Focus));
            }
            spans.push(Span::styled(pad(&body, cell, g.ellipsis), style));
        }
        out.push(Line::from(spans));
    }
    out
}

/// The register view: the focused warp's lanes, then a table of every
/// resident warp around the selected lane, then the warp's faults.
fn render_register(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let sel = app.lanes_register();
    let f = app.lanes_format();
    let title = format!(
        "Lanes · {} of w{} · {}",
        sel.name(),
        app.selected_warp(),
        f.name()
    );
    let block = pane_block(app, Pane::Lanes, title);
    let d = app.data();
    let faults: Vec<&Fault> = app
        .machine()
        .faults()
        .iter()
        .filter(|x| x.warp == app.selected_warp())
        .collect();
    let mut lines = Vec::new();
    let Some(vals) = d.values.as_ref() else {
        let text = if faults.is_empty() {
            format!("w{} is not resident; w picks a warp", app.selected_warp())
        } else {
            format!("w{} has retired; its lanes faulted:", app.selected_warp())
        };
        lines.push(line(fit(&text, w, g.ellipsis), t.style(Role::Dim)));
        for x in faults.iter().take(h.saturating_sub(1)) {
            lines.push(line(
                fit(&fault_text(app, x), w, g.ellipsis),
                t.style(Role::Error),
            ));
        }
        frame.render_widget(Paragraph::new(lines).block(block), area);
        return;
    };
    let changed = d
        .before
        .as_ref()
        .map_or(0, |b| vals.iter().zip(b).filter(|(a, b)| a != b).count());
    lines.push(line(
        fit(
            &format!("{changed} changed (*) · v format · [ ] register · . , lane"),
            w,
            g.ellipsis,
        ),
        t.style(Role::Dim),
    ));
    // Cells: selection mark, lane, value, change mark.
    let cell = match f {
        ValueFormat::I32 | ValueFormat::F32 => 17,
        ValueFormat::U32 | ValueFormat::Hex => 16,
    };
    let fault_rows = faults.len().min(2);
    let room = h.saturating_sub(1 + fault_rows);
    let grid = register_rows(app, w, cell, room);
    let used = grid.len();
    lines.extend(grid);
    // Every resident warp, the lanes around the selected one, with room.
    let table_rows = room.saturating_sub(used + 1);
    if table_rows >= 2 && d.table.len() > 1 {
        let vw = 11;
        let per = ((w.saturating_sub(4)) / (vw + 1)).max(1);
        let nl = vals.len();
        let first = (app.selected_lane() as usize / per * per).min(nl.saturating_sub(per));
        let mut head = pad("", 4, g.ellipsis);
        for l in first..(first + per).min(nl) {
            head.push_str(&rpad(&format!("L{l}"), vw + 1, g.ellipsis));
        }
        lines.push(line(fit(&head, w, g.ellipsis), t.style(Role::Dim)));
        let at = d
            .table
            .iter()
            .position(|(wp, _)| *wp == app.selected_warp())
            .unwrap_or(0);
        let start = super::scroll(d.table.len(), at, table_rows - 1);
        for (wp, vs) in d.table.iter().skip(start).take(table_rows - 1) {
            let mut s = pad(&format!("w{wp}"), 4, g.ellipsis);
            for l in first..(first + per).min(nl) {
                let v = vs.get(l).copied().unwrap_or(0);
                s.push_str(&rpad(&value(v, f), vw + 1, g.ellipsis));
            }
            let role = if *wp == app.selected_warp() {
                Role::Focus
            } else {
                Role::Title
            };
            lines.push(line(fit(&s, w, g.ellipsis), t.style(role)));
        }
    }
    if !faults.is_empty() {
        while lines.len() + fault_rows < h {
            lines.push(Line::default());
        }
        for x in faults.iter().take(fault_rows) {
            lines.push(line(
                fit(&fault_text(app, x), w, g.ellipsis),
                t.style(Role::Error),
            ));
        }
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// A float short enough for a column.
fn float(bits: u32) -> String {
    let f = f32::from_bits(bits);
    let a = f.abs();
    if f == 0.0 || (1e-4..1e7).contains(&a) {
        let s = format!("{f}");
        if s.len() > 11 { format!("{f:.4}") } else { s }
    } else {
        format!("{f:.3e}")
    }
}

/// The lane inspector: the selected lane's registers.
pub fn render_lane(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let title = format!("Lane {} of w{}", app.selected_lane(), app.selected_warp());
    let block = pane_block(app, Pane::Lanes, title);
    let Some(lv) = app.lane_view() else {
        let text = format!(
            "w{} is not resident; w picks a warp, . and , a lane",
            app.selected_warp()
        );
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(
                fit(&text, w, g.ellipsis),
                t.style(Role::Dim),
            )))
            .block(block),
            area,
        );
        return;
    };
    let mut lines = Vec::new();
    lines.push(Line::from(vec![
        Span::styled(t.lane(lv.state), t.style(Role::Lane(lv.state))),
        Span::raw(fit(
            &format!(" {} · tid {}", state_name(lv.state), lv.tid),
            w.saturating_sub(1),
            g.ellipsis,
        )),
    ]));
    let pc_text = match lv.pc {
        Some(pc) => {
            let ins = app
                .scenario()
                .program
                .instrs
                .get(pc as usize)
                .map_or(String::new(), |i| clean(&i.text));
            format!("pc {} {ins}", addr(pc))
        }
        None => format!("pc: none ({})", state_name(lv.state)),
    };
    lines.push(Line::from(fit(&pc_text, w, g.ellipsis)));
    if let Some(wait) = lv.wait {
        let text = match wait {
            LaneWait::Bsync(b) => format!("waits at BSYNC B{b}"),
            LaneWait::Warpsync => "waits at WARPSYNC".into(),
            LaneWait::Bar => "waits at BAR.SYNC".into(),
            LaneWait::Running => String::new(),
        };
        lines.push(Line::from(Span::styled(
            fit(&text, w, g.ellipsis),
            t.style(Role::Warn),
        )));
    }
    if let Some(f) = app
        .machine()
        .faults()
        .iter()
        .find(|f| f.warp == lv.warp && f.lane == lv.lane)
    {
        let text = format!("fault: {} (cycle {})", fault_text(app, f), f.cycle);
        lines.push(Line::from(Span::styled(
            fit(&text, w, g.ellipsis),
            t.style(Role::Error),
        )));
    }
    let mut preds = String::new();
    if w >= 34 {
        for p in 0..7 {
            preds.push_str(&format!("P{p}={} ", (lv.preds >> p) & 1));
        }
    } else {
        preds.push_str("P0..P6 ");
        for p in 0..7 {
            preds.push_str(&format!("{}", (lv.preds >> p) & 1));
        }
    }
    lines.push(Line::from(Span::styled(
        fit(preds.trim_end(), w, g.ellipsis),
        t.style(Role::Dim),
    )));

    // Registers in as many columns as fit, each `R1  -12  0xfffffff4  nan`.
    let with_float = w >= 39;
    let cell_w = if with_float { 39 } else { 27 };
    let ncols = (w / (cell_w + 1)).max(1);
    let rows_left = h.saturating_sub(lines.len());
    let per_col = lv.regs.len().div_ceil(ncols).max(1);
    let shown_rows = per_col.min(rows_left);
    for r in 0..shown_rows {
        let mut s = String::new();
        for c in 0..ncols {
            let i = c * per_col + r;
            let Some(&v) = lv.regs.get(i) else { break };
            let mut cell = format!(
                "{} {} 0x{v:08x}",
                pad(&format!("R{i}"), 4, g.ellipsis),
                rpad(&(v as i32).to_string(), 11, g.ellipsis)
            );
            if with_float {
                cell.push_str(&format!(" {}", rpad(&float(v), 11, g.ellipsis)));
            }
            if c > 0 {
                s.push(' ');
            }
            s.push_str(&pad(&cell, cell_w, g.ellipsis));
        }
        lines.push(Line::from(fit(s.trim_end(), w, g.ellipsis)));
    }
    if shown_rows < per_col
        && let Some(last) = lines.last_mut()
    {
        *last = Line::from(Span::styled(
            fit(
                &format!(
                    "{} more registers: a wider pane shows them",
                    (per_col - shown_rows) * ncols
                ),
                w,
                g.ellipsis,
            ),
            t.style(Role::Dim),
        ));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::{float, value};
    use crate::tui::app::ValueFormat;

    #[test]
    fn each_format_writes_the_same_bits() {
        // 2.5 = 1.25 x 2^1: sign 0, exponent 128 (0x80), mantissa 0x200000
        // -> 0x40200000 = 1075838976.
        let v = 2.5f32.to_bits();
        assert_eq!(value(v, ValueFormat::Hex), "0x40200000");
        assert_eq!(value(v, ValueFormat::U32), "1075838976");
        assert_eq!(value(v, ValueFormat::F32), "2.5");
        // -12 in two's complement: 2^32 - 12 = 4294967284 = 0xfffffff4.
        assert_eq!(value(0xffff_fff4, ValueFormat::I32), "-12");
        assert_eq!(value(0xffff_fff4, ValueFormat::U32), "4294967284");
    }

    #[test]
    fn floats_fit_a_column() {
        assert_eq!(float(1.5f32.to_bits()), "1.5");
        assert_eq!(float(0), "0");
        assert_eq!(float(1), "1.401e-45");
        assert!(float(f32::MAX.to_bits()).len() <= 11);
    }
}
