//! The MCP face of the engine: resources, the Skills extension's methods,
//! tools and prompts, on rmcp's `ServerHandler`.
//!
//! Skills extension (SEP-2640, text of 2026-08-05, the v1 the Working Group
//! sent for adoption): every file of a skill is a `skill://` resource;
//! `skills/list` and `skills/get` return entries with the frontmatter
//! verbatim and a SHA-256 digest per file; `resources/directory/read` lists a
//! folder (declared as `directoryRead`). `skill://index.json`, the index of
//! the earlier drafts, is served too, holding the same entries.
//!
//! Tool failures a caller can fix (an unknown skill, a path that escapes) are
//! tool results with `isError`, so the agent reads why; malformed requests
//! (missing or mistyped arguments) are JSON-RPC `-32602` errors.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use base64::Engine as _;
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, GetSkillRequestParams,
    GetSkillResult, Implementation, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::catalog::{Catalog, FINDINGS_META, LookupError, ServedSkill};
use crate::engine::{Engine, EngineError, FileContent, MAX_TOP_K, render};
use crate::observe::{Answered, Observer, clip};
use crate::uri::{self, INDEX_URI};

/// Items per page of `resources/list` and `prompts/list`.
pub const PAGE_SIZE: usize = 500;
/// Skills per page of `skills/list` (each carries every file's digest).
pub const SKILLS_PAGE_SIZE: usize = 200;

/// The connected clients, to tell each of them when the library changes.
#[derive(Default, Clone)]
pub struct Clients {
    peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
}

impl Clients {
    fn add(&self, peer: Peer<RoleServer>) {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        peers.retain(|p| !p.is_transport_closed());
        peers.push(peer);
    }

