//! The help window (`?`): every key, and the grid's glyphs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{fit, pad, plain_block};
use crate::engine::view::LaneState;
use crate::tui::app::{App, centered};
use crate::tui::keys::HELP;
use crate::tui::theme::Role;

const KEY_W: usize = 13;
const DESC_W: usize = 24;

/// Draws the help window centred in `area`.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let entry = KEY_W + 1 + DESC_W;
    // One column when it fits in height, else two side by side.
    let cols = if HELP.len() + 4 <= area.height as usize {
        1
    } else {
        2
    };
    let per_col = HELP.len().div_ceil(cols);
    let w = (entry * cols + 2 * (cols - 1) + 2)
        .max(74)
        .min(area.width as usize);
    let legend = area.height as usize >= per_col + 6;
    let h = (per_col + 2 + if legend { 2 } else { 0 }).min(area.height as usize);
    let r = centered(area, w as u16, h as u16);
    let mut lines = Vec::new();
    for row in 0..per_col {
        let mut spans = Vec::new();
        for c in 0..cols {
            let Some((k, d)) = HELP.get(c * per_col + row) else {
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
    }
    frame.render_widget(Clear, r);
    let title = fit("Keys · ? or Esc closes", w.saturating_sub(4), g.ellipsis);
    frame.render_widget(Paragraph::new(lines).block(plain_block(app, title)), r);
}
