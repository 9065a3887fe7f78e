//! The instruction set: one table entry per opcode.
//!
//! An entry gives an opcode's operands (the [`Op`] variant's fields), its
//! spellings with the usage line error hints show, its [`Class`] (which
//! sets its latency and scoreboard), how the assembler types its
//! modifiers and operands, the registers and predicates it reads and
//! writes, and how it executes: over the lanes through its function in
//! [`semantics`], in the memory system, or as a [`ControlOp`], a
//! convergence or barrier behaviour the engine carries out.
//!
//! The table is a macro, `opcode_table!`, that hands every entry to a
//! consumer macro: `isa` builds [`Op`], [`Op::class`], [`Op::unit`],
//! [`OPCODES`] and [`usage`] from it; `asm::opcodes` the typing of an
//! instruction, `asm::deps` its read and write sets, `engine::exec` the
//! `match` that runs it. A macro rather than a trait, because a trait
//! needs a type per opcode, so [`Op`] would become an enum of wrappers
//! the engine could no longer match on by field, and dispatch through it
//! would be a `match` written by hand anyway; the macro writes that
//! `match` (static dispatch, inlined into the engine's issue path: no
//! function pointers, nothing `dyn`) and every other one, so a missing
//! part of an entry is a compile error rather than a forgotten file.
//!
//! Adding an opcode:
//! 1. Add an entry to `opcode_table!`: fields, spellings, class.
//! 2. `decode`: read its modifiers (`m`) and operands (`o`) into the fields.
//! 3. `regs`: its reads and writes (`rw.def`, `rw.src`, `rw.pred`, ...).
//! 4. `exec`: `lanes { x.SHAPE(.., semantics::NAME) }`, `memory` or `control`.
//! 5. Write `semantics::NAME` over lane values, with a unit test.
//!
//! The property-test oracle (`tests/properties.rs`) does not read this
//! table: it is a second, independent definition to check this one by.

pub mod operand;
pub mod semantics;

use semantics::ShfKind;

use operand::{
    AtomOp, Cmp, Combine, FCmp, MemRef, MufuOp, MulMode, PredSrc, ReduxOp, Round, ShflMode,
    SpecialReg, Src, VoteMode, Width,
};

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

/// Which part of the SM carries an opcode out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// The lanes' datapath: `engine::exec` runs its semantics function.
    Lanes,
    /// The load/store path: `engine::exec::memory_op`.
    Memory,
    /// The warp's sequencing: the engine's convergence model, barriers or
    /// scoreboards.
    Control(ControlOp),
}

/// The engine behaviour a control opcode takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlOp {
    /// `BRA`: the taken lanes move to the target; divergence if not all.
    Branch,
    /// `BSSY`: records a convergence barrier's reconvergence point.
    BarrierSetup,
    /// `BSYNC`: waits for the barrier's lanes, then reconverges.
    BarrierSync,
    /// `BREAK`: leaves a convergence barrier (the lanes stop counting).
    BarrierBreak,
    /// `BMOV`: moves a convergence barrier's lane mask to or from a register.
    BarrierMove,
    /// `CALL.REL.NOINC`: a jump to a function (the return address is in a
    /// register).
    Call,
    /// `RET.REL.NODEC`: each lane jumps to the address in its register.
    Return,
    /// `BRX`: each lane jumps to an address computed from its register.
    IndirectBranch,
    /// `WARPSYNC`: waits for the named lanes of the warp.
    WarpSync,
    /// `BAR.SYNC`: waits for every warp of the block.
    BlockBarrier,
    /// `DEPBAR.LE`: waits until a scoreboard counts down to a bound.
    ScoreboardWait,
    /// `EXIT`: the lanes finish.
    Exit,
    /// `NOP`: nothing.
    Nop,
}

