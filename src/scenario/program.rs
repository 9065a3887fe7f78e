//! `program:`: where the program text sits in the file, and assembler
//! errors mapped from program coordinates to file coordinates.

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::Node;
use super::{LoadError, leaf};
use crate::asm::listing::{self, Arch, ListingInfo};
use crate::asm::{self, AsmError, Program};

/// Where program line 1, column 1 is in the file: `(line, indent)` such that
/// program line k, column c is file line `line + k - 1`, column
/// `indent + c`. For a block scalar (`program: |`) that is its first content
/// line and indentation; for a one-line scalar, the scalar itself (past an
/// opening quote).
pub(super) fn anchor(src: &SourceFile<'_>, leaf: &Spanned<Node>, text: &str) -> (u32, u32) {
    let pos = Pos::of(leaf);
    let col0 = pos.column.saturating_sub(1);
    let quoted = src
        .line(pos.line)
        .and_then(|l| l.chars().nth(col0 as usize))
        .is_some_and(|c| c == '"' || c == '\'');
    // The parser points at the first content line; blank lines before it
    // are still program lines.
    let leading_blank = text.chars().take_while(|&c| c == '\n').count() as u32;
    (
        pos.line.saturating_sub(leading_blank).max(1),
        col0 + u32::from(quoted),
    )
}

/// `kernel:` and `arch:`, with where they are written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Selection {
    pub kernel: Option<(String, Pos)>,
    pub arch: Option<(Arch, Pos)>,
}

/// Reads `kernel:` and `arch:`.
pub(super) fn selection(
    src: &SourceFile<'_>,
    kernel: Option<&Spanned<Node>>,
    arch: Option<&Spanned<Node>>,
) -> Result<Selection, LoadError> {
    let kernel = match kernel {
        Some(k) => {
            let name = leaf::string(src, k, "kernel")?.trim().to_string();
            if name.is_empty() {
                return Err(src
                    .error(Pos::of(k), "kernel", "`kernel` is empty")
                    .expected("a kernel's name, mangled (`_Z6kernelPf`) or plain (`kernel`)"));
            }
            Some((name, Pos::of(k)))
        }
        None => None,
    };
    let arch = match arch {
        Some(a) => {
            let text = leaf::string(src, a, "arch")?;
            let Some(parsed) = Arch::parse(&text) else {
                return Err(src
                    .error(
                        Pos::of(a),
                        "arch",
                        format!("`{}` is not an architecture", text.trim()),
                    )
                    .expected("an architecture like `sm_90`")
                    .hint(Some(
                        "write it as nvcc's `-arch` does: sm_75, sm_80, sm_90".into(),
                    )));
            };
            if let Err(msg) = listing::check_arch(parsed) {
                return Err(src
                    .error(Pos::of(a), "arch", msg)
                    .expected("sm_70 or newer"));
            }
            Some((parsed, Pos::of(a)))
        }
        None => None,
    };
    Ok(Selection { kernel, arch })
}

