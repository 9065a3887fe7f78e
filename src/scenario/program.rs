//! `program:`: where the program text sits in the file, and assembler
//! errors mapped from program coordinates to file coordinates.

use serde_saphyr::Spanned;

use super::LoadError;
use super::error::{Pos, SourceFile};
use super::raw::Node;
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

/// Assembles `text`, mapping an error to the file.
pub(super) fn assemble(
    src: &SourceFile<'_>,
    text: &str,
    alu_latency: u32,
    anchor: (u32, u32),
) -> Result<Program, LoadError> {
    asm::assemble(text, alu_latency).map_err(|e| map_error(src, text, anchor, &e))
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
