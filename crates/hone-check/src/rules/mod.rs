//! Validation rules, in the style of ruff: every rule has a stable code, a
//! kebab-case name, one severity, a summary, a markdown doc (`hone rule CODE`),
//! the targets it belongs to and, where a mechanical fix is safe, a [`Fix`].
//!
//! # Where a rule lives
//!
//! The way ruff keeps its rules: [`Rule`] (in `registry.rs`) is the registry,
//! one entry per rule with its code, name, severity, targets, fix
//! availability and summary. Each rule has its own module,
//! `rules/<area>/<rule_name>.rs` (`rules/name/name_format.rs` for HS103;
//! `rules/pack/` for the pack's `HP…`, whose checks are the pack's), whose
//! `rule_doc!` doc comment is the rule's documentation: the text `hone rule
//! CODE` prints, written once.
//! A rule's module also holds its check, its fix and its tests where the
//! check stands on its own: `HS001`–`HS013` (HS014 is reported by
//! `invalid_yaml`), `name`'s `HS101`–`HS108`, `description`'s
//! `HS201`–`HS207`, the other fields' `HS301`–`HS311`, the body's `HS401`,
//! `HS402` and `HS407`, the links' `HS405` and `HS406`, and `HS501`; the
//! area's `mod.rs` reads the input once (`fields` walks the frontmatter's
//! keys once), keeps what its rules share and calls them in order. Two
//! checks stay whole in their area's `mod.rs`, because their rules come out
//! of one pass: `collision` (HS502) analyses the library once, and
//! `links::check` walks the links once for HS403 and HS404.
//!
//! To add a rule: add its variant to `rules!` in `registry.rs` (in code
//! order), write its module under its area with the doc and declare it in
//! the area's `mod.rs`, report it with [`Checker::report`], and test it with
//! the helpers of `testing`, which take a [`Rule`]. The tests over all rules
//! (unique codes, docs present, code order, every declared fix emitted) and
//! the debug-build check that no finding carries a fix its rule does not
//! declare then hold it to its declaration.
//!
//! # What the rules import
//!
//! The rules judge a skill against what each client does, so they import
//! the tokenizer ([`crate::tokens`]), the client profiles
//! ([`crate::clients`]: listing settings, built-in skills) and, for HS502,
//! the ranker's collision analysis ([`crate::rank::collision`]). The
//! security engine ([`crate::security`]) and the packs (`hone_pack::pack`)
//! name the rules and run the checks of theirs, so the rules import
//! neither: `rules/security/` and `rules/pack/` hold those rules' docs only.
//!
//! # Targets
//!
//! A skill is read by more than one consumer and they disagree. A [`Target`]
//! selects the rules of one of them: `agentskills` (the open specification and
//! its reference validator), `claude-code` (what Claude Code reads),
//! `claude-api` (what Anthropic's upload and Skills API accept) and `copilot`
//! (GitHub Copilot: its docs and the CLI's loader). `all` runs every rule;
//! rules whose verdict depends on the target (which keys are known) then
//! judge against what *some* consumer understands. [`compat`] turns the
//! findings into a per-target verdict: loads, loads with changes, refused.
//!
//! # Codes
//!
//! Codes never change meaning once published; they are grouped by area:
//! `HS0xx` the file and its frontmatter as YAML, `HS1xx` `name`, `HS2xx`
//! `description` and routing, `HS3xx` the other fields, `HS4xx` the body and
//! the files beside it, `HS5xx` the library as a whole, `HS9xx` security
//! (run by `hone scan` and `hone check --security`, see [`crate::security`]).
//!
//! # Where the YAML comes from
//!
//! Hone parses frontmatter as YAML 1.2 (see [`crate::yaml`]). Agents do not
//! all agree: Python loaders use PyYAML (YAML 1.1, `yes` is a boolean), the
//! reference validator uses strictyaml (no flow collections), JavaScript
//! agents use the `yaml` or `js-yaml` packages (duplicate keys are errors).
//! Frontmatter one consumer loads and another drops is reported as a
//! portability finding naming the construct, not as broken YAML.
//!
//! # JSON shape
//!
//! `hone check --format json` prints one object, version 1:
//!
//! ```json
//! {
//!   "version": 1,
//!   "target": "all",
//!   "summary": {"skills": 17, "files_with_findings": 1, "error": 1, "warning": 0, "info": 0, "fixable": 1},
//!   "diagnostics": [{
//!     "code": "HS003", "rule": "invalid-yaml", "severity": "error",
//!     "message": "...", "path": "skills/x/SKILL.md",
//!     "span": {"start": {"line": 3, "column": 14, "offset": 30},
//!              "end": {"line": 3, "column": 20, "offset": 36}},
//!     "help": "..." ,
//!     "fix": {"title": "...", "edits": [{"start": 30, "end": 60, "replacement": "..."}]}
//!   }],
//!   "problems": [{"path": "...", "message": "..."}],
//!   "compatibility": [{"id": "x", "path": "skills/x/SKILL.md", "targets": {
//!     "claude-code": {"verdict": "loads-with-changes",
//!                     "findings": [{"code": "HS003", "message": "...", "line": 3}]}, "...": {}}}],
//!   "error": null
//! }
//! ```
//!
//! `error` (`{"message", "hint"}`) is set, with exit code 2, when the run
//! could not check what it was asked to: a missing path, a file that is not
//! a `SKILL.md`, no skill at all. `compatibility` comes from [`compat`].
//!
//! Lines and columns are 1-based (columns in Unicode scalar values), offsets
//! are bytes into the file; `help` and `fix` may be `null`. Diagnostics are
//! sorted by path, then offset, then code. New fields may be added; existing
//! ones keep their names and meaning.

