//! A model API as the agent, with the smallest tool loop that can load a
//! skill: for skills whose work is the reply itself (writing, reviewing,
//! explaining), where a whole agent CLI would only add cost and noise.
//!
//! The arm's skill is listed in the system prompt the way Claude Code lists
//! it, and a `Skill` tool returns its `SKILL.md` when the model calls it;
//! no other tool exists, so the workspace is never touched and only reply
//! graders (and `skill_loaded`, `tool_used`) mean anything. The loop ends
//! when the model answers without a tool call, or after `max_turns`.
//!
//! The provider is Anthropic's Messages API, through the same HTTP client,
//! retries and key handling as the agent ranker.

use std::path::Path;

use serde_json::{Value, json};

use super::transcript::{ToolCall, Transcript};
use crate::agent::providers::{MessagesApi, Secret};
use crate::agent::{Cancel, HttpPolicy, Usage};

/// Room for a full answer.
const MAX_OUTPUT_TOKENS: u32 = 4096;

/// The Messages API as a minimal agent.
pub struct AnthropicAgent {
    api: MessagesApi,
    pub model: String,
}

/// The skill an arm offers: its name, description and the file the `Skill`
/// tool returns.
pub struct OfferedSkill<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub skill_md: &'a Path,
}

impl AnthropicAgent {
    pub fn new(model: &str, key: Secret, base_url: Option<&str>) -> AnthropicAgent {
        AnthropicAgent {
            api: MessagesApi::new(key, base_url, HttpPolicy::default()),
            model: model.to_string(),
        }
    }

    /// Runs `prompt` to its end and returns the transcript.
    pub fn run(
        &self,
        prompt: &str,
        skill: Option<&OfferedSkill>,
        max_turns: u32,
        cancel: &Cancel,
    ) -> Result<Transcript, String> {
        let mut transcript = Transcript::default();
        let mut messages = vec![json!({"role": "user", "content": prompt})];
        let mut body = json!({
            "model": self.model,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "system": "You are a helpful assistant.",
        });
        if let Some(skill) = skill {
            body["system"] = json!(format!(
                "You are a helpful assistant.\n\nThe following skills are available for use with the Skill tool:\n\n- {}: {}",
                skill.name, skill.description
            ));
            body["tools"] = json!([{
                "name": "Skill",
                "description": "Load a skill's instructions by name before doing the task it covers.",
                "input_schema": {"type": "object", "properties": {"skill": {"type": "string"}}, "required": ["skill"]},
            }]);
        }
        for _ in 0..max_turns.max(1) {
            body["messages"] = Value::Array(messages.clone());
            let (answer, _) = self.api.post(&body, cancel).map_err(|e| e.to_string())?;
            transcript.turns += 1;
            let usage = &answer["usage"];
            let count = |key: &str| usage[key].as_u64().unwrap_or(0);
            transcript.usage.add(&Usage {
                input_tokens: count("input_tokens"),
                output_tokens: count("output_tokens"),
                cache_write_tokens: count("cache_creation_input_tokens"),
                cache_read_tokens: count("cache_read_input_tokens"),
            });
            let content = answer["content"].as_array().cloned().unwrap_or_default();
            let mut results = Vec::new();
            for block in &content {
                match block["type"].as_str() {
                    Some("text") => {
                        transcript.final_reply =
                            block["text"].as_str().unwrap_or_default().to_string();
                    }
                    Some("tool_use") => {
                        let wanted = block["input"]["skill"].as_str().unwrap_or_default();
                        let body = skill
                            .filter(|s| s.name == wanted)
                            .and_then(|s| std::fs::read_to_string(s.skill_md).ok());
                        transcript.tool_calls.push(ToolCall {
                            name: block["name"].as_str().unwrap_or_default().to_string(),
                            input: block["input"].clone(),
                            failed: body.is_none(),
                        });
                        if body.is_some() {
                            transcript.skills_loaded.push(wanted.to_string());
                        }
                        results.push(json!({
                            "type": "tool_result",
                            "tool_use_id": block["id"],
                            "content": body.clone().unwrap_or_else(|| format!("Unknown skill: {wanted}")),
                            "is_error": body.is_none(),
                        }));
                    }
                    _ => {}
                }
            }
            if answer["stop_reason"] != "tool_use" || results.is_empty() {
                transcript.finished = true;
                return Ok(transcript);
            }
            messages.push(json!({"role": "assistant", "content": content}));
            messages.push(json!({"role": "user", "content": results}));
        }
        // Out of turns: what was said stands, as a CLI's --max-turns would.
        transcript.finished = true;
        Ok(transcript)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};

    /// A loopback Messages API answering each request from `answers` in turn
    /// and handing back the request bodies.
    fn server(answers: Vec<Value>) -> (u16, std::thread::JoinHandle<Vec<Value>>) {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = std::thread::spawn(move || {
            let mut bodies = Vec::new();
            for answer in answers {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                bodies.push(serde_json::from_slice(&body).unwrap());
                let text = answer.to_string();
                let mut stream = stream;
                write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                )
                .unwrap();
            }
            bodies
        });
        (port, handle)
    }

    #[test]
    fn loads_the_skill_through_the_tool_and_answers() {
        let dir = tempfile::tempdir().unwrap();
        let skill_md = dir.path().join("SKILL.md");
        std::fs::write(&skill_md, "---\nname: greet\n---\nSay Hello, NAME!").unwrap();
        let (port, server) = server(vec![
            json!({"content": [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "greet"}}],
                   "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 10}}),
            json!({"content": [{"type": "text", "text": "Hello, Ada!"}],
                   "stop_reason": "end_turn", "usage": {"input_tokens": 150, "output_tokens": 5, "cache_read_input_tokens": 50}}),
        ]);
        let agent = AnthropicAgent::new(
            "claude-haiku-4-5",
            Secret::new("sk"),
            Some(&format!("http://127.0.0.1:{port}")),
        );
        let offered = OfferedSkill {
            name: "greet",
            description: "Greets people.",
            skill_md: &skill_md,
        };
        let t = agent
            .run("Greet Ada", Some(&offered), 5, &Cancel::new())
            .unwrap();
        assert_eq!(t.final_reply, "Hello, Ada!");
        assert_eq!(t.skills_loaded, ["greet"]);
        assert_eq!(t.turns, 2);
        assert_eq!(t.usage.input_tokens, 250);
        assert_eq!(t.usage.cache_read_tokens, 50);
        assert!(t.finished);
        let bodies = server.join().unwrap();
        assert!(
            bodies[0]["system"]
                .as_str()
                .unwrap()
                .contains("- greet: Greets people.")
        );
        assert_eq!(
            bodies[1]["messages"][2]["content"][0]["content"],
            "---\nname: greet\n---\nSay Hello, NAME!"
        );
    }

    #[test]
    fn without_a_skill_there_is_no_tool() {
        let (port, server) = server(vec![json!({"content": [{"type": "text", "text": "hi"}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 1}})]);
        let agent = AnthropicAgent::new(
            "m",
            Secret::new("sk"),
            Some(&format!("http://127.0.0.1:{port}")),
        );
        let t = agent.run("Say hi", None, 5, &Cancel::new()).unwrap();
        assert_eq!(t.final_reply, "hi");
        assert!(server.join().unwrap()[0].get("tools").is_none());
    }
}
