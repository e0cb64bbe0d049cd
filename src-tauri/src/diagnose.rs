//! Routing diagnostics for the app: why a skill lost a request, the map of
//! the library, measured description edits and threshold calibration. Each
//! command adapts one engine analysis (`hone_core::rank::contrast`,
//! `rank::map`, `eval::suggest`, `eval::calibrate`) to the opened library,
//! with the open skill's unsaved text in place where the window sends it.

use hone_core::clients::claude_code;
use hone_core::eval::calibrate::{self, Calibration};
use hone_core::eval::suggest::{self, Suggestions};
use hone_core::eval::{self, Identities, Suite};
use hone_core::library_settings::{CalibratedThreshold, LibrarySettings};
use hone_core::rank::RankerKind;
use hone_core::rank::contrast::{self, Contrast};
use hone_core::rank::map::{self, LibraryMap};
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandError, CommandResult, blocking, lock};
use crate::panel::{edited_doc, ensure_ranker};
use crate::routing::selection_threshold;
use crate::session::Session;
use crate::views::OpenText;

/// The contrast of `expected` with `against` (default: the top match, or
/// the runner-up when `expected` is first) for `query`.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn why_lost(
    app: AppHandle,
    query: String,
    ranker: RankerKind,
    expected: String,
    against: Option<String>,
    open: Option<OpenText>,
) -> CommandResult<Contrast> {
    blocking(move || {
        ensure_ranker(&app, ranker)?;
        let state = app.state::<AppState>();
        let session = state.session();
        let edited = edited_doc(&session, open)?;
        lock(&state.ranking.routing).with_ranker(
            &session,
            ranker,
            edited.as_ref(),
            |ranker, docs| {
                contrast::contrast(ranker, docs, &query, &expected, against.as_deref())
                    .map_err(CommandError::failed)
            },
        )?
    })
    .await
}

/// The skills in a plane, their collisions, and `query` placed among them.
/// Needs a ranker that embeds (semantic or hybrid).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn library_map(
    app: AppHandle,
    ranker: RankerKind,
    query: Option<String>,
    open: Option<OpenText>,
) -> CommandResult<LibraryMap> {
    blocking(move || {
        if ranker == RankerKind::Bm25 {
            return Err(CommandError::unavailable(
                "the map needs the semantic or hybrid ranker (an embedding model)",
            ));
        }
        ensure_ranker(&app, ranker)?;
        let state = app.state::<AppState>();
        let session = state.session();
        let edited = edited_doc(&session, open)?;
        lock(&state.ranking.routing).with_ranker(
            &session,
            ranker,
            edited.as_ref(),
            |ranker, docs| {
                let vectors = ranker
                    .routing_vectors()
                    .ok_or("this ranker has no embeddings")?;
                let request = match query.as_deref().filter(|q| !q.trim().is_empty()) {
                    Some(q) => Some(
                        ranker
                            .request_vector(q)
                            .ok_or("this ranker has no embeddings")?
                            .map_err(|e| e.to_string())?,
                    ),
                    None => None,
                };
                Ok(map::library_map(docs, &vectors, request.as_deref()))
            },
        )?
    })
    .await
}

/// Measured description edits for `skill` on the library's suites.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn suggest_edits(
    app: AppHandle,
    ranker: RankerKind,
    skill: String,
) -> CommandResult<Suggestions> {
    blocking(move || {
        ensure_ranker(&app, ranker)?;
        let state = app.state::<AppState>();
        let session = state.session();
        let suites = library_suites(&session)?;
        let listing_cap = claude_code::project_listing_cap(&session.library().roots);
        lock(&state.ranking.routing).with_ranker(&session, ranker, None, |ranker, _| {
            let threshold = selection_threshold(&session, None, ranker)?;
            suggest::suggest(
                ranker,
                session.library(),
                &suites,
                &skill,
                threshold,
                listing_cap,
            )
            .map_err(CommandError::failed)
        })?
    })
    .await
}

/// Fits `ranker`'s threshold on the library's suites and stores it in the
/// library's settings, as `hone eval --calibrate` does.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn calibrate_threshold(app: AppHandle, ranker: RankerKind) -> CommandResult<Calibration> {
    blocking(move || {
        ensure_ranker(&app, ranker)?;
        let state = app.state::<AppState>();
        let session = state.session();
        let root = session
            .project_root()
            .ok_or("open a library first")?
            .to_path_buf();
        let suites = library_suites(&session)?;
        let calibration =
            lock(&state.ranking.routing).with_ranker(&session, ranker, None, |ranker, _| {
                let current = selection_threshold(&session, None, ranker)?;
                calibrate::calibrate(ranker, &suites, current, &mut |_, _| {})
                    .map_err(|e| e.to_string())
            })??;
        let mut settings = LibrarySettings::load(&root).map_err(|e| e.to_string())?;
        settings.thresholds.insert(
            calibration.ranker.as_str().to_owned(),
            CalibratedThreshold {
                threshold: calibration.after.threshold,
                cases: calibration.cases,
                accuracy_before: calibration.before.accuracy,
                accuracy_after: calibration.after.accuracy,
            },
        );
        settings.save(&root).map_err(|e| e.to_string())?;
        Ok(calibration)
    })
    .await
}

/// Every suite of the opened library, resolved against its skills.
pub(crate) fn library_suites(session: &Session) -> CommandResult<Vec<Suite>> {
    let suites = eval::suite::library_suites(session.roots())
        .iter()
        .map(|path| Suite::load(path).map_err(CommandError::from))
        .collect::<Result<Vec<_>, _>>()?;
    eval::resolve_suites(&suites, &Identities::from_library(session.library()))
        .map_err(CommandError::failed)
}
