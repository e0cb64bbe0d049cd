//! Graders: each reads one finished run (its transcript and its workspace)
//! and says pass or fail, with the evidence that decided it.
//!
//! A grader that does not apply says so instead of failing: a `with-only`
//! grader in an arm without the skill, or an `llm` grader with no judge
//! configured. Such a result is left out of the run's verdict.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::judge::Judge;
use super::suite::{ArmScope, Check, Grader, Matching, Target, parse_matching, with_flags};
use super::transcript::Transcript;

/// What one grader said about one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Graded {
    pub name: String,
    pub kind: String,
    /// `None` when the grader did not apply to this run.
    pub passed: Option<bool>,
    pub evidence: String,
}

/// The files of a workspace and a hash of each, to tell what a run changed.
pub type Snapshot = BTreeMap<String, u64>;

/// Folders a snapshot leaves out: git's, and where the arm's skills sit.
fn skipped(relative: &Path) -> bool {
    let first = relative
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    matches!(
        first.as_str(),
        ".git" | ".claude" | ".agents" | ".codex" | ".gemini" | ".opencode" | ".github"
    )
}

/// Hashes every regular file of `dir` (outside the skipped folders).
pub fn snapshot(dir: &Path) -> Snapshot {
    let mut files = Snapshot::new();
    for entry in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| {
            e.path()
                .strip_prefix(dir)
                .map_or(true, |r| r.as_os_str().is_empty() || !skipped(r))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        if let (Ok(relative), Ok(bytes)) =
            (entry.path().strip_prefix(dir), std::fs::read(entry.path()))
        {
            files.insert(
                relative.to_string_lossy().into_owned(),
                xxhash_rust::xxh3::xxh3_64(&bytes),
            );
        }
    }
    files
}

/// What the graders of a case read about one run.
pub struct RunView<'a> {
    pub transcript: &'a Transcript,
    pub workspace: &'a Path,
    /// The workspace before the run.
    pub before: &'a Snapshot,
    /// The skill under test, which `skill_loaded` checks by default.
    pub skill: &'a str,
    /// Whether this arm has the skill under test.
    pub with_skill: bool,
    /// The scratch home the agent ran with (for `command`).
    pub home: &'a Path,
}

/// Grades one run with each of `graders`.
pub fn grade(graders: &[Grader], run: &RunView, judge: Option<&dyn Judge>) -> Vec<Graded> {
    graders
        .iter()
        .map(|grader| {
            let (passed, evidence) = if grader.arm == ArmScope::WithOnly && !run.with_skill {
                (
                    None,
                    "with-only: not graded in an arm without the skill".to_string(),
                )
            } else {
                check(&grader.check, run, judge)
            };
            Graded {
                name: grader.name.clone(),
                kind: grader.check.kind().to_string(),
                passed,
                evidence,
            }
        })
        .collect()
}

