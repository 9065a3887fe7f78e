//! Properties of the engine over random programs.
//!
//! Programs come from a small structured grammar: integer ALU ops on R1..R6,
//! float ops on R7..R8, predicates P0..P2 set from lane-dependent inputs,
//! if/else diamonds and if-then blocks (`@!Pn BRA`), do-while loops (one
//! inside another at most) whose trip count R9 differs by lane, `BRA` out
//! of a loop from anywhere in its body (unstructured flow), guarded
//! instructions, LDG/STG at each thread's own element of a buffer, LDS/STS
//! at its own word of shared memory, guarded EXITs between top-level
//! statements, and an EXIT at the end. Some programs wrap every construct
//! in `BSSY`/`BSYNC` (and leave them with `BREAK`), the way a compiler does
//! for `its`; the rest have no barriers at all. Warp width 8, 32 or 64;
//! 1..3 blocks of 1..2W threads (partial warps); one or two SMs and
//! schedulers; lrr or gto; varied alu, branch and global latencies.
//!
//! The oracle is a plain per-thread interpreter of the same syntax tree:
//! no warps, no masks, no timing. Every lane's final registers,
//! predicates and stored word must equal it under both convergence models
//! and every scheduling knob, since no instruction here lets lanes
//! communicate. MUFU results (an approximation on real hardware) are not
//! predicted: those registers are compared between the runs instead.
//!
//! Case counts default to 64 (96 for the cheap ones); set PROPTEST_CASES to
//! change them.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::TestCaseError;
use warpstep::engine::Machine;
use warpstep::engine::stats::Reason;
use warpstep::report::Report;
use warpstep::scenario::{Convergence, GroupPolicy, Origin, Scenario};

fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases: n,
        max_shrink_iters: 20_000,
        ..ProptestConfig::default()
    }
}

// ------------------------------------------------------------ the grammar

/// An integer source operand.
#[derive(Debug, Clone, Copy)]
enum Src {
    R(u8),
    Imm(i32),
}

impl std::fmt::Display for Src {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Src::R(r) => write!(f, "R{r}"),
            Src::Imm(v) => write!(f, "{v}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    const ALL: [Cmp; 6] = [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne];

    fn name(self) -> &'static str {
        match self {
            Cmp::Lt => "LT",
            Cmp::Le => "LE",
            Cmp::Gt => "GT",
            Cmp::Ge => "GE",
            Cmp::Eq => "EQ",
            Cmp::Ne => "NE",
        }
    }

    fn holds<T: Ord>(self, a: T, b: T) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        }
    }
}

/// One non-branching instruction.
#[derive(Debug, Clone)]
enum Op {
    Mov {
        d: u8,
        imm: i32,
    },
    Iadd3 {
        d: u8,
        a: u8,
        b: Src,
        c: u8,
    },
    Imad {
        d: u8,
        a: u8,
        b: Src,
        c: u8,
    },
    Lop3 {
        d: u8,
        a: u8,
        b: u8,
        c: u8,
        lut: u8,
    },
    Shl {
        d: u8,
        a: u8,
        s: u8,
    },
    ShrU32 {
        d: u8,
        a: u8,
        s: u8,
    },
    Imnmx {
        d: u8,
        a: u8,
        b: u8,
        min: bool,
    },
    Sel {
        d: u8,
        a: u8,
        b: u8,
        p: u8,
        neg: bool,
    },
    Isetp {
        p: u8,
        cmp: Cmp,
        unsigned: bool,
        a: u8,
        b: Src,
    },
    I2f {
        d: u8,
        a: u8,
    },
    Fadd {
        d: u8,
        a: u8,
        b: u8,
    },
    Fmul {
        d: u8,
        a: u8,
        imm: f32,
    },
    MufuRcp {
        d: u8,
        a: u8,
    },
    /// `LDG.E Rd, [R12]`: this thread's element of `data`.
    Ldg {
        d: u8,
    },
    /// `STG.E [R13], Rs`: this thread's element of `out`.
    Stg {
        s: u8,
    },
    /// `LDS Rd, [R14]` / `STS [R14], Rs`: this thread's word of the
    /// block's shared memory.
    Lds {
        d: u8,
    },
    Sts {
        s: u8,
    },
}

/// `@Pn` / `@!Pn`.
type Guard = Option<(u8, bool)>;

