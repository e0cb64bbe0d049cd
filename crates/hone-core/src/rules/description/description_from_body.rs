//! HS207 `description-from-body`: its documentation, what `hone rule HS207`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Claude Code loads a skill without `description` and lists it with the first
    /// paragraph of its body (skills docs: "If omitted, uses the first paragraph of
    /// markdown content"). That paragraph was written for a reader who already
    /// chose the skill, and rarely says when to use it. The finding shows the text
    /// Claude Code will list; every other client refuses the skill (HS201). Only
    /// for `claude-code`.
}
