//! Live: changes on disk reach clients as list-changed notifications.
//!
//! The library's watcher is the engine's (`hone_core::watch`, which the app
//! uses too): each burst of file events arrives as one batch; the library is
//! then re-read once, the ranker updated with the skills that changed, and
//! every connected client told `notifications/resources/list_changed` (and
//! `prompts/list_changed` when a user-invocable skill changed).

use std::path::PathBuf;
use std::sync::Arc;

use hone_core::watch;

use crate::engine::Engine;
use crate::handler::Clients;

/// Watches the library for as long as it lives.
pub struct LibraryWatcher {
    _watcher: watch::LibraryWatcher,
}

impl LibraryWatcher {
    /// Starts watching `roots`; reloads run on the watcher's thread and
    /// notifications on `runtime`.
    pub fn start(
        engine: Arc<Engine>,
        clients: Clients,
        runtime: tokio::runtime::Handle,
        roots: &[PathBuf],
        log: Arc<dyn Fn(&str) + Send + Sync>,
    ) -> Result<LibraryWatcher, watch::Error> {
        let watcher =
            watch::LibraryWatcher::start(roots.iter().map(PathBuf::as_path), move |_changed| {
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
            })?;
        Ok(LibraryWatcher { _watcher: watcher })
    }
}
