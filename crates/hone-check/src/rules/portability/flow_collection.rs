//! HS008 `flow-collection`: its documentation, check and tests.

use crate::rules::{Checker, Rule};
use crate::yaml::{Node, Value};

crate::rules::rule_doc! {
    /// The spec's reference validator, skills-ref, parses frontmatter with
    /// strictyaml, which refuses flow style ("Found ugly disallowed JSONesque flow
    /// mapping"). Every other parser accepts it, so agents load the skill, but
    /// `skills-ref validate` fails it. This is the whole of the disagreement between
    /// Hone and skills-ref on the corpus: skills-ref rejects 146 skills as invalid
    /// YAML, all for flow collections, mostly `tags: [a, b]` and
    /// `allowed-tools: [Read, Write]`; Hone reports them here, as warnings.
    ///
    /// ```yaml
    /// allowed-tools: [Read, Grep]   # HS008
    /// allowed-tools:                # fixed
    ///   - Read
    ///   - Grep
    /// ```
    ///
    /// The fix rewrites a one-line flow list or mapping of plain values as a block;
    /// nested or empty ones are left to the author. Only for `agentskills`.
}

/// Reports the outermost flow collections, with a fix for one-line flat ones.
pub(super) fn check(checker: &mut Checker, root: &Node) {
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

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::testing::*;

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
}
