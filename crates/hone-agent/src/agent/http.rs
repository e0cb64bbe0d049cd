//! JSON over HTTP with the policy a paid API needs: a per-call timeout,
//! retries with exponential backoff and full jitter on 429, 5xx, timeouts
//! and broken connections, `retry-after` honoured, and cancellation that
//! interrupts the wait between attempts.
//!
//! The client is `ureq` (blocking, rustls): the engine is synchronous and
//! runs calls on a few worker threads, so an async runtime would add weight
//! without adding concurrency. Secrets are passed as headers only and never
//! appear in an error: errors carry the status and the API's own message.

use std::time::Duration;

use super::AgentError;
use crate::cancel::Cancel;

/// How calls are made and retried.
#[derive(Debug, Clone)]
pub struct HttpPolicy {
    /// The longest one call may take, connection to last byte.
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// The first backoff; each retry doubles it (before jitter).
    pub backoff: Duration,
    /// The longest wait between attempts, `retry-after` included.
    pub max_wait: Duration,
}

impl Default for HttpPolicy {
    fn default() -> Self {
        HttpPolicy {
            timeout: Duration::from_secs(60),
            retries: 4,
            backoff: Duration::from_secs(1),
            max_wait: Duration::from_secs(120),
        }
    }
}

/// The largest answer read: a tool call is a few kilobytes.
const MAX_BODY_BYTES: u64 = 4 * 1024 * 1024;

/// A header sent with a request. `secret` values are never shown.
pub(crate) struct Header<'a> {
    pub name: &'a str,
    pub value: &'a str,
}

/// An HTTP client with a retry policy.
pub(crate) struct Http {
    agent: ureq::Agent,
    policy: HttpPolicy,
}

/// One failed attempt, and what the server asked us to wait.
struct Attempt {
    error: AgentError,
    retry_after: Option<Duration>,
}

