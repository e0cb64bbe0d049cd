//! The one text form of a finding, rustc/ruff style, for every command that
//! prints findings (`check`, `pack`, `unpack`): a location line, the source
//! line with carets under the span when the skill's text is at hand, then
//! the help and the fix.

use std::io::Write;

use anstyle::{AnsiColor, Style};
use hone_core::diagnostic::{Diagnostic, Severity};
use hone_core::skill::Skill;

/// Lines longer than this are cut (after the caret's start) when shown.
const MAX_SHOWN_CHARS: usize = 100;

pub fn severity_style(severity: Severity) -> Style {
    let color = match severity {
        Severity::Error => AnsiColor::Red,
        Severity::Warning => AnsiColor::Yellow,
        Severity::Info => AnsiColor::Cyan,
    };
    Style::new().bold().fg_color(Some(color.into()))
}

/// Writes `d`, with its source line from `skill` when given, in colour when
/// `colored`, followed by a blank line.
pub fn write_diagnostic(
    out: &mut impl Write,
    d: &Diagnostic,
    skill: Option<&Skill>,
    colored: bool,
) -> std::io::Result<()> {
    let paint = |style: Style| if colored { style } else { Style::new() };
    let bold = paint(Style::new().bold());
    let dim = paint(Style::new().fg_color(Some(AnsiColor::Blue.into())).bold());
    let (line, column) = (d.span.start.line, d.span.start.column);
    let style = paint(severity_style(d.severity));
    writeln!(
        out,
        "{bold}{}:{line}:{column}:{bold:#} {style}{} [{}]{style:#} {}",
        d.path.display(),
        d.code,
        d.severity.as_str(),
        d.message
    )?;
    if let Some(skill) = skill {
        let text = skill.text();
        let source = skill.lines.line_text(text, d.span.start.offset);
        let gutter = line.to_string();
        let pad = " ".repeat(gutter.len());
        let source = source.strip_prefix('\u{feff}').unwrap_or(source);
        let before = column as usize - 1;
        // Long lines (a one-line description) are cut after the caret's start.
        let keep = (before + 60).max(MAX_SHOWN_CHARS);
        let line_chars = source.chars().count();
        let mut shown: String = source
            .chars()
            .take(keep)
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        if line_chars > keep {
            shown.push('…');
        }
        let end_column = if d.span.end.line == line {
            d.span.end.column as usize - 1
        } else {
            line_chars
        };
        let width = end_column.min(keep).saturating_sub(before).max(1);
        writeln!(out, "{dim}{pad} |{dim:#}")?;
        writeln!(out, "{dim}{gutter} |{dim:#} {shown}")?;
        let carets = "^".repeat(width);
        writeln!(
            out,
            "{dim}{pad} |{dim:#} {}{style}{carets}{style:#}",
            " ".repeat(before)
        )?;
        if let Some(help) = &d.help {
            writeln!(out, "{dim}{pad} ={dim:#} {bold}help{bold:#}: {help}")?;
        }
        if let Some(fix) = &d.fix {
            writeln!(out, "{dim}{pad} ={dim:#} {bold}fix{bold:#}: {}", fix.title)?;
        }
    } else if let Some(help) = &d.help {
        writeln!(out, "  = help: {help}")?;
    }
    writeln!(out)
}
