//! `args:` and constant bank 0 as the architecture's ABI lays it out: the
//! launch dimensions, the stack pointer, the memory descriptor and the
//! kernel's parameters at the offsets of [`crate::asm::abi`].
//!
//! Parameter types come from the kernel's mangled name when it has one
//! ([`abi::mangled_params`]); for `extern "C"` kernels each value is laid
//! out by what it is (a buffer: an 8-byte pointer; an integer: 4 bytes, 8
//! when the listing reads that parameter with a 64-bit load or the value
//! needs it; a float: an `f32`), and `{f64: 2.5}`-style one-key mappings
//! give any value an explicit type. A struct passed by value is a list of
//! its fields, laid out with C alignment.

use std::collections::BTreeMap;

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::Node;
use super::{BufferSpec, ElemType, LaunchSpec, LoadError};
use crate::asm::Program;
use crate::asm::abi::{self, ConstantBank, ParamType};
use crate::engine::DEVICE_WINDOW;

/// The most bytes of parameters a kernel takes (CUDA's classic limit).
const MAX_PARAM_BYTES: u32 = 4096;

/// One value of `args:`, with where it is written.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Arg {
    pub value: ArgValue,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum ArgValue {
    /// A buffer's 64-bit device address.
    Pointer(u64),
    Int(i128),
    Float(f64),
    /// `{TYPE: value}`: a value of an explicit type.
    Typed(ElemType, Box<ArgValue>),
    /// A struct's fields.
    Struct(Vec<Arg>),
}

/// Reads `args:`: a list of buffer names, numbers, typed values and
/// lists (structs).
pub(super) fn load_args(
    src: &SourceFile<'_>,
    raw: Option<&Spanned<Node>>,
    buffers: &[BufferSpec],
) -> Result<Vec<Arg>, LoadError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    match &raw.value {
        Node::Seq(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| arg(src, item, &format!("args.{i}"), buffers, 0))
            .collect(),
        Node::Null => Ok(Vec::new()),
        other => Err(src
            .error(
                Pos::of(raw),
                "args",
                format!("`args` must be a list, found {}", other.kind()),
            )
            .expected("the kernel's parameters in order, e.g. `args: [data, out, 1024]`")),
    }
}

