//! The help window (`?`): pages, one for the keys and one per pane, that
//! explain every glyph, gutter mark, abbreviation and stall name on the
//! screen. `Tab` / `Right` and `Shift-Tab` / `Left` turn the pages, `1`..`8`
//! open one, `Up` / `Down` (`k` / `j`, `PageUp` / `PageDown`) scroll a page
//! taller than the window.
//!
//! The panes' own legends (`LEGEND` of the lanes view, memory pane, buffer
//! view and mask grid, and [`SOURCE_LEGEND`]) are drawn here as they are,
//! so a pane and its help cannot disagree.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{buffer, fit, lanes, mask_grid, memory, pad, plain_block, reason, width};
use crate::engine::stats::Reason;
use crate::engine::view::LaneState;
use crate::tui::app::{App, centered};
use crate::tui::keys::{HELP, HELP_SOURCE, SOURCE_LEGEND};
use crate::tui::theme::{Glyphs, Role, UNICODE};

const KEY_W: usize = 13;
const DESC_W: usize = 24;
/// The term column of a pane's page.
const TERM_W: usize = 16;
/// The widest a pane's page is drawn.
const PAGE_W: usize = 100;

/// The pages, in order: `1`..`8` open them.
pub const PAGES: &[&str] = &[
    "Keys",
    "Mask grid",
    "Program",
    "Scoreboards",
    "Counters",
    "Ready queue",
    "Lanes, memory",
    "Status line",
];

