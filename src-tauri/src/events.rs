//! What the app pushes to the window on its channel, unasked: library
//! changes (from the watcher or the app's own folder operations), a close
//! request, and the progress of long tasks.

use serde::Serialize;

use crate::views::LibraryChanged;

/// Messages the app pushes to the window on its channel.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum AppEvent {
    LibraryChanged(LibraryChanged),
    /// The user asked to close the window while it had unsaved edits.
    CloseRequested,
    /// How far a long task has come (embedding a library, an eval run, an export).
    Progress(Progress),
    /// A benchmark's run finished (`hone_core::bench::Progress`).
    BenchProgress(hone_core::bench::Progress),
    /// The model installation's next step, in words.
    ModelInstall(String),
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Progress {
    /// `embedding`, `eval`, `export` or `agent`.
    pub task: &'static str,
    pub done: u64,
    pub total: u64,
}
