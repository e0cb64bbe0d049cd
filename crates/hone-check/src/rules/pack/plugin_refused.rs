//! HP007 `plugin-refused`: its documentation, what `hone rule HP007` prints;
//! the check is in `pack::plugin`.

crate::rules::rule_doc! {
    /// `hone pack --format plugin|marketplace` writes a Claude Code plugin,
    /// and `claude plugin validate` (Claude Code 2.1.328) refuses a plugin
    /// whose skill has a frontmatter it cannot use, though Claude Code itself
    /// would load that skill with the value dropped: YAML that does not parse
    /// (after Claude Code's retry with leading tabs made spaces), a
    /// frontmatter that is not a mapping, a `name` that is not a string, a
    /// `description` that is a list or a mapping, an `allowed-tools` that is
    /// neither a string nor a list of strings, a `shell` other than `bash` or
    /// `powershell`. This rule reports each, where it is, before the export.
    ///
    /// Write the value as the message says: quote a number meant as a name,
    /// join a list meant as a description into one string.
}