use std::ops::Range;
use std::path::PathBuf;
use std::str::FromStr;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::clients::claude_code;
use crate::diagnostic::{Diagnostic, Edit, Fix};
use crate::folder::ResourceDetail;
use crate::library::{Filters, Library, LibraryError};
use crate::rules::cache::CheckCache;
use crate::skill::Skill;
use crate::tokens::memo::LimitMemo;
use crate::yaml::Node;

/// Declares a rule's documentation in the rule's module: the doc comment
/// written inside becomes that of a `DOC` constant holding its lines, which
/// `Rule::doc` joins (what `hone rule CODE` prints).
macro_rules! rule_doc {
    ($(#[doc = $line:literal])*) => {
        $(#[doc = $line])*
        #[allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items)]
        pub(crate) const DOC: &[&str] = &[$($line),*];
    };
}
pub(crate) use rule_doc;

mod body;
pub mod cache;
pub mod collision;
pub mod compat;
mod description;
mod fields;
mod frontmatter;
mod library;
mod links;
mod name;
mod pack;
mod portability;
mod registry;
pub(crate) mod security;
mod yaml_text;

pub use registry::{FixAvailability, FixSafety, Origin, Rule};

#[cfg(test)]
pub(crate) mod testing;

/// Which consumer's rules to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// The open specification at agentskills.io and its reference validator.
    Agentskills,
    /// Claude Code, which reads more keys than the specification.
    ClaudeCode,
    /// Anthropic's skill upload and Skills API.
    ClaudeApi,
    /// GitHub Copilot (cloud agent, CLI, VS Code agent mode).
    Copilot,
    /// Every rule.
    #[default]
    All,
}

impl Target {
    pub const ALL: [Target; 5] = [
        Target::Agentskills,
        Target::ClaudeCode,
        Target::ClaudeApi,
        Target::Copilot,
        Target::All,
    ];
    /// The consumers themselves, without `all`: the compatibility matrix's columns.
    pub const CLIENTS: [Target; 4] = [
        Target::Agentskills,
        Target::ClaudeCode,
        Target::ClaudeApi,
        Target::Copilot,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Target::Agentskills => "agentskills",
            Target::ClaudeCode => "claude-code",
            Target::ClaudeApi => "claude-api",
            Target::Copilot => "copilot",
            Target::All => "all",
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "unknown target `{s}` (expected agentskills, claude-code, claude-api, copilot or all)"
                )
            })
    }
}

/// The targets a rule belongs to (besides `all`, which has every rule).
pub type Targets = &'static [Target];

pub(crate) const EVERY: Targets = &[
    Target::Agentskills,
    Target::ClaudeCode,
    Target::ClaudeApi,
    Target::Copilot,
];
pub(crate) const SPEC_AND_API: Targets = &[Target::Agentskills, Target::ClaudeApi];
/// The consumers that require `name` and `description` (Claude Code fills both in).
pub(crate) const REQUIRING: Targets = &[Target::Agentskills, Target::ClaudeApi, Target::Copilot];

