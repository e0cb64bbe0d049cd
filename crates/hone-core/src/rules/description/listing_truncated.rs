//! HS204 `listing-truncated`: its documentation, what `hone rule HS204`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Claude Code lists each skill to the model as its description followed by
    /// `when_to_use`, cut at 1,536 characters. Text past the cap is never seen, and
    /// the trigger phrases at the end of a long description are the first to go.
    /// Put the "Use when …" part first, or shorten. Only for `claude-code`.
    ///
    /// The cap is the setting `skillListingMaxDescChars` (default 1,536; Claude
    /// Code CHANGELOG 2.1.129). Where the library's project `.claude/settings.json`
    /// or `settings.local.json` sets it, HS204 checks against that value; the
    /// user's own `~/.claude/settings.json` is not read, so a check gives the same
    /// verdict on every machine.
}
