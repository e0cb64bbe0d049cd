//! `HS006`–`HS011`: frontmatter that Hone reads but that some agent or tool
//! reads differently or drops. Each finding names the construct and who
//! stumbles on it, because "valid YAML" depends on the parser:
//!
//! | construct | PyYAML | `yaml` (npm) | js-yaml | strictyaml (skills-ref) |
//! |---|---|---|---|---|
//! | duplicate key | last wins | error | error | error |
//! | flow `[a, b]` / `{k: v}` | ok | ok | ok | error |
//! | `---` inside a value | ok | ok | ok | cut there (skills-ref splits on it) |
//! | CRLF, loader cuts at `\n---` | ok | error after a quoted value | ok | ok |

use super::yaml_text::double_quoted;
use super::{Checker, EVERY, RuleInfo, Target};
use crate::diagnostic::{Edit, Severity};
use crate::yaml::{Node, Value};

pub static BYTE_ORDER_MARK: RuleInfo = RuleInfo {
    code: "HS006",
    name: "byte-order-mark",
    severity: Severity::Warning,
    summary: "SKILL.md starts with a UTF-8 byte-order mark",
    doc: r#"A byte-order mark (U+FEFF, bytes `EF BB BF`) is invisible in most editors but
is the file's first character. Loaders that test "does the file start with
`---`?" then find no frontmatter: skills-ref 0.1.1 reports "must start with
YAML frontmatter". Hone accepts the mark; the fix removes it."#,
    targets: EVERY,
    fixable: true,
};

pub static DUPLICATE_KEY: RuleInfo = RuleInfo {
    code: "HS007",
    name: "duplicate-key",
    severity: Severity::Warning,
    summary: "a key appears twice in the same mapping",
    doc: r#"YAML requires keys to be unique, but parsers differ on what to do when they
are not: PyYAML silently keeps the *last* value, while the `yaml` and
`js-yaml` npm packages and strictyaml (skills-ref) reject the whole file. So
one agent loads the skill with the second value and another drops it.

```yaml
description: Reads PDFs.
description: Reads and fills PDFs.   # HS007: remove one
```

No fix is offered: only the author knows which value is meant."#,
    targets: EVERY,
    fixable: false,
};

