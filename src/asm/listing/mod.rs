//! Listings as the CUDA tools print them: `cuobjdump -sass`, `nvdisasm`
//! (with or without `-g` line info and `-hex` encodings) and CuAssembler's
//! `.cuasm` text.
//!
//! A listing is a container around machine code: the architecture it was
//! compiled for, one or more kernels (each an ELF `.text.NAME` section), and
//! per kernel its instructions at their byte addresses, with the encoded
//! words the disassembler printed beside them. This module reads that
//! container into a [`Listing`] without interpreting the instructions: the
//! guard, opcode and operands are kept as printed, for the assembler to
//! parse. Header, directive and symbol lines are understood here, data
//! sections (constant banks, `.nv.info`, debug sections) are skipped.
//!
//! Every error is located (1-based line and column in the listing text);
//! the reader goes on after a bad line, so one pass reports them all.

pub mod assemble;
pub mod control;

#[cfg(test)]
mod tests;

use std::fmt;

use super::AsmError;
pub use assemble::{ListingInfo, assemble_kernel, check_arch, info, looks_like};
pub use control::Control;

/// The GPU architecture a listing was compiled for, as `sm_XY` names it:
/// `sm` is the compute capability times ten (`90` for `sm_90`), `feature`
/// the architecture-specific suffix (`a` in `sm_90a`, `f` in `sm_100f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arch {
    pub sm: u32,
    pub feature: Option<char>,
}

impl Arch {
    /// Reads `sm_90`, `sm_90a`, `SM90` or `90`.
    pub fn parse(text: &str) -> Option<Arch> {
        let t = text.trim();
        let digits_from = t
            .strip_prefix("sm_")
            .or_else(|| t.strip_prefix("SM_"))
            .or_else(|| t.strip_prefix("SM"))
            .or_else(|| t.strip_prefix("sm"))
            .unwrap_or(t);
        let end = digits_from
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits_from.len());
        let sm: u32 = digits_from[..end].parse().ok()?;
        let rest = &digits_from[end..];
        let feature = match rest {
            "" => None,
            "a" | "f" => rest.chars().next(),
            _ => return None,
        };
        // Compute capabilities run from 1.0 (`sm_10`) to two-digit majors
        // (`sm_120`); anything else is not an architecture name.
        if !(10..=199).contains(&sm) {
            return None;
        }
        Some(Arch { sm, feature })
    }

    /// Volta (sm_70) and newer encode each instruction in 128 bits with its
    /// control code inside; older ones in 64 bits with a separate control
    /// word per group of instructions.
    pub fn has_embedded_control(&self) -> bool {
        self.sm >= 70
    }

    /// Bytes per instruction: 16 from Volta on, 8 before.
    pub fn instruction_bytes(&self) -> u64 {
        if self.has_embedded_control() { 16 } else { 8 }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.sm)?;
        if let Some(c) = self.feature {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// Which tool printed the listing, as far as the text shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `cuobjdump -sass`: `code for sm_XX`, `Function : NAME`.
    Cuobjdump,
    /// `nvdisasm`: `.section .text.NAME` and symbol labels.
    Nvdisasm,
    /// CuAssembler's `.cuasm`: nvdisasm's layout with a written control
    /// code (`[B------:R-:W-:-:S01]`) before each instruction.
    Cuasm,
    /// Instruction lines only, with no container around them.
    Bare,
}

/// A source position from the line table (`nvdisasm -g` prints them as
/// `//## File "k.cu", line 4` before the instructions they cover).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
}

/// One machine instruction as the listing prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// 1-based line of the listing that holds the instruction.
    pub line: u32,
    /// 1-based column where `text` starts on that line.
    pub column: u32,
    /// Byte offset in the kernel's `.text` section.
    pub address: u64,
    /// Guard, opcode and operands exactly as printed, without the `;`.
    pub text: String,
    /// The encoded words printed beside it (`/* 0x... */`): two from Volta
    /// on (low word first), one before, none without `-hex`.
    pub words: Vec<u64>,
    /// The control code: decoded from the high word from Volta on, or the
    /// one a `.cuasm` line writes; `None` when the listing shows neither.
    pub control: Option<Control>,
    /// The source line the line table maps this instruction to.
    pub source: Option<SourceLine>,
}

