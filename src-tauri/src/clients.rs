//! The Clients tab's commands: what each agent client (Claude Code, Codex
//! CLI, Gemini CLI, OpenCode, Copilot CLI) does with each skill of the open
//! library, and a capture that runs the installed client offline to show its
//! real listing beside the prediction.
//!
//! Everything is `hone_core::clients`'s, as `hone prompt --client` and
//! `hone clients show` run it: the verdicts are
//! `clients::verdicts::library_verdicts`, the capture
//! `clients::verdicts::capture`. The capture is isolated as the CLI
//! isolates it, by re-executing the `hone` CLI (`hone clients
//! capture-inside`) in a network namespace; the app finds `hone` beside
//! itself or on `PATH`, and without it the client runs unisolated, which the
//! answer says. One capture runs at a time, and [`clients_capture_cancel`]
//! stops it (the client and what it started are killed).

use std::path::PathBuf;
use std::sync::Arc;

use hone_core::clients::capture::{self, CaptureError, Isolation};
use hone_core::clients::compare::{self, CaptureOptions, CompareError, ListingComparison};
use hone_core::clients::verdicts::{self, LibraryVerdicts};
use hone_core::clients::{self, Client, Environment, Profile};
use hone_core::skill::Skill;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandError, CommandResult, TaskSlot, blocking};
use crate::ipc::ErrorKind;
use crate::session::Session;

/// Seconds before a capture's client is stopped, as `hone clients show`.
const TIMEOUT_SECS: u64 = 120;

/// The capture in progress, if any.
#[derive(Default)]
pub struct CaptureState {
    running: TaskSlot,
}

/// A client as the tab's picker offers it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ClientChoiceView {
    pub profile: Profile,
    /// The installed version, when Hone's set-up installed the client.
    pub installed: Option<String>,
    /// How to install it, when it is not.
    pub install_hint: Option<String>,
}

/// The client and model the tab shows.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct ClientChoice {
    pub client: Client,
    /// `None`: the client's default.
    pub model: Option<String>,
}

/// A capture's result: the comparison `hone clients show --format json`
/// prints, and what the run said when the client sent no listing.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct CaptureView {
    pub comparison: ListingComparison,
    /// The client's exit status, or why it did not finish.
    pub status: String,
    pub requests: usize,
    pub stderr_tail: String,
    /// How the run was kept off the network, in words.
    pub isolation: String,
    /// The same entries as predicted, each byte-identical, in another order.
    pub reordered: bool,
    /// Whether the client lists in an order Hone predicts.
    pub order_is_stable: bool,
}

/// The five clients, their models, and which are installed here.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn clients_list() -> CommandResult<Vec<ClientChoiceView>> {
    blocking(|| {
        let env = Environment::current();
        Ok(Client::ALL
            .into_iter()
            .map(|client| {
                let installed = capture::find_installed(client, &env).map(|i| i.version);
                ClientChoiceView {
                    profile: clients::profile(client),
                    install_hint: installed.is_none().then(|| install_hint(client, &env)),
                    installed,
                }
            })
            .collect())
    })
    .await
}

fn install_hint(client: Client, env: &Environment) -> String {
    format!(
        "{} is not installed where Hone looks ({}). Install it with scripts/install-clients.sh \
         from Hone's repository (`make test` runs it), or set HONE_CLIENTS_DIR to where it is.",
        client.display_name(),
        capture::clients_dir(env).display()
    )
}

/// The open library (its skills are read from the session, not copied) and
/// the folder its entries are shown under.
fn library(app: &AppHandle) -> CommandResult<(PathBuf, Arc<Session>)> {
    let session = app.state::<AppState>().session();
    let root = session
        .project_root()
        .map(PathBuf::from)
        .ok_or_else(|| CommandError::unavailable("no library is open"))?;
    Ok((root, session))
}

fn model(choice: &ClientChoice) -> Option<&str> {
    choice.model.as_deref().filter(|m| !m.trim().is_empty())
}

/// What `choice`'s client does with each skill of the open library.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn clients_verdicts(
    app: AppHandle,
    choice: ClientChoice,
) -> CommandResult<LibraryVerdicts> {
    blocking(move || {
        let (root, session) = library(&app)?;
        let refs: Vec<&Skill> = session.library().skills.iter().collect();
        verdicts::library_verdicts(
            &root,
            &refs,
            choice.client,
            model(&choice),
            &Environment::current(),
        )
        .map_err(|e| CommandError::io(&e))?
        .ok_or_else(|| {
            CommandError::unavailable(format!(
                "Hone does not model {} yet",
                choice.client.display_name()
            ))
        })
    })
    .await
}

/// `hone clients capture-inside` in a network namespace; no isolation
/// without the `hone` CLI.
fn isolation() -> (Isolation, Option<&'static str>) {
    match crate::serving::hone_program() {
        Some(hone) => (compare::reexec_isolation(hone), None),
        None => (
            Isolation::None,
            Some(
                "The `hone` CLI is neither beside the app nor on PATH, so the client ran without a network namespace: it was pointed at the loopback stand-in but could have reached the network.",
            ),
        ),
    }
}

/// Runs the installed client of `choice` offline on the open library, as
/// installed for it, and compares its listing with the prediction.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn clients_capture(app: AppHandle, choice: ClientChoice) -> CommandResult<CaptureView> {
    blocking(move || {
        let (root, session) = library(&app)?;
        let state = app.state::<CaptureState>();
        let task = state
            .running
            .start()
            .ok_or_else(|| CommandError::unavailable("a capture is already running"))?;
        let (isolation, unisolated) = isolation();
        let options = CaptureOptions {
            model: model(&choice),
            timeout: TIMEOUT_SECS,
            isolation: &isolation,
            cancel: &task.cancel,
        };
        let refs: Vec<&Skill> = session.library().skills.iter().collect();
        let env = Environment::current();
        let shown = verdicts::capture(&root, &refs, choice.client, &env, &options);
        drop(task);
        let shown = shown.map_err(|e| match e {
            CompareError::NotInstalled { client, .. } => {
                CommandError::unavailable(install_hint(client, &env))
            }
            CompareError::Capture(CaptureError::Cancelled) => {
                CommandError::new(ErrorKind::Failed, "the capture was cancelled")
            }
            e => CommandError::failed(e),
        })?;
        let isolation = unisolated
            .map(str::to_string)
            .unwrap_or_else(|| compare::isolation_note(shown.comparison.isolated).to_string());
        Ok(CaptureView {
            reordered: shown.comparison.same_entries_reordered(),
            order_is_stable: choice.client.listing_order_is_stable(),
            status: shown.captured.status.clone(),
            requests: shown.captured.requests.len(),
            stderr_tail: shown.captured.stderr_tail.clone(),
            comparison: shown.comparison,
            isolation,
        })
    })
    .await
}

/// Stops the capture in progress, if any; answers whether one was running.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn clients_capture_cancel(app: AppHandle) -> bool {
    app.state::<CaptureState>().running.cancel()
}
