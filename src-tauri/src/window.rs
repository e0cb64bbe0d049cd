//! The window's side of the app: its event channel, readiness, and closing
//! with unsaved edits.

use std::sync::atomic::Ordering;

use tauri::ipc::Channel;
use tauri::{Manager, State, Window, WindowEvent};

use crate::commands::{CommandError, CommandResult, lock};
use crate::events::AppEvent;
use crate::state::AppState;

/// The window reports that it became usable; answers how long after the
/// process started that was (the first report counts).
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn mark_ready(state: State<'_, AppState>) -> u64 {
    let mut ready = lock(&state.window.ready_ms);
    *ready.get_or_insert_with(|| {
        let ms = state.window.started.elapsed().as_millis() as u64;
        eprintln!("hone: ready {ms} ms after start");
        ms
    })
}

/// Registers the window's channel for library changes and close requests.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn subscribe(state: State<'_, AppState>, events: Channel<AppEvent>) {
    *lock(&state.window.events) = Some(events);
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn set_dirty(state: State<'_, AppState>, dirty: bool) {
    state.window.dirty.store(dirty, Ordering::Relaxed);
}

/// Closes the window after the user chose to discard or saved.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn close_window(state: State<'_, AppState>, window: Window) -> CommandResult<()> {
    state.window.dirty.store(false, Ordering::Relaxed);
    window.close().map_err(CommandError::failed)
}

/// Closing with unsaved edits asks first: the window shows the question and
/// calls [`close_window`] if the user agrees.
pub fn on_window_event(window: &Window, event: &WindowEvent) {
    if let WindowEvent::CloseRequested { api, .. } = event {
        let state = window.state::<AppState>();
        if state.window.dirty.load(Ordering::Relaxed) {
            api.prevent_close();
            state.send(AppEvent::CloseRequested);
        }
    }
}
