//! HS307 `api-unsupported-key`: its documentation, what `hone rule HS307`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Anthropic's upload and Skills API accept only the spec's frontmatter keys:
    /// `name`, `description`, `license`, `compatibility`, `metadata` and
    /// `allowed-tools`. Anything else (including Claude Code's own keys) fails the
    /// upload. Move custom data under `metadata`. Only for `claude-api`.
}
