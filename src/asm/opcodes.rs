//! Typing one instruction: its modifiers and operands read, as its entry
//! in the opcode table ([`crate::isa`]) says, into a typed [`Op`], with
//! errors that name the operand and the opcode's form.

use std::collections::HashMap;

use super::AsmError;
use super::ir::{
    AtomOp, Class, Cmp, Combine, FCmp, MemRef, MufuOp, MulMode, Op, PT, PredSrc, RZ, ReduxOp,
    RegSrc, Round, ShflMode, SpecialReg, Src, UPT, URZ, VoteMode, Width,
};
use super::parser::{Located, RawInstr, RawOperand};

pub use crate::isa::{OPCODES, usage};

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

    /// A 32-bit instruction immediate: the field holds 32 bits, read as
    /// signed or unsigned, so `-2^31..=2^32-1` is the range either way.
    /// Literals too long for 64 bits saturate in the parser and land here.
    fn imm32(o: &Located<RawOperand>, value: i64) -> Result<u32, AsmError> {
        if (-(1i64 << 31)..=u32::MAX as i64).contains(&value) {
            return Ok(value as u32);
        }
        if o.text.contains(['x', 'X']) && value == i64::MAX {
            // A hex literal past 63 bits (`MOV.64 R14, 0xfff8000000000000`).
            let mut e = at(o, format!("immediate `{}` does not fit 32 bits", o.text));
            e.expected = Some("an integer from -2147483648 to 4294967295 (0xffffffff)".into());
            e.hint = Some(
                "only MOV.64 and UMOV.64 take a 64-bit immediate; load the value from a \
                 constant"
                    .into(),
            );
            return Err(e);
        }
        let mut e = at(o, format!("immediate `{}` does not fit 32 bits", o.text));
        e.expected = Some("an integer from -2147483648 to 4294967295 (0xffffffff)".into());
        e.hint = Some("an instruction's immediate field holds 32 bits".into());
        Err(e)
    }

    /// A decimal integer read as a float value; a literal too long for 64
    /// bits (the parser saturates it) is refused rather than rounded.
    fn exact_int(o: &Located<RawOperand>, value: i64) -> Result<f64, AsmError> {
        if value.unsigned_abs() < i64::MAX as u64 {
            return Ok(value as f64);
        }
        let mut e = at(o, format!("`{}` is too long for a literal", o.text));
        e.expected = Some("an integer of at most 63 bits, or a float such as 1.5e20".into());
        e.hint = Some("write large float values with an exponent".into());
        Err(e)
    }

    /// A float literal as an f32 immediate: refused when the decimal value
    /// is beyond f32's range (`1e999`, `3.5e38`), so it never silently
    /// becomes infinity; `INF` and `NAN` say what they mean.
    fn float_imm(o: &Located<RawOperand>, v: f64, wide: bool) -> Result<f64, AsmError> {
        let spelled_special = {
            let t = o.text.to_ascii_uppercase();
            t.contains("INF") || t.contains("NAN")
        };
        let max = if wide { f64::MAX } else { f32::MAX as f64 };
        if spelled_special || v.abs() <= max {
            return Ok(v);
        }
        let ty = if wide { "f64" } else { "f32" };
        let mut e = at(o, format!("`{}` is out of the range of {ty}", o.text));
        e.expected = Some(format!(
            "a finite {ty} (magnitude at most {})",
            if wide {
                "1.7976931348623157e308"
            } else {
                "3.4028235e38"
            }
        ));
        e.hint = Some("write INF or -INF for an infinity".into());
        Err(e)
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
            RawOperand::UReg(r) if !r.abs => Ok(Src::UReg(*r)),
            RawOperand::Int { value, .. } => Ok(Src::Imm(Self::imm32(o, *value)?)),
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
            RawOperand::UReg(r) if !r.not => Ok(Src::UReg(*r)),
            RawOperand::Int { value, hex: true } => Ok(Src::Imm(Self::imm32(o, *value)?)),
            RawOperand::Int { value, hex: false } => Ok(Src::Imm(
                (Self::float_imm(o, Self::exact_int(o, *value)?, false)? as f32).to_bits(),
            )),
            RawOperand::Float(v) => Ok(Src::Imm((Self::float_imm(o, *v, false)? as f32).to_bits())),
            RawOperand::Const { bank, offset } => Ok(Src::Const {
                bank: *bank,
                offset: *offset,
            }),
            _ => Err(self.wrong(o, "a register, float immediate or constant")),
        }
    }

    /// An f64 source (one of a register pair): a decimal or float
    /// immediate is a value, kept as its high word (SASS encodes f64
    /// immediates so: the low word is 0); hex is the high word's bits.
    fn dsrc(&mut self) -> Result<Src, AsmError> {
        let o = self.take("a source operand")?;
        match &o.value {
            RawOperand::Reg(r) if !r.not => {
                if r.reg != RZ && r.reg % 2 != 0 {
                    let mut e = self.wrong(o, "an even register (an f64 register pair)");
                    e.expected = Some(format!("R{}", r.reg - 1));
                    return Err(e);
                }
                Ok(Src::Reg(*r))
            }
            // `DMUL R6, R6, UR6`: the uniform pair UR6:UR7.
            RawOperand::UReg(r) if !r.not => {
                if r.reg != URZ && r.reg % 2 != 0 {
                    let mut e = self.wrong(o, "an even uniform register (an f64 pair)");
                    e.expected = Some(format!("UR{}", r.reg - 1));
                    return Err(e);
                }
                Ok(Src::UReg(*r))
            }
            RawOperand::Int { value, hex: true } => Ok(Src::Imm(Self::imm32(o, *value)?)),
            RawOperand::Int { value, hex: false } => Ok(Src::Imm(
                (Self::exact_int(o, *value)?.to_bits() >> 32) as u32,
            )),
            RawOperand::Float(v) => Ok(Src::Imm(
                (Self::float_imm(o, *v, true)?.to_bits() >> 32) as u32,
            )),
            RawOperand::Const { bank, offset } => Ok(Src::Const {
                bank: *bank,
                offset: *offset,
            }),
            _ => Err(self.wrong(o, "a register pair, float immediate or constant")),
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
            RawOperand::Mem {
                base,
                offset,
                wide,
                ubase,
                scale,
            } => {
                let offset = i32::try_from(*offset).map_err(|_| {
                    let mut e = at(o, "memory offset out of range");
                    e.expected = Some("an offset that fits in 32 bits".into());
                    e
                })?;
                Ok(MemRef {
                    base: *base,
                    offset,
                    wide: *wide,
                    ubase: *ubase,
                    scale: *scale,
                })
            }
            _ => Err(self.wrong(o, "a memory operand like `[R2+0x10]`")),
        }
    }

    /// True when the next operand is a predicate (`P`) or, with
    /// `uniform`, a uniform predicate (`UP`).
    /// A 64-bit integer immediate if one is next (`MOV.64 R14,
    /// 0xfff8000000000000`), read from its text: hex up to 16 digits, or
    /// a decimal `i64`; `None` (nothing taken) for another operand.
    fn imm64(&mut self) -> Result<Option<u64>, AsmError> {
        let Some(o) = self.peek() else {
            return Ok(None);
        };
        let RawOperand::Int { value, hex } = o.value else {
            return Ok(None);
        };
        self.next += 1;
        let text = o.text.trim();
        let (neg, digits) = match text.strip_prefix('-') {
            Some(t) => (true, t),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let v = if hex {
            let h = digits.get(2..).unwrap_or("");
            u64::from_str_radix(h, 16).ok()
        } else if value == i64::MAX && digits != i64::MAX.to_string() {
            None
        } else {
            Some(value.unsigned_abs())
        };
        let Some(v) = v else {
            let mut e = at(o, format!("immediate `{}` does not fit 64 bits", o.text));
            e.expected = Some("at most 16 hex digits (0xffffffffffffffff)".into());
            return Err(e);
        };
        Ok(Some(if neg { v.wrapping_neg() } else { v }))
    }

    fn next_is_pred(&self, uniform: bool) -> bool {
        match self.peek().map(|x| &x.value) {
            Some(RawOperand::Pred(_)) => !uniform,
            Some(RawOperand::UPred(_)) => uniform,
            _ => false,
        }
    }

    /// A destination uniform register (`UR0`..`UR63`, `URZ`).
    fn udst(&mut self) -> Result<u8, AsmError> {
        let o = self.take("a destination uniform register")?;
        match &o.value {
            RawOperand::UReg(r) if !r.neg && !r.abs && !r.not => Ok(r.reg),
            _ => Err(self.wrong(o, "a destination uniform register (UR0..UR63 or URZ)")),
        }
    }

    /// A destination uniform predicate (`UP0`..`UP6`, `UPT` to discard).
    fn updst(&mut self) -> Result<u8, AsmError> {
        let o = self.take("a destination uniform predicate")?;
        match &o.value {
            RawOperand::UPred(p) if !p.negate => Ok(p.index),
            _ => Err(self.wrong(o, "a destination uniform predicate (UP0..UP6 or UPT)")),
        }
    }

    /// A uniform predicate source (`UP0`..`UP6`, `UPT`, maybe negated).
    fn upsrc(&mut self) -> Result<PredSrc, AsmError> {
        let o = self.take("a uniform predicate")?;
        match &o.value {
            RawOperand::UPred(p) => Ok(*p),
            _ => Err(self.wrong(o, "a uniform predicate (UP0..UP6, UPT, or negated !UP0)")),
        }
    }

    /// A source of a uniform-datapath instruction: a uniform register, an
    /// integer immediate or a constant (no per-lane registers).
    fn usrc(&mut self) -> Result<Src, AsmError> {
        let o = self.take("a uniform source operand")?;
        match &o.value {
            RawOperand::UReg(r) if !r.abs => Ok(Src::UReg(*r)),
            RawOperand::Reg(r) if r.reg == RZ && !r.abs => Ok(Src::UReg(RegSrc { reg: URZ, ..*r })),
            RawOperand::Int { value, .. } => Ok(Src::Imm(Self::imm32(o, *value)?)),
            RawOperand::Const { bank, offset } => Ok(Src::Const {
                bank: *bank,
                offset: *offset,
            }),
            _ => Err(self.wrong(
                o,
                "a uniform register (UR0..UR63, URZ), integer immediate or constant",
            )),
        }
    }

    /// A special register (`SR_TID.X`, `SRZ`, ...).
    fn special(&mut self) -> Result<SpecialReg, AsmError> {
        let sr = self.take("a special register")?;
        match &sr.value {
            RawOperand::Special(s) => Ok(*s),
            _ => {
                let mut e = self.wrong(sr, "a special register");
                e.expected = Some(
                    "SR_TID.X/Y/Z, SR_CTAID.X/Y/Z, SR_NTID.X, SR_NCTAID.X, SR_LANEID, \
                     SR_CgaCtaId, SR_CLOCKLO, SR_LTMASK, SRZ, ..."
                        .into(),
                );
                Err(e)
            }
        }
    }

    /// A constant operand: `(bank, index register or RZ, byte offset)`.
    fn constant(&mut self) -> Result<(u8, u8, u32), AsmError> {
        let o = self.take("a constant `c[0x0][0x160]`")?;
        match &o.value {
            RawOperand::Const { bank, offset } => Ok((*bank, RZ, *offset)),
            RawOperand::ConstIdx { bank, base, offset } => {
                let offset = u32::try_from(*offset).map_err(|_| {
                    let mut e = at(o, "constant offset out of range");
                    e.expected = Some("an offset 0..0xffff".into());
                    e
                })?;
                Ok((*bank, *base, offset))
            }
            _ => Err(self.wrong(o, "a constant `c[0x0][0x160]` or `c[0x0][R2+0x10]`")),
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

/// The words of a constant load of `width` at byte `offset` of `bank`, as
/// constant operands for linking to resolve (unused words read `RZ`), and
/// the byte of the first word a sub-word load starts at.
fn constant_words(bank: u8, offset: u32, width: Width) -> ([Src; 4], u8) {
    let word = offset & !3;
    let mut w = [Src::Reg(RegSrc::plain(RZ)); 4];
    for (k, slot) in w.iter_mut().enumerate().take(usize::from(width.regs())) {
        *slot = Src::Const {
            bank,
            offset: word.saturating_add(4 * k as u32),
        };
    }
    (w, (offset & 3) as u8)
}

/// The operation of an `ATOMG`/`ATOMS`/`RED` from its modifiers, and its
/// width (`.64`: the word is a register pair's 64 bits). `.CAST.SPIN`
/// (a compare-and-store) gives [`AtomOp::CasSpin`] with its predicate
/// destination still `PT`: the operands say whether it has one.
fn atom_op(m: &mut Mods, ins: &RawInstr) -> Result<(AtomOp, Width), AsmError> {
    let sign = m.take(&["S32", "U32", "32", "S64", "U64"]);
    let signed = sign.is_some_and(|s| s.starts_with('S'));
    let width = if m.has("64") || sign.is_some_and(|s| s.ends_with("64")) {
        Width::B64
    } else {
        Width::B32
    };
    let op = match need(
        m,
        ins,
        &[
            "ADD", "INC", "DEC", "EXCH", "CAS", "CAST", "MIN", "MAX", "AND", "OR", "XOR", "POPC",
        ],
        "an operation",
    )? {
        "ADD" => AtomOp::Add,
        "INC" => AtomOp::Inc,
        "DEC" => AtomOp::Dec,
        "EXCH" => AtomOp::Exch,
        "CAS" => AtomOp::Cas,
        "CAST" => {
            // `ATOMS.CAST.SPIN`: the compare-and-store of a CAS loop.
            need(m, ins, &["SPIN"], "`.SPIN` after `.CAST`")?;
            AtomOp::CasSpin { p: PT }
        }
        "MIN" => AtomOp::Min { signed },
        "MAX" => AtomOp::Max { signed },
        "AND" => AtomOp::And,
        "OR" => AtomOp::Or,
        "XOR" => AtomOp::Xor,
        _ => {
            // `ATOMS.POPC.INC`: add the number of lanes that are on.
            need(m, ins, &["INC"], "`.INC` after `.POPC`")?;
            AtomOp::PopcInc
        }
    };
    Ok((op, width))
}

/// The modifiers SHF and USHF share: `.L`/`.R` (left?), `.W`, the kind
/// (`.U32` unless `.S32` or `.U64`) and `.HI`.
fn shf_modifiers(
    m: &mut Mods,
    ins: &RawInstr,
) -> Result<(bool, bool, crate::isa::semantics::ShfKind, bool), AsmError> {
    use crate::isa::semantics::ShfKind;
    let left = need(m, ins, &["L", "R"], "a direction")? == "L";
    let wrap = m.has("W");
    let kind = match m.take(&["U32", "S32", "U64"]) {
        Some("S32") => ShfKind::S32,
        Some("U64") => ShfKind::U64,
        _ => ShfKind::U32,
    };
    Ok((left, wrap, kind, m.has("HI")))
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

/// Which of `srcs` are literals (bit `i` for source `i`): a 64-bit source
/// reads a literal differently from a constant linked in later.
fn lits(srcs: &[Src]) -> u8 {
    srcs.iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Src::Imm(_)))
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// A rounding modifier (`.RN` when none).
fn rounding(m: &mut Mods) -> Round {
    match m.take(&["RN", "RZ", "RM", "RP"]) {
        Some("RZ") => Round::Trunc,
        Some("RM") => Round::Floor,
        Some("RP") => Round::Ceil,
        _ => Round::Nearest,
    }
}

/// A float comparison, ordered, unordered (`..U`), `NUM` or `NAN`.
fn fcmp(m: &mut Mods, ins: &RawInstr) -> Result<FCmp, AsmError> {
    let names = &[
        "LT", "LE", "GT", "GE", "EQ", "NE", "LTU", "LEU", "GTU", "GEU", "EQU", "NEU", "NUM", "NAN",
    ];
    Ok(match need(m, ins, names, "a comparison")? {
        "NUM" => FCmp::Num,
        "NAN" => FCmp::Nan,
        u if u.len() == 3 => FCmp::Unordered(cmp_of(&u[..2])),
        o => FCmp::Ordered(cmp_of(o)),
    })
}

/// An 8-bit truth table.
fn lut8(o: &mut Operands, ins: &RawInstr) -> Result<u8, AsmError> {
    let lut = o.imm("a truth table (0x00..0xff)")?;
    u8::try_from(lut).map_err(|_| {
        let mut e = at(&ins.operands[o.next - 1], "truth table out of range");
        e.expected = Some("0x00..0xff".into());
        e
    })
}

/// A half2 multiplicand: its `-` taken off as a flag (it flips both
/// halves' signs, not the 32-bit value's).
fn half_src(o: &mut Operands) -> Result<(Src, bool), AsmError> {
    let s = o.isrc()?;
    Ok(match s {
        Src::Reg(r) if r.neg => (Src::Reg(RegSrc { neg: false, ..r }), true),
        s => (s, false),
    })
}

/// A half2 addend: a register or constant, or two half immediates (the
/// high half first, as listings print them).
fn half_pair(o: &mut Operands) -> Result<Src, AsmError> {
    let half = |v: &RawOperand| match v {
        RawOperand::Float(x) => Some(crate::isa::semantics::f64_to_f16(*x, 0.0)),
        RawOperand::Int { value, hex: false } => {
            Some(crate::isa::semantics::f64_to_f16(*value as f64, 0.0))
        }
        RawOperand::Int { value, hex: true } => u16::try_from(*value).ok(),
        _ => None,
    };
    let first = o.peek().map(|x| half(&x.value));
    match first {
        Some(Some(hi)) => {
            o.next += 1;
            let lo = o.take("the low half")?;
            let Some(lo) = half(&lo.value) else {
                return Err(o.wrong(lo, "a half immediate (the low half)"));
            };
            Ok(Src::Imm(u32::from(hi) << 16 | u32::from(lo)))
        }
        _ => o.isrc(),
    }
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
    let Some(op) = decode(opcode, ins, &mut m, &mut o)? else {
        let mut e = at(&ins.mnemonic, format!("unknown opcode `{opcode}`"));
        e.len = opcode.chars().count() as u32;
        e.expected = Some("an opcode such as FFMA, ISETP, LDG or BRA".into());
        e.hint = match nearest(opcode, OPCODES) {
            Some(n) => Some(format!("did you mean `{n}`?")),
            None => Some(format!("supported opcodes: {}", OPCODES.join(" "))),
        };
        return Err(e);
    };
    o.done()?;
    m.finish(ins)?;
    let class = op.class();
    Ok((op, class))
}

/// Types an instruction's operands by its opcode's table entry (see
/// [`crate::isa`]); `None` for an opcode not in the table.
macro_rules! decoder {
    (
        binders ($opc:ident, $ins:ident, $m:ident, $o:ident, $rw:ident, $x:ident);
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
        #[allow(unused_variables)]
        fn decode(
            $opc: &str,
            $ins: &RawInstr,
            $m: &mut Mods,
            $o: &mut Operands,
        ) -> Result<Option<Op>, AsmError> {
            Ok(Some(match $opc {
                $($($sp)|+ => {
                    $($decode)*
                    Op::$V $({ $($f),* })?
                })*
                _ => return Ok(None),
            }))
        }
    };
}

crate::isa::opcode_table!(decoder);

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
