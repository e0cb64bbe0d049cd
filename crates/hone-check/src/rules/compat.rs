//! The compatibility matrix: for each skill and each client, does it load as
//! written, load with something read differently or dropped, or get refused?
//!
//! A finding's severity says how much the author should care; what it does
//! to a client is a separate question, and the answer differs per client:
//! broken YAML is refused by the reference validator but loaded with empty
//! metadata by Claude Code (CHANGELOG 2.1.186), a missing `description` is
//! refused by the spec's clients but filled from the body by Claude Code. The
//! table in [`effect`] records, per rule and target, which it is; a rule not
//! named there is advice (the skill loads exactly as written).

use std::collections::HashMap;
use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;

use super::library as library_rules;
use super::{Rule, Target, check_frontmatter};
use crate::diagnostic::Diagnostic;
use crate::library::Library;
use crate::rules::cache::CollisionMemo;
use crate::skill::Skill;

/// What one client does with a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Loaded and read as written.
    Loads,
    /// Loaded, but part of it is read differently, ignored or replaced.
    LoadsWithChanges,
    /// Not loaded (or rejected by the client's validator or upload).
    Refused,
}

/// What a finding of one rule means to one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effect {
    /// Advice: the skill loads exactly as written.
    Advice,
    /// The client loads the skill but reads part of it differently.
    Changes,
    /// The client refuses the skill.
    Refuses,
}

/// What a finding of `rule` does to a skill in `target`'s client.
pub fn effect(rule: Rule, target: Target) -> Effect {
    use Effect::*;
    use Target::*;
    match (rule, target) {
        // No frontmatter, never closed: no client has metadata to list.
        (Rule::FrontmatterMissing | Rule::FrontmatterUnclosed, _) => Refuses,
        // Claude Code loads the body with empty metadata (CHANGELOG 2.1.186).
        (Rule::InvalidYaml | Rule::FrontmatterNotMapping, ClaudeCode) => Changes,
        (Rule::InvalidYaml | Rule::FrontmatterNotMapping, _) => Refuses,
        // Python readers fail to decode; JavaScript ones substitute U+FFFD.
        (Rule::InvalidUtf8, Agentskills | ClaudeApi) => Refuses,
        (Rule::InvalidUtf8, _) => Changes,
        // skills-ref: "must start with YAML frontmatter".
        (Rule::ByteOrderMark, Agentskills) => Refuses,
        (Rule::ByteOrderMark, _) => Changes,
        // strictyaml refuses duplicates, flow style, and a `---` cut.
        (Rule::DuplicateKey | Rule::FlowCollection | Rule::DashesInFrontmatter, Agentskills) => {
            Refuses
        }
        (Rule::DuplicateKey | Rule::DashesInFrontmatter, _) => Changes,
        (Rule::CrlfLineEndings | Rule::CommentTruncatesValue | Rule::BlockScalar, _) => Changes,
        // Safe Python loaders and strictyaml refuse tags and plain `: `.
        (Rule::YamlTag | Rule::UnquotedColon, Agentskills | ClaudeApi) => Refuses,
        (Rule::YamlTag | Rule::UnquotedColon, _) => Changes,
        // Names: each client's own validator.
        (
            Rule::NameMissing | Rule::NameTooLong | Rule::NameFormat | Rule::NameDirectoryMismatch,
            Agentskills | ClaudeApi,
        ) => Refuses,
        (Rule::NameMissing, Copilot) => Refuses,
        (Rule::NameReservedWord | Rule::AngleBrackets, ClaudeApi) => Refuses,
        (Rule::ReservedFolder, ClaudeCode) => Changes,
        (Rule::CopilotName, Copilot) => Refuses,
        // Descriptions: required everywhere but Claude Code, which fills in.
        (Rule::DescriptionMissing | Rule::DescriptionEmpty, Agentskills | ClaudeApi | Copilot) => {
            Refuses
        }
        (Rule::DescriptionEmpty, ClaudeCode) => Changes,
        (Rule::DescriptionTooLong | Rule::CompatibilityTooLong, Agentskills | ClaudeApi) => Refuses,
        (Rule::ListingTruncated | Rule::DescriptionFromBody, ClaudeCode) => Changes,
        // Fields read differently or ignored.
        (
            Rule::FieldType
            | Rule::MetadataNotStrings
            | Rule::AllowedToolsForm
            | Rule::AllowedToolsCommas
            | Rule::UnknownKey,
            _,
        ) => Changes,
        (Rule::ApiUnsupportedKey, ClaudeApi) => Refuses,
        (Rule::Yaml11Boolean | Rule::BooleanAsString | Rule::KeySpelling | Rule::FieldValue, _) => {
            Changes
        }
        // A clash: one of the two is hidden or renamed.
        (Rule::DuplicateName, _) => Changes,
        _ => Advice,
    }
}

