//! The agent ranker in the app: which providers and models can answer, what
//! a suite will cost before anything is sent, a run with progress and Cancel,
//! "ask the agent" for one request, and the keys remote providers need.
//!
//! The asking is `hone_core::agent`'s, as for `hone eval --ranker agent`:
//! this module builds a provider from the window's choice, the listing from
//! the library with the open skill's unsaved text in place, and reports back.
//! That set-up ([`Asker`]) is shared by every command that asks the agent,
//! "Confirm with agent" of the suggestions view included (`crate::confirm`).
//!
//! Keys: `ANTHROPIC_API_KEY` / `OPENAI_API_KEY` win when set. A key typed in
//! the window goes to the OS keyring (Secret Service, Keychain, Credential
//! Manager); where there is none (a CI machine under Xvfb has no Secret
//! Service) it is kept in this process's memory for the session, and the
//! window says so. A key is never written to a file, a log or a view: it
//! only crosses the bridge inward, and lives in a [`Secret`].

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hone_core::agent::claude_code::ClaudeCode;
use hone_core::agent::codex::Codex;
use hone_core::agent::local::Local;
use hone_core::agent::providers::{
    ANTHROPIC_KEY_ENV, Anthropic, OPENAI_KEY_ENV, OpenAi, Secret, key_from_env,
};
use hone_core::agent::{
    self, AgentRanker, AgentSummary, AnswerCache, Budget, CostEstimate, EvalOptions, HttpPolicy,
    Listing, ListingStyle, Price, PriceTable, Provider, Session as AgentSession,
};
use hone_core::cancel::Cancel;
use hone_core::clients::claude_code::{self, ListingSettings};
use hone_core::eval::{self, Report, Suite};
use hone_core::library_settings;
use hone_core::llm::{LocalModel, resolve_model_file};
use hone_core::rank::{Explanation, RankerKind};
use hone_core::skill::Skill;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::commands::{AppState, CommandResult, TaskSlot, blocking, lock, skill_with_text};
use crate::events::{AppEvent, Progress};
use crate::panel::ensure_ranker;
use crate::routing::selection_threshold;
use crate::session::{Session, display};
use crate::views::OpenText;

/// The keyring service keys are kept under; the user name is the provider's id.
const KEYRING_SERVICE: &str = "hone";
/// Seconds one remote call may take before it is retried.
const CALL_TIMEOUT_SECS: u64 = 60;

/// Who answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderId {
    Anthropic,
    Openai,
    ClaudeCode,
    Codex,
    Local,
}

impl ProviderId {
    const ALL: [ProviderId; 5] = [
        ProviderId::Local,
        ProviderId::Anthropic,
        ProviderId::Openai,
        ProviderId::ClaudeCode,
        ProviderId::Codex,
    ];

    fn id(self) -> &'static str {
        match self {
            ProviderId::Anthropic => "anthropic",
            ProviderId::Openai => "openai",
            ProviderId::ClaudeCode => "claude-code",
            ProviderId::Codex => "codex",
            ProviderId::Local => "local",
        }
    }

    /// The environment variable a key is read from, for providers that take one.
    fn key_env(self) -> Option<&'static str> {
        match self {
            ProviderId::Anthropic => Some(ANTHROPIC_KEY_ENV),
            ProviderId::Openai => Some(OPENAI_KEY_ENV),
            // Codex uses its own login, or with a base URL the OpenAI key.
            ProviderId::ClaudeCode | ProviderId::Codex | ProviderId::Local => None,
        }
    }

    /// The request shape the library is shown in: the client's own for a
    /// client provider, else Claude Code's.
    pub(crate) fn listing_style(self) -> ListingStyle {
        match self {
            ProviderId::Codex => ListingStyle::Codex,
            _ => ListingStyle::ClaudeCode,
        }
    }

    /// Whether the listing and the requests leave the machine.
    fn remote(self) -> bool {
        self != ProviderId::Local
    }

    /// The priced models this provider serves, by the price table's names.
    fn priced(self, name: &str) -> bool {
        match self {
            ProviderId::Anthropic | ProviderId::ClaudeCode => name.starts_with("claude"),
            ProviderId::Openai | ProviderId::Codex => {
                name.starts_with("gpt") || name.starts_with('o')
            }
            ProviderId::Local => false,
        }
    }
}

