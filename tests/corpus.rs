//! Checked by: every committed listing of `tests/kernels/` runs unedited and
//! computes what its CUDA source means.
//!
//! For each kernel of the corpus (every `.cu` but `abi_probe`, which
//! `src/asm/abi.rs` checks), each architecture (sm_75, sm_80, sm_86,
//! sm_89, sm_90, sm_100, sm_120) and each form of the listing (`cuobjdump -sass` and
//! `nvdisasm -c -g -hex`), the test writes a scenario with the listing
//! inlined verbatim as `program:`, runs
//! `warpstep run FILE --format json --buffers all`, and compares every
//! element of every output buffer with a reference computed here, in Rust,
//! from the CUDA source (one function per kernel, beside the kernel's
//! inputs): integers exactly, floats within the rounding the instruction
//! sequence allows, stated per kernel with its reason. All failures are
//! collected and printed as one table before the test fails, so one run
//! shows the state of the whole corpus.
//!
//! The scenarios use the keys of the second version of the scenario format
//! (`docs/scenario-format.md`, "Real kernels"): a listing as `program:`,
//! `kernel:` where a listing has several, `args:` in parameter order,
//! typed buffers (`u8` .. `f64`), 2-/3-D `launch:` lists and the report's
//! `buffers:`, and `constants:` keys naming a bank (`c[0x3][0x0]`) for
//! `__constant__` and `__device__` variables. One kernel needs a key the
//! format does not name yet; it is marked `LEAD:` below (a struct passed by
//! value).
//!
//! Most inputs are chosen so that every intermediate value is exact in its
//! type (small multiples of a power of two): then the result is the same
//! whichever order or contraction the compiler chose, and the bound is 0
//! ulp. Where rounding is the point (saxpy's FFMA, the special functions,
//! f64 division) the inputs come from `rand` and the bound says why.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const ARCHS: [&str; 7] = [
    "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
];
const FORMS: [&str; 2] = ["sass", "nvdisasm"];
/// The convergence models every listing runs under.
const MODELS: [&str; 2] = ["its", "stack"];

// ---------------------------------------------------------------------------
// The table's types
// ---------------------------------------------------------------------------

#[derive(Clone, Copy)]
enum Ty {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    F32,
    F64,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::U8 => "u8",
            Ty::I8 => "i8",
            Ty::U16 => "u16",
            Ty::I16 => "i16",
            Ty::U32 => "u32",
            Ty::I32 => "i32",
            Ty::U64 => "u64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }
}

/// A global buffer of the scenario: `init` is the scenario's expression
/// (None: zero-initialised); the reference computes the same values in Rust.
struct Buf {
    name: &'static str,
    ty: Ty,
    len: usize,
    init: Option<&'static str>,
}

fn buf(name: &'static str, ty: Ty, len: usize, init: &'static str) -> Buf {
    Buf {
        name,
        ty,
        len,
        init: Some(init),
    }
}

fn zeros(name: &'static str, ty: Ty, len: usize) -> Buf {
    Buf {
        name,
        ty,
        len,
        init: None,
    }
}

/// What one element must be.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// An integer, exactly.
    Int(i64),
    /// An integer within `lo..=hi` (where the CUDA source leaves the value
    /// to the order of atomics).
    IntIn(i64, i64),
    /// An f32 within `ulps` units in the last place.
    F32(f32, u32),
    /// An f64 within `ulps` units in the last place.
    F64(f64, u64),
}

struct Out {
    name: &'static str,
    want: Vec<Want>,
}

struct Kernel {
    /// The file stem in `tests/kernels/`.
    file: &'static str,
    /// `kernel:` (only for a listing with several kernels).
    kernel: Option<&'static str>,
    /// The `launch:` mapping, in YAML flow style.
    launch: &'static str,
    memory: Vec<Buf>,
    /// The `args:` list, in YAML flow style, in the kernel's parameter order.
    args: &'static str,
    /// Extra scenario keys (YAML lines), for what `args:` cannot say.
    extra: &'static str,
    outputs: Vec<Out>,
}

fn ints(v: impl IntoIterator<Item = i64>) -> Vec<Want> {
    v.into_iter().map(Want::Int).collect()
}

fn f32s(v: impl IntoIterator<Item = f32>, ulps: u32) -> Vec<Want> {
    v.into_iter().map(|x| Want::F32(x, ulps)).collect()
}

fn f64s(v: impl IntoIterator<Item = f64>, ulps: u64) -> Vec<Want> {
    v.into_iter().map(|x| Want::F64(x, ulps)).collect()
}

/// The scenario language's `rand(seed)` at `index` (docs/scenario-format.md,
/// "Expressions"), written out again here so that the references do not
/// share code with the implementation they check.
fn rand_unit(seed: u64, index: u64) -> f64 {
    let x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index;
    let mut z = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

// ---------------------------------------------------------------------------
// The kernels: inputs and reference side by side, in file order
// ---------------------------------------------------------------------------

/// atomics64.cu, 64 threads in one block: `v = (t + 1) << 33`, every
/// bit above 32 so that a 32-bit add would lose it all. `total` (a global
/// 64-bit `RED`/`REDG` add) and the shared sum (a 64-bit `ATOMS.CAST.SPIN`
/// loop) are both (1 + ... + 64) << 33 = 2080 << 33 whatever the order;
/// `slot` is the `v` of whichever thread's 64-bit `ATOMG.CAS` came first:
/// one of 1 << 33 ..= 64 << 33.
fn atomics64() -> Kernel {
    let sum = (1..=64i64).sum::<i64>() << 33;
    Kernel {
        file: "atomics64",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            zeros("total", Ty::U64, 1),
            zeros("slot", Ty::U64, 1),
            zeros("out", Ty::U64, 1),
        ],
        args: "[total, slot, out]",
        extra: "",
        outputs: vec![
            Out {
                name: "total",
                want: ints([sum]),
            },
            Out {
                name: "slot",
                want: vec![Want::IntIn(1 << 33, 64 << 33)],
            },
            Out {
                name: "out",
                want: ints([sum]),
            },
        ],
    }
}

/// atomics.cu, 64 threads in one block (two warps).
/// `v = tid * 7 % 13`; max/min/inc/add on single words, then
/// `slots[tid] = old + t` and a CAS and an exchange on slots 0 and 1.
fn atomics() -> Kernel {
    let n = 64i64;
    let v: Vec<i64> = (0..n).map(|t| t * 7 % 13).collect();
    // Order-independent results: counter and ticket each saw 64 increments
    // (the inc wraps only at 1000); max/min over v from the initial 0 and 100.
    let mx = *v.iter().max().unwrap_or(&0);
    let mn = (*v.iter().min().unwrap_or(&100)).min(100);
    // `old` and `t` are each a value in 0..64 (which one depends on the
    // order of the atomics), so `old + t` is in 0..=126. Slot 0 is then CAS'd
    // (0 -> 1) and slot 1 exchanged with some thread's v (0..=12).
    let mut slots = vec![Want::IntIn(0, 2 * (n - 1)); n as usize];
    slots[0] = Want::IntIn(1, 2 * (n - 1));
    slots[1] = Want::IntIn(0, 12);
    Kernel {
        file: "atomics",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            zeros("counter", Ty::I32, 1),
            zeros("mx", Ty::I32, 1),
            buf("mn", Ty::I32, 1, "100"),
            zeros("ticket", Ty::U32, 1),
            zeros("slots", Ty::I32, n as usize),
        ],
        args: "[counter, mx, mn, ticket, slots]",
        extra: "",
        outputs: vec![
            Out {
                name: "counter",
                want: ints([n]),
            },
            Out {
                name: "mx",
                want: ints([mx]),
            },
            Out {
                name: "mn",
                want: ints([mn]),
            },
            Out {
                name: "ticket",
                want: ints([n]),
            },
            Out {
                name: "slots",
                want: slots,
            },
        ],
    }
}

