//! Every skill's cost at each disclosure stage, for the Token costs panel's
//! per-skill chart. The stages and their sums are the engine's
//! ([`hone_core::catalog::StageTotals`]); this only picks the tokenizer and
//! measures off the window's thread (in the background pool, leaving the web
//! view a core), resources read from disk as saved, and keeps the last answer
//! for as long as the library is not read again.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use hone_core::catalog::StageTotals;
use hone_core::tokens::Tokenizer;
use serde::Serialize;
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandResult, blocking};
use crate::engine::{DEFAULT_TOKENIZER, background_pool};
use crate::ipc::CommandError;
use crate::session::Session;

/// The library's skills, each with its tokens per stage, in library order.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LibraryStages {
    /// The tokenizer's label, as the chart names it.
    pub tokenizer: String,
    pub skills: Vec<StageTotals>,
}

/// The last answer and the library state it measured. Reading every
/// resource of a large library takes seconds, and the panel asks again each
/// time its tab is shown; a library read again (a save, a change on disk,
/// another library) is a new session, measured afresh. Held while measuring,
/// so that two requests never measure the same library twice at once.
/// (A weak reference: a closed library is not kept, and its address is not
/// reused while this holds it.)
static LAST: Mutex<Option<(Weak<Session>, LibraryStages)>> = Mutex::new(None);

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
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
        let label = tokenizer.label();
        let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((seen, stages)) = last.as_ref()
            && Weak::as_ptr(seen) == Arc::as_ptr(&session)
            && stages.tokenizer == label
        {
            return Ok(stages.clone());
        }
        let skills: Vec<_> = session.library().skills.iter().collect();
        // A core stays free for the window, as for the library's check.
        let totals = background_pool()
            .install(|| hone_core::catalog::skills_stage_totals(&skills, &tokenizer));
        let stages = LibraryStages {
            tokenizer: label,
            skills: totals,
        };
        *last = Some((Arc::downgrade(&session), stages.clone()));
        Ok(stages)
    })
    .await
}