/// One cell of the matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Cell {
    pub verdict: Verdict,
    /// The findings behind the verdict (those that change or refuse), in
    /// file order.
    pub findings: Vec<CellFinding>,
}

/// A finding behind a cell, pointing into the file like a diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CellFinding {
    pub code: String,
    pub message: String,
    pub line: u32,
}

/// One skill's row: a cell per client.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SkillCompat {
    pub id: String,
    pub path: std::path::PathBuf,
    /// Keyed by target name (`agentskills`, `claude-code`, `claude-api`, `copilot`).
    pub targets: std::collections::BTreeMap<&'static str, Cell>,
}

/// The cell for one skill's findings under `target`.
pub fn cell(findings: &[Diagnostic], target: Target) -> Cell {
    let mut verdict = Verdict::Loads;
    let mut behind = Vec::new();
    for d in findings {
        let Some(rule) = Rule::from_code(&d.code) else {
            continue;
        };
        let step = match effect(rule, target) {
            Effect::Advice => continue,
            Effect::Changes => Verdict::LoadsWithChanges,
            Effect::Refuses => Verdict::Refused,
        };
        verdict = verdict.max(step);
        behind.push(CellFinding {
            code: d.code.clone(),
            message: d.message.clone(),
            line: d.span.start.line,
        });
    }
    Cell {
        verdict,
        findings: behind,
    }
}

/// The matrix of every skill of `library` against every client: each
/// client's frontmatter rules are run for each skill (in parallel), so a cell
/// reflects exactly the findings that target reports; the body and file
/// rules are advice everywhere and are not run again. The library's
/// collisions (HS502) come from `collisions` when given: they are the same
/// for every client, so a check that has just found them is not redone.
pub fn matrix(library: &Library, collisions: Option<&CollisionMemo>) -> Vec<SkillCompat> {
    let listing_cap = crate::clients::claude_code::project_listing_cap(&library.roots);
    // Library-wide findings (a duplicate name) per target, by path.
    let shared: Vec<(Target, HashMap<PathBuf, Vec<Diagnostic>>)> = Target::CLIENTS
        .iter()
        .map(|&target| {
            let mut out = Vec::new();
            library_rules::check(library, target, collisions, &mut out);
            let mut by_path: HashMap<PathBuf, Vec<Diagnostic>> = HashMap::new();
            for d in out {
                by_path.entry(d.path.clone()).or_default().push(d);
            }
            (target, by_path)
        })
        .collect();
    library
        .skills
        .par_iter()
        .map(|skill| {
            let targets = shared
                .iter()
                .map(|(target, by_path)| {
                    let mut findings = check_frontmatter(skill, *target, listing_cap);
                    if let Some(extra) = by_path.get(skill.path.as_path()) {
                        findings.extend(extra.iter().cloned());
                    }
                    (target.as_str(), cell(&findings, *target))
                })
                .collect();
            SkillCompat {
                id: skill.id.clone(),
                path: skill.path.clone(),
                targets,
            }
        })
        .collect()
}

