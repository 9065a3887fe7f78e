//! `memory:`: global buffers, their layout and initial contents.

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::{Node, Ordered, RawBuffer};
use super::values::{self, literal};
use super::{BufferSpec, ElemType, LaunchSpec, LoadError, leaf};
use crate::expr::{Env, Run, Value, Var, Vars};

/// Base address of the first buffer. Low addresses stay unmapped, so a null
/// or small bogus pointer faults.
pub const FIRST_BASE: u32 = 0x0010_0000;
/// Buffers start on this alignment, at least this far past the previous
/// end, so a small overrun faults instead of reading the next buffer.
pub const BUFFER_GAP: u32 = 256;
/// Most global memory a scenario may lay out, gaps included.
pub const MAX_MEMORY: u64 = 512 << 20;

/// Names an expression already gives a meaning to.
const RESERVED: &[&str] = &[
    "tid", "lane", "warp", "block", "ntid", "nthreads", "nblocks", "i", "rand", "true", "false",
];

/// A buffer read from the file, before its contents are computed.
struct Planned<'a> {
    name: String,
    ty: ElemType,
    len: u32,
    init: Init<'a>,
    key: &'a Spanned<Node>,
}

/// What `init:` says the contents are.
enum Init<'a> {
    /// No `init`: zeros.
    Zero,
    /// One value per element.
    List(&'a [Spanned<Node>]),
    /// An expression string of `i`.
    Expr(&'a Spanned<Node>),
    /// A single number for every element.
    Fill(&'a Spanned<Node>),
}

/// Lays out and initialises every buffer, in file order.
pub(super) fn load_memory(
    src: &SourceFile<'_>,
    raw: Option<&Spanned<Ordered<RawBuffer>>>,
    launch: &LaunchSpec,
) -> Result<Vec<BufferSpec>, LoadError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    let mut planned: Vec<Planned<'_>> = Vec::new();
    for (key, buf) in &raw.value.0 {
        let name = buffer_name(src, key, &planned)?;
        planned.push(plan(src, key, name, &buf.value, buf)?);
    }

    // Layout: each base 256-aligned and at least 256 bytes past the last end.
    let mut bases = Vec::with_capacity(planned.len());
    let mut next = u64::from(FIRST_BASE);
    for p in &planned {
        let end = next + u64::from(p.len) * u64::from(p.ty.size());
        if end - u64::from(FIRST_BASE) > MAX_MEMORY {
            return Err(src
                .error(
                    Pos::of(p.key),
                    &format!("memory.{}", p.name),
                    format!(
                        "buffer `{}` ends {} MiB into global memory, past the 512 MiB limit",
                        p.name,
                        (end - u64::from(FIRST_BASE)) >> 20
                    ),
                )
                .expected("at most 512 MiB of buffers in total")
                .hint(Some(
                    "use smaller buffers; behaviour per warp is the same".into(),
                )));
        }
        bases.push(next as u32);
        next = (end + u64::from(BUFFER_GAP)).next_multiple_of(u64::from(BUFFER_GAP));
    }

    // Every buffer name is a constant in every init expression.
    let vars = planned
        .iter()
        .zip(&bases)
        .fold(Vars::buffer_init(), |v, (p, &base)| {
            v.with_name(p.name.clone(), i64::from(base))
        });
    let mut out = Vec::with_capacity(planned.len());
    for (p, base) in planned.into_iter().zip(bases) {
        let init = contents(src, &p, &vars, launch)?;
        out.push(BufferSpec {
            name: p.name,
            ty: p.ty,
            len: p.len,
            base,
            init,
        });
    }
    Ok(out)
}

/// The names all buffers will have, for the expressions of other sections.
pub(super) fn with_buffer_names(vars: Vars, buffers: &[BufferSpec]) -> Vars {
    buffers
        .iter()
        .fold(vars, |v, b| v.with_name(b.name.clone(), i64::from(b.base)))
}

fn buffer_name(
    src: &SourceFile<'_>,
    key: &Spanned<Node>,
    so_far: &[Planned<'_>],
) -> Result<String, LoadError> {
    let Node::Str(name) = &key.value else {
        let pos = Pos::of(key);
        // YAML reads `y`, `n`, `on`, `off`, `null`, `1` ... as non-strings.
        let written: String = src
            .line(pos.line)
            .map(|l| {
                l.chars()
                    .skip(pos.column.saturating_sub(1) as usize)
                    .take_while(|c| *c != ':')
                    .collect::<String>()
                    .trim()
                    .to_string()
            })
            .unwrap_or_default();
        return Err(src
            .error(pos, "memory", "a buffer name must be a name")
            .expected("a name such as `data` or `out`")
            .hint(Some(format!(
                "YAML reads `{written}` as {}, not as text: quote it (`\"{written}\": ...`) or choose another name",
                key.value.kind()
            ))));
    };
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(src
            .error(
                Pos::of(key),
                &format!("memory.{name}"),
                format!("`{name}` is not a valid buffer name"),
            )
            .expected("letters, digits and `_`, not starting with a digit")
            .hint(Some(
                "expressions refer to buffers by name, so it must be an identifier".into(),
            )));
    }
    if RESERVED.contains(&name.as_str()) {
        return Err(src
            .error(Pos::of(key), &format!("memory.{name}"), format!("`{name}` is a reserved name"))
            .expected("a name other than tid, lane, warp, block, ntid, nthreads, nblocks, i, rand, true, false")
            .hint(Some("expressions could not tell the buffer from the built-in; rename it".into())));
    }
    if so_far.iter().any(|p| &p.name == name) {
        return Err(src.error(
            Pos::of(key),
            &format!("memory.{name}"),
            format!("duplicate buffer `{name}`"),
        ));
    }
    Ok(name.clone())
}

/// Most elements one buffer can have (512 MiB of 1-byte elements; the
/// layout then bounds the bytes of wider ones).
const MAX_ELEMS: i128 = MAX_MEMORY as i128;

/// The types `type:` accepts, for messages.
const TYPE_NAMES: &str = "u8, i8, u16, i16, u32, i32, u64, i64, f32, f64";

fn plan<'a>(
    src: &SourceFile<'_>,
    key: &'a Spanned<Node>,
    name: String,
    raw: &'a RawBuffer,
    whole: &Spanned<RawBuffer>,
) -> Result<Planned<'a>, LoadError> {
    let base = format!("memory.{name}");
    let ty_key = format!("{base}.type");
    let ty = match &raw.ty {
        Some(t) => leaf::choice(src, t, &ty_key, &ElemType::ALL)?,
        None => {
            return Err(src
                .error(
                    Pos::of(key),
                    &ty_key,
                    format!("buffer `{name}` needs a `type`"),
                )
                .expected(format!("`type:` one of {TYPE_NAMES}"))
                .hint(Some(format!("e.g. `{name}: {{type: f32, len: 1024}}`"))));
        }
    };
    let init = match &raw.init {
        None => Init::Zero,
        Some(l) => match &l.value {
            Node::Seq(items) => Init::List(items),
            Node::Str(_) => Init::Expr(l),
            Node::Int(_) | Node::Float(_) | Node::Bool(_) => Init::Fill(l),
            Node::Null => Init::Zero,
            Node::Map(_) => {
                return Err(src
                    .error(
                        Pos::of(l),
                        &format!("{base}.init"),
                        "`init` cannot be a mapping",
                    )
                    .expected("a list of values, an expression of `i`, or a number"));
            }
        },
    };
    let len_key = format!("{base}.len");
    let len = match (&raw.len, &init) {
        (Some(l), Init::List(items)) => {
            let n = leaf::int(src, l, &len_key, 1, MAX_ELEMS, None)?;
            if n != items.len() as i128 {
                return Err(src
                    .error(
                        Pos::of(l),
                        &len_key,
                        format!("`len` is {n} but `init` lists {} values", items.len()),
                    )
                    .expected(format!("len: {}, or {n} values in `init`", items.len()))
                    .hint(Some("leave `len` out: a list gives its own length".into())));
            }
            n
        }
        (Some(l), _) => leaf::int(src, l, &len_key, 1, MAX_ELEMS, None)?,
        (None, Init::List(items)) if !items.is_empty() => items.len() as i128,
        (None, Init::List(_)) => {
            return Err(src
                .error(
                    Pos::of(whole),
                    &format!("{base}.init"),
                    format!("buffer `{name}` has an empty `init` list"),
                )
                .expected("at least one value"));
        }
        (None, _) => {
            return Err(src
                .error(
                    Pos::of(key),
                    &len_key,
                    format!("buffer `{name}` needs a `len`"),
                )
                .expected("`len:` the number of elements")
                .hint(Some("or give `init` as a list of values".into())));
        }
    };
    if let Init::List(items) = &init
        && items.len() as i128 > MAX_ELEMS
    {
        return Err(src.error(Pos::of(key), &len_key, "buffer too large"));
    }
    Ok(Planned {
        name,
        ty,
        len: u32::try_from(len).unwrap_or(u32::MAX),
        init,
        key,
    })
}

