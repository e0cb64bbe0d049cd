//! A scripted model: the loopback stand-in answers a real client's turns
//! from a script (load a skill, write a file, run a command, answer), so a
//! task eval runs end to end through the real agent binary with no model.
//!
//! The stand-in keeps no state between requests. Where it is in the script
//! is read off the request itself: a client sends the whole conversation
//! each turn, so the number of assistant turns in it is the number of steps
//! already taken. A step may hold a condition: `listed` (the skill is in the
//! listing this request carries), `loaded` (an earlier step loaded it), or
//! their negations. Steps whose condition fails are passed over, so one
//! script plays the run with the skill and the run without it, as a model
//! that reads its listing would.
//!
//! Steps become the client's own tool calls in its own wire format; only
//! the clients whose tools are known here can be scripted: Claude Code
//! (Anthropic Messages: `Skill`, `Write`, `Read`, `Bash`) and Codex (OpenAI
//! Responses: every step an `exec_command`, as Codex itself loads a skill by
//! reading its `SKILL.md`) and Gemini CLI (the Gemini API: `activate_skill`,
//! `write_file`, `read_file`, `run_shell_command`; its tools are offered
//! only with `--approval-mode yolo`) and OpenCode (OpenAI Chat Completions:
//! `skill`, `write`, `read`, `bash`).
//!
//! A `break-stream` step starts a streamed answer and cuts the connection
//! before its content ends, short of the length the stand-in announced, so
//! a client's handling of a provider failing mid-answer (its retries, its
//! error) can be tested against the real binary.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Client;

/// One turn of the scripted model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(flatten)]
    pub action: Action,
    /// When the step is taken; always when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Condition>,
}

/// What the model does in a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Load the named skill (only when the client lists it). Words after
    /// the name are its arguments, as after `/name` (Claude Code passes
    /// them on; the other clients' tools take none).
    Skill(String),
    /// Write a file, relative to the workspace.
    Write { path: String, content: String },
    /// Read a file, relative to the workspace.
    Read(String),
    /// Run a shell command in the workspace.
    Run(String),
    /// Answer and end the run.
    Answer(String),
    /// Start streaming this answer, then cut the connection mid-way (after
    /// the stream's opening events and part of the text, before the end of
    /// the content): a provider failing mid-answer. A client that retries
    /// gets the same broken answer each time.
    BreakStream(String),
}

/// A step's condition, about the skill the script loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Condition {
    Listed,
    NotListed,
    Loaded,
    NotLoaded,
}

/// The steps of a run, with the workspace the paths are relative to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Script {
    pub steps: Vec<Step>,
    pub workspace: PathBuf,
}

/// The stand-in's answer to one turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub content_type: &'static str,
    pub body: String,
    /// Bytes of `body` sent before the connection is cut (the full length
    /// is still announced); `None` sends it all.
    pub cut_at: Option<usize>,
}

impl Reply {
    pub fn whole(content_type: &'static str, body: String) -> Reply {
        Reply {
            content_type,
            body,
            cut_at: None,
        }
    }

    /// `body` cut just before `marker` (the event that would end the
    /// content), or halfway without one.
    fn broken(content_type: &'static str, body: String, marker: Option<&str>) -> Reply {
        let cut_at = marker
            .and_then(|marker| body.find(marker))
            .unwrap_or(body.len() / 2);
        Reply {
            content_type,
            body,
            cut_at: Some(cut_at),
        }
    }
}

/// Whether `client` can be driven by a script.
pub fn supports(client: Client) -> bool {
    matches!(
        client,
        Client::ClaudeCode | Client::Codex | Client::Gemini | Client::Opencode
    )
}

impl Script {
    /// The skill the script loads, which its conditions are about.
    fn skill(&self) -> Option<&str> {
        self.steps.iter().find_map(|step| match &step.action {
            Action::Skill(spec) => Some(skill_name(spec)),
            _ => None,
        })
    }

    /// The step to answer with, given how many turns the conversation has
    /// had and whether the skill is listed in this request. After the last
    /// step (or past the script) the answer is a plain "Done.".
    pub fn step_for(&self, turns_taken: usize, listed: bool) -> Action {
        let mut loaded = false;
        let mut taken = 0;
        for step in &self.steps {
            let holds = match step.when {
                None => true,
                Some(Condition::Listed) => listed,
                Some(Condition::NotListed) => !listed,
                Some(Condition::Loaded) => loaded,
                Some(Condition::NotLoaded) => !loaded,
            };
            // A model cannot load a skill its listing does not show.
            let possible = !matches!(step.action, Action::Skill(_)) || listed;
            if !holds || !possible {
                continue;
            }
            if taken == turns_taken {
                return step.action.clone();
            }
            if matches!(step.action, Action::Skill(_)) {
                loaded = true;
            }
            if matches!(step.action, Action::Answer(_)) {
                break;
            }
            taken += 1;
        }
        Action::Answer("Done.".into())
    }

