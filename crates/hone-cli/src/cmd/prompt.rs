//! `hone prompt`: the stage-1 block an agent is given for a library.

use std::path::PathBuf;
use std::process::ExitCode;

use anstream::{eprintln, println};
use hone_core::catalog;
use hone_core::library::{Filters, Library};

#[derive(clap::Args)]
#[command(after_help = "\
agentskills: the <available_skills> XML block, as the reference implementation's to-prompt prints it.
claude-code: Claude Code's listing of the library for --model (default: its own default model), \
from its client profile: its header, one `- name: description` line per skill, each cut at \
skillListingMaxDescChars (1,536), then the client's own skills, within the listing budget \
(skillListingBudgetFraction, 1%, of the model's context window at its characters a token, or \
SLASH_COMMAND_TOOL_CHAR_BUDGET), after skillOverrides, as read from ~/.claude/settings.json and the \
library's .claude/settings.json. Over budget, Claude Code drops the least recently used skills' \
descriptions; the block shown is a fresh install's (no skill used yet), and stderr names every \
skill at risk.

With --client, LIBRARY is the one folder the client would be started in: Hone finds the project's \
and the user's skill folders as that client does, reads its settings files and environment \
variables, and prints the listing the client gives the model (--format text), or the prediction \
as JSON (--format json), built-in skills included.")]
pub struct Args {
    /// Libraries, skill folders or SKILL.md files, highest priority first.
    #[arg(value_name = "LIBRARY", required = true)]
    paths: Vec<PathBuf>,
    /// agentskills or claude-code (the library's block); text or json with --client.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Predict what this client shows its model when started in LIBRARY.
    #[arg(long, value_parser = super::clients::parse_client, value_name = "CLIENT")]
    client: Option<hone_core::clients::Client>,
    /// The model, with --client or --format claude-code (default: the client's own default model).
    #[arg(long)]
    model: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Agentskills,
    ClaudeCode,
    Text,
    Json,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(client) = args.client {
        return client_prompt(&args, client);
    }
    let library = Library::open(&args.paths, &Filters::default())?;
    for problem in &library.problems {
        eprintln!(
            "hone: warning: {}: {}",
            problem.path.display(),
            problem.message
        );
    }
    let skills: Vec<_> = library.skills.iter().collect();
    match args.format.unwrap_or(Format::Agentskills) {
        Format::Text | Format::Json => {
            anyhow::bail!(
                "--format text and json go with --client; without it, agentskills or claude-code"
            )
        }
        Format::Agentskills if args.model.is_some() => {
            anyhow::bail!("--model goes with --client or --format claude-code")
        }
        Format::Agentskills => println!("{}", catalog::agentskills_prompt(&skills)),
        Format::ClaudeCode => {
            let settings = super::tokens::listing_settings(&args.paths);
            let model = super::tokens::claude_model(args.model.as_deref(), false)?;
            let budget = catalog::listing_budget_with(&skills, &settings, model);
            if budget.over_budget {
                let count = if budget.min_dropped == budget.max_dropped {
                    budget.min_dropped.to_string()
                } else {
                    format!("{} to {}", budget.min_dropped, budget.max_dropped)
                };
                eprintln!(
                    "hone: note: over the {}-character listing budget; {count} descriptions are dropped, least recently used first; at risk: {}",
                    budget.budget_chars,
                    budget.at_risk.join(", ")
                );
            }
            for entry in &budget.entries {
                if matches!(entry.status, "name-only" | "unlisted") {
                    eprintln!(
                        "hone: note: {} is {} ({})",
                        entry.id, entry.status, entry.reason
                    );
                }
            }
            if !budget.listing.is_empty() {
                println!("{}", budget.listing);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn client_prompt(args: &Args, client: hone_core::clients::Client) -> anyhow::Result<ExitCode> {
    use hone_core::clients::{self, Environment};
    let [dir] = args.paths.as_slice() else {
        anyhow::bail!("with --client, give the one folder the client would be started in");
    };
    if !dir.is_dir() {
        anyhow::bail!("{} is not a folder", dir.display());
    }
    let env = Environment::current();
    let Some(prediction) = clients::predict(client, dir, &env, args.model.as_deref()) else {
        anyhow::bail!("Hone does not model {} yet", client.display_name());
    };
    match args.format.unwrap_or(Format::Text) {
        Format::Json => println!("{}", serde_json::to_string_pretty(&prediction)?),
        Format::Text => {
            println!("{}", prediction.listing);
            for left in &prediction.left_out {
                eprintln!("hone: note: left out {}: {}", left.path, left.reason);
            }
            if let Some(budget) = &prediction.budget
                && budget.over_budget
            {
                eprintln!(
                    "hone: note: over the {}-character budget of {}: {} descriptions shown as bare names",
                    budget.budget_chars, prediction.model, budget.bare
                );
            }
        }
        Format::Agentskills | Format::ClaudeCode => {
            anyhow::bail!("with --client, --format is text or json")
        }
    }
    Ok(ExitCode::SUCCESS)
}
