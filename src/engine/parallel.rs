//! SMs simulated on several threads (`--jobs`), giving the serial run's
//! state byte for byte, for any number of threads.
//!
//! SMs share only two things: the block queue and global memory.
//!
//! - **Blocks.** A block goes to an SM only when that SM has room, and an
//!   SM gains room only by retiring a block of its own (the dispatch at
//!   each cycle fills every SM that fits, until the blocks run out). So an
//!   SM can run on its own clock, with no word from the others, up to the
//!   end of the first cycle in which it retires a block. Then it waits:
//!   the blocks it gets at the next cycle `d` depend on how many the other
//!   SMs took before `d`. The dispatch at `d` is made once every other SM
//!   has simulated every cycle before `d` (so none can still retire a block
//!   before it), into the SMs waiting for `d`, round robin in SM order, as
//!   the serial loop makes it. Until then the others run on: each thread
//!   takes the SM whose clock is the furthest behind, and runs it up to `d`
//!   when it is behind `d`, else for a stretch of cycles, or to its next
//!   retirement. Where a run is cut into stretches changes nothing: an SM
//!   stopped at a cycle and resumed is the SM run through.
//! - **Global memory.** Each SM works on a fork of global memory (pages
//!   shared until written) that notes every byte it reads and writes. When
//!   no byte one SM wrote was read or written by another, the order in
//!   which SMs touched memory cannot change any value read, so the forks'
//!   writes are folded into one memory and the run stands. Otherwise (SMs
//!   that communicate through memory: atomics on one counter, a block
//!   reading another's output), or when the run stops on an error, it is
//!   discarded and the machine runs serially from the start, so the report
//!   is always the serial one.
//!
//! Everything else an SM produces is its own and is merged as the serial
//! run has it: counters by sum; final states and faults by (cycle, SM),
//! each SM's in its own order; a listing's hazards (each kind at each
//! register and pc listed once, at its first occurrence) by the (cycle, SM)
//! of that first occurrence, their counts summed. Retired warps' records
//! are kept SM by SM, their chunks moved rather than copied: they are read
//! ordered by warp ([`super::Machine::warp_records`]), so the order they
//! are kept in is never seen.
//!
//! Which thread runs an SM, and when, decides only how soon a dispatch is
//! made, never what it gives. Each thread has SMs of its own (a run of
//! neighbours, so that no two threads write the cache lines of adjacent
//! SMs' data) and takes another's only when none of its own can run.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::machine::{Shared, State};
use super::memory::GlobalMemory;
use super::records::{Hazard, MAX_RECORDS};
use super::sm::Sm;

/// Cycles an SM that is not holding up a dispatch runs before its thread
/// looks for one that is further behind.
const STRETCH: u64 = 1 << 14;

/// How long a thread with no SM to run yields its core, waiting for one
/// to be handed back, before it sleeps: longer than most runs between
/// hand-backs (tens of microseconds), shorter than a sleeping thread can
/// take to wake on a busy host.
const YIELD_FOR: Duration = Duration::from_micros(100);

/// The most memory the SMs' forks of global memory may add: at worst each
/// SM copies every page it writes and keeps a bit a byte of what it reads
/// and writes (1.25 times the buffers). A larger run is made serially.
const FORKS_BUDGET: u64 = 1 << 30;

/// Why an SM stopped running on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// It reached the cycle it was given.
    Reached,
    /// It retired a block: it waits for the dispatch at its (next) cycle.
    Retired,
    /// It has no block and nothing to wake.
    Empty,
    /// An error, a warp that can never wake (a deadlock), or the cycle
    /// limit: the serial run reports it.
    Failed,
}

/// One SM's machine in a split run, and where it stands.
struct Part {
    /// `None` while a thread runs it.
    st: Option<State>,
    /// Its cycle when it was last handed back (or taken).
    clock: u64,
    /// The cycle whose dispatch it waits for.
    waits: Option<u64>,
    done: bool,
    /// Blocks dispatched to it, `(block, age of its first warp)`, to launch
    /// when it next runs (at the dispatch's cycle, its clock).
    launch: Vec<(u32, u64)>,
    /// Each retirement: its cycle and how many final states it added.
    retired: Vec<(u64, usize)>,
}

/// What the threads of a split run share, behind one lock.
struct Board {
    parts: Vec<Part>,
    next_block: u32,
    next_age: u64,
    running: usize,
    failed: bool,
}

