//! Breakpoints: instructions at which a run to a breakpoint stops when
//! any warp issues them, and source lines, which stop a run when any warp
//! issues any instruction of the line.

use std::collections::{BTreeMap, BTreeSet};

/// The instructions (by index into the program) and source lines that
/// stop a run to a breakpoint when a warp issues one of theirs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breakpoints {
    pcs: BTreeSet<u32>,
    /// `(file index, line)` of the source map, with the line's pcs.
    lines: BTreeMap<(u32, u32), Vec<u32>>,
}

impl Breakpoints {
    /// Sets a breakpoint at `pc`, or clears the one there; true if it is
    /// set now.
    pub fn toggle(&mut self, pc: u32) -> bool {
        if self.pcs.remove(&pc) {
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
        self.pcs.is_empty() && self.lines.is_empty()
    }

    /// Instruction and source-line breakpoints together.
    pub fn len(&self) -> usize {
        self.pcs.len() + self.lines.len()
    }

    /// The instructions with a breakpoint of their own, ascending.
    pub fn pcs(&self) -> &BTreeSet<u32> {
        &self.pcs
    }
}
