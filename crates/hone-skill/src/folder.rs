//! The files of a skill folder: one walk, with one rule for links, behind
//! everything that lists them (the resources an agent can load, their token
//! costs, validation, and the files a pack ships), so what Hone counts is what
//! a pack carries.
//!
//! A skill folder on an author's disk holds more than the skill. Left out,
//! silently: version control and tool folders (`.git`, `node_modules`,
//! `__pycache__`, `.venv`, `.hg`, `.svn`), OS litter, compiled Python, editor
//! swap and backup files, the `.honeignore` file and what the skill's own
//! `.honeignore` (gitignore syntax) lists, nested skills (folders with their
//! own `SKILL.md`, which are skills of their own), and the skill's `evals/`
//! folder unless asked for (evals grade a skill; the agent never loads them).
//!
//! **Links**: a symlink is followed only when its target lies inside the skill
//! folder, and then read as the file or folder it points to. A link out of the
//! skill (a link to `~/.ssh` would otherwise put a key in a pack meant for
//! upload), a dangling link, and a link back into a folder being walked (a
//! loop) are left out and reported in [`SkillFiles::problems`], as are pipes,
//! sockets and devices. Only links pay for these checks.
//!
//! The library scan reads every folder of a skill to find nested skills and
//! hands those listings over ([`Listings`]), so a check lists no folder twice.
//!
//! This module owns what marks a folder as a skill ([`SKILL_FILE`]) and the
//! entry of one listed file ([`Resource`]); the skill model
//! ([`crate::skill`]) is built on these walks, so nothing here imports it.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::Gitignore;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// The file name that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The file in a skill or library folder that lists more files to leave out.
pub const IGNORE_FILE: &str = ".honeignore";

/// The most files listed for one skill; a skill folder holding a whole
/// repository must not stall the library.
const MAX_FILES: usize = 10_000;

/// Folders that are never part of a skill's content.
pub fn is_ignored_dir(name: &str) -> bool {
    matches!(
        name,
        ".git" | "node_modules" | "__pycache__" | ".venv" | ".hg" | ".svn"
    )
}

/// Files that are never part of a skill's content: OS litter, compiled
/// Python, editor swap and backup files, and the ignore file itself.
pub fn is_ignored_file(name: &str) -> bool {
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

/// How much a walk learns about each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResourceDetail {
    /// Size, mode, and whether each file is text (its first 8 KiB read):
    /// what token costs, previews and packs need.
    #[default]
    Full,
    /// Paths only, from the folder listings, with no call per file: what
    /// validation needs. Sizes are 0 and no file is text or executable.
    Paths,
}

/// What a walk of a skill folder lists.
#[derive(Debug, Clone, Copy, Default)]
pub struct WalkOptions {
    pub detail: ResourceDetail,
    /// List the skill's `evals/` folder too (packs can carry it on request).
    pub include_evals: bool,
}

/// A file of the skill directory other than `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    /// Path relative to the skill directory, with `/` separators.
    pub path: String,
    pub size: u64,
    /// Valid UTF-8 without NUL bytes in its first 8 KiB.
    pub is_text: bool,
    pub executable: bool,
}

/// The files of a skill (except `SKILL.md`), in path order, and what was
/// left out for a reason worth telling.
#[derive(Debug, Default)]
pub struct SkillFiles {
    pub files: Vec<Resource>,
    pub problems: Vec<FileProblem>,
}

/// A path of a skill folder that is not one of its files, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    pub path: PathBuf,
    pub kind: FileProblemKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileProblemKind {
    /// A symlink whose target lies outside the skill folder.
    LinkOutside,
    /// A symlink to nothing.
    LinkDangling,
    /// A symlink back into a folder being walked.
    LinkLoop,
    /// A pipe, socket or device.
    NotAFile,
    /// A folder that could not be read.
    Unreadable(String),
    /// A `.honeignore` pattern that does not parse (the others still apply).
    BadIgnoreFile(String),
    /// More than the walk lists for one skill; the rest is not listed.
    TooManyFiles,
}

