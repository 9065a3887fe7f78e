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

use std::collections::BTreeMap;

use crate::asm::ir::{
    AtomOp, Cmp, Combine, MemRef, MufuOp, MulMode, Op, PT, PredSrc, RZ, RegSrc, Round, SpecialReg,
    Src, UPT, URZ, Width,
};
use crate::isa::semantics::{self, canon};

use super::convergence::its::lanes;
use super::memory::{self, Coalescing, FaultKind, GlobalMemory, Moved, SharedMemory};
use super::warp::{Warp, lane_mask};

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
    /// The constant banks (keyed by [`super::link::constant_key`]), for
    /// register-indexed `LDC`.
    pub constants: &'a BTreeMap<u32, u32>,
    /// The issue cycle (`SR_CLOCKLO`).
    pub clock: u64,
    /// Block and grid dimensions, x, y, z (`block_dim`, `blocks` their
    /// products).
    pub block_dim3: [u32; 3],
    pub grid_dim3: [u32; 3],
}

/// What a load or store needs besides its warp.
pub struct MemEnv<'a> {
    pub global: &'a mut GlobalMemory,
    /// The issuing block's shared memory (only looked up for LDS/STS).
    pub shared: Option<&'a mut SharedMemory>,
    pub banks: u32,
    pub scratch: &'a mut Scratch,
    /// A listing's global `[Rn.64]` forms a 64-bit address that must be in
    /// [`super::DEVICE_WINDOW`] (`Program::arch` set); else the high word
    /// is ignored.
    pub wide_addresses: bool,
    /// Shared address of the block's first byte (0x400 on sm_90 and
    /// later, where the bottom 1 KiB of the window is reserved).
    pub shared_base: u32,
    /// Local memory per thread (`LDL`/`STL`), in bytes.
    pub local_bytes: u32,
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

