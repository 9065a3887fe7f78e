//! Goals and moves of a session on `if-else-branch-short`, whose issue
//! cycles are worked out by hand in the scenario's `expect:` comment (from
//! the stall counts of docs/execution-model.md): ISETP at cycle 0, the diverging `@P0 BRA
//! else` at 4, the else side's FADD at 5, the then side's FADD at 9, `BRA
//! join` at 10 (its 16 lanes rejoin the other 16 at `join`), EXIT at 13;
//! 14 cycles. A goal hit in cycle `c` leaves the session at cycle `c + 1`.

use std::sync::Arc;

use super::*;
use crate::builtin;

fn if_else() -> Arc<Scenario> {
    Arc::new(builtin::resolve("if-else-branch-short").expect("built-in loads"))
}

fn session() -> Session {
    Session::new(if_else()).expect("links")
}

/// Runs to `goal`'s `n`th hit at once.
fn run_to(s: &mut Session, goal: Goal, n: u64) -> Option<Stop> {
    s.start(goal, n, false).expect("starts");
    s.finish()
}

fn reached(stop: Option<Stop>) -> Hit {
    match stop {
        Some(Stop::Reached(h)) => h,
        other => panic!("the goal was not reached: {other:?}"),
    }
}

/// What a frontend can read about the machine, as text.
fn fingerprint(s: &Session) -> String {
    let m = s.machine();
    format!(
        "{} {:?} {:?} {:?} {:?} {}",
        m.cycle(),
        m.warp_views(),
        m.issues(),
        m.totals(),
        s.timeline().history(),
        m.halted()
    )
}

#[test]
fn a_run_to_a_divergence_stops_after_the_branch_that_split() {
    let mut s = session();
    let hit = reached(run_to(&mut s, Goal::Divergence, 1));
    // The BRA (instruction 1, address 0x10) issues in cycle 4; P0 is true
    // for lanes 16..31: 16 of the 32 active lanes take it.
    assert_eq!((hit.cycle, hit.warp, hit.pc), (5, 0, 1));
    assert_eq!(s.cycle(), 5);
    assert_eq!(
        hit.text,
        "w0 diverged at /*0010*/: 16 of 32 lanes took the branch"
    );
    assert!(!s.is_running());
}

#[test]
fn a_run_to_a_reconvergence_stops_where_the_then_side_rejoins() {
    let mut s = session();
    let hit = reached(run_to(&mut s, Goal::Reconvergence, 1));
    // The else side's FADD (cycle 5) reaches `join` while the then side
    // still runs: nobody to join. `BRA join` (instruction 3) in cycle 10
    // brings lanes 0..15 to the other 16.
    assert_eq!((hit.cycle, hit.pc), (11, 3));
    assert_eq!(
        hit.text,
        "w0: the 16 lanes that issued /*0030*/ rejoin others"
    );
}

#[test]
fn a_run_until_a_warp_issues_counts_its_issues() {
    let mut s = session();
    let first = reached(run_to(&mut s, Goal::Issue(0), 1));
    // ISETP in cycle 0.
    assert_eq!((first.cycle, first.pc), (1, 0));
    // Two more issues from cycle 1: the BRA (4), then the else side's
    // FADD (5), instruction 4.
    let third = reached(run_to(&mut s, Goal::Issue(0), 2));
    assert_eq!((third.cycle, third.pc), (6, 4));
    assert_eq!(third.text, "w0 issued /*0040*/ FADD R1, R1, 2.0");
}

#[test]
fn a_run_to_a_breakpoint_stops_when_any_warp_issues_it() {
    let mut s = session();
    assert!(s.toggle_breakpoint(2));
    assert!(s.breakpoints().contains(2));
    let hit = reached(run_to(&mut s, Goal::Breakpoint, 1));
    // The then side's FADD, instruction 2, issues in cycle 9.
    assert_eq!((hit.cycle, hit.pc), (10, 2));
    assert!(hit.text.starts_with("breakpoint: w0 issued /*0020*/ FADD"));
    // Cleared, a run to a breakpoint has none to stop at: refused.
    assert!(!s.toggle_breakpoint(2));
    assert_eq!(
        s.start(Goal::Breakpoint, 1, false),
        Err(Refused::NoBreakpoint)
    );
    assert!(!s.is_running());
}

