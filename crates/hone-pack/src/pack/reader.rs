//! Reading an untrusted pack: first its central directory, checked without
//! inflating a byte, then its contents, extracted into a private temporary
//! folder with every size and checksum checked as it is written.
//!
//! The listing pass refuses everything that can be refused from the headers:
//! too many entries (from the end record, before the directory is parsed),
//! unsafe or non-UTF-8 names, links and device entries, duplicates, case
//! collisions, declared sizes and compression ratios over the [`Limits`],
//! encryption and unknown compression methods, and a layout that is not one
//! folder per skill. Headers can lie, so extraction checks again: an entry
//! that inflates past its declared size is cut off and refused, and the local
//! headers must agree with the central directory (the crate's consistency
//! check also catches overlapping entries, the trick of the densest bombs).
//!
//! The Finder's `__MACOSX/` folder and `.DS_Store` files are checked like
//! every entry and then skipped, not refused: they are in most zips made by
//! hand on a Mac and hold nothing of the skill.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tempfile::TempDir;
use zip::{CompressionMethod, ZipArchive};

use super::manifest::MANIFEST_FILE;
use super::{Limits, PackError, Rejection, RejectionKind, hex, names};
use crate::folder::SKILL_FILE;

/// A manifest larger than this is not a manifest.
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// One entry of the central directory that passed the name checks.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// As stored, without a directory's trailing `/`.
    pub name: String,
    pub is_dir: bool,
    /// Uncompressed, as declared.
    pub size: u64,
    pub executable: bool,
}

/// The central directory, checked.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    pub entries: Vec<Entry>,
    /// The skill folders, sorted.
    pub skills: BTreeSet<String>,
    pub problems: Vec<Rejection>,
}

fn reject(kind: RejectionKind, entry: Option<&str>, message: impl Into<String>) -> Rejection {
    Rejection {
        kind,
        entry: entry.map(str::to_owned),
        message: message.into(),
    }
}

fn open(pack: &Path) -> Result<File, PackError> {
    File::open(pack).map_err(PackError::io(pack))
}

