//! The `codex` CLI itself, run headless (`codex exec`): Codex's own listing,
//! budget and wording, as the claude-code provider is Claude Code's.
//!
//! The library is copied into a scratch project's `.agents/skills/<folder>/`,
//! where Codex 0.171 discovers project skills. Each request runs `codex exec
//! --json --ephemeral --sandbox read-only --skip-git-repo-check -` in that
//! project with the request on standard input. Codex has no tool to load a
//! skill: its model reads the skill's `SKILL.md` with a shell command, so
//! the pick is the first command whose `SKILL.md` path
//! [`crate::clients::codex::skill_read`] recognises (a library skill by its
//! folder, or one of Codex's own), read off the `item.started` event before
//! the command runs; the process is stopped as soon as it is known. A run
//! that ends its turn without one picked no skill; a `turn.failed` (Codex
//! gave up after its own retries) or an exit without a finished turn is an
//! error. Usage comes from `turn.completed`, so a run stopped at its pick
//! reports none.
//!
//! With a base URL, Codex is pointed at it through a `config.toml` in a
//! scratch `$CODEX_HOME` (with a scratch `$HOME`, so only the library and
//! Codex's own skills are listed), its retries bounded by Hone's, and the key
//! (if any) passed in a variable the config names, never written to a file.
//! Without one, Codex runs with the user's own `$CODEX_HOME`, login and
//! config, as the claude-code provider runs Claude Code with the user's
//! login, so the user's own skills join the listing as they do in the user's
//! runs. The scratch `$TMPDIR` is the run's own: Codex 0.171 will not set up
//! its sandbox helper when `$CODEX_HOME` is under the system's temporary
//! folder, and then reports no command at all.
//!
//! Tested against the real `codex` binary driven by a scripted loopback
//! Responses API (a read, no read, a stream broken mid-answer); never
//! against a live model.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use super::http::excerpt;
use super::listing::Listing;
use super::process::Running;
use super::providers::Secret;
use super::{AgentError, Answer, Choice, Provider, Usage};
use crate::cancel::Cancel;
use crate::clients::capture::{Links, copy_tree};
use crate::clients::codex::{AGENTS_SKILLS, SkillRead, skill_read};
use crate::tokens::Tokenizer;

/// The environment variable naming the `codex` executable.
pub const CODEX_BIN_ENV: &str = "HONE_CODEX";
/// The variable the scratch config tells Codex to read the key from.
const KEY_ENV: &str = "HONE_CODEX_API_KEY";
/// Largest file copied into the scratch project.
const MAX_COPIED_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The `codex` CLI as a provider.
pub struct Codex {
    program: PathBuf,
    model: String,
    timeout: Duration,
    retries: u32,
    base_url: Option<String>,
    key: Option<Secret>,
    scratch: OnceLock<Result<Scratch, String>>,
}

/// The folders one provider's runs share.
struct Scratch {
    root: tempfile::TempDir,
}

impl Scratch {
    fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    fn codex_home(&self) -> PathBuf {
        self.home().join(".codex")
    }

    fn tmp(&self) -> PathBuf {
        self.root.path().join("tmp")
    }
}

