//! Global and shared memory: contents, faults, coalescing and bank conflicts.
//!
//! Global buffers are stored in 1 KiB pages shared copy-on-write between a
//! machine and its checkpoints, so stepping back in a large run does not
//! copy memory that did not change, and between the SMs of a split run
//! (`--jobs`). A page is small so that blocks on different SMs seldom write
//! the same one: a block of 256 threads storing a word each fills a page of
//! its own, which only its SM copies.

use std::sync::Arc;

use super::kernel::BufferSpec;

/// Where global buffers sit in a 64-bit address space: a buffer laid out
/// at 32-bit address `a` has device address `DEVICE_WINDOW + a`, the
/// pointer a kernel compiled by nvcc receives and forms in a register pair.
/// Global memory is one window of 4 GiB: an address whose high word is not
/// this window's faults.
pub const DEVICE_WINDOW: u64 = 0x0000_7f00_0000_0000;

/// Bytes in a page of a global buffer.
const PAGE: usize = 1024;
const SECTOR: u32 = 32;
const LINE: u32 = 128;

/// Why a lane's access faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// A global address outside every declared buffer.
    OutOfBounds,
    /// An address not a multiple of the access size.
    Misaligned,
    /// A shared-memory address past the block's shared memory.
    SharedOutOfBounds,
    /// A local-memory address outside the thread's window.
    LocalOutOfBounds,
    /// An indirect branch (`RET`, `BRX`) to an address that is no
    /// instruction of the kernel (or not one the `BRX` lists).
    BadBranchTarget,
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::OutOfBounds => "out_of_bounds",
            FaultKind::Misaligned => "misaligned",
            FaultKind::SharedOutOfBounds => "shared_out_of_bounds",
            FaultKind::LocalOutOfBounds => "local_out_of_bounds",
            FaultKind::BadBranchTarget => "bad_branch_target",
        }
    }
}

#[derive(Debug, Clone)]
struct Buffer {
    name: Arc<str>,
    base: u32,
    len: u32,
    pages: Vec<Arc<[u8; PAGE]>>,
}

/// The device's global memory: the scenario's buffers at their addresses.
#[derive(Debug, Clone)]
pub struct GlobalMemory {
    /// Sorted by base address.
    buffers: Vec<Buffer>,
    /// A fork's record of the bytes it read and wrote (see
    /// [`GlobalMemory::fork`]); `None` in a machine's own memory.
    touched: Option<Box<Touched>>,
}

/// One bit a byte of a page.
type PageBits = [u64; PAGE / 64];

/// The bytes a fork of global memory read and wrote, by buffer and page
/// (a page's bits exist once the fork touched it).
#[derive(Debug, Clone, PartialEq)]
struct Touched {
    read: Vec<Vec<Option<Box<PageBits>>>>,
    written: Vec<Vec<Option<Box<PageBits>>>>,
}

impl Touched {
    fn new(buffers: &[Buffer]) -> Self {
        let none = || buffers.iter().map(|b| vec![None; b.pages.len()]).collect();
        Touched {
            read: none(),
            written: none(),
        }
    }
}

/// The bits of page `p` of buffer `b`, if it was touched.
fn bits(m: &[Vec<Option<Box<PageBits>>>], b: usize, p: usize) -> Option<&PageBits> {
    m.get(b)
        .and_then(|pages| pages.get(p))
        .and_then(|x| x.as_deref())
}

/// Which of a fork's records an access goes into.
#[derive(Clone, Copy)]
enum Marks {
    Read,
    Written,
}

/// Marks bytes `[off, off + n)` of buffer `b`, which lie in one page (a
/// naturally aligned access).
#[inline(always)]
fn mark(marks: &mut [Vec<Option<Box<PageBits>>>], b: usize, off: usize, n: usize) {
    let Some(page) = marks.get_mut(b).and_then(|pages| pages.get_mut(off / PAGE)) else {
        return;
    };
    let bits = page.get_or_insert_with(|| Box::new([0; PAGE / 64]));
    let o = off % PAGE;
    if o % 64 + n <= 64 && n < 64 {
        bits[o / 64] |= ((1u64 << n) - 1) << (o % 64);
    } else {
        // A longer run (a warp's contiguous words): a 64-bit word of bits
        // at a time.
        let end = (o + n).min(PAGE);
        let mut i = o;
        while i < end {
            let take = (64 - i % 64).min(end - i);
            bits[i / 64] |= if take == 64 {
                u64::MAX
            } else {
                ((1u64 << take) - 1) << (i % 64)
            };
            i += take;
        }
    }
}

impl GlobalMemory {
    pub fn new(specs: &[BufferSpec]) -> Self {
        let mut buffers: Vec<Buffer> = specs
            .iter()
            .map(|b| {
                let len = b.bytes();
                let mut pages = Vec::with_capacity((len as usize).div_ceil(PAGE));
                // Untouched zero pages share one page until written.
                let zero = Arc::new([0u8; PAGE]);
                for chunk_start in (0..len as usize).step_by(PAGE) {
                    let end = (chunk_start + PAGE).min(b.init.len());
                    let init = b.init.get(chunk_start..end).unwrap_or_default();
                    // An OR over the page (no early exit) vectorises.
                    if init.iter().fold(0, |acc, &x| acc | x) == 0 {
                        pages.push(Arc::clone(&zero));
                    } else {
                        let mut page = [0u8; PAGE];
                        page[..init.len()].copy_from_slice(init);
                        pages.push(Arc::new(page));
                    }
                }
                Buffer {
                    name: b.name.as_str().into(),
                    base: b.base,
                    len,
                    pages,
                }
            })
            .collect();
        buffers.sort_by_key(|b| b.base);
        GlobalMemory {
            buffers,
            touched: None,
        }
    }

    /// Bytes of all buffers.
    pub fn bytes(&self) -> u64 {
        self.buffers.iter().map(|b| u64::from(b.len)).sum()
    }

    /// A copy of this memory that records which bytes it reads and
    /// writes (pages stay shared until written). [`GlobalMemory::join`]
    /// folds forks back in.
    pub fn fork(&self) -> GlobalMemory {
        GlobalMemory {
            buffers: self.buffers.clone(),
            touched: Some(Box::new(Touched::new(&self.buffers))),
        }
    }

    /// Takes in the bytes each fork of this memory wrote, when no byte one
    /// fork wrote was read or written by another: then the forks' reads and
    /// writes give the same memory in any order. Returns false, changing
    /// nothing, when some byte was shared that way.
    pub fn join(&mut self, forks: &[GlobalMemory]) -> bool {
        let touched: Vec<&Touched> = forks.iter().filter_map(|f| f.touched.as_deref()).collect();
        if touched.len() != forks.len() {
            return false;
        }
        const NONE: PageBits = [0; PAGE / 64];
        // Every page is checked before anything changes.
        for (b, buf) in self.buffers.iter().enumerate() {
            for p in 0..buf.pages.len() {
                // The bytes earlier forks wrote, and the ones they touched.
                let mut seen_written = NONE;
                let mut seen_any = NONE;
                for t in &touched {
                    let (r, w) = (bits(&t.read, b, p), bits(&t.written, b, p));
                    if r.is_none() && w.is_none() {
                        continue;
                    }
                    let (r, w) = (r.unwrap_or(&NONE), w.unwrap_or(&NONE));
                    let mut shared = 0;
                    for i in 0..PAGE / 64 {
                        shared |= w[i] & seen_any[i] | r[i] & seen_written[i];
                        seen_written[i] |= w[i];
                        seen_any[i] |= w[i] | r[i];
                    }
                    if shared != 0 {
                        return false;
                    }
                }
            }
        }
        for (b, buf) in self.buffers.iter_mut().enumerate() {
            for p in 0..buf.pages.len() {
                let mut page: Option<Arc<[u8; PAGE]>> = None;
                for (f, t) in touched.iter().enumerate() {
                    let Some(w) = bits(&t.written, b, p) else {
                        continue;
                    };
                    let theirs = &forks[f].buffers[b].pages[p];
                    match page.as_mut() {
                        // The first writer's page is this page with its
                        // writes (nothing else changed it): taken whole.
                        None => page = Some(Arc::clone(theirs)),
                        Some(mine) => {
                            let mine = Arc::make_mut(mine);
                            for (i, &word) in w.iter().enumerate() {
                                let run = i * 64..i * 64 + 64;
                                if word == !0 {
                                    mine[run.clone()].copy_from_slice(&theirs[run]);
                                    continue;
                                }
                                let mut rest = word;
                                while rest != 0 {
                                    let j = i * 64 + rest.trailing_zeros() as usize;
                                    rest &= rest - 1;
                                    mine[j] = theirs[j];
                                }
                            }
                        }
                    }
                }
                if let Some(page) = page {
                    buf.pages[p] = page;
                }
            }
        }
        true
    }

    /// Marks `n` bytes at byte `off` of buffer `b` as read by this fork.
    #[inline(always)]
    fn note_read(&mut self, b: usize, off: usize, n: usize) {
        if let Some(t) = self.touched.as_deref_mut() {
            mark(&mut t.read, b, off, n);
        }
    }

    /// Marks `n` bytes at byte `off` of buffer `b` as written by this fork.
    #[inline(always)]
    fn note_written(&mut self, b: usize, off: usize, n: usize) {
        if let Some(t) = self.touched.as_deref_mut() {
            mark(&mut t.written, b, off, n);
        }
    }

    /// The buffer and byte offset holding `[addr, addr + size)`.
    fn locate(&self, addr: u32, size: u32) -> Result<(usize, usize), FaultKind> {
        if !addr.is_multiple_of(size) {
            return Err(FaultKind::Misaligned);
        }
        let i = self
            .buffers
            .partition_point(|b| b.base <= addr)
            .checked_sub(1)
            .ok_or(FaultKind::OutOfBounds)?;
        let b = &self.buffers[i];
        let off = u64::from(addr - b.base);
        if off + u64::from(size) > u64::from(b.len) {
            return Err(FaultKind::OutOfBounds);
        }
        Ok((i, off as usize))
    }