/// Lists and checks the pack's entries without extracting anything.
pub(crate) fn list(pack: &Path, limits: &Limits) -> Result<Listing, PackError> {
    let mut listing = Listing::default();
    let mut file = open(pack)?;
    let compressed_total = file.metadata().map_err(PackError::io(pack))?.len();
    // The end record's count is read before the central directory is parsed,
    // so a directory of millions of entries is refused before it costs memory.
    let declared = declared_entry_count(&mut file).map_err(PackError::io(pack))?;
    if let Some(count) = declared.filter(|&n| n > limits.max_entries as u64) {
        let message = format!(
            "{count} entries, more than the limit of {}",
            limits.max_entries
        );
        listing
            .problems
            .push(reject(RejectionKind::TooManyEntries, None, message));
        return Ok(listing);
    }
    let archive = match ZipArchive::new(file) {
        Ok(archive) => archive,
        Err(err) => {
            listing.problems.push(reject(
                RejectionKind::Corrupt,
                None,
                format!("not a readable zip: {err}"),
            ));
            return Ok(listing);
        }
    };
    if archive.len() > limits.max_entries {
        let message = format!(
            "{} entries, more than the limit of {}",
            archive.len(),
            limits.max_entries
        );
        listing
            .problems
            .push(reject(RejectionKind::TooManyEntries, None, message));
        return Ok(listing);
    }
    if archive.has_duplicate_names() {
        let message = "the same name appears more than once in the central directory";
        listing
            .problems
            .push(reject(RejectionKind::DuplicateEntry, None, message));
    }
    let mut seen = HashSet::new();
    let mut seen_folded: HashMap<String, String> = HashMap::new();
    let mut total: u64 = 0;
    for index in 0..archive.len() {
        let entry = match archive.by_index_data(index) {
            Ok(entry) => entry,
            Err(err) => {
                listing.problems.push(reject(
                    RejectionKind::Corrupt,
                    None,
                    format!("unreadable central directory: {err}"),
                ));
                break;
            }
        };
        let raw = entry.name_raw();
        let Ok(name) = std::str::from_utf8(raw) else {
            let shown = String::from_utf8_lossy(raw);
            listing.problems.push(reject(
                RejectionKind::NotUtf8,
                Some(&shown),
                "the name is not valid UTF-8",
            ));
            continue;
        };
        let problems_before = listing.problems.len();
        let mut problem =
            |kind, message: String| listing.problems.push(reject(kind, Some(name), message));
        if let Err((kind, message)) = names::check_entry_path(name) {
            problem(kind, message);
        }
        let is_dir = entry.is_dir();
        let trimmed = name.strip_suffix('/').unwrap_or(name).to_owned();
        if entry.is_symlink() {
            problem(
                RejectionKind::Symlink,
                "symbolic link entries are not allowed".into(),
            );
        } else if entry
            .unix_mode()
            .is_some_and(|mode| !matches!(mode & 0o170_000, 0 | 0o100_000 | 0o040_000))
        {
            problem(
                RejectionKind::SpecialFile,
                "a device, pipe or socket entry".into(),
            );
        }
        if entry.encrypted() {
            problem(
                RejectionKind::Encrypted,
                "encrypted entries are not supported".into(),
            );
        }
        if !matches!(
            entry.compression(),
            CompressionMethod::Stored | CompressionMethod::Deflated
        ) {
            let message = format!(
                "compression method {} is not supported (stored and deflate are)",
                entry.compression()
            );
            problem(RejectionKind::UnsupportedCompression, message);
        }
        if !seen.insert(trimmed.clone()) {
            problem(
                RejectionKind::DuplicateEntry,
                "the name appears more than once".into(),
            );
        } else if let Some(other) = seen_folded.insert(names::fold_case(&trimmed), trimmed.clone())
        {
            problem(
                RejectionKind::CaseCollision,
                format!("differs from `{other}` only in letter case"),
            );
        }
        let size = entry.size();
        if size > limits.max_entry_size {
            problem(
                RejectionKind::TooLarge,
                format!(
                    "{size} bytes uncompressed, over the limit of {}",
                    limits.max_entry_size
                ),
            );
        }
        if size >= Limits::RATIO_CHECKED_FROM
            && size > entry.compressed_size().saturating_mul(limits.max_ratio)
        {
            let message = format!(
                "compresses {size} bytes into {}, a ratio over the limit of {}:1",
                entry.compressed_size(),
                limits.max_ratio
            );
            problem(RejectionKind::CompressionRatio, message);
        }
        total = total.saturating_add(size);
        if listing.problems.len() == problems_before && !is_os_litter(&trimmed) {
            let executable = entry.unix_mode().is_some_and(|mode| mode & 0o111 != 0);
            listing.entries.push(Entry {
                name: trimmed,
                is_dir,
                size,
                executable,
            });
        }
    }
    if total > limits.max_total_size {
        let message = format!(
            "{total} bytes uncompressed in all, over the limit of {}",
            limits.max_total_size
        );
        listing
            .problems
            .push(reject(RejectionKind::TooLarge, None, message));
    }
    if total >= Limits::RATIO_CHECKED_FROM
        && total > compressed_total.saturating_mul(limits.max_ratio)
    {
        let message = format!(
            "{compressed_total} bytes inflate to {total}, a ratio over the limit of {}:1",
            limits.max_ratio
        );
        listing
            .problems
            .push(reject(RejectionKind::CompressionRatio, None, message));
    }
    check_layout(&mut listing);
    Ok(listing)
}

/// What the macOS Finder adds to every zip it makes (`__MACOSX/` resource
/// forks, `.DS_Store`): checked like any entry, then left out rather than
/// refused, so a skill zipped by hand still imports.
fn is_os_litter(name: &str) -> bool {
    name == "__MACOSX"
        || name.starts_with("__MACOSX/")
        || name.rsplit('/').next() == Some(".DS_Store")
}