impl FileProblemKind {
    /// One sentence for a person.
    pub fn message(&self) -> String {
        match self {
            FileProblemKind::LinkOutside => {
                "symlink points outside the skill; it is left out".to_owned()
            }
            FileProblemKind::LinkDangling => "symlink points to nothing; it is left out".to_owned(),
            FileProblemKind::LinkLoop => {
                "symlink leads back into a folder that contains it (a loop); it is left out"
                    .to_owned()
            }
            FileProblemKind::NotAFile => {
                "not a regular file (a pipe, socket or device); it is left out".to_owned()
            }
            FileProblemKind::Unreadable(error) => format!("cannot be read: {error}"),
            FileProblemKind::BadIgnoreFile(error) => format!("{IGNORE_FILE}: {error}"),
            FileProblemKind::TooManyFiles => {
                format!("the skill holds more than {MAX_FILES} files; the rest are not listed")
            }
        }
    }
}

/// The resources of the skill at `dir`: its files except `SKILL.md`.
pub fn scan_resources(dir: &Path) -> Vec<Resource> {
    skill_files(dir, WalkOptions::default()).files
}

/// Walks the skill folder `dir`.
pub fn skill_files(dir: &Path, options: WalkOptions) -> SkillFiles {
    listed_skill_files(dir, options, &Listings::new())
}

/// [`skill_files`], taking folder listings from `listings` where known.
pub(crate) fn listed_skill_files(
    dir: &Path,
    options: WalkOptions,
    listings: &Listings,
) -> SkillFiles {
    let mut found = SkillFiles::default();
    let entries = match listings.list(dir) {
        Ok(entries) => entries,
        Err(err) => {
            found.problems.push(FileProblem {
                path: dir.to_path_buf(),
                kind: FileProblemKind::Unreadable(err.to_string()),
            });
            return found;
        }
    };
    // Only a skill that has a `.honeignore` pays for reading one.
    let ignore = entries
        .iter()
        .any(|e| e.name == IGNORE_FILE && e.is_file)
        .then(|| {
            let (matcher, error) = Gitignore::new(dir.join(IGNORE_FILE));
            if let Some(error) = error {
                found.problems.push(FileProblem {
                    path: dir.join(IGNORE_FILE),
                    kind: FileProblemKind::BadIgnoreFile(error.to_string()),
                });
            }
            matcher
        });
    let mut walk = Walk {
        dir,
        options,
        listings,
        ignore: ignore.as_ref(),
        root: OnceCell::new(),
        ancestors: vec![dir.to_path_buf()],
        found: &mut found,
    };
    walk.list("", &entries);
    found.files.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// The state of walking one skill folder.
struct Walk<'a> {
    dir: &'a Path,
    options: WalkOptions,
    listings: &'a Listings,
    ignore: Option<&'a Gitignore>,
    /// The skill folder, canonical; resolved on the first link met.
    root: OnceCell<Option<PathBuf>>,
    /// The folders being listed, outermost first.
    ancestors: Vec<PathBuf>,
    found: &'a mut SkillFiles,
}

