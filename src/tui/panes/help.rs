//! The help window (`?`): every key, and the grid's glyphs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{fit, pad, plain_block};
use crate::engine::view::LaneState;
use crate::tui::app::{App, centered};
use crate::tui::keys::{HELP, HELP_SOURCE, SOURCE_LEGEND};
use crate::tui::theme::Role;

const KEY_W: usize = 13;
const DESC_W: usize = 24;

/// Draws the help window centred in `area`.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let entry = KEY_W + 1 + DESC_W;
    let source = app.has_source();
    let mut entries: Vec<(&str, &str)> = HELP.to_vec();
    if source {
        entries.extend_from_slice(HELP_SOURCE);
    }
    // One column when it fits in height, else two side by side.
    let cols = if entries.len() + 4 <= area.height as usize {
        1
    } else {
        2
    };
    let per_col = entries.len().div_ceil(cols);
    let w = (entry * cols + 2 * (cols - 1) + 2)
        .max(74)
        .min(area.width as usize);
    let legend = area.height as usize >= per_col + 6;
    // The source columns' legend, cut into lines of the window's width.
    let source_legend: Vec<String> = if source && legend {
        wrap(SOURCE_LEGEND, w.saturating_sub(2))
    } else {
        Vec::new()
    };
    let source_legend = if area.height as usize >= per_col + 6 + source_legend.len() {
        source_legend
    } else {
        Vec::new()
    };
    let h =
        (per_col + 2 + if legend { 2 } else { 0 } + source_legend.len()).min(area.height as usize);
    let r = centered(area, w as u16, h as u16);
    let mut lines = Vec::new();
    for row in 0..per_col {
        let mut spans = Vec::new();
        for c in 0..cols {
            let Some((k, d)) = entries.get(c * per_col + row) else {
                break;
            };
            if c > 0 {
                spans.push(Span::raw("  "));
            }
            spans.push(Span::styled(pad(k, KEY_W, g.ellipsis), t.style(Role::Key)));
            spans.push(Span::raw(" "));
            spans.push(Span::raw(pad(d, DESC_W, g.ellipsis)));
        }
        lines.push(Line::from(spans));
    }
    if legend {
        lines.push(Line::default());
        let mut spans = Vec::new();
        for (s, label) in [
            (LaneState::On, "on"),
            (LaneState::PredOff, "predicated off"),
            (LaneState::Parked, "parked"),
            (LaneState::Exited, "exited"),
            (LaneState::NeverLaunched, "never launched"),
            (LaneState::Faulted, "faulted"),
        ] {
            spans.push(Span::styled(t.lane(s), t.style(Role::Lane(s))));
            spans.push(Span::raw(format!(" {label}  ")));
        }
        lines.push(Line::from(spans));
        for l in source_legend {
            lines.push(Line::from(Span::styled(l, t.style(Role::Dim))));
        }
    }
    frame.render_widget(Clear, r);
    let title = fit("Keys · ? or Esc closes", w.saturating_sub(4), g.ellipsis);
    frame.render_widget(Paragraph::new(lines).block(plain_block(app, title)), r);
}

/// `s` in lines of at most `w` columns, broken at spaces.
fn wrap(s: &str, w: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in s.split(' ') {
        if !cur.is_empty() && super::width(&cur) + 1 + super::width(word) > w {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|l| fit(&l, w, "~")).collect()
}
