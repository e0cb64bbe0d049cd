//! The test-query panel and eval runs: the engine's rankers over the opened
//! library, kept in step with the disk and with the editor's unsaved text by
//! [`LiveRankers`] (the "overlay"), so rankings and eval runs answer "what
//! would this edit do" before anything is saved. Building a semantic ranker
//! embeds the library the first time (minutes for thousands of skills); it
//! happens outside the lock, with progress events, so keyword ranking stays
//! responsive meanwhile.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use hone_core::clients::Client;
use hone_core::embed::EmbedProgress;
use hone_core::eval::{self, Comparison, Identities, Report, RunOptions, Suite};
use hone_core::library_settings;
use hone_core::rank::highlight::field_highlights;
use hone_core::rank::live::{LiveRankers, position};
use hone_core::rank::{self, Ranker, RankerKind, RoutingDoc};

use crate::ipc::CommandError;
use crate::session::Session;
use crate::views::{OpenRank, RankedView, Ranking};

/// How deep a ranking looks for the open skill's rank.
const OPEN_RANK_DEPTH: usize = 50;

#[derive(Default)]
pub struct Routing {
    /// The session the rankers' documents come from.
    session: Option<Arc<Session>>,
    live: LiveRankers,
    /// The last run of each suite with each ranker, for "what changed".
    last_runs: HashMap<(PathBuf, RankerKind), Report>,
    /// The client whose own skills compete beside the library's.
    builtins: Option<Client>,
}

impl Routing {
    /// The documents a new ranker starts from, for the current session.
    pub fn snapshot(&mut self, session: &Arc<Session>) -> Vec<RoutingDoc> {
        self.sync(session);
        self.live.snapshot()
    }

    pub fn has(&self, kind: RankerKind) -> bool {
        self.live.has(kind)
    }

    /// Adds a ranker built from [`Routing::snapshot`] (possibly of an older
    /// session: the next use brings it up to date).
    pub fn insert(&mut self, ranker: Box<dyn Ranker>, built_from: Vec<RoutingDoc>) {
        self.live.insert(ranker, built_from);
    }

