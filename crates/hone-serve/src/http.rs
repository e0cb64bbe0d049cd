//! Streamable HTTP, on loopback unless asked otherwise.
//!
//! In front of rmcp's Streamable HTTP service every request passes the checks
//! the MCP transport specification asks of a local server:
//! - the `Origin` header, when present, must be this server's own loopback
//!   origin or one given with `--allow-origin` (DNS-rebinding defence): 403;
//! - with a token, `Authorization: Bearer TOKEN` is required: 401;
//! - a body over [`MAX_BODY_BYTES`] is refused unread: 413;
//! - a body that is not JSON gets a JSON-RPC Parse error (-32700), 400.
//!
//! A connection the server ends is drained before it is closed ([`LINGER`]),
//! so that a client still sending reads its answer instead of a reset.
//!
//! rmcp also checks `Host` against loopback names when bound to loopback.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tower_service::Service;

use crate::engine::Engine;
use crate::handler::{Clients, SkillServer};
use crate::observe::{Answered, Observer, clip};

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// How long a finished response stays available to a client resuming its stream.
pub const COMPLETED_RESPONSE_TTL: std::time::Duration = std::time::Duration::from_secs(5);
/// How long a connection the server ends is drained after its last answer.
/// A client still sending a refused body would otherwise be reset, and a
/// reset can discard the answer it has not yet read.
pub const LINGER: std::time::Duration = std::time::Duration::from_secs(5);
/// The most a connection the server ends is drained of.
pub const LINGER_BYTES: u64 = 64 * 1024 * 1024;
/// The path the MCP endpoint is served at.
pub const ENDPOINT: &str = "/mcp";

/// How to serve over HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Allow a non-loopback address.
    pub listen: bool,
    /// Require `Authorization: Bearer` with this token.
    pub token: Option<String>,
    /// Browser origins allowed besides the server's own.
    pub allowed_origins: Vec<String>,
}

/// Why the server cannot start.
pub fn check_address(options: &HttpOptions) -> Result<(), String> {
    if !options.addr.ip().is_loopback() && !options.listen {
        return Err(format!(
            "{} is not a loopback address: pass --listen to serve other machines (with --token)",
            options.addr
        ));
    }
    Ok(())
}

type Body = BoxBody<Bytes, Infallible>;

fn reply(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    let body = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// Marks an answer given without reading the request's body as the
/// connection's last, so a client does not send its next request on a
/// connection the server is about to close.
fn closing(mut response: Response<Body>) -> Response<Body> {
    response.headers_mut().insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    response
}

/// Compares in time independent of where the strings differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

struct Gate {
    origins: Vec<String>,
    token: Option<String>,
}

impl Gate {
    fn new(options: &HttpOptions, bound: SocketAddr) -> Gate {
        let port = bound.port();
        let mut origins = vec![
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ];
        origins.extend(
            options
                .allowed_origins
                .iter()
                .map(|o| o.trim_end_matches('/').to_owned()),
        );
        Gate {
            origins,
            token: options.token.clone(),
        }
    }

    /// The refusal for a request that fails a check, if any.
    fn refuse(&self, request: &Request<Incoming>) -> Option<Response<Body>> {
        if request.uri().path() != ENDPOINT {
            return Some(reply(
                StatusCode::NOT_FOUND,
                -32601,
                &format!("the MCP endpoint is {ENDPOINT}"),
            ));
        }
        if let Some(origin) = request.headers().get(hyper::header::ORIGIN) {
            let allowed = origin
                .to_str()
                .map(|o| self.origins.iter().any(|a| a.eq_ignore_ascii_case(o)))
                .unwrap_or(false);
            if !allowed {
                return Some(reply(
                    StatusCode::FORBIDDEN,
                    -32600,
                    &format!(
                        "Origin {} is not allowed (allow it with --allow-origin)",
                        origin.to_str().unwrap_or("(not text)")
                    ),
                ));
            }
        }
        if let Some(token) = &self.token {
            let given = request
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            if !given.is_some_and(|g| same_secret(g.trim().as_bytes(), token.as_bytes())) {
                let mut response = reply(
                    StatusCode::UNAUTHORIZED,
                    -32600,
                    "a bearer token is required (Authorization: Bearer …)",
                );
                response.headers_mut().insert(
                    hyper::header::WWW_AUTHENTICATE,
                    hyper::header::HeaderValue::from_static("Bearer"),
                );
                return Some(response);
            }
        }
        None
    }
}

/// Serves until `cancel` fires; `on_ready` receives the bound address.
pub async fn serve(
    engine: Arc<Engine>,
    clients: Clients,
    observer: Arc<dyn Observer>,
    options: HttpOptions,
    cancel: CancellationToken,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    check_address(&options)?;
    let listener = TcpListener::bind(options.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.addr))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        .with_cancellation_token(cancel.child_token());
    if options.listen {
        // Reachable under any name; the token, not the Host header, guards it.
        config = config.disable_allowed_hosts();
    }
    // rmcp keeps each finished response for late resumption; at thousands of
    // requests a second its default minute of them is most of the memory.
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.completed_cache_ttl = COMPLETED_RESPONSE_TTL;
    let factory_engine = engine.clone();
    let factory_clients = clients.clone();
    let factory_observer = observer.clone();
    let service = StreamableHttpService::new(
        move || {
            Ok(SkillServer::new(
                factory_engine.clone(),
                factory_clients.clone(),
                factory_observer.clone(),
            ))
        },
        Arc::new(sessions),
        config,
    );
    let gate = Arc::new(Gate::new(&options, bound));
    on_ready(bound);
    loop {
        let (stream, _) = tokio::select! {
            _ = cancel.cancelled() => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // A failed accept (out of descriptors) must not end the server.
                Err(_) => continue,
            },
        };
        let service = service.clone();
        let gate = gate.clone();
        let cancel = cancel.clone();
        let observer = observer.clone();
        tokio::spawn(async move {
            let handler = service_fn(move |request: Request<Incoming>| {
                let mut service = service.clone();
                let gate = gate.clone();
                let observer = observer.clone();
                // Boxed so that the connection can hand its socket back.
                Box::pin(async move {
                    if let Some(refusal) = gate.refuse(&request) {
                        observer.answered(Answered {
                            method: "http",
                            detail: clip(&format!("{} {}", request.method(), request.uri().path())),
                            error: Some(format!("refused: {}", refusal.status())),
                            micros: 0,
                        });
                        return Ok::<_, Infallible>(closing(refusal));
                    }
                    let (parts, body) = request.into_parts();
                    let bytes = match Limited::new(body, MAX_BODY_BYTES).collect().await {
                        Ok(collected) => collected.to_bytes(),
                        Err(_) => {
                            return Ok(closing(reply(
                                StatusCode::PAYLOAD_TOO_LARGE,
                                -32600,
                                &format!("a request body is limited to {MAX_BODY_BYTES} bytes"),
                            )));
                        }
                    };
                    if parts.method == hyper::Method::POST
                        && let Err(err) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes)
                    {
                        return Ok(reply(
                            StatusCode::BAD_REQUEST,
                            -32700,
                            &format!("Parse error: {err}"),
                        ));
                    }
                    let request = Request::from_parts(parts, Full::new(bytes));
                    service.call(request).await
                })
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .without_shutdown();
            tokio::select! {
                ended = connection => if let Ok(parts) = ended {
                    tokio::select! {
                        _ = linger(parts.io.into_inner()) => {}
                        _ = cancel.cancelled() => {}
                    }
                },
                _ = cancel.cancelled() => {}
            }
        });
    }
}