/// `dst[l] = f(src[l])` for every lane; as [`copy_lanes`], the common
/// width is fixed-size arrays, whose loop is vectorised (a loop over
/// slices of those lengths, inlined into a large function, was not).
#[inline(always)]
fn map_lanes(dst: &mut [u32], src: &[u32], f: impl Fn(u32) -> u32) {
    match (
        <&mut [u32; 32]>::try_from(&mut *dst),
        <&[u32; 32]>::try_from(src),
    ) {
        (Ok(d), Ok(s)) => *d = std::array::from_fn(|l| f(s[l])),
        _ => dst.iter_mut().zip(src).for_each(|(o, &b)| *o = f(b)),
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

/// Register `r`'s lanes to write (`None` for `RZ`). A load fills them
/// lane by lane directly: filled into a buffer first, a row read back
/// whole right after its lanes were stored one at a time waits on those
/// stores.
fn row_mut<const N: usize>(w: &mut Warp, r: u8) -> Option<&mut [u32]> {
    if r == RZ {
        return None;
    }
    let n = lanes_of::<N>(w);
    w.regs.get_mut(usize::from(r) * n..(usize::from(r) + 1) * n)
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
        Src::UReg(r) => fill_lanes(&mut out[..n], uniform_value(w, r, float)),
    }
}

/// A uniform register source's value with its modifiers (as [`fetch`]).
#[inline(always)]
fn uniform_value(w: &Warp, r: RegSrc, float: bool) -> u32 {
    let mut v = w.ureg(r.reg);
    if !float && r.not {
        v = !v;
    }
    if float && r.abs {
        v &= 0x7fff_ffff;
    }
    match (float, r.neg) {
        (false, true) => v.wrapping_neg(),
        (true, true) => v ^ 0x8000_0000,
        _ => v,
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
        Src::UReg(r) => return Arg::Splat(uniform_value(w, r, float)),
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
    // Each arm calls the semantics with constants, so its loop is one
    // vector compare.
    macro_rules! lanes {
        ($c:expr, $u:expr) => {
            lane_bits::<N>(n, |l| semantics::icmp($c, $u, a.at(l), b.at(l)))
        };
    }
    match (c, unsigned) {
        (Cmp::Lt, true) => lanes!(Cmp::Lt, true),
        (Cmp::Le, true) => lanes!(Cmp::Le, true),
        (Cmp::Gt, true) => lanes!(Cmp::Gt, true),
        (Cmp::Ge, true) => lanes!(Cmp::Ge, true),
        (Cmp::Lt, false) => lanes!(Cmp::Lt, false),
        (Cmp::Le, false) => lanes!(Cmp::Le, false),
        (Cmp::Gt, false) => lanes!(Cmp::Gt, false),
        (Cmp::Ge, false) => lanes!(Cmp::Ge, false),
        (Cmp::Eq, _) => lanes!(Cmp::Eq, true),
        (Cmp::Ne, _) => lanes!(Cmp::Ne, true),
    }
}

/// Per-lane addresses of a memory operand (32-bit: the low word of a
/// `[Rn.64]` pair), the uniform register added.
fn addresses<const N: usize>(w: &Warp, m: MemRef, out: &mut Lanes) {
    let n = lanes_of::<N>(w);
    let off = (m.offset as u32).wrapping_add(w.ureg(m.ubase));
    match row::<N>(w, m.base) {
        Some(v) if m.scale <= 1 => map_lanes(&mut out[..n], v, |b| b.wrapping_add(off)),
        Some(v) => {
            let k = u32::from(m.scale);
            map_lanes(&mut out[..n], v, |b| b.wrapping_mul(k).wrapping_add(off));
        }
        None => out[..n].fill(off),
    }
}

/// Shared addresses as offsets in the block's window, which starts at
/// `base`: an address below it lands past the end once wrapped.
#[inline(always)]
fn into_window(a: &mut [u32], base: u32) {
    if base != 0 {
        for x in a.iter_mut() {
            *x = x.wrapping_sub(base);
        }
    }
}

/// For a listing's global access: the 64-bit address of each lane in `on`
/// (the register pair `[Rn.64]`, or the uniform pair `[URn]` alone), mapped
/// into the 32-bit window `out`; returns the lanes whose address is
/// outside [`super::DEVICE_WINDOW`] (they fault). Lanes off `on` get an
/// address too, which nothing reads. Other forms keep their 32-bit
/// address.
fn device_addresses<const N: usize>(w: &Warp, m: MemRef, on: u64, out: &mut Lanes) -> u64 {
    let window_hi = (super::DEVICE_WINDOW >> 32) as u32;
    let off = i64::from(m.offset) as u64;
    let pair = |lo: u32, hi: u32| u64::from(hi) << 32 | u64::from(lo);
    let uniform_pair = m.base == RZ && m.ubase != URZ;
    if !(uniform_pair || m.wide && m.base != RZ) {
        return 0;
    }
    let n = lanes_of::<N>(w);
    let on = on & lane_mask(n as u32);
    if uniform_pair {
        let a = pair(w.ureg(m.ubase), w.ureg(m.ubase.saturating_add(1))).wrapping_add(off);
        // Every lane's (only those of `on` are read), so that it vectorises.
        out[..n].fill(a as u32);
        return if (a >> 32) as u32 != window_hi { on } else { 0 };
    }
    // `[R8.64+UR4]` (sm_75): the uniform register added is the 64-bit
    // pair UR4:UR5 (a pointer from `ULDC.64 UR4, ...`).
    let u = if m.ubase == URZ {
        0
    } else {
        pair(w.ureg(m.ubase), w.ureg(m.ubase.saturating_add(1)))
    };
    let add = u.wrapping_add(off);
    // Every lane's register pair, read where the two rows are (a row
    // past the registers reads zero, as `Warp::reg` does).
    let zeros = [0u32; 64];
    let lo_row = row::<N>(w, m.base).unwrap_or(&zeros[..n]);
    let hi_row = row::<N>(w, m.base.saturating_add(1)).unwrap_or(&zeros[..n]);
    let at = |l: usize| {
        let (lo, hi) = (lo_row.get(l), hi_row.get(l));
        pair(lo.copied().unwrap_or(0), hi.copied().unwrap_or(0)).wrapping_add(add)
    };
    // The low word of `pair + add` is `lo + add`'s: no high word needed.
    // Every lane's (only those of `on` are read), so that it vectorises.
    for (o, &lo) in out[..n].iter_mut().zip(lo_row) {
        *o = lo.wrapping_add(add as u32);
    }
    // Usually every lane is inside the window: one pass over the rows
    // (which vectorises) says so.
    let outside =
        |(&lo, &hi): (&u32, &u32)| (pair(lo, hi).wrapping_add(add) >> 32) as u32 != window_hi;
    if !lo_row.iter().zip(hi_row).fold(false, |b, x| b | outside(x)) {
        return 0;
    }
    lanes(on)
        .filter(|&l| (at(l) >> 32) as u32 != window_hi)
        .fold(0, |m, l| m | 1 << l)
}

/// The `width` value at byte `byte` of word `v`, zero- or sign-extended
/// (a whole word for 32 bits and wider).
fn sub_word(v: u32, width: Width, byte: u8) -> u32 {
    let x = v >> (8 * u32::from(byte & 3));
    match width {
        Width::U8 => x & 0xff,
        Width::S8 => x as u8 as i8 as i32 as u32,
        Width::U16 => x & 0xffff,
        Width::S16 => x as u16 as i16 as i32 as u32,
        _ => v,
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
    /// Per-thread local memory (`LDL`/`STL`).
    Local,
}

/// One load, store or atomic: where, which registers, how wide.
pub struct Access {
    space: Space,
    addr: MemRef,
    /// First register loaded into or stored from (an atomic's destination).
    reg: u8,
    width: Width,
    store: bool,
    /// An atomic's operation, and its operand registers `b`, `c`.
    atom: Option<(AtomOp, u8, u8)>,
}

/// Which memory a load or store reaches, for [`lane_addresses`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessSpace {
    Global,
    Shared,
    Local,
}

/// The addresses a memory instruction reaches, per lane, as
/// [`memory_op`] forms them (not counting faults of the access itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneAddresses {
    pub space: AccessSpace,
    /// Bytes per lane.
    pub size: u32,
    pub store: bool,
    pub atomic: bool,
    /// `(lane, address)` for the lanes of `on`, in lane order (shared:
    /// the offset in the block's window).
    pub lanes: Vec<(u32, u32)>,
    /// Lanes whose 64-bit address is outside the device window.
    pub outside: u64,
}

/// The addresses `op` would reach for lanes `on` of `w`, read from the
/// registers as they are now; `None` when `op` is no load or store. It
/// changes nothing: frontends use it to show an access.
pub fn lane_addresses(
    w: &Warp,
    op: &Op,
    on: u64,
    wide_addresses: bool,
    shared_base: u32,
) -> Option<LaneAddresses> {
    let acc = access(op)?;
    let n = w.width.min(64) as usize;
    let mut a: Lanes = [0; 64];
    addresses::<0>(w, acc.addr, &mut a);
    let mut on = on & lane_mask(n as u32);
    let mut outside = 0;
    if wide_addresses && matches!(acc.space, Space::Global) {
        outside = device_addresses::<0>(w, acc.addr, on, &mut a);
        on &= !outside;
    }
    if matches!(acc.space, Space::Shared) {
        into_window(&mut a[..n], shared_base);
    }
    Some(LaneAddresses {
        space: match acc.space {
            Space::Global => AccessSpace::Global,
            Space::Shared => AccessSpace::Shared,
            Space::Local => AccessSpace::Local,
        },
        size: acc.width.bytes(),
        store: acc.store,
        atomic: acc.atom.is_some(),
        lanes: lanes(on).map(|l| (l as u32, a[l])).collect(),
        outside,
    })
}

impl Access {
    /// A shared load or store of one 4-byte word a lane, not an atomic:
    /// the common shared access, which [`shared_word_op`] carries out.
    fn is_shared_word(&self) -> bool {
        matches!(self.space, Space::Shared) && self.atom.is_none() && self.width.bytes() == 4
    }
}

/// Loads and stores for both spaces: per-lane access, faults, and the
/// access pattern for coalescing or bank analysis. The common shared
/// access goes to [`shared_word_op`], which needs none of the others'
/// preparations; the rest to [`memory_op_any`].
#[inline(always)]
pub fn memory_op<const N: usize>(
    w: &mut Warp,
    env: &mut MemEnv,
    acc: Access,
    on: u64,
) -> MemEffect {
    if acc.is_shared_word() {
        shared_word_op::<N>(w, env, acc, on)
    } else {
        memory_op_any::<N>(w, env, acc, on)
    }
}

/// [`memory_op`] for a shared load or store of one word a lane
/// ([`Access::is_shared_word`]): its lanes' addresses, in the block's
/// window, and [`shared_words`].
#[inline(never)]
fn shared_word_op<const N: usize>(
    w: &mut Warp,
    env: &mut MemEnv,
    acc: Access,
    on: u64,
) -> MemEffect {
    let n = lanes_of::<N>(w);
    let mut a: Lanes = [0; 64];
    addresses::<N>(w, acc.addr, &mut a);
    into_window(&mut a[..n], env.shared_base);
    let on_n = on & lane_mask(n as u32);
    shared_words::<N>(w, env, &a, acc.reg, acc.store, on, on_n)
}

/// [`memory_op`] for any access but a shared word a lane (that one is
/// [`shared_word_op`]'s).
#[inline(never)]
fn memory_op_any<const N: usize>(
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
        atom,
    } = acc;
    let n = lanes_of::<N>(w);
    let size = width.bytes();
    let nregs = usize::from(width.regs());
    let mut a: Lanes = [0; 64];
    addresses::<N>(w, addr, &mut a);
    env.scratch.accesses.clear();
    let mut on = on;
    if env.wide_addresses && matches!(space, Space::Global) {
        let bad = device_addresses::<N>(w, addr, on, &mut a);
        for l in lanes(bad) {
            env.scratch
                .faults
                .push((l as u32, a[l], FaultKind::OutOfBounds));
        }
        on &= !bad;
    }
    if matches!(space, Space::Shared) {
        into_window(&mut a[..n], env.shared_base);
    }
    if let Some((op, b, c)) = atom {
        return atomic_op::<N>(w, env, space, a, reg, width, (op, b, c), on);
    }
    if matches!(space, Space::Local) {
        local_op::<N>(w, env, a, reg, width, store, on);
        return MemEffect::None;
    }
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
        if on_n != 0 {
            // One word a lane (the common store) moves as a `u32`.
            let stored = if size == 4 {
                // `RZ`, or a lane past the row, stores zero.
                env.global.store_row(&a, on_n, rows[0].unwrap_or(&[]))
            } else {
                env.global
                    .store_one_buffer(size, &a, on_n, |l, d| memory::put_words(d, &words(l)))
            };
            if let Some(c) = stored {
                return MemEffect::Global(c);
            }
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
    if !store && matches!(space, Space::Global) && on_n != 0 {
        // One word a lane (the common load) moves as a `u32`, with no
        // rows for wider loads.
        if size == 4 {
            // Into the register's lanes (the lanes of `on_n` only): see
            // `row_mut`. `RZ` reads all the same.
            let row = row_mut::<N>(w, reg).unwrap_or_default();
            let got = env.global.load_row(&a, on_n, row);
            if let Some(c) = got {
                return MemEffect::Global(c);
            }
        } else {
            let mut loaded: [Lanes; 4] = [[0; 64]; 4];
            let got = env.global.load_one_buffer(size, &a, on_n, |l, b| {
                let mut buf = [0u8; 16];
                buf[..b.len()].copy_from_slice(b);
                for (k, dst) in loaded.iter_mut().take(nregs).enumerate() {
                    dst[l] = load_value(&buf, width, k);
                }
            });
            if let Some(c) = got {
                for (k, vals) in loaded.iter().take(nregs).enumerate() {
                    write::<N>(w, reg.saturating_add(k as u8), vals, on_n);
                }
                return MemEffect::Global(c);
            }
        }
    }
    let mut loaded: [Lanes; 4] = [[0; 64]; 4];
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
                Space::Shared | Space::Local => match env.shared.as_deref_mut() {
                    Some(m) => m.write(a[l], bytes),
                    None => Err(FaultKind::SharedOutOfBounds),
                },
            }
        } else {
            match space {
                Space::Global => env.global.load(a[l], bytes),
                Space::Shared | Space::Local => match env.shared.as_deref() {
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
        Space::Local => MemEffect::None,
        Space::Shared => MemEffect::Shared {
            passes: memory::bank_passes(
                &env.scratch.accesses,
                env.banks,
                &mut env.scratch.bank_words,
            ),
        },
    }
}

/// A shared load or store of one 4-byte word a lane (the common shared
/// access): each lane's word moves as a `u32`, with no byte buffer.
#[inline(always)]
fn shared_words<const N: usize>(
    w: &mut Warp,
    env: &mut MemEnv,
    a: &Lanes,
    reg: u8,
    store: bool,
    on: u64,
    on_n: u64,
) -> MemEffect {
    // Every lane at once where none faults (the usual case); with no lane
    // on, nothing to do (and no memory to allocate for a store). A load
    // fills the register's lanes directly (see `row_mut`); one with no
    // row to fill (into `RZ`) goes lane by lane.
    let moved = match env.shared.as_deref_mut() {
        _ if on_n == 0 => Moved::Refused,
        Some(m) if store => m.store_words(a, on_n, row::<N>(w, reg).unwrap_or(&[])),
        Some(m) => match row_mut::<N>(w, reg) {
            Some(dst) => m.load_words(a, on_n, dst),
            None => Moved::Refused,
        },
        None => Moved::Refused,
    };
    let mut ok: u64 = 0;
    if moved.moved() {
        ok = on_n;
    } else if on_n != 0 {
        // Each lane on its own, with its fault.
        let mut vals: Lanes = [0; 64];
        for l in lanes(on_n) {
            let result = match env.shared.as_deref_mut() {
                None => Err(FaultKind::SharedOutOfBounds),
                Some(m) if store => m.write_u32(a[l], w.reg(reg, l as u32)),
                Some(m) => m.read_u32(a[l]).map(|v| vals[l] = v),
            };
            match result {
                Ok(()) => ok |= 1 << l,
                Err(kind) => env.scratch.faults.push((l as u32, a[l], kind)),
            }
        }
        if !store {
            write::<N>(w, reg, &vals, ok);
        }
    }
    if on == 0 {
        return MemEffect::None;
    }
    // Lanes moved as one run (then `ok` is that run): its stride is
    // known, and no address need be read again.
    let passes = match moved {
        Moved::Run { n, stride } => memory::run_bank_passes(n, stride, env.banks),
        _ => memory::word_bank_passes(a, ok, env.banks, &mut env.scratch.bank_words),
    };
    MemEffect::Shared { passes }
}

/// An atomic: lanes in lane order (a warp's lanes are serialised; warps
/// in the order they issue), each reading the old word, writing
/// `semantics::atom(op, old, b, c)` (`atom64` on register pairs for
/// `.64`) and receiving `semantics::atom_result` (the old word, or for
/// `CAST.SPIN` whether it stored) in `reg` (the pair from `reg` for
/// `.64`) or the `CAST.SPIN` predicate.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn atomic_op<const N: usize>(
    w: &mut Warp,
    env: &mut MemEnv,
    space: Space,
    a: Lanes,
    reg: u8,
    width: Width,
    (op, b, c): (AtomOp, u8, u8),
    on: u64,
) -> MemEffect {
    let n = lanes_of::<N>(w);
    let wide = width == Width::B64;
    let size: u32 = if wide { 8 } else { 4 };
    let pair = |w: &Warp, r: u8, l: u32| {
        let hi = if wide && r != RZ {
            w.reg(r.saturating_add(1), l)
        } else {
            0
        };
        u64::from(w.reg(r, l)) | u64::from(hi) << 32
    };
    let mut lo: Lanes = [0; 64];
    let mut hi: Lanes = [0; 64];
    let mut ok = 0u64;
    let mut stored = 0u64;
    let shared = matches!(space, Space::Shared);
    for l in lanes(on & lane_mask(n as u32)) {
        let mut buf = [0u8; 8];
        let bytes = &mut buf[..size as usize];
        let read = if shared {
            match env.shared.as_deref() {
                Some(m) => m.read(a[l], bytes),
                None => Err(FaultKind::SharedOutOfBounds),
            }
        } else {
            env.global.load(a[l], bytes)
        };
        let result = read.and_then(|()| {
            let old = u64::from_le_bytes(buf);
            let (vb, vc) = (pair(w, b, l as u32), pair(w, c, l as u32));
            let new = if wide {
                semantics::atom64(op, old, vb, vc)
            } else {
                u64::from(semantics::atom(op, old as u32, vb as u32, vc as u32))
            };
            let got = semantics::atom_result(op, old, vb);
            lo[l] = got as u32;
            hi[l] = (got >> 32) as u32;
            stored |= u64::from(got != 0) << l;
            let bytes = new.to_le_bytes();
            let bytes = &bytes[..size as usize];
            if shared {
                match env.shared.as_deref_mut() {
                    Some(m) => m.write(a[l], bytes),
                    None => Err(FaultKind::SharedOutOfBounds),
                }
            } else {
                env.global.write(a[l], bytes)
            }
        });
        match result {
            Ok(()) => {
                ok |= 1 << l;
                env.scratch.accesses.push((a[l], size));
            }
            Err(kind) => env.scratch.faults.push((l as u32, a[l], kind)),
        }
    }
    write::<N>(w, reg, &lo, ok);
    if wide && reg != RZ {
        write::<N>(w, reg.saturating_add(1), &hi, ok);
    }
    if let AtomOp::CasSpin { p } = op {
        write_pred(w, p, stored, ok);
    }
    if on == 0 {
        return MemEffect::None;
    }
    match space {
        Space::Shared => MemEffect::Shared {
            passes: memory::bank_passes(
                &env.scratch.accesses,
                env.banks,
                &mut env.scratch.bank_words,
            ),
        },
        _ => MemEffect::Global(memory::coalesce(&mut env.scratch.accesses)),
    }
}

