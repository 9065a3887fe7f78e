//! `cuda:`, `nvcc_flags:` and `cuda_sha256:`: CUDA C source, inline or
//! from a file beside the scenario, compiled with nvcc to the listing that
//! runs, or kept beside a `program:` for display.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::Node;
use super::{LoadError, Origin, file, leaf, program};
use crate::asm::listing::Arch;
use crate::cuda::{self, CudaError, Diagnostic};

/// The CUDA C source a scenario carries, for display beside its program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CudaSource {
    /// The file name the listing's line table names (`kernel.cu`): the
    /// base name of `cuda: {file: ...}`, or the scenario's own name with
    /// `.cu` for inline source.
    pub name: String,
    pub text: String,
    /// How the listing that runs was made: `None` when `program:` holds it.
    pub compiled: Option<CompiledNote>,
}

/// What compiling `cuda:` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledNote {
    /// No tool ran: the listing came from the cache.
    pub cache_hit: bool,
    /// The last line of `nvcc --version`.
    pub nvcc_version: String,
}

/// Set while loading scenarios the user did not write (a cast's header):
/// `cuda:` is then never compiled and `cuda: {file:}` never read, so a
/// stranger's file cannot run nvcc (whose preprocessor follows `#include`
/// into local files and shows them in its errors) or name a local file.
static FOREIGN: AtomicBool = AtomicBool::new(false);

/// See [`FOREIGN`]; one value for the process, like the memory budget.
pub(super) fn set_foreign(on: bool) {
    FOREIGN.store(on, Ordering::Relaxed);
}

fn foreign() -> bool {
    FOREIGN.load(Ordering::Relaxed)
}

/// `cuda: {file:}` in a foreign scenario: a file that is not read.
pub(super) fn foreign_file(leaf: &Spanned<Node>) -> bool {
    foreign() && matches!(leaf.value, Node::Map(_))
}

/// What a foreign scenario needs instead of what it asked for.
const FOREIGN_HINT: &str = "warpstep compiles CUDA and reads files only for scenarios you open \
     yourself; `warpstep compile kernel.cu` writes a scenario whose `program:` holds the listing \
     and `cuda:` the source inline, which loads anywhere without nvcc";

/// `cuda:` as read, before compiling.
pub(super) struct Input {
    pub name: String,
    pub text: String,
    /// Where the key's value is written.
    pub pos: Pos,
    /// For inline source: the file line and indentation of source line 1.
    /// For a file: its path, as messages show it.
    pub place: Place,
}

pub(super) enum Place {
    Inline { line: u32, indent: u32 },
    File(String),
}

/// Reads `cuda:`: a string (the source) or `{file: PATH}` relative to the
/// scenario's folder.
pub(super) fn read(
    src: &SourceFile<'_>,
    origin: &Origin,
    leaf: &Spanned<Node>,
) -> Result<Input, LoadError> {
    let pos = Pos::of(leaf);
    let expected =
        "CUDA C source (`cuda: |` followed by indented lines) or `cuda: {file: kernel.cu}`";
    match &leaf.value {
        Node::Str(text) => {
            let (line, indent) = program::anchor(src, leaf, text);
            let stem = match origin {
                Origin::File(p) => std::path::Path::new(p)
                    .file_stem()
                    .map_or_else(|| "kernel".into(), |s| s.to_string_lossy().into_owned()),
                Origin::Builtin(n) => n.clone(),
            };
            if text.trim().is_empty() {
                return Err(src.error(pos, "cuda", "`cuda` is empty").expected(expected));
            }
            Ok(Input {
                name: cuda::file_name(&format!("{stem}.cu")),
                text: text.clone(),
                pos,
                place: Place::Inline { line, indent },
            })
        }
        Node::Map(entries) => {
            let mut path = None;
            for (k, v) in entries {
                match &k.value {
                    Node::Str(s) if s == "file" => path = Some(v),
                    Node::Str(s) => {
                        return Err(src
                            .error(Pos::of(k), "cuda", format!("unknown key `{s}` in `cuda`"))
                            .expected("`file`")
                            .hint(Some("write `cuda: {file: kernel.cu}`".into())));
                    }
                    other => {
                        return Err(src
                            .error(
                                Pos::of(k),
                                "cuda",
                                format!("a key of `cuda` is {}", other.kind()),
                            )
                            .expected("`file`"));
                    }
                }
            }
            let Some(p) = path else {
                return Err(src
                    .error(pos, "cuda", "`cuda` has no `file`")
                    .expected(expected));
            };
            let rel = leaf::string(src, p, "cuda.file")?;
            if foreign() {
                return Err(src
                    .error(
                        Pos::of(p),
                        "cuda.file",
                        "this scenario was not opened by you (it came with a cast), so \
                         `cuda.file` is not read",
                    )
                    .expected("inline source: `cuda: |`")
                    .hint(Some(FOREIGN_HINT.into())));
            }
            let dir = match origin {
                Origin::File(f) => std::path::Path::new(f)
                    .parent()
                    .map(std::path::Path::to_path_buf)
                    .unwrap_or_default(),
                Origin::Builtin(_) => {
                    return Err(src
                        .error(
                            Pos::of(p),
                            "cuda.file",
                            "a built-in scenario has no folder to read `cuda.file` from",
                        )
                        .expected("inline source: `cuda: |`"));
                }
            };
            let full = dir.join(rel.trim());
            let shown = full.display().to_string();
            let bytes = file::read_bounded(&full, cuda::MAX_SOURCE_BYTES).map_err(|e| {
                src.error(
                    Pos::of(p),
                    "cuda.file",
                    format!("cannot read `{shown}`: {e}"),
                )
                .expected("a CUDA C file, relative to the scenario's folder")
            })?;
            let text = String::from_utf8(bytes).map_err(|_| {
                src.error(
                    Pos::of(p),
                    "cuda.file",
                    format!("`{shown}` is not UTF-8 text"),
                )
                .hint(Some("save the source as UTF-8".into()))
            })?;
            Ok(Input {
                name: cuda::file_name(rel.trim()),
                text,
                pos,
                place: Place::File(shown),
            })
        }
        other => Err(src
            .error(
                pos,
                "cuda",
                format!(
                    "`cuda` must be source text or a mapping, found {}",
                    other.kind()
                ),
            )
            .expected(expected)),
    }
}

