//! HS107 `reserved-folder-name`: its documentation, check and tests.

use crate::rules::{Checker, Rule};

crate::rules::rule_doc! {
    /// Claude Code keeps the skills it syncs from claude.ai under a folder of its
    /// own and lists them as `anthropic-skills:<name>`; the folder names `synced` and
    /// `anthropic-skills` are reserved for that (CHANGELOG 2.1.211 "Hardened synced
    /// skill/plugin directory naming", 2.1.228 "Hardened skills synced from
    /// claude.ai"). A skill of your own in such a folder is taken for a synced one or
    /// hidden by it. Rename the folder (and `name`). Only for `claude-code`.
    ///
    /// Sources: the Claude Code skills docs and CHANGELOG as summarised in the
    /// team's notes; the docs page itself was not available to verify the exact
    /// wording of the reservation.
}

/// The folder names Claude Code reserves for synced skills.
const RESERVED_FOLDERS: &[&str] = &["synced", "anthropic-skills"];

/// `HS107`: a skill folder with a name Claude Code keeps for itself.
pub(super) fn check(checker: &mut Checker, dir_name: &str) {
    if !RESERVED_FOLDERS.contains(&dir_name) {
        return;
    }
    let range = checker
        .entry("name")
        .map_or(0..0, |(_, value)| value.span.clone());
    checker
        .report(
            Rule::ReservedFolder,
            range,
            format!("the folder name `{dir_name}` is reserved by Claude Code for skills synced from claude.ai"),
        )
        .help("rename the folder (and `name`) so Claude Code does not take it for a synced skill");
}

#[cfg(test)]
mod tests {
    use crate::rules::Target;
    use crate::rules::name::tests::with_name;
    use crate::rules::testing::*;

    /// Claude Code reserves `synced` and `anthropic-skills` for skills synced
    /// from claude.ai (CHANGELOG 2.1.211, 2.1.228).
    #[test]
    fn reserved_folder_names_for_claude_code() {
        let (_tmp, skill) = skill_with_files("synced", &with_name("synced"), &[]);
        assert_eq!(
            findings_of(Rule::ReservedFolder, &skill, Target::ClaudeCode).len(),
            1
        );
        assert!(findings_of(Rule::ReservedFolder, &skill, Target::Agentskills).is_empty());
        let (_tmp, skill) = skill_with_files("my-skill", &with_name("my-skill"), &[]);
        assert!(findings_of(Rule::ReservedFolder, &skill, Target::ClaudeCode).is_empty());
    }
}