fn arg(
    src: &SourceFile<'_>,
    item: &Spanned<Node>,
    key: &str,
    buffers: &[BufferSpec],
    depth: u32,
) -> Result<Arg, LoadError> {
    let pos = Pos::of(item);
    let value = match &item.value {
        Node::Int(v) => ArgValue::Int(*v),
        Node::Bool(b) => ArgValue::Int(i128::from(*b)),
        Node::Float(f) if f.is_finite() => ArgValue::Float(*f),
        Node::Str(name) => match buffers.iter().find(|b| &b.name == name) {
            Some(b) => ArgValue::Pointer(DEVICE_WINDOW + u64::from(b.base)),
            None => {
                let names: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
                return Err(src
                    .error(pos, key, format!("`{name}` in `{key}` is not a buffer"))
                    .expected(if names.is_empty() {
                        "a buffer of `memory:` (there are none) or a number".to_string()
                    } else {
                        format!("a buffer ({}) or a number", names.join(", "))
                    })
                    .hint(crate::expr::spelling::did_you_mean(
                        name,
                        names.iter().copied(),
                    )));
            }
        },
        Node::Seq(fields) if depth < 8 && !fields.is_empty() => ArgValue::Struct(
            fields
                .iter()
                .enumerate()
                .map(|(i, f)| arg(src, f, &format!("{key}.{i}"), buffers, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Node::Map(entries) if entries.len() == 1 => {
            let (k, v) = &entries[0];
            let ty = match &k.value {
                Node::Str(s) => ElemType::ALL.iter().find(|(n, _)| n == s).map(|(_, t)| *t),
                _ => None,
            };
            let Some(ty) = ty else {
                return Err(src
                    .error(Pos::of(k), key, format!("`{key}` names no type"))
                    .expected("one of u8, i8, u16, i16, u32, i32, u64, i64, f32, f64")
                    .hint(Some("a typed value is written `{f64: 2.5}`".into())));
            };
            let inner = arg(src, v, key, buffers, depth + 1)?;
            if !matches!(inner.value, ArgValue::Int(_) | ArgValue::Float(_)) {
                return Err(src
                    .error(inner.pos, key, format!("`{key}` types a number only"))
                    .expected(format!("`{{{}: NUMBER}}`", ty.name())));
            }
            ArgValue::Typed(ty, Box::new(inner.value))
        }
        other => {
            return Err(src
                .error(pos, key, format!("`{key}` cannot be {}", other.kind()))
                .expected(
                    "a buffer name, a number, `{TYPE: number}`, or a list of a struct's fields",
                ));
        }
    };
    Ok(Arg { value, pos })
}

/// The widths of the bank-0 words a program reads, by offset: 8 for a
/// 64-bit load (`LDC.64`, `ULDC.64`), 4 otherwise.
pub(super) fn reads(program: &Program) -> BTreeMap<u32, u32> {
    let mut out = BTreeMap::new();
    for ins in &program.instrs {
        let wide = ins.mnemonic.contains(".64");
        let mut rest = ins.text.as_str();
        while let Some(at) = rest.find("c[0x0][") {
            rest = &rest[at + 7..];
            let inner = rest.split(']').next().unwrap_or("");
            if let Some(v) = inner
                .strip_prefix("0x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
            {
                let w = if wide { 8 } else { 4 };
                let e = out.entry(v).or_insert(w);
                *e = (*e).max(w);
            }
        }
    }
    out
}

/// Bank 0 as the driver fills it for architecture `sm`: dimensions, stack
/// pointer, descriptor, and `args` laid out for `params` (the mangled
/// name's parameter types; `None` when the kernel is `extern "C"` or its
/// name is unknown). Explicit `constants:` go over this afterwards.
#[allow(clippy::too_many_arguments)]
pub(super) fn abi_bank(
    src: &SourceFile<'_>,
    args_pos: Pos,
    sm: u32,
    launch: &LaunchSpec,
    params: Option<&[ParamType]>,
    reads: &BTreeMap<u32, u32>,
    args: &[Arg],
) -> Result<BTreeMap<u32, u32>, LoadError> {
    let Some(t) = abi::constant_bank(sm) else {
        return Err(src
            .error(
                Pos::top(),
                "arch",
                format!("no constant bank layout for sm_{sm}"),
            )
            .expected("an architecture from sm_75 to sm_12x"));
    };
    let mut bank = dims(&t, launch);
    if let Some(params) = params
        && params.len() != args.len()
    {
        return Err(src
            .error(
                args_pos,
                "args",
                format!(
                    "the kernel takes {} parameters, `args` gives {}",
                    params.len(),
                    args.len()
                ),
            )
            .expected(format!("{} values in `args`", params.len())));
    }
    let mut bytes: Vec<u8> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let ty = params.and_then(|p| p.get(i));
        let key = format!("args.{i}");
        // Where a 4-byte value would go: an 8-byte read there makes an
        // `extern "C"` integer 64-bit.
        let here = (t.params + bytes.len() as u32).next_multiple_of(4);
        let wide_read = reads.get(&here) == Some(&8);
        let (size, align, data) = lay_out(src, &key, a, ty, wide_read)?;
        let at = (bytes.len() as u32).next_multiple_of(align);
        if at + size > MAX_PARAM_BYTES {
            return Err(src
                .error(a.pos, &key, "the parameters take more than 4096 bytes")
                .expected("at most 4096 bytes of parameters"));
        }
        bytes.resize(at as usize, 0);
        bytes.extend_from_slice(&data);
    }
    for (k, chunk) in bytes.chunks(4).enumerate() {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        bank.insert(t.params + 4 * k as u32, u32::from_le_bytes(w));
    }
    Ok(bank)
}

/// Block and grid dimensions, stack pointer and memory descriptor.
fn dims(t: &ConstantBank, launch: &LaunchSpec) -> BTreeMap<u32, u32> {
    let mut bank = BTreeMap::new();
    // TODO(3-D launch): y and z of the block and grid are 1 until the
    // launch has them.
    for (k, v) in [launch.block_dim, 1, 1].into_iter().enumerate() {
        bank.insert(t.block_dim + 4 * k as u32, v);
    }
    for (k, v) in [launch.blocks, 1, 1].into_iter().enumerate() {
        bank.insert(t.grid_dim + 4 * k as u32, v);
    }
    bank.insert(t.stack_pointer, abi::LOCAL_BYTES);
    if let Some(d) = t.memory_descriptor {
        bank.insert(d, abi::MEMORY_DESCRIPTOR as u32);
        bank.insert(d + 4, (abi::MEMORY_DESCRIPTOR >> 32) as u32);
    }
    bank
}

/// An integer's little-endian `size` bytes, if it fits signed or unsigned.
fn int_bytes(v: i128, size: u32) -> Option<Vec<u8>> {
    let bits = size * 8;
    let lo = -(1i128 << (bits - 1));
    let hi = (1i128 << bits) - 1;
    (lo..=hi)
        .contains(&v)
        .then(|| v.to_le_bytes()[..size as usize].to_vec())
}

/// Size, alignment and bytes of one argument. `wide_read`: the listing
/// reads 8 bytes where the argument would start (used for `extern "C"`
/// integers).
fn lay_out(
    src: &SourceFile<'_>,
    key: &str,
    a: &Arg,
    ty: Option<&ParamType>,
    wide_read: bool,
) -> Result<(u32, u32, Vec<u8>), LoadError> {
    let range = |what: String| {
        src.error(a.pos, key, format!("`{key}`: {what}"))
            .expected(match ty {
                Some(t) => format!("a value of the parameter's type ({t:?})"),
                None => "a value that fits its type".to_string(),
            })
    };
    let int = |v: i128, size: u32| {
        int_bytes(v, size)
            .map(|b| (size, size.min(8), b))
            .ok_or_else(|| range(format!("{v} does not fit in {size} bytes")))
    };
    let float = |f: f64, size: u32| {
        let b = if size == 4 {
            (f as f32).to_le_bytes().to_vec()
        } else {
            f.to_le_bytes().to_vec()
        };
        Ok((size, size, b))
    };
    let number = |v: &ArgValue| -> Option<f64> {
        match v {
            ArgValue::Int(i) => Some(*i as f64),
            ArgValue::Float(f) => Some(*f),
            _ => None,
        }
    };
    match (ty, &a.value) {
        (_, ArgValue::Typed(t, inner)) => match (t.is_float(), inner.as_ref()) {
            (true, v) => float(number(v).unwrap_or(0.0), t.size()),
            (false, ArgValue::Int(i)) => int(*i, t.size()),
            (false, _) => Err(range(format!("a float as {}", t.name()))),
        },
        (Some(ParamType::Pointer) | None, ArgValue::Pointer(p)) => {
            Ok((8, 8, p.to_le_bytes().to_vec()))
        }
        (Some(ParamType::Pointer), ArgValue::Int(i)) => int(*i, 8),
        (Some(ParamType::Int { size, .. }), ArgValue::Int(i)) => int(*i, *size),
        (Some(ParamType::Float { size }), v @ (ArgValue::Int(_) | ArgValue::Float(_))) => {
            float(number(v).unwrap_or(0.0), *size)
        }
        (Some(ParamType::Struct(_)) | None, ArgValue::Struct(fields)) => {
            let mut bytes = Vec::new();
            let mut align = 1;
            for (i, f) in fields.iter().enumerate() {
                let fkey = format!("{key}.{i}");
                let (_, a_, data) = lay_out(src, &fkey, f, None, false)?;
                let at = bytes.len().next_multiple_of(a_ as usize);
                bytes.resize(at, 0);
                bytes.extend_from_slice(&data);
                align = align.max(a_);
            }
            bytes.resize(bytes.len().next_multiple_of(align as usize), 0);
            Ok((bytes.len() as u32, align, bytes))
        }
        (None, ArgValue::Int(i)) => {
            let wide = wide_read || int_bytes(*i, 4).is_none();
            int(*i, if wide { 8 } else { 4 })
        }
        (None, ArgValue::Float(f)) => float(*f, 4),
        (Some(t), _) => Err(range(format!(
            "the parameter is {}, not what is given",
            match t {
                ParamType::Pointer => "a pointer".to_string(),
                ParamType::Int { size, .. } => format!("a {size}-byte integer"),
                ParamType::Float { size } => format!("a {size}-byte float"),
                ParamType::Struct(n) => format!("a struct `{n}` (give its fields as a list)"),
            }
        ))),
    }
}
