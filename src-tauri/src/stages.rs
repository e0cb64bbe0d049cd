//! Every skill's cost at each disclosure stage, for the Token costs panel's
//! per-skill chart. The stages and their sums are the engine's
//! ([`hone_core::tokens::StageTotals`]); this only picks the tokenizer and
//! measures off the window's thread (in the background pool, leaving the web
//! view a core), resources read from disk as saved.

use hone_core::tokens::{self, StageTotals, Tokenizer};
use serde::Serialize;
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandResult, blocking};
use crate::engine::{DEFAULT_TOKENIZER, background_pool};
use crate::ipc::CommandError;

/// The library's skills, each with its tokens per stage, in library order.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LibraryStages {
    /// The tokenizer's label, as the chart names it.
    pub tokenizer: String,
    pub skills: Vec<StageTotals>,
}

#[tauri::command]
#[specta::specta]
pub async fn library_stage_costs(
    app: AppHandle,
    tokenizer: String,
) -> CommandResult<LibraryStages> {
    blocking(move || {
        let name = if tokenizer.is_empty() {
            DEFAULT_TOKENIZER
        } else {
            &tokenizer
        };
        let tokenizer =
            Tokenizer::by_name(name).map_err(|e| CommandError::invalid(e.to_string()))?;
        let session = app.state::<AppState>().session();
        let skills: Vec<_> = session.library().skills.iter().collect();
        // A core stays free for the window, as for the library's check.
        let totals = background_pool().install(|| tokens::skills_stage_totals(&skills, &tokenizer));
        Ok(LibraryStages {
            tokenizer: tokenizer.label(),
            skills: totals,
        })
    })
    .await
}
