//! Finding one's way in the program: `/` searches the listing (`o` and
//! `O` find the next and previous match), `:` goes to an address or a
//! label; both put the program pane's cursor there.

use super::{App, MessageKind, Pane, PromptKind};
use crate::asm::Program;
use crate::text::clean;

/// Longest text a prompt takes.
pub const PROMPT_MAX: usize = 64;

impl App {
    /// Opens a prompt of `kind`, empty.
    pub(super) fn open_prompt(&mut self, kind: PromptKind) {
        self.prompt = Some(String::new());
        self.prompt_kind = kind;
    }

    /// What the prompt asks for, while one is open.
    pub fn prompt_kind(&self) -> Option<PromptKind> {
        self.prompt.as_ref().map(|_| self.prompt_kind)
    }

    /// The last text searched for with `/`.
    pub fn search_text(&self) -> Option<&str> {
        self.search.as_deref()
    }

    /// The instructions whose text or label contains `pat`, ignoring case,
    /// in program order.
    pub fn search_matches(&self, pat: &str) -> Vec<u32> {
        let pat = pat.to_lowercase();
        let prog = &self.scenario().program;
        (0..prog.instrs.len() as u32)
            .filter(|&pc| {
                let text = prog.instrs[pc as usize].text.to_lowercase();
                let label = prog.label_at(pc).map(str::to_lowercase);
                text.contains(&pat) || label.is_some_and(|l| l.contains(&pat))
            })
            .collect()
    }

    /// Searches for `pat` from the cursor: the next match after it
    /// (`forward`) or before it, wrapping around the program.
    pub(super) fn search(&mut self, pat: &str, forward: bool) {
        if pat.is_empty() {
            self.say(MessageKind::Warn, "nothing to search for".into());
            return;
        }
        let shown = clean(pat);
        let hits = self.search_matches(pat);
        if hits.is_empty() {
            self.say(
                MessageKind::Warn,
                format!("no instruction or label matches \"{shown}\""),
            );
            return;
        }
        let at = self.cursor;
        let (found, wrapped) = if forward {
            match hits.iter().find(|&&pc| pc > at) {
                Some(&pc) => (pc, false),
                None => (hits[0], true),
            }
        } else {
            match hits.iter().rev().find(|&&pc| pc < at) {
                Some(&pc) => (pc, false),
                None => (hits[hits.len() - 1], true),
            }
        };
        let nth = hits.iter().position(|&p| p == found).unwrap_or(0) + 1;
        self.show_pc(found);
        let text = self
            .scenario()
            .program
            .instrs
            .get(found as usize)
            .map_or(String::new(), |i| clean(&i.text));
        let wrap = if wrapped { ", wrapped" } else { "" };
        self.say(
            MessageKind::Info,
            format!(
                "\"{shown}\" {nth} of {}{wrap}: {} {text} (o next, O previous)",
                hits.len(),
                super::addr(found)
            ),
        );
    }

    /// `o` / `O`: the next or previous match of the last search.
    pub(super) fn search_again(&mut self, forward: bool) {
        match self.search.clone() {
            Some(pat) => self.search(&pat, forward),
            None => self.say(
                MessageKind::Warn,
                "no search yet: / then text, Enter".into(),
            ),
        }
    }

    /// Puts the program pane's cursor on `pc` and focuses the pane.
    fn show_pc(&mut self, pc: u32) {
        self.cursor = pc;
        self.follow = false;
        self.focus = Pane::Program;
        self.source_follows_listing();
    }

    /// `:` then an address (`0x40`, `40`, `/*0040*/`) or a label.
    pub(super) fn go_to_pc(&mut self, text: &str) {
        let prog = &self.scenario().program;
        match resolve_pc(prog, text) {
            Ok(pc) => {
                let label = prog
                    .label_at(pc)
                    .map_or(String::new(), |l| format!(" ({})", clean(l)));
                let instr = prog
                    .instrs
                    .get(pc as usize)
                    .map_or(String::new(), |i| clean(&i.text));
                self.show_pc(pc);
                self.say(
                    MessageKind::Info,
                    format!("{}{label} {instr}", super::addr(pc)),
                );
            }
            Err(e) => self.say(MessageKind::Warn, e),
        }
    }
}

/// The instruction `text` names: a byte address in hex (`0x40`, `40`,
/// `/*0040*/`, a multiple of 16 inside the program) or a label (exact
/// first, then ignoring case).
pub fn resolve_pc(prog: &Program, text: &str) -> Result<u32, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("go to: give an address (0x40, /*0040*/) or a label".into());
    }
    let n = prog.instrs.len() as u32;
    let last = super::addr(n.saturating_sub(1));
    if let Some(l) = prog.labels.iter().find(|l| l.name == t) {
        return Ok(l.target.min(n.saturating_sub(1)));
    }
    if let Some(l) = prog.labels.iter().find(|l| l.name.eq_ignore_ascii_case(t)) {
        return Ok(l.target.min(n.saturating_sub(1)));
    }
    let inner = t
        .strip_prefix("/*")
        .and_then(|s| s.strip_suffix("*/"))
        .unwrap_or(t);
    let hex = inner
        .strip_prefix("0x")
        .or_else(|| inner.strip_prefix("0X"))
        .unwrap_or(inner);
    let shown = clean(t);
    let Ok(a) = u64::from_str_radix(hex, 16) else {
        let labels: Vec<String> = prog.labels.iter().take(6).map(|l| clean(&l.name)).collect();
        let known = if labels.is_empty() {
            "the program has no labels".to_string()
        } else {
            format!("labels: {}", labels.join(", "))
        };
        return Err(format!(
            "go to \"{shown}\": no such label or hex address ({known}; addresses /*0000*/..{last})"
        ));
    };
    if !a.is_multiple_of(16) {
        return Err(format!(
            "go to \"{shown}\": instructions are 16 bytes apart, at multiples of 0x10 (0x{:x} or 0x{:x})",
            a / 16 * 16,
            (a / 16 * 16).saturating_add(16)
        ));
    }
    match u32::try_from(a / 16) {
        Ok(pc) if pc < n => Ok(pc),
        _ => Err(format!(
            "go to \"{shown}\": past the program's last instruction, {last}"
        )),
    }
}
