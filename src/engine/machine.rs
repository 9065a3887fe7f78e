//! The facade: [`Machine`], the only door into a running simulation, and
//! the state it keeps between cycles.

use std::sync::Arc;

use super::config::{ConfigError, GroupPolicy, Latency, MachineConfig, Policy};
use super::exec::Scratch;
use super::kernel::Kernel;
use super::link::Decoded;
use super::memory::GlobalMemory;
use super::records::{ChunkLog, Fault, FinalState, Hazard, IssueRecord, RunError, WarpRecord};
use super::sm::{SchedState, Sm};
use super::stats::{Counters, MemoryCounters, PcCounters};
use super::warp::Warp;

/// What never changes during a run: the kernel, its linked code and the
/// machine's settings.
#[derive(Debug, Clone)]
pub(crate) struct Shared {
    pub(crate) kernel: Arc<Kernel>,
    pub(crate) code: Arc<[Decoded]>,
    /// The numbers the cycle loop reads, kept beside the machine state
    /// instead of behind the kernel's pointer.
    pub(crate) cfg: Cfg,
    pub(crate) config: MachineConfig,
}

/// Copies of the machine and launch settings read every cycle.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cfg {
    pub(crate) max_cycles: u64,
    pub(crate) blocks: u32,
    pub(crate) block_dim: u32,
    pub(crate) warps_per_block: u32,
    pub(crate) max_blocks_per_sm: u32,
    pub(crate) policy: Policy,
    pub(crate) group_policy: GroupPolicy,
    pub(crate) taken_first: bool,
    /// Warps reconverge under `its` (independent thread scheduling).
    pub(crate) its: bool,
    pub(crate) latency: Latency,
    pub(crate) shared_banks: u32,
    /// Block and grid dimensions, x, y, z.
    pub(crate) block_dim3: [u32; 3],
    pub(crate) grid_dim3: [u32; 3],
    /// The program is a listing: global `[Rn.64]` addresses are 64-bit.
    pub(crate) wide_addresses: bool,
    /// Shared address of a block's first byte (0x400 from sm_90 on).
    pub(crate) shared_base: u32,
    /// Local memory per thread in bytes.
    pub(crate) local_bytes: u32,
}

impl Cfg {
    fn of(m: &MachineConfig, k: &Kernel) -> Cfg {
        let launch = k.launch();
        Cfg {
            max_cycles: m.max_cycles,
            blocks: launch.blocks,
            block_dim: launch.block_dim,
            warps_per_block: m.warps_per_block(launch.block_dim),
            max_blocks_per_sm: m.max_blocks_per_sm,
            policy: m.policy,
            group_policy: m.group_policy,
            taken_first: m.taken_first,
            its: m.convergence == super::config::Convergence::Its,
            latency: m.latency,
            shared_banks: m.shared_banks,
            block_dim3: launch.block_xyz(),
            grid_dim3: launch.grid_xyz(),
            wide_addresses: k.program().arch.is_some(),
            shared_base: match k.program().arch {
                Some(sm) if sm >= 90 => super::kernel::SHARED_RESERVED_SM90,
                _ => 0,
            },
            local_bytes: k.local_bytes(),
        }
    }
}

/// The simulated GPU: SMs, memory, counters.
#[derive(Debug, Clone)]
pub struct Machine {
    pub(crate) sh: Shared,
    pub(crate) st: State,
}

/// The parts of [`State`] issuing touches besides the issuing SM,
/// borrowed apart from it.
pub(crate) struct Issuing<'a> {
    pub(crate) pcs: &'a mut [PcCounters],
    pub(crate) global: &'a mut GlobalMemory,
    pub(crate) scratch: &'a mut Scratch,
    pub(crate) memory: &'a mut MemoryCounters,
    pub(crate) faults: &'a mut Vec<Fault>,
    pub(crate) faults_total: &'a mut u64,
    pub(crate) hazards: &'a mut Vec<Hazard>,
    pub(crate) issues: &'a mut Vec<IssueRecord>,
    pub(crate) error: &'a mut Option<RunError>,
    pub(crate) retire_due: &'a mut bool,
    pub(crate) record_issues: bool,
}