#[test]
fn a_run_to_the_end_halts_at_the_last_cycle() {
    let mut s = session();
    assert_eq!(run_to(&mut s, Goal::End, 1), Some(Stop::Halted));
    assert_eq!(s.cycle(), 14);
    assert!(s.machine().finished());
    assert_eq!(s.start(Goal::Divergence, 1, false), Err(Refused::Halted));
    assert!(!s.forward(1));
}

#[test]
fn a_goal_asked_for_more_often_than_it_happens_ends_at_the_end() {
    let mut s = session();
    // One divergent branch only.
    assert_eq!(run_to(&mut s, Goal::Divergence, 2), Some(Stop::Halted));
    assert_eq!(s.cycle(), 14);
}

#[test]
fn the_pace_of_a_run_does_not_move_where_it_stops() {
    let mut at_once = session();
    let hit = reached(run_to(&mut at_once, Goal::Reconvergence, 1));
    let mut by_one = session();
    by_one.start(Goal::Reconvergence, 1, false).expect("starts");
    let mut calls = 0;
    let stop = loop {
        calls += 1;
        if let Some(stop) = by_one.advance(1) {
            break stop;
        }
    };
    // One cycle per call: cycles 0..=10.
    assert_eq!(calls, 11);
    assert_eq!(stop, Stop::Reached(hit));
    assert_eq!(fingerprint(&by_one), fingerprint(&at_once));
}

#[test]
fn cycle_goals_move_both_ways_and_agree_with_runs() {
    let mut s = session();
    assert!(s.goto(9));
    assert_eq!(s.cycle(), 9);
    // Past the end: at the end, 14.
    assert!(!s.goto(100));
    assert_eq!(s.cycle(), 14);
    assert!(s.back(3));
    assert_eq!(s.cycle(), 11);
    let mut run = session();
    reached(run_to(&mut run, Goal::Reconvergence, 1));
    assert_eq!(fingerprint(&s), fingerprint(&run));
    // Back one and forward one again is where it was.
    assert!(run.back(1));
    assert_eq!(run.cycle(), 10);
    assert!(run.forward(1));
    assert_eq!(fingerprint(&run), fingerprint(&s));
    assert!(s.goto(0));
    assert!(!s.back(1));
}

#[test]
fn a_run_until_an_exited_warp_issues_is_refused() {
    // Two warps: w0 (R5 = 0) runs the loop body once and exits, w1
    // (R5 = 20) loops on, so the machine has not halted.
    let yaml = "name: one warp exits first\nlaunch: {threads: 64}\ninputs: {R5: \"warp * 20\"}\n\
                program: |\n  loop:\n  IADD3 R2, R2, 1, RZ\n  ISETP.LT.AND P0, PT, R2, R5, PT\n  \
                @P0 BRA loop\n  EXIT\n";
    let sc =
        Scenario::from_text(yaml, crate::scenario::Origin::Builtin("exits".into())).expect("loads");
    let mut s = Session::new(Arc::new(sc)).expect("links");
    // w0 issues IADD3, ISETP, BRA (not taken), then EXIT: instruction 3.
    let exit = reached(run_to(&mut s, Goal::Issue(0), 4));
    assert_eq!((exit.warp, exit.pc), (0, 3));
    assert!(!s.machine().halted());
    assert_eq!(
        s.start(Goal::Issue(0), 1, false),
        Err(Refused::WarpExited(0))
    );
    assert!(!s.is_running());
    assert_eq!(s.start(Goal::Issue(1), 1, false), Ok(Goal::Issue(1)));
}

/// The corpus's seed kernel (sm_90, `nvdisasm -g`: line info) on one block
/// of 64 threads, n = 40: warp 1 is split by the bounds check.
fn seed_session() -> Session {
    let listing = include_str!("../../tests/kernels/seed.sm_90.nvdisasm");
    let mut y = String::from(
        "name: seed\nlaunch: {blocks: 1, block_dim: 64}\n\
         memory:\n  data: {type: f32, len: 64, init: \"i % 4 * 0.25\"}\n\
         args: [data, 40]\nprogram: |\n",
    );
    for l in listing.lines() {
        y.push_str(if l.trim().is_empty() { "" } else { "  " });
        y.push_str(l);
        y.push('\n');
    }
    let sc = Scenario::from_text(&y, crate::scenario::Origin::Builtin("seed".into()))
        .expect("the seed scenario loads");
    Session::new(Arc::new(sc)).expect("links")
}