    /// The answer to one request of `client`, or `None` when the request is
    /// not a turn of the agent's loop (a title or a token count), which the
    /// stand-in answers as usual. The wire format follows the request's
    /// path, so a client that speaks several (OpenCode, by provider) is
    /// answered in the one it used; the tool calls are the client's own.
    pub fn answer(&self, client: Client, path: &str, body: &Value) -> Option<Reply> {
        let route = path.split('?').next().unwrap_or(path);
        match client {
            Client::Copilot => None,
            Client::Gemini => self.answer_gemini(path, body),
            _ if route.ends_with("/messages") => self.answer_anthropic(client, body),
            _ if route.ends_with("/responses") => self.answer_responses(client, body),
            _ if route.ends_with("/chat/completions") => self.answer_chat(client, body),
            _ => None,
        }
    }

    /// Whether the listing in a request of `client` shows the script's skill.
    fn listed(&self, client: Client, body: &Value) -> bool {
        let Some(skill) = self.skill() else {
            return false;
        };
        match client {
            Client::ClaudeCode => super::claude_code::listing_in_request(body)
                .is_some_and(|listing| listing_names(&listing, skill)),
            Client::Codex => super::codex::listing_in_request(body)
                .is_some_and(|listing| listing_names(&listing, skill)),
            Client::Opencode => super::opencode::listing_in_request(body)
                .is_some_and(|listing| listing.contains(&format!("<name>{skill}</name>"))),
            Client::Gemini | Client::Copilot => false,
        }
    }

    /// The tool call (or answer) that does `action` in `client`.
    fn call(&self, client: Client, action: &Action) -> Turn {
        match client {
            Client::Codex => codex_call(action),
            Client::Opencode => opencode_call(action, &self.workspace),
            Client::Gemini => gemini_call(action),
            Client::ClaudeCode | Client::Copilot => claude_code_call(action, &self.workspace),
        }
    }

    fn answer_chat(&self, client: Client, body: &Value) -> Option<Reply> {
        // Its title requests offer no tools.
        body.get("tools")?.as_array().filter(|t| !t.is_empty())?;
        let turns = body
            .get("messages")?
            .as_array()?
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .count();
        let action = self.step_for(turns, self.listed(client, body));
        let model = body.get("model").and_then(Value::as_str).unwrap_or("model");
        let stream = chat_turn(model, turns, &self.call(client, &action));
        Some(match action {
            // Cut before the chunk that ends the answer.
            Action::BreakStream(_) => {
                Reply::broken("text/event-stream", stream, Some("\"finish_reason\":\""))
            }
            _ => Reply::whole("text/event-stream", stream),
        })
    }

