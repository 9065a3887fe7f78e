//! The pre-Volta SIMT reconvergence stack.
//!
//! Each entry holds a pc, the pc at which its lanes reconverge, and its lane
//! mask. A divergent branch turns the top entry into the reconvergence entry
//! (its pc becomes the branch's IPDOM) and pushes one entry per side; an
//! entry is popped when its pc reaches its reconvergence pc or its lanes are
//! all gone. Paths therefore run one after the other.

use crate::asm::ir::{CONVERGENCE_BARRIERS, EXIT_PC};

/// One stack entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackEntry {
    pub pc: u32,
    /// Reconvergence pc ([`EXIT_PC`]: the lanes only meet at exit).
    pub rpc: u32,
    pub mask: u64,
}

/// A branch instruction's outcome for one warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Branch {
    pub pc: u32,
    pub target: u32,
    /// Active lanes that jump.
    pub taken: u64,
    pub active: u64,
    /// Reconvergence pc of the branch.
    pub rpc: u32,
}

/// A warp's SIMT stack (top last; empty by default, before `reset`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimtStack {
    pub entries: Vec<StackEntry>,
    /// The lanes of each convergence barrier `Bn`: `BSSY` sets the issuing
    /// lanes, `BREAK` removes lanes, `BMOV` reads and writes them. Nothing
    /// waits on them in this model (the stack reconverges); they are kept
    /// so that `BMOV` moves what the `its` model would.
    pub barriers: [u64; CONVERGENCE_BARRIERS],
}

impl SimtStack {
    pub fn new(mask: u64) -> Self {
        SimtStack {
            entries: vec![StackEntry {
                pc: 0,
                rpc: EXIT_PC,
                mask,
            }],
            barriers: [0; CONVERGENCE_BARRIERS],
        }
    }

    /// Back to one entry covering `mask` at pc 0, keeping the allocation.
    pub fn reset(&mut self, mask: u64) {
        self.barriers = [0; CONVERGENCE_BARRIERS];
        self.entries.clear();
        self.entries.push(StackEntry {
            pc: 0,
            rpc: EXIT_PC,
            mask,
        });
    }

    pub fn top(&self) -> Option<&StackEntry> {
        self.entries.last()
    }

    /// The next pc and the active mask (top mask restricted to `live`).
    pub fn active(&self, live: u64) -> Option<(u32, u64)> {
        self.top().map(|e| (e.pc, e.mask & live))
    }

    /// Moves the top entry to `pc` and pops entries that reconverged or
    /// lost all their lanes.
    pub fn goto(&mut self, pc: u32, live: u64) {
        if let Some(top) = self.entries.last_mut() {
            top.pc = pc;
            // The common case, checked on the entry at hand: it stays.
            if pc != top.rpc && top.mask & live != 0 {
                return;
            }
        }
        self.pop_finished(live);
    }

    /// Pops converged or empty entries.
    pub fn pop_finished(&mut self, live: u64) {
        while let Some(top) = self.entries.last() {
            if top.pc == top.rpc || top.mask & live == 0 {
                self.entries.pop();
            } else {
                break;
            }
        }
    }

    /// A branch at `b.pc` with active lanes `b.active`, of which `b.taken`
    /// jump to `b.target`; `b.rpc` is its reconvergence pc. Returns true
    /// when the branch diverged.
    pub fn branch(&mut self, b: Branch, taken_first: bool, live: u64) -> bool {
        let Branch {
            pc,
            target,
            taken,
            active,
            rpc,
        } = b;
        let not_taken = active & !taken;
        if taken == 0 || not_taken == 0 {
            let next = if taken != 0 { target } else { pc + 1 };
            self.goto(next, live);
            return false;
        }
        let Some(top) = self.entries.last_mut() else {
            return true;
        };
        if top.rpc == rpc {
            // Already inside a region that reconverges at `rpc` (a loop
            // latch, say): the entry below waits there, so replace the top
            // instead of stacking another reconvergence entry.
            self.entries.pop();
        } else {
            top.pc = rpc;
        }
        let sides = [(target, taken), (pc + 1, not_taken)];
        let order = if taken_first {
            [sides[1], sides[0]]
        } else {
            [sides[0], sides[1]]
        };
        for (side_pc, mask) in order {
            // Lanes already at the reconvergence point wait in the entry below.
            if side_pc != rpc {
                self.entries.push(StackEntry {
                    pc: side_pc,
                    rpc,
                    mask,
                });
            }
        }
        self.pop_finished(live);
        true
    }

