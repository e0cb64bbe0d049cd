//! HS311 `field-value`: its documentation, what `hone rule HS311`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Some of Claude Code's fields take one of a few words (skills docs,
    /// "Frontmatter reference"):
    ///
    /// | field | values |
    /// |---|---|
    /// | `effort` | `low`, `medium`, `high`, `xhigh`, `max` |
    /// | `shell` | `bash`, `powershell` |
    /// | `context` | `fork` |
    ///
    /// Any other value does not do what it says (`effort: extreme` sets no effort
    /// level; `shell: zsh` runs `!` blocks in bash). `model` takes any model name
    /// or alias, or `inherit`, and is not checked. The fix lowercases a value whose
    /// lowercase form is valid (`High` → `high`). Only for `claude-code`.
}
