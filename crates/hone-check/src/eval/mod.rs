//! Routing evals: run suites of requests through a [`Ranker`] and measure
//! whether the right skill, or none, is selected.
//!
//! The engine knows nothing of libraries on disk: it takes any `&dyn Ranker`
//! (keyword, semantic, hybrid) and the [`Identities`] of the skills it
//! indexes, so `hone eval` and the app share it, the app with a progress
//! callback. Suite names are resolved before anything runs: a suite naming a
//! skill the library lacks is an error that lists every such name, because a
//! typo there silently turns a case into a guaranteed failure.
//!
//! The metrics and the report's JSON shape are documented in [`report`].
//!
//! Eval sits with the rankers, below the agents and the benchmarks: asking
//! an agent to confirm suggestions is `agent::confirm`'s, and the folders
//! of `hone bench` that suite discovery skips are named here
//! ([`suite::TASKS_DIR`], [`suite::KEPT_DIR`]), so nothing in eval imports
//! `agent` or `bench`.

pub mod calibrate;
pub mod edit;
pub mod report;
pub mod runs;
pub mod suggest;
pub mod suite;

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use crate::library::Library;
use crate::rank::{Ranker, RoutingDoc};

pub use report::{
    Agreement, CaseReport, Comparison, ConfusionCell, Gate, MetricValues, Metrics, RankedSkill,
    Report, agreement, confusion,
};
pub use suite::{Case, Suite, SuiteError};

/// How deep each ranking goes: MRR and the rank of the first expected skill
/// are computed over this many matches.
pub const RANK_DEPTH: usize = 10;

/// The names a suite may use for each skill: its identity, or its directory
/// name. Identities win when a directory name is another skill's identity.
#[derive(Debug, Clone, Default)]
pub struct Identities {
    ids: HashSet<String>,
    dir_names: HashMap<String, String>,
}

impl Identities {
    /// From `(identity, directory name)` pairs.
    pub fn new<I, S>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (S, S)>,
        S: Into<String>,
    {
        let mut identities = Identities::default();
        for (id, dir_name) in pairs {
            let id = id.into();
            identities
                .dir_names
                .entry(dir_name.into())
                .or_insert_with(|| id.clone());
            identities.ids.insert(id);
        }
        identities
    }

    pub fn from_library(library: &Library) -> Self {
        Identities::new(library.skills.iter().map(|s| (s.id.clone(), s.dir_name())))
    }

    /// From routing documents whose keys are directory paths.
    pub fn from_docs(docs: &[RoutingDoc]) -> Self {
        Identities::new(docs.iter().map(|d| {
            let dir_name = std::path::Path::new(&d.key)
                .file_name()
                .map_or_else(|| d.key.clone(), |n| n.to_string_lossy().into_owned());
            (d.id.clone(), dir_name)
        }))
    }

    /// The identity `name` refers to.
    pub fn resolve<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        if self.ids.contains(name) {
            return Some(name);
        }
        self.dir_names.get(name).map(String::as_str)
    }
}

/// Skills named by suites that the library does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} skill name(s) in the suites are not in the library: {}", unknown.len(), describe(unknown))]
pub struct UnknownSkills {
    /// `(suite name, skill name)` pairs, sorted.
    pub unknown: Vec<(String, String)>,
}

fn describe(unknown: &[(String, String)]) -> String {
    unknown
        .iter()
        .map(|(suite, name)| format!("`{name}` (suite {suite})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Rewrites every skill name of the suites to its identity.
pub fn resolve_suites(
    suites: &[Suite],
    identities: &Identities,
) -> Result<Vec<Suite>, UnknownSkills> {
    let mut unknown = Vec::new();
    let mut resolved = suites.to_vec();
    for suite in &mut resolved {
        let suite_name = suite.name.clone();
        let mut resolve_all = |names: &mut Vec<String>| {
            for name in names.iter_mut() {
                match identities.resolve(name) {
                    Some(id) => *name = id.to_owned(),
                    None => unknown.push((suite_name.clone(), name.clone())),
                }
            }
        };
        for case in &mut suite.cases {
            if let Some(expect) = &mut case.expect {
                resolve_all(expect);
            }
            resolve_all(&mut case.reject);
        }
    }
    if unknown.is_empty() {
        Ok(resolved)
    } else {
        unknown.sort();
        unknown.dedup();
        Err(UnknownSkills { unknown })
    }
}

/// What a run is measured against.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Confidence at which a match is selected.
    pub threshold: f32,
    /// A label for the library in the report (its path).
    pub library: String,
}

/// Runs resolved suites (see [`resolve_suites`]) through `ranker`.
/// `progress(done, total)` is called after every case. A case whose request
/// the ranker refuses fails with the ranker's message; the run goes on.
pub fn run(
    ranker: &dyn Ranker,
    suites: &[Suite],
    options: &RunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Report {
    let total: usize = suites.iter().map(|s| s.cases.len()).sum();
    let mut cases = Vec::with_capacity(total);
    for suite in suites {
        for case in &suite.cases {
            let started = Instant::now();
            let ranked = ranker.rank(&case.query, RANK_DEPTH);
            let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
            cases.push(CaseReport::new(
                &suite.name,
                case,
                ranked,
                options.threshold,
                latency_ms,
            ));
            progress(cases.len(), total);
        }
    }
    Report::new(
        suite_label(suites),
        options.library.clone(),
        ranker.kind(),
        options.threshold,
        cases,
    )
}

/// The suites' names as a report labels them.
pub fn suite_label(suites: &[Suite]) -> String {
    suites
        .iter()
        .map(|s| s.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