    /// Sends list-changed notifications to every connected client; clients
    /// that are gone are forgotten.
    pub async fn notify_changed(&self, prompts: bool) {
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            let mut ok = peer.notify_resource_list_changed().await.is_ok();
            if ok && prompts {
                ok = peer.notify_prompt_list_changed().await.is_ok();
            }
            if !ok {
                let mut all = self.peers.lock().unwrap_or_else(|e| e.into_inner());
                all.retain(|p| !p.is_transport_closed());
            }
        }
    }

    /// How many clients are connected.
    pub fn len(&self) -> usize {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        peers.retain(|p| !p.is_transport_closed());
        peers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One session's handler; every session shares the engine, the clients and
/// the observer that hears of every answered request.
#[derive(Clone)]
pub struct SkillServer {
    engine: Arc<Engine>,
    clients: Clients,
    observer: Arc<dyn Observer>,
}

impl SkillServer {
    pub fn new(engine: Arc<Engine>, clients: Clients, observer: Arc<dyn Observer>) -> Self {
        SkillServer {
            engine,
            clients,
            observer,
        }
    }

    /// Tells the observer of one answered request.
    fn report<T>(
        &self,
        method: &'static str,
        detail: &str,
        started: Instant,
        outcome: &Result<T, ErrorData>,
    ) {
        self.observer.answered(Answered {
            method,
            detail: clip(detail),
            error: outcome.as_ref().err().map(|e| e.message.to_string()),
            micros: started.elapsed().as_micros() as u64,
        });
    }
}

fn invalid(message: impl std::fmt::Display) -> ErrorData {
    ErrorData::invalid_params(message.to_string(), None)
}

/// A list request's detail: the page it asks for.
fn cursor(request: &Option<PaginatedRequestParams>) -> String {
    match request.as_ref().and_then(|r| r.cursor.as_deref()) {
        Some(cursor) => format!("from {cursor}"),
        None => String::new(),
    }
}

/// A tool call's detail: the tool and the argument that says what it was for.
fn tool_detail(request: &CallToolRequestParams) -> String {
    let args = request.arguments.as_ref();
    let arg = |name: &str| {
        args.and_then(|a| a.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match &*request.name {
        "search_skills" => format!("search_skills \"{}\"", arg("query")),
        "load_skill" => format!("load_skill {}", arg("name")),
        "read_skill_resource" => format!("read_skill_resource {} {}", arg("name"), arg("path")),
        other => other.to_owned(),
    }
}

/// Reads a page cursor: the offset a previous page ended at.
fn offset(request: Option<&PaginatedRequestParams>) -> Result<usize, ErrorData> {
    match request.and_then(|r| r.cursor.as_deref()) {
        None => Ok(0),
        Some(cursor) => cursor
            .parse()
            .map_err(|_| invalid(format!("`{cursor}` is not a cursor this server issued"))),
    }
}

fn next_cursor(end: usize, total: usize) -> Option<String> {
    (end < total).then(|| end.to_string())
}

fn skill_resource(served: &ServedSkill) -> Resource {
    let mut resource = Resource::new(served.uri(), served.skill.id.clone())
        .with_mime_type("text/markdown")
        .with_size(served.skill.doc.text.len() as u64);
    if !served.description().is_empty() {
        resource = resource.with_description(served.description().to_owned());
    }
    if !served.findings.is_empty() {
        let mut meta = rmcp::model::MetaObject::new();
        meta.insert(FINDINGS_META.into(), json!(served.findings));
        resource = resource.with_meta(meta);
    }
    resource
}

fn file_resource(served: &ServedSkill, path: &str, size: u64, is_text: bool) -> Resource {
    Resource::new(served.file_uri(path), path.to_owned())
        .with_mime_type(uri::mime_type(path, is_text))
        .with_size(size)
}

/// Every served resource in list order: the index, then each skill's
/// `SKILL.md` followed by its other files.
fn resource_count(catalog: &Catalog) -> usize {
    1 + catalog
        .skills
        .iter()
        .map(|s| 1 + s.skill.resources.len())
        .sum::<usize>()
}

fn resources_page(catalog: &Catalog, start: usize, count: usize) -> Vec<Resource> {
    let mut out = Vec::with_capacity(count);
    let mut at = 0usize;
    let end = start + count;
    if start == 0 {
        out.push(
            Resource::new(INDEX_URI, "index.json")
                .with_mime_type("application/json")
                .with_description(
                    "Every served skill's entry (uri, frontmatter, resources with digests).",
                ),
        );
    }
    at += 1;
    for served in &catalog.skills {
        let len = 1 + served.skill.resources.len();
        if at + len <= start {
            at += len;
            continue;
        }
        if at >= end {
            break;
        }
        for (i, (path, size, is_text)) in served.files().enumerate() {
            let position = at + i;
            if position < start || position >= end {
                continue;
            }
            out.push(if i == 0 {
                skill_resource(served)
            } else {
                file_resource(served, path, size, is_text)
            });
        }
        at += len;
    }
    out
}

fn contents(file: FileContent) -> ResourceContents {
    match String::from_utf8(file.bytes) {
        Ok(text) => ResourceContents::text(text, file.uri).with_mime_type(file.mime_type),
        Err(err) => ResourceContents::blob(
            base64::engine::general_purpose::STANDARD.encode(err.into_bytes()),
            file.uri,
        )
        .with_mime_type(file.mime_type),
    }
}

fn string_arg<'a>(args: &'a JsonObject, name: &str) -> Result<Option<&'a str>, ErrorData> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(format!(
            "`{name}` must be a string, not {}",
            type_name(other)
        ))),
    }
}

fn required_string<'a>(args: &'a JsonObject, name: &str) -> Result<&'a str, ErrorData> {
    string_arg(args, name)?.ok_or_else(|| invalid(format!("`{name}` is required")))
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The three tools, described for the model that calls them.
pub fn tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    vec![
        Tool::new(
            "search_skills",
            "Find the skills in this library that fit a request, ranked best first. Each match has \
             the skill's name, description, a confidence in [0, 1] and whether it is selected (the \
             top match, when its confidence reaches the library's threshold). Call load_skill with \
             the selected name to get its instructions.",
            schema(json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "The request, as the user put it."},
                    "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K,
                              "description": "How many matches to return (default 5)."}
                },
                "required": ["query"],
                "additionalProperties": false
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "load_skill",
            "Load a skill's instructions: its body with the arguments substituted ($ARGUMENTS, \
             $0, ${CLAUDE_SKILL_DIR}), its token count and the list of its other files, which \
             read_skill_resource returns.",
            schema(json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The skill's name (or its skill:// URI)."},
                    "arguments": {"type": "string", "description": "Arguments for the skill, as typed after /name."}
                },
                "required": ["name"],
                "additionalProperties": false
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "read_skill_resource",
            "Read one file of a skill (a reference, script or template the skill mentions), by \
             its path relative to the skill's folder, as listed by load_skill.",
            schema(json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The skill's name (or its skill:// URI)."},
                    "path": {"type": "string", "description": "The file's path inside the skill, e.g. references/forms.md."}
                },
                "required": ["name", "path"],
                "additionalProperties": false
            })),
        )
        .with_annotations(read_only),
    ]
}

