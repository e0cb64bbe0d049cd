//! `--ranker agent` for `hone search` and `hone eval`: the options, the
//! provider they name, the cost preview and Ctrl+C. The asking itself is
//! `hone_core::agent`.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use anstream::eprintln;
use anstyle::Style;
use hone_core::agent::claude_code::ClaudeCode;
use hone_core::agent::codex::Codex;
use hone_core::agent::local::Local;
use hone_core::agent::providers::{
    ANTHROPIC_KEY_ENV, Anthropic, OPENAI_KEY_ENV, OpenAi, key_from_env,
};
use hone_core::agent::{
    AnswerCache, Budget, CostEstimate, HttpPolicy, ListingStyle, PriceTable, Provider,
};
use hone_core::cancel::Cancel;
use hone_core::clients::claude_code::{self, ListingSettings};
use hone_core::library::Library;
use hone_core::llm::LocalModel;

use super::search::LazyBar;

/// Who answers for `--ranker agent`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ProviderName {
    /// Anthropic's Messages API (ANTHROPIC_API_KEY).
    Anthropic,
    /// Chat completions with tools: OpenAI (OPENAI_API_KEY), or Ollama, llama.cpp's server
    /// or vLLM with --base-url.
    Openai,
    /// The `claude` CLI, headless in a scratch project holding the library.
    ClaudeCode,
    /// The `codex` CLI (`codex exec`), headless in a scratch project holding the library: with
    /// --base-url, pointed at that Responses API (key: OPENAI_API_KEY, if set); else with the
    /// user's own Codex login and config.
    Codex,
    /// A GGUF model run on this machine, scoring every skill's name [default model: Gemma 3
    /// 270M, installed by `hone model install --llm`]. Nothing leaves the machine.
    Local,
}

/// The options of `--ranker agent`.
#[derive(clap::Args, Clone)]
#[command(next_help_heading = "Agent ranker (--ranker agent)")]
pub(crate) struct AgentArgs {
    /// Who answers: anthropic, openai, claude-code, codex or local. The listing and the
    /// requests are sent to that provider (local: to nobody).
    #[arg(long, value_name = "PROVIDER", value_enum)]
    pub provider: Option<ProviderName>,
    /// The provider's base URL, e.g. http://localhost:11434/v1 for Ollama [default: the
    /// provider's public API].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// How the library is shown: claude-code (as Claude Code sends it for the model: its own
    /// Skill tool, and its listing with its built-ins and budget in a system message or a
    /// system-reminder), agentskills (the <available_skills> block in the system prompt) or
    /// codex (as Codex CLI sends it: its skills section in a developer message, the library
    /// shown in this folder's .agents/skills, and its shell tool; openai only) [default: codex
    /// for --provider codex, else claude-code].
    #[arg(long, value_name = "STYLE", value_parser = |s: &str| s.parse::<ListingStyle>())]
    pub listing: Option<ListingStyle>,
    /// Times each request is asked; a skill's trigger rate is the share of runs that pick it
    /// [default: 3].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub runs: Option<u32>,
    /// Calls in flight at once.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub jobs: u32,
    /// Spend at most this many US dollars: a run estimated above it does not start, and no
    /// call starts that would pass it.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    pub max_cost: Option<f64>,
    /// A price table (JSON, as the bundled one) whose entries replace the bundled prices.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Seconds one call may take before it is abandoned (and retried).
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub timeout: u64,
    /// Retries of a call after a 429, a 5xx, a timeout or a broken connection, with
    /// exponential backoff and jitter, honouring retry-after (claude-code, and codex with
    /// --base-url: the bound on the client's own retries of a request).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub retries: u32,
    /// Ask again even where the answer cache has an answer (new answers are still stored).
    #[arg(long)]
    pub refresh: bool,
    /// Do not mark the listing for Anthropic's prompt caching.
    #[arg(long)]
    pub no_prompt_caching: bool,
    /// Answer cache folder [default: ~/.cache/hone/agent].
    #[arg(long, value_name = "DIR", env = "HONE_AGENT_CACHE")]
    pub cache_dir: Option<PathBuf>,
    /// The `claude` executable for --provider claude-code [default: $HONE_CLAUDE, else
    /// `claude` on the PATH].
    #[arg(long, value_name = "PATH")]
    pub claude_bin: Option<PathBuf>,
    /// The `codex` executable for --provider codex [default: $HONE_CODEX, else `codex` on the
    /// PATH].
    #[arg(long, value_name = "PATH")]
    pub codex_bin: Option<PathBuf>,
}

