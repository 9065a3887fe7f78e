//! A stepping session: one machine, the means to move through its run in
//! both directions, breakpoints, and runs to a goal, for any frontend.
//!
//! The stepper, recordings and replays drive a [`Session`]; it knows
//! nothing of terminals, keys or drawing. Every move is cycle-exact and a
//! pure function of the scenario and the calls made, so a frontend that
//! replays the same calls reaches the same machine:
//!
//! - [`Session::forward`], [`Session::back`] and [`Session::goto`] move by
//!   cycles (back restores a checkpoint and simulates forward again, see
//!   [`timeline`]);
//! - [`Session::start`] begins a run to a [`Goal`] (a divergence, a
//!   reconvergence, a breakpoint, a warp's next issue, the end), and
//!   [`Session::advance`] simulates it a number of cycles at a time, so an
//!   animating frontend chooses the pace and the stopping cycle is the same
//!   at any pace;
//! - [`Session::start_back`] begins a run backwards, to the latest cycle
//!   before the current one at which a goal was hit, searched between
//!   checkpoints ([`reverse`]) in the same slices and landed on as a
//!   forward run would have stopped there.

pub mod breakpoints;
pub mod goal;
mod reverse;
pub mod timeline;

use std::sync::Arc;
use std::time::{Duration, Instant};

pub use breakpoints::{Breakpoints, Condition};
pub use goal::{Goal, Hit, Run};
pub use timeline::{CycleSample, Timeline};

use crate::engine::view::WarpStatus;
use crate::engine::{ConfigError, Machine};
use crate::scenario::Scenario;

/// The machine at cycle 0 of a scenario: the one place a session builds one.
fn fresh_machine(scenario: &Scenario) -> Result<Machine, ConfigError> {
    scenario.new_machine()
}

/// Why a run did not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The machine has halted (finished or stopped): nothing is left to run.
    Halted,
    /// A run until this warp issues, but it has exited.
    WarpExited(u32),
    /// A run to a breakpoint, but none is set.
    NoBreakpoint,
    /// A run backwards at cycle 0: nothing came before.
    AtStart,
    /// A run backwards to a goal that is not an event (the end, a cycle).
    NotAnEvent,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The goal was reached (for the last of the hits asked for).
    Reached(Hit),
    /// The machine halted first: finished, or stopped on an error.
    Halted,
    /// A run to a cycle ([`Goal::Cycle`]) is there.
    Arrived(u64),
    /// A run backwards found no hit before this cycle, back to cycle 0:
    /// the session stays at it.
    NoneBefore(u64),
}

/// One machine's run, seen at one cycle at a time, with breakpoints and
/// a run to a goal that may be in progress.
#[derive(Debug, Clone)]
pub struct Session {
    scenario: Arc<Scenario>,
    timeline: Timeline,
    breakpoints: Breakpoints,
    run: Option<Run>,
    /// The search of a run backwards.
    scan: Option<reverse::Scan>,
    /// Cycles a timed advance simulates between looks at the clock,
    /// adapted to how fast the machine runs (it never changes where a run
    /// stops).
    slice: u64,
}

/// The smallest and largest slice of a timed advance.
const SLICE_MIN: u64 = 64;
const SLICE_MAX: u64 = 1 << 22;

