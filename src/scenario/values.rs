//! Values shared by several sections: literal numbers, and expressions with
//! their errors mapped back into the file.

use serde_saphyr::Spanned;

use super::LoadError;
use super::error::{Pos, SourceFile};
use super::raw::Node;
use crate::expr::{EvalError, Expr, Value, Vars};

/// A literal number or boolean written in YAML, as a 32-bit word would hold
/// it: integers from -2^31 to 2^32 - 1 (either signedness), floats, and
/// booleans as 1/0.
pub(super) fn literal(
    src: &SourceFile<'_>,
    item: &Spanned<Node>,
    key: &str,
) -> Result<Value, LoadError> {
    match &item.value {
        Node::Int(v) if (-(1i128 << 31)..(1i128 << 32)).contains(v) => Ok(Value::Int(*v as i64)),
        Node::Int(v) => Err(src
            .error(
                Pos::of(item),
                key,
                format!("{v} in `{key}` does not fit in 32 bits"),
            )
            .expected("an integer from -2147483648 to 4294967295")
            .hint(Some(
                "registers, constants and buffer elements are 32-bit words".into(),
            ))),
        Node::Float(f) if f.is_finite() => Ok(Value::Float(*f)),
        Node::Float(f) => Err(src
            .error(Pos::of(item), key, format!("`{key}` cannot be {f}"))
            .expected("a finite number")),
        Node::Bool(b) => Ok(Value::Int(i64::from(*b))),
        Node::Str(_) => Err(src
            .error(
                Pos::of(item),
                key,
                format!("a list in `{key}` holds numbers, not strings"),
            )
            .expected("numbers or booleans")
            .hint(Some(
                "for a formula, write one expression string instead of a list".into(),
            ))),
        other => Err(src
            .error(
                Pos::of(item),
                key,
                format!("`{key}` needs a number, found {}", other.kind()),
            )
            .expected("a number or a boolean")),
    }
}

/// Parses the expression string `text` written at `leaf`.
pub(super) fn parse_expr(
    src: &SourceFile<'_>,
    leaf: &Spanned<Node>,
    text: &str,
    vars: &Vars,
    key: &str,
) -> Result<Expr, LoadError> {
    Expr::parse(text, vars).map_err(|e| {
        let pos = expr_pos(src, leaf, text, e.offset, e.len);
        let mut err = src
            .error(pos, key, format!("{} in `{key}`", e.message))
            .hint(e.hint);
        err.expected = e.expected;
        err
    })
}

/// An evaluation error for one thread or element (`at`).
pub(super) fn eval_error(
    src: &SourceFile<'_>,
    leaf: &Spanned<Node>,
    text: &str,
    key: &str,
    e: &EvalError,
    at: &str,
) -> LoadError {
    let (offset, len) = if e.len == 0 {
        (0, text.chars().count())
    } else {
        (e.offset, e.len)
    };
    let pos = expr_pos(src, leaf, text, offset, len);
    src.error(pos, key, format!("{} in `{key}` for {at}", e.message))
        .hint(e.hint.clone())
}

/// Where characters `offset..offset + len` of an expression are in the
/// file. Exact for a one-line scalar (plain or quoted, without escapes);
/// otherwise the whole scalar.
fn expr_pos(
    src: &SourceFile<'_>,
    leaf: &Spanned<Node>,
    text: &str,
    offset: usize,
    len: usize,
) -> Pos {
    let whole = Pos::of(leaf);
    let Some(line) = src.line(whole.line) else {
        return whole;
    };
    let chars: Vec<char> = line.chars().collect();
    let start = whole.column.saturating_sub(1) as usize;
    let quoted = matches!(chars.get(start), Some('"' | '\''));
    let content = start + usize::from(quoted);
    let wanted: Vec<char> = text.chars().collect();
    let matches = !text.contains('\n')
        && chars
            .get(content..content + wanted.len())
            .is_some_and(|s| s == wanted.as_slice());
    if matches {
        Pos::new(
            whole.line,
            (content + offset + 1) as u32,
            (len as u32).max(1),
        )
    } else {
        whole
    }
}
