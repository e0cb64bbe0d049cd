//! HS304 `allowed-tools-form`: its documentation, what `hone rule HS304`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// `allowed-tools` lists the tools a skill may use without asking: a string
    /// (space-separated in the spec; Claude Code also accepts commas) or a YAML list
    /// of strings. Each entry is a tool name, optionally with a pattern in
    /// parentheses: `Bash(git add *)`. The rule reports other types, empty entries
    /// and unbalanced parentheses.
    ///
    /// ```yaml
    /// allowed-tools: {Read: true}            # HS304
    /// allowed-tools: Read, , Bash(git *      # HS304: empty entry, unclosed `(`
    /// allowed-tools: Read Grep Bash(git *)   # fine
    /// ```
}
