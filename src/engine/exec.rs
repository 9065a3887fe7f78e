//! Functional execution: what an instruction does to the lanes that are on.
//!
//! The operation runs over every lane (a tight loop the compiler
//! vectorises) and results are written back under the predicated-on mask.
//! The common arithmetic reads its sources where they are (a 32-lane
//! register row in place, an immediate as one value); the rest gathers
//! sources for all lanes into fixed arrays first. Nothing here allocates.
//!
//! Floating point is IEEE binary32 with round-to-nearest, FFMA fused, and
//! the special functions from the `libm` crate, so results are the same on
//! every machine; a NaN result is stored as `0x7fffffff`, the canonical NaN
//! NVIDIA GPUs produce.

use crate::asm::ir::{
    Cmp, Combine, FCmp, MemRef, MufuOp, MulMode, Op, PT, RZ, Round, ShflMode, SpecialReg, Src,
    VoteMode, Width,
};

use super::convergence::its::lanes;
use super::memory::{self, Coalescing, FaultKind, GlobalMemory, SharedMemory};
use super::warp::{Warp, lane_mask};

const CANONICAL_NAN: u32 = 0x7fff_ffff;

/// Reusable buffers for one instruction's execution.
#[derive(Debug, Clone)]
pub struct Scratch {
    /// Source and result lanes, kept between instructions so that
    /// execution does not clear 1 KiB of stack each time.
    pub lanes: [Lanes; 5],
    pub accesses: Vec<(u32, u32)>,
    pub bank_words: Vec<(u32, u32)>,
    /// Lanes that faulted: `(lane, address, kind)`.
    pub faults: Vec<(u32, u32, FaultKind)>,
}

/// What an executing instruction other than a load or store needs besides
/// its warp (a few values: inlined away, never built in memory).
pub struct Env<'a> {
    pub scratch: &'a mut Scratch,
    pub block_dim: u32,
    pub blocks: u32,
    /// High word of a 64-bit constant addend (`IMAD.WIDE ... c[..]`).
    pub c_hi: u32,
}

/// What a load or store needs besides its warp.
pub struct MemEnv<'a> {
    pub global: &'a mut GlobalMemory,
    /// The issuing block's shared memory (only looked up for LDS/STS).
    pub shared: Option<&'a mut SharedMemory>,
    pub banks: u32,
    pub scratch: &'a mut Scratch,
}

/// The memory-system effect of one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemEffect {
    None,
    /// A global access by at least one lane.
    Global(Coalescing),
    /// A shared access taking `passes` passes through the banks.
    Shared {
        passes: u32,
    },
}

type Lanes = [u32; 64];

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            lanes: [[0; 64]; 5],
            accesses: Vec::with_capacity(64),
            bank_words: Vec::with_capacity(256),
            faults: Vec::new(),
        }
    }
}

/// Copies lanes; the common widths are fixed-size copies the compiler
/// inlines instead of calling `memcpy`.
#[inline(always)]
fn copy_lanes(dst: &mut [u32], src: &[u32]) {
    match (dst.len(), src.len()) {
        (32, 32) => {
            let d: &mut [u32; 32] = dst.try_into().unwrap_or_else(|_| unreachable!());
            let s: &[u32; 32] = src.try_into().unwrap_or_else(|_| unreachable!());
            *d = *s;
        }
        _ => dst.copy_from_slice(src),
    }
}

/// Sets every lane to `v`; as [`copy_lanes`], the common width is a
/// fixed-size store instead of a loop.
#[inline(always)]
fn fill_lanes(dst: &mut [u32], v: u32) {
    match <&mut [u32; 32]>::try_from(&mut *dst) {
        Ok(d) => *d = [v; 32],
        Err(_) => dst.fill(v),
    }
}

/// Lanes per warp: `N`, or the warp's width when `N` is 0. Execution is
/// compiled once for the common 32-lane warp, where every lane loop has a
/// fixed length, and once for any width.
#[inline(always)]
fn lanes_of<const N: usize>(w: &Warp) -> usize {
    if N == 0 {
        // At most 64 lanes: stating it lets the compiler drop bounds checks.
        (w.width as usize).min(64)
    } else {
        N
    }
}

fn row<const N: usize>(w: &Warp, r: u8) -> Option<&[u32]> {
    if r == RZ {
        return None;
    }
    let n = lanes_of::<N>(w);
    w.regs.get(usize::from(r) * n..(usize::from(r) + 1) * n)
}

/// A source's lanes. Integer view (`float` false): `-R` negates, `~R`
/// inverts. Float view: `|R|` clears the sign bit, `-R` flips it.
#[inline(always)]
fn fetch<const N: usize>(w: &Warp, s: Src, out: &mut Lanes, float: bool) {
    let n = lanes_of::<N>(w);
    match s {
        Src::Reg(r) => {
            match row::<N>(w, r.reg) {
                Some(v) => copy_lanes(&mut out[..n], v),
                None => fill_lanes(&mut out[..n], 0),
            }
            let lanes = &mut out[..n];
            match (float, r.neg) {
                (false, _) if r.not => lanes.iter_mut().for_each(|x| *x = !*x),
                (true, _) if r.abs => lanes.iter_mut().for_each(|x| *x &= 0x7fff_ffff),
                _ => {}
            }
            match (float, r.neg) {
                (false, true) => lanes.iter_mut().for_each(|x| *x = x.wrapping_neg()),
                (true, true) => lanes.iter_mut().for_each(|x| *x ^= 0x8000_0000),
                _ => {}
            }
        }
        Src::Imm(v) => fill_lanes(&mut out[..n], v),
        // Constants are resolved before execution; a stray one reads zero.
        Src::Const { .. } => fill_lanes(&mut out[..n], 0),
    }
}

