//! How WebKitGTK paints the window: on the CPU, with no GL (Linux).
//!
//! A window of forms, lists and a text editor needs no GPU compositing, and
//! merely being able to use it costs memory: three probes that run even with
//! WebKit's compositing off load the GL driver into the app's process (Mesa's
//! on a machine with no GPU, its LLVM alone 44 MB of RSS; a GPU's own driver
//! on a desktop). So the app turns compositing off and answers the probes
//! before GTK and WebKit start:
//!
//! - `WEBKIT_DISABLE_COMPOSITING_MODE=1`: WebKit paints on the CPU into shared
//!   memory that the window shows (under Xvfb, as `scripts/with-display.sh`
//!   has always run the app, this is also the faster way: frames are not
//!   paced by a software rasteriser).
//! - `WEBKIT_DISABLE_DMABUF_RENDERER=1`: otherwise WebKit opens an EGL display
//!   to learn which buffers it could share with its web process.
//! - `WEBKIT_WEB_RENDER_DEVICE_FILE=/dev/null`: otherwise WebKit opens an EGL
//!   display to ask which GPU render node to hand its web process; with
//!   nothing drawn on a GPU, it names none.
//! - `GDK_GL=disable`: otherwise GTK 3 probes GLX as it opens the display.
//!
//! Each probe left unanswered loads the driver again. Measured on the bundled
//! library under Xvfb (WebKitGTK 2.50.6, Mesa 22.3): the app's process from
//! 214 to 155 MB of RSS, the window's pixels unchanged. WebKit's web process
//! still loads Mesa, whatever it is told (docs/benchmarks/index.md, "Memory").
//!
//! A variable that is already set is left as it is, and someone who asks for
//! WebKit's GL compositing (`WEBKIT_DISABLE_COMPOSITING_MODE=0`, as the
//! end-to-end stories do) gets WebKit's defaults: nothing is set. The
//! variables are inherited by what the app starts (WebKit's processes, and a
//! browser that opening a link may start), which then paints on the CPU too.

use std::ffi::OsString;

/// What the app sets, and to what, unless already set.
const CPU_PAINTING: [(&str, &str); 4] = [
    ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
    ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
    ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/null"),
    ("GDK_GL", "disable"),
];

/// The variables to set, given how each is set now (`current`).
fn to_set(current: impl Fn(&str) -> Option<OsString>) -> Vec<(&'static str, &'static str)> {
    if current("WEBKIT_DISABLE_COMPOSITING_MODE").is_some_and(|v| v == "0") {
        return Vec::new();
    }
    CPU_PAINTING
        .into_iter()
        .filter(|(name, _)| current(name).is_none())
        .collect()
}

/// Makes WebKitGTK and GTK paint on the CPU with no GL (see the module's doc);
/// does nothing on other systems.
///
/// # Safety
///
/// Sets environment variables: call it before any other thread starts (first
/// thing in `main`), as no thread may read the environment meanwhile.
pub unsafe fn paint_on_cpu() {
    if cfg!(target_os = "linux") {
        for (name, value) in to_set(|name| std::env::var_os(name)) {
            // SAFETY: the caller guarantees no other thread exists yet.
            unsafe { std::env::set_var(name, value) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            vars.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn an_unset_environment_gets_every_variable() {
        assert_eq!(to_set(given(&[])), CPU_PAINTING.to_vec());
    }

    #[test]
    fn variables_already_set_are_kept() {
        let set = to_set(given(&[
            ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
            ("GDK_GL", "always"),
        ]));
        assert_eq!(
            set,
            [
                ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
                ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/null"),
            ]
        );
    }

    #[test]
    fn asking_for_gl_compositing_sets_nothing() {
        assert!(to_set(given(&[("WEBKIT_DISABLE_COMPOSITING_MODE", "0")])).is_empty());
    }
}
