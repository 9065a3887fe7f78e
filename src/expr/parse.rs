//! The expression parser: nom for tokens and `nom_language::precedence` for
//! the binary operators, with `?:` and parentheses on top.
//!
//! Errors that can only mean one thing (no operand after an operator, an
//! unknown name, an unclosed parenthesis) are `nom::Err::Failure` carrying a
//! finished message, so no backtracking can replace them with a vaguer one.

use std::cell::{Cell, RefCell};
use std::convert::Infallible;

use nom::branch::alt;
use nom::bytes::complete::take_while;
use nom::character::complete::{char, digit0, digit1, hex_digit1, multispace0, one_of, satisfy};
use nom::combinator::{fail, opt};
use nom::error::{ErrorKind, FromExternalError, ParseError};
use nom::sequence::preceded;
use nom::{IResult, Parser};
use nom_language::precedence::{Assoc, Operation, Unary, binary_op, precedence, unary_op};

use super::ast::{BinOp, Code, Id, Node, UnOp};
use super::eval::{char_len, char_offset};
use super::spelling::did_you_mean;
use super::{ExprError, Value, Var, Vars};

/// Longest expression accepted, in bytes: scenario expressions are one-liners,
/// and a bound keeps parse and evaluation costs small.
const MAX_LEN: usize = 4096;
/// Deepest nesting of `(`, `?:` and `rand(` (each one recursion of the
/// parser).
const MAX_NESTING: u32 = 48;
/// Deepest tree accepted (each level is one recursion of the evaluator).
const MAX_DEPTH: u32 = 512;

/// A parse error: where, and for failures, the finished message.
#[derive(Debug)]
struct PErr<'a> {
    at: &'a str,
    custom: Option<Custom>,
}

#[derive(Debug)]
struct Custom {
    /// Length in bytes of the offending text.
    len: usize,
    message: String,
    expected: Option<String>,
    hint: Option<String>,
}

impl<'a> PErr<'a> {
    fn expected(mut self, e: impl Into<String>) -> Self {
        if let Some(c) = &mut self.custom {
            c.expected = Some(e.into());
        }
        self
    }

    fn hint(mut self, h: Option<String>) -> Self {
        if let Some(c) = &mut self.custom {
            c.hint = h;
        }
        self
    }

    fn fail<T>(self) -> Res<'a, T> {
        Err(nom::Err::Failure(self))
    }
}

