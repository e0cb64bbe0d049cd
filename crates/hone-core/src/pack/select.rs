//! Which files of a skill go into a pack.
//!
//! A skill folder on an author's disk holds more than the skill: version
//! control, caches, editor swap files, and the skill's own evals, which grade
//! the skill and are no use to the agent that loads it. Those are left out by
//! default (the same set as Anthropic's skill-creator packager, plus swap
//! files), and a `.honeignore` in gitignore syntax, in the skill or in the
//! library folder above it, leaves out more.
//!
//! Symlinks are the dangerous case: a link to `~/.ssh/id_rsa` inside a skill
//! would put a private key into a pack meant for upload. A link is therefore
//! followed only when its target lies inside the skill, and stored as the file
//! it points to (zips for upload cannot hold links); any other link is a
//! finding and stays out. Names that some system could not extract (see
//! [`super::names`]) are findings too, so a pack Hone writes is always one
//! Hone can read back.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ignore::gitignore::Gitignore;

use super::names;
use crate::diagnostic::{Diagnostic, Severity, Span};
use crate::skill::{SKILL_FILE, is_ignored_dir, slash_path};

/// The file in a skill or library folder that lists more files to leave out.
pub const IGNORE_FILE: &str = ".honeignore";

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

/// The `.honeignore` of a folder, if it has one; a pattern that does not
/// parse is reported and the others still apply.
pub(crate) fn load_ignore(dir: &Path, findings: &mut Vec<Diagnostic>) -> Option<Gitignore> {
    let path = dir.join(IGNORE_FILE);
    if !path.is_file() {
        return None;
    }
    let (matcher, error) = Gitignore::new(&path);
    if let Some(error) = error {
        findings.push(finding(
            &path,
            Finding::BadIgnoreFile,
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
    let own = load_ignore(dir, &mut selection.findings);
    let matchers: Vec<&Gitignore> = library.into_iter().chain(own.as_ref()).collect();
    let ignored =
        |path: &Path, is_dir: bool| matchers.iter().any(|m| m.matched(path, is_dir).is_ignore());
    let root = match dir.canonicalize() {
        Ok(root) => root,
        Err(err) => {
            selection
                .findings
                .push(finding(dir, Finding::Unreadable, err.to_string()));
            return selection;
        }
    };

    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter();
    let mut walker = walker.filter_entry(|entry| {
        if entry.depth() == 0 || !entry.file_type().is_dir() {
            return true;
        }
        let name = entry.file_name().to_string_lossy();
        let left_out = is_ignored_dir(&name)
            || (entry.depth() == 1 && name == "evals" && !include_evals)
            // A folder with its own SKILL.md is another skill, packed on its own.
            || entry.path().join(SKILL_FILE).is_file()
            || ignored(entry.path(), true);
        !left_out
    });
    let mut seen_folded = HashSet::new();
    while let Some(entry) = walker.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                let path = err.path().unwrap_or(dir).to_path_buf();
                let dangling = path.is_symlink() && !points_inside(&path, &root);
                let (kind, message) = if dangling {
                    let message =
                        "symlink points to nothing; it is left out of the pack".to_owned();
                    (Finding::SymlinkOutside, message)
                } else {
                    // A symlink loop or an unreadable folder.
                    (Finding::Unreadable, err.to_string())
                };
                selection.findings.push(finding(&path, kind, message));
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        if entry.path_is_symlink() && !points_inside(entry.path(), &root) {
            let message = "symlink points outside the skill; it is left out of the pack".to_owned();
            selection
                .findings
                .push(finding(entry.path(), Finding::SymlinkOutside, message));
            if entry.file_type().is_dir() {
                walker.skip_current_dir();
            }
            continue;
        }
        if entry.file_type().is_dir() {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let path = slash_path(relative);
        let name = entry.file_name().to_string_lossy();
        if path != SKILL_FILE && (is_default_excluded_file(&name) || ignored(entry.path(), false)) {
            continue;
        }
        if !entry.file_type().is_file() {
            let message =
                "not a regular file (a pipe, socket or device); it is left out".to_owned();
            selection
                .findings
                .push(finding(entry.path(), Finding::SpecialFile, message));
            continue;
        }
        if let Err((_, reason)) = names::check_entry_path(&path) {
            let message =
                format!("`{path}` cannot be extracted on every system ({reason}); it is left out");
            selection
                .findings
                .push(finding(entry.path(), Finding::UnsafeName, message));
            continue;
        }
        if !seen_folded.insert(names::fold_case(&path)) {
            let message = format!(
                "`{path}` differs from another file only in letter case; case-insensitive systems would merge them, so it is left out"
            );
            selection
                .findings
                .push(finding(entry.path(), Finding::CaseCollision, message));
            continue;
        }
        let executable = entry.metadata().is_ok_and(|m| is_executable(&m));
        selection.files.push(SelectedFile {
            path,
            source: entry.path().to_path_buf(),
            executable,
        });
    }
    selection.files.sort_by(|a, b| a.path.cmp(&b.path));
    selection
}

/// Whether a symlink's final target lies inside the skill folder `root`
/// (canonical). A dangling link points nowhere, so not inside.
fn points_inside(link: &Path, root: &Path) -> bool {
    link.canonicalize()
        .is_ok_and(|target| target.starts_with(root))
}

/// Files never packed: OS litter, compiled Python, editor swap and backup
/// files, and the ignore file itself.
fn is_default_excluded_file(name: &str) -> bool {
    name == ".DS_Store" || name == IGNORE_FILE || name.ends_with(".pyc") || is_swap_file(name)
}

/// Vim swap files (`.x.swp`, `.swo`, … `.swa`), Emacs lock and auto-save
/// files (`.#x`, `#x#`) and backup files (`x~`).
fn is_swap_file(name: &str) -> bool {
    let vim = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && ext.len() == 3
            && ext.starts_with("sw")
            && matches!(ext.as_bytes()[2], b'a'..=b'p')
    });
    vim || name.ends_with('~')
        || name.starts_with(".#")
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    false
}

/// The findings an export reports about a skill's files, each with its own
/// stable code and name (the `HP` codes are the pack's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finding {
    SymlinkOutside,
    Unreadable,
    UnsafeName,
    CaseCollision,
    SpecialFile,
    BadIgnoreFile,
}

