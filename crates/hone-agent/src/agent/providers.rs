//! The HTTP providers: Anthropic's Messages API and the OpenAI
//! chat-completions wire format (OpenAI, and the local servers that speak it:
//! Ollama, llama.cpp's server, vLLM).
//!
//! Both offer the model one tool, `Skill`, and read what it calls; in the
//! codex listing style the OpenAI one offers Codex's shell tool instead and
//! reads the `SKILL.md` the model's command reads (see [`OpenAi::body`]).
//! Keys come from the environment and travel only in request headers.

use serde_json::{Value, json};

use super::http::{Body, Header, Http, HttpPolicy, excerpt};
use super::listing::{Listing, ListingStyle, SKILL_TOOL, skill_tool_schema};
use super::{AgentError, Answer, Choice, Provider, Usage};
use crate::cancel::Cancel;
use crate::clients::claude_code::ANTHROPIC_BASE_URL;
use crate::clients::claude_code::Placement;
use crate::clients::codex::{self, OPENAI_BASE_URL, SkillRead};
use crate::tokens::Tokenizer;

/// The environment variable holding the Anthropic key.
pub const ANTHROPIC_KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// The environment variable holding the OpenAI key.
pub const OPENAI_KEY_ENV: &str = "OPENAI_API_KEY";
/// The Messages API version sent.
const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Room for a short preamble and the tool call.
const MAX_OUTPUT_TOKENS: u32 = 256;

/// A key that never prints.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Reads a key from `var`; `None` when unset or empty.
pub fn key_from_env(var: &str) -> Option<Secret> {
    std::env::var(var)
        .ok()
        .filter(|k| !k.trim().is_empty())
        .map(|k| Secret::new(k.trim()))
}

/// Anthropic's Messages endpoint: where it is, the key, and how calls are
/// retried. Shared by the ranker, the task-eval agent and the judge.
pub struct MessagesApi {
    http: Http,
    base_url: String,
    key: Secret,
}

