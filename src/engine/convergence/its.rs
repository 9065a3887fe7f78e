//! Volta+ independent thread scheduling: a pc per lane.
//!
//! Lanes at the same pc that are not waiting form a group; one group issues
//! per slot. Groups split at divergent branches and meet again only at a
//! convergence barrier (`BSSY`/`BSYNC`), at `WARPSYNC`, or when they happen
//! to reach the same pc.
//!
//! A group that reaches a `BSYNC` or `WARPSYNC` arrives there without
//! issuing and waits; when the last participant arrives, the lanes are
//! released together at that instruction and the merged group issues it
//! once. So a split costs exactly the issue slots of its paths in both
//! convergence models.

use super::Convergence;
use crate::asm::ir::{CONVERGENCE_BARRIERS, Op, Src};
use crate::engine::link::Decoded;
use crate::engine::machine::Shared;
use crate::engine::records::RunError;
use crate::engine::warp::Warp;

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

/// A synchronisation instruction found at a group's pc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncPoint {
    Bsync(u8),
    /// `WARPSYNC` with the lanes its mask names.
    Warpsync(u64),
}

/// Per-lane pcs and convergence barriers of one warp.
///
/// A lane in a group is at that group's pc; `pc` holds the pc of every
/// other lane (waiting, exited or faulted), and is brought up to date for
/// the lanes of the groups only when the groups are rebuilt
/// ([`ItsState::refresh`]) or lose lanes, so that moving a group moves one
/// number, not a pc per lane. [`ItsState::lane_pc`] reads a lane's pc.
#[derive(Debug, Clone)]
pub struct ItsState {
    pc: [u32; 64],
    pub wait: [LaneWait; 64],
    /// The mask each lane waiting at `WARPSYNC` named.
    pub warpsync_mask: [u64; 64],
    /// Lanes released at a `WARPSYNC` that have not issued it yet (so they
    /// do not arrive there again).
    pub released: u64,
    /// Lanes whose `wait` is not `Running`.
    pub waiting_mask: u64,
    pub barriers: [ConvBarrier; CONVERGENCE_BARRIERS],
    /// The pc of the lanes that issued last, if any is still there (they
    /// may be waiting at a sync point).
    pub current: Option<u32>,
    /// Groups `(pc, lanes)` sorted by pc; kept current by [`ItsState::refresh`].
    pub groups: Vec<(u32, u64)>,
}

/// Equal when every lane is at the same pc and the rest is the same
/// (`pc` itself may hold stale entries for the lanes of groups).
impl PartialEq for ItsState {
    fn eq(&self, other: &Self) -> bool {
        (0..64).all(|l| self.lane_pc(l) == other.lane_pc(l))
            && self.wait == other.wait
            && self.warpsync_mask == other.warpsync_mask
            && self.released == other.released
            && self.waiting_mask == other.waiting_mask
            && self.barriers == other.barriers
            && self.current == other.current
            && self.groups == other.groups
    }
}

impl Eq for ItsState {}

impl ItsState {
    /// A warp's state at launch: the lanes of `launched` at pc 0, one
    /// group, nothing waiting.
    pub fn new(launched: u64) -> Self {
        let mut s = ItsState {
            pc: [0; 64],
            wait: [LaneWait::Running; 64],
            warpsync_mask: [0; 64],
            released: 0,
            waiting_mask: 0,
            barriers: [ConvBarrier::default(); CONVERGENCE_BARRIERS],
            current: None,
            groups: Vec::with_capacity(8),
        };
        s.start(launched);
        s
    }

    /// [`ItsState::new`] in place, keeping the allocations: a finished
    /// warp's state reused for the next.
    pub fn reset(&mut self, launched: u64) {
        self.pc = [0; 64];
        self.wait = [LaneWait::Running; 64];
        self.warpsync_mask = [0; 64];
        self.released = 0;
        self.waiting_mask = 0;
        self.barriers = [ConvBarrier::default(); CONVERGENCE_BARRIERS];
        self.start(launched);
    }

    /// The groups at launch, as [`ItsState::refresh`] would find them:
    /// every launched lane is running at pc 0.
    fn start(&mut self, launched: u64) {
        self.groups.clear();
        self.current = None;
        if launched != 0 {
            self.groups.push((0, launched));
            self.current = Some(0);
        }
    }

    /// Lane `l`'s pc.
    pub fn lane_pc(&self, l: usize) -> u32 {
        let bit = 1u64.checked_shl(l as u32).unwrap_or(0);
        self.groups
            .iter()
            .find(|g| g.1 & bit != 0)
            .map_or(self.pc.get(l).copied().unwrap_or(0), |g| g.0)
    }

