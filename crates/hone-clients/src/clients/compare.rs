//! The installed client's real listing beside Hone's prediction: what
//! `hone clients show` and the app's capture both run.
//!
//! The client never sees the author's folders: the folders it would read
//! are copied into a scratch project and a scratch home ([`Scratch`]), the
//! prediction is made for those copies, and the client is run on them
//! offline ([`capture`]). The two listings are then split into entries and
//! compared one by one ([`compare`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::capture::{self, CaptureError, Captured, Installed, Isolation, Plan};
use super::{Client, Environment, Prediction, Scope};
use crate::cancel::Cancel;

/// Said after every capture: where the client ran and what it could reach.
pub const PRIVACY_NOTE: &str =
    "Nothing left this machine: the client ran on scratch copies against a loopback stand-in.";

/// The variables of this process a capture passes on to the client, as
/// they change the listing.
const PASSED: [&str; 1] = ["SLASH_COMMAND_TOOL_CHAR_BUDGET"];

/// A scratch project (a git root) and home holding copies of the skill
/// folders and settings a client would read; removed when dropped.
pub struct Scratch {
    _dir: tempfile::TempDir,
    pub project: PathBuf,
    pub home: PathBuf,
}

impl Scratch {
    /// An empty scratch project and home.
    pub fn empty() -> std::io::Result<Scratch> {
        let dir = tempfile::tempdir()?;
        let project = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&project)?;
        std::fs::create_dir_all(&home)?;
        // A git root, as the clients look for the project's root.
        std::fs::create_dir_all(project.join(".git"))?;
        Ok(Scratch {
            _dir: dir,
            project,
            home,
        })
    }

    /// Copies of the folders `client` reads when started in `dir` with
    /// `env`'s home: the project's and the user's skill folders and Claude
    /// Code's settings files.
    pub fn copy_of(dir: &Path, env: &Environment, client: Client) -> std::io::Result<Scratch> {
        let scratch = Scratch::empty()?;
        for (base, target, scope) in [
            (dir, &scratch.project, Scope::Project),
            (&env.home, &scratch.home, Scope::User),
        ] {
            for folder in client.skill_folders(scope) {
                let from = base.join(folder);
                if from.is_dir() {
                    capture::copy_tree(
                        &from,
                        &target.join(folder),
                        capture::Links::Follow,
                        u64::MAX,
                    )?;
                }
            }
        }
        for file in [".claude/settings.json", ".claude/settings.local.json"] {
            if dir.join(file).is_file() {
                std::fs::create_dir_all(scratch.project.join(".claude"))?;
                std::fs::copy(dir.join(file), scratch.project.join(file))?;
            }
        }
        if env.home.join(".claude/settings.json").is_file() {
            std::fs::create_dir_all(scratch.home.join(".claude"))?;
            std::fs::copy(
                env.home.join(".claude/settings.json"),
                scratch.home.join(".claude/settings.json"),
            )?;
        }
        Ok(scratch)
    }

    /// The environment the prediction for these copies is made in: the
    /// scratch home, where the clients are installed, and the variables a
    /// capture passes on from `env`.
    pub fn environment(&self, env: &Environment) -> Environment {
        let mut scratch_env = Environment::with_home(&self.home);
        // The clients' own files stay where they are installed.
        scratch_env.vars.insert(
            "HONE_CLIENTS_DIR".into(),
            capture::clients_dir(env).display().to_string(),
        );
        for (name, value) in &env.vars {
            if PASSED.contains(&name.as_str()) {
                scratch_env.vars.insert(name.clone(), value.clone());
            }
        }
        scratch_env
    }
}

/// The real listing beside the prediction, as `hone clients show --format
/// json` prints it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ListingComparison {
    pub client: Client,
    pub installed_version: String,
    pub prediction: Prediction,
    /// The listing the client sent, when a request carried one.
    pub captured: Option<String>,
    /// Whether the listing is byte-identical to the prediction's.
    pub identical: bool,
    pub entries_compared: usize,
    pub entries_identical: usize,
    pub differences: Vec<ListingDifference>,
    /// Whether the run had a network namespace with loopback only.
    pub isolated: bool,
    pub seconds: f64,
    pub note: &'static str,
}

/// One entry where the prediction and the real listing differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ListingDifference {
    /// 0-based, in listing order.
    pub index: usize,
    pub predicted: Option<String>,
    pub real: Option<String>,
}