/// A tool outcome: the JSON both as text (for every client) and as
/// structured content; refusals a caller can fix are `isError` results.
fn tool_result(outcome: Result<Value, EngineError>) -> CallToolResult {
    match outcome {
        Ok(value) => {
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(value);
            result
        }
        Err(err) => CallToolResult::error(vec![ContentBlock::text(err.to_string())]),
    }
}

fn to_value<T: serde::Serialize>(value: T) -> Result<Value, EngineError> {
    serde_json::to_value(value).map_err(|e| EngineError::BadArgument(e.to_string()))
}

impl SkillServer {
    fn call(&self, name: &str, args: &JsonObject) -> Result<CallToolResult, ErrorData> {
        let allowed: &[&str] = match name {
            "search_skills" => &["query", "top_k"],
            "load_skill" => &["name", "arguments"],
            "read_skill_resource" => &["name", "path"],
            _ => return Err(invalid(format!("unknown tool `{name}`"))),
        };
        if let Some(extra) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(invalid(format!(
                "`{extra}` is not an argument of {name} (it takes {})",
                allowed.join(", ")
            )));
        }
        Ok(match name {
            "search_skills" => {
                let query = required_string(args, "query")?;
                let top_k = match args.get("top_k") {
                    None | Some(Value::Null) => None,
                    Some(Value::Number(n)) => Some(n.as_i64().ok_or_else(|| {
                        invalid(format!("`top_k` must be a whole number, not {n}"))
                    })?),
                    Some(other) => {
                        return Err(invalid(format!(
                            "`top_k` must be an integer, not {}",
                            type_name(other)
                        )));
                    }
                };
                tool_result(self.engine.search(query, top_k).and_then(to_value))
            }
            "load_skill" => {
                let skill = required_string(args, "name")?;
                let arguments = string_arg(args, "arguments")?;
                tool_result(self.engine.load(skill, arguments).and_then(to_value))
            }
            _ => {
                let skill = required_string(args, "name")?;
                let path = required_string(args, "path")?;
                match self.engine.read_skill_file(skill, path) {
                    Ok(file) => {
                        let mime = file.mime_type;
                        CallToolResult::success(vec![ContentBlock::resource(
                            contents(file).with_mime_type(mime),
                        )])
                    }
                    Err(err) => CallToolResult::error(vec![ContentBlock::text(err.to_string())]),
                }
            }
        })
    }

    fn list_skills_page(&self, start: usize) -> ListSkillsResult {
        let catalog = self.engine.catalog();
        let end = (start + SKILLS_PAGE_SIZE).min(catalog.skills.len());
        let skills = catalog
            .skills
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .map(|s| catalog.entry(s))
            .collect();
        let mut result = ListSkillsResult::with_all_items(skills);
        result.next_cursor = next_cursor(end, catalog.skills.len());
        result
    }

    fn get_skill_entry(&self, uri_text: &str) -> Result<GetSkillResult, ErrorData> {
        let catalog = self.engine.catalog();
        let (index, relative) = catalog.locate(uri_text).map_err(invalid)?;
        if relative != hone_core::folder::SKILL_FILE {
            return Err(invalid(format!(
                "`{uri_text}` is not the URI of a skill's SKILL.md"
            )));
        }
        Ok(GetSkillResult::new(catalog.entry(&catalog.skills[index])))
    }

    fn directory(&self, uri_text: &str) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let catalog = self.engine.catalog();
        let (index, folder) = catalog.locate(uri_text).map_err(invalid)?;
        let served = &catalog.skills[index];
        if !catalog.is_folder(served, &folder) {
            return Err(invalid(format!("`{uri_text}` is not a folder of a skill")));
        }
        let resources = catalog
            .children(served, &folder)
            .into_iter()
            .map(|(path, is_dir, size, is_text)| {
                let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
                if is_dir {
                    Resource::new(served.file_uri(&path), name).with_mime_type("inode/directory")
                } else {
                    Resource::new(served.file_uri(&path), name)
                        .with_mime_type(uri::mime_type(&path, is_text))
                        .with_size(size)
                }
            })
            .collect();
        Ok(ReadResourceDirectoryResult::with_all_items(resources))
    }

    fn index(&self) -> FileContent {
        let catalog = self.engine.catalog();
        let skills: Vec<_> = catalog.skills.iter().map(|s| catalog.entry(s)).collect();
        FileContent {
            uri: INDEX_URI.into(),
            mime_type: "application/json",
            bytes: serde_json::to_vec_pretty(&json!({ "skills": skills })).unwrap_or_default(),
        }
    }

    fn prompt_skills(catalog: &Catalog) -> impl Iterator<Item = &ServedSkill> {
        catalog.skills.iter().filter(|s| s.user_invocable())
    }
}