/// A failure at `at` spanning `len` bytes.
fn fatal<'a>(at: &'a str, len: usize, message: impl Into<String>) -> PErr<'a> {
    PErr {
        at,
        custom: Some(Custom {
            len,
            message: message.into(),
            expected: None,
            hint: None,
        }),
    }
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, _: ErrorKind) -> Self {
        PErr {
            at: input,
            custom: None,
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

impl<'a, E> FromExternalError<&'a str, E> for PErr<'a> {
    fn from_external_error(input: &'a str, _: ErrorKind, _: E) -> Self {
        PErr {
            at: input,
            custom: None,
        }
    }
}

type Res<'a, T> = IResult<&'a str, T, PErr<'a>>;

/// A binary operator token: the three that short-circuit are not `BinOp`s.
#[derive(Debug, Clone, Copy)]
enum BinTok {
    Op(BinOp),
    And,
    Or,
}

/// Collects nodes while parsing. The precedence parser's operand and fold
/// callbacks both add nodes, hence the shared `RefCell`.
struct Builder<'a, 'v> {
    src: &'a str,
    vars: &'v Vars,
    nodes: RefCell<Vec<Node>>,
    spans: RefCell<Vec<(u32, u32)>>,
    uses: Cell<u16>,
    nesting: Cell<u32>,
}

impl<'a> Builder<'a, '_> {
    /// Byte offset of `rest` (a suffix of the source).
    fn offset(&self, rest: &str) -> usize {
        self.src.len().saturating_sub(rest.len())
    }

    fn push(&self, node: Node, at: &str, len: usize) -> Id {
        let mut nodes = self.nodes.borrow_mut();
        let id = nodes.len() as Id;
        nodes.push(node);
        // MAX_LEN keeps offsets far below u32::MAX.
        self.spans
            .borrow_mut()
            .push((self.offset(at) as u32, len as u32));
        id
    }

    fn enter(&self, at: &'a str) -> Result<(), nom::Err<PErr<'a>>> {
        let depth = self.nesting.get() + 1;
        if depth > MAX_NESTING {
            return Err(nom::Err::Failure(
                fatal(
                    at,
                    1,
                    format!("expression nested too deeply (over {MAX_NESTING} levels)"),
                )
                .hint(Some("split it, or remove redundant parentheses".into())),
            ));
        }
        self.nesting.set(depth);
        Ok(())
    }

    fn leave(&self) {
        self.nesting.set(self.nesting.get().saturating_sub(1));
    }

    fn fold(&self, op: Operation<(UnOp, &'a str), (), (BinTok, &'a str, usize), Id>) -> Id {
        match op {
            Operation::Prefix((op, at), a) => self.push(Node::Unary(op, a), at, 1),
            Operation::Postfix(a, ()) => a,
            Operation::Binary(a, (tok, at, len), b) => {
                let node = match tok {
                    BinTok::Op(op) => Node::Binary(op, a, b),
                    BinTok::And => Node::And(a, b),
                    BinTok::Or => Node::Or(a, b),
                };
                self.push(node, at, len)
            }
        }
    }
}

/// Parses a whole expression.
pub(super) fn parse(src: &str, vars: &Vars) -> Result<Code, ExprError> {
    if src.len() > MAX_LEN {
        return Err(ExprError {
            offset: 0,
            len: 0,
            message: format!(
                "expression too long ({} bytes; at most {MAX_LEN})",
                src.len()
            ),
            expected: None,
            hint: Some("use a shorter formula, or a list of values".into()),
        });
    }
    if src.trim().is_empty() {
        return Err(ExprError {
            offset: 0,
            len: 0,
            message: "empty expression".into(),
            expected: Some("a number or an expression such as `tid % 2`".into()),
            hint: None,
        });
    }
    let b = Builder {
        src,
        vars,
        nodes: RefCell::new(Vec::new()),
        spans: RefCell::new(Vec::new()),
        uses: Cell::new(0),
        nesting: Cell::new(0),
    };
    let root = match ternary(&b, src) {
        Ok((rest, root)) => {
            let rest = rest.trim_start();
            if !rest.is_empty() {
                return Err(to_expr_error(src, trailing(rest)));
            }
            root
        }
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => return Err(to_expr_error(src, e)),
        Err(nom::Err::Incomplete(_)) => {
            return Err(to_expr_error(
                src,
                fatal(&src[src.len()..], 0, "incomplete expression"),
            ));
        }
    };
    let nodes = b.nodes.into_inner();
    let spans = b.spans.into_inner();
    check_depth(src, &nodes)?;
    Ok(Code {
        nodes,
        spans,
        root,
        uses: b.uses.get(),
        rand_index: vars.rand_index(),
    })
}

/// Rejects trees deeper than the evaluator should recurse. Children come
/// before parents, so one forward pass computes every depth.
fn check_depth(src: &str, nodes: &[Node]) -> Result<(), ExprError> {
    let mut depth: Vec<u32> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let d = |id: &Id| depth.get(*id as usize).copied().unwrap_or(0);
        let here = 1 + match node {
            Node::Const(_) | Node::Var(_) => 0,
            Node::Unary(_, a) | Node::Rand(a) => d(a),
            Node::Binary(_, a, b) | Node::And(a, b) | Node::Or(a, b) => d(a).max(d(b)),
            Node::Cond(c, a, b) => d(c).max(d(a)).max(d(b)),
        };
        if here > MAX_DEPTH {
            return Err(ExprError {
                offset: 0,
                len: src.chars().count(),
                message: format!("expression too complex (over {MAX_DEPTH} nested operations)"),
                expected: None,
                hint: Some("use a shorter formula, or a list of values".into()),
            });
        }
        depth.push(here);
    }
    Ok(())
}

fn to_expr_error(src: &str, e: PErr<'_>) -> ExprError {
    let start = src.len().saturating_sub(e.at.len());
    match e.custom {
        Some(c) => ExprError {
            offset: char_offset(src, start),
            len: char_len(src, start, c.len),
            message: c.message,
            expected: c.expected,
            hint: c.hint,
        },
        // Every dead end of the grammar is a `fatal`; this is a fallback.
        None => ExprError {
            offset: char_offset(src, start),
            len: char_len(src, start, token_len(e.at)),
            message: "invalid expression".into(),
            expected: None,
            hint: None,
        },
    }
}

