//! Control codes for instructions written without one, derived the way a
//! compiler would:
//!
//! - a scoreboard for each variable-latency producer (its result) and each
//!   store (its source operands, as a read barrier), assigned round robin
//!   over the six in program order, so scoreboards are recycled as on real
//!   hardware;
//! - wait masks on consumers (read after write, write after write, and
//!   write after read of a store's sources), found by a data-flow pass over
//!   the control-flow graph so a dependence across a branch is covered;
//! - stall counts that cover fixed-latency dependences inside a basic block,
//!   and at a block's end cover every fixed-latency result still in flight
//!   (successor blocks then start with nothing pending).
//!
//! Instructions with a written control code keep it; their scoreboards take
//! part in the data flow as written.

use super::cfg::Cfg;
use super::ir::{Class, Instr, Op, PRED_BASE, RESOURCES, Resource, SCOREBOARDS};

/// Pending scoreboards per resource at a program point.
#[derive(Clone, PartialEq, Eq)]
struct Pending {
    /// Scoreboards whose producer will write the resource.
    write: Vec<u8>,
    /// Scoreboards whose store still has to read the register.
    read: Vec<u8>,
}

impl Pending {
    fn empty() -> Self {
        Pending {
            write: vec![0; RESOURCES],
            read: vec![0; RESOURCES],
        }
    }

    fn join(&mut self, other: &Pending) {
        for (a, b) in self.write.iter_mut().zip(&other.write) {
            *a |= b;
        }
        for (a, b) in self.read.iter_mut().zip(&other.read) {
            *a |= b;
        }
    }
}

fn is_store(op: &Op) -> bool {
    matches!(op, Op::Stg { .. } | Op::Sts { .. })
}

/// Fills in the control code of every instruction whose code was not
/// written. `alu` is the fixed latency stall counts must cover.
pub fn derive(instrs: &mut [Instr], cfg: &Cfg, alu: u32) {
    assign_scoreboards(instrs);
    derive_wait_masks(instrs, cfg);
    derive_stalls(instrs, cfg, alu);
}

fn assign_scoreboards(instrs: &mut [Instr]) {
    let mut next = 0u8;
    let mut take = || {
        let sb = next;
        next = (next + 1) % SCOREBOARDS as u8;
        sb
    };
    for ins in instrs.iter_mut().filter(|i| !i.explicit_control) {
        if ins.class.variable_latency() && !ins.defs.is_empty() {
            ins.control.write_barrier = Some(take());
        }
        if is_store(&ins.op) {
            ins.control.read_barrier = Some(take());
        }
    }
}

/// One instruction's effect on the pending sets; for derived codes it also
/// widens the wait mask to cover what it depends on. Returns true when the
/// wait mask changed.
fn transfer(ins: &mut Instr, p: &mut Pending) -> bool {
    let mut changed = false;
    if !ins.explicit_control {
        let mut need = 0u8;
        for &r in ins.uses.iter().chain(&ins.defs) {
            need |= p.write[r as usize];
        }
        for &r in &ins.defs {
            need |= p.read[r as usize];
        }
        if need & !ins.control.wait_mask != 0 {
            ins.control.wait_mask |= need;
            changed = true;
        }
    }
    let mut cleared = ins.control.wait_mask;
    if let Op::Depbar { sb, le: 0 } = ins.op {
        cleared |= 1 << sb;
    }
    if cleared != 0 {
        for m in p.write.iter_mut().chain(p.read.iter_mut()) {
            *m &= !cleared;
        }
    }
    if let Some(w) = ins.control.write_barrier {
        for &r in &ins.defs {
            p.write[r as usize] |= 1 << w;
        }
    }
    if let Some(rb) = ins.control.read_barrier {
        for &r in ins.uses.iter().filter(|&&r| r < PRED_BASE) {
            p.read[r as usize] |= 1 << rb;
        }
    }
    changed
}

fn derive_wait_masks(instrs: &mut [Instr], cfg: &Cfg) {
    let nb = cfg.blocks.len();
    let mut preds = vec![Vec::new(); nb];
    for (b, ss) in cfg.succs.iter().enumerate() {
        for &s in ss.iter().filter(|&&s| s < nb) {
            preds[s].push(b);
        }
    }
    let mut out: Vec<Option<Pending>> = vec![None; nb];
    // Wait masks only grow and the pending sets are finite, so this reaches
    // a fixed point; the bound is a guard, not an expected limit.
    for _ in 0..(4 * nb + 16) {
        let mut changed = false;
        for b in 0..nb {
            let mut state = Pending::empty();
            for &p in &preds[b] {
                if let Some(o) = &out[p] {
                    state.join(o);
                }
            }
            let (start, end) = cfg.blocks[b];
            for ins in &mut instrs[start as usize..end as usize] {
                changed |= transfer(ins, &mut state);
            }
            if out[b].as_ref() != Some(&state) {
                out[b] = Some(state);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

fn derive_stalls(instrs: &mut [Instr], cfg: &Cfg, alu: u32) {
    let mut ready: Vec<u32> = vec![0; RESOURCES];
    for &(start, end) in &cfg.blocks {
        ready.iter_mut().for_each(|r| *r = 0);
        let mut clock = 0u32;
        for i in start as usize..end as usize {
            if i > start as usize {
                let prev = &instrs[i - 1];
                let earliest = if prev.explicit_control {
                    clock + u32::from(prev.control.stall.max(1))
                } else {
                    instrs[i]
                        .uses
                        .iter()
                        .map(|&r: &Resource| ready[r as usize])
                        .fold(clock + 1, u32::max)
                };
                if !instrs[i - 1].explicit_control {
                    instrs[i - 1].control.stall = (earliest - clock).min(255) as u8;
                }
                clock = earliest;
            }
            if instrs[i].class == Class::Alu {
                for &r in &instrs[i].defs {
                    ready[r as usize] = clock + alu;
                }
            }
        }
        let last = end as usize - 1;
        let exits = matches!(instrs[last].op, Op::Exit) && instrs[last].guard.is_always_true();
        if !instrs[last].explicit_control && !exits {
            let drain = ready
                .iter()
                .map(|&r| r.saturating_sub(clock))
                .max()
                .unwrap_or(0);
            instrs[last].control.stall = drain.clamp(1, 255) as u8;
        }
    }
}
