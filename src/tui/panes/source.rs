//! The CUDA source beside the SASS (a program with line info): each source
//! line with its instructions' counters summed (executions, SIMD
//! efficiency, divergent branches, the top stall reason), the focused
//! warp's line marked `▶` and, for other resident warps, how many are on
//! each line. Without the source text, the lines that have instructions
//! are listed by number alone.
//!
//! Columns, full (56 columns inside and up):
//!
//! ```text
//!    line    execs   SIMD  div  top stall    source
//! ●▶2   6   250005  0.719    0  long_sb      if (data[idx] > 0.5f) ...
//! ```
//!
//! and compact (narrower): executions as `31k`, SIMD with two decimals,
//! divergent branches as `dv`, the stall as a two-letter code (the help
//! lists them).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{fit, pad, pane_block, reason, rpad, scroll};
use crate::engine::stats::Reason;
use crate::scenario::source::{LineCounters, SourcePos};
use crate::tui::app::{App, Pane};
use crate::tui::theme::{Role, clean};

/// Inner width from which the full columns are shown.
const FULL: usize = 56;

/// The two-letter code of a stall reason in the compact columns.
pub fn reason_code(r: Reason) -> &'static str {
    match r {
        Reason::Selected => "SE",
        Reason::NotSelected => "NS",
        Reason::Wait => "WT",
        Reason::LongScoreboard => "LS",
        Reason::ShortScoreboard => "SS",
        Reason::Barrier => "BA",
        Reason::BranchResolving => "BR",
        Reason::MathPipeThrottle => "MP",
        Reason::DispatchStall => "DS",
        Reason::ConvergenceBarrier => "CB",
        Reason::Exited => "EX",
    }
}

/// `31256`, `125k`, `12M`: at most six characters.
fn compact_count(n: u64) -> String {
    if n < 100_000 {
        n.to_string()
    } else if n < 100_000_000 {
        format!("{}k", n / 1000)
    } else {
        format!("{}M", n / 1_000_000)
    }
}

/// (execs, simd, div, stall) widths, with their leading space.
fn widths(full: bool) -> (usize, usize, usize, usize) {
    if full { (9, 7, 5, 12) } else { (7, 5, 3, 3) }
}

