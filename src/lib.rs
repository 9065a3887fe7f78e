//! warpstep: step through GPU warp execution one issue slot at a time.
//!
//! The crate is layered so that the simulation core knows nothing of its
//! frontends:
//!
//! - [`expr`]: the small expression language of scenario files.
//! - [`isa`]: the instruction set, one table entry per opcode (operands,
//!   spellings, class, reads and writes, semantics).
//! - [`asm`]: the SASS-flavoured assembler, control codes and the
//!   control-flow graph with immediate post-dominators.
//! - [`scenario`]: loading and validating a YAML scenario.
//! - [`engine`]: the cycle-level SM model (`Machine`).
//! - [`report`]: the headless report (text and JSON) built from a `Machine`.

// `LoadError` carries a whole diagnostic (file, span, source line, hint);
// it is built once per failed load, so returning it unboxed costs nothing
// that matters and keeps the public signatures plain.
#![allow(clippy::result_large_err)]

pub mod asm;
pub mod builtin;
pub mod cli;
pub mod engine;
pub mod expr;
pub mod isa;
pub mod record;
pub mod report;
pub mod scenario;
pub mod tui;