#[derive(Debug, Clone)]
enum Stmt {
    Op(Guard, Op),
    /// Lanes where `Pp != neg` run `then`, the others `els`.
    IfElse {
        p: u8,
        neg: bool,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    IfThen {
        p: u8,
        neg: bool,
        then: Vec<Stmt>,
    },
    /// `do { body } while (++Rc < R9)`, the counter Rc (R10, or R11 for a
    /// loop inside a loop) reset first.
    Loop {
        counter: u8,
        body: Vec<Stmt>,
    },
    /// `@[!]Pp BRA done`: leave the innermost loop (unstructured flow when
    /// it sits inside an if/else; under barriers, `BREAK` leaves the
    /// barriers of the constructs in between first).
    Break {
        p: u8,
        neg: bool,
    },
    /// `@[!]Pp EXIT` between top-level statements.
    Exit {
        p: u8,
        neg: bool,
    },
}

/// Integer registers the ALU ops write.
const INT_REGS: std::ops::RangeInclusive<u8> = 1..=6;
/// Float registers.
const FLOAT_REGS: std::ops::RangeInclusive<u8> = 7..=8;
/// Per-lane trip count (1..=4) and the loop counters (outer, inner).
const TRIP: u8 = 9;
const COUNTER: u8 = 10;
const INNER_COUNTER: u8 = 11;
/// `data + 4 * tid`, `out + 4 * tid`.
const LOAD_ADDR: u8 = 12;
const STORE_ADDR: u8 = 13;
/// `4 * (tid % ntid)`: the thread's word of shared memory.
const SHARED_ADDR: u8 = 14;
/// The loop's predicate; P0..P2 are the data predicates.
const LOOP_PRED: u8 = 3;

fn int_src_reg() -> impl Strategy<Value = u8> {
    prop_oneof![6 => INT_REGS, 1 => Just(TRIP), 1 => Just(COUNTER), 1 => Just(INNER_COUNTER)]
}

fn src() -> impl Strategy<Value = Src> {
    prop_oneof![
        3 => int_src_reg().prop_map(Src::R),
        1 => (-40i32..40).prop_map(Src::Imm),
        1 => any::<i32>().prop_map(Src::Imm),
    ]
}

fn pred() -> impl Strategy<Value = u8> {
    0u8..3
}

/// `ISETP`: how the data predicates change (twice as likely as other ops).
fn isetp() -> impl Strategy<Value = Op> {
    (
        pred(),
        proptest::sample::select(&Cmp::ALL[..]),
        any::<bool>(),
        int_src_reg(),
        src(),
    )
        .prop_map(|(p, cmp, unsigned, a, b)| Op::Isetp {
            p,
            cmp,
            unsigned,
            a,
            b,
        })
}

fn op() -> impl Strategy<Value = Op> {
    let d = || INT_REGS;
    let a = int_src_reg;
    let f = || FLOAT_REGS;
    prop_oneof![
        (d(), -100i32..100).prop_map(|(d, imm)| Op::Mov { d, imm }),
        (d(), a(), src(), a()).prop_map(|(d, a, b, c)| Op::Iadd3 { d, a, b, c }),
        (d(), a(), src(), a()).prop_map(|(d, a, b, c)| Op::Imad { d, a, b, c }),
        (d(), a(), a(), a(), any::<u8>()).prop_map(|(d, a, b, c, lut)| Op::Lop3 {
            d,
            a,
            b,
            c,
            lut
        }),
        (d(), a(), 0u8..32).prop_map(|(d, a, s)| Op::Shl { d, a, s }),
        (d(), a(), 0u8..32).prop_map(|(d, a, s)| Op::ShrU32 { d, a, s }),
        (d(), a(), a(), any::<bool>()).prop_map(|(d, a, b, min)| Op::Imnmx { d, a, b, min }),
        (d(), a(), a(), pred(), any::<bool>()).prop_map(|(d, a, b, p, neg)| Op::Sel {
            d,
            a,
            b,
            p,
            neg
        }),
        isetp(),
        isetp(),
        (f(), a()).prop_map(|(d, a)| Op::I2f { d, a }),
        (f(), f(), f()).prop_map(|(d, a, b)| Op::Fadd { d, a, b }),
        (
            f(),
            f(),
            proptest::sample::select(&[0.5f32, -1.5, 3.0, 0.1][..])
        )
            .prop_map(|(d, a, imm)| Op::Fmul { d, a, imm }),
        (f(), f()).prop_map(|(d, a)| Op::MufuRcp { d, a }),
        d().prop_map(|d| Op::Ldg { d }),
        prop_oneof![INT_REGS, FLOAT_REGS].prop_map(|s| Op::Stg { s }),
        d().prop_map(|d| Op::Lds { d }),
        // Integer registers only: what LDS brings back may reach a
        // predicate, and the oracle does not predict MUFU results.
        d().prop_map(|s| Op::Sts { s }),
    ]
}

fn guard() -> impl Strategy<Value = Guard> {
    prop_oneof![3 => Just(None), 1 => (pred(), any::<bool>()).prop_map(Some)]
}

/// Statements nested at most `depth` constructs deep, inside `loops`
/// enclosing loops.
fn block(depth: u32, loops: u8) -> BoxedStrategy<Vec<Stmt>> {
    let leaf = (guard(), op()).prop_map(|(g, o)| Stmt::Op(g, o)).boxed();
    let brk = (pred(), any::<bool>())
        .prop_map(|(p, neg)| Stmt::Break { p, neg })
        .boxed();
    let leaves = if loops > 0 {
        Union::new_weighted(vec![(8, leaf), (1, brk)]).boxed()
    } else {
        leaf
    };
    if depth == 0 {
        return proptest::collection::vec(leaves, 0..4).boxed();
    }
    let inner = block(depth - 1, loops);
    let if_else = (pred(), any::<bool>(), inner.clone(), inner.clone())
        .prop_map(|(p, neg, then, els)| Stmt::IfElse { p, neg, then, els })
        .boxed();
    let if_then = (pred(), any::<bool>(), inner)
        .prop_map(|(p, neg, then)| Stmt::IfThen { p, neg, then })
        .boxed();
    let mut arms = vec![(6, leaves), (2, if_else), (1, if_then)];
    if loops < 2 {
        let counter = COUNTER + loops;
        arms.push((
            2,
            block(depth - 1, loops + 1)
                .prop_map(move |body| Stmt::Loop { counter, body })
                .boxed(),
        ));
    }
    proptest::collection::vec(Union::new_weighted(arms), 0..5).boxed()
}

fn program() -> impl Strategy<Value = Vec<Stmt>> {
    let exit = (pred(), any::<bool>()).prop_map(|(p, neg)| vec![Stmt::Exit { p, neg }]);
    proptest::collection::vec(prop_oneof![6 => block(3, 0), 1 => exit], 1..4)
        .prop_map(|parts| parts.into_iter().flatten().collect())
}

/// A generated scenario: machine shape, per-thread data, the program.
#[derive(Debug, Clone)]
struct Case {
    width: u32,
    blocks: u32,
    block_dim: u32,
    /// Wrap every construct in BSSY/BSYNC.
    barriers: bool,
    global_latency: u32,
    /// `latency.alu` (the derived stall counts follow it) and
    /// `latency.branch`.
    alu_latency: u32,
    branch_latency: u32,
    schedulers: u32,
    gto: bool,
    sms: u32,
    /// `max_blocks_per_sm: 1`: blocks run in waves, not all at once.
    one_block_per_sm: bool,
    /// `inputs.R1..R6`, per thread.
    regs: Vec<Vec<i32>>,
    /// `inputs.P0..P2`, per thread.
    preds: Vec<Vec<bool>>,
    trips: Vec<u32>,
    data: Vec<u32>,
    program: Vec<Stmt>,
}

impl Case {
    fn threads(&self) -> usize {
        (self.blocks * self.block_dim) as usize
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::sample::select(&[8u32, 32, 64][..]),
        1u32..=3,
        any::<proptest::sample::Index>(),
        any::<bool>(),
        prop_oneof![Just(20u32), Just(400)],
        (
            1u32..=2,
            any::<bool>(),
            prop_oneof![Just(4u32), 1u32..=8],
            prop_oneof![3 => Just(0u32), 1 => 1u32..=5],
        ),
        (1u32..=2, any::<bool>()),
    )
        .prop_flat_map(
            |(width, blocks, dim, barriers, global_latency, knobs, sched)| {
                // Up to two warps a block, the last one often partial.
                let block_dim = 1 + dim.index(2 * width as usize) as u32;
                let n = (blocks * block_dim) as usize;
                let vals =
                    proptest::collection::vec(prop_oneof![3 => -50i32..50, 1 => any::<i32>()], n);
                (
                    Just((
                        width,
                        blocks,
                        block_dim,
                        barriers,
                        global_latency,
                        knobs,
                        sched,
                    )),
                    proptest::collection::vec(vals, 6),
                    proptest::collection::vec(proptest::collection::vec(any::<bool>(), n), 3),
                    proptest::collection::vec(1u32..=4, n),
                    proptest::collection::vec(0u32..100_000, n),
                    program(),
                )
            },
        )
        .prop_map(
            |(
                (
                    width,
                    blocks,
                    block_dim,
                    barriers,
                    global_latency,
                    (sms, one_block_per_sm, alu_latency, branch_latency),
                    (schedulers, gto),
                ),
                regs,
                preds,
                trips,
                data,
                program,
            )| Case {
                width,
                blocks,
                block_dim,
                barriers,
                global_latency,
                alu_latency,
                branch_latency,
                schedulers,
                gto,
                sms,
                one_block_per_sm,
                regs,
                preds,
                trips,
                data,
                program,
            },
        )
}

// ------------------------------------------------------------- emission

fn guard_text(g: Guard) -> String {
    match g {
        None => String::new(),
        Some((p, false)) => format!("@P{p} "),
        Some((p, true)) => format!("@!P{p} "),
    }
}

fn op_text(o: &Op) -> String {
    match *o {
        Op::Mov { d, imm } => format!("MOV R{d}, {imm}"),
        Op::Iadd3 { d, a, b, c } => format!("IADD3 R{d}, R{a}, {b}, R{c}"),
        Op::Imad { d, a, b, c } => format!("IMAD R{d}, R{a}, {b}, R{c}"),
        Op::Lop3 { d, a, b, c, lut } => format!("LOP3.LUT R{d}, R{a}, R{b}, R{c}, {lut:#x}, !PT"),
        Op::Shl { d, a, s } => format!("SHL R{d}, R{a}, {s}"),
        Op::ShrU32 { d, a, s } => format!("SHR.U32 R{d}, R{a}, {s}"),
        Op::Imnmx { d, a, b, min } => {
            format!("IMNMX R{d}, R{a}, R{b}, {}", if min { "PT" } else { "!PT" })
        }
        Op::Sel { d, a, b, p, neg } => {
            format!("SEL R{d}, R{a}, R{b}, {}P{p}", if neg { "!" } else { "" })
        }
        Op::Isetp {
            p,
            cmp,
            unsigned,
            a,
            b,
        } => format!(
            "ISETP.{}{}.AND P{p}, PT, R{a}, {b}, PT",
            cmp.name(),
            if unsigned { ".U32" } else { "" }
        ),
        Op::I2f { d, a } => format!("I2F R{d}, R{a}"),
        Op::Fadd { d, a, b } => format!("FADD R{d}, R{a}, R{b}"),
        Op::Fmul { d, a, imm } => format!("FMUL R{d}, R{a}, {imm:?}"),
        Op::MufuRcp { d, a } => format!("MUFU.RCP R{d}, R{a}"),
        Op::Ldg { d } => format!("LDG.E R{d}, [R{LOAD_ADDR}]"),
        Op::Stg { s } => format!("STG.E [R{STORE_ADDR}], R{s}"),
        Op::Lds { d } => format!("LDS R{d}, [R{SHARED_ADDR}]"),
        Op::Sts { s } => format!("STS [R{SHARED_ADDR}], R{s}"),
    }
}

struct Emitter {
    out: String,
    labels: u32,
    barriers: bool,
    /// Barriers of the enclosing constructs, outermost first.
    open: Vec<u32>,
    /// Enclosing loops: their exit label and how many barriers were open
    /// inside them (their own included).
    loops: Vec<(String, usize)>,
}

impl Emitter {
    fn line(&mut self, s: &str) {
        let _ = writeln!(self.out, "  {s}");
    }

