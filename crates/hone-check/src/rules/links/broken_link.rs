//! HS403 `broken-link`: its documentation, what `hone rule HS403`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// A link or image in the body whose target is not in the skill folder. The
    /// agent that follows it gets an error instead of the reference it was sent
    /// to read. Links are resolved against the skill folder, `%20` and the like
    /// decoded, `#anchors` and `?queries` ignored; URLs, absolute paths and
    /// template placeholders (`${VAR}`) are not checked.
    ///
    /// ```markdown
    /// See [the form guide](references/forms.md).   <!-- HS403 when references/forms.md is missing -->
    /// ```
}
