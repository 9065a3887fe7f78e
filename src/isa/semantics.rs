//! What each opcode computes, as a function over one lane's values.
//!
//! These are the opcodes' definitions; `engine::exec` runs them over a
//! warp's lanes (reading sources in place, blending results under the
//! predicated-on mask) and the compiler inlines them into its loops, so a
//! function here must stay small, branch-light and `#[inline(always)]`.
//! Values are the 32-bit register patterns: float opcodes see IEEE
//! binary32 bits, and a NaN result is stored as [`CANONICAL_NAN`], the
//! canonical NaN NVIDIA GPUs produce. Floating point rounds to nearest
//! even, FFMA is fused, and the special functions come from the `libm`
//! crate, so results are the same on every machine.

use super::operand::{
    AtomOp, Cmp, Combine, FCmp, MufuOp, ReduxOp, Round, ShflMode, SpecialReg, VoteMode,
};

/// The NaN every float opcode writes.
pub const CANONICAL_NAN: u32 = 0x7fff_ffff;

/// A float result as register bits, NaN made canonical.
#[inline(always)]
pub fn canon(x: f32) -> u32 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// `MOV`: the source, unchanged.
#[inline(always)]
pub fn mov(a: u32) -> u32 {
    a
}

/// The values `S2R` reads that do not depend on the lane.
#[derive(Debug, Clone, Copy)]
pub struct ThreadIds {
    /// `SR_TID.X` of the warp's lane 0.
    pub first_thread: u32,
    pub block: u32,
    pub block_dim: u32,
    pub blocks: u32,
    /// The warp's slot on its SM (`SR_VIRTUALWARPID`).
    pub warp_slot: u32,
}

/// `S2R` of a 1-D launch: special register `sr` as `(base, step)`: lane
/// `l` reads `base + l * step` (a ramp, so the lane loop is one vector
/// add). `None` for the registers that are no ramp (see [`special_reg`]).
#[inline(always)]
pub fn s2r(sr: SpecialReg, ids: ThreadIds) -> Option<(u32, u32)> {
    Some(match sr {
        SpecialReg::TidX => (ids.first_thread, 1),
        SpecialReg::CtaidX => (ids.block, 0),
        SpecialReg::NtidX => (ids.block_dim, 0),
        SpecialReg::NctaidX => (ids.blocks, 0),
        SpecialReg::LaneId => (0, 1),
        SpecialReg::WarpId => (ids.warp_slot, 0),
        _ => return None,
    })
}

/// Where a thread is in a launch of any shape: what [`special_reg`] reads.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    /// The thread's index in its block, linearised (x fastest).
    pub thread: u32,
    /// Its lane in the warp.
    pub lane: u32,
    /// The block's index in the grid, linearised (x fastest).
    pub block: u32,
    /// Block and grid dimensions, x, y, z.
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    pub warp_slot: u32,
    /// The cycle the instruction issues in.
    pub clock: u64,
}

/// Splits a linear index into x, y, z (x fastest) for dimensions `dim`.
#[inline(always)]
pub fn unlinearise(i: u32, dim: [u32; 3]) -> [u32; 3] {
    let (x, y) = (dim[0].max(1), dim[1].max(1));
    [i % x, i / x % y, i / x / y]
}

/// The value of special register `sr` for one thread: thread and block
/// coordinates split from the linear indices (x fastest, as CUDA forms
/// warps), `SR_CgaCtaId` 0 (no clusters), `SR_CLOCKLO`/`HI` the issue
/// cycle (deterministic), the lane masks, `SRZ` 0.
#[inline(always)]
pub fn special_reg(sr: SpecialReg, p: Place) -> u32 {
    let tid = unlinearise(p.thread, p.block_dim);
    let ctaid = unlinearise(p.block, p.grid_dim);
    let below = if p.lane >= 32 {
        u32::MAX
    } else {
        (1u32 << p.lane) - 1
    };
    let eq = 1u32.checked_shl(p.lane).unwrap_or(0);
    match sr {
        SpecialReg::TidX => tid[0],
        SpecialReg::TidY => tid[1],
        SpecialReg::TidZ => tid[2],
        SpecialReg::CtaidX => ctaid[0],
        SpecialReg::CtaidY => ctaid[1],
        SpecialReg::CtaidZ => ctaid[2],
        SpecialReg::NtidX => p.block_dim[0],
        SpecialReg::NctaidX => p.grid_dim[0],
        SpecialReg::LaneId => p.lane,
        SpecialReg::WarpId => p.warp_slot,
        SpecialReg::CgaCtaId | SpecialReg::Zero => 0,
        SpecialReg::ClockLo | SpecialReg::Clock => p.clock as u32,
        SpecialReg::ClockHi => (p.clock >> 32) as u32,
        SpecialReg::LtMask => below,
        SpecialReg::LeMask => below | eq,
        SpecialReg::GtMask => !(below | eq),
        SpecialReg::GeMask => !below,
        SpecialReg::EqMask => eq,
    }
}

/// `SEL`/`FSEL`: `a` where the predicate holds, else `b`.
#[inline(always)]
pub fn sel(p: bool, a: u32, b: u32) -> u32 {
    if p { a } else { b }
}

/// `IADD3` without carries: `a + b + c` modulo 2^32.
#[inline(always)]
pub fn iadd3(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_add(b).wrapping_add(c)
}

/// `IADD3` with carries: the 34-bit sum of three sources and two carry-ins
/// (bit 32 is the first carry-out, bit 33 the second).
#[inline(always)]
pub fn iadd3_carry(a: u32, b: u32, c: u32, ci0: bool, ci1: bool) -> u64 {
    u64::from(a) + u64::from(b) + u64::from(c) + u64::from(ci0) + u64::from(ci1)
}

/// `IMAD` (`IMUL` with `c = 0`): the low 32 bits of `a * b + c`.
#[inline(always)]
pub fn imad_lo(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_mul(b).wrapping_add(c)
}

#[inline(always)]
fn widen(x: u32, signed: bool) -> u64 {
    if signed {
        x as i32 as i64 as u64
    } else {
        u64::from(x)
    }
}

/// `IMAD.WIDE`: the 64-bit `a * b + addend`; `IMAD.HI` keeps its high
/// 32 bits (its addend is a register pair as well).
#[inline(always)]
pub fn imad_wide(signed: bool, a: u32, b: u32, addend: u64) -> u64 {
    widen(a, signed)
        .wrapping_mul(widen(b, signed))
        .wrapping_add(addend)
}

/// Integer comparison, signed or unsigned.
#[inline(always)]
pub fn icmp(c: Cmp, unsigned: bool, a: u32, b: u32) -> bool {
    if unsigned {
        cmp(c, a, b)
    } else {
        cmp(c, a as i32, b as i32)
    }
}

