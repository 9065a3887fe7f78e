//! End to end over SSH: the system's OpenSSH server on 127.0.0.1 with a
//! throwaway host key, a throwaway user key whose `authorized_keys` line
//! forces `warpstep replay CAST` (`restrict,pty,command=...`, as the README
//! shows), and the `ssh -t` client in a tmux pane of 100x30. The test reads
//! the pane: the replay runs at the SSH terminal's size, ends, the viewer
//! steps on with a key, a resize reaches the stepper, `q` ends the login.
//!
//! sshd is started with `-D` and killed by a guard when the test ends, even
//! on failure. Without `/usr/sbin/sshd`, `ssh`, `ssh-keygen` or `tmux` the
//! test is skipped with a message, or fails when
//! `WARPSTEP_REQUIRE_ALL_TESTS=1` (CI installs openssh-server,
//! openssh-client and tmux).

mod support;

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{BIN, Session, status_cycle};

const SSHD: &str = "/usr/sbin/sshd";
const WAIT: Duration = Duration::from_secs(30);

fn runs(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .stdin(Stdio::null())
        .output()
        .is_ok()
}

fn have_tools() -> bool {
    let missing: Vec<&str> = [
        (SSHD, Path::new(SSHD).exists()),
        ("ssh", runs("ssh", "-V")),
        ("ssh-keygen", runs("ssh-keygen", "--help")),
        ("tmux", runs("tmux", "-V")),
    ]
    .iter()
    .filter(|(_, ok)| !ok)
    .map(|(n, _)| *n)
    .collect();
    if !missing.is_empty() {
        support::skip_or_fail(&format!(
            "{} not installed (CI: apt-get install openssh-server openssh-client tmux)",
            missing.join(", ")
        ));
    }
    missing.is_empty()
}

/// Everything the test started: sshd, then a tmux server and a temp
/// directory (the pane); sshd is killed first.
struct Rig {
    sshd: Option<Child>,
    pane: Session,
}

impl Drop for Rig {
    fn drop(&mut self) {
        if let Some(mut c) = self.sshd.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Rig {
    /// `Session::wait_for`, with sshd's log in the timeout's message.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.pane.wait_for_or(what, ok, || {
            let log = std::fs::read_to_string(self.pane.dir.join("sshd.log")).unwrap_or_default();
            format!("\nsshd's log:\n{log}")
        })
    }
}

fn keygen(path: &Path) {
    let o = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "warpstep-test", "-f"])
        .arg(path)
        .output()
        .expect("ssh-keygen runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn free_port() -> u16 {
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
    l.local_addr().expect("addr").port()
}

fn whoami() -> String {
    let o = Command::new("id").arg("-un").output().expect("id runs");
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn replay_through_ssh_with_a_forced_command() {
    if !have_tools() {
        return;
    }
    let mut rig = Rig {
        sshd: None,
        pane: Session::new("ssh", None)
            .with_wait(WAIT)
            .with_poll(Duration::from_millis(100)),
    };
    let dir = rig.pane.dir.clone();

    // The tutorial: three cycles, recorded headless.
    let cast = dir.join("tutorial.cast");
    let o = Command::new(BIN)
        .args(["record", "divergent-loop", "--keys", "1 n n", "-o"])
        .arg(&cast)
        .output()
        .expect("records");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // Throwaway keys; the user key may only run the replay.
    keygen(&dir.join("host_key"));
    keygen(&dir.join("user_key"));
    let pubkey = std::fs::read_to_string(dir.join("user_key.pub")).expect("public key");
    std::fs::write(
        dir.join("authorized_keys"),
        format!(
            "restrict,pty,command=\"{BIN} replay {}\" {pubkey}",
            cast.display()
        ),
    )
    .expect("authorized_keys");

    // sshd refuses to start without its privilege separation directory,
    // which a container without systemd may lack.
    if !Path::new("/run/sshd").exists() {
        let _ = std::fs::create_dir_all("/run/sshd");
    }
    let user = whoami();
    let mut port = 0;
    for _ in 0..3 {
        port = free_port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nStrictModes no\nUsePAM no\n\
             PubkeyAuthentication yes\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n\
             AllowUsers {user}\nPermitTTY yes\nAllowTcpForwarding no\nAllowAgentForwarding no\n\
             X11Forwarding no\nPermitTunnel no\nLogLevel VERBOSE\n",
            d = dir.display()
        );
        std::fs::write(dir.join("sshd_config"), config).expect("config");
        let log = std::fs::File::create(dir.join("sshd.log")).expect("log");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("sshd starts");
        rig.sshd = Some(child);
        // Ready when it accepts connections; gone if the port was taken.
        let start = Instant::now();
        let mut up = false;
        while start.elapsed() < Duration::from_secs(10) {
            if TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok() {
                up = true;
                break;
            }
            if let Some(c) = rig.sshd.as_mut()
                && c.try_wait().ok().flatten().is_some()
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if up {
            break;
        }
        if let Some(mut c) = rig.sshd.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
    assert!(
        rig.sshd.is_some(),
        "sshd did not start: {}",
        std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
    );

    // The viewer: `ssh -t` in a 100x30 tmux pane; afterwards the shell
    // says how ssh ended.
    let ssh = format!(
        "ssh -t -F /dev/null -p {port} -i {d}/user_key -o IdentitiesOnly=yes -o BatchMode=yes \
         -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
         {user}@127.0.0.1; echo \"DONE rc=$?\"; exec sleep 600",
        d = dir.display()
    );
    rig.pane.new_session(&ssh);

    // The replay plays `1 n n` and hands over at cycle 2.
    let s = rig.wait_for("the replay to end at cycle 2", |s| {
        status_cycle(s) == Some(2) && s.contains("the stepper is yours")
    });
    // Drawn at the SSH terminal's size: 30 rows, the status line last.
    let rows: Vec<&str> = s.lines().collect();
    assert_eq!(rows.len(), 30, "{s}");
    assert!(rows[29].starts_with(" cycle 2 "), "{s}");
    assert!(s.contains("Mask grid") && s.contains("Ready queue"), "{s}");

    // The viewer steps on.
    rig.pane.keys(&["n"]);
    rig.wait_for("cycle 3", |s| status_cycle(s) == Some(3));
    rig.pane.keys(&["Left"]);
    rig.wait_for("cycle 2 again", |s| status_cycle(s) == Some(2));

    // A resize travels over SSH: the full layout from 120x32.
    rig.pane
        .tmux(&["resize-window", "-t", "main", "-x", "130", "-y", "40"]);
    let big = rig.wait_for("the full layout", |s| {
        s.contains("Lanes · ") && status_cycle(s).is_some()
    });
    assert_eq!(status_cycle(&big), Some(2));

    rig.pane.keys(&["q"]);
    let end = rig.wait_for("the end of the login", |s| s.contains("DONE rc="));
    assert!(end.contains("DONE rc=0"), "{end}");
    assert!(!end.contains("Mask grid"), "{end}");

    // The forced command is all the key can do: no shell, no other command.
    let o = Command::new("ssh")
        .args(["-F", "/dev/null", "-p", &port.to_string(), "-i"])
        .arg(dir.join("user_key"))
        .args([
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "BatchMode=yes",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "LogLevel=ERROR",
            &format!("{user}@127.0.0.1"),
            "echo",
            "SHELL-REACHED",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("ssh runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("SHELL-REACHED"), "{out}");
    // Without a terminal the forced replay says why and exits 2.
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("replay needs a terminal"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
