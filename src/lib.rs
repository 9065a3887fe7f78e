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
//! - [`session`]: stepping a machine both ways, breakpoints and runs to a
//!   goal, for any frontend.
//! - [`text`]: scenario text made safe for a terminal.
//! - [`cuda`]: CUDA C compiled with nvcc to a listing, cached.
//!
//! With the `tui` feature (on by default), the frontends:
//!
//! - `tui`: the interactive stepper;
//! - `record`: recording and replaying stepping sessions;
//! - `cli`: the command line.
//!
//! ## Driving a machine from another program
//!
//! A notebook, a web page or a test drives the engine the same way the TUI
//! and the report do. Build an [`engine::MachineConfig`] (the hardware) and
//! an [`engine::Kernel`] (a program linked against its constant bank and
//! the machine's latencies, with its launch, buffers and per-thread initial
//! values), or load a [`scenario::Scenario`], which builds both. Then
//! [`engine::Machine::new`], advance it with `step` (one cycle), `run_until`
//! (to a cycle) or `run` (to the end), and read it through the view
//! ([`engine::view`]: warps, lanes and ready queues by id, as plain data)
//! and the counters. Cloning a machine is a checkpoint.
//!
//! ```
//! use std::collections::BTreeMap;
//! use std::sync::Arc;
//! use warpstep::engine::{Kernel, Launch, Machine, MachineConfig};
//!
//! let config = MachineConfig::default();
//! let program = warpstep::asm::assemble("MOV R1, 7\nEXIT\n", config.latency.alu)?;
//! let kernel = Kernel::link(program, BTreeMap::new(), &config.latency, Launch::default())?;
//! let mut m = Machine::new(config, Arc::new(kernel))?;
//! while m.step() {
//!     for v in m.warp_views() {
//!         let _ = (v.warp, v.pc, v.active, v.status);
//!     }
//! }
//! assert!(m.finished());
//! assert_eq!(m.totals().issued, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// `LoadError` carries a whole diagnostic (file, span, source line, hint);
// it is built once per failed load, so returning it unboxed costs nothing
// that matters and keeps the public signatures plain.
#![allow(clippy::result_large_err)]

pub mod asm;
pub mod builtin;
#[cfg(feature = "tui")]
pub mod cli;
pub mod cuda;
pub mod engine;
pub mod expr;
pub mod isa;
#[cfg(feature = "tui")]
pub mod record;
pub mod report;
pub mod scenario;
pub mod session;
pub mod text;
#[cfg(feature = "tui")]
pub mod tui;
