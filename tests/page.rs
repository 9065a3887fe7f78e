//! `warpstep page`: the HTML file that plays a cast offline. Its parts
//! are checked from the file itself (nothing fetched, the cast inside it
//! byte for byte, one chapter per marker, escaped text), and in headless
//! Chromium, which runs the inlined asciinema-player: opened at a
//! chapter's address, the player's terminal (in the DOM) shows that
//! chapter's frame.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use warpstep::record::cast::{self, EventKind};

const BIN: &str = env!("CARGO_BIN_EXE_warpstep");

fn scratch(name: &str) -> PathBuf {
    support::fresh_dir("page", name)
}

fn warpstep(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("warpstep runs")
}

/// Records `keys` on `scenario` and writes its page: (cast text, page).
fn cast_and_page(d: &Path, scenario: &str, keys: &str) -> (String, String, PathBuf) {
    let c = d.join("t.cast");
    let h = d.join("t.html");
    let o = warpstep(&[
        "record".as_ref(),
        scenario.as_ref(),
        "--keys".as_ref(),
        keys.as_ref(),
        "-o".as_ref(),
        c.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = warpstep(&["page".as_ref(), c.as_os_str(), "-o".as_ref(), h.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        std::fs::read_to_string(&c).expect("cast"),
        std::fs::read_to_string(&h).expect("page"),
        h,
    )
}

/// The string literal after `const CAST = `, decoded as JSON.
fn embedded_cast(page: &str) -> String {
    let at = page.find("const CAST = ").expect("the cast is in the page") + 13;
    let end = at + page[at..].find(";\n").expect("statement end");
    serde_json::from_str(&page[at..end]).expect("a JSON string")
}

#[test]
fn the_page_carries_the_player_the_cast_and_a_chapter_per_marker() {
    let d = scratch("parts");
    // `5n` goes to cycle 5, each `d` to a divergence, `3n` three issue
    // slots on: 4 frames that show a new cycle, so 4 markers.
    let (cast_text, page, _) = cast_and_page(&d, "divergent-loop", "5n d d 3n");
    assert_eq!(embedded_cast(&page), cast_text, "the cast, byte for byte");
    let c = cast::parse("t.cast", &cast_text).expect("cast");
    let markers: Vec<(f64, String)> = c
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Marker { label, .. } => Some((e.time, label.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(markers.len(), 4);
    assert_eq!(page.matches("<li><a href=\"#chapter=").count(), 4);
    for (i, (t, label)) in markers.iter().enumerate() {
        let li = format!("<a href=\"#chapter={}\" data-time=\"{t}\">", i + 1);
        assert!(page.contains(&li), "{li}");
        assert!(page.contains(&label.replace('<', "&lt;")), "{label}");
    }
    // Nothing fetched: no external script, stylesheet or image; the only
    // `</script>` tags close the two inline scripts.
    for fetch in ["<script src", "<link ", "<img ", "@import"] {
        assert!(!page.contains(fetch), "{fetch}");
    }
    assert_eq!(page.matches("</script>").count(), 2);
    assert!(page.contains("asciinema-player 3.18.0"));
    // The report is the whole run's: divergent-loop's 540 cycles and 160
    // issues (its own `expect:` block holds the same hand counts).
    assert!(
        page.contains("<tr><th>cycles</th><td>540</td></tr>"),
        "cycles"
    );
    assert!(
        page.contains("<tr><th>issued</th><td>160</td></tr>"),
        "issued"
    );
    assert!(page.contains("<h1>divergent loop, trip counts 1..8 per lane</h1>"));
}

#[test]
fn scenario_text_is_escaped_and_cannot_end_the_script() {
    let d = scratch("escape");
    let sc = d.join("x.yaml");
    std::fs::write(
        &sc,
        "name: \"<b>bold</b> & </script><script>alert(1)</script>\"\n\
         description: \"a < b\"\nlaunch: {blocks: 1, block_dim: 32}\nprogram: EXIT\n",
    )
    .expect("write");
    let (cast_text, page, _) = cast_and_page(&d, sc.to_str().expect("utf-8 path"), "n");
    assert!(page.contains("<h1>&lt;b&gt;bold&lt;/b&gt; &amp; &lt;/script&gt;"));
    assert!(page.contains("<pre class=\"description\">a &lt; b</pre>"));
    // The name is in the cast's header too: inside the script every `<`
    // is `\u003c`, so still two `</script>` in all.
    assert_eq!(page.matches("</script>").count(), 2);
    assert_eq!(embedded_cast(&page), cast_text);
}

#[test]
fn a_cast_that_does_not_load_is_an_error_on_its_line() {
    let d = scratch("bad");
    let c = d.join("bad.cast");
    std::fs::write(&c, "{\"version\":2,\"width\":80}\n").expect("write");
    let o = warpstep(&[
        "page".as_ref(),
        c.as_os_str(),
        "-o".as_ref(),
        d.join("x.html").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.cast: line 1: the header has no `height`"),
        "{err}"
    );
    assert!(!d.join("x.html").exists());
}

const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
];

fn chromium(d: &Path, args: &[&str], url: &str) -> Option<std::process::Output> {
    let profile = d.join("profile");
    let o = Command::new("chromium")
        .args(CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output();
    match o {
        Ok(o) => Some(o),
        Err(e) => {
            support::skip_or_fail(&format!(
                "chromium does not run ({e}); .ci/run installs Debian's chromium"
            ));
            None
        }
    }
}

#[test]
fn chromium_plays_the_page_at_a_chapter() {
    let d = scratch("chromium");
    let (cast_text, _, html) = cast_and_page(&d, "divergent-loop", "5n d d 3n");
    let c = cast::parse("t.cast", &cast_text).expect("cast");
    // Chapter 2 is the first `d`: the marker says its cycle (the engine's),
    // and the player, from the frame bytes alone, must show the stepper's
    // status line at that cycle.
    let (time, cycle) = c
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Marker { cycle, .. } => Some((e.time, cycle.expect("cycle N label"))),
            _ => None,
        })
        .nth(1)
        .expect("a second marker");
    let url = format!("file://{}#chapter=2", html.display());
    let Some(o) = chromium(&d, &["--virtual-time-budget=8000", "--dump-dom"], &url) else {
        return;
    };
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(
        dom.contains(&format!("data-seeked=\"{time}\"")),
        "the player did not seek to {time} s"
    );
    let at = dom
        .find("<pre class=\"ap-term-text")
        .expect("the player's terminal");
    let term = &dom[at..at + dom[at..].find("</pre>").expect("its end")];
    let text: String = {
        let mut t = String::new();
        let mut tag = false;
        for ch in term.chars() {
            match ch {
                '<' => tag = true,
                '>' => tag = false,
                c if !tag => t.push(c),
                _ => {}
            }
        }
        t
    };
    assert!(
        text.contains(&format!(" cycle {cycle} │ w0 diverged at")),
        "the terminal at chapter 2 (cycle {cycle}): {text}"
    );
    // A screenshot at the window's size.
    let shot = d.join("shot.png");
    let Some(o) = chromium(
        &d,
        &[
            "--virtual-time-budget=8000",
            "--window-size=1280,900",
            &format!("--screenshot={}", shot.display()),
        ],
        &url,
    ) else {
        return;
    };
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&shot).expect("screenshot"),
    ));
    let reader = decoder.read_info().expect("png header");
    let info = reader.info();
    assert_eq!((info.width, info.height), (1280, 900));
}