/// The window's choice of provider and model.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct ProviderChoice {
    pub provider: ProviderId,
    /// A model name; for `local`, a GGUF file (none: the installed default).
    #[serde(default)]
    pub model: Option<String>,
    /// An OpenAI-compatible server (Ollama, llama.cpp, vLLM) instead of OpenAI's API.
    #[serde(default)]
    pub base_url: Option<String>,
    /// Times each request is asked (none: 1 for `local`, else 3).
    #[serde(default)]
    pub runs: Option<usize>,
}

/// Where a provider's key comes from. Never the key itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// The provider needs no key.
    NotNeeded,
    Environment,
    Keyring,
    /// Typed in this session; no OS keyring to keep it in.
    Session,
    Missing,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct KeyStatus {
    pub source: KeySource,
    /// What the window should say about it (why it is kept only for the session).
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct ProviderInfo {
    pub id: ProviderId,
    /// Whether the listing and the requests are sent to the provider.
    pub remote: bool,
    /// Models with a price in the table; any other name may be typed.
    pub models: Vec<String>,
    /// The model used when none is chosen (`local`: the installed file).
    pub default_model: Option<String>,
    /// Whether it can run here now; `note` says why not.
    pub available: bool,
    pub note: Option<String>,
    pub key: KeyStatus,
}

/// What a run will send and cost, shown before it starts.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AgentPreview {
    pub provider: ProviderId,
    pub model: String,
    pub endpoint: String,
    pub remote: bool,
    pub runs: usize,
    pub cases: usize,
    pub estimate: CostEstimate,
}

/// A finished (or cancelled) run: the agent's report, its account, and the
/// offline ranker's report over the same cases, for the side-by-side column.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AgentRun {
    pub report: Report,
    pub agent: AgentSummary,
    pub offline: Option<Report>,
    pub with_edits: bool,
}

/// One skill in the agent's answer.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct AgentPick {
    pub id: String,
    /// Trigger rate (share of runs), or probability for a ranking provider.
    pub confidence: f32,
    pub picks: usize,
    pub runs: usize,
}

/// The agent's answer to one request.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct AgentAnswer {
    pub provider: ProviderId,
    pub model: String,
    pub remote: bool,
    pub matches: Vec<AgentPick>,
    /// The top match's rate reached the trigger threshold.
    pub selected: bool,
    pub threshold: f32,
    pub calls: usize,
    pub from_cache: usize,
    pub millis: u64,
    pub with_edits: bool,
}

/// The agent's state in the app: keys typed this session (where there is
/// no keyring), the loaded local model, and the run in progress.
#[derive(Default)]
pub struct AgentState {
    session_keys: Mutex<HashMap<ProviderId, Secret>>,
    local: Mutex<Option<(PathBuf, Arc<LocalModel>)>>,
    running: TaskSlot,
}

impl AgentState {
    /// The key for `provider`: the environment's, else the keyring's, else this session's.
    fn key(&self, provider: ProviderId) -> (Option<Secret>, KeyStatus) {
        let Some(env) = provider.key_env() else {
            return (None, status(KeySource::NotNeeded, None));
        };
        if let Some(key) = key_from_env(env) {
            return (Some(key), status(KeySource::Environment, None));
        }
        if let Some(key) = lock(&self.session_keys).get(&provider) {
            return (Some(key.clone()), session_status());
        }
        match keyring_entry(provider).and_then(|e| e.get_password().map_err(|e| e.to_string())) {
            Ok(key) if !key.trim().is_empty() => (
                Some(Secret::new(key.trim())),
                status(KeySource::Keyring, None),
            ),
            _ => (None, status(KeySource::Missing, None)),
        }
    }

