//! `hone`: check, measure, rank, evaluate and pack agent skills from the command line.
//!
//! Every subcommand is a thin adapter over `hone-core`; this crate parses
//! arguments, prints, and turns outcomes into exit codes:
//! 0 success, 1 findings or a failed gate, 2 usage or I/O error.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod heap;
mod printer;
#[cfg(test)]
mod reference;

#[global_allocator]
static ALLOCATOR: heap::Allocator = heap::Allocator;

/// Hone: a workbench for agent skills (folders with a SKILL.md).
#[derive(Parser)]
#[command(name = "hone", version, about, long_about = None, propagate_version = true)]
#[command(after_help = "Exit codes: 0 success, 1 findings or a failed gate, 2 usage or I/O error.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate skills against the agentskills.io spec, Claude Code and Anthropic's upload rules.
    Check(cmd::check::Args),
    /// Is this skill safe to install? Security analysis of skill folders, repositories and packs.
    Scan(cmd::scan::Args),
    /// Print the documentation of a rule, or list every rule.
    Rule(cmd::rule::Args),
    /// Count tokens per disclosure stage (metadata, instructions, resources) and for the catalog.
    Tokens(cmd::tokens::Args),
    /// Print the stage-1 block (the skill catalog) an agent is given.
    Prompt(cmd::prompt::Args),
    /// Rank a library's skills for a request.
    Search(cmd::search::Args),
    /// Run routing eval suites against a library and gate on the metrics.
    Eval(cmd::eval::Args),
    /// Does the skill help? Task evals through the real agent, with and without the skill.
    Bench(cmd::bench::Args),
    /// Install or list embedding models for semantic ranking.
    Model(cmd::model::Args),
    /// Export skills as a reproducible zip pack, or verify one.
    Pack(cmd::pack::Args),
    /// Safely import a skill pack into a folder.
    Unpack(cmd::unpack::Args),
    /// Install skills into an agent client's skill folder (project or user).
    Install(cmd::install::Args),
    /// Remove installed skills from an agent client's skill folder.
    Uninstall(cmd::install::UninstallArgs),
    /// Show installed skills (skills-lock.json) that differ from their source.
    Outdated(cmd::install::OutdatedArgs),
    /// Serve a library to agents over MCP (stdio, or Streamable HTTP with --http).
    Serve(cmd::serve::Args),
    /// List the agent clients installed here; run one offline to see what it shows its model.
    Clients(cmd::clients::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { 2 } else { 0 };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    if !matches!(cli.command, Command::Serve(_)) {
        heap::tune_for_short_run();
    }
    let result = match cli.command {
        // On a worker of the pool, whose heap is populated ahead (see `heap`),
        // and which starts each parallel step without waking another thread.
        Command::Check(args) => rayon::scope(|_| cmd::check::run(args)),
        Command::Scan(args) => cmd::scan::run(args),
        Command::Rule(args) => cmd::rule::run(args),
        Command::Tokens(args) => cmd::tokens::run(args),
        Command::Prompt(args) => cmd::prompt::run(args),
        Command::Search(args) => cmd::search::run(args),
        Command::Eval(args) => cmd::eval::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Model(args) => cmd::model::run(args),
        Command::Pack(args) => cmd::pack::run(args),
        Command::Unpack(args) => cmd::unpack::run(args),
        Command::Install(args) => cmd::install::run(args),
        Command::Uninstall(args) => cmd::install::uninstall(args),
        Command::Outdated(args) => cmd::install::outdated(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Clients(args) => cmd::clients::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            anstream::eprintln!("hone: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