    fn label(&mut self, kind: &str) -> String {
        self.labels += 1;
        format!("{kind}{}", self.labels)
    }

    /// The branch that sends lanes where `Pp != neg` is false away.
    fn skip_unless(&mut self, p: u8, neg: bool, to: &str) {
        let g = if neg {
            format!("@P{p}")
        } else {
            format!("@!P{p}")
        };
        self.line(&format!("{g} BRA {to}"));
    }

    /// Emits `stmts`; constructs here take barrier `base`, their arms the
    /// ones above it. Returns one past the highest barrier used.
    ///
    /// The engine's `BSSY` re-arms a barrier outright, so constructs that
    /// can be live at once must not share one: under `its` the two arms of
    /// an if/else run interleaved, so they get disjoint barriers, while
    /// statements of one block run one after the other (each construct
    /// has converged at its BSYNC before the next starts) and reuse them.
    fn block(&mut self, stmts: &[Stmt], base: u32) -> u32 {
        let mut end = base;
        for s in stmts {
            match s {
                Stmt::Op(g, o) => self.line(&format!("{}{}", guard_text(*g), op_text(o))),
                Stmt::Exit { p, neg } => {
                    let g = guard_text(Some((*p, *neg)));
                    self.line(&format!("{g}EXIT"));
                }
                Stmt::IfElse { p, neg, then, els } => {
                    let (e, j) = (self.label("else"), self.label("join"));
                    self.open(base, &j);
                    self.skip_unless(*p, *neg, &e);
                    let then_end = self.block(then, base + 1);
                    self.line(&format!("BRA {j}"));
                    self.line(&format!("{e}:"));
                    let else_end = self.block(els, then_end);
                    self.line(&format!("{j}:"));
                    self.close(base);
                    end = end.max(else_end);
                }
                Stmt::IfThen { p, neg, then } => {
                    let j = self.label("skip");
                    self.open(base, &j);
                    self.skip_unless(*p, *neg, &j);
                    end = end.max(self.block(then, base + 1));
                    self.line(&format!("{j}:"));
                    self.close(base);
                }
                Stmt::Loop { counter, body } => {
                    let (l, j) = (self.label("loop"), self.label("done"));
                    self.line(&format!("MOV R{counter}, RZ"));
                    self.open(base, &j);
                    self.line(&format!("{l}:"));
                    self.loops.push((j.clone(), self.open.len()));
                    end = end.max(self.block(body, base + 1));
                    self.loops.pop();
                    self.line(&format!("IADD3 R{counter}, R{counter}, 1, RZ"));
                    self.line(&format!(
                        "ISETP.LT.AND P{LOOP_PRED}, PT, R{counter}, R{TRIP}, PT"
                    ));
                    self.line(&format!("@P{LOOP_PRED} BRA {l}"));
                    self.line(&format!("{j}:"));
                    self.close(base);
                }
                Stmt::Break { p, neg } => {
                    let g = guard_text(Some((*p, *neg)));
                    let Some((done, height)) = self.loops.last().cloned() else {
                        continue;
                    };
                    // Leave the barriers of the constructs between here and
                    // the loop; the loop's own barrier waits at `done`.
                    let inner: Vec<u32> = self.open[height..].to_vec();
                    for b in inner {
                        self.line(&format!("{g}BREAK B{b}"));
                    }
                    self.line(&format!("{g}BRA {done}"));
                }
            }
        }
        end.max(
            base + u32::from(stmts.iter().any(|s| {
                matches!(
                    s,
                    Stmt::IfElse { .. } | Stmt::IfThen { .. } | Stmt::Loop { .. }
                )
            })),
        )
    }

    fn open(&mut self, b: u32, join: &str) {
        if self.barriers {
            assert!(b < 16, "more than 16 convergence barriers");
            self.line(&format!("BSSY B{b}, {join}"));
            self.open.push(b);
        }
    }