/// A local label (`.L_x_3:`) and the instruction it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub name: String,
    /// Index of the instruction after the label in [`Kernel::instructions`]
    /// (equal to their count for a label at the end of the code).
    pub index: usize,
    /// Byte address of that instruction (the end of the code when none).
    pub address: u64,
    /// 1-based listing line of the label.
    pub line: u32,
}

/// One kernel (a `__global__` function's, or a device function's, code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// The symbol as the listing names it (mangled for C++ kernels; empty
    /// for instruction lines outside any function).
    pub name: String,
    /// The plain function name of a simple mangled symbol
    /// (`_Z16divergent_kernelPfi` → `divergent_kernel`).
    pub plain_name: Option<String>,
    /// 1-based listing line where the kernel starts.
    pub line: u32,
    pub instructions: Vec<Listed>,
    pub labels: Vec<Label>,
    /// Index of the final branch to itself when only `NOP`s follow it: the
    /// compiler's trap after the last `EXIT`, and the padding of the section
    /// to its alignment. Neither is reachable.
    pub padding_start: Option<usize>,
}

impl Kernel {
    /// The instructions before the unreachable padding.
    pub fn body(&self) -> &[Listed] {
        let end = self.padding_start.unwrap_or(self.instructions.len());
        &self.instructions[..end]
    }

    /// True when `name` is this kernel's symbol or its plain name.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name || self.plain_name.as_deref() == Some(name)
    }

    /// The instruction index at a byte address.
    pub fn index_at(&self, address: u64) -> Option<usize> {
        self.instructions
            .binary_search_by_key(&address, |i| i.address)
            .ok()
    }

    /// A label by name.
    pub fn label(&self, name: &str) -> Option<&Label> {
        self.labels.iter().find(|l| l.name == name)
    }

    fn display_name(&self) -> String {
        match &self.plain_name {
            Some(p) => format!("`{}` ({p})", self.name),
            None if self.name.is_empty() => "the unnamed function".to_string(),
            None => format!("`{}`", self.name),
        }
    }
}

/// A listing read into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub format: Format,
    /// The architecture the listing names, if it names one.
    pub arch: Option<Arch>,
    pub kernels: Vec<Kernel>,
    /// Constant bank 2 of each kernel that has one (its symbol, the
    /// bytes): the `.nv.constant2.NAME` sections `nvdisasm` prints
    /// without `-c`, the compiler's literal pool and jump tables.
    pub constant2: Vec<(String, Vec<u8>)>,
}

