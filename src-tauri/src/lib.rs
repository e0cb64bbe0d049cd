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
mod editor;
mod engine;
mod events;
mod health;
mod library;
mod packs;
mod panel;
mod preview;
mod routing;
mod serving;
mod session;
mod settings;
mod state;
mod views;
mod window;

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
            let state = state::AppState::new(config_dir, started);
            state.open_early();
            state.on_library_switch(|app| {
                app.state::<serving::Serving>()
                    .stop("another library was opened")
            });
            app.manage(state);
            app.manage(serving::Serving::default());
            Ok(())
        })
        .register_uri_scheme_protocol(preview::PREVIEW_SCHEME, |ctx, _request| {
            preview::preview_response(ctx.app_handle())
        })
        .register_uri_scheme_protocol("hone-resource", |ctx, request| {
            preview::resource_response(ctx.app_handle(), &request)
        })
        .on_window_event(|window, event| {
            window::on_window_event(window, event);
            serving::on_window_event(window, event);
        })
        .invoke_handler(tauri::generate_handler![
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
            window::subscribe,
            window::set_dirty,
            window::close_window,
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
            serving::serve_start,
            serving::serve_stop,
            serving::serve_status,
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
