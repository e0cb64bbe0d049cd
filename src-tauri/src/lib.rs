//! The Hone desktop app: a Tauri window over the `hone-core` engine.
//!
//! This crate is deliberately thin. The commands in [`commands`] confine the
//! paths they are given to the opened library, call the engine, and return
//! plain data ([`views`]); parsing, validation, rendering and token counting
//! all happen in `hone-core`, so the app and the `hone` CLI always agree.
//! Long work (opening a library of thousands of skills) runs on blocking
//! worker threads, never on the thread that drives the window.

mod agent;
mod baseline;
mod bench;
mod clients;
mod commands;
mod confirm;
mod diagnose;
mod editor;
mod engine;
mod events;
mod health;
mod installs;
mod ipc;
mod library;
mod models;
mod packs;
mod painting;
mod panel;
mod preview;
mod routing;
mod scripts;
mod security;
mod serving;
mod session;
mod settings;
mod stages;
mod state;
mod views;
mod window;

use tauri::Manager;

pub use engine::keep_large_allocations_mapped;
pub use painting::paint_on_cpu;
pub use scripts::skip_optimising_jits;

/// The commands the window may call; `build.rs` grants exactly these, and
/// a test checks they are the commands of [`ipc::builder`].
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
            app.manage(agent::AgentState::default());
            app.manage(bench::BenchState::default());
            app.manage(models::ModelInstallState::default());
            app.manage(clients::CaptureState::default());
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
        .invoke_handler(ipc::builder().invoke_handler())
        .run(tauri::generate_context!())
        .expect("the Hone window failed to start");
}
