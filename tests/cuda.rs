//! Checked by: `cuda:` scenarios compile real kernels with nvcc, the cache
//! spares the second open any nvcc call, a compile error is shown at the
//! scenario's line with exit 2, `warpstep compile` writes a scenario that
//! reports what the `cuda:` scenario does, and without nvcc anywhere the
//! message names the pip line.
//!
//! nvcc is found as warpstep finds it (`NVCC_BIN`, `PATH`, `CUDA_HOME`,
//! `CUDA_PATH`, the pip packages of `python3`). Without it the tests that
//! compile say so on stdout and pass, or fail under
//! `WARPSTEP_REQUIRE_ALL_TESTS=1` (CI exports `NVCC_BIN` and installs
//! the pip packages). Every test runs warpstep with `XDG_CACHE_HOME` in a
//! directory of its own, never the user's cache.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// seed.cu, the lecture's kernel (tests/kernels/seed.cu).
const SEED: &str = include_str!("kernels/seed.cu");

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpstep-cuda-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The folder of nvcc and nvdisasm, found as the product finds them, or
/// `None` (after saying so) when there is none.
fn tools() -> Option<warpstep::cuda::Tools> {
    match warpstep::cuda::tools::find() {
        Ok(t) => {
            println!(
                "compiling with {} (found in {})",
                t.nvcc.display(),
                t.found_in
            );
            Some(t)
        }
        Err(e) => {
            support::skip_or_fail(&format!("no nvcc to compile with: {e}"));
            None
        }
    }
}

/// warpstep with its cache under `dir`.
fn warpstep(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(support::BIN);
    c.current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env_remove("NO_COLOR")
        .args(args);
    c
}

fn run<C: std::borrow::BorrowMut<Command>>(mut c: C) -> Output {
    c.borrow_mut().output().expect("warpstep runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The report without what names the file: `file`, and each `line` (a
/// listing line in a compiled scenario, a file line where `program:` is
/// in the file).
fn without_places(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("file");
            m.remove("line");
            m.values_mut().for_each(without_places);
        }
        Value::Array(a) => a.iter_mut().for_each(without_places),
        _ => {}
    }
}