#[test]
fn a_source_line_breakpoint_stops_at_the_first_issue_of_any_of_its_pcs() {
    // seed.cu line 7 (the predicated else) is pcs 13 and 14 (00d0 @!P0
    // FADD, 00e0 @!P0 STG); line 6 is pcs 8..=12 and 16..=18.
    let mut by_pc = seed_session();
    assert!(by_pc.toggle_breakpoint(13));
    let want = reached(run_to(&mut by_pc, Goal::Breakpoint, 1));

    let mut s = seed_session();
    // Line 8 (`}`) has no instruction: no breakpoint there.
    assert_eq!(s.toggle_line_breakpoint(0, 8), None);
    assert_eq!(s.toggle_line_breakpoint(0, 7), Some(true));
    assert!(s.breakpoints().has_line(0, 7));
    assert!(s.breakpoints().contains(13) && s.breakpoints().contains(14));
    assert!(!s.breakpoints().contains(12));
    assert!(s.breakpoints().pcs().is_empty());
    let hit = reached(run_to(&mut s, Goal::Breakpoint, 1));
    // Program order: the line's first instruction, pc 13, issues first,
    // in the cycle the pc breakpoint on 13 alone stops at.
    assert_eq!((hit.cycle, hit.pc, hit.warp), (want.cycle, 13, want.warp));
    // Its other pc stops the next run: the same warp's STG (pc 14) or
    // another warp's FADD, whichever issues first; never a pc of line 6.
    let next = reached(run_to(&mut s, Goal::Breakpoint, 1));
    assert!(next.pc == 13 || next.pc == 14, "{next:?}");
    assert!(next.cycle > hit.cycle);
    // Cleared, nothing is left: a run to a breakpoint is refused.
    assert_eq!(s.toggle_line_breakpoint(0, 7), Some(false));
    assert_eq!(
        s.start(Goal::Breakpoint, 1, false),
        Err(Refused::NoBreakpoint)
    );
}

/// One warp spinning on a branch to itself, with a cycle limit far out of
/// reach: only a run that can be stopped part way ever comes back.
fn spin() -> Session {
    let yaml = "name: spin\nlaunch: {threads: 32}\nmachine: {max_cycles: 10000000000}\n\
                program: |\n  loop:\n  BRA loop\n  EXIT\n";
    let sc =
        Scenario::from_text(yaml, crate::scenario::Origin::Builtin("spin".into())).expect("loads");
    Session::new(Arc::new(sc)).expect("links")
}

#[test]
fn a_run_to_a_cycle_in_slices_reaches_it_exactly() {
    let mut s = session();
    assert_eq!(s.start(Goal::Cycle(9), 1, true), Ok(Goal::Cycle(9)));
    // Slices of 2 cycles: 0 -> 2 -> 4 -> 6 -> 8 -> 9.
    let mut calls = 0;
    let stop = loop {
        calls += 1;
        if let Some(stop) = s.advance(2) {
            break stop;
        }
        assert_eq!(s.cycle(), 2 * calls);
    };
    assert_eq!(calls, 5);
    assert_eq!(stop, Stop::Arrived(9));
    let mut direct = session();
    assert!(direct.goto(9));
    assert_eq!(fingerprint(&s), fingerprint(&direct));
    // Back to cycle 3 the same way: the session rewinds to a checkpoint
    // (cycle 0 here) and simulates forward in slices.
    assert_eq!(s.start(Goal::Cycle(3), 1, true), Ok(Goal::Cycle(3)));
    assert_eq!(s.cycle(), 0);
    assert_eq!(s.advance(2), None);
    assert_eq!(s.advance(2), Some(Stop::Arrived(3)));
    assert!(direct.goto(3));
    assert_eq!(fingerprint(&s), fingerprint(&direct));
    // Past the end (14 cycles, see the top of this file): it halts there.
    s.start(Goal::Cycle(1000), 1, true).expect("starts");
    assert_eq!(s.finish(), Some(Stop::Halted));
    assert_eq!(s.cycle(), 14);
    // At the end a later cycle is refused, an earlier one is not.
    assert_eq!(s.start(Goal::Cycle(20), 1, true), Err(Refused::Halted));
    assert_eq!(s.start(Goal::Cycle(13), 1, true), Ok(Goal::Cycle(13)));
    assert_eq!(s.finish(), Some(Stop::Arrived(13)));
}

