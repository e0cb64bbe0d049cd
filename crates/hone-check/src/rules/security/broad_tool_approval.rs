//! HS904 `broad-tool-approval`: its documentation, what `hone rule HS904`
//! prints; the detector is `security::detect::broad_tool_approval`.

crate::rules::rule_doc! {
    /// `allowed-tools` pre-approves tools while the skill is active: the agent
    /// uses them without asking. A bare `Bash`, `Bash(*)` or a pattern for a
    /// downloader, interpreter or deleter (`Bash(curl:*)`, `Bash(python:*)`,
    /// `Bash(rm:*)`, `PowerShell`) lets the skill run anything of that kind
    /// unseen.
    ///
    /// Alone it is low: many skills pre-approve what they need. Beside a
    /// finding that is dangerous on its own, or one that needs review and is
    /// meant (medium confidence or more), it is high: the approval removes
    /// the one prompt that would have shown it. Beside a doubtful finding
    /// it is medium, so a doubt never becomes a refusal.
    ///
    /// ```yaml
    /// allowed-tools: Bash(*) Read
    /// ```
}
