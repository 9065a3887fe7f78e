//! About: the scenario's name, description and machine, and how the run
//! ended; a pane in the widest layout and a window (`i`) in every one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::plain_block;
use super::ready_queue::policy_name;
use crate::scenario::Convergence;
use crate::tui::app::App;
use crate::tui::theme::{Role, clean};

/// The about pane.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let sc = app.scenario();
    let m = &sc.machine;
    let mut lines = vec![
        Line::from(Span::styled(clean(&sc.name), t.style(Role::Title))),
        Line::from(Span::styled(
            clean(&sc.origin.to_string()),
            t.style(Role::Dim),
        )),
    ];
    let plural = |n: u32, s: &str| format!("{n} {s}{}", if n == 1 { "" } else { "s" });
    let machine = format!(
        "{}-lane warps · {} · {} · {} x {}",
        m.warp_width,
        match m.convergence {
            Convergence::Stack => "stack",
            Convergence::Its => "its",
        },
        policy_name(m.policy).0,
        plural(m.sms, "SM"),
        plural(m.schedulers, "scheduler"),
    );
    lines.push(Line::from(machine));
    lines.push(Line::from(format!(
        "{} x {} threads = {} warps",
        plural(sc.launch.blocks, "block"),
        sc.launch.block_dim,
        u64::from(sc.launch.blocks) * u64::from(sc.warps_per_block())
    )));
    let l = &m.latency;
    lines.push(Line::from(Span::styled(
        format!(
            "latency: alu {} · sfu {} · shared {} · global {} (+{}/line) · branch {}",
            l.alu, l.sfu, l.shared, l.global, l.global_per_extra_line, l.branch
        ),
        t.style(Role::Dim),
    )));
    let mach = app.machine();
    if let Some(e) = mach.error() {
        lines.push(Line::from(Span::styled(
            format!("stopped: {}", clean(&e.to_string())),
            t.style(Role::Error),
        )));
    } else if mach.finished() {
        lines.push(Line::from(Span::styled(
            format!("finished at cycle {}", mach.cycle()),
            t.style(Role::Good),
        )));
    }
    if mach.faults_total() > 0 {
        lines.push(Line::from(Span::styled(
            format!("{} lanes faulted", mach.faults_total()),
            t.style(Role::Error),
        )));
    }
    // The description reflowed: a blank line separates paragraphs.
    for para in sc.description.split("\n\n") {
        let text = para.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            lines.push(Line::default());
            lines.push(Line::from(clean(&text)));
        }
    }
    let block = plain_block(app, "About · i".into());
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}
