//! `hone check`: validate skills and print the findings as text (rustc/ruff
//! style), JSON, SARIF 2.1.0 or GitHub workflow commands.
//!
//! Exit codes: 0 no finding at error level (none at all with `--strict`), 1
//! otherwise, 2 for usage or I/O errors (a path that does not exist, a
//! `SKILL.md` that cannot be read, no skill found at all unless
//! `--allow-empty`). With `--format json` every outcome, errors included, is
//! one JSON document on stdout.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anstyle::{AnsiColor, Style};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use hone_core::diagnostic::{Diagnostic, Severity};
use hone_core::folder::SKILL_FILE;
use hone_core::library::{DiscoveryProblem, Library, misnamed_skill_files};
use hone_core::library_settings::library_acknowledgements;
use hone_core::library_settings::{DEFAULT_TARGET, library_target, settings_root};
use hone_core::rules::cache::CheckCache;
use hone_core::rules::compat::{self, SkillCompat};
use hone_core::rules::{self, Rule, Target};
use hone_core::security::{self, SkillSecurity, Threat};
use hone_core::skill::Skill;
use rayon::prelude::*;
use serde::Serialize;

use crate::printer;

#[derive(clap::Args)]
pub struct Args {
    /// Skill folders, SKILL.md files or folders of skills, scanned recursively.
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Which consumer's rules to apply; `all` runs every rule. [default: the
    /// `target` the library (the first path) remembers in
    /// evals/hone-settings.json, else agentskills]
    #[arg(long, value_parser = target_parser())]
    target: Option<Target>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Fail (exit 1) on findings of any severity, not only errors.
    #[arg(long)]
    strict: bool,
    /// Work everything out again instead of reusing the answers kept in the
    /// user's cache (`$XDG_CACHE_HOME/hone`): long bodies' token counts, the
    /// library's collisions and, with `--security`, unchanged skills' verdicts.
    #[arg(long)]
    no_cache: bool,
    /// Accept paths holding no skill at all (otherwise a usage error, exit 2,
    /// so that a mistyped path cannot pass a CI gate).
    #[arg(long)]
    allow_empty: bool,
    /// Also run the security rules (HS9xx, as `hone scan`): they read every
    /// file of each skill, scripts included, and give each skill a verdict
    /// (safe, review, dangerous). A dangerous skill's findings are errors.
    #[arg(long)]
    security: bool,
}