    fn close(&mut self, b: u32) {
        if self.barriers {
            self.line(&format!("BSYNC B{b}"));
            self.open.pop();
        }
    }
}

fn program_text(c: &Case) -> String {
    let mut e = Emitter {
        out: String::new(),
        labels: 0,
        barriers: c.barriers,
        open: Vec::new(),
        loops: Vec::new(),
    };
    let _ = e.block(&c.program, 0);
    e.line("EXIT");
    e.out
}

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

fn yaml(c: &Case, convergence: &str) -> String {
    let mut y = String::new();
    let _ = writeln!(y, "name: generated");
    let _ = writeln!(y, "machine:");
    let _ = writeln!(y, "  warp_width: {}", c.width);
    let _ = writeln!(y, "  convergence: {convergence}");
    let _ = writeln!(
        y,
        "  latency: {{global: {}, alu: {}, branch: {}}}",
        c.global_latency, c.alu_latency, c.branch_latency
    );
    let _ = writeln!(y, "  max_cycles: 1000000");
    let _ = writeln!(y, "  sms: {}", c.sms);
    let _ = writeln!(y, "  schedulers: {}", c.schedulers);
    let _ = writeln!(y, "  policy: {}", if c.gto { "gto" } else { "lrr" });
    if c.one_block_per_sm {
        let _ = writeln!(y, "  max_blocks_per_sm: 1");
    }
    let _ = writeln!(
        y,
        "launch: {{blocks: {}, block_dim: {}}}",
        c.blocks, c.block_dim
    );
    let _ = writeln!(y, "memory:");
    let _ = writeln!(y, "  data: {{type: u32, init: {}}}", list(&c.data));
    let _ = writeln!(y, "  out: {{type: u32, len: {}}}", c.threads());
    let _ = writeln!(y, "inputs:");
    for (i, vals) in c.regs.iter().enumerate() {
        let _ = writeln!(y, "  R{}: {}", i + 1, list(vals));
    }
    let _ = writeln!(y, "  R{TRIP}: {}", list(&c.trips));
    let _ = writeln!(y, "  R{LOAD_ADDR}: \"data + 4 * tid\"");
    let _ = writeln!(y, "  R{STORE_ADDR}: \"out + 4 * tid\"");
    let _ = writeln!(y, "  R{SHARED_ADDR}: \"4 * (tid % ntid)\"");
    for (i, vals) in c.preds.iter().enumerate() {
        let bits: Vec<u8> = vals.iter().map(|&b| u8::from(b)).collect();
        let _ = writeln!(y, "  P{i}: {}", list(&bits));
    }
    let _ = writeln!(y, "program: |");
    y.push_str(&program_text(c));
    y
}

fn load(c: &Case, convergence: &str) -> Result<Scenario, TestCaseError> {
    let text = yaml(c, convergence);
    Scenario::from_text(&text, Origin::Builtin("generated".into()))
        .map_err(|e| TestCaseError::fail(format!("generated scenario does not load:\n{e}\n{text}")))
}

/// Builds, runs to the end with hazard checks and final states on.
fn run(sc: &Scenario) -> Result<Machine, TestCaseError> {
    let mut m = sc
        .new_machine()
        .map_err(|e| TestCaseError::fail(format!("does not link: {e}")))?;
    m.set_hazard_checks(true);
    m.set_keep_final_states(true);
    m.run()
        .map_err(|e| TestCaseError::fail(format!("run stopped: {e}\nscenario:\n{}", sc.source)))?;
    prop_assert!(m.finished());
    Ok(m)
}

// --------------------------------------------------------------- oracle

/// One thread's state in the oracle. `None`: a MUFU result, not predicted.
#[derive(Debug, Clone)]
struct Thread {
    r: [Option<u32>; 16],
    p: [bool; 7],
    out: Option<u32>,
    /// The thread's word of shared memory.
    shared: Option<u32>,
    exited: bool,
}

fn f32_bits(x: f32) -> Option<u32> {
    // NaN payloads are the engine's business; none of these ops make one
    // from non-NaN inputs except inf - inf and 0 * inf, which we skip.
    (!x.is_nan()).then(|| x.to_bits())
}

/// LOP3: bit i of the result is bit (a_i << 2 | b_i << 1 | c_i) of `lut`
/// (the SASS convention: `lut = f(0xF0, 0xCC, 0xAA)`).
fn lop3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..32).fold(0, |acc, i| {
        let idx = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1);
        acc | u32::from(lut >> idx & 1) << i
    })
}

impl Thread {
    fn src(&self, s: Src) -> Option<u32> {
        match s {
            Src::R(r) => self.r[r as usize],
            Src::Imm(v) => Some(v as u32),
        }
    }

    fn op(&mut self, o: &Op, data: u32) {
        let r = |t: &Thread, x: u8| t.r[x as usize];
        match *o {
            Op::Mov { d, imm } => self.r[d as usize] = Some(imm as u32),
            Op::Iadd3 { d, a, b, c } => {
                self.r[d as usize] = (|| {
                    Some(
                        r(self, a)?
                            .wrapping_add(self.src(b)?)
                            .wrapping_add(r(self, c)?),
                    )
                })()
            }
            Op::Imad { d, a, b, c } => {
                self.r[d as usize] = (|| {
                    Some(
                        r(self, a)?
                            .wrapping_mul(self.src(b)?)
                            .wrapping_add(r(self, c)?),
                    )
                })()
            }
            Op::Lop3 { d, a, b, c, lut } => {
                self.r[d as usize] = (|| Some(lop3(lut, r(self, a)?, r(self, b)?, r(self, c)?)))()
            }
            Op::Shl { d, a, s } => self.r[d as usize] = r(self, a).map(|x| x << s),
            Op::ShrU32 { d, a, s } => self.r[d as usize] = r(self, a).map(|x| x >> s),
            Op::Imnmx { d, a, b, min } => {
                self.r[d as usize] = (|| {
                    let (x, y) = (r(self, a)? as i32, r(self, b)? as i32);
                    Some(if min { x.min(y) } else { x.max(y) } as u32)
                })()
            }
            Op::Sel { d, a, b, p, neg } => {
                let take_a = self.p[p as usize] != neg;
                self.r[d as usize] = if take_a { r(self, a) } else { r(self, b) };
            }
            Op::Isetp {
                p,
                cmp,
                unsigned,
                a,
                b,
            } => {
                // Sources are integer registers, never MUFU results.
                let (x, y) = (r(self, a).unwrap_or(0), self.src(b).unwrap_or(0));
                self.p[p as usize] = if unsigned {
                    cmp.holds(x, y)
                } else {
                    cmp.holds(x as i32, y as i32)
                };
            }
            Op::I2f { d, a } => {
                self.r[d as usize] = r(self, a).map(|x| (x as i32 as f32).to_bits())
            }
            Op::Fadd { d, a, b } => {
                self.r[d as usize] =
                    (|| f32_bits(f32::from_bits(r(self, a)?) + f32::from_bits(r(self, b)?)))()
            }
            Op::Fmul { d, a, imm } => {
                self.r[d as usize] = (|| f32_bits(f32::from_bits(r(self, a)?) * imm))()
            }
            Op::MufuRcp { d, .. } => self.r[d as usize] = None,
            Op::Ldg { d } => self.r[d as usize] = Some(data),
            Op::Stg { s } => self.out = r(self, s),
            Op::Lds { d } => self.r[d as usize] = self.shared,
            Op::Sts { s } => self.shared = r(self, s),
        }
    }