pub static FLOW_COLLECTION: RuleInfo = RuleInfo {
    code: "HS008",
    name: "flow-collection",
    severity: Severity::Warning,
    summary: "a flow collection (`[a, b]` or `{k: v}`) that the reference validator rejects",
    doc: r#"The spec's reference validator, skills-ref, parses frontmatter with
strictyaml, which refuses flow style ("Found ugly disallowed JSONesque flow
mapping"). Every other parser accepts it, so agents load the skill, but
`skills-ref validate` fails it. This is the whole of the disagreement between
Hone and skills-ref on the corpus: skills-ref rejects 146 skills as invalid
YAML, all for flow collections, mostly `tags: [a, b]` and
`allowed-tools: [Read, Write]`; Hone reports them here, as warnings.

```yaml
allowed-tools: [Read, Grep]   # HS008
allowed-tools:                # fixed
  - Read
  - Grep
```

The fix rewrites a one-line flow list or mapping of plain values as a block;
nested or empty ones are left to the author. Only for `agentskills`."#,
    targets: &[Target::Agentskills],
    fixable: true,
};

pub static DASHES_IN_FRONTMATTER: RuleInfo = RuleInfo {
    code: "HS009",
    name: "dashes-in-frontmatter",
    severity: Severity::Warning,
    summary: "`---` inside the frontmatter, where skills-ref cuts it short",
    doc: r#"The frontmatter ends at a *line* `---`. skills-ref 0.1.1 instead splits the
file at the first `---` anywhere, so a value such as
`description: Pre---and post-processing` ends its frontmatter mid-value and
the rest is lost or invalid. Quoting does not help; write an en or em dash
(`–`, `—`) or a single hyphen. Only for `agentskills`."#,
    targets: &[Target::Agentskills],
    fixable: false,
};

pub static CRLF_LINE_ENDINGS: RuleInfo = RuleInfo {
    code: "HS010",
    name: "crlf-line-endings",
    severity: Severity::Info,
    summary: "the frontmatter has Windows (CRLF) line endings",
    doc: r#"Hone, PyYAML and js-yaml read CRLF files fine. But a loader that cuts the
frontmatter with a pattern such as `\n---` leaves a `\r` at the end of the
YAML text, and the `yaml` npm package then rejects a quoted last value
("Unexpected scalar at node end") and keeps the `\r` in a plain one
(`name: pdf\r`). Two corpus skills (`ui-ux-pro-max`) fail that way. The fix
converts the file to LF line endings."#,
    targets: EVERY,
    fixable: true,
};

pub static COMMENT_TRUNCATES_VALUE: RuleInfo = RuleInfo {
    code: "HS011",
    name: "comment-truncates-value",
    severity: Severity::Warning,
    summary: "` #` in an unquoted description starts a comment and cuts the value",
    doc: r#"In a plain (unquoted) YAML value, a `#` after a space starts a comment: every
parser silently drops the rest of the line.

```yaml
description: Formats C# and F# code #csharp #fsharp   # HS011: value is "Formats C# and F# code"
description: "Formats C# and F# code #csharp #fsharp" # fixed
```

`C#` alone is fine (no space before `#`). Checked for `description` and
`when_to_use`, where a comment is almost never meant. The fix quotes the
value including the cut text."#,
    targets: EVERY,
    fixable: true,
};

pub(super) fn check(checker: &mut Checker) {
    let doc = &checker.skill.doc;
    if doc.has_bom {
        checker
            .report(
                &BYTE_ORDER_MARK,
                0..3,
                "the file starts with a byte-order mark",
            )
            .help("loaders that check for a leading `---` miss the frontmatter; save without BOM")
            .fix("Remove the byte-order mark", 0..3, String::new());
    }
    let Some((yaml, base)) = doc.yaml_text() else {
        return;
    };
    if doc.has_crlf && checker.enabled(&CRLF_LINE_ENDINGS) {
        crlf(checker, yaml, base);
    }
    if checker.enabled(&DASHES_IN_FRONTMATTER)
        && let Some(i) = memchr::memmem::find(yaml.as_bytes(), b"---")
    {
        let at = base + i;
        checker
            .report(
                &DASHES_IN_FRONTMATTER,
                at..at + 3,
                "`---` inside the frontmatter",
            )
            .help(
                "skills-ref splits the file at the first `---` anywhere; write `—` or `-` instead",
            );
    }
    let Some(root) = checker.skill.yaml_root() else {
        return;
    };
    duplicates(checker, root);
    if checker.enabled(&FLOW_COLLECTION) {
        flow_collections(checker, root);
    }
    comments(checker);
}

fn crlf(checker: &mut Checker, yaml: &str, base: usize) {
    let Some(i) = memchr::memmem::find(yaml.as_bytes(), b"\r\n") else {
        return;
    };
    let text = checker.text();
    let edits = memchr::memmem::find_iter(text.as_bytes(), b"\r\n")
        .map(|at| Edit {
            start: at,
            end: at + 1,
            replacement: String::new(),
        })
        .collect();
    let at = base + i;
    checker
        .report(&CRLF_LINE_ENDINGS, at..at + 2, "the frontmatter has CRLF line endings")
        .help("some loaders leave a `\\r` in the YAML, which the `yaml` npm parser rejects; save with LF endings")
        .fix_edits("Convert line endings to LF", edits);
}

/// Reports repeated keys in every mapping of the tree.
fn duplicates(checker: &mut Checker, node: &Node) {
    match &node.value {
        Value::Map(entries) => {
            for (i, (key, value)) in entries.iter().enumerate() {
                let name = key.key_string();
                if entries[..i].iter().any(|(k, _)| k.key_string() == name) {
                    checker
                        .report(
                            &DUPLICATE_KEY,
                            key.span.clone(),
                            format!("`{name}` appears more than once"),
                        )
                        .help(
                            "PyYAML keeps the last value, other parsers reject the file; keep one",
                        );
                }
                duplicates(checker, value);
            }
        }
        Value::Seq(items) => items.iter().for_each(|item| duplicates(checker, item)),
        _ => {}
    }
}

/// Reports the outermost flow collections, with a fix for one-line flat ones.
fn flow_collections(checker: &mut Checker, root: &Node) {
    let text = checker.text();
    let newline = if checker.skill.doc.has_crlf {
        "\r\n"
    } else {
        "\n"
    };
    let mut stack: Vec<(&Node, Option<&Node>)> = vec![(root, None)];
    while let Some((node, key)) = stack.pop() {
        let (is_seq, children): (bool, Vec<(Option<&Node>, &Node)>) = match &node.value {
            Value::Seq(items) => (true, items.iter().map(|i| (None, i)).collect()),
            Value::Map(entries) => (false, entries.iter().map(|(k, v)| (Some(k), v)).collect()),
            _ => continue,
        };
        if text[node.span.clone()].starts_with(['[', '{']) {
            let kind = if is_seq { "flow list" } else { "flow mapping" };
            let name = key.map(|k| k.key_string()).unwrap_or_default();
            let message = if name.is_empty() {
                format!("a {kind}, which skills-ref rejects")
            } else {
                format!("`{name}` is a {kind}, which skills-ref rejects")
            };
            let fix = key.and_then(|k| block_form(text, k, node, newline));
            let report = checker
                .report(&FLOW_COLLECTION, node.span.clone(), message)
                .help("strictyaml (the reference validator's parser) refuses `[...]` and `{...}`; use one `- item` per line");
            if let Some((range, replacement)) = fix {
                report.fix("Rewrite as a block collection", range, replacement);
            }
            continue;
        }
        stack.extend(children.into_iter().rev().map(|(k, child)| (child, k)));
    }
}

fn column_of(text: &str, offset: usize) -> usize {
    offset - text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// The block form of a one-line flow collection of scalars, replacing the text
/// from the end of its key to its end.
fn block_form(
    text: &str,
    key: &Node,
    node: &Node,
    newline: &str,
) -> Option<(std::ops::Range<usize>, String)> {
    let between = &text[key.span.end..node.span.start];
    if between.trim() != ":" || text[node.span.clone()].contains('\n') {
        return None;
    }
    let pad = " ".repeat(column_of(text, key.span.start) + 2);
    let scalar_text = |n: &Node| -> Option<&str> {
        n.raw.as_ref()?;
        Some(text[n.span.clone()].trim())
    };
    let mut out = String::from(":");
    match &node.value {
        Value::Seq(items) if !items.is_empty() => {
            for item in items {
                out.push_str(&format!("{newline}{pad}- {}", scalar_text(item)?));
            }
        }
        Value::Map(entries) if !entries.is_empty() => {
            for (k, v) in entries {
                out.push_str(&format!(
                    "{newline}{pad}{}: {}",
                    scalar_text(k)?,
                    scalar_text(v)?
                ));
            }
        }
        _ => return None,
    }
    Some((key.span.end..node.span.end, out))
}

/// Plain `description` / `when_to_use` values followed by a comment on their line.
fn comments(checker: &mut Checker) {
    if !checker.enabled(&COMMENT_TRUNCATES_VALUE) {
        return;
    }
    let text = checker.text();
    for key in ["description", "when_to_use"] {
        let Some((_, value)) = checker.entry(key) else {
            continue;
        };
        if !value.plain || value.as_str().is_none() {
            continue;
        }
        let line_end = text[value.span.end..]
            .find(['\n', '\r'])
            .map_or(text.len(), |i| value.span.end + i);
        let rest = &text[value.span.end..line_end];
        if !rest.trim_start().starts_with('#') || text[value.span.clone()].contains('\n') {
            continue;
        }
        let whole = text[value.span.start..line_end].trim_end();
        let range = value.span.start..value.span.start + whole.len();
        checker
            .report(
                &COMMENT_TRUNCATES_VALUE,
                range.clone(),
                format!("` #` ends the `{key}` value: the rest is a comment"),
            )
            .help("YAML drops everything from ` #` on in an unquoted value; quote the value")
            .fix(
                format!("Quote the value of `{key}`"),
                range,
                double_quoted(whole),
            );
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn byte_order_mark() {
        let text = format!("\u{feff}{}", skill_md("", ""));
        assert!(!fixed("HS006", &text).starts_with('\u{feff}'));
        quiet("HS006", &skill_md("", ""));
    }

    #[test]
    fn duplicate_keys() {
        let text = skill_md("license: MIT\nlicense: Apache-2.0\n", "");
        let d = fires("HS007", &text);
        assert_eq!(d.span.start.line, 5);
        quiet("HS007", &skill_md("license: MIT\n", ""));
    }

    #[test]
    fn flow_collections_become_blocks() {
        let text = skill_md("allowed-tools: [Read, \"Bash(git *)\"]\n", "");
        let out = fixed("HS008", &text);
        assert!(
            out.contains("allowed-tools:\n  - Read\n  - \"Bash(git *)\"\n"),
            "{out}"
        );
        let nested = skill_md("metadata:\n  tags: [a, b]\n", "");
        let out = fixed("HS008", &nested);
        assert!(
            out.contains("metadata:\n  tags:\n    - a\n    - b\n"),
            "{out}"
        );
        quiet("HS008", &skill_md("allowed-tools: Read Grep\n", ""));
    }

    #[test]
    fn flow_collections_are_only_an_agentskills_finding() {
        let text = skill_md("allowed-tools: [Read]\n", "");
        assert!(findings_for("HS008", &text, super::Target::ClaudeCode).is_empty());
        assert_eq!(
            findings_for("HS008", &text, super::Target::Agentskills).len(),
            1
        );
    }

    #[test]
    fn dashes_inside_the_frontmatter() {
        fires("HS009", &skill_md("license: MIT---ish\n", ""));
        quiet("HS009", &skill_md("", "---\n"));
    }

    #[test]
    fn crlf_line_endings() {
        let text = skill_md("", "body\n").replace('\n', "\r\n");
        assert!(!fixed("HS010", &text).contains('\r'));
        quiet("HS010", &skill_md("", ""));
    }

    #[test]
    fn comment_truncates_a_description() {
        let text =
            "---\nname: my-skill\ndescription: Formats C# code. Use when asked #csharp\n---\n";
        let out = fixed("HS011", text);
        assert!(
            out.contains("description: \"Formats C# code. Use when asked #csharp\"\n"),
            "{out}"
        );
        quiet("HS011", &skill_md("", ""));
        quiet(
            "HS011",
            "---\nname: my-skill\ndescription: Formats C# code. Use when asked.\n---\n",
        );
    }
}
