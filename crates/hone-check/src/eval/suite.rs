//! Eval suites: routing cases read from YAML, or imported from the
//! trigger-eval sets of Anthropic's skill-creator.
//!
//! ```yaml
//! name: routing
//! cases:
//!   - query: "write a commit message for the staged changes"
//!     expect: [git-commit-messages]        # any of these is a correct pick
//!     reject: [pull-request-descriptions]  # optional: must not be selected
//!     kind: near-miss                      # optional tag (or a list of tags)
//!   - query: "plan a 5-day trip to Lisbon"
//!     expect: []                           # no skill should be selected
//! ```
//!
//! `expect` and `reject` name skills by identity (`name`) or directory name; a
//! single name may be written without brackets. A case may omit `expect` when
//! it only says which skills must not be selected (that is what a
//! `should_trigger: false` entry of a trigger-eval set means: some other skill
//! may well be right). Every error names the file, line and column.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::text::LineIndex;
use crate::yaml::{self, Node, Value};

/// A named list of cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suite {
    pub name: String,
    pub cases: Vec<Case>,
}

/// One request and what should be selected for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Case {
    pub query: String,
    /// Acceptable skills; `Some([])` means none should be selected; `None`
    /// means the case only checks `reject`.
    pub expect: Option<Vec<String>>,
    /// Skills that must not be selected.
    pub reject: Vec<String>,
    /// Free tags for slicing the metrics.
    pub kinds: Vec<String>,
    /// 1-based line of the case in its file, for messages.
    pub line: u32,
}

impl Case {
    pub fn is_positive(&self) -> bool {
        self.expect.as_ref().is_some_and(|e| !e.is_empty())
    }

    pub fn is_negative(&self) -> bool {
        self.expect.as_ref().is_some_and(Vec::is_empty)
    }
}

