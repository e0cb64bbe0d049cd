//! What every command module shares: the error type that crosses the
//! bridge, lock recovery and moving work off the command's thread. The
//! commands themselves live with their concern: [`crate::library`],
//! [`crate::editor`], [`crate::preview`], [`crate::window`], and the panel's
//! and packs' own modules; their state is [`crate::state::AppState`].
//!
//! Commands that can take long (opening a library, re-checking it) are async
//! and move their work to a blocking thread, so the window never stalls.
//! Errors cross the bridge as a typed [`CommandError`] (see [`crate::ipc`]).

use std::sync::{Mutex, MutexGuard};

use hone_core::cancel::Cancel;

pub(crate) use crate::editor::skill_with_text;
pub(crate) use crate::library::refresh;
pub(crate) use crate::state::AppState;

pub(crate) use crate::ipc::CommandError;

pub(crate) type CommandResult<T> = Result<T, CommandError>;

/// A poisoned lock only means another command panicked; the data is still usable.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The Cancel of a long task in progress (a benchmark, a capture, an
/// install, an agent run, an embedding), so that a command can stop it.
#[derive(Default)]
pub(crate) struct TaskSlot(Mutex<Option<Cancel>>);

/// A task holding its [`TaskSlot`]: the slot is freed when it is dropped,
/// whichever way the task ends.
pub(crate) struct HeldTask<'a> {
    slot: &'a TaskSlot,
    pub cancel: Cancel,
}

impl TaskSlot {
    /// Takes the slot for a new task; `None` while another holds it.
    pub(crate) fn start(&self) -> Option<HeldTask<'_>> {
        let mut running = lock(&self.0);
        if running.is_some() {
            return None;
        }
        Some(self.put(&mut running))
    }

    /// Takes the slot for a new task whatever holds it: the newest task is
    /// the one Cancel stops.
    pub(crate) fn hold(&self) -> HeldTask<'_> {
        self.put(&mut lock(&self.0))
    }

    fn put(&self, running: &mut Option<Cancel>) -> HeldTask<'_> {
        let cancel = Cancel::new();
        *running = Some(cancel.clone());
        HeldTask { slot: self, cancel }
    }

    /// Stops the task in progress; whether there was one.
    pub(crate) fn cancel(&self) -> bool {
        match lock(&self.0).as_ref() {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }
}

impl Drop for HeldTask<'_> {
    fn drop(&mut self) {
        *lock(&self.slot.0) = None;
    }
}

/// Runs `work` on a blocking thread, off the command's.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> CommandResult<T> + Send + 'static,
) -> CommandResult<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| CommandError::from(e.to_string()))?
}

#[cfg(test)]
mod tests {
    use super::TaskSlot;

    #[test]
    fn a_task_slot_holds_one_task_and_frees_itself_when_the_task_ends() {
        let slot = TaskSlot::default();
        assert!(!slot.cancel(), "nothing to stop");
        let task = slot.start().expect("a free slot");
        assert!(slot.start().is_none(), "a second task waits for the first");
        assert!(slot.cancel());
        assert!(task.cancel.is_cancelled());
        drop(task);
        assert!(!slot.cancel(), "freed when the task ended");

        // `hold` takes the slot over: Cancel stops the newest task.
        let first = slot.hold();
        let second = slot.hold();
        assert!(slot.cancel());
        assert!(second.cancel.is_cancelled() && !first.cancel.is_cancelled());
    }
}