    /// Anthropic's key, wherever it is kept: what a benchmark's judge uses.
    pub(crate) fn anthropic_key(&self) -> Option<Secret> {
        self.key(ProviderId::Anthropic).0
    }

    /// Keeps `key` in the keyring, else for this session only.
    fn store_key(&self, provider: ProviderId, key: &str) -> CommandResult<KeyStatus> {
        if provider.key_env().is_none() {
            return Err(format!("{} takes no key", provider.id()).into());
        }
        let key = key.trim();
        if key.is_empty() {
            return Err("the key is empty".into());
        }
        let kept = keyring_entry(provider).and_then(|e| {
            e.set_password(key).map_err(|e| e.to_string())?;
            // Read back: some stores accept a write they cannot keep.
            e.get_password().map_err(|e| e.to_string())
        });
        match kept {
            Ok(stored) if stored == key => {
                lock(&self.session_keys).remove(&provider);
                Ok(status(KeySource::Keyring, None))
            }
            _ => {
                lock(&self.session_keys).insert(provider, Secret::new(key));
                Ok(session_status())
            }
        }
    }

    fn forget_key(&self, provider: ProviderId) {
        lock(&self.session_keys).remove(&provider);
        if let Ok(entry) = keyring_entry(provider) {
            // No entry is what was wanted.
            let _ = entry.delete_credential();
        }
    }

    /// The local model, loaded once (3 s) and kept with its listing cache.
    fn local_model(&self, explicit: Option<&str>) -> CommandResult<Arc<LocalModel>> {
        let location = resolve_model_file(explicit.map(std::path::Path::new));
        let mut local = lock(&self.local);
        if let Some((path, model)) = local.as_ref()
            && *path == location.path
        {
            return Ok(model.clone());
        }
        let model = Arc::new(LocalModel::open(Some(&location.path)).map_err(|e| e.to_string())?);
        *local = Some((location.path, model.clone()));
        Ok(model)
    }

    /// The provider `choice` names, with its key.
    fn provider(&self, choice: &ProviderChoice) -> CommandResult<Box<dyn Provider>> {
        let model = choice
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty());
        let base_url = choice
            .base_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty());
        let policy = HttpPolicy {
            timeout: Duration::from_secs(CALL_TIMEOUT_SECS),
            ..HttpPolicy::default()
        };
        let need_model = |example: &str| {
            model.ok_or_else(|| {
                format!(
                    "choose a model for {}, e.g. {example}",
                    choice.provider.id()
                )
            })
        };
        Ok(match choice.provider {
            ProviderId::Anthropic => {
                let model = need_model("claude-haiku-4-5")?;
                let (key, _) = self.key(ProviderId::Anthropic);
                let key = key.ok_or_else(|| {
                    format!("anthropic needs a key: set {ANTHROPIC_KEY_ENV} or enter one")
                })?;
                Box::new(Anthropic::new(model, key, base_url, policy, true))
            }
            ProviderId::Openai => {
                let model = need_model("gpt-4.1-mini")?;
                let (key, _) = self.key(ProviderId::Openai);
                if key.is_none() && base_url.is_none() {
                    return Err(format!(
                        "openai needs a key: set {OPENAI_KEY_ENV} or enter one (a local server at a base URL needs none)"
                    )
                    .into());
                }
                Box::new(OpenAi::new(model, key, base_url, policy))
            }
            ProviderId::Local => Box::new(Local::new(self.local_model(model)?)),
            ProviderId::ClaudeCode => Box::new(ClaudeCode::new(
                model.unwrap_or(""),
                None,
                policy.timeout,
                policy.retries,
            )),
            ProviderId::Codex => {
                // The OpenAI key goes only to a base URL; else Codex's own login.
                let key = base_url.and_then(|_| self.key(ProviderId::Openai).0);
                Box::new(Codex::new(
                    model.unwrap_or(""),
                    None,
                    base_url,
                    key,
                    policy.timeout,
                    policy.retries,
                ))
            }
        })
    }
}