impl Walk<'_> {
    fn list(&mut self, prefix: &str, entries: &[Entry]) {
        for entry in entries {
            if self.found.files.len() >= MAX_FILES {
                self.problem(self.dir, FileProblemKind::TooManyFiles);
                return;
            }
            let path = if prefix.is_empty() {
                entry.name.clone()
            } else {
                format!("{prefix}/{}", entry.name)
            };
            let left_out_by_name = if entry.is_dir {
                is_ignored_dir(&entry.name)
                    || (prefix.is_empty() && entry.name == "evals" && !self.options.include_evals)
            } else {
                path == SKILL_FILE || is_ignored_file(&entry.name)
            };
            if left_out_by_name
                || self
                    .ignore
                    .is_some_and(|m| m.matched(&entry.path, entry.is_dir).is_ignore())
            {
                continue;
            }
            if entry.is_link {
                let kind = if !entry.is_dir && !entry.is_file {
                    Some(FileProblemKind::LinkDangling)
                } else if !self.points_inside(&entry.path) {
                    Some(FileProblemKind::LinkOutside)
                } else if entry.is_dir && links_back(&entry.path, &self.ancestors) {
                    Some(FileProblemKind::LinkLoop)
                } else {
                    None
                };
                if let Some(kind) = kind {
                    self.problem(&entry.path, kind);
                    continue;
                }
            }
            if entry.is_dir {
                let children = match self.listings.list(&entry.path) {
                    Ok(children) => children,
                    Err(err) => {
                        self.problem(&entry.path, FileProblemKind::Unreadable(err.to_string()));
                        continue;
                    }
                };
                // A folder with its own SKILL.md is another skill.
                if children.iter().any(|c| c.name == SKILL_FILE && c.is_file) {
                    continue;
                }
                self.ancestors.push(entry.path.clone());
                self.list(&path, &children);
                self.ancestors.pop();
                continue;
            }
            if !entry.is_file {
                self.problem(&entry.path, FileProblemKind::NotAFile);
                continue;
            }
            let resource = match self.options.detail {
                ResourceDetail::Paths => Resource {
                    path,
                    size: 0,
                    is_text: false,
                    executable: false,
                },
                ResourceDetail::Full => {
                    let Ok(metadata) = std::fs::metadata(&entry.path) else {
                        continue;
                    };
                    Resource {
                        is_text: is_text_file(&entry.path),
                        executable: is_executable(&metadata),
                        size: metadata.len(),
                        path,
                    }
                }
            };
            self.found.files.push(resource);
        }
    }

    fn problem(&mut self, path: &Path, kind: FileProblemKind) {
        self.found.problems.push(FileProblem {
            path: path.to_path_buf(),
            kind,
        });
    }

    /// Whether the symlink `link` resolves to a path inside the skill folder.
    fn points_inside(&self, link: &Path) -> bool {
        let root = self.root.get_or_init(|| self.dir.canonicalize().ok());
        root.as_ref()
            .is_some_and(|root| link.canonicalize().is_ok_and(|t| t.starts_with(root)))
    }
}

/// One entry of a folder listing, with a symlink's target resolved.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub name: String,
    pub path: PathBuf,
    /// A folder, or a link to one.
    pub is_dir: bool,
    /// A regular file, or a link to one.
    pub is_file: bool,
    pub is_link: bool,
}

/// What a folder listing says an entry is, before links are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listed {
    Dir,
    File,
    Link,
    /// A pipe, socket or device.
    Other,
}

impl From<std::fs::FileType> for Listed {
    fn from(kind: std::fs::FileType) -> Listed {
        if kind.is_symlink() {
            Listed::Link
        } else if kind.is_dir() {
            Listed::Dir
        } else if kind.is_file() {
            Listed::File
        } else {
            Listed::Other
        }
    }
}

impl Entry {
    /// An entry of the kind the listing gave; links (and entries of unknown
    /// kind) are resolved with a `stat`. An entry that vanished is left out.
    fn new(name: String, path: PathBuf, kind: Option<Listed>) -> Option<Entry> {
        let kind = match kind {
            Some(kind) => kind,
            None => Listed::from(std::fs::symlink_metadata(&path).ok()?.file_type()),
        };
        let (is_dir, is_file, is_link) = match kind {
            // A dangling link is listed as neither, for walks to report.
            Listed::Link => match std::fs::metadata(&path) {
                Ok(target) => (target.is_dir(), target.is_file(), true),
                Err(_) => (false, false, true),
            },
            Listed::Dir => (true, false, false),
            Listed::File => (false, true, false),
            Listed::Other => (false, false, false),
        };
        Some(Entry {
            name,
            path,
            is_dir,
            is_file,
            is_link,
        })
    }
}

/// A folder's entries sorted by name, with symlinks resolved (a link whose
/// target is missing is neither a folder nor a file).
pub(crate) fn list_dir(dir: &Path) -> std::io::Result<Vec<Entry>> {
    list_dir_in(None, dir).map(|(entries, _)| entries)
}

/// A folder left open by [`list_dir_in`], for its subfolders to be opened
/// relative to it.
#[cfg(unix)]
pub(crate) struct OpenDir(rustix::fs::Dir);
#[cfg(not(unix))]
pub(crate) struct OpenDir;

