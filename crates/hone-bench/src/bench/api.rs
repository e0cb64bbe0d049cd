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
//! Two providers: Anthropic's Messages API and OpenAI's Chat Completions,
//! each through the same HTTP client, retries and key handling as the agent
//! ranker. A run is a [`Conversation`] that takes one answer at a time, so
//! the same loop runs call by call ([`ApiAgent::run`]) or a turn of many
//! runs at once through a provider's batch API ([`super::batch`]).

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::transcript::{ToolCall, Transcript};
use crate::agent::HttpPolicy;
use crate::agent::providers::{
    ChatCompletionsApi, MessagesApi, Secret, chat_usage, messages_usage,
};
use crate::cancel::Cancel;

/// Room for a full answer.
const MAX_OUTPUT_TOKENS: u32 = 4096;

const SYSTEM_PROMPT: &str = "You are a helpful assistant.";
const SKILL_TOOL_DESCRIPTION: &str =
    "Load a skill's instructions by name before doing the task it covers.";

/// Which API plays the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Api {
    /// Anthropic's Messages API.
    Anthropic,
    /// OpenAI's Chat Completions.
    OpenAi,
}

impl Api {
    /// The agent's name in the report and the cache key.
    pub fn name(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic",
            Api::OpenAi => "openai",
        }
    }

    /// The API's name, as the agent's version.
    pub fn version(self) -> &'static str {
        match self {
            Api::Anthropic => "messages-api",
            Api::OpenAi => "chat-completions-api",
        }
    }

    /// Who runs it, for the line that says where the prompts go.
    pub fn display_name(self) -> &'static str {
        match self {
            Api::Anthropic => "Anthropic",
            Api::OpenAi => "OpenAI",
        }
    }
}

/// The endpoint the agent's calls go to.
enum Endpoint {
    Anthropic(MessagesApi),
    OpenAi(ChatCompletionsApi),
}

/// A model API as a minimal agent.
pub struct ApiAgent {
    endpoint: Endpoint,
    pub model: String,
}

/// The skill an arm offers: its name, description and the file the `Skill`
/// tool returns.
pub struct OfferedSkill<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub skill_md: &'a Path,
}

/// One run of the loop so far: the messages after the system prompt, in the
/// provider's wire format, and what the run did. It is plain data, so a
/// batch keeps it on disk between rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    messages: Vec<Value>,
    pub transcript: Transcript,
}

impl Conversation {
    /// A run that starts with `prompt`.
    pub fn new(prompt: &str) -> Conversation {
        Conversation {
            messages: vec![json!({"role": "user", "content": prompt})],
            transcript: Transcript::default(),
        }
    }

    /// Whether the run ended: the model answered without a tool call, or
    /// the turns ran out.
    pub fn finished(&self) -> bool {
        self.transcript.finished
    }
}

impl ApiAgent {
    /// The Messages API; `base_url` defaults to Anthropic's.
    pub fn anthropic(model: &str, key: Secret, base_url: Option<&str>) -> ApiAgent {
        ApiAgent {
            endpoint: Endpoint::Anthropic(MessagesApi::new(key, base_url, HttpPolicy::default())),
            model: model.to_string(),
        }
    }

    /// Chat Completions; `base_url` defaults to OpenAI's (`…/v1`).
    pub fn openai(model: &str, key: Secret, base_url: Option<&str>) -> ApiAgent {
        ApiAgent {
            endpoint: Endpoint::OpenAi(ChatCompletionsApi::new(
                Some(key),
                base_url,
                HttpPolicy::default(),
            )),
            model: model.to_string(),
        }
    }

    pub fn api(&self) -> Api {
        match self.endpoint {
            Endpoint::Anthropic(_) => Api::Anthropic,
            Endpoint::OpenAi(_) => Api::OpenAi,
        }
    }

    /// Where the agent's calls go.
    pub fn base_url(&self) -> &str {
        match &self.endpoint {
            Endpoint::Anthropic(api) => api.base_url(),
            Endpoint::OpenAi(api) => api.base_url(),
        }
    }

