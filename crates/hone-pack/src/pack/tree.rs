//! Writing a folder as a whole: every file is written into a staging folder
//! beside the destination, and only when all of them are there is the staging
//! folder renamed into place. A folder that is already there is replaced only
//! when the caller forces it, and then by rename too, so an interrupted export
//! or install leaves either the old folder or the new one, never a mix.

use std::fs;
use std::path::{Path, PathBuf};

use super::PackError;
use super::import::nearest_existing_ancestor;

/// A folder being built beside its destination.
pub(crate) struct Staging {
    dir: tempfile::TempDir,
    destination: PathBuf,
}

impl Staging {
    /// A staging folder for `destination`, on the same file system so that
    /// moving it into place is a rename.
    pub fn new(destination: &Path) -> Result<Staging, PackError> {
        let parent = nearest_existing_ancestor(destination);
        let dir = tempfile::Builder::new()
            .prefix(".hone-staging-")
            .tempdir_in(&parent)
            .map_err(PackError::io(&parent))?;
        Ok(Staging {
            dir,
            destination: std::path::absolute(destination)
                .unwrap_or_else(|_| destination.to_path_buf()),
        })
    }

    /// Writes `bytes` at `relative` (`/`-separated) in the staged folder.
    pub fn write(&self, relative: &str, bytes: &[u8], executable: bool) -> Result<(), PackError> {
        let path = self.dir.path().join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(PackError::io(parent))?;
        }
        fs::write(&path, bytes).map_err(PackError::io(&path))?;
        set_executable(&path, executable)
    }

    /// Copies the file at `source` to `relative` in the staged folder.
    pub fn copy(&self, relative: &str, source: &Path, executable: bool) -> Result<(), PackError> {
        let bytes = fs::read(source).map_err(PackError::io(source))?;
        self.write(relative, &bytes, executable)
    }

    /// Moves the staged folder to the destination. An existing destination
    /// (other than an empty folder) is replaced only with `force`; it is moved
    /// aside first and put back if the move fails.
    pub fn commit(self, force: bool) -> Result<PathBuf, PackError> {
        let destination = self.destination.clone();
        let existing = fs::symlink_metadata(&destination).is_ok();
        if existing && !is_empty_dir(&destination) && !force {
            return Err(PackError::FolderExists(destination));
        }
        if let Some(parent) = destination.parent() {
            fs::create_dir_all(parent).map_err(PackError::io(parent))?;
        }
        let staged = self.dir.keep();
        let aside = destination.with_file_name(format!(
            ".{}.hone-replaced-{}",
            destination
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
            std::process::id()
        ));
        if existing {
            fs::rename(&destination, &aside).map_err(PackError::io(&destination))?;
        }
        if let Err(source) = fs::rename(&staged, &destination) {
            if existing {
                let _ = fs::rename(&aside, &destination);
            }
            let _ = fs::remove_dir_all(&staged);
            return Err(PackError::Io {
                path: destination,
                source,
            });
        }
        if existing {
            remove_any(&aside).map_err(PackError::io(&aside))?;
        }
        Ok(destination)
    }
}

fn is_empty_dir(path: &Path) -> bool {
    fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

/// Removes a file, a link or a folder and everything in it.
pub(crate) fn remove_any(path: &Path) -> std::io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
    }
}

#[cfg(unix)]
fn set_executable(path: &Path, executable: bool) -> Result<(), PackError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = if executable { 0o755 } else { 0o644 };
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(PackError::io(path))
}

#[cfg(not(unix))]
fn set_executable(_: &Path, _: bool) -> Result<(), PackError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_folder_is_kept_unless_forced_and_then_replaced_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let destination = tmp.path().join("out");
        fs::create_dir(&destination).unwrap();
        fs::write(destination.join("old.txt"), "old").unwrap();

        let staging = Staging::new(&destination).unwrap();
        staging.write("a/new.txt", b"new", false).unwrap();
        assert!(matches!(
            staging.commit(false),
            Err(PackError::FolderExists(_))
        ));
        assert_eq!(
            fs::read_to_string(destination.join("old.txt")).unwrap(),
            "old"
        );

        let staging = Staging::new(&destination).unwrap();
        staging.write("a/new.txt", b"new", false).unwrap();
        staging.commit(true).unwrap();
        assert!(!destination.join("old.txt").exists());
        assert_eq!(
            fs::read_to_string(destination.join("a/new.txt")).unwrap(),
            "new"
        );
        let litter: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(litter.len(), 1, "only the destination is left");
    }

    #[test]
    fn an_empty_folder_is_filled_without_force() {
        let tmp = tempfile::tempdir().unwrap();
        let staging = Staging::new(tmp.path()).unwrap();
        staging.write("x", b"x", true).unwrap();
        staging.commit(false).unwrap();
        assert!(tmp.path().join("x").is_file());
    }
}
