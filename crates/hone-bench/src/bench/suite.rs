//! Task suites: what an agent is asked to do, and how its work is graded.
//!
//! ```yaml
//! # evals/tasks/greet.yaml
//! name: greet
//! skill: greet                  # the skill under test
//! cases:
//!   - name: greets-by-name
//!     prompt: "Greet Ada in hello.txt"
//!     files: {notes.txt: "Ada prefers exclamation marks."}   # copied into the workspace
//!     fixtures: fixtures/greet  # a folder copied into the workspace (relative to this file)
//!     allowed_tools: [Write, "Bash(cat:*)"]
//!     runs: 3
//!     graders:
//!       - {type: file_matches, path: hello.txt, pattern: "Hello, Ada!"}
//!       - {type: regex, pattern: "(?i)done", target: last_message}
//!       - {type: command, run: "grep -q '!' hello.txt"}
//!       - {type: skill_loaded}
//!       - {type: llm, criteria: "The reply names the file it wrote"}
//!     script:                   # the scripted model of `hone bench --scripted`
//!       - skill: greet
//!       - {write: {path: hello.txt, content: "Hello, Ada!"}, when: loaded}
//!       - {write: {path: hello.txt, content: "hello ada"}, when: not-loaded}
//!       - answer: "Done: wrote hello.txt"
//! ```
//!
//! Two other formats are read unchanged: skill-creator's `evals/evals.json`
//! (each expectation becomes an `llm` grader) and the case folders of
//! `claude plugin eval` (`case.yaml`, or `prompt.md` with `graders/*.md`).
//! Every error names the file and, for YAML, the line and column.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::clients::script::Step;
use crate::text::LineIndex;
use crate::yaml;

/// A named list of task cases about one skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskSuite {
    /// The file's name without its extension when absent.
    #[serde(default)]
    pub name: String,
    /// The skill under test (its name or folder); the library's only skill
    /// when absent.
    pub skill: Option<String>,
    pub cases: Vec<TaskCase>,
    /// What an import left out, in words (a grader type Hone does not run).
    #[serde(default)]
    #[schemars(skip)]
    pub notes: Vec<String>,
    /// Where the suite was read from: fixture folders are relative to it.
    #[serde(skip)]
    #[schemars(skip)]
    pub base: PathBuf,
}

/// One task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct TaskCase {
    pub name: String,
    pub prompt: String,
    /// Files written into the workspace before the run: path → content.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// A folder (relative to the suite) whose contents become the workspace.
    #[serde(default)]
    pub fixtures: Option<String>,
    /// Files or folders (relative to the suite) copied into the workspace
    /// under the same relative path.
    #[serde(default)]
    pub copy: Vec<String>,
    /// Tools the agent may use without asking, in Claude Code's syntax
    /// (`Write`, `Bash(git diff:*)`), translated for every other agent (see
    /// `clients::permissions`); none leaves the agent read-only.
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    #[serde(default = "default_max_turns")]
    pub max_turns: u32,
    /// Seconds before a run is stopped.
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// Runs per arm (the command line's `--runs` wins).
    #[serde(default)]
    pub runs: Option<u32>,
    pub graders: Vec<Grader>,
    /// The scripted model's steps, for runs that check the suite's plumbing
    /// without a model.
    #[serde(default)]
    #[cfg_attr(feature = "specta", specta(skip))]
    pub script: Vec<Step>,
}

fn default_max_turns() -> u32 {
    10
}

fn default_timeout() -> u64 {
    300
}

/// A check of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Grader {
    /// Named in reports; `<type>-<n>` when absent.
    #[serde(default)]
    pub name: String,
    /// Only in the arm with the skill (`with-only`), or in every arm.
    #[serde(default)]
    pub arm: ArmScope,
    #[serde(flatten)]
    pub check: Check,
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum ArmScope {
    #[default]
    Both,
    WithOnly,
}

