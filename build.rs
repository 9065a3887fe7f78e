//! Embeds every `scenarios/*.yaml` file as a built-in scenario, so adding
//! one is dropping a file there.

use std::fmt::Write;
use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=scenarios");
    let dir = Path::new("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
                .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from(
        "/// Built-in scenarios: (name, file text), sorted by name.\npub const BUILTINS: &[(&str, &str)] = &[\n",
    );
    for n in &names {
        println!("cargo::rerun-if-changed=scenarios/{n}.yaml");
        let _ = writeln!(
            out,
            "    ({n:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/scenarios/{n}.yaml\"))),"
        );
    }
    out.push_str("];\n");
    // The CUDA sources of the real-kernel built-ins, shown beside their
    // listings: (file name as the line table gives it, text).
    let mut sources: Vec<String> = std::fs::read_dir(dir.join("kernels"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "cu"))
                .filter_map(|p| p.file_name().map(|s| s.to_string_lossy().into_owned()))
                .collect()
        })
        .unwrap_or_default();
    sources.sort();
    out.push_str(
        "/// CUDA sources of built-ins: (file name, text), sorted by name.\npub const BUILTIN_SOURCES: &[(&str, &str)] = &[\n",
    );
    for f in &sources {
        println!("cargo::rerun-if-changed=scenarios/kernels/{f}");
        let _ = writeln!(
            out,
            "    ({f:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/scenarios/kernels/{f}\"))),"
        );
    }
    out.push_str("];\n");
    let dest =
        Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("builtins.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        println!("cargo::warning=could not write {}: {e}", dest.display());
    }
}
