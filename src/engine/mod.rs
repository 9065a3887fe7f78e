//! The cycle-level SM model.
//!
//! [`Machine`] is the only door in: build it from a scenario, call
//! [`Machine::step`] to simulate exactly one cycle (one issue slot per warp
//! scheduler), or [`Machine::run`] to finish. The state is a plain value:
//! cloning a machine is a checkpoint, and stepping a clone forward gives
//! the same cycles, counters and memory as stepping the original.
//!
//! Per cycle, on each SM: blocks are dispatched into free warp slots, warps
//! whose wake-up time has come are re-evaluated (eligible, or blocked with a
//! reason until a known cycle), then each scheduler picks one eligible warp
//! by its policy and issues its next instruction. Instructions execute
//! functionally at issue; their latency only decides when dependent
//! instructions may issue (stall counts and scoreboards), which is all a
//! scheduler sees. Stall reasons are charged lazily: a warp's status holds
//! the cycle it started, and the time is counted when the status changes.

pub mod convergence;
pub mod exec;
pub mod memory;
pub mod scoreboard;
pub mod sm;
pub mod stats;
pub mod view;
pub mod warp;

use std::fmt;
use std::sync::Arc;

use crate::asm::AsmError;
use crate::asm::ir::{Class, EXIT_PC, Instr, Op, PRED_BASE, Program, Src};
use crate::expr::ThreadCtx;
use crate::scenario::{Convergence as Model, GroupPolicy, InputTarget, Latency, Scenario};

use convergence::{Convergence, ItsState, LaneWait, SimtStack};
use exec::{Env, MemEffect, MemEnv, Scratch};
use memory::{FaultKind, GlobalMemory, SharedMemory};
use scoreboard::Producer;
use sm::{ResidentBlock, Sm, Wheel};
use stats::{Counters, MemoryCounters, PcCounters, Reason};
use warp::{Status, Warp, lane_mask};

/// An instruction ready to execute: constants resolved, facts precomputed.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub instr: Instr,
    /// The fixed latency of its class on this machine (a memory access
    /// adds its replays at issue).
    pub latency: u32,
    /// Cycles until its read barrier (if it sets one) clears.
    pub read_latency: u32,
    /// Cycles the MUFU pipe takes before its next instruction, if this is
    /// a MUFU. (Carried per instruction, not read from the machine's
    /// latencies at issue: `t +` a constant is worked out every cycle, in
    /// case it is needed, and kept on the stack.)
    pub pipe_interval: u32,
    /// High word of a 64-bit constant addend (`IMAD.WIDE`).
    pub c_hi: u32,
    /// Reconvergence pc of a divergent branch here (`stack`).
    pub reconv: u32,
    pub is_mufu: bool,
    /// Uses the SM's shared load/store pipe (one instruction per cycle).
    pub uses_lsu: bool,
}

/// Resolves `c[0x0][off]` operands against the constant bank. An offset
/// that is not set is an error, except the high word of a 64-bit value
/// whose low word is set (it reads zero: warpstep addresses are 32-bit).
/// Each instruction takes its class's latency from `lat`.
pub fn link(
    program: &Program,
    constants: &std::collections::BTreeMap<u32, u32>,
    lat: &Latency,
) -> Result<Vec<Decoded>, AsmError> {
    let lookup = |ins: &Instr, bank: u8, offset: u32| -> Result<u32, AsmError> {
        let col = ins.text.find("c[").map_or(ins.column, |i| {
            ins.column + ins.text[..i].chars().count() as u32
        });
        if bank != 0 {
            return Err(AsmError {
                line: ins.line,
                column: col,
                len: 5,
                message: format!("constant bank {bank} is not modelled"),
                expected: Some("c[0x0][offset]".into()),
                hint: Some("put the value in bank 0 under `constants:`".into()),
            });
        }
        if let Some(v) = constants.get(&offset) {
            return Ok(*v);
        }
        if offset >= 4 && constants.contains_key(&(offset - 4)) {
            return Ok(0);
        }
        Err(AsmError {
            line: ins.line,
            column: col,
            len: 5,
            message: format!("c[0x0][{offset:#x}] is not set"),
            expected: Some("a constant the scenario defines".into()),
            hint: Some(format!("add `{offset:#x}: VALUE` under `constants:`")),
        })
    };
    let mut out = Vec::with_capacity(program.instrs.len());
    for (pc, ins) in program.instrs.iter().enumerate() {
        let mut resolved = ins.clone();
        let mut c_hi = 0;
        let mut fix = |s: &mut Src, wide: bool| -> Result<(), AsmError> {
            if let Src::Const { bank, offset } = *s {
                *s = Src::Imm(lookup(ins, bank, offset)?);
                if wide {
                    c_hi = constants.get(&(offset + 4)).copied().unwrap_or(0);
                }
            }
            Ok(())
        };
        // Every value operand, from the opcode table; IMAD.WIDE's addend
        // (its third) is 64-bit.
        let wide = matches!(
            resolved.op,
            Op::Imad {
                mode: crate::asm::ir::MulMode::Wide,
                ..
            }
        );
        resolved
            .op
            .try_for_each_src_mut(|i, s| fix(s, wide && i == 2))?;
        out.push(Decoded {
            latency: match resolved.class {
                Class::Alu | Class::Control => lat.alu,
                Class::Sfu => lat.sfu,
                Class::Shared => lat.shared,
                Class::Global => lat.global,
            },
            read_latency: lat.read_barrier.max(1),
            pipe_interval: lat.sfu_interval.max(1),
            is_mufu: matches!(resolved.op, Op::Mufu { .. }),
            uses_lsu: matches!(resolved.class, Class::Shared | Class::Global),
            reconv: program.reconvergence.get(pc).copied().unwrap_or(EXIT_PC),
            c_hi,
            instr: resolved,
        });
    }
    Ok(out)
}

/// A lane that faulted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub warp: u32,
    pub lane: u32,
    pub pc: u32,
    /// Program line.
    pub line: u32,
    pub address: u32,
    pub kind: FaultKind,
    pub cycle: u64,
}

/// How a hazard breaks a dependence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HazardKind {
    /// Read before the producer's result landed.
    ReadAfterWrite,
    /// Overwritten while a store still reads it.
    WriteAfterRead,
    /// Overwritten, then clobbered by an older, slower write.
    WriteAfterWrite,
}

impl HazardKind {
    pub fn name(self) -> &'static str {
        match self {
            HazardKind::ReadAfterWrite => "read_after_write",
            HazardKind::WriteAfterRead => "write_after_read",
            HazardKind::WriteAfterWrite => "write_after_write",
        }
    }
}

/// Explicit control codes that let an instruction touch a register before
/// a dependence was satisfied (first occurrence per pc, register, kind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    pub warp: u32,
    pub lane: u32,
    pub pc: u32,
    pub line: u32,
    /// `R3` or `P0`.
    pub register: String,
    pub kind: HazardKind,
    /// Cycles too early.
    pub early_by: u64,
    pub cycle: u64,
    /// Times it happened.
    pub count: u64,
}

/// Why a run stopped before finishing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// `machine.max_cycles` reached.
    MaxCycles { limit: u64 },
    /// Nothing can ever issue again.
    Deadlock { cycle: u64, detail: String },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::MaxCycles { limit } => write!(
                f,
                "the run did not finish within max_cycles ({limit}); raise `machine.max_cycles` \
                 or look for a loop that never ends"
            ),
            RunError::Deadlock { cycle, detail } => {
                write!(f, "deadlock at cycle {cycle}: {detail}")
            }
        }
    }
}

impl std::error::Error for RunError {}

/// What one scheduler did in the last cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IssueRecord {
    pub sm: u32,
    pub scheduler: u32,
    pub slot: u32,
    pub warp: u32,
    pub pc: u32,
    pub active: u64,
    pub on: u64,
    /// The warp was selected but lost the slot to a dispatch stall.
    pub dispatch_stall: bool,
    /// A branch split the active lanes.
    pub diverged: bool,
    /// The issuing lanes joined others: the next issue of their group or
    /// stack entry has more lanes.
    pub reconverged: bool,
}