    /// Reads `out.len()` bytes (1, 2, 4, 8 or 16) at `addr`.
    pub fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), FaultKind> {
        let (i, off) = self.locate(addr, out.len() as u32)?;
        self.copy_out(i, off, out);
        Ok(())
    }

    /// [`GlobalMemory::read`] by the kernel: a fork notes the bytes.
    pub fn load(&mut self, addr: u32, out: &mut [u8]) -> Result<(), FaultKind> {
        let (i, off) = self.locate(addr, out.len() as u32)?;
        self.copy_out(i, off, out);
        self.note_read(i, off, out.len());
        Ok(())
    }

    /// Copies `out.len()` bytes from byte `off` of buffer `i`.
    fn copy_out(&self, i: usize, off: usize, out: &mut [u8]) {
        // Natural alignment keeps an access inside one page.
        let page = &self.buffers[i].pages[off / PAGE];
        let o = off % PAGE;
        out.copy_from_slice(&page[o..o + out.len()]);
    }

    /// Writes `data` (1, 2, 4, 8 or 16 bytes) at `addr`.
    pub fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), FaultKind> {
        let (i, off) = self.locate(addr, data.len() as u32)?;
        self.note_written(i, off, data.len());
        let page = Arc::make_mut(&mut self.buffers[i].pages[off / PAGE]);
        let o = off % PAGE;
        page[o..o + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Writes one store's lanes: each item is `(lane, address, words)`,
    /// the lane writing `size` bytes at the address from its words (one
    /// per register, little-endian; a store under 4 bytes takes the low
    /// bytes of its first word). `done(lane, address, result)` is called
    /// for each, in order. Consecutive lanes in one page share one
    /// copy-on-write check (an atomic operation) instead of one a lane.
    pub fn write_lanes(
        &mut self,
        size: u32,
        lanes: impl Iterator<Item = (u32, u32, [u32; 4])>,
        mut done: impl FnMut(u32, u32, Result<(), FaultKind>),
    ) {
        let n = size as usize;
        let mut lanes = lanes.peekable();
        while let Some(&(lane, addr, _)) = lanes.peek() {
            let (b, off) = match self.locate(addr, size) {
                Ok(x) => x,
                Err(e) => {
                    lanes.next();
                    done(lane, addr, Err(e));
                    continue;
                }
            };
            let p = off / PAGE;
            let buf = &self.buffers[b];
            let lo = u64::from(buf.base) + (p * PAGE) as u64;
            let hi = (lo + PAGE as u64).min(u64::from(buf.base) + u64::from(buf.len));
            let GlobalMemory { buffers, touched } = self;
            let page = Arc::make_mut(&mut buffers[b].pages[p]);
            // The first lane is in this page (it was just located), so the
            // loop always makes progress.
            while let Some(&(lane, addr, ws)) = lanes.peek() {
                let a = u64::from(addr);
                if !addr.is_multiple_of(size) || a < lo || a + u64::from(size) > hi {
                    break;
                }
                lanes.next();
                let o = (a - lo) as usize;
                put_words(&mut page[o..o + n], &ws);
                if let Some(t) = touched.as_deref_mut() {
                    mark(&mut t.written, b, p * PAGE + (a - lo) as usize, n);
                }
                done(lane, addr, Ok(()));
            }
        }
    }

    /// The buffer every lane of `on` (not empty) accesses, with the
    /// coalescing, when the lanes' `size`-byte accesses at `addrs` are
    /// naturally aligned and inside that one buffer (the usual case, in
    /// any lane order); `None` otherwise, when some lane faults or lanes
    /// reach two buffers.
    ///
    /// Equal-sized aligned accesses overlap only where they are equal, so
    /// the distinct bytes are `size` per distinct address, and the sectors
    /// and lines are the distinct ones of the addresses in order: the
    /// counts [`coalesce`] makes. Lanes in address order are counted as
    /// they are; others are counted over their addresses sorted.
    fn one_buffer(
        &self,
        size: u32,
        addrs: &[u32; 64],
        on: u64,
    ) -> Option<(usize, Coalescing, bool)> {
        if !size.is_power_of_two() || on == 0 {
            return None;
        }
        let consecutive = lane_run(on);
        let t = if let Some(t) = ByteRun::of(addrs, on).and_then(Tally::of_run) {
            // Lanes a constant stride apart (a row, a column, a gather
            // through an affine index: the usual access), counted from
            // the run's ends.
            t
        } else if let Some(t) = consecutive
            .is_none()
            .then(|| Tally::of_sparse_run(addrs, on, size))
            .flatten()
        {
            // Some of a run's lanes (the others turned off by a guard).
            t
        } else if let Some((first, n)) = consecutive {
            // Consecutive lanes (the whole warp, usually): a plain slice.
            Tally::in_order(&addrs[first..first + n])
        } else {
            let mut packed = [0u32; 64];
            let mut k = 0;
            let mut rest = on;
            while rest != 0 {
                packed[k] = addrs[rest.trailing_zeros() as usize % 64];
                rest &= rest - 1;
                k += 1;
            }
            Tally::in_order(&packed[..k])
        };
        if t.bits & (size - 1) != 0 {
            return None;
        }
        // The lowest address aligned and inside a buffer, the highest
        // inside the same one: all are inside (buffers do not overlap).
        let (b, _) = self.locate(t.low, size).ok()?;
        let buf = &self.buffers[b];
        let end = u64::from(buf.base) + u64::from(buf.len);
        if u64::from(t.high) + u64::from(size) > end {
            return None;
        }
        let c = Coalescing {
            sectors: t.sectors,
            lines: t.lines,
            requested_bytes: t.distinct * size,
        };
        // Dense: consecutive lanes at consecutive addresses, lane `first`
        // at the lowest. Aligned and all distinct in increasing order,
        // each step is at least `size`; steps summing to `size` a lane,
        // each is exactly `size`.
        let dense = consecutive.is_some_and(|(_, n)| {
            let k = n as u64;
            !t.backwards
                && u64::from(t.distinct) == k
                && u64::from(t.high - t.low) == u64::from(size) * (k - 1)
        });
        Some((b, c, dense))
    }

    /// One store's lanes at once when [`GlobalMemory::one_buffer`] holds:
    /// `put(l, bytes)` fills lane `l`'s `size` bytes at `addrs[l]`, lane
    /// by lane in lane order (a lane storing at an earlier lane's address
    /// wins). `None`, having written nothing, otherwise: then
    /// [`GlobalMemory::write_lanes`] takes each lane and its fault.
    pub fn store_one_buffer(
        &mut self,
        size: u32,
        addrs: &[u32; 64],
        on: u64,
        mut put: impl FnMut(usize, &mut [u8]),
    ) -> Option<Coalescing> {
        let (b, c, dense) = self.one_buffer(size, addrs, on)?;
        let n = size as usize;
        if dense {
            // One stretch of bytes, lane after lane: a page at a time.
            self.store_dense(b, n, addrs, on, |first, d| {
                for (i, d) in d.chunks_exact_mut(n).enumerate() {
                    put(first + i, d);
                }
            });
            return Some(c);
        }
        let buf = &mut self.buffers[b];
        let base = u64::from(buf.base);
        let mut rest = on;
        while rest != 0 {
            // Consecutive lanes in one page (lanes in address order, the
            // usual case) share one copy-on-write check.
            let off = (u64::from(addrs[rest.trailing_zeros() as usize % 64]) - base) as usize;
            let p = off / PAGE;
            let lo = base + (p * PAGE) as u64;
            let page = Arc::make_mut(&mut buf.pages[p]);
            while rest != 0 {
                let l = rest.trailing_zeros() as usize % 64;
                let a = u64::from(addrs[l]);
                if a < lo || a >= lo + PAGE as u64 {
                    break;
                }
                rest &= rest - 1;
                // Natural alignment keeps an access inside one page.
                let o = (a - lo) as usize;
                put(l, &mut page[o..o + n]);
            }
        }
        self.mark_lanes(Marks::Written, b, n, addrs, on);
        Some(c)
    }

    /// [`GlobalMemory::store_one_buffer`] of one word a lane (the common store)
    /// from a register's row: lane `l` stores `row[l]` (zero for a lane
    /// past the row, or every lane of an empty row: `RZ`). A scattered or
    /// predicated store's lanes each take one word, one copy-on-write
    /// check a page.
    pub fn store_row(&mut self, addrs: &[u32; 64], on: u64, row: &[u32]) -> Option<Coalescing> {
        let (b, c, dense) = self.one_buffer(4, addrs, on)?;
        let word = |l: usize| row.get(l).copied().unwrap_or(0).to_le_bytes();
        if dense {
            self.store_dense(b, 4, addrs, on, |first, d| {
                let (words, _) = d.as_chunks_mut::<4>();
                match row.get(first..first + words.len()) {
                    Some(src) => words
                        .iter_mut()
                        .zip(src)
                        .for_each(|(d, v)| *d = v.to_le_bytes()),
                    None => words
                        .iter_mut()
                        .enumerate()
                        .for_each(|(i, d)| *d = word(first + i)),
                }
            });
            return Some(c);
        }
        let buf = &mut self.buffers[b];
        let base = buf.base;
        let mut rest = on;
        while rest != 0 {
            // Inside the buffer (`one_buffer`) and aligned: each lane one
            // word of one page; consecutive lanes in one page (lanes in
            // address order, the usual case) share the copy-on-write check.
            let p = addrs[rest.trailing_zeros() as usize % 64].wrapping_sub(base) as usize / PAGE;
            let (words, _) = Arc::make_mut(&mut buf.pages[p]).as_chunks_mut::<4>();
            while rest != 0 {
                let l = rest.trailing_zeros() as usize % 64;
                let off = addrs[l].wrapping_sub(base) as usize;
                if off / PAGE != p {
                    break;
                }
                rest &= rest - 1;
                words[off % PAGE / 4] = word(l);
            }
        }
        self.mark_lanes(Marks::Written, b, 4, addrs, on);
        Some(c)
    }

    /// The lanes of `on` that [`GlobalMemory::one_buffer`] found dense in
    /// buffer `b` (`n` bytes a lane), a page's stretch at a time:
    /// `put(first lane, bytes)` fills them, and a fork marks them
    /// written.
    fn store_dense(
        &mut self,
        b: usize,
        n: usize,
        addrs: &[u32; 64],
        on: u64,
        mut put: impl FnMut(usize, &mut [u8]),
    ) {
        let GlobalMemory { buffers, touched } = self;
        let buf = &mut buffers[b];
        for (p, o, take, lane) in dense_pages(addrs, on, u64::from(buf.base), n) {
            let page = Arc::make_mut(&mut buf.pages[p]);
            put(lane, &mut page[o..o + take]);
            if let Some(t) = touched.as_deref_mut() {
                mark(&mut t.written, b, p * PAGE + o, take);
            }
        }
    }

    /// One load's lanes at once when [`GlobalMemory::one_buffer`] holds:
    /// `got(l, bytes)` receives lane `l`'s `size` bytes. `None`, having
    /// read nothing, otherwise.
    pub fn load_one_buffer(
        &mut self,
        size: u32,
        addrs: &[u32; 64],
        on: u64,
        mut got: impl FnMut(usize, &[u8]),
    ) -> Option<Coalescing> {
        let (b, c, dense) = self.one_buffer(size, addrs, on)?;
        let n = size as usize;
        if dense {
            self.load_dense(b, n, addrs, on, |first, d| {
                for (i, d) in d.chunks_exact(n).enumerate() {
                    got(first + i, d);
                }
            });
            return Some(c);
        }
        let buf = &self.buffers[b];
        let base = u64::from(buf.base);
        let mut rest = on;
        while rest != 0 {
            let l = rest.trailing_zeros() as usize % 64;
            rest &= rest - 1;
            let off = (u64::from(addrs[l]) - base) as usize;
            // Natural alignment keeps an access inside one page.
            let (page, o) = (&buf.pages[off / PAGE], off % PAGE);
            got(l, &page[o..o + n]);
        }
        self.mark_lanes(Marks::Read, b, n, addrs, on);
        Some(c)
    }

    /// [`GlobalMemory::load_one_buffer`] of one word a lane (the common load)
    /// into a register's row: lane `l`'s word lands in `row[l]` (a lane
    /// past the row, or every lane of an empty row, is read and dropped).
    /// A gather's lanes each take one page lookup and one word, with no
    /// stretch to slice.
    pub fn load_row(&mut self, addrs: &[u32; 64], on: u64, row: &mut [u32]) -> Option<Coalescing> {
        let (b, c, dense) = self.one_buffer(4, addrs, on)?;
        if dense {
            self.load_dense(b, 4, addrs, on, |first, bytes| {
                let (words, _) = bytes.as_chunks::<4>();
                match row.get_mut(first..first + words.len()) {
                    Some(out) => out
                        .iter_mut()
                        .zip(words)
                        .for_each(|(x, w)| *x = u32::from_le_bytes(*w)),
                    None => {
                        for (i, w) in words.iter().enumerate() {
                            if let Some(x) = row.get_mut(first + i) {
                                *x = u32::from_le_bytes(*w);
                            }
                        }
                    }
                }
            });
            return Some(c);
        }
        let buf = &self.buffers[b];
        let base = buf.base;
        let mut rest = on;
        while rest != 0 {
            let l = rest.trailing_zeros() as usize % 64;
            rest &= rest - 1;
            // Inside the buffer (`one_buffer`) and aligned: one word of
            // one page.
            let off = addrs[l].wrapping_sub(base) as usize;
            let (words, _) = buf.pages[off / PAGE].as_chunks::<4>();
            let word = u32::from_le_bytes(words[off % PAGE / 4]);
            if let Some(x) = row.get_mut(l) {
                *x = word;
            }
        }
        self.mark_lanes(Marks::Read, b, 4, addrs, on);
        Some(c)
    }

    /// The lanes of `on` that [`GlobalMemory::one_buffer`] found dense in
    /// buffer `b` (`n` bytes a lane), a page's stretch at a time:
    /// `got(first lane, bytes)`, and marked read in a fork.
    fn load_dense(
        &mut self,
        b: usize,
        n: usize,
        addrs: &[u32; 64],
        on: u64,
        mut got: impl FnMut(usize, &[u8]),
    ) {
        let GlobalMemory { buffers, touched } = self;
        let buf = &buffers[b];
        for (p, o, take, lane) in dense_pages(addrs, on, u64::from(buf.base), n) {
            got(lane, &buf.pages[p][o..o + take]);
            if let Some(t) = touched.as_deref_mut() {
                mark(&mut t.read, b, p * PAGE + o, take);
            }
        }
    }

    /// In a fork, marks the `n` bytes of each lane of `on` in buffer `b`
    /// read or written.
    fn mark_lanes(&mut self, marks: Marks, b: usize, n: usize, addrs: &[u32; 64], on: u64) {
        let GlobalMemory { buffers, touched } = self;
        let Some(t) = touched.as_deref_mut() else {
            return;
        };
        let marks = match marks {
            Marks::Read => &mut t.read,
            Marks::Written => &mut t.written,
        };
        let base = u64::from(buffers[b].base);
        let mut rest = on;
        while rest != 0 {
            let l = rest.trailing_zeros() as usize % 64;
            rest &= rest - 1;
            mark(marks, b, (u64::from(addrs[l]) - base) as usize, n);
        }
    }

    /// A buffer's whole contents, by name.
    pub fn buffer(&self, name: &str) -> Option<Vec<u8>> {
        let b = self.buffers.iter().find(|b| &*b.name == name)?;
        let mut out = Vec::with_capacity(b.len as usize);
        for p in &b.pages {
            out.extend_from_slice(&p[..]);
        }
        out.truncate(b.len as usize);
        Some(out)
    }

    /// The 32-bit word at `addr`, if it is inside a buffer.
    pub fn word(&self, addr: u32) -> Option<u32> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b).ok()?;
        Some(u32::from_le_bytes(b))
    }

    /// Name and base of the buffer holding `addr`.
    pub fn buffer_at(&self, addr: u32) -> Option<(&str, u32)> {
        let i = self
            .buffers
            .partition_point(|b| b.base <= addr)
            .checked_sub(1)?;
        let b = &self.buffers[i];
        (addr - b.base < b.len).then(|| (&*b.name, b.base))
    }
}

