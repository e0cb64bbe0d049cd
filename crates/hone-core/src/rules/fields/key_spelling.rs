//! HS310 `key-spelling`: its documentation, what `hone rule HS310`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Claude Code 2.1.186 reads `display-name`, `default-enabled` and `fallback`
    /// (and keys under `metadata`) whether written in kebab-case, snake_case or
    /// camelCase (CHANGELOG 2.1.186: "… now accept kebab-case, snake_case, and
    /// camelCase"). Other clients and earlier Claude Code see `displayName` as an
    /// unknown key and ignore it.
    ///
    /// ```yaml
    /// displayName: PDF tools     # HS310
    /// display-name: PDF tools    # fixed
    /// ```
    ///
    /// **The issue said "the key spellings Claude Code normalises (kebab, snake,
    /// camel)" in general; the CHANGELOG names only these keys.** Claude Code's
    /// other keys are read only as documented (`allowed-tools`,
    /// `disable-model-invocation`, `when_to_use`): `allowedTools` is an unknown key
    /// for Claude Code too, reported by HS306 with a fix. Only for `claude-code`.
}