/// `warpstep compile seed.cu -o compiled.yaml` and a `cuda:` scenario with
/// the stub values compile wrote (one block of 32, `data` of 32 floats,
/// n = 32): the same report. Worked by hand from the sm_90 listing
/// (tests/kernels/seed.sm_90.sass, as corpus.rs explains it): data is
/// zeros, so every lane takes the else side: 7 + 1 (@P0 EXIT) + 5 + 3
/// (@!P0 FADD, STG, EXIT) = 16 issued; predicated on 7*32 + 0 + 5*32 +
/// 3*32 = 480 lane-instructions; each element becomes 0 + 1 = 1.
#[test]
fn a_cuda_scenario_reports_what_the_compiled_scenario_does() {
    if tools().is_none() {
        return;
    }
    let dir = scratch("same");
    std::fs::write(dir.join("seed.cu"), SEED).expect("seed.cu");
    let o = run(warpstep(
        &dir,
        &["compile", "seed.cu", "-o", "compiled.yaml"],
    ));
    assert_eq!(o.status.code(), Some(0), "compile: {}", stderr(&o));
    let written = std::fs::read_to_string(dir.join("compiled.yaml")).expect("written");
    assert!(written.contains("cuda_sha256: "), "{written}");
    assert!(written.contains("# EDIT"), "{written}");
    // It loads as written.
    let o = run(warpstep(&dir, &["check", "compiled.yaml"]));
    assert_eq!(o.status.code(), Some(0), "check: {}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("cuda: seed.cu shown beside `program:`"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    std::fs::write(
        dir.join("source.yaml"),
        "name: divergent_kernel (seed.cu, sm_90)\n\
         launch: {blocks: 1, block_dim: 32}\n\
         memory:\n  data: {type: f32, len: 32}\n\
         args: [data, 32]\n\
         cuda: {file: seed.cu}\n",
    )
    .expect("scenario");
    let report = |file: &str| -> Value {
        let o = run(warpstep(
            &dir,
            &["run", file, "--format", "json", "--buffers", "all"],
        ));
        assert_eq!(o.status.code(), Some(0), "run {file}: {}", stderr(&o));
        let mut v: Value = serde_json::from_slice(&o.stdout).expect("JSON report");
        without_places(&mut v);
        v
    };
    let from_source = report("source.yaml");
    let compiled = report("compiled.yaml");
    assert_eq!(from_source["issued"], 16);
    assert_eq!(from_source["thread_inst_executed_pred_on"], 480);
    assert_eq!(
        from_source["buffers"]["data"],
        Value::from(vec![1.0f64; 32])
    );
    assert_eq!(from_source, compiled);
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `NVCC_BIN` naming a folder whose `nvcc` counts its calls (and runs
/// the real one), the first `check` runs nvcc twice (`--version`, then the
/// compile) and the second not at all.
#[test]
fn the_second_open_runs_no_nvcc() {
    let Some(t) = tools() else { return };
    let dir = scratch("cache");
    let fake = dir.join("bin");
    std::fs::create_dir_all(&fake).expect("bin");
    let count = dir.join("calls");
    let script = format!(
        "#!/bin/sh\necho call >> '{}'\nexec '{}' \"$@\"\n",
        count.display(),
        t.nvcc.display()
    );
    std::fs::write(fake.join("nvcc"), script).expect("nvcc");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(fake.join("nvcc"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        std::os::unix::fs::symlink(&t.nvdisasm, fake.join("nvdisasm")).expect("nvdisasm");
    }
    std::fs::write(
        dir.join("k.yaml"),
        format!(
            "name: seed\nlaunch: {{threads: 32}}\nmemory:\n  data: {{type: f32, len: 32}}\n\
             args: [data, 32]\ncuda: |\n{}",
            SEED.lines().map(|l| format!("  {l}\n")).collect::<String>()
        ),
    )
    .expect("scenario");
    let calls = || {
        std::fs::read_to_string(&count)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    let check = || {
        let o = run(warpstep(&dir, &["check", "k.yaml"]).env("NVCC_BIN", &fake));
        assert_eq!(o.status.code(), Some(0), "check: {}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let first = check();
    assert_eq!(calls(), 2, "first open: --version and the compile");
    assert!(!first.contains("from the cache"), "{first}");
    let second = check();
    assert_eq!(calls(), 2, "the second open ran nvcc");
    assert!(second.contains("from the cache"), "{second}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `int idx = ...` without its `;` on scenario line 9: nvcc reports the
/// next source line (4, `if (idx < n) {`, which it expected the `;`
/// before), at its first character: scenario line 10, column 5 (two
/// spaces of YAML indentation, two of C).
#[test]
fn a_syntax_error_is_shown_at_the_scenario_line() {
    if tools().is_none() {
        return;
    }
    let dir = scratch("syntax");
    std::fs::write(
        dir.join("bad.yaml"),
        "name: a missing semicolon\n\
         launch: {threads: 32}\n\
         memory:\n  data: {type: f32, len: 32}\n\
         args: [data, 32]\n\
         cuda: |\n\
         \x20 // line 1 of the source, line 7 of the scenario\n\
         \x20 __global__ void k(float *data, int n) {\n\
         \x20   int idx = blockIdx.x * blockDim.x + threadIdx.x\n\
         \x20   if (idx < n) {\n\
         \x20     data[idx] += 1.0f;\n\
         \x20   }\n\
         \x20 }\n",
    )
    .expect("scenario");
    let o = run(warpstep(&dir, &["check", "bad.yaml"]));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("error: nvcc: expected a \";\""), "{err}");
    assert!(err.contains("--> bad.yaml:10:5"), "{err}");
    assert!(err.contains(" 10 |     if (idx < n) {"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `PATH` an empty folder and `NVCC_BIN`, `CUDA_HOME` and `CUDA_PATH`
/// unset, there is no nvcc (and no python3 to ask): exit 2, and the
/// message says what to install.
#[test]
fn without_nvcc_the_message_names_the_pip_line() {
    let dir = scratch("absent");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("empty");
    std::fs::write(
        dir.join("k.yaml"),
        "name: no nvcc\nlaunch: {threads: 32}\ncuda: |\n  __global__ void k() {}\n",
    )
    .expect("scenario");
    let o = run(warpstep(&dir, &["check", "k.yaml"])
        .env("PATH", &empty)
        .env_remove("NVCC_BIN")
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH"));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("pip install nvidia-cuda-nvcc nvidia-cuda-nvdisasm"),
        "{err}"
    );
    assert!(err.contains("--> k.yaml:4:3"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// For sm_100 nvcc turns the switch of `tests/kernels/switch_case.cu` into
/// a BRX through a jump table in constant bank 2, which `nvdisasm -c`
/// does not print: compiled from `cuda:`, the listing gets the bank-2
/// section too, and the run matches the switch worked in Rust here.
#[test]
fn a_switch_compiled_for_sm_100_reads_its_jump_table() {
    if tools().is_none() {
        return;
    }
    let dir = scratch("switch");
    let src = include_str!("kernels/switch_case.cu");
    std::fs::write(dir.join("switch_case.cu"), src).expect("source");
    std::fs::write(
        dir.join("s.yaml"),
        "name: switch sm_100\narch: sm_100\nlaunch: {blocks: 1, block_dim: 32}\n\
         memory:\n  in: {type: i32, len: 32, init: \"3 * i - 20\"}\n  out: {type: i32, len: 32}\n\
         args: [in, out, 32]\ncuda: {file: switch_case.cu}\n",
    )
    .expect("scenario");
    let o = run(warpstep(
        &dir,
        &["run", "s.yaml", "--format", "json", "--buffers", "out"],
    ));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    let want: Vec<i64> = (0..32i64)
        .map(|i| {
            let x = 3 * i - 20;
            match x & 7 {
                0 => 10,
                1 => x * 3,
                2 => x - 7,
                3 => x << 2,
                5 => -x,
                _ => 0,
            }
        })
        .collect();
    assert_eq!(v["buffers"]["out"], Value::from(want));
    let _ = std::fs::remove_dir_all(&dir);
}