    /// Runs `stmts`; true when a `Break` left the innermost loop.
    fn run(&mut self, stmts: &[Stmt], data: u32) -> bool {
        let on = |t: &Thread, p: u8, neg: bool| t.p[p as usize] != neg;
        for s in stmts {
            if self.exited {
                return false;
            }
            match s {
                Stmt::Op(g, o) => {
                    if g.is_none_or(|(p, neg)| on(self, p, neg)) {
                        self.op(o, data);
                    }
                }
                Stmt::Exit { p, neg } => self.exited = on(self, *p, *neg),
                Stmt::Break { p, neg } => {
                    if on(self, *p, *neg) {
                        return true;
                    }
                }
                Stmt::IfElse { p, neg, then, els } => {
                    let taken = if on(self, *p, *neg) { then } else { els };
                    if self.run(taken, data) {
                        return true;
                    }
                }
                Stmt::IfThen { p, neg, then } => {
                    if on(self, *p, *neg) && self.run(then, data) {
                        return true;
                    }
                }
                Stmt::Loop { counter, body } => {
                    let c = *counter as usize;
                    self.r[c] = Some(0);
                    // A break jumps past the increment and the compare.
                    while !self.run(body, data) {
                        let n = self.r[c].unwrap_or(0).wrapping_add(1);
                        self.r[c] = Some(n);
                        let trip = self.r[TRIP as usize].unwrap_or(0);
                        self.p[LOOP_PRED as usize] = (n as i32) < (trip as i32);
                        if !self.p[LOOP_PRED as usize] {
                            break;
                        }
                    }
                }
            }
        }
        false
    }
}

/// Every thread's final state, by the oracle. Addresses are not modelled
/// (R12/R13 are compared separately), so they start as `None`.
fn oracle(c: &Case) -> Vec<Thread> {
    (0..c.threads())
        .map(|t| {
            let mut th = Thread {
                r: [Some(0); 16],
                p: [false; 7],
                out: Some(0),
                shared: Some(0),
                exited: false,
            };
            for (i, vals) in c.regs.iter().enumerate() {
                th.r[i + 1] = Some(vals[t] as u32);
            }
            th.r[TRIP as usize] = Some(c.trips[t]);
            th.r[LOAD_ADDR as usize] = None;
            th.r[STORE_ADDR as usize] = None;
            th.r[SHARED_ADDR as usize] = None;
            for (i, vals) in c.preds.iter().enumerate() {
                th.p[i] = vals[t];
            }
            th.run(&c.program, c.data[t]);
            th
        })
        .collect()
}

/// What one run left behind, per thread: registers R0..num_regs, P0..P6,
/// and its word of `out`.
#[derive(Debug, Clone, PartialEq)]
struct Final {
    regs: Vec<u32>,
    preds: [bool; 7],
    out: u32,
}

fn finals(m: &Machine, c: &Case) -> Result<Vec<Final>, TestCaseError> {
    let w = c.width as usize;
    let per_block = (c.block_dim as usize).div_ceil(w);
    let out = m.buffer("out").unwrap_or_default();
    let mut v: Vec<Option<Final>> = vec![None; c.threads()];
    let states = m.final_states();
    prop_assert_eq!(
        states.len(),
        per_block * c.blocks as usize,
        "one state per warp"
    );
    for s in states {
        let gw = s.warp as usize;
        let (block, in_block) = (gw / per_block, gw % per_block);
        let nregs = s.regs.len() / w;
        for lane in 0..w {
            let local = in_block * w + lane;
            let launched = s.launched >> lane & 1 != 0;
            prop_assert_eq!(
                launched,
                local < c.block_dim as usize,
                "warp {} lane {}",
                gw,
                lane
            );
            if !launched {
                continue;
            }
            let tid = block * c.block_dim as usize + local;
            let word = out.get(4 * tid..4 * tid + 4).unwrap_or(&[0; 4]);
            v[tid] = Some(Final {
                regs: (0..nregs).map(|r| s.regs[r * w + lane]).collect(),
                preds: std::array::from_fn(|p| s.preds[p] >> lane & 1 != 0),
                out: u32::from_le_bytes([word[0], word[1], word[2], word[3]]),
            });
        }
    }
    v.into_iter()
        .enumerate()
        .map(|(t, f)| {
            f.ok_or_else(|| TestCaseError::fail(format!("thread {t} has no final state")))
        })
        .collect()
}

/// The engine's final states equal the oracle's wherever it predicts.
fn check_against_oracle(
    got: &[Final],
    want: &[Thread],
    label: &str,
    program: &str,
) -> Result<(), TestCaseError> {
    for (t, (g, w)) in got.iter().zip(want).enumerate() {
        for (r, &v) in g.regs.iter().enumerate() {
            if let Some(expected) = w.r.get(r).copied().flatten() {
                prop_assert_eq!(
                    v,
                    expected,
                    "{}: thread {} R{} (program below)\n{}",
                    label,
                    t,
                    r,
                    program
                );
            }
        }
        for p in 0..=LOOP_PRED as usize {
            prop_assert_eq!(
                g.preds[p],
                w.p[p],
                "{}: thread {} P{}\n{}",
                label,
                t,
                p,
                program
            );
        }
        if let Some(o) = w.out {
            prop_assert_eq!(g.out, o, "{}: thread {} out\n{}", label, t, program);
        }
    }
    Ok(())
}

// ----------------------------------------------------------- properties