fn prompt(served: &ServedSkill) -> Prompt {
    let hint = served.skill.meta.argument_hint.clone();
    let argument = PromptArgument::new("arguments")
        .with_description(
            hint.clone()
                .unwrap_or_else(|| "What to pass to the skill, as typed after its name.".into()),
        )
        .with_required(false);
    let description = (!served.description().is_empty()).then(|| served.description().to_owned());
    let title = match &hint {
        Some(hint) => format!("/{} {hint}", served.skill.id),
        None => format!("/{}", served.skill.id),
    };
    Prompt::new(served.skill.id.clone(), description, Some(vec![argument])).with_title(title)
}

/// The answers, before they are reported.
impl SkillServer {
    async fn answer_list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn answer_call_tool(
        &self,
        request: CallToolRequestParams,
    ) -> Result<(CallToolResult, Option<String>), ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let this = self.clone();
        let name = request.name.to_string();
        // Ranking and reading are CPU and disk work: keep them off the I/O threads.
        let result = tokio::task::spawn_blocking(move || this.call(&name, &args))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))??;
        // A refusal the caller can fix is a result, not an error: say why.
        let refusal = (result.is_error == Some(true)).then(|| {
            result
                .content
                .iter()
                .find_map(|c| c.as_text().map(|t| t.text.clone()))
                .unwrap_or_else(|| "refused".to_owned())
        });
        Ok((result, refusal))
    }

    async fn answer_list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let start = offset(request.as_ref())?;
        let catalog = self.engine.catalog();
        let total = resource_count(&catalog);
        let mut result =
            ListResourcesResult::with_all_items(resources_page(&catalog, start, PAGE_SIZE));
        result.next_cursor = next_cursor(start + PAGE_SIZE, total);
        Ok(result)
    }

    async fn answer_list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("skill://{+skill_path}/{+file}", "skill file").with_description(
                "A file of a served skill; skill_path ends with the skill's name.",
            ),
        ]))
    }

    async fn answer_read_resource(
        &self,
        request: ReadResourceRequestParams,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let file = if request.uri == INDEX_URI {
            let this = self.clone();
            tokio::task::spawn_blocking(move || this.index())
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        } else {
            let engine = self.engine.clone();
            let uri_text = request.uri.clone();
            tokio::task::spawn_blocking(move || engine.read_uri(&uri_text))
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
                .map_err(|err| match err {
                    EngineError::Lookup(LookupError::NoSkill(_))
                    | EngineError::Lookup(LookupError::NotInSkill(_))
                    | EngineError::Lookup(LookupError::Path(uri::PathError::Missing(_))) => {
                        ErrorData::resource_not_found(
                            err.to_string(),
                            Some(json!({"uri": request.uri})),
                        )
                    }
                    other => invalid(other),
                })?
        };
        Ok(ReadResourceResult::new(vec![contents(file)]).into())
    }

    async fn answer_list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let start = offset(request.as_ref())?;
        let catalog = self.engine.catalog();
        let mut seen = std::collections::HashSet::new();
        let all: Vec<&ServedSkill> = Self::prompt_skills(&catalog)
            .filter(|s| seen.insert(s.skill.id.clone()))
            .collect();
        let end = (start + PAGE_SIZE).min(all.len());
        let prompts = all
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .map(|s| prompt(s))
            .collect();
        let mut result = ListPromptsResult::with_all_items(prompts);
        result.next_cursor = next_cursor(end, all.len());
        Ok(result)
    }

    async fn answer_get_prompt(
        &self,
        request: GetPromptRequestParams,
    ) -> Result<GetPromptResponse, ErrorData> {
        let catalog = self.engine.catalog();
        let served = catalog.resolve(&request.name).map_err(invalid)?;
        if !served.user_invocable() {
            return Err(invalid(format!(
                "`{}` is not user-invocable (user-invocable: false)",
                request.name
            )));
        }
        let args = request.arguments.unwrap_or_default();
        if let Some(extra) = args.keys().find(|k| k.as_str() != "arguments") {
            return Err(invalid(format!(
                "`{extra}` is not an argument of this prompt (it takes `arguments`)"
            )));
        }
        let arguments = string_arg(&args, "arguments")?.unwrap_or("");
        if arguments.len() > crate::engine::MAX_ARGUMENTS_BYTES {
            return Err(invalid("arguments are too long"));
        }
        let text = render(served, arguments);
        let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
        if !served.description().is_empty() {
            result = result.with_description(served.description().to_owned());
        }
        Ok(result.into())
    }

    async fn answer_list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let start = offset(request.as_ref())?;
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.list_skills_page(start))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn answer_get_skill(
        &self,
        request: GetSkillRequestParams,
    ) -> Result<GetSkillResult, ErrorData> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.get_skill_entry(&request.uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
    }

    async fn answer_read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.directory(&request.uri)
    }
}

