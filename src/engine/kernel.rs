//! A kernel ready to launch: its linked code, its constant bank, the global
//! buffers it reads and writes, the launch geometry, and the registers and
//! predicates each thread starts with.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::config::Latency;
use super::link::{Decoded, link};
use crate::asm::{AsmError, Program};

/// Three dimensions of a block or grid, x fastest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    /// `x * y * z`, if it fits in 32 bits.
    pub fn product(self) -> Option<u32> {
        self.x.checked_mul(self.y)?.checked_mul(self.z)
    }
}

/// Shared addresses below this are reserved on sm_90 and later: a block's
/// shared memory starts at 0x400 (`UMOV UR4, 0x400` in the listings).
pub const SHARED_RESERVED_SM90: u32 = 0x400;

/// Local memory each thread gets unless the kernel says otherwise.
pub const DEFAULT_LOCAL_BYTES: u32 = 1024;
/// The most local memory a thread may get.
pub const MAX_LOCAL_BYTES: u32 = 64 * 1024;

/// The grid: blocks of threads, and the shared memory each block gets.
/// `blocks` and `block_dim` are totals; a 2-D or 3-D launch also gives
/// its shapes (their products are the totals). Threads of a block are
/// numbered x fastest and warps formed from that order, as CUDA does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub blocks: u32,
    pub block_dim: u32,
    /// Shared memory per block in bytes.
    pub shared_bytes: u32,
    /// The block's x, y, z (`None`: `block_dim` threads along x).
    pub block_shape: Option<Dim3>,
    /// The grid's x, y, z (`None`: `blocks` along x).
    pub grid_shape: Option<Dim3>,
}

impl Launch {
    /// Threads in the grid.
    pub fn threads(&self) -> u64 {
        u64::from(self.blocks) * u64::from(self.block_dim)
    }

    /// A 1-D launch.
    pub fn linear(blocks: u32, block_dim: u32, shared_bytes: u32) -> Launch {
        Launch {
            blocks,
            block_dim,
            shared_bytes,
            block_shape: None,
            grid_shape: None,
        }
    }

    /// The block's dimensions.
    pub fn block_dims(&self) -> Dim3 {
        self.block_shape.unwrap_or(Dim3 {
            x: self.block_dim,
            y: 1,
            z: 1,
        })
    }

    /// The grid's dimensions.
    pub fn grid_dims(&self) -> Dim3 {
        self.grid_shape.unwrap_or(Dim3 {
            x: self.blocks,
            y: 1,
            z: 1,
        })
    }

    /// [`Self::block_dims`] as `[x, y, z]`.
    pub fn block_xyz(&self) -> [u32; 3] {
        let d = self.block_dims();
        [d.x, d.y, d.z]
    }

    /// [`Self::grid_dims`] as `[x, y, z]`.
    pub fn grid_xyz(&self) -> [u32; 3] {
        let d = self.grid_dims();
        [d.x, d.y, d.z]
    }
}

impl Default for Launch {
    /// One block of 32 threads with 48 KiB of shared memory.
    fn default() -> Self {
        Launch::linear(1, 32, 49_152)
    }
}

/// Element type of a global buffer (how frontends show its elements, and
/// how many bytes each takes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElemType {
    U32,
    I32,
    F32,
    U8,
    I8,
    U16,
    I16,
    U64,
    I64,
    F64,
}

impl ElemType {
    /// Every type with its name in scenario files, in the order docs list them.
    pub const ALL: [(&'static str, ElemType); 10] = [
        ("u8", ElemType::U8),
        ("i8", ElemType::I8),
        ("u16", ElemType::U16),
        ("i16", ElemType::I16),
        ("u32", ElemType::U32),
        ("i32", ElemType::I32),
        ("u64", ElemType::U64),
        ("i64", ElemType::I64),
        ("f32", ElemType::F32),
        ("f64", ElemType::F64),
    ];

    /// Bytes per element: 1, 2, 4 or 8.
    pub fn size(self) -> u32 {
        match self {
            ElemType::U8 | ElemType::I8 => 1,
            ElemType::U16 | ElemType::I16 => 2,
            ElemType::U32 | ElemType::I32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::I64 | ElemType::F64 => 8,
        }
    }

    /// The name scenario files use (`u8` ... `f64`).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::I8 => "i8",
            ElemType::U16 => "u16",
            ElemType::I16 => "i16",
            ElemType::U32 => "u32",
            ElemType::I32 => "i32",
            ElemType::U64 => "u64",
            ElemType::I64 => "i64",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
        }
    }

    /// Floating point (`f32`, `f64`).
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F32 | ElemType::F64)
    }

    /// Signed integers.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64
        )
    }
}

