//! `hone prompt`: the stage-1 block an agent is given for a library.

use std::path::PathBuf;
use std::process::ExitCode;

use anstream::{eprintln, println};
use hone_core::catalog;
use hone_core::library::{Filters, Library};

#[derive(clap::Args)]
#[command(after_help = "\
agentskills: the <available_skills> XML block, as the reference implementation's to-prompt prints it.
claude-code: one `- name: description` line per skill, each cut at skillListingMaxDescChars \
(1,536), within the listing budget (skillListingBudgetFraction of the context window, 1%, or \
SLASH_COMMAND_TOOL_CHAR_BUDGET), after skillOverrides, as read from ~/.claude/settings.json and the \
library's .claude/settings.json. Over budget, Claude Code drops the least recently used skills' \
descriptions; the block shown drops them from the end, and stderr names every skill at risk.")]
pub struct Args {
    /// Libraries, skill folders or SKILL.md files, highest priority first.
    #[arg(value_name = "LIBRARY", required = true)]
    paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "agentskills")]
    format: Format,
    /// Context window for the Claude Code listing budget: 200k, 1m, or a number of tokens.
    #[arg(long, value_name = "TOKENS", default_value = "200k", value_parser = catalog::parse_context_window)]
    context_window: u64,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Agentskills,
    ClaudeCode,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let library = Library::open(&args.paths, &Filters::default())?;
    for problem in &library.problems {
        eprintln!(
            "hone: warning: {}: {}",
            problem.path.display(),
            problem.message
        );
    }
    let skills: Vec<_> = library.skills.iter().collect();
    match args.format {
        Format::Agentskills => println!("{}", catalog::agentskills_prompt(&skills)),
        Format::ClaudeCode => {
            let settings = super::tokens::listing_settings(&args.paths, args.context_window);
            let budget = catalog::listing_budget_with(&skills, &settings);
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