/// The table of opcodes. `opcode_table!(consumer)` expands to
/// `consumer! { binders (..); entries }`: the binders are the names the
/// entries' code uses for what the consumer supplies (`opcode` spelling,
/// raw instruction `ins`, modifiers `m`, operands `o`, read/write sets
/// `rw`, lane datapath `x`), then one entry per opcode:
///
/// ```text
/// /// doc of the variant
/// Variant { field: Type, .. }
///     spell { "SPELLING" => "usage", .. }
///     class Alu | Sfu | Shared | Global | Control
///     decode { let field = o.dst()?; .. }
///     regs { rw.def(d); rw.src(a); .. }
///     exec lanes { x.shape(.., semantics::f) }
///        | memory { Global | Shared | Local, load | store, reg, addr, width }
///        | memory { Global | Shared, atomic op, reg, addr, width, b, c }
///        | control { ControlOp variant }
/// ```
///
/// Entries are in the order hints list opcodes in.
macro_rules! opcode_table {
    ($consumer:ident) => {
        $consumer! {
            binders (opcode, ins, m, o, rw, x);

            /// `MOV Rd, src`; `MOV.64 Rd, imm64` (`wide`) writes the pair
            /// `Rd`, `Rd+1` with the immediate's low and high words.
            Mov { d: u8, a: Src, hi: u32, wide: bool }
                spell { "MOV" => "MOV[.64] Rd, src" }
                class Alu
                decode {
                    let long = m.has("64");
                    let d = o.dst()?;
                    let hi = 0;
                    if long && let Some(v) = o.imm64()? {
                        check_pair_alignment(ins, d, Width::B64)?;
                        return Ok(Some(Op::Mov { d, a: Src::Imm(v as u32), hi: (v >> 32) as u32, wide: true }));
                    }
                    let a = o.isrc()?;
                    let wide = false;
                    if long {
                        // `MOV.64 R4, UR20`: a pair, as IMAD.WIDE.U32 of RZ, RZ
                        // and a 64-bit addend.
                        check_pair_alignment(ins, d, Width::B64)?;
                        let z = Src::Reg(RegSrc::plain(RZ));
                        return Ok(Some(Op::Imad { d, a: z, b: z, c: a, mode: MulMode::Wide, signed: false, carry_in: PredSrc { index: PT, negate: true } }));
                    }
                    // Older listings carry a lane mask (`MOV R0, R1, 0xf`): ignore it.
                    if matches!(o.peek().map(|x| &x.value), Some(RawOperand::Int { .. })) {
                        o.next += 1;
                    }
                }
                regs { rw.def_group(d, if wide { 2 } else { 1 }); rw.src(a); }
                exec lanes {
                    x.copy(d, a);
                    if wide && d != RZ {
                        x.copy(d.saturating_add(1), Src::Imm(hi));
                    }
                }

            S2r { d: u8, sr: SpecialReg }
                spell { "S2R" => "S2R Rd, SR_TID.X" }
                class Alu
                decode {
                    let d = o.dst()?;
                    let sr = o.take("a special register")?;
                    let sr = match &sr.value {
                        RawOperand::Special(sr) => *sr,
                        _ => {
                            let mut e = o.wrong(sr, "a special register");
                            e.expected = Some(
                                "SR_TID.X, SR_CTAID.X, SR_NTID.X, SR_NCTAID.X, SR_LANEID or SR_VIRTUALWARPID"
                                    .into(),
                            );
                            return Err(e);
                        }
                    };
                }
                regs { rw.def(d); }
                exec lanes { x.s2r(d, sr) }

            /// `SEL`/`FSEL`: `d = p ? a : b`.
            /// `FSEL` reads its sources as floats: `-R0` flips the sign bit.
            Sel { d: u8, a: Src, b: Src, p: PredSrc, float: bool }
                spell { "SEL" => "SEL Rd, a, b, Pp", "FSEL" => "SEL Rd, a, b, Pp" }
                class Alu
                decode {
                    let d = o.dst()?;
                    let (a, b) = if opcode == "FSEL" {
                        (o.fsrc()?, o.fsrc()?)
                    } else {
                        (o.isrc()?, o.isrc()?)
                    };
                    let p = o.psrc()?;
                    let float = opcode == "FSEL";
                }
                regs { rw.def(d); rw.src(a); rw.src(b); rw.pred(p); }
                exec lanes { x.select(float, d, a, b, p, semantics::sel) }

            /// `d = a + b + c` (+ carry-ins with `.X`); carry-outs to `carry`.
            Iadd3 { d: u8, carry: [u8; 2], a: Src, b: Src, c: Src, carry_in: [PredSrc; 2] }
                spell { "IADD3" => "IADD3 Rd, [Pc,] a, b, c [, carry-in predicates with .X]" }
                class Alu
                decode {
                    let x = m.has("X");
                    let d = o.dst()?;
                    let mut carry = [PT, PT];
                    for slot in &mut carry {
                        if matches!(o.peek().map(|x| &x.value), Some(RawOperand::Pred(_))) {
                            *slot = o.pdst()?;
                        }
                    }
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                    let c = o.isrc()?;
                    let mut carry_in = [PredSrc {
                        index: PT,
                        negate: true,
                    }; 2];
                    if x {
                        for slot in &mut carry_in {
                            if o.peek().is_some() {
                                *slot = o.psrc()?;
                            }
                        }
                    }
                }
                regs {
                    rw.def(d);
                    carry.iter().for_each(|&p| rw.pdef(p));
                    rw.src(a);
                    rw.src(b);
                    rw.src(c);
                    carry_in.iter().for_each(|&p| rw.pred(p));
                }
                exec lanes {
                    if carry == [PT, PT] && x.pred_mask(carry_in[0]) | x.pred_mask(carry_in[1]) == 0 {
                        // No carries in or out: a plain three-way add.
                        x.map3(false, d, a, b, c, semantics::iadd3)
                    } else {
                        x.carry3(d, carry, a, b, c, carry_in, semantics::iadd3_carry)
                    }
                }

            /// `IMAD`/`IMUL` (IMUL has `c = RZ`).
            Imad { d: u8, a: Src, b: Src, c: Src, mode: MulMode, signed: bool, carry_in: PredSrc }
                spell {
                    "IMAD" => "IMAD[.WIDE|.HI][.U32][.X] Rd, a, b, c [, Pcarry]",
                    "IMUL" => "IMUL[.WIDE|.HI][.U32] Rd, a, b",
                }
                class Alu
                decode {
                    let mode = match m.take(&["WIDE", "HI"]) {
                        Some("WIDE") => MulMode::Wide,
                        Some(_) => MulMode::Hi,
                        None => MulMode::Lo,
                    };
                    let signed = m.take(&["U32", "S32"]) != Some("U32");
                    let with_carry = m.has("X");
                    // IMAD.MOV, IMAD.SHL and IMAD.IADD are IMAD spelled for the reader.
                    m.take(&["MOV", "SHL", "IADD"]);
                    let d = o.dst()?;
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                    let c = if opcode == "IMAD" {
                        o.isrc()?
                    } else {
                        Src::Reg(RegSrc::plain(RZ))
                    };
                    // IMAD.X adds a carry-in predicate (bit 32 of an earlier sum).
                    let carry_in = if with_carry && o.peek().is_some() {
                        o.psrc()?
                    } else {
                        PredSrc { index: PT, negate: true }
                    };
                }
                regs {
                    rw.pred(carry_in);
                    if mode == MulMode::Wide {
                        rw.def_group(d, 2);
                        rw.src_pair(c);
                    } else if mode == MulMode::Hi {
                        // The addend of IMAD.HI is a pair too: nvcc's
                        // division idiom adds `x << 32` through `Rc+1`.
                        rw.def(d);
                        rw.src_pair(c);
                    } else {
                        rw.def(d);
                        rw.src(c);
                    }
                    rw.src(a);
                    rw.src(b);
                }
                exec lanes {
                    match mode {
                        MulMode::Lo if x.pred_mask(carry_in) != 0 => x.carry3(
                            d,
                            [PT, PT],
                            a,
                            b,
                            c,
                            [carry_in, PredSrc { index: PT, negate: true }],
                            |a, b, c, ci, _| u64::from(semantics::imad_lo(a, b, c).wrapping_add(u32::from(ci))),
                        ),
                        MulMode::Lo => x.map3(false, d, a, b, c, semantics::imad_lo),
                        MulMode::Hi => x.wide3(d, a, b, c, signed, true, |a, b, c| semantics::imad_wide(signed, a, b, c)),
                        MulMode::Wide => x.wide3(d, a, b, c, signed, false, |a, b, c| semantics::imad_wide(signed, a, b, c)),
                    }
                }

            /// `ISETP.cmp.comb Pd, Pq, a, b, Pc`; with `.EX` (`extended`), `ex` is the
            /// predicate a compare of the low words left, `a` and `b` the
            /// high words of a 64-bit compare (`ISETP.EQ.U32.AND.EX P0, PT,
            /// R11, RZ, PT, P0`).
            Isetp { cmp: Cmp, unsigned: bool, combine: Combine, p: u8, q: u8, a: Src, b: Src, c: PredSrc, extended: bool, ex: PredSrc }
                spell { "ISETP" => "ISETP.LT.AND[.EX] Pd, Pq, a, b, Pc [, Plo with .EX]" }
                class Alu
                decode {
                    let cmp = cmp_of(need(m, ins, CMPS, "a comparison")?);
                    let unsigned = m.take(&["U32", "S32"]) == Some("U32");
                    let combine = combine(m, ins)?;
                    let extended = m.has("EX");
                    let p = o.pdst()?;
                    let q = o.pdst()?;
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                    let c = o.psrc()?;
                    let ex = if extended { o.psrc()? } else { PredSrc::TRUE };
                }
                regs {
                    rw.pdef(p);
                    rw.pdef(q);
                    rw.src(a);
                    rw.src(b);
                    rw.pred(c);
                    if extended {
                        rw.pred(ex);
                    }
                }
                exec lanes {
                    if extended {
                        x.icmp_setp_ex(combine, p, q, a, b, c, ex, |a, b, lo| {
                            semantics::icmp_ex(cmp, unsigned, a, b, lo)
                        })
                    } else {
                        x.icmp_setp(cmp, unsigned, combine, p, q, a, b, c)
                    }
                }

            /// `LOP3.LUT [P,] d, a, b, c, lut, pc`: bitwise function by truth table;
            /// the optional predicate output is `result != 0`.
            Lop3 { p: u8, d: u8, a: Src, b: Src, c: Src, lut: u8 }
                spell { "LOP3" => "LOP3.LUT [Pd,] Rd, a, b, c, lut, Pc" }
                class Alu
                decode {
                    need(m, ins, &["LUT"], "`.LUT`")?;
                    let p = if matches!(o.peek().map(|x| &x.value), Some(RawOperand::Pred(_))) {
                        o.pdst()?
                    } else {
                        PT
                    };
                    let d = o.dst()?;
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                    let c = o.isrc()?;
                    let lut = o.imm("a truth table (0x00..0xff)")?;
                    let lut = u8::try_from(lut).map_err(|_| {
                        let mut e = at(&ins.operands[o.next - 1], "truth table out of range");
                        e.expected = Some("0x00..0xff".into());
                        e
                    })?;
                    if o.peek().is_some() {
                        o.psrc()?;
                    }
                }
                regs { rw.pdef(p); rw.def(d); rw.src(a); rw.src(b); rw.src(c); }
                exec lanes { x.fetched3_nonzero(p, d, a, b, c, |a, b, c| semantics::lop3(lut, a, b, c)) }

            Shl { d: u8, a: Src, b: Src }
                spell { "SHL" => "SHL Rd, a, b" }
                class Alu
                decode {
                    let d = o.dst()?;
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); }
                exec lanes { x.fetched2(false, d, a, b, semantics::shl) }

            Shr { d: u8, a: Src, b: Src, signed: bool }
                spell { "SHR" => "SHR[.U32|.S32] Rd, a, b" }
                class Alu
                decode {
                    let signed = m.take(&["U32", "S32"]) == Some("S32");
                    let d = o.dst()?;
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); }
                exec lanes { x.fetched2(false, d, a, b, |a, b| semantics::shr(signed, a, b)) }

            /// `IMNMX d, a, b, p`: min when `p` is true, max otherwise (as SASS).
            Imnmx { d: u8, a: Src, b: Src, p: PredSrc, unsigned: bool }
                spell {
                    "IMNMX" => "IMNMX[.U32] Rd, a, b, Pp (PT: min, !PT: max)",
                    "VIMNMX" => "VIMNMX[.S32|.U32] Rd, [PT, PT,] a, b, Pp (PT: min, !PT: max)",
                }
                class Alu
                decode {
                    let unsigned = m.take(&["U32", "S32"]) == Some("U32");
                    let d = o.dst()?;
                    // sm_100 prints two predicate outputs after `Rd`
                    // (`VIMNMX.U32 R9, PT, PT, R4, 0x100, !PT`); nvcc
                    // discards them (PT), and only that form is read.
                    while let Some(p) = o.peek().filter(|x| matches!(x.value, RawOperand::Pred(_))) {
                        if o.pdst()? != PT {
                            let mut e = o.wrong(p, "PT (a discarded predicate output)");
                            e.hint = Some("VIMNMX's predicate outputs are not modelled; only PT is accepted".into());
                            return Err(e);
                        }
                    }
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                    let p = o.psrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); rw.pred(p); }
                exec lanes {
                    x.select(false, d, a, b, p, |min, a, b| semantics::imnmx(min, unsigned, a, b))
                }

            Iabs { d: u8, a: Src }
                spell { "IABS" => "IABS Rd, a" }
                class Alu
                decode {
                    let d = o.dst()?;
                    let a = o.isrc()?;
                }
                regs { rw.def(d); rw.src(a); }
                exec lanes { x.fetched1(false, d, a, semantics::iabs) }

            /// `LEA d, a, b, s`: `d = (a << s) + b`; `.HI`: `d = hi32(a:ahi << s) + b`.
            Lea { d: u8, carry: u8, a: Src, b: Src, hi_src: Src, shift: u32, hi: bool, carry_in: PredSrc, sx32: bool }
                spell { "LEA" => "LEA Rd, [Pc,] a, b, shift  or  LEA.HI[.X] Rd, a, b, a_hi, shift [, Pc]  or  LEA.HI.X.SX32 Rd, a, b, shift [, Pc]" }
                class Alu
                decode {
                    let hi = m.has("HI");
                    let x = m.has("X");
                    let d = o.dst()?;
                    let carry = if matches!(o.peek().map(|x| &x.value), Some(RawOperand::Pred(_))) {
                        o.pdst()?
                    } else {
                        PT
                    };
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                    // `.SX32`: the high word is `a`'s sign, not an operand.
                    let sx32 = m.has("SX32");
                    let hi_src = if hi && !sx32 {
                        o.isrc()?
                    } else {
                        Src::Reg(RegSrc::plain(RZ))
                    };
                    let shift = (o.imm("a shift amount")? & 31) as u32;
                    let carry_in = if x && o.peek().is_some() {
                        o.psrc()?
                    } else {
                        PredSrc {
                            index: PT,
                            negate: true,
                        }
                    };
                }
                regs { rw.def(d); rw.pdef(carry); rw.src(a); rw.src(b); rw.src(hi_src); rw.pred(carry_in); }
                exec lanes {
                    x.carry3(d, [carry, PT], a, b, hi_src, [carry_in, PredSrc { index: PT, negate: true }],
                        |a, b, h, ci, _| {
                            let h = if sx32 { ((a as i32) >> 31) as u32 } else { h };
                            semantics::lea(hi, shift, a, b, h, ci)
                        })
                }

            Popc { d: u8, a: Src }
                spell { "POPC" => "POPC Rd, a" }
                class Alu
                decode {
                    let d = o.dst()?;
                    let a = o.isrc()?;
                }
                regs { rw.def(d); rw.src(a); }
                exec lanes { x.fetched1(false, d, a, semantics::popc) }

            /// `FADD[.FTZ][.RN|.RZ|.RM|.RP][.SAT] d, a, b`.
            Fadd { d: u8, a: Src, b: Src, round: Round, ftz: bool, sat: bool }
                spell { "FADD" => "FADD[.FTZ][.RN|.RZ|.RM|.RP][.SAT] Rd, a, b" }
                class Alu
                decode {
                    let ftz = m.has("FTZ");
                    let round = rounding(m);
                    let sat = m.has("SAT");
                    let d = o.dst()?;
                    let a = o.fsrc()?;
                    let b = o.fsrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); }
                exec lanes {
                    if round == Round::Nearest && !ftz && !sat {
                        x.map2(true, d, a, b, semantics::fadd)
                    } else {
                        x.map2(true, d, a, b, |a, b| semantics::fadd_rnd(round, ftz, sat, a, b))
                    }
                }

            /// `FMUL[.FTZ][.RN|.RZ|.RM|.RP][.SAT] d, a, b`.
            Fmul { d: u8, a: Src, b: Src, round: Round, ftz: bool, sat: bool }
                spell { "FMUL" => "FMUL[.FTZ][.RN|.RZ|.RM|.RP][.SAT] Rd, a, b" }
                class Alu
                decode {
                    let ftz = m.has("FTZ");
                    let round = rounding(m);
                    let sat = m.has("SAT");
                    let d = o.dst()?;
                    let a = o.fsrc()?;
                    let b = o.fsrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); }
                exec lanes {
                    if round == Round::Nearest && !ftz && !sat {
                        x.map2(true, d, a, b, semantics::fmul)
                    } else {
                        x.map2(true, d, a, b, |a, b| semantics::fmul_rnd(round, ftz, sat, a, b))
                    }
                }

            /// `FFMA[.FTZ][.RN|.RZ|.RM|.RP][.SAT] d, a, b, c`, fused.
            Ffma { d: u8, a: Src, b: Src, c: Src, round: Round, ftz: bool, sat: bool }
                spell { "FFMA" => "FFMA[.FTZ][.RN|.RZ|.RM|.RP][.SAT] Rd, a, b, c" }
                class Alu
                decode {
                    let ftz = m.has("FTZ");
                    let round = rounding(m);
                    let sat = m.has("SAT");
                    let d = o.dst()?;
                    let a = o.fsrc()?;
                    let b = o.fsrc()?;
                    let c = o.fsrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); rw.src(c); }
                // The CPU's fused multiply-add where it has one, else semantics::ffma.
                exec lanes {
                    if round == Round::Nearest && !ftz && !sat {
                        x.fma(d, a, b, c, semantics::ffma)
                    } else {
                        x.map3(true, d, a, b, c, |a, b, c| semantics::ffma_rnd(round, ftz, sat, a, b, c))
                    }
                }

            Fsetp { cmp: FCmp, combine: Combine, p: u8, q: u8, a: Src, b: Src, c: PredSrc }
                spell { "FSETP" => "FSETP.GT.AND Pd, Pq, a, b, Pc" }
                class Alu
                decode {
                    let names = &[
                        "LT", "LE", "GT", "GE", "EQ", "NE", "LTU", "LEU", "GTU", "GEU", "EQU", "NEU",
                        "NUM", "NAN",
                    ];
                    let cmp = match need(m, ins, names, "a comparison")? {
                        "NUM" => FCmp::Num,
                        "NAN" => FCmp::Nan,
                        u if u.len() == 3 => FCmp::Unordered(cmp_of(&u[..2])),
                        o => FCmp::Ordered(cmp_of(o)),
                    };
                    let combine = combine(m, ins)?;
                    let p = o.pdst()?;
                    let q = o.pdst()?;
                    let a = o.fsrc()?;
                    let b = o.fsrc()?;
                    let c = o.psrc()?;
                }
                regs { rw.pdef(p); rw.pdef(q); rw.src(a); rw.src(b); rw.pred(c); }
                exec lanes {
                    x.setp(true, combine, p, q, a, b, c, |a, b| semantics::fsetp(cmp, a, b))
                }

            /// `FMNMX d, a, b, p`: min when `p` is true, max otherwise.
            Fmnmx { d: u8, a: Src, b: Src, p: PredSrc }
                spell { "FMNMX" => "FMNMX Rd, a, b, Pp (PT: min, !PT: max)" }
                class Alu
                decode {
                    let d = o.dst()?;
                    let a = o.fsrc()?;
                    let b = o.fsrc()?;
                    let p = o.psrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); rw.pred(p); }
                exec lanes { x.select(true, d, a, b, p, semantics::fmnmx) }

            /// `I2F[.U32|.S32][.RN|.RZ|.RM|.RP] d, a` to binary32; `I2F.F64[.S64|.U64|.U32]`
            /// to an f64 pair (from a pair for `.S64`/`.U64`); `I2FP.F32.S32` is I2F.
            I2f { d: u8, a: Src, unsigned: bool, round: Round, to64: bool, wide: bool }
                spell { "I2F" => "I2F[.F64][.U32|.S64][.RP] Rd, a", "I2FP" => "I2FP.F32.S32 Rd, a" }
                class Alu
                decode {
                    let to64 = m.take(&["F64", "F32"]) == Some("F64");
                    let src = m.take(&["U32", "S32", "U64", "S64"]);
                    let unsigned = matches!(src, Some("U32") | Some("U64"));
                    let wide = matches!(src, Some("U64") | Some("S64"));
                    let round = rounding(m);
                    let d = o.dst()?;
                    let a = o.isrc()?;
                    if to64 {
                        check_pair_alignment(ins, d, Width::B64)?;
                    }
                }
                regs {
                    if to64 { rw.def_group(d, 2) } else { rw.def(d) }
                    if wide { rw.src_pair(a) } else { rw.src(a) }
                }
                exec lanes {
                    if to64 || wide {
                        x.map64(d, to64, false, [a, Src::Imm(0), Src::Imm(0)], u8::from(wide), 0, |a, _, _| {
                            if to64 {
                                semantics::i2f64(!unsigned, wide, a)
                            } else {
                                let v = if unsigned { a as f64 } else { a as i64 as f64 };
                                u64::from(semantics::to_f32(round, false, v, 0.0))
                            }
                        })
                    } else if round == Round::Nearest {
                        x.fetched1(false, d, a, |a| semantics::i2f(unsigned, a))
                    } else {
                        x.fetched1(false, d, a, |a| semantics::i2f_rnd(round, unsigned, a))
                    }
                }

            F2i { d: u8, a: Src, unsigned: bool, round: Round }
                spell { "F2I" => "F2I[.TRUNC|.FLOOR|.CEIL][.U32] Rd, a" }
                class Alu
                decode {
                    let round = match m.take(&["TRUNC", "FLOOR", "CEIL"]) {
                        Some("TRUNC") => Round::Trunc,
                        Some("FLOOR") => Round::Floor,
                        Some("CEIL") => Round::Ceil,
                        _ => Round::Nearest,
                    };
                    let unsigned = m.take(&["U32", "S32"]) == Some("U32");
                    m.take(&["F32"]);
                    let d = o.dst()?;
                    let a = o.fsrc()?;
                }
                regs { rw.def(d); rw.src(a); }
                exec lanes { x.fetched1(true, d, a, |a| semantics::f2i(round, unsigned, a)) }

            Mufu { d: u8, a: Src, func: MufuOp }
                spell { "MUFU" => "MUFU.EX2 Rd, a" }
                class Sfu
                decode {
                    let func = match need(m, ins, &["EX2", "LG2", "RCP", "RSQ", "SQRT", "SIN", "COS", "RCP64H"], "a function")? {
                        "RCP64H" => MufuOp::Rcp64h,
                        "EX2" => MufuOp::Ex2,
                        "LG2" => MufuOp::Lg2,
                        "RCP" => MufuOp::Rcp,
                        "RSQ" => MufuOp::Rsq,
                        "SQRT" => MufuOp::Sqrt,
                        "SIN" => MufuOp::Sin,
                        _ => MufuOp::Cos,
                    };
                    let d = o.dst()?;
                    let a = o.fsrc()?;
                }
                regs { rw.def(d); rw.src(a); }
                exec lanes { x.mufu(d, a, func) }

            /// `SHF.{L|R}[.W].{U32|S32|U64}[.HI] d, lo, s, hi`: a funnel shift of
            /// the 64-bit `hi:lo` (see `semantics::shf`).
            Shf { d: u8, lo: Src, s: Src, hi: Src, left: bool, wrap: bool, kind: ShfKind, high: bool }
                spell { "SHF" => "SHF.{L|R}[.W].{U32|S32|U64}[.HI] Rd, lo, shift, hi" }
                class Alu
                decode {
                    let (left, wrap, kind, high) = shf_modifiers(m, ins)?;
                    let d = o.dst()?;
                    let lo = o.isrc()?;
                    let s = o.isrc()?;
                    let hi = o.isrc()?;
                }
                regs { rw.def(d); rw.src(lo); rw.src(s); rw.src(hi); }
                exec lanes {
                    x.fetched3(d, lo, s, hi, |l, s, h| semantics::shf(left, wrap, kind, high, l, s, h))
                }

            /// `PRMT d, a, sel, b`: byte permute of `b:a` (default mode).
            Prmt { d: u8, a: Src, sel: Src, b: Src }
                spell { "PRMT" => "PRMT Rd, a, selector, b" }
                class Alu
                decode {
                    let d = o.dst()?;
                    let a = o.isrc()?;
                    let sel = o.isrc()?;
                    let b = o.isrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(sel); rw.src(b); }
                exec lanes { x.fetched3(d, a, sel, b, semantics::prmt) }

            /// `FLO[.U32|.S32][.SH] d, a`: the highest set bit's index (or
            /// leading-zero count), `0xffffffff` for none.
            Flo { d: u8, a: Src, signed: bool, sh: bool }
                spell { "FLO" => "FLO[.U32|.S32][.SH] Rd, a" }
                class Sfu
                decode {
                    let signed = m.take(&["U32", "S32"]) == Some("S32");
                    let sh = m.has("SH");
                    let d = o.dst()?;
                    let a = o.isrc()?;
                }
                regs { rw.def(d); rw.src(a); }
                exec lanes { x.fetched1(false, d, a, |a| semantics::flo(signed, sh, a)) }

            Brev { d: u8, a: Src }
                spell { "BREV" => "BREV Rd, a" }
                class Sfu
                decode {
                    let d = o.dst()?;
                    let a = o.isrc()?;
                }
                regs { rw.def(d); rw.src(a); }
                exec lanes { x.fetched1(false, d, a, semantics::brev) }

            /// `IADD d, a, b` (sm_120): `d = a + b`; `IADD.64`: on register
            /// pairs (a literal is sign-extended, a constant reads two words).
            Iadd { d: u8, a: Src, b: Src, wide: bool, lit: u8 }
                spell { "IADD" => "IADD[.64] Rd, [Pc,] a, b" }
                class Alu
                decode {
                    let wide = m.has("64");
                    let d = o.dst()?;
                    // `IADD Rd, P0, a, b` (sm_120): the carry out to P0, as
                    // IADD3 with a zero third addend.
                    if !wide && matches!(o.peek().map(|x| &x.value), Some(RawOperand::Pred(_))) {
                        let p = o.pdst()?;
                        let a = o.isrc()?;
                        let b = o.isrc()?;
                        let no = PredSrc { index: PT, negate: true };
                        return Ok(Some(Op::Iadd3 { d, carry: [p, PT], a, b, c: Src::Reg(RegSrc::plain(RZ)), carry_in: [no, no] }));
                    }
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                    let lit = lits(&[a, b]);
                    if wide {
                        check_pair_alignment(ins, d, Width::B64)?;
                    }
                }
                regs {
                    if wide {
                        rw.def_group(d, 2);
                        rw.src_pair(a);
                        rw.src_pair(b);
                    } else {
                        rw.def(d);
                        rw.src(a);
                        rw.src(b);
                    }
                }
                exec lanes {
                    if wide {
                        x.map64(d, true, false, [a, b, Src::Imm(0)], 0b011, lit, |a, b, _| semantics::iadd64(a, b))
                    } else {
                        x.map2(false, d, a, b, |a, b| semantics::iadd3(a, b, 0))
                    }
                }

            /// `VIADD d, a, b`: `d = a + b`.
            Viadd { d: u8, a: Src, b: Src }
                spell { "VIADD" => "VIADD Rd, a, b" }
                class Alu
                decode {
                    let d = o.dst()?;
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); }
                exec lanes { x.map2(false, d, a, b, |a, b| semantics::iadd3(a, b, 0)) }

            /// `VIADDMNMX[.U32] d, a, b, c, p`: `min(a + b, c)` when `p`, else max.
            Viaddmnmx { d: u8, a: Src, b: Src, c: Src, p: PredSrc, unsigned: bool }
                spell { "VIADDMNMX" => "VIADDMNMX[.U32] Rd, a, b, c, Pp (PT: min, !PT: max)" }
                class Alu
                decode {
                    let unsigned = m.take(&["U32", "S32"]) == Some("U32");
                    let d = o.dst()?;
                    let a = o.isrc()?;
                    let b = o.isrc()?;
                    let c = o.isrc()?;
                    let p = o.psrc()?;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); rw.src(c); rw.pred(p); }
                exec lanes {
                    x.select3(d, a, b, c, p, |min, a, b, c| semantics::viaddmnmx(min, unsigned, a, b, c))
                }

            /// `PLOP3.LUT Pp, Pq, Pa, Pb, Pc, lut, lut2`: `p = lut(a, b, c)`,
            /// `q = lut2(a, b, c)` (`LOP3`'s truth tables on predicates).
            Plop3 { p: u8, q: u8, a: PredSrc, b: PredSrc, c: PredSrc, lut: u8, lut2: u8 }
                spell { "PLOP3" => "PLOP3.LUT Pp, Pq, Pa, Pb, Pc, lut, lut2" }
                class Alu
                decode {
                    need(m, ins, &["LUT"], "`.LUT`")?;
                    let p = o.pdst()?;
                    let q = o.pdst()?;
                    let a = o.psrc()?;
                    let b = o.psrc()?;
                    let c = o.psrc()?;
                    let lut = lut8(o, ins)?;
                    let lut2 = if o.peek().is_some() { lut8(o, ins)? } else { 0 };
                }
                regs { rw.pdef(p); rw.pdef(q); rw.pred(a); rw.pred(b); rw.pred(c); }
                exec lanes {
                    x.pred3(p, q, [a, b, c], |a, b, c| {
                        (semantics::plop3(lut, a, b, c), semantics::plop3(lut2, a, b, c))
                    })
                }

            /// `HFMA2[.MMA] d, a, b, c`: a fused multiply-add on two binary16
            /// halves; `c` may be written as two half immediates, high one
            /// first (`HFMA2.MMA R5, -RZ, RZ, 1.875, 0` loads `0x3f800000`).
            Hfma2 { d: u8, a: Src, b: Src, c: Src, neg: u8 }
                spell { "HFMA2" => "HFMA2[.MMA] Rd, a, b, c  or  HFMA2 Rd, a, b, c_hi, c_lo" }
                class Alu
                decode {
                    m.take(&["MMA"]);
                    let d = o.dst()?;
                    let (a, na) = half_src(o)?;
                    let (b, nb) = half_src(o)?;
                    let c = half_pair(o)?;
                    let neg = u8::from(na) | u8::from(nb) << 1;
                }
                regs { rw.def(d); rw.src(a); rw.src(b); rw.src(c); }
                exec lanes {
                    let (fa, fb) = (
                        if neg & 1 != 0 { 0x8000_8000 } else { 0 },
                        if neg & 2 != 0 { 0x8000_8000 } else { 0 },
                    );
                    x.fetched3(d, a, b, c, |a, b, c| semantics::hfma2(a ^ fa, b ^ fb, c))
                }

            /// `DADD[.rnd] d, a, b` on f64 register pairs.
            Dadd { d: u8, a: Src, b: Src, round: Round, lit: u8 }
                spell { "DADD" => "DADD[.RN|.RZ|.RM|.RP] Rd, Ra, b (register pairs)" }
                class Sfu
                decode {
                    let round = rounding(m);
                    let d = o.dst()?;
                    let a = o.dsrc()?;
                    let b = o.dsrc()?;
                    let lit = lits(&[a, b]);
                    check_pair_alignment(ins, d, Width::B64)?;
                }
                regs { rw.def_group(d, 2); rw.src_pair(a); rw.src_pair(b); }
                exec lanes {
                    x.map64(d, true, true, [a, b, Src::Imm(0)], 0b011, lit, |a, b, _| semantics::dadd(round, a, b))
                }

            /// `DMUL[.rnd] d, a, b` on f64 register pairs.
            Dmul { d: u8, a: Src, b: Src, round: Round, lit: u8 }
                spell { "DMUL" => "DMUL[.RN|.RZ|.RM|.RP] Rd, Ra, b (register pairs)" }
                class Sfu
                decode {
                    let round = rounding(m);
                    let d = o.dst()?;
                    let a = o.dsrc()?;
                    let b = o.dsrc()?;
                    let lit = lits(&[a, b]);
                    check_pair_alignment(ins, d, Width::B64)?;
                }
                regs { rw.def_group(d, 2); rw.src_pair(a); rw.src_pair(b); }
                exec lanes {
                    x.map64(d, true, true, [a, b, Src::Imm(0)], 0b011, lit, |a, b, _| semantics::dmul(round, a, b))
                }

            /// `DFMA[.rnd] d, a, b, c` on f64 register pairs, fused.
            Dfma { d: u8, a: Src, b: Src, c: Src, round: Round, lit: u8 }
                spell { "DFMA" => "DFMA[.RN|.RZ|.RM|.RP] Rd, Ra, b, c (register pairs)" }
                class Sfu
                decode {
                    let round = rounding(m);
                    let d = o.dst()?;
                    let a = o.dsrc()?;
                    let b = o.dsrc()?;
                    let c = o.dsrc()?;
                    let lit = lits(&[a, b, c]);
                    check_pair_alignment(ins, d, Width::B64)?;
                }
                regs { rw.def_group(d, 2); rw.src_pair(a); rw.src_pair(b); rw.src_pair(c); }
                exec lanes {
                    x.map64(d, true, true, [a, b, c], 0b111, lit, |a, b, c| semantics::dfma(round, a, b, c))
                }

            /// `DSETP.cmp.comb Pd, Pq, a, b, Pc` on f64 register pairs.
            Dsetp { cmp: FCmp, combine: Combine, p: u8, q: u8, a: Src, b: Src, c: PredSrc, lit: u8 }
                spell { "DSETP" => "DSETP.GT.AND Pd, Pq, Ra, b, Pc (register pairs)" }
                class Sfu
                decode {
                    let cmp = fcmp(m, ins)?;
                    let combine = combine(m, ins)?;
                    let p = o.pdst()?;
                    let q = o.pdst()?;
                    let a = o.dsrc()?;
                    let b = o.dsrc()?;
                    let c = o.psrc()?;
                    let lit = lits(&[a, b]);
                }
                regs { rw.pdef(p); rw.pdef(q); rw.src_pair(a); rw.src_pair(b); rw.pred(c); }
                exec lanes { x.setp64(combine, p, q, [a, b], lit, c, |a, b| semantics::dsetp(cmp, a, b)) }

            /// `F2F.F64.F32 d, a` (into a pair) or `F2F.F32.F64[.rnd] d, a` (from one).
            F2f { d: u8, a: Src, to64: bool, round: Round, ftz: bool }
                spell { "F2F" => "F2F.F64.F32 Rd, a  or  F2F.F32.F64[.RN|.RZ|.RM|.RP] Rd, Ra" }
                class Sfu
                decode {
                    let ftz = m.has("FTZ");
                    let round = rounding(m);
                    let to64 = match (m.take(&["F64", "F32"]), m.take(&["F64", "F32"])) {
                        (Some("F64"), Some("F32")) => true,
                        (Some("F32"), Some("F64")) => false,
                        _ => {
                            let mut e = at(&ins.mnemonic, "F2F needs its two types");
                            e.expected = Some("`.F64.F32` or `.F32.F64`".into());
                            return Err(e);
                        }
                    };
                    let d = o.dst()?;
                    let a = if to64 { o.fsrc()? } else { o.dsrc()? };
                    if to64 {
                        check_pair_alignment(ins, d, Width::B64)?;
                    }
                }
                regs {
                    if to64 {
                        rw.def_group(d, 2);
                        rw.src(a);
                    } else {
                        rw.def(d);
                        rw.src_pair(a);
                    }
                }
                exec lanes {
                    if to64 {
                        x.map64(d, true, true, [a, Src::Imm(0), Src::Imm(0)], 0, 0, |a, _, _| semantics::f2f_f64_f32(a as u32))
                    } else {
                        x.map64(d, false, true, [a, Src::Imm(0), Src::Imm(0)], 0b001, 0, |a, _, _| {
                            u64::from(semantics::f2f_f32_f64(round, ftz, a))
                        })
                    }
                }

            /// `YIELD`: a scheduling hint; nothing here.
            Yield
                spell { "YIELD" => "YIELD" }
                class Control
                decode {}
                regs {}
                exec control { Nop }

            /// `MEMBAR.{SC|ALL}.{CTA|GPU|SYS}`: a memory fence; memory is
            /// sequentially consistent in this model, so it waits for nothing.
            Membar
                spell { "MEMBAR" => "MEMBAR.SC.GPU" }
                class Control
                decode { m.take(&["SC", "ALL", "VC"]); }
                regs {}
                exec control { Nop }

            /// Global load into `d` (and following registers for wide widths).
            Ldg { d: u8, addr: MemRef, width: Width }
                spell { "LDG" => "LDG.E[.64|.128|.U8|.S8|.U16|.S16] Rd, [Ra+imm]" }
                class Global
                decode {
                    let width = width(m);
                    let d = o.dst()?;
                    let addr = o.mem()?;
                    check_pair_alignment(ins, d, width)?;
                }
                regs { rw.def_group(d, width.regs()); rw.mem(addr); }
                exec memory { Global, load, d, addr, width }

            /// Global store of `s` (and following registers).
            Stg { addr: MemRef, s: u8, width: Width }
                spell { "STG" => "STG.E[.64|.128|.U8|.U16] [Ra+imm], Rs" }
                class Global
                decode {
                    let width = width(m);
                    let addr = o.mem()?;
                    let s = o.reg("a source register")?;
                    check_pair_alignment(ins, s, width)?;
                }
                regs { rw.mem(addr); rw.use_group(s, width.regs()); }
                exec memory { Global, store, s, addr, width }

            Lds { d: u8, addr: MemRef, width: Width }
                spell { "LDS" => "LDS[.64|.128|.U8|.S8|.U16|.S16] Rd, [Ra+imm]" }
                class Shared
                decode {
                    let width = width(m);
                    let d = o.dst()?;
                    let addr = o.mem()?;
                    check_pair_alignment(ins, d, width)?;
                }
                regs { rw.def_group(d, width.regs()); rw.mem(addr); }
                exec memory { Shared, load, d, addr, width }

            Sts { addr: MemRef, s: u8, width: Width }
                spell { "STS" => "STS[.64|.128|.U8|.U16] [Ra+imm], Rs" }
                class Shared
                decode {
                    let width = width(m);
                    let addr = o.mem()?;
                    let s = o.reg("a source register")?;
                    check_pair_alignment(ins, s, width)?;
                }
                regs { rw.mem(addr); rw.use_group(s, width.regs()); }
                exec memory { Shared, store, s, addr, width }

            // ---- Uniform datapath, constants, special registers, local
            // memory and atomics. Uniform instructions run once per warp
            // (when any lane is on) on its uniform registers UR0..UR63 and
            // predicates UP0..UP6; they are in the Alu class (fixed
            // latency), as the uniform pipe is on hardware.

            /// `S2UR URd, SR_*`: a special register into a uniform register
            /// (what lane 0 of the warp would read).
            S2ur { d: u8, sr: SpecialReg }
                spell { "S2UR" => "S2UR URd, SR_CTAID.X" }
                class Alu
                decode {
                    let d = o.udst()?;
                    let sr = o.special()?;
                }
                regs { rw.udef(d); }
                exec lanes { x.s2ur(d, sr) }

            /// `R2UR URd, Ra`: register `a` of the lowest lane that is on.
            R2ur { d: u8, a: u8 }
                spell { "R2UR" => "R2UR URd, Ra" }
                class Alu
                decode {
                    let d = o.udst()?;
                    let a = o.reg("a source register")?;
                }
                regs { rw.udef(d); rw.use_reg(a); }
                exec lanes { x.r2ur(d, a) }

            /// `ULDC[.64|.U8|.S8|.U16|.S16] URd, c[0x0][off]` and
            /// `LDCU[.64|.128]`: constant words `w0..w3` (resolved when
            /// linked) into uniform registers; a sub-word width takes the
            /// bytes from `byte` of `w0`, extended.
            Uldc { d: u8, w0: Src, w1: Src, w2: Src, w3: Src, width: Width, byte: u8 }
                spell {
                    "ULDC" => "ULDC[.64|.U8] URd, c[0x0][off]",
                    "LDCU" => "LDCU[.64|.128] URd, c[0x0][off]",
                }
                class Alu
                decode {
                    let width = width(m);
                    let d = o.udst()?;
                    let (bank, _, off) = o.constant()?;
                    let ([w0, w1, w2, w3], byte) = constant_words(bank, off, width);
                }
                regs { rw.udef_group(d, width.regs()); }
                exec lanes { x.uldc(d, [w0, w1, w2, w3], width, byte) }

            /// `LDC[.64|.U8|...] Rd, c[0x0][off]` (words resolved when linked)
            /// or `c[0x0][Rn+off]` (read per lane when it runs; an index
            /// outside the bank reads 0).
            Ldc { d: u8, w0: Src, w1: Src, base: u8, offset: u32, width: Width, byte: u8 }
                spell { "LDC" => "LDC[.64|.U8|.S8|.U16|.S16] Rd, c[0x0][off]  or  c[0x0][Rn+off]" }
                class Alu
                decode {
                    let width = width(m);
                    let d = o.dst()?;
                    let (bank, base, offset) = o.constant()?;
                    let ([w0, w1, _, _], byte) = if base == RZ {
                        constant_words(bank, offset, width)
                    } else {
                        ([Src::Reg(RegSrc::plain(RZ)); 4], 0)
                    };
                    // An indexed read carries its bank above bit 16, as
                    // the kernel's constants are keyed (`engine::constant_key`).
                    if base != RZ && offset > 0xffff {
                        let mut e = at(&ins.mnemonic, "constant offset out of range");
                        e.expected = Some("an offset 0..0xffff".into());
                        return Err(e);
                    }
                    let offset = if base == RZ { offset } else { u32::from(bank) << 16 | offset };
                    if width == Width::B128 {
                        let mut e = at(&ins.mnemonic, "LDC loads at most 64 bits");
                        e.expected = Some("LDC or LDC.64".into());
                        return Err(e);
                    }
                    check_pair_alignment(ins, d, width)?;
                }
                regs { rw.def_group(d, width.regs()); rw.use_reg(base); }
                exec lanes { x.ldc(d, [w0, w1], base, offset, width, byte) }

            /// `CS2R Rd, SR_CLOCKLO|SRZ`: a 64-bit special register into the
            /// pair `d`, `d + 1`.
            Cs2r { d: u8, sr: SpecialReg }
                spell { "CS2R" => "CS2R Rd, SR_CLOCKLO  or  CS2R Rd, SRZ" }
                class Alu
                decode {
                    m.take(&["32"]);
                    let d = o.dst()?;
                    let sr = o.special()?;
                    check_pair_alignment(ins, d, Width::B64)?;
                }
                regs { rw.def_group(d, 2); }
                exec lanes { x.cs2r(d, sr) }

            /// `UMOV[.64] URd, src`.
            Umov { d: u8, a: Src, hi: Src, wide: bool }
                spell { "UMOV" => "UMOV[.64] URd, src" }
                class Alu
                decode {
                    let wide = m.has("64");
                    let d = o.udst()?;
                    if wide && let Some(v) = o.imm64()? {
                        // `UMOV.64 UR6, 0x3bf921fb54442d19`: a 64-bit literal.
                        let (a, hi) = (Src::Imm(v as u32), Src::Imm((v >> 32) as u32));
                        return Ok(Some(Op::Umov { d, a, hi, wide }));
                    }
                    let raw = o.peek().map(|x| x.value.clone());
                    let a = o.usrc()?;
                    let hi = match (wide, a, raw) {
                        (true, Src::UReg(r), _) if r.reg != URZ => {
                            Src::UReg(RegSrc::plain(r.reg.saturating_add(1)))
                        }
                        (true, Src::Imm(_), Some(RawOperand::Int { value, .. })) => {
                            Src::Imm((value >> 32) as u32)
                        }
                        _ => Src::Imm(0),
                    };
                }
                regs { rw.udef_group(d, if wide { 2 } else { 1 }); rw.src(a); rw.src(hi); }
                exec lanes {
                    let (lo, h) = (x.uval(a), x.uval(hi));
                    x.uwrite(d, lo);
                    if wide && d != URZ {
                        x.uwrite(d.saturating_add(1), h);
                    }
                }

            /// `UIADD3[.X] URd, [UPc, UPc2,] a, b, c [, carry-ins]`.
            Uiadd3 { d: u8, carry: [u8; 2], a: Src, b: Src, c: Src, carry_in: [PredSrc; 2] }
                spell { "UIADD3" => "UIADD3[.X] URd, [UPc,] a, b, c [, UP carry-ins with .X]" }
                class Alu
                decode {
                    let xx = m.has("X");
                    let d = o.udst()?;
                    let mut carry = [UPT, UPT];
                    for slot in &mut carry {
                        if o.next_is_pred(true) {
                            *slot = o.updst()?;
                        }
                    }
                    let a = o.usrc()?;
                    let b = o.usrc()?;
                    let c = o.usrc()?;
                    let mut carry_in = [PredSrc { index: UPT, negate: true }; 2];
                    if xx {
                        for slot in &mut carry_in {
                            if o.peek().is_some() {
                                *slot = o.upsrc()?;
                            }
                        }
                    }
                }
                regs {
                    rw.udef(d);
                    carry.iter().for_each(|&p| rw.updef(p));
                    rw.src(a);
                    rw.src(b);
                    rw.src(c);
                    carry_in.iter().for_each(|&p| rw.upred(p));
                }
                exec lanes {
                    let (ci0, ci1) = (x.upred(carry_in[0]), x.upred(carry_in[1]));
                    let sum = semantics::iadd3_carry(x.uval(a), x.uval(b), x.uval(c), ci0, ci1);
                    x.uwrite(d, sum as u32);
                    x.upwrite(carry[0], sum >> 32 & 1 != 0);
                    x.upwrite(carry[1], sum >> 33 & 1 != 0);
                }

            /// `ULEA URd, [UPc,] a, b, s` / `ULEA.HI[.X] URd, a, b, a_hi, s [, UPc]`.
            Ulea { d: u8, carry: u8, a: Src, b: Src, hi_src: Src, shift: u32, hi: bool, carry_in: PredSrc }
                spell { "ULEA" => "ULEA URd, [UPc,] a, b, shift  or  ULEA.HI[.X] URd, a, b, a_hi, shift" }
                class Alu
                decode {
                    let hi = m.has("HI");
                    let xx = m.has("X");
                    let d = o.udst()?;
                    let carry = if o.next_is_pred(true) { o.updst()? } else { UPT };
                    let a = o.usrc()?;
                    let b = o.usrc()?;
                    let hi_src = if hi { o.usrc()? } else { Src::Imm(0) };
                    let shift = (o.imm("a shift amount")? & 31) as u32;
                    let carry_in = if xx && o.peek().is_some() {
                        o.upsrc()?
                    } else {
                        PredSrc { index: UPT, negate: true }
                    };
                }
                regs { rw.udef(d); rw.updef(carry); rw.src(a); rw.src(b); rw.src(hi_src); rw.upred(carry_in); }
                exec lanes {
                    let ci = x.upred(carry_in);
                    let v = semantics::lea(hi, shift, x.uval(a), x.uval(b), x.uval(hi_src), ci);
                    x.uwrite(d, v as u32);
                    x.upwrite(carry, v >> 32 & 1 != 0);
                }

            /// `USHF.L|.R[.U32|.S32][.HI] URd, lo, shift, hi`: funnel shift of
            /// the pair `hi:lo`, the low word of the result (`.HI`: the high).
            Ushf { d: u8, lo: Src, sh: Src, hi: Src, left: bool, wrap: bool, kind: ShfKind, high: bool }
                spell { "USHF" => "USHF.{L|R}[.W].{U32|S32|U64}[.HI] URd, lo, shift, hi" }
                class Alu
                decode {
                    let (left, wrap, kind, high) = shf_modifiers(m, ins)?;
                    let d = o.udst()?;
                    let lo = o.usrc()?;
                    let sh = o.usrc()?;
                    let hi = o.usrc()?;
                }
                regs { rw.udef(d); rw.src(lo); rw.src(sh); rw.src(hi); }
                exec lanes {
                    let v = semantics::shf(left, wrap, kind, high, x.uval(lo), x.uval(sh), x.uval(hi));
                    x.uwrite(d, v);
                }

            /// `UISETP.cmp[.U32].comb UPp, UPq, a, b, UPc`.
            Uisetp { cmp: Cmp, unsigned: bool, combine: Combine, p: u8, q: u8, a: Src, b: Src, c: PredSrc }
                spell { "UISETP" => "UISETP.NE.U32.AND UPp, UPq, a, b, UPc" }
                class Alu
                decode {
                    let cmp = cmp_of(need(m, ins, CMPS, "a comparison")?);
                    let unsigned = m.take(&["U32", "S32"]) == Some("U32");
                    let combine = combine(m, ins)?;
                    let p = o.updst()?;
                    let q = o.updst()?;
                    let a = o.usrc()?;
                    let b = o.usrc()?;
                    let c = o.upsrc()?;
                }
                regs { rw.updef(p); rw.updef(q); rw.src(a); rw.src(b); rw.upred(c); }
                exec lanes {
                    let t = semantics::icmp(cmp, unsigned, x.uval(a), x.uval(b));
                    let cm = u64::from(x.upred(c));
                    x.upwrite(p, semantics::combine(combine, u64::from(t), cm) & 1 != 0);
                    x.upwrite(q, semantics::combine(combine, u64::from(!t), cm) & 1 != 0);
                }

            /// `UIMAD[.WIDE][.U32] URd, a, b, c`.
            Uimad { d: u8, a: Src, b: Src, c: Src, wide: bool, signed: bool }
                spell { "UIMAD" => "UIMAD[.WIDE][.U32] URd, a, b, c" }
                class Alu
                decode {
                    let wide = m.has("WIDE");
                    let signed = m.take(&["U32", "S32"]) != Some("U32");
                    let d = o.udst()?;
                    let a = o.usrc()?;
                    let b = o.usrc()?;
                    let c = o.usrc()?;
                }
                regs {
                    if wide {
                        rw.udef_group(d, 2);
                        rw.src_pair(c);
                    } else {
                        rw.udef(d);
                        rw.src(c);
                    }
                    rw.src(a);
                    rw.src(b);
                }
                exec lanes {
                    let (va, vb, vc) = (x.uval(a), x.uval(b), x.uval(c));
                    if wide {
                        let c_hi = match c {
                            Src::UReg(r) if r.reg != URZ => x.ureg(r.reg.saturating_add(1)),
                            Src::Imm(v) if signed && (v as i32) < 0 => u32::MAX,
                            _ => 0,
                        };
                        let v = semantics::imad_wide(signed, va, vb, u64::from(c_hi) << 32 | u64::from(vc));
                        x.uwrite(d, v as u32);
                        if d != URZ {
                            x.uwrite(d.saturating_add(1), (v >> 32) as u32);
                        }
                    } else {
                        x.uwrite(d, semantics::imad_lo(va, vb, vc));
                    }
                }

            /// `ULOP3.LUT [UPp,] URd, a, b, c, lut, UPc`.
            Ulop3 { p: u8, d: u8, a: Src, b: Src, c: Src, lut: u8 }
                spell { "ULOP3" => "ULOP3.LUT [UPp,] URd, a, b, c, lut, UPc" }
                class Alu
                decode {
                    need(m, ins, &["LUT"], "`.LUT`")?;
                    let p = if o.next_is_pred(true) { o.updst()? } else { UPT };
                    let d = o.udst()?;
                    let a = o.usrc()?;
                    let b = o.usrc()?;
                    let c = o.usrc()?;
                    let lut = o.imm("a truth table (0x00..0xff)")?;
                    let lut = u8::try_from(lut).map_err(|_| {
                        let mut e = at(&ins.operands[o.next - 1], "truth table out of range");
                        e.expected = Some("0x00..0xff".into());
                        e
                    })?;
                    if o.peek().is_some() {
                        o.upsrc()?;
                    }
                }
                regs { rw.updef(p); rw.udef(d); rw.src(a); rw.src(b); rw.src(c); }
                exec lanes {
                    let v = semantics::lop3(lut, x.uval(a), x.uval(b), x.uval(c));
                    x.uwrite(d, v);
                    x.upwrite(p, v != 0);
                }

            /// `UPRMT URd, a, sel, b`: bytes of the pair `b:a` chosen by the
            /// nibbles of `sel` (bit 3 of a nibble: replicate the byte's sign).
            Uprmt { d: u8, a: Src, sel: Src, b: Src }
                spell { "UPRMT" => "UPRMT URd, a, selector, b" }
                class Alu
                decode {
                    let d = o.udst()?;
                    let a = o.usrc()?;
                    let sel = o.usrc()?;
                    let b = o.usrc()?;
                }
                regs { rw.udef(d); rw.src(a); rw.src(sel); rw.src(b); }
                exec lanes {
                    let v = semantics::prmt(x.uval(a), x.uval(sel), x.uval(b));
                    x.uwrite(d, v);
                }

            /// `VOTEU.ANY|ALL|EQ URd, UPp, Ps`: the ballot of `Ps` over the
            /// lanes that are on into `URd`, the vote into `UPp`.
            Voteu { mode: VoteMode, d: u8, p: u8, src: PredSrc }
                spell { "VOTEU" => "VOTEU.ANY URd, UPp, Ps" }
                class Alu
                decode {
                    let mode = match need(m, ins, &["ALL", "ANY", "EQ"], "a mode")? {
                        "ALL" => VoteMode::All,
                        "ANY" => VoteMode::Any,
                        _ => VoteMode::Eq,
                    };
                    let d = if matches!(o.peek().map(|x| &x.value), Some(RawOperand::UReg(_))) {
                        o.udst()?
                    } else {
                        URZ
                    };
                    let p = o.updst()?;
                    let src = o.psrc()?;
                }
                regs { rw.udef(d); rw.updef(p); rw.pred(src); }
                exec lanes { x.voteu(d, p, src, |ballot, on| semantics::vote(mode, ballot, on)) }

            /// `REDUX.op[.S32|.U32] URd, Ra`: a reduction of register `a`
            /// over the lanes that are on into a uniform register.
            /// `CREDUX` is how sm_100 and newer spell the same reduction.
            Redux { op: ReduxOp, signed: bool, d: u8, a: u8 }
                spell {
                    "REDUX" => "REDUX.SUM|.MIN|.MAX|.AND|.OR|.XOR[.S32] URd, Ra",
                    "CREDUX" => "CREDUX.SUM|.MIN|.MAX|.AND|.OR|.XOR[.S32] URd, Ra",
                }
                class Alu
                decode {
                    let op = match need(m, ins, &["SUM", "MIN", "MAX", "AND", "OR", "XOR"], "an operation")? {
                        "SUM" => ReduxOp::Sum,
                        "MIN" => ReduxOp::Min,
                        "MAX" => ReduxOp::Max,
                        "AND" => ReduxOp::And,
                        "OR" => ReduxOp::Or,
                        _ => ReduxOp::Xor,
                    };
                    let signed = m.take(&["S32", "U32"]) == Some("S32");
                    let d = o.udst()?;
                    let a = o.reg("a source register")?;
                }
                regs { rw.udef(d); rw.use_reg(a); }
                exec lanes { x.redux(d, a, |acc, v| semantics::redux(op, signed, acc, v)) }

            /// Local load (per-thread memory, addressed from 0).
            Ldl { d: u8, addr: MemRef, width: Width }
                spell { "LDL" => "LDL[.64|.128|.U8|.S8|.U16|.S16] Rd, [Ra+imm]" }
                class Global
                decode {
                    let width = width(m);
                    let d = o.dst()?;
                    let addr = o.mem()?;
                    check_pair_alignment(ins, d, width)?;
                }
                regs { rw.def_group(d, width.regs()); rw.mem(addr); }
                exec memory { Local, load, d, addr, width }

            /// Local store.
            Stl { addr: MemRef, s: u8, width: Width }
                spell { "STL" => "STL[.64|.128|.U8|.U16] [Ra+imm], Rs" }
                class Global
                decode {
                    let width = width(m);
                    let addr = o.mem()?;
                    let s = o.reg("a source register")?;
                    check_pair_alignment(ins, s, width)?;
                }
                regs { rw.mem(addr); rw.use_group(s, width.regs()); }
                exec memory { Local, store, s, addr, width }

            /// `ATOMG.op [Pp,] Rd, [addr], b [, c]`: global atomic, `Rd`
            /// receiving the old value; `RED.op [addr], b` (and `REDG`)
            /// without one. Lanes go in lane order.
            Atomg { atom: AtomOp, d: u8, addr: MemRef, b: u8, c: u8, width: Width }
                spell {
                    "ATOMG" => "ATOMG.E.ADD.STRONG.GPU PT, Rd, [Ra.64], Rb [, Rc with .CAS]",
                    "RED" => "RED.E.ADD.STRONG.GPU [Ra.64], Rb",
                    "REDG" => "REDG.E.ADD.STRONG.GPU [Ra.64], Rb",
                }
                class Global
                decode {
                    let (atom, width) = atom_op(m, ins)?;
                    let d = if opcode == "ATOMG" {
                        if o.next_is_pred(false) {
                            o.pdst()?;
                        }
                        o.dst()?
                    } else {
                        RZ
                    };
                    let addr = o.mem()?;
                    let b = o.reg("a source register")?;
                    let c = if atom == AtomOp::Cas { o.reg("the CAS new value")? } else { RZ };
                    for r in [d, b, c] {
                        check_pair_alignment(ins, r, width)?;
                    }
                }
                regs {
                    rw.def_group(d, width.regs());
                    rw.mem(addr);
                    rw.use_group(b, width.regs());
                    rw.use_group(c, width.regs());
                }
                exec memory { Global, atomic atom, d, addr, width, b, c }

            /// `ATOMS.op Rd, [addr], b`: shared-memory atomic.
            /// `ATOMS.CAST.SPIN[.64] Rd|Pd, [addr], b, c`: stores `c` where
            /// the word is `b`; `Rd` (`Pd` on sm_100 and newer) receives 1
            /// when it stored, 0 when the word held another value.
            Atoms { atom: AtomOp, d: u8, addr: MemRef, b: u8, c: u8, width: Width }
                spell {
                    "ATOMS" => "ATOMS.ADD Rd, [Ra], Rb  or  ATOMS.POPC.INC.32 Rd, [Ra]  or  ATOMS.CAST.SPIN[.64] Rd|Pd, [Ra], Rb, Rc",
                }
                class Shared
                decode {
                    let (atom, width) = atom_op(m, ins)?;
                    let (atom, d) = match atom {
                        AtomOp::CasSpin { .. } if o.next_is_pred(false) => {
                            (AtomOp::CasSpin { p: o.pdst()? }, RZ)
                        }
                        _ => (atom, o.dst()?),
                    };
                    let addr = o.mem()?;
                    let b = if atom == AtomOp::PopcInc { RZ } else { o.reg("a source register")? };
                    let c = if matches!(atom, AtomOp::Cas | AtomOp::CasSpin { .. }) {
                        o.reg("the CAS new value")?
                    } else {
                        RZ
                    };
                    for r in [d, b, c] {
                        check_pair_alignment(ins, r, width)?;
                    }
                }
                regs {
                    rw.def_group(d, width.regs());
                    rw.pdef(match atom { AtomOp::CasSpin { p } => p, _ => PT });
                    rw.mem(addr);
                    rw.use_group(b, width.regs());
                    rw.use_group(c, width.regs());
                }
                exec memory { Shared, atomic atom, d, addr, width, b, c }

            /// `SHFL.mode p, d, a, b, c`: read `a` from the lane chosen by `b`;
            /// `c` is the clamp/segment value as in PTX `shfl.sync`.
            Shfl { p: u8, d: u8, a: u8, b: Src, c: Src, mode: ShflMode }
                spell { "SHFL" => "SHFL.BFLY Pd, Rd, Ra, b, c" }
                class Shared
                decode {
                    let mode = match need(m, ins, &["IDX", "UP", "DOWN", "BFLY"], "a mode")? {
                        "IDX" => ShflMode::Idx,
                        "UP" => ShflMode::Up,
                        "DOWN" => ShflMode::Down,
                        _ => ShflMode::Bfly,
                    };
                    let p = if matches!(o.peek().map(|x| &x.value), Some(RawOperand::Pred(_))) {
                        o.pdst()?
                    } else {
                        PT
                    };
                    let d = o.dst()?;
                    let a = o.reg("a source register")?;
                    let b = o.isrc()?;
                    let c = o.isrc()?;
                }
                regs { rw.pdef(p); rw.def(d); rw.use_reg(a); rw.src(b); rw.src(c); }
                exec lanes { x.shuffle(p, d, a, b, c, |lane, b, c| semantics::shfl(mode, lane, b, c)) }

            /// `VOTE.mode d, p, src`: `d` receives the ballot, `p` the vote.
            Vote { mode: VoteMode, d: u8, p: u8, src: PredSrc }
                spell { "VOTE" => "VOTE.ANY Rd, Pd, Ps" }
                class Alu
                decode {
                    let mode = match need(m, ins, &["ALL", "ANY", "EQ"], "a mode")? {
                        "ALL" => VoteMode::All,
                        "ANY" => VoteMode::Any,
                        _ => VoteMode::Eq,
                    };
                    let d = if matches!(o.peek().map(|x| &x.value), Some(RawOperand::Reg(_))) {
                        o.dst()?
                    } else {
                        RZ
                    };
                    let p = o.pdst()?;
                    let src = o.psrc()?;
                }
                regs { rw.def(d); rw.pdef(p); rw.pred(src); }
                exec lanes { x.vote(d, p, src, |ballot, on| semantics::vote(mode, ballot, on)) }

            /// `R2P PR, Ra, mask`: predicate `Pi` receives bit `i` of `Ra`
            /// for each bit `i` (0 to 6) set in `mask`; the others keep
            /// their values.
            R2p { a: u8, mask: u8 }
                spell { "R2P" => "R2P PR, Ra, mask" }
                class Alu
                decode {
                    let pr = o.take("`PR` (the predicates)")?;
                    if !matches!(&pr.value, RawOperand::Label(l) if l == "PR") {
                        return Err(o.wrong(pr, "`PR` (the predicates)"));
                    }
                    let a = o.reg("a source register")?;
                    let mask = o.imm("a predicate mask (0x00..0x7f)")?;
                    let mask = u8::try_from(mask).ok().filter(|m| *m <= 0x7f).ok_or_else(|| {
                        let mut e = at(&ins.operands[o.next - 1], "predicate mask out of range");
                        e.expected = Some("0x00..0x7f (bit i: Pi)".into());
                        e
                    })?;
                }
                regs {
                    rw.use_reg(a);
                    for i in 0..7u8 {
                        if mask >> i & 1 != 0 {
                            rw.pdef(i);
                        }
                    }
                }
                exec lanes { x.r2p(a, mask, semantics::r2p) }

            /// `BRA [Pc,] target` (`BRA.U` alike): the lanes that are on and
            /// for which the condition `cond` holds (a per-lane or uniform
            /// predicate; `PT` when none is written) jump.
            Bra { target: u32, cond: PredSrc }
                spell { "BRA" => "BRA[.U] [Pc|UPc,] label" }
                class Control
                decode {
                    let cond = match o.peek().map(|x| &x.value) {
                        Some(RawOperand::Pred(p)) => {
                            o.next += 1;
                            *p
                        }
                        Some(RawOperand::UPred(p)) => {
                            o.next += 1;
                            PredSrc::uniform(*p)
                        }
                        _ => PredSrc::TRUE,
                    };
                    let target = o.target()?;
                }
                regs { rw.pred(cond); }
                exec control { Branch }

            /// `CALL.REL.NOINC target`: every lane that is on jumps to a
            /// function. The caller has put the return address in a
            /// register (nvcc's ABI: `MOV R0, ret`), which `RET.REL.NODEC`
            /// reads: no call stack is kept.
            Call { target: u32 }
                spell { "CALL" => "CALL.REL.NOINC label" }
                class Control
                decode {
                    need(m, ins, &["REL"], "`.REL` (a relative call)")?;
                    if !m.has("NOINC") {
                        let mut e = at(&ins.mnemonic, format!("{} keeps its return address on the hardware call stack, which is not modelled", ins.mnemonic.value));
                        e.expected = Some("CALL.REL.NOINC".into());
                        e.hint = Some("nvcc passes the return address in a register: `MOV R0, ret` then `CALL.REL.NOINC f`, and `RET.REL.NODEC R0, 0x0` returns".into());
                        return Err(e);
                    }
                    let target = o.target()?;
                }
                regs {}
                exec control { Call }

            /// `RET.REL.NODEC Ra, base`: each lane that is on jumps to the
            /// byte address `Ra + base` (the low word of the pair `Ra`; `base`
            /// is the function the address counts from, the kernel: 0).
            Ret { a: u8, base: u32 }
                spell { "RET" => "RET.REL.NODEC Ra, 0x0" }
                class Control
                decode {
                    need(m, ins, &["REL"], "`.REL` (a relative return)")?;
                    if !m.has("NODEC") {
                        let mut e = at(&ins.mnemonic, format!("{} takes its return address from the hardware call stack, which is not modelled", ins.mnemonic.value));
                        e.expected = Some("RET.REL.NODEC Ra, 0x0".into());
                        e.hint = Some("nvcc returns through a register: `RET.REL.NODEC R0, 0x0`".into());
                        return Err(e);
                    }
                    let a = o.reg("the register holding the return address")?;
                    let base = if o.peek().is_some() { o.target()? * 16 } else { 0 };
                }
                regs { rw.use_reg(a); }
                exec control { Return }

            /// `BRX Ra, offset [, targets]`: each lane that is on jumps to the
            /// byte address `Ra + offset + the next instruction's address`
            /// (the low word of the pair `Ra`). The targets nvdisasm lists
            /// (`BRANCH_TARGETS`), if written, are the only ones allowed.
            Brx { a: u8, offset: u32 }
                spell { "BRX" => "BRX Ra, offset [, target labels]" }
                class Control
                decode {
                    let a = o.reg("the register holding the jump offset")?;
                    let offset = if o.peek().is_some() { o.imm("an address offset")? as u32 } else { 0 };
                    // The listed targets: checked here, read by the assembler.
                    while o.peek().is_some() {
                        o.target()?;
                    }
                }
                regs { rw.use_reg(a); }
                exec control { IndirectBranch }

            Bssy { barrier: u8, target: u32 }
                spell { "BSSY" => "BSSY[.RECONVERGENT] Bn, label" }
                class Control
                decode {
                    // `.RECONVERGENT` (sm_120) names what every BSSY does here.
                    m.take(&["RECONVERGENT"]);
                    let barrier = o.barrier()?;
                    let target = o.target()?;
                }
                regs {}
                exec control { BarrierSetup }

            Bsync { barrier: u8 }
                spell { "BSYNC" => "BSYNC[.RECONVERGENT] Bn" }
                class Control
                decode {
                    m.take(&["RECONVERGENT"]);
                    let barrier = o.barrier()?;
                }
                regs {}
                exec control { BarrierSync }

            /// `BMOV.32[.CLEAR] Rd, Bn` writes convergence barrier `Bn`'s lane
            /// mask to `Rd` (`.CLEAR`: and empties the barrier); `BMOV.32 Bn,
            /// a` sets the barrier's lanes from `a` (`to_barrier`).
            Bmov { d: u8, barrier: u8, a: Src, to_barrier: bool, clear: bool }
                spell { "BMOV" => "BMOV.32[.CLEAR] Rd, Bn  or  BMOV.32 Bn, Ra" }
                class Alu
                decode {
                    need(m, ins, &["32"], "`.32` (a 32-lane mask)")?;
                    let clear = m.has("CLEAR");
                    let to_barrier = matches!(o.peek().map(|x| &x.value), Some(RawOperand::Barrier(_)));
                    let (d, barrier, a) = if to_barrier {
                        let b = o.barrier()?;
                        (RZ, b, o.isrc()?)
                    } else {
                        let d = o.dst()?;
                        (d, o.barrier()?, Src::Imm(0))
                    };
                }
                regs { rw.def(d); rw.src(a); }
                exec control { BarrierMove }

            Break { barrier: u8 }
                spell { "BREAK" => "BREAK Bn" }
                class Control
                decode { let barrier = o.barrier()?; }
                regs {}
                exec control { BarrierBreak }

            Warpsync { mask: Src }
                spell { "WARPSYNC" => "WARPSYNC mask" }
                class Control
                decode {
                    let mask = if m.has("ALL") || o.peek().is_none() {
                        Src::Imm(u32::MAX)
                    } else {
                        o.isrc()?
                    };
                }
                regs { rw.src(mask); }
                exec control { WarpSync }

            BarSync { id: u32 }
                spell { "BAR" => "BAR.SYNC [id]" }
                class Control
                decode {
                    need(m, ins, &["SYNC"], "`.SYNC`")?;
                    let id = if o.peek().is_some() {
                        o.imm("a barrier number")?
                    } else {
                        0
                    };
                    if !(0..16).contains(&id) {
                        let mut e = at(&ins.operands[o.next - 1], "barrier number out of range");
                        e.expected = Some("0..15".into());
                        return Err(e);
                    }
                    let id = id as u32;
                }
                regs {}
                exec control { BlockBarrier }

            /// `DEPBAR.LE SBn, k`: wait until scoreboard `sb` counts at most `le`.
            Depbar { sb: u8, le: u8 }
                spell { "DEPBAR" => "DEPBAR.LE SBn, count" }
                class Control
                decode {
                    need(m, ins, &["LE"], "`.LE`")?;
                    let sb = o.take("a scoreboard SB0..SB5")?;
                    let sb = match &sb.value {
                        RawOperand::Scoreboard(n) => *n,
                        _ => return Err(o.wrong(sb, "a scoreboard SB0..SB5")),
                    };
                    let le = o.imm("a count")?;
                    let le = u8::try_from(le).map_err(|_| {
                        let mut e = at(&ins.operands[o.next - 1], "count out of range");
                        e.expected = Some("0..63".into());
                        e
                    })?;
                }
                regs {}
                exec control { ScoreboardWait }

            Exit
                spell { "EXIT" => "EXIT" }
                class Control
                decode {}
                regs {}
                exec control { Exit }

            Nop
                spell { "NOP" => "NOP" }
                class Control
                decode {}
                regs {}
                exec control { Nop }
        }
    };
}
pub(crate) use opcode_table;

