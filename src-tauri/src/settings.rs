//! What the app remembers between runs: the last library, the recent list and
//! the user-level skills folder. Kept as a small JSON file in the platform's
//! config folder (or `$HONE_CONFIG_DIR`, which the end-to-end tests use to
//! start from a clean slate).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

const RECENT_LIMIT: usize = 10;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Most recent first; the first entry is the library opened at start.
    pub recent: Vec<String>,
    /// Written as `userRoot` before the app's JSON became snake_case; the alias
    /// keeps the folder of a settings file saved then.
    #[serde(alias = "userRoot")]
    pub user_root: Option<String>,
}

impl Settings {
    /// Reads the settings; a missing or unreadable file gives the defaults.
    pub fn load(file: &Path) -> Settings {
        std::fs::read(file)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    pub fn save(&self, file: &Path) -> std::io::Result<()> {
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        hone_core::workspace::write_atomic(file, &json)
    }

    /// Moves `library` to the front of the recent list.
    pub fn remember(&mut self, library: &str) {
        self.recent.retain(|r| r != library);
        self.recent.insert(0, library.to_owned());
        self.recent.truncate(RECENT_LIMIT);
    }

    pub fn forget(&mut self, library: &str) {
        self.recent.retain(|r| r != library);
    }
}

/// The settings file: `$HONE_CONFIG_DIR/settings.json`, else in `config_dir`.
pub fn settings_file(config_dir: Option<PathBuf>) -> Option<PathBuf> {
    std::env::var_os("HONE_CONFIG_DIR")
        .map(PathBuf::from)
        .or(config_dir)
        .map(|dir| dir.join("settings.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_libraries_are_unique_most_recent_first_and_bounded() {
        let mut settings = Settings::default();
        for i in 0..12 {
            settings.remember(&format!("/lib/{i}"));
        }
        settings.remember("/lib/5");
        assert_eq!(settings.recent.len(), RECENT_LIMIT);
        assert_eq!(settings.recent[0], "/lib/5");
        assert_eq!(settings.recent.iter().filter(|r| *r == "/lib/5").count(), 1);
    }

    #[test]
    fn round_trips_reads_the_old_casing_and_tolerates_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("nested/settings.json");
        assert_eq!(Settings::load(&file), Settings::default());
        let mut settings = Settings::default();
        settings.remember("/a");
        settings.user_root = Some("/home/me/.claude/skills".into());
        settings.save(&file).unwrap();
        assert_eq!(Settings::load(&file), settings);
        std::fs::write(&file, r#"{"recent": ["/a"], "userRoot": "/u"}"#).unwrap();
        assert_eq!(Settings::load(&file).user_root.as_deref(), Some("/u"));
        std::fs::write(&file, "{not json").unwrap();
        assert_eq!(Settings::load(&file), Settings::default());
    }
}
