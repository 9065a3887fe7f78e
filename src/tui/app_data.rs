//! The stepper's data panes: what the lanes view, the memory pane and the
//! buffer view show, their keys (`l` `v` `[` `]` `m` `u` `x`), and what
//! the panes read from the machine and from the machine one cycle back.

use super::{AccessOrigin, App, DataState, DataView, MessageKind, Pane, ValueFormat};
use crate::asm::ir::{Instr, PRED_BASE};
use crate::engine::Machine;
use crate::engine::view::{AccessSpace, AccessView, LaneState, RegSel};

/// Predicates the lanes view offers after the registers (`P0`..`P6`).
const PREDICATES: u8 = 7;

/// True when `op`'s result is a binary32 value (the lanes view shows it as
/// f32 by default).
pub fn float_result(i: &Instr) -> bool {
    let op = i.opcode();
    matches!(
        op,
        "FFMA"
            | "FADD"
            | "FMUL"
            | "FMNMX"
            | "FSEL"
            | "FRND"
            | "MUFU"
            | "I2F"
            | "I2FP"
            | "F2F"
            | "FSWZADD"
            | "FADD32I"
            | "FMUL32I"
            | "FFMA32I"
    )
}

impl App {
    // ---- reading --------------------------------------------------------

    /// What the compact bottom row (the full layout's right pane) shows.
    pub fn data_view(&self) -> DataView {
        self.data_view
    }

    /// The lanes view shows one lane's registers (the lane inspector).
    pub fn lane_detail(&self) -> bool {
        self.lane_detail
    }

    /// What the data panes read from the machine.
    pub fn data(&self) -> &DataState {
        &self.data
    }

    /// The registers the program names, then `P0`..`P6`.
    fn registers(&self) -> Vec<RegSel> {
        let n = self.scenario().program.num_regs.min(255) as u8;
        (0..n)
            .map(RegSel::Reg)
            .chain((0..PREDICATES).map(RegSel::Pred))
            .collect()
    }

    /// The register the lanes view shows: the one chosen with `[`/`]`,
    /// else the first one written by what the focused warp issued last
    /// cycle, else by the cursor's instruction, else `R0`.
    pub fn lanes_register(&self) -> RegSel {
        if let Some(r) = self.lanes_reg {
            return r;
        }
        let instrs = &self.scenario().program.instrs;
        let issued = self
            .issues()
            .iter()
            .find(|r| r.warp == self.warp && !r.dispatch_stall)
            .and_then(|r| instrs.get(r.pc as usize));
        let cursor = instrs.get(self.cursor as usize);
        issued
            .into_iter()
            .chain(cursor)
            .find_map(|i| i.defs.first().copied())
            .map_or(RegSel::Reg(0), |d| {
                if d >= PRED_BASE {
                    RegSel::Pred((d - PRED_BASE).min(6) as u8)
                } else {
                    RegSel::Reg(d.min(254) as u8)
                }
            })
    }

    /// The lanes view's format: the one chosen with `v`, else what the
    /// instruction that wrote the register makes it (the last cycle's
    /// writer, else the program's writers: any float result makes f32).
    pub fn lanes_format(&self) -> ValueFormat {
        if let Some(f) = self.lanes_format {
            return f;
        }
        let RegSel::Reg(r) = self.lanes_register() else {
            return ValueFormat::U32;
        };
        let r = u16::from(r);
        let instrs = &self.scenario().program.instrs;
        let last = self
            .issues()
            .iter()
            .filter(|x| x.warp == self.warp && !x.dispatch_stall)
            .filter_map(|x| instrs.get(x.pc as usize))
            .find(|i| i.defs.contains(&r));
        let float = match last {
            Some(i) => float_result(i),
            None => instrs
                .iter()
                .any(|i| i.defs.contains(&r) && float_result(i)),
        };
        if float {
            ValueFormat::F32
        } else {
            ValueFormat::I32
        }
    }

    /// The buffer the buffer view shows (an index of the kernel's buffers).
    pub fn buffer_index(&self) -> usize {
        self.buffer
    }

    /// The buffer view's first row: chosen with j/k, else the row of the
    /// first word accessed this cycle.
    pub fn buffer_scroll(&self) -> Option<usize> {
        self.buffer_scroll
    }

    /// Where `x` writes its files.
    pub fn set_export_dir(&mut self, dir: std::path::PathBuf) {
        self.export_dir = dir;
    }

    /// The size the screen was last drawn at.
    pub fn drawn_size(&self) -> (u16, u16) {
        let r = self.drawn.get();
        (r.width, r.height)
    }

    pub(super) fn compact(&self) -> bool {
        let r = self.drawn.get();
        !(r.width >= super::FULL_WIDTH && r.height >= super::FULL_HEIGHT)
    }

    // ---- keys -----------------------------------------------------------

    /// `l`: shows and focuses the lanes view; again, one lane's registers;
    /// again (compact), the scoreboards, counters and queue.
    pub(super) fn lanes_key(&mut self) {
        let shown = !self.compact() || self.data_view == DataView::Lanes;
        if !shown || self.focus != Pane::Lanes {
            if self.compact() {
                self.data_view = DataView::Lanes;
            }
            self.focus = Pane::Lanes;
            self.lane_detail = false;
        } else if !self.lane_detail {
            self.lane_detail = true;
        } else if self.compact() {
            self.data_view = DataView::Panes;
            self.lane_detail = false;
            self.focus = Pane::Grid;
        } else {
            self.lane_detail = false;
        }
    }

