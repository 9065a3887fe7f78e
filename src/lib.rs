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

pub mod asm;
pub mod engine;
pub mod expr;
pub mod report;
pub mod scenario;
pub mod builtin;
pub mod cli;
pub mod record;
pub mod tui;