impl Listing {
    /// Chooses a kernel by mangled or plain name; with no name, the only
    /// kernel. The error lists the kernels there are.
    pub fn kernel(&self, name: Option<&str>) -> Result<&Kernel, AsmError> {
        let list = || {
            self.kernels
                .iter()
                .map(Kernel::display_name)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let line = self.kernels.first().map_or(1, |k| k.line);
        match name {
            None => match self.kernels.as_slice() {
                [only] => Ok(only),
                [] => Err(located(
                    1,
                    1,
                    1,
                    "the listing holds no kernel".into(),
                    Some("instruction lines like `/*0000*/ MOV R1, c[0x0][0x28] ;`".into()),
                    None,
                )),
                _ => Err(located(
                    line,
                    1,
                    1,
                    format!(
                        "the listing holds {} kernels: {}",
                        self.kernels.len(),
                        list()
                    ),
                    Some("`kernel:` naming one of them".into()),
                    Some("the mangled symbol or the plain name both work".into()),
                )),
            },
            Some(n) => {
                if let Some(k) = self.kernels.iter().find(|k| k.is_named(n)) {
                    return Ok(k);
                }
                let closest = self
                    .kernels
                    .iter()
                    .flat_map(|k| std::iter::once(k.name.as_str()).chain(k.plain_name.as_deref()))
                    .map(|c| (strsim::levenshtein(n, c), c))
                    .min();
                let hint = match closest {
                    Some((d, c)) if d <= 3 => format!("did you mean `{c}`?"),
                    _ => "the mangled symbol or the plain name both work".to_string(),
                };
                Err(located(
                    line,
                    1,
                    1,
                    format!("no kernel `{n}` in the listing; it holds {}", list()),
                    Some("one of the listing's kernels".into()),
                    Some(hint),
                ))
            }
        }
    }
}

/// The plain name of a simple Itanium-mangled symbol: `_Z<len><name>...`.
/// Nested names (`_ZN...E`) and other forms give `None`.
pub fn plain_name(symbol: &str) -> Option<String> {
    let rest = symbol.strip_prefix("_Z")?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let len: usize = rest[..digits].parse().ok()?;
    let name = rest.get(digits..digits.checked_add(len)?)?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some(name.to_string())
}

fn located(
    line: u32,
    column: u32,
    len: u32,
    message: String,
    expected: Option<String>,
    hint: Option<String>,
) -> AsmError {
    AsmError {
        line,
        column,
        len: len.max(1),
        message,
        expected,
        hint,
    }
}

/// 1-based character column of byte offset `at` in `line`.
fn column_of(line: &str, at: usize) -> u32 {
    let at = at.min(line.len());
    let prefix = line.get(..at).unwrap_or(line);
    u32::try_from(prefix.chars().count() + 1).unwrap_or(u32::MAX)
}

/// Byte offset of `inner`, a slice of `outer`, within it.
fn offset_in(outer: &str, inner: &str) -> usize {
    (inner.as_ptr() as usize)
        .saturating_sub(outer.as_ptr() as usize)
        .min(outer.len())
}

fn char_len(s: &str) -> u32 {
    u32::try_from(s.chars().count()).unwrap_or(u32::MAX)
}

/// Reads a `/* 0x0123456789abcdef */` comment at the start of `s`; returns
/// the word and the text after the comment.
fn hex_comment(s: &str) -> Option<(u64, &str)> {
    let inner = s.strip_prefix("/*")?;
    let close = inner.find("*/")?;
    let body = inner[..close].trim();
    let hex = body.strip_prefix("0x")?;
    if hex.is_empty() || hex.len() > 16 {
        return None;
    }
    let word = u64::from_str_radix(hex, 16).ok()?;
    Some((word, &inner[close + 2..]))
}

/// A label definition line, `NAME:` with nothing after it.
fn label_definition(t: &str) -> Option<&str> {
    let name = t.strip_suffix(':')?.trim_end();
    let mut chars = name.chars();
    let first = chars.next()?;
    let ok_first = first.is_ascii_alphabetic() || matches!(first, '_' | '.' | '$');
    let ok_rest = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'));
    (ok_first && ok_rest).then_some(name)
}

/// Where the reader is in the listing's sections.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Before any section, or in a code section.
    Code,
    /// In a data section (constants, `.nv.info`, debug tables): skipped.
    Data,
}

struct Reader {
    format: Option<Format>,
    arch: Option<(Arch, u32)>,
    kernels: Vec<Kernel>,
    section: Section,
    /// In a `.nv.constant2.NAME` section: its index in `constant2`.
    bank2: Option<usize>,
    constant2: Vec<(String, Vec<u8>)>,
    pending_source: Option<SourceLine>,
    pending_labels: Vec<(String, u32)>,
    /// Index (in the current kernel) of the instruction whose high word may
    /// follow on the next line.
    awaiting_high_word: Option<usize>,
    errors: Vec<AsmError>,
}

/// Reads a listing. All errors are collected, in line order.
pub fn read(text: &str) -> Result<Listing, Vec<AsmError>> {
    let mut r = Reader {
        format: None,
        arch: None,
        kernels: Vec::new(),
        section: Section::Code,
        bank2: None,
        constant2: Vec::new(),
        pending_source: None,
        pending_labels: Vec::new(),
        awaiting_high_word: None,
        errors: Vec::new(),
    };
    for (n, line) in text.lines().enumerate() {
        let lineno = u32::try_from(n + 1).unwrap_or(u32::MAX);
        r.line(lineno, line);
    }
    r.flush_labels();
    let arch = r.arch.map(|(a, _)| a);
    for k in &mut r.kernels {
        finish(k, arch);
    }
    if r.errors.is_empty() {
        Ok(Listing {
            format: r.format.unwrap_or(Format::Bare),
            arch,
            kernels: r.kernels,
            constant2: r.constant2,
        })
    } else {
        Err(r.errors)
    }
}

