//! `hone pack`: export skills as a reproducible zip, or verify a pack.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use anstream::{eprintln, println};
use anstyle::{AnsiColor, Style};
use hone_core::diagnostic::{Diagnostic, Severity};
use hone_core::library_settings::{library_target, settings_root};
use hone_core::pack::plugin::{self, PluginOptions};
use hone_core::pack::version::{self, Bump};
use hone_core::pack::well_known;
use hone_core::pack::{self, ExportOptions, ExportProgress, PackError, PackFormat, VerifyOptions};
use hone_core::rules::{Origin, Rule, Target};

use crate::cmd::check::target_parser;

use crate::printer;
use hone_core::text::human_bytes;
use indicatif::{ProgressBar, ProgressStyle};

/// Packs with fewer files than this finish before a bar is worth drawing.
const PROGRESS_FROM_FILES: usize = 500;

#[derive(clap::Args)]
#[command(disable_version_flag = true)]
#[command(after_help = "\
The zip holds one folder per skill, named after the skill. A pack of several skills also \
holds hone-pack.json: names, descriptions, each file's size and sha256, and token costs.
Output is byte-identical for the same input: sorted entries, one fixed time \
(SOURCE_DATE_EPOCH, else 1980-01-01), modes 0644/0755.
Left out: .git, __pycache__, *.pyc, node_modules, .DS_Store, editor swap files, each \
skill's evals/ (unless --include-evals), and whatever a .honeignore lists.")]
pub struct Args {
    /// Skills (folders or SKILL.md files) and libraries (all their skills).
    #[arg(value_name = "PATH", required_unless_present = "verify")]
    paths: Vec<PathBuf>,
    /// The pack to write, or a folder to write NAME.zip (NAME.skill) into;
    /// for `plugin` and `marketplace`, the folder to create [default: .]
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Check PACK instead: manifest checksums, layout, and every skill's validation.
    #[arg(long, value_name = "PACK", conflicts_with_all = ["paths", "format", "allow_errors", "include_evals", "manifest", "name", "pack_version", "force", "bump"])]
    verify: Option<PathBuf>,
    /// Whose validation gates the export (or the verification): agentskills,
    /// claude-code, claude-api, copilot or all. [default: the `target` the
    /// library (the first PATH) remembers in evals/hone-settings.json, else
    /// agentskills]
    #[arg(long, value_name = "T", value_parser = target_parser())]
    target: Option<Target>,
    /// `zip` (one or more skills), `skill` (one skill, as NAME.skill),
    /// `plugin` (a Claude Code plugin folder), `marketplace` (a Claude Code
    /// marketplace folder, one plugin per PATH) or `well-known`
    /// (OUT/.well-known/agent-skills/: index.json and the files it lists).
    #[arg(long, value_enum, default_value = "zip")]
    format: Format,
    /// Replace the output folder of a plugin, marketplace or well-known index
    /// when it is not empty.
    #[arg(long)]
    force: bool,
    /// Export even when skills have error-level findings.
    #[arg(long)]
    allow_errors: bool,
    /// Keep each skill's evals/ folder.
    #[arg(long)]
    include_evals: bool,
    /// Add hone-pack.json to a one-skill pack too.
    #[arg(long)]
    manifest: bool,
    /// The pack's name [default: the skill's name, or the library folder's].
    #[arg(long)]
    name: Option<String>,
    /// The pack's version, recorded in the manifest [default: 0.0.0].
    #[arg(long = "version", id = "pack_version", value_name = "VERSION")]
    pack_version: Option<String>,
    /// Raise the library's version (`package.version` in its
    /// evals/hone-settings.json) first, with a CHANGELOG.md entry of its git
    /// commits since the last one: patch, minor or major.
    #[arg(long, value_enum, value_name = "PART", conflicts_with = "pack_version")]
    bump: Option<BumpArg>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BumpArg {
    Patch,
    Minor,
    Major,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Zip,
    Skill,
    Plugin,
    Marketplace,
    WellKnown,
}

pub fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    if let Some(part) = args.bump {
        let root = settings_root(&args.paths)
            .filter(|p| !p.join("SKILL.md").is_file())
            .ok_or_else(|| {
                anyhow::anyhow!("--bump raises a library's version: give the library folder first")
            })?
            .to_path_buf();
        let part = match part {
            BumpArg::Patch => Bump::Patch,
            BumpArg::Minor => Bump::Minor,
            BumpArg::Major => Bump::Major,
        };
        let report = version::bump(&root, part)?;
        if !args.json {
            println!(
                "version {} -> {} ({}, {} change(s) in {})",
                report.from,
                report.to,
                report.settings.display(),
                report.changes.len(),
                report.changelog.display()
            );
        }
        args.pack_version = Some(report.to);
    }
    match &args.verify {
        Some(path) => verify(path, &args),
        None => export(&args),
    }
}

