//! HS102 `name-too-long`: its documentation, what `hone rule HS102`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// The spec, Claude Code and Anthropic's API all cap `name` at 64 characters.
    /// Shorten it (and rename the directory to match).
}
