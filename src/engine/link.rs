//! Linking: a program's constant-bank operands resolved and each
//! instruction's latencies and pipe facts worked out once, so that issuing
//! reads them instead of the machine's settings.

use std::collections::BTreeMap;

use super::config::Latency;
use crate::asm::AsmError;
use crate::asm::ir::{Class, EXIT_PC, Instr, Op, Program, Src};

/// An instruction ready to execute: constants resolved, facts precomputed.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub instr: Instr,
    /// The fixed latency of its class on this machine (a memory access
    /// adds its replays at issue).
    pub latency: u32,
    /// Cycles until its read barrier (if it sets one) clears.
    pub read_latency: u32,
    /// Cycles the MUFU pipe takes before its next instruction, if this is
    /// a MUFU. (Carried per instruction, not read from the machine's
    /// latencies at issue: `t +` a constant is worked out every cycle, in
    /// case it is needed, and kept on the stack.)
    pub pipe_interval: u32,
    /// High word of a 64-bit constant addend (`IMAD.WIDE`).
    pub c_hi: u32,
    /// Reconvergence pc of a divergent branch here (`stack`).
    pub reconv: u32,
    pub is_mufu: bool,
    /// Uses the SM's shared load/store pipe (one instruction per cycle).
    pub uses_lsu: bool,
    /// Under `its`, its issue only moves its group on (see
    /// [`super::convergence::its::moves_group_only`]).
    pub moves_group_only: bool,
    /// The next pc is a sync point (`BSYNC`, `WARPSYNC`) for `its`.
    pub next_syncs: bool,
}

/// The key of word `offset` of constant bank `bank` in a kernel's
/// constants: bank 0's words keep their byte offset as the key, bank `b`'s
/// are at `b << 16 | offset` (a bank holds 64 KiB).
pub fn constant_key(bank: u8, offset: u32) -> u32 {
    u32::from(bank) << 16 | offset
}

