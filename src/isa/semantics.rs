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

/// `IMAD.HI`: the high 32 bits of the 64-bit `a * b`, plus `c`.
#[inline(always)]
pub fn imad_hi(signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let p = widen(a, signed).wrapping_mul(widen(b, signed));
    ((p >> 32) as u32).wrapping_add(c)
}

/// `IMAD.WIDE`: the 64-bit `a * b + addend`.
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
    let x = f(a);
    canon(match func {
        MufuOp::Ex2 => libm::exp2f(x),
        MufuOp::Lg2 => libm::log2f(x),
        MufuOp::Rcp => 1.0 / x,
        MufuOp::Rsq => 1.0 / libm::sqrtf(x),
        MufuOp::Sqrt => libm::sqrtf(x),
        MufuOp::Sin => libm::sinf(x),
        MufuOp::Cos => libm::cosf(x),
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

/// `SHF`/`USHF`: funnel shift of the 64-bit `hi:lo` by `sh` (mod 64 for
/// the 64-bit forms, clamped to 32 for the 32-bit ones as SASS does):
/// `.HI` the high word of the result, else the low. A right shift with
/// `signed` brings in copies of the sign of `hi`.
#[inline(always)]
pub fn funnel_shift(left: bool, high: bool, signed: bool, lo: u32, sh: u32, hi: u32) -> u32 {
    let v = u64::from(hi) << 32 | u64::from(lo);
    let n = sh & 63;
    let r = if left {
        v << n
    } else if signed {
        ((v as i64) >> n) as u64
    } else {
        v >> n
    };
    if high { (r >> 32) as u32 } else { r as u32 }
}

/// `PRMT`/`UPRMT` (default mode): byte `k` of the result is byte
/// `sel >> 4k & 7` of the pair `b:a` (a is bytes 0..3), or, where bit 3 of
/// that nibble is set, that byte's sign bit replicated.
#[inline(always)]
pub fn byte_permute(a: u32, sel: u32, b: u32) -> u32 {
    let pair = u64::from(b) << 32 | u64::from(a);
    (0..4).fold(0, |r, k| {
        let nib = sel >> (4 * k) & 0xf;
        let byte = (pair >> (8 * (nib & 7)) & 0xff) as u32;
        let byte = if nib & 8 != 0 {
            if byte & 0x80 != 0 { 0xff } else { 0 }
        } else {
            byte
        };
        r | byte << (8 * k)
    })
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

/// An atomic's new value in memory from the `old` one and the operands
/// `b`, `c` (`CAS`: compare with `b`, store `c`).
#[inline(always)]
pub fn atom(op: AtomOp, old: u32, b: u32, c: u32) -> u32 {
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
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        AtomOp::Min { signed: true } => (old as i32).min(b as i32) as u32,
        AtomOp::Min { signed: false } => old.min(b),
        AtomOp::Max { signed: true } => (old as i32).max(b as i32) as u32,
        AtomOp::Max { signed: false } => old.max(b),
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn funnel_shifts_by_hand() {
        // USHF.R.U32.HI UR5, URZ, 0x1, UR5: hi >> 1. 0x8000_0003 >> 1.
        assert_eq!(
            funnel_shift(false, true, false, 0, 1, 0x8000_0003),
            0x4000_0001
        );
        // Low word of a right funnel: 0x1_0000_0000 >> 4 -> 0x1000_0000.
        assert_eq!(funnel_shift(false, false, false, 0, 4, 1), 0x1000_0000);
        // Signed: 0xffff_fff0:0 >> 4 (arithmetic) high word = 0xffff_ffff.
        assert_eq!(
            funnel_shift(false, true, true, 0, 4, 0xffff_fff0),
            0xffff_ffff
        );
        // Left .HI: (0x0000_0001:0x8000_0000) << 1 -> hi 0x3.
        assert_eq!(funnel_shift(true, true, false, 0x8000_0000, 1, 1), 3);
        // Left low word: 0x8000_0001 << 1 = 0x2 (bit 31 leaves).
        assert_eq!(funnel_shift(true, false, false, 0x8000_0001, 1, 0), 2);
    }

    #[test]
    fn byte_permute_by_hand() {
        // UPRMT UR6, UR7, 0x7770, URZ: byte 0 of a, then bytes 7 (of b = 0).
        assert_eq!(byte_permute(0x1122_3344, 0x7770, 0), 0x44);
        // Identity 0x3210 and swap 0x0123.
        assert_eq!(byte_permute(0x1122_3344, 0x3210, 0), 0x1122_3344);
        assert_eq!(byte_permute(0x1122_3344, 0x0123, 0), 0x4433_2211);
        // Sign replicate of byte 0 (0x84): nibble 8 -> 0xff.
        assert_eq!(byte_permute(0x84, 0x8880, 0), 0xffff_ff84);
        // Bytes of b: nibble 4 is byte 0 of b.
        assert_eq!(byte_permute(0, 0x4444, 0xab), 0xabab_abab);
    }

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
