//! Finding nvcc and nvdisasm, and running them with a time limit and a
//! bound on what they print.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::{CudaError, PIP_LINE};

/// The environment variable naming the folder that holds nvcc and
/// nvdisasm, looked at first (the name `tests/kernels/regenerate` reads).
pub const NVCC_BIN: &str = "NVCC_BIN";

/// The compiler and the disassembler warpstep runs, and where they were
/// found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tools {
    pub nvcc: PathBuf,
    pub nvdisasm: PathBuf,
    /// `NVCC_BIN`, `PATH`, `CUDA_HOME`, `CUDA_PATH` or `python3`.
    pub found_in: &'static str,
}

/// Finds nvcc and nvdisasm: in `$NVCC_BIN`, on `PATH`, in
/// `$CUDA_HOME/bin`, in `$CUDA_PATH/bin`, then in the pip packages of the
/// `python3` on `PATH` (`nvidia/cu13/bin`, or CUDA 12's
/// `nvidia/cuda_nvcc/bin` and `nvidia/cuda_nvdisasm/bin`). The error names
/// every place looked at and the pip line that installs both.
pub fn find() -> Result<Tools, CudaError> {
    let mut looked: Vec<String> = Vec::new();
    let mut nvcc_only: Option<PathBuf> = None;
    let mut try_dirs = |dirs: &[PathBuf], place: &'static str| -> Option<Tools> {
        let nvcc = dirs.iter().map(|d| d.join("nvcc")).find(|p| is_exe(p))?;
        match dirs.iter().map(|d| d.join("nvdisasm")).find(|p| is_exe(p)) {
            Some(nvdisasm) => Some(Tools {
                nvcc,
                nvdisasm,
                found_in: place,
            }),
            None => {
                nvcc_only.get_or_insert(nvcc);
                None
            }
        }
    };
    match std::env::var_os(NVCC_BIN).filter(|v| !v.is_empty()) {
        Some(dir) => {
            if let Some(t) = try_dirs(&[PathBuf::from(&dir)], "NVCC_BIN") {
                return Ok(t);
            }
            looked.push(format!("NVCC_BIN ({})", Path::new(&dir).display()));
        }
        None => looked.push("NVCC_BIN (unset)".into()),
    }
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    // nvcc's own folder first, so that the pair comes from one toolkit.
    if let Some(nvcc_dir) = path_dirs.iter().find(|d| is_exe(&d.join("nvcc"))) {
        let mut dirs = vec![nvcc_dir.clone()];
        dirs.extend(path_dirs.iter().cloned());
        if let Some(t) = try_dirs(&dirs, "PATH") {
            return Ok(t);
        }
    }
    looked.push("PATH".into());
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        match std::env::var_os(var).filter(|v| !v.is_empty()) {
            Some(home) => {
                let bin = PathBuf::from(&home).join("bin");
                if let Some(t) = try_dirs(
                    &[bin],
                    if var == "CUDA_HOME" {
                        "CUDA_HOME"
                    } else {
                        "CUDA_PATH"
                    },
                ) {
                    return Ok(t);
                }
                looked.push(format!("{var} ({})", Path::new(&home).display()));
            }
            None => looked.push(format!("{var} (unset)")),
        }
    }
    match python_nvidia_dirs(&path_dirs) {
        Ok(roots) => {
            let mut dirs = Vec::new();
            for r in &roots {
                dirs.push(r.join("cu13").join("bin"));
                dirs.push(r.join("cuda_nvcc").join("bin"));
                dirs.push(r.join("cuda_nvdisasm").join("bin"));
            }
            if let Some(t) = try_dirs(&dirs, "python3") {
                return Ok(t);
            }
            looked.push(format!(
                "the pip packages of python3 ({})",
                roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Err(why) => looked.push(format!("the pip packages of python3 ({why})")),
    }
    Err(match nvcc_only {
        Some(nvcc) => CudaError::NoNvdisasm { nvcc },
        None => CudaError::NotFound { looked },
    })
}

/// The folders of the `nvidia` namespace package of the `python3` on
/// `PATH` (`nvidia.__path__`), or why there are none.
fn python_nvidia_dirs(path_dirs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let Some(python) = path_dirs
        .iter()
        .map(|d| d.join("python3"))
        .find(|p| is_exe(p))
    else {
        return Err("no python3 on PATH".into());
    };
    let mut cmd = Command::new(python);
    cmd.args(["-c", "import nvidia\nfor p in nvidia.__path__: print(p)"]);
    let ran = run(&mut cmd, Duration::from_secs(30), 64 * 1024)
        .map_err(|e| format!("python3 did not answer: {e}"))?;
    if !ran.status.success() {
        return Err("no `nvidia` package".into());
    }
    let dirs: Vec<PathBuf> = String::from_utf8_lossy(&ran.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        return Err("no `nvidia` package".into());
    }
    Ok(dirs)
}

fn is_exe(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// What a finished tool left.
#[derive(Debug)]
pub struct Ran {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Either stream held more than the bound; the rest was read and
    /// dropped.
    pub truncated: bool,
}

/// Runs `cmd` (no shell; standard input closed) for at most `limit`,
/// keeping at most `max_bytes` of each output stream. A tool still running
/// at the limit is killed.
pub fn run(cmd: &mut Command, limit: Duration, max_bytes: usize) -> Result<Ran, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start it: {e}"))?;
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut truncated = false;
            if let Some(mut p) = pipe {
                let mut buf = [0u8; 8192];
                loop {
                    match p.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let room = max_bytes.saturating_sub(kept.len());
                            kept.extend_from_slice(&buf[..n.min(room)]);
                            truncated |= n > room;
                        }
                    }
                }
            }
            (kept, truncated)
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                // The readers are left to finish with whatever the tool's
                // own children still hold open.
                return Err(format!("it ran past {} s and was stopped", limit.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait for it: {e}")),
        }
    };
    let (stdout, t1) = out.join().unwrap_or_default();
    let (stderr, t2) = err.join().unwrap_or_default();
    Ok(Ran {
        status,
        stdout,
        stderr,
        truncated: t1 || t2,
    })
}

/// The message for no nvcc anywhere.
pub(super) fn not_found_message(looked: &[String]) -> String {
    format!(
        "nvcc was not found (looked in {}); install it with `{PIP_LINE}` (or a CUDA toolkit), \
         or set {NVCC_BIN} to the folder that holds nvcc and nvdisasm",
        looked.join(", ")
    )
}
