//! The expression language of scenario files (`init:`, `inputs:`, `constants:`).
//!
//! Grammar (C precedence, lowest first): `?:`, `||`, `&&`, `|`, `^`, `&`,
//! `== !=`, `< <= > >=`, `<< >>`, `+ -`, `* / %`, unary `- ! ~`, then
//! numbers, identifiers, `rand(seed)` and parentheses.

/// A thread's coordinates, the variables an `inputs:` expression can read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadCtx {
    /// Thread index in the grid.
    pub tid: u64,
    /// Lane within its warp.
    pub lane: u32,
    /// Global warp index.
    pub warp: u64,
    /// Block index.
    pub block: u64,
    /// Threads per block.
    pub ntid: u32,
    /// Threads in the grid.
    pub nthreads: u64,
}

/// A parsed expression, ready to evaluate many times.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    src: String,
}