/// Resolves label addresses and finds the padding.
fn finish(k: &mut Kernel, arch: Option<Arch>) {
    let step = arch.map_or(16, |a| a.instruction_bytes());
    let end = k
        .instructions
        .last()
        .map_or(0, |i| i.address.saturating_add(step));
    for l in &mut k.labels {
        l.address = k.instructions.get(l.index).map_or(end, |i| i.address);
    }
    k.padding_start = padding_start(k);
}

fn padding_start(k: &Kernel) -> Option<usize> {
    let last_non_nop = k.instructions.iter().rposition(|i| i.text != "NOP")?;
    let bra = &k.instructions[last_non_nop];
    let target = bra.text.strip_prefix("BRA")?;
    if !target.starts_with(char::is_whitespace) {
        return None;
    }
    let target = target.trim();
    let to_self = if let Some(hex) = target.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok() == Some(bra.address)
    } else if let Some(name) = target.strip_prefix("`(").and_then(|t| t.strip_suffix(')')) {
        k.label(name).is_some_and(|l| l.index == last_non_nop)
    } else {
        false
    };
    to_self.then_some(last_non_nop)
}

impl Reader {
    fn error(
        &mut self,
        line: u32,
        column: u32,
        len: u32,
        message: String,
        expected: Option<&str>,
        hint: Option<&str>,
    ) {
        self.errors.push(located(
            line,
            column,
            len,
            message,
            expected.map(str::to_string),
            hint.map(str::to_string),
        ));
    }

    fn set_format(&mut self, f: Format) {
        match (self.format, f) {
            (None, _) | (Some(Format::Bare), _) => self.format = Some(f),
            // A `.cuasm` file has nvdisasm's sections: keep the finer name.
            (Some(Format::Nvdisasm), Format::Cuasm) => self.format = Some(f),
            _ => {}
        }
    }

    fn set_arch(&mut self, lineno: u32, column: u32, len: u32, arch: Arch) {
        match self.arch {
            None => self.arch = Some((arch, lineno)),
            // `sm_90` and `sm_90a` describe the same machine.
            Some((a, _)) if a.sm == arch.sm => {}
            Some((a, at)) => self.error(
                lineno,
                column,
                len,
                format!("the listing names two architectures: {a} (line {at}) and {arch}"),
                Some(&format!("code for {a} only")),
                Some("dump one architecture at a time (`cuobjdump -sass -arch sm_XX`)"),
            ),
        }
    }

    fn start_kernel(&mut self, lineno: u32, name: &str) {
        self.flush_labels();
        self.awaiting_high_word = None;
        self.pending_source = None;
        self.kernels.push(Kernel {
            name: name.to_string(),
            plain_name: plain_name(name),
            line: lineno,
            instructions: Vec::new(),
            labels: Vec::new(),
            padding_start: None,
        });
    }

    /// Labels seen after the last instruction of a kernel name its end.
    fn flush_labels(&mut self) {
        if let Some(k) = self.kernels.last_mut() {
            let index = k.instructions.len();
            for (name, line) in self.pending_labels.drain(..) {
                k.labels.push(Label {
                    name,
                    index,
                    address: 0,
                    line,
                });
            }
        } else {
            self.pending_labels.clear();
        }
    }