/// The pages that the lanes of `on` span when [`GlobalMemory::one_buffer`]
/// found them dense (`n` bytes a lane, lane after lane, in a buffer at
/// `base`): `(page, offset in it, bytes, the lane at that offset)` for
/// each. Pages hold whole aligned accesses, so the bytes are a multiple
/// of `n`.
fn dense_pages(
    addrs: &[u32; 64],
    on: u64,
    base: u64,
    n: usize,
) -> impl Iterator<Item = (usize, usize, usize, usize)> {
    let first = on.trailing_zeros() as usize % 64;
    let start = (u64::from(addrs[first]) - base) as usize;
    let end = start + n * on.count_ones() as usize;
    let mut at = start;
    std::iter::from_fn(move || {
        (at < end).then(|| {
            let (p, o) = (at / PAGE, at % PAGE);
            let take = (PAGE - o).min(end - at);
            let lane = first + (at - start) / n;
            at += take;
            (p, o, take, lane)
        })
    })
}

/// The sectors (lines) that `n` addresses from `low` to `high`, sorted
/// `stride` bytes apart, touch, `unit` bytes each: one for a stride of 0,
/// one each for a stride of at least a unit, and otherwise every one from
/// the lowest's to the highest's (a shorter step cannot skip one).
fn spanned(stride: u64, n: u32, low: u32, high: u32, unit: u32) -> u32 {
    if stride == 0 {
        1
    } else if stride >= u64::from(unit) {
        n
    } else {
        high / unit - low / unit + 1
    }
}

/// [`GlobalMemory::one_buffer`]'s counts over lanes' addresses, each
/// compared with the one before it.
struct Tally {
    /// Some address came before the previous one (in the lanes' order,
    /// also when [`Tally::in_order`] counted them sorted).
    backwards: bool,
    /// The first and last addresses counted: the lowest and highest in
    /// [`Tally::in_order`]'s counts.
    low: u32,
    high: u32,
    /// Low bits that show any misalignment: every address ORed (and a
    /// run's start and step in [`Tally::of_run`]'s counts).
    bits: u32,
    distinct: u32,
    sectors: u32,
    lines: u32,
}

impl Tally {
    /// The counts over `lanes` (not empty). Each pair is counted on its
    /// own, so the loop has no carried state but its sums, which
    /// vectorise.
    fn of(lanes: &[u32]) -> Self {
        as_32_lanes(lanes, Self::count)
    }

    #[inline(always)]
    fn count(lanes: &[u32]) -> Self {
        let (mut back, mut bits) = (0u32, lanes[0]);
        let (mut distinct, mut sectors, mut lines) = (1u32, 1u32, 1u32);
        for (&p, &a) in lanes.iter().zip(&lanes[1..]) {
            back |= u32::from(a < p);
            bits |= a;
            distinct += u32::from(a != p);
            sectors += u32::from(a / SECTOR != p / SECTOR);
            lines += u32::from(a / LINE != p / LINE);
        }
        Tally {
            backwards: back != 0,
            low: lanes[0],
            high: lanes[lanes.len() - 1],
            bits,
            distinct,
            sectors,
            lines,
        }
    }

    /// [`Tally::in_order`]'s counts of a run's addresses, from its ends:
    /// `None` when they wrap past 4 GiB. Sorted, the addresses step by
    /// `|s|`; each is in a sector of its own when `|s|` is at least a
    /// sector, and otherwise no sector between the lowest's and the
    /// highest's is skipped (a step shorter than a sector cannot jump
    /// one): so too for lines. Every address is aligned to a power of two
    /// when the start is, and the step too (when there is one).
    #[inline(always)]
    fn of_run(run: ByteRun) -> Option<Self> {
        let n = run.n as u32;
        let s = i64::from(run.step as i32);
        let a0 = i64::from(run.start);
        let last = a0 + s * i64::from(n - 1);
        let last = u32::try_from(last).ok()?;
        let (low, high) = (run.start.min(last), run.start.max(last));
        let spans = |unit: u32| spanned(s.unsigned_abs(), n, low, high, unit);
        Some(Tally {
            backwards: s < 0,
            low,
            high,
            bits: run.start | run.step,
            distinct: if s == 0 { 1 } else { n },
            sectors: spans(SECTOR),
            lines: spans(LINE),
        })
    }

    /// [`Tally::in_order`]'s counts of the lanes of `on` (two or more,
    /// not consecutive) when every lane from its first to its last, on or
    /// not, is a run (the lanes between usually computed their addresses
    /// before a guard turned them off) whose start and step are multiples
    /// of `size`, and its sectors and lines follow from its ends: `None`
    /// otherwise. The run's counts hold for its ends, its direction and
    /// its alignment; the lanes of `on` are its distinct addresses unless
    /// the stride is 0, each in a sector of its own when the stride is at
    /// least a sector; when neighbouring lanes of `on` lie less than a
    /// sector apart, no sector between the ends is skipped; and so too for
    /// lines.
    // Out of line: the usual access (a run of consecutive lanes) keeps
    // `GlobalMemory::one_buffer` small enough to be inlined.
    #[inline(never)]
    fn of_sparse_run(addrs: &[u32; 64], on: u64, size: u32) -> Option<Self> {
        let first = on.trailing_zeros();
        let last = 63 - on.leading_zeros();
        let span = crate::engine::warp::lane_mask(last - first + 1) << first;
        let run = match <&[u32; 32]>::try_from(&addrs[..32]) {
            // Within a 32-lane warp (the usual one): every step checked in
            // one pass of fixed length, those between lanes of the span
            // counted (it vectorises).
            Ok(a) if last < 32 => {
                let (f, pairs) = (first as usize, (span & span >> 1) as u32);
                let step = a[f + 1].wrapping_sub(a[f]);
                let mut uneven = 0;
                for l in 0..31 {
                    let pair = 0u32.wrapping_sub(pairs >> l & 1);
                    uneven |= (a[l + 1].wrapping_sub(a[l]) ^ step) & pair;
                }
                (uneven == 0).then_some(ByteRun {
                    first: f,
                    n: (last - first + 1) as usize,
                    start: a[f],
                    step,
                })?
            }
            _ => ByteRun::of(addrs, span)?,
        };
        let t = Tally::of_run(run)?;
        if t.bits & (size - 1) != 0 {
            // Lanes of `on` may still be aligned (their steps are whole
            // multiples of the run's): counted one by one.
            return None;
        }
        // The longest stretch of lanes off between two that are on.
        let (mut off, mut longest) = (span & !on, 0u64);
        while off != 0 {
            off &= off >> 1;
            longest += 1;
        }
        let n = on.count_ones();
        let stride = u64::from((run.step as i32).unsigned_abs());
        let apart = (longest + 1) * stride;
        let spans = |unit: u32| {
            let unit_64 = u64::from(unit);
            (stride >= unit_64 || apart < unit_64).then(|| spanned(stride, n, t.low, t.high, unit))
        };
        Some(Tally {
            distinct: if stride == 0 { 1 } else { n },
            sectors: spans(SECTOR)?,
            lines: spans(LINE)?,
            ..t
        })
    }

    /// [`Tally::of`] the addresses in address order: as they are, or
    /// sorted when some address goes backwards.
    fn in_order(lanes: &[u32]) -> Self {
        let t = Tally::of(lanes);
        if !t.backwards {
            return t;
        }
        let mut sorted = [0u32; 64];
        let sorted = &mut sorted[..lanes.len()];
        sorted.copy_from_slice(lanes);
        sorted.sort_unstable();
        // Counted sorted, but the lanes' own order went backwards.
        Tally {
            backwards: true,
            ..Tally::of(sorted)
        }
    }
}

/// Fills one lane's store bytes `dst` (1, 2, 4, 8 or 16 of them) from
/// its words, one per register, little-endian; under 4 bytes, the low
/// bytes of the first.
#[inline(always)]
pub fn put_words(dst: &mut [u8], ws: &[u32; 4]) {
    if dst.len() < 4 {
        let n = dst.len();
        dst.copy_from_slice(&ws[0].to_le_bytes()[..n]);
    } else {
        for (d, wd) in dst.chunks_exact_mut(4).zip(ws) {
            d.copy_from_slice(&wd.to_le_bytes());
        }
    }
}

/// One block's shared memory, allocated on first use.
#[derive(Debug, Clone, Default)]
pub struct SharedMemory {
    /// The bytes up to the highest written so far (rounded up to
    /// [`SHARED_GROWTH`]); every byte past them reads zero. So a block
    /// that writes little of a large allocation zeroes little.
    bytes: Vec<u8>,
    size: u32,
}

/// The lanes of a whole 32-lane warp.
const FULL_32: u64 = (1 << 32) - 1;

/// Shared memory is held in steps of this many bytes as it is written.
const SHARED_GROWTH: usize = 256;

impl SharedMemory {
    pub fn new(size: u32) -> Self {
        SharedMemory {
            bytes: Vec::new(),
            size,
        }
    }