impl ListingComparison {
    /// Whether the real listing holds the predicted entries, each
    /// byte-identical, in another order: what a client whose order is not
    /// stable ([`Client::listing_order_is_stable`]) can do.
    pub fn same_entries_reordered(&self) -> bool {
        let Some(real) = self.captured.as_deref() else {
            return false;
        };
        if self.identical {
            return false;
        }
        let mut real = super::split_listing(self.client, real);
        let mut predicted: Vec<String> = self
            .prediction
            .entries
            .iter()
            .map(|e| e.text.clone())
            .collect();
        real.sort();
        predicted.sort();
        real == predicted
    }
}

/// Why a comparison could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error(
        "{} is not installed where Hone looks ({}); `make test` installs it, or run scripts/install-clients.sh",
        .client.display_name(),
        .clients_dir.display()
    )]
    NotInstalled {
        client: Client,
        clients_dir: PathBuf,
    },
    #[error("{} is not a folder", .0.display())]
    NotAFolder(PathBuf),
    #[error("Hone does not model {} yet", .0.display_name())]
    NotModelled(Client),
    #[error("cannot prepare the scratch folders: {0}")]
    Scratch(std::io::Error),
    #[error(transparent)]
    Capture(#[from] CaptureError),
}

/// Entry by entry, where the prediction and the real listing differ: the
/// number of identical entries and the differences.
pub fn compare(predicted: &[String], real: &[String]) -> (usize, Vec<ListingDifference>) {
    let mut identical = 0;
    let mut differences = Vec::new();
    for index in 0..predicted.len().max(real.len()) {
        let p = predicted.get(index);
        let r = real.get(index);
        if p == r {
            identical += 1;
        } else {
            differences.push(ListingDifference {
                index,
                predicted: p.cloned(),
                real: r.cloned(),
            });
        }
    }
    (identical, differences)
}

/// The plan that runs `installed` on the scratch `project` and `home`.
pub fn plan_for(
    installed: Installed,
    project: &Path,
    home: &Path,
    model: Option<&str>,
    env: &Environment,
    timeout: u64,
) -> Plan {
    Plan {
        installed,
        project: project.to_path_buf(),
        home: home.to_path_buf(),
        model: model.map(str::to_string),
        vars: PASSED
            .iter()
            .filter_map(|name| env.var(name).map(|v| (name.to_string(), v.to_string())))
            .collect(),
        timeout_secs: timeout,
        task: None,
        egress: None,
    }
}

/// `hone` (`program`), re-executed inside a network namespace with
/// `clients capture-inside`.
pub fn reexec_isolation(program: PathBuf) -> Isolation {
    Isolation::Namespace {
        reexec: vec![
            OsString::from(program),
            OsString::from("clients"),
            OsString::from("capture-inside"),
        ],
    }
}

/// How a capture with `isolation` is kept off the network, in words.
pub fn isolation_note(isolated: bool) -> &'static str {
    if isolated {
        "The run had loopback only."
    } else {
        "No network namespace was available, so the client was only pointed at loopback."
    }
}

/// A capture and the run it came from.
pub struct Shown {
    pub comparison: ListingComparison,
    pub captured: Captured,
}

impl Shown {
    /// Whether the real listing is the predicted one (or, with nothing
    /// predicted, whether the client sent no listing either).
    pub fn agrees(&self) -> bool {
        let c = &self.comparison;
        c.identical || c.captured.is_none() && c.prediction.entries.is_empty()
    }
}

/// The options of one capture.
pub struct CaptureOptions<'a> {
    pub model: Option<&'a str>,
    /// Seconds before the client is stopped.
    pub timeout: u64,
    pub isolation: &'a Isolation,
    pub cancel: &'a Cancel,
}

/// Runs the installed `client` on `dir` offline, on scratch copies of the
/// folders it reads, and compares its listing with the prediction.
pub fn show(
    dir: &Path,
    client: Client,
    env: &Environment,
    options: &CaptureOptions,
) -> Result<Shown, CompareError> {
    let installed = installed(client, env)?;
    if !dir.is_dir() {
        return Err(CompareError::NotAFolder(dir.to_path_buf()));
    }
    let scratch = Scratch::copy_of(dir, env, client).map_err(CompareError::Scratch)?;
    show_in(&scratch, installed, env, options)
}

/// The installed `client`, or how to install it.
pub fn installed(client: Client, env: &Environment) -> Result<Installed, CompareError> {
    capture::find_installed(client, env).ok_or_else(|| CompareError::NotInstalled {
        client,
        clients_dir: capture::clients_dir(env),
    })
}

