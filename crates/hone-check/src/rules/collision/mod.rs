//! `HS502`: two skills whose routing texts describe the same requests.
//!
//! An agent chooses a skill from its routing metadata alone (`name`,
//! `description`, `when_to_use`, `triggers`). When two skills of a library
//! say nearly the same thing there, the agent picks either, and which one
//! wins a request is an accident of wording. This is the commonest reason a
//! well-written skill is "never picked", and no single-skill rule sees it.
//!
//! Which pairs collide, and how closeness is measured, is
//! [`crate::rank::collision`]'s (it analyses routing texts as the keyword
//! ranker does); this module reports the pairs at both skills, and keeps the
//! index of the library checked last so that an editor's keystroke
//! re-analyses one skill.

// One module per rule: its documentation (see `Rule::doc`).
pub(crate) mod routing_collision;

use std::sync::{Arc, Mutex};

use super::cache::{CollisionMemo, Fingerprint, fingerprint};
use super::{Rule, Target, diagnostic};
use crate::diagnostic::Diagnostic;
use crate::library::Library;
use crate::rank::RoutingDoc;
use crate::rank::collision::{Collision, CollisionIndex};
use crate::skill::Skill;

/// The index of the library checked last, by a fingerprint of its routing
/// documents. An editor checks the open skill against an unchanged library
/// on every keystroke; analysing every skill each time would cost more than
/// all the other rules together, and the fingerprint costs a hash.
///
/// The lock is held only for work that never uses the thread pool. A
/// thread that holds it while waiting on the pool can be asked, while it
/// waits, to run another check that waits on the lock: a check on the pool
/// would then wait for itself. So the index is shared (`Arc`): building it
/// and the library-wide pass, both parallel, run with the lock released.
static LAST_INDEX: Mutex<Option<(Fingerprint, Arc<CollisionIndex>)>> = Mutex::new(None);

fn last_index() -> std::sync::MutexGuard<'static, Option<(Fingerprint, Arc<CollisionIndex>)>> {
    // A panic elsewhere cannot leave the index half built, so a poisoned
    // lock is still good.
    LAST_INDEX.lock().unwrap_or_else(|e| e.into_inner())
}

/// The index of `docs`, built (on the pool, without the lock) only when
/// they changed since the last check.
fn index_of(docs: &[RoutingDoc], fingerprint: Fingerprint) -> Arc<CollisionIndex> {
    if let Some((known, index)) = last_index().as_ref()
        && *known == fingerprint
    {
        return index.clone();
    }
    let built = Arc::new(CollisionIndex::new(docs));
    *last_index() = Some((fingerprint, built.clone()));
    built
}

/// Runs `work`, which must not use the thread pool, on the index of `docs`
/// with the lock held: `work` may change the index if it leaves it as found.
fn with_index_mut<T>(docs: &[RoutingDoc], work: impl FnOnce(&mut CollisionIndex) -> T) -> T {
    let fingerprint = fingerprint(docs);
    let mut index = index_of(docs, fingerprint);
    let mut last = last_index();
    match last.as_mut() {
        Some((known, shared)) if *known == fingerprint => {
            drop(index);
            // Copied only when a library-wide pass is reading it right now.
            work(Arc::make_mut(shared))
        }
        // Another library was checked meanwhile: work on this one's own.
        _ => work(Arc::make_mut(&mut index)),
    }
}

/// `HS502` for every colliding pair of the library, at both skills.
pub(super) fn check(
    library: &Library,
    target: Target,
    memo: Option<&CollisionMemo>,
    out: &mut Vec<Diagnostic>,
) {
    if !Rule::RoutingCollision.applies_to(target) || library.skills.len() < 2 {
        return;
    }
    let docs = RoutingDoc::from_library(library);
    let compute = || index_of(&docs, fingerprint(&docs)).collisions(None);
    let collisions = match memo {
        Some(memo) => memo.collisions(&docs, compute),
        None => compute(),
    };
    for collision in collisions {
        let (a, b) = (
            &library.skills[collision.first],
            &library.skills[collision.second],
        );
        // Two copies of one skill are HS501's to report.
        if a.id == b.id {
            continue;
        }
        out.push(finding(a, b, &collision));
        out.push(finding(b, a, &collision));
    }
}

