//! "Serve this library": the open library served to agents over MCP
//! (Streamable HTTP on loopback) from inside the app, by the same code as
//! `hone serve` (`crates/hone-serve`).
//!
//! The server runs on a thread and runtime of its own, so serving never
//! competes with the window's commands for threads, and stopping it is
//! cancelling one token. What it reports (its lines, each answered request)
//! is kept here, the last [`LOG_CAPACITY`] entries, and the panel polls for
//! what is new: the log outlives the panel being closed, and a stopped
//! server's log stays readable until the next start. Serving stops when the
//! library is switched (the server would serve the old one) and when the
//! window closes.

use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use hone_core::rank::RankerKind;
use hone_serve::catalog::CatalogOptions;
use hone_serve::config::{self, Client, Registration};
use hone_serve::{Answered, HttpOptions, Monitor, Observer, Ready, ServeOptions, Transport};
use serde::Serialize;
use tauri::{AppHandle, Manager, State};
use tokio_util::sync::CancellationToken;

use crate::commands::{AppState, CommandError, CommandResult, lock};

/// Entries of the request log kept for the panel.
pub const LOG_CAPACITY: usize = 500;

/// The port offered first: the one the README's `hone serve --http` uses.
pub const DEFAULT_PORT: u16 = 8808;

/// The app's server, if one was started; kept after it stops for its log.
#[derive(Default)]
pub struct Serving {
    current: Mutex<Option<Arc<Run>>>,
}

/// One start of the server.
struct Run {
    cancel: CancellationToken,
    roots: Vec<PathBuf>,
    strict: bool,
    token: Option<String>,
    shared: Mutex<Shared>,
}

#[derive(Default)]
struct Shared {
    phase: Phase,
    addr: Option<SocketAddr>,
    monitor: Option<Monitor>,
    log: VecDeque<LogEntry>,
    next_seq: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Never started.
    #[default]
    Stopped,
    /// Reading the library and building its ranker.
    Starting,
    Running,
    /// It stopped on its own: the log's last entry says why.
    Failed,
}

/// One line of the panel's log.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LogEntry {
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// `None` for a line about the server's life.
    pub request: Option<Answered>,
    pub text: String,
}

/// A `--print-config` snippet for one client.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Snippet {
    pub client: &'static str,
    pub label: &'static str,
    pub how: &'static str,
    pub text: String,
}

/// What the panel shows.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ServeStatus {
    pub phase: Phase,
    /// `http://127.0.0.1:PORT/mcp` while running.
    pub url: Option<String>,
    pub token: Option<String>,
    pub strict: bool,
    pub skills: Option<usize>,
    pub excluded: Option<usize>,
    pub clients: Option<usize>,
    pub ranker: Option<RankerKind>,
    pub threshold: Option<f32>,
    /// The folders served (or that would be).
    pub roots: Vec<String>,
    pub snippets: Vec<Snippet>,
    /// The `hone` the snippets start, and whether it was found.
    pub program: String,
    pub program_found: bool,
    /// Log entries after the `since` asked for, oldest first.
    pub log: Vec<LogEntry>,
    pub default_port: u16,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Shared {
    fn push(&mut self, text: String, request: Option<Answered>) {
        if self.log.len() == LOG_CAPACITY {
            self.log.pop_front();
        }
        self.next_seq += 1;
        self.log.push_back(LogEntry {
            seq: self.next_seq,
            at_ms: now_ms(),
            request,
            text,
        });
    }
}

/// The server's reports, into the run's log.
struct PanelObserver(Arc<Run>);

impl Observer for PanelObserver {
    fn log(&self, line: &str) {
        lock(&self.0.shared).push(line.to_owned(), None);
    }

    fn ready(&self, ready: Ready) {
        let mut shared = lock(&self.0.shared);
        // A stop that came first wins.
        if shared.phase == Phase::Starting {
            shared.phase = Phase::Running;
        }
        shared.addr = ready.addr;
        shared.monitor = Some(ready.monitor);
    }

    fn answered(&self, answered: Answered) {
        let text = match &answered.error {
            None => format!("{} {}", answered.method, answered.detail),
            Some(error) => format!("{} {}: {error}", answered.method, answered.detail),
        };
        lock(&self.0.shared).push(text, Some(answered));
    }
}

