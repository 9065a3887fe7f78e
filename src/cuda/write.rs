//! `warpstep compile`: a scenario that runs without nvcc, written from
//! CUDA C source. The listing is embedded as `program:`, the source kept
//! under `cuda:` (with its `cuda_sha256:`), and `launch:`, `memory:` and
//! `args:` are stubs worked out from the kernel's parameters: each pointer
//! a buffer of the type it points to, each scalar a number to fill in.

use std::fmt::Write as _;

use super::{Compiled, CudaError, Request, compile, sha256_hex};
use crate::asm::abi::{ParamType, mangled_params_with_pointees};
use crate::asm::listing::{self, Arch};

/// What to write a scenario of.
#[derive(Debug, Clone)]
pub struct WriteRequest<'a> {
    /// The source file as the user named it, for the comment.
    pub path: &'a str,
    pub text: &'a str,
    pub arch: Arch,
    /// `--kernel`: needed when the source has several kernels.
    pub kernel: Option<&'a str>,
    pub flags: &'a [String],
}

/// The written scenario.
#[derive(Debug, Clone)]
pub struct Written {
    pub yaml: String,
    /// The kernel's symbol.
    pub kernel: String,
    /// Buffers and scalars the user is to size and fill.
    pub buffers: Vec<String>,
    pub scalars: Vec<String>,
    pub compiled: Compiled,
}

/// Why no scenario was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    Cuda(CudaError),
    /// The source or the listing cannot make a scenario: the message.
    Other(String),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Cuda(e) => write!(f, "{e}"),
            WriteError::Other(m) => f.write_str(m),
        }
    }
}

/// Names an expression already gives a meaning to (`memory:` refuses
/// them as buffer names).
const RESERVED: &[&str] = &[
    "tid", "lane", "warp", "block", "ntid", "nthreads", "nblocks", "i", "rand", "true", "false",
];

/// Threads of the stub launch; each buffer gets one element per thread.
const STUB_THREADS: u32 = 32;

