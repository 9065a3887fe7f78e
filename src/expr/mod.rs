//! The expression language of scenario files (`init:`, `inputs:`, `constants:`).
//!
//! Grammar (C precedence, lowest first): `?:`, `||`, `&&`, `|`, `^`, `&`,
//! `== !=`, `< <= > >=`, `<< >>`, `+ -`, `* / %`, unary `- ! ~`, then
//! numbers, identifiers, `rand(seed)` and parentheses.
//!
//! Numbers are decimal or `0x` hex integers, or floats (`1.5`, `1e-3`, `.5`);
//! `true`/`false` are 1/0. Which identifiers exist depends on where the
//! expression is written (see [`Vars`]); buffer names are constants (their base
//! address), fixed at parse time.
//!
//! Values are [`Value::Int`] (64-bit, wrapping; `/` truncates; `%` is the
//! remainder with the dividend's sign) or [`Value::Float`]; mixing promotes to
//! float. Comparisons and `&& || !` give `Int` 0/1, and `&&`, `||` and `?:`
//! evaluate only the side they need, so `i != 0 && 10 / i > 1` is safe.
//! Bitwise operators and shifts need integers; shift amounts are masked to
//! 0..=63. Division or remainder by zero (integer or float) is an
//! [`EvalError`], never a panic or an infinity.

mod ast;
mod eval;
mod parse;
pub(crate) mod spelling;
mod value;

use std::fmt;

pub use eval::rand_unit;
pub use value::Value;

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

/// A variable an expression can read: a thread coordinate (`tid`, `lane`,
/// `warp`, `block`), a launch dimension (`ntid`, `nthreads`, `nblocks`), or
/// the element index `i` of a buffer being initialised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Var {
    Tid,
    Lane,
    Warp,
    Block,
    Ntid,
    Nthreads,
    Nblocks,
    I,
}

impl Var {
    /// Every variable, in [`Var::index`] order.
    pub const ALL: [Var; 8] = [
        Var::Tid,
        Var::Lane,
        Var::Warp,
        Var::Block,
        Var::Ntid,
        Var::Nthreads,
        Var::Nblocks,
        Var::I,
    ];

    /// The name an expression uses for it.
    pub fn name(self) -> &'static str {
        match self {
            Var::Tid => "tid",
            Var::Lane => "lane",
            Var::Warp => "warp",
            Var::Block => "block",
            Var::Ntid => "ntid",
            Var::Nthreads => "nthreads",
            Var::Nblocks => "nblocks",
            Var::I => "i",
        }
    }

    /// The variable an expression names `name`, if any.
    pub fn from_name(name: &str) -> Option<Var> {
        Var::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Position in [`Var::ALL`] and in an [`Env`].
    fn index(self) -> usize {
        self as usize
    }

    /// Bit of this variable in a use mask.
    fn bit(self) -> u16 {
        1 << self.index()
    }
}

/// The identifiers an expression may use where it is written, and what
/// `rand(seed)` uses as its index there.
///
/// - [`Vars::inputs`]: `tid lane warp block ntid nthreads nblocks`; rand index `tid`.
/// - [`Vars::buffer_init`]: `i ntid nthreads nblocks`; rand index `i`.
/// - [`Vars::constants`]: `ntid nthreads nblocks`; rand index 0.
///
/// Each can add named constants ([`Vars::with_name`]), which is how buffer
/// names resolve to their base addresses.
#[derive(Debug, Clone, PartialEq)]
pub struct Vars {
    allowed: u16,
    names: Vec<(String, i64)>,
    rand_index: Option<Var>,
    /// Where the expression is written, for messages ("an input").
    place: &'static str,
}

impl Vars {
    /// Per-thread `inputs:` values.
    pub fn inputs() -> Vars {
        Vars::new(
            &[
                Var::Tid,
                Var::Lane,
                Var::Warp,
                Var::Block,
                Var::Ntid,
                Var::Nthreads,
                Var::Nblocks,
            ],
            Some(Var::Tid),
            "an input",
        )
    }

    /// A buffer's `init:` expression, evaluated per element `i`.
    pub fn buffer_init() -> Vars {
        Vars::new(
            &[Var::I, Var::Ntid, Var::Nthreads, Var::Nblocks],
            Some(Var::I),
            "a buffer init",
        )
    }