    fn line(&mut self, lineno: u32, raw: &str) {
        let lead = raw.len() - raw.trim_start().len();
        let t = raw.trim();
        if t.is_empty() {
            return;
        }
        let high_word_candidate = self.awaiting_high_word.take();

        if let Some(rest) = t.strip_prefix("//") {
            // nvdisasm's section banners and the line table both live in
            // comments; only the line table matters here.
            if let Some(src) = rest.strip_prefix("##") {
                self.source_comment(lineno, raw, lead, src);
            }
            return;
        }

        // A lone encoded word: the high half of the instruction above
        // (Volta on), or a pre-Volta group's control word.
        if let Some((word, after)) = hex_comment(t) {
            if !after.trim().is_empty() {
                self.error(
                    lineno,
                    column_of(raw, offset_in(raw, after.trim_start())),
                    char_len(after.trim()),
                    "unexpected text after an encoded word".into(),
                    Some("the end of the line"),
                    None,
                );
                return;
            }
            if self.section == Section::Data {
                return;
            }
            let embedded = self.arch.is_none_or(|(a, _)| a.has_embedded_control());
            if let (Some(idx), true) = (high_word_candidate, embedded)
                && let Some(ins) = self
                    .kernels
                    .last_mut()
                    .and_then(|k| k.instructions.get_mut(idx))
            {
                ins.words.push(word);
                ins.control = Some(Control::from_high_word(word));
            }
            return;
        }

        // cuobjdump's end of a function, and its fatbin banners.
        if t.chars().all(|c| c == '.') || t.chars().all(|c| c == '=') {
            return;
        }
        if let Some(rest) = t.strip_prefix('.') {
            self.directive(lineno, raw, lead, rest);
            return;
        }

        if self.section == Section::Data {
            if self.bank2.is_some() && t.starts_with("/*") {
                // `/*0000*/ .byte 0x08, ...` of a `.nv.constant2` section.
                self.instruction(lineno, raw, lead, false);
            }
            return;
        }

        if t.starts_with('[') {
            self.set_format(Format::Cuasm);
            self.instruction(lineno, raw, lead, true);
            return;
        }
        if t.starts_with("/*") {
            self.instruction(lineno, raw, lead, false);
            return;
        }

        if let Some(rest) = t.strip_prefix("code for") {
            self.set_format(Format::Cuobjdump);
            let name = rest.trim();
            match Arch::parse(name) {
                Some(a) => {
                    let col = column_of(raw, offset_in(raw, rest.trim_start()));
                    self.set_arch(lineno, col, char_len(name), a);
                }
                None => self.error(
                    lineno,
                    column_of(raw, offset_in(raw, rest.trim_start())),
                    char_len(name),
                    format!("`{name}` is not an architecture"),
                    Some("an architecture like `sm_90`"),
                    None,
                ),
            }
            return;
        }
        if let Some(rest) = t.strip_prefix("Function") {
            let rest = rest.trim_start();
            if let Some(name) = rest.strip_prefix(':') {
                self.set_format(Format::Cuobjdump);
                let name = name.trim();
                if name.is_empty() {
                    self.error(
                        lineno,
                        column_of(raw, raw.len()),
                        1,
                        "a function header without a name".into(),
                        Some("`Function : NAME`"),
                        None,
                    );
                } else {
                    self.start_kernel(lineno, name);
                }
                return;
            }
        }
        if t.starts_with("Fatbin ") {
            return;
        }
        for key in [
            "arch",
            "code version",
            "host",
            "compile_size",
            "identifier",
            "ptxasOptions",
        ] {
            if let Some(rest) = t.strip_prefix(key)
                && rest.trim_start().starts_with('=')
            {
                if key == "arch"
                    && let Some(a) = Arch::parse(rest.trim_start()[1..].trim())
                {
                    self.set_arch(lineno, column_of(raw, lead), char_len(t), a);
                }
                return;
            }
        }

        if let Some(name) = label_definition(t) {
            self.label(lineno, name);
            return;
        }

        let word = t.split_whitespace().next().unwrap_or(t);
        self.error(
            lineno,
            column_of(raw, lead),
            char_len(word),
            format!("cannot read `{word}` as a listing line"),
            Some("an instruction (`/*0040*/ IMAD R5, R5, UR4, R0 ;`), a label, or a directive"),
            Some(
                "paste the listing as cuobjdump -sass or nvdisasm prints it; \
                 each instruction starts with its address in `/*...*/`",
            ),
        );
    }

    fn source_comment(&mut self, lineno: u32, raw: &str, lead: usize, src: &str) {
        // `File "k.cu", line 4` possibly followed by `inlined at ...`.
        let s = src.trim();
        let Some(after_file) = s.strip_prefix("File") else {
            return;
        };
        let after_file = after_file.trim_start();
        let parsed = after_file.strip_prefix('"').and_then(|q| {
            let close = q.find('"')?;
            let file = &q[..close];
            let rest = q[close + 1..].trim_start().strip_prefix(',')?.trim_start();
            let num = rest.strip_prefix("line")?.trim_start();
            let end = num.find(|c: char| !c.is_ascii_digit()).unwrap_or(num.len());
            let line: u32 = num[..end].parse().ok()?;
            Some(SourceLine {
                file: file.to_string(),
                line,
            })
        });
        match parsed {
            Some(sl) => self.pending_source = Some(sl),
            None => self.error(
                lineno,
                column_of(raw, lead),
                char_len(raw.trim()),
                "cannot read the line-table comment".into(),
                Some("`//## File \"NAME\", line N`"),
                None,
            ),
        }
    }

