//! The registry: every rule Hone reports, as one [`Rule`] enum.
//!
//! Each variant's doc comment is the rule's documentation (what `hone rule
//! CODE` prints and SARIF carries), and its declaration holds the rest of
//! what describes a rule: code, name, severity, targets and whether (and how
//! safely) it can be fixed. A rule is referred to by its variant everywhere,
//! in the checks and in the tests, so a misspelled code does not compile.
//! The checks themselves live in the modules of their area (`name`,
//! `description`, …), because the rules of one field share one reading of it.
//!
//! The pack's findings (`HP…`) are rules too: the export reports them about a
//! skill's files, and `hone rule`, SARIF and the CLI treat them as any other.

use std::sync::LazyLock;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::{EVERY, REQUIRING, SPEC_AND_API, Target, Targets};
use crate::diagnostic::Severity;

/// Whether a rule's findings carry a [`crate::diagnostic::Fix`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FixAvailability {
    /// Never.
    None,
    /// When the finding allows one mechanically (e.g. the folder's name is a
    /// valid `name`); otherwise the help says what to do.
    Sometimes(FixSafety),
    /// Every finding.
    Always(FixSafety),
}

/// Whether applying a fix keeps what the skill means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FixSafety {
    /// The fix changes how the text is written, not what a reader takes from
    /// it (or takes what the author evidently meant): `hone check --fix`
    /// applies it.
    Safe,
    /// The fix may change meaning; it is offered, never applied unasked.
    Unsafe,
}

impl FixAvailability {
    /// Whether any finding can carry a fix.
    pub fn is_fixable(self) -> bool {
        self != FixAvailability::None
    }
}

/// Where a rule's findings come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// `hone check`: the skill's text, its folder and the library.
    Check,
    /// A pack's export: files that change what is packed.
    Pack,
}

macro_rules! rules {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $code:literal, $name:literal, $severity:ident, $targets:expr, $fix:expr,
            $summary:literal;
    )*) => {
        /// A rule: its variant is its identity; the methods give its code,
        /// name, severity, targets, fix and documentation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items)]
        pub enum Rule {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Rule {
            /// Every rule, in code order (the pack's rules last).
            pub const ALL: &[Rule] = &[$(Rule::$variant),*];

            /// Stable code, e.g. `HS101`.
            pub const fn code(self) -> &'static str {
                match self { $(Rule::$variant => $code,)* }
            }

            /// Stable kebab-case name, e.g. `name-format`.
            pub const fn name(self) -> &'static str {
                match self { $(Rule::$variant => $name,)* }
            }

            pub const fn severity(self) -> Severity {
                match self { $(Rule::$variant => Severity::$severity,)* }
            }

            /// One line: what the rule finds.
            pub const fn summary(self) -> &'static str {
                match self { $(Rule::$variant => $summary,)* }
            }

            /// The consumers whose rules it is (besides `all`, which has every rule).
            pub const fn targets(self) -> Targets {
                match self { $(Rule::$variant => $targets,)* }
            }

            pub const fn fix(self) -> FixAvailability {
                match self { $(Rule::$variant => $fix,)* }
            }

            /// The doc comment's lines, as the compiler keeps them.
            const fn doc_lines(self) -> &'static [&'static str] {
                match self { $(Rule::$variant => &[$($doc),*],)* }
            }
        }
    };
}

impl Rule {
    /// Markdown: why it matters, examples, and where peers disagree.
    pub fn doc(self) -> &'static str {
        static DOCS: LazyLock<Vec<String>> = LazyLock::new(|| {
            Rule::ALL
                .iter()
                .map(|rule| {
                    // `/// text` reaches the compiler as ` text`.
                    let lines: Vec<&str> = rule
                        .doc_lines()
                        .iter()
                        .map(|line| line.strip_prefix(' ').unwrap_or(line))
                        .collect();
                    lines.join("\n")
                })
                .collect()
        });
        &DOCS[self as usize]
    }

    /// Whether findings can carry a [`crate::diagnostic::Fix`].
    pub fn fixable(self) -> bool {
        self.fix().is_fixable()
    }

    /// Whether the rule runs for `target`.
    pub fn applies_to(self, target: Target) -> bool {
        target == Target::All || self.targets().contains(&target)
    }

    pub fn origin(self) -> Origin {
        match self {
            Rule::PackSymlinkOutside
            | Rule::PackUnreadable
            | Rule::PackUnsafeName
            | Rule::PackCaseCollision
            | Rule::PackSpecialFile
            | Rule::PackBadIgnoreFile => Origin::Pack,
            _ => Origin::Check,
        }
    }

    /// The rule with this code (case-insensitive) or name.
    pub fn find(code_or_name: &str) -> Option<Rule> {
        Rule::ALL
            .iter()
            .copied()
            .find(|r| r.code().eq_ignore_ascii_case(code_or_name) || r.name() == code_or_name)
    }

    /// The rule of a diagnostic's code.
    pub fn from_code(code: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.code() == code)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// The shape `hone rule --json` has always printed.
impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Rule", 7)?;
        s.serialize_field("code", self.code())?;
        s.serialize_field("name", self.name())?;
        s.serialize_field("severity", &self.severity())?;
        s.serialize_field("summary", self.summary())?;
        s.serialize_field("doc", self.doc())?;
        s.serialize_field("targets", self.targets())?;
        s.serialize_field("fixable", &self.fixable())?;
        s.end()
    }
}

