//! Named eval runs, kept with the library in `evals/runs/NAME.json`.
//!
//! "What did my edit change" needs something fixed to compare with: the
//! previous run moves with every run, so an author names a run ("before the
//! rewrite") and pins it as the baseline. The file is the run's [`Report`]
//! (the `hone eval --format json` shape) with the name, when it was saved and
//! whether unsaved edits were part of it, so a named run can be committed and
//! compared with again on another machine. Suite discovery skips the folder
//! ([`super::suite::library_suites`]): a saved report is not a suite.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::report::{MetricValues, Report};
use super::suite::{RUNS_DIR, SUITES_DIR};
use crate::rank::RankerKind;
use crate::workspace;

/// Longest run name, in characters: it is a file name and a chart label.
pub const MAX_NAME_CHARS: usize = 64;

/// A run kept under a name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SavedRun {
    pub name: String,
    /// Seconds since the Unix epoch.
    pub saved_at: u64,
    /// Whether unsaved edits of a skill were part of the run.
    #[serde(default)]
    pub with_edits: bool,
    pub report: Report,
}

/// What a list of named runs shows of each: enough to pick a baseline and
/// draw it on a chart without reading every case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunSummary {
    pub name: String,
    pub saved_at: u64,
    pub with_edits: bool,
    pub suite: String,
    pub ranker: RankerKind,
    pub threshold: f32,
    pub metrics: MetricValues,
}

impl SavedRun {
    pub fn summary(&self) -> RunSummary {
        RunSummary {
            name: self.name.clone(),
            saved_at: self.saved_at,
            with_edits: self.with_edits,
            suite: self.report.suite.clone(),
            ranker: self.report.ranker,
            threshold: self.report.threshold,
            metrics: self.report.metrics.overall.clone(),
        }
    }
}

/// The library's named runs, oldest first, and the files that could not be
/// read (each with why), so a broken file is reported rather than hidden.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunListing {
    pub runs: Vec<RunSummary>,
    pub problems: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    InvalidName(String),
    #[error("a run named “{0}” is already kept; choose another name or replace it")]
    Exists(String),
    #[error("no run named “{0}” is kept with this library")]
    NotFound(String),
    #[error("{}: {message}", path.display())]
    Unreadable { path: PathBuf, message: String },
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The folder of named runs of the library at `root`.
pub fn runs_dir(root: &Path) -> PathBuf {
    root.join(SUITES_DIR).join(RUNS_DIR)
}

/// Checks that `name` can name a run: it becomes a file name, so letters,
/// digits, spaces, `-`, `_` and `.`, not starting with a dot or a space.
pub fn check_run_name(name: &str) -> Result<(), RunError> {
    let invalid = |why: &str| Err(RunError::InvalidName(format!("“{name}”: {why}")));
    if name.trim().is_empty() {
        return Err(RunError::InvalidName("a run needs a name".into()));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return invalid(&format!("at most {MAX_NAME_CHARS} characters"));
    }
    if name.starts_with(['.', ' ']) || name.ends_with(' ') {
        return invalid("it may not start with a dot or a space, nor end with a space");
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.')))
    {
        return invalid(&format!(
            "`{c}` is not allowed (letters, digits, spaces, - _ .)"
        ));
    }
    Ok(())
}

fn run_path(root: &Path, name: &str) -> Result<PathBuf, RunError> {
    check_run_name(name)?;
    Ok(runs_dir(root).join(format!("{name}.json")))
}

/// Keeps `run` as `evals/runs/NAME.json`, atomically; an existing run of
/// that name is replaced only when `replace` is set.
pub fn save_run(root: &Path, run: &SavedRun, replace: bool) -> Result<PathBuf, RunError> {
    let path = run_path(root, &run.name)?;
    if !replace && path.exists() {
        return Err(RunError::Exists(run.name.clone()));
    }
    std::fs::create_dir_all(runs_dir(root))?;
    let mut json = serde_json::to_vec_pretty(run).map_err(io::Error::other)?;
    json.push(b'\n');
    workspace::write_atomic(&path, &json)?;
    Ok(path)
}

/// Reads the run named `name`.
pub fn load_run(root: &Path, name: &str) -> Result<SavedRun, RunError> {
    let path = run_path(root, name)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(RunError::NotFound(name.to_owned()));
        }
        Err(e) => return Err(e.into()),
    };
    parse_run(&path, &text)
}

