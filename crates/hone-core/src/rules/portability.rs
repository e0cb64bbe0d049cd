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
//! | `: ` in a multi-line plain value | error | ok | error | error |
//! | tag `!!python/…` | refused by `safe_load` | unresolved | refused | refused |
//!
//! Some clients do not use a YAML parser at all and read `description:` line
//! by line; a block scalar (`>-`, `|`) is the construct they miss.

use super::yaml_text::double_quoted;
use super::{Checker, Rule};
use crate::diagnostic::Edit;
use crate::yaml::{Node, Value};

/// Tags of the YAML core schema, which every loader resolves.
const CORE_TAGS: &[&str] = &[
    "!!str", "!!int", "!!bool", "!!float", "!!null", "!!map", "!!seq",
];

pub(super) fn check(checker: &mut Checker) {
    let doc = &checker.skill.doc;
    if doc.has_bom {
        checker
            .report(
                Rule::ByteOrderMark,
                0..3,
                "the file starts with a byte-order mark",
            )
            .help("loaders that check for a leading `---` miss the frontmatter; save without BOM")
            .fix("Remove the byte-order mark", 0..3, String::new());
    }
    let Some((yaml, base)) = doc.yaml_text() else {
        return;
    };
    if doc.has_crlf && checker.enabled(Rule::CrlfLineEndings) {
        crlf(checker, yaml, base);
    }
    if checker.enabled(Rule::DashesInFrontmatter)
        && let Some(i) = memchr::memmem::find(yaml.as_bytes(), b"---")
    {
        let at = base + i;
        checker
            .report(
                Rule::DashesInFrontmatter,
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
    if checker.enabled(Rule::FlowCollection) {
        flow_collections(checker, root);
    }
    comments(checker);
    block_scalars(checker);
    if checker.enabled(Rule::YamlTag) {
        tags(checker, root);
    }
}

/// `description` / `when_to_use` written as block scalars.
fn block_scalars(checker: &mut Checker) {
    if !checker.enabled(Rule::BlockScalar) {
        return;
    }
    for key in ["description", "when_to_use"] {
        let Some((name, value)) = checker.entry(key) else {
            continue;
        };
        let Some(text) = value.as_str().filter(|_| value.block) else {
            continue;
        };
        // The node starts at its content; the indicator follows the key's `:`.
        let source = checker.text();
        let after_key = &source[name.span.end..value.span.start];
        let Some(offset) = after_key.find(':').and_then(|colon| {
            after_key[colon + 1..]
                .find(['|', '>'])
                .map(|i| colon + 1 + i)
        }) else {
            continue;
        };
        let start = name.span.end + offset;
        let indicator: String = source[start..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        let end = value.span.start + source[value.span.clone()].trim_end().len();
        let range = start..end.max(start + indicator.len());
        let quoted = double_quoted(text.trim_end_matches('\n'));
        checker
            .report(
                Rule::BlockScalar,
                range.clone(),
                format!("`{key}` is a block scalar (`{indicator}`); clients that read the line as text see only `{indicator}`"),
            )
            .help("context-labs/whip, oguzbilgic/kern-ai and QwenLM/qwen-code read the indicator as the value; write it as one quoted line")
            .fix(format!("Write `{key}` as one quoted line"), range, quoted);
    }
}

/// Explicit tags outside the core schema, anywhere in the tree.
fn tags(checker: &mut Checker, node: &Node) {
    if let Some(tag) = node.tag.as_deref().filter(|t| !CORE_TAGS.contains(t)) {
        let who = if tag.starts_with("!!binary") {
            "loads as bytes, not text, in PyYAML and the `yaml` npm package"
        } else if tag.starts_with("!!python/") {
            "is refused by PyYAML's `safe_load`, js-yaml and strictyaml (skills-ref)"
        } else {
            "is refused by PyYAML's `safe_load` and strictyaml (skills-ref), and left unresolved by the `yaml` npm package"
        };
        let at = node.span.start;
        checker
            .report(
                Rule::YamlTag,
                at..node.span.end,
                format!("the YAML tag `{tag}` {who}"),
            )
            .help("remove the tag; frontmatter values are plain text, lists and mappings");
    }
    match &node.value {
        Value::Map(entries) => {
            for (key, value) in entries {
                tags(checker, key);
                tags(checker, value);
            }
        }
        Value::Seq(items) => items.iter().for_each(|item| tags(checker, item)),
        _ => {}
    }
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
        .report(Rule::CrlfLineEndings, at..at + 2, "the frontmatter has CRLF line endings")
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
                            Rule::DuplicateKey,
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
                .report(Rule::FlowCollection, node.span.clone(), message)
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
    if !checker.enabled(Rule::CommentTruncatesValue) {
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
                Rule::CommentTruncatesValue,
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
    use crate::rules::Target;

    #[test]
    fn byte_order_mark() {
        let text = format!("\u{feff}{}", skill_md("", ""));
        assert!(!fixed(Rule::ByteOrderMark, &text).starts_with('\u{feff}'));
        quiet(Rule::ByteOrderMark, &skill_md("", ""));
    }

    #[test]
    fn duplicate_keys() {
        let text = skill_md("license: MIT\nlicense: Apache-2.0\n", "");
        let d = fires(Rule::DuplicateKey, &text);
        assert_eq!(d.span.start.line, 5);
        quiet(Rule::DuplicateKey, &skill_md("license: MIT\n", ""));
    }

    #[test]
    fn flow_collections_become_blocks() {
        let text = skill_md("allowed-tools: [Read, \"Bash(git *)\"]\n", "");
        let out = fixed(Rule::FlowCollection, &text);
        assert!(
            out.contains("allowed-tools:\n  - Read\n  - \"Bash(git *)\"\n"),
            "{out}"
        );
        let nested = skill_md("metadata:\n  tags: [a, b]\n", "");
        let out = fixed(Rule::FlowCollection, &nested);
        assert!(
            out.contains("metadata:\n  tags:\n    - a\n    - b\n"),
            "{out}"
        );
        quiet(
            Rule::FlowCollection,
            &skill_md("allowed-tools: Read Grep\n", ""),
        );
    }

    #[test]
    fn flow_collections_are_only_an_agentskills_finding() {
        let text = skill_md("allowed-tools: [Read]\n", "");
        assert!(findings_for(Rule::FlowCollection, &text, Target::ClaudeCode).is_empty());
        assert_eq!(
            findings_for(Rule::FlowCollection, &text, Target::Agentskills).len(),
            1
        );
    }

    #[test]
    fn dashes_inside_the_frontmatter() {
        fires(
            Rule::DashesInFrontmatter,
            &skill_md("license: MIT---ish\n", ""),
        );
        quiet(Rule::DashesInFrontmatter, &skill_md("", "---\n"));
    }

    #[test]
    fn crlf_line_endings() {
        let text = skill_md("", "body\n").replace('\n', "\r\n");
        assert!(!fixed(Rule::CrlfLineEndings, &text).contains('\r'));
        quiet(Rule::CrlfLineEndings, &skill_md("", ""));
    }

    /// context-labs/whip PR #107, oguzbilgic/kern-ai #318, QwenLM/qwen-code
    /// #4869: line-based readers take `>-` as the description.
    #[test]
    fn block_scalar_descriptions_become_one_quoted_line() {
        let text = "---\nname: my-skill\ndescription: >-\n  Reads PDFs.\n  Use when asked.\n---\n";
        let d = fires(Rule::BlockScalar, text);
        assert!(d.message.contains("`>-`"), "{d:?}");
        let out = fixed(Rule::BlockScalar, text);
        assert!(
            out.contains("description: \"Reads PDFs. Use when asked.\"\n---"),
            "{out}"
        );
        let literal = "---\nname: my-skill\ndescription: |\n  Line one.\n  Line two.\n---\n";
        assert!(fixed(Rule::BlockScalar, literal).contains("\"Line one.\\nLine two.\""));
        quiet(Rule::BlockScalar, &skill_md("", ""));
    }

    /// PyYAML `safe_load` refuses python tags ("could not determine a
    /// constructor"); strictyaml refuses tags.
    #[test]
    fn yaml_tags_outside_the_core_schema() {
        let d = fires(
            Rule::YamlTag,
            &skill_md("metadata:\n  data: !!binary aGk=\n", ""),
        );
        assert!(d.message.contains("bytes"), "{d:?}");
        let d = fires(Rule::YamlTag, &skill_md("license: !!python/str MIT\n", ""));
        assert!(d.message.contains("safe_load"), "{d:?}");
        quiet(Rule::YamlTag, &skill_md("license: !!str MIT\n", ""));
    }

    /// Claude Code re-quotes a value holding `: ` and loads the skill
    /// (CHANGELOG "Fixed skill descriptions with colons"); the agentskills.io
    /// client guide recommends the same fallback; every strict parser fails.
    #[test]
    fn unquoted_colon_is_a_warning_for_claude_code_and_an_error_elsewhere() {
        let text =
            "---\nname: my-skill\ndescription: Reads PDFs. Use when: the user sends one\n---\n";
        let claude = findings_for(Rule::UnquotedColon, text, Target::ClaudeCode);
        assert_eq!(claude.len(), 1);
        let out = claude[0].fix.as_ref().unwrap().apply(text).unwrap();
        assert!(
            out.contains("description: \"Reads PDFs. Use when: the user sends one\"\n"),
            "{out}"
        );
        assert!(findings_for(Rule::InvalidYaml, text, Target::ClaudeCode).is_empty());
        assert_eq!(
            findings_for(Rule::InvalidYaml, text, Target::Agentskills).len(),
            1
        );
        assert!(findings_for(Rule::UnquotedColon, text, Target::Agentskills).is_empty());
        let multi =
            "---\nname: my-skill\ndescription: Reads PDFs.\n  Use when: the user sends one\n---\n";
        assert_eq!(
            findings_for(Rule::UnquotedColon, multi, Target::ClaudeCode).len(),
            1
        );
    }

    #[test]
    fn comment_truncates_a_description() {
        let text =
            "---\nname: my-skill\ndescription: Formats C# code. Use when asked #csharp\n---\n";
        let out = fixed(Rule::CommentTruncatesValue, text);
        assert!(
            out.contains("description: \"Formats C# code. Use when asked #csharp\"\n"),
            "{out}"
        );
        quiet(Rule::CommentTruncatesValue, &skill_md("", ""));
        quiet(
            Rule::CommentTruncatesValue,
            "---\nname: my-skill\ndescription: Formats C# code. Use when asked.\n---\n",
        );
    }
}