/// The little-endian bytes of a buffer.
fn contents(
    src: &SourceFile<'_>,
    p: &Planned<'_>,
    vars: &Vars,
    launch: &LaunchSpec,
) -> Result<Vec<u8>, LoadError> {
    let init_key = format!("memory.{}.init", p.name);
    let size = p.ty.size() as usize;
    let mut bytes = Vec::with_capacity(p.len as usize * size);
    // Fixed-size copies for each element size, not a copy of `size` bytes.
    let push = |bytes: &mut Vec<u8>, bits: u64| match size {
        1 => bytes.push(bits as u8),
        2 => bytes.extend_from_slice(&(bits as u16).to_le_bytes()),
        4 => bytes.extend_from_slice(&(bits as u32).to_le_bytes()),
        _ => bytes.extend_from_slice(&bits.to_le_bytes()),
    };
    let type_error = |item: &Spanned<Node>, e: crate::expr::EvalError| {
        src.error(
            Pos::of(item),
            &init_key,
            format!("buffer `{}` is {}: {}", p.name, p.ty.name(), e.message),
        )
        .expected(format!("{} values", p.ty.name()))
        .hint(e.hint)
    };
    match &p.init {
        Init::Zero => bytes.resize(p.len as usize * size, 0),
        Init::List(items) => {
            for item in *items {
                let v = element_literal(src, item, &init_key, p.ty)?;
                let bits = element_bits(p.ty, v).map_err(|e| type_error(item, e))?;
                push(&mut bytes, bits);
            }
        }
        Init::Fill(item) => {
            let v = element_literal(src, item, &init_key, p.ty)?;
            let bits = element_bits(p.ty, v).map_err(|e| type_error(item, e))?;
            for _ in 0..p.len {
                push(&mut bytes, bits);
            }
        }
        Init::Expr(leaf) => {
            let text = match &leaf.value {
                Node::Str(s) => s.as_str(),
                _ => "",
            };
            let expr = values::parse_expr(src, leaf, text, vars, &init_key)?;
            let env = Env::launch(launch.block_dim, launch.threads());
            let eval_error = |i: u32, e: &crate::expr::EvalError| {
                values::eval_error(src, leaf, text, &init_key, e, &format!("element i = {i}"))
            };
            // A constant fills (an empty buffer evaluates nothing).
            if expr.is_constant() {
                if p.len == 0 {
                    return Ok(bytes);
                }
                let bits = expr
                    .eval(&env)
                    .and_then(|v| element_bits(p.ty, v))
                    .map_err(|e| eval_error(0, &e))?;
                for _ in 0..p.len {
                    push(&mut bytes, bits);
                }
                return Ok(bytes);
            }
            // Otherwise a run of elements at a time, step by step over the
            // run where the expression is a chain that cannot fail
            // (`Expr::eval_run`); else, or where an element does not fit
            // the type, one evaluation per element, which also finds the
            // error to report.
            let mut run = vec![0u64; (p.len as usize).min(RUN)];
            let mut i = 0u32;
            while i < p.len {
                let n = (p.len - i).min(RUN as u32);
                let run = &mut run[..n as usize];
                let at = env.with(Var::I, i64::from(i));
                let done = expr
                    .eval_run(&at, &[Var::I], run)
                    .is_some_and(|kind| push_run(&mut bytes, p.ty, kind, run));
                if !done {
                    bytes.truncate(i as usize * size);
                    for i in i..i + n {
                        let v = expr.eval(&env.with(Var::I, i64::from(i)));
                        let bits = v
                            .and_then(|v| element_bits(p.ty, v))
                            .map_err(|e| eval_error(i, &e))?;
                        push(&mut bytes, bits);
                    }
                }
                i += n;
            }
        }
    }
    Ok(bytes)
}

