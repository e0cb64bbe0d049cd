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

use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::folder::{
    Entry, Listings, OpenDir, ResourceDetail, SKILL_FILE, is_ignored_dir, list_dir_in,
};
use crate::skill::Skill;

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
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
    /// The skill folders the scan found, with the folder listings each
    /// skill loaded from. Nothing reads them afterwards: they are kept so
    /// that they are freed with the library, not while skills load. The
    /// workers listed the folders, so a worker loading a skill and freeing
    /// what it was handed gave most of those small blocks back to the other
    /// worker's heap, and each then waited on the other's lock (some 400
    /// sleeps on those locks in a first check of the shared corpus, one or
    /// two now). Kept, that check ran 9% faster (31 interleaved rounds:
    /// 196.6 -> 178.3 ms wall), for about 7.5 MiB more at its peak; freed
    /// after the load, on one thread, it gained nothing. The CLI never frees
    /// the library.
    pub(crate) scanned: Vec<(PathBuf, Listings)>,
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
        Library::open_with(roots, filters, ResourceDetail::Full)
    }

    /// [`Library::open`], choosing how much to learn about resource files
    /// (validation needs only their paths). Folders are listed in parallel
    /// (see [`list_tree`]), then skills load in parallel.
    pub fn open_with(
        roots: &[PathBuf],
        filters: &Filters,
        detail: ResourceDetail,
    ) -> Result<Library, LibraryError> {
        let include = glob_set(&filters.include)?;
        let exclude = glob_set(&filters.exclude)?;
        let mut library = Library {
            roots: roots.to_vec(),
            ..Library::default()
        };
        if let Some(missing) = roots.iter().find(|root| !root.exists()) {
            return Err(LibraryError::NotFound(missing.clone()));
        }
        let mut problems = Vec::new();
        let mut found = Vec::new();
        for (root_index, root) in roots.iter().enumerate() {
            scan_skill_dirs(root, &mut problems, &mut |dir, listings| {
                found.push((root_index, dir, listings));
            });
        }
        // Sorted before loading, which keeps the order: moving loaded skills
        // about costs more than moving their paths.
        found.sort_by(|(root_a, a, _), (root_b, b, _)| (root_a, a).cmp(&(root_b, b)));
        // In runs of at most eight skills: rayon otherwise hands each thread
        // a few long runs, and a skill costs from microseconds to a
        // millisecond, so one thread was left finishing its run alone (the
        // last fifth of the loading, on the corpus).
        let (loaded, scanned): (Vec<_>, Vec<_>) = found
            .into_par_iter()
            .with_max_len(8)
            .map(|(root, dir, listings): (usize, PathBuf, Listings)| {
                let loaded =
                    Skill::load_listed(&dir, detail, &listings).map_err(|e| (dir.clone(), e));
                ((root, loaded), (dir, listings))
            })
            .unzip();
        library.scanned = scanned;
        library.problems = problems;
        library.skills.reserve_exact(loaded.len());
        library.skill_roots.reserve_exact(loaded.len());
        let mut owner: FxHashMap<String, (usize, PathBuf)> = FxHashMap::default();
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

/// Files under `roots` named `SKILL.md` in another case (`skill.md`,
/// `Skill.md`), which the scan does not take for skills: the spec names the
/// file `SKILL.md` and Claude Code and Copilot ("Skill files must be named
/// `SKILL.md`") read only that name, while skills-ref also accepts a
/// lowercase `skill.md` (`find_skill_md`). Used to explain an empty library.
/// At most `limit`, after looking at no more than 20,000 entries.
pub fn misnamed_skill_files(roots: &[PathBuf], limit: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut seen = 0usize;
    for root in roots {
        let walk = walkdir::WalkDir::new(root)
            .max_depth(12)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !e.file_type().is_dir()
                    || is_scanned_dir(&e.file_name().to_string_lossy())
            });
        for entry in walk.filter_map(Result::ok) {
            seen += 1;
            if seen > 20_000 || found.len() >= limit {
                return found;
            }
            let name = entry.file_name().to_string_lossy();
            if entry.file_type().is_file()
                && name.eq_ignore_ascii_case(SKILL_FILE)
                && name != SKILL_FILE
            {
                found.push(entry.path().to_path_buf());
            }
        }
    }
    found
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
    let mut found = Vec::new();
    scan_skill_dirs(path, problems, &mut |dir, _| found.push(dir));
    found.sort();
    found
}

