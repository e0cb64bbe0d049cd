//! `HS403`–`HS406`: the files beside `SKILL.md`. A skill discloses detail in
//! stages: the body links to reference files, scripts and assets, which an
//! agent opens only when it needs them. The links must lead somewhere, stay
//! inside the skill folder (the unit that is packed and installed), and stay
//! one level deep; files nothing points to are dead weight.
//!
//! Only the markdown files `SKILL.md` links to are read (for their own
//! links), so the cost is a few small reads per skill.

use std::collections::{BTreeMap, HashSet};

use super::{Checker, Rule};
use crate::links::{Link, normalize};

pub(super) fn check(checker: &mut Checker) {
    let skill = checker.skill;
    let resources: HashSet<&str> = skill.resources.iter().map(|r| r.path.as_str()).collect();
    let exists = |path: &str| {
        resources.contains(path)
            || resources.iter().any(|r| {
                r.len() > path.len() && r.starts_with(path) && r.as_bytes()[path.len()] == b'/'
            })
            || skill.dir.join(path).exists()
    };
    let linked: HashSet<&str> = skill
        .links
        .iter()
        .filter_map(|l| l.resolved.as_deref())
        .collect();
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
        let wants_text =
            checker.enabled(Rule::NestedReference) || checker.enabled(Rule::UnreferencedResource);
        if wants_text && is_markdown(path) && resources.contains(path) {
            let Ok(text) = std::fs::read_to_string(skill.dir.join(path)) else {
                continue;
            };
            nested(checker, link, path, &text, &linked, &resources);
            read_texts.push(text);
        }
    }
    if checker.enabled(Rule::UnreferencedResource) {
        unreferenced(checker, &read_texts);
    }
}

fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".mdx")
}

/// Reports the local files `text` (the file at `path`) links to that `SKILL.md` does not.
fn nested(
    checker: &mut Checker,
    link: &Link,
    path: &str,
    text: &str,
    linked: &HashSet<&str>,
    resources: &HashSet<&str>,
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

fn is_exempt(path: &str) -> bool {
    if path.split('/').any(|part| part.starts_with('.')) {
        return true;
    }
    let upper = path.to_ascii_uppercase();
    [
        "LICENSE",
        "LICENCE",
        "README",
        "CHANGELOG",
        "NOTICE",
        "COPYING",
    ]
    .iter()
    .any(|name| upper.starts_with(name))
}

/// File names shorter than this (`a.py`) count as mentioned only by their path.
const MIN_MENTIONED_NAME: usize = 4;

fn unreferenced(checker: &mut Checker, read_texts: &[String]) {
    let skill = checker.skill;
    let candidates: Vec<&str> = skill
        .resources
        .iter()
        .map(|r| r.path.as_str())
        .filter(|path| !is_exempt(path))
        .collect();
    if candidates.is_empty() {
        return;
    }
    let mentioned = Mentions::find(skill.body(), read_texts, &candidates);
    // Unreferenced files grouped by their top-level file or folder.
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for path in candidates {
        if mentioned.contains(path)
            || skill
                .links
                .iter()
                .any(|l| l.resolved.as_deref() == Some(path))
        {
            continue;
        }
        let file_name = path.rsplit('/').next().unwrap_or(path);
        if file_name.len() >= MIN_MENTIONED_NAME && mentioned.contains(file_name) {
            continue;
        }
        let in_mentioned_dir = path
            .match_indices('/')
            .any(|(i, _)| mentioned.contains(&path[..=i]) || linked_dir(skill, &path[..i]));
        if in_mentioned_dir {
            continue;
        }
        let top = path.split('/').next().unwrap_or(path);
        groups.entry(top).or_default().push(path);
    }
    for (top, files) in groups {
        let message = if files.len() == 1 && files[0] == top {
            format!("`{top}` is not referenced from SKILL.md or the files it links")
        } else {
            let count = files.len();
            let noun = if count == 1 { "file" } else { "files" };
            format!(
                "`{top}/` holds {count} {noun} nothing references, e.g. `{}`",
                files[0]
            )
        };
        checker
            .report(Rule::UnreferencedResource, 0..0, message)
            .help("link it from SKILL.md where an agent needs it, or delete it");
    }
}

/// Whether the body links to the folder `dir` itself.
/// Which of a skill's resource paths, file names and folder prefixes occur in
/// its texts, found in one pass over each text: a skill may hold thousands of
/// files, and searching the body once per name is quadratic.
struct Mentions<'a>(HashSet<&'a str>);

/// Up to this many names are searched for one by one: a SIMD substring
/// search per name over a skill's few kilobytes of text is cheaper than
/// building an automaton (measured on the corpus, where 52 skills hold more
/// than 16 files and two hold over a thousand).
const FEW_NEEDLES: usize = 96;

