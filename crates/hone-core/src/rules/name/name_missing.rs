//! HS101 `name-missing`: its documentation, what `hone rule HS101`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
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
}
