//! Headless engine throughput, measured in warp instructions per second,
//! one group per kernel class: a hand-written divergent-loop kernel over
//! 1,000,003 threads under both convergence models, the same loop with no
//! divergence, global loads and stores (coalesced and scattered), shared
//! memory with 2- and 32-way bank conflicts, the MUFU pipe (under both
//! models), and nvcc 13's own sm_90 listing of the seed kernel
//! (`tests/kernels/seed.cu`), loaded unedited. The class kernels are `benches/kernels/*.yaml`; each can be
//! run as `warpstep run benches/kernels/NAME.yaml`. `report_1m_threads`
//! times a run with its report, text and JSON, as `warpstep run` writes
//! them (to a sink).
//!
//! `cargo bench --bench engine` (criterion's throughput line reads
//! "elem/s": one element is one issued warp instruction).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warpstep::report::{Report, json, text};
use warpstep::scenario::{Origin, Scenario};

#[path = "kernels/seed.rs"]
mod seed;
use seed::seed_scenario;

/// Each thread loops (idx % 8) + 1 times; a bounds check retires the tail
/// of the last block. Under `stack` as written; the `its` bench edits it.
const DIVERGENT_LOOP: &str = include_str!("kernels/divergent-loop.yaml");

fn scenario(convergence: &str) -> Arc<Scenario> {
    parse(&DIVERGENT_LOOP.replace("convergence: stack", &format!("convergence: {convergence}")))
}

fn parse(text: &str) -> Arc<Scenario> {
    match Scenario::from_text(text, Origin::Builtin("bench".into())) {
        Ok(s) => Arc::new(s),
        Err(e) => panic!("{e}"),
    }
}

fn issued(sc: &Arc<Scenario>) -> u64 {
    let mut m = sc.new_machine().expect("builds");
    m.run().expect("runs");
    m.totals().issued
}

/// The kernel classes, `benches/kernels/NAME.yaml`, by group name.
const CLASSES: &[(&str, &str)] = &[
    (
        "converged_loop_1m_threads",
        include_str!("kernels/converged-loop.yaml"),
    ),
    (
        "global_mix_1m_threads",
        include_str!("kernels/global-mix.yaml"),
    ),
    (
        "shared_conflicts_1m_threads",
        include_str!("kernels/shared-conflicts.yaml"),
    ),
    (
        "mufu_loop_262k_threads",
        include_str!("kernels/mufu-loop.yaml"),
    ),
];

fn bench(c: &mut Criterion) {
    for model in ["stack", "its"] {
        measure(c, "divergent_loop_1m_threads", model, &scenario(model));
    }
    for (group, text) in CLASSES {
        measure(c, group, "stack", &parse(text));
    }
    // Under `its` too: a converged warp at a MUFU waits for the pipe as a
    // `stack` warp does, a path of its own in the engine.
    let mufu = CLASSES.iter().find(|c| c.0.starts_with("mufu"));
    if let Some(&(group, text)) = mufu {
        measure(
            c,
            group,
            "its",
            &parse(&format!("machine: {{convergence: its}}\n{text}")),
        );
    }
    measure(
        c,
        "seed_listing_1m_threads",
        "sm_90",
        &Arc::new(seed_scenario("")),
    );
    report(c, &scenario("stack"));
}

/// A run and its report, as `warpstep run` makes it, text or JSON, written
/// to a sink; the group's throughput counts the run's warp instructions,
/// so its figures compare with `divergent_loop_1m_threads/stack`.
fn report(c: &mut Criterion, sc: &Arc<Scenario>) {
    use std::io::Write;
    let mut g = c.benchmark_group("report_1m_threads");
    g.sample_size(10);
    g.throughput(Throughput::Elements(issued(sc)));
    for format in ["text", "json"] {
        g.bench_function(format, |b| {
            b.iter(|| {
                let mut m = sc.new_machine().expect("builds");
                m.set_record_issues(false);
                m.run().expect("runs");
                let r = Report::new(sc, &m);
                let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::sink());
                if format == "json" {
                    json::to_writer_pretty(&mut out, &r).expect("serialises");
                } else {
                    out.write_all(text::render(&r).as_bytes()).expect("writes");
                }
                out.flush().expect("flushes");
            })
        });
    }
    g.finish();
}

fn measure(c: &mut Criterion, group: &str, name: &str, sc: &Arc<Scenario>) {
    let n = issued(sc);
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.throughput(Throughput::Elements(n));
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut m = sc.new_machine().expect("builds");
            // As `warpstep run` does: counters only, no per-cycle records.
            m.set_record_issues(false);
            m.run().expect("runs");
            black_box(m.cycle())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