/// `LDL`/`STL`: each lane's own window of `local_bytes`, address `a`
/// at offset `a` (the stack pointer starts at `local_bytes` and grows
/// down); outside the window, or misaligned, the lane faults.
fn local_op<const N: usize>(
    w: &mut Warp,
    env: &mut MemEnv,
    a: Lanes,
    reg: u8,
    width: Width,
    store: bool,
    on: u64,
) {
    let n = lanes_of::<N>(w);
    let size = width.bytes();
    let nregs = usize::from(width.regs());
    let window = env.local_bytes as usize;
    if w.local.len() != window * n {
        // First touch: every thread's window, zeroed.
        w.local = vec![0; window * n];
    }
    let mut loaded: [Lanes; 4] = [[0; 64]; 4];
    let mut ok = 0u64;
    for l in lanes(on & lane_mask(n as u32)) {
        let at = a[l] as usize;
        if !a[l].is_multiple_of(size) {
            env.scratch
                .faults
                .push((l as u32, a[l], FaultKind::Misaligned));
            continue;
        }
        if at + size as usize > window {
            env.scratch
                .faults
                .push((l as u32, a[l], FaultKind::LocalOutOfBounds));
            continue;
        }
        let base = l * window + at;
        if store {
            let mut buf = [0u8; 16];
            for k in 0..nregs {
                buf[4 * k..4 * k + 4]
                    .copy_from_slice(&w.reg(reg.saturating_add(k as u8), l as u32).to_le_bytes());
            }
            w.local[base..base + size as usize].copy_from_slice(&buf[..size as usize]);
        } else {
            let mut buf = [0u8; 16];
            buf[..size as usize].copy_from_slice(&w.local[base..base + size as usize]);
            for (k, dst) in loaded.iter_mut().take(nregs).enumerate() {
                dst[l] = load_value(&buf, width, k);
            }
        }
        ok |= 1 << l;
    }
    if !store {
        for (k, vals) in loaded.iter().take(nregs).enumerate() {
            write::<N>(w, reg.saturating_add(k as u8), vals, ok);
        }
    }
}

