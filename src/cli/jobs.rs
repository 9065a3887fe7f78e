//! Independent runs on several threads (`--jobs`): the variants of a
//! comparison grid, the scenarios of `warpstep test`.
//!
//! Each run is a machine of its own and nothing passes between them, so a
//! run's report does not depend on the thread that made it or on what ran
//! beside it. Results are handed on in the order of the items, each as soon
//! as it and every item before it are done, so what is printed is the same
//! byte for byte for any number of jobs. The runs that are under way at
//! once never need more memory together than `--memory-limit`: each
//! reserves its scenario's footprint before its machine is built.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, mpsc};

/// The number of jobs when `--jobs` is not given: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The most jobs `--jobs` accepts (each is a thread with its own machine).
pub const MAX_JOBS: usize = 256;

/// Parses `--jobs`: a whole number from 1 to [`MAX_JOBS`].
pub fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_JOBS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a whole number of jobs from 1 to {MAX_JOBS} (the machine has {})",
            default_jobs()
        )),
    }
}

/// Runs `work` on every item on up to `jobs` threads and hands each result
/// to `emit` on the calling thread, in the items' order. With one job (or
/// one item) everything runs on the calling thread, one item after another.
/// `progress` is called on the calling thread while it waits, with the
/// number of items finished.
pub fn ordered<T, R>(
    items: Vec<T>,
    jobs: usize,
    work: impl Fn(T) -> R + Sync,
    mut emit: impl FnMut(R),
    mut progress: impl FnMut(usize, usize),
) where
    T: Send,
    R: Send,
{
    let n = items.len();
    let threads = jobs.clamp(1, n.max(1));
    if threads == 1 {
        for item in items {
            emit(work(item));
        }
        return;
    }
    let queue = Mutex::new(items.into_iter().enumerate());
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (queue, work) = (&queue, &work);
            scope.spawn(move || {
                while let Some((i, item)) = queue.lock().ok().and_then(|mut q| q.next()) {
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let (mut due, mut done) = (0, 0);
        loop {
            match rx.recv_timeout(std::time::Duration::from_millis(100)) {
                Ok((i, r)) => {
                    done += 1;
                    waiting.insert(i, r);
                    while let Some(r) = waiting.remove(&due) {
                        emit(r);
                        due += 1;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            progress(done, n);
        }
    });
}

/// Memory shared by the runs under way: each takes its footprint before it
/// starts and gives it back when it ends, waiting while the others hold too
/// much. A run larger than the whole budget (the load refuses those) waits
/// until it has the budget to itself, so nothing waits forever.
pub struct MemoryPool {
    total: u64,
    free: Mutex<u64>,
    freed: Condvar,
}

/// A run's share of a [`MemoryPool`], given back when dropped.
pub struct Share<'a> {
    pool: &'a MemoryPool,
    bytes: u64,
}

impl MemoryPool {
    pub fn new(total: u64) -> MemoryPool {
        MemoryPool {
            total,
            free: Mutex::new(total),
            freed: Condvar::new(),
        }
    }

    /// Waits until `bytes` (at most the whole pool) are free and takes them.
    pub fn take(&self, bytes: u64) -> Share<'_> {
        let bytes = bytes.min(self.total);
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free < bytes {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= bytes;
        Share { pool: self, bytes }
    }
}

impl Drop for Share<'_> {
    fn drop(&mut self) {
        let mut free = self.pool.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += self.bytes;
        self.pool.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Items finish out of order (later ones sleep less) and still come out
    /// in order, for any number of jobs.
    #[test]
    fn results_come_in_the_items_order_for_any_number_of_jobs() {
        for jobs in [1, 2, 3, 8, 40] {
            let mut got = Vec::new();
            ordered(
                (0..20u64).collect(),
                jobs,
                |i| {
                    std::thread::sleep(std::time::Duration::from_millis(20 - i));
                    i * i
                },
                |r| got.push(r),
                |_, _| {},
            );
            let want: Vec<u64> = (0..20).map(|i| i * i).collect();
            assert_eq!(got, want, "jobs {jobs}");
        }
    }

    /// With two jobs two items are under way at once (the second starts
    /// before the first ends); with one, never.
    #[test]
    fn jobs_run_at_the_same_time() {
        for (jobs, most) in [(1, 1), (2, 2)] {
            let (now, peak) = (AtomicU64::new(0), AtomicU64::new(0));
            ordered(
                vec![(); 6],
                jobs,
                |()| {
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(30));
                    now.fetch_sub(1, Ordering::SeqCst);
                },
                |()| {},
                |_, _| {},
            );
            assert_eq!(peak.load(Ordering::SeqCst), most, "jobs {jobs}");
        }
    }

    /// Shares of 60 from a pool of 100: never two at once; a share larger
    /// than the pool takes the whole of it.
    #[test]
    fn the_pool_holds_runs_to_its_total() {
        let pool = MemoryPool::new(100);
        let (now, peak) = (AtomicU64::new(0), AtomicU64::new(0));
        ordered(
            vec![60u64; 6],
            4,
            |bytes| {
                let _share = pool.take(bytes);
                let n = now.fetch_add(bytes, Ordering::SeqCst) + bytes;
                peak.fetch_max(n, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(10));
                now.fetch_sub(bytes, Ordering::SeqCst);
            },
            |()| {},
            |_, _| {},
        );
        assert_eq!(peak.load(Ordering::SeqCst), 60);
        let whole = pool.take(500);
        assert_eq!(whole.bytes, 100);
        drop(whole);
        assert_eq!(*pool.free.lock().unwrap(), 100);
    }

    #[test]
    fn jobs_are_whole_numbers_from_one() {
        assert_eq!(parse_jobs("3"), Ok(3));
        assert_eq!(parse_jobs(&MAX_JOBS.to_string()), Ok(MAX_JOBS));
        for bad in ["0", "-1", "two", "", "257", "1.5"] {
            let e = parse_jobs(bad).unwrap_err();
            assert!(
                e.starts_with("expected a whole number of jobs from 1 to 256"),
                "{bad}: {e}"
            );
        }
    }
}
