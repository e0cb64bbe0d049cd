//! Which paths a pack may hold.
//!
//! A pack is extracted on Linux, macOS and Windows, so a name must be safe on
//! all three: a name that is harmless on Linux (`a\b`, `aux.md`, `notes.`)
//! can escape the target folder, open a device or collide with another file
//! on Windows. The same rules judge the names an export writes and the names
//! an import reads, so every pack Hone writes is one Hone accepts.

use super::RejectionKind;

/// The longest name of one path component, in bytes, that every common file
/// system accepts.
const MAX_COMPONENT_BYTES: usize = 255;

/// Why a path cannot be an entry of a pack: the kind, and a sentence.
pub(crate) type NameProblem = (RejectionKind, String);

/// Checks an entry path as stored in a zip: `/`-separated and relative. A
/// directory entry's one trailing `/` is allowed.
pub(crate) fn check_entry_path(path: &str) -> Result<(), NameProblem> {
    let trimmed = path.strip_suffix('/').unwrap_or(path);
    if trimmed.is_empty() {
        return Err((RejectionKind::InvalidName, "empty path".into()));
    }
    if trimmed.contains('\0') {
        return Err((
            RejectionKind::NulInName,
            "the name contains a NUL byte".into(),
        ));
    }
    if trimmed.contains('\\') {
        // Windows reads `\` as a separator: `a\..\..\x` would climb out.
        return Err((RejectionKind::Backslash, "backslash in the path".into()));
    }
    if trimmed.starts_with('/') {
        return Err((RejectionKind::AbsolutePath, "absolute path".into()));
    }
    if has_drive_prefix(trimmed) {
        return Err((
            RejectionKind::AbsolutePath,
            "path starts with a drive letter".into(),
        ));
    }
    for component in trimmed.split('/') {
        check_component(component)?;
    }
    Ok(())
}

/// Checks one path component (a file or folder name).
pub(crate) fn check_component(component: &str) -> Result<(), NameProblem> {
    match component {
        "" => {
            return Err((
                RejectionKind::InvalidName,
                "empty path component (`//`)".into(),
            ));
        }
        "." => return Err((RejectionKind::InvalidName, "`.` path component".into())),
        ".." => {
            return Err((
                RejectionKind::PathEscape,
                "`..` climbs out of the folder".into(),
            ));
        }
        _ => {}
    }
    if component.contains('\0') {
        return Err((
            RejectionKind::NulInName,
            "the name contains a NUL byte".into(),
        ));
    }
    if component.contains(['/', '\\']) {
        return Err((
            RejectionKind::InvalidName,
            format!("`{component}` contains a path separator"),
        ));
    }
    if let Some(c) = component.chars().find(|c| c.is_control()) {
        let message = format!(
            "control character U+{:04X} in `{}`",
            c as u32,
            component.escape_debug()
        );
        return Err((RejectionKind::InvalidName, message));
    }
    if let Some(c) = component
        .chars()
        .find(|c| matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|'))
    {
        // `:` also names NTFS alternate data streams (`SKILL.md:hidden`).
        return Err((
            RejectionKind::InvalidName,
            format!("`{c}` is not allowed in a file name on Windows"),
        ));
    }
    if component.ends_with('.') || component.ends_with(' ') {
        // Windows drops a trailing dot or space, so `a.` would become `a`.
        return Err((
            RejectionKind::InvalidName,
            format!("`{component}` ends with a dot or a space"),
        ));
    }
    if is_windows_reserved(component) {
        return Err((
            RejectionKind::ReservedName,
            format!("`{component}` is a reserved device name on Windows"),
        ));
    }
    if component.len() > MAX_COMPONENT_BYTES {
        return Err((
            RejectionKind::InvalidName,
            format!("a name is longer than {MAX_COMPONENT_BYTES} bytes"),
        ));
    }
    Ok(())
}

/// `C:` or `C:/…`: a Windows drive, absolute or drive-relative.
fn has_drive_prefix(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// `CON`, `NUL`, `COM1`, `LPT9` and the rest, with any extension and in any
/// case: Windows opens the device instead of a file.
fn is_windows_reserved(component: &str) -> bool {
    let stem = component.split('.').next().unwrap_or(component).trim_end();
    let upper = stem.to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        _ => {
            let Some(number) = upper
                .strip_prefix("COM")
                .or_else(|| upper.strip_prefix("LPT"))
            else {
                return false;
            };
            matches!(
                number,
                "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"
            )
        }
    }
}

/// The key under which two paths collide on a case-insensitive file system
/// (the default on Windows and macOS).
pub(crate) fn fold_case(path: &str) -> String {
    path.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(path: &str) -> Option<RejectionKind> {
        check_entry_path(path).err().map(|(kind, _)| kind)
    }

    #[test]
    fn ordinary_paths_pass() {
        for path in [
            "pdf/SKILL.md",
            "pdf/scripts/run.py",
            "pdf/",
            "a b/c-d_e.f.txt",
            "é/ü.md",
        ] {
            assert_eq!(kind(path), None, "{path}");
        }
    }

    #[test]
    fn escapes_and_absolute_paths_fail() {
        assert_eq!(kind("../x"), Some(RejectionKind::PathEscape));
        assert_eq!(kind("a/../../x"), Some(RejectionKind::PathEscape));
        assert_eq!(kind("/etc/passwd"), Some(RejectionKind::AbsolutePath));
        assert_eq!(kind("C:/Windows/x"), Some(RejectionKind::AbsolutePath));
        assert_eq!(kind("c:x"), Some(RejectionKind::AbsolutePath));
        assert_eq!(kind("a\\..\\..\\x"), Some(RejectionKind::Backslash));
    }

    #[test]
    fn names_windows_cannot_hold_fail() {
        assert_eq!(kind("a/CON"), Some(RejectionKind::ReservedName));
        assert_eq!(kind("a/aux.md"), Some(RejectionKind::ReservedName));
        assert_eq!(kind("a/com1.txt"), Some(RejectionKind::ReservedName));
        assert_eq!(kind("a/console.md"), None);
        assert_eq!(kind("a/SKILL.md:stream"), Some(RejectionKind::InvalidName));
        assert_eq!(kind("a/notes."), Some(RejectionKind::InvalidName));
        assert_eq!(kind("a//b"), Some(RejectionKind::InvalidName));
        assert_eq!(kind("a/./b"), Some(RejectionKind::InvalidName));
        assert_eq!(kind("a/b\u{1}"), Some(RejectionKind::InvalidName));
        assert_eq!(kind("a/b\0c"), Some(RejectionKind::NulInName));
    }
}
