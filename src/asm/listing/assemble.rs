//! A listing's kernel as a [`Program`]: each instruction's text goes through
//! the assembler's parser and opcode typing, at the line and column the
//! listing holds it, and runs with the control code its hex words encode.

use std::collections::HashMap;

use super::{Arch, Kernel, Listing};
use crate::asm::opcodes::OPCODES;
use crate::asm::{AsmError, Program, build_instr, finish, ir, no_instructions, parser};

/// What a program built from a listing keeps of the listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingInfo {
    /// The kernel's symbol, as the listing names it.
    pub kernel: String,
    pub arch: Arch,
    pub format: super::Format,
    /// Instructions whose control code the listing gives (decoded from the
    /// hex high word, or written in a `.cuasm` line).
    pub decoded: usize,
    /// Unreachable instructions after the final branch to itself that were
    /// left out (the section's `NOP` padding).
    pub padding: usize,
    /// Per instruction (pc order): the source line the listing's line
    /// table (`nvdisasm -g`) maps it to; empty when the listing has none.
    pub source: Vec<Option<super::SourceLine>>,
    /// The kernel's constant bank 2 as the listing prints it (`nvdisasm`
    /// without `-c`), little-endian words from offset 0; empty when the
    /// listing has none.
    pub bank2: Vec<u32>,
}

impl ListingInfo {
    /// The one-line note `check` prints about where control codes come from.
    pub fn controls_note(&self, instructions: usize) -> String {
        if self.decoded == 0 {
            "controls: derived (the listing has no hex words)".to_string()
        } else if self.decoded == instructions {
            "controls: from the listing's hex words".to_string()
        } else {
            format!(
                "controls: from the listing for {} of {instructions} instructions, derived for the rest",
                self.decoded
            )
        }
    }
}

/// Whether program text is a listing rather than a hand-written program: a
/// header line (`code for sm_90`, `Function : NAME`, `.headerflags`,
/// `.section`, `.target`, `arch = sm_90`, `.text.NAME:`) or an instruction
/// line with its address and its encoded word (`/*0040*/ ... /* 0x... */`).
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim();
        let function_header = t
            .strip_prefix("Function")
            .is_some_and(|r| r.trim_start().starts_with(':'));
        let arch_line = t
            .strip_prefix("arch")
            .is_some_and(|r| r.trim_start().starts_with('='));
        t.starts_with("code for ")
            || function_header
            || arch_line
            || t.starts_with(".headerflags")
            || t.starts_with(".section")
            || t.starts_with(".target")
            || (t.starts_with(".text.") && t.ends_with(':'))
            || address_with_word(t)
    })
}

/// `/*0040*/ TEXT ... /* 0x... */`.
fn address_with_word(t: &str) -> bool {
    let Some(rest) = t.strip_prefix("/*") else {
        return false;
    };
    let Some(close) = rest.find("*/") else {
        return false;
    };
    let addr = rest[..close].trim();
    let after = &rest[close + 2..];
    !addr.is_empty()
        && addr.chars().all(|c| c.is_ascii_hexdigit())
        && after
            .find("/*")
            .is_some_and(|i| after[i + 2..].trim_start().starts_with("0x"))
}

/// Refuses architectures older than Volta, whose encoding keeps control
/// codes apart from the instructions.
pub fn check_arch(arch: Arch) -> Result<(), String> {
    if arch.has_embedded_control() {
        Ok(())
    } else {
        Err(format!(
            "{arch} listings are not supported: warpstep runs sm_70 and newer \
             (Volta's 128-bit encoding with embedded control codes)"
        ))
    }
}

