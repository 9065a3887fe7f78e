//! What each subcommand does. Every function returns the process exit
//! status: 0 success, 1 a failed expectation, faulted lane or stopped run,
//! 2 a scenario that could not be loaded.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Cli, CliError, Command, Format, ModelArgs, Overrides, TuiArgs};
use crate::builtin;
use crate::report::{Report, compare, text};
use crate::scenario::{Convergence, GroupPolicy, LoadError, Policy, Scenario};
use crate::text::clean;
use crate::tui::{self, App, Options};

/// Writes text for a terminal to standard output: scenario text in it is
/// shown with its control, bidi and zero-width characters escaped
/// ([`crate::text::escape_lines`]).
fn write_out(text: &str) {
    write_raw(&crate::text::escape_lines(text));
}

/// Writes to standard output as it is (JSON, which keeps the exact text
/// and escapes it itself). When the reader went away (`| head`), the
/// command ends quietly with the shell's status for a broken pipe.
fn write_raw(text: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(1);
    }
}

/// Writes a report (or a list of them) to standard output as pretty JSON
/// and a newline, serialised straight into a buffered writer; a broken
/// pipe ends the command as [`write_raw`] does.
fn write_json<T: serde::Serialize + ?Sized>(v: &T) {
    use std::io::Write;
    let mut o = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = crate::report::json::to_writer_pretty(&mut o, v)
        .map_err(std::io::Error::from)
        .and_then(|()| o.write_all(b"\n"))
        .and_then(|()| o.flush());
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(1);
    }
}

macro_rules! out {
    ($($t:tt)*) => { write_out(&format!($($t)*)) };
}

macro_rules! outln {
    ($($t:tt)*) => { write_out(&format!("{}\n", format_args!($($t)*))) };
}

/// A message on standard error, cleaned as [`write_out`] cleans.
macro_rules! errln {
    ($($t:tt)*) => { eprintln!("{}", crate::text::escape_lines(&format!($($t)*))) };
}

/// Runs the parsed command line: the exit status, or why the command
/// could not do its work.
pub fn dispatch(cli: Cli) -> Result<i32, CliError> {
    if let Some(limit) = cli.memory_limit {
        crate::scenario::budget::set_memory_limit(limit);
    }
    match cli.command {
        None => stepper(&cli.tui),
        Some(Command::Run {
            scenario,
            format,
            buffers,
            overrides,
            jobs,
        }) => Ok(run(
            &scenario,
            format,
            buffers.as_deref(),
            &overrides,
            jobs.unwrap_or_else(super::jobs::default_jobs),
        )),
        Some(Command::Check {
            scenarios,
            controls,
        }) => Ok(check(&scenarios, controls)),
        Some(Command::Test { paths, jobs }) => {
            Ok(test(&paths, jobs.unwrap_or_else(super::jobs::default_jobs)))
        }
        Some(Command::Tour { scenario, ascii }) => tour(&scenario, ascii),
        Some(Command::Record {
            scenario,
            output,
            keys,
            tour,
            size,
            svg,
            ascii,
            model,
        }) => Ok(crate::record::record_command(
            &crate::record::RecordRequest {
                scenario: &scenario,
                output: &output,
                keys: keys.as_deref(),
                tour,
                size: &size,
                svg: svg.as_deref(),
                ascii,
                model: &model,
            },
        )?),
        Some(Command::Replay {
            file,
            speed,
            ascii,
            paused,
            scenario,
        }) => {
            // The user's own scenario loads as any other (it may compile);
            // it goes to the replay as its text, with the listing nvcc
            // wrote.
            let given = given_scenario(scenario.as_deref())?;
            // A cast's scenario was written by whoever recorded it: it
            // runs nvcc and reads `cuda: {file:}` nowhere.
            crate::scenario::set_foreign(true);
            Ok(crate::record::replay_command(
                &file, speed, ascii, paused, given,
            )?)
        }
        Some(Command::Page {
            file,
            output,
            scenario,
        }) => {
            let given = given_scenario(scenario.as_deref())?;
            crate::scenario::set_foreign(true);
            Ok(crate::record::page_command(&file, &output, given)?)
        }
        Some(Command::Svg {
            file,
            output,
            chapter,
        }) => Ok(crate::record::svg_command(&file, &output, chapter)?),
        Some(Command::List) => {
            list();
            Ok(0)
        }
        Some(Command::Compile {
            source,
            kernel,
            arch,
            nvcc_flags,
            output,
        }) => Ok(compile(
            &source,
            kernel.as_deref(),
            &arch,
            nvcc_flags.as_deref(),
            output.as_deref(),
        )),
    }
}