/// `ISETP.EX`: the 64-bit compare `c` from the high words `a`, `b`
/// (signed unless `unsigned`) and `lo`, what the same compare of the low
/// words (unsigned) gave: the high words decide unless they are equal,
/// then the low words do (`EQ`: both equal; `NE`: either differs).
#[inline(always)]
pub fn icmp_ex(c: Cmp, unsigned: bool, a: u32, b: u32, lo: bool) -> bool {
    let eq = a == b;
    match c {
        Cmp::Eq => eq && lo,
        Cmp::Ne => !eq || lo,
        Cmp::Lt | Cmp::Le => icmp(Cmp::Lt, unsigned, a, b) || (eq && lo),
        Cmp::Gt | Cmp::Ge => icmp(Cmp::Gt, unsigned, a, b) || (eq && lo),
    }
}

#[inline(always)]
fn cmp<T: PartialOrd>(c: Cmp, a: T, b: T) -> bool {
    match c {
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
    }
}

/// How `ISETP`/`FSETP` combine their comparison with the third
/// predicate, on lane masks.
#[inline(always)]
pub fn combine(c: Combine, x: u64, y: u64) -> u64 {
    match c {
        Combine::And => x & y,
        Combine::Or => x | y,
        Combine::Xor => x ^ y,
    }
}

/// `LOP3.LUT`: the bitwise function whose truth table is `lut` (bit
/// `4a + 2b + c` of `lut` is the result for input bits a, b, c).
#[inline(always)]
pub fn lop3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..8).fold(0, |r, i| {
        if lut >> i & 1 == 0 {
            return r;
        }
        let pa = if i & 4 != 0 { a } else { !a };
        let pb = if i & 2 != 0 { b } else { !b };
        let pc = if i & 1 != 0 { c } else { !c };
        r | (pa & pb & pc)
    })
}

/// `SHL`: shifts of 32 or more give zero.
#[inline(always)]
pub fn shl(a: u32, b: u32) -> u32 {
    if b >= 32 { 0 } else { a << b }
}

/// `SHR`: arithmetic shifts saturate at 31, logical ones give zero past 31.
#[inline(always)]
pub fn shr(signed: bool, a: u32, b: u32) -> u32 {
    let s = b.min(31);
    if signed {
        ((a as i32) >> s) as u32
    } else if b >= 32 {
        0
    } else {
        a >> s
    }
}

/// `IMNMX`: the minimum when `take_min`, the maximum otherwise.
#[inline(always)]
pub fn imnmx(take_min: bool, unsigned: bool, a: u32, b: u32) -> u32 {
    let a_less = icmp(Cmp::Lt, unsigned, a, b);
    if take_min == a_less { a } else { b }
}

/// `IABS`: `|i32::MIN|` wraps to itself, as on the hardware.
#[inline(always)]
pub fn iabs(a: u32) -> u32 {
    (a as i32).wrapping_abs() as u32
}

/// `POPC`: the number of set bits.
#[inline(always)]
pub fn popc(a: u32) -> u32 {
    a.count_ones()
}

/// `LEA`: `(a << shift) + b + carry_in` (`.HI`: the high word of
/// `hi:a << shift`), as a 33-bit sum whose bit 32 is the carry-out.
#[inline(always)]
pub fn lea(high: bool, shift: u32, a: u32, b: u32, hi: u32, carry_in: bool) -> u64 {
    let shifted = if high {
        (((u64::from(hi) << 32 | u64::from(a)) << shift) >> 32) as u32
    } else {
        a << shift
    };
    u64::from(shifted) + u64::from(b) + u64::from(carry_in)
}

/// `FADD`.
#[inline(always)]
pub fn fadd(a: u32, b: u32) -> u32 {
    canon(f(a) + f(b))
}

/// `FMUL`.
#[inline(always)]
pub fn fmul(a: u32, b: u32) -> u32 {
    canon(f(a) * f(b))
}

/// `FFMA`: `a * b + c` rounded once to nearest even.
#[inline(always)]
pub fn ffma(a: u32, b: u32, c: u32) -> u32 {
    let (x, y, z) = (f(a), f(b), f(c));
    // The product of two binary32 values is exact in binary64, so one
    // rounding of the sum to binary32 is the fused result, unless the
    // binary64 sum sits exactly halfway between two binary32 values
    // (double rounding) or is subnormal in binary32: those take the exact
    // software path.
    let v = f64::from(x) * f64::from(y) + f64::from(z);
    let halfway = v.to_bits() & 0x1fff_ffff == 0x1000_0000;
    let tiny = v.abs() < f64::from(f32::MIN_POSITIVE);
    if halfway | tiny {
        canon(libm::fmaf(x, y, z))
    } else {
        canon(v as f32)
    }
}

/// `FSETP`: ordered comparisons are false on NaN, unordered ones true.
#[inline(always)]
pub fn fsetp(c: FCmp, a: u32, b: u32) -> bool {
    let (a, b) = (f(a), f(b));
    let unordered = a.is_nan() || b.is_nan();
    match c {
        FCmp::Ordered(k) => !unordered && cmp(k, a, b),
        FCmp::Unordered(k) => unordered || cmp(k, a, b),
        FCmp::Num => !unordered,
        FCmp::Nan => unordered,
    }
}

/// `FMNMX`: the minimum when `take_min`, the maximum otherwise; a NaN
/// source loses to a number.
#[inline(always)]
pub fn fmnmx(take_min: bool, a: u32, b: u32) -> u32 {
    let (x, y) = (f(a), f(b));
    canon(if take_min { fmin(x, y) } else { fmax(x, y) })
}

pub(crate) fn fmin(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a <= b {
        a
    } else {
        b
    }
}

pub(crate) fn fmax(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a >= b {
        a
    } else {
        b
    }
}

/// `I2F`: a signed or unsigned integer to the nearest binary32.
#[inline(always)]
pub fn i2f(unsigned: bool, a: u32) -> u32 {
    let v = if unsigned { a as f32 } else { a as i32 as f32 };
    v.to_bits()
}

/// `F2I`: rounded as asked, saturating, NaN to 0.
#[inline(always)]
pub fn f2i(round: Round, unsigned: bool, a: u32) -> u32 {
    let x = f(a);
    let r = match round {
        Round::Nearest => x.round_ties_even(),
        Round::Trunc => x.trunc(),
        Round::Floor => x.floor(),
        Round::Ceil => x.ceil(),
    };
    // `as` saturates and maps NaN to 0, as the hardware conversion does.
    if unsigned { r as u32 } else { r as i32 as u32 }
}

/// `MUFU`: the multi-function unit's approximations, here exact to libm.
#[inline(always)]
pub fn mufu(func: MufuOp, a: u32) -> u32 {
    if func == MufuOp::Rcp64h {
        return rcp64h(a);
    }
    let x = f(a);
    canon(match func {
        MufuOp::Ex2 => libm::exp2f(x),
        MufuOp::Lg2 => libm::log2f(x),
        MufuOp::Rcp => 1.0 / x,
        MufuOp::Rsq => 1.0 / libm::sqrtf(x),
        MufuOp::Sqrt => libm::sqrtf(x),
        MufuOp::Sin => libm::sinf(x),
        MufuOp::Cos => libm::cosf(x),
        MufuOp::Rcp64h => 1.0 / x,
    })
}

