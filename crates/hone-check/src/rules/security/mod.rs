//! `HS901`–`HS910`: security. Whether a skill hides instructions, turns the
//! agent against its user, or ships scripts that exfiltrate, download and
//! run, obfuscate, persist or destroy. Each rule's module here holds its
//! documentation only. The detectors are [`crate::security`]'s
//! (`security::detect`), where the engine that reads the skill's files runs
//! them and turns their hits into findings and a verdict: the engine names
//! the rules, so the rules do not import it. The rules do not run inside
//! `hone check`'s per-skill pass (which reads no file beside `SKILL.md`):
//! `hone check --security` and `hone scan` run them.

pub(crate) mod agent_instruction;
pub(crate) mod broad_tool_approval;
pub(crate) mod destructive_command;
pub(crate) mod download_and_execute;
pub(crate) mod hidden_text;
pub(crate) mod load_time_command;
pub(crate) mod name_impersonation;
pub(crate) mod obfuscated_code;
pub(crate) mod persistence;
pub(crate) mod secret_exfiltration;