/// A source operand where it already is: a 32-lane register row read in
/// place, a row of lanes gathered into scratch (a source with a modifier,
/// or any row of a warp of another width), or one value for every lane (an
/// immediate, RZ, a resolved constant). Arithmetic is compiled once per
/// kind of each source (see [`split_arg`]), so that no source is copied or
/// filled into lanes before the operation reads it.
#[derive(Clone, Copy)]
enum Arg<'a> {
    Row32(&'a [u32; 32]),
    Row(&'a Lanes),
    Splat(u32),
}

/// Lane `l` of a source, for the kinds [`Arg`] holds.
trait LaneSrc: Copy {
    fn at(self, l: usize) -> u32;
}

impl LaneSrc for &[u32; 32] {
    #[inline(always)]
    fn at(self, l: usize) -> u32 {
        self[l]
    }
}

impl LaneSrc for &Lanes {
    #[inline(always)]
    fn at(self, l: usize) -> u32 {
        self[l]
    }
}

/// One value for every lane.
#[derive(Clone, Copy)]
struct Splat(u32);

impl LaneSrc for Splat {
    #[inline(always)]
    fn at(self, _: usize) -> u32 {
        self.0
    }
}

/// Source `s` as an [`Arg`], gathering into `tmp` only what cannot be read
/// where it is. `N` as in [`lanes_of`]: a warp of another width has no
/// 32-lane rows, so it never yields [`Arg::Row32`] (and, once inlined, the
/// code for that kind is dropped), and a 32-lane warp never yields
/// [`Arg::Row`].
#[inline(always)]
fn arg<'a, const N: usize>(w: &'a Warp, s: Src, tmp: &'a mut Lanes, float: bool) -> Arg<'a> {
    match s {
        Src::Imm(v) => return Arg::Splat(v),
        Src::Const { .. } => return Arg::Splat(0),
        Src::Reg(r) if !(r.neg || r.abs || r.not) => {
            let Some(row) = row::<N>(w, r.reg) else {
                return Arg::Splat(0);
            };
            if let (32, Ok(v)) = (N, <&[u32; 32]>::try_from(row)) {
                return Arg::Row32(v);
            }
        }
        Src::Reg(_) => {}
    }
    fetch::<N>(w, s, tmp, float);
    let tmp: &Lanes = tmp;
    match (N, <&[u32; 32]>::try_from(&tmp[..32])) {
        (32, Ok(v)) => Arg::Row32(v),
        _ => Arg::Row(tmp),
    }
}

/// `f(x[l], y[l], z[l])` for lanes `0..n` (`N` as in [`lanes_of`]). The
/// result is a value, not written into scratch: for 32 lanes the compiler
/// keeps it in vector registers until it is written to the register file.
#[inline(always)]
fn map<const N: usize>(
    n: usize,
    x: impl LaneSrc,
    y: impl LaneSrc,
    z: impl LaneSrc,
    f: impl Fn(u32, u32, u32) -> u32,
) -> Lanes {
    let n = if N == 0 { n.min(64) } else { N };
    let mut r: Lanes = [0; 64];
    for (l, out) in r[..n].iter_mut().enumerate() {
        *out = f(x.at(l), y.at(l), z.at(l));
    }
    r
}

/// Evaluates `$body` with `$x` bound to source `$arg` as the kind it is:
/// one copy of the body per kind, each a loop the compiler vectorises with
/// the source read in place or held in a register.
macro_rules! split_arg {
    ($arg:expr, $x:ident => $body:expr) => {
        match $arg {
            Arg::Row32($x) => $body,
            Arg::Row($x) => $body,
            Arg::Splat(v) => {
                let $x = Splat(v);
                $body
            }
        }
    };
}

fn fetch_i<const N: usize>(w: &Warp, s: Src, out: &mut Lanes) {
    fetch::<N>(w, s, out, false)
}

fn fetch_f<const N: usize>(w: &Warp, s: Src, out: &mut Lanes) {
    fetch::<N>(w, s, out, true)
}

/// Writes `vals` to register `d` for the lanes in `on`.
#[inline(always)]
fn write<const N: usize>(w: &mut Warp, d: u8, vals: &Lanes, on: u64) {
    if d == RZ {
        return;
    }
    let n = lanes_of::<N>(w);
    let full = w.full();
    let Some(dst) = w.regs.get_mut(usize::from(d) * n..(usize::from(d) + 1) * n) else {
        return;
    };
    let off = full & !on;
    if off == 0 {
        copy_lanes(dst, &vals[..n]);
    } else if let (32, Ok(dst), Ok(vals)) = (
        N,
        <&mut [u32; 32]>::try_from(&mut *dst),
        <&[u32; 32]>::try_from(&vals[..32]),
    ) {
        blend_lanes(dst, vals, on as u32);
    } else if off.count_ones() <= 8 {
        // Mostly on: copy every lane, then put the few off lanes back.
        let mut saved = [0u32; 8];
        for (k, l) in lanes(off).enumerate() {
            saved[k] = dst[l];
        }
        copy_lanes(dst, &vals[..n]);
        for (k, l) in lanes(off).enumerate() {
            dst[l] = saved[k];
        }
    } else {
        for l in lanes(on & full) {
            dst[l] = vals[l];
        }
    }
}

/// `dst[l] = vals[l]` for the lanes `l` set in `on`: a branch-free blend.
#[inline(always)]
fn blend_lanes(dst: &mut [u32; 32], vals: &[u32; 32], on: u32) {
    #[cfg(target_arch = "x86_64")]
    blend_lanes_sse2(dst, vals, on);
    #[cfg(not(target_arch = "x86_64"))]
    blend_lanes_portable(dst, vals, on);
}

/// [`blend_lanes`] with SSE2, eight 4-lane chunks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn blend_lanes_sse2(dst: &mut [u32; 32], vals: &[u32; 32], on: u32) {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_or_si128,
        _mm_set_epi32, _mm_set1_epi32, _mm_srli_epi32, _mm_storeu_si128,
    };
    let (d, v) = (
        dst.as_mut_ptr().cast::<__m128i>(),
        vals.as_ptr().cast::<__m128i>(),
    );
    // SAFETY: SSE2 is part of x86_64; `dst` and `vals` hold 32 lanes,
    // read and written as eight unaligned 128-bit chunks. Each chunk's
    // keep mask is its four bits of `on` against 1, 2, 4, 8, the bits
    // shifted down by four a chunk (no mask constant loaded per chunk).
    unsafe {
        let bit = _mm_set_epi32(8, 4, 2, 1);
        let mut m = _mm_set1_epi32(on as i32);
        for c in 0..8 {
            let keep = _mm_cmpeq_epi32(_mm_and_si128(m, bit), bit);
            let new = _mm_and_si128(keep, _mm_loadu_si128(v.add(c)));
            let old = _mm_andnot_si128(keep, _mm_loadu_si128(d.add(c)));
            _mm_storeu_si128(d.add(c), _mm_or_si128(new, old));
            m = _mm_srli_epi32(m, 4);
        }
    }
}

/// [`blend_lanes`] without vector intrinsics, for other targets (and,
/// in tests, checked against the SSE2 one on x86).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn blend_lanes_portable(dst: &mut [u32; 32], vals: &[u32; 32], on: u32) {
    for (l, x) in dst.iter_mut().enumerate() {
        let bit = 1u32 << l;
        let keep = 0u32.wrapping_sub(u32::from(on & bit == bit));
        *x ^= (*x ^ vals[l]) & keep;
    }
}