/// `SHFL`: the lane that lane `lane` reads from, for lane selector `b` and
/// clamp/segment value `c` (as in PTX `shfl.sync`), and whether that lane
/// is in range. The caller also requires the source lane to exist and to
/// be issuing.
#[inline(always)]
pub fn shfl(mode: ShflMode, lane: i64, b: u32, c: u32) -> (i64, bool) {
    match mode {
        ShflMode::Idx => (i64::from(b & 63), i64::from(b & 63) <= i64::from(c & 63)),
        ShflMode::Up => (
            lane - i64::from(b),
            lane - i64::from(b) >= i64::from(c & 63),
        ),
        ShflMode::Down => (
            lane + i64::from(b),
            lane + i64::from(b) <= i64::from(c & 63),
        ),
        ShflMode::Bfly => {
            let j = lane ^ i64::from(b & 63);
            (j, j <= i64::from(c & 63))
        }
    }
}

/// `VOTE`: the vote of the lanes in `on` whose predicate is set
/// (`ballot`, a subset of `on`).
#[inline(always)]
pub fn vote(mode: VoteMode, ballot: u64, on: u64) -> bool {
    match mode {
        VoteMode::All => ballot == on,
        VoteMode::Any => ballot != 0,
        VoteMode::Eq => ballot == 0 || ballot == on,
    }
}

/// One step of `REDUX`: the running value combined with the next lane's.
#[inline(always)]
pub fn redux(op: ReduxOp, signed: bool, acc: u32, v: u32) -> u32 {
    match (op, signed) {
        (ReduxOp::Sum, _) => acc.wrapping_add(v),
        (ReduxOp::Min, true) => (acc as i32).min(v as i32) as u32,
        (ReduxOp::Min, false) => acc.min(v),
        (ReduxOp::Max, true) => (acc as i32).max(v as i32) as u32,
        (ReduxOp::Max, false) => acc.max(v),
        (ReduxOp::And, _) => acc & v,
        (ReduxOp::Or, _) => acc | v,
        (ReduxOp::Xor, _) => acc ^ v,
    }
}

/// `R2P`: predicate `i`'s value from register value `v` (its bit `i`).
#[inline(always)]
pub fn r2p(v: u32, i: u8) -> bool {
    v >> i & 1 != 0
}

/// An atomic's new value in memory from the `old` one and the operands
/// `b`, `c` (`CAS`: compare with `b`, store `c`): [`atom64`] on the words
/// zero-extended, but for the signed minimum and maximum, which compare
/// as `i32`.
#[inline(always)]
pub fn atom(op: AtomOp, old: u32, b: u32, c: u32) -> u32 {
    match op {
        AtomOp::Min { signed: true } => (old as i32).min(b as i32) as u32,
        AtomOp::Max { signed: true } => (old as i32).max(b as i32) as u32,
        _ => atom64(op, old.into(), b.into(), c.into()) as u32,
    }
}

/// An atomic's new 64-bit word (`.64`, register pairs) from the `old` one
/// and the operands `b`, `c` (`CAS`: compare with `b`, store `c`); the
/// signed minimum and maximum compare as `i64`.
#[inline(always)]
pub fn atom64(op: AtomOp, old: u64, b: u64, c: u64) -> u64 {
    match op {
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::PopcInc => old.wrapping_add(1),
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::Exch => b,
        AtomOp::Cas | AtomOp::CasSpin { .. } => {
            if old == b {
                c
            } else {
                old
            }
        }
        AtomOp::Min { signed: true } => (old as i64).min(b as i64) as u64,
        AtomOp::Min { signed: false } => old.min(b),
        AtomOp::Max { signed: true } => (old as i64).max(b as i64) as u64,
        AtomOp::Max { signed: false } => old.max(b),
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
    }
}