    fn directive(&mut self, lineno: u32, raw: &str, lead: usize, rest: &str) {
        // `.text.NAME:` and `.L_x_3:` are labels, not directives.
        if let Some(name) = label_definition(&format!(".{rest}")) {
            if self.section == Section::Data {
                return;
            }
            if name.starts_with(".text.") {
                return;
            }
            self.label(lineno, name);
            return;
        }
        let (name, args) = match rest.find(char::is_whitespace) {
            Some(i) => (&rest[..i], rest[i..].trim()),
            None => (rest, ""),
        };
        match name {
            "section" => {
                self.set_format(Format::Nvdisasm);
                let first = args.split(',').next().unwrap_or("").trim();
                let section = first.trim_matches('"');
                self.bank2 = None;
                if let Some(kernel) = section.strip_prefix(".nv.constant2.") {
                    self.flush_labels();
                    self.section = Section::Data;
                    self.bank2 = Some(self.constant2.len());
                    self.constant2.push((kernel.to_string(), Vec::new()));
                } else if let Some(kernel) = section.strip_prefix(".text.") {
                    self.section = Section::Code;
                    self.start_kernel(lineno, kernel);
                } else {
                    self.flush_labels();
                    self.section = Section::Data;
                }
            }
            "target" => {
                let arch_text = args
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .next()
                    .unwrap_or("");
                match Arch::parse(arch_text) {
                    Some(a) => self.set_arch(lineno, column_of(raw, lead), char_len(raw.trim()), a),
                    None => self.error(
                        lineno,
                        column_of(raw, offset_in(raw, args)),
                        char_len(args),
                        format!("`{args}` is not an architecture"),
                        Some("an architecture like `sm_90`"),
                        None,
                    ),
                }
            }
            "headerflags" => {
                // `@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"`: the
                // first plain EF_CUDA_SMnn flag is the real architecture.
                if let Some(a) = args
                    .trim_start_matches('@')
                    .trim_matches('"')
                    .split_whitespace()
                    .find_map(|f| f.strip_prefix("EF_CUDA_SM").and_then(Arch::parse))
                {
                    self.set_arch(lineno, column_of(raw, lead), char_len(raw.trim()), a);
                }
            }
            "__elf_flags" => {
                // CuAssembler keeps the ELF header flags; their low byte is
                // the SM number (`0x4b054b` is SM_75).
                self.set_format(Format::Cuasm);
                let v = args.split_whitespace().next().unwrap_or("");
                if let Some(flags) = v
                    .strip_prefix("0x")
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
                    && let Some(a) = u32::try_from(flags & 0xff)
                        .ok()
                        .and_then(|sm| Arch::parse(&sm.to_string()))
                {
                    self.set_arch(lineno, column_of(raw, lead), char_len(raw.trim()), a);
                }
            }
            _ if name.starts_with("__") => self.set_format(Format::Cuasm),
            "elftype" | "align" | "global" | "weak" | "type" | "size" | "other"
            | "sectionflags" | "sectioninfo" | "sectionentsize" | "zero" | "byte" | "short"
            | "word" | "dword" | "string" | "nv_debug" | "file" | "loc" | "version"
            | "address_size" => {}
            _ if self.section == Section::Data => {}
            _ => self.error(
                lineno,
                column_of(raw, lead),
                char_len(name) + 1,
                format!("unknown directive `.{name}`"),
                Some("a directive of nvdisasm's listings (`.section`, `.align`, `.global`, ...)"),
                None,
            ),
        }
    }

