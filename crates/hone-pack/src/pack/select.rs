//! Which files of a skill go into a pack.
//!
//! The files are those of the one walk of a skill folder ([`crate::folder`]):
//! the same set Hone lists as the skill's resources and counts in its token
//! costs, with litter, nested skills, `evals/` (unless asked for) and what the
//! skill's `.honeignore` lists left out, and symlinks followed only inside the
//! skill (a link to `~/.ssh/id_rsa` must never reach a pack meant for upload).
//! A pack adds what only a pack needs: the library folder's `.honeignore`, and
//! names that some system could not extract (see [`super::names`]) as
//! findings, so a pack Hone writes is always one Hone can read back.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ignore::gitignore::Gitignore;

use super::names;
use crate::diagnostic::{Diagnostic, Span};
use crate::folder::{self, FileProblemKind, IGNORE_FILE, ResourceDetail, SKILL_FILE, WalkOptions};
use crate::rules::{Origin, Rule};

/// A file chosen for the pack.
#[derive(Debug, Clone)]
pub(crate) struct SelectedFile {
    /// Relative to the skill folder, `/`-separated.
    pub path: String,
    /// Where to read it; for a followed symlink, the link's path.
    pub source: PathBuf,
    pub executable: bool,
}

/// The files of one skill, in path order, and what was left out and why.
#[derive(Debug, Default)]
pub(crate) struct Selection {
    pub files: Vec<SelectedFile>,
    pub findings: Vec<Diagnostic>,
}

/// The `.honeignore` of a library folder, if it has one; a pattern that does
/// not parse is reported and the others still apply.
pub(crate) fn load_ignore(dir: &Path, findings: &mut Vec<Diagnostic>) -> Option<Gitignore> {
    let path = dir.join(IGNORE_FILE);
    if !path.is_file() {
        return None;
    }
    let (matcher, error) = Gitignore::new(&path);
    if let Some(error) = error {
        findings.push(finding(
            &path,
            Rule::PackBadIgnoreFile,
            format!("{IGNORE_FILE}: {error}"),
        ));
    }
    Some(matcher)
}

/// Lists the files of the skill at `dir` that belong in a pack. `library`
/// is the `.honeignore` of the library folder the skill was found in.
pub(crate) fn select_files(
    dir: &Path,
    library: Option<&Gitignore>,
    include_evals: bool,
) -> Selection {
    let mut selection = Selection::default();
    let options = WalkOptions {
        detail: ResourceDetail::Full,
        include_evals,
    };
    let walked = folder::skill_files(dir, options);
    for problem in &walked.problems {
        let kind = match problem.kind {
            FileProblemKind::LinkOutside | FileProblemKind::LinkDangling => {
                Rule::PackSymlinkOutside
            }
            FileProblemKind::NotAFile => Rule::PackSpecialFile,
            FileProblemKind::BadIgnoreFile(_) => Rule::PackBadIgnoreFile,
            FileProblemKind::LinkLoop
            | FileProblemKind::Unreadable(_)
            | FileProblemKind::TooManyFiles => Rule::PackUnreadable,
        };
        let message = match kind {
            Rule::PackSymlinkOutside | Rule::PackSpecialFile => {
                format!("{} of the pack", problem.kind.message())
            }
            _ => problem.kind.message(),
        };
        selection
            .findings
            .push(finding(&problem.path, kind, message));
    }
    // The library's ignore file speaks of paths under the library folder.
    let library = library.filter(|m| dir.starts_with(m.path()));
    let mut seen_folded = HashSet::new();
    for file in walked.files {
        let source = dir.join(&file.path);
        if library.is_some_and(|m| m.matched_path_or_any_parents(&source, false).is_ignore()) {
            continue;
        }
        if let Err((_, reason)) = names::check_entry_path(&file.path) {
            let message = format!(
                "`{}` cannot be extracted on every system ({reason}); it is left out",
                file.path
            );
            selection
                .findings
                .push(finding(&source, Rule::PackUnsafeName, message));
            continue;
        }
        if !seen_folded.insert(names::fold_case(&file.path)) {
            let message = format!(
                "`{}` differs from another file only in letter case; case-insensitive systems would merge them, so it is left out",
                file.path
            );
            selection
                .findings
                .push(finding(&source, Rule::PackCaseCollision, message));
            continue;
        }
        selection.files.push(SelectedFile {
            path: file.path,
            source,
            executable: file.executable,
        });
    }
    // SKILL.md is the skill itself: always packed, never a resource.
    selection.files.push(SelectedFile {
        path: SKILL_FILE.to_owned(),
        source: dir.join(SKILL_FILE),
        executable: std::fs::metadata(dir.join(SKILL_FILE))
            .is_ok_and(|m| folder::is_executable(&m)),
    });
    selection.files.sort_by(|a, b| a.path.cmp(&b.path));
    selection
}