/// Applies `--convergence` and `--policy` (clap has checked the names)
/// to a loaded scenario, checking and relinking as `run`'s overrides do.
pub fn apply_model(sc: &mut Scenario, model: &ModelArgs) -> Result<(), LoadError> {
    let convergence = model.convergence.as_deref().map(|c| match c {
        "stack" => Convergence::Stack,
        _ => Convergence::Its,
    });
    let policy = model.policy.as_deref().map(|p| match p {
        "gto" => Policy::Gto,
        _ => Policy::Lrr,
    });
    if convergence.is_none() && policy.is_none() {
        return Ok(());
    }
    sc.set_model(convergence, policy)
}

/// `--scenario` of `replay` and `page`, loaded as the user's own (it may
/// compile), for the cast's header in its place.
fn given_scenario(name: Option<&str>) -> Result<Option<crate::record::cast::Meta>, CliError> {
    let Some(name) = name else {
        return Ok(None);
    };
    let sc = builtin::resolve(name)?;
    warn(&sc);
    Ok(Some(crate::record::given_meta(&sc)))
}

/// Writes loading's warnings to standard error.
fn warn(sc: &Scenario) {
    for w in &sc.warnings {
        errln!("warning: {}: {w}", sc.origin);
    }
}

/// Opens the stepper on the scenario the arguments name. A scenario that
/// does not load is an error before the terminal is touched.
fn stepper(args: &TuiArgs) -> Result<i32, CliError> {
    let name = args.scenario.as_deref().unwrap_or(builtin::DEFAULT);
    let mut scenario = builtin::resolve(name)?;
    warn(&scenario);
    apply_model(&mut scenario, &args.model)?;
    scenario.check_stepper_budget()?;
    let origin = scenario.origin.to_string();
    let options = Options {
        ascii: args.ascii,
        color: tui::theme::Theme::color_from_env(),
        animate: true,
    };
    let mut app = App::new(Arc::new(scenario), options)
        .map_err(|error| CliError::Machine { origin, error })?;
    tui::run_interactive(&mut app)?;
    Ok(0)
}

/// `warpstep tour`: the stepper on the scenario's tour, at its first step.
/// A scenario without a tour is an error before the terminal is touched.
fn tour(name: &str, ascii: bool) -> Result<i32, CliError> {
    let scenario = builtin::resolve(name)?;
    warn(&scenario);
    if scenario.tour.is_empty() {
        errln!(
            "error: {} has no tour (`tour:` in the file; docs/scenario-format.md, \"Tours\")\n  = hint: `warpstep {name}` opens it in the stepper",
            scenario.origin
        );
        return Ok(2);
    }
    scenario.check_stepper_budget()?;
    let origin = scenario.origin.to_string();
    let options = Options {
        ascii,
        color: tui::theme::Theme::color_from_env(),
        animate: true,
    };
    let mut app = App::new(Arc::new(scenario), options)
        .map_err(|error| CliError::Machine { origin, error })?;
    app.start_tour();
    tui::run_interactive(&mut app)?;
    Ok(0)
}

