//! Generates the permission set of the app's own commands, so that the
//! capability file grants each of them by name (`allow-open-library`) and a
//! command missing from this list cannot be called from the window at all.

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(hone_app_commands::COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
        .expect("failed to run the Tauri build script");
}

/// The command list shared with `src-tauri/src/lib.rs` (which checks at
/// compile time that it matches the registered handlers).
mod hone_app_commands {
    include!("src/command_names.rs");
}
