//! `warpstep page`: one self-contained HTML file that plays a cast with
//! asciinema-player, lists its markers as chapters, and shows the
//! scenario's name, description and final report.
//!
//! The player's JavaScript and CSS (`assets/asciinema-player/`, the npm
//! package's bundle, pinned) are inlined, and the cast travels inside the
//! page as a JSON string, so the page fetches nothing: it plays from
//! `file://` and from any static host. A chapter is a link: `#chapter=N`
//! (1-based) or `#t=SECONDS` in the page's address opens the player there.

use std::fmt::Write;

use serde_json::Value;

use super::cast::{Cast, EventKind};
use crate::report::Report;
use crate::scenario::Scenario;

/// The pinned asciinema-player's version, its bundle and its stylesheet.
pub const PLAYER_VERSION: &str = "3.18.0";
const PLAYER_JS: &str = include_str!("../../assets/asciinema-player/asciinema-player.min.js");
const PLAYER_CSS: &str = include_str!("../../assets/asciinema-player/asciinema-player.css");

/// A marker of the cast: its time and label.
#[derive(Debug, Clone, PartialEq)]
pub struct Chapter {
    pub time: f64,
    pub label: String,
}

/// The cast's markers, in order.
pub fn chapters(cast: &Cast) -> Vec<Chapter> {
    cast.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Marker { label, .. } => Some(Chapter {
                time: e.time,
                label: label.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// The report's numbers as the page lists them: the top-level numbers,
/// then those one level down (`memory.global_requests`), in the report's
/// key order. Text, lists and per-warp tables are left to `warpstep run`.
pub fn numbers(report: &Report) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Value::Object(top) = report.to_value() else {
        return out;
    };
    for (k, v) in &top {
        match v {
            Value::Number(n) => out.push((k.clone(), n.to_string())),
            Value::Object(inner) => {
                for (k2, v2) in inner {
                    if let Value::Number(n) = v2 {
                        out.push((format!("{k}.{k2}"), n.to_string()));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `text` safe between HTML tags and in attribute values
/// ([`crate::text::escape_markup`]).
pub fn html_escape(text: &str) -> String {
    let mut o = String::with_capacity(text.len());
    crate::text::escape_markup(text, &mut o);
    o
}

/// `text` as a JavaScript string literal that can sit in a `<script>`
/// element: JSON, with `<` written `\u003c` (so no `</script>` can end the
/// element early) and the two line separators JavaScript once refused.
fn js_string(text: &str) -> String {
    let json = Value::String(text.to_string()).to_string();
    json.replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// `1:05.5` for 65.5 seconds.
fn clock(t: f64) -> String {
    let whole = t.max(0.0);
    let m = (whole / 60.0).floor();
    format!("{}:{:04.1}", m as u64, whole - 60.0 * m)
}

/// The page for `cast_text` (the cast file's exact text), recorded of
/// `scenario`, whose full run gave `report`; `file_name` names the cast
/// in the footer.
pub fn render(
    cast_text: &str,
    cast: &Cast,
    scenario: &Scenario,
    report: &Report,
    file_name: &str,
) -> String {
    let name = html_escape(&scenario.name);
    let mut h = String::with_capacity(PLAYER_JS.len() + PLAYER_CSS.len() + cast_text.len() * 2);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"warpstep {version}, asciinema-player {PLAYER_VERSION}\">\n\
         <title>{name} · warpstep</title>\n<style>\n{PLAYER_CSS}\n{PAGE_CSS}</style>\n</head>\n<body>\n\
         <main>\n<h1>{name}</h1>\n",
        version = env!("CARGO_PKG_VERSION"),
    );
    let d = scenario.description.trim_end();
    if !d.is_empty() {
        h.push_str("<pre class=\"description\">");
        h.push_str(&html_escape(d));
        h.push_str("</pre>\n");
    }
    let _ = writeln!(
        h,
        "<div id=\"player\" data-cols=\"{}\" data-rows=\"{}\"></div>",
        cast.width, cast.height
    );
    let chapters = chapters(cast);
    let _ = writeln!(h, "<section>\n<h2>Chapters</h2>\n<ol id=\"chapters\">");
    for (i, c) in chapters.iter().enumerate() {
        let _ = writeln!(
            h,
            "<li><a href=\"#chapter={n}\" data-time=\"{t}\">{label}</a> <span class=\"time\">{clock}</span></li>",
            n = i + 1,
            t = c.time,
            label = html_escape(&c.label),
            clock = clock(c.time)
        );
    }
    h.push_str("</ol>\n");
    if chapters.is_empty() {
        h.push_str("<p>The cast has no markers.</p>\n");
    }
    h.push_str("</section>\n<section>\n<h2>Report</h2>\n");
    let _ = writeln!(
        h,
        "<p>The numbers of <code>warpstep run</code> for the whole run ({} cycles; the cast \
         ends at cycle {}).</p>\n<table id=\"report\">",
        report_cycles(report),
        cast_end_cycle(cast).map_or_else(|| "0".to_string(), |c| c.to_string())
    );
    for (k, v) in numbers(report) {
        let _ = writeln!(
            h,
            "<tr><th>{}</th><td>{}</td></tr>",
            html_escape(&k),
            html_escape(&v)
        );
    }
    let _ = write!(
        h,
        "</table>\n</section>\n<footer>{file} · recorded with warpstep {recorded} · \
         <a href=\"https://docs.asciinema.org/manual/player/\">asciinema-player</a> \
         {PLAYER_VERSION} (Apache-2.0)</footer>\n</main>\n<script>\n{PLAYER_JS}\n</script>\n\
         <script>\nconst CAST = {cast};\n{PAGE_JS}</script>\n</body>\n</html>\n",
        file = html_escape(file_name),
        recorded = html_escape(&cast.meta.version),
        cast = js_string(cast_text),
    );
    h
}

fn report_cycles(report: &Report) -> String {
    report
        .lookup("cycles")
        .map_or_else(|| "?".to_string(), |v| v.to_string())
}

/// The cycle of the cast's last marker.
fn cast_end_cycle(cast: &Cast) -> Option<u64> {
    cast.events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Marker { cycle, .. } => *cycle,
        _ => None,
    })
}

const PAGE_CSS: &str = "\
body { margin: 0; background: #f6f6f4; color: #1d1f21; font: 15px/1.45 system-ui, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5em; }
h1 { font-size: 1.5em; margin: 0 0 .4em; }
h2 { font-size: 1.1em; margin: 1.2em 0 .4em; }
pre.description { white-space: pre-wrap; background: #fff; border: 1px solid #ddd; padding: .8em; }
#chapters { max-height: 16em; overflow-y: auto; background: #fff; border: 1px solid #ddd; margin: 0; padding: .5em 0 .5em 3em; }
#chapters a { text-decoration: none; }
#chapters a.current { font-weight: bold; }
#chapters .time { color: #777; font-size: .85em; }
#report { border-collapse: collapse; background: #fff; }
#report th, #report td { border: 1px solid #ddd; padding: .2em .7em; text-align: left; }
#report td { font-family: ui-monospace, monospace; text-align: right; }
footer { margin-top: 2em; color: #777; font-size: .85em; }
";

/// Creates the player on the cast, makes each chapter link seek to its
/// marker, and opens at `#chapter=N` or `#t=SECONDS` when the address
/// says so. The marker's frame is drawn paused: the viewer presses play.
const PAGE_JS: &str = "\
(function () {
  const el = document.getElementById('player');
  const player = AsciinemaPlayer.create({ data: CAST }, el, {
    cols: Number(el.dataset.cols), rows: Number(el.dataset.rows),
    fit: 'width', terminalFontSize: 'small', preload: true
  });
  window.warpstepPlayer = player;
  const links = Array.from(document.querySelectorAll('#chapters a'));
  function mark(t) {
    for (const a of links) a.classList.toggle('current', Number(a.dataset.time) === t);
  }
  function go(hash) {
    const m = /^#(chapter|t)=([0-9.]+)$/.exec(hash || '');
    if (!m) return;
    let t = Number(m[2]);
    if (m[1] === 'chapter') {
      const a = links[Math.max(0, Math.floor(t) - 1)];
      if (!a) return;
      t = Number(a.dataset.time);
    }
    player.seek(t).then(function () { mark(t); document.body.dataset.seeked = String(t); });
  }
  for (const a of links) {
    a.addEventListener('click', function (e) {
      e.preventDefault();
      history.replaceState(null, '', a.getAttribute('href'));
      go(a.getAttribute('href'));
    });
  }
  window.addEventListener('hashchange', function () { go(location.hash); });
  go(location.hash);
})();
";