/// The counters of docs/execution-model.md and their invariants, for one run.
fn check_counters(sc: &Scenario, m: &Machine, c: &Case) -> Result<(), TestCaseError> {
    let w = u64::from(c.width);
    let t = m.totals();
    let r = Report::new(sc, m);
    // sum P <= sum A <= W * I, in total and per warp.
    prop_assert!(t.thread_inst_executed_pred_on <= t.thread_inst_executed);
    prop_assert!(t.thread_inst_executed <= w * t.issued);
    // The lane slots of issued instructions are split five ways, W * I in
    // all. Active, exited and never-launched lanes are counted separately
    // and must not overlap: together at most W * I.
    prop_assert!(t.thread_inst_executed + t.exited_slots + t.never_launched_slots <= w * t.issued);
    let ls = t.lane_slots(c.width);
    prop_assert_eq!(
        ls.predicated_on + ls.predicated_off + ls.divergence + ls.exited + ls.never_launched,
        w * t.issued
    );
    prop_assert_eq!(ls.predicated_on, t.thread_inst_executed_pred_on);
    prop_assert_eq!(ls.predicated_on + ls.predicated_off, t.thread_inst_executed);
    // A warp issues only with a non-empty active mask, so A_j >= 1 and
    // active-lane efficiency lies in [1/W, 1]. SIMD efficiency lies in
    // (0, 1] (the final EXIT has a lane on); it is >= 1/W only when no
    // instruction is guarded: an `@P0` instruction whose active lanes all
    // have P0 false has P_j = 0 (see `simd_efficiency_can_fall_below_1_over_w`).
    prop_assert!(t.thread_inst_executed >= t.issued);
    let ale = t.active_lane_efficiency(c.width).unwrap_or(-1.0);
    prop_assert!(
        (1.0 / w as f64..=1.0).contains(&ale),
        "active-lane efficiency {}",
        ale
    );
    let simd = t.simd_efficiency(c.width).unwrap_or(-1.0);
    prop_assert!(simd > 0.0 && simd <= 1.0, "simd_efficiency {}", simd);
    let guarded = m.code().iter().any(|d| !d.instr.guard.is_always_true());
    if !guarded {
        prop_assert!(
            simd >= 1.0 / w as f64,
            "no guards, yet simd {} < 1/{}",
            simd,
            w
        );
    }
    prop_assert!(t.divergent_branches <= t.branches);

    // Stall accounting: one reason per resident warp-cycle.
    let cycles = m.cycle();
    let records = m.warp_records();
    let per_block = c.block_dim.div_ceil(c.width);
    prop_assert_eq!(records.len() as u32, per_block * c.blocks);
    let mut sum_stalls = 0;
    let mut longest = 0;
    let mut block_total = std::collections::BTreeMap::new();
    for rec in &records {
        let k = &rec.counters;
        prop_assert!(k.thread_inst_executed_pred_on <= k.thread_inst_executed);
        prop_assert!(k.thread_inst_executed <= w * k.issued);
        prop_assert!(k.thread_inst_executed >= k.issued, "warp {}", rec.warp);
        if !guarded && k.issued > 0 {
            let e = k.simd_efficiency(c.width).unwrap_or(-1.0);
            prop_assert!(
                (1.0 / w as f64..=1.0).contains(&e),
                "warp {} simd {}",
                rec.warp,
                e
            );
        }
        let total = k.stalls.total();
        // A warp is `selected` exactly in the cycles it issues, and resident
        // at most for the whole run.
        prop_assert_eq!(
            k.stalls.get(Reason::Selected),
            k.issued,
            "warp {}",
            rec.warp
        );
        prop_assert!(
            k.issued <= total && total <= cycles,
            "warp {}: {} of {}",
            rec.warp,
            total,
            cycles
        );
        // No block barriers, no BAR.SYNC: reasons that cannot occur.
        prop_assert_eq!(k.stalls.get(Reason::Barrier), 0);
        if !c.barriers || m.config().convergence == Convergence::Stack {
            prop_assert_eq!(k.stalls.get(Reason::ConvergenceBarrier), 0);
        }
        // A block's warps arrive and leave together.
        let prev = *block_total.entry(rec.block).or_insert(total);
        prop_assert_eq!(
            prev,
            total,
            "warps of block {} resident for different times",
            rec.block
        );
        sum_stalls += total;
        longest = longest.max(total);
    }
    prop_assert_eq!(sum_stalls, t.stalls.total());
    prop_assert!(longest <= cycles);
    match (c.sms, c.one_block_per_sm) {
        // Every block fits on the SM at once (<= 3 blocks, <= 6 warps), so
        // all start at cycle 0 and the last to leave ends the run.
        (1, false) => prop_assert_eq!(longest, cycles),
        // One block at a time: each starts when the previous one leaves.
        (1, true) => prop_assert_eq!(block_total.values().sum::<u64>(), cycles),
        // Two SMs: unless a third block waits for a free SM, every block
        // starts at cycle 0.
        _ => {
            if !c.one_block_per_sm || c.blocks <= 2 {
                prop_assert_eq!(longest, cycles);
            }
        }
    }

    // Every launched lane exits exactly once: EXIT's predicated-on lanes
    // add up to the threads, and every warp ends with exited == launched.
    let exits: u64 = m
        .pc_counters()
        .iter()
        .zip(m.code())
        .filter(|(_, d)| d.instr.mnemonic == "EXIT")
        .map(|(p, _)| p.thread_inst_executed_pred_on)
        .sum();
    prop_assert_eq!(exits, c.threads() as u64);
    for s in m.final_states() {
        prop_assert_eq!(s.exited, s.launched, "warp {}", s.warp);
        prop_assert_eq!(s.faulted, 0);
    }
    prop_assert_eq!(m.faults_total(), 0);
    // Derived control codes never let an instruction read or overwrite a
    // register early.
    prop_assert!(m.hazards().is_empty(), "hazards: {:?}", m.hazards());
    // The report agrees with the counters it is built from.
    prop_assert_eq!(r.issued, t.issued);
    prop_assert_eq!(r.cycles, cycles);
    let warp_sum: u64 = r.warps.iter().map(|x| x.thread_inst_executed).sum();
    prop_assert_eq!(warp_sum, r.thread_inst_executed);
    Ok(())
}

proptest! {
    #![proptest_config(cases(64))]

    /// Counter invariants, stall accounting, exits and hazards, under both
    /// convergence models.
    #[test]
    fn counters_stalls_exits_and_hazards_hold(c in case()) {
        for conv in ["stack", "its"] {
            let sc = load(&c, conv)?;
            let m = run(&sc)?;
            check_counters(&sc, &m, &c).map_err(|e| {
                TestCaseError::fail(format!("{conv}: {e}\nprogram:\n{}", sc.program_text))
            })?;
        }
    }

    /// Final registers, predicates and stores equal the per-thread oracle
    /// under the stack (either side first) and `its` (either group
    /// policy), whatever the scheduler; MUFU results agree between runs.
    #[test]
    fn final_state_matches_the_per_thread_oracle(c in case()) {
        let want = oracle(&c);
        let base = load(&c, "stack")?;
        let mut variants = Vec::new();
        for (conv, taken_first, group) in [
            (Convergence::Stack, true, GroupPolicy::Sticky),
            (Convergence::Stack, false, GroupPolicy::Sticky),
            (Convergence::Its, true, GroupPolicy::Sticky),
            (Convergence::Its, true, GroupPolicy::LowestPc),
        ] {
            let mut sc = base.clone();
            sc.machine.convergence = conv;
            sc.machine.taken_first = taken_first;
            sc.machine.group_policy = group;
            let label = format!("{conv:?} taken_first={taken_first} {group:?}");
            let m = run(&sc)?;
            let got = finals(&m, &c)?;
            check_against_oracle(&got, &want, &label, &sc.source)?;
            variants.push((label, got));
        }
        let (first_label, first) = &variants[0];
        for (label, got) in &variants[1..] {
            prop_assert!(
                got == first,
                "final states differ between {} and {}\n{}",
                first_label,
                label,
                base.program_text
            );
        }
    }

    /// The same scenario gives the same report twice; stepping one cycle
    /// at a time gives what `run()` (which skips idle cycles) gives; and a
    /// clone taken halfway finishes exactly like the original.
    #[test]
    fn runs_are_deterministic_and_stepping_equals_running(c in case(), its in any::<bool>()) {
        let sc = Arc::new(load(&c, if its { "its" } else { "stack" })?);
        let report = |m: &Machine| Report::new(&sc, m).to_value();
        let mut a = sc.new_machine().map_err(|e| TestCaseError::fail(e.to_string()))?;
        a.run().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut b = sc.new_machine().map_err(|e| TestCaseError::fail(e.to_string()))?;
        b.run().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(report(&a), report(&b));

        let mut s = sc.new_machine().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut steps = 0u64;
        while s.step() {
            steps += 1;
            prop_assert!(steps <= a.cycle(), "stepping ran past {} cycles", a.cycle());
        }
        prop_assert_eq!(report(&s), report(&a));

        let mut half = sc.new_machine().map_err(|e| TestCaseError::fail(e.to_string()))?;
        half.run_until(a.cycle() / 2);
        let mut copy = half.clone();
        half.run().map_err(|e| TestCaseError::fail(e.to_string()))?;
        copy.run().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(report(&half), report(&a));
        prop_assert_eq!(report(&copy), report(&a));
    }
}

// ----------------------------------------------- hand-checked generator