impl Codex {
    /// `program` defaults to `$HONE_CODEX`, else `codex` on the `PATH`.
    /// With `base_url` (a Responses API, e.g. `http://localhost:8080/v1`),
    /// Codex is pointed there with `key`; without, it uses the user's own
    /// login and config. `retries` bounds Codex's own retries of a failed
    /// request or stream when Hone writes the config.
    pub fn new(
        model: &str,
        program: Option<&Path>,
        base_url: Option<&str>,
        key: Option<Secret>,
        timeout: Duration,
        retries: u32,
    ) -> Codex {
        let program = program
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os(CODEX_BIN_ENV).map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("codex"));
        Codex {
            program,
            model: model.to_owned(),
            timeout,
            retries,
            base_url: base_url.map(|url| url.trim_end_matches('/').to_owned()),
            key,
            scratch: OnceLock::new(),
        }
    }

    /// The scratch project, once [`Provider::prepare`] made it.
    pub fn project_dir(&self) -> Option<PathBuf> {
        match self.scratch.get() {
            Some(Ok(scratch)) => Some(scratch.project()),
            _ => None,
        }
    }

    /// The `$CODEX_HOME` runs use: the scratch one with a base URL, else the
    /// user's.
    pub fn codex_home(&self) -> Option<PathBuf> {
        match (self.scratch.get(), &self.base_url) {
            (Some(Ok(scratch)), Some(_)) => Some(scratch.codex_home()),
            (Some(Ok(_)), None) => Some(crate::agent::CodexLayout::current().codex_home),
            _ => None,
        }
    }

    fn make_scratch(&self, listing: &Listing) -> std::io::Result<Scratch> {
        let scratch = Scratch {
            root: tempfile::Builder::new().prefix("hone-codex-").tempdir()?,
        };
        let skills = scratch.project().join(AGENTS_SKILLS);
        std::fs::create_dir_all(&skills)?;
        std::fs::create_dir_all(scratch.tmp())?;
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
        if let Some(base_url) = &self.base_url {
            std::fs::create_dir_all(scratch.codex_home())?;
            std::fs::write(
                scratch.codex_home().join("config.toml"),
                config(base_url, &self.model, self.retries),
            )?;
        }
        Ok(scratch)
    }

    fn run(
        &self,
        scratch: &Scratch,
        listing: &Listing,
        request: &str,
        cancel: &Cancel,
    ) -> Result<Answer, AgentError> {
        let project = scratch.project();
        let mut command = Command::new(&self.program);
        command.args([
            "exec",
            "--json",
            "--ephemeral",
            "--sandbox",
            "read-only",
            "--skip-git-repo-check",
        ]);
        if !self.model.is_empty() {
            command.args(["--model", &self.model]);
        }
        command.arg("-");
        if self.base_url.is_some() {
            let key = self.key.as_ref().map_or("none", |key| key.expose());
            command
                .env("HOME", scratch.home())
                .env("CODEX_HOME", scratch.codex_home())
                .env("TMPDIR", scratch.tmp())
                .env(KEY_ENV, key);
        }
        command.current_dir(&project);
        let (running, stdout) = Running::start(&mut command, request, self.timeout, cancel, |e| {
            AgentError::Process(format!(
                "cannot run `{}` ({e}); install Codex CLI or name it with --codex-bin or ${CODEX_BIN_ENV}",
                self.program.display()
            ))
        })?;
        let codex_home = self.codex_home().unwrap_or_else(|| scratch.codex_home());
        let events = read_events(BufReader::new(stdout), &project, &codex_home, listing);
        if events.choice.is_some() {
            // The pick is known: the rest of the run would only cost.
            running.stop();
        }
        let (status, stderr) = running.finish()?;
        let answer = |choice| Answer {
            choice,
            usage: events.usage,
            cost_usd: None,
            attempts: 1,
        };
        match (&events.choice, &events.failure) {
            (Some(choice), _) => Ok(answer(choice.clone())),
            (None, Some(failure)) => Err(AgentError::Process(format!(
                "`codex` gave up with an error ({status}): {}",
                excerpt(failure)
            ))),
            (None, None) if events.turn_completed => Ok(answer(Choice::NoSkill {
                text: excerpt(&events.text),
            })),
            (None, None) => Err(AgentError::Process(format!(
                "`codex` ended ({status}) before its turn was complete: {}",
                excerpt(if stderr.trim().is_empty() {
                    "no message"
                } else {
                    &stderr
                })
            ))),
        }
    }
}

/// The scratch `config.toml`: the base URL as the one provider, speaking
/// the Responses API, its key read from [`KEY_ENV`], its retries bounded,
/// and no analytics.
fn config(base_url: &str, model: &str, retries: u32) -> String {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let mut text = String::from("model_provider = \"hone\"\n");
    if !model.is_empty() {
        text.push_str(&format!("model = {}\n", quoted(model)));
    }
    text.push_str(&format!(
        "[model_providers.hone]\nname = \"hone\"\nbase_url = {}\nwire_api = \"responses\"\nenv_key = \"{KEY_ENV}\"\nrequest_max_retries = {retries}\nstream_max_retries = {retries}\n[analytics]\nenabled = false\n",
        quoted(base_url)
    ));
    text
}

