//! Scenario files: what a user writes to describe a machine, a launch, its
//! data and its program (`docs/scenario-format.md` is the contract).
//!
//! Loading validates everything up front (keys, types, ranges, expressions,
//! the program itself), so a `Scenario` is always runnable; every error names
//! the file, line and column, the key, what was expected, and a hint.
//!
//! Loading goes: YAML into the serde structs of `raw` (unknown keys caught
//! there), then one module per section (`machine`, `memory`, `constants`,
//! `inputs`, `program`, `expect`) turning raw values into checked ones.

mod args;
pub mod budget;
mod constants;
mod cuda;
mod error;
mod expect;
pub mod file;
mod inputs;
mod leaf;
mod load;
mod machine;
mod memory;
mod program;
mod raw;
pub mod source;
pub mod tour;
mod values;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::asm::Program;
use crate::engine::{ConfigError, Kernel, Launch, Machine, MachineConfig, ThreadIds, ThreadInit};
use crate::expr::{Env, Expr, ThreadCtx, Var};

pub use cuda::{CompiledNote, CudaSource};
pub use memory::{BUFFER_GAP, FIRST_BASE, MAX_MEMORY};
pub use tour::{TourAction, TourFocus, TourGoal, TourPane, TourStep};

/// The simulated machine (`machine:`), every default applied: the engine's
/// own settings, which a scenario builds.
pub use crate::engine::MachineConfig as MachineSpec;
pub use crate::engine::{Convergence, GroupPolicy, Latency, Policy};

/// The launch (`launch:`): `threads: n` is one block of `n` threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchSpec {
    pub blocks: u32,
    pub block_dim: u32,
    /// Shared memory per block in bytes (`launch.shared_bytes`, default 49152).
    pub shared_bytes: u32,
    /// A 2-D or 3-D block's x, y, z (`block_dim: [32, 8]`); `None` for a
    /// number. `block_dim` is always the product.
    pub block_shape: Option<crate::engine::Dim3>,
    /// A 2-D or 3-D grid's x, y, z (`blocks: [4, 4]`); `None` for a number.
    pub grid_shape: Option<crate::engine::Dim3>,
}

impl From<LaunchSpec> for Launch {
    fn from(l: LaunchSpec) -> Launch {
        Launch {
            blocks: l.blocks,
            block_dim: l.block_dim,
            shared_bytes: l.shared_bytes,
            block_shape: l.block_shape,
            grid_shape: l.grid_shape,
        }
    }
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

/// A global buffer (`memory:`), laid out and initialised, and its element
/// type; where an input value goes (`inputs:`).
pub use crate::engine::{BufferSpec, ElemType, InitTarget as InputTarget};

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

/// The engine asks each thread's value when its block launches.
impl ThreadInit for InputSpec {
    fn value(&self, ids: &ThreadIds) -> u32 {
        InputSpec::value(
            self,
            &ThreadCtx {
                tid: ids.tid,
                lane: ids.lane,
                warp: ids.warp,
                block: ids.block,
                ntid: ids.ntid,
                nthreads: ids.nthreads,
            },
        )
    }