/// What an atomic's destination receives: the old word, or for
/// `CAST.SPIN` 1 when the word equalled `b` (so it was stored), else 0.
#[inline(always)]
pub fn atom_result(op: AtomOp, old: u64, b: u64) -> u64 {
    match op {
        AtomOp::CasSpin { .. } => u64::from(old == b),
        _ => old,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redux_steps_by_hand() {
        // -1 and 3: signed min -1, unsigned min 3, max likewise.
        assert_eq!(redux(ReduxOp::Min, true, u32::MAX, 3), u32::MAX);
        assert_eq!(redux(ReduxOp::Min, false, u32::MAX, 3), 3);
        assert_eq!(redux(ReduxOp::Max, true, u32::MAX, 3), 3);
        assert_eq!(redux(ReduxOp::Sum, false, u32::MAX, 3), 2);
        assert_eq!(redux(ReduxOp::Xor, false, 0b110, 0b011), 0b101);
    }

    #[test]
    fn atomics_by_hand() {
        assert_eq!(atom(AtomOp::Add, 5, 7, 0), 12);
        assert_eq!(atom(AtomOp::Add, u32::MAX, 2, 0), 1);
        // atomicInc wraps to 0 at the bound.
        assert_eq!(atom(AtomOp::Inc, 3, 4, 0), 4);
        assert_eq!(atom(AtomOp::Inc, 4, 4, 0), 0);
        assert_eq!(atom(AtomOp::Dec, 0, 9, 0), 9);
        assert_eq!(atom(AtomOp::Dec, 5, 9, 0), 4);
        assert_eq!(atom(AtomOp::Dec, 10, 9, 0), 9);
        assert_eq!(atom(AtomOp::Exch, 1, 2, 0), 2);
        assert_eq!(atom(AtomOp::Cas, 1, 1, 8), 8);
        assert_eq!(atom(AtomOp::Cas, 2, 1, 8), 2);
        // -1 vs 3: signed min -1, unsigned min 3.
        assert_eq!(atom(AtomOp::Min { signed: true }, u32::MAX, 3, 0), u32::MAX);
        assert_eq!(atom(AtomOp::Min { signed: false }, u32::MAX, 3, 0), 3);
        assert_eq!(atom(AtomOp::Max { signed: true }, u32::MAX, 3, 0), 3);
        assert_eq!(atom(AtomOp::PopcInc, 6, 0, 0), 7);
        assert_eq!(atom(AtomOp::Xor, 0b1100, 0b1010, 0), 0b0110);
        // CAST.SPIN stores as CAS does; its destination says whether.
        let spin = AtomOp::CasSpin { p: 7 };
        assert_eq!(atom(spin, 1, 1, 8), 8);
        assert_eq!(atom(spin, 2, 1, 8), 2);
        assert_eq!(atom_result(spin, 1, 1), 1);
        assert_eq!(atom_result(spin, 2, 1), 0);
        assert_eq!(atom_result(AtomOp::Cas, 2, 1), 2);
    }

    #[test]
    fn isetp_ex_compares_64_bits() {
        // (1 << 32) == 1? high words 1 vs 0: no, whatever the low words.
        assert!(!icmp_ex(Cmp::Eq, true, 1, 0, true));
        // 0x0000_0000_0000_0001 == 1: high equal, low equal.
        assert!(icmp_ex(Cmp::Eq, true, 0, 0, true));
        assert!(!icmp_ex(Cmp::Eq, true, 0, 0, false));
        assert!(icmp_ex(Cmp::Ne, true, 1, 0, false));
        // -1 (high 0xffffffff) < 0 signed, not unsigned.
        assert!(icmp_ex(Cmp::Lt, false, u32::MAX, 0, false));
        assert!(!icmp_ex(Cmp::Lt, true, u32::MAX, 0, false));
        // Equal high words: the low compare decides.
        assert!(icmp_ex(Cmp::Ge, false, 5, 5, true));
        assert!(!icmp_ex(Cmp::Ge, false, 5, 5, false));
        assert!(icmp_ex(Cmp::Gt, false, 6, 5, false));
    }

    #[test]
    fn r2p_reads_one_bit_a_predicate() {
        // 0b101: P0 and P2 true, P1 false.
        assert!(r2p(0b101, 0));
        assert!(!r2p(0b101, 1));
        assert!(r2p(0b101, 2));
        assert!(!r2p(0b101, 6));
    }

    #[test]
    fn atomics_64_by_hand() {
        // 3 << 33 + 5 << 33 = 8 << 33: the carry out of bit 31 is kept.
        assert_eq!(atom64(AtomOp::Add, 3 << 33, 5 << 33, 0), 8 << 33);
        assert_eq!(atom64(AtomOp::Add, 0xffff_ffff, 1, 0), 1 << 32);
        // -1 vs 3: signed min -1 (all ones), unsigned min 3.
        assert_eq!(
            atom64(AtomOp::Min { signed: true }, u64::MAX, 3, 0),
            u64::MAX
        );
        assert_eq!(atom64(AtomOp::Min { signed: false }, u64::MAX, 3, 0), 3);
        assert_eq!(atom64(AtomOp::Max { signed: true }, u64::MAX, 3, 0), 3);
        // CAS compares all 64 bits: equal low words are not enough.
        assert_eq!(atom64(AtomOp::Cas, 1 << 32, 0, 9), 1 << 32);
        assert_eq!(atom64(AtomOp::Cas, 1 << 32, 1 << 32, 9), 9);
        let spin = AtomOp::CasSpin { p: 7 };
        assert_eq!(atom64(spin, 1 << 32, 1 << 32, 9), 9);
        assert_eq!(atom_result(spin, 1 << 32, 0), 0);
        assert_eq!(atom64(AtomOp::Exch, 1, 1 << 40, 0), 1 << 40);
    }

    #[test]
    fn special_registers_of_a_2d_launch() {
        // block_dim [32, 8], grid [4, 4]: thread 37 is (5, 1, 0); block 6
        // is (2, 1, 0).
        let p = Place {
            thread: 37,
            lane: 5,
            block: 6,
            block_dim: [32, 8, 1],
            grid_dim: [4, 4, 1],
            warp_slot: 3,
            clock: 0x1_0000_0007,
        };
        assert_eq!(special_reg(SpecialReg::TidX, p), 5);
        assert_eq!(special_reg(SpecialReg::TidY, p), 1);
        assert_eq!(special_reg(SpecialReg::TidZ, p), 0);
        assert_eq!(special_reg(SpecialReg::CtaidX, p), 2);
        assert_eq!(special_reg(SpecialReg::CtaidY, p), 1);
        assert_eq!(special_reg(SpecialReg::NtidX, p), 32);
        assert_eq!(special_reg(SpecialReg::CgaCtaId, p), 0);
        assert_eq!(special_reg(SpecialReg::ClockLo, p), 7);
        assert_eq!(special_reg(SpecialReg::ClockHi, p), 1);
        // Lane 5: lt = 0b11111, eq = 0b100000.
        assert_eq!(special_reg(SpecialReg::LtMask, p), 0x1f);
        assert_eq!(special_reg(SpecialReg::EqMask, p), 0x20);
        assert_eq!(special_reg(SpecialReg::GeMask, p), !0x1f);
        // 3-D: dims [4, 2, 3], thread 13 = 1 + 4*(1 + 2*1) -> (1, 1, 1).
        assert_eq!(unlinearise(13, [4, 2, 3]), [1, 1, 1]);
        assert_eq!(unlinearise(23, [4, 2, 3]), [3, 1, 2]);
    }

    #[test]
    fn lop3_truth_tables() {
        // 0xc0 = a & b, 0xfc = a | b, 0x3c = a ^ b, 0x96 = a ^ b ^ c.
        assert_eq!(lop3(0xc0, 0b1100, 0b1010, 0), 0b1000);
        assert_eq!(lop3(0xfc, 0b1100, 0b1010, 0), 0b1110);
        assert_eq!(lop3(0x3c, 0b1100, 0b1010, 0), 0b0110);
        assert_eq!(lop3(0x96, 0b1100, 0b1010, 0b1001), 0b1111);
    }

    #[test]
    fn conversions_round_and_saturate() {
        let b = |x: f32| x.to_bits();
        assert_eq!(f2i(Round::Nearest, false, b(2.5)), 2);
        assert_eq!(f2i(Round::Floor, false, b(-2.5)), (-3i32) as u32);
        assert_eq!(f2i(Round::Ceil, false, b(2.1)), 3);
        assert_eq!(f2i(Round::Trunc, false, b(1e20)), i32::MAX as u32);
        assert_eq!(f2i(Round::Trunc, false, b(f32::NAN)), 0);
        assert_eq!(f2i(Round::Trunc, true, b(-1.0)), 0);
    }

    #[test]
    fn float_compare_and_minmax_handle_nan() {
        let (nan, one, two) = (f32::NAN.to_bits(), 1f32.to_bits(), 2f32.to_bits());
        assert!(!fsetp(FCmp::Ordered(Cmp::Lt), nan, one));
        assert!(fsetp(FCmp::Unordered(Cmp::Lt), nan, one));
        assert_eq!(fmnmx(true, nan, two), two);
        assert_eq!(fmnmx(false, one, two), two);
        assert_eq!(canon(f32::NAN), CANONICAL_NAN);
    }
}

// ---- Lane ALU, f64 and rounding-mode opcodes of nvcc 13 listings ----

/// The NaN every f64 opcode writes (both words all ones but the sign).
pub const CANONICAL_NAN64: u64 = 0x7fff_ffff_ffff_ffff;

/// An f64 result as register-pair bits, NaN made canonical.
#[inline(always)]
pub fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        CANONICAL_NAN64
    } else {
        x.to_bits()
    }
}

/// Which value a funnel shift (`SHF`) shifts: `.U32`/`.S32` the 64-bit
/// `hi:lo` with the count clamped to 32 (`.S32` shifts the sign of `hi`
/// in on the right), `.U64` with the count clamped to 64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShfKind {
    U32,
    S32,
    U64,
}

/// `SHF.{L,R}[.W].kind[.HI] d, lo, s, hi`: the 64-bit `hi:lo` shifted
/// left or right by `s` (`.W`: `s & 31`, else clamped as [`ShfKind`]
/// says); `.HI` takes bits 63..32 of the result, else bits 31..0.
#[inline(always)]
pub fn shf(left: bool, wrap: bool, kind: ShfKind, high: bool, lo: u32, s: u32, hi: u32) -> u32 {
    let s = if wrap {
        s & 31
    } else {
        match kind {
            ShfKind::U64 => s.min(64),
            _ => s.min(32),
        }
    };
    let v = if kind == ShfKind::S32 {
        i128::from(hi as i32) << 32 | i128::from(lo)
    } else {
        i128::from(hi) << 32 | i128::from(lo)
    };
    let r = if left { v << s } else { v >> s };
    if high { (r >> 32) as u32 } else { r as u32 }
}

