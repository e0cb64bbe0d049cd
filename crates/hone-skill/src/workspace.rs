//! Touching the files of an opened library safely: path confinement, atomic
//! saves that refuse to overwrite a change made by someone else, and the
//! folder operations of an editor (new skill, rename, delete).
//!
//! An editor holds a file's text for minutes while other programs (another
//! editor, `git checkout`, a sync tool) may rewrite it. Every read therefore
//! returns a [`Stamp`] of the bytes it saw, and [`save_atomic`] writes only if
//! the file still has that stamp: a silent overwrite of someone else's change
//! is the one mistake an editor must never make. The stamp compares content
//! hashes, not modification times, because editors and `git` rewrite files with
//! identical bytes and coarse mtimes, and a conflict must mean a real change.
//!
//! Writes go to a temporary file in the same directory, are flushed to disk,
//! and are renamed over the target, so a crash leaves the old file or the new
//! one, never half of each.
//!
//! Every path that comes from the front end goes through [`confine`] first: it
//! is canonicalised (resolving `..` and symlinks) and must then lie inside one
//! of the opened library roots.
//!
//! It also names Hone's own folder in the user's cache ([`hone_cache_dir`]),
//! where the models, the embedding and agent caches and `hone check`'s
//! caches live, so those lower modules need not ask a higher one for it.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::folder::SKILL_FILE;

/// What a file looked like when it was read: enough to tell whether it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Stamp {
    /// Hex SHA-256 of the content.
    pub hash: String,
    pub len: u64,
}

impl Stamp {
    pub fn of(bytes: &[u8]) -> Stamp {
        let digest = Sha256::digest(bytes);
        let hash = digest.iter().map(|b| format!("{b:02x}")).collect();
        Stamp {
            hash,
            len: bytes.len() as u64,
        }
    }
}

/// Reads a file and the stamp of what was read.
pub fn read_stamped(path: &Path) -> io::Result<(Vec<u8>, Stamp)> {
    let bytes = fs::read(path)?;
    let stamp = Stamp::of(&bytes);
    Ok((bytes, stamp))
}