/// What a grader checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Check {
    /// A regular expression over the final reply, the transcript or a file.
    Regex {
        pattern: String,
        #[serde(default)]
        target: Target,
        /// `i`, `m`, `s` as in JavaScript flags.
        #[serde(default)]
        flags: String,
        /// `contains`, `not_contains` or `count:N`.
        #[serde(default = "default_matching", rename = "match")]
        matching: String,
    },
    FileExists {
        path: String,
        #[serde(default = "yes")]
        exists: bool,
    },
    FileMatches {
        path: String,
        pattern: String,
    },
    /// A shell command run in the workspace after the run; exit 0 passes.
    Command {
        run: String,
        #[serde(default = "default_command_timeout")]
        timeout: u64,
    },
    ToolUsed {
        tool: String,
        /// A regular expression the tool's input (as JSON) must match.
        #[serde(default)]
        input_match: Option<String>,
        #[serde(default)]
        min: Option<u32>,
        #[serde(default)]
        max: Option<u32>,
    },
    ToolOrder {
        before: String,
        after: String,
    },
    /// Which skill the agent loaded; the skill under test when unnamed.
    SkillLoaded {
        #[serde(default)]
        skill: Option<String>,
        #[serde(default = "yes")]
        loaded: bool,
    },
    /// A rubric judged by a model: the majority of `votes` decides.
    Llm {
        criteria: String,
        #[serde(default)]
        focus: Target,
        #[serde(default = "default_votes")]
        votes: u32,
    },
}

fn default_matching() -> String {
    "contains".into()
}

fn yes() -> bool {
    true
}

fn default_command_timeout() -> u64 {
    60
}

fn default_votes() -> u32 {
    3
}

/// What a text grader reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
// Named apart from the rules' `Target` where both cross to TypeScript.
#[serde(rename = "GraderTarget", rename_all = "snake_case")]
pub enum Target {
    #[default]
    LastMessage,
    /// Every tool call and reply, one per line.
    Trace,
    /// Every file of the workspace the run created or changed.
    Files,
    /// One file of the workspace.
    File(String),
}