impl Serving {
    /// Stops the server, if one runs; its log stays.
    pub fn stop(&self, why: &str) {
        let run = lock(&self.current).clone();
        if let Some(run) = run {
            let mut shared = lock(&run.shared);
            if matches!(shared.phase, Phase::Starting | Phase::Running) {
                run.cancel.cancel();
                shared.phase = Phase::Stopped;
                shared.monitor = None;
                shared.push(format!("stopped: {why}"), None);
            }
        }
    }

    fn start(
        &self,
        roots: Vec<PathBuf>,
        port: u16,
        strict: bool,
        token: bool,
    ) -> CommandResult<()> {
        // What `hone serve` on the same library would use: its remembered target.
        let target =
            hone_core::library_settings::library_target(roots.first().map(PathBuf::as_path), None)
                .map_err(|e| e.to_string())?;
        self.stop("started again");
        let token = token.then(config::new_token).transpose()?;
        let run = Arc::new(Run {
            cancel: CancellationToken::new(),
            roots: roots.clone(),
            strict,
            token: token.clone(),
            shared: Mutex::new(Shared {
                phase: Phase::Starting,
                ..Shared::default()
            }),
        });
        let options = ServeOptions {
            catalog: CatalogOptions {
                roots,
                target,
                strict,
                serve_dangerous: false,
            },
            ranker: None,
            threshold: None,
            model: None,
            view: hone_core::rank::RankView::Retrieval,
            builtins: None,
        };
        let transport = Transport::Http(HttpOptions {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            listen: false,
            token,
            allowed_origins: Vec::new(),
        });
        let observer: Arc<dyn Observer> = Arc::new(PanelObserver(run.clone()));
        let thread_run = run.clone();
        std::thread::Builder::new()
            .name("hone-serve".into())
            .spawn(move || {
                let outcome = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    // Ranking and reading run on blocking threads; a few per core is plenty.
                    .max_blocking_threads(8)
                    .thread_name("hone-serve")
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())
                    .and_then(|runtime| {
                        let cancel = thread_run.cancel.clone();
                        let outcome = runtime
                            .block_on(hone_serve::serve(options, transport, cancel, observer));
                        runtime.shutdown_background();
                        outcome
                    });
                let mut shared = lock(&thread_run.shared);
                shared.monitor = None;
                if matches!(shared.phase, Phase::Starting | Phase::Running) {
                    match outcome {
                        Ok(()) => {
                            shared.phase = Phase::Stopped;
                            shared.push("stopped".into(), None);
                        }
                        Err(err) => {
                            shared.phase = Phase::Failed;
                            shared.push(format!("cannot serve: {err}"), None);
                        }
                    }
                }
            })
            .map_err(|e| format!("cannot start the server's thread: {e}"))?;
        *lock(&self.current) = Some(run);
        Ok(())
    }

    fn status(&self, app_roots: Vec<PathBuf>, since: u64) -> ServeStatus {
        let run = lock(&self.current).clone();
        let program = hone_program();
        let program_found = program.is_some();
        let program = program.unwrap_or_else(|| PathBuf::from("hone"));
        let Some(run) = run else {
            let snippets = snippets(&program, &app_roots, false, None, false);
            return ServeStatus {
                phase: Phase::Stopped,
                url: None,
                token: None,
                strict: false,
                skills: None,
                excluded: None,
                clients: None,
                ranker: None,
                threshold: None,
                roots: app_roots.iter().map(|r| r.display().to_string()).collect(),
                snippets,
                program: program.display().to_string(),
                program_found,
                log: Vec::new(),
                default_port: DEFAULT_PORT,
            };
        };
        let shared = lock(&run.shared);
        let running = shared.phase == Phase::Running;
        let addr = shared.addr.filter(|_| running);
        let monitor = shared.monitor.as_ref().filter(|_| running);
        ServeStatus {
            phase: shared.phase,
            url: addr.map(|a| format!("http://{a}{}", hone_serve::http::ENDPOINT)),
            token: run.token.clone().filter(|_| running),
            strict: run.strict,
            skills: monitor.map(Monitor::skills),
            excluded: monitor.map(Monitor::excluded),
            clients: monitor.map(Monitor::clients),
            ranker: monitor.map(Monitor::ranker),
            threshold: monitor.map(Monitor::threshold),
            roots: run.roots.iter().map(|r| r.display().to_string()).collect(),
            snippets: snippets(&program, &run.roots, run.strict, addr, run.token.is_some()),
            program: program.display().to_string(),
            program_found,
            log: shared
                .log
                .iter()
                .filter(|e| e.seq > since)
                .cloned()
                .collect(),
            default_port: DEFAULT_PORT,
        }
    }
}