fn check(check: &Check, run: &RunView, judge: Option<&dyn Judge>) -> (Option<bool>, String) {
    let (passed, evidence) = match check {
        Check::Regex {
            pattern,
            target,
            flags,
            matching,
        } => {
            let text = target_text(target, run);
            let Ok(re) = regex::Regex::new(&with_flags(pattern, flags)) else {
                return (Some(false), format!("bad pattern {pattern}"));
            };
            let count = re.find_iter(&text).count();
            let first = re.find(&text).map(|m| quote(m.as_str()));
            let passed = match parse_matching(matching).unwrap_or(Matching::Contains) {
                Matching::Contains => count > 0,
                Matching::NotContains => count == 0,
                Matching::Count(n) => count == n,
            };
            let evidence = match first {
                Some(found) => format!("{count} match(es), first {found}"),
                None => "no match".to_string(),
            };
            (passed, evidence)
        }
        Check::FileExists { path, exists } => {
            let found = inside(run.workspace, path).is_some_and(|p| p.exists());
            (
                found == *exists,
                format!("{path} {}", if found { "exists" } else { "does not exist" }),
            )
        }
        Check::FileMatches { path, pattern } => {
            match inside(run.workspace, path).and_then(|p| std::fs::read_to_string(p).ok()) {
                None => (false, format!("{path} is missing or not text")),
                Some(text) => match regex::Regex::new(pattern)
                    .ok()
                    .and_then(|re| re.find(&text).map(|m| m.as_str().to_string()))
                {
                    Some(found) => (true, format!("{path}: {}", quote(&found))),
                    None => (false, format!("{path}: no match in {}", quote(&text))),
                },
            }
        }
        Check::Command {
            run: command,
            timeout,
        } => run_command(command, run, *timeout),
        Check::ToolUsed {
            tool,
            input_match,
            min,
            max,
        } => {
            let re = input_match
                .as_deref()
                .and_then(|p| regex::Regex::new(p).ok());
            let count = run
                .transcript
                .tool_calls
                .iter()
                .filter(|c| &c.name == tool)
                .filter(|c| {
                    re.as_ref()
                        .is_none_or(|re| re.is_match(&c.input.to_string()))
                })
                .count() as u32;
            let passed = count >= min.unwrap_or(1) && max.is_none_or(|m| count <= m);
            (passed, format!("{tool} called {count} time(s)"))
        }
        Check::ToolOrder { before, after } => {
            let at = |name: &str| {
                run.transcript
                    .tool_calls
                    .iter()
                    .position(|c| c.name == name)
            };
            match (at(before), at(after)) {
                (Some(b), Some(a)) => (
                    b < a,
                    format!("{before} at call {}, {after} at call {}", b + 1, a + 1),
                ),
                (None, None) => (false, format!("neither {before} nor {after} was called")),
                (None, _) => (false, format!("{before} was never called")),
                (_, None) => (false, format!("{after} was never called")),
            }
        }
        Check::SkillLoaded { skill, loaded } => {
            let skill = skill.as_deref().unwrap_or(run.skill);
            let was = run.transcript.skills_loaded.iter().any(|s| s == skill);
            let list = if run.transcript.skills_loaded.is_empty() {
                "none".to_string()
            } else {
                run.transcript.skills_loaded.join(", ")
            };
            (was == *loaded, format!("skills loaded: {list}"))
        }
        Check::Llm {
            criteria,
            focus,
            votes,
        } => {
            let Some(judge) = judge else {
                return (
                    None,
                    "not judged: no judge model configured (--judge)".into(),
                );
            };
            return judge_votes(judge, criteria, &target_text(focus, run), *votes);
        }
    };
    (Some(passed), evidence)
}

/// Asks the judge `votes` times; the majority decides, ties fail.
fn judge_votes(
    judge: &dyn Judge,
    criteria: &str,
    work: &str,
    votes: u32,
) -> (Option<bool>, String) {
    let mut yes = 0;
    let mut asked = 0;
    let mut quotes = Vec::new();
    for _ in 0..votes.max(1) {
        match judge.vote(criteria, work) {
            Ok(vote) => {
                asked += 1;
                yes += u32::from(vote.passed);
                if quotes.len() < 2 && !vote.evidence.is_empty() {
                    quotes.push(quote(&vote.evidence));
                }
            }
            Err(why) => return (None, format!("not judged: {why}")),
        }
    }
    (
        Some(yes * 2 > asked),
        format!("{yes} of {asked} votes pass; {}", quotes.join("; ")),
    )
}

/// The text a `target` names.
fn target_text(target: &Target, run: &RunView) -> String {
    match target {
        Target::LastMessage => run.transcript.final_reply.clone(),
        Target::Trace => run.transcript.trace(),
        Target::File(path) => inside(run.workspace, path)
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default(),
        Target::Files => {
            let after = snapshot(run.workspace);
            let mut out = String::new();
            for (path, hash) in &after {
                if run.before.get(path) != Some(hash)
                    && let Ok(text) = std::fs::read_to_string(run.workspace.join(path))
                {
                    out.push_str(&format!("=== {path}\n{text}\n"));
                }
            }
            out
        }
    }
}

/// `path` under the workspace, refusing one that climbs out of it.
fn inside(workspace: &Path, path: &str) -> Option<std::path::PathBuf> {
    let relative = Path::new(path);
    let climbs = relative.is_absolute()
        || relative
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    (!climbs).then(|| workspace.join(relative))
}

/// A short quotation for evidence.
fn quote(text: &str) -> String {
    let mut short: String = text.chars().take(160).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    format!("«{}»", short.replace('\n', "⏎"))
}