/// `HS502` for one skill as edited, within `library`.
pub(super) fn check_one(
    skill: &Skill,
    library: &Library,
    target: Target,
    out: &mut Vec<Diagnostic>,
) {
    if !Rule::RoutingCollision.applies_to(target) {
        return;
    }
    // The edited skill replaces its saved version in place, so slots stay
    // the library's indices.
    let docs = RoutingDoc::from_library(library);
    let edited = RoutingDoc::from_skill(skill);
    let saved = docs.iter().find(|d| d.key == edited.key);
    let (slot, found) = with_index_mut(&docs, |index| {
        let slot = index.upsert(&edited);
        let found = index.collisions_of(&edited.key, None);
        // Back to the library as saved, for the next keystroke.
        match saved {
            Some(saved) => {
                index.upsert(saved);
            }
            None => {
                index.remove(&edited.key);
            }
        }
        (slot, found)
    });
    for collision in found {
        let other = if collision.first == slot {
            collision.second
        } else {
            collision.first
        };
        if let Some(other) = library.skills.get(other).filter(|o| o.id != skill.id) {
            out.push(finding(skill, other, &collision));
        }
    }
}

/// The finding at `skill`'s description about its collision with `other`.
fn finding(skill: &Skill, other: &Skill, collision: &Collision) -> Diagnostic {
    let root = skill.yaml_root();
    let range = root
        .and_then(|r| r.get("description"))
        .or_else(|| root.and_then(|r| r.get("name")))
        .map_or(0..0, |node| node.span.clone());
    let shared: Vec<&str> = collision
        .shared
        .iter()
        .take(6)
        .map(String::as_str)
        .collect();
    let closeness = match collision.semantic_similarity {
        Some(s) => format!(
            "term similarity {:.2}, semantic {:.2}",
            collision.term_similarity, s
        ),
        None => format!("term similarity {:.2}", collision.term_similarity),
    };
    let mut finding = diagnostic(
        skill,
        Rule::RoutingCollision,
        range,
        format!(
            "`{}` and `{}` ({}) describe the same requests; an agent will pick either (shared: {}; {closeness})",
            skill.id,
            other.id,
            other.path.display(),
            shared.join(", "),
        ),
    );
    finding.help = Some(format!(
        "say what only `{}` does, and when to use `{}` instead",
        skill.id, other.id
    ));
    finding
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::library::{Filters, Library};
    // The library the collision analysis itself is tested on.
    use crate::rank::collision::test_library::SKILLS;
    use crate::rules::check_library;

    fn library(skills: &[(&str, &str)]) -> (tempfile::TempDir, Library) {
        let tmp = tempfile::tempdir().unwrap();
        for (name, description) in skills {
            let dir = tmp.path().join(name);
            std::fs::create_dir_all(&dir).unwrap();
            let text = format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n");
            std::fs::write(dir.join("SKILL.md"), text).unwrap();
        }
        let lib = Library::open(&[PathBuf::from(tmp.path())], &Filters::default()).unwrap();
        (tmp, lib)
    }

    fn collisions(lib: &Library) -> Vec<Diagnostic> {
        check_library(lib, Target::All)
            .into_iter()
            .filter(|d| d.code == "HS502")
            .collect()
    }

    #[test]
    fn a_known_collision_is_reported_in_both_files_and_a_neighbour_is_not() {
        let (_tmp, lib) = library(SKILLS);
        let found = collisions(&lib);
        assert_eq!(found.len(), 2, "{found:#?}");
        let mut paths: Vec<String> = found
            .iter()
            .map(|d| {
                d.path
                    .parent()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        paths.sort();
        assert_eq!(paths, ["pdf-extract", "pdf-tools"]);
        for finding in &found {
            // At the description, line 3 of each file.
            assert_eq!(finding.span.start.line, 3, "{finding:?}");
            assert!(
                finding.message.contains("`pdf-tools`")
                    && finding.message.contains("`pdf-extract`")
            );
            assert!(finding.message.contains("tables"), "{}", finding.message);
        }
        // pdf-forms shares `PDF` and `use` words with both, but is a different job.
        assert!(found.iter().all(|d| !d.message.contains("pdf-forms")));
    }

    /// Checks of different libraries running on the thread pool at once, as
    /// the app and `hone serve` run them: none waits on another for ever.
    /// The deadline only catches a hang; the checks take milliseconds.
    #[test]
    fn checks_on_the_pool_at_once_never_wait_for_each_other() {
        let libraries: Vec<(tempfile::TempDir, Library)> = (0..4)
            .map(|n| {
                let skills: Vec<(String, String)> = SKILLS
                    .iter()
                    .map(|(name, description)| {
                        (format!("{name}-{n}"), format!("{description} ({n})"))
                    })
                    .collect();
                let borrowed: Vec<(&str, &str)> = skills
                    .iter()
                    .map(|(a, b)| (a.as_str(), b.as_str()))
                    .collect();
                library(&borrowed)
            })
            .collect();
        let libraries = std::sync::Arc::new(libraries);
        let (done, finished) = std::sync::mpsc::channel();
        /// Says the thread ended, also when it panics.
        struct Ended(std::sync::mpsc::Sender<()>);
        impl Drop for Ended {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        // Several threads outside the pool (as tests, or the app's commands,
        // call checks), each checking libraries whose analyses differ.
        let threads: Vec<_> = (0..4)
            .map(|thread| {
                let (libraries, ended) = (libraries.clone(), Ended(done.clone()));
                std::thread::spawn(move || {
                    let _ended = ended;
                    // With 25 rounds a lock held across the pool hung about
                    // half the runs; with 200, all 20 tried.
                    for round in 0..200 {
                        let (_, library) = &libraries[(thread + round) % libraries.len()];
                        assert_eq!(collisions(library).len(), 2);
                    }
                })
            })
            .collect();
        for _ in &threads {
            finished
                .recv_timeout(std::time::Duration::from_secs(300))
                .expect("checks waited for each other on the pool (a deadlock)");
        }
        for thread in threads {
            thread.join().unwrap();
        }
    }

    #[test]
    fn copies_of_one_skill_are_left_to_hs501() {
        let tmp = tempfile::tempdir().unwrap();
        for root in ["a", "b"] {
            let dir = tmp.path().join(root).join("pdf-tools");
            std::fs::create_dir_all(&dir).unwrap();
            let text = format!("---\nname: pdf-tools\ndescription: {}\n---\n", SKILLS[0].1);
            std::fs::write(dir.join("SKILL.md"), text).unwrap();
        }
        let lib = Library::open(&[PathBuf::from(tmp.path())], &Filters::default()).unwrap();
        let found = check_library(&lib, Target::All);
        assert!(found.iter().any(|d| d.code == "HS501"));
        assert!(found.iter().all(|d| d.code != "HS502"), "{found:#?}");
    }

    #[test]
    fn an_edit_finds_and_clears_its_own_collisions() {
        let (_tmp, lib) = library(SKILLS);
        let mut edited = lib
            .skills
            .iter()
            .find(|s| s.id == "pdf-forms")
            .unwrap()
            .clone();
        edited.meta.description = Some(SKILLS[0].1.to_owned());
        let mut out = Vec::new();
        check_one(&edited, &lib, Target::All, &mut out);
        let others: Vec<&str> = out
            .iter()
            .filter_map(|d| {
                ["`pdf-tools`", "`pdf-extract`"]
                    .into_iter()
                    .find(|n| d.message.contains(n))
            })
            .collect();
        assert_eq!(others.len(), 2, "{out:#?}");

        let spreadsheet = lib.skills.iter().find(|s| s.id == "spreadsheet").unwrap();
        out.clear();
        check_one(spreadsheet, &lib, Target::All, &mut out);
        assert!(out.is_empty(), "{out:#?}");
    }
}
