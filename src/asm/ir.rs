//! The decoded program: what the assembler produces and the engine executes.
//!
//! Each instruction is fully typed here (registers, predicates, immediates,
//! memory references), so the engine never re-reads operand text.

use std::fmt;

/// `RZ`, the register that reads as zero and discards writes.
pub const RZ: u8 = 255;
/// `PT`, the predicate that is always true and discards writes.
pub const PT: u8 = 7;
/// Reconvergence pc meaning "the paths only meet at EXIT" (the virtual exit).
pub const EXIT_PC: u32 = u32::MAX;
/// Number of per-warp scoreboards (dependency barriers) SB0..SB5.
pub const SCOREBOARDS: usize = 6;
/// Number of per-warp convergence barriers B0..B15.
pub const CONVERGENCE_BARRIERS: usize = 16;

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
    Const { bank: u8, offset: u32 },
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

/// The operation of one instruction, with typed operands.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Mov {
        d: u8,
        a: Src,
    },
    S2r {
        d: u8,
        sr: SpecialReg,
    },
    /// `SEL`/`FSEL`: `d = p ? a : b`.
    Sel {
        d: u8,
        a: Src,
        b: Src,
        p: PredSrc,
    },
    /// `d = a + b + c` (+ carry-ins with `.X`); carry-outs to `carry`.
    Iadd3 {
        d: u8,
        carry: [u8; 2],
        a: Src,
        b: Src,
        c: Src,
        carry_in: [PredSrc; 2],
    },
    /// `IMAD`/`IMUL` (IMUL has `c = RZ`).
    Imad {
        d: u8,
        a: Src,
        b: Src,
        c: Src,
        mode: MulMode,
        signed: bool,
    },
    Isetp {
        cmp: Cmp,
        unsigned: bool,
        combine: Combine,
        p: u8,
        q: u8,
        a: Src,
        b: Src,
        c: PredSrc,
    },
    /// `LOP3.LUT [P,] d, a, b, c, lut, pc`: bitwise function by truth table;
    /// the optional predicate output is `result != 0`.
    Lop3 {
        p: u8,
        d: u8,
        a: Src,
        b: Src,
        c: Src,
        lut: u8,
    },
    Shl {
        d: u8,
        a: Src,
        b: Src,
    },
    Shr {
        d: u8,
        a: Src,
        b: Src,
        signed: bool,
    },
    /// `IMNMX d, a, b, p`: min when `p` is true, max otherwise (as SASS).
    Imnmx {
        d: u8,
        a: Src,
        b: Src,
        p: PredSrc,
        unsigned: bool,
    },
    Iabs {
        d: u8,
        a: Src,
    },
    /// `LEA d, a, b, s`: `d = (a << s) + b`; `.HI`: `d = hi32(a:ahi << s) + b`.
    Lea {
        d: u8,
        carry: u8,
        a: Src,
        b: Src,
        hi_src: Src,
        shift: u32,
        hi: bool,
        carry_in: PredSrc,
    },
    Popc {
        d: u8,
        a: Src,
    },
    Fadd {
        d: u8,
        a: Src,
        b: Src,
    },
    Fmul {
        d: u8,
        a: Src,
        b: Src,
    },
    Ffma {
        d: u8,
        a: Src,
        b: Src,
        c: Src,
    },
    Fsetp {
        cmp: FCmp,
        combine: Combine,
        p: u8,
        q: u8,
        a: Src,
        b: Src,
        c: PredSrc,
    },
    /// `FMNMX d, a, b, p`: min when `p` is true, max otherwise.
    Fmnmx {
        d: u8,
        a: Src,
        b: Src,
        p: PredSrc,
    },
    I2f {
        d: u8,
        a: Src,
        unsigned: bool,
    },
    F2i {
        d: u8,
        a: Src,
        unsigned: bool,
        round: Round,
    },
    Mufu {
        d: u8,
        a: Src,
        func: MufuOp,
    },
    /// Global load into `d` (and following registers for wide widths).
    Ldg {
        d: u8,
        addr: MemRef,
        width: Width,
    },
    /// Global store of `s` (and following registers).
    Stg {
        addr: MemRef,
        s: u8,
        width: Width,
    },
    Lds {
        d: u8,
        addr: MemRef,
        width: Width,
    },
    Sts {
        addr: MemRef,
        s: u8,
        width: Width,
    },
    /// `SHFL.mode p, d, a, b, c`: read `a` from the lane chosen by `b`;
    /// `c` is the clamp/segment value as in PTX `shfl.sync`.
    Shfl {
        p: u8,
        d: u8,
        a: u8,
        b: Src,
        c: Src,
        mode: ShflMode,
    },
    /// `VOTE.mode d, p, src`: `d` receives the ballot, `p` the vote.
    Vote {
        mode: VoteMode,
        d: u8,
        p: u8,
        src: PredSrc,
    },
    Bra {
        target: u32,
    },
    Bssy {
        barrier: u8,
        target: u32,
    },
    Bsync {
        barrier: u8,
    },
    Break {
        barrier: u8,
    },
    Warpsync {
        mask: Src,
    },
    BarSync {
        id: u32,
    },
    /// `DEPBAR.LE SBn, k`: wait until scoreboard `sb` counts at most `le`.
    Depbar {
        sb: u8,
        le: u8,
    },
    Exit,
    Nop,
}

