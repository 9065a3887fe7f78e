//! What a stranger's file and a long run can do to the machine that runs
//! warpstep: a cast's scenario compiles nothing and reads no file, a long
//! headless recording or run ends on SIGINT/SIGTERM with the shell's
//! status, `run` shows its progress only on a terminal, and stepping
//! through a launch counts the stepper's checkpoints against the budget.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use warpstep::scenario::{Origin, Scenario};
use warpstep::tui::keys::{parse_keys, press};

const BIN: &str = env!("CARGO_BIN_EXE_warpstep");

fn scratch(name: &str) -> PathBuf {
    support::fresh_dir("hardening", name)
}

/// A fake nvcc that leaves a mark when anything runs it: a load that
/// compiles would find it first on `NVCC_BIN`.
fn fake_nvcc(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let mark = dir.join("nvcc-ran");
    for tool in ["nvcc", "nvdisasm"] {
        let p = bin.join(tool);
        std::fs::write(&p, format!("#!/bin/sh\ntouch {}\nexit 1\n", mark.display())).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

/// A cast whose header carries `scenario` (JSON-escaped), with one key.
fn cast_of(scenario: &str, origin: &str) -> String {
    let header = serde_json::json!({
        "version": 2, "width": 100, "height": 30, "timestamp": 0,
        "title": "warpstep: t", "env": {"TERM": "xterm-256color"},
        "warpstep": {
            "version": env!("CARGO_PKG_VERSION"), "scenario": scenario,
            "origin": origin, "ascii": false, "animate": false, "key_delay": 0.5
        }
    });
    format!("{header}\n[0.0, \"o\", \"x\"]\n[0.5, \"i\", \"q\"]\n")
}

const CUDA_ONLY: &str = "name: cuda only\nlaunch: {blocks: 1, block_dim: 32}\n\
    cuda: |\n  __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n";

#[test]
fn replay_of_a_cuda_scenario_without_a_program_compiles_nothing() {
    let dir = scratch("replay-cuda");
    let bin = fake_nvcc(&dir);
    let cast = dir.join("x.cast");
    std::fs::write(&cast, cast_of(CUDA_ONLY, "/tmp/x.yaml")).unwrap();
    let out = Command::new(BIN)
        .args(["replay", cast.to_str().unwrap()])
        .env("NVCC_BIN", &bin)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is not compiled"), "{err}");
    assert!(
        err.contains("`program:`") && err.contains("warpstep compile"),
        "{err}"
    );
    assert!(!dir.join("nvcc-ran").exists(), "replay ran nvcc");
}

#[test]
fn replay_reads_no_file_a_cast_names() {
    let dir = scratch("replay-file");
    let secret = dir.join("secret.cu");
    std::fs::write(&secret, "SECRET-CONTENTS\n").unwrap();
    // Without `program:`: refused, the file unread (its text appears nowhere).
    let text = format!(
        "name: reads a file\nlaunch: {{blocks: 1, block_dim: 32}}\ncuda: {{file: {}}}\n",
        secret.display()
    );
    let cast = dir.join("x.cast");
    std::fs::write(
        &cast,
        cast_of(&text, &dir.join("s.yaml").display().to_string()),
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["replay", cast.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`cuda.file` is not read"), "{err}");
    assert!(!err.contains("SECRET"), "{err}");
    // With `program:`: it replays (here: no terminal, exit 2 after loading)
    // with a warning, and the file is still not read.
    let text = format!("{text}program: |\n  EXIT\n");
    std::fs::write(
        &cast,
        cast_of(&text, &dir.join("s.yaml").display().to_string()),
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["replay", cast.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("replay needs a terminal"), "{err}");
    assert!(!err.contains("SECRET"), "{err}");
}

/// A warp that branches to itself for up to 10^10 cycles: minutes of work.
fn spin() -> String {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch(&format!("spin-{n}"));
    let f = dir.join("spin.yaml");
    std::fs::write(
        &f,
        "name: spin\nmachine: {max_cycles: 10000000000}\nlaunch: {blocks: 1, block_dim: 32}\n\
         program: |\n  top:\n  BRA top\n",
    )
    .unwrap();
    f.display().to_string()
}

/// Starts `args`, sends `signal` after `after`, and returns the exit status
/// and how long the process took to end after the signal.
fn signalled(args: &[&str], signal: &str, after: Duration) -> (Option<i32>, Duration, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    assert!(
        child.try_wait().unwrap().is_none(),
        "{args:?} ended before the signal"
    );
    let sent = Instant::now();
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let deadline = Instant::now() + Duration::from_secs(5);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{args:?} still runs 5 s after SIG{signal}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let took = sent.elapsed();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        took,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_long_headless_recording_ends_on_sigint_and_sigterm() {
    let dir = scratch("record-signal");
    let cast = dir.join("e.cast");
    let spin = spin();
    // `e` runs bounds-check-large-grid's 539,391 cycles in the stepper: a
    // minute and more, one key.
    let args = [
        "record",
        &spin,
        "--keys",
        "e q",
        "-o",
        cast.to_str().unwrap(),
    ];
    for (signal, status) in [("INT", 130), ("TERM", 143)] {
        let (code, took, err) = signalled(&args, signal, Duration::from_millis(1500));
        // 128 + SIGINT (2) and 128 + SIGTERM (15), as a shell reports them.
        assert_eq!(code, Some(status), "SIG{signal}: {err}");
        assert!(
            took < Duration::from_millis(500),
            "SIG{signal} took {took:?}"
        );
        assert!(err.contains("record stopped by SIG"), "{err}");
    }
}

#[test]
fn ctrl_c_ends_a_long_run_with_130() {
    let (code, took, err) = signalled(&["run", &spin()], "INT", Duration::from_millis(700));
    assert_eq!(code, Some(130), "{err}");
    assert!(took < Duration::from_millis(500), "took {took:?}");
    // stderr is a pipe: no progress line came before the message.
    assert!(!err.contains("running: cycle"), "{err:?}");
}

#[test]
fn run_shows_progress_on_a_terminal_and_nothing_in_a_file() {
    if !support::have_tmux() {
        return;
    }
    let s = support::Session::new("hardening", Some("progress")).with_wait(Duration::from_secs(60));
    let file = s.dir.join("stderr.txt");
    // stdout to a file in both: the pane shows only what stderr writes.
    let cmd = format!(
        "timeout 3 {BIN} run {sp} >/dev/null 2>{f}; {BIN} run {sp} >/dev/null; sleep 30",
        f = file.display(),
        sp = spin()
    );
    s.new_session(&cmd);
    let screen = s.wait_for("a progress line", |sc| sc.contains("running: cycle"));
    assert!(screen.contains("cycles/s"), "{screen}");
    // The first run, with stderr to a file, wrote no progress line:
    // `timeout` stopped it after 3 s, and only the signal's message is there.
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written, "warpstep: run stopped by SIGTERM\n");
    s.tmux(&["kill-server"]);
}

/// Two endless variants side by side: the line counts finished variants
/// (none), and neither run draws its own cycle line over it.
#[test]
fn a_grid_side_by_side_shows_how_many_variants_finished() {
    if !support::have_tmux() {
        return;
    }
    let s = support::Session::new("hardening", Some("grid_progress"))
        .with_wait(Duration::from_secs(60));
    let cmd = format!(
        "{BIN} run {sp} --branch-latency 1,2 --jobs 2 >/dev/null; sleep 30",
        sp = spin()
    );
    s.new_session(&cmd);
    let screen = s.wait_for("the grid's progress", |sc| {
        sc.contains("running: 0 of 2 variants finished (")
    });
    assert!(!screen.contains("running: cycle"), "{screen}");
    s.tmux(&["kill-server"]);
}

#[test]
fn ctrl_c_ends_a_grid_running_side_by_side_with_130() {
    let sp = spin();
    let args = ["run", &sp, "--branch-latency", "1,2", "--jobs", "2"];
    let (code, took, err) = signalled(&args, "INT", Duration::from_millis(700));
    assert_eq!(code, Some(130), "{err}");
    assert!(took < Duration::from_millis(500), "took {took:?}");
    assert_eq!(err, "warpstep: run stopped by SIGINT\n");
}

#[test]
fn a_word_that_names_a_key_is_that_key() {
    use ratatui::crossterm::event::KeyCode;
    // `g 100 Enter q`: g, 1, 0, 0, Enter, q (what `g100<Enter>q` gives).
    let want: Vec<_> = [
        KeyCode::Char('g'),
        KeyCode::Char('1'),
        KeyCode::Char('0'),
        KeyCode::Char('0'),
        KeyCode::Enter,
        KeyCode::Char('q'),
    ]
    .into_iter()
    .map(press)
    .collect();
    assert_eq!(parse_keys("g 100 Enter q").unwrap(), want);
    assert_eq!(parse_keys("g100<Enter>q").unwrap(), want);
    assert_eq!(
        parse_keys("PageDown F5").unwrap(),
        vec![press(KeyCode::PageDown), press(KeyCode::F(5))]
    );
    // Case matters: `up` is the keys u and p.
    assert_eq!(
        parse_keys("up").unwrap(),
        vec![press(KeyCode::Char('u')), press(KeyCode::Char('p'))]
    );
    // A capitalized word that names no key is refused where it starts,
    // and the message lists the names.
    let e = parse_keys("g 100 Entr q").unwrap_err();
    assert_eq!(e.offset, 6, "{e}");
    assert!(e.message.contains("`Entr` is not a key name"), "{e}");
    assert!(
        e.message.contains("<Enter>") && e.message.contains("<PageDown>"),
        "{e}"
    );
    let e = parse_keys("n <Rigth>").unwrap_err();
    assert!(e.message.contains("<Right>"), "{e}");
}

/// A launch of `blocks` x 1024 threads with one 4 MiB buffer.
fn launch(blocks: u32) -> Scenario {
    let text = format!(
        "name: wide\nlaunch: {{blocks: {blocks}, block_dim: 1024}}\n\
         memory:\n  buf: {{type: u32, len: 1048576}}\nprogram: |\n  EXIT\n"
    );
    Scenario::from_text(&text, Origin::Builtin("wide".into())).unwrap()
}

#[test]
fn the_budget_counts_as_many_checkpoints_as_the_timeline_keeps() {
    use warpstep::session::timeline::{COARSE_KEEP, FINE_KEEP};
    assert_eq!(
        warpstep::scenario::budget::CHECKPOINTS,
        (COARSE_KEEP + FINE_KEEP) as u64
    );
}

#[test]
fn the_stepper_footprint_counts_its_checkpoints() {
    // By hand, from the README's Budgets table: 1,024 blocks of 1,024
    // threads are 32,768 warps; one instruction; 4 MiB of buffer.
    let f = launch(1024).footprint();
    let warps = 32_768u64;
    let buffer = 4u64 << 20;
    assert_eq!(f.engine, warps * 640 + 2 * buffer + 1024);
    assert_eq!(f.stepper, warps * 640 * 81 + 82 * buffer + 1024);
}

#[test]
fn stepping_a_launch_above_the_budget_is_refused_before_the_session() {
    let dir = scratch("stepper-budget");
    let file = dir.join("wide.yaml");
    std::fs::write(
        &file,
        "name: wide\nlaunch: {blocks: 1024, block_dim: 1024}\nprogram: |\n  EXIT\n",
    )
    .unwrap();
    let cast = dir.join("w.cast");
    // 32,768 warps: the engine needs 20.0 MiB, the stepper 32,768 x 640 x
    // 81 bytes + 1 KiB = 1.6 GiB: over a 256 MiB budget.
    let out = Command::new(BIN)
        .args([
            "record",
            "--memory-limit",
            "256M",
            file.to_str().unwrap(),
            "--keys",
            "q",
            "-o",
            cast.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("needs about 1.6 GiB"), "{err}");
    assert!(err.contains(":2:1"), "located at `launch:`: {err}");
    assert!(!cast.exists(), "nothing recorded");
    // `run` keeps no checkpoints: the same launch runs in that budget.
    let out = Command::new(BIN)
        .args(["run", "--memory-limit", "256M", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
