//! HS301 `field-type`: its documentation, what `hone rule HS301`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Each known key has a type: `name`, `description`, `license`,
    /// `compatibility`, `when_to_use`, `model` (a model name, or `inherit`),
    /// `effort`, `shell` and the other text fields are strings; `metadata` and
    /// `hooks` are mappings; `disable-model-invocation`, `user-invocable` and
    /// `background` are booleans; `paths` (comma-separated globs or a list),
    /// `disallowed-tools`, `triggers` and the tool lists are a string or a list of
    /// strings; `arguments` is a space-separated string or a list of names;
    /// `token_estimate` is an integer. Sources: the Claude Code skills docs
    /// ("Frontmatter reference") and CHANGELOG (`disallowed-tools` 2.1.152,
    /// `background` 2.1.218, `paths` lists 2.1.84). An agent that
    /// gets a number or a list where it expects text may crash or skip the skill.
    ///
    /// ```yaml
    /// license: 2.0       # HS301: a number; write "2.0"
    /// name: [pdf]        # HS301: a list
    /// ```
    ///
    /// The fix quotes a number or boolean given for a text field.
    ///
    /// **skills-ref differs:** strictyaml reads every scalar as a string, so
    /// `license: 2.0` passes there; PyYAML and the `yaml` npm package return a
    /// number.
}