    /// A chain that cannot fail (`Expr::eval_run`) goes step by step over
    /// the warp's threads, whose `tid` and `lane` advance together.
    fn values(&self, first: &ThreadIds, out: &mut [u32]) {
        let mut run = [0u64; 64];
        let run = &mut run[..out.len().min(64)];
        let kind = match &self.source {
            InputSource::Expr(e) => {
                let ctx = ThreadCtx {
                    tid: first.tid,
                    lane: first.lane,
                    warp: first.warp,
                    block: first.block,
                    ntid: first.ntid,
                    nthreads: first.nthreads,
                };
                e.eval_run(&Env::thread(&ctx), &[Var::Tid, Var::Lane], run)
            }
            InputSource::List(_) => None,
        };
        let Some(kind) = kind.filter(|_| run.len() == out.len()) else {
            crate::engine::each_thread(self, first, out);
            return;
        };
        for (o, &b) in out.iter_mut().zip(run.iter()) {
            let v = kind.value(b);
            *o = match self.target {
                InputTarget::Reg(_) => v.to_reg_bits(),
                InputTarget::Pred(_) => v.to_pred(),
            };
        }
    }
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
    /// A list of that many numbers, each equal within 0.0005 (a whole
    /// buffer: `buffers.out: [1, 2, 3]`).
    List(Vec<f64>),
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
#[derive(Debug, Clone)]
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
    pub buffers: Arc<[BufferSpec]>,
    pub inputs: Vec<InputSpec>,
    /// The program text as written.
    pub program_text: String,
    pub program: Program,
    /// What a program given as a listing keeps of it (its kernel,
    /// architecture, where the control codes came from); `None` for a
    /// hand-written program.
    pub listing: Option<crate::asm::listing::ListingInfo>,
    /// Pcs to CUDA source lines, from a listing's line table (`nvdisasm
    /// -g`); `None` without one. The source text is set through
    /// [`source::SourceMap::set_text`] from what the scenario holds.
    pub source_map: Option<source::SourceMap>,
    /// `kernel:` and `arch:`, for [`Scenario::reassemble`].
    selection: program::Selection,
    /// File line of the program's first line, and its indentation, so a
    /// program line maps back to the file.
    pub program_line: u32,
    pub program_indent: u32,
    pub expect: Vec<Expectation>,
    /// The guided walk through the run (`tour:`), in order; empty without
    /// one.
    pub tour: Vec<TourStep>,
    /// The CUDA C source (`cuda:`), for display beside the program: the
    /// source the listing was compiled from, or that `program:` holds
    /// the listing of.
    pub cuda: Option<CudaSource>,
    /// What loading found that does not stop the scenario (a `program:`
    /// that no longer matches its `cuda:`); `check` prints them, the other
    /// commands write them to standard error.
    pub warnings: Vec<String>,
    /// The convergence model and policy as loaded, so that a recording can
    /// tell what the command line changed ([`Scenario::model_overrides`]).
    loaded_model: (Convergence, Policy),
    /// The program linked for `machine`, with the launch, buffers and
    /// inputs: built when loading and by [`Scenario::reassemble`].
    kernel: Arc<Kernel>,
}

/// The kernel is built from the other fields, so they decide equality.
impl PartialEq for Scenario {
    fn eq(&self, o: &Scenario) -> bool {
        self.origin == o.origin
            && self.source == o.source
            && self.version == o.version
            && self.name == o.name
            && self.description == o.description
            && self.machine == o.machine
            && self.launch == o.launch
            && self.constants == o.constants
            && self.buffers == o.buffers
            && self.inputs == o.inputs
            && self.program_text == o.program_text
            && self.program == o.program
            && self.program_line == o.program_line
            && self.program_indent == o.program_indent
            && self.expect == o.expect
            && self.tour == o.tour
            && self.cuda == o.cuda
    }
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
    /// Further errors found in the same pass (every error of a listing's
    /// program), shown after this one.
    pub also: Vec<LoadError>,
}

impl std::error::Error for LoadError {}

/// Loads from now on treat scenario text as written by someone else (a
/// cast's header, for `replay`): `cuda:` without `program:` is refused
/// instead of compiled, and `cuda: {file:}` is not read. One value for the
/// process, set before loading.
pub fn set_foreign(on: bool) {
    cuda::set_foreign(on);
}

impl Scenario {
    /// Loads and validates a scenario file.
    pub fn from_file(path: &std::path::Path) -> Result<Scenario, LoadError> {
        let file = path.display().to_string();
        let bytes = file::read_bounded(path, file::MAX_FILE_BYTES).map_err(|e| {
            let budget = matches!(e, file::ReadError::TooLarge { .. });
            let mut err = LoadError::file_error(file.clone(), format!("cannot read `{file}`: {e}"));
            if budget {
                err.hint = Some(
                    "split the scenario, or keep large data out of it (see Budgets in the README)"
                        .into(),
                );
            }
            err
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

    /// Re-runs the assembler and links again after `machine` changed (the
    /// derived stall counts depend on `machine.latency.alu`, the linked
    /// code carries every latency). Latencies the kernel was linked with
    /// need neither: the program is linked once per set of latencies.
    pub fn reassemble(&mut self) -> Result<(), LoadError> {
        if *self.kernel.latency() == self.machine.latency {
            return Ok(());
        }
        let src = error::SourceFile {
            file: self.origin.to_string(),
            text: &self.source,
        };
        let anchor = (self.program_line, self.program_indent);
        let (p, listing) = program::assemble(
            &src,
            &self.program_text,
            self.machine.latency.alu,
            anchor,
            &self.selection,
        )?;
        self.program = p;
        self.listing = listing;
        let kernel = load::kernel(
            &src,
            &self.program,
            &self.program_text,
            anchor,
            &self.machine,
            &self.launch,
            &self.constants,
            &self.buffers,
            &self.inputs,
        )?;
        self.kernel = Arc::new(kernel);
        Ok(())
    }

    /// Sets the convergence model and the scheduling policy (the command
    /// line's `--convergence` and `--policy`), checks the machine and
    /// relinks.
    pub fn set_model(
        &mut self,
        convergence: Option<Convergence>,
        policy: Option<Policy>,
    ) -> Result<(), LoadError> {
        if let Some(c) = convergence {
            self.machine.convergence = c;
        }
        if let Some(p) = policy {
            self.machine.policy = p;
        }
        self.validate_machine()
            .map_err(|m| LoadError::file_error(self.origin.to_string(), m))?;
        self.reassemble()
    }

    /// The convergence model and policy where they differ from what the
    /// file loads to: what a recording carries besides the file.
    pub fn model_overrides(&self) -> (Option<Convergence>, Option<Policy>) {
        let (c, p) = self.loaded_model;
        (
            (self.machine.convergence != c).then_some(self.machine.convergence),
            (self.machine.policy != p).then_some(self.machine.policy),
        )
    }

    /// The range checks of `machine:` and `launch:`, and whether a block
    /// fits on an SM, for a machine changed after loading (command-line
    /// overrides). The message names the key.
    pub fn validate_machine(&self) -> Result<(), String> {
        machine::check(&self.machine, &self.launch)?;
        // A narrower warp or a longer program means more warps to keep.
        let need = self.footprint();
        match budget::over_budget(need.engine, "the launch on this machine") {
            Some(m) => Err(format!("{m}; raise it with `--memory-limit`")),
            None => Ok(()),
        }
    }

    /// Refuses stepping through a launch whose footprint in the stepper
    /// (the machine and its checkpoints, [`budget::Footprint::stepper`])
    /// is above the memory budget, at the `launch:` key. The stepper,
    /// `record` and `replay` check it before building a session; `run`
    /// keeps no checkpoints and needs only [`budget::Footprint::engine`].
    pub fn check_stepper_budget(&self) -> Result<(), LoadError> {
        let need = self.footprint().stepper;
        let Some(message) = budget::over_budget(
            need,
            "stepping through the launch (the machine and its checkpoints)",
        ) else {
            return Ok(());
        };
        let mut e = LoadError::file_error(self.origin.to_string(), message);
        if let Some(n) = self.source.lines().position(|l| l.starts_with("launch:")) {
            e.line = n as u32 + 1;
            e.column = 1;
            e.len = "launch".len() as u32;
            e.key = Some("launch".into());
            e.source_line = self.source.lines().nth(n).map(str::to_string);
        }
        e.expected = Some(format!(
            "at most {} (`--memory-limit`)",
            budget::human(budget::memory_limit())
        ));
        e.hint = Some(format!(
            "`warpstep run` keeps no checkpoints and needs about {}; or launch fewer threads, \
             or raise the budget with `--memory-limit`",
            budget::human(self.footprint().engine)
        ));
        Err(e)
    }

    /// The simulator memory the scenario's launch is expected to need.
    pub fn footprint(&self) -> budget::Footprint {
        budget::footprint(
            &self.machine,
            &self.launch,
            &self.buffers,
            self.program.instrs.len(),
        )
    }

    /// The machine the scenario describes.
    pub fn config(&self) -> &MachineConfig {
        &self.machine
    }

    /// The scenario's program, linked for its machine, with its launch,
    /// buffers and inputs.
    pub fn kernel(&self) -> &Arc<Kernel> {
        &self.kernel
    }

    /// A machine at cycle 0 running the scenario: `Machine::new` of
    /// [`Scenario::config`] and [`Scenario::kernel`]. Fails only when
    /// `machine` was changed after loading without
    /// [`Scenario::validate_machine`] and [`Scenario::reassemble`].
    pub fn new_machine(&self) -> Result<Machine, ConfigError> {
        Machine::new(self.machine.clone(), Arc::clone(&self.kernel))
    }

    /// Warps per block.
    pub fn warps_per_block(&self) -> u32 {
        self.machine.warps_per_block(self.launch.block_dim)
    }

    /// The coordinates of grid thread `tid` (see [`LaunchSpec::thread_ctx`]).
    pub fn thread_ctx(&self, tid: u64) -> ThreadCtx {
        self.launch.thread_ctx(tid, self.machine.warp_width)
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_launch;