/// A suite file that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", path.display())]
pub struct SuiteError {
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl Suite {
    /// Reads a suite file: YAML (`.yaml`, `.yml`) or a skill-creator
    /// trigger-eval set (`.json`, named after its skill).
    pub fn load(path: &Path) -> Result<Suite, SuiteError> {
        let text = std::fs::read_to_string(path).map_err(|err| SuiteError {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: err.to_string(),
        })?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if is_json {
            let skill = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Suite::from_trigger_evals(path, &text, &skill)
        } else {
            Suite::from_yaml(path, &text)
        }
    }

    /// Parses the YAML suite format; `path` is only used in errors and for a
    /// default name.
    pub fn from_yaml(path: &Path, text: &str) -> Result<Suite, SuiteError> {
        let lines = LineIndex::new(text);
        let error = |offset: usize, message: String| {
            let position = lines.position(text, offset);
            SuiteError {
                path: path.to_path_buf(),
                line: position.line,
                column: position.column,
                message,
            }
        };
        let root = yaml::parse(text, 0)
            .map_err(|e| error(e.offset, format!("invalid YAML: {}", e.message)))?;
        if root.as_map().is_none() {
            return Err(error(
                root.span.start,
                format!("a suite is a mapping with `cases`, found {}", root.kind()),
            ));
        }
        let name = match root.get("name") {
            None => default_name(path),
            Some(node) => node.as_str().map(str::to_owned).ok_or_else(|| {
                error(
                    node.span.start,
                    format!("`name` must be a string, found {}", node.kind()),
                )
            })?,
        };
        let Some(cases_node) = root.get("cases") else {
            return Err(error(
                root.span.start,
                "the suite has no `cases` list".into(),
            ));
        };
        // `cases:` with nothing after it is an empty suite, as `cases: []` is.
        let items = match &cases_node.value {
            Value::Seq(items) => items.as_slice(),
            Value::Null => &[],
            _ => {
                return Err(error(
                    cases_node.span.start,
                    format!("`cases` must be a list, found {}", cases_node.kind()),
                ));
            }
        };
        let mut cases = Vec::with_capacity(items.len());
        for item in items {
            let line = lines.position(text, item.span.start).line;
            let entries = item.as_map().ok_or_else(|| {
                error(
                    item.span.start,
                    format!("a case is a mapping with `query`, found {}", item.kind()),
                )
            })?;
            for (key, _) in entries {
                let key_text = key.key_string();
                if !matches!(key_text.as_str(), "query" | "expect" | "reject" | "kind") {
                    return Err(error(
                        key.span.start,
                        format!(
                            "unknown case key `{key_text}` (expected query, expect, reject or kind)"
                        ),
                    ));
                }
            }
            let query = match item.get("query") {
                Some(node) => scalar_text(node).ok_or_else(|| {
                    error(
                        node.span.start,
                        format!("`query` must be a string, found {}", node.kind()),
                    )
                })?,
                None => return Err(error(item.span.start, "the case has no `query`".into())),
            };
            let names = |key: &str| -> Result<Option<Vec<String>>, SuiteError> {
                let Some(node) = item.get(key) else {
                    return Ok(None);
                };
                string_list(node).map(Some).ok_or_else(|| {
                    error(
                        node.span.start,
                        format!(
                            "`{key}` must be a list of skill names, found {}",
                            node.kind()
                        ),
                    )
                })
            };
            let expect = names("expect")?;
            let reject = names("reject")?.unwrap_or_default();
            let kinds = names("kind")?.unwrap_or_default();
            if expect.is_none() && reject.is_empty() {
                return Err(error(
                    item.span.start,
                    "the case has neither `expect` nor `reject`: it tests nothing".into(),
                ));
            }
            cases.push(Case {
                query,
                expect,
                reject,
                kinds,
                line,
            });
        }
        Ok(Suite { name, cases })
    }

    /// Imports a skill-creator trigger-eval set for `skill`:
    /// `[{"query": "...", "should_trigger": true}, ...]`. A query that should
    /// trigger expects the skill; one that should not rejects it.
    pub fn from_trigger_evals(path: &Path, text: &str, skill: &str) -> Result<Suite, SuiteError> {
        #[derive(Deserialize)]
        struct TriggerEval {
            query: String,
            should_trigger: bool,
        }
        let evals: Vec<TriggerEval> = serde_json::from_str(text).map_err(|err| SuiteError {
            path: path.to_path_buf(),
            line: err.line().max(1) as u32,
            column: err.column().max(1) as u32,
            message: format!("not a trigger-eval set ([{{\"query\": ..., \"should_trigger\": true|false}}]): {err}"),
        })?;
        let lines = LineIndex::new(text);
        let mut search_from = 0;
        let cases = evals
            .into_iter()
            .map(|eval| {
                // The case's line, for messages: the next occurrence of its query.
                let needle = serde_json::to_string(&eval.query).unwrap_or_default();
                let offset = text[search_from..]
                    .find(&needle)
                    .map_or(search_from, |i| search_from + i);
                search_from = offset;
                let line = lines.position(text, offset).line;
                let (expect, reject, kind) = if eval.should_trigger {
                    (Some(vec![skill.to_owned()]), Vec::new(), "should-trigger")
                } else {
                    (None, vec![skill.to_owned()], "should-not-trigger")
                };
                Case {
                    query: eval.query,
                    expect,
                    reject,
                    kinds: vec![kind.to_owned()],
                    line,
                }
            })
            .collect();
        Ok(Suite {
            name: format!("{skill} triggers"),
            cases,
        })
    }

    /// Every skill name the suite mentions, sorted and deduplicated.
    pub fn skill_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .cases
            .iter()
            .flat_map(|c| c.expect.iter().flatten().chain(&c.reject))
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

/// The folder of a library root that holds the library's routing suites.
pub const SUITES_DIR: &str = "evals";

/// The folder of named runs (`eval::runs`), under the library's `evals/`
/// folder: named here, where suite discovery skips it, so that suites need
/// not import the runs, which read them.
pub const RUNS_DIR: &str = "runs";

/// Where a library or a skill keeps its task suites (`hone bench`'s): named
/// here, where suite discovery skips them, so eval need not import the
/// benchmarks.
pub const TASKS_DIR: &str = "evals/tasks";

/// Where a library keeps the benchmark reports its author chose to compare
/// later runs with (`hone bench`'s; skipped by suite discovery too).
pub const KEPT_DIR: &str = "evals/bench-runs";

/// The suite files of a library: for each root, those of its `evals/` folder,
/// then those of each sub-folder of it, one level deep (e.g.
/// `evals/trigger-evals/*.json`, the layout skill-creator writes), sorted
/// within each folder. A root without `evals/` has none.
pub fn library_suites<'a>(roots: impl IntoIterator<Item = &'a Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for root in roots {
        let evals = root.join(SUITES_DIR);
        if !evals.is_dir() {
            continue;
        }
        files.extend(suite_files(&evals).unwrap_or_default());
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&evals)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            // Named runs (`evals/runs/`) are saved reports, not suites; task
            // suites and kept benchmarks are `hone bench`'s.
            .filter(|p| {
                p.is_dir()
                    && !p.ends_with(RUNS_DIR)
                    && !p.ends_with(TASKS_DIR)
                    && !p.ends_with(KEPT_DIR)
            })
            .collect();
        subdirs.sort();
        for dir in subdirs {
            files.extend(suite_files(&dir).unwrap_or_default());
        }
    }
    files
}

/// How a suite of the library is named to the user: its path under the
/// `evals/` folder of the root holding it.
pub fn suite_label<'a>(
    roots: impl IntoIterator<Item = &'a Path>,
    suite: &'a Path,
) -> Option<PathBuf> {
    roots
        .into_iter()
        .find_map(|root| suite.strip_prefix(root.join(SUITES_DIR)).ok())
        .map(Path::to_path_buf)
}

/// The suite files at `path`: the file itself, or the `.yaml`, `.yml` and
/// `.json` files of a directory (not recursive), sorted, except the
/// library's settings file.
pub fn suite_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.file_name() != Some(std::ffi::OsStr::new(crate::library_settings::FILE_NAME))
                && p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                    matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json")
                })
        })
        .collect();
    files.sort();
    Ok(files)
}