/// Closes a connection as RFC 9112 §9.6 asks: the answer is written, so
/// end the sending side, then read and drop what the client still sends
/// (bounded by [`LINGER`] and [`LINGER_BYTES`]) until it closes too.
async fn linger(mut stream: TcpStream) {
    use tokio::io::AsyncWriteExt;
    if stream.shutdown().await.is_err() {
        return;
    }
    let mut rest = tokio::io::AsyncReadExt::take(stream, LINGER_BYTES);
    let _ = tokio::time::timeout(LINGER, tokio::io::copy(&mut rest, &mut tokio::io::sink())).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_without_listen() {
        let mut options = HttpOptions {
            addr: "0.0.0.0:0".parse().unwrap(),
            listen: false,
            token: None,
            allowed_origins: vec![],
        };
        assert!(check_address(&options).unwrap_err().contains("--listen"));
        options.listen = true;
        assert!(check_address(&options).is_ok());
        options.addr = "[::1]:0".parse().unwrap();
        options.listen = false;
        assert!(check_address(&options).is_ok());
    }

    /// A client that sends all of a refused body before it reads, as HTTP/1.1
    /// clients do, still reads the 413: the server drains the connection
    /// instead of resetting it (the Python SDK's client lost the answer one
    /// time in three; a body larger than the socket buffers, every time).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_refused_body_still_gets_its_answer() {
        use std::io::{Read, Write};
        let tmp = tempfile::tempdir().unwrap();
        let skill = tmp.path().join("pdf/SKILL.md");
        std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
        std::fs::write(
            &skill,
            "---\nname: pdf\ndescription: Read PDF files.\n---\nRead.\n",
        )
        .unwrap();
        let engine = Engine::open(crate::engine::ServeOptions {
            catalog: crate::catalog::CatalogOptions {
                roots: vec![tmp.path().to_path_buf()],
                target: hone_core::rules::Target::Agentskills,
                strict: false,
                serve_dangerous: false,
            },
            ranker: Some(hone_core::rank::RankerKind::Bm25),
            threshold: None,
            model: None,
            view: hone_core::rank::RankView::Listing,
            builtins: None,
        })
        .unwrap();
        let options = HttpOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            listen: false,
            token: None,
            allowed_origins: vec![],
        };
        let cancel = CancellationToken::new();
        let (bound, at) = tokio::sync::oneshot::channel();
        let server = tokio::spawn(serve(
            Arc::new(engine),
            Clients::default(),
            Arc::new(crate::observe::Lines(|_: &str| {})),
            options,
            cancel.clone(),
            move |addr| {
                let _ = bound.send(addr);
            },
        ));
        let addr = at.await.unwrap();
        let answers = tokio::task::spawn_blocking(move || {
            let body = vec![b'x'; 16 * MAX_BODY_BYTES];
            (0..3)
                .map(|_| {
                    let mut stream = std::net::TcpStream::connect(addr)?;
                    write!(
                        stream,
                        "POST {ENDPOINT} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    )?;
                    stream.write_all(&body)?;
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer)?;
                    Ok(answer)
                })
                .collect::<std::io::Result<Vec<String>>>()
        })
        .await
        .unwrap()
        .expect("the server reset the connection before its answer was read");
        for answer in answers {
            assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
            assert!(answer.contains("connection: close"), "{answer}");
        }
        cancel.cancel();
        server.await.unwrap().unwrap();
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
    }
}