/// A scenario's tour played headless: a problem per step whose `expect:`
/// fails, named by its number and its caption's first line.
fn tour_problems(sc: &Scenario) -> Result<Vec<String>, String> {
    if sc.tour.is_empty() {
        return Ok(Vec::new());
    }
    let steps =
        crate::tui::app::play_tour_headless(Arc::new(sc.clone())).map_err(|e| e.to_string())?;
    let n = steps.len();
    Ok(steps
        .iter()
        .flat_map(|s| {
            s.results.iter().filter(|r| !r.ok).map(move |r| {
                format!(
                    "tour step {}/{n} ({}) at cycle {}: {} expected {} got {}",
                    s.step + 1,
                    s.title,
                    s.cycle,
                    r.key,
                    r.expected,
                    r.actual
                )
            })
        })
        .collect())
}

/// Loads a scenario or prints why not.
fn load(arg: &str) -> Option<Scenario> {
    match builtin::resolve(arg) {
        Ok(s) => {
            warn(&s);
            Some(s)
        }
        Err(e) => {
            errln!("{e}");
            None
        }
    }
}

/// Runs a scenario to the end and builds its checked report, with the
/// final contents of the named buffers (see [`buffer_names`]). A run alone
/// (not beside others) simulates its SMs on up to `jobs` threads and, on
/// a terminal, shows how far it has got.
fn run_report(
    sc: Scenario,
    buffers: Option<&[String]>,
    alone: bool,
    jobs: usize,
) -> Result<Report, String> {
    let expect = sc.expect.clone();
    let mut m = sc.new_machine().map_err(|e| e.to_string())?;
    m.set_record_issues(false);
    // A run that stops early still reports what it did. On a terminal, a
    // long run shows its progress on standard error.
    if alone && jobs > 1 {
        super::progress::run_jobs_with_progress(&mut m, jobs);
    } else {
        super::progress::run_with_progress(&mut m, alone);
    }
    let mut r = Report::new(&sc, &m);
    if let Some(names) = buffers {
        r = r.with_buffers(&sc, &m, names);
    }
    r.check_expectations(&expect);
    Ok(r)
}

/// The buffers `run --buffers ARG` names, in the order given (`all`: every
/// buffer in file order), or why not: a name the scenario has no buffer of.
pub fn buffer_names(sc: &Scenario, arg: &str) -> Result<Vec<String>, String> {
    let known: Vec<&str> = sc.buffers.iter().map(|b| b.name.as_str()).collect();
    if arg.trim() == "all" {
        return Ok(known.iter().map(|n| n.to_string()).collect());
    }
    let mut out: Vec<String> = Vec::new();
    for name in arg.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(format!(
                "--buffers `{arg}`: an empty name; give comma-separated buffer names or `all`"
            ));
        }
        if !known.contains(&name) {
            let have = if known.is_empty() {
                "the scenario has no buffers".to_string()
            } else {
                format!("its buffers are {}", known.join(", "))
            };
            let near = crate::expr::spelling::did_you_mean(name, known.iter().copied())
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(format!(
                "--buffers: `{}` has no buffer `{name}`: {have}{near}",
                sc.origin
            ));
        }
        if !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    Ok(out)
}

