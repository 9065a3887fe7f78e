//! Where each architecture's kernel ABI puts the launch values in constant
//! bank 0 (`c[0x0][...]`), as nvcc 13 compiles for it.
//!
//! The driver fills bank 0 before a launch: the block and grid dimensions,
//! the stack pointer of per-thread local memory, from Ampere on the global
//! memory descriptor that `desc[URn]` addresses name, and the kernel's
//! parameters in declaration order, each at its natural alignment. The
//! offsets moved twice: Hopper (sm_90) moved the parameters from `0x160` to
//! `0x210`, and sm_100/sm_120 moved everything up into `0x358..`. The values
//! below were read off the listings of `tests/kernels/abi_probe.cu`
//! (one probe kernel per value) and the tests read them again from there.

/// The offsets, in bytes, of the launch values in constant bank 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantBank {
    /// `blockDim.x`; `.y` and `.z` follow at +4 and +8.
    pub block_dim: u32,
    /// `gridDim.x`; `.y` and `.z` follow at +4 and +8.
    pub grid_dim: u32,
    /// The initial stack pointer: every kernel's first instruction loads it
    /// into R1 (`LDC R1, c[0x0][0x28]`), local memory is addressed from it.
    pub stack_pointer: u32,
    /// The 64-bit global memory descriptor (`ULDC.64 UR4, c[0x0][0x208]`),
    /// named by `LDG.E R0, desc[UR4][R2.64]`; Turing has none.
    pub memory_descriptor: Option<u32>,
    /// The first kernel parameter.
    pub params: u32,
}

/// The layout by architecture, the oldest first: each row covers the SM
/// numbers from its own up to the next row's.
const LAYOUTS: [(u32, ConstantBank); 4] = [
    (
        75,
        ConstantBank {
            block_dim: 0x0,
            grid_dim: 0xc,
            stack_pointer: 0x28,
            memory_descriptor: None,
            params: 0x160,
        },
    ),
    (
        80,
        ConstantBank {
            block_dim: 0x0,
            grid_dim: 0xc,
            stack_pointer: 0x28,
            memory_descriptor: Some(0x118),
            params: 0x160,
        },
    ),
    (
        90,
        ConstantBank {
            block_dim: 0x0,
            grid_dim: 0xc,
            stack_pointer: 0x28,
            memory_descriptor: Some(0x208),
            params: 0x210,
        },
    ),
    (
        100,
        ConstantBank {
            block_dim: 0x360,
            grid_dim: 0x370,
            stack_pointer: 0x37c,
            memory_descriptor: Some(0x358),
            params: 0x380,
        },
    ),
];

/// The newest SM number the table is known to hold for (sm_120, probed).
const NEWEST: u32 = 129;

/// The constant bank layout of an architecture (`sm` as in `sm_90` → 90),
/// from sm_75 to sm_12x; `None` outside what nvcc 13 compiles and the
/// probes confirmed.
pub fn constant_bank(sm: u32) -> Option<ConstantBank> {
    if sm > NEWEST {
        return None;
    }
    LAYOUTS
        .iter()
        .rev()
        .find(|(from, _)| sm >= *from)
        .map(|(_, layout)| *layout)
}

/// Bytes of local memory each thread's stack has: the driver's value of
/// the stack pointer in bank 0 (local addresses run from 0 to this, and
/// the stack grows down from it).
pub const LOCAL_BYTES: u32 = 0x4000;

/// The 64-bit global memory descriptor bank 0 holds from Ampere on. Real
/// drivers put an opaque handle there; the simulator ignores `desc[..]`,
/// so any fixed value does: this one.
pub const MEMORY_DESCRIPTOR: u64 = 0;

/// A kernel parameter's type, as far as laying it out needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamType {
    /// An integer of `size` bytes (`bool`, `char` ... `__int128`).
    Int { size: u32, signed: bool },
    /// `float` (4) or `double` (8).
    Float { size: u32 },
    /// Any pointer: 8 bytes.
    Pointer,
    /// A struct or class passed by value: its name; the symbol does not
    /// say its size.
    Struct(String),
}

impl ParamType {
    /// Size and alignment in bytes, when the type alone says.
    pub fn size(&self) -> Option<u32> {
        match self {
            ParamType::Int { size, .. } | ParamType::Float { size } => Some(*size),
            ParamType::Pointer => Some(8),
            ParamType::Struct(_) => None,
        }
    }
}

/// The parameter types of an Itanium-mangled function symbol
/// (`_Z6kernelPfS_i` → `float*, float*, int`), for a plain (not nested,
/// not templated) name whose parameters are builtin types, pointers,
/// cv-qualified types, struct names and substitutions (`S_`, `S0_` ...).
/// `None` for an unmangled (`extern "C"`) symbol or anything else.
pub fn mangled_params(symbol: &str) -> Option<Vec<ParamType>> {
    Some(
        mangled_params_with_pointees(symbol)?
            .into_iter()
            .map(|(t, _)| t)
            .collect(),
    )
}

