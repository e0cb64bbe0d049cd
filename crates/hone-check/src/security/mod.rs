//! Is this skill safe to install? Static security analysis of a skill's
//! `SKILL.md`, the files beside it and its scripts, with a verdict per skill.
//!
//! A skill is instructions an agent follows and scripts it runs with the
//! user's rights, so a skill from elsewhere is code from elsewhere. The
//! analysis never runs anything: it reads the markdown with a markdown
//! parser (prose, code blocks, HTML comments and link titles apart), parses
//! each script and code block with its language's grammar, so comments are
//! not mistaken for code, a statement split over lines is read as one, and
//! values are followed through assignments and function calls (see
//! [`syntax`]; [`lex`] where no grammar applies), decodes encoded blobs and analyses what they decode to, and
//! follows values from where secrets are read to where data leaves the
//! machine within a script.
//!
//! Each finding is one of the `HS9xx` rules (documented in
//! `rules/security/`, detected by [`detect`]), with a threat level, a confidence and its evidence:
//! the line, the decoded payload, the source→sink flow. The findings make a
//! [`Verdict`]: `dangerous` when one is critical, or high with at least
//! medium confidence; `review` when one is high with low confidence or
//! medium; `safe` otherwise (low findings are reported for information).
//!
//! A reviewed finding can be acknowledged in the library's settings (see
//! [`Acknowledgement`]): it names the rule, the skill, the file's content
//! hash and a reason, and lapses as soon as the file changes.
//!
//! The engine sits beside the rules, above them: it names their registry
//! ([`crate::rules::Rule`]) and runs their detectors ([`detect`]). It does
//! not import the packs; scanning a pack before it is installed is
//! `pack::scan_pack`.

pub(crate) mod detect;
pub(crate) mod hosts;
pub(crate) mod lex;
pub(crate) mod markdown;
pub mod memo;
pub(crate) mod syntax;

use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::diagnostic::{Diagnostic, Severity, Span};
use crate::folder::SKILL_FILE;
use crate::library::Library;
use crate::rules::Rule;
use crate::skill::Skill;
use crate::text::LineIndex;
use detect::name_impersonation::LibraryNames;
pub use detect::release_patterns;
use lex::Lang;
pub use memo::VerdictMemo;

/// How much harm a finding means if it is what it looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Threat {
    /// Worth knowing; no effect on the verdict.
    Low,
    Medium,
    High,
    Critical,
}

impl Threat {
    /// SARIF's `security-severity` (GitHub code scanning reads it: 9.0 and
    /// up is critical, 7.0 high, 4.0 medium, below low).
    pub fn security_severity(self) -> &'static str {
        match self {
            Threat::Low => "2.0",
            Threat::Medium => "5.5",
            Threat::High => "8.0",
            Threat::Critical => "9.5",
        }
    }

    /// The diagnostic severity a finding of this threat is reported at.
    pub fn severity(self) -> Severity {
        match self {
            Threat::Low => Severity::Info,
            Threat::Medium => Severity::Warning,
            Threat::High | Threat::Critical => Severity::Error,
        }
    }
}

/// The SARIF `security-severity` of a security rule's typical finding (the
/// rules' entries carry it; each result carries its own finding's).
pub fn rule_security_severity(rule: Rule) -> Option<&'static str> {
    match rule {
        Rule::HiddenText
        | Rule::SecretExfiltration
        | Rule::DownloadAndExecute
        | Rule::ObfuscatedCode
        | Rule::DestructiveCommand => Some("9.0"),
        Rule::AgentInstruction | Rule::Persistence => Some("8.0"),
        Rule::LoadTimeCommand | Rule::BroadToolApproval | Rule::NameImpersonation => Some("5.5"),
        _ => None,
    }
}

/// How sure the analysis is that the finding is what it looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

/// What to do with a skill before installing or serving it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Safe,
    Review,
    Dangerous,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Review => "review",
            Verdict::Dangerous => "dangerous",
        }
    }

    fn of(threat: Threat, confidence: Confidence) -> Verdict {
        match (threat, confidence) {
            (Threat::Critical, _) | (Threat::High, Confidence::Medium | Confidence::High) => {
                Verdict::Dangerous
            }
            (Threat::High, Confidence::Low) | (Threat::Medium, _) => Verdict::Review,
            (Threat::Low, _) => Verdict::Safe,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so `{:<9}` lines the verdicts up in `hone scan`'s text.
        f.pad(self.as_str())
    }
}