/// A suite that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", path.display())]
pub struct TaskSuiteError {
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl TaskSuite {
    /// Reads a suite: a YAML task suite, skill-creator's `evals.json`, or a
    /// folder of `claude plugin eval` cases.
    pub fn load(path: &Path) -> Result<TaskSuite, TaskSuiteError> {
        let error = |line: u32, column: u32, message: String| TaskSuiteError {
            path: path.to_path_buf(),
            line,
            column,
            message,
        };
        if path.is_dir() {
            return super::import::plugin_eval_cases(path);
        }
        let text = std::fs::read_to_string(path).map_err(|e| error(1, 1, e.to_string()))?;
        if path.extension().is_some_and(|e| e == "json") {
            return super::import::skill_creator_evals(path, &text);
        }
        TaskSuite::from_yaml(path, &text)
    }

    /// Reads a YAML task suite from its text; `path` names it in errors and
    /// is where fixture folders are found from.
    pub fn from_yaml(path: &Path, text: &str) -> Result<TaskSuite, TaskSuiteError> {
        let error = |line: u32, column: u32, message: String| TaskSuiteError {
            path: path.to_path_buf(),
            line,
            column,
            message,
        };
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let index = LineIndex::new(text);
        let at = |offset: usize| {
            let position = index.position(text, offset);
            (position.line, position.column)
        };
        let root = yaml::parse(text, 0).map_err(|e| {
            let (line, column) = at(e.offset);
            error(line, column, e.message)
        })?;
        let name = root
            .get("name")
            .and_then(yaml::Node::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| stem(path));
        let skill = root
            .get("skill")
            .and_then(yaml::Node::as_str)
            .map(str::to_string);
        let Some(yaml::Value::Seq(nodes)) = root.get("cases").map(|n| &n.value) else {
            let (line, column) = at(root.span.start);
            return Err(error(line, column, "a task suite needs `cases:`".into()));
        };
        let mut cases = Vec::new();
        for node in nodes {
            let (line, column) = at(node.span.start);
            let case =
                case_from_json(node.to_json()).map_err(|message| error(line, column, message))?;
            cases.push(case);
        }
        let suite = TaskSuite {
            name,
            skill,
            cases,
            notes: Vec::new(),
            base,
        };
        suite.check().map_err(|message| error(1, 1, message))?;
        Ok(suite)
    }

    /// What makes a suite unusable beyond its shape: duplicate case names,
    /// bad patterns.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for case in &self.cases {
            if !seen.insert(&case.name) {
                return Err(format!("two cases are named `{}`", case.name));
            }
            if case.graders.is_empty() {
                return Err(format!("case `{}` has no graders", case.name));
            }
            for grader in &case.graders {
                let pattern = match &grader.check {
                    Check::Regex { pattern, flags, .. } => Some(with_flags(pattern, flags)),
                    Check::FileMatches { pattern, .. } => Some(pattern.clone()),
                    Check::ToolUsed {
                        input_match: Some(pattern),
                        ..
                    } => Some(pattern.clone()),
                    _ => None,
                };
                if let Some(pattern) = pattern
                    && let Err(e) = regex::Regex::new(&pattern)
                {
                    return Err(format!(
                        "case `{}`, grader `{}`: {e}",
                        case.name, grader.name
                    ));
                }
                if let Check::Regex { matching, .. } = &grader.check
                    && parse_matching(matching).is_none()
                {
                    return Err(format!(
                        "case `{}`, grader `{}`: `match` is contains, not_contains or count:N, not `{matching}`",
                        case.name, grader.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The JSON schema of a task-suite file (YAML is read as the same tree).
pub fn json_schema() -> Json {
    serde_json::to_value(schemars::schema_for!(TaskSuite)).unwrap_or_default()
}

/// The task suites of a library: `evals/tasks/*.yaml` of the library and
/// of each skill, and skill-creator's `evals/evals.json` of each skill, in
/// path order.
pub fn find_suites(library: &Path) -> Vec<PathBuf> {
    let yaml_in = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir.join(crate::eval::suite::TASKS_DIR))
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut found = std::collections::BTreeSet::new();
    found.extend(yaml_in(library));
    for skill in crate::library::find_skill_dirs(library, &mut Vec::new()) {
        found.extend(yaml_in(&skill));
        let evals = skill.join("evals/evals.json");
        if evals.is_file() {
            found.insert(evals);
        }
    }
    found.into_iter().collect()
}

/// A regex pattern with JavaScript-style flags as an inline group.
pub fn with_flags(pattern: &str, flags: &str) -> String {
    let inline: String = flags.chars().filter(|c| "ims".contains(*c)).collect();
    if inline.is_empty() {
        pattern.to_string()
    } else {
        format!("(?{inline}){pattern}")
    }
}

/// How a regex grader counts: at least one match, none, or exactly N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    Contains,
    NotContains,
    Count(usize),
}

pub fn parse_matching(text: &str) -> Option<Matching> {
    match text {
        "contains" => Some(Matching::Contains),
        "not_contains" => Some(Matching::NotContains),
        _ => text
            .strip_prefix("count:")?
            .parse()
            .ok()
            .map(Matching::Count),
    }
}

/// A case from its JSON form, graders named and checked.
pub(super) fn case_from_json(json: Json) -> Result<TaskCase, String> {
    let mut case: TaskCase = serde_json::from_value(json).map_err(|e| e.to_string())?;
    name_graders(&mut case.graders);
    Ok(case)
}

/// Gives each unnamed grader `<type>-<n>`.
pub(super) fn name_graders(graders: &mut [Grader]) {
    for (index, grader) in graders.iter_mut().enumerate() {
        if grader.name.is_empty() {
            grader.name = format!("{}-{}", grader.check.kind(), index + 1);
        }
    }
}

impl Check {
    /// The grader's type as written in a suite.
    pub fn kind(&self) -> &'static str {
        match self {
            Check::Regex { .. } => "regex",
            Check::FileExists { .. } => "file_exists",
            Check::FileMatches { .. } => "file_matches",
            Check::Command { .. } => "command",
            Check::ToolUsed { .. } => "tool_used",
            Check::ToolOrder { .. } => "tool_order",
            Check::SkillLoaded { .. } => "skill_loaded",
            Check::Llm { .. } => "llm",
        }
    }
}

pub(super) fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tasks".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<TaskSuite, TaskSuiteError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.yaml");
        std::fs::write(&path, text).unwrap();
        TaskSuite::load(&path)
    }

