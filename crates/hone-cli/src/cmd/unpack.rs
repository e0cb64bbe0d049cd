//! `hone unpack`: import a skill pack into a folder, safely.

use std::path::PathBuf;
use std::process::ExitCode;

use anstream::{eprintln, println};
use hone_core::diagnostic::Severity;
use hone_core::library_settings::{library_target, settings_root};
use hone_core::pack::{self, ImportAction, ImportOptions, PackError, PlannedSkill, well_known};
use hone_core::rules::Target;

use super::pack::print_findings;
use hone_core::text::human_bytes;

#[derive(clap::Args)]
#[command(after_help = "\
Nothing is written unless the whole pack checks out: no path may escape the folder, no \
symlink, duplicate or non-UTF-8 name, no zip bomb, and every checksum must match the \
manifest. Skills are extracted beside DIR first and moved into place at the end.")]
pub struct Args {
    /// The pack: a .zip or .skill file, or a local `.well-known` skills index
    /// (index.json, read with the files it lists beside it; nothing is fetched).
    #[arg(value_name = "PACK")]
    pack: PathBuf,
    /// The folder to put the skills in (created if missing).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// Replace skills that already exist in DIR.
    #[arg(long)]
    force: bool,
    /// Show what would be added and replaced, and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Whose validation to report: agentskills, claude-code, claude-api,
    /// copilot or all. [default: the `target` the library DIR remembers in
    /// evals/hone-settings.json, else agentskills]
    #[arg(long, value_name = "T", value_parser = crate::cmd::check::target_parser())]
    target: Option<Target>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let options = ImportOptions {
        target: library_target(
            settings_root(std::slice::from_ref(&args.output)),
            args.target,
        )?,
        limits: Default::default(),
        force: args.force,
    };
    let is_index = args
        .pack
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_index && !args.dry_run {
        return match well_known::import_index(&args.pack, &args.output, &options) {
            Ok(reports) => {
                if args.json {
                    println!("{}", serde_json::to_string_pretty(&reports)?);
                } else {
                    for report in &reports {
                        print_skills(&report.skills, false);
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            Err(err @ (PackError::Rejected(_) | PackError::WouldOverwrite { .. })) => {
                eprintln!("hone: {err}");
                Ok(ExitCode::from(1))
            }
            Err(err) => Err(err.into()),
        };
    }
    if is_index {
        anyhow::bail!("--dry-run reads packs; an index is checked whole when it is imported");
    }
    if args.dry_run {
        let plan = pack::plan_import(&args.pack, &args.output, &options)?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&plan)?);
        } else {
            for problem in &plan.problems {
                println!("rejected: {problem}");
            }
            print_skills(&plan.skills, true);
            if !plan.ready && plan.problems.is_empty() {
                println!("existing skills would be replaced: pass --force");
            }
        }
        return Ok(if plan.ready {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    match pack::import(&args.pack, &args.output, &options) {
        Ok(report) => {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                let findings: Vec<_> = report
                    .skills
                    .iter()
                    .flat_map(|s| s.findings.iter().cloned())
                    .collect();
                print_findings(&findings, Severity::Error);
                print_skills(&report.skills, false);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(err @ (PackError::Rejected(_) | PackError::WouldOverwrite { .. })) => {
            if args.json {
                let problems = match &err {
                    PackError::Rejected(problems) => serde_json::to_value(problems)?,
                    _ => serde_json::Value::Array(Vec::new()),
                };
                let value = serde_json::json!({ "error": err.to_string(), "problems": problems });
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else if matches!(err, PackError::WouldOverwrite { .. }) {
                eprintln!("hone: {err} (pass --force to replace them)");
            } else {
                eprintln!("hone: {err}");
            }
            Ok(ExitCode::from(1))
        }
        Err(err) => Err(err.into()),
    }
}

fn print_skills(skills: &[PlannedSkill], planned: bool) {
    for skill in skills {
        let verb = match (skill.action, planned) {
            (ImportAction::Add, true) => "would add",
            (ImportAction::Replace, true) => "would replace",
            (ImportAction::Add, false) => "added",
            (ImportAction::Replace, false) => "replaced",
        };
        println!(
            "{verb} {} ({} files, {}) at {}",
            skill.name,
            skill.files,
            human_bytes(skill.bytes),
            skill.destination.display()
        );
    }
}