impl MessagesApi {
    /// `base_url` defaults to Anthropic's.
    pub fn new(key: Secret, base_url: Option<&str>, policy: HttpPolicy) -> MessagesApi {
        MessagesApi {
            http: Http::new(policy),
            base_url: base_url
                .unwrap_or(ANTHROPIC_BASE_URL)
                .trim_end_matches('/')
                .to_owned(),
            key,
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn headers(&self) -> [Header<'_>; 2] {
        [
            Header {
                name: "x-api-key",
                value: self.key.expose(),
            },
            Header {
                name: "anthropic-version",
                value: ANTHROPIC_VERSION,
            },
        ]
    }

    /// POSTs a Messages request; the answer and the attempts it took.
    pub fn post(&self, body: &Value, cancel: &Cancel) -> Result<(Value, u32), AgentError> {
        let url = format!("{}/v1/messages", self.base_url);
        self.http.post_json(&url, &self.headers(), body, cancel)
    }

    /// Creates a Message Batch of `requests` (`custom_id` and `params`
    /// each); the batch as the API describes it.
    pub fn create_batch(&self, requests: Vec<Value>, cancel: &Cancel) -> Result<Value, AgentError> {
        let url = format!("{}/v1/messages/batches", self.base_url);
        let body = json!({"requests": requests});
        Ok(self.http.post_json(&url, &self.headers(), &body, cancel)?.0)
    }

    /// A Message Batch as it is now.
    pub fn batch(&self, id: &str, cancel: &Cancel) -> Result<Value, AgentError> {
        let url = format!("{}/v1/messages/batches/{id}", self.base_url);
        self.http.get_json(&url, &self.headers(), cancel)
    }

    /// The JSONL results of an ended batch, from the `results_url` it gave;
    /// the key goes only to the API's own host.
    pub fn batch_results(&self, results_url: &str, cancel: &Cancel) -> Result<String, AgentError> {
        if !same_origin(results_url, &self.base_url) {
            return Err(AgentError::Malformed(format!(
                "the batch's results_url {} is not on {}: the key is not sent there",
                excerpt(results_url),
                self.base_url
            )));
        }
        self.http
            .get_text(results_url, &self.headers(), MAX_RESULTS_BYTES, cancel)
    }
}

/// The largest batch results read: thousands of full answers.
const MAX_RESULTS_BYTES: u64 = 512 << 20;

/// Whether `url` has `base`'s scheme, host and port.
fn same_origin(url: &str, base: &str) -> bool {
    let origin = |u: &str| {
        let (scheme, rest) = u.split_once("://")?;
        Some((
            scheme.to_ascii_lowercase(),
            rest.split('/').next()?.to_ascii_lowercase(),
        ))
    };
    origin(url).is_some_and(|o| Some(o) == origin(base))
}

/// Claude through the Messages API with tool use.
pub struct Anthropic {
    api: MessagesApi,
    model: String,
    /// Mark the listing with `cache_control` (Anthropic's prompt caching).
    prompt_caching: bool,
}

impl Anthropic {
    pub fn new(
        model: &str,
        key: Secret,
        base_url: Option<&str>,
        policy: HttpPolicy,
        prompt_caching: bool,
    ) -> Anthropic {
        Anthropic {
            api: MessagesApi::new(key, base_url, policy),
            model: model.to_owned(),
            prompt_caching,
        }
    }

    /// The request body for `request`. In the claude-code style, the tool
    /// and the listing go where Claude Code sends them for the model: its
    /// fixed `Skill` tool, and the listing in a `system` message after the
    /// request or in a `<system-reminder>` block before it. In the
    /// agentskills style the listing is the system prompt. The cached prefix
    /// (tools, then what comes before the request) is marked for caching.
    pub fn body(&self, listing: &Listing, request: &str) -> Value {
        let cache = json!({"type": "ephemeral"});
        let mut tool = json!({
            "name": SKILL_TOOL,
            "description": listing.tool_description,
            "input_schema": skill_tool_schema(listing.style),
        });
        let mut body = json!({
            "model": self.model,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "messages": [{"role": "user", "content": request}],
        });
        let text = |text: &str| json!({"type": "text", "text": text});
        match (&listing.system, listing.style, listing.placement) {
            // The codex style is refused before a call (see `prepare`).
            (Some(system), ListingStyle::Agentskills | ListingStyle::Codex, _) => {
                let mut block = text(system);
                if self.prompt_caching {
                    // Tools precede the system prompt in the cached prefix:
                    // this breakpoint caches both.
                    block["cache_control"] = cache;
                }
                body["system"] = json!([block]);
            }
            (Some(system), ListingStyle::ClaudeCode, Some(Placement::Reminder)) => {
                let mut reminder =
                    text(&format!("<system-reminder>\n{system}\n</system-reminder>"));
                if self.prompt_caching {
                    reminder["cache_control"] = cache;
                }
                body["messages"] = json!([{"role": "user", "content": [reminder, text(request)]}]);
            }
            (Some(system), ListingStyle::ClaudeCode, _) => {
                if self.prompt_caching {
                    tool["cache_control"] = cache;
                }
                body["messages"] = json!([
                    {"role": "user", "content": [text(request)]},
                    {"role": "system", "content": [text(system)]},
                ]);
            }
            (None, ..) => {
                if self.prompt_caching {
                    tool["cache_control"] = cache;
                }
            }
        }
        body["tools"] = json!([tool]);
        body
    }
}

impl Provider for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn endpoint(&self) -> String {
        self.api.base_url().to_owned()
    }

    fn prompt_caching(&self) -> bool {
        self.prompt_caching
    }

    fn tokenizer(&self) -> Tokenizer {
        Tokenizer::claude()
    }

    fn prepare(&self, listing: &Listing) -> Result<(), AgentError> {
        if listing.style == ListingStyle::Codex {
            return Err(AgentError::Process(
                "the codex listing is Codex's request shape on OpenAI's API: use the openai or codex provider".into(),
            ));
        }
        Ok(())
    }

    fn ask(&self, listing: &Listing, request: &str, cancel: &Cancel) -> Result<Answer, AgentError> {
        self.prepare(listing)?;
        let (answer, attempts) = self.api.post(&self.body(listing, request), cancel)?;
        let mut answer = parse_anthropic(&answer)?;
        answer.attempts = attempts;
        Ok(answer)
    }
}

/// The pick and usage of a Messages API answer.
pub fn parse_anthropic(answer: &Value) -> Result<Answer, AgentError> {
    if answer.get("type").and_then(Value::as_str) == Some("error") {
        let message = answer["error"]["message"]
            .as_str()
            .unwrap_or("unknown error");
        return Err(AgentError::Malformed(format!(
            "the API answered an error: {message}"
        )));
    }
    let content = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("a Messages answer without `content`", answer))?;
    let mut text = String::new();
    let mut choice = None;
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") if block.get("name").and_then(Value::as_str) == Some(SKILL_TOOL) => {
                let name = skill_argument(block.get("input"))
                    .ok_or_else(|| malformed("a Skill call without a `skill` name", block))?;
                choice = Some(Choice::Skill { name });
                break;
            }
            Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            _ => {}
        }
    }
    Ok(Answer {
        choice: choice.unwrap_or(Choice::NoSkill {
            text: excerpt(&text),
        }),
        usage: messages_usage(&answer["usage"]),
        cost_usd: None,
        attempts: 1,
    })
}

