//! HS501 `duplicate-name`: its documentation, check and tests.

use std::path::Path;

use rustc_hash::FxHashMap;

use crate::diagnostic::Diagnostic;
use crate::library::Library;
use crate::rules::{Rule, Target, diagnostic};
use crate::skill::Skill;

crate::rules::rule_doc! {
    /// Agents know a skill by its name. With two skills named `pdf` in one library
    /// an agent sees one of them (which one depends on the agent and the scan
    /// order) or both with the same label, and the other never runs. Reported at
    /// every skill after the first, pointing at its `name`, with the first's path.
    ///
    /// Skills in a *lower-priority* root with the name of one in a higher-priority
    /// root (project skills over personal skills) are shadowed on purpose and are
    /// not reported.
    ///
    /// Claude Code keeps both when the second lives in a nested `.claude/skills`
    /// folder: it lists that one as `<dir>:<name>`, `<dir>` being the nested
    /// folder's path (CHANGELOG 2.1.178: "on a name clash, the nested skill appears
    /// as `<dir>:<name>` so both stay available"; skills docs:
    /// `apps/web/.claude/skills/deploy/SKILL.md` → `/apps/web:deploy`). For
    /// `claude-code` the message gives that name; other clients still see a clash.
}

pub(super) fn check(library: &Library, target: Target, out: &mut Vec<Diagnostic>) {
    if !Rule::DuplicateName.applies_to(target) {
        return;
    }
    let mut first: FxHashMap<&str, usize> = FxHashMap::default();
    for (index, skill) in library.skills.iter().enumerate() {
        let Some(&first_index) = first.get(skill.id.as_str()) else {
            first.insert(&skill.id, index);
            continue;
        };
        let mut finding = duplicate_name(skill, &library.skills[first_index]);
        let root = library
            .skill_roots
            .get(index)
            .and_then(|&r| library.roots.get(r));
        if target == Target::ClaudeCode
            && let Some(qualified) = root.and_then(|root| nested_name(skill, root))
        {
            finding.message.push_str(&format!(
                "; Claude Code lists this one as `{qualified}`, other clients see a clash"
            ));
        }
        out.push(finding);
    }
}

/// `<dir>:<name>`, the name Claude Code gives a skill of a nested
/// `.claude/skills` folder on a clash: `<dir>` is the path from `root` to
/// the folder holding `.claude`. `None` outside a nested `.claude/skills`.
fn nested_name(skill: &Skill, root: &Path) -> Option<String> {
    let relative = skill.dir.strip_prefix(root).ok()?;
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let at = parts
        .windows(2)
        .rposition(|pair| pair[0] == ".claude" && pair[1] == "skills")?;
    (at > 0).then(|| format!("{}:{}", parts[..at].join("/"), skill.id))
}

/// `HS501` on `skill`, whose name `other` already has.
fn duplicate_name(skill: &Skill, other: &Skill) -> Diagnostic {
    let range = skill
        .yaml_root()
        .and_then(|root| root.get("name"))
        .map_or(0..0, |node| node.span.clone());
    let mut finding = diagnostic(
        skill,
        Rule::DuplicateName,
        range,
        format!(
            "the name `{}` is also used by {}",
            skill.id,
            other.path.display()
        ),
    );
    finding.help = Some("give each skill a distinct name (and directory)".into());
    finding
}

/// The library-wide findings of one skill as it is being edited: `HS501`
/// when any other skill of `library` has its name (an editor warns at both
/// ends of a clash, whichever comes first on disk).
pub(super) fn check_one(
    skill: &Skill,
    library: &Library,
    target: Target,
    out: &mut Vec<Diagnostic>,
) {
    if !Rule::DuplicateName.applies_to(target) {
        return;
    }
    let Some(other) = library
        .skills
        .iter()
        .find(|other| other.id == skill.id && other.dir != skill.dir)
    else {
        return;
    };
    out.push(duplicate_name(skill, other));
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::check_one;

    use crate::library::{Filters, Library};
    use crate::rules::{Target, check_library};

    fn library(names: &[(&str, &str)]) -> (tempfile::TempDir, Library) {
        let tmp = tempfile::tempdir().unwrap();
        for (dir, name) in names {
            let dir = tmp.path().join(dir);
            std::fs::create_dir_all(&dir).unwrap();
            let text = format!("---\nname: {name}\ndescription: Use when asked.\n---\n");
            std::fs::write(dir.join("SKILL.md"), text).unwrap();
        }
        let lib = Library::open(&[PathBuf::from(tmp.path())], &Filters::default()).unwrap();
        (tmp, lib)
    }

    fn duplicates(lib: &Library) -> Vec<crate::diagnostic::Diagnostic> {
        check_library(lib, Target::All)
            .into_iter()
            .filter(|d| d.code == "HS501")
            .collect()
    }

    #[test]
    fn duplicate_names_are_reported_after_the_first() {
        let (_tmp, lib) = library(&[("a/pdf", "pdf"), ("b/pdf", "pdf"), ("docx", "docx")]);
        let found = duplicates(&lib);
        assert_eq!(found.len(), 1);
        assert!(found[0].path.ends_with("b/pdf/SKILL.md"));
        assert_eq!(found[0].span.start.line, 2);
    }

    #[test]
    fn an_edited_skill_is_warned_of_a_name_in_use() {
        let (_dir, lib) = library(&[("a", "pdf"), ("b", "csv")]);
        let mut edited = lib.skills[1].clone();
        edited.id = "pdf".into();
        let mut out = Vec::new();
        check_one(&edited, &lib, Target::All, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].code, "HS501");
        out.clear();
        check_one(&lib.skills[0], &lib, Target::All, &mut out);
        assert!(out.is_empty(), "a skill does not clash with itself");
    }

    /// Claude Code CHANGELOG 2.1.178 and skills docs: a nested
    /// `.claude/skills` skill whose name clashes is listed as `<dir>:<name>`.
    #[test]
    fn nested_clashes_name_the_claude_code_listing() {
        let (_tmp, lib) = library(&[
            (".claude/skills/deploy", "deploy"),
            ("apps/web/.claude/skills/deploy", "deploy"),
        ]);
        let found: Vec<_> = check_library(&lib, Target::ClaudeCode)
            .into_iter()
            .filter(|d| d.code == "HS501")
            .collect();
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("`apps/web:deploy`"),
            "{}",
            found[0].message
        );
        assert!(!duplicates(&lib)[0].message.contains("apps/web:deploy"));
    }

    #[test]
    fn distinct_names_are_fine() {
        let (_tmp, lib) = library(&[("pdf", "pdf"), ("docx", "docx")]);
        assert!(duplicates(&lib).is_empty());
    }
}