    /// Writes the pc of every lane of a group into `pc`.
    fn settle_pcs(&mut self) {
        for &(pc, mask) in &self.groups {
            for l in lanes(mask) {
                self.pc[l] = pc;
            }
        }
    }

    /// Lanes waiting for anything, or for one kind of thing.
    pub fn waiting(&self, live: u64, kind: Option<LaneWait>) -> u64 {
        let w = live & self.waiting_mask;
        match kind {
            None => w,
            Some(k) => lanes(w)
                .filter(|&l| self.wait[l] == k)
                .fold(0, |m, l| m | 1 << l),
        }
    }

    fn set_wait(&mut self, l: usize, wait: LaneWait) {
        self.wait[l] = wait;
        if wait == LaneWait::Running {
            self.waiting_mask &= !(1 << l);
        } else {
            self.waiting_mask |= 1 << l;
        }
    }

    /// The pc of the group the warp stays with: the lanes that issued last,
    /// if they are still a group, or else the group lowest in the program.
    pub fn preferred(&self) -> Option<u32> {
        self.preferred_group().map(|g| g.0)
    }

    /// The group of [`ItsState::preferred`], `(pc, lanes)`.
    pub fn preferred_group(&self) -> Option<(u32, u64)> {
        self.current
            .and_then(|c| self.groups.iter().find(|g| g.0 == c))
            .or(self.groups.first())
            .copied()
    }

    /// The usual issue of an ordinary instruction at `pc` by lanes
    /// `active`: when they are one of the warp's groups and
    /// [`ItsState::branch_group`] holds with every lane falling through,
    /// the group moves to `pc + 1`, merging with a group already there,
    /// and becomes current. That is all that the general steps (`set_pc`,
    /// `retain_live`, `arrive`, `release`) would do: no lane leaves, none
    /// arrives anywhere, nothing is released, and no lane's own pc is
    /// written (only lanes outside every group have one). Returns false,
    /// changing nothing, otherwise.
    ///
    /// `next_syncs` tells whether `pc + 1` is a sync point, as `syncs` would.
    /// Inlined into the issue path, where the instruction's
    /// [`Decoded::next_syncs`] answers that without a look at the next one,
    /// and so is [`ItsState::branch_group`] (made a call of its own there,
    /// it counted more host instructions in each bench kernel tried).
    #[inline(always)]
    pub fn advance_group(
        &mut self,
        pc: u32,
        active: u64,
        live: u64,
        next_syncs: bool,
        syncs: impl Fn(u32) -> bool,
    ) -> bool {
        if let [_] = &self.groups[..] {
            return self.advance_alone(pc, active, live, next_syncs);
        }
        if !self.branch_group(pc, 0, active, pc + 1, live, syncs) {
            return false;
        }
        self.current = Some(pc + 1);
        true
    }

    /// [`ItsState::advance_group`] for a warp whose lanes are all in one
    /// group (the usual case: no other group can stand at a sync point),
    /// `next_syncs` telling whether `pc + 1` is one.
    #[inline(always)]
    fn advance_alone(&mut self, pc: u32, active: u64, live: u64, next_syncs: bool) -> bool {
        match &mut self.groups[..] {
            [g] if *g == (pc, active)
                && active & !live == 0
                && self.waiting_mask == 0
                && !next_syncs =>
            {
                g.0 = pc + 1;
                self.current = Some(pc + 1);
                true
            }
            _ => false,
        }
    }

    /// The usual issue of a branch at `pc` by one of the warp's groups,
    /// lanes `on` taking it to `target` and `rest` falling through: when
    /// `on | rest` is that group, every lane of every group is still
    /// `live`, nothing waits, and no group's pc is a sync point
    /// (`syncs(pc)`) once the lanes have moved, the taken lanes join the
    /// group at `target` and the others the one at `pc + 1` (each made
    /// where there is none). That is all the general steps (`set_pc` for
    /// each side, `retain_live`, `arrive`, `release`) would do. The caller
    /// names the group that goes first (`current`). Returns false,
    /// changing nothing, otherwise.
    #[inline(always)]
    pub fn branch_group(
        &mut self,
        pc: u32,
        on: u64,
        rest: u64,
        target: u32,
        live: u64,
        syncs: impl Fn(u32) -> bool,
    ) -> bool {
        let active = on | rest;
        if self.waiting_mask != 0 || (on != 0 && syncs(target)) || (rest != 0 && syncs(pc + 1)) {
            return false;
        }
        let Some(i) = self.groups.iter().position(|&g| g == (pc, active)) else {
            return false;
        };
        let all = self.groups.iter().fold(0, |m, g| m | g.1);
        if all & !live != 0
            || self
                .groups
                .iter()
                .enumerate()
                .any(|(j, g)| j != i && syncs(g.0))
        {
            return false;
        }
        // The lanes falling through keep the group's place (no group lies
        // between `pc` and `pc + 1`), or merge with the group after it.
        let next = pc + 1;
        match self.groups.get(i + 1) {
            Some(g) if rest != 0 && g.0 == next => {
                self.groups[i + 1].1 |= rest;
                self.groups.remove(i);
            }
            _ if rest != 0 => self.groups[i] = (next, rest),
            _ => {
                self.groups.remove(i);
            }
        }
        if on != 0 {
            match self.groups.binary_search_by_key(&target, |g| g.0) {
                Ok(j) => self.groups[j].1 |= on,
                Err(j) => self.groups.insert(j, (target, on)),
            }
        }
        true
    }

