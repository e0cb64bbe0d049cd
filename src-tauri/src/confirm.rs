//! "Confirm with agent" for the suggestions view: the first measured
//! description edits re-run on the held-out cases by the agent ranker
//! (`hone_core::eval::confirm`), asked of the provider and model chosen on
//! the Evals tab (the local model unless the author picked another). As
//! "Run with agent", it is previewed first: the calls, tokens and price of
//! every listing asked, and plainly whether the library's text leaves the
//! machine. The set-up is the agent commands' own ([`Asker`]).

use hone_core::agent::{self, ListingStyle};
use hone_core::eval::Suite;
use hone_core::eval::confirm::{self, ConfirmOptions};
use hone_core::eval::suggest::Suggestions;
use tauri::{AppHandle, Manager};

use crate::agent::{
    AgentPreview, Asker, ProviderChoice, cancellable, progress_events, trigger_threshold,
};
use crate::commands::{AppState, CommandResult, blocking};
use crate::diagnose::library_suites;

fn options(asker: &Asker, threshold: f32) -> ConfirmOptions<'_> {
    ConfirmOptions {
        provider: asker.provider(),
        style: ListingStyle::ClaudeCode,
        settings: asker.settings(),
        cache: asker.cache(),
        read_cache: true,
        runs: asker.runs(),
        threshold,
        jobs: agent::DEFAULT_JOBS,
        top: confirm::DEFAULT_CONFIRMED,
    }
}

/// The requests asked: the held-out cases once with the library's listing
/// as it is and once with each confirmed edit applied.
fn requests_asked(found: &Suggestions) -> usize {
    let edits = found.candidates.len().min(confirm::DEFAULT_CONFIRMED);
    found.held_out_cases * (1 + edits)
}

/// What confirming `suggestions` with `choice` will send and cost.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn confirm_preview(
    app: AppHandle,
    suggestions: Suggestions,
    choice: ProviderChoice,
) -> CommandResult<AgentPreview> {
    blocking(move || {
        let session = app.state::<AppState>().session();
        let suites: Vec<Suite> = library_suites(&session)?;
        let asker = Asker::new(&app, &session, &choice)?;
        let options = options(&asker, trigger_threshold(&session)?);
        let estimate = confirm::estimate(
            session.library(),
            &suites,
            &suggestions,
            &options,
            asker.price(),
        );
        Ok(asker.preview(requests_asked(&suggestions), estimate))
    })
    .await
}

/// `suggestions` (as `suggest_edits` returned them) with the agent's
/// held-out delta for the first ones, asked of `choice`; progress goes out
/// as `agent` events and `agent_cancel` stops it between calls.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn confirm_suggestions(
    app: AppHandle,
    suggestions: Suggestions,
    choice: ProviderChoice,
) -> CommandResult<Suggestions> {
    blocking(move || {
        let state = app.state::<AppState>();
        let session = state.session();
        let suites = library_suites(&session)?;
        let asker = Asker::new(&app, &session, &choice)?;
        let options = options(&asker, trigger_threshold(&session)?);
        let estimate = confirm::estimate(
            session.library(),
            &suites,
            &suggestions,
            &options,
            asker.price(),
        );
        let progress = progress_events(&state);
        let mut found = suggestions;
        cancellable(&app, |cancel| {
            confirm::confirm(
                session.library(),
                &suites,
                &mut found,
                &options,
                asker.budget(&estimate),
                cancel,
                &progress,
            )
        });
        Ok(found)
    })
    .await
}
