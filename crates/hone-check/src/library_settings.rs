//! A library's own Hone settings: `evals/hone-settings.json`, beside the
//! suites, committed with the library.
//!
//! The rankers' default selection thresholds were fitted on one development
//! benchmark and do not transfer to every library (a right top match often
//! falls under the threshold). `hone eval --calibrate` fits a threshold on
//! the library's own suites and stores it here, so the app, `hone search`,
//! `hone eval` and `hone serve` (and a CI gate running `hone eval`) all
//! select with the same one. A library without the file keeps the rankers'
//! defaults.
//!
//! The file is JSON, so it would look like a trigger-eval suite to suite
//! discovery; [`crate::eval::suite::suite_files`] skips it by name. Keys
//! this version does not know are kept when the file is rewritten, so
//! settings added by a newer Hone survive an older one's calibration.
//!
//! The file also remembers the library's target (whose rules decide which
//! findings are errors), chosen in the app's Problems panel or written by
//! hand. [`library_target`] is the one rule every adapter follows to pick a
//! target, so `hone check`, `hone pack`, `hone serve` and the app agree on
//! what is an error in a library without being told each time.
//!
//! It also holds the security findings a reviewer accepted
//! (`acknowledged`: rule, skill, content hash, reason), so `hone check
//! --security`, `hone scan` and `hone serve` stop counting them until the
//! file they were about changes.
//!
//! The settings sit with the rankers and the checks, not with the skill
//! model: they key thresholds by [`RankerKind`] and hold the rules' target
//! and the security scan's acknowledgements. Only eval, the packs and the
//! adapters read them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::rank::RankerKind;
use crate::rules::Target;
use crate::security::Acknowledgement;

/// The settings file's name, in the library's `evals` folder.
pub const FILE_NAME: &str = "hone-settings.json";

/// The target of a library that names none: the open specification, the
/// rules every client at least starts from.
pub const DEFAULT_TARGET: Target = Target::Agentskills;

/// The settings of one library. See the module docs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LibrarySettings {
    /// Selection thresholds by ranker (`bm25`, `semantic`, `hybrid`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub thresholds: BTreeMap<String, CalibratedThreshold>,
    /// The client the library is written for, when it is one: the default
    /// target of checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// Security findings reviewed and accepted (see [`crate::security`]):
    /// each lapses when the file it was about changes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acknowledged: Vec<Acknowledgement>,
    /// How the library is published: the manifest of the Claude Code plugin
    /// `hone pack --format plugin` writes, the owner of a marketplace, the
    /// version `hone pack --bump` raises.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<PackageSettings>,
    /// Keys this version does not know, kept as they are.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// The library as a package: `"package"` in the settings. Every field is
/// optional; a plugin's name defaults to the library folder's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PackageSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Semantic version, `MAJOR.MINOR.PATCH`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Author>,
    /// An SPDX identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Keys this version does not know, kept as they are.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// Who publishes the library; a marketplace's owner too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A threshold and how it was fitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibratedThreshold {
    pub threshold: f32,
    /// Cases of the suites it was fitted on.
    #[serde(default)]
    pub cases: usize,
    /// Cross-validated routing accuracy before (the default threshold) and
    /// after (thresholds fitted on the other folds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy_before: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy_after: Option<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: not valid Hone library settings: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
}

impl LibrarySettings {
    /// Where the settings of the library at `root` live.
    pub fn path(root: &Path) -> PathBuf {
        root.join("evals").join(FILE_NAME)
    }

    /// The settings of the library at `root`; the defaults when it has none.
    pub fn load(root: &Path) -> Result<LibrarySettings, SettingsError> {
        let path = LibrarySettings::path(root);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(LibrarySettings::default());
            }
            Err(source) => return Err(SettingsError::Io { path, source }),
        };
        serde_json::from_str(&text).map_err(|err| SettingsError::Invalid {
            line: err.line(),
            column: err.column(),
            message: err.to_string(),
            path,
        })
    }

    /// Writes the settings of the library at `root` (atomically), creating
    /// its `evals` folder when needed; returns the file's path.
    pub fn save(&self, root: &Path) -> Result<PathBuf, SettingsError> {
        let path = LibrarySettings::path(root);
        let io = |source| SettingsError::Io {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut text = serde_json::to_string_pretty(self).map_err(|e| io(e.into()))?;
        text.push('\n');
        crate::workspace::write_atomic(&path, text.as_bytes()).map_err(io)?;
        Ok(path)
    }

    /// Remembers `target` as the library's at `root`, keeping every other
    /// setting (an atomic rewrite); returns the file's path.
    pub fn remember_target(root: &Path, target: Target) -> Result<PathBuf, SettingsError> {
        let mut settings = LibrarySettings::load(root)?;
        settings.target = Some(target);
        settings.save(root)
    }

    /// The calibrated threshold of `kind`, if any.
    pub fn threshold(&self, kind: RankerKind) -> Option<f32> {
        self.thresholds.get(kind.as_str()).map(|t| t.threshold)
    }
}

