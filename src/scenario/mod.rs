//! Scenario files: what a user writes to describe a machine, a launch, its
//! data and its program (`../shared/format.md` is the contract).
//!
//! Loading validates everything up front (keys, types, ranges, expressions,
//! the program itself), so a `Scenario` is always runnable; every error names
//! the file, line and column, the key, what was expected, and a hint.
//!
//! Loading goes: YAML into the serde structs of `raw` (unknown keys caught
//! there), then one module per section (`machine`, `memory`, `constants`,
//! `inputs`, `program`, `expect`) turning raw values into checked ones.

mod constants;
mod error;
mod expect;
mod inputs;
mod leaf;
mod load;
mod machine;
mod memory;
mod program;
mod raw;
mod values;

use std::collections::BTreeMap;

use crate::asm::Program;
use crate::expr::{Env, Expr, ThreadCtx};

pub use memory::{BUFFER_GAP, FIRST_BASE, MAX_MEMORY};

/// The convergence model of a scenario (`machine.convergence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Convergence {
    /// Pre-Volta SIMT reconvergence stack with IPDOM reconvergence.
    Stack,
    /// Volta+ independent thread scheduling with convergence barriers.
    Its,
}

/// Warp scheduling policy (`machine.policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Loose round robin: the next eligible warp after the last one issued.
    Lrr,
    /// Greedy then oldest: stay on a warp while it can issue.
    Gto,
}

/// Which group of an `its` warp issues (`machine.group_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupPolicy {
    /// Stay with the current group until it blocks (scoreboard, convergence
    /// barrier) or yields, then take the lowest-pc ready group.
    Sticky,
    /// Always take the lowest-pc ready group.
    LowestPc,
}

/// Latencies and pipe rates, in cycles (`machine.latency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latency {
    /// Fixed-latency integer and FP32 arithmetic.
    pub alu: u32,
    /// MUFU (short scoreboard).
    pub sfu: u32,
    /// LDS/STS/SHFL (short scoreboard).
    pub shared: u32,
    /// LDG/STG (long scoreboard).
    pub global: u32,
    /// Added to `global` per 128-byte line beyond the first.
    pub global_per_extra_line: u32,
    /// Extra cycles a taken branch costs.
    pub branch: u32,
    /// The MUFU pipe accepts one warp instruction per this many cycles per
    /// scheduler (`math_pipe_throttle` while busy).
    pub sfu_interval: u32,
    /// Cycles each extra shared-memory pass (bank-conflict replay) adds.
    pub shared_replay: u32,
    /// Cycles after issue at which a read barrier is released (the source
    /// operands of a store have been read).
    pub read_barrier: u32,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            alu: 4,
            sfu: 16,
            shared: 24,
            global: 400,
            global_per_extra_line: 8,
            branch: 0,
            sfu_interval: 2,
            shared_replay: 2,
            read_barrier: 2,
        }
    }
}

/// The simulated machine (`machine:`), every default applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineSpec {
    /// Lanes per warp, 1..=64.
    pub warp_width: u32,
    pub convergence: Convergence,
    /// `stack`: the taken side of a split runs first.
    pub taken_first: bool,
    /// Warp schedulers per SM.
    pub schedulers: u32,
    pub policy: Policy,
    pub group_policy: GroupPolicy,
    pub sms: u32,
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    /// Shared-memory banks of 4 bytes.
    pub shared_banks: u32,
    pub latency: Latency,
    /// A run still going at this cycle stops with an error.
    pub max_cycles: u64,
}

impl Default for MachineSpec {
    fn default() -> Self {
        MachineSpec {
            warp_width: 32,
            convergence: Convergence::Stack,
            taken_first: true,
            schedulers: 1,
            policy: Policy::Lrr,
            group_policy: GroupPolicy::Sticky,
            sms: 1,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 32,
            shared_banks: 32,
            latency: Latency::default(),
            max_cycles: 10_000_000,
        }
    }
}

/// The launch (`launch:`): `threads: n` is one block of `n` threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchSpec {
    pub blocks: u32,
    pub block_dim: u32,
    /// Shared memory per block in bytes (`launch.shared_bytes`, default 49152).
    pub shared_bytes: u32,
}

impl LaunchSpec {
    /// Threads in the grid.
    pub fn threads(&self) -> u64 {
        u64::from(self.blocks) * u64::from(self.block_dim)
    }

    /// The coordinates of grid thread `tid` with warps of `warp_width`
    /// lanes: warps never span blocks, so a block's last warp may be partial
    /// and global warp numbers count `ceil(block_dim / warp_width)` per block.
    pub fn thread_ctx(&self, tid: u64, warp_width: u32) -> ThreadCtx {
        let bd = u64::from(self.block_dim.max(1));
        let w = u64::from(warp_width.max(1));
        let block = tid / bd;
        let in_block = tid % bd;
        ThreadCtx {
            tid,
            lane: (in_block % w) as u32,
            warp: block * bd.div_ceil(w) + in_block / w,
            block,
            ntid: self.block_dim,
            nthreads: self.threads(),
        }
    }
}

/// Element type of a global buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElemType {
    U32,
    I32,
    F32,
}

/// A global buffer (`memory:`), laid out and initialised.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferSpec {
    pub name: String,
    pub ty: ElemType,
    /// Elements (4 bytes each).
    pub len: u32,
    /// Base address: 256-aligned, buffers apart so that an overrun faults.
    pub base: u32,
    /// Initial contents, little-endian, `len * 4` bytes.
    pub init: Vec<u8>,
}

/// Where an input value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InputTarget {
    Reg(u8),
    Pred(u8),
}

