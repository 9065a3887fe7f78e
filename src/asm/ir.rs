//! The decoded program: what the assembler produces and the engine executes.
//!
//! Each instruction is fully typed here (registers, predicates, immediates,
//! memory references), so the engine never re-reads operand text.

use std::fmt;

pub use crate::isa::operand::{
    AtomOp, Cmp, Combine, FCmp, MemRef, MufuOp, MulMode, PT, PredSrc, RZ, ReduxOp, RegSrc, Round,
    ShflMode, SpecialReg, Src, UNIFORM_REGS, UPT, URZ, VoteMode, Width,
};
pub use crate::isa::{Class, Op};

/// Reconvergence pc meaning "the paths only meet at EXIT" (the virtual exit).
pub const EXIT_PC: u32 = u32::MAX;
/// Number of per-warp scoreboards (dependency barriers) SB0..SB5.
pub const SCOREBOARDS: usize = 6;
/// Number of per-warp convergence barriers B0..B15.
pub const CONVERGENCE_BARRIERS: usize = 16;

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
/// tracking: registers are 0..=254, predicates are `PRED_BASE + n`,
/// uniform registers `UREG_BASE + n`, uniform predicates `UPRED_BASE + n`.
pub type Resource = u16;
/// Offset of predicates in the [`Resource`] numbering.
pub const PRED_BASE: Resource = 256;
/// Offset of uniform registers `UR0`..`UR63` in the [`Resource`] numbering.
pub const UREG_BASE: Resource = PRED_BASE + 8;
/// Offset of uniform predicates `UP0`..`UP6` in the [`Resource`] numbering.
pub const UPRED_BASE: Resource = UREG_BASE + 64;
/// Every [`Resource`] is below this.
pub const RESOURCES: usize = UPRED_BASE as usize + 8;

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
    /// The targets an indirect branch (`BRX`) lists, in the order written;
    /// empty for every other instruction, and for a `BRX` that lists none.
    pub targets: Vec<u32>,
}

impl Instr {
    /// The opcode without modifiers (`ISETP` for `ISETP.GE.AND`).
    pub fn opcode(&self) -> &str {
        self.mnemonic.split('.').next().unwrap_or(&self.mnemonic)
    }

    /// True for instructions that count as branches (`BRA`, `BREAK`, `CALL`,
    /// `RET`, `BRX`).
    pub fn is_branch(&self) -> bool {
        matches!(
            self.op,
            Op::Bra { .. } | Op::Break { .. } | Op::Call { .. } | Op::Ret { .. } | Op::Brx { .. }
        )
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
    /// The architecture the program was compiled for (`90` for sm_90), as
    /// a listing or the scenario's `arch:` says; `None` for hand-written
    /// programs.
    pub arch: Option<u32>,
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
