//! Hazards: explicit control codes that let an instruction read a register
//! before its producer's result landed, or overwrite one a store is still
//! reading. Checked at issue when the program wrote its own codes (or when
//! asked); the run follows the codes, as hardware would, and records each
//! hazard once per pc, register and kind.

use super::link::Decoded;
use super::records::{Hazard, HazardKind, MAX_RECORDS};
use super::warp::Warp;
use crate::asm::ir::{Op, PRED_BASE, UREG_BASE};

/// A warp's hazard tables: per lane and register (then predicate), the
/// cycle its latest write lands ([`Table::Ready`]) and the cycle a store
/// finishes reading it ([`Table::Read`]).
///
/// A row is *uniform* while every lane holds the same cycle, its peak: the
/// usual case, since a converged issue writes every lane. A uniform row
/// keeps that one number and no lane values; only a write to some lanes
/// spells the row out lane by lane, and a later write to every lane makes
/// it uniform again. A warp starts with every row uniform at zero (ready
/// since before the launch), so launching one zeroes a number a row, not
/// both tables, and a warp reuses a finished one's tables.
#[derive(Debug, Clone, Default)]
pub struct HazardTables {
    /// Lanes per row.
    width: usize,
    /// `Table::Ready` then `Table::Read`, row after row of `width` lanes;
    /// a uniform row's lanes hold nothing meaningful.
    cells: [Vec<u64>; 2],
    /// Per table and row: no lane of the row holds a later cycle, and a
    /// uniform row's every lane holds this one.
    peak: [Vec<u64>; 2],
    /// Per table, bit `r`: row `r` is uniform.
    uniform: [Vec<u64>; 2],
    /// Per table: no row holds a later cycle (so nothing is late at or
    /// after it).
    latest: [u64; 2],
}

/// Which of a warp's two hazard tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    /// When each lane's latest write of the register lands.
    Ready = 0,
    /// When a store finishes reading the register in each lane.
    Read = 1,
}

/// One row of a table as [`HazardTables::later_than`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row<'a> {
    /// Every lane holds this cycle.
    Uniform(u64),
    /// Each lane's own cycle.
    Lanes(&'a [u64]),
}

impl Row<'_> {
    /// Lane `l`'s cycle.
    fn at(self, l: usize) -> u64 {
        match self {
            Row::Uniform(v) => v,
            Row::Lanes(cells) => cells.get(l).copied().unwrap_or(0),
        }
    }
}

impl HazardTables {
    /// Empty tables: nothing is checked.
    pub fn none() -> Self {
        Self::default()
    }

    /// Tables for `regs` registers and the 8 predicates of a `width`-lane
    /// warp, every row uniform at zero; `old`'s allocations are reused.
    pub fn new(mut old: HazardTables, regs: usize, width: usize) -> Self {
        let rows = regs + 8;
        for t in 0..2 {
            // Lanes of uniform rows are never read: no zeroing.
            old.cells[t].resize(rows * width, 0);
            old.peak[t].clear();
            old.peak[t].resize(rows, 0);
            old.uniform[t].clear();
            old.uniform[t].resize(rows.div_ceil(64), u64::MAX);
        }
        HazardTables {
            width,
            latest: [0; 2],
            ..old
        }
    }

    /// No lane of any row of `table` holds a cycle past `t`.
    fn quiet(&self, table: Table, t: u64) -> bool {
        self.latest[table as usize] <= t
    }

    fn rows(&self) -> usize {
        self.peak[0].len()
    }

    fn is_uniform(&self, tab: usize, row: usize) -> bool {
        self.uniform[tab]
            .get(row / 64)
            .is_some_and(|b| b >> (row % 64) & 1 != 0)
    }

    fn mark_uniform(&mut self, tab: usize, row: usize, uniform: bool) {
        if let Some(b) = self.uniform[tab].get_mut(row / 64) {
            let bit = 1 << (row % 64);
            if uniform { *b |= bit } else { *b &= !bit }
        }
    }

    /// Every lane of a row: at most 64.
    fn all_lanes(&self) -> u64 {
        crate::engine::warp::lane_mask(self.width.min(64) as u32)
    }

