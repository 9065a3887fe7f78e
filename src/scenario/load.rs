//! From text to a validated [`Scenario`], section by section.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::error::{Pos, SourceFile};
use super::raw::{Node, RawScenario};
use super::{
    BufferSpec, CudaSource, InputSpec, LaunchSpec, LoadError, MachineSpec, Origin, Scenario, args,
    budget, constants, cuda, expect, inputs, leaf, machine, memory, program,
};
use crate::asm::Program;
use crate::engine::{Kernel, Launch};

/// Loads `text`; `origin` names it in messages.
pub(super) fn load(text: &str, origin: Origin) -> Result<Scenario, LoadError> {
    let src = SourceFile {
        file: origin.to_string(),
        text,
    };
    if is_blank(text) {
        return Err(src
            .error(Pos::top(), "", "the scenario is empty")
            .expected("at least `name:` and `program:`")
            .hint(Some(
                "start from an example: `warpstep list` shows the built-in scenarios".into(),
            )));
    }
    let options = serde_saphyr::options! { with_snippet: false };
    let raw: RawScenario =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| src.yaml_error(&e))?;

    let version = match &raw.version {
        Some(v) => {
            let n = leaf::int(&src, v, "version", i128::MIN, i128::MAX, None)?;
            if n != 1 {
                return Err(src
                    .error(Pos::of(v), "version", format!("unsupported `version: {n}`"))
                    .expected("1")
                    .hint(Some(
                        "this warpstep reads version 1; a newer file needs a newer warpstep".into(),
                    )));
            }
            1
        }
        None => 1,
    };
    let name = match &raw.name {
        Some(n) => {
            let s = leaf::string(&src, n, "name")?;
            let s = s.trim_end().to_string();
            if s.is_empty() {
                return Err(src
                    .error(Pos::of(n), "name", "`name` is empty")
                    .expected("a one-line name"));
            }
            if s.contains(['\n', '\r']) {
                return Err(src
                    .error(Pos::of(n), "name", "`name` must be one line")
                    .expected("a one-line name")
                    .hint(Some("put longer text in `description:`".into())));
            }
            s
        }
        None => {
            return Err(src
                .error(Pos::top(), "name", "missing `name`")
                .expected("a one-line name, e.g. `name: if/else, 16/16 split`")
                .hint(Some("every scenario needs `name:` and `program:`".into())));
        }
    };
    let description = match &raw.description {
        Some(d) if d.value == Node::Null => String::new(),
        Some(d) => leaf::string(&src, d, "description")?,
        None => String::new(),
    };

    let mut machine = machine::load_machine(&src, raw.machine.as_ref())?;
    let launch = machine::load_launch(&src, raw.launch.as_ref(), &machine)?;
    let buffers: Arc<[BufferSpec]> =
        memory::load_memory(&src, raw.memory.as_ref(), &launch)?.into();
    // Before any per-thread input or buffer image is built.
    let launch_pos = raw.launch.as_ref().map_or(Pos::top(), Pos::of);
    budget::check_launch(
        &src,
        launch_pos,
        &budget::footprint(&machine, &launch, &buffers, 0),
    )?;
    let mut constants = constants::load_constants(&src, raw.constants.as_ref(), &launch, &buffers)?;
    let args = args::load_args(&src, raw.args.as_ref(), &buffers)?;
    let inputs = inputs::load_inputs(
        &src,
        raw.inputs.as_ref(),
        &launch,
        machine.warp_width,
        &buffers,
    )?;

    let selection = program::selection(&src, raw.kernel.as_ref(), raw.arch.as_ref())?;
    let mut warnings = Vec::new();
    // A foreign scenario (a cast's) reads no file: with `program:` there
    // is still something to run, so the source is only not shown.
    let skipped_file = raw.program.is_some() && raw.cuda.as_ref().is_some_and(cuda::foreign_file);
    let cuda_input = match &raw.cuda {
        Some(_) if skipped_file => {
            warnings.push(
                "`cuda: {file:}` is not read for a scenario that came with a cast: the source \
                 pane stays empty"
                    .to_string(),
            );
            None
        }
        Some(c) => Some(cuda::read(&src, &origin, c)?),
        None => None,
    };
    let nvcc_flags = cuda::flags(&src, raw.nvcc_flags.as_ref())?;
    let cuda_sha = cuda::sha(&src, raw.cuda_sha256.as_ref())?;
    if let (Some(leaf), None, false) = (&raw.cuda_sha256, &cuda_input, skipped_file) {
        return Err(src
            .error(Pos::of(leaf), "cuda_sha256", "`cuda_sha256` without `cuda`")
            .expected("`cuda:` holding the source the hash is of")
            .hint(Some("`warpstep compile` writes both".into())));
    }
    // A listing nvcc compiled here is not in the file: its own text is
    // where its errors are.
    let mut compiled_listing: Option<(String, String)> = None;
    let (program_text, anchor, cuda_source) = match (&raw.program, cuda_input) {
        (Some(program_leaf), input) => {
            let text = leaf::string(&src, program_leaf, "program")?;
            let anchor = program::anchor(&src, program_leaf, &text);
            // The name the listing's line table gives the source, when it
            // gives one: what the source is shown under.
            let named = cuda::line_table_files(&text);
            let cuda_source = input.map(|i| CudaSource {
                name: match named.first() {
                    Some(n) if !named.contains(&i.name) => n.clone(),
                    _ => i.name,
                },
                text: i.text,
                compiled: None,
            });
            if let Some(c) = &cuda_source {
                warnings.extend(cuda::mismatch(c, cuda_sha.as_deref(), &text));
            }
            (text, anchor, cuda_source)
        }
        (None, Some(input)) => {
            let arch = selection.arch.as_ref().map_or(
                crate::asm::listing::Arch {
                    sm: 90,
                    feature: None,
                },
                |(a, _)| *a,
            );
            let (listing, note) = cuda::compile(&src, &input, arch, &nvcc_flags)?;
            compiled_listing = Some((
                format!("{origin} (nvcc's listing of {})", input.name),
                listing.clone(),
            ));
            let cuda_source = CudaSource {
                name: input.name,
                text: input.text,
                compiled: Some(note),
            };
            (listing, (1, 0), Some(cuda_source))
        }
        (None, None) => {
            return Err(src
                .error(Pos::top(), "program", "missing `program`")
                .expected(
                    "the program text, e.g. `program: |` followed by indented lines, or CUDA C \
                     source as `cuda: |`",
                )
                .hint(Some(
                    "every scenario needs `name:` and `program:` (or `cuda:`)".into(),
                )));
        }
    };
    let listing_src = compiled_listing.as_ref().map(|(file, text)| SourceFile {
        file: file.clone(),
        text,
    });
    let psrc = listing_src.as_ref().unwrap_or(&src);
    budget::check_program_lines(psrc, &program_text, anchor)?;
    let (program, listing) =
        program::assemble(psrc, &program_text, machine.latency.alu, anchor, &selection).map_err(
            |mut e| {
                // `kernel:` and `arch:` are in the scenario.
                if listing_src.is_some() && matches!(e.key.as_deref(), Some("kernel" | "arch")) {
                    e.file = src.file.clone();
                    e.source_line = src.line(e.line).map(str::to_string);
                }
                e
            },
        )?;
    budget::check_instructions(psrc, program.instrs.len(), anchor)?;
    // Volta and newer code reconverges through BSSY/BSYNC: a listing for
    // sm_70+ runs under `its` unless `machine.convergence` says otherwise
    // (`stack` then shows what the pre-Volta machine would do with it).
    let convergence_written = raw
        .machine
        .as_ref()
        .is_some_and(|m| m.value.convergence.is_some());
    if !convergence_written && listing.as_ref().is_some_and(|l| l.arch.sm >= 70) {
        machine.convergence = super::Convergence::Its;
    }
    warnings.extend(unread_constants(&constants, &program));
    let args_pos = raw.args.as_ref().map_or(Pos::top(), Pos::of);
    match program.arch {
        // The driver's bank 0 under the explicit `constants:`.
        Some(sm) => {
            // A mangled name gives the parameters' types. Without `args:`
            // the parameters are left to `constants:` (linking names any
            // the program reads and nothing sets).
            let params = listing
                .as_ref()
                .filter(|_| raw.args.is_some())
                .and_then(|l| crate::asm::abi::mangled_params(&l.kernel));
            let reads = args::reads(&program);
            let mut bank = args::abi_bank(
                &src,
                args_pos,
                sm,
                &launch,
                params.as_deref(),
                &reads,
                &args,
            )?;
            bank.append(&mut constants);
            constants = bank;
        }
        None if !args.is_empty() => {
            return Err(src
                .error(args_pos, "args", "`args` needs the kernel's architecture")
                .expected("a listing that names its architecture, or `arch:`")
                .hint(Some(
                    "a hand-written program reads `constants:` at the offsets it names".into(),
                )));
        }
        None => constants::legacy_defaults(&mut constants, &launch),
    }
    // Bank 2 as the listing prints it, under what `constants:` sets.
    if let Some(l) = &listing {
        for (i, &word) in l.bank2.iter().enumerate() {
            let key = crate::engine::constant_key(2, 4 * i as u32);
            constants.entry(key).or_insert(word);
        }
    }
    // Linking checks that every `c[0x0][..]` the program reads is set.
    let kernel = kernel(
        psrc,
        &program,
        &program_text,
        anchor,
        &machine,
        &launch,
        &constants,
        &buffers,
        &inputs,
    )?;

    let expect = expect::load_expect(&src, raw.expect.as_ref(), &buffers)?;

    let loaded_model = (machine.convergence, machine.policy);
    let mut source_map = listing
        .as_ref()
        .and_then(|l| super::source::SourceMap::from_lines(&l.source));
    // The CUDA text is shown beside the listing under the name its line
    // table gives the file.
    if let (Some(map), Some(c)) = (source_map.as_mut(), cuda_source.as_ref()) {
        map.set_text(&c.name, c.text.clone());
    }
    let tour = super::tour::load_tour(
        &src,
        raw.tour.as_ref(),
        &super::tour::TourContext {
            program: &program,
            program_line: anchor.0,
            buffers: &buffers,
            warps: u64::from(launch.blocks) * u64::from(machine.warps_per_block(launch.block_dim)),
            warp_width: machine.warp_width,
            has_source: source_map.is_some(),
            source_map: source_map.as_ref(),
        },
    )?;
    Ok(Scenario {
        origin,
        source: text.to_string(),
        version,
        name,
        description,
        machine,
        launch,
        constants,
        buffers,
        inputs,
        program_text,
        program,
        source_map,
        listing,
        selection,
        program_line: anchor.0,
        program_indent: anchor.1,
        expect,
        tour,
        cuda: cuda_source,
        warnings,
        loaded_model,
        kernel: Arc::new(kernel),
    })
}

