//! Where the filesystem starts in an AppImage, and what identifies it.
//!
//! An AppImage is an ELF program followed by a SquashFS filesystem, so the
//! filesystem starts where the ELF part ends: after the last of its section
//! headers, sections and segments (linkers write the section header table
//! last; the maximum guards against one that does not).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

/// SquashFS's magic, `hsqs`, at the start of its superblock.
const SQUASHFS_MAGIC: &[u8; 4] = b"hsqs";
const SUPERBLOCK_LEN: usize = 96;
/// More metadata than any image of an app holds (Hone's is a few KiB): a
/// bigger claim is a damaged superblock, not a reason to read gigabytes.
const MAX_TABLES_LEN: u64 = 256 << 20;

/// An AppImage file: its path and where its filesystem starts.
#[derive(Debug)]
pub struct Image {
    pub path: PathBuf,
    pub offset: u64,
    len: u64,
    superblock: [u8; SUPERBLOCK_LEN],
}

impl Image {
    /// Opens `path` as an AppImage, failing with what is wrong when it is not
    /// one (for example, the bare runtime with nothing appended).
    pub fn open(path: &Path) -> Result<Image, String> {
        let mut file =
            File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let len = file
            .metadata()
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .len();
        let offset = elf_end(&mut file).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut superblock = [0; SUPERBLOCK_LEN];
        let read = file
            .seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut superblock));
        if read.is_err() || &superblock[..4] != SQUASHFS_MAGIC {
            return Err(format!(
                "{} carries no SquashFS filesystem after its program (at byte {offset}): \
                 it is not an AppImage, or it was cut short",
                path.display()
            ));
        }
        Ok(Image {
            path: path.to_owned(),
            offset,
            len,
            superblock,
        })
    }

    /// A name for this image's contents: the XXH3 of its superblock (its
    /// creation time and size), its metadata tables (every file's name, mode,
    /// size and block sizes) and the file's length, as 16 hex digits. Two
    /// builds of the app differ there; reading the tables costs kilobytes
    /// where hashing every byte would read the whole image at each start.
    pub fn fingerprint(&self) -> Result<String, String> {
        let field = |at: usize| u64::from_le_bytes(self.superblock[at..at + 8].try_into().unwrap());
        let (bytes_used, tables_start) = (field(40), field(64));
        let damaged = || {
            format!(
                "{}: its filesystem's superblock is damaged",
                self.path.display()
            )
        };
        let tables_len = bytes_used.checked_sub(tables_start).ok_or_else(damaged)?;
        if tables_len > MAX_TABLES_LEN || self.offset.saturating_add(bytes_used) > self.len {
            return Err(damaged());
        }
        let mut tables = vec![0; tables_len as usize];
        let mut file = File::open(&self.path)
            .map_err(|e| format!("cannot read {}: {e}", self.path.display()))?;
        file.seek(SeekFrom::Start(self.offset + tables_start))
            .and_then(|_| file.read_exact(&mut tables))
            .map_err(|e| format!("cannot read {}: {e}", self.path.display()))?;
        let mut hash = Xxh3::new();
        hash.update(&self.superblock);
        hash.update(&tables);
        hash.update(&self.len.to_le_bytes());
        Ok(format!("{:016x}", hash.digest()))
    }
}

/// The end of the 64-bit little-endian ELF program at the start of `file`.
fn elf_end(file: &mut File) -> Result<u64, String> {
    let mut header = [0u8; 64];
    file.read_exact(&mut header)
        .map_err(|_| "too short to be a program".to_owned())?;
    if &header[..4] != b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        return Err("not a 64-bit little-endian ELF program".to_owned());
    }
    let u16_at = |at: usize| u64::from(u16::from_le_bytes([header[at], header[at + 1]]));
    let u64_at = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().unwrap());
    let (program_headers, program_header_len, programs) =
        (u64_at(0x20), u16_at(0x36), u16_at(0x38));
    let (section_headers, section_header_len, sections) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c));
    let mut end = (program_headers + program_header_len * programs)
        .max(section_headers + section_header_len * sections);
    // Each segment's (offset, size in the file) and each section's, where
    // the program and section headers keep them.
    for (table, entry_len, count, offset_at, size_at, is_nobits) in [
        (
            program_headers,
            program_header_len,
            programs,
            0x08,
            0x20,
            None,
        ),
        (
            section_headers,
            section_header_len,
            sections,
            0x18,
            0x20,
            Some(0x04),
        ),
    ] {
        if count == 0 {
            continue;
        }
        if entry_len < 0x28 {
            return Err("its ELF headers are damaged".to_owned());
        }
        let mut entries = vec![0u8; (entry_len * count) as usize];
        file.seek(SeekFrom::Start(table))
            .and_then(|_| file.read_exact(&mut entries))
            .map_err(|_| "its ELF headers are cut short".to_owned())?;
        for entry in entries.chunks_exact(entry_len as usize) {
            let at = |i: usize| u64::from_le_bytes(entry[i..i + 8].try_into().unwrap());
            // A NOBITS section (.bss) occupies no bytes of the file.
            let nobits = is_nobits.is_some_and(|i: usize| entry[i..i + 4] == 8u32.to_le_bytes());
            if !nobits {
                end = end.max(at(offset_at).saturating_add(at(size_at)));
            }
        }
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runtime's own binary (this test's, in fact) is an ELF program
    /// whose end is the file's end: nothing is appended to a test binary.
    #[test]
    fn a_program_ends_where_its_file_ends() {
        let exe = std::env::current_exe().unwrap();
        let mut file = File::open(&exe).unwrap();
        let len = file.metadata().unwrap().len();
        assert_eq!(elf_end(&mut file).unwrap(), len);
    }

    #[test]
    fn a_program_with_nothing_appended_is_not_an_appimage() {
        let error = Image::open(&std::env::current_exe().unwrap()).unwrap_err();
        assert!(error.contains("no SquashFS filesystem"), "{error}");
    }

    #[test]
    fn a_file_that_is_no_program_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in [("empty", &b""[..]), ("text", b"#!/bin/sh\necho hi\n")] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let error = Image::open(&path).unwrap_err();
            assert!(error.contains("program"), "{name}: {error}");
        }
    }
}