/// `nvcc_flags:`: a list of strings, or one string split at spaces.
pub(super) fn flags(
    src: &SourceFile<'_>,
    leaf: Option<&Spanned<Node>>,
) -> Result<Vec<String>, LoadError> {
    let Some(leaf) = leaf else {
        return Ok(Vec::new());
    };
    let out: Vec<String> = match &leaf.value {
        Node::Null => Vec::new(),
        Node::Str(s) => s.split_whitespace().map(str::to_string).collect(),
        Node::Seq(items) => {
            let mut v = Vec::new();
            for it in items {
                v.push(leaf::string(src, it, "nvcc_flags")?);
            }
            v
        }
        other => {
            return Err(src
                .error(
                    Pos::of(leaf),
                    "nvcc_flags",
                    format!(
                        "`nvcc_flags` must be a list of flags, found {}",
                        other.kind()
                    ),
                )
                .expected("a list like `[-O3, -use_fast_math]`"));
        }
    };
    if let Err(e) = cuda::check_flags(&out) {
        return Err(src
            .error(Pos::of(leaf), "nvcc_flags", e.to_string())
            .expected("flags that change how nvcc compiles, not what it writes")
            .hint(Some("set the architecture with `arch:`".into())));
    }
    Ok(out)
}

/// `cuda_sha256:`: 64 hex digits.
pub(super) fn sha(
    src: &SourceFile<'_>,
    leaf: Option<&Spanned<Node>>,
) -> Result<Option<String>, LoadError> {
    let Some(leaf) = leaf else { return Ok(None) };
    let s = leaf::string(src, leaf, "cuda_sha256")?
        .trim()
        .to_ascii_lowercase();
    if s.len() != 64 || !s.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(src
            .error(
                Pos::of(leaf),
                "cuda_sha256",
                "`cuda_sha256` is not a SHA-256",
            )
            .expected("64 hex digits, as `sha256sum kernel.cu` prints them"));
    }
    Ok(Some(s))
}

/// Compiles the source for `arch`: the listing, or a load error located at
/// nvcc's first error (the scenario's line for inline source, the file's
/// for `cuda: {file:}`).
pub(super) fn compile(
    src: &SourceFile<'_>,
    input: &Input,
    arch: Arch,
    flags: &[String],
) -> Result<(String, CompiledNote), LoadError> {
    if foreign() {
        return Err(src
            .error(
                input.pos,
                "cuda",
                "this scenario was not opened by you (it came with a cast), so its `cuda:` \
                 is not compiled and it has no `program:` to run",
            )
            .expected("a scenario with `program:` (the listing) beside `cuda:`")
            .hint(Some(FOREIGN_HINT.into())));
    }
    let req = cuda::Request {
        name: &input.name,
        text: &input.text,
        arch,
        flags,
    };
    match cuda::compile(&req) {
        Ok(c) => Ok((
            c.listing,
            CompiledNote {
                cache_hit: c.cache_hit,
                nvcc_version: c.nvcc_version,
            },
        )),
        Err(e) => Err(error(src, input, &e)),
    }
}