/// [`execute`] for a warp of any width (the 32-lane one is inlined into the
/// issue path; this one is not).
#[inline(never)]
pub fn execute_any(w: &mut Warp, op: &Op, on: u64, active: u64, env: &mut Env) {
    execute::<0>(w, op, on, active, env)
}

/// Executes the data effect of `op`, other than a load or store (see
/// [`access`]), for the lanes in `on` (active and predicated on); `active`
/// is the issuing mask, which SHFL reads from. Control flow is the
/// convergence model's business, not done here.
// Always inlined into `issue` (see `State::issue_sm`).
#[inline(always)]
pub fn execute<const N: usize>(w: &mut Warp, op: &Op, on: u64, active: u64, env: &mut Env) {
    let mut x = Datapath::<N> { w, env, on, active };
    dispatch(&mut x, op);
}

/// A warp's lanes as one instruction runs over them: the lane loops
/// (shapes) that the opcode table's `exec lanes` entries call with their
/// semantics functions. Every shape is inlined into [`execute`], so an
/// entry's closure becomes the body of a loop the compiler vectorises.
pub(crate) struct Datapath<'a, 'e, const N: usize> {
    w: &'a mut Warp,
    env: &'a mut Env<'e>,
    /// Lanes that are active and predicated on: the ones written.
    on: u64,
    /// The issuing lanes (what SHFL may read from).
    active: u64,
}

impl<const N: usize> Datapath<'_, '_, N> {
    /// The lanes where predicate `p` holds.
    #[inline(always)]
    pub(crate) fn pred_mask(&self, p: PredSrc) -> u64 {
        self.w.pred_mask(p)
    }

    /// `d = a`, the source's lanes copied as they are.
    #[inline(always)]
    pub(crate) fn copy(&mut self, d: u8, sa: Src) {
        let [a, ..] = &mut self.env.scratch.lanes;
        fetch_i::<N>(self.w, sa, a);
        write::<N>(self.w, d, a, self.on);
    }

    /// `d = f(a, b, c)` per lane with every source read where it is (see
    /// [`Arg`]): one loop per kind of each source.
    #[inline(always)]
    pub(crate) fn map3(
        &mut self,
        float: bool,
        d: u8,
        sa: Src,
        sb: Src,
        sc: Src,
        f: impl Fn(u32, u32, u32) -> u32,
    ) {
        let w: &Warp = self.w;
        let n = lanes_of::<N>(w);
        let [a, b, c, ..] = &mut self.env.scratch.lanes;
        let x = arg::<N>(w, sa, a, float);
        let y = arg::<N>(w, sb, b, float);
        let z = arg::<N>(w, sc, c, float);
        let out =
            split_arg!(x, x => split_arg!(y, y => split_arg!(z, z => map::<N>(n, x, y, z, &f))));
        write::<N>(self.w, d, &out, self.on);
    }

    /// [`Self::map3`] for two sources.
    #[inline(always)]
    pub(crate) fn map2(
        &mut self,
        float: bool,
        d: u8,
        sa: Src,
        sb: Src,
        f: impl Fn(u32, u32) -> u32,
    ) {
        self.map3(float, d, sa, sb, Src::Imm(0), |x, y, _| f(x, y));
    }

    /// `d = f(a)` per lane, the source gathered first.
    #[inline(always)]
    pub(crate) fn fetched1(&mut self, float: bool, d: u8, sa: Src, f: impl Fn(u32) -> u32) {
        let n = lanes_of::<N>(self.w);
        let [a, _, _, r, _] = &mut self.env.scratch.lanes;
        fetch::<N>(self.w, sa, a, float);
        for l in 0..n {
            r[l] = f(a[l]);
        }
        write::<N>(self.w, d, r, self.on);
    }

    /// `MUFU`: `d = f(a)` on the lanes that are on alone (each is a libm
    /// call or a division), the function picked once, not once a lane.
    #[inline(always)]
    pub(crate) fn mufu(&mut self, d: u8, sa: Src, func: MufuOp) {
        let n = lanes_of::<N>(self.w);
        let on = self.on & lane_mask(n as u32);
        let [a, _, _, r, _] = &mut self.env.scratch.lanes;
        fetch::<N>(self.w, sa, a, true);
        // Out of line, one copy a function: a loop of libm calls inside
        // the issue path compiled with whatever registers the path around
        // it left (up to 2% of the MUFU kernel's host instructions from
        // one build to the next); on its own, with the few it needs.
        #[inline(never)]
        fn each(r: &mut Lanes, a: &Lanes, on: u64, f: impl Fn(u32) -> u32) {
            for l in lanes(on) {
                r[l] = f(a[l]);
            }
        }
        use semantics::mufu;
        match func {
            MufuOp::Ex2 => each(r, a, on, |a| mufu(MufuOp::Ex2, a)),
            MufuOp::Lg2 => each(r, a, on, |a| mufu(MufuOp::Lg2, a)),
            MufuOp::Rcp => each(r, a, on, |a| mufu(MufuOp::Rcp, a)),
            MufuOp::Rsq => each(r, a, on, |a| mufu(MufuOp::Rsq, a)),
            MufuOp::Sqrt => each(r, a, on, |a| mufu(MufuOp::Sqrt, a)),
            MufuOp::Sin => each(r, a, on, |a| mufu(MufuOp::Sin, a)),
            MufuOp::Cos => each(r, a, on, |a| mufu(MufuOp::Cos, a)),
            MufuOp::Rcp64h => each(r, a, on, |a| mufu(MufuOp::Rcp64h, a)),
        }
        write::<N>(self.w, d, r, self.on);
    }

    /// `d = f(a, b)` per lane, the sources gathered first.
    #[inline(always)]
    pub(crate) fn fetched2(
        &mut self,
        float: bool,
        d: u8,
        sa: Src,
        sb: Src,
        f: impl Fn(u32, u32) -> u32,
    ) {
        let n = lanes_of::<N>(self.w);
        let [a, b, _, r, _] = &mut self.env.scratch.lanes;
        fetch::<N>(self.w, sa, a, float);
        fetch::<N>(self.w, sb, b, float);
        for l in 0..n {
            r[l] = f(a[l], b[l]);
        }
        write::<N>(self.w, d, r, self.on);
    }

