//! "Confirm with agent" for the suggestions view: the first measured
//! description edits re-run on the held-out cases by the agent ranker
//! (`hone_core::agent::confirm`), asked of the provider and model chosen on
//! the Evals tab (the local model unless the author picked another). As
//! "Run with agent", it is previewed first: the calls, tokens and price of
//! every listing asked, and plainly whether the library's text leaves the
//! machine. The set-up is the agent commands' own ([`Asker`]).

use hone_core::agent::confirm::{self, ConfirmOptions};
use hone_core::agent::{self, CostEstimate};
use hone_core::eval::Suite;
use hone_core::eval::suggest::Suggestions;
use hone_core::library::Library;
use tauri::{AppHandle, Manager};

use crate::agent::{
    AgentPreview, Asker, ProviderChoice, cancellable, progress_events, trigger_threshold,
};
use crate::commands::{AppState, CommandResult, blocking};
use crate::diagnose::library_suites;
use crate::session::Session;

/// What both commands start from: the library's suites, the chosen agent,
/// and the threshold its answers are read with.
struct Confirmation {
    suites: Vec<Suite>,
    asker: Asker,
    threshold: f32,
}

impl Confirmation {
    fn new(app: &AppHandle, session: &Session, choice: &ProviderChoice) -> CommandResult<Self> {
        Ok(Self {
            suites: library_suites(session)?,
            asker: Asker::new(app, session, choice)?,
            threshold: trigger_threshold(session)?,
        })
    }

    fn options(&self) -> ConfirmOptions<'_> {
        ConfirmOptions {
            provider: self.asker.provider(),
            style: self.asker.listing_style(),
            settings: self.asker.settings(),
            cache: self.asker.cache(),
            read_cache: true,
            runs: self.asker.runs(),
            threshold: self.threshold,
            jobs: agent::DEFAULT_JOBS,
            top: confirm::DEFAULT_CONFIRMED,
        }
    }

    fn estimate(&self, library: &Library, suggestions: &Suggestions) -> CostEstimate {
        confirm::estimate(
            library,
            &self.suites,
            suggestions,
            &self.options(),
            self.asker.price(),
        )
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
        let confirmation = Confirmation::new(&app, &session, &choice)?;
        let estimate = confirmation.estimate(session.library(), &suggestions);
        Ok(confirmation
            .asker
            .preview(requests_asked(&suggestions), estimate))
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
        let confirmation = Confirmation::new(&app, &session, &choice)?;
        let estimate = confirmation.estimate(session.library(), &suggestions);
        let progress = progress_events(&state);
        let mut found = suggestions;
        cancellable(&app, |cancel| {
            confirm::confirm(
                session.library(),
                &confirmation.suites,
                &mut found,
                &confirmation.options(),
                confirmation.asker.budget(&estimate),
                cancel,
                &progress,
            )
        });
        Ok(found)
    })
    .await
}