/// Length in bytes of the token at the start of `s`: a run of name
/// characters, or one character.
fn token_len(s: &str) -> usize {
    let word = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(s.len());
    if word > 0 {
        word
    } else {
        s.chars().next().map_or(0, char::len_utf8)
    }
}

/// The error for text left over after a complete expression.
fn trailing(rest: &str) -> PErr<'_> {
    let len = token_len(rest);
    let tok = rest.get(..len).unwrap_or("");
    let first = rest.chars().next().unwrap_or(' ');
    match first {
        ')' => fatal(rest, 1, "unmatched `)`").hint(Some("remove it, or add a `(` before".into())),
        ':' => fatal(rest, 1, "`:` without a `?`")
            .hint(Some("a conditional reads `cond ? a : b`".into())),
        '=' => fatal(rest, 1, "unexpected `=`")
            .expected("an operator")
            .hint(Some("compare with `==`".into())),
        c if c.is_ascii_alphanumeric() || c == '_' || c == '(' || c == '.' => {
            fatal(rest, len, format!("unexpected `{}`", tok.escape_debug()))
                .expected("an operator or the end of the expression")
                .hint(Some("an operator is missing between two values".into()))
        }
        _ => fatal(rest, len, format!("unexpected `{}`", tok.escape_debug()))
            .expected("an operator or the end of the expression"),
    }
}

/// `cond ? a : b` (right-associative, lowest precedence) or a binary
/// expression.
fn ternary<'a>(b: &Builder<'a, '_>, i: &'a str) -> Res<'a, Id> {
    let (i, cond) = binary(b, i)?;
    let (q, _) = multispace0(i)?;
    let Some(rest) = q.strip_prefix('?') else {
        return Ok((i, cond));
    };
    b.enter(q)?;
    let (rest, then) = ternary(b, rest)?;
    let (rest, _) = multispace0(rest)?;
    let Some(rest) = rest.strip_prefix(':') else {
        let qpos = char_offset(b.src, b.offset(q));
        return fatal(rest, token_len(rest), "expected `:`")
            .expected("`:` and the value for a false condition")
            .hint(Some(format!(
                "the `?` at offset {qpos} needs a matching `:`"
            )))
            .fail();
    };
    let (rest, otherwise) = ternary(b, rest)?;
    b.leave();
    Ok((rest, b.push(Node::Cond(cond, then, otherwise), q, 1)))
}

/// The binary operators, tightest first (nom-language applies lower
/// precedence numbers first): C's table without assignment and comma.
fn binary<'a>(b: &Builder<'a, '_>, i: &'a str) -> Res<'a, Id> {
    use BinOp::*;
    let prefix = unary_op(1u8, prefix_op);
    let postfix = fail::<&'a str, Unary<(), u8>, PErr<'a>>();
    // Longer tokens first: `&&` before `&`, `<<` before `<=` before `<`.
    let binary_ops = alt((
        binary_op(11, Assoc::Left, op_tokens(&[("&&", BinTok::And)])),
        binary_op(12, Assoc::Left, op_tokens(&[("||", BinTok::Or)])),
        binary_op(
            5,
            Assoc::Left,
            op_tokens(&[("<<", BinTok::Op(Shl)), (">>", BinTok::Op(Shr))]),
        ),
        binary_op(
            6,
            Assoc::Left,
            op_tokens(&[
                ("<=", BinTok::Op(Le)),
                (">=", BinTok::Op(Ge)),
                ("<", BinTok::Op(Lt)),
                (">", BinTok::Op(Gt)),
            ]),
        ),
        binary_op(
            7,
            Assoc::Left,
            op_tokens(&[("==", BinTok::Op(Eq)), ("!=", BinTok::Op(Ne))]),
        ),
        binary_op(8, Assoc::Left, op_tokens(&[("&", BinTok::Op(BitAnd))])),
        binary_op(9, Assoc::Left, op_tokens(&[("^", BinTok::Op(BitXor))])),
        binary_op(10, Assoc::Left, op_tokens(&[("|", BinTok::Op(BitOr))])),
        binary_op(
            3,
            Assoc::Left,
            op_tokens(&[
                ("*", BinTok::Op(Mul)),
                ("/", BinTok::Op(Div)),
                ("%", BinTok::Op(Rem)),
            ]),
        ),
        binary_op(
            4,
            Assoc::Left,
            op_tokens(&[("+", BinTok::Op(Add)), ("-", BinTok::Op(Sub))]),
        ),
    ));
    let mut parser = precedence(
        prefix,
        postfix,
        binary_ops,
        |i| operand(b, i),
        |op| Ok::<Id, Infallible>(b.fold(op)),
    );
    parser(i)
}