fn export(args: &Args) -> anyhow::Result<ExitCode> {
    let format = match args.format {
        Format::Zip => PackFormat::Zip,
        Format::Skill => PackFormat::Skill,
        Format::Plugin | Format::Marketplace => return export_plugin(args),
        Format::WellKnown => return export_well_known(args),
    };
    let options = ExportOptions {
        target: library_target(settings_root(&args.paths), args.target)?,
        format,
        name: args.name.clone(),
        version: args.pack_version.clone(),
        include_evals: args.include_evals,
        allow_errors: args.allow_errors,
        manifest: args.manifest,
        epoch: None,
    };
    let bar: OnceLock<ProgressBar> = OnceLock::new();
    let progress = |p: ExportProgress| {
        if args.quiet || args.json || p.files_total < PROGRESS_FROM_FILES {
            return;
        }
        let bar = bar.get_or_init(|| {
            let bar = ProgressBar::new(p.files_total as u64);
            if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} files {msg}") {
                bar.set_style(style);
            }
            bar
        });
        bar.inc(1);
    };
    let output = args.output.clone().unwrap_or_else(|| PathBuf::from("."));
    let result = pack::export(&args.paths, &output, &options, &progress);
    if let Some(bar) = bar.get() {
        bar.finish_and_clear();
    }
    let report = match result {
        Ok(report) => report,
        Err(PackError::Blocked(skills)) => return blocked(&skills, args.json),
        Err(err) => return Err(err.into()),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let findings: Vec<Diagnostic> = report
        .skills
        .iter()
        .flat_map(|s| s.findings.iter().cloned())
        .collect();
    print_findings(
        &findings,
        if args.allow_errors {
            Severity::Error
        } else {
            Severity::Warning
        },
    );
    for problem in &report.problems {
        eprintln!("{}: {}", problem.path.display(), problem.message);
    }
    let files: usize = report.skills.iter().map(|s| s.files).sum();
    let bytes: u64 = report.skills.iter().map(|s| s.bytes).sum();
    let path = report.path.as_deref().unwrap_or(Path::new("-"));
    println!(
        "packed {} skill(s), {files} files ({}) into {} ({}){}",
        report.skills.len(),
        human_bytes(bytes),
        path.display(),
        human_bytes(report.size),
        if report.manifest {
            ", with hone-pack.json"
        } else {
            ""
        }
    );
    println!("sha256 {}", report.sha256);
    Ok(ExitCode::SUCCESS)
}

/// Reports an export stopped by error-level findings: exit 1.
fn blocked(skills: &[pack::SkillFindings], json: bool) -> anyhow::Result<ExitCode> {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "blocked": skills }))?
        );
    } else {
        for skill in skills {
            print_findings(&skill.findings, Severity::Error);
        }
        eprintln!(
            "hone: export stopped: {} skill(s) have error-level findings (fix them, or pass --allow-errors)",
            skills.len()
        );
    }
    Ok(ExitCode::from(1))
}

