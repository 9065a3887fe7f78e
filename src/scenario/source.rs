//! Where each instruction came from in the CUDA source: the listing's line
//! table (`nvdisasm -g` prints `//## File "k.cu", line 4`) as a map from pc
//! to (file, line), the source text where the scenario gives it, and the
//! per-pc counters summed per source line.
//!
//! The map never reads a file the listing names: a listing may name any
//! path. The text comes only through [`SourceMap::set_text`], from what the
//! scenario itself holds.

use crate::asm::listing::SourceLine;
use crate::engine::stats::{PcCounters, Reason, ReasonCounts, ratio};

/// One source file the line table names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The name as the line table writes it (`seed.cu`, `/home/u/k.cu`).
    pub name: String,
    /// Its text, when the scenario gives it; `None` shows line numbers only.
    pub text: Option<String>,
}

/// A source position: an index into [`SourceMap::files`] and a 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SourcePos {
    pub file: u32,
    pub line: u32,
}

/// Program pcs to source lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMap {
    /// The files, in the order the line table first names them.
    pub files: Vec<SourceFile>,
    /// Per pc (instruction index): its source position, if the table gives one.
    pub pcs: Vec<Option<SourcePos>>,
}

/// One source line that has instructions, and which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLine {
    pub pos: SourcePos,
    /// The pcs mapped to it, ascending (not always one range: the compiler
    /// moves code).
    pub pcs: Vec<u32>,
}

/// The per-pc counters of one source line, summed over its pcs
/// (docs/execution-model.md, "Per source line").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineCounters {
    pub pos: SourcePos,
    /// Warp-level issues of the line's instructions.
    pub executions: u64,
    /// Active lanes summed over those issues.
    pub thread_inst_executed: u64,
    /// Predicated-on lanes summed over those issues.
    pub thread_inst_executed_pred_on: u64,
    /// Issues of the line's `BRA`/`BREAK` instructions.
    pub branches: u64,
    pub divergent_branches: u64,
    /// Warp-cycles warps spent with one of the line's instructions next.
    pub stalls: ReasonCounts,
}

impl LineCounters {
    /// `thread_inst_executed_pred_on / (W * executions)`; `None` before
    /// the line ran.
    pub fn simd_efficiency(&self, width: u32) -> Option<f64> {
        ratio(
            self.thread_inst_executed_pred_on,
            u64::from(width) * self.executions,
        )
    }

    /// The reason other than `selected` with the most warp-cycles (the
    /// last in [`Reason::ALL`] on a tie, as the report's per-pc column
    /// picks), if any has some.
    pub fn top_stall(&self) -> Option<(Reason, u64)> {
        Reason::ALL
            .iter()
            .filter(|&&r| r != Reason::Selected)
            .map(|&r| (r, self.stalls.get(r)))
            .max_by_key(|&(_, n)| n)
            .filter(|&(_, n)| n > 0)
    }
}

