//! `hone unpack`: import a skill pack into a folder, safely.

use std::path::PathBuf;
use std::process::ExitCode;

use anstream::{eprintln, println};
use hone_core::diagnostic::Severity;
use hone_core::library_settings::{library_acknowledgements, library_target, settings_root};
use hone_core::pack::{self, ImportAction, ImportOptions, PackError, PlannedSkill, well_known};
use hone_core::rules::Target;
use hone_core::security::{SkillSecurity, Verdict};

use super::pack::print_findings;
use hone_core::text::human_bytes;

#[derive(clap::Args)]
#[command(after_help = "\
Nothing is written unless the whole pack checks out: no path may escape the folder, no \
symlink, duplicate or non-UTF-8 name, no zip bomb, and every checksum must match the \
manifest. Skills are extracted beside DIR first and moved into place at the end. Every skill \
is scanned for security first (as `hone scan`); a pack with a dangerous skill is refused \
unless --allow-dangerous is given, which names the findings it overrides.")]
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
    /// Import even when the security scan finds a dangerous skill (the
    /// findings overridden are printed).
    #[arg(long)]
    allow_dangerous: bool,
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
    if is_index && args.dry_run {
        anyhow::bail!("--dry-run reads packs; an index is checked whole when it is imported");
    }
    // An index's skills are staged as packs of one skill, so that they are
    // scanned, and refused when dangerous, like a pack's.
    let staged = if is_index {
        match well_known::stage_index(&args.pack) {
            Ok(staged) => Some(staged),
            Err(err @ PackError::Rejected(_)) => {
                eprintln!("hone: {err}");
                return Ok(ExitCode::from(1));
            }
            Err(err) => return Err(err.into()),
        }
    } else {
        None
    };
    // The scan extracts the pack into a temporary folder with every check
    // of the import; a pack the import would reject is left to it to report.
    let destination_root = [args.output.clone()];
    let acks = library_acknowledgements(settings_root(&destination_root))?;
    let verdicts: Vec<SkillSecurity> = match &staged {
        Some(staged) => staged
            .packs
            .iter()
            .flat_map(|(_, pack)| pack::scan_pack(pack, &acks).unwrap_or_default())
            .collect(),
        None => pack::scan_pack(&args.pack, &acks).unwrap_or_default(),
    };
    let dangerous: Vec<&SkillSecurity> = verdicts
        .iter()
        .filter(|r| r.verdict == Verdict::Dangerous)
        .collect();
    if !args.json {
        print_verdicts(&verdicts);
    }
    if args.dry_run {
        let plan = pack::plan_import(&args.pack, &args.output, &options)?;
        if args.json {
            let mut value = serde_json::to_value(&plan)?;
            value["security"] = serde_json::to_value(&verdicts)?;
            println!("{}", serde_json::to_string_pretty(&value)?);
        } else {
            for problem in &plan.problems {
                println!("rejected: {problem}");
            }
            print_skills(&plan.skills, true);
            if !plan.ready && plan.problems.is_empty() {
                println!("existing skills would be replaced: pass --force");
            }
        }
        let refused = !dangerous.is_empty() && !args.allow_dangerous;
        if refused && !args.json {
            println!("dangerous skills would be refused: pass --allow-dangerous to import them");
        }
        return Ok(if plan.ready && !refused {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    if !dangerous.is_empty() {
        if !args.allow_dangerous {
            if args.json {
                let value = serde_json::json!({
                    "error": "the pack holds dangerous skills; pass --allow-dangerous to import them",
                    "problems": [],
                    "security": verdicts,
                });
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                let names: Vec<&str> = dangerous.iter().map(|r| r.id.as_str()).collect();
                eprintln!(
                    "hone: refused: {} dangerous ({}); nothing was written (pass --allow-dangerous to import anyway)",
                    names.join(", "),
                    if names.len() == 1 { "skill" } else { "skills" }
                );
            }
            return Ok(ExitCode::from(1));
        }
        for report in &dangerous {
            for reason in &report.reasons {
                eprintln!(
                    "hone: warning: --allow-dangerous overrides {}: {reason}",
                    report.id
                );
            }
        }
    }
    let imported = match &staged {
        Some(staged) => well_known::import_staged(staged, &args.output, &options),
        None => pack::import(&args.pack, &args.output, &options).map(|report| vec![report]),
    };
    match imported {
        Ok(reports) => {
            if args.json {
                // A pack's report as it always was; an index's, one per skill.
                let mut value = match (&staged, reports.as_slice()) {
                    (None, [report]) => serde_json::to_value(report)?,
                    _ => serde_json::json!({ "imports": reports }),
                };
                value["security"] = serde_json::to_value(&verdicts)?;
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                for report in &reports {
                    let findings: Vec<_> = report
                        .skills
                        .iter()
                        .flat_map(|s| s.findings.iter().cloned())
                        .collect();
                    print_findings(&findings, Severity::Error);
                    print_skills(&report.skills, false);
                }
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

/// One line per skill of the pack: its security verdict and why.
fn print_verdicts(verdicts: &[SkillSecurity]) {
    for report in verdicts {
        println!("security: {} is {}", report.id, report.verdict);
        for reason in &report.reasons {
            println!("  {reason}");
        }
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
