//! Hazards: explicit control codes that let an instruction read a register
//! before its producer's result landed, or overwrite one a store is still
//! reading. Checked at issue when the program wrote its own codes (or when
//! asked); the run follows the codes, as hardware would, and records each
//! hazard once per pc, register and kind.

use super::convergence;
use super::link::Decoded;
use super::records::{Hazard, HazardKind, MAX_RECORDS};
use super::warp::Warp;
use crate::asm::ir::{Op, PRED_BASE, UREG_BASE};

/// Records a hazard when the instruction at `pc` reads a register before
/// its latest write lands, or writes one a store is still reading.
pub(crate) fn check_hazards_at(
    hazards: &mut Vec<Hazard>,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    active: u64,
    t: u64,
) {
    let n = w.width as usize;
    let ins = &d.instr;
    let on = active & w.pred_mask(ins.guard);
    let guard = (!ins.guard.is_always_true() && ins.guard.index < 7)
        .then_some(PRED_BASE + u16::from(ins.guard.index));
    let first_late = |rows: &[u64], r: u16, lanes_mask: u64| -> Option<(u64, u32)> {
        // Uniform registers and predicates have no per-lane rows.
        if r >= UREG_BASE {
            return None;
        }
        let row = rows.get(hazard_row(rows.len() / n.max(1), r) * n..)?;
        if row.len() < n {
            return None;
        }
        convergence::its::lanes(lanes_mask)
            .find(|&l| row[l] > t)
            .map(|l| (row[l] - t, l as u32))
    };
    // Every active lane reads the guard; only lanes that are on read
    // the sources and write the results.
    let mut found = None;
    for &r in &ins.uses {
        let lanes_mask = if Some(r) == guard { active } else { on };
        if let Some((early, lane)) = first_late(&w.ready_at, r, lanes_mask) {
            found = Some((r, HazardKind::ReadAfterWrite, early, lane));
            break;
        }
    }
    if found.is_none() {
        for &r in &ins.defs {
            if let Some((early, lane)) = first_late(&w.read_until, r, on) {
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
pub(crate) fn record_writes(
    hazards: &mut Vec<Hazard>,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    on: u64,
    t: u64,
    latency: u32,
) {
    let n = w.width as usize;
    let ins = &d.instr;
    let lands = t + u64::from(latency);
    let rows = w.ready_at.len() / n.max(1);
    let mut waw: Option<(u16, u64, u32)> = None;
    for &r in ins.defs.iter().filter(|&&r| r < UREG_BASE) {
        let base = hazard_row(rows, r) * n;
        for l in convergence::its::lanes(on) {
            let Some(slot) = w.ready_at.get_mut(base + l) else {
                continue;
            };
            if *slot > lands && waw.is_none() {
                waw = Some((r, *slot - lands, l as u32));
            }
            *slot = lands;
        }
    }
    if matches!(ins.op, Op::Stg { .. } | Op::Sts { .. }) {
        let done = t + u64::from(d.read_latency);
        for &r in ins.uses.iter().filter(|&&r| r < PRED_BASE) {
            let base = hazard_row(rows, r) * n;
            for l in convergence::its::lanes(on) {
                if let Some(x) = w.read_until.get_mut(base + l) {
                    *x = done;
                }
            }
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