impl Provider for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn endpoint(&self) -> String {
        match &self.base_url {
            Some(url) => format!("{} at {url}", self.program.display()),
            None => self.program.display().to_string(),
        }
    }

    fn prompt_caching(&self) -> bool {
        // The Responses API caches long prefixes by itself.
        true
    }

    fn tokenizer(&self) -> Tokenizer {
        Tokenizer::o200k()
    }

    fn estimate_caveat(&self) -> Option<&'static str> {
        Some(
            "Codex adds its own instructions and tools, which the estimate does not count, and reports no price",
        )
    }

    fn prepare(&self, listing: &Listing) -> Result<(), AgentError> {
        self.scratch
            .get_or_init(|| self.make_scratch(listing).map_err(|e| e.to_string()))
            .as_ref()
            .map(|_| ())
            .map_err(|e| AgentError::Process(format!("cannot make the scratch project: {e}")))
    }

    fn ask(&self, listing: &Listing, request: &str, cancel: &Cancel) -> Result<Answer, AgentError> {
        self.prepare(listing)?;
        let Some(Ok(scratch)) = self.scratch.get() else {
            return Err(AgentError::Process("the scratch project is missing".into()));
        };
        self.run(scratch, listing, request, cancel)
    }
}

/// What `codex exec --json` said, as far as it went.
#[derive(Default)]
struct Events {
    choice: Option<Choice>,
    usage: Usage,
    text: String,
    turn_completed: bool,
    /// Why the turn failed, when it did.
    failure: Option<String>,
}

/// Reads JSON events until the pick is known or the stream ends.
fn read_events(
    reader: impl BufRead,
    project: &Path,
    codex_home: &Path,
    listing: &Listing,
) -> Events {
    let mut events = Events::default();
    for line in reader.lines() {
        let Ok(line) = line else { break };
        let Ok(event) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let item = &event["item"];
        match event["type"].as_str() {
            Some("item.started" | "item.completed") => {
                let read = match item["type"].as_str() {
                    Some("command_execution") => item["command"].as_str().map(str::to_owned),
                    Some("mcp_tool_call") => Some(item["arguments"].to_string()),
                    _ => None,
                };
                if let Some(read) = read.and_then(|c| skill_read(&c, project, codex_home)) {
                    events.choice = Some(pick(read, listing));
                    break;
                }
                if item["type"] == "agent_message" {
                    events.text = item["text"].as_str().unwrap_or_default().to_owned();
                }
            }
            Some("turn.completed") => {
                events.turn_completed = true;
                events.usage.add(&usage(&event["usage"]));
            }
            Some("turn.failed") => {
                events.failure = Some(
                    event
                        .pointer("/error/message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                        .to_owned(),
                );
            }
            _ => {}
        }
    }
    events
}

/// The skill a `SKILL.md` read loads: the library's skill in that folder
/// (by its identity), or Codex's own skill by its name.
fn pick(read: SkillRead, listing: &Listing) -> Choice {
    let name = match read {
        SkillRead::Project(folder) => listing
            .skills
            .iter()
            .find(|s| s.dir.file_name().is_some_and(|f| f == folder.as_str()))
            .map_or(folder, |s| s.id.clone()),
        SkillRead::Builtin(name) => name,
    };
    Choice::Skill { name }
}

/// A `turn.completed` usage: cached input is billed apart.
pub fn usage(json: &Value) -> Usage {
    let count = |key: &str| json[key].as_u64().unwrap_or(0);
    let cached = count("cached_input_tokens");
    Usage {
        input_tokens: count("input_tokens").saturating_sub(cached),
        output_tokens: count("output_tokens"),
        cache_write_tokens: count("cache_write_input_tokens"),
        cache_read_tokens: cached,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_config_points_at_the_base_url_and_holds_no_key() {
        let text = config("http://127.0.0.1:9/v1", "gpt-5", 1);
        assert!(
            text.contains("base_url = \"http://127.0.0.1:9/v1\""),
            "{text}"
        );
        assert!(text.contains("env_key = \"HONE_CODEX_API_KEY\""));
        assert!(text.contains("stream_max_retries = 1"));
        assert!(text.contains("model = \"gpt-5\""));
    }
}
