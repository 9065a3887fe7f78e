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

/// One value as `args:` reads it (for `constants:` keys that name a
/// bank): a buffer name, a number, `{TYPE: number}` or a list.
pub(super) fn load_value(
    src: &SourceFile<'_>,
    item: &Spanned<Node>,
    key: &str,
    buffers: &[BufferSpec],
) -> Result<Arg, LoadError> {
    arg(src, item, key, buffers, 0)
}

/// The bytes of one value laid out as an untyped (`extern "C"`) parameter:
/// a buffer its 8-byte device address, an integer 4 bytes (8 when it needs
/// them), a fraction an `f32`, a list its fields with C alignment.
pub(super) fn value_bytes(src: &SourceFile<'_>, key: &str, a: &Arg) -> Result<Vec<u8>, LoadError> {
    lay_out(src, key, a, None, false).map(|(_, _, bytes)| bytes)
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
                    "the kernel takes {} parameter{}, `args` gives {}",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
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
    let l = crate::engine::Launch::from(*launch);
    for (k, v) in l.block_xyz().into_iter().enumerate() {
        bank.insert(t.block_dim + 4 * k as u32, v);
    }
    for (k, v) in l.grid_xyz().into_iter().enumerate() {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn buffers() -> Vec<BufferSpec> {
        let b = |name: &str, base| BufferSpec {
            name: name.into(),
            ty: ElemType::F32,
            len: 4,
            base,
            init: vec![0; 16],
        };
        vec![b("data", 0x10_0000), b("out", 0x10_0200)]
    }

    /// Bank 0 for `args: YAML` on `sm` with `params`, or the error message.
    fn bank(
        sm: u32,
        yaml: &str,
        params: Option<&[ParamType]>,
        reads: &[(u32, u32)],
    ) -> Result<BTreeMap<u32, u32>, String> {
        let text = format!("args: {yaml}\n");
        let src = SourceFile {
            file: "t.yaml".into(),
            text: &text,
        };
        let raw: BTreeMap<String, Spanned<Node>> =
            serde_saphyr::from_str(&text).map_err(|e| e.to_string())?;
        let launch = LaunchSpec {
            blocks: 3,
            block_dim: 64,
            shared_bytes: 0,
            block_shape: None,
            grid_shape: None,
        };
        let args = load_args(&src, raw.get("args"), &buffers()).map_err(|e| e.message)?;
        let reads: BTreeMap<u32, u32> = reads.iter().copied().collect();
        abi_bank(&src, Pos::top(), sm, &launch, params, &reads, &args).map_err(|e| e.message)
    }

    #[test]
    fn sm_90_pointers_and_an_int_where_the_abi_puts_them() {
        // `_Z6kernelPfS_i`: float*, float*, int. By hand: data at
        // 0x7f00_0010_0000 = words 0x0010_0000, 0x7f00 at 0x210/0x214; out
        // (0x10_0200) at 0x218/0x21c; 1000003 at 0x220.
        let params = abi::mangled_params("_Z6kernelPfS_i").expect("demangles");
        let b = bank(90, "[data, out, 1000003]", Some(&params), &[]).expect("lays out");
        let want: BTreeMap<u32, u32> = [
            (0x0, 64),
            (0x4, 1),
            (0x8, 1),
            (0xc, 3),
            (0x10, 1),
            (0x14, 1),
            (0x28, abi::LOCAL_BYTES),
            (0x208, 0),
            (0x20c, 0),
            (0x210, 0x0010_0000),
            (0x214, 0x7f00),
            (0x218, 0x0010_0200),
            (0x21c, 0x7f00),
            (0x220, 1_000_003),
        ]
        .into_iter()
        .collect();
        assert_eq!(b, want);
    }

    #[test]
    fn sm_100_moves_everything_and_structs_align_like_c() {
        // sm_100: block dims at 0x360, grid at 0x370, SP 0x37c, params
        // 0x380. `struct {int a; double b;}` by value is 16 bytes, b at +8:
        // 7 at 0x380, 2.5 = 0x4004_0000_0000_0000 at 0x388; then the
        // pointer at 0x390; then a u8 0xff at 0x398.
        let b = bank(100, "[[7, {f64: 2.5}], out, {u8: 255}]", None, &[]).expect("lays out");
        assert_eq!(b.get(&0x360), Some(&64));
        assert_eq!(b.get(&0x370), Some(&3));
        assert_eq!(b.get(&0x37c), Some(&abi::LOCAL_BYTES));
        assert_eq!(b.get(&0x380), Some(&7));
        assert_eq!(b.get(&0x384), Some(&0));
        assert_eq!(b.get(&0x388), Some(&0));
        assert_eq!(b.get(&0x38c), Some(&0x4004_0000));
        assert_eq!(b.get(&0x390), Some(&0x0010_0200));
        assert_eq!(b.get(&0x394), Some(&0x7f00));
        assert_eq!(b.get(&0x398), Some(&0xff));
        assert_eq!(b.get(&0x0), None, "no sm_90 block dims on sm_100");
    }

    #[test]
    fn extern_c_integers_follow_the_listings_reads() {
        // `extern "C" k(int *p, long n, float x)` read as LDC.64 at 0x218:
        // n is 8 bytes at 0x218, x (1.5f = 0x3fc0_0000) at 0x220.
        let b = bank(90, "[data, 5, 1.5]", None, &[(0x210, 8), (0x218, 8)]).expect("lays out");
        assert_eq!(b.get(&0x218), Some(&5));
        assert_eq!(b.get(&0x21c), Some(&0));
        assert_eq!(b.get(&0x220), Some(&0x3fc0_0000));
        // Without the wide read, n is 4 bytes and x follows at 0x21c.
        let b = bank(90, "[data, 5, 1.5]", None, &[]).expect("lays out");
        assert_eq!(b.get(&0x21c), Some(&0x3fc0_0000));
    }

    #[test]
    fn mismatches_are_errors() {
        let params = abi::mangled_params("_Z6kernelPfS_i").expect("demangles");
        let e = bank(90, "[data, out]", Some(&params), &[]).unwrap_err();
        assert!(e.contains("takes 3 parameters, `args` gives 2"), "{e}");
        let e = bank(90, "[data, out, 2.5]", Some(&params), &[]).unwrap_err();
        assert!(e.contains("4-byte integer"), "{e}");
        let e = bank(90, "[dat, out, 1]", Some(&params), &[]).unwrap_err();
        assert!(e.contains("`dat` in `args.0` is not a buffer"), "{e}");
        let e = bank(90, "[{u8: 256}]", None, &[]).unwrap_err();
        assert!(e.contains("does not fit in 1 bytes"), "{e}");
        let e = bank(70, "[]", None, &[]).unwrap_err();
        assert!(e.contains("sm_70"), "{e}");
    }
}
