//! The parsed form of an expression: a tree stored in one vector.

use super::{Value, Var};

/// Index of a node in [`Code::nodes`].
pub(super) type Id = u32;

/// Binary operators with both operands always evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum UnOp {
    Neg,
    Not,
    BitNot,
}

/// One node. Children always have smaller ids than their parent, so one
/// forward pass over the vector sees every child before its parent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Node {
    Const(Value),
    Var(Var),
    Unary(UnOp, Id),
    Binary(BinOp, Id, Id),
    /// `a && b`: `b` only when `a` is true.
    And(Id, Id),
    /// `a || b`: `b` only when `a` is false.
    Or(Id, Id),
    /// `c ? a : b`.
    Cond(Id, Id, Id),
    /// `rand(seed)`.
    Rand(Id),
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Code {
    pub nodes: Vec<Node>,
    /// Per node: byte offset and byte length in the source of the text an
    /// error there points at (the operator, for operations).
    pub spans: Vec<(u32, u32)>,
    pub root: Id,
    /// Bit mask of the variables the value depends on (see `Var::bit`).
    pub uses: u16,
    /// What `rand` uses as its index; `None` is 0.
    pub rand_index: Option<Var>,
}
