//! The lane inspector: the selected lane of the focused warp, its state,
//! pc, predicates and registers (as integer, hex and float).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{addr, fit, pad, pane_block, rpad};
use crate::engine::view::LaneState;
use crate::engine::view::LaneWait;
use crate::tui::app::{App, Pane};
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

/// The lane inspector pane.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
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
        let text = format!(
            "fault: {} at {:#x}, {} (cycle {})",
            f.kind.name(),
            f.address,
            addr(f.pc),
            f.cycle
        );
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
    use super::float;

    #[test]
    fn floats_fit_a_column() {
        assert_eq!(float(1.5f32.to_bits()), "1.5");
        assert_eq!(float(0), "0");
        assert_eq!(float(1), "1.401e-45");
        assert!(float(f32::MAX.to_bits()).len() <= 11);
    }
}
