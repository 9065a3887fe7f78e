//! The command line: `warpstep [SCENARIO]` opens the stepper; subcommands
//! run headless, check, test, record and replay.

mod commands;
pub mod jobs;
pub mod progress;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use commands::{apply_model, dispatch};

use crate::engine::ConfigError;
use crate::record::RecordError;
use crate::scenario::LoadError;
use crate::text::clean;
use crate::tui::TuiError;

/// Why a command could not do its work, with the exit status it ends with.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The scenario the stepper was asked to open does not load.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The scenario loads but the machine it describes cannot be built.
    #[error("{}: {error}", clean(.origin))]
    Machine { origin: String, error: ConfigError },
    #[error(transparent)]
    Tui(#[from] TuiError),
    #[error(transparent)]
    Record(#[from] RecordError),
}

impl CliError {
    /// 2 when what the user gave cannot be used (the message says all),
    /// a stepper started without a terminal among them, as `replay` does;
    /// 1 when the terminal or a file failed (the message and its causes).
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Load(_) | CliError::Machine { .. } => 2,
            CliError::Tui(TuiError::NoTerminal(_)) => 2,
            CliError::Tui(TuiError::Io(_)) => 1,
            CliError::Record(e) => e.exit_code(),
        }
    }
}

/// Step through GPU warp execution, one issue slot per keypress.
#[derive(Debug, Parser)]
#[command(
    name = "warpstep",
    version,
    about,
    long_about = "Step through GPU warp execution in a terminal, one issue slot per keypress, \
                  and see why a divergent kernel wastes its machine.\n\n\
                  SCENARIO is a YAML file or the name of a built-in scenario (`warpstep list`).",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub tui: TuiArgs,
    /// Memory a scenario's launch may need, estimated when it loads (e.g.
    /// 8G, 512M; default 4G). See Budgets in the README.
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::scenario::budget::parse_size)]
    pub memory_limit: Option<u64>,
}

