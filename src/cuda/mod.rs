//! CUDA C to a listing: nvcc compiles the source to a cubin (`-cubin
//! -lineinfo -arch=sm_XX`, with the user's flags), nvdisasm prints it
//! (`-c -g -hex`, the form `tests/kernels/regenerate` writes), and the
//! listing runs as any other `program:` does.
//!
//! Listings are cached in `$XDG_CACHE_HOME/warpstep` (else
//! `~/.cache/warpstep`), keyed by the SHA-256 of the source, its file
//! name, the flags, the architecture and `nvcc --version`; nvcc's version
//! is itself cached by nvcc's path, size and modification time, so a
//! scenario opened a second time runs no tool at all.

pub mod tools;
pub mod write;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::asm::listing::Arch;
pub use tools::{NVCC_BIN, Tools};

/// What to install when nvcc is nowhere to be found.
pub const PIP_LINE: &str = "pip install nvidia-cuda-nvcc nvidia-cuda-nvdisasm";

/// How long nvcc (or nvdisasm) may run before it is stopped.
pub const TOOL_TIME_LIMIT: Duration = Duration::from_secs(300);

/// The most a tool's diagnostics may hold: the rest is dropped.
const MAX_DIAGNOSTIC_BYTES: usize = 256 * 1024;

/// The most a listing may hold (that of a scenario file).
const MAX_LISTING_BYTES: usize = crate::scenario::file::MAX_FILE_BYTES as usize;

/// The most a `cuda:` source may hold.
pub const MAX_SOURCE_BYTES: u64 = 1024 * 1024;

/// Bumped when what the cache holds changes form.
const CACHE_FORMAT: &str = "warpstep-cuda-listing-2";

/// Flags that choose the output or the architecture, which warpstep sets
/// itself.
const RESERVED_FLAGS: &[&str] = &[
    "-o",
    "--output-file",
    "-arch",
    "--gpu-architecture",
    "-gencode",
    "--generate-code",
    "-code",
    "--gpu-code",
    "-cubin",
    "--cubin",
    "-ptx",
    "--ptx",
    "-fatbin",
    "--fatbin",
    "-c",
    "--compile",
    "-E",
    "--preprocess",
    "-M",
    "-MM",
    "-run",
    "--run",
    "-lib",
    "--lib",
    "-link",
    "--link",
    "-x",
    "--x",
];

/// Why CUDA source did not become a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CudaError {
    /// No nvcc in any place looked at.
    NotFound { looked: Vec<String> },
    /// nvcc, but no nvdisasm beside it.
    NoNvdisasm { nvcc: PathBuf },
    /// A flag of `nvcc_flags:` that warpstep sets itself.
    ReservedFlag(String),
    /// nvcc rejected the source: its diagnostics, in order.
    Compile {
        diagnostics: Vec<Diagnostic>,
        /// nvcc's whole output (standard error, then standard output).
        output: String,
    },
    /// A tool could not run, ran too long, or failed for another reason.
    Tool { tool: String, message: String },
}

impl std::fmt::Display for CudaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CudaError::NotFound { looked } => f.write_str(&tools::not_found_message(looked)),
            CudaError::NoNvdisasm { nvcc } => write!(
                f,
                "nvdisasm was not found beside {}; install it with `{PIP_LINE}`",
                nvcc.display()
            ),
            CudaError::ReservedFlag(flag) => write!(
                f,
                "nvcc flag `{flag}` is set by warpstep (it compiles with -cubin -lineinfo -arch \
                 from `arch:`)"
            ),
            CudaError::Compile {
                diagnostics,
                output,
            } => match diagnostics.first() {
                Some(d) => write!(f, "nvcc: {}", d.text),
                None => write!(f, "nvcc failed: {}", first_line(output)),
            },
            CudaError::Tool { tool, message } => write!(f, "{tool}: {message}"),
        }
    }
}

impl std::error::Error for CudaError {}

/// One diagnostic nvcc printed: `kernel.cu(5): error: expected a ";"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file as nvcc names it.
    pub file: String,
    /// 1-based line in that file.
    pub line: u32,
    /// 1-based column of nvcc's caret, when it drew one.
    pub column: Option<u32>,
    /// `error: expected a ";"`, as nvcc printed it.
    pub text: String,
    pub is_error: bool,
}

/// What to compile.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The file name the line table names (a base name: `kernel.cu`).
    pub name: &'a str,
    pub text: &'a str,
    pub arch: Arch,
    pub flags: &'a [String],
}

/// A compiled listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    /// `nvdisasm -c -g -hex` of the cubin, file names cut to the base name,
    /// then its bank-2 sections ([`constant2_sections`]).
    pub listing: String,
    /// Read from the cache: no tool ran.
    pub cache_hit: bool,
    /// The last line of `nvcc --version` (`Cuda compilation tools, release
    /// 13.5, V13.5.37`).
    pub nvcc_version: String,
}

