//! `machine:` and `launch:`: every key with its range, and the checks that
//! involve both (a block must fit on an SM).

use serde_saphyr::Spanned;

use super::error::{Pos, SourceFile};
use super::raw::{Leaf, Node, RawLaunch, RawMachine};
use super::{Convergence, GroupPolicy, LaunchSpec, LoadError, MachineSpec, Policy, leaf};
use crate::engine::{ConfigError, Dim3, MachineConfig};

/// Most threads a grid may have: keeps per-thread state and load-time input
/// checks bounded.
pub(super) const MAX_THREADS: u64 = 1 << 30;
/// Most shared memory a block may ask for (228 KiB, an H100 SM's maximum).
pub(super) const MAX_SHARED_BYTES: u32 = 233_472;
/// Shared memory per block when `launch.shared_bytes` is not given.
pub(super) const DEFAULT_SHARED_BYTES: u32 = 49_152;

/// A launch key's range, and why it has that range.
struct Limit {
    key: &'static str,
    min: u64,
    max: u64,
    why: Option<&'static str>,
    get: fn(&LaunchSpec) -> u64,
}

/// Every numeric launch key. The machine's keys are the engine's
/// [`MachineConfig::LIMITS`] under `machine.`. Loading reads each key
/// against its range, and [`check`] re-checks them all (for command-line
/// overrides), so the two can never disagree.
const LIMITS: &[Limit] = &[
    Limit {
        key: "launch.blocks",
        min: 1,
        max: MAX_THREADS,
        why: None,
        get: |l| l.blocks.into(),
    },
    Limit {
        key: "launch.block_dim",
        min: 1,
        max: MAX_THREADS,
        why: None,
        get: |l| l.block_dim.into(),
    },
    Limit {
        key: "launch.shared_bytes",
        min: 0,
        max: MAX_SHARED_BYTES as u64,
        why: Some("228 KiB is the most shared memory a block can have"),
        get: |l| l.shared_bytes.into(),
    },
];

/// The range of key `key` (`machine.warp_width`, `launch.blocks`) and why.
fn limit(key: &str) -> Option<(u64, u64, Option<&'static str>)> {
    match key.strip_prefix("machine.") {
        Some(field) => MachineConfig::limit(field).map(|l| (l.min, l.max, l.why)),
        None => LIMITS
            .iter()
            .find(|l| l.key == key)
            .map(|l| (l.min, l.max, l.why)),
    }
}

/// The message of a key out of range, as loading words it.
fn out_of_range(key: &str, v: u64, min: u64, max: u64, why: Option<&str>) -> String {
    let mut msg = format!(
        "`{key}` is {v}, out of range: expected {}",
        leaf::describe_range(min.into(), max.into())
    );
    if let Some(why) = why {
        msg.push_str(&format!(" ({why})"));
    }
    msg
}

/// Reads an optional numeric key against its [`Limit`].
fn number(src: &SourceFile<'_>, leaf: &Leaf, key: &str) -> Result<Option<u64>, LoadError> {
    let Some(leaf) = leaf else { return Ok(None) };
    let (min, max, why) = limit(key).unwrap_or((0, u64::MAX, None));
    let v = leaf::int(src, leaf, key, min.into(), max.into(), why)?;
    // In range, so it fits: the range came from a u64.
    Ok(u64::try_from(v).ok())
}

/// Reads `launch.blocks` or `launch.block_dim`: a number (x only), or a
/// list of one to three numbers `[x, y, z]` whose product is the total.
/// Sets `total`, and returns the shape for a list.
fn shape(
    src: &SourceFile<'_>,
    leaf: &Leaf,
    key: &str,
    total: &mut u32,
) -> Result<Option<Dim3>, LoadError> {
    let Some(node) = leaf else { return Ok(None) };
    let Node::Seq(items) = &node.value else {
        number32(src, leaf, key, total)?;
        return Ok(None);
    };
    if items.is_empty() || items.len() > 3 {
        return Err(src
            .error(
                Pos::of(node),
                key,
                format!("`{key}` has {} dimensions", items.len()),
            )
            .expected("a number, or a list of 1 to 3 numbers `[x, y, z]`")
            .hint(Some(format!("e.g. `{}: [32, 8]`", last_part(key)))));
    }
    let (min, max, why) = limit(key).unwrap_or((1, MAX_THREADS, None));
    let mut dims = [1u32; 3];
    for (slot, item) in dims.iter_mut().zip(items) {
        let v = leaf::int(src, item, key, min.into(), max.into(), why)?;
        *slot = u32::try_from(v).unwrap_or(u32::MAX);
    }
    let d = Dim3 {
        x: dims[0],
        y: dims[1],
        z: dims[2],
    };
    let product = u64::from(d.x) * u64::from(d.y) * u64::from(d.z);
    if product > max {
        return Err(src
            .error(
                Pos::of(node),
                key,
                format!("`{key}` is {product} in all ({}), out of range", {
                    let parts: Vec<String> =
                        dims[..items.len()].iter().map(u32::to_string).collect();
                    parts.join(" x ")
                }),
            )
            .expected(leaf::describe_range(min.into(), max.into())));
    }
    *total = product as u32;
    Ok(Some(d))
}