impl Http {
    pub fn new(policy: HttpPolicy) -> Http {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(policy.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("hone/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Http { agent, policy }
    }

    /// POSTs `body` to `url` and parses the JSON answer, retrying what is
    /// worth retrying. Returns the answer and the number of attempts made.
    pub fn post_json(
        &self,
        url: &str,
        headers: &[Header],
        body: &serde_json::Value,
        cancel: &Cancel,
    ) -> Result<(serde_json::Value, u32), AgentError> {
        let body = body.to_string();
        let sent = Body {
            content_type: "application/json",
            bytes: body.as_bytes(),
        };
        let (text, attempts) = self.send(url, headers, Some(&sent), MAX_BODY_BYTES, cancel)?;
        Ok((parse_json(&text)?, attempts))
    }

    /// POSTs a body of any type (a multipart upload) and parses the JSON answer.
    pub fn post_body(
        &self,
        url: &str,
        headers: &[Header],
        body: &Body,
        cancel: &Cancel,
    ) -> Result<serde_json::Value, AgentError> {
        let (text, _) = self.send(url, headers, Some(body), MAX_BODY_BYTES, cancel)?;
        parse_json(&text)
    }

    /// GETs `url` and parses the JSON answer.
    pub fn get_json(
        &self,
        url: &str,
        headers: &[Header],
        cancel: &Cancel,
    ) -> Result<serde_json::Value, AgentError> {
        let (text, _) = self.send(url, headers, None, MAX_BODY_BYTES, cancel)?;
        parse_json(&text)
    }

    /// GETs `url` as text of up to `limit` bytes (a batch's results).
    pub fn get_text(
        &self,
        url: &str,
        headers: &[Header],
        limit: u64,
        cancel: &Cancel,
    ) -> Result<String, AgentError> {
        self.send(url, headers, None, limit, cancel)
            .map(|(text, _)| text)
    }

    /// POSTs `body`, or GETs without one, retrying what is worth retrying;
    /// the answer's text and the attempts made.
    fn send(
        &self,
        url: &str,
        headers: &[Header],
        body: Option<&Body>,
        limit: u64,
        cancel: &Cancel,
    ) -> Result<(String, u32), AgentError> {
        let mut attempt = 0;
        loop {
            if cancel.is_cancelled() {
                return Err(AgentError::Cancelled);
            }
            attempt += 1;
            match self.once(url, headers, body, limit) {
                Ok(answer) => return Ok((answer, attempt)),
                Err(failed) if failed.error.is_retryable() && attempt <= self.policy.retries => {
                    let wait = failed
                        .retry_after
                        .unwrap_or_else(|| self.backoff(attempt))
                        .min(self.policy.max_wait);
                    if !cancel.sleep(wait) {
                        return Err(AgentError::Cancelled);
                    }
                }
                Err(failed) if attempt > 1 && failed.error.is_retryable() => {
                    return Err(AgentError::GaveUp {
                        attempts: attempt,
                        last: Box::new(failed.error),
                    });
                }
                Err(failed) => return Err(failed.error),
            }
        }
    }

    /// Full jitter: a uniform wait in `[0, backoff × 2^(attempt-1)]`.
    fn backoff(&self, attempt: u32) -> Duration {
        let ceiling = self
            .policy
            .backoff
            .saturating_mul(1 << (attempt - 1).min(16))
            .min(self.policy.max_wait);
        ceiling.mul_f64(fastrand::f64())
    }

    fn once(
        &self,
        url: &str,
        headers: &[Header],
        body: Option<&Body>,
        limit: u64,
    ) -> Result<String, Attempt> {
        let fail = |error| Attempt {
            error,
            retry_after: None,
        };
        let sent = match body {
            Some(body) => {
                let mut request = self
                    .agent
                    .post(url)
                    .header("content-type", body.content_type);
                for header in headers {
                    request = request.header(header.name, header.value);
                }
                request.send(body.bytes)
            }
            None => {
                let mut request = self.agent.get(url);
                for header in headers {
                    request = request.header(header.name, header.value);
                }
                request.call()
            }
        };
        let mut response = sent.map_err(|e| fail(transport(e)))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let text = response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_string()
            .map_err(|e| Attempt {
                error: transport(e),
                retry_after,
            })?;
        if !(200..300).contains(&status) {
            return Err(Attempt {
                error: AgentError::Status {
                    status,
                    message: api_message(&text),
                },
                retry_after,
            });
        }
        Ok(text)
    }
}

/// A request's body: its content type and bytes.
pub(crate) struct Body<'a> {
    pub content_type: &'a str,
    pub bytes: &'a [u8],
}

fn parse_json(text: &str) -> Result<serde_json::Value, AgentError> {
    serde_json::from_str(text).map_err(|e| {
        AgentError::Malformed(format!(
            "the answer is not valid JSON ({e}): {}",
            excerpt(text)
        ))
    })
}

fn transport(error: ureq::Error) -> AgentError {
    match error {
        ureq::Error::Timeout(_) => AgentError::Timeout,
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => AgentError::Timeout,
        other => AgentError::Transport(other.to_string()),
    }
}

/// `retry-after` as seconds (integer or decimal). An HTTP date is rare on
/// these APIs and falls back to the backoff.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The error message of an API's error body (`{"error": {"message": ...}}`
/// for Anthropic and OpenAI alike), else an excerpt of the body.
fn api_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|json| {
            let error = json.get("error")?;
            error
                .get("message")
                .and_then(|m| m.as_str())
                .or_else(|| error.as_str())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| excerpt(body))
}

/// The start of a text, for an error message.
pub(crate) fn excerpt(text: &str) -> String {
    const LIMIT: usize = 200;
    let text = text.trim();
    match text.char_indices().nth(LIMIT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None if text.is_empty() => "(empty)".to_owned(),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }

    #[test]
    fn backoff_grows_and_stays_under_its_ceiling() {
        let http = Http::new(HttpPolicy {
            backoff: Duration::from_millis(100),
            max_wait: Duration::from_secs(1),
            ..HttpPolicy::default()
        });
        for attempt in 1..10 {
            let ceiling = Duration::from_millis(100 << (attempt - 1)).min(Duration::from_secs(1));
            assert!(http.backoff(attempt) <= ceiling);
        }
    }

    #[test]
    fn api_errors_show_the_api_message() {
        assert_eq!(
            api_message(
                r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#
            ),
            "slow down"
        );
        assert_eq!(
            api_message("<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
    }
}