/// Everything a cycle changes.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub(crate) width: u32,
    pub(crate) cycle: u64,
    pub(crate) sms: Vec<Sm>,
    pub(crate) global: GlobalMemory,
    pub(crate) next_block: u32,
    pub(crate) next_age: u64,
    pub(crate) retired: Counters,
    pub(crate) records: ChunkLog<WarpRecord>,
    pub(crate) pcs: Vec<PcCounters>,
    pub(crate) memory: MemoryCounters,
    pub(crate) faults: Vec<Fault>,
    pub(crate) faults_total: u64,
    pub(crate) hazards: Vec<Hazard>,
    pub(crate) issues: Vec<IssueRecord>,
    pub(crate) error: Option<RunError>,
    pub(crate) finished: bool,
    pub(crate) check_hazards: bool,
    /// Slots were freed (or nothing dispatched yet): try to dispatch.
    pub(crate) dispatch_due: bool,
    /// A warp finished: look for finished blocks.
    pub(crate) retire_due: bool,
    /// Keep each retired warp's registers (see [`FinalState`]).
    pub(crate) keep_final: bool,
    /// Record what issued each cycle (for steppers; a headless run needs
    /// only the counters).
    pub(crate) record_issues: bool,
    pub(crate) finals: Vec<FinalState>,
    pub(crate) scratch: Scratch,
}

impl State {
    /// A machine at cycle 0 with nothing dispatched and nothing counted:
    /// `sms`, `global`, counters for `pcs` instructions.
    pub(crate) fn new(
        width: u32,
        sms: Vec<Sm>,
        global: GlobalMemory,
        pcs: usize,
        check_hazards: bool,
    ) -> State {
        State {
            width,
            global,
            pcs: vec![PcCounters::default(); pcs],
            cycle: 0,
            sms,
            next_block: 0,
            next_age: 0,
            retired: Counters::default(),
            records: ChunkLog::default(),
            memory: MemoryCounters::default(),
            faults: Vec::new(),
            faults_total: 0,
            hazards: Vec::new(),
            issues: Vec::new(),
            error: None,
            finished: false,
            check_hazards,
            dispatch_due: true,
            retire_due: false,
            keep_final: false,
            record_issues: true,
            finals: Vec::new(),
            scratch: Scratch::default(),
        }
    }
}

impl Machine {
    /// Builds machine `config` with `kernel` launched, at cycle 0. The
    /// kernel is not linked again: its code must have been linked with
    /// the machine's latencies.
    pub fn new(config: MachineConfig, kernel: Arc<Kernel>) -> Result<Machine, ConfigError> {
        config.validate()?;
        if *kernel.latency() != config.latency {
            return Err(ConfigError::LatencyMismatch);
        }
        let warps = config.warps_per_block(kernel.launch().block_dim);
        if warps > config.max_warps_per_sm {
            return Err(ConfigError::BlockTooLarge {
                warps,
                max_warps_per_sm: config.max_warps_per_sm,
            });
        }
        let m = &config;
        let code = kernel.shared_code();
        let sms = (0..m.sms)
            .map(|i| Sm::new(i, m.max_warps_per_sm, m.schedulers))
            .collect();
        let check_hazards = kernel.program().instrs.iter().any(|i| i.explicit_control);
        Ok(Machine {
            st: State::new(
                m.warp_width,
                sms,
                GlobalMemory::new(kernel.buffers()),
                code.len(),
                check_hazards,
            ),
            sh: Shared {
                code,
                cfg: Cfg::of(&config, &kernel),
                kernel,
                config,
            },
        })
    }

    /// Whether [`Machine::issues`] is kept up to date (on by default; a
    /// headless run that only wants the counters turns it off).
    pub fn set_record_issues(&mut self, on: bool) {
        self.st.record_issues = on;
    }

    /// Keeps every retired warp's registers for [`Machine::final_states`].
    pub fn set_keep_final_states(&mut self, on: bool) {
        self.st.keep_final = on;
    }

    /// Registers and lane masks of the warps that left their SM (when kept),
    /// by warp index.
    pub fn final_states(&self) -> Vec<&FinalState> {
        let mut v: Vec<&FinalState> = self.st.finals.iter().collect();
        v.sort_by_key(|f| f.warp);
        v
    }

    /// Checks every dependence at issue, also for derived control codes
    /// (they are on by default only when the program wrote its own).
    pub fn set_hazard_checks(&mut self, on: bool) {
        self.st.check_hazards = on;
    }

    /// The machine's settings.
    pub fn config(&self) -> &MachineConfig {
        &self.sh.config
    }

    /// The kernel it runs.
    pub fn kernel(&self) -> &Kernel {
        &self.sh.kernel
    }

    /// The linked code, one entry per instruction.
    pub fn code(&self) -> &[Decoded] {
        &self.sh.code
    }

    /// Cycles simulated so far.
    pub fn cycle(&self) -> u64 {
        self.st.cycle
    }

    pub fn width(&self) -> u32 {
        self.st.width
    }

    /// Every block ran to completion.
    pub fn finished(&self) -> bool {
        self.st.finished
    }

    /// Why the run stopped early, if it did.
    pub fn error(&self) -> Option<&RunError> {
        self.st.error.as_ref()
    }

