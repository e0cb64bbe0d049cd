//! HS309 `boolean-as-string`: its documentation, what `hone rule HS309`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// `disable-model-invocation`, `user-invocable`, `background` and
    /// `default-enabled` are booleans. Claude Code reads `yes`/`no`/`on`/`off`/`1`/`0`
    /// in any case as booleans since 2.1.218 (CHANGELOG: "Added
    /// `yes`/`no`/`on`/`off`/`1`/`0` (case-insensitive) as accepted values for skill
    /// and plugin frontmatter booleans"). Other agents, older Claude Code and the
    /// spec's YAML (1.2) do not: `no` and `off` are strings there, `1` and `0`
    /// integers, and a JavaScript agent testing the value treats every non-empty
    /// string as true, so `disable-model-invocation: no` would *disable*
    /// invocation. A quoted `"false"` has the same problem.
    ///
    /// ```yaml
    /// disable-model-invocation: no      # HS309
    /// disable-model-invocation: false   # fixed
    /// ```
    ///
    /// The fix writes `true` or `false`, which every reader agrees on.
}
