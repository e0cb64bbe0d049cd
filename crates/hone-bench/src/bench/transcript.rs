//! What an agent did in one run, read from its own transcript: the tool
//! calls in order, the final reply, which skills it loaded, and what the
//! run consumed.
//!
//! Claude Code writes its transcript with `--output-format stream-json
//! --verbose`: one JSON object per line, `assistant` messages holding text
//! and `tool_use` blocks, `user` messages holding `tool_result`s, and a last
//! `result` object with the reply, the usage and the cost it computed. A
//! skill counts as loaded when a `Skill` call for it succeeded, or when the
//! agent read its `SKILL.md` under a skills folder (what a client without a
//! `Skill` tool does).
//!
//! Codex writes its transcript with `exec --json`: `item.completed` events
//! (`command_execution` with the command and exit code, `file_change`,
//! `agent_message`, tool calls) and a `turn.completed` with the usage. Its
//! shell calls are named `exec_command`, after the model's tool, and its
//! patches `apply_patch`.
//!
//! OpenCode writes its transcript with `run --format json`: a `step_start`
//! and a `step_finish` around each model turn, the finish holding the turn's
//! tokens, cost and why it ended (`tool-calls`, or `stop` on the last);
//! between them a `tool_use` per finished call (the tool, its input, and a
//! `completed` or `error` status) and `text` parts. A run that fails ends
//! with an `error` event instead of a last `stop`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::Usage;
use crate::clients::Client;

/// One tool call of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolCall {
    pub name: String,
    /// The input as the agent sent it.
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub input: Value,
    /// Whether the client answered it with an error.
    pub failed: bool,
}

/// A run, as its transcript tells it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Transcript {
    pub tool_calls: Vec<ToolCall>,
    /// The agent's last text to the user.
    pub final_reply: String,
    /// Skills loaded, by the name the agent used, in order.
    pub skills_loaded: Vec<String>,
    pub usage: Usage,
    /// The cost the agent itself reported, if it did.
    pub cost_usd: Option<f64>,
    pub turns: u32,
    /// Whether the transcript ended with the agent's own end-of-run record.
    pub finished: bool,
}

impl Transcript {
    /// Every tool call and reply, a line each: what a `trace` grader reads.
    pub fn trace(&self) -> String {
        let mut out = String::new();
        for call in &self.tool_calls {
            out.push_str(&format!("{} {}\n", call.name, call.input));
        }
        out.push_str(&self.final_reply);
        out
    }

    /// Reads `client`'s standard output.
    pub fn parse(client: Client, stdout: &str) -> Transcript {
        match client {
            Client::ClaudeCode => parse_claude_code(stdout),
            Client::Codex => parse_codex(stdout),
            Client::Gemini => parse_gemini(stdout),
            Client::Opencode => parse_opencode(stdout),
            Client::Copilot => Transcript::default(),
        }
    }
}

