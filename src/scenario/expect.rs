//! `expect:`: assertions on report keys. Only the syntax of a key is checked
//! here; whether the report has it is the report's business.

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::{Node, Ordered};
use super::{BufferSpec, Check, Expectation, LoadError};
use crate::expr::spelling::did_you_mean;

pub(super) fn load_expect(
    src: &SourceFile<'_>,
    raw: Option<&Spanned<Ordered<Node>>>,
    buffers: &[BufferSpec],
) -> Result<Vec<Expectation>, LoadError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    load_entries(src, "expect", &raw.value.0, buffers)
}

/// The checks of an `expect:` mapping written under `prefix` (`expect`,
/// or a tour step's `tour.2.expect`).
pub(super) fn load_entries(
    src: &SourceFile<'_>,
    prefix: &str,
    entries: &[(Spanned<Node>, Spanned<Node>)],
    buffers: &[BufferSpec],
) -> Result<Vec<Expectation>, LoadError> {
    let mut out = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let pos = Pos::of(key);
        let path = match &key.value {
            Node::Str(s) => s.clone(),
            Node::Int(v) => v.to_string(),
            other => other.kind().to_string(),
        };
        let key_path = format!("{prefix}.{path}");
        if !valid_path(&path) {
            return Err(src
                .error(pos, &key_path, format!("`{path}` is not a report key"))
                .expected("a dotted report path such as `simd_efficiency`, `memory.global_sectors` or `warps.0.issued`")
                .hint(Some("segments are names or indices separated by dots".into())));
        }
        if let Err(why) = crate::report::keys::validate(&path) {
            return Err(src
                .error(pos, &key_path, why)
                .expected("a report key (see `warpstep run FILE --format json`)"));
        }
        let buffer = buffer_key(src, pos, &key_path, &path, buffers)?;
        let check = match &value.value {
            Node::Seq(items) if buffer == Some(BufferKey::Whole) => {
                Check::List(list(src, &key_path, items)?)
            }
            Node::Int(v) => Check::Equal(*v as f64),
            Node::Float(f) if f.is_finite() => Check::Equal(*f),
            Node::Null => Check::Null,
            Node::Map(entries) => range(src, &key_path, value, entries)?,
            other => {
                return Err(src
                    .error(
                        Pos::of(value),
                        &key_path,
                        format!("`{key_path}` cannot be checked against {}", other.kind()),
                    )
                    .expected(if buffer == Some(BufferKey::Whole) {
                        "a list of numbers, one per element"
                    } else {
                        "a number, `null`, or `{min: .., max: ..}`"
                    }));
            }
        };
        out.push(Expectation {
            key: path,
            check,
            line: pos.line,
            column: pos.column,
        });
    }
    Ok(out)
}

/// What a `buffers.` key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BufferKey {
    /// `buffers.NAME`: the whole buffer, checked against a list.
    Whole,
    /// `buffers.NAME.INDEX`.
    Element,
}

/// Checks a `buffers.NAME[.INDEX]` key against the scenario's buffers:
/// the name must be one of them and the index inside it.
fn buffer_key(
    src: &SourceFile<'_>,
    pos: Pos,
    key_path: &str,
    path: &str,
    buffers: &[BufferSpec],
) -> Result<Option<BufferKey>, LoadError> {
    let Some(rest) = path.strip_prefix("buffers.") else {
        return Ok(None);
    };
    let mut parts = rest.split('.');
    let name = parts.next().unwrap_or("");
    let Some(b) = buffers.iter().find(|b| b.name == name) else {
        let names: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
        return Err(src
            .error(
                pos,
                key_path,
                format!("`{key_path}` names no buffer `{name}`"),
            )
            .expected(if names.is_empty() {
                "a buffer of `memory:` (this scenario has none)".to_string()
            } else {
                format!("one of the buffers of `memory:`: {}", names.join(", "))
            })
            .hint(did_you_mean(name, names.iter().copied())));
    };
    match parts.next() {
        None => Ok(Some(BufferKey::Whole)),
        Some(i) => match i.parse::<u64>() {
            Ok(i) if i < u64::from(b.len) => Ok(Some(BufferKey::Element)),
            _ => Err(src
                .error(
                    pos,
                    key_path,
                    format!("`{key_path}`: buffer `{name}` has {} elements", b.len),
                )
                .expected(format!("an index from 0 to {}", b.len.saturating_sub(1)))),
        },
    }
}

/// The numbers of a whole-buffer check.
fn list(
    src: &SourceFile<'_>,
    key_path: &str,
    items: &[Spanned<Node>],
) -> Result<Vec<f64>, LoadError> {
    items
        .iter()
        .map(|item| match &item.value {
            Node::Int(v) => Ok(*v as f64),
            Node::Float(f) if f.is_finite() => Ok(*f),
            other => Err(src
                .error(
                    Pos::of(item),
                    key_path,
                    format!("`{key_path}` lists {}, not a number", other.kind()),
                )
                .expected("a number per element")),
        })
        .collect()
}

/// Names and indices separated by single dots.
fn valid_path(path: &str) -> bool {
    !path.is_empty()
        && path.split('.').all(|seg| {
            let mut chars = seg.chars();
            match chars.next() {
                Some(c) if c.is_ascii_digit() => seg.chars().all(|c| c.is_ascii_digit()),
                Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
                }
                _ => false,
            }
        })
}

fn range(
    src: &SourceFile<'_>,
    key_path: &str,
    whole: &Spanned<Node>,
    entries: &[(Spanned<Node>, Spanned<Node>)],
) -> Result<Check, LoadError> {
    let (mut min, mut max) = (None, None);
    for (k, v) in entries {
        let name = match &k.value {
            Node::Str(s) => s.as_str(),
            _ => "",
        };
        let slot = match name {
            "min" => &mut min,
            "max" => &mut max,
            _ => {
                return Err(src
                    .error(
                        Pos::of(k),
                        &format!("{key_path}.{name}"),
                        format!("unknown key `{name}` in `{key_path}`"),
                    )
                    .expected("one of min, max")
                    .hint(did_you_mean(name, ["min", "max"])));
            }
        };
        *slot = Some(match &v.value {
            Node::Int(i) => *i as f64,
            Node::Float(f) if f.is_finite() => *f,
            other => {
                return Err(src
                    .error(
                        Pos::of(v),
                        &format!("{key_path}.{name}"),
                        format!(
                            "`{key_path}.{name}` must be a number, found {}",
                            other.kind()
                        ),
                    )
                    .expected("a number"));
            }
        });
    }
    match (min, max) {
        (None, None) => Err(src
            .error(
                Pos::of(whole),
                key_path,
                format!("`{key_path}` gives no bound"),
            )
            .expected("`min`, `max` or both")),
        (Some(lo), Some(hi)) if lo > hi => Err(src
            .error(
                Pos::of(whole),
                key_path,
                format!("`{key_path}` has min {lo} above max {hi}"),
            )
            .expected("min <= max")),
        _ => Ok(Check::Range { min, max }),
    }
}

#[cfg(test)]
mod tests {
    use super::valid_path;

    #[test]
    fn path_syntax() {
        assert!(valid_path("simd_efficiency"));
        assert!(valid_path("warps.0.issued"));
        assert!(valid_path(
            "ncu.smsp__thread_inst_executed_per_inst_executed.ratio"
        ));
        assert!(!valid_path("warps..issued"));
        assert!(!valid_path("a.b-c"));
        assert!(!valid_path("0x1"));
        assert!(!valid_path(""));
    }
}
