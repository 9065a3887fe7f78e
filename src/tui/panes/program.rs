//! The program listing: addresses, control codes (derived ones marked `*`),
//! where each resident warp is, breakpoints, and per-line execution counts
//! with the average active lanes. It scrolls to follow the focused warp.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{addr, fit, pad, pane_block, rpad, scroll};
use crate::tui::app::{App, Pane};
use crate::tui::theme::{Role, clean};

/// Narrowest instruction text before optional columns are dropped.
const MIN_TEXT: usize = 18;
const EXECS: usize = 7;
const AVG: usize = 6;
const WARPS: usize = 10;
const CONTROL: usize = 23;

#[derive(Debug, Clone, Copy)]
struct Columns {
    control: bool,
    warps: bool,
    execs: bool,
    avg: bool,
    text: usize,
}

impl Columns {
    fn new(w: usize) -> Columns {
        let mut used = 3 + 9;
        let mut take = |n: usize| {
            let ok = used + n + MIN_TEXT <= w;
            if ok {
                used += n;
            }
            ok
        };
        let execs = take(EXECS);
        let avg = take(AVG);
        let warps = take(WARPS);
        let control = take(CONTROL);
        Columns {
            control,
            warps,
            execs,
            avg,
            text: w.saturating_sub(used),
        }
    }
}

/// One listing row: a label or an instruction.
enum Row<'a> {
    Label(&'a str),
    Instr(u32),
}