/// The findings of the rules about the frontmatter (`HS0xx`–`HS3xx`) for one
/// skill: those whose verdict differs between clients. The body and file
/// rules (`HS4xx`) are advice to every client (see [`compat::effect`]), so
/// the compatibility matrix skips them, and their token counts.
pub(crate) fn check_frontmatter(
    skill: &Skill,
    target: Target,
    listing_cap: usize,
) -> Vec<Diagnostic> {
    run_rules(skill, target, None, listing_cap, false)
}

/// The findings of every per-skill rule of `target` for one skill, sorted by
/// offset then code.
pub fn check_skill(skill: &Skill, target: Target) -> Vec<Diagnostic> {
    check_skill_with(skill, target, None, claude_code::CLAUDE_CODE_ENTRY_LIMIT)
}

fn check_skill_with(
    skill: &Skill,
    target: Target,
    memo: Option<&LimitMemo>,
    listing_cap: usize,
) -> Vec<Diagnostic> {
    run_rules(skill, target, memo, listing_cap, true)
}

/// The frontmatter rules, then (with `body_and_files`) the body and link
/// rules, sorted by offset then code.
fn run_rules(
    skill: &Skill,
    target: Target,
    memo: Option<&LimitMemo>,
    listing_cap: usize,
    body_and_files: bool,
) -> Vec<Diagnostic> {
    let mut checker = Checker {
        skill,
        target,
        memo,
        listing_cap,
        out: Vec::new(),
    };
    frontmatter::check(&mut checker);
    portability::check(&mut checker);
    if checker.root_map().is_some() {
        name::check(&mut checker);
        description::check(&mut checker);
        fields::check(&mut checker);
    }
    if body_and_files {
        body::check(&mut checker);
        links::check(&mut checker);
    }
    let mut out = checker.out;
    debug_assert_fixes_declared(&out);
    sort(&mut out);
    out
}

/// The findings for every skill of a library (in parallel) and of the
/// library-wide rules, sorted by path, offset, then code.
pub fn check_library(library: &Library, target: Target) -> Vec<Diagnostic> {
    check_library_with(library, target, None)
}

/// [`check_library`], answering what it can from `cache` when given (see
/// [`crate::rules::cache`]).
pub fn check_library_with(
    library: &Library,
    target: Target,
    cache: Option<&CheckCache>,
) -> Vec<Diagnostic> {
    let listing_cap = claude_code::project_listing_cap(&library.roots);
    let memo = cache.map(|c| &c.limits);
    // The library-wide rules run beside the per-skill ones: analysing the
    // collisions has sequential steps, which the other core fills.
    let (mut out, library_wide) = rayon::join(
        || {
            library
                .skills
                .par_iter()
                .flat_map_iter(|skill| check_skill_with(skill, target, memo, listing_cap))
                .collect::<Vec<Diagnostic>>()
        },
        || {
            let mut found = Vec::new();
            library::check(library, target, cache.map(|c| &c.collisions), &mut found);
            found
        },
    );
    out.extend(library_wide);
    sort(&mut out);
    out
}

/// Opens the skills under `roots` and checks them with the library-wide
/// rules: what `hone check` does. Resource files are listed, never read.
pub fn open_and_check(
    roots: &[PathBuf],
    target: Target,
    cache: Option<&CheckCache>,
) -> Result<(Library, Vec<Diagnostic>), LibraryError> {
    let library = Library::open_with(roots, &Filters::default(), ResourceDetail::Paths)?;
    let diagnostics = check_library_with(&library, target, cache);
    Ok((library, diagnostics))
}

/// The findings of one skill as edited, within `library`: its own rules and
/// the library-wide ones that concern it (what an editor shows as you type).
pub fn check_skill_in(skill: &Skill, library: &Library, target: Target) -> Vec<Diagnostic> {
    let listing_cap = claude_code::project_listing_cap(&library.roots);
    let mut out = check_skill_with(skill, target, None, listing_cap);
    library::check_one(skill, library, target, &mut out);
    sort(&mut out);
    out
}

