//! `hone search`: rank a library's skills for one request.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anstream::{eprintln, println};
use anstyle::{AnsiColor, Style};
use hone_core::agent::{AgentRanker, Session};
use hone_core::clients::Client;
use hone_core::library::{Filters, Library};
use hone_core::library_settings::selection_threshold;
use hone_core::rank::contrast::{Contrast, SkillSide, contrast};
use hone_core::rank::highlight::field_highlights;
use hone_core::rank::hybrid::default_kind;
use hone_core::rank::{
    self, Explanation, Match, RankView, Ranker, RankerKind, RoutingDoc, builtin_client, selected,
};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use super::agent::{AgentArgs, print_estimate};

#[derive(clap::Args)]
#[command(after_help = "\
A request is plain text, never query syntax. Skills are ranked on what an agent sees when \
choosing: name, description, when_to_use and triggers. Confidence is in [0, 1] and means the \
same for every request; the top match is selected when its confidence reaches the threshold.
With --ranker agent a model is asked instead (--runs times): a skill's confidence is its \
trigger rate, the share of runs that loaded it. Example:
  hone search skills \"squash my last commits\" --ranker agent --provider anthropic \\
    --model claude-haiku-4-5 --runs 3")]
pub struct Args {
    /// The library: a folder of skills (or one skill).
    #[arg(value_name = "LIBRARY")]
    library: PathBuf,
    /// The request, as a user would type it.
    #[arg(value_name = "QUERY")]
    query: String,
    /// How many skills to list.
    #[arg(long, value_name = "N", default_value_t = 5)]
    top: usize,
    #[command(flatten)]
    ranking: RankingArgs,
    /// Show which words matched where, and how much each contributed.
    #[arg(long)]
    explain: bool,
    /// Why SKILL lost (or won): contrast it with the top match, or the
    /// runner-up when it is first, side by side.
    #[arg(long, value_name = "SKILL")]
    why: Option<String>,
    /// With --why: the skill to contrast with instead of the top match.
    #[arg(long, value_name = "SKILL", requires = "why")]
    against: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

/// How a command ranks: the options `hone search`, `hone eval` and
/// `hone serve` share.
#[derive(clap::Args)]
pub(crate) struct RankingArgs {
    /// bm25, semantic, hybrid, or agent (ask a model: see the agent options) [default: hybrid
    /// where an embedding model is installed, else bm25].
    #[arg(long, value_name = "RANKER", value_parser = parse_ranker)]
    pub ranker: Option<RankerKind>,
    /// What of a skill is ranked: `listing` (what the agent sees when it picks: name,
    /// description, when_to_use, triggers) or `retrieval` (the whole skill: body sections,
    /// headings, reference files, scripts) [default: listing; for `hone serve`, retrieval].
    #[arg(long, value_name = "VIEW", value_parser = parse_view)]
    pub view: Option<RankView>,
    /// Confidence at which the top match is selected; for the agent, the trigger rate
    /// [default: the library's calibrated one (`hone eval --calibrate`), else the ranker's; 0.5
    /// for the agent].
    #[arg(long, visible_alias = "trigger-threshold", value_name = "X", value_parser = parse_threshold)]
    pub threshold: Option<f32>,
    /// The embedding model for semantic and hybrid ranking, a folder or an installed model's
    /// name (`minilm`, `mpnet`) [default: the installed default, minilm]; with --ranker agent, the model that answers (claude-haiku-4-5, gpt-4.1-mini, an
    /// Ollama model name, or a Claude Code model alias).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<PathBuf>,
    /// Let CLIENT's own skills compete beside the library's, as that client lists them
    /// (claude-code, codex, gemini, opencode, copilot): a request one of them would take is
    /// reported as such. Listing view only.
    #[arg(long, value_name = "CLIENT", value_parser = super::clients::parse_client)]
    pub builtins: Option<Client>,
    #[command(flatten)]
    pub agent: AgentArgs,
}

impl RankingArgs {
    /// The ranker asked for, else the default for the model at hand.
    pub fn kind(&self) -> RankerKind {
        self.ranker
            .unwrap_or_else(|| default_kind(self.model.as_deref()))
    }

    /// The view asked for; `hone search` and `hone eval` rank the listing
    /// unless told otherwise.
    pub fn view(&self) -> RankView {
        self.view.unwrap_or(RankView::Listing)
    }

