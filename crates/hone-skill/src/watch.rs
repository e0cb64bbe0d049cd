//! Watching a library's folders for changes made on disk.
//!
//! The app (to reload the window) and `hone serve` (to tell its clients)
//! both need the same thing: every burst of file events folded into one
//! batch of changed paths, without the events that are not changes. Editors
//! save in many ways (write in place, write a temporary file and rename it
//! over, delete and recreate) and a `git checkout` touches hundreds of files
//! at once; a debouncer folds each burst. Reads are not changes: re-reading
//! the library after a change opens every file in it, and counting those
//! opens would re-read it forever. Hone's own temporary files
//! ([`crate::workspace::write_atomic`]) and version-control internals never
//! change what a library holds.
//!
//! Both users re-read the whole library after a batch, so renames need no
//! file-id cache, whose start-up walk stats every file of a large library.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, NoCache, new_debouncer_opt};

use crate::workspace::is_temporary;

/// Long enough to fold an editor's write-rename-chmod burst, short enough
/// that a change is seen well within a second.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

pub use notify::Error;

/// Watches library roots for as long as it lives.
pub struct LibraryWatcher {
    _debouncer: Debouncer<RecommendedWatcher, NoCache>,
}

impl LibraryWatcher {
    /// Watches `roots` recursively; `on_change` runs on the watcher's thread
    /// with each batch's changed paths, sorted, never empty.
    pub fn start<'a>(
        roots: impl IntoIterator<Item = &'a Path>,
        mut on_change: impl FnMut(Vec<PathBuf>) + Send + 'static,
    ) -> notify::Result<LibraryWatcher> {
        let handler = move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            let mut changed: Vec<PathBuf> = events
                .iter()
                .filter(|event| is_change(&event.kind))
                .flat_map(|event| event.paths.iter())
                .filter(|path| is_relevant(path))
                .cloned()
                .collect();
            changed.sort();
            changed.dedup();
            if !changed.is_empty() {
                on_change(changed);
            }
        };
        let mut debouncer = new_debouncer_opt::<_, RecommendedWatcher, NoCache>(
            DEBOUNCE,
            None,
            handler,
            NoCache,
            notify::Config::default(),
        )?;
        for root in roots {
            debouncer.watch(root, RecursiveMode::Recursive)?;
        }
        Ok(LibraryWatcher {
            _debouncer: debouncer,
        })
    }
}

/// Whether an event reports a change: opening and closing a file to read it
/// does not.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// Whether a changed path can change the library: not Hone's own temporary
/// files, nor version-control internals.
fn is_relevant(path: &Path) -> bool {
    !is_temporary(path) && !path.components().any(|c| c.as_os_str() == ".git")
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, ModifyKind, RemoveKind};
    use std::sync::mpsc;

    #[test]
    fn reads_are_not_changes() {
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

    /// A save through `write_atomic` arrives as one batch naming the file,
    /// and never its temporary sibling.
    #[test]
    fn a_save_arrives_as_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("pdf")).unwrap();
        let (sender, batches) = mpsc::channel();
        let _watcher = LibraryWatcher::start([root.as_path()], move |changed| {
            let _ = sender.send(changed);
        })
        .unwrap();
        let file = root.join("pdf/SKILL.md");
        crate::workspace::write_atomic(&file, b"---\nname: pdf\n---\n").unwrap();
        // Generous: the machine may be loaded. No timing is asserted.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        while !seen.contains(&file) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let batch = batches.recv_timeout(left).expect("a batch for the save");
            assert!(batch.iter().all(|p| !is_temporary(p)), "{batch:?}");
            seen.extend(batch);
        }
    }
}
