//! The six per-warp scoreboards (dependency barriers SB0..SB5).
//!
//! A scoreboard is a counter: each producer that names it increments it at
//! issue and decrements it when it completes (its result is written, or for
//! a read barrier, its source operands have been read). A consumer waits
//! until each scoreboard in its wait mask is zero. Because latencies are
//! known at issue, each pending producer carries its completion cycle.

use crate::asm::ir::{Class, SCOREBOARDS};

/// One outstanding producer on a scoreboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Producer {
    pub sb: u8,
    /// Instruction index of the producer.
    pub pc: u32,
    pub class: Class,
    /// Cycle it issued.
    pub issued: u64,
    /// Cycle from which the scoreboard no longer counts it.
    pub done: u64,
    /// True when this is a read barrier (operands read), not a result.
    pub read: bool,
}

/// What a warp blocked on scoreboards waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocking {
    /// Cycle from which every scoreboard waited on is clear.
    pub until: u64,
    /// The producer that completes last: the true cause.
    pub truth: Producer,
    /// The latest producer to set one of those scoreboards: what a profiler
    /// that labels by the scoreboard's last setter reports.
    pub labelled: Producer,
}

/// A warp's scoreboards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scoreboards {
    pending: Vec<Producer>,
}

impl Scoreboards {
    /// Forgets producers that completed by cycle `t`.
    #[inline]
    pub fn retire(&mut self, t: u64) {
        if !self.pending.is_empty() {
            self.pending.retain(|p| p.done > t);
        }
    }

    /// Forgets every producer, keeping the allocation (for a new warp).
    pub fn clear(&mut self) {
        self.pending.clear();
    }

    pub fn set(&mut self, p: Producer) {
        self.pending.push(p);
    }

    /// Outstanding producers on scoreboard `sb` at cycle `t`.
    #[cfg(test)]
    pub fn count(&self, sb: u8, t: u64) -> u32 {
        self.pending
            .iter()
            .filter(|p| p.sb == sb && p.done > t)
            .count() as u32
    }

    /// All outstanding producers at cycle `t`, oldest first.
    pub fn outstanding(&self, t: u64) -> impl Iterator<Item = &Producer> {
        self.pending.iter().filter(move |p| p.done > t)
    }

    /// What blocks an instruction with wait mask `mask` at cycle `t`, or
    /// `None` when every scoreboard in the mask is zero.
    pub fn blocking(&self, mask: u8, t: u64) -> Option<Blocking> {
        if mask == 0 {
            return None;
        }
        // Positions, not copies: the first producer completing last, and
        // the last one issued latest.
        let mut first = true;
        let (mut truth, mut until) = (0, 0);
        let (mut labelled, mut issued) = (0, 0);
        for (i, p) in self.pending.iter().enumerate() {
            if p.done <= t || mask & (1 << p.sb) == 0 {
                continue;
            }
            if first || p.done > until {
                (truth, until) = (i, p.done);
            }
            if first || p.issued >= issued {
                (labelled, issued) = (i, p.issued);
            }
            first = false;
        }
        if first {
            return None;
        }
        Some(Blocking {
            until,
            truth: *self.pending.get(truth)?,
            labelled: *self.pending.get(labelled)?,
        })
    }

    /// What blocks `DEPBAR.LE SBsb, le` at cycle `t`: it clears once at
    /// most `le` producers remain, i.e. at the (le+1)-th latest completion.
    pub fn depbar(&self, sb: u8, le: u8, t: u64) -> Option<Blocking> {
        let mut done: [u64; 64] = [0; 64];
        let mut n = 0;
        let mut latest: Option<Producer> = None;
        for p in self.pending.iter().filter(|p| p.sb == sb && p.done > t) {
            if n < done.len() {
                done[n] = p.done;
                n += 1;
            }
            if latest.is_none_or(|q| p.issued >= q.issued) {
                latest = Some(*p);
            }
        }
        if n <= usize::from(le) {
            return None;
        }
        let d = &mut done[..n];
        d.sort_unstable_by(|a, b| b.cmp(a));
        let until = d[usize::from(le)];
        let truth = self
            .pending
            .iter()
            .find(|p| p.sb == sb && p.done == until)
            .copied()?;
        Some(Blocking {
            until,
            truth,
            labelled: latest?,
        })
    }