fn write_pred(w: &mut Warp, p: u8, bits: u64, on: u64) {
    if p != PT {
        let slot = &mut w.preds[usize::from(p)];
        *slot = (*slot & !on) | (bits & on);
    }
}

/// Bit `l` set where `f(lane l)` holds, for lanes `0..n` (branch free;
/// with a fixed `n` the compiler turns it into vector compares).
#[inline(always)]
fn bits(n: usize, f: impl Fn(usize) -> bool) -> u64 {
    let mut m = 0u64;
    for l in 0..n.min(64) {
        m |= u64::from(f(l)) << l;
    }
    m
}

/// [`bits`] for `N` lanes (as in [`lanes_of`]). For 32 lanes the test runs
/// over all of them into a lane mask (a vector compare) and the masks are
/// packed into bits 16 at a time, instead of shifted in one by one.
#[inline(always)]
fn lane_bits<const N: usize>(n: usize, f: impl Fn(usize) -> bool) -> u64 {
    if N != 32 {
        return bits(n, f);
    }
    let mut m = [0u32; 32];
    for (l, x) in m.iter_mut().enumerate() {
        *x = 0u32.wrapping_sub(u32::from(f(l)));
    }
    pack_lane_masks(&m)
}

/// Bit `l` set where `m[l]` is all ones (every lane is 0 or all ones).
#[inline(always)]
fn pack_lane_masks(m: &[u32; 32]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        pack_lane_masks_sse2(m)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        pack_lane_masks_portable(m)
    }
}

/// [`pack_lane_masks`] with SSE2: saturating packs down to bytes, then
/// one byte-sign movemask per 16 lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn pack_lane_masks_sse2(m: &[u32; 32]) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16, _mm_packs_epi32,
    };
    let mut out = 0u64;
    for (h, half) in m.chunks_exact(16).enumerate() {
        let p = half.as_ptr().cast::<__m128i>();
        // SAFETY: SSE2 is part of x86_64; `half` holds 16 lanes, read
        // as four unaligned 128-bit loads. Saturating packs keep 0 and
        // all ones, so each lane ends as one byte's sign bit.
        let bytes = unsafe {
            let q = |i| _mm_loadu_si128(p.add(i));
            let lo = _mm_packs_epi32(q(0), q(1));
            let hi = _mm_packs_epi32(q(2), q(3));
            _mm_movemask_epi8(_mm_packs_epi16(lo, hi))
        };
        out |= u64::from(bytes as u16) << (16 * h);
    }
    out
}

/// [`pack_lane_masks`] without vector intrinsics, for other targets (and,
/// in tests, checked against the SSE2 one on x86).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn pack_lane_masks_portable(m: &[u32; 32]) -> u64 {
    bits(32, |l| m[l] != 0)
}

/// `r = fma(a, b, c)` for lanes `0..n` with the CPU's fused multiply-add,
/// when it has one (the result is the same correctly rounded value the
/// portable path computes, only faster). Returns false when there is none.
/// `N` as in [`lanes_of`].
#[inline(always)]
fn fused_multiply_add<const N: usize, A: LaneSrc, B: LaneSrc, C: LaneSrc>(
    r: &mut Lanes,
    n: usize,
    a: A,
    b: B,
    c: C,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA, the one feature this function
            // is compiled for.
            unsafe { fma_lanes_x86::<N, A, B, C>(r, n, a, b, c) };
            return true;
        }
    }
    let _ = (r, n, a, b, c);
    false
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_lanes_x86<const N: usize, A: LaneSrc, B: LaneSrc, C: LaneSrc>(
    r: &mut Lanes,
    n: usize,
    a: A,
    b: B,
    c: C,
) {
    let n = if N == 0 { n.min(64) } else { N };
    for (l, x) in r[..n].iter_mut().enumerate() {
        let f = |s: u32| f32::from_bits(s);
        *x = canon(f(a.at(l)).mul_add(f(b.at(l)), f(c.at(l))));
    }
}

/// `fma(a, b, c)` on binary32 bit patterns, rounded once to nearest even
/// (the portable path of FFMA).
fn ffma(a: u32, b: u32, c: u32) -> u32 {
    let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
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

/// Lanes where `a[l] cmp b[l]`, the comparison chosen once, not per lane.
/// `N` as in [`lanes_of`]: with a fixed count the loops are vectorised.
#[inline(always)]
fn icmp_mask<const N: usize, A: LaneSrc, B: LaneSrc>(
    c: Cmp,
    unsigned: bool,
    n: usize,
    a: A,
    b: B,
) -> u64 {
    let n = if N == 0 { n.min(64) } else { N };
    macro_rules! lanes {
        ($t:ty, $op:tt) => {
            lane_bits::<N>(n, |l| (a.at(l) as $t) $op (b.at(l) as $t))
        };
    }
    match (c, unsigned) {
        (Cmp::Lt, true) => lanes!(u32, <),
        (Cmp::Le, true) => lanes!(u32, <=),
        (Cmp::Gt, true) => lanes!(u32, >),
        (Cmp::Ge, true) => lanes!(u32, >=),
        (Cmp::Lt, false) => lanes!(i32, <),
        (Cmp::Le, false) => lanes!(i32, <=),
        (Cmp::Gt, false) => lanes!(i32, >),
        (Cmp::Ge, false) => lanes!(i32, >=),
        (Cmp::Eq, _) => lanes!(u32, ==),
        (Cmp::Ne, _) => lanes!(u32, !=),
    }
}

/// Combines a comparison mask with a predicate mask.
fn combine_mask(c: Combine, x: u64, y: u64) -> u64 {
    match c {
        Combine::And => x & y,
        Combine::Or => x | y,
        Combine::Xor => x ^ y,
    }
}

fn canon(x: f32) -> u32 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

fn icmp(c: Cmp, a: u32, b: u32, unsigned: bool) -> bool {
    if unsigned {
        cmp(c, a, b)
    } else {
        cmp(c, a as i32, b as i32)
    }
}

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

fn fcmp(c: FCmp, a: f32, b: f32) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match c {
        FCmp::Ordered(k) => !unordered && cmp(k, a, b),
        FCmp::Unordered(k) => unordered || cmp(k, a, b),
        FCmp::Num => !unordered,
        FCmp::Nan => unordered,
    }
}

fn lut3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
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

fn mufu(f: MufuOp, x: f32) -> f32 {
    match f {
        MufuOp::Ex2 => libm::exp2f(x),
        MufuOp::Lg2 => libm::log2f(x),
        MufuOp::Rcp => 1.0 / x,
        MufuOp::Rsq => 1.0 / libm::sqrtf(x),
        MufuOp::Sqrt => libm::sqrtf(x),
        MufuOp::Sin => libm::sinf(x),
        MufuOp::Cos => libm::cosf(x),
    }
}

