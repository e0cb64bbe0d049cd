//! HS306 `unknown-key`: its documentation, what `hone rule HS306`
//! prints; the check is in the area's `mod.rs`.

crate::rules::rule_doc! {
    /// Agents ignore keys they do not know, so a misspelt key (`Description`,
    /// `allowed_tools`) silently does nothing. Which keys are known depends on the
    /// target: `agentskills` knows the spec's six (`name`, `description`,
    /// `license`, `compatibility`, `metadata`, `allowed-tools`); `claude-code` adds
    /// Claude Code's (`when_to_use`, `argument-hint`, `disable-model-invocation`,
    /// `user-invocable`, `model`, `hooks`, …); `all` also accepts the router keys
    /// `triggers`, `tools` and `token_estimate`. A near miss of a known key gets a
    /// "did you mean" help. Keep custom data under `metadata`.
    ///
    /// **skills-ref differs:** it reports every non-spec key as an error ("Unexpected
    /// fields in frontmatter"), 330 corpus skills, mostly `source`, `risk`,
    /// `date_added` and `author`. Hone warns, because every agent loads such a
    /// skill; for Anthropic's API, where they are errors, see HS307.
}
