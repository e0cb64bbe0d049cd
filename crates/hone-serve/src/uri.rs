//! `skill://` URIs (SEP-2640) and the confinement of every path they name.
//!
//! A skill's files are `skill://<skill-path>/<file-path>`: `<skill-path>` is
//! the skill's folder relative to its library root with the last segment
//! replaced by the skill's `name` (the SEP requires the final segment to equal
//! the name), and `<file-path>` is a path inside the skill's folder. Segments
//! are percent-encoded outside RFC 3986's unreserved characters.
//!
//! A requested file path is checked twice: lexically (no `..`, no absolute
//! path, no backslash or NUL, no empty segment), then on disk after
//! canonicalisation, so a symbolic link inside a skill that points out of the
//! skill's folder is refused as well.

use std::fs;
use std::path::{Path, PathBuf};

/// The scheme every served resource uses.
pub const SCHEME: &str = "skill://";
/// The whole-library index the earlier SEP-2640 drafts defined (kept for
/// clients built against them; the adopted text enumerates with `skills/list`).
pub const INDEX_URI: &str = "skill://index.json";
/// The largest file a client may read, so one request cannot pin memory.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Why a path or URI is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("`{0}` is not a skill:// URI")]
    NotSkillUri(String),
    #[error("`{0}` has an invalid percent-escape")]
    BadEscape(String),
    #[error("`{0}` is absolute; give a path relative to the skill's folder")]
    Absolute(String),
    #[error("`{0}` climbs out of the skill's folder (`..` is not allowed)")]
    ParentDir(String),
    #[error(
        "`{0}` is not a plain relative path (empty, `.`, backslash or NUL segments are not allowed)"
    )]
    Malformed(String),
    #[error(
        "`{0}` resolves outside the skill's folder (a symbolic link out of the library is refused)"
    )]
    Escapes(String),
    #[error("`{0}` does not exist in the skill")]
    Missing(String),
    #[error("`{0}` is a folder, not a file")]
    NotAFile(String),
    #[error("`{path}` is {size} bytes; at most {max} bytes are served")]
    TooLarge { path: String, size: u64, max: u64 },
}

/// Percent-encodes one path segment (everything but RFC 3986 unreserved).
pub fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Encodes a `/`-separated relative path segment by segment.
pub fn encode_path(path: &str) -> String {
    path.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

/// Decodes percent-escapes; an escape that is not two hex digits or that
/// decodes to invalid UTF-8 is an error rather than a guess.
pub fn decode(s: &str) -> Result<String, PathError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| PathError::BadEscape(s.to_owned()))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| PathError::BadEscape(s.to_owned()))
}

/// The part after `skill://`, or an error for any other scheme.
pub fn strip_scheme(uri: &str) -> Result<&str, PathError> {
    uri.strip_prefix(SCHEME)
        .ok_or_else(|| PathError::NotSkillUri(uri.to_owned()))
}

/// Checks a client-supplied path relative to a skill's folder without
/// touching the disk, and returns it normalised to `/` separators. The empty
/// path is the folder itself.
pub fn check_relative(path: &str) -> Result<String, PathError> {
    if path.starts_with('/') || path.starts_with('\\') || has_drive_prefix(path) {
        return Err(PathError::Absolute(path.to_owned()));
    }
    if path.contains('\0') || path.contains('\\') {
        return Err(PathError::Malformed(path.to_owned()));
    }
    let trimmed = path.strip_suffix('/').unwrap_or(path);
    if trimmed.is_empty() {
        return Ok(String::new());
    }
    for segment in trimmed.split('/') {
        match segment {
            ".." => return Err(PathError::ParentDir(path.to_owned())),
            "" | "." => return Err(PathError::Malformed(path.to_owned())),
            _ => {}
        }
    }
    Ok(trimmed.to_owned())
}

fn has_drive_prefix(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// What a confined path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Folder,
}

