//! The built-in scenarios (`scenarios/*.yaml`, embedded at build time).

use crate::scenario::{LoadError, Origin, Scenario};

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

/// The scenario the TUI opens without an argument.
pub const DEFAULT: &str = "divergent-loop";

/// A built-in scenario's text, by name.
pub fn text(name: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Built-in names.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, _)| *n)
}

/// Gives a built-in's source map the text of the CUDA files its line table
/// names, from the sources embedded with the built-ins.
pub fn attach_sources(sc: &mut Scenario) {
    if let Some(map) = sc.source_map.as_mut() {
        for (name, text) in BUILTIN_SOURCES {
            map.set_text(name, (*text).to_string());
        }
    }
}

/// Loads a scenario named on the command line: a file path, or the name
/// of a built-in scenario.
pub fn resolve(arg: &str) -> Result<Scenario, LoadError> {
    let path = std::path::Path::new(arg);
    if path.exists() {
        return Scenario::from_file(path);
    }
    if let Some(t) = text(arg) {
        let mut sc = Scenario::from_text(t, Origin::Builtin(arg.to_string()))?;
        attach_sources(&mut sc);
        return Ok(sc);
    }
    let near = names()
        .map(|n| (strsim::levenshtein(arg, n), n))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, n)| *d <= 3.max(n.len() / 3))
        .map(|(_, n)| n);
    Err(LoadError {
        file: arg.to_string(),
        line: 0,
        column: 0,
        len: 0,
        key: None,
        message: format!("no scenario file or built-in scenario named `{arg}`"),
        expected: Some("a path to a .yaml file, or a name from `warpstep list`".into()),
        hint: Some(match near {
            Some(n) => format!("did you mean the built-in `{n}`?"),
            None => "`warpstep list` shows the built-in scenarios".into(),
        }),
        source_line: None,
        also: Vec::new(),
    })
}