/// One row of a pane's page.
enum Item {
    /// A section heading.
    Head(&'static str),
    /// A term (a glyph, an abbreviation) and what it means.
    Term(String, String),
    /// A paragraph.
    Text(String),
}

fn term(t: impl Into<String>, m: impl Into<String>) -> Item {
    Item::Term(t.into(), m.into())
}

/// `s` with the Unicode glyphs of the panes written as the theme draws
/// them (the `--ascii` ones when those are in use).
fn themed(s: &str, g: &Glyphs) -> String {
    let pairs = [
        (UNICODE.on, g.on),
        (UNICODE.pred_off, g.pred_off),
        (UNICODE.parked, g.parked),
        (UNICODE.exited, g.exited),
        (UNICODE.never, g.never),
        (UNICODE.issued, g.issued),
        (UNICODE.focus, g.focus),
        (UNICODE.next, g.next),
        (UNICODE.breakpoint, g.breakpoint),
        (UNICODE.none, g.none),
    ];
    let mut out = String::new();
    for c in s.chars() {
        let mut buf = [0u8; 4];
        let cs: &str = c.encode_utf8(&mut buf);
        match pairs.iter().find(|(u, _)| *u == cs) {
            Some((_, to)) => out.push_str(to),
            None => out.push(c),
        }
    }
    out
}

fn legend(items: &mut Vec<Item>, legend: &[(&str, &str)], g: &Glyphs) {
    for (t, m) in legend {
        items.push(term(themed(t, g), themed(m, g)));
    }
}

/// The rows of page `page` (1 and up: the panes).
fn page_items(page: usize, app: &App) -> Vec<Item> {
    let g = app.theme().glyphs;
    let mut v = Vec::new();
    match page {
        1 => {
            v.push(Item::Head("Each resident warp's row"));
            v.push(term(
                g.focus,
                "the focused warp (w W; Up Down in this pane)",
            ));
            v.push(term(g.issued, "the warp issued in the last cycle"));
            legend(&mut v, mask_grid::LEGEND, g);
            v.push(term(
                "0070 long_sb 3",
                "after the lanes: the warp's next pc, then eligible, exited, or why it \
                 waits and the cycles left (every stall name: the Ready queue page)",
            ));
            v.push(Item::Head("The top line: what issued in the last cycle"));
            v.push(term(
                "w3 issued",
                format!(
                    "{} w3 issued /*0050*/ FFMA 28/28 on: warp, address (the pc alone when \
                     several issued), opcode, predicated-on / active lanes; \", diverged\": \
                     the branch split the warp; \", reconverges\": its lanes rejoin others",
                    g.issued
                ),
            ));
            v.push(term(
                "lost its slot",
                format!("dispatch stall: {}", Reason::DispatchStall.meaning()),
            ));
            v.push(term(
                "no warp issued",
                format!(
                    "an idle cycle; from {} cycles of waiting it says how long the focused \
                     warp still waits, why, and that s and d go past it",
                    mask_grid::HINT_AFTER
                ),
            ));
            v.push(Item::Head("Below: the focused warp's convergence state"));
            v.push(term(
                "SIMT stack",
                format!(
                    "stack model: one row per entry, top first: its pc, its lanes ({}), \
                     {}0090 the pc where they reconverge ({}EXIT: only at exit)",
                    g.on, g.next, g.next
                ),
            ));
            v.push(term(
                "its groups",
                "its model: one row per group of lanes that run together, at its pc",
            ));
            v.push(term(
                format!("B0 {}0090", g.next),
                format!(
                    "a convergence barrier (BSSY / BSYNC): {} lanes arrived, {} lanes still \
                     due, {} where they go on",
                    g.on, g.parked, g.next
                ),
            ));
            v.push(Item::Head("The legend line at the bottom"));
            v.push(term(
                format!("{}on {}off", g.on, g.pred_off),
                "short names: on, off (predicated off), parked, exit(ed), none (never \
                 launched), fault(ed), issued, focus; as many as fit the pane",
            ));
        }
        2 => {
            v.push(Item::Head("The gutter, left of the address"));
            v.push(term(g.breakpoint, "a breakpoint (b; Enter in this pane)"));
            v.push(term(
                "?",
                "a conditional breakpoint (B): w3, active<8, div, R2==5",
            ));
            v.push(term(g.issued, "issued in the last cycle"));
            v.push(term(g.focus, "the focused warp's next instruction"));
            v.push(term(
                "1-9 +",
                "without the warps column (a narrow pane): how many other warps are at \
                 this pc; + more than 9",
            ));
            v.push(Item::Head("Columns"));
            v.push(term("/*0050*/", "the address, as SASS listings write it"));
            v.push(term("loop:", "a label"));
            v.push(term(
                "[B--2---:R-:W2:Y:S04]",
                "the control code: B and the scoreboards it waits on (a digit each, - \
                 none); R and W the read and write scoreboard it sets; Y yield; S the \
                 stall cycles before the warp's next issue",
            ));
            v.push(term(
                "*",
                "after a control code: derived by warpstep, not written in the program \
                 (warpstep check --controls prints them)",
            ));
            v.push(term(
                "warps",
                "resident warps whose next instruction this is: w0,1,2+3",
            ));
            v.push(term("execs", "warp issues of the instruction"));
            v.push(term(
                "lanes",
                format!("average active lanes per issue ({} never issued)", g.none),
            ));
            v.push(term(
                "f follows",
                "in the title: the cursor left the focused warp; f follows it again",
            ));
            v.push(Item::Head("The source pane (a program with line info)"));
            v.push(Item::Text(themed(SOURCE_LEGEND, g)));
            for (k, d) in HELP_SOURCE {
                v.push(term(*k, *d));
            }
        }
        3 => {
            v.push(term(
                "w0 next",
                "the focused warp's next instruction and its control code, the digits of \
                 scoreboards it still waits on highlighted",
            ));
            v.push(term(
                "waits SB0",
                "the scoreboards the next instruction waits on; ok: all it waits on are clear",
            ));
            v.push(term("SB0-SB5", "the warp's six scoreboards"));
            v.push(term("n", "producers still pending on it"));
            v.push(term(
                "producer",
                "pc and opcode of the one that completes last; (+2 more): the others",
            ));
            v.push(term(
                "long L",
                "set by a global-memory producer: waiting on it is long_scoreboard",
            ));
            v.push(term(
                "short S",
                "set by an on-SM producer (MUFU, LDS, SHFL): short_scoreboard",
            ));
            v.push(term(
                "read R",
                "a read scoreboard: it clears once the producer has read its sources",
            ));
            v.push(term("left", "cycles until it clears"));
            v.push(term(g.focus, "a scoreboard the next instruction waits on"));
            v.push(term(
                "n:left",
                format!(
                    "the all-warps table (a wide pane): pending and cycles left per \
                     scoreboard, {} none pending; next waits: {} none",
                    g.idle, g.none
                ),
            ));
        }
        4 => {
            v.push(term(
                "w0   all",
                "the focused warp and the whole run (a wide pane: a row per warp)",
            ));
            v.push(term("issued", "warp instructions issued (I)"));
            v.push(term(
                "sum A",
                "active lanes summed over the issued instructions (thread_inst_executed)",
            ));
            v.push(term(
                "sum P",
                "predicated-on lanes summed: the lanes that did work \
                 (thread_inst_executed_pred_on)",
            ));
            v.push(term(
                "SIMD eff, SIMD",
                "sum P / (W x issued): the share of lane slots that did work",
            ));
            v.push(term(
                "branch",
                "branch efficiency: (branches - divergent) / branches",
            ));
            v.push(term(
                "div br, div/br",
                "divergent branches / branches (BRA; a BREAK counts as a branch)",
            ));
            v.push(term(
                "thr/inst, thr/i",
                "sum A / issued: average active lanes per instruction",
            ));
            v.push(term(g.none, "no value: nothing to divide by yet"));
            v.push(term(
                "sparkline",
                format!(
                    "the SIMD efficiency of each recent cycle, newest right; {} nothing issued",
                    g.idle
                ),
            ));
            v.push(term(
                "faulted lanes",
                format!("lanes that faulted ({} in the grid)", g.faulted),
            ));
        }
        5 => {
            v.push(term(
                "scheduler 0",
                "a warp scheduler's warps, in the order its policy looks at them: lrr \
                 loose round robin, gto greedy then oldest",
            ));
            v.push(term(g.issued, "issued in the last cycle"));
            v.push(term(g.next, "the warp the policy picks next"));
            v.push(term(g.focus, "the focused warp"));
            v.push(term("eligible", "ready to issue"));
            v.push(Item::Head(
                "Stall names (Nsight Compute's; the short one in narrow panes)",
            ));
            for r in Reason::ALL {
                let (name, short) = (r.name(), reason(r, true));
                let t = if name == short {
                    name.to_string()
                } else {
                    format!("{short} {name}")
                };
                v.push(term(t, r.meaning()));
            }
            v.push(term(
                "wait 3",
                "a number after a stall name: the cycles left until it clears",
            ));
            v.push(term(
                "(profiler: x)",
                "what Nsight Compute's sampler would call the cycle, where it differs",
            ));
        }
        6 => {
            v.push(Item::Head("Lanes view and lane inspector (l)"));
            legend(&mut v, lanes::LEGEND, g);
            v.push(Item::Head("Memory pane (m)"));
            legend(&mut v, memory::LEGEND, g);
            v.push(Item::Head("Buffer view (u)"));
            legend(&mut v, buffer::LEGEND, g);
        }
        _ => {
            v.push(term(
                "cycle N",
                "the machine after N cycles; what issued in cycle N-1 is the grid's top line",
            ));
            v.push(term(
                "message",
                "what the last key did, or why it did nothing",
            ));
            v.push(term(
                "running",
                format!(
                    "{} a run in progress: its goal; after a quarter second its progress \
                     (cycles, cycles/s); Esc stops it, q quits",
                    g.focus
                ),
            ));
            v.push(term(
                "finished",
                "the run is over: p steps back, R restarts",
            ));
            v.push(term(
                "stopped",
                "the run stopped on an error (deadlock, max_cycles)",
            ));
            v.push(term("faulted lanes", "lanes that faulted so far"));
            v.push(term(
                "stack · lrr",
                "convergence model (stack pre-Volta, its Volta+) and scheduling policy",
            ));
        }
    }
    v
}

/// `s` in lines of at most `w` columns, broken at spaces.
fn wrap(s: &str, w: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in s.split(' ') {
        if !cur.is_empty() && width(&cur) + 1 + width(word) > w {
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

/// The lines of a pane's page, `w` columns wide.
fn page_lines(page: usize, app: &App, w: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let g = t.glyphs;
    let mut lines = Vec::new();
    let text_w = w.saturating_sub(TERM_W + 1).max(10);
    for item in page_items(page, app) {
        match item {
            Item::Head(h) => {
                if !lines.is_empty() {
                    lines.push(Line::default());
                }
                lines.push(Line::from(Span::styled(
                    fit(h, w, g.ellipsis),
                    t.style(Role::Title),
                )));
            }
            Item::Text(s) => {
                for l in wrap(&s, w) {
                    lines.push(Line::from(Span::styled(l, t.style(Role::Dim))));
                }
            }
            Item::Term(k, m) => {
                let body = wrap(&m, text_w);
                // A term wider than its column takes a line of its own.
                let own_line = width(&k) > TERM_W;
                if own_line {
                    lines.push(Line::from(Span::styled(
                        fit(&k, w, g.ellipsis),
                        t.style(Role::Key),
                    )));
                }
                for (i, l) in body.into_iter().enumerate() {
                    let head = if i == 0 && !own_line {
                        pad(&k, TERM_W, g.ellipsis)
                    } else {
                        " ".repeat(TERM_W)
                    };
                    lines.push(Line::from(vec![
                        Span::styled(head, t.style(Role::Key)),
                        Span::raw(" "),
                        Span::raw(l),
                    ]));
                }
            }
        }
    }
    lines
}

/// The window's title: the page, how to turn pages and close.
fn title(page: usize, w: usize, more: Option<(usize, usize, usize)>, g: &Glyphs) -> String {
    let n = PAGES.len();
    let name = PAGES.get(page).copied().unwrap_or("");
    let scroll = match more {
        Some((first, last, total)) => format!(" · j k: {}-{last} of {total}", first + 1),
        None => String::new(),
    };
    let full = format!(
        "Help {}/{n} {name} · Tab ←→ 1-{n} pages{scroll} · ? or Esc closes",
        page + 1
    );
    let short = format!("Help {}/{n} {name} · Tab ←→ 1-{n}{scroll} · Esc", page + 1);
    let text = if width(&full) <= w { full } else { short };
    fit(&text, w, g.ellipsis)
}

/// Draws the help window centred in `area`.
pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let page = app.help_page().min(PAGES.len() - 1);
    if page == 0 {
        return render_keys(frame, area, app);
    }
    let g = app.theme().glyphs;
    let w = (area.width as usize).min(PAGE_W);
    let lines = page_lines(page, app, w.saturating_sub(2));
    let room = (area.height as usize).saturating_sub(2);
    let h = (lines.len() + 2).min(area.height as usize);
    let first = app.help_scroll().min(lines.len().saturating_sub(room));
    let more =
        (lines.len() > room).then_some((first, (first + room).min(lines.len()), lines.len()));
    let r = centered(area, w as u16, h as u16);
    let shown: Vec<Line> = lines.into_iter().skip(first).take(room).collect();
    frame.render_widget(Clear, r);
    let title = title(page, w.saturating_sub(4), more, g);
    frame.render_widget(Paragraph::new(shown).block(plain_block(app, title)), r);
}

/// The keys page: every key, and the grid's glyphs.
fn render_keys(frame: &mut Frame, area: Rect, app: &App) {
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
    let title = title(0, w.saturating_sub(4), None, g);
    frame.render_widget(Paragraph::new(lines).block(plain_block(app, title)), r);
}