fn default_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "suite".into())
}

/// A scalar as text: strings, and numbers or booleans as written.
fn scalar_text(node: &Node) -> Option<String> {
    match &node.value {
        Value::String(s) => Some(s.clone()),
        Value::Int(_) | Value::Float(_) | Value::Bool(_) => node.raw.clone(),
        _ => None,
    }
}

/// A list of scalars, or one scalar as a one-item list; `null` is empty.
fn string_list(node: &Node) -> Option<Vec<String>> {
    match &node.value {
        Value::Null => Some(Vec::new()),
        Value::Seq(items) => items.iter().map(scalar_text).collect(),
        _ => scalar_text(node).map(|s| vec![s]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_has_the_suites_of_its_evals_folder_one_level_deep() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let evals = root.join(SUITES_DIR);
        for file in [
            "b.yaml",
            "a.json",
            "notes.md",
            "trigger/c.yml",
            "trigger/deep/d.yaml",
        ] {
            let path = evals.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "name: s\ncases: []\n").unwrap();
        }
        let other = tempfile::tempdir().unwrap();
        let found = library_suites([root, other.path()]);
        let expected: Vec<PathBuf> = ["a.json", "b.yaml", "trigger/c.yml"]
            .iter()
            .map(|f| evals.join(f))
            .collect();
        assert_eq!(found, expected);
        assert_eq!(
            suite_label([other.path(), root], &found[2]),
            Some(PathBuf::from("trigger/c.yml"))
        );
        assert_eq!(suite_label([other.path()], &found[2]), None);
    }

    fn parse(text: &str) -> Result<Suite, SuiteError> {
        Suite::from_yaml(Path::new("s.yaml"), text)
    }

    #[test]
    fn reads_cases_with_optional_fields() {
        let suite = parse(
            "name: r\ncases:\n  - query: \"a: b\"\n    expect: [x, y]\n    kind: direct\n  - query: q\n    expect: []\n    reject: z\n  - query: 3\n    reject: [x]\n    kind: [a, b]\n",
        )
        .unwrap();
        assert_eq!(suite.name, "r");
        assert_eq!(suite.cases.len(), 3);
        assert_eq!(suite.cases[0].query, "a: b");
        assert!(suite.cases[0].is_positive());
        assert_eq!(suite.cases[0].kinds, ["direct"]);
        assert!(suite.cases[1].is_negative());
        assert_eq!(suite.cases[1].reject, ["z"]);
        assert_eq!(suite.cases[1].line, 6);
        assert_eq!(suite.cases[2].query, "3");
        assert_eq!(suite.cases[2].expect, None);
        assert_eq!(suite.skill_names(), ["x", "y", "z"]);
    }

    #[test]
    fn suite_discovery_skips_the_library_settings() {
        let tmp = tempfile::tempdir().unwrap();
        for name in [
            "routing.yaml",
            "pdf.json",
            crate::library_settings::FILE_NAME,
        ] {
            std::fs::write(tmp.path().join(name), "{}").unwrap();
        }
        let names: Vec<String> = suite_files(tmp.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["pdf.json", "routing.yaml"]);
    }

    #[test]
    fn errors_carry_positions_and_reasons() {
        let err = parse("cases:\n  - query: [\n").unwrap_err();
        assert!(err.message.starts_with("invalid YAML"), "{err}");
        assert!(err.line >= 2, "{err}");

        let err = parse("cases:\n  - query: q\n    expect: {a: 1}\n").unwrap_err();
        assert_eq!((err.line, err.column), (3, 13), "{err}");
        assert!(err.message.contains("`expect`"));

        let err = parse("cases:\n  - query: q\n").unwrap_err();
        assert!(err.message.contains("tests nothing"), "{err}");

        let err = parse("cases:\n  - query: q\n    expected: [a]\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(
            err.to_string()
                .starts_with("s.yaml:3:5: unknown case key `expected`"),
            "{err}"
        );

        assert!(parse("- a\n").unwrap_err().message.contains("mapping"));
        assert!(
            parse("name: x\n")
                .unwrap_err()
                .message
                .contains("no `cases`")
        );
    }

    #[test]
    fn imports_trigger_evals() {
        let text = "[\n {\"query\": \"a\", \"should_trigger\": true},\n {\"query\": \"b\", \"should_trigger\": false}\n]";
        let suite = Suite::from_trigger_evals(Path::new("deploy.json"), text, "deploy").unwrap();
        assert_eq!(
            suite.cases[0].expect.as_deref(),
            Some(&["deploy".to_owned()][..])
        );
        assert_eq!(suite.cases[1].expect, None);
        assert_eq!(suite.cases[1].reject, ["deploy"]);
        assert_eq!(suite.cases[1].line, 3);
        let err =
            Suite::from_trigger_evals(Path::new("d.json"), "[{\"query\": 1}]", "d").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.column > 1);
    }
}
