//! Which registers and predicates each instruction reads and writes: the
//! facts control-code derivation and hazard checks are built on.

use super::ir::{MemRef, MulMode, Op, PRED_BASE, PT, PredSrc, RZ, Resource, Src};

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
    }
    /// A 64-bit source (the addend of IMAD.WIDE): a register pair.
    fn src_pair(&mut self, s: Src) {
        if let Some(r) = s.reg() {
            self.use_reg(r);
            self.use_reg(r.saturating_add(1));
        }
    }
    fn pred(&mut self, p: PredSrc) {
        if p.index != PT {
            self.uses.push(PRED_BASE + Resource::from(p.index));
        }
    }
    fn mem(&mut self, m: MemRef) {
        self.use_reg(m.base);
    }
}

/// `(defs, uses)` of an instruction, the guard counted as a use. Lists are
/// sorted and free of duplicates.
pub fn resources(op: &Op, guard: PredSrc) -> (Vec<Resource>, Vec<Resource>) {
    let mut s = Sets::default();
    s.pred(guard);
    match *op {
        Op::Mov { d, a } => {
            s.def(d);
            s.src(a);
        }
        Op::S2r { d, .. } => s.def(d),
        Op::Sel { d, a, b, p } | Op::Imnmx { d, a, b, p, .. } | Op::Fmnmx { d, a, b, p } => {
            s.def(d);
            s.src(a);
            s.src(b);
            s.pred(p);
        }
        Op::Iadd3 {
            d,
            carry,
            a,
            b,
            c,
            carry_in,
        } => {
            s.def(d);
            carry.iter().for_each(|&p| s.pdef(p));
            s.src(a);
            s.src(b);
            s.src(c);
            carry_in.iter().for_each(|&p| s.pred(p));
        }
        Op::Imad {
            d, a, b, c, mode, ..
        } => {
            if mode == MulMode::Wide {
                s.def_group(d, 2);
                s.src_pair(c);
            } else {
                s.def(d);
                s.src(c);
            }
            s.src(a);
            s.src(b);
        }
        Op::Isetp { p, q, a, b, c, .. } | Op::Fsetp { p, q, a, b, c, .. } => {
            s.pdef(p);
            s.pdef(q);
            s.src(a);
            s.src(b);
            s.pred(c);
        }
        Op::Lop3 { p, d, a, b, c, .. } => {
            s.pdef(p);
            s.def(d);
            s.src(a);
            s.src(b);
            s.src(c);
        }
        Op::Shl { d, a, b }
        | Op::Shr { d, a, b, .. }
        | Op::Fadd { d, a, b }
        | Op::Fmul { d, a, b } => {
            s.def(d);
            s.src(a);
            s.src(b);
        }
        Op::Iabs { d, a }
        | Op::Popc { d, a }
        | Op::I2f { d, a, .. }
        | Op::F2i { d, a, .. }
        | Op::Mufu { d, a, .. } => {
            s.def(d);
            s.src(a);
        }
        Op::Lea {
            d,
            carry,
            a,
            b,
            hi_src,
            carry_in,
            ..
        } => {
            s.def(d);
            s.pdef(carry);
            s.src(a);
            s.src(b);
            s.src(hi_src);
            s.pred(carry_in);
        }
        Op::Ffma { d, a, b, c } => {
            s.def(d);
            s.src(a);
            s.src(b);
            s.src(c);
        }
        Op::Ldg { d, addr, width } | Op::Lds { d, addr, width } => {
            s.def_group(d, width.regs());
            s.mem(addr);
        }
        Op::Stg { addr, s: r, width } | Op::Sts { addr, s: r, width } => {
            s.mem(addr);
            for k in 0..width.regs() {
                s.use_reg(r.saturating_add(k));
            }
        }
        Op::Shfl { p, d, a, b, c, .. } => {
            s.pdef(p);
            s.def(d);
            s.use_reg(a);
            s.src(b);
            s.src(c);
        }
        Op::Vote { d, p, src, .. } => {
            s.def(d);
            s.pdef(p);
            s.pred(src);
        }
        Op::Warpsync { mask } => s.src(mask),
        Op::Bra { .. }
        | Op::Bssy { .. }
        | Op::Bsync { .. }
        | Op::Break { .. }
        | Op::BarSync { .. }
        | Op::Depbar { .. }
        | Op::Exit
        | Op::Nop => {}
    }
    for v in [&mut s.defs, &mut s.uses] {
        v.sort_unstable();
        v.dedup();
    }
    (s.defs, s.uses)
}

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
        };
        let (d, u) = resources(&op, PredSrc::TRUE);
        assert_eq!(d, vec![PRED_BASE]);
        assert!(u.is_empty());
    }
}