/// The SHA-256 of `bytes`, in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The cache folder: `$XDG_CACHE_HOME/warpstep`, else
/// `$HOME/.cache/warpstep`; `None` when neither is set.
pub fn cache_dir() -> Option<PathBuf> {
    let nonempty = |v: &str| std::env::var_os(v).filter(|x| !x.is_empty());
    if let Some(x) = nonempty("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("warpstep"));
    }
    nonempty("HOME").map(|h| PathBuf::from(h).join(".cache").join("warpstep"))
}

/// A plain file name nvcc can be given: the base name of `name`, with
/// anything but letters, digits, `.`, `_` and `-` made `_`.
pub fn file_name(name: &str) -> String {
    let base = Path::new(name)
        .file_name()
        .map(|b| b.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        "kernel.cu".to_string()
    } else if clean.starts_with('.') || clean.starts_with('-') {
        format!("k{clean}")
    } else {
        clean
    }
}

/// Checks `nvcc_flags:` against the flags warpstep sets itself.
pub fn check_flags(flags: &[String]) -> Result<(), CudaError> {
    for f in flags {
        let head = f.split('=').next().unwrap_or(f);
        let reserved = RESERVED_FLAGS.contains(&head)
            || (head.starts_with("-arch") && head.len() > 5)
            || (head.starts_with("-o") && head.len() > 2 && !head.starts_with("-opt"));
        if reserved {
            return Err(CudaError::ReservedFlag(f.clone()));
        }
    }
    Ok(())
}

/// Compiles `req` to a listing, from the cache when it holds one.
pub fn compile(req: &Request<'_>) -> Result<Compiled, CudaError> {
    check_flags(req.flags)?;
    let tools = tools::find()?;
    let cache = cache_dir();
    let version = nvcc_version(&tools.nvcc, cache.as_deref())?;
    let key = cache_key(req, &version);
    let entry = cache
        .as_ref()
        .map(|c| c.join("listings").join(format!("{key}.nvdisasm")));
    if let Some(e) = &entry
        && let Ok(bytes) = crate::scenario::file::read_bounded(e, MAX_LISTING_BYTES as u64)
        && let Ok(listing) = String::from_utf8(bytes)
    {
        return Ok(Compiled {
            listing,
            cache_hit: true,
            nvcc_version: version,
        });
    }
    let listing = build(req, &tools, cache.as_deref())?;
    if let Some(e) = &entry {
        write_atomic(e, listing.as_bytes());
    }
    Ok(Compiled {
        listing,
        cache_hit: false,
        nvcc_version: version,
    })
}

/// The cache key: every input, each with its length, so that no two
/// different inputs run together.
fn cache_key(req: &Request<'_>, version: &str) -> String {
    let mut h = Sha256::new();
    let mut field = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    field(CACHE_FORMAT.as_bytes());
    field(req.name.as_bytes());
    field(req.text.as_bytes());
    field(req.arch.to_string().as_bytes());
    field(&(req.flags.len() as u64).to_le_bytes());
    for f in req.flags {
        field(f.as_bytes());
    }
    field(version.as_bytes());
    hex(&h.finalize())
}

/// `nvcc --version`'s last line, from the cache when nvcc has not changed
/// (same path, size and modification time).
fn nvcc_version(nvcc: &Path, cache: Option<&Path>) -> Result<String, CudaError> {
    let real = std::fs::canonicalize(nvcc).unwrap_or_else(|_| nvcc.to_path_buf());
    let stamp = std::fs::metadata(&real).ok().map(|m| {
        let mtime = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        format!("{}\0{}\0{mtime}", real.display(), m.len())
    });
    let entry = match (cache, &stamp) {
        (Some(c), Some(s)) => Some(
            c.join("nvcc")
                .join(format!("{}.version", sha256_hex(s.as_bytes()))),
        ),
        _ => None,
    };
    if let Some(e) = &entry
        && let Ok(bytes) = crate::scenario::file::read_bounded(e, 4096)
        && let Ok(v) = String::from_utf8(bytes)
        && !v.trim().is_empty()
    {
        return Ok(v.trim().to_string());
    }
    let mut cmd = Command::new(nvcc);
    cmd.arg("--version");
    let ran = tools::run(&mut cmd, Duration::from_secs(60), 64 * 1024).map_err(|message| {
        CudaError::Tool {
            tool: format!("{} --version", nvcc.display()),
            message,
        }
    })?;
    let text = String::from_utf8_lossy(&ran.stdout).into_owned();
    if !ran.status.success() {
        return Err(CudaError::Tool {
            tool: format!("{} --version", nvcc.display()),
            message: format!("exited with {}", ran.status),
        });
    }
    let version = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.contains("release"))
        .or_else(|| text.lines().map(str::trim).rfind(|l| !l.is_empty()))
        .unwrap_or("unknown")
        .to_string();
    if let Some(e) = &entry {
        write_atomic(e, version.as_bytes());
    }
    Ok(version)
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a
/// reader never sees half a file. A cache that cannot be written is no
/// error: the next open compiles again.
fn write_atomic(path: &Path, bytes: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        std::process::id()
    ));
    if std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// A fresh folder to compile in, removed when dropped.
