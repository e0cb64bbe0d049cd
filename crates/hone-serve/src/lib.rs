//! # hone-serve
//!
//! Serves a library of agent skills to agents over MCP, so that what an
//! author tunes in Hone (routing text, thresholds, eval suites) is exactly
//! what the agent gets at run time.
//!
//! - [`catalog`]: the library as served: `skill://` paths, findings, SEP-2640 entries;
//! - [`engine`]: search (Hone's rankers), load (Claude Code's substitutions), read, reload;
//! - [`handler`]: the MCP surface on rmcp: resources, `skills/list`, `skills/get`,
//!   `resources/directory/read`, tools and prompts;
//! - [`stdio`], [`http`]: the two transports, with the checks each needs;
//! - [`watch`]: file changes become list-changed notifications;
//! - [`config`]: snippets that register the server with a client;
//! - [`observe`]: what a program running the server hears from it.
//!
//! The CLI's `hone serve` is a thin adapter over [`run`]; the app embeds the
//! same server through [`serve`], with an [`Observer`] for its panel.

pub mod catalog;
pub mod config;
pub mod engine;
pub mod handler;
pub mod http;
pub mod observe;
pub mod stdio;
pub mod uri;
pub mod watch;

use std::sync::Arc;
use std::time::Instant;

use rmcp::ServiceExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use engine::{Engine, ServeOptions};
pub use http::HttpOptions;
pub use observe::{Answered, Monitor, Observer, Ready};

use catalog::Unscanned;
use handler::{Clients, SkillServer};

/// Where to serve.
#[derive(Debug, Clone)]
pub enum Transport {
    Stdio,
    Http(HttpOptions),
}

/// Opens the library, then serves it until stdin closes (stdio) or `cancel`
/// fires. `log` receives one line when the server is ready and one per reload.
pub async fn run(
    options: ServeOptions,
    transport: Transport,
    cancel: CancellationToken,
    log: impl Fn(&str) + Send + Sync + 'static,
) -> Result<(), String> {
    serve(options, transport, cancel, Arc::new(observe::Lines(log))).await
}

/// [`run`], reporting to `observer`: its lines, when it is ready, and every
/// request it answers.
pub async fn serve(
    options: ServeOptions,
    transport: Transport,
    cancel: CancellationToken,
    observer: Arc<dyn Observer>,
) -> Result<(), String> {
    let log = {
        let observer = observer.clone();
        Arc::new(move |line: &str| observer.log(line)) as Arc<dyn Fn(&str) + Send + Sync>
    };
    if let Transport::Http(http_options) = &transport {
        http::check_address(http_options)?;
    }
    let started = Instant::now();
    let roots = options.catalog.roots.clone();
    // Skills no earlier scan has seen wait for theirs, beside serving: a
    // library's first start would otherwise wait on every skill's analysis.
    let engine = tokio::task::spawn_blocking(move || {
        let memo = hone_core::security::VerdictMemo::open_default();
        Engine::open_with(options, Unscanned::Withhold, memo)
    })
    .await
    .map_err(|e| e.to_string())??;
    let engine = Arc::new(engine);
    if let Some(fallback) = engine.fallback() {
        log(fallback);
    }
    let catalog = engine.catalog();
    for excluded in &catalog.excluded {
        log(&not_serving(excluded));
    }
    for problem in &catalog.problems {
        log(&format!("warning: {problem}"));
    }
    let pending = catalog.pending;
    let summary = format!(
        "{} skill(s){}, {} ranking (threshold {:.2}), ready in {} ms",
        catalog.skills.len(),
        if pending > 0 {
            format!(" ({pending} more when their security scan ends)")
        } else {
            String::new()
        },
        engine.kind(),
        engine.threshold(),
        started.elapsed().as_millis()
    );
    let clients = Clients::default();
    let sections_pending = engine.sections_pending();
    if sections_pending {
        log(
            "body sections not embedded yet: search_skills ranks on descriptions and body keywords until they are",
        );
    }
    if pending > 0 || sections_pending {
        let logged: std::collections::HashSet<_> =
            catalog.excluded.iter().map(|e| e.path.clone()).collect();
        let (engine, clients, log) = (engine.clone(), clients.clone(), log.clone());
        let runtime = tokio::runtime::Handle::current();
        std::thread::spawn(move || {
            if pending > 0 {
                finish_scan(&engine, &clients, &runtime, &log, &logged, pending, started);
            }
            // After the scan, so that the sections of every served skill
            // are embedded in one pass.
            match engine.embed_sections(&mut |_| {}) {
                Ok(Some(embedded)) => log(&format!(
                    "body sections embedded ({embedded} new): search_skills ranks on them, {} ms after start",
                    started.elapsed().as_millis()
                )),
                Ok(None) => {}
                Err(err) => log(&format!(
                    "cannot embed the body sections ({err}); search_skills ranks without them"
                )),
            }
        });
    }
    drop(catalog);
    // Watching a large library registers a watch per folder: done beside
    // serving, so requests are answered meanwhile. The watcher lives until
    // `_keep_watching` is dropped, when serving ends.
    let (_keep_watching, until_done) = std::sync::mpsc::channel::<()>();
    {
        let (engine, clients, log) = (engine.clone(), clients.clone(), log.clone());
        let runtime = tokio::runtime::Handle::current();
        std::thread::spawn(move || {
            let started = Instant::now();
            match watch::LibraryWatcher::start(engine, clients, runtime, &roots, log.clone()) {
                Ok(watcher) => {
                    log(&format!(
                        "watching for changes ({} ms to set up)",
                        started.elapsed().as_millis()
                    ));
                    let _ = until_done.recv();
                    drop(watcher);
                }
                Err(err) => log(&format!(
                    "cannot watch the library: {err}; changes will not be seen"
                )),
            }
        });
    }
    match transport {
        Transport::Stdio => {
            log(&format!("serving {summary} over stdio"));
            observer.ready(Ready {
                addr: None,
                monitor: Monitor::new(engine.clone(), clients.clone()),
            });
            serve_stdio(engine, clients, observer, cancel).await
        }
        Transport::Http(http_options) => {
            let monitor = Monitor::new(engine.clone(), clients.clone());
            let on_ready = {
                let observer = observer.clone();
                move |addr| {
                    log(&format!(
                        "serving {summary} at http://{addr}{}",
                        http::ENDPOINT
                    ));
                    observer.ready(Ready {
                        addr: Some(addr),
                        monitor,
                    });
                }
            };
            http::serve(engine, clients, observer, http_options, cancel, on_ready).await
        }
    }
}

