//! One file per pane, each with one `render(frame, area, &app)` function,
//! plus the few formatting rules they share (block titles, cutting text to
//! a width, pc spellings) so every pane writes numbers the same way.

pub mod about;
pub mod buffer;
pub mod counters;
pub mod help;
pub mod lanes;
pub mod mask_grid;
pub mod memory;
pub mod program;
pub mod ready_queue;
pub mod scoreboards;
pub mod source;
pub mod status;
pub mod too_small;

use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::app::{App, Pane};
use super::theme::Role;
use crate::asm::Program;
use crate::asm::ir::EXIT_PC;
use crate::engine::stats::Reason;

/// The bordered block of a pane that takes focus; the focused one has a
/// heavier border and a marked title.
pub fn pane_block(app: &App, pane: Pane, title: String) -> Block<'static> {
    let t = app.theme();
    let focused = app.focus() == pane;
    let (set, border, title_role, mark) = if focused {
        (
            t.glyphs.focused_border,
            Role::FocusedBorder,
            Role::FocusedTitle,
            t.glyphs.focus,
        )
    } else {
        (t.glyphs.border, Role::Border, Role::Title, " ")
    };
    Block::bordered()
        .border_set(set)
        .border_style(t.style(border))
        .title(Span::styled(format!("{mark}{title} "), t.style(title_role)))
}

/// A bordered block for a window or a pane that does not take focus.
pub fn plain_block(app: &App, title: String) -> Block<'static> {
    let t = app.theme();
    Block::bordered()
        .border_set(t.glyphs.border)
        .border_style(t.style(Role::Border))
        .title(Span::styled(format!(" {title} "), t.style(Role::Title)))
}

/// Display width of `s` in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` cut to at most `max` columns, the cut marked with `ellipsis`.
pub fn fit(s: &str, max: usize, ellipsis: &str) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let room = max.saturating_sub(width(ellipsis));
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    if max >= width(ellipsis) {
        out.push_str(ellipsis);
    }
    out
}

/// `s` cut or padded with spaces to exactly `w` columns.
pub fn pad(s: &str, w: usize, ellipsis: &str) -> String {
    let mut out = fit(s, w, ellipsis);
    let n = width(&out);
    out.extend(std::iter::repeat_n(' ', w.saturating_sub(n)));
    out
}

/// `s` right-aligned in `w` columns (cut if longer).
pub fn rpad(s: &str, w: usize, ellipsis: &str) -> String {
    let cut = fit(s, w, ellipsis);
    let n = width(&cut);
    format!("{}{cut}", " ".repeat(w.saturating_sub(n)))
}

/// An instruction's address as SASS listings write it: `/*0070*/`.
pub fn addr(pc: u32) -> String {
    format!("/*{:04x}*/", Program::address(pc))
}

/// An instruction's address in four hex digits: `0070`.
pub fn hex(pc: u32) -> String {
    format!("{:04x}", Program::address(pc))
}

/// A reconvergence pc: `0090`, or `EXIT` when the lanes only meet at exit.
pub fn reconv(pc: u32) -> String {
    if pc == EXIT_PC {
        "EXIT".into()
    } else {
        hex(pc)
    }
}

/// A ratio with `digits` decimals, or the "no value" glyph.
pub fn ratio(v: Option<f64>, digits: usize, none: &str) -> String {
    v.map_or_else(|| none.to_string(), |x| format!("{x:.digits$}"))
}

/// A stall reason as Nsight Compute names it, or shortened for narrow panes.
pub fn reason(r: Reason, short: bool) -> &'static str {
    if !short {
        return r.name();
    }
    match r {
        Reason::Selected => "selected",
        Reason::NotSelected => "not_sel",
        Reason::Wait => "wait",
        Reason::LongScoreboard => "long_sb",
        Reason::ShortScoreboard => "short_sb",
        Reason::Barrier => "barrier",
        Reason::BranchResolving => "branch",
        Reason::MathPipeThrottle => "mufu_pipe",
        Reason::DispatchStall => "dispatch",
        Reason::ConvergenceBarrier => "conv_bar",
        Reason::Exited => "exited",
    }
}

/// The first row to show so that row `at` of `len` is visible in `height`
/// rows, kept about a third from the top.
pub fn scroll(len: usize, at: usize, height: usize) -> usize {
    if len <= height {
        return 0;
    }
    at.saturating_sub(height / 3).min(len - height)
}

/// A line of one styled span.
pub fn line(s: String, style: ratatui::style::Style) -> Line<'static> {
    Line::from(Span::styled(s, style))
}

pub use crate::text::group_digits;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cuts_by_display_width() {
        assert_eq!(fit("abcdef", 4, "…"), "abc…");
        assert_eq!(fit("abc", 4, "…"), "abc");
        assert_eq!(fit("日本語テキスト", 5, "~"), "日本~");
        assert_eq!(pad("ab", 4, "…"), "ab  ");
        assert_eq!(rpad("ab", 4, "…"), "  ab");
        assert_eq!(fit("abc", 0, "…"), "");
    }

    #[test]
    fn scroll_keeps_the_row_visible() {
        assert_eq!(scroll(5, 4, 10), 0);
        assert_eq!(scroll(64, 0, 10), 0);
        assert_eq!(scroll(64, 30, 10), 27);
        assert_eq!(scroll(64, 63, 10), 54);
    }

    #[test]
    fn addresses_are_sixteen_bytes_apart() {
        assert_eq!(addr(7), "/*0070*/");
        assert_eq!(reconv(EXIT_PC), "EXIT");
        assert_eq!(reconv(9), "0090");
    }
}
