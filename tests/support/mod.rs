//! Shared helpers for the tests that drive the real `warpstep` binary in a
//! real terminal: a tmux server of the test's own (`-L`) with one session,
//! `main`, whose pane the test types into (`send-keys`) and reads
//! (`capture-pane`), and a temporary directory for its files. Dropping the
//! [`Session`] kills the tmux server and removes the directory, so both go
//! even when the test fails.
//!
//! It also holds the scenarios and the loader several test crates share.
//!
//! Each test crate that uses it declares `mod support;`. Not every crate
//! uses every helper, hence the `dead_code` allowance.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use warpstep::scenario::{Origin, Scenario};

/// Runs the binary with `args`, without colour, in the scratch root (so
/// relative paths in its messages stay short).
pub fn warpstep_output<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("the warpstep binary runs")
}

/// A fresh, empty directory `NAME` under the test crate's scratch folder
/// `TAG` (what was left there by an earlier run is removed).
pub fn fresh_dir(tag: &str, name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(tag)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A scenario from inline YAML (text with a newline) or a built-in name.
pub fn load_scenario(arg: &str) -> Arc<Scenario> {
    let sc = if arg.contains('\n') {
        Scenario::from_text(arg, Origin::Builtin("test".into()))
    } else {
        warpstep::builtin::resolve(arg)
    };
    match sc {
        Ok(s) => Arc::new(s),
        Err(e) => panic!("{e}"),
    }
}

/// Lanes 0..3 wait at `BSYNC B1` for lanes 4..7, which wait at `BSYNC B0`
/// for lanes 0..3. BSSY 0, BSSY 1, BRA 2 (splits); both groups arrive at
/// their BSYNCs without issuing them: deadlock at cycle 2. The BSYNCs are
/// on file lines 11 and 14.
pub const CROSSED: &str = "name: crossed barriers
machine: {warp_width: 8, convergence: its}
launch: {threads: 8}
inputs:
  P0: \"lane < 4\"
program: |
  BSSY B0, j0
  BSSY B1, j1
  @P0 BRA j1
  j0:
  BSYNC B0
  EXIT
  j1:
  BSYNC B1
  EXIT
";

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_warpstep");
/// How long [`Session::wait_for`] waits unless told otherwise.
pub const WAIT: Duration = Duration::from_secs(20);

/// The environment variable that turns every skip into a failure. CI sets
/// it, so that a runner that lost a tool fails instead of passing quietly.
pub const REQUIRE_ALL: &str = "WARPSTEP_REQUIRE_ALL_TESTS";

/// Says that a test is skipped and why, on stdout (shown by `cargo test --
/// --nocapture`) and stderr; with `WARPSTEP_REQUIRE_ALL_TESTS=1` it fails
/// the test instead. The caller returns right after it.
pub fn skip_or_fail(reason: &str) {
    if std::env::var(REQUIRE_ALL).is_ok_and(|v| v == "1") {
        panic!("{REQUIRE_ALL}=1, and this test cannot run: {reason}");
    }
    println!("skipping: {reason}");
    eprintln!("skipping: {reason}");
}

/// Whether tmux runs here; when it does not, the test is skipped (or fails,
/// see [`skip_or_fail`]).
pub fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_or_fail("tmux is not installed (CI installs it)");
    }
    ok
}

