//! A loopback stand-in for a model provider: it records every request a
//! client sends and answers a short streamed text in the provider's own wire
//! format, so a real client runs to the end without a network or a key.
//!
//! Four formats cover the five clients: Anthropic Messages (Claude Code),
//! OpenAI Responses (Codex), OpenAI Chat Completions (OpenCode, Copilot CLI)
//! and the Gemini API (Gemini CLI). The server speaks HTTP/1.1 with
//! `Connection: close` after each answer, which every client handles, so no
//! connection state is kept.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Client;
use super::script::{Reply, Script};

/// The script a stand-in plays for one client's agent loop.
type Scripted = Arc<(Client, Script)>;

/// One request the client sent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// The body as JSON, or `null` when it was empty or not JSON.
    pub body: Value,
}

/// A running stand-in on `127.0.0.1`.
pub struct StandIn {
    pub port: u16,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    _accept: JoinHandle<()>,
}

/// The largest request body read (a listing of thousands of skills fits).
const MAX_BODY: usize = 64 << 20;

impl StandIn {
    /// Listens on a free loopback port; each connection is answered on a
    /// thread of its own.
    pub fn start() -> std::io::Result<StandIn> {
        StandIn::start_with(None)
    }

    /// A stand-in that answers the agent loop's turns from `script` (see
    /// [`super::script`]) and everything else as [`StandIn::start`] does.
    pub fn start_with(script: Option<(Client, Script)>) -> std::io::Result<StandIn> {
        let script: Option<Scripted> = script.map(Arc::new);
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let port = listener.local_addr()?.port();
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&recorded);
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let sink = Arc::clone(&sink);
                let script = script.clone();
                std::thread::spawn(move || {
                    // A client that breaks a connection only loses its answer.
                    let _ = serve(stream, &sink, script.as_deref());
                });
            }
        });
        Ok(StandIn {
            port,
            recorded,
            _accept: accept,
        })
    }

    /// The requests recorded so far, in arrival order.
    pub fn recorded(&self) -> Vec<Recorded> {
        self.recorded.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn serve(
    stream: TcpStream,
    sink: &Mutex<Vec<Recorded>>,
    script: Option<&(Client, Script)>,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().unwrap_or(0),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                _ => {}
            }
        }
    }
    let body = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut body = vec![0; length.min(MAX_BODY)];
        reader.read_exact(&mut body)?;
        body
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = script
        .and_then(|(client, script)| script.answer(*client, &path, &body))
        .unwrap_or_else(|| {
            let (content_type, body) = answer(&method, &path, &body);
            Reply::whole(content_type, body)
        });
    if let Ok(mut sink) = sink.lock() {
        sink.push(Recorded { method, path, body });
    }
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: {}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        reply.content_type,
        reply.body.len()
    )?;
    let sent = reply.cut_at.unwrap_or(reply.body.len());
    stream.write_all(&reply.body.as_bytes()[..sent])?;
    stream.flush()?;
    if reply.cut_at.is_some() {
        // Short of the announced length: the client sees the stream break.
        stream.shutdown(std::net::Shutdown::Both)?;
    }
    Ok(())
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        if size == 0 || body.len() + size > MAX_BODY {
            let mut end = String::new();
            reader.read_line(&mut end)?;
            return Ok(body);
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = String::new();
        reader.read_line(&mut crlf)?;
    }
}

fn sse(events: &[(Option<&str>, Value)]) -> String {
    let mut out = String::new();
    for (event, data) in events {
        if let Some(event) = event {
            out.push_str(&format!("event: {event}\n"));
        }
        out.push_str(&format!("data: {data}\n\n"));
    }
    out
}

