//! The IPC commands: confine, call the engine, return views.
//!
//! Commands that can take long (opening a library, re-checking it) are async
//! and move their work to a blocking thread, so the window never stalls.
//! Errors cross the bridge as plain strings the window shows as they are.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use hone_core::diagnostic::Fix;
use hone_core::edit::{self, FieldValue};
use hone_core::skill::{SKILL_FILE, Skill};
use hone_core::watch::LibraryWatcher;
use hone_core::workspace::{self, SaveError, Stamp};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State, Window, WindowEvent};

use crate::engine;
use crate::events::AppEvent;
use crate::routing::Routing;
use crate::session::{Session, display};
use crate::settings::{Settings, settings_file};
use crate::views::{
    Analysis, LibraryChanged, LibraryCosts, Preview, SaveOutcome, SkillFile, Startup,
};

pub const PREVIEW_SCHEME: &str = "hone-preview";

/// Largest text resource the viewer opens, to keep the window responsive.
const MAX_RESOURCE_BYTES: u64 = 2 * 1024 * 1024;

pub(crate) type CommandResult<T> = Result<T, String>;

pub struct AppState {
    session: Mutex<Arc<Session>>,
    settings: Mutex<Settings>,
    settings_file: Option<PathBuf>,
    events: Mutex<Option<Channel<AppEvent>>>,
    watcher: Mutex<Option<LibraryWatcher>>,
    /// The last rendered body, served to the preview frame, and how many
    /// renders came before it (each gets a new address so the frame reloads).
    preview_html: Mutex<(u64, String)>,
    /// Whether the window holds unsaved edits (closing must then ask).
    dirty: AtomicBool,
    /// Token counts of each skill's resources, which live on disk and do not
    /// change as the author types; forgotten when the library is re-read.
    resource_tokens: Mutex<HashMap<PathBuf, Arc<HashMap<String, u64>>>>,
    /// Rankers for the test-query panel and eval runs.
    pub(crate) routing: Mutex<Routing>,
    /// Held while a ranker is built, so two requests never build the same one.
    pub(crate) ranker_build: Mutex<()>,
    started: Instant,
    /// The startup library, opened on a thread of its own as the app starts,
    /// while the window's web view boots (most of a second), so that the
    /// window's first request finds it ready.
    early: Mutex<Option<std::thread::JoinHandle<CommandResult<Session>>>>,
    /// Milliseconds from process start until the window first became
    /// usable (library listed, first skill open and checked).
    ready_ms: Mutex<Option<u64>>,
    /// Run before another library replaces the open one (what serves the
    /// old one stops), so this module need not know who holds it.
    switch_hooks: Mutex<Vec<SwitchHook>>,
}

type SwitchHook = Box<dyn Fn(&AppHandle) + Send + Sync>;

impl AppState {
    pub fn new(config_dir: Option<PathBuf>, started: Instant) -> AppState {
        let settings_file = settings_file(config_dir);
        let settings = settings_file
            .as_deref()
            .map(Settings::load)
            .unwrap_or_default();
        AppState {
            session: Mutex::default(),
            settings: Mutex::new(settings),
            settings_file,
            events: Mutex::default(),
            watcher: Mutex::default(),
            preview_html: Mutex::default(),
            dirty: AtomicBool::new(false),
            resource_tokens: Mutex::default(),
            routing: Mutex::default(),
            ranker_build: Mutex::default(),
            started,
            early: Mutex::default(),
            ready_ms: Mutex::default(),
            switch_hooks: Mutex::default(),
        }
    }

    /// Runs `hook` whenever a library is opened in place of another.
    pub fn on_library_switch(&self, hook: impl Fn(&AppHandle) + Send + Sync + 'static) {
        lock(&self.switch_hooks).push(Box::new(hook));
    }

    /// The library to open at start, and the user-level skills folder.
    fn startup_roots(&self) -> (PathBuf, Option<PathBuf>) {
        let settings = lock(&self.settings);
        let user = settings.user_root.clone().map(PathBuf::from);
        (startup_library(&settings), user.filter(|p| p.is_dir()))
    }

    /// Starts opening the library the window will ask for first.
    pub fn open_early(&self) {
        let (project, user) = self.startup_roots();
        let opening = std::thread::spawn(move || Session::open(&project, user.as_deref()));
        *lock(&self.early) = Some(opening);
    }

    pub(crate) fn session(&self) -> Arc<Session> {
        lock(&self.session).clone()
    }