/// One skill's row as it stands (an editor's unsaved text), within
/// `library`: what the app shows for the open skill.
pub fn skill_row(skill: &Skill, library: &Library) -> SkillCompat {
    let listing_cap = crate::clients::claude_code::project_listing_cap(&library.roots);
    // The library-wide findings of one skill differ between clients only in
    // which rules apply: found once (they compare the skill with every other,
    // the row's slow part on every keystroke), then kept per client.
    let mut shared = Vec::new();
    library_rules::check_one(skill, library, Target::All, &mut shared);
    let targets = Target::CLIENTS
        .iter()
        .map(|&target| {
            let mut findings = check_frontmatter(skill, target, listing_cap);
            findings.extend(
                shared
                    .iter()
                    .filter(|d| Rule::from_code(&d.code).is_some_and(|r| r.applies_to(target)))
                    .cloned(),
            );
            findings.sort_by_key(|d| (d.span.start.offset, d.code.clone()));
            (target.as_str(), cell(&findings, target))
        })
        .collect();
    SkillCompat {
        id: skill.id.clone(),
        path: skill.path.clone(),
        targets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::skill_with_files;

    fn row(dir: &str, text: &str) -> SkillCompat {
        let (tmp, skill) = skill_with_files(dir, text, &[]);
        let mut library = Library::default();
        library.roots = vec![tmp.path().to_path_buf()];
        library.skills = vec![skill];
        library.skill_roots = vec![0];
        matrix(&library, None).remove(0)
    }

    /// The row of an edited skill finds the library-wide findings once for
    /// every client; each cell holds what that client's own check reports.
    #[test]
    fn an_edited_row_has_each_clients_library_findings() {
        let tmp = tempfile::tempdir().unwrap();
        let text = "---\nname: pdf\ndescription: Extracts text and tables from PDF files. Use when a PDF is attached.\n---\nbody\n";
        for dir in ["pdf", "pdf-copy"] {
            let dir = tmp.path().join(dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), text).unwrap();
        }
        let library = Library::open(
            &[tmp.path().to_path_buf()],
            &crate::library::Filters::default(),
        )
        .unwrap();
        let saved = library
            .skills
            .iter()
            .find(|s| s.dir_name() == "pdf")
            .unwrap();
        let edited = saved.with_text(text.replace("body", "edited body"));
        let row = skill_row(&edited, &library);
        let cap = crate::clients::claude_code::project_listing_cap(&library.roots);
        for target in Target::CLIENTS {
            let mut alone = check_frontmatter(&edited, target, cap);
            library_rules::check_one(&edited, &library, target, &mut alone);
            alone.sort_by_key(|d| (d.span.start.offset, d.code.clone()));
            assert_eq!(
                row.targets[target.as_str()],
                cell(&alone, target),
                "{target:?}"
            );
            let codes: Vec<&str> = row.targets[target.as_str()]
                .findings
                .iter()
                .map(|f| f.code.as_str())
                .collect();
            assert!(codes.contains(&"HS501"), "{target:?}: {codes:?}");
        }
    }

    /// Claude Code CHANGELOG 2.1.186: malformed YAML loads with empty
    /// metadata; skills-ref refuses it.
    #[test]
    fn broken_yaml_is_refused_except_by_claude_code() {
        let r = row(
            "pdf",
            "---\nname: pdf\ndescription: Reads PDFs. Use when: asked\n---\nbody\n",
        );
        assert_eq!(r.targets["agentskills"].verdict, Verdict::Refused);
        assert_eq!(r.targets["claude-code"].verdict, Verdict::LoadsWithChanges);
        assert_eq!(r.targets["agentskills"].findings[0].code, "HS003");
    }

    /// Claude Code skills docs: without `description` the body's first
    /// paragraph is listed; the spec, the upload and Copilot require one.
    #[test]
    fn missing_description_per_client() {
        let r = row("pdf", "---\nname: pdf\n---\nReads PDFs.\n");
        assert_eq!(r.targets["claude-code"].verdict, Verdict::LoadsWithChanges);
        for target in ["agentskills", "claude-api", "copilot"] {
            assert_eq!(r.targets[target].verdict, Verdict::Refused, "{target}");
        }
    }

    /// The matrix skips the body and file rules on the grounds that they are
    /// advice to every client; this holds that true.
    #[test]
    fn body_and_file_rules_are_advice_everywhere() {
        for &rule in Rule::ALL.iter().filter(|r| r.code().starts_with("HS4")) {
            for target in Target::CLIENTS {
                assert_eq!(effect(rule, target), Effect::Advice, "{rule}");
            }
        }
    }

    /// The app's row for an open skill agrees with the library's matrix.
    #[test]
    fn one_skill_row_matches_the_matrix() {
        let (tmp, skill) = skill_with_files("pdf", "---\nname: pdf\n---\nReads PDFs.\n", &[]);
        let mut library = Library::default();
        library.roots = vec![tmp.path().to_path_buf()];
        library.skills = vec![skill.clone()];
        library.skill_roots = vec![0];
        assert_eq!(
            skill_row(&skill, &library),
            matrix(&library, None).remove(0)
        );
    }

    #[test]
    fn a_clean_skill_loads_everywhere() {
        let r = row(
            "pdf",
            "---\nname: pdf\ndescription: Reads PDFs. Use when the user sends a PDF.\n---\nBody\n",
        );
        for (target, cell) in &r.targets {
            assert_eq!(cell.verdict, Verdict::Loads, "{target}: {cell:?}");
        }
        assert_eq!(r.targets.len(), 4);
    }
}