/// One security finding, with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub code: String,
    pub rule: String,
    pub threat: Threat,
    pub confidence: Confidence,
    pub message: String,
    /// The file the finding is in.
    pub path: PathBuf,
    pub span: Span,
    /// The line it is on, trimmed (at most 200 characters).
    pub evidence: String,
    /// What an encoded blob decodes to, when the finding is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decoded: Option<String>,
    /// Where the data comes from and where it goes (`source -> sink`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<String>,
    /// `sha256:` of the file's content: what an acknowledgement names.
    pub content_hash: String,
    /// The reason it was acknowledged, when a library setting does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acknowledged: Option<String>,
}

impl Finding {
    /// Whether the finding still counts towards the verdict.
    pub fn counts(&self) -> bool {
        self.acknowledged.is_none()
    }

    /// The finding as a diagnostic of `hone check`, its evidence in the help.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut help = vec![format!(
            "threat {}, confidence {}",
            serde_plain(&self.threat),
            serde_plain(&self.confidence)
        )];
        if let Some(flow) = &self.flow {
            help.push(format!("flow: {flow}"));
        }
        if let Some(decoded) = &self.decoded {
            help.push(format!("decodes to: {}", clip(decoded, 160)));
        }
        Diagnostic {
            code: self.code.clone(),
            rule: self.rule.clone(),
            severity: self.threat.severity(),
            message: self.message.clone(),
            path: self.path.clone(),
            span: self.span,
            help: Some(help.join("; ")),
            fix: None,
        }
    }
}

fn serde_plain<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A skill's verdict, why, and every finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillSecurity {
    pub id: String,
    /// The skill's `SKILL.md`.
    pub path: PathBuf,
    pub verdict: Verdict,
    /// One line per finding that decided the verdict.
    pub reasons: Vec<String>,
    pub findings: Vec<Finding>,
}

/// A reviewed finding, accepted: the rule, the skill and the content hash
/// of the file it was about. It lapses when the file changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Acknowledgement {
    /// The rule's code, e.g. `HS906`.
    pub code: String,
    /// The skill's id (its `name`, else its folder's name).
    pub skill: String,
    /// The file's `content_hash` when it was reviewed.
    pub hash: String,
    /// Why it is accepted.
    pub reason: String,
}

/// A finding a detector reports: positions are byte offsets into the file.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub rule: Rule,
    pub threat: Threat,
    pub confidence: Confidence,
    pub range: Range<usize>,
    pub message: String,
    pub decoded: Option<String>,
    pub flow: Option<String>,
}

impl Hit {
    pub(crate) fn new(
        rule: Rule,
        threat: Threat,
        confidence: Confidence,
        range: Range<usize>,
        message: impl Into<String>,
    ) -> Hit {
        Hit {
            rule,
            threat,
            confidence,
            range,
            message: message.into(),
            decoded: None,
            flow: None,
        }
    }

    pub(crate) fn flow(mut self, flow: impl Into<String>) -> Hit {
        self.flow = Some(flow.into());
        self
    }

    pub(crate) fn decoded(mut self, decoded: impl Into<String>) -> Hit {
        self.decoded = Some(decoded.into());
        self
    }
}

/// Code to analyse: comment-free text of one language at `base` in its file.
#[derive(Clone, Copy)]
pub(crate) struct Code<'a> {
    pub text: &'a str,
    pub base: usize,
    pub lang: Lang,
    /// How many encodings deep this code was found (decoded payloads are
    /// analysed again, up to [`MAX_DEPTH`]).
    pub depth: u8,
    /// What its syntax tree says (nothing for text that was not parsed).
    pub facts: &'a syntax::Facts,
}

static NO_FACTS: syntax::Facts = syntax::Facts {
    bindings: Vec::new(),
    functions: Vec::new(),
};

impl<'a> Code<'a> {
    /// Text analysed as it is, with no syntax tree.
    pub(crate) fn plain(text: &'a str, base: usize, lang: Lang, depth: u8) -> Code<'a> {
        Code {
            text,
            base,
            lang,
            depth,
            facts: &NO_FACTS,
        }
    }

    /// Code prepared by [`syntax::prepare`].
    pub(crate) fn parsed(
        prepared: &'a syntax::Prepared,
        base: usize,
        lang: Lang,
        depth: u8,
    ) -> Code<'a> {
        Code {
            text: &prepared.text,
            base,
            lang,
            depth,
            facts: &prepared.facts,
        }
    }
}

