//! The model that judges `llm` graders: asked once per vote whether the
//! work meets one criterion, it answers a verdict and the quotation that
//! decided it, so a report shows why and not only what.
//!
//! The judge is Anthropic's Messages API (the same HTTP client, retries and
//! key handling as the agent ranker). The work it reads leaves the machine:
//! `hone bench` says so before any judge is asked.

use serde_json::{Value, json};

use crate::agent::HttpPolicy;
use crate::agent::providers::{MessagesApi, Secret};
use crate::cancel::Cancel;

/// One judge's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Vote {
    pub passed: bool,
    /// A short quotation from the work.
    pub evidence: String,
}

/// Judges a criterion against a piece of work.
pub trait Judge: Send + Sync {
    fn vote(&self, criteria: &str, work: &str) -> Result<Vote, String>;
}

/// The longest piece of work sent to the judge, in characters.
const MAX_WORK_CHARS: usize = 60_000;

const INSTRUCTIONS: &str = "You grade an AI agent's work against one criterion. \
Reply with JSON only: {\"passed\": true or false, \"evidence\": \"a short quotation from the work that decides it\"}. \
If the work is empty or does not address the criterion, it does not pass.";

/// A judge through the Anthropic Messages API.
pub struct AnthropicJudge {
    api: MessagesApi,
    model: String,
}

impl AnthropicJudge {
    pub fn new(model: &str, key: Secret, base_url: Option<&str>) -> AnthropicJudge {
        AnthropicJudge {
            api: MessagesApi::new(key, base_url, HttpPolicy::default()),
            model: model.to_string(),
        }
    }
}

impl Judge for AnthropicJudge {
    fn vote(&self, criteria: &str, work: &str) -> Result<Vote, String> {
        let work: String = work.chars().take(MAX_WORK_CHARS).collect();
        let body = json!({
            "model": self.model,
            "max_tokens": 300,
            "system": INSTRUCTIONS,
            "messages": [{"role": "user", "content": format!("Criterion: {criteria}\n\n<work>\n{work}\n</work>")}],
        });
        let (answer, _) = self
            .api
            .post(&body, &Cancel::new())
            .map_err(|e| e.to_string())?;
        let text: String = answer["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|block| block["text"].as_str())
            .collect();
        parse_vote(&text).ok_or_else(|| format!("the judge's answer is not a verdict: {text:.200}"))
    }
}

/// The first JSON object in `text` with a boolean `passed`.
fn parse_vote(text: &str) -> Option<Vote> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    let value: Value = serde_json::from_str(text.get(start..=end)?).ok()?;
    Some(Vote {
        passed: value["passed"].as_bool()?,
        evidence: value["evidence"].as_str().unwrap_or_default().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_verdict_is_read_from_prose_around_json() {
        let vote = parse_vote("Sure.\n{\"passed\": true, \"evidence\": \"Hello, Ada!\"}").unwrap();
        assert!(vote.passed);
        assert_eq!(vote.evidence, "Hello, Ada!");
        assert!(parse_vote("yes").is_none());
        assert!(parse_vote("{\"passed\": \"yes\"}").is_none());
    }

    #[test]
    fn asks_the_messages_api_with_the_key_as_a_header() {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut buffer = vec![0; 65536];
            let mut request = String::new();
            while !request.contains("</work>") {
                let n = stream.read(&mut buffer).unwrap();
                if n == 0 {
                    break;
                }
                request.push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
            let body = r#"{"content":[{"type":"text","text":"{\"passed\": false, \"evidence\": \"no greeting\"}"}]}"#;
            write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            request
        });
        let judge = AnthropicJudge::new(
            "claude-haiku-4-5",
            Secret::new("sk-test"),
            Some(&format!("http://127.0.0.1:{port}")),
        );
        let vote = judge.vote("greets Ada", "nothing here").unwrap();
        assert_eq!(
            vote,
            Vote {
                passed: false,
                evidence: "no greeting".into()
            }
        );
        let request = server.join().unwrap();
        assert!(request.starts_with("POST /v1/messages"));
        assert!(request.to_ascii_lowercase().contains("x-api-key: sk-test"));
        assert!(request.contains("Criterion: greets Ada"));
    }
}
