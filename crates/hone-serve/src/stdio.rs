//! The stdio transport: newline-delimited JSON-RPC on stdin and stdout.
//!
//! rmcp ignores a line that is not JSON at all (its reasoning: there is no id
//! to answer). JSON-RPC 2.0 asks for a Parse error with a null id, and a
//! client debugging its framing is better served by one, so lines pass
//! through a small filter first: a line that does not parse, or is longer
//! than [`MAX_LINE_BYTES`], is answered with a JSON-RPC error here and never
//! reaches the protocol handler. Everything written to stdout goes through
//! one writer, so the filter's answers never interleave with rmcp's lines.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest request line accepted.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// A JSON-RPC error response without an id.
pub fn error_line(code: i64, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default();
    line.push(b'\n');
    line
}

/// One input line, or why it is refused.
enum Line {
    Message(Vec<u8>),
    TooLong,
    End,
}

/// Reads one line of at most `MAX_LINE_BYTES`, discarding the rest of a
/// longer one without holding it in memory.
async fn read_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if line.is_empty() {
                Line::End
            } else {
                Line::Message(line)
            });
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if line.len() + take > MAX_LINE_BYTES + 1 {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(&chunk[..take]);
            }
        }
        reader.consume(take);
        if done {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Message(line)
            });
        }
    }
}

/// Copies `input` to `to_server`, answering unparsable or oversized lines on
/// `replies` instead.
pub async fn filter_input<R, W>(input: R, mut to_server: W, replies: mpsc::Sender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(input);
    loop {
        match read_line(&mut reader).await {
            Ok(Line::Message(line)) => {
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
                    Ok(_) => {
                        if to_server.write_all(text).await.is_err()
                            || to_server.write_all(b"\n").await.is_err()
                        {
                            return;
                        }
                    }
                    Err(err) => {
                        let message = format!("Parse error: {err}");
                        if replies.send(error_line(-32700, &message)).await.is_err() {
                            return;
                        }
                    }
                }
            }
            Ok(Line::TooLong) => {
                let message =
                    format!("Invalid request: a message is longer than {MAX_LINE_BYTES} bytes");
                if replies.send(error_line(-32600, &message)).await.is_err() {
                    return;
                }
            }
            Ok(Line::End) | Err(_) => {
                let _ = to_server.shutdown().await;
                return;
            }
        }
    }
}

/// Forwards the server's output, line by line, to the one writer.
pub async fn forward_output<R: AsyncRead + Unpin>(from_server: R, out: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::new(from_server);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if out.send(line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes every line it receives to `output`, flushing after each.
pub async fn write_lines<W: AsyncWrite + Unpin>(mut output: W, mut lines: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = lines.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bad_lines_get_errors_and_good_lines_pass() {
        let input: &[u8] =
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{not json\n\n[1,2]\n";
        let (replies, mut received) = mpsc::channel(8);
        let mut passed = Vec::new();
        filter_input(input, &mut passed, replies).await;
        assert_eq!(
            String::from_utf8(passed).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n[1,2]\n"
        );
        let reply: serde_json::Value =
            serde_json::from_slice(&received.recv().await.unwrap()).unwrap();
        assert_eq!(reply["error"]["code"], -32700);
        assert_eq!(reply["id"], serde_json::Value::Null);
    }

    #[tokio::test]
    async fn oversized_lines_are_refused_without_buffering_them() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\n{\"a\":1}\n");
        let (replies, mut received) = mpsc::channel(8);
        let mut passed = Vec::new();
        filter_input(input.as_slice(), &mut passed, replies).await;
        assert_eq!(passed, b"{\"a\":1}\n");
        let reply: serde_json::Value =
            serde_json::from_slice(&received.recv().await.unwrap()).unwrap();
        assert_eq!(reply["error"]["code"], -32600);
    }
}