/// Builds [`Op`] and the lookups that need nothing but the table.
macro_rules! define_op {
    (
        binders ($opc:ident, $ins:ident, $m:ident, $o:ident, $s:ident, $x:ident);
        $(
            $(#[$doc:meta])*
            $V:ident $({ $($f:ident : $t:tt),* $(,)? })?
                spell { $($sp:literal => $usage:literal),+ $(,)? }
                class $class:ident
                decode { $($decode:tt)* }
                regs { $($regs:tt)* }
                exec $kind:ident { $($exec:tt)* }
        )*
    ) => {
        /// The operation of one instruction, with typed operands.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Op {
            $(
                $(#[$doc])*
                $V $({ $($f: $t),* })?,
            )*
        }

        /// Every opcode the assembler accepts, for "did you mean" hints.
        pub const OPCODES: &[&str] = &[$($($sp),+),*];

        /// The operand form of each opcode, for hints.
        pub fn usage(mnemonic: &str) -> &'static str {
            match mnemonic.split('.').next().unwrap_or("") {
                $($($sp => $usage,)+)*
                _ => "OPCODE operands",
            }
        }

        impl Op {
            /// The latency and scoreboard class of this opcode.
            pub fn class(&self) -> Class {
                match self {
                    $(Op::$V { .. } => Class::$class,)*
                }
            }

            /// Which part of the SM carries this opcode out.
            pub fn unit(&self) -> Unit {
                match self {
                    $(Op::$V { .. } => define_op!(@unit $kind { $($exec)* }),)*
                }
            }

            /// Calls `f(i, source)` on each value operand (register,
            /// immediate or constant), `i` counting them from 0 in operand
            /// order: what linking resolves constants in.
            #[allow(unused_variables, unused_mut, unused_assignments)]
            pub fn try_for_each_src_mut<E>(
                &mut self,
                mut f: impl FnMut(usize, &mut Src) -> Result<(), E>,
            ) -> Result<(), E> {
                let mut i = 0;
                match self {
                    $(Op::$V $({ $($f),* })? => {
                        $($(define_op!(@src $t, $f, f, i);)*)?
                    })*
                }
                Ok(())
            }
        }
    };
    (@unit lanes { $($exec:tt)* }) => { Unit::Lanes };
    (@unit memory { $($exec:tt)* }) => { Unit::Memory };
    (@unit control { $k:ident }) => { Unit::Control(ControlOp::$k) };
    (@src Src, $f:ident, $visit:ident, $i:ident) => {
        $visit($i, $f)?;
        $i += 1;
    };
    (@src $t:tt, $f:ident, $visit:ident, $i:ident) => {};
}