/// bit_ops.cu, 64 threads: popc, clz, brev and a funnel shift per element.
fn bit_ops() -> Kernel {
    let n = 64u64;
    let input: Vec<u32> = (0..n)
        .map(|i| (i.wrapping_mul(2654435761) & 0xffff_ffff) as u32)
        .collect();
    let mut out = Vec::new();
    for (i, &v) in input.iter().enumerate() {
        let s = (i & 31) as u32;
        let hi = v ^ 0xdead_beef;
        // __funnelshift_l(lo, hi, s): the high 32 bits of (hi:lo) << (s & 31).
        let fs = if s == 0 {
            hi
        } else {
            (hi << s) | (v >> (32 - s))
        };
        out.extend([
            v.count_ones() as i64,
            v.leading_zeros() as i64,
            v.reverse_bits() as i64,
            (fs ^ (v >> 3)) as i64,
        ]);
    }
    Kernel {
        file: "bit_ops",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            // i = 0 gives v = 0: popc 0, clz 32.
            buf("inp", Ty::U32, n as usize, "i * 2654435761 & 0xffffffff"),
            zeros("out", Ty::U32, 4 * n as usize),
        ],
        args: "[inp, out]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: ints(out),
        }],
    }
}

/// bytes_shorts.cu, 64 threads: 8- and 16-bit loads (zero- and
/// sign-extended), a byte and a short store that wrap.
fn bytes_shorts() -> Kernel {
    let n = 64i64;
    let u8v: Vec<i64> = (0..n).map(|i| (i * 37) % 256).collect();
    let s8v: Vec<i64> = (0..n).map(|i| (i * 29) % 256 - 128).collect();
    let u16v: Vec<i64> = (0..n).map(|i| (i * 1031) % 65536).collect();
    let s16v: Vec<i64> = (0..n).map(|i| (i * 997 + 20000) % 65536 - 32768).collect();
    let i = 0..n as usize;
    Kernel {
        file: "bytes_shorts",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            buf("u8s", Ty::U8, n as usize, "(i * 37) % 256"),
            buf("s8s", Ty::I8, n as usize, "(i * 29) % 256 - 128"),
            buf("u16s", Ty::U16, n as usize, "(i * 1031) % 65536"),
            buf(
                "s16s",
                Ty::I16,
                n as usize,
                "(i * 997 + 20000) % 65536 - 32768",
            ),
            zeros("out", Ty::I32, n as usize),
            zeros("out8", Ty::U8, n as usize),
            zeros("out16", Ty::I16, n as usize),
        ],
        args: "[u8s, s8s, u16s, s16s, out, out8, out16]",
        extra: "",
        outputs: vec![
            Out {
                name: "out",
                want: ints(i.clone().map(|k| u8v[k] + s8v[k] + u16v[k] + s16v[k])),
            },
            Out {
                name: "out8",
                // (unsigned char)(u8 + 1): 255 wraps to 0.
                want: ints(i.clone().map(|k| ((u8v[k] + 1) as u8) as i64)),
            },
            Out {
                name: "out16",
                // (short)(s16 * 2): wraps in 16 bits.
                want: ints(i.map(|k| ((s16v[k] * 2) as i16) as i64)),
            },
        ],
    }
}

/// collatz.cu, 3 blocks of 64 over n = 150 (the last block has 22 live
/// threads: its first warp splits 22/10, its second warp exits whole).
fn collatz() -> Kernel {
    let n = 150u32;
    let steps = (0..n).map(|i| {
        let mut x = i + 1;
        let mut s = 0i64;
        while x > 1 {
            x = if x & 1 == 1 { 3 * x + 1 } else { x / 2 };
            s += 1;
        }
        s
    });
    Kernel {
        file: "collatz",
        kernel: None,
        launch: "{blocks: 3, block_dim: 64}",
        memory: vec![
            buf("start", Ty::U32, n as usize, "i + 1"),
            zeros("steps", Ty::U32, n as usize),
        ],
        args: "[start, steps, 150]",
        extra: "",
        outputs: vec![Out {
            name: "steps",
            want: ints(steps),
        }],
    }
}

/// constant_device.cu, 2 blocks of 64 over n = 100.
///
/// The listings read `coeffs` from bank 3 (`c[0x3][0x0..0xc]`, the
/// `__constant__` bank) and the addresses of the `__device__` variables from
/// bank 4: `call_count` at `c[0x4][0x0]` (the word incremented under
/// `i == 0`) and `bias` at `c[0x4][0x8]` (the word added last), on every
/// architecture. `constants:` fills both banks: the coefficients as a list
/// of f32 words, the two addresses as buffer names (`bias`' initialiser
/// 0.25 is in the ELF, not in the listing, so its buffer gives it).
fn constant_device() -> Kernel {
    let n = 100usize;
    let c = [0.5f32, -1.25, 0.75, 0.125];
    // x = (i % 16) * 0.25 - 2 in [-2, 1.75]: every product and sum below is
    // a multiple of 2^-8 under 2^8, exact in f32, whatever the contraction:
    // 0 ulp.
    let y = (0..n).map(|i| {
        let v = ((i % 16) as f32) * 0.25 - 2.0;
        ((c[3] * v + c[2]) * v + c[1]) * v + c[0] + 0.25
    });
    Kernel {
        file: "constant_device",
        kernel: None,
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![
            buf("bias", Ty::F32, 1, "0.25"),
            zeros("call_count", Ty::I32, 1),
            buf("xs", Ty::F32, n, "(i % 16) * 0.25 - 2.0"),
            zeros("ys", Ty::F32, n),
        ],
        args: "[xs, ys, 100]",
        extra: "constants:\n  c[0x3][0x0]: [0.5, -1.25, 0.75, 0.125]\n  \
                c[0x4][0x0]: call_count\n  c[0x4][0x8]: bias\n",
        outputs: vec![
            Out {
                name: "ys",
                want: f32s(y, 0),
            },
            Out {
                name: "call_count",
                want: ints([1]),
            },
        ],
    }
}

/// conversions.cu, 64 threads: float -> int (truncation), float -> unsigned
/// of fabsf, int -> float (round to nearest, large values inexact), int and
/// float -> double. All conversions are correctly rounded: 0 ulp.
fn conversions() -> Kernel {
    let m = 64usize;
    let f: Vec<f32> = (0..m).map(|i| ((i as f64 - 32.0) * 0.7) as f32).collect();
    let nn: Vec<i32> = (0..m)
        .map(|i| ((i as i64 * 12345679) % 100000007 - 50000000) as i32)
        .collect();
    Kernel {
        file: "conversions",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            buf("f", Ty::F32, m, "(i - 32) * 0.7"),
            buf("ns", Ty::I32, m, "(i * 12345679) % 100000007 - 50000000"),
            zeros("fi", Ty::I32, m),
            zeros("fu", Ty::U32, m),
            zeros("nf", Ty::F32, m),
            zeros("nd", Ty::F64, m),
        ],
        args: "[f, ns, fi, fu, nf, nd]",
        extra: "",
        outputs: vec![
            Out {
                name: "fi",
                want: ints(f.iter().map(|&x| x.trunc() as i64)),
            },
            Out {
                name: "fu",
                want: ints(f.iter().map(|&x| x.abs().trunc() as i64)),
            },
            Out {
                name: "nf",
                want: f32s(nn.iter().map(|&k| (k as f32) * 0.5), 0),
            },
            Out {
                name: "nd",
                want: f64s((0..m).map(|i| nn[i] as f64 + f[i] as f64), 0),
            },
        ],
    }
}

/// device_call.cu, 64 threads: a real CALL/RET of `smooth`. Inputs are
/// multiples of 1/4 under 4: `a + 0.5 * (b - a)` is exact: 0 ulp.
fn device_call() -> Kernel {
    let m = 64usize;
    let out = (0..m).map(|i| {
        let a = (i % 8) as f32 * 0.5;
        let b = (i % 5) as f32 * 0.75;
        if a < b { a + 0.5 * (b - a) } else { b }
    });
    Kernel {
        file: "device_call",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            buf("a", Ty::F32, m, "(i % 8) * 0.5"),
            buf("b", Ty::F32, m, "(i % 5) * 0.75"),
            zeros("out", Ty::F32, m),
        ],
        args: "[a, b, out]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: f32s(out, 0),
        }],
    }
}