/// [`mangled_params`], with the type each pointer parameter points to
/// (`_Z6kernelPfi` → `(pointer, float)`, `(int, none)`): `None` for a
/// parameter that is no pointer, and for `void *`.
pub fn mangled_params_with_pointees(symbol: &str) -> Option<Vec<(ParamType, Option<ParamType>)>> {
    let rest = symbol.strip_prefix("_Z")?;
    let mut d = Demangler {
        s: rest.as_bytes(),
        at: 0,
        subs: Vec::new(),
    };
    d.source_name()?;
    let mut out = Vec::new();
    while d.at < d.s.len() {
        // `v` alone is an empty parameter list.
        if d.s[d.at] == b'v' && d.at + 1 == d.s.len() && out.is_empty() {
            d.at += 1;
            break;
        }
        out.push(d.ty()?);
    }
    Some(out)
}

struct Demangler<'a> {
    s: &'a [u8],
    at: usize,
    /// Substitution candidates in the order they appear, each with the
    /// type it points to.
    subs: Vec<(ParamType, Option<ParamType>)>,
}

impl Demangler<'_> {
    /// `<length><identifier>`.
    fn source_name(&mut self) -> Option<String> {
        let start = self.at;
        while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        let n: usize = std::str::from_utf8(&self.s[start..self.at])
            .ok()?
            .parse()
            .ok()?;
        let end = self.at.checked_add(n)?;
        let name = std::str::from_utf8(self.s.get(self.at..end)?).ok()?;
        self.at = end;
        Some(name.to_string())
    }

    /// A type, and for a pointer the type it points to.
    fn ty(&mut self) -> Option<(ParamType, Option<ParamType>)> {
        let c = *self.s.get(self.at)?;
        let int = |size, signed| Some(ParamType::Int { size, signed });
        let builtin = match c {
            b'b' | b'h' => int(1, false),
            b'c' | b'a' => int(1, true),
            b's' => int(2, true),
            b't' => int(2, false),
            b'i' => int(4, true),
            b'j' => int(4, false),
            b'l' | b'x' => int(8, true),
            b'm' | b'y' => int(8, false),
            b'n' => int(16, true),
            b'o' => int(16, false),
            b'f' => Some(ParamType::Float { size: 4 }),
            b'd' => Some(ParamType::Float { size: 8 }),
            _ => None,
        };
        if let Some(t) = builtin {
            self.at += 1;
            return Some((t, None));
        }
        match c {
            // `void`, only ever pointed to.
            b'v' => {
                self.at += 1;
                Some((ParamType::Struct("void".into()), None))
            }
            b'P' => {
                self.at += 1;
                let (to, _) = self.ty()?;
                let to = (to != ParamType::Struct("void".into())).then_some(to);
                self.subs.push((ParamType::Pointer, to.clone()));
                Some((ParamType::Pointer, to))
            }
            // const, volatile, restrict: the same layout, a candidate of
            // its own.
            b'K' | b'V' | b'r' => {
                self.at += 1;
                let t = self.ty()?;
                self.subs.push(t.clone());
                Some(t)
            }
            b'0'..=b'9' => {
                let t = ParamType::Struct(self.source_name()?);
                self.subs.push((t.clone(), None));
                Some((t, None))
            }
            b'S' => {
                self.at += 1;
                // `S_` is candidate 0, `S<base-36 n>_` candidate n + 1.
                let mut n: usize = 0;
                let mut digits = false;
                loop {
                    let c = *self.s.get(self.at)?;
                    self.at += 1;
                    let v = match c {
                        b'_' => break,
                        b'0'..=b'9' => c - b'0',
                        b'A'..=b'Z' => c - b'A' + 10,
                        _ => return None,
                    };
                    n = n.checked_mul(36)?.checked_add(usize::from(v))?;
                    digits = true;
                }
                let index = if digits { n + 1 } else { 0 };
                self.subs.get(index).cloned()
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;
    use crate::asm::listing;

    /// Every `c[0x0][...]` offset a kernel's code names (`c[0x0][RZ]` is 0).
    fn bank0_offsets(k: &listing::Kernel) -> BTreeSet<u32> {
        let mut out = BTreeSet::new();
        for ins in k.body() {
            let mut rest = ins.text.as_str();
            while let Some(at) = rest.find("c[0x0][") {
                rest = &rest[at + 7..];
                let inner = rest.split(']').next().unwrap_or("");
                let v = if inner == "RZ" {
                    Some(0)
                } else {
                    inner
                        .strip_prefix("0x")
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                };
                out.extend(v);
            }
        }
        out
    }

    fn probe(arch: &str) -> listing::Listing {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/kernels")
            .join(format!("abi_probe.{arch}.sass"));
        let text = std::fs::read_to_string(&path).expect("committed probe listing");
        listing::read(&text).expect("probe listing reads")
    }

    /// Each probe kernel reads one value; its listing must name exactly the
    /// offsets the table gives: the stack pointer, the output pointer (the
    /// first parameter; sm_8x also reads its high half at +4), the memory
    /// descriptor, and the probed value.
    fn check(arch: &str, sm: u32) {
        let l = probe(arch);
        assert_eq!(l.arch.map(|a| a.sm), Some(sm));
        let t = constant_bank(sm).expect("table covers the probed arch");
        let common: BTreeSet<u32> = [Some(t.stack_pointer), Some(t.params), t.memory_descriptor]
            .into_iter()
            .flatten()
            .collect();
        let probes = [
            ("block_x", vec![t.block_dim]),
            ("block_y", vec![t.block_dim + 4]),
            ("block_z", vec![t.block_dim + 8]),
            ("grid_x", vec![t.grid_dim]),
            ("grid_y", vec![t.grid_dim + 4]),
            ("grid_z", vec![t.grid_dim + 8]),
            // `params(unsigned *out, unsigned a, unsigned long long b)`: a
            // after the 8-byte pointer, b at the next 8-byte boundary.
            ("params", vec![t.params + 8, t.params + 0x10]),
        ];
        for (kernel, own) in probes {
            let k = l.kernel(Some(kernel)).expect("probe kernel");
            let seen = bank0_offsets(k);
            let mut required = common.clone();
            required.extend(own);
            let mut allowed = required.clone();
            allowed.insert(t.params + 4);
            assert!(
                required.is_subset(&seen) && seen.is_subset(&allowed),
                "{arch} {kernel}: listing names {seen:x?}, table says {required:x?}"
            );
        }
        // The first instruction sets up the stack pointer.
        let first = &l.kernels[0].instructions[0].text;
        assert!(
            first.ends_with(&format!("R1, c[0x0][{:#x}]", t.stack_pointer)),
            "{arch}: {first}"
        );
    }

    #[test]
    fn sm_75() {
        check("sm_75", 75);
    }

    #[test]
    fn sm_80() {
        check("sm_80", 80);
    }

    #[test]
    fn sm_86() {
        check("sm_86", 86);
    }

    #[test]
    fn sm_89() {
        check("sm_89", 89);
    }

    #[test]
    fn sm_90() {
        check("sm_90", 90);
    }

    #[test]
    fn sm_100() {
        check("sm_100", 100);
    }

    #[test]
    fn sm_120() {
        check("sm_120", 120);
    }

    #[test]
    fn mangled_parameter_lists() {
        use ParamType::*;
        let f32_ = Float { size: 4 };
        let i32_ = Int {
            size: 4,
            signed: true,
        };
        // By hand from the Itanium ABI: Pf float*, S_ the first candidate
        // (float*), i int.
        assert_eq!(
            mangled_params("_Z6kernelPfS_i"),
            Some(vec![Pointer, Pointer, i32_.clone()])
        );
        // The probe kernel `params(unsigned *, unsigned, unsigned long long)`.
        assert_eq!(
            mangled_params("_Z6paramsPjjy"),
            Some(vec![
                Pointer,
                Int {
                    size: 4,
                    signed: false
                },
                Int {
                    size: 8,
                    signed: false
                }
            ])
        );
        // PKf: candidates Kf (S_), PKf (S0_); a struct name is one too.
        assert_eq!(
            mangled_params("_Z1kPKfS0_4PairS1_d"),
            Some(vec![
                Pointer,
                Pointer,
                Struct("Pair".into()),
                Struct("Pair".into()),
                Float { size: 8 }
            ])
        );
        assert_eq!(mangled_params("_Z4noopv"), Some(vec![]));
        assert_eq!(mangled_params("_Z1kfS_"), None, "no candidate yet");
        assert_eq!(mangled_params("extern_c_kernel"), None);
        assert_eq!(mangled_params("_ZN2ns1kEv"), None, "nested names");
        let _ = f32_;
    }

    #[test]
    fn pointers_keep_what_they_point_to() {
        use ParamType::*;
        // `kernel(const float *, const float *, unsigned char *, void *, int)`,
        // mangled by hand: S0_ is candidate 1, `PKf`.
        assert_eq!(
            mangled_params_with_pointees("_Z6kernelPKfS0_PhPvi"),
            Some(vec![
                (Pointer, Some(Float { size: 4 })),
                (Pointer, Some(Float { size: 4 })),
                (
                    Pointer,
                    Some(Int {
                        size: 1,
                        signed: false
                    })
                ),
                (Pointer, None),
                (
                    Int {
                        size: 4,
                        signed: true
                    },
                    None
                ),
            ])
        );
    }

    #[test]
    fn outside_the_table() {
        assert_eq!(constant_bank(70), None);
        assert_eq!(constant_bank(52), None);
        assert_eq!(constant_bank(130), None);
        // Values from the probe listings, by hand: sm_90's first parameter
        // is at 0x210, its descriptor at 0x208; sm_89 keeps Ampere's.
        assert_eq!(
            constant_bank(90).map(|t| (t.params, t.memory_descriptor)),
            Some((0x210, Some(0x208)))
        );
        assert_eq!(constant_bank(89).map(|t| t.params), Some(0x160));
        assert_eq!(constant_bank(121).map(|t| t.stack_pointer), Some(0x37c));
    }
}