fn parse_claude_code(stdout: &str) -> Transcript {
    let mut transcript = Transcript::default();
    // Call ids, to mark a call failed when its result says so.
    let mut ids: Vec<(String, usize)> = Vec::new();
    let mut last_text = String::new();
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let content = event["message"]["content"].as_array();
        match event["type"].as_str() {
            Some("assistant") => {
                for block in content.into_iter().flatten() {
                    match block["type"].as_str() {
                        Some("tool_use") => {
                            ids.push((
                                block["id"].as_str().unwrap_or_default().to_string(),
                                transcript.tool_calls.len(),
                            ));
                            transcript.tool_calls.push(ToolCall {
                                name: block["name"].as_str().unwrap_or_default().to_string(),
                                input: block["input"].clone(),
                                failed: false,
                            });
                        }
                        Some("text") => {
                            last_text = block["text"].as_str().unwrap_or_default().to_string();
                        }
                        _ => {}
                    }
                }
            }
            Some("user") => {
                for block in content.into_iter().flatten() {
                    if block["type"] == "tool_result" && block["is_error"] == true {
                        let id = block["tool_use_id"].as_str().unwrap_or_default();
                        if let Some((_, at)) = ids.iter().find(|(i, _)| i == id) {
                            transcript.tool_calls[*at].failed = true;
                        }
                    }
                }
            }
            Some("result") => {
                transcript.finished = true;
                if let Some(reply) = event["result"].as_str() {
                    last_text = reply.to_string();
                }
                let usage = &event["usage"];
                let count = |key: &str| usage[key].as_u64().unwrap_or(0);
                transcript.usage = Usage {
                    input_tokens: count("input_tokens"),
                    output_tokens: count("output_tokens"),
                    cache_write_tokens: count("cache_creation_input_tokens"),
                    cache_read_tokens: count("cache_read_input_tokens"),
                };
                transcript.cost_usd = event["total_cost_usd"].as_f64();
                transcript.turns = event["num_turns"].as_u64().unwrap_or(0) as u32;
            }
            _ => {}
        }
    }
    transcript.final_reply = last_text;
    transcript.skills_loaded = skills_loaded(&transcript.tool_calls);
    transcript
}

/// Gemini CLI's `--output-format stream-json`: `tool_use` and `tool_result`
/// events joined by `tool_id`, assistant `message`s (in deltas), and a
/// `result` with the token counts.
fn parse_gemini(stdout: &str) -> Transcript {
    let mut transcript = Transcript::default();
    let mut ids: Vec<(String, usize)> = Vec::new();
    let mut reply = String::new();
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match event["type"].as_str() {
            Some("tool_use") => {
                reply.clear();
                ids.push((
                    event["tool_id"].as_str().unwrap_or_default().to_string(),
                    transcript.tool_calls.len(),
                ));
                transcript.tool_calls.push(ToolCall {
                    name: event["tool_name"].as_str().unwrap_or_default().to_string(),
                    input: event["parameters"].clone(),
                    failed: false,
                });
            }
            Some("tool_result") if event["status"] != "success" => {
                let id = event["tool_id"].as_str().unwrap_or_default();
                if let Some((_, at)) = ids.iter().find(|(i, _)| i == id) {
                    transcript.tool_calls[*at].failed = true;
                }
            }
            Some("message") if event["role"] == "assistant" => {
                let text = event["content"].as_str().unwrap_or_default();
                if event["delta"] != true {
                    reply.clear();
                }
                reply.push_str(text);
            }
            Some("result") => {
                transcript.finished = event["status"] == "success";
                let stats = &event["stats"];
                let count = |key: &str| stats[key].as_u64().unwrap_or(0);
                let cached = count("cached");
                transcript.usage = Usage {
                    input_tokens: count("input_tokens").saturating_sub(cached),
                    output_tokens: count("output_tokens"),
                    cache_write_tokens: 0,
                    cache_read_tokens: cached,
                };
                transcript.turns = stats["tool_calls"].as_u64().unwrap_or(0) as u32 + 1;
            }
            _ => {}
        }
    }
    transcript.final_reply = reply;
    transcript.skills_loaded = skills_loaded(&transcript.tool_calls);
    transcript
}

/// Why the agent stopped, when it said so in its transcript rather than on
/// its standard error: OpenCode reports a provider's refusal (a bad key, an
/// unknown model) only as an `error` event.
pub fn stopped_because(client: Client, stdout: &str) -> Option<String> {
    if client != Client::Opencode {
        return None;
    }
    stdout.lines().rev().find_map(|line| {
        let event = serde_json::from_str::<Value>(line).ok()?;
        if event["type"] != "error" {
            return None;
        }
        let error = &event["error"];
        let message = error["data"]["message"]
            .as_str()
            .or_else(|| error["name"].as_str())?;
        Some(match error["data"]["statusCode"].as_u64() {
            Some(status) => format!("{message} (HTTP {status})"),
            None => message.to_string(),
        })
    })
}

