// The app's IPC commands, included by both the build script (to generate their
// permissions) and the app (to test that the list matches the handlers).
pub const COMMANDS: &[&str] = &[
    "startup",
    "open_library",
    "forget_recent",
    "open_skill",
    "analyze",
    "set_field",
    "apply_fix",
    "preview",
    "read_resource",
    "save_skill",
    "create_skill",
    "rename_skill",
    "delete_skill",
    "library_costs",
    "subscribe",
    "set_dirty",
    "close_window",
];