/// Options of the interactive stepper.
#[derive(Debug, Args, Clone, Default)]
pub struct TuiArgs {
    /// Scenario file or built-in name (default: a built-in divergent loop).
    pub scenario: Option<String>,
    /// Draw with ASCII only (for terminals without Unicode box drawing).
    #[arg(long)]
    pub ascii: bool,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// The convergence model and scheduling policy of the stepper and of a
/// recording, overriding the scenario's `machine:`.
#[derive(Debug, Args, Clone, Default)]
pub struct ModelArgs {
    /// Convergence model: stack (pre-Volta, one reconvergence stack per
    /// warp) or its (Volta and newer, independent thread scheduling).
    #[arg(long, value_parser = ["stack", "its"])]
    pub convergence: Option<String>,
    /// Scheduling policy: lrr or gto.
    #[arg(long, value_parser = ["lrr", "gto"])]
    pub policy: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// Machine keys the command line can override, each as a comma list: a
/// list with several values runs every combination and compares them.
#[derive(Debug, Args, Clone, Default)]
pub struct Overrides {
    /// Convergence model(s): stack, its.
    #[arg(long, value_delimiter = ',')]
    pub convergence: Vec<String>,
    /// Scheduling policy(ies): lrr, gto.
    #[arg(long, value_delimiter = ',')]
    pub policy: Vec<String>,
    /// Group policy(ies) for `its`: sticky, lowest_pc.
    #[arg(long, value_delimiter = ',')]
    pub group_policy: Vec<String>,
    /// Lanes per warp (1..=64).
    #[arg(long, value_delimiter = ',')]
    pub warp_width: Vec<u32>,
    /// Warp schedulers per SM.
    #[arg(long, value_delimiter = ',')]
    pub schedulers: Vec<u32>,
    /// Streaming multiprocessors.
    #[arg(long, value_delimiter = ',')]
    pub sms: Vec<u32>,
    /// Warp slots per SM.
    #[arg(long, value_delimiter = ',')]
    pub max_warps_per_sm: Vec<u32>,
    /// Which side of a split runs first (`stack`): true, false.
    #[arg(long, value_delimiter = ',')]
    pub taken_first: Vec<bool>,
    /// Global memory latency in cycles.
    #[arg(long, value_delimiter = ',')]
    pub global_latency: Vec<u32>,
    /// Extra cycles per taken branch.
    #[arg(long, value_delimiter = ',')]
    pub branch_latency: Vec<u32>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario headless and print its report.
    Run {
        /// Scenario file or built-in name.
        scenario: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// Add the final contents of these buffers to the report
        /// (comma-separated names of `memory:`, or `all`).
        #[arg(long, value_name = "NAMES|all")]
        buffers: Option<String>,
        #[command(flatten)]
        overrides: Overrides,
        /// Threads: variants of a comparison grid run at once, each on its
        /// own; a single run simulates its SMs on up to N (default: the
        /// machine's cores). The report is the same for any number.
        #[arg(long, short = 'j', value_name = "N", value_parser = jobs::parse_jobs)]
        jobs: Option<usize>,
    },
    /// Load and validate scenarios without running them.
    Check {
        /// Scenario files, directories (the `*.yaml` and `*.yml` below
        /// them) or built-in names.
        #[arg(required = true)]
        scenarios: Vec<String>,
        /// Print each program with the control codes it runs with (derived
        /// codes marked `*`).
        #[arg(long)]
        controls: bool,
    },
    /// Run every scenario's `expect:` block and play its tour headless,
    /// checking each step's `expect:` (files, directories, or the
    /// built-ins when no path is given).
    Test {
        paths: Vec<String>,
        /// Scenarios tested at once, each on its own thread; a single one
        /// simulates its SMs on up to N (default: the machine's cores).
        /// What is printed is the same for any number.
        #[arg(long, short = 'j', value_name = "N", value_parser = jobs::parse_jobs)]
        jobs: Option<usize>,
    },
    /// Open the stepper on a scenario's tour (`tour:`): a caption per
    /// step; Space next step, Backspace previous, stepping keys explore,
    /// t returns to the tour.
    Tour {
        /// Scenario file or built-in name.
        scenario: String,
        /// Draw with ASCII only.
        #[arg(long)]
        ascii: bool,
    },
    /// Record a stepping session as an asciicast v2 file.
    #[command(group(clap::ArgGroup::new("scripted").args(["keys", "tour"])))]
    Record {
        /// Scenario file or built-in name.
        scenario: String,
        /// Output file (`.cast`).
        #[arg(short, long)]
        output: String,
        /// Keys to play instead of reading the keyboard, e.g. "10n p c q"
        /// (no terminal needed; one key every 0.5 s in the cast). Every
        /// character is a key, whitespace separates; named keys are written
        /// <Name> or as a word of their own: Space, Enter, Esc, Tab,
        /// BackTab, Backspace, Up, Down, Left, Right, Home, End, PageUp,
        /// PageDown, F1..F12, C-x (Ctrl plus x), <lt> for `<`. So
        /// "g 100 Enter q" is g 1 0 0 Enter q. SIGINT or SIGTERM stops a
        /// long recording (exit 130, 143).
        #[arg(long, conflicts_with = "tour")]
        keys: Option<String>,
        /// Play the scenario's tour instead of reading the keyboard: `t`,
        /// then Space for each further step, each step a marker named by
        /// its caption's first line (no terminal needed).
        #[arg(long)]
        tour: bool,
        /// Terminal size for `--keys`, COLSxROWS (an interactive recording
        /// uses the terminal's).
        #[arg(long, default_value = "100x30")]
        size: String,
        /// Also write the last frame as an SVG image to FILE (with --keys
        /// or --tour).
        #[arg(long, value_name = "FILE", requires = "scripted")]
        svg: Option<String>,
        /// Draw with ASCII only.
        #[arg(long)]
        ascii: bool,
        #[command(flatten)]
        model: ModelArgs,
    },
    /// Replay a recorded session in a live stepper at this terminal's size:
    /// Space pauses, `]` plays to the next marker, q quits, any other key
    /// takes over.
    Replay {
        /// The `.cast` file.
        file: String,
        /// Playback speed factor.
        #[arg(long, default_value_t = 1.0)]
        speed: f64,
        /// Draw with ASCII only.
        #[arg(long)]
        ascii: bool,
        /// Start paused on the first frame (Space plays).
        #[arg(long)]
        paused: bool,
        /// The scenario to re-run (file or built-in name), for a cast
        /// asciinema recorded itself (no `warpstep` header key), or in
        /// place of the one the cast carries.
        #[arg(long, value_name = "SCENARIO")]
        scenario: Option<String>,
    },
    /// Write one self-contained HTML page that plays a cast (asciinema-player
    /// inlined), with its markers as chapters and the scenario's report.
    Page {
        /// The `.cast` file.
        file: String,
        /// Output file (`.html`).
        #[arg(short, long)]
        output: String,
        /// The scenario, for a cast asciinema recorded itself (as `replay
        /// --scenario`).
        #[arg(long, value_name = "SCENARIO")]
        scenario: Option<String>,
    },
    /// Write a cast as one animated SVG image that plays without
    /// JavaScript (README files, slides): its frames, timing and colours
    /// as recorded, looping.
    Svg {
        /// The `.cast` file (from `warpstep record` or `asciinema rec`).
        file: String,
        /// Output file (`.svg`).
        #[arg(short, long)]
        output: String,
        /// Only this chapter: from marker N (1 is the first) to the next.
        #[arg(long, value_name = "N")]
        chapter: Option<usize>,
    },
    /// List the built-in scenarios.
    List,
    /// Compile a CUDA C kernel with nvcc and write a scenario that runs it
    /// without nvcc: the listing as `program:`, the source as `cuda:`, and
    /// stubs of `launch:`, `memory:` and `args:` to edit.
    Compile {
        /// The CUDA C source file.
        source: String,
        /// The kernel, mangled or plain name (needed when there are several).
        #[arg(long)]
        kernel: Option<String>,
        /// The architecture nvcc compiles for.
        #[arg(long, default_value = "sm_90")]
        arch: String,
        /// Extra flags for nvcc, in one string (`--nvcc-flags '-O3 -use_fast_math'`).
        #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
        nvcc_flags: Option<String>,
        /// Where to write the scenario (default: standard output).
        #[arg(short, long)]
        output: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_is_the_boundarys() {
        let load = CliError::from(crate::builtin::resolve("no-such-scenario").expect_err("absent"));
        assert_eq!(load.exit_code(), 2);
        let tui = CliError::from(TuiError::NoTerminal(std::io::Error::other("not a tty")));
        assert_eq!(tui.exit_code(), 2);
        assert_eq!(
            tui.to_string(),
            "error: the stepper needs a terminal; `warpstep run SCENARIO` reports without one"
        );
        let io = CliError::from(TuiError::Io(std::io::Error::other("gone")));
        assert_eq!(io.exit_code(), 1);
        // A recording's own code passes through.
        assert_eq!(CliError::from(RecordError::Speed(-1.0)).exit_code(), 2);
        assert_eq!(
            CliError::from(RecordError::TerminalSize(std::io::Error::other("no tty"))).exit_code(),
            1
        );
    }
}