impl State {
    /// Runs to completion like [`State::run`], simulating SMs on up to
    /// `jobs` threads where the run allows it (see the module's notes).
    pub(crate) fn run_jobs(&mut self, sh: &Shared, jobs: usize) -> Result<(), super::RunError> {
        self.run_split(sh, jobs, &mut |_| {});
        self.run(sh)
    }

    /// The split run alone: true when it stood (the machine finished),
    /// else the machine is left as it was, to be run serially. `progress`
    /// is called on this thread, now and then, with the cycle every SM
    /// has reached.
    pub(crate) fn run_split(
        &mut self,
        sh: &Shared,
        jobs: usize,
        progress: &mut dyn FnMut(u64),
    ) -> bool {
        if !self.can_split(sh, jobs) {
            return false;
        }
        let start = self.clone();
        if self.split_run(sh, jobs, progress).is_none() {
            *self = start;
            return false;
        }
        true
    }

    /// A fresh machine of several SMs that records nothing per issue.
    fn can_split(&self, sh: &Shared, jobs: usize) -> bool {
        jobs > 1
            && self.sms.len() > 1
            && !self.record_issues
            && self.cycle == 0
            && self.next_block == 0
            && self.dispatch_due
            && !self.halted()
            && sh.cfg.blocks > 0
            && sh.cfg.max_cycles > 0
            && (self.sms.len() as u64).saturating_mul(self.global.bytes() / 4 * 5) <= FORKS_BUDGET
    }

    /// A machine of SM `sm` alone, at this cycle, with a fork of global
    /// memory and counters of its own.
    fn alone(&self, sm: Sm) -> State {
        let fork = self.global.fork();
        State {
            cycle: self.cycle,
            next_block: self.next_block,
            next_age: self.next_age,
            dispatch_due: false,
            keep_final: self.keep_final,
            record_issues: false,
            scratch: self.scratch.clone(),
            ..State::new(
                self.width,
                vec![sm],
                fork,
                self.pcs.len(),
                self.check_hazards,
            )
        }
    }

    /// Runs this one-SM machine up to cycle `target`, or to the end of the
    /// first cycle that retires a block, skipping the cycles in which its
    /// SM has nothing to issue (they change nothing).
    fn advance(&mut self, sh: &Shared, target: u64) -> Stop {
        if self.check_hazards {
            self.advance_with::<true>(sh, target)
        } else {
            self.advance_with::<false>(sh, target)
        }
    }

    /// [`State::advance`] for one setting of hazard checking (see
    /// [`State::run_loop`]).
    fn advance_with<const HAZARDS: bool>(&mut self, sh: &Shared, target: u64) -> Stop {
        loop {
            if self.error.is_some() {
                return Stop::Failed;
            }
            if self.cycle >= target {
                return Stop::Reached;
            }
            let sm = &self.sms[0];
            if sm.eligible == 0 {
                match sm.wheel.next_due(self.cycle) {
                    Some(next) if next >= target => {
                        self.cycle = target;
                        return Stop::Reached;
                    }
                    Some(next) => self.cycle = next.max(self.cycle),
                    None if sm.blocks.is_empty() => return Stop::Empty,
                    None => return Stop::Failed,
                }
            }
            let t = self.cycle;
            self.wake(sh, 0, t);
            self.issue_sm::<HAZARDS>(sh, 0, t);
            if self.retire_due {
                self.retire(t);
            }
            self.cycle = t + 1;
            if self.dispatch_due {
                self.dispatch_due = false;
                return Stop::Retired;
            }
        }
    }