#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The file changed on disk since it was read; `on_disk` is its current
    /// stamp (`None` when it was deleted).
    #[error("the file changed on disk since it was opened")]
    Conflict { on_disk: Option<Stamp> },
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Writes `contents` to `path` atomically, if the file still matches
/// `expected` (`None` means the file must not exist yet). Returns the new stamp.
pub fn save_atomic(
    path: &Path,
    contents: &[u8],
    expected: Option<&Stamp>,
) -> Result<Stamp, SaveError> {
    let on_disk = match fs::read(path) {
        Ok(bytes) => Some(Stamp::of(&bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    if on_disk.as_ref().map(|s| &s.hash) != expected.map(|s| &s.hash) {
        return Err(SaveError::Conflict { on_disk });
    }
    write_atomic(path, contents)?;
    Ok(Stamp::of(contents))
}

/// Whether `path` is one of the temporary files [`write_atomic`] writes
/// beside its target (`.NAME.hone-PID-N.tmp`) before renaming it over.
pub fn is_temporary(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.starts_with('.') && name.ends_with(".tmp") && name.contains(".hone-")
}

/// Writes `value` to `path` as pretty JSON, atomically ([`write_atomic`]),
/// making its folder first: state and reports Hone keeps between runs.
pub fn write_json_atomic(path: &Path, value: &impl serde::Serialize) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let json = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    write_atomic(path, &json)
}

/// Writes `contents` to `path` through a temporary file, `fsync` and rename,
/// keeping the permissions of the file it replaces.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = folder_of(path);
    let name = path
        .file_name()
        .ok_or_else(|| invalid("the path names no file"))?;
    let temp = dir.join(format!(
        "{}{}-{}.tmp",
        temporary_prefix(name),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(contents)?;
        if let Ok(metadata) = fs::metadata(path) {
            file.set_permissions(metadata.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)?;
        sync_dir(dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// How old a writer's temporary file must be before a later write of the
/// same cache file may remove it: a write in progress takes seconds.
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(600);

/// [`write_atomic`] for a file of Hone's own cache, making its folder first,
/// which also removes the temporary files that earlier writes of it left
/// behind when their process was killed mid-write (a verdict memo's is some
/// 10 MB). A temporary file is left behind only when the process named in it
/// is not running here and it is older than ten minutes, so that a writer on
/// another machine sharing the home folder keeps its file. Never for a
/// library's files.
pub fn write_cache_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    fs::create_dir_all(folder_of(path))?;
    write_atomic(path, contents)?;
    remove_abandoned_temporaries(path);
    Ok(())
}

/// Removes `path`'s temporary siblings (`.NAME.hone-PID-N.tmp`) whose
/// writer is gone (see [`write_cache_atomic`]). Linux only: elsewhere a
/// process cannot be looked up by a path, and nothing is removed.
fn remove_abandoned_temporaries(path: &Path) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let Some(name) = path.file_name() else {
        return;
    };
    let prefix = temporary_prefix(name);
    let Ok(entries) = fs::read_dir(folder_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| rest.split_once('-'))
            .map(|(pid, _)| pid)
            .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age >= ABANDONED_AFTER);
        if old && !Path::new("/proc").join(pid).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The folder `path` is in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// How the temporary files of a file named `name` begin
/// (`.NAME.hone-PID-N.tmp`, see [`write_atomic`]).
fn temporary_prefix(name: &std::ffi::OsStr) -> String {
    format!(".{}.hone-", name.to_string_lossy())
}

/// Makes the rename itself durable. Best effort: not every platform or file
/// system lets a directory be opened and synced.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

fn invalid(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_owned())
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfineError {
    #[error("{0} is outside the opened libraries")]
    Outside(PathBuf),
    #[error("{0} cannot be resolved: {1}")]
    Unresolvable(PathBuf, String),
}

/// The canonical form of `path` if it lies inside one of `roots` (which must
/// be canonical already). A path that does not exist yet (a skill being
/// created) is resolved through its deepest existing ancestor; what remains
/// may not contain `..`, so it cannot climb back out.
pub fn confine(roots: &[PathBuf], path: &Path) -> Result<PathBuf, ConfineError> {
    let resolved = resolve(path)?;
    if roots.iter().any(|root| resolved.starts_with(root)) {
        Ok(resolved)
    } else {
        Err(ConfineError::Outside(path.to_path_buf()))
    }
}

fn resolve(path: &Path) -> Result<PathBuf, ConfineError> {
    let unresolvable = |why: &str| ConfineError::Unresolvable(path.to_path_buf(), why.to_owned());
    if !path.is_absolute() {
        return Err(unresolvable("the path is not absolute"));
    }
    let mut existing = path;
    let mut missing = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(canonical) => {
                let mut resolved = canonical;
                for part in missing.iter().rev() {
                    resolved.push(part);
                }
                return Ok(resolved);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let Some(parent) = existing.parent() else {
                    return Err(unresolvable("no part of it exists"));
                };
                match existing.components().next_back() {
                    Some(Component::Normal(part)) => missing.push(part.to_owned()),
                    _ => return Err(unresolvable("a missing part is not a plain name")),
                }
                existing = parent;
            }
            Err(e) => return Err(unresolvable(&e.to_string())),
        }
    }
}

/// The canonical form of a library root the user opened.
pub fn canonical_root(path: &Path) -> io::Result<PathBuf> {
    let canonical = path.canonicalize()?;
    if !canonical.is_dir() {
        return Err(invalid("a library must be a folder"));
    }
    Ok(canonical)
}

/// Why a new skill name cannot be used as a folder and `name`.
pub fn check_new_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err("a name has 1 to 64 characters".into());
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err("a name uses only lowercase letters, digits and hyphens".into());
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Err("a name neither starts nor ends with a hyphen, nor holds two in a row".into());
    }
    Ok(())
}

/// The `SKILL.md` of a new skill: valid, and saying what to fill in.
pub fn skill_template(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Describe what this skill does and when to use it, in the third person.\n---\n\n# {title}\n\nWrite the instructions here: the steps, the conventions, and an example.\n",
        title = name.replace('-', " ")
    )
}

/// Creates `root/name/SKILL.md` from the template. Fails if the folder exists.
pub fn create_skill(root: &Path, name: &str) -> io::Result<PathBuf> {
    check_new_name(name).map_err(|why| invalid(&why))?;
    let dir = root.join(name);
    fs::create_dir(&dir)?;
    let file = dir.join(SKILL_FILE);
    write_atomic(&file, skill_template(name).as_bytes())?;
    Ok(file)
}

/// Renames a skill: rewrites its `name` (when it has a parseable frontmatter)
/// and renames its folder, so that the two stay equal. Returns the new folder.
pub fn rename_skill(dir: &Path, new_name: &str) -> io::Result<PathBuf> {
    check_new_name(new_name).map_err(|why| invalid(&why))?;
    let parent = dir
        .parent()
        .ok_or_else(|| invalid("a skill folder has a parent"))?;
    let target = parent.join(new_name);
    if target.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "a skill of that name exists",
        ));
    }
    let file = dir.join(SKILL_FILE);
    let text = fs::read_to_string(&file)?;
    let value = crate::edit::FieldValue::Text(new_name.to_owned());
    if let Ok(renamed) = crate::edit::set_field(&text, "name", &value) {
        write_atomic(&file, renamed.as_bytes())?;
    }
    fs::rename(dir, &target)?;
    Ok(target)
}