/// The last part of a dotted key (`block_dim` of `launch.block_dim`).
fn last_part(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}

fn number32(src: &SourceFile<'_>, leaf: &Leaf, key: &str, slot: &mut u32) -> Result<(), LoadError> {
    if let Some(v) = number(src, leaf, key)? {
        *slot = u32::try_from(v).unwrap_or(u32::MAX);
    }
    Ok(())
}

/// `machine:` with defaults for what it leaves out.
pub(super) fn load_machine(
    src: &SourceFile<'_>,
    raw: Option<&Spanned<RawMachine>>,
) -> Result<MachineSpec, LoadError> {
    let mut m = MachineSpec::default();
    let Some(raw) = raw else { return Ok(m) };
    let r = &raw.value;
    number32(src, &r.warp_width, "machine.warp_width", &mut m.warp_width)?;
    if let Some(l) = &r.convergence {
        m.convergence = leaf::choice(
            src,
            l,
            "machine.convergence",
            &[("stack", Convergence::Stack), ("its", Convergence::Its)],
        )?;
    }
    if let Some(l) = &r.taken_first {
        m.taken_first = leaf::boolean(src, l, "machine.taken_first")?;
    }
    number32(src, &r.schedulers, "machine.schedulers", &mut m.schedulers)?;
    if let Some(l) = &r.policy {
        m.policy = leaf::choice(
            src,
            l,
            "machine.policy",
            &[("lrr", Policy::Lrr), ("gto", Policy::Gto)],
        )?;
    }
    if let Some(l) = &r.group_policy {
        m.group_policy = leaf::choice(
            src,
            l,
            "machine.group_policy",
            &[
                ("sticky", GroupPolicy::Sticky),
                ("lowest_pc", GroupPolicy::LowestPc),
            ],
        )?;
    }
    number32(src, &r.sms, "machine.sms", &mut m.sms)?;
    number32(
        src,
        &r.max_warps_per_sm,
        "machine.max_warps_per_sm",
        &mut m.max_warps_per_sm,
    )?;
    number32(
        src,
        &r.max_blocks_per_sm,
        "machine.max_blocks_per_sm",
        &mut m.max_blocks_per_sm,
    )?;
    number32(
        src,
        &r.shared_banks,
        "machine.shared_banks",
        &mut m.shared_banks,
    )?;
    if let Some(lat) = &r.latency {
        let l = &lat.value;
        let t = &mut m.latency;
        number32(src, &l.alu, "machine.latency.alu", &mut t.alu)?;
        number32(src, &l.sfu, "machine.latency.sfu", &mut t.sfu)?;
        number32(src, &l.shared, "machine.latency.shared", &mut t.shared)?;
        number32(src, &l.global, "machine.latency.global", &mut t.global)?;
        number32(
            src,
            &l.global_per_extra_line,
            "machine.latency.global_per_extra_line",
            &mut t.global_per_extra_line,
        )?;
        number32(src, &l.branch, "machine.latency.branch", &mut t.branch)?;
        number32(
            src,
            &l.sfu_interval,
            "machine.latency.sfu_interval",
            &mut t.sfu_interval,
        )?;
        number32(
            src,
            &l.shared_replay,
            "machine.latency.shared_replay",
            &mut t.shared_replay,
        )?;
        number32(
            src,
            &l.read_barrier,
            "machine.latency.read_barrier",
            &mut t.read_barrier,
        )?;
        number32(src, &l.special, "machine.latency.special", &mut t.special)?;
        number32(
            src,
            &l.constant,
            "machine.latency.constant",
            &mut t.constant,
        )?;
        if let Some(v) = number(src, &l.shuffle, "machine.latency.shuffle")? {
            t.shuffle = Some(u32::try_from(v).unwrap_or(u32::MAX));
        }
        if let Some(v) = number(src, &l.atomic, "machine.latency.atomic")? {
            t.atomic = Some(u32::try_from(v).unwrap_or(u32::MAX));
        }
    }
    if let Some(v) = number(src, &r.max_cycles, "machine.max_cycles")? {
        m.max_cycles = v;
    }
    Ok(m)
}