    /// The split run: `None` when it must be run serially instead (this
    /// machine is then left half-run, to be replaced).
    fn split_run(&mut self, sh: &Shared, jobs: usize, progress: &mut dyn FnMut(u64)) -> Option<()> {
        // Cycle 0's dispatch, as the serial loop makes it.
        self.dispatch(sh, 0);
        let sms = std::mem::take(&mut self.sms);
        let n = sms.len();
        let parts = sms
            .into_iter()
            .map(|sm| Part {
                st: Some(self.alone(sm)),
                clock: self.cycle,
                waits: None,
                done: false,
                launch: Vec::new(),
                retired: Vec::new(),
            })
            .collect();
        let board = Mutex::new(Board {
            parts,
            next_block: self.next_block,
            next_age: self.next_age,
            running: 0,
            failed: false,
        });
        let turn = Turn::default();
        let threads = jobs.min(n);
        std::thread::scope(|scope| {
            let (board, turn) = (&board, &turn);
            for me in 1..threads {
                scope.spawn(move || work(sh, board, turn, (me, threads), None));
            }
            work(sh, board, turn, (0, threads), Some(progress));
        });
        let board = board.into_inner().unwrap_or_else(PoisonError::into_inner);
        if board.failed
            || board.parts.iter().any(|p| !p.done || p.st.is_none())
            || board.next_block < sh.cfg.blocks
        {
            return None;
        }
        self.next_block = board.next_block;
        self.next_age = board.next_age;
        self.join(board.parts)
    }

    /// Folds the finished parts back into this machine, in the serial
    /// run's order; `None` when SMs shared global memory.
    fn join(&mut self, parts: Vec<Part>) -> Option<()> {
        let (mut sts, retired): (Vec<State>, Vec<_>) = parts
            .into_iter()
            .filter_map(|p| Some((p.st?, p.retired)))
            .unzip();
        let forks: Vec<GlobalMemory> = sts
            .iter_mut()
            .map(|st| std::mem::replace(&mut st.global, GlobalMemory::new(&[])))
            .collect();
        if !self.global.join(&forks) {
            return None;
        }
        drop(forks);
        // Retirements in (cycle, SM) order; each SM's in its own order.
        let mut order: Vec<(u64, usize, usize)> = retired
            .iter()
            .enumerate()
            .flat_map(|(s, r)| r.iter().map(move |&(c, f)| (c, s, f)))
            .collect();
        order.sort_by_key(|&(c, s, ..)| (c, s));
        let mut finals: Vec<_> = sts
            .iter_mut()
            .map(|st| std::mem::take(&mut st.finals).into_iter())
            .collect();
        for &(_, s, f) in &order {
            self.finals.extend(finals[s].by_ref().take(f));
        }
        drop(finals);
        // Warp records SM by SM, their chunks moved, not copied: nothing
        // reads them in retirement order (`Machine::warp_records` orders
        // them by warp).
        for st in &mut sts {
            self.records.append(std::mem::take(&mut st.records));
        }
        self.cycle = order.last().map_or(self.cycle, |&(c, ..)| c + 1);
        let mut faults = Vec::new();
        for (s, st) in sts.iter_mut().enumerate() {
            faults.extend(st.faults.drain(..).map(|f| (f.cycle, s, f)));
        }
        faults.sort_by_key(|&(c, s, _)| (c, s));
        self.faults = faults
            .into_iter()
            .map(|(.., f)| f)
            .take(MAX_RECORDS)
            .collect();
        self.hazards = merge_hazards(sts.iter_mut().map(|st| std::mem::take(&mut st.hazards)))?;
        for st in sts {
            self.retired.merge(&st.retired);
            for (mine, theirs) in self.pcs.iter_mut().zip(&st.pcs) {
                mine.merge(theirs);
            }
            self.memory.merge(&st.memory);
            self.faults_total += st.faults_total;
            self.sms.extend(st.sms);
        }
        self.finished = true;
        Some(())
    }
}

/// The serial run's hazard list from each SM's (in SM order): a hazard's
/// entry is its first occurrence in (cycle, SM) order, and its count the
/// sum of every SM's. `None` when an SM's list is full, as it may then have
/// left out a hazard the serial run counts.
fn merge_hazards(lists: impl Iterator<Item = Vec<Hazard>>) -> Option<Vec<Hazard>> {
    let mut firsts = Vec::new();
    for (s, list) in lists.enumerate() {
        if list.len() >= MAX_RECORDS {
            return None;
        }
        // An SM lists its hazards in the order they first happened there.
        firsts.extend(
            list.into_iter()
                .enumerate()
                .map(|(k, h)| (h.cycle, s, k, h)),
        );
    }
    firsts.sort_by_key(|&(c, s, k, _)| (c, s, k));
    let mut merged: Vec<Hazard> = Vec::new();
    for (.., h) in firsts {
        let same = |m: &&mut Hazard| m.pc == h.pc && m.register == h.register && m.kind == h.kind;
        if let Some(m) = merged.iter_mut().find(same) {
            m.count += h.count;
        } else if merged.len() < MAX_RECORDS {
            merged.push(h);
        }
    }
    Some(merged)
}

