//! warpstep: step through GPU warp execution one issue slot at a time.
//!
//! The crate is layered so that the simulation core knows nothing of its
//! frontends:
//!
//! - [`expr`]: the small expression language of scenario files.
//! - [`asm`]: the SASS-flavoured assembler, control codes and the
//!   control-flow graph with immediate post-dominators.
//! - [`scenario`]: loading and validating a YAML scenario.
//! - [`engine`]: the cycle-level SM model (`Machine`).
//! - [`report`]: the headless report (text and JSON) built from a `Machine`.
//! - [`session`]: stepping a machine both ways, breakpoints and runs to a
//!   goal, for any frontend.
//! - [`text`]: scenario text made safe for a terminal.
//!
//! With the `tui` feature (on by default), the frontends:
//!
//! - `tui`: the interactive stepper;
//! - `record`: recording and replaying stepping sessions;
//! - `cli`: the command line.

// `LoadError` carries a whole diagnostic (file, span, source line, hint);
// it is built once per failed load, so returning it unboxed costs nothing
// that matters and keeps the public signatures plain.
#![allow(clippy::result_large_err)]

pub mod asm;
pub mod builtin;
#[cfg(feature = "tui")]
pub mod cli;
pub mod engine;
pub mod expr;
#[cfg(feature = "tui")]
pub mod record;
pub mod report;
pub mod scenario;
pub mod session;
pub mod text;
#[cfg(feature = "tui")]
pub mod tui;
