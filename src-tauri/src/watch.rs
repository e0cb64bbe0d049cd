//! Live reload: changes made on disk by other programs reach the window.
//!
//! Editors save in many ways (write in place, write a temporary file and
//! rename it over the original, delete and recreate), and a `git checkout`
//! touches hundreds of files at once. The debouncer folds each burst into one
//! batch; the library is then re-read once and the window told which paths
//! changed, so it can reload the open skill or, if that skill has unsaved
//! edits, ask the user. The app's own temporary files are ignored.

use std::path::Path;
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use serde::Serialize;
use tauri::AppHandle;

use crate::commands::refresh;
use crate::session::display;
use crate::views::LibraryChanged;

/// Long enough to fold an editor's write-rename-chmod burst, short enough
/// that a change shows well within a second.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// Messages the app pushes to the window on its channel.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", content = "data", rename_all = "camelCase")]
pub enum AppEvent {
    LibraryChanged(LibraryChanged),
    /// The user asked to close the window while it had unsaved edits.
    CloseRequested,
    /// How far a long task has come (embedding a library, an eval run, an export).
    Progress(Progress),
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// `embedding`, `eval` or `export`.
    pub task: &'static str,
    pub done: u64,
    pub total: u64,
}

/// Watches the library roots for as long as it lives.
pub struct LibraryWatcher {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
}

impl LibraryWatcher {
    pub fn start<'a>(
        app: AppHandle,
        roots: impl Iterator<Item = &'a Path>,
    ) -> notify::Result<LibraryWatcher> {
        let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            let mut changed: Vec<String> = events
                .iter()
                .filter(|event| is_change(&event.kind))
                .flat_map(|event| event.paths.iter())
                .filter(|path| is_relevant(path))
                .map(|path| display(path))
                .collect();
            changed.sort();
            changed.dedup();
            if !changed.is_empty()
                && let Err(e) = refresh(&app, changed)
            {
                eprintln!("hone: cannot re-read the library: {e}");
            }
        })?;
        for root in roots {
            debouncer.watch(root, RecursiveMode::Recursive)?;
        }
        Ok(LibraryWatcher {
            _debouncer: debouncer,
        })
    }
}

/// Whether an event reports a change. The watcher also reports files being
/// opened and closed: reading the library again after a change opens every
/// file in it, and counting those reads as changes would re-read it forever.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// Whether a changed path can affect what the window shows: not the app's own
/// temporary files, nor version-control internals.
fn is_relevant(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let temporary = name.starts_with('.') && name.ends_with(".tmp") && name.contains(".hone-");
    let in_vcs = path.components().any(|c| c.as_os_str() == ".git");
    !temporary && !in_vcs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_not_changes() {
        use notify::event::{CreateKind, ModifyKind, RemoveKind};
        assert!(!is_change(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(is_change(&EventKind::Create(CreateKind::File)));
        assert!(is_change(&EventKind::Modify(ModifyKind::Any)));
        assert!(is_change(&EventKind::Remove(RemoveKind::Any)));
    }

    #[test]
    fn own_temporary_files_and_git_internals_are_ignored() {
        assert!(is_relevant(Path::new("/lib/pdf/SKILL.md")));
        assert!(!is_relevant(Path::new("/lib/pdf/.SKILL.md.hone-12-0.tmp")));
        assert!(!is_relevant(Path::new("/lib/.git/index")));
    }
}