    /// Finished or stopped: stepping does nothing more.
    pub fn halted(&self) -> bool {
        self.st.finished || self.st.error.is_some()
    }

    /// The contents of global buffer `name`, little-endian.
    pub fn buffer(&self, name: &str) -> Option<Vec<u8>> {
        self.st.global.buffer(name)
    }

    /// The word at global address `addr`, if a buffer holds it.
    pub fn global_word(&self, addr: u32) -> Option<u32> {
        self.st.global.word(addr)
    }

    /// The buffer holding global address `addr`, and the offset in it.
    pub fn buffer_at(&self, addr: u32) -> Option<(&str, u32)> {
        self.st.global.buffer_at(addr)
    }

    pub fn faults(&self) -> &[Fault] {
        &self.st.faults
    }

    pub fn faults_total(&self) -> u64 {
        self.st.faults_total
    }

    pub fn hazards(&self) -> &[Hazard] {
        &self.st.hazards
    }

    /// What each scheduler issued in the last simulated cycle.
    pub fn issues(&self) -> &[IssueRecord] {
        &self.st.issues
    }

    pub fn memory_counters(&self) -> MemoryCounters {
        self.st.memory
    }

    /// Blocks not yet dispatched.
    pub fn blocks_waiting(&self) -> u32 {
        self.sh.cfg.blocks - self.st.next_block
    }

    /// Warps launched so far.
    pub fn warps_launched(&self) -> u64 {
        u64::from(self.st.next_block) * u64::from(self.sh.cfg.warps_per_block)
    }

    /// Warps on SMs now, each with its scheduler's state.
    pub(crate) fn resident_with_scheduler(&self) -> impl Iterator<Item = (&Warp, &SchedState)> {
        self.st.sms.iter().flat_map(|sm| {
            sm.slots
                .iter()
                .filter_map(|w| w.as_deref())
                .map(|w| (w, &sm.sched[w.scheduler as usize]))
        })
    }

    /// Run totals, the open stall intervals of resident warps included.
    pub fn totals(&self) -> Counters {
        let mut c = self.st.retired;
        for (w, pipe) in self.resident_with_scheduler() {
            c.merge(&w.counters_at(self.st.cycle, pipe));
        }
        c
    }

    /// Per-warp counters, retired and resident, by warp index.
    pub fn warp_records(&self) -> Vec<WarpRecord> {
        let mut v: Vec<WarpRecord> = self.st.records.iter().copied().collect();
        v.extend(self.resident_with_scheduler().map(|(w, pipe)| WarpRecord {
            warp: w.gid,
            block: w.block,
            counters: w.counters_at(self.st.cycle, pipe),
            resident_cycles: self.st.cycle - w.dispatched_at,
        }));
        v.sort_by_key(|r| r.warp);
        v
    }

    /// Per-instruction counters, open stall intervals included.
    pub fn pc_counters(&self) -> Vec<PcCounters> {
        let mut v = self.st.pcs.clone();
        for (w, pipe) in self.resident_with_scheduler() {
            let (pc, parts) = w.open(self.st.cycle, pipe);
            if let Some(p) = pc.and_then(|pc| v.get_mut(pc as usize)) {
                for (reason, _, n) in parts {
                    p.stalls.add(reason, n);
                }
            }
        }
        v
    }

    /// Runs to completion, skipping cycles in which nothing can happen.
    pub fn run(&mut self) -> Result<(), RunError> {
        self.st.run(&self.sh)
    }

    /// [`Machine::run`] with the SMs simulated on up to `jobs` threads
    /// where the run allows it: the same state, byte for byte, for any
    /// `jobs`. A machine that records its issues or checks explicit control
    /// codes, or has one SM, runs serially; so does one whose SMs share
    /// global memory (a byte one SM writes that another reads or writes) or
    /// that stops on an error, after the split run finds it.
    pub fn run_jobs(&mut self, jobs: usize) -> Result<(), RunError> {
        self.st.run_jobs(&self.sh, jobs)
    }

    /// The split run of [`Machine::run_jobs`] alone: true when it stood
    /// (the machine finished); false, leaving the machine as it was, when
    /// it must run serially. `progress` is called on this thread now and
    /// then with the cycle every SM has reached.
    pub fn run_split(&mut self, jobs: usize, progress: &mut dyn FnMut(u64)) -> bool {
        self.st.run_split(&self.sh, jobs, progress)
    }

    /// Steps until cycle `target` (or the end), skipping idle cycles.
    pub fn run_until(&mut self, target: u64) {
        self.st.run_until(&self.sh, target)
    }

    /// Simulates exactly one cycle. Returns false, doing nothing, once the
    /// run finished or stopped.
    pub fn step(&mut self) -> bool {
        self.st.step(&self.sh)
    }
}