    /// `d = f(a, b, c)` per lane on integer sources gathered first.
    #[inline(always)]
    pub(crate) fn fetched3(
        &mut self,
        d: u8,
        sa: Src,
        sb: Src,
        sc: Src,
        f: impl Fn(u32, u32, u32) -> u32,
    ) {
        let n = lanes_of::<N>(self.w);
        let [a, b, c, r, _] = &mut self.env.scratch.lanes;
        fetch_i::<N>(self.w, sa, a);
        fetch_i::<N>(self.w, sb, b);
        fetch_i::<N>(self.w, sc, c);
        for l in 0..n {
            r[l] = f(a[l], b[l], c[l]);
        }
        write::<N>(self.w, d, r, self.on);
    }

    /// [`Self::fetched3`], and predicate `p` set where the result is not 0.
    #[inline(always)]
    pub(crate) fn fetched3_nonzero(
        &mut self,
        p: u8,
        d: u8,
        sa: Src,
        sb: Src,
        sc: Src,
        f: impl Fn(u32, u32, u32) -> u32,
    ) {
        self.fetched3(d, sa, sb, sc, f);
        let n = lanes_of::<N>(self.w);
        let r = &self.env.scratch.lanes[3];
        let nonzero = lane_bits::<N>(n, |l| r[l] != 0);
        write_pred(self.w, p, nonzero, self.on);
    }

    /// `d = f(p, a, b)` per lane, `p` the lane's bit of predicate `sp`.
    #[inline(always)]
    pub(crate) fn select(
        &mut self,
        float: bool,
        d: u8,
        sa: Src,
        sb: Src,
        sp: PredSrc,
        f: impl Fn(bool, u32, u32) -> u32,
    ) {
        let n = lanes_of::<N>(self.w);
        let [a, b, _, r, _] = &mut self.env.scratch.lanes;
        fetch::<N>(self.w, sa, a, float);
        fetch::<N>(self.w, sb, b, float);
        let pm = self.w.pred_mask(sp);
        for l in 0..n {
            r[l] = f(pm >> l & 1 != 0, a[l], b[l]);
        }
        write::<N>(self.w, d, r, self.on);
    }

