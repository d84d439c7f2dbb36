//! Serving one request: the method handlers over the fixture set, for both eras.
//!
//! A handler gets the request (already accepted by `mcpgen::protocol::check_request` for the
//! modern era, or validated against the session's revision for the legacy one), a sink for
//! the messages it sends on the request's stream (progress, logs, and in the legacy era its
//! own requests to the client), and returns the result object or an error.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::fixtures::{render, Entry, Fixtures};
use super::session::Session;
use super::state::StateError;
use super::wire::{to_serde, Outbound, RpcError};
use super::Server;

/// The request's era and what it declared.
#[derive(Clone)]
pub enum Era {
    /// An established 2025-11-25-style session (negotiated by `initialize`).
    Legacy(Arc<Session>),
    /// A stateless 2026-07-28 request; its `_meta` carries version and capabilities.
    Modern { meta: Value },
}

impl Era {
    pub fn is_modern(&self) -> bool {
        matches!(self, Era::Modern { .. })
    }

    /// The capabilities the client declared (per request in the modern era, at `initialize`
    /// in the legacy one).
    pub fn client_capabilities(&self) -> Value {
        match self {
            Era::Legacy(s) => s.client_capabilities.clone(),
            Era::Modern { meta } => {
                meta.get("io.modelcontextprotocol/clientCapabilities").cloned().unwrap_or_else(|| json!({}))
            }
        }
    }
}

const LOG_LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

fn severity(level: &str) -> Option<usize> {
    LOG_LEVELS.iter().position(|l| *l == level)
}

impl Server {
    /// Serves one request; returns its result object (without the modern stamps, which the
    /// transport adds: see [`Server::finish_modern_result`]).
    pub async fn handle(
        self: &Arc<Self>,
        era: &Era,
        method: &str,
        params: &Value,
        out: &Outbound,
    ) -> Result<Value, RpcError> {
        let modern = era.is_modern();
        let f = &self.fixtures;
        match method {
            "ping" => Ok(json!({})),
            "server/discover" => Ok(self.discover_result()),
            "tools/list" => Ok(json!({ "tools": Fixtures::listed(&f.tools, "tool", modern) })),
            "prompts/list" => Ok(json!({ "prompts": Fixtures::listed(&f.prompts, "prompt", modern) })),
            "resources/list" => Ok(json!({ "resources": Fixtures::listed(&f.resources, "resource", modern) })),
            "resources/templates/list" => {
                Ok(json!({ "resourceTemplates": Fixtures::listed(&f.templates, "template", modern) }))
            }
            "resources/read" => self.read_resource(params, modern),
            "resources/subscribe" | "resources/unsubscribe" => {
                let Era::Legacy(session) = era else { unreachable!("removed in the modern era (check_request)") };
                let uri = params.get("uri").and_then(Value::as_str).unwrap_or_default().to_owned();
                session
                    .set_subscribed(&uri, method == "resources/subscribe")
                    .map_err(|full| RpcError::new(-32603, full.to_string()))?;
                Ok(json!({}))
            }
            "logging/setLevel" => {
                let Era::Legacy(session) = era else { unreachable!("removed in the modern era (check_request)") };
                let level = params.get("level").and_then(Value::as_str).unwrap_or("info");
                session.set_log_level(level);
                Ok(json!({}))
            }
            "completion/complete" => {
                let reference = params.get("ref").cloned().unwrap_or(Value::Null);
                let argument = params.pointer("/argument/name").and_then(Value::as_str).unwrap_or_default();
                let prefix = params.pointer("/argument/value").and_then(Value::as_str).unwrap_or_default();
                let values = f.completions(&reference, argument, prefix, modern);
                Ok(json!({ "completion": { "values": values, "total": values.len(), "hasMore": false } }))
            }
            "prompts/get" => self.get_prompt(era, params),
            "tools/call" => self.call_tool(era, params, out).await,
            "tasks/get" | "tasks/update" | "tasks/cancel" => self.task_request(method, params),
            other => Err(RpcError::new(-32601, format!("Method not found: {other}")).with_http_status(404)),
        }
    }