/// The skill a `Skill` call names: `skill`, or `name` / `command` as some
/// clients and older versions call the argument.
pub fn skill_argument(input: Option<&Value>) -> Option<String> {
    let input = input?;
    ["skill", "name", "command"]
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_str))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// The skill an `exec_command` call loads by reading its `SKILL.md`, by
/// the folder it reads (a library skill) or its name (one of Codex's own).
fn shell_pick(arguments: &Value, listing: &Listing) -> Option<Choice> {
    let command = arguments.get("cmd").and_then(Value::as_str)?;
    let layout = listing.codex_layout.as_ref()?;
    let name = match codex::skill_read(command, &layout.project, &layout.codex_home)? {
        SkillRead::Project(folder) | SkillRead::Builtin(folder) => folder,
    };
    Some(Choice::Skill { name })
}

fn malformed(what: &str, json: &Value) -> AgentError {
    AgentError::Malformed(format!("{what}: {}", excerpt(&json.to_string())))
}

/// A chat-completions endpoint (OpenAI's, or a local server speaking its
/// wire format): where it is, the key, and how calls are retried. Shared by
/// the ranker and the task-eval agent.
pub struct ChatCompletionsApi {
    http: Http,
    base_url: String,
    key: Option<Secret>,
}

impl ChatCompletionsApi {
    /// `base_url` defaults to OpenAI's; `key` may be `None` for a local
    /// server that needs none.
    pub fn new(
        key: Option<Secret>,
        base_url: Option<&str>,
        policy: HttpPolicy,
    ) -> ChatCompletionsApi {
        ChatCompletionsApi {
            http: Http::new(policy),
            base_url: base_url
                .unwrap_or(OPENAI_BASE_URL)
                .trim_end_matches('/')
                .to_owned(),
            key,
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn bearer(&self) -> Option<String> {
        self.key.as_ref().map(|k| format!("Bearer {}", k.expose()))
    }

    /// POSTs a chat-completions request; the answer and the attempts it took.
    pub fn post(&self, body: &Value, cancel: &Cancel) -> Result<(Value, u32), AgentError> {
        let url = format!("{}/chat/completions", self.base_url);
        let bearer = self.bearer();
        self.http
            .post_json(&url, &authorization(&bearer), body, cancel)
    }

    /// Uploads a batch's input file (JSONL, purpose `batch`); the file as
    /// the API describes it.
    pub fn upload_batch_file(&self, jsonl: &str, cancel: &Cancel) -> Result<Value, AgentError> {
        let url = format!("{}/files", self.base_url);
        let boundary = format!("hone-{:016x}", fastrand::u64(..));
        let form = format!(
            "--{boundary}\r\ncontent-disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--{boundary}\r\ncontent-disposition: form-data; name=\"file\"; filename=\"batch.jsonl\"\r\ncontent-type: application/jsonl\r\n\r\n{jsonl}\r\n--{boundary}--\r\n"
        );
        let content_type = format!("multipart/form-data; boundary={boundary}");
        let body = Body {
            content_type: &content_type,
            bytes: form.as_bytes(),
        };
        let bearer = self.bearer();
        self.http
            .post_body(&url, &authorization(&bearer), &body, cancel)
    }

    /// Creates a batch of chat completions from an uploaded input file.
    pub fn create_batch(&self, input_file_id: &str, cancel: &Cancel) -> Result<Value, AgentError> {
        let url = format!("{}/batches", self.base_url);
        let body = json!({"input_file_id": input_file_id, "endpoint": "/v1/chat/completions",
            "completion_window": "24h"});
        let bearer = self.bearer();
        Ok(self
            .http
            .post_json(&url, &authorization(&bearer), &body, cancel)?
            .0)
    }

    /// A batch as it is now.
    pub fn batch(&self, id: &str, cancel: &Cancel) -> Result<Value, AgentError> {
        let url = format!("{}/batches/{id}", self.base_url);
        let bearer = self.bearer();
        self.http.get_json(&url, &authorization(&bearer), cancel)
    }

    /// A file's content (a batch's output or error file, JSONL).
    pub fn file_content(&self, id: &str, cancel: &Cancel) -> Result<String, AgentError> {
        let url = format!("{}/files/{id}/content", self.base_url);
        let bearer = self.bearer();
        self.http
            .get_text(&url, &authorization(&bearer), MAX_RESULTS_BYTES, cancel)
    }
}

/// The `authorization` header, when there is a key.
fn authorization(bearer: &Option<String>) -> Vec<Header<'_>> {
    bearer
        .as_deref()
        .map(|value| Header {
            name: "authorization",
            value,
        })
        .into_iter()
        .collect()
}

/// The chat-completions wire format with tools.
pub struct OpenAi {
    api: ChatCompletionsApi,
    model: String,
}

impl OpenAi {
    /// `key` may be `None` for a local server that needs none.
    pub fn new(
        model: &str,
        key: Option<Secret>,
        base_url: Option<&str>,
        policy: HttpPolicy,
    ) -> OpenAi {
        OpenAi {
            api: ChatCompletionsApi::new(key, base_url, policy),
            model: model.to_owned(),
        }
    }

