//! `hone scan`: is this skill safe to install? The security rules (`HS9xx`)
//! over skills not installed yet (a folder, a cloned repository, a `.zip`
//! or `.skill` pack), with a verdict per skill: safe, review, dangerous.
//!
//! Exit codes: 0 no skill is dangerous (none is under review either with
//! `--strict`), 1 otherwise, 2 for usage or I/O errors.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anstyle::{AnsiColor, Style};
use hone_core::library_settings::{library_acknowledgements, settings_root};
use hone_core::security::{self, SkillSecurity, Verdict};
use serde::Serialize;

use crate::cmd::check::{write_github, write_sarif};

#[derive(clap::Args)]
#[command(after_help = "\
Nothing in the skill is run. A pack is extracted, with the checks of `hone unpack`, into a \
temporary folder that is removed afterwards. Findings a reviewer accepted are listed under \
`acknowledged` in the library's evals/hone-settings.json (code, skill, hash, reason) and stop \
counting until the file changes; `--format json` prints each finding's `content_hash`.")]
pub struct Args {
    /// Skill folders, folders of skills (a cloned repository), or a pack
    /// (.zip or .skill).
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Fail (exit 1) when a skill needs review, not only when one is dangerous.
    #[arg(long)]
    strict: bool,
    /// Also list the findings that do not affect the verdict (low threat).
    #[arg(long)]
    all: bool,
    /// Analyse every skill again instead of reusing the verdicts kept in the
    /// user's cache (`$XDG_CACHE_HOME/hone/security`) for files that have
    /// not changed.
    #[arg(long)]
    no_cache: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

#[derive(Serialize)]
struct Summary {
    skills: usize,
    safe: usize,
    review: usize,
    dangerous: usize,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    summary: Summary,
    skills: &'a [SkillSecurity],
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let acks = library_acknowledgements(settings_root(&args.paths))?;
    let mut reports = Vec::new();
    let mut folders = Vec::new();
    for path in &args.paths {
        if security::is_pack(path) {
            reports.extend(hone_core::pack::scan_pack(path, &acks)?);
        } else {
            folders.push(path.clone());
        }
    }
    if !folders.is_empty() {
        let memo = if args.no_cache {
            security::VerdictMemo::in_memory()
        } else {
            security::VerdictMemo::open_default()
        };
        let (library, found) = security::scan_paths(&folders, &acks, Some(&memo))?;
        // A memo that cannot be written only makes the next scan slower.
        let _ = memo.save();
        for problem in &library.problems {
            anstream::eprintln!(
                "hone: warning: {}: {}",
                problem.path.display(),
                problem.message
            );
        }
        reports.extend(found);
    }
    if reports.is_empty() {
        anstream::eprintln!("hone: error: no skills (folders with a SKILL.md) found");
        return Ok(ExitCode::from(2));
    }
    let stdout = std::io::stdout();
    let colored = anstream::AutoStream::choice(&stdout) != anstream::ColorChoice::Never;
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.format {
        Format::Text => write_text(&mut out, &reports, args.all, colored)?,
        Format::Json => {
            let report = JsonReport {
                version: 1,
                summary: summarize(&reports),
                skills: &reports,
            };
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        Format::Sarif | Format::Github => {
            let findings: Vec<_> = reports
                .iter()
                .flat_map(|r| &r.findings)
                .filter(|f| f.counts())
                .collect();
            let diagnostics: Vec<_> = findings.iter().map(|f| f.to_diagnostic()).collect();
            if args.format == Format::Sarif {
                let threats: Vec<_> = findings.iter().map(|f| Some(f.threat)).collect();
                write_sarif(&mut out, &diagnostics, &threats)?;
            } else {
                write_github(&mut out, &diagnostics)?;
            }
        }
    }
    out.flush()?;
    let failing = reports
        .iter()
        .any(|r| r.verdict == Verdict::Dangerous || (args.strict && r.verdict == Verdict::Review));
    Ok(ExitCode::from(u8::from(failing)))
}

fn summarize(reports: &[SkillSecurity]) -> Summary {
    let count = |v: Verdict| reports.iter().filter(|r| r.verdict == v).count();
    Summary {
        skills: reports.len(),
        safe: count(Verdict::Safe),
        review: count(Verdict::Review),
        dangerous: count(Verdict::Dangerous),
    }
}

pub(crate) fn verdict_style(verdict: Verdict) -> Style {
    let color = match verdict {
        Verdict::Safe => AnsiColor::Green,
        Verdict::Review => AnsiColor::Yellow,
        Verdict::Dangerous => AnsiColor::Red,
    };
    Style::new().bold().fg_color(Some(color.into()))
}

/// One block per skill: its verdict, then each finding with its place,
/// threat and confidence, evidence, flow and decoded payload.
pub(crate) fn write_text(
    out: &mut impl Write,
    reports: &[SkillSecurity],
    all: bool,
    colored: bool,
) -> std::io::Result<()> {
    let paint = |style: Style| if colored { style } else { Style::new() };
    let bold = paint(Style::new().bold());
    for report in reports {
        let style = paint(verdict_style(report.verdict));
        writeln!(
            out,
            "{style}{:<9}{style:#} {bold}{}{bold:#} ({})",
            report.verdict,
            report.id,
            report.path.display()
        )?;
        for f in &report.findings {
            let shown = all || f.acknowledged.is_some() || f.threat > security::Threat::Low;
            if !shown {
                continue;
            }
            let threat = serde_json::to_value(f.threat).unwrap_or_default();
            let confidence = serde_json::to_value(f.confidence).unwrap_or_default();
            writeln!(
                out,
                "  {}:{}:{}: {} [{}] {}, confidence {}: {}",
                f.path.display(),
                f.span.start.line,
                f.span.start.column,
                f.code,
                f.rule,
                threat.as_str().unwrap_or(""),
                confidence.as_str().unwrap_or(""),
                f.message
            )?;
            writeln!(out, "      | {}", f.evidence)?;
            if let Some(flow) = &f.flow {
                writeln!(out, "      = flow: {flow}")?;
            }
            if let Some(decoded) = &f.decoded {
                writeln!(out, "      = decodes to: {decoded}")?;
            }
            if let Some(reason) = &f.acknowledged {
                writeln!(out, "      = acknowledged: {reason}")?;
            }
        }
    }
    let s = summarize(reports);
    writeln!(
        out,
        "{bold}{} skill(s){bold:#}: {} dangerous, {} to review, {} safe.",
        s.skills, s.dangerous, s.review, s.safe
    )
}
