//! The `claude` CLI itself, run headless: the slowest and most faithful mode.
//!
//! The library is copied into a scratch project's `.claude/skills/<folder>/`,
//! where Claude Code discovers project skills, so the model sees the listing
//! Claude Code really builds (its budget, its wording). Each request runs
//! `claude --print --output-format stream-json --verbose` in that project
//! with the request on standard input (never as an argument: a request may
//! start with `-`). The pick is the first `Skill` tool call, or the first
//! `Read` of a `SKILL.md` under `.claude/skills/`, attributed to the skill by
//! its folder; the process is stopped as soon as it is known. `--max-turns`
//! bounds what a run can do when no skill is picked.
//!
//! Claude Code retries a failed request by itself (ten times by default,
//! with a growing wait), then ends with an error `result`; Hone bounds those
//! retries with `CLAUDE_CODE_MAX_RETRIES` (its own `--retries`, unless the
//! variable is already set) and reports such a run as an error, never as a
//! run that picked no skill.
//!
//! Claude Code uses its own login; Hone passes no key. This mode is tested
//! against the real `claude` driven by a scripted loopback model (a pick, no
//! pick, a stream broken mid-answer, a crash); never against a live model.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use super::http::excerpt;
use super::listing::{Listing, SKILL_TOOL};
use super::process::Running;
use super::providers::skill_argument;
use super::{AgentError, Answer, Choice, Provider, Usage};
use crate::cancel::Cancel;
use crate::clients::capture::{Links, copy_tree};
use crate::tokens::Tokenizer;

/// The environment variable naming the `claude` executable.
pub const CLAUDE_BIN_ENV: &str = "HONE_CLAUDE";
/// Claude Code's own bound on the retries of a failed request.
pub const CLAUDE_RETRIES_ENV: &str = "CLAUDE_CODE_MAX_RETRIES";
/// Turns a run may take when the model does not pick a skill at once.
const MAX_TURNS: &str = "3";
/// Largest file copied into the scratch project.
const MAX_COPIED_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The `claude` CLI as a provider.
pub struct ClaudeCode {
    program: PathBuf,
    model: String,
    timeout: Duration,
    retries: u32,
    project: OnceLock<Result<tempfile::TempDir, String>>,
}

impl ClaudeCode {
    /// `program` defaults to `$HONE_CLAUDE`, else `claude` on the `PATH`;
    /// `retries` bounds Claude Code's own retries of a failed request.
    pub fn new(model: &str, program: Option<&Path>, timeout: Duration, retries: u32) -> ClaudeCode {
        let program = program
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os(CLAUDE_BIN_ENV).map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("claude"));
        ClaudeCode {
            program,
            model: model.to_owned(),
            timeout,
            retries,
            project: OnceLock::new(),
        }
    }

    /// The scratch project, once [`Provider::prepare`] made it.
    pub fn project_dir(&self) -> Option<&Path> {
        match self.project.get() {
            Some(Ok(dir)) => Some(dir.path()),
            _ => None,
        }
    }

    fn run(
        &self,
        project: &Path,
        listing: &Listing,
        request: &str,
        cancel: &Cancel,
    ) -> Result<Answer, AgentError> {
        let mut command = Command::new(&self.program);
        command
            .args(["--print", "--output-format", "stream-json", "--verbose"])
            .args(["--max-turns", MAX_TURNS]);
        if !self.model.is_empty() {
            command.args(["--model", &self.model]);
        }
        if std::env::var_os(CLAUDE_RETRIES_ENV).is_none() {
            command.env(CLAUDE_RETRIES_ENV, self.retries.to_string());
        }
        command.current_dir(project);
        let (running, stdout) = Running::start(&mut command, request, self.timeout, cancel, |e| {
            AgentError::Process(format!(
                "cannot run `{}` ({e}); install Claude Code or name it with --claude-bin or ${CLAUDE_BIN_ENV}",
                self.program.display()
            ))
        })?;
        let outcome = read_transcript(BufReader::new(stdout), project, listing);
        if outcome.choice.is_some() {
            // The pick is known: the rest of the run would only cost.
            running.stop();
        }
        let (status, stderr) = running.finish()?;
        if let (None, Some(error)) = (&outcome.choice, &outcome.error) {
            return Err(AgentError::Process(format!(
                "`claude` gave up with an error ({status}): {}",
                excerpt(error)
            )));
        }
        match outcome.choice {
            Some(choice) => Ok(Answer {
                choice,
                usage: outcome.usage,
                cost_usd: outcome.cost_usd,
                attempts: 1,
            }),
            None if outcome.result_seen && status.success() => Ok(Answer {
                choice: Choice::NoSkill {
                    text: excerpt(&outcome.text),
                },
                usage: outcome.usage,
                cost_usd: outcome.cost_usd,
                attempts: 1,
            }),
            None => Err(AgentError::Process(format!(
                "`claude` ended ({status}) before its answer was complete{}: {}",
                outcome
                    .malformed
                    .map(|m| format!(" (unreadable line: {m})"))
                    .unwrap_or_default(),
                excerpt(if stderr.trim().is_empty() {
                    "no message"
                } else {
                    &stderr
                })
            ))),
        }
    }
}

impl Provider for ClaudeCode {
    fn name(&self) -> &'static str {
        "claude-code"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn endpoint(&self) -> String {
        self.program.display().to_string()
    }

    fn prompt_caching(&self) -> bool {
        // Claude Code caches its own prompt.
        true
    }

    fn tokenizer(&self) -> Tokenizer {
        Tokenizer::claude()
    }

