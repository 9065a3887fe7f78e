//! The opcode table: which opcodes and modifiers exist, what operands each
//! takes, and how they become a typed [`Op`].

use std::collections::HashMap;

use super::AsmError;
use super::ir::{
    Class, Cmp, Combine, FCmp, MemRef, MufuOp, MulMode, Op, PT, PredSrc, RZ, RegSrc, Round,
    ShflMode, Src, VoteMode, Width,
};
use super::parser::{Located, RawInstr, RawOperand};

/// Every opcode the assembler accepts, for "did you mean" hints.
pub const OPCODES: &[&str] = &[
    "MOV", "S2R", "SEL", "FSEL", "IADD3", "IMAD", "IMUL", "ISETP", "LOP3", "SHL", "SHR", "IMNMX",
    "IABS", "LEA", "POPC", "FADD", "FMUL", "FFMA", "FSETP", "FMNMX", "I2F", "F2I", "MUFU", "LDG",
    "STG", "LDS", "STS", "SHFL", "VOTE", "BRA", "BSSY", "BSYNC", "BREAK", "WARPSYNC", "BAR",
    "DEPBAR", "EXIT", "NOP",
];

/// Modifiers that change nothing in this model (cache policy, memory
/// ordering scope, encoding hints) and are accepted wherever SASS has them.
const IGNORED: &[&str] = &[
    "E",
    "SYS",
    "GPU",
    "CTA",
    "SM",
    "STRONG",
    "WEAK",
    "CONSTANT",
    "EF",
    "EL",
    "LU",
    "EU",
    "NA",
    "FTZ",
    "RN",
    "REUSE",
    "U",
    "DIV",
    "CONV",
    "DEFER_BLOCKING",
    "NTZ",
    "ZD",
    "PRIVATE",
    "MMIO",
];

/// The nearest spelling in `choices` to `word`, if it is close enough to help.
pub fn nearest<'a>(word: &str, choices: &[&'a str]) -> Option<&'a str> {
    let word = word.to_ascii_uppercase();
    choices
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Tracks which modifiers of a mnemonic the opcode consumed.
struct Mods<'a> {
    list: Vec<&'a str>,
    used: Vec<bool>,
    known: Vec<&'static str>,
}

impl<'a> Mods<'a> {
    fn new(list: Vec<&'a str>) -> Self {
        let used = vec![false; list.len()];
        Mods {
            list,
            used,
            known: Vec::new(),
        }
    }

    /// Takes the first modifier that is one of `choices`.
    fn take(&mut self, choices: &[&'static str]) -> Option<&'static str> {
        self.known.extend_from_slice(choices);
        for (i, m) in self.list.iter().enumerate() {
            if self.used[i] {
                continue;
            }
            if let Some(c) = choices.iter().find(|c| *c == m) {
                self.used[i] = true;
                return Some(c);
            }
        }
        None
    }

    fn has(&mut self, m: &'static str) -> bool {
        self.take(&[m]).is_some()
    }

    /// Errors on the first modifier nobody consumed and that is not ignorable.
    fn finish(&self, ins: &RawInstr) -> Result<(), AsmError> {
        for (i, m) in self.list.iter().enumerate() {
            if self.used[i] || IGNORED.contains(m) {
                continue;
            }
            let opcode = ins.mnemonic.value.split('.').next().unwrap_or("");
            let mut e = at(
                &ins.mnemonic,
                format!("unknown modifier `.{m}` on {opcode}"),
            );
            let known: Vec<&str> = self.known.to_vec();
            e.expected = if known.is_empty() {
                Some(format!("{opcode} without modifiers"))
            } else {
                Some(format!("one of .{}", known.join(" .")))
            };
            if let Some(n) = nearest(m, &known) {
                e.hint = Some(format!("did you mean `.{n}`?"));
            }
            return Err(e);
        }
        Ok(())
    }
}

fn at<T>(loc: &Located<T>, message: impl Into<String>) -> AsmError {
    AsmError {
        line: 0,
        column: loc.column,
        len: loc.len.max(1),
        message: message.into(),
        expected: None,
        hint: None,
    }
}

/// Reads the operands of one instruction in order.
struct Operands<'a> {
    ins: &'a RawInstr,
    next: usize,
    labels: &'a HashMap<String, u32>,
}

impl<'a> Operands<'a> {
    fn peek(&self) -> Option<&'a Located<RawOperand>> {
        self.ins.operands.get(self.next)
    }

