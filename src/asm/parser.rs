//! Line syntax: `[CONTROL] [@[!]Pn] OPCODE[.MOD...] operand, ... [;]`, labels,
//! and the comments real listings carry (`/*0070*/`, `/* 0x... */`, `//`, `#`).
//!
//! Parsing is in two steps: nom reads the shape of a line and of each operand
//! into untyped [`RawOperand`]s with their columns; `opcodes` then types them
//! per opcode, so an error can say which operand of which opcode is wrong.

use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case, take_while, take_while1};
use nom::character::complete::{char, digit1, hex_digit1, space0};
use nom::combinator::{all_consuming, map, opt, recognize};
use nom::sequence::{delimited, pair, preceded, terminated};
use nom::{IResult, Parser};
use nom_language::error::VerboseError;
use nom_locate::LocatedSpan;

use super::AsmError;
use super::ir::{
    Control, PT, PredSrc, RZ, RegSrc, SCOREBOARDS, SpecialReg, UNIFORM_REGS, UPT, URZ,
};

pub(crate) type Span<'a> = LocatedSpan<&'a str>;
type Res<'a, T> = IResult<Span<'a>, T, VerboseError<Span<'a>>>;

/// A value with the 1-based column and length of its text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Located<T> {
    pub value: T,
    pub column: u32,
    pub len: u32,
    pub text: String,
}

/// An operand before it is typed by its opcode.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RawOperand {
    Reg(RegSrc),
    Pred(PredSrc),
    /// An integer literal; `hex` keeps whether it was written in hex, since
    /// float instructions read hex as raw bits and decimal as a value.
    Int {
        value: i64,
        hex: bool,
    },
    Float(f64),
    Const {
        bank: u8,
        offset: u32,
    },
    Mem {
        base: u8,
        offset: i64,
        wide: bool,
        /// Uniform register added to the address (`URZ`: none).
        ubase: u8,
        /// `[Rn.X4]`: the register scaled by 4 (1: unscaled).
        scale: u8,
    },
    /// `c[bank][Rn+offset]`: a constant indexed by a register (LDC).
    ConstIdx {
        bank: u8,
        base: u8,
        offset: i64,
    },
    /// A uniform register `UR0`..`UR63`, `URZ` (255), with modifiers.
    UReg(RegSrc),
    /// A uniform predicate `UP0`..`UP6`, `UPT` (7), maybe negated.
    UPred(PredSrc),
    Special(SpecialReg),
    Barrier(u8),
    Scoreboard(u8),
    Label(String),
}

/// One instruction as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawInstr {
    pub control: Option<Control>,
    pub guard: Option<Located<PredSrc>>,
    /// Upper-cased opcode with modifiers.
    pub mnemonic: Located<String>,
    pub operands: Vec<Located<RawOperand>>,
    /// The instruction text from guard to end, trimmed.
    pub text: String,
    /// Column where `text` starts.
    pub column: u32,
}

/// One program line: labels it defines, then at most one instruction.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RawLine {
    pub labels: Vec<Located<String>>,
    pub instr: Option<RawInstr>,
}

/// Replaces comments by spaces, keeping every other character's column.
pub(crate) fn blank_comments(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut in_block = false;
    while let Some(c) = chars.next() {
        if in_block {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                out.push_str("  ");
                in_block = false;
            } else {
                out.push(' ');
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push_str("  ");
                in_block = true;
            }
            '/' if chars.peek() == Some(&'/') => break,
            '#' => break,
            _ => out.push(c),
        }
    }
    out
}

fn err(column: usize, len: usize, message: impl Into<String>) -> AsmError {
    AsmError {
        line: 0,
        column: column as u32,
        len: len.max(1) as u32,
        message: message.into(),
        expected: None,
        hint: None,
    }
}

fn column_of(s: &Span) -> usize {
    s.get_utf8_column()
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}

fn identifier(i: Span) -> Res<Span> {
    recognize(pair(take_while1(is_ident_start), take_while(is_ident_char))).parse(i)
}

/// Parses one line (comments already blanked). Line numbers are filled in
/// by the caller.
pub(crate) fn parse_line(line: &str) -> Result<RawLine, AsmError> {
    let mut out = RawLine::default();
    let mut rest = Span::new(line);
    // Labels: `name:` (several may share a line, an instruction may follow).
    loop {
        let (after_ws, _) =
            space0::<_, VerboseError<Span>>(rest).map_err(|_| err(1, 1, "bad line"))?;
        let parsed: Res<Span> = identifier(after_ws);
        match parsed {
            Ok((after, name)) if after.fragment().starts_with(':') => {
                out.labels.push(Located {
                    value: name.fragment().to_string(),
                    column: column_of(&name) as u32,
                    len: name.fragment().chars().count() as u32,
                    text: name.fragment().to_string(),
                });
                rest = slice_from(after, 1);
            }
            _ => {
                rest = after_ws;
                break;
            }
        }
    }
    let body = rest.fragment().trim_end();
    let body = body.strip_suffix(';').unwrap_or(body).trim_end();
    if body.trim().is_empty() {
        return Ok(out);
    }
    // `body` is a sub-slice of `line`: its byte offset is where it starts.
    let start = rest.location_offset();
    out.instr = Some(parse_instr(line, start, body.len())?);
    Ok(out)
}