    fn estimate_caveat(&self) -> Option<&'static str> {
        Some(
            "Claude Code adds its own system prompt and tools, which the estimate does not count; each run reports its real cost",
        )
    }

    fn prepare(&self, listing: &Listing) -> Result<(), AgentError> {
        self.project
            .get_or_init(|| make_project(listing).map_err(|e| e.to_string()))
            .as_ref()
            .map(|_| ())
            .map_err(|e| AgentError::Process(format!("cannot make the scratch project: {e}")))
    }

    fn ask(&self, listing: &Listing, request: &str, cancel: &Cancel) -> Result<Answer, AgentError> {
        self.prepare(listing)?;
        let project = self.project_dir().expect("prepared above");
        self.run(project, listing, request, cancel)
    }
}

/// A scratch project holding the library under `.claude/skills/`.
fn make_project(listing: &Listing) -> std::io::Result<tempfile::TempDir> {
    let project = tempfile::Builder::new().prefix("hone-agent-").tempdir()?;
    let skills = project.path().join(".claude").join("skills");
    std::fs::create_dir_all(&skills)?;
    for skill in &listing.skills {
        let Some(folder) = skill.dir.file_name() else {
            continue;
        };
        // Links are not followed: the scratch project must not reach
        // outside the library.
        copy_tree(
            &skill.dir,
            &skills.join(folder),
            Links::Skip,
            MAX_COPIED_FILE_BYTES,
        )?;
    }
    Ok(project)
}

/// What a stream-json transcript said, as far as it went.
#[derive(Default)]
struct Transcript {
    choice: Option<Choice>,
    usage: Usage,
    cost_usd: Option<f64>,
    text: String,
    result_seen: bool,
    /// The run's error, when its `result` says it ended in one.
    error: Option<String>,
    malformed: Option<String>,
}

/// Reads stream-json lines until the pick is known or the stream ends.
fn read_transcript(reader: impl BufRead, project: &Path, listing: &Listing) -> Transcript {
    let mut transcript = Transcript::default();
    for line in reader.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let event: Value = match serde_json::from_str(&line) {
            Ok(event) => event,
            Err(_) => {
                transcript.malformed = Some(excerpt(&line));
                continue;
            }
        };
        // Claude Code shows a failed request as an assistant message of its own.
        let api_error = event.get("is_api_error_message").and_then(Value::as_bool) == Some(true);
        match event.get("type").and_then(Value::as_str) {
            Some("assistant") if api_error => {}
            Some("assistant") => {
                let content = event.pointer("/message/content").and_then(Value::as_array);
                for block in content.into_iter().flatten() {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => transcript
                            .text
                            .push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
                        Some("tool_use") => {
                            if let Some(choice) = pick_of(block, project, listing) {
                                transcript.choice = Some(choice);
                            }
                        }
                        _ => {}
                    }
                    if transcript.choice.is_some() {
                        break;
                    }
                }
                add_usage(&mut transcript.usage, event.pointer("/message/usage"));
            }
            Some("result") => {
                transcript.result_seen = true;
                transcript.cost_usd = event.get("total_cost_usd").and_then(Value::as_f64);
                let text = event.get("result").and_then(Value::as_str);
                if event.get("is_error").and_then(Value::as_bool) == Some(true) {
                    let subtype = event.get("subtype").and_then(Value::as_str);
                    transcript.error = Some(text.or(subtype).unwrap_or("no message").to_owned());
                } else if let Some(text) = text {
                    transcript.text = text.to_owned();
                }
                if event.get("usage").is_some() {
                    transcript.usage = Usage::default();
                    add_usage(&mut transcript.usage, event.get("usage"));
                }
            }
            _ => {}
        }
        if transcript.choice.is_some() {
            break;
        }
    }
    transcript
}

fn add_usage(usage: &mut Usage, json: Option<&Value>) {
    let Some(json) = json else { return };
    let count = |key: &str| json.get(key).and_then(Value::as_u64).unwrap_or(0);
    usage.input_tokens += count("input_tokens");
    usage.output_tokens += count("output_tokens");
    usage.cache_write_tokens += count("cache_creation_input_tokens");
    usage.cache_read_tokens += count("cache_read_input_tokens");
}

/// The pick a tool call makes, if it makes one. A `Read` of a `SKILL.md` is
/// attributed to the skill whose folder it reads.
fn pick_of(block: &Value, project: &Path, listing: &Listing) -> Option<Choice> {
    let input = block.get("input");
    match block.get("name").and_then(Value::as_str)? {
        SKILL_TOOL => skill_argument(input).map(|name| Choice::Skill { name }),
        "Read" => {
            let path = input?.get("file_path").and_then(Value::as_str)?;
            let folder = skill_folder_read(Path::new(path), project)?;
            let name = listing
                .skills
                .iter()
                .find(|s| s.dir.file_name().is_some_and(|f| f == folder.as_str()))
                .map_or(folder.clone(), |s| s.id.clone());
            Some(Choice::Skill { name })
        }
        _ => None,
    }
}

/// The folder of `.claude/skills/<folder>/SKILL.md` that `path` reads.
fn skill_folder_read(path: &Path, project: &Path) -> Option<String> {
    if path.file_name()? != "SKILL.md" {
        return None;
    }
    let folder = path.parent()?;
    let skills = folder.parent()?;
    let under_project = skills.ends_with(Path::new(".claude").join("skills"))
        && (skills.starts_with(project) || path.is_relative());
    under_project.then(|| folder.file_name()?.to_str().map(str::to_owned))?
}