fn f2i(x: f32, round: Round, unsigned: bool) -> u32 {
    let r = match round {
        Round::Nearest => x.round_ties_even(),
        Round::Trunc => x.trunc(),
        Round::Floor => x.floor(),
        Round::Ceil => x.ceil(),
    };
    // `as` saturates and maps NaN to 0, as the hardware conversion does.
    if unsigned { r as u32 } else { r as i32 as u32 }
}

fn fmin(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a <= b {
        a
    } else {
        b
    }
}

fn fmax(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a >= b {
        a
    } else {
        b
    }
}

/// Per-lane addresses of a memory operand.
fn addresses<const N: usize>(w: &Warp, m: MemRef, out: &mut Lanes) {
    let n = lanes_of::<N>(w);
    match row::<N>(w, m.base) {
        Some(v) => {
            for (o, &b) in out[..n].iter_mut().zip(v) {
                *o = b.wrapping_add(m.offset as u32);
            }
        }
        None => out[..n].fill(m.offset as u32),
    }
}

fn load_value(bytes: &[u8; 16], width: Width, k: usize) -> u32 {
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    match width {
        Width::U8 => u32::from(bytes[0]),
        Width::S8 => bytes[0] as i8 as i32 as u32,
        Width::U16 => u32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        Width::S16 => i16::from_le_bytes([bytes[0], bytes[1]]) as i32 as u32,
        _ => word(4 * k),
    }
}

enum Space {
    Global,
    Shared,
}

/// One load or store: where, which registers, how wide.
pub struct Access {
    space: Space,
    addr: MemRef,
    /// First register loaded into or stored from.
    reg: u8,
    width: Width,
    store: bool,
}

/// Loads and stores for both spaces: per-lane access, faults, and the
/// access pattern for coalescing or bank analysis.
#[inline(never)]
pub fn memory_op<const N: usize>(
    w: &mut Warp,
    env: &mut MemEnv,
    acc: Access,
    on: u64,
) -> MemEffect {
    let Access {
        space,
        addr,
        reg,
        width,
        store,
    } = acc;
    let n = lanes_of::<N>(w);
    let size = width.bytes();
    let nregs = usize::from(width.regs());
    let mut a: Lanes = [0; 64];
    addresses::<N>(w, addr, &mut a);
    env.scratch.accesses.clear();
    let on_n = on & lane_mask(n as u32);
    if store && matches!(space, Space::Global) {
        // Global stores go as one batch: see `GlobalMemory::write_lanes`.
        let mut rows: [Option<&[u32]>; 4] = [None; 4];
        for (k, row_k) in rows.iter_mut().enumerate().take(nregs) {
            *row_k = row::<N>(w, reg.saturating_add(k as u8));
        }
        let words = |l: usize| {
            let mut ws = [0u32; 4];
            for (x, row_k) in ws.iter_mut().zip(&rows).take(nregs) {
                *x = row_k.and_then(|r| r.get(l)).copied().unwrap_or(0);
            }
            ws
        };
        if on_n != 0
            && let Some(c) = env.global.store_in_order(size, &a, on_n, words)
        {
            return MemEffect::Global(c);
        }
        let sc = &mut *env.scratch;
        let items = lanes(on_n).map(|l| (l as u32, a[l], words(l)));
        env.global
            .write_lanes(size, items, |lane, address, result| match result {
                Ok(()) => sc.accesses.push((address, size)),
                Err(kind) => sc.faults.push((lane, address, kind)),
            });
        if on == 0 {
            return MemEffect::None;
        }
        return MemEffect::Global(memory::coalesce(&mut sc.accesses));
    }
    let mut loaded: [Lanes; 4] = [[0; 64]; 4];
    if !store
        && matches!(space, Space::Global)
        && on_n != 0
        && let Some(c) = env.global.load_in_order(size, &a, on_n, |l, buf| {
            for (k, dst) in loaded.iter_mut().take(nregs).enumerate() {
                dst[l] = load_value(buf, width, k);
            }
        })
    {
        for (k, vals) in loaded.iter().take(nregs).enumerate() {
            write::<N>(w, reg.saturating_add(k as u8), vals, on_n);
        }
        return MemEffect::Global(c);
    }
    let mut ok: u64 = 0;
    for l in (0..n).filter(|&l| on >> l & 1 != 0) {
        let mut buf = [0u8; 16];
        let bytes = &mut buf[..size as usize];
        let result = if store {
            for k in 0..nregs {
                let v = w.reg(reg.saturating_add(k as u8), l as u32).to_le_bytes();
                let take = (size as usize).min(4);
                bytes[4 * k..4 * k + take].copy_from_slice(&v[..take]);
            }
            match space {
                Space::Global => env.global.write(a[l], bytes),
                Space::Shared => match env.shared.as_deref_mut() {
                    Some(m) => m.write(a[l], bytes),
                    None => Err(FaultKind::SharedOutOfBounds),
                },
            }
        } else {
            match space {
                Space::Global => env.global.read(a[l], bytes),
                Space::Shared => match env.shared.as_deref() {
                    Some(m) => m.read(a[l], bytes),
                    None => Err(FaultKind::SharedOutOfBounds),
                },
            }
        };
        match result {
            Ok(()) => {
                ok |= 1 << l;
                env.scratch.accesses.push((a[l], size));
                if !store {
                    for (k, dst) in loaded.iter_mut().take(nregs).enumerate() {
                        dst[l] = load_value(&buf, width, k);
                    }
                }
            }
            Err(kind) => env.scratch.faults.push((l as u32, a[l], kind)),
        }
    }
    if !store {
        for (k, vals) in loaded.iter().take(nregs).enumerate() {
            write::<N>(w, reg.saturating_add(k as u8), vals, ok);
        }
    }
    if on == 0 {
        return MemEffect::None;
    }
    match space {
        Space::Global => MemEffect::Global(memory::coalesce(&mut env.scratch.accesses)),
        Space::Shared => MemEffect::Shared {
            passes: memory::bank_passes(
                &env.scratch.accesses,
                env.banks,
                &mut env.scratch.bank_words,
            ),
        },
    }
}

/// [`execute`] for a warp of any width (the 32-lane one is inlined into the
/// issue path; this one is not).
#[inline(never)]
pub fn execute_any(w: &mut Warp, op: &Op, on: u64, active: u64, env: &mut Env) {
    execute::<0>(w, op, on, active, env)
}

