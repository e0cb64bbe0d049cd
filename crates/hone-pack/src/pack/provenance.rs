//! Where an installed copy came from, recorded in its `SKILL.md` the way
//! `gh skill install` does, so that either tool can read the other's: under
//! the frontmatter's `metadata`, `github-repo` (the repository's URL),
//! `github-ref` (`refs/heads/main`, `refs/tags/v1.0.0`), `github-tree-sha`
//! (the git tree of the skill folder), `github-path` (the folder in the
//! repository) and, when pinned, `github-pinned`; a skill installed from a
//! folder that is no clean git checkout gets `local-path` instead.
//!
//! Only those keys change ([`crate::edit::set_metadata_field`]): the copy is
//! otherwise the source byte for byte, which is how [`expected_skill_file`]
//! compares a stamped copy with its source.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use super::PackError;
use crate::document::{FrontmatterBlock, SkillDocument};
use crate::edit::set_metadata_field;
use crate::yaml::{self, Node, Value};

/// Every key this module writes, in the order `gh skill` lists them (sorted).
pub const PROVENANCE_KEYS: [&str; 6] = [
    "github-path",
    "github-pinned",
    "github-ref",
    "github-repo",
    "github-tree-sha",
    "local-path",
];

/// Where a copy came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Provenance {
    /// A folder of a git repository, at a commit.
    Git {
        /// The `origin` remote's URL, without credentials.
        repo: String,
        /// The branch or tag checked out; `None` on a detached head.
        git_ref: Option<String>,
        /// The skill folder's tree in that commit.
        tree_sha: String,
        /// The folder in the repository, `/`-separated (`.` for the root).
        path: String,
        /// What the install was pinned to, when it was.
        pinned: Option<String>,
    },
    /// A folder on disk.
    Local { path: PathBuf },
}

impl Provenance {
    /// Each key of [`PROVENANCE_KEYS`] with its value here, `None` for those
    /// this provenance does not have (they are removed from a copy).
    fn fields(&self) -> [(&'static str, Option<String>); 6] {
        let (repo, git_ref, tree, path, pinned, local) = match self {
            Provenance::Git {
                repo,
                git_ref,
                tree_sha,
                path,
                pinned,
            } => (
                Some(repo.clone()),
                git_ref.clone(),
                Some(tree_sha.clone()),
                Some(path.clone()),
                pinned.clone(),
                None,
            ),
            Provenance::Local { path } => (
                None,
                None,
                None,
                None,
                None,
                Some(path.to_string_lossy().into_owned()),
            ),
        };
        [
            ("github-path", path),
            ("github-pinned", pinned),
            ("github-ref", git_ref),
            ("github-repo", repo),
            ("github-tree-sha", tree),
            ("local-path", local),
        ]
    }
}

/// The provenance of the skill folder `dir` as an install records it: its
/// git origin, branch or tag, tree and path when it is a clean folder of a
/// checkout with an `origin` remote, else its absolute path. A folder with
/// uncommitted changes is recorded by path, since no tree holds what is copied.
pub fn of_source(dir: &Path) -> Provenance {
    git_provenance(dir).unwrap_or_else(|| Provenance::Local {
        path: std::fs::canonicalize(dir)
            .or_else(|_| std::path::absolute(dir))
            .unwrap_or_else(|_| dir.to_path_buf()),
    })
}

fn git_provenance(dir: &Path) -> Option<Provenance> {
    let repo = git(dir, &["remote", "get-url", "origin"])?;
    let dirty = git_output(dir, &["status", "--porcelain", "--", "."])?;
    if !dirty.trim().is_empty() {
        return None;
    }
    let git_ref = git(dir, &["symbolic-ref", "-q", "HEAD"]).or_else(|| {
        git(dir, &["describe", "--tags", "--exact-match", "HEAD"]).map(|t| format!("refs/tags/{t}"))
    });
    Some(Provenance::Git {
        repo: public_url(&repo),
        git_ref,
        tree_sha: current_tree(dir)?,
        path: folder_in_repository(dir)?,
        pinned: None,
    })
}

/// The git tree of the folder `dir` in the commit checked out, when `dir` is
/// in a git work tree (whatever its changes).
pub fn current_tree(dir: &Path) -> Option<String> {
    let prefix = folder_in_repository(dir)?;
    let spec = if prefix == "." {
        "HEAD:".to_owned()
    } else {
        format!("HEAD:{prefix}")
    };
    git(dir, &["rev-parse", "--verify", "-q", &spec])
}

/// `dir` relative to its work tree's root, `/`-separated, `.` for the root.
fn folder_in_repository(dir: &Path) -> Option<String> {
    let prefix = git_output(dir, &["rev-parse", "--show-prefix"])?;
    let prefix = prefix.trim().trim_end_matches('/');
    Some(if prefix.is_empty() { "." } else { prefix }.to_owned())
}

/// The trimmed output of a git command that succeeded and printed something.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    git_output(dir, args)
        .map(|out| out.trim().to_owned())
        .filter(|out| !out.is_empty())
}