    pub(crate) fn messages_api(&self) -> Option<&MessagesApi> {
        match &self.endpoint {
            Endpoint::Anthropic(api) => Some(api),
            Endpoint::OpenAi(_) => None,
        }
    }

    pub(crate) fn chat_api(&self) -> Option<&ChatCompletionsApi> {
        match &self.endpoint {
            Endpoint::OpenAi(api) => Some(api),
            Endpoint::Anthropic(_) => None,
        }
    }

    /// Runs `prompt` to its end, a call a turn, and returns the transcript.
    pub fn run(
        &self,
        prompt: &str,
        skill: Option<&OfferedSkill>,
        max_turns: u32,
        cancel: &Cancel,
    ) -> Result<Transcript, String> {
        let mut conversation = Conversation::new(prompt);
        while !conversation.finished() {
            let body = self.request(&conversation, skill);
            let answer = match &self.endpoint {
                Endpoint::Anthropic(api) => api.post(&body, cancel),
                Endpoint::OpenAi(api) => api.post(&body, cancel),
            };
            let (answer, _) = answer.map_err(|e| e.to_string())?;
            self.take_answer(&mut conversation, &answer, skill, max_turns)?;
        }
        Ok(conversation.transcript)
    }

    /// The request body of the conversation's next turn.
    pub fn request(&self, conversation: &Conversation, skill: Option<&OfferedSkill>) -> Value {
        let system = match skill {
            Some(skill) => format!(
                "{SYSTEM_PROMPT}\n\nThe following skills are available for use with the Skill tool:\n\n- {}: {}",
                skill.name, skill.description
            ),
            None => SYSTEM_PROMPT.to_string(),
        };
        let parameters = json!({"type": "object", "properties": {"skill": {"type": "string"}}, "required": ["skill"]});
        match self.api() {
            Api::Anthropic => {
                let mut body = json!({
                    "model": self.model,
                    "max_tokens": MAX_OUTPUT_TOKENS,
                    "system": system,
                    "messages": conversation.messages,
                });
                if skill.is_some() {
                    body["tools"] = json!([{"name": "Skill", "description": SKILL_TOOL_DESCRIPTION, "input_schema": parameters}]);
                }
                body
            }
            Api::OpenAi => {
                let mut messages = vec![json!({"role": "system", "content": system})];
                messages.extend(conversation.messages.iter().cloned());
                let mut body = json!({
                    "model": self.model,
                    "max_completion_tokens": MAX_OUTPUT_TOKENS,
                    "messages": messages,
                });
                if skill.is_some() {
                    body["tools"] = json!([{"type": "function", "function": {
                        "name": "Skill", "description": SKILL_TOOL_DESCRIPTION, "parameters": parameters}}]);
                }
                body
            }
        }
    }

    /// Takes the model's answer to the conversation's last request: its
    /// usage, its text, its `Skill` calls answered; the run ends when the
    /// model called no tool or `max_turns` turns were taken.
    pub fn take_answer(
        &self,
        conversation: &mut Conversation,
        answer: &Value,
        skill: Option<&OfferedSkill>,
        max_turns: u32,
    ) -> Result<(), String> {
        let called = match self.api() {
            Api::Anthropic => take_messages_answer(conversation, answer, skill)?,
            Api::OpenAi => take_chat_answer(conversation, answer, skill)?,
        };
        conversation.transcript.turns += 1;
        // Out of turns: what was said stands, as a CLI's --max-turns would.
        if !called || conversation.transcript.turns >= max_turns.max(1) {
            conversation.transcript.finished = true;
        }
        Ok(())
    }
}