/// extern_c.cu (`fill`, unmangled), 2 blocks of 64 over n = 100.
fn extern_c() -> Kernel {
    let n = 100i64;
    Kernel {
        file: "extern_c",
        kernel: None,
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![zeros("out", Ty::I32, n as usize)],
        args: "[out, -7, 100]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: ints((0..n).map(|i| i - 7)),
        }],
    }
}

/// f64_math.cu, 2 blocks of 64 over n = 120.
/// `a * b + 1.0` is one DFMA (the compiler contracts it; an unfused
/// multiply-add may differ by 1 ulp), the divide is nvcc's correctly
/// rounded f64 division (MUFU.RCP64H + Newton + fix-up): bound 2 ulp for a
/// 1-ulp difference in `x` carried through the division.
fn f64_math() -> Kernel {
    let n = 120usize;
    let out = (0..n).map(|i| {
        let a = i as f64 * 0.5 + 0.25;
        let b = (i % 13) as f64 * 1.5 + 0.1;
        let mut x = a.mul_add(b, 1.0);
        if x > 100.0 {
            x -= b;
        }
        x / (a + 2.0)
    });
    Kernel {
        file: "f64_math",
        kernel: None,
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![
            buf("a", Ty::F64, n, "i * 0.5 + 0.25"),
            buf("b", Ty::F64, n, "(i % 13) * 1.5 + 0.1"),
            zeros("out", Ty::F64, n),
        ],
        args: "[a, b, out, 120]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: f64s(out, 2),
        }],
    }
}

/// grid_stride.cu, 2 blocks of 64 (128 threads) over n = 300: threads 0..43
/// run three iterations, the others two. One FMUL per element: 0 ulp.
fn grid_stride() -> Kernel {
    let n = 300usize;
    let data = (0..n).map(|i| ((i % 11) as f32 * 0.5) * 1.5);
    Kernel {
        file: "grid_stride",
        kernel: None,
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![buf("data", Ty::F32, n, "(i % 11) * 0.5")],
        args: "[data, 1.5, 300]",
        extra: "",
        outputs: vec![Out {
            name: "data",
            want: f32s(data, 0),
        }],
    }
}

/// histogram.cu, 2 blocks of 128 over n = 1000 bytes: shared-memory bins,
/// `__syncthreads`, then global atomics; counts do not depend on order.
fn histogram() -> Kernel {
    let n = 1000usize;
    let mut bins = vec![0i64; 256];
    for i in 0..n {
        bins[(i * 7 + (i * i) % 5) % 256] += 1;
    }
    Kernel {
        file: "histogram",
        kernel: None,
        launch: "{blocks: 2, block_dim: 128}",
        memory: vec![
            buf("data", Ty::U8, n, "(i * 7 + (i * i) % 5) % 256"),
            zeros("bins", Ty::U32, 256),
        ],
        args: "[data, bins, 1000]",
        extra: "",
        outputs: vec![Out {
            name: "bins",
            want: ints(bins),
        }],
    }
}

/// index_3d.cu, a 3x2x2 grid of 8x2x2 blocks (32 threads, one warp each).
fn index_3d() -> Kernel {
    let (gx, gy, gz) = (3, 2, 2);
    let (bx_, by_, bz_) = (8, 2, 2);
    let threads = bx_ * by_ * bz_;
    let mut out = vec![0i64; gx * gy * gz * threads];
    for bz in 0..gz {
        for by in 0..gy {
            for bx in 0..gx {
                let block = (bz * gy + by) * gx + bx;
                for tz in 0..bz_ {
                    for ty in 0..by_ {
                        for tx in 0..bx_ {
                            let thread = (tz * by_ + ty) * bx_ + tx;
                            out[block * threads + thread] = (tx + 10 * ty + 100 * tz) as i64;
                        }
                    }
                }
            }
        }
    }
    Kernel {
        file: "index_3d",
        kernel: None,
        launch: "{blocks: [3, 2, 2], block_dim: [8, 2, 2]}",
        memory: vec![zeros("out", Ty::I32, 384)],
        args: "[out]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: ints(out),
        }],
    }
}

/// int_divmod.cu, 2 blocks of 64 over n = 100: signed division truncates
/// toward zero and the remainder takes the dividend's sign (C, as Rust's
/// `/` and `%` on i32); dividends and divisors of both signs.
fn int_divmod() -> Kernel {
    let n = 100i64;
    let a: Vec<i32> = (0..n)
        .map(|i| ((i * 7919) % 20001 - 10000) as i32)
        .collect();
    let b: Vec<i32> = (0..n)
        .map(|i| {
            if i % 4 == 0 {
                -(i % 13 + 1) as i32
            } else {
                (i % 17 + 1) as i32
            }
        })
        .collect();
    let k = 0..n as usize;
    Kernel {
        file: "int_divmod",
        kernel: None,
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![
            buf("a", Ty::I32, n as usize, "(i * 7919) % 20001 - 10000"),
            buf(
                "b",
                Ty::I32,
                n as usize,
                "i % 4 == 0 ? -(i % 13 + 1) : i % 17 + 1",
            ),
            zeros("q", Ty::I32, n as usize),
            zeros("r", Ty::I32, n as usize),
            zeros("u", Ty::U32, n as usize),
        ],
        args: "[a, b, q, r, u, 100]",
        extra: "",
        outputs: vec![
            Out {
                name: "q",
                want: ints(k.clone().map(|j| (a[j] / b[j]) as i64)),
            },
            Out {
                name: "r",
                want: ints(k.clone().map(|j| (a[j] % b[j]) as i64)),
            },
            Out {
                name: "u",
                want: ints(k.map(|j| {
                    let x = a[j] as u32;
                    (x / 10).wrapping_add(x % 7) as i64
                })),
            },
        ],
    }
}

/// lane_loop.cu, 80 threads (two full warps and one of 16 lanes): lane l
/// runs l + 1 iterations; `sum = tid * m (m + 1) / 2` with m = tid % 32.
fn lane_loop() -> Kernel {
    let out = (0..80i64).map(|t| {
        let m = t % 32;
        t * m * (m + 1) / 2
    });
    Kernel {
        file: "lane_loop",
        kernel: None,
        launch: "{threads: 80}",
        memory: vec![zeros("out", Ty::I32, 80)],
        args: "[out]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: ints(out),
        }],
    }
}

/// local_array.cu, 64 threads: `a[k] = k * tid` in local memory, read back
/// at a runtime index.
fn local_array() -> Kernel {
    let out = (0..64i64).map(|t| (((t * 5 + 3) % 40) & 15) * t);
    Kernel {
        file: "local_array",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            buf("idx", Ty::I32, 64, "(i * 5 + 3) % 40"),
            zeros("out", Ty::I32, 64),
        ],
        args: "[idx, out]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: ints(out),
        }],
    }
}

/// matmul_naive.cu, n = 20 on a 2x2 grid of 16x16 blocks (32x32 threads:
/// the bounds check drops 624 of 1024). Entries are multiples of 1/4 under
/// 4: every product and partial sum is exact in f32: 0 ulp.
fn matmul_naive() -> Kernel {
    let n = 20usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 * 0.5 - 1.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 * 0.25).collect();
    let mut c = vec![0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut s = 0f32;
            for k in 0..n {
                s += a[row * n + k] * b[k * n + col];
            }
            c[row * n + col] = s;
        }
    }
    Kernel {
        file: "matmul_naive",
        kernel: None,
        launch: "{blocks: [2, 2], block_dim: [16, 16]}",
        memory: vec![
            buf("a", Ty::F32, n * n, "(i % 7) * 0.5 - 1.0"),
            buf("b", Ty::F32, n * n, "(i % 5) * 0.25"),
            zeros("c", Ty::F32, n * n),
        ],
        args: "[a, b, c, 20]",
        extra: "",
        outputs: vec![Out {
            name: "c",
            want: f32s(c, 0),
        }],
    }
}

