//! Checking a scenario's `expect:` entries against a report.

use serde_json::Value;

use super::ExpectResult;
use crate::scenario::{Check, Expectation};

/// How close a number must be to count as equal (docs/scenario-format.md).
pub const TOLERANCE: f64 = 0.0005;

/// The value at a dotted path: object keys by name, list items by index.
pub fn lookup<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = root;
    // `ncu` keys contain dots themselves: the rest of the path is one key.
    let mut parts = path.split('.').peekable();
    while let Some(seg) = parts.next() {
        v = match v {
            Value::Object(map) => match map.get(seg) {
                Some(x) => x,
                None => {
                    let rest: Vec<&str> = std::iter::once(seg).chain(parts.by_ref()).collect();
                    return map.get(&rest.join("."));
                }
            },
            Value::Array(items) => items.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

/// A number as JSON: whole values as integers, so `4` prints as `4`.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        serde_json::json!(x)
    }
}

/// Checks one expectation against the report as a JSON value.
pub fn check(report: &Value, e: &Expectation) -> ExpectResult {
    check_value(lookup(report, &e.key).cloned().unwrap_or(Value::Null), e)
}

/// Checks one expectation against the value its key names (null when the
/// report has none).
pub fn check_value(actual: Value, e: &Expectation) -> ExpectResult {
    let n = actual.as_f64();
    let (expected, ok) = match &e.check {
        Check::List(xs) => {
            let ok = actual.as_array().is_some_and(|items| {
                items.len() == xs.len()
                    && items
                        .iter()
                        .zip(xs)
                        .all(|(a, x)| a.as_f64().is_some_and(|a| (a - x).abs() <= TOLERANCE))
            });
            (Value::Array(xs.iter().map(|x| number(*x)).collect()), ok)
        }
        &Check::Equal(x) => (number(x), n.is_some_and(|a| (a - x).abs() <= TOLERANCE)),
        Check::Null => (Value::Null, actual.is_null()),
        &Check::Range { min, max } => {
            let mut m = serde_json::Map::new();
            if let Some(v) = min {
                m.insert("min".into(), number(v));
            }
            if let Some(v) = max {
                m.insert("max".into(), number(v));
            }
            let ok = n.is_some_and(|a| {
                min.is_none_or(|lo| a >= lo - TOLERANCE) && max.is_none_or(|hi| a <= hi + TOLERANCE)
            });
            (Value::Object(m), ok)
        }
    };
    ExpectResult {
        key: e.key.clone(),
        expected,
        actual,
        ok,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exp(key: &str, check: Check) -> Expectation {
        Expectation {
            key: key.into(),
            check,
            line: 1,
            column: 1,
        }
    }

    #[test]
    fn paths_reach_nested_values_and_dotted_ncu_keys() {
        let r = json!({
            "simd_efficiency": 0.545,
            "memory": {"global_sectors": 8},
            "warps": [{"issued": 3}, {"issued": 5}],
            "ncu": {"smsp__thread_inst_executed_per_inst_executed.ratio": 17.5},
            "branch_efficiency": null
        });
        assert_eq!(lookup(&r, "warps.1.issued"), Some(&json!(5)));
        assert_eq!(lookup(&r, "memory.global_sectors"), Some(&json!(8)));
        assert_eq!(
            lookup(&r, "ncu.smsp__thread_inst_executed_per_inst_executed.ratio"),
            Some(&json!(17.5))
        );
        assert!(check(&r, &exp("simd_efficiency", Check::Equal(0.5454))).ok);
        assert!(!check(&r, &exp("simd_efficiency", Check::Equal(0.546))).ok);
        assert!(check(&r, &exp("branch_efficiency", Check::Null)).ok);
        assert!(
            check(
                &r,
                &exp(
                    "warps.0.issued",
                    Check::Range {
                        min: Some(3.0),
                        max: None
                    }
                )
            )
            .ok
        );
        assert!(
            !check(
                &r,
                &exp(
                    "warps.0.issued",
                    Check::Range {
                        min: None,
                        max: Some(2.0)
                    }
                )
            )
            .ok
        );
        assert!(!check(&r, &exp("warps.7.issued", Check::Equal(3.0))).ok);
    }
}