/// The output of `git -C dir args…`; `None` when git is missing or fails.
pub(super) fn git_output(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A remote's URL as `gh skill` records a repository: `https://host/owner/repo`
/// for `git@host:owner/repo.git`, without a `.git` suffix, and never with the
/// credentials an `https://user:token@host/...` remote may hold. A local path
/// is kept as it is.
fn public_url(url: &str) -> String {
    let url = url.trim();
    let strip_git = |s: &str| s.strip_suffix(".git").unwrap_or(s).to_owned();
    if let Some((scheme, rest)) = url.split_once("://") {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let host = authority.rsplit('@').next().unwrap_or(authority);
        let url = if path.is_empty() {
            format!("{scheme}://{host}")
        } else {
            format!("{scheme}://{host}/{path}")
        };
        return strip_git(&url);
    }
    if let Some((user_host, path)) = url.split_once(':')
        && !user_host.contains('/')
        && user_host.contains('@')
    {
        let host = user_host.rsplit('@').next().unwrap_or(user_host);
        return strip_git(&format!("https://{host}/{path}"));
    }
    url.to_owned()
}

/// `text` (a `SKILL.md`) with `provenance` recorded under `metadata`, and
/// any provenance key it does not have removed.
pub fn stamp(text: &str, provenance: &Provenance) -> Result<String, crate::edit::EditError> {
    let mut text = text.to_owned();
    for (key, value) in provenance.fields() {
        text = set_metadata_field(&text, key, value.as_deref())?;
    }
    Ok(text)
}

/// The provenance recorded in `text`'s frontmatter, if any.
pub fn read(text: &str) -> Option<Provenance> {
    let doc = SkillDocument::parse(text.to_owned());
    let FrontmatterBlock::Closed { yaml, .. } = &doc.frontmatter else {
        return None;
    };
    let root = yaml::parse(&text[yaml.clone()], yaml.start).ok()?;
    let metadata = root.get("metadata")?;
    let get = |key: &str| metadata.get(key).and_then(scalar_text);
    if let Some(path) = get("local-path") {
        return Some(Provenance::Local { path: path.into() });
    }
    Some(Provenance::Git {
        repo: get("github-repo")?,
        git_ref: get("github-ref"),
        tree_sha: get("github-tree-sha")?,
        path: get("github-path")?,
        pinned: get("github-pinned"),
    })
}

/// A scalar as written (`github-pinned: true` is read as `true`).
fn scalar_text(node: &Node) -> Option<String> {
    match &node.value {
        Value::String(s) => Some(s.clone()),
        Value::Seq(_) | Value::Map(_) | Value::Null => None,
        _ => node.raw.clone(),
    }
}

/// The `SKILL.md` an install of the skill at `source` writes: its bytes, or
/// with `provenance`, those bytes stamped.
pub fn expected_skill_file(
    source: &Path,
    provenance: Option<&Provenance>,
) -> Result<Vec<u8>, PackError> {
    let bytes = std::fs::read(source).map_err(PackError::io(source))?;
    let Some(provenance) = provenance else {
        return Ok(bytes);
    };
    let text = String::from_utf8(bytes).map_err(|_| PackError::Provenance {
        path: source.to_path_buf(),
        reason: "the file is not UTF-8".into(),
    })?;
    stamp(&text, provenance)
        .map(String::into_bytes)
        .map_err(|e| PackError::Provenance {
            path: source.to_path_buf(),
            reason: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL: &str = "---\nname: pdf\ndescription: Fills PDF forms. # why\nmetadata:\n    author: ada\n    version: \"1.0\"\nlicense: MIT\n---\n\nBody.\n";

    fn git_provenance_fixture() -> Provenance {
        Provenance::Git {
            repo: "https://github.com/example/skills".into(),
            git_ref: Some("refs/heads/main".into()),
            tree_sha: "0123456789abcdef0123456789abcdef01234567".into(),
            path: "skills/pdf".into(),
            pinned: None,
        }
    }

    #[test]
    fn stamping_adds_the_keys_under_metadata_and_touches_nothing_else() {
        let stamped = stamp(SKILL, &git_provenance_fixture()).unwrap();
        assert_eq!(
            stamped,
            "---\nname: pdf\ndescription: Fills PDF forms. # why\nmetadata:\n    author: ada\n    version: \"1.0\"\n    github-path: skills/pdf\n    github-ref: refs/heads/main\n    github-repo: https://github.com/example/skills\n    github-tree-sha: 0123456789abcdef0123456789abcdef01234567\nlicense: MIT\n---\n\nBody.\n"
        );
        assert_eq!(read(&stamped), Some(git_provenance_fixture()));
        // Stamping again changes nothing; another provenance replaces the keys.
        assert_eq!(stamp(&stamped, &git_provenance_fixture()).unwrap(), stamped);
        let local = Provenance::Local {
            path: "/home/ada/skills/pdf".into(),
        };
        let restamped = stamp(&stamped, &local).unwrap();
        assert_eq!(restamped, stamp(SKILL, &local).unwrap());
        assert_eq!(read(&restamped), Some(local));
        assert_eq!(read(SKILL), None);
    }

    #[test]
    fn a_missing_or_empty_metadata_becomes_a_block_and_crlf_is_kept() {
        let local = Provenance::Local {
            path: "/a path/with: colon".into(),
        };
        assert_eq!(
            stamp("---\nname: a\n---\nx\n", &local).unwrap(),
            "---\nname: a\nmetadata:\n  local-path: \"/a path/with: colon\"\n---\nx\n"
        );
        assert_eq!(
            stamp("---\r\nname: a\r\nmetadata: {}\r\n---\r\n", &local).unwrap(),
            "---\r\nname: a\r\nmetadata:\r\n  local-path: \"/a path/with: colon\"\r\n---\r\n"
        );
        assert_eq!(
            stamp("---\nmetadata:\nname: a\n---\n", &local).unwrap(),
            "---\nmetadata:\n  local-path: \"/a path/with: colon\"\nname: a\n---\n"
        );
        assert_eq!(
            read(&stamp("---\nname: a\n---\n", &local).unwrap()),
            Some(local.clone())
        );
        // A flow mapping or a value of another kind is not rewritten.
        for text in [
            "---\nmetadata: {a: b}\n---\n",
            "---\nmetadata: [a]\n---\n",
            "no frontmatter\n",
        ] {
            assert!(stamp(text, &local).is_err(), "{text}");
        }
    }

    #[test]
    fn a_tree_sha_is_quoted_only_where_yaml_would_read_a_number() {
        let sha = |tree: &str| {
            let mut provenance = git_provenance_fixture();
            if let Provenance::Git { tree_sha, .. } = &mut provenance {
                *tree_sha = tree.into();
            }
            provenance
        };
        let number = "1234567890123456789012345678901234567e12";
        let stamped = stamp(SKILL, &sha(number)).unwrap();
        assert!(stamped.contains(&format!("github-tree-sha: \"{number}\"\n")));
        assert_eq!(read(&stamped), Some(sha(number)));
        let digits_first = "5c0d0e53e4662d7285161d504ab122abf0948559";
        let stamped = stamp(SKILL, &sha(digits_first)).unwrap();
        assert!(stamped.contains(&format!("github-tree-sha: {digits_first}\n")));
    }

    #[test]
    fn gh_skill_frontmatter_is_read_whatever_the_pin_looks_like() {
        let text = "---\nmetadata:\n  github-repo: https://github.com/dotnet/skills\n  github-ref: refs/tags/v1.0.0\n  github-tree-sha: 852508c90bde5e11124f12fd97ec579a1bd5a65d\n  github-path: plugins/dotnet-test/skills/filter-syntax\n  github-pinned: true\nname: filter-syntax\n---\n";
        let Some(Provenance::Git { pinned, path, .. }) = read(text) else {
            panic!("not read: {text}");
        };
        assert_eq!(pinned.as_deref(), Some("true"));
        assert_eq!(path, "plugins/dotnet-test/skills/filter-syntax");
    }

    #[test]
    fn remote_urls_lose_their_credentials_and_git_suffix() {
        for (remote, public) in [
            (
                "git@github.com:example/skills.git",
                "https://github.com/example/skills",
            ),
            (
                "https://user:token@github.com/example/skills.git",
                "https://github.com/example/skills",
            ),
            ("ssh://git@host:22/a/b", "ssh://host:22/a/b"),
            ("/srv/git/skills.git", "/srv/git/skills.git"),
            ("C:\\repos\\skills", "C:\\repos\\skills"),
        ] {
            assert_eq!(public_url(remote), public, "{remote}");
        }
    }

    /// Runs git in `dir` with a fixed identity; the test fails if it fails.
    fn run_git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    #[test]
    fn a_clean_checkout_is_recorded_by_origin_ref_tree_and_path() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        let skill = repo.join("skills/pdf");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), SKILL).unwrap();
        run_git(&repo, &["init", "-q"]);
        run_git(&repo, &["add", "."]);
        run_git(&repo, &["commit", "-q", "-m", "pdf"]);
        // No origin: a checkout nobody can fetch from is recorded by path.
        assert!(matches!(of_source(&skill), Provenance::Local { .. }));
        run_git(
            &repo,
            &[
                "remote",
                "add",
                "origin",
                "git@github.com:example/skills.git",
            ],
        );
        let tree = run_git(&repo, &["rev-parse", "HEAD:skills/pdf"]);
        let expected = Provenance::Git {
            repo: "https://github.com/example/skills".into(),
            git_ref: Some("refs/heads/main".into()),
            tree_sha: tree.clone(),
            path: "skills/pdf".into(),
            pinned: None,
        };
        assert_eq!(of_source(&skill), expected);
        // Detached at a tag: the tag is the ref.
        run_git(&repo, &["tag", "v1.0.0"]);
        run_git(&repo, &["checkout", "-q", "--detach", "v1.0.0"]);
        let Provenance::Git { git_ref, .. } = of_source(&skill) else {
            panic!("a git provenance");
        };
        assert_eq!(git_ref.as_deref(), Some("refs/tags/v1.0.0"));
        // A change not committed: no tree holds the copy, so the path is recorded.
        std::fs::write(skill.join("notes.md"), "new").unwrap();
        assert!(matches!(of_source(&skill), Provenance::Local { .. }));
        assert_eq!(current_tree(&skill), Some(tree));
        assert_eq!(current_tree(dir.path()), None);
    }
}