fn parse_opencode(stdout: &str) -> Transcript {
    let mut transcript = Transcript::default();
    let mut reply = String::new();
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let part = &event["part"];
        match event["type"].as_str() {
            Some("tool_use") => {
                reply.clear();
                transcript.tool_calls.push(ToolCall {
                    name: part["tool"].as_str().unwrap_or_default().to_string(),
                    input: part["state"]["input"].clone(),
                    failed: part["state"]["status"] != "completed",
                });
            }
            Some("text") => reply.push_str(part["text"].as_str().unwrap_or_default()),
            Some("step_finish") => {
                transcript.turns += 1;
                let tokens = &part["tokens"];
                let count = |value: &Value| value.as_u64().unwrap_or(0);
                transcript.usage.add(&Usage {
                    input_tokens: count(&tokens["input"]),
                    // Reasoning is billed as output.
                    output_tokens: count(&tokens["output"]) + count(&tokens["reasoning"]),
                    cache_write_tokens: count(&tokens["cache"]["write"]),
                    cache_read_tokens: count(&tokens["cache"]["read"]),
                });
                if let Some(cost) = part["cost"].as_f64() {
                    *transcript.cost_usd.get_or_insert(0.0) += cost;
                }
                transcript.finished = part["reason"] != "tool-calls";
            }
            Some("error") => transcript.finished = false,
            _ => {}
        }
    }
    transcript.final_reply = reply;
    transcript.skills_loaded = skills_loaded(&transcript.tool_calls);
    transcript
}

fn parse_codex(stdout: &str) -> Transcript {
    let mut transcript = Transcript::default();
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match event["type"].as_str() {
            Some("item.completed") => {
                let item = &event["item"];
                match item["type"].as_str() {
                    Some("agent_message") => {
                        transcript.final_reply =
                            item["text"].as_str().unwrap_or_default().to_string();
                    }
                    Some("command_execution") => transcript.tool_calls.push(ToolCall {
                        name: "exec_command".into(),
                        input: serde_json::json!({"cmd": item["command"]}),
                        failed: item["exit_code"].as_i64().is_some_and(|code| code != 0),
                    }),
                    Some("file_change") => transcript.tool_calls.push(ToolCall {
                        name: "apply_patch".into(),
                        input: item["changes"].clone(),
                        failed: item["status"] == "failed",
                    }),
                    Some("mcp_tool_call") | Some("web_search") => {
                        transcript.tool_calls.push(ToolCall {
                            name: item["tool"]
                                .as_str()
                                .or_else(|| item["type"].as_str())
                                .unwrap_or_default()
                                .to_string(),
                            input: item["arguments"].clone(),
                            failed: item["status"] == "failed",
                        })
                    }
                    _ => {}
                }
            }
            Some("turn.completed") => {
                transcript.finished = true;
                transcript.turns += 1;
                transcript
                    .usage
                    .add(&crate::agent::codex::usage(&event["usage"]));
            }
            _ => {}
        }
    }
    transcript.skills_loaded = skills_loaded(&transcript.tool_calls);
    transcript
}

/// The skills a run loaded: successful `Skill` calls, and reads of a
/// `SKILL.md` inside a skills folder (by command or by a read tool).
fn skills_loaded(calls: &[ToolCall]) -> Vec<String> {
    let mut loaded: Vec<String> = Vec::new();
    for call in calls.iter().filter(|c| !c.failed) {
        // Gemini CLI's `activate_skill` and OpenCode's `skill` take a `name`.
        let name = if call.name == "activate_skill" || call.name == "skill" {
            call.input["name"].as_str().map(str::to_string)
        } else if call.name == "Skill" {
            call.input["skill"]
                .as_str()
                .or_else(|| call.input["command"].as_str())
                .map(|s| s.trim_start_matches('/'))
                // A plugin's skill is `plugin:skill`.
                .map(|s| s.rsplit(':').next().unwrap_or(s).to_string())
        } else {
            skill_md_in(&call.input.to_string())
        };
        if let Some(name) = name
            && !loaded.contains(&name)
        {
            loaded.push(name);
        }
    }
    loaded
}

