//! Runs a real, installed client offline and reads what it shows its model.
//!
//! The client is started headless in a scratch project with a scratch
//! `$HOME`, its provider pointed at a [`StandIn`] on the loopback address,
//! and no environment but what it needs. Where the OS allows it, the run
//! happens in a network namespace of its own that has only loopback
//! (`unshare -n`), so nothing can leave the machine whatever the client
//! tries: the stand-in then has to live inside that namespace too, so the
//! caller re-executes itself there ([`Isolation::Namespace`]) and the inner
//! process runs [`run_here`]. The first request that carries the skill
//! listing is kept; the text is cut out of it per client.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::egress;
use super::permissions;
use super::script::Script;
use super::standin::{Recorded, StandIn};
use super::{Client, claude_code};
use crate::cancel::Cancel;

/// An installed client: how to start it, and its version.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Installed {
    pub client: Client,
    pub version: String,
    /// The program and the arguments that come before the client's own.
    pub command: Vec<PathBuf>,
}

/// Where Hone's set-up installs the clients: `$HONE_CLIENTS_DIR`, else
/// `$XDG_CACHE_HOME/hone/clients`, else `~/.cache/hone/clients`.
pub fn clients_dir(env: &super::Environment) -> PathBuf {
    if let Some(dir) = env.var("HONE_CLIENTS_DIR") {
        return PathBuf::from(dir);
    }
    env.var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.home.join(".cache"))
        .join("hone/clients")
}

/// The npm package of each client and the file that starts it, relative to
/// `node_modules`.
fn package(client: Client) -> (&'static str, &'static str) {
    match client {
        Client::ClaudeCode => (
            "@anthropic-ai/claude-code",
            "@anthropic-ai/claude-code-linux-x64/claude",
        ),
        Client::Codex => (
            "@openai/codex",
            "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
        ),
        Client::Gemini => ("@google/gemini-cli", "@google/gemini-cli/bundle/gemini.js"),
        Client::Opencode => ("opencode-ai", "opencode-linux-x64/bin/opencode"),
        Client::Copilot => ("@github/copilot", "@github/copilot-linux-x64/copilot"),
    }
}

/// The client as Hone's set-up installed it, if it is there.
pub fn find_installed(client: Client, env: &super::Environment) -> Option<Installed> {
    let modules = clients_dir(env).join(client.as_str()).join("node_modules");
    let (name, start) = package(client);
    let program = modules.join(start);
    if !program.is_file() {
        return None;
    }
    let manifest = std::fs::read_to_string(modules.join(name).join("package.json")).ok()?;
    let version = serde_json::from_str::<Value>(&manifest)
        .ok()?
        .get("version")?
        .as_str()?
        .to_string();
    let command = if start.ends_with(".js") {
        vec![PathBuf::from("node"), program]
    } else {
        vec![program]
    };
    Some(Installed {
        client,
        version,
        command,
    })
}

/// Everything one run needs, so that it can be handed to a process inside a
/// network namespace as one JSON file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan {
    pub installed: Installed,
    /// The scratch project the client is started in.
    pub project: PathBuf,
    /// The scratch home.
    pub home: PathBuf,
    pub model: Option<String>,
    /// Variables passed on beside the ones the run sets (for example
    /// `SLASH_COMMAND_TOOL_CHAR_BUDGET`).
    pub vars: Vec<(String, String)>,
    pub timeout_secs: u64,
    /// A task to do instead of the one-word prompt that shows the listing.
    #[serde(default)]
    pub task: Option<Task>,
    /// The socket of the [`egress::Egress`] a live run in a namespace
    /// reaches its provider through; [`run`] sets it.
    #[serde(default)]
    pub egress: Option<PathBuf>,
}

/// A task for the client: the prompt, and who plays the model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Task {
    pub prompt: String,
    /// The scripted model the stand-in plays; `None` runs the client against
    /// its live provider (no stand-in; in a namespace its only way out is
    /// the provider, see [`egress`]), with the variables of
    /// [`LiveProvider::passed_vars`] passed on from this process.
    pub script: Option<Script>,
    /// Tools the client may use without asking, in Claude Code's syntax (see
    /// [`super::permissions`]).
    pub allowed_tools: Vec<String>,
    pub max_turns: u32,
}

impl Plan {
    fn is_live(&self) -> bool {
        self.task.as_ref().is_some_and(|task| task.script.is_none())
    }
}