    /// Holds bytes up to `end` (at most the block's size; past what is
    /// held, every byte reads zero).
    #[inline]
    fn hold(&mut self, end: usize) {
        if end > self.bytes.len() {
            let to = end.next_multiple_of(SHARED_GROWTH).min(self.size as usize);
            self.bytes.resize(to.max(end), 0);
        }
    }

    fn check(&self, addr: u32, size: u32) -> Result<usize, FaultKind> {
        if !addr.is_multiple_of(size) {
            return Err(FaultKind::Misaligned);
        }
        if u64::from(addr) + u64::from(size) > u64::from(self.size) {
            return Err(FaultKind::SharedOutOfBounds);
        }
        Ok(addr as usize)
    }

    pub fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), FaultKind> {
        let a = self.check(addr, out.len() as u32)?;
        match self.bytes.get(a..a + out.len()) {
            Some(src) => out.copy_from_slice(src),
            None => out.fill(0),
        }
        Ok(())
    }

    /// [`SharedMemory::read`] of one 4-byte word, as a `u32`.
    #[inline]
    pub fn read_u32(&self, addr: u32) -> Result<u32, FaultKind> {
        let a = self.check(addr, 4)?;
        Ok(match self.bytes.get(a..a + 4) {
            Some(&[b0, b1, b2, b3]) => u32::from_le_bytes([b0, b1, b2, b3]),
            _ => 0,
        })
    }

    /// [`SharedMemory::write`] of one 4-byte word.
    #[inline]
    pub fn write_u32(&mut self, addr: u32, v: u32) -> Result<(), FaultKind> {
        let a = self.check(addr, 4)?;
        self.hold(a + 4);
        if let Some(&mut [ref mut b0, ref mut b1, ref mut b2, ref mut b3]) =
            self.bytes.get_mut(a..a + 4)
        {
            [*b0, *b1, *b2, *b3] = v.to_le_bytes();
        }
        Ok(())
    }

    pub fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), FaultKind> {
        let a = self.check(addr, data.len() as u32)?;
        self.hold(a + data.len());
        self.bytes[a..a + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// The words of a [`ByteRun`] when every one is aligned and inside:
    /// `(first word, word stride, end of the highest word)`. The run's
    /// addresses step by `step` as a signed 32-bit number; its ends inside
    /// the block's bytes bound every address between (so a run whose
    /// wrapped addresses fit some other way is left to `words_fit`).
    fn run_words(&self, run: ByteRun) -> Option<(i64, i64, usize)> {
        if !run.start.is_multiple_of(4) || !run.step.is_multiple_of(4) {
            return None;
        }
        let s = i64::from(run.step as i32);
        let a0 = i64::from(run.start);
        let last = a0 + s * (run.n as i64 - 1);
        let (lo, hi) = (a0.min(last), a0.max(last));
        (lo >= 0 && hi + 4 <= i64::from(self.size)).then_some((a0 / 4, s / 4, (hi + 4) as usize))
    }

    /// Whether the 4-byte words at `addrs[l]` for the lanes of `on` are
    /// all aligned and inside: then none of them faults (see
    /// [`masked_or_max`]). Returns the end of the highest word when they fit.
    fn words_fit(&self, addrs: &[u32; 64], on: u64) -> Option<usize> {
        // A warp of up to 32 lanes (the usual one) needs half the pass.
        let (bits, high) = match <&[u32; 32]>::try_from(&addrs[..32]) {
            Ok(low) if on >> 32 == 0 => masked_or_max(low, on),
            _ => masked_or_max(addrs, on),
        };
        let end = u64::from(high) + 4;
        (bits % 4 == 0 && end <= u64::from(self.size)).then_some(end as usize)
    }

    /// [`SharedMemory::read_u32`] of every lane of `on` at once, into
    /// `out[l]` (no other lane of `out` is written), when none of them
    /// faults; [`Moved::Refused`], reading nothing, otherwise (then each
    /// lane goes on its own, with its fault), and when `out` has no place
    /// for a lane.
    pub fn load_words(&self, addrs: &[u32; 64], on: u64, out: &mut [u32]) -> Moved {
        if 64 - on.leading_zeros() as usize > out.len() {
            return Moved::Refused;
        }
        if let Some(run) = ByteRun::of(addrs, on)
            && let Some((w0, ws, _)) = self.run_words(run)
        {
            // Lanes a constant stride apart (the usual access): word
            // `w0 + ws * i` for the run's lane `i`, the ends checked.
            let (words, _) = self.bytes.as_chunks::<4>();
            let dst = &mut out[run.first..run.first + run.n];
            let w0 = w0 as usize;
            let k = ws.unsigned_abs() as usize;
            let read = |o: &mut u32, b: &[u8; 4]| *o = u32::from_le_bytes(*b);
            // Words past those held were never written: they read zero.
            // Walking up, the held ones are the run's first `m` lanes;
            // walking down, all but its first `i0`.
            let held = words.len();
            match ws.signum() {
                1 => {
                    // Usually all of them (the division is then not needed).
                    let m = if w0 + k * (run.n - 1) < held {
                        run.n
                    } else if w0 < held {
                        ((held - 1 - w0) / k + 1).min(run.n)
                    } else {
                        0
                    };
                    let (got, zero) = dst.split_at_mut(m);
                    let src = &words[w0.min(held)..];
                    if k == 1 {
                        // A row: one copy.
                        got.iter_mut().zip(src).for_each(|(o, b)| read(o, b));
                    } else {
                        got.iter_mut()
                            .zip(src.iter().step_by(k))
                            .for_each(|(o, b)| read(o, b));
                    }
                    if !zero.is_empty() {
                        zero.fill(0);
                    }
                }
                -1 => {
                    let i0 = if w0 < held {
                        0
                    } else {
                        ((w0 - held) / k + 1).min(run.n)
                    };
                    let (zero, got) = dst.split_at_mut(i0);
                    zero.fill(0);
                    if let Some(src) = words.get(..=w0.saturating_sub(k * i0)) {
                        got.iter_mut()
                            .zip(src.iter().rev().step_by(k))
                            .for_each(|(o, b)| read(o, b));
                    }
                }
                _ => {
                    // A broadcast: one word.
                    let v = words.get(w0).map_or(0, |&b| u32::from_le_bytes(b));
                    dst.fill(v);
                }
            }
            return run.moved(ws);
        }
        if self.words_fit(addrs, on).is_none() {
            return Moved::Refused;
        }
        // Every address is aligned: word `a / 4` holds bytes `a..a + 4`.
        let (words, _) = self.bytes.as_chunks::<4>();
        let read = |a: u32| {
            words
                .get(a as usize / 4)
                .map_or(0, |&b| u32::from_le_bytes(b))
        };
        if on == FULL_32 {
            // A whole 32-lane warp (the usual access): lane by lane, with
            // no mask to walk.
            for (o, &a) in out[..32].iter_mut().zip(&addrs[..32]) {
                *o = read(a);
            }
            return Moved::Lanes;
        }
        let mut rest = on;
        while rest != 0 {
            let l = rest.trailing_zeros() as usize % 64;
            rest &= rest - 1;
            // Memory never written reads zero.
            out[l] = read(addrs[l]);
        }
        Moved::Lanes
    }

    /// [`SharedMemory::write_u32`] of every lane of `on` at once, lane `l`
    /// storing `vals[l]` (0 past its end), in lane order (a lane storing
    /// at an earlier lane's address wins), when none of them faults;
    /// [`Moved::Refused`], writing nothing, otherwise.
    pub fn store_words(&mut self, addrs: &[u32; 64], on: u64, vals: &[u32]) -> Moved {
        let val = |l: usize| vals.get(l).copied().unwrap_or(0);
        if let Some(run) = ByteRun::of(addrs, on)
            && let Some((w0, ws, end)) = self.run_words(run)
        {
            // Lanes a constant stride apart: see `load_words`. Every word
            // is held now.
            self.hold(end);
            let (words, _) = self.bytes.as_chunks_mut::<4>();
            let w0 = w0 as usize;
            let k = ws.unsigned_abs() as usize;
            let write = |b: &mut [u8; 4], &v: &u32| *b = v.to_le_bytes();
            match (vals.get(run.first..run.first + run.n), ws.signum()) {
                (Some(src), 1) if k == 1 => words[w0..]
                    .iter_mut()
                    .zip(src)
                    .for_each(|(b, v)| write(b, v)),
                (Some(src), 1) => words[w0..]
                    .iter_mut()
                    .step_by(k)
                    .zip(src)
                    .for_each(|(b, v)| write(b, v)),
                (Some(src), -1) => words[..=w0]
                    .iter_mut()
                    .rev()
                    .step_by(k)
                    .zip(src)
                    .for_each(|(b, v)| write(b, v)),
                _ => {
                    // In lane order: with a stride of 0, the last lane's
                    // word stays.
                    let mut wi = w0 as i64;
                    for l in run.first..run.first + run.n {
                        if let Some(b) = words.get_mut(wi as usize) {
                            *b = val(l).to_le_bytes();
                        }
                        wi += ws;
                    }
                }
            }
            return run.moved(ws);
        }
        let Some(end) = self.words_fit(addrs, on) else {
            return Moved::Refused;
        };
        self.hold(end);
        // Every address is aligned, and every word is held now.
        let (words, _) = self.bytes.as_chunks_mut::<4>();
        if on == FULL_32 {
            for (l, &a) in addrs[..32].iter().enumerate() {
                if let Some(b) = words.get_mut(a as usize / 4) {
                    *b = val(l).to_le_bytes();
                }
            }
            return Moved::Lanes;
        }
        let mut rest = on;
        while rest != 0 {
            let l = rest.trailing_zeros() as usize % 64;
            rest &= rest - 1;
            if let Some(b) = words.get_mut(addrs[l] as usize / 4) {
                *b = val(l).to_le_bytes();
            }
        }
        Moved::Lanes
    }
}

/// How [`SharedMemory::load_words`] or [`SharedMemory::store_words`]
/// moved a warp's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// Some lane would fault (or had no place): nothing moved.
    Refused,
    /// Every lane's word moved.
    Lanes,
    /// Every lane's word moved, and the lanes were `n` consecutive ones
    /// whose words lie `stride` words apart: what [`run_bank_passes`]
    /// counts, with no second look at the addresses.
    Run { n: u32, stride: i64 },
}

impl Moved {
    /// Every lane's word moved.
    pub fn moved(self) -> bool {
        self != Moved::Refused
    }
}

/// Lanes `first..first + n` (all of a mask's lanes, consecutive) whose
/// byte addresses start at `start` and step by `step` (wrapping) from
/// lane to lane: a row, a column, a broadcast.
#[derive(Debug, Clone, Copy)]
struct ByteRun {
    first: usize,
    n: usize,
    start: u32,
    step: u32,
}

impl ByteRun {
    /// The run moved, its words `ws` apart.
    fn moved(self, ws: i64) -> Moved {
        Moved::Run {
            n: self.n as u32,
            stride: ws,
        }
    }

    /// The run of the lanes of `on` at `addrs`, when they are one.
    #[inline(always)]
    fn of(addrs: &[u32; 64], on: u64) -> Option<Self> {
        let (first, n) = lane_run(on)?;
        let a = &addrs[first..first + n];
        let step = if n > 1 { a[1].wrapping_sub(a[0]) } else { 0 };
        let uneven = as_32_lanes(a, |a| uneven_steps(a, step, 1));
        (uneven == 0).then_some(ByteRun {
            first,
            n,
            start: a[0],
            step,
        })
    }
}

/// `f(lanes)`, compiled apart for a whole 32-lane warp (the usual one),
/// where the length is known and a loop over the lanes is unrolled.
#[inline(always)]
fn as_32_lanes<R>(lanes: &[u32], f: impl Fn(&[u32]) -> R) -> R {
    match <&[u32; 32]>::try_from(lanes) {
        Ok(all) => f(all),
        Err(_) => f(lanes),
    }
}