/// Every combination of the overridden machine keys, each applied to a
/// copy of the scenario, with a label naming what differs.
pub fn variants(base: &Scenario, o: &Overrides) -> Result<Vec<(String, Scenario)>, String> {
    type Setter = Box<dyn Fn(&mut Scenario) -> Result<(), String>>;
    let mut axes: Vec<Vec<(String, Setter)>> = Vec::new();
    fn axis<T: Clone + std::fmt::Display + 'static>(
        name: &'static str,
        values: &[T],
        set: fn(&mut Scenario, T) -> Result<(), String>,
    ) -> Vec<(String, Setter)> {
        values
            .iter()
            .map(|v| {
                let v2 = v.clone();
                let s: Setter = Box::new(move |sc: &mut Scenario| set(sc, v2.clone()));
                (format!("{name}={v}"), s)
            })
            .collect()
    }
    let conv = |sc: &mut Scenario, v: String| {
        sc.machine.convergence = match v.as_str() {
            "stack" => Convergence::Stack,
            "its" => Convergence::Its,
            _ => return Err(format!("--convergence: `{v}` is not one of stack, its")),
        };
        Ok(())
    };
    let pol = |sc: &mut Scenario, v: String| {
        sc.machine.policy = match v.as_str() {
            "lrr" => Policy::Lrr,
            "gto" => Policy::Gto,
            _ => return Err(format!("--policy: `{v}` is not one of lrr, gto")),
        };
        Ok(())
    };
    let gpol = |sc: &mut Scenario, v: String| {
        sc.machine.group_policy = match v.as_str() {
            "sticky" => GroupPolicy::Sticky,
            "lowest_pc" => GroupPolicy::LowestPc,
            _ => {
                return Err(format!(
                    "--group-policy: `{v}` is not one of sticky, lowest_pc"
                ));
            }
        };
        Ok(())
    };
    let candidates: Vec<Vec<(String, Setter)>> = vec![
        axis("convergence", &o.convergence, conv),
        axis("policy", &o.policy, pol),
        axis("group_policy", &o.group_policy, gpol),
        axis("warp_width", &o.warp_width, |sc, v| {
            sc.machine.warp_width = v;
            Ok(())
        }),
        axis("schedulers", &o.schedulers, |sc, v| {
            sc.machine.schedulers = v;
            Ok(())
        }),
        axis("sms", &o.sms, |sc, v| {
            sc.machine.sms = v;
            Ok(())
        }),
        axis("max_warps_per_sm", &o.max_warps_per_sm, |sc, v| {
            sc.machine.max_warps_per_sm = v;
            Ok(())
        }),
        axis("taken_first", &o.taken_first, |sc, v| {
            sc.machine.taken_first = v;
            Ok(())
        }),
        axis("latency.global", &o.global_latency, |sc, v| {
            sc.machine.latency.global = v;
            Ok(())
        }),
        axis("latency.branch", &o.branch_latency, |sc, v| {
            sc.machine.latency.branch = v;
            Ok(())
        }),
    ];
    axes.extend(candidates.into_iter().filter(|a| !a.is_empty()));
    let mut out: Vec<(String, Scenario)> = vec![(String::new(), base.clone())];
    for ax in &axes {
        let mut next = Vec::with_capacity(out.len() * ax.len());
        for (label, sc) in &out {
            for (name, set) in ax {
                let mut s = sc.clone();
                set(&mut s)?;
                let l = if label.is_empty() {
                    name.clone()
                } else {
                    format!("{label} {name}")
                };
                next.push((l, s));
            }
        }
        out = next;
    }
    for (label, sc) in &mut out {
        sc.validate_machine().map_err(|e| format!("{label}: {e}"))?;
        sc.reassemble().map_err(|e| format!("{label}: {e}"))?;
    }
    Ok(out)
}

/// The memory a run of `sc` needs with its report in `format`.
fn run_needs(sc: &Scenario, format: Format) -> u64 {
    let f = sc.footprint();
    match format {
        Format::Json => f.engine.saturating_add(f.json_report),
        Format::Text => f.engine,
    }
}