    /// `resources/read`: the resource's contents. SEP-2164: an unknown resource is -32602 with
    /// the uri in `data` (2026-07-28); the legacy revisions' resources page asks -32002 (SHOULD).
    fn read_resource(&self, params: &Value, modern: bool) -> Result<Value, RpcError> {
        let uri = params.get("uri").and_then(Value::as_str).unwrap_or_default();
        match self.fixtures.read_resource(uri, modern) {
            Some(contents) => Ok(json!({ "contents": contents })),
            None if modern => {
                Err(RpcError::invalid_params(format!("Resource not found: {uri}")).with_data(json!({"uri": uri})))
            }
            None => Err(RpcError::new(-32002, format!("Resource not found: {uri}")).with_data(json!({"uri": uri}))),
        }
    }

    /// `prompts/get`: the prompt's result rendered with its arguments, once every required one
    /// is given (and its MRTR rounds are answered, if it has any).
    fn get_prompt(&self, era: &Era, params: &Value) -> Result<Value, RpcError> {
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
        let entry = self
            .fixtures
            .prompt(name, era.is_modern())
            .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))?;
        let args = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
        if let Some(required) = entry.spec["prompt"]["arguments"].as_array() {
            for a in required.iter().filter(|a| a["required"] == true) {
                let n = a["name"].as_str().unwrap_or_default();
                if args.get(n).is_none() {
                    return Err(RpcError::invalid_params(format!("Missing required argument `{n}` of prompt {name}")));
                }
            }
        }
        let cx = json!({ "args": args });
        if entry.spec.get("rounds").is_some() {
            return match self.input_required(entry, era, params, &cx)? {
                Rounds::Asking(result) => Ok(result),
                Rounds::Done(cx) => Ok(render(&entry.spec["result"], &cx)),
            };
        }
        Ok(render(&entry.spec["result"], &cx))
    }

    /// `tools/call`: the arguments checked against the tool's `inputSchema`, then the tool's
    /// fixture `behavior` run.
    async fn call_tool(self: &Arc<Self>, era: &Era, params: &Value, out: &Outbound) -> Result<Value, RpcError> {
        let modern = era.is_modern();
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
        let Some(entry) = self.fixtures.tool(name, modern) else {
            return Err(RpcError::invalid_params(format!("Unknown tool: {name}")));
        };
        let args = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
        if let Some(refused) = invalid_arguments(name, entry, &args) {
            return Ok(refused);
        }
        let progress_token = params.pointer("/_meta/progressToken").cloned();
        let cx = json!({ "args": args, "progressToken": progress_token.clone().unwrap_or(Value::Null) });
        match entry.str("behavior").unwrap_or("static") {
            "static" => Ok(render(&entry.spec["result"], &cx)),
            "logging" => {
                self.log_lines(era, out, entry).await;
                Ok(render(&entry.spec["result"], &cx))
            }
            "progress" => {
                if let Some(token) = &progress_token {
                    send_progress(out, entry, token).await;
                }
                Ok(render(&entry.spec["result"], &cx))
            }
            "client_request" => self.ask_client(entry, era, out, &cx).await,
            "requires_capability" => {
                let declared = from_serde(&era.client_capabilities());
                if let Some(missing) =
                    mcpgen::protocol::missing_capabilities(&declared, &from_serde(&entry.spec["requires"]))
                {
                    return Err(RpcError::from(mcpgen::protocol::missing_capability_error(None, missing)));
                }
                Ok(render(&entry.spec["result"], &cx))
            }
            "input_required" => match self.input_required(entry, era, params, &cx)? {
                Rounds::Asking(result) => Ok(result),
                Rounds::Done(cx) => Ok(render(&entry.spec["result"], &cx)),
            },
            "task" => self.task_tool(entry, era, params, cx).await,
            "notify_listeners" => {
                self.listeners.notify(entry.str("notification").unwrap_or_default());
                Ok(render(&entry.spec["result"], &cx))
            }
            other => Err(RpcError::new(-32603, format!("fixture tool {name} has an unknown behavior `{other}`"))),
        }
    }

    /// A `logging` tool's `log` lines, sent as log messages 20 ms apart.
    async fn log_lines(&self, era: &Era, out: &Outbound, entry: &Entry) {
        for line in entry.spec["log"].as_array().into_iter().flatten() {
            self.log(era, out, "info", line.clone());
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// A `client_request` tool (legacy era only): the fixture's request sent to the client, and
    /// its response rendered into the result; a client that did not declare the capability the
    /// request needs gets a tool error instead.
    async fn ask_client(&self, entry: &Entry, era: &Era, out: &Outbound, cx: &Value) -> Result<Value, RpcError> {
        let Era::Legacy(session) = era else { unreachable!("client_request tools are legacy-only") };
        let request = render(&entry.spec["request"], cx);
        let method = request["method"].as_str().unwrap_or_default();
        let needed = mcpgen::protocol::required_capability(&from_serde(&request));
        if let Some(missing) = mcpgen::protocol::missing_capabilities(&from_serde(&era.client_capabilities()), &needed)
        {
            // Legacy sessions have no -32021: the tool reports it in its result.
            let text = format!("The client did not declare the capability {method} needs: {}", to_serde(&missing));
            return Ok(json!({ "isError": true, "content": [{ "type": "text", "text": text }] }));
        }
        let response = session.request_client(out, method, request["params"].clone()).await?;
        let cx = json!({ "args": cx["args"], "response": response });
        Ok(render(&entry.spec["result"], &cx))
    }

    /// A `task` tool: the Tasks extension (task_jobs.rs); MRTR rounds first, if the tool has
    /// any (the extension: resolved synchronously before the task is created).
    async fn task_tool(
        self: &Arc<Self>,
        entry: &Entry,
        era: &Era,
        params: &Value,
        cx: Value,
    ) -> Result<Value, RpcError> {
        let cx = if entry.spec.get("rounds").is_some() {
            match self.input_required(entry, era, params, &cx)? {
                Rounds::Asking(result) => return Ok(result),
                Rounds::Done(cx) => cx,
            }
        } else {
            cx
        };
        self.call_task_tool(entry, era, cx).await
    }

    /// A log message for this request: in the legacy era at or above the session's level; in
    /// the modern era only when the request opted in with `logLevel` (LOG-1), at or above it.
    fn log(&self, era: &Era, out: &Outbound, level: &str, data: Value) {
        let threshold = match era {
            Era::Legacy(s) => s.log_level(),
            Era::Modern { meta } => match meta.get("io.modelcontextprotocol/logLevel").and_then(Value::as_str) {
                Some(l) => Some(l.to_owned()),
                None => return,
            },
        };
        if let (Some(t), Some(l)) = (threshold.as_deref().and_then(severity), severity(level)) {
            if l < t {
                return;
            }
        }
        out.notify(
            "notifications/message",
            json!({ "level": level, "logger": "mcpgen-reference-server", "data": data }),
        );
    }

    /// MRTR (modern era): the entry's `rounds` of input requests, answered one round per retry.
    /// The answers collected so far travel in the signed `requestState`; once every round is
    /// answered, the context has them under `/answers` (the caller renders the result).
    fn input_required(&self, entry: &Entry, era: &Era, params: &Value, cx: &Value) -> Result<Rounds, RpcError> {
        let rounds = entry.spec["rounds"].as_array().cloned().unwrap_or_default();
        let (mut round, mut answers) = (0usize, Map::new());
        let (method, name) = match (entry.spec.get("tool"), entry.spec.get("prompt")) {
            (Some(t), _) => ("tools/call", t["name"].as_str().unwrap_or_default()),
            (None, p) => ("prompts/get", p.and_then(|p| p["name"].as_str()).unwrap_or_default()),
        };
        if let Some(token) = params.get("requestState").and_then(Value::as_str) {
            let state = self.signer.redeem(token, method, name).map_err(state_error)?;
            round = state["round"].as_u64().unwrap_or(0) as usize;
            answers = state["answers"].as_object().cloned().unwrap_or_default();
        }
        let responses = match params.get("inputResponses") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(RpcError::invalid_params("inputResponses must be an object")),
        };
        let declared = from_serde(&era.client_capabilities());
        let only_declared = entry.spec["onlyDeclared"] == true;
        while round < rounds.len() {
            let mut asked = Map::new();
            for (key, request) in rounds[round].as_object().into_iter().flatten() {
                let needed = mcpgen::protocol::required_capability(&from_serde(request));
                if let Some(missing) = mcpgen::protocol::missing_capabilities(&declared, &needed) {
                    if only_declared {
                        continue;
                    }
                    return Err(RpcError::from(mcpgen::protocol::missing_capability_error(None, missing)));
                }
                asked.insert(key.clone(), request.clone());
            }
            if asked.is_empty() {
                return Ok(Rounds::Asking(
                    json!({ "content": [{ "type": "text", "text": "No supported capabilities declared" }] }),
                ));
            }
            let mut all = true;
            for (key, request) in &asked {
                match responses.get(key) {
                    Some(answer) => {
                        check_input_response(request, key, answer)?;
                        answers.insert(key.clone(), answer.clone());
                    }
                    None => all = false,
                }
            }
            if !all {
                let state = json!({ "round": round, "answers": answers });
                return Ok(Rounds::Asking(json!({
                    "resultType": "input_required",
                    "inputRequests": asked,
                    "requestState": self.signer.issue(method, name, state),
                })));
            }
            round += 1;
        }
        let mut cx = cx.clone();
        cx["answers"] = Value::Object(answers);
        Ok(Rounds::Done(cx))
    }
}