    /// The threshold `ranker` selects with in the library at `library`:
    /// `--threshold`, else the library's calibrated one, else the ranker's.
    /// Both views select on the listing's confidence, so a calibration
    /// applies to both.
    pub fn threshold(&self, library: &Path, ranker: &dyn Ranker) -> anyhow::Result<f32> {
        Ok(selection_threshold(
            Some(library),
            ranker.kind(),
            self.threshold,
            ranker.default_threshold(),
        )?)
    }
}

fn parse_view(s: &str) -> Result<RankView, String> {
    s.parse()
}

fn parse_ranker(s: &str) -> Result<RankerKind, String> {
    s.parse()
}

fn parse_threshold(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` is not a confidence between 0 and 1")),
    }
}

/// Opens the library at `path`, warning about what could not be read.
pub(crate) fn open_library(path: &Path) -> anyhow::Result<Library> {
    let library = Library::open(&[path.to_path_buf()], &Filters::default())?;
    for problem in &library.problems {
        eprintln!(
            "hone: warning: {}: {}",
            problem.path.display(),
            problem.message
        );
    }
    Ok(library)
}

/// Builds a ranker of `kind` over the library in `view`, with `builtins`'
/// own skills competing.
pub(crate) fn build_ranker(
    view: RankView,
    kind: RankerKind,
    library: &Library,
    builtins: Option<Client>,
    model: Option<&Path>,
) -> anyhow::Result<Box<dyn Ranker>> {
    if builtins.is_some() && view == RankView::Retrieval {
        anyhow::bail!(
            "--builtins takes part in the listing view only: the retrieval view ranks this library's skills"
        );
    }
    let mut bar = LazyBar::new("embedding skills");
    let ranker = rank::build_view(view, kind, library, builtins, model, &mut |p| {
        bar.update(p.done, p.total)
    })?;
    bar.finish();
    Ok(ranker)
}

/// The agent as a ranker, after the cost preview and the `--max-cost` check
/// for one request.
fn agent_ranker(
    ranking: &RankingArgs,
    library: &Library,
    query: &str,
) -> anyhow::Result<Box<dyn Ranker>> {
    let agent = &ranking.agent;
    let setup = agent.setup(ranking.model.as_deref(), library)?;
    let ranker = AgentRanker::new(
        setup.provider,
        library.skills.clone(),
        agent.listing_style(),
        setup.settings.clone(),
        Some(setup.runs),
        setup.cache.clone().filter(|_| !agent.refresh),
    );
    let estimate = Session {
        provider: ranker.provider(),
        listing: ranker.listing(),
        cache: setup.cache.as_ref(),
        read_cache: !agent.refresh,
        runs: ranker.runs(),
    }
    .estimate(
        &[query.to_owned()],
        setup.prices.price(ranker.provider().model()),
    );
    print_estimate(ranker.provider(), &estimate);
    agent.budget(ranker.provider().model(), &setup.prices, &estimate)?;
    Ok(Box::new(ranker))
}

/// A progress bar that appears only when work outlasts a moment, and only
/// on a terminal (indicatif draws nothing elsewhere).
pub(crate) struct LazyBar {
    message: &'static str,
    started: Instant,
    bar: Option<ProgressBar>,
}

impl LazyBar {
    const DELAY: Duration = Duration::from_millis(300);

    pub(crate) fn new(message: &'static str) -> Self {
        LazyBar {
            message,
            started: Instant::now(),
            bar: None,
        }
    }

    pub(crate) fn update(&mut self, done: usize, total: usize) {
        if self.bar.is_none() && done < total && self.started.elapsed() >= Self::DELAY {
            let bar = ProgressBar::new(total as u64);
            let template = "{msg} [{bar:30}] {pos}/{len} ({eta} left)";
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(self.message);
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    }

    pub(crate) fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

#[derive(Serialize)]
struct SearchOutput<'a> {
    query: &'a str,
    ranker: RankerKind,
    view: RankView,
    threshold: f32,
    /// The selected skill: the top match when its confidence reaches the threshold.
    selected: Option<&'a str>,
    matches: Vec<MatchOutput<'a>>,
}

#[derive(Serialize)]
struct MatchOutput<'a> {
    id: &'a str,
    /// The skill's folder.
    key: &'a str,
    score: f32,
    confidence: f32,
    /// The client whose own skill this is (with --builtins).
    #[serde(skip_serializing_if = "Option::is_none")]
    builtin_of: Option<Client>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<&'a Explanation>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let library = open_library(&args.library)?;
    let ranking = &args.ranking;
    let ranker = if ranking.kind() == RankerKind::Agent {
        agent_ranker(ranking, &library, &args.query)?
    } else {
        build_ranker(
            ranking.view(),
            ranking.kind(),
            &library,
            ranking.builtins,
            ranking.model.as_deref(),
        )?
    };
    let threshold = ranking.threshold(&args.library, ranker.as_ref())?;
    let docs = RoutingDoc::with_builtins(RoutingDoc::from_library(&library), ranking.builtins);
    if let Some(expected) = &args.why {
        let contrast = contrast(
            ranker.as_ref(),
            &docs,
            &args.query,
            expected,
            args.against.as_deref(),
        )?;
        if args.format == Format::Json {
            println!("{}", serde_json::to_string_pretty(&contrast)?);
        } else {
            print_contrast(&contrast, threshold);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let matches = ranker.rank(&args.query, args.top)?;
    let chosen = selected(&matches, threshold).map(|m| m.id.as_str());
    if args.format == Format::Json {
        let output = SearchOutput {
            query: &args.query,
            ranker: ranker.kind(),
            view: ranking.view(),
            threshold,
            selected: chosen,
            matches: matches
                .iter()
                .map(|m| MatchOutput {
                    id: &m.id,
                    key: &m.key,
                    score: m.score,
                    confidence: m.confidence,
                    builtin_of: builtin_client(&m.key),
                    explanation: args.explain.then_some(&m.explanation),
                })
                .collect(),
        };
        println!("{}", serde_json::to_string_pretty(&output)?);
        return Ok(ExitCode::SUCCESS);
    }
    print_text(
        &matches,
        &docs,
        threshold,
        chosen,
        args.explain,
        ranker.len(),
    );
    Ok(ExitCode::SUCCESS)
}

fn print_text(
    matches: &[Match],
    docs: &[RoutingDoc],
    threshold: f32,
    chosen: Option<&str>,
    explain: bool,
    indexed: usize,
) {
    let bold = Style::new().bold();
    let green = Style::new().bold().fg_color(Some(AnsiColor::Green.into()));
    let dim = Style::new().dimmed();
    let builtin = matches.first().and_then(|m| builtin_client(&m.key));
    match (chosen, builtin) {
        (Some(id), Some(client)) => println!(
            "{bold}{}'s built-in {id}{bold:#} would take the request (confidence ≥ {threshold:.2})",
            client.display_name()
        ),
        (Some(id), None) => {
            println!("{green}selected{green:#} {bold}{id}{bold:#} (confidence ≥ {threshold:.2})")
        }
        (None, _) => {
            println!("{bold}no skill selected{bold:#} (no match reaches confidence {threshold:.2})")
        }
    }
    if matches.is_empty() {
        println!("{dim}no skill of {indexed} matches the request{dim:#}");
        return;
    }
    let width = matches
        .iter()
        .map(|m| m.id.chars().count())
        .max()
        .unwrap_or(0);
    for (rank, m) in matches.iter().enumerate() {
        let mark = if m.confidence >= threshold {
            green
        } else {
            dim
        };
        let whose = builtin_client(&m.key)
            .map(|c| format!("  {dim}built-in of {}{dim:#}", c.display_name()))
            .unwrap_or_default();
        println!(
            "{:>2}. {bold}{:<width$}{bold:#}  {mark}{:.2}{mark:#}  {dim}score {:.3}{dim:#}{whose}",
            rank + 1,
            m.id,
            m.confidence,
            m.score
        );
        if explain {
            let doc = docs.iter().find(|d| d.key == m.key);
            print_explanation(&m.explanation, doc);
        }
    }
}

fn print_explanation(explanation: &Explanation, doc: Option<&RoutingDoc>) {
    let dim = Style::new().dimmed();
    let hit = Style::new().bold().fg_color(Some(AnsiColor::Yellow.into()));
    match explanation {
        Explanation::Keyword(keyword) => {
            let terms: Vec<String> = keyword
                .terms
                .iter()
                .map(|t| {
                    format!(
                        "{} → {} in {} (+{:.2})",
                        t.term,
                        t.token,
                        t.field.as_str(),
                        t.contribution
                    )
                })
                .collect();
            println!(
                "    {dim}evidence {:.2}:{dim:#} {}",
                keyword.evidence,
                terms.join(", ")
            );
            if !keyword.unmatched.is_empty() {
                println!(
                    "    {dim}unmatched: {}{dim:#}",
                    keyword.unmatched.join(", ")
                );
            }
            let Some(doc) = doc else { return };
            let explanation = Explanation::Keyword(keyword.clone());
            for field in field_highlights(doc, &explanation) {
                if !field.segments.iter().any(|s| s.hit) {
                    continue;
                }
                let shown: String = field
                    .segments
                    .iter()
                    .map(|s| {
                        if s.hit {
                            format!("{hit}{}{hit:#}", s.text)
                        } else {
                            s.text.clone()
                        }
                    })
                    .collect();
                println!(
                    "    {dim}{}:{dim:#} {}",
                    field.field.as_str(),
                    shown.replace('\n', " / ")
                );
            }
        }
        Explanation::Semantic(semantic) => {
            println!("    {dim}similarity {:.3}{dim:#}", semantic.similarity);
        }
        Explanation::Agent(agent) => {
            let mut line = format!("picked in {} of {} run(s)", agent.picks, agent.runs);
            if let Some(ll) = agent.log_likelihood {
                line.push_str(&format!(", log-likelihood {ll:.3}"));
            }
            if let Some(name) = &agent.unknown_name {
                line.push_str(&format!(
                    ", named `{name}`, which is not a skill of the library"
                ));
            }
            println!("    {dim}{line}{dim:#}");
        }
        Explanation::Hybrid(hybrid) => {
            if let Some(keyword) = &hybrid.keyword {
                print_explanation(&Explanation::Keyword(keyword.clone()), doc);
            }
            if let Some(semantic) = &hybrid.semantic {
                print_explanation(&Explanation::Semantic(semantic.clone()), doc);
            }
        }
        Explanation::Retrieval(retrieval) => {
            if let Some(keyword) = &retrieval.keyword {
                print_explanation(&Explanation::Keyword(keyword.clone()), doc);
            }
            let section = retrieval
                .section
                .as_deref()
                .map_or(String::new(), |heading| {
                    format!(
                        ", closest section \"{heading}\" {:.3}",
                        retrieval.section_similarity
                    )
                });
            println!(
                "    {dim}description {:.3}{section}, body evidence {:.2}{dim:#}",
                retrieval.description_similarity, retrieval.body_evidence
            );
        }
    }
}

/// The contrast of two skills: one line each, the words side by side, then
/// each skill's sentences by closeness.
fn print_contrast(contrast: &Contrast, threshold: f32) {
    let bold = Style::new().bold();
    let dim = Style::new().dimmed();
    let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let (expected, other) = (&contrast.expected, &contrast.other);
    for side in [expected, other] {
        let rank = side.rank.map_or("unranked".to_owned(), |r| format!("#{r}"));
        let mark = if side.rank == Some(1) && side.confidence >= threshold {
            "selected"
        } else {
            ""
        };
        println!(
            "{bold}{}{bold:#}  {rank}  confidence {:.2}  {dim}score {:.3}{dim:#}  {green}{mark}{green:#}",
            side.id, side.confidence, side.score
        );
    }
    if contrast.margin > 0.0 {
        println!(
            "{red}`{}` trails `{}` by {:.2} confidence{red:#} (threshold {threshold:.2})",
            expected.id, other.id, contrast.margin
        );
    } else {
        println!(
            "{green}`{}` leads `{}` by {:.2} confidence{green:#} (threshold {threshold:.2})",
            expected.id, other.id, -contrast.margin
        );
    }
    let fields = |side: &SkillSide, word: &str| -> String {
        let mut fields: Vec<&str> = side
            .words
            .iter()
            .filter(|w| w.word.eq_ignore_ascii_case(word))
            .map(|w| w.field.as_str())
            .collect();
        fields.dedup();
        if fields.is_empty() {
            "-".to_owned()
        } else {
            fields.join(", ")
        }
    };
    let words: Vec<&String> = contrast
        .both
        .iter()
        .chain(&contrast.only_expected)
        .chain(&contrast.only_other)
        .collect();
    if !words.is_empty() {
        let width = words
            .iter()
            .map(|w| w.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        let column = expected.id.chars().count().max(12);
        println!();
        println!(
            "{bold}{:<width$}  {:<column$}  {}{bold:#}",
            "word", expected.id, other.id
        );
        for word in words {
            println!(
                "{word:<width$}  {:<column$}  {}",
                fields(expected, word),
                fields(other, word)
            );
        }
    }
    if !contrast.neither.is_empty() {
        println!("{bold}in neither:{bold:#} {}", contrast.neither.join(", "));
    }
    for side in [expected, other] {
        if side.sentences.is_empty() {
            continue;
        }
        println!();
        match side.similarity {
            Some(s) => println!("{bold}{}{bold:#} {dim}similarity {s:.3}{dim:#}", side.id),
            None => println!("{bold}{}{bold:#}", side.id),
        }
        for sentence in &side.sentences {
            println!(
                "  {:>6.3}  {dim}{}:{dim:#} {}",
                sentence.closeness,
                sentence.field.as_str(),
                sentence.text.replace('\n', " / ")
            );
        }
    }
}
