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
    /// Full chunks, but where [`ChunkLog::append`] joined two logs.
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
            self.seal();
        }
    }

    /// Moves the tail into the chunks without copying it.
    fn seal(&mut self) {
        self.full.push(Arc::new(std::mem::take(&mut self.tail)));
    }

    /// Appends `other`'s entries after this log's, moving its chunks
    /// rather than copying entries (this log's tail becomes a chunk of its
    /// own, not full).
    pub fn append(&mut self, other: ChunkLog<T>) {
        if !self.tail.is_empty() {
            self.seal();
        }
        self.full.extend(other.full);
        self.tail = other.tail;
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

#[cfg(test)]
mod tests {
    use super::ChunkLog;

    fn log(range: std::ops::Range<u32>) -> ChunkLog<u32> {
        let mut l = ChunkLog::default();
        for v in range {
            l.push(v);
        }
        l
    }

    /// Logs appended keep every entry once, in order: the first log's,
    /// then the second's, whichever of them ends mid-chunk, and pushes
    /// after go to the end. The expected lists are the ranges written out.
    #[test]
    fn appended_logs_hold_both_in_order() {
        let chunk = ChunkLog::<u32>::CHUNK as u32;
        for (a, b) in [
            (0, 0),
            (3, 0),
            (0, 5),
            (3, 5),
            (chunk, 2),
            (chunk + 3, 2 * chunk + 1),
            (2 * chunk, chunk),
        ] {
            let mut first = log(0..a);
            first.append(log(1_000_000..1_000_000 + b));
            for v in 7..7 + chunk + 1 {
                first.push(v);
            }
            let want: Vec<u32> = (0..a)
                .chain(1_000_000..1_000_000 + b)
                .chain(7..7 + chunk + 1)
                .collect();
            let got: Vec<u32> = first.iter().copied().collect();
            assert_eq!(got, want, "{a} then {b}");
        }
    }

    /// Appending moves the other log's full chunks: a clone of it still
    /// shares them (no entry was copied).
    #[test]
    fn appending_moves_full_chunks() {
        let other = log(0..3000);
        let kept = other.clone();
        let mut l = log(0..10);
        l.append(other);
        assert_eq!(l.full.len(), 3, "the first log's tail and two full chunks");
        for (mine, theirs) in l.full[1..].iter().zip(&kept.full) {
            assert!(std::sync::Arc::ptr_eq(mine, theirs));
        }
    }
}
