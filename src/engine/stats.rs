//! Counters: what docs/execution-model.md defines, per warp, per pc and in total.

/// Why a resident warp did or did not issue in a cycle, as Nsight Compute
/// names its warp states. Every resident warp is in exactly one per cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// Issued this cycle.
    Selected,
    /// Eligible, but the scheduler picked another warp.
    NotSelected,
    /// Waiting out the previous instruction's static stall count.
    Wait,
    /// Waiting on a scoreboard set by a global-memory producer.
    LongScoreboard,
    /// Waiting on a scoreboard set by an on-SM producer (MUFU, LDS, SHFL).
    ShortScoreboard,
    /// Waiting at a block barrier (`BAR.SYNC`).
    Barrier,
    /// Waiting for a taken branch to resolve (`latency.branch`).
    BranchResolving,
    /// The MUFU pipe is busy with another warp's instruction.
    MathPipeThrottle,
    /// Selected, but the shared memory pipe was taken by another scheduler.
    DispatchStall,
    /// `its`: every group waits at `BSYNC` or `WARPSYNC`.
    ConvergenceBarrier,
    /// Exited, waiting for its block's other warps to finish.
    Exited,
}

impl Reason {
    pub const COUNT: usize = 11;
    pub const ALL: [Reason; Reason::COUNT] = [
        Reason::Selected,
        Reason::NotSelected,
        Reason::Wait,
        Reason::LongScoreboard,
        Reason::ShortScoreboard,
        Reason::Barrier,
        Reason::BranchResolving,
        Reason::MathPipeThrottle,
        Reason::DispatchStall,
        Reason::ConvergenceBarrier,
        Reason::Exited,
    ];

    /// The report key, as Nsight Compute spells the reason.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Selected => "selected",
            Reason::NotSelected => "not_selected",
            Reason::Wait => "wait",
            Reason::LongScoreboard => "long_scoreboard",
            Reason::ShortScoreboard => "short_scoreboard",
            Reason::Barrier => "barrier",
            Reason::BranchResolving => "branch_resolving",
            Reason::MathPipeThrottle => "math_pipe_throttle",
            Reason::DispatchStall => "dispatch_stall",
            Reason::ConvergenceBarrier => "convergence_barrier",
            Reason::Exited => "exited",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// What the reason means, in a line (the stepper's help).
    pub fn meaning(self) -> &'static str {
        match self {
            Reason::Selected => "issued this cycle",
            Reason::NotSelected => "eligible, but the scheduler picked another warp",
            Reason::Wait => {
                "waiting out the last instruction's stall count (S in its control code)"
            }
            Reason::LongScoreboard => {
                "waiting on a scoreboard of a producer that leaves the SM (LDG, STG, LDL, STL, ATOMG, RED)"
            }
            Reason::ShortScoreboard => {
                "waiting on a scoreboard of a variable-latency producer on the SM (MUFU, LDS, STS, SHFL, DFMA, ...)"
            }
            Reason::Barrier => "waiting at a block barrier (BAR.SYNC) for the block's other warps",
            Reason::BranchResolving => "waiting for a taken branch to resolve",
            Reason::MathPipeThrottle => "the MUFU pipe is busy with another warp's instruction",
            Reason::DispatchStall => {
                "selected, but another scheduler took the shared memory pipe: the slot is lost"
            }
            Reason::ConvergenceBarrier => "its: every group waits at BSYNC or WARPSYNC",
            Reason::Exited => "exited, waiting for its block's other warps to finish",
        }
    }
}

/// Warp-cycles per reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReasonCounts(pub [u64; Reason::COUNT]);

impl ReasonCounts {
    pub fn add(&mut self, r: Reason, n: u64) {
        self.0[r.index()] += n;
    }

    pub fn get(&self, r: Reason) -> u64 {
        self.0[r.index()]
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    pub fn merge(&mut self, other: &ReasonCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}

/// Where the lane-slots of issued instructions went: `W * issued` in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaneSlots {
    /// Lanes that did useful work (active and predicated on).
    pub predicated_on: u64,
    /// Active lanes whose guard predicate was false.
    pub predicated_off: u64,
    /// Launched, live lanes parked by divergence (not in the active mask).
    pub divergence: u64,
    /// Lanes that already exited (or faulted).
    pub exited: u64,
    /// The tail of a partial warp: never launched.
    pub never_launched: u64,
}

/// The execution counters of docs/execution-model.md for one warp or a whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// `I`: warp instructions issued.
    pub issued: u64,
    /// `sum A_j`: active lanes per issued instruction.
    pub thread_inst_executed: u64,
    /// `sum P_j`: predicated-on lanes per issued instruction.
    pub thread_inst_executed_pred_on: u64,
    /// BRA and BREAK instructions issued.
    pub branches: u64,
    /// Branches whose active lanes did not all go the same way.
    pub divergent_branches: u64,
    /// Lane-slots of issued instructions whose lane had exited or faulted.
    pub exited_slots: u64,
    /// Lane-slots of issued instructions whose lane was never launched.
    pub never_launched_slots: u64,
    /// Warp-cycles per reason (the true cause).
    pub stalls: ReasonCounts,
    /// Long-scoreboard warp-cycles a profiler labels short (the
    /// scoreboard's latest setter was an on-SM producer).
    pub long_labelled_short: u64,
    /// Short-scoreboard warp-cycles a profiler labels long.
    pub short_labelled_long: u64,
}

impl Counters {
    pub fn merge(&mut self, o: &Counters) {
        self.issued += o.issued;
        self.thread_inst_executed += o.thread_inst_executed;
        self.thread_inst_executed_pred_on += o.thread_inst_executed_pred_on;
        self.branches += o.branches;
        self.divergent_branches += o.divergent_branches;
        self.exited_slots += o.exited_slots;
        self.never_launched_slots += o.never_launched_slots;
        self.stalls.merge(&o.stalls);
        self.long_labelled_short += o.long_labelled_short;
        self.short_labelled_long += o.short_labelled_long;
    }

