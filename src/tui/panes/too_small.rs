//! What a terminal below the minimum size shows instead of the panes.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::app::{App, MIN_HEIGHT, MIN_WIDTH};
use crate::tui::theme::Role;

/// Asks for a larger terminal; the cycle stays in view.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let lines = vec![
        Line::from(Span::styled(
            format!("enlarge the terminal to at least {MIN_WIDTH}x{MIN_HEIGHT}"),
            t.style(Role::Error),
        )),
        Line::from(format!("(it is {}x{})", area.width, area.height)),
        Line::default(),
        Line::from(format!("cycle {} · q quits", app.cycle())),
    ];
    let h = (lines.len() as u16 + 1).min(area.height);
    let y = area.y + area.height.saturating_sub(h) / 2;
    frame.render_widget(
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        Rect {
            y,
            height: area.height - (y - area.y),
            ..area
        },
    );
}