#[test]
fn a_timed_run_to_a_far_cycle_comes_back_within_its_budget() {
    let mut s = spin();
    s.start(Goal::Cycle(u64::MAX), 1, true).expect("starts");
    let mut reached = 0;
    for _ in 0..4 {
        let t = std::time::Instant::now();
        assert_eq!(s.advance_for(Duration::from_millis(25)), None);
        // The slice that ends past the budget is at most half of it.
        assert!(
            t.elapsed() < Duration::from_millis(100),
            "{:?}",
            t.elapsed()
        );
        assert!(s.cycle() > reached);
        reached = s.cycle();
    }
    assert!(s.is_running());
    // Wherever it stopped is the machine a direct seek reaches.
    let mut direct = spin();
    assert!(direct.goto(reached));
    assert_eq!(fingerprint(&s), fingerprint(&direct));
}

#[test]
fn conditions_parse_or_say_what_is_wrong() {
    use super::breakpoints::Condition as C;
    assert_eq!(C::parse("w3"), Ok(C::Warp(3)));
    assert_eq!(C::parse(" active < 8 "), Ok(C::ActiveBelow(8)));
    assert_eq!(C::parse("DIV"), Ok(C::Diverged));
    assert_eq!(C::parse("R2==5"), Ok(C::RegEquals(2, 5)));
    assert_eq!(C::parse("r2 == -1"), Ok(C::RegEquals(2, u32::MAX)));
    assert_eq!(C::parse("R1==0x3f800000"), Ok(C::RegEquals(1, 0x3f80_0000)));
    for (bad, why) in [
        ("", "empty"),
        ("R2=5", "`R<n>==<value>`"),
        ("R255==0", "RZ is always 0"),
        ("R999==0", "R0..R254"),
        ("R2==99999999999", "32-bit integer"),
        ("active<65", "from 1 to 64"),
        ("wx", "`w` and its number"),
        ("sometimes", "not a condition"),
    ] {
        let e = C::parse(bad).expect_err(bad);
        assert!(e.contains(why), "{bad}: {e}");
    }
    assert_eq!(C::RegEquals(2, u32::MAX).to_string(), "R2==-1");
}

/// `loop-break-its`, step 0: lanes 0 and 16 find their key (lane % 16 ==
/// 0). `@P1 BREAK B0` (instruction 3, address 0x30) counts as a divergent
/// branch but moves no lane; `@P1 BRA found` (instruction 4) splits them
/// off. The hit says which.
#[test]
fn a_divergent_break_says_its_lanes_leave_the_barrier() {
    let sc = Arc::new(builtin::resolve("loop-break-its").expect("built-in loads"));
    let mut s = Session::new(sc).expect("links");
    let hit = reached(run_to(&mut s, Goal::Divergence, 1));
    assert_eq!((hit.warp, hit.pc), (0, 3));
    assert_eq!(
        hit.text,
        "w0 at /*0030*/ BREAK: 2 of 32 lanes leave barrier B0 (a divergent branch in the \
         counters; they split off at the next branch)"
    );
    let hit = reached(run_to(&mut s, Goal::Divergence, 1));
    assert_eq!(hit.pc, 4);
    assert_eq!(
        hit.text,
        "w0 diverged at /*0040*/: 2 of 32 lanes took the branch"
    );
}

// ---- runs backwards ---------------------------------------------------------

/// Runs backwards to `goal`'s `n`th previous hit at once.
fn run_back(s: &mut Session, goal: Goal, n: u64) -> Option<Stop> {
    s.start_back(goal, n, true).expect("starts");
    s.finish()
}

