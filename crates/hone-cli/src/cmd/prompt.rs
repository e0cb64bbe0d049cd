//! `hone prompt`: the stage-1 block an agent is given for a library.

use std::path::PathBuf;
use std::process::ExitCode;

use anstream::{eprintln, println};
use hone_core::catalog;
use hone_core::library::{Filters, Library};

#[derive(clap::Args)]
#[command(after_help = "\
agentskills: the <available_skills> XML block, as the reference implementation's to-prompt prints it.
claude-code: one `- name: description` line per skill, each cut at 1,536 characters, within \
the listing budget of the context window (descriptions dropped from the end when over).")]
pub struct Args {
    /// Libraries, skill folders or SKILL.md files, highest priority first.
    #[arg(value_name = "LIBRARY", required = true)]
    paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "agentskills")]
    format: Format,
    /// Context window, in tokens, for the Claude Code listing budget.
    #[arg(long, value_name = "TOKENS", default_value_t = catalog::DEFAULT_CONTEXT_WINDOW)]
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
            let budget = catalog::listing_budget(&skills, args.context_window);
            if !budget.dropped.is_empty() {
                eprintln!(
                    "hone: note: over the {}-character listing budget; descriptions dropped for: {}",
                    budget.budget_chars,
                    budget.dropped.join(", ")
                );
            }
            if !budget.listing.is_empty() {
                println!("{}", budget.listing);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
