//! The SASS-flavoured assembler.
//!
//! `assemble` turns program text into a [`Program`]: it parses each line
//! (control code, guard, opcode with modifiers, operands), resolves labels,
//! derives control codes for instructions written without one, and computes
//! the control-flow graph's immediate post-dominators, which the `stack`
//! convergence model uses as reconvergence points.

pub mod abi;
mod barriers;
pub mod cfg;
pub mod control;
pub mod deps;
pub mod ir;
pub mod listing;
pub mod opcodes;
mod parser;

pub use ir::{Instr, Program};

use std::collections::HashMap;
use std::fmt;

use cfg::{Cfg, Flow};
use ir::{Op, PRED_BASE, PredSrc};

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
    let mut raws = Vec::new();
    let mut labels: HashMap<String, u32> = HashMap::new();
    let mut label_list = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let blanked = parser::blank_comments(line);
        let parsed = parser::parse_line(&blanked).map_err(|mut e| {
            e.line = line_no;
            e
        })?;
        for l in parsed.labels {
            let target = raws.len() as u32;
            if let Some(prev) = label_list.iter().find(|x: &&ir::Label| x.name == l.value) {
                return Err(AsmError {
                    line: line_no,
                    column: l.column,
                    len: l.len,
                    message: format!("label `{}` is defined twice", l.value),
                    expected: Some("a label name not used before".into()),
                    // Relative, so it reads right in program and file lines.
                    hint: Some(match line_no - prev.line {
                        0 => "it is already defined earlier on this line".to_string(),
                        1 => "it was first defined on the line above".to_string(),
                        n => format!("it was first defined {n} lines above"),
                    }),
                });
            }
            labels.insert(l.value.clone(), target);
            label_list.push(ir::Label {
                name: l.value,
                target,
                line: line_no,
            });
        }
        if let Some(ins) = parsed.instr {
            raws.push((line_no, ins));
        }
    }
    let Some((last_line, last_raw)) = raws.last() else {
        return Err(no_instructions());
    };
    let end = (
        *last_line,
        last_raw.column,
        last_raw.text.chars().count() as u32,
    );
    let n = raws.len() as u32;
    let mut instrs = Vec::with_capacity(raws.len());
    for (line, raw) in &raws {
        instrs.push(build_instr(*line, raw, &labels, n, raw.control)?);
    }
    finish(instrs, label_list, end, alu_latency, None)
}

fn no_instructions() -> AsmError {
    AsmError {
        line: 1,
        column: 1,
        len: 1,
        message: "the program has no instructions".into(),
        expected: Some("at least one instruction".into()),
        hint: Some("a program ends with `EXIT`".into()),
    }
}

/// Types one parsed instruction at program line `line`; `control` is its
/// written or decoded control code.
fn build_instr(
    line: u32,
    raw: &parser::RawInstr,
    labels: &HashMap<String, u32>,
    n: u32,
    control: Option<ir::Control>,
) -> Result<Instr, AsmError> {
    let located = |mut e: AsmError| {
        e.line = line;
        e
    };
    let (op, class) = opcodes::build(raw, labels).map_err(located)?;
    if let Op::Bra { target, .. } | Op::Bssy { target, .. } | Op::Call { target } = op
        && target >= n
    {
        let operand = raw
            .operands
            .last()
            .map_or((raw.column, 1), |o| (o.column, o.len));
        return Err(AsmError {
            line,
            column: operand.0,
            len: operand.1,
            message: "branch target past the last instruction".into(),
            expected: Some("a label that names an instruction".into()),
            hint: Some("put the label before an instruction, e.g. `done: EXIT`".into()),
        });
    }
    let guard = raw.guard.as_ref().map_or(PredSrc::TRUE, |g| g.value);
    let (defs, uses) = deps::resources(&op, guard);
    // The targets a `BRX` lists after its register and offset (the
    // decoder has checked that each names an instruction).
    let mut targets = Vec::new();
    if let Op::Brx { .. } = op {
        for o in raw.operands.iter().skip(2) {
            let t = match &o.value {
                parser::RawOperand::Label(name) => labels.get(name).copied(),
                parser::RawOperand::Int { value, .. } => u32::try_from(*value / 16).ok(),
                _ => None,
            };
            if let Some(t) = t.filter(|&t| t < n) {
                targets.push(t);
            } else {
                return Err(AsmError {
                    line,
                    column: o.column,
                    len: o.len.max(1),
                    message: "branch target past the last instruction".into(),
                    expected: Some("a label that names an instruction".into()),
                    hint: None,
                });
            }
        }
    }
    Ok(Instr {
        line,
        column: raw.column,
        text: raw.text.clone(),
        mnemonic: raw.mnemonic.value.clone(),
        guard,
        op,
        class,
        control: control.unwrap_or_default(),
        explicit_control: control.is_some(),
        defs,
        uses,
        targets,
    })
}

/// The checks and passes after typing: the program must not run past its
/// end (`end` is the last instruction's line, column and length), the
/// control-flow graph, derived control codes, reconvergence points.
fn finish(
    mut instrs: Vec<Instr>,
    labels: Vec<ir::Label>,
    (last_line, last_col, last_len): (u32, u32, u32),
    alu_latency: u32,
    arch: Option<u32>,
) -> Result<Program, AsmError> {
    let n = instrs.len() as u32;
    let flow: Vec<Flow> = instrs
        .iter()
        .map(|i| Flow::of(&i.op, !i.guard.is_always_true()))
        .collect();
    if !matches!(
        flow.last(),
        Some(Flow::Branch {
            conditional: false,
            ..
        }) | Some(Flow::Exit { conditional: false })
            | Some(Flow::Indirect { conditional: false })
    ) {
        return Err(AsmError {
            line: last_line,
            column: last_col,
            len: last_len.max(1),
            message: "the program can run past its last instruction".into(),
            expected: Some("an unconditional `EXIT` or `BRA` at the end".into()),
            hint: Some("end the program with `EXIT`".into()),
        });
    }
    let bssy_targets: Vec<u32> = instrs
        .iter()
        .filter_map(|i| match i.op {
            Op::Bssy { target, .. } => Some(target),
            _ => None,
        })
        .collect();
    // Where indirect jumps may go: a `RET` to the instruction after any
    // call (the return address is a register: one graph for every call
    // site), a `BRX` to the targets it lists (none listed: unknown).
    let return_points: Vec<u32> = instrs
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i.op, Op::Call { .. }))
        .map(|(pc, _)| pc as u32 + 1)
        .filter(|&pc| pc < n)
        .collect();
    let indirect: Vec<Vec<u32>> = instrs
        .iter()
        .map(|i| match i.op {
            Op::Ret { .. } => return_points.clone(),
            Op::Brx { .. } => i.targets.clone(),
            _ => Vec::new(),
        })
        .collect();
    let cfg = Cfg::build_with_targets(&flow, &bssy_targets, &indirect);
    barriers::check(&instrs, &cfg)?;
    control::derive(&mut instrs, &cfg, alu_latency);
    let reconvergence = (0..n)
        .map(|pc| cfg.reconvergence_pc(cfg.block_of(pc)))
        .collect();
    let num_regs = instrs
        .iter()
        .flat_map(|i| i.defs.iter().chain(&i.uses))
        .filter(|&&r| r < PRED_BASE)
        .map(|&r| u32::from(r) + 1)
        .max()
        .unwrap_or(0);
    Ok(Program {
        instrs,
        labels,
        num_regs,
        reconvergence,
        blocks: cfg.blocks,
        arch,
    })
}

#[cfg(test)]
mod tests;
