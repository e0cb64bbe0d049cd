//! `hone tokens`: what each skill costs per disclosure stage, and the catalog.

use std::path::PathBuf;
use std::process::ExitCode;

use anstream::{eprintln, println};
use anstyle::Style;
use hone_core::catalog::SkillCosts;
use hone_core::catalog::{self, BudgetReport, CatalogCosts};
use hone_core::clients::claude_code;
use hone_core::clients::verdicts::{self, ClientVerdict};
use hone_core::clients::{Budget, Client, Environment};
use hone_core::library::{Filters, Library};
use hone_core::text::thousands;
use hone_core::tokens::{self, Tokenizer, TokenizerInfo};
use serde::Serialize;

#[derive(clap::Args)]
#[command(after_help = "\
Stages: metadata (the skill's catalog entry, in the agentskills XML form and as a Claude Code \
listing line), instructions (the body), resources (each text file; binary files are listed, not \
counted). The catalog is the whole library's stage-1 block, and Claude Code's listing from its client \
profile for a model (--model, default its own default model): the client's own skills first, then \
the budget (skillListingBudgetFraction, default 1%, of the model's context window at its \
characters a token, or SLASH_COMMAND_TOOL_CHAR_BUDGET characters), entries cut at \
skillListingMaxDescChars, and skillOverrides, read from ~/.claude/settings.json and the library's \
.claude/settings.json.
The claude tokenizer is an estimate (shown with ~): an exact o200k count x 1.108.")]
pub struct Args {
    /// Skills (folders or SKILL.md files) and libraries [default: .]; with --raw, any files.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// o200k, cl100k, claude (an estimate), or the path of a Hugging Face tokenizer.json.
    #[arg(long, value_name = "NAME|PATH", default_value = "o200k")]
    tokenizer: String,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Count whole files as plain text.
    #[arg(long)]
    raw: bool,
    /// Also the listing CLIENT shows its model, from its profile, with the library installed in
    /// its project folder: budget, entries, the client's own skills and the listing's tokens
    /// (claude-code, codex, gemini, opencode, copilot; repeat for several).
    #[arg(long, value_name = "CLIENT", value_parser = super::clients::parse_client)]
    client: Vec<Client>,
    /// The model the listings are for; without --client, the Claude model of the catalog's
    /// listing budget [default: each client's default model].
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
}

/// One client's listing of the library for one model.
#[derive(Serialize)]
struct ClientListing {
    client: Client,
    client_version: &'static str,
    model: String,
    placement: String,
    budget: Option<Budget>,
    /// Entries the model reads: the library's, then the client's own.
    entries: usize,
    builtins: usize,
    /// Library skills shown by name only, or not at all.
    hidden: usize,
    left_out: usize,
    listing_chars: usize,
    listing_tokens: usize,
}

/// Each asked client's listing of `skills` (the library at `root`) for `model`.
fn client_listings(
    root: &std::path::Path,
    skills: &[&hone_core::skill::Skill],
    clients: &[Client],
    model: Option<&str>,
    tokenizer: &Tokenizer,
) -> anyhow::Result<Vec<ClientListing>> {
    let env = Environment::current();
    let mut listings = Vec::new();
    for &client in clients {
        let Some(v) = verdicts::library_verdicts(root, skills, client, model, &env)? else {
            anyhow::bail!("Hone does not model {} yet", client.display_name());
        };
        let count =
            |verdict: ClientVerdict| v.skills.iter().filter(|s| s.verdict == verdict).count();
        listings.push(ClientListing {
            client,
            client_version: v.client_version,
            model: v.model.clone(),
            placement: v.placement.clone(),
            budget: v.budget.clone(),
            entries: v.skills.iter().filter(|s| s.entry.is_some()).count() + v.builtins.len(),
            builtins: v.builtins.len(),
            hidden: count(ClientVerdict::Hidden),
            left_out: count(ClientVerdict::LeftOut),
            listing_chars: v.listing.chars().count(),
            listing_tokens: tokenizer.count(&v.listing),
        });
    }
    Ok(listings)
}

fn print_client_listings(listings: &[ClientListing], approx: &str) {
    let bold = Style::new().bold();
    for l in listings {
        println!();
        println!(
            "{bold}{} {}{bold:#}, model {}: {} entries ({} its own), {} characters, {approx}{} tokens",
            l.client.display_name(),
            l.client_version,
            l.model,
            l.entries,
            l.builtins,
            thousands(l.listing_chars),
            thousands(l.listing_tokens),
        );
        println!("  where: {}", l.placement);
        match &l.budget {
            Some(b) => println!(
                "  budget: {} characters ({}); the full listing is {}{}",
                thousands(b.budget_chars as usize),
                if b.source == "env" {
                    "SLASH_COMMAND_TOOL_CHAR_BUDGET".to_owned()
                } else {
                    format!(
                        "{}-token window × {} characters a token × {}%",
                        thousands(b.context_window_tokens as usize),
                        b.bytes_per_token,
                        b.fraction * 100.0
                    )
                },
                thousands(b.full_chars as usize),
                if b.over_budget {
                    format!(": over, {} descriptions dropped", b.bare)
                } else {
                    String::new()
                }
            ),
            None => println!("  budget: none"),
        }
        if l.hidden + l.left_out > 0 {
            println!(
                "  {} of the library's skills shown by name only or hidden, {} left out",
                l.hidden, l.left_out
            );
        }
    }
}

/// The Claude model of Claude Code's listing: `model` when it is one;
/// another model is an error unless other clients (`with_clients`) take it.
pub fn claude_model(model: Option<&str>, with_clients: bool) -> anyhow::Result<Option<&str>> {
    match model {
        Some(m) if m.starts_with("claude") => Ok(Some(m)),
        Some(m) if !with_clients => anyhow::bail!(
            "`{m}` is not a Claude model: without --client, --model is the model of Claude Code's listing"
        ),
        _ => Ok(None),
    }
}

/// Claude Code's listing settings for `roots`: the user's and the project's
/// settings files and `SLASH_COMMAND_TOOL_CHAR_BUDGET`; problems are warned about.
pub fn listing_settings(roots: &[PathBuf]) -> claude_code::ListingSettings {
    let user = claude_code::user_claude_dir();
    let env = std::env::var(claude_code::CHAR_BUDGET_ENV).ok();
    let settings = claude_code::ListingSettings::load(roots, user.as_deref(), env.as_deref());
    for problem in &settings.problems {
        eprintln!("hone: warning: {problem}");
    }
    settings
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let tokenizer = Tokenizer::from_spec(&args.tokenizer)?;
    if args.raw {
        raw(&args, &tokenizer)
    } else {
        skills(&args, &tokenizer)
    }
}

#[derive(Serialize)]
struct RawReport {
    tokenizer: TokenizerInfo,
    files: Vec<tokens::FileCount>,
    tokens: usize,
}

fn raw(args: &Args, tokenizer: &Tokenizer) -> anyhow::Result<ExitCode> {
    if args.paths.is_empty() {
        anyhow::bail!("--raw needs at least one file");
    }
    let mut files = Vec::new();
    for result in tokens::count_files(&args.paths, tokenizer) {
        match result {
            Ok(file) => files.push(file),
            Err((path, err)) => anyhow::bail!("{}: {err}", path.display()),
        }
    }
    let total = files.iter().map(|f| f.tokens).sum();
    if args.format == Format::Json {
        let report = RawReport {
            tokenizer: tokenizer.info(),
            files,
            tokens: total,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new(approx(tokenizer));
    for file in &files {
        table.row(0, &file.path.display().to_string(), file.tokens, "");
    }
    if files.len() > 1 {
        table.row(0, "total", total, "");
    }
    table.print();
    println!("{}", dim(&format!("tokenizer: {}", tokenizer.label())));
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct Report {
    tokenizer: TokenizerInfo,
    skills: Vec<SkillCosts>,
    catalog: CatalogCosts,
    problems: Vec<hone_core::library::DiscoveryProblem>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    clients: Vec<ClientListing>,
}

fn skills(args: &Args, tokenizer: &Tokenizer) -> anyhow::Result<ExitCode> {
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let library = Library::open(&roots, &Filters::default())?;
    let skills: Vec<_> = library.skills.iter().collect();
    if skills.is_empty() {
        let misnamed = hone_core::library::misnamed_skill_files(&roots, 1);
        match misnamed.first() {
            Some(file) => anyhow::bail!(
                "no skills (folders with a SKILL.md) found; {} must be named SKILL.md, in capitals",
                file.display()
            ),
            None => anyhow::bail!("no skills (folders with a SKILL.md) found"),
        }
    }
    let costs = catalog::skills_costs(&skills, tokenizer);
    let settings = listing_settings(&roots);
    let claude_model = claude_model(args.model.as_deref(), !args.client.is_empty())?;
    let catalog = catalog::catalog_costs_with(&skills, tokenizer, &settings, claude_model);
    let clients = client_listings(
        &library.roots[0],
        &skills,
        &args.client,
        args.model.as_deref(),
        tokenizer,
    )?;
    if args.format == Format::Json {
        let problems = library.problems.clone();
        let report = Report {
            tokenizer: tokenizer.info(),
            skills: costs,
            catalog,
            problems,
            clients,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    for problem in &library.problems {
        eprintln!(
            "hone: warning: {}: {}",
            problem.path.display(),
            problem.message
        );
    }
    let approx = approx(tokenizer);
    for cost in &costs {
        print_skill(cost, approx);
    }
    print_catalog(&catalog, tokenizer);
    print_client_listings(&clients, approx);
    Ok(ExitCode::SUCCESS)
}

/// A table of labelled counts: labels indented under their stage, counts
/// right-aligned in one column however long a resource path is.
struct Table {
    approx: &'static str,
    rows: Vec<(String, Option<usize>, String)>,
}

impl Table {
    fn new(approx: &'static str) -> Table {
        Table {
            approx,
            rows: Vec::new(),
        }
    }

    fn heading(&mut self, indent: usize, label: &str) {
        self.rows.push((
            format!("{}{label}", " ".repeat(indent)),
            None,
            String::new(),
        ));
    }

    fn row(&mut self, indent: usize, label: &str, tokens: usize, note: &str) {
        let label = format!("{}{label}", " ".repeat(indent));
        self.rows.push((label, Some(tokens), note.to_owned()));
    }

    fn note(&mut self, indent: usize, text: &str) {
        self.rows.push((
            format!("{}{}", " ".repeat(indent), dim(text)),
            None,
            String::new(),
        ));
    }

    fn print(&self) {
        let width = self
            .rows
            .iter()
            .filter(|(_, tokens, _)| tokens.is_some())
            .map(|(label, _, _)| label.chars().count())
            .max()
            .unwrap_or(0)
            .max(30);
        for (label, tokens, note) in &self.rows {
            match tokens {
                Some(tokens) => {
                    let count = format!("{}{}", self.approx, thousands(*tokens));
                    println!("{label:<width$}  {count:>10}{note}");
                }
                None => println!("{label}"),
            }
        }
    }
}

fn print_skill(cost: &SkillCosts, approx: &'static str) {
    let bold = Style::new().bold();
    println!(
        "{bold}{}{bold:#}  {}",
        cost.id,
        dim(&cost.path.display().to_string())
    );
    let mut table = Table::new(approx);
    table.heading(2, "metadata");
    let meta = &cost.metadata;
    table.row(4, "agentskills entry", meta.agentskills.tokens, "");
    match &meta.claude_code {
        Some(line) => {
            let note = if line.truncated {
                "  (cut at 1,536 chars)"
            } else {
                ""
            };
            table.row(4, "claude-code listing line", line.tokens, note);
        }
        None => table.note(4, "claude-code: not listed (disable-model-invocation)"),
    }
    table.row(2, "instructions", cost.instructions.tokens, "");
    let resources = &cost.resources;
    let files = resources.files.len();
    let note = format!("  ({files} text file{})", if files == 1 { "" } else { "s" });
    table.row(2, "resources", resources.tokens, &note);
    for file in &resources.files {
        table.row(4, &file.path, file.tokens, "");
    }
    for binary in &resources.binary {
        let bytes = thousands(binary.bytes as usize);
        table.note(
            4,
            &format!("{}  binary, {bytes} bytes, not counted", binary.path),
        );
    }
    for unreadable in &resources.unreadable {
        table.note(
            4,
            &format!("{}  unreadable: {}", unreadable.path, unreadable.error),
        );
    }
    table.print();
    println!();
}

fn print_catalog(catalog: &CatalogCosts, tokenizer: &Tokenizer) {
    let bold = Style::new().bold();
    let skills = catalog.skills;
    let plural = if skills == 1 { "" } else { "s" };
    println!(
        "{bold}catalog{bold:#}  {skills} skill{plural}, tokenizer {}",
        tokenizer.label()
    );
    let mut table = Table::new(approx(tokenizer));
    let agentskills = &catalog.agentskills;
    let note = format!("  ({} chars)", thousands(agentskills.chars));
    table.row(
        2,
        "agentskills <available_skills>",
        agentskills.tokens,
        &note,
    );
    let listing = &catalog.claude_code;
    let note = format!(
        "  ({} chars, Claude Code's {} own skills included)",
        thousands(listing.chars),
        catalog.budget.builtins.len()
    );
    table.row(2, "claude-code listing", listing.tokens, &note);
    table.print();
    print_budget(&catalog.budget);
}

fn print_budget(budget: &BudgetReport) {
    let source = if budget.budget_source == claude_code::CHAR_BUDGET_ENV {
        format!(
            "{} (from {})",
            thousands(budget.budget_chars),
            claude_code::CHAR_BUDGET_ENV
        )
    } else {
        format!(
            "{} chars ({}% of {}'s {}-token window × {} characters a token)",
            thousands(budget.budget_chars),
            (budget.budget_fraction * 10_000.0).round() / 100.0,
            budget.model,
            thousands(budget.context_window_tokens as usize),
            budget.chars_per_token,
        )
    };
    let head = format!(
        "  listing budget: {source}; the full listing is {}, of which Claude Code {}'s own {} skills take {}",
        thousands(budget.full_chars),
        budget.client_version,
        budget.builtins.len(),
        thousands(budget.builtin_chars),
    );
    if !budget.over_budget {
        println!("{head}: fits");
    } else {
        let range = if budget.min_dropped == budget.max_dropped {
            thousands(budget.min_dropped)
        } else {
            format!(
                "{} to {}",
                thousands(budget.min_dropped),
                thousands(budget.max_dropped)
            )
        };
        println!(
            "{head}: over budget; {range} of these {} lose their descriptions, least recently used first (which ones depends on use):",
            thousands(budget.at_risk.len())
        );
        println!("    {}", name_list(&budget.at_risk));
        if budget.listed_chars > budget.budget_chars {
            println!("  {}", dim("even names alone exceed the budget"));
        }
    }
    for entry in &budget.entries {
        if matches!(entry.status, "name-only" | "unlisted") {
            let shown = if entry.status == "unlisted" {
                "not listed"
            } else {
                "name only"
            };
            println!("  {shown}: {} ({})", entry.id, entry.reason);
        }
    }
}

/// Names to read in one line: the first few, then how many more.
fn name_list(names: &[String]) -> String {
    const SHOWN: usize = 20;
    if names.len() <= SHOWN {
        return names.join(", ");
    }
    let more = thousands(names.len() - SHOWN);
    format!(
        "{}, and {more} more (all in --format json)",
        names[..SHOWN].join(", ")
    )
}

/// `~` before estimated counts.
fn approx(tokenizer: &Tokenizer) -> &'static str {
    if tokenizer.is_exact() { "" } else { "~" }
}

fn dim(text: &str) -> String {
    let style = Style::new().dimmed();
    format!("{style}{text}{style:#}")
}