/// Assembles kernel `k` of a listing for `arch`. Errors are in listing
/// coordinates (the listing's line and column), every one of them.
pub fn assemble_kernel(k: &Kernel, arch: Arch, alu_latency: u32) -> Result<Program, Vec<AsmError>> {
    // The program ends at the final branch to itself: the NOPs after it
    // are the section's padding, never reached.
    let end = k
        .padding_start
        .map_or(k.instructions.len(), |p| p.saturating_add(1));
    let body = &k.instructions[..end.min(k.instructions.len())];
    let Some(last) = body.last() else {
        let mut e = no_instructions();
        e.line = k.line.max(1);
        return Err(vec![e]);
    };
    let mut errors = Vec::new();
    // Instruction i runs at pc i: its address must be i instructions in.
    let step = arch.instruction_bytes();
    if let Some((i, l)) = body
        .iter()
        .enumerate()
        .find(|(i, l)| l.address != *i as u64 * step)
    {
        errors.push(AsmError {
            line: l.line,
            column: 1,
            len: 1,
            message: format!(
                "address {:#06x} where {:#06x} was expected",
                l.address,
                i as u64 * step
            ),
            expected: Some(format!(
                "the kernel's instructions one after another, {step} bytes apart from /*0000*/"
            )),
            hint: Some("paste the kernel whole, from its first instruction".into()),
        });
        return Err(errors);
    }
    let n = body.len() as u32;
    let mut labels = HashMap::new();
    let mut label_list = Vec::new();
    for l in &k.labels {
        if l.index < body.len() {
            labels.insert(l.name.clone(), l.index as u32);
            label_list.push(ir::Label {
                name: l.name.clone(),
                target: l.index as u32,
                line: l.line,
            });
        }
    }
    let mut instrs = Vec::with_capacity(body.len());
    for l in body {
        // An opcode the simulator does not model is named as such, even
        // when its operands (uniform registers, say) would fail first.
        if let Some(e) = unsupported_opcode(l) {
            errors.push(e);
            continue;
        }
        // The text at its own column, so parser columns are listing columns.
        let indent = " ".repeat(l.column.saturating_sub(1) as usize);
        let line = format!(
            "{indent}{}",
            indirect_operands(&blank_descriptors(&l.text), &k.name)
        );
        let raw = match parser::parse_line(&line) {
            Ok(parsed) => match parsed.instr {
                Some(raw) => raw,
                None => continue,
            },
            Err(mut e) => {
                e.line = l.line;
                errors.push(e);
                continue;
            }
        };
        let control = l.control.map(|c| c.to_ir()).or(raw.control);
        match build_instr(l.line, &raw, &labels, n, control) {
            Ok(mut ins) => {
                ins.text = l.text.clone();
                instrs.push(ins);
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let last_len = u32::try_from(last.text.chars().count()).unwrap_or(u32::MAX);
    finish(
        instrs,
        label_list,
        (last.line, last.column, last_len),
        alu_latency,
        Some(arch.sm),
    )
    .map_err(|e| vec![e])
}

/// What the program keeps of listing `l` and its kernel `k`.
pub fn info(l: &Listing, k: &Kernel, arch: Arch, program: &Program) -> ListingInfo {
    // Instruction i of the program is the kernel's i-th listed one
    // (assembling checked their addresses).
    let source: Vec<Option<super::SourceLine>> = k
        .instructions
        .iter()
        .take(program.instrs.len())
        .map(|i| i.source.clone())
        .collect();
    let has_lines = source.iter().any(Option::is_some);
    ListingInfo {
        source: if has_lines { source } else { Vec::new() },
        kernel: k.name.clone(),
        arch,
        format: l.format,
        decoded: program.instrs.iter().filter(|i| i.explicit_control).count(),
        padding: k.instructions.len().saturating_sub(program.instrs.len()),
        bank2: l
            .constant2
            .iter()
            .find(|(name, _)| *name == k.name)
            .map(|(_, bytes)| {
                bytes
                    .chunks(4)
                    .map(|c| {
                        let mut w = [0u8; 4];
                        w[..c.len()].copy_from_slice(c);
                        u32::from_le_bytes(w)
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Blanks the memory descriptor of `desc[UR4][R2.64]` (sm_80 on), keeping
/// every other character's column: the descriptor names the access's cache
/// policy, which the simulator does not model.
pub(crate) fn blank_descriptors(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("desc[") {
        let after = &rest[i + "desc[".len()..];
        let Some(close) = after.find(']') else {
            break;
        };
        let inner = &after[..close];
        let next = &after[close + 1..];
        if next.starts_with('[') {
            out.push_str(&rest[..i]);
            out.extend(std::iter::repeat_n(
                ' ',
                "desc[".len() + inner.chars().count() + 1,
            ));
        } else {
            out.push_str(&rest[..i + "desc[".len() + close + 1]);
        }
        rest = next;
    }
    out.push_str(rest);
    out
}

/// The disassemblers print `RET.REL.NODEC R2 0x0` and `BRX R2 -0x160
/// (*"BRANCH_TARGETS .L_x_2,.L_x_8"*)` without a comma after the register:
/// writes them in the assembler's form (`RET.REL.NODEC R2,0x0`, `BRX
/// R2,-0x160, .L_x_2,.L_x_8`), keeping every other character's column. A
/// `RET` whose base names the kernel's own symbol (`` `(_Z6kernelPf) ``,
/// nvdisasm) counts from the kernel's start: `0x0`.
pub(crate) fn indirect_operands(text: &str, kernel: &str) -> String {
    let op_at = if text.starts_with('@') {
        match text.find(char::is_whitespace) {
            Some(g) => g + (text[g..].len() - text[g..].trim_start().len()),
            None => return text.to_string(),
        }
    } else {
        0
    };
    let word = text[op_at..].split_whitespace().next().unwrap_or("");
    let opcode = word.split('.').next().unwrap_or("");
    if !matches!(opcode, "RET" | "BRX") {
        return text.to_string();
    }
    let mut out = text.to_string();
    if let Some(start) = out.find("(*\"BRANCH_TARGETS ") {
        let len = "(*\"BRANCH_TARGETS ".len();
        out.replace_range(start..start + len, &format!(",{}", " ".repeat(len - 1)));
        if let Some(end) = out[start..].find("\"*)") {
            out.replace_range(start + end..start + end + 3, "   ");
        }
    }
    // The register after the opcode, then the space that should be a comma.
    let ops_at = op_at + word.len();
    let rest = &out[ops_at..];
    let reg_at = ops_at + (rest.len() - rest.trim_start().len());
    let reg_len = out[reg_at..]
        .find(|c: char| c.is_whitespace() || c == ',')
        .unwrap_or(out.len() - reg_at);
    let after = reg_at + reg_len;
    let next = out[after..].trim_start();
    if reg_len > 0 && out[after..].starts_with(' ') && !next.is_empty() && !next.starts_with(',') {
        out.replace_range(after..after + 1, ",");
        let own = format!("`({kernel})");
        if opcode == "RET" && !kernel.is_empty() && out[after + 1..].trim_start().starts_with(&own)
        {
            let at = after + 1 + (out[after + 1..].len() - out[after + 1..].trim_start().len());
            let pad = " ".repeat(own.len() - 3);
            out.replace_range(at..at + own.len(), &format!("0x0{pad}"));
        }
    }
    out
}

/// The error for an instruction whose opcode is not in the simulator's
/// table, at the opcode.
fn unsupported_opcode(l: &super::Listed) -> Option<AsmError> {
    let text = &l.text;
    let op_at = if text.starts_with('@') {
        let g = text.find(char::is_whitespace)?;
        g + (text[g..].len() - text[g..].trim_start().len())
    } else {
        0
    };
    let word = text[op_at..].split_whitespace().next()?;
    let opcode = word.split('.').next()?;
    if OPCODES.contains(&opcode) {
        return None;
    }
    let column = l
        .column
        .saturating_add(u32::try_from(text[..op_at].chars().count()).unwrap_or(u32::MAX));
    Some(AsmError {
        line: l.line,
        column,
        len: u32::try_from(opcode.chars().count()).unwrap_or(1).max(1),
        message: format!("unsupported opcode `{opcode}`"),
        expected: Some("an opcode the simulator models".into()),
        hint: Some(format!("the simulator models {}", OPCODES.join(" "))),
    })
}
