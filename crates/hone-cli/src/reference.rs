//! The book's two generated pages, `docs/reference/cli.md` (from the clap
//! definitions of [`Cli`]) and `docs/reference/rules.md` (from the rule
//! registry, [`Rule::ALL`], and each rule's doc). Both are checked in, and
//! the test below fails when either differs from what the code generates now,
//! as the app's IPC bindings are checked.

use std::fmt::Write;

use clap::{Arg, ArgAction, Command, CommandFactory};
use hone_core::rules::{FixAvailability, FixSafety, Origin, Rule};

use crate::Cli;

const REFRESH: &str = "HONE_WRITE_REFERENCE=1 cargo test -p hone-cli --bin hone reference";

fn generated_note(source: &str) -> String {
    format!("<!-- Generated from {source}; do not edit. Refresh with `{REFRESH}`. -->\n\n")
}

/// Every command and subcommand with its usage, arguments and options.
fn cli_page() -> String {
    // Whatever terminal runs the test: usage lines as written, unwrapped.
    let mut root = Cli::command().term_width(0);
    root.build();
    let mut out = String::from("# Command-line reference\n\n");
    out += &generated_note("the `hone` command's clap definitions (`crates/hone-cli/src/`)");
    if let Some(about) = root.get_about() {
        writeln!(out, "{}\n", prose(&about.to_string())).unwrap();
    }
    out +=
        "Every command takes `-h` (a summary) or `--help` (everything below) and `-V`/`--version`.";
    if let Some(after) = root.get_after_help() {
        write!(out, " {}", prose(&after.to_string())).unwrap();
    }
    out += "\n\n";

    let commands = commands(&root);
    for command in &commands {
        let name = command.get_bin_name().unwrap_or_default();
        let about = command
            .get_about()
            .map(|a| a.to_string())
            .unwrap_or_default();
        writeln!(out, "- [`{name}`](#{}): {}", anchor(name), prose(&about)).unwrap();
    }
    for command in commands {
        write_command(&mut out, command);
    }
    out
}

/// The visible subcommands of `root`, depth first, without clap's `help`.
fn commands(root: &Command) -> Vec<&Command> {
    let mut all = Vec::new();
    for sub in root.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        all.push(sub);
        all.extend(commands(sub));
    }
    all
}

fn write_command(out: &mut String, command: &Command) {
    let name = command.get_bin_name().unwrap_or_default();
    writeln!(out, "\n## `{name}`\n").unwrap();
    if let Some(about) = command.get_long_about().or(command.get_about()) {
        writeln!(out, "{}\n", sentence(&prose(&about.to_string()))).unwrap();
    }
    let usage = command.clone().render_usage().to_string();
    writeln!(out, "```text\n{}\n```", usage.trim_end()).unwrap();

    // Grouped as `--help` groups them: positionals, options, then each heading.
    let args: Vec<&Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !is_builtin(a))
        .collect();
    let mut groups: Vec<(String, Vec<&Arg>)> = Vec::new();
    for arg in args {
        let heading = match arg.get_help_heading() {
            Some(heading) => heading.to_owned(),
            None if arg.is_positional() => "Arguments".to_owned(),
            None => "Options".to_owned(),
        };
        match groups.iter_mut().find(|(h, _)| *h == heading) {
            Some((_, group)) => group.push(arg),
            None => groups.push((heading, vec![arg])),
        }
    }
    groups.sort_by_key(|(heading, _)| match heading.as_str() {
        "Arguments" => 0,
        "Options" => 1,
        _ => 2,
    });
    for (heading, args) in groups {
        writeln!(out, "\n{}:\n", prose(&heading)).unwrap();
        for arg in args {
            write_arg(out, arg);
        }
    }
    // Laid out for a terminal, as `--help` prints it.
    let after = command.get_after_long_help().or(command.get_after_help());
    if let Some(after) = after {
        writeln!(out, "\n```text\n{}\n```", after.to_string().trim_end()).unwrap();
    }
}

fn is_builtin(arg: &Arg) -> bool {
    matches!(
        arg.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
    )
}

fn write_arg(out: &mut String, arg: &Arg) {
    let takes_value = arg.get_action().takes_values();
    let values = arg
        .get_value_names()
        .map(|names| names.iter().map(|n| format!("<{n}>")).collect::<Vec<_>>())
        .unwrap_or_else(|| vec![format!("<{}>", arg.get_id().as_str().to_uppercase())])
        .join(" ");
    let many = arg
        .get_num_args()
        .is_some_and(|range| range.max_values() > 1)
        || matches!(arg.get_action(), ArgAction::Append);
    let mut spelling = if arg.is_positional() {
        if arg.is_required_set() {
            values
        } else {
            format!("[{}]", values.trim_start_matches('<').trim_end_matches('>'))
        }
    } else {
        let mut names = Vec::new();
        if let Some(short) = arg.get_short() {
            names.push(format!("-{short}"));
        }
        if let Some(long) = arg.get_long() {
            names.push(format!("--{long}"));
        }
        let names = names.join(", ");
        if takes_value {
            format!("{names} {values}")
        } else {
            names
        }
    };
    if many && takes_value {
        spelling += "...";
    }

    let help = arg.get_long_help().or(arg.get_help());
    let help = help
        .map(|h| sentence(&prose(&h.to_string())))
        .unwrap_or_default();
    let mut notes = Vec::new();
    if arg.is_required_set() && !arg.is_positional() {
        notes.push("Required.".to_owned());
    }
    let aliases = arg.get_visible_aliases().unwrap_or_default();
    if !aliases.is_empty() {
        let aliases: Vec<String> = aliases.iter().map(|a| format!("`--{a}`")).collect();
        notes.push(format!("Also {}.", aliases.join(", ")));
    }
    let choices: Vec<_> = arg
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .collect();
    // A flag's possible values are `true` and `false`: nothing to say.
    if takes_value && !choices.is_empty() {
        let names: Vec<String> = choices
            .iter()
            .map(|v| format!("`{}`", v.get_name()))
            .collect();
        notes.push(format!("One of {}.", names.join(", ")));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| format!("`{}`", v.to_string_lossy()))
        .collect();
    if takes_value && !defaults.is_empty() && !arg.is_hide_default_value_set() {
        notes.push(format!("Default: {}.", defaults.join(", ")));
    }
    if let Some(env) = arg.get_env() {
        notes.push(format!("Environment: `{}`.", env.to_string_lossy()));
    }

    write!(out, "- `{spelling}`").unwrap();
    let text: Vec<String> = std::iter::once(help)
        .chain(notes)
        .filter(|t| !t.is_empty())
        .collect();
    if !text.is_empty() {
        write!(out, ": {}", text.join(" ")).unwrap();
    }
    out.push('\n');
    for choice in choices.iter().filter(|c| c.get_help().is_some()) {
        let help = prose(&choice.get_help().unwrap().to_string());
        writeln!(out, "  - `{}`: {help}", choice.get_name()).unwrap();
    }
}