    /// The lanes of `row` in `table` that hold a cycle past `t` (none when
    /// no lane does), with the row's values.
    fn later_than(&self, table: Table, row: usize, t: u64) -> Option<(u64, Row<'_>)> {
        let tab = table as usize;
        let peak = *self.peak[tab].get(row)?;
        if peak <= t {
            return None;
        }
        if self.is_uniform(tab, row) {
            return Some((self.all_lanes(), Row::Uniform(peak)));
        }
        let cells = self.cells[tab].get(row * self.width..(row + 1) * self.width)?;
        let late = cells
            .iter()
            .take(64)
            .enumerate()
            .fold(0, |m, (l, &v)| m | u64::from(v > t) << l);
        Some((late, Row::Lanes(cells)))
    }

    /// The first lane of `lanes` whose value in `row` of `table` is past
    /// `t`, and by how much.
    fn first_late(&self, table: Table, row: usize, t: u64, lanes: u64) -> Option<(u64, u32)> {
        let (late, cells) = self.later_than(table, row, t)?;
        let late = late & lanes;
        let l = late.trailing_zeros() as usize;
        (late != 0).then(|| (cells.at(l) - t, l as u32))
    }

    /// Sets the lanes of `lanes` in `row` of `table` to `v`. `live` are
    /// the lanes that may still read the row (a lane that exited never
    /// does): a write to all of them leaves the row uniform.
    #[inline(always)]
    fn set(&mut self, table: Table, row: usize, lanes: u64, v: u64, live: u64) {
        let tab = table as usize;
        let all = self.all_lanes();
        let live = live & all;
        if lanes & live == live && row < self.rows() {
            // Every lane that may read it (the usual converged issue): the
            // row is uniform. (A row inside the tables has its cells.)
            self.latest[tab] = self.latest[tab].max(v);
            self.peak[tab][row] = v;
            self.mark_uniform(tab, row, true);
            return;
        }
        self.set_some(tab, row, lanes & all, v);
    }

    /// [`Self::set`] for a write that leaves some lane that may read the
    /// row (`lanes` within the row's lanes) holding its own cycle.
    #[inline(never)]
    fn set_some(&mut self, tab: usize, row: usize, lanes: u64, v: u64) {
        let span = row * self.width..(row + 1) * self.width;
        if row >= self.rows() || self.cells[tab].get(span.clone()).is_none() {
            return;
        }
        self.latest[tab] = self.latest[tab].max(v);
        if lanes == 0 {
            return;
        }
        let peak = self.peak[tab][row];
        if self.is_uniform(tab, row) {
            // Spelled out lane by lane from here.
            self.cells[tab][span.clone()].fill(peak);
            self.mark_uniform(tab, row, false);
        }
        let cells = &mut self.cells[tab][span];
        let mut rest = lanes;
        while rest != 0 {
            cells[rest.trailing_zeros() as usize] = v;
            rest &= rest - 1;
        }
        self.peak[tab][row] = peak.max(v);
    }
}

/// Records a hazard when the instruction at `pc` reads a register before
/// its latest write lands, or writes one a store is still reading.
#[inline(always)]
pub(crate) fn check_hazards_at(
    hazards: &mut Vec<Hazard>,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    active: u64,
    t: u64,
) {
    let tables = &w.hazards;
    if tables.quiet(Table::Ready, t) && tables.quiet(Table::Read, t) {
        // Every write landed and every store finished reading.
        return;
    }
    check_rows(hazards, w, d, pc, active, t);
}

/// [`check_hazards_at`] once some write is still to land or some store
/// still reading: the rows the instruction reads and writes.
#[inline(never)]
fn check_rows(hazards: &mut Vec<Hazard>, w: &mut Warp, d: &Decoded, pc: u32, active: u64, t: u64) {
    let ins = &d.instr;
    let tables = &w.hazards;
    let on = active & w.pred_mask(ins.guard);
    let guard = (!ins.guard.is_always_true() && ins.guard.index < 7)
        .then_some(PRED_BASE + u16::from(ins.guard.index));
    let rows = tables.rows();
    let first_late = |table: Table, r: u16, lanes_mask: u64| -> Option<(u64, u32)> {
        // Uniform registers and predicates have no per-lane rows.
        if r >= UREG_BASE {
            return None;
        }
        tables.first_late(table, hazard_row(rows, r), t, lanes_mask)
    };
    // Every active lane reads the guard; only lanes that are on read
    // the sources and write the results.
    let mut found = None;
    for &r in &ins.uses {
        let lanes_mask = if Some(r) == guard { active } else { on };
        if let Some((early, lane)) = first_late(Table::Ready, r, lanes_mask) {
            found = Some((r, HazardKind::ReadAfterWrite, early, lane));
            break;
        }
    }
    if found.is_none() {
        for &r in &ins.defs {
            if let Some((early, lane)) = first_late(Table::Read, r, on) {
                found = Some((r, HazardKind::WriteAfterRead, early, lane));
                break;
            }
        }
    }
    if let Some((r, kind, early_by, lane)) = found {
        push_hazard(hazards, w.gid, lane, pc, ins.line, r, kind, early_by, t);
    }
}

