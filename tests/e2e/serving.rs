//! Issue 18 in the window: the "Serve this library" panel starts the MCP
//! server on loopback, shows its address and the snippets that register it,
//! and the server answers a client on that address (an MCP handshake and a
//! `search_skills` call, over plain HTTP as the transport specification
//! describes it). The panel's log shows the requests; served again with a
//! bearer token, the server refuses a request without it; opening another
//! library stops the server.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::harness::{Harness, Painting};

/// No step waits on a clock tighter than this: CI machines are loaded.
const PATIENCE: Duration = Duration::from_secs(60);

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// One JSON-RPC message POSTed to the MCP endpoint: the response's headers
/// and its JSON (from a JSON body or the first SSE `data:` line), if any.
fn post(
    url: &str,
    session: Option<&str>,
    token: Option<&str>,
    message: serde_json::Value,
) -> (String, Option<serde_json::Value>) {
    let rest = url.strip_prefix("http://").expect("an http:// address");
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let body = message.to_string();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(session) = session {
        request.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    // Read until the answer is complete: the stream may stay open after it.
    let mut received = Vec::new();
    let mut buffer = [0u8; 8192];
    let started = Instant::now();
    loop {
        let text = String::from_utf8_lossy(&received).into_owned();
        if let Some((headers, body)) = text.split_once("\r\n\r\n") {
            let json = body
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .chain(std::iter::once(body))
                .find_map(|l| serde_json::from_str::<serde_json::Value>(l.trim()).ok());
            if json.is_some() {
                break (headers.to_owned(), json);
            }
        }
        assert!(started.elapsed() < PATIENCE, "no answer from {url}: {text}");
        match stream.read(&mut buffer) {
            Ok(0) => {
                let (headers, _) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
                break (headers.to_owned(), None);
            }
            Ok(n) => received.extend_from_slice(&buffer[..n]),
            Err(err) => panic!("reading from {url}: {err}"),
        }
    }
}

fn header<'a>(headers: &'a str, name: &str) -> Option<&'a str> {
    headers.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then_some(value.trim())
    })
}

#[test]
fn the_serving_story() {
    let library = tempfile::tempdir().unwrap();
    let root = library.path().join("team-skills");
    write(
        &root.join("pdf-forms/SKILL.md"),
        "---\nname: pdf-forms\ndescription: Fills in PDF forms. Use when the user asks to fill a PDF form.\n---\n\nRead the form's fields first.\n",
    );
    write(
        &root.join("release-notes/SKILL.md"),
        "---\nname: release-notes\ndescription: Writes release notes from merged changes. Use when preparing a release.\n---\n\nGroup changes by area.\n",
    );
    let other = library.path().join("other");
    write(
        &other.join("solo/SKILL.md"),
        "---\nname: solo\ndescription: A skill of another library. Use when testing.\n---\n\nBody.\n",
    );
    let Some(harness) = Harness::start_with(Some(&root), Painting::Composited) else {
        return;
    };
    harness.block_on(async {
        let app = harness.launch().await;
        app.wait_for("[data-skill=pdf-forms]").await;
        app.click("[data-testid=open-serve]").await;
        app.wait_for_text("[data-testid=serve-dialog]", "loopback (127.0.0.1) only")
            .await;
        // Any free port: the test must not collide with a server already running.
        app.clear_and_type("[data-testid=serve-port]", "0").await;
        let started = Instant::now();
        app.click("[data-testid=serve-start]").await;
        app.wait_for("[data-testid=serve-status][data-phase=running]")
            .await;
        println!(
            "e2e: start serving to running: {} ms",
            started.elapsed().as_millis()
        );
        let url = app.text_of("[data-testid=serve-url]").await.unwrap();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
            "{url}"
        );
        app.wait_for_text("[data-testid=serve-skills]", "2 skills served")
            .await;

        // The snippet, from hone-serve, registers this address.
        app.wait_for_text("[data-testid=serve-snippet][data-client=claude-code]", &url)
            .await;
        let snippet = app.text_of("[data-testid=serve-snippet]").await.unwrap();
        assert!(
            snippet.starts_with("claude mcp add --scope user --transport http hone-team-skills "),
            "{snippet}"
        );
        app.screenshot("serve").await;

        // A client on that address: the MCP handshake, then a search.
        let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "e2e-client", "version": "1.0"}}});
        let (headers, initialized) = post(&url, None, None, initialize.clone());
        let initialized = initialized.expect("an initialize result");
        assert_eq!(
            initialized["result"]["serverInfo"]["name"], "hone",
            "{initialized}"
        );
        let session = header(&headers, "mcp-session-id").map(str::to_owned);
        post(
            &url,
            session.as_deref(),
            None,
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        let (_, searched) = post(
            &url,
            session.as_deref(),
            None,
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "search_skills", "arguments": {"query": "fill in this PDF form"}}}),
        );
        let searched = searched.expect("a tools/call result");
        assert_eq!(
            searched["result"]["structuredContent"]["matches"][0]["name"], "pdf-forms",
            "{searched}"
        );

        // The panel's live log shows the client and its requests.
        app.wait_for_text("[data-testid=serve-log]", "e2e-client 1.0 connected")
            .await;
        app.wait_for_text(
            "[data-testid=serve-log]",
            "tools/call search_skills \"fill in this PDF form\"",
        )
        .await;
        app.wait_for_text("[data-testid=serve-clients]", "1 connected")
            .await;

        // Served again with a bearer token: the panel shows it, the server requires it.
        app.click("[data-testid=serve-stop]").await;
        app.wait_for("[data-testid=serve-status][data-phase=stopped]")
            .await;
        app.click("[data-testid=serve-token-required]").await;
        app.click("[data-testid=serve-start]").await;
        app.wait_for("[data-testid=serve-status][data-phase=running]")
            .await;
        let token = app.text_of("[data-testid=serve-token]").await.unwrap();
        let url = app.text_of("[data-testid=serve-url]").await.unwrap();
        let (refused, _) = post(&url, None, None, initialize.clone());
        assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
        let (_, initialized) = post(&url, None, Some(&token), initialize);
        assert_eq!(
            initialized.unwrap()["result"]["serverInfo"]["name"],
            "hone"
        );
        app.click("[data-testid=serve-dialog] input[value=cursor]").await;
        app.wait_for_text(
            "[data-testid=serve-snippet][data-client=cursor]",
            "Bearer ${env:HONE_SERVE_TOKEN}",
        )
        .await;

        // Opening another library stops serving the old one.
        app.invoke(
            "open_library",
            serde_json::json!({"path": other.display().to_string(), "user": null}),
        )
        .await
        .unwrap();
        app.wait_for("[data-testid=serve-status][data-phase=stopped]")
            .await;
        app.wait_for_text("[data-testid=serve-log]", "another library was opened")
            .await;
        let refused =
            TcpStream::connect(url.trim_start_matches("http://").trim_end_matches("/mcp"));
        assert!(
            refused.is_err(),
            "the server still listens after the switch"
        );
        app.close().await;
    });
}
