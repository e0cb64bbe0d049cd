//! Running an agent client as a child process: each run in a process group
//! of its own, so that stopping it (the pick is known, the timeout passed,
//! the user cancelled) stops the commands it started too.

use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{AgentError, Cancel};

/// Starts `command` in a process group of its own.
pub(super) fn own_group(command: &mut Command) {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    #[cfg(not(unix))]
    let _ = command;
}

/// Kills `child` and every process of its group.
pub(super) fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
}

/// Kills the process past the timeout or on cancellation.
pub(super) struct Watchdog {
    done: Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Option<AgentError>>,
}

impl Watchdog {
    pub(super) fn start(child: Arc<Mutex<Child>>, timeout: Duration, cancel: Cancel) -> Watchdog {
        use std::sync::atomic::{AtomicBool, Ordering};
        let done = Arc::new(AtomicBool::new(false));
        let finished = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            while !finished.load(Ordering::Acquire) {
                let reason = if cancel.is_cancelled() {
                    Some(AgentError::Cancelled)
                } else if started.elapsed() >= timeout {
                    Some(AgentError::Timeout)
                } else {
                    None
                };
                if let Some(reason) = reason {
                    kill_group(&mut child.lock().unwrap_or_else(|p| p.into_inner()));
                    return Some(reason);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            None
        });
        Watchdog { done, thread }
    }

    pub(super) fn stop(self) -> Option<AgentError> {
        self.done.store(true, std::sync::atomic::Ordering::Release);
        self.thread.join().unwrap_or(None)
    }
}