/// `(first lane, lanes)` when the lanes of `on` are one run of
/// consecutive lanes (and at least one).
#[inline(always)]
fn lane_run(on: u64) -> Option<(usize, usize)> {
    if on == 0 {
        return None;
    }
    let first = on.trailing_zeros() as usize;
    let run = on >> first;
    (run & run.wrapping_add(1) == 0).then_some((first, run.count_ones() as usize))
}

/// The OR and the highest of `addrs[l]` over the lanes of `on` (the
/// others count as 0): one pass over every lane, masked, with no branch a
/// lane (it vectorises).
#[inline(always)]
fn masked_or_max<const L: usize>(addrs: &[u32; L], on: u64) -> (u32, u32) {
    let (mut bits, mut high) = (0u32, 0u32);
    for (l, &a) in addrs.iter().enumerate() {
        let a = a & 0u32.wrapping_sub((on >> l) as u32 & 1);
        bits |= a;
        high = high.max(a);
    }
    (bits, high)
}

/// How one warp-wide global access maps onto sectors and lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coalescing {
    pub sectors: u32,
    pub lines: u32,
    /// Distinct bytes requested.
    pub requested_bytes: u32,
}

/// Groups lane accesses `(address, size)` into 32-byte sectors and 128-byte
/// lines. Accesses are naturally aligned, so each lies in one sector.
pub fn coalesce(accesses: &mut [(u32, u32)]) -> Coalescing {
    // Lanes usually access in address order already: then one pass.
    if let Some(c) = coalesce_sorted(accesses) {
        return c;
    }
    accesses.sort_unstable();
    coalesce_sorted(accesses).unwrap_or_default()
}

/// [`coalesce`] of accesses in address order; `None` if they are not.
fn coalesce_sorted(accesses: &[(u32, u32)]) -> Option<Coalescing> {
    let mut c = Coalescing::default();
    let mut last_addr = 0;
    let mut last_sector = u32::MAX;
    let mut last_line = u32::MAX;
    let mut covered_to: u64 = 0;
    for &(addr, size) in accesses {
        if addr < last_addr {
            return None;
        }
        last_addr = addr;
        let sector = addr / SECTOR;
        c.sectors += u32::from(sector != last_sector);
        last_sector = sector;
        let line = addr / LINE;
        c.lines += u32::from(line != last_line);
        last_line = line;
        let (start, end) = (u64::from(addr), u64::from(addr) + u64::from(size));
        if end > covered_to {
            c.requested_bytes += (end - start.max(covered_to)) as u32;
            covered_to = end;
        }
    }
    Some(c)
}

/// The worst bank's number of distinct 4-byte words: the passes a shared
/// access takes (1 = conflict free; the same word is a broadcast).
///
/// Lanes usually reach each bank's words in increasing order (a stride, a
/// broadcast): then one pass over the words counts them, with a count and
/// the last word per bank on the stack. Anything else (words out of order
/// within a bank, more than 64 banks) is counted by sorting the words into
/// `scratch`.
pub fn bank_passes(accesses: &[(u32, u32)], banks: u32, scratch: &mut Vec<(u32, u32)>) -> u32 {
    let Some(mut t) = BankTally::new(banks) else {
        return bank_passes_sorted(accesses, banks.max(1), scratch);
    };
    for &(addr, size) in accesses {
        let first = addr / 4;
        for w in first..first + size.div_ceil(4) {
            if !t.add(w) {
                return bank_passes_sorted(accesses, t.banks, scratch);
            }
        }
    }
    t.worst
}

/// [`bank_passes`] of one 4-byte word per lane of `lanes`, at `addrs[l]`,
/// read where the lanes' addresses are: the common `LDS`/`STS` needs no
/// list of accesses, unless its words are out of order within a bank.
pub fn word_bank_passes(
    addrs: &[u32; 64],
    lanes: u64,
    banks: u32,
    scratch: &mut Vec<(u32, u32)>,
) -> u32 {
    if let Some(passes) = strided_bank_passes(addrs, lanes, banks) {
        return passes;
    }
    if let Some(mut t) = BankTally::new(banks) {
        let mut rest = lanes;
        while rest != 0 && t.add(addrs[rest.trailing_zeros() as usize % 64] / 4) {
            rest &= rest - 1;
        }
        if rest == 0 {
            return t.worst;
        }
    }
    let mut accesses = [(0u32, 4u32); 64];
    let mut n = 0;
    let mut all = lanes;
    while all != 0 {
        accesses[n].0 = addrs[all.trailing_zeros() as usize % 64];
        all &= all - 1;
        n += 1;
    }
    bank_passes_sorted(&accesses[..n], banks.max(1), scratch)
}

/// [`word_bank_passes`] in closed form when the lanes are consecutive and
/// their words a constant stride `s` apart (a broadcast, a row, a column:
/// the usual shapes): `n` lanes step through the banks with period
/// `p = banks / gcd(s, banks)`, so the busiest bank takes `ceil(n / p)`
/// distinct words (and a broadcast, `s = 0`, one). `None` otherwise.
fn strided_bank_passes(addrs: &[u32; 64], lanes: u64, banks: u32) -> Option<u32> {
    if lanes == 0 {
        return Some(0);
    }
    let (first, n) = lane_run(lanes)?;
    let words = &addrs[first..first + n];
    if n == 1 {
        return Some(1);
    }
    let stride = i64::from(words[1] / 4) - i64::from(words[0] / 4);
    // Word indices are below 2^30, so their differences lie within
    // +-2^30 and equal ones are equal as wrapped `u32`s: one pass with no
    // early exit, which vectorises.
    let step = (words[1] / 4).wrapping_sub(words[0] / 4);
    let uneven = as_32_lanes(words, |w| uneven_steps(w, step, 4));
    if uneven != 0 {
        return None;
    }
    Some(run_bank_passes(n as u32, stride, banks))
}

/// The bank passes of `n` consecutive lanes whose 4-byte words lie
/// `stride` words apart (the closed form of [`strided_bank_passes`]).
pub fn run_bank_passes(n: u32, stride: i64, banks: u32) -> u32 {
    if n <= 1 || stride == 0 {
        return n.min(1);
    }
    let banks = u64::from(banks.max(1));
    let n = u64::from(n);
    if banks.is_power_of_two() {
        // The usual banks, with no division: the stride modulo 2^k keeps
        // its low k bits, gcd(r, 2^k) is 2^(trailing zeros of r) for
        // 0 < r < 2^k, so the period is 2^(k - tz(r)); r = 0 puts every
        // lane in one bank.
        let r = (stride as u64) & (banks - 1);
        let period_log = if r == 0 {
            0
        } else {
            banks.trailing_zeros() - r.trailing_zeros()
        };
        return ((n + (1 << period_log) - 1) >> period_log) as u32;
    }
    let r = stride.rem_euclid(banks as i64) as u64;
    n.div_ceil(banks / gcd(r, banks)) as u32
}