/// The number of entries the end of central directory record declares (the
/// Zip64 one when the classic field is saturated); `None` when there is no
/// such record, which the zip reader then reports.
fn declared_entry_count(file: &mut File) -> io::Result<Option<u64>> {
    const END_SIGNATURE: &[u8] = b"PK\x05\x06";
    const END_LEN: usize = 22;
    const ZIP64_LOCATOR_SIGNATURE: &[u8] = b"PK\x06\x07";
    const ZIP64_LOCATOR_LEN: usize = 20;
    const ZIP64_END_SIGNATURE: &[u8] = b"PK\x06\x06";
    let len = file.seek(SeekFrom::End(0))?;
    // The record is 22 bytes plus a comment of at most 65,535.
    let tail_len = len.min((END_LEN + u16::MAX as usize + ZIP64_LOCATOR_LEN) as u64);
    file.seek(SeekFrom::Start(len - tail_len))?;
    let mut tail = vec![0u8; tail_len as usize];
    file.read_exact(&mut tail)?;
    let Some(end) = (0..=tail.len().saturating_sub(END_LEN))
        .rev()
        .find(|&i| tail[i..].starts_with(END_SIGNATURE))
    else {
        return Ok(None);
    };
    let count = u16::from_le_bytes([tail[end + 10], tail[end + 11]]);
    if count != u16::MAX || end < ZIP64_LOCATOR_LEN {
        return Ok(Some(u64::from(count)));
    }
    let locator = &tail[end - ZIP64_LOCATOR_LEN..end];
    if !locator.starts_with(ZIP64_LOCATOR_SIGNATURE) {
        return Ok(Some(u64::from(count)));
    }
    let offset = u64::from_le_bytes(locator[8..16].try_into().unwrap_or_default());
    let mut record = [0u8; 40];
    if file.seek(SeekFrom::Start(offset)).is_err() || file.read_exact(&mut record).is_err() {
        return Ok(None);
    }
    if !record.starts_with(ZIP64_END_SIGNATURE) {
        return Ok(None);
    }
    Ok(Some(u64::from_le_bytes(
        record[32..40].try_into().unwrap_or_default(),
    )))
}

/// One top-level folder per skill, each with a `SKILL.md`; nothing at the top
/// but those folders and the manifest; no entry inside what another entry
/// says is a file.
fn check_layout(listing: &mut Listing) {
    let files: HashSet<String> = listing
        .entries
        .iter()
        .filter(|e| !e.is_dir)
        .map(|e| names::fold_case(&e.name))
        .collect();
    let mut has_skill_file = BTreeSet::new();
    for entry in &listing.entries {
        let mut ancestors = entry.name.match_indices('/').map(|(i, _)| &entry.name[..i]);
        if let Some(file) = ancestors.find(|a| files.contains(&names::fold_case(a))) {
            let message = format!("`{file}` is both a file and a folder");
            listing.problems.push(reject(
                RejectionKind::DuplicateEntry,
                Some(&entry.name),
                message,
            ));
        }
        match entry.name.split_once('/') {
            Some((folder, rest)) => {
                listing.skills.insert(folder.to_owned());
                if rest == SKILL_FILE && !entry.is_dir {
                    has_skill_file.insert(folder.to_owned());
                }
            }
            None if entry.is_dir => {
                listing.skills.insert(entry.name.clone());
            }
            None if entry.name == MANIFEST_FILE => {}
            None => {
                let message = if entry.name == SKILL_FILE {
                    "a SKILL.md at the top of the pack; each skill must be in its own folder"
                        .to_owned()
                } else {
                    "a file outside any skill folder".to_owned()
                };
                listing
                    .problems
                    .push(reject(RejectionKind::Layout, Some(&entry.name), message));
            }
        }
    }
    for folder in listing.skills.difference(&has_skill_file) {
        let message = format!("the folder has no {SKILL_FILE}, so it is not a skill");
        listing
            .problems
            .push(reject(RejectionKind::Layout, Some(folder), message));
    }
    if listing.skills.is_empty() && listing.problems.is_empty() {
        listing.problems.push(reject(
            RejectionKind::Layout,
            None,
            "the pack holds no skill",
        ));
    }
}

/// What was written for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Extracted {
    pub size: u64,
    pub sha256: String,
    pub executable: bool,
}

/// A pack extracted into a temporary folder, which is deleted when this is
/// dropped unless its skills are moved out first.
#[derive(Debug)]
pub(crate) struct Staged {
    pub dir: TempDir,
    /// Every file by its zip path, the manifest excluded.
    pub files: BTreeMap<String, Extracted>,
    /// The manifest's bytes, if the pack has one.
    pub manifest: Option<Vec<u8>>,
    pub problems: Vec<Rejection>,
}