impl<'a> Mentions<'a> {
    fn find(body: &str, others: &[String], paths: &[&'a str]) -> Mentions<'a> {
        let mut needles: Vec<&'a str> = Vec::new();
        let mut seen = HashSet::new();
        for path in paths {
            let file_name = path.rsplit('/').next().unwrap_or(path);
            let dirs = path.match_indices('/').map(|(i, _)| &path[..=i]);
            // A mentioned path mentions its file name too, so the path itself is
            // only a needle when the name is too short to count on its own.
            let named = file_name.len() >= MIN_MENTIONED_NAME;
            let own = if named { file_name } else { *path };
            for needle in std::iter::once(own).chain(dirs) {
                if seen.insert(needle) {
                    needles.push(needle);
                }
            }
        }
        let texts = || std::iter::once(body).chain(others.iter().map(String::as_str));
        if needles.len() <= FEW_NEEDLES {
            let found = needles
                .into_iter()
                .filter(|needle| {
                    texts().any(|text| {
                        memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some()
                    })
                })
                .collect();
            return Mentions(found);
        }
        // A DFA searches faster but takes far longer to build than one
        // skill's few kilobytes of text take to scan.
        let automaton = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(&needles);
        let Ok(automaton) = automaton else {
            return Mentions(HashSet::new());
        };
        let mut found = HashSet::new();
        for text in texts() {
            for hit in automaton.find_overlapping_iter(text) {
                found.insert(needles[hit.pattern().as_usize()]);
            }
            if found.len() == needles.len() {
                break;
            }
        }
        Mentions(found)
    }

    fn contains(&self, needle: &str) -> bool {
        self.0.contains(needle)
    }
}

fn linked_dir(skill: &crate::skill::Skill, dir: &str) -> bool {
    skill
        .links
        .iter()
        .any(|l| l.resolved.as_deref() == Some(dir))
}

#[cfg(test)]
mod tests {
    use super::super::Target;
    use super::super::testing::*;

    fn check(rule: Rule, body: &str, files: &[(&str, &str)]) -> Vec<crate::diagnostic::Diagnostic> {
        let (_tmp, skill) = skill_with_files("my-skill", &skill_md("", body), files);
        findings_of(rule, &skill, Target::All)
    }

    #[test]
    fn broken_links() {
        let found = check(
            Rule::BrokenLink,
            "See [a](references/a.md) and ![i](assets/missing.png).\n",
            &[("references/a.md", "A")],
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("assets/missing.png"));
        assert!(
            check(
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
            check(
                Rule::LinkOutsideSkill,
                "See [style](../shared/style.md).\n",
                &[]
            )
            .len(),
            1
        );
        assert!(
            check(
                Rule::LinkOutsideSkill,
                "See [site](https://example.com/a.md).\n",
                &[]
            )
            .is_empty()
        );
    }

    #[test]
    fn nested_references() {
        let files = [
            ("references/a.md", "Read [b](b.md) next.\n"),
            ("references/b.md", "B\n"),
        ];
        let found = check(Rule::NestedReference, "See [a](references/a.md).\n", &files);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("`references/b.md`"),
            "{:?}",
            found[0]
        );
        assert!(
            check(
                Rule::NestedReference,
                "See [a](references/a.md) and [b](references/b.md).\n",
                &files
            )
            .is_empty()
        );
    }

    #[test]
    fn unreferenced_among_many_files() {
        // Past a few names the search runs as one automaton; same answers.
        let mut owned: Vec<(String, &str)> = (0..40)
            .map(|i| (format!("data/part-{i:02}.csv"), ""))
            .collect();
        owned.push(("scripts/a.c".into(), ""));
        owned.push(("scripts/build.sh".into(), ""));
        owned.push(("x.c".into(), ""));
        let files: Vec<(&str, &str)> = owned.iter().map(|(p, c)| (p.as_str(), *c)).collect();
        let body = "Read data/ files, then run `build.sh`; a.c and y.c are helpers.\n";
        let found = check(Rule::UnreferencedResource, body, &files);
        let messages: Vec<_> = found.iter().map(|d| d.message.as_str()).collect();
        // `a.c` and `x.c` are too short to count by name alone.
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].contains("`scripts/` holds 1 file")
                && messages[0].contains("`scripts/a.c`")
        );
        assert!(messages[1].contains("`x.c`"));
        let body = "Read data/, run scripts/a.c, scripts/build.sh and x.c.\n";
        assert!(check(Rule::UnreferencedResource, body, &files).is_empty());
    }

    #[test]
    fn unreferenced_resources() {
        let files = [
            ("scripts/run.py", ""),
            ("assets/one.png", ""),
            ("assets/two.png", ""),
            ("notes.txt", ""),
            ("LICENSE.txt", ""),
        ];
        let found = check(
            Rule::UnreferencedResource,
            "Run `scripts/run.py`.\n",
            &files,
        );
        let messages: Vec<_> = found.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(found.len(), 2, "{messages:?}");
        assert!(messages[0].contains("`assets/` holds 2 files"));
        assert!(messages[1].contains("`notes.txt`"));
        assert!(
            check(
                Rule::UnreferencedResource,
                "Use the files in `assets/`, `notes.txt` and run.py.\n",
                &files
            )
            .is_empty()
        );
    }
}
