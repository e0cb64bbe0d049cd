//! The registry: every rule Hone reports, as one [`Rule`] enum.
//!
//! Each entry holds what describes a rule at a glance: variant, code, name,
//! severity, targets, whether (and how safely) it can be fixed, a one-line
//! summary, and where its documentation lives. A rule is referred to by its
//! variant everywhere, in the checks and in the tests, so a misspelled code
//! does not compile.
//!
//! The documentation (what `hone rule CODE` prints and SARIF carries) is the
//! doc comment of the rule's own module, `rules/<area>/<rule_name>.rs`,
//! declared with `rule_doc!` so it is written once and
//! read both by rustdoc and at run time. The pack's findings (`HP…`) are
//! rules too, documented in `rules/pack/`: the export reports them about a
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
        $variant:ident = $code:literal, $name:literal, $severity:ident, $targets:expr, $fix:expr,
            $summary:literal, $doc:expr;
    )*) => {
        /// A rule: its variant is its identity; the methods give its code,
        /// name, severity, targets, fix and documentation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $(#[doc = $summary] $variant,)*
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

            /// The lines of the doc comment in the rule's module, as the
            /// compiler keeps them.
            const fn doc_lines(self) -> &'static [&'static str] {
                match self { $(Rule::$variant => $doc,)* }
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
            | Rule::PackBadIgnoreFile
            | Rule::PluginRefused => Origin::Pack,
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
    FrontmatterMissing = "HS001", "frontmatter-missing", Error, EVERY, FixAvailability::None,
        "SKILL.md does not start with a `---` frontmatter block",
        super::frontmatter::frontmatter_missing::DOC;
    FrontmatterUnclosed = "HS002", "frontmatter-unclosed", Error, EVERY, FixAvailability::None,
        "the frontmatter's opening `---` has no closing `---` line",
        super::frontmatter::frontmatter_unclosed::DOC;
    InvalidYaml = "HS003", "invalid-yaml", Error, EVERY, FixAvailability::Sometimes(FixSafety::Safe),
        "the frontmatter is not valid YAML",
        super::frontmatter::invalid_yaml::DOC;
    FrontmatterNotMapping = "HS004", "frontmatter-not-mapping", Error, EVERY, FixAvailability::None,
        "the frontmatter is empty or not a mapping of keys to values",
        super::frontmatter::frontmatter_not_mapping::DOC;
    InvalidUtf8 = "HS005", "invalid-utf8", Error, EVERY, FixAvailability::None,
        "SKILL.md is not valid UTF-8",
        super::frontmatter::invalid_utf8::DOC;
    ByteOrderMark = "HS006", "byte-order-mark", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "SKILL.md starts with a UTF-8 byte-order mark",
        super::portability::byte_order_mark::DOC;
    DuplicateKey = "HS007", "duplicate-key", Warning, EVERY, FixAvailability::None,
        "a key appears twice in the same mapping",
        super::portability::duplicate_key::DOC;
    FlowCollection = "HS008", "flow-collection", Warning, &[Target::Agentskills], FixAvailability::Sometimes(FixSafety::Safe),
        "a flow collection (`[a, b]` or `{k: v}`) that the reference validator rejects",
        super::portability::flow_collection::DOC;
    DashesInFrontmatter = "HS009", "dashes-in-frontmatter", Warning, &[Target::Agentskills], FixAvailability::None,
        "`---` inside the frontmatter, where skills-ref cuts it short",
        super::portability::dashes_in_frontmatter::DOC;
    CrlfLineEndings = "HS010", "crlf-line-endings", Info, EVERY, FixAvailability::Always(FixSafety::Safe),
        "the frontmatter has Windows (CRLF) line endings",
        super::portability::crlf_line_endings::DOC;
    CommentTruncatesValue = "HS011", "comment-truncates-value", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "` #` in an unquoted description starts a comment and cuts the value",
        super::portability::comment_truncates_value::DOC;
    BlockScalar = "HS012", "block-scalar-description", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "`description` is a block scalar (`>-`, `|`), which some clients read as the indicator",
        super::portability::block_scalar_description::DOC;
    YamlTag = "HS013", "yaml-tag", Warning, EVERY, FixAvailability::None,
        "an explicit YAML tag (`!!python/…`, `!!binary`, `!local`) that safe loaders refuse or read as non-text",
        super::portability::yaml_tag::DOC;
    UnquotedColon = "HS014", "unquoted-colon", Warning, &[Target::ClaudeCode], FixAvailability::Always(FixSafety::Safe),
        "`: ` inside an unquoted value: Claude Code re-quotes and loads it, strict parsers reject the file",
        super::portability::unquoted_colon::DOC;
    NameMissing = "HS101", "name-missing", Error, REQUIRING, FixAvailability::Sometimes(FixSafety::Safe),
        "the frontmatter has no `name`",
        super::name::name_missing::DOC;
    NameTooLong = "HS102", "name-too-long", Error, EVERY, FixAvailability::None,
        "`name` is longer than 64 characters",
        super::name::name_too_long::DOC;
    NameFormat = "HS103", "name-format", Error, EVERY, FixAvailability::Sometimes(FixSafety::Safe),
        "`name` is not lowercase `a-z`, `0-9` and single inner hyphens",
        super::name::name_format::DOC;
    NameDirectoryMismatch = "HS104", "name-directory-mismatch", Error, SPEC_AND_API, FixAvailability::Sometimes(FixSafety::Safe),
        "`name` differs from the skill's directory name",
        super::name::name_directory_mismatch::DOC;
    NameReservedWord = "HS105", "name-reserved-word", Error, &[Target::ClaudeApi], FixAvailability::None,
        "`name` contains the reserved word `anthropic` or `claude`",
        super::name::name_reserved_word::DOC;
    AngleBrackets = "HS106", "angle-brackets", Error, &[Target::ClaudeApi], FixAvailability::None,
        "`<` or `>` (XML tags) in `name` or `description`",
        super::name::angle_brackets::DOC;
    ReservedFolder = "HS107", "reserved-folder-name", Warning, &[Target::ClaudeCode], FixAvailability::None,
        "the skill's folder is named `synced` or `anthropic-skills`, which Claude Code reserves",
        super::name::reserved_folder_name::DOC;
    CopilotName = "HS108", "copilot-name-characters", Error, &[Target::Copilot], FixAvailability::None,
        "`name` has a character GitHub Copilot CLI refuses (only letters, digits, `-`, `_`, `.` and spaces)",
        super::name::copilot_name_characters::DOC;
    DescriptionMissing = "HS201", "description-missing", Error, REQUIRING, FixAvailability::None,
        "the frontmatter has no `description`",
        super::description::description_missing::DOC;
    DescriptionEmpty = "HS202", "description-empty", Error, EVERY, FixAvailability::None,
        "`description` is empty",
        super::description::description_empty::DOC;
    DescriptionTooLong = "HS203", "description-too-long", Error, SPEC_AND_API, FixAvailability::None,
        "`description` is longer than 1,024 characters",
        super::description::description_too_long::DOC;
    ListingTruncated = "HS204", "listing-truncated", Warning, &[Target::ClaudeCode], FixAvailability::None,
        "`description` + `when_to_use` exceed Claude Code's 1,536-character listing cap",
        super::description::listing_truncated::DOC;
    NoTrigger = "HS205", "no-trigger", Warning, EVERY, FixAvailability::None,
        "the description never says when to use the skill",
        super::description::no_trigger::DOC;
    GenericTrigger = "HS206", "generic-trigger", Warning, EVERY, FixAvailability::None,
        "a trigger phrase that matches almost any request",
        super::description::generic_trigger::DOC;
    DescriptionFromBody = "HS207", "description-from-body", Warning, &[Target::ClaudeCode], FixAvailability::None,
        "no `description`: Claude Code lists the body's first line instead",
        super::description::description_from_body::DOC;
    BuiltinOverlap = "HS208", "builtin-overlap", Warning, &[Target::ClaudeCode, Target::Copilot], FixAvailability::None,
        "the description says what one of the client's built-in skills says (Claude Code, Copilot CLI)",
        super::description::builtin_overlap::DOC;
    FieldType = "HS301", "field-type", Error, EVERY, FixAvailability::Sometimes(FixSafety::Safe),
        "a known field has a value of the wrong type",
        super::fields::field_type::DOC;
    CompatibilityTooLong = "HS302", "compatibility-too-long", Error, SPEC_AND_API, FixAvailability::None,
        "`compatibility` is empty or longer than 500 characters",
        super::fields::compatibility_too_long::DOC;
    MetadataNotStrings = "HS303", "metadata-not-strings", Warning, SPEC_AND_API, FixAvailability::Sometimes(FixSafety::Safe),
        "`metadata` holds a value that is not a string",
        super::fields::metadata_not_strings::DOC;
    AllowedToolsForm = "HS304", "allowed-tools-form", Error, EVERY, FixAvailability::None,
        "`allowed-tools` is not a string or list of tool names",
        super::fields::allowed_tools_form::DOC;
    AllowedToolsCommas = "HS305", "allowed-tools-commas", Warning, &[Target::Agentskills], FixAvailability::Sometimes(FixSafety::Safe),
        "comma-separated `allowed-tools`, which the spec splits on spaces",
        super::fields::allowed_tools_commas::DOC;
    UnknownKey = "HS306", "unknown-key", Warning, &[Target::Agentskills, Target::ClaudeCode, Target::Copilot], FixAvailability::Sometimes(FixSafety::Safe),
        "a frontmatter key the target does not know",
        super::fields::unknown_key::DOC;
    ApiUnsupportedKey = "HS307", "api-unsupported-key", Error, &[Target::ClaudeApi], FixAvailability::None,
        "a key outside the spec, which Anthropic's upload rejects",
        super::fields::api_unsupported_key::DOC;
    Yaml11Boolean = "HS308", "yaml11-boolean", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "an unquoted `yes`/`no`/`on`/`off` where text is meant",
        super::fields::yaml11_boolean::DOC;
    BooleanAsString = "HS309", "boolean-as-string", Warning, EVERY, FixAvailability::Always(FixSafety::Safe),
        "a boolean field written as `yes`/`no`/`on`/`off`/`1`/`0` or a quoted `\"true\"`",
        super::fields::boolean_as_string::DOC;
    KeySpelling = "HS310", "key-spelling", Warning, &[Target::ClaudeCode], FixAvailability::Always(FixSafety::Safe),
        "a snake_case or camelCase key that only Claude Code reads as its kebab-case form",
        super::fields::key_spelling::DOC;
    FieldValue = "HS311", "field-value", Warning, &[Target::ClaudeCode], FixAvailability::Sometimes(FixSafety::Safe),
        "`effort`, `shell` or `context` holds a value Claude Code does not define",
        super::fields::field_value::DOC;
    BodyTooLong = "HS401", "body-too-long", Warning, EVERY, FixAvailability::None,
        "the body is longer than 500 lines",
        super::body::body_too_long::DOC;
    BodyTooManyTokens = "HS402", "body-too-many-tokens", Warning, EVERY, FixAvailability::None,
        "the body is longer than 5,000 tokens",
        super::body::body_too_many_tokens::DOC;
    BrokenLink = "HS403", "broken-link", Warning, EVERY, FixAvailability::None,
        "a relative link to a file that does not exist",
        super::links::broken_link::DOC;
    LinkOutsideSkill = "HS404", "link-outside-skill", Warning, EVERY, FixAvailability::None,
        "a relative link that climbs out of the skill folder",
        super::links::link_outside_skill::DOC;
    NestedReference = "HS405", "nested-reference", Warning, EVERY, FixAvailability::None,
        "a referenced file links on to files `SKILL.md` does not link",
        super::links::nested_reference::DOC;
    UnreferencedResource = "HS406", "unreferenced-resource", Info, EVERY, FixAvailability::None,
        "a file in the skill folder that nothing references",
        super::links::unreferenced_resource::DOC;
    SpecialToken = "HS407", "special-token", Info, EVERY, FixAvailability::None,
        "text that looks like a special token, such as `<|endoftext|>`",
        super::body::special_token::DOC;
    DuplicateName = "HS501", "duplicate-name", Warning, EVERY, FixAvailability::None,
        "two skills of the library have the same name",
        super::library::duplicate_name::DOC;
    RoutingCollision = "HS502", "routing-collision", Warning, EVERY, FixAvailability::None,
        "two skills' routing texts describe the same requests",
        super::collision::routing_collision::DOC;
    HiddenText = "HS901", "hidden-text", Error, EVERY, FixAvailability::None,
        "text the agent reads and a reviewer does not see: tag characters, bidi overrides, zero-width runs, instructions in comments",
        super::security::hidden_text::DOC;
    AgentInstruction = "HS902", "agent-directed-instruction", Error, EVERY, FixAvailability::None,
        "an instruction to override other instructions, skip confirmations, auto-approve tools or hide actions",
        super::security::agent_instruction::DOC;
    LoadTimeCommand = "HS903", "load-time-command", Warning, EVERY, FixAvailability::None,
        "a `!`command`` Claude Code runs when the skill loads, and what it runs",
        super::security::load_time_command::DOC;
    BroadToolApproval = "HS904", "broad-tool-approval", Warning, EVERY, FixAvailability::None,
        "`allowed-tools` pre-approves a shell or downloader broadly (`Bash(*)`, `Bash(curl:*)`)",
        super::security::broad_tool_approval::DOC;
    SecretExfiltration = "HS905", "secret-exfiltration", Error, EVERY, FixAvailability::None,
        "credentials, the environment or workspace files flow to the network",
        super::security::secret_exfiltration::DOC;
    DownloadAndExecute = "HS906", "download-and-execute", Error, EVERY, FixAvailability::None,
        "code fetched from the network and run unseen (`curl | sh`, `iex (iwr …)`, fetched binaries)",
        super::security::download_and_execute::DOC;
    ObfuscatedCode = "HS907", "obfuscated-code", Error, EVERY, FixAvailability::None,
        "an encoded payload decoded and run, or a string built at run time and evaluated",
        super::security::obfuscated_code::DOC;
    Persistence = "HS908", "persistence", Error, EVERY, FixAvailability::None,
        "code that installs itself to run later: shell rc files, cron, launch agents, hooks, authorized_keys",
        super::security::persistence::DOC;
    DestructiveCommand = "HS909", "destructive-command", Error, EVERY, FixAvailability::None,
        "a command that destroys data outside the workspace (`rm -rf ~`, `mkfs`, `dd of=/dev/…`)",
        super::security::destructive_command::DOC;
    NameImpersonation = "HS910", "name-impersonation", Warning, EVERY, FixAvailability::None,
        "a `name` imitating a well-known skill or another skill of the library",
        super::security::name_impersonation::DOC;
    PackSymlinkOutside = "HP001", "pack-symlink-outside", Error, EVERY, FixAvailability::None,
        "a symlink leaves the skill or dangles; it is left out of the pack",
        super::pack::pack_symlink_outside::DOC;
    PackUnreadable = "HP002", "pack-unreadable", Error, EVERY, FixAvailability::None,
        "a file of the skill could not be read; it is left out of the pack",
        super::pack::pack_unreadable::DOC;
    PackUnsafeName = "HP003", "pack-unsafe-name", Error, EVERY, FixAvailability::None,
        "a file name cannot be extracted on every system; it is left out of the pack",
        super::pack::pack_unsafe_name::DOC;
    PackCaseCollision = "HP004", "pack-case-collision", Error, EVERY, FixAvailability::None,
        "two files differ only in letter case; one is left out of the pack",
        super::pack::pack_case_collision::DOC;
    PackSpecialFile = "HP005", "pack-special-file", Warning, EVERY, FixAvailability::None,
        "a special file (socket, FIFO, device) is left out of the pack",
        super::pack::pack_special_file::DOC;
    PackBadIgnoreFile = "HP006", "pack-bad-ignore-file", Warning, EVERY, FixAvailability::None,
        "a `.honeignore` pattern does not parse",
        super::pack::pack_bad_ignore_file::DOC;
    PluginRefused = "HP007", "plugin-refused", Error, EVERY, FixAvailability::None,
        "`claude plugin validate` refuses the skill's frontmatter",
        super::pack::plugin_refused::DOC;
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
    /// every finding of the engine's tests; see `debug_assert_fixes_declared`.)
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
