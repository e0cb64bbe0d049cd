//! The Hone desktop app: a Tauri window over the `hone-core` engine.
//!
//! This crate is deliberately thin. The commands in [`commands`] confine the
//! paths they are given to the opened library, call the engine, and return
//! plain data ([`views`]); parsing, validation, rendering and token counting
//! all happen in `hone-core`, so the app and the `hone` CLI always agree.
//! Long work (opening a library of thousands of skills) runs on blocking
//! worker threads, never on the thread that drives the window.

mod commands;
mod diagnose;
mod engine;
mod packs;
mod panel;
mod routing;
mod session;
mod settings;
mod views;
mod watch;

use tauri::Manager;

/// The commands the window may call; `build.rs` grants exactly these.
#[cfg_attr(not(test), allow(dead_code))]
mod command_names {
    include!("command_names.rs");
}

pub fn run() {
    let started = std::time::Instant::now();
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .setup(move |app| {
            let config_dir = app.path().app_config_dir().ok();
            let state = commands::AppState::new(config_dir, started);
            state.open_early();
            app.manage(state);
            Ok(())
        })
        .register_uri_scheme_protocol(commands::PREVIEW_SCHEME, |ctx, _request| {
            commands::preview_response(ctx.app_handle())
        })
        .register_uri_scheme_protocol("hone-resource", |ctx, request| {
            commands::resource_response(ctx.app_handle(), &request)
        })
        .on_window_event(commands::on_window_event)
        .invoke_handler(tauri::generate_handler![
            commands::startup,
            commands::mark_ready,
            commands::open_library,
            commands::forget_recent,
            commands::open_skill,
            commands::analyze,
            commands::frontmatter_fields,
            commands::set_field,
            commands::apply_fix,
            commands::preview,
            commands::read_resource,
            commands::save_skill,
            commands::create_skill,
            commands::rename_skill,
            commands::delete_skill,
            commands::library_costs,
            commands::subscribe,
            commands::set_dirty,
            commands::close_window,
            panel::ranker_status,
            panel::rank_query,
            panel::list_suites,
            panel::suite_cases,
            panel::unknown_skills,
            panel::run_eval,
            panel::edit_suite,
            panel::create_suite,
            panel::import_trigger_evals,
            packs::export_pack,
            packs::plan_import,
            packs::import_pack,
            diagnose::why_lost,
            diagnose::library_map,
            diagnose::suggest_edits,
            diagnose::calibrate_threshold,
        ])
        .run(tauri::generate_context!())
        .expect("the Hone window failed to start");
}

#[cfg(test)]
mod tests {
    /// Every registered handler must be granted in `capabilities/`, and the
    /// grant list must not name a command that does not exist.
    #[test]
    fn granted_commands_match_the_handlers() {
        let source = include_str!("lib.rs");
        let start = source.find("generate_handler![").unwrap();
        let end = start + source[start..].find(']').unwrap();
        let mut handlers: Vec<&str> = source[start + "generate_handler![".len()..end]
            .split(',')
            .filter_map(|s| s.trim().rsplit("::").next())
            .filter(|s| !s.is_empty())
            .collect();
        let mut names = super::command_names::COMMANDS.to_vec();
        handlers.sort();
        names.sort();
        assert_eq!(handlers, names);

        let capability = include_str!("../../capabilities/default.json");
        for name in names {
            let permission = format!("\"allow-{}\"", name.replace('_', "-"));
            assert!(
                capability.contains(&permission),
                "{permission} is not granted"
            );
        }
    }
}