/// `launch:`; without it, one block of 32 threads (docs/scenario-format.md's example).
/// Also checks that a block fits on an SM and the grid is not too large,
/// pointing at the launch key responsible.
pub(super) fn load_launch(
    src: &SourceFile<'_>,
    raw: Option<&Spanned<RawLaunch>>,
    machine: &MachineSpec,
) -> Result<LaunchSpec, LoadError> {
    let mut launch = LaunchSpec {
        blocks: 1,
        block_dim: 32,
        shared_bytes: DEFAULT_SHARED_BYTES,
        block_shape: None,
        grid_shape: None,
    };
    let Some(raw) = raw else {
        return Ok(launch);
    };
    let r = &raw.value;
    // The leaf that sets the block size, for the fit check's position.
    let block_leaf: &Spanned<Node>;
    match (&r.threads, &r.blocks, &r.block_dim) {
        (Some(t), None, None) => {
            let v = leaf::int(src, t, "launch.threads", 1, MAX_THREADS.into(), None)?;
            launch.block_dim = u32::try_from(v).unwrap_or(u32::MAX);
            block_leaf = t;
        }
        (None, Some(_), Some(d)) => {
            launch.grid_shape = shape(src, &r.blocks, "launch.blocks", &mut launch.blocks)?;
            launch.block_shape =
                shape(src, &r.block_dim, "launch.block_dim", &mut launch.block_dim)?;
            block_leaf = d;
        }
        (Some(t), _, _) => {
            return Err(src
                .error(
                    Pos::of(t),
                    "launch.threads",
                    "`launch.threads` cannot be combined with `blocks` or `block_dim`",
                )
                .expected("either `threads`, or `blocks` and `block_dim`")
                .hint(Some(
                    "`threads: n` is one block of n threads; remove one of the forms".into(),
                )));
        }
        (None, Some(b), None) => {
            return Err(src
                .error(
                    Pos::of(b),
                    "launch.block_dim",
                    "`launch.blocks` needs `block_dim`",
                )
                .expected("`blocks` and `block_dim` together")
                .hint(Some("add `block_dim: 256` (threads per block)".into())));
        }
        (None, None, Some(d)) => {
            return Err(src
                .error(
                    Pos::of(d),
                    "launch.blocks",
                    "`launch.block_dim` needs `blocks`",
                )
                .expected("`blocks` and `block_dim` together")
                .hint(Some(
                    "add `blocks: 1`, or write `threads:` for one block".into(),
                )));
        }
        (None, None, None) => {
            return Err(src
                .error(Pos::of(raw), "launch", "`launch` gives no thread count")
                .expected("either `threads`, or `blocks` and `block_dim`")
                .hint(Some("e.g. `launch: {threads: 32}`".into())));
        }
    }
    number32(
        src,
        &r.shared_bytes,
        "launch.shared_bytes",
        &mut launch.shared_bytes,
    )?;
    if let Some((message, expected, hint)) = fit_problem(machine, &launch) {
        let key = if r.threads.is_some() {
            "launch.threads"
        } else {
            "launch.block_dim"
        };
        return Err(src
            .error(
                Pos::of(block_leaf),
                key,
                format!("`{key}` too large: {message}"),
            )
            .expected(expected)
            .hint(Some(hint)));
    }
    if launch.threads() > MAX_THREADS {
        let at = r.blocks.as_ref().unwrap_or(block_leaf);
        return Err(src
            .error(
                Pos::of(at),
                "launch.blocks",
                format!(
                    "the grid has {} threads, more than the {MAX_THREADS} allowed",
                    launch.threads()
                ),
            )
            .expected(format!(
                "at most {MAX_THREADS} threads (blocks x block_dim)"
            ))
            .hint(Some(
                "a smaller grid shows the same behaviour per warp".into(),
            )));
    }
    Ok(launch)
}

/// A block that cannot fit on one SM: (message, expected, hint).
fn fit_problem(m: &MachineSpec, l: &LaunchSpec) -> Option<(String, String, String)> {
    let warps = l.block_dim.div_ceil(m.warp_width.max(1));
    (warps > m.max_warps_per_sm).then(|| {
        (
            format!(
                "a block of {} threads needs {warps} warps of {}, but an SM holds {} \
                 (`machine.max_warps_per_sm`)",
                l.block_dim, m.warp_width, m.max_warps_per_sm
            ),
            format!(
                "at most {} threads per block (machine.max_warps_per_sm x warp_width)",
                u64::from(m.max_warps_per_sm) * u64::from(m.warp_width)
            ),
            "use more blocks of fewer threads, or raise `machine.max_warps_per_sm`".into(),
        )
    })
}

/// Every machine and launch range, and the cross checks, for a spec that
/// may have been changed after loading (command-line overrides).
pub(super) fn check(m: &MachineSpec, l: &LaunchSpec) -> Result<(), String> {
    match m.validate() {
        Err(ConfigError::OutOfRange {
            field,
            value,
            min,
            max,
            why,
        }) => {
            return Err(out_of_range(
                &format!("machine.{field}"),
                value,
                min,
                max,
                why,
            ));
        }
        Err(e) => return Err(e.to_string()),
        Ok(()) => {}
    }
    for lim in LIMITS {
        let v = (lim.get)(l);
        if v < lim.min || v > lim.max {
            return Err(out_of_range(lim.key, v, lim.min, lim.max, lim.why));
        }
    }
    if let Some((message, expected, _)) = fit_problem(m, l) {
        return Err(format!("{message}: expected {expected}"));
    }
    if l.threads() > MAX_THREADS {
        return Err(format!(
            "the grid has {} threads, more than the {MAX_THREADS} allowed",
            l.threads()
        ));
    }
    Ok(())
}
