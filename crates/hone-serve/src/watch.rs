//! Live: changes on disk reach clients as list-changed notifications.
//!
//! A debouncer folds each burst of file events (an editor's write-rename, a
//! `git checkout`) into one batch; the library is then re-read once, the
//! ranker updated with the skills that changed, and every connected client
//! told `notifications/resources/list_changed` (and `prompts/list_changed`
//! when a user-invocable skill changed). Reads are not changes: the server
//! opening files to answer requests must not trigger reloads.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, NoCache, new_debouncer_opt};

use crate::engine::Engine;
use crate::handler::Clients;

/// Long enough to fold an editor's burst, short enough that clients hear of
/// a change well within a second.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// Watches the library for as long as it lives.
pub struct LibraryWatcher {
    _debouncer: Debouncer<RecommendedWatcher, NoCache>,
}

impl LibraryWatcher {
    /// Starts watching `roots`; reloads run on the debouncer's thread and
    /// notifications on `runtime`.
    pub fn start(
        engine: Arc<Engine>,
        clients: Clients,
        runtime: tokio::runtime::Handle,
        roots: &[std::path::PathBuf],
        log: Arc<dyn Fn(&str) + Send + Sync>,
    ) -> notify::Result<LibraryWatcher> {
        // Every change re-reads the library, so renames need no file-id cache
        // (whose start-up walk stats every file of a large library).
        let handler = move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            let relevant = events
                .iter()
                .filter(|event| is_change(&event.kind))
                .flat_map(|event| event.paths.iter())
                .any(|path| is_relevant(path));
            if !relevant {
                return;
            }
            match engine.reload() {
                Ok(changes) if changes.skills > 0 => {
                    log(&format!(
                        "reloaded: {} skill(s) changed, {} ms",
                        changes.skills,
                        changes.elapsed.as_millis()
                    ));
                    let clients = clients.clone();
                    runtime.spawn(async move { clients.notify_changed(changes.prompts).await });
                }
                Ok(_) => {}
                Err(err) => log(&format!("cannot re-read the library: {err}")),
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

/// Whether an event reports a change (opening and closing files to read
/// them does not).
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// Version-control internals never change what is served.
fn is_relevant(path: &Path) -> bool {
    !path.components().any(|c| c.as_os_str() == ".git")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_git_internals_are_not_changes() {
        assert!(!is_change(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(!is_relevant(Path::new("/lib/.git/index")));
        assert!(is_relevant(Path::new("/lib/pdf/SKILL.md")));
    }
}