    /// Drops lanes that exited or faulted from the groups (the cheap part
    /// of [`ItsState::refresh`], enough after an ordinary issue).
    pub fn retain_live(&mut self, live: u64) {
        if self.groups.iter().any(|g| g.1 & !live != 0) {
            for g in &mut self.groups {
                // The lanes leaving keep their pc.
                for l in lanes(g.1 & !live) {
                    self.pc[l] = g.0;
                }
                g.1 &= live;
            }
            self.groups.retain(|g| g.1 != 0);
        }
        if let Some(c) = self.current
            && !self.groups.iter().any(|g| g.0 == c)
            && !lanes(live & self.waiting_mask).any(|l| self.pc[l] == c)
        {
            self.current = None;
        }
    }

    /// Recomputes the groups from the lanes.
    pub fn refresh(&mut self, live: u64) {
        self.settle_pcs();
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
        // The current group may be waiting at a sync point: it stays
        // current (its lanes are still at that pc) until they all leave.
        if let Some(c) = self.current
            && !lanes(live).any(|l| self.pc[l] == c)
        {
            self.current = None;
        }
    }

    /// Moves lanes to `pc`, keeping the groups up to date: the running
    /// lanes join the group at `pc`; a waiting lane's own pc moves.
    pub fn set_pc(&mut self, lanes_mask: u64, pc: u32) {
        if lanes_mask == 0 {
            return;
        }
        for l in lanes(lanes_mask & self.waiting_mask) {
            self.pc[l] = pc;
        }
        let running = lanes_mask & !self.waiting_mask;
        // A whole group moving where no other group is (the usual issue
        // of a converged warp): its pc alone changes.
        if let Some(i) = self.groups.iter().position(|g| g.1 == running)
            && running == lanes_mask
            && !self.groups.iter().any(|g| g.0 == pc)
        {
            self.groups[i].0 = pc;
            if self.groups.len() > 1 {
                self.groups.sort_unstable_by_key(|g| g.0);
            }
            return;
        }
        for g in &mut self.groups {
            g.1 &= !lanes_mask;
        }
        self.groups.retain(|g| g.1 != 0);
        if running != 0 {
            match self.groups.binary_search_by_key(&pc, |g| g.0) {
                Ok(i) => self.groups[i].1 |= running,
                Err(i) => self.groups.insert(i, (pc, running)),
            }
        }
    }

    pub fn bssy(&mut self, b: u8, lanes_mask: u64, target: u32) {
        self.barriers[usize::from(b)] = ConvBarrier {
            participants: lanes_mask,
            arrived: 0,
            target,
        };
    }

    /// Groups standing at a `BSYNC` or `WARPSYNC` arrive there: their
    /// participating lanes wait. `sync` says what instruction is at a pc.
    pub fn arrive(&mut self, live: u64, sync: impl Fn(u32) -> Option<SyncPoint>) {
        let mut changed = false;
        let mut i = 0;
        while i < self.groups.len() {
            let (pc, lanes_mask) = self.groups[i];
            i += 1;
            match sync(pc) {
                Some(SyncPoint::Bsync(b)) => {
                    let bar = &mut self.barriers[usize::from(b)];
                    let arriving = lanes_mask & bar.participants;
                    bar.arrived |= arriving;
                    for l in lanes(arriving) {
                        self.set_wait(l, LaneWait::Bsync(b));
                        changed = true;
                    }
                }
                Some(SyncPoint::Warpsync(mask)) => {
                    let arriving = lanes_mask & !self.released;
                    for l in lanes(arriving) {
                        self.set_wait(l, LaneWait::Warpsync);
                        self.warpsync_mask[l] = mask;
                        changed = true;
                    }
                }
                None => {}
            }
        }
        if changed {
            self.refresh(live);
        }
    }

