//! How the stepper looks: glyphs (Unicode or `--ascii`), borders, and
//! styles (colour, or only bold/reverse/underline under `NO_COLOR`).
//!
//! Every state that matters has its own glyph, so a monochrome terminal, a
//! screen reader's text dump or a snapshot test tells them apart as well as
//! colour does.

use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::{bar, border};

use crate::engine::view::LaneState;
/// The panes clean every scenario text they draw.
pub use crate::text::clean;

/// The characters the panes draw with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glyphs {
    /// Lane active and predicated on: does useful work.
    pub on: &'static str,
    /// Lane active, guard false: occupies the slot for nothing.
    pub pred_off: &'static str,
    /// Lane live but parked by divergence (not in the active mask).
    pub parked: &'static str,
    pub exited: &'static str,
    /// Lane of a partial warp that never held a thread.
    pub never: &'static str,
    pub faulted: &'static str,
    /// A lane outside a stack entry, group or barrier row.
    pub absent: &'static str,
    /// The warp issued in the last cycle.
    pub issued: &'static str,
    /// The focused warp, lane, or the cursor.
    pub focus: &'static str,
    /// The warp the scheduler would pick next.
    pub next: &'static str,
    pub breakpoint: &'static str,
    /// Truncated text.
    pub ellipsis: &'static str,
    /// No value (a ratio with a zero denominator).
    pub none: &'static str,
    /// Between status line fields.
    pub sep: &'static str,
    /// A sparkline cycle in which nothing issued.
    pub idle: &'static str,
    pub bar: bar::Set<'static>,
    pub border: border::Set<'static>,
    /// The border of the focused pane.
    pub focused_border: border::Set<'static>,
}

/// Box drawing and block elements.
pub const UNICODE: Glyphs = Glyphs {
    on: "█",
    pred_off: "▒",
    parked: "·",
    exited: "×",
    never: "░",
    faulted: "!",
    absent: " ",
    issued: "◆",
    focus: "▶",
    next: "→",
    breakpoint: "●",
    ellipsis: "…",
    none: "—",
    sep: "│",
    idle: "·",
    bar: bar::NINE_LEVELS,
    border: border::ROUNDED,
    focused_border: border::THICK,
};

/// Plain ASCII, for terminals and fonts without box drawing.
pub const ASCII: Glyphs = Glyphs {
    on: "#",
    pred_off: "+",
    parked: ".",
    exited: "x",
    never: "_",
    faulted: "!",
    absent: " ",
    issued: "*",
    focus: ">",
    next: "-",
    breakpoint: "o",
    ellipsis: "~",
    none: "-",
    sep: "|",
    idle: ".",
    bar: bar::Set {
        full: "#",
        seven_eighths: "#",
        three_quarters: "=",
        five_eighths: "=",
        half: "-",
        three_eighths: "-",
        one_quarter: "_",
        one_eighth: "_",
        empty: " ",
    },
    border: border::Set {
        top_left: "+",
        top_right: "+",
        bottom_left: "+",
        bottom_right: "+",
        vertical_left: "|",
        vertical_right: "|",
        horizontal_top: "-",
        horizontal_bottom: "-",
    },
    focused_border: border::Set {
        top_left: "#",
        top_right: "#",
        bottom_left: "#",
        bottom_right: "#",
        vertical_left: "|",
        vertical_right: "|",
        horizontal_top: "=",
        horizontal_bottom: "=",
    },
};

/// What a styled piece of text is, so one place decides its look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Lane(LaneState),
    /// A lane present in a stack entry, group or barrier row.
    Member,
    /// The issued-last-cycle marker.
    Issued,
    /// The focused warp's row, the selected lane.
    Focus,
    /// The line the focused warp issues next.
    Current,
    /// The listing cursor in the focused program pane.
    Cursor,
    Breakpoint,
    Title,
    FocusedTitle,
    Border,
    FocusedBorder,
    /// Secondary text: headers, units, legends.
    Dim,
    /// A scoreboard the next instruction waits on.
    Blocking,
    Good,
    Warn,
    Error,
    /// Key names in hints and help.
    Key,
    Sparkline,
}

/// Glyphs plus whether colour is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub glyphs: &'static Glyphs,
    pub color: bool,
    /// Only ASCII reaches the screen (`--ascii`).
    pub ascii: bool,
}

impl Theme {
    pub fn new(ascii: bool, color: bool) -> Theme {
        Theme {
            glyphs: if ascii { &ASCII } else { &UNICODE },
            color,
            ascii,
        }
    }

    /// Colour is off when `NO_COLOR` is set to anything but the empty
    /// string (no-color.org).
    pub fn color_from_env() -> bool {
        std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
    }