/// TOOL-5: every input is validated against the tool's inputSchema; a failure is a
/// tool-execution error (AMB-15), with the validator's first errors. `None`: valid arguments.
fn invalid_arguments(name: &str, entry: &Entry, args: &Value) -> Option<Value> {
    let Err(mcpgen::tools::ToolCallError::Invalid(errors)) =
        mcpgen::tools::validate_tool_arguments(&entry.spec["tool"], args)
    else {
        return None;
    };
    let text = errors.iter().take(4).map(|e| format!("{}: {}", e.pointer, e.message)).collect::<Vec<_>>();
    let text = format!("Invalid arguments for `{name}`: {}", text.join("; "));
    Some(json!({ "isError": true, "content": [{ "type": "text", "text": text }] }))
}

/// A `progress` tool's `progress` steps, sent as progress notifications for `token` 20 ms
/// apart.
async fn send_progress(out: &Outbound, entry: &Entry, token: &Value) {
    let total = entry.spec["total"].clone();
    for p in entry.spec["progress"].as_array().into_iter().flatten() {
        out.notify(
            "notifications/progress",
            json!({ "progressToken": token, "progress": p, "total": total,
                    "message": format!("Completed step {p} of {total}") }),
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A refused `requestState`, by kind: the client's mistake is -32602; a full table of
/// redeemed states is the server's (-32603, HTTP 503: try again).
fn state_error(e: StateError) -> RpcError {
    match e {
        StateError::Busy => RpcError::new(-32603, e.to_string()).with_http_status(503),
        StateError::Malformed
        | StateError::BadSignature
        | StateError::OtherRequest
        | StateError::Expired
        | StateError::Replayed => RpcError::invalid_params(e.to_string()),
    }
}

/// Where a tool's MRTR rounds stand.
enum Rounds {
    /// The answer for this request: the next `InputRequiredResult` (or a final result when no
    /// round can be asked).
    Asking(Value),
    /// Every round answered: the rendering context, answers under `/answers`.
    Done(Value),
}

/// MRTR: an input response must be the result its input request asks for; checked by the
/// generated validator of that result definition.
pub(super) fn check_input_response(request: &Value, key: &str, answer: &Value) -> Result<(), RpcError> {
    let def = match request["method"].as_str() {
        Some("elicitation/create") => "ElicitResult",
        Some("sampling/createMessage") => "CreateMessageResult",
        Some("roots/list") => "ListRootsResult",
        _ => return Ok(()),
    };
    let Some(rev) = mcpgen::Revision::parse(super::modern_version()) else { return Ok(()) };
    // Input responses omit `resultType` (they are client results embedded in params).
    let mut candidate = answer.clone();
    if let Value::Object(m) = &mut candidate {
        m.entry("resultType").or_insert_with(|| "complete".into());
    }
    mcpgen::validate_view(rev, def, &&candidate, mcpgen::Options::default())
        .map_err(|e| RpcError::invalid_params(format!("inputResponses/{key} is not a valid {def}: {e}")))
}

/// serde_json as mcpgen's lossless value.
pub fn from_serde(v: &Value) -> mcpgen::Value {
    mcpgen::Value::from(v)
}
