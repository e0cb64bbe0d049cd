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

/// Runs `work` on a blocking thread, off the command's.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> CommandResult<T> + Send + 'static,
) -> CommandResult<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| CommandError::from(e.to_string()))?
}