/// [`list_dir`] of `dir`, opened by its name alone inside `parent` when
/// `dir` is a subfolder of it, and returned still open. A library scan opens
/// thousands of folders a few levels down: named from their parent, the
/// kernel resolves one name instead of the whole path each time, and the
/// entries are read with `getdents64` directly, without the `fstat` and the
/// 32 KiB buffer `opendir` spends on every folder.
#[cfg(unix)]
pub(crate) fn list_dir_in(
    parent: Option<&OpenDir>,
    dir: &Path,
) -> std::io::Result<(Vec<Entry>, OpenDir)> {
    use rustix::fs::{CWD, Dir, FileType, Mode, OFlags, openat};
    use std::os::unix::ffi::OsStrExt;

    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let fd = match (parent.map(|p| p.0.fd()), dir.file_name()) {
        (Some(Ok(parent)), Some(name)) => openat(parent, name, flags, Mode::empty())?,
        _ => openat(CWD, dir, flags, Mode::empty())?,
    };
    let mut listing = Dir::new(fd)?;
    let mut entries = Vec::new();
    // An entry that cannot be read ends the listing, as it ends `readdir`.
    while let Some(Ok(entry)) = listing.read() {
        let name = std::ffi::OsStr::from_bytes(entry.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Directory => Some(Listed::Dir),
            FileType::RegularFile => Some(Listed::File),
            FileType::Symlink => Some(Listed::Link),
            FileType::Unknown => None,
            _ => Some(Listed::Other),
        };
        let name_text = name.to_string_lossy().into_owned();
        entries.extend(Entry::new(name_text, dir.join(name), kind));
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((entries, OpenDir(listing)))
}

#[cfg(not(unix))]
pub(crate) fn list_dir_in(
    _parent: Option<&OpenDir>,
    dir: &Path,
) -> std::io::Result<(Vec<Entry>, OpenDir)> {
    let mut entries: Vec<Entry> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().ok().map(Listed::from);
            Entry::new(name, entry.path(), kind)
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((entries, OpenDir))
}

/// Folder listings already read, by path: the library scan reads every folder
/// of a skill to find nested skills, and hands the listings to the skill's
/// resource scan so that no folder is read twice.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listings(FxHashMap<PathBuf, Arc<[Entry]>>);

impl Listings {
    pub fn new() -> Listings {
        Listings::default()
    }

    pub fn insert(&mut self, dir: PathBuf, entries: Arc<[Entry]>) {
        self.0.insert(dir, entries);
    }

    pub fn extend(&mut self, other: Listings) {
        self.0.extend(other.0);
    }

    /// The listing of `dir`, from memory when known.
    fn list(&self, dir: &Path) -> std::io::Result<Arc<[Entry]>> {
        match self.0.get(dir) {
            Some(entries) => Ok(entries.clone()),
            None => list_dir(dir).map(Arc::from),
        }
    }
}

/// Whether the linked folder `link` is one of `ancestors`: a loop. Only a
/// symlink can close a loop, so only links pay for the check.
fn links_back(link: &Path, ancestors: &[PathBuf]) -> bool {
    let Some(target) = folder_identity(link) else {
        return true;
    };
    ancestors
        .iter()
        .any(|dir| folder_identity(dir) == Some(target))
}

#[cfg(unix)]
fn folder_identity(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(dir).ok()?;
    Some((metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn folder_identity(_dir: &Path) -> Option<(u64, u64)> {
    None
}

fn is_text_file(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8192];
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(n) = file.read(&mut head) else {
        return false;
    };
    let head = &head[..n];
    if memchr::memchr(0, head).is_some() {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        // A multi-byte character cut at the 8 KiB boundary is still text.
        Err(e) => e.error_len().is_none(),
    }
}

/// Whether a file may be run: any execute bit set (never on other systems).
#[cfg(unix)]
pub fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
pub fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(found: &SkillFiles) -> Vec<&str> {
        found.files.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn swap_and_backup_files_are_recognised() {
        for name in [
            ".SKILL.md.swp",
            ".a.swo",
            ".a.swa",
            "notes.md~",
            ".#notes.md",
            "#notes.md#",
        ] {
            assert!(is_swap_file(name), "{name}");
        }
        for name in ["swap.md", "a.swz", "#", "readme.md", ".swp", "x.pdf"] {
            assert!(!is_swap_file(name), "{name}");
        }
        for name in [".DS_Store", IGNORE_FILE, "x.pyc", ".a.swp"] {
            assert!(is_ignored_file(name), "{name}");
        }
    }

    #[test]
    fn litter_evals_nested_skills_and_honeignored_files_are_left_out() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for file in [
            "SKILL.md",
            "ref.md",
            "scripts/run.py",
            "scripts/run.pyc",
            ".DS_Store",
            ".git/config",
            "node_modules/x/index.js",
            "evals/evals.json",
            "docs/evals/kept.md",
            "nested/SKILL.md",
            "nested/inner.md",
            "drafts/wip.md",
            "notes.md~",
        ] {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        std::fs::write(dir.join(IGNORE_FILE), "drafts/\n").unwrap();
        let found = skill_files(dir, WalkOptions::default());
        assert_eq!(
            paths(&found),
            ["docs/evals/kept.md", "ref.md", "scripts/run.py"]
        );
        assert!(found.problems.is_empty(), "{:?}", found.problems);

        let with_evals = WalkOptions {
            include_evals: true,
            ..WalkOptions::default()
        };
        assert!(paths(&skill_files(dir, with_evals)).contains(&"evals/evals.json"));
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_only_inside_the_skill() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("skill");
        std::fs::create_dir_all(dir.join("real")).unwrap();
        std::fs::write(dir.join("SKILL.md"), "x").unwrap();
        std::fs::write(dir.join("real/data.md"), "data").unwrap();
        std::fs::write(tmp.path().join("secret"), "key").unwrap();
        symlink(dir.join("real/data.md"), dir.join("alias.md")).unwrap();
        symlink(dir.join("real"), dir.join("linked")).unwrap();
        symlink(tmp.path().join("secret"), dir.join("leak.md")).unwrap();
        symlink(tmp.path(), dir.join("up")).unwrap();
        symlink(dir.join("missing"), dir.join("dangling")).unwrap();
        symlink(&dir, dir.join("real/loop")).unwrap();

        let found = skill_files(&dir, WalkOptions::default());
        assert_eq!(
            paths(&found),
            ["alias.md", "linked/data.md", "real/data.md"]
        );
        let mut problems: Vec<(String, FileProblemKind)> = found
            .problems
            .iter()
            .map(|p| {
                let name = p
                    .path
                    .strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                (name, p.kind.clone())
            })
            .collect();
        problems.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            problems,
            [
                ("dangling".to_owned(), FileProblemKind::LinkDangling),
                ("leak.md".to_owned(), FileProblemKind::LinkOutside),
                ("linked/loop".to_owned(), FileProblemKind::LinkLoop),
                ("real/loop".to_owned(), FileProblemKind::LinkLoop),
                ("up".to_owned(), FileProblemKind::LinkOutside),
            ]
        );
    }

    #[test]
    fn files_are_listed_with_their_detail_and_nested_skills_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        for (path, text) in [
            ("SKILL.md", "---\nname: s\n---\n"),
            ("b.txt", "text"),
            ("a/z.bin", "\0\0"),
            ("inner/SKILL.md", "---\nname: inner\n---\n"),
            ("inner/x.txt", ""),
            (".git/config", ""),
        ] {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("a"), dir.join("linked")).unwrap();
            std::os::unix::fs::symlink(&dir, dir.join("a/loop")).unwrap();
        }
        let resources = scan_resources(&dir);
        let listed: Vec<(&str, bool)> = resources
            .iter()
            .map(|r| (r.path.as_str(), r.is_text))
            .collect();
        let mut expected = vec![("a/z.bin", false), ("b.txt", true)];
        if cfg!(unix) {
            expected.push(("linked/z.bin", false));
        }
        assert_eq!(listed, expected);
        let paths_only = WalkOptions {
            detail: ResourceDetail::Paths,
            ..WalkOptions::default()
        };
        let unread = skill_files(&dir, paths_only).files;
        assert!(unread.iter().all(|r| !r.is_text && r.size == 0));
        assert_eq!(unread.len(), resources.len());
    }
}