struct BuildDir(PathBuf);

impl Drop for BuildDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn build_dir(cache: Option<&Path>) -> Result<BuildDir, CudaError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let base = cache.map_or_else(std::env::temp_dir, |c| c.join("build"));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = base.join(format!(
        "{}-{}-{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| CudaError::Tool {
        tool: "warpstep".into(),
        message: format!(
            "cannot make a folder to compile in ({}): {e}",
            dir.display()
        ),
    })?;
    Ok(BuildDir(dir))
}

/// Runs nvcc and nvdisasm in a folder of their own.
fn build(req: &Request<'_>, tools: &Tools, cache: Option<&Path>) -> Result<String, CudaError> {
    let dir = build_dir(cache)?;
    let name = file_name(req.name);
    let io = |e: std::io::Error| CudaError::Tool {
        tool: "warpstep".into(),
        message: format!("cannot write the source to compile: {e}"),
    };
    std::fs::write(dir.0.join(&name), req.text).map_err(io)?;
    let mut cmd = Command::new(&tools.nvcc);
    cmd.current_dir(&dir.0)
        .arg("-cubin")
        .arg("-lineinfo")
        .arg(format!("-arch={}", req.arch))
        .args(req.flags)
        .args(["-o", "kernel.cubin", "-x", "cu"])
        .arg(&name);
    let ran = tools::run(&mut cmd, TOOL_TIME_LIMIT, MAX_DIAGNOSTIC_BYTES).map_err(|message| {
        CudaError::Tool {
            tool: tools.nvcc.display().to_string(),
            message,
        }
    })?;
    if !ran.status.success() {
        let mut output = String::from_utf8_lossy(&ran.stderr).into_owned();
        output.push_str(&String::from_utf8_lossy(&ran.stdout));
        if ran.truncated {
            output.push_str("\n(the rest of nvcc's output was left out)\n");
        }
        return Err(CudaError::Compile {
            diagnostics: diagnostics(&output, req.text, &name),
            output,
        });
    }
    let mut listing = base_names(&disassemble(tools, &dir.0, &["-c", "-g", "-hex"])?);
    // `-c` leaves out the data sections, among them bank 2, the literal
    // pool and jump tables (`c[0x2][..]`): they come from a listing of
    // every section, after the code.
    let all = disassemble(tools, &dir.0, &["-hex"])?;
    listing.push_str(&constant2_sections(&all));
    Ok(listing)
}

/// The `.nv.constant2.KERNEL` sections of a full nvdisasm listing, each
/// from its `//-----` heading to the next heading.
pub fn constant2_sections(full: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in full.split_inclusive('\n') {
        if line.trim_start().starts_with("//----") {
            inside = line.contains(".nv.constant2.");
        }
        if inside {
            out.push_str(line);
        }
    }
    out
}

/// `nvdisasm ARGS kernel.cubin` in `dir`: its listing.
fn disassemble(tools: &Tools, dir: &Path, args: &[&str]) -> Result<String, CudaError> {
    let mut cmd = Command::new(&tools.nvdisasm);
    cmd.current_dir(dir).args(args).arg("kernel.cubin");
    let ran = tools::run(&mut cmd, TOOL_TIME_LIMIT, MAX_LISTING_BYTES).map_err(|message| {
        CudaError::Tool {
            tool: tools.nvdisasm.display().to_string(),
            message,
        }
    })?;
    if !ran.status.success() || ran.truncated {
        return Err(CudaError::Tool {
            tool: tools.nvdisasm.display().to_string(),
            message: if ran.truncated {
                format!("the listing holds more than {MAX_LISTING_BYTES} bytes")
            } else {
                format!(
                    "exited with {}: {}",
                    ran.status,
                    first_line(&String::from_utf8_lossy(&ran.stderr))
                )
            },
        });
    }
    Ok(String::from_utf8_lossy(&ran.stdout).into_owned())
}