fn parse_usd(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd >= 0.0 => Ok(usd),
        _ => Err(format!("`{s}` is not an amount in dollars")),
    }
}

/// Everything a command needs to ask the agent.
pub(crate) struct AgentSetup {
    pub provider: Box<dyn Provider>,
    pub settings: ListingSettings,
    pub cache: Option<AnswerCache>,
    pub prices: PriceTable,
    pub runs: usize,
}

impl AgentArgs {
    /// The provider, listing settings, cache and prices these options name.
    pub fn setup(
        &self,
        model: Option<&std::path::Path>,
        library: &Library,
    ) -> anyhow::Result<AgentSetup> {
        let provider_name = self.provider.ok_or_else(|| {
            anyhow::anyhow!(
                "--ranker agent needs --provider anthropic, openai, claude-code, codex (and --model) or local"
            )
        })?;
        let model = model.map(|m| m.to_string_lossy().into_owned());
        let policy = HttpPolicy {
            timeout: Duration::from_secs(self.timeout.max(1)),
            retries: self.retries,
            ..HttpPolicy::default()
        };
        let need_model = |example: &str| {
            model
                .clone()
                .ok_or_else(|| anyhow::anyhow!("--provider needs --model, e.g. --model {example}"))
        };
        let base_url = self.base_url.as_deref();
        let provider: Box<dyn Provider> = match provider_name {
            ProviderName::Anthropic => {
                let model = need_model("claude-haiku-4-5")?;
                let key = key_from_env(ANTHROPIC_KEY_ENV).ok_or_else(|| {
                    anyhow::anyhow!("--provider anthropic reads its key from {ANTHROPIC_KEY_ENV}, which is not set")
                })?;
                Box::new(Anthropic::new(
                    &model,
                    key,
                    base_url,
                    policy,
                    !self.no_prompt_caching,
                ))
            }
            ProviderName::Openai => {
                let model = need_model("gpt-4.1-mini")?;
                let key = key_from_env(OPENAI_KEY_ENV);
                if key.is_none() && base_url.is_none() {
                    anyhow::bail!(
                        "--provider openai reads its key from {OPENAI_KEY_ENV}, which is not set (a local server given with --base-url needs none)"
                    );
                }
                Box::new(OpenAi::new(&model, key, base_url, policy))
            }
            ProviderName::Local => {
                let path = model.as_deref().map(std::path::Path::new);
                let local = LocalModel::open(path).map_err(anyhow::Error::msg)?;
                Box::new(Local::new(std::sync::Arc::new(local)))
            }
            ProviderName::ClaudeCode => Box::new(ClaudeCode::new(
                model.as_deref().unwrap_or(""),
                self.claude_bin.as_deref(),
                policy.timeout,
                self.retries,
            )),
            ProviderName::Codex => Box::new(Codex::new(
                model.as_deref().unwrap_or(""),
                self.codex_bin.as_deref(),
                base_url,
                key_from_env(OPENAI_KEY_ENV),
                policy.timeout,
                self.retries,
            )),
        };
        let listing = self.listing_style();
        if listing == ListingStyle::Codex
            && matches!(
                provider_name,
                ProviderName::Anthropic | ProviderName::ClaudeCode
            )
        {
            anyhow::bail!(
                "--listing codex is Codex's request shape on OpenAI's API: use it with --provider openai or codex"
            );
        }
        let user = claude_code::user_claude_dir();
        let env = std::env::var(claude_code::CHAR_BUDGET_ENV).ok();
        let settings = ListingSettings::load(&library.roots, user.as_deref(), env.as_deref());
        for problem in &settings.problems {
            eprintln!("hone: warning: {problem}");
        }
        let cache = self
            .cache_dir
            .clone()
            .or_else(AnswerCache::default_dir)
            .map(AnswerCache::new);
        let prices = match &self.prices {
            Some(path) => PriceTable::with_overrides(path).map_err(anyhow::Error::msg)?,
            None => PriceTable::bundled(),
        };
        let runs = self.runs.map_or(
            if provider.deterministic() {
                1
            } else {
                hone_core::agent::DEFAULT_RUNS
            },
            |r| r as usize,
        );
        Ok(AgentSetup {
            provider,
            settings,
            cache,
            prices,
            runs,
        })
    }

