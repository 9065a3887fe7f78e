//! Which registers and predicates each instruction reads and writes (as
//! its opcode's table entry in [`crate::isa`] says): the facts control-code
//! derivation and hazard checks are built on.

use super::ir::{
    AtomOp, MemRef, MulMode, Op, PRED_BASE, PT, PredSrc, RZ, Resource, Src, UPRED_BASE, UPT,
    UREG_BASE, URZ,
};

#[derive(Default)]
struct Sets {
    defs: Vec<Resource>,
    uses: Vec<Resource>,
}

impl Sets {
    fn def(&mut self, r: u8) {
        if r != RZ {
            self.defs.push(Resource::from(r));
        }
    }
    fn def_group(&mut self, r: u8, n: u8) {
        for k in 0..n {
            self.def(r.saturating_add(k));
        }
    }
    /// Reads `n` consecutive registers from `r` (a wide store's source).
    fn use_group(&mut self, r: u8, n: u8) {
        for k in 0..n {
            self.use_reg(r.saturating_add(k));
        }
    }
    fn pdef(&mut self, p: u8) {
        if p != PT {
            self.defs.push(PRED_BASE + Resource::from(p));
        }
    }
    fn use_reg(&mut self, r: u8) {
        if r != RZ {
            self.uses.push(Resource::from(r));
        }
    }
    fn src(&mut self, s: Src) {
        if let Some(r) = s.reg() {
            self.use_reg(r);
        }
        if let Some(u) = s.ureg() {
            self.use_ureg(u);
        }
    }
    /// A 64-bit source (the addend of IMAD.WIDE): a register pair.
    fn src_pair(&mut self, s: Src) {
        if let Some(r) = s.reg() {
            self.use_reg(r);
            self.use_reg(r.saturating_add(1));
        }
        if let Some(u) = s.ureg() {
            self.use_ureg(u);
            self.use_ureg(u.saturating_add(1));
        }
    }
    /// Writes uniform register `u` (`URZ`: nothing).
    fn udef(&mut self, u: u8) {
        if u != URZ && u < 64 {
            self.defs.push(UREG_BASE + Resource::from(u));
        }
    }
    /// Writes `n` consecutive uniform registers from `u`.
    fn udef_group(&mut self, u: u8, n: u8) {
        for k in 0..n {
            self.udef(u.saturating_add(k));
        }
    }
    /// Reads uniform register `u` (`URZ`: nothing).
    fn use_ureg(&mut self, u: u8) {
        if u != URZ && u < 64 {
            self.uses.push(UREG_BASE + Resource::from(u));
        }
    }
    /// Writes uniform predicate `p` (`UPT`: nothing).
    fn updef(&mut self, p: u8) {
        if p < UPT {
            self.defs.push(UPRED_BASE + Resource::from(p));
        }
    }
    /// Reads uniform predicate `p` (`UPT`: nothing).
    fn upred(&mut self, p: PredSrc) {
        if p.index < UPT {
            self.uses.push(UPRED_BASE + Resource::from(p.index));
        }
    }
    fn pred(&mut self, p: PredSrc) {
        if let Some(u) = p.as_uniform() {
            return self.upred(u);
        }
        if p.index != PT {
            self.uses.push(PRED_BASE + Resource::from(p.index));
        }
    }
    fn mem(&mut self, m: MemRef) {
        // Only the low word of a `[Rn.64]` pair is counted, as before
        // listings formed 64-bit addresses (derived codes stay as they were).
        self.use_reg(m.base);
        self.use_ureg(m.ubase);
    }
}

/// `(defs, uses)` of an instruction, the guard counted as a use. Lists are
/// sorted and free of duplicates.
pub fn resources(op: &Op, guard: PredSrc) -> (Vec<Resource>, Vec<Resource>) {
    let mut s = Sets::default();
    s.pred(guard);
    reads_and_writes(op, &mut s);
    for v in [&mut s.defs, &mut s.uses] {
        v.sort_unstable();
        v.dedup();
    }
    (s.defs, s.uses)
}

/// Adds the registers and predicates `op` reads and writes, as its entry
/// in the opcode table ([`crate::isa`]) lists them.
macro_rules! reads_and_writes {
    (
        binders ($opc:ident, $ins:ident, $m:ident, $o:ident, $rw:ident, $x:ident);
        $(
            $(#[$doc:meta])*
            $V:ident $({ $($f:ident : $t:tt),* $(,)? })?
                spell { $($sp:literal => $usage:literal),+ $(,)? }
                class $class:ident
                decode { $($decode:tt)* }
                regs { $($regs:tt)* }
                exec $kind:ident { $($exec:tt)* }
        )*
    ) => {
        #[allow(unused_variables)]
        fn reads_and_writes(op: &Op, $rw: &mut Sets) {
            match *op {
                $(Op::$V $({ $($f),* })? => { $($regs)* })*
            }
        }
    };
}

crate::isa::opcode_table!(reads_and_writes);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::ir::{RegSrc, Width};

    #[test]
    fn wide_results_and_pairs_are_expanded() {
        let op = Op::Imad {
            d: 4,
            a: Src::Reg(RegSrc::plain(1)),
            b: Src::Imm(4),
            c: Src::Reg(RegSrc::plain(8)),
            mode: MulMode::Wide,
            signed: false,
            carry_in: PredSrc {
                index: PT,
                negate: true,
            },
        };
        let (d, u) = resources(&op, PredSrc::TRUE);
        assert_eq!(d, vec![4, 5]);
        assert_eq!(u, vec![1, 8, 9]);
    }

    #[test]
    fn guard_and_store_sources_are_uses() {
        let op = Op::Stg {
            addr: MemRef {
                base: 2,
                offset: 0,
                wide: true,
                ubase: URZ,
                scale: 1,
            },
            s: 8,
            width: Width::B128,
        };
        let (d, u) = resources(
            &op,
            PredSrc {
                index: 1,
                negate: true,
            },
        );
        assert!(d.is_empty());
        assert_eq!(u, vec![2, 8, 9, 10, 11, PRED_BASE + 1]);
    }

    #[test]
    fn rz_and_pt_are_not_resources() {
        let op = Op::Isetp {
            cmp: crate::asm::ir::Cmp::Lt,
            unsigned: false,
            combine: crate::asm::ir::Combine::And,
            p: 0,
            q: PT,
            a: Src::Reg(RegSrc::plain(RZ)),
            b: Src::Imm(3),
            c: PredSrc::TRUE,
            extended: false,
            ex: PredSrc::TRUE,
        };
        let (d, u) = resources(&op, PredSrc::TRUE);
        assert_eq!(d, vec![PRED_BASE]);
        assert!(u.is_empty());
    }
}