/// Runs a check command in the workspace, with the run's scratch home and
/// nothing else of the user's environment.
fn run_command(command: &str, run: &RunView, timeout: u64) -> (bool, String) {
    let child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(run.workspace)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", run.home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return (false, format!("cannot run sh: {e}")),
    };
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > Duration::from_secs(timeout.max(1)) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let output = child.wait_with_output().map(|o| {
        let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&o.stderr));
        text
    });
    let tail = output.unwrap_or_default();
    let tail: String = tail
        .trim()
        .chars()
        .rev()
        .take(200)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    match status {
        Some(status) if status.success() => (true, format!("exit 0 {}", quote(&tail))),
        Some(status) => (false, format!("{status} {}", quote(&tail))),
        None => (false, format!("stopped after {timeout} s")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::judge::Vote;
    use super::super::suite::case_from_json;
    use super::super::transcript::ToolCall;
    use super::*;
    use serde_json::json;

    struct Always(bool);
    impl Judge for Always {
        fn vote(&self, _: &str, work: &str) -> Result<Vote, String> {
            Ok(Vote {
                passed: self.0,
                evidence: work.chars().take(5).collect(),
            })
        }
    }

    fn graders(json: serde_json::Value) -> Vec<Grader> {
        case_from_json(json!({"name": "c", "prompt": "p", "graders": json}))
            .unwrap()
            .graders
    }

    #[test]
    fn every_grader_reads_the_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("old.txt"), "old").unwrap();
        let before = snapshot(dir.path());
        std::fs::write(dir.path().join("hello.txt"), "Hello, Ada!").unwrap();
        let transcript = Transcript {
            tool_calls: vec![
                ToolCall {
                    name: "Skill".into(),
                    input: json!({"skill": "greet"}),
                    failed: false,
                },
                ToolCall {
                    name: "Write".into(),
                    input: json!({"file_path": "hello.txt"}),
                    failed: false,
                },
            ],
            final_reply: "Done: wrote hello.txt".into(),
            skills_loaded: vec!["greet".into()],
            ..Transcript::default()
        };
        let run = RunView {
            transcript: &transcript,
            workspace: dir.path(),
            before: &before,
            skill: "greet",
            with_skill: true,
            home: dir.path(),
        };
        let all = graders(json!([
            {"type": "regex", "pattern": "DONE", "flags": "i"},
            {"type": "regex", "pattern": "Ada", "target": "files"},
            {"type": "regex", "pattern": "old", "target": "files", "match": "not_contains"},
            {"type": "file_exists", "path": "hello.txt"},
            {"type": "file_exists", "path": "../etc/passwd", "exists": false},
            {"type": "file_matches", "path": "hello.txt", "pattern": "Hello, \\w+!"},
            {"type": "command", "run": "grep -q '!' hello.txt"},
            {"type": "tool_used", "tool": "Write", "input_match": "hello", "max": 1},
            {"type": "tool_order", "before": "Skill", "after": "Write"},
            {"type": "skill_loaded"},
            {"type": "llm", "criteria": "fine"}
        ]));
        let graded = grade(&all, &run, Some(&Always(true)));
        for g in &graded {
            assert_eq!(g.passed, Some(true), "{g:?}");
        }
        let failing = graders(json!([
            {"type": "command", "run": "exit 3"},
            {"type": "tool_order", "before": "Write", "after": "Skill"},
            {"type": "skill_loaded", "skill": "other"},
            {"type": "regex", "pattern": "x", "match": "count:2"},
            {"type": "llm", "criteria": "fine", "votes": 3}
        ]));
        for g in grade(&failing, &run, Some(&Always(false))) {
            assert_eq!(g.passed, Some(false), "{g:?}");
        }
    }

    #[test]
    fn a_grader_that_does_not_apply_is_not_a_failure() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = Transcript::default();
        let before = Snapshot::new();
        let run = RunView {
            transcript: &transcript,
            workspace: dir.path(),
            before: &before,
            skill: "greet",
            with_skill: false,
            home: dir.path(),
        };
        let g = grade(
            &graders(
                json!([{"type": "skill_loaded", "arm": "with-only"}, {"type": "llm", "criteria": "x"}]),
            ),
            &run,
            None,
        );
        assert_eq!(g[0].passed, None);
        assert_eq!(g[1].passed, None);
        assert!(g[1].evidence.contains("no judge"));
    }
}
