//! Commands of the test-query panel and the eval runs.
//!
//! Rankings and runs include the open skill's unsaved text when the window
//! sends it ([`OpenText`]); suites are read and edited through the engine,
//! which keeps a suite file's comments and layout (`hone_core::eval::edit`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hone_core::embed::resolve_model_dir;
use hone_core::eval::suite::{SUITES_DIR, library_suites, suite_label};
use hone_core::eval::{Identities, Suite, edit};
use hone_core::library_settings;
use hone_core::rank::{RankerKind, RoutingDoc, bm25, hybrid, semantic};
use hone_core::workspace;
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandError, CommandResult, blocking, lock, skill_with_text};
use crate::events::{AppEvent, Progress};
use crate::routing;
use crate::session::{Session, display};
use crate::views::{EvalRun, OpenText, RankerStatus, Ranking, SuiteEdit, SuiteSummary, SuiteView};

/// Largest trigger-eval file imported.
const MAX_IMPORT_BYTES: u64 = 4 * 1024 * 1024;

/// Which rankers can run here (semantic and hybrid need the embedding
/// model), each with the threshold it selects with in the opened library:
/// the one calibrated for it, else its own.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn ranker_status(app: AppHandle) -> Vec<RankerStatus> {
    let model = resolve_model_dir(None);
    let session = app.state::<AppState>().session();
    RankerKind::ALL
        .into_iter()
        .map(|kind| {
            let available = kind == RankerKind::Bm25 || model.installed;
            RankerStatus {
                kind,
                available,
                note: (!available).then(|| {
                    format!(
                        "needs the embedding model, which is not in {}: run `make run` (its set-up installs it) or `hone model install`",
                        model.dir.display()
                    )
                }),
                // Unreadable settings leave the ranker's own: rankings report the error.
                default_threshold: library_settings::selection_threshold(
                    session.project_root(),
                    kind,
                    None,
                    default_threshold(kind),
                )
                .unwrap_or_else(|_| default_threshold(kind)),
            }
        })
        .collect()
}

/// The threshold a ranker of `kind` is built with.
fn default_threshold(kind: RankerKind) -> f32 {
    match kind {
        RankerKind::Bm25 => bm25::Bm25Config::default().threshold,
        RankerKind::Semantic => semantic::SemanticConfig::default().threshold,
        RankerKind::Hybrid => hybrid::HybridConfig::default().threshold,
        RankerKind::Agent => hone_core::agent::DEFAULT_TRIGGER_THRESHOLD,
    }
}

/// The names among `names` that no skill of the library answers to (by
/// name or folder name): the names a run would refuse, found where a case is
/// written instead.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn unknown_skills(state: tauri::State<'_, AppState>, names: Vec<String>) -> Vec<String> {
    let session = state.session();
    let identities = Identities::from_library(session.library());
    let mut unknown: Vec<String> = names
        .into_iter()
        .filter(|name| identities.resolve(name).is_none())
        .collect();
    unknown.sort();
    unknown.dedup();
    unknown
}

/// Ranks the library for `query`, with the open skill's text as typed.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn rank_query(
    app: AppHandle,
    query: String,
    ranker: RankerKind,
    top: usize,
    open: Option<OpenText>,
) -> CommandResult<Ranking> {
    blocking(move || {
        ensure_ranker(&app, ranker)?;
        let state = app.state::<AppState>();
        let session = state.session();
        let edited = edited_doc(&session, open)?;
        lock(&state.ranking.routing)
            .rank(&session, ranker, &query, top.clamp(1, 100), edited.as_ref())
            .map_err(CommandError::from)
    })
    .await
}

/// Lets `client`'s own skills compete beside the library's in the
/// test-query panel and eval runs (`None`: the library alone).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn set_competing_builtins(
    app: AppHandle,
    client: Option<hone_core::clients::Client>,
) -> CommandResult<()> {
    blocking(move || {
        let state = app.state::<AppState>();
        let session = state.session();
        lock(&state.ranking.routing).set_builtins(&session, client);
        Ok(())
    })
    .await
}

