//! HS305 `allowed-tools-commas`: its documentation, what `hone rule HS305`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// The spec defines `allowed-tools` as a *space*-separated string, so a reader
    /// following it turns `Read, Grep` into the tools `Read,` and `Grep`. Claude
    /// Code accepts commas; for portability use spaces or a YAML list.
    ///
    /// ```yaml
    /// allowed-tools: Read, Grep     # HS305
    /// allowed-tools: Read Grep      # fixed
    /// ```
    ///
    /// The fix rewrites the list with spaces when no entry contains a space. Only
    /// for `agentskills`.
}