fn parse_run(path: &Path, text: &str) -> Result<SavedRun, RunError> {
    serde_json::from_str(text).map_err(|e| RunError::Unreadable {
        path: path.to_path_buf(),
        message: format!("not a saved run ({e})"),
    })
}

/// Removes the run named `name`.
pub fn delete_run(root: &Path, name: &str) -> Result<(), RunError> {
    let path = run_path(root, name)?;
    std::fs::remove_file(&path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => RunError::NotFound(name.to_owned()),
        _ => e.into(),
    })
}

/// The named runs of the library at `root`, oldest first (then by name).
pub fn list_runs(root: &Path) -> RunListing {
    let mut listing = RunListing::default();
    let Ok(entries) = std::fs::read_dir(runs_dir(root)) else {
        return listing;
    };
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        let is_json = path.extension().is_some_and(|e| e == "json");
        if !is_json || workspace::is_temporary(&path) {
            continue;
        }
        let read = std::fs::read_to_string(&path)
            .map_err(|e| RunError::Unreadable {
                path: path.clone(),
                message: e.to_string(),
            })
            .and_then(|text| parse_run(&path, &text));
        match read {
            Ok(run) => listing.runs.push(run.summary()),
            Err(e) => listing.problems.push(e.to_string()),
        }
    }
    listing
        .runs
        .sort_by(|a, b| a.saved_at.cmp(&b.saved_at).then(a.name.cmp(&b.name)));
    listing.problems.sort();
    listing
}

/// Seconds since the Unix epoch, for [`SavedRun::saved_at`].
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, saved_at: u64) -> SavedRun {
        SavedRun {
            name: name.into(),
            saved_at,
            with_edits: false,
            report: Report::new("s".into(), "l".into(), RankerKind::Bm25, 0.4, Vec::new()),
        }
    }

    #[test]
    fn names_that_make_safe_file_names_are_accepted() {
        for good in ["before rewrite", "v1.2", "baseline_2026-11-24", "ünïcode"] {
            assert!(check_run_name(good).is_ok(), "{good}");
        }
        for bad in ["", "  ", "../x", "a/b", ".hidden", " lead", "trail ", "a:b"] {
            assert!(
                matches!(check_run_name(bad), Err(RunError::InvalidName(_))),
                "{bad}"
            );
        }
        assert!(check_run_name(&"x".repeat(MAX_NAME_CHARS + 1)).is_err());
    }

    #[test]
    fn a_saved_run_is_listed_loaded_refused_twice_replaced_and_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(list_runs(root), RunListing::default());
        save_run(root, &run("later", 20), false).unwrap();
        save_run(root, &run("before rewrite", 10), false).unwrap();
        assert!(matches!(
            save_run(root, &run("later", 30), false),
            Err(RunError::Exists(_))
        ));
        save_run(root, &run("later", 30), true).unwrap();
        std::fs::write(runs_dir(root).join("broken.json"), "{").unwrap();

        let listing = list_runs(root);
        let names: Vec<&str> = listing.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["before rewrite", "later"]);
        assert_eq!(listing.runs[1].saved_at, 30);
        assert_eq!(listing.problems.len(), 1);
        assert!(listing.problems[0].contains("broken.json"), "{listing:?}");

        assert_eq!(load_run(root, "later").unwrap(), run("later", 30));
        assert!(matches!(load_run(root, "nope"), Err(RunError::NotFound(_))));
        assert!(matches!(
            load_run(root, "broken"),
            Err(RunError::Unreadable { .. })
        ));
        delete_run(root, "later").unwrap();
        assert!(matches!(
            delete_run(root, "later"),
            Err(RunError::NotFound(_))
        ));
    }

    #[test]
    fn named_runs_are_not_suites() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(SUITES_DIR)).unwrap();
        std::fs::write(root.join(SUITES_DIR).join("routing.yaml"), "cases: []\n").unwrap();
        save_run(root, &run("kept", 1), false).unwrap();
        let suites = super::super::suite::library_suites([root]);
        assert_eq!(suites, [root.join(SUITES_DIR).join("routing.yaml")]);
    }
}