/// The last path component, either separator.
fn basename(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

impl SourceMap {
    /// The map of a listing's line table (per pc), or `None` when no
    /// instruction has a source line.
    pub fn from_lines(lines: &[Option<SourceLine>]) -> Option<SourceMap> {
        if lines.iter().all(Option::is_none) {
            return None;
        }
        let mut files: Vec<SourceFile> = Vec::new();
        let pcs = lines
            .iter()
            .map(|l| {
                let l = l.as_ref()?;
                let file = match files.iter().position(|f| f.name == l.file) {
                    Some(i) => i,
                    None => {
                        files.push(SourceFile {
                            name: l.file.clone(),
                            text: None,
                        });
                        files.len() - 1
                    }
                };
                Some(SourcePos {
                    file: file as u32,
                    line: l.line,
                })
            })
            .collect();
        Some(SourceMap { files, pcs })
    }

    /// Gives the text of the file named `name`: its full name as the line
    /// table writes it, or its last path component (`k.cu` gives the text
    /// of `/home/u/k.cu`). Returns whether a file took it.
    pub fn set_text(&mut self, name: &str, text: String) -> bool {
        let exact = self.files.iter().position(|f| f.name == name);
        let at = exact.or_else(|| {
            let base = basename(name);
            self.files.iter().position(|f| basename(&f.name) == base)
        });
        match at {
            Some(i) => {
                self.files[i].text = Some(text);
                true
            }
            None => false,
        }
    }

    /// Whether any file has its text.
    pub fn has_text(&self) -> bool {
        self.files.iter().any(|f| f.text.is_some())
    }

    /// The source position of instruction `pc`.
    pub fn at(&self, pc: u32) -> Option<SourcePos> {
        self.pcs.get(pc as usize).copied().flatten()
    }

    /// The file's name (`?` for an index out of range).
    pub fn file_name(&self, file: u32) -> &str {
        self.files
            .get(file as usize)
            .map_or("?", |f| f.name.as_str())
    }

    /// Line `pos.line` of its file's text, without its line ending, when
    /// the text is known and long enough.
    pub fn line_text(&self, pos: SourcePos) -> Option<&str> {
        let text = self.files.get(pos.file as usize)?.text.as_deref()?;
        let n = usize::try_from(pos.line).ok()?.checked_sub(1)?;
        text.lines().nth(n)
    }

    /// Lines in the file's text (0 without text).
    pub fn text_lines(&self, file: u32) -> usize {
        self.files
            .get(file as usize)
            .and_then(|f| f.text.as_deref())
            .map_or(0, |t| t.lines().count())
    }

    /// The source lines that have instructions, by file then line.
    pub fn code_lines(&self) -> Vec<CodeLine> {
        let mut by: std::collections::BTreeMap<SourcePos, Vec<u32>> = Default::default();
        for (pc, p) in self.pcs.iter().enumerate() {
            if let Some(p) = p {
                by.entry(*p).or_default().push(pc as u32);
            }
        }
        by.into_iter()
            .map(|(pos, pcs)| CodeLine { pos, pcs })
            .collect()
    }

    /// The pcs of source line `pos`, ascending.
    pub fn pcs_of(&self, pos: SourcePos) -> Vec<u32> {
        self.pcs
            .iter()
            .enumerate()
            .filter(|(_, p)| **p == Some(pos))
            .map(|(pc, _)| pc as u32)
            .collect()
    }

    /// The per-pc counters `pcs` summed per source line, one entry per
    /// line with instructions, by file then line.
    pub fn counters(&self, pcs: &[PcCounters]) -> Vec<LineCounters> {
        self.code_lines()
            .into_iter()
            .map(|cl| {
                let mut c = LineCounters {
                    pos: cl.pos,
                    ..LineCounters::default()
                };
                for pc in cl.pcs {
                    let Some(p) = pcs.get(pc as usize) else {
                        continue;
                    };
                    c.executions += p.executions;
                    c.thread_inst_executed += p.thread_inst_executed;
                    c.thread_inst_executed_pred_on += p.thread_inst_executed_pred_on;
                    c.branches += p.branches;
                    c.divergent_branches += p.divergent_branches;
                    c.stalls.merge(&p.stalls);
                }
                c
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sl(file: &str, line: u32) -> Option<SourceLine> {
        Some(SourceLine {
            file: file.into(),
            line,
        })
    }

    #[test]
    fn files_in_first_mention_order_and_lines_by_file_then_line() {
        // Hand-built table: pcs 0..5 at a.cu:3, a.cu:5, none, b.cu:1, a.cu:3.
        let m = SourceMap::from_lines(&[
            sl("a.cu", 3),
            sl("a.cu", 5),
            None,
            sl("/x/b.cu", 1),
            sl("a.cu", 3),
        ])
        .expect("has lines");
        assert_eq!(m.files.len(), 2);
        assert_eq!(m.file_name(1), "/x/b.cu");
        assert_eq!(m.at(2), None);
        assert_eq!(m.at(3), Some(SourcePos { file: 1, line: 1 }));
        let lines: Vec<(u32, u32, Vec<u32>)> = m
            .code_lines()
            .into_iter()
            .map(|c| (c.pos.file, c.pos.line, c.pcs))
            .collect();
        assert_eq!(
            lines,
            vec![(0, 3, vec![0, 4]), (0, 5, vec![1]), (1, 1, vec![3])]
        );
        assert_eq!(SourceMap::from_lines(&[None, None]), None);
    }

    #[test]
    fn text_is_matched_by_full_name_or_basename() {
        let mut m = SourceMap::from_lines(&[sl("/home/u/k.cu", 2)]).expect("has lines");
        assert!(!m.has_text());
        assert!(!m.set_text("other.cu", "x".into()));
        assert!(m.set_text("src/k.cu", "line one\nline two\n".into()));
        let p = SourcePos { file: 0, line: 2 };
        assert_eq!(m.line_text(p), Some("line two"));
        assert_eq!(m.line_text(SourcePos { file: 0, line: 3 }), None);
        assert_eq!(m.line_text(SourcePos { file: 0, line: 0 }), None);
        assert!(m.set_text("/home/u/k.cu", "only\n".into()));
        assert_eq!(m.text_lines(0), 1);
    }

    #[test]
    fn counters_sum_the_pcs_of_each_line() {
        let m =
            SourceMap::from_lines(&[sl("a.cu", 1), sl("a.cu", 2), sl("a.cu", 1)]).expect("lines");
        let mut p = vec![PcCounters::default(); 3];
        p[0].executions = 2;
        p[0].thread_inst_executed_pred_on = 64;
        p[2].executions = 2;
        p[2].thread_inst_executed_pred_on = 32;
        p[2].stalls.add(Reason::Wait, 5);
        p[0].stalls.add(Reason::LongScoreboard, 5);
        let c = m.counters(&p);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].executions, 4);
        // 96 useful lane-slots of 4 issues x 32 lanes = 0.75.
        assert_eq!(c[0].simd_efficiency(32), Some(0.75));
        // A tie goes to the reason last in Reason::ALL (long_scoreboard after wait).
        assert_eq!(c[0].top_stall(), Some((Reason::LongScoreboard, 5)));
        assert_eq!(c[1].simd_efficiency(32), None);
        assert_eq!(c[1].top_stall(), None);
    }
}
