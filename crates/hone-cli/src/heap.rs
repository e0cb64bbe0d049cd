//! How a short command's heap grows: in large steps, filled ahead of use.
//!
//! A check of a large library allocates tens of MiB from the pool's worker
//! threads and exits, and every page it touches first costs a fault. On the
//! two-core virtual machine this project is measured on, a fault costs some
//! 3 µs: with glibc's defaults a first `hone check` of the 1,821-skill corpus
//! took 14,400 of them, some 14% of its CPU time. So:
//!
//! - each heap grows by 64 MiB of address space at a time (one system call,
//!   not hundreds; memory is still only used as it is written);
//! - each worker's heap is populated ahead of its use, a mebibyte at a time,
//!   by one `madvise(MADV_POPULATE_WRITE)` (Linux 5.14) instead of 256
//!   faults: the [`Allocator`] notes how far the heap has been handed out.
//!   At most a mebibyte per worker is populated and never used (steps start
//!   at 64 KiB and double, so a small command populates little).
//!
//! Backing the heaps with 2 MiB pages (`MADV_HUGEPAGE`), done here before,
//! cut faults further, and was faster when checks ran back to back. But a
//! 2 MiB page is one of the kernel's free blocks of that size, the blocks a
//! virtual machine with free page reporting hands back to its host when
//! idle: the first check after a pause of a few seconds, the usual case,
//! then waited on the host for every page it touched. Measured on the corpus
//! after 2.2 s idle (16 rounds, medians): 199.1 ms on huge pages, 149.4 ms
//! populated ahead, against skills-ref-rs's 140.8 ms.
//!
//! A server keeps glibc's defaults: it runs for hours, and small steps hand
//! freed memory back sooner.

use std::alloc::{GlobalAlloc, Layout, System};

/// The `hone` binary's allocator: the system's, which on a worker that
/// [`tune_for_short_run`] set up also populates the heap ahead of its use.
pub struct Allocator;

// SAFETY: every block comes from `System` and goes back to it unchanged;
// populating pages only makes the kernel back them sooner.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let block = unsafe { System.alloc(layout) };
        ahead::populate_to(block, layout.size());
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let block = unsafe { System.alloc_zeroed(layout) };
        ahead::populate_to(block, layout.size());
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(block, layout) }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let block = unsafe { System.realloc(block, layout, new_size) };
        ahead::populate_to(block, new_size);
        block
    }
}