    fn take(&mut self, what: &str) -> Result<&'a Located<RawOperand>, AsmError> {
        match self.ins.operands.get(self.next) {
            Some(o) => {
                self.next += 1;
                Ok(o)
            }
            None => {
                let end = self
                    .ins
                    .operands
                    .last()
                    .map(|o| o.column + o.len)
                    .unwrap_or(self.ins.mnemonic.column + self.ins.mnemonic.len);
                let mut e = AsmError {
                    line: 0,
                    column: end,
                    len: 1,
                    message: format!(
                        "{} needs more operands: {what} is missing",
                        self.ins.mnemonic.value
                    ),
                    expected: Some(what.to_string()),
                    hint: None,
                };
                e.hint = Some(format!("the form is `{}`", usage(&self.ins.mnemonic.value)));
                Err(e)
            }
        }
    }

    fn done(&self) -> Result<(), AsmError> {
        match self.ins.operands.get(self.next) {
            None => Ok(()),
            Some(o) => {
                let mut e = at(
                    o,
                    format!(
                        "too many operands for {}: `{}`",
                        self.ins.mnemonic.value, o.text
                    ),
                );
                e.hint = Some(format!("the form is `{}`", usage(&self.ins.mnemonic.value)));
                Err(e)
            }
        }
    }

    fn wrong(&self, o: &Located<RawOperand>, what: &str) -> AsmError {
        let mut e = at(o, format!("`{}` is not {what}", o.text));
        e.expected = Some(what.to_string());
        e.hint = Some(format!("the form is `{}`", usage(&self.ins.mnemonic.value)));
        e
    }

    /// A destination register.
    fn dst(&mut self) -> Result<u8, AsmError> {
        let o = self.take("a destination register")?;
        match &o.value {
            RawOperand::Reg(r) if !r.neg && !r.abs && !r.not => Ok(r.reg),
            _ => Err(self.wrong(o, "a destination register (R0..R254 or RZ)")),
        }
    }

    /// A destination predicate (`P0`..`P6`, `PT` to discard).
    fn pdst(&mut self) -> Result<u8, AsmError> {
        let o = self.take("a destination predicate")?;
        match &o.value {
            RawOperand::Pred(p) if !p.negate => Ok(p.index),
            _ => Err(self.wrong(o, "a destination predicate (P0..P6 or PT)")),
        }
    }

    fn psrc(&mut self) -> Result<PredSrc, AsmError> {
        let o = self.take("a predicate")?;
        match &o.value {
            RawOperand::Pred(p) => Ok(*p),
            _ => Err(self.wrong(o, "a predicate (P0..P6, PT, or negated !P0)")),
        }
    }

    /// A register (no modifiers).
    fn reg(&mut self, what: &str) -> Result<u8, AsmError> {
        let o = self.take(what)?;
        match &o.value {
            RawOperand::Reg(r) if !r.neg && !r.abs && !r.not => Ok(r.reg),
            _ => Err(self.wrong(o, what)),
        }
    }

    /// An integer-typed value source.
    fn isrc(&mut self) -> Result<Src, AsmError> {
        let o = self.take("a source operand")?;
        match &o.value {
            RawOperand::Reg(r) if !r.abs => Ok(Src::Reg(*r)),
            RawOperand::Int { value, .. } => Ok(Src::Imm(*value as u32)),
            RawOperand::Const { bank, offset } => Ok(Src::Const {
                bank: *bank,
                offset: *offset,
            }),
            RawOperand::Float(_) => {
                let mut e = self.wrong(o, "an integer operand");
                e.hint = Some(
                    "integer instructions take integer immediates; write the bits in hex".into(),
                );
                Err(e)
            }
            _ => Err(self.wrong(o, "a register, integer immediate or constant")),
        }
    }

    /// A float-typed value source: decimal immediates are values, hex are bits.
    fn fsrc(&mut self) -> Result<Src, AsmError> {
        let o = self.take("a source operand")?;
        match &o.value {
            RawOperand::Reg(r) if !r.not => Ok(Src::Reg(*r)),
            RawOperand::Int { value, hex: true } => Ok(Src::Imm(*value as u32)),
            RawOperand::Int { value, hex: false } => Ok(Src::Imm((*value as f32).to_bits())),
            RawOperand::Float(v) => Ok(Src::Imm((*v as f32).to_bits())),
            RawOperand::Const { bank, offset } => Ok(Src::Const {
                bank: *bank,
                offset: *offset,
            }),
            _ => Err(self.wrong(o, "a register, float immediate or constant")),
        }
    }

    fn imm(&mut self, what: &str) -> Result<i64, AsmError> {
        let o = self.take(what)?;
        match &o.value {
            RawOperand::Int { value, .. } => Ok(*value),
            _ => Err(self.wrong(o, what)),
        }
    }

    fn mem(&mut self) -> Result<MemRef, AsmError> {
        let o = self.take("a memory operand")?;
        match &o.value {
            RawOperand::Mem { base, offset, wide } => {
                let offset = i32::try_from(*offset).map_err(|_| {
                    let mut e = at(o, "memory offset out of range");
                    e.expected = Some("an offset that fits in 32 bits".into());
                    e
                })?;
                Ok(MemRef {
                    base: *base,
                    offset,
                    wide: *wide,
                })
            }
            _ => Err(self.wrong(o, "a memory operand like `[R2+0x10]`")),
        }
    }

    fn barrier(&mut self) -> Result<u8, AsmError> {
        let o = self.take("a convergence barrier B0..B15")?;
        match &o.value {
            RawOperand::Barrier(b) => Ok(*b),
            _ => Err(self.wrong(o, "a convergence barrier B0..B15")),
        }
    }

    fn target(&mut self) -> Result<u32, AsmError> {
        let o = self.take("a branch target")?;
        match &o.value {
            RawOperand::Label(name) => self.labels.get(name).copied().ok_or_else(|| {
                let mut e = at(o, format!("no label `{name}` in the program"));
                e.expected = Some("a label defined as `name:`".into());
                let names: Vec<&str> = self.labels.keys().map(String::as_str).collect();
                if let Some(n) = names
                    .iter()
                    .map(|c| (strsim::damerau_levenshtein(name, c), *c))
                    .filter(|(d, _)| *d <= 3)
                    .min_by_key(|(d, _)| *d)
                    .map(|(_, c)| c)
                {
                    e.hint = Some(format!("did you mean `{n}`?"));
                } else {
                    e.hint = Some("define it with `name:` before an instruction".into());
                }
                e
            }),
            // A numeric target is a SASS byte address: 16 bytes per instruction.
            RawOperand::Int { value, .. } if *value >= 0 && value % 16 == 0 => {
                Ok((*value / 16) as u32)
            }
            _ => Err(self.wrong(o, "a label")),
        }
    }
}