    /// Brings every ranker up to date with `session`'s library.
    fn sync(&mut self, session: &Arc<Session>) {
        if self
            .session
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, session))
        {
            return;
        }
        self.live.update(RoutingDoc::with_builtins(
            RoutingDoc::from_library(session.library()),
            self.builtins,
        ));
        self.session = Some(session.clone());
    }

    /// Lets `client`'s own skills compete in every ranking and eval run
    /// from now on (`None`: the library alone).
    pub fn set_builtins(&mut self, session: &Arc<Session>, client: Option<Client>) {
        if self.builtins != client {
            self.builtins = client;
            // The next sync re-reads the documents, built-ins included.
            self.session = None;
        }
        self.sync(session);
    }

    /// Ranks `query`, and says where the open skill stands with its edits and
    /// without them.
    pub fn rank(
        &mut self,
        session: &Arc<Session>,
        kind: RankerKind,
        query: &str,
        top: usize,
        open: Option<&RoutingDoc>,
    ) -> Result<Ranking, String> {
        let started = Instant::now();
        self.sync(session);
        let ranker = self.live.prepare(kind, open).map_err(|e| e.to_string())?;
        let matches = ranker
            .rank(query, top.max(OPEN_RANK_DEPTH))
            .map_err(|e| e.to_string())?;
        let threshold = selection_threshold(session, None, ranker)?;
        let micros = started.elapsed().as_micros() as u64;
        let open_rank = open.map(|doc| {
            let now = position(&matches, &doc.key);
            let edited = self.live.is_overlaid(kind);
            // Without an overlay the edit changes nothing the ranker sees.
            let saved = if edited {
                self.live.saved_rank(kind, query, OPEN_RANK_DEPTH, &doc.key)
            } else {
                now
            };
            OpenRank {
                id: doc.id.clone(),
                now,
                saved,
                edited,
            }
        });
        let results = matches
            .into_iter()
            .take(top)
            .enumerate()
            .map(|(i, m)| {
                let doc = self.live.doc(kind, &m.key);
                ranked_view(i + 1, m, doc)
            })
            .collect();
        Ok(Ranking {
            ranker: kind,
            default_threshold: threshold,
            results,
            open: open_rank,
            micros,
        })
    }

    /// Runs `work` on the ranker of `kind` with `edited` in place, given the
    /// documents the ranker indexes (the edit included).
    pub fn with_ranker<T>(
        &mut self,
        session: &Arc<Session>,
        kind: RankerKind,
        edited: Option<&RoutingDoc>,
        work: impl FnOnce(&mut dyn Ranker, &[RoutingDoc]) -> T,
    ) -> Result<T, String> {
        self.sync(session);
        self.live
            .with_prepared(kind, edited, work)
            .map_err(|e| e.to_string())
    }

    /// Runs `suite` (resolved against the library) with the edits in place
    /// and compares it with the previous run of the same suite and ranker.
    pub fn run_eval(
        &mut self,
        session: &Arc<Session>,
        kind: RankerKind,
        suite_path: &Path,
        threshold: Option<f32>,
        open: Option<&RoutingDoc>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Report, Option<Comparison>), CommandError> {
        let report = self.run_suite(session, kind, suite_path, threshold, open, progress)?;
        let key = (suite_path.to_path_buf(), kind);
        let comparison = self
            .last_runs
            .get(&key)
            .map(|old| Comparison::new(old, &report));
        self.last_runs.insert(key, report.clone());
        Ok((report, comparison))
    }

    /// Runs `suite` without remembering the run: for a baseline, which is
    /// not "the previous run" of the next one.
    pub fn run_suite(
        &mut self,
        session: &Arc<Session>,
        kind: RankerKind,
        suite_path: &Path,
        threshold: Option<f32>,
        open: Option<&RoutingDoc>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Report, CommandError> {
        let suites = resolved_suite(session, suite_path)?;
        self.run_suites(session, kind, &suites, threshold, open, progress)
    }

    /// Runs `suites` (already resolved) with the edits in place, without
    /// remembering the run.
    pub fn run_suites(
        &mut self,
        session: &Arc<Session>,
        kind: RankerKind,
        suites: &[Suite],
        threshold: Option<f32>,
        open: Option<&RoutingDoc>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Report, CommandError> {
        self.sync(session);
        let ranker = self.live.prepare(kind, open).map_err(|e| e.to_string())?;
        let options = RunOptions {
            threshold: selection_threshold(session, threshold, ranker)?,
            library: session
                .project_root()
                .map(crate::session::display)
                .unwrap_or_default(),
        };
        Ok(eval::run(ranker, suites, &options, progress))
    }
}

/// The suite at `path`, its skill names resolved against the opened library.
pub fn resolved_suite(session: &Session, path: &Path) -> Result<Vec<Suite>, CommandError> {
    let suite = Suite::load(path)?;
    let identities = Identities::from_library(session.library());
    Ok(eval::resolve_suites(&[suite], &identities).map_err(|e| e.to_string())?)
}

/// The threshold `ranker` selects with in the opened library: `explicit`,
/// else the one calibrated for it (`hone eval --calibrate`), else its own.
pub fn selection_threshold(
    session: &Session,
    explicit: Option<f32>,
    ranker: &dyn Ranker,
) -> Result<f32, String> {
    library_settings::selection_threshold(
        session.project_root(),
        ranker.kind(),
        explicit,
        ranker.default_threshold(),
    )
    .map_err(|e| e.to_string())
}

/// Builds a ranker of `kind`: the expensive part, done without the lock.
pub fn build(
    kind: RankerKind,
    docs: Vec<RoutingDoc>,
    progress: &mut dyn FnMut(EmbedProgress),
    stop: Option<hone_core::embed::Stop>,
) -> Result<Box<dyn Ranker>, String> {
    rank::build_stopping(kind, docs, None, progress, stop).map_err(|e| match e {
        rank::RankError::Model(message) => message,
        other => other.to_string(),
    })
}

fn ranked_view(rank: usize, m: rank::Match, doc: Option<&RoutingDoc>) -> RankedView {
    let fields = doc.map_or_else(Vec::new, |doc| field_highlights(doc, &m.explanation));
    RankedView {
        rank,
        builtin_of: rank::builtin_client(&m.key),
        id: m.id,
        key: m.key,
        score: m.score,
        confidence: m.confidence,
        fields,
        explanation: m.explanation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn library() -> (tempfile::TempDir, Arc<Session>) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (name, description) in [
            (
                "pdf-forms",
                "Fill PDF forms. Use when the user has a PDF form to fill.",
            ),
            (
                "spreadsheets",
                "Edit Excel spreadsheets. Use when a .xlsx file is mentioned.",
            ),
        ] {
            fs::create_dir(root.join(name)).unwrap();
            fs::write(
                root.join(name).join("SKILL.md"),
                format!("---\nname: {name}\ndescription: {description}\n---\nBody\n"),
            )
            .unwrap();
        }
        let session = Arc::new(Session::open(&root, None).unwrap());
        (dir, session)
    }

    fn routing(session: &Arc<Session>) -> Routing {
        let mut routing = Routing::default();
        let docs = routing.snapshot(session);
        let ranker = build(RankerKind::Bm25, docs.clone(), &mut |_| {}, None).unwrap();
        routing.insert(ranker, docs);
        routing
    }

    #[test]
    fn unsaved_edits_move_the_open_skill_and_report_both_ranks() {
        let (_dir, session) = library();
        let mut routing = routing(&session);
        let query = "fill in the tax form in this pdf";
        let ranking = routing
            .rank(&session, RankerKind::Bm25, query, 5, None)
            .unwrap();
        assert_eq!(ranking.results[0].id, "pdf-forms");
        assert!(
            ranking.results[0]
                .fields
                .iter()
                .any(|f| f.segments.iter().any(|s| s.hit))
        );

        let mut edited = RoutingDoc::from_library(session.library())
            .into_iter()
            .find(|d| d.id == "spreadsheets")
            .unwrap();
        edited.description = "Fill tax forms in PDF files and spreadsheets.".into();
        let ranking = routing
            .rank(&session, RankerKind::Bm25, query, 5, Some(&edited))
            .unwrap();
        let open = ranking.open.unwrap();
        assert!(open.edited);
        assert_eq!(open.now, Some(1), "{:?}", ranking.results);
        // Saved, it shares no word with the request.
        assert_eq!(open.saved, None);

        // Without the overlay the saved text ranks again.
        let ranking = routing
            .rank(&session, RankerKind::Bm25, query, 5, None)
            .unwrap();
        assert_eq!(ranking.results[0].id, "pdf-forms");
    }

    #[test]
    fn a_clients_builtins_compete_when_asked_and_leave_when_not() {
        let (_dir, session) = library();
        let mut routing = routing(&session);
        let query = "complete a security review of the pending changes on this branch";
        routing.set_builtins(&session, Some(Client::ClaudeCode));
        let ranking = routing
            .rank(&session, RankerKind::Bm25, query, 5, None)
            .unwrap();
        assert_eq!(ranking.results[0].id, "security-review");
        assert_eq!(ranking.results[0].builtin_of, Some(Client::ClaudeCode));
        routing.set_builtins(&session, None);
        let ranking = routing
            .rank(&session, RankerKind::Bm25, query, 5, None)
            .unwrap();
        assert!(ranking.results.iter().all(|r| r.builtin_of.is_none()));
    }

    #[test]
    fn eval_runs_compare_with_the_previous_run() {
        let (dir, session) = library();
        let suite = dir.path().join("suite.yaml");
        fs::write(
            &suite,
            "name: s\ncases:\n  - query: fill the pdf form\n    expect: [pdf-forms]\n  - query: edit my xlsx\n    expect: [spreadsheets]\n",
        )
        .unwrap();
        let mut routing = routing(&session);
        let (first, comparison) = routing
            .run_eval(
                &session,
                RankerKind::Bm25,
                &suite,
                None,
                None,
                &mut |_, _| {},
            )
            .unwrap();
        assert!(comparison.is_none());
        assert_eq!(first.metrics.overall.p_at_1, Some(1.0));
        let (_, comparison) = routing
            .run_eval(
                &session,
                RankerKind::Bm25,
                &suite,
                None,
                None,
                &mut |_, _| {},
            )
            .unwrap();
        assert!(comparison.is_some());
    }

    #[test]
    fn a_baseline_run_is_not_the_previous_run() {
        let (dir, session) = library();
        let suite = dir.path().join("suite.yaml");
        fs::write(
            &suite,
            "name: s\ncases:\n  - query: fill the pdf form\n    expect: [pdf-forms]\n",
        )
        .unwrap();
        let mut routing = routing(&session);
        let baseline = routing
            .run_suite(
                &session,
                RankerKind::Bm25,
                &suite,
                None,
                None,
                &mut |_, _| {},
            )
            .unwrap();
        assert_eq!(baseline.metrics.overall.p_at_1, Some(1.0));
        let (_, comparison) = routing
            .run_eval(
                &session,
                RankerKind::Bm25,
                &suite,
                None,
                None,
                &mut |_, _| {},
            )
            .unwrap();
        assert!(comparison.is_none(), "the baseline run was not recorded");
    }
}
