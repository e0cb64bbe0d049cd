// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // SAFETY: the first thing the process does, before any other thread starts.
    unsafe {
        hone_app::keep_large_allocations_mapped();
        hone_app::paint_on_cpu();
        hone_app::skip_optimising_jits();
    }
    hone_app::run();
}