fn status(source: KeySource, note: Option<String>) -> KeyStatus {
    KeyStatus { source, note }
}

fn session_status() -> KeyStatus {
    status(
        KeySource::Session,
        Some(
            "no OS keyring here (no Secret Service): the key is kept in memory for this session only"
                .into(),
        ),
    )
}

fn keyring_entry(provider: ProviderId) -> Result<keyring::Entry, String> {
    keyring::Entry::new(KEYRING_SERVICE, provider.id()).map_err(|e| e.to_string())
}

/// The library's skills with the open skill's text in place of its saved one.
fn skills_with_edits(
    session: &Session,
    open: Option<OpenText>,
) -> CommandResult<(Vec<Skill>, bool)> {
    let mut skills = session.library().skills.clone();
    let Some(open) = open else {
        return Ok((skills, false));
    };
    let path = session.confine(&open.path)?;
    let Some(saved) = session.skill_at(&path) else {
        return Ok((skills, false));
    };
    // The window sends the open skill's text whether or not it was edited.
    if saved.text() == open.text {
        return Ok((skills, false));
    }
    let dir = saved.dir.clone();
    let edited = skill_with_text(session, &path, open.text);
    match skills.iter_mut().find(|s| s.dir == dir) {
        Some(skill) => {
            *skill = edited;
            Ok((skills, true))
        }
        None => Ok((skills, false)),
    }
}

fn listing_settings(session: &Session) -> ListingSettings {
    let user = claude_code::user_claude_dir();
    let env = std::env::var(claude_code::CHAR_BUDGET_ENV).ok();
    let roots: Vec<PathBuf> = session.roots().map(Into::into).collect();
    ListingSettings::load(&roots, user.as_deref(), env.as_deref())
}

