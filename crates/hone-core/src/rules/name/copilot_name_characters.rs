//! HS108 `copilot-name-characters`: its documentation, what `hone rule HS108`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
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
}
