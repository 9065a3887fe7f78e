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

fn tempfile_out() -> Stdio {
    let dir = scratch("stdout");
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let i = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("{}-{i}.out", std::process::id()));
    Stdio::from(std::fs::File::create(path).expect("stdout file"))
}

/// Runs warpstep, killing it (and failing) if it has not ended in 5 s.
fn warpstep(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        // Standard output to a file: a report larger than a pipe's buffer
        // would block the child while nothing reads the pipe.
        .stdout(tempfile_out())
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

/// Runs warpstep under a 100 MB address-space limit (`ulimit -v`): an
/// allocation past it fails and the process aborts, so an exit of 2 shows
/// the refusal came before anything large was allocated.
fn refused_small(dir: &Path, args: &[&str], needle: &str) {
    let script = format!(
        "ulimit -v 100000 && exec '{BIN}' {}",
        args.iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: missing {needle:?} in {err}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{args:?} took {:?}",
        start.elapsed()
    );
}

/// 2^30 threads are 33,554,432 warps of 32; at the documented 640 bytes a
/// warp that is 21,474,836,480 bytes = 20.0 GiB, above the 4 GiB default:
/// refused at `launch:` (line 2, column 9) in under 2 s and 100 MB.
#[test]
fn a_launch_beyond_the_memory_budget_is_refused_at_load() {
    let dir = scratch("launch");
    std::fs::write(
        dir.join("huge.yaml"),
        "name: huge\nlaunch: {blocks: 1048576, block_dim: 1024}\nprogram: |\n  EXIT\n",
    )
    .expect("written");
    for cmd in ["run", "check"] {
        refused_small(
            &dir,
            &[cmd, "huge.yaml"],
            "needs about 20.0 GiB of memory, more than the 4.0 GiB budget",
        );
    }
    refused_small(&dir, &["check", "huge.yaml"], "huge.yaml:2:9");
    // The budget can be raised: the same file then loads.
    let (out, _) = warpstep(&[
        "check",
        "--memory-limit",
        "32G",
        dir.join("huge.yaml").to_str().expect("utf-8 path"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A JSON report is serialised as it is written: it needs no budget beyond
/// the text report's. 1,024 blocks of 1,024 threads are 32,768 warps,
/// 32,768 x 640 = 20 MiB for the engine: under a 64 MiB budget both
/// reports run (the JSON tree it replaced was budgeted at 126.3 MiB and
/// refused), and under 16 MiB both are refused at load with the same need.
#[test]
fn the_json_report_needs_no_more_budget_than_the_text_one() {
    let dir = scratch("json");
    let path = dir.join("wide.yaml");
    std::fs::write(
        &path,
        "name: wide\nlaunch: {blocks: 1024, block_dim: 1024}\nprogram: |\n  EXIT\n",
    )
    .expect("written");
    let p = path.to_str().expect("utf-8 path");
    for format in ["text", "json"] {
        let (out, _) = warpstep(&["run", "--memory-limit", "64M", "--format", format, p]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        refused(
            &["run", "--memory-limit", "16M", "--format", format, p],
            "needs about 20.0 MiB",
        );
    }
}

/// The program budget: 262,144 lines. One line more is refused at that
/// line (the program starts on line 3, so line 3 + 262,144) before the
/// assembler runs.
#[test]
fn a_program_beyond_the_line_budget_is_refused_before_it_is_parsed() {
    let dir = scratch("program");
    let mut text = String::from("name: long\nprogram: |\n");
    for _ in 0..262_145 {
        text.push_str("  NOP\n");
    }
    std::fs::write(dir.join("long.yaml"), text).expect("written");
    refused_small(&dir, &["check", "long.yaml"], "more than 262144 lines");
    refused_small(&dir, &["check", "long.yaml"], "long.yaml:262147:1");
}
