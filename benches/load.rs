//! Loading a scenario's data: buffer `init:` expressions and per-thread
//! `inputs:` of the common forms (affine in `i` or `tid`, `%`, `rand`,
//! a comparison), each over 4,194,304 elements or threads, the way
//! warpstep evaluates them (a run of points step by step, `Expr::eval_run`)
//! against the tree interpreter (`Expr::interpret`) one point at a time,
//! each into the same preallocated words; and a whole scenario's load
//! (`init_4m_elements/load`: YAML, layout, and the buffers' bytes, newly
//! allocated).
//!
//! `cargo bench --bench load` (criterion's throughput line reads
//! "elem/s": one element is one buffer element or one thread's value).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warpstep::engine::{ThreadIds, ThreadInit};
use warpstep::expr::{Env, Expr, Value, Var, Vars};
use warpstep::scenario::{Origin, Scenario};

const N: u32 = 4 << 20;

/// The four buffers: (element type, `init:`).
const BUFFERS: &[(&str, &str)] = &[
    ("f32", "0.25 + (i % 7)"),
    ("u32", "(i * 37) % 4194304"),
    ("f32", "rand(5)"),
    ("i32", "i * 4 + 1"),
];

/// The four inputs: (target, expression).
const INPUTS: &[(&str, &str)] = &[
    ("R1", "0.001 * (tid % 1000)"),
    ("R2", "tid * 3 + 1"),
    ("R3", "rand(9)"),
    ("P0", "(tid % 32) < 16"),
];

fn scenario_text() -> String {
    let mut t = format!(
        "name: load bench\nlaunch: {{blocks: {}, block_dim: 256}}\nmemory:\n",
        N / 256
    );
    for (k, (ty, init)) in BUFFERS.iter().enumerate() {
        t += &format!("  b{k}: {{type: {ty}, len: {N}, init: \"{init}\"}}\n");
    }
    t += "inputs:\n";
    for (target, e) in INPUTS {
        t += &format!("  {target}: \"{e}\"\n");
    }
    t + "program: EXIT\n"
}

fn bench(c: &mut Criterion) {
    let text = scenario_text();
    let mut g = c.benchmark_group("init_4m_elements");
    g.sample_size(10);
    g.throughput(Throughput::Elements(u64::from(N) * BUFFERS.len() as u64));
    // The whole load: YAML, layout, and the four buffers' contents.
    g.bench_function("load", |b| {
        b.iter(|| black_box(Scenario::from_text(&text, Origin::Builtin("bench".into())).is_ok()))
    });
    let exprs: Vec<Expr> = BUFFERS
        .iter()
        .map(|(_, e)| Expr::parse(e, &Vars::buffer_init()).expect("parses"))
        .collect();
    let env = Env::launch(256, u64::from(N));
    let bits = |ty: &str, v: Value| match ty {
        "f32" => v.to_f32_bits(),
        _ => v.to_reg_bits(),
    };
    // Each element's value into its bits, in one buffer allocated once:
    // the reference, each element through the tree...
    let mut out: Vec<u32> = vec![0; N as usize];
    g.bench_function("interpreter", |b| {
        b.iter(|| {
            for (e, (ty, _)) in exprs.iter().zip(BUFFERS) {
                for (i, o) in (0..).zip(out.iter_mut()) {
                    let v = e.interpret(&env.with(Var::I, i)).expect("evaluates");
                    *o = bits(ty, v);
                }
                black_box(&out);
            }
        })
    });
    // ...and as loading does it, 4,096 elements a run.
    g.bench_function("run", |b| {
        let mut run = vec![0u64; 4096];
        b.iter(|| {
            for (e, (ty, _)) in exprs.iter().zip(BUFFERS) {
                for (k, o) in (0..).zip(out.chunks_mut(4096)) {
                    let at = env.with(Var::I, k * 4096);
                    let run = &mut run[..o.len()];
                    let kind = e.eval_run(&at, &[Var::I], run).expect("a chain");
                    for (o, &b) in o.iter_mut().zip(run.iter()) {
                        *o = bits(ty, kind.value(b));
                    }
                }
                black_box(&out);
            }
        })
    });
    g.finish();

    let sc = Scenario::from_text(&text, Origin::Builtin("bench".into())).expect("loads");
    let mut g = c.benchmark_group("inputs_4m_threads");
    g.sample_size(10);
    g.throughput(Throughput::Elements(u64::from(N) * INPUTS.len() as u64));
    // As a block's launch asks them: a warp of 32 threads at a time.
    g.bench_function("launch", |b| {
        b.iter(|| {
            let mut out = [0u32; 32];
            for input in &sc.inputs {
                for warp in 0..u64::from(N / 32) {
                    let first = ThreadIds {
                        tid: warp * 32,
                        lane: 0,
                        warp,
                        block: warp / 8,
                        ntid: 256,
                        nthreads: u64::from(N),
                    };
                    input.values(&first, &mut out);
                    black_box(&out);
                }
            }
        })
    });
    let exprs: Vec<Expr> = INPUTS
        .iter()
        .map(|(_, e)| Expr::parse(e, &Vars::inputs()).expect("parses"))
        .collect();
    g.bench_function("interpreter", |b| {
        b.iter(|| {
            for (e, (target, _)) in exprs.iter().zip(INPUTS) {
                let mut acc = 0u32;
                for tid in 0..u64::from(N) {
                    let env = Env::thread(&sc.thread_ctx(tid));
                    let v = e.interpret(&env).expect("evaluates");
                    acc ^= if target.starts_with('P') {
                        v.to_pred()
                    } else {
                        v.to_reg_bits()
                    };
                }
                black_box(acc);
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