/// The cycle the status line shows: the last line that starts ` cycle N`.
pub fn status_cycle(screen: &str) -> Option<u64> {
    let line = screen.lines().rev().find(|l| l.starts_with(" cycle "))?;
    let digits: String = line[7..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// A tmux server of its own (socket `warpstep-PREFIX-PID[-NAME]`) and an
/// empty temporary directory of the same name.
pub struct Session {
    pub socket: String,
    pub dir: PathBuf,
    wait: Duration,
    poll: Duration,
    unset_env: Vec<&'static str>,
}

impl Session {
    /// The socket and directory for one test: `prefix` names the test file,
    /// the process id keeps concurrent runs apart, `name` the tests within
    /// one file. A directory left by an earlier run of that name is emptied.
    pub fn new(prefix: &str, name: Option<&str>) -> Session {
        let mut socket = format!("warpstep-{prefix}-{}", std::process::id());
        if let Some(name) = name {
            socket = format!("{socket}-{name}");
        }
        let dir = std::env::temp_dir().join(&socket);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Session {
            socket,
            dir,
            wait: WAIT,
            poll: Duration::from_millis(50),
            unset_env: Vec::new(),
        }
    }

    /// How long `wait_for` and `pid` wait (default [`WAIT`]).
    pub fn with_wait(mut self, wait: Duration) -> Session {
        self.wait = wait;
        self
    }

    /// How often `wait_for` reads the screen (default every 50 ms).
    pub fn with_poll(mut self, poll: Duration) -> Session {
        self.poll = poll;
        self
    }

    /// Leaves `var` out of the environment of the tmux commands (and so of
    /// the server they start and what runs in it).
    pub fn without_env(mut self, var: &'static str) -> Session {
        self.unset_env.push(var);
        self
    }

    /// Starts the session `main`, 100x30, running the shell `command`.
    pub fn new_session(&self, command: &str) {
        self.new_session_sized(command, 100, 30);
    }

    /// [`Session::new_session`] in a window of `width` x `height` from the
    /// start, so the program never draws at another size first.
    pub fn new_session_sized(&self, command: &str, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        self.tmux(&[
            "new-session",
            "-d",
            "-x",
            &w,
            "-y",
            &h,
            "-s",
            "main",
            command,
        ]);
    }

    /// Runs `tmux ARGS` on this server in a UTF-8 locale; asserts that it
    /// succeeds and returns what it printed.
    pub fn tmux(&self, args: &[&str]) -> String {
        let mut cmd = Command::new("tmux");
        cmd.args(["-f", "/dev/null", "-L", &self.socket])
            .args(args)
            .env("LANG", "C.UTF-8")
            .env("LC_ALL", "C.UTF-8");
        for var in &self.unset_env {
            cmd.env_remove(var);
        }
        let out = cmd.output().expect("tmux runs");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// What the pane shows now.
    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "main"])
    }

    /// Types `keys` (tmux key names) into the pane.
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Waits until the screen satisfies `ok` and has settled (two reads in a
    /// row, a poll apart, are the same), so that what the caller asserts next
    /// is not a frame caught half drawn; panics with the screen otherwise.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.wait_for_or(what, ok, String::new)
    }

    /// As `wait_for`, with `more()` appended to the timeout's message.
    pub fn wait_for_or(
        &self,
        what: &str,
        ok: impl Fn(&str) -> bool,
        more: impl Fn() -> String,
    ) -> String {
        self.poll_until(what, ok, more, true)
    }

    /// As `wait_for` without waiting for the screen to settle: for a screen
    /// that keeps changing (an animated run).
    #[allow(dead_code)]
    pub fn wait_for_moving(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.poll_until(what, ok, String::new, false)
    }

    fn poll_until(
        &self,
        what: &str,
        ok: impl Fn(&str) -> bool,
        more: impl Fn() -> String,
        settled: bool,
    ) -> String {
        let start = Instant::now();
        let mut last: Option<String> = None;
        loop {
            let s = self.screen();
            if ok(&s) {
                if !settled || last.as_deref() == Some(s.as_str()) {
                    return s;
                }
                last = Some(s);
            } else {
                if start.elapsed() > self.wait {
                    panic!("timed out waiting for {what}; the screen:\n{s}{}", more());
                }
                last = None;
            }
            if start.elapsed() > self.wait + self.wait {
                panic!(
                    "the screen never settled while waiting for {what}; the last:\n{}{}",
                    last.unwrap_or_default(),
                    more()
                );
            }
            std::thread::sleep(self.poll);
        }
    }

    /// The pid that the pane's script wrote to `pid`, once it is there.
    pub fn pid(&self) -> String {
        let start = Instant::now();
        loop {
            if let Ok(p) = std::fs::read_to_string(self.dir.join("pid"))
                && !p.trim().is_empty()
            {
                return p.trim().to_string();
            }
            assert!(start.elapsed() < self.wait, "warpstep never started");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-f", "/dev/null", "-L", &self.socket, "kill-server"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `warpstep run FILE ARGS...` on scenario text written to a file of
/// its own under the test crate's scratch folder `tag` (tests run in
/// parallel): the exit status, stdout and stderr.
pub fn run_text(tag: &str, text: &str, args: &[&str]) -> (i32, String, String) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(tag);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = dir.join(format!("s{}-{n}.yaml", std::process::id()));
    std::fs::write(&file, text).expect("write scenario");
    let o = Command::new(BIN)
        .arg("run")
        .arg(&file)
        .args(args)
        .output()
        .expect("the warpstep binary runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}