/// A global buffer, laid out and initialised.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferSpec {
    pub name: String,
    pub ty: ElemType,
    /// Elements (`ty.size()` bytes each).
    pub len: u32,
    /// Base address: 256-aligned, buffers apart so that an overrun faults.
    pub base: u32,
    /// Initial contents, little-endian, [`BufferSpec::bytes`] bytes.
    pub init: Vec<u8>,
}

impl BufferSpec {
    /// Size in bytes: `len` elements of `ty.size()` bytes (saturating; a
    /// scenario bounds it far below `u32::MAX`).
    pub fn bytes(&self) -> u32 {
        self.len.saturating_mul(self.ty.size())
    }
}

/// Where a thread's initial value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InitTarget {
    Reg(u8),
    Pred(u8),
}

/// The coordinates of one thread of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadIds {
    /// Thread index in the grid.
    pub tid: u64,
    /// Lane within its warp.
    pub lane: u32,
    /// Global warp index.
    pub warp: u64,
    /// Block index.
    pub block: u64,
    /// Threads per block.
    pub ntid: u32,
    /// Threads in the grid.
    pub nthreads: u64,
}

/// The value a register or predicate starts with, as a function of the
/// thread. Asked once per thread when its block launches, so a grid of
/// millions of threads never holds a table of them.
pub trait ThreadInit: Send + Sync + fmt::Debug {
    /// The 32-bit value thread `ids` starts with (a predicate: nonzero is
    /// true).
    fn value(&self, ids: &ThreadIds) -> u32;

    /// The values of `out.len()` consecutive threads of one warp, the
    /// first `first` (each next one has the next `tid` and `lane`), as
    /// [`ThreadInit::value`] gives them; asked once per warp at launch. An
    /// implementation may work them out together.
    fn values(&self, first: &ThreadIds, out: &mut [u32]) {
        each_thread(self, first, out);
    }
}

/// [`ThreadInit::values`] one thread at a time, through
/// [`ThreadInit::value`].
pub fn each_thread<I: ThreadInit + ?Sized>(init: &I, first: &ThreadIds, out: &mut [u32]) {
    for (k, o) in (0u32..).zip(out.iter_mut()) {
        *o = init.value(&ThreadIds {
            tid: first.tid + u64::from(k),
            lane: first.lane + k,
            ..*first
        });
    }
}

/// One register or predicate every thread starts with.
#[derive(Debug, Clone)]
pub struct InitialValue {
    pub target: InitTarget,
    pub source: Arc<dyn ThreadInit>,
}

/// A program linked against its constant bank and a machine's latencies,
/// with everything a launch needs.
#[derive(Debug, Clone)]
pub struct Kernel {
    program: Program,
    code: Arc<[Decoded]>,
    constants: BTreeMap<u32, u32>,
    latency: Latency,
    launch: Launch,
    /// Shared with the scenario that built the kernel (and with the
    /// kernels linked for its other machines): the bytes are not copied.
    buffers: Arc<[BufferSpec]>,
    inits: Vec<InitialValue>,
    first_line: u32,
    local_bytes: u32,
}

impl Kernel {
    /// Links `program` against constant bank 0 (`constants`, byte offset
    /// to value) and the latencies of the machine it will run on, for a
    /// launch of `launch` with no buffers and every register zero.
    pub fn link(
        program: Program,
        constants: BTreeMap<u32, u32>,
        latency: &Latency,
        launch: Launch,
    ) -> Result<Kernel, AsmError> {
        let code = link(&program, &constants, latency)?.into();
        Ok(Kernel {
            program,
            code,
            constants,
            latency: *latency,
            launch,
            buffers: Arc::new([]),
            inits: Vec::new(),
            first_line: 1,
            local_bytes: DEFAULT_LOCAL_BYTES,
        })
    }

    /// Local memory per thread (`LDL`/`STL`), at most [`MAX_LOCAL_BYTES`]
    /// (more is clamped); a multiple of 16 (rounded up).
    pub fn with_local_bytes(mut self, bytes: u32) -> Kernel {
        self.local_bytes = bytes.min(MAX_LOCAL_BYTES).next_multiple_of(16);
        self
    }

    /// Local memory per thread in bytes: the stack pointer's start.
    pub fn local_bytes(&self) -> u32 {
        self.local_bytes
    }

    /// The global buffers, laid out at their base addresses.
    pub fn with_buffers(mut self, buffers: impl Into<Arc<[BufferSpec]>>) -> Kernel {
        self.buffers = buffers.into();
        self
    }

    /// Every thread starts with `source`'s value in `target`.
    pub fn with_init(mut self, target: InitTarget, source: Arc<dyn ThreadInit>) -> Kernel {
        self.inits.push(InitialValue { target, source });
        self
    }

    /// The line of the source text that holds the program's first line,
    /// so that messages name lines of that text.
    pub fn with_first_line(mut self, line: u32) -> Kernel {
        self.first_line = line.max(1);
        self
    }

