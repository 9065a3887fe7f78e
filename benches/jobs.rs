//! `--jobs`: a comparison grid of four variants of the divergent loop over
//! 1,000,003 threads (`policy` lrr and gto by `branch_latency` 0 and 1,
//! runs of nearly the same length), run one after another (`jobs/1`) and
//! side by side (`jobs/2`), each variant to its report, as `warpstep run`
//! does. Throughput counts the grid's warp instructions.
//!
//! `sms_8`: one run of the same loop on 8 SMs, its SMs simulated on one
//! thread (`jobs/1`) and on two (`jobs/2`), as `warpstep run --jobs N`
//! does for a single run; and the same for nvcc's sm_90 listing of the
//! seed kernel, whose hazard checks each SM keeps for itself.
//!
//! `cargo bench --bench jobs`

use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warpstep::cli::jobs::ordered;
use warpstep::engine::Policy;
use warpstep::report::Report;
use warpstep::scenario::{Origin, Scenario};

#[path = "kernels/seed.rs"]
mod seed;

/// The engine bench's divergent loop, under `stack`.
fn base() -> Scenario {
    let text = include_str!("kernels/divergent-loop.yaml");
    Scenario::from_text(text, Origin::Builtin("bench".into())).expect("loads")
}

fn variants() -> Vec<Arc<Scenario>> {
    let mut out = Vec::new();
    for policy in [Policy::Lrr, Policy::Gto] {
        for branch in [0, 1] {
            let mut sc = base();
            sc.machine.policy = policy;
            sc.machine.latency.branch = branch;
            // As `run`'s grid does: control codes derived for this machine.
            sc.validate_machine().expect("a valid machine");
            sc.reassemble().expect("assembles");
            out.push(Arc::new(sc));
        }
    }
    out
}

fn report(sc: &Arc<Scenario>) -> (u64, usize) {
    let mut m = sc.new_machine().expect("builds");
    m.set_record_issues(false);
    m.run().expect("runs");
    let r = Report::new(sc, &m);
    (m.totals().issued, r.warps.len())
}

fn bench(c: &mut Criterion) {
    let grid = variants();
    let issued: u64 = grid.iter().map(|sc| report(sc).0).sum();
    let mut g = c.benchmark_group("grid_4_variants_1m_threads");
    g.sample_size(10);
    g.throughput(Throughput::Elements(issued));
    for jobs in [1, 2] {
        g.bench_function(format!("jobs/{jobs}"), |b| {
            b.iter(|| {
                let mut done = 0;
                ordered(
                    grid.clone(),
                    jobs,
                    |sc| report(&sc),
                    |_| done += 1,
                    |_, _| {},
                );
                assert_eq!(done, grid.len());
            })
        });
    }
    g.finish();
}

fn split(c: &mut Criterion) {
    let mut sc = base();
    sc.machine.sms = 8;
    split_group(c, "sms_8_divergent_loop_1m_threads", sc);
    split_group(
        c,
        "sms_8_seed_listing_1m_threads",
        seed::seed_scenario("machine: {sms: 8}\n"),
    );
}

/// `sc` run to its end with 1 and 2 jobs.
fn split_group(c: &mut Criterion, group: &str, sc: Scenario) {
    let sc = Arc::new(sc);
    let run = |jobs: usize| {
        let mut m = sc.new_machine().expect("builds");
        m.set_record_issues(false);
        m.run_jobs(jobs).expect("runs");
        m.totals().issued
    };
    let issued = run(1);
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.throughput(Throughput::Elements(issued));
    for jobs in [1, 2] {
        g.bench_function(format!("jobs/{jobs}"), |b| {
            b.iter(|| assert_eq!(run(jobs), issued))
        });
    }
    g.finish();
}

criterion_group!(benches, bench, split);
criterion_main!(benches);
