//! `hone eval`: run routing suites against a library, compare with an earlier
//! run, and gate on the metrics.

use std::path::PathBuf;
use std::process::ExitCode;

use anstream::{eprintln, println};
use anstyle::{AnsiColor, Style};
use hone_core::eval::report::{Comparison, METRIC_NAMES, MetricValues};
use hone_core::eval::suite::{SUITES_DIR, library_suites, suite_files};
use hone_core::eval::{self, Gate, Identities, Report, RunOptions, Suite};
use serde::Serialize;

use hone_core::agent::confirm::{self, ConfirmOptions};
use hone_core::eval::calibrate::Calibration;
use hone_core::eval::suggest::{self, Change, Suggestions};
use hone_core::library_settings::{CalibratedThreshold, LibrarySettings};
use hone_core::rank::Ranker;

use hone_core::agent::{
    self, AgentEval, AgentSummary, DEFAULT_TRIGGER_THRESHOLD, EvalOptions, Listing, Session,
};
use hone_core::library::Library;
use hone_core::rank::hybrid::default_kind;
use hone_core::rank::{RankView, RankerKind};
use hone_core::skill::Skill;

use super::agent::{SharedBar, cancel_on_ctrl_c, print_estimate};
use super::search::{LazyBar, RankingArgs, build_ranker, open_library};

#[derive(clap::Args)]
#[command(after_help = "\
Suites are YAML (`cases: [{query, expect: [skill...], reject: [skill...], kind}]`, `expect: []` \
meaning no skill should be selected) or skill-creator trigger-eval JSON files named after their \
skill. A folder stands for its .yaml, .yml and .json files.
Metrics: p_at_1 p_at_3 recall_at_3 hit_at_3 hit_at_5 mrr accuracy false_positive_rate \
latency_ms_p50 latency_ms_p99.
With --ranker agent each request is asked of a model --runs times; a case's pick is the skill \
with the highest trigger rate, selected when the rate reaches --trigger-threshold. The cost is \
estimated and printed before anything is sent; --max-cost refuses a run estimated above it and \
stops before passing it. Answers are cached on disk, so an unchanged re-run costs nothing. \
Ctrl+C stops: finished answers are kept and a partial report is written. Example:
  hone eval skills skills/evals --ranker agent --provider anthropic --model claude-haiku-4-5 \\
    --runs 3 --max-cost 1.00 --jobs 4
Exit codes: 0 all gates pass, 1 a gate fails, 2 bad input (including suites naming skills the \
library lacks), 130 stopped by Ctrl+C (the report is partial).")]
pub struct Args {
    /// The library: a folder of skills.
    #[arg(value_name = "LIBRARY")]
    library: PathBuf,
    /// Suite files or folders of suites; without any, the library's own
    /// (`evals/` and its sub-folders, as the app finds them).
    #[arg(value_name = "SUITE")]
    suites: Vec<PathBuf>,
    #[command(flatten)]
    ranking: RankingArgs,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// An earlier JSON report: list the cases that improved or regressed and the metric deltas.
    #[arg(long, value_name = "OLD_REPORT.json")]
    compare: Option<PathBuf>,
    /// Fail (exit 1) when METRIC is below VALUE, e.g. --min p_at_1=0.8.
    #[arg(long, value_name = "METRIC=VALUE", value_parser = |s: &str| Gate::parse(s, true))]
    min: Vec<Gate>,
    /// Fail (exit 1) when METRIC is above VALUE, e.g. --max false_positive_rate=0.05.
    #[arg(long, value_name = "METRIC=VALUE", value_parser = |s: &str| Gate::parse(s, false))]
    max: Vec<Gate>,
    /// Fit the ranker's selection threshold on these suites by cross-validation and store it in
    /// the library's evals/hone-settings.json, which `hone search`, `hone eval`, `hone serve` and
    /// the app then use.
    #[arg(long, conflicts_with_all = ["compare", "min", "max"])]
    calibrate: bool,
    /// Propose description edits for SKILL, each scored on a 60/40 training/held-out split of
    /// the suites' cases (mined from the training part, ranked by the held-out delta).
    #[arg(long, value_name = "SKILL", conflicts_with_all = ["compare", "min", "max", "calibrate"])]
    suggest: Option<String>,
    /// With --suggest: re-run the held-out cases of the first suggestions with the agent ranker
    /// (its options below: --provider, --runs, --max-cost…) and show its delta beside the
    /// offline one. The cost is previewed first.
    #[arg(long, value_enum, value_name = "RANKER", requires = "suggest")]
    confirm_with: Option<ConfirmWith>,
    /// Suggestions confirmed by --confirm-with, the first of the list [default: 3].
    #[arg(long, value_name = "N", requires = "confirm_with", value_parser = clap::value_parser!(u32).range(1..=20))]
    confirm_top: Option<u32>,
    /// The model that answers for --confirm-with agent (as --model for --ranker agent), so
    /// that --model can still name the offline ranker's embedding model.
    #[arg(long, value_name = "MODEL", requires = "confirm_with")]
    confirm_model: Option<PathBuf>,
}