/// The suites of the opened library.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn list_suites(state: tauri::State<'_, AppState>) -> Vec<SuiteSummary> {
    let session = state.session();
    library_suites(session.roots())
        .into_iter()
        .map(|path| {
            let label = suite_label(session.roots(), &path)
                .map_or_else(|| display(&path), |label| display(&label));
            let editable = is_yaml(&path);
            match Suite::load(&path) {
                Ok(suite) => SuiteSummary {
                    path: display(&path),
                    label,
                    name: Some(suite.name),
                    cases: suite.cases.len(),
                    error: None,
                    editable,
                },
                Err(e) => SuiteSummary {
                    path: display(&path),
                    label,
                    name: None,
                    cases: 0,
                    error: Some(e.to_string()),
                    editable: false,
                },
            }
        })
        .collect()
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn suite_cases(state: tauri::State<'_, AppState>, path: String) -> CommandResult<SuiteView> {
    let path = state.session().confine(&path)?;
    suite_view(&path)
}

/// Runs one suite with the open skill's text as typed; progress is reported
/// as events, and the result compared with the previous run.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn run_eval(
    app: AppHandle,
    path: String,
    ranker: RankerKind,
    threshold: Option<f32>,
    open: Option<OpenText>,
) -> CommandResult<EvalRun> {
    blocking(move || {
        ensure_ranker(&app, ranker)?;
        let state = app.state::<AppState>();
        let session = state.session();
        let path = session.confine(&path)?;
        let edited = edited_doc(&session, open)?;
        let mut last_sent = Instant::now();
        let mut progress = |done: usize, total: usize| {
            if done == total || last_sent.elapsed() > Duration::from_millis(50) {
                last_sent = Instant::now();
                state.send(AppEvent::Progress(Progress {
                    task: "eval",
                    done: done as u64,
                    total: total as u64,
                }));
            }
        };
        let (report, comparison) = lock(&state.ranking.routing).run_eval(
            &session,
            ranker,
            &path,
            threshold,
            edited.as_ref(),
            &mut progress,
        )?;
        Ok(EvalRun {
            report,
            comparison,
            with_edits: edited.is_some(),
        })
    })
    .await
}

/// Adds, replaces or removes a case; the file keeps everything else as written.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn edit_suite(
    state: tauri::State<'_, AppState>,
    path: String,
    edit: SuiteEdit,
) -> CommandResult<SuiteView> {
    let path = state.session().confine(&path)?;
    if !is_yaml(&path) {
        return Err(CommandError::invalid("only YAML suites can be edited here"));
    }
    let (bytes, stamp) = workspace::read_stamped(&path).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8", path.display()))?;
    let edited = match edit {
        SuiteEdit::Add { case } => edit::add_case(&path, &text, &case),
        SuiteEdit::Replace { index, case } => edit::replace_case(&path, &text, index, &case),
        SuiteEdit::Remove { index } => edit::remove_case(&path, &text, index),
    }?;
    workspace::save_atomic(&path, edited.as_bytes(), Some(&stamp)).map_err(|e| e.to_string())?;
    suite_view(&path)
}

/// Creates `evals/NAME.yaml` in the opened library, empty.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn create_suite(state: tauri::State<'_, AppState>, name: String) -> CommandResult<String> {
    let session = state.session();
    let root = session
        .project_root()
        .ok_or_else(|| CommandError::unavailable("no library is open"))?;
    let file_name = suite_file_name(&name)?;
    let evals = root.join(SUITES_DIR);
    std::fs::create_dir_all(&evals).map_err(|e| e.to_string())?;
    let path = evals.join(file_name);
    if path.exists() {
        return Err(CommandError::invalid(format!(
            "{} already exists",
            path.display()
        )));
    }
    workspace::write_atomic(&path, edit::new_suite(name.trim(), &[]).as_bytes())
        .map_err(|e| e.to_string())?;
    Ok(display(&path))
}

