//! The cycle-level SM model.
//!
//! [`Machine`] is the only door in: build it from a [`MachineConfig`] and a
//! [`Kernel`] (a scenario builds both), call
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
//!
//! The files follow the phases of a cycle: `config` and `kernel` are the
//! input, `link` resolves the program against
//! them, `machine` is the facade, `cycle` the loop (dispatch, wake, retire,
//! deadlock), `parallel` the same loop with SMs on several threads,
//! `issue` what a selected warp does, `readiness` the one stall
//! rule, `hazards` the checks of explicit control codes, and `convergence`
//! the two models. Frontends read the state through [`view`], by ids.

mod config;
mod cycle;
mod hazards;
mod issue;
mod kernel;
mod link;
mod machine;
mod parallel;
mod readiness;
mod records;

pub(crate) mod convergence;
pub(crate) mod exec;
pub(crate) mod memory;
pub(crate) mod scoreboard;
pub(crate) mod sm;
pub mod stats;
pub mod view;
pub(crate) mod warp;

pub use config::{
    ConfigError, Convergence, FieldLimit, GroupPolicy, Latency, MAX_CYCLES, MachineConfig, Policy,
};
pub use kernel::{
    BufferSpec, DEFAULT_LOCAL_BYTES, Dim3, ElemType, InitTarget, InitialValue, Kernel, Launch,
    MAX_LOCAL_BYTES, SHARED_RESERVED_SM90, ThreadIds, ThreadInit, each_thread,
};
pub use link::Decoded;
pub use link::constant_key;
pub use machine::Machine;
pub use memory::{DEVICE_WINDOW, FaultKind};
pub use records::{Fault, FinalState, Hazard, HazardKind, IssueRecord, RunError, WarpRecord};
pub use stats::{Counters, MemoryCounters, PcCounters, Reason, ReasonCounts};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ctl;
#[cfg(test)]
mod tests_mem;