/// minmax_abs.cu (`clamp`), 64 threads, lo = 3, hi = 40. Exact: 0 ulp.
fn minmax_abs() -> Kernel {
    let ia = (0..64i64).map(|i| ((i * 13) % 101 - 50).abs().clamp(3, 40));
    let fx = (0..64).map(|i| {
        let x = (i as f32 - 32.0) * 0.0625;
        x.clamp(-1.0, 1.0) + if x < 0.0 { 0.5 } else { 0.0 }
    });
    Kernel {
        file: "minmax_abs",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            buf("a", Ty::I32, 64, "(i * 13) % 101 - 50"),
            buf("x", Ty::F32, 64, "(i - 32) * 0.0625"),
            zeros("ia", Ty::I32, 64),
            zeros("fx", Ty::F32, 64),
        ],
        args: "[a, x, ia, fx, 3, 40]",
        extra: "",
        outputs: vec![
            Out {
                name: "ia",
                want: ints(ia),
            },
            Out {
                name: "fx",
                want: f32s(fx, 0),
            },
        ],
    }
}

/// prefix_scan.cu, 64 threads: an inclusive scan within each warp.
fn prefix_scan() -> Kernel {
    let input: Vec<i64> = (0..64).map(|i| (i * 3) % 10 - 4).collect();
    let mut out = vec![0i64; 64];
    for w in 0..2 {
        let mut s = 0;
        for l in 0..32 {
            s += input[w * 32 + l];
            out[w * 32 + l] = s;
        }
    }
    Kernel {
        file: "prefix_scan",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            buf("inp", Ty::I32, 64, "(i * 3) % 10 - 4"),
            zeros("out", Ty::I32, 64),
        ],
        args: "[inp, out]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: ints(out),
        }],
    }
}

/// reduce_shared.cu, 3 blocks of 256 (the kernel assumes 256): tree sum in
/// shared memory. Inputs are multiples of 1/4 under 3: every partial sum is
/// exact: 0 ulp, whatever the order.
fn reduce_shared() -> Kernel {
    let out = (0..3).map(|b| {
        (0..256)
            .map(|t| ((b * 256 + t) % 10) as f32 * 0.25)
            .sum::<f32>()
    });
    Kernel {
        file: "reduce_shared",
        kernel: None,
        launch: "{blocks: 3, block_dim: 256}",
        memory: vec![
            buf("inp", Ty::F32, 768, "(i % 10) * 0.25"),
            zeros("out", Ty::F32, 3),
        ],
        args: "[inp, out]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: f32s(out, 0),
        }],
    }
}

/// reduce_shfl.cu, 3 blocks of 128 over n = 300 (the last block has 44
/// live elements: its warp 1 splits 12/20, warps 2 and 3 read nothing).
/// Exact partial sums as above: 0 ulp.
fn reduce_shfl() -> Kernel {
    let n = 300usize;
    let out = (0..3).map(|b| {
        (0..128)
            .map(|t| b * 128 + t)
            .filter(|&i| i < n)
            .map(|i| (i % 10) as f32 * 0.25)
            .sum::<f32>()
    });
    Kernel {
        file: "reduce_shfl",
        kernel: None,
        launch: "{blocks: 3, block_dim: 128}",
        memory: vec![
            buf("inp", Ty::F32, n, "(i % 10) * 0.25"),
            zeros("out", Ty::F32, 3),
        ],
        args: "[inp, out, 300]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: f32s(out, 0),
        }],
    }
}

/// saxpy.cu, 3 blocks of 64 over n = 150. Every listing computes
/// `a * x + y` with one FFMA (one rounding), so the reference is
/// `mul_add`: 0 ulp.
fn saxpy() -> Kernel {
    let n = 150usize;
    let y = (0..n).map(|i| {
        let x = rand_unit(3, i as u64) as f32;
        let y = rand_unit(4, i as u64) as f32;
        2.5f32.mul_add(x, y)
    });
    Kernel {
        file: "saxpy",
        kernel: None,
        launch: "{blocks: 3, block_dim: 64}",
        memory: vec![
            buf("xs", Ty::F32, n, "rand(3)"),
            buf("ys", Ty::F32, n, "rand(4)"),
        ],
        args: "[150, 2.5, xs, ys]",
        extra: "",
        outputs: vec![Out {
            name: "ys",
            want: f32s(y, 0),
        }],
    }
}

/// seed.cu, 3 blocks of 64 over n = 150: `> 0.5` doubles (exact), else
/// adds 1 (one FADD, rounded as Rust rounds): 0 ulp.
fn seed() -> Kernel {
    let n = 150usize;
    let data = (0..n).map(|i| {
        let d = rand_unit(1, i as u64) as f32;
        if d > 0.5 { d * 2.0 } else { d + 1.0 }
    });
    Kernel {
        file: "seed",
        kernel: None,
        launch: "{blocks: 3, block_dim: 64}",
        memory: vec![buf("data", Ty::F32, n, "rand(1)")],
        args: "[data, 150]",
        extra: "",
        outputs: vec![Out {
            name: "data",
            want: f32s(data, 0),
        }],
    }
}

/// shuffle_xor.cu (`warp_max`), 64 threads: butterfly max, broadcast of
/// lane 0.
fn shuffle_xor() -> Kernel {
    let input: Vec<i64> = (0..64).map(|i| (i * 37) % 101 - 50).collect();
    let mx = (0..64).map(|t| {
        *input[t / 32 * 32..t / 32 * 32 + 32]
            .iter()
            .max()
            .unwrap_or(&0)
    });
    let first = (0..64).map(|t| input[t / 32 * 32]);
    Kernel {
        file: "shuffle_xor",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            buf("inp", Ty::I32, 64, "(i * 37) % 101 - 50"),
            zeros("max_out", Ty::I32, 64),
            zeros("first_out", Ty::I32, 64),
        ],
        args: "[inp, max_out, first_out]",
        extra: "",
        outputs: vec![
            Out {
                name: "max_out",
                want: ints(mx),
            },
            Out {
                name: "first_out",
                want: ints(first),
            },
        ],
    }
}

/// special_funcs.cu, 64 threads, x = 0.5 + i * 0.109375 in [0.5, 7.4].
/// Bounds (CUDA C Programming Guide, "Mathematical Functions", ulp of the
/// correctly rounded value):
/// - `__expf`: FMUL by log2(e) then MUFU.EX2: 2 + floor(1.173 * |x|) <= 10;
/// - `rsqrtf`: 2 ulp (MUFU.RSQ);
/// - `sinf`: 2 ulp (range reduction and polynomial, no MUFU.SIN);
/// - `1.0f / x`: IEEE division (MUFU.RCP, then Newton and a fix-up path):
///   correctly rounded, 0 ulp.
fn special_funcs() -> Kernel {
    let x: Vec<f32> = (0..64).map(|i| 0.5 + i as f32 * 0.109375).collect();
    let e: Vec<Want> = x
        .iter()
        .map(|&v| {
            let bound = 2 + (1.173 * v.abs()).floor() as u32;
            Want::F32((v as f64).exp() as f32, bound)
        })
        .collect();
    Kernel {
        file: "special_funcs",
        kernel: None,
        launch: "{threads: 64}",
        memory: vec![
            buf("x", Ty::F32, 64, "0.5 + i * 0.109375"),
            zeros("e", Ty::F32, 64),
            zeros("r", Ty::F32, 64),
            zeros("s", Ty::F32, 64),
            zeros("d", Ty::F32, 64),
        ],
        args: "[x, e, r, s, d]",
        extra: "",
        outputs: vec![
            Out { name: "e", want: e },
            Out {
                name: "r",
                want: f32s(x.iter().map(|&v| (1.0 / (v as f64).sqrt()) as f32), 2),
            },
            Out {
                name: "s",
                want: f32s(x.iter().map(|&v| (v as f64).sin() as f32), 2),
            },
            Out {
                name: "d",
                want: f32s(x.iter().map(|&v| 1.0 / v), 0),
            },
        ],
    }
}

/// stencil_1d.cu, 3 blocks of 128 (the kernel assumes 128) over n = 300:
/// halo cells outside 0..n read 0. Multiples of 1/2 times 1/4 and 1/2:
/// exact: 0 ulp.
fn stencil_1d() -> Kernel {
    let n = 300usize;
    let inp: Vec<f32> = (0..n).map(|i| (i % 9) as f32 * 0.5).collect();
    let at = |g: isize| {
        if g >= 0 && (g as usize) < n {
            inp[g as usize]
        } else {
            0.0
        }
    };
    let out = (0..n as isize).map(|g| 0.25 * at(g - 1) + 0.5 * at(g) + 0.25 * at(g + 1));
    Kernel {
        file: "stencil_1d",
        kernel: None,
        launch: "{blocks: 3, block_dim: 128}",
        memory: vec![
            buf("inp", Ty::F32, n, "(i % 9) * 0.5"),
            zeros("out", Ty::F32, n),
        ],
        args: "[inp, out, 300]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: f32s(out, 0),
        }],
    }
}