    pub fn replace_session(&self, session: Session) -> Arc<Session> {
        let session = Arc::new(session);
        lock(&self.resource_tokens).clear();
        *lock(&self.session) = session.clone();
        session
    }

    fn resource_tokens(&self, skill: &Skill) -> Arc<HashMap<String, u64>> {
        if let Some(known) = lock(&self.resource_tokens).get(&skill.dir) {
            return known.clone();
        }
        let counted = Arc::new(engine::resource_tokens(skill));
        lock(&self.resource_tokens).insert(skill.dir.clone(), counted.clone());
        counted
    }

    pub fn send(&self, event: AppEvent) {
        if let Some(channel) = lock(&self.events).as_ref() {
            // A closed window cannot receive; nothing else to do then.
            let _ = channel.send(event);
        }
    }

    fn remember(&self, session: &Session) {
        let mut settings = lock(&self.settings);
        if let Some(root) = session.project_root() {
            settings.remember(&display(root));
        }
        settings.user_root = session.user_root().map(display);
        if let Some(file) = &self.settings_file
            && let Err(e) = settings.save(file)
        {
            eprintln!("hone: cannot save settings to {}: {e}", file.display());
        }
    }

    fn startup_view(&self, session: &Session) -> Startup {
        Startup {
            library: session.view(),
            recent: lock(&self.settings).recent.clone(),
            tokenizers: engine::tokenizers(),
        }
    }
}

/// A poisoned lock only means another command panicked; the data is still usable.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The library opened at start: the first argument, `$HONE_LIBRARY`, the last
/// library opened, or the bundled `skills/` folder, in that order.
fn startup_library(settings: &Settings) -> PathBuf {
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

pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> CommandResult<T> + Send + 'static,
) -> CommandResult<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| e.to_string())?
}

fn open_and_watch(app: &AppHandle, project: &Path, user: Option<&Path>) -> CommandResult<Startup> {
    watch_session(app, Session::open(project, user)?)
}

/// Makes `session` the opened library: remembered, checked in the
/// background and watched for changes.
fn watch_session(app: &AppHandle, session: Session) -> CommandResult<Startup> {
    let state = app.state::<AppState>();
    for hook in lock(&state.switch_hooks).iter() {
        hook(app);
    }
    state.remember(&session);
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
    *lock(&state.watcher) = watcher.ok();
    Ok(state.startup_view(&session))
}

#[tauri::command]
pub async fn startup(app: AppHandle) -> CommandResult<Startup> {
    blocking(move || {
        let state = app.state::<AppState>();
        let session = state.session();
        if session.project_root().is_some() {
            return Ok(state.startup_view(&session));
        }
        let opening = lock(&state.early).take();
        let session = match opening.map(std::thread::JoinHandle::join) {
            Some(Ok(opened)) => opened?,
            // Not started (or it panicked): open here.
            _ => {
                let (project, user) = state.startup_roots();
                Session::open(&project, user.as_deref())?
            }
        };
        let view = watch_session(&app, session)?;
        eprintln!(
            "hone: opened {} skills in {} ms ({} ms after start)",
            view.library.skills.len(),
            view.library.load_ms,
            state.started.elapsed().as_millis()
        );
        Ok(view)
    })
    .await
}

/// The window reports that it became usable; answers how long after the
/// process started that was (the first report counts).
#[tauri::command]
pub fn mark_ready(state: State<'_, AppState>) -> u64 {
    let mut ready = lock(&state.ready_ms);
    *ready.get_or_insert_with(|| {
        let ms = state.started.elapsed().as_millis() as u64;
        eprintln!("hone: ready {ms} ms after start");
        ms
    })
}

/// Opens `path` as the library, with `user_root` as the lower-priority
/// user-level skills folder (`None` keeps none).
#[tauri::command]
pub async fn open_library(
    app: AppHandle,
    path: String,
    user_root: Option<String>,
) -> CommandResult<Startup> {
    blocking(move || open_and_watch(&app, Path::new(&path), user_root.as_deref().map(Path::new)))
        .await
}

#[tauri::command]
pub fn forget_recent(state: State<'_, AppState>, path: String) -> Vec<String> {
    let mut settings = lock(&state.settings);
    settings.forget(&path);
    if let Some(file) = &state.settings_file {
        let _ = settings.save(file);
    }
    settings.recent.clone()
}

#[tauri::command]
pub fn open_skill(state: State<'_, AppState>, path: String) -> CommandResult<SkillFile> {
    let path = state.session().confine(&path)?;
    let (bytes, stamp) = workspace::read_stamped(&path).map_err(|e| e.to_string())?;
    let text = hone_core::document::SkillDocument::from_vec(bytes).text;
    Ok(SkillFile {
        path: display(&path),
        text,
        stamp,
    })
}