/// `PRMT d, a, sel, b`: byte `i` of `d` is byte `sel.nibble[i] & 7` of
/// the eight bytes `b:a` (`a` bytes 0..3), or that byte's sign replicated
/// when the nibble's bit 3 is set (the default mode).
#[inline(always)]
pub fn prmt(a: u32, sel: u32, b: u32) -> u32 {
    let bytes = u64::from(b) << 32 | u64::from(a);
    (0..4).fold(0, |r, i| {
        let n = sel >> (4 * i) & 0xf;
        let byte = (bytes >> (8 * (n & 7)) & 0xff) as u32;
        let byte = if n & 8 != 0 {
            if byte & 0x80 != 0 { 0xff } else { 0 }
        } else {
            byte
        };
        r | byte << (8 * i)
    })
}

/// `FLO.U32 d, a`: the index of the highest set bit (`.SH`: the count of
/// leading zeros); `0xffffffff` when `a` is 0. `.S32` finds the highest
/// bit that differs from the sign (of `!a` for a negative `a`).
#[inline(always)]
pub fn flo(signed: bool, sh: bool, a: u32) -> u32 {
    let a = if signed && (a as i32) < 0 { !a } else { a };
    if a == 0 {
        return u32::MAX;
    }
    let lz = a.leading_zeros();
    if sh { lz } else { 31 - lz }
}

/// `BREV d, a`: the bits of `a` in reverse order.
#[inline(always)]
pub fn brev(a: u32) -> u32 {
    a.reverse_bits()
}

/// `PLOP3.LUT`: the truth table `lut` (as `LOP3`'s) on three predicates.
#[inline(always)]
pub fn plop3(lut: u8, a: bool, b: bool, c: bool) -> bool {
    lut >> (usize::from(a) << 2 | usize::from(b) << 1 | usize::from(c)) & 1 != 0
}

/// `IADD.64`/`IADD` on 64 bits: the wrapping sum.
#[inline(always)]
pub fn iadd64(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

/// `VIADDMNMX d, a, b, c, Pp`: `min(a + b, c)` when `p`, else the max.
#[inline(always)]
pub fn viaddmnmx(take_min: bool, unsigned: bool, a: u32, b: u32, c: u32) -> u32 {
    imnmx(take_min, unsigned, a.wrapping_add(b), c)
}

/// Rounds the exact value `p + e` (`p` its binary64 rounding to nearest,
/// `e` the exact residual) as `round` says: `p` itself, or its neighbour
/// in the direction the residual asks for.
#[inline]
fn directed64(round: Round, p: f64, e: f64) -> f64 {
    if p.is_nan() {
        return p;
    }
    if p.is_infinite() {
        // An overflow rounds to the largest finite value when the mode
        // rounds toward zero from that side.
        let toward_zero = match round {
            Round::Nearest | Round::Ceil if p > 0.0 => false,
            Round::Nearest | Round::Floor if p < 0.0 => false,
            _ => true,
        };
        return if toward_zero && e.is_nan() {
            f64::MAX.copysign(p)
        } else {
            p
        };
    }
    match round {
        Round::Nearest => p,
        Round::Ceil if e > 0.0 => p.next_up(),
        Round::Floor if e < 0.0 => p.next_down(),
        Round::Trunc if p > 0.0 && e < 0.0 => p.next_down(),
        Round::Trunc if p < 0.0 && e > 0.0 => p.next_up(),
        _ => p,
    }
}

/// Knuth's two-sum: `(s, e)` with `s = RN(a + b)` and `a + b = s + e` exactly.
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let t = s - a;
    let e = (a - (s - t)) + (b - t);
    (s, if e.is_nan() { f64::NAN } else { e })
}

/// `DFMA[.RN|.RZ|.RM|.RP] d, a, b, c` on f64 bits, fused: `std`'s fused
/// multiply-add rounds to nearest; the directed modes take the neighbour
/// the exact residual `(a*b + c) - RN` points to (the residual of a fused
/// multiply-add is itself not exact in general, but its sign is: it comes
/// from the correctly rounded `fma(a, b, c - RN)` computed in two steps).
#[inline]
pub fn dfma(round: Round, a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let p = x.mul_add(y, z);
    if round == Round::Nearest || !p.is_finite() {
        let e = if p.is_finite() { 0.0 } else { f64::NAN };
        let finite_in = x.is_finite() && y.is_finite() && z.is_finite();
        return canon64(directed64(round, p, if finite_in { e } else { 0.0 }));
    }
    // x*y = hi + lo exactly (fma residual), then (hi - p) + z + lo is
    // exact's residual; its sign is all directed rounding needs.
    let hi = x * y;
    let lo = x.mul_add(y, -hi);
    let (s1, e1) = two_sum(hi, z);
    // exact - p = (s1 - p) + e1 + lo; s1 - p is exact (p is RN of a
    // value within an ulp of s1).
    let (s2, e2) = two_sum(s1 - p, lo);
    let e = s2 + (e2 + e1);
    canon64(directed64(round, p, e))
}

/// `DADD[.rnd] d, a, b`.
#[inline]
pub fn dadd(round: Round, a: u64, b: u64) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let (s, e) = two_sum(x, y);
    let e = if x.is_finite() && y.is_finite() {
        e
    } else {
        0.0
    };
    canon64(directed64(round, s, e))
}

/// `DMUL[.rnd] d, a, b`: the residual of the product is exact (fma).
#[inline]
pub fn dmul(round: Round, a: u64, b: u64) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let p = x * y;
    let e = if x.is_finite() && y.is_finite() {
        if p.is_finite() {
            x.mul_add(y, -p)
        } else {
            f64::NAN
        }
    } else {
        0.0
    };
    canon64(directed64(round, p, e))
}

/// `DSETP`: as [`fsetp`] on f64 values.
#[inline(always)]
pub fn dsetp(c: FCmp, a: u64, b: u64) -> bool {
    let (a, b) = (f64::from_bits(a), f64::from_bits(b));
    let unordered = a.is_nan() || b.is_nan();
    match c {
        FCmp::Ordered(k) => !unordered && cmp(k, a, b),
        FCmp::Unordered(k) => unordered || cmp(k, a, b),
        FCmp::Num => !unordered,
        FCmp::Nan => unordered,
    }
}

