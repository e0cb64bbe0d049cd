//! A cancellation flag shared by a long run and whoever may stop it (the
//! app's Cancel button, a command's Ctrl-C): a capture of a real client, an
//! agent's eval, a benchmark.
//!
//! It imports nothing from the crate, so the long work of every layer can
//! take it (it was the agent's, and the client captures below the agents
//! needed it).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A cancellation flag shared by a run and whoever may stop it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// Sleeps `duration` unless cancelled first; returns whether it slept it all.
    pub fn sleep(&self, duration: Duration) -> bool {
        let until = Instant::now() + duration;
        loop {
            if self.is_cancelled() {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            std::thread::sleep((until - now).min(Duration::from_millis(25)));
        }
    }
}
