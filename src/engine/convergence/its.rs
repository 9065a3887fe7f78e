//! Volta+ independent thread scheduling: a pc per lane.
//!
//! Lanes at the same pc that are not waiting form a group; one group issues
//! per slot. Groups split at divergent branches and meet again only at a
//! convergence barrier (`BSSY`/`BSYNC`), at `WARPSYNC`, or when they happen
//! to reach the same pc.

use crate::asm::ir::CONVERGENCE_BARRIERS;

/// What a lane waits for, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneWait {
    Running,
    /// At `BSYNC Bn` until every participant arrived or left.
    Bsync(u8),
    /// At `WARPSYNC` until every lane of its mask arrived.
    Warpsync,
    /// At `BAR.SYNC` until the whole block arrived.
    Bar,
}

/// A convergence barrier `Bn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConvBarrier {
    /// Lanes that must meet (set by `BSSY`, reduced by `BREAK`).
    pub participants: u64,
    /// Participants waiting at `BSYNC`.
    pub arrived: u64,
    /// The sync point `BSSY` named.
    pub target: u32,
}

/// Per-lane pcs and convergence barriers of one warp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItsState {
    pub pc: [u32; 64],
    pub wait: [LaneWait; 64],
    /// The mask each lane waiting at `WARPSYNC` named.
    pub warpsync_mask: [u64; 64],
    pub barriers: [ConvBarrier; CONVERGENCE_BARRIERS],
    /// The pc of the group that issued last and still runs, if any.
    pub current: Option<u32>,
    /// Groups `(pc, lanes)` sorted by pc; kept current by [`ItsState::refresh`].
    pub groups: Vec<(u32, u64)>,
}

impl ItsState {
    pub fn new(launched: u64) -> Self {
        let mut s = ItsState {
            pc: [0; 64],
            wait: [LaneWait::Running; 64],
            warpsync_mask: [0; 64],
            barriers: [ConvBarrier::default(); CONVERGENCE_BARRIERS],
            current: Some(0),
            groups: Vec::with_capacity(8),
        };
        s.refresh(launched);
        s
    }

    /// Lanes waiting for anything, or for one kind of thing.
    pub fn waiting(&self, live: u64, kind: Option<LaneWait>) -> u64 {
        lanes(live)
            .filter(|&l| match kind {
                None => self.wait[l] != LaneWait::Running,
                Some(k) => self.wait[l] == k,
            })
            .fold(0, |m, l| m | 1 << l)
    }

    /// Recomputes the groups from the lanes.
    pub fn refresh(&mut self, live: u64) {
        self.groups.clear();
        for l in lanes(live) {
            if self.wait[l] != LaneWait::Running {
                continue;
            }
            let pc = self.pc[l];
            match self.groups.iter_mut().find(|g| g.0 == pc) {
                Some(g) => g.1 |= 1 << l,
                None => self.groups.push((pc, 1 << l)),
            }
        }
        self.groups.sort_unstable_by_key(|g| g.0);
        if let Some(c) = self.current
            && !self.groups.iter().any(|g| g.0 == c)
        {
            self.current = None;
        }
    }

    pub fn set_pc(&mut self, lanes_mask: u64, pc: u32) {
        for l in lanes(lanes_mask) {
            self.pc[l] = pc;
        }
    }

    pub fn bssy(&mut self, b: u8, lanes_mask: u64, target: u32) {
        self.barriers[usize::from(b)] = ConvBarrier {
            participants: lanes_mask,
            arrived: 0,
            target,
        };
    }

    /// Lanes `on` arrive at `BSYNC b` (at their pc); non-participants pass.
    pub fn bsync(&mut self, b: u8, on: u64) {
        let bar = &mut self.barriers[usize::from(b)];
        let waiting = on & bar.participants;
        bar.arrived |= waiting;
        for l in lanes(waiting) {
            self.wait[l] = LaneWait::Bsync(b);
        }
        for l in lanes(on & !waiting) {
            self.pc[l] += 1;
        }
    }

