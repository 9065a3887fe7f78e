//! The interactive stepper.

use crate::cli::TuiArgs;

/// Opens the stepper on the scenario the arguments name.
pub fn run_interactive(args: &TuiArgs) -> color_eyre::Result<i32> {
    let _ = args;
    Err(color_eyre::eyre::eyre!(
        "the stepper is not available in this build yet"
    ))
}