/// Rounds the exact value `s + e` (`s` binary64, `e` a residual whose
/// sign is exact) to binary32 as `round` says, flushing a subnormal
/// result to a signed zero when `ftz`.
#[inline]
pub fn to_f32(round: Round, ftz: bool, s: f64, e: f64) -> u32 {
    let r = s as f32;
    let out = if s.is_nan() || (r.is_infinite() && s.is_infinite()) {
        r
    } else {
        // Sign of exact - r: that of s - r when they differ (s - r is a
        // nonzero multiple of s's ulp, |e| at most half of one), else e's.
        let d = if f64::from(r) != s {
            s - f64::from(r)
        } else {
            e
        };
        match round {
            Round::Nearest => r,
            Round::Ceil if d > 0.0 => r.next_up(),
            Round::Floor if d < 0.0 => r.next_down(),
            Round::Trunc if r.is_infinite() => f32::MAX.copysign(r),
            Round::Ceil if r == f32::NEG_INFINITY => f32::MIN,
            Round::Floor if r == f32::INFINITY => f32::MAX,
            Round::Trunc if r > 0.0 && d < 0.0 => r.next_down(),
            Round::Trunc if r < 0.0 && d > 0.0 => r.next_up(),
            _ => r,
        }
    };
    let out = if ftz && out.is_subnormal() {
        0.0f32.copysign(out)
    } else {
        out
    };
    canon(out)
}

/// A binary32 source, flushed to a signed zero when subnormal and `ftz`.
#[inline(always)]
fn f_in(ftz: bool, a: u32) -> f64 {
    let x = f(a);
    f64::from(if ftz && x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    })
}

/// `.SAT`: clamps to [0, 1], NaN to +0.
#[inline(always)]
fn saturate(sat: bool, bits: u32) -> u32 {
    if !sat {
        return bits;
    }
    let x = f(bits);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        1.0f32.to_bits()
    } else {
        bits
    }
}

/// `FFMA[.FTZ][.rnd][.SAT] d, a, b, c`: the product is exact in binary64,
/// the sum's residual comes from two-sum, so one directed rounding of the
/// exact `a*b + c` to binary32.
#[inline]
pub fn ffma_rnd(round: Round, ftz: bool, sat: bool, a: u32, b: u32, c: u32) -> u32 {
    let (x, y, z) = (f_in(ftz, a), f_in(ftz, b), f_in(ftz, c));
    let p = x * y;
    let (s, e) = two_sum(p, z);
    let e = if s.is_finite() { e } else { 0.0 };
    saturate(sat, to_f32(round, ftz, s, e))
}

/// `FADD[.FTZ][.rnd][.SAT] d, a, b`.
#[inline]
pub fn fadd_rnd(round: Round, ftz: bool, sat: bool, a: u32, b: u32) -> u32 {
    let (s, e) = two_sum(f_in(ftz, a), f_in(ftz, b));
    let e = if s.is_finite() { e } else { 0.0 };
    saturate(sat, to_f32(round, ftz, s, e))
}

/// `FMUL[.FTZ][.rnd][.SAT] d, a, b`: the product is exact in binary64.
#[inline]
pub fn fmul_rnd(round: Round, ftz: bool, sat: bool, a: u32, b: u32) -> u32 {
    let p = f_in(ftz, a) * f_in(ftz, b);
    saturate(sat, to_f32(round, ftz, p, 0.0))
}

/// `I2F[.U32][.rnd] d, a` (binary32 result): the integer is exact in
/// binary64, one directed rounding to binary32.
#[inline]
pub fn i2f_rnd(round: Round, unsigned: bool, a: u32) -> u32 {
    let v = if unsigned {
        f64::from(a)
    } else {
        f64::from(a as i32)
    };
    to_f32(round, false, v, 0.0)
}

/// `I2F.F64[.S64|.U64|.U32] d, a`: an integer (64-bit for `.S64`/`.U64`)
/// to the nearest binary64.
#[inline]
pub fn i2f64(signed: bool, wide: bool, a: u64) -> u64 {
    let v = match (signed, wide) {
        (true, true) => a as i64 as f64,
        (false, true) => a as f64,
        (true, false) => f64::from(a as u32 as i32),
        (false, false) => f64::from(a as u32),
    };
    v.to_bits()
}

/// `F2F.F64.F32 d, a`: exact widening.
#[inline]
pub fn f2f_f64_f32(a: u32) -> u64 {
    let x = f(a);
    if x.is_nan() {
        CANONICAL_NAN64
    } else {
        f64::from(x).to_bits()
    }
}

/// `F2F.F32.F64[.rnd][.FTZ] d, a`: one rounding to binary32.
#[inline]
pub fn f2f_f32_f64(round: Round, ftz: bool, a: u64) -> u32 {
    to_f32(round, ftz, f64::from_bits(a), 0.0)
}

/// `F2I[.U32][.S64].F64 d, a`: an f64 rounded as asked, saturating, NaN to 0.
#[inline]
pub fn f2i_f64(round: Round, unsigned: bool, a: u64) -> u32 {
    let x = f64::from_bits(a);
    let r = match round {
        Round::Nearest => x.round_ties_even(),
        Round::Trunc => x.trunc(),
        Round::Floor => x.floor(),
        Round::Ceil => x.ceil(),
    };
    if unsigned { r as u32 } else { r as i32 as u32 }
}

/// `MUFU.RCP64H d, a`: the high word of an approximate reciprocal of the
/// f64 whose high word is `a` (low word taken as 0); the hardware's
/// approximation is seeded this way for a Newton iteration, which the
/// listings then do in DFMA. Here: the high word of the correctly rounded
/// `1 / (a:0)`.
#[inline]
pub fn rcp64h(a: u32) -> u32 {
    let x = f64::from_bits(u64::from(a) << 32);
    (canon64(1.0 / x) >> 32) as u32
}

/// `HFMA2 d, a, b, c` on two binary16 halves: `d.h = RN16(a.h * b.h +
/// c.h)`, each half fused. The exact product of two halves fits binary64
/// and so does the sum with a third half when the exponents are within
/// range; two-sum gives the residual's sign for the single rounding.
#[inline]
pub fn hfma2(a: u32, b: u32, c: u32) -> u32 {
    let half = |x: u32, k: u32| f16_to_f64((x >> (16 * k)) as u16);
    let lane = |k: u32| {
        let (s, e) = two_sum(half(a, k) * half(b, k), half(c, k));
        u32::from(f64_to_f16(s, if s.is_finite() { e } else { 0.0 }))
    };
    lane(0) | lane(1) << 16
}

/// A binary16 value, exactly.
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from(h >> 10 & 0x1f);
    let man = f64::from(h & 0x3ff);
    sign * match exp {
        0 => man * 2f64.powi(-24),
        31 if man == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + man) * 2f64.powi(exp - 25),
    }
}