    /// An indirect jump (`RET`, `BRX`): `ways` are `(pc, lanes)` for each
    /// pc the active lanes go to, sorted by pc; `rpc` is the jump's
    /// reconvergence pc. One way is a plain jump; several diverge as a
    /// branch does, one entry per way, the lowest pc running first.
    /// Returns true when the lanes went more than one way.
    pub fn multiway(&mut self, ways: &[(u32, u64)], rpc: u32, live: u64) -> bool {
        match ways {
            [] => {
                self.pop_finished(live);
                return false;
            }
            [(pc, _)] => {
                self.goto(*pc, live);
                return false;
            }
            _ => {}
        }
        let Some(top) = self.entries.last_mut() else {
            return true;
        };
        if top.rpc == rpc {
            self.entries.pop();
        } else {
            top.pc = rpc;
        }
        for &(pc, mask) in ways.iter().rev() {
            if pc != rpc {
                self.entries.push(StackEntry { pc, rpc, mask });
            }
        }
        self.pop_finished(live);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: u64 = 0xffff_ffff;

    #[test]
    fn if_else_runs_taken_side_then_other_then_reconverges() {
        // 0: @P0 BRA 3 / 1: A / 2: BRA 4 / 3: B / 4: join
        let mut s = SimtStack::new(ALL);
        let low = 0x0000_ffff;
        assert!(s.branch(
            Branch {
                pc: 0,
                target: 3,
                taken: low,
                active: ALL,
                rpc: 4
            },
            true,
            ALL
        ));
        assert_eq!(s.active(ALL), Some((3, low)));
        s.goto(4, ALL); // B done: falls into join = rpc, popped
        assert_eq!(s.active(ALL), Some((1, !low & ALL)));
        s.goto(2, ALL);
        assert!(!s.branch(
            Branch {
                pc: 2,
                target: 4,
                taken: !low & ALL,
                active: !low & ALL,
                rpc: 4
            },
            true,
            ALL
        ));
        assert_eq!(s.active(ALL), Some((4, ALL)));
        assert_eq!(s.entries.len(), 1);
    }

    #[test]
    fn loop_latch_replaces_the_top_instead_of_growing() {
        // 1: body / 2: @P0 BRA 1 / 3: after; lanes leave one per trip.
        let mut s = SimtStack::new(0b1111);
        s.goto(2, 0b1111);
        assert!(s.branch(
            Branch {
                pc: 2,
                target: 1,
                taken: 0b0111,
                active: 0b1111,
                rpc: 3
            },
            true,
            0b1111
        ));
        assert_eq!(s.entries.len(), 2);
        s.goto(2, 0b1111);
        assert!(s.branch(
            Branch {
                pc: 2,
                target: 1,
                taken: 0b0011,
                active: 0b0111,
                rpc: 3
            },
            true,
            0b1111
        ));
        assert_eq!(s.entries.len(), 2);
        assert_eq!(s.active(0b1111), Some((1, 0b0011)));
        s.goto(2, 0b1111);
        assert!(s.branch(
            Branch {
                pc: 2,
                target: 1,
                taken: 0b0001,
                active: 0b0011,
                rpc: 3
            },
            true,
            0b1111
        ));
        s.goto(2, 0b1111);
        assert!(!s.branch(
            Branch {
                pc: 2,
                target: 1,
                taken: 0,
                active: 0b0001,
                rpc: 3
            },
            true,
            0b1111
        ));
        assert_eq!(s.active(0b1111), Some((3, 0b1111)));
        assert_eq!(s.entries.len(), 1);
    }

    #[test]
    fn a_multiway_jump_runs_each_way_lowest_pc_first() {
        // 5: BRX to 6 (lanes 0-1), 8 (lane 2), 10 (lane 3); all meet at 12.
        let mut s = SimtStack::new(0b1111);
        s.goto(5, 0b1111);
        let ways = [(6, 0b0011), (8, 0b0100), (10, 0b1000)];
        assert!(s.multiway(&ways, 12, 0b1111));
        // The reconvergence entry at 12 below three ways, 6 on top.
        assert_eq!(s.entries.len(), 4);
        assert_eq!(s.active(0b1111), Some((6, 0b0011)));
        s.goto(12, 0b1111);
        assert_eq!(s.active(0b1111), Some((8, 0b0100)));
        s.goto(12, 0b1111);
        assert_eq!(s.active(0b1111), Some((10, 0b1000)));
        s.goto(12, 0b1111);
        assert_eq!(s.active(0b1111), Some((12, 0b1111)));
        // One way is a plain jump.
        assert!(!s.multiway(&[(3, 0b1111)], EXIT_PC, 0b1111));
        assert_eq!((s.entries.len(), s.active(0b1111)), (1, Some((3, 0b1111))));
    }

    #[test]
    fn not_taken_first_when_asked() {
        let mut s = SimtStack::new(ALL);
        s.branch(
            Branch {
                pc: 0,
                target: 3,
                taken: 1,
                active: ALL,
                rpc: 4,
            },
            false,
            ALL,
        );
        assert_eq!(s.active(ALL), Some((1, ALL & !1)));
    }

    #[test]
    fn exiting_lanes_pop_their_entry() {
        let mut s = SimtStack::new(0b11);
        s.branch(
            Branch {
                pc: 0,
                target: 5,
                taken: 0b01,
                active: 0b11,
                rpc: EXIT_PC,
            },
            true,
            0b11,
        );
        assert_eq!(s.entries.len(), 2);
        // Lane 0 exits on its path.
        s.pop_finished(0b10);
        assert_eq!(s.active(0b10), Some((1, 0b10)));
        s.pop_finished(0);
        assert!(s.entries.is_empty());
    }
}