/// Counts a hazard at `pc`, recording the first of each kind and register.
/// Out of line: a program following its codes never gets here, and the
/// issue path stays small.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn push_hazard(
    hazards: &mut Vec<Hazard>,
    warp: u32,
    lane: u32,
    pc: u32,
    line: u32,
    r: u16,
    kind: HazardKind,
    early_by: u64,
    t: u64,
) {
    let register = if r >= PRED_BASE {
        format!("P{}", r - PRED_BASE)
    } else {
        format!("R{r}")
    };
    if let Some(h) = hazards
        .iter_mut()
        .find(|h| h.pc == pc && h.register == register && h.kind == kind)
    {
        h.count += 1;
        return;
    }
    if hazards.len() < MAX_RECORDS {
        hazards.push(Hazard {
            warp,
            lane,
            pc,
            line,
            register,
            kind,
            early_by,
            cycle: t,
            count: 1,
        });
    }
}

/// Records when this instruction's writes land and its reads finish.
#[inline(always)]
pub(crate) fn record_writes(
    hazards: &mut Vec<Hazard>,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    on: u64,
    t: u64,
    latency: u32,
) {
    let ins = &d.instr;
    let lands = t + u64::from(latency);
    let live = w.live;
    let tables = &mut w.hazards;
    let rows = tables.rows();
    let mut waw: Option<(u16, u64, u32)> = None;
    for &r in ins.defs.iter().filter(|&&r| r < UREG_BASE) {
        let row = hazard_row(rows, r);
        if waw.is_none()
            && !tables.quiet(Table::Ready, lands)
            && let Some((early_by, lane)) = tables.first_late(Table::Ready, row, lands, on)
        {
            waw = Some((r, early_by, lane));
        }
        tables.set(Table::Ready, row, on, lands, live);
    }
    if matches!(ins.op, Op::Stg { .. } | Op::Sts { .. }) {
        let done = t + u64::from(d.read_latency);
        for &r in ins.uses.iter().filter(|&&r| r < PRED_BASE) {
            tables.set(Table::Read, hazard_row(rows, r), on, done, live);
        }
    }
    if let Some((r, early_by, lane)) = waw {
        push_hazard(
            hazards,
            w.gid,
            lane,
            pc,
            ins.line,
            r,
            HazardKind::WriteAfterWrite,
            early_by,
            t,
        );
    }
}

/// The row of register or predicate `r` in a warp's hazard tables, which
/// hold `rows - 8` registers and then the predicates.
fn hazard_row(rows: usize, r: u16) -> usize {
    let regs = rows.saturating_sub(8);
    if r < PRED_BASE {
        usize::from(r)
    } else {
        regs + usize::from(r - PRED_BASE)
    }
}

#[cfg(test)]
mod tests {
    use super::{HazardTables, Row, Table};

    const LOW: u64 = 0x0000_ffff;
    const HIGH: u64 = 0xffff_0000;
    const ALL: u64 = 0xffff_ffff;

    /// Tables of a warp that ran before: every row of R0..R3 written
    /// with cycle 900 in all 32 lanes of both tables.
    fn used() -> HazardTables {
        let mut t = HazardTables::new(HazardTables::none(), 4, 32);
        for row in 0..4 {
            t.set(Table::Ready, row, ALL, 900, ALL);
            t.set(Table::Read, row, ALL, 900, ALL);
        }
        t
    }