/// How the threads of a split run wait for an SM to be handed back.
#[derive(Default)]
struct Turn {
    wake: Condvar,
    /// SMs handed back so far (changed with the board locked).
    handed: AtomicU64,
}

impl Turn {
    /// Tells waiting threads that an SM was handed back (the board
    /// locked, after the change).
    fn handed_back(&self) {
        self.handed.fetch_add(1, Ordering::Release);
        self.wake.notify_all();
    }

    /// With the board locked and nothing to run, waits until an SM is
    /// handed back: yielding the core for [`YIELD_FOR`], then asleep.
    /// Returns with the board locked.
    fn wait<'a>(&self, board: &'a Mutex<Board>, b: MutexGuard<'a, Board>) -> MutexGuard<'a, Board> {
        let seen = self.handed.load(Ordering::Acquire);
        drop(b);
        let start = Instant::now();
        while self.handed.load(Ordering::Acquire) == seen && start.elapsed() < YIELD_FOR {
            std::thread::yield_now();
        }
        let b = lock(board);
        if self.handed.load(Ordering::Acquire) != seen {
            return b;
        }
        // Nothing was handed back since `seen` was read, and none can be
        // until this thread sleeps and lets go of the board.
        self.wake.wait(b).unwrap_or_else(PoisonError::into_inner)
    }
}

fn lock(board: &Mutex<Board>) -> MutexGuard<'_, Board> {
    board.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One thread of a split run, `me` of `threads`: until every SM is done
/// (or the run must be made serially), makes the dispatches that are due
/// and runs the SM the furthest behind of its own (`me`'s share of the SMs
/// in SM order), or else of any. The thread given `progress` calls it
/// after each run it made, with the least clock of the SMs still running.
fn work(
    sh: &Shared,
    board: &Mutex<Board>,
    turn: &Turn,
    (me, threads): (usize, usize),
    mut progress: Option<&mut dyn FnMut(u64)>,
) {
    let limit = sh.cfg.max_cycles;
    let mut b = lock(board);
    let n = b.parts.len();
    let home = |i: usize| i * threads / n == me;
    loop {
        if b.failed {
            break;
        }
        b.dispatch_due(sh);
        let next = b.parts.iter().filter_map(|p| p.waits).min();
        let pick = (0..b.parts.len())
            .filter(|&i| {
                let p = &b.parts[i];
                !p.done && p.waits.is_none() && p.st.is_some() && p.clock < limit
            })
            .min_by_key(|&i| (!home(i), b.parts[i].clock, i));
        let Some(i) = pick else {
            if b.running == 0 {
                // Nothing runs and nothing can: done, or stopped.
                break;
            }
            b = turn.wait(board, b);
            continue;
        };
        let part = &mut b.parts[i];
        let Some(mut st) = part.st.take() else { break };
        let launch = std::mem::take(&mut part.launch);
        let clock = part.clock;
        let target = match next {
            Some(d) if d > clock => d.min(clock.saturating_add(STRETCH)),
            _ => clock.saturating_add(STRETCH),
        }
        .min(limit);
        b.running += 1;
        drop(b);
        for (block, age) in launch {
            st.next_block = block;
            st.next_age = age;
            let t = st.cycle;
            st.launch_block(sh, 0, t);
        }
        let before = st.finals.len();
        let stop = st.advance(sh, target);
        let added = st.finals.len() - before;
        b = lock(board);
        b.running -= 1;
        let part = &mut b.parts[i];
        part.clock = st.cycle;
        match stop {
            Stop::Reached => {}
            Stop::Retired => {
                part.retired.push((st.cycle - 1, added));
                part.waits = Some(st.cycle);
            }
            Stop::Empty => part.done = true,
            Stop::Failed => b.failed = true,
        }
        b.parts[i].st = Some(st);
        turn.handed_back();
        if let Some(report) = progress.as_mut() {
            let reached = b.parts.iter().filter(|p| !p.done).map(|p| p.clock).min();
            report(reached.unwrap_or(0));
        }
    }
    drop(b);
    turn.wake.notify_all();
}