pub(crate) const MAX_DEPTH: u8 = 2;

/// Runs every code detector over `code`.
pub(crate) fn analyse_code(code: Code, hits: &mut Vec<Hit>) {
    detect::download_and_execute::check(code, hits);
    detect::secret_exfiltration::check(code, hits);
    detect::obfuscated_code::check(code, hits);
    detect::persistence::check(code, hits);
    detect::destructive_command::check(code, hits);
}

/// Files larger than this are read only up to it.
const MAX_FILE_BYTES: usize = 1 << 20;
/// A skill's files are read up to this many bytes in all.
const MAX_SKILL_BYTES: usize = 16 << 20;

/// Extensions of files read as markdown: prose the agent may be told to read.
fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".mdx", ".markdown", ".txt", ".rst"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// Files that cannot hold instructions or code worth reading.
fn is_skipped(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".pdf", ".woff", ".woff2", ".ttf",
        ".otf", ".mp3", ".mp4", ".wav", ".lock", ".svg", ".csv", ".tsv", ".xlsx", ".docx", ".pptx",
        ".zip", ".gz", ".map", ".min.js",
    ]
    .iter()
    .any(|ext| lower.ends_with(ext))
        || lower.contains("node_modules/")
}

/// One file of a skill, read.
struct File {
    /// Path relative to the skill folder (`SKILL.md` for the skill file).
    relative: String,
    path: PathBuf,
    text: String,
}

fn read_text(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_FILE_BYTES as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return None;
    }
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        // A file cut at the limit may end inside a character.
        Err(err) if err.utf8_error().error_len().is_none() => {
            let valid = err.utf8_error().valid_up_to();
            let mut bytes = err.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).ok()
        }
        Err(_) => None,
    }
}

fn content_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The findings of one file, whatever its kind.
fn analyse_file(file: &File, is_skill_file: bool, hits: &mut Vec<Hit>) {
    detect::hidden_text::check(&file.text, hits);
    if is_skill_file || is_markdown(&file.relative) {
        let doc = markdown::Markdown::parse(&file.text);
        detect::hidden_text::check_markdown(&doc, hits);
        detect::agent_instruction::check(&doc, hits);
        detect::secret_exfiltration::check_prose(&doc, hits);
        detect::download_and_execute::check_prose(&doc, hits);
        detect::obfuscated_code::check_prose(&file.text, hits);
        for block in &doc.code {
            let Some(lang) = block.lang else { continue };
            let text = &file.text[block.range.clone()];
            let prepared = syntax::prepare(text, lang);
            let mut found = Vec::new();
            analyse_code(
                Code::parsed(&prepared, block.range.start, lang, 0),
                &mut found,
            );
            // A block shown as what not to do ("Never run:", "An attack
            // looks like:") is an example, not an instruction.
            if !found.is_empty() && detect::introduces_example(&file.text, block.range.start) {
                for hit in &mut found {
                    hit.threat = Threat::Low;
                    hit.confidence = Confidence::Low;
                    hit.message = format!("shown as an example: {}", hit.message);
                }
            }
            hits.extend(found);
        }
    } else if let Some(lang) = Lang::of(&file.relative, &file.text) {
        let prepared = syntax::prepare(&file.text, lang);
        analyse_code(Code::parsed(&prepared, 0, lang, 0), hits);
    } else {
        // Data and configuration (package.json scripts, settings with
        // hooks): commands in them run too.
        analyse_code(Code::plain(&file.text, 0, Lang::Shell, 0), hits);
    }
}

/// Analyses one skill: its `SKILL.md`, then every text file of its folder.
/// `library_names` are the names of the other skills around it (for
/// look-alike names); [`scan_library`] analyses a whole library.
pub fn scan_skill(
    skill: &Skill,
    library_names: &[&str],
    acks: &[Acknowledgement],
) -> SkillSecurity {
    analyse_skill(
        skill,
        &read_files(skill),
        &LibraryNames::new(library_names.iter().copied()),
        acks,
    )
}

