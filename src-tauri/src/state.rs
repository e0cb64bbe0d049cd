//! The app's state, one part per concern: the opened library, the window,
//! the user's preferences, the preview frame and the rankers. Each part has
//! its own locks, so a command about one concern never waits on another
//! (typing is not held up by a ranker being built), and a command module
//! names the part it works on.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use hone_core::skill::Skill;
use tauri::AppHandle;
use tauri::ipc::Channel;

use crate::commands::{CommandError, CommandResult, lock};
use crate::engine;
use crate::events::AppEvent;
use crate::routing::Routing;
use crate::session::{Session, display};
use crate::settings::{Settings, settings_file};
use crate::views::Startup;
use hone_core::watch::LibraryWatcher;

pub struct AppState {
    pub(crate) library: OpenedLibrary,
    pub(crate) window: WindowLink,
    pub(crate) preferences: Preferences,
    pub(crate) preview: PreviewFrame,
    pub(crate) ranking: Ranking,
}

/// The opened library and what is derived from it.
#[derive(Default)]
pub(crate) struct OpenedLibrary {
    session: Mutex<Arc<Session>>,
    /// The startup library, opened on a thread of its own as the app starts,
    /// while the window's web view boots (most of a second), so that the
    /// window's first request finds it ready.
    pub early: Mutex<Option<JoinHandle<CommandResult<Session>>>>,
    pub watcher: Mutex<Option<LibraryWatcher>>,
    /// Run before another library replaces the open one (what serves the
    /// old one stops), so this module need not know who holds it.
    switch_hooks: Mutex<Vec<SwitchHook>>,
    /// Token counts of each skill's resources, which live on disk and do not
    /// change as the author types; forgotten when the library is re-read.
    resource_tokens: Mutex<HashMap<PathBuf, Arc<HashMap<String, u64>>>>,
}

type SwitchHook = Box<dyn Fn(&AppHandle) + Send + Sync>;

/// What the app knows of its window.
pub(crate) struct WindowLink {
    /// The window's channel for library changes and close requests.
    pub events: Mutex<Option<Channel<AppEvent>>>,
    /// Whether the window holds unsaved edits (closing must then ask).
    pub dirty: AtomicBool,
    pub started: Instant,
    /// Milliseconds from process start until the window first became
    /// usable (library listed, first skill open and checked).
    pub ready_ms: Mutex<Option<u64>>,
}

/// The user's settings and the file they are kept in.
pub(crate) struct Preferences {
    pub settings: Mutex<Settings>,
    pub file: Option<PathBuf>,
}

/// The last rendered body, served to the preview frame, and how many renders
/// came before it (each gets a new address so the frame reloads).
#[derive(Default)]
pub(crate) struct PreviewFrame {
    pub html: Mutex<(u64, String)>,
}

/// Rankers for the test-query panel and eval runs.
#[derive(Default)]
pub(crate) struct Ranking {
    pub routing: Mutex<Routing>,
    /// Held while a ranker is built, so two requests never build the same one.
    pub build: Mutex<()>,
    /// The Cancel of the library's embedding in progress, if one is.
    pub embedding: crate::commands::TaskSlot,
}

impl AppState {
    pub fn new(config_dir: Option<PathBuf>, started: Instant) -> AppState {
        let file = settings_file(config_dir);
        let settings = file.as_deref().map(Settings::load).unwrap_or_default();
        AppState {
            library: OpenedLibrary::default(),
            window: WindowLink {
                events: Mutex::default(),
                dirty: AtomicBool::new(false),
                started,
                ready_ms: Mutex::default(),
            },
            preferences: Preferences {
                settings: Mutex::new(settings),
                file,
            },
            preview: PreviewFrame::default(),
            ranking: Ranking::default(),
        }
    }

    /// Starts opening the library the window will ask for first.
    pub fn open_early(&self) {
        let (project, user) = self.preferences.startup_roots();
        let opening = std::thread::spawn(move || {
            Session::open(&project, user.as_deref()).map_err(CommandError::from)
        });
        *lock(&self.library.early) = Some(opening);
    }

    /// Runs `hook` whenever a library is opened in place of another.
    pub fn on_library_switch(&self, hook: impl Fn(&AppHandle) + Send + Sync + 'static) {
        lock(&self.library.switch_hooks).push(Box::new(hook));
    }

    /// Runs the hooks registered with [`AppState::on_library_switch`].
    pub(crate) fn run_switch_hooks(&self, app: &AppHandle) {
        for hook in lock(&self.library.switch_hooks).iter() {
            hook(app);
        }
    }

    pub(crate) fn session(&self) -> Arc<Session> {
        lock(&self.library.session).clone()
    }

    pub fn replace_session(&self, session: Session) -> Arc<Session> {
        let session = Arc::new(session);
        lock(&self.library.resource_tokens).clear();
        *lock(&self.library.session) = session.clone();
        session
    }

    /// Tells the window, when one listens.
    pub fn send(&self, event: AppEvent) {
        if let Some(channel) = lock(&self.window.events).as_ref() {
            // A closed window cannot receive; nothing else to do then.
            let _ = channel.send(event);
        }
    }

    pub(crate) fn startup_view(&self, session: &Session) -> Startup {
        Startup {
            library: session.view(),
            recent: lock(&self.preferences.settings).recent.clone(),
            tokenizers: engine::tokenizers(),
            welcome: std::env::var_os("HONE_NO_FIRST_RUN").is_none(),
        }
    }
}

impl OpenedLibrary {
    /// The token counts of `skill`'s resources, counted once per library read.
    pub fn resource_tokens(&self, skill: &Skill) -> Arc<HashMap<String, u64>> {
        if let Some(known) = lock(&self.resource_tokens).get(&skill.dir) {
            return known.clone();
        }
        let counted = Arc::new(engine::resource_tokens(skill));
        lock(&self.resource_tokens).insert(skill.dir.clone(), counted.clone());
        counted
    }
}

impl Preferences {
    /// The library to open at start, and the user-level skills folder.
    pub fn startup_roots(&self) -> (PathBuf, Option<PathBuf>) {
        let settings = lock(&self.settings);
        let user = settings.user_root.clone().map(PathBuf::from);
        (
            crate::library::startup_library(&settings),
            user.filter(|p| p.is_dir()),
        )
    }

    /// Records `session`'s folders as the last opened.
    pub fn remember(&self, session: &Session) {
        let mut settings = lock(&self.settings);
        if let Some(root) = session.project_root() {
            settings.remember(&display(root));
        }
        settings.user_root = session.user_root().map(display);
        self.save(&settings);
    }

    /// Drops `path` from the recent libraries; answers those left.
    pub fn forget(&self, path: &str) -> Vec<String> {
        let mut settings = lock(&self.settings);
        settings.forget(path);
        self.save(&settings);
        settings.recent.clone()
    }

    fn save(&self, settings: &Settings) {
        if let Some(file) = &self.file
            && let Err(e) = settings.save(file)
        {
            eprintln!("hone: cannot save settings to {}: {e}", file.display());
        }
    }
}
