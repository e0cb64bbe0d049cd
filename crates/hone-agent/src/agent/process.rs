//! Running an agent client as a child process: each run in a process group
//! of its own, so that stopping it (the pick is known, the timeout passed,
//! the user cancelled) stops the commands it started too.

use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::AgentError;
use crate::cancel::Cancel;
use crate::clients::capture::{kill_group, own_group};

/// The most of a client's standard error kept to explain a failed run.
const STDERR_KEPT: u64 = 64 * 1024;

/// A client started in its own process group with the request on its
/// standard input, its standard error collected aside, and a watchdog that
/// kills it past the timeout or on cancellation.
pub(super) struct Running {
    child: Arc<Mutex<Child>>,
    stderr: JoinHandle<String>,
    watchdog: Watchdog,
}

impl Running {
    /// Starts `command` with `request` on its standard input; `cannot_run`
    /// words the error when the program cannot be started. The client's
    /// standard output is returned to be read as it comes.
    pub(super) fn start(
        command: &mut Command,
        request: &str,
        timeout: Duration,
        cancel: &Cancel,
        cannot_run: impl FnOnce(std::io::Error) -> AgentError,
    ) -> Result<(Running, ChildStdout), AgentError> {
        own_group(command);
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(cannot_run)?;
        if let Some(mut stdin) = child.stdin.take() {
            // A closed pipe means the process is already gone; its exit says why.
            let _ = stdin.write_all(request.as_bytes());
        }
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = BufReader::new(stderr)
                .take(STDERR_KEPT)
                .read_to_string(&mut text);
            text
        });
        let child = Arc::new(Mutex::new(child));
        let watchdog = Watchdog::start(Arc::clone(&child), timeout, cancel.clone());
        Ok((
            Running {
                child,
                stderr,
                watchdog,
            },
            stdout,
        ))
    }

    /// Stops the client and what it started: the pick is known.
    pub(super) fn stop(&self) {
        kill_group(&mut self.child.lock().unwrap_or_else(|p| p.into_inner()));
    }

    /// Waits for the client to end: its exit status and standard error, or
    /// the watchdog's reason when it was killed for the timeout or a cancel.
    pub(super) fn finish(self) -> Result<(ExitStatus, String), AgentError> {
        // Poll rather than wait under the lock, so the watchdog can still kill.
        let status = loop {
            match self
                .child
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .try_wait()
            {
                Ok(Some(status)) => break Ok(status),
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => break Err(e),
            }
        };
        let reason = self.watchdog.stop();
        let stderr = self.stderr.join().unwrap_or_default();
        if let Some(reason) = reason {
            return Err(reason);
        }
        let status = status.map_err(|e| AgentError::Process(e.to_string()))?;
        Ok((status, stderr))
    }
}

/// Kills the process past the timeout or on cancellation.
struct Watchdog {
    done: Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Option<AgentError>>,
}

impl Watchdog {
    fn start(child: Arc<Mutex<Child>>, timeout: Duration, cancel: Cancel) -> Watchdog {
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

    fn stop(self) -> Option<AgentError> {
        self.done.store(true, std::sync::atomic::Ordering::Release);
        self.thread.join().unwrap_or(None)
    }
}