/// Predicts, runs `installed` and compares, on folders already copied into
/// `scratch`.
pub fn show_in(
    scratch: &Scratch,
    installed: Installed,
    env: &Environment,
    options: &CaptureOptions,
) -> Result<Shown, CompareError> {
    let client = installed.client;
    let prediction = super::predict(
        client,
        &scratch.project,
        &scratch.environment(env),
        options.model,
    )
    .ok_or(CompareError::NotModelled(client))?;
    let installed_version = installed.version.clone();
    let plan = plan_for(
        installed,
        &scratch.project,
        &scratch.home,
        options.model,
        env,
        options.timeout,
    );
    let captured = capture::run_cancellable(&plan, options.isolation, options.cancel)?;
    let real = captured.listing.clone();
    let predicted_entries: Vec<String> =
        prediction.entries.iter().map(|e| e.text.clone()).collect();
    let real_entries = real
        .as_deref()
        .map(|r| super::split_listing(client, r))
        .unwrap_or_default();
    let (entries_identical, differences) = compare(&predicted_entries, &real_entries);
    let identical = real.as_deref() == Some(prediction.listing.as_str());
    let comparison = ListingComparison {
        client,
        installed_version,
        entries_compared: predicted_entries.len().max(real_entries.len()),
        entries_identical,
        differences,
        identical,
        captured: real,
        prediction,
        isolated: captured.isolated,
        seconds: captured.seconds,
        note: PRIVACY_NOTE,
    };
    Ok(Shown {
        comparison,
        captured,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn compare_counts_identical_entries_and_keeps_each_difference() {
        let (same, diffs) = compare(&texts(&["a", "b", "c"]), &texts(&["a", "B"]));
        assert_eq!(same, 1);
        assert_eq!(
            diffs,
            vec![
                ListingDifference {
                    index: 1,
                    predicted: Some("b".into()),
                    real: Some("B".into())
                },
                ListingDifference {
                    index: 2,
                    predicted: Some("c".into()),
                    real: None
                },
            ]
        );
    }

    #[test]
    fn the_same_entries_in_another_order_are_told_apart_from_other_entries() {
        let a = super::super::gemini::element("a", "A.", "/p/a/SKILL.md");
        let b = super::super::gemini::element("b", "B.", "/p/b/SKILL.md");
        let listing = |items: &[&str]| {
            format!(
                "# Skills\n<available_skills>\n{}\n</available_skills>",
                items.join("\n")
            )
        };
        let entry = |text: &str| super::super::Entry {
            text: text.to_string(),
            name: String::new(),
            description: String::new(),
            path: String::new(),
            bare: false,
            builtin: false,
        };
        let comparison = |real: String| {
            let prediction = Prediction {
                client: Client::Gemini,
                client_version: "0",
                model: "m".into(),
                placement: String::new(),
                budget: None,
                entries: vec![entry(&a), entry(&b)],
                left_out: Vec::new(),
                listing: listing(&[&a, &b]),
            };
            ListingComparison {
                client: Client::Gemini,
                installed_version: "0".into(),
                identical: real == prediction.listing,
                prediction,
                captured: Some(real),
                entries_compared: 2,
                entries_identical: 0,
                differences: Vec::new(),
                isolated: true,
                seconds: 0.0,
                note: PRIVACY_NOTE,
            }
        };
        assert!(comparison(listing(&[&b, &a])).same_entries_reordered());
        assert!(!comparison(listing(&[&a, &b])).same_entries_reordered());
        assert!(!comparison(listing(&[&a, &a])).same_entries_reordered());
    }

    #[test]
    fn a_scratch_copy_holds_the_clients_folders_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("p");
        let home = root.path().join("h");
        for (base, folder) in [(&dir, ".gemini/skills/a"), (&dir, ".claude/skills/b")] {
            std::fs::create_dir_all(base.join(folder)).unwrap();
            std::fs::write(base.join(folder).join("SKILL.md"), "---\n---\n").unwrap();
        }
        std::fs::create_dir_all(home.join(".agents/skills/c")).unwrap();
        std::fs::write(home.join(".agents/skills/c/SKILL.md"), "x").unwrap();
        let env = Environment::with_home(&home);
        let scratch = Scratch::copy_of(&dir, &env, Client::Gemini).unwrap();
        assert!(scratch.project.join(".git").is_dir());
        assert!(scratch.project.join(".gemini/skills/a/SKILL.md").is_file());
        assert!(!scratch.project.join(".claude").exists());
        assert!(scratch.home.join(".agents/skills/c/SKILL.md").is_file());
        let scratch_env = scratch.environment(&env);
        assert_eq!(scratch_env.home, scratch.home);
        assert!(scratch_env.var("HONE_CLIENTS_DIR").is_some());
    }
}