/// Assembles `text`, a hand-written program or a listing, mapping errors to
/// the file. A listing's error holds every error of its program.
pub(super) fn assemble(
    src: &SourceFile<'_>,
    text: &str,
    alu_latency: u32,
    anchor: (u32, u32),
    sel: &Selection,
) -> Result<(Program, Option<ListingInfo>), LoadError> {
    if !listing::looks_like(text) {
        if let Some((_, pos)) = &sel.kernel {
            return Err(src
                .error(
                    *pos,
                    "kernel",
                    "`kernel` selects a kernel of a listing, and `program` is not one",
                )
                .expected("`program` holding a listing printed by cuobjdump -sass or nvdisasm")
                .hint(Some("remove `kernel:` for a hand-written program".into())));
        }
        let mut p =
            asm::assemble(text, alu_latency).map_err(|e| map_error(src, text, anchor, &e))?;
        p.arch = sel.arch.as_ref().map(|(a, _)| a.sm);
        return Ok((p, None));
    }
    let all = |errs: Vec<AsmError>| {
        let mut mapped = errs.iter().map(|e| map_error(src, text, anchor, e));
        let first = mapped.next();
        let rest: Vec<LoadError> = mapped.collect();
        first.map(|f| f.with_more(rest))
    };
    let parsed = match listing::read(text) {
        Ok(l) => l,
        Err(errs) => {
            return Err(all(errs).unwrap_or_else(|| {
                src.error(
                    Pos::new(anchor.0, anchor.1 + 1, 1),
                    "program",
                    "cannot read the listing",
                )
            }));
        }
    };
    let kernel = parsed
        .kernel(sel.kernel.as_ref().map(|(n, _)| n.as_str()))
        .map_err(|e| match &sel.kernel {
            Some((_, pos)) => {
                let mut err = src.error(*pos, "kernel", e.message.clone());
                err.expected = e.expected.clone();
                err.hint = e.hint.clone();
                err
            }
            None => map_error(src, text, anchor, &e),
        })?;
    let arch = match (parsed.arch, &sel.arch) {
        (Some(l), Some((a, pos))) if l.sm != a.sm => {
            return Err(src
                .error(
                    *pos,
                    "arch",
                    format!("`arch: {a}` but the listing is code for {l}"),
                )
                .expected(format!("`arch: {l}`, or no `arch:` (the listing says it)"))
                .hint(Some(
                    "dump the listing for the architecture you mean, or drop `arch:`".into(),
                )));
        }
        (Some(l), _) => l,
        (None, Some((a, _))) => *a,
        (None, None) => {
            return Err(src
                .error(
                    Pos::new(anchor.0, anchor.1 + 1, 1),
                    "program",
                    "the listing does not say which architecture it is for",
                )
                .expected("`arch:` naming it, e.g. `arch: sm_90`")
                .hint(Some(
                    "cuobjdump prints `code for sm_XX` and nvdisasm `.headerflags`; keep them, or add `arch:`"
                        .into(),
                )));
        }
    };
    if let Err(msg) = listing::check_arch(arch) {
        let pos = sel.arch.as_ref().map_or_else(
            || {
                // Where the listing names it: its first line that does.
                let at = text
                    .split('\n')
                    .position(|l| l.contains(&arch.to_string()))
                    .map_or(0, |i| i as u32);
                Pos::new(anchor.0 + at, anchor.1 + 1, 1)
            },
            |(_, p)| *p,
        );
        return Err(src
            .error(
                pos,
                if sel.arch.is_some() {
                    "arch"
                } else {
                    "program"
                },
                msg,
            )
            .expected("a listing for sm_70 or newer"));
    }
    let program = listing::assemble_kernel(kernel, arch, alu_latency).map_err(|errs| {
        all(errs).unwrap_or_else(|| {
            src.error(
                Pos::new(anchor.0, anchor.1 + 1, 1),
                "program",
                "cannot assemble the listing",
            )
        })
    })?;
    let info = listing::info(&parsed, kernel, arch, &program);
    Ok((program, Some(info)))
}

/// An assembler error in file coordinates. When the file line does not hold
/// the program line verbatim (a folded or escaped scalar), the error points
/// at the program's start and names the program line instead.
pub(super) fn map_error(
    src: &SourceFile<'_>,
    text: &str,
    (first_line, indent): (u32, u32),
    e: &AsmError,
) -> LoadError {
    let k = e.line.max(1);
    let program_line = text
        .split('\n')
        .nth((k - 1) as usize)
        .map(|l| l.strip_suffix('\r').unwrap_or(l));
    let file_line = first_line.saturating_add(k - 1);
    let verbatim = match (program_line, src.line(file_line)) {
        (Some(p), Some(f)) => {
            let shown: String = f.chars().skip(indent as usize).collect();
            shown.trim_end() == p.trim_end()
        }
        _ => false,
    };
    let mut err = if verbatim {
        src.error(
            Pos::new(file_line, indent + e.column.max(1), e.len.max(1)),
            "program",
            format!("{} in `program`", e.message),
        )
    } else {
        src.error(
            Pos::new(first_line, indent + 1, 1),
            "program",
            format!(
                "{} in `program` (program line {}, column {})",
                e.message, e.line, e.column
            ),
        )
    };
    err.expected = e.expected.clone();
    err.hint = e.hint.clone();
    err
}