/// The snippets of `hone serve --print-config`: for the running server's
/// address when there is one, else ones that start `hone serve` themselves.
fn snippets(
    program: &std::path::Path,
    roots: &[PathBuf],
    strict: bool,
    http: Option<SocketAddr>,
    token: bool,
) -> Vec<Snippet> {
    let registration = Registration {
        program: program.to_owned(),
        roots: roots.to_vec(),
        options: if strict {
            vec!["--strict".into()]
        } else {
            Vec::new()
        },
        http,
        token,
    };
    Client::ALL
        .into_iter()
        .map(|client| Snippet {
            client: client.as_str(),
            label: client.label(),
            how: client.how_to_use(),
            text: config::snippet(client, &registration),
        })
        .collect()
}

/// The `hone` executable: beside the app's (as installed and as built), else
/// on `PATH`.
pub(crate) fn hone_program() -> Option<PathBuf> {
    let name = format!("hone{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join(&name));
    beside.into_iter().chain(on_path).find(|p| p.is_file())
}

fn library_roots(app: &AppHandle) -> Vec<PathBuf> {
    app.state::<AppState>()
        .session()
        .roots()
        .map(PathBuf::from)
        .collect()
}

/// Serves the open library at `127.0.0.1:PORT` (0: any free port), with a
/// new bearer token when `token`, leaving out skills with errors when `strict`.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn serve_start(
    app: AppHandle,
    serving: State<'_, Serving>,
    port: u16,
    strict: bool,
    token: bool,
) -> CommandResult<ServeStatus> {
    let roots = library_roots(&app);
    if roots.is_empty() {
        return Err(CommandError::unavailable("no library is open"));
    }
    serving.start(roots.clone(), port, strict, token)?;
    Ok(serving.status(roots, 0))
}

#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn serve_stop(app: AppHandle, serving: State<'_, Serving>) -> ServeStatus {
    serving.stop("stopped from the panel");
    serving.status(library_roots(&app), 0)
}

/// The server's state and the log entries after `since`.
#[specta::specta]
#[tauri::command(rename_all = "snake_case")]
pub fn serve_status(app: AppHandle, serving: State<'_, Serving>, since: u64) -> ServeStatus {
    serving.status(library_roots(&app), since)
}

/// Stops serving when the window that controls it is gone.
pub fn on_window_event(window: &tauri::Window, event: &tauri::WindowEvent) {
    if let tauri::WindowEvent::Destroyed = event {
        window.state::<Serving>().stop("the window closed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_the_latest_entries() {
        let mut shared = Shared::default();
        for i in 0..LOG_CAPACITY + 3 {
            shared.push(format!("line {i}"), None);
        }
        assert_eq!(shared.log.len(), LOG_CAPACITY);
        assert_eq!(shared.log.front().unwrap().seq, 4);
        assert_eq!(
            shared.log.back().unwrap().text,
            format!("line {}", LOG_CAPACITY + 2)
        );
    }

    #[test]
    fn snippets_follow_the_server() {
        let roots = [PathBuf::from("/lib/team")];
        let stdio = snippets(std::path::Path::new("/bin/hone"), &roots, true, None, false);
        assert_eq!(stdio.len(), 3);
        assert!(stdio[0].text.contains("/bin/hone serve /lib/team --strict"));
        let http = snippets(
            std::path::Path::new("/bin/hone"),
            &roots,
            false,
            Some("127.0.0.1:9".parse().unwrap()),
            true,
        );
        assert!(
            http[0]
                .text
                .contains("--transport http hone-team http://127.0.0.1:9/mcp")
        );
        // Claude Desktop starts local servers only.
        assert!(http[1].text.contains("\"command\""));
        assert!(http[2].text.contains("HONE_SERVE_TOKEN"));
    }
}