/// Nonzero when some step between consecutive addresses of `addrs`,
/// counted in `unit`s (1: bytes, 4: words), is not `step` (wrapping).
#[inline(always)]
fn uneven_steps(addrs: &[u32], step: u32, unit: u32) -> u32 {
    let mut acc = 0;
    for i in 1..addrs.len() {
        acc |= (addrs[i] / unit).wrapping_sub(addrs[i - 1] / unit) ^ step;
    }
    acc
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Distinct words per bank, for words that reach each bank in increasing
/// order: a count and the last word per bank, on the stack.
struct BankTally {
    banks: u32,
    pow2: bool,
    touched: u64,
    count: [u32; 64],
    last: [u32; 64],
    /// The most distinct words any bank has.
    worst: u32,
}

impl BankTally {
    /// `None` past 64 banks.
    fn new(banks: u32) -> Option<Self> {
        let banks = banks.max(1);
        (banks <= 64).then(|| BankTally {
            banks,
            pow2: banks.is_power_of_two(),
            touched: 0,
            count: [0; 64],
            last: [0; 64],
            worst: 0,
        })
    }

    /// Counts word `w`; false, counting nothing, when it comes before its
    /// bank's last word (the order this counting needs).
    #[inline(always)]
    fn add(&mut self, w: u32) -> bool {
        let b = if self.pow2 {
            w & (self.banks - 1)
        } else {
            w % self.banks
        } as usize;
        if self.touched >> b & 1 == 0 {
            self.touched |= 1 << b;
            self.count[b] = 1;
            self.last[b] = w;
            self.worst = self.worst.max(1);
        } else if w > self.last[b] {
            self.count[b] += 1;
            self.last[b] = w;
            self.worst = self.worst.max(self.count[b]);
        } else if w < self.last[b] {
            return false;
        }
        true
    }
}

/// [`bank_passes`] for any order of words: sorts them by bank and word.
fn bank_passes_sorted(accesses: &[(u32, u32)], banks: u32, scratch: &mut Vec<(u32, u32)>) -> u32 {
    scratch.clear();
    for &(addr, size) in accesses {
        let first = addr / 4;
        for w in first..first + size.div_ceil(4) {
            scratch.push((w % banks, w));
        }
    }
    if scratch.is_empty() {
        return 0;
    }
    scratch.sort_unstable();
    scratch.dedup();
    let mut worst = 0;
    let mut run = 0;
    let mut bank = u32::MAX;
    for &(b, _) in scratch.iter() {
        if b == bank {
            run += 1;
        } else {
            bank = b;
            run = 1;
        }
        worst = worst.max(run);
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ElemType;

    #[test]
    fn shared_memory_holds_up_to_its_highest_write() {
        // 16 KiB reserved; a word at 8 holds the first 256 bytes only.
        let mut m = SharedMemory::new(16 << 10);
        assert_eq!(m.read_u32(8), Ok(0));
        assert!(m.bytes.is_empty());
        m.write_u32(8, 5).unwrap();
        assert_eq!(m.bytes.len(), 256);
        // Past what is held reads zero; a write at 4000 holds up to 4096
        // (4004 rounded up to 256), keeping the word at 8.
        assert_eq!(m.read_u32(4000), Ok(0));
        m.write_u32(4000, 7).unwrap();
        assert_eq!(m.bytes.len(), 4096);
        assert_eq!((m.read_u32(8), m.read_u32(4000)), (Ok(5), Ok(7)));
        // A whole warp's words at once, the highest at 16380: the end.
        let mut addrs = [0u32; 64];
        addrs[3] = 16380;
        assert_eq!(
            m.store_words(&addrs, 0b1000, &[9; 4]),
            Moved::Run { n: 1, stride: 0 }
        );
        assert_eq!((m.bytes.len(), m.read_u32(16380)), (16 << 10, Ok(9)));
        // Never past the block's size, which need not be a multiple of 256.
        let mut m = SharedMemory::new(1000);
        let mut out = [0u8; 8];
        m.write(992, &[1; 8]).unwrap();
        assert_eq!(m.bytes.len(), 1000);
        m.read(992, &mut out).unwrap();
        assert_eq!(out, [1; 8]);
        assert_eq!(m.write_u32(1000, 1), Err(FaultKind::SharedOutOfBounds));
    }

    #[test]
    fn sixteen_consecutive_words_in_one_line_are_one_transaction() {
        // 16 lanes x 4 bytes from 0x100000: 64 bytes, two sectors, one line.
        let mut a: Vec<(u32, u32)> = (0..16).map(|l| (0x10_0000 + 4 * l, 4)).collect();
        let c = coalesce(&mut a);
        assert_eq!((c.sectors, c.lines, c.requested_bytes), (2, 1, 64));
    }

    #[test]
    fn sixteen_lanes_in_sixteen_lines_are_sixteen_transactions() {
        let mut a: Vec<(u32, u32)> = (0..16).map(|l| (0x10_0000 + 128 * l, 4)).collect();
        let c = coalesce(&mut a);
        assert_eq!((c.sectors, c.lines, c.requested_bytes), (16, 16, 64));
    }

    #[test]
    fn a_broadcast_requests_four_bytes() {
        let mut a: Vec<(u32, u32)> = (0..32).map(|_| (0x10_0040, 4)).collect();
        let c = coalesce(&mut a);
        assert_eq!((c.sectors, c.lines, c.requested_bytes), (1, 1, 4));
    }

    #[test]
    fn lanes_out_of_address_order_coalesce_the_same() {
        // Lane l reads word 31 - l, and two lanes overlap an 8-byte access:
        // 32 words in 4 sectors of one line, 128 distinct bytes.
        let mut a: Vec<(u32, u32)> = (0..32).rev().map(|l| (0x10_0000 + 4 * l, 4)).collect();
        a.push((0x10_0000, 8));
        let c = coalesce(&mut a);
        assert_eq!((c.sectors, c.lines, c.requested_bytes), (4, 1, 128));
        // In order, but the wider access first at the same address.
        let mut b = vec![(0x10_0000, 8), (0x10_0000, 4), (0x10_0080, 4)];
        let c = coalesce(&mut b);
        assert_eq!((c.sectors, c.lines, c.requested_bytes), (2, 2, 12));
    }

    #[test]
    fn bank_conflict_degrees() {
        let mut s = Vec::new();
        // Stride 1 word: every lane its own bank.
        let a: Vec<(u32, u32)> = (0..32).map(|l| (4 * l, 4)).collect();
        assert_eq!(bank_passes(&a, 32, &mut s), 1);
        // Stride 2 words: lanes l and l+16 share a bank -> 2 passes.
        let a: Vec<(u32, u32)> = (0..32).map(|l| (8 * l, 4)).collect();
        assert_eq!(bank_passes(&a, 32, &mut s), 2);
        // Stride 4 words: 32 lanes over 8 banks, 4 distinct words each -> 4.
        let a: Vec<(u32, u32)> = (0..32).map(|l| (16 * l, 4)).collect();
        assert_eq!(bank_passes(&a, 32, &mut s), 4);
        // Stride 8 words: 32 lanes over 4 banks, 8 distinct words each -> 8.
        let a: Vec<(u32, u32)> = (0..32).map(|l| (32 * l, 4)).collect();
        assert_eq!(bank_passes(&a, 32, &mut s), 8);
        // Stride 32 words: all in bank 0 -> 32 passes.
        let a: Vec<(u32, u32)> = (0..32).map(|l| (128 * l, 4)).collect();
        assert_eq!(bank_passes(&a, 32, &mut s), 32);
        // Same word everywhere: broadcast, one pass.
        let a: Vec<(u32, u32)> = (0..32).map(|_| (64, 4)).collect();
        assert_eq!(bank_passes(&a, 32, &mut s), 1);
        // 64-bit contiguous: 64 words over 32 banks -> 2 passes.
        let a: Vec<(u32, u32)> = (0..32).map(|l| (8 * l, 8)).collect();
        assert_eq!(bank_passes(&a, 32, &mut s), 2);
        // Lanes in reverse order, the same words as stride 2: 2 passes
        // (counted by the sorting path).
        let a: Vec<(u32, u32)> = (0..32).rev().map(|l| (8 * l, 4)).collect();
        assert_eq!(bank_passes(&a, 32, &mut s), 2);
        // 24 banks (not a power of two), stride 6 words: lanes fall in
        // banks 0, 6, 12, 18, each reached by 8 distinct words -> 8.
        let a: Vec<(u32, u32)> = (0..32).map(|l| (24 * l, 4)).collect();
        assert_eq!(bank_passes(&a, 24, &mut s), 8);
        // No access: no pass.
        assert_eq!(bank_passes(&[], 32, &mut s), 0);
    }

    /// `load_words` and `store_words` of the lanes of `on` against each
    /// lane on its own (`read_u32`, `write_u32` in lane order): the same
    /// words, the same memory after, and refused (changing nothing)
    /// exactly when some lane would fault.
    fn words_match_lane_by_lane(
        mut m: SharedMemory,
        addrs: &[u32; 64],
        on: u64,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let lanes: Vec<usize> = (0..64).filter(|l| on >> l & 1 != 0).collect();
        let each: Vec<Result<u32, FaultKind>> =
            lanes.iter().map(|&l| m.read_u32(addrs[l])).collect();
        let fits = each.iter().all(Result::is_ok);
        // A lane the load does not write keeps this.
        let mut out = [0xdead_beef_u32; 64];
        let loaded = m.load_words(addrs, on, &mut out);
        proptest::prop_assert_eq!(loaded.moved(), fits);
        // A run's bank passes in closed form, against the count read from
        // the lanes' addresses (itself checked against a direct count in
        // `word_bank_passes_count_each_banks_distinct_words`).
        if let Moved::Run { n, stride } = loaded {
            proptest::prop_assert_eq!(n, on.count_ones());
            for banks in [32, 24, 64, 1] {
                let mut s = Vec::new();
                proptest::prop_assert_eq!(
                    run_bank_passes(n, stride, banks),
                    word_bank_passes(addrs, on, banks, &mut s)
                );
            }
        }
        if fits {
            let got: Vec<Result<u32, FaultKind>> = lanes.iter().map(|&l| Ok(out[l])).collect();
            proptest::prop_assert_eq!(got, each);
        }
        let mut reference = m.clone();
        if fits {
            for &l in &lanes {
                reference
                    .write_u32(addrs[l], 1000 + l as u32)
                    .expect("fits");
            }
        }
        // A store moves its words exactly as the load did.
        proptest::prop_assert_eq!(
            m.store_words(
                addrs,
                on,
                &std::array::from_fn::<u32, 64, _>(|l| 1000 + l as u32)
            ),
            loaded
        );
        proptest::prop_assert_eq!(m.bytes.len(), reference.bytes.len());
        for k in 0..m.size / 4 {
            proptest::prop_assert_eq!(m.read_u32(4 * k), reference.read_u32(4 * k));
        }
        Ok(())
    }

    // Runs whose words are partly past the bytes memory holds (those read
    // zero): walking up and down, across the end of what is held, with
    // every stride up to 5 words either way.
    #[test]
    fn shared_runs_across_the_held_end_match_lane_by_lane() {
        let mut m = SharedMemory::new(1024);
        for k in 0..64 {
            m.write_u32(4 * k, 7 * k + 1).expect("in bounds");
        }
        // 64 words held, 256 in the block.
        assert_eq!(m.bytes.len(), 256);
        for w0 in [0u32, 40, 63, 64, 100, 200, 255] {
            for stride in -5i64..=5 {
                for (first, n) in [(0, 1), (0, 2), (3, 13), (0, 32), (0, 64), (20, 44)] {
                    let mut addrs = [0u32; 64];
                    for i in 0..n {
                        addrs[first + i] = (4 * (i64::from(w0) + stride * i as i64)) as u32;
                    }
                    let on = lane_mask_of(n as u32) << first;
                    if let Err(e) = words_match_lane_by_lane(m.clone(), &addrs, on) {
                        panic!("w0 {w0}, stride {stride}, lanes {first}+{n}: {e}");
                    }
                }
            }
        }
    }

    proptest::proptest! {
        // The reference is a direct count, independent of both paths: for
        // every bank, the distinct words that fall in it, collected in a
        // set.
        #[test]
        fn bank_passes_count_each_banks_distinct_words(
            lanes in proptest::collection::vec((0u32..512, 0usize..3), 0..64),
            banks in 1u32..=64,
        ) {
            let accesses: Vec<(u32, u32)> = lanes
                .iter()
                .map(|&(word, k)| {
                    let size = [4u32, 8, 16][k];
                    // Naturally aligned, as the engine's accesses are.
                    ((word * 4) / size * size, size)
                })
                .collect();
            let mut per_bank = std::collections::BTreeMap::<u32, std::collections::BTreeSet<u32>>::new();
            for &(addr, size) in &accesses {
                for w in addr / 4..(addr + size) / 4 {
                    per_bank.entry(w % banks).or_default().insert(w);
                }
            }
            let want = per_bank.values().map(|s| s.len() as u32).max().unwrap_or(0);
            let mut s = Vec::new();
            proptest::prop_assert_eq!(bank_passes(&accesses, banks, &mut s), want);
            // In address order too, the path that needs no sorting.
            let mut sorted = accesses.clone();
            sorted.sort_unstable();
            proptest::prop_assert_eq!(bank_passes(&sorted, banks, &mut s), want);
        }

        // One word per lane, read from the lanes' addresses: the same
        // direct count, over the lanes of the mask, in lane order and in
        // address order, and past 64 banks.
        // Shapes: any words over any lanes; a stride (negative too) over a
        // run of consecutive lanes, the closed-form path; the same stride
        // over any lanes; any words over a run of consecutive lanes (the
        // closed form must refuse them unless they happen to be strided).
        #[test]
        fn word_bank_passes_count_each_banks_distinct_words(
            words in proptest::collection::vec(0u32..512, 64),
            lanes: u64,
            banks in 1u32..=80,
            in_order: bool,
            shape in 0u8..4,
            (start, stride) in (0u32..512, -70i64..70),
            (lo, len) in (0u32..64, 0u32..=64),
        ) {
            let mut words = words;
            let mut lanes = lanes;
            if in_order {
                words.sort_unstable();
            }
            if shape == 1 || shape == 2 {
                for (l, w) in words.iter_mut().enumerate() {
                    *w = (5000 + i64::from(start) + stride * l as i64) as u32;
                }
            }
            if shape == 1 || shape == 3 {
                let len = len.min(64 - lo);
                lanes = if len == 64 { u64::MAX } else { ((1u64 << len) - 1) << lo };
            }
            let mut addrs = [0u32; 64];
            for (a, w) in addrs.iter_mut().zip(&words) {
                *a = w * 4;
            }
            let mut per_bank = std::collections::BTreeMap::<u32, std::collections::BTreeSet<u32>>::new();
            for l in (0..64).filter(|l| lanes >> l & 1 != 0) {
                per_bank.entry(words[l] % banks).or_default().insert(words[l]);
            }
            let want = per_bank.values().map(|s| s.len() as u32).max().unwrap_or(0);
            let mut s = Vec::new();
            proptest::prop_assert_eq!(word_bank_passes(&addrs, lanes, banks, &mut s), want);
        }

        // Shared words at once against each lane on its own (`read_u32`,
        // `write_u32` in lane order): the same words, the same memory, and
        // refused (changing nothing) exactly when some lane would fault.
        #[test]
        fn shared_words_at_once_match_lane_by_lane(
            words in proptest::collection::vec(0u32..64, 64),
            on: u64,
            bad in proptest::option::weighted(0.3, (0usize..64, proptest::bool::ANY)),
            written: bool,
        ) {
            // 256 bytes: 64 words.
            let mut m = SharedMemory::new(256);
            if written {
                for k in 0..64u32 {
                    m.write_u32(4 * k, 7 * k + 1).expect("in bounds");
                }
            }
            let mut addrs = [0u32; 64];
            for (a, &w) in addrs.iter_mut().zip(&words) {
                *a = 4 * w;
            }
            // One lane misaligned, or past the end.
            if let Some((l, misaligned)) = bad {
                addrs[l] = if misaligned { addrs[l] + 2 } else { 256 };
            }
            words_match_lane_by_lane(m, &addrs, on)?;
        }

        // The same, for lanes a constant byte stride apart (a row, a
        // column, a broadcast, backwards; the at-once path's closed form):
        // any run of consecutive lanes, any start and stride (misaligned,
        // past the end, wrapping past 2^32 now and then), over memory
        // written up to some word (past it, reads are zero). Half the
        // runs are word aligned, and half step at most 3 words, so that
        // many fit and move as one run.
        #[test]
        fn shared_strides_at_once_match_lane_by_lane(
            start in proptest::prop_oneof![0u32..1100, (u32::MAX - 200)..=u32::MAX],
            step in proptest::prop_oneof![-300i32..300, -12i32..=12],
            aligned: bool,
            (first, n) in proptest::strategy::Strategy::prop_flat_map(0usize..64, |f| (proptest::strategy::Just(f), 1..=64 - f)),
            written in 0u32..=256,
            other in proptest::collection::vec(0u32..1024, 64),
        ) {
            let (start, step) = if aligned { (start & !3, step & !3) } else { (start, step) };
            // 1 KiB: 256 words, the first `written` written.
            let mut m = SharedMemory::new(1024);
            for k in 0..written {
                m.write_u32(4 * k, 7 * k + 1).expect("in bounds");
            }
            let mut addrs = [0u32; 64];
            addrs.copy_from_slice(&other);
            for i in 0..n {
                addrs[first + i] = start.wrapping_add((step as u32).wrapping_mul(i as u32));
            }
            let on = lane_mask_of(n as u32) << first;
            words_match_lane_by_lane(m, &addrs, on)?;
        }

        // The one-buffer paths against the lane-by-lane reference: each
        // lane read or written on its own (`read`, `write_lanes`), the
        // coalescing counted by `coalesce` over the lanes' accesses.
        // Lanes in any order, repeating addresses, and now and then one
        // misaligned or past the buffer (then neither path takes them).
        #[test]
        fn one_buffer_loads_and_stores_match_lane_by_lane(
            slots in proptest::collection::vec(0u32..64, 64),
            on: u64,
            k in 0usize..5,
            bad in proptest::option::weighted(0.2, (0usize..64, proptest::bool::ANY)),
            dense in proptest::option::weighted(0.5, (0usize..64, 1usize..=64, 0u32..8192)),
            run in proptest::option::weighted(0.4, (0usize..64, 1usize..=64, 0u32..8192, -80i32..80, 0u32..4)),
            holes in proptest::option::weighted(0.5, proptest::num::u64::ANY),
            forked: bool,
        ) {
            let size = [1u32, 2, 4, 8, 16][k];
            let g = GlobalMemory::new(&[BufferSpec {
                name: "d".into(),
                ty: ElemType::U32,
                len: 2048,
                base: 0x10_0000,
                init: (0..8192u32).map(|i| (i * 7 % 251) as u8).collect(),
            }]);
            // 64 slots of `size` bytes spread over both pages.
            let mut addrs = [0u32; 64];
            for (a, &s) in addrs.iter_mut().zip(&slots) {
                *a = 0x10_0000 + s * (8192 / 64);
            }
            let mut on = if on == 0 { 1 } else { on };
            // Or consecutive lanes at consecutive addresses (a coalesced
            // access), over a page boundary now and then, and past the end.
            if let Some((first, count, start)) = dense {
                let count = count.min(64 - first);
                for i in 0..count {
                    addrs[first + i] = 0x10_0000 + start / size * size + i as u32 * size;
                }
                on = lane_mask_of(count as u32) << first;
            }
            // Or lanes a constant stride apart, either way (0: the same
            // address): any bytes, whole sectors, or whole accesses (-9 to
            // 9 of them), counted from the run's ends (`Tally::of_run`),
            // over page boundaries, out of the buffer or below address 0
            // now and then.
            if let Some((first, count, start, step, shape)) = run {
                let count = count.min(64 - first);
                let stride = match shape {
                    0 => step,
                    1 => step / 8 * 32,
                    _ => step / 8 * size as i32,
                };
                for i in 0..count {
                    let a = i64::from(0x10_0000 + start / size * size) + i as i64 * i64::from(stride);
                    addrs[first + i] = a as u32;
                }
                on = lane_mask_of(count as u32) << first;
                // Some of the run's lanes off (`Tally::of_sparse_run`).
                if let Some(h) = holes.filter(|&h| on & h != 0) {
                    on &= h;
                }
            }
            if let Some((l, misaligned)) = bad {
                addrs[l] = if misaligned { addrs[l] + size / 2 } else { 0x10_2000 };
            }
            // A fork notes the bytes read and written: lane by lane as at
            // once.
            let mut g = if forked { g.fork() } else { g };
            let mut reference = g.clone();
            let lanes: Vec<usize> = (0..64).filter(|l| on >> l & 1 != 0).collect();
            let faults = lanes.iter().any(|&l| {
                let mut b = vec![0u8; size as usize];
                g.read(addrs[l], &mut b).is_err()
            });
            let mut accesses: Vec<(u32, u32)> = lanes.iter().map(|&l| (addrs[l], size)).collect();
            let want = (!faults).then(|| coalesce(&mut accesses));
            let mut row_loaded = g.clone();
            let mut got = Vec::new();
            let c = g.load_one_buffer(size, &addrs, on, |l, b| got.push((l, b.to_vec())));
            proptest::prop_assert_eq!(c, want);
            if !faults {
                let each: Vec<(usize, Vec<u8>)> = lanes
                    .iter()
                    .map(|&l| {
                        let mut b = vec![0u8; size as usize];
                        reference.load(addrs[l], &mut b).expect("in bounds");
                        (l, b)
                    })
                    .collect();
                proptest::prop_assert_eq!(&got, &each);
            }
            if size == 4 {
                // A word a lane into a register's row of 40 lanes: the
                // same counts, each lane's word where the row has it, the
                // rest of the row untouched, the same bytes marked read.
                let mut row = [0xdead_beef_u32; 40];
                let c = row_loaded.load_row(&addrs, on, &mut row);
                proptest::prop_assert_eq!(c, want);
                if !faults {
                    let mut expected = [0xdead_beef_u32; 40];
                    for (l, b) in &got {
                        if let Some(x) = expected.get_mut(*l) {
                            *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                        }
                    }
                    proptest::prop_assert_eq!(row, expected);
                    proptest::prop_assert_eq!(&row_loaded.touched, &g.touched);
                }
            }
            // A register's row of 40 lanes: lanes past it store zero.
            let row: Vec<u32> = (0..40).map(|l| 1000 + l).collect();
            let first = |l: usize| row.get(l).copied().unwrap_or(0);
            let words = |l: usize| [first(l), 2000 + l as u32, 3000, 4000];
            let items = lanes.iter().map(|&l| (l as u32, addrs[l], words(l)));
            reference.write_lanes(size, items, |_, _, _| {});
            let mut row_stored = g.clone();
            let c = g.store_one_buffer(size, &addrs, on, |l, d| put_words(d, &words(l)));
            proptest::prop_assert_eq!(c, want);
            if !faults {
                proptest::prop_assert_eq!(g.buffer("d"), reference.buffer("d"));
                proptest::prop_assert_eq!(&g.touched, &reference.touched);
            }
            if size == 4 {
                // A word a lane from the row: the same counts, bytes and
                // marks.
                let c = row_stored.store_row(&addrs, on, &row);
                proptest::prop_assert_eq!(c, want);
                if !faults {
                    proptest::prop_assert_eq!(row_stored.buffer("d"), reference.buffer("d"));
                    proptest::prop_assert_eq!(&row_stored.touched, &reference.touched);
                }
            }
        }
    }

    /// Forks that wrote disjoint bytes of one page (and the next page)
    /// join into one memory holding every write; the values are the ones
    /// each fork wrote, worked out by hand.
    #[test]
    fn forks_that_share_no_written_byte_join_with_every_write() {
        let mut g = zero_pages();
        g.write(0x10_0000, &[9]).expect("in bounds");
        let (mut a, mut b) = (g.fork(), g.fork());
        // Both read word 1 (nobody writes it); a writes bytes 0..4 of the
        // first page and a word of the page at 0x10_1000, b bytes 8..12 of
        // the first page and a 64-byte run from 0x100040 (a whole word of
        // bits).
        let mut x = [0u8; 4];
        a.load(0x10_0004, &mut x).expect("in bounds");
        b.load(0x10_0004, &mut x).expect("in bounds");
        a.write(0x10_0000, &[1, 2, 3, 4]).expect("in bounds");
        a.write(0x10_1000, &7u32.to_le_bytes()).expect("in bounds");
        b.write(0x10_0008, &[5, 6, 7, 8]).expect("in bounds");
        for k in 0..4 {
            b.write(0x10_0040 + 16 * k, &[0xab; 16]).expect("in bounds");
        }
        assert!(g.join(&[a, b]));
        assert_eq!(g.word(0x10_0000), Some(0x0403_0201));
        assert_eq!(g.word(0x10_0004), Some(0));
        assert_eq!(g.word(0x10_0008), Some(0x0807_0605));
        assert_eq!(g.word(0x10_1000), Some(7));
        assert_eq!(g.word(0x10_0040), Some(0xabab_abab));
        assert_eq!(g.word(0x10_007c), Some(0xabab_abab));
        assert_eq!(g.word(0x10_0080), Some(0));
    }

    /// A byte one fork wrote and another read or wrote, through any of the
    /// access paths, stops the join, which then changes nothing.
    #[test]
    fn forks_that_share_a_written_byte_do_not_join() {
        let on = lane_mask_of(4);
        let mut addrs = [0u32; 64];
        for (l, a) in addrs.iter_mut().enumerate().take(4) {
            *a = 0x10_0100 + 4 * l as u32;
        }
        type Access = fn(&mut GlobalMemory, &[u32; 64], u64);
        let read: Access = |m, _, _| {
            let mut x = [0u8; 2];
            m.load(0x10_010e, &mut x).expect("in bounds");
        };
        let load: Access = |m, a, on| {
            m.load_one_buffer(4, a, on, |_, _| {})
                .expect("in one buffer");
        };
        let write: Access = |m, _, _| m.write(0x10_010e, &[1, 1]).expect("in bounds");
        let store: Access = |m, a, on| {
            m.store_one_buffer(4, a, on, |_, d| d.fill(2))
                .expect("in one buffer");
        };
        let lanes: Access = |m, a, on| {
            let items = (0..4)
                .filter(|l| on >> l & 1 != 0)
                .map(|l| (l, a[l as usize], [3; 4]));
            m.write_lanes(4, items, |_, _, r| r.expect("in bounds"));
        };
        // Every access touches bytes 0x10010e and 0x10010f (the lanes' words
        // are 0x100100..0x100110).
        let writers = [write, store, lanes];
        for w in writers {
            for other in [read, load, write, store, lanes] {
                for first in [true, false] {
                    let mut g = zero_pages();
                    let (mut a, mut b) = (g.fork(), g.fork());
                    w(&mut a, &addrs, on);
                    other(&mut b, &addrs, on);
                    let forks = if first { [a, b] } else { [b, a] };
                    let before = g.buffer("d");
                    assert!(!g.join(&forks));
                    assert_eq!(g.buffer("d"), before);
                }
            }
        }
        // Two readers of the same bytes do join.
        let mut g = zero_pages();
        let (mut a, mut b) = (g.fork(), g.fork());
        read(&mut a, &addrs, on);
        load(&mut b, &addrs, on);
        assert!(g.join(&[a, b]));
    }

    fn lane_mask_of(n: u32) -> u64 {
        u64::MAX.checked_shr(64 - n).unwrap_or(0)
    }

    /// 8 KiB of zeroed words at 0x10_0000, whose page boundaries include
    /// 0x10_1000.
    fn zero_pages() -> GlobalMemory {
        const { assert!(0x1000 % PAGE == 0) };
        GlobalMemory::new(&[BufferSpec {
            name: "d".into(),
            ty: ElemType::U32,
            len: 2048,
            base: 0x10_0000,
            init: vec![0; 8192],
        }])
    }

    #[test]
    fn writing_lanes_spanning_pages_and_faults() {
        let mut g = zero_pages();
        let keep = g.clone();
        // Two lanes in the first page, one past the end, one misaligned, one
        // in the page at 0x10_1000.
        let addrs = [0x10_0000, 0x10_0004, 0x10_2000, 0x10_0006, 0x10_1000];
        let write = |g: &mut GlobalMemory, size: u32, lanes: &[(u32, [u32; 4])]| {
            let mut r = Vec::new();
            let items = lanes
                .iter()
                .enumerate()
                .map(|(i, &(a, w))| (i as u32, a, w));
            g.write_lanes(size, items, |lane, addr, res| r.push((lane, addr, res)));
            r
        };
        let lanes: Vec<(u32, [u32; 4])> = (0..5)
            .map(|i| (addrs[i], [i as u32 + 1, 0, 0, 0]))
            .collect();
        let r = write(&mut g, 4, &lanes);
        assert_eq!(
            r,
            vec![
                (0, 0x10_0000, Ok(())),
                (1, 0x10_0004, Ok(())),
                (2, 0x10_2000, Err(FaultKind::OutOfBounds)),
                (3, 0x10_0006, Err(FaultKind::Misaligned)),
                (4, 0x10_1000, Ok(()))
            ]
        );
        assert_eq!(g.word(0x10_0004), Some(2));
        assert_eq!(g.word(0x10_1000), Some(5));
        assert_eq!(keep.word(0x10_1000), Some(0));
        // Two words a lane (8 bytes), and the low byte of one (1 byte).
        let r = write(
            &mut g,
            8,
            &[(0x10_0010, [7, 9, 0, 0]), (0x10_0018, [11, 13, 0, 0])],
        );
        assert_eq!(r, vec![(0, 0x10_0010, Ok(())), (1, 0x10_0018, Ok(()))]);
        let words: Vec<_> = (0..4).map(|i| g.word(0x10_0010 + 4 * i)).collect();
        assert_eq!(words, [Some(7), Some(9), Some(11), Some(13)]);
        let r = write(
            &mut g,
            1,
            &[
                (0x10_0021, [0x1234_56aa, 0, 0, 0]),
                (0x10_0023, [0xbb, 0, 0, 0]),
            ],
        );
        assert_eq!(r, vec![(0, 0x10_0021, Ok(())), (1, 0x10_0023, Ok(()))]);
        assert_eq!(g.word(0x10_0020), Some(0xbb00_aa00));
    }

    /// Some lanes of a run turned off: the counts from its ends
    /// (`Tally::of_sparse_run`, or lane by lane where they do not follow
    /// from them) are the ones `coalesce` makes over the lanes that are
    /// on, for every stride of a word up to 33 words either way, over 32
    /// and 64 lanes, with lanes off in five patterns, and with one lane
    /// that is on moved off the run.
    #[test]
    fn some_lanes_of_a_run_count_as_coalesce_counts_them() {
        let mut g = GlobalMemory::new(&[BufferSpec {
            name: "d".into(),
            ty: ElemType::U32,
            len: 8192,
            base: 0x10_0000,
            init: vec![0; 32768],
        }]);
        let holes = [
            0x5555_5555_5555_5555u64,
            0x9249_2492_4924_9249,
            0x0f0f_00ff_f0f0_ff01,
            0x8000_0000_0000_0001,
            0x7fff_ffff_ffff_fffe,
        ];
        for lanes in [32u32, 64] {
            for stride in (-33i64..=33).filter(|&k| k != 0).map(|k| 4 * k) {
                let start = if stride < 0 { 0x10_4000 } else { 0x10_0000 };
                let mut a = [0u32; 64];
                for (l, x) in a.iter_mut().enumerate().take(lanes as usize) {
                    *x = (start + stride * l as i64) as u32;
                }
                for h in holes {
                    let on = h & lane_mask_of(lanes);
                    // As they are, then with the last lane on, or the
                    // second, 4 KiB off the run: no run then.
                    let second = (on & (on - 1)).trailing_zeros() as usize;
                    let last = 63 - on.leading_zeros() as usize;
                    for moved in [None, Some(last), Some(second).filter(|&l| l < 64)] {
                        let mut a = a;
                        if let Some(l) = moved {
                            a[l] += 4096;
                        }
                        let mut accesses: Vec<(u32, u32)> = (0..64)
                            .filter(|l| on >> l & 1 != 0)
                            .map(|l| (a[l], 4))
                            .collect();
                        let want = coalesce(&mut accesses);
                        let c = g.load_one_buffer(4, &a, on, |_, _| {});
                        let case = format!("{lanes} lanes, stride {stride}, on {on:#x}, {moved:?}");
                        assert_eq!(c, Some(want), "{case}");
                    }
                }
            }
        }
        // Worked by hand, `(bytes between lanes, lanes on, sectors,
        // lines, bytes)` from 0x10_0000: every other lane of 64, 20 bytes
        // apart, reads words 40 bytes apart: sectors floor(5j / 4) for
        // j = 0..31, 32 of them (past 31 sectors from the first), and
        // lines 0 to 9 (40 * 31 = 1240 bytes). The odd lanes of 32
        // reading consecutive words (a guard on half a warp): words 8
        // bytes apart from byte 4 to byte 124, 4 sectors in 1 line.
        for (step, on, sectors, lines, requested_bytes) in [
            (20, 0x5555_5555_5555_5555, 32, 10, 128),
            (4, 0xaaaa_aaaa, 4, 1, 64),
        ] {
            let mut a = [0u32; 64];
            for (l, x) in a.iter_mut().enumerate() {
                *x = 0x10_0000 + step * l as u32;
            }
            let c = g.load_one_buffer(4, &a, on, |_, _| {});
            let want = Coalescing {
                sectors,
                lines,
                requested_bytes,
            };
            assert_eq!(c, Some(want), "step {step}");
        }
    }

    #[test]
    fn lanes_in_one_buffer_store_and_load_at_once() {
        let mut g = zero_pages();
        let keep = g.clone();
        let mut a = [0u32; 64];
        // Lanes 0..32 store consecutive words across a page boundary at
        // 0x10_1000: 128 bytes from 0x10_0fc0 (sector-aligned, half-way
        // through a line), 4 sectors in 2 lines.
        for (l, x) in a.iter_mut().enumerate().take(32) {
            *x = 0x10_0fc0 + 4 * l as u32;
        }
        let full = u64::from(u32::MAX);
        let words = |l: usize, d: &mut [u8]| put_words(d, &[100 + l as u32, 0, 0, 0]);
        let c = g.store_one_buffer(4, &a, full, words);
        let want = Coalescing {
            sectors: 4,
            lines: 2,
            requested_bytes: 128,
        };
        assert_eq!(c, Some(want));
        assert_eq!(g.word(0x10_0fc0), Some(100));
        assert_eq!(g.word(0x10_1000), Some(116));
        assert_eq!(g.word(0x10_103c), Some(131));
        assert_eq!(keep.word(0x10_1000), Some(0));
        let mut got = Vec::new();
        let c = g.load_one_buffer(4, &a, 0b1000_0000_0000_0000_0101, |l, b| {
            got.push((l, u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        });
        // Lanes 0, 2 and 19: 0x10_0fc0, 0x10_0fc8 (one sector), 0x10_100c
        // (the next line).
        assert_eq!(
            c,
            Some(Coalescing {
                sectors: 2,
                lines: 2,
                requested_bytes: 12
            })
        );
        assert_eq!(got, vec![(0, 100), (2, 102), (19, 119)]);
        // Lanes repeating an address count its bytes once.
        let mut r = [0u32; 64];
        r[..4].copy_from_slice(&[0x10_0000, 0x10_0000, 0x10_0040, 0x10_0040]);
        let c = g.load_one_buffer(4, &r, 0xf, |_, _| {});
        let want = Coalescing {
            sectors: 2,
            lines: 1,
            requested_bytes: 8,
        };
        assert_eq!(c, Some(want));
        // Misaligned, or leaving the buffer: not at once, and nothing
        // written.
        for bad in [[0x10_0000, 0x10_0006], [0x10_1ffc, 0x10_2000]] {
            let mut r = [0u32; 64];
            r[..2].copy_from_slice(&bad);
            assert_eq!(g.store_one_buffer(4, &r, 0b11, |_, d| d.fill(9)), None);
        }
        for addr in [0x10_0000, 0x10_0004, 0x10_1ffc] {
            assert_eq!(g.word(addr), Some(0));
        }
        // Out of address order, across both pages and back, with lane 3
        // storing lane 0's address after it: at once, in lane order (lane
        // 3's word wins), counted as `coalesce` counts the lanes sorted
        // (by hand: 0x10_0000 and 0x10_0004 share a sector; 0x10_0040
        // is a second sector of line 0x10_0000; 0x10_1000 a third sector
        // and second line; 4 distinct words, 16 bytes).
        let mut r = [0u32; 64];
        r[..4].copy_from_slice(&[0x10_0004, 0x10_1000, 0x10_0040, 0x10_0004]);
        r[4] = 0x10_0000;
        let c = g.store_one_buffer(4, &r, 0b1_1111, |l, d| {
            put_words(d, &[10 + l as u32, 0, 0, 0])
        });
        let want = Coalescing {
            sectors: 3,
            lines: 2,
            requested_bytes: 16,
        };
        assert_eq!(c, Some(want));
        let mut accesses: Vec<(u32, u32)> = r[..5].iter().map(|&a| (a, 4)).collect();
        assert_eq!(coalesce(&mut accesses), want);
        assert_eq!(g.word(0x10_0004), Some(13));
        assert_eq!(g.word(0x10_1000), Some(11));
        assert_eq!(g.word(0x10_0040), Some(12));
        assert_eq!(g.word(0x10_0000), Some(14));
        let mut got = Vec::new();
        let c = g.load_one_buffer(4, &r, 0b1_0110, |l, b| {
            got.push((l, u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        });
        // Lanes 1, 2, 4: three sectors, two lines, 12 bytes.
        let want = Coalescing {
            sectors: 3,
            lines: 2,
            requested_bytes: 12,
        };
        assert_eq!(c, Some(want));
        assert_eq!(got, vec![(1, 11), (2, 12), (4, 14)]);
    }

    #[test]
    fn faults_and_copy_on_write_pages() {
        let spec = BufferSpec {
            name: "data".into(),
            ty: ElemType::U32,
            len: 2048,
            base: 0x10_0000,
            init: (0..2048u32).flat_map(|i| i.to_le_bytes()).collect(),
        };
        let mut g = GlobalMemory::new(&[spec]);
        let snapshot = g.clone();
        assert_eq!(g.word(0x10_0000 + 4 * 1500), Some(1500));
        g.write(0x10_0000 + 4 * 1500, &7u32.to_le_bytes()).unwrap();
        assert_eq!(g.word(0x10_0000 + 4 * 1500), Some(7));
        assert_eq!(snapshot.word(0x10_0000 + 4 * 1500), Some(1500));
        let mut b = [0u8; 4];
        assert_eq!(
            g.read(0x10_0000 + 8192, &mut b),
            Err(FaultKind::OutOfBounds)
        );
        assert_eq!(g.read(0x10_0002, &mut b), Err(FaultKind::Misaligned));
        assert_eq!(g.read(0x0, &mut b), Err(FaultKind::OutOfBounds));
        let mut s = SharedMemory::new(64);
        assert_eq!(s.write(64, &[0; 4]), Err(FaultKind::SharedOutOfBounds));
        s.write(60, &9u32.to_le_bytes()).unwrap();
        s.read(60, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 9);
    }
}