/// The operand form of each opcode, for hints.
pub fn usage(mnemonic: &str) -> &'static str {
    match mnemonic.split('.').next().unwrap_or("") {
        "MOV" => "MOV Rd, src",
        "S2R" => "S2R Rd, SR_TID.X",
        "SEL" | "FSEL" => "SEL Rd, a, b, Pp",
        "IADD3" => "IADD3 Rd, [Pc,] a, b, c [, carry-in predicates with .X]",
        "IMAD" => "IMAD[.WIDE|.HI][.U32] Rd, a, b, c",
        "IMUL" => "IMUL[.WIDE|.HI][.U32] Rd, a, b",
        "ISETP" => "ISETP.LT.AND Pd, Pq, a, b, Pc",
        "LOP3" => "LOP3.LUT [Pd,] Rd, a, b, c, lut, Pc",
        "SHL" => "SHL Rd, a, b",
        "SHR" => "SHR[.U32|.S32] Rd, a, b",
        "IMNMX" => "IMNMX[.U32] Rd, a, b, Pp (PT: min, !PT: max)",
        "IABS" => "IABS Rd, a",
        "POPC" => "POPC Rd, a",
        "LEA" => "LEA Rd, [Pc,] a, b, shift  or  LEA.HI[.X] Rd, a, b, a_hi, shift [, Pc]",
        "FADD" => "FADD Rd, a, b",
        "FMUL" => "FMUL Rd, a, b",
        "FFMA" => "FFMA Rd, a, b, c",
        "FSETP" => "FSETP.GT.AND Pd, Pq, a, b, Pc",
        "FMNMX" => "FMNMX Rd, a, b, Pp (PT: min, !PT: max)",
        "I2F" => "I2F[.U32] Rd, a",
        "F2I" => "F2I[.TRUNC|.FLOOR|.CEIL][.U32] Rd, a",
        "MUFU" => "MUFU.EX2 Rd, a",
        "LDG" => "LDG.E[.64|.128|.U8|.S8|.U16|.S16] Rd, [Ra+imm]",
        "STG" => "STG.E[.64|.128|.U8|.U16] [Ra+imm], Rs",
        "LDS" => "LDS[.64|.128|.U8|.S8|.U16|.S16] Rd, [Ra+imm]",
        "STS" => "STS[.64|.128|.U8|.U16] [Ra+imm], Rs",
        "SHFL" => "SHFL.BFLY Pd, Rd, Ra, b, c",
        "VOTE" => "VOTE.ANY Rd, Pd, Ps",
        "BRA" => "BRA label",
        "BSSY" => "BSSY Bn, label",
        "BSYNC" => "BSYNC Bn",
        "BREAK" => "BREAK Bn",
        "WARPSYNC" => "WARPSYNC mask",
        "BAR" => "BAR.SYNC [id]",
        "DEPBAR" => "DEPBAR.LE SBn, count",
        "EXIT" => "EXIT",
        "NOP" => "NOP",
        _ => "OPCODE operands",
    }
}