/// Links the program for `machine` and gathers what its launch needs: the
/// one place a scenario becomes the engine's input.
#[allow(clippy::too_many_arguments)]
pub(super) fn kernel(
    src: &SourceFile<'_>,
    program: &Program,
    program_text: &str,
    anchor: (u32, u32),
    machine: &MachineSpec,
    launch: &LaunchSpec,
    constants: &BTreeMap<u32, u32>,
    buffers: &Arc<[BufferSpec]>,
    inputs: &[InputSpec],
) -> Result<Kernel, LoadError> {
    let k = Kernel::link(
        program.clone(),
        constants.clone(),
        &machine.latency,
        Launch::from(*launch),
    )
    .map_err(|e| program::map_error(src, program_text, anchor, &e))?;
    let k = inputs.iter().fold(
        k.with_buffers(Arc::clone(buffers))
            .with_first_line(anchor.0),
        |k, i| k.with_init(i.target, Arc::new(i.clone())),
    );
    Ok(k)
}

/// Nothing but whitespace, comments and document markers.
fn is_blank(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    })
}

/// A warning for each bank-0 word that `constants:` sets and no
/// instruction reads: most often an offset from another architecture's
/// ABI (parameters start at 0x160 up to sm_89, 0x210 on sm_90, 0x380 on
/// sm_100 and sm_120), which the run would silently ignore. The high word
/// of a 64-bit value whose low word is read counts as read; a program that
/// indexes the bank with a register (`c[0x0][R2+0x10]`) may read any word,
/// so it gets none.
fn unread_constants(constants: &BTreeMap<u32, u32>, program: &Program) -> Vec<String> {
    if program
        .instrs
        .iter()
        .any(|i| i.text.contains("c[0x0][R") || i.text.contains("c[0x0][UR"))
    {
        return Vec::new();
    }
    let reads = args::reads(program);
    let read = |at: u32| reads.iter().any(|(&r, &w)| r <= at && at < r + w);
    constants
        .keys()
        .filter(|&&k| k < 0x1_0000 && !read(k) && !(k >= 4 && read(k - 4)))
        .map(|k| {
            format!(
                "`constants.{k:#x}` sets c[0x0][{k:#x}], which no instruction reads; for a \
                 listing, `args:` puts the kernel's parameters where its architecture's ABI \
                 does"
            )
        })
        .collect()
}
