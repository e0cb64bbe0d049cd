//! HS404 `link-outside-skill`: its documentation, what `hone rule HS404`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// A link such as `../shared/style.md` works in the author's checkout but
    /// breaks once the skill is installed, packed or uploaded on its own: only the
    /// skill's folder travels. Copy the file into the skill, or link to a URL.
}