/// The skill's `SKILL.md` and its text files as the analysis reads them: at
/// most [`MAX_SKILL_BYTES`] in all, media and dependencies left out.
fn read_files(skill: &Skill) -> Vec<File> {
    let mut files = vec![File {
        relative: SKILL_FILE.to_owned(),
        path: skill.path.clone(),
        text: skill.text().to_owned(),
    }];
    let mut budget = MAX_SKILL_BYTES.saturating_sub(skill.text().len());
    for resource in &skill.resources {
        if budget == 0 || is_skipped(&resource.path) {
            continue;
        }
        let path = skill.dir.join(&resource.path);
        if let Some(text) = read_text(&path) {
            budget = budget.saturating_sub(text.len());
            files.push(File {
                relative: resource.path.clone(),
                path,
                text,
            });
        }
    }
    files
}

fn analyse_skill(
    skill: &Skill,
    files: &[File],
    library_names: &LibraryNames<'_>,
    acks: &[Acknowledgement],
) -> SkillSecurity {
    let per_file: Vec<Vec<Hit>> = files
        .par_iter()
        .enumerate()
        .map(|(index, file)| {
            let mut hits = Vec::new();
            analyse_file(file, index == 0, &mut hits);
            if index == 0 {
                detect::load_time_command::check(skill, &mut hits);
                detect::name_impersonation::check(skill, library_names, &mut hits);
            }
            hits
        })
        .collect();
    let mut per_file = per_file;
    // Broad pre-approved tools matter with what the rest of the skill does.
    // A finding a reviewer would refuse, or one that needs review and is
    // meant (medium confidence or more), makes the approval high; a doubtful
    // one makes it medium, so it never turns a doubt into a refusal.
    let escalation = per_file
        .iter()
        .flatten()
        .filter_map(|h| match Verdict::of(h.threat, h.confidence) {
            Verdict::Dangerous => Some(Threat::High),
            Verdict::Review if h.confidence >= Confidence::Medium => Some(Threat::High),
            Verdict::Review => Some(Threat::Medium),
            Verdict::Safe => None,
        })
        .max();
    if let Some(first) = per_file.first_mut() {
        detect::broad_tool_approval::check(skill, escalation, first);
    }
    let mut findings = Vec::new();
    for (file, hits) in files.iter().zip(per_file) {
        let lines = LineIndex::new(&file.text);
        let hash = content_hash(&file.text);
        let mut hits = hits;
        hits.sort_by_key(|a| (a.range.start, a.rule));
        // One finding per rule and line: the strongest.
        hits.dedup_by(|later, kept| {
            let same = kept.rule == later.rule
                && lines.position(&file.text, kept.range.start).line
                    == lines.position(&file.text, later.range.start).line;
            if same && (later.threat, later.confidence) > (kept.threat, kept.confidence) {
                std::mem::swap(later, kept);
            }
            same
        });
        for hit in hits {
            let range = clamp(&file.text, hit.range.clone());
            let span = lines.span(&file.text, range.clone());
            let acknowledged = acks
                .iter()
                .find(|a| a.code == hit.rule.code() && a.skill == skill.id && a.hash == hash)
                .map(|a| a.reason.clone());
            findings.push(Finding {
                code: hit.rule.code().to_owned(),
                rule: hit.rule.name().to_owned(),
                threat: hit.threat,
                confidence: hit.confidence,
                message: hit.message.clone(),
                path: file.path.clone(),
                span,
                evidence: evidence(&file.text, range),
                decoded: hit.decoded.map(|d| clip(&d, 400)),
                flow: hit.flow,
                content_hash: hash.clone(),
                acknowledged,
            });
        }
    }
    let verdict = findings
        .iter()
        .filter(|f| f.counts())
        .map(|f| Verdict::of(f.threat, f.confidence))
        .max()
        .unwrap_or(Verdict::Safe);
    let reasons = findings
        .iter()
        .filter(|f| {
            f.counts() && verdict != Verdict::Safe && Verdict::of(f.threat, f.confidence) == verdict
        })
        .map(|f| {
            let relative = f.path.strip_prefix(&skill.dir).unwrap_or(&f.path);
            format!(
                "{} {}: {} ({}:{})",
                f.code,
                f.rule,
                f.message,
                relative.display(),
                f.span.start.line
            )
        })
        .collect();
    SkillSecurity {
        id: skill.id.clone(),
        path: skill.path.clone(),
        verdict,
        reasons,
        findings,
    }
}

/// Analyses every skill of `library` (in parallel), in the library's order.
pub fn scan_library(library: &Library, acks: &[Acknowledgement]) -> Vec<SkillSecurity> {
    scan_library_with(library, acks, None)
}