/// Answers are kept where the CLI keeps them (`HONE_AGENT_CACHE`, else the user cache).
fn answer_cache() -> Option<AnswerCache> {
    std::env::var_os("HONE_AGENT_CACHE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(AnswerCache::default_dir)
        .map(AnswerCache::new)
}

fn runs_for(provider: &dyn Provider, choice: &ProviderChoice) -> usize {
    choice
        .runs
        .unwrap_or(if provider.deterministic() {
            1
        } else {
            agent::DEFAULT_RUNS
        })
        .clamp(1, 100)
}

/// What every agent command starts from: the provider the window chose, with
/// its key; how many times a request is asked; the opened library's listing
/// settings; the answer cache; and the price table. Built in one place, so
/// a preview, a run, one question and a confirmation of suggestions ask
/// (and count the cost) the same way.
pub(crate) struct Asker {
    id: ProviderId,
    provider: Box<dyn Provider>,
    runs: usize,
    settings: ListingSettings,
    cache: Option<AnswerCache>,
    prices: PriceTable,
}

impl Asker {
    pub(crate) fn new(
        app: &AppHandle,
        session: &Session,
        choice: &ProviderChoice,
    ) -> CommandResult<Asker> {
        let provider = app.state::<AgentState>().provider(choice)?;
        Ok(Asker {
            id: choice.provider,
            runs: runs_for(provider.as_ref(), choice),
            provider,
            settings: listing_settings(session),
            cache: answer_cache(),
            prices: PriceTable::bundled(),
        })
    }

    pub(crate) fn provider(&self) -> &dyn Provider {
        self.provider.as_ref()
    }

    pub(crate) fn runs(&self) -> usize {
        self.runs
    }

    pub(crate) fn settings(&self) -> &ListingSettings {
        &self.settings
    }

    pub(crate) fn cache(&self) -> Option<&AnswerCache> {
        self.cache.as_ref()
    }

    /// The model's price, where the table has it.
    pub(crate) fn price(&self) -> Option<(&str, Price)> {
        self.prices.price(self.provider.model())
    }

    /// The listing style of the chosen provider.
    pub(crate) fn listing_style(&self) -> ListingStyle {
        self.id.listing_style()
    }

    fn listing(&self, skills: &[Skill]) -> Listing {
        let refs: Vec<&Skill> = skills.iter().collect();
        Listing::new(
            &refs,
            self.listing_style(),
            &self.settings,
            self.provider.model(),
        )
    }

    /// Asking with `listing`, answers asked before taken from the cache.
    fn session<'a>(&'a self, listing: &'a Listing) -> AgentSession<'a> {
        AgentSession {
            provider: self.provider.as_ref(),
            listing,
            cache: self.cache.as_ref(),
            read_cache: true,
            runs: self.runs,
        }
    }

    /// What asking `cases` requests (`runs` times each) will send and cost.
    pub(crate) fn preview(&self, cases: usize, estimate: CostEstimate) -> AgentPreview {
        AgentPreview {
            provider: self.id,
            model: self.provider.model().to_owned(),
            endpoint: self.provider.endpoint(),
            remote: self.id.remote(),
            runs: self.runs,
            cases,
            estimate,
        }
    }

    /// The spending a run counts, at the table's price; the author has
    /// already accepted the estimate, so it is not capped.
    pub(crate) fn budget(&self, estimate: &CostEstimate) -> Option<Budget> {
        self.price().map(|(_, price)| Budget {
            max_usd: f64::INFINITY,
            price,
            per_call_usd: estimate.per_call_usd().unwrap_or(0.0),
        })
    }
}

/// The trigger rate a pick is selected at: the library's calibrated one, else the default.
pub(crate) fn trigger_threshold(session: &Session) -> CommandResult<f32> {
    library_settings::selection_threshold(
        session.project_root(),
        RankerKind::Agent,
        None,
        agent::DEFAULT_TRIGGER_THRESHOLD,
    )
    .map_err(|e| e.to_string().into())
}

/// Runs `work` as the agent run [`agent_cancel`] stops.
pub(crate) fn cancellable<T>(app: &AppHandle, work: impl FnOnce(&Cancel) -> T) -> T {
    let state = app.state::<AgentState>();
    let task = state.running.hold();
    work(&task.cancel)
}

/// Sends `agent` progress events, at most one each 50 ms and always the last.
pub(crate) fn progress_events(state: &AppState) -> impl Fn(usize, usize) + Sync + '_ {
    let last_sent = Mutex::new(Instant::now());
    move |done: usize, total: usize| {
        let mut last = lock(&last_sent);
        if done == total || last.elapsed() > Duration::from_millis(50) {
            *last = Instant::now();
            state.send(AppEvent::Progress(Progress {
                task: "agent",
                done: done as u64,
                total: total as u64,
            }));
        }
    }
}

/// A suite about to be asked: its cases, the listing of the library with the
/// open skill's unsaved text in place, and who asks.
struct SuiteAsking {
    session: Arc<Session>,
    suites: Vec<Suite>,
    listing: Listing,
    with_edits: bool,
    asker: Asker,
}

impl SuiteAsking {
    fn new(
        app: &AppHandle,
        path: &str,
        choice: &ProviderChoice,
        open: Option<OpenText>,
    ) -> CommandResult<SuiteAsking> {
        let session = app.state::<AppState>().session();
        let suites = crate::routing::resolved_suite(&session, &session.confine(path)?)?;
        let (skills, with_edits) = skills_with_edits(&session, open)?;
        let asker = Asker::new(app, &session, choice)?;
        let listing = asker.listing(&skills);
        Ok(SuiteAsking {
            session,
            suites,
            listing,
            with_edits,
            asker,
        })
    }

    fn preview(&self) -> AgentPreview {
        suite_preview(&self.asker, &self.listing, &self.suites)
    }
}

fn suite_preview(asker: &Asker, listing: &Listing, suites: &[Suite]) -> AgentPreview {
    let requests: Vec<String> = suites
        .iter()
        .flat_map(|s| s.cases.iter().map(|c| c.query.clone()))
        .collect();
    let estimate = asker.session(listing).estimate(&requests, asker.price());
    asker.preview(requests.len(), estimate)
}