    /// The listing style asked for, else the provider's own.
    pub fn listing_style(&self) -> ListingStyle {
        self.listing.unwrap_or(match self.provider {
            Some(ProviderName::Codex) => ListingStyle::Codex,
            _ => ListingStyle::ClaudeCode,
        })
    }

    /// Checks the estimate against `--max-cost` and returns the running budget.
    pub fn budget(
        &self,
        model: &str,
        prices: &PriceTable,
        estimate: &CostEstimate,
    ) -> anyhow::Result<Option<Budget>> {
        let price = prices.price(model).map(|(_, p)| p);
        if let Some(max) = self.max_cost {
            let Some(usd) = estimate.usd else {
                anyhow::bail!(
                    "no price for model `{model}`, so --max-cost cannot be kept: add it to a --prices file (nothing was sent)"
                );
            };
            if usd > max {
                anyhow::bail!(
                    "the run is estimated at ${usd:.4}, over --max-cost ${max:.2}; nothing was sent (fewer --runs, a smaller suite or a cheaper --model lower it)"
                );
            }
        }
        Ok(price.map(|price| Budget {
            max_usd: self.max_cost.unwrap_or(f64::INFINITY),
            price,
            per_call_usd: estimate.per_call_usd().unwrap_or(0.0),
        }))
    }
}

/// Prints the cost preview on standard error.
pub(crate) fn print_estimate(provider: &dyn Provider, estimate: &CostEstimate) {
    let dim = Style::new().dimmed();
    let price = match (estimate.usd, &estimate.price_entry) {
        (Some(usd), Some(entry)) => {
            let saving = match estimate.usd_without_caching {
                Some(without) if estimate.prompt_caching => {
                    format!(", ${without:.4} without prompt caching")
                }
                _ => String::new(),
            };
            format!("estimated ${usd:.4}{saving} (prices of `{entry}`)")
        }
        _ => format!(
            "no price for `{}` in the price table (add it with --prices)",
            provider.model()
        ),
    };
    eprintln!(
        "{dim}agent:{dim:#} {} {} ({}): {} call(s), {} answer(s) from the cache; listing ~{} tokens per call, requests ~{} tokens ({}); {price}",
        provider.name(),
        provider.model(),
        provider.endpoint(),
        estimate.calls,
        estimate.cached_answers,
        estimate.listing_tokens,
        estimate.request_tokens,
        estimate.tokenizer,
    );
    if let Some(caveat) = &estimate.caveat {
        eprintln!("{dim}agent: note:{dim:#} {caveat}");
    }
}

/// A cancellation flag set by Ctrl+C. Calls in flight finish (or time out);
/// no new call starts.
pub(crate) fn cancel_on_ctrl_c() -> Cancel {
    let cancel = Cancel::new();
    let flag = cancel.clone();
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        if runtime.block_on(tokio::signal::ctrl_c()).is_ok() {
            eprintln!("hone: stopping: finished answers are kept; the report will be partial");
            flag.cancel();
        }
    });
    cancel
}

/// A progress bar any worker thread may advance.
pub(crate) struct SharedBar(Mutex<LazyBar>);

impl SharedBar {
    pub fn new(message: &'static str) -> SharedBar {
        SharedBar(Mutex::new(LazyBar::new(message)))
    }

    pub fn update(&self, done: usize, total: usize) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .update(done, total);
    }

    pub fn finish(self) {
        self.0
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .finish();
    }
}
