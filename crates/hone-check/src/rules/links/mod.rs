//! `HS403`–`HS406`: the files beside `SKILL.md`. A skill discloses detail in
//! stages: the body links to reference files, scripts and assets, which an
//! agent opens only when it needs them. The links must lead somewhere, stay
//! inside the skill folder (the unit that is packed and installed), and stay
//! one level deep; files nothing points to are dead weight.
//!
//! Only the markdown files `SKILL.md` links to are read (for their own
//! links), and only in a skill with a resource the body does not link, so
//! the cost is a few small reads per such skill. One loop over
//! `SKILL.md`'s links here reports HS403 and HS404 and reads the files that
//! HS405 and HS406, each checked in its own module, look into.

pub(crate) mod broken_link;
pub(crate) mod link_outside_skill;
pub(crate) mod nested_reference;
pub(crate) mod unreferenced_resource;

use rustc_hash::FxHashSet;

use super::{Checker, Rule};

pub(super) fn check(checker: &mut Checker) {
    let skill = checker.skill;
    let resources: FxHashSet<&str> = skill.resources.iter().map(|r| r.path.as_str()).collect();
    let exists = |path: &str| {
        resources.contains(path)
            || resources.iter().any(|r| {
                r.len() > path.len() && r.starts_with(path) && r.as_bytes()[path.len()] == b'/'
            })
            || skill.dir.join(path).exists()
    };
    let linked: FxHashSet<&str> = skill
        .links
        .iter()
        .filter_map(|l| l.resolved.as_deref())
        .collect();
    // HS405 and HS406 look into the linked files only for resources the body
    // does not link: where it links every one, neither can report, and
    // nothing is read.
    let wants_text = (checker.enabled(Rule::NestedReference)
        || checker.enabled(Rule::UnreferencedResource))
        && resources.iter().any(|r| !linked.contains(r));
    // The markdown files read, each once however often the body links it.
    let mut read_paths: Vec<&str> = Vec::new();
    let mut read_texts: Vec<String> = Vec::new();
    for link in &skill.links {
        let Some(path) = link.resolved.as_deref() else {
            checker
                .report(
                    Rule::LinkOutsideSkill,
                    link.span.clone(),
                    format!("`{}` points outside the skill folder", link.target),
                )
                .help(
                    "only the skill folder is installed or packed; copy the file in, or link a URL",
                );
            continue;
        };
        if path.is_empty() {
            continue;
        }
        if !exists(path) {
            let what = if link.is_image { "image" } else { "link" };
            checker
                .report(
                    Rule::BrokenLink,
                    link.span.clone(),
                    format!("the {what} target `{path}` does not exist"),
                )
                .help("fix the path (relative to the skill folder) or add the file");
            continue;
        }
        if wants_text && is_markdown(path) && resources.contains(path) {
            let read = match read_paths.iter().position(|&p| p == path) {
                Some(read) => read,
                None => {
                    let Ok(text) = std::fs::read_to_string(skill.dir.join(path)) else {
                        continue;
                    };
                    read_paths.push(path);
                    read_texts.push(text);
                    read_texts.len() - 1
                }
            };
            nested_reference::check(checker, link, path, &read_texts[read], &linked, &resources);
        }
    }
    if checker.enabled(Rule::UnreferencedResource) {
        unreferenced_resource::check(checker, &read_texts, &linked);
    }
}

fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".mdx")
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

    #[test]
    fn broken_links() {
        let found = findings_with_files(
            Rule::BrokenLink,
            "See [a](references/a.md) and ![i](assets/missing.png).\n",
            &[("references/a.md", "A")],
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("assets/missing.png"));
        assert!(
            findings_with_files(
                Rule::BrokenLink,
                "See [dir](references/) and [a](references/a%20b.md#top).\n",
                &[("references/a b.md", "A")]
            )
            .is_empty()
        );
    }

    #[test]
    fn links_outside_the_skill() {
        assert_eq!(
            findings_with_files(
                Rule::LinkOutsideSkill,
                "See [style](../shared/style.md).\n",
                &[]
            )
            .len(),
            1
        );
        assert!(
            findings_with_files(
                Rule::LinkOutsideSkill,
                "See [site](https://example.com/a.md).\n",
                &[]
            )
            .is_empty()
        );
    }
}
