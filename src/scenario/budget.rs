//! Budgets a scenario is held to before anything large is allocated: the
//! program's size, and the simulator memory its launch needs, estimated up
//! front and refused above a limit the user can raise (`--memory-limit`).
//!
//! The per-warp figures are measured, not guessed: `warpstep run` of an
//! EXIT-only kernel at 4,096 and 65,536 blocks of 1,024 threads peaked at
//! 77,572 and 1,145,032 KiB, 556 bytes per warp (retired warps keep their
//! counters for the report). With `--format json` they peaked at 78,564
//! and 1,145,908 KiB, the text report's figures: the report is serialised
//! straight to the output, with no JSON tree, so it adds nothing per warp.
//! The constants round those up.

use std::sync::atomic::{AtomicU64, Ordering};

use super::error::{Pos, SourceFile};
use super::{BufferSpec, LaunchSpec, LoadError, MachineSpec};

/// Lines a program may have (a listing prints one or two per instruction).
pub const MAX_PROGRAM_LINES: usize = 1 << 18;

/// Instructions a program may have: 1 MiB of SASS, far above what nvcc
/// emits for one kernel; each costs the stepper per-instruction counters in
/// every checkpoint.
pub const MAX_INSTRUCTIONS: usize = 1 << 16;

/// The default memory budget, 4 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

/// Engine bytes per launched warp (measured 556).
const WARP_BYTES: u64 = 640;
/// Extra bytes per warp while a JSON report is written (measured 0: the
/// typed report the text one also builds is serialised as it is written;
/// the tree it replaced took 3,170).
const JSON_WARP_BYTES: u64 = 0;
/// Bytes per instruction of a loaded program (measured about 860 for a
/// program of NOPs: text, parse, linked code and per-pc counters).
const INSTR_BYTES: u64 = 1_024;

/// Machine copies the stepper keeps to step back: at most 64 coarse and
/// 16 fine checkpoints (`COARSE_KEEP + FINE_KEEP` in `session::timeline`,
/// which sits above this module; a test holds the two equal), each a
/// clone of the machine. A clone copies every warp's state; buffer pages
/// are shared copy-on-write until written, and are counted as if every
/// checkpoint held its own copy, the most they can cost.
pub const CHECKPOINTS: u64 = 80;

static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(DEFAULT_MEMORY_LIMIT);

/// Sets the memory budget for scenarios loaded from now on (the command
/// line's `--memory-limit`); one value for the process.
pub fn set_memory_limit(bytes: u64) {
    MEMORY_LIMIT.store(bytes, Ordering::Relaxed);
}

/// The memory budget in bytes.
pub fn memory_limit() -> u64 {
    MEMORY_LIMIT.load(Ordering::Relaxed)
}

/// What a launch is expected to need at its peak, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// The machine: warps (live and retired), buffers (the initial image
    /// and the machine's memory), the program.
    pub engine: u64,
    /// What a JSON report adds while it is built.
    pub json_report: u64,
    /// The stepper (and `record`, `replay`): the machine and its
    /// [`CHECKPOINTS`] copies.
    pub stepper: u64,
}

/// The footprint of `launch` on `machine` with `buffers` and a program of
/// `instrs` instructions.
pub fn footprint(
    machine: &MachineSpec,
    launch: &LaunchSpec,
    buffers: &[BufferSpec],
    instrs: usize,
) -> Footprint {
    let warp_width = u64::from(machine.warp_width.max(1));
    let warps =
        u64::from(launch.blocks).saturating_mul(u64::from(launch.block_dim).div_ceil(warp_width));
    let buffer_bytes: u64 = buffers.iter().map(|b| u64::from(b.bytes())).sum();
    let program = (instrs as u64).saturating_mul(INSTR_BYTES);
    let engine = warps
        .saturating_mul(WARP_BYTES)
        .saturating_add(buffer_bytes.saturating_mul(2))
        .saturating_add(program);
    // The initial image, the machine's memory and one copy per checkpoint.
    let stepper = warps
        .saturating_mul(WARP_BYTES)
        .saturating_mul(1 + CHECKPOINTS)
        .saturating_add(buffer_bytes.saturating_mul(2 + CHECKPOINTS))
        .saturating_add(program);
    Footprint {
        engine,
        json_report: warps.saturating_mul(JSON_WARP_BYTES),
        stepper,
    }
}