const CMPS: &[&str] = &["LT", "LE", "GT", "GE", "EQ", "NE"];

fn cmp_of(s: &str) -> Cmp {
    match s {
        "LT" => Cmp::Lt,
        "LE" => Cmp::Le,
        "GT" => Cmp::Gt,
        "GE" => Cmp::Ge,
        "EQ" => Cmp::Eq,
        _ => Cmp::Ne,
    }
}

fn combine(m: &mut Mods, ins: &RawInstr) -> Result<Combine, AsmError> {
    match m.take(&["AND", "OR", "XOR"]) {
        Some("OR") => Ok(Combine::Or),
        Some("XOR") => Ok(Combine::Xor),
        Some(_) => Ok(Combine::And),
        None => {
            let mut e = at(
                &ins.mnemonic,
                format!("{} needs a combine", ins.mnemonic.value),
            );
            e.expected = Some("`.AND`, `.OR` or `.XOR`".into());
            e.hint = Some(format!("the form is `{}`", usage(&ins.mnemonic.value)));
            Err(e)
        }
    }
}

fn width(m: &mut Mods) -> Width {
    match m.take(&["U8", "S8", "U16", "S16", "32", "64", "128"]) {
        Some("U8") => Width::U8,
        Some("S8") => Width::S8,
        Some("U16") => Width::U16,
        Some("S16") => Width::S16,
        Some("64") => Width::B64,
        Some("128") => Width::B128,
        _ => Width::B32,
    }
}

