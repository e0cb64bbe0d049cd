//! "Confirm with agent" for the suggestions view: the first measured
//! description edits re-run on the held-out cases by the agent ranker
//! (`hone_core::eval::confirm`). The app has no hosted-provider settings, so
//! it asks the local model (`hone model install --llm`): nothing leaves the
//! machine and nothing is billed, so no cost preview is needed.

use std::sync::Arc;

use hone_core::agent::local::Local;
use hone_core::agent::{AnswerCache, Cancel, ListingStyle};
use hone_core::catalog::{self, ListingSettings};
use hone_core::eval::confirm::{self, ConfirmOptions};
use hone_core::eval::suggest::Suggestions;
use hone_core::llm::LocalModel;
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandResult, blocking};
use crate::diagnose::library_suites;

/// The Claude Code listing budget of a 200k-token context, as the CLI's default.
const CONTEXT_WINDOW_TOKENS: u64 = 200_000;

/// `suggestions` (as `suggest_edits` returned them) with the agent's
/// held-out delta for the first ones.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn confirm_suggestions(
    app: AppHandle,
    suggestions: Suggestions,
) -> CommandResult<Suggestions> {
    blocking(move || {
        let state = app.state::<AppState>();
        let session = state.session();
        let suites = library_suites(&session)?;
        let model = LocalModel::open(None).map_err(|e| e.to_string())?;
        let provider = Local::new(Arc::new(model));
        let user = catalog::user_claude_dir();
        let env = std::env::var(catalog::CHAR_BUDGET_ENV).ok();
        let settings = ListingSettings::load(
            CONTEXT_WINDOW_TOKENS,
            &session.library().roots,
            user.as_deref(),
            env.as_deref(),
        );
        let cache = AnswerCache::default_dir().map(AnswerCache::new);
        let options = ConfirmOptions {
            provider: &provider,
            style: ListingStyle::ClaudeCode,
            settings: &settings,
            cache: cache.as_ref(),
            read_cache: true,
            // The local model is deterministic: one run says it all.
            runs: 1,
            threshold: hone_core::agent::DEFAULT_TRIGGER_THRESHOLD,
            jobs: 1,
            top: confirm::DEFAULT_CONFIRMED,
        };
        let mut found = suggestions;
        confirm::confirm(
            session.library(),
            &suites,
            &mut found,
            &options,
            None,
            &Cancel::new(),
            &|_, _| {},
        );
        Ok(found)
    })
    .await
}