opcode_table!(define_op);

impl Op {
    /// Which value sources (bit `i` for the `i`-th, as
    /// [`Op::try_for_each_src_mut`] counts them) are 64-bit register pairs,
    /// so that a constant there reads two words.
    pub fn pair_sources(&self) -> u8 {
        match self {
            Op::Dadd { .. } | Op::Dmul { .. } | Op::Dsetp { .. } => 0b011,
            Op::Dfma { .. } => 0b111,
            Op::Iadd { wide: true, .. } => 0b011,
            Op::F2f { to64: false, .. } | Op::I2f { wide: true, .. } => 0b001,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use operand::RegSrc;

    #[test]
    fn spellings_and_classes_come_from_the_table() {
        // Counted by hand from the table: 36 variants, IMUL and FSEL
        // sharing (38); then 20 memory and uniform variants, LDCU, RED and
        // REDG sharing (22 spellings); then SHF PRMT FLO BREV IADD VIADD
        // VIADDMNMX PLOP3 HFMA2 DADD DMUL DFMA DSETP F2F YIELD MEMBAR, and
        // the spellings VIMNMX and I2FP (18); then CALL, RET, BRX and BMOV
        // (4).
        assert_eq!(OPCODES.len(), 38 + 22 + 18 + 4 + 2);
        assert_eq!(usage("RET.REL.NODEC"), "RET.REL.NODEC Ra, 0x0");
        assert_eq!(usage("IMUL.WIDE"), "IMUL[.WIDE|.HI][.U32] Rd, a, b");
        assert_eq!(usage("FSEL"), "SEL Rd, a, b, Pp");
        assert_eq!(usage("FOO"), "OPCODE operands");
        assert_eq!(Op::Exit.class(), Class::Control);
        assert_eq!(Op::Exit.unit(), Unit::Control(ControlOp::Exit));
        let r = |n| Src::Reg(RegSrc::plain(n));
        let mufu = Op::Mufu {
            d: 0,
            a: r(1),
            func: MufuOp::Rcp,
        };
        assert_eq!((mufu.class(), mufu.unit()), (Class::Sfu, Unit::Lanes));
    }

    #[test]
    fn value_sources_are_visited_in_operand_order() {
        let mut op = Op::Lea {
            d: 0,
            carry: 7,
            a: Src::Imm(1),
            b: Src::Imm(2),
            hi_src: Src::Imm(3),
            shift: 4,
            hi: true,
            carry_in: PredSrc::TRUE,
            sx32: false,
        };
        let mut seen = Vec::new();
        let ok: Result<(), ()> = op.try_for_each_src_mut(|i, s| {
            seen.push((i, *s));
            *s = Src::Imm(10 + i as u32);
            Ok(())
        });
        assert_eq!(ok, Ok(()));
        assert_eq!(seen, [(0, Src::Imm(1)), (1, Src::Imm(2)), (2, Src::Imm(3))]);
        let Op::Lea { hi_src, .. } = op else {
            unreachable!()
        };
        assert_eq!(hi_src, Src::Imm(12));
        // The first error stops the walk.
        let mut n = 0;
        let err = op.try_for_each_src_mut(|_, _| {
            n += 1;
            Err("stop")
        });
        assert_eq!((err, n), (Err("stop"), 1));
    }
}