    /// The request body: the listing as the `Skill` function's description
    /// (or a system message), the request as the user message. OpenAI caches
    /// long prompt prefixes by itself; there is no marker to send.
    ///
    /// In the codex style, the listing is a `developer` message before the
    /// request, its text byte for byte the skills section Codex CLI sends as
    /// the first part of its second developer message (Codex's wording and
    /// layout, from its profile), and the one tool is Codex's shell tool
    /// `exec_command` as Codex describes it. What Hone leaves out: Codex's
    /// base instructions, its environment and permissions messages, its
    /// other tools, and the Responses API (this is chat completions). What
    /// Hone decides: the pick is the skill whose `SKILL.md` the model's
    /// first `exec_command` reads, as Codex's model loads a skill; a command
    /// that reads none, or a text answer, is no pick (there is one turn, so
    /// a model that would look around first is counted as not picking).
    pub fn body(&self, listing: &Listing, request: &str) -> Value {
        if listing.style == ListingStyle::Codex {
            let (name, description, parameters) = codex::shell_tool();
            return json!({
                "model": self.model,
                "messages": [
                    {"role": "developer", "content": listing.system.as_deref().unwrap_or_default()},
                    {"role": "user", "content": request},
                ],
                "tools": [{
                    "type": "function",
                    "function": {"name": name, "description": description, "parameters": parameters},
                }],
                "tool_choice": "auto",
            });
        }
        let mut messages = Vec::new();
        if let Some(system) = &listing.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        messages.push(json!({"role": "user", "content": request}));
        json!({
            "model": self.model,
            "messages": messages,
            "tools": [{
                "type": "function",
                "function": {
                    "name": SKILL_TOOL,
                    "description": listing.tool_description,
                    "parameters": skill_tool_schema(listing.style),
                }
            }],
            "tool_choice": "auto",
        })
    }
}

impl Provider for OpenAi {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn endpoint(&self) -> String {
        self.api.base_url().to_owned()
    }