/// `//## File "/some/dir/kernel.cu", line 4` → `//## File "kernel.cu",
/// line 4`: nothing of the build folder reaches the listing.
pub fn base_names(listing: &str) -> String {
    const MARK: &str = "//## File \"";
    let mut out = String::with_capacity(listing.len());
    for line in listing.split_inclusive('\n') {
        if let Some(at) = line.find(MARK) {
            let start = at + MARK.len();
            if let Some(len) = line[start..].find('"') {
                let path = &line[start..start + len];
                let base = path.rsplit('/').next().unwrap_or(path);
                out.push_str(&line[..start]);
                out.push_str(base);
                out.push_str(&line[start + len..]);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

fn first_line(s: &str) -> &str {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("(no output)")
}

/// nvcc's diagnostics: `FILE(LINE): error: TEXT`, each followed by the
/// source line and a caret line (`    ^`) that gives the column, worked
/// out against `source` (nvcc indents the echoed line).
pub fn diagnostics(output: &str, source: &str, name: &str) -> Vec<Diagnostic> {
    let lines: Vec<&str> = output.lines().collect();
    let src: Vec<&str> = source.split('\n').collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some((file, line, text)) = parse_header(l) else {
            continue;
        };
        let is_error = text.starts_with("error") || text.starts_with("catastrophic");
        let mut column = None;
        if let (Some(echo), Some(caret)) = (lines.get(i + 1), lines.get(i + 2))
            && caret.trim() == "^"
            && let Some(at) = caret.find('^')
        {
            let actual = src
                .get(line.saturating_sub(1) as usize)
                .map(|s| s.strip_suffix('\r').unwrap_or(s));
            let shift = match actual {
                Some(a) if echo.ends_with(a) => echo.len() - a.len(),
                _ => echo.len() - echo.trim_start().len(),
            };
            let col = at.saturating_sub(shift);
            // Bytes to characters.
            let chars = actual
                .and_then(|a| a.get(..col.min(a.len())))
                .map_or(col, |p| p.chars().count());
            column = Some(chars as u32 + 1);
        }
        let base = file.rsplit('/').next().unwrap_or(file);
        out.push(Diagnostic {
            file: if base == name {
                name.to_string()
            } else {
                file.to_string()
            },
            line,
            column,
            text: text.to_string(),
            is_error,
        });
    }
    // Errors first: the first is the one the load error points at.
    out.sort_by_key(|d| !d.is_error);
    out
}

/// `kernel.cu(5): error: expected a ";"` → (`kernel.cu`, 5, `error:
/// expected a ";"`).
fn parse_header(l: &str) -> Option<(&str, u32, &str)> {
    let open = l.find('(')?;
    let close = open + l[open..].find("): ")?;
    let line: u32 = l[open + 1..close].parse().ok()?;
    let text = &l[close + 3..];
    let kind = text.split([':', ' ']).next()?;
    if !matches!(kind, "error" | "warning" | "remark" | "catastrophic") {
        return None;
    }
    Some((&l[..open], line, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_abc_is_the_standard_vector() {
        // FIPS 180-2, appendix B.1.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn nvcc_diagnostics_give_line_and_column() {
        // As nvcc 13.5 printed it for this source (two spaces of indent
        // before `if`: the caret under the `i` of `if` is column 3).
        let source = "__global__ void k(float *d, int n) {\n  int i = threadIdx.x\n  if (i < n) d[i] = 1;\n}\n";
        let output = "k.cu(3): error: expected a \";\"\n    if (i < n) d[i] = 1;\n    ^\n\n\
                      k.cu(2): warning #177-D: variable \"i\" was declared but never referenced\n    int i = threadIdx.x\n        ^\n\n\
                      1 error detected in the compilation of \"k.cu\".\n";
        let d = diagnostics(output, source, "k.cu");
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].line, d[0].column), (3, Some(3)));
        assert_eq!(d[0].text, "error: expected a \";\"");
        assert!(d[0].is_error);
        assert_eq!((d[1].line, d[1].column), (2, Some(7)));
        assert!(!d[1].is_error);
    }

    #[test]
    fn line_info_names_only_the_base_name() {
        let l = "\t//## File \"/tmp/x/y/seed.cu\", line 4\n  /*0000*/ EXIT ;\n";
        assert_eq!(
            base_names(l),
            "\t//## File \"seed.cu\", line 4\n  /*0000*/ EXIT ;\n"
        );
    }

    #[test]
    fn reserved_flags_are_refused() {
        assert!(check_flags(&["-O3".into(), "-use_fast_math".into(), "-opt-info".into()]).is_ok());
        for bad in [
            "-o",
            "-ofile",
            "-arch=sm_80",
            "-archsm_80",
            "--gpu-architecture=sm_80",
            "-ptx",
        ] {
            assert!(check_flags(&[bad.into()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn file_names_are_plain() {
        assert_eq!(file_name("dir/k.cu"), "k.cu");
        assert_eq!(file_name("a b$.cu"), "a_b_.cu");
        assert_eq!(file_name(""), "kernel.cu");
        assert_eq!(file_name("-x.cu"), "k-x.cu");
    }
}
