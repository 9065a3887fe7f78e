//! The mask grid: one row per resident warp, one cell per lane, a glyph per
//! lane state; below it the focused warp's SIMT stack entries or `its`
//! groups and convergence barriers as stacked mask rows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{fit, hex, pad, pane_block, reason, reconv, width};
use crate::engine::view::{LaneState, WarpStatus, WarpView};
use crate::tui::app::{App, Pane};
use crate::tui::theme::Role;

/// Rows reserved for the focused warp's stack or groups (plus a caption).
const CONV_ROWS: usize = 3;
/// Columns of the suffix that names a stack entry's reconvergence pc.
const CONV_SUFFIX: usize = 6;

/// How lane cells are laid out in a given width.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    /// Columns before the first lane: focus, issued, warp id, space.
    prefix: usize,
    /// Lanes drawn on one row (the warp wraps onto more rows if fewer
    /// than its width).
    per_row: usize,
    /// A space after every eight lanes.
    grouped: bool,
}

impl Geometry {
    fn new(lanes: usize, id_width: usize, inner: usize) -> Geometry {
        let prefix = 3 + id_width.max(2);
        let grouped_w = lanes + lanes.saturating_sub(1) / 8;
        let room = inner.saturating_sub(prefix + CONV_SUFFIX);
        if grouped_w <= room {
            Geometry {
                prefix,
                per_row: lanes,
                grouped: true,
            }
        } else if lanes <= room || lanes <= 8 {
            Geometry {
                prefix,
                per_row: lanes,
                grouped: false,
            }
        } else {
            // Wrap: as many rows as needed, each a multiple of eight lanes.
            let per_row = (room / 8 * 8).max(8);
            Geometry {
                prefix,
                per_row,
                grouped: false,
            }
        }
    }

    fn rows_per_warp(&self, lanes: usize) -> usize {
        lanes.div_ceil(self.per_row.max(1))
    }

    fn lanes_width(&self) -> usize {
        if self.grouped {
            self.per_row + self.per_row.saturating_sub(1) / 8
        } else {
            self.per_row
        }
    }
}

fn id_width(app: &App) -> usize {
    app.views()
        .iter()
        .map(|v| v.warp)
        .max()
        .map_or(1, |w| w.to_string().len())
}

/// Columns the compact layout gives the grid: one row per warp and room
/// for a stack entry's reconvergence pc.
pub fn compact_width(app: &App) -> u16 {
    let lanes = app.scenario().machine.warp_width as usize;
    let prefix = 3 + id_width(app).max(2);
    (2 + prefix + lanes.min(32) + CONV_SUFFIX) as u16
}

/// Rows the grid needs at `width` columns to show every warp.
pub fn wanted_height(app: &App, width: u16) -> u16 {
    let lanes = app.scenario().machine.warp_width as usize;
    let g = Geometry::new(lanes, id_width(app), width.saturating_sub(2) as usize);
    let rpw = g.rows_per_warp(lanes);
    let warps = app.views().len().max(1);
    let conv = app
        .focused_view()
        .map_or(0, |v| v.stack.len() + v.groups.len() + v.barriers.len());
    let conv_rows = (1 + conv.max(CONV_ROWS)) * rpw;
    (2 + 1 + warps * rpw + conv_rows + 1) as u16
}