/// The answer to one request: a content type and the body.
fn answer(method: &str, path: &str, body: &Value) -> (&'static str, String) {
    let route = path.split('?').next().unwrap_or(path);
    let model = body.get("model").and_then(Value::as_str).unwrap_or("model");
    if method == "GET" {
        let models = json!({"object": "list", "data": [{"id": model, "object": "model", "owned_by": "hone"}], "models": []});
        return ("application/json", models.to_string());
    }
    if route.ends_with("/messages/count_tokens") {
        return ("application/json", json!({"input_tokens": 10}).to_string());
    }
    if route.ends_with("/messages") {
        let message = json!({"id": "msg_hone", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}});
        return (
            "text/event-stream",
            sse(&[
                (
                    Some("message_start"),
                    json!({"type": "message_start", "message": message}),
                ),
                (
                    Some("content_block_start"),
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ),
                (
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
                ),
                (
                    Some("content_block_stop"),
                    json!({"type": "content_block_stop", "index": 0}),
                ),
                (
                    Some("message_delta"),
                    json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 1}}),
                ),
                (Some("message_stop"), json!({"type": "message_stop"})),
            ]),
        );
    }
    if route.ends_with("/responses") {
        let response = json!({"id": "resp_hone", "object": "response", "created_at": 1, "status": "in_progress", "model": model, "output": []});
        let item = json!({"type": "message", "id": "msg_hone", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "ok", "annotations": []}]});
        let mut added = item.clone();
        added["status"] = json!("in_progress");
        added["content"] = json!([]);
        let mut done = response.clone();
        done["status"] = json!("completed");
        done["output"] = json!([item]);
        done["usage"] = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 11});
        return (
            "text/event-stream",
            sse(&[
                (
                    Some("response.created"),
                    json!({"type": "response.created", "response": response}),
                ),
                (
                    Some("response.output_item.added"),
                    json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
                ),
                (
                    Some("response.output_text.delta"),
                    json!({"type": "response.output_text.delta", "item_id": "msg_hone", "output_index": 0, "content_index": 0, "delta": "ok"}),
                ),
                (
                    Some("response.output_item.done"),
                    json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
                ),
                (
                    Some("response.completed"),
                    json!({"type": "response.completed", "response": done}),
                ),
            ]),
        );
    }
    if route.ends_with("/chat/completions") {
        let usage = json!({"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11});
        if body.get("stream").and_then(Value::as_bool) != Some(true) {
            let reply = json!({"id": "chat_hone", "object": "chat.completion", "created": 1, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                "usage": usage});
            return ("application/json", reply.to_string());
        }
        let chunk = |delta: Value, finish: Value| {
            json!({"id": "chat_hone", "object": "chat.completion.chunk", "created": 1, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        };
        let mut last = chunk(json!({}), json!("stop"));
        last["usage"] = usage;
        let mut out = sse(&[
            (
                None,
                chunk(json!({"role": "assistant", "content": ""}), Value::Null),
            ),
            (None, chunk(json!({"content": "ok"}), Value::Null)),
            (None, last),
        ]);
        out.push_str("data: [DONE]\n\n");
        return ("text/event-stream", out);
    }
    if route.ends_with(":countTokens") {
        return ("application/json", json!({"totalTokens": 10}).to_string());
    }
    if route.contains(":generateContent") || route.contains(":streamGenerateContent") {
        let config = body
            .get("generationConfig")
            .or_else(|| body.get("config"))
            .cloned()
            .unwrap_or(Value::Null);
        // Gemini CLI asks its router model for JSON before the real turn.
        let wants_json = config.get("responseMimeType").and_then(Value::as_str)
            == Some("application/json")
            || config.get("responseJsonSchema").is_some()
            || config.get("responseSchema").is_some();
        let text = if wants_json {
            json!({"reasoning": "simple", "model_choice": "flash", "next_speaker": "user"})
                .to_string()
        } else {
            "ok".to_string()
        };
        let reply = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}});
        if route.contains(":streamGenerateContent") {
            return ("text/event-stream", sse(&[(None, reply)]));
        }
        return ("application/json", reply.to_string());
    }
    ("application/json", "{}".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_a_request_and_answers_in_the_format_asked() {
        let standin = StandIn::start().unwrap();
        let mut stream = TcpStream::connect(("127.0.0.1", standin.port)).unwrap();
        let body = r#"{"model":"m","stream":true}"#;
        write!(
            stream,
            "POST /v1/messages?beta=true HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200 OK"));
        assert!(answer.contains("event: message_stop"));
        let recorded = standin.recorded();
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].path, "/v1/messages?beta=true");
        assert_eq!(recorded[0].body["model"], "m");
    }

    #[test]
    fn reads_a_chunked_body() {
        let mut input = &b"5\r\nhello\r\n0\r\n\r\n"[..];
        assert_eq!(read_chunked(&mut input).unwrap(), b"hello");
    }
}
