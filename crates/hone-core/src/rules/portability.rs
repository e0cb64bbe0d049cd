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
YAML frontmatter", and Claude Code before 2.1.239 silently ignored the skill
(CHANGELOG 2.1.239: "Fixed agents, skills, and commands whose `.md` file
starts with a UTF-8 BOM being silently ignored"). Hone accepts the mark; the
fix removes it.

**The issue asked for `info`; Hone keeps `warning`:** the reference
validator still rejects such a file, and Claude Code versions before
2.1.239 (August 2026) drop it without a word."#,
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

pub static BLOCK_SCALAR: RuleInfo = RuleInfo {
    code: "HS012",
    name: "block-scalar-description",
    severity: Severity::Warning,
    summary: "`description` is a block scalar (`>-`, `|`), which some clients read as the indicator",
    doc: r#"A folded (`>`) or literal (`|`) block scalar is valid YAML, and Claude Code,
skills-ref and every YAML parser read it as the text below it. Clients that
read the frontmatter line by line instead take the rest of the
`description:` line, so the description becomes `>-` or `|`: reported for
context-labs/whip (PR #107), oguzbilgic/kern-ai (#318) and QwenLM/qwen-code
(#4869). Such a skill is listed with a two-character description and never
chosen.

```yaml
description: >-                     # HS012
  Reads PDFs. Use when the user sends a PDF.
description: "Reads PDFs. Use when the user sends a PDF."   # fixed
```

Checked for `description` and `when_to_use`. The fix writes the value as
one double-quoted line (line breaks of a literal block kept as `\n`)."#,
    targets: EVERY,
    fixable: true,
};

pub static YAML_TAG: RuleInfo = RuleInfo {
    code: "HS013",
    name: "yaml-tag",
    severity: Severity::Warning,
    summary: "an explicit YAML tag (`!!python/…`, `!!binary`, `!local`) that safe loaders refuse or read as non-text",
    doc: r#"YAML lets a value carry a tag naming its type. Loaders meant for untrusted
files refuse the language-specific ones: PyYAML's `safe_load` (used by
skill-creator's scripts and most Python agents) raises "could not determine a
constructor" for `!!python/object`, `!!python/name:…` and local tags such as
`!secret`, strictyaml (skills-ref) rejects tags altogether, and `js-yaml`'s
default schema has no Python types. `!!binary` loads, but as bytes, not the
text an agent expects. Hone reads the value as its untagged text.

```yaml
description: !!python/str Reads PDFs.   # HS013
description: Reads PDFs.                # fixed
```

The core schema's own tags (`!!str`, `!!int`, `!!bool`, `!!float`, `!!null`,
`!!map`, `!!seq`) are safe and not reported. No fix is offered: what the tag
was meant to do is the author's call."#,
    targets: EVERY,
    fixable: false,
};

pub static UNQUOTED_COLON: RuleInfo = RuleInfo {
    code: "HS014",
    name: "unquoted-colon",
    severity: Severity::Warning,
    summary: "`: ` inside an unquoted value: Claude Code re-quotes and loads it, strict parsers reject the file",
    doc: r#"A plain (unquoted) value may not contain `: `: every YAML parser (Hone's,
PyYAML, js-yaml, strictyaml) stops with "mapping values are not allowed
here", and for the spec, the upload and Copilot that is HS003, an error.
Claude Code instead retries with such values quoted and loads the skill
(CHANGELOG: "Fixed skill descriptions with colons (e.g., "Triggers include:
X, Y, Z") failing to load"), as the agentskills.io client guide recommends
(`docs/client-implementation/adding-skills-support.mdx`, "Handling malformed
YAML": "Consider a fallback that wraps such values in quotes"). So for
`claude-code` the finding is this warning: the skill works there and fails
in any client without the fallback (neo4j-contrib/neo4j-skills #44).

```yaml
description: Reads PDFs. Use when: the user sends one       # HS014 (claude-code), HS003 (others)
description: "Reads PDFs. Use when: the user sends one"     # fixed
```

The fix quotes the whole value, folding a multi-line value into one line.
Only for `claude-code`."#,
    targets: &[Target::ClaudeCode],
    fixable: true,
};

/// Tags of the YAML core schema, which every loader resolves.
const CORE_TAGS: &[&str] = &[
    "!!str", "!!int", "!!bool", "!!float", "!!null", "!!map", "!!seq",
];

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
    block_scalars(checker);
    if checker.enabled(&YAML_TAG) {
        tags(checker, root);
    }
}

/// `description` / `when_to_use` written as block scalars.
fn block_scalars(checker: &mut Checker) {
    if !checker.enabled(&BLOCK_SCALAR) {
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
                &BLOCK_SCALAR,
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
                &YAML_TAG,
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
    use super::Target;

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

    /// context-labs/whip PR #107, oguzbilgic/kern-ai #318, QwenLM/qwen-code
    /// #4869: line-based readers take `>-` as the description.
    #[test]
    fn block_scalar_descriptions_become_one_quoted_line() {
        let text = "---\nname: my-skill\ndescription: >-\n  Reads PDFs.\n  Use when asked.\n---\n";
        let d = fires("HS012", text);
        assert!(d.message.contains("`>-`"), "{d:?}");
        let out = fixed("HS012", text);
        assert!(
            out.contains("description: \"Reads PDFs. Use when asked.\"\n---"),
            "{out}"
        );
        let literal = "---\nname: my-skill\ndescription: |\n  Line one.\n  Line two.\n---\n";
        assert!(fixed("HS012", literal).contains("\"Line one.\\nLine two.\""));
        quiet("HS012", &skill_md("", ""));
    }

    /// PyYAML `safe_load` refuses python tags ("could not determine a
    /// constructor"); strictyaml refuses tags.
    #[test]
    fn yaml_tags_outside_the_core_schema() {
        let d = fires("HS013", &skill_md("metadata:\n  data: !!binary aGk=\n", ""));
        assert!(d.message.contains("bytes"), "{d:?}");
        let d = fires("HS013", &skill_md("license: !!python/str MIT\n", ""));
        assert!(d.message.contains("safe_load"), "{d:?}");
        quiet("HS013", &skill_md("license: !!str MIT\n", ""));
    }

    /// Claude Code re-quotes a value holding `: ` and loads the skill
    /// (CHANGELOG "Fixed skill descriptions with colons"); the agentskills.io
    /// client guide recommends the same fallback; every strict parser fails.
    #[test]
    fn unquoted_colon_is_a_warning_for_claude_code_and_an_error_elsewhere() {
        let text =
            "---\nname: my-skill\ndescription: Reads PDFs. Use when: the user sends one\n---\n";
        let claude = findings_for("HS014", text, Target::ClaudeCode);
        assert_eq!(claude.len(), 1);
        let out = claude[0].fix.as_ref().unwrap().apply(text).unwrap();
        assert!(
            out.contains("description: \"Reads PDFs. Use when: the user sends one\"\n"),
            "{out}"
        );
        assert!(findings_for("HS003", text, Target::ClaudeCode).is_empty());
        assert_eq!(findings_for("HS003", text, Target::Agentskills).len(), 1);
        assert!(findings_for("HS014", text, Target::Agentskills).is_empty());
        let multi =
            "---\nname: my-skill\ndescription: Reads PDFs.\n  Use when: the user sends one\n---\n";
        assert_eq!(findings_for("HS014", multi, Target::ClaudeCode).len(), 1);
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
