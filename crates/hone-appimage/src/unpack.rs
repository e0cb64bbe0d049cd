//! Unpacking an image's filesystem into a new folder, safely.
//!
//! The image is this program's own tail, but a damaged or altered one must
//! not write outside the folder: every path is checked to be plain names
//! below it, nothing is written through a symbolic link the image made,
//! files are created new (never opened over something already there), and
//! set-user-ID and set-group-ID bits are dropped.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, BufWriter};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use backhand::{FilesystemReader, InnerNode};
use globset::GlobMatcher;

use crate::image::Image;

/// What an unpacking wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Unpacked {
    pub files: usize,
    pub bytes: u64,
}

/// Unpacks `image` into `into`, which must not exist yet. With `only`, only
/// the files and links whose path (such as `usr/bin/hone`) matches it are
/// unpacked, with the folders above them.
pub fn unpack(image: &Image, into: &Path, only: Option<&GlobMatcher>) -> Result<Unpacked, String> {
    let file = File::open(&image.path)
        .map_err(|e| format!("cannot read {}: {e}", image.path.display()))?;
    let filesystem = FilesystemReader::from_reader_with_offset(BufReader::new(file), image.offset)
        .map_err(|e| format!("{}: cannot read its filesystem: {e}", image.path.display()))?;
    fs::create_dir(into).map_err(|e| format!("cannot create {}: {e}", into.display()))?;
    let mut unpacked = Unpacked::default();
    let mut links = HashSet::new();
    let mut folders = Vec::new();
    for node in filesystem.files() {
        let relative = relative_path(&node.fullpath)?;
        if relative.as_os_str().is_empty() {
            continue;
        }
        if relative
            .ancestors()
            .skip(1)
            .any(|above| links.contains(above))
        {
            return Err(format!(
                "{}: its filesystem puts {} below a symbolic link",
                image.path.display(),
                relative.display()
            ));
        }
        let wanted = match &node.inner {
            InnerNode::Dir(_) => only.is_none(),
            _ => only.is_none_or(|glob| glob.is_match(&relative)),
        };
        if !wanted {
            continue;
        }
        let target = into.join(&relative);
        let mode = u32::from(node.header.permissions) & 0o1777;
        let written = |e: io::Error| format!("cannot write {}: {e}", target.display());
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(written)?;
        }
        match &node.inner {
            InnerNode::Dir(_) => {
                fs::create_dir(&target).map_err(written)?;
                folders.push((target, mode));
            }
            InnerNode::File(file) => {
                let mut reader = filesystem.file(file).reader_checked().map_err(|e| {
                    format!(
                        "{}: cannot read {}: {e}",
                        image.path.display(),
                        relative.display()
                    )
                })?;
                let out = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&target)
                    .map_err(written)?;
                let mut out = BufWriter::with_capacity(1 << 20, out);
                unpacked.bytes += io::copy(&mut reader, &mut out).map_err(|e| {
                    format!(
                        "{}: cannot unpack {}: {e}",
                        image.path.display(),
                        relative.display()
                    )
                })?;
                let out = out.into_inner().map_err(|e| written(e.into_error()))?;
                out.set_permissions(fs::Permissions::from_mode(mode))
                    .map_err(written)?;
                unpacked.files += 1;
            }
            InnerNode::Symlink(link) => {
                std::os::unix::fs::symlink(&link.link, &target).map_err(written)?;
                links.insert(relative);
                unpacked.files += 1;
            }
            // An app's image holds no devices, pipes or sockets; they are not
            // made.
            _ => {}
        }
    }
    // Folders get their modes last, so that a read-only one was writable
    // while it filled; the owner keeps full rights, so the folder can be
    // removed.
    for (folder, mode) in folders.into_iter().rev() {
        fs::set_permissions(&folder, fs::Permissions::from_mode(mode | 0o700))
            .map_err(|e| format!("cannot write {}: {e}", folder.display()))?;
    }
    Ok(unpacked)
}

/// `path` (`/usr/bin/hone` in the image) below the image's root, refused
/// unless it is plain names.
fn relative_path(path: &Path) -> Result<PathBuf, String> {
    let mut relative = PathBuf::new();
    for component in path.components() {
        match component {
            Component::RootDir => {}
            Component::Normal(name) => relative.push(name),
            _ => {
                return Err(format!(
                    "the image names a path outside its root: {}",
                    path.display()
                ));
            }
        }
    }
    Ok(relative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_plain_names_below_the_root() {
        assert_eq!(
            relative_path(Path::new("/usr/bin/hone")).unwrap(),
            Path::new("usr/bin/hone")
        );
        assert_eq!(relative_path(Path::new("/")).unwrap(), Path::new(""));
        assert!(relative_path(Path::new("/usr/../../etc/passwd")).is_err());
        assert!(relative_path(Path::new("/./x/..")).is_err());
    }
}
