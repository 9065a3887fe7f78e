//! The machine a kernel runs on: how wide a warp is, how it diverges and
//! reconverges, how its schedulers pick warps, how many SMs and slots it
//! has, and what each pipe's latency is. Everything the cycle loop reads
//! about the hardware, and nothing about the program.

use std::fmt;

/// The convergence model: how a warp's lanes split at a divergent branch
/// and meet again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Convergence {
    /// Pre-Volta SIMT reconvergence stack with IPDOM reconvergence.
    Stack,
    /// Volta+ independent thread scheduling with convergence barriers.
    Its,
}

/// Warp scheduling policy: which eligible warp a scheduler issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Loose round robin: the next eligible warp after the last one issued.
    Lrr,
    /// Greedy then oldest: stay on a warp while it can issue.
    Gto,
}

/// Which group of an `its` warp issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupPolicy {
    /// Stay with the current group until it blocks (scoreboard, convergence
    /// barrier) or yields, then take the lowest-pc ready group.
    Sticky,
    /// Always take the lowest-pc ready group.
    LowestPc,
}

/// Latencies and pipe rates, in cycles.
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
    /// `S2R`/`S2UR` whose written control code sets a write scoreboard
    /// (variable latency, as in compiled code); with derived codes they
    /// stay fixed-latency (`alu`).
    pub special: u32,
    /// `LDC` whose written control code sets a write scoreboard, as
    /// [`Self::special`].
    pub constant: u32,
    /// `SHFL` (short scoreboard); `None`: `shared`.
    pub shuffle: Option<u32>,
    /// `ATOMG`/`RED`/`REDG` (long scoreboard); `None`: `global`.
    pub atomic: Option<u32>,
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
            special: 20,
            constant: 20,
            shuffle: None,
            atomic: None,
        }
    }
}

/// The simulated GPU: its SMs, their warp slots and schedulers, and the
/// latencies of its pipes. Check it with [`MachineConfig::validate`]
/// ([`crate::engine::Machine::new`] does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineConfig {
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