/// Checks, in the engine's own tests (and wherever debug assertions are on;
/// the dev profile builds the engine without them, see the workspace's
/// `Cargo.toml`), that each finding's fix agrees with its rule's declared
/// [`FixAvailability`].
fn debug_assert_fixes_declared(diagnostics: &[Diagnostic]) {
    if !cfg!(any(test, debug_assertions)) {
        return;
    }
    for d in diagnostics {
        let rule = Rule::from_code(&d.code);
        let declared = rule.map(Rule::fix);
        match (declared, &d.fix) {
            (Some(FixAvailability::None), Some(_)) => {
                panic!("{} emitted a fix but declares none: {d:?}", d.code)
            }
            (Some(FixAvailability::Always(_)), None) => {
                panic!("{} declares a fix always but emitted none: {d:?}", d.code)
            }
            (None, _) => panic!("{} is not in the registry: {d:?}", d.code),
            _ => {}
        }
    }
}

fn sort(diagnostics: &mut [Diagnostic]) {
    // Most findings compared share a file: equal bytes settle that without
    // walking the paths' components, which `Path`'s order does.
    diagnostics.par_sort_by(|a, b| {
        let by_path = if a.path.as_os_str() == b.path.as_os_str() {
            std::cmp::Ordering::Equal
        } else {
            a.path.cmp(&b.path)
        };
        by_path.then_with(|| (a.span.start.offset, &a.code).cmp(&(b.span.start.offset, &b.code)))
    });
}

/// The state of checking one skill: its rules report through [`Checker::report`].
pub(crate) struct Checker<'a> {
    pub skill: &'a Skill,
    pub target: Target,
    pub memo: Option<&'a LimitMemo>,
    /// Claude Code's cap on one listing entry (`skillListingMaxDescChars` of
    /// the library's project settings, else 1,536): HS204's limit.
    pub listing_cap: usize,
    out: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    pub fn enabled(&self, rule: Rule) -> bool {
        rule.applies_to(self.target)
    }

    pub fn text(&self) -> &'a str {
        self.skill.text()
    }

    /// The frontmatter's entries when it parsed as a mapping.
    pub fn root_map(&self) -> Option<&'a [(Node, Node)]> {
        self.skill.yaml_root()?.as_map()
    }

    /// The first entry with the string key `key`.
    pub fn entry(&self, key: &str) -> Option<(&'a Node, &'a Node)> {
        self.root_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (k, v))
    }

    /// Records a finding of `rule` at `range` (byte offsets of the file) when the
    /// rule is enabled; the returned handle adds help and a fix.
    pub fn report(
        &mut self,
        rule: Rule,
        range: Range<usize>,
        message: impl Into<String>,
    ) -> Report<'_> {
        if !self.enabled(rule) {
            return Report(None);
        }
        let diagnostic = diagnostic(self.skill, rule, range, message.into());
        self.out.push(diagnostic);
        Report(self.out.last_mut())
    }
}

/// Builds a diagnostic of `rule` about `skill`'s `SKILL.md`.
pub(crate) fn diagnostic(
    skill: &Skill,
    rule: Rule,
    range: Range<usize>,
    message: String,
) -> Diagnostic {
    Diagnostic {
        code: rule.code().to_owned(),
        rule: rule.name().to_owned(),
        severity: rule.severity(),
        message,
        path: skill.path.clone(),
        span: skill.lines.span(skill.text(), range),
        help: None,
        fix: None,
    }
}

/// A just-recorded finding, or nothing when its rule is disabled.
pub(crate) struct Report<'c>(Option<&'c mut Diagnostic>);

impl Report<'_> {
    pub fn help(self, help: impl Into<String>) -> Self {
        let Report(mut inner) = self;
        if let Some(d) = inner.as_deref_mut() {
            d.help = Some(help.into());
        }
        Report(inner)
    }

    /// Attaches a one-edit fix.
    pub fn fix(self, title: impl Into<String>, range: Range<usize>, replacement: String) -> Self {
        let edits = vec![Edit {
            start: range.start,
            end: range.end,
            replacement,
        }];
        self.fix_edits(title, edits)
    }

    pub fn fix_edits(self, title: impl Into<String>, edits: Vec<Edit>) -> Self {
        let Report(mut inner) = self;
        if let Some(d) = inner.as_deref_mut() {
            d.fix = Some(Fix {
                title: title.into(),
                edits,
            });
        }
        Report(inner)
    }
}

/// Length in Unicode scalar values, how the spec's limits are counted.
pub(crate) fn char_count(s: &str) -> usize {
    s.chars().count()
}