/// The providers, their priced models and whether each can run here.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn agent_providers(app: AppHandle) -> CommandResult<Vec<ProviderInfo>> {
    blocking(move || {
        let state = app.state::<AgentState>();
        let prices = PriceTable::bundled();
        Ok(ProviderId::ALL
            .into_iter()
            .map(|id| provider_info(&state, &prices, id))
            .collect())
    })
    .await
}

fn provider_info(state: &AgentState, prices: &PriceTable, id: ProviderId) -> ProviderInfo {
    let (_, key) = state.key(id);
    let models: Vec<String> = prices
        .models()
        .filter(|m| id.priced(m))
        .map(str::to_owned)
        .collect();
    let (available, note, default_model) = match id {
        ProviderId::Local => {
            let location = resolve_model_file(None);
            let name = location
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            if location.installed {
                (true, None, name)
            } else {
                (
                    false,
                    Some(format!(
                        "the local model is not in {}: run `hone model install --llm` (set-up installs it)",
                        location.path.display()
                    )),
                    name,
                )
            }
        }
        ProviderId::Anthropic => (
            key.source != KeySource::Missing,
            (key.source == KeySource::Missing)
                .then(|| format!("needs a key: set {ANTHROPIC_KEY_ENV} or enter one")),
            Some("claude-haiku-4-5".into()),
        ),
        ProviderId::Openai => (
            true,
            (key.source == KeySource::Missing).then(|| {
                format!("needs a key ({OPENAI_KEY_ENV}, or enter one) unless a local server's base URL is given")
            }),
            Some("gpt-4.1-mini".into()),
        ),
        ProviderId::ClaudeCode => (
            true,
            Some("runs the installed `claude` CLI headless; it bills your Claude account".into()),
            None,
        ),
        ProviderId::Codex => (
            true,
            Some("runs the installed `codex` CLI headless: with your Codex login, or at a base URL with the OpenAI key".into()),
            None,
        ),
    };
    ProviderInfo {
        id,
        remote: id.remote(),
        models,
        default_model,
        available,
        note,
        key,
    }
}

/// Keeps a key for `provider` in the OS keyring (else for this session).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn agent_set_key(
    app: AppHandle,
    provider: ProviderId,
    key: String,
) -> CommandResult<KeyStatus> {
    blocking(move || app.state::<AgentState>().store_key(provider, &key)).await
}

/// Forgets the key typed for `provider` (the keyring's and this session's).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn agent_forget_key(app: AppHandle, provider: ProviderId) -> CommandResult<KeyStatus> {
    blocking(move || {
        let state = app.state::<AgentState>();
        state.forget_key(provider);
        Ok(state.key(provider).1)
    })
    .await
}

/// What running the suite at `path` with `choice` will send and cost.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn agent_preview(
    app: AppHandle,
    path: String,
    choice: ProviderChoice,
    open: Option<OpenText>,
) -> CommandResult<AgentPreview> {
    blocking(move || Ok(SuiteAsking::new(&app, &path, &choice, open)?.preview())).await
}