/// struct_param.cu, 2 blocks of 64, `Affine {scale 1.5, offset -0.25,
/// count 100, flag 1}`: out = -(in * 1.5 - 0.25), exact for multiples of
/// 1/4: 0 ulp.
///
/// LEAD: the format says an argument is "a buffer name or a number,
/// stored by the parameter's size"; it does not say how a struct by value
/// is given. This entry proposes a nested list, one 4-byte word per field
/// at the C layout (scale at +0, offset +4, count +8, flag +12; the listing
/// reads the flag with a `.U8` load of +12, which a 4-byte word 1 satisfies
/// on a little-endian bank), floats written with a decimal point.
fn struct_param() -> Kernel {
    let n = 100usize;
    let out = (0..n).map(|i| -(((i % 12) as f32 * 0.25) * 1.5 - 0.25));
    Kernel {
        file: "struct_param",
        kernel: None,
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![
            buf("inp", Ty::F32, n, "(i % 12) * 0.25"),
            zeros("out", Ty::F32, n),
        ],
        args: "[[1.5, -0.25, 100, 1], inp, out]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: f32s(out, 0),
        }],
    }
}

/// switch_case.cu (`classify`), 2 blocks of 64 over n = 100, inputs of both
/// signs (`& 7` of a negative number is two's complement, as in Rust).
fn switch_case() -> Kernel {
    let n = 100i64;
    let out = (0..n).map(|i| {
        let x = (i * 7 + 3) % 50 - 20;
        match x & 7 {
            0 => 10,
            1 => x * 3,
            2 => x - 7,
            3 => x << 2,
            5 => -x,
            _ => 0,
        }
    });
    Kernel {
        file: "switch_case",
        kernel: None,
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![
            buf("inp", Ty::I32, n as usize, "(i * 7 + 3) % 50 - 20"),
            zeros("out", Ty::I32, n as usize),
        ],
        args: "[inp, out, 100]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: ints(out),
        }],
    }
}

/// transpose_naive.cu / transpose_padded.cu: a 40 x 24 (width x height)
/// matrix on a 2 x 1 grid of 32 x 32 blocks: the bounds checks drop the
/// columns 40..64 on the way in and rows 24..32 on the way out.
/// out[y * height + x] = in[x * width + y]; values are small integers: exact.
fn transpose(file: &'static str) -> Kernel {
    let (w, h) = (40usize, 24usize);
    let mut out = vec![0f32; w * h];
    for y in 0..w {
        for x in 0..h {
            out[y * h + x] = (x * w + y) as f32;
        }
    }
    Kernel {
        file,
        kernel: None,
        launch: "{blocks: [2, 1], block_dim: [32, 32]}",
        memory: vec![
            buf("inp", Ty::F32, w * h, "i"),
            zeros("out", Ty::F32, w * h),
        ],
        args: "[inp, out, 40, 24]",
        extra: "",
        outputs: vec![Out {
            name: "out",
            want: f32s(out, 0),
        }],
    }
}

/// two_kernels.cu: `negate` and `square`, each chosen with `kernel:`, 2
/// blocks of 64 over n = 100. Multiples of 1/2 under 4: exact.
fn two_kernels(which: &'static str) -> Kernel {
    let n = 100usize;
    let x = (0..n).map(|i| (i % 13) as f32 * 0.5 - 3.0);
    let want: Vec<f32> = if which == "negate" {
        x.map(|v| -v).collect()
    } else {
        x.map(|v| v * v).collect()
    };
    Kernel {
        file: "two_kernels",
        kernel: Some(which),
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![buf("x", Ty::F32, n, "(i % 13) * 0.5 - 3.0")],
        args: "[x, 100]",
        extra: "",
        outputs: vec![Out {
            name: "x",
            want: f32s(want, 0),
        }],
    }
}

/// vector_add_int.cu, 2 blocks of 64 over n = 100 (unsigned n).
fn vector_add_int() -> Kernel {
    let n = 100i64;
    let c = (0..n).map(|i| (i * 31 - 1000) + (5000 - i * i));
    Kernel {
        file: "vector_add_int",
        kernel: None,
        launch: "{blocks: 2, block_dim: 64}",
        memory: vec![
            buf("a", Ty::I32, n as usize, "i * 31 - 1000"),
            buf("b", Ty::I32, n as usize, "5000 - i * i"),
            zeros("c", Ty::I32, n as usize),
        ],
        args: "[a, b, c, 100]",
        extra: "",
        outputs: vec![Out {
            name: "c",
            want: ints(c),
        }],
    }
}

/// votes.cu, 96 threads: warp 0 all positive, warp 1 mixed, warp 2 none
/// positive. __any/__all per warp, the ballot's bits are lanes, popc.
fn votes() -> Kernel {
    let input: Vec<i64> = (0..96)
        .map(|i| {
            if i < 32 {
                i + 1
            } else if i < 64 {
                (i % 3) - 1
            } else {
                -(i % 5)
            }
        })
        .collect();
    let ballot: Vec<u32> = (0..3)
        .map(|w| {
            (0..32)
                .filter(|&l| input[w * 32 + l] > 0)
                .fold(0u32, |b, l| b | (1 << l))
        })
        .collect();
    let per = |f: &dyn Fn(u32) -> i64| (0..96).map(|t| f(ballot[t / 32])).collect::<Vec<_>>();
    Kernel {
        file: "votes",
        kernel: None,
        launch: "{threads: 96}",
        memory: vec![
            buf(
                "inp",
                Ty::I32,
                96,
                "i < 32 ? i + 1 : (i < 64 ? i % 3 - 1 : -(i % 5))",
            ),
            zeros("any_out", Ty::I32, 96),
            zeros("all_out", Ty::I32, 96),
            zeros("ballot_out", Ty::U32, 96),
            zeros("count_out", Ty::I32, 96),
        ],
        args: "[inp, any_out, all_out, ballot_out, count_out]",
        extra: "",
        outputs: vec![
            Out {
                name: "any_out",
                want: ints(per(&|b| (b != 0) as i64)),
            },
            Out {
                name: "all_out",
                want: ints(per(&|b| (b == u32::MAX) as i64)),
            },
            Out {
                name: "ballot_out",
                want: ints(per(&|b| b as i64)),
            },
            Out {
                name: "count_out",
                want: ints(per(&|b| b.count_ones() as i64)),
            },
        ],
    }
}

/// The 32 kernels of the corpus.
fn corpus() -> Vec<Kernel> {
    vec![
        atomics(),
        atomics64(),
        bit_ops(),
        bytes_shorts(),
        collatz(),
        constant_device(),
        conversions(),
        device_call(),
        extern_c(),
        f64_math(),
        grid_stride(),
        histogram(),
        index_3d(),
        int_divmod(),
        lane_loop(),
        local_array(),
        matmul_naive(),
        minmax_abs(),
        prefix_scan(),
        reduce_shared(),
        reduce_shfl(),
        saxpy(),
        seed(),
        shuffle_xor(),
        special_funcs(),
        stencil_1d(),
        struct_param(),
        switch_case(),
        transpose("transpose_naive"),
        transpose("transpose_padded"),
        two_kernels("negate"),
        two_kernels("square"),
        vector_add_int(),
        votes(),
    ]
}

// ---------------------------------------------------------------------------
// Running a scenario through the binary
// ---------------------------------------------------------------------------

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels")
}

fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpstep-corpus-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// A YAML block scalar of `text`, indented by two spaces under its key.
fn block(text: &str) -> String {
    let mut s = String::from("|\n");
    for line in text.lines() {
        if line.trim().is_empty() {
            s.push('\n');
        } else {
            let _ = writeln!(s, "  {line}");
        }
    }
    s
}