/// Calls `on_skill` with each skill directory at or under `path` and the
/// listings of the folders in it, once its folder has been scanned.
fn scan_skill_dirs(
    path: &Path,
    problems: &mut Vec<DiscoveryProblem>,
    on_skill: &mut dyn FnMut(PathBuf, Listings),
) {
    if path.is_file() {
        match path.parent() {
            Some(dir) if path.file_name().is_some_and(|n| n == SKILL_FILE) => {
                let dir = if dir.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    dir.to_path_buf()
                };
                on_skill(dir, Listings::new());
            }
            _ => {
                let message = format!("not a {SKILL_FILE} file or a directory");
                problems.push(DiscoveryProblem {
                    path: path.to_path_buf(),
                    message,
                });
            }
        }
        return;
    }
    let mut scan = Scan {
        root: path.canonicalize().unwrap_or_else(|_| path.to_path_buf()),
        followed: Vec::new(),
        on_skill,
        problems,
    };
    scan.walk(list_tree(path), None);
}

/// A folder and its entries, as [`list_tree`] read it, with the folders
/// under it that the scan enters.
struct ListedDir {
    path: PathBuf,
    entries: std::io::Result<Vec<Entry>>,
    /// The listed subfolders that are no links, in the order of `entries`.
    subdirs: Vec<ListedDir>,
}

/// The listing of `dir` and of every folder under it that the scan enters,
/// read in parallel. Links are listed but not entered: whether the scan
/// follows one depends on the links it met before, which [`Scan::walk`]
/// decides in order, from these listings. Kept as a tree, so the walk finds
/// each listing in hand rather than by its path.
fn list_tree(dir: &Path) -> ListedDir {
    list_tree_in(None, dir.to_path_buf())
}

/// [`list_tree`] of `dir`, a subfolder of `parent` when given; each folder
/// stays open while its subfolders are listed, which open relative to it.
fn list_tree_in(parent: Option<&OpenDir>, dir: PathBuf) -> ListedDir {
    let (entries, open) = match list_dir_in(parent, &dir) {
        Ok((entries, open)) => (Ok(entries), Some(open)),
        Err(err) => (Err(err), None),
    };
    let subdirs = match &entries {
        Ok(entries) => entries
            .par_iter()
            .filter(|e| is_entered_unlinked(e))
            .map(|sub| list_tree_in(open.as_ref(), sub.path.clone()))
            .collect(),
        Err(_) => Vec::new(),
    };
    ListedDir {
        path: dir,
        entries,
        subdirs,
    }
}

/// A subfolder [`list_tree`] lists ahead: one the scan enters, and no link.
fn is_entered_unlinked(entry: &Entry) -> bool {
    entry.is_dir && !entry.is_link && is_scanned_dir(&entry.name)
}

/// The state of scanning one root. Folders are listed without a `stat`
/// each: only a symlink can reach a folder twice, so only links are resolved.
struct Scan<'p> {
    /// The root, resolved.
    root: PathBuf,
    /// Resolved targets of the links followed out of the root.
    followed: Vec<PathBuf>,
    on_skill: &'p mut dyn FnMut(PathBuf, Listings),
    problems: &'p mut Vec<DiscoveryProblem>,
}