/// Compiles `req` and writes the scenario text.
pub fn scenario(req: &WriteRequest<'_>) -> Result<Written, WriteError> {
    let text = req.text.replace("\r\n", "\n");
    if let Some((n, line)) = text
        .split('\n')
        .enumerate()
        .find(|(_, l)| l.chars().any(|c| c.is_control() && c != '\t'))
    {
        let _ = line;
        return Err(WriteError::Other(format!(
            "{}:{}: a control character that a YAML scenario cannot hold",
            req.path,
            n + 1
        )));
    }
    let name = super::file_name(req.path);
    let compiled = compile(&Request {
        name: &name,
        text: &text,
        arch: req.arch,
        flags: req.flags,
    })
    .map_err(WriteError::Cuda)?;
    let parsed = listing::read(&compiled.listing).map_err(|errs| {
        WriteError::Other(format!(
            "cannot read nvcc's listing: {}",
            errs.first().map_or("no kernels", |e| e.message.as_str())
        ))
    })?;
    if parsed.kernels.is_empty() {
        return Err(WriteError::Other(format!(
            "{} has no kernel (no `__global__` function)",
            req.path
        )));
    }
    let kernel = parsed.kernel(req.kernel).map_err(|e| {
        let mut m = e.message.clone();
        if let Some(h) = &e.hint {
            let _ = write!(m, "; {h}");
        }
        if req.kernel.is_none() {
            m.push_str("; choose one with --kernel NAME");
        }
        WriteError::Other(m)
    })?;
    let symbol = kernel.name.clone();
    let plain = kernel.plain_name.clone().unwrap_or_else(|| symbol.clone());
    let params = mangled_params_with_pointees(&symbol);
    let names = param_names(&text, &plain);

    // Parameters: a buffer per pointer, a number per scalar.
    let mut memory = String::new();
    let mut args: Vec<String> = Vec::new();
    let mut arg_notes: Vec<String> = Vec::new();
    let mut buffers = Vec::new();
    let mut scalars = Vec::new();
    let mut unsupported = Vec::new();
    if let Some(params) = &params {
        let names = names
            .filter(|n| n.len() == params.len())
            .unwrap_or_else(|| (0..params.len()).map(|i| format!("p{i}")).collect());
        let mut used: Vec<String> = Vec::new();
        for ((ty, to), (i, given)) in params.iter().zip(names.iter().enumerate()) {
            let mut n = given.clone();
            if RESERVED.contains(&n.as_str()) || used.contains(&n) || !is_ident(&n) {
                n = format!("{n}_{i}");
                if !is_ident(&n) {
                    n = format!("p{i}");
                }
            }
            used.push(n.clone());
            match ty {
                ParamType::Pointer => {
                    let elem = to.as_ref().map_or("u8", elem_name);
                    let _ = writeln!(
                        memory,
                        "  {n}: {{type: {elem}, len: {STUB_THREADS}}}   # EDIT: `{}`'s length; \
                         init: \"EXPR of i\" or a list (default zeros)",
                        c_type(ty, to.as_ref(), given)
                    );
                    args.push(n.clone());
                    buffers.push(n);
                }
                ParamType::Int { .. } => {
                    args.push(STUB_THREADS.to_string());
                    arg_notes.push(format!("{} = {STUB_THREADS}", c_type(ty, None, given)));
                    scalars.push(given.clone());
                }
                ParamType::Float { .. } => {
                    args.push("1.0".into());
                    arg_notes.push(format!("{} = 1.0", c_type(ty, None, given)));
                    scalars.push(given.clone());
                }
                ParamType::Struct(s) => {
                    args.push("[0]".into());
                    arg_notes.push(format!("struct {s} {given}: list its fields"));
                    unsupported.push(format!("{given} (struct {s})"));
                    scalars.push(given.clone());
                }
            }
        }
    }

    let version = compiled.nvcc_version.clone();
    let flags_shown = if req.flags.is_empty() {
        String::new()
    } else {
        format!(" --nvcc-flags '{}'", req.flags.join(" "))
    };
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# Written by `warpstep compile {} --kernel {plain} --arch {}{flags_shown}`",
        req.path, req.arch
    );
    let _ = writeln!(y, "# with nvcc ({version}).");
    y.push_str(
        "# It runs without nvcc: `program:` is nvcc's listing (nvdisasm -c -g -hex, and bank 2) of the\n\
         # source under `cuda:`, which is shown beside it. What to edit (lines marked EDIT):\n\
         #   launch:  the grid (`blocks`) and block (`block_dim`) size, 1-D or [x, y, z];\n\
         #   memory:  each buffer's `len` (and `init`: an expression of i, or a list);\n\
         #   args:    the kernel's parameters in order: buffer names, then numbers;\n\
         #   expect:  what the run should report, to make it a test (docs/scenario-format.md).\n\
         # After changing the source run `warpstep compile` again (warpstep warns when\n\
         # `cuda_sha256` is not the source's), or delete `program:` and `cuda_sha256:` to\n\
         # compile `cuda:` each time the scenario opens (that needs nvcc).\n",
    );
    let _ = writeln!(
        y,
        "name: {}",
        yaml_plain(&format!("{plain} ({name}, {})", req.arch))
    );
    let _ = writeln!(
        y,
        "description: {}",
        yaml_plain(&format!(
            "{plain} from {name}, compiled by nvcc for {}",
            req.arch
        ))
    );
    let _ = writeln!(
        y,
        "launch: {{blocks: 1, block_dim: {STUB_THREADS}}}   # EDIT"
    );
    if !memory.is_empty() {
        y.push_str("memory:\n");
        y.push_str(&memory);
    }
    match &params {
        Some(p) if p.is_empty() => {}
        Some(_) => {
            let _ = write!(y, "args: [{}]", args.join(", "));
            if arg_notes.is_empty() {
                y.push('\n');
            } else {
                let _ = writeln!(y, "   # EDIT: {}", arg_notes.join(", "));
            }
        }
        None => {
            y.push_str(
                "# args: [...]   # EDIT: the kernel's symbol does not give its parameters (extern \"C\"?):\n\
                 #                 list them in order, and give each pointer a buffer under memory:\n",
            );
        }
    }
    let _ = writeln!(y, "kernel: {}", yaml_plain(&symbol));
    let _ = writeln!(y, "arch: {}", req.arch);
    if !req.flags.is_empty() {
        let quoted: Vec<String> = req.flags.iter().map(|f| yaml_quoted(f)).collect();
        let _ = writeln!(y, "nvcc_flags: [{}]", quoted.join(", "));
    }
    let _ = writeln!(y, "cuda_sha256: {}", sha256_hex(text.as_bytes()));
    let _ = write!(y, "cuda: {}", block(&text));
    let _ = write!(y, "program: {}", block(&compiled.listing));
    if !unsupported.is_empty() {
        let _ = writeln!(
            y,
            "# Parameters passed by value as structs ({}) need their fields listed in `args:`.",
            unsupported.join(", ")
        );
    }
    Ok(Written {
        yaml: y,
        kernel: symbol,
        buffers,
        scalars,
        compiled,
    })
}

fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The element type of a buffer a pointer to `t` points into.
fn elem_name(t: &ParamType) -> &'static str {
    match t {
        ParamType::Int {
            size: 1,
            signed: true,
        } => "i8",
        ParamType::Int { size: 1, .. } => "u8",
        ParamType::Int {
            size: 2,
            signed: true,
        } => "i16",
        ParamType::Int { size: 2, .. } => "u16",
        ParamType::Int {
            size: 4,
            signed: true,
        } => "i32",
        ParamType::Int { size: 4, .. } => "u32",
        ParamType::Int {
            size: 8,
            signed: true,
        } => "i64",
        ParamType::Int { size: 8, .. } => "u64",
        ParamType::Float { size: 8 } => "f64",
        ParamType::Float { .. } => "f32",
        ParamType::Pointer => "u64",
        _ => "u8",
    }
}

