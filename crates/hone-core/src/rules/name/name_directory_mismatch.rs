//! HS104 `name-directory-mismatch`: its documentation, what `hone rule HS104`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
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
}
