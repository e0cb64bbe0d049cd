//! `hone install`, `hone uninstall`, `hone outdated`: skills in the folders
//! agent clients load them from.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anstream::println;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use hone_core::clients::{Client, Scope};
use hone_core::diagnostic::Severity;
use hone_core::library_settings::{library_target, settings_root};
use hone_core::pack::install::{self, FolderDiff, InstallAction, InstallOptions};
use hone_core::pack::provenance::Provenance;
use hone_core::rules::Target;

use super::pack::print_findings;

#[derive(clap::Args)]
#[command(after_help = "\
Each skill goes to the client's first skill folder: Claude Code .claude/skills, Codex \
.agents/skills, Gemini CLI .gemini/skills, OpenCode .opencode/skills (user: \
.config/opencode/skills), Copilot .github/skills (user: .copilot/skills), under the project \
or under $HOME. A skill already there with other files is kept, with what differs listed, \
and nothing is written unless --force. A project install records local skills in \
skills-lock.json, as the `skills` CLI does.")]
pub struct Args {
    /// Skills, libraries, or packs (.zip, .skill).
    #[arg(value_name = "SKILL|PACK", required = true)]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    place: Place,
    /// A symlink to the source instead of a copy.
    #[arg(long)]
    link: bool,
    /// Record where each copy came from in its SKILL.md, under `metadata`,
    /// as `gh skill install` does: github-repo (the origin remote),
    /// github-ref, github-tree-sha and github-path for a skill in a clean git
    /// checkout, else local-path. Without it a copy is byte for byte its source.
    #[arg(long, conflicts_with = "link")]
    provenance: bool,
    /// Replace installed skills that differ.
    #[arg(long)]
    force: bool,
    /// Say what would be done, and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Install even when skills have error-level findings.
    #[arg(long)]
    allow_errors: bool,
    /// Whose validation gates the install [default: the library's target,
    /// else agentskills].
    #[arg(long, value_name = "T", value_parser = crate::cmd::check::target_parser())]
    target: Option<Target>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Which client folder: the client, the scope, and the project root.
#[derive(clap::Args)]
pub struct Place {
    /// claude-code, codex, gemini, opencode or copilot.
    #[arg(long, value_parser = client_parser())]
    client: Client,
    /// project (under --project) or user (under $HOME).
    #[arg(long, value_enum, default_value = "project")]
    scope: ScopeArg,
    /// The project root, for --scope project.
    #[arg(long, value_name = "DIR", default_value = ".")]
    project: PathBuf,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ScopeArg {
    Project,
    User,
}

fn client_parser() -> impl TypedValueParser<Value = Client> {
    PossibleValuesParser::new(Client::ALL.map(Client::as_str))
        .map(|name| Client::parse(&name).expect("a listed client"))
}

impl Place {
    fn options(&self, target: Target) -> anyhow::Result<InstallOptions> {
        let (scope, base) = match self.scope {
            ScopeArg::Project => (Scope::Project, self.project.clone()),
            ScopeArg::User => (
                Scope::User,
                std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| {
                    anyhow::anyhow!("HOME is not set: no user folder for --scope user")
                })?,
            ),
        };
        Ok(InstallOptions {
            client: self.client,
            scope,
            base,
            target,
            allow_errors: false,
            link: false,
            force: false,
            dry_run: false,
            provenance: false,
        })
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let target = library_target(settings_root(&args.paths), args.target)?;
    let options = InstallOptions {
        allow_errors: args.allow_errors,
        link: args.link,
        force: args.force,
        dry_run: args.dry_run,
        provenance: args.provenance,
        ..args.place.options(target)?
    };
    let report = match install::install(&args.paths, &options) {
        Ok(report) => report,
        Err(hone_core::pack::PackError::Blocked(skills)) => {
            for skill in &skills {
                print_findings(&skill.findings, Severity::Error);
            }
            anstream::eprintln!(
                "hone: install stopped: {} skill(s) have error-level findings (fix them, or pass --allow-errors)",
                skills.len()
            );
            return Ok(ExitCode::from(1));
        }
        Err(err) => return Err(err.into()),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let client = report.client.display_name();
        for skill in &report.skills {
            let verb = match (skill.action, report.dry_run || report.kept()) {
                (InstallAction::Add, true) => "would add",
                (InstallAction::Add, false) => "added",
                (InstallAction::Replace, true) => "would replace",
                (InstallAction::Replace, false) => "replaced",
                (InstallAction::Unchanged, _) => "unchanged",
                (InstallAction::Keep, _) => "kept (differs; --force replaces it)",
            };
            println!(
                "{verb}: {} -> {} ({client})",
                skill.name,
                skill.destination.display()
            );
            print_diff(&skill.diff);
            if let Some(provenance) = &skill.provenance {
                println!("    records {}", describe(provenance));
            }
        }
        if let Some(lock) = &report.lockfile {
            let verb = if report.dry_run {
                "would record in"
            } else {
                "recorded in"
            };
            println!("{verb} {}", lock.display());
        }
        if report.kept() {
            println!("nothing was written: an installed skill differs");
        }
    }
    Ok(if report.kept() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_diff(diff: &FolderDiff) {
    for (mark, files) in [
        ("+", &diff.added),
        ("-", &diff.removed),
        ("~", &diff.changed),
    ] {
        for file in files {
            println!("    {mark} {file}");
        }
    }
    if let Some(link) = &diff.link {
        println!("    installed as a link to {}", link.display());
    }
}

#[derive(clap::Args)]
pub struct UninstallArgs {
    /// The names of the installed skills.
    #[arg(value_name = "NAME", required = true)]
    names: Vec<String>,
    #[command(flatten)]
    place: Place,
    /// Say what would be removed, and remove nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<ExitCode> {
    let options = InstallOptions {
        dry_run: args.dry_run,
        ..args.place.options(Target::default())?
    };
    let removed = install::uninstall(&args.names, &options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&removed)?);
    }
    let mut missing = false;
    for skill in &removed {
        missing |= !skill.found;
        if args.json {
            continue;
        }
        let verb = match (skill.found, args.dry_run) {
            (false, _) => "not installed",
            (true, true) => "would remove",
            (true, false) => "removed",
        };
        let what = if skill.link { " (a link)" } else { "" };
        println!(
            "{verb}: {}{what} at {}",
            skill.name,
            skill.destination.display()
        );
    }
    Ok(if missing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[derive(clap::Args)]
pub struct OutdatedArgs {
    /// The project root, where skills-lock.json is.
    #[arg(value_name = "DIR", default_value = ".")]
    project: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn outdated(args: OutdatedArgs) -> anyhow::Result<ExitCode> {
    let report = install::outdated(&args.project, Target::default())?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    let mut differs = false;
    for skill in &report {
        differs |= skill.differs();
        if args.json {
            continue;
        }
        if let Some(problem) = &skill.problem {
            println!("{}: not checked: {problem}", skill.name);
        }
        if skill.source_changed {
            let source = skill.source.as_deref().unwrap_or(Path::new("?"));
            println!(
                "{}: the source changed since it was locked ({})",
                skill.name,
                source.display()
            );
        }
        for copy in &skill.installed {
            let (name, folder, client) = (&skill.name, copy.folder.display(), copy.client);
            if skill.problem.is_some() {
                println!("{name}: installed in {folder} ({client})");
            } else if copy.diff.is_empty() {
                println!("{name}: up to date in {folder} ({client})");
            } else {
                println!("{name}: differs from its source in {folder} ({client})");
                print_diff(&copy.diff);
            }
            if let Some(provenance) = &copy.provenance {
                println!("    from {}", describe(provenance));
            }
            if copy.tree_matches == Some(false) {
                println!("    the source's git tree is no longer the one recorded");
            }
        }
    }
    if report.is_empty() && !args.json {
        println!(
            "no skills in {}",
            args.project
                .join(hone_core::pack::lock::LOCK_FILE)
                .display()
        );
    }
    Ok(if differs {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Where a copy came from, in a line: `https://github.com/o/r refs/heads/main
/// skills/pdf (tree 0123abc)`, or the local folder.
fn describe(provenance: &Provenance) -> String {
    match provenance {
        Provenance::Git {
            repo,
            git_ref,
            tree_sha,
            path,
            pinned,
        } => {
            let mut line = format!("{repo} {}", git_ref.as_deref().unwrap_or("(detached)"));
            line.push_str(&format!(
                " {path} (tree {})",
                tree_sha.get(..12).unwrap_or(tree_sha)
            ));
            if let Some(pin) = pinned {
                line.push_str(&format!(", pinned to {pin}"));
            }
            line
        }
        Provenance::Local { path } => path.display().to_string(),
    }
}