pub fn target_parser() -> impl TypedValueParser<Value = Target> {
    PossibleValuesParser::new(Target::ALL.map(Target::as_str))
        .map(|s| s.parse::<Target>().expect("a listed target"))
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

/// A usage or I/O error that ends the check (exit 2), with a hint.
#[derive(Serialize)]
struct RunError {
    message: String,
    hint: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let target = match library_target(settings_root(&args.paths), args.target) {
        Ok(target) => target,
        Err(err) if args.format == Format::Json => {
            let error = RunError {
                message: err.to_string(),
                hint: Some("fix the file, or pass --target".into()),
            };
            return fail_as_json(
                &Library::default(),
                args.target.unwrap_or(DEFAULT_TARGET),
                &error,
            );
        }
        Err(err) => return Err(err.into()),
    };
    let cache = if args.no_cache {
        CheckCache::in_memory()
    } else {
        CheckCache::open_default()
    };
    let (library, mut diagnostics) = match rules::open_and_check(&args.paths, target, Some(&cache))
    {
        Ok(checked) => checked,
        Err(err) if args.format == Format::Json => {
            let error = RunError {
                message: err.to_string(),
                hint: None,
            };
            return fail_as_json(&Library::default(), target, &error);
        }
        Err(err) => return Err(err.into()),
    };
    // A cache that cannot be written only makes the next run slower.
    let _ = cache.save();
    let security_reports = if args.security {
        let acks = library_acknowledgements(settings_root(&args.paths))?;
        let memo = if args.no_cache {
            security::VerdictMemo::in_memory()
        } else {
            security::VerdictMemo::open_default()
        };
        let reports = security::scan_library_with(&library, &acks, Some(&memo));
        let _ = memo.save();
        diagnostics.extend(security::diagnostics(&reports));
        diagnostics.sort_by(|a, b| {
            a.path
                .cmp(&b.path)
                .then_with(|| (a.span.start.offset, &a.code).cmp(&(b.span.start.offset, &b.code)))
        });
        Some(reports)
    } else {
        None
    };
    // SARIF's `security-severity` of each finding, beside it.
    let threats: Vec<Option<Threat>> = match &security_reports {
        Some(reports) => {
            let by_place: HashMap<(&Path, usize, &str), Threat> = reports
                .iter()
                .flat_map(|r| &r.findings)
                .map(|f| {
                    (
                        (f.path.as_path(), f.span.start.offset, f.code.as_str()),
                        f.threat,
                    )
                })
                .collect();
            diagnostics
                .iter()
                .map(|d| {
                    by_place
                        .get(&(d.path.as_path(), d.span.start.offset, d.code.as_str()))
                        .copied()
                })
                .collect()
        }
        None => Vec::new(),
    };
    let json = args.format == Format::Json;
    // In JSON the problems are in the document; on stderr they would be said twice.
    let io_failure = report_problems(&library.problems, &args.paths, !json);
    if library.skills.is_empty() && !args.allow_empty {
        let error = no_skills(&args.paths);
        if json {
            return fail_as_json(&library, target, &error);
        }
        anstream::eprintln!("hone: error: {}", error.message);
        if let Some(hint) = &error.hint {
            anstream::eprintln!("hone: hint: {hint}");
        }
        return Ok(ExitCode::from(2));
    }
    let stdout = std::io::stdout();
    let colored = anstream::AutoStream::choice(&stdout) != anstream::ColorChoice::Never;
    // Thousands of findings: one buffer, not a write per line.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match args.format {
        Format::Text => {
            write_text(
                &mut out,
                &library,
                &diagnostics,
                target,
                colored,
                io_failure,
            )?;
            if let Some(reports) = &security_reports {
                write_verdicts(&mut out, reports, colored)?;
            }
        }
        Format::Json => {
            let matrix = compat::matrix(&library, Some(&cache.collisions));
            let error = io_failure.then(|| RunError {
                message: "some paths could not be read; see `problems`".into(),
                hint: None,
            });
            let report = JsonReport {
                library: &library,
                diagnostics: &diagnostics,
                target,
                compatibility: &matrix,
                security: security_reports.as_deref(),
                error: error.as_ref(),
            };
            write_json(&mut out, &report)?
        }
        Format::Sarif => write_sarif(&mut out, &diagnostics, &threats)?,
        Format::Github => write_github(&mut out, &diagnostics)?,
    }
    out.flush()?;
    let failing = diagnostics
        .iter()
        .any(|d| args.strict || d.severity == Severity::Error);
    let code = ExitCode::from(if io_failure {
        2
    } else if failing {
        1
    } else {
        0
    });
    // The process ends here: freeing thousands of skills and findings one
    // allocation at a time would only delay the exit.
    std::mem::forget((library, diagnostics));
    Ok(code)
}

/// Prints discovery problems to stderr when `print`; true when one is an
/// I/O error on a path the user named or on a `SKILL.md`.
fn report_problems(problems: &[DiscoveryProblem], roots: &[PathBuf], print: bool) -> bool {
    let mut failed = false;
    for problem in problems {
        let fatal = roots.contains(&problem.path) || problem.path.ends_with(SKILL_FILE);
        let level = if fatal { "error" } else { "warning" };
        if print {
            anstream::eprintln!(
                "hone: {level}: {}: {}",
                problem.path.display(),
                problem.message
            );
        }
        failed |= fatal;
    }
    failed
}

/// The error for paths holding no skill, with a hint at the likely cause.
fn no_skills(paths: &[PathBuf]) -> RunError {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let message = format!(
        "no skills (folders with a {SKILL_FILE}) found in {}",
        shown.join(", ")
    );
    let misnamed = misnamed_skill_files(paths, 3);
    let hint = if let Some(first) = misnamed.first() {
        let name = first
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Some(format!(
            "{} is named `{name}`; agents (and Hone) read only `{SKILL_FILE}`, in capitals: rename it{}",
            first.display(),
            if misnamed.len() > 1 {
                " (and the others like it)"
            } else {
                ""
            }
        ))
    } else {
        Some("check the path; pass --allow-empty to accept a folder without skills".into())
    };
    RunError { message, hint }
}

/// Prints the JSON document of a run that failed before any check, exit 2.
fn fail_as_json(library: &Library, target: Target, error: &RunError) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let report = JsonReport {
        library,
        diagnostics: &[],
        target,
        compatibility: &[],
        security: None,
        error: Some(error),
    };
    write_json(&mut out, &report)?;
    out.flush()?;
    Ok(ExitCode::from(2))
}