/// [`scan_library`], answering from `memo` what an earlier scan of the same
/// files found and adding to it what this one finds. The detectors' compiled
/// patterns are handed back when it ends ([`release_patterns`]).
pub fn scan_library_with(
    library: &Library,
    acks: &[Acknowledgement],
    memo: Option<&VerdictMemo>,
) -> Vec<SkillSecurity> {
    let names = LibraryNames::of(library);
    let reports = library
        .skills
        .par_iter()
        .map(|skill| scan_among(skill, &names, acks, memo))
        .collect();
    // An app or server scans again only what an edit changes.
    release_patterns();
    reports
}

/// `known` (a verdict or `None` per skill of `library`, in its order) with
/// each `None` worked out as [`scan_library_with`] would: only those skills'
/// files are read again.
pub fn complete_verdicts(
    library: &Library,
    acks: &[Acknowledgement],
    memo: &VerdictMemo,
    known: Vec<Option<SkillSecurity>>,
) -> Vec<SkillSecurity> {
    let names = LibraryNames::of(library);
    let reports = library
        .skills
        .par_iter()
        .zip(known)
        .map(|(skill, known)| known.unwrap_or_else(|| scan_among(skill, &names, acks, Some(memo))))
        .collect();
    release_patterns();
    reports
}

/// What `memo` already knows of each skill of `library`, in the library's
/// order: `None` for a skill no earlier scan saw as it is now. Reads the
/// files (to know them) but analyses nothing.
pub fn remembered_verdicts(
    library: &Library,
    acks: &[Acknowledgement],
    memo: &VerdictMemo,
) -> Vec<Option<SkillSecurity>> {
    let names = LibraryNames::of(library);
    library
        .skills
        .par_iter()
        .map(|skill| memo.get(memo::fingerprint(skill, &read_files(skill), &names, acks)))
        .collect()
}

/// One skill of a library (`names`), from `memo` when it remembers it.
fn scan_among(
    skill: &Skill,
    names: &LibraryNames<'_>,
    acks: &[Acknowledgement],
    memo: Option<&VerdictMemo>,
) -> SkillSecurity {
    let files = read_files(skill);
    match memo {
        Some(memo) => {
            let key = memo::fingerprint(skill, &files, names, acks);
            memo.get_or_scan(key, || analyse_skill(skill, &files, names, acks))
        }
        None => analyse_skill(skill, &files, names, acks),
    }
}

/// Whether `path` names a pack (`.zip` or `.skill`) rather than folders.
pub fn is_pack(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("zip") || ext.eq_ignore_ascii_case("skill"))
}

/// Scans the skills under `roots` (skill folders, libraries, cloned
/// repositories), with the acknowledgements of the library's settings,
/// answering from `memo` what it remembers.
pub fn scan_paths(
    roots: &[PathBuf],
    acks: &[Acknowledgement],
    memo: Option<&VerdictMemo>,
) -> Result<(Library, Vec<SkillSecurity>), crate::library::LibraryError> {
    let library = Library::open_with(
        roots,
        &crate::library::Filters::default(),
        crate::folder::ResourceDetail::Paths,
    )?;
    let reports = scan_library_with(&library, acks, memo);
    Ok((library, reports))
}

/// The findings of `reports` that count, as diagnostics of `hone check`.
pub fn diagnostics(reports: &[SkillSecurity]) -> Vec<Diagnostic> {
    reports
        .iter()
        .flat_map(|r| r.findings.iter())
        .filter(|f| f.counts())
        .map(Finding::to_diagnostic)
        .collect()
}

/// `range` moved to character boundaries within `text`.
fn clamp(text: &str, range: Range<usize>) -> Range<usize> {
    let mut start = range.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = range.end.clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// The line holding `range.start`, trimmed and cut to 200 characters.
fn evidence(text: &str, range: Range<usize>) -> String {
    let start = crate::text::line_start_at(text, range.start);
    let end = memchr::memchr(b'\n', &text.as_bytes()[range.start..])
        .map_or(text.len(), |n| range.start + n);
    clip(text[start..end].trim(), 200)
}

/// `text` cut to `max` characters, with `…` when cut; control characters
/// (the hidden ones included) shown escaped.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        if c.is_control() && c != '\t' || detect::hidden_text::is_invisible(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