fn run(arg: &str, format: Format, buffers: Option<&str>, o: &Overrides, jobs: usize) -> i32 {
    // Ctrl-C ends a long run (or a long report) at once with 130.
    let _signals = super::progress::ExitOnSignal::install("run stopped");
    let Some(sc) = load(arg) else { return 2 };
    let buffers = match buffers.map(|b| buffer_names(&sc, b)).transpose() {
        Ok(b) => b,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    let base_machine = sc.machine.clone();
    let vars = match variants(&sc, o) {
        Ok(v) => v,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    if format == Format::Json {
        // What the JSON report adds to the run (see `budget`: it is
        // serialised as it is written, so nothing per warp).
        for (_, sc) in &vars {
            if let Some(m) = crate::scenario::budget::over_budget(
                run_needs(sc, format),
                "the run with its JSON report",
            ) {
                errln!(
                    "error: {}: {m}\n  = hint: launch fewer threads, use the text report, or raise the budget with `--memory-limit`",
                    clean(&sc.origin.to_string())
                );
                return 2;
            }
        }
    }
    // Variants run side by side (`--jobs`); the first that fails, in the
    // grid's order, is the error, as when they run one after another.
    let pool = super::jobs::MemoryPool::new(crate::scenario::budget::memory_limit());
    let side_by_side = jobs > 1 && vars.len() > 1;
    let mut finished = super::progress::Finished::new("variants");
    let mut outcomes = Vec::with_capacity(vars.len());
    super::jobs::ordered(
        vars,
        jobs,
        |(label, mut sc): (String, Scenario)| {
            // `expect:` describes the scenario's own machine: a variant
            // that changes it is reported, not checked.
            if sc.machine != base_machine {
                sc.expect.clear();
            }
            let _share = pool.take(run_needs(&sc, format));
            (
                label,
                run_report(sc, buffers.as_deref(), !side_by_side, jobs),
            )
        },
        |outcome| outcomes.push(outcome),
        |done, total| finished.update(done, total),
    );
    finished.clear();
    let mut reports = Vec::with_capacity(outcomes.len());
    for (label, outcome) in outcomes {
        match outcome {
            Ok(r) => reports.push((label, r)),
            Err(e) => {
                errln!("{e}");
                return 2;
            }
        }
    }
    let code = reports
        .iter()
        .map(|(_, r)| r.exit_code())
        .max()
        .unwrap_or(0);
    match (format, reports.len()) {
        (Format::Json, 1) => write_json(&reports[0].1),
        (Format::Json, _) => {
            for (label, r) in &mut reports {
                r.variant = Some(label.clone());
            }
            let list: Vec<&Report> = reports.iter().map(|(_, r)| r).collect();
            write_json(&list);
        }
        (Format::Text, 1) => out!("{}", text::render(&reports[0].1)),
        (Format::Text, _) => out!("{}", compare::render(&reports)),
    }
    code
}

fn check(args: &[String], controls: bool) -> i32 {
    let (targets, found) = expand(args);
    let mut code = if found { 0 } else { 2 };
    for a in &targets {
        let Some(sc) = load(a) else {
            code = 2;
            continue;
        };
        let mut m = match sc.new_machine() {
            Ok(m) => m,
            Err(e) => {
                errln!("{}: {e}", sc.origin);
                code = 2;
                continue;
            }
        };
        outln!("ok  {}  ({})", text::sanitize(&sc.name), sc.origin);
        if let Some(l) = &sc.listing {
            outln!(
                "listing: {} for {}, {} instructions{}",
                text::sanitize(&l.kernel),
                l.arch,
                sc.program.instrs.len(),
                match l.padding {
                    0 => String::new(),
                    n => format!(" ({n} unreachable after the final self-branch left out)"),
                }
            );
            outln!("{}", l.controls_note(sc.program.instrs.len()));
        }
        if let Some(c) = &sc.cuda {
            match &c.compiled {
                Some(n) => outln!(
                    "cuda: {} compiled by nvcc ({}){}",
                    text::sanitize(&c.name),
                    text::sanitize(&n.nvcc_version),
                    if n.cache_hit { ", from the cache" } else { "" }
                ),
                None => outln!("cuda: {} shown beside `program:`", text::sanitize(&c.name)),
            }
        }
        if controls {
            out!("{}", listing(&sc));
        }
        // Written control codes can break a dependence, which only a run
        // shows: run it and warn about each hazard (the file still loads).
        if sc.program.instrs.iter().any(|i| i.explicit_control) {
            m.set_record_issues(false);
            let _ = m.run();
            for h in Report::new(&sc, &m).hazards {
                outln!(
                    "warning: {}:{}: {} on {} by {} cycles (warp {}, pc {:04x}); the run \
                     follows the codes as hardware would",
                    sc.origin,
                    h.line,
                    h.kind,
                    h.register,
                    h.early_by,
                    h.warp,
                    h.pc
                );
            }
        }
    }
    code
}

/// The program with the control codes it runs with.
pub fn listing(sc: &Scenario) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    for (i, ins) in sc.program.instrs.iter().enumerate() {
        if let Some(l) = sc.program.label_at(i as u32) {
            let _ = writeln!(o, "{l}:");
        }
        let _ = writeln!(
            o,
            "  /*{:04x}*/ {}{} {}",
            crate::asm::Program::address(i as u32),
            ins.control,
            if ins.explicit_control { " " } else { "*" },
            text::sanitize(&ins.text)
        );
    }
    o
}

/// Scenario files under a path: the file itself, or `*.yaml`/`*.yml`
/// below a directory, sorted.
fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            if e.is_dir() || e.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                collect(&e, out);
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
}