/// The skill at `path` with `text` as its content: the loaded skill when
/// known (keeping its resources), else one built from the text alone.
pub(crate) fn skill_with_text(session: &Session, path: &Path, text: String) -> Skill {
    match session.skill_at(path) {
        Some(skill) => skill.with_text(text),
        None => {
            let dir = path.parent().unwrap_or(path);
            let mut skill =
                Skill::from_document(dir, hone_core::document::SkillDocument::parse(text));
            skill.resources = hone_core::folder::scan_resources(dir);
            skill
        }
    }
}

#[tauri::command]
pub fn analyze(state: State<'_, AppState>, path: String, text: String) -> CommandResult<Analysis> {
    let started = Instant::now();
    let session = state.session();
    let path = session.confine(&path)?;
    let skill = skill_with_text(&session, &path, text);
    let diagnostics = engine::check_skill(&skill, session.library());
    let (fields, form_blocked) = engine::form_fields(&skill);
    let description_chars = skill
        .meta
        .description
        .as_deref()
        .map_or(0, |d| d.chars().count());
    let listing_chars = description_chars
        + skill
            .meta
            .when_to_use
            .as_deref()
            .map_or(0, |w| w.chars().count());
    let resources = state.resource_tokens(&skill).values().sum();
    let costs = engine::stage_costs(&skill, resources);
    let compatibility = engine::compatibility(&skill, session.library());
    Ok(Analysis {
        compatibility,
        diagnostics,
        fields,
        form_blocked,
        costs,
        description_chars,
        listing_chars,
        engine_micros: started.elapsed().as_micros() as u64,
    })
}

/// The frontmatter field table (`hone_core::fields`) the form is built from.
#[tauri::command]
pub fn frontmatter_fields() -> &'static [hone_core::fields::Field] {
    hone_core::fields::FIELDS
}

#[tauri::command]
pub fn set_field(text: String, key: String, value: FieldValue) -> CommandResult<String> {
    edit::set_field(&text, &key, &value).map_err(|e| e.to_string())
}

#[tauri::command]
pub fn apply_fix(text: String, fix: Fix) -> CommandResult<String> {
    fix.apply(&text)
        .ok_or_else(|| "the text changed since the fix was computed".to_owned())
}

#[tauri::command]
pub fn preview(
    state: State<'_, AppState>,
    path: String,
    text: String,
    argument: String,
) -> CommandResult<Preview> {
    let session = state.session();
    let path = session.confine(&path)?;
    let skill = skill_with_text(&session, &path, text);
    let html = engine::render_html(&skill);
    let version = {
        let mut stored = lock(&state.preview_html);
        *stored = (stored.0 + 1, html);
        stored.0
    };
    Ok(Preview {
        url: format!("{PREVIEW_SCHEME}://localhost/{version}"),
        resources: engine::resource_views(&skill, &state.resource_tokens(&skill)),
        substitutions: hone_core::substitute::substitutions(&skill, &argument),
    })
}

/// The preview frame's document: the engine's sanitised HTML under a policy
/// that allows no script, no network and no plug-in, whatever the HTML says.
pub fn preview_response(app: &AppHandle) -> tauri::http::Response<Vec<u8>> {
    let body = lock(&app.state::<AppState>().preview_html).1.clone();
    let policy = "default-src 'none'; style-src 'unsafe-inline'; img-src data: hone-resource:";
    let page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\"><style>{}</style></head><body>{body}</body></html>",
        engine::PREVIEW_STYLE
    );
    tauri::http::Response::builder()
        .header("Content-Type", "text/html; charset=utf-8")
        .header("Content-Security-Policy", policy)
        .body(page.into_bytes())
        .expect("static headers are valid")
}