    /// A sum with carries: `f(a, b, c, ci0, ci1)` per lane gives the wide
    /// sum, `d` takes its low 32 bits, `carry[0]` bit 32, `carry[1]` bit 33.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn carry3(
        &mut self,
        d: u8,
        carry: [u8; 2],
        sa: Src,
        sb: Src,
        sc: Src,
        carry_in: [PredSrc; 2],
        f: impl Fn(u32, u32, u32, bool, bool) -> u64,
    ) {
        let n = lanes_of::<N>(self.w);
        let ci0 = self.w.pred_mask(carry_in[0]);
        let ci1 = self.w.pred_mask(carry_in[1]);
        let [a, b, c, r, _] = &mut self.env.scratch.lanes;
        fetch_i::<N>(self.w, sa, a);
        fetch_i::<N>(self.w, sb, b);
        fetch_i::<N>(self.w, sc, c);
        let (mut co0, mut co1) = (0u64, 0u64);
        for l in 0..n {
            let s = f(a[l], b[l], c[l], ci0 >> l & 1 != 0, ci1 >> l & 1 != 0);
            r[l] = s as u32;
            co0 |= (s >> 32 & 1) << l;
            co1 |= (s >> 33 & 1) << l;
        }
        let on = self.on;
        write::<N>(self.w, d, r, on);
        write_pred(self.w, carry[0], co0, on);
        write_pred(self.w, carry[1], co1, on);
    }

    /// A 64-bit result into the pair `d`, `d + 1`: `f(a, b, c64)` per lane,
    /// `c64` the 64-bit addend (the register pair `c`, `c + 1`; for an
    /// immediate or constant, its high word is the linked one, or the sign
    /// of a negative immediate when `signed`). With `high_only`
    /// (`IMAD.HI`) only the high word is written, into `d`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn wide3(
        &mut self,
        d: u8,
        sa: Src,
        sb: Src,
        sc: Src,
        signed: bool,
        high_only: bool,
        f: impl Fn(u32, u32, u64) -> u64,
    ) {
        let n = lanes_of::<N>(self.w);
        let c_hi_linked = self.env.c_hi;
        let [a, b, c, r, _] = &mut self.env.scratch.lanes;
        fetch_i::<N>(self.w, sa, a);
        fetch_i::<N>(self.w, sb, b);
        fetch_i::<N>(self.w, sc, c);
        let mut c_hi: Lanes = [0; 64];
        match sc {
            Src::Reg(reg) if reg.reg != RZ => {
                if let Some(v) = row::<N>(self.w, reg.reg.saturating_add(1)) {
                    c_hi[..n].copy_from_slice(v);
                }
            }
            Src::UReg(u) if u.reg != URZ => c_hi[..n].fill(self.w.ureg(u.reg.saturating_add(1))),
            Src::Imm(v) if signed && (v as i32) < 0 && c_hi_linked == 0 => c_hi[..n].fill(u32::MAX),
            _ => c_hi[..n].fill(c_hi_linked),
        }
        let mut hi: Lanes = [0; 64];
        for l in 0..n {
            let addend = u64::from(c_hi[l]) << 32 | u64::from(c[l]);
            let v = f(a[l], b[l], addend);
            r[l] = v as u32;
            hi[l] = (v >> 32) as u32;
        }
        if high_only {
            write::<N>(self.w, d, &hi, self.on);
            return;
        }
        write::<N>(self.w, d, r, self.on);
        if d != RZ {
            write::<N>(self.w, d.saturating_add(1), &hi, self.on);
        }
    }

    /// `d = fma(a, b, c)` with the CPU's fused multiply-add when it has
    /// one, else `portable` per lane (the same correctly rounded result).
    #[inline(always)]
    pub(crate) fn fma(
        &mut self,
        d: u8,
        sa: Src,
        sb: Src,
        sc: Src,
        portable: impl Fn(u32, u32, u32) -> u32,
    ) {
        let w: &Warp = self.w;
        let n = lanes_of::<N>(w);
        let [a, b, c, r, _] = &mut self.env.scratch.lanes;
        let x = arg::<N>(w, sa, a, true);
        let y = arg::<N>(w, sb, b, true);
        let z = arg::<N>(w, sc, c, true);
        let fused = split_arg!(x, x => split_arg!(y, y => split_arg!(z, z => {
            fused_multiply_add::<N, _, _, _>(r, n, x, y, z)
        })));
        if !fused {
            fetch_f::<N>(w, sa, a);
            fetch_f::<N>(w, sb, b);
            fetch_f::<N>(w, sc, c);
            for l in 0..n {
                r[l] = portable(a[l], b[l], c[l]);
            }
        }
        write::<N>(self.w, d, r, self.on);
    }

    /// Writes a comparison's lanes `t` into `p`, and their complement into
    /// `q`, each combined with predicate `c`.
    #[inline(always)]
    fn set_predicates(&mut self, cb: Combine, p: u8, q: u8, t: u64, c: PredSrc) {
        let cm = self.w.pred_mask(c);
        let full = self.w.full();
        let on = self.on;
        write_pred(self.w, p, semantics::combine(cb, t, cm), on);
        write_pred(self.w, q, semantics::combine(cb, !t & full, cm), on);
    }

    /// An integer compare into predicates, specialised on the comparison.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn icmp_setp(
        &mut self,
        k: Cmp,
        unsigned: bool,
        cb: Combine,
        p: u8,
        q: u8,
        sa: Src,
        sb: Src,
        c: PredSrc,
    ) {
        let w: &Warp = self.w;
        let n = lanes_of::<N>(w);
        let [a, b, ..] = &mut self.env.scratch.lanes;
        let x = arg::<N>(w, sa, a, false);
        let y = arg::<N>(w, sb, b, false);
        let t = split_arg!(x, x => split_arg!(y, y => icmp_mask::<N, _, _>(k, unsigned, n, x, y)));
        self.set_predicates(cb, p, q, t, c);
    }

    /// `ISETP.EX`: `f(a, b, lo)` per lane, `lo` the lane's bit of
    /// predicate `e` (the low words' compare).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn icmp_setp_ex(
        &mut self,
        cb: Combine,
        p: u8,
        q: u8,
        sa: Src,
        sb: Src,
        c: PredSrc,
        e: PredSrc,
        f: impl Fn(u32, u32, bool) -> bool,
    ) {
        let n = lanes_of::<N>(self.w);
        let [a, b, ..] = &mut self.env.scratch.lanes;
        fetch_i::<N>(self.w, sa, a);
        fetch_i::<N>(self.w, sb, b);
        let lo = self.w.pred_mask(e);
        let t = bits(n, |l| f(a[l], b[l], lo >> l & 1 != 0));
        self.set_predicates(cb, p, q, t, c);
    }

    /// A compare into predicates: `test(a, b)` per lane.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn setp(
        &mut self,
        float: bool,
        cb: Combine,
        p: u8,
        q: u8,
        sa: Src,
        sb: Src,
        c: PredSrc,
        test: impl Fn(u32, u32) -> bool,
    ) {
        let w: &Warp = self.w;
        let n = lanes_of::<N>(w);
        let [a, b, ..] = &mut self.env.scratch.lanes;
        let x = arg::<N>(w, sa, a, float);
        let y = arg::<N>(w, sb, b, float);
        let t = split_arg!(x, x => split_arg!(y, y => {
            lane_bits::<N>(n, |l| test(x.at(l), y.at(l)))
        }));
        self.set_predicates(cb, p, q, t, c);
    }

    /// `d = base + lane * step`, `(base, step) = f(ids)` from the warp's
    /// place in the grid.
    #[inline(always)]
    pub(crate) fn ramp(&mut self, d: u8, f: impl Fn(semantics::ThreadIds) -> (u32, u32)) {
        let w: &Warp = self.w;
        let n = lanes_of::<N>(w);
        let (base, step) = f(semantics::ThreadIds {
            first_thread: w.in_block * w.width,
            block: w.block,
            block_dim: self.env.block_dim,
            blocks: self.env.blocks,
            warp_slot: w.slot,
        });
        let r = &mut self.env.scratch.lanes[3];
        for (l, x) in r[..n].iter_mut().enumerate() {
            *x = base.wrapping_add(step * l as u32);
        }
        write::<N>(self.w, d, r, self.on);
    }

    /// The launch is one-dimensional (every y and z is 1).
    #[inline(always)]
    fn linear_launch(&self) -> bool {
        let (b, g) = (self.env.block_dim3, self.env.grid_dim3);
        b[1] <= 1 && b[2] <= 1 && g[1] <= 1 && g[2] <= 1
    }

    /// Where lane `lane` of the warp is, for [`semantics::special_reg`].
    #[inline(always)]
    fn place(&self, lane: u32) -> semantics::Place {
        let w: &Warp = self.w;
        semantics::Place {
            thread: w.in_block * w.width + lane,
            lane,
            block: w.block,
            block_dim: self.env.block_dim3,
            grid_dim: self.env.grid_dim3,
            warp_slot: w.slot,
            clock: self.env.clock,
        }
    }

    /// `S2R d, sr`: a ramp over the lanes where it is one (a 1-D launch),
    /// else each lane's value.
    #[inline(always)]
    pub(crate) fn s2r(&mut self, d: u8, sr: SpecialReg) {
        let ids = semantics::ThreadIds {
            first_thread: self.w.in_block * self.w.width,
            block: self.w.block,
            block_dim: self.env.block_dim,
            blocks: self.env.blocks,
            warp_slot: self.w.slot,
        };
        if self.linear_launch()
            && let Some((base, step)) = semantics::s2r(sr, ids)
        {
            return self.ramp(d, |_| (base, step));
        }
        let n = lanes_of::<N>(self.w);
        let mut r: Lanes = [0; 64];
        for (l, x) in r[..n].iter_mut().enumerate() {
            *x = semantics::special_reg(sr, self.place(l as u32));
        }
        write::<N>(self.w, d, &r, self.on);
    }

    /// `CS2R d, sr`: a 64-bit special register into the pair `d`, `d + 1`.
    #[inline(always)]
    pub(crate) fn cs2r(&mut self, d: u8, sr: SpecialReg) {
        let (lo, hi) = match sr {
            SpecialReg::Clock | SpecialReg::ClockLo => {
                (self.env.clock as u32, (self.env.clock >> 32) as u32)
            }
            SpecialReg::Zero => (0, 0),
            _ => {
                self.s2r(d, sr);
                if d != RZ {
                    let mut r: Lanes = [0; 64];
                    r.fill(0);
                    write::<N>(self.w, d.saturating_add(1), &r, self.on);
                }
                return;
            }
        };
        let mut r: Lanes = [lo; 64];
        write::<N>(self.w, d, &r, self.on);
        if d != RZ {
            r.fill(hi);
            write::<N>(self.w, d.saturating_add(1), &r, self.on);
        }
    }

    /// The value of a uniform-datapath source: a uniform register with its
    /// modifiers, an immediate or a linked constant (`RZ` reads 0).
    #[inline(always)]
    pub(crate) fn uval(&self, s: Src) -> u32 {
        match s {
            Src::UReg(r) => uniform_value(self.w, r, false),
            Src::Imm(v) => v,
            Src::Reg(r) => {
                let lane = (self.on | 1).trailing_zeros();
                self.w.reg(r.reg, lane)
            }
            Src::Const { .. } => 0,
        }
    }

    /// Uniform register `u` (`URZ`: 0).
    #[inline(always)]
    pub(crate) fn ureg(&self, u: u8) -> u32 {
        self.w.ureg(u)
    }

    /// Uniform predicate `p`.
    #[inline(always)]
    pub(crate) fn upred(&self, p: PredSrc) -> bool {
        self.w.upred(p)
    }

    /// Writes uniform register `d` when the instruction is on for any lane
    /// (`URZ`: nothing).
    #[inline(always)]
    pub(crate) fn uwrite(&mut self, d: u8, v: u32) {
        if self.on != 0
            && let Some(x) = self.w.uregs.get_mut(usize::from(d))
        {
            *x = v;
        }
    }

    /// Writes uniform predicate `p` (`UPT`: nothing).
    #[inline(always)]
    pub(crate) fn upwrite(&mut self, p: u8, v: bool) {
        if self.on != 0 && p < UPT {
            self.w.upreds = (self.w.upreds & !(1 << p)) | (u8::from(v) << p);
        }
    }

    /// `S2UR d, sr`: the special register as lane 0 of the warp reads it.
    #[inline(always)]
    pub(crate) fn s2ur(&mut self, d: u8, sr: SpecialReg) {
        let v = semantics::special_reg(sr, self.place(0));
        self.uwrite(d, v);
    }

    /// `R2UR d, a`: register `a` of the lowest lane that is on.
    #[inline(always)]
    pub(crate) fn r2ur(&mut self, d: u8, a: u8) {
        let lane = self.on.trailing_zeros();
        let v = self.w.reg(a, lane);
        self.uwrite(d, v);
    }

    /// `ULDC`/`LDCU`: linked constant words into uniform registers from
    /// `d`; a sub-word width takes its bytes from `byte` of the first word.
    #[inline(always)]
    pub(crate) fn uldc(&mut self, d: u8, words: [Src; 4], width: Width, byte: u8) {
        let n = usize::from(width.regs());
        if n == 1 {
            let v = sub_word(self.uval(words[0]), width, byte);
            return self.uwrite(d, v);
        }
        if d == URZ {
            return;
        }
        for (k, &wd) in words.iter().enumerate().take(n) {
            let v = self.uval(wd);
            self.uwrite(d.saturating_add(k as u8), v);
        }
    }

    /// `LDC`: linked constant words into `d` (and `d + 1` for `.64`), or,
    /// with an index register, each lane's constant at `offset + index`
    /// (outside the bank: 0).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn ldc(
        &mut self,
        d: u8,
        words: [Src; 2],
        base: u8,
        offset: u32,
        width: Width,
        byte: u8,
    ) {
        let n = lanes_of::<N>(self.w);
        let nregs = usize::from(width.regs());
        let mut r: [Lanes; 2] = [[0; 64]; 2];
        if base == RZ {
            for (k, row_k) in r.iter_mut().enumerate().take(nregs) {
                let v = self.uval(words[k]);
                row_k.fill(if nregs == 1 {
                    sub_word(v, width, byte)
                } else {
                    v
                });
            }
        } else {
            // `offset` carries the bank above bit 16 (`constant_key`); an
            // index past the bank's 64 KiB reads 0.
            let bank = self.env.constants;
            let (bank_key, offset) = (offset & !0xffff, offset & 0xffff);
            let word = |a: u32| {
                if a > 0xffff {
                    0
                } else {
                    bank.get(&(bank_key | (a & !3))).copied().unwrap_or(0)
                }
            };
            let [lo, hi] = &mut r;
            for (l, (x, y)) in lo[..n].iter_mut().zip(&mut hi[..n]).enumerate() {
                let at = offset.wrapping_add(self.w.reg(base, l as u32));
                if nregs == 1 {
                    *x = sub_word(word(at), width, (at & 3) as u8);
                } else {
                    *x = word(at);
                    *y = word(at.wrapping_add(4));
                }
            }
        }
        for (k, row_k) in r.iter().enumerate().take(nregs) {
            if d != RZ {
                write::<N>(self.w, d.saturating_add(k as u8), row_k, self.on);
            }
        }
    }

    /// `REDUX`: `f` folded over register `a` of the lanes that are on, in
    /// lane order, into uniform register `d`.
    #[inline(always)]
    pub(crate) fn redux(&mut self, d: u8, a: u8, f: impl Fn(u32, u32) -> u32) {
        let mut on = lanes(self.on);
        let Some(first) = on.next() else { return };
        let mut acc = self.w.reg(a, first as u32);
        for l in on {
            acc = f(acc, self.w.reg(a, l as u32));
        }
        self.uwrite(d, acc);
    }

    /// `VOTEU`: the ballot of `src` over the lanes that are on into
    /// uniform register `d`, `f(ballot, on)` into uniform predicate `p`.
    #[inline(always)]
    pub(crate) fn voteu(&mut self, d: u8, p: u8, src: PredSrc, f: impl Fn(u64, u64) -> bool) {
        let on = self.on;
        let ballot = self.w.pred_mask(src) & on;
        self.uwrite(d, ballot as u32);
        self.upwrite(p, f(ballot, on));
    }

    /// A cross-lane read: lane `l` takes register `src` of the lane
    /// `f(l, b, c)` names when that lane is valid and issuing, else its
    /// own; `p` is set where the read was valid.
    #[inline(always)]
    pub(crate) fn shuffle(
        &mut self,
        p: u8,
        d: u8,
        src: u8,
        sb: Src,
        sc: Src,
        f: impl Fn(i64, u32, u32) -> (i64, bool),
    ) {
        let n = lanes_of::<N>(self.w);
        let active = self.active;
        let [a, b, c, r, _] = &mut self.env.scratch.lanes;
        fetch_i::<N>(self.w, Src::Reg(RegSrc::plain(src)), a);
        fetch_i::<N>(self.w, sb, b);
        fetch_i::<N>(self.w, sc, c);
        let mut valid: u64 = 0;
        for l in 0..n {
            let (j, ok) = f(l as i64, b[l], c[l]);
            // The source lane must exist and be in the issuing group.
            let ok = ok && (0..n as i64).contains(&j) && active >> j & 1 != 0;
            r[l] = if ok { a[j as usize] } else { a[l] };
            if ok {
                valid |= 1 << l;
            }
        }
        let on = self.on;
        write::<N>(self.w, d, r, on);
        write_pred(self.w, p, valid, on);
    }

    /// `R2P`: each predicate `i` of `mask` receives `f(a, i)` per lane.
    #[inline(always)]
    pub(crate) fn r2p(&mut self, a: u8, mask: u8, f: impl Fn(u32, u8) -> bool) {
        let n = lanes_of::<N>(self.w);
        let on = self.on;
        for i in (0..7u8).filter(|i| mask >> i & 1 != 0) {
            let w: &Warp = self.w;
            let t = bits(n, |l| f(w.reg(a, l as u32), i));
            write_pred(self.w, i, t, on);
        }
    }

    /// A warp-wide vote: the ballot of predicate `src` over the lanes
    /// that are on goes to `d`, `f(ballot, on)` to `p`.
    #[inline(always)]
    pub(crate) fn vote(&mut self, d: u8, p: u8, src: PredSrc, f: impl Fn(u64, u64) -> bool) {
        let n = lanes_of::<N>(self.w);
        let on = self.on;
        let ballot = self.w.pred_mask(src) & on;
        let result = f(ballot, on);
        let r = &mut self.env.scratch.lanes[3];
        r[..n].fill(ballot as u32);
        write::<N>(self.w, d, r, on);
        write_pred(self.w, p, if result { u64::MAX } else { 0 }, on);
    }
}