/// Resolves `relative` (already [`check_relative`]ed) inside the canonical
/// skill folder `skill_dir`: the canonical path if it exists and stays inside.
pub fn confine(skill_dir: &Path, relative: &str, want: Kind) -> Result<PathBuf, PathError> {
    let joined = if relative.is_empty() {
        skill_dir.to_path_buf()
    } else {
        skill_dir.join(relative)
    };
    let canonical = match joined.canonicalize() {
        Ok(path) => path,
        Err(_) => {
            // A link whose target is missing is still an escape if it points out.
            if let Ok(target) = fs::read_link(&joined) {
                let resolved = joined.parent().unwrap_or(skill_dir).join(target);
                if !resolved.starts_with(skill_dir) {
                    return Err(PathError::Escapes(relative.to_owned()));
                }
            }
            return Err(PathError::Missing(relative.to_owned()));
        }
    };
    if !canonical.starts_with(skill_dir) {
        return Err(PathError::Escapes(relative.to_owned()));
    }
    let metadata = fs::metadata(&canonical).map_err(|_| PathError::Missing(relative.to_owned()))?;
    match want {
        Kind::File if metadata.is_dir() => Err(PathError::NotAFile(relative.to_owned())),
        Kind::File if metadata.len() > MAX_FILE_BYTES => Err(PathError::TooLarge {
            path: relative.to_owned(),
            size: metadata.len(),
            max: MAX_FILE_BYTES,
        }),
        Kind::Folder if !metadata.is_dir() => Err(PathError::Missing(relative.to_owned())),
        _ => Ok(canonical),
    }
}

/// The MIME type served for a file, from its extension; `is_text` decides
/// for unknown extensions.
pub fn mime_type(path: &str, is_text: bool) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ if is_text => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_round_trip() {
        let encoded = encode_path("team a/pdf_tools/ü.md");
        assert_eq!(encoded, "team%20a/pdf_tools/%C3%BC.md");
        assert_eq!(decode(&encoded).unwrap(), "team a/pdf_tools/ü.md");
        assert!(matches!(decode("a%2"), Err(PathError::BadEscape(_))));
        assert!(matches!(decode("a%zz"), Err(PathError::BadEscape(_))));
        assert!(matches!(decode("%FF"), Err(PathError::BadEscape(_))));
    }

    #[test]
    fn lexical_checks_name_the_problem() {
        assert_eq!(check_relative("scripts/run.py").unwrap(), "scripts/run.py");
        assert_eq!(check_relative("scripts/").unwrap(), "scripts");
        assert_eq!(check_relative("").unwrap(), "");
        assert!(matches!(
            check_relative("../x"),
            Err(PathError::ParentDir(_))
        ));
        assert!(matches!(
            check_relative("a/../../x"),
            Err(PathError::ParentDir(_))
        ));
        assert!(matches!(
            check_relative("/etc/passwd"),
            Err(PathError::Absolute(_))
        ));
        assert!(matches!(
            check_relative("C:/x"),
            Err(PathError::Absolute(_))
        ));
        assert!(matches!(
            check_relative("a\\b"),
            Err(PathError::Malformed(_))
        ));
        assert!(matches!(
            check_relative("a//b"),
            Err(PathError::Malformed(_))
        ));
        assert!(matches!(
            check_relative("./a"),
            Err(PathError::Malformed(_))
        ));
        assert!(matches!(
            check_relative("a\0"),
            Err(PathError::Malformed(_))
        ));
    }

    #[test]
    fn confinement_follows_links_and_refuses_escapes() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "secret").unwrap();
        let skill = tmp.path().join("lib/pdf");
        fs::create_dir_all(skill.join("refs")).unwrap();
        fs::write(skill.join("refs/a.md"), "a").unwrap();
        let skill = skill.canonicalize().unwrap();
        assert!(confine(&skill, "refs/a.md", Kind::File).is_ok());
        assert!(confine(&skill, "refs", Kind::Folder).is_ok());
        assert!(matches!(
            confine(&skill, "refs", Kind::File),
            Err(PathError::NotAFile(_))
        ));
        assert!(matches!(
            confine(&skill, "refs/none.md", Kind::File),
            Err(PathError::Missing(_))
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.join("secret.txt"), skill.join("link.txt")).unwrap();
            std::os::unix::fs::symlink(&outside, skill.join("out")).unwrap();
            std::os::unix::fs::symlink(outside.join("gone"), skill.join("dangling")).unwrap();
            std::os::unix::fs::symlink("refs/a.md", skill.join("inside.md")).unwrap();
            assert!(matches!(
                confine(&skill, "link.txt", Kind::File),
                Err(PathError::Escapes(_))
            ));
            assert!(matches!(
                confine(&skill, "out/secret.txt", Kind::File),
                Err(PathError::Escapes(_))
            ));
            assert!(matches!(
                confine(&skill, "dangling", Kind::File),
                Err(PathError::Escapes(_))
            ));
            assert!(confine(&skill, "inside.md", Kind::File).is_ok());
        }
    }

    #[test]
    fn mime_types() {
        assert_eq!(mime_type("SKILL.md", true), "text/markdown");
        assert_eq!(mime_type("scripts/x.py", true), "text/x-python");
        assert_eq!(mime_type("LICENSE", true), "text/plain");
        assert_eq!(mime_type("blob", false), "application/octet-stream");
    }
}