/// The provider a live run of an agent CLI signs in to and sends its work
/// to: the only place its run may reach.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveProvider {
    /// The variables that can hold the key or token the run signs in with.
    /// The scratch `$HOME` holds no login of the user's, so one must be set.
    pub credential_vars: &'static [&'static str],
    /// The variable a user sets to send the client elsewhere (a gateway).
    pub base_var: Option<&'static str>,
    /// The provider's own address, when that variable is not set.
    pub default_base: &'static str,
    /// The model as the client names it (OpenCode: `provider/model`).
    pub model: Option<String>,
}

impl LiveProvider {
    /// Where the run's requests go: the user's base-URL variable, else the
    /// provider.
    pub fn base_url(&self) -> String {
        self.moved_base()
            .unwrap_or_else(|| self.default_base.to_string())
    }

    /// The address the user's base-URL variable names, when it is set.
    fn moved_base(&self) -> Option<String> {
        self.base_var
            .and_then(|name| std::env::var(name).ok())
            .filter(|url| !url.trim().is_empty())
    }

    /// The variables passed on from this process: the credentials and the
    /// base-URL variable, and nothing else of the user's environment.
    pub fn passed_vars(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.credential_vars.iter().copied().chain(self.base_var)
    }

    /// Why the run cannot sign in: none of its credential variables is set.
    pub fn credentials_missing(&self, client: Client) -> Option<String> {
        let set = self
            .credential_vars
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
        (!set).then(|| {
            format!(
                "a live {} run signs in with {}, which is not set: the agent runs with a scratch home that holds none of your logins, and Hone passes it that variable and nothing else of yours",
                client.display_name(),
                self.credential_vars.join(" or ")
            )
        })
    }
}

/// The provider a live run of `client` with `model` works with, or why it
/// has none Hone can run.
pub fn live_provider(client: Client, model: Option<&str>) -> Result<LiveProvider, String> {
    let anthropic = |model: Option<String>| LiveProvider {
        credential_vars: &["ANTHROPIC_API_KEY"],
        base_var: Some("ANTHROPIC_BASE_URL"),
        default_base: claude_code::ANTHROPIC_BASE_URL,
        model,
    };
    let openai = |model: Option<String>| LiveProvider {
        credential_vars: &["OPENAI_API_KEY"],
        base_var: Some("OPENAI_BASE_URL"),
        default_base: super::codex::OPENAI_BASE_URL,
        model,
    };
    let model_named = model.map(str::to_string);
    Ok(match client {
        Client::ClaudeCode => LiveProvider {
            credential_vars: &["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
            ..anthropic(model_named)
        },
        Client::Codex => openai(model_named),
        Client::Gemini => LiveProvider {
            credential_vars: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            base_var: Some("GOOGLE_GEMINI_BASE_URL"),
            default_base: super::gemini::API_BASE_URL,
            model: model_named,
        },
        Client::Opencode => {
            let (provider, name) = super::opencode::live_model(model)?;
            let model = Some(format!("{provider}/{name}"));
            match provider {
                super::opencode::LiveProviderName::Anthropic => anthropic(model),
                super::opencode::LiveProviderName::Openai => openai(model),
            }
        }
        Client::Copilot => LiveProvider {
            credential_vars: &["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
            base_var: None,
            default_base: super::copilot::API_BASE_URL,
            model: model_named,
        },
    })
}

/// Why a live run of `client` with `model` cannot start: no provider Hone
/// can run, or none of its credential variables set in this process.
pub fn live_credentials_missing(client: Client, model: Option<&str>) -> Option<String> {
    match live_provider(client, model) {
        Ok(provider) => provider.credentials_missing(client),
        Err(why) => Some(why),
    }
}

/// What a run saw.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Captured {
    pub requests: Vec<Recorded>,
    /// The listing as the model got it, when a request carried one.
    pub listing: Option<String>,
    /// The client's exit status, or why it did not finish.
    pub status: String,
    pub stderr_tail: String,
    pub seconds: f64,
    /// Whether the run had a network namespace with loopback only.
    pub isolated: bool,
    /// The client's standard output, kept for a task (its transcript).
    #[serde(default)]
    pub stdout: String,
    /// What a live run tried to reach besides its provider, refused.
    #[serde(default)]
    pub refused: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("cannot start the loopback stand-in: {0}")]
    StandIn(std::io::Error),
    #[error("cannot prepare the scratch folders: {0}")]
    Scratch(std::io::Error),
    #[error("cannot start {program}: {error}")]
    Spawn {
        program: String,
        error: std::io::Error,
    },
    #[error("the isolated run failed: {0}")]
    Isolated(String),
    #[error("the run was cancelled")]
    Cancelled,
    #[error("{0}")]
    Provider(String),
}

