//! HS014 `unquoted-colon`: its documentation, what `hone rule HS014`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// A plain (unquoted) value may not contain `: `: every YAML parser (Hone's,
    /// PyYAML, js-yaml, strictyaml) stops with "mapping values are not allowed
    /// here", and for the spec, the upload and Copilot that is HS003, an error.
    /// Claude Code instead retries with such values quoted and loads the skill
    /// (CHANGELOG: "Fixed skill descriptions with colons (e.g., "Triggers include:
    /// X, Y, Z") failing to load"), as the agentskills.io client guide recommends
    /// (`docs/client-implementation/adding-skills-support.mdx`, "Handling malformed
    /// YAML": "Consider a fallback that wraps such values in quotes"). So for
    /// `claude-code` the finding is this warning: the skill works there and fails
    /// in any client without the fallback (neo4j-contrib/neo4j-skills #44).
    ///
    /// ```yaml
    /// description: Reads PDFs. Use when: the user sends one       # HS014 (claude-code), HS003 (others)
    /// description: "Reads PDFs. Use when: the user sends one"     # fixed
    /// ```
    ///
    /// The fix quotes the whole value, folding a multi-line value into one line.
    /// Only for `claude-code`.
}
