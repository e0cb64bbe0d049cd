//! HS205 `no-trigger`: its documentation, what `hone rule HS205`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Agents choose a skill by matching the request against its description. A
    /// description that only says what the skill *is* ("A PDF toolkit") loses to
    /// one that says when to use it ("Use when the user sends a PDF or asks to fill
    /// a form"). Anthropic's authoring guide asks for both what and when.
    ///
    /// The rule looks, in `description` and `when_to_use`, for phrases such as
    /// "use when", "use for", "use this", "when", "whenever", "if the user",
    /// "asks", "trigger" or "invoke". It is a heuristic: reword rather than
    /// silence it.
    ///
    /// ```yaml
    /// description: A toolkit for PDF files.                                # HS205
    /// description: Reads and fills PDFs. Use when the user sends a PDF.    # fine
    /// ```
}
