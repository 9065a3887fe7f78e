//! The buffer view (`u`): one of the scenario's global buffers, word by
//! word in its element type, the words accessed in the last cycle marked;
//! `u` again shows the next buffer, j/k and PageUp/PageDown scroll it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{fit, line, pad, pane_block, rpad};
use crate::engine::ElemType;
use crate::tui::app::{App, Pane};
use crate::tui::theme::{Role, clean};

/// The buffer view's glyphs and abbreviations, for the help.
pub const LEGEND: &[(&str, &str)] = &[
    ("*", "accessed by what issued in the last cycle"),
    ("+0x40", "byte offset of the row's first element"),
    (
        "u",
        "show a buffer; again: the next one; after the last, hide",
    ),
];

/// Elements a row shows at most (fewer when the pane is narrow).
pub const PER_ROW: usize = 8;

/// Element `i` of `bytes` as `ty` writes it.
pub fn element(bytes: &[u8], ty: ElemType, i: usize) -> String {
    let n = ty.size() as usize;
    let Some(b) = bytes.get(i * n..i * n + n) else {
        return String::new();
    };
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(b);
    let v = u64::from_le_bytes(w);
    match (ty.is_float(), n) {
        (true, 4) => super::lanes::value(v as u32, crate::tui::app::ValueFormat::F32),
        (true, _) => format!("{}", f64::from_bits(v)),
        (false, _) if ty.is_signed() => {
            let shift = 64 - 8 * n as u32;
            (((v << shift) as i64) >> shift).to_string()
        }
        _ => v.to_string(),
    }
}

/// The row holding the first element accessed this cycle in the shown
/// buffer, a row above it (0 when none was accessed).
pub fn auto_row(app: &App, per_row: usize) -> usize {
    let Some(b) = app.machine().kernel().buffers().get(app.buffer_index()) else {
        return 0;
    };
    let size = b.ty.size().max(1);
    app.data()
        .touched
        .iter()
        .filter(|&&(a, _)| a >= b.base && a - b.base < b.bytes())
        .map(|&(a, _)| ((a - b.base) / size) as usize / per_row.max(1))
        .min()
        .map_or(0, |r| r.saturating_sub(1))
}

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let bufs = app.machine().kernel().buffers();
    let Some(spec) = bufs.get(app.buffer_index()) else {
        let block = pane_block(app, Pane::Buffer, "Buffer".into());
        frame.render_widget(
            Paragraph::new(line("no buffers".into(), t.style(Role::Dim))).block(block),
            area,
        );
        return;
    };
    let title = format!(
        "Buffer {} ({} x {}) · {} of {} · u next",
        clean(&spec.name),
        spec.ty.name(),
        spec.len,
        app.buffer_index() + 1,
        bufs.len()
    );
    let block = pane_block(app, Pane::Buffer, title);
    let bytes = app.machine().buffer(&spec.name).unwrap_or_default();
    let size = spec.ty.size().max(1);
    let cell = 12;
    let per_row = ((w.saturating_sub(8)) / cell).clamp(1, PER_ROW);
    let rows = (spec.len as usize).div_ceil(per_row);
    let first = app
        .buffer_scroll()
        .unwrap_or_else(|| auto_row(app, per_row))
        .min(rows.saturating_sub(h.max(1)));
    let touched: Vec<u32> = app
        .data()
        .touched
        .iter()
        .filter(|&&(a, _)| a >= spec.base && a - spec.base < spec.bytes())
        .map(|&(a, _)| (a - spec.base) / size)
        .collect();
    let mut lines: Vec<Line> = Vec::new();
    for r in first..(first + h).min(rows) {
        let mut spans = vec![Span::styled(
            pad(
                &format!("+{:#x}", r * per_row * size as usize),
                8,
                g.ellipsis,
            ),
            t.style(Role::Dim),
        )];
        for c in 0..per_row {
            let i = r * per_row + c;
            if i >= spec.len as usize {
                break;
            }
            let hit = touched.contains(&(i as u32));
            let text = format!(
                "{}{}",
                rpad(&element(&bytes, spec.ty, i), cell - 1, g.ellipsis),
                if hit { "*" } else { " " }
            );
            let role = if hit { Role::Issued } else { Role::Title };
            spans.push(Span::styled(text, t.style(role)));
        }
        lines.push(Line::from(spans));
    }
    if lines.is_empty() {
        lines.push(line(fit("empty buffer", w, g.ellipsis), t.style(Role::Dim)));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::element;
    use crate::engine::ElemType;

    #[test]
    fn elements_are_written_in_their_type() {
        // 1.0f32 = 0x3f800000; -2i32 = 0xfffffffe; little-endian bytes.
        let b = [0x00, 0x00, 0x80, 0x3f, 0xfe, 0xff, 0xff, 0xff];
        assert_eq!(element(&b, ElemType::F32, 0), "1");
        assert_eq!(element(&b, ElemType::I32, 1), "-2");
        assert_eq!(element(&b, ElemType::U32, 1), "4294967294");
        assert_eq!(element(&b, ElemType::U32, 2), "");
    }
}
