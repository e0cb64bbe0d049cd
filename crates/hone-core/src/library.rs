//! Library discovery: which skills does a set of paths hold?
//!
//! A path may be a `SKILL.md`, a skill directory, or a library directory that
//! is scanned recursively. Skills may nest (a skill folder holding others, as
//! some collections group them), so the scan descends into skill folders too.
//! Hidden folders are skipped except `.claude`, `.agents` and `.claude-plugin`,
//! where agents keep their skills; symlinked folders are followed once, and a link back to a
//! folder already seen (a loop) is reported, never followed.
//!
//! Several roots have a priority order, as Claude Code puts project skills
//! before user skills: a skill whose identity a higher-priority root already
//! holds is *shadowed*, reported, and left out of the library. Duplicates
//! within one root are kept; a validation rule reports them.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use serde::Serialize;

use crate::skill::{SKILL_FILE, Skill, is_ignored_dir};

/// Filters on skill identities, as globs (`pdf-*`).
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

/// A skill hidden by one of the same identity in a higher-priority root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shadowed {
    pub id: String,
    /// The `SKILL.md` that wins.
    pub kept: PathBuf,
    /// The `SKILL.md` that is hidden.
    pub hidden: PathBuf,
}

/// Something the scan could not read or follow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiscoveryProblem {
    pub path: PathBuf,
    pub message: String,
}

/// The skills of one or more roots.
#[derive(Debug, Clone, Default)]
pub struct Library {
    /// The roots, highest priority first.
    pub roots: Vec<PathBuf>,
    /// Skills in root order, then path order.
    pub skills: Vec<Skill>,
    /// For each skill, the index of its root in `roots`.
    pub skill_roots: Vec<usize>,
    pub shadowed: Vec<Shadowed>,
    pub problems: Vec<DiscoveryProblem>,
}

#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("{}: no such file or directory", .0.display())]
    NotFound(PathBuf),
    #[error("invalid filter pattern `{0}`: {1}")]
    BadFilter(String, String),
}

impl Library {
    /// Opens the skills under `roots`, the first root having the highest priority.
    pub fn open(roots: &[PathBuf], filters: &Filters) -> Result<Library, LibraryError> {
        let include = glob_set(&filters.include)?;
        let exclude = glob_set(&filters.exclude)?;
        let mut library = Library {
            roots: roots.to_vec(),
            ..Library::default()
        };
        let mut dirs = Vec::new();
        for (root_index, root) in roots.iter().enumerate() {
            if !root.exists() {
                return Err(LibraryError::NotFound(root.clone()));
            }
            let found = find_skill_dirs(root, &mut library.problems);
            dirs.extend(found.into_iter().map(|dir| (root_index, dir)));
        }
        let loaded: Vec<_> = dirs
            .into_par_iter()
            .map(|(root, dir)| (root, Skill::load(&dir).map_err(|e| (dir, e))))
            .collect();
        let mut owner: HashMap<String, (usize, PathBuf)> = HashMap::new();
        for (root, result) in loaded {
            let skill = match result {
                Ok(skill) => skill,
                Err((dir, err)) => {
                    let path = dir.join(SKILL_FILE);
                    library.problems.push(DiscoveryProblem {
                        path,
                        message: err.to_string(),
                    });
                    continue;
                }
            };
            let wanted = include.as_ref().is_none_or(|set| set.is_match(&skill.id))
                && !exclude.as_ref().is_some_and(|set| set.is_match(&skill.id));
            if !wanted {
                continue;
            }
            match owner.get(&skill.id) {
                Some((owner_root, kept)) if *owner_root < root => {
                    library.shadowed.push(Shadowed {
                        id: skill.id.clone(),
                        kept: kept.clone(),
                        hidden: skill.path.clone(),
                    });
                    continue;
                }
                Some(_) => {}
                None => {
                    owner.insert(skill.id.clone(), (root, skill.path.clone()));
                }
            }
            library.skills.push(skill);
            library.skill_roots.push(root);
        }
        Ok(library)
    }

    /// Indices of the skills with identity `id`.
    pub fn find<'a>(&'a self, id: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.skills
            .iter()
            .enumerate()
            .filter(move |(_, s)| s.id == id)
            .map(|(i, _)| i)
    }
}

fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>, LibraryError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern)
            .map_err(|e| LibraryError::BadFilter(pattern.clone(), e.kind().to_string()))?;
        builder.add(glob);
    }
    builder
        .build()
        .map(Some)
        .map_err(|e| LibraryError::BadFilter(patterns.join(", "), e.to_string()))
}

/// Whether the scan enters a folder of this name.
fn is_scanned_dir(name: &str) -> bool {
    if is_ignored_dir(name) {
        return false;
    }
    !name.starts_with('.') || AGENT_DIRS.contains(&name)
}

/// Hidden folders where agents keep skills, which the scan enters.
pub const AGENT_DIRS: &[&str] = &[".claude", ".agents", ".claude-plugin"];