/// `--format well-known`: a web discovery index and the files it lists.
fn export_well_known(args: &Args) -> anyhow::Result<ExitCode> {
    let output = args.output.clone().ok_or_else(|| {
        anyhow::anyhow!("--format well-known writes OUT/.well-known/agent-skills: give OUT with -o")
    })?;
    let options = ExportOptions {
        target: library_target(settings_root(&args.paths), args.target)?,
        include_evals: args.include_evals,
        allow_errors: args.allow_errors,
        ..ExportOptions::default()
    };
    let report = match well_known::export_well_known(&args.paths, &output, &options, args.force) {
        Ok(report) => report,
        Err(PackError::Blocked(skills)) => return blocked(&skills, args.json),
        Err(err) => return Err(err.into()),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    for entry in &report.index.skills {
        println!(
            "{} ({:?}) {} {}",
            entry.name, entry.kind, entry.url, entry.digest
        );
    }
    println!(
        "wrote {} ({} skill(s))",
        report.path.join(well_known::INDEX_FILE).display(),
        report.index.skills.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `--format plugin|marketplace`: a Claude Code plugin or marketplace folder.
fn export_plugin(args: &Args) -> anyhow::Result<ExitCode> {
    let output = args.output.clone().ok_or_else(|| {
        anyhow::anyhow!("--format plugin and marketplace write a folder: give it with -o DIR")
    })?;
    let options = PluginOptions {
        export: ExportOptions {
            target: library_target(settings_root(&args.paths), args.target)?,
            name: args.name.clone(),
            version: args.pack_version.clone(),
            include_evals: args.include_evals,
            allow_errors: args.allow_errors,
            ..ExportOptions::default()
        },
        force: args.force,
    };
    let (path, plugins, warnings) = match args.format {
        Format::Marketplace => match plugin::export_marketplace(&args.paths, &output, &options) {
            Ok(report) => {
                if args.json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                    return Ok(ExitCode::SUCCESS);
                }
                (report.path, report.plugins, report.warnings)
            }
            Err(PackError::Blocked(skills)) => return blocked(&skills, args.json),
            Err(err) => return Err(err.into()),
        },
        _ => match plugin::export_plugin(&args.paths, &output, &options) {
            Ok(report) => {
                if args.json {
                    println!("{}", serde_json::to_string_pretty(&report)?);
                    return Ok(ExitCode::SUCCESS);
                }
                (report.path.clone(), vec![report], Vec::new())
            }
            Err(PackError::Blocked(skills)) => return blocked(&skills, args.json),
            Err(err) => return Err(err.into()),
        },
    };
    let min = if args.allow_errors {
        Severity::Error
    } else {
        Severity::Warning
    };
    for plugin in &plugins {
        let findings: Vec<Diagnostic> = plugin
            .skills
            .iter()
            .flat_map(|s| s.findings.iter().cloned())
            .collect();
        print_findings(&findings, min);
        for warning in warnings.iter().chain(&plugin.warnings) {
            eprintln!("warning: {warning}");
        }
        for problem in &plugin.problems {
            eprintln!("{}: {}", problem.path.display(), problem.message);
        }
        let ids: Vec<&str> = plugin.skills.iter().map(|s| s.id.as_str()).collect();
        println!(
            "plugin {} {}: {}",
            plugin.manifest.name,
            plugin.manifest.version.as_deref().unwrap_or("(no version)"),
            ids.join(", ")
        );
    }
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}

fn verify(path: &Path, args: &Args) -> anyhow::Result<ExitCode> {
    let options = VerifyOptions {
        target: library_target(None, args.target)?,
        limits: Default::default(),
    };
    let report = pack::verify(path, &options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let findings: Vec<Diagnostic> = report
            .skills
            .iter()
            .flat_map(|s| s.findings.iter().cloned())
            .collect();
        print_findings(&findings, Severity::Error);
        for problem in &report.problems {
            println!(
                "{} {problem}",
                paint(
                    Style::new().fg_color(Some(AnsiColor::Red.into())).bold(),
                    "rejected:"
                )
            );
        }
        let files: usize = report.skills.iter().map(|s| s.files).sum();
        let manifest = if report.manifest.is_some() {
            "manifest checked"
        } else {
            "no manifest"
        };
        if report.ok {
            println!(
                "{}: ok: {} skill(s), {files} files, {manifest}",
                path.display(),
                report.skills.len()
            );
        } else {
            let errors = findings
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            println!(
                "{}: failed: {} problem(s), {errors} error-level finding(s)",
                path.display(),
                report.problems.len()
            );
        }
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Prints the findings of `min` severity and above in full, and a count of
/// the rest: `pack` is not `check`, but what blocks or changes a pack is shown.
pub(crate) fn print_findings(findings: &[Diagnostic], min: Severity) {
    let mut stdout = anstream::stdout().lock();
    let mut hidden = 0;
    for finding in findings {
        // The pack's own findings change what is packed: always shown.
        let from_pack = Rule::from_code(&finding.code).is_some_and(|r| r.origin() == Origin::Pack);
        if finding.severity < min && !from_pack {
            hidden += 1;
            continue;
        }
        let _ = printer::write_diagnostic(&mut stdout, finding, None, true);
    }
    if hidden > 0 {
        let _ = writeln!(
            stdout,
            "({hidden} more finding(s) below {}; `hone check` lists them)",
            min.as_str()
        );
    }
}

fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}
