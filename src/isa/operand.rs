//! The operands of an instruction, typed: registers with their modifiers,
//! predicates, immediates, constant-bank entries, memory references, and
//! the small enumerations opcode modifiers select (comparison, rounding,
//! access width, ...).

use std::fmt;

/// `RZ`, the register that reads as zero and discards writes.
pub const RZ: u8 = 255;
/// `PT`, the predicate that is always true and discards writes.
pub const PT: u8 = 7;
/// A predicate operand: `P0`..`P6` or `PT`, optionally negated (`!P0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PredSrc {
    pub index: u8,
    pub negate: bool,
}

impl PredSrc {
    /// `PT`: always true.
    pub const TRUE: PredSrc = PredSrc {
        index: PT,
        negate: false,
    };

    /// True when this predicate is the constant `PT` (not negated).
    pub fn is_always_true(self) -> bool {
        self.index == PT && !self.negate
    }
}

impl fmt::Display for PredSrc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negate {
            f.write_str("!")?;
        }
        if self.index == PT {
            f.write_str("PT")
        } else {
            write!(f, "P{}", self.index)
        }
    }
}

/// A register source with the operand modifiers SASS allows on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegSrc {
    pub reg: u8,
    /// `-R1`: arithmetic negation (two's complement for integer ops, sign
    /// flip for float ops).
    pub neg: bool,
    /// `|R1|`: absolute value (float ops).
    pub abs: bool,
    /// `~R1`: bitwise not (integer ops).
    pub not: bool,
}

impl RegSrc {
    pub fn plain(reg: u8) -> Self {
        RegSrc {
            reg,
            neg: false,
            abs: false,
            not: false,
        }
    }
}

/// A value operand: register, immediate or constant-bank entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Src {
    Reg(RegSrc),
    /// Raw 32-bit pattern (float immediates of F-ops are already f32 bits).
    Imm(u32),
    /// `c[bank][offset]`, resolved against the scenario's constant bank.
    Const {
        bank: u8,
        offset: u32,
    },
}

impl Src {
    pub fn reg(self) -> Option<u8> {
        match self {
            Src::Reg(r) if r.reg != RZ => Some(r.reg),
            _ => None,
        }
    }
}

/// Special registers readable with `S2R`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    TidX,
    CtaidX,
    NtidX,
    NctaidX,
    LaneId,
    WarpId,
}

impl SpecialReg {
    pub const ALL: [(&'static str, SpecialReg); 6] = [
        ("SR_TID.X", SpecialReg::TidX),
        ("SR_CTAID.X", SpecialReg::CtaidX),
        ("SR_NTID.X", SpecialReg::NtidX),
        ("SR_NCTAID.X", SpecialReg::NctaidX),
        ("SR_LANEID", SpecialReg::LaneId),
        ("SR_VIRTUALWARPID", SpecialReg::WarpId),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map(|(n, _)| *n)
            .unwrap_or("SR_?")
    }
}

/// Integer comparison of `ISETP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Float comparison of `FSETP`: ordered (false on NaN) or unordered
/// (`LTU`..: true on NaN), plus `NUM` and `NAN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FCmp {
    Ordered(Cmp),
    Unordered(Cmp),
    Num,
    Nan,
}

/// How a set-predicate combines its comparison with the third predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combine {
    And,
    Or,
    Xor,
}

/// Multi-function unit operations (`MUFU.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MufuOp {
    Ex2,
    Lg2,
    Rcp,
    Rsq,
    Sqrt,
    Sin,
    Cos,
    /// `MUFU.RCP64H`: the high word of an f64 reciprocal (see `semantics::rcp64h`).
    Rcp64h,
}

/// `IMAD`/`IMUL` result selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MulMode {
    /// Low 32 bits.
    Lo,
    /// High 32 bits of the 64-bit product.
    Hi,
    /// 64-bit result into a register pair; the addend is a pair too.
    Wide,
}

/// Rounding of `F2I`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Round {
    Nearest,
    Trunc,
    Floor,
    Ceil,
}

/// Access width of a load or store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    U8,
    S8,
    U16,
    S16,
    B32,
    B64,
    B128,
}

impl Width {
    /// Bytes moved per lane.
    pub fn bytes(self) -> u32 {
        match self {
            Width::U8 | Width::S8 => 1,
            Width::U16 | Width::S16 => 2,
            Width::B32 => 4,
            Width::B64 => 8,
            Width::B128 => 16,
        }
    }

    /// Registers written or read per lane.
    pub fn regs(self) -> u8 {
        match self {
            Width::B64 => 2,
            Width::B128 => 4,
            _ => 1,
        }
    }
}

/// A memory operand `[Rn+imm]` (or `[Rn.64+imm]`, where the high word of
/// the pair is ignored: warpstep addresses are 32-bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemRef {
    pub base: u8,
    pub offset: i32,
    pub wide: bool,
}

/// `SHFL` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Bfly,
}

/// `VOTE` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VoteMode {
    All,
    Any,
    Eq,
}