    fn answer_gemini(&self, path: &str, body: &Value) -> Option<Reply> {
        let declarations: Vec<&Value> = body
            .get("tools")?
            .as_array()?
            .iter()
            .filter_map(|tool| tool.get("functionDeclarations")?.as_array())
            .flatten()
            .collect();
        if declarations.is_empty() {
            return None;
        }
        let turns = body
            .get("contents")?
            .as_array()?
            .iter()
            .filter_map(|content| content.get("parts")?.as_array())
            .flatten()
            .filter(|part| part.get("functionCall").is_some())
            .count();
        // Gemini CLI offers the skills it lists as the values `activate_skill` takes.
        let listed = self.skill().is_some_and(|skill| {
            declarations.iter().any(|d| {
                d.get("name").and_then(Value::as_str) == Some("activate_skill")
                    && d.to_string().contains(&format!("\"{skill}\""))
            })
        });
        let action = self.step_for(turns, listed);
        let part = match gemini_call(&action) {
            Turn::Tool(name, args) => json!({"functionCall": {"name": name, "args": args}}),
            Turn::Text(text) => json!({"text": text}),
        };
        let reply = json!({"candidates": [{"content": {"role": "model", "parts": [part]},
            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 20, "totalTokenCount": 30}});
        let (content_type, body) = if path.contains(":streamGenerateContent") {
            ("text/event-stream", format!("data: {reply}\n\n"))
        } else {
            ("application/json", reply.to_string())
        };
        // One event holds the whole answer: the cut falls inside it.
        Some(match action {
            Action::BreakStream(_) => Reply::broken(content_type, body, None),
            _ => Reply::whole(content_type, body),
        })
    }

    fn answer_responses(&self, client: Client, body: &Value) -> Option<Reply> {
        body.get("tools")?.as_array().filter(|t| !t.is_empty())?;
        let input = body.get("input")?.as_array()?;
        let turns = input
            .iter()
            .filter(|item| {
                matches!(
                    item.get("type").and_then(Value::as_str),
                    Some("function_call" | "custom_tool_call")
                )
            })
            .count();
        let action = self.step_for(turns, self.listed(client, body));
        let model = body.get("model").and_then(Value::as_str).unwrap_or("model");
        let stream = responses_turn(model, turns, &self.call(client, &action));
        Some(match action {
            Action::BreakStream(_) => Reply::broken(
                "text/event-stream",
                stream,
                Some("event: response.output_item.done"),
            ),
            _ => Reply::whole("text/event-stream", stream),
        })
    }

    fn answer_anthropic(&self, client: Client, body: &Value) -> Option<Reply> {
        // The agent loop offers tools; side requests do not.
        body.get("tools")?.as_array().filter(|t| !t.is_empty())?;
        let messages = body.get("messages")?.as_array()?;
        let turns = messages
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .count();
        let action = self.step_for(turns, self.listed(client, body));
        let model = body.get("model").and_then(Value::as_str).unwrap_or("model");
        let stream = anthropic_turn(model, turns, &self.call(client, &action));
        Some(match action {
            Action::BreakStream(_) => Reply::broken(
                "text/event-stream",
                stream,
                Some("event: content_block_stop"),
            ),
            _ => Reply::whole("text/event-stream", stream),
        })
    }
}

/// The skill a `skill` step names: its first word.
fn skill_name(spec: &str) -> &str {
    spec.split_whitespace().next().unwrap_or("")
}

/// Whether a listing shows `skill` as an entry (`- skill: …` or `- skill`).
fn listing_names(listing: &str, skill: &str) -> bool {
    listing.lines().any(|line| {
        line.strip_prefix("- ")
            .and_then(|rest| rest.strip_prefix(skill))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(':') || rest.starts_with(' '))
    })
}