/// One precedence level's operator tokens, after optional whitespace.
fn op_tokens<'a>(
    table: &'static [(&'static str, BinTok)],
) -> impl FnMut(&'a str) -> Res<'a, (BinTok, &'a str, usize)> {
    move |i: &'a str| {
        let (i, _) = multispace0(i)?;
        for (tok, op) in table {
            if let Some(rest) = i.strip_prefix(tok) {
                return Ok((rest, (*op, i, tok.len())));
            }
        }
        Err(nom::Err::Error(PErr {
            at: i,
            custom: None,
        }))
    }
}

fn prefix_op(i: &str) -> Res<'_, (UnOp, &str)> {
    let (i, _) = multispace0(i)?;
    let (rest, c) = one_of("-!~").parse(i)?;
    let op = match c {
        '-' => UnOp::Neg,
        '!' => UnOp::Not,
        _ => UnOp::BitNot,
    };
    Ok((rest, (op, i)))
}

/// A number, a name, `rand(..)` or a parenthesised expression. Whatever is
/// here must be one of them, so every miss is a failure with a message.
fn operand<'a>(b: &Builder<'a, '_>, i: &'a str) -> Res<'a, Id> {
    let (i, _) = multispace0(i)?;
    let mut chars = i.chars();
    let Some(c) = chars.next() else {
        return fatal(i, 0, "the expression ends where a value was expected")
            .expected("a number, a name or `(`")
            .fail();
    };
    if let Some(inner) = i.strip_prefix('(') {
        b.enter(i)?;
        let (rest, id) = ternary(b, inner)?;
        let (rest, _) = multispace0(rest)?;
        let Some(rest) = rest.strip_prefix(')') else {
            let open = char_offset(b.src, b.offset(i));
            let message = if rest.is_empty() {
                "unclosed `(`"
            } else {
                "expected `)`"
            };
            return fatal(rest, token_len(rest), message)
                .expected("`)`")
                .hint(Some(format!("the `(` at offset {open} is not closed")))
                .fail();
        };
        b.leave();
        Ok((rest, id))
    } else if c.is_ascii_digit() || (c == '.' && chars.next().is_some_and(|d| d.is_ascii_digit())) {
        number(b, i)
    } else if c.is_ascii_alphabetic() || c == '_' {
        name(b, i)
    } else {
        fatal(
            i,
            c.len_utf8(),
            format!("unexpected `{}`", c.escape_debug()),
        )
        .expected("a number, a name, `(` or a unary operator (`-`, `!`, `~`)")
        .fail()
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `0x1F`, `42`, `1.5`, `.5`, `1e-3`, `2.5E+4`.
fn number<'a>(b: &Builder<'a, '_>, i: &'a str) -> Res<'a, Id> {
    let (rest, text, value) = if let Some(hex) = i.strip_prefix("0x").or(i.strip_prefix("0X")) {
        let Ok((rest, digits)) = hex_digit1::<&str, PErr<'_>>(hex) else {
            return fatal(i, token_len(i), "`0x` needs hex digits after it")
                .expected("a hex number such as `0x1F`")
                .fail();
        };
        let text = &i[..i.len() - rest.len()];
        match u64::from_str_radix(digits, 16) {
            // Above i64::MAX wraps, like a 64-bit register would hold it.
            Ok(v) => (rest, text, Value::Int(v as i64)),
            Err(_) => {
                return fatal(i, text.len(), "integer too large (more than 64 bits)").fail();
            }
        }
    } else {
        let (rest, _) = (
            digit0,
            opt(preceded(char('.'), digit0)),
            opt((one_of("eE"), opt(one_of("+-")), digit1)),
        )
            .parse(i)?;
        // Sliced by length: nom's `recognize` measures by pointer, which an
        // empty remainder does not always preserve.
        let text = &i[..i.len() - rest.len()];
        let is_float = text.contains(['.', 'e', 'E']);
        let value = if is_float {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() => Value::Float(v),
                _ => {
                    return fatal(i, text.len(), format!("number `{text}` out of range")).fail();
                }
            }
        } else {
            match text.parse::<u64>() {
                Ok(v) => Value::Int(v as i64),
                Err(_) => {
                    return fatal(i, text.len(), "integer too large (more than 64 bits)").fail();
                }
            }
        };
        (rest, text, value)
    };
    if rest.starts_with(is_name_char) {
        let junk = rest.find(|c| !is_name_char(c)).unwrap_or(rest.len());
        let bad = &i[..text.len() + junk];
        return fatal(i, bad.len(), format!("invalid number `{bad}`"))
            .expected("a number such as `42`, `0x2A` or `1.5e3`")
            .fail();
    }
    Ok((rest, b.push(Node::Const(value), i, text.len())))
}