    #[test]
    fn reused_tables_read_zero_until_written_and_then_only_where_written() {
        let mut t = HazardTables::new(used(), 4, 32);
        // Never written by the new warp: nothing is late, even at cycle 0.
        assert_eq!(t.later_than(Table::Ready, 1, 0), None);
        assert_eq!(t.later_than(Table::Read, 1, 0), None);
        // Lanes 0..15 of R1 land at 1000; lanes 16..31 keep zero, not the
        // 900 the last warp left, in both tables.
        t.set(Table::Ready, 1, LOW, 1000, ALL);
        assert_eq!(t.later_than(Table::Ready, 1, 10).map(|l| l.0), Some(LOW));
        assert_eq!(t.later_than(Table::Read, 1, 0), None);
        t.set(Table::Read, 1, 1 << 20, 1000, ALL);
        assert_eq!(t.later_than(Table::Read, 1, 10).map(|l| l.0), Some(1 << 20));
    }

    #[test]
    fn an_earlier_write_to_some_lanes_keeps_the_later_ones_late() {
        let mut t = HazardTables::new(HazardTables::none(), 4, 32);
        t.set(Table::Ready, 2, LOW, 500, ALL);
        t.set(Table::Ready, 2, HIGH, 100, ALL);
        // At 200 the high lanes are ready and the low ones land at 500.
        let (late, cells) = t.later_than(Table::Ready, 2, 200).expect("late");
        assert_eq!(late, LOW);
        assert_eq!((cells.at(0), cells.at(31)), (500, 100));
        assert_eq!(t.later_than(Table::Ready, 2, 500), None);
    }

    #[test]
    fn a_row_written_in_every_live_lane_is_one_cycle_until_some_lanes_differ() {
        // Cycles worked by hand from the writes.
        let mut t = HazardTables::new(used(), 4, 32);
        t.set(Table::Ready, 0, ALL, 300, ALL);
        assert_eq!(
            t.later_than(Table::Ready, 0, 299),
            Some((ALL, Row::Uniform(300)))
        );
        assert_eq!(t.later_than(Table::Ready, 0, 300), None);
        // Half the lanes land later: the row is spelled out, the other
        // half keeps 300.
        t.set(Table::Ready, 0, LOW, 500, ALL);
        let (late, cells) = t.later_than(Table::Ready, 0, 400).expect("late");
        assert_eq!((late, cells.at(0), cells.at(31)), (LOW, 500, 300));
        assert_eq!(t.first_late(Table::Ready, 0, 299, HIGH), Some((1, 16)));
        // Every lane again, earlier than the last: one cycle, 200.
        t.set(Table::Ready, 0, ALL, 200, ALL);
        assert_eq!(t.later_than(Table::Ready, 0, 200), None);
        assert_eq!(t.first_late(Table::Ready, 0, 150, ALL), Some((50, 0)));
        // Lanes 16..31 exited: a write to 0..15 covers every lane that
        // can still read the row.
        t.set(Table::Ready, 1, LOW, 700, LOW);
        assert_eq!(t.first_late(Table::Ready, 1, 600, LOW), Some((100, 0)));
        // Lanes 0..7 land later still; 8..15 keep 700.
        t.set(Table::Ready, 1, 0xff, 800, LOW);
        assert_eq!(t.first_late(Table::Ready, 1, 750, LOW), Some((50, 0)));
        assert_eq!(t.first_late(Table::Ready, 1, 750, 0xff00), None);
        assert_eq!(t.first_late(Table::Ready, 1, 650, 0xff00), Some((50, 8)));
        // The other table never moved.
        assert_eq!(t.later_than(Table::Read, 0, 0), None);
        // The latest cycle of any row: 800 (R1's lanes 0..7); nothing in
        // the read table.
        assert!(!t.quiet(Table::Ready, 799));
        assert!(t.quiet(Table::Ready, 800));
        assert!(t.quiet(Table::Read, 0));
        // A reused warp's tables start quiet.
        assert!(HazardTables::new(t, 4, 32).quiet(Table::Ready, 0));
    }

    #[test]
    fn rows_past_the_tables_are_never_late() {
        let mut t = HazardTables::new(HazardTables::none(), 4, 32);
        // 4 registers and 8 predicates: row 12 does not exist.
        t.set(Table::Ready, 12, LOW, 1000, ALL);
        assert_eq!(t.later_than(Table::Ready, 12, 0), None);
        assert_eq!(t.rows(), 12);
    }
}