/// The binary16 nearest (ties to even) to the exact value `s + e`, `e`
/// a residual whose sign decides ties; NaN is the canonical `0x7fff`.
pub fn f64_to_f16(s: f64, e: f64) -> u16 {
    if s.is_nan() {
        return 0x7fff;
    }
    let sign: u16 = if s.is_sign_negative() { 0x8000 } else { 0 };
    let a = s.abs();
    // The spacing of binary16 values around `a`: 2^-24 below 2^-14.
    let exp = if a < 2f64.powi(-14) {
        -14
    } else {
        a.log2().floor() as i32
    };
    let exp = if a >= 2f64.powi(exp + 1) {
        exp + 1
    } else {
        exp
    };
    let ulp = 2f64.powi(exp.max(-14) - 10);
    let q = a / ulp; // exact: a power-of-two scaling
    let fl = q.floor();
    let frac = q - fl;
    // The residual's sign, relative to |s|.
    let e = if s < 0.0 { -e } else { e };
    let up = frac > 0.5 || (frac == 0.5 && (e > 0.0 || (e == 0.0 && fl % 2.0 == 1.0)));
    let m = if up { fl + 1.0 } else { fl } * ulp;
    if m >= 65520.0 || m.is_infinite() {
        return sign | 0x7c00;
    }
    // Re-encode m, a binary16 value.
    let bits = if m < 2f64.powi(-14) {
        (m / 2f64.powi(-24)) as u16
    } else {
        let ex = m.log2().floor() as i32;
        let ex = if m >= 2f64.powi(ex + 1) { ex + 1 } else { ex };
        let man = (m / 2f64.powi(ex - 10)) as u16 - 1024;
        ((ex + 15) as u16) << 10 | man
    };
    sign | bits
}

#[cfg(test)]
mod alu_tests {
    use super::*;

    #[test]
    fn funnel_shifts() {
        // Hand-computed: SHF.R.U32.HI R3, RZ, 0x1f, R0 is R0 >> 31 (logical).
        assert_eq!(shf(false, false, ShfKind::U32, true, 0, 31, 0x8000_0000), 1);
        // SHF.R.S32.HI: the sign of R0 spread.
        assert_eq!(
            shf(false, false, ShfKind::S32, true, 0, 31, 0x8000_0000),
            u32::MAX
        );
        // SHF.L.U32 R0, R5, 0x1, RZ: R5 << 1.
        assert_eq!(shf(true, false, ShfKind::U32, false, 0x8000_0003, 1, 0), 6);
        // SHF.L.U64.HI d, lo, 4, hi: high word of (0x1:0xf0000000) << 4 = 0x1f.
        assert_eq!(
            shf(true, false, ShfKind::U64, true, 0xf000_0000, 4, 1),
            0x1f
        );
        // SHF.R.U64 d, lo, 1, hi: low word of (0x3:0x2) >> 1 = 0x8000_0001.
        assert_eq!(shf(false, false, ShfKind::U64, false, 2, 1, 3), 0x8000_0001);
        // .W wraps the count: 33 & 31 = 1; same register in lo and hi rotates.
        assert_eq!(
            shf(true, true, ShfKind::U32, true, 0x8000_0001, 33, 0x8000_0001),
            3
        );
        // Without .W the count clamps at 32: lo moves entirely into hi.
        assert_eq!(
            shf(true, false, ShfKind::U32, true, 0x1234, 40, 0xffff),
            0x1234
        );
    }

    #[test]
    fn byte_permute_leading_zeros_and_bit_reverse() {
        // 0x9910: bytes 0, 1 of a, then byte 1's sign twice (a 16-bit sign extension).
        assert_eq!(prmt(0x0000_8012, 0x9910, 0), 0xffff_8012);
        assert_eq!(prmt(0x0000_7012, 0x9910, 0), 0x0000_7012);
        // 0x7710 with b = RZ: bytes 0, 1 of a, byte 7 (b's top) twice.
        assert_eq!(prmt(0xabcd_8012, 0x7710, 0x0100_0000), 0x0101_8012);
        // 0x3210 is the identity; 0x0123 reverses the bytes.
        assert_eq!(prmt(0x1122_3344, 0x0123, 0), 0x4433_2211);
        assert_eq!(flo(false, false, 0x0001_0000), 16);
        assert_eq!(flo(false, true, 0x0001_0000), 15);
        assert_eq!(flo(false, false, 0), u32::MAX);
        assert_eq!(flo(true, false, 0xffff_fff0), 3); // !a = 0xf
        assert_eq!(brev(1), 0x8000_0000);
        assert_eq!(brev(0x0000_00f0), 0x0f00_0000);
    }

    #[test]
    fn predicate_truth_tables_and_wide_adds() {
        // 0x80 is a & b & c, 0x08 is !a & b & c (index 0b011), 0xfe any.
        assert!(plop3(0x80, true, true, true));
        assert!(!plop3(0x80, true, true, false));
        assert!(plop3(0x08, false, true, true));
        assert!(!plop3(0x08, true, true, true));
        assert!(plop3(0xfe, false, false, true));
        assert_eq!(iadd64(0x0000_0000_ffff_ffff, 1), 0x1_0000_0000);
        assert_eq!(iadd64(5, (-7i64) as u64), (-2i64) as u64);
        assert_eq!(viaddmnmx(true, false, 5, 3, 7), 7); // min(8, 7)
        assert_eq!(viaddmnmx(false, false, (-5i32) as u32, 3, 0), 0); // max(-2, 0)
        assert_eq!(viaddmnmx(true, true, (-5i32) as u32, 3, 0), 0); // min(0xffff_fffe, 0) unsigned
    }

    #[test]
    fn f64_arithmetic_rounds_as_asked() {
        let one = 1.0f64.to_bits();
        let third = (1.0f64 / 3.0).to_bits();
        // 1/3 (RN) * 3 = 1 - 2^-54 exactly before rounding: RN gives 1,
        // RP gives 1, RM and RZ give the value just below 1.
        let three = 3.0f64.to_bits();
        assert_eq!(dmul(Round::Nearest, third, three), one);
        assert_eq!(dmul(Round::Ceil, third, three), one);
        assert_eq!(
            dmul(Round::Floor, third, three),
            1.0f64.next_down().to_bits()
        );
        assert_eq!(
            dmul(Round::Trunc, third, three),
            1.0f64.next_down().to_bits()
        );
        // 1 + 2^-60: RN and RM give 1, RP the next value above 1.
        let tiny = 2f64.powi(-60).to_bits();
        assert_eq!(dadd(Round::Nearest, one, tiny), one);
        assert_eq!(dadd(Round::Ceil, one, tiny), 1.0f64.next_up().to_bits());
        assert_eq!(dadd(Round::Floor, one, tiny), one);
        // DFMA(-x, rcp, 1) style: 3 * (1/3) - 1 is exactly -2^-54 (fused).
        let m_one = (-1.0f64).to_bits();
        assert_eq!(
            f64::from_bits(dfma(Round::Nearest, three, third, m_one)),
            -(2f64.powi(-54))
        );
        // fma(1, 1, 2^-60) under RP is just above 1.
        assert_eq!(
            dfma(Round::Ceil, one, one, tiny),
            1.0f64.next_up().to_bits()
        );
        assert_eq!(dfma(Round::Nearest, one, one, tiny), one);
        assert_eq!(
            dadd(Round::Nearest, f64::NAN.to_bits(), one),
            CANONICAL_NAN64
        );
        assert!(dsetp(
            FCmp::Ordered(Cmp::Gt),
            101f64.to_bits(),
            100f64.to_bits()
        ));
        assert!(dsetp(FCmp::Nan, f64::NAN.to_bits(), one));
        assert!(!dsetp(FCmp::Ordered(Cmp::Lt), f64::NAN.to_bits(), one));
        assert!(dsetp(FCmp::Unordered(Cmp::Lt), f64::NAN.to_bits(), one));
        // DMUL overflow rounds toward zero to the largest finite value.
        let big = f64::MAX.to_bits();
        assert_eq!(dmul(Round::Trunc, big, 2f64.to_bits()), big);
        assert_eq!(
            dmul(Round::Nearest, big, 2f64.to_bits()),
            f64::INFINITY.to_bits()
        );
    }