/// The scenarios named by `paths`: a directory stands for the scenario
/// files below it ([`collect`]), anything else (a file, a built-in name)
/// for itself. A directory with no scenario file is an error, said on
/// stderr: false comes back with what was found.
fn expand(paths: &[String]) -> (Vec<String>, bool) {
    let mut targets = Vec::new();
    let mut ok = true;
    for p in paths {
        let path = Path::new(p);
        if path.is_dir() {
            let mut files = Vec::new();
            collect(path, &mut files);
            if files.is_empty() {
                errln!(
                    "error: no scenario file (*.yaml, *.yml) under the directory `{}`",
                    text::sanitize(p)
                );
                ok = false;
            }
            targets.extend(files.iter().map(|f| f.display().to_string()));
        } else {
            targets.push(p.clone());
        }
    }
    (targets, ok)
}

/// What testing one scenario found, printed in the scenarios' order: its
/// line on standard output, what standard error says of it, its verdict.
struct Tested {
    line: String,
    error: Option<String>,
    verdict: Verdict,
}

#[derive(PartialEq)]
enum Verdict {
    Passed,
    Failed,
    Skipped,
}

impl Tested {
    fn new(line: String, verdict: Verdict) -> Tested {
        Tested {
            line,
            error: None,
            verdict,
        }
    }
}

fn test(paths: &[String], jobs: usize) -> i32 {
    let (targets, found) = if paths.is_empty() {
        (builtin::names().map(String::from).collect(), true)
    } else {
        expand(paths)
    };
    let pool = super::jobs::MemoryPool::new(crate::scenario::budget::memory_limit());
    let side_by_side = jobs > 1 && targets.len() > 1;
    // Cleared before each result is printed, drawn while waiting.
    let finished = std::cell::RefCell::new(super::progress::Finished::new("scenarios"));
    let (mut passed, mut failed) = (0, 0);
    super::jobs::ordered(
        targets,
        jobs,
        |t| test_one(&t, &pool, !side_by_side, jobs),
        |tested| {
            finished.borrow_mut().clear();
            outln!("{}", tested.line);
            if let Some(e) = &tested.error {
                errln!("{e}");
            }
            passed += usize::from(tested.verdict == Verdict::Passed);
            failed += usize::from(tested.verdict == Verdict::Failed);
        },
        |done, total| finished.borrow_mut().update(done, total),
    );
    finished.borrow_mut().clear();
    outln!("{passed} passed, {failed} failed");
    if !found {
        2
    } else if failed > 0 {
        1
    } else {
        0
    }
}

/// Loads and runs scenario `t` with its share of `pool`, checking its
/// `expect:` and its tour.
fn test_one(t: &str, pool: &super::jobs::MemoryPool, alone: bool, jobs: usize) -> Tested {
    let sc = match builtin::resolve(t) {
        Ok(s) => s,
        Err(e) => {
            return Tested {
                error: Some(e.to_string()),
                ..Tested::new(format!("FAIL {t}: does not load"), Verdict::Failed)
            };
        }
    };
    if sc.expect.is_empty() && sc.tour.is_empty() {
        return Tested::new(format!("--   {t}: no expect: block"), Verdict::Skipped);
    }
    let name = text::sanitize(&sc.name);
    let expects_faults = sc.expect.iter().any(|e| e.key.starts_with("faults"));
    // A tour plays in a stepper (the machine and its checkpoints), then the
    // run needs the machine alone.
    let f = sc.footprint();
    let _share = pool.take(if sc.tour.is_empty() {
        f.engine
    } else {
        f.stepper.max(f.engine)
    });
    let tour = tour_problems(&sc);
    match run_report(sc, None, alone, jobs) {
        Ok(r) => {
            let mut problems: Vec<String> = r
                .expect
                .iter()
                .flatten()
                .filter(|e| !e.ok)
                .map(|e| format!("{} expected {} got {}", e.key, e.expected, e.actual))
                .collect();
            if let Some(err) = &r.error {
                problems.push(err.clone());
            }
            // Faults fail a test unless the scenario expects them.
            if r.faults_total > 0 && !expects_faults {
                problems.push(format!("{} lanes faulted", r.faults_total));
            }
            match &tour {
                Ok(t) => problems.extend(t.iter().cloned()),
                Err(e) => problems.push(format!("the tour: {e}")),
            }
            if problems.is_empty() {
                Tested::new(format!("ok   {t}  ({name})"), Verdict::Passed)
            } else {
                let line = format!("FAIL {t}  ({name}): {}", problems.join("; "));
                Tested::new(line, Verdict::Failed)
            }
        }
        Err(e) => Tested::new(format!("FAIL {t}: {e}"), Verdict::Failed),
    }
}