/// How each thread's value is produced.
#[derive(Debug, Clone, PartialEq)]
pub enum InputSource {
    /// Evaluated per thread.
    Expr(Expr),
    /// Thread `t` takes element `t % len` (already converted to bits;
    /// predicates are 0 or 1).
    List(Vec<u32>),
}

/// One entry of `inputs:`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputSpec {
    pub target: InputTarget,
    pub source: InputSource,
}

impl InputSpec {
    /// The 32-bit value thread `t` starts with (a predicate: 0 or 1).
    /// Loading has evaluated every thread once, so this cannot fail.
    pub fn value(&self, t: &ThreadCtx) -> u32 {
        match &self.source {
            InputSource::List(values) => {
                let len = values.len() as u64;
                t.tid
                    .checked_rem(len)
                    .and_then(|i| values.get(i as usize))
                    .copied()
                    .unwrap_or(0)
            }
            // Loading evaluated every distinct thread; an error here would
            // mean a thread outside the launch, which gets 0.
            InputSource::Expr(e) => match (e.eval(&Env::thread(t)), self.target) {
                (Ok(v), InputTarget::Reg(_)) => v.to_reg_bits(),
                (Ok(v), InputTarget::Pred(_)) => v.to_pred(),
                (Err(_), _) => 0,
            },
        }
    }
}

/// What an `expect:` entry requires of a report key.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// Equal within 0.0005.
    Equal(f64),
    /// The key is null (e.g. `branch_efficiency` without branches).
    Null,
    /// Inclusive bounds.
    Range { min: Option<f64>, max: Option<f64> },
}

/// One `expect:` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// Dotted report path: `simd_efficiency`, `memory.global_sectors`,
    /// `stalls.long_scoreboard`, `warps.0.issued`.
    pub key: String,
    pub check: Check,
    /// Where the key is written, for messages.
    pub line: u32,
    pub column: u32,
}

/// Where a scenario came from, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    File(String),
    Builtin(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File(p) => f.write_str(p),
            Origin::Builtin(n) => write!(f, "builtin:{n}"),
        }
    }
}

/// A loaded, validated scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub origin: Origin,
    /// The full YAML text, so a recording can carry it.
    pub source: String,
    pub version: u32,
    pub name: String,
    pub description: String,
    pub machine: MachineSpec,
    pub launch: LaunchSpec,
    /// Constant bank 0, byte offset to value. `0x0`, `0x4`, `0x8` hold the
    /// block dimensions and `0xc` the grid size unless the file gives them.
    pub constants: BTreeMap<u32, u32>,
    pub buffers: Vec<BufferSpec>,
    pub inputs: Vec<InputSpec>,
    /// The program text as written.
    pub program_text: String,
    pub program: Program,
    /// File line of the program's first line, and its indentation, so a
    /// program line maps back to the file.
    pub program_line: u32,
    pub program_indent: u32,
    pub expect: Vec<Expectation>,
}

/// An error loading a scenario: where, what, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// File path, or `builtin:NAME`.
    pub file: String,
    /// 1-based; 0 when the error has no position (a missing file).
    pub line: u32,
    pub column: u32,
    /// Length of the offending text, for the caret underline.
    pub len: u32,
    /// The key the error is about (`machine.warp_width`, `program`).
    pub key: Option<String>,
    pub message: String,
    pub expected: Option<String>,
    pub hint: Option<String>,
    /// The offending source line, for the snippet.
    pub source_line: Option<String>,
}

impl std::error::Error for LoadError {}

impl Scenario {
    /// Loads and validates a scenario file.
    pub fn from_file(path: &std::path::Path) -> Result<Scenario, LoadError> {
        let file = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| {
            LoadError::file_error(file.clone(), format!("cannot read `{file}`: {e}"))
        })?;
        match String::from_utf8(bytes) {
            Ok(text) => Scenario::from_text(&text, Origin::File(file)),
            Err(e) => {
                // Point at the first byte that is not UTF-8.
                let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let good = String::from_utf8_lossy(good);
                let line = good.matches('\n').count() as u32 + 1;
                let column = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
                let mut err =
                    LoadError::file_error(file.clone(), format!("`{file}` is not UTF-8 text"));
                err.line = line;
                err.column = column;
                err.len = 1;
                err.hint = Some("save the scenario as UTF-8".into());
                Err(err)
            }
        }
    }

    /// Loads and validates scenario text; `origin` names it in messages.
    pub fn from_text(text: &str, origin: Origin) -> Result<Scenario, LoadError> {
        load::load(text, origin)
    }

    /// Re-runs the assembler after `machine` changed (the derived stall
    /// counts depend on `machine.latency.alu`).
    pub fn reassemble(&mut self) -> Result<(), LoadError> {
        let src = error::SourceFile {
            file: self.origin.to_string(),
            text: &self.source,
        };
        let anchor = (self.program_line, self.program_indent);
        self.program =
            program::assemble(&src, &self.program_text, self.machine.latency.alu, anchor)?;
        Ok(())
    }

    /// The range checks of `machine:` and `launch:`, and whether a block
    /// fits on an SM, for a machine changed after loading (command-line
    /// overrides). The message names the key.
    pub fn validate_machine(&self) -> Result<(), String> {
        machine::check(&self.machine, &self.launch)
    }

    /// Warps per block.
    pub fn warps_per_block(&self) -> u32 {
        self.launch
            .block_dim
            .div_ceil(self.machine.warp_width.max(1))
    }

    /// The coordinates of grid thread `tid` (see [`LaunchSpec::thread_ctx`]).
    pub fn thread_ctx(&self, tid: u64) -> ThreadCtx {
        self.launch.thread_ctx(tid, self.machine.warp_width)
    }
}

#[cfg(test)]
mod tests;
