//! The stepper's performance targets, on a 64-warp scenario that
//! runs for just over a million cycles:
//!
//! - keypress to finished redraw at 200x60: under 16 ms;
//! - stepping back at cycle 1,000,000: under 50 ms;
//! - checkpoint memory for 1,000,000 cycles: under 64 MiB.
//!
//! `cargo bench --bench tui` runs the timings with criterion and first
//! prints the memory figures, measured with a counting allocator (so the
//! pages that checkpoints share copy-on-write are counted once).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{BatchSize, Criterion, criterion_group};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use warpstep::scenario::{Origin, Scenario};
use warpstep::session::Session;
use warpstep::tui::keys::press;
use warpstep::tui::{App, Options};

/// Counts the bytes allocated and not yet freed.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// 64 warps of 32 lanes on one SM, each lane looping 4000 + (tid % 8)
/// times: 1,026,384 cycles.
const SCENARIO: &str = "\
name: 64 warps, long divergent loop
machine: {warp_width: 32, convergence: stack, policy: lrr, max_warps_per_sm: 64}
launch: {threads: 2048}
memory:
  trips: {type: u32, len: 2048, init: \"4000 + i % 8\"}
  out: {type: f32, len: 2048}
constants: {0x160: trips, 0x168: out}
program: |
  S2R R0, SR_TID.X
  IMAD R4, R0, 4, c[0x0][0x160]
  LDG.E R5, [R4]
  MOV R2, RZ
  MOV R1, RZ
  loop:
  FFMA R1, R1, 1.5, 1.0
  IADD3 R2, R2, 1, RZ
  ISETP.LT.AND P0, PT, R2, R5, PT
  @P0 BRA loop
  IMAD R6, R0, 4, c[0x0][0x168]
  STG.E [R6], R1
  EXIT
";

fn scenario() -> Arc<Scenario> {
    match Scenario::from_text(SCENARIO, Origin::Builtin("bench-64".into())) {
        Ok(s) => Arc::new(s),
        Err(e) => panic!("{e}"),
    }
}

fn session_at(cycle: u64) -> Session {
    let mut s = Session::new(scenario()).expect("links");
    s.goto(cycle);
    assert_eq!(s.cycle(), cycle);
    s
}

/// Prints the live heap of a timeline at cycle 1,000,000 and of its
/// checkpoints alone.
fn memory_report() {
    let base = LIVE.load(Ordering::Relaxed);
    let s = session_at(1_000_000);
    let t = s.timeline();
    let with_timeline = LIVE.load(Ordering::Relaxed) - base;
    let before = LIVE.load(Ordering::Relaxed);
    let one = t.machine().clone();
    let machine = LIVE.load(Ordering::Relaxed) - before;
    drop(one);
    let checkpoints = with_timeline.saturating_sub(machine);
    let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
    println!(
        "memory: timeline at cycle 1,000,000 of 64 warps: {:.2} MiB live; {} checkpoints \
         (coarse spacing {}) take {:.2} MiB, {:.1} KiB each; one machine clone {:.1} KiB",
        mib(with_timeline),
        t.checkpoint_count(),
        t.coarse_every(),
        mib(checkpoints),
        checkpoints as f64 / 1024.0 / t.checkpoint_count().max(1) as f64,
        machine as f64 / 1024.0,
    );
    black_box(s);
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("tui");
    g.sample_size(20);

    let at_1m = session_at(1_000_000);
    g.bench_function("step back at cycle 1,000,000", |b| {
        b.iter_batched(
            || at_1m.clone(),
            |mut s| {
                s.back(1);
                black_box(s)
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("jump back 500,000 cycles from 1,000,000", |b| {
        b.iter_batched(
            || at_1m.clone(),
            |mut s| {
                s.goto(500_000);
                black_box(s)
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("go to cycle 1,000,000 from 0", |b| {
        b.iter(|| black_box(session_at(1_000_000)))
    });

    // A keypress and the redraw it causes, at 200x60, mid-loop.
    let mut app = App::new(scenario(), Options::default()).expect("links");
    for k in warpstep::tui::keys::parse_keys("5000n").expect("parses") {
        app.handle_key(k);
    }
    let mut term = Terminal::new(TestBackend::new(200, 60)).expect("test backend");
    term.draw(|f| app.draw(f)).expect("draws");
    g.bench_function("keypress forward + redraw 200x60", |b| {
        b.iter(|| {
            app.handle_key(press(KeyCode::Right));
            term.draw(|f| app.draw(f)).expect("draws");
        })
    });
    g.bench_function("keypress back + redraw 200x60", |b| {
        b.iter(|| {
            app.handle_key(press(KeyCode::Left));
            term.draw(|f| app.draw(f)).expect("draws");
        })
    });
    let mut app_1m = App::new(scenario(), Options::default()).expect("links");
    for k in warpstep::tui::keys::parse_keys("1000000g").expect("parses") {
        app_1m.handle_key(k);
    }
    g.bench_function("keypress back + redraw 200x60 at cycle 1,000,000", |b| {
        b.iter(|| {
            app_1m.handle_key(press(KeyCode::Left));
            term.draw(|f| app_1m.draw(f)).expect("draws");
        })
    });
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    memory_report();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