    /// The glyph of a lane state.
    pub fn lane(&self, s: LaneState) -> &'static str {
        let g = self.glyphs;
        match s {
            LaneState::On => g.on,
            LaneState::PredOff => g.pred_off,
            LaneState::Parked => g.parked,
            LaneState::Exited => g.exited,
            LaneState::NeverLaunched => g.never,
            LaneState::Faulted => g.faulted,
        }
    }

    pub fn style(&self, role: Role) -> Style {
        let s = Style::default();
        if !self.color {
            // Modifiers only: NO_COLOR forbids colour, not emphasis.
            return match role {
                Role::Focus | Role::Title | Role::FocusedBorder | Role::Blocking => {
                    s.add_modifier(Modifier::BOLD)
                }
                Role::FocusedTitle => s.add_modifier(Modifier::BOLD | Modifier::REVERSED),
                Role::Cursor => s.add_modifier(Modifier::REVERSED),
                Role::Current => s.add_modifier(Modifier::UNDERLINED),
                Role::Error => s.add_modifier(Modifier::BOLD),
                Role::Lane(LaneState::Faulted) => s.add_modifier(Modifier::BOLD),
                _ => s,
            };
        }
        match role {
            Role::Lane(LaneState::On) | Role::Member => s.fg(Color::Green),
            Role::Lane(LaneState::PredOff) => s.fg(Color::Yellow),
            Role::Lane(LaneState::Parked) => s.fg(Color::Blue),
            Role::Lane(LaneState::Exited) | Role::Lane(LaneState::NeverLaunched) => {
                s.fg(Color::DarkGray)
            }
            Role::Lane(LaneState::Faulted) => s.fg(Color::Red).add_modifier(Modifier::BOLD),
            Role::Issued => s.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Role::Focus => s.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Role::Current => s.bg(Color::Indexed(236)).add_modifier(Modifier::BOLD),
            Role::Cursor => s.add_modifier(Modifier::REVERSED),
            Role::Breakpoint => s.fg(Color::Red).add_modifier(Modifier::BOLD),
            Role::Title => s.add_modifier(Modifier::BOLD),
            Role::FocusedTitle => s.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Role::Border => s.fg(Color::DarkGray),
            Role::FocusedBorder => s.fg(Color::Cyan),
            Role::Dim => s.fg(Color::DarkGray),
            Role::Blocking => s.fg(Color::Red).add_modifier(Modifier::BOLD),
            Role::Good => s.fg(Color::Green),
            Role::Warn => s.fg(Color::Yellow),
            Role::Error => s.fg(Color::Red).add_modifier(Modifier::BOLD),
            Role::Key => s.fg(Color::Cyan),
            Role::Sparkline => s.fg(Color::Green),
        }
    }
}

/// The ASCII stand-in for a symbol drawn in `--ascii` mode: panes write
/// `·` and `→` in their text, and scenario text may hold any character;
/// a last pass over the screen maps them here, so nothing but ASCII is
/// ever sent to a terminal that asked for it.
pub fn ascii_fold(symbol: &str) -> &str {
    if symbol.is_ascii() {
        return symbol;
    }
    match symbol {
        "·" | "—" | "–" | "─" => "-",
        "→" | "▶" | "›" => ">",
        "←" | "‹" => "<",
        "…" => "~",
        "×" => "x",
        "│" => "|",
        "◆" | "●" => "*",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_glyphs_differ_in_both_sets() {
        for g in [&UNICODE, &ASCII] {
            let all = [g.on, g.pred_off, g.parked, g.exited, g.never, g.faulted];
            for (i, a) in all.iter().enumerate() {
                for b in &all[i + 1..] {
                    assert_ne!(a, b);
                }
            }
        }
        let ascii = [
            ASCII.on,
            ASCII.pred_off,
            ASCII.parked,
            ASCII.exited,
            ASCII.never,
            ASCII.faulted,
            ASCII.issued,
            ASCII.focus,
            ASCII.breakpoint,
            ASCII.ellipsis,
            ASCII.sep,
            ASCII.idle,
        ];
        assert!(ascii.iter().all(|s| s.is_ascii()));
        let b = ASCII.border;
        assert!(
            [b.top_left, b.horizontal_top, b.vertical_left]
                .iter()
                .all(|s| s.is_ascii())
        );
    }

    #[test]
    fn no_color_styles_carry_no_colour() {
        let t = Theme::new(false, false);
        for role in [
            Role::Lane(LaneState::On),
            Role::Lane(LaneState::Faulted),
            Role::Issued,
            Role::Current,
            Role::Error,
            Role::FocusedBorder,
        ] {
            let s = t.style(role);
            assert_eq!((s.fg, s.bg), (None, None), "{role:?}");
        }
    }
}