impl Scan<'_> {
    /// Scans the folder `listed`. Inside a skill, `kept` collects the
    /// listings read, for the skill's resource scan.
    fn walk(&mut self, listed: ListedDir, kept: Option<&mut Listings>) {
        let ListedDir {
            path: dir,
            entries,
            subdirs: listed_subdirs,
        } = listed;
        let entries = match entries {
            Ok(entries) => entries,
            Err(err) => {
                self.problems.push(DiscoveryProblem {
                    path: dir,
                    message: err.to_string(),
                });
                return;
            }
        };
        let is_skill = entries.iter().any(|e| e.name == SKILL_FILE && e.is_file);
        // The listed subfolders come in the order of the entries; a link to
        // a folder, when followed, is listed now (the first folder of a tree
        // not yet listed).
        let mut listed_subdirs = listed_subdirs.into_iter();
        let subdirs: Vec<ListedDir> = entries
            .iter()
            .filter(|e| e.is_dir && is_scanned_dir(&e.name))
            .filter_map(|e| {
                if is_entered_unlinked(e) {
                    listed_subdirs.next()
                } else {
                    self.follow(&e.path).then(|| list_tree(&e.path))
                }
            })
            .collect();
        let entries: Arc<[Entry]> = entries.into();
        if is_skill {
            let mut own = Listings::new();
            own.insert(dir.clone(), entries);
            for sub in subdirs {
                self.walk(sub, Some(&mut own));
            }
            match kept {
                // A nested skill's folders are also its parent's.
                Some(kept) => {
                    (self.on_skill)(dir, own.clone());
                    kept.extend(own);
                }
                None => (self.on_skill)(dir, own),
            }
        } else if let Some(kept) = kept {
            kept.insert(dir, entries);
            for sub in subdirs {
                self.walk(sub, Some(kept));
            }
        } else {
            for sub in subdirs {
                self.walk(sub, None);
            }
        }
    }

    /// Whether to scan the folder `link` points to: not when the scan reaches
    /// it anyway (inside the root, through scanned folders) or already did (a
    /// loop, or a second link to it).
    fn follow(&mut self, link: &Path) -> bool {
        let Ok(target) = link.canonicalize() else {
            return false;
        };
        let scanned_anyway = target.strip_prefix(&self.root).is_ok_and(|inside| {
            inside
                .components()
                .all(|c| is_scanned_dir(&c.as_os_str().to_string_lossy()))
        });
        if scanned_anyway || self.followed.iter().any(|f| target.starts_with(f)) {
            let message = format!(
                "symlink to {} already scanned (loop or duplicate), not followed",
                target.display()
            );
            self.problems.push(DiscoveryProblem {
                path: link.to_path_buf(),
                message,
            });
            return false;
        }
        self.followed.push(target);
        true
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

    #[test]
    fn the_scans_listings_are_kept_with_the_library() {
        // Freed while skills load, they cost a first check of a large
        // library its workers' heap locks (see `Library::scanned`).
        let tmp = tempfile::tempdir().unwrap();
        write_skill(&tmp.path().join("a"), "a");
        write_skill(&tmp.path().join("b"), "b");
        let lib = Library::open(&[tmp.path().to_path_buf()], &Filters::default()).unwrap();
        let dirs: Vec<_> = lib.scanned.iter().map(|(dir, _)| dir.clone()).collect();
        let skill_dirs: Vec<_> = lib.skills.iter().map(|s| s.dir.clone()).collect();
        assert_eq!(dirs, skill_dirs);
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
        // A second link to the same folder, and one to a skill of the root.
        std::os::unix::fs::symlink(tmp.path().join("elsewhere/linked"), root.join("again"))
            .unwrap();
        write_skill(&root.join("real"), "real");
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        let lib = Library::open(std::slice::from_ref(&root), &Filters::default()).unwrap();
        let paths: Vec<_> = lib.skills.iter().map(|s| s.dir.clone()).collect();
        // Links are followed in path order: `again` before `linked`.
        assert_eq!(paths, [root.join("again"), root.join("real")]);
        let skipped: Vec<_> = lib.problems.iter().map(|p| p.path.clone()).collect();
        assert_eq!(
            skipped,
            [root.join("alias"), root.join("linked"), root.join("loop")]
        );
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