/// The listing pane.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let sc = app.scenario();
    let prog = &sc.program;
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let cols = Columns::new(inner_w);
    let header = inner_h >= 14;
    let body_h = inner_h.saturating_sub(usize::from(header));

    let mut rows = Vec::new();
    for i in 0..prog.instrs.len() as u32 {
        if let Some(l) = prog.label_at(i) {
            rows.push(Row::Label(l));
        }
        rows.push(Row::Instr(i));
    }
    let cursor_row = rows
        .iter()
        .position(|r| matches!(r, Row::Instr(i) if *i == app.cursor()))
        .unwrap_or(0);
    let first = scroll(rows.len(), cursor_row, body_h.max(1));

    let current = app.focused_view().and_then(|v| v.pc);
    let show_cursor = app.focus() == Pane::Program || !app.follows();
    let pcs = app.pc_counters();
    // With the source pane focused, the instructions of its cursor's line.
    let map = sc.source_map.as_ref();
    let source_line = if app.focus() == Pane::Source {
        app.source_rows().get(app.source_cursor()).copied()
    } else {
        None
    };
    let in_source_line =
        |pc: u32| source_line.is_some() && map.and_then(|m| m.at(pc)) == source_line;
    let mut lines = Vec::new();
    if header {
        let mut h = format!("{:3}{:9}", "", "address");
        if cols.control {
            h.push_str(&pad("control", CONTROL, g.ellipsis));
        }
        h.push_str(&pad("instruction", cols.text, g.ellipsis));
        if cols.warps {
            h.push_str(&rpad("warps", WARPS, g.ellipsis));
        }
        if cols.execs {
            h.push_str(&rpad("execs", EXECS, g.ellipsis));
        }
        if cols.avg {
            h.push_str(&rpad("lanes", AVG, g.ellipsis));
        }
        lines.push(Line::from(Span::styled(h, t.style(Role::Dim))));
    }
    for row in rows.iter().skip(first).take(body_h) {
        let pc = match row {
            Row::Label(l) => {
                lines.push(Line::from(Span::styled(
                    fit(&format!("   {}:", clean(l)), inner_w, g.ellipsis),
                    t.style(Role::Dim),
                )));
                continue;
            }
            Row::Instr(pc) => *pc,
        };
        let Some(ins) = prog.instrs.get(pc as usize) else {
            continue;
        };
        let mut row_style = Style::default();
        if current == Some(pc) {
            row_style = row_style.patch(t.style(Role::Current));
        }
        if (show_cursor && pc == app.cursor()) || in_source_line(pc) {
            row_style = row_style.patch(t.style(Role::Cursor));
        }
        let bp = app.breakpoints().contains(&pc);
        // `?`: a conditional breakpoint (`B`).
        let cond = app.conditions().contains_key(&pc);
        let issued = app.issues().iter().any(|r| r.pc == pc && !r.dispatch_stall);
        let mut spans = vec![
            Span::styled(
                if bp {
                    g.breakpoint
                } else if cond {
                    "?"
                } else {
                    " "
                },
                row_style.patch(t.style(Role::Breakpoint)),
            ),
            Span::styled(
                if issued { g.issued } else { " " },
                row_style.patch(t.style(Role::Issued)),
            ),
            // The focused warp's pc; without the warps column, how many
            // other resident warps are at this pc (a digit, `+` past 9).
            if current == Some(pc) {
                Span::styled(g.focus, row_style.patch(t.style(Role::Focus)))
            } else {
                let others = if cols.warps {
                    0
                } else {
                    app.views().iter().filter(|v| v.pc == Some(pc)).count()
                };
                let mark = match others {
                    0 => " ".to_string(),
                    1..=9 => others.to_string(),
                    _ => "+".to_string(),
                };
                Span::styled(mark, row_style.patch(t.style(Role::Dim)))
            },
            Span::styled(
                format!("{} ", addr(pc)),
                row_style.patch(t.style(Role::Dim)),
            ),
        ];
        if cols.control {
            let mark = if ins.explicit_control { " " } else { "*" };
            spans.push(Span::styled(
                format!("{}{mark} ", ins.control),
                row_style.patch(t.style(Role::Dim)),
            ));
        }
        spans.push(Span::styled(
            pad(&clean(&ins.text), cols.text, g.ellipsis),
            row_style,
        ));
        if cols.warps {
            spans.push(Span::styled(
                rpad(&warps_at(app, pc, WARPS - 1), WARPS, g.ellipsis),
                row_style.patch(t.style(Role::Focus)),
            ));
        }
        let c = pcs.get(pc as usize).copied().unwrap_or_default();
        if cols.execs {
            spans.push(Span::styled(
                rpad(&c.executions.to_string(), EXECS, g.ellipsis),
                row_style,
            ));
        }
        if cols.avg {
            let avg = crate::engine::stats::ratio(c.thread_inst_executed, c.executions);
            spans.push(Span::styled(
                rpad(&super::ratio(avg, 1, g.none), AVG, g.ellipsis),
                row_style,
            ));
        }
        lines.push(Line::from(spans));
    }

    let mut parts = vec![format!("{} instructions", prog.instrs.len())];
    let nbp = app.breakpoints().len() + app.conditions().len();
    if nbp > 0 {
        parts.push(format!(
            "{nbp} breakpoint{}",
            if nbp == 1 { "" } else { "s" }
        ));
    }
    if !app.follows() {
        parts.push("f follows".into());
    }
    let mut title = format!("Program · {}", parts.join(" · "));
    if super::width(&title) + 4 > inner_w && parts.len() > 1 {
        title = format!("Program · {}", parts[1..].join(" · "));
    }
    let block = pane_block(
        app,
        Pane::Program,
        fit(&title, inner_w.saturating_sub(2), g.ellipsis),
    );
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// `w0,2,3`: the resident warps whose next instruction is `pc`.
fn warps_at(app: &App, pc: u32, max: usize) -> String {
    let mut ids: Vec<u32> = app
        .views()
        .iter()
        .filter(|v| v.pc == Some(pc))
        .map(|v| v.warp)
        .collect();
    ids.sort_unstable();
    if ids.is_empty() {
        return String::new();
    }
    let mut s = format!("w{}", ids[0]);
    for (k, id) in ids.iter().enumerate().skip(1) {
        let next = format!(",{id}");
        let rest = ids.len() - k;
        if s.len() + next.len() + if rest > 1 { 3 } else { 0 } > max {
            s.push_str(&format!("+{rest}"));
            return s;
        }
        s.push_str(&next);
    }
    s
}