impl IssueRecord {
    #[allow(clippy::too_many_arguments)]
    fn new(
        sm: usize,
        scheduler: usize,
        slot: u32,
        warp: u32,
        pc: u32,
        active: u64,
        on: u64,
        dispatch_stall: bool,
    ) -> Self {
        IssueRecord {
            sm: sm as u32,
            scheduler: scheduler as u32,
            slot,
            warp,
            pc,
            active,
            on,
            dispatch_stall,
            diverged: false,
            reconverged: false,
        }
    }
}

/// Final counters of a warp that left its SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpRecord {
    pub warp: u32,
    pub block: u32,
    pub counters: Counters,
    /// Cycles the warp held its slot: from dispatch until its block
    /// finished (or until now, for a resident warp).
    pub resident_cycles: u64,
}

/// A warp's registers and lane masks when it left its SM (kept only when
/// asked for: property tests compare them between convergence models).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalState {
    pub warp: u32,
    pub width: u32,
    pub launched: u64,
    pub exited: u64,
    pub faulted: u64,
    /// `regs[r * width + lane]`.
    pub regs: Vec<u32>,
    pub preds: [u64; 7],
}

/// An append-only list stored in shared chunks, so a checkpoint of a long
/// run shares every full chunk with the machine it was taken from; only
/// the tail (under a chunk) is copied, and pushing takes no atomic.
#[derive(Debug, Clone)]
pub struct ChunkLog<T: Clone> {
    full: Vec<Arc<Vec<T>>>,
    tail: Vec<T>,
}

impl<T: Clone> Default for ChunkLog<T> {
    fn default() -> Self {
        ChunkLog {
            full: Vec::new(),
            tail: Vec::new(),
        }
    }
}

impl<T: Clone> ChunkLog<T> {
    const CHUNK: usize = 1024;

    pub fn push(&mut self, v: T) {
        if self.tail.capacity() == 0 {
            self.tail.reserve_exact(Self::CHUNK);
        }
        self.tail.push(v);
        if self.tail.len() == Self::CHUNK {
            // A full chunk moves into its `Arc` without being copied.
            self.full.push(Arc::new(std::mem::take(&mut self.tail)));
        }
    }

    pub fn len(&self) -> usize {
        self.full.len() * Self::CHUNK + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.full
            .iter()
            .flat_map(|c| c.iter())
            .chain(self.tail.iter())
    }
}

/// Most faults and hazards kept for the report (the counts keep going).
const MAX_RECORDS: usize = 1000;

/// What never changes during a run: the scenario and its linked code.
#[derive(Debug, Clone)]
pub struct Shared {
    pub scenario: Arc<Scenario>,
    pub code: Arc<[Decoded]>,
    /// The scenario's numbers the cycle loop reads, kept beside the
    /// machine state instead of behind the scenario's pointer.
    pub cfg: Cfg,
}

/// Copies of the machine and launch settings read every cycle.
#[derive(Debug, Clone, Copy)]
pub struct Cfg {
    pub max_cycles: u64,
    pub blocks: u32,
    pub block_dim: u32,
    pub warps_per_block: u32,
    pub max_blocks_per_sm: u32,
    pub policy: crate::scenario::Policy,
    pub group_policy: GroupPolicy,
    pub taken_first: bool,
    pub latency: Latency,
    pub shared_banks: u32,
}

impl Cfg {
    fn of(sc: &Scenario) -> Cfg {
        Cfg {
            max_cycles: sc.machine.max_cycles,
            blocks: sc.launch.blocks,
            block_dim: sc.launch.block_dim,
            warps_per_block: sc.warps_per_block(),
            max_blocks_per_sm: sc.machine.max_blocks_per_sm,
            policy: sc.machine.policy,
            group_policy: sc.machine.group_policy,
            taken_first: sc.machine.taken_first,
            latency: sc.machine.latency,
            shared_banks: sc.machine.shared_banks,
        }
    }
}

/// The simulated GPU: SMs, memory, counters.
#[derive(Debug, Clone)]
pub struct Machine {
    sh: Shared,
    st: State,
}

/// The parts of [`State`] issuing touches besides the issuing SM,
/// borrowed apart from it.
struct Issuing<'a> {
    pcs: &'a mut [PcCounters],
    global: &'a mut GlobalMemory,
    scratch: &'a mut Scratch,
    memory: &'a mut MemoryCounters,
    faults: &'a mut Vec<Fault>,
    faults_total: &'a mut u64,
    hazards: &'a mut Vec<Hazard>,
    issues: &'a mut Vec<IssueRecord>,
    error: &'a mut Option<RunError>,
    retire_due: &'a mut bool,
    record_issues: bool,
    check_hazards: bool,
}

/// Everything a cycle changes.
#[derive(Debug, Clone)]
struct State {
    width: u32,
    cycle: u64,
    sms: Vec<Sm>,
    global: GlobalMemory,
    next_block: u32,
    next_age: u64,
    retired: Counters,
    records: ChunkLog<WarpRecord>,
    pcs: Vec<PcCounters>,
    memory: MemoryCounters,
    faults: Vec<Fault>,
    faults_total: u64,
    hazards: Vec<Hazard>,
    issues: Vec<IssueRecord>,
    error: Option<RunError>,
    finished: bool,
    check_hazards: bool,
    /// Slots were freed (or nothing dispatched yet): try to dispatch.
    dispatch_due: bool,
    /// A warp finished: look for finished blocks.
    retire_due: bool,
    /// Keep each retired warp's registers (see [`FinalState`]).
    keep_final: bool,
    /// Record what issued each cycle (for steppers; a headless run needs
    /// only the counters).
    record_issues: bool,
    finals: Vec<FinalState>,
    scratch: Scratch,
}