/// Hone's folder in the user's cache, if the environment names one.
pub fn hone_cache_dir() -> Option<PathBuf> {
    let from_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = from_env("XDG_CACHE_HOME")
        .or_else(|| from_env("HOME").map(|home| home.join(".cache")))
        .or_else(|| from_env("LOCALAPPDATA"))?;
    Some(base.join("hone"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_atomically_and_detects_conflicts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SKILL.md");
        let first = save_atomic(&path, b"one", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        let second = save_atomic(&path, b"two", Some(&first)).unwrap();
        // Someone else rewrites the file: saving over it with the old stamp fails.
        fs::write(&path, b"theirs").unwrap();
        match save_atomic(&path, b"mine", Some(&second)) {
            Err(SaveError::Conflict {
                on_disk: Some(stamp),
            }) => {
                assert_eq!(stamp, Stamp::of(b"theirs"))
            }
            other => panic!("expected a conflict, got {other:?}"),
        }
        assert_eq!(fs::read(&path).unwrap(), b"theirs");
        // Creating refuses an existing file; a deleted file is a conflict too.
        assert!(matches!(
            save_atomic(&path, b"x", None),
            Err(SaveError::Conflict { .. })
        ));
        fs::remove_file(&path).unwrap();
        assert!(matches!(
            save_atomic(&path, b"x", Some(&second)),
            Err(SaveError::Conflict { on_disk: None })
        ));
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert!(leftovers.is_empty(), "no temporary file is left behind");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_cache_write_removes_what_killed_writers_left_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("verdicts.json");
        let old = std::time::SystemTime::now() - ABANDONED_AFTER * 2;
        // PIDs never reach 2^22 + 1 on Linux: that writer is gone.
        let gone = dir.path().join(".verdicts.json.hone-4194305-0.tmp");
        let gone_recently = dir.path().join(".verdicts.json.hone-4194305-1.tmp");
        let running = dir
            .path()
            .join(format!(".verdicts.json.hone-{}-7.tmp", std::process::id()));
        let other_file = dir.path().join(".check.json.hone-4194305-0.tmp");
        for (file, modified) in [
            (&gone, Some(old)),
            (&gone_recently, None),
            (&running, Some(old)),
            (&other_file, Some(old)),
        ] {
            let handle = fs::File::create(file).unwrap();
            if let Some(modified) = modified {
                handle.set_modified(modified).unwrap();
            }
        }
        write_cache_atomic(&target, b"{}").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"{}");
        assert!(!gone.exists());
        assert!(gone_recently.exists() && running.exists() && other_file.exists());
    }

    #[cfg(unix)]
    #[test]
    fn atomic_writes_keep_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        fs::write(&path, "a").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&path, b"b").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o755
        );
    }

    #[test]
    fn confinement_rejects_parent_and_symlink_escapes() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = canonical_root(dir.path()).unwrap();
        fs::create_dir(root.join("a")).unwrap();
        fs::write(root.join("a/SKILL.md"), "x").unwrap();
        let roots = [root.clone()];

        assert_eq!(
            confine(&roots, &root.join("a/SKILL.md")).unwrap(),
            root.join("a/SKILL.md")
        );
        // Not yet existing paths (a new skill) resolve through their parent.
        assert_eq!(
            confine(&roots, &root.join("new/SKILL.md")).unwrap(),
            root.join("new/SKILL.md")
        );
        assert!(matches!(
            confine(&roots, &root.join("a/../../etc/passwd")),
            Err(ConfineError::Outside(_))
        ));
        assert!(confine(&roots, &root.join("missing/../../x")).is_err());
        assert!(confine(&roots, Path::new("relative/SKILL.md")).is_err());
        assert!(confine(&roots, outside.path()).is_err());

        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();
            assert!(matches!(
                confine(&roots, &root.join("link/secret")),
                Err(ConfineError::Outside(_))
            ));
        }
    }

    #[test]
    fn new_names_follow_the_naming_rule() {
        assert!(check_new_name("pdf-tools").is_ok());
        for bad in [
            "",
            "PDF",
            "a_b",
            "-a",
            "a-",
            "a--b",
            "../x",
            &"a".repeat(65),
        ] {
            assert!(check_new_name(bad).is_err(), "{bad:?} is refused");
        }
    }

    #[test]
    fn creates_and_renames_skills() {
        let dir = tempfile::tempdir().unwrap();
        let file = create_skill(dir.path(), "first-skill").unwrap();
        assert!(
            fs::read_to_string(&file)
                .unwrap()
                .contains("name: first-skill\n")
        );
        assert!(create_skill(dir.path(), "first-skill").is_err());
        assert!(create_skill(dir.path(), "../escape").is_err());

        let renamed = rename_skill(&dir.path().join("first-skill"), "second-skill").unwrap();
        assert_eq!(renamed, dir.path().join("second-skill"));
        let text = fs::read_to_string(renamed.join(SKILL_FILE)).unwrap();
        assert!(text.contains("name: second-skill\n"), "{text}");
        assert!(!dir.path().join("first-skill").exists());
    }
}