impl ServerHandler for SkillServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_skills_with_directory_read()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("hone", env!("CARGO_PKG_VERSION")).with_title("Hone skill library"),
            )
            .with_instructions(format!(
                "This server serves a library of agent skills. Call search_skills with the user's \
                 request to find the skill that fits ({} ranking; a match is selected at confidence \
                 {:.2}), then load_skill with its name, and read_skill_resource for the files it \
                 mentions. Skills are also resources (skill://<path>/SKILL.md) and prompts.",
                self.engine.kind(),
                self.engine.threshold()
            ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let client = context
            .peer
            .peer_info()
            .map(|info| format!("{} {}", info.client_info.name, info.client_info.version))
            .unwrap_or_else(|| "a client".to_owned());
        self.observer.answered(Answered {
            method: "initialize",
            detail: clip(&format!("{client} connected")),
            error: None,
            micros: 0,
        });
        self.clients.add(context.peer);
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let started = Instant::now();
        let detail = String::new();
        let outcome = self.answer_list_tools(request).await;
        self.report("tools/list", &detail, started, &outcome);
        outcome
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let detail = tool_detail(&request);
        let outcome = self.answer_call_tool(request).await;
        match &outcome {
            Ok((_, Some(refusal))) => self.observer.answered(Answered {
                method: "tools/call",
                detail: clip(&detail),
                error: Some(clip(refusal)),
                micros: started.elapsed().as_micros() as u64,
            }),
            _ => self.report("tools/call", &detail, started, &outcome),
        }
        outcome.map(|(result, _)| result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let started = Instant::now();
        let detail = cursor(&request);
        let outcome = self.answer_list_resources(request).await;
        self.report("resources/list", &detail, started, &outcome);
        outcome
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let started = Instant::now();
        let detail = String::new();
        let outcome = self.answer_list_resource_templates(request).await;
        self.report("resources/templates/list", &detail, started, &outcome);
        outcome
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let started = Instant::now();
        let detail = request.uri.clone();
        let outcome = self.answer_read_resource(request).await;
        self.report("resources/read", &detail, started, &outcome);
        outcome
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let started = Instant::now();
        let detail = cursor(&request);
        let outcome = self.answer_list_prompts(request).await;
        self.report("prompts/list", &detail, started, &outcome);
        outcome
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let started = Instant::now();
        let detail = request.name.to_string();
        let outcome = self.answer_get_prompt(request).await;
        self.report("prompts/get", &detail, started, &outcome);
        outcome
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let started = Instant::now();
        let detail = cursor(&request);
        let outcome = self.answer_list_skills(request).await;
        self.report("skills/list", &detail, started, &outcome);
        outcome
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let started = Instant::now();
        let detail = request.uri.clone();
        let outcome = self.answer_get_skill(request).await;
        self.report("skills/get", &detail, started, &outcome);
        outcome
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let started = Instant::now();
        let detail = request.uri.clone();
        let outcome = self.answer_read_resource_directory(request).await;
        self.report("resources/directory/read", &detail, started, &outcome);
        outcome
    }
}