/// One 64-bit source per lane: a register pair (`pair`, low word in `Rn`,
/// high in `Rn+1`; `-`/`|..|` on bit 63 when `float`, 64-bit negation
/// otherwise), or a 32-bit source zero-extended. An immediate in a pair
/// position is a literal (`lit`: the high word of an f64, or a
/// sign-extended integer) or a linked constant (low word, `c_hi` high).
/// A 64-bit source's operand modifiers: `|x|` and `-x` on the sign bit of
/// an f64, `~x` and `-x` (two's complement) on an integer.
#[inline(always)]
fn modify64(v: u64, r: RegSrc, float: bool) -> u64 {
    if float {
        let v = if r.abs { v & !(1 << 63) } else { v };
        if r.neg { v ^ 1 << 63 } else { v }
    } else {
        let v = if r.not { !v } else { v };
        if r.neg { v.wrapping_neg() } else { v }
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fetch64<const N: usize>(
    w: &Warp,
    s: Src,
    pair: bool,
    float: bool,
    lit: bool,
    c_hi: u32,
    out: &mut [u64; 64],
) {
    let n = lanes_of::<N>(w);
    if !pair {
        let mut t: Lanes = [0; 64];
        fetch::<N>(w, s, &mut t, float);
        for l in 0..n {
            out[l] = u64::from(t[l]);
        }
        return;
    }
    match s {
        Src::Reg(r) => {
            let lo = row::<N>(w, r.reg);
            let hi = if r.reg == RZ {
                None
            } else {
                row::<N>(w, r.reg.saturating_add(1))
            };
            for l in 0..n {
                let v = u64::from(hi.map_or(0, |h| h[l])) << 32 | u64::from(lo.map_or(0, |x| x[l]));
                out[l] = modify64(v, r, float);
            }
        }
        Src::Imm(v) => {
            let x = match (lit, float) {
                (true, true) => u64::from(v) << 32,
                (true, false) => v as i32 as i64 as u64,
                (false, _) => u64::from(c_hi) << 32 | u64::from(v),
            };
            out[..n].fill(x);
        }
        Src::UReg(r) => {
            let hi = if r.reg == URZ {
                0
            } else {
                w.ureg(r.reg.saturating_add(1))
            };
            let v = u64::from(hi) << 32 | u64::from(w.ureg(r.reg));
            out[..n].fill(modify64(v, r, float));
        }
        Src::Const { .. } => out[..n].fill(0),
    }
}

impl<const N: usize> Datapath<'_, '_, N> {
    /// A 64-bit operation: `f(a, b, c)` per lane over sources read by
    /// [`fetch64`] (`pairs`, `lit`: bit `i` for source `i`), the result's
    /// low word to `d` and, when `d_pair`, its high word to `d + 1`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn map64(
        &mut self,
        d: u8,
        d_pair: bool,
        float: bool,
        srcs: [Src; 3],
        pairs: u8,
        lit: u8,
        f: impl Fn(u64, u64, u64) -> u64,
    ) {
        let n = lanes_of::<N>(self.w);
        let c_hi = self.env.c_hi;
        let mut v = [[0u64; 64]; 3];
        for (i, s) in srcs.iter().enumerate() {
            let bit = 1 << i;
            fetch64::<N>(
                self.w,
                *s,
                pairs & bit != 0,
                float,
                lit & bit != 0,
                c_hi,
                &mut v[i],
            );
        }
        let mut lo: Lanes = [0; 64];
        let mut hi: Lanes = [0; 64];
        for l in 0..n {
            let r = f(v[0][l], v[1][l], v[2][l]);
            lo[l] = r as u32;
            hi[l] = (r >> 32) as u32;
        }
        write::<N>(self.w, d, &lo, self.on);
        if d_pair && d != RZ {
            write::<N>(self.w, d.saturating_add(1), &hi, self.on);
        }
    }

    /// A 64-bit compare into predicates: `test(a, b)` per lane over
    /// [`fetch64`] sources.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn setp64(
        &mut self,
        cb: Combine,
        p: u8,
        q: u8,
        srcs: [Src; 2],
        lit: u8,
        c: PredSrc,
        test: impl Fn(u64, u64) -> bool,
    ) {
        let n = lanes_of::<N>(self.w);
        let c_hi = self.env.c_hi;
        let mut v = [[0u64; 64]; 2];
        for (i, s) in srcs.iter().enumerate() {
            fetch64::<N>(self.w, *s, true, true, lit >> i & 1 != 0, c_hi, &mut v[i]);
        }
        let t = lane_bits::<N>(n, |l| test(v[0][l], v[1][l]));
        self.set_predicates(cb, p, q, t, c);
    }

    /// `d = f(p, a, b, c)` per lane on integer sources, `p` the lane's bit
    /// of predicate `sp`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn select3(
        &mut self,
        d: u8,
        sa: Src,
        sb: Src,
        sc: Src,
        sp: PredSrc,
        f: impl Fn(bool, u32, u32, u32) -> u32,
    ) {
        let pm = self.w.pred_mask(sp);
        let n = lanes_of::<N>(self.w);
        let [a, b, c, r, _] = &mut self.env.scratch.lanes;
        fetch_i::<N>(self.w, sa, a);
        fetch_i::<N>(self.w, sb, b);
        fetch_i::<N>(self.w, sc, c);
        for l in 0..n {
            r[l] = f(pm >> l & 1 != 0, a[l], b[l], c[l]);
        }
        write::<N>(self.w, d, r, self.on);
    }

    /// A predicate-only operation: `p = f(a, b, c)`, `q = g(a, b, c)` per
    /// lane over three source predicates.
    #[inline(always)]
    pub(crate) fn pred3(
        &mut self,
        p: u8,
        q: u8,
        srcs: [PredSrc; 3],
        f: impl Fn(bool, bool, bool) -> (bool, bool),
    ) {
        let n = lanes_of::<N>(self.w);
        let m = srcs.map(|s| self.w.pred_mask(s));
        let (mut tp, mut tq) = (0u64, 0u64);
        for l in 0..n {
            let (x, y) = f(m[0] >> l & 1 != 0, m[1] >> l & 1 != 0, m[2] >> l & 1 != 0);
            tp |= u64::from(x) << l;
            tq |= u64::from(y) << l;
        }
        let on = self.on;
        write_pred(self.w, p, tp, on);
        write_pred(self.w, q, tq, on);
    }
}