fn error(src: &SourceFile<'_>, input: &Input, e: &CudaError) -> LoadError {
    match e {
        CudaError::NotFound { .. } | CudaError::NoNvdisasm { .. } => src
            .error(input.pos, "cuda", e.to_string())
            .expected("nvcc and nvdisasm, to compile `cuda:`")
            .hint(Some(format!(
                "`{}`; or, where nvcc is, `warpstep compile` writes a scenario that runs without it",
                cuda::PIP_LINE
            ))),
        CudaError::Compile { diagnostics, output } => {
            // Errors only: nvcc's warnings after a syntax error are noise,
            // and a load error is no place for warnings.
            let mut located = diagnostics
                .iter()
                .filter(|d| d.is_error)
                .map(|d| diagnostic(src, input, d));
            match located.next() {
                Some(first) => first.with_more(located.collect()),
                None => {
                    let rest: Vec<&str> = output
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .skip(1)
                        .take(8)
                        .collect();
                    src.error(input.pos, "cuda", e.to_string())
                        .hint((!rest.is_empty()).then(|| format!("nvcc also said: {}", rest.join(" | "))))
                }
            }
        }
        CudaError::ReservedFlag(_) | CudaError::Tool { .. } => src.error(input.pos, "cuda", e.to_string()),
    }
}

/// One nvcc diagnostic at its place: the scenario line that holds the
/// source line for inline source, the file's own line for a file.
fn diagnostic(src: &SourceFile<'_>, input: &Input, d: &Diagnostic) -> LoadError {
    let message = format!(
        "nvcc: {}",
        d.text.strip_prefix("error: ").unwrap_or(&d.text)
    );
    let col = d.column.unwrap_or(1);
    if d.file != input.name {
        // A header's line: nowhere in the scenario.
        return src.error(
            input.pos,
            "cuda",
            format!("{message} (in {}, line {})", d.file, d.line),
        );
    }
    match &input.place {
        Place::Inline { line, indent } => {
            let file_line = line.saturating_add(d.line.saturating_sub(1));
            let source_line = input
                .text
                .split('\n')
                .nth(d.line.saturating_sub(1) as usize);
            let verbatim = match (source_line, src.line(file_line)) {
                (Some(s), Some(f)) => {
                    f.chars()
                        .skip(*indent as usize)
                        .collect::<String>()
                        .trim_end()
                        == s.trim_end()
                }
                _ => false,
            };
            if verbatim {
                src.error(Pos::new(file_line, indent + col, 1), "cuda", message)
            } else {
                src.error(
                    input.pos,
                    "cuda",
                    format!("{message} (cuda line {}, column {col})", d.line),
                )
            }
        }
        Place::File(shown) => SourceFile {
            file: shown.clone(),
            text: &input.text,
        }
        .error(Pos::new(d.line.max(1), col, 1), "cuda", message),
    }
}

/// Why a listing given as `program:` may no longer be the code of `cuda:`:
/// a `cuda_sha256:` that is not the source's, or line-table lines past the
/// end of the source.
pub(super) fn mismatch(cuda: &CudaSource, sha: Option<&str>, listing: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(want) = sha {
        let have = cuda::sha256_hex(cuda.text.as_bytes());
        if have != want {
            out.push(format!(
                "`program:` was compiled from other source than `cuda:` (cuda_sha256 {}…, the \
                 source's SHA-256 {}…): run `warpstep compile` again, or the source shown is not \
                 the code that runs",
                &want[..12],
                &have[..12]
            ));
        }
    }
    let lines = cuda.text.lines().count() as u32;
    let needle = format!("//## File \"{}\", line ", cuda.name);
    let past = listing
        .lines()
        .filter_map(|l| l.split_once(&needle).map(|(_, r)| r))
        .filter_map(|r| {
            r.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<u32>()
                .ok()
        })
        .find(|&n| n > lines);
    if let Some(n) = past {
        out.push(format!(
            "`program:`'s line table names line {n} of {}, and `cuda:` has {lines} lines: the \
             listing is not of this source",
            cuda.name
        ));
    }
    out
}

/// The files a listing's line table names (`//## File "kernel.cu", line
/// 4`), in the order they first appear.
pub(super) fn line_table_files(listing: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in listing.lines() {
        if let Some((_, rest)) = l.split_once("//## File \"")
            && let Some((name, _)) = rest.split_once('"')
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_string());
        }
    }
    out
}
