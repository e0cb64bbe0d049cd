//! Commands of the Evals tab's baseline: named runs kept with the library
//! (`hone_core::eval::runs`) and the comparison of a run with the pinned
//! baseline, either a named run or the suite run on the saved files (so
//! unsaved edits show as changes).

use hone_core::eval::runs::{self, RunListing, RunSummary, SavedRun};
use hone_core::eval::{Comparison, Report};
use hone_core::rank::RankerKind;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandResult, blocking, lock};
use crate::ipc::CommandError;
use crate::panel::ensure_ranker;

/// What a run is compared with.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Baseline {
    /// The suite run now on the saved files, without unsaved edits.
    Saved,
    /// A run kept under a name.
    Named { name: String },
}

/// The baseline's own report and how the current run differs from it.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct BaselineComparison {
    pub report: Report,
    pub comparison: Comparison,
}

fn library_root(state: &AppState) -> CommandResult<std::path::PathBuf> {
    state
        .session()
        .project_root()
        .map(std::path::Path::to_path_buf)
        .ok_or_else(|| {
            CommandError::unavailable("open a library folder to keep named runs with it")
        })
}

/// The named runs kept with the opened library, oldest first.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn list_named_runs(state: tauri::State<'_, AppState>) -> CommandResult<RunListing> {
    Ok(state
        .session()
        .project_root()
        .map(runs::list_runs)
        .unwrap_or_default())
}

/// Keeps `report` under `name` in `evals/runs/`; `edited`: whether unsaved
/// edits were part of the run.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn save_named_run(
    state: tauri::State<'_, AppState>,
    name: String,
    report: Report,
    edited: bool,
    replace: bool,
) -> CommandResult<RunSummary> {
    let root = library_root(&state)?;
    let run = SavedRun {
        name: name.trim().to_owned(),
        saved_at: runs::now(),
        with_edits: edited,
        report,
    };
    runs::save_run(&root, &run, replace).map_err(|e| e.to_string())?;
    Ok(run.summary())
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn delete_named_run(state: tauri::State<'_, AppState>, name: String) -> CommandResult<()> {
    Ok(runs::delete_run(&library_root(&state)?, &name).map_err(|e| e.to_string())?)
}

/// Compares `report` (a run of the suite at `path`) with `baseline`.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn compare_with_baseline(
    app: AppHandle,
    baseline: Baseline,
    path: String,
    ranker: RankerKind,
    threshold: Option<f32>,
    report: Report,
) -> CommandResult<BaselineComparison> {
    blocking(move || {
        let state = app.state::<AppState>();
        let session = state.session();
        let old = match baseline {
            Baseline::Named { name } => {
                let root = library_root(&state)?;
                runs::load_run(&root, &name)
                    .map_err(|e| e.to_string())?
                    .report
            }
            Baseline::Saved => {
                ensure_ranker(&app, ranker)?;
                let path = session.confine(&path)?;
                lock(&state.ranking.routing).run_suite(
                    &session,
                    ranker,
                    &path,
                    threshold,
                    None,
                    &mut |_, _| {},
                )?
            }
        };
        let comparison = Comparison::new(&old, &report);
        Ok(BaselineComparison {
            report: old,
            comparison,
        })
    })
    .await
}
