//! Breakpoints: instructions at which a run to a breakpoint stops when
//! any warp issues them.

use std::collections::BTreeSet;

/// The instructions (by index into the program) that stop a run to a
/// breakpoint when a warp issues one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breakpoints {
    pcs: BTreeSet<u32>,
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

    pub fn contains(&self, pc: u32) -> bool {
        self.pcs.contains(&pc)
    }

    pub fn is_empty(&self) -> bool {
        self.pcs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.pcs.len()
    }

    /// The instructions with a breakpoint, ascending.
    pub fn pcs(&self) -> &BTreeSet<u32> {
        &self.pcs
    }
}