/// Every hit of `goal` in a run from cycle 0 to the end, found by forward
/// runs (the reference a run backwards must agree with): the cycle each
/// leaves the session at, its text, and the machine there.
fn forward_hits(sc: &Arc<Scenario>, goal: Goal, bps: &[u32]) -> Vec<(u64, String, String)> {
    let mut s = Session::new(Arc::clone(sc)).expect("links");
    for &pc in bps {
        s.toggle_breakpoint(pc);
    }
    let mut hits = Vec::new();
    while let Some(Stop::Reached(h)) = run_to(&mut s, goal, 1) {
        hits.push((h.cycle, h.text, fingerprint(&s)));
    }
    hits
}

#[test]
fn back_to_the_previous_reconvergence_and_divergence_of_if_else() {
    // Hand-counted (top of this file): the divergence shows at cycle 5,
    // the reconvergence at 11, the end is 14.
    let mut s = session();
    s.goto(100);
    assert_eq!(s.cycle(), 14);
    let hit = reached(run_back(&mut s, Goal::Reconvergence, 1));
    assert_eq!((hit.cycle, hit.pc), (11, 3));
    assert_eq!(s.cycle(), 11);
    assert_eq!(
        hit.text,
        "w0: the 16 lanes that issued /*0030*/ rejoin others"
    );
    // Strictly before: the one shown now does not count, and there is no
    // earlier one; the session stays.
    assert_eq!(
        run_back(&mut s, Goal::Reconvergence, 1),
        Some(Stop::NoneBefore(11))
    );
    assert_eq!(s.cycle(), 11);
    assert!(!s.is_running());
    let hit = reached(run_back(&mut s, Goal::Divergence, 1));
    assert_eq!((hit.cycle, hit.pc), (5, 1));
    assert_eq!(
        hit.text,
        "w0 diverged at /*0010*/: 16 of 32 lanes took the branch"
    );
    // The screen there is the one a forward run to it shows.
    let mut fwd = session();
    reached(run_to(&mut fwd, Goal::Divergence, 1));
    assert_eq!(fingerprint(&s), fingerprint(&fwd));
    // From cycle 5 the divergence is the current cycle's: none before.
    assert_eq!(
        run_back(&mut s, Goal::Divergence, 1),
        Some(Stop::NoneBefore(5))
    );
    // A breakpoint on the then side's FADD (pc 2, issued in cycle 9).
    s.goto(14);
    assert_eq!(
        s.start_back(Goal::Breakpoint, 1, true),
        Err(Refused::NoBreakpoint)
    );
    s.toggle_breakpoint(2);
    let hit = reached(run_back(&mut s, Goal::Breakpoint, 1));
    assert_eq!((hit.cycle, hit.pc), (10, 2));
    assert!(hit.text.starts_with("breakpoint: w0 issued /*0020*/ FADD"));
    // At cycle 0 nothing came before; the end and cycles are no events.
    s.goto(0);
    assert_eq!(
        s.start_back(Goal::Divergence, 1, true),
        Err(Refused::AtStart)
    );
    s.goto(3);
    assert_eq!(s.start_back(Goal::End, 1, true), Err(Refused::NotAnEvent));
    assert_eq!(
        s.start_back(Goal::Cycle(1), 1, true),
        Err(Refused::NotAnEvent)
    );
}

