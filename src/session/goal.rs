//! Run-to goals: what a run stops at, checked after every simulated cycle
//! against what the schedulers issued in it.

use super::breakpoints::Breakpoints;
use crate::asm::Program;
use crate::engine::Machine;
use crate::text::clean;

/// What a run stops at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// The warp (global index) issues.
    Issue(u32),
    /// An instruction with a breakpoint issues.
    Breakpoint,
    /// A branch splits a warp.
    Divergence,
    /// Lanes rejoin.
    Reconvergence,
    /// The run halts.
    End,
    /// Any warp issues the instruction with this index.
    Pc(u32),
    /// The machine reaches this cycle (or halts before it). A target
    /// before the current cycle is reached by re-simulating from a
    /// checkpoint.
    Cycle(u64),
}

impl Goal {
    /// `to a divergence`, for a status line.
    pub fn describe(self) -> String {
        match self {
            Goal::Issue(w) => format!("until w{w} issues"),
            Goal::Breakpoint => "to a breakpoint".into(),
            Goal::Divergence => "to a divergence".into(),
            Goal::Reconvergence => "to a reconvergence".into(),
            Goal::End => "to the end".into(),
            Goal::Pc(pc) => format!("until {} issues", addr(pc)),
            Goal::Cycle(u64::MAX) => "to the end".into(),
            Goal::Cycle(c) => format!("to cycle {c}"),
        }
    }

    /// `back to the previous divergence`, for a status line: a run
    /// backwards.
    pub fn describe_back(self) -> String {
        match self.sought() {
            Some(what) => format!("back to the previous {what}"),
            None => self.describe(),
        }
    }

    /// `divergence`: what a run to the goal looks for, for a message saying
    /// it found none (`None` for goals that only move in time).
    pub fn sought(self) -> Option<String> {
        match self {
            Goal::Issue(w) => Some(format!("issue of w{w}")),
            Goal::Breakpoint => Some("breakpoint hit".into()),
            Goal::Divergence => Some("divergence".into()),
            Goal::Reconvergence => Some("reconvergence".into()),
            Goal::Pc(pc) => Some(format!("issue of {}", addr(pc))),
            Goal::End | Goal::Cycle(_) => None,
        }
    }
}

/// A run in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub goal: Goal,
    /// Goal hits still to pass (a count asks for several).
    pub left: u64,
    /// As fast as possible, not at a frontend's chosen pace.
    pub fast: bool,
    /// Backwards: to the latest hit before the cycle it started from.
    pub back: bool,
}

/// A goal reached in the cycle just simulated: the issue that reached it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub goal: Goal,
    /// The cycle the machine is at after the cycle that hit.
    pub cycle: u64,
    /// The warp (global index) that issued.
    pub warp: u32,
    /// The instruction index it issued.
    pub pc: u32,
    /// What happened, in a line: `w3 diverged at /*0040*/: 4 of 32 lanes
    /// took the branch`.
    pub text: String,
}

/// `/*0050*/`, the address a listing shows for instruction `pc`.
fn addr(pc: u32) -> String {
    format!("/*{:04x}*/", Program::address(pc))
}

/// The goal's hit in the cycle `m` just simulated, if it reached it (the
/// first matching issue, in scheduler order).
pub fn hit(m: &Machine, breakpoints: &Breakpoints, goal: Goal) -> Option<Hit> {
    let code = m.code();
    let text = |pc: u32| {
        code.get(pc as usize)
            .map_or(String::new(), |d| clean(&d.instr.text))
    };
    let mut issued = m.issues().iter().filter(|r| !r.dispatch_stall);
    let (r, text) = match goal {
        Goal::Issue(w) => issued
            .find(|r| r.warp == w)
            .map(|r| (r, format!("w{w} issued {} {}", addr(r.pc), text(r.pc)))),
        Goal::Breakpoint => issued.find(|r| breakpoints.stops(m, r)).map(|r| {
            let t = format!(
                "breakpoint: w{} issued {} {}",
                r.warp,
                addr(r.pc),
                text(r.pc)
            );
            (r, t)
        }),
        Goal::Divergence => issued.find(|r| r.diverged).map(|r| {
            let op = code.get(r.pc as usize).map(|d| &d.instr.op);
            // A BREAK counts as a branch (docs/execution-model.md), but
            // moves no lane: its lanes leave the barrier, and split off at
            // the branch that follows.
            let t = if let Some(crate::asm::ir::Op::Break { barrier }) = op {
                format!(
                    "w{} at {} BREAK: {} of {} lanes leave barrier B{barrier} (a divergent \
                     branch in the counters; they split off at the next branch)",
                    r.warp,
                    addr(r.pc),
                    r.on.count_ones(),
                    r.active.count_ones()
                )
            } else {
                format!(
                    "w{} diverged at {}: {} of {} lanes took the branch",
                    r.warp,
                    addr(r.pc),
                    r.on.count_ones(),
                    r.active.count_ones()
                )
            };
            (r, t)
        }),
        Goal::Reconvergence => issued.find(|r| r.reconverged).map(|r| {
            let t = format!(
                "w{}: the {} lanes that issued {} rejoin others",
                r.warp,
                r.active.count_ones(),
                addr(r.pc)
            );
            (r, t)
        }),
        Goal::Pc(pc) => issued
            .find(|r| r.pc == pc)
            .map(|r| (r, format!("w{} issued {} {}", r.warp, addr(pc), text(pc)))),
        Goal::End | Goal::Cycle(_) => None,
    }?;
    Some(Hit {
        goal,
        cycle: m.cycle(),
        warp: r.warp,
        pc: r.pc,
        text,
    })
}