/// Who confirms suggestions.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ConfirmWith {
    /// The agent ranker: a model asked which skill it would load.
    Agent,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

/// The JSON output: the report, plus the comparison and gates when asked for.
#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    report: &'a Report,
    /// What of a skill the offline ranker read (`listing` or `retrieval`).
    view: RankView,
    #[serde(skip_serializing_if = "Option::is_none")]
    comparison: Option<&'a Comparison>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    gates: Vec<GateOutcome<'a>>,
    /// The agent's account: calls, cache, tokens, spend, agreement.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a AgentSummary>,
}

#[derive(Serialize)]
struct GateOutcome<'a> {
    #[serde(flatten)]
    gate: &'a Gate,
    passed: bool,
    failure: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut suites = Vec::new();
    if args.suites.is_empty() {
        let files = library_suites([args.library.as_path()]);
        if files.is_empty() {
            anyhow::bail!(
                "no suite given, and {} holds none in `{SUITES_DIR}/`",
                args.library.display()
            );
        }
        for file in files {
            suites.push(Suite::load(&file)?);
        }
    }
    for path in &args.suites {
        let files = suite_files(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        if files.is_empty() {
            anyhow::bail!(
                "{}: no .yaml, .yml or .json suite in this folder",
                path.display()
            );
        }
        for file in files {
            suites.push(Suite::load(&file)?);
        }
    }
    let old_report: Option<Report> = match &args.compare {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            let report = serde_json::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "{}: not a `hone eval --format json` report: {e}",
                    path.display()
                )
            })?;
            Some(report)
        }
        None => None,
    };
    let library = open_library(&args.library)?;
    let suites = eval::resolve_suites(&suites, &Identities::from_library(&library))?;
    let ranking = &args.ranking;
    let (report, agent) = if ranking.kind() == RankerKind::Agent {
        let result = run_agent(&args, &library, &suites)?;
        (result.report, Some(result.agent))
    } else {
        let ranker = build_ranker(
            ranking.view(),
            ranking.kind(),
            &library,
            ranking.builtins,
            ranking.model.as_deref(),
        )?;
        let threshold = ranking.threshold(&args.library, ranker.as_ref())?;
        if args.calibrate {
            return calibrate(&args, ranker.as_ref(), &suites, threshold);
        }
        if let Some(skill) = &args.suggest {
            let mut ranker = ranker;
            let listing_cap = hone_core::clients::claude_code::project_listing_cap(&library.roots);
            let mut found = suggest::suggest(
                ranker.as_mut(),
                &library,
                &suites,
                skill,
                threshold,
                listing_cap,
            )?;
            if args.confirm_with == Some(ConfirmWith::Agent) {
                confirm_suggestions(&args, &library, &suites, &mut found)?;
            }
            if args.format == Format::Json {
                println!("{}", serde_json::to_string_pretty(&found)?);
            } else {
                print_suggestions(&found);
            }
            return Ok(ExitCode::SUCCESS);
        }
        let options = RunOptions {
            threshold,
            library: args.library.display().to_string(),
        };
        let mut bar = LazyBar::new("evaluating");
        let report = eval::run(ranker.as_ref(), &suites, &options, &mut |done, total| {
            bar.update(done, total)
        });
        bar.finish();
        (report, None)
    };

    let comparison = old_report.as_ref().map(|old| Comparison::new(old, &report));
    let gates: Vec<GateOutcome> = args
        .min
        .iter()
        .chain(&args.max)
        .map(|gate| {
            let failure = gate.check(&report.metrics.overall);
            GateOutcome {
                gate,
                passed: failure.is_none(),
                failure,
            }
        })
        .collect();
    let failed = gates.iter().any(|g| !g.passed);

    if args.format == Format::Json {
        let output = Output {
            report: &report,
            view: args.ranking.view(),
            comparison: comparison.as_ref(),
            gates,
            agent: agent.as_ref(),
        };
        println!("{}", serde_json::to_string_pretty(&output)?);
    } else {
        print_report(&report);
        print_confusion(&report);
        if let Some(agent) = &agent {
            print_agent(agent);
        }
        if let Some(comparison) = &comparison {
            print_comparison(comparison);
        }
        print_gates(&gates);
    }
    let cancelled = agent
        .as_ref()
        .is_some_and(|a| a.stopped.as_deref() == Some("cancelled"));
    Ok(if cancelled {
        ExitCode::from(130)
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Asks the model, after the cost preview, then measures how far each
/// offline ranker agrees with it.
fn run_agent(args: &Args, library: &Library, suites: &[Suite]) -> anyhow::Result<AgentEval> {
    let ranking = &args.ranking;
    let options = &ranking.agent;
    let setup = options.setup(ranking.model.as_deref(), library)?;
    let skills: Vec<&Skill> = library.skills.iter().collect();
    let listing = Listing::new(
        &skills,
        options.listing_style(),
        &setup.settings,
        setup.provider.model(),
    );
    let provider = setup.provider.as_ref();
    let session = Session {
        provider,
        listing: &listing,
        cache: setup.cache.as_ref(),
        read_cache: !options.refresh,
        runs: setup.runs,
    };
    let requests: Vec<String> = suites
        .iter()
        .flat_map(|s| s.cases.iter().map(|c| c.query.clone()))
        .collect();
    let estimate = session.estimate(&requests, setup.prices.price(provider.model()));
    print_estimate(provider, &estimate);
    let budget = options.budget(provider.model(), &setup.prices, &estimate)?;
    let cancel = cancel_on_ctrl_c();
    let bar = SharedBar::new("asking the agent");
    let eval_options = EvalOptions {
        threshold: ranking.threshold.unwrap_or(DEFAULT_TRIGGER_THRESHOLD),
        library: args.library.display().to_string(),
        jobs: options.jobs as usize,
        budget,
    };
    let mut result = agent::evaluate(
        &session,
        suites,
        estimate,
        &eval_options,
        &cancel,
        &|d, t| bar.update(d, t),
    );
    bar.finish();
    // BM25 always; hybrid too where the embedding model is installed.
    let mut offline = vec![RankerKind::Bm25];
    let default = default_kind(None);
    if default != RankerKind::Bm25 {
        offline.push(default);
    }
    for kind in offline {
        // The agent answers from the listing, so it is compared with the
        // listing view.
        match build_ranker(RankView::Listing, kind, library, None, None) {
            Ok(ranker) => {
                let run_options = RunOptions {
                    threshold: ranker.default_threshold(),
                    library: eval_options.library.clone(),
                };
                let report = eval::run(ranker.as_ref(), suites, &run_options, &mut |_, _| {});
                result
                    .agent
                    .agreement
                    .push(eval::agreement(&result.report, &report));
            }
            Err(err) => eprintln!("hone: warning: no agreement with {kind}: {err}"),
        }
    }
    Ok(result)
}

/// The cells of the confusion table off its diagonal: what was picked instead.
fn print_confusion(report: &Report) {
    let bold = Style::new().bold();
    let dim = Style::new().dimmed();
    let wrong: Vec<_> = report
        .confusion
        .iter()
        .filter(|c| c.expected != c.picked)
        .collect();
    if wrong.is_empty() {
        return;
    }
    println!();
    println!("{bold}Picked instead{bold:#} {dim}(expected → picked, cases){dim:#}");
    for cell in wrong {
        println!("  {} → {}  ×{}", cell.expected, cell.picked, cell.count);
    }
}

fn print_agent(agent: &AgentSummary) {
    let bold = Style::new().bold();
    let red = Style::new().bold().fg_color(Some(AnsiColor::Red.into()));
    println!();
    println!(
        "{bold}Agent{bold:#} {} {} ({} listing, {} run(s) per request, trigger threshold {:.2})",
        agent.provider, agent.model, agent.listing, agent.runs, agent.trigger_threshold
    );
    let spent = agent
        .spent_usd
        .map_or_else(|| "unpriced".to_owned(), |usd| format!("${usd:.4}"));
    println!(
        "  {} call(s) ({} failed, {} retries), {} answer(s) from the cache; tokens: {} input, {} cache write, {} cache read, {} output; spent {spent}",
        agent.calls,
        agent.failed_calls,
        agent.retries,
        agent.answers_from_cache,
        agent.usage.input_tokens,
        agent.usage.cache_write_tokens,
        agent.usage.cache_read_tokens,
        agent.usage.output_tokens
    );
    for agreement in &agent.agreement {
        println!(
            "  agreement with {}: {} ({} of {} cases pick the same skill, or none)",
            agreement.ranker,
            format_metric(agreement.share),
            agreement.agreed,
            agreement.cases
        );
    }
    if agent.partial {
        println!(
            "  {red}PARTIAL{red:#}: {} case(s) not run ({})",
            agent.cases_not_run,
            agent.stopped.as_deref().unwrap_or("stopped")
        );
    }
}

fn format_metric(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"))
}

fn print_report(report: &Report) {
    let bold = Style::new().bold();
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let dim = Style::new().dimmed();
    let failing: Vec<_> = report.cases.iter().filter(|c| !c.passed).collect();
    if !failing.is_empty() {
        println!("{bold}Failing cases ({}){bold:#}", failing.len());
        for case in &failing {
            let kinds = if case.kinds.is_empty() {
                String::new()
            } else {
                format!(" [{}]", case.kinds.join(", "))
            };
            println!(
                "{dim}{}:{}{kinds}{dim:#} {}",
                case.suite, case.line, case.query
            );
            println!(
                "    {red}{}{red:#}",
                case.failure.as_deref().unwrap_or("failed")
            );
            if !case.top.is_empty() {
                let top: Vec<_> = case
                    .top
                    .iter()
                    .map(|m| match m.builtin_of {
                        Some(_) => format!("{} (built-in) {:.2}", m.id, m.confidence),
                        None => format!("{} {:.2}", m.id, m.confidence),
                    })
                    .collect();
                println!("    {dim}top: {}{dim:#}", top.join(", "));
            }
        }
        println!();
    }
    let taken = report
        .cases
        .iter()
        .filter(|c| c.taken_by_builtin.is_some())
        .count();
    if taken > 0 {
        println!(
            "{bold}{taken} of {} requests would go to the client's built-in skills{bold:#}",
            report.cases.len()
        );
    }
    let m = &report.metrics.overall;
    println!(
        "{bold}{}{bold:#} on {} ({}, threshold {:.2}): {} cases, {} positive, {} negative, {} passed",
        report.suite,
        report.library,
        report.ranker,
        report.threshold,
        m.cases,
        m.positive_cases,
        m.negative_cases,
        report.cases.len() - failing.len()
    );
    let labels = [
        "p@1", "p@3", "recall@3", "hit@3", "hit@5", "mrr", "accuracy", "fp rate", "p50 ms",
        "p99 ms",
    ];
    let header: Vec<String> = labels.iter().map(|label| format!("{label:>8}")).collect();
    println!("{dim}{:<14} {}{dim:#}", "", header.join(" "));
    print_row("all", m);
    for (kind, values) in &report.metrics.by_kind {
        print_row(kind, values);
    }
}

fn print_row(label: &str, values: &MetricValues) {
    let cells: Vec<String> = METRIC_NAMES
        .iter()
        .map(|name| format!("{:>8}", format_metric(values.get(name).flatten())))
        .collect();
    println!("{label:<14.14} {}", cells.join(" "));
}

fn print_comparison(comparison: &Comparison) {
    let bold = Style::new().bold();
    let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    println!();
    println!("{bold}Compared with the earlier run{bold:#}");
    for (name, delta) in &comparison.metrics {
        let Some(change) = delta.delta else { continue };
        // Lower is better for false positives and latency.
        let lower_is_better = name == "false_positive_rate" || name.starts_with("latency");
        let better = if lower_is_better {
            change < 0.0
        } else {
            change > 0.0
        };
        let style = if change == 0.0 {
            Style::new()
        } else if better {
            green
        } else {
            red
        };
        println!(
            "  {name:<20} {} → {}  {style}{change:+.3}{style:#}",
            format_metric(delta.old),
            format_metric(delta.new)
        );
    }
    let rank = |r: Option<usize>| r.map_or_else(|| ">10".to_owned(), |r| r.to_string());
    for (title, changes, style) in [
        ("improved", &comparison.improved, green),
        ("regressed", &comparison.regressed, red),
    ] {
        println!("  {style}{} {title}{style:#}", changes.len());
        for change in changes {
            let outcome = |passed: bool| if passed { "pass" } else { "fail" };
            println!(
                "    {}: {} ({} → {}, rank {} → {})",
                change.suite,
                change.query,
                outcome(change.old_passed),
                outcome(change.new_passed),
                rank(change.old_rank),
                rank(change.new_rank)
            );
        }
    }
    if comparison.only_old + comparison.only_new > 0 {
        println!(
            "  {} case(s) only in the earlier run, {} only in this one",
            comparison.only_old, comparison.only_new
        );
    }
}

fn print_gates(gates: &[GateOutcome]) {
    if gates.is_empty() {
        return;
    }
    let green = Style::new().bold().fg_color(Some(AnsiColor::Green.into()));
    let red = Style::new().bold().fg_color(Some(AnsiColor::Red.into()));
    println!();
    for outcome in gates {
        let gate = outcome.gate;
        let bound = if gate.minimum { "≥" } else { "≤" };
        match &outcome.failure {
            None => println!(
                "{green}pass{green:#} {} {bound} {}",
                gate.metric, gate.value
            ),
            Some(why) => println!("{red}FAIL{red:#} {why}"),
        }
    }
}

/// `--calibrate`: fit the threshold, store it with the library, report.
fn calibrate(
    args: &Args,
    ranker: &dyn Ranker,
    suites: &[Suite],
    current: f32,
) -> anyhow::Result<ExitCode> {
    let mut bar = LazyBar::new("ranking cases");
    let calibration = eval::calibrate::calibrate(ranker, suites, current, &mut |done, total| {
        bar.update(done, total)
    })?;
    bar.finish();
    let mut settings = LibrarySettings::load(&args.library)?;
    settings.thresholds.insert(
        calibration.ranker.as_str().to_owned(),
        CalibratedThreshold {
            threshold: calibration.after.threshold,
            cases: calibration.cases,
            accuracy_before: calibration.before.accuracy,
            accuracy_after: calibration.after.accuracy,
        },
    );
    let path = settings.save(&args.library)?;
    if args.format == Format::Json {
        #[derive(Serialize)]
        struct Output<'a> {
            #[serde(flatten)]
            calibration: &'a Calibration,
            settings: String,
        }
        let output = Output {
            calibration: &calibration,
            settings: path.display().to_string(),
        };
        println!("{}", serde_json::to_string_pretty(&output)?);
        return Ok(ExitCode::SUCCESS);
    }
    let bold = Style::new().bold();
    let percent = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{:.1}%", x * 100.0));
    println!(
        "{bold}{} threshold{bold:#} fitted on {} cases ({}-fold cross-validation)",
        calibration.ranker,
        calibration.cases,
        eval::calibrate::FOLDS
    );
    for (label, score) in [
        ("before", &calibration.before),
        ("after", &calibration.after),
    ] {
        println!(
            "  {label:<6} {:.2}  accuracy {:>6}  false positives {:>6}",
            score.threshold,
            percent(score.accuracy),
            percent(score.false_positive_rate)
        );
    }
    println!("stored in {}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// `--confirm-with agent`: the cost preview, then the agent's held-out run
/// with the library as it is and with each of the first suggestions.
fn confirm_suggestions(
    args: &Args,
    library: &Library,
    suites: &[Suite],
    found: &mut Suggestions,
) -> anyhow::Result<()> {
    let agent_args = &args.ranking.agent;
    let setup = agent_args.setup(args.confirm_model.as_deref(), library)?;
    let options = ConfirmOptions {
        provider: setup.provider.as_ref(),
        style: agent_args.listing_style(),
        settings: &setup.settings,
        cache: setup.cache.as_ref(),
        read_cache: !agent_args.refresh,
        runs: setup.runs,
        // --threshold is the offline ranker's here.
        threshold: DEFAULT_TRIGGER_THRESHOLD,
        jobs: agent_args.jobs as usize,
        top: args
            .confirm_top
            .map_or(confirm::DEFAULT_CONFIRMED, |n| n as usize),
    };
    let model = options.provider.model().to_owned();
    let price = setup.prices.price(&model);
    let estimate = confirm::estimate(library, suites, found, &options, price);
    print_estimate(options.provider, &estimate);
    let budget = agent_args.budget(&model, &setup.prices, &estimate)?;
    let cancel = cancel_on_ctrl_c();
    let bar = SharedBar::new("confirming with the agent");
    confirm::confirm(
        library,
        suites,
        found,
        &options,
        budget,
        &cancel,
        &|d, t| bar.update(d, t),
    );
    bar.finish();
    Ok(())
}

/// `--suggest`: each candidate edit as a diff with its predicted deltas.
fn print_suggestions(found: &Suggestions) {
    let bold = Style::new().bold();
    let dim = Style::new().dimmed();
    let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let points = |delta: f64| format!("{:+.1} pts", delta * 100.0);
    println!(
        "{bold}{}{bold:#}: accuracy {:.1}% on {} training cases, {:.1}% on {} held-out cases",
        found.skill,
        found.training_accuracy * 100.0,
        found.training_cases,
        found.held_out_accuracy * 100.0,
        found.held_out_cases
    );
    if found.candidates.is_empty() {
        println!("{dim}no candidate edit{dim:#}");
    }
    for (i, candidate) in found.candidates.iter().enumerate() {
        let style = if candidate.held_out_delta > 0.0 {
            green
        } else {
            dim
        };
        let agent = candidate
            .agent_held_out_delta
            .map(|delta| format!("  agent {}", points(delta)))
            .unwrap_or_default();
        println!(
            "\n{:>2}. {style}held-out {}{style:#}{agent}  {dim}training {}  ({}){dim:#}",
            i + 1,
            points(candidate.held_out_delta),
            points(candidate.training_delta),
            candidate.reason
        );
        match &candidate.change {
            Change::Add(text) => println!("    {green}+ {text}{green:#}"),
            Change::Remove(text) => println!("    {red}- {text}{red:#}"),
        }
    }
    if found.rejected > 0 {
        println!(
            "\n{dim}{} candidate(s) left out: they would break a validation rule{dim:#}",
            found.rejected
        );
    }
    if let Some(agent) = &found.agent {
        let accuracy = agent
            .held_out_accuracy
            .map_or_else(|| "unknown".to_owned(), |a| format!("{:.1}%", a * 100.0));
        let spent = agent
            .spent_usd
            .map_or_else(|| "unpriced".to_owned(), |usd| format!("${usd:.4}"));
        println!(
            "\n{bold}Agent{bold:#} {} {}: held-out accuracy {accuracy} before any edit; {} candidate(s) \
             confirmed, {} call(s), {} answer(s) from the cache, spent {spent}",
            agent.provider, agent.model, agent.confirmed, agent.calls, agent.answers_from_cache
        );
        if let Some(stopped) = &agent.stopped {
            println!("{dim}stopped early: {stopped}{dim:#}");
        }
    }
}
