//! HS203 `description-too-long`: its documentation, what `hone rule HS203`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// The spec and Anthropic's API cap `description` at 1,024 characters (Unicode
    /// scalar values, as skills-ref counts them). A longer one fails validation and
    /// upload; agents that accept it pay for it in every request's catalog. Move
    /// detail into the body, which loads only when the skill is used.
}