    pub(super) fn cycle_format(&mut self) {
        let f = self.lanes_format().next();
        self.lanes_format = Some(f);
        self.say(
            MessageKind::Info,
            format!("{} shown as {}", self.lanes_register().name(), f.name()),
        );
    }

    pub(super) fn step_register(&mut self, d: i64) {
        let regs = self.registers();
        let at = regs
            .iter()
            .position(|&r| r == self.lanes_register())
            .unwrap_or(0) as i64;
        let n = regs.len().max(1) as i64;
        if let Some(&r) = regs.get((at + d).rem_euclid(n) as usize) {
            self.lanes_reg = Some(r);
            // A new register takes its writer's format again.
            self.lanes_format = None;
            self.lane_detail = false;
        }
    }

    /// `m`: shows and focuses the memory pane; again, hides it.
    pub(super) fn memory_key(&mut self) {
        if self.data_view == DataView::Memory {
            self.data_view = DataView::Panes;
            self.focus = Pane::Grid;
        } else {
            self.data_view = DataView::Memory;
            self.focus = Pane::Memory;
        }
    }

    /// `u`: shows the buffer view (at the buffer accessed this cycle, else
    /// the first); again, the next buffer; after the last, hides it.
    pub(super) fn buffer_key(&mut self) {
        let n = self.machine().kernel().buffers().len();
        if n == 0 {
            self.say(MessageKind::Warn, "the scenario has no buffers".into());
            return;
        }
        if self.data_view != DataView::Buffer {
            self.data_view = DataView::Buffer;
            self.focus = Pane::Buffer;
            self.buffer = self.touched_buffer().unwrap_or(0);
        } else if self.buffer + 1 < n {
            self.buffer += 1;
        } else {
            self.data_view = DataView::Panes;
            self.focus = Pane::Grid;
            self.buffer = 0;
        }
        self.buffer_scroll = None;
    }

    /// The buffer holding the first global word accessed this cycle.
    fn touched_buffer(&self) -> Option<usize> {
        let &(a, _) = self.data.touched.first()?;
        let bufs = self.machine().kernel().buffers();
        bufs.iter()
            .position(|b| a >= b.base && u64::from(a) < u64::from(b.base) + u64::from(b.bytes()))
    }

    pub(super) fn scroll_buffer(&mut self, d: i64) {
        let at = self.buffer_scroll.unwrap_or_else(|| {
            super::super::panes::buffer::auto_row(self, super::super::panes::buffer::PER_ROW)
        }) as i64;
        self.buffer_scroll = Some((at + d).max(0) as usize);
    }

    /// `x`: the screen as text and SVG and the machine as JSON.
    pub(super) fn export(&mut self) {
        let dir = self.export_dir.clone();
        match super::super::export::export_all(self, &dir) {
            Ok(paths) => {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                self.say(MessageKind::Info, format!("wrote {}", names.join(", ")));
            }
            Err(e) => self.say(MessageKind::Error, format!("export failed: {e}")),
        }
    }

    // ---- refresh --------------------------------------------------------

    /// Reads what the data panes show; the machine one cycle back gives
    /// the values before this cycle and the addresses issued accesses used.
    pub(super) fn refresh_data(&mut self) {
        let m = self.session.machine();
        let sel = self.lanes_register();
        let before: Option<Machine> = m
            .cycle()
            .checked_sub(1)
            .and_then(|c| self.session.timeline().machine_at(c));
        let values = m.lane_values(self.warp, sel);
        let prev = before.as_ref().and_then(|b| b.lane_values(self.warp, sel));
        let table = self
            .views
            .iter()
            .filter_map(|v| Some((v.warp, m.lane_values(v.warp, sel)?)))
            .collect();
        // Accesses issued last cycle, as the registers were when they issued.
        let mut issued: Vec<AccessView> = Vec::new();
        if let Some(b) = before.as_ref() {
            for r in m.issues().iter().filter(|r| !r.dispatch_stall) {
                if let Some(a) = b.access_view(r.warp, r.pc, r.on) {
                    issued.push(a);
                }
            }
        }
        let touched = issued
            .iter()
            .filter(|a| a.space == AccessSpace::Global)
            .flat_map(|a| a.lanes.iter().map(move |&(_, addr)| (addr, a.size)))
            .collect();
        let ahead = |pc: u32| -> Option<AccessView> {
            let v = self.focused_view()?;
            let on = if v.pc == Some(pc) {
                lanes_in(&v.lanes, LaneState::On)
            } else {
                v.launched & !v.exited & !v.faulted
            };
            m.access_view(self.warp, pc, on)
        };
        let cursor = (!self.follow)
            .then(|| ahead(self.cursor))
            .flatten()
            .map(|a| (a, AccessOrigin::Cursor));
        let last = m.cycle().saturating_sub(1);
        let issued_pick = issued
            .iter()
            .position(|a| a.warp == self.warp)
            .or((!issued.is_empty()).then_some(0))
            .map(|i| (issued.swap_remove(i), AccessOrigin::Issued(last)));
        let next = self
            .focused_view()
            .and_then(|v| v.pc)
            .and_then(ahead)
            .map(|a| (a, AccessOrigin::Next));
        self.data = DataState {
            values,
            before: prev,
            table,
            access: cursor.or(issued_pick).or(next),
            touched,
        };
    }
}

/// The lanes in state `s`, as a mask.
fn lanes_in(lanes: &[LaneState], s: LaneState) -> u64 {
    lanes
        .iter()
        .enumerate()
        .filter(|&(_, &x)| x == s)
        .fold(0, |m, (l, _)| m | 1 << l)
}