    /// Charges `n` warp-cycles to `reason`, which a profiler would call
    /// `labelled` (they differ only between the two scoreboard reasons).
    #[inline]
    pub fn charge(&mut self, reason: Reason, labelled: Reason, n: u64) {
        self.stalls.add(reason, n);
        if reason != labelled {
            if reason == Reason::LongScoreboard {
                self.long_labelled_short += n;
            } else {
                self.short_labelled_long += n;
            }
        }
    }

    /// Warp-cycles per reason as a profiler would label them: scoreboard
    /// stalls classified by the scoreboard's latest setter.
    pub fn stalls_profiled(&self) -> ReasonCounts {
        let mut p = self.stalls;
        let (ls, sl) = (self.long_labelled_short, self.short_labelled_long);
        p.0[Reason::LongScoreboard.index()] = p.get(Reason::LongScoreboard) - ls + sl;
        p.0[Reason::ShortScoreboard.index()] = p.get(Reason::ShortScoreboard) - sl + ls;
        p
    }

    /// Warp-cycles in which the profiler's label differs from the cause.
    pub fn mislabeled_cycles(&self) -> u64 {
        self.long_labelled_short + self.short_labelled_long
    }

    /// Where the `W * I` lane-slots went. Only the exited and never-launched
    /// parts are counted per issue; the rest follow from `sum A` and `sum P`.
    pub fn lane_slots(&self, width: u32) -> LaneSlots {
        let total = u64::from(width) * self.issued;
        LaneSlots {
            predicated_on: self.thread_inst_executed_pred_on,
            predicated_off: self.thread_inst_executed - self.thread_inst_executed_pred_on,
            divergence: total
                .saturating_sub(self.thread_inst_executed)
                .saturating_sub(self.exited_slots)
                .saturating_sub(self.never_launched_slots),
            exited: self.exited_slots,
            never_launched: self.never_launched_slots,
        }
    }

    /// SIMD efficiency `sum P_j / (W * I)`; `None` before anything issued.
    pub fn simd_efficiency(&self, width: u32) -> Option<f64> {
        ratio(
            self.thread_inst_executed_pred_on,
            u64::from(width) * self.issued,
        )
    }

    /// Active-lane efficiency `sum A_j / (W * I)`.
    pub fn active_lane_efficiency(&self, width: u32) -> Option<f64> {
        ratio(self.thread_inst_executed, u64::from(width) * self.issued)
    }

    /// Average threads per instruction `sum A_j / I`.
    pub fn avg_threads_per_inst(&self) -> Option<f64> {
        ratio(self.thread_inst_executed, self.issued)
    }

    /// Branch efficiency `(branches - divergent) / branches`; `None`
    /// without branches.
    pub fn branch_efficiency(&self) -> Option<f64> {
        ratio(self.branches - self.divergent_branches, self.branches)
    }
}

/// `num / den`, or `None` when `den` is zero.
pub fn ratio(num: u64, den: u64) -> Option<f64> {
    (den != 0).then(|| num as f64 / den as f64)
}

/// Counters of one static instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PcCounters {
    /// Warp-level executions (issues).
    pub executions: u64,
    pub thread_inst_executed: u64,
    pub thread_inst_executed_pred_on: u64,
    /// Warp-cycles warps spent with this as their next instruction, by reason.
    pub stalls: ReasonCounts,
    /// Issues of this instruction that were a branch (`BRA`, `BREAK`).
    pub branches: u64,
    /// Of those, the ones whose active lanes did not all go the same way.
    pub divergent_branches: u64,
}

/// Memory system counters (docs/execution-model.md, "Memory").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryCounters {
    /// LDG/STG instructions with at least one lane on.
    pub global_requests: u64,
    /// Distinct 32-byte sectors touched, summed over requests.
    pub global_sectors: u64,
    /// Distinct 128-byte lines touched (transactions), summed over requests.
    pub global_transactions: u64,
    /// Sectors a fully coalesced access of the same bytes would touch.
    pub ideal_sectors: u64,
    /// Distinct bytes the lanes asked for, summed over requests.
    pub requested_bytes: u64,
    /// `global_sectors * 32`.
    pub transferred_bytes: u64,
    /// LDS/STS instructions with at least one lane on.
    pub shared_requests: u64,
    /// Extra passes caused by bank conflicts (worst bank's distinct words
    /// minus one, summed over requests).
    pub shared_bank_conflicts: u64,
}

impl PcCounters {
    /// Adds another machine's counts of the same instruction.
    pub fn merge(&mut self, o: &PcCounters) {
        self.executions += o.executions;
        self.thread_inst_executed += o.thread_inst_executed;
        self.thread_inst_executed_pred_on += o.thread_inst_executed_pred_on;
        self.stalls.merge(&o.stalls);
        self.branches += o.branches;
        self.divergent_branches += o.divergent_branches;
    }
}

impl MemoryCounters {
    /// Adds another machine's counts.
    pub fn merge(&mut self, o: &MemoryCounters) {
        self.global_requests += o.global_requests;
        self.global_sectors += o.global_sectors;
        self.global_transactions += o.global_transactions;
        self.ideal_sectors += o.ideal_sectors;
        self.requested_bytes += o.requested_bytes;
        self.transferred_bytes += o.transferred_bytes;
        self.shared_requests += o.shared_requests;
        self.shared_bank_conflicts += o.shared_bank_conflicts;
    }

    pub fn transaction_efficiency(&self) -> Option<f64> {
        ratio(self.requested_bytes, self.transferred_bytes)
    }
}