/// Runs the suite at `path` with the agent, the open skill's edits in place;
/// progress goes out as `agent` events. [`agent_cancel`] stops it between
/// calls: finished answers stay in the cache and the report says it is partial.
/// The `offline` ranker runs the same cases, for the side-by-side column and
/// the agreement figure.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn agent_run_eval(
    app: AppHandle,
    path: String,
    choice: ProviderChoice,
    offline: RankerKind,
    open: Option<OpenText>,
) -> CommandResult<AgentRun> {
    blocking(move || {
        let asking = SuiteAsking::new(&app, &path, &choice, open.clone())?;
        let preview = asking.preview();
        let options = EvalOptions {
            threshold: trigger_threshold(&asking.session)?,
            library: asking
                .session
                .project_root()
                .map(display)
                .unwrap_or_default(),
            jobs: agent::DEFAULT_JOBS,
            budget: asking.asker.budget(&preview.estimate),
        };
        let state = app.state::<AppState>();
        let progress = progress_events(&state);
        let mut result = cancellable(&app, |cancel| {
            agent::evaluate(
                &asking.asker.session(&asking.listing),
                &asking.suites,
                preview.estimate,
                &options,
                cancel,
                &progress,
            )
        });
        let offline_report = offline_run(&app, &asking.session, offline, &asking.suites, open)?;
        result
            .agent
            .agreement
            .push(eval::agreement(&result.report, &offline_report));
        Ok(AgentRun {
            report: result.report,
            agent: result.agent,
            offline: Some(offline_report),
            with_edits: asking.with_edits,
        })
    })
    .await
}

/// The offline ranker's report over `suites`, the edits in place.
fn offline_run(
    app: &AppHandle,
    session: &Arc<Session>,
    kind: RankerKind,
    suites: &[Suite],
    open: Option<OpenText>,
) -> CommandResult<Report> {
    if kind == RankerKind::Agent {
        return Err("the offline ranker to compare with is bm25, semantic or hybrid".into());
    }
    ensure_ranker(app, kind)?;
    let state = app.state::<AppState>();
    let edited = crate::panel::edited_doc(session, open)?;
    lock(&state.ranking.routing).run_suites(
        session,
        kind,
        suites,
        None,
        edited.as_ref(),
        &mut |_, _| {},
    )
}

/// Stops the agent run in progress, if any, between calls.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn agent_cancel(app: AppHandle) -> bool {
    app.state::<AgentState>().running.cancel()
}