/// The grid pane.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2) as usize;
    let lanes = app.scenario().machine.warp_width as usize;
    let geo = Geometry::new(lanes, id_width(app), inner_w);
    let rpw = geo.rows_per_warp(lanes);
    let views = app.views();

    let mut lines: Vec<Line> = vec![last_cycle(app, inner_w)];
    // Rows for the focused warp's convergence state and the legend first:
    // the warp rows scroll in what is left.
    let conv = if views.is_empty() {
        Vec::new()
    } else {
        convergence_rows(app, geo, lanes, inner_w)
    };
    let conv_budget = conv.len().min(inner_h.saturating_sub(2 + rpw) / 2 * 2);
    let warp_rows = inner_h.saturating_sub(1 + conv_budget + 1) / rpw.max(1);
    let focus_at = views
        .iter()
        .position(|v| v.warp == app.selected_warp())
        .unwrap_or(0);
    let first = super::scroll(views.len(), focus_at, warp_rows.max(1));
    let shown = &views[first.min(views.len())..(first + warp_rows).min(views.len())];
    if views.is_empty() {
        let m = app.machine();
        let text = if m.blocks_waiting() > 0 {
            let n = m.blocks_waiting();
            format!(
                "no warp yet: {n} block{} to launch (n steps)",
                if n == 1 { "" } else { "s" }
            )
        } else if !m.faults().is_empty() {
            format!(
                "no warp resident: every warp has retired, {} lane{} faulted:",
                m.faults_total(),
                if m.faults_total() == 1 { "" } else { "s" }
            )
        } else {
            "no warp resident: every warp has retired".to_string()
        };
        lines.push(Line::from(Span::styled(
            fit(&text, inner_w, g.ellipsis),
            t.style(Role::Dim),
        )));
    }
    // Faults: every one there is room for when no warp is left, else the
    // first in the rows the warps leave free.
    let faults = app.machine().faults();
    let free = inner_h.saturating_sub(lines.len() + shown.len() * rpw + conv_budget + 1);
    let fault_rows = if views.is_empty() { free } else { free.min(1) };
    let mut fault_lines: Vec<Line> = faults
        .iter()
        .take(fault_rows)
        .map(|f| {
            Line::from(Span::styled(
                fit(
                    &format!("fault {}", super::lanes::fault_text(app, f)),
                    inner_w,
                    g.ellipsis,
                ),
                t.style(Role::Error),
            ))
        })
        .collect();
    if views.is_empty() {
        lines.append(&mut fault_lines);
    }
    for v in shown {
        lines.extend(warp_rows_of(app, v, geo, inner_w));
    }
    lines.extend(conv.into_iter().take(conv_budget));
    lines.append(&mut fault_lines);
    // The legend takes the rows the grid leaves free, up to two.
    let legend = legend(app, inner_w, inner_h.saturating_sub(lines.len()).min(2));
    while lines.len() + legend.len() < inner_h {
        lines.push(Line::default());
    }
    lines.extend(legend);

    let mut title = format!(
        "Mask grid · {} warp{}",
        views.len(),
        if views.len() == 1 { "" } else { "s" }
    );
    if let (true, Some(a), Some(b)) = (shown.len() < views.len(), shown.first(), shown.last()) {
        title = format!(
            "Mask grid · w{}-w{} of {} warps",
            a.warp,
            b.warp,
            views.len()
        );
    }
    let block = pane_block(app, Pane::Grid, title);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Cycles of waiting from which the idle line suggests keys that skip it.
pub const HINT_AFTER: u64 = 4;

/// When the focused warp waits [`HINT_AFTER`] cycles or more: how long,
/// why, and the keys that go past the wait instead of one idle cycle a key.
fn wait_hint(app: &App) -> String {
    let Some(v) = app.focused_view() else {
        return String::new();
    };
    match v.status {
        WarpStatus::Stalled {
            reason,
            cycles_left: Some(n),
            ..
        } if n >= HINT_AFTER => format!(
            "; w{} waits {n} more cycles ({}): s to its next issue, d to a divergence",
            v.warp,
            reason.name()
        ),
        _ => String::new(),
    }
}

/// What each scheduler issued in the last cycle.
fn last_cycle(app: &App, w: usize) -> Line<'static> {
    let t = app.theme();
    let g = t.glyphs;
    let issues = app.issues();
    if app.cycle() == 0 {
        return Line::from(Span::styled(
            fit("cycle 0: nothing simulated yet", w, g.ellipsis),
            t.style(Role::Dim),
        ));
    }
    if issues.is_empty() {
        let mut text = format!("cycle {}: no warp issued", app.cycle() - 1);
        text.push_str(&wait_hint(app));
        return Line::from(Span::styled(fit(&text, w, g.ellipsis), t.style(Role::Dim)));
    }
    let mut spans = vec![Span::styled(
        format!("{} ", g.issued),
        t.style(Role::Issued),
    )];
    let code = app.machine().code();
    let single = issues.len() == 1;
    let mut parts = Vec::new();
    for r in issues {
        if r.dispatch_stall {
            parts.push(format!("w{} lost its slot (dispatch stall)", r.warp));
            continue;
        }
        let mut s = format!(
            "w{} issued {}",
            r.warp,
            if single { super::addr(r.pc) } else { hex(r.pc) }
        );
        if single && let Some(d) = code.get(r.pc as usize) {
            s.push(' ');
            s.push_str(&crate::tui::theme::clean(d.instr.opcode()));
        }
        s.push_str(&format!(
            " {}/{} on",
            r.on.count_ones(),
            r.active.count_ones()
        ));
        if r.diverged {
            s.push_str(", diverged");
        }
        if r.reconverged {
            s.push_str(", reconverges");
        }
        parts.push(s);
    }
    let text = parts.join(&format!(" {} ", g.sep));
    spans.push(Span::raw(fit(&text, w.saturating_sub(2), g.ellipsis)));
    Line::from(spans)
}