#[test]
fn back_through_every_divergence_of_divergent_loop_lands_on_each_in_turn() {
    let sc = Arc::new(builtin::resolve("divergent-loop").expect("built-in loads"));
    // Four warps, 7 divergent BRAs each (the scenario's description); on
    // the SIMT stack each warp's lanes rejoin once, at 0090 after the
    // loop, when its last lanes leave it.
    for (goal, count) in [(Goal::Divergence, 28), (Goal::Reconvergence, 4)] {
        let hits = forward_hits(&sc, goal, &[]);
        assert_eq!(hits.len(), count, "{goal:?}");
        let mut s = Session::new(Arc::clone(&sc)).expect("links");
        s.goto(u64::MAX);
        // `cargo run -- run divergent-loop`: 540 cycles.
        assert_eq!(s.cycle(), 540);
        for (cycle, text, screen) in hits.iter().rev() {
            let hit = reached(run_back(&mut s, goal, 1));
            assert_eq!((hit.cycle, &hit.text), (*cycle, text), "{goal:?}");
            assert_eq!(&fingerprint(&s), screen, "{goal:?} at {cycle}");
        }
        let first = hits[0].0;
        assert_eq!(run_back(&mut s, goal, 1), Some(Stop::NoneBefore(first)));
        assert_eq!(s.cycle(), first);
        // A count goes back that many: from the end, the third from last.
        s.goto(540);
        let hit = reached(run_back(&mut s, goal, 3));
        assert_eq!(hit.cycle, hits[hits.len() - 3].0);
        // More than there are: none, and the session stays.
        s.goto(540);
        assert_eq!(
            run_back(&mut s, goal, count as u64 + 1),
            Some(Stop::NoneBefore(540))
        );
        assert_eq!(s.cycle(), 540);
    }
    // Breakpoints: every issue of `@P0 BRA loop` (pc 8), 4 warps x 8 trips.
    let hits = forward_hits(&sc, Goal::Breakpoint, &[8]);
    assert_eq!(hits.len(), 32);
    let mut s = Session::new(Arc::clone(&sc)).expect("links");
    s.toggle_breakpoint(8);
    s.goto(u64::MAX);
    for (cycle, text, _) in hits.iter().rev().take(5) {
        let hit = reached(run_back(&mut s, Goal::Breakpoint, 1));
        assert_eq!((hit.cycle, &hit.text), (*cycle, text));
    }
}

/// One warp whose even lanes loop once and odd lanes `trips` times: the
/// first `@P0 BRA loop` diverges, no later one does, and the run is long
/// enough for many checkpoint segments.
fn one_early_divergence(trips: u32) -> Arc<Scenario> {
    let yaml = format!(
        "name: one early divergence\nlaunch: {{threads: 32}}\n\
         inputs: {{R5: \"lane % 2 * {trips} + 1\"}}\nprogram: |\n  \
         loop:\n  IADD3 R2, R2, 1, RZ\n  ISETP.LT.AND P0, PT, R2, R5, PT\n  @P0 BRA loop\n  EXIT\n"
    );
    Arc::new(
        Scenario::from_text(&yaml, crate::scenario::Origin::Builtin("early".into()))
            .expect("loads"),
    )
}

#[test]
fn a_run_back_searches_every_segment_once_in_slices_and_can_be_stopped() {
    let sc = one_early_divergence(5000);
    let hits = forward_hits(&sc, Goal::Divergence, &[]);
    assert_eq!(hits.len(), 1);
    let (first, text, screen) = &hits[0];
    let mut s = Session::new(Arc::clone(&sc)).expect("links");
    s.goto(u64::MAX);
    let end = s.cycle();
    assert!(end > 20_000, "{end}");
    assert!(s.timeline().checkpoint_count() > 10);
    // In slices of 1,000 cycles: each slice simulates at most that, and
    // the whole search at most the cycles from 0 to the end.
    s.start_back(Goal::Divergence, 1, true).expect("starts");
    let mut slices = 0;
    let stop = loop {
        slices += 1;
        let before = s.searched_back().map_or(0, |(_, n)| n);
        if let Some(stop) = s.advance(1000) {
            break stop;
        }
        let (reached, n) = s.searched_back().expect("searching");
        assert!(n - before <= 1000);
        assert!(reached < end);
        // The session does not move while it searches.
        assert_eq!(s.cycle(), end);
    };
    let hit = reached(Some(stop));
    assert_eq!((hit.cycle, &hit.text), (*first, text));
    assert_eq!(&fingerprint(&s), screen);
    assert_eq!(slices as u64, end.div_ceil(1000));
    // Stopped part way, it is where it started.
    s.goto(end);
    s.start_back(Goal::Divergence, 1, true).expect("starts");
    assert_eq!(s.advance(3000), None);
    let (reached, n) = s.searched_back().expect("searching");
    assert_eq!(n, 3000);
    assert!(reached < end && reached > *first);
    assert!(s.stop().is_some_and(|r| r.back));
    assert_eq!(s.cycle(), end);
    assert_eq!(s.searched_back(), None);
    assert!(!s.is_running());
}