impl Machine {
    /// Builds the machine for a loaded scenario, at cycle 0.
    pub fn new(scenario: Arc<Scenario>) -> Result<Machine, AsmError> {
        let m = &scenario.machine;
        let code: Arc<[Decoded]> = link(&scenario.program, &scenario.constants, &m.latency)?.into();
        let sms = (0..m.sms)
            .map(|i| Sm::new(i, m.max_warps_per_sm, m.schedulers))
            .collect();
        let check_hazards = scenario.program.instrs.iter().any(|i| i.explicit_control);
        Ok(Machine {
            sh: Shared {
                code: Arc::clone(&code),
                cfg: Cfg::of(&scenario),
                scenario: Arc::clone(&scenario),
            },
            st: State {
                width: m.warp_width,
                global: GlobalMemory::new(&scenario.buffers),
                pcs: vec![PcCounters::default(); code.len()],
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

    pub fn scenario(&self) -> &Scenario {
        &self.sh.scenario
    }

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

    pub fn global(&self) -> &GlobalMemory {
        &self.st.global
    }

    pub fn sms(&self) -> &[Sm] {
        &self.st.sms
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
        self.sh.scenario.launch.blocks - self.st.next_block
    }

    /// Warps launched so far.
    pub fn warps_launched(&self) -> u64 {
        u64::from(self.st.next_block) * u64::from(self.sh.scenario.warps_per_block())
    }

    /// Warps on SMs now.
    pub fn resident(&self) -> impl Iterator<Item = &Warp> {
        self.st
            .sms
            .iter()
            .flat_map(|sm| sm.slots.iter().filter_map(|w| w.as_deref()))
    }

    /// Run totals, the open stall intervals of resident warps included.
    pub fn totals(&self) -> Counters {
        let mut c = self.st.retired;
        for w in self.resident() {
            c.merge(&w.counters_at(self.st.cycle));
        }
        c
    }

    /// Per-warp counters, retired and resident, by warp index.
    pub fn warp_records(&self) -> Vec<WarpRecord> {
        let mut v: Vec<WarpRecord> = self.st.records.iter().copied().collect();
        v.extend(self.resident().map(|w| WarpRecord {
            warp: w.gid,
            block: w.block,
            counters: w.counters_at(self.st.cycle),
            resident_cycles: self.st.cycle - w.dispatched_at,
        }));
        v.sort_by_key(|r| r.warp);
        v
    }

    /// Per-instruction counters, open stall intervals included.
    pub fn pc_counters(&self) -> Vec<PcCounters> {
        let mut v = self.st.pcs.clone();
        for w in self.resident() {
            let (pc, parts) = w.status.open(self.st.cycle);
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

impl State {
    fn halted(&self) -> bool {
        self.finished || self.error.is_some()
    }

    fn resident(&self) -> impl Iterator<Item = &Warp> {
        self.sms
            .iter()
            .flat_map(|sm| sm.slots.iter().filter_map(|w| w.as_deref()))
    }

    /// Runs to completion, skipping cycles in which nothing can happen.
    fn run(&mut self, sh: &Shared) -> Result<(), RunError> {
        self.run_until(sh, u64::MAX);
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Steps until cycle `target` (or the end), skipping idle cycles.
    fn run_until(&mut self, sh: &Shared, target: u64) {
        let mut idle = self.idle();
        while self.cycle < target && !self.halted() {
            if idle {
                self.skip_idle(sh, target);
                if self.cycle >= target || self.halted() {
                    break;
                }
            }
            match self.cycle_once(sh) {
                Some(now_idle) => idle = now_idle,
                None => break,
            }
        }
    }

    /// No warp on any SM is eligible to issue.
    fn idle(&self) -> bool {
        self.sms.iter().all(|sm| sm.eligible == 0)
    }

    /// On an [`State::idle`] machine where no block waits for a slot,
    /// jumps to the next cycle at which a warp wakes (never past
    /// `target`). Skipped cycles would have changed nothing: stall time is
    /// charged lazily.
    fn skip_idle(&mut self, sh: &Shared, target: u64) {
        if self.next_block < sh.cfg.blocks && self.sms.iter().any(|sm| self.fits(sh, sm)) {
            return;
        }
        let next = self
            .sms
            .iter()
            .filter_map(|sm| sm.wheel.next_due(self.cycle))
            .min();
        if let Some(next) = next {
            let limit = sh.cfg.max_cycles;
            let to = next.min(target).min(limit).max(self.cycle);
            if to > self.cycle {
                // Nothing issued in the skipped cycles.
                self.issues.clear();
                self.cycle = to;
                self.check_limit(sh);
            }
        }
    }

    /// Stops the run once `max_cycles` cycles were simulated without
    /// finishing.
    fn check_limit(&mut self, sh: &Shared) {
        let limit = sh.cfg.max_cycles;
        if !self.finished && self.error.is_none() && self.cycle >= limit {
            self.error = Some(RunError::MaxCycles { limit });
        }
    }

    fn fits(&self, sh: &Shared, sm: &Sm) -> bool {
        let need = sh.cfg.warps_per_block;
        sm.blocks.len() < sh.cfg.max_blocks_per_sm as usize && sm.free_slots().count_ones() >= need
    }

    /// Simulates exactly one cycle. Returns false, doing nothing, once the
    /// run finished or stopped.
    fn step(&mut self, sh: &Shared) -> bool {
        self.cycle_once(sh).is_some()
    }

    /// [`State::step`], returning whether the machine is [`State::idle`]
    /// after the cycle (`None`: it did nothing). Inlined into the run loop
    /// with the whole issue path (see `issue_sm`).
    #[inline(always)]
    fn cycle_once(&mut self, sh: &Shared) -> Option<bool> {
        if self.halted() {
            return None;
        }
        let t = self.cycle;
        if t >= sh.cfg.max_cycles {
            self.check_limit(sh);
            return None;
        }
        self.issues.clear();
        if self.dispatch_due {
            self.dispatch(sh, t);
        }
        // SMs are independent within a cycle: nothing one issues changes
        // which warps of another wake or can issue.
        let mut busy = false;
        for s in 0..self.sms.len() {
            self.wake(sh, s, t);
            busy |= self.issue_sm(sh, s, t);
        }
        // Blocks leave only when they retire, so the run can only have
        // finished after a retirement.
        let retired = self.retire_due;
        if retired {
            self.retire(t);
        }
        self.cycle = t + 1;
        // Retiring leaves the eligible sets as issuing left them (a warp
        // that finished is never eligible).
        let idle = !busy;
        if (retired || sh.cfg.blocks == 0)
            && self.next_block >= sh.cfg.blocks
            && self.sms.iter().all(|sm| sm.blocks.is_empty())
        {
            self.finished = true;
        } else if self.error.is_none() {
            // Only a machine with no eligible warp can be deadlocked.
            if idle {
                self.check_deadlock(sh);
            }
            if self.cycle >= sh.cfg.max_cycles {
                self.check_limit(sh);
            }
        }
        Some(idle)
    }

    /// Dispatches waiting blocks into SMs with room, round robin over SMs.
    fn dispatch(&mut self, sh: &Shared, t: u64) {
        let nblocks = sh.cfg.blocks;
        self.dispatch_due = false;
        loop {
            let mut any = false;
            for s in 0..self.sms.len() {
                if self.next_block >= nblocks {
                    return;
                }
                if self.fits(sh, &self.sms[s]) {
                    self.launch_block(sh, s, t);
                    any = true;
                }
            }
            if !any {
                return;
            }
        }
    }

    fn launch_block(&mut self, sh: &Shared, s: usize, t: u64) {
        let sc = &sh.scenario;
        let block = self.next_block;
        self.next_block += 1;
        let w = self.width;
        let wpb = sc.warps_per_block();
        let block_dim = sc.launch.block_dim;
        let nregs = sc.program.num_regs.max(1) as usize;
        let mut slots_mask = 0u64;
        let free = self.sms[s].free_slots();
        let mut free_iter = convergence::its::lanes(free);
        for in_block in 0..wpb {
            let Some(slot) = free_iter.next() else { break };
            let slot = slot as u32;
            slots_mask |= 1 << slot;
            let first_thread = in_block * w;
            let threads = block_dim.saturating_sub(first_thread).min(w);
            let launched = lane_mask(threads);
            let gid = block * wpb + in_block;
            // Reuse a finished warp's allocations when there is one.
            let mut spare = self.sms[s].spare.pop();
            let mut regs = spare
                .as_mut()
                .map(|b| std::mem::take(&mut b.regs))
                .unwrap_or_default();
            regs.clear();
            regs.resize(nregs * w as usize, 0);
            let conv = match (sc.machine.convergence, spare.as_mut().map(|b| &mut b.conv)) {
                (Model::Stack, Some(Convergence::Stack(old))) => {
                    let mut st = std::mem::take(old);
                    st.reset(launched);
                    Convergence::Stack(st)
                }
                (Model::Stack, _) => Convergence::Stack(SimtStack::new(launched)),
                (Model::Its, _) => Convergence::Its(Box::new(ItsState::new(launched))),
            };
            let mut sb = spare
                .as_mut()
                .map(|b| std::mem::take(&mut b.sb))
                .unwrap_or_default();
            sb.clear();
            let mut warp = Warp {
                gid,
                block,
                in_block,
                slot,
                scheduler: slot % sc.machine.schedulers,
                age: self.next_age,
                width: w,
                all_lanes: lane_mask(w),
                launched,
                exited: 0,
                faulted: 0,
                live: launched,
                regs,
                preds: [0, 0, 0, 0, 0, 0, 0, lane_mask(w)],
                conv,
                sb,
                stall_until: t,
                branch_until: t,
                yielded: false,
                at_bar: false,
                status: Status::Blocked {
                    reason: Reason::Wait,
                    labelled: Reason::Wait,
                    since: t,
                    until: t,
                    pc: 0,
                },
                wake_at: t,
                counters: Counters::default(),
                dispatched_at: t,
                counted: (0, 0),
                ready_at: Vec::new(),
                read_until: Vec::new(),
            };
            if self.check_hazards {
                // One row per register the program names, then P0..P7.
                let rows = sc.program.num_regs as usize + 8;
                warp.ready_at = vec![0; rows * w as usize];
                warp.read_until = vec![0; rows * w as usize];
            }
            self.next_age += 1;
            // Per-lane inputs (`lanes:`), when the scenario has any.
            if !sc.inputs.is_empty() {
                for lane in 0..threads {
                    let tid =
                        u64::from(block) * u64::from(block_dim) + u64::from(first_thread + lane);
                    let ctx = ThreadCtx {
                        tid,
                        lane,
                        warp: u64::from(gid),
                        block: u64::from(block),
                        ntid: block_dim,
                        nthreads: sc.launch.threads(),
                    };
                    for input in &sc.inputs {
                        let v = input.value(&ctx);
                        match input.target {
                            InputTarget::Reg(r) => {
                                if let Some(x) = warp
                                    .regs
                                    .get_mut(usize::from(r) * w as usize + lane as usize)
                                {
                                    *x = v;
                                }
                            }
                            InputTarget::Pred(p) => {
                                if v != 0 {
                                    warp.preds[usize::from(p) % 7] |= 1 << lane;
                                }
                            }
                        }
                    }
                }
            }
            let sm = &mut self.sms[s];
            sm.wheel.schedule(t, t, slot);
            sm.free &= !(1 << slot);
            let boxed = match spare {
                Some(mut b) => {
                    *b = warp;
                    b
                }
                None => Box::new(warp),
            };
            sm.slots[slot as usize] = Some(boxed);
        }
        self.sms[s].blocks.push(ResidentBlock {
            id: block,
            slots: slots_mask,
            shared: SharedMemory::new(sc.launch.shared_bytes),
        });
    }

    /// Re-evaluates the warps due at cycle `t`.
    fn wake(&mut self, sh: &Shared, s: usize, t: u64) {
        let State { sms, pcs, .. } = self;
        let Sm {
            slots,
            sched,
            eligible,
            wheel,
            ..
        } = &mut sms[s];
        *eligible |= wheel.take_ready(t);
        let mut due = wheel.take(t);
        while due != 0 {
            let slot = due.trailing_zeros();
            due &= due - 1;
            let Some(w) = slots[slot as usize].as_deref_mut() else {
                continue;
            };
            if w.wake_at != t {
                continue;
            }
            match w.status {
                // Filed when it issued: ready from now.
                Status::Eligible { since, .. } if since == t => *eligible |= 1 << slot,
                Status::Done { .. } => {}
                _ => {
                    let sfu_free = sched[w.scheduler as usize].sfu_free;
                    Self::evaluate(sh, pcs, eligible, wheel, sfu_free, w, slot, t);
                }
            }
        }
    }

    /// Charges the warp's current status up to `t` and replaces it.
    #[inline(always)]
    fn set_status(pcs: &mut [PcCounters], w: &mut Warp, new: Status, t: u64) {
        if w.status.start() < t {
            let (pc, parts) = w.status.open(t);
            for (reason, labelled, n) in parts {
                if n == 0 {
                    continue;
                }
                w.counters.charge(reason, labelled, n);
                if let Some(p) = pc.and_then(|pc| pcs.get_mut(pc as usize)) {
                    p.stalls.add(reason, n);
                }
            }
        }
        w.status = new;
    }

    /// Evaluates warp `slot` at cycle `t` and files it as eligible or as
    /// blocked with a wake-up.
    fn evaluate_into(sh: &Shared, sm: &mut Sm, pcs: &mut [PcCounters], slot: u32, t: u64) {
        let Sm {
            slots,
            sched,
            eligible,
            wheel,
            ..
        } = sm;
        let Some(w) = slots[slot as usize].as_deref_mut() else {
            return;
        };
        let sfu_free = sched[w.scheduler as usize].sfu_free;
        Self::evaluate(sh, pcs, eligible, wheel, sfu_free, w, slot, t);
    }

    /// [`State::evaluate_into`] with the SM's parts borrowed apart.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn evaluate(
        sh: &Shared,
        pcs: &mut [PcCounters],
        eligible: &mut u64,
        wheel: &mut Wheel,
        sfu_free: u64,
        w: &mut Warp,
        slot: u32,
        t: u64,
    ) {
        match readiness(&sh.code, w, t, sfu_free, sh.cfg.group_policy) {
            Readiness::Ready { pc, lanes } => {
                Self::set_status(
                    pcs,
                    w,
                    Status::Eligible {
                        since: t,
                        wait_from: t,
                        pc,
                        lanes,
                    },
                    t,
                );
                *eligible |= 1 << slot;
            }
            Readiness::Blocked {
                reason,
                labelled,
                until,
                pc,
            } => {
                Self::set_status(
                    pcs,
                    w,
                    Status::Blocked {
                        reason,
                        labelled,
                        since: t,
                        until,
                        pc,
                    },
                    t,
                );
                *eligible &= !(1 << slot);
                if until != u64::MAX {
                    w.wake_at = wheel.schedule(t, until, slot);
                }
            }
            Readiness::Done => {}
        }
    }

    /// Each scheduler of SM `s` issues; returns whether the SM has
    /// eligible warps left.
    // Always inlined, as `issue` and `exec::execute` are: one function for
    // the whole issue path measured faster than calls the compiler chose.
    #[inline(always)]
    fn issue_sm(&mut self, sh: &Shared, s: usize, t: u64) -> bool {
        let policy = sh.cfg.policy;
        // Disjoint borrows of what issuing touches, so that the SM is
        // looked up once and the compiler knows that nothing else aliases
        // it or another part.
        let State {
            sms,
            pcs,
            global,
            scratch,
            memory,
            faults,
            faults_total,
            hazards,
            issues,
            error,
            retire_due,
            record_issues,
            check_hazards,
            ..
        } = self;
        let mut cx = Issuing {
            pcs,
            global,
            scratch,
            memory,
            faults,
            faults_total,
            hazards,
            issues,
            error,
            retire_due,
            record_issues: *record_issues,
            check_hazards: *check_hazards,
        };
        let sm = &mut sms[s];
        for k in 0..sm.schedulers {
            let cand = sm.eligible & sm.sched_mask[k];
            let Some(slot) = sm.select(k, policy, cand) else {
                continue;
            };
            let Some(Status::Eligible { pc, lanes, .. }) =
                sm.slots[slot as usize].as_deref().map(|w| w.status)
            else {
                continue;
            };
            if sh.code[pc as usize].uses_lsu {
                if sm.lsu_busy == Some(t) {
                    let at = (s, k, slot, pc, lanes, t);
                    let issues = (cx.record_issues, &mut *cx.issues);
                    Self::dispatch_stall(sm, cx.pcs, issues, at);
                    continue;
                }
                sm.lsu_busy = Some(t);
            }
            Self::issue(sh, sm, &mut cx, s, k, slot, pc, lanes, t);
        }
        sm.eligible != 0
    }

    /// Warp `slot` was selected at `t`, but another scheduler took the SM's
    /// shared load/store pipe: it stays eligible, charged a dispatch stall.
    // Its own few arguments: a cold call passed the issuing context would
    // make the hot path build that context in memory.
    #[cold]
    #[inline(never)]
    fn dispatch_stall(
        sm: &mut Sm,
        pcs: &mut [PcCounters],
        (record, issues): (bool, &mut Vec<IssueRecord>),
        (s, k, slot, pc, lanes, t): (usize, usize, u32, u32, u64, u64),
    ) {
        let Some(w) = sm.slots[slot as usize].as_deref_mut() else {
            return;
        };
        Self::set_status(
            pcs,
            w,
            Status::Eligible {
                since: t + 1,
                wait_from: t + 1,
                pc,
                lanes,
            },
            t,
        );
        w.counters.stalls.add(Reason::DispatchStall, 1);
        pcs[pc as usize].stalls.add(Reason::DispatchStall, 1);
        if record {
            issues.push(IssueRecord::new(s, k, slot, w.gid, pc, 0, 0, true));
        }
    }

    /// Issues the next instruction of warp `slot` on SM `s` at cycle `t`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn issue(
        sh: &Shared,
        sm: &mut Sm,
        cx: &mut Issuing,
        s: usize,
        k: usize,
        slot: u32,
        pc: u32,
        active: u64,
        t: u64,
    ) {
        let code = &sh.code;
        let lat = sh.cfg.latency;
        let taken_first = sh.cfg.taken_first;
        let Issuing {
            pcs,
            global,
            scratch,
            memory,
            faults,
            faults_total,
            hazards,
            issues,
            error,
            retire_due,
            record_issues,
            check_hazards,
        } = cx;
        let (record_issues, check_hazards) = (*record_issues, *check_hazards);
        let Sm {
            slots,
            eligible,
            sched,
            wheel,
            blocks,
            ..
        } = &mut *sm;
        let Some(w) = slots[slot as usize].as_deref_mut() else {
            return;
        };
        let d = &code[pc as usize];
        let ins = &d.instr;
        // Eligible (after waiting out any stall count), selected at t: the
        // status is charged here, and replaced once the next cycle's
        // readiness is known, below.
        let (_, open) = w.status.open(t);
        *eligible &= !(1 << slot);
        sched[k].last = Some(slot);
        sched[k].greedy = Some(slot);

        let live = w.live();
        let on = active & w.pred_mask(ins.guard);
        let full = w.full();
        // Counting lanes is a dozen instructions on a CPU without POPCNT:
        // a warp usually issues several instructions with one active mask,
        // so its count is kept; and the masks usually empty are skipped.
        let n_active = if w.counted.0 == active {
            w.counted.1
        } else {
            let n = u64::from(active.count_ones());
            w.counted = (active, n);
            n
        };
        let n_on = if on == active {
            n_active
        } else {
            u64::from(on.count_ones())
        };
        let c = &mut w.counters;
        let p = &mut pcs[pc as usize];
        for (reason, labelled, n) in open {
            c.charge(reason, labelled, n);
            p.stalls.add(reason, n);
        }
        c.stalls.add(Reason::Selected, 1);
        c.issued += 1;
        c.thread_inst_executed += n_active;
        c.thread_inst_executed_pred_on += n_on;
        let gone = w.launched & !live;
        if gone != 0 {
            c.exited_slots += u64::from(gone.count_ones());
        }
        let unlaunched = full & !w.launched;
        if unlaunched != 0 {
            c.never_launched_slots += u64::from(unlaunched.count_ones());
        }
        p.stalls.add(Reason::Selected, 1);
        p.executions += 1;
        p.thread_inst_executed += n_active;
        p.thread_inst_executed_pred_on += n_on;
        if record_issues {
            issues.push(IssueRecord::new(s, k, slot, w.gid, pc, active, on, false));
        }

        if check_hazards {
            check_hazards_at(hazards, w, d, pc, active, t);
        }

        // Data effects.
        scratch.faults.clear();
        let access = if d.uses_lsu {
            exec::access(&ins.op)
        } else {
            None
        };
        let effect = match access {
            Some(acc) => {
                let block = w.block;
                let shared = match ins.class {
                    Class::Shared => blocks
                        .iter_mut()
                        .find(|b| b.id == block)
                        .map(|b| &mut b.shared),
                    _ => None,
                };
                let mut env = MemEnv {
                    global,
                    shared,
                    banks: sh.cfg.shared_banks,
                    scratch,
                };
                if w.width == 32 {
                    exec::memory_op::<32>(w, &mut env, acc, on)
                } else {
                    exec::memory_op::<0>(w, &mut env, acc, on)
                }
            }
            None => {
                // Built in each branch: one built before the branch is
                // stored to memory for the call, on the inlined path too.
                let env = |scratch| Env {
                    scratch,
                    block_dim: sh.cfg.block_dim,
                    blocks: sh.cfg.blocks,
                    c_hi: d.c_hi,
                };
                if w.width == 32 {
                    exec::execute::<32>(w, &ins.op, on, active, &mut env(scratch))
                } else {
                    exec::execute_any(w, &ins.op, on, active, &mut env(scratch))
                }
                MemEffect::None
            }
        };
        let mut latency = d.latency;
        match effect {
            MemEffect::Global(co) => {
                let m = &mut *memory;
                m.global_requests += 1;
                m.global_sectors += u64::from(co.sectors);
                m.global_transactions += u64::from(co.lines);
                m.requested_bytes += u64::from(co.requested_bytes);
                m.transferred_bytes += u64::from(co.sectors) * 32;
                m.ideal_sectors += u64::from(co.requested_bytes.div_ceil(32));
                latency += lat.global_per_extra_line * co.lines.saturating_sub(1);
            }
            MemEffect::Shared { passes } => {
                memory.shared_requests += 1;
                memory.shared_bank_conflicts += u64::from(passes.saturating_sub(1));
                latency += lat.shared_replay * passes.saturating_sub(1);
            }
            MemEffect::None => {}
        }
        let mut faulted = 0u64;
        for &(lane, address, kind) in &scratch.faults {
            faulted |= 1 << lane;
            **faults_total += 1;
            if faults.len() < MAX_RECORDS {
                faults.push(Fault {
                    warp: w.gid,
                    lane,
                    pc,
                    line: ins.line,
                    address,
                    kind,
                    cycle: t,
                });
            }
        }
        w.faulted |= faulted;
        w.live &= !faulted;

        // Scoreboards, stall count, yield.
        w.sb.retire(t);
        if let Some(sb) = ins.control.write_barrier {
            w.sb.set(Producer {
                sb,
                pc,
                class: ins.class,
                issued: t,
                done: t + u64::from(latency),
                read: false,
            });
        }
        if let Some(sb) = ins.control.read_barrier {
            w.sb.set(Producer {
                sb,
                pc,
                class: ins.class,
                issued: t,
                done: t + u64::from(d.read_latency),
                read: true,
            });
        }
        if check_hazards {
            let on_now = active & w.pred_mask(ins.guard);
            record_writes(hazards, w, d, pc, on_now, t, latency);
        }
        let stall = u64::from(ins.control.stall.max(1));
        w.stall_until = t + stall;
        w.yielded = ins.control.yield_hint;
        if d.is_mufu {
            sched[k].sfu_free = t + u64::from(d.pipe_interval);
        }

        // Control flow.
        let divergent_before = w.counters.divergent_branches;
        let mut bar_arrived = false;
        let mut taken_any = false;
        let live = w.live();
        match &mut w.conv {
            Convergence::Stack(stack) => match ins.op {
                Op::Bra { target } => {
                    w.counters.branches += 1;
                    taken_any = on != 0;
                    let b = convergence::stack::Branch {
                        pc,
                        target,
                        taken: on,
                        active,
                        rpc: d.reconv,
                    };
                    if stack.branch(b, taken_first, live) {
                        w.counters.divergent_branches += 1;
                    }
                }
                Op::Break { .. } => {
                    w.counters.branches += 1;
                    if on != 0 && on != active {
                        w.counters.divergent_branches += 1;
                    }
                    stack.goto(pc + 1, live);
                }
                Op::Exit => {
                    w.exited |= on;
                    w.live &= !on;
                    stack.goto(pc + 1, w.live);
                }
                Op::BarSync { .. } => {
                    stack.goto(pc + 1, live);
                    if on != 0 {
                        w.at_bar = true;
                        bar_arrived = true;
                    }
                }
                _ => stack.goto(pc + 1, live),
            },
            Convergence::Its(_) => {
                let (arrived, taken) = its_control(sh, w, d, pc, on, active, error, t);
                bar_arrived = arrived;
                taken_any = taken;
            }
        }
        if taken_any {
            w.branch_until = w.stall_until + u64::from(lat.branch);
        }
        if record_issues {
            flag_convergence(issues, w, active, divergent_before);
        }

        let done = w.is_done();
        let next = t + 1;
        if done {
            **retire_due = true;
            w.status = Status::Done { since: next };
            w.at_bar = false;
        } else {
            // Nothing another warp does later in this cycle changes this
            // warp's readiness (a barrier release re-wakes it), so its
            // status from the next cycle is settled now.
            //
            // The common case: a stack warp not at a barrier whose next
            // instruction is not a MUFU (the one whose readiness another
            // warp can change, through the pipe) depends only on its own
            // state, so its readiness once the stall count runs out is
            // known now. Ready then, it is filed as eligible from that
            // cycle, and the wake-up only sets its bit.
            let at = w.stall_until.max(next);
            let ready = match &w.conv {
                // No MUFU pipe limit is passed: a MUFU next is excluded.
                Convergence::Stack(_) if !w.at_bar => {
                    match readiness(code, w, at, 0, sh.cfg.group_policy) {
                        Readiness::Ready { pc, lanes } if !code[pc as usize].is_mufu => {
                            Some((pc, lanes))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some((next_pc, lanes)) = ready {
                w.status = Status::Eligible {
                    since: at,
                    wait_from: next,
                    pc: next_pc,
                    lanes,
                };
                if at == next {
                    *eligible |= 1 << slot;
                } else {
                    w.wake_at = wheel.file_ready(next, at, slot);
                }
            } else if let Some(top_pc) = match &w.conv {
                Convergence::Stack(st) if !w.at_bar && w.stall_until > next => {
                    st.top().map(|e| e.pc)
                }
                _ => None,
            } {
                // Inside its stall count: it waits until the count runs
                // out, and is evaluated then.
                w.status = Status::Blocked {
                    reason: Reason::Wait,
                    labelled: Reason::Wait,
                    since: next,
                    until: w.stall_until,
                    pc: top_pc,
                };
                w.wake_at = wheel.schedule(next, w.stall_until, slot);
            } else {
                // A placeholder from t + 1, replaced (and charged nothing)
                // by the evaluation.
                w.status = Status::Blocked {
                    reason: Reason::Wait,
                    labelled: Reason::Wait,
                    since: next,
                    until: next,
                    pc,
                };
                let sfu_free = sched[w.scheduler as usize].sfu_free;
                Self::evaluate(sh, pcs, eligible, wheel, sfu_free, w, slot, next);
            }
        }
        let block = w.block;
        if d.is_mufu {
            Self::throttle_others(sh, sm, pcs, k, slot, t);
        }
        if bar_arrived || done {
            Self::check_block_barrier(sm, block, t);
        }
    }

    /// After a MUFU issue, warps of the same scheduler waiting to issue a
    /// MUFU are throttled from the next cycle.
    fn throttle_others(
        sh: &Shared,
        sm: &mut Sm,
        pcs: &mut [PcCounters],
        k: usize,
        issuer: u32,
        t: u64,
    ) {
        let mut cand = sm.eligible & sm.sched_mask[k] & !(1 << issuer);
        while cand != 0 {
            let slot = cand.trailing_zeros();
            cand &= cand - 1;
            let wants_mufu = sm.slots[slot as usize]
                .as_ref()
                .is_some_and(|w| match w.status {
                    Status::Eligible { pc, .. } => sh.code[pc as usize].is_mufu,
                    _ => false,
                });
            if wants_mufu {
                // Not selected this cycle; from the next, the pipe is busy.
                if let Some(w) = sm.slots[slot as usize].as_mut() {
                    w.wake_at = t + 1;
                }
                Self::evaluate_into(sh, sm, pcs, slot, t + 1);
            }
        }
    }

    /// Releases a block barrier once every live warp of the block arrived.
    fn check_block_barrier(sm: &mut Sm, block: u32, t: u64) {
        let Some(b) = sm.blocks.iter().find(|b| b.id == block) else {
            return;
        };
        let slots = b.slots;
        let warps = || convergence::its::lanes(slots);
        let mut any_waiting = false;
        for slot in warps() {
            if let Some(w) = sm.slots[slot].as_ref() {
                if w.is_done() {
                    continue;
                }
                if !w.at_bar {
                    return;
                }
                any_waiting = true;
            }
        }
        if !any_waiting {
            return;
        }
        for slot in warps() {
            if let Some(w) = sm.slots[slot].as_mut()
                && w.at_bar
            {
                w.at_bar = false;
                if let Convergence::Its(its) = &mut w.conv {
                    let live = w.live;
                    its.bar_release(live);
                    its.refresh(live);
                }
                if matches!(w.status, Status::Blocked { .. }) {
                    w.wake_at = sm.wheel.schedule(t, t + 1, slot as u32);
                }
            }
        }
    }

    /// Frees the slots of blocks whose warps all finished (at the end of
    /// cycle `t`, so they count as resident through `t`).
    fn retire(&mut self, t: u64) {
        self.retire_due = false;
        for s in 0..self.sms.len() {
            let mut i = 0;
            while i < self.sms[s].blocks.len() {
                let slots = self.sms[s].blocks[i].slots;
                let all_done = convergence::its::lanes(slots)
                    .all(|slot| self.sms[s].slots[slot].as_ref().is_none_or(|w| w.is_done()));
                if !all_done {
                    i += 1;
                    continue;
                }
                self.sms[s].blocks.swap_remove(i);
                self.dispatch_due = true;
                for slot in convergence::its::lanes(slots) {
                    let sm = &mut self.sms[s];
                    sm.free |= 1 << slot;
                    if let Some(mut w) = sm.slots[slot].take() {
                        Self::set_status(
                            &mut self.pcs,
                            &mut w,
                            Status::Done { since: t + 1 },
                            t + 1,
                        );
                        self.retired.merge(&w.counters);
                        self.records.push(WarpRecord {
                            warp: w.gid,
                            block: w.block,
                            counters: w.counters,
                            resident_cycles: t + 1 - w.dispatched_at,
                        });
                        if self.keep_final {
                            self.finals.push(FinalState {
                                warp: w.gid,
                                width: w.width,
                                launched: w.launched,
                                exited: w.exited,
                                faulted: w.faulted,
                                regs: std::mem::take(&mut w.regs),
                                preds: [0, 1, 2, 3, 4, 5, 6].map(|p| w.preds[p]),
                            });
                        }
                        sm.spare.push(w);
                    }
                    sm.eligible &= !(1 << slot);
                    for st in &mut sm.sched[..sm.schedulers] {
                        if st.greedy == Some(slot as u32) {
                            st.greedy = None;
                        }
                    }
                }
            }
        }
    }

    /// Stops the run of an [`State::idle`] machine when no warp can ever
    /// issue again.
    fn check_deadlock(&mut self, sh: &Shared) {
        let nothing_pending = self
            .sms
            .iter()
            .all(|sm| sm.wheel.next_due(self.cycle).is_none());
        if !nothing_pending {
            return;
        }
        let mut waiting = Vec::new();
        for w in self.resident() {
            if let Status::Blocked { reason, pc, .. } = w.status {
                let line = sh
                    .code
                    .get(pc as usize)
                    .map_or(0, |d| sh.scenario.program_line + d.instr.line - 1);
                waiting.push(format!("warp {} at line {line} ({})", w.gid, reason.name()));
            }
        }
        if waiting.is_empty() {
            return;
        }
        waiting.truncate(8);
        self.error = Some(RunError::Deadlock {
            cycle: self.cycle,
            detail: format!(
                "no warp can issue again: {}; a BAR.SYNC that not every warp of the block reaches \
                 waits forever",
                waiting.join(", ")
            ),
        });
    }
}

/// Marks the last issue record as a divergence or a reconvergence.
fn flag_convergence(issues: &mut [IssueRecord], w: &Warp, active: u64, divergent_before: u64) {
    let diverged = w.counters.divergent_branches > divergent_before;
    let live = w.live();
    let joined = match &w.conv {
        Convergence::Stack(st) => st.active(live).map_or(0, |(_, m)| m),
        Convergence::Its(its) => its
            .groups
            .iter()
            .find(|g| g.1 & active != 0)
            .map_or(0, |g| g.1),
    };
    if let Some(rec) = issues.last_mut() {
        rec.diverged = diverged;
        rec.reconverged = !diverged && joined & active != 0 && joined & !active != 0;
    }
}

/// Records a hazard when the instruction at `pc` reads a register before
/// its latest write lands, or writes one a store is still reading.
fn check_hazards_at(
    hazards: &mut Vec<Hazard>,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    active: u64,
    t: u64,
) {
    let n = w.width as usize;
    let ins = &d.instr;
    let on = active & w.pred_mask(ins.guard);
    let guard = (!ins.guard.is_always_true() && ins.guard.index < 7)
        .then_some(PRED_BASE + u16::from(ins.guard.index));
    let first_late = |rows: &[u64], r: u16, lanes_mask: u64| -> Option<(u64, u32)> {
        let row = rows.get(hazard_row(rows.len() / n.max(1), r) * n..)?;
        convergence::its::lanes(lanes_mask)
            .find(|&l| row[l] > t)
            .map(|l| (row[l] - t, l as u32))
    };
    // Every active lane reads the guard; only lanes that are on read
    // the sources and write the results.
    let mut found = None;
    for &r in &ins.uses {
        let lanes_mask = if Some(r) == guard { active } else { on };
        if let Some((early, lane)) = first_late(&w.ready_at, r, lanes_mask) {
            found = Some((r, HazardKind::ReadAfterWrite, early, lane));
            break;
        }
    }
    if found.is_none() {
        for &r in &ins.defs {
            if let Some((early, lane)) = first_late(&w.read_until, r, on) {
                found = Some((r, HazardKind::WriteAfterRead, early, lane));
                break;
            }
        }
    }
    if let Some((r, kind, early_by, lane)) = found {
        push_hazard(hazards, w.gid, lane, pc, ins.line, r, kind, early_by, t);
    }
}

/// Counts a hazard at `pc`, recording the first of each kind and register.
#[allow(clippy::too_many_arguments)]
fn push_hazard(
    hazards: &mut Vec<Hazard>,
    warp: u32,
    lane: u32,
    pc: u32,
    line: u32,
    r: u16,
    kind: HazardKind,
    early_by: u64,
    t: u64,
) {
    let register = if r >= PRED_BASE {
        format!("P{}", r - PRED_BASE)
    } else {
        format!("R{r}")
    };
    if let Some(h) = hazards
        .iter_mut()
        .find(|h| h.pc == pc && h.register == register && h.kind == kind)
    {
        h.count += 1;
        return;
    }
    if hazards.len() < MAX_RECORDS {
        hazards.push(Hazard {
            warp,
            lane,
            pc,
            line,
            register,
            kind,
            early_by,
            cycle: t,
            count: 1,
        });
    }
}

/// Records when this instruction's writes land and its reads finish.
fn record_writes(
    hazards: &mut Vec<Hazard>,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    on: u64,
    t: u64,
    latency: u32,
) {
    let n = w.width as usize;
    let ins = &d.instr;
    let lands = t + u64::from(latency);
    let rows = w.ready_at.len() / n.max(1);
    let mut waw: Option<(u16, u64, u32)> = None;
    for &r in &ins.defs {
        let base = hazard_row(rows, r) * n;
        for l in convergence::its::lanes(on) {
            let Some(slot) = w.ready_at.get_mut(base + l) else {
                continue;
            };
            if *slot > lands && waw.is_none() {
                waw = Some((r, *slot - lands, l as u32));
            }
            *slot = lands;
        }
    }
    if matches!(ins.op, Op::Stg { .. } | Op::Sts { .. }) {
        let done = t + u64::from(d.read_latency);
        for &r in ins.uses.iter().filter(|&&r| r < PRED_BASE) {
            let base = hazard_row(rows, r) * n;
            for l in convergence::its::lanes(on) {
                if let Some(x) = w.read_until.get_mut(base + l) {
                    *x = done;
                }
            }
        }
    }
    if let Some((r, early_by, lane)) = waw {
        push_hazard(
            hazards,
            w.gid,
            lane,
            pc,
            ins.line,
            r,
            HazardKind::WriteAfterWrite,
            early_by,
            t,
        );
    }
}

/// The `its` model's side of issuing: lanes move, groups arrive at and
/// leave convergence barriers, and a warp whose every lane waits at one is
/// a deadlock. Returns whether the warp arrived at a block barrier and
/// whether a branch was taken. Kept out of `issue` so the `stack` model's
/// hot path stays small.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn its_control(
    sh: &Shared,
    w: &mut Warp,
    d: &Decoded,
    pc: u32,
    on: u64,
    active: u64,
    error: &mut Option<RunError>,
    t: u64,
) -> (bool, bool) {
    let code = &sh.code;
    let sc = &sh.scenario;
    let taken_first = sh.cfg.taken_first;
    let ins = &d.instr;
    let full = w.full();
    let mut bar_arrived = false;
    let mut taken_any = false;
    let Convergence::Its(its) = &mut w.conv else {
        return (false, false);
    };

    let rest = active & !on;
    match ins.op {
        Op::Bra { target } => {
            w.counters.branches += 1;
            taken_any = on != 0;
            if on != 0 && rest != 0 {
                w.counters.divergent_branches += 1;
            }
            its.set_pc(on, target);
            its.set_pc(rest, pc + 1);
            let first_taken = if taken_first { on != 0 } else { rest == 0 };
            its.current = Some(if first_taken { target } else { pc + 1 });
        }
        Op::Break { barrier } => {
            w.counters.branches += 1;
            if on != 0 && rest != 0 {
                w.counters.divergent_branches += 1;
            }
            its.brk(barrier, on);
            its.set_pc(active, pc + 1);
            its.current = Some(pc + 1);
        }
        Op::Exit => {
            w.exited |= on;
            w.live &= !on;
            its.set_pc(rest, pc + 1);
            its.current = (rest != 0).then_some(pc + 1);
        }
        Op::Bssy { barrier, target } => {
            its.bssy(barrier, on, target);
            its.set_pc(active, pc + 1);
            its.current = Some(pc + 1);
        }
        Op::Bsync { .. } | Op::Warpsync { .. } => {
            // The lanes arrived (and were released) before
            // issuing: the merged group now moves on.
            its.set_pc(active, pc + 1);
            its.released &= !active;
            its.current = Some(pc + 1);
        }
        Op::BarSync { .. } => {
            its.set_pc(rest, pc + 1);
            its.bar_arrive(on);
            its.current = None;
        }
        _ => {
            its.set_pc(active, pc + 1);
            its.current = Some(pc + 1);
        }
    }
    let live = w.live;
    its.retain_live(live);
    let first = live.trailing_zeros().min(63);
    let sync_at = |pc: u32| sync_point(code, &w.regs, w.width, first, full, pc);
    its.arrive(live, sync_at);
    if its.release(live) != 0 {
        its.refresh(live);
    }
    let at_bar = its.waiting(live, Some(LaneWait::Bar));
    if at_bar != 0 && live & !at_bar == 0 {
        w.at_bar = true;
        bar_arrived = true;
    }
    if live != 0 && its.groups.is_empty() && at_bar == 0 {
        // Name the file lines where the lanes wait.
        let mut lines: Vec<u32> = convergence::its::lanes(live)
            .filter_map(|l| code.get(its.pc[l] as usize))
            .map(|d| sc.program_line + d.instr.line - 1)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let at: Vec<String> = lines.iter().map(|l| format!("line {l}")).collect();
        *error = Some(RunError::Deadlock {
            cycle: t,
            detail: format!(
                "every lane of warp {} waits at a convergence barrier ({}) that no \
                     other lane can release; check that each BSSY's lanes all reach its \
                     BSYNC or leave with BREAK",
                w.gid,
                at.join(", ")
            ),
        });
    }
    (bar_arrived, taken_any)
}

/// The row of register or predicate `r` in a warp's hazard tables, which
/// hold `rows - 8` registers and then the predicates.
fn hazard_row(rows: usize, r: u16) -> usize {
    let regs = rows.saturating_sub(8);
    if r < PRED_BASE {
        usize::from(r)
    } else {
        regs + usize::from(r - PRED_BASE)
    }
}

/// Whether a warp can issue at cycle `t`, and if not, why and until when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// `lanes` at `pc` can issue.
    Ready {
        pc: u32,
        lanes: u64,
    },
    Blocked {
        reason: Reason,
        labelled: Reason,
        /// `u64::MAX`: until another warp or lane acts.
        until: u64,
        pc: u32,
    },
    Done,
}

/// The `its` synchronisation instruction at `pc`, if any. A `WARPSYNC`
/// register mask is read from lane `lane`; an all-ones 32-bit mask means
/// the whole warp (also a 64-lane wavefront).
fn sync_point(
    code: &[Decoded],
    regs: &[u32],
    width: u32,
    lane: u32,
    full: u64,
    pc: u32,
) -> Option<convergence::its::SyncPoint> {
    use convergence::its::SyncPoint;
    match code.get(pc as usize)?.instr.op {
        Op::Bsync { barrier } => Some(SyncPoint::Bsync(barrier)),
        Op::Warpsync { mask } => {
            let m = match mask {
                Src::Imm(v) => v,
                Src::Reg(r) => regs
                    .get(usize::from(r.reg) * width as usize + lane as usize)
                    .copied()
                    .unwrap_or(0),
                Src::Const { .. } => u32::MAX,
            };
            Some(SyncPoint::Warpsync(if m == u32::MAX {
                full
            } else {
                u64::from(m) & full
            }))
        }
        _ => None,
    }
}

fn sb_reason(class: Class) -> Reason {
    if class.is_long() {
        Reason::LongScoreboard
    } else {
        Reason::ShortScoreboard
    }
}

/// What stops the instruction at `pc` from issuing at `t`, if anything.
/// Inlined for the common instruction that waits on no scoreboard.
#[inline(always)]
fn instruction_block(
    code: &[Decoded],
    w: &Warp,
    pc: u32,
    t: u64,
    sfu_free: u64,
) -> Option<(Reason, Reason, u64)> {
    let d = code.get(pc as usize)?;
    let ins = &d.instr;
    if (ins.control.wait_mask != 0 || matches!(ins.op, Op::Depbar { .. }))
        && let Some(b) = scoreboard_block(d, w, t)
    {
        return Some(b);
    }
    if d.is_mufu && t < sfu_free {
        return Some((Reason::MathPipeThrottle, Reason::MathPipeThrottle, sfu_free));
    }
    None
}

/// The scoreboards the instruction `d` waits on at `t`, if any is busy.
#[inline(never)]
fn scoreboard_block(d: &Decoded, w: &Warp, t: u64) -> Option<(Reason, Reason, u64)> {
    let ins = &d.instr;
    let blocking = match ins.op {
        Op::Depbar { sb, le } => {
            w.sb.depbar(sb, le, t)
                .or_else(|| w.sb.blocking(ins.control.wait_mask, t))
        }
        _ => w.sb.blocking(ins.control.wait_mask, t),
    };
    blocking.map(|b| {
        (
            sb_reason(b.truth.class),
            sb_reason(b.labelled.class),
            b.until,
        )
    })
}

/// The readiness of warp `w` at cycle `t`: a pure function of its state.
/// Inlined for the `stack` model; the `its` model's part is not.
#[inline(always)]
pub fn readiness(
    code: &[Decoded],
    w: &Warp,
    t: u64,
    sfu_free: u64,
    policy: GroupPolicy,
) -> Readiness {
    if w.is_done() {
        return Readiness::Done;
    }
    let live = w.live();
    let blocked = |reason, until, pc| Readiness::Blocked {
        reason,
        labelled: reason,
        until,
        pc,
    };
    match &w.conv {
        Convergence::Stack(stack) => {
            let Some((pc, active)) = stack.active(live) else {
                return Readiness::Done;
            };
            if w.at_bar {
                return blocked(Reason::Barrier, u64::MAX, pc);
            }
            if t < w.stall_until {
                return blocked(Reason::Wait, w.stall_until, pc);
            }
            if t < w.branch_until {
                return blocked(Reason::BranchResolving, w.branch_until, pc);
            }
            match instruction_block(code, w, pc, t, sfu_free) {
                Some((reason, labelled, until)) => Readiness::Blocked {
                    reason,
                    labelled,
                    until,
                    pc,
                },
                None => Readiness::Ready { pc, lanes: active },
            }
        }
        Convergence::Its(its) => its_readiness(code, w, its, live, t, sfu_free, policy),
    }
}

/// [`readiness`] of a warp under the `its` model.
#[inline(never)]
fn its_readiness(
    code: &[Decoded],
    w: &Warp,
    its: &ItsState,
    live: u64,
    t: u64,
    sfu_free: u64,
    policy: GroupPolicy,
) -> Readiness {
    let blocked = |reason, until, pc| Readiness::Blocked {
        reason,
        labelled: reason,
        until,
        pc,
    };
    let first = its.groups.first().map_or(0, |g| g.0);
    let preferred = its
        .current
        .filter(|c| its.groups.iter().any(|g| g.0 == *c))
        .unwrap_or(first);
    if its.groups.is_empty() {
        let at_bar = its.waiting(live, Some(LaneWait::Bar)) != 0;
        let pc = (0..64)
            .find(|&l| live >> l & 1 != 0)
            .map_or(0, |l| its.pc[l]);
        let reason = if at_bar {
            Reason::Barrier
        } else {
            Reason::ConvergenceBarrier
        };
        return blocked(reason, u64::MAX, pc);
    }
    if t < w.stall_until {
        return blocked(Reason::Wait, w.stall_until, preferred);
    }
    if t < w.branch_until {
        return blocked(Reason::BranchResolving, w.branch_until, preferred);
    }
    let mut first_ready = None;
    let mut first_other = None;
    let mut preferred_ready = None;
    let mut soonest = u64::MAX;
    let mut preferred_block = None;
    for &(gpc, lanes) in &its.groups {
        match instruction_block(code, w, gpc, t, sfu_free) {
            None => {
                first_ready = first_ready.or(Some((gpc, lanes)));
                if gpc == preferred {
                    preferred_ready = Some((gpc, lanes));
                } else {
                    first_other = first_other.or(Some((gpc, lanes)));
                }
            }
            Some((reason, labelled, until)) => {
                soonest = soonest.min(until);
                if gpc == preferred {
                    preferred_block = Some((reason, labelled));
                }
            }
        }
    }
    // A yield hands the slot to another group when there is one.
    let choice = match (policy, w.yielded) {
        (GroupPolicy::Sticky, false) => preferred_ready.or(first_ready),
        (GroupPolicy::Sticky, true) => first_other.or(preferred_ready),
        (GroupPolicy::LowestPc, false) => first_ready,
        (GroupPolicy::LowestPc, true) => first_other.or(first_ready),
    };
    if let Some((pc, lanes)) = choice {
        return Readiness::Ready { pc, lanes };
    }
    // The lanes that issued last wait for their siblings at a
    // convergence barrier: that is why this warp does not issue.
    if let Some(c) = its.current
        && !its.groups.iter().any(|g| g.0 == c)
    {
        return Readiness::Blocked {
            reason: Reason::ConvergenceBarrier,
            labelled: Reason::ConvergenceBarrier,
            until: soonest,
            pc: c,
        };
    }
    let (reason, labelled) = preferred_block.unwrap_or((Reason::Wait, Reason::Wait));
    Readiness::Blocked {
        reason,
        labelled,
        until: soonest,
        pc: preferred,
    }
}

#[cfg(test)]
mod tests;