    /// A `constants:` value, evaluated once.
    pub fn constants() -> Vars {
        Vars::new(
            &[Var::Ntid, Var::Nthreads, Var::Nblocks],
            None,
            "a constant",
        )
    }

    /// A custom context: `allowed` variables, the variable `rand` uses as its
    /// index (`None`: 0), and a noun phrase for messages ("an input").
    pub fn new(allowed: &[Var], rand_index: Option<Var>, place: &'static str) -> Vars {
        Vars {
            allowed: allowed.iter().fold(0, |m, v| m | v.bit()),
            names: Vec::new(),
            rand_index,
            place,
        }
    }

    /// Adds a named constant (a buffer name and its base address). Names
    /// should be unique and not a variable's; the first one added wins.
    pub fn with_name(mut self, name: impl Into<String>, value: i64) -> Vars {
        self.names.push((name.into(), value));
        self
    }

    /// Whether `var` may be used here.
    pub fn allows(&self, var: Var) -> bool {
        self.allowed & var.bit() != 0
    }

    /// The value of a named constant.
    pub(crate) fn lookup(&self, name: &str) -> Option<i64> {
        self.names.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    pub(crate) fn rand_index(&self) -> Option<Var> {
        self.rand_index
    }

    pub(crate) fn place(&self) -> &'static str {
        self.place
    }

    /// Every name valid here: variables, named constants, `true`, `false`,
    /// `rand`.
    pub(crate) fn known_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Var::ALL
            .iter()
            .filter(|v| self.allows(**v))
            .map(|v| v.name())
            .collect();
        out.extend(self.names.iter().map(|(n, _)| n.as_str()));
        out.extend(["true", "false", "rand"]);
        out
    }

    /// The variables allowed here, comma-separated, for messages.
    pub(crate) fn allowed_list(&self) -> String {
        let vars: Vec<&str> = Var::ALL
            .iter()
            .filter(|v| self.allows(**v))
            .map(|v| v.name())
            .collect();
        vars.join(", ")
    }
}

/// The variable values one evaluation sees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Env {
    values: [i64; 8],
}

impl Env {
    /// Every variable 0.
    pub fn new() -> Env {
        Env::default()
    }

    /// Sets one variable.
    pub fn set(&mut self, var: Var, value: i64) {
        if let Some(slot) = self.values.get_mut(var.index()) {
            *slot = value;
        }
    }

    /// Builder form of [`Env::set`].
    pub fn with(mut self, var: Var, value: i64) -> Env {
        self.set(var, value);
        self
    }

    /// One variable's value.
    pub fn get(&self, var: Var) -> i64 {
        self.values.get(var.index()).copied().unwrap_or(0)
    }

    /// The launch dimensions alone (`ntid`, `nthreads`, `nblocks`), as a
    /// constant or a buffer init sees them.
    pub fn launch(ntid: u32, nthreads: u64) -> Env {
        Env::new()
            .with(Var::Ntid, i64::from(ntid))
            .with(Var::Nthreads, nthreads as i64)
            .with(
                Var::Nblocks,
                nthreads.checked_div(u64::from(ntid)).unwrap_or(0) as i64,
            )
    }

    /// A thread's view. Blocks are all `ntid` threads, so `nblocks` is
    /// `nthreads / ntid`.
    pub fn thread(t: &ThreadCtx) -> Env {
        Env::launch(t.ntid, t.nthreads)
            .with(Var::Tid, t.tid as i64)
            .with(Var::Lane, i64::from(t.lane))
            .with(Var::Warp, t.warp as i64)
            .with(Var::Block, t.block as i64)
    }
}

