//! The opened library and what the window is allowed to touch.
//!
//! The session owns the loaded [`Library`] and the list of canonical folders
//! that commands may read or write: the opened roots, plus the folders of
//! skills the scan reached through symlinks. Every path that arrives from the
//! window goes through [`Session::confine`], so a compromised or buggy front
//! end cannot read `~/.ssh` or write outside the library.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use hone_core::diagnostic::{Diagnostic, Severity};
use hone_core::library::{Filters, Library};
use hone_core::library_settings::{DEFAULT_TARGET, LibrarySettings, library_target};
use hone_core::rules::Target;
use hone_core::skill::Skill;
use hone_core::workspace::{self, ConfineError};

use crate::engine;
use crate::ipc::{CommandError, ErrorKind};
use crate::views::{
    LibraryView, ProblemView, RootKind, RootView, ShadowedView, SkillSummary, count,
};

#[derive(Default)]
pub struct Session {
    /// Canonical roots, the project library first.
    roots: Vec<(PathBuf, RootKind)>,
    library: Library,
    /// The findings of each skill of `library`, by index, once checked: the
    /// window lists the skills first and fills in their counts after.
    diagnostics: OnceLock<Vec<Vec<Diagnostic>>>,
    allowed: Vec<PathBuf>,
    /// Each skill's canonical folder, to its index in `library`.
    by_dir: HashMap<PathBuf, usize>,
    load_ms: u64,
    /// The library's target (whose rules decide which findings are errors):
    /// the one it remembers, else the engine's default.
    target: Target,
    /// Why the library's settings could not be read, when they could not.
    settings_problem: Option<ProblemView>,
    /// Which reading of a library this is: every [`Session::open`] takes the
    /// next number, so the window can tell a stale view from a fresh one.
    generation: u64,
}

/// The last reading's number; 0 is the empty session's.
static READINGS: AtomicU64 = AtomicU64::new(0);

impl Session {
    /// Opens the project library `project` and, optionally, a user-level
    /// skills folder whose skills it shadows.
    pub fn open(project: &Path, user: Option<&Path>) -> Result<Session, String> {
        let started = Instant::now();
        let mut roots = vec![(canonical(project)?, RootKind::Project)];
        if let Some(user) = user {
            let user = canonical(user)?;
            if user != roots[0].0 {
                roots.push((user, RootKind::User));
            }
        }
        let paths: Vec<PathBuf> = roots.iter().map(|(p, _)| p.clone()).collect();
        let library = Library::open(&paths, &Filters::default()).map_err(|e| e.to_string())?;
        let by_dir: HashMap<PathBuf, usize> = library
            .skills
            .iter()
            .enumerate()
            .map(|(index, s)| {
                (
                    s.dir.canonicalize().unwrap_or_else(|_| s.dir.clone()),
                    index,
                )
            })
            .collect();
        let mut allowed = paths;
        allowed.extend(by_dir.keys().cloned());
        allowed.sort();
        allowed.dedup();
        // Settings that cannot be read must not keep the library closed:
        // the default target applies and the window says why.
        let (target, settings_problem) = match library_target(Some(roots[0].0.as_path()), None) {
            Ok(target) => (target, None),
            Err(err) => (
                DEFAULT_TARGET,
                Some(ProblemView {
                    path: display(&LibrarySettings::path(&roots[0].0)),
                    message: err.to_string(),
                }),
            ),
        };
        let load_ms = started.elapsed().as_millis() as u64;
        Ok(Session {
            target,
            settings_problem,
            roots,
            library,
            diagnostics: OnceLock::new(),
            allowed,
            by_dir,
            load_ms,
            generation: READINGS.fetch_add(1, Ordering::Relaxed) + 1,
        })
    }

    /// Opens the same roots again, after changes on disk.
    pub fn reopen(&self) -> Result<Session, String> {
        let project = self
            .roots
            .first()
            .map(|(p, _)| p.as_path())
            .ok_or("no library is open")?;
        Session::open(project, self.user_root())
    }

    pub fn project_root(&self) -> Option<&Path> {
        self.roots.first().map(|(p, _)| p.as_path())
    }

    pub fn user_root(&self) -> Option<&Path> {
        self.roots
            .iter()
            .find(|(_, k)| *k == RootKind::User)
            .map(|(p, _)| p.as_path())
    }

    pub fn roots(&self) -> impl Iterator<Item = &Path> {
        self.roots.iter().map(|(p, _)| p.as_path())
    }

    pub fn library(&self) -> &Library {
        &self.library
    }

    /// Which reading of the library this is (see [`LibraryView::generation`]).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The target the library is checked for (see [`library_target`]).
    pub fn target(&self) -> Target {
        self.target
    }

