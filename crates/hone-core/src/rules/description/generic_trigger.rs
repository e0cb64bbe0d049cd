//! HS206 `generic-trigger`: its documentation, what `hone rule HS206`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Phrases such as "help me", "do this", "any task" or "general purpose" match
    /// nearly every request, so the skill fires when it should not and crowds out
    /// the skill that fits. Name the concrete situations instead.
    ///
    /// Checked in `description`, `when_to_use` and each `triggers` entry (which
    /// skill routers read); a `triggers` entry that is one common verb (`help`,
    /// `run`, `fix`) is generic too.
    ///
    /// ```yaml
    /// description: Use when the user says "help me" with anything.     # HS206
    /// description: Use when the user asks to fix a failing CI job.      # fine
    /// ```
}