/// The generator and oracle themselves, on a program worked by hand, so a
/// bug in them cannot hide a bug in the engine.
#[test]
fn oracle_agrees_with_a_hand_worked_program() {
    // Thread t: R1 = t, trip = t + 1 (t < 4). Loop adds R1 to R2 trip
    // times, then lanes with R2 > 3 set R3 = 100, others R3 = 7.
    let c = Case {
        width: 8,
        blocks: 1,
        block_dim: 4,
        barriers: true,
        global_latency: 20,
        alu_latency: 4,
        branch_latency: 0,
        schedulers: 1,
        gto: false,
        sms: 1,
        one_block_per_sm: false,
        regs: vec![
            vec![0, 1, 2, 3],
            vec![0; 4],
            vec![0; 4],
            vec![0; 4],
            vec![0; 4],
            vec![0; 4],
        ],
        preds: vec![vec![false; 4]; 3],
        trips: vec![1, 2, 3, 4],
        data: vec![10, 11, 12, 13],
        program: vec![
            Stmt::Loop {
                counter: COUNTER,
                body: vec![Stmt::Op(
                    None,
                    Op::Iadd3 {
                        d: 2,
                        a: 2,
                        b: Src::R(1),
                        c: 6,
                    },
                )],
            },
            Stmt::Op(
                None,
                Op::Isetp {
                    p: 0,
                    cmp: Cmp::Gt,
                    unsigned: false,
                    a: 2,
                    b: Src::Imm(3),
                },
            ),
            Stmt::IfElse {
                p: 0,
                neg: false,
                then: vec![Stmt::Op(None, Op::Mov { d: 3, imm: 100 })],
                els: vec![Stmt::Op(None, Op::Mov { d: 3, imm: 7 })],
            },
            Stmt::Op(Some((0, true)), Op::Ldg { d: 4 }),
            Stmt::Op(None, Op::Stg { s: 3 }),
        ],
    };
    // R2 = t * (t + 1): 0, 2, 6, 12; P0 = R2 > 3: lanes 2, 3.
    let want = oracle(&c);
    let r2: Vec<Option<u32>> = want.iter().map(|t| t.r[2]).collect();
    assert_eq!(r2, [Some(0), Some(2), Some(6), Some(12)]);
    let r3: Vec<Option<u32>> = want.iter().map(|t| t.r[3]).collect();
    assert_eq!(r3, [Some(7), Some(7), Some(100), Some(100)]);
    // Lanes 0 and 1 (P0 false) load data[t]; the others keep R4 = 0.
    let r4: Vec<Option<u32>> = want.iter().map(|t| t.r[4]).collect();
    assert_eq!(r4, [Some(10), Some(11), Some(0), Some(0)]);
    assert_eq!(want[3].r[COUNTER as usize], Some(4));
    let text = program_text(&c);
    assert_eq!(
        text,
        "  MOV R10, RZ
  BSSY B0, done2
  loop1:
  IADD3 R2, R2, R1, R6
  IADD3 R10, R10, 1, RZ
  ISETP.LT.AND P3, PT, R10, R9, PT
  @P3 BRA loop1
  done2:
  BSYNC B0
  ISETP.GT.AND P0, PT, R2, 3, PT
  BSSY B0, join4
  @!P0 BRA else3
  MOV R3, 100
  BRA join4
  else3:
  MOV R3, 7
  join4:
  BSYNC B0
  @!P0 LDG.E R4, [R12]
  STG.E [R13], R3
  EXIT
"
    );
    for conv in ["stack", "its"] {
        let sc = load(&c, conv).unwrap_or_else(|e| panic!("{e}"));
        let m = run(&sc).unwrap_or_else(|e| panic!("{e}"));
        let got = finals(&m, &c).unwrap_or_else(|e| panic!("{e}"));
        check_against_oracle(&got, &want, conv, &sc.program_text).unwrap_or_else(|e| panic!("{e}"));
        let outs: Vec<u32> = got.iter().map(|f| f.out).collect();
        assert_eq!(outs, [7, 7, 100, 100], "{conv}");
        check_counters(&sc, &m, &c).unwrap_or_else(|e| panic!("{conv}: {e}"));
        // Stack: the loop runs 4 times for the warp (the longest trip).
        // Issued: MOV, BSSY, 4 x (IADD3, IADD3, ISETP, BRA), BSYNC, ISETP,
        // BSSY, BRA, then-side MOV + BRA, else-side MOV, BSYNC, LDG, STG,
        // EXIT = 2 + 16 + 1 + 3 + 3 + 1 + 3 = 29 on the stack; `its`
        // issues the diamond's BSYNC once per group (+1) and, once the
        // loop splits, each exited group's BSYNC separately (+3): 33.
        if conv == "stack" {
            assert_eq!(m.totals().issued, 29);
        }
    }
}

// ------------------------------------------------------- never panics

/// Characters a mutation may insert: YAML punctuation, digits, letters,
/// SASS punctuation.
const ALPHABET: &[u8] = b" :-[]{}\"'#|>&*!,.0123456789xRPBtz@;/\n\t\\%?";

fn builtin_texts() -> Vec<(&'static str, &'static str)> {
    warpstep::builtin::names()
        .filter_map(|n| Some((n, warpstep::builtin::text(n)?)))
        .collect()
}

/// Loads a scenario and, when it loads and is small, runs it capped.
fn load_and_run(text: &str) {
    match Scenario::from_text(text, Origin::Builtin("mutant".into())) {
        Err(e) => {
            let shown = e.to_string();
            assert!(shown.starts_with("error: "), "{shown}");
            assert!(e.line >= 1, "a load error in text has a position: {shown}");
        }
        Ok(mut sc) => {
            if sc.launch.threads() > 4096 {
                return;
            }
            sc.machine.max_cycles = sc.machine.max_cycles.min(20_000);
            // A scenario that loads must run: loading checks everything a
            // machine needs, so a machine that cannot be built is a bug.
            let mut m = sc
                .new_machine()
                .unwrap_or_else(|e| panic!("a scenario that loads builds no machine: {e}"));
            m.set_hazard_checks(true);
            let _ = m.run();
            let _ = Report::new(&sc, &m).to_value();
        }
    }
}

/// Program text from SASS-like tokens, so most inputs get past the lexer.
fn sass_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        proptest::sample::select(
            &[
                "MOV",
                "IADD3",
                "ISETP.LT.AND",
                "BRA",
                "BSSY",
                "BSYNC",
                "EXIT",
                "LDG.E",
                "STG.E",
                "MUFU.RCP",
                "SHFL.BFLY",
                "WARPSYNC",
                "BAR.SYNC",
                "DEPBAR.LE",
                "LOP3.LUT",
                "IMAD.WIDE",
                "FFMA",
                "S2R",
                "SR_TID.X",
                "BREAK",
                "VOTE.ANY",
                "R0",
                "R1",
                "R254",
                "R255",
                "RZ",
                "P0",
                "!P6",
                "PT",
                "B0",
                "B15",
                "B16",
                "SB0",
                "@P0",
                "@!PT",
                "c[0x0][0x160]",
                "c[0x1][0x0]",
                "[R2]",
                "[R2+0x10]",
                "[R2.64]",
                "0x7fffffff",
                "-1",
                "1.5",
                "L:",
                "L",
                "loop:",
                ",",
                ";",
                "//",
                "/*0010*/",
                "[B------:R-:W2:-:S04]",
                "[R---:B0-----:R-:W-:Y:S15]",
                "[B:R:W:S]",
                "\n",
                "\n",
                "\n",
                " ",
            ][..]
        )
        .prop_map(String::from),
        "[A-Za-z0-9_.:\\[\\]@!,+-]{1,6}",
    ];
    proptest::collection::vec(token, 0..40).prop_map(|toks| toks.join(" "))
}

