//! `hone rule [CODE]`: list the validation rules, or print one rule's doc.

use std::io::Write;
use std::process::ExitCode;

use anstyle::Style;
use hone_core::rules::Rule;

#[derive(clap::Args)]
pub struct Args {
    /// A rule code (`HS103`) or name (`name-format`); without it, every rule is listed.
    code: Option<String>,
    /// Print JSON (the rule's metadata and doc) instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut out = anstream::stdout().lock();
    match args.code {
        Some(code) => {
            let Some(rule) = Rule::find(&code) else {
                anyhow::bail!("unknown rule `{code}`; `hone rule` lists them");
            };
            if args.json {
                serde_json::to_writer_pretty(&mut out, &rule)?;
                writeln!(out)?;
            } else {
                write_doc(&mut out, rule)?;
            }
        }
        None if args.json => {
            serde_json::to_writer_pretty(&mut out, Rule::ALL)?;
            writeln!(out)?;
        }
        None => write_table(&mut out)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn targets(rule: Rule) -> String {
    rule.targets()
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn write_doc(out: &mut impl Write, rule: Rule) -> std::io::Result<()> {
    let bold = Style::new().bold();
    writeln!(out, "{bold}# {} {}{bold:#}", rule.code(), rule.name())?;
    writeln!(out)?;
    writeln!(out, "{}.", capitalize(rule.summary()))?;
    writeln!(out)?;
    let fix = if rule.fixable() { "available" } else { "none" };
    writeln!(
        out,
        "Severity: {} · Targets: {} (and all) · Fix: {fix}",
        rule.severity().as_str(),
        targets(rule)
    )?;
    writeln!(out)?;
    writeln!(out, "{}", rule.doc())?;
    Ok(())
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

fn write_table(out: &mut impl Write) -> std::io::Result<()> {
    let bold = Style::new().bold();
    let name_width = Rule::ALL.iter().map(|r| r.name().len()).max().unwrap_or(0);
    writeln!(
        out,
        "{bold}{:<6} {:<name_width$} {:<8} {:<3} summary{bold:#}",
        "code", "name", "severity", "fix"
    )?;
    for &rule in Rule::ALL {
        let fix = if rule.fixable() { "yes" } else { "" };
        writeln!(
            out,
            "{:<6} {:<name_width$} {:<8} {:<3} {} [{}]",
            rule.code(),
            rule.name(),
            rule.severity().as_str(),
            fix,
            rule.summary(),
            targets(rule)
        )?;
    }
    writeln!(out)?;
    writeln!(out, "`hone rule CODE` prints a rule's documentation.")?;
    Ok(())
}
