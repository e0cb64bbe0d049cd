//! HS202 `description-empty`: its documentation, what `hone rule HS202`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// `description:` with nothing after it is null in YAML, and `""` or a blank
    /// string gives the agent nothing to route on. The spec requires 1–1024
    /// characters. A value on the *next* line without a block indicator is a
    /// common slip:
    ///
    /// ```yaml
    /// description:            # HS202: null
    /// Reads PDFs.             # not part of the description
    /// description: >-         # fine: a folded block
    ///   Reads PDFs.
    /// ```
}