    /// `BMOV Bb, mask`: the barrier's lanes become `mask` (lanes waiting
    /// there that `mask` leaves out stay waiting; `mask = 0` empties it).
    pub fn set_barrier(&mut self, b: u8, mask: u64) {
        let bar = &mut self.barriers[usize::from(b)];
        bar.participants = mask;
        bar.arrived &= mask;
    }

    /// `BREAK b`: lanes `on` stop participating.
    pub fn brk(&mut self, b: u8, on: u64) {
        let bar = &mut self.barriers[usize::from(b)];
        bar.participants &= !on;
        bar.arrived &= !on;
    }

    pub fn bar_arrive(&mut self, on: u64) {
        for l in lanes(on) {
            self.set_wait(l, LaneWait::Bar);
        }
    }

    /// Releases the lanes waiting at the block barrier (they move past it).
    pub fn bar_release(&mut self, live: u64) {
        for l in lanes(live & self.waiting_mask) {
            if self.wait[l] == LaneWait::Bar {
                self.set_wait(l, LaneWait::Running);
                self.pc[l] += 1;
            }
        }
    }

    /// Releases every convergence barrier and `WARPSYNC` whose lanes have
    /// all arrived or left: the lanes run again, still at the sync
    /// instruction, which they then issue together. Returns the lanes
    /// released.
    pub fn release(&mut self, live: u64) -> u64 {
        let mut released = 0;
        if live & self.waiting_mask == 0 {
            return 0;
        }
        for b in 0..CONVERGENCE_BARRIERS {
            let bar = self.barriers[b];
            if bar.arrived != 0 && bar.participants & live & !bar.arrived == 0 {
                for l in lanes(live & self.waiting_mask) {
                    if self.wait[l] == LaneWait::Bsync(b as u8) {
                        self.set_wait(l, LaneWait::Running);
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
                self.set_wait(l, LaneWait::Running);
            }
            self.released |= ready;
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

/// Whether issuing `op` under the `its` model moves its group to the next
/// pc and does nothing else to the warp's groups ([`its_control`]'s last
/// arm): every instruction but the control ones.
pub(crate) fn moves_group_only(op: &Op) -> bool {
    !matches!(
        op,
        Op::Bra { .. }
            | Op::Call { .. }
            | Op::Ret { .. }
            | Op::Brx { .. }
            | Op::Break { .. }
            | Op::Exit
            | Op::Bssy { .. }
            | Op::Bsync { .. }
            | Op::Warpsync { .. }
            | Op::BarSync { .. }
    )
}

/// The `its` model's side of issuing: lanes move, groups arrive at and
/// leave convergence barriers, and a warp whose every lane waits at one is
/// a deadlock. Returns whether the warp arrived at a block barrier and
/// whether a branch was taken. Kept out of `issue` so the `stack` model's
/// hot path stays small.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(crate) fn its_control(
    sh: &Shared,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    on: u64,
    active: u64,
    ways: &[(u32, u64)],
    error: &mut Option<RunError>,
    t: u64,
) -> (bool, bool) {
    let code = &sh.code;
    let taken_first = sh.cfg.taken_first;
    let ins = &d.instr;
    let full = w.full();
    let mut bar_arrived = false;
    let mut taken_any = false;
    let Convergence::Its(its) = &mut w.conv else {
        return (false, false);
    };

    let rest = active & !on;
    match ins.op {
        Op::Bra { target, .. } | Op::Call { target } => {
            w.counters.branches += 1;
            taken_any = on != 0;
            if on != 0 && rest != 0 {
                w.counters.divergent_branches += 1;
            }
            let first_taken = if taken_first { on != 0 } else { rest == 0 };
            let first = if first_taken { target } else { pc + 1 };
            if its.branch_group(pc, on, rest, target, w.live, |p| syncs_at(code, p)) {
                its.current = Some(first);
                return (false, taken_any);
            }
            its.set_pc(on, target);
            its.set_pc(rest, pc + 1);
            its.current = Some(first);
        }
        Op::Ret { .. } | Op::Brx { .. } => {
            // Each way is a group; the lanes the guard turned off fall
            // through. The lowest target's group goes first.
            w.counters.branches += 1;
            taken_any = !ways.is_empty();
            if ways.len() + usize::from(rest != 0) > 1 {
                w.counters.divergent_branches += 1;
            }
            for &(target, lanes_mask) in ways {
                its.set_pc(lanes_mask, target);
            }
            its.set_pc(rest, pc + 1);
            its.current = ways
                .first()
                .map(|way| way.0)
                .or((rest != 0).then_some(pc + 1));
        }
        Op::Break { barrier } => {
            w.counters.branches += 1;
            if on != 0 && rest != 0 {
                w.counters.divergent_branches += 1;
            }
            its.brk(barrier, on);
            its.set_pc(active, pc + 1);
            its.current = Some(pc + 1);
        }
        Op::Exit => {
            w.exited |= on;
            w.live &= !on;
            its.set_pc(rest, pc + 1);
            its.current = (rest != 0).then_some(pc + 1);
        }
        Op::Bssy { barrier, target } => {
            its.bssy(barrier, on, target);
            its.set_pc(active, pc + 1);
            its.current = Some(pc + 1);
        }
        Op::Bsync { .. } | Op::Warpsync { .. } => {
            // The lanes arrived (and were released) before
            // issuing: the merged group now moves on.
            its.set_pc(active, pc + 1);
            its.released &= !active;
            its.current = Some(pc + 1);
        }
        Op::BarSync { .. } => {
            its.set_pc(rest, pc + 1);
            its.bar_arrive(on);
            its.current = None;
            // The arrived lanes leave their group now: a group left at the
            // barrier's pc would issue it again once its stall count ran out.
            its.refresh(w.live);
        }
        // The instructions `moves_group_only` holds for, issued where the
        // issue path could not move the group (`ItsState::advance_group`,
        // which does what these general steps would): the general steps.
        _ => {
            let next = pc + 1;
            its.set_pc(active, next);
            its.current = Some(next);
        }
    }
    let live = w.live;
    its.retain_live(live);
    let first = live.trailing_zeros().min(63);
    let sync_at = |pc: u32| sync_point(code, &w.regs, w.width, first, full, pc);
    its.arrive(live, sync_at);
    if its.release(live) != 0 {
        its.refresh(live);
    }
    let at_bar = its.waiting(live, Some(LaneWait::Bar));
    if at_bar != 0 && live & !at_bar == 0 {
        w.at_bar = true;
        bar_arrived = true;
    }
    if live != 0 && its.groups.is_empty() && at_bar == 0 {
        // Name the file lines where the lanes wait.
        let mut lines: Vec<u32> = lanes(live)
            .filter_map(|l| code.get(its.lane_pc(l) as usize))
            .map(|d| sh.kernel.source_line(d.instr.line))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let at: Vec<String> = lines.iter().map(|l| format!("line {l}")).collect();
        *error = Some(RunError::Deadlock {
            cycle: t,
            detail: format!(
                "every lane of warp {} waits at a convergence barrier ({}) that no \
                     other lane can release; check that each BSSY's lanes all reach its \
                     BSYNC or leave with BREAK",
                w.gid,
                at.join(", ")
            ),
        });
    }
    (bar_arrived, taken_any)
}

/// Whether the instruction at `pc` is a sync point (`BSYNC` or
/// `WARPSYNC`), where the lanes of a group may stop: the test the fast
/// moves of a group make before they skip `arrive`.
pub(crate) fn syncs_at(code: &[Decoded], pc: u32) -> bool {
    code.get(pc as usize)
        .is_some_and(|d| is_sync_point(&d.instr.op))
}

/// Whether `op` is a sync point (`BSYNC` or `WARPSYNC`): see [`syncs_at`].
pub(crate) fn is_sync_point(op: &Op) -> bool {
    matches!(op, Op::Bsync { .. } | Op::Warpsync { .. })
}

/// The `its` synchronisation instruction at `pc`, if any. A `WARPSYNC`
/// register mask is read from lane `lane`; an all-ones 32-bit mask means
/// the whole warp (also a 64-lane wavefront).
fn sync_point(
    code: &[Decoded],
    regs: &[u32],
    width: u32,
    lane: u32,
    full: u64,
    pc: u32,
) -> Option<SyncPoint> {
    match code.get(pc as usize)?.instr.op {
        Op::Bsync { barrier } => Some(SyncPoint::Bsync(barrier)),
        Op::Warpsync { mask } => {
            let m = match mask {
                Src::Imm(v) => v,
                Src::Reg(r) => regs
                    .get(usize::from(r.reg) * width as usize + lane as usize)
                    .copied()
                    .unwrap_or(0),
                Src::Const { .. } | Src::UReg(_) => u32::MAX,
            };
            Some(SyncPoint::Warpsync(if m == u32::MAX {
                full
            } else {
                u64::from(m) & full
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state reset for the next warp is the state a launch builds, and
    /// that is what rebuilding the groups of lanes all at pc 0 finds
    /// (the reference: every field by hand, then `refresh`).
    #[test]
    fn a_reset_state_is_a_launched_one() {
        for launched in [0, 0b1, 0b1011, u64::from(u32::MAX), u64::MAX] {
            let mut by_refresh = ItsState {
                pc: [0; 64],
                wait: [LaneWait::Running; 64],
                warpsync_mask: [0; 64],
                released: 0,
                waiting_mask: 0,
                barriers: [ConvBarrier::default(); CONVERGENCE_BARRIERS],
                current: Some(0),
                groups: Vec::new(),
            };
            by_refresh.refresh(launched);
            assert_eq!(ItsState::new(launched), by_refresh, "{launched:#x}");
            // A used state: split, a barrier set, lanes waiting.
            let mut used = ItsState::new(u64::MAX);
            used.bssy(1, u64::MAX, 7);
            used.set_pc(0xff, 3);
            used.set_pc(0xff00, 7);
            used.refresh(u64::MAX);
            used.arrive(u64::MAX, |pc| (pc == 7).then_some(SyncPoint::Bsync(1)));
            used.released = 0b100;
            assert_ne!(used, by_refresh);
            used.reset(launched);
            assert_eq!(used, by_refresh, "{launched:#x}");
            assert_eq!(used.lane_pc(9), 0);
        }
    }

    /// Eight lanes: 0-3 at pc 4, 4-7 at pc `other` (one group when it is 4).
    fn split(other: u32) -> ItsState {
        let mut s = ItsState::new(0xff);
        s.set_pc(0x0f, 4);
        s.set_pc(0xf0, other);
        s.refresh(0xff);
        s
    }

    /// Eight lanes: `at_sync` at a `BSYNC B0` at pc 9, whose barrier
    /// `participants` take part in (those of them there wait), the others
    /// running at pc 4.
    fn at_bsync(participants: u64, at_sync: u64) -> ItsState {
        let mut s = ItsState::new(0xff);
        s.bssy(0, participants, 9);
        s.set_pc(at_sync, 9);
        s.set_pc(0xff & !at_sync, 4);
        s.refresh(0xff);
        s.arrive(0xff, |pc| (pc == 9).then_some(SyncPoint::Bsync(0)));
        s
    }

    /// Lanes 0-3 wait at the `BSYNC` at pc 9; 4-7 run at pc 4.
    fn waiting() -> ItsState {
        at_bsync(0xff, 0x0f)
    }

    /// The general steps that follow an issue's moves (`retain_live`,
    /// `arrive` with a `BSYNC B0` at `bsync`, `release`, which frees
    /// nothing here) taken on `general`, and `fast` held to the result and
    /// to the groups worked out by hand, `after`.
    fn same_as_the_general_steps(
        fast: &ItsState,
        mut general: ItsState,
        live: u64,
        bsync: Option<u32>,
        after: &[(u32, u64)],
        case: usize,
    ) {
        general.retain_live(live);
        general.arrive(live, |p| (Some(p) == bsync).then_some(SyncPoint::Bsync(0)));
        assert_eq!(general.release(live), 0, "case {case}");
        assert_eq!(*fast, general, "case {case}");
        assert_eq!(fast.groups, after, "case {case}");
    }

    /// Whenever the move of one group applies, it leaves the state the
    /// general steps of an ordinary issue leave (the reference: those
    /// steps, run on a copy, with the same sync points); otherwise it
    /// changes nothing.
    #[test]
    fn a_group_move_is_the_general_one() {
        // Lanes 4-7 stand at a BSYNC at pc 9 whose barrier they are not in:
        // they do not wait there.
        let passing = || at_bsync(0x0f, 0xf0);
        // (state, pc, active, live, the BSYNC's pc, applies, groups after)
        let cases = [
            (
                ItsState::new(0xff),
                0,
                0xff,
                0xff,
                None,
                true,
                vec![(1, 0xff)],
            ),
            (ItsState::new(0xff), 0, 0xff, 0xff, Some(1), false, vec![]),
            // A lane of the group faulted: it leaves the group.
            (ItsState::new(0xff), 0, 0xff, 0x7f, None, false, vec![]),
            // A lane of another group is gone.
            (split(0), 0, 0xf0, 0xfe, None, false, vec![]),
            // Not a group at that pc, or not all of it.
            (ItsState::new(0xff), 3, 0xff, 0xff, None, false, vec![]),
            (ItsState::new(0xff), 0, 0x0f, 0xff, None, false, vec![]),
            // One of two groups moves, staying in pc order...
            (
                split(0),
                0,
                0xf0,
                0xff,
                None,
                true,
                vec![(1, 0xf0), (4, 0x0f)],
            ),
            (
                split(0),
                4,
                0x0f,
                0xff,
                None,
                true,
                vec![(0, 0xf0), (5, 0x0f)],
            ),
            // ...or meets the other and merges.
            (split(3), 3, 0xf0, 0xff, None, true, vec![(4, 0xff)]),
            // Lanes wait at a BSYNC; another group stands at one.
            (waiting(), 4, 0xf0, 0xff, Some(9), false, vec![]),
            (passing(), 4, 0x0f, 0xff, Some(9), false, vec![]),
        ];
        for (i, (state, pc, active, live, bsync, applies, after)) in cases.into_iter().enumerate() {
            let syncs = |p: u32| Some(p) == bsync;
            let mut fast = state.clone();
            assert_eq!(
                fast.advance_group(pc, active, live, syncs(pc + 1), syncs),
                applies,
                "case {i}"
            );
            if !applies {
                assert_eq!(fast, state, "case {i}");
                continue;
            }
            let mut general = state.clone();
            general.set_pc(active, pc + 1);
            general.current = Some(pc + 1);
            same_as_the_general_steps(&fast, general, live, bsync, &after, i);
        }
    }

    /// Whenever the branch of one group applies, it leaves the groups the
    /// general steps of a branch leave (the reference: `set_pc` for each
    /// side, then `retain_live`, `arrive` and `release`, run on a copy with
    /// the same sync points); otherwise it changes nothing. The groups
    /// after are worked out by hand.
    #[test]
    fn a_group_branch_is_the_general_one() {
        // (state, pc, on, rest, target, live, the BSYNC's pc, applies,
        // groups after)
        let cases = [
            // One group splits: taken lanes back to 0, the rest on to 5.
            (
                split(4),
                4,
                0x33,
                0xcc,
                0,
                0xff,
                None,
                true,
                vec![(0, 0x33), (5, 0xcc)],
            ),
            // Every lane takes it, or none does.
            (split(4), 4, 0xff, 0, 2, 0xff, None, true, vec![(2, 0xff)]),
            (split(4), 4, 0, 0xff, 2, 0xff, None, true, vec![(5, 0xff)]),
            // A branch to the next instruction: both sides meet there.
            (
                split(4),
                4,
                0x0f,
                0xf0,
                5,
                0xff,
                None,
                true,
                vec![(5, 0xff)],
            ),
            // A branch to itself.
            (
                split(4),
                4,
                0x01,
                0xfe,
                4,
                0xff,
                None,
                true,
                vec![(4, 0x01), (5, 0xfe)],
            ),
            // One of two groups branches; each side may merge with the
            // other group or stand alone, and the groups stay in pc order.
            (
                split(1),
                4,
                0x03,
                0x0c,
                1,
                0xff,
                None,
                true,
                vec![(1, 0xf3), (5, 0x0c)],
            ),
            (
                split(5),
                4,
                0x03,
                0x0c,
                9,
                0xff,
                None,
                true,
                vec![(5, 0xfc), (9, 0x03)],
            ),
            (
                split(7),
                4,
                0x03,
                0x0c,
                2,
                0xff,
                None,
                true,
                vec![(2, 0x03), (5, 0x0c), (7, 0xf0)],
            ),
            // A sync point where the taken lanes go, where the others go,
            // or where another group stands: the general steps.
            (split(4), 4, 0x0f, 0xf0, 9, 0xff, Some(9), false, vec![]),
            (split(4), 4, 0x0f, 0xf0, 9, 0xff, Some(5), false, vec![]),
            (split(7), 4, 0x03, 0x0c, 2, 0xff, Some(7), false, vec![]),
            // But not where no lane goes.
            (
                split(4),
                4,
                0,
                0xff,
                9,
                0xff,
                Some(9),
                true,
                vec![(5, 0xff)],
            ),
            // A lane gone, in the group or in another.
            (split(4), 4, 0x0f, 0xf0, 0, 0x7f, None, false, vec![]),
            (split(7), 4, 0x03, 0x0c, 0, 0x7f, None, false, vec![]),
            // Not a group at that pc, or not all of it; lanes waiting.
            (split(7), 3, 0x03, 0x0c, 0, 0xff, None, false, vec![]),
            (split(7), 4, 0x03, 0x04, 0, 0xff, None, false, vec![]),
            (waiting(), 4, 0x30, 0xc0, 0, 0xff, Some(9), false, vec![]),
        ];
        for (i, (state, pc, on, rest, target, live, bsync, applies, after)) in
            cases.into_iter().enumerate()
        {
            let syncs = |p: u32| Some(p) == bsync;
            let mut fast = state.clone();
            assert_eq!(
                fast.branch_group(pc, on, rest, target, live, syncs),
                applies,
                "case {i}"
            );
            if !applies {
                assert_eq!(fast, state, "case {i}");
                continue;
            }
            let first = if on != 0 { target } else { pc + 1 };
            fast.current = Some(first);
            let mut general = state.clone();
            general.set_pc(on, target);
            general.set_pc(rest, pc + 1);
            general.current = Some(first);
            same_as_the_general_steps(&fast, general, live, bsync, &after, i);
        }
    }

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
    fn bsync_waits_for_every_participant_without_issuing() {
        // BSYNC B0 at pc 9.
        let sync = |pc: u32| (pc == 9).then_some(SyncPoint::Bsync(0));
        let mut s = ItsState::new(0b1111);
        s.bssy(0, 0b1111, 9);
        s.set_pc(0b0011, 9);
        s.set_pc(0b1100, 5);
        s.refresh(0b1111);
        s.arrive(0b1111, sync);
        assert_eq!(s.groups, vec![(5, 0b1100)]);
        assert_eq!(s.release(0b1111), 0);
        s.set_pc(0b1100, 9);
        s.refresh(0b1111);
        s.arrive(0b1111, sync);
        assert_eq!(s.release(0b1111), 0b1111);
        s.refresh(0b1111);
        // Released at the BSYNC, which the merged group now issues once;
        // the barrier is spent, so they do not arrive again.
        assert_eq!(s.groups, vec![(9, 0b1111)]);
        s.arrive(0b1111, sync);
        assert_eq!(s.groups, vec![(9, 0b1111)]);
    }

    #[test]
    fn break_and_exit_release_a_barrier() {
        let sync = |pc: u32| (pc == 4).then_some(SyncPoint::Bsync(1));
        let mut s = ItsState::new(0b111);
        s.bssy(1, 0b111, 4);
        s.set_pc(0b001, 4);
        s.refresh(0b111);
        s.arrive(0b111, sync);
        s.brk(1, 0b010);
        assert_eq!(s.release(0b111), 0);
        // Lane 2 exits: everyone left has arrived.
        assert_eq!(s.release(0b011), 0b001);
    }

    #[test]
    fn every_lane_reads_its_own_pc_however_its_group_moved() {
        let pcs = |s: &ItsState| (0..4).map(|l| s.lane_pc(l)).collect::<Vec<_>>();
        // Four lanes at 0 move together to 3 (the group's pc alone moves),
        // then lanes 0 and 1 branch to 7.
        let mut s = ItsState::new(0b1111);
        s.set_pc(0b1111, 3);
        assert_eq!(pcs(&s), [3, 3, 3, 3]);
        s.set_pc(0b0011, 7);
        assert_eq!(s.groups, vec![(3, 0b1100), (7, 0b0011)]);
        // Lanes 2 and 3 reach a block barrier at 3: they keep that pc
        // while waiting, and the groups are rebuilt without them.
        s.bar_arrive(0b1100);
        s.refresh(0b1111);
        assert_eq!(s.groups, vec![(7, 0b0011)]);
        s.set_pc(0b0011, 8);
        assert_eq!(pcs(&s), [8, 8, 3, 3]);
        // Lane 1 exits at 8: it stays there once its group moves on.
        s.retain_live(0b1101);
        s.set_pc(0b0001, 9);
        assert_eq!(pcs(&s), [9, 8, 3, 3]);
        // The barrier releases its lanes past it, to 4; rebuilt, the
        // groups are the lanes' pcs.
        s.bar_release(0b1101);
        s.refresh(0b1101);
        assert_eq!(pcs(&s), [9, 8, 4, 4]);
        assert_eq!(s.groups, vec![(4, 0b1100), (9, 0b0001)]);
        // Equal states: the same pc for every lane, however reached.
        let mut t = ItsState::new(0b1111);
        t.set_pc(0b1111, 3);
        let mut u = ItsState::new(0b1111);
        u.set_pc(0b0011, 3);
        u.set_pc(0b1100, 3);
        assert_eq!(t, u);
    }

    #[test]
    fn warpsync_releases_when_its_mask_arrived() {
        let sync = |pc: u32| (pc == 3).then_some(SyncPoint::Warpsync(0b11));
        let mut s = ItsState::new(0b11);
        s.set_pc(0b01, 3);
        s.refresh(0b11);
        s.arrive(0b11, sync);
        assert_eq!(s.release(0b11), 0);
        s.set_pc(0b10, 3);
        s.refresh(0b11);
        s.arrive(0b11, sync);
        assert_eq!(s.release(0b11), 0b11);
        s.refresh(0b11);
        s.arrive(0b11, sync);
        assert_eq!(s.groups, vec![(3, 0b11)]);
    }
}
