//! `inputs:`: the register and predicate values each thread starts with.

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::{Node, Ordered};
use super::values::{self, literal};
use super::{BufferSpec, InputSource, InputSpec, InputTarget, LaunchSpec, LoadError, memory};
use crate::expr::spelling::did_you_mean;
use crate::expr::{Env, Expr, ThreadCtx, Value, Var, Vars};

/// Highest general register a scenario may set (`R255` is `RZ`).
const MAX_REG: u32 = 254;
/// Highest predicate a scenario may set (`P7` is `PT`).
const MAX_PRED: u32 = 6;

pub(super) fn load_inputs(
    src: &SourceFile<'_>,
    raw: Option<&Spanned<Ordered<Node>>>,
    launch: &LaunchSpec,
    warp_width: u32,
    buffers: &[BufferSpec],
) -> Result<Vec<InputSpec>, LoadError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    let vars = memory::with_buffer_names(Vars::inputs(), buffers);
    let mut out = Vec::with_capacity(raw.value.0.len());
    for (key, value) in &raw.value.0 {
        let target = target(src, key)?;
        let name = target_name(target);
        let key_path = format!("inputs.{name}");
        let to_bits = |v: Value| match target {
            InputTarget::Reg(_) => v.to_reg_bits(),
            InputTarget::Pred(_) => v.to_pred(),
        };
        let source = match &value.value {
            Node::Int(_) | Node::Float(_) | Node::Bool(_) => {
                InputSource::List(vec![to_bits(literal(src, value, &key_path)?)])
            }
            Node::Seq(items) => {
                if items.is_empty() {
                    return Err(src
                        .error(
                            Pos::of(value),
                            &key_path,
                            format!("`{key_path}` is an empty list"),
                        )
                        .expected("at least one value"));
                }
                let threads = launch.threads();
                if items.len() as u64 > threads {
                    let extra = items.get(threads as usize).unwrap_or(value);
                    return Err(src
                        .error(
                            Pos::of(extra),
                            &key_path,
                            format!(
                                "`{key_path}` lists {} values but the launch has {threads} threads",
                                items.len()
                            ),
                        )
                        .expected(format!("at most {threads} values, one per thread"))
                        .hint(Some(
                            "element t is thread t's value; a shorter list repeats".into(),
                        )));
                }
                let mut bits = Vec::with_capacity(items.len());
                for item in items {
                    bits.push(to_bits(literal(src, item, &key_path)?));
                }
                InputSource::List(bits)
            }
            Node::Str(text) => {
                let expr = values::parse_expr(src, value, text, &vars, &key_path)?;
                check_every_thread(src, value, text, &expr, &key_path, launch, warp_width)?;
                InputSource::Expr(expr)
            }
            other => {
                return Err(src
                    .error(
                        Pos::of(value),
                        &key_path,
                        format!("`{key_path}` needs a value, found {}", other.kind()),
                    )
                    .expected("a number, a boolean, a list, or an expression string"));
            }
        };
        out.push(InputSpec { target, source });
    }
    Ok(out)
}

fn target_name(t: InputTarget) -> String {
    match t {
        InputTarget::Reg(r) => format!("R{r}"),
        InputTarget::Pred(p) => format!("P{p}"),
    }
}

/// `R0`..`R254` or `P0`..`P6`, spelt exactly so.
fn parse_target(name: &str) -> Option<InputTarget> {
    let (kind, digits) = name.split_at_checked(1)?;
    let canonical = !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    let n: u32 = digits.parse().ok().filter(|_| canonical)?;
    match kind {
        "R" if n <= MAX_REG => u8::try_from(n).ok().map(InputTarget::Reg),
        "P" if n <= MAX_PRED => u8::try_from(n).ok().map(InputTarget::Pred),
        _ => None,
    }
}

fn target(src: &SourceFile<'_>, key: &Spanned<Node>) -> Result<InputTarget, LoadError> {
    let name = match &key.value {
        Node::Str(s) => s.clone(),
        Node::Int(v) => v.to_string(),
        other => other.kind().to_string(),
    };
    if let Some(t) = parse_target(&name) {
        return Ok(t);
    }
    let pos = Pos::of(key);
    let key_path = format!("inputs.{name}");
    let expected = "a register R0..R254 or a predicate P0..P6";
    let err = |message: String, hint: String| {
        src.error(pos, &key_path, message)
            .expected(expected)
            .hint(Some(hint))
    };
    Err(match name.as_str() {
        "RZ" | "R255" => err(
            format!("`{name}` always reads zero; it cannot be given a value"),
            "pick another register, e.g. `R0`".into(),
        ),
        "PT" | "P7" => err(
            format!("`{name}` is always true; it cannot be given a value"),
            "pick another predicate, e.g. `P0`".into(),
        ),
        _ => {
            let upper = name.to_ascii_uppercase();
            let trimmed = upper.trim_start_matches(['R', 'P']);
            // `r1`, `R01`, `p2`: the intended name is usually obvious.
            let guess = parse_target(&upper)
                .or_else(|| {
                    let kind = upper.get(..1)?;
                    let n: u32 = trimmed.parse().ok()?;
                    parse_target(&format!("{kind}{n}"))
                })
                .map(target_name);
            match (guess, name.as_bytes().first()) {
                (Some(g), _) => err(
                    format!("`{name}` is not a register or predicate"),
                    format!("did you mean `{g}`?"),
                ),
                (None, Some(b'R' | b'P')) => err(
                    format!("`{name}` is out of range"),
                    "registers are R0..R254, predicates P0..P6".into(),
                ),
                _ => {
                    let hint =
                        did_you_mean(&name, ["R0", "R1", "R2", "P0", "P1"]).unwrap_or_else(|| {
                            "inputs set registers (`R1: 5`) and predicates (`P0: lane < 16`)".into()
                        });
                    err(format!("`{name}` is not a register or predicate"), hint)
                }
            }
        }
    })
}

/// Evaluates `expr` once for every thread it can differ on, so a thread
/// that would divide by zero is a load error rather than a silent 0 later.
fn check_every_thread(
    src: &SourceFile<'_>,
    leaf: &Spanned<Node>,
    text: &str,
    expr: &Expr,
    key: &str,
    launch: &LaunchSpec,
    warp_width: u32,
) -> Result<(), LoadError> {
    if expr.never_fails() {
        return Ok(());
    }
    let n = launch.threads();
    let bd = u64::from(launch.block_dim);
    let per_thread = expr.uses(Var::Tid)
        || expr.uses(Var::Warp)
        || (expr.uses(Var::Lane) && expr.uses(Var::Block));
    // Threads whose coordinates cover every value the expression reads.
    let sample: Box<dyn Iterator<Item = u64>> = if per_thread {
        Box::new(0..n)
    } else if expr.uses(Var::Lane) {
        Box::new(0..bd.min(u64::from(warp_width)))
    } else if expr.uses(Var::Block) {
        Box::new((0..u64::from(launch.blocks)).map(move |b| b * bd))
    } else {
        Box::new(0..1)
    };
    for tid in sample {
        let t = launch.thread_ctx(tid, warp_width);
        if let Err(e) = expr.eval(&Env::thread(&t)) {
            return Err(values::eval_error(src, leaf, text, key, &e, &describe(&t)));
        }
    }
    Ok(())
}

fn describe(t: &ThreadCtx) -> String {
    format!(
        "thread {} (block {}, warp {}, lane {})",
        t.tid, t.block, t.warp, t.lane
    )
}