/// Answers a tool call (only `Skill` exists): records the call, and returns
/// its result and whether it failed.
fn call_skill(
    transcript: &mut Transcript,
    name: &Value,
    input: &Value,
    skill: Option<&OfferedSkill>,
) -> (String, bool) {
    let wanted = input["skill"].as_str().unwrap_or_default();
    let body = skill
        .filter(|s| name == "Skill" && s.name == wanted)
        .and_then(|s| std::fs::read_to_string(s.skill_md).ok());
    transcript.tool_calls.push(ToolCall {
        name: name.as_str().unwrap_or_default().to_string(),
        input: input.clone(),
        failed: body.is_none(),
    });
    match body {
        Some(body) => {
            transcript.skills_loaded.push(wanted.to_string());
            (body, false)
        }
        None => (format!("Unknown skill: {wanted}"), true),
    }
}

/// A Messages answer; whether it called a tool.
fn take_messages_answer(
    conversation: &mut Conversation,
    answer: &Value,
    skill: Option<&OfferedSkill>,
) -> Result<bool, String> {
    if answer["type"] == "error" {
        return Err(format!(
            "the API answered an error: {}",
            answer["error"]["message"]
                .as_str()
                .unwrap_or("unknown error")
        ));
    }
    let transcript = &mut conversation.transcript;
    transcript.usage.add(&messages_usage(&answer["usage"]));
    let content = answer["content"].as_array().cloned().unwrap_or_default();
    let mut results = Vec::new();
    for block in &content {
        match block["type"].as_str() {
            Some("text") => {
                transcript.final_reply = block["text"].as_str().unwrap_or_default().to_string();
            }
            Some("tool_use") => {
                let (result, failed) =
                    call_skill(transcript, &block["name"], &block["input"], skill);
                results.push(json!({
                    "type": "tool_result",
                    "tool_use_id": block["id"],
                    "content": result,
                    "is_error": failed,
                }));
            }
            _ => {}
        }
    }
    if answer["stop_reason"] != "tool_use" || results.is_empty() {
        return Ok(false);
    }
    conversation
        .messages
        .push(json!({"role": "assistant", "content": content}));
    conversation
        .messages
        .push(json!({"role": "user", "content": results}));
    Ok(true)
}