proptest! {
    #![proptest_config(cases(96))]

    #[test]
    fn loading_random_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        load_and_run(&String::from_utf8_lossy(&bytes));
    }

    /// Mutations of every built-in (not just one base file): what still
    /// loads is run, so the engine meets near-valid programs and machines.
    #[test]
    fn mutated_builtins_load_and_run_without_panic(
        which in any::<proptest::sample::Index>(),
        edits in proptest::collection::vec((any::<proptest::sample::Index>(), 0..ALPHABET.len(), 0u8..3), 1..5),
    ) {
        let all = builtin_texts();
        let (_, text) = all[which.index(all.len())];
        let mut bytes = text.as_bytes().to_vec();
        for (at, ch, kind) in edits {
            let at = at.index(bytes.len() + 1);
            match kind {
                0 => bytes.insert(at, ALPHABET[ch]),
                1 if at < bytes.len() => { bytes.remove(at); }
                _ if at < bytes.len() => bytes[at] = ALPHABET[ch],
                _ => {}
            }
        }
        load_and_run(&String::from_utf8_lossy(&bytes));
    }

    /// Any program text assembles or gives an error inside the text.
    #[test]
    fn assembling_random_text_never_panics(text in sass_text()) {
        match warpstep::asm::assemble(&text, 4) {
            Ok(p) => prop_assert!(!p.instrs.is_empty()),
            Err(e) => {
                let lines = text.lines().count().max(1) as u32;
                prop_assert!(e.line >= 1 && e.line <= lines, "line {} of {}: {}", e.line, lines, e);
                prop_assert!(e.column >= 1);
            }
        }
    }
}

/// Every built-in loads, and its mutation base is what `builtin_texts`
/// returns (44 files under `scenarios/`: 36 hand-written, 8 real-kernel
/// listings).
#[test]
fn every_builtin_is_a_mutation_base() {
    let names: BTreeSet<&str> = builtin_texts().iter().map(|(n, _)| *n).collect();
    assert_eq!(names.len(), 44);
    for (n, t) in builtin_texts() {
        assert!(
            Scenario::from_text(t, Origin::Builtin(n.into())).is_ok(),
            "{n} does not load"
        );
    }
}

/// docs/execution-model.md's bounds on SIMD efficiency assume every issued instruction
/// does some work. A guarded instruction whose active lanes are all off
/// does none: one thread, ten `@P0 MOV` with P0 false, then EXIT gives
/// sum P = 1 (EXIT) over 11 x 32 lane-slots = 1/352, below 1/32, while
/// sum A = 11 keeps active-lane efficiency at exactly 1/32.
#[test]
fn simd_efficiency_can_fall_below_1_over_w() {
    let mut text = String::from("name: all off\nlaunch: {threads: 1}\nprogram: |\n");
    for _ in 0..10 {
        text.push_str("  @P0 MOV R1, 1\n");
    }
    text.push_str("  EXIT\n");
    let sc = Scenario::from_text(&text, Origin::Builtin("off".into())).expect("loads");
    let mut m = sc.new_machine().expect("builds");
    m.run().expect("runs");
    let t = m.totals();
    assert_eq!(t.issued, 11);
    assert_eq!(t.thread_inst_executed, 11);
    assert_eq!(t.thread_inst_executed_pred_on, 1);
    assert_eq!(t.simd_efficiency(32), Some(1.0 / 352.0));
    assert_eq!(t.active_lane_efficiency(32), Some(1.0 / 32.0));
}

/// The generator reaches what the properties are about: divergent
/// branches and loops under both models, convergence-barrier waits under
/// `its`, partial warps, guarded EXITs, loads and stores. A generator that
/// silently degenerated into straight-line code would pass every property.
#[test]
fn generator_reaches_the_interesting_cases() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = case();
    let mut seen: std::collections::BTreeMap<&str, u32> = Default::default();
    let n = 200;
    for _ in 0..n {
        let c = strategy.new_tree(&mut runner).expect("a case").current();
        let mut bump = |k: &'static str, yes: bool| *seen.entry(k).or_default() += u32::from(yes);
        bump("partial warp", !c.block_dim.is_multiple_of(c.width));
        bump("two warps a block", c.block_dim > c.width);
        for conv in ["stack", "its"] {
            let sc = load(&c, conv).unwrap_or_else(|e| panic!("{e}"));
            let m = run(&sc).unwrap_or_else(|e| panic!("{e}"));
            let t = m.totals();
            let text = &sc.program_text;
            let its = conv == "its";
            bump(
                if its {
                    "its divergent"
                } else {
                    "stack divergent"
                },
                t.divergent_branches > 0,
            );
            if its {
                bump(
                    "its split inside BSSY/BSYNC",
                    c.barriers && t.divergent_branches > 0,
                );
                continue;
            }
            bump("loop", text.contains("loop"));
            bump(
                "divergent loop",
                text.contains("loop")
                    && t.divergent_branches > 0
                    && c.trips.iter().any(|&x| x != c.trips[0]),
            );
            bump("loop in a loop", text.contains("MOV R11, RZ"));
            bump("break", text.contains("BRA done"));
            bump("BREAK", text.contains("BREAK"));
            bump(
                "guarded EXIT",
                text.lines()
                    .any(|l| l.trim_start().starts_with('@') && l.ends_with("EXIT")),
            );
            bump("load", m.memory_counters().global_requests > 0);
            bump("store", text.contains("STG"));
            bump("shared", m.memory_counters().shared_requests > 0);
            bump(
                "branch_resolving",
                t.stalls.get(Reason::BranchResolving) > 0,
            );
            bump("dispatch_stall", t.stalls.get(Reason::DispatchStall) > 0);
            bump("long scoreboard", t.stalls.get(Reason::LongScoreboard) > 0);
            bump(
                "short scoreboard",
                t.stalls.get(Reason::ShortScoreboard) > 0,
            );
            bump("parked lanes", t.lane_slots(c.width).divergence > 0);
            bump("over 40 instructions", m.code().len() > 40);
        }
    }
    for k in [
        "partial warp",
        "two warps a block",
        "stack divergent",
        "its divergent",
        "loop",
        "divergent loop",
        "its split inside BSSY/BSYNC",
        "loop in a loop",
        "break",
        "BREAK",
        "guarded EXIT",
        "load",
        "store",
        "shared",
        "branch_resolving",
        "dispatch_stall",
        "long scoreboard",
        "short scoreboard",
        "parked lanes",
        "over 40 instructions",
    ] {
        let hits = seen.get(k).copied().unwrap_or(0);
        println!("{k}: {hits} of {n}");
        assert!(hits >= n / 20, "only {hits} of {n} cases with {k}");
    }
}
