//! The one way out of a live run's network namespace: a proxy that lets the
//! agent reach its provider and nothing else.
//!
//! A scripted run needs no network at all: its stand-in lives inside the
//! namespace. A live run needs exactly one place, the provider, so it runs
//! in the same loopback-only namespace with one door. Inside, a [`Relay`]
//! listens on loopback and the client is told to use it as its proxy, with
//! the standard `HTTPS_PROXY`/`HTTP_PROXY` variables that Claude Code,
//! Codex, Gemini CLI and OpenCode all honour (checked against each real
//! client: they send every request, loopback addresses included, through
//! it). The relay carries each connection through a unix socket, a file the
//! namespace shares with the host, to [`Egress`] outside. Egress reads the
//! proxy request (`CONNECT host:port`, or an HTTP request in absolute form)
//! and opens the connection only when host and port are the provider's.
//! Anything else is refused with `403` and remembered, so a run can say what
//! the agent tried to reach. A client that ignored the variables would reach
//! nothing at all.
//!
//! The proxy is unix only, as network namespaces are: it listens on a unix socket.

/// A host and port a live run may reach.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Endpoint {
    /// Lower case, without the brackets of an IPv6 address.
    pub host: String,
    pub port: u16,
}

impl Endpoint {
    /// The endpoint of an `http://` or `https://` URL (its port, else the
    /// scheme's).
    pub fn from_url(url: &str) -> Option<Endpoint> {
        let (scheme, rest) = url.trim().split_once("://")?;
        let default_port = match scheme.to_ascii_lowercase().as_str() {
            "https" => 443,
            "http" => 80,
            _ => return None,
        };
        let authority = rest.split(['/', '?', '#']).next()?;
        let authority = authority.rsplit('@').next()?;
        Endpoint::from_authority(authority, default_port)
    }

    /// `host:port`, `[v6]:port` or a bare host (then `default_port`).
    fn from_authority(authority: &str, default_port: u16) -> Option<Endpoint> {
        let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
            let (host, after) = rest.split_once(']')?;
            let port = match after.strip_prefix(':') {
                Some(port) => port.parse().ok()?,
                None if after.is_empty() => default_port,
                None => return None,
            };
            (host, port)
        } else {
            match authority.rsplit_once(':') {
                Some((host, port)) => (host, port.parse().ok()?),
                None => (authority, default_port),
            }
        };
        (!host.is_empty()).then(|| Endpoint {
            host: host.to_ascii_lowercase(),
            port,
        })
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[cfg(unix)]
pub use proxy::{Egress, Relay};

#[cfg(unix)]
mod proxy {
    use std::collections::BTreeSet;
    use std::io::{self, BufRead, BufReader, Read, Write};
    use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::thread::JoinHandle;
    use std::time::Duration;

    use super::Endpoint;

    /// The proxy outside the namespace, on a unix socket.
    pub struct Egress {
        socket: PathBuf,
        refused: Arc<Mutex<BTreeSet<String>>>,
        stopping: Arc<AtomicBool>,
        accept: Option<JoinHandle<()>>,
    }

    /// The longest request head read (a proxy request is a few hundred bytes).
    const MAX_HEAD: usize = 64 << 10;

    impl Egress {
        /// Listens on `socket` (a path that must not exist yet), letting
        /// connections through to `allow` only.
        pub fn start(socket: &Path, allow: Vec<Endpoint>) -> io::Result<Egress> {
            let listener = UnixListener::bind(socket)?;
            let refused = Arc::new(Mutex::new(BTreeSet::new()));
            let stopping = Arc::new(AtomicBool::new(false));
            let allow = Arc::new(allow);
            let accept = {
                let (refused, stopping) = (Arc::clone(&refused), Arc::clone(&stopping));
                std::thread::spawn(move || {
                    for stream in listener.incoming() {
                        if stopping.load(Ordering::Relaxed) {
                            break;
                        }
                        let Ok(stream) = stream else { continue };
                        let (allow, refused) = (Arc::clone(&allow), Arc::clone(&refused));
                        std::thread::spawn(move || {
                            // A broken connection only loses itself.
                            let _ = serve(stream, &allow, &refused);
                        });
                    }
                })
            };
            Ok(Egress {
                socket: socket.to_path_buf(),
                refused,
                stopping,
                accept: Some(accept),
            })
        }

        pub fn socket(&self) -> &Path {
            &self.socket
        }

        /// What the run tried to reach and was refused, each once, sorted.
        pub fn refused(&self) -> Vec<String> {
            self.refused
                .lock()
                .map(|set| set.iter().cloned().collect())
                .unwrap_or_default()
        }
    }

