//! The scenario file as serde reads it, before validation.
//!
//! Sections are structs with `deny_unknown_fields`, so a misspelled key is
//! caught by serde with its position. Leaf values are [`Node`]s (any YAML
//! value, with positions) so that type and range errors can be worded by us,
//! naming the key and what it accepts.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// A YAML value with the position of every nested value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Null,
    Bool(bool),
    /// Wide enough for any YAML integer serde hands over (`u64` and `i64`).
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Node>>),
    /// In file order.
    Map(Vec<(Spanned<Node>, Spanned<Node>)>),
}

impl Node {
    /// "an integer", "a string", ... for "expected X, found Y" messages.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Node::Null => "nothing (null)",
            Node::Bool(_) => "a boolean",
            Node::Int(_) => "an integer",
            Node::Float(_) => "a number with a fraction",
            Node::Str(_) => "a string",
            Node::Seq(_) => "a list",
            Node::Map(_) => "a mapping",
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Int(v))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Node, E> {
        // Saturates: anything this large is out of every range we accept.
        Ok(Node::Int(i128::try_from(v).unwrap_or(i128::MAX)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Node, E> {
        Ok(Node::Str(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Node>>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Node>>()? {
            let value = map.next_value::<Spanned<Node>>()?;
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}

/// A YAML mapping kept in file order (buffer layout and input order follow
/// the file), with the position of each key.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Ordered<V>(pub Vec<(Spanned<Node>, Spanned<V>)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct OrderedVisitor<V>(std::marker::PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for OrderedVisitor<V> {
            type Value = Ordered<V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<V>, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<Node>>()? {
                    let value = map.next_value::<Spanned<V>>()?;
                    entries.push((key, value));
                }
                Ok(Ordered(entries))
            }
        }

        d.deserialize_map(OrderedVisitor(std::marker::PhantomData))
    }
}

/// `deserialize_with` for optional leaves: a key written with no value
/// (`name:`) becomes `Some(Node::Null)` with its position, not `None`, so the
/// error can point at it.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// Shorthand for an optional leaf with its position.
pub(super) type Leaf = Option<Spanned<Node>>;

/// The whole file. Field order is the order the "expected one of" list
/// shows, which follows docs/scenario-format.md.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    #[serde(default, deserialize_with = "present")]
    pub version: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub name: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub description: Leaf,
    pub machine: Option<Spanned<RawMachine>>,
    pub launch: Option<Spanned<RawLaunch>>,
    pub constants: Option<Spanned<Ordered<Node>>>,
    pub memory: Option<Spanned<Ordered<RawBuffer>>>,
    pub inputs: Option<Spanned<Ordered<Node>>>,
    #[serde(default, deserialize_with = "present")]
    pub args: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub program: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub kernel: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub arch: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub cuda: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub nvcc_flags: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub cuda_sha256: Leaf,
    pub expect: Option<Spanned<Ordered<Node>>>,
    #[serde(default, deserialize_with = "present")]
    pub tour: Leaf,
}

/// `machine:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMachine {
    #[serde(default, deserialize_with = "present")]
    pub warp_width: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub convergence: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub taken_first: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub schedulers: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub policy: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub group_policy: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub sms: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub max_warps_per_sm: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub max_blocks_per_sm: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub shared_banks: Leaf,
    pub latency: Option<Spanned<RawLatency>>,
    #[serde(default, deserialize_with = "present")]
    pub max_cycles: Leaf,
}

/// `machine.latency:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLatency {
    #[serde(default, deserialize_with = "present")]
    pub alu: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub sfu: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub shared: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub global: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub global_per_extra_line: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub branch: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub sfu_interval: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub shared_replay: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub read_barrier: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub special: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub constant: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub shuffle: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub atomic: Leaf,
}

/// `launch:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLaunch {
    #[serde(default, deserialize_with = "present")]
    pub threads: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub blocks: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub block_dim: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub shared_bytes: Leaf,
}

/// One buffer under `memory:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBuffer {
    #[serde(rename = "type", default, deserialize_with = "present")]
    pub ty: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub len: Leaf,
    #[serde(default, deserialize_with = "present")]
    pub init: Leaf,
}

/// Every key of each section, as serde lists them in "expected one of", so
/// an unknown-key error can name its section even when the file gives no
/// other clue.
pub(super) const SECTIONS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "version",
            "name",
            "description",
            "machine",
            "launch",
            "constants",
            "memory",
            "inputs",
            "args",
            "program",
            "kernel",
            "arch",
            "cuda",
            "nvcc_flags",
            "cuda_sha256",
            "expect",
            "tour",
        ],
    ),
    (
        "machine",
        &[
            "warp_width",
            "convergence",
            "taken_first",
            "schedulers",
            "policy",
            "group_policy",
            "sms",
            "max_warps_per_sm",
            "max_blocks_per_sm",
            "shared_banks",
            "latency",
            "max_cycles",
        ],
    ),
    (
        "machine.latency",
        &[
            "alu",
            "sfu",
            "shared",
            "global",
            "global_per_extra_line",
            "branch",
            "sfu_interval",
            "shared_replay",
            "read_barrier",
            "special",
            "constant",
            "shuffle",
            "atomic",
        ],
    ),
    (
        "launch",
        &["threads", "blocks", "block_dim", "shared_bytes"],
    ),
    ("memory.<buffer>", &["type", "len", "init"]),
];