/// Resolves `c[bank][off]` operands against the constant banks. An offset
/// that is not set is an error, except the high word of a 64-bit value
/// whose low word is set (it reads zero: warpstep addresses are 32-bit).
/// Each instruction takes its class's latency from `lat`.
pub(crate) fn link(
    program: &Program,
    constants: &BTreeMap<u32, u32>,
    lat: &Latency,
) -> Result<Vec<Decoded>, AsmError> {
    let lookup = |ins: &Instr, bank: u8, offset: u32| -> Result<u32, AsmError> {
        let col = ins.text.find("c[").map_or(ins.column, |i| {
            ins.column + ins.text[..i].chars().count() as u32
        });
        if offset <= 0xffff {
            let key = constant_key(bank, offset);
            if let Some(v) = constants.get(&key) {
                return Ok(*v);
            }
            if offset >= 4 && constants.contains_key(&(key - 4)) {
                return Ok(0);
            }
        }
        let hint = match bank {
            0 if program.arch.is_some() => format!(
                "give the kernel's parameters in `args:`, or add `{offset:#x}: VALUE` \
                 under `constants:`"
            ),
            0 => format!("add `{offset:#x}: VALUE` under `constants:`"),
            3 => format!(
                "bank 3 holds the kernel's `__constant__` variables: add \
                 `c[{bank:#x}][{offset:#x}]: VALUE` (or a list of values) under `constants:`"
            ),
            4 => format!(
                "bank 4 holds the addresses of `__device__` variables: add \
                 `c[{bank:#x}][{offset:#x}]: BUFFER` under `constants:`, BUFFER the \
                 variable's buffer in `memory:`"
            ),
            _ => format!("add `c[{bank:#x}][{offset:#x}]: VALUE` under `constants:`"),
        };
        Err(AsmError {
            line: ins.line,
            column: col,
            len: 5,
            message: format!("c[{bank:#x}][{offset:#x}] is not set"),
            expected: Some("a constant the scenario defines".into()),
            hint: Some(hint),
        })
    };
    let mut out = Vec::with_capacity(program.instrs.len());
    for (pc, ins) in program.instrs.iter().enumerate() {
        let mut resolved = ins.clone();
        let mut c_hi = 0;
        let mut fix = |s: &mut Src, wide: bool| -> Result<(), AsmError> {
            if let Src::Const { bank, offset } = *s {
                *s = Src::Imm(lookup(ins, bank, offset)?);
                if wide {
                    c_hi = constants
                        .get(&constant_key(bank, offset.saturating_add(4)))
                        .copied()
                        .unwrap_or(0);
                }
            }
            Ok(())
        };
        // Every value operand, from the opcode table; the addend (third)
        // of IMAD.WIDE and IMAD.HI is 64-bit.
        let wide = matches!(
            resolved.op,
            Op::Imad {
                mode: crate::asm::ir::MulMode::Wide | crate::asm::ir::MulMode::Hi,
                ..
            }
        );
        // And the 64-bit sources of pair opcodes (DADD, IADD.64, ...).
        let pairs = resolved.op.pair_sources();
        resolved
            .op
            .try_for_each_src_mut(|i, s| fix(s, (wide && i == 2) || pairs >> i & 1 != 0))?;
        // Variable-latency forms: what a written control code tracks with a
        // write scoreboard, and the shuffle and atomic pipes.
        let scoreboarded = resolved.explicit_control && resolved.control.write_barrier.is_some();
        let class_latency = match resolved.class {
            Class::Alu | Class::Control => lat.alu,
            Class::Sfu => lat.sfu,
            Class::Shared => lat.shared,
            Class::Global => lat.global,
        };
        let latency = match resolved.op {
            Op::S2r { .. } | Op::S2ur { .. } if scoreboarded => lat.special,
            Op::Ldc { .. } if scoreboarded => lat.constant,
            Op::Shfl { .. } => lat.shuffle.unwrap_or(class_latency),
            Op::Atomg { .. } => lat.atomic.unwrap_or(class_latency),
            _ => class_latency,
        };
        out.push(Decoded {
            latency,
            read_latency: lat.read_barrier.max(1),
            pipe_interval: lat.sfu_interval.max(1),
            is_mufu: matches!(resolved.op, Op::Mufu { .. }),
            uses_lsu: matches!(resolved.class, Class::Shared | Class::Global),
            moves_group_only: super::convergence::its::moves_group_only(&resolved.op),
            next_syncs: program
                .instrs
                .get(pc + 1)
                .is_some_and(|i| super::convergence::its::is_sync_point(&i.op)),
            reconv: program.reconvergence.get(pc).copied().unwrap_or(EXIT_PC),
            c_hi,
            instr: resolved,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::link;
    use crate::asm::assemble;
    use crate::engine::config::Latency;
    use std::collections::BTreeMap;

    /// What `its` reads of each pc at issue, worked out by hand from the
    /// program: which instructions only move their group on (every one
    /// but the control ones), and which stand just before a sync point.
    #[test]
    fn each_pc_knows_whether_it_only_moves_its_group_and_whether_a_sync_follows() {
        let text = "BSSY B0, join\n\
                    IADD3 R1, R1, 1, RZ\n\
                    @P0 BRA join\n\
                    MOV R2, R1\n\
                    join:\n\
                    BSYNC B0\n\
                    WARPSYNC 0xffffffff\n\
                    EXIT";
        let lat = Latency::default();
        let program = assemble(text, lat.alu).expect("assembles");
        let code = link(&program, &BTreeMap::new(), &lat).expect("links");
        let moves: Vec<bool> = code.iter().map(|d| d.moves_group_only).collect();
        assert_eq!(moves, [false, true, false, true, false, false, false]);
        // MOV is followed by BSYNC, BSYNC by WARPSYNC.
        let syncs: Vec<bool> = code.iter().map(|d| d.next_syncs).collect();
        assert_eq!(syncs, [false, false, false, true, true, false, false]);
    }
}
