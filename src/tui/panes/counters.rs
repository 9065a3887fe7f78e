//! Efficiency counters of docs/execution-model.md for the focused warp and the whole run
//! (per warp too, when there is room), and a sparkline of the SIMD
//! efficiency of each recent cycle (`·`: nothing issued that cycle).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline, SparklineBar};

use super::{fit, pad, pane_block, ratio, rpad, scroll};
use crate::engine::stats::Counters;
use crate::tui::app::{App, Pane};
use crate::tui::theme::Role;

/// The counters pane.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let block = pane_block(app, Pane::Counters, "Counters".into());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let w = inner.width as usize;
    let h = inner.height as usize;
    let table = w >= 52 && h >= 10;
    let faults = app.machine().faults_total();
    let text_rows = if table {
        // Header, warps, total, faults.
        (h - 4).min(app.records().len() + 2 + usize::from(faults > 0))
    } else {
        8 + usize::from(faults > 0)
    };
    let spark_rows = h.saturating_sub(text_rows);
    let [text_area, spark_area] = Layout::vertical([
        Constraint::Length(text_rows.min(h) as u16),
        Constraint::Length(spark_rows as u16),
    ])
    .areas(inner);

    let lines = if table {
        per_warp_table(app, w, text_rows)
    } else {
        two_columns(app, w)
    };
    let mut lines = lines;
    if faults > 0 {
        lines.push(Line::from(Span::styled(
            fit(
                &format!("faulted lanes {faults} ({})", g.faulted),
                w,
                g.ellipsis,
            ),
            t.style(Role::Error),
        )));
    }
    frame.render_widget(Paragraph::new(lines), text_area);
    sparkline(frame, spark_area, app);
}

/// Formats one counter of a warp or of the run.
type Cell<'a> = dyn Fn(&Counters) -> String + 'a;

/// `issued`, `sum A`, `sum P` and the ratios for the focused warp and all.
fn two_columns(app: &App, w: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let g = t.glyphs;
    let width = app.scenario().machine.warp_width;
    let focused = app
        .records()
        .iter()
        .find(|r| r.warp == app.selected_warp())
        .map(|r| r.counters);
    let all = *app.totals();
    let col = w.saturating_sub(9) / 2;
    let cell = |c: Option<&Counters>, f: &Cell| {
        let s = c.map_or_else(|| g.none.to_string(), f);
        format!(" {}", rpad(&s, col.saturating_sub(1), g.ellipsis))
    };
    let rows: [(&str, &Cell); 7] = [
        ("issued", &|c| c.issued.to_string()),
        ("sum A", &|c| c.thread_inst_executed.to_string()),
        ("sum P", &|c| c.thread_inst_executed_pred_on.to_string()),
        ("SIMD eff", &|c| ratio(c.simd_efficiency(width), 3, g.none)),
        ("branch", &|c| ratio(c.branch_efficiency(), 3, g.none)),
        ("div br", &|c| {
            format!("{}/{}", c.divergent_branches, c.branches)
        }),
        ("thr/inst", &|c| ratio(c.avg_threads_per_inst(), 1, g.none)),
    ];
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:9}{}{}",
            "",
            rpad(&format!("w{}", app.selected_warp()), col, g.ellipsis),
            rpad("all", col, g.ellipsis)
        ),
        t.style(Role::Dim),
    ))];
    for (label, f) in rows {
        lines.push(Line::from(vec![
            Span::styled(pad(label, 9, g.ellipsis), t.style(Role::Dim)),
            Span::styled(cell(focused.as_ref(), f), t.style(Role::Focus)),
            Span::raw(cell(Some(&all), f)),
        ]));
    }
    lines
}

/// One row per warp (retired ones too) and the total.
fn per_warp_table(app: &App, w: usize, rows: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let g = t.glyphs;
    let width = app.scenario().machine.warp_width;
    let cols = [
        "issued", "sum A", "sum P", "SIMD", "branch", "div/br", "thr/i",
    ];
    let widths = [7usize, 7, 7, 6, 7, 8, 6];
    let cells = |c: &Counters| -> [String; 7] {
        [
            c.issued.to_string(),
            c.thread_inst_executed.to_string(),
            c.thread_inst_executed_pred_on.to_string(),
            ratio(c.simd_efficiency(width), 3, g.none),
            ratio(c.branch_efficiency(), 3, g.none),
            format!("{}/{}", c.divergent_branches, c.branches),
            ratio(c.avg_threads_per_inst(), 1, g.none),
        ]
    };
    let row = |label: String, c: &Counters, style: Style| -> Line<'static> {
        let mut s = pad(&label, 5, g.ellipsis);
        for (v, cw) in cells(c).iter().zip(widths) {
            s.push_str(&rpad(v, cw, g.ellipsis));
        }
        Line::from(Span::styled(fit(&s, w, g.ellipsis), style))
    };
    let mut head = pad("warp", 5, g.ellipsis);
    for (c, cw) in cols.iter().zip(widths) {
        head.push_str(&rpad(c, cw, g.ellipsis));
    }
    let mut lines = vec![Line::from(Span::styled(
        fit(&head, w, g.ellipsis),
        t.style(Role::Dim),
    ))];
    let recs = app.records();
    let body = rows.saturating_sub(2 + usize::from(app.machine().faults_total() > 0));
    let at = recs
        .iter()
        .position(|r| r.warp == app.selected_warp())
        .unwrap_or(0);
    let first = scroll(recs.len(), at, body.max(1));
    for r in recs.iter().skip(first).take(body) {
        let focused = r.warp == app.selected_warp();
        let label = format!("{}w{}", if focused { g.focus } else { " " }, r.warp);
        let style = if focused {
            t.style(Role::Focus)
        } else {
            Style::default()
        };
        lines.push(row(label, &r.counters, style));
    }
    lines.push(row(" all".into(), app.totals(), t.style(Role::Title)));
    lines
}

/// The SIMD efficiency of each of the last cycles that fit, newest right.
fn sparkline(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    if area.height == 0 || area.width == 0 {
        return;
    }
    let w = area.width as usize;
    let mut area = area;
    if area.height >= 2 {
        let n = app.history().len().min(w);
        let label = format!("SIMD eff per cycle, last {n} ({} idle)", g.idle);
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(
                fit(&label, w, g.ellipsis),
                t.style(Role::Dim),
            ))),
            Rect { height: 1, ..area },
        );
        area = Rect {
            y: area.y + 1,
            height: area.height - 1,
            ..area
        };
    }
    let width = app.scenario().machine.warp_width;
    let hist = app.history();
    let skip = hist.len().saturating_sub(w);
    // Newest cycle at the right edge.
    let shift = w.saturating_sub(hist.len()) as u16;
    let area = Rect {
        x: area.x + shift,
        width: area.width - shift,
        ..area
    };
    let values: Vec<Option<u64>> = hist
        .skip(skip)
        .map(|s| s.simd_efficiency(width).map(|e| (e * 100.0).round() as u64))
        .collect();
    let spark = Sparkline::default()
        .data(values.iter().map(|&v| SparklineBar::from(v)))
        .max(100)
        .bar_set(g.bar.clone())
        .style(t.style(Role::Sparkline));
    frame.render_widget(spark, area);
    // Idle cycles get one dot on the bottom row, not a column of them.
    let y = area.y + area.height - 1;
    let buf = frame.buffer_mut();
    for (i, v) in values.iter().enumerate() {
        if v.is_none()
            && let Some(cell) = buf.cell_mut((area.x + i as u16, y))
        {
            cell.set_symbol(g.idle).set_style(t.style(Role::Dim));
        }
    }
}
