//! Runs backwards: to the latest cycle before the current one at which a
//! goal was hit (the previous divergence, reconvergence, breakpoint hit).
//!
//! The machine only runs forward, so a reverse run searches the past
//! segment by segment, latest first, between the timeline's checkpoints:
//! it restores the checkpoint that starts a segment, simulates to the
//! segment's end one cycle at a time, testing every cycle with the same
//! [`goal::hit`] a forward run uses, and keeps the last hits. The first
//! segment (going backwards) with enough hits holds the answer; the
//! session then seeks there, so it shows that cycle exactly as a forward
//! run that stopped there would.
//!
//! The search simulates at most the cycles from 0 to the current one (each
//! segment once), in slices like a forward run, and can be stopped part
//! way; the timeline does not move until the answer is known, so a search
//! that is stopped or finds nothing leaves the session where it was.

use std::collections::VecDeque;

use super::breakpoints::Breakpoints;
use super::goal::{self, Goal};
use super::timeline::Timeline;
use crate::engine::Machine;

/// A backward search in progress.
#[derive(Debug, Clone)]
pub(super) struct Scan {
    goal: Goal,
    /// Hits still to pass, counting back from the current cycle.
    left: u64,
    /// The cycle the search started from: hits are sought strictly before.
    from: u64,
    /// The last cycle of the segment being searched: the machine is
    /// tested at every cycle in `(lo, hi]`.
    hi: u64,
    /// The machine simulating the segment, from its checkpoint.
    m: Option<Machine>,
    /// The cycle of that checkpoint: the segment's start.
    lo: u64,
    /// The latest hits of the segment (machine cycles, ascending), at most
    /// `left` of them, and how many it had in all.
    hits: VecDeque<u64>,
    count: u64,
    /// Cycles simulated so far.
    simulated: u64,
}

/// What a slice of a backward search came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Found {
    /// Still searching.
    Searching,
    /// The machine cycle at which the goal's hit (the `n`th back) is seen.
    At(u64),
    /// No hit before the cycle the search started from, back to cycle 0.
    None,
}

impl Scan {
    pub(super) fn new(goal: Goal, n: u64, from: u64) -> Scan {
        Scan {
            goal,
            left: n.max(1),
            from,
            // Strictly before: the hit shown now is not sought.
            hi: from.saturating_sub(1),
            m: None,
            lo: from,
            hits: VecDeque::new(),
            count: 0,
            simulated: 0,
        }
    }

    /// The cycle the search started from.
    pub(super) fn from(&self) -> u64 {
        self.from
    }

    /// The earliest cycle the search has reached: the start of the segment
    /// it is in (everything from there to the start cycle is searched or
    /// being searched).
    pub(super) fn reached(&self) -> u64 {
        self.lo
    }

    /// Cycles simulated so far.
    pub(super) fn simulated(&self) -> u64 {
        self.simulated
    }

    /// Searches on for at most `cycles` simulated cycles.
    pub(super) fn advance(&mut self, t: &Timeline, bps: &Breakpoints, cycles: u64) -> Found {
        let mut budget = cycles;
        loop {
            if self.m.is_none() {
                // Machine cycle 0 shows no issue: nothing before it.
                if self.hi == 0 {
                    return Found::None;
                }
                let Some(ck) = t.checkpoint_before(self.hi) else {
                    return Found::None;
                };
                self.lo = ck.cycle();
                self.m = Some(Machine::clone(&ck));
                self.hits.clear();
                self.count = 0;
            }
            let Some(m) = self.m.as_mut() else {
                return Found::None;
            };
            while m.cycle() < self.hi {
                if budget == 0 {
                    return Found::Searching;
                }
                budget -= 1;
                self.simulated += 1;
                if !m.step() {
                    break;
                }
                if goal::hit(m, bps, self.goal).is_some() {
                    if self.hits.len() as u64 >= self.left {
                        self.hits.pop_front();
                    }
                    self.hits.push_back(m.cycle());
                    self.count += 1;
                }
            }
            // The segment is searched: its latest hits are the nearest.
            if self.count >= self.left {
                // `hits` holds the last `left` of them: the first is the
                // `left`th back.
                return self.hits.front().map_or(Found::None, |&c| Found::At(c));
            }
            self.left -= self.count;
            self.hi = self.lo;
            self.m = None;
        }
    }
}