/// A syntax or name error in an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// Where the offending text starts, in characters from the start of the
    /// expression (not bytes, so it maps straight onto a column).
    pub offset: usize,
    /// Length of the offending text in characters (0 at the end).
    pub len: usize,
    pub message: String,
    /// What was expected there, e.g. "an operand".
    pub expected: Option<String>,
    pub hint: Option<String>,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at offset {}: {}", self.offset, self.message)?;
        if let Some(h) = &self.hint {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ExprError {}

/// An error evaluating an expression (division by zero, bitwise operator on
/// a float), with the operator's position in characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    pub offset: usize,
    pub len: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(h) = &self.hint {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for EvalError {}

/// What the bits of an [`Expr::eval_run`] hold: every value of a run is
/// of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// `i64` bits, each a [`Value::Int`].
    Int,
    /// `f64` bits, each a [`Value::Float`].
    Float,
}

impl Run {
    /// The value bits `bits` of this kind stand for.
    #[inline(always)]
    pub fn value(self, bits: u64) -> Value {
        match self {
            Run::Int => Value::Int(bits as i64),
            Run::Float => Value::Float(f64::from_bits(bits)),
        }
    }
}

/// A parsed expression, ready to evaluate many times.
///
/// It is a compact tree in one vector (children before parents), evaluated
/// without allocating, because inputs are evaluated once per thread.
#[derive(Clone, PartialEq)]
pub struct Expr {
    src: String,
    code: ast::Code,
    /// The same expression as one chain of constant operations, when it is
    /// one (the common `init:` and `inputs:` forms): evaluated without
    /// walking the tree, with the interpreter's values.
    spine: Option<eval::Spine>,
}

impl Expr {
    /// Parses `src`, allowing the identifiers `vars` allows.
    pub fn parse(src: &str, vars: &Vars) -> Result<Expr, ExprError> {
        let code = parse::parse(src, vars)?;
        let spine = eval::Spine::of(&code);
        Ok(Expr {
            src: src.to_string(),
            code,
            spine,
        })
    }

    /// Evaluates with the variable values of `env`.
    #[inline]
    pub fn eval(&self, env: &Env) -> Result<Value, EvalError> {
        if let Some(v) = self.spine.as_ref().and_then(|s| s.eval(&self.code, env)) {
            return Ok(v);
        }
        self.interpret(env)
    }

    /// Evaluates at `out.len()` consecutive points at once, the common
    /// `init:` and `inputs:` forms step by step over all of them: at point
    /// `k`, the variables of `advancing` have their `env` value plus `k`
    /// (a buffer's `i`; a warp's `tid` and `lane`), the others their `env`
    /// value. The values go into `out` as bits, and the result says which
    /// kind they all are: [`Run::Float`] (`f64` bits) or [`Run::Int`]
    /// (`i64` bits), each the value [`Expr::eval`] gives at that point.
    ///
    /// `None` when the expression is not such a chain, or some point could
    /// fail: evaluate point by point then, with [`Expr::eval`].
    pub fn eval_run(&self, env: &Env, advancing: &[Var], out: &mut [u64]) -> Option<Run> {
        let mask = advancing.iter().fold(0, |m, v| m | v.bit());
        let float = self.spine.as_ref()?.eval_run(&self.code, env, mask, out)?;
        Some(if float { Run::Float } else { Run::Int })
    }

    /// [`Expr::eval`] by walking the tree: the reference the chain form
    /// is held to, and the source of every evaluation error.
    pub fn interpret(&self, env: &Env) -> Result<Value, EvalError> {
        eval::eval(&self.code, &self.src, env)
    }

    /// Whether no evaluation can fail, for any values of the variables (a
    /// chain of operations none of which has an error for its operands):
    /// loading need not try every thread.
    pub fn never_fails(&self) -> bool {
        self.spine.as_ref().is_some_and(eval::Spine::never_fails)
    }

    /// Whether [`Expr::eval`] takes the chain form.
    pub fn is_chain(&self) -> bool {
        self.spine.is_some()
    }

    /// The text it was parsed from.
    pub fn source(&self) -> &str {
        &self.src
    }

    /// Whether the value can depend on `var` (directly, or as the index of
    /// `rand`).
    pub fn uses(&self, var: Var) -> bool {
        self.code.uses & var.bit() != 0
    }

    /// Whether the value is the same wherever it is evaluated.
    pub fn is_constant(&self) -> bool {
        self.code.uses == 0
    }
}

// The tree is noise in a `Scenario` dump; the source says it all.
impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Expr").field(&self.src).finish()
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.src)
    }
}

#[cfg(test)]
mod tests;
