//! The operands of an instruction, typed: registers with their modifiers,
//! predicates, immediates, constant-bank entries, memory references, and
//! the small enumerations opcode modifiers select (comparison, rounding,
//! access width, ...).

use std::fmt;

/// `RZ`, the register that reads as zero and discards writes.
pub const RZ: u8 = 255;
/// `PT`, the predicate that is always true and discards writes.
pub const PT: u8 = 7;
/// `URZ`, the uniform register that reads as zero and discards writes.
pub const URZ: u8 = 255;
/// Uniform registers `UR0`..`UR63` a warp has (`URZ` besides).
pub const UNIFORM_REGS: usize = 64;
/// `UPT`, the uniform predicate that is always true and discards writes.
pub const UPT: u8 = 7;
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
        (self.index == PT || self.index == UNIFORM_PRED + UPT) && !self.negate
    }

    /// Uniform predicate `p` (`UP0`..`UP6`, `UPT`) where a guard or a
    /// branch condition is read: its index moved up by [`UNIFORM_PRED`].
    pub fn uniform(p: PredSrc) -> PredSrc {
        PredSrc {
            index: UNIFORM_PRED + (p.index & PT),
            negate: p.negate,
        }
    }

    /// The uniform predicate this names (index `0..=UPT`), if it names one.
    pub fn as_uniform(self) -> Option<PredSrc> {
        // `then`, not `then_some`: the index is only moved down when it
        // is a uniform one (below it the subtraction would overflow).
        (self.index >= UNIFORM_PRED).then(|| PredSrc {
            index: (self.index - UNIFORM_PRED) & PT,
            negate: self.negate,
        })
    }
}

/// Where a guard (`@UP0`) or a branch condition (`BRA.U !UP0, target`)
/// may be a per-lane or a uniform predicate, a [`PredSrc`] index from
/// `UNIFORM_PRED` on names uniform predicate `UP(index - UNIFORM_PRED)`
/// (`UNIFORM_PRED + UPT`: `UPT`). Every lane reads the warp's one value.
pub const UNIFORM_PRED: u8 = 8;

impl fmt::Display for PredSrc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negate {
            f.write_str("!")?;
        }
        if let Some(u) = self.as_uniform() {
            return if u.index == UPT {
                f.write_str("UPT")
            } else {
                write!(f, "UP{}", u.index)
            };
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
    /// A uniform register `UR0`..`UR63` (`URZ`: 255), one value for the
    /// whole warp, with the same modifiers a register source takes.
    UReg(RegSrc),
}

impl Src {
    pub fn reg(self) -> Option<u8> {
        match self {
            Src::Reg(r) if r.reg != RZ => Some(r.reg),
            _ => None,
        }
    }

    /// The uniform register this source reads, if any (not `URZ`).
    pub fn ureg(self) -> Option<u8> {
        match self {
            Src::UReg(r) if r.reg != URZ => Some(r.reg),
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
    TidY,
    TidZ,
    CtaidY,
    CtaidZ,
    /// The block's rank in its cluster: 0 (no clusters are modelled).
    CgaCtaId,
    /// Low word of the cycle counter: the issue cycle.
    ClockLo,
    /// High word of the cycle counter.
    ClockHi,
    /// The 64-bit cycle counter (`CS2R Rd, SR_CLOCKLO` reads the pair).
    Clock,
    /// `SRZ`: reads zero (`CS2R Rd, SRZ` clears a pair).
    Zero,
    /// Lanes below this one, as a mask (`SR_LTMASK`); and the others.
    LtMask,
    LeMask,
    GtMask,
    GeMask,
    EqMask,
}

impl SpecialReg {
    pub const ALL: [(&'static str, SpecialReg); 20] = [
        ("SR_TID.X", SpecialReg::TidX),
        ("SR_CTAID.X", SpecialReg::CtaidX),
        ("SR_NTID.X", SpecialReg::NtidX),
        ("SR_NCTAID.X", SpecialReg::NctaidX),
        ("SR_LANEID", SpecialReg::LaneId),
        ("SR_VIRTUALWARPID", SpecialReg::WarpId),
        ("SR_TID.Y", SpecialReg::TidY),
        ("SR_TID.Z", SpecialReg::TidZ),
        ("SR_CTAID.Y", SpecialReg::CtaidY),
        ("SR_CTAID.Z", SpecialReg::CtaidZ),
        ("SR_CGACTAID", SpecialReg::CgaCtaId),
        ("SR_CLOCKLO", SpecialReg::ClockLo),
        ("SR_CLOCKHI", SpecialReg::ClockHi),
        ("SR_CLOCK", SpecialReg::Clock),
        ("SRZ", SpecialReg::Zero),
        ("SR_LTMASK", SpecialReg::LtMask),
        ("SR_LEMASK", SpecialReg::LeMask),
        ("SR_GTMASK", SpecialReg::GtMask),
        ("SR_GEMASK", SpecialReg::GeMask),
        ("SR_EQMASK", SpecialReg::EqMask),
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

/// A memory operand `[Rn+imm]`, `[Rn+URm+imm]` or `[Rn.64+imm]`. For a
/// hand-written program the high word of a pair is ignored (warpstep
/// addresses are 32-bit); for a listing (`Program::arch` set) a global
/// access forms the 64-bit address and maps it through
/// `engine::DEVICE_WINDOW`. A `desc[URn]` descriptor in front is read and
/// ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemRef {
    pub base: u8,
    pub offset: i32,
    pub wide: bool,
    /// A uniform register added to the address (`URZ`: none).
    pub ubase: u8,
    /// `[Rn.X4]`: the register scaled by 4 (also 8, 16; 1: unscaled).
    pub scale: u8,
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

/// What an atomic (`ATOMG`, `ATOMS`, `RED`) does to the word in memory:
/// `new = f(old, b, c)`; the old value is what a destination receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomOp {
    Add,
    /// `old >= b ? 0 : old + 1` (CUDA `atomicInc`).
    Inc,
    /// `old == 0 || old > b ? b : old - 1` (CUDA `atomicDec`).
    Dec,
    Exch,
    /// `old == b ? c : old`.
    Cas,
    /// `ATOMS.CAST.SPIN`: `old == b ? c : old` as `Cas`, but the
    /// destination receives 1 when the word was stored and 0 when it
    /// held another value (the lane's CAS loop goes round again); `p` is
    /// a predicate destination receiving the same (`PT` when the
    /// destination is a register).
    CasSpin {
        p: u8,
    },
    Min {
        signed: bool,
    },
    Max {
        signed: bool,
    },
    And,
    Or,
    Xor,
    /// `ATOMS.POPC.INC`: each lane that is on adds one.
    PopcInc,
}

/// `REDUX` operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    Sum,
    Min,
    Max,
    And,
    Or,
    Xor,
}