/// The scenario of one kernel on one listing, the listing inlined verbatim.
fn scenario(k: &Kernel, arch: &str, listing: &str) -> String {
    scenario_with(k, arch, listing, bank2(k, arch))
}

/// [`scenario`] with bank 2's `constants:` entry given (or none).
fn scenario_with(k: &Kernel, arch: &str, listing: &str, bank2: Option<String>) -> String {
    let mut y = String::new();
    let which = k.kernel.map_or(String::new(), |n| format!(" {n}"));
    let _ = writeln!(y, "name: corpus {}{which} {arch}", k.file);
    if let Some(name) = k.kernel {
        let _ = writeln!(y, "kernel: {name}");
    }
    let _ = writeln!(y, "launch: {}", k.launch);
    let _ = writeln!(y, "memory:");
    for b in &k.memory {
        match b.init {
            Some(init) => {
                let _ = writeln!(
                    y,
                    "  {}: {{type: {}, len: {}, init: \"{init}\"}}",
                    b.name,
                    b.ty.name(),
                    b.len
                );
            }
            None => {
                let _ = writeln!(y, "  {}: {{type: {}, len: {}}}", b.name, b.ty.name(), b.len);
            }
        }
    }
    let _ = writeln!(y, "args: {}", k.args);
    match (bank2, k.extra.strip_prefix("constants:\n")) {
        (Some(entry), Some(rest)) => {
            let _ = write!(y, "constants:\n  {entry}\n{rest}");
        }
        (Some(entry), None) => {
            let _ = write!(y, "{}constants:\n  {entry}\n", k.extra);
        }
        (None, _) => y.push_str(k.extra),
    }
    let _ = write!(y, "program: {}", block(listing));
    y
}

/// Constant bank 2 of the kernel (the compiler's literal pool and jump
/// tables, which neither listing prints) as a `constants:` entry, from
/// `NAME.sm_XX.bank2` where the regeneration script wrote one: a line a
/// kernel, `MANGLED c[0x2][0x0]: [words]`, taken from `cuobjdump -elf`.
fn bank2(k: &Kernel, arch: &str) -> Option<String> {
    let text =
        std::fs::read_to_string(kernels_dir().join(format!("{}.{arch}.bank2", k.file))).ok()?;
    text.lines().find_map(|line| {
        let (mangled, entry) = line.split_once(' ')?;
        k.kernel
            .is_none_or(|name| mangled.contains(name))
            .then(|| entry.to_string())
    })
}

/// Runs `warpstep run FILE --format json [--buffers all]`: the report, or
/// why there is none.
fn run(path: &Path, buffers: bool) -> Result<Value, String> {
    run_with(path, buffers, &[])
}

/// [`run`] with more command-line arguments (`--convergence stack`).
fn run_with(path: &Path, buffers: bool, extra: &[&str]) -> Result<Value, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpstep"));
    cmd.arg("run")
        .arg(path)
        .args(["--format", "json"])
        .args(extra);
    if buffers {
        cmd.args(["--buffers", "all"]);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start warpstep: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(2) {
        // The message and its location (`--> file:line:col`).
        let text: Vec<&str> = stderr
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(2)
            .collect();
        return Err(format!("load error: {}", text.join(" ")));
    }
    let report: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "no JSON report (exit {:?}): {e}; stderr: {}",
            out.status.code(),
            stderr.lines().next().unwrap_or("")
        )
    })?;
    if let Some(err) = report.get("error").and_then(Value::as_str) {
        return Err(format!("run stopped: {err}"));
    }
    if let Some(f) = report
        .get("faults")
        .and_then(Value::as_array)
        .and_then(|f| f.first())
    {
        return Err(format!(
            "fault ({} in all): {f}",
            report.get("faults_total").unwrap_or(&Value::Null)
        ));
    }
    Ok(report)
}

/// Units in the last place between two f32 (0 for equal, also for +0/-0).
fn ulps32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0 { i32::MIN as i64 - b } else { b }
    };
    (key(a) - key(b)).unsigned_abs()
}

fn ulps64(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let b = x.to_bits() as i64 as i128;
        if b < 0 { i64::MIN as i128 - b } else { b }
    };
    (key(a) - key(b)).unsigned_abs().min(u64::MAX as u128) as u64
}

/// Whether `got` is what `want` allows.
fn accepts(want: Want, got: &Value) -> bool {
    match want {
        Want::Int(v) => got.as_i64() == Some(v) || (v >= 0 && got.as_u64() == Some(v as u64)),
        Want::IntIn(lo, hi) => got.as_i64().is_some_and(|g| (lo..=hi).contains(&g)),
        Want::F32(v, ulps) => got
            .as_f64()
            .is_some_and(|g| ulps32(g as f32, v) <= u64::from(ulps)),
        Want::F64(v, ulps) => got.as_f64().is_some_and(|g| ulps64(g, v) <= ulps),
    }
}

fn show(want: Want) -> String {
    match want {
        Want::Int(v) => v.to_string(),
        Want::IntIn(lo, hi) => format!("{lo}..={hi}"),
        Want::F32(v, u) => format!("{v:?} ±{u}ulp"),
        Want::F64(v, u) => format!("{v:?} ±{u}ulp"),
    }
}

/// Compares the report's buffers with the reference: the first mismatch of
/// each output buffer (and how many elements differ).
fn compare(k: &Kernel, report: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    let Some(buffers) = report.get("buffers") else {
        return vec!["report has no `buffers`".into()];
    };
    for o in &k.outputs {
        let Some(got) = buffers.get(o.name).and_then(Value::as_array) else {
            bad.push(format!("{}: missing from `buffers`", o.name));
            continue;
        };
        if got.len() != o.want.len() {
            bad.push(format!(
                "{}: {} elements, expected {}",
                o.name,
                got.len(),
                o.want.len()
            ));
            continue;
        }
        let wrong: Vec<usize> = (0..got.len())
            .filter(|&i| !accepts(o.want[i], &got[i]))
            .collect();
        if let Some(&i) = wrong.first() {
            bad.push(format!(
                "{}[{i}]: expected {}, got {} ({} of {} differ)",
                o.name,
                show(o.want[i]),
                got[i],
                wrong.len(),
                got.len()
            ));
        }
    }
    bad
}

/// Kernel and architecture pairs warpstep does not run right yet, with
/// what stops them (both listing forms of a pair fail alike). The test
/// prints this table on every run, requires each entry still to fail (an
/// entry that starts to pass must be removed) and every other run to pass.
/// The reasons are what the runs report.
const PENDING: &[(&str, &str, &str)] = &[];

fn pending(name: &str, arch: &str) -> Option<&'static str> {
    PENDING
        .iter()
        .find(|(n, a, _)| *n == name && *a == arch)
        .map(|(_, _, why)| *why)
}

