//! The ready queue: per warp scheduler, its warps in the order its policy
//! considers them, eligible or why not (the stall reason as Nsight Compute
//! names it) and for how long; the warp that issued last cycle and the one
//! the policy picks next are marked.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{fit, pane_block, reason, width};
use crate::engine::view::{QueueEntry, WarpStatus};
use crate::scenario::Policy;
use crate::tui::app::{App, Pane};
use crate::tui::theme::Role;

pub fn policy_name(p: Policy) -> (&'static str, &'static str) {
    match p {
        Policy::Lrr => ("lrr", "loose round robin"),
        Policy::Gto => ("gto", "greedy then oldest"),
    }
}

fn warps(n: usize) -> String {
    format!("{n} warp{}", if n == 1 { "" } else { "s" })
}

/// The ready-queue pane.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let (short_name, long_name) = policy_name(app.scenario().machine.policy);
    let short = w < 34;
    let sms = app.scenario().machine.sms;
    let queues = app.queues();
    let legend = h > queues.iter().map(|q| q.2.len() + 1).sum::<usize>() + 1;
    let mut budget = h.saturating_sub(usize::from(legend));
    // Every scheduler gets a share of the rows (header included).
    let share = (budget / queues.len().max(1)).max(2);
    let mut lines = Vec::new();
    // The focused warp's scheduler first, so its place is always in view.
    let mut order: Vec<&(u32, u32, Vec<QueueEntry>)> = queues.iter().collect();
    order.sort_by_key(|(_, _, q)| !q.iter().any(|e| e.warp == app.selected_warp()));
    for (sm, k, q) in order {
        if budget == 0 {
            break;
        }
        let head = if sms > 1 {
            format!("SM{sm} scheduler {k}: {}", warps(q.len()))
        } else {
            format!("scheduler {k}: {}", warps(q.len()))
        };
        lines.push(Line::from(Span::styled(
            fit(&head, w, g.ellipsis),
            t.style(Role::Dim),
        )));
        budget -= 1;
        // Keep the focused warp in view, or else the one picked next.
        let at = q
            .iter()
            .position(|e| e.warp == app.selected_warp())
            .or_else(|| q.iter().position(|e| e.next || e.issued_last))
            .unwrap_or(0);
        let rows = budget.min(q.len()).min(share - 1);
        let first = super::scroll(q.len(), at, rows.max(1));
        for e in q.iter().skip(first).take(rows) {
            lines.push(entry(app, e, w, short));
        }
        budget -= rows;
        if q.is_empty() && budget > 0 {
            lines.push(Line::from(Span::styled("  (no warp)", t.style(Role::Dim))));
            budget -= 1;
        }
    }
    if legend {
        while lines.len() + 1 < h {
            lines.push(Line::default());
        }
        // The longest wording that fits whole.
        let text = [
            format!("{} issued last cycle  {} picks next", g.issued, g.next),
            format!("{} issued  {} picks next", g.issued, g.next),
            format!("{} issued {} next", g.issued, g.next),
        ]
        .into_iter()
        .find(|s| width(s) <= w)
        .unwrap_or_default();
        lines.push(Line::from(Span::styled(text, t.style(Role::Dim))));
    }
    let title = if w >= 34 {
        format!("Ready queue · {short_name} ({long_name})")
    } else {
        format!("Ready queue · {short_name}")
    };
    frame.render_widget(
        Paragraph::new(lines).block(pane_block(
            app,
            Pane::Queue,
            fit(&title, w.saturating_sub(2), g.ellipsis),
        )),
        area,
    );
}

fn entry(app: &App, e: &QueueEntry, w: usize, short: bool) -> Line<'static> {
    let t = app.theme();
    let g = t.glyphs;
    let focused = e.warp == app.selected_warp();
    let (status, role) = match e.status {
        WarpStatus::Eligible => ("eligible".to_string(), Role::Good),
        WarpStatus::Exited => ("exited".to_string(), Role::Dim),
        WarpStatus::Stalled {
            reason: r,
            labelled,
            cycles_left,
        } => {
            let mut s = reason(r, short).to_string();
            if let Some(n) = cycles_left {
                s.push_str(&format!(" {n}"));
            }
            if labelled != r && !short {
                s.push_str(&format!(" (profiler: {})", reason(labelled, true)));
            }
            (s, Role::Warn)
        }
    };
    let id = format!("{}w{:<3}", if focused { g.focus } else { " " }, e.warp);
    let spans = vec![
        Span::styled(
            if e.issued_last { g.issued } else { " " },
            t.style(Role::Issued),
        ),
        Span::styled(if e.next { g.next } else { " " }, t.style(Role::Focus)),
        Span::styled(
            id,
            if focused {
                t.style(Role::Focus)
            } else {
                Style::default()
            },
        ),
        Span::styled(fit(&status, w.saturating_sub(8), g.ellipsis), t.style(role)),
    ];
    Line::from(spans)
}