/// The load or store `op` is, if it is one: it runs in [`memory_op`].
pub fn access(op: &Op) -> Option<Access> {
    let (space, reg, addr, width, store) = match *op {
        Op::Ldg { d, addr, width } => (Space::Global, d, addr, width, false),
        Op::Lds { d, addr, width } => (Space::Shared, d, addr, width, false),
        Op::Stg { addr, s, width } => (Space::Global, s, addr, width, true),
        Op::Sts { addr, s, width } => (Space::Shared, s, addr, width, true),
        _ => return None,
    };
    Some(Access {
        space,
        addr,
        reg,
        width,
        store,
    })
}

/// Executes the data effect of `op`, other than a load or store (see
/// [`access`]), for the lanes in `on` (active and predicated on); `active`
/// is the issuing mask, which SHFL reads from. Control flow is the
/// convergence model's business, not done here.
// Always inlined into `issue` (see `State::issue_sm`).
#[inline(always)]
pub fn execute<const N: usize>(w: &mut Warp, op: &Op, on: u64, active: u64, env: &mut Env) {
    let n = lanes_of::<N>(w);
    let [a, b, c, r, _] = &mut env.scratch.lanes;
    // `f(x, y, z)` over the lanes of three sources, each read where it is
    // (see `Arg`); a two-source operation passes an immediate third.
    macro_rules! map_args {
        ($float:expr, $sa:expr, $sb:expr, $sc:expr, $f:expr) => {{
            let x = arg::<N>(w, $sa, a, $float);
            let y = arg::<N>(w, $sb, b, $float);
            let z = arg::<N>(w, $sc, c, $float);
            split_arg!(x, x => split_arg!(y, y => split_arg!(z, z => map::<N>(n, x, y, z, $f))))
        }};
    }
    match *op {
        Op::Mov { d, a: sa } => {
            fetch_i::<N>(w, sa, a);
            write::<N>(w, d, a, on);
        }
        Op::S2r { d, sr } => {
            // Lane l reads `base + l * step`.
            let (base, step) = match sr {
                SpecialReg::TidX => (w.in_block * w.width, 1),
                SpecialReg::CtaidX => (w.block, 0),
                SpecialReg::NtidX => (env.block_dim, 0),
                SpecialReg::NctaidX => (env.blocks, 0),
                SpecialReg::LaneId => (0, 1),
                SpecialReg::WarpId => (w.slot, 0),
            };
            for (l, x) in r[..n].iter_mut().enumerate() {
                *x = base.wrapping_add(step * l as u32);
            }
            write::<N>(w, d, r, on);
        }
        Op::Sel { d, a: sa, b: sb, p } => {
            fetch_i::<N>(w, sa, a);
            fetch_i::<N>(w, sb, b);
            let pm = w.pred_mask(p);
            for l in 0..n {
                r[l] = if pm >> l & 1 != 0 { a[l] } else { b[l] };
            }
            write::<N>(w, d, r, on);
        }
        Op::Iadd3 {
            d,
            carry,
            a: sa,
            b: sb,
            c: sc,
            carry_in,
        } => {
            let ci0 = w.pred_mask(carry_in[0]);
            let ci1 = w.pred_mask(carry_in[1]);
            if carry == [PT, PT] && ci0 | ci1 == 0 {
                // No carries in or out: a plain three-way add.
                let out = map_args!(false, sa, sb, sc, |x: u32, y: u32, z: u32| {
                    x.wrapping_add(y).wrapping_add(z)
                });
                write::<N>(w, d, &out, on);
                return;
            }
            fetch_i::<N>(w, sa, a);
            fetch_i::<N>(w, sb, b);
            fetch_i::<N>(w, sc, c);
            let (mut co0, mut co1) = (0u64, 0u64);
            for l in 0..n {
                let s = u64::from(a[l])
                    + u64::from(b[l])
                    + u64::from(c[l])
                    + (ci0 >> l & 1)
                    + (ci1 >> l & 1);
                r[l] = s as u32;
                co0 |= (s >> 32 & 1) << l;
                co1 |= (s >> 33 & 1) << l;
            }
            write::<N>(w, d, r, on);
            write_pred(w, carry[0], co0, on);
            write_pred(w, carry[1], co1, on);
        }
        Op::Imad {
            d,
            a: sa,
            b: sb,
            c: sc,
            mode,
            signed,
        } => {
            if mode == MulMode::Lo {
                let out = map_args!(false, sa, sb, sc, |x: u32, y: u32, z: u32| {
                    x.wrapping_mul(y).wrapping_add(z)
                });
                write::<N>(w, d, &out, on);
                return;
            }
            fetch_i::<N>(w, sa, a);
            fetch_i::<N>(w, sb, b);
            fetch_i::<N>(w, sc, c);
            let wide = |x: u32| -> u64 {
                if signed {
                    x as i32 as i64 as u64
                } else {
                    u64::from(x)
                }
            };
            match mode {
                // Done above, with its sources where they are.
                MulMode::Lo => {}
                MulMode::Hi => {
                    for l in 0..n {
                        let p = wide(a[l]).wrapping_mul(wide(b[l]));
                        r[l] = ((p >> 32) as u32).wrapping_add(c[l]);
                    }
                    write::<N>(w, d, r, on);
                }
                MulMode::Wide => {
                    let mut c_hi: Lanes = [0; 64];
                    match sc {
                        Src::Reg(reg) if reg.reg != RZ => {
                            if let Some(v) = row::<N>(w, reg.reg.saturating_add(1)) {
                                c_hi[..n].copy_from_slice(v);
                            }
                        }
                        Src::Imm(v) if signed && (v as i32) < 0 && env.c_hi == 0 => {
                            c_hi[..n].fill(u32::MAX)
                        }
                        _ => c_hi[..n].fill(env.c_hi),
                    }
                    let mut hi: Lanes = [0; 64];
                    for l in 0..n {
                        let addend = u64::from(c_hi[l]) << 32 | u64::from(c[l]);
                        let v = wide(a[l]).wrapping_mul(wide(b[l])).wrapping_add(addend);
                        r[l] = v as u32;
                        hi[l] = (v >> 32) as u32;
                    }
                    write::<N>(w, d, r, on);
                    if d != RZ {
                        write::<N>(w, d.saturating_add(1), &hi, on);
                    }
                }
            }
        }
        Op::Isetp {
            cmp: k,
            unsigned,
            combine: cb,
            p,
            q,
            a: sa,
            b: sb,
            c: pc,
        } => {
            let x = arg::<N>(w, sa, a, false);
            let y = arg::<N>(w, sb, b, false);
            let t =
                split_arg!(x, x => split_arg!(y, y => icmp_mask::<N, _, _>(k, unsigned, n, x, y)));
            let cm = w.pred_mask(pc);
            let full = w.full();
            write_pred(w, p, combine_mask(cb, t, cm), on);
            write_pred(w, q, combine_mask(cb, !t & full, cm), on);
        }
        Op::Lop3 {
            p,
            d,
            a: sa,
            b: sb,
            c: sc,
            lut,
        } => {
            fetch_i::<N>(w, sa, a);
            fetch_i::<N>(w, sb, b);
            fetch_i::<N>(w, sc, c);
            for l in 0..n {
                r[l] = lut3(lut, a[l], b[l], c[l]);
            }
            write::<N>(w, d, r, on);
            write_pred(w, p, lane_bits::<N>(n, |l| r[l] != 0), on);
        }
        Op::Shl { d, a: sa, b: sb } => {
            fetch_i::<N>(w, sa, a);
            fetch_i::<N>(w, sb, b);
            for l in 0..n {
                r[l] = if b[l] >= 32 { 0 } else { a[l] << b[l] };
            }
            write::<N>(w, d, r, on);
        }
        Op::Shr {
            d,
            a: sa,
            b: sb,
            signed,
        } => {
            fetch_i::<N>(w, sa, a);
            fetch_i::<N>(w, sb, b);
            for l in 0..n {
                let s = b[l].min(31);
                r[l] = if signed {
                    ((a[l] as i32) >> s) as u32
                } else if b[l] >= 32 {
                    0
                } else {
                    a[l] >> s
                };
            }
            write::<N>(w, d, r, on);
        }
        Op::Imnmx {
            d,
            a: sa,
            b: sb,
            p,
            unsigned,
        } => {
            fetch_i::<N>(w, sa, a);
            fetch_i::<N>(w, sb, b);
            let pm = w.pred_mask(p);
            for l in 0..n {
                let take_min = pm >> l & 1 != 0;
                let a_less = icmp(Cmp::Lt, a[l], b[l], unsigned);
                r[l] = if take_min == a_less { a[l] } else { b[l] };
            }
            write::<N>(w, d, r, on);
        }
        Op::Iabs { d, a: sa } => {
            fetch_i::<N>(w, sa, a);
            for l in 0..n {
                r[l] = (a[l] as i32).wrapping_abs() as u32;
            }
            write::<N>(w, d, r, on);
        }
        Op::Popc { d, a: sa } => {
            fetch_i::<N>(w, sa, a);
            for l in 0..n {
                r[l] = a[l].count_ones();
            }
            write::<N>(w, d, r, on);
        }
        Op::Lea {
            d,
            carry,
            a: sa,
            b: sb,
            hi_src,
            shift,
            hi,
            carry_in,
        } => {
            fetch_i::<N>(w, sa, a);
            fetch_i::<N>(w, sb, b);
            fetch_i::<N>(w, hi_src, c);
            let cin = w.pred_mask(carry_in);
            let mut co: u64 = 0;
            for l in 0..n {
                let shifted = if hi {
                    (((u64::from(c[l]) << 32 | u64::from(a[l])) << shift) >> 32) as u32
                } else {
                    a[l] << shift
                };
                let s = u64::from(shifted) + u64::from(b[l]) + (cin >> l & 1);
                r[l] = s as u32;
                co |= (s >> 32 & 1) << l;
            }
            write::<N>(w, d, r, on);
            write_pred(w, carry, co, on);
        }
        Op::Fadd { d, a: sa, b: sb } => {
            let out = map_args!(true, sa, sb, Src::Imm(0), |x: u32, y: u32, _| {
                canon(f32::from_bits(x) + f32::from_bits(y))
            });
            write::<N>(w, d, &out, on);
        }
        Op::Fmul { d, a: sa, b: sb } => {
            let out = map_args!(true, sa, sb, Src::Imm(0), |x: u32, y: u32, _| {
                canon(f32::from_bits(x) * f32::from_bits(y))
            });
            write::<N>(w, d, &out, on);
        }
        Op::Ffma {
            d,
            a: sa,
            b: sb,
            c: sc,
        } => {
            let x = arg::<N>(w, sa, a, true);
            let y = arg::<N>(w, sb, b, true);
            let z = arg::<N>(w, sc, c, true);
            let fused = split_arg!(x, x => split_arg!(y, y => split_arg!(z, z => {
                fused_multiply_add::<N, _, _, _>(r, n, x, y, z)
            })));
            if fused {
                write::<N>(w, d, r, on);
                return;
            }
            fetch_f::<N>(w, sa, a);
            fetch_f::<N>(w, sb, b);
            fetch_f::<N>(w, sc, c);
            for l in 0..n {
                r[l] = ffma(a[l], b[l], c[l]);
            }
            write::<N>(w, d, r, on);
        }
        Op::Fsetp {
            cmp: k,
            combine: cb,
            p,
            q,
            a: sa,
            b: sb,
            c: pc,
        } => {
            let x = arg::<N>(w, sa, a, true);
            let y = arg::<N>(w, sb, b, true);
            let t = split_arg!(x, x => split_arg!(y, y => {
                lane_bits::<N>(n, |l| fcmp(k, f32::from_bits(x.at(l)), f32::from_bits(y.at(l))))
            }));
            let cm = w.pred_mask(pc);
            let full = w.full();
            write_pred(w, p, combine_mask(cb, t, cm), on);
            write_pred(w, q, combine_mask(cb, !t & full, cm), on);
        }
        Op::Fmnmx { d, a: sa, b: sb, p } => {
            fetch_f::<N>(w, sa, a);
            fetch_f::<N>(w, sb, b);
            let pm = w.pred_mask(p);
            for l in 0..n {
                let (x, y) = (f32::from_bits(a[l]), f32::from_bits(b[l]));
                r[l] = canon(if pm >> l & 1 != 0 {
                    fmin(x, y)
                } else {
                    fmax(x, y)
                });
            }
            write::<N>(w, d, r, on);
        }
        Op::I2f { d, a: sa, unsigned } => {
            fetch_i::<N>(w, sa, a);
            for l in 0..n {
                let v = if unsigned {
                    a[l] as f32
                } else {
                    a[l] as i32 as f32
                };
                r[l] = v.to_bits();
            }
            write::<N>(w, d, r, on);
        }
        Op::F2i {
            d,
            a: sa,
            unsigned,
            round,
        } => {
            fetch_f::<N>(w, sa, a);
            for l in 0..n {
                r[l] = f2i(f32::from_bits(a[l]), round, unsigned);
            }
            write::<N>(w, d, r, on);
        }
        Op::Mufu { d, a: sa, func } => {
            fetch_f::<N>(w, sa, a);
            for l in 0..n {
                r[l] = canon(mufu(func, f32::from_bits(a[l])));
            }
            write::<N>(w, d, r, on);
        }
        Op::Shfl {
            p,
            d,
            a: src,
            b: sb,
            c: sc,
            mode,
        } => {
            fetch_i::<N>(w, Src::Reg(crate::asm::ir::RegSrc::plain(src)), a);
            fetch_i::<N>(w, sb, b);
            fetch_i::<N>(w, sc, c);
            let mut valid: u64 = 0;
            for l in 0..n {
                let lane = l as i64;
                let (j, ok) = match mode {
                    ShflMode::Idx => (
                        i64::from(b[l] & 63),
                        i64::from(b[l] & 63) <= i64::from(c[l] & 63),
                    ),
                    ShflMode::Up => (
                        lane - i64::from(b[l]),
                        lane - i64::from(b[l]) >= i64::from(c[l] & 63),
                    ),
                    ShflMode::Down => (
                        lane + i64::from(b[l]),
                        lane + i64::from(b[l]) <= i64::from(c[l] & 63),
                    ),
                    ShflMode::Bfly => {
                        let j = lane ^ i64::from(b[l] & 63);
                        (j, j <= i64::from(c[l] & 63))
                    }
                };
                // The source lane must exist and be in the issuing group.
                let ok = ok && (0..n as i64).contains(&j) && active >> j & 1 != 0;
                r[l] = if ok { a[j as usize] } else { a[l] };
                if ok {
                    valid |= 1 << l;
                }
            }
            write::<N>(w, d, r, on);
            write_pred(w, p, valid, on);
        }
        Op::Vote { mode, d, p, src } => {
            let ballot = w.pred_mask(src) & on;
            let result = match mode {
                VoteMode::All => ballot == on,
                VoteMode::Any => ballot != 0,
                VoteMode::Eq => ballot == 0 || ballot == on,
            };
            r[..n].fill(ballot as u32);
            write::<N>(w, d, r, on);
            write_pred(w, p, if result { u64::MAX } else { 0 }, on);
        }
        // Loads and stores run in `memory_op`.
        Op::Ldg { .. } | Op::Stg { .. } | Op::Lds { .. } | Op::Sts { .. } => {}
        Op::Bra { .. }
        | Op::Bssy { .. }
        | Op::Bsync { .. }
        | Op::Break { .. }
        | Op::Warpsync { .. }
        | Op::BarSync { .. }
        | Op::Depbar { .. }
        | Op::Exit
        | Op::Nop => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An independent binary32 fused multiply-add, the reference for
    /// warpstep's FFMA: the product is exact in binary64, Knuth's two-sum
    /// gives the binary64 sum `s` and its exact error, and `s` is rounded
    /// to binary32 with the error deciding the one case double rounding
    /// gets wrong (`s` exactly halfway between two binary32 values).
    /// Binary32 midpoints, subnormal ones included, are binary64 values,
    /// so no other case can round differently. No libm, no FMA unit.
    fn reference_fma(x: f32, y: f32, z: f32) -> u32 {
        let p = f64::from(x) * f64::from(y);
        let z = f64::from(z);
        let s = p + z;
        if s.is_nan() {
            return CANONICAL_NAN;
        }
        let r = s as f32;
        if !s.is_finite() || f64::from(r) == s {
            return r.to_bits();
        }
        let t = s - p;
        let err = (p - (s - t)) + (z - t);
        let other = if f64::from(r) < s {
            r.next_up()
        } else {
            r.next_down()
        };
        let midpoint = (f64::from(r) + f64::from(other)) / 2.0 == s;
        if midpoint && err != 0.0 && (err > 0.0) == (other > r) {
            other.to_bits()
        } else {
            r.to_bits()
        }
    }

    /// Inputs where a product rounded before the add, or a binary64 sum
    /// rounded again to binary32, gives another value than one rounding.
    const TRICKY: [(f32, f32, f32); 8] = [
        (1.0 + f32::EPSILON, 1.0 - f32::EPSILON / 2.0, -1.0),
        (0.1, 10.0, -1.0),
        (16_777_217.0, 1.0, 0.5),
        (1e-30, 1e-10, 1e-40),
        (3.0, 1.0 / 3.0, -1.0),
        (f32::MAX, 2.0, -f32::MAX),
        // Exact 1 + 2^-24 + 2^-70: binary64 rounds it to the midpoint
        // 1 + 2^-24, which ties to 1.0; one rounding gives 1 + 2^-23.
        (
            1.0 + f32::EPSILON,
            -(1.0 - f32::EPSILON) / 16_777_216.0,
            1.0 + f32::EPSILON,
        ),
        (f32::NAN, 1.0, 0.0),
    ];

    /// Worked by hand (bit patterns) for the cases above that have a short
    /// exact answer; `None` where only the reference speaks.
    const TRICKY_BITS: [Option<u32>; 8] = [
        // (1+2^-23)(1-2^-24) - 1 = 2^-24 - 2^-47 = 2^-25 * (2 - 2^-22).
        Some(0x337f_fffe),
        // 0.1f = 13421773 * 2^-27; * 10 = 1 + 2^-26; - 1 = 2^-26.
        Some(0x3280_0000),
        // 16777217 rounds to 2^24 on input; 2^24 + 0.5 rounds to 2^24.
        Some(0x4b80_0000),
        None,
        // (1/3)f = 11184811 * 2^-25; * 3 = 1 + 2^-25; - 1 = 2^-25.
        Some(0x3300_0000),
        // 2 MAX - MAX = MAX, with no overflow in between.
        Some(0x7f7f_ffff),
        // 1 + 2^-23.
        Some(0x3f80_0001),
        Some(CANONICAL_NAN),
    ];

    #[test]
    fn fused_multiply_add_is_exact_on_tricky_inputs() {
        for ((x, y, z), want) in TRICKY.into_iter().zip(TRICKY_BITS) {
            let reference = reference_fma(x, y, z);
            if let Some(bits) = want {
                assert_eq!(reference, bits, "reference on {x} {y} {z}");
            }
            // The portable path, lane by lane.
            let got = ffma(x.to_bits(), y.to_bits(), z.to_bits());
            assert_eq!(got, reference, "portable FFMA on {x} {y} {z}");
            // The hardware path where the CPU has one, on a 32-lane warp's
            // rows with the middle source as an immediate.
            let (a, c) = ([x.to_bits(); 32], [z.to_bits(); 32]);
            let mut r: Lanes = [0; 64];
            if fused_multiply_add::<32, _, _, _>(&mut r, 32, &a, Splat(y.to_bits()), &c) {
                assert_eq!(r[..32], [reference; 32], "hardware FFMA on {x} {y} {z}");
            }
        }
    }

    #[test]
    fn hardware_and_portable_fused_multiply_add_agree_with_the_reference() {
        let xs: Vec<f32> = vec![
            0.1,
            10.0,
            -1.0,
            1.0 + f32::EPSILON,
            16_777_217.0,
            1e-30,
            3.0,
            f32::MAX,
            0.5,
            -0.0,
            1e-40,
            f32::INFINITY,
        ];
        for &x in &xs {
            for &y in &xs {
                for &z in &xs {
                    let reference = reference_fma(x, y, z);
                    let got = ffma(x.to_bits(), y.to_bits(), z.to_bits());
                    assert_eq!(got, reference, "portable FFMA on {x} {y} {z}");
                    let mut r: Lanes = [0; 64];
                    let lane = |v: f32| {
                        let mut l: Lanes = [0; 64];
                        l[0] = v.to_bits();
                        l
                    };
                    // The sources both as rows and as a splat.
                    let (a, c) = (lane(x), lane(z));
                    if fused_multiply_add::<0, _, _, _>(&mut r, 1, &a, Splat(y.to_bits()), &c) {
                        assert_eq!(r[0], reference, "hardware FFMA on {x} {y} {z}");
                    }
                }
            }
        }
    }

    /// Lane masks (0 or all ones per lane) and the bits they pack into,
    /// worked by hand.
    fn packed_cases() -> Vec<([u32; 32], u64)> {
        let mask =
            |f: fn(usize) -> bool| std::array::from_fn(|l| 0u32.wrapping_sub(u32::from(f(l))));
        vec![
            // Lanes 0, 3, 6, ..., 30: 1001 0010 0100 1001 ... = 0x49249249.
            (mask(|l| l % 3 == 0), 0x4924_9249),
            (mask(|l| l == 31 || l == 15), 0x8000_8000),
            (mask(|_| true), 0xffff_ffff),
            (mask(|_| false), 0),
            // Lanes 16..=23 and lane 0.
            (mask(|l| (16..24).contains(&l) || l == 0), 0x00ff_0001),
            (mask(|l| l == 7), 0x80),
        ]
    }

    #[test]
    fn lane_masks_pack_into_bits() {
        for (m, want) in packed_cases() {
            assert_eq!(pack_lane_masks_portable(&m), want, "portable {want:#x}");
            assert_eq!(pack_lane_masks(&m), want, "{want:#x}");
            #[cfg(target_arch = "x86_64")]
            assert_eq!(pack_lane_masks_sse2(&m), want, "SSE2 {want:#x}");
        }
        assert_eq!(bits(32, |l| l % 3 == 0), 0x4924_9249);
        assert_eq!(lane_bits::<32>(32, |l| l % 3 == 0), 0x4924_9249);
        assert_eq!(lane_bits::<32>(32, |l| l == 31 || l == 15), 0x8000_8000);
        assert_eq!(lane_bits::<32>(32, |_| true), 0xffff_ffff);
        assert_eq!(lane_bits::<0>(5, |_| true), 0b11111);
        assert_eq!(bits(5, |_| true), 0b11111);
        assert_eq!(bits(64, |l| l == 63), 1 << 63);
        assert_eq!(bits(0, |_| true), 0);
    }

    #[test]
    fn blend_writes_exactly_the_lanes_that_are_on() {
        // Lane l of the old row holds l, of the new row 100 + l: lane l
        // must read 100 + l exactly where bit l of `on` is set.
        for on in [
            0u32,
            u32::MAX,
            1,
            1 << 31,
            0xa5a5_0f01,
            0x8000_0010,
            0x0000_00f0,
        ] {
            let want: [u32; 32] =
                std::array::from_fn(|l| if on >> l & 1 != 0 { 100 + l } else { l } as u32);
            let vals: [u32; 32] = std::array::from_fn(|l| 100 + l as u32);
            let blends: [(&str, fn(&mut [u32; 32], &[u32; 32], u32)); 3] = [
                ("chosen", blend_lanes),
                ("portable", blend_lanes_portable),
                #[cfg(target_arch = "x86_64")]
                ("SSE2", blend_lanes_sse2),
                #[cfg(not(target_arch = "x86_64"))]
                ("portable", blend_lanes_portable),
            ];
            for (name, blend) in blends {
                let mut dst: [u32; 32] = std::array::from_fn(|l| l as u32);
                blend(&mut dst, &vals, on);
                assert_eq!(dst, want, "{name} blend of {on:#x}");
            }
        }
        // One worked by hand in full: lanes 4..=7 on.
        let mut dst = [0u32; 32];
        blend_lanes_portable(&mut dst, &[9; 32], 0xf0);
        assert_eq!(dst[..9], [0, 0, 0, 0, 9, 9, 9, 9, 0]);
    }

    #[test]
    fn lop3_truth_tables() {
        // 0xc0 = a & b, 0xfc = a | b, 0x3c = a ^ b, 0x96 = a ^ b ^ c.
        assert_eq!(lut3(0xc0, 0b1100, 0b1010, 0), 0b1000);
        assert_eq!(lut3(0xfc, 0b1100, 0b1010, 0), 0b1110);
        assert_eq!(lut3(0x3c, 0b1100, 0b1010, 0), 0b0110);
        assert_eq!(lut3(0x96, 0b1100, 0b1010, 0b1001), 0b1111);
    }

    #[test]
    fn conversions_round_and_saturate() {
        assert_eq!(f2i(2.5, Round::Nearest, false), 2);
        assert_eq!(f2i(-2.5, Round::Floor, false), (-3i32) as u32);
        assert_eq!(f2i(2.1, Round::Ceil, false), 3);
        assert_eq!(f2i(1e20, Round::Trunc, false), i32::MAX as u32);
        assert_eq!(f2i(f32::NAN, Round::Trunc, false), 0);
        assert_eq!(f2i(-1.0, Round::Trunc, true), 0);
    }

    #[test]
    fn float_compare_and_minmax_handle_nan() {
        assert!(!fcmp(FCmp::Ordered(Cmp::Lt), f32::NAN, 1.0));
        assert!(fcmp(FCmp::Unordered(Cmp::Lt), f32::NAN, 1.0));
        assert_eq!(fmin(f32::NAN, 2.0), 2.0);
        assert_eq!(fmax(1.0, 2.0), 2.0);
        assert_eq!(canon(f32::NAN), CANONICAL_NAN);
    }
}
