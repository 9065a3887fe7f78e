//! The status line: `cycle N` always, then what happened or is happening,
//! the scenario, its convergence model and policy, and key hints; the
//! less important fields shrink or drop first in a narrow terminal.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::ready_queue::policy_name;
use super::{fit, width};
use crate::scenario::Convergence;
use crate::tui::app::{App, MessageKind, PromptKind};
use crate::tui::theme::{Role, clean};

/// A field: its text, style, the narrowest it may be cut to (0: it is
/// dropped rather than cut), and how long it stays (higher stays longer).
struct Field {
    text: String,
    style: Style,
    min: usize,
    keep: u8,
}

/// The status line.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let m = app.machine();
    let mut fields = vec![Field {
        text: format!("cycle {}", app.cycle()),
        style: t.style(Role::FocusedTitle),
        min: 0,
        keep: 255,
    }];
    let mut state = |text: String, role: Role, min: usize, keep: u8| {
        fields.push(Field {
            text,
            style: t.style(role),
            min,
            keep,
        })
    };
    if let Some(p) = app.prompt() {
        let ask = match app.prompt_kind() {
            Some(PromptKind::Search) => "search the program: /",
            Some(PromptKind::Pc) => "go to address or label: :",
            Some(PromptKind::Condition) => "break here if (w3, active<8, div, R2==5): ",
            _ => "go to cycle: ",
        };
        state(
            format!("{ask}{}_  (Enter, Esc)", clean(p)),
            Role::Key,
            16,
            200,
        );
    } else if let Some(n) = app.pending_count() {
        state(format!("count {n}_"), Role::Key, 0, 200);
    }
    if let Some(run) = app.run() {
        let speed = if run.fast { "fast" } else { app.speed_label() };
        // A run that takes a while says how far it got and how fast.
        let progress = app.progress().map_or(String::new(), |(done, secs)| {
            let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
            format!(
                " · {} cycles in {secs:.1} s ({}/s)",
                super::group_digits(done),
                super::group_digits(rate as u64)
            )
        });
        state(
            format!(
                "{} running {}{progress} · {speed} · Esc stops, q quits",
                g.focus,
                if run.back {
                    run.goal.describe_back()
                } else {
                    run.goal.describe()
                }
            ),
            Role::Warn,
            12,
            190,
        );
    }
    if let Some(msg) = app.message() {
        let role = match msg.kind {
            MessageKind::Info => Role::Good,
            MessageKind::Warn => Role::Warn,
            MessageKind::Error => Role::Error,
        };
        state(clean(&msg.text), role, 12, 150);
    } else if let Some(e) = m.error() {
        state(
            format!("stopped: {}", clean(&e.to_string())),
            Role::Error,
            16,
            160,
        );
    } else if m.finished() {
        state("finished".into(), Role::Good, 0, 160);
    }
    if m.faults_total() > 0 && app.message().is_none_or(|x| x.kind != MessageKind::Error) {
        state(
            format!("{} faulted lanes", m.faults_total()),
            Role::Error,
            0,
            140,
        );
    }
    let sc = app.scenario();
    state(clean(&sc.name), Role::Title, 10, 85);
    let model = match sc.machine.convergence {
        Convergence::Stack => "stack",
        Convergence::Its => "its",
    };
    state(
        format!("{model} · {}", policy_name(sc.machine.policy).0),
        Role::Dim,
        0,
        90,
    );
    // Real code of Volta and newer: say what the other model shows.
    if sc.listing.as_ref().is_some_and(|l| l.arch.sm >= 70) {
        let other = match sc.machine.convergence {
            Convergence::Its => "its = Volta+; --convergence stack shows pre-Volta",
            Convergence::Stack => "stack = pre-Volta; --convergence its shows Volta+",
        };
        state(other.into(), Role::Dim, 0, 80);
    }
    let hints = if area.width >= 140 {
        "n/Space step  p back  s warp  d/r/c run  g go to  ? help  q quit"
    } else {
        "? help  q quit"
    };
    state(hints.into(), Role::Key, 0, 120);

    // The least kept field shrinks to its minimum, then goes, until it fits.
    let sep = format!(" {} ", g.sep);
    let total = |fs: &[Field]| {
        fs.iter().map(|f| width(&f.text)).sum::<usize>()
            + width(&sep) * fs.len().saturating_sub(1)
            + 2
    };
    let avail = area.width as usize;
    while total(&fields) > avail && fields.len() > 1 {
        let over = total(&fields) - avail;
        let Some((i, _)) = fields.iter().enumerate().min_by_key(|(_, f)| f.keep) else {
            break;
        };
        let f = &mut fields[i];
        if f.min > 0 && width(&f.text) > f.min {
            let to = width(&f.text).saturating_sub(over).max(f.min);
            f.text = fit(&f.text, to, g.ellipsis);
        } else {
            fields.remove(i);
        }
    }
    let mut spans = vec![Span::raw(" ")];
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(sep.clone(), t.style(Role::Dim)));
        }
        spans.push(Span::styled(f.text, f.style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