fn slice_from(s: Span<'_>, n: usize) -> Span<'_> {
    use nom::Input;
    s.take_from(n)
}

/// Byte offset to 1-based character column.
fn col(line: &str, byte: usize) -> usize {
    line.get(..byte).map_or(byte, |p| p.chars().count()) + 1
}

fn parse_instr(line: &str, start: usize, len: usize) -> Result<RawInstr, AsmError> {
    let mut pos = start;
    let end = start + len;
    let text_at = |a: usize, b: usize| line.get(a..b).unwrap_or("");
    let skip_ws = |p: usize| {
        let s = text_at(p, end);
        p + (s.len() - s.trim_start().len())
    };

    // Control code.
    let mut control = None;
    if text_at(pos, end).starts_with('[') {
        let close = text_at(pos, end).find(']').ok_or_else(|| {
            let mut e = err(col(line, pos), end - pos, "unterminated control code");
            e.expected = Some("`]` closing the control code".into());
            e.hint = Some("a control code looks like `[B------:R-:W2:-:S04]`".into());
            e
        })?;
        let inner = text_at(pos + 1, pos + close);
        control = Some(parse_control(inner).map_err(|(msg, hint)| {
            let mut e = err(col(line, pos), close + 1, msg);
            e.expected = Some(
                "`[B------:R-:W-:-:S01]` (wait mask, read barrier, write barrier, yield, stall)"
                    .into(),
            );
            e.hint = Some(hint);
            e
        })?);
        pos = skip_ws(pos + close + 1);
    }
    let text_start = pos;

    // Guard predicate.
    let mut guard = None;
    if text_at(pos, end).starts_with('@') {
        let word_end = pos
            + text_at(pos, end)
                .find(char::is_whitespace)
                .unwrap_or(end - pos);
        let word = text_at(pos + 1, word_end);
        let p = parse_pred_text(word).ok_or_else(|| {
            let mut e = err(
                col(line, pos),
                word_end - pos,
                format!("bad guard `{}`", text_at(pos, word_end)),
            );
            e.expected = Some(
                "a guard predicate `@P0`..`@P6`, `@PT`, `@UP0`..`@UP6` or negated `@!P0`".into(),
            );
            e
        })?;
        guard = Some(Located {
            value: p,
            column: col(line, pos) as u32,
            len: (word_end - pos) as u32,
            text: text_at(pos, word_end).to_string(),
        });
        pos = skip_ws(word_end);
    }

    // Mnemonic.
    let m_len = text_at(pos, end)
        .find(|c: char| c.is_whitespace() || c == ',')
        .unwrap_or(end - pos);
    let m_text = text_at(pos, pos + m_len);
    if m_text.is_empty()
        || !m_text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
    {
        let mut e = err(
            col(line, pos),
            m_len.max(1),
            format!("expected an opcode, found `{m_text}`"),
        );
        e.expected = Some("an opcode such as `FFMA` or `ISETP.GE.AND`".into());
        return Err(e);
    }
    let mnemonic = Located {
        value: m_text.to_ascii_uppercase(),
        column: col(line, pos) as u32,
        len: m_text.chars().count() as u32,
        text: m_text.to_string(),
    };
    pos = skip_ws(pos + m_len);

    // Operands, comma separated (no operand syntax contains a comma).
    let mut operands = Vec::new();
    if pos < end {
        let mut p = pos;
        for piece in text_at(pos, end).split(',') {
            let lead = piece.len() - piece.trim_start().len();
            let trimmed = piece.trim();
            let at = p + lead;
            if trimmed.is_empty() {
                let mut e = err(col(line, at.min(end)), 1, "empty operand");
                e.expected = Some("an operand between the commas".into());
                return Err(e);
            }
            let value = parse_operand(trimmed).map_err(|mut e| {
                e.column = col(line, at) as u32;
                e.len = trimmed.chars().count() as u32;
                e
            })?;
            operands.push(Located {
                value,
                column: col(line, at) as u32,
                len: trimmed.chars().count() as u32,
                text: trimmed.to_string(),
            });
            p += piece.len() + 1;
        }
    }
    Ok(RawInstr {
        control,
        guard,
        mnemonic,
        operands,
        text: text_at(text_start, end).trim().to_string(),
        column: col(line, text_start) as u32,
    })
}

/// Parses a control code's inside, `B------:R-:W2:-:S04`, with an optional
/// leading operand-reuse field (`R---:`). Errors carry a field-specific hint.
pub(crate) fn parse_control(inner: &str) -> Result<Control, (String, String)> {
    let bad =
        |msg: &str, hint: &str| Err((format!("malformed control code: {msg}"), hint.to_string()));
    let fields: Vec<&str> = inner.split(':').map(str::trim).collect();
    let fields: &[&str] = match fields.len() {
        5 => &fields,
        6 => {
            let reuse = fields[0];
            if !(reuse.len() == 4 && reuse.chars().all(|c| c == 'R' || c == '-')) {
                return bad(
                    &format!("reuse field `{reuse}`"),
                    "the optional first field is four places of `R` or `-`, like `R---`",
                );
            }
            &fields[1..]
        }
        n => {
            return bad(
                &format!("{n} fields"),
                "a control code has five fields separated by `:` (six with a leading reuse field)",
            );
        }
    };
    let wait = fields[0];
    let Some(places) = wait.strip_prefix('B') else {
        return bad(
            &format!("wait mask `{wait}`"),
            "the wait mask starts with `B`, like `B--2---`",
        );
    };
    if places.chars().count() != SCOREBOARDS {
        return bad(
            &format!("wait mask `{wait}` has {} places", places.chars().count()),
            "the wait mask has six places, one per scoreboard: `B------`",
        );
    }
    let mut wait_mask = 0u8;
    for (n, c) in places.chars().enumerate() {
        match c {
            '-' => {}
            d if d.to_digit(10) == Some(n as u32) => wait_mask |= 1 << n,
            d => {
                return bad(
                    &format!("wait mask place {n} holds `{d}`"),
                    &format!(
                        "place n holds the digit n or `-`: place {n} waits on scoreboard {n} as `{n}`"
                    ),
                );
            }
        }
    }
    let barrier = |f: &str, letter: char, what: &str| -> Result<Option<u8>, (String, String)> {
        let Some(rest) = f.strip_prefix(letter) else {
            return Err((
                format!("malformed control code: {what} `{f}`"),
                format!("the {what} is `{letter}-` or `{letter}0`..`{letter}5`"),
            ));
        };
        match rest {
            "-" => Ok(None),
            d => match d.parse::<u8>() {
                Ok(v) if (v as usize) < SCOREBOARDS => Ok(Some(v)),
                _ => Err((
                    format!("malformed control code: {what} `{f}`"),
                    format!("the {what} is `{letter}-` or `{letter}0`..`{letter}5`"),
                )),
            },
        }
    };
    let read_barrier = barrier(fields[1], 'R', "read barrier")?;
    let write_barrier = barrier(fields[2], 'W', "write barrier")?;
    let yield_hint = match fields[3] {
        "Y" => true,
        "-" => false,
        y => {
            return bad(
                &format!("yield field `{y}`"),
                "the yield field is `Y` or `-`",
            );
        }
    };
    let stall = fields[4];
    let stall = match stall.strip_prefix('S').map(str::parse::<u8>) {
        Some(Ok(v)) if v <= 63 => v,
        _ => {
            return bad(
                &format!("stall field `{stall}`"),
                "the stall count is `S` and a decimal number of cycles, like `S04`",
            );
        }
    };
    Ok(Control {
        wait_mask,
        read_barrier,
        write_barrier,
        yield_hint,
        stall,
    })
}

fn parse_pred_text(word: &str) -> Option<PredSrc> {
    let (negate, name) = match word.strip_prefix('!') {
        Some(n) => (true, n),
        None => (false, word),
    };
    let upper = name.to_ascii_uppercase();
    // A uniform guard, `@UP0` .. `@UP6`, `@UPT`.
    if let Some(n) = upper.strip_prefix("UP") {
        // `UP7` is no name (UPT is written so).
        let index = if n == "T" { UPT } else { n.parse().ok()? };
        if index > UPT || (index == UPT && n != "T") {
            return None;
        }
        return Some(PredSrc::uniform(PredSrc { index, negate }));
    }
    let index = if upper == "PT" {
        PT
    } else {
        let n: u8 = upper.strip_prefix('P')?.parse().ok()?;
        if n >= PT {
            return None;
        }
        n
    };
    Some(PredSrc { index, negate })
}

fn reg_number(i: Span) -> Res<u8> {
    alt((
        map(tag_no_case("RZ"), |_| RZ),
        map(preceded(tag_no_case("R"), digit1), |d: Span| {
            d.fragment()
                .parse::<u16>()
                .map_or(u8::MAX, |v| v.min(255) as u8)
        }),
    ))
    .parse(i)
}

/// `R12`, `R12.reuse`, `RZ`.
fn register(i: Span) -> Res<u8> {
    let (i, r) = reg_number(i)?;
    let (i, _) = opt(tag_no_case(".reuse")).parse(i)?;
    Ok((i, r))
}

fn int_literal(i: Span) -> Res<(i64, bool)> {
    let (i, neg) = opt(alt((char('-'), char('+')))).parse(i)?;
    let neg = neg == Some('-');
    let (i, (v, hex)) = alt((
        map(preceded(tag_no_case("0x"), hex_digit1), |h: Span| {
            (
                i64::from_str_radix(h.fragment(), 16).unwrap_or(i64::MAX),
                true,
            )
        }),
        map(digit1, |d: Span| {
            (d.fragment().parse::<i64>().unwrap_or(i64::MAX), false)
        }),
    ))
    .parse(i)?;
    Ok((i, (if neg { v.wrapping_neg() } else { v }, hex)))
}

fn float_literal(i: Span) -> Res<f64> {
    alt((
        map(tag_no_case("+INF"), |_| f64::INFINITY),
        map(tag_no_case("-INF"), |_| f64::NEG_INFINITY),
        map(tag_no_case("INF"), |_| f64::INFINITY),
        map(
            alt((
                tag_no_case("+QNAN"),
                tag_no_case("QNAN"),
                tag_no_case("NAN"),
            )),
            |_| f64::NAN,
        ),
        map(
            recognize((
                opt(alt((char('-'), char('+')))),
                digit1,
                alt((
                    recognize((
                        char('.'),
                        take_while(|c: char| c.is_ascii_digit()),
                        opt(exponent),
                    )),
                    recognize(exponent),
                )),
            )),
            |s: Span| s.fragment().parse::<f64>().unwrap_or(f64::NAN),
        ),
    ))
    .parse(i)
}

fn exponent(i: Span) -> Res<Span> {
    recognize((
        alt((char('e'), char('E'))),
        opt(alt((char('-'), char('+')))),
        digit1,
    ))
    .parse(i)
}

fn constant(i: Span) -> Res<(u8, u32)> {
    let (i, _) = tag_no_case("c").parse(i)?;
    let (i, bank) =
        delimited(char('['), delimited(space0, int_literal, space0), char(']')).parse(i)?;
    let (i, off) =
        delimited(char('['), delimited(space0, int_literal, space0), char(']')).parse(i)?;
    Ok((
        i,
        (
            bank.0.clamp(0, 255) as u8,
            off.0.clamp(0, u32::MAX as i64) as u32,
        ),
    ))
}

/// `UR4`, `URZ` (255).
fn ureg_number(i: Span) -> Res<u8> {
    alt((
        map(tag_no_case("URZ"), |_| URZ),
        map(preceded(tag_no_case("UR"), digit1), |d: Span| {
            d.fragment()
                .parse::<u16>()
                .map_or(u8::MAX, |v| v.min(255) as u8)
        }),
    ))
    .parse(i)
}

/// `UR4`, `UR4.reuse`, `URZ`: a uniform register (out of range: 254,
/// refused by [`parse_operand`]).
fn uregister(i: Span) -> Res<u8> {
    let (i, r) = ureg_number(i)?;
    let (i, _) = opt(tag_no_case(".reuse")).parse(i)?;
    Ok((
        i,
        if r != URZ && usize::from(r) >= UNIFORM_REGS {
            254
        } else {
            r
        },
    ))
}

/// `UP0`..`UP6`, `UPT`, optionally negated.
fn upred_operand(i: Span) -> Res<PredSrc> {
    let (i, neg) = opt(char('!')).parse(i)?;
    let (i, index) = alt((
        map(tag_no_case("UPT"), |_| UPT),
        // `UP7` is no name (UPT is written so): out of range, refused below.
        map(preceded(tag_no_case("UP"), digit1), |d: Span| {
            match d.fragment().parse::<u8>() {
                Ok(v) if v < UPT => v,
                _ => u8::MAX,
            }
        }),
    ))
    .parse(i)?;
    if index > UPT {
        return Err(nom::Err::Error(VerboseError::from_error_kind_at(i)));
    }
    Ok((
        i,
        PredSrc {
            index,
            negate: neg.is_some(),
        },
    ))
}

/// `+0x10`, `-4`, `+ 8` after a base.
fn signed_offset(i: Span) -> Res<i64> {
    let (i, _) = space0(i)?;
    let (i, sign) = alt((char('+'), char('-'))).parse(i)?;
    let (i, _) = space0(i)?;
    let (i, (v, _)) = int_literal(i)?;
    Ok((i, if sign == '-' { v.wrapping_neg() } else { v }))
}

/// `[R2]`, `[R2+0x10]`, `[R2.64+-0x4]`, `[R2-4]`, `[0x100]`, `[R2+UR4+0x8]`,
/// `[UR4]`, `[UR4+0x10]`, and any of them after a `desc[URn]` descriptor
/// (read and ignored).
fn memory(i: Span) -> Res<(u8, i64, bool, u8, u8)> {
    let inner = |i| -> Res<(u8, i64, bool, u8, u8)> {
        let (i, _) = space0(i)?;
        let reg_part = |i| -> Res<(u8, bool, u8)> {
            let (i, r) = reg_number(i)?;
            let (i, wide) = opt(alt((tag(".64"), tag_no_case(".U32")))).parse(i)?;
            let (i, scale) = opt(alt((
                map(tag_no_case(".X16"), |_| 16u8),
                map(tag_no_case(".X4"), |_| 4u8),
                map(tag_no_case(".X8"), |_| 8u8),
            )))
            .parse(i)?;
            let (i, _) = opt(tag_no_case(".reuse")).parse(i)?;
            Ok((
                i,
                (
                    r,
                    wide.is_some_and(|w| *w.fragment() == ".64"),
                    scale.unwrap_or(1),
                ),
            ))
        };
        let (i, base) = opt(reg_part).parse(i)?;
        let (i, _) = space0(i)?;
        // A uniform register, alone or after `Rn+`.
        let (i, ubase) = match base {
            Some(_) => opt(preceded((space0, char('+'), space0), uregister)).parse(i)?,
            None => opt(uregister).parse(i)?,
        };
        let (i, offset) = if base.is_some() || ubase.is_some() {
            let (i, off) = opt(signed_offset).parse(i)?;
            (i, off.unwrap_or(0))
        } else {
            let (i, (v, _)) = int_literal(i)?;
            (i, v)
        };
        let (i, _) = space0(i)?;
        let (r, wide, scale) = base.unwrap_or((RZ, false, 1));
        Ok((i, (r, offset, wide, ubase.unwrap_or(URZ), scale)))
    };
    let (i, _) = opt(delimited(
        (tag_no_case("desc"), char('[')),
        delimited(space0, uregister, space0),
        char(']'),
    ))
    .parse(i)?;
    delimited(char('['), inner, char(']')).parse(i)
}

/// `c[0x0][R2+0x10]`: a register-indexed constant.
fn constant_indexed(i: Span) -> Res<(u8, u8, i64)> {
    let (i, _) = tag_no_case("c").parse(i)?;
    let (i, bank) =
        delimited(char('['), delimited(space0, int_literal, space0), char(']')).parse(i)?;
    let (i, (base, offset)) = delimited(
        char('['),
        delimited(space0, (register, opt(signed_offset)), space0),
        char(']'),
    )
    .parse(i)?;
    Ok((i, (bank.0.clamp(0, 255) as u8, base, offset.unwrap_or(0))))
}

fn numbered(prefix: &'static str, max: u8) -> impl FnMut(Span) -> Res<u8> {
    move |i| {
        let (rest, d) = preceded(tag_no_case(prefix), digit1).parse(i)?;
        match d.fragment().parse::<u8>() {
            Ok(v) if v < max => Ok((rest, v)),
            _ => Err(nom::Err::Error(VerboseError::from_error_kind_at(i))),
        }
    }
}

trait FromKindAt<I> {
    fn from_error_kind_at(i: I) -> Self;
}

impl<I> FromKindAt<I> for VerboseError<I> {
    fn from_error_kind_at(i: I) -> Self {
        use nom::error::ParseError;
        VerboseError::from_error_kind(i, nom::error::ErrorKind::Verify)
    }
}

fn operand(i: Span) -> Res<RawOperand> {
    alt((
        map(memory, |(base, offset, wide, ubase, scale)| {
            RawOperand::Mem {
                base,
                offset,
                wide,
                ubase,
                scale,
            }
        }),
        map(constant_indexed, |(bank, base, offset)| {
            RawOperand::ConstIdx { bank, base, offset }
        }),
        map(constant, |(bank, offset)| RawOperand::Const {
            bank,
            offset,
        }),
        map(
            terminated(
                delimited(char('|'), preceded(opt(char('-')), register), char('|')),
                opt(tag_no_case(".reuse")),
            ),
            |reg| {
                RawOperand::Reg(RegSrc {
                    reg,
                    neg: false,
                    abs: true,
                    not: false,
                })
            },
        ),
        map(
            preceded(char('-'), delimited(char('|'), register, char('|'))),
            |reg| {
                RawOperand::Reg(RegSrc {
                    reg,
                    neg: true,
                    abs: true,
                    not: false,
                })
            },
        ),
        map(preceded(char('-'), register), |reg| {
            RawOperand::Reg(RegSrc {
                reg,
                neg: true,
                abs: false,
                not: false,
            })
        }),
        map(preceded(char('~'), register), |reg| {
            RawOperand::Reg(RegSrc {
                reg,
                neg: false,
                abs: false,
                not: true,
            })
        }),
        map(register, |reg| RawOperand::Reg(RegSrc::plain(reg))),
        uniform_operand,
        map(pred_operand, RawOperand::Pred),
        map(special_reg, RawOperand::Special),
        map(numbered("SB", SCOREBOARDS as u8), RawOperand::Scoreboard),
        map(
            numbered("B", super::ir::CONVERGENCE_BARRIERS as u8),
            RawOperand::Barrier,
        ),
        map(float_literal, RawOperand::Float),
        map(int_literal, |(value, hex)| RawOperand::Int { value, hex }),
        // cuobjdump writes branch targets as `` `(.L_x_0) ``.
        map(delimited(tag("`("), identifier, char(')')), |s: Span| {
            RawOperand::Label(s.fragment().to_string())
        }),
        map(identifier, |s: Span| {
            RawOperand::Label(s.fragment().to_string())
        }),
    ))
    .parse(i)
}

/// `UR4`, `-UR4`, `~UR4`, `UP0`, `!UPT`.
fn uniform_operand(i: Span) -> Res<RawOperand> {
    alt((
        map(preceded(char('-'), uregister), |reg| {
            RawOperand::UReg(RegSrc {
                reg,
                neg: true,
                abs: false,
                not: false,
            })
        }),
        map(preceded(char('~'), uregister), |reg| {
            RawOperand::UReg(RegSrc {
                reg,
                neg: false,
                abs: false,
                not: true,
            })
        }),
        map(uregister, |reg| RawOperand::UReg(RegSrc::plain(reg))),
        map(upred_operand, RawOperand::UPred),
    ))
    .parse(i)
}

fn pred_operand(i: Span) -> Res<PredSrc> {
    let (rest, word) = recognize(pair(
        opt(char('!')),
        take_while1(|c: char| c.is_ascii_alphanumeric()),
    ))
    .parse(i)?;
    match parse_pred_text(word.fragment()) {
        Some(p) => Ok((rest, p)),
        None => Err(nom::Err::Error(VerboseError::from_error_kind_at(i))),
    }
}

fn special_reg(i: Span) -> Res<SpecialReg> {
    let (rest, word) = alt((
        recognize(pair(
            tag_no_case("SR_"),
            take_while1(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_'),
        )),
        tag_no_case("SRZ"),
    ))
    .parse(i)?;
    let upper = word.fragment().to_ascii_uppercase();
    SpecialReg::ALL
        .iter()
        .find(|(n, _)| *n == upper)
        .map(|(_, s)| (rest, *s))
        .ok_or(nom::Err::Error(VerboseError::from_error_kind_at(i)))
}

/// Parses one operand's whole text.
pub(crate) fn parse_operand(text: &str) -> Result<RawOperand, AsmError> {
    let parsed: Res<RawOperand> = all_consuming(operand).parse(Span::new(text));
    match parsed {
        Ok((_, op)) => {
            let numbered_uniform = |name: &str| {
                let u = name.to_ascii_uppercase();
                u.strip_prefix("UR")
                    .or_else(|| u.strip_prefix("UP"))
                    .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
            };
            if let RawOperand::Label(name) = &op
                && numbered_uniform(name)
            {
                let mut e = err(
                    1,
                    text.len(),
                    format!("uniform predicate `{text}` is out of range"),
                );
                e.expected = Some("a uniform predicate UP0..UP6 or UPT".into());
                return Err(e);
            }
            if let RawOperand::UReg(r) = &op
                && r.reg == 254
            {
                let mut e = err(
                    1,
                    text.len(),
                    format!("uniform register `{text}` is out of range"),
                );
                e.expected = Some("a uniform register UR0..UR63 or URZ".into());
                return Err(e);
            }
            if let RawOperand::Reg(r) = &op
                && r.reg == u8::MAX
                && !text.to_ascii_uppercase().contains("RZ")
            {
                let mut e = err(1, text.len(), format!("register `{text}` is out of range"));
                e.expected = Some("a register R0..R254 or RZ".into());
                return Err(e);
            }
            Ok(op)
        }
        Err(_) => {
            let mut e = err(1, text.len(), format!("cannot read operand `{text}`"));
            e.expected = Some(
                "a register (R0..R254, RZ), uniform register (UR0..UR63, URZ), predicate \
                 (P0..P6, PT, UP0..UP6, UPT), immediate, constant `c[0x0][0x160]`, memory \
                 `[R2+0x10]`, special register `SR_TID.X`, barrier `B0`, scoreboard `SB0` \
                 or label"
                    .into(),
            );
            if text.starts_with('[') || text.starts_with("desc") {
                e.hint = Some(
                    "memory operands are `[Rn]`, `[Rn+0x10]`, `[Rn.64+0x10]` or `[Rn+URm+0x10]`"
                        .into(),
                );
            }
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_blanked_and_columns_kept() {
        let s = blank_comments("/*0070*/ MOV R1, R2 ; /* 0x000 */ // hi");
        assert_eq!(s.find("MOV"), Some(9));
        assert!(!s.contains("hi"));
        assert!(!s.contains("0x000"));
        assert_eq!(blank_comments("EXIT # done").trim_end(), "EXIT");
    }

    #[test]
    fn control_codes_in_both_spellings() {
        let a = parse_control("B--2---:R-:W2:-:S04").expect("short form");
        assert_eq!(a.wait_mask, 0b100);
        assert_eq!(a.write_barrier, Some(2));
        assert_eq!(a.read_barrier, None);
        assert_eq!(a.stall, 4);
        assert!(!a.yield_hint);
        let b = parse_control("R---:B0----5:R1:W-:Y:S15").expect("reuse form");
        assert_eq!(b.wait_mask, 0b10_0001);
        assert_eq!(b.read_barrier, Some(1));
        assert!(b.yield_hint);
        assert_eq!(b.stall, 15);
        assert_eq!(a.to_string(), "[B--2---:R-:W2:-:S04]");
    }

    #[test]
    fn malformed_control_codes_say_which_field() {
        let (m, _) = parse_control("B--3---:R-:W2:-:S04").unwrap_err();
        assert!(m.contains("place 2"), "{m}");
        let (m, _) = parse_control("B------:R-:W7:-:S04").unwrap_err();
        assert!(m.contains("write barrier"), "{m}");
        let (m, _) = parse_control("B-----:R-:W-:-:S04").unwrap_err();
        assert!(m.contains("5 places"), "{m}");
        let (m, _) = parse_control("B------:R-:W-:-").unwrap_err();
        assert!(m.contains("4 fields"), "{m}");
        let (m, _) = parse_control("B------:R-:W-:N:S01").unwrap_err();
        assert!(m.contains("yield"), "{m}");
    }

    #[test]
    fn operands() {
        assert_eq!(
            parse_operand("R12").unwrap(),
            RawOperand::Reg(RegSrc::plain(12))
        );
        assert_eq!(
            parse_operand("R3.reuse").unwrap(),
            RawOperand::Reg(RegSrc::plain(3))
        );
        assert_eq!(
            parse_operand("RZ").unwrap(),
            RawOperand::Reg(RegSrc::plain(RZ))
        );
        assert_eq!(
            parse_operand("-|R4|").unwrap(),
            RawOperand::Reg(RegSrc {
                reg: 4,
                neg: true,
                abs: true,
                not: false
            })
        );
        assert_eq!(
            parse_operand("!P3").unwrap(),
            RawOperand::Pred(PredSrc {
                index: 3,
                negate: true
            })
        );
        assert_eq!(
            parse_operand("PT").unwrap(),
            RawOperand::Pred(PredSrc::TRUE)
        );
        assert_eq!(
            parse_operand("0x10").unwrap(),
            RawOperand::Int {
                value: 16,
                hex: true
            }
        );
        assert_eq!(
            parse_operand("-3").unwrap(),
            RawOperand::Int {
                value: -3,
                hex: false
            }
        );
        assert_eq!(parse_operand("1.5").unwrap(), RawOperand::Float(1.5));
        assert_eq!(parse_operand("-2e3").unwrap(), RawOperand::Float(-2000.0));
        assert_eq!(
            parse_operand("c[0x0][0x160]").unwrap(),
            RawOperand::Const {
                bank: 0,
                offset: 0x160
            }
        );
        assert_eq!(
            parse_operand("[R2.64+-0x4]").unwrap(),
            RawOperand::Mem {
                base: 2,
                offset: -4,
                wide: true,
                ubase: URZ,
                scale: 1,
            }
        );
        assert_eq!(
            parse_operand("[R2]").unwrap(),
            RawOperand::Mem {
                base: 2,
                offset: 0,
                wide: false,
                ubase: URZ,
                scale: 1,
            }
        );
        assert_eq!(
            parse_operand("[0x80]").unwrap(),
            RawOperand::Mem {
                base: RZ,
                offset: 128,
                wide: false,
                ubase: URZ,
                scale: 1,
            }
        );
        assert_eq!(
            parse_operand("SR_TID.X").unwrap(),
            RawOperand::Special(SpecialReg::TidX)
        );
        assert_eq!(parse_operand("SB3").unwrap(), RawOperand::Scoreboard(3));
        assert_eq!(parse_operand("B1").unwrap(), RawOperand::Barrier(1));
        assert_eq!(
            parse_operand("`(.L_x_0)").unwrap(),
            RawOperand::Label(".L_x_0".into())
        );
        assert_eq!(
            parse_operand("loop_top").unwrap(),
            RawOperand::Label("loop_top".into())
        );
        assert!(parse_operand("R300").is_err());
        assert!(parse_operand("[R2+").is_err());
        // `|R7|.reuse`, as listings write it.
        assert_eq!(
            parse_operand("|R7|.reuse").unwrap(),
            RawOperand::Reg(RegSrc {
                reg: 7,
                neg: false,
                abs: true,
                not: false
            })
        );
        assert!(parse_operand("UR64").is_err());
        assert!(parse_operand("UP7").is_err());
    }

    #[test]
    fn uniform_operands_and_new_memory_forms() {
        let mem = |base, offset, wide, ubase, scale| RawOperand::Mem {
            base,
            offset,
            wide,
            ubase,
            scale,
        };
        assert_eq!(
            parse_operand("UR4").unwrap(),
            RawOperand::UReg(RegSrc::plain(4))
        );
        assert_eq!(
            parse_operand("URZ").unwrap(),
            RawOperand::UReg(RegSrc::plain(URZ))
        );
        assert_eq!(
            parse_operand("-UR63").unwrap(),
            RawOperand::UReg(RegSrc {
                reg: 63,
                neg: true,
                abs: false,
                not: false
            })
        );
        assert_eq!(
            parse_operand("!UPT").unwrap(),
            RawOperand::UPred(PredSrc {
                index: UPT,
                negate: true
            })
        );
        assert_eq!(
            parse_operand("UP6").unwrap(),
            RawOperand::UPred(PredSrc {
                index: 6,
                negate: false
            })
        );
        assert_eq!(
            parse_operand("[R2+UR4+0x8]").unwrap(),
            mem(2, 8, false, 4, 1)
        );
        assert_eq!(parse_operand("[UR4]").unwrap(), mem(RZ, 0, false, 4, 1));
        assert_eq!(
            parse_operand("[UR4+-0x10]").unwrap(),
            mem(RZ, -16, false, 4, 1)
        );
        assert_eq!(
            parse_operand("desc[UR8][R2.64+0x10]").unwrap(),
            mem(2, 16, true, URZ, 1)
        );
        assert_eq!(
            parse_operand("[R5.X4+URZ]").unwrap(),
            mem(5, 0, false, URZ, 4)
        );
        assert_eq!(
            parse_operand("c[0x0][R2+0x10]").unwrap(),
            RawOperand::ConstIdx {
                bank: 0,
                base: 2,
                offset: 16
            }
        );
        assert_eq!(
            parse_operand("c[0x0][RZ]").unwrap(),
            RawOperand::ConstIdx {
                bank: 0,
                base: RZ,
                offset: 0
            }
        );
        assert_eq!(
            parse_operand("SR_CgaCtaId").unwrap(),
            RawOperand::Special(SpecialReg::CgaCtaId)
        );
        assert_eq!(
            parse_operand("SRZ").unwrap(),
            RawOperand::Special(SpecialReg::Zero)
        );
        assert_eq!(
            parse_operand("SR_CTAID.Z").unwrap(),
            RawOperand::Special(SpecialReg::CtaidZ)
        );
    }

    #[test]
    fn lines() {
        let l = parse_line("  loop: @!P0 FFMA R1, R2, R3, R4 ;").unwrap();
        assert_eq!(l.labels[0].value, "loop");
        let i = l.instr.unwrap();
        assert_eq!(i.mnemonic.value, "FFMA");
        assert_eq!(
            i.guard.unwrap().value,
            PredSrc {
                index: 0,
                negate: true
            }
        );
        assert_eq!(i.operands.len(), 4);
        assert_eq!(i.operands[2].column, 27);
        assert_eq!(i.text, "@!P0 FFMA R1, R2, R3, R4");
        assert_eq!(i.column, 9);

        let l = parse_line("[B------:R-:W2:-:S04] LDG.E R2, [R4.64]").unwrap();
        let i = l.instr.unwrap();
        assert_eq!(i.control.unwrap().write_barrier, Some(2));
        assert_eq!(i.mnemonic.value, "LDG.E");
        assert_eq!(i.column, 23);

        let l = parse_line("done:").unwrap();
        assert!(l.instr.is_none());
        let e = parse_line("MOV R1, , R2").unwrap_err();
        assert_eq!(e.column, 9);
        let e = parse_line("[B------:R-:W2:-:S04 MOV R1, R2").unwrap_err();
        assert!(e.message.contains("unterminated"));
    }
}