/// Elements of an `init:` expression evaluated as one run
/// ([`crate::expr::Expr::eval_run`]).
const RUN: usize = 4096;

/// Appends a run of values (`kind` bits) as elements of type `ty`, as
/// [`element_bits`] converts each. False, having appended some, where an
/// element does not fit the type: the caller redoes the run one element
/// at a time, for the error.
fn push_run(bytes: &mut Vec<u8>, ty: ElemType, kind: Run, run: &[u64]) -> bool {
    let start = bytes.len();
    let size = ty.size() as usize;
    bytes.resize(start + run.len() * size, 0);
    let Some(out) = bytes.get_mut(start..) else {
        return false;
    };
    // The common 4-byte cases with the conversion picked once; each is
    // what `element_bits` does for that type and kind.
    let words = |out: &mut [u8], f: &dyn Fn(u64) -> u32| {
        for (o, &b) in out.chunks_exact_mut(4).zip(run) {
            o.copy_from_slice(&f(b).to_le_bytes());
        }
    };
    match (ty, kind) {
        (ElemType::F32, Run::Float) => words(out, &|b| Run::Float.value(b).to_f32_bits()),
        (ElemType::F32, Run::Int) => words(out, &|b| Run::Int.value(b).to_f32_bits()),
        (ElemType::U32 | ElemType::I32, Run::Int) => words(out, &|b| b as u32),
        _ => {
            for (o, &b) in out.chunks_exact_mut(size).zip(run) {
                let Ok(bits) = element_bits(ty, kind.value(b)) else {
                    return false;
                };
                o.copy_from_slice(&bits.to_le_bytes()[..size]);
            }
        }
    }
    true
}

