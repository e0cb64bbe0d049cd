//! HS405 `nested-reference`: its documentation, check and tests.

use rustc_hash::FxHashSet;

use crate::links::{Link, normalize};
use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// The spec and Anthropic's authoring guide ask to keep references one level
    /// deep: `SKILL.md` links to every file an agent may need. When
    /// `references/a.md` sends the agent on to `references/b.md`, agents often
    /// preview `a.md` partially and never reach `b.md`.
    ///
    /// ```text
    /// SKILL.md -> references/api.md -> references/errors.md   # HS405 at the link to api.md
    /// ```
    ///
    /// Link `references/errors.md` from `SKILL.md` too, or merge the files.
}

/// Reports the local files `text` (the file at `path`) links to that `SKILL.md` does not.
pub(super) fn check(
    checker: &mut Checker,
    link: &Link,
    path: &str,
    text: &str,
    linked: &FxHashSet<&str>,
    resources: &FxHashSet<&str>,
) {
    if !checker.enabled(Rule::NestedReference) {
        return;
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut onward: Vec<String> = Vec::new();
    for target in link_targets(text) {
        let joined = if dir.is_empty() {
            target.to_owned()
        } else {
            format!("{dir}/{target}")
        };
        let Some(resolved) = normalize(&joined) else {
            continue;
        };
        if resolved != path
            && resources.contains(resolved.as_str())
            && !linked.contains(resolved.as_str())
            && !onward.contains(&resolved)
        {
            onward.push(resolved);
        }
    }
    let Some(first) = onward.first() else { return };
    let more = match onward.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    checker
        .report(
            Rule::NestedReference,
            link.span.clone(),
            format!("`{path}` links on to `{first}`{more}, which SKILL.md does not link"),
        )
        .help("link every file an agent may need directly from SKILL.md (one level deep)");
}

/// Relative link destinations of markdown `text`: `](dest)` forms, without
/// anchors, queries or titles. A cheap scan, not a markdown parse: these files
/// are only searched for onward links.
fn link_targets(text: &str) -> impl Iterator<Item = &str> {
    memchr::memmem::find_iter(text.as_bytes(), b"](").filter_map(move |at| {
        let rest = &text[at + 2..];
        let rest = rest.strip_prefix('<').unwrap_or(rest);
        let end = rest
            .find([')', '>', ' ', '\n', '#', '?'])
            .unwrap_or(rest.len());
        let dest = &rest[..end];
        let external = dest.is_empty()
            || dest.contains("://")
            || dest.starts_with(['/', '\\'])
            || dest.starts_with("mailto:");
        (!external).then_some(dest)
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn nested_references() {
        let files = [
            ("references/a.md", "Read [b](b.md) next.\n"),
            ("references/b.md", "B\n"),
        ];
        let found =
            findings_with_files(Rule::NestedReference, "See [a](references/a.md).\n", &files);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("`references/b.md`"),
            "{:?}",
            found[0]
        );
        assert!(
            findings_with_files(
                Rule::NestedReference,
                "See [a](references/a.md) and [b](references/b.md).\n",
                &files
            )
            .is_empty()
        );
    }

    #[test]
    fn a_file_linked_twice_is_reported_at_each_link() {
        let files = [
            ("references/a.md", "Read [b](b.md) next.\n"),
            ("references/b.md", "B\n"),
        ];
        let body = "See [a](references/a.md).\n\nAgain, [a](references/a.md).\n";
        let found = findings_with_files(Rule::NestedReference, body, &files);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_ne!(found[0].span, found[1].span);
    }
}
