//! What a task's `allowed_tools` let each client do, and nothing more.
//!
//! A task case declares the tools its agent may use without asking, in
//! Claude Code's syntax (`Write`, `Bash(git diff:*)`), the syntax of
//! `claude plugin eval` cases and of Hone's bundled suites. Every other
//! client gets the same permissions in its own terms, so one suite runs on
//! every agent with the least it needs; a name that is already the client's
//! own tool passes unchanged. Declaring nothing leaves each client
//! read-only, as Claude Code is in `-p` mode: it can read and load skills,
//! but neither write nor run commands.
//!
//! - **Claude Code**: `--allowedTools` as written.
//! - **Gemini CLI**: `--approval-mode default` with `--allowed-tools`:
//!   headless, it offers a tool that needs approval only when it is allowed
//!   (checked against Gemini CLI 0.61: `activate_skill` too, so it is
//!   always allowed).
//! - **OpenCode**: a `permission` block in its configuration: `edit`
//!   (writing and editing files), `bash` (commands, by pattern) and
//!   `webfetch`, each allowed or denied.
//! - **Codex**: its sandbox. Codex does everything through its shell, so it
//!   cannot allow writing a file without allowing commands: a case that may
//!   write or run commands gets `workspace-write` (the workspace only, no
//!   network), any other `read-only`.

use serde_json::{Value, json};

/// A declared tool: its name and the pattern in its parentheses, if any
/// (`Bash(git diff:*)` is `Bash` and `git diff`).
fn parse(tool: &str) -> (&str, Option<&str>) {
    let tool = tool.trim();
    match tool.split_once('(') {
        Some((name, rest)) => {
            let pattern = rest.strip_suffix(')').unwrap_or(rest).trim();
            // Claude Code's `:*` and a trailing `*` both mean "starts with".
            let pattern = pattern
                .strip_suffix(":*")
                .or_else(|| pattern.strip_suffix('*'))
                .unwrap_or(pattern)
                .trim_end();
            (name.trim(), (!pattern.is_empty()).then_some(pattern))
        }
        None => (tool, None),
    }
}

/// Gemini CLI's name for a Claude Code tool.
fn gemini_name(name: &str) -> &str {
    match name {
        "Read" => "read_file",
        "Write" => "write_file",
        "Edit" | "MultiEdit" => "replace",
        "Bash" => "run_shell_command",
        "WebFetch" => "web_fetch",
        "WebSearch" => "google_web_search",
        "Glob" => "glob",
        "Grep" => "grep_search",
        "LS" => "list_directory",
        "Skill" => "activate_skill",
        own => own,
    }
}

/// Gemini CLI's `--allowed-tools` for a case.
pub fn gemini_allowed(allowed: &[String]) -> Vec<String> {
    let mut out = vec!["activate_skill".to_string()];
    for tool in allowed {
        let (name, pattern) = parse(tool);
        let name = gemini_name(name);
        let tool = match pattern {
            Some(pattern) => format!("{name}({pattern})"),
            None => name.to_string(),
        };
        if !out.contains(&tool) {
            out.push(tool);
        }
    }
    out
}

/// OpenCode's `permission` block for a case.
pub fn opencode_permission(allowed: &[String]) -> Value {
    let mut edit = false;
    let mut webfetch = false;
    let mut bash_all = false;
    let mut bash_patterns: Vec<String> = Vec::new();
    for tool in allowed {
        match parse(tool) {
            ("Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "write" | "edit" | "patch", _) => {
                edit = true
            }
            ("WebFetch" | "webfetch", _) => webfetch = true,
            ("Bash" | "bash", None) => bash_all = true,
            ("Bash" | "bash", Some(pattern)) => bash_patterns.push(format!("{pattern}*")),
            _ => {}
        }
    }
    let verdict = |allowed: bool| if allowed { "allow" } else { "deny" };
    let bash = if bash_all || bash_patterns.is_empty() {
        json!(verdict(bash_all))
    } else {
        let mut rules = serde_json::Map::new();
        rules.insert("*".into(), json!("deny"));
        for pattern in bash_patterns {
            rules.insert(pattern, json!("allow"));
        }
        Value::Object(rules)
    };
    json!({"edit": verdict(edit), "bash": bash, "webfetch": verdict(webfetch)})
}

/// Codex's `--sandbox` for a case.
pub fn codex_sandbox(allowed: &[String]) -> &'static str {
    let writes = allowed.iter().any(|tool| {
        matches!(
            parse(tool).0,
            "Write"
                | "Edit"
                | "MultiEdit"
                | "NotebookEdit"
                | "Bash"
                | "exec_command"
                | "apply_patch"
                | "shell"
        )
    });
    if writes {
        "workspace-write"
    } else {
        "read-only"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn claude_code_tools_become_gemini_tools() {
        assert_eq!(gemini_allowed(&[]), ["activate_skill"]);
        assert_eq!(
            gemini_allowed(&tools(&[
                "Write",
                "Bash(git diff:*)",
                "Bash(cat *)",
                "read_file"
            ])),
            [
                "activate_skill",
                "write_file",
                "run_shell_command(git diff)",
                "run_shell_command(cat)",
                "read_file"
            ]
        );
    }

    #[test]
    fn claude_code_tools_become_opencode_permissions() {
        assert_eq!(
            opencode_permission(&[]),
            json!({"edit": "deny", "bash": "deny", "webfetch": "deny"})
        );
        assert_eq!(
            opencode_permission(&tools(&["Write", "Bash(git diff:*)", "Bash(cat:*)"])),
            json!({"edit": "allow", "bash": {"*": "deny", "git diff*": "allow", "cat*": "allow"}, "webfetch": "deny"})
        );
        assert_eq!(
            opencode_permission(&tools(&["Bash", "Bash(cat:*)", "webfetch"]))["bash"],
            "allow"
        );
    }

    #[test]
    fn codex_writes_only_when_the_case_may() {
        assert_eq!(codex_sandbox(&[]), "read-only");
        assert_eq!(codex_sandbox(&tools(&["Read", "Grep"])), "read-only");
        assert_eq!(codex_sandbox(&tools(&["Write"])), "workspace-write");
        assert_eq!(codex_sandbox(&tools(&["Bash(cat:*)"])), "workspace-write");
    }
}