/// `NAME` of the first `skills/NAME/SKILL.md` in a text.
fn skill_md_in(text: &str) -> Option<String> {
    let end = text.find("/SKILL.md")?;
    let before = &text[..end];
    let (folder_path, name) = before.rsplit_once('/')?;
    folder_path
        .ends_with("skills")
        .then(|| name.to_string())
        .filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = r#"{"type":"system","subtype":"init","tools":["Skill","Write"]}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t0","name":"Skill","input":{"skill":"greet"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t0","content":"Launching skill: greet"}]}}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/w/a.txt","content":"x"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"denied","is_error":true}]}}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/w/.claude/skills/other/SKILL.md"}}]}}
{"type":"assistant","message":{"content":[{"type":"text","text":"Done."}]}}
{"type":"result","result":"Done.","num_turns":4,"total_cost_usd":0.01,"usage":{"input_tokens":40,"output_tokens":20,"cache_read_input_tokens":5}}
"#;

    #[test]
    fn reads_calls_failures_skills_and_usage_from_stream_json() {
        let t = Transcript::parse(Client::ClaudeCode, STREAM);
        assert_eq!(t.tool_calls.len(), 3);
        assert!(t.tool_calls[1].failed);
        assert_eq!(t.skills_loaded, ["greet", "other"]);
        assert_eq!(t.final_reply, "Done.");
        assert_eq!(t.usage.input_tokens, 40);
        assert_eq!(t.usage.cache_read_tokens, 5);
        assert_eq!(t.cost_usd, Some(0.01));
        assert_eq!(t.turns, 4);
        assert!(t.finished);
        assert!(t.trace().starts_with("Skill {\"skill\":\"greet\"}\n"));
    }

    #[test]
    fn reads_gemini_stream_json() {
        let stream = r#"{"type":"init","model":"auto"}
{"type":"tool_use","tool_name":"activate_skill","tool_id":"a1","parameters":{"name":"greet"}}
{"type":"tool_result","tool_id":"a1","status":"success"}
{"type":"tool_use","tool_name":"write_file","tool_id":"w1","parameters":{"file_path":"x"}}
{"type":"tool_result","tool_id":"w1","status":"error"}
{"type":"message","role":"assistant","content":"Done: ","delta":true}
{"type":"message","role":"assistant","content":"wrote it","delta":true}
{"type":"result","status":"success","stats":{"input_tokens":50,"output_tokens":5,"cached":20,"tool_calls":2}}
"#;
        let t = Transcript::parse(Client::Gemini, stream);
        assert_eq!(t.skills_loaded, ["greet"]);
        assert!(t.tool_calls[1].failed);
        assert_eq!(t.final_reply, "Done: wrote it");
        assert_eq!((t.usage.input_tokens, t.usage.cache_read_tokens), (30, 20));
        assert!(t.finished);
    }

    #[test]
    fn reads_codex_json_events() {
        let stream = r#"{"type":"thread.started","thread_id":"x"}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'cat .agents/skills/greet/SKILL.md'","aggregated_output":"---","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"false","exit_code":1,"status":"failed"}}
{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"Done"}}
{"type":"turn.completed","usage":{"input_tokens":30,"cached_input_tokens":10,"output_tokens":3}}
"#;
        let t = Transcript::parse(Client::Codex, stream);
        assert_eq!(t.tool_calls.len(), 2);
        assert!(t.tool_calls[1].failed);
        assert_eq!(t.skills_loaded, ["greet"]);
        assert_eq!(t.final_reply, "Done");
        assert_eq!((t.usage.input_tokens, t.usage.cache_read_tokens), (20, 10));
        assert!(t.finished);
    }

    /// OpenCode 1.18.33's `run --format json` against the scripted stand-in,
    /// cut to the fields read.
    #[test]
    fn reads_opencode_json_events() {
        let stream = r#"{"type":"step_start","part":{"type":"step-start"}}
{"type":"tool_use","part":{"type":"tool","tool":"skill","callID":"call_0","state":{"status":"completed","input":{"name":"greet"},"output":"<skill_content name=\"greet\">"}}}
{"type":"step_finish","part":{"reason":"tool-calls","type":"step-finish","tokens":{"total":120,"input":70,"output":20,"reasoning":0,"cache":{"write":0,"read":30}},"cost":0}}
{"type":"tool_use","part":{"type":"tool","tool":"write","callID":"call_1","state":{"status":"error","input":{"filePath":"/w/a.txt","content":"x"},"error":"denied"}}}
{"type":"step_finish","part":{"reason":"tool-calls","type":"step-finish","tokens":{"input":70,"output":20,"reasoning":5,"cache":{"write":4,"read":30}},"cost":0.5}}
{"type":"text","part":{"type":"text","text":"Done: wrote hello.txt"}}
{"type":"step_finish","part":{"reason":"stop","type":"step-finish","tokens":{"input":70,"output":20,"reasoning":0,"cache":{"write":0,"read":30}},"cost":0.25}}
"#;
        let t = Transcript::parse(Client::Opencode, stream);
        let names: Vec<&str> = t.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["skill", "write"]);
        assert!(t.tool_calls[1].failed);
        assert_eq!(t.skills_loaded, ["greet"]);
        assert_eq!(t.final_reply, "Done: wrote hello.txt");
        assert_eq!(t.usage.input_tokens, 210);
        assert_eq!(t.usage.output_tokens, 65);
        assert_eq!(
            (t.usage.cache_write_tokens, t.usage.cache_read_tokens),
            (4, 90)
        );
        assert_eq!(t.cost_usd, Some(0.75));
        assert_eq!(t.turns, 3);
        assert!(t.finished);
        // Cut off after a tool call, or ended by an error: not finished.
        let cut: String = stream.lines().take(3).map(|l| format!("{l}\n")).collect();
        assert!(!Transcript::parse(Client::Opencode, &cut).finished);
        let failed =
            format!("{stream}{{\"type\":\"error\",\"error\":{{\"name\":\"APIError\"}}}}\n");
        assert!(!Transcript::parse(Client::Opencode, &failed).finished);
        assert_eq!(
            stopped_because(Client::Opencode, &failed).as_deref(),
            Some("APIError")
        );
        // OpenCode 1.18.33 when its provider answers 401.
        let refused = r#"{"type":"error","sessionID":"s","error":{"name":"APIError","data":{"message":"invalid x-api-key","statusCode":401,"isRetryable":false}}}"#;
        assert_eq!(
            stopped_because(Client::Opencode, refused).as_deref(),
            Some("invalid x-api-key (HTTP 401)")
        );
        assert_eq!(stopped_because(Client::Opencode, stream), None);
    }

    #[test]
    fn a_cut_off_run_is_not_finished_and_garbage_is_skipped() {
        let t = Transcript::parse(Client::ClaudeCode, "not json\n{\"type\":\"assistant\"}\n");
        assert!(!t.finished);
        assert!(t.tool_calls.is_empty());
    }

    #[test]
    fn a_plugin_skill_and_a_slash_are_named_by_the_skill() {
        let calls = [ToolCall {
            name: "Skill".into(),
            input: serde_json::json!({"skill": "/tools:greet"}),
            failed: false,
        }];
        assert_eq!(skills_loaded(&calls), ["greet"]);
        assert_eq!(
            skill_md_in("cat .agents/skills/x/SKILL.md"),
            Some("x".into())
        );
        assert_eq!(skill_md_in("cat docs/x/SKILL.md"), None);
    }
}