/// How the run is kept off the network.
pub enum Isolation {
    /// A network namespace with loopback only: `reexec` is this program and
    /// the arguments that make it call [`run_here`] on a plan file (given
    /// last).
    Namespace { reexec: Vec<OsString> },
    /// No namespace (the OS does not allow one): the client could reach the
    /// network, though it is pointed at the stand-in.
    None,
}

/// Runs the plan, in a namespace of its own where `isolation` asks for one
/// and the OS allows it.
pub fn run(plan: &Plan, isolation: &Isolation) -> Result<Captured, CaptureError> {
    run_cancellable(plan, isolation, &Cancel::new())
}

/// [`run`], stopped (the client and everything it started killed) as soon as
/// `cancel` is cancelled.
pub fn run_cancellable(
    plan: &Plan,
    isolation: &Isolation,
    cancel: &Cancel,
) -> Result<Captured, CaptureError> {
    let Isolation::Namespace { reexec } = isolation else {
        return run_here_cancellable(plan, false, cancel);
    };
    #[cfg(unix)]
    if namespaces_available() {
        return run_in_namespace(plan, reexec, cancel);
    }
    #[cfg(not(unix))]
    let _ = reexec;
    run_here_cancellable(plan, false, cancel)
}

/// [`run_cancellable`] in a network namespace of its own: this program is
/// re-executed there (`reexec`) and runs [`run_here`] on the plan.
#[cfg(unix)]
fn run_in_namespace(
    plan: &Plan,
    reexec: &[OsString],
    cancel: &Cancel,
) -> Result<Captured, CaptureError> {
    let scratch = tempfile::tempdir().map_err(CaptureError::Scratch)?;
    let plan_file = scratch.path().join("plan.json");
    let out_file = scratch.path().join("captured.json");
    // A live run's one way out: its provider, through the egress proxy.
    let egress = if plan.is_live() {
        Some(start_egress(plan, scratch.path())?)
    } else {
        None
    };
    let mut plan = plan.clone();
    plan.egress = egress.as_ref().map(|e| e.socket().to_path_buf());
    std::fs::write(&plan_file, serde_json::to_vec(&plan).unwrap_or_default())
        .map_err(CaptureError::Scratch)?;
    let mut command = Command::new("unshare");
    if !is_root() {
        // A user namespace maps us to root inside, which a network namespace needs.
        command.arg("--map-root-user");
    }
    command
        .arg("--net")
        .arg("--")
        .args(reexec)
        .arg(&plan_file)
        .arg(&out_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // A group of its own, so that a cancel stops the client it starts too.
    own_group(&mut command);
    let mut child = command.spawn().map_err(|error| CaptureError::Spawn {
        program: "unshare".into(),
        error,
    })?;
    let stderr = read_in_background(child.stderr.take());
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.to_string(),
            Ok(None) if cancel.is_cancelled() => {
                kill_group(&mut child);
                let _ = stderr.join();
                return Err(CaptureError::Cancelled);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(err) => break format!("lost: {err}"),
        }
    };
    let stderr = stderr.join().unwrap_or_default();
    let captured = std::fs::read(&out_file)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Captured>(&bytes).ok());
    match captured {
        Some(mut captured) => {
            captured.refused = egress.map(|e| e.refused()).unwrap_or_default();
            Ok(captured)
        }
        None => Err(CaptureError::Isolated(format!(
            "{status}: {}",
            stderr.trim()
        ))),
    }
}

/// The proxy outside the namespace that lets a live run reach its provider
/// and nothing else.
#[cfg(unix)]
fn start_egress(plan: &Plan, dir: &Path) -> Result<egress::Egress, CaptureError> {
    let endpoint = live_destination(plan.installed.client, plan.model.as_deref())
        .map_err(CaptureError::Provider)?;
    egress::Egress::start(&dir.join("egress.sock"), vec![endpoint]).map_err(CaptureError::Scratch)
}

