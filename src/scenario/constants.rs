//! `constants:`: constant bank 0 (`c[0x0][OFFSET]`), with the CUDA ABI's
//! launch dimensions filled in unless the file sets them, and the other
//! banks (`c[0x3][0x10]: VALUE` keys; values laid out as `args:` lays out
//! its values).

use std::collections::BTreeMap;

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::{Node, Ordered};
use super::values::{self, literal};
use super::{BufferSpec, LaunchSpec, LoadError, args, memory};
use crate::engine::constant_key;
use crate::expr::{Env, Vars};

/// Constant banks a key may name (`c[0x0]` to `c[0x11]`, CUDA's 18).
const BANKS: i128 = 18;

/// Size of constant bank 0 in bytes (64 KiB, as in CUDA).
const BANK_BYTES: i128 = 0x1_0000;

pub(super) fn load_constants(
    src: &SourceFile<'_>,
    raw: Option<&Spanned<Ordered<Node>>>,
    launch: &LaunchSpec,
    buffers: &[BufferSpec],
) -> Result<BTreeMap<u32, u32>, LoadError> {
    let mut bank = BTreeMap::new();
    if let Some(raw) = raw {
        let vars = memory::with_buffer_names(Vars::constants(), buffers);
        let env = Env::launch(launch.block_dim, launch.threads());
        for (key, value) in &raw.value.0 {
            if let Some((bank_no, at, shown)) = banked_offset(src, key)? {
                let key_path = format!("constants.{shown}");
                let arg = args::load_value(src, value, &key_path, buffers)?;
                let bytes = args::value_bytes(src, &key_path, &arg)?;
                if i128::from(at) + bytes.len() as i128 > BANK_BYTES {
                    return Err(src
                        .error(
                            Pos::of(value),
                            &key_path,
                            format!(
                                "`{shown}` takes {} bytes, past the end of bank {bank_no}",
                                bytes.len()
                            ),
                        )
                        .expected("values that end by offset 0xffff"));
                }
                for (k, chunk) in bytes.chunks(4).enumerate() {
                    let mut w = [0u8; 4];
                    w[..chunk.len()].copy_from_slice(chunk);
                    bank.insert(
                        constant_key(bank_no, at + 4 * k as u32),
                        u32::from_le_bytes(w),
                    );
                }
                continue;
            }
            let offset = offset(src, key)?;
            let key_path = format!("constants.{offset:#x}");
            let word = match &value.value {
                Node::Str(text) => {
                    let expr = values::parse_expr(src, value, text, &vars, &key_path)?;
                    let v = expr.eval(&env).map_err(|e| {
                        values::eval_error(src, value, text, &key_path, &e, "the constant bank")
                    })?;
                    v.to_reg_bits()
                }
                _ => literal(src, value, &key_path)?.to_reg_bits(),
            };
            bank.insert(offset, word);
        }
    }
    Ok(bank)
}

/// The launch dimensions a program without an architecture finds in bank
/// 0 unless `constants:` sets them: blockDim.xyz at 0x0..0x8 and
/// gridDim.xyz at 0xc..0x14, as in the ABI up to sm_90.
pub(super) fn legacy_defaults(bank: &mut BTreeMap<u32, u32>, launch: &LaunchSpec) {
    let defaults = [
        (0x0, launch.block_dim),
        (0x4, 1),
        (0x8, 1),
        (0xc, launch.blocks),
        (0x10, 1),
        (0x14, 1),
    ];
    for (offset, value) in defaults {
        bank.entry(offset).or_insert(value);
    }
}

/// A `c[BANK][OFFSET]` key (`c[0x3][0x10]`): the bank, the byte offset
/// and the key as written; `None` for a key of another form.
fn banked_offset(
    src: &SourceFile<'_>,
    key: &Spanned<Node>,
) -> Result<Option<(u8, u32, String)>, LoadError> {
    let Node::Str(text) = &key.value else {
        return Ok(None);
    };
    let t = text.trim();
    let Some(rest) = t.strip_prefix("c[").or(t.strip_prefix("C[")) else {
        return Ok(None);
    };
    let key_path = format!("constants.{t}");
    let pos = Pos::of(key);
    let number = |s: &str| -> Option<i128> {
        let s = s.trim();
        match s.strip_prefix("0x").or(s.strip_prefix("0X")) {
            Some(hex) => i128::from_str_radix(hex, 16).ok(),
            None => s.parse::<i128>().ok(),
        }
    };
    let parsed = rest.split_once("][").and_then(|(b, o)| {
        let o = o.strip_suffix(']')?;
        Some((number(b)?, number(o)?))
    });
    let Some((b, o)) = parsed else {
        return Err(src
            .error(
                pos,
                &key_path,
                format!("`{t}` in `constants` is not a constant"),
            )
            .expected("a bank and a byte offset such as `c[0x3][0x10]`"));
    };
    if !(0..BANKS).contains(&b) {
        return Err(src
            .error(
                pos,
                &key_path,
                format!("`{t}`: there is no constant bank {b}"),
            )
            .expected("a bank from 0x0 to 0x11"));
    }
    if !(0..BANK_BYTES).contains(&o) || o % 4 != 0 {
        return Err(src
            .error(
                pos,
                &key_path,
                format!("`{t}`: the offset is not a word of the bank"),
            )
            .expected("a byte offset from 0x0 to 0xfffc, a multiple of 4"));
    }
    Ok(Some((b as u8, o as u32, t.to_string())))
}

/// A byte offset: a YAML integer (`0x160`, `352`) or such a string.
fn offset(src: &SourceFile<'_>, key: &Spanned<Node>) -> Result<u32, LoadError> {
    let parsed = match &key.value {
        Node::Int(v) => Some(*v),
        Node::Str(s) => {
            let s = s.trim();
            match s.strip_prefix("0x").or(s.strip_prefix("0X")) {
                Some(hex) => i128::from_str_radix(hex, 16).ok(),
                None => s.parse::<i128>().ok(),
            }
        }
        _ => None,
    };
    let shown = match &key.value {
        Node::Str(s) => s.clone(),
        Node::Int(v) => format!("{v:#x}"),
        other => other.kind().to_string(),
    };
    let key_path = format!("constants.{shown}");
    let pos = Pos::of(key);
    match parsed {
        Some(v) if (0..BANK_BYTES).contains(&v) && v % 4 == 0 => Ok(v as u32),
        Some(v) if (0..BANK_BYTES).contains(&v) => Err(src
            .error(
                pos,
                &key_path,
                format!("constant offset {shown} in `constants` is not a multiple of 4"),
            )
            .expected("a byte offset that is a multiple of 4")
            .hint(Some(format!(
                "constants are 32-bit words: try {:#x} or {:#x}",
                v - v % 4,
                v - v % 4 + 4
            )))),
        Some(_) => Err(src
            .error(
                pos,
                &key_path,
                format!("constant offset {shown} in `constants` is outside bank 0"),
            )
            .expected("a byte offset from 0x0 to 0xfffc")),
        None => Err(src
            .error(
                pos,
                &key_path,
                format!("`{shown}` in `constants` is not a byte offset"),
            )
            .expected("a byte offset such as `0x160`")
            .hint(Some(
                "keys are offsets into c[0x0][...], values the words there".into(),
            ))),
    }
}
