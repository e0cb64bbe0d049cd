//! The typed boundary between the window and the app.
//!
//! One table, [`builder`], lists every command. It serves three purposes, so
//! they cannot drift apart: the app's invoke handler, the TypeScript bindings
//! (`ui/src/lib/bindings.ts`, generated from the commands' Rust signatures and
//! the `specta::Type` of every value that crosses), and the test that the
//! grant list in `capabilities/` names exactly these commands.
//!
//! The bindings are checked in, so the UI builds without Rust; a test
//! regenerates them in memory and fails when the checked-in file is stale:
//! refresh it with `HONE_WRITE_BINDINGS=1 cargo test -p hone-app --lib ipc`.
//!
//! Casing on the wire is snake_case throughout, so a value reads the same in
//! the window as in `hone`'s JSON output (`--format json`), which the CLI
//! promises not to change: fields as Rust names them (no `rename_all` to
//! camelCase), enum values in snake_case or kebab-case, and command arguments
//! too. Tauri reads arguments in camelCase unless told, so every command is
//! marked `#[specta::specta]` then `#[tauri::command(rename_all = "snake_case")]`
//! (in that order `specta` sees the `command` attribute and names arguments
//! the same way). tauri-specta rc.26 still writes every argument of the
//! bindings in camelCase (specta-rs/specta#453 leaves that to a later
//! release), so an argument is one word (`user`, `window`, `edited`), or a
//! struct whose fields serde names. A test walks the bindings and fails on
//! any camelCase key, value or argument.
//!
//! Errors cross as a [`CommandError`]: a kind the window can branch on, a
//! message for the user and, when the error is about a place in a file, that
//! place.

use hone_core::eval::suite::SuiteError;
use serde::{Deserialize, Serialize};
use tauri_specta::{ErrorHandlingMode, collect_commands};

use crate::{
    agent, baseline, bench, clients, confirm, diagnose, editor, health, installs, library, models,
    packs, panel, preview, security, serving, stages, window,
};

/// Why a command failed, for the window to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub kind: ErrorKind,
    /// A sentence for the user, complete without the position.
    pub message: String,
    /// Where in which file the problem is, when it is in a file.
    pub position: Option<SourcePosition>,
}

/// What kind of failure a [`CommandError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The input cannot be used: a bad name, a malformed file.
    Invalid,
    /// A path outside the opened library, or another request Hone refuses.
    Refused,
    /// A file or folder the command needs does not exist.
    NotFound,
    /// Reading or writing failed.
    Io,
    /// What the command needs is not there yet: no library, no model.
    Unavailable,
    /// The file changed on disk since the window read it: ask before writing.
    Conflict,
    /// Anything else.
    Failed,
}

/// A place in a file: 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct SourcePosition {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            position: None,
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, message)
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unavailable, message)
    }

    /// Any other error, by its message.
    pub fn failed(error: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Failed, error.to_string())
    }

    /// An I/O failure, as `NotFound` when that is what it was.
    pub fn io(error: &std::io::Error) -> Self {
        let kind = match error.kind() {
            std::io::ErrorKind::NotFound => ErrorKind::NotFound,
            _ => ErrorKind::Io,
        };
        Self::new(kind, error.to_string())
    }
}

/// A message without more to say about it: the commands' catch-all.
impl From<String> for CommandError {
    fn from(message: String) -> Self {
        Self::new(ErrorKind::Failed, message)
    }
}

impl From<&str> for CommandError {
    fn from(message: &str) -> Self {
        Self::new(ErrorKind::Failed, message)
    }
}

/// A suite file that does not parse: its message, and where.
impl From<SuiteError> for CommandError {
    fn from(error: SuiteError) -> Self {
        Self {
            kind: ErrorKind::Invalid,
            position: Some(SourcePosition {
                path: error.path.display().to_string(),
                line: error.line,
                column: error.column,
            }),
            message: error.message,
        }
    }
}