impl Session {
    /// A session at cycle 0 of a loaded scenario (an error if its program
    /// does not link).
    pub fn new(scenario: Arc<Scenario>) -> Result<Session, ConfigError> {
        let timeline = Timeline::new(fresh_machine(&scenario)?);
        Ok(Session {
            scenario,
            timeline,
            breakpoints: Breakpoints::default(),
            run: None,
            scan: None,
            slice: 1024,
        })
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The machine at the current cycle.
    pub fn machine(&self) -> &Machine {
        self.timeline.machine()
    }

    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    pub fn cycle(&self) -> u64 {
        self.timeline.cycle()
    }

    pub fn breakpoints(&self) -> &Breakpoints {
        &self.breakpoints
    }

    /// Sets or clears the breakpoint at `pc`; true if it is set now.
    pub fn toggle_breakpoint(&mut self, pc: u32) -> bool {
        self.breakpoints.toggle(pc)
    }

    /// Sets a conditional breakpoint at `pc`, or with `None` clears the
    /// one there (true if there was one).
    pub fn set_condition(&mut self, pc: u32, cond: Option<Condition>) -> bool {
        match cond {
            Some(c) => {
                self.breakpoints.set_condition(pc, c);
                true
            }
            None => self.breakpoints.clear_condition(pc),
        }
    }

    /// Sets or clears the breakpoint on source line `line` of file `file`
    /// (indices of the scenario's source map): a run to a breakpoint stops
    /// when any warp issues any instruction of the line. `None` when the
    /// line has no instructions (or there is no source map); else true if
    /// it is set now.
    pub fn toggle_line_breakpoint(&mut self, file: u32, line: u32) -> Option<bool> {
        let map = self.scenario.source_map.as_ref()?;
        let pcs = map.pcs_of(crate::scenario::source::SourcePos { file, line });
        if pcs.is_empty() {
            return None;
        }
        Some(self.breakpoints.toggle_line(file, line, pcs))
    }

    /// Moves `n` cycles forward. False when the machine halts before (or
    /// had halted): it stays at the end.
    pub fn forward(&mut self, n: u64) -> bool {
        if self.machine().halted() {
            return false;
        }
        self.goto(self.cycle().saturating_add(n))
    }

    /// Moves `n` cycles back, to cycle 0 at most. False, doing nothing, at
    /// cycle 0.
    pub fn back(&mut self, n: u64) -> bool {
        if self.cycle() == 0 {
            return false;
        }
        self.timeline.back(n);
        true
    }

    /// Moves to cycle `target`, forward or back. False when the machine
    /// halts before it: the session is at the end.
    pub fn goto(&mut self, target: u64) -> bool {
        self.timeline.seek(target);
        self.cycle() >= target
    }

    /// Starts a run to `goal`, to its `n`th hit; `fast` is kept for the
    /// frontend's pace. A run to a breakpoint with none set is refused, and
    /// so is any run but one to an earlier cycle once the machine halted.
    /// The goal the run has is returned.
    pub fn start(&mut self, goal: Goal, n: u64, fast: bool) -> Result<Goal, Refused> {
        let m = self.machine();
        if let Goal::Cycle(c) = goal {
            // At the end and asked for a later cycle: nothing to run.
            if m.halted() && c >= m.cycle() {
                return Err(Refused::Halted);
            }
            if c < m.cycle() {
                self.timeline.rewind(c);
            }
            self.scan = None;
            self.run = Some(Run {
                goal,
                left: 1,
                fast,
                back: false,
            });
            return Ok(goal);
        }
        if m.halted() {
            return Err(Refused::Halted);
        }
        if goal == Goal::Breakpoint && self.breakpoints.is_empty() {
            return Err(Refused::NoBreakpoint);
        }
        if let Goal::Issue(w) = goal {
            let view = m.warp_views().into_iter().find(|v| v.warp == w);
            let exited = view
                .as_ref()
                .is_some_and(|v| v.status == WarpStatus::Exited);
            // Not resident but launched: it retired.
            let retired = view.is_none() && u64::from(w) < m.warps_launched();
            if exited || retired {
                return Err(Refused::WarpExited(w));
            }
        }
        self.scan = None;
        self.run = Some(Run {
            goal,
            left: n.max(1),
            fast,
            back: false,
        });
        Ok(goal)
    }

    /// Starts a run backwards, to the `n`th latest cycle before the current
    /// one at which `goal` was hit: the cycle a forward run from cycle 0
    /// to that hit stops at, shown the same way. Refused at cycle 0, for a
    /// breakpoint with none set, and for goals that are no event (the end,
    /// a cycle). It runs, in slices, by [`Session::advance`]; when it
    /// finds nothing ([`Stop::NoneBefore`]) or is stopped, the session
    /// stays where it was.
    pub fn start_back(&mut self, goal: Goal, n: u64, fast: bool) -> Result<Goal, Refused> {
        if goal.sought().is_none() {
            return Err(Refused::NotAnEvent);
        }
        if self.cycle() == 0 {
            return Err(Refused::AtStart);
        }
        if goal == Goal::Breakpoint && self.breakpoints.is_empty() {
            return Err(Refused::NoBreakpoint);
        }
        self.scan = Some(reverse::Scan::new(goal, n, self.cycle()));
        self.run = Some(Run {
            goal,
            left: n.max(1),
            fast,
            back: true,
        });
        Ok(goal)
    }

    /// A run backwards in progress: the earliest cycle its search reached
    /// and the cycles it simulated so far.
    pub fn searched_back(&self) -> Option<(u64, u64)> {
        self.scan.as_ref().map(|s| (s.reached(), s.simulated()))
    }

    /// The run in progress.
    pub fn run(&self) -> Option<&Run> {
        self.run.as_ref()
    }

    pub fn is_running(&self) -> bool {
        self.run.is_some()
    }

    /// Ends the run in progress where it is (a run backwards: where it
    /// started, its search dropped).
    pub fn stop(&mut self) -> Option<Run> {
        self.scan = None;
        self.run.take()
    }

    /// Simulates the run for at most `cycles` cycles, stopping exactly at
    /// its goal. `None` while it goes on (or when none is in progress).
    pub fn advance(&mut self, cycles: u64) -> Option<Stop> {
        let mut run = self.run?;
        if run.back {
            return self.advance_back(cycles);
        }
        // Goals that only move in time skip idle cycles (see [`timeline`]).
        let target = match run.goal {
            Goal::Cycle(c) => Some(c),
            Goal::End => Some(u64::MAX),
            _ => None,
        };
        if let Some(target) = target {
            let to = target.min(self.cycle().saturating_add(cycles));
            if to > self.cycle() {
                self.timeline.seek(to);
            }
            if self.cycle() >= target {
                self.run = None;
                return Some(Stop::Arrived(self.cycle()));
            }
            if self.machine().halted() {
                self.run = None;
                return Some(Stop::Halted);
            }
            return None;
        }
        for _ in 0..cycles {
            if !self.timeline.step_coarse() {
                self.run = None;
                return Some(Stop::Halted);
            }
            if let Some(hit) = goal::hit(self.timeline.machine(), &self.breakpoints, run.goal) {
                run.left -= 1;
                if run.left == 0 {
                    self.run = None;
                    return Some(Stop::Reached(hit));
                }
            }
        }
        self.run = Some(run);
        None
    }

    /// Searches backwards for at most `cycles` simulated cycles; once the
    /// hit is found, seeks to it.
    fn advance_back(&mut self, cycles: u64) -> Option<Stop> {
        let Some(scan) = self.scan.as_mut() else {
            self.run = None;
            return None;
        };
        let goal = self.run.map(|r| r.goal)?;
        let found = scan.advance(&self.timeline, &self.breakpoints, cycles);
        let from = scan.from();
        let at = match found {
            reverse::Found::Searching => return None,
            reverse::Found::None => {
                self.run = None;
                self.scan = None;
                return Some(Stop::NoneBefore(from));
            }
            reverse::Found::At(c) => c,
        };
        self.run = None;
        self.scan = None;
        self.timeline.seek(at);
        // The same test found it there: the hit as a forward run reports it.
        Some(
            match goal::hit(self.timeline.machine(), &self.breakpoints, goal) {
                Some(hit) => Stop::Reached(hit),
                None => Stop::Arrived(self.cycle()),
            },
        )
    }

    /// Simulates the run for about `budget` of wall time, in slices whose
    /// size adapts to the machine's speed, stopping exactly at its goal:
    /// where it stops does not depend on the budget. `None` while it goes on.
    pub fn advance_for(&mut self, budget: Duration) -> Option<Stop> {
        let begun = Instant::now();
        loop {
            let t0 = Instant::now();
            if let Some(stop) = self.advance(self.slice) {
                return Some(stop);
            }
            self.run?;
            let took = t0.elapsed();
            if took < budget / 8 {
                self.slice = (self.slice * 2).min(SLICE_MAX);
            } else if took > budget / 2 {
                self.slice = (self.slice / 2).max(SLICE_MIN);
            }
            if begun.elapsed() >= budget {
                return None;
            }
        }
    }

    /// Completes the run in progress now.
    pub fn finish(&mut self) -> Option<Stop> {
        self.advance(u64::MAX)
    }
}

#[cfg(test)]
mod tests;