/// Extracts the entries of a checked listing into a new temporary folder in
/// `parent`. Stops at the first entry whose content does not match its
/// headers.
pub(crate) fn stage(pack: &Path, listing: &Listing, parent: &Path) -> Result<Staged, PackError> {
    let dir = tempfile::Builder::new()
        .prefix(".hone-unpack-")
        .tempdir_in(parent)
        .map_err(PackError::io(parent))?;
    let mut staged = Staged {
        dir,
        files: BTreeMap::new(),
        manifest: None,
        problems: Vec::new(),
    };
    let mut archive = match ZipArchive::new(open(pack)?) {
        Ok(archive) => archive,
        Err(err) => {
            staged.problems.push(reject(
                RejectionKind::Corrupt,
                None,
                format!("not a readable zip: {err}"),
            ));
            return Ok(staged);
        }
    };
    if let Err(err) = archive.validate_header_consistency() {
        staged
            .problems
            .push(reject(RejectionKind::Corrupt, None, err.to_string()));
        return Ok(staged);
    }
    for entry in &listing.entries {
        let target = staged.dir.path().join(&entry.name);
        if entry.is_dir {
            fs::create_dir_all(&target).map_err(PackError::io(&target))?;
            continue;
        }
        let mut file = match archive.by_name(&entry.name) {
            Ok(file) => file,
            Err(err) => {
                staged.problems.push(reject(
                    RejectionKind::Corrupt,
                    Some(&entry.name),
                    err.to_string(),
                ));
                return Ok(staged);
            }
        };
        if entry.name == MANIFEST_FILE {
            let mut bytes = Vec::new();
            let read = (&mut file)
                .take(MAX_MANIFEST_BYTES + 1)
                .read_to_end(&mut bytes);
            match read {
                Ok(_) if bytes.len() as u64 > MAX_MANIFEST_BYTES => {
                    let message = format!("larger than {MAX_MANIFEST_BYTES} bytes");
                    staged.problems.push(reject(
                        RejectionKind::Manifest,
                        Some(MANIFEST_FILE),
                        message,
                    ));
                }
                Ok(_) => staged.manifest = Some(bytes),
                Err(err) => staged.problems.push(reject(
                    RejectionKind::Corrupt,
                    Some(MANIFEST_FILE),
                    err.to_string(),
                )),
            }
            continue;
        }
        match write_checked(&mut file, &target, entry) {
            Ok(Ok(extracted)) => {
                staged.files.insert(entry.name.clone(), extracted);
            }
            Ok(Err(rejection)) => {
                staged.problems.push(rejection);
                return Ok(staged);
            }
            Err(err) => {
                return Err(PackError::Io {
                    path: target,
                    source: err,
                });
            }
        }
    }
    Ok(staged)
}

/// Inflates one entry into `target`, hashing it and holding it to its
/// declared size. The outer error is the disk's; the inner one the pack's.
fn write_checked(
    reader: &mut impl Read,
    target: &Path,
    entry: &Entry,
) -> io::Result<Result<Extracted, Rejection>> {
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut out = match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(target)
    {
        Ok(out) => out,
        // Names were checked for duplicates, so only a file system that folds
        // more than case (Unicode normalisation) can get here.
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
            let message = "another entry maps to the same file on this system";
            return Ok(Err(reject(
                RejectionKind::DuplicateEntry,
                Some(&entry.name),
                message,
            )));
        }
        Err(err) => return Err(err),
    };
    let mut hasher = Sha256::new();
    let mut written: u64 = 0;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) => {
                return Ok(Err(reject(
                    RejectionKind::Corrupt,
                    Some(&entry.name),
                    err.to_string(),
                )));
            }
        };
        written += n as u64;
        if written > entry.size {
            let message = format!("inflates past its declared size of {} bytes", entry.size);
            return Ok(Err(reject(
                RejectionKind::SizeMismatch,
                Some(&entry.name),
                message,
            )));
        }
        hasher.update(&buffer[..n]);
        out.write_all(&buffer[..n])?;
    }
    if written != entry.size {
        let message = format!(
            "inflates to {written} bytes, not the {} declared",
            entry.size
        );
        return Ok(Err(reject(
            RejectionKind::SizeMismatch,
            Some(&entry.name),
            message,
        )));
    }
    set_mode(&out, entry.executable)?;
    Ok(Ok(Extracted {
        size: written,
        sha256: hex(&hasher.finalize()),
        executable: entry.executable,
    }))
}

/// 0644 or 0755, whatever the umask and the mode in the pack: packs carry
/// only the executable bit.
#[cfg(unix)]
fn set_mode(file: &File, executable: bool) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(if executable {
        0o755
    } else {
        0o644
    }))
}

#[cfg(not(unix))]
fn set_mode(_file: &File, _executable: bool) -> io::Result<()> {
    Ok(())
}

/// The path of a staged skill folder.
pub(crate) fn staged_skill(staged: &Staged, name: &str) -> PathBuf {
    staged.dir.path().join(name)
}
