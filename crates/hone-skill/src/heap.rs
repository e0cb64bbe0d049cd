//! Handing the heap's freed memory back to the system.
//!
//! A process that lives for hours (the app, `hone serve`) builds large
//! structures in bursts: a library read and checked, every file scanned, a
//! ranker's indexes built on two threads. glibc keeps the pages those bursts
//! freed in each thread's arena for reuse, and reuses few of them: after
//! `hone serve` builds its retrieval index over 10,000 skills some 110 MB of
//! its 435 MB stay resident that way.

/// Hands the heap's free pages back to the system after a burst of work.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns unused heap pages; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}