/// The source pane.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let Some(map) = app.scenario().source_map.as_ref() else {
        return;
    };
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let full = inner_w >= FULL;
    let (we, ws, wd, wt) = widths(full);
    let prefix = 3 + 5;
    let text_w = inner_w.saturating_sub(prefix + we + ws + wd + wt + 1);
    let header = inner_h >= 6;
    let body_h = inner_h.saturating_sub(usize::from(header)).max(1);
    let rows = app.source_rows();
    let cursor = app.source_cursor();
    let first = scroll(rows.len(), cursor, body_h);

    let pos_of = |pc: Option<u32>| pc.and_then(|pc| map.at(pc));
    let focused = app.focused_view().and_then(|v| pos_of(v.pc));
    let counters = app.line_counters();
    let find = |p: SourcePos| -> Option<&LineCounters> {
        counters
            .binary_search_by(|c| c.pos.cmp(&p))
            .ok()
            .and_then(|i| counters.get(i))
    };
    let width = app.scenario().machine.warp_width;

    let mut lines = Vec::new();
    if header {
        let mut h = format!("{:3}{:>4} ", "", "line");
        if full {
            h.push_str(&rpad("execs", we, g.ellipsis));
            h.push_str(&rpad("SIMD", ws, g.ellipsis));
            h.push_str(&rpad("div", wd, g.ellipsis));
            h.push_str(&pad("  top stall", wt, g.ellipsis));
        } else {
            h.push_str(&rpad("exec", we, g.ellipsis));
            h.push_str(&rpad("SIMD", ws, g.ellipsis));
            h.push_str(&rpad("dv", wd, g.ellipsis));
            h.push_str(&rpad("st", wt, g.ellipsis));
        }
        h.push(' ');
        h.push_str("source");
        lines.push(Line::from(Span::styled(
            fit(&h, inner_w, g.ellipsis),
            t.style(Role::Dim),
        )));
    }
    let show_cursor = app.focus() == Pane::Source;
    for (i, &p) in rows.iter().enumerate().skip(first).take(body_h) {
        let c = find(p);
        let mut row_style = Style::default();
        if c.is_none() {
            row_style = row_style.patch(t.style(Role::Dim));
        }
        if focused == Some(p) {
            row_style = row_style.patch(t.style(Role::Current));
        }
        if show_cursor && i == cursor {
            row_style = row_style.patch(t.style(Role::Cursor));
        }
        let bp = app.session().breakpoints().has_line(p.file, p.line);
        let others = app
            .views()
            .iter()
            .filter(|v| v.warp != app.selected_warp() && pos_of(v.pc) == Some(p))
            .count();
        let mark = match others {
            0 => " ".to_string(),
            1..=9 => others.to_string(),
            _ => "+".to_string(),
        };
        let mut spans = vec![
            Span::styled(
                if bp { g.breakpoint } else { " " },
                row_style.patch(t.style(Role::Breakpoint)),
            ),
            if focused == Some(p) {
                Span::styled(g.focus, row_style.patch(t.style(Role::Focus)))
            } else {
                Span::styled(" ", row_style)
            },
            Span::styled(mark, row_style.patch(t.style(Role::Focus))),
            Span::styled(
                format!("{:>4} ", p.line),
                row_style.patch(t.style(Role::Dim)),
            ),
        ];
        let cols = match c {
            Some(c) => {
                let stall = c.top_stall().map_or(String::new(), |(r, _)| {
                    if full {
                        format!("  {}", reason(r, true))
                    } else {
                        format!(" {}", reason_code(r))
                    }
                });
                let digits = if full { 3 } else { 2 };
                [
                    rpad(
                        &if full {
                            c.executions.to_string()
                        } else {
                            compact_count(c.executions)
                        },
                        we,
                        g.ellipsis,
                    ),
                    rpad(
                        &super::ratio(c.simd_efficiency(width), digits, g.none),
                        ws,
                        g.ellipsis,
                    ),
                    rpad(&c.divergent_branches.to_string(), wd, g.ellipsis),
                    pad(&stall, wt, g.ellipsis),
                ]
            }
            None => [
                " ".repeat(we),
                " ".repeat(ws),
                " ".repeat(wd),
                " ".repeat(wt),
            ],
        };
        for s in cols {
            spans.push(Span::styled(s, row_style));
        }
        let text = map.line_text(p).map_or(String::new(), clean);
        spans.push(Span::styled(
            format!(" {}", pad(&text, text_w, g.ellipsis)),
            row_style,
        ));
        lines.push(Line::from(spans));
    }

    let file = rows
        .get(cursor)
        .map_or(String::new(), |p| clean(map.file_name(p.file)));
    let has_text = rows.get(cursor).is_some_and(|p| {
        map.files
            .get(p.file as usize)
            .is_some_and(|f| f.text.is_some())
    });
    let mut title = format!("Source · {file}");
    if !has_text {
        title.push_str(" · text not available");
    }
    let nbp = app.session().breakpoints().len() - app.breakpoints().len();
    if nbp > 0 {
        title.push_str(&format!(
            " · {nbp} line breakpoint{}",
            if nbp == 1 { "" } else { "s" }
        ));
    }
    let block = pane_block(
        app,
        Pane::Source,
        fit(&title, inner_w.saturating_sub(2), g.ellipsis),
    );
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_fit_six_characters() {
        assert_eq!(compact_count(31_256), "31256");
        assert_eq!(compact_count(250_005), "250k");
        assert_eq!(compact_count(99_999_999), "99999k");
        assert_eq!(compact_count(5_750_015_000), "5750M");
    }
}