    /// The program as assembled (text, lines, registers named).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The linked code, one entry per instruction.
    pub fn code(&self) -> &[Decoded] {
        &self.code
    }

    pub(crate) fn shared_code(&self) -> Arc<[Decoded]> {
        Arc::clone(&self.code)
    }

    /// Constant bank 0: byte offset to value.
    pub fn constants(&self) -> &BTreeMap<u32, u32> {
        &self.constants
    }

    /// The latencies the code was linked with.
    pub fn latency(&self) -> &Latency {
        &self.latency
    }

    /// The grid it is launched as.
    pub fn launch(&self) -> Launch {
        self.launch
    }

    /// The global buffers at launch.
    pub fn buffers(&self) -> &[BufferSpec] {
        &self.buffers
    }

    /// The registers and predicates each thread starts with (the rest
    /// start at zero).
    pub fn inits(&self) -> &[InitialValue] {
        &self.inits
    }

    /// The source line of program line 1.
    pub fn first_line(&self) -> u32 {
        self.first_line
    }

    /// The source line of program line `line`.
    pub fn source_line(&self, line: u32) -> u32 {
        self.first_line + line - 1
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::tests::{kernel_with, one_warp, two_warps};
    use crate::engine::{ConfigError, Machine};

    /// A register starting at `mul * tid + add` in every thread.
    #[derive(Debug)]
    struct Affine {
        mul: u64,
        add: u64,
    }

    impl ThreadInit for Affine {
        fn value(&self, ids: &ThreadIds) -> u32 {
            (self.mul * ids.tid + self.add) as u32
        }
    }

    /// Odd lanes of each warp.
    #[derive(Debug)]
    struct OddLane;

    impl ThreadInit for OddLane {
        fn value(&self, ids: &ThreadIds) -> u32 {
            ids.lane & 1
        }
    }

    #[test]
    fn each_thread_starts_with_the_values_its_kernel_gives() {
        // Two blocks of 32: thread tid = 32 x block + lane starts with
        // R1 = 3 x tid + 5 and P0 on odd lanes; the odd lanes add 1 to R1.
        let prog = "
        @P0 IADD3 R1, R1, 1, RZ
        EXIT
    ";
        let launch = Launch::linear(2, 32, 0);
        let sc = kernel_with(prog, |_| {}, launch, vec![]);
        let kernel = Kernel::clone(&sc.kernel)
            .with_init(InitTarget::Reg(1), Arc::new(Affine { mul: 3, add: 5 }))
            .with_init(InitTarget::Pred(0), Arc::new(OddLane));
        let mut m = Machine::new(sc.config.clone(), Arc::new(kernel)).expect("fits");
        m.set_keep_final_states(true);
        m.run().expect("runs");
        let states = m.final_states();
        assert_eq!(states.len(), 2);
        for s in states {
            for lane in 0..32u32 {
                let tid = 32 * s.warp + lane;
                let want = 3 * tid + 5 + (lane & 1);
                assert_eq!(
                    s.regs[(32 + lane) as usize],
                    want,
                    "warp {} lane {lane}",
                    s.warp
                );
            }
            // P0 holds on the odd lanes: 0xaaaa_aaaa.
            assert_eq!(s.preds[0], 0xaaaa_aaaa, "warp {}", s.warp);
        }
    }

    #[test]
    fn a_machine_is_refused_a_kernel_it_cannot_run() {
        let sc = kernel_with("EXIT\n", |_| {}, one_warp(), vec![]);
        // Linked for a global latency of 400, run with 300.
        let mut other = sc.config.clone();
        other.latency.global = 300;
        assert_eq!(
            Machine::new(other, Arc::clone(&sc.kernel)).err(),
            Some(ConfigError::LatencyMismatch)
        );
        // 64 threads of warps of 32 are 2 warps; the SM holds 1.
        let two = kernel_with("EXIT\n", |m| m.max_warps_per_sm = 1, two_warps(), vec![]);
        assert_eq!(
            Machine::new(two.config.clone(), Arc::clone(&two.kernel)).err(),
            Some(ConfigError::BlockTooLarge {
                warps: 2,
                max_warps_per_sm: 1
            })
        );
        // Lane masks are 64 bits: a warp of 65 lanes is out of range.
        let mut wide = sc.config.clone();
        wide.warp_width = 65;
        assert_eq!(
            Machine::new(wide, Arc::clone(&sc.kernel)).err(),
            Some(ConfigError::OutOfRange {
                field: "warp_width",
                value: 65,
                min: 1,
                max: 64,
                why: Some("32 is an NVIDIA warp, 64 an AMD wavefront; lane masks are 64 bits"),
            })
        );
        assert!(Machine::new(sc.config.clone(), Arc::clone(&sc.kernel)).is_ok());
    }
}