#[test]
fn every_listing_computes_what_its_source_means() {
    let kernels = corpus();
    let dir = scratch_dir("all");
    let mut jobs = Vec::new();
    for ki in 0..kernels.len() {
        for arch in ARCHS {
            for form in FORMS {
                // The listings' own model (`its`, BSSY/BSYNC as on Volta
                // and newer) and the pre-Volta stack on the same code
                // must both compute what the source means.
                for model in MODELS {
                    jobs.push((ki, arch, form, model));
                }
            }
        }
    }
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(ki, arch, form, model)) = jobs.get(j) else {
                        break;
                    };
                    let k = &kernels[ki];
                    let file = kernels_dir().join(format!("{}.{arch}.{form}", k.file));
                    let problems = match std::fs::read_to_string(&file) {
                        Err(e) => vec![format!("cannot read {}: {e}", file.display())],
                        Ok(listing) => {
                            let which = k.kernel.unwrap_or("");
                            let path =
                                dir.join(format!("{}{which}.{arch}.{form}.{model}.yaml", k.file));
                            match std::fs::write(&path, scenario(k, arch, &listing)) {
                                Err(e) => vec![format!("cannot write {}: {e}", path.display())],
                                Ok(()) => match run_with(&path, true, &["--convergence", model]) {
                                    Err(e) => vec![e],
                                    Ok(report) => compare(k, &report),
                                },
                            }
                        }
                    };
                    if let Ok(mut r) = results.lock() {
                        r.push((j, problems));
                    }
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|r| r.0);
    let mut table = String::new();
    let mut failed = 0;
    let mut still_pending = std::collections::BTreeSet::new();
    let mut fixed = Vec::new();
    let mut pending_runs = 0;
    for (j, problems) in &results {
        let (ki, arch, form, model) = jobs[*j];
        let k = &kernels[ki];
        let name = match k.kernel {
            Some(n) => format!("{}:{n}", k.file),
            None => k.file.to_string(),
        };
        if pending(k.file, arch).is_some() {
            pending_runs += 1;
            if problems.is_empty() {
                fixed.push(format!("{name} {arch} {form} {model}"));
            } else {
                still_pending.insert((k.file, arch));
            }
            continue;
        }
        if !problems.is_empty() {
            failed += 1;
        }
        for p in problems {
            let _ = writeln!(table, "{name:<24} {arch:<7} {form:<9} {model:<6} {p}");
        }
    }
    println!(
        "corpus: {} of {} kernel/arch/form/model runs match their references; not yet supported:",
        jobs.len() - failed - pending_runs,
        jobs.len()
    );
    for (file, arch) in &still_pending {
        println!(
            "  {file:<16} {arch:<7} {}",
            pending(file, arch).unwrap_or("")
        );
    }
    assert!(
        fixed.is_empty(),
        "these runs now match their references; remove them from PENDING: {fixed:?}"
    );
    assert_eq!(results.len(), jobs.len(), "every job reported");
    if failed == 0 {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failed == 0,
        "{failed} of {} kernel/arch/form/model runs failed (the scenarios are in {}):\n{:<24} {:<7} {:<9} {:<6} problem\n{table}",
        jobs.len(),
        dir.display(),
        "kernel",
        "arch",
        "form",
        "model"
    );
}