/// A size for messages: `4.0 GiB`, `512.0 MiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// Reads a `--memory-limit` value: bytes, or a number with K, M, G or T
/// (powers of 1024; `KiB`, `MB` and the like are read the same way).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{text}` is not a size (write e.g. 8G, 512M or 1000000)"))?;
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches(['B', 'I'])
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("`{text}`: unknown unit (use K, M, G or T)")),
    };
    let bytes = value * (1u64 << shift) as f64;
    if !(1.0..=(1u64 << 50) as f64).contains(&bytes) {
        return Err(format!("`{text}` is out of range (1 byte to 1024T)"));
    }
    Ok(bytes as u64)
}

/// Refuses a program of more than [`MAX_PROGRAM_LINES`] lines before it is
/// parsed, at the line past the limit.
pub(super) fn check_program_lines(
    src: &SourceFile<'_>,
    text: &str,
    anchor: (u32, u32),
) -> Result<(), LoadError> {
    let Some((n, _)) = text.lines().enumerate().nth(MAX_PROGRAM_LINES) else {
        return Ok(());
    };
    let line = anchor.0.saturating_add(n as u32);
    Err(src
        .error(
            Pos::new(line, 1, 1),
            "program",
            format!("the program has more than {MAX_PROGRAM_LINES} lines"),
        )
        .expected(format!(
            "at most {MAX_PROGRAM_LINES} lines and {MAX_INSTRUCTIONS} instructions"
        ))
        .hint(Some(
            "a kernel that large is not one to step through; see Budgets in the README".into(),
        )))
}

/// Refuses a program of more than [`MAX_INSTRUCTIONS`] instructions.
pub(super) fn check_instructions(
    src: &SourceFile<'_>,
    instrs: usize,
    anchor: (u32, u32),
) -> Result<(), LoadError> {
    if instrs <= MAX_INSTRUCTIONS {
        return Ok(());
    }
    Err(src
        .error(
            Pos::new(anchor.0, 1, 1),
            "program",
            format!(
                "the program has {instrs} instructions, more than the {MAX_INSTRUCTIONS} allowed"
            ),
        )
        .expected(format!("at most {MAX_INSTRUCTIONS} instructions"))
        .hint(Some("see Budgets in the README".into())))
}

/// The message when a launch's estimated footprint is above the budget,
/// or `None` when it fits.
pub fn over_budget(need: u64, what: &str) -> Option<String> {
    let limit = memory_limit();
    (need > limit).then(|| {
        format!(
            "{what} needs about {} of memory, more than the {} budget",
            human(need),
            human(limit)
        )
    })
}

/// Refuses a launch whose engine footprint is above the budget, at `pos`
/// (the `launch:` key).
pub(super) fn check_launch(
    src: &SourceFile<'_>,
    pos: Pos,
    need: &Footprint,
) -> Result<(), LoadError> {
    let Some(message) = over_budget(need.engine, "the launch") else {
        return Ok(());
    };
    Err(src
        .error(pos, "launch", message)
        .expected(format!(
            "at most {} (`--memory-limit`)",
            human(memory_limit())
        ))
        .hint(Some(
            "launch fewer threads (a smaller grid shows the same behaviour per warp), \
             or raise the budget with `--memory-limit 16G`"
                .into(),
        )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_binary_units() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("4Q").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn sizes_print_in_binary_units() {
        assert_eq!(human(4 << 30), "4.0 GiB");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(12), "12 bytes");
    }
}
