//! Breakpoints: instructions at which a run to a breakpoint stops when
//! any warp issues them, and source lines, which stop a run when any warp
//! issues any instruction of the line.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::engine::view::RegSel;
use crate::engine::{IssueRecord, Machine};

/// When a conditional breakpoint stops a run: its instruction issues and
/// this holds for that issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// `w3`: warp 3 (global index) issued it.
    Warp(u32),
    /// `active<8`: with fewer than this many active lanes.
    ActiveBelow(u32),
    /// `div`: the issue split the warp.
    Diverged,
    /// `R2==5`: afterwards, the register holds the value in some lane that
    /// was active.
    RegEquals(u8, u32),
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Warp(w) => write!(f, "w{w}"),
            Condition::ActiveBelow(k) => write!(f, "active<{k}"),
            Condition::Diverged => write!(f, "div"),
            Condition::RegEquals(r, v) => write!(f, "R{r}=={}", *v as i32),
        }
    }
}

/// The conditions the prompt accepts, for messages.
pub const CONDITION_FORMS: &str = "w3 (that warp), active<8 (fewer active lanes), div (the issue diverges), R2==5 (a register value in an active lane)";

impl Condition {
    /// Parses `w3`, `active<8`, `div` or `R2==5` (spaces allowed; values in
    /// decimal, negative, or hex with `0x`).
    pub fn parse(text: &str) -> Result<Condition, String> {
        let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let lower = t.to_ascii_lowercase();
        let bad = |why: &str| {
            Err(format!(
                "condition \"{}\": {why}; give one of {CONDITION_FORMS}",
                crate::text::clean(text.trim())
            ))
        };
        if t.is_empty() {
            return bad("empty");
        }
        if lower == "div" {
            return Ok(Condition::Diverged);
        }
        if let Some(k) = lower.strip_prefix("active<") {
            return match k.parse::<u32>() {
                Ok(k) if (1..=64).contains(&k) => Ok(Condition::ActiveBelow(k)),
                _ => bad("the count after `active<` must be a number from 1 to 64"),
            };
        }
        if let Some(w) = lower.strip_prefix('w') {
            return match w.parse::<u32>() {
                Ok(w) => Ok(Condition::Warp(w)),
                Err(_) => bad("a warp is `w` and its number"),
            };
        }
        if let Some(rest) = lower.strip_prefix('r') {
            let Some((reg, value)) = rest.split_once("==") else {
                return bad("a register condition is `R<n>==<value>`");
            };
            let Ok(reg) = reg.parse::<u8>() else {
                return bad("registers are R0..R254");
            };
            if reg == 255 {
                return bad("RZ is always 0");
            }
            let value = if let Some(h) = value.strip_prefix("0x") {
                u32::from_str_radix(h, 16).ok()
            } else if let Some(n) = value.strip_prefix('-') {
                n.parse::<u32>()
                    .ok()
                    .filter(|&n| n <= 1 << 31)
                    .map(|n| n.wrapping_neg())
            } else {
                value.parse::<u32>().ok()
            };
            return match value {
                Some(v) => Ok(Condition::RegEquals(reg, v)),
                None => bad("the value must be a 32-bit integer (5, -1, 0x3f800000)"),
            };
        }
        bad("not a condition")
    }

    /// Whether the issue `r`, just simulated by `m`, meets the condition.
    pub fn holds(&self, m: &Machine, r: &IssueRecord) -> bool {
        match *self {
            Condition::Warp(w) => r.warp == w,
            Condition::ActiveBelow(k) => r.active.count_ones() < k,
            Condition::Diverged => r.diverged,
            Condition::RegEquals(reg, v) => {
                m.lane_values(r.warp, RegSel::Reg(reg)).is_some_and(|vals| {
                    vals.iter()
                        .enumerate()
                        .any(|(lane, &x)| lane < 64 && r.active >> lane & 1 == 1 && x == v)
                })
            }
        }
    }
}

/// The instructions (by index into the program) and source lines that
/// stop a run to a breakpoint when a warp issues one of theirs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breakpoints {
    pcs: BTreeSet<u32>,
    /// `(file index, line)` of the source map, with the line's pcs.
    lines: BTreeMap<(u32, u32), Vec<u32>>,
    /// Conditional breakpoints: they stop a run when their condition holds.
    conds: BTreeMap<u32, Condition>,
}

impl Breakpoints {
    /// Sets a breakpoint at `pc`, or clears the one there (plain or
    /// conditional); true if it is set now.
    pub fn toggle(&mut self, pc: u32) -> bool {
        // A conditional one there is cleared.
        if self.pcs.remove(&pc) || self.conds.remove(&pc).is_some() {
            false
        } else {
            self.pcs.insert(pc);
            true
        }
    }

    /// Sets a breakpoint on source line `line` of file `file` (indices of
    /// the scenario's source map), whose instructions are `pcs`, or clears
    /// the one there; true if it is set now.
    pub fn toggle_line(&mut self, file: u32, line: u32, pcs: Vec<u32>) -> bool {
        if self.lines.remove(&(file, line)).is_some() {
            false
        } else {
            self.lines.insert((file, line), pcs);
            true
        }
    }

    /// Whether issuing `pc` stops a run: it has a breakpoint, or its
    /// source line has one.
    pub fn contains(&self, pc: u32) -> bool {
        self.pcs.contains(&pc) || self.lines.values().any(|p| p.contains(&pc))
    }

    /// Whether source line `line` of file `file` has a breakpoint.
    pub fn has_line(&self, file: u32, line: u32) -> bool {
        self.lines.contains_key(&(file, line))
    }

    pub fn is_empty(&self) -> bool {
        self.pcs.is_empty() && self.lines.is_empty() && self.conds.is_empty()
    }

    /// Instruction, conditional and source-line breakpoints together.
    pub fn len(&self) -> usize {
        self.pcs.len() + self.lines.len() + self.conds.len()
    }

    /// Sets a conditional breakpoint at `pc` (replacing what was there, a
    /// plain one included).
    pub fn set_condition(&mut self, pc: u32, cond: Condition) {
        self.pcs.remove(&pc);
        self.conds.insert(pc, cond);
    }

    /// Clears the conditional breakpoint at `pc`; whether there was one.
    pub fn clear_condition(&mut self, pc: u32) -> bool {
        self.conds.remove(&pc).is_some()
    }

    /// The conditional breakpoints, by pc.
    pub fn conditions(&self) -> &BTreeMap<u32, Condition> {
        &self.conds
    }

    /// Whether the issue `r`, just simulated by `m`, stops a run to a
    /// breakpoint.
    pub fn stops(&self, m: &Machine, r: &IssueRecord) -> bool {
        self.contains(r.pc) || self.conds.get(&r.pc).is_some_and(|c| c.holds(m, r))
    }

    /// The instructions with a breakpoint of their own, ascending.
    pub fn pcs(&self) -> &BTreeSet<u32> {
        &self.pcs
    }
}