/// Every rule: a table, then each rule's metadata and documentation.
fn rules_page() -> String {
    let mut out = String::from("# Rule reference\n\n");
    out +=
        &generated_note("the rule registry (`hone_core::rules::Rule`) and each rule's doc comment");
    writeln!(
        out,
        "Hone's {} rules, in code order. `hone rule` lists them, `hone rule CODE` prints one rule's \
         documentation (the same text as below) and `hone rule --json` their metadata. Codes never change \
         meaning once published: `HS0xx` the file and its frontmatter as YAML, `HS1xx` `name`, `HS2xx` \
         `description` and routing, `HS3xx` the other fields, `HS4xx` the body and the files beside it, \
         `HS5xx` the library as a whole, `HP0xx` the files a pack leaves out. Every rule also runs for the \
         target `all`. A *safe* fix changes how the text is written, not what a reader takes from it; an \
         *unsafe* one may change meaning, so it is offered, never applied unasked.\n",
        Rule::ALL.len()
    )
    .unwrap();
    out += "| code | name | severity | fix | summary |\n|---|---|---|---|---|\n";
    for &rule in Rule::ALL {
        writeln!(
            out,
            "| [{}](#{}) | `{}` | {} | {} | {} |",
            rule.code(),
            anchor(&format!("{} {}", rule.code(), rule.name())),
            rule.name(),
            rule.severity().as_str(),
            fix(rule.fix()),
            rule.summary().replace('|', "\\|")
        )
        .unwrap();
    }
    for &rule in Rule::ALL {
        writeln!(out, "\n## {} `{}`\n", rule.code(), rule.name()).unwrap();
        writeln!(out, "{}.\n", capitalized(rule.summary())).unwrap();
        let targets: Vec<&str> = rule.targets().iter().map(|t| t.as_str()).collect();
        let origin = match rule.origin() {
            Origin::Check => "`hone check`",
            Origin::Pack => "a pack's export (`hone pack`)",
        };
        writeln!(
            out,
            "Severity: {} · Targets: {} · Fix: {} · Reported by {origin}\n",
            rule.severity().as_str(),
            targets.join(", "),
            fix(rule.fix())
        )
        .unwrap();
        writeln!(out, "{}", rule.doc().trim_end()).unwrap();
    }
    out
}

fn fix(fix: FixAvailability) -> &'static str {
    match fix {
        FixAvailability::None => "none",
        FixAvailability::Sometimes(FixSafety::Safe) => "sometimes, safe",
        FixAvailability::Sometimes(FixSafety::Unsafe) => "sometimes, unsafe",
        FixAvailability::Always(FixSafety::Safe) => "always, safe",
        FixAvailability::Always(FixSafety::Unsafe) => "always, unsafe",
    }
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// `text` ending as a sentence: clap drops a one-sentence doc comment's full stop.
fn sentence(text: &str) -> String {
    match text.trim_end().chars().last() {
        Some('.' | '!' | '?' | ':' | ']' | ')') | None => text.to_owned(),
        Some(_) => format!("{}.", text.trim_end()),
    }
}

/// A heading's anchor as mdBook and GitHub make it (for the headings written here).
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// Help text as markdown: code spans kept as written; outside them, the
/// characters markdown would read as markup (an `<…>` as an HTML tag, `*` as
/// emphasis) escaped.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => in_code = !in_code,
            '\\' | '*' | '<' | '>' | '~' if !in_code => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The checked-in pages are what the code generates now.
    #[test]
    fn reference_pages_are_up_to_date() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference");
        let mut stale = Vec::new();
        for (name, fresh) in [("cli.md", cli_page()), ("rules.md", rules_page())] {
            let path = dir.join(name);
            if std::env::var_os("HONE_WRITE_REFERENCE").is_some() {
                std::fs::write(&path, &fresh).unwrap();
            }
            if std::fs::read_to_string(&path).unwrap_or_default() != fresh {
                stale.push(format!("docs/reference/{name}"));
            }
        }
        assert!(
            stale.is_empty(),
            "{} stale: refresh with `{REFRESH}` and commit",
            stale.join(" and ") + if stale.len() == 1 { " is" } else { " are" }
        );
    }
}
