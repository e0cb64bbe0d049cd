//! The preview frame and the resource viewer: the rendered body and the
//! library's files, served under policies that let nothing run.

use std::path::Path;

use tauri::{AppHandle, Manager, State};

use crate::commands::{CommandError, CommandResult, lock};
use crate::editor::skill_with_text;
use crate::engine;
use crate::session::display;
use crate::state::AppState;
use crate::views::Preview;

pub const PREVIEW_SCHEME: &str = "hone-preview";

/// Largest text resource the viewer opens, to keep the window responsive.
const MAX_RESOURCE_BYTES: u64 = 2 * 1024 * 1024;

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn preview(
    state: State<'_, AppState>,
    path: String,
    text: String,
    argument: String,
) -> CommandResult<Preview> {
    let session = state.session();
    let path = session.confine(&path)?;
    let skill = skill_with_text(&session, &path, text);
    let html = engine::render_html(&skill);
    let version = {
        let mut stored = lock(&state.preview.html);
        *stored = (stored.0 + 1, html);
        stored.0
    };
    Ok(Preview {
        url: format!("{PREVIEW_SCHEME}://localhost/{version}"),
        resources: engine::resource_views(&skill, &state.library.resource_tokens(&skill)),
        substitutions: hone_core::substitute::substitutions(&skill, &argument),
        invocation: hone_core::substitute::invocation(&skill, &argument, None),
    })
}

/// The preview frame's document: the engine's sanitised HTML under a policy
/// that allows no script, no network and no plug-in, whatever the HTML says.
pub fn preview_response(app: &AppHandle) -> tauri::http::Response<Vec<u8>> {
    let body = lock(&app.state::<AppState>().preview.html).1.clone();
    let policy = "default-src 'none'; style-src 'unsafe-inline'; img-src data: hone-resource:";
    let page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\"><style>{}</style></head><body>{body}</body></html>",
        engine::PREVIEW_STYLE
    );
    tauri::http::Response::builder()
        .header("Content-Type", "text/html; charset=utf-8")
        .header("Content-Security-Policy", policy)
        .body(page.into_bytes())
        .expect("static headers are valid")
}

/// A file of the opened library for the preview frame: images shown in the
/// body, and links to resources opened in the frame. Only confined files are
/// served, text always as plain text, never as a page that could run.
pub fn resource_response(
    app: &AppHandle,
    request: &tauri::http::Request<Vec<u8>>,
) -> tauri::http::Response<Vec<u8>> {
    let response = |status: u16, content_type: &str, body: Vec<u8>| {
        tauri::http::Response::builder()
            .status(status)
            .header("Content-Type", content_type)
            .header(
                "Content-Security-Policy",
                "sandbox; default-src 'none'; style-src 'unsafe-inline'",
            )
            .header("X-Content-Type-Options", "nosniff")
            .body(body)
            .expect("static headers are valid")
    };
    let url = request.uri().to_string();
    let served = hone_core::render::resource_path(&url, hone_core::render::RESOURCE_BASE)
        .ok_or_else(|| format!("not a resource address: {url}"))
        .and_then(|path| {
            let session = app.state::<AppState>().session();
            session.confine(&display(&path)).map_err(|e| e.message)
        })
        .and_then(|path| {
            let size = std::fs::metadata(&path).map_err(|e| e.to_string())?.len();
            if size > MAX_RESOURCE_BYTES {
                return Err(format!("{} is too large to show", path.display()));
            }
            let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
            Ok((resource_type(&path, &bytes), bytes))
        });
    match served {
        Ok((content_type, bytes)) => response(200, content_type, bytes),
        Err(message) => response(404, "text/plain; charset=utf-8", message.into_bytes()),
    }
}

/// The content type a resource is served as: images by their extension,
/// anything else as plain text (or bytes when it is not UTF-8).
fn resource_type(path: &Path, bytes: &[u8]) -> &'static str {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("svg") => "image/svg+xml",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn read_resource(state: State<'_, AppState>, path: String) -> CommandResult<String> {
    let path = state.session().confine(&path)?;
    let metadata = std::fs::metadata(&path).map_err(|e| CommandError::io(&e))?;
    if metadata.len() > MAX_RESOURCE_BYTES {
        return Err(CommandError::invalid(format!(
            "{} is too large to view ({} bytes)",
            path.display(),
            metadata.len()
        )));
    }
    let bytes = std::fs::read(&path).map_err(|e| CommandError::io(&e))?;
    String::from_utf8(bytes)
        .map_err(|_| CommandError::invalid(format!("{} is not a text file", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_served_as_images_or_plain_text() {
        let page = Path::new("notes.html");
        assert_eq!(
            resource_type(page, b"<script>"),
            "text/plain; charset=utf-8"
        );
        assert_eq!(resource_type(Path::new("a.PNG"), &[0x89]), "image/png");
        assert_eq!(
            resource_type(Path::new("blob"), &[0xff, 0xfe, 0xfd]),
            "application/octet-stream"
        );
    }
}
