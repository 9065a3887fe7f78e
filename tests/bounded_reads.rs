//! Scenario and cast files are read within a budget: a device that never
//! ends (`/dev/zero`) stops at 16 MiB, a file larger than that is refused,
//! and a named pipe or a directory is refused at once (a FIFO's `open`
//! would otherwise wait for a writer forever). Each refusal exits 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_warpstep");

/// 16 MiB, the documented budget (README, Budgets).
const LIMIT: u64 = 16 * 1024 * 1024;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("bounded_reads")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs warpstep, killing it (and failing) if it has not ended in 5 s.
fn warpstep(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the warpstep binary runs");
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("warpstep {args:?} still runs after 5 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (child.wait_with_output().expect("output"), start.elapsed())
}

fn refused(args: &[&str], needle: &str) {
    let (out, took) = warpstep(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: missing {needle:?} in {err}"
    );
    assert!(took < Duration::from_secs(2), "{args:?} took {took:?}");
}

#[test]
fn dev_zero_stops_at_the_budget() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let needle = format!("more than 16 MiB ({LIMIT} bytes)");
    refused(&["check", "/dev/zero"], &needle);
    refused(&["replay", "/dev/zero"], &needle);
}

#[test]
fn a_file_one_byte_over_the_budget_is_refused() {
    let dir = scratch("large");
    let p = dir.join("big.yaml");
    let f = std::fs::File::create(&p).expect("create");
    f.set_len(LIMIT + 1).expect("grow");
    let p = p.display().to_string();
    refused(&["check", &p], &format!("more than 16 MiB ({LIMIT} bytes)"));
    refused(&["run", &p], "see Budgets in the README");
}

#[test]
fn a_fifo_and_a_directory_are_refused_at_once() {
    let dir = scratch("special");
    let fifo = dir.join("pipe.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let fifo = fifo.display().to_string();
        refused(&["check", &fifo], "is a named pipe or a socket");
        refused(&["run", &fifo], "is a named pipe or a socket");
        refused(&["replay", &fifo], "is a named pipe or a socket");
    }
    let d = dir.display().to_string();
    refused(&["run", &d], "is a directory, not a file");
    refused(&["replay", &d], "is a directory, not a file");
}
