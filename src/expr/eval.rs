//! Evaluating a parsed expression, and the `rand` generator.

use super::ast::{BinOp, Code, Id, Node, UnOp};
use super::{Env, EvalError, Value};

/// `rand(seed)` at `index`: a uniform float in `[0, 1)`, the same on every
/// machine (integer arithmetic only, then one exact conversion).
///
/// ```text
/// x = (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index
/// z = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9)   // splitmix64
/// z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB)   // finaliser
/// z = z ^ (z >> 31)
/// value = (z >> 11) as f64 / 2^53
/// ```
///
/// The index is the element index `i` in a buffer `init`, the thread index
/// `tid` in an input, and 0 in a constant.
pub fn rand_unit(seed: i64, index: u64) -> f64 {
    let x = (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index;
    let mut z = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    // 53 random bits over 2^53: exactly representable, always below 1.
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Why an evaluation failed, kept small so the recursion stays cheap; it
/// becomes an [`EvalError`] with text only at the top.
#[derive(Debug, Clone, Copy)]
enum FaultKind {
    DivZero,
    RemZero,
    BitwiseFloat,
    RandSeedFloat,
    /// A shift by an amount outside 0..=63.
    ShiftRange,
    /// `i64::MIN / -1`, whose quotient 2^63 does not fit.
    DivOverflow,
    Malformed,
}

#[derive(Debug, Clone, Copy)]
struct Fault {
    node: Id,
    kind: FaultKind,
}

pub(super) fn eval(code: &Code, src: &str, env: &Env) -> Result<Value, EvalError> {
    let ev = Evaluator { code, env };
    ev.node(code.root).map_err(|f| to_error(code, src, f))
}

struct Evaluator<'a> {
    code: &'a Code,
    env: &'a Env,
}

impl Evaluator<'_> {
    fn node(&self, id: Id) -> Result<Value, Fault> {
        let fault = |kind| Fault { node: id, kind };
        let Some(node) = self.code.nodes.get(id as usize) else {
            return Err(fault(FaultKind::Malformed));
        };
        match *node {
            Node::Const(v) => Ok(v),
            Node::Var(v) => Ok(Value::Int(self.env.get(v))),
            Node::Unary(op, a) => unary(op, self.node(a)?).map_err(fault),
            Node::Binary(op, a, b) => {
                let a = self.node(a)?;
                let b = self.node(b)?;
                binary(op, a, b).map_err(fault)
            }
            Node::And(a, b) => Ok(truth(self.node(a)?.is_true() && self.node(b)?.is_true())),
            Node::Or(a, b) => Ok(truth(self.node(a)?.is_true() || self.node(b)?.is_true())),
            Node::Cond(c, a, b) => {
                if self.node(c)?.is_true() {
                    self.node(a)
                } else {
                    self.node(b)
                }
            }
            Node::Rand(s) => {
                let Value::Int(seed) = self.node(s)? else {
                    return Err(fault(FaultKind::RandSeedFloat));
                };
                let index = self.code.rand_index.map_or(0, |v| self.env.get(v)) as u64;
                Ok(Value::Float(rand_unit(seed, index)))
            }
        }
    }
}

fn truth(b: bool) -> Value {
    Value::Int(i64::from(b))
}

fn unary(op: UnOp, a: Value) -> Result<Value, FaultKind> {
    Ok(match (op, a) {
        (UnOp::Neg, Value::Int(x)) => Value::Int(x.wrapping_neg()),
        (UnOp::Neg, Value::Float(x)) => Value::Float(-x),
        (UnOp::Not, a) => truth(!a.is_true()),
        (UnOp::BitNot, Value::Int(x)) => Value::Int(!x),
        (UnOp::BitNot, Value::Float(_)) => return Err(FaultKind::BitwiseFloat),
    })
}

fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, FaultKind> {
    use BinOp::*;
    use Value::{Float, Int};
    Ok(match op {
        Shl | Shr | BitAnd | BitXor | BitOr => {
            let (Int(x), Int(y)) = (a, b) else {
                return Err(FaultKind::BitwiseFloat);
            };
            // A shift of 64 or more (or a negative one) has no meaning on a
            // 64-bit value; masking it (as x86-64 does) would silently give
            // `1 << 64 == 1`, so it is refused.
            if matches!(op, Shl | Shr) && !(0..64).contains(&y) {
                return Err(FaultKind::ShiftRange);
            }
            let amount = (y & 63) as u32;
            Int(match op {
                Shl => x.wrapping_shl(amount),
                Shr => x.wrapping_shr(amount),
                BitAnd => x & y,
                BitXor => x ^ y,
                _ => x | y,
            })
        }
        Lt | Le | Gt | Ge | Eq | Ne => truth(match (a, b) {
            (Int(x), Int(y)) => match op {
                Lt => x < y,
                Le => x <= y,
                Gt => x > y,
                Ge => x >= y,
                Eq => x == y,
                _ => x != y,
            },
            _ => {
                let (x, y) = (a.as_f64(), b.as_f64());
                match op {
                    Lt => x < y,
                    Le => x <= y,
                    Gt => x > y,
                    Ge => x >= y,
                    Eq => x == y,
                    _ => x != y,
                }
            }
        }),
        Add | Sub | Mul | Div | Rem => match (a, b) {
            (Int(x), Int(y)) => Int(match op {
                Add => x.wrapping_add(y),
                Sub => x.wrapping_sub(y),
                Mul => x.wrapping_mul(y),
                Div if y == 0 => return Err(FaultKind::DivZero),
                _ if y == 0 => return Err(FaultKind::RemZero),
                // 2^63 does not fit: refused rather than wrapped to MIN.
                Div if x == i64::MIN && y == -1 => return Err(FaultKind::DivOverflow),
                Div => x.wrapping_div(y),
                _ => x.wrapping_rem(y),
            }),
            _ => {
                let (x, y) = (a.as_f64(), b.as_f64());
                match op {
                    Add => Float(x + y),
                    Sub => Float(x - y),
                    Mul => Float(x * y),
                    Div if y == 0.0 => return Err(FaultKind::DivZero),
                    Div => Float(x / y),
                    _ if y == 0.0 => return Err(FaultKind::RemZero),
                    _ => Float(x % y),
                }
            }
        },
    })
}

/// Character offset of byte `byte` in `src` (clamped, never panics).
pub(super) fn char_offset(src: &str, byte: usize) -> usize {
    let mut end = byte.min(src.len());
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    src.get(..end).map_or(0, |s| s.chars().count())
}

/// Characters in `src[start..start + len]` (bytes, clamped).
pub(super) fn char_len(src: &str, start: usize, len: usize) -> usize {
    char_offset(src, start.saturating_add(len)).saturating_sub(char_offset(src, start))
}

fn to_error(code: &Code, src: &str, fault: Fault) -> EvalError {
    let (start, len) = code
        .spans
        .get(fault.node as usize)
        .map_or((0, 0), |&(s, l)| (s as usize, l as usize));
    let op_text = src
        .get(start..start.saturating_add(len))
        .unwrap_or("")
        .to_string();
    let (message, hint) = match fault.kind {
        FaultKind::DivZero => (
            "division by zero".to_string(),
            Some("guard the divisor, e.g. `d != 0 ? n / d : 0`".to_string()),
        ),
        FaultKind::RemZero => (
            "remainder by zero".to_string(),
            Some("guard the divisor, e.g. `d != 0 ? n % d : 0`".to_string()),
        ),
        FaultKind::BitwiseFloat => (
            format!("`{op_text}` needs integer operands, not a float"),
            Some("bitwise operators and shifts work on integers only".to_string()),
        ),
        FaultKind::RandSeedFloat => (
            "the seed of `rand` must be an integer, not a float".to_string(),
            Some("write a whole number, e.g. `rand(7)`".to_string()),
        ),
        FaultKind::ShiftRange => (
            format!("`{op_text}` shifts by an amount outside 0 to 63"),
            Some("a 64-bit value shifts by 0 to 63 bits".to_string()),
        ),
        FaultKind::DivOverflow => (
            "`-9223372036854775808 / -1` overflows: 2^63 does not fit a 64-bit integer".to_string(),
            Some("the quotient must lie in -2^63 to 2^63 - 1".to_string()),
        ),
        FaultKind::Malformed => ("internal error: malformed expression".to_string(), None),
    };
    EvalError {
        offset: char_offset(src, start),
        len: char_len(src, start, len),
        message,
        hint,
    }
}