/// A variable, a named constant, `true`/`false`, or `rand(seed)`.
fn name<'a>(b: &Builder<'a, '_>, i: &'a str) -> Res<'a, Id> {
    let (rest, _) = (
        satisfy(|c: char| c.is_ascii_alphabetic() || c == '_'),
        take_while(is_name_char),
    )
        .parse(i)?;
    let ident = &i[..i.len() - rest.len()];
    let (after, _) = multispace0(rest)?;
    let call = after.strip_prefix('(');
    let len = ident.len();
    let vars = b.vars;
    if ident == "rand" {
        let Some(args) = call else {
            return fatal(i, len, "`rand` needs a seed")
                .expected("`(`")
                .hint(Some("write `rand(7)`: the seed picks the sequence".into()))
                .fail();
        };
        b.enter(i)?;
        let (r, seed) = ternary(b, args)?;
        let (r, _) = multispace0(r)?;
        let Some(r) = r.strip_prefix(')') else {
            return fatal(r, token_len(r), "expected `)` after the seed of `rand`")
                .expected("`)`")
                .hint(Some("`rand` takes one argument, the seed".into()))
                .fail();
        };
        b.leave();
        if let Some(index) = vars.rand_index() {
            b.uses.set(b.uses.get() | index.bit());
        }
        return Ok((r, b.push(Node::Rand(seed), i, len)));
    }
    if call.is_some() {
        return fatal(i, len, format!("unknown function `{ident}`"))
            .expected("`rand(seed)`, the only function")
            .hint(did_you_mean(ident, ["rand"]))
            .fail();
    }
    let node = match ident {
        "true" => Node::Const(Value::Int(1)),
        "false" => Node::Const(Value::Int(0)),
        _ => match (Var::from_name(ident), vars.lookup(ident)) {
            (_, Some(value)) => Node::Const(Value::Int(value)),
            (Some(var), None) if vars.allows(var) => {
                b.uses.set(b.uses.get() | var.bit());
                Node::Var(var)
            }
            (Some(var), None) => {
                let why = match var {
                    Var::I => "`i` is the element index, known only in a buffer `init`",
                    Var::Tid | Var::Lane | Var::Warp | Var::Block => {
                        "thread coordinates are known only in `inputs`"
                    }
                    _ => "it is not defined there",
                };
                return fatal(
                    i,
                    len,
                    format!("`{ident}` is not available in {}", vars.place()),
                )
                .expected(expected_names(vars))
                .hint(Some(why.into()))
                .fail();
            }
            (None, None) => {
                return fatal(i, len, format!("unknown name `{ident}`"))
                    .expected(expected_names(vars))
                    .hint(did_you_mean(ident, vars.known_names()))
                    .fail();
            }
        },
    };
    Ok((rest, b.push(node, i, len)))
}

fn expected_names(vars: &Vars) -> String {
    let list = vars.allowed_list();
    if list.is_empty() {
        "a number or a buffer name".into()
    } else {
        format!("one of {list}, a buffer name or a number")
    }
}