/// Lane cells `from..to` of a mask row, each glyph styled by its role.
fn cells(
    app: &App,
    glyph: impl Fn(usize) -> (&'static str, Role),
    from: usize,
    to: usize,
    geo: Geometry,
    selected: Option<usize>,
) -> Vec<Span<'static>> {
    let t = app.theme();
    let mut spans = Vec::new();
    for l in from..to {
        if geo.grouped && l > from && (l - from).is_multiple_of(8) {
            spans.push(Span::raw(" "));
        }
        let (s, role) = glyph(l);
        let mut style = t.style(role);
        if selected == Some(l) {
            style = style.patch(t.style(Role::Cursor));
        }
        spans.push(Span::styled(s, style));
    }
    spans
}

/// A warp's row (or rows, when its lanes wrap).
fn warp_rows_of(app: &App, v: &WarpView, geo: Geometry, inner: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let g = t.glyphs;
    let focused = v.warp == app.selected_warp();
    let issued = app.issued_last(v.warp);
    let lanes = v.lanes.len();
    let idw = geo.prefix - 3;
    let mut out = Vec::new();
    for (row, from) in (0..lanes).step_by(geo.per_row.max(1)).enumerate() {
        let to = (from + geo.per_row).min(lanes);
        let mut spans = Vec::new();
        if row == 0 {
            spans.push(Span::styled(
                if focused { g.focus } else { " " },
                t.style(Role::Focus),
            ));
            spans.push(Span::styled(
                if issued { g.issued } else { " " },
                t.style(Role::Issued),
            ));
            let id = format!("{:>idw$} ", v.warp);
            spans.push(Span::styled(
                id,
                if focused {
                    t.style(Role::Focus)
                } else {
                    Style::default()
                },
            ));
        } else {
            spans.push(Span::raw(" ".repeat(geo.prefix)));
        }
        let selected = focused.then_some(app.selected_lane() as usize);
        spans.extend(cells(
            app,
            |l| {
                let s = v.lanes[l];
                (t.lane(s), Role::Lane(s))
            },
            from,
            to,
            geo,
            selected,
        ));
        let room = inner.saturating_sub(geo.prefix + geo.lanes_width() + 1);
        if row == 0 && room >= 8 {
            let status = status_text(v, room < 24);
            spans.push(Span::styled(
                format!(" {}", fit(&status, room, g.ellipsis)),
                t.style(Role::Dim),
            ));
        }
        out.push(Line::from(spans));
    }
    out
}

/// `0070 long_scoreboard 372`: the next pc and why the warp waits.
fn status_text(v: &WarpView, short: bool) -> String {
    let pc = v.pc.map_or(String::new(), |p| format!("{} ", hex(p)));
    match v.status {
        WarpStatus::Eligible => format!("{pc}eligible"),
        WarpStatus::Exited => "exited".into(),
        WarpStatus::Stalled {
            reason: r,
            cycles_left,
            ..
        } => match cycles_left {
            Some(n) => format!("{pc}{} {n}", reason(r, short)),
            None => format!("{pc}{}", reason(r, short)),
        },
    }
}