/// The common expression in a form evaluated without the tree: one leaf
/// (a variable, or `rand` of a constant seed) carried through operations
/// that each combine it with a constant, as `(i * 37) % 16384`,
/// `0.25 + 0.5 * (i % 2)`, `tid * 4 + 1` or `rand(3)` are. A leading run
/// of integer `+ - *` by constants, negations and shifts by 0..=63 folds
/// into one `a * x + b` (exact: integer arithmetic wraps, so it is the
/// ring of 64-bit integers). Every other step applies the interpreter's
/// own operator functions, so the value is the interpreter's, bit for bit;
/// where a step fails, the interpreter is asked again for its located
/// error.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Spine {
    leaf: Leaf,
    /// `x * a + b` for the leaf's integer `x` (identity: `(1, 0)`).
    affine: (i64, i64),
    steps: Vec<Step>,
    /// [`Spine::never_fails`], worked out once: a run of points
    /// ([`Spine::eval_run`]) is evaluated step by step only then.
    safe: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Leaf {
    Var(super::Var),
    /// `rand(seed)` at the context's index.
    Rand(i64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    /// `v % m` of an integer `v`, `m` not 0.
    RemInt(i64),
    /// `v op c`.
    Left(BinOp, Value),
    /// `c op v`.
    Right(BinOp, Value),
    Unary(UnOp),
}

/// The value of a subtree that reads no variable, if it evaluates.
fn constant(code: &Code, id: Id) -> Option<Value> {
    match *code.nodes.get(id as usize)? {
        Node::Const(v) => Some(v),
        Node::Unary(op, a) => unary(op, constant(code, a)?).ok(),
        Node::Binary(op, a, b) => binary(op, constant(code, a)?, constant(code, b)?).ok(),
        _ => None,
    }
}

/// The leaf and steps of subtree `id`, if it is a spine.
fn chain(code: &Code, id: Id, depth: u32) -> Option<(Leaf, Vec<Step>)> {
    // Parsing bounds the nesting; this bounds the recursion regardless.
    if depth > 256 {
        return None;
    }
    match *code.nodes.get(id as usize)? {
        Node::Var(v) => Some((Leaf::Var(v), Vec::new())),
        Node::Rand(s) => match constant(code, s)? {
            Value::Int(seed) => Some((Leaf::Rand(seed), Vec::new())),
            Value::Float(_) => None,
        },
        Node::Unary(op, a) => {
            let (leaf, mut steps) = chain(code, a, depth + 1)?;
            steps.push(Step::Unary(op));
            Some((leaf, steps))
        }
        Node::Binary(op, a, b) => {
            if let Some(c) = constant(code, b) {
                let (leaf, mut steps) = chain(code, a, depth + 1)?;
                steps.push(Step::Left(op, c));
                Some((leaf, steps))
            } else {
                let c = constant(code, a)?;
                let (leaf, mut steps) = chain(code, b, depth + 1)?;
                steps.push(Step::Right(op, c));
                Some((leaf, steps))
            }
        }
        _ => None,
    }
}

impl Spine {
    /// The spine form of `code`, if it has one (and reads a variable).
    pub(super) fn of(code: &Code) -> Option<Spine> {
        let (leaf, steps) = chain(code, code.root, 0)?;
        let mut affine = (1i64, 0i64);
        let mut rest = steps.as_slice();
        if let Leaf::Var(_) = leaf {
            // Integer all along the folded run: the leaf is an integer and
            // each step keeps it one.
            while let Some((&step, tail)) = rest.split_first() {
                let (a, b) = affine;
                affine = match step {
                    Step::Left(BinOp::Add, Value::Int(c))
                    | Step::Right(BinOp::Add, Value::Int(c)) => (a, b.wrapping_add(c)),
                    Step::Left(BinOp::Sub, Value::Int(c)) => (a, b.wrapping_sub(c)),
                    Step::Right(BinOp::Sub, Value::Int(c)) => (a.wrapping_neg(), c.wrapping_sub(b)),
                    Step::Left(BinOp::Mul, Value::Int(c))
                    | Step::Right(BinOp::Mul, Value::Int(c)) => {
                        (a.wrapping_mul(c), b.wrapping_mul(c))
                    }
                    Step::Left(BinOp::Shl, Value::Int(k)) if (0..64).contains(&k) => {
                        (a.wrapping_shl(k as u32), b.wrapping_shl(k as u32))
                    }
                    Step::Unary(UnOp::Neg) => (a.wrapping_neg(), b.wrapping_neg()),
                    _ => break,
                };
                rest = tail;
            }
        }
        let steps = rest
            .iter()
            .map(|&s| match s {
                Step::Left(BinOp::Rem, Value::Int(m)) if m != 0 => Step::RemInt(m),
                other => other,
            })
            .collect();
        let mut spine = Spine {
            leaf,
            affine,
            steps,
            safe: false,
        };
        spine.safe = spine.never_fails();
        Some(spine)
    }

    /// Whether no evaluation can fail, whatever the variables: every step
    /// is an operation that has no error for the operand types it meets
    /// (known from the leaf on: a variable is an integer, `rand` a float),
    /// as `+ - *`, comparisons, and division or remainder by a constant
    /// that is neither 0 nor, for integer division, -1.
    pub(super) fn never_fails(&self) -> bool {
        let mut float = matches!(self.leaf, Leaf::Rand(_));
        for step in &self.steps {
            match *step {
                Step::RemInt(_) => {}
                Step::Unary(UnOp::Neg) => {}
                Step::Unary(UnOp::Not) => float = false,
                Step::Unary(UnOp::BitNot) => {
                    if float {
                        return false;
                    }
                }
                Step::Left(op, c) | Step::Right(op, c) => {
                    let left = matches!(step, Step::Left(..));
                    let either = float || matches!(c, Value::Float(_));
                    match op {
                        BinOp::Add | BinOp::Sub | BinOp::Mul => float = either,
                        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                            float = false
                        }
                        BinOp::Div | BinOp::Rem => {
                            let ok = left
                                && match c {
                                    Value::Float(d) => d != 0.0,
                                    Value::Int(d) => {
                                        d != 0 && (either || op == BinOp::Rem || d != -1)
                                    }
                                };
                            if !ok {
                                return false;
                            }
                            float = either;
                        }
                        BinOp::Shl | BinOp::Shr => {
                            let ok = left
                                && !float
                                && matches!(c, Value::Int(k) if (0..64).contains(&k));
                            if !ok {
                                return false;
                            }
                        }
                        BinOp::BitAnd | BinOp::BitXor | BinOp::BitOr => {
                            if either {
                                return false;
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// The value at `env`, or `None` where a step fails (the caller asks
    /// the interpreter for the error).
    #[inline]
    pub(super) fn eval(&self, code: &Code, env: &Env) -> Option<Value> {
        let mut v = match self.leaf {
            Leaf::Var(var) => {
                let (a, b) = self.affine;
                Value::Int(env.get(var).wrapping_mul(a).wrapping_add(b))
            }
            Leaf::Rand(seed) => {
                let index = code.rand_index.map_or(0, |var| env.get(var)) as u64;
                Value::Float(rand_unit(seed, index))
            }
        };
        for step in &self.steps {
            v = match *step {
                Step::RemInt(m) => match v {
                    Value::Int(x) => Value::Int(x.wrapping_rem(m)),
                    _ => binary(BinOp::Rem, v, Value::Int(m)).ok()?,
                },
                Step::Left(op, c) => binary(op, v, c).ok()?,
                Step::Right(op, c) => binary(op, c, v).ok()?,
                Step::Unary(op) => unary(op, v).ok()?,
            };
        }
        Some(v)
    }
    /// The values at `out.len()` consecutive points, written into `out` as
    /// bits: at point `k`, each variable of `advancing` (a mask of
    /// [`super::Var`] bits) is its `env` value plus `k`, the others their
    /// `env` value. Returns whether the values are floats (`f64` bits) or
    /// integers (`i64` bits); a spine's type is known from its leaf on.
    ///
    /// Each step runs over every point before the next, with the operation
    /// picked once, not once a point; each typed loop does what
    /// [`binary`] and [`unary`] do for those operand types, and the others
    /// call them. `None` (with `out` unspecified) when some point could
    /// fail ([`Spine::never_fails`] is false): the caller evaluates point
    /// by point for the located error.
    pub(super) fn eval_run(
        &self,
        code: &Code,
        env: &Env,
        advancing: u16,
        out: &mut [u64],
    ) -> Option<bool> {
        if !self.safe {
            return None;
        }
        let at = |var: super::Var, k: usize| {
            let step = i64::from(advancing & var.bit() != 0);
            env.get(var).wrapping_add(step.wrapping_mul(k as i64))
        };
        let mut float = match self.leaf {
            Leaf::Var(var) => {
                let (a, b) = self.affine;
                let x0 = env.get(var);
                let step = i64::from(advancing & var.bit() != 0);
                for (k, o) in out.iter_mut().enumerate() {
                    let x = x0.wrapping_add(step.wrapping_mul(k as i64));
                    *o = x.wrapping_mul(a).wrapping_add(b) as u64;
                }
                false
            }
            Leaf::Rand(seed) => {
                for (k, o) in out.iter_mut().enumerate() {
                    let index = code.rand_index.map_or(0, |var| at(var, k)) as u64;
                    *o = rand_unit(seed, index).to_bits();
                }
                true
            }
        };
        for &step in &self.steps {
            float = run_step(step, float, out)?;
        }
        Some(float)
    }
}

/// The value `bits` hold in a run of `float` or integer values.
#[inline(always)]
fn value_of(bits: u64, float: bool) -> Value {
    if float {
        Value::Float(f64::from_bits(bits))
    } else {
        Value::Int(bits as i64)
    }
}

/// One step of a never-failing spine over a run of values (see
/// [`Spine::eval_run`]); returns whether the results are floats.
fn run_step(step: Step, float: bool, col: &mut [u64]) -> Option<bool> {
    use BinOp::{Add, Div, Mul, Rem, Sub};
    #[inline(always)]
    fn map(col: &mut [u64], f: impl Fn(i64) -> i64) {
        for x in col.iter_mut() {
            *x = f(*x as i64) as u64;
        }
    }
    match step {
        // Integer arithmetic by an integer constant, as `binary` does it
        // (a divisor is neither 0 nor, for `/`, -1: the spine is safe);
        // wrapping `+` and `*` are the same either way round.
        Step::RemInt(m) if !float => {
            map(col, |x| x.wrapping_rem(m));
            Some(false)
        }
        Step::Left(op @ (Add | Sub | Mul), Value::Int(c))
        | Step::Right(op @ (Add | Sub | Mul), Value::Int(c))
            if !float =>
        {
            match (op, matches!(step, Step::Left(..))) {
                (Add, _) => map(col, |x| x.wrapping_add(c)),
                (Mul, _) => map(col, |x| x.wrapping_mul(c)),
                (_, true) => map(col, |x| x.wrapping_sub(c)),
                (_, false) => map(col, |x| c.wrapping_sub(x)),
            }
            Some(false)
        }
        // Float arithmetic: either side a float, both as doubles, in the
        // operands' order (`v op c` or `c op v`). A divisor here is a
        // nonzero constant (a safe spine divides by no variable).
        Step::Left(op @ (Add | Sub | Mul | Div | Rem), c)
            if float || matches!(c, Value::Float(_)) =>
        {
            let y = c.as_f64();
            let f = |x: u64| value_of(x, float).as_f64();
            for x in col.iter_mut() {
                let v = f(*x);
                *x = match op {
                    Add => v + y,
                    Sub => v - y,
                    Mul => v * y,
                    Div => v / y,
                    _ => v % y,
                }
                .to_bits();
            }
            Some(true)
        }
        Step::Right(op @ (Add | Sub | Mul), c) if float || matches!(c, Value::Float(_)) => {
            let y = c.as_f64();
            for x in col.iter_mut() {
                let v = value_of(*x, float).as_f64();
                *x = match op {
                    Add => y + v,
                    Sub => y - v,
                    _ => y * v,
                }
                .to_bits();
            }
            Some(true)
        }
        // The rest (comparisons, bitwise operators, shifts, unary
        // operators, integer division) through the interpreter's own
        // functions, a value at a time.
        _ => {
            let mut out_float = float;
            for x in col.iter_mut() {
                let v = value_of(*x, float);
                let r = match step {
                    Step::RemInt(m) => binary(BinOp::Rem, v, Value::Int(m)),
                    Step::Left(op, c) => binary(op, v, c),
                    Step::Right(op, c) => binary(op, c, v),
                    Step::Unary(op) => unary(op, v),
                }
                .ok()?;
                (*x, out_float) = match r {
                    Value::Int(i) => (i as u64, false),
                    Value::Float(f) => (f.to_bits(), true),
                };
            }
            Some(out_float)
        }
    }
}