/// One literal element: 64-bit types take any 64-bit integer (signed or
/// unsigned), the others what [`literal`] takes.
fn element_literal(
    src: &SourceFile<'_>,
    item: &Spanned<Node>,
    key: &str,
    ty: ElemType,
) -> Result<Value, LoadError> {
    match (&item.value, ty.size()) {
        (Node::Int(v), 8) => match i64::try_from(*v) {
            Ok(x) => Ok(Value::Int(x)),
            // u64 values above i64::MAX keep their bits.
            Err(_) => match u64::try_from(*v) {
                Ok(x) => Ok(Value::Int(x as i64)),
                Err(_) => Err(src
                    .error(
                        Pos::of(item),
                        key,
                        format!("{v} in `{key}` does not fit in 64 bits"),
                    )
                    .expected(format!("an integer from {} to {}", i64::MIN, u64::MAX))),
            },
        },
        _ => literal(src, item, key),
    }
}

/// The bits of one element of type `ty` (the low `ty.size()` bytes count).
///
/// Integers of 8 and 16 bits take values that fit the width signed or
/// unsigned (`-1` in a `u8` is `0xff`, `300` is an error); 32-bit ones keep
/// their low 32 bits as they always have; 64-bit ones take any value.
/// Floats in integer buffers are an error; integers in float buffers
/// convert.
pub(super) fn element_bits(ty: ElemType, v: Value) -> Result<u64, crate::expr::EvalError> {
    let err = |message: String, hint: Option<String>| crate::expr::EvalError {
        offset: 0,
        len: 0,
        message,
        hint,
    };
    match ty {
        ElemType::F32 => Ok(u64::from(v.to_f32_bits())),
        ElemType::F64 => Ok(v.as_f64().to_bits()),
        ElemType::U32 | ElemType::I32 => v.to_int_elem().map(u64::from),
        _ => {
            let x = match v {
                Value::Int(x) => x,
                Value::Float(f) => {
                    return Err(err(
                        format!("a float ({f}) in an integer buffer"),
                        Some("use `type: f32` or `type: f64` for float data".into()),
                    ));
                }
            };
            let bits = ty.size() * 8;
            if bits == 64 {
                return Ok(x as u64);
            }
            let lo = -(1i64 << (bits - 1));
            let hi = (1i64 << bits) - 1;
            if (lo..=hi).contains(&x) {
                Ok((x as u64) & ((1u64 << bits) - 1))
            } else {
                let (min, max) = if ty.is_signed() {
                    (lo, (1i64 << (bits - 1)) - 1)
                } else {
                    (0, hi)
                };
                Err(err(
                    format!("{x} does not fit in {} ({min} to {max})", ty.name()),
                    Some(format!(
                        "a {}-bit element holds {min} to {max}; use a wider type",
                        bits
                    )),
                ))
            }
        }
    }
}