#[derive(Serialize, Default)]
struct Summary {
    skills: usize,
    files_with_findings: usize,
    error: usize,
    warning: usize,
    info: usize,
    fixable: usize,
}

fn summarize(library: &Library, diagnostics: &[Diagnostic]) -> Summary {
    let mut summary = Summary {
        skills: library.skills.len(),
        ..Summary::default()
    };
    let mut last: Option<&Path> = None;
    for d in diagnostics {
        match d.severity {
            Severity::Error => summary.error += 1,
            Severity::Warning => summary.warning += 1,
            Severity::Info => summary.info += 1,
        }
        summary.fixable += usize::from(d.fix.is_some());
        // Diagnostics are sorted by path, so a new path is a new file.
        if last != Some(d.path.as_path()) {
            summary.files_with_findings += 1;
            last = Some(&d.path);
        }
    }
    summary
}

/// Findings rendered per worker thread: tens of thousands of lines of output
/// are formatted in parallel, then written in order.
const RENDER_CHUNK: usize = 128;

/// Renders `items` in parallel chunks with `render` (given each item's
/// index), then writes them in order.
fn write_rendered<T: Sync>(
    out: &mut impl Write,
    items: &[T],
    render: impl Fn(&mut Vec<u8>, usize, &T) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    let chunks: Vec<Vec<u8>> = items
        .par_chunks(RENDER_CHUNK)
        // Each chunk a job of its own, so that no thread is left rendering
        // a long run alone at the end.
        .with_max_len(1)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            let mut buffer = Vec::with_capacity(chunk.len() * 256);
            for (offset, item) in chunk.iter().enumerate() {
                render(&mut buffer, chunk_index * RENDER_CHUNK + offset, item)?;
            }
            Ok(buffer)
        })
        .collect::<std::io::Result<_>>()?;
    for chunk in chunks {
        out.write_all(&chunk)?;
    }
    Ok(())
}

fn write_text(
    out: &mut impl Write,
    library: &Library,
    diagnostics: &[Diagnostic],
    target: Target,
    colored: bool,
    io_failure: bool,
) -> std::io::Result<()> {
    let paint = |style: Style| if colored { style } else { Style::new() };
    let skills: HashMap<&Path, &Skill> = library
        .skills
        .iter()
        .map(|s| (s.path.as_path(), s))
        .collect();
    let bold = paint(Style::new().bold());
    write_rendered(out, diagnostics, |out, _, d| {
        let skill = skills.get(d.path.as_path()).copied();
        printer::write_diagnostic(out, d, skill, colored)
    })?;
    let s = summarize(library, diagnostics);
    let skills = plural(s.skills, "skill");
    if diagnostics.is_empty() && io_failure {
        // Not "all checks passed": some of what was asked for was not checked.
        writeln!(
            out,
            "No findings in {skills} (target {target}), but some paths could not be checked."
        )?;
    } else if diagnostics.is_empty() {
        let ok = paint(Style::new().bold().fg_color(Some(AnsiColor::Green.into())));
        writeln!(
            out,
            "{ok}All checks passed{ok:#}: {skills} (target {target})."
        )?;
    } else {
        writeln!(
            out,
            "{bold}Found {}{bold:#} ({} {}, {} {}, {} info) in {} of {skills} (target {target}); {} fixable.",
            plural(diagnostics.len(), "finding"),
            s.error,
            if s.error == 1 { "error" } else { "errors" },
            s.warning,
            if s.warning == 1 {
                "warning"
            } else {
                "warnings"
            },
            s.info,
            s.files_with_findings,
            s.fixable,
        )?;
    }
    Ok(())
}

/// After the findings: the skills that are not safe, and the count.
fn write_verdicts(
    out: &mut impl Write,
    reports: &[SkillSecurity],
    colored: bool,
) -> std::io::Result<()> {
    let mut unsafe_skills: Vec<&SkillSecurity> = reports
        .iter()
        .filter(|r| r.verdict != security::Verdict::Safe)
        .collect();
    unsafe_skills.sort_by_key(|r| std::cmp::Reverse(r.verdict));
    for report in &unsafe_skills {
        let style = if colored {
            crate::cmd::scan::verdict_style(report.verdict)
        } else {
            Style::new()
        };
        writeln!(out, "{style}{}{style:#}: {}", report.verdict, report.id)?;
        for reason in &report.reasons {
            writeln!(out, "  {reason}")?;
        }
    }
    let dangerous = unsafe_skills
        .iter()
        .filter(|r| r.verdict == security::Verdict::Dangerous)
        .count();
    writeln!(
        out,
        "Security: {dangerous} dangerous, {} to review, {} safe.",
        unsafe_skills.len() - dangerous,
        reports.len() - unsafe_skills.len()
    )
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What `--format json` prints.
struct JsonReport<'a> {
    library: &'a Library,
    diagnostics: &'a [Diagnostic],
    target: Target,
    /// Per skill, per client: loads, loads with changes, refused.
    compatibility: &'a [SkillCompat],
    /// Per skill, its security verdict and findings (with `--security` only).
    security: Option<&'a [SkillSecurity]>,
    error: Option<&'a RunError>,
}