impl Board {
    /// Makes each dispatch whose time has come: the dispatch at cycle `d`,
    /// the earliest an SM waits for, once every other SM is done, waits
    /// too, or has simulated every cycle before `d` (so it cannot retire a
    /// block before `d`). Blocks go round robin in SM order to the SMs that
    /// wait for `d`, only they having room.
    fn dispatch_due(&mut self, sh: &Shared) {
        let wpb = sh.cfg.warps_per_block;
        loop {
            let Some(d) = self.parts.iter().filter_map(|p| p.waits).min() else {
                return;
            };
            if !self
                .parts
                .iter()
                .all(|p| p.done || p.waits.is_some() || p.clock >= d)
            {
                return;
            }
            if d >= sh.cfg.max_cycles && self.next_block < sh.cfg.blocks {
                // The serial run stops at the cycle limit.
                self.failed = true;
                return;
            }
            // Room in each waiting SM: (blocks it may still take, free slots).
            let mut room: Vec<(usize, u32, u32)> = Vec::new();
            for (i, p) in self.parts.iter_mut().enumerate() {
                if p.waits == Some(d) {
                    p.waits = None;
                    if let Some(sm) = p.st.as_ref().map(|st| &st.sms[0]) {
                        let blocks = (sh.cfg.max_blocks_per_sm as usize)
                            .saturating_sub(sm.blocks.len())
                            as u32;
                        room.push((i, blocks, sm.free_slots().count_ones()));
                    }
                }
            }
            'rounds: loop {
                let mut any = false;
                for (i, blocks, free) in room.iter_mut() {
                    if self.next_block >= sh.cfg.blocks {
                        break 'rounds;
                    }
                    if *blocks > 0 && *free >= wpb {
                        self.parts[*i].launch.push((self.next_block, self.next_age));
                        self.next_block += 1;
                        self.next_age += u64::from(wpb);
                        *blocks -= 1;
                        *free -= wpb;
                        any = true;
                    }
                }
                if !any {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::Convergence;
    use crate::report::Report;
    use crate::scenario::{Origin, Scenario};

    /// The report of `sc` run to the end, with every buffer: serially with
    /// `jobs` None, else with [`Machine::run_jobs`]. Also whether the run
    /// was split (a fresh machine's split run stood).
    fn report(sc: &Scenario, jobs: Option<usize>) -> (String, bool) {
        let mut m = sc.new_machine().expect("valid machine");
        m.set_record_issues(false);
        let split = jobs.is_some_and(|j| {
            let mut probe = m.clone();
            probe.st.run_split(&probe.sh, j, &mut |_| {})
        });
        match jobs {
            Some(j) => drop(m.run_jobs(j)),
            None => drop(m.run()),
        }
        let names: Vec<String> = sc.buffers.iter().map(|b| b.name.clone()).collect();
        let r = Report::new(sc, &m).with_buffers(sc, &m, &names);
        // And what the report sums up: each warp's record, as
        // `Machine::warp_records` orders them (by warp), and which blocks
        // each SM ran.
        let records = m.warp_records();
        let sms: Vec<Vec<u32>> =
            m.st.sms
                .iter()
                .map(|sm| sm.spare.iter().map(|w| w.block).collect())
                .collect();
        let json = serde_json::to_string_pretty(&r).expect("serialises");
        (format!("{json}\n{records:?}\n{sms:?}"), split)
    }

    /// The first line where `got` and `want` differ, both sides.
    fn first_difference(got: &str, want: &str) -> String {
        let (mut g, mut w) = (got.lines(), want.lines());
        for n in 1.. {
            match (g.next(), w.next()) {
                (None, None) => break,
                (a, b) if a == b => continue,
                (a, b) => {
                    let cut = |x: Option<&str>| {
                        x.unwrap_or("(end)").chars().take(300).collect::<String>()
                    };
                    return format!("line {n}: got {} want {}", cut(a), cut(b));
                }
            }
        }
        "no difference".into()
    }

    /// `sc` run with 2 jobs, after checking that its split run stands
    /// (`why` says why it must) with the serial run's report.
    fn split_as_serial(sc: &Scenario, why: &str) -> crate::engine::Machine {
        let (serial, _) = report(sc, None);
        let (got, split) = report(sc, Some(2));
        assert!(split, "{why}");
        assert!(got == serial, "{}", first_difference(&got, &serial));
        let mut m = sc.new_machine().expect("valid");
        m.set_record_issues(false);
        m.run_jobs(2).expect("runs");
        m
    }

    fn scenario(text: &str) -> Scenario {
        Scenario::from_text(text, Origin::Builtin("test".into())).expect("loads")
    }

    /// The serial run is the reference: every built-in and stress scenario
    /// on 2 and 5 SMs under both models gives the same report byte for
    /// byte with 2 and 8 jobs, and most of them were split.
    #[test]
    fn split_runs_report_what_the_serial_run_reports_for_any_jobs() {
        let mut all: Vec<Scenario> = crate::builtin::names()
            .map(|n| crate::builtin::resolve(n).expect("built-in loads"))
            .collect();
        let stress = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/stress");
        let mut files: Vec<_> = std::fs::read_dir(stress)
            .expect("tests/stress")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        files.sort();
        for f in files {
            all.push(Scenario::from_file(&f).expect("stress scenario loads"));
        }
        let (mut runs, mut split) = (0, 0);
        for base in &all {
            for sms in [2, 5] {
                for conv in [Convergence::Stack, Convergence::Its] {
                    let mut sc = base.clone();
                    sc.machine.sms = sms;
                    sc.machine.convergence = conv;
                    if sc.new_machine().is_err() {
                        continue;
                    }
                    let (serial, _) = report(&sc, None);
                    for jobs in [2, 8] {
                        let (got, was_split) = report(&sc, Some(jobs));
                        assert!(
                            got == serial,
                            "{} on {sms} SMs, {conv:?}, {jobs} jobs: {}",
                            sc.name,
                            first_difference(&got, &serial)
                        );
                        runs += 1;
                        split += usize::from(was_split);
                    }
                }
            }
        }
        // One-block launches are not split; the multi-block scenarios,
        // listings among them, are.
        assert!(runs > 100, "{runs} runs");
        assert!(split * 3 > runs, "{split} of {runs} runs were split");
    }

    /// A listing's hazards on 4 SMs, one warp per block and per SM:
    /// every warp reads R5 before its load lands (pc 8: 8 times, first by
    /// warp 0, SM 0 leading the cycle it shares with SMs 2 and 3), and
    /// block 1 alone (SM 1) reads R3 a cycle after writing it (pc 5, once,
    /// early by the ALU latency less 1). Block 1 meets its hazard some 15
    /// cycles before the others meet theirs, behind the `S15` NOP: so the
    /// serial list is R3 then R5, which neither SM order nor concatenating
    /// the SMs' lists gives. The split run stands and lists the same.
    #[test]
    fn hazards_on_several_sms_are_listed_in_the_serial_order() {
        let sc = scenario(
            "name: hazards on every SM
machine: {sms: 4, max_blocks_per_sm: 1}
launch: {blocks: 8, block_dim: 32}
memory:
  data: {type: u32, len: 8}
constants:
  0x160: data
program: |
  [B------:R-:W0:-:S01] S2R R1, SR_CTAID.X
  [B------:R-:W-:-:S04] MOV R2, c[0x0][0x160]
  [B0-----:R-:W-:-:S04] ISETP.NE.AND P0, PT, R1, 0x1, PT
  [B------:R-:W-:-:S04] @P0 BRA late
  [B------:R-:W-:-:S01] MOV R3, 0x7
  [B------:R-:W-:-:S01] IADD3 R4, R3, 0x1, RZ
  late:
  [B------:R-:W-:-:S15] NOP
  [B------:R-:W2:-:S01] LDG.E R5, [R2.64]
  [B------:R-:W-:-:S01] IADD3 R6, R5, 0x1, RZ
  [B------:R-:W-:-:S01] EXIT
",
        );
        let m = split_as_serial(&sc, "no byte is written");
        let alu = sc.machine.latency.alu;
        let seen: Vec<_> = m
            .hazards()
            .iter()
            .map(|h| (h.register.as_str(), h.pc, h.warp, h.count))
            .collect();
        assert_eq!(seen, [("R3", 5, 1, 1), ("R5", 8, 0, 8)]);
        assert_eq!(m.hazards()[0].early_by, u64::from(alu) - 1);
    }

    /// A read-after-write hazard at `pc`, first met at `cycle`, `count`
    /// times.
    fn hazard(pc: u32, cycle: u64, count: u64) -> super::Hazard {
        super::Hazard {
            warp: 0,
            lane: 0,
            pc,
            line: pc + 1,
            register: "R1".into(),
            kind: crate::engine::HazardKind::ReadAfterWrite,
            early_by: 1,
            cycle,
            count,
        }
    }

    /// Merged lists keep the serial run's cap: the first `MAX_RECORDS`
    /// hazards by first occurrence, each counted over every SM; and an SM
    /// whose own list is full (it may have dropped a hazard another SM
    /// listed first) makes the merge fail, for the serial run to list.
    #[test]
    fn merged_hazards_keep_the_cap_and_a_full_list_is_refused() {
        use super::{MAX_RECORDS, merge_hazards};
        let n = MAX_RECORDS as u32;
        // SM 0 meets pcs 0 to n-2 at even cycles 2p; SM 1 meets pc 0 again
        // (cycle 1), then pcs n-1 to n+9 at odd cycles 2p+1.
        let sm0: Vec<_> = (0..n - 1).map(|p| hazard(p, 2 * u64::from(p), 1)).collect();
        let mut sm1 = vec![hazard(0, 1, 5)];
        sm1.extend((n - 1..n + 10).map(|p| hazard(p, 2 * u64::from(p) + 1, 2)));
        let merged = merge_hazards([sm0, sm1].into_iter()).expect("neither list is full");
        // By hand: pcs 0..n-1 from SM 0 (pc 0 counted 1 + 5), then pc n-1
        // from SM 1 fills the list; pcs n.. are left out.
        assert_eq!(merged.len(), MAX_RECORDS);
        assert_eq!((merged[0].pc, merged[0].count), (0, 6));
        assert_eq!((merged[1].pc, merged[1].count), (1, 1));
        let last = &merged[MAX_RECORDS - 1];
        assert_eq!(
            (last.pc, last.cycle, last.count),
            (n - 1, 2 * u64::from(n - 1) + 1, 2)
        );
        let full: Vec<_> = (0..n).map(|p| hazard(p, 0, 1)).collect();
        assert!(merge_hazards([full, Vec::new()].into_iter()).is_none());
    }

    /// 8 blocks of 64 threads on 4 SMs each add 1 to one counter: SMs
    /// share a written word, so the split run is refused and the run is
    /// made serially; the counter is 512 (8 x 64, by hand).
    #[test]
    fn sms_that_share_a_counter_run_serially_with_the_serial_report() {
        let sc = scenario(
            "name: one counter
machine: {sms: 4}
launch: {blocks: 8, block_dim: 64}
memory:
  count: {type: u32, len: 1}
constants:
  0x160: count
program: |
  MOV R2, c[0x0][0x160]
  MOV R3, 0x1
  RED.E.ADD.STRONG.GPU [R2.64], R3
  EXIT
",
        );
        let (serial, _) = report(&sc, None);
        for jobs in [2, 8] {
            let (got, split) = report(&sc, Some(jobs));
            assert!(!split, "the counter is shared");
            assert!(got == serial, "{}", first_difference(&got, &serial));
        }
        let mut m = sc.new_machine().expect("valid");
        m.set_record_issues(false);
        m.run_jobs(2).expect("runs");
        assert_eq!(m.st.global.word(sc.buffers[0].base), Some(512));
    }

    /// Threads 0..300 of 512 store a word each, on 4 SMs: the 212 past the
    /// buffer's 300 words fault (512 - 300, by hand), at the same cycles on
    /// several SMs. The split run stands (no byte is shared) and lists the
    /// faults in the serial order, by cycle and then SM.
    #[test]
    fn faults_on_several_sms_are_listed_in_the_serial_order() {
        let sc = scenario(
            "name: faults on every SM
machine: {sms: 4}
launch: {blocks: 8, block_dim: 64}
memory:
  out: {type: u32, len: 300}
constants:
  0x160: out
program: |
  S2R R0, SR_TID.X
  S2R R1, SR_CTAID.X
  IMAD R0, R1, c[0x0][0x0], R0
  IMAD R6, R0, 4, c[0x0][0x160]
  STG.E [R6], R0
  EXIT
",
        );
        let m = split_as_serial(&sc, "no byte is shared");
        assert_eq!(m.st.faults_total, 212);
        let order: Vec<(u64, u32)> = m.st.faults.iter().map(|f| (f.cycle, f.warp)).collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(
            order, sorted,
            "by cycle, then SM (warp ids rise with SMs here)"
        );
    }
}
