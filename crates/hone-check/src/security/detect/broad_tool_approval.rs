//! HS904 `broad-tool-approval`: its detector; the documentation is in
//! `rules/security/broad_tool_approval.rs`.

use super::pattern;
use crate::rules::Rule;
use crate::security::{Confidence, Hit, Threat};
use crate::skill::Skill;

pattern!(
    BROAD,
    r"^(Bash|PowerShell|Shell|Terminal|run_shell_command|shell)$|^(Bash|PowerShell|Shell)\(\s*(\*|\*:\*|(curl|wget|sh|bash|zsh|python[0-9.]*|node|nc|ncat|ssh|scp|rm|sudo|eval|exec|pwsh|powershell|npx|pip[0-9]*|chmod|base64|perl|ruby|env|xargs|source)\s*(:\s*\*|\s+\*|\*)?)\s*\)$"
);

pub(crate) fn check(skill: &Skill, escalation: Option<Threat>, hits: &mut Vec<Hit>) {
    let Some(tools) = &skill.meta.allowed_tools else {
        return;
    };
    let text = skill.text();
    let frontmatter_end = skill.doc.body.start;
    for tool in tools {
        let tool = tool.trim();
        if !BROAD.get().is_match(tool) {
            continue;
        }
        let at = text[..frontmatter_end]
            .find("allowed-tools")
            .and_then(|key| text[key..frontmatter_end].find(tool).map(|n| key + n))
            .unwrap_or(0);
        let (threat, confidence, message) = if let Some(threat) = escalation {
            (
                threat,
                Confidence::Medium,
                format!(
                    "`allowed-tools` pre-approves `{tool}`, so the risky actions found in this skill run without a prompt"
                ),
            )
        } else {
            (
                Threat::Low,
                Confidence::High,
                format!(
                    "`allowed-tools` pre-approves `{tool}`: the agent runs such commands without asking"
                ),
            )
        };
        hits.push(Hit::new(
            Rule::BroadToolApproval,
            threat,
            confidence,
            at..at + tool.len(),
            message,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broad_tools() {
        for tool in [
            "Bash",
            "Bash(*)",
            "Bash(curl:*)",
            "Bash(python3 *)",
            "PowerShell",
        ] {
            assert!(BROAD.get().is_match(tool), "{tool}");
        }
        for tool in ["Bash(git status:*)", "Bash(npm test)", "Read", "Bash(ls:*)"] {
            assert!(!BROAD.get().is_match(tool), "{tool}");
        }
    }
}