fn write_json(out: &mut impl Write, report: &JsonReport) -> std::io::Result<()> {
    let JsonReport {
        library,
        diagnostics,
        target,
        compatibility,
        security,
        error,
    } = *report;
    // The same bytes as `serde_json::to_writer_pretty` of the whole object
    // (a test holds them equal), with the findings serialised in parallel.
    writeln!(out, "{{")?;
    writeln!(out, "  \"version\": 1,")?;
    writeln!(out, "  \"target\": {},", pretty(&target, 2)?)?;
    let summary = summarize(library, diagnostics);
    writeln!(out, "  \"summary\": {},", pretty(&summary, 2)?)?;
    if diagnostics.is_empty() {
        writeln!(out, "  \"diagnostics\": [],")?;
    } else {
        writeln!(out, "  \"diagnostics\": [")?;
        let last = diagnostics.len() - 1;
        write_rendered(out, diagnostics, |out, index, d| {
            let comma = if index == last { "" } else { "," };
            writeln!(out, "    {}{comma}", pretty(d, 4)?)
        })?;
        writeln!(out, "  ],")?;
    }
    writeln!(out, "  \"problems\": {},", pretty(&library.problems, 2)?)?;
    if compatibility.is_empty() {
        writeln!(out, "  \"compatibility\": [],")?;
    } else {
        writeln!(out, "  \"compatibility\": [")?;
        let last = compatibility.len() - 1;
        write_rendered(out, compatibility, |out, index, row| {
            let comma = if index == last { "" } else { "," };
            writeln!(out, "    {}{comma}", pretty(row, 4)?)
        })?;
        writeln!(out, "  ],")?;
    }
    if let Some(security) = security {
        writeln!(out, "  \"security\": {},", pretty(&security, 2)?)?;
    }
    writeln!(out, "  \"error\": {}", pretty(&error, 2)?)?;
    writeln!(out, "}}")
}

/// `value` as pretty JSON whose lines after the first are indented by
/// `indent` spaces, to sit inside a pretty-printed object. (JSON strings
/// escape their line breaks, so every line break is the printer's.)
fn pretty(value: &impl Serialize, indent: usize) -> std::io::Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    Ok(text.replace('\n', &format!("\n{}", " ".repeat(indent))))
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn sarif_rule(rule: Rule) -> serde_json::Value {
    let mut value = serde_json::json!({
        "id": rule.code(),
        "name": rule.name(),
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": rule.summary()},
        "help": {"text": rule.doc(), "markdown": rule.doc()},
        "defaultConfiguration": {"level": sarif_level(rule.severity())},
        "properties": {
            "targets": rule.targets().iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            "fixable": rule.fixable(),
        },
    });
    // GitHub code scanning ranks security alerts by this property.
    if let Some(score) = security::rule_security_severity(rule) {
        value["properties"]["security-severity"] = score.into();
        value["properties"]["tags"] = serde_json::json!(["security"]);
    }
    value
}