    /// The canonical `path` if it lies inside the opened library.
    pub fn confine(&self, path: &str) -> Result<PathBuf, CommandError> {
        workspace::confine(&self.allowed, Path::new(path)).map_err(|e| match e {
            ConfineError::Outside(_) => CommandError::new(
                ErrorKind::Refused,
                format!("refused: {path} is outside the opened library"),
            ),
            other => CommandError::new(ErrorKind::NotFound, other.to_string()),
        })
    }

    /// The loaded skill whose `SKILL.md` or folder is `path` (canonical).
    pub fn skill_at(&self, path: &Path) -> Option<&Skill> {
        let dir = match path.file_name() {
            Some(name) if name == hone_core::folder::SKILL_FILE => path.parent()?,
            _ => path,
        };
        self.by_dir
            .get(dir)
            .or_else(|| self.by_dir.get(path))
            .map(|&index| &self.library.skills[index])
    }

    /// Checks every skill (once; the slow part of opening a large library).
    pub fn check(&self) {
        self.diagnostics
            .get_or_init(|| engine::check_library_for(&self.library, self.target));
    }

    pub fn view(&self) -> LibraryView {
        let tokenizer = engine::default_tokenizer();
        let unchecked = vec![Vec::new(); self.library.skills.len()];
        let diagnostics = self.diagnostics.get().unwrap_or(&unchecked);
        let skills = self
            .library
            .skills
            .iter()
            .zip(diagnostics)
            .zip(&self.library.skill_roots)
            .map(|((skill, found), &root)| SkillSummary {
                id: skill.id.clone(),
                dir_name: skill.dir_name(),
                dir: display(&skill.dir),
                path: display(&skill.path),
                root,
                description: skill.meta.description.clone().unwrap_or_default(),
                errors: count(found, Severity::Error),
                warnings: count(found, Severity::Warning),
                metadata_tokens: engine::metadata_tokens(skill, &tokenizer),
            })
            .collect();
        LibraryView {
            roots: self
                .roots
                .iter()
                .map(|(path, kind)| RootView {
                    path: display(path),
                    kind: *kind,
                })
                .collect(),
            skills,
            shadowed: self
                .library
                .shadowed
                .iter()
                .map(|s| ShadowedView {
                    id: s.id.clone(),
                    kept: display(&s.kept),
                    hidden: display(&s.hidden),
                })
                .collect(),
            problems: self
                .library
                .problems
                .iter()
                .map(|p| ProblemView {
                    path: display(&p.path),
                    message: p.message.clone(),
                })
                .chain(self.settings_problem.clone())
                .collect(),
            load_ms: self.load_ms,
            target: self.target,
            checking: self.diagnostics.get().is_none(),
            generation: self.generation,
        }
    }
}

fn canonical(path: &Path) -> Result<PathBuf, String> {
    workspace::canonical_root(path).map_err(|e| format!("cannot open {}: {e}", path.display()))
}

pub fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn library_with_one_skill() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir(root.join("pdf")).unwrap();
        fs::write(
            root.join("pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Reads PDF files. Use when a PDF is mentioned.\n---\nBody\n",
        )
        .unwrap();
        (dir, root)
    }

    #[test]
    fn paths_outside_the_library_are_refused() {
        let (_dir, root) = library_with_one_skill();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        let session = Session::open(&root, None).unwrap();

        let inside = root.join("pdf/SKILL.md");
        assert_eq!(session.confine(&display(&inside)).unwrap(), inside);
        for attempt in [
            format!("{}/pdf/../../etc/passwd", root.display()),
            format!("{}/escape/secret", root.display()),
            "/etc/passwd".to_owned(),
            "pdf/SKILL.md".to_owned(),
        ] {
            assert!(
                session.confine(&attempt).is_err(),
                "{attempt} must be refused"
            );
        }
    }

    #[test]
    fn skills_are_found_by_folder_or_file() {
        let (_dir, root) = library_with_one_skill();
        let session = Session::open(&root, None).unwrap();
        for path in [root.join("pdf"), root.join("pdf/SKILL.md")] {
            assert_eq!(session.skill_at(&path).map(|s| s.id.as_str()), Some("pdf"));
        }
        assert!(session.skill_at(&root.join("nothing/SKILL.md")).is_none());
    }

    #[test]
    fn each_reading_of_the_library_is_numbered_after_the_last() {
        let (_dir, root) = library_with_one_skill();
        let first = Session::open(&root, None).unwrap();
        let again = first.reopen().unwrap();
        assert!(again.view().generation > first.view().generation);
        // Checking changes the view of a reading, not which reading it is.
        let before = again.view().generation;
        again.check();
        assert_eq!(again.view().generation, before);
    }

    #[test]
    fn the_view_counts_findings_per_skill() {
        let (_dir, root) = library_with_one_skill();
        let session = Session::open(&root, None).unwrap();
        assert!(session.view().checking);
        session.check();
        let view = session.view();
        assert!(!view.checking);
        assert_eq!(view.skills.len(), 1);
        assert_eq!(view.skills[0].id, "pdf");
        assert_eq!(view.roots[0].kind, RootKind::Project);
    }
}