/// Every command the window may call, and the types they exchange.
pub fn builder() -> tauri_specta::Builder<tauri::Wry> {
    tauri_specta::Builder::<tauri::Wry>::new()
        .commands(collect_commands![
            library::startup,
            health::library_health,
            health::set_library_target,
            window::mark_ready,
            library::open_library,
            library::forget_recent,
            editor::open_skill,
            editor::analyze,
            editor::frontmatter_fields,
            editor::set_field,
            editor::apply_fix,
            preview::preview,
            preview::read_resource,
            editor::save_skill,
            library::create_skill,
            library::rename_skill,
            library::delete_skill,
            library::library_costs,
            stages::library_stage_costs,
            window::subscribe,
            window::set_dirty,
            window::close_window,
            panel::ranker_status,
            panel::embedding_cancel,
            models::model_install,
            models::model_install_cancel,
            panel::rank_query,
            panel::set_competing_builtins,
            panel::list_suites,
            panel::suite_cases,
            panel::unknown_skills,
            panel::run_eval,
            panel::edit_suite,
            panel::create_suite,
            panel::import_trigger_evals,
            baseline::list_named_runs,
            baseline::save_named_run,
            baseline::delete_named_run,
            baseline::compare_with_baseline,
            packs::export_pack,
            packs::check_export,
            packs::plan_import,
            packs::import_pack,
            packs::pack_security,
            installs::plan_install,
            installs::install_skills,
            installs::uninstall_skills,
            security::library_security,
            serving::serve_start,
            serving::serve_stop,
            serving::serve_status,
            diagnose::why_lost,
            diagnose::library_map,
            diagnose::suggest_edits,
            diagnose::calibrate_threshold,
            agent::agent_providers,
            agent::agent_set_key,
            agent::agent_forget_key,
            agent::agent_preview,
            agent::agent_run_eval,
            agent::agent_cancel,
            agent::agent_ask,
            confirm::confirm_preview,
            confirm::confirm_suggestions,
            bench::bench_suites,
            bench::bench_suite,
            bench::bench_preview,
            bench::bench_run,
            bench::bench_agents,
            bench::bench_cancel,
            bench::bench_keep,
            bench::bench_add_case,
            clients::clients_list,
            clients::clients_verdicts,
            clients::clients_capture,
            clients::clients_capture_cancel,
        ])
        .error_handling(ErrorHandlingMode::Result)
        // One TypeScript type per Rust type: the window reads what the app
        // sends and the few argument types are sent as the app reads them.
        .disable_serde_phases()
        // Sizes, counts and milliseconds: far below 2^53, so `number` is exact.
        .dangerously_cast_bigints_to_number()
        // Scores, similarities and thresholds are finite by construction, so
        // a float is a `number`, never the `null` serde writes for NaN.
        .semantic_types(
            specta_typescript::semantic::Configuration::empty().enable_lossless_floats(),
        )
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    const BINDINGS: &str = "ui/src/lib/bindings.ts";

    fn typescript() -> specta_typescript::Typescript {
        specta_typescript::Typescript::default().header(
            "// Generated from the app's Rust commands by src-tauri/src/ipc.rs. Do not edit:\n\
             // refresh with `HONE_WRITE_BINDINGS=1 cargo test -p hone-app --lib ipc`.",
        )
    }

    /// The checked-in bindings are what the Rust side generates now.
    #[test]
    fn bindings_are_up_to_date() {
        let checked_in = Path::new(env!("CARGO_MANIFEST_DIR")).join(BINDINGS);
        let scratch = tempfile::tempdir().unwrap();
        let fresh = scratch.path().join("bindings.ts");
        builder().export(typescript(), &fresh).unwrap();
        let fresh = std::fs::read_to_string(&fresh).unwrap();
        if std::env::var_os("HONE_WRITE_BINDINGS").is_some() {
            std::fs::write(&checked_in, &fresh).unwrap();
        }
        let old = std::fs::read_to_string(&checked_in).unwrap_or_default();
        assert!(
            old == fresh,
            "{BINDINGS} is stale: refresh it with \
             `HONE_WRITE_BINDINGS=1 cargo test -p hone-app --lib ipc` and commit it"
        );
    }

    /// No key crosses the wire in camelCase: walks the generated bindings, the
    /// TypeScript twin of every value and command, for object keys, enum
    /// values and invoke arguments with an uppercase letter.
    #[test]
    fn the_wire_has_one_casing() {
        let bindings =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(BINDINGS)).unwrap();
        let (commands, rest) = bindings.split_once("/* Types */").unwrap();
        let (types, _runtime) = rest.split_once("/* Tauri Specta runtime */").unwrap();
        let has_upper = |s: &str| s.chars().any(|c| c.is_ascii_uppercase());
        let mut camel = Vec::new();

        // Outside comments, a quoted string in a type is an enum value, and
        // `name:` or `name?:` is an object key.
        for (i, piece) in without_comments(types).split('"').enumerate() {
            if i % 2 == 1 {
                if has_upper(piece) {
                    camel.push(format!("value \"{piece}\""));
                }
            } else {
                let keys = object_keys(piece).into_iter().filter(|k| has_upper(k));
                camel.extend(keys.map(|k| format!("key {k}")));
            }
        }

        // `__TAURI_INVOKE("command", { argument, … })`: the keys Tauri reads.
        let mut invokes = 0;
        for call in commands.split("__TAURI_INVOKE").skip(1) {
            let Some((_, call)) = call.split_once("(\"") else {
                continue;
            };
            invokes += 1;
            let (command, call) = call.split_once('"').unwrap();
            let Some(arguments) = call.strip_prefix(", { ") else {
                continue;
            };
            let (arguments, _) = arguments.split_once(" }").unwrap();
            let camel_arguments = arguments.split(", ").filter(|a| has_upper(a));
            camel.extend(camel_arguments.map(|a| format!("argument {a} of {command}")));
        }
        assert!(invokes > 10, "no commands found in {BINDINGS}");
        assert!(
            camel.is_empty(),
            "camelCase on the wire: {camel:?}. Name fields as Rust does (no rename_all to \
             camelCase), enum values in snake_case, and command arguments in one word: \
             tauri-specta writes `a_b` as `aB`, which a snake_case command does not read"
        );
    }

    /// `code` without its `/* … */` comments.
    fn without_comments(code: &str) -> String {
        let mut kept = String::new();
        let mut rest = code;
        while let Some(open) = rest.find("/*") {
            kept.push_str(&rest[..open]);
            rest = rest[open..].split_once("*/").map_or("", |(_, after)| after);
        }
        kept.push_str(rest);
        kept
    }

    /// The identifiers in `code` followed by `:` or `?:`.
    fn object_keys(code: &str) -> Vec<&str> {
        let mut keys = Vec::new();
        let mut start = None;
        for (i, byte) in code.bytes().enumerate() {
            let in_identifier = byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$';
            match (in_identifier, start) {
                (true, None) => start = Some(i),
                (false, Some(from)) => {
                    let after = &code[i..];
                    if after.starts_with(':') || after.starts_with("?:") {
                        keys.push(&code[from..i]);
                    }
                    start = None;
                }
                _ => {}
            }
        }
        keys
    }

    /// Reads the command names out of a builder's configuration.
    struct CommandNames(std::sync::Mutex<Vec<String>>);

    impl tauri_specta::LanguageExt for &CommandNames {
        type Error = std::io::Error;

        fn export(
            self,
            cfg: &tauri_specta::BuilderConfiguration,
            _: &Path,
        ) -> Result<(), Self::Error> {
            let names = cfg.commands.iter().map(|c| c.name().to_string());
            self.0.lock().unwrap().extend(names);
            Ok(())
        }
    }

    /// Every command of the table is granted in `capabilities/`, through the
    /// list `build.rs` generates permissions from, and nothing else is.
    #[test]
    fn granted_commands_match_the_table() {
        let names = CommandNames(Default::default());
        builder().export(&names, PathBuf::new()).unwrap();
        let mut table = names.0.into_inner().unwrap();
        let mut granted: Vec<String> = crate::command_names::COMMANDS
            .iter()
            .map(|s| s.to_string())
            .collect();
        table.sort();
        granted.sort();
        assert_eq!(table, granted);

        let capability = include_str!("../../capabilities/default.json");
        for name in granted {
            let permission = format!("\"allow-{}\"", name.replace('_', "-"));
            assert!(
                capability.contains(&permission),
                "{permission} is not granted"
            );
        }
    }

    #[test]
    fn errors_cross_as_tagged_objects() {
        let plain = CommandError::invalid("a suite name is 1–64 letters");
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            serde_json::json!({"kind": "invalid", "message": "a suite name is 1–64 letters", "position": null})
        );
        let placed = CommandError::from(SuiteError {
            path: PathBuf::from("/lib/evals/routing.yaml"),
            line: 3,
            column: 5,
            message: "`expect` must be a list".into(),
        });
        assert_eq!(
            serde_json::to_value(&placed).unwrap(),
            serde_json::json!({
                "kind": "invalid",
                "message": "`expect` must be a list",
                "position": {"path": "/lib/evals/routing.yaml", "line": 3, "column": 5},
            })
        );
        let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        assert_eq!(CommandError::io(&missing).kind, ErrorKind::NotFound);
        let back: CommandError =
            serde_json::from_value(serde_json::to_value(&placed).unwrap()).unwrap();
        assert_eq!(back, placed);
    }
}