    impl Drop for Egress {
        fn drop(&mut self) {
            self.stopping.store(true, Ordering::Relaxed);
            // Wakes the accept loop, which then sees the flag.
            let _ = UnixStream::connect(&self.socket);
            if let Some(accept) = self.accept.take() {
                let _ = accept.join();
            }
            let _ = std::fs::remove_file(&self.socket);
        }
    }

    /// One proxy connection: read the request head, then either refuse it or
    /// open the upstream connection and carry bytes both ways.
    fn serve(
        stream: UnixStream,
        allow: &[Endpoint],
        refused: &Mutex<BTreeSet<String>>,
    ) -> io::Result<()> {
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut head = Vec::new();
        loop {
            let read = reader.by_ref().take(8192).read_until(b'\n', &mut head)?;
            if read == 0 || head.len() > MAX_HEAD {
                return Ok(());
            }
            if head.ends_with(b"\r\n\r\n") || head.ends_with(b"\n\n") || head == b"\r\n" {
                break;
            }
        }
        let text = String::from_utf8_lossy(&head).into_owned();
        let first = text.lines().next().unwrap_or("");
        let mut parts = first.split_whitespace();
        let (method, target, version) = (
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or("HTTP/1.1"),
        );
        let mut client = stream;
        let (endpoint, forward) = if method.eq_ignore_ascii_case("CONNECT") {
            (Endpoint::from_authority(target, 443), None)
        } else {
            // An HTTP request in absolute form goes on in origin form.
            let origin = target
                .split_once("://")
                .map(|(_, rest)| rest.find('/').map_or("/", |at| &rest[at..]))
                .unwrap_or(target);
            let rest = &text[first.len()..];
            let forward = format!("{method} {origin} {version}{rest}");
            (Endpoint::from_url(target), Some(forward))
        };
        let allowed = endpoint.as_ref().filter(|e| allow.contains(e)).cloned();
        let Some(endpoint) = allowed else {
            let asked = endpoint.map_or_else(|| target.to_string(), |e| e.to_string());
            if let Ok(mut refused) = refused.lock() {
                refused.insert(asked.clone());
            }
            let allowed: Vec<String> = allow.iter().map(Endpoint::to_string).collect();
            let body = format!(
                "Hone: this run may reach only {}; {asked} is refused\n",
                allowed.join(", ")
            );
            write!(
                client,
                "HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )?;
            return Ok(());
        };
        let upstream = match connect(&endpoint) {
            Ok(upstream) => upstream,
            Err(e) => {
                let body = format!("Hone: cannot reach {endpoint}: {e}\n");
                write!(
                    client,
                    "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )?;
                return Ok(());
            }
        };
        let mut upstream_writer = upstream.try_clone()?;
        match forward {
            Some(head) => upstream_writer.write_all(head.as_bytes())?,
            None => client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?,
        }
        // Whatever the client sent after the head (a request body) goes first.
        upstream_writer.write_all(reader.buffer())?;
        client.set_read_timeout(None)?;
        splice(client, upstream)
    }

    fn connect(endpoint: &Endpoint) -> io::Result<TcpStream> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
        for address in (endpoint.host.as_str(), endpoint.port).to_socket_addrs()? {
            match TcpStream::connect_timeout(&address, Duration::from_secs(15)) {
                Ok(stream) => return Ok(stream),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// A connected stream both ends of a splice can be.
    trait Duplex: Read + Write + Send + Sized + 'static {
        fn duplicate(&self) -> io::Result<Self>;
        fn close_write(&self);
    }

    impl Duplex for TcpStream {
        fn duplicate(&self) -> io::Result<Self> {
            self.try_clone()
        }
        fn close_write(&self) {
            let _ = self.shutdown(Shutdown::Write);
        }
    }

    impl Duplex for UnixStream {
        fn duplicate(&self) -> io::Result<Self> {
            self.try_clone()
        }
        fn close_write(&self) {
            let _ = self.shutdown(Shutdown::Write);
        }
    }

    /// Carries bytes both ways until both sides are done, passing each end's
    /// close on to the other.
    fn splice<A: Duplex, B: Duplex>(a: A, b: B) -> io::Result<()> {
        let (mut a_reader, mut b_writer) = (a.duplicate()?, b.duplicate()?);
        let forth = std::thread::spawn(move || {
            let _ = io::copy(&mut a_reader, &mut b_writer);
            b_writer.close_write();
        });
        let (mut b_reader, mut a_writer) = (b, a);
        let _ = io::copy(&mut b_reader, &mut a_writer);
        a_writer.close_write();
        let _ = forth.join();
        Ok(())
    }

    /// The proxy the client sees, inside the namespace: a loopback port whose
    /// every connection is carried to the [`Egress`] socket.
    pub struct Relay {
        pub port: u16,
        _accept: JoinHandle<()>,
    }

    impl Relay {
        pub fn start(socket: &Path) -> io::Result<Relay> {
            let listener = TcpListener::bind(("127.0.0.1", 0))?;
            let port = listener.local_addr()?.port();
            let socket = socket.to_path_buf();
            let accept = std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let socket = socket.clone();
                    std::thread::spawn(move || {
                        if let Ok(outside) = UnixStream::connect(&socket) {
                            let _ = splice(stream, outside);
                        }
                    });
                }
            });
            Ok(Relay {
                port,
                _accept: accept,
            })
        }

        /// The variables that send a client's traffic through the relay, in
        /// both spellings clients read.
        pub fn proxy_vars(&self) -> Vec<(String, String)> {
            let url = format!("http://127.0.0.1:{}", self.port);
            ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"]
                .into_iter()
                .map(|name| (name.to_string(), url.clone()))
                .collect()
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A loopback server that answers every connection, once its client
        /// has closed its side, with everything it read, prefixed.
        fn echo_server() -> u16 {
            let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
            let port = listener.local_addr().unwrap().port();
            std::thread::spawn(move || {
                for mut stream in listener.incoming().flatten() {
                    std::thread::spawn(move || {
                        // All the client sent, however the proxy split it.
                        let mut seen = Vec::new();
                        let _ = stream.read_to_end(&mut seen);
                        let _ = stream.write_all(b"upstream saw: ");
                        let _ = stream.write_all(&seen);
                    });
                }
            });
            port
        }

        fn exchange(relay: &Relay, request: &str) -> String {
            let mut stream = TcpStream::connect(("127.0.0.1", relay.port)).unwrap();
            stream.write_all(request.as_bytes()).unwrap();
            // The end of the request travels through the proxy too.
            stream.shutdown(Shutdown::Write).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            let mut out = String::new();
            let _ = stream.read_to_string(&mut out);
            out
        }

        #[test]
        fn endpoints_read_from_urls() {
            let at = |host: &str, port| {
                Some(Endpoint {
                    host: host.into(),
                    port,
                })
            };
            assert_eq!(
                Endpoint::from_url("https://api.anthropic.com"),
                at("api.anthropic.com", 443)
            );
            assert_eq!(
                Endpoint::from_url("http://Example.com/v1?x"),
                at("example.com", 80)
            );
            assert_eq!(
                Endpoint::from_url("http://127.0.0.1:8080/v1"),
                at("127.0.0.1", 8080)
            );
            assert_eq!(Endpoint::from_url("https://u:p@h:9/"), at("h", 9));
            assert_eq!(Endpoint::from_url("http://[::1]:4000"), at("::1", 4000));
            assert_eq!(Endpoint::from_url("ftp://h"), None);
            assert_eq!(Endpoint::from_url("http://h:x"), None);
            assert_eq!(at("::1", 4000).unwrap().to_string(), "[::1]:4000");
        }

        #[test]
        fn lets_through_the_provider_only() {
            let port = echo_server();
            let dir = tempfile::tempdir().unwrap();
            let socket = dir.path().join("egress.sock");
            let allowed = Endpoint {
                host: "127.0.0.1".into(),
                port,
            };
            let egress = Egress::start(&socket, vec![allowed]).unwrap();
            let relay = Relay::start(egress.socket()).unwrap();

            // A tunnel to the provider: established, then bytes pass as they are.
            let tunnel = exchange(
                &relay,
                &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\nhello"),
            );
            assert!(tunnel.starts_with("HTTP/1.1 200"), "{tunnel}");
            assert!(tunnel.ends_with("upstream saw: hello"), "{tunnel}");

            // A plain request goes on in origin form, its headers and body kept.
            let plain = exchange(
                &relay,
                &format!(
                    "POST http://127.0.0.1:{port}/v1/messages?beta=true HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{{}}"
                ),
            );
            assert_eq!(
                plain,
                "upstream saw: POST /v1/messages?beta=true HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"
            );

            // Anywhere else is refused, and remembered.
            let other = exchange(&relay, "CONNECT github.com:443 HTTP/1.1\r\n\r\n");
            assert!(other.starts_with("HTTP/1.1 403"), "{other}");
            assert!(
                other.contains(&format!("may reach only 127.0.0.1:{port}")),
                "{other}"
            );
            let wrong_port = exchange(&relay, "GET http://127.0.0.1:1/ HTTP/1.1\r\n\r\n");
            assert!(wrong_port.starts_with("HTTP/1.1 403"), "{wrong_port}");
            assert_eq!(egress.refused(), ["127.0.0.1:1", "github.com:443"]);

            drop(egress);
            assert!(!socket.exists(), "the socket goes with the proxy");
        }
    }
}
