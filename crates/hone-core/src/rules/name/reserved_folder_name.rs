//! HS107 `reserved-folder-name`: its documentation, what `hone rule HS107`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
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
}
