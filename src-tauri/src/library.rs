//! Commands about the opened library: opening it (the startup library early,
//! on a thread of its own), watching and re-reading it, and the folder
//! operations on its skills.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hone_core::folder::SKILL_FILE;
use hone_core::watch::LibraryWatcher;
use hone_core::workspace;
use tauri::{AppHandle, Manager, State};

use crate::commands::{CommandError, CommandResult, blocking, lock};
use crate::engine;
use crate::events::AppEvent;
use crate::session::{Session, display};
use crate::settings::Settings;
use crate::state::AppState;
use crate::views::{LibraryChanged, LibraryCosts, Startup};

/// The library opened at start: the first argument, `$HONE_LIBRARY`, the last
/// library opened, or the bundled `skills/` folder, in that order.
pub(crate) fn startup_library(settings: &Settings) -> PathBuf {
    let from_args = std::env::args_os().nth(1).map(PathBuf::from);
    let from_env = std::env::var_os("HONE_LIBRARY").map(PathBuf::from);
    let last = settings
        .recent
        .first()
        .map(PathBuf::from)
        .filter(|p| p.is_dir());
    from_args
        .or(from_env)
        .or(last)
        .unwrap_or_else(bundled_library)
}

fn bundled_library() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("skills")
}

fn open_and_watch(app: &AppHandle, project: &Path, user: Option<&Path>) -> CommandResult<Startup> {
    watch_session(app, Session::open(project, user)?)
}

/// Makes `session` the opened library: remembered, checked in the
/// background and watched for changes.
fn watch_session(app: &AppHandle, session: Session) -> CommandResult<Startup> {
    let state = app.state::<AppState>();
    state.run_switch_hooks(app);
    state.preferences.remember(&session);
    let session = state.replace_session(session);
    check_in_background(app, session.clone());
    // Changes made on disk by other programs reach the window: the library
    // is re-read and the window told which paths changed, so it can reload
    // the open skill or, if that has unsaved edits, ask.
    let watched = app.clone();
    let watcher = LibraryWatcher::start(session.roots(), move |changed| {
        let changed = changed.iter().map(|path| display(path)).collect();
        if let Err(e) = refresh(&watched, changed) {
            eprintln!("hone: cannot re-read the library: {e}");
        }
    });
    if let Err(e) = &watcher {
        eprintln!("hone: live reload is off: {e}");
    }
    *lock(&state.library.watcher) = watcher.ok();
    Ok(state.startup_view(&session))
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn startup(app: AppHandle) -> CommandResult<Startup> {
    blocking(move || {
        let state = app.state::<AppState>();
        let session = state.session();
        if session.project_root().is_some() {
            return Ok(state.startup_view(&session));
        }
        let opening = lock(&state.library.early).take();
        let session = match opening.map(std::thread::JoinHandle::join) {
            Some(Ok(opened)) => opened?,
            // Not started (or it panicked): open here.
            _ => {
                let (project, user) = state.preferences.startup_roots();
                Session::open(&project, user.as_deref())?
            }
        };
        let view = watch_session(&app, session)?;
        eprintln!(
            "hone: opened {} skills in {} ms ({} ms after start)",
            view.library.skills.len(),
            view.library.load_ms,
            state.window.started.elapsed().as_millis()
        );
        Ok(view)
    })
    .await
}

/// Opens `path` as the library, with `user` as the lower-priority user-level
/// skills folder (`None` keeps none).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn open_library(
    app: AppHandle,
    path: String,
    user: Option<String>,
) -> CommandResult<Startup> {
    blocking(move || open_and_watch(&app, Path::new(&path), user.as_deref().map(Path::new))).await
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn forget_recent(state: State<'_, AppState>, path: String) -> Vec<String> {
    state.preferences.forget(&path)
}

/// Checks the library off the command's thread and sends the counts, so a
/// large library is listed at once and its findings follow.
fn check_in_background(app: &AppHandle, session: Arc<Session>) {
    let app = app.clone();
    std::thread::spawn(move || {
        session.check();
        hone_core::heap::release_freed_memory();
        let state = app.state::<AppState>();
        // A newer session (the library changed meanwhile) sends its own view.
        if Arc::ptr_eq(&state.session(), &session) {
            state.send(AppEvent::LibraryChanged(LibraryChanged {
                library: session.view(),
                changed: Vec::new(),
            }));
        }
    });
}

/// Re-reads the library and tells the window what changed: after a change on
/// disk, and after this app's own folder operations (so the list is current
/// before the watcher reports them).
pub(crate) fn refresh(app: &AppHandle, changed: Vec<String>) -> CommandResult<()> {
    let state = app.state::<AppState>();
    let session = state.session().reopen()?;
    session.check();
    let session = state.replace_session(session);
    state.send(AppEvent::LibraryChanged(LibraryChanged {
        library: session.view(),
        changed,
    }));
    Ok(())
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn create_skill(app: AppHandle, root: String, name: String) -> CommandResult<String> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let root = session.confine(&root)?;
        if !session.roots().any(|r| r == root) {
            return Err("new skills go directly into an opened library folder".into());
        }
        let file = workspace::create_skill(&root, &name).map_err(|e| e.to_string())?;
        refresh(&app, vec![display(&file)])?;
        Ok(display(&file))
    })
    .await
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn rename_skill(app: AppHandle, dir: String, name: String) -> CommandResult<String> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let dir = skill_dir(&session, &dir)?;
        let renamed = workspace::rename_skill(&dir, &name).map_err(|e| e.to_string())?;
        let file = renamed.join(SKILL_FILE);
        refresh(&app, vec![display(&dir.join(SKILL_FILE)), display(&file)])?;
        Ok(display(&file))
    })
    .await
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn delete_skill(app: AppHandle, dir: String) -> CommandResult<()> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let dir = skill_dir(&session, &dir)?;
        std::fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;
        refresh(&app, vec![display(&dir.join(SKILL_FILE))])
    })
    .await
}

/// A confined skill folder that is not a library root (which must never be
/// renamed or deleted as if it were a skill).
fn skill_dir(session: &Session, dir: &str) -> CommandResult<PathBuf> {
    let dir = session.confine(dir)?;
    if session.roots().any(|root| root == dir) || !dir.join(SKILL_FILE).is_file() {
        return Err(CommandError::invalid(format!(
            "{} is not a skill folder",
            dir.display()
        )));
    }
    Ok(dir)
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn library_costs(
    app: AppHandle,
    tokenizer: String,
    model: Option<String>,
) -> CommandResult<LibraryCosts> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        engine::library_costs(session.library(), &tokenizer, model.as_deref())
            .map_err(CommandError::from)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_library_exists() {
        assert!(
            bundled_library()
                .join("git-commit-messages")
                .join(SKILL_FILE)
                .is_file()
        );
    }
}