    #[test]
    fn reads_a_suite_with_every_grader_type() {
        let suite = load(
            r#"
skill: greet
cases:
  - name: one
    prompt: "Greet Ada"
    files: {a.txt: "x"}
    graders:
      - {type: regex, pattern: "done", flags: i}
      - {type: file_exists, path: hello.txt}
      - {type: file_matches, path: hello.txt, pattern: "Hello"}
      - {type: command, run: "true"}
      - {type: tool_used, tool: Write, min: 1}
      - {type: tool_order, before: Skill, after: Write}
      - {type: skill_loaded, arm: with-only}
      - {type: llm, criteria: "polite", name: tone}
      - {type: regex, pattern: "x", target: {file: a.txt}, match: "count:2"}
    script:
      - skill: greet
      - {write: {path: hello.txt, content: "Hello"}, when: loaded}
      - answer: done
"#,
        )
        .unwrap();
        assert_eq!(suite.name, "t");
        assert_eq!(suite.skill.as_deref(), Some("greet"));
        let case = &suite.cases[0];
        assert_eq!(case.graders.len(), 9);
        assert_eq!(case.graders[0].name, "regex-1");
        assert_eq!(case.graders[7].name, "tone");
        assert_eq!(case.graders[6].arm, ArmScope::WithOnly);
        assert_eq!(case.script.len(), 3);
        assert_eq!(case.max_turns, 10);
        assert!(
            matches!(&case.graders[8].check, Check::Regex { target: Target::File(f), .. } if f == "a.txt")
        );
    }

    #[test]
    fn an_unknown_key_or_a_bad_pattern_is_an_error_with_a_position() {
        let err = load("cases:\n  - name: a\n    prompt: p\n    grader: []\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 5));
        assert!(err.message.contains("unknown field `grader`"), "{err}");
        let err = load(
            "cases:\n  - name: a\n    prompt: p\n    graders: [{type: regex, pattern: \"(\"}]\n",
        )
        .unwrap_err();
        assert!(err.message.contains("regex-1"), "{err}");
        let err =
            load("cases:\n  - name: a\n    prompt: p\n    graders: [{type: nope}]\n").unwrap_err();
        assert!(err.message.contains("nope"), "{err}");
    }

    /// `HONE_WRITE_SCHEMA=1` rewrites the published schema from the types.
    #[test]
    fn the_published_schema_is_up_to_date() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas/task-suite.schema.json");
        let schema = serde_json::to_string_pretty(&json_schema()).unwrap() + "\n";
        if std::env::var_os("HONE_WRITE_SCHEMA").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &schema).unwrap();
        }
        let published = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            published == schema,
            "{} is stale: run HONE_WRITE_SCHEMA=1 cargo test --workspace --lib the_published_schema_is_up_to_date",
            path.display()
        );
    }

    #[test]
    fn flags_become_an_inline_group() {
        assert_eq!(with_flags("a", "gi"), "(?i)a");
        assert_eq!(with_flags("a", ""), "a");
        assert_eq!(parse_matching("count:3"), Some(Matching::Count(3)));
        assert_eq!(parse_matching("some"), None);
    }
}