    /// Per scoreboard at cycle `t`: count and the producer completing last.
    pub fn summary(&self, t: u64) -> [(u32, Option<Producer>); SCOREBOARDS] {
        let mut out = [(0, None); SCOREBOARDS];
        for p in self.outstanding(t) {
            let e: &mut (u32, Option<Producer>) = &mut out[usize::from(p.sb)];
            e.0 += 1;
            if e.1.is_none_or(|q: Producer| p.done > q.done) {
                e.1 = Some(*p);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prod(sb: u8, class: Class, issued: u64, done: u64) -> Producer {
        Producer {
            sb,
            pc: issued as u32,
            class,
            issued,
            done,
            read: false,
        }
    }

    #[test]
    fn counts_and_waits() {
        let mut s = Scoreboards::default();
        s.set(prod(2, Class::Global, 0, 400));
        s.set(prod(2, Class::Global, 1, 401));
        assert_eq!(s.count(2, 10), 2);
        let b = s.blocking(0b100, 10).unwrap();
        assert_eq!(b.until, 401);
        assert_eq!(b.truth.issued, 1);
        assert!(s.blocking(0b100, 401).is_none());
        assert!(s.blocking(0b011, 10).is_none());
        assert_eq!(s.count(2, 400), 1);
    }

    #[test]
    fn shared_scoreboard_is_mislabelled_by_its_last_setter() {
        let mut s = Scoreboards::default();
        s.set(prod(0, Class::Global, 0, 400));
        s.set(prod(0, Class::Sfu, 1, 17));
        let b = s.blocking(0b1, 5).unwrap();
        assert_eq!(b.truth.class, Class::Global);
        assert_eq!(b.labelled.class, Class::Sfu);
    }

    #[test]
    fn blocking_names_the_first_to_complete_last_and_the_last_issued() {
        // By hand: on SB1, two producers complete at 300 (issued 5, then
        // 7); on SB2, one issued at 7 completes at 50; SB3's completed.
        let mut s = Scoreboards::default();
        s.set(prod(1, Class::Global, 5, 300));
        s.set(prod(1, Class::Sfu, 7, 300));
        s.set(prod(2, Class::Shared, 7, 50));
        s.set(prod(3, Class::Global, 1, 20));
        let b = s.blocking(0b1110, 30).unwrap();
        assert_eq!(
            (b.until, b.truth.issued, b.truth.class),
            (300, 5, Class::Global)
        );
        // Issued at the same cycle as the SB1 producer: the later set wins.
        assert_eq!((b.labelled.issued, b.labelled.class), (7, Class::Shared));
        assert_eq!(s.blocking(0b0100, 49).map(|b| b.until), Some(50));
        assert!(s.blocking(0b0100, 50).is_none());
        assert!(s.blocking(0b1000, 30).is_none());
        assert!(s.blocking(0, 0).is_none());
        // Retired or forgotten producers block nothing; new ones do.
        s.retire(300);
        assert!(s.blocking(0b0110, 299).is_none());
        s.set(prod(1, Class::Sfu, 301, 320));
        assert_eq!(s.blocking(0b0010, 301).map(|b| b.until), Some(320));
        s.clear();
        assert!(s.blocking(0b0010, 301).is_none());
        s.set(prod(4, Class::Global, 400, 900));
        assert_eq!(s.blocking(0b1_0000, 899).map(|b| b.until), Some(900));
    }

    #[test]
    fn depbar_waits_for_the_count_to_drop() {
        let mut s = Scoreboards::default();
        for (i, d) in [100u64, 300, 200].into_iter().enumerate() {
            s.set(prod(1, Class::Global, i as u64, d));
        }
        // At most one left: clears when the second-latest completes (200).
        assert_eq!(s.depbar(1, 1, 0).unwrap().until, 200);
        assert_eq!(s.depbar(1, 0, 0).unwrap().until, 300);
        assert!(s.depbar(1, 3, 0).is_none());
        assert!(s.depbar(1, 1, 200).is_none());
    }
}