/// Ends the security scan [`Engine::open_with`] left for later and serves
/// what it cleared, telling the clients.
fn finish_scan(
    engine: &Engine,
    clients: &Clients,
    runtime: &tokio::runtime::Handle,
    log: &Arc<dyn Fn(&str) + Send + Sync>,
    logged: &std::collections::HashSet<std::path::PathBuf>,
    pending: usize,
    started: Instant,
) {
    match engine.finish_scan() {
        Ok(changes) => {
            let catalog = engine.catalog();
            for excluded in catalog
                .excluded
                .iter()
                .filter(|e| !logged.contains(&e.path))
            {
                log(&not_serving(excluded));
            }
            log(&format!(
                "security scan done: serving {} skill(s), {} ms after start",
                catalog.skills.len(),
                started.elapsed().as_millis()
            ));
            if changes.skills > 0 {
                let clients = clients.clone();
                runtime.spawn(async move { clients.notify_changed(changes.prompts).await });
            }
        }
        Err(err) => log(&format!(
            "the security scan failed ({err}); {pending} skill(s) stay unserved"
        )),
    }
}

/// The line that says a skill is left out, and why.
fn not_serving(excluded: &catalog::Excluded) -> String {
    format!(
        "not serving {}: {}",
        excluded.path.display(),
        excluded.reason
    )
}

async fn serve_stdio(
    engine: Arc<Engine>,
    clients: Clients,
    observer: Arc<dyn Observer>,
    cancel: CancellationToken,
) -> Result<(), String> {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (from_server, to_server) = tokio::io::split(ours);
    let (out, lines) = mpsc::channel(64);
    let writer = tokio::spawn(stdio::write_lines(tokio::io::stdout(), lines));
    tokio::spawn(stdio::filter_input(
        tokio::io::stdin(),
        to_server,
        out.clone(),
    ));
    tokio::spawn(stdio::forward_output(from_server, out));
    let service = SkillServer::new(engine, clients, observer)
        .serve(theirs)
        .await
        .map_err(|e| format!("the client did not initialize: {e}"))?;
    tokio::select! {
        _ = service.waiting() => {}
        _ = cancel.cancelled() => {}
    }
    // Let the last answers reach stdout.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), writer).await;
    Ok(())
}