impl Default for MachineConfig {
    fn default() -> Self {
        MachineConfig {
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

/// The range of one numeric field of [`MachineConfig`], and why it has
/// that range.
#[derive(Debug, Clone, Copy)]
pub struct FieldLimit {
    /// The field's path: `warp_width`, `latency.alu`.
    pub field: &'static str,
    pub min: u64,
    pub max: u64,
    pub why: Option<&'static str>,
    pub get: fn(&MachineConfig) -> u64,
}

const U32: u64 = u32::MAX as u64;

/// The most cycles a run may be given (`max_cycles`), 10^10: far above any
/// real scenario (the built-ins finish within 10^6), and bounded, so that
/// a file cannot ask for a run that never ends.
pub const MAX_CYCLES: u64 = 10_000_000_000;

impl MachineConfig {
    /// Warp schedulers an SM can have.
    pub const MAX_SCHEDULERS: u32 = 4;

    /// Every numeric field's range, in the order [`MachineConfig::validate`]
    /// checks them.
    pub const LIMITS: &'static [FieldLimit] = &[
        FieldLimit {
            field: "warp_width",
            min: 1,
            max: 64,
            why: Some("32 is an NVIDIA warp, 64 an AMD wavefront; lane masks are 64 bits"),
            get: |m| m.warp_width.into(),
        },
        FieldLimit {
            field: "schedulers",
            min: 1,
            max: MachineConfig::MAX_SCHEDULERS as u64,
            why: Some("an SM has at most 4 warp schedulers"),
            get: |m| m.schedulers.into(),
        },
        FieldLimit {
            field: "sms",
            min: 1,
            max: 1024,
            why: None,
            get: |m| m.sms.into(),
        },
        FieldLimit {
            field: "max_warps_per_sm",
            min: 1,
            max: 64,
            why: Some("warp slots are tracked in a 64-bit mask"),
            get: |m| m.max_warps_per_sm.into(),
        },
        FieldLimit {
            field: "max_blocks_per_sm",
            min: 1,
            max: U32,
            why: None,
            get: |m| m.max_blocks_per_sm.into(),
        },
        FieldLimit {
            field: "shared_banks",
            min: 1,
            max: 64,
            why: Some("32 banks of 4 bytes on every NVIDIA GPU since Kepler"),
            get: |m| m.shared_banks.into(),
        },
        FieldLimit {
            field: "latency.alu",
            min: 1,
            max: 64,
            why: Some("fixed-latency results are covered by stall counts, at most 64 cycles"),
            get: |m| m.latency.alu.into(),
        },
        FieldLimit {
            field: "latency.sfu",
            min: 1,
            max: U32,
            why: Some("a variable-latency result takes at least a cycle"),
            get: |m| m.latency.sfu.into(),
        },
        FieldLimit {
            field: "latency.shared",
            min: 1,
            max: U32,
            why: Some("a variable-latency result takes at least a cycle"),
            get: |m| m.latency.shared.into(),
        },
        FieldLimit {
            field: "latency.global",
            min: 1,
            max: U32,
            why: Some("a variable-latency result takes at least a cycle"),
            get: |m| m.latency.global.into(),
        },
        FieldLimit {
            field: "latency.global_per_extra_line",
            min: 0,
            max: U32,
            why: None,
            get: |m| m.latency.global_per_extra_line.into(),
        },
        FieldLimit {
            field: "latency.branch",
            min: 0,
            max: U32,
            why: None,
            get: |m| m.latency.branch.into(),
        },
        FieldLimit {
            field: "latency.sfu_interval",
            min: 1,
            max: U32,
            why: Some("the pipe accepts one instruction per this many cycles"),
            get: |m| m.latency.sfu_interval.into(),
        },
        FieldLimit {
            field: "latency.shared_replay",
            min: 0,
            max: U32,
            why: None,
            get: |m| m.latency.shared_replay.into(),
        },
        FieldLimit {
            field: "latency.read_barrier",
            min: 0,
            max: U32,
            why: None,
            get: |m| m.latency.read_barrier.into(),
        },
        FieldLimit {
            field: "latency.special",
            min: 1,
            max: U32,
            why: None,
            get: |m| m.latency.special.into(),
        },
        FieldLimit {
            field: "latency.constant",
            min: 1,
            max: U32,
            why: None,
            get: |m| m.latency.constant.into(),
        },
        FieldLimit {
            field: "latency.shuffle",
            min: 1,
            max: U32,
            why: None,
            get: |m| m.latency.shuffle.unwrap_or(m.latency.shared.max(1)).into(),
        },
        FieldLimit {
            field: "latency.atomic",
            min: 1,
            max: U32,
            why: None,
            get: |m| m.latency.atomic.unwrap_or(m.latency.global.max(1)).into(),
        },
        FieldLimit {
            field: "max_cycles",
            min: 1,
            max: MAX_CYCLES,
            why: Some("the longest run a scenario may ask for; see Budgets in the README"),
            get: |m| m.max_cycles,
        },
    ];

    /// The limit of field `field` (`warp_width`, `latency.alu`).
    pub fn limit(field: &str) -> Option<&'static FieldLimit> {
        Self::LIMITS.iter().find(|l| l.field == field)
    }

    /// Checks every field against its range; the first one out of range is
    /// the error.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for l in Self::LIMITS {
            let value = (l.get)(self);
            if value < l.min || value > l.max {
                return Err(ConfigError::OutOfRange {
                    field: l.field,
                    value,
                    min: l.min,
                    max: l.max,
                    why: l.why,
                });
            }
        }
        Ok(())
    }

    /// Warps a block of `block_dim` threads takes: warps never span blocks.
    pub fn warps_per_block(&self, block_dim: u32) -> u32 {
        block_dim.div_ceil(self.warp_width.max(1))
    }
}

/// A machine that cannot be built: a setting out of range, or a kernel
/// that does not fit it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// A field of [`MachineConfig`] out of its [`FieldLimit`].
    OutOfRange {
        field: &'static str,
        value: u64,
        min: u64,
        max: u64,
        why: Option<&'static str>,
    },
    /// A block needs more warp slots than an SM has.
    BlockTooLarge { warps: u32, max_warps_per_sm: u32 },
    /// The kernel was linked with other latencies than the machine's (its
    /// instructions carry their latencies): link it again for this one.
    LatencyMismatch,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::OutOfRange {
                field,
                value,
                min,
                max,
                why,
            } => {
                write!(
                    f,
                    "`{field}` is {value}, out of range: expected {min} to {max}"
                )?;
                match why {
                    Some(why) => write!(f, " ({why})"),
                    None => Ok(()),
                }
            }
            ConfigError::BlockTooLarge {
                warps,
                max_warps_per_sm,
            } => write!(
                f,
                "a block needs {warps} warps, but an SM holds {max_warps_per_sm}"
            ),
            ConfigError::LatencyMismatch => f.write_str(
                "the kernel was linked for other latencies than the machine's; link it again",
            ),
        }
    }
}

impl std::error::Error for ConfigError {}