/// A listing that prints bank 2 (`nvdisasm` without `-c` prints each
/// kernel's `.nv.constant2` section as `.byte` lines) needs no
/// `constants:` entry for it. The section is written here, in nvdisasm's
/// layout, from the words `cuobjdump -elf` printed (`NAME.sm_XX.bank2`),
/// into the committed `-c` listing before its code section; the run must
/// match the reference. Without the section nor the entry, it does not
/// run: a direct `c[0x2]` read is an error at load, an indexed one reads
/// 0 (the jump table's targets are gone).
#[test]
fn bank_2_is_read_from_a_listing_that_prints_it() {
    let kernels = corpus();
    let dir = scratch_dir("bank2");
    for (file, arch) in [("switch_case", "sm_100"), ("special_funcs", "sm_75")] {
        let k = kernels
            .iter()
            .find(|k| k.file == file)
            .expect("in the corpus");
        let text = std::fs::read_to_string(kernels_dir().join(format!("{file}.{arch}.bank2")))
            .expect("bank 2 committed");
        let (mangled, entry) = text
            .lines()
            .next()
            .and_then(|l| l.split_once(' '))
            .expect("MANGLED c[0x2][0x0]: [words]");
        let words: Vec<u32> = entry
            .split_once(": [")
            .and_then(|(_, w)| w.strip_suffix(']'))
            .expect("a list")
            .split(", ")
            .map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16).expect("hex word"))
            .collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut section = format!(
            "//--------------------- .nv.constant2.{mangled} --------------------------\n\
             \t.section\t.nv.constant2.{mangled},\"a\",@progbits\n\t.sectionflags\t@\"\"\n\
             \t.align\t4\n.nv.constant2.{mangled}:\n"
        );
        for (i, row) in bytes.chunks(16).enumerate() {
            let list: Vec<String> = row.iter().map(|b| format!("0x{b:02x}")).collect();
            let _ = writeln!(
                section,
                "        /*{:04x}*/ \t.byte\t{}",
                i * 16,
                list.join(", ")
            );
        }
        section.push_str("\n\n");
        let listing =
            std::fs::read_to_string(kernels_dir().join(format!("{file}.{arch}.nvdisasm")))
                .expect("committed listing");
        let at = listing
            .find("//--------------------- .text.")
            .expect("a code section");
        let printed = format!("{}{section}{}", &listing[..at], &listing[at..]);
        let path = dir.join(format!("{file}.{arch}.yaml"));
        std::fs::write(&path, scenario_with(k, arch, &printed, None)).expect("written");
        let report = run(&path, true).unwrap_or_else(|e| panic!("{file} {arch}: {e}"));
        let problems = compare(k, &report);
        assert!(problems.is_empty(), "{file} {arch}: {problems:?}");
        std::fs::write(&path, scenario_with(k, arch, &listing, None)).expect("written");
        // special_funcs reads `c[0x2][0x8]` directly: linking names it;
        // switch_case's `LDC R2, c[0x2][R4]` reads 0 and its BRX faults.
        match run(&path, true) {
            Ok(r) => panic!("{file} {arch} ran without bank 2: {:?}", compare(k, &r)),
            Err(e) => assert!(
                e.contains("c[0x2]") || e.contains("bad_branch_target"),
                "{file} {arch}: {e}"
            ),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// Numbers worked by hand on real code
// ---------------------------------------------------------------------------

fn run_listing(tag: &str, listing: &str, head: &str) -> Value {
    let dir = scratch_dir(tag);
    let text = std::fs::read_to_string(kernels_dir().join(listing)).expect("committed listing");
    let path = dir.join(format!("{tag}.yaml"));
    std::fs::write(&path, format!("{head}program: {}", block(&text))).expect("scenario written");
    let report = run(&path, false).unwrap_or_else(|e| panic!("{listing}: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    report
}

fn num(report: &Value, path: &str) -> Value {
    path.split('.')
        .try_fold(report, |v, key| match key.parse::<usize>() {
            Ok(i) => v.get(i),
            Err(_) => v.get(key),
        })
        .cloned()
        .unwrap_or(Value::Null)
}

/// seed.cu for sm_90 over n = 1,000,003 with block_dim 256, the numbers
/// worked by hand from the listing (tests/kernels/seed.sm_90.sass):
///
/// ```text
/// 0x00..0x60  7 unpredicated (LDC, S2R, S2UR, LDC, IMAD, ULDC, ISETP)
/// 0x70        @P0 EXIT           the bounds check: a predicated EXIT, no branch
/// 0x80..0xc0  5 unpredicated (LDC.64, ULDC.64, IMAD.WIDE, LDG, FSETP)
/// 0xd0..0xf0  @!P0 FADD, @!P0 STG, @!P0 EXIT   the else side, predicated
/// 0x100..0x120  FADD, STG, EXIT                the then side
/// ```
///
/// There is no branch the code reaches (the BRA at 0x130 follows the last
/// EXIT): `branches` = `divergent_branches` = 0, branch efficiency null.
///
/// blocks = ceil(1,000,003 / 256) = 3907 (3906 * 256 = 999,936; the last
/// block has 67 live threads = warps 0 and 1 full, warp 2 with lanes 0..2,
/// warps 3..7 with none): warps_launched = 3907 * 8 = 31,256, of which
/// 31,250 are full, 1 is partial (3 lanes) and 5 exit at 0x70.
/// data[i] = 0.25 + 0.5 * (i % 2): odd elements take the then side, so a
/// full warp keeps 16 lanes past 0xf0; of the partial warp's lanes 0..2
/// (i = 999,936..999,938) only the odd one does.
///
/// ```text
///                 issued  thread_inst_executed           pred_on
/// full warp          19   8*32 + 5*32 + 3*32 + 3*16 = 560   7*32 + 0 + 5*32 + 3*16 + 3*16 = 480
/// partial warp       19   8*32 + 5*3 + 3*3 + 3*1    = 283   7*32 + 29 + 5*3 + 3*2 + 3*1  = 277
/// empty warp          8   8*32                      = 256   7*32 + 32                     = 256
/// total   31250*19 + 19 + 5*8 = 593,809
///         31250*560 + 283 + 5*256 = 17,501,563
///         31250*480 + 277 + 5*256 = 15,001,557
/// ```
///
/// Lane slots: total = 32 * 593,809 = 19,001,888; predicated off =
/// 17,501,563 - 15,001,557 = 2,500,006; exited = 31,250 * 16 * 3 (the else
/// lanes during 0x100..0x120) + 29 * 8 + 31 * 3 (the partial warp) =
/// 1,500,325; no divergence and no lane never launched (256 = 8 * 32).
#[test]
fn seed_sm_90_over_a_million_threads_matches_the_hand_count() {
    let head = "name: seed sm_90, n = 1000003\n\
                launch: {blocks: 3907, block_dim: 256}\n\
                memory:\n  data: {type: f32, len: 1000003, init: \"0.25 + 0.5 * (i % 2)\"}\n\
                args: [data, 1000003]\n";
    let r = run_listing("seed-million", "seed.sm_90.sass", head);
    let want = [
        ("warps_launched", 31_256i64),
        ("branches", 0),
        ("divergent_branches", 0),
        ("issued", 593_809),
        ("thread_inst_executed", 17_501_563),
        ("thread_inst_executed_pred_on", 15_001_557),
        ("lane_slots.total", 19_001_888),
        ("lane_slots.predicated_on", 15_001_557),
        ("lane_slots.predicated_off", 2_500_006),
        ("lane_slots.exited", 1_500_325),
        ("lane_slots.divergence", 0),
        ("lane_slots.never_launched", 0),
    ];
    let mut wrong = String::new();
    for (key, v) in want {
        let got = num(&r, key);
        if got.as_i64() != Some(v) {
            let _ = writeln!(wrong, "{key}: expected {v}, got {got}");
        }
    }
    if !num(&r, "branch_efficiency").is_null() {
        let _ = writeln!(
            wrong,
            "branch_efficiency: expected null, got {}",
            num(&r, "branch_efficiency")
        );
    }
    assert!(wrong.is_empty(), "seed sm_90, n = 1,000,003:\n{wrong}");
}

/// lane_loop.cu for sm_90, one lane per warp (`warp_width: 1`, 32 threads),
/// so that each warp's issue count is one lane's path through the listing
/// (tests/kernels/lane_loop.sm_90.sass), worked by hand. nvcc unrolled the
/// loop `for k in 0..=m` (m = tid % 32, m + 1 trips) by 16, 8 and 4, with a
/// remainder loop for (m + 1) % 4 trips.
///
/// Lane 31 (m = 31, the longest: 32 trips):
/// ```text
/// 0x000..0x0a0  11  prologue, @!P0 BRA (m >= 0: not taken)
/// 0x0b0..0x110   7  R2 = 32 & 3 = 0, @!P0 BRA (m >= 3: not taken)
/// 0x120..0x1a0   9  R4 = m - R2 = 31, @!P0 BRA (R4 > -1: not taken)
/// 0x1b0..0x1f0   5  P0 = true, @!P1 BRA (R4 + 1 = 32 > 12: not taken)
/// 0x200          1  P0 = false (PLOP3 LUT 0x8)
/// 0x210..0x3c0  28  x 2: the 16-fold body; R4 31 -> 15 (> 11, again) -> -1
/// 0x3d0          1  BSYNC B2
/// 0x3e0..0x410   4  @!P1 BRA 0x510 (R4 + 1 = 0 > 4 false: taken)
/// 0x510..0x530   3  BSYNC B2, P0 = (R4 != -1) || P0 = false, @!P0 BRA taken
/// 0x5e0..0x600   3  BSYNC B0, R2 != 0 false, @!P0 BRA 0x670 taken
/// 0x670..0x6b0   5  BSYNC B1, LDC.64, IMAD.WIDE, STG, EXIT
///               = 11 + 7 + 9 + 5 + 1 + 56 + 1 + 4 + 3 + 3 + 5 = 105 issued,
/// branches: 0xa0, 0x110, 0x1a0, 0x1f0, 0x3c0 twice, 0x410, 0x530, 0x600 = 9.
/// ```
/// Lane 0 (m = 0, one trip): 11 (prologue) + 7 (R2 = 1, m >= 3 false: the
/// BRA at 0x110 to 0x5e0 is taken) + 3 (BSYNC B0, R2 != 0, BRA not taken),
/// plus 1 (0x610) + 5 (0x620..0x660 once: R2 1 -> 0) + 5 (epilogue) = 32
/// issued; branches 0xa0, 0x110, 0x600, 0x660 = 4. A one-lane warp cannot
/// diverge: divergent_branches = 0.
#[test]
fn lane_loop_sm_90_issue_slots_at_the_longest_trip_count() {
    let head = "name: lane_loop sm_90, one lane per warp\n\
                machine: {warp_width: 1}\n\
                launch: {threads: 32}\n\
                memory:\n  out: {type: i32, len: 32}\n\
                args: [out]\n";
    let r = run_listing("lane-loop", "lane_loop.sm_90.sass", head);
    let want = [
        ("warps_launched", 32i64),
        ("warps.31.issued", 105),
        ("warps.31.branches", 9),
        ("warps.0.issued", 32),
        ("warps.0.branches", 4),
        ("divergent_branches", 0),
    ];
    let mut wrong = String::new();
    for (key, v) in want {
        let got = num(&r, key);
        if got.as_i64() != Some(v) {
            let _ = writeln!(wrong, "{key}: expected {v}, got {got}");
        }
    }
    assert!(wrong.is_empty(), "lane_loop sm_90:\n{wrong}");
}

/// The comparison itself, on reports made here: a report holding exactly
/// the reference passes every kernel; one element moved by one ulp (or one
/// integer by one) past its kernel's bound is the first mismatch reported.
/// This runs today, before the binary can run listings.
#[test]
fn the_comparison_finds_the_first_element_past_its_bound() {
    let as_json = |w: Want| match w {
        Want::Int(v) | Want::IntIn(v, _) => Value::from(v),
        Want::F32(v, _) => Value::from(f64::from(v)),
        Want::F64(v, _) => Value::from(v),
    };
    // The mirror of `rand`, at the values worked by hand in the expression
    // tests (src/expr/tests.rs): rand(7) at i = 0 and 1.
    assert_eq!(rand_unit(7, 0), 0.17386786595968284);
    assert_eq!(rand_unit(7, 1), 0.9426143746841554);
    for k in corpus() {
        let mut buffers = serde_json::Map::new();
        for o in &k.outputs {
            buffers.insert(o.name.into(), o.want.iter().map(|&w| as_json(w)).collect());
        }
        let report = serde_json::json!({ "buffers": buffers });
        assert_eq!(compare(&k, &report), Vec::<String>::new(), "{}", k.file);
    }
    // saxpy's bound is 0 ulp: ys[7] one ulp up is reported, with the count.
    let k = saxpy();
    let mut ys: Vec<Value> = k.outputs[0].want.iter().map(|&w| as_json(w)).collect();
    let Want::F32(v, _) = k.outputs[0].want[7] else {
        panic!("saxpy's ys is f32")
    };
    ys[7] = Value::from(f64::from(f32::from_bits(v.to_bits() + 1)));
    let report = serde_json::json!({ "buffers": { "ys": ys } });
    let bad = compare(&k, &report);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].starts_with("ys[7]: expected ") && bad[0].ends_with("(1 of 150 differ)"),
        "{}",
        bad[0]
    );
    // special_funcs allows rsqrt 2 ulp: 2 up passes, 3 up fails.
    let k = special_funcs();
    let bump = |n: u32| {
        let mut buffers = serde_json::Map::new();
        for o in &k.outputs {
            let mut vals: Vec<Value> = o.want.iter().map(|&w| as_json(w)).collect();
            if o.name == "r"
                && let Want::F32(v, _) = o.want[5]
            {
                vals[5] = Value::from(f64::from(f32::from_bits(v.to_bits() + n)));
            }
            buffers.insert(o.name.into(), vals.into());
        }
        compare(&k, &serde_json::json!({ "buffers": buffers }))
    };
    assert!(bump(2).is_empty());
    assert_eq!(bump(3).len(), 1);
    // A missing buffer and a wrong length are reported, not skipped.
    let k = votes();
    let bad = compare(&k, &serde_json::json!({ "buffers": { "any_out": [1] } }));
    assert_eq!(bad.len(), 4, "{bad:?}");
    assert!(bad[0].contains("1 elements, expected 96"), "{}", bad[0]);
}