    /// The bytes of one `.byte` line of a `.nv.constant2` section, at
    /// `address` in the bank (entry `b` of `constant2`).
    fn bank2_bytes(
        &mut self,
        lineno: u32,
        raw: &str,
        at: usize,
        b: usize,
        address: u64,
        list: &str,
    ) {
        let mut bytes = Vec::new();
        for item in list.split(',') {
            let item = item.trim();
            match item
                .strip_prefix("0x")
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(v) => bytes.push(v),
                None => {
                    self.error(
                        lineno,
                        column_of(raw, at),
                        char_len(list) + 5,
                        format!("`{item}` is not a byte of constant bank 2"),
                        Some("bytes like `0x08, 0x00`"),
                        None,
                    );
                    return;
                }
            }
        }
        // Bank 2 is 64 KiB at most.
        let Some(start) = usize::try_from(address)
            .ok()
            .filter(|&a| a + bytes.len() <= 0x1_0000)
        else {
            self.error(
                lineno,
                column_of(raw, at),
                char_len(list) + 5,
                format!("constant bank 2 has no byte at 0x{address:x}"),
                Some("an offset under 0x10000"),
                None,
            );
            return;
        };
        if let Some((_, bank)) = self.constant2.get_mut(b) {
            if bank.len() < start + bytes.len() {
                bank.resize(start + bytes.len(), 0);
            }
            bank[start..start + bytes.len()].copy_from_slice(&bytes);
        }
    }

    fn label(&mut self, lineno: u32, name: &str) {
        if self.section == Section::Data {
            return;
        }
        // A symbol label opens its function when nothing else did (a
        // listing pasted from the symbol on). Inside a function's section a
        // symbol names code within it: nvdisasm prints a called device
        // function as `$KERNEL$FUNCTION:` in its caller's section.
        if !name.starts_with(".L") {
            if self.kernels.last().is_some_and(|k| k.name == name) {
                return;
            }
            if self.kernels.is_empty() {
                self.start_kernel(lineno, name);
                return;
            }
        }
        self.pending_labels.push((name.to_string(), lineno));
    }

    fn instruction(&mut self, lineno: u32, raw: &str, lead: usize, with_control: bool) {
        let mut at = lead;
        let mut control = None;
        if with_control {
            let rest = &raw[at..];
            let Some(close) = rest.find(']') else {
                self.error(
                    lineno,
                    column_of(raw, at),
                    1,
                    "a control code without its closing `]`".into(),
                    Some("`[B------:R-:W-:-:S01]`"),
                    None,
                );
                return;
            };
            let inner = &rest[1..close];
            match Control::parse(inner) {
                Ok(c) => control = Some(c),
                Err(msg) => {
                    self.error(
                        lineno,
                        column_of(raw, at + 1),
                        char_len(inner),
                        msg,
                        Some("`B------:R-:W-:-:S01` (wait mask, read barrier, write barrier, yield, stall)"),
                        None,
                    );
                    return;
                }
            }
            at += close + 1;
            at += raw[at..].len() - raw[at..].trim_start().len();
        }

        // The address, `/*00b0*/`.
        let rest = &raw[at..];
        let Some(body) = rest.strip_prefix("/*") else {
            self.error(
                lineno,
                column_of(raw, at),
                1,
                "an instruction without its address".into(),
                Some("an address like `/*0040*/`"),
                None,
            );
            return;
        };
        let Some(close) = body.find("*/") else {
            self.error(
                lineno,
                column_of(raw, at),
                2,
                "an address comment without its closing `*/`".into(),
                Some("an address like `/*0040*/`"),
                None,
            );
            return;
        };
        let addr_text = body[..close].trim();
        let Some(address) = (!addr_text.is_empty() && addr_text.len() <= 16)
            .then(|| u64::from_str_radix(addr_text, 16).ok())
            .flatten()
        else {
            self.error(
                lineno,
                column_of(raw, at + 2),
                char_len(addr_text),
                format!("`{addr_text}` is not a hexadecimal address"),
                Some("hexadecimal digits, like `/*00b0*/`"),
                None,
            );
            return;
        };
        at += 2 + close + 2;

        // The instruction text up to the next comment.
        let rest = &raw[at..];
        let (text_part, comment) = match rest.find("/*") {
            Some(i) => (&rest[..i], Some(&rest[i..])),
            None => match rest.find("//") {
                Some(i) => (&rest[..i], None),
                None => (rest, None),
            },
        };
        let text_at = at + (text_part.len() - text_part.trim_start().len());
        let text = text_part.trim();
        let text = text.strip_suffix(';').unwrap_or(text).trim_end();
        if let (Section::Data, Some(b), Some(bytes)) =
            (self.section, self.bank2, text.strip_prefix(".byte"))
        {
            // Bank 2's bytes: `/*0000*/ .byte 0x08, 0x00, ...`.
            self.bank2_bytes(lineno, raw, text_at, b, address, bytes);
            return;
        }
        if self.section == Section::Data || text.starts_with('.') {
            // Data bytes (`/*0000*/ .byte 0x01`) outside a code section.
            return;
        }
        if text.is_empty() {
            self.error(
                lineno,
                column_of(raw, text_at),
                1,
                "an address without an instruction".into(),
                Some("an instruction after the address"),
                None,
            );
            return;
        }
        if let Some(bad) = check_instruction_text(text) {
            self.error(
                lineno,
                column_of(raw, text_at + bad.0),
                bad.1,
                bad.2,
                Some("a guard like `@!P0` and an opcode like `IMAD.WIDE`"),
                None,
            );
            return;
        }

        let mut words = Vec::new();
        if let Some(c) = comment {
            match hex_comment(c) {
                Some((w, after)) => {
                    words.push(w);
                    let tail = after.trim();
                    if !tail.is_empty() && !tail.starts_with("//") {
                        self.error(
                            lineno,
                            column_of(raw, raw.len() - after.trim_start().len()),
                            char_len(tail),
                            "unexpected text after the encoded word".into(),
                            Some("the end of the line"),
                            None,
                        );
                        return;
                    }
                }
                None => {
                    let c_at = raw.len() - c.len();
                    self.error(
                        lineno,
                        column_of(raw, c_at),
                        char_len(c.trim_end()),
                        "cannot read the encoded word".into(),
                        Some("`/* 0x` and up to 16 hexadecimal digits ` */`"),
                        None,
                    );
                    return;
                }
            }
        }

        if self.kernels.is_empty() {
            self.start_kernel(lineno, "");
        }
        let source = self.pending_source.clone();
        let labels: Vec<(String, u32)> = self.pending_labels.drain(..).collect();
        let Some(k) = self.kernels.last_mut() else {
            return;
        };
        if let Some(prev) = k.instructions.last()
            && address <= prev.address
        {
            let prev_addr = prev.address;
            self.error(
                lineno,
                column_of(raw, lead),
                char_len(addr_text) + 4,
                format!("address {address:#06x} does not follow {prev_addr:#06x}"),
                Some(&format!("an address above {prev_addr:#06x}")),
                Some("a new function starts with `Function :` or `.section .text.NAME`"),
            );
            return;
        }
        let index = k.instructions.len();
        for (name, line) in labels {
            k.labels.push(Label {
                name,
                index,
                address: 0,
                line,
            });
        }
        k.instructions.push(Listed {
            line: lineno,
            column: column_of(raw, text_at),
            address,
            text: text.to_string(),
            words,
            control,
            source,
        });
        if comment.is_some() {
            self.awaiting_high_word = Some(index);
        }
    }
}

/// Checks the guard and opcode shape of an instruction's text; returns the
/// byte offset, length and message of what is wrong.
fn check_instruction_text(text: &str) -> Option<(usize, u32, String)> {
    let mut at = 0;
    let mut rest = text;
    if let Some(g) = rest.strip_prefix('@') {
        let end = g.find(char::is_whitespace).unwrap_or(g.len());
        let guard = &g[..end];
        let pred = guard.strip_prefix('!').unwrap_or(guard);
        let ok = matches!(pred, "PT" | "UPT")
            || pred
                .strip_prefix("UP")
                .or_else(|| pred.strip_prefix('P'))
                .is_some_and(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit());
        if !ok {
            return Some((
                0,
                char_len(guard) + 1,
                format!("`@{guard}` is not a guard predicate"),
            ));
        }
        let after = &g[end..];
        at = 1 + end + (after.len() - after.trim_start().len());
        rest = after.trim_start();
    }
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let op = &rest[..end];
    let ok = op.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && op
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, '.' | '_'));
    if !ok {
        let len = char_len(op).max(1);
        return Some((at, len, format!("`{op}` is not an opcode")));
    }
    None
}