fn need(
    m: &mut Mods,
    ins: &RawInstr,
    choices: &[&'static str],
    what: &str,
) -> Result<&'static str, AsmError> {
    m.take(choices).ok_or_else(|| {
        let mut e = at(
            &ins.mnemonic,
            format!("{} needs {what}", ins.mnemonic.value),
        );
        e.expected = Some(format!("one of .{}", choices.join(" .")));
        e.hint = Some(format!("the form is `{}`", usage(&ins.mnemonic.value)));
        e
    })
}

/// Types one instruction. `labels` maps label names to instruction indices.
pub(crate) fn build(
    ins: &RawInstr,
    labels: &HashMap<String, u32>,
) -> Result<(Op, Class), AsmError> {
    let mut parts = ins.mnemonic.value.split('.');
    let opcode = parts.next().unwrap_or("");
    let mut m = Mods::new(parts.collect());
    let mut o = Operands {
        ins,
        next: 0,
        labels,
    };
    let (op, class) = match opcode {
        "MOV" => {
            let d = o.dst()?;
            let a = o.isrc()?;
            // Older listings carry a lane mask (`MOV R0, R1, 0xf`): ignore it.
            if matches!(o.peek().map(|x| &x.value), Some(RawOperand::Int { .. })) {
                o.next += 1;
            }
            (Op::Mov { d, a }, Class::Alu)
        }
        "S2R" => {
            let d = o.dst()?;
            let s = o.take("a special register")?;
            let sr = match &s.value {
                RawOperand::Special(sr) => *sr,
                _ => {
                    let mut e = o.wrong(s, "a special register");
                    e.expected = Some(
                        "SR_TID.X, SR_CTAID.X, SR_NTID.X, SR_NCTAID.X, SR_LANEID or SR_VIRTUALWARPID"
                            .into(),
                    );
                    return Err(e);
                }
            };
            (Op::S2r { d, sr }, Class::Alu)
        }
        "SEL" | "FSEL" => {
            let d = o.dst()?;
            let (a, b) = if opcode == "FSEL" {
                (o.fsrc()?, o.fsrc()?)
            } else {
                (o.isrc()?, o.isrc()?)
            };
            let p = o.psrc()?;
            (Op::Sel { d, a, b, p }, Class::Alu)
        }
        "IADD3" => {
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
            (
                Op::Iadd3 {
                    d,
                    carry,
                    a,
                    b,
                    c,
                    carry_in,
                },
                Class::Alu,
            )
        }
        "IMAD" | "IMUL" => {
            let mode = match m.take(&["WIDE", "HI"]) {
                Some("WIDE") => MulMode::Wide,
                Some(_) => MulMode::Hi,
                None => MulMode::Lo,
            };
            let signed = m.take(&["U32", "S32"]) != Some("U32");
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
            (
                Op::Imad {
                    d,
                    a,
                    b,
                    c,
                    mode,
                    signed,
                },
                Class::Alu,
            )
        }
        "ISETP" => {
            let cmp = cmp_of(need(&mut m, ins, CMPS, "a comparison")?);
            let unsigned = m.take(&["U32", "S32"]) == Some("U32");
            let combine = combine(&mut m, ins)?;
            let p = o.pdst()?;
            let q = o.pdst()?;
            let a = o.isrc()?;
            let b = o.isrc()?;
            let c = o.psrc()?;
            (
                Op::Isetp {
                    cmp,
                    unsigned,
                    combine,
                    p,
                    q,
                    a,
                    b,
                    c,
                },
                Class::Alu,
            )
        }
        "LOP3" => {
            need(&mut m, ins, &["LUT"], "`.LUT`")?;
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
            (Op::Lop3 { p, d, a, b, c, lut }, Class::Alu)
        }
        "SHL" => {
            let d = o.dst()?;
            let a = o.isrc()?;
            let b = o.isrc()?;
            (Op::Shl { d, a, b }, Class::Alu)
        }
        "SHR" => {
            let signed = m.take(&["U32", "S32"]) == Some("S32");
            let d = o.dst()?;
            let a = o.isrc()?;
            let b = o.isrc()?;
            (Op::Shr { d, a, b, signed }, Class::Alu)
        }
        "IMNMX" => {
            let unsigned = m.take(&["U32", "S32"]) == Some("U32");
            let d = o.dst()?;
            let a = o.isrc()?;
            let b = o.isrc()?;
            let p = o.psrc()?;
            (
                Op::Imnmx {
                    d,
                    a,
                    b,
                    p,
                    unsigned,
                },
                Class::Alu,
            )
        }
        "IABS" => {
            let d = o.dst()?;
            let a = o.isrc()?;
            (Op::Iabs { d, a }, Class::Alu)
        }
        "POPC" => {
            let d = o.dst()?;
            let a = o.isrc()?;
            (Op::Popc { d, a }, Class::Alu)
        }
        "LEA" => {
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
            let hi_src = if hi {
                o.isrc()?
            } else {
                Src::Reg(RegSrc::plain(RZ))
            };
            let shift = o.imm("a shift amount")?;
            let carry_in = if x && o.peek().is_some() {
                o.psrc()?
            } else {
                PredSrc {
                    index: PT,
                    negate: true,
                }
            };
            (
                Op::Lea {
                    d,
                    carry,
                    a,
                    b,
                    hi_src,
                    shift: (shift & 31) as u32,
                    hi,
                    carry_in,
                },
                Class::Alu,
            )
        }
        "FADD" | "FMUL" => {
            let d = o.dst()?;
            let a = o.fsrc()?;
            let b = o.fsrc()?;
            let op = if opcode == "FADD" {
                Op::Fadd { d, a, b }
            } else {
                Op::Fmul { d, a, b }
            };
            (op, Class::Alu)
        }
        "FFMA" => {
            let d = o.dst()?;
            let a = o.fsrc()?;
            let b = o.fsrc()?;
            let c = o.fsrc()?;
            (Op::Ffma { d, a, b, c }, Class::Alu)
        }
        "FSETP" => {
            let names = &[
                "LT", "LE", "GT", "GE", "EQ", "NE", "LTU", "LEU", "GTU", "GEU", "EQU", "NEU",
                "NUM", "NAN",
            ];
            let c = need(&mut m, ins, names, "a comparison")?;
            let cmp = match c {
                "NUM" => FCmp::Num,
                "NAN" => FCmp::Nan,
                u if u.len() == 3 => FCmp::Unordered(cmp_of(&u[..2])),
                o => FCmp::Ordered(cmp_of(o)),
            };
            let combine = combine(&mut m, ins)?;
            let p = o.pdst()?;
            let q = o.pdst()?;
            let a = o.fsrc()?;
            let b = o.fsrc()?;
            let c = o.psrc()?;
            (
                Op::Fsetp {
                    cmp,
                    combine,
                    p,
                    q,
                    a,
                    b,
                    c,
                },
                Class::Alu,
            )
        }
        "FMNMX" => {
            let d = o.dst()?;
            let a = o.fsrc()?;
            let b = o.fsrc()?;
            let p = o.psrc()?;
            (Op::Fmnmx { d, a, b, p }, Class::Alu)
        }
        "I2F" => {
            m.take(&["F32"]);
            let unsigned = m.take(&["U32", "S32"]) == Some("U32");
            let d = o.dst()?;
            let a = o.isrc()?;
            (Op::I2f { d, a, unsigned }, Class::Alu)
        }
        "F2I" => {
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
            (
                Op::F2i {
                    d,
                    a,
                    unsigned,
                    round,
                },
                Class::Alu,
            )
        }
        "MUFU" => {
            let f = need(
                &mut m,
                ins,
                &["EX2", "LG2", "RCP", "RSQ", "SQRT", "SIN", "COS"],
                "a function",
            )?;
            let func = match f {
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
            (Op::Mufu { d, a, func }, Class::Sfu)
        }
        "LDG" | "LDS" => {
            let width = width(&mut m);
            let d = o.dst()?;
            let addr = o.mem()?;
            let (op, class) = if opcode == "LDG" {
                (Op::Ldg { d, addr, width }, Class::Global)
            } else {
                (Op::Lds { d, addr, width }, Class::Shared)
            };
            check_pair_alignment(ins, d, width)?;
            (op, class)
        }
        "STG" | "STS" => {
            let width = width(&mut m);
            let addr = o.mem()?;
            let s = o.reg("a source register")?;
            check_pair_alignment(ins, s, width)?;
            if opcode == "STG" {
                (Op::Stg { addr, s, width }, Class::Global)
            } else {
                (Op::Sts { addr, s, width }, Class::Shared)
            }
        }
        "SHFL" => {
            let mode = match need(&mut m, ins, &["IDX", "UP", "DOWN", "BFLY"], "a mode")? {
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
            (
                Op::Shfl {
                    p,
                    d,
                    a,
                    b,
                    c,
                    mode,
                },
                Class::Shared,
            )
        }
        "VOTE" => {
            let mode = match need(&mut m, ins, &["ALL", "ANY", "EQ"], "a mode")? {
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
            (Op::Vote { mode, d, p, src }, Class::Alu)
        }
        "BRA" => {
            let target = o.target()?;
            (Op::Bra { target }, Class::Control)
        }
        "BSSY" => {
            let barrier = o.barrier()?;
            let target = o.target()?;
            (Op::Bssy { barrier, target }, Class::Control)
        }
        "BSYNC" => (
            Op::Bsync {
                barrier: o.barrier()?,
            },
            Class::Control,
        ),
        "BREAK" => (
            Op::Break {
                barrier: o.barrier()?,
            },
            Class::Control,
        ),
        "WARPSYNC" => {
            let mask = if m.has("ALL") || o.peek().is_none() {
                Src::Imm(u32::MAX)
            } else {
                o.isrc()?
            };
            (Op::Warpsync { mask }, Class::Control)
        }
        "BAR" => {
            need(&mut m, ins, &["SYNC"], "`.SYNC`")?;
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
            (Op::BarSync { id: id as u32 }, Class::Control)
        }
        "DEPBAR" => {
            need(&mut m, ins, &["LE"], "`.LE`")?;
            let s = o.take("a scoreboard SB0..SB5")?;
            let sb = match &s.value {
                RawOperand::Scoreboard(n) => *n,
                _ => return Err(o.wrong(s, "a scoreboard SB0..SB5")),
            };
            let le = o.imm("a count")?;
            let le = u8::try_from(le).map_err(|_| {
                let mut e = at(&ins.operands[o.next - 1], "count out of range");
                e.expected = Some("0..63".into());
                e
            })?;
            (Op::Depbar { sb, le }, Class::Control)
        }
        "EXIT" => (Op::Exit, Class::Control),
        "NOP" => (Op::Nop, Class::Control),
        other => {
            let mut e = at(&ins.mnemonic, format!("unknown opcode `{other}`"));
            e.len = other.chars().count() as u32;
            e.expected = Some("an opcode such as FFMA, ISETP, LDG or BRA".into());
            e.hint = match nearest(other, OPCODES) {
                Some(n) => Some(format!("did you mean `{n}`?")),
                None => Some(format!("supported opcodes: {}", OPCODES.join(" "))),
            };
            return Err(e);
        }
    };
    o.done()?;
    m.finish(ins)?;
    Ok((op, class))
}

/// Wide accesses name a register group that must be aligned, as in SASS.
fn check_pair_alignment(ins: &RawInstr, reg: u8, width: Width) -> Result<(), AsmError> {
    let n = width.regs();
    if n > 1 && reg != RZ && (!reg.is_multiple_of(n) || u16::from(reg) + u16::from(n) > 255) {
        let mut e = at(
            &ins.mnemonic,
            format!(
                "a {}-bit access needs an aligned register group: R{reg} is not a multiple of {n}",
                width.bytes() * 8
            ),
        );
        e.expected = Some(format!("R{}", reg - reg % n));
        return Err(e);
    }
    Ok(())
}