/// Which latency and scoreboard class an instruction belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Fixed latency (`alu`), tracked by the stall count.
    Alu,
    /// Multi-function unit (`sfu`), short scoreboard, throttled pipe.
    Sfu,
    /// Shared memory and shuffles (`shared`), short scoreboard.
    Shared,
    /// Global memory (`global`), long scoreboard.
    Global,
    /// Control flow and synchronisation: no result.
    Control,
}

impl Class {
    /// True for classes whose results are tracked by scoreboards.
    pub fn variable_latency(self) -> bool {
        matches!(self, Class::Sfu | Class::Shared | Class::Global)
    }

    /// True for the long scoreboard (the producer leaves the SM).
    pub fn is_long(self) -> bool {
        matches!(self, Class::Global)
    }
}

/// The control code of one instruction (`[B------:R-:W-:-:S01]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Control {
    /// Bit n set: wait until scoreboard n is zero before issuing.
    pub wait_mask: u8,
    /// Scoreboard released once the source operands have been read.
    pub read_barrier: Option<u8>,
    /// Scoreboard released when the result is written.
    pub write_barrier: Option<u8>,
    /// Yield hint: let another warp (or another `its` group) go next.
    pub yield_hint: bool,
    /// Cycles before this warp's next instruction may issue (at least 1).
    pub stall: u8,
}

impl Default for Control {
    fn default() -> Self {
        Control {
            wait_mask: 0,
            read_barrier: None,
            write_barrier: None,
            yield_hint: false,
            stall: 1,
        }
    }
}

impl fmt::Display for Control {
    /// Formats in the `[B------:R-:W-:-:S01]` spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[B")?;
        for n in 0..SCOREBOARDS as u8 {
            if self.wait_mask & (1 << n) != 0 {
                write!(f, "{n}")?;
            } else {
                f.write_str("-")?;
            }
        }
        let bar = |b: Option<u8>| b.map_or("-".to_string(), |v| v.to_string());
        write!(
            f,
            ":R{}:W{}:{}:S{:02}]",
            bar(self.read_barrier),
            bar(self.write_barrier),
            if self.yield_hint { "Y" } else { "-" },
            self.stall
        )
    }
}

/// A register or predicate named by an instruction, for dependence
/// tracking: registers are 0..=254, predicates are `PRED_BASE + n`.
pub type Resource = u16;
/// Offset of predicates in the [`Resource`] numbering.
pub const PRED_BASE: Resource = 256;

/// One assembled instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instr {
    /// 1-based line in the program text.
    pub line: u32,
    /// 1-based column of the instruction's first character (after any
    /// control code) in that line.
    pub column: u32,
    /// The instruction as written, without control code, address comment,
    /// trailing comment or `;`.
    pub text: String,
    /// Opcode with modifiers as written (`FFMA`, `ISETP.GE.AND`), upper case.
    pub mnemonic: String,
    /// Guard predicate (`PT` when none).
    pub guard: PredSrc,
    pub op: Op,
    pub class: Class,
    pub control: Control,
    /// True when the control code was written in the source, false when the
    /// assembler derived it.
    pub explicit_control: bool,
    /// Registers and predicates written (wide results expanded).
    pub defs: Vec<Resource>,
    /// Registers and predicates read, the guard included.
    pub uses: Vec<Resource>,
}

impl Instr {
    /// The opcode without modifiers (`ISETP` for `ISETP.GE.AND`).
    pub fn opcode(&self) -> &str {
        self.mnemonic.split('.').next().unwrap_or(&self.mnemonic)
    }

    /// True for instructions that count as branches (`BRA`, `BREAK`).
    pub fn is_branch(&self) -> bool {
        matches!(self.op, Op::Bra { .. } | Op::Break { .. })
    }
}

/// A label defined in the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub name: String,
    /// Index of the instruction the label names.
    pub target: u32,
    pub line: u32,
}

/// An assembled program with its control-flow facts.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub instrs: Vec<Instr>,
    pub labels: Vec<Label>,
    /// Registers a warp needs: the highest register named, plus one.
    pub num_regs: u32,
    /// Per instruction: the reconvergence pc a divergent branch there uses
    /// (the immediate post-dominator of its basic block), or [`EXIT_PC`].
    pub reconvergence: Vec<u32>,
    /// Basic blocks as `[start, end)` instruction ranges.
    pub blocks: Vec<(u32, u32)>,
}

impl Program {
    /// The SASS-style byte address of instruction `index` (16 bytes each).
    pub fn address(index: u32) -> u32 {
        index.wrapping_mul(16)
    }

    /// The label naming instruction `index`, if any.
    pub fn label_at(&self, index: u32) -> Option<&str> {
        self.labels
            .iter()
            .find(|l| l.target == index)
            .map(|l| l.name.as_str())
    }
}