/// Sets up the heap, and the worker threads that fill it, for a command
/// that runs for seconds. Call before any other thread starts.
pub fn tune_for_short_run() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const HEAP_STEP: libc::c_int = 64 << 20;
        // SAFETY: `mallopt` only sets a tunable, and no other thread has started.
        unsafe { libc::mallopt(libc::M_TOP_PAD, HEAP_STEP) };
        // Workers allocate from heaps of their own, each one mapping.
        // Failing to build the pool here only means the default one.
        let _ = rayon::ThreadPoolBuilder::new()
            .start_handler(|_| ahead::start_for_own_heap())
            .build_global();
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod ahead {
    use std::cell::Cell;

    use super::{mapping_containing, own_heap_address};

    /// Pages are populated as many bytes at a time as are populated
    /// already, doubling from the first step up to the largest: a small
    /// command populates little it will not use.
    const FIRST_STEP: usize = 64 << 10;
    const LARGEST_STEP: usize = 1 << 20;

    /// This thread's heap, when it is populated ahead: the mapping's start,
    /// how far it is populated, and its end.
    #[derive(Clone, Copy)]
    struct Heap {
        start: usize,
        populated: usize,
        end: usize,
    }

    thread_local! {
        // Constant, and without a destructor: reading it never allocates.
        static HEAP: Cell<Option<Heap>> = const { Cell::new(None) };
    }

    /// Populates this thread's heap ahead of its use from now on.
    pub fn start_for_own_heap() {
        let address = own_heap_address();
        let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
            return;
        };
        if let Some((start, end)) = mapping_containing(&maps, address) {
            HEAP.set(Some(Heap {
                start,
                populated: start,
                end,
            }));
        }
    }

    /// Populates this thread's heap up to past `size` bytes at `block`, when
    /// the block lies in it beyond what is populated. A block from elsewhere
    /// (another thread's heap, a mapping of its own) is left to faults.
    pub fn populate_to(block: *mut u8, size: usize) {
        let Some(heap) = HEAP.get() else {
            return;
        };
        let block_end = (block as usize).saturating_add(size);
        if block_end <= heap.populated || (block as usize) < heap.start || block_end > heap.end {
            return;
        }
        let step = (heap.populated - heap.start).clamp(FIRST_STEP, LARGEST_STEP);
        let to = block_end.next_multiple_of(step).min(heap.end);
        // SAFETY: the range lies in this heap's mapping, and populating pages
        // never changes their contents.
        let done = unsafe {
            libc::madvise(
                heap.populated as *mut libc::c_void,
                to - heap.populated,
                libc::MADV_POPULATE_WRITE,
            )
        } == 0;
        // A kernel without the advice, or memory it refuses: faults as before.
        HEAP.set(done.then_some(Heap {
            populated: to,
            ..heap
        }));
    }

    /// How far this thread's heap is populated, when it is populated ahead.
    #[cfg(test)]
    pub fn populated() -> Option<(usize, usize)> {
        HEAP.get().map(|heap| (heap.start, heap.populated))
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod ahead {
    pub fn populate_to(_: *mut u8, _: usize) {}
}

/// An address in the heap this thread allocates from: that of a fresh
/// allocation too large for glibc's per-thread cache of freed blocks, which
/// may come from other threads' heaps.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn own_heap_address() -> usize {
    let probe: Vec<u8> = Vec::with_capacity(4096);
    probe.as_ptr() as usize
}

/// The start and end of the mapping holding `address`, read from the lines
/// of `/proc/self/maps` (`start-end perms ...`, in hex).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn mapping_containing(maps: &str, address: usize) -> Option<(usize, usize)> {
    maps.lines().find_map(|line| {
        let (start, end) = line.split_whitespace().next()?.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        (start <= address && address < end).then_some((start, end))
    })
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    #[test]
    fn finds_the_mapping_holding_an_address() {
        let maps = "\
55f0a1785000-55f0a17c7000 rw-p 00000000 00:00 0                          [heap]
7faec0000000-7faec4000000 rw-p 00000000 00:00 0 
7ffd5e2c1000-7ffd5e2e2000 rw-p 00000000 00:00 0                          [stack]
";
        assert_eq!(
            mapping_containing(maps, 0x7fae_c123_4567),
            Some((0x7fae_c000_0000, 0x7fae_c400_0000))
        );
        assert_eq!(
            mapping_containing(maps, 0x55f0_a178_5000),
            Some((0x55f0_a178_5000, 0x55f0_a17c_7000))
        );
        // An end is outside its mapping; garbage lines are skipped.
        assert_eq!(mapping_containing(maps, 0x7fae_c400_0000), None);
        assert_eq!(mapping_containing("zz-yy rw-p\n\n", 1), None);
    }

    /// A worker's heap is its own mapping, and a block allocated in it is
    /// populated past its end before it is written.
    #[test]
    fn a_worker_heap_is_populated_ahead() {
        std::thread::spawn(|| {
            ahead::start_for_own_heap();
            let (start, _) = ahead::populated().expect("the heap is found");
            let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
            let heap_line = maps
                .lines()
                .find(|line| mapping_containing(line, start).is_some())
                .unwrap();
            assert!(
                !heap_line.ends_with("[heap]"),
                "a heap of its own: {heap_line}"
            );
            let block: Vec<u8> = Vec::with_capacity(100_000);
            let block_end = block.as_ptr() as usize + block.capacity();
            let (_, populated) =
                ahead::populated().expect("MADV_POPULATE_WRITE works (Linux 5.14 or later)");
            assert!(populated >= block_end, "{populated:x} < {block_end:x}");
        })
        .join()
        .unwrap();
    }
}
