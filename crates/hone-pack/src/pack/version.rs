//! `hone pack --bump`: raising a library's version (`package.version` in its
//! settings, which a plugin's manifest takes) and writing what changed into
//! its `CHANGELOG.md`.
//!
//! The entry lists the subjects of the library's git commits since the last
//! commit that touched `CHANGELOG.md` (all of them when none did), newest
//! first, merges left out; a library outside git gets an entry without
//! items. The date is `SOURCE_DATE_EPOCH`'s day when it is set (so release
//! builds are reproducible), else today's, in UTC.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ManifestProblem, PackError, timestamp};
use crate::library_settings::LibrarySettings;

pub const CHANGELOG_FILE: &str = "CHANGELOG.md";

/// Which part of `MAJOR.MINOR.PATCH` to raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    Patch,
    Minor,
    Major,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BumpReport {
    pub from: String,
    pub to: String,
    pub settings: PathBuf,
    pub changelog: PathBuf,
    /// The entry's items: commit subjects.
    pub changes: Vec<String>,
}

/// Raises the version of the library at `root` and adds its changelog entry.
pub fn bump(root: &Path, part: Bump) -> Result<BumpReport, PackError> {
    let mut settings = LibrarySettings::load(root)?;
    let mut package = settings.package.clone().unwrap_or_default();
    let from = package.version.clone().unwrap_or_else(|| "0.0.0".into());
    let Some(to) = bumped(&from, part) else {
        return Err(PackError::Manifest(vec![ManifestProblem {
            path: Some(LibrarySettings::path(root)),
            line: None,
            key: "package.version".into(),
            message: format!("`{from}` is not MAJOR.MINOR.PATCH"),
        }]));
    };
    let changes = git_changes(root);
    let changelog = root.join(CHANGELOG_FILE);
    let existing = match std::fs::read_to_string(&changelog) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(PackError::Io {
                path: changelog,
                source,
            });
        }
    };
    let text = with_entry(&existing, &to, &today()?, &changes);
    crate::workspace::write_atomic(&changelog, text.as_bytes())
        .map_err(PackError::io(&changelog))?;
    package.version = Some(to.clone());
    settings.package = Some(package);
    let settings_path = settings.save(root)?;
    Ok(BumpReport {
        from,
        to,
        settings: settings_path,
        changelog,
        changes,
    })
}

/// `version` with `part` raised and the parts after it zeroed; a
/// pre-release or build suffix is dropped.
fn bumped(version: &str, part: Bump) -> Option<String> {
    let core = version.split(['-', '+']).next()?;
    let numbers: Vec<u64> = core
        .split('.')
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    let [major, minor, patch] = numbers[..] else {
        return None;
    };
    Some(match part {
        Bump::Major => format!("{}.0.0", major + 1),
        Bump::Minor => format!("{major}.{}.0", minor + 1),
        Bump::Patch => format!("{major}.{minor}.{}", patch + 1),
    })
}

/// The changelog with the new entry after its title (a `# ` first line), or
/// at the top.
fn with_entry(existing: &str, version: &str, date: &str, changes: &[String]) -> String {
    let mut entry = format!("## {version} - {date}\n\n");
    for change in changes {
        entry.push_str(&format!("- {change}\n"));
    }
    if !changes.is_empty() {
        entry.push('\n');
    }
    if existing.is_empty() {
        return format!("# Changelog\n\n{entry}");
    }
    match existing
        .strip_prefix("# ")
        .and_then(|_| existing.find('\n'))
    {
        Some(end) => {
            let (title, rest) = existing.split_at(end + 1);
            format!("{title}\n{entry}{}", rest.trim_start_matches('\n'))
        }
        None => format!("{entry}{existing}"),
    }
}

/// Commit subjects touching `root` since `CHANGELOG.md` last changed; none
/// outside a git work tree.
fn git_changes(root: &Path) -> Vec<String> {
    let git = |args: &[&str]| super::provenance::git_output(root, args);
    let since = git(&["log", "-1", "--format=%H", "--", CHANGELOG_FILE])
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    let range = since.map(|commit| format!("{commit}..HEAD"));
    let mut args = vec!["log", "--no-merges", "--format=%s"];
    if let Some(range) = &range {
        args.push(range);
    }
    args.extend(["--", "."]);
    git(&args)
        .map(|log| {
            log.lines()
                .map(str::to_owned)
                .filter(|l| !l.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// `YYYY-MM-DD` of `SOURCE_DATE_EPOCH`, else of now, in UTC.
fn today() -> Result<String, PackError> {
    let epoch = match timestamp::resolve_epoch(None)? {
        Some(epoch) => epoch,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0),
    };
    let (year, month, day) = timestamp::civil_from_days(epoch.div_euclid(86_400));
    Ok(format!("{year:04}-{month:02}-{day:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_bump_and_zero_what_follows() {
        assert_eq!(bumped("1.2.3", Bump::Patch).as_deref(), Some("1.2.4"));
        assert_eq!(bumped("1.2.3", Bump::Minor).as_deref(), Some("1.3.0"));
        assert_eq!(bumped("1.2.3-rc.1", Bump::Major).as_deref(), Some("2.0.0"));
        assert_eq!(bumped("1.2", Bump::Patch), None);
        assert_eq!(bumped("latest", Bump::Patch), None);
    }

    #[test]
    fn an_entry_goes_under_the_title() {
        let text = with_entry(
            "# Changelog\n\n## 1.0.0 - 2026-01-01\n",
            "1.1.0",
            "2026-02-02",
            &["Add pdf".into()],
        );
        assert_eq!(
            text,
            "# Changelog\n\n## 1.1.0 - 2026-02-02\n\n- Add pdf\n\n## 1.0.0 - 2026-01-01\n"
        );
        assert_eq!(
            with_entry("", "0.0.1", "2026-02-02", &[]),
            "# Changelog\n\n## 0.0.1 - 2026-02-02\n\n"
        );
    }

    #[test]
    fn a_bump_rewrites_the_settings_and_keeps_their_other_keys() {
        let tmp = tempfile::tempdir().unwrap();
        let settings = tmp.path().join("evals/hone-settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(
            &settings,
            r#"{"target": "claude-code", "package": {"name": "x", "version": "0.3.9"}, "future": 1}"#,
        )
        .unwrap();
        let report = bump(tmp.path(), Bump::Minor).unwrap();
        assert_eq!(
            (report.from.as_str(), report.to.as_str()),
            ("0.3.9", "0.4.0")
        );
        let saved = LibrarySettings::load(tmp.path()).unwrap();
        assert_eq!(saved.package.unwrap().version.as_deref(), Some("0.4.0"));
        assert!(saved.other.contains_key("future"));
        assert!(
            std::fs::read_to_string(tmp.path().join(CHANGELOG_FILE))
                .unwrap()
                .contains("## 0.4.0 - ")
        );
    }
}