/// A parameter as C would declare it, for the comments.
fn c_type(t: &ParamType, to: Option<&ParamType>, name: &str) -> String {
    let base = |t: &ParamType| -> String {
        match t {
            ParamType::Int { size, signed } => {
                let b = match size {
                    1 => "char",
                    2 => "short",
                    4 => "int",
                    8 => "long long",
                    _ => "__int128",
                };
                if *signed {
                    b.to_string()
                } else {
                    format!("unsigned {b}")
                }
            }
            ParamType::Float { size: 8 } => "double".into(),
            ParamType::Float { .. } => "float".into(),
            ParamType::Pointer => "void *".into(),
            ParamType::Struct(s) => s.clone(),
        }
    };
    match t {
        ParamType::Pointer => format!("{} *{name}", to.map_or_else(|| "void".into(), base)),
        other => format!("{} {name}", base(other)),
    }
}

/// The parameter names of `__global__ ... NAME(...)` in `text`, when the
/// declaration is plain enough to read; `None` otherwise.
pub fn param_names(text: &str, name: &str) -> Option<Vec<String>> {
    let mut from = 0;
    while let Some(at) = text[from..].find(name) {
        let start = from + at;
        from = start + name.len();
        let before_ok = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let rest = text[from..].trim_start();
        if !before_ok || !rest.starts_with('(') {
            continue;
        }
        // A `__global__` between the previous `;` or `}` and the name.
        let head_from = text[..start].rfind([';', '}']).map_or(0, |i| i + 1);
        if !text[head_from..start].contains("__global__") {
            continue;
        }
        let open = text.len() - rest.len();
        let mut depth = 0usize;
        let mut close = None;
        for (i, c) in text[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let inner = &text[open + 1..close?];
        let mut names = Vec::new();
        if inner.trim().is_empty() || inner.trim() == "void" {
            return Some(names);
        }
        let mut depth = 0i32;
        let mut cur = String::new();
        let mut parts = Vec::new();
        for c in inner.chars() {
            match c {
                '(' | '<' | '[' => depth += 1,
                ')' | '>' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            cur.push(c);
        }
        parts.push(cur);
        for p in parts {
            let p = p.split('=').next().unwrap_or("");
            let p = p.split('[').next().unwrap_or("");
            let ident: String = p
                .trim_end()
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if !is_ident(&ident) {
                return None;
            }
            names.push(ident);
        }
        return Some(names);
    }
    None
}

/// A YAML block scalar of `text` under a top-level key, read back exactly:
/// the chomping indicator keeps the trailing newlines as they are, the
/// indentation indicator lets a first line start with spaces.
pub fn block(text: &str) -> String {
    let trailing = text.len() - text.trim_end_matches('\n').len();
    let chomp = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let first = text
        .split('\n')
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let indicator = if first.starts_with(' ') { "2" } else { "" };
    let mut s = format!("|{indicator}{chomp}\n");
    let body = text.strip_suffix('\n').unwrap_or(text);
    for line in body.split('\n') {
        if line.is_empty() {
            s.push('\n');
        } else {
            let _ = writeln!(s, "  {line}");
        }
    }
    // Kept trailing newlines beyond the first are empty lines.
    s
}

/// A one-line value, quoted when YAML would read it as something else.
fn yaml_plain(s: &str) -> String {
    let plain = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || " _-.,()".contains(c))
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if plain { s.to_string() } else { yaml_quoted(s) }
}

fn yaml_quoted(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_come_from_the_declaration() {
        let src = "// k(int a)\n__device__ int k(int q);\n__global__ void __launch_bounds__(256) k(const float *__restrict__ in, float *out, int n = 3, float s[4]) {}\n";
        assert_eq!(
            param_names(src, "k"),
            Some(vec!["in".into(), "out".into(), "n".into(), "s".into()])
        );
        assert_eq!(param_names("__global__ void k(void) {}", "k"), Some(vec![]));
        assert_eq!(param_names("__device__ void k(int a) {}", "k"), None);
    }

    #[test]
    fn blocks_read_back_as_they_were() {
        // The YAML rules for block scalars (chomping, indentation
        // indicator) are checked by loading a scenario in tests/cuda.rs;
        // here the headers are the ones the rules call for.
        assert!(block("a\n").starts_with("|\n"));
        assert!(block("a").starts_with("|-\n"));
        assert!(block("a\n\n").starts_with("|+\n"));
        assert!(block("  a\n").starts_with("|2\n"));
        assert_eq!(block("x\n\ny\n"), "|\n  x\n\n  y\n");
    }
}
