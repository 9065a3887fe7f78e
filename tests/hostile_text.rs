//! Text from a scenario or a cast never reaches the terminal raw: a name
//! holding OSC 52 (writes the clipboard), CSI 2J (clears the screen),
//! U+202E (reverses the text after it) and U+200B (hides itself) comes
//! out of `run`, `check`, `test`, error messages and `replay` with each of
//! them as a visible escape, while the JSON report keeps the exact name.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_warpstep");

/// ESC ] 52 ; c ; base64 BEL, ESC [ 2 J, RLO, ZWSP: the exact name.
const NAME: &str = "pwn\u{1b}]52;c;aGk=\u{7}\u{1b}[2J\u{202e}gnp.exe\u{200b}";

/// The same name as YAML writes it in a double-quoted string.
const YAML_NAME: &str = r#""pwn\e]52;c;aGk=\a\e[2J\u202egnp.exe\u200b""#;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile_text")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn warpstep(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("the warpstep binary runs")
}

/// None of the four raw: no ESC, no BEL, no U+202E, no U+200B.
fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for bad in ['\u{1b}', '\u{7}', '\u{202e}', '\u{200b}'] {
        assert!(!text.contains(bad), "{what} holds {bad:?} raw: {text:?}");
    }
}

fn scenario(dir: &Path, program: &str) -> String {
    let text = format!(
        "name: {YAML_NAME}\nmachine: {{warp_width: 8}}\nlaunch: {{threads: 8}}\n\
         program: |\n{program}expect:\n  issued: 2\n"
    );
    let p = dir.join("pwn.yaml");
    std::fs::write(&p, text).expect("write scenario");
    p.display().to_string()
}

#[test]
fn run_check_and_test_show_control_bidi_and_zero_width_characters_as_escapes() {
    let dir = scratch("run");
    let file = scenario(&dir, "  MOV R1, 1\n  EXIT\n");
    // The escaped spelling of the name, by hand from `char::escape_default`.
    let shown = "pwn\\u{1b}]52;c;aGk=\\u{7}\\u{1b}[2J\\u{202e}gnp.exe\\u{200b}";
    for args in [
        vec!["run", &file],
        vec!["check", &file],
        vec!["test", &file],
    ] {
        let out = warpstep(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_clean(&format!("{args:?} stdout"), &out.stdout);
        assert_clean(&format!("{args:?} stderr"), &out.stderr);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(shown), "{args:?}: {text}");
    }
    // The JSON report is data: the exact name, escaped by JSON alone.
    let out = warpstep(&["run", "--format", "json", &file]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["scenario"].as_str(), Some(NAME));
}

#[test]
fn a_load_error_shows_the_scenarios_text_as_escapes() {
    let dir = scratch("error");
    // An unknown opcode holding U+202E and U+200B (YAML itself refuses a
    // raw ESC or BEL in the file, with a message that must be clean too).
    let file = scenario(&dir, "  MOV R1, 1\n  NOPE\u{202e}\u{200b} R1\n");
    let out = warpstep(&["check", &file]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_clean("check stderr", &out.stderr);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error:") && err.contains("NOPE"), "{err}");
    let file = scenario(
        &dir,
        "  MOV R1, 1 // \u{1b}]52;c;aGk=\u{7}\u{1b}[2J\n  EXIT\n",
    );
    let out = warpstep(&["check", &file]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_clean("check stderr", &out.stderr);
}

#[test]
fn replay_shows_a_cast_headers_version_as_escapes() {
    let dir = scratch("replay");
    let cast = dir.join("x.cast");
    let cast = cast.display().to_string();
    let out = warpstep(&["record", "divergent-loop", "-o", &cast, "--keys", "n q"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(&cast).expect("cast");
    let (head, rest) = text.split_once('\n').expect("a header line");
    let mut head: serde_json::Value = serde_json::from_str(head).expect("header JSON");
    head["warpstep"]["version"] =
        serde_json::Value::from("9\u{1b}]52;c;aGk=\u{7}\u{1b}[2J\u{202e}\u{200b}");
    std::fs::write(&cast, format!("{head}\n{rest}")).expect("rewrite cast");
    // No terminal: the warning about the version, then the refusal.
    let out = warpstep(&["replay", &cast]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_clean("replay stderr", &out.stderr);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("recorded with warpstep 9\\u{1b}]52;c;aGk=\\u{7}\\u{1b}[2J\\u{202e}\\u{200b}"),
        "{err}"
    );
}