fn list() {
    let width = builtin::names().map(str::len).max().unwrap_or(0);
    for name in builtin::names() {
        let title = builtin::text(name)
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("name:"))
                    .map(|n| n.trim().trim_matches('"').to_string())
            })
            .unwrap_or_default();
        outln!("{name:<width$}  {}", text::sanitize(&title));
    }
}

/// `warpstep compile`: 0 with the scenario written, 1 when it was written
/// but does not load as it is, 2 when nothing could be written.
fn compile(
    source: &str,
    kernel: Option<&str>,
    arch: &str,
    flags: Option<&str>,
    output: Option<&str>,
) -> i32 {
    use crate::asm::listing::{Arch, check_arch};
    use crate::cuda::write::{WriteError, WriteRequest, scenario};
    let Some(arch_v) = Arch::parse(arch).filter(|a| check_arch(*a).is_ok()) else {
        errln!(
            "error: --arch `{arch}` is not an architecture warpstep runs (sm_70 or newer, like sm_90)"
        );
        return 2;
    };
    let bytes =
        match crate::scenario::file::read_bounded(Path::new(source), crate::cuda::MAX_SOURCE_BYTES)
        {
            Ok(b) => b,
            Err(e) => {
                errln!("error: cannot read `{source}`: {e}");
                return 2;
            }
        };
    let Ok(text) = String::from_utf8(bytes) else {
        errln!("error: `{source}` is not UTF-8 text");
        return 2;
    };
    let flags: Vec<String> = flags
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let req = WriteRequest {
        path: source,
        text: &text,
        arch: arch_v,
        kernel,
        flags: &flags,
    };
    let written = match scenario(&req) {
        Ok(w) => w,
        Err(WriteError::Cuda(crate::cuda::CudaError::Compile { output, .. })) => {
            errln!("error: nvcc cannot compile `{source}`:");
            errln!("{}", output.trim_end());
            return 2;
        }
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    let origin = output.unwrap_or("<stdout>").to_string();
    let loads = Scenario::from_text(&written.yaml, crate::scenario::Origin::File(origin.clone()));
    match output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, &written.yaml) {
                errln!("error: cannot write `{path}`: {e}");
                return 2;
            }
            errln!(
                "wrote {path}: kernel {}{}; edit `launch:`{}{} and check it with `warpstep check {path}`",
                written.kernel,
                if written.compiled.cache_hit {
                    " (from the cache)"
                } else {
                    ""
                },
                if written.buffers.is_empty() {
                    String::new()
                } else {
                    format!(", the buffers' `len:` ({})", written.buffers.join(", "))
                },
                if written.scalars.is_empty() {
                    String::new()
                } else {
                    format!(", the numbers in `args:` ({})", written.scalars.join(", "))
                },
            );
        }
        None => write_raw(&written.yaml),
    }
    match loads {
        Ok(_) => 0,
        Err(e) => {
            errln!("warning: the scenario written does not load as it is; edit it:\n{e}");
            1
        }
    }
}
