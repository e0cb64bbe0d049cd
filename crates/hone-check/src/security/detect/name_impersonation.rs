//! HS910 `name-impersonation`: its detector; the documentation is in
//! `rules/security/name_impersonation.rs`.

use crate::rules::Rule;
use crate::security::{Confidence, Hit, Threat};
use crate::skill::Skill;
use rustc_hash::FxHashMap;

/// Names of widely installed skills (Anthropic's and popular collections').
const WELL_KNOWN: &[&str] = &[
    "algorithmic-art",
    "artifacts-builder",
    "brand-guidelines",
    "canvas-design",
    "doc-coauthoring",
    "docx",
    "frontend-design",
    "internal-comms",
    "mcp-builder",
    "pdf",
    "pptx",
    "skill-creator",
    "slack-gif-creator",
    "theme-factory",
    "web-artifacts-builder",
    "webapp-testing",
    "xlsx",
    "brainstorming",
    "test-driven-development",
    "systematic-debugging",
    "writing-plans",
    "executing-plans",
    "using-git-worktrees",
    "requesting-code-review",
    "receiving-code-review",
    "verification-before-completion",
    "writing-skills",
    "subagent-driven-development",
    "dispatching-parallel-agents",
    "finishing-a-development-branch",
    "playwright",
    "mermaid",
    "github",
    "git-commit",
    "code-review",
    "changelog-generator",
    "file-organizer",
    "image-enhancer",
    "invoice-organizer",
    "meeting-insights-analyzer",
    "content-research-writer",
];

/// `name` with look-alike characters folded: `0`→`o`, `1`→`l`, `3`→`e`,
/// `5`→`s`, `rn`→`m`, `vv`→`w`, `_`→`-`.
fn fold(name: &str) -> String {
    name.to_ascii_lowercase()
        .replace("rn", "m")
        .replace("vv", "w")
        .chars()
        .map(|c| match c {
            '0' => 'o',
            '1' | 'i' => 'l',
            '3' => 'e',
            '5' => 's',
            '_' => '-',
            c => c,
        })
        .collect()
}

/// Damerau–Levenshtein distance (adjacent swaps count once), up to `cap`.
fn distance(a: &str, b: &str, cap: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > cap {
        return cap + 1;
    }
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// The names of a library's skills by their folded form, so that finding a
/// skill's look-alikes is one lookup: comparing each name with every other
/// one cost a 10,000-skill library 50 million folds.
pub struct LibraryNames<'a> {
    by_fold: FxHashMap<String, Vec<&'a str>>,
}

impl<'a> LibraryNames<'a> {
    /// `names` in library order (the first look-alike found is reported).
    pub fn new(names: impl IntoIterator<Item = &'a str>) -> LibraryNames<'a> {
        let mut by_fold: FxHashMap<String, Vec<&'a str>> = FxHashMap::default();
        for name in names {
            by_fold.entry(fold(name)).or_default().push(name);
        }
        LibraryNames { by_fold }
    }

    /// The ids of `library`'s skills.
    pub fn of(library: &'a crate::library::Library) -> LibraryNames<'a> {
        LibraryNames::new(library.skills.iter().map(|s| s.id.as_str()))
    }

    /// The names that fold to what `name` folds to (`name` among them when
    /// it is in the library): all a skill's verdict reads of the others.
    pub fn lookalikes(&self, name: &str) -> &[&'a str] {
        self.by_fold
            .get(&fold(name.trim()))
            .map_or(&[], Vec::as_slice)
    }
}

pub(crate) fn check(skill: &Skill, library_names: &LibraryNames<'_>, hits: &mut Vec<Hit>) {
    let Some(name) = skill.meta.name.as_deref() else {
        return;
    };
    let name = name.trim();
    if name.is_empty() || WELL_KNOWN.contains(&name) {
        return;
    }
    let range = skill
        .text()
        .find(name)
        .map_or(0..0, |at| at..at + name.len());
    let folded = fold(name);
    let lookalike = WELL_KNOWN
        .iter()
        .copied()
        .chain(
            library_names
                .lookalikes(name)
                .iter()
                .copied()
                .filter(|other| *other != name),
        )
        .find(|&known| {
            let plain = |n: &str| n.to_ascii_lowercase().replace('_', "-");
            fold(known) == folded && plain(known) != plain(name)
        });
    if let Some(known) = lookalike {
        hits.push(Hit::new(
            Rule::NameImpersonation,
            Threat::High,
            Confidence::Medium,
            range,
            format!("`{name}` imitates `{known}` with look-alike characters"),
        ));
        return;
    }
    let near = WELL_KNOWN.iter().copied().find(|&known| {
        known.len() >= 6 && name.len() >= 6 && distance(name, known, 1) == 1
            // A plural or a suffix is a variant, not a typo.
            && !(name.starts_with(known) || known.starts_with(name))
    });
    if let Some(known) = near {
        hits.push(Hit::new(
            Rule::NameImpersonation,
            Threat::Medium,
            Confidence::Low,
            range,
            format!("`{name}` is one edit away from the well-known skill `{known}`"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_folding() {
        assert_eq!(distance("skill-creator", "skill-creater", 2), 1);
        assert_eq!(distance("skill-creator", "skill-craetor", 2), 1);
        assert_eq!(distance("abc", "abcdef", 1), 2);
        assert_eq!(fold("sk1ll-creator"), fold("skill-creator"));
        assert_eq!(fold("rnermaid"), fold("mermaid"));
    }
}
