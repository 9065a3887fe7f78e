//! The SASS-flavoured assembler.
//!
//! `assemble` turns program text into a [`Program`]: it parses each line
//! (control code, guard, opcode with modifiers, operands), resolves labels,
//! derives control codes for instructions written without one, and computes
//! the control-flow graph's immediate post-dominators, which the `stack`
//! convergence model uses as reconvergence points.

pub mod ir;

pub use ir::{Instr, Program};

use std::fmt;

/// An error in program text, located within the program (not the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line in the program text.
    pub line: u32,
    /// 1-based column of the offending text.
    pub column: u32,
    /// Length of the offending text in characters (at least 1).
    pub len: u32,
    /// What is wrong, e.g. "unknown opcode `FFMAA`".
    pub message: String,
    /// What was expected there, e.g. "an opcode".
    pub expected: Option<String>,
    /// A suggestion, e.g. "did you mean `FFMA`?".
    pub hint: Option<String>,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}:{}: {}", self.line, self.column, self.message)?;
        if let Some(e) = &self.expected {
            write!(f, " (expected {e})")?;
        }
        if let Some(h) = &self.hint {
            write!(f, "; {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmError {}

/// Assembles program text. `alu_latency` is the fixed latency the derived
/// stall counts must cover.
pub fn assemble(text: &str, alu_latency: u32) -> Result<Program, AsmError> {
    // Placeholder until the assembler lands: an empty program.
    let _ = (text, alu_latency);
    Ok(Program {
        instrs: Vec::new(),
        labels: Vec::new(),
        num_regs: 0,
        reconvergence: Vec::new(),
        blocks: Vec::new(),
    })
}