    fn prompt_caching(&self) -> bool {
        true
    }

    fn tokenizer(&self) -> Tokenizer {
        Tokenizer::o200k()
    }

    fn ask(&self, listing: &Listing, request: &str, cancel: &Cancel) -> Result<Answer, AgentError> {
        let (answer, attempts) = self.api.post(&self.body(listing, request), cancel)?;
        let mut answer = parse_openai(&answer, listing)?;
        answer.attempts = attempts;
        Ok(answer)
    }
}

/// The pick and usage of a chat-completions answer: a `Skill` call, or in
/// the codex style an `exec_command` reading a skill's `SKILL.md`.
pub fn parse_openai(answer: &Value, listing: &Listing) -> Result<Answer, AgentError> {
    let message = answer
        .pointer("/choices/0/message")
        .ok_or_else(|| malformed("a chat completion without `choices[0].message`", answer))?;
    let mut choice = None;
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let function = &call["function"];
        let called = function.get("name").and_then(Value::as_str);
        let expected = match listing.style {
            ListingStyle::Codex => codex::shell_tool().0,
            _ => SKILL_TOOL,
        };
        if called != Some(expected) {
            continue;
        }
        // Arguments are a JSON document inside a string (some servers send an object).
        let arguments = match &function["arguments"] {
            Value::String(text) => serde_json::from_str::<Value>(text).map_err(|e| {
                AgentError::Malformed(format!(
                    "the Skill call's arguments are not JSON ({e}): {}",
                    excerpt(text)
                ))
            })?,
            other => other.clone(),
        };
        if listing.style == ListingStyle::Codex {
            choice = shell_pick(&arguments, listing);
            break;
        }
        let name = skill_argument(Some(&arguments))
            .ok_or_else(|| malformed("a Skill call without a `skill` name", &arguments))?;
        choice = Some(Choice::Skill { name });
        break;
    }
    let text = message.get("content").and_then(Value::as_str).unwrap_or("");
    Ok(Answer {
        choice: choice.unwrap_or(Choice::NoSkill {
            text: excerpt(text),
        }),
        usage: chat_usage(&answer["usage"]),
        cost_usd: None,
        attempts: 1,
    })
}

/// The `usage` of a chat completion.
pub fn chat_usage(usage: &Value) -> Usage {
    let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    let prompt = count("/prompt_tokens");
    let cached = count("/prompt_tokens_details/cached_tokens").min(prompt);
    Usage {
        // `prompt_tokens` includes the cached ones; they are billed apart.
        input_tokens: prompt - cached,
        output_tokens: count("/completion_tokens"),
        cache_write_tokens: 0,
        cache_read_tokens: cached,
    }
}

/// The `usage` of a Messages answer.
pub fn messages_usage(usage: &Value) -> Usage {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cache_write_tokens: count("cache_creation_input_tokens"),
        cache_read_tokens: count("cache_read_input_tokens"),
    }
}