/// A tool call (name, input) or, for an answer, the text.
enum Turn {
    Tool(&'static str, Value),
    Text(String),
}

fn claude_code_call(action: &Action, workspace: &Path) -> Turn {
    let absolute = |path: &str| workspace.join(path).display().to_string();
    match action {
        Action::Skill(spec) => match spec.trim().split_once(char::is_whitespace) {
            Some((name, args)) => Turn::Tool("Skill", json!({"skill": name, "args": args.trim()})),
            None => Turn::Tool("Skill", json!({"skill": spec.trim()})),
        },
        Action::Write { path, content } => Turn::Tool(
            "Write",
            json!({"file_path": absolute(path), "content": content}),
        ),
        Action::Read(path) => Turn::Tool("Read", json!({"file_path": absolute(path)})),
        Action::Run(command) => Turn::Tool(
            "Bash",
            json!({"command": command, "description": "scripted step"}),
        ),
        Action::Answer(text) | Action::BreakStream(text) => Turn::Text(text.clone()),
    }
}

fn opencode_call(action: &Action, workspace: &Path) -> Turn {
    let absolute = |path: &str| workspace.join(path).display().to_string();
    match action {
        Action::Skill(spec) => Turn::Tool("skill", json!({"name": skill_name(spec)})),
        Action::Write { path, content } => Turn::Tool(
            "write",
            json!({"filePath": absolute(path), "content": content}),
        ),
        Action::Read(path) => Turn::Tool("read", json!({"filePath": absolute(path)})),
        Action::Run(command) => Turn::Tool(
            "bash",
            json!({"command": command, "description": "scripted step"}),
        ),
        Action::Answer(text) | Action::BreakStream(text) => Turn::Text(text.clone()),
    }
}

fn gemini_call(action: &Action) -> Turn {
    match action {
        Action::Skill(spec) => Turn::Tool("activate_skill", json!({"name": skill_name(spec)})),
        Action::Write { path, content } => {
            Turn::Tool("write_file", json!({"file_path": path, "content": content}))
        }
        Action::Read(path) => Turn::Tool("read_file", json!({"file_path": path})),
        Action::Run(command) => Turn::Tool(
            "run_shell_command",
            json!({"command": command, "description": "scripted step"}),
        ),
        Action::Answer(text) | Action::BreakStream(text) => Turn::Text(text.clone()),
    }
}

/// Codex does everything through its shell tool; a file is written from
/// base64 so that no content needs quoting.
fn codex_call(action: &Action) -> Turn {
    let command = |cmd: String| Turn::Tool("exec_command", json!({"cmd": cmd}));
    match action {
        Action::Skill(spec) => command(format!("cat .agents/skills/{}/SKILL.md", skill_name(spec))),
        Action::Write { path, content } => command(format!(
            "mkdir -p \"$(dirname '{path}')\" && printf %s {} | base64 -d > '{path}'",
            base64(content.as_bytes())
        )),
        Action::Read(path) => command(format!("cat '{path}'")),
        Action::Run(cmd) => command(cmd.clone()),
        Action::Answer(text) | Action::BreakStream(text) => Turn::Text(text.clone()),
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One streamed OpenAI Responses answer holding `turn`.
fn responses_turn(model: &str, index: usize, turn: &Turn) -> String {
    let item = match turn {
        Turn::Tool(name, input) => {
            json!({"type": "function_call", "id": format!("fc_script_{index}"),
            "call_id": format!("call_script_{index}"), "name": name,
            "arguments": input.to_string(), "status": "completed"})
        }
        Turn::Text(text) => json!({"type": "message", "id": format!("msg_script_{index}"),
            "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}),
    };
    let response = json!({"id": format!("resp_script_{index}"), "object": "response",
        "created_at": 1, "status": "in_progress", "model": model, "output": []});
    let mut done = response.clone();
    done["status"] = json!("completed");
    done["output"] = json!([item]);
    done["usage"] = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 30});
    let events = [
        (
            "response.created",
            json!({"type": "response.created", "response": response}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": done}),
        ),
    ];
    events
        .iter()
        .map(|(event, data)| format!("event: {event}\ndata: {data}\n\n"))
        .collect()
}

/// One streamed OpenAI Chat Completions answer holding `turn`: the tool
/// call's arguments arrive in a chunk after its name, as OpenAI streams them.
fn chat_turn(model: &str, index: usize, turn: &Turn) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": format!("chatcmpl-script-{index}"), "object": "chat.completion.chunk",
            "created": 1, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let (first, second, finish) = match turn {
        Turn::Tool(name, input) => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0,
                "id": format!("call_script_{index}"), "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            json!({"tool_calls": [{"index": 0, "function": {"arguments": input.to_string()}}]}),
            "tool_calls",
        ),
        Turn::Text(text) => (
            json!({"role": "assistant", "content": ""}),
            json!({"content": text}),
            "stop",
        ),
    };
    let mut last = chunk(json!({}), json!(finish));
    last["usage"] = json!({"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30});
    let mut out: String = [chunk(first, Value::Null), chunk(second, Value::Null), last]
        .iter()
        .map(|data| format!("data: {data}\n\n"))
        .collect();
    out.push_str("data: [DONE]\n\n");
    out
}

/// One streamed Anthropic Messages answer holding `turn`.
fn anthropic_turn(model: &str, index: usize, turn: &Turn) -> String {
    let message = json!({"id": format!("msg_script_{index}"), "type": "message", "role": "assistant",
        "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 1}});
    let (start, delta, stop) = match turn {
        Turn::Tool(name, input) => (
            json!({"type": "tool_use", "id": format!("toolu_script_{index}"), "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
        ),
        Turn::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
    };
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": message}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": 20}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    events
        .iter()
        .map(|(event, data)| format!("event: {event}\ndata: {data}\n\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(yaml_steps: &str) -> Script {
        Script {
            steps: serde_json::from_str(yaml_steps).unwrap(),
            workspace: PathBuf::from("/w"),
        }
    }

    #[test]
    fn the_same_script_plays_both_arms() {
        let script = script(
            r#"[{"skill": "greet"},
                {"write": {"path": "a.txt", "content": "Hello!"}, "when": "loaded"},
                {"write": {"path": "a.txt", "content": "hello"}, "when": "not-loaded"},
                {"answer": "done"}]"#,
        );
        // With the skill listed: load, the loaded write, answer.
        assert_eq!(script.step_for(0, true), Action::Skill("greet".into()));
        assert!(
            matches!(script.step_for(1, true), Action::Write { content, .. } if content == "Hello!")
        );
        assert_eq!(script.step_for(2, true), Action::Answer("done".into()));
        // Without it: the other write, then the answer.
        assert!(
            matches!(script.step_for(0, false), Action::Write { content, .. } if content == "hello")
        );
        assert_eq!(script.step_for(1, false), Action::Answer("done".into()));
        // Past the end.
        assert_eq!(script.step_for(9, false), Action::Answer("Done.".into()));
    }

    #[test]
    fn a_side_request_without_tools_is_left_to_the_stand_in() {
        let script = script(r#"[{"answer": "x"}]"#);
        assert!(
            script
                .answer(Client::ClaudeCode, "/v1/messages", &json!({"messages": []}))
                .is_none()
        );
        let reply = script
            .answer(
                Client::ClaudeCode,
                "/v1/messages",
                &json!({"tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "hi"}]}),
            )
            .unwrap();
        assert_eq!(reply.content_type, "text/event-stream");
        assert!(reply.body.contains(r#""text":"x""#));
        assert_eq!(reply.cut_at, None);
    }

    #[test]
    fn codex_writes_through_its_shell_from_base64() {
        assert_eq!(base64(b"Hello, Ada!\n"), "SGVsbG8sIEFkYSEK");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b""), "");
        let script = script(r#"[{"write": {"path": "a.txt", "content": "hi"}}]"#);
        let body = script
            .answer(
                Client::Codex,
                "/v1/responses",
                &json!({"tools": [{"name": "exec_command"}], "input": [{"type": "message", "role": "user"}]}),
            )
            .unwrap()
            .body;
        assert!(body.contains("exec_command"), "{body}");
        assert!(body.contains("printf %s aGk= | base64 -d"), "{body}");
    }

    #[test]
    fn a_broken_stream_stops_inside_the_answer() {
        let script = script(r#"[{"break-stream": "I will"}]"#);
        let anthropic = script
            .answer(
                Client::ClaudeCode,
                "/v1/messages",
                &json!({"tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "hi"}]}),
            )
            .unwrap();
        let sent = &anthropic.body[..anthropic.cut_at.unwrap()];
        assert!(sent.contains("event: message_start") && sent.contains(r#""text":"I will""#));
        assert!(!sent.contains("content_block_stop") && !sent.contains("message_stop"));
        let responses = script
            .answer(
                Client::Codex,
                "/v1/responses",
                &json!({"tools": [{"name": "exec_command"}], "input": []}),
            )
            .unwrap();
        let sent = &responses.body[..responses.cut_at.unwrap()];
        assert!(sent.contains("event: response.created"));
        assert!(!sent.contains("response.completed"));
        // Every retry of the turn breaks the same way.
        assert_eq!(
            script.step_for(0, false),
            Action::BreakStream("I will".into())
        );
    }

    #[test]
    fn opencode_loads_a_listed_skill_with_its_skill_tool() {
        let script = script(r#"[{"skill": "greet"}, {"answer": "hi"}]"#);
        let listing = "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n<available_skills>\n  <skill>\n    <name>greet</name>\n  </skill>\n</available_skills>";
        let body = |system: &str| {
            json!({"model": "m", "tools": [{"type": "function", "function": {"name": "skill"}}],
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": "hi"}]})
        };
        let listed = script
            .answer(Client::Opencode, "/v1/chat/completions", &body(listing))
            .unwrap();
        assert!(listed.body.contains(r#""name":"skill""#), "{}", listed.body);
        assert!(
            listed.body.contains(r#"{\"name\":\"greet\"}"#),
            "{}",
            listed.body
        );
        assert!(listed.body.contains(r#""finish_reason":"tool_calls""#));
        assert!(listed.body.ends_with("data: [DONE]\n\n"));
        let unlisted = script
            .answer(Client::Opencode, "/v1/chat/completions", &body("no skills"))
            .unwrap();
        assert!(
            unlisted.body.contains(r#""content":"hi""#),
            "{}",
            unlisted.body
        );
        // A title request offers no tools: the stand-in answers it as usual.
        assert!(
            script
                .answer(
                    Client::Opencode,
                    "/v1/chat/completions",
                    &json!({"messages": []})
                )
                .is_none()
        );
    }

    #[test]
    fn a_listing_entry_is_matched_by_name_not_by_prefix() {
        assert!(listing_names("- greet: says hi\n- other", "greet"));
        assert!(!listing_names("- greeter: says hi", "greet"));
        assert!(listing_names("- other\n- greet", "greet"));
    }
}
