//! Writing JSON as warpstep prints it: two-space indentation, exactly the
//! bytes of `serde_json::to_writer_pretty`, through a formatter that puts
//! each line break and its indentation out in one write.
//!
//! serde_json's pretty formatter writes the indentation one level at a
//! time, a write per level: on a report of many warps (each key of a
//! warp's stalls four levels deep) those small writes were a third of the
//! cost of printing it.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};

/// Writes `v` as pretty JSON to `w`, byte for byte what
/// `serde_json::to_writer_pretty` writes.
pub fn to_writer_pretty<W: Write, T: Serialize + ?Sized>(w: W, v: &T) -> serde_json::Result<()> {
    let mut ser = Serializer::with_formatter(w, Pretty::default());
    v.serialize(&mut ser)
}

/// `v` as pretty JSON text, as [`to_writer_pretty`] writes it.
pub fn to_string_pretty<T: Serialize + ?Sized>(v: &T) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(256);
    to_writer_pretty(&mut out, v)?;
    // The serializer writes only what it was given as `str` and ASCII
    // punctuation: the bytes are UTF-8.
    String::from_utf8(out).map_err(|e| serde_json::Error::io(io::Error::other(e)))
}

/// A comma (skipped for a first value), a line break and indentation, for
/// up to `SPACES / 2` levels in one slice.
const SPACES: usize = 64;
const BREAK: [u8; 2 + SPACES] = {
    let mut b = [b' '; 2 + SPACES];
    b[0] = b',';
    b[1] = b'\n';
    b
};

/// Writes a line break (after a comma unless `first`) and `depth` levels of
/// two-space indentation: one write up to 32 levels, one more per 32
/// beyond.
fn line<W: ?Sized + Write>(w: &mut W, first: bool, depth: usize) -> io::Result<()> {
    let mut n = 2 * depth;
    let head = n.min(SPACES);
    w.write_all(&BREAK[usize::from(first)..2 + head])?;
    n -= head;
    while n > 0 {
        let k = n.min(SPACES);
        w.write_all(&BREAK[2..2 + k])?;
        n -= k;
    }
    Ok(())
}

/// serde_json's `PrettyFormatter` with its default two-space indent, the
/// same state and the same output; only the writes are fewer.
#[derive(Debug, Default)]
struct Pretty {
    depth: usize,
    has_value: bool,
}

impl Pretty {
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// An empty array or object closes on the line it opened on.
    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            line(w, true, self.depth)?;
        }
        w.write_all(bracket)
    }
}

impl Formatter for Pretty {
    #[inline]
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    #[inline]
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    #[inline]
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        line(w, first, self.depth)
    }

    #[inline]
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    #[inline]
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    #[inline]
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    #[inline]
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        line(w, first, self.depth)
    }

    #[inline]
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    #[inline]
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    // The reference is serde_json's own pretty printer.
    fn same_as_serde_json(v: &Value) {
        let want = serde_json::to_string_pretty(v).expect("serialises");
        assert_eq!(to_string_pretty(v).expect("serialises"), want);
    }

    #[test]
    fn hand_written_shapes_print_as_serde_json_prints_them() {
        // Written out by hand, then checked against serde_json: empty
        // containers stay on one line, a first value has no comma.
        let v = json!({"a": [], "b": {}, "c": [1, {"d": [[]]}], "e": "x\"y\n"});
        let want = "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": [\n        []\n      ]\n    }\n  ],\n  \"e\": \"x\\\"y\\n\"\n}";
        assert_eq!(to_string_pretty(&v).expect("serialises"), want);
        same_as_serde_json(&v);
        for v in [json!(null), json!(1.5), json!("s"), json!([]), json!({})] {
            same_as_serde_json(&v);
        }
    }

    #[test]
    fn nesting_past_one_write_of_indentation_prints_as_serde_json_prints_it() {
        // 32 levels fit one write; 33, 64, 65 and 100 take more.
        for depth in [31, 32, 33, 64, 65, 100] {
            let mut v = json!([1, 2]);
            for i in 0..depth {
                let mut m = Map::new();
                m.insert(format!("k{i}"), v);
                v = if i % 2 == 0 {
                    Value::Object(m)
                } else {
                    json!([Value::Object(m), 0])
                };
            }
            same_as_serde_json(&v);
        }
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>().prop_map(|f| json!(f)),
            ".{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_prints_as_serde_json_prints_it(v in value()) {
            let want = serde_json::to_string_pretty(&v).expect("serialises");
            prop_assert_eq!(to_string_pretty(&v).expect("serialises"), want);
        }
    }
}
