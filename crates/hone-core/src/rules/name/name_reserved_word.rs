//! HS105 `name-reserved-word`: its documentation, what `hone rule HS105`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Anthropic's upload and Skills API reject skill names containing `anthropic`
    /// or `claude`. Other agents accept them. Only for `claude-api`.
    ///
    /// ```yaml
    /// name: claude-pdf-helper   # HS105
    /// name: pdf-helper          # fine
    /// ```
}
