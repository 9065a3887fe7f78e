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