/// The skill directories at or under `path`, sorted. `path` may be a
/// `SKILL.md`, a skill directory or a library directory.
pub fn find_skill_dirs(path: &Path, problems: &mut Vec<DiscoveryProblem>) -> Vec<PathBuf> {
    if path.is_file() {
        return match path.parent() {
            Some(dir) if path.file_name().is_some_and(|n| n == SKILL_FILE) => {
                vec![if dir.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    dir.to_path_buf()
                }]
            }
            _ => {
                let message = format!("not a {SKILL_FILE} file or a directory");
                problems.push(DiscoveryProblem {
                    path: path.to_path_buf(),
                    message,
                });
                Vec::new()
            }
        };
    }
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    walk(path, &mut seen, &mut found, problems);
    found.sort();
    found
}

fn walk(
    dir: &Path,
    seen: &mut HashSet<PathBuf>,
    found: &mut Vec<PathBuf>,
    problems: &mut Vec<DiscoveryProblem>,
) {
    let canonical = match dir.canonicalize() {
        Ok(c) => c,
        Err(err) => {
            problems.push(DiscoveryProblem {
                path: dir.to_path_buf(),
                message: err.to_string(),
            });
            return;
        }
    };
    if !seen.insert(canonical.clone()) {
        if dir.is_symlink() {
            let message = format!(
                "symlink to {} already scanned (loop or duplicate), not followed",
                canonical.display()
            );
            problems.push(DiscoveryProblem {
                path: dir.to_path_buf(),
                message,
            });
        }
        return;
    }
    if dir.join(SKILL_FILE).is_file() {
        found.push(dir.to_path_buf());
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) => {
            problems.push(DiscoveryProblem {
                path: dir.to_path_buf(),
                message: err.to_string(),
            });
            return;
        }
    };
    let mut subdirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| is_scanned_dir(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    for sub in subdirs {
        walk(&sub, seen, found, problems);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write_skill(dir: &Path, name: &str) {
        fs::create_dir_all(dir).unwrap();
        let text =
            format!("---\nname: {name}\ndescription: Does {name}. Use when asked.\n---\nBody\n");
        fs::write(dir.join(SKILL_FILE), text).unwrap();
    }

    #[test]
    fn finds_nested_and_agent_folders_but_not_hidden_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write_skill(&root.join("a"), "a");
        write_skill(&root.join("a/inner"), "inner");
        write_skill(&root.join("group/b"), "b");
        write_skill(&root.join(".claude/skills/c"), "c");
        write_skill(&root.join(".hidden/d"), "d");
        write_skill(&root.join("node_modules/e"), "e");
        let lib = Library::open(&[root.to_path_buf()], &Filters::default()).unwrap();
        let ids: Vec<_> = lib.skills.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["c", "a", "inner", "b"]);
        let a = &lib.skills[1];
        assert!(
            a.resources.is_empty(),
            "a nested skill is not a resource: {:?}",
            a.resources
        );
    }

    #[test]
    fn a_path_may_be_a_skill_file_or_directory() {
        let tmp = tempfile::tempdir().unwrap();
        write_skill(&tmp.path().join("x"), "x");
        let mut problems = Vec::new();
        let by_file = find_skill_dirs(&tmp.path().join("x/SKILL.md"), &mut problems);
        let by_dir = find_skill_dirs(&tmp.path().join("x"), &mut problems);
        assert_eq!(by_file, by_dir);
        assert!(problems.is_empty());
    }

    #[test]
    fn higher_priority_roots_shadow_lower_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let user = tmp.path().join("user");
        write_skill(&project.join("x"), "x");
        write_skill(&user.join("x"), "x");
        write_skill(&user.join("y"), "y");
        let lib = Library::open(&[project.clone(), user], &Filters::default()).unwrap();
        assert_eq!(lib.skills.len(), 2);
        assert_eq!(lib.shadowed.len(), 1);
        assert_eq!(lib.shadowed[0].kept, project.join("x/SKILL.md"));
        assert_eq!(lib.skill_roots, [0, 1]);
    }

    #[test]
    fn filters_by_identity() {
        let tmp = tempfile::tempdir().unwrap();
        write_skill(&tmp.path().join("pdf-read"), "pdf-read");
        write_skill(&tmp.path().join("pdf-write"), "pdf-write");
        write_skill(&tmp.path().join("docx"), "docx");
        let filters = Filters {
            include: vec!["pdf-*".into()],
            exclude: vec!["*-write".into()],
        };
        let lib = Library::open(&[tmp.path().to_path_buf()], &filters).unwrap();
        let ids: Vec<_> = lib.skills.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["pdf-read"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_skills_are_followed_once_and_loops_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("lib");
        write_skill(&tmp.path().join("elsewhere/linked"), "linked");
        fs::create_dir_all(&root).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere/linked"), root.join("linked"))
            .unwrap();
        std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
        let lib = Library::open(&[root], &Filters::default()).unwrap();
        assert_eq!(lib.skills.len(), 1);
        assert!(
            lib.problems.iter().any(|p| p.message.contains("loop")),
            "{:?}",
            lib.problems
        );
    }

    #[test]
    fn missing_root_is_an_error() {
        let err = Library::open(&[PathBuf::from("/no/such/place")], &Filters::default());
        assert!(matches!(err, Err(LibraryError::NotFound(_))));
    }
}