/// The focused warp's SIMT stack (top first) or `its` groups and
/// convergence barriers, each as a mask row.
fn convergence_rows(app: &App, geo: Geometry, lanes: usize, inner: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let g = t.glyphs;
    let Some(v) = app.focused_view() else {
        let text = format!("w{} is not resident", app.selected_warp());
        return vec![Line::from(Span::styled(
            fit(&text, inner, g.ellipsis),
            t.style(Role::Dim),
        ))];
    };
    let mut rows: Vec<(String, u64, u64, String)> = Vec::new();
    let its = app.scenario().machine.convergence == crate::scenario::Convergence::Its;
    let caption = if its {
        for grp in &v.groups {
            rows.push((hex(grp.pc), grp.lanes, 0, "group".into()));
        }
        for b in &v.barriers {
            // Arrived lanes drawn as members, the ones still due as parked.
            rows.push((
                format!("B{}", b.index),
                b.arrived,
                b.participants & !b.arrived,
                format!("→{}", reconv(b.target)),
            ));
        }
        if rows.is_empty() {
            vec![format!("w{}: no group left (exited)", v.warp)]
        } else {
            let w = v.warp;
            vec![
                format!("its groups and barriers of w{w} (arrived, due)"),
                format!("its groups, barriers of w{w}"),
                format!("its groups of w{w}"),
            ]
        }
    } else {
        for e in v.stack.iter().rev() {
            rows.push((hex(e.pc), e.mask, 0, format!("→{}", reconv(e.rpc))));
        }
        if rows.is_empty() {
            vec![format!("SIMT stack of w{}: empty (exited)", v.warp)]
        } else {
            let w = v.warp;
            vec![
                format!("SIMT stack of w{w} (top first, →reconv pc)"),
                format!("SIMT stack of w{w} (top first)"),
                format!("SIMT stack of w{w}"),
            ]
        }
    };
    // The longest wording that fits whole (the help has the full one).
    let caption = caption
        .iter()
        .find(|c| width(c) <= inner)
        .or(caption.last())
        .cloned()
        .unwrap_or_default();
    let mut out = vec![Line::from(Span::styled(
        fit(&caption, inner, g.ellipsis),
        t.style(Role::Dim),
    ))];
    for (label, members, due, suffix) in rows {
        let glyph = |l: usize| {
            let bit = 1u64 << l;
            if members & bit != 0 {
                if v.faulted & bit != 0 {
                    (g.faulted, Role::Lane(LaneState::Faulted))
                } else if v.exited & bit != 0 {
                    (g.exited, Role::Lane(LaneState::Exited))
                } else {
                    (g.on, Role::Member)
                }
            } else if due & bit != 0 {
                (g.parked, Role::Lane(LaneState::Parked))
            } else {
                (g.absent, Role::Dim)
            }
        };
        for (row, from) in (0..lanes).step_by(geo.per_row.max(1)).enumerate() {
            let to = (from + geo.per_row).min(lanes);
            let mut spans = vec![Span::styled(
                if row == 0 {
                    pad(&label, geo.prefix - 1, g.ellipsis) + " "
                } else {
                    " ".repeat(geo.prefix)
                },
                t.style(Role::Dim),
            )];
            spans.extend(cells(app, glyph, from, to, geo, None));
            if row == 0 {
                let room = inner.saturating_sub(geo.prefix + geo.lanes_width() + 1);
                spans.push(Span::styled(
                    format!(" {}", fit(&suffix, room, g.ellipsis)),
                    t.style(Role::Dim),
                ));
            }
            out.push(Line::from(spans));
        }
    }
    out
}

/// Which glyph means what, as much as fits.
/// The grid's glyphs and abbreviations, for the help.
pub const LEGEND: &[(&str, &str)] = &[
    ("█", "lane active, guard true: does work"),
    ("▒", "lane active, guard false"),
    ("·", "lane parked by divergence"),
    ("×", "lane exited"),
    ("░", "lane never launched (partial warp)"),
    (
        "fault",
        "a lane faulted: warp, lane, kind, address, pc, nearest buffer",
    ),
    ("PgUp PgDn", "ten warps up / down"),
];

/// The legend in `w` columns and at most `rows` lines (one at least).
fn legend(app: &App, w: usize, rows: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let g = t.glyphs;
    let items: [(&str, Role, &str, &str); 8] = [
        (g.on, Role::Lane(LaneState::On), "on", "on"),
        (
            g.pred_off,
            Role::Lane(LaneState::PredOff),
            "predicated off",
            "off",
        ),
        (g.parked, Role::Lane(LaneState::Parked), "parked", "parked"),
        (g.exited, Role::Lane(LaneState::Exited), "exited", "exit"),
        (
            g.never,
            Role::Lane(LaneState::NeverLaunched),
            "never launched",
            "none",
        ),
        (
            g.faulted,
            Role::Lane(LaneState::Faulted),
            "faulted",
            "fault",
        ),
        (g.issued, Role::Issued, "issued", "issued"),
        (g.focus, Role::Focus, "focus", "focus"),
    ];
    let long: usize = items
        .iter()
        .map(|i| width(i.0) + 1 + i.2.len() + 2)
        .sum::<usize>()
        - 2;
    let use_long = long <= w;
    // Short labels packed into as many of `rows` lines as they need; what
    // does not fit in them is left out (the help lists every glyph).
    let sep = if use_long { "  " } else { " " };
    let mut lines: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for (glyph, role, l, s) in items {
        let label = if use_long {
            format!(" {l}")
        } else {
            s.to_string()
        };
        let mut need = width(glyph) + label.len() + if used == 0 { 0 } else { sep.len() };
        if used + need > w {
            if lines.len() == rows.max(1) {
                break;
            }
            lines.push(Vec::new());
            used = 0;
            need = width(glyph) + label.len();
            if need > w {
                break;
            }
        }
        let spans = lines.last_mut().expect("one line at least");
        if used > 0 {
            spans.push(Span::raw(sep));
        }
        spans.push(Span::styled(glyph, t.style(role)));
        spans.push(Span::styled(label, t.style(Role::Dim)));
        used += need;
    }
    lines.into_iter().map(Line::from).collect()
}