    #[test]
    fn f32_directed_rounding() {
        let one = 1.0f32.to_bits();
        let eps = 2f32.powi(-30).to_bits();
        // 1 + 2^-30: RN and RM give 1, RP the next binary32 above 1.
        assert_eq!(fadd_rnd(Round::Nearest, false, false, one, eps), one);
        assert_eq!(
            fadd_rnd(Round::Ceil, false, false, one, eps),
            1.0f32.next_up().to_bits()
        );
        assert_eq!(fadd_rnd(Round::Floor, false, false, one, eps), one);
        // 1 - 2^-30 under RZ/RM: just below 1; RN: 1.
        let m_eps = (-(2f32.powi(-30))).to_bits();
        assert_eq!(
            fadd_rnd(Round::Trunc, false, false, one, m_eps),
            1.0f32.next_down().to_bits()
        );
        assert_eq!(fadd_rnd(Round::Nearest, false, false, one, m_eps), one);
        // FFMA: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24, exactly half a binary32
        // ulp (2^-23) above 1 + 2^-11; with c = 2^-30 it is just past the
        // tie: RN and RP round up, RM down.
        let x = (1.0f32 + 2f32.powi(-12)).to_bits();
        assert_eq!(
            ffma_rnd(Round::Nearest, false, false, x, x, eps),
            (1.0f32 + 2f32.powi(-11)).next_up().to_bits()
        );
        assert_eq!(
            ffma_rnd(Round::Floor, false, false, x, x, eps),
            (1.0f32 + 2f32.powi(-11)).to_bits()
        );
        assert_eq!(
            ffma_rnd(Round::Ceil, false, false, x, x, eps),
            (1.0f32 + 2f32.powi(-11)).next_up().to_bits()
        );
        // The product 1 + 2^-11 + 2^-24 rounds to nearest (a tie to even: down),
        // RP up, RM down.
        let zero = 0u32;
        assert_eq!(
            ffma_rnd(Round::Nearest, false, false, x, x, zero),
            (1.0f32 + 2f32.powi(-11)).to_bits()
        );
        assert_eq!(
            ffma_rnd(Round::Floor, false, false, x, x, zero),
            (1.0f32 + 2f32.powi(-11)).to_bits()
        );
        assert_eq!(
            ffma_rnd(Round::Ceil, false, false, x, x, zero),
            (1.0f32 + 2f32.powi(-11)).next_up().to_bits()
        );
        assert_eq!(
            fmul_rnd(Round::Ceil, false, false, x, x),
            (1.0f32 + 2f32.powi(-11)).next_up().to_bits()
        );
        // FTZ flushes a subnormal source and result; SAT clamps.
        let sub = 1u32; // the smallest subnormal
        assert_eq!(fadd_rnd(Round::Nearest, true, false, sub, 0), 0);
        assert_eq!(fadd_rnd(Round::Nearest, false, false, sub, 0), 1);
        assert_eq!(
            fadd_rnd(Round::Nearest, false, true, 2.0f32.to_bits(), one),
            one
        );
        assert_eq!(
            fadd_rnd(Round::Nearest, false, true, (-2.0f32).to_bits(), one),
            0
        );
        // FADD.FTZ R7, -R6, -RZ: -x + -0 = -x.
        assert_eq!(
            fadd_rnd(
                Round::Nearest,
                true,
                false,
                (-3.0f32).to_bits(),
                0x8000_0000
            ),
            (-3.0f32).to_bits()
        );
        // I2F.U32.RP of 2^24 + 1: RN gives 2^24 (tie to even), RP 2^24 + 2.
        assert_eq!(
            i2f_rnd(Round::Nearest, true, (1 << 24) + 1),
            16_777_216f32.to_bits()
        );
        assert_eq!(
            i2f_rnd(Round::Ceil, true, (1 << 24) + 1),
            16_777_218f32.to_bits()
        );
        assert_eq!(
            i2f_rnd(Round::Nearest, false, u32::MAX),
            (-1.0f32).to_bits()
        );
    }

    #[test]
    fn conversions_through_f64() {
        assert_eq!(
            i2f64(true, false, u64::from((-3i32) as u32)),
            (-3.0f64).to_bits()
        );
        assert_eq!(i2f64(false, false, 0xffff_ffff), 4_294_967_295f64.to_bits());
        assert_eq!(
            i2f64(true, true, (-(1i64 << 40)) as u64),
            (-(2f64.powi(40))).to_bits()
        );
        assert_eq!(f2f_f64_f32(1.5f32.to_bits()), 1.5f64.to_bits());
        // 1 + 2^-30 in binary64 to binary32: RN 1, RP next above 1.
        let v = (1.0f64 + 2f64.powi(-30)).to_bits();
        assert_eq!(f2f_f32_f64(Round::Nearest, false, v), 1.0f32.to_bits());
        assert_eq!(
            f2f_f32_f64(Round::Ceil, false, v),
            1.0f32.next_up().to_bits()
        );
        assert_eq!(
            f2i_f64(Round::Trunc, false, (-2.7f64).to_bits()),
            (-2i32) as u32
        );
        assert_eq!(f2i_f64(Round::Nearest, true, 2.5f64.to_bits()), 2);
        // MUFU.RCP64H of 2.0's high word (0x40000000): 0.5's is 0x3fe00000.
        assert_eq!(rcp64h(0x4000_0000), 0x3fe0_0000);
    }

    #[test]
    fn half2_fused_multiply_add() {
        // HFMA2.MMA R5, -RZ, RZ, 1.875, 0: -0 * 0 + (1.875 : 0); 1.875 is
        // binary16 0x3f80 (exponent 15, mantissa 0x380), the high half.
        assert_eq!(hfma2(0x8000_8000, 0, 0x3f80_0000), 0x3f80_0000);
        // HFMA2 R23, -RZ, RZ, 0, 5.96e-05: the low half 0x03e8 (a subnormal).
        assert_eq!(hfma2(0x8000_8000, 0, 0x0000_03e8), 0x0000_03e8);
        // 1.5 * 2 + 0.25 = 3.25 (0x4280) in both halves.
        assert_eq!(hfma2(0x3e00_3e00, 0x4000_4000, 0x3400_3400), 0x4280_4280);
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even (1, 0x3c00);
        // with + 2^-24 more it rounds up (0x3c01).
        assert_eq!(hfma2(0x3c00, 0x3c00, 0x1000), 0x3c00); // 2^-11 is 0x1000
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11), 1e-30), 0x3c01);
        assert_eq!(f64_to_f16(65520.0, 0.0), 0x7c00);
        assert_eq!(f64_to_f16(65504.0, 0.0), 0x7bff);
        assert_eq!(f16_to_f64(0x7bff), 65504.0);
    }
}