/// The `match` over opcodes that [`execute`] and [`access`] are, written
/// from the opcode table ([`crate::isa`]): a `lanes` entry runs its code
/// with `x` the [`Datapath`], a `memory` entry names its [`Access`], and a
/// `control` entry does nothing here (the engine carries it out).
macro_rules! dispatcher {
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
        #[inline(always)]
        fn dispatch<const N: usize>(dp: &mut Datapath<'_, '_, N>, op: &Op) {
            match *op {
                $(Op::$V $({ $($f),* })? => dispatcher!(@exec $kind $x dp { $($exec)* }),)*
            }
        }

        /// The load or store `op` is, if it is one: it runs in [`memory_op`].
        #[allow(unused_variables)]
        pub fn access(op: &Op) -> Option<Access> {
            match *op {
                $(Op::$V $({ $($f),* })? => dispatcher!(@access $kind { $($exec)* }),)*
            }
        }
    };
    (@exec lanes $x:ident $dp:ident { $($body:tt)* }) => {{
        let $x = &mut *$dp;
        $($body)*
    }};
    (@exec $kind:ident $x:ident $dp:ident { $($body:tt)* }) => {{}};
    (@access memory { $space:ident, $dir:ident, $reg:ident, $addr:ident, $width:ident }) => {
        Some(Access {
            space: Space::$space,
            addr: $addr,
            reg: $reg,
            width: $width,
            store: dispatcher!(@store $dir),
            atom: None,
        })
    };
    (@access memory {
        $space:ident, atomic $op:ident, $reg:ident, $addr:ident, $width:ident, $b:ident, $c:ident
    }) => {
        Some(Access {
            space: Space::$space,
            addr: $addr,
            reg: $reg,
            width: $width,
            store: false,
            atom: Some(($op, $b, $c)),
        })
    };
    (@access $kind:ident { $($body:tt)* }) => { None };
    (@store load) => { false };
    (@store store) => { true };
}

crate::isa::opcode_table!(dispatcher);

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
            return semantics::CANONICAL_NAN;
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
        Some(semantics::CANONICAL_NAN),
    ];

    #[test]
    fn fused_multiply_add_is_exact_on_tricky_inputs() {
        for ((x, y, z), want) in TRICKY.into_iter().zip(TRICKY_BITS) {
            let reference = reference_fma(x, y, z);
            if let Some(bits) = want {
                assert_eq!(reference, bits, "reference on {x} {y} {z}");
            }
            // The portable path, lane by lane.
            let got = semantics::ffma(x.to_bits(), y.to_bits(), z.to_bits());
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
                    let got = semantics::ffma(x.to_bits(), y.to_bits(), z.to_bits());
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

    type Blend = fn(&mut [u32; 32], &[u32; 32], u32);

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
            let blends: [(&str, Blend); 3] = [
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
}