/// A file of the opened library for the preview frame: images shown in the
/// body, and links to resources opened in the frame. Only confined files are
/// served, text always as plain text, never as a page that could run.
pub fn resource_response(
    app: &AppHandle,
    request: &tauri::http::Request<Vec<u8>>,
) -> tauri::http::Response<Vec<u8>> {
    let response = |status: u16, content_type: &str, body: Vec<u8>| {
        tauri::http::Response::builder()
            .status(status)
            .header("Content-Type", content_type)
            .header(
                "Content-Security-Policy",
                "sandbox; default-src 'none'; style-src 'unsafe-inline'",
            )
            .header("X-Content-Type-Options", "nosniff")
            .body(body)
            .expect("static headers are valid")
    };
    let url = request.uri().to_string();
    let served = hone_core::render::resource_path(&url, hone_core::render::RESOURCE_BASE)
        .ok_or_else(|| format!("not a resource address: {url}"))
        .and_then(|path| app.state::<AppState>().session().confine(&display(&path)))
        .and_then(|path| {
            let size = std::fs::metadata(&path).map_err(|e| e.to_string())?.len();
            if size > MAX_RESOURCE_BYTES {
                return Err(format!("{} is too large to show", path.display()));
            }
            let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
            Ok((resource_type(&path, &bytes), bytes))
        });
    match served {
        Ok((content_type, bytes)) => response(200, content_type, bytes),
        Err(message) => response(404, "text/plain; charset=utf-8", message.into_bytes()),
    }
}

/// The content type a resource is served as: images by their extension,
/// anything else as plain text (or bytes when it is not UTF-8).
fn resource_type(path: &Path, bytes: &[u8]) -> &'static str {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("svg") => "image/svg+xml",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[tauri::command]
pub fn read_resource(state: State<'_, AppState>, path: String) -> CommandResult<String> {
    let path = state.session().confine(&path)?;
    let metadata = std::fs::metadata(&path).map_err(|e| e.to_string())?;
    if metadata.len() > MAX_RESOURCE_BYTES {
        return Err(format!(
            "{} is too large to view ({} bytes)",
            path.display(),
            metadata.len()
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| format!("{} is not a text file", path.display()))
}

#[tauri::command]
pub fn save_skill(
    state: State<'_, AppState>,
    path: String,
    text: String,
    expected: Option<Stamp>,
) -> CommandResult<SaveOutcome> {
    let path = state.session().confine(&path)?;
    match workspace::save_atomic(&path, text.as_bytes(), expected.as_ref()) {
        Ok(stamp) => Ok(SaveOutcome::Saved { stamp }),
        Err(SaveError::Conflict { on_disk }) => Ok(SaveOutcome::Conflict {
            disk_text: std::fs::read(&path)
                .ok()
                .map(|b| hone_core::document::SkillDocument::from_vec(b).text),
            disk_stamp: on_disk,
        }),
        Err(SaveError::Io(e)) => Err(format!("cannot save {}: {e}", path.display())),
    }
}

/// Checks the library off the command's thread and sends the counts, so a
/// large library is listed at once and its findings follow.
fn check_in_background(app: &AppHandle, session: Arc<Session>) {
    let app = app.clone();
    std::thread::spawn(move || {
        session.check();
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

#[tauri::command]
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

#[tauri::command]
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

#[tauri::command]
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
        return Err(format!("{} is not a skill folder", dir.display()));
    }
    Ok(dir)
}

#[tauri::command]
pub async fn library_costs(
    app: AppHandle,
    tokenizer: String,
    context_window: u64,
) -> CommandResult<LibraryCosts> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        engine::library_costs(session.library(), &tokenizer, context_window)
    })
    .await
}

/// Registers the window's channel for library changes and close requests.
#[tauri::command]
pub fn subscribe(state: State<'_, AppState>, events: Channel<AppEvent>) {
    *lock(&state.events) = Some(events);
}

#[tauri::command]
pub fn set_dirty(state: State<'_, AppState>, dirty: bool) {
    state.dirty.store(dirty, Ordering::Relaxed);
}

/// Closes the window after the user chose to discard or saved.
#[tauri::command]
pub fn close_window(state: State<'_, AppState>, window: Window) -> CommandResult<()> {
    state.dirty.store(false, Ordering::Relaxed);
    window.close().map_err(|e| e.to_string())
}

/// Closing with unsaved edits asks first: the window shows the question and
/// calls [`close_window`] if the user agrees.
pub fn on_window_event(window: &Window, event: &WindowEvent) {
    if let WindowEvent::CloseRequested { api, .. } = event {
        let state = window.state::<AppState>();
        if state.dirty.load(Ordering::Relaxed) {
            api.prevent_close();
            state.send(AppEvent::CloseRequested);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_served_as_images_or_plain_text() {
        let page = Path::new("notes.html");
        assert_eq!(
            resource_type(page, b"<script>"),
            "text/plain; charset=utf-8"
        );
        assert_eq!(resource_type(Path::new("a.PNG"), &[0x89]), "image/png");
        assert_eq!(
            resource_type(Path::new("blob"), &[0xff, 0xfe, 0xfd]),
            "application/octet-stream"
        );
    }

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
