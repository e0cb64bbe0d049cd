//! HS201 `description-missing`: its documentation, what `hone rule HS201`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
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
}
