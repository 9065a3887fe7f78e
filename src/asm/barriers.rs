//! A load-time check on convergence barrier registers: `BSYNC`, `BREAK`
//! and `BMOV Rd, Bn` read barrier `Bn`, so some path from the start must
//! set it first, with `BSSY Bn` or `BMOV Bn, Ra`. A read that no path
//! reaches set is an error at its line.
//!
//! `BMOV.32.CLEAR RZ, Bn` reads nothing (its result is discarded: it
//! only empties the barrier), so it needs no set before it: nvcc for
//! sm_75 clears each barrier that way just before its `BSSY`. Code that
//! no path from the start reaches (the padding after the last branch) is
//! not checked.

use super::AsmError;
use super::cfg::Cfg;
use super::ir::{Instr, Op, RZ};

/// The barrier an instruction sets (`BSSY Bn`, `BMOV Bn, Ra`), if any.
fn sets(op: &Op) -> Option<u8> {
    match *op {
        Op::Bssy { barrier, .. } => Some(barrier),
        Op::Bmov {
            barrier,
            to_barrier: true,
            ..
        } => Some(barrier),
        _ => None,
    }
}

/// The barrier an instruction reads, if any.
fn reads(op: &Op) -> Option<u8> {
    match *op {
        Op::Bsync { barrier } | Op::Break { barrier } => Some(barrier),
        Op::Bmov {
            barrier,
            to_barrier: false,
            d,
            clear,
            ..
        } if !(clear && d == RZ) => Some(barrier),
        _ => None,
    }
}

fn bit(b: u8) -> u64 {
    1u64.checked_shl(u32::from(b)).unwrap_or(0)
}

/// Errors on the first instruction (in program order) that reads a
/// barrier no path from the start has set.
pub(super) fn check(instrs: &[Instr], cfg: &Cfg) -> Result<(), AsmError> {
    let nb = cfg.blocks.len();
    // May-set barriers on entry to each block (union over the paths
    // reaching it); `None`: no path reaches the block.
    let mut entry: Vec<Option<u64>> = vec![None; nb];
    if nb == 0 {
        return Ok(());
    }
    entry[0] = Some(0);
    let out_of = |b: usize, mut set: u64| {
        let (start, end) = cfg.blocks[b];
        for i in &instrs[start as usize..end as usize] {
            if let Some(x) = sets(&i.op) {
                set |= bit(x);
            }
        }
        set
    };
    let mut work: Vec<usize> = vec![0];
    while let Some(b) = work.pop() {
        let Some(set) = entry[b] else { continue };
        let out = out_of(b, set);
        for &s in &cfg.succs[b] {
            if s >= nb {
                continue;
            }
            let next = entry[s].unwrap_or(0) | out;
            if entry[s] != Some(next) {
                entry[s] = Some(next);
                work.push(s);
            }
        }
    }
    for (b, &(start, end)) in cfg.blocks.iter().enumerate() {
        let Some(mut set) = entry[b] else { continue };
        for i in &instrs[start as usize..end as usize] {
            if let Some(x) = reads(&i.op)
                && set & bit(x) == 0
            {
                return Err(AsmError {
                    line: i.line,
                    column: i.column,
                    len: (i.text.chars().count() as u32).max(1),
                    message: format!(
                        "`{}` reads convergence barrier B{x}, which nothing sets before it",
                        i.mnemonic
                    ),
                    expected: Some(format!("a `BSSY B{x}, label` on the way here")),
                    hint: Some(format!(
                        "set B{x} with `BSSY B{x}, label` (or `BMOV.32 B{x}, Ra`) on every path \
                         that reaches this instruction"
                    )),
                });
            }
            if let Some(x) = sets(&i.op) {
                set |= bit(x);
            }
        }
    }
    Ok(())
}
