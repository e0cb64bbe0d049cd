//! HS106 `angle-brackets`: its documentation, what `hone rule HS106`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Anthropic's upload and Skills API reject XML tags in `name` and
    /// `description`; the metadata is placed inside a structured prompt, where a
    /// tag could break out of it. Any `<` or `>` is reported. Write "less than",
    /// "at least" or plain words instead. Only for `claude-api`.
    ///
    /// ```yaml
    /// description: Wraps output in <result> tags.      # HS106
    /// description: Wraps output in result tags.        # fine
    /// ```
}