    /// `BREAK b`: lanes `on` stop participating.
    pub fn brk(&mut self, b: u8, on: u64) {
        let bar = &mut self.barriers[usize::from(b)];
        bar.participants &= !on;
        bar.arrived &= !on;
    }

    pub fn warpsync(&mut self, on: u64, mask: u64) {
        for l in lanes(on) {
            self.wait[l] = LaneWait::Warpsync;
            self.warpsync_mask[l] = mask;
        }
    }

    pub fn bar_arrive(&mut self, on: u64) {
        for l in lanes(on) {
            self.wait[l] = LaneWait::Bar;
        }
    }

    /// Releases the lanes waiting at the block barrier (they move past it).
    pub fn bar_release(&mut self, live: u64) {
        for l in lanes(live) {
            if self.wait[l] == LaneWait::Bar {
                self.wait[l] = LaneWait::Running;
                self.pc[l] += 1;
            }
        }
    }

    /// Releases every convergence barrier and `WARPSYNC` whose lanes have
    /// all arrived or left. Returns the lanes released.
    pub fn release(&mut self, live: u64) -> u64 {
        let mut released = 0;
        for b in 0..CONVERGENCE_BARRIERS {
            let bar = self.barriers[b];
            if bar.arrived != 0 && bar.participants & live & !bar.arrived == 0 {
                for l in lanes(live) {
                    if self.wait[l] == LaneWait::Bsync(b as u8) {
                        self.wait[l] = LaneWait::Running;
                        self.pc[l] += 1;
                        released |= 1 << l;
                    }
                }
                self.barriers[b].participants = 0;
                self.barriers[b].arrived = 0;
            }
        }
        let at_ws = self.waiting(live, Some(LaneWait::Warpsync));
        if at_ws != 0 {
            let ready: u64 = lanes(at_ws)
                .filter(|&l| self.warpsync_mask[l] & live & !at_ws == 0)
                .fold(0, |m, l| m | 1 << l);
            for l in lanes(ready) {
                self.wait[l] = LaneWait::Running;
                self.pc[l] += 1;
            }
            released |= ready;
        }
        released
    }
}

/// The lane indices set in `mask`.
pub fn lanes(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let l = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(l)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_form_by_pc_and_merge() {
        let mut s = ItsState::new(0b1111);
        assert_eq!(s.groups, vec![(0, 0b1111)]);
        s.set_pc(0b0011, 5);
        s.set_pc(0b1100, 1);
        s.refresh(0b1111);
        assert_eq!(s.groups, vec![(1, 0b1100), (5, 0b0011)]);
        s.set_pc(0b1100, 5);
        s.refresh(0b1111);
        assert_eq!(s.groups, vec![(5, 0b1111)]);
    }

    #[test]
    fn bsync_waits_for_every_participant() {
        let mut s = ItsState::new(0b1111);
        s.bssy(0, 0b1111, 9);
        s.set_pc(0b1111, 9);
        s.bsync(0, 0b0011);
        s.refresh(0b1111);
        assert_eq!(s.groups, vec![(9, 0b1100)]);
        assert_eq!(s.release(0b1111), 0);
        s.bsync(0, 0b1100);
        assert_eq!(s.release(0b1111), 0b1111);
        s.refresh(0b1111);
        assert_eq!(s.groups, vec![(10, 0b1111)]);
    }

    #[test]
    fn break_and_exit_release_a_barrier() {
        let mut s = ItsState::new(0b111);
        s.bssy(1, 0b111, 4);
        s.set_pc(0b001, 4);
        s.bsync(1, 0b001);
        s.brk(1, 0b010);
        assert_eq!(s.release(0b111), 0);
        // Lane 2 exits: everyone left has arrived.
        assert_eq!(s.release(0b011), 0b001);
    }

    #[test]
    fn warpsync_releases_when_its_mask_arrived() {
        let mut s = ItsState::new(0b11);
        s.warpsync(0b01, 0b11);
        assert_eq!(s.release(0b11), 0);
        s.warpsync(0b10, 0b11);
        assert_eq!(s.release(0b11), 0b11);
    }
}
