//! Reading single YAML values (integers, booleans, enum names, strings) with
//! errors that name the key and say what it accepts.

use serde_saphyr::Spanned;

use super::LoadError;
use super::error::{Pos, SourceFile};
use super::raw::Node;
use crate::expr::spelling::did_you_mean;

/// "an integer from 1 to 64", or "an integer of at least 1" when the upper
/// bound is only the storage type's.
pub(super) fn describe_range(min: i128, max: i128) -> String {
    // A type's own maximum is no budget worth naming; any other is.
    if max == i128::from(u32::MAX) || max >= i128::from(i64::MAX) {
        format!("an integer of at least {min}")
    } else {
        format!("an integer from {min} to {max}")
    }
}

/// The last segment of a dotted key, as it is written in the file.
fn last(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}

/// An integer in `min..=max`.
pub(super) fn int(
    src: &SourceFile<'_>,
    leaf: &Spanned<Node>,
    key: &str,
    min: i128,
    max: i128,
    why: Option<&str>,
) -> Result<i128, LoadError> {
    let pos = Pos::of(leaf);
    let expected = describe_range(min, max);
    match &leaf.value {
        Node::Int(v) if (min..=max).contains(v) => Ok(*v),
        Node::Int(v) => Err(src
            .error(pos, key, format!("`{key}` is {v}, out of range"))
            .expected(expected)
            .hint(why.map(str::to_string))),
        Node::Str(s) if s.trim().parse::<i128>().is_ok() => Err(src
            .error(pos, key, format!("`{key}` must be a number, not a string"))
            .expected(expected)
            .hint(Some(format!(
                "remove the quotes: `{}: {}`",
                last(key),
                s.trim()
            )))),
        Node::Float(f) => Err(src
            .error(pos, key, format!("`{key}` must be a whole number, not {f}"))
            .expected(expected)),
        other => Err(src
            .error(
                pos,
                key,
                format!("`{key}` must be an integer, found {}", other.kind()),
            )
            .expected(expected)),
    }
}

/// `true` or `false`.
pub(super) fn boolean(
    src: &SourceFile<'_>,
    leaf: &Spanned<Node>,
    key: &str,
) -> Result<bool, LoadError> {
    match &leaf.value {
        Node::Bool(b) => Ok(*b),
        other => Err(src
            .error(
                Pos::of(leaf),
                key,
                format!("`{key}` must be true or false, found {}", other.kind()),
            )
            .expected("`true` or `false`")),
    }
}

/// One of a fixed set of names.
pub(super) fn choice<T: Copy>(
    src: &SourceFile<'_>,
    leaf: &Spanned<Node>,
    key: &str,
    options: &[(&str, T)],
) -> Result<T, LoadError> {
    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
    let expected = format!("one of {}", names.join(", "));
    match &leaf.value {
        Node::Str(s) => match options.iter().find(|(n, _)| n == s) {
            Some((_, v)) => Ok(*v),
            None => Err(src
                .error(Pos::of(leaf), key, format!("`{key}` cannot be `{s}`"))
                .expected(expected)
                .hint(did_you_mean(s, names.iter().copied()))),
        },
        other => Err(src
            .error(
                Pos::of(leaf),
                key,
                format!("`{key}` must be a name, found {}", other.kind()),
            )
            .expected(expected)),
    }
}

/// A string. Numbers are refused rather than converted, since their YAML
/// spelling (`0x10`, `1e3`) would be lost.
pub(super) fn string(
    src: &SourceFile<'_>,
    leaf: &Spanned<Node>,
    key: &str,
) -> Result<String, LoadError> {
    match &leaf.value {
        Node::Str(s) => Ok(s.clone()),
        Node::Null => Err(src
            .error(Pos::of(leaf), key, format!("`{key}` has no value"))
            .expected("a string")),
        Node::Int(_) | Node::Float(_) | Node::Bool(_) => Err(src
            .error(
                Pos::of(leaf),
                key,
                format!("`{key}` must be a string, found {}", leaf.value.kind()),
            )
            .expected("a string")
            .hint(Some("put it in quotes".into()))),
        other => Err(src
            .error(
                Pos::of(leaf),
                key,
                format!("`{key}` must be a string, found {}", other.kind()),
            )
            .expected("a string")),
    }
}