fn uri(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// The SARIF log of `diagnostics`; `threats` holds, index for index, the
/// threat of those that are security findings (it may be shorter).
pub(crate) fn write_sarif(
    out: &mut impl Write,
    diagnostics: &[Diagnostic],
    threats: &[Option<Threat>],
) -> std::io::Result<()> {
    let all = Rule::ALL;
    let results: Vec<serde_json::Value> = diagnostics
        .iter()
        .enumerate()
        .map(|(index, d)| {
            let mut result = serde_json::json!({
                "ruleId": d.code,
                "ruleIndex": all.iter().position(|r| r.code() == d.code),
                "level": sarif_level(d.severity),
                "message": {"text": match &d.help {
                    Some(help) => format!("{} ({help})", d.message),
                    None => d.message.clone(),
                }},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": uri(&d.path)},
                    "region": {
                        "startLine": d.span.start.line,
                        "startColumn": d.span.start.column,
                        "endLine": d.span.end.line,
                        "endColumn": d.span.end.column,
                        "byteOffset": d.span.start.offset,
                        "byteLength": d.span.end.offset - d.span.start.offset,
                    },
                }}],
            });
            if let Some(threat) = threats.get(index).copied().flatten() {
                result["properties"] =
                    serde_json::json!({"security-severity": threat.security_severity()});
            }
            if let Some(fix) = &d.fix {
                result["fixes"] = serde_json::json!([{
                    "description": {"text": fix.title},
                    "artifactChanges": [{
                        "artifactLocation": {"uri": uri(&d.path)},
                        "replacements": fix.edits.iter().map(|e| serde_json::json!({
                            "deletedRegion": {"byteOffset": e.start, "byteLength": e.end - e.start},
                            "insertedContent": {"text": e.replacement},
                        })).collect::<Vec<_>>(),
                    }],
                }]);
            }
            result
        })
        .collect();
    let log = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "hone",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": all.iter().map(|&r| sarif_rule(r)).collect::<Vec<_>>(),
            }},
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

/// Escapes workflow-command data (`%`, CR, LF) and, in properties, `:` and `,`.
fn escape(text: &str, property: bool) -> String {
    let mut out = text
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    if property {
        out = out.replace(':', "%3A").replace(',', "%2C");
    }
    out
}

pub(crate) fn write_github(
    out: &mut impl Write,
    diagnostics: &[Diagnostic],
) -> std::io::Result<()> {
    for d in diagnostics {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let message = match &d.help {
            Some(help) => format!("{} ({help})", d.message),
            None => d.message.clone(),
        };
        writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            escape(&uri(&d.path), true),
            d.span.start.line,
            d.span.start.column,
            d.span.end.line,
            d.span.end.column,
            escape(&format!("{} {}", d.code, d.rule), true),
            escape(&message, false),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The findings are serialised in parallel, piece by piece; the bytes
    /// must be those of the whole object pretty-printed at once.
    #[test]
    fn json_output_is_the_pretty_printed_report() {
        #[derive(Serialize)]
        struct Output<'a> {
            version: u32,
            target: Target,
            summary: Summary,
            diagnostics: &'a [Diagnostic],
            problems: &'a [DiscoveryProblem],
            compatibility: &'a [SkillCompat],
            #[serde(skip_serializing_if = "Option::is_none")]
            security: Option<&'a [SkillSecurity]>,
            error: Option<&'a RunError>,
        }
        let tmp = tempfile::tempdir().unwrap();
        // Enough findings to fill several chunks.
        let bad = "---\ndescription: x: y\n---\nSee [gone](gone.md).\n";
        let fine = "---\nname: fine\ndescription: Checks things. Use when asked to.\n---\nBody\n";
        let skills = (0..RENDER_CHUNK).map(|i| (format!("bad-{i}"), bad));
        for (dir, text) in skills.chain([("fine".to_string(), fine)]) {
            std::fs::create_dir_all(tmp.path().join(&dir)).unwrap();
            std::fs::write(tmp.path().join(&dir).join(SKILL_FILE), text).unwrap();
        }
        let roots = [tmp.path().to_path_buf()];
        let (mut library, diagnostics) = rules::open_and_check(&roots, Target::All, None).unwrap();
        library.problems.push(DiscoveryProblem {
            path: tmp.path().join("loop"),
            message: "a \"quoted\"\nproblem".into(),
        });
        let matrix = compat::matrix(&library, None);
        let reports = security::scan_library(&library, &[]);
        let error = RunError {
            message: "m".into(),
            hint: Some("h".into()),
        };
        for (findings, matrix, security, error) in [
            (&diagnostics[..], &matrix[..], Some(&reports[..]), None),
            (&[], &[], None, Some(&error)),
        ] {
            let mut ours = Vec::new();
            let report = JsonReport {
                library: &library,
                diagnostics: findings,
                target: Target::All,
                compatibility: matrix,
                security,
                error,
            };
            write_json(&mut ours, &report).unwrap();
            let whole = Output {
                version: 1,
                target: Target::All,
                summary: summarize(&library, findings),
                diagnostics: findings,
                problems: &library.problems,
                compatibility: matrix,
                security,
                error,
            };
            let mut expected = serde_json::to_vec_pretty(&whole).unwrap();
            expected.push(b'\n');
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                String::from_utf8(expected).unwrap()
            );
        }
        assert!(diagnostics.len() > RENDER_CHUNK, "{}", diagnostics.len());
    }
}
