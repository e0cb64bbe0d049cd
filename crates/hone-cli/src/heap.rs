//! How a short command's heap is laid out: in large steps, on huge pages.
//!
//! A check of a large library allocates tens of MiB from several threads and
//! exits. With glibc's defaults each thread's heap grows a page at a time,
//! and every new page costs a fault: on the 1,821-skill corpus a first
//! `hone check` took 14,400 faults, some 14% of its CPU time. Two settings
//! cut that: heaps grow in large steps (one system call, not hundreds), and
//! the kernel may back them with 2 MiB pages (its "madvise" mode for
//! transparent huge pages, the default on Debian and Ubuntu). The second
//! left 3,300 faults and took 9% off that check's wall time, for 3 MiB more
//! at its peak and 5 MiB more at a second check's (57.7 MiB: each heap's
//! last huge page is whole however little of it is used). glibc has a
//! tunable for it (`glibc.malloc.hugetlb`), but only in the environment of
//! a starting process, so each worker thread advises its own heap instead.
//!
//! A server keeps glibc's defaults: it runs for hours, and small steps hand
//! freed memory back sooner.

/// Sets up the heap, and the worker threads that fill it, for a command
/// that runs for seconds. Call before any other thread starts.
pub fn tune_for_short_run() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Each heap grows by 64 MiB of address space at a time; memory is
        // still only used as it is touched, and glibc keeps up to one step
        // of freed memory before it hands memory back.
        const HEAP_STEP: libc::c_int = 64 << 20;
        // SAFETY: `mallopt` only sets a tunable, and no other thread has started.
        unsafe { libc::mallopt(libc::M_TOP_PAD, HEAP_STEP) };
        // Workers allocate from heaps of their own, each one mapping.
        // Failing to build the pool here only means the default one, unadvised.
        let _ = rayon::ThreadPoolBuilder::new()
            .start_handler(|_| advise_huge_pages_for_own_heap())
            .build_global();
    }
}

/// Marks the mapping that holds this thread's heap as one the kernel may back
/// with huge pages. Where the kernel has no such pages, or the mapping
/// cannot be found, nothing changes.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn advise_huge_pages_for_own_heap() {
    let address = own_heap_address();
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return;
    };
    if let Some((start, end)) = mapping_containing(&maps, address) {
        // SAFETY: the advice only changes how the kernel backs pages of an
        // existing mapping, never their contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
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

    /// A fresh thread's heap is its own mapping, and after the advice the
    /// kernel lists that mapping as one for huge pages (`hg` in its flags).
    #[test]
    fn a_worker_heap_is_advised_for_huge_pages() {
        std::thread::spawn(|| {
            advise_huge_pages_for_own_heap();
            let address = own_heap_address();
            let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
            let mut in_heap = false;
            let flags = smaps.lines().find_map(|line| {
                if mapping_containing(line, address).is_some() {
                    assert!(!line.ends_with("[heap]"), "a heap of its own: {line}");
                    in_heap = true;
                } else if in_heap {
                    return line.strip_prefix("VmFlags:");
                }
                None
            });
            let flags = flags.expect("the heap's flags");
            assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
        })
        .join()
        .unwrap();
    }
}
