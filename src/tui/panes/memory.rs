//! The memory pane (`m`): one warp-wide load or store, the instruction
//! that issued in the last cycle (or the listing cursor's, or the focused
//! warp's next): its lanes' addresses grouped into 32-byte sectors and
//! 128-byte lines with the transaction count against the ideal, or for
//! shared memory the banks hit, the passes and replays, and the words in
//! the worst bank. The counts come from the engine's own `coalesce` and
//! `bank_passes`, so they are the ones `run` reports.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::{addr, fit, line, pane_block};
use crate::engine::view::{AccessSpace, AccessView};
use crate::tui::app::{AccessOrigin, App, Pane};
use crate::tui::theme::{Role, clean};

/// The memory pane's glyphs and abbreviations, for the help.
pub const LEGEND: &[(&str, &str)] = &[
    ("sector", "32 bytes: what the memory system moves"),
    (
        "transaction",
        "a 128-byte line touched (ideal: the bytes asked / 128)",
    ),
    ("█ ·", "a line's four sectors: touched, not touched"),
    ("bank", "shared memory: 4-byte words, bank = word % banks"),
    ("pass", "one trip through the banks; replays = passes - 1"),
    ("m", "show or hide the memory pane"),
];

/// `0-3,8,10-11`.
pub fn lane_ranges(lanes: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lanes.len() {
        let mut j = i;
        while j + 1 < lanes.len() && lanes[j + 1] == lanes[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            lanes[i].to_string()
        } else {
            format!("{}-{}", lanes[i], lanes[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// Per 128-byte line: the sectors touched (bit n: sector n) and the lanes.
pub fn lines_of(a: &AccessView) -> BTreeMap<u32, (u8, Vec<u32>)> {
    let mut m: BTreeMap<u32, (u8, Vec<u32>)> = BTreeMap::new();
    for &(lane, x) in &a.lanes {
        let e = m.entry(x / 128).or_default();
        e.0 |= 1 << ((x % 128) / 32);
        e.1.push(lane);
    }
    m
}

/// Per bank: the distinct words (4-byte addresses) and the lanes.
pub fn banks_of(a: &AccessView) -> BTreeMap<u32, BTreeMap<u32, Vec<u32>>> {
    let mut m: BTreeMap<u32, BTreeMap<u32, Vec<u32>>> = BTreeMap::new();
    let banks = a.banks.max(1);
    for &(lane, x) in &a.lanes {
        let first = x / 4;
        for w in first..first + a.size.div_ceil(4) {
            m.entry(w % banks)
                .or_default()
                .entry(w)
                .or_default()
                .push(lane);
        }
    }
    m
}

pub fn render(frame: &mut Frame, area: Rect, app: &App) {
    let t = app.theme();
    let g = t.glyphs;
    let w = area.width.saturating_sub(2) as usize;
    let h = area.height.saturating_sub(2) as usize;
    let block = pane_block(app, Pane::Memory, "Memory".into());
    let Some((a, origin)) = app.data().access.as_ref() else {
        let text = "no load or store issued last cycle, none next: step to one, or put the cursor on one (j/k)";
        frame.render_widget(
            Paragraph::new(line(fit(text, w, g.ellipsis), t.style(Role::Dim))).block(block),
            area,
        );
        return;
    };
    let ins = app
        .scenario()
        .program
        .instrs
        .get(a.pc as usize)
        .map_or(String::new(), |i| clean(&i.text));
    let when = match origin {
        AccessOrigin::Issued(c) => format!("issued in cycle {c}"),
        AccessOrigin::Next => "next, from the registers now".to_string(),
        AccessOrigin::Cursor => "at the cursor, from the registers now".to_string(),
    };
    let mut lines: Vec<Line> = vec![line(
        fit(
            &format!("w{} {} {ins} · {when}", a.warp, addr(a.pc)),
            w,
            g.ellipsis,
        ),
        t.style(Role::Title),
    )];
    let kind = if a.atomic {
        "atomic"
    } else if a.store {
        "store"
    } else {
        "load"
    };
    let n = a.lanes.len();
    match a.space {
        AccessSpace::Global => {
            lines.push(line(
                fit(
                    &format!(
                        "global {kind}: {} B x {n} lanes, {} B asked, {} B moved",
                        a.size,
                        a.requested_bytes,
                        a.sectors * 32
                    ),
                    w,
                    g.ellipsis,
                ),
                t.style(Role::Dim),
            ));
            let good = a.lines <= a.ideal_lines();
            lines.push(line(
                fit(
                    &format!(
                        "sectors {} (ideal {}) · transactions {} (ideal {})",
                        a.sectors,
                        a.ideal_sectors(),
                        a.lines,
                        a.ideal_lines()
                    ),
                    w,
                    g.ellipsis,
                ),
                t.style(if good { Role::Good } else { Role::Warn }),
            ));
            if a.outside != 0 {
                let bad: Vec<u32> = (0..64).filter(|l| a.outside >> l & 1 != 0).collect();
                lines.push(line(
                    fit(
                        &format!(
                            "lanes {} outside the device window (they fault)",
                            lane_ranges(&bad)
                        ),
                        w,
                        g.ellipsis,
                    ),
                    t.style(Role::Error),
                ));
            }
            let per_line = lines_of(a);
            let room = h.saturating_sub(lines.len());
            let total = per_line.len();
            let show = if total > room {
                room.saturating_sub(1)
            } else {
                total
            };
            for (&l, (sectors, lanes)) in per_line.iter().take(show) {
                let base = l * 128;
                let place = app
                    .machine()
                    .nearest_buffer(base)
                    .filter(|b| b.inside())
                    .map_or(String::new(), |b| format!(" {}", b.describe()));
                let map: String = (0..4)
                    .map(|s| {
                        if sectors >> s & 1 != 0 {
                            g.on
                        } else {
                            g.parked
                        }
                    })
                    .collect();
                lines.push(line(
                    fit(
                        &format!(
                            "line {base:#010x}{place} {map} lanes {}",
                            lane_ranges(lanes)
                        ),
                        w,
                        g.ellipsis,
                    ),
                    t.style(Role::Title),
                ));
            }
            if show < total {
                lines.push(line(
                    fit(&format!("{} more lines", total - show), w, g.ellipsis),
                    t.style(Role::Dim),
                ));
            }
        }
        AccessSpace::Shared => {
            let banks = banks_of(a);
            lines.push(line(
                fit(
                    &format!(
                        "shared {kind}: {} B x {n} lanes, {} of {} banks hit",
                        a.size,
                        banks.len(),
                        a.banks
                    ),
                    w,
                    g.ellipsis,
                ),
                t.style(Role::Dim),
            ));
            let replays = a.passes.saturating_sub(1);
            lines.push(line(
                fit(
                    &format!("passes {} · replays {replays}", a.passes),
                    w,
                    g.ellipsis,
                ),
                t.style(if replays == 0 { Role::Good } else { Role::Warn }),
            ));
            // The worst bank: most distinct words, the lowest bank first.
            if let Some((b, words)) = banks
                .iter()
                .max_by_key(|(b, ws)| (ws.len(), std::cmp::Reverse(**b)))
            {
                let list: Vec<String> = words
                    .iter()
                    .map(|(wd, lanes)| format!("{:#x} (lanes {})", wd * 4, lane_ranges(lanes)))
                    .collect();
                lines.push(line(
                    fit(
                        &format!("worst bank {b}: {} words: {}", words.len(), list.join(", ")),
                        w,
                        g.ellipsis,
                    ),
                    t.style(Role::Title),
                ));
            }
            // Distinct words per bank, one digit (or +) a bank.
            let counts: String = (0..a.banks)
                .map(|b| match banks.get(&b).map_or(0, |ws| ws.len()) {
                    0 => '.',
                    k @ 1..=9 => char::from_digit(k as u32, 10).unwrap_or('+'),
                    _ => '+',
                })
                .collect();
            lines.push(line(
                fit(
                    &format!("words per bank 0-{}: {counts}", a.banks.saturating_sub(1)),
                    w,
                    g.ellipsis,
                ),
                t.style(Role::Dim),
            ));
        }
        AccessSpace::Local => {
            lines.push(line(
                fit(
                    &format!("local {kind}: {} B x {n} lanes, per-thread memory", a.size),
                    w,
                    g.ellipsis,
                ),
                t.style(Role::Dim),
            ));
        }
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::lane_ranges;

    #[test]
    fn lanes_are_written_as_ranges() {
        assert_eq!(lane_ranges(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(lane_ranges(&[5]), "5");
        assert_eq!(lane_ranges(&[]), "");
    }
}
