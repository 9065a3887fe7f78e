//! What a run leaves behind besides its counters: faults, hazards, what
//! each scheduler issued, the records of warps that left their SM, and why
//! a run stopped early.

use std::fmt;
use std::sync::Arc;

use super::memory::FaultKind;
use super::stats::Counters;

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
    pub(crate) fn new(
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
    /// Uniform registers UR0..UR63.
    pub uregs: [u32; 64],
    /// Uniform predicates UP0..UP6 as bits 0..6.
    pub upreds: u8,
}

/// An append-only list stored in shared chunks, so a checkpoint of a long
/// run shares every full chunk with the machine it was taken from; only
/// the tail (under a chunk) is copied, and pushing takes no atomic.
#[derive(Debug, Clone)]
pub(crate) struct ChunkLog<T: Clone> {
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

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.full
            .iter()
            .flat_map(|c| c.iter())
            .chain(self.tail.iter())
    }
}

/// Most faults and hazards kept for the report (the counts keep going).
pub(crate) const MAX_RECORDS: usize = 1000;