/// Asks the agent which skill it would load for `query`, the open skill's
/// unsaved edits included: one request, `runs` calls (from the cache when asked before).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub async fn agent_ask(
    app: AppHandle,
    query: String,
    choice: ProviderChoice,
    open: Option<OpenText>,
) -> CommandResult<AgentAnswer> {
    blocking(move || {
        let started = Instant::now();
        let session = app.state::<AppState>().session();
        let (skills, with_edits) = skills_with_edits(&session, open)?;
        let asker = Asker::new(&app, &session, &choice)?;
        let runs = asker.runs;
        let model = asker.provider.model().to_owned();
        let style = asker.listing_style();
        let ranker = AgentRanker::new(
            asker.provider,
            skills,
            style,
            asker.settings,
            Some(runs),
            asker.cache,
        );
        let threshold = selection_threshold(&session, None, &ranker)?;
        let matches =
            hone_core::rank::Ranker::rank(&ranker, &query, 10).map_err(|e| e.to_string())?;
        let (calls, from_cache, _) = ranker.last_asked().unwrap_or_default();
        let selected = matches.first().is_some_and(|m| m.confidence >= threshold);
        let matches = matches
            .into_iter()
            .map(|m| {
                let (picks, runs) = match &m.explanation {
                    Explanation::Agent(a) => (a.picks, a.runs),
                    _ => (0, runs),
                };
                AgentPick {
                    id: m.id,
                    confidence: m.confidence,
                    picks,
                    runs,
                }
            })
            .collect();
        Ok(AgentAnswer {
            provider: choice.provider,
            model,
            remote: choice.provider.remote(),
            matches,
            selected,
            threshold,
            calls,
            from_cache,
            millis: started.elapsed().as_millis() as u64,
            with_edits,
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_key_is_never_serialized() {
        let state = AgentState::default();
        let secret = "sk-ant-test-never-shown-0123456789";
        let status = state.store_key(ProviderId::Anthropic, secret).unwrap();
        assert!(matches!(
            status.source,
            KeySource::Keyring | KeySource::Session
        ));
        let info = provider_info(&state, &PriceTable::bundled(), ProviderId::Anthropic);
        let json = serde_json::to_string(&info).unwrap();
        assert!(!json.contains(secret), "{json}");
        assert!(!format!("{:?}", state.key(ProviderId::Anthropic).0).contains(secret));
        // The provider built with it does not print it either.
        let provider = Anthropic::new(
            "claude-haiku-4-5",
            state.key(ProviderId::Anthropic).0.unwrap(),
            None,
            HttpPolicy::default(),
            true,
        );
        assert!(!provider.endpoint().contains(secret));
        state.forget_key(ProviderId::Anthropic);
        if key_from_env(ANTHROPIC_KEY_ENV).is_none() {
            assert_eq!(
                state.key(ProviderId::Anthropic).1.source,
                KeySource::Missing
            );
        }
        assert!(state.store_key(ProviderId::Local, "x").is_err());
        assert!(state.store_key(ProviderId::Openai, "  ").is_err());
    }

    #[test]
    fn providers_list_their_priced_models_and_say_what_leaves_the_machine() {
        let state = AgentState::default();
        let prices = PriceTable::bundled();
        let anthropic = provider_info(&state, &prices, ProviderId::Anthropic);
        assert!(anthropic.remote);
        assert!(anthropic.models.iter().any(|m| m == "claude-haiku-4-5"));
        assert!(anthropic.models.iter().all(|m| m.starts_with("claude")));
        let openai = provider_info(&state, &prices, ProviderId::Openai);
        assert!(openai.models.iter().any(|m| m == "gpt-4.1-mini"));
        let local = provider_info(&state, &prices, ProviderId::Local);
        assert!(!local.remote);
        assert_eq!(local.key.source, KeySource::NotNeeded);
        let choice: ProviderChoice =
            serde_json::from_str(r#"{"provider":"claude-code","base_url":null}"#).unwrap();
        assert_eq!(choice.provider, ProviderId::ClaudeCode);
    }

    /// The preview counts a call per request and run, none for a cached
    /// answer, and prices it from the table.
    #[test]
    fn the_preview_counts_calls_tokens_and_price() {
        let dir = tempfile::tempdir().unwrap();
        let skills = [
            Skill::from_document(
                std::path::Path::new("pdf"),
                hone_core::document::SkillDocument::parse(
                    "---\nname: pdf\ndescription: Reads and fills PDF forms.\n---\nBody\n".into(),
                ),
            ),
            Skill::from_document(
                std::path::Path::new("deploy"),
                hone_core::document::SkillDocument::parse(
                    "---\nname: deploy\ndescription: Deploys the app.\n---\nBody\n".into(),
                ),
            ),
        ];
        let provider = Anthropic::new(
            "claude-haiku-4-5",
            Secret::new("k"),
            Some("http://127.0.0.1:9"),
            HttpPolicy::default(),
            true,
        );
        let choice = ProviderChoice {
            provider: ProviderId::Anthropic,
            model: Some("claude-haiku-4-5".into()),
            base_url: None,
            runs: None,
        };
        let asker = Asker {
            id: choice.provider,
            runs: runs_for(&provider, &choice),
            provider: Box::new(provider),
            settings: ListingSettings::new(),
            cache: Some(AnswerCache::new(dir.path())),
            prices: PriceTable::bundled(),
        };
        let suite = Suite::from_yaml(
            std::path::Path::new("s.yaml"),
            "name: s\ncases:\n  - query: fill this pdf\n    expect: [pdf]\n  - query: ship it\n    expect: [deploy]\n",
        )
        .unwrap();
        let preview = suite_preview(&asker, &asker.listing(&skills), &[suite]);
        assert!(preview.remote);
        assert_eq!((preview.runs, preview.cases), (3, 2));
        assert_eq!(preview.estimate.calls, 6);
        assert_eq!(preview.estimate.cached_answers, 0);
        assert!(preview.estimate.listing_tokens > 0);
        assert_eq!(
            preview.estimate.price_entry.as_deref(),
            Some("claude-haiku-4-5")
        );
        assert!(preview.estimate.usd.unwrap() > 0.0);
    }
}
