//! HS406 `unreferenced-resource`: its documentation, check and tests.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// A file that neither `SKILL.md` nor a file it links to mentions (by link, by
    /// path, or by file name) is never read by an agent, yet is packed and
    /// uploaded with the skill. Reference it where it is useful, or delete it.
    /// `LICENSE`, `README` and `CHANGELOG` files and hidden files are exempt; a
    /// folder whose path the body mentions (`scripts/`) counts for everything
    /// inside it. Reported once per top-level file or folder.
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

/// `linked` holds the paths `SKILL.md` links to, resolved.
pub(super) fn check(checker: &mut Checker, read_texts: &[String], linked: &FxHashSet<&str>) {
    let skill = checker.skill;
    // A linked file is referenced, and needs no search.
    let candidates: Vec<&str> = skill
        .resources
        .iter()
        .map(|r| r.path.as_str())
        .filter(|path| !is_exempt(path) && !linked.contains(path))
        .collect();
    if candidates.is_empty() {
        return;
    }
    let mut mentioned = Mentions::new(skill.body(), read_texts, &candidates);
    // Unreferenced files grouped by their top-level file or folder.
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for path in candidates {
        // A folder's mention covers every file in it: asked first, as the
        // answer for `scripts/` serves all of them.
        let in_mentioned_dir = path
            .match_indices('/')
            .any(|(i, _)| linked.contains(&path[..i]) || mentioned.contains(&path[..=i]));
        if in_mentioned_dir || mentioned.contains(own_needle(path)) {
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

/// What mentions the file at `path` by itself: its file name, or its whole
/// path when the name is too short to count alone. (A mentioned path
/// mentions its file name too.)
fn own_needle(path: &str) -> &str {
    let file_name = path.rsplit('/').next().unwrap_or(path);
    if file_name.len() >= MIN_MENTIONED_NAME {
        file_name
    } else {
        path
    }
}

/// Which of a skill's file names, paths and folder prefixes occur in its
/// texts (the body and the markdown files it links).
enum Mentions<'t> {
    /// Found as asked, each needle searched for once: most skills hold a few
    /// files, and most of their names are settled by a folder's answer.
    Asked {
        texts: Vec<&'t str>,
        answers: FxHashMap<&'t str, bool>,
    },
    /// Found ahead in one pass over each text: a skill may hold thousands
    /// of files, and searching its texts once per name is quadratic.
    Found(FxHashSet<&'t str>),
}

/// Up to this many needles are searched for one by one, as asked: a SIMD
/// substring search per name over a skill's few kilobytes of text is
/// cheaper than building an automaton (measured on the corpus, where 52
/// skills hold more than 16 files and two hold over a thousand).
const FEW_NEEDLES: usize = 96;

impl<'t> Mentions<'t> {
    fn new(body: &'t str, others: &'t [String], paths: &[&'t str]) -> Mentions<'t> {
        let texts: Vec<&'t str> = std::iter::once(body)
            .chain(others.iter().map(String::as_str))
            .collect();
        let mut needles: Vec<&'t str> = Vec::new();
        let mut seen = FxHashSet::default();
        for path in paths {
            let dirs = path.match_indices('/').map(|(i, _)| &path[..=i]);
            for needle in std::iter::once(own_needle(path)).chain(dirs) {
                if seen.insert(needle) {
                    needles.push(needle);
                }
            }
        }
        if needles.len() <= FEW_NEEDLES {
            return Mentions::Asked {
                texts,
                answers: FxHashMap::default(),
            };
        }
        // A DFA searches faster but takes far longer to build than one
        // skill's few kilobytes of text take to scan.
        let automaton = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(&needles);
        let Ok(automaton) = automaton else {
            return Mentions::Found(FxHashSet::default());
        };
        let mut found = FxHashSet::default();
        for text in texts {
            for hit in automaton.find_overlapping_iter(text) {
                found.insert(needles[hit.pattern().as_usize()]);
            }
            if found.len() == needles.len() {
                break;
            }
        }
        Mentions::Found(found)
    }

    fn contains(&mut self, needle: &'t str) -> bool {
        match self {
            Mentions::Found(found) => found.contains(needle),
            Mentions::Asked { texts, answers } => *answers.entry(needle).or_insert_with(|| {
                let finder = memchr::memmem::Finder::new(needle);
                texts
                    .iter()
                    .any(|text| finder.find(text.as_bytes()).is_some())
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::*;

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
        let found = findings_with_files(Rule::UnreferencedResource, body, &files);
        let messages: Vec<_> = found.iter().map(|d| d.message.as_str()).collect();
        // `a.c` and `x.c` are too short to count by name alone.
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].contains("`scripts/` holds 1 file")
                && messages[0].contains("`scripts/a.c`")
        );
        assert!(messages[1].contains("`x.c`"));
        let body = "Read data/, run scripts/a.c, scripts/build.sh and x.c.\n";
        assert!(findings_with_files(Rule::UnreferencedResource, body, &files).is_empty());
    }

    #[test]
    fn linked_files_and_folders_are_referenced() {
        let files = [
            ("references/a.md", "A"),
            ("data/x.csv", ""),
            ("notes.txt", ""),
        ];
        let body = "See [a](references/a.md) and [the data](data).\n";
        let found = findings_with_files(Rule::UnreferencedResource, body, &files);
        let messages: Vec<_> = found.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].contains("`notes.txt`"));
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
        let found = findings_with_files(
            Rule::UnreferencedResource,
            "Run `scripts/run.py`.\n",
            &files,
        );
        let messages: Vec<_> = found.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(found.len(), 2, "{messages:?}");
        assert!(messages[0].contains("`assets/` holds 2 files"));
        assert!(messages[1].contains("`notes.txt`"));
        assert!(
            findings_with_files(
                Rule::UnreferencedResource,
                "Use the files in `assets/`, `notes.txt` and run.py.\n",
                &files
            )
            .is_empty()
        );
    }
}
