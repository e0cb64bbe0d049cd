//! `hone bench`: does the skill help? Task evals through the real agent,
//! with and without the skill.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::Duration;

use anstream::{eprintln, println};
use hone_core::agent::PriceTable;
use hone_core::agent::providers::{ANTHROPIC_KEY_ENV, OPENAI_KEY_ENV, key_from_env};
use hone_core::bench::api::{Api, ApiAgent};
use hone_core::bench::batch::{self, Wait};
use hone_core::bench::judge::{AnthropicJudge, Judge};
use hone_core::bench::run::{self, Agent, ArmSpec, BenchOptions, Shard};
use hone_core::bench::{self, BenchReport, Outcome, Progress, ReportHeader, TaskSuite};
use hone_core::clients::{Client, Environment};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(clap::Args)]
#[command(after_help = "\
Each run starts the agent in a fresh scratch workspace (the case's files) with a scratch $HOME \
holding exactly the arm's skills; nothing runs in your project. With --scripted, the agent's \
model is a loopback stand-in that follows each case's `script:` (no key, nothing leaves the \
machine, inside a network namespace with loopback only where the OS allows it): use it to check \
a suite's fixtures and graders before paying. Without --scripted, the prompts, the skill and the \
workspace files go to the agent's provider, under your own login or key; where the OS allows it, \
the run is in a network namespace whose one way out is that provider.

Runs where the skill was available but never loaded are reported apart (\"measured nothing\") and \
left out of the lift. Exit codes: 0 done (and every gate met), 1 a gate failed, 2 an error or a \
cost preview over --max-cost, 3 runs still waiting in a batch (run the same command again).

With --batch, an API agent's turns go to the provider's batch API at half the price: each \
invocation collects the batches that ended and submits the next turn of every other run, keeping \
what is in flight in the cache folder, so running the same command again resumes; --wait polls \
until every run has finished.")]
pub struct Args {
    /// The library (a folder of skills, or one skill's folder).
    #[arg(value_name = "LIB")]
    library: PathBuf,
    /// The task suite: a YAML file, skill-creator's evals.json, or a folder of `claude plugin
    /// eval` cases (default: LIB/evals/tasks/*.yaml, the first found).
    #[arg(value_name = "SUITE")]
    suite: Option<PathBuf>,
    /// The skill under test (default: the suite's `skill:`, else the library's only skill).
    #[arg(long)]
    skill: Option<String>,
    /// The agent that runs the tasks: an agent CLI (claude-code, codex, gemini, opencode), or a
    /// model API with a `Skill` tool and no other (for skills whose work is the reply):
    /// `anthropic` (the Messages API) or `openai` (Chat Completions).
    #[arg(long, value_parser = parse_agent, default_value = "claude-code")]
    agent: AgentName,
    /// The API's base URL for `--agent anthropic|openai`, and for `--judge` unless the agent is
    /// `openai` (default: the provider's).
    #[arg(long)]
    base_url: Option<String>,
    /// The agent's model (default: the agent's own default).
    #[arg(long)]
    model: Option<String>,
    /// Runs per case and arm (default: each case's `runs`, else 3).
    #[arg(long)]
    runs: Option<u32>,
    /// Arms, comma-separated: with, without, git:REV, path:DIR, skill:NAME.
    #[arg(long, value_delimiter = ',', default_value = "with,without")]
    arms: Vec<String>,
    /// An extra arm: the skill at a git revision or a pinned copy (git:REV or path:DIR).
    #[arg(long)]
    baseline: Option<String>,
    /// Runs at once.
    #[arg(long, default_value = "2")]
    jobs: usize,
    /// Play the model from each case's script on a loopback stand-in (free, offline).
    #[arg(long)]
    scripted: bool,
    /// Stop (and refuse to start) when the runs would cost more than this, in US dollars.
    #[arg(long, value_name = "USD")]
    max_cost: Option<f64>,
    /// Retries of a run the agent did not finish.
    #[arg(long, default_value = "2")]
    retries: u32,
    /// The model that judges `llm` graders (Anthropic; key from ANTHROPIC_API_KEY).
    #[arg(long, value_name = "MODEL")]
    judge: Option<String>,
    /// Where finished runs are cached (default: $XDG_CACHE_HOME/hone/bench).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// Run everything again, ignoring and not writing the cache.
    #[arg(long)]
    no_cache: bool,
    /// A price file (same shape as the bundled one; its entries win).
    #[arg(long)]
    prices: Option<PathBuf>,
    /// Gates: `lift=0.1` (the lift's mean at least), `pass=0.8` (the first arm's pass rate).
    #[arg(long = "min", value_name = "METRIC=VALUE")]
    min: Vec<String>,
    /// Send the API agent's turns through the provider's batch API (half the price, answers within
    /// a day): submit, then run the same command again to collect, or add --wait.
    #[arg(long)]
    batch: bool,
    /// With --batch: poll until every run has finished instead of returning after one round.
    #[arg(long, requires = "batch")]
    wait: bool,
    /// With --batch --wait: seconds between polls.
    #[arg(long, value_name = "SECONDS", default_value = "60", requires = "wait")]
    poll: u64,
    /// Only part K of N of the suite's runs (1/2 and 2/2 split it in two), so that several machines
    /// share a suite; copy their cache folders together and run once more without --shard for the
    /// whole report.
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Show the cost preview and stop.
    #[arg(long)]
    preview: bool,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AgentName {
    Cli(Client),
    Api(Api),
}

fn parse_agent(name: &str) -> Result<AgentName, String> {
    match name {
        "anthropic" => Ok(AgentName::Api(Api::Anthropic)),
        "openai" => Ok(AgentName::Api(Api::OpenAi)),
        _ => super::clients::parse_client(name)
            .map(AgentName::Cli)
            .map_err(|e| format!("{e}, anthropic or openai")),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
    Junit,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let env = Environment::current();
    let api_agent = match args.agent {
        AgentName::Api(api) => {
            if args.scripted {
                anyhow::bail!(
                    "--scripted drives an agent CLI; `--agent {}` needs a live model",
                    api.name()
                );
            }
            let (var, default_model) = match api {
                Api::Anthropic => (ANTHROPIC_KEY_ENV, DEFAULT_ANTHROPIC_MODEL),
                Api::OpenAi => (OPENAI_KEY_ENV, DEFAULT_OPENAI_MODEL),
            };
            let Some(key) = key_from_env(var) else {
                anyhow::bail!(
                    "--agent {} reads its key from {var}, which is not set",
                    api.name()
                );
            };
            let model = args.model.as_deref().unwrap_or(default_model);
            let base_url = args.base_url.as_deref();
            Some(match api {
                Api::Anthropic => ApiAgent::anthropic(model, key, base_url),
                Api::OpenAi => ApiAgent::openai(model, key, base_url),
            })
        }
        AgentName::Cli(client) => {
            if args.batch {
                anyhow::bail!(
                    "--batch sends a model API's turns to its batch API: use it with --agent anthropic or --agent openai, not {}",
                    client.display_name()
                );
            }
            None
        }
    };
    let agent = match (&api_agent, args.agent) {
        (Some(api), _) => Agent::Api(api),
        (None, AgentName::Cli(client)) => Agent::Cli(
            run::find_task_agent(client, args.scripted, &env).map_err(anyhow::Error::msg)?,
        ),
        (None, AgentName::Api(_)) => unreachable!("an API agent is made above"),
    };
    let (agent_name, agent_version) = agent.id();
    let suite_path = match &args.suite {
        Some(path) => path.clone(),
        None => default_suite(&args.library)?,
    };
    let suite = TaskSuite::load(&suite_path)?;
    let skill = run::find_skill(
        &args.library,
        args.skill.as_deref().or(suite.skill.as_deref()),
    )
    .map_err(anyhow::Error::msg)?;
    let mut specs = args
        .arms
        .iter()
        .map(|a| ArmSpec::parse(a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    if let Some(baseline) = &args.baseline {
        specs.push(ArmSpec::parse(baseline).map_err(anyhow::Error::msg)?);
    }
    let arms = run::prepare_arms(&args.library, &skill, &specs).map_err(anyhow::Error::msg)?;
    let prices = match &args.prices {
        Some(path) => PriceTable::with_overrides(path).map_err(anyhow::Error::msg)?,
        None => PriceTable::bundled(),
    };
    let judge: Option<Box<dyn Judge>> = match &args.judge {
        None => None,
        Some(model) => {
            let Some(key) = key_from_env(ANTHROPIC_KEY_ENV) else {
                anyhow::bail!("--judge needs {ANTHROPIC_KEY_ENV}");
            };
            Some(Box::new(AnthropicJudge::new(
                model,
                key,
                // The judge is Anthropic's: an OpenAI agent's base URL is not for it.
                args.base_url
                    .as_deref()
                    .filter(|_| args.agent != AgentName::Api(Api::OpenAi)),
            )))
        }
    };
    let cache_dir = (!args.no_cache).then(|| {
        args.cache
            .clone()
            .unwrap_or_else(|| run::default_cache_dir(&env))
    });
    let isolation = super::clients::isolation();
    let options = BenchOptions {
        agent,
        model: args.model.clone(),
        runs: args.runs,
        jobs: args.jobs.max(1),
        scripted: args.scripted,
        isolation: &isolation,
        cache_dir,
        max_cost_usd: args.max_cost,
        retries: args.retries,
        scratch_dir: Some(run::default_scratch_dir(&env)),
        judge: judge.as_deref(),
        prices: &prices,
        cancel: super::agent::cancel_on_ctrl_c(),
        batch: args.batch,
        shard: args.shard,
    };
    let preview = run::preview(&suite, &arms, &options);
    let usd = preview.usd.map_or_else(
        || "unknown (no price for this model: --prices)".to_string(),
        |u| format!("${u:.2}"),
    );
    eprintln!(
        "bench: {} runs ({} cached) of {} cases × {} arms; about {} input and {} output tokens, {usd} on {}",
        preview.runs,
        preview.cached,
        suite.cases.len(),
        arms.len(),
        preview.input_tokens,
        preview.output_tokens,
        preview.model
    );
    eprintln!("bench: estimate: {}", preview.basis);
    match args.agent {
        _ if args.scripted => {
            eprintln!("bench: scripted model on a loopback stand-in: nothing leaves this machine")
        }
        AgentName::Api(api) => eprintln!(
            "bench: the prompts and the skill go to {}'s API ({})",
            api.display_name(),
            args.base_url.as_deref().unwrap_or(match api {
                Api::Anthropic => "api.anthropic.com",
                Api::OpenAi => "api.openai.com",
            })
        ),
        AgentName::Cli(client) => eprintln!(
            "bench: the prompts, the skill and the workspace files go to {}'s provider",
            client.display_name()
        ),
    }
    if let AgentName::Cli(client) = args.agent {
        let note = run::network_note(
            client,
            args.model.as_deref(),
            args.scripted,
            options.isolation,
        );
        eprintln!("bench: {note}");
    }
    if judge.is_some() {
        eprintln!("bench: `llm` graders send the agent's work to Anthropic's API");
    }
    for note in &suite.notes {
        eprintln!("bench: note: {note}");
    }
    if let Some(why) = run::over_ceiling(&preview, args.max_cost, args.scripted) {
        eprintln!("bench: {why} (--max-cost); nothing was run");
        return Ok(ExitCode::from(2));
    }
    if args.preview {
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(why) = run::cannot_start(&options.agent, args.model.as_deref(), args.scripted) {
        anyhow::bail!(why);
    }
    let bar: OnceLock<ProgressBar> = OnceLock::new();
    let progress = |p: &Progress| {
        if args.format != Format::Text {
            return;
        }
        let bar = bar.get_or_init(|| {
            let bar = ProgressBar::new(p.total as u64);
            if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} runs {msg}") {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(p.done as u64);
        if let Some(last) = &p.last {
            bar.set_message(format!(
                "{} [{}]: {}",
                last.case,
                last.arm,
                outcome_word(last.outcome)
            ));
        }
    };
    let (results, stopped) = if args.batch {
        let wait = if args.wait {
            Wait::Poll(Duration::from_secs(args.poll))
        } else {
            Wait::No
        };
        let batched = batch::run_batched(&suite, &suite_path, &skill, &arms, &options, wait)
            .map_err(anyhow::Error::msg)?;
        for note in &batched.notes {
            eprintln!("bench: {note}");
        }
        if batched.submitted > 0 {
            eprintln!(
                "bench: submitted {} turn(s) to the batch API",
                batched.submitted
            );
        }
        if batched.waiting > 0 {
            let failed = batched
                .results
                .iter()
                .filter(|r| r.outcome == Outcome::Error)
                .count();
            if failed > 0 {
                eprintln!(
                    "bench: {failed} run(s) got no answer in their batch; they are submitted again next time"
                );
            }
            eprintln!(
                "bench: {} of {} run(s) waiting in batch {}; run the same command again to collect them (or add --wait)",
                batched.waiting,
                preview.runs,
                batched.batches.join(", ")
            );
            return Ok(ExitCode::from(3));
        }
        let stopped = options.cancel.is_cancelled().then(|| {
            "cancelled: the batches keep running; run the same command again to collect them"
                .to_string()
        });
        (batched.results, stopped)
    } else {
        let finished = run::run_suite(&suite, &skill, &arms, &options, &progress);
        if let Some(bar) = bar.get() {
            bar.finish_and_clear();
        }
        finished
    };
    let labels: Vec<(String, bool)> = arms
        .iter()
        .map(|a| (a.label.clone(), a.with_skill))
        .collect();
    let cases: Vec<String> = suite.cases.iter().map(|c| c.name.clone()).collect();
    let report = bench::summarize(
        ReportHeader {
            suite: suite.name.clone(),
            skill: skill.name.clone(),
            agent: agent_name,
            agent_version,
            model: args.model.clone(),
            scripted: args.scripted,
            notes: suite
                .notes
                .iter()
                .cloned()
                .chain(args.batch.then(|| {
                    "answered through the provider's batch API, priced at half".to_string()
                }))
                .collect(),
        },
        &labels,
        &cases,
        results,
        stopped,
    );
    let failed_gates = gates(&report, &args.min)?;
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Junit => print!("{}", junit(&report)),
        Format::Text => print_text(&report, &failed_gates),
    }
    Ok(if failed_gates.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The models of `--agent anthropic` and `--agent openai` when none is
/// given: the cheapest of each that follows a skill well.
const DEFAULT_ANTHROPIC_MODEL: &str = "claude-haiku-4-5";
const DEFAULT_OPENAI_MODEL: &str = "gpt-5-mini";

fn default_suite(library: &Path) -> anyhow::Result<PathBuf> {
    let dir = library.join(hone_core::eval::suite::TASKS_DIR);
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("no task suite given and none in {}", dir.display()))
}

/// The gates that failed, in words.
fn gates(report: &BenchReport, gates: &[String]) -> anyhow::Result<Vec<String>> {
    let mut failed = Vec::new();
    for gate in gates {
        let Some((metric, value)) = gate.split_once('=') else {
            anyhow::bail!("a gate is METRIC=VALUE, not `{gate}`");
        };
        let want: f64 = value
            .parse()
            .map_err(|_| anyhow::anyhow!("`{value}` is not a number in `{gate}`"))?;
        let got = match metric {
            "lift" => report.lift.map(|l| l.mean),
            "pass" => report.arms.first().and_then(|a| a.pass_rate),
            other => anyhow::bail!("unknown gate `{other}`: lift or pass"),
        };
        match got {
            Some(got) if got >= want => {}
            Some(got) => failed.push(format!("{metric} {got:.2} < {want:.2}")),
            None => failed.push(format!("{metric}: nothing was measured")),
        }
    }
    Ok(failed)
}

fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Passed => "pass",
        Outcome::Failed => "fail",
        Outcome::NotLoaded => "not loaded",
        Outcome::Ungraded => "no grader applied",
        Outcome::Error => "error",
    }
}

fn print_text(report: &BenchReport, failed_gates: &[String]) {
    println!(
        "{} on {} {}{}: skill `{}`",
        report.suite,
        report.agent,
        report.agent_version,
        if report.scripted {
            " (scripted model)"
        } else {
            ""
        },
        report.skill
    );
    println!();
    for case in &report.cases {
        let arms: Vec<String> = case
            .arms
            .iter()
            .map(|a| {
                let mut text = format!("{} {}/{}", a.arm, a.passed, a.measured);
                if a.not_loaded > 0 {
                    text.push_str(&format!(" ({} not loaded)", a.not_loaded));
                }
                if a.errors > 0 {
                    text.push_str(&format!(" ({} errors)", a.errors));
                }
                text
            })
            .collect();
        println!("  {:<32} {}", case.name, arms.join("   "));
        if !case.flaky.is_empty() {
            println!("  {:<32} flaky graders: {}", "", case.flaky.join(", "));
        }
        if !case.never_discriminating.is_empty() {
            println!(
                "  {:<32} never tell the arms apart: {}",
                "",
                case.never_discriminating.join(", ")
            );
        }
    }
    println!();
    for arm in &report.arms {
        let rate = arm
            .pass_rate
            .map_or("—".to_string(), |r| format!("{:.0}%", r * 100.0));
        println!(
            "  {:<10} pass {rate} [{:.0}–{:.0}%] of {} measured; pass@{k} {}  pass^{k} {}; {} in + {} out tokens, {:.1} s a run, ${:.2}",
            arm.label,
            arm.interval.low * 100.0,
            arm.interval.high * 100.0,
            arm.measured,
            fmt_rate(arm.pass_at_k),
            fmt_rate(arm.pass_hat_k),
            arm.input_tokens,
            arm.output_tokens,
            arm.mean_seconds,
            arm.cost_usd,
            k = arm.k,
        );
        if arm.not_loaded > 0 {
            println!(
                "  {:<10} measured nothing in {} run(s): the skill did not load",
                "", arm.not_loaded
            );
        }
        if arm.ungraded > 0 {
            println!(
                "  {:<10} {} run(s) had no grader that applied (llm graders need --judge)",
                "", arm.ungraded
            );
        }
        if arm.errors > 0 {
            let why = report
                .runs
                .iter()
                .find(|r| r.arm == arm.label && r.outcome == Outcome::Error)
                .map(|r| r.status.clone())
                .unwrap_or_default();
            println!(
                "  {:<10} {} run(s) did not finish: {why:.300}",
                "", arm.errors
            );
        }
    }
    println!();
    match &report.lift {
        Some(lift) => {
            let verdict = match lift.verdict {
                bench::stats::Verdict::Helps => "helps".to_string(),
                bench::stats::Verdict::Hurts => "hurts".to_string(),
                bench::stats::Verdict::CantTellYet => match lift.runs_to_tell {
                    Some(runs) => {
                        format!("can't tell yet: about {runs} runs per arm and case would tell")
                    }
                    None => "can't tell yet: no difference seen".to_string(),
                },
            };
            println!(
                "  lift {:+.2} [{:+.2}, {:+.2}] over {} case(s): {verdict}",
                lift.mean, lift.interval.low, lift.interval.high, lift.cases
            );
            if let Some(per_dollar) = report.lift_per_dollar {
                println!("  lift per dollar a run: {per_dollar:.2}");
            }
        }
        None => println!(
            "  lift: nothing to compare (needs an arm with the skill and `without`, each with measured runs)"
        ),
    }
    if let Some(stopped) = &report.stopped {
        println!("  {stopped}");
    }
    for gate in failed_gates {
        println!("  gate failed: {gate}");
    }
}

fn fmt_rate(rate: Option<f64>) -> String {
    rate.filter(|r| r.is_finite())
        .map_or("—".to_string(), |r| format!("{:.0}%", r * 100.0))
}

/// JUnit XML: a test case per case and arm, failed when any run failed.
fn junit(report: &BenchReport) -> String {
    let escape = |text: &str| {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let mut body = String::new();
    let mut failures = 0;
    let mut tests = 0;
    for case in &report.cases {
        for arm in &case.arms {
            tests += 1;
            body.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{} [{}]\">\n",
                escape(&report.suite),
                escape(&case.name),
                escape(&arm.arm)
            ));
            if arm.passed < arm.measured || arm.errors > 0 {
                failures += 1;
                let evidence: Vec<String> = report
                    .runs
                    .iter()
                    .filter(|r| r.case == case.name && r.arm == arm.arm)
                    .flat_map(|r| r.graded.iter().filter(|g| g.passed == Some(false)))
                    .map(|g| format!("{}: {}", g.name, g.evidence))
                    .collect();
                body.push_str(&format!(
                    "      <failure message=\"{} of {} runs passed\">{}</failure>\n",
                    arm.passed,
                    arm.measured,
                    escape(&evidence.join("\n"))
                ));
            }
            if arm.not_loaded > 0 {
                body.push_str(&format!(
                    "      <system-out>{} run(s) measured nothing: the skill did not load</system-out>\n",
                    arm.not_loaded
                ));
            }
            body.push_str("    </testcase>\n");
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\">\n{body}  </testsuite>\n</testsuites>\n",
        escape(&report.suite)
    )
}