/// The threshold a ranker of `kind` selects with in the library at `root`:
/// `explicit` (a `--threshold`) when given, else the library's calibrated
/// one, else `default` (the ranker's own). Without a library root (nothing
/// opened), only `explicit` and `default` apply. The one rule the CLI, the
/// app and `hone serve` follow.
pub fn selection_threshold(
    root: Option<&Path>,
    kind: RankerKind,
    explicit: Option<f32>,
    default: f32,
) -> Result<f32, SettingsError> {
    if let Some(threshold) = explicit {
        return Ok(threshold);
    }
    let calibrated = match root {
        Some(root) => LibrarySettings::load(root)?.threshold(kind),
        None => None,
    };
    Ok(calibrated.unwrap_or(default))
}

/// The target checks of the library at `root` are made for: `explicit` (a
/// `--target`, the app's choice of the moment) when given, else the one the
/// library remembers, else [`DEFAULT_TARGET`]. Without a library root, only
/// `explicit` and the default apply. The one rule the CLI, the app and
/// `hone serve` follow.
pub fn library_target(
    root: Option<&Path>,
    explicit: Option<Target>,
) -> Result<Target, SettingsError> {
    if let Some(target) = explicit {
        return Ok(target);
    }
    let remembered = match root {
        Some(root) => LibrarySettings::load(root)?.target,
        None => None,
    };
    Ok(remembered.unwrap_or(DEFAULT_TARGET))
}

/// The security acknowledgements of the library at `root` (none without one).
pub fn library_acknowledgements(
    root: Option<&Path>,
) -> Result<Vec<Acknowledgement>, SettingsError> {
    match root {
        Some(root) => Ok(LibrarySettings::load(root)?.acknowledged),
        None => Ok(Vec::new()),
    }
}

/// The library whose settings apply to a command given `paths`: the first
/// path, when it is a folder (a library, or a skill folder, which rarely has
/// settings of its own). A `SKILL.md` given alone has none.
pub fn settings_root(paths: &[PathBuf]) -> Option<&Path> {
    paths.first().map(PathBuf::as_path).filter(|p| p.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_settings_are_the_defaults_and_saved_ones_round_trip() {
        let tmp = tempfile::tempdir().unwrap();
        let settings = LibrarySettings::load(tmp.path()).unwrap();
        assert_eq!(settings, LibrarySettings::default());
        assert_eq!(settings.threshold(RankerKind::Bm25), None);

        let mut settings = settings;
        settings.thresholds.insert(
            "bm25".into(),
            CalibratedThreshold {
                threshold: 0.42,
                cases: 10,
                accuracy_before: Some(0.5),
                accuracy_after: Some(0.7),
            },
        );
        let path = settings.save(tmp.path()).unwrap();
        assert!(path.ends_with("evals/hone-settings.json"));
        let loaded = LibrarySettings::load(tmp.path()).unwrap();
        assert_eq!(loaded.threshold(RankerKind::Bm25), Some(0.42));
        assert_eq!(loaded.threshold(RankerKind::Hybrid), None);
        let select =
            |kind, explicit| selection_threshold(Some(tmp.path()), kind, explicit, 0.5).unwrap();
        assert_eq!(select(RankerKind::Bm25, None), 0.42);
        assert_eq!(select(RankerKind::Bm25, Some(0.9)), 0.9);
        assert_eq!(select(RankerKind::Hybrid, None), 0.5);
    }

    #[test]
    fn the_target_is_the_explicit_one_else_the_remembered_one_else_the_spec() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        assert_eq!(
            library_target(Some(root), None).unwrap(),
            Target::Agentskills
        );
        assert_eq!(library_target(None, None).unwrap(), DEFAULT_TARGET);

        // A calibrated threshold already there survives remembering a target.
        let mut settings = LibrarySettings::default();
        settings.thresholds.insert(
            "bm25".into(),
            CalibratedThreshold {
                threshold: 0.3,
                cases: 4,
                accuracy_before: None,
                accuracy_after: None,
            },
        );
        settings.save(root).unwrap();
        LibrarySettings::remember_target(root, Target::ClaudeApi).unwrap();
        let text = std::fs::read_to_string(LibrarySettings::path(root)).unwrap();
        assert!(text.contains("\"target\": \"claude-api\""), "{text}");
        assert_eq!(
            LibrarySettings::load(root)
                .unwrap()
                .threshold(RankerKind::Bm25),
            Some(0.3)
        );

        assert_eq!(library_target(Some(root), None).unwrap(), Target::ClaudeApi);
        assert_eq!(
            library_target(Some(root), Some(Target::All)).unwrap(),
            Target::All
        );
        // No root: the remembered target of some other library never applies.
        assert_eq!(library_target(None, None).unwrap(), Target::Agentskills);

        let paths = [root.to_path_buf(), PathBuf::from("elsewhere")];
        assert_eq!(settings_root(&paths), Some(root));
        let file = root.join("evals").join(FILE_NAME);
        assert_eq!(settings_root(&[file]), None);
        assert_eq!(settings_root(&[]), None);
    }

    #[test]
    fn unknown_keys_survive_and_bad_json_says_where() {
        let tmp = tempfile::tempdir().unwrap();
        let path = LibrarySettings::path(tmp.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r#"{"target": "claude-code", "future": [1, 2]}"#).unwrap();
        let settings = LibrarySettings::load(tmp.path()).unwrap();
        assert_eq!(settings.target, Some(Target::ClaudeCode));
        settings.save(tmp.path()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"future\""), "{text}");

        std::fs::write(&path, "{\n  \"thresholds\": 3\n}").unwrap();
        let err = LibrarySettings::load(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("hone-settings.json:2:"), "{err}");
    }
}