rules! {
    /// Agents find a skill through its frontmatter: the YAML between a first line
    /// `---` and the next line `---`, holding at least `name` and `description`.
    /// Without it the file is not a skill for any agent.
    ///
    /// ```markdown
    /// # PDF tools            <- HS001: the first line must be `---`
    /// ```
    ///
    /// ```markdown
    /// ---
    /// name: pdf-tools
    /// description: Reads and fills PDF forms. Use when the user sends a PDF.
    /// ---
    /// # PDF tools
    /// ```
    ///
    /// A UTF-8 byte-order mark before `---` is accepted here (see HS006).
    FrontmatterMissing = "HS001", "frontmatter-missing", Error, EVERY, FixAvailability::None,
        "SKILL.md does not start with a `---` frontmatter block";
    /// The frontmatter ends at the first line that is exactly `---`. Without one,
    /// agents either drop the skill or read the whole file as YAML and fail.
    ///
    /// ```markdown
    /// ---
    /// name: pdf-tools
    /// description: Reads PDFs.
    /// # PDF tools            <- HS002: add a `---` line before the body
    /// ```
    ///
    /// A `---` inside a value (`description: a---b`) does not close the block, and
    /// neither does a `---` inside a fenced code block of the body: Hone stops
    /// looking at the first fence, which cannot be YAML. skills-ref splits the file
    /// on the first `---` anywhere instead; see HS009.
    FrontmatterUnclosed = "HS002", "frontmatter-unclosed", Error, EVERY, FixAvailability::None,
        "the frontmatter's opening `---` has no closing `---` line";
    /// Agents parse the frontmatter as YAML and skip the skill, mostly silently, when
    /// it fails. The commonest real failure is an unquoted `: ` inside a value:
    ///
    /// ```yaml
    /// description: Reads PDFs. Use when: the user sends a PDF     # HS003
    /// description: "Reads PDFs. Use when: the user sends a PDF"   # fixed
    /// ```
    ///
    /// YAML reads `key: value` pairs, so a second `: ` on the same line looks like a
    /// nested key, which a plain (unquoted) value cannot hold. The fix wraps the
    /// whole value in double quotes, escaping any `"` and `\` inside it.
    ///
    /// The finding points at the position the parser reports and, where it
    /// recognises the cause, says it in plain words: `: ` in a plain value, a tab
    /// used for indentation, a value starting with a reserved character (`@`,
    /// `` ` ``, `%`), an unclosed quote.
    ///
    /// Hone parses YAML 1.2 (saphyr). On the corpus every file Hone rejects is also
    /// rejected by PyYAML; constructs only *some* parsers reject are HS007–HS010.
    InvalidYaml = "HS003", "invalid-yaml", Error, EVERY, FixAvailability::Sometimes(FixSafety::Safe),
        "the frontmatter is not valid YAML";
    /// The frontmatter must be a YAML mapping (`key: value` lines). An empty block,
    /// a list or a lone string parses as YAML but gives an agent no `name` or
    /// `description`.
    ///
    /// ```yaml
    /// ---
    /// - name: pdf-tools       # HS004: a list, not a mapping
    /// ---
    /// ```
    FrontmatterNotMapping = "HS004", "frontmatter-not-mapping", Error, EVERY, FixAvailability::None,
        "the frontmatter is empty or not a mapping of keys to values";
    /// Skills are UTF-8 text. A file saved in another encoding (Windows-1252,
    /// Latin-1, UTF-16) fails to load in Python agents (`UnicodeDecodeError`) and
    /// shows replacement characters in others. Hone reads on with U+FFFD in place
    /// of the bad bytes, so the other rules still run; the finding points at the
    /// first bad byte. Re-save the file as UTF-8.
    InvalidUtf8 = "HS005", "invalid-utf8", Error, EVERY, FixAvailability::None,
        "SKILL.md is not valid UTF-8";
    /// A byte-order mark (U+FEFF, bytes `EF BB BF`) is invisible in most editors but
    /// is the file's first character. Loaders that test "does the file start with
    /// `---`?" then find no frontmatter: skills-ref 0.1.1 reports "must start with
    /// YAML frontmatter", and Claude Code before 2.1.239 silently ignored the skill
    /// (CHANGELOG 2.1.239: "Fixed agents, skills, and commands whose `.md` file
    /// starts with a UTF-8 BOM being silently ignored"). Hone accepts the mark; the
    /// fix removes it.
    ///
    /// **The issue asked for `info`; Hone keeps `warning`:** the reference
    /// validator still rejects such a file, and Claude Code versions before
    /// 2.1.239 (August 2026) drop it without a word.
    ByteOrderMark = "HS006", "byte-order-mark", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "SKILL.md starts with a UTF-8 byte-order mark";
    /// YAML requires keys to be unique, but parsers differ on what to do when they
    /// are not: PyYAML silently keeps the *last* value, while the `yaml` and
    /// `js-yaml` npm packages and strictyaml (skills-ref) reject the whole file. So
    /// one agent loads the skill with the second value and another drops it.
    ///
    /// ```yaml
    /// description: Reads PDFs.
    /// description: Reads and fills PDFs.   # HS007: remove one
    /// ```
    ///
    /// No fix is offered: only the author knows which value is meant.
    DuplicateKey = "HS007", "duplicate-key", Warning, EVERY, FixAvailability::None,
        "a key appears twice in the same mapping";
    /// The spec's reference validator, skills-ref, parses frontmatter with
    /// strictyaml, which refuses flow style ("Found ugly disallowed JSONesque flow
    /// mapping"). Every other parser accepts it, so agents load the skill, but
    /// `skills-ref validate` fails it. This is the whole of the disagreement between
    /// Hone and skills-ref on the corpus: skills-ref rejects 146 skills as invalid
    /// YAML, all for flow collections, mostly `tags: [a, b]` and
    /// `allowed-tools: [Read, Write]`; Hone reports them here, as warnings.
    ///
    /// ```yaml
    /// allowed-tools: [Read, Grep]   # HS008
    /// allowed-tools:                # fixed
    ///   - Read
    ///   - Grep
    /// ```
    ///
    /// The fix rewrites a one-line flow list or mapping of plain values as a block;
    /// nested or empty ones are left to the author. Only for `agentskills`.
    FlowCollection = "HS008", "flow-collection", Warning, &[Target::Agentskills], FixAvailability::Sometimes(FixSafety::Safe),
        "a flow collection (`[a, b]` or `{k: v}`) that the reference validator rejects";
    /// The frontmatter ends at a *line* `---`. skills-ref 0.1.1 instead splits the
    /// file at the first `---` anywhere, so a value such as
    /// `description: Pre---and post-processing` ends its frontmatter mid-value and
    /// the rest is lost or invalid. Quoting does not help; write an en or em dash
    /// (`–`, `—`) or a single hyphen. Only for `agentskills`.
    DashesInFrontmatter = "HS009", "dashes-in-frontmatter", Warning, &[Target::Agentskills], FixAvailability::None,
        "`---` inside the frontmatter, where skills-ref cuts it short";
    /// Hone, PyYAML and js-yaml read CRLF files fine. But a loader that cuts the
    /// frontmatter with a pattern such as `\n---` leaves a `\r` at the end of the
    /// YAML text, and the `yaml` npm package then rejects a quoted last value
    /// ("Unexpected scalar at node end") and keeps the `\r` in a plain one
    /// (`name: pdf\r`). Two corpus skills (`ui-ux-pro-max`) fail that way. The fix
    /// converts the file to LF line endings.
    CrlfLineEndings = "HS010", "crlf-line-endings", Info, EVERY, FixAvailability::Always(FixSafety::Safe),
        "the frontmatter has Windows (CRLF) line endings";
    /// In a plain (unquoted) YAML value, a `#` after a space starts a comment: every
    /// parser silently drops the rest of the line.
    ///
    /// ```yaml
    /// description: Formats C# and F# code #csharp #fsharp   # HS011: value is "Formats C# and F# code"
    /// description: "Formats C# and F# code #csharp #fsharp" # fixed
    /// ```
    ///
    /// `C#` alone is fine (no space before `#`). Checked for `description` and
    /// `when_to_use`, where a comment is almost never meant. The fix quotes the
    /// value including the cut text.
    CommentTruncatesValue = "HS011", "comment-truncates-value", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "` #` in an unquoted description starts a comment and cuts the value";
    /// A folded (`>`) or literal (`|`) block scalar is valid YAML, and Claude Code,
    /// skills-ref and every YAML parser read it as the text below it. Clients that
    /// read the frontmatter line by line instead take the rest of the
    /// `description:` line, so the description becomes `>-` or `|`: reported for
    /// context-labs/whip (PR #107), oguzbilgic/kern-ai (#318) and QwenLM/qwen-code
    /// (#4869). Such a skill is listed with a two-character description and never
    /// chosen.
    ///
    /// ```yaml
    /// description: >-                     # HS012
    ///   Reads PDFs. Use when the user sends a PDF.
    /// description: "Reads PDFs. Use when the user sends a PDF."   # fixed
    /// ```
    ///
    /// Checked for `description` and `when_to_use`. The fix writes the value as
    /// one double-quoted line (line breaks of a literal block kept as `\n`).
    BlockScalar = "HS012", "block-scalar-description", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "`description` is a block scalar (`>-`, `|`), which some clients read as the indicator";
    /// YAML lets a value carry a tag naming its type. Loaders meant for untrusted
    /// files refuse the language-specific ones: PyYAML's `safe_load` (used by
    /// skill-creator's scripts and most Python agents) raises "could not determine a
    /// constructor" for `!!python/object`, `!!python/name:…` and local tags such as
    /// `!secret`, strictyaml (skills-ref) rejects tags altogether, and `js-yaml`'s
    /// default schema has no Python types. `!!binary` loads, but as bytes, not the
    /// text an agent expects. Hone reads the value as its untagged text.
    ///
    /// ```yaml
    /// description: !!python/str Reads PDFs.   # HS013
    /// description: Reads PDFs.                # fixed
    /// ```
    ///
    /// The core schema's own tags (`!!str`, `!!int`, `!!bool`, `!!float`, `!!null`,
    /// `!!map`, `!!seq`) are safe and not reported. No fix is offered: what the tag
    /// was meant to do is the author's call.
    YamlTag = "HS013", "yaml-tag", Warning, EVERY, FixAvailability::None,
        "an explicit YAML tag (`!!python/…`, `!!binary`, `!local`) that safe loaders refuse or read as non-text";
    /// A plain (unquoted) value may not contain `: `: every YAML parser (Hone's,
    /// PyYAML, js-yaml, strictyaml) stops with "mapping values are not allowed
    /// here", and for the spec, the upload and Copilot that is HS003, an error.
    /// Claude Code instead retries with such values quoted and loads the skill
    /// (CHANGELOG: "Fixed skill descriptions with colons (e.g., "Triggers include:
    /// X, Y, Z") failing to load"), as the agentskills.io client guide recommends
    /// (`docs/client-implementation/adding-skills-support.mdx`, "Handling malformed
    /// YAML": "Consider a fallback that wraps such values in quotes"). So for
    /// `claude-code` the finding is this warning: the skill works there and fails
    /// in any client without the fallback (neo4j-contrib/neo4j-skills #44).
    ///
    /// ```yaml
    /// description: Reads PDFs. Use when: the user sends one       # HS014 (claude-code), HS003 (others)
    /// description: "Reads PDFs. Use when: the user sends one"     # fixed
    /// ```
    ///
    /// The fix quotes the whole value, folding a multi-line value into one line.
    /// Only for `claude-code`.
    UnquotedColon = "HS014", "unquoted-colon", Warning, &[Target::ClaudeCode], FixAvailability::Always(FixSafety::Safe),
        "`: ` inside an unquoted value: Claude Code re-quotes and loads it, strict parsers reject the file";
    /// The spec requires `name`, Anthropic's upload rejects a skill without it, and
    /// GitHub Copilot's docs list it as required ("Creating agent skills": **name**
    /// (required)). Claude Code falls back to the directory name (skills docs,
    /// "Frontmatter reference"), so the rule is not part of the `claude-code`
    /// target.
    ///
    /// ```yaml
    /// ---
    /// description: Reads PDFs. Use when the user sends a PDF.   # HS101
    /// ---
    /// ```
    ///
    /// The fix adds `name:` set to the directory name, when that name is valid.
    NameMissing = "HS101", "name-missing", Error, REQUIRING, FixAvailability::Sometimes(FixSafety::Safe),
        "the frontmatter has no `name`";
    /// The spec, Claude Code and Anthropic's API all cap `name` at 64 characters.
    /// Shorten it (and rename the directory to match).
    NameTooLong = "HS102", "name-too-long", Error, EVERY, FixAvailability::None,
        "`name` is longer than 64 characters";
    /// A name is 1–64 characters of lowercase ASCII letters, digits and hyphens, with
    /// no hyphen at the start or end and no two in a row: `pdf-tools`, not
    /// `PDF Tools`, `pdf_tools`, `-pdf` or `pdf--tools`.
    ///
    /// ```yaml
    /// name: PDF_Tools   # HS103
    /// name: pdf-tools   # fixed
    /// ```
    ///
    /// The fix lowercases the name and turns runs of other characters into one
    /// hyphen.
    ///
    /// **skills-ref differs:** it accepts any Unicode letter or digit (`café`,
    /// `数据`), after NFKC normalisation, because Python's `str.isalnum()` does
    /// (skills-ref `validator.py`; tests `test_i18n_chinese_name`,
    /// `test_nfkc_normalization`). The spec's text says "unicode lowercase
    /// alphanumeric characters (`a-z`, `0-9`)", which its examples and Anthropic's
    /// upload read as ASCII. Hone follows the ASCII reading and, for a name with
    /// other letters, says which client accepts it. A character that does not show
    /// on its own (a combining accent, an invisible format character) is named by
    /// its code point, `U+0301`, not quoted. GitHub Copilot's docs ask for the same
    /// form ("lowercase, using hyphens for spaces"); what its CLI actually refuses
    /// is HS108.
    NameFormat = "HS103", "name-format", Error, EVERY, FixAvailability::Sometimes(FixSafety::Safe),
        "`name` is not lowercase `a-z`, `0-9` and single inner hyphens";
    /// The spec requires `name` to equal the name of the folder holding
    /// `SKILL.md`; tools that install skills by folder and agents that look them up
    /// by name then agree. Claude Code uses the name without this check, so the rule
    /// is not part of the `claude-code` target, and GitHub Copilot's docs only say
    /// the name "typically" matches the folder.
    ///
    /// Two spellings of one text (`café` as `e` + U+0301 or as `é`, U+00E9) look
    /// alike: macOS stores folder names decomposed, editors write names composed.
    /// skills-ref compares both after NFKC normalisation (`test_nfkc_normalization`),
    /// so for `agentskills` (and `all`) such a pair matches; Anthropic's upload
    /// compares them as written, so for `claude-api` it is reported, with the code
    /// points of both, since on screen the message would read "`café` but the
    /// directory is `café`".
    ///
    /// ```text
    /// skills/pdf-tools/SKILL.md   with   name: pdf        # HS104
    /// ```
    ///
    /// The fix sets `name` to the directory name when that is a valid name;
    /// otherwise rename the directory.
    NameDirectoryMismatch = "HS104", "name-directory-mismatch", Error, SPEC_AND_API, FixAvailability::Sometimes(FixSafety::Safe),
        "`name` differs from the skill's directory name";
    /// Anthropic's upload and Skills API reject skill names containing `anthropic`
    /// or `claude`. Other agents accept them. Only for `claude-api`.
    ///
    /// ```yaml
    /// name: claude-pdf-helper   # HS105
    /// name: pdf-helper          # fine
    /// ```
    NameReservedWord = "HS105", "name-reserved-word", Error, &[Target::ClaudeApi], FixAvailability::None,
        "`name` contains the reserved word `anthropic` or `claude`";
    /// Anthropic's upload and Skills API reject XML tags in `name` and
    /// `description`; the metadata is placed inside a structured prompt, where a
    /// tag could break out of it. Any `<` or `>` is reported. Write "less than",
    /// "at least" or plain words instead. Only for `claude-api`.
    ///
    /// ```yaml
    /// description: Wraps output in <result> tags.      # HS106
    /// description: Wraps output in result tags.        # fine
    /// ```
    AngleBrackets = "HS106", "angle-brackets", Error, &[Target::ClaudeApi], FixAvailability::None,
        "`<` or `>` (XML tags) in `name` or `description`";
    /// Claude Code keeps the skills it syncs from claude.ai under a folder of its
    /// own and lists them as `anthropic-skills:<name>`; the folder names `synced` and
    /// `anthropic-skills` are reserved for that (CHANGELOG 2.1.211 "Hardened synced
    /// skill/plugin directory naming", 2.1.228 "Hardened skills synced from
    /// claude.ai"). A skill of your own in such a folder is taken for a synced one or
    /// hidden by it. Rename the folder (and `name`). Only for `claude-code`.
    ///
    /// Sources: the Claude Code skills docs and CHANGELOG as summarised in the
    /// team's notes; the docs page itself was not available to verify the exact
    /// wording of the reservation.
    ReservedFolder = "HS107", "reserved-folder-name", Warning, &[Target::ClaudeCode], FixAvailability::None,
        "the skill's folder is named `synced` or `anthropic-skills`, which Claude Code reserves";
    /// GitHub Copilot CLI refuses to load a skill whose name has any other character:
    /// "Skill name must contain only letters, numbers, hyphens, underscores, dots,
    /// and spaces" (github/copilot-cli #1766, kenn-io/roborev #493). So a
    /// plugin-style `tools:deploy` or a `/` fails there while Claude Code loads it.
    /// Copilot's docs ask for more ("lowercase, using hyphens for spaces", see
    /// HS103); this rule is what the CLI enforces. Letters are taken as ASCII
    /// letters, as the message reads. Only for `copilot`.
    ///
    /// **The issue said Copilot allows `:`; its CLI's own message and #1766 (a
    /// request to *add* `plugin:skill` namespacing) say it does not, so `:` is
    /// reported.**
    CopilotName = "HS108", "copilot-name-characters", Error, &[Target::Copilot], FixAvailability::None,
        "`name` has a character GitHub Copilot CLI refuses (only letters, digits, `-`, `_`, `.` and spaces)";
    /// The description is what an agent reads to decide whether to use the skill.
    /// The spec and Anthropic's API require it, GitHub Copilot's docs list it as
    /// required, and the agentskills.io client guide tells clients to *skip* a
    /// skill without one (`adding-skills-support.mdx`, "Lenient validation").
    /// Claude Code instead falls back to the body's first paragraph (skills docs,
    /// "Frontmatter reference"; CHANGELOG 2.1.69 "Fixed project skills without a
    /// `description:` … not appearing"), so for `claude-code` the finding is
    /// HS207, a warning that shows the text it will list.
    ///
    /// ```yaml
    /// ---
    /// name: pdf-tools          # HS201: add a description
    /// ---
    /// ```
    DescriptionMissing = "HS201", "description-missing", Error, REQUIRING, FixAvailability::None,
        "the frontmatter has no `description`";
    /// `description:` with nothing after it is null in YAML, and `""` or a blank
    /// string gives the agent nothing to route on. The spec requires 1–1024
    /// characters. A value on the *next* line without a block indicator is a
    /// common slip:
    ///
    /// ```yaml
    /// description:            # HS202: null
    /// Reads PDFs.             # not part of the description
    /// description: >-         # fine: a folded block
    ///   Reads PDFs.
    /// ```
    DescriptionEmpty = "HS202", "description-empty", Error, EVERY, FixAvailability::None,
        "`description` is empty";
    /// The spec and Anthropic's API cap `description` at 1,024 characters (Unicode
    /// scalar values, as skills-ref counts them). A longer one fails validation and
    /// upload; agents that accept it pay for it in every request's catalog. Move
    /// detail into the body, which loads only when the skill is used.
    DescriptionTooLong = "HS203", "description-too-long", Error, SPEC_AND_API, FixAvailability::None,
        "`description` is longer than 1,024 characters";
    /// Claude Code lists each skill to the model as its description followed by
    /// `when_to_use`, cut at 1,536 characters. Text past the cap is never seen, and
    /// the trigger phrases at the end of a long description are the first to go.
    /// Put the "Use when …" part first, or shorten. Only for `claude-code`.
    ///
    /// The cap is the setting `skillListingMaxDescChars` (default 1,536; Claude
    /// Code CHANGELOG 2.1.129). Where the library's project `.claude/settings.json`
    /// or `settings.local.json` sets it, HS204 checks against that value; the
    /// user's own `~/.claude/settings.json` is not read, so a check gives the same
    /// verdict on every machine.
    ListingTruncated = "HS204", "listing-truncated", Warning, &[Target::ClaudeCode], FixAvailability::None,
        "`description` + `when_to_use` exceed Claude Code's 1,536-character listing cap";
    /// Agents choose a skill by matching the request against its description. A
    /// description that only says what the skill *is* ("A PDF toolkit") loses to
    /// one that says when to use it ("Use when the user sends a PDF or asks to fill
    /// a form"). Anthropic's authoring guide asks for both what and when.
    ///
    /// The rule looks, in `description` and `when_to_use`, for phrases such as
    /// "use when", "use for", "use this", "when", "whenever", "if the user",
    /// "asks", "trigger" or "invoke". It is a heuristic: reword rather than
    /// silence it.
    ///
    /// ```yaml
    /// description: A toolkit for PDF files.                                # HS205
    /// description: Reads and fills PDFs. Use when the user sends a PDF.    # fine
    /// ```
    NoTrigger = "HS205", "no-trigger", Warning, EVERY, FixAvailability::None,
        "the description never says when to use the skill";
    /// Phrases such as "help me", "do this", "any task" or "general purpose" match
    /// nearly every request, so the skill fires when it should not and crowds out
    /// the skill that fits. Name the concrete situations instead.
    ///
    /// Checked in `description`, `when_to_use` and each `triggers` entry (which
    /// skill routers read); a `triggers` entry that is one common verb (`help`,
    /// `run`, `fix`) is generic too.
    ///
    /// ```yaml
    /// description: Use when the user says "help me" with anything.     # HS206
    /// description: Use when the user asks to fix a failing CI job.      # fine
    /// ```
    GenericTrigger = "HS206", "generic-trigger", Warning, EVERY, FixAvailability::None,
        "a trigger phrase that matches almost any request";
    /// Claude Code loads a skill without `description` and lists it with the first
    /// paragraph of its body (skills docs: "If omitted, uses the first paragraph of
    /// markdown content"). That paragraph was written for a reader who already
    /// chose the skill, and rarely says when to use it. The finding shows the text
    /// Claude Code will list; every other client refuses the skill (HS201). Only
    /// for `claude-code`.
    DescriptionFromBody = "HS207", "description-from-body", Warning, &[Target::ClaudeCode], FixAvailability::None,
        "no `description`: Claude Code lists the body's first paragraph instead";
    /// Each known key has a type: `name`, `description`, `license`,
    /// `compatibility`, `when_to_use`, `model` (a model name, or `inherit`),
    /// `effort`, `shell` and the other text fields are strings; `metadata` and
    /// `hooks` are mappings; `disable-model-invocation`, `user-invocable` and
    /// `background` are booleans; `paths` (comma-separated globs or a list),
    /// `disallowed-tools`, `triggers` and the tool lists are a string or a list of
    /// strings; `arguments` is a space-separated string or a list of names;
    /// `token_estimate` is an integer. Sources: the Claude Code skills docs
    /// ("Frontmatter reference") and CHANGELOG (`disallowed-tools` 2.1.152,
    /// `background` 2.1.218, `paths` lists 2.1.84). An agent that
    /// gets a number or a list where it expects text may crash or skip the skill.
    ///
    /// ```yaml
    /// license: 2.0       # HS301: a number; write "2.0"
    /// name: [pdf]        # HS301: a list
    /// ```
    ///
    /// The fix quotes a number or boolean given for a text field.
    ///
    /// **skills-ref differs:** strictyaml reads every scalar as a string, so
    /// `license: 2.0` passes there; PyYAML and the `yaml` npm package return a
    /// number.
    FieldType = "HS301", "field-type", Error, EVERY, FixAvailability::Sometimes(FixSafety::Safe),
        "a known field has a value of the wrong type";
    /// The spec's optional `compatibility` field (environment requirements: "Needs
    /// Python 3.10 and network access") holds 1–500 characters. Longer text belongs
    /// in the body.
    CompatibilityTooLong = "HS302", "compatibility-too-long", Error, SPEC_AND_API, FixAvailability::None,
        "`compatibility` is empty or longer than 500 characters";
    /// The spec defines `metadata` as a map from string keys to string values.
    /// `version: 1.0` is the number 1 to PyYAML and JavaScript (`1.10` even
    /// becomes `1.1`), and nested lists or maps are not allowed at all.
    ///
    /// ```yaml
    /// metadata:
    ///   version: 1.0       # HS303
    ///   version: "1.0"     # fixed
    /// ```
    ///
    /// The fix quotes a number or boolean. **skills-ref differs:** it converts every
    /// metadata value to a string with `str()`, so it never reports this, and a
    /// `1.10` it read through PyYAML would silently become `"1.1"`.
    MetadataNotStrings = "HS303", "metadata-not-strings", Warning, SPEC_AND_API, FixAvailability::Sometimes(FixSafety::Safe),
        "`metadata` holds a value that is not a string";
    /// `allowed-tools` lists the tools a skill may use without asking: a string
    /// (space-separated in the spec; Claude Code also accepts commas) or a YAML list
    /// of strings. Each entry is a tool name, optionally with a pattern in
    /// parentheses: `Bash(git add *)`. The rule reports other types, empty entries
    /// and unbalanced parentheses.
    ///
    /// ```yaml
    /// allowed-tools: {Read: true}            # HS304
    /// allowed-tools: Read, , Bash(git *      # HS304: empty entry, unclosed `(`
    /// allowed-tools: Read Grep Bash(git *)   # fine
    /// ```
    AllowedToolsForm = "HS304", "allowed-tools-form", Error, EVERY, FixAvailability::None,
        "`allowed-tools` is not a string or list of tool names";
    /// The spec defines `allowed-tools` as a *space*-separated string, so a reader
    /// following it turns `Read, Grep` into the tools `Read,` and `Grep`. Claude
    /// Code accepts commas; for portability use spaces or a YAML list.
    ///
    /// ```yaml
    /// allowed-tools: Read, Grep     # HS305
    /// allowed-tools: Read Grep      # fixed
    /// ```
    ///
    /// The fix rewrites the list with spaces when no entry contains a space. Only
    /// for `agentskills`.
    AllowedToolsCommas = "HS305", "allowed-tools-commas", Warning, &[Target::Agentskills], FixAvailability::Sometimes(FixSafety::Safe),
        "comma-separated `allowed-tools`, which the spec splits on spaces";
    /// Agents ignore keys they do not know, so a misspelt key (`Description`,
    /// `allowed_tools`) silently does nothing. Which keys are known depends on the
    /// target: `agentskills` knows the spec's six (`name`, `description`,
    /// `license`, `compatibility`, `metadata`, `allowed-tools`); `claude-code` adds
    /// Claude Code's (`when_to_use`, `argument-hint`, `disable-model-invocation`,
    /// `user-invocable`, `model`, `hooks`, …); `all` also accepts the router keys
    /// `triggers`, `tools` and `token_estimate`. A near miss of a known key gets a
    /// "did you mean" help. Keep custom data under `metadata`.
    ///
    /// **skills-ref differs:** it reports every non-spec key as an error ("Unexpected
    /// fields in frontmatter"), 330 corpus skills, mostly `source`, `risk`,
    /// `date_added` and `author`. Hone warns, because every agent loads such a
    /// skill; for Anthropic's API, where they are errors, see HS307.
    UnknownKey = "HS306", "unknown-key", Warning, &[Target::Agentskills, Target::ClaudeCode, Target::Copilot], FixAvailability::Sometimes(FixSafety::Safe),
        "a frontmatter key the target does not know";
    /// Anthropic's upload and Skills API accept only the spec's frontmatter keys:
    /// `name`, `description`, `license`, `compatibility`, `metadata` and
    /// `allowed-tools`. Anything else (including Claude Code's own keys) fails the
    /// upload. Move custom data under `metadata`. Only for `claude-api`.
    ApiUnsupportedKey = "HS307", "api-unsupported-key", Error, &[Target::ClaudeApi], FixAvailability::None,
        "a key outside the spec, which Anthropic's upload rejects";
    /// In YAML 1.2 `no` is the text "no"; in YAML 1.1, which PyYAML and most Python
    /// tools implement, it is the boolean `false`. A text field written as `yes`,
    /// `no`, `on`, `off`, `y` or `n` (any case) therefore changes type with the
    /// parser.
    ///
    /// ```yaml
    /// metadata:
    ///   experimental: no      # HS308: false to PyYAML, "no" to Hone
    ///   experimental: "no"    # fixed
    /// ```
    ///
    /// The fix quotes the value. For fields that *are* booleans, see HS309.
    Yaml11Boolean = "HS308", "yaml11-boolean", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "an unquoted `yes`/`no`/`on`/`off` where text is meant";
    /// `disable-model-invocation`, `user-invocable`, `background` and
    /// `default-enabled` are booleans. Claude Code reads `yes`/`no`/`on`/`off`/`1`/`0`
    /// in any case as booleans since 2.1.218 (CHANGELOG: "Added
    /// `yes`/`no`/`on`/`off`/`1`/`0` (case-insensitive) as accepted values for skill
    /// and plugin frontmatter booleans"). Other agents, older Claude Code and the
    /// spec's YAML (1.2) do not: `no` and `off` are strings there, `1` and `0`
    /// integers, and a JavaScript agent testing the value treats every non-empty
    /// string as true, so `disable-model-invocation: no` would *disable*
    /// invocation. A quoted `"false"` has the same problem.
    ///
    /// ```yaml
    /// disable-model-invocation: no      # HS309
    /// disable-model-invocation: false   # fixed
    /// ```
    ///
    /// The fix writes `true` or `false`, which every reader agrees on.
    BooleanAsString = "HS309", "boolean-as-string", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "a boolean field written as `yes`/`no`/`on`/`off`/`1`/`0` or a quoted `\"true\"`";
    /// Claude Code 2.1.186 reads `display-name`, `default-enabled` and `fallback`
    /// (and keys under `metadata`) whether written in kebab-case, snake_case or
    /// camelCase (CHANGELOG 2.1.186: "… now accept kebab-case, snake_case, and
    /// camelCase"). Other clients and earlier Claude Code see `displayName` as an
    /// unknown key and ignore it.
    ///
    /// ```yaml
    /// displayName: PDF tools     # HS310
    /// display-name: PDF tools    # fixed
    /// ```
    ///
    /// **The issue said "the key spellings Claude Code normalises (kebab, snake,
    /// camel)" in general; the CHANGELOG names only these keys.** Claude Code's
    /// other keys are read only as documented (`allowed-tools`,
    /// `disable-model-invocation`, `when_to_use`): `allowedTools` is an unknown key
    /// for Claude Code too, reported by HS306 with a fix. Only for `claude-code`.
    KeySpelling = "HS310", "key-spelling", Warning, &[Target::ClaudeCode], FixAvailability::Always(FixSafety::Safe),
        "a snake_case or camelCase key that only Claude Code reads as its kebab-case form";
    /// Some of Claude Code's fields take one of a few words (skills docs,
    /// "Frontmatter reference"):
    ///
    /// | field | values |
    /// |---|---|
    /// | `effort` | `low`, `medium`, `high`, `xhigh`, `max` |
    /// | `shell` | `bash`, `powershell` |
    /// | `context` | `fork` |
    ///
    /// Any other value does not do what it says (`effort: extreme` sets no effort
    /// level; `shell: zsh` runs `!` blocks in bash). `model` takes any model name
    /// or alias, or `inherit`, and is not checked. The fix lowercases a value whose
    /// lowercase form is valid (`High` → `high`). Only for `claude-code`.
    FieldValue = "HS311", "field-value", Warning, &[Target::ClaudeCode], FixAvailability::Sometimes(FixSafety::Safe),
        "`effort`, `shell` or `context` holds a value Claude Code does not define";
    /// The spec recommends a `SKILL.md` body under 500 lines. Everything in it loads
    /// whenever the skill is used; move reference material into `references/` files
    /// that the body links to, which load only when needed. The finding points at
    /// line 501 of the body.
    BodyTooLong = "HS401", "body-too-long", Warning, EVERY, FixAvailability::None,
        "the body is longer than 500 lines";
    /// The spec recommends keeping the instructions under 5,000 tokens. Hone counts
    /// exactly with OpenAI's `o200k_base` encoding (no exact offline tokenizer
    /// exists for current Claude models; `hone tokens` shows a Claude estimate). A
    /// token covers at least one byte, so bodies under 5,000 bytes are never
    /// counted, and counting stops at the limit (`hone tokens` gives the total).
    /// `hone check` remembers the answer per body text in the user's cache, so an
    /// unchanged body is never tokenized twice (`--no-cache` turns that off).
    /// Split detail into reference files.
    BodyTooManyTokens = "HS402", "body-too-many-tokens", Warning, EVERY, FixAvailability::None,
        "the body is longer than 5,000 tokens";
    /// A link or image in the body whose target is not in the skill folder. The
    /// agent that follows it gets an error instead of the reference it was sent
    /// to read. Links are resolved against the skill folder, `%20` and the like
    /// decoded, `#anchors` and `?queries` ignored; URLs, absolute paths and
    /// template placeholders (`${VAR}`) are not checked.
    ///
    /// ```markdown
    /// See [the form guide](references/forms.md).   <!-- HS403 when references/forms.md is missing -->
    /// ```
    BrokenLink = "HS403", "broken-link", Warning, EVERY, FixAvailability::None,
        "a relative link to a file that does not exist";
    /// A link such as `../shared/style.md` works in the author's checkout but
    /// breaks once the skill is installed, packed or uploaded on its own: only the
    /// skill's folder travels. Copy the file into the skill, or link to a URL.
    LinkOutsideSkill = "HS404", "link-outside-skill", Warning, EVERY, FixAvailability::None,
        "a relative link that climbs out of the skill folder";
    /// The spec and Anthropic's authoring guide ask to keep references one level
    /// deep: `SKILL.md` links to every file an agent may need. When
    /// `references/a.md` sends the agent on to `references/b.md`, agents often
    /// preview `a.md` partially and never reach `b.md`.
    ///
    /// ```text
    /// SKILL.md -> references/api.md -> references/errors.md   # HS405 at the link to api.md
    /// ```
    ///
    /// Link `references/errors.md` from `SKILL.md` too, or merge the files.
    NestedReference = "HS405", "nested-reference", Warning, EVERY, FixAvailability::None,
        "a referenced file links on to files `SKILL.md` does not link";
    /// A file that neither `SKILL.md` nor a file it links to mentions (by link, by
    /// path, or by file name) is never read by an agent, yet is packed and
    /// uploaded with the skill. Reference it where it is useful, or delete it.
    /// `LICENSE`, `README` and `CHANGELOG` files and hidden files are exempt; a
    /// folder whose path the body mentions (`scripts/`) counts for everything
    /// inside it. Reported once per top-level file or folder.
    UnreferencedResource = "HS406", "unreferenced-resource", Info, EVERY, FixAvailability::None,
        "a file in the skill folder that nothing references";
    /// Strings such as `<|endoftext|>` or `<|im_start|>` are control tokens of some
    /// models' tokenizers. In a skill they are plain text: Hone counts them as the
    /// ordinary characters they are, and agents send them as text. But tools that
    /// tokenize with special tokens enabled may refuse the file: tiktoken raises by
    /// default, and skillcheck 1.5.0 crashes on the corpus skills that contain one.
    /// Usually they appear in documentation about tokenizers, which is fine;
    /// reported once per file as information.
    SpecialToken = "HS407", "special-token", Info, EVERY, FixAvailability::None,
        "text that looks like a special token, such as `<|endoftext|>`";
    /// Agents know a skill by its name. With two skills named `pdf` in one library
    /// an agent sees one of them (which one depends on the agent and the scan
    /// order) or both with the same label, and the other never runs. Reported at
    /// every skill after the first, pointing at its `name`, with the first's path.
    ///
    /// Skills in a *lower-priority* root with the name of one in a higher-priority
    /// root (project skills over personal skills) are shadowed on purpose and are
    /// not reported.
    ///
    /// Claude Code keeps both when the second lives in a nested `.claude/skills`
    /// folder: it lists that one as `<dir>:<name>`, `<dir>` being the nested
    /// folder's path (CHANGELOG 2.1.178: "on a name clash, the nested skill appears
    /// as `<dir>:<name>` so both stay available"; skills docs:
    /// `apps/web/.claude/skills/deploy/SKILL.md` → `/apps/web:deploy`). For
    /// `claude-code` the message gives that name; other clients still see a clash.
    DuplicateName = "HS501", "duplicate-name", Warning, EVERY, FixAvailability::None,
        "two skills of the library have the same name";
    /// An agent picks a skill from its `name`, `description`, `when_to_use` and
    /// `triggers` only. When two skills of a library say nearly the same thing
    /// there, a request that fits one fits the other, and the agent picks either:
    /// which one wins is an accident of wording, and the author of the other sees
    /// it "never" run.
    ///
    /// ```yaml
    /// # pdf-tools/SKILL.md
    /// description: Extract text and tables from PDF files. Use when the user
    ///   asks to read or pull data out of a PDF.
    /// # pdf-extract/SKILL.md           HS502 with pdf-tools
    /// description: Extracts the text and tables of PDF files. Use when asked
    ///   to pull data out of a PDF.
    /// ```
    ///
    /// Reported at the `description` of *both* skills, each naming the other and
    /// the distinctive words they share. Two skills with the same name are HS501's
    /// to report, not this rule's. Closeness is the cosine of the two
    /// routing texts' term sets, each term weighted by how few skills of the
    /// library use it (so `pdf` counts in a library with one PDF skill and little
    /// in a library of PDF tools); a pair is reported from 0.5 with at least three
    /// shared distinctive terms. The rule reads the terms only, so that `hone
    /// check` gives the same verdict on every machine, model or not; the app's map
    /// of the library, which has the embeddings, also links pairs sharing a term
    /// whose routing texts' embeddings have a cosine of at least 0.9.
    ///
    /// Fix it by making each description say what only it does and when *not* to
    /// use it ("for filling forms use pdf-forms"), or by merging the two skills.
    /// `hone search LIB "request" --why SKILL` shows, for one request, which words
    /// each of the two matched.
    RoutingCollision = "HS502", "routing-collision", Warning, EVERY, FixAvailability::None,
        "two skills' routing texts describe the same requests";
    /// A symlink in the skill folder points outside the skill, or nowhere. A
    /// pack carries files, not links, and a link that leaves the skill could
    /// take a private file (`~/.ssh/id_rsa`) into a pack meant for upload, so
    /// the link is left out of the pack and reported.
    ///
    /// Copy the file into the skill, or remove the link.
    PackSymlinkOutside = "HP001", "pack-symlink-outside", Error, EVERY, FixAvailability::None,
        "a symlink leaves the skill or dangles; it is left out of the pack";
    /// A file of the skill could not be read while packing (permissions, a
    /// symlink loop, too many files), so the pack would miss it. Check the
    /// file's permissions, or list it in `.honeignore`.
    PackUnreadable = "HP002", "pack-unreadable", Error, EVERY, FixAvailability::None,
        "a file of the skill could not be read; it is left out of the pack";
    /// A pack is extracted on Linux, macOS and Windows, so every name in it
    /// must be safe on all three. A name harmless on Linux (`a\b`, `aux.md`,
    /// `notes.`, a name longer than 255 bytes) can escape the target folder,
    /// open a device or collide with another file on Windows; such a file is
    /// left out so that every pack Hone writes is one Hone can read back.
    ///
    /// Rename the file.
    PackUnsafeName = "HP003", "pack-unsafe-name", Error, EVERY, FixAvailability::None,
        "a file name cannot be extracted on every system; it is left out of the pack";
    /// Two files whose paths differ only in letter case (`Notes.md`,
    /// `notes.md`) would be merged by a case-insensitive file system (macOS,
    /// Windows) on extraction, so the second is left out.
    ///
    /// Rename one of the two files.
    PackCaseCollision = "HP004", "pack-case-collision", Error, EVERY, FixAvailability::None,
        "two files differ only in letter case; one is left out of the pack";
    /// The skill folder holds something that is neither a file nor a folder (a
    /// socket, a FIFO, a device). A pack holds files only, so it is left out.
    ///
    /// Remove it, or list it in `.honeignore`.
    PackSpecialFile = "HP005", "pack-special-file", Warning, EVERY, FixAvailability::None,
        "a special file (socket, FIFO, device) is left out of the pack";
    /// A pattern of a `.honeignore` (gitignore syntax) does not parse. The
    /// other patterns still apply, so the pack may hold a file the author meant
    /// to leave out.
    ///
    /// Fix the pattern.
    PackBadIgnoreFile = "HP006", "pack-bad-ignore-file", Warning, EVERY, FixAvailability::None,
        "a `.honeignore` pattern does not parse";
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::super::testing::{findings_for, skill_md};
    use super::*;

    #[test]
    fn codes_and_names_are_unique_and_documented() {
        let mut codes = HashSet::new();
        let mut names = HashSet::new();
        for &rule in Rule::ALL {
            assert!(codes.insert(rule.code()), "{rule}: code used twice");
            assert!(names.insert(rule.name()), "{rule}: name used twice");
            let code = rule.code();
            let well_formed = code.len() == 5
                && (code.starts_with("HS") || code.starts_with("HP"))
                && code[2..].bytes().all(|b| b.is_ascii_digit());
            assert!(well_formed, "{rule}: code not HSnnn or HPnnn");
            assert_eq!(
                code.starts_with("HP"),
                rule.origin() == Origin::Pack,
                "{rule}"
            );
            assert!(!rule.summary().is_empty(), "{rule}: empty summary");
            assert!(!rule.doc().trim().is_empty(), "{rule}: empty doc");
            assert!(!rule.targets().is_empty(), "{rule}: no target");
            assert_eq!(Rule::find(code), Some(rule));
            assert_eq!(Rule::find(rule.name()), Some(rule));
        }
    }

    /// The variants are declared in code order, the pack's rules last, which
    /// is the order `hone rule` lists and SARIF indexes them.
    #[test]
    fn rules_are_in_code_order() {
        let check: Vec<&str> = Rule::ALL
            .iter()
            .filter(|r| r.origin() == Origin::Check)
            .map(|r| r.code())
            .collect();
        let mut sorted = check.clone();
        sorted.sort_unstable();
        assert_eq!(check, sorted);
        let first_pack = Rule::ALL.iter().position(|r| r.origin() == Origin::Pack);
        assert!(
            first_pack.is_some_and(|i| Rule::ALL[i..].iter().all(|r| r.origin() == Origin::Pack))
        );
    }

    /// The doc comment is the doc: its text comes back as written, without the
    /// space after `///`.
    #[test]
    fn docs_read_as_written() {
        let doc = Rule::NameTooLong.doc();
        assert!(
            doc.starts_with("The spec, Claude Code and Anthropic's API all cap `name`"),
            "{doc}"
        );
        assert!(!doc.ends_with('\n'));
        assert!(
            Rule::InvalidYaml
                .doc()
                .contains("\n```yaml\ndescription: Reads PDFs.")
        );
    }

    /// One finding of every fixable rule, with the target it fires for: each
    /// must carry a fix. (The other direction, a fix from a rule that declares
    /// none or a missing fix from one that declares it always, is asserted on
    /// every finding of every test run; see `debug_assert_fixes_declared`.)
    #[test]
    fn declared_fixes_are_emitted() {
        let with_name = |name: &str| {
            format!("---\nname: {name}\ndescription: Formats reports. Use when asked.\n---\nbody\n")
        };
        let examples: Vec<(Rule, Target, String)> = vec![
            (
                Rule::InvalidYaml,
                Target::All,
                skill_md("license: MIT: or not\n", ""),
            ),
            (
                Rule::ByteOrderMark,
                Target::All,
                format!("\u{feff}{}", skill_md("", "")),
            ),
            (
                Rule::FlowCollection,
                Target::All,
                skill_md("allowed-tools: [Read, Grep]\n", ""),
            ),
            (
                Rule::CrlfLineEndings,
                Target::All,
                skill_md("", "body\n").replace('\n', "\r\n"),
            ),
            (
                Rule::CommentTruncatesValue,
                Target::All,
                "---\nname: my-skill\ndescription: Formats C# code. Use when asked #csharp\n---\n"
                    .to_owned(),
            ),
            (
                Rule::BlockScalar,
                Target::All,
                "---\nname: my-skill\ndescription: >-\n  Reads PDFs.\n  Use when asked.\n---\n"
                    .to_owned(),
            ),
            (
                Rule::UnquotedColon,
                Target::ClaudeCode,
                skill_md("license: MIT: or not\n", ""),
            ),
            (
                Rule::NameMissing,
                Target::All,
                "---\ndescription: Formats reports. Use when asked.\n---\n".to_owned(),
            ),
            (Rule::NameFormat, Target::All, with_name("My_Skill")),
            (
                Rule::NameDirectoryMismatch,
                Target::All,
                with_name("other-skill"),
            ),
            (Rule::FieldType, Target::All, skill_md("license: 2.0\n", "")),
            (
                Rule::MetadataNotStrings,
                Target::All,
                skill_md("metadata:\n  version: 1\n", ""),
            ),
            (
                Rule::AllowedToolsCommas,
                Target::All,
                skill_md("allowed-tools: Read, Grep\n", ""),
            ),
            (
                Rule::UnknownKey,
                Target::All,
                skill_md("Allowed_Tools: Read\n", ""),
            ),
            (
                Rule::Yaml11Boolean,
                Target::All,
                skill_md("license: no\n", ""),
            ),
            (
                Rule::BooleanAsString,
                Target::All,
                skill_md("disable-model-invocation: no\n", ""),
            ),
            (
                Rule::KeySpelling,
                Target::ClaudeCode,
                skill_md("displayName: PDF tools\n", ""),
            ),
            (
                Rule::FieldValue,
                Target::ClaudeCode,
                skill_md("effort: High\n", ""),
            ),
        ];
        let fixable: HashSet<Rule> = Rule::ALL.iter().copied().filter(|r| r.fixable()).collect();
        let exemplified: HashSet<Rule> = examples.iter().map(|(rule, ..)| *rule).collect();
        assert_eq!(
            fixable, exemplified,
            "every fixable rule needs one example here"
        );
        let unfixed: Vec<String> = examples
            .iter()
            .filter(|(rule, target, text)| {
                !findings_for(*rule, text, *target)
                    .iter()
                    .any(|d| d.fix.is_some())
            })
            .map(|(rule, _, text)| format!("{rule} offered no fix on {text:?}"))
            .collect();
        assert!(unfixed.is_empty(), "{unfixed:#?}");
    }
}