/// Appends the cases of a skill-creator trigger-eval file (chosen by the
/// user anywhere on disk) for `skill` to the suite at `suite`.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn import_trigger_evals(
    state: tauri::State<'_, AppState>,
    file: String,
    skill: String,
    suite: String,
) -> CommandResult<SuiteView> {
    let session = state.session();
    let suite_path = session.confine(&suite)?;
    let file = PathBuf::from(file);
    if !file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        return Err("a trigger-eval set is a .json file".into());
    }
    let size = std::fs::metadata(&file).map_err(|e| e.to_string())?.len();
    if size > MAX_IMPORT_BYTES {
        return Err(CommandError::invalid(format!(
            "{} is too large ({size} bytes)",
            file.display()
        )));
    }
    let text = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    let imported = Suite::from_trigger_evals(&file, &text, &skill)?;
    let (bytes, stamp) = workspace::read_stamped(&suite_path).map_err(|e| e.to_string())?;
    let mut suite_text = String::from_utf8(bytes).map_err(|_| "the suite is not UTF-8")?;
    for case in &imported.cases {
        suite_text = edit::add_case(&suite_path, &suite_text, case)?;
    }
    workspace::save_atomic(&suite_path, suite_text.as_bytes(), Some(&stamp))
        .map_err(|e| e.to_string())?;
    suite_view(&suite_path)
}

/// Builds the ranker of `kind` unless it exists, reporting embedding progress.
pub(crate) fn ensure_ranker(app: &AppHandle, kind: RankerKind) -> CommandResult<()> {
    let state = app.state::<AppState>();
    if lock(&state.ranking.routing).has(kind) {
        return Ok(());
    }
    let _building = lock(&state.ranking.build);
    if lock(&state.ranking.routing).has(kind) {
        return Ok(());
    }
    let docs = lock(&state.ranking.routing).snapshot(&state.session());
    let task = state.ranking.embedding.hold();
    let cancel = task.cancel.clone();
    let built = routing::build(
        kind,
        docs.clone(),
        &mut |p| {
            state.send(AppEvent::Progress(Progress {
                task: "embedding",
                done: p.done as u64,
                total: p.total as u64,
            }))
        },
        Some(Arc::new(move || cancel.is_cancelled())),
    );
    drop(task);
    lock(&state.ranking.routing).insert(built?, docs);
    Ok(())
}

/// Stops the library's embedding in progress, if one is; what was embedded
/// is cached, so the next ranking goes on from there.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn embedding_cancel(app: AppHandle) -> bool {
    app.state::<AppState>().ranking.embedding.cancel()
}

/// The open skill's routing metadata as typed, for a skill of the library.
pub(crate) fn edited_doc(
    session: &Session,
    open: Option<OpenText>,
) -> CommandResult<Option<RoutingDoc>> {
    let Some(open) = open else { return Ok(None) };
    let path = session.confine(&open.path)?;
    if session.skill_at(&path).is_none() {
        return Ok(None);
    }
    let skill = skill_with_text(session, &path, open.text);
    Ok(Some(RoutingDoc::from_skill(&skill)))
}

fn suite_view(path: &Path) -> CommandResult<SuiteView> {
    let suite = Suite::load(path)?;
    Ok(SuiteView {
        path: display(path),
        name: suite.name,
        editable: is_yaml(path),
        cases: suite.cases,
    })
}

fn is_yaml(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml"))
}

/// `NAME.yaml` for a suite name made of letters, digits, `-`, `_` and spaces.
fn suite_file_name(name: &str) -> CommandResult<String> {
    let name = name.trim();
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ' '));
    if !valid {
        return Err(CommandError::invalid(
            "a suite name is 1–64 letters, digits, `-`, `_` or spaces",
        ));
    }
    Ok(format!(
        "{}.yaml",
        name.replace(' ', "-").to_ascii_lowercase()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_names_become_safe_file_names() {
        assert_eq!(suite_file_name("Near misses").unwrap(), "near-misses.yaml");
        for bad in ["", "../x", "a/b", "x.yaml"] {
            assert!(suite_file_name(bad).is_err(), "{bad}");
        }
    }
}