/// A chat completion; whether it called a tool.
fn take_chat_answer(
    conversation: &mut Conversation,
    answer: &Value,
    skill: Option<&OfferedSkill>,
) -> Result<bool, String> {
    let Some(message) = answer.pointer("/choices/0/message") else {
        return Err(format!(
            "a chat completion without `choices[0].message`: {:.200}",
            answer.to_string()
        ));
    };
    let transcript = &mut conversation.transcript;
    transcript.usage.add(&chat_usage(&answer["usage"]));
    if let Some(text) = message["content"].as_str().filter(|t| !t.is_empty()) {
        transcript.final_reply = text.to_string();
    }
    let calls = message["tool_calls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut results = Vec::new();
    for call in &calls {
        // Arguments are a JSON document inside a string (some servers send an object).
        let input = match &call["function"]["arguments"] {
            Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            other => other.clone(),
        };
        let (result, _) = call_skill(transcript, &call["function"]["name"], &input, skill);
        results.push(json!({"role": "tool", "tool_call_id": call["id"], "content": result}));
    }
    if results.is_empty() {
        return Ok(false);
    }
    conversation.messages.push(json!({
        "role": "assistant",
        "content": message["content"],
        "tool_calls": calls,
    }));
    conversation.messages.extend(results);
    Ok(true)
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

    const SKILL_MD: &str = "---\nname: greet\n---\nSay Hello, NAME!";

    /// "Greet Ada" with the `greet` skill offered, the loopback API giving
    /// `answers`; the transcript and the request bodies. `agent` makes the
    /// agent for the server's address.
    fn greet(answers: Vec<Value>, agent: impl Fn(&str) -> ApiAgent) -> (Transcript, Vec<Value>) {
        let dir = tempfile::tempdir().unwrap();
        let skill_md = dir.path().join("SKILL.md");
        std::fs::write(&skill_md, SKILL_MD).unwrap();
        let (port, server) = server(answers);
        let offered = OfferedSkill {
            name: "greet",
            description: "Greets people.",
            skill_md: &skill_md,
        };
        let t = agent(&format!("http://127.0.0.1:{port}"))
            .run("Greet Ada", Some(&offered), 5, &Cancel::new())
            .unwrap();
        assert_eq!(t.final_reply, "Hello, Ada!");
        assert_eq!(t.skills_loaded, ["greet"]);
        assert_eq!((t.turns, t.finished), (2, true));
        (t, server.join().unwrap())
    }

    #[test]
    fn loads_the_skill_through_the_tool_and_answers() {
        let (t, bodies) = greet(
            vec![
                json!({"content": [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "greet"}}],
                   "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 10}}),
                json!({"content": [{"type": "text", "text": "Hello, Ada!"}],
                   "stop_reason": "end_turn", "usage": {"input_tokens": 150, "output_tokens": 5, "cache_read_input_tokens": 50}}),
            ],
            |base| ApiAgent::anthropic("claude-haiku-4-5", Secret::new("sk"), Some(base)),
        );
        assert_eq!(t.usage.input_tokens, 250);
        assert_eq!(t.usage.cache_read_tokens, 50);
        assert!(
            bodies[0]["system"]
                .as_str()
                .unwrap()
                .contains("- greet: Greets people.")
        );
        assert_eq!(bodies[1]["messages"][2]["content"][0]["content"], SKILL_MD);
    }

    #[test]
    fn chat_completions_load_the_skill_through_a_function_call() {
        let (t, bodies) = greet(
            vec![
                json!({"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": "Skill", "arguments": "{\"skill\":\"greet\"}"}}]}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "prompt_tokens_details": {"cached_tokens": 40}}}),
                json!({"id": "c2", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Hello, Ada!"}}],
                "usage": {"prompt_tokens": 150, "completion_tokens": 5}}),
            ],
            |base| ApiAgent::openai("gpt-5-mini", Secret::new("sk"), Some(&format!("{base}/v1"))),
        );
        assert_eq!((t.usage.input_tokens, t.usage.cache_read_tokens), (210, 40));
        assert_eq!(t.usage.output_tokens, 15);
        assert_eq!(bodies[0]["messages"][0]["role"], "system");
        assert!(
            bodies[0]["messages"][0]["content"]
                .as_str()
                .unwrap()
                .contains("- greet: Greets people.")
        );
        assert_eq!(bodies[0]["tools"][0]["function"]["name"], "Skill");
        // The call and its result go back in the next turn.
        let messages = bodies[1]["messages"].as_array().unwrap();
        assert_eq!(messages[2]["tool_calls"][0]["id"], "call_1");
        assert_eq!(messages[3]["role"], "tool");
        assert_eq!(messages[3]["tool_call_id"], "call_1");
        assert_eq!(messages[3]["content"], SKILL_MD);
    }

    #[test]
    fn an_answer_without_a_message_is_an_error_not_a_panic() {
        let (port, server) = server(vec![json!({"choices": []})]);
        let agent = ApiAgent::openai(
            "m",
            Secret::new("sk"),
            Some(&format!("http://127.0.0.1:{port}/v1")),
        );
        let error = agent.run("hi", None, 5, &Cancel::new()).unwrap_err();
        assert!(error.contains("without `choices[0].message`"), "{error}");
        server.join().unwrap();
    }

    #[test]
    fn without_a_skill_there_is_no_tool() {
        let (port, server) = server(vec![json!({"content": [{"type": "text", "text": "hi"}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 1}})]);
        let agent = ApiAgent::anthropic(
            "m",
            Secret::new("sk"),
            Some(&format!("http://127.0.0.1:{port}")),
        );
        let t = agent.run("Say hi", None, 5, &Cancel::new()).unwrap();
        assert_eq!(t.final_reply, "hi");
        assert!(server.join().unwrap()[0].get("tools").is_none());
    }
}