/// The host and port a live run of `client` with `model` works with: the
/// only place it may reach.
pub fn live_destination(client: Client, model: Option<&str>) -> Result<egress::Endpoint, String> {
    let url = live_provider(client, model)?.base_url();
    egress::Endpoint::from_url(&url)
        .ok_or_else(|| format!("the provider address `{url}` is not an http(s) URL"))
}

/// Stops a client: its whole group when it has one of its own (outside a
/// namespace), else the client alone.
fn stop(child: &mut std::process::Child, isolated: bool) {
    if isolated {
        let _ = child.kill();
        let _ = child.wait();
    } else {
        kill_group(child);
    }
}

/// Starts `command` in a process group of its own, so that killing the
/// group stops what it starts too.
pub fn own_group(command: &mut Command) {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    #[cfg(not(unix))]
    let _ = command;
}

/// Kills `child` and every process of its group, then reaps it.
pub fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Whether `unshare --net` works here (root, or unprivileged user
/// namespaces).
pub fn namespaces_available() -> bool {
    let mut command = Command::new("unshare");
    if !is_root() {
        command.arg("--map-root-user");
    }
    command
        .args(["--net", "--", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn is_root() -> bool {
    #[cfg(unix)]
    {
        rustix::process::geteuid().is_root()
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Inside a fresh network namespace, loopback starts down.
fn bring_up_loopback() {
    let _ = Command::new("ip")
        .args(["link", "set", "lo", "up"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Runs the plan in this process's network (inside the namespace when called
/// by the re-executed process).
pub fn run_here(plan: &Plan, isolated: bool) -> Result<Captured, CaptureError> {
    run_here_cancellable(plan, isolated, &Cancel::new())
}

fn run_here_cancellable(
    plan: &Plan,
    isolated: bool,
    cancel: &Cancel,
) -> Result<Captured, CaptureError> {
    if isolated {
        bring_up_loopback();
    }
    let client = plan.installed.client;
    let standin = if plan.is_live() {
        None
    } else {
        let script = plan
            .task
            .as_ref()
            .and_then(|task| task.script.clone())
            .map(|script| (client, script));
        Some(StandIn::start_with(script).map_err(CaptureError::StandIn)?)
    };
    let target = match &standin {
        Some(standin) => Target::StandIn(format!("http://127.0.0.1:{}", standin.port)),
        None => Target::Live(
            live_provider(client, plan.model.as_deref()).map_err(CaptureError::Provider)?,
        ),
    };
    let (args, mut vars) = client_invocation(plan, &target)?;
    if let Target::Live(provider) = &target {
        for name in provider.passed_vars() {
            if let Some(value) = std::env::var_os(name) {
                vars.push((name.to_string(), value.to_string_lossy().into_owned()));
            }
        }
    }
    // Inside the namespace, the proxy variables are the way to the provider.
    #[cfg(unix)]
    let _relay = match plan.egress.as_deref().filter(|_| isolated) {
        Some(socket) => {
            let relay = egress::Relay::start(socket).map_err(CaptureError::Scratch)?;
            vars.extend(relay.proxy_vars());
            Some(relay)
        }
        None => None,
    };
    let (program, leading) = plan
        .installed
        .command
        .split_first()
        .expect("an installed client has a program");
    let mut command = Command::new(program);
    command
        .args(leading)
        .args(&args)
        .current_dir(&plan.project)
        .env_clear()
        .env("HOME", &plan.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("XDG_CONFIG_HOME", plan.home.join(".config"))
        .env("XDG_DATA_HOME", plan.home.join(".local/share"))
        .env("XDG_CACHE_HOME", plan.home.join(".cache"))
        .env("XDG_STATE_HOME", plan.home.join(".local/state"))
        .env("PWD", &plan.project)
        .stdin(Stdio::null())
        .stdout(if plan.task.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped());
    for (name, value) in vars.iter().chain(&plan.vars) {
        command.env(name, value);
    }
    // Outside a namespace, a group of its own, so that a cancel or a timeout
    // stops what the client started too (inside, the caller's kill of the
    // namespace's group does).
    if !isolated {
        own_group(&mut command);
    }
    let started = Instant::now();
    let mut child = command.spawn().map_err(|error| CaptureError::Spawn {
        program: program.display().to_string(),
        error,
    })?;
    let stderr = read_in_background(child.stderr.take());
    let stdout = read_in_background(child.stdout.take());
    let deadline = Duration::from_secs(plan.timeout_secs.max(1));
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.to_string(),
            Ok(None) if started.elapsed() > deadline => {
                stop(&mut child, isolated);
                break format!("stopped after {} s", plan.timeout_secs);
            }
            Ok(None) if cancel.is_cancelled() => {
                stop(&mut child, isolated);
                return Err(CaptureError::Cancelled);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(err) => break format!("lost: {err}"),
        }
    };
    let stderr = stderr.join().unwrap_or_default();
    let stdout = stdout.join().unwrap_or_default();
    let tail: String = {
        let chars: Vec<char> = stderr.chars().collect();
        chars[chars.len().saturating_sub(2000)..].iter().collect()
    };
    let requests = standin.map(|s| s.recorded()).unwrap_or_default();
    let listing = extract_listing(client, &requests);
    Ok(Captured {
        requests,
        listing,
        status,
        stderr_tail: tail,
        seconds: started.elapsed().as_secs_f64(),
        isolated,
        stdout,
        refused: Vec::new(),
    })
}

/// Reads a child's pipe to the end on a thread of its own, so that neither
/// pipe can fill and stall the child.
fn read_in_background(
    pipe: Option<impl std::io::Read + Send + 'static>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// A client's arguments and the variables it is started with.
type Invocation = (Vec<String>, Vec<(String, String)>);

/// Who plays the client's model.
enum Target {
    /// The loopback stand-in, at this base URL.
    StandIn(String),
    /// The client's own provider, with the user's key.
    Live(LiveProvider),
}

/// The arguments and variables that start the client headless against
/// `target`, writing whatever config file the client needs into the scratch
/// home.
fn client_invocation(plan: &Plan, target: &Target) -> Result<Invocation, CaptureError> {
    let prompt = plan
        .task
        .as_ref()
        .map_or("hello", |task| task.prompt.as_str());
    // A live run keeps the client's own provider; the placeholder is never sent.
    let (base, live) = match target {
        Target::StandIn(base) => (base.as_str(), None),
        Target::Live(provider) => ("", Some(provider)),
    };
    let scratch = |result: std::io::Result<()>| result.map_err(CaptureError::Scratch);
    let mut args: Vec<String> = Vec::new();
    let mut vars: Vec<(String, String)> = Vec::new();
    let mut var = |name: &str, value: &str| vars.push((name.to_string(), value.to_string()));
    match plan.installed.client {
        Client::ClaudeCode => {
            args.extend(
                ["-p", prompt, "--output-format", "stream-json", "--verbose"].map(String::from),
            );
            if let Some(model) = &plan.model {
                args.extend(["--model".to_string(), model.clone()]);
            }
            if let Some(task) = &plan.task {
                args.extend(["--max-turns".to_string(), task.max_turns.to_string()]);
                if !task.allowed_tools.is_empty() {
                    args.push("--allowedTools".to_string());
                    args.extend(task.allowed_tools.iter().cloned());
                }
            }
            if live.is_none() {
                var("ANTHROPIC_BASE_URL", base);
                var("ANTHROPIC_API_KEY", "sk-hone-loopback");
            }
            var("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
            var("DISABLE_TELEMETRY", "1");
            var("DISABLE_AUTOUPDATER", "1");
        }
        Client::Codex => {
            let codex_home = plan.home.join(".codex");
            scratch(std::fs::create_dir_all(&codex_home))?;
            let model = plan.model.as_deref().unwrap_or(super::codex::DEFAULT_MODEL);
            // Live: OpenAI's API (or the user's OPENAI_BASE_URL, which Codex
            // itself ignores) with the user's key; else the stand-in.
            let (base_url, key_var) = if let Some(provider) = live {
                (provider.base_url(), "OPENAI_API_KEY")
            } else {
                (format!("{base}/v1"), "HONE_LOOPBACK_KEY")
            };
            let config = format!(
                "model_provider = \"hone\"\nmodel = \"{model}\"\n[model_providers.hone]\nname = \"hone\"\nbase_url = \"{base_url}\"\nwire_api = \"responses\"\nenv_key = \"{key_var}\"\n[analytics]\nenabled = false\n"
            );
            scratch(write_if_absent(&codex_home.join("config.toml"), &config))?;
            args.extend(["exec", "--skip-git-repo-check"].map(String::from));
            if let Some(task) = &plan.task {
                // Its transcript; its sandbox as the case allows, at most the
                // scratch workspace.
                let sandbox = permissions::codex_sandbox(&task.allowed_tools);
                args.extend(["--json", "--sandbox", sandbox].map(String::from));
            }
            args.push(prompt.to_string());
            var("CODEX_HOME", &codex_home.display().to_string());
            if live.is_none() {
                var("HONE_LOOPBACK_KEY", "sk-hone-loopback");
            }
        }
        Client::Gemini => {
            let settings = r#"{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false,"disableAutoUpdate":true,"disableUpdateNag":true},"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false},"ui":{"hideTips":true}}"#;
            scratch(std::fs::create_dir_all(plan.home.join(".gemini")))?;
            scratch(write_if_absent(
                &plan.home.join(".gemini/settings.json"),
                settings,
            ))?;
            if let Some(task) = &plan.task {
                // Its transcript; headless, it offers a tool that needs
                // approval only when the case allows it.
                args.extend(
                    [
                        "-p",
                        prompt,
                        "--output-format",
                        "stream-json",
                        "--approval-mode",
                        "default",
                    ]
                    .map(String::from),
                );
                for tool in permissions::gemini_allowed(&task.allowed_tools) {
                    args.extend(["--allowed-tools".to_string(), tool]);
                }
            } else {
                args.extend(["-p", prompt, "--output-format", "json"].map(String::from));
            }
            if let Some(model) = &plan.model {
                args.extend(["-m".to_string(), model.clone()]);
            }
            if live.is_none() {
                var("GEMINI_API_KEY", "hone-loopback");
                var("GOOGLE_GEMINI_BASE_URL", base);
            }
            var("GEMINI_CLI_TRUST_WORKSPACE", "true");
        }
        Client::Opencode => {
            let config = if let Some(provider) = live {
                opencode_live_config(provider)
            } else {
                let model = plan.model.as_deref().unwrap_or("hone-loopback");
                serde_json::json!({
                    "provider": {"hone": {"npm": "@ai-sdk/openai-compatible", "name": "hone",
                        "options": {"baseURL": format!("{base}/v1"), "apiKey": "sk-hone-loopback"},
                        "models": {model: {"name": model}}}},
                    "model": format!("hone/{model}"),
                    "small_model": format!("hone/{model}"),
                })
            };
            let mut config = config;
            if let Some(task) = &plan.task {
                config["permission"] = permissions::opencode_permission(&task.allowed_tools);
            }
            config["$schema"] = "https://opencode.ai/config.json".into();
            config["autoupdate"] = false.into();
            config["share"] = "disabled".into();
            let dir = plan.home.join(".config/opencode");
            scratch(std::fs::create_dir_all(&dir))?;
            scratch(write_if_absent(
                &dir.join("opencode.json"),
                &config.to_string(),
            ))?;
            args.push("run".into());
            if plan.task.is_some() {
                // Its transcript: one JSON event a line.
                args.extend(["--format", "json"].map(String::from));
            }
            args.push(prompt.to_string());
            var("OPENCODE_DISABLE_MODELS_FETCH", "1");
            var("OPENCODE_DISABLE_AUTOUPDATE", "1");
            // Its default plugins are sign-in helpers fetched from npm.
            var("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1");
        }
        Client::Copilot => {
            args.extend(
                [
                    "-p",
                    prompt,
                    "--output-format",
                    "json",
                    "--no-auto-update",
                    "--disable-client-telemetry",
                ]
                .map(String::from),
            );
            var("COPILOT_OFFLINE", "true");
            var("COPILOT_PROVIDER_BASE_URL", &format!("{base}/v1"));
            var("COPILOT_PROVIDER_API_KEY", "sk-hone-loopback");
            var(
                "COPILOT_MODEL",
                plan.model
                    .as_deref()
                    .unwrap_or(super::copilot::DEFAULT_MODEL),
            );
            var("COPILOT_AUTO_UPDATE", "false");
            var("COPILOT_ALLOW_ALL", "true");
        }
    }
    Ok((args, vars))
}

/// OpenCode's configuration for a live run: the model with its provider
/// (declared, so that a model newer than OpenCode's own catalogue runs), and
/// the provider's address when the user's base-URL variable moves it.
fn opencode_live_config(provider: &LiveProvider) -> Value {
    let model = provider.model.clone().unwrap_or_default();
    let (name, id) = model.split_once('/').unwrap_or(("anthropic", &model));
    let mut settings = serde_json::json!({"models": {id: {"name": id}}});
    if let Some(url) = provider.moved_base() {
        let url = url.trim().trim_end_matches('/');
        // ANTHROPIC_BASE_URL names the host, as Claude Code reads it;
        // OpenCode's Anthropic provider wants the API's `/v1` in it.
        let url = if name == "anthropic" && !url.ends_with("/v1") {
            format!("{url}/v1")
        } else {
            url.to_string()
        };
        settings["options"] = serde_json::json!({ "baseURL": url });
    }
    serde_json::json!({
        "provider": { name: settings },
        "model": model,
        "small_model": model,
    })
}

/// The listing text the client sent, cut out of its requests.
pub fn extract_listing(client: Client, requests: &[Recorded]) -> Option<String> {
    requests.iter().find_map(|request| match client {
        Client::ClaudeCode => claude_code::listing_in_request(&request.body),
        Client::Codex => super::codex::listing_in_request(&request.body),
        Client::Gemini => super::gemini::listing_in_request(&request.body),
        Client::Opencode => super::opencode::listing_in_request(&request.body),
        Client::Copilot => super::copilot::listing_in_request(&request.body),
    })
}

/// A config file the scratch home may already hold (a test can plant one).
fn write_if_absent(path: &Path, text: &str) -> std::io::Result<()> {
    if path.exists() {
        return Ok(());
    }
    std::fs::write(path, text)
}

/// Every string in `value`, depth first (the texts of a request's messages).
pub(crate) fn texts(value: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(s) => out.push(s.as_str()),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    out
}

/// The first text in a request that holds `start`, from there through the
/// first `end` after it: where an XML or tagged listing sits.
pub(crate) fn text_between(body: &Value, start: &str, end: &str) -> Option<String> {
    texts(body).into_iter().find_map(|text| {
        let rest = &text[text.find(start)?..];
        let close = rest.find(end)? + end.len();
        Some(rest[..close].to_string())
    })
}

/// Whether [`copy_tree`] reads a link as what it points to or leaves it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// A client's folders as the client reads them (a skill folder may be a link).
    Follow,
    /// A scratch copy that must not reach outside the folder copied.
    Skip,
}

/// Copies the folders and regular files of `from` into `to`, leaving out
/// files over `max_file_bytes` and, unless `links` follows them, links.
pub fn copy_tree(from: &Path, to: &Path, links: Links, max_file_bytes: u64) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(from).follow_links(links == Links::Follow) {
        let entry = entry.map_err(std::io::Error::other)?;
        let relative = entry
            .path()
            .strip_prefix(from)
            .map_err(std::io::Error::other)?;
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if entry.file_type().is_file() && entry.metadata()?.len() <= max_file_bytes {
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// How long the stand-in sleeps: a figure no other process uses.
    const SLEEP: &str = "29.4321";

    /// A stand-in for a client that never answers: a script that sleeps.
    fn sleeper(dir: &Path) -> Installed {
        use std::os::unix::fs::PermissionsExt;
        let program = dir.join("client");
        std::fs::write(&program, format!("#!/bin/sh\nsleep {SLEEP}\n")).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        Installed {
            client: Client::ClaudeCode,
            version: "0".into(),
            command: vec![program],
        }
    }

    #[test]
    fn a_cancelled_run_stops_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (project, home) = (dir.path().join("p"), dir.path().join("h"));
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let plan = Plan {
            installed: sleeper(dir.path()),
            project,
            home,
            model: None,
            vars: Vec::new(),
            timeout_secs: 60,
            task: None,
            egress: None,
        };
        let cancel = Cancel::new();
        let later = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            later.cancel();
        });
        let started = Instant::now();
        let result = run_cancellable(&plan, &Isolation::None, &cancel);
        assert!(matches!(result, Err(CaptureError::Cancelled)), "{result:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
        // What the client started went with it.
        let left = Command::new("pgrep")
            .args(["-f", &format!("sleep {SLEEP}")])
            .output()
            .unwrap();
        assert!(
            left.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&left.stdout)
        );
    }
}