/// What to do about a pack finding (the rule's doc says why it matters).
fn help(rule: Rule) -> &'static str {
    match rule {
        Rule::PackSymlinkOutside => "copy the file into the skill, or remove the link",
        Rule::PackUnreadable => "check the file's permissions, or list it in .honeignore",
        Rule::PackUnsafeName => "rename the file",
        Rule::PackCaseCollision => "rename one of the two files",
        Rule::PackSpecialFile => "remove it, or list it in .honeignore",
        Rule::PackBadIgnoreFile => "fix the pattern (gitignore syntax)",
        _ => unreachable!("{rule} is not a pack rule"),
    }
}

/// A finding of the pack rule `rule` about the file at `path`.
pub(crate) fn finding(path: &Path, rule: Rule, message: String) -> Diagnostic {
    assert_eq!(rule.origin(), Origin::Pack, "{rule}");
    Diagnostic {
        code: rule.code().into(),
        rule: rule.name().into(),
        severity: rule.severity(),
        message,
        path: path.to_path_buf(),
        span: Span::FILE_START,
        help: Some(help(rule).into()),
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn paths(selection: &Selection) -> Vec<&str> {
        selection.files.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn litter_evals_and_nested_skills_are_left_out() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        for file in [
            "SKILL.md",
            "ref.md",
            ".DS_Store",
            "a.pyc",
            "__pycache__/x.py",
            ".git/HEAD",
            "node_modules/m/index.js",
            "evals/cases.yaml",
            "docs/evals/kept.md",
            "inner/SKILL.md",
            ".ref.md.swp",
        ] {
            let path = dir.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x").unwrap();
        }
        assert_eq!(
            paths(&select_files(&dir, None, false)),
            ["SKILL.md", "docs/evals/kept.md", "ref.md"]
        );
        let with_evals = select_files(&dir, None, true);
        assert!(paths(&with_evals).contains(&"evals/cases.yaml"));
    }

    #[test]
    fn honeignore_in_the_skill_and_the_library_apply() {
        let tmp = tempfile::tempdir().unwrap();
        let library = tmp.path();
        let dir = library.join("s");
        fs::create_dir_all(dir.join("drafts")).unwrap();
        for file in ["SKILL.md", "keep.md", "a.bak", "drafts/x.md", "big.bin"] {
            fs::write(dir.join(file), "x").unwrap();
        }
        fs::write(dir.join(IGNORE_FILE), "drafts/\n*.bin\nSKILL.md\n").unwrap();
        fs::write(library.join(IGNORE_FILE), "*.bak\n").unwrap();
        let mut findings = Vec::new();
        let library_ignore = load_ignore(library, &mut findings);
        let selection = select_files(&dir, library_ignore.as_ref(), false);
        assert_eq!(paths(&selection), ["SKILL.md", "keep.md"]);
        assert!(findings.is_empty() && selection.findings.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_only_inside_the_skill() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        fs::create_dir_all(dir.join("real")).unwrap();
        fs::write(dir.join("SKILL.md"), "x").unwrap();
        fs::write(dir.join("real/data.md"), "inside").unwrap();
        fs::write(tmp.path().join("secret"), "outside").unwrap();
        std::os::unix::fs::symlink(dir.join("real/data.md"), dir.join("alias.md")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), dir.join("leak.md")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), dir.join("up")).unwrap();
        std::os::unix::fs::symlink(dir.join("missing"), dir.join("dangling")).unwrap();
        let selection = select_files(&dir, None, false);
        assert_eq!(paths(&selection), ["SKILL.md", "alias.md", "real/data.md"]);
        let outside: Vec<_> = selection
            .findings
            .iter()
            .filter(|d| d.code == Rule::PackSymlinkOutside.code())
            .map(|d| d.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(outside, ["dangling", "leak.md", "up"]);
    }

    #[cfg(unix)]
    #[test]
    fn executables_are_marked() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("SKILL.md"), "x").unwrap();
        fs::write(tmp.path().join("run.sh"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(tmp.path().join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        let selection = select_files(tmp.path(), None, false);
        let executable: Vec<_> = selection.files.iter().map(|f| f.executable).collect();
        assert_eq!(executable, [false, true]);
    }

    /// What Hone lists as a skill's resources (and counts in its token costs)
    /// is what a pack carries: one walk serves both.
    #[cfg(unix)]
    #[test]
    fn a_pack_carries_exactly_the_skills_resources() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        for file in [
            "SKILL.md",
            "ref.md",
            "scripts/run.py",
            "scripts/run.pyc",
            "evals/cases.yaml",
            "drafts/x.md",
        ] {
            let path = dir.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x").unwrap();
        }
        fs::write(dir.join(IGNORE_FILE), "drafts/\n").unwrap();
        fs::write(tmp.path().join("secret"), "outside").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), dir.join("leak.md")).unwrap();
        std::os::unix::fs::symlink(dir.join("ref.md"), dir.join("alias.md")).unwrap();

        let resources: Vec<String> = folder::scan_resources(&dir)
            .into_iter()
            .map(|r| r.path)
            .collect();
        let selection = select_files(&dir, None, false);
        let packed: Vec<&str> = paths(&selection)
            .into_iter()
            .filter(|p| *p != SKILL_FILE)
            .collect();
        assert_eq!(resources, packed);
        assert_eq!(packed, ["alias.md", "ref.md", "scripts/run.py"]);
    }
}