impl Finding {
    fn code(self) -> &'static str {
        match self {
            Finding::SymlinkOutside => "HP001",
            Finding::Unreadable => "HP002",
            Finding::UnsafeName => "HP003",
            Finding::CaseCollision => "HP004",
            Finding::SpecialFile => "HP005",
            Finding::BadIgnoreFile => "HP006",
        }
    }

    fn rule(self) -> &'static str {
        match self {
            Finding::SymlinkOutside => "pack-symlink-outside",
            Finding::Unreadable => "pack-unreadable",
            Finding::UnsafeName => "pack-unsafe-name",
            Finding::CaseCollision => "pack-case-collision",
            Finding::SpecialFile => "pack-special-file",
            Finding::BadIgnoreFile => "pack-bad-ignore-file",
        }
    }

    fn severity(self) -> Severity {
        match self {
            Finding::SpecialFile | Finding::BadIgnoreFile => Severity::Warning,
            _ => Severity::Error,
        }
    }

    fn help(self) -> &'static str {
        match self {
            Finding::SymlinkOutside => "copy the file into the skill, or remove the link",
            Finding::Unreadable => "check the file's permissions, or list it in .honeignore",
            Finding::UnsafeName => "rename the file",
            Finding::CaseCollision => "rename one of the two files",
            Finding::SpecialFile => "remove it, or list it in .honeignore",
            Finding::BadIgnoreFile => "fix the pattern (gitignore syntax)",
        }
    }
}

pub(crate) fn finding(path: &Path, kind: Finding, message: String) -> Diagnostic {
    Diagnostic {
        code: kind.code().into(),
        rule: kind.rule().into(),
        severity: kind.severity(),
        message,
        path: path.to_path_buf(),
        span: Span::FILE_START,
        help: Some(kind.help().into()),
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
    fn swap_and_backup_files_are_recognised() {
        for name in [
            ".SKILL.md.swp",
            ".a.swo",
            "notes.md~",
            ".#notes.md",
            "#notes.md#",
        ] {
            assert!(is_swap_file(name), "{name}");
        }
        for name in ["swap.md", "a.swz", "#", "readme.md", ".swp"] {
            assert!(!is_swap_file(name), "{name}");
        }
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
            .filter(|d| d.code == "HP001")
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
}
