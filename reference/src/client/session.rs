//! One connection to a server, in either era: the legacy `initialize` session (with
//! `Mcp-Session-Id`, server-to-client requests on SSE streams, resumption with
//! `Last-Event-ID`), or modern stateless requests (per-request `_meta`, the standard and
//! `Mcp-Param-*` headers, version negotiation by -32022, MRTR retries).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use mcpgen::conversation::Sender;
use mcpgen::http::{header_bindings, param_headers, standard_headers, HeaderBinding};
use mcpgen::protocol::CheckedResponse;
use mcpgen::Revision;
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::check::SelfCheck;
use super::era::{classify_refusal, Refusal, Start};
use super::input;
use super::mrtr::retry_params;
use super::sse::ResumeState;
use super::transport::{stream_failure, Body, EventStream, Transport};
use super::{ClientError, Limits};

mod tasks;

/// MRTR rounds before the client gives up on a request (MRTR-13: servers may keep asking).
const MAX_INPUT_ROUNDS: usize = 8;
/// Reconnections of one legacy SSE stream before the request fails.
const MAX_RECONNECTS: usize = 5;
const CLIENT_NAME: &str = "mcpgen-reference-client";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEra {
    /// `initialize` negotiated this revision.
    Legacy(Revision),
    /// Stateless requests under this version.
    Modern(Revision),
}

/// A tool from `tools/list`, with what the client derived from it.
#[derive(Debug, Clone)]
pub struct ListedTool {
    pub name: String,
    /// The tool exactly as the server sent it.
    pub raw: Value,
}

/// The usable tools of a `tools/list`, and those the client dropped with the reason.
#[derive(Debug, Default)]
pub struct ToolList {
    pub usable: Vec<ListedTool>,
    pub dropped: Vec<(String, String)>,
}

/// What the request path and the standalone stream's listener share.
struct Shared {
    transport: Transport,
    check: Mutex<SelfCheck>,
    /// Legacy requests waiting for a response that may come on another stream.
    pending: Mutex<HashMap<i64, oneshot::Sender<Vec<u8>>>>,
    era: Mutex<SessionEra>,
}

impl Shared {
    fn observe(&self, from: Sender, bytes: &[u8]) {
        self.check.lock().expect("not poisoned").observe(from, bytes);
    }

    fn note(&self, text: String) {
        self.check.lock().expect("not poisoned").note(text);
    }

    fn legacy_headers(&self) -> Vec<(String, String)> {
        match *self.era.lock().expect("not poisoned") {
            // The header exists from 2025-06-18 on.
            SessionEra::Legacy(r) if r.as_str() >= "2025-06-18" => {
                vec![("MCP-Protocol-Version".to_owned(), r.as_str().to_owned())]
            }
            _ => Vec::new(),
        }
    }

    /// Reads events until the response with `want` (`Some`) or the end of the stream
    /// (`None`). Server requests are answered; responses to other pending requests are handed
    /// to their waiters.
    async fn pump(
        &self,
        want: Option<i64>,
        stream: &mut EventStream,
        resume: &mut ResumeState,
    ) -> Result<Option<Vec<u8>>, ClientError> {
        while let Some(event) = stream.next().await {
            let event = match event {
                Ok(e) => e,
                // A stream cut mid-event ends like a closed one (and is resumed the same way);
                // a timeout or an oversized event fails.
                Err(sse_stream::Error::Body(e)) => return stream_failure(e.as_ref()).map_or(Ok(None), Err),
                Err(e) => return Err(ClientError::Sse(e.to_string())),
            };
            let Some(data) = resume.observe(&event) else { continue };
            let bytes = data.as_bytes().to_vec();
            self.observe(Sender::Server, &bytes);
            let Ok(msg) = serde_json::from_slice::<Value>(&bytes) else { continue };
            match (msg.get("method").and_then(Value::as_str), msg.get("id")) {
                (Some(method), Some(req_id)) => {
                    let params = msg.get("params").cloned().unwrap_or(json!({}));
                    self.answer_server_request(method, req_id.clone(), params).await?;
                }
                (Some(_), None) => {} // a notification: checked above, nothing to do
                (None, Some(resp_id)) if want.is_some() && resp_id.as_i64() == want => return Ok(Some(bytes)),
                (None, resp_id) => {
                    let waiter = resp_id
                        .and_then(Value::as_i64)
                        .and_then(|id| self.pending.lock().expect("not poisoned").remove(&id));
                    match waiter {
                        Some(tx) => {
                            let _ = tx.send(bytes);
                        }
                        None => self.note(format!("a response to no pending request (id {resp_id:?})")),
                    }
                }
            }
        }
        Ok(None)
    }

    /// A server-to-client request on a legacy stream: answered by its own POST.
    async fn answer_server_request(&self, method: &str, id: Value, params: Value) -> Result<(), ClientError> {
        if matches!(*self.era.lock().expect("not poisoned"), SessionEra::Modern(_)) {
            // MRTR-1: modern servers ask through InputRequiredResult only.
            self.note(format!("a modern server sent the request {method:?} (MRTR-1); not answered"));
            return Ok(());
        }
        let msg = match input::answer(method, &params) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}}),
        };
        let bytes = serde_json::to_vec(&msg).expect("JSON");
        self.observe(Sender::Client, &bytes);
        let reply = self.transport.post(bytes, &self.legacy_headers()).await?;
        if !(200..300).contains(&reply.status) {
            return Err(ClientError::Status { status: reply.status, body: body_text(reply.body) });
        }
        Ok(())
    }

    /// Opens the standalone GET stream of a legacy session (server requests not tied to a
    /// client request arrive there); `None` when the server offers none (405, or any answer
    /// that is not a stream).
    async fn open_standalone(&self, last_event_id: Option<&str>) -> Option<EventStream> {
        let reply = self.transport.get(last_event_id, &self.legacy_headers()).await.ok()?;
        match reply.body {
            Body::Sse(stream) => Some(stream),
            _ => None,
        }
    }

    /// Reads the standalone stream, resuming it after `retry` when it ends. A stream idle for
    /// the read timeout is reopened, which does not count as a reconnection: that stream may
    /// rightly stay silent as long as the server has nothing to ask.
    async fn listen(self: Arc<Self>, mut stream: EventStream) {
        let mut resume = ResumeState::default();
        let mut reconnects = 0;
        loop {
            match self.pump(None, &mut stream, &mut resume).await {
                Err(ClientError::Timeout { .. }) => {}
                Err(e) => {
                    self.note(format!("standalone stream: {e}"));
                    reconnects += 1;
                }
                Ok(_) => reconnects += 1,
            }
            if reconnects > MAX_RECONNECTS {
                return;
            }
            tokio::time::sleep(resume.reconnect_delay()).await;
            match self.open_standalone(resume.last_event_id.as_deref()).await {
                Some(s) => stream = s,
                None => return,
            }
        }
    }
}

pub struct Session {
    shared: Arc<Shared>,
    listener: Option<JoinHandle<()>>,
    era: SessionEra,
    next_id: i64,
    /// The `x-mcp-header` bindings of the tools of the last `tools/list` (XHDR-6/7).
    bindings: HashMap<String, Vec<HeaderBinding>>,
    /// The server's capabilities (`initialize` or `server/discover`).
    pub server_capabilities: Value,
    /// Declare the Tasks extension in the next modern requests' `_meta` (a tool that needs a
    /// task, and the `tasks/*` requests that follow it).
    declaring_tasks: bool,
}

fn client_info() -> Value {
    json!({"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")})
}

/// The capabilities to declare under a revision: only what that revision defines.
fn capabilities_for(rev: Revision) -> Value {
    let mut caps = input::client_capabilities();
    let obj = caps.as_object_mut().expect("an object");
    match rev.as_str() {
        "2024-11-05" | "2025-03-26" => {
            obj.remove("elicitation");
        }
        "2025-06-18" => {
            obj.insert("elicitation".into(), json!({}));
        }
        _ => {}
    }
    caps
}

impl Session {
    /// Connects: `initialize` for a legacy start; for a modern one `server/discover`, falling
    /// back to `initialize` under the newest legacy revision when the server is legacy (ERA-5).
    pub async fn connect(url: &str, start: Start, check: SelfCheck) -> Result<Session, ClientError> {
        Session::connect_with(url, start, check, Limits::default()).await
    }

    /// [`Session::connect`] with the client's timeouts and size cap.
    pub async fn connect_with(
        url: &str,
        start: Start,
        check: SelfCheck,
        limits: Limits,
    ) -> Result<Session, ClientError> {
        let transport = Transport::with_limits(url, limits)?;
        let rev = |v: &str| Revision::parse(v).ok_or_else(|| ClientError::Protocol(format!("unknown revision {v}")));
        let era = match &start {
            Start::Modern(v) => SessionEra::Modern(rev(v)?),
            Start::Legacy(v) => SessionEra::Legacy(rev(v)?),
        };
        let shared = Arc::new(Shared {
            transport,
            check: Mutex::new(check),
            pending: Mutex::new(HashMap::new()),
            era: Mutex::new(era.clone()),
        });
        let mut s = Session {
            shared,
            listener: None,
            era,
            next_id: 1,
            bindings: HashMap::new(),
            server_capabilities: json!({}),
            declaring_tasks: false,
        };
        match start {
            Start::Legacy(v) => s.initialize(&v).await?,
            // ERA-5: any error answering `server/discover` means a legacy server (the refusal
            // was observed by the same checker, which follows the session into `initialize`).
            Start::Modern(_) => match s.discover().await {
                Err(ClientError::LegacyServer | ClientError::Remote { .. }) => {
                    let legacy = Revision::all()
                        .into_iter()
                        .find(|r| !mcpgen::protocol::is_modern(*r))
                        .ok_or(ClientError::LegacyServer)?;
                    s.shared.note(format!("the server is legacy (ERA-5): falling back to initialize {legacy}"));
                    s.initialize(legacy.as_str()).await?;
                }
                other => other?,
            },
        }
        Ok(s)
    }

    fn set_era(&mut self, era: SessionEra) {
        *self.shared.era.lock().expect("not poisoned") = era.clone();
        self.era = era;
    }

    pub fn era(&self) -> &SessionEra {
        &self.era
    }

    pub fn revision(&self) -> Revision {
        match self.era {
            SessionEra::Legacy(r) | SessionEra::Modern(r) => r,
        }
    }

    fn next_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    async fn discover(&mut self) -> Result<(), ClientError> {
        let result = self.request("server/discover", json!({})).await?;
        self.server_capabilities = result.get("capabilities").cloned().unwrap_or_else(|| json!({}));
        let supported: Vec<&str> = result
            .get("supportedVersions")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let current = self.revision().as_str();
        if !supported.is_empty() && !supported.contains(&current) {
            let usable = supported
                .iter()
                .filter_map(|v| Revision::parse(v))
                .find(|r| mcpgen::protocol::is_modern(*r))
                .ok_or_else(|| ClientError::NoCommonVersion(supported.iter().map(|s| s.to_string()).collect()))?;
            self.set_era(SessionEra::Modern(usable));
        }
        Ok(())
    }

    async fn initialize(&mut self, version: &str) -> Result<(), ClientError> {
        let offered =
            Revision::parse(version).ok_or_else(|| ClientError::Protocol(format!("unknown revision {version}")))?;
        self.set_era(SessionEra::Legacy(offered));
        let params =
            json!({"protocolVersion": version, "capabilities": capabilities_for(offered), "clientInfo": client_info()});
        let result = self.request("initialize", params).await?;
        let negotiated = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
        // VER: a version the client does not speak ends the connection.
        let rev = Revision::parse(negotiated)
            .filter(|r| !mcpgen::protocol::is_modern(*r))
            .ok_or_else(|| ClientError::NoCommonVersion(vec![negotiated.to_owned()]))?;
        self.set_era(SessionEra::Legacy(rev));
        self.server_capabilities = result.get("capabilities").cloned().unwrap_or_else(|| json!({}));
        self.notify("notifications/initialized", None).await?;
        // Opened before anything else is sent, so that no server request can precede it.
        if let Some(stream) = self.shared.open_standalone(None).await {
            self.listener = Some(tokio::spawn(Arc::clone(&self.shared).listen(stream)));
        }
        Ok(())
    }

    /// Ends the session (legacy: DELETE with the session id).
    pub async fn close(mut self) -> SelfCheck {
        if let Some(listener) = self.listener.take() {
            listener.abort();
            let _ = listener.await;
        }
        let headers = self.shared.legacy_headers();
        self.shared.transport.delete(&headers).await;
        let check = std::mem::take(&mut *self.shared.check.lock().expect("not poisoned"));
        check
    }

    /// Whether the server declared a capability (`tools`, `resources`, `prompts`…).
    pub fn server_has(&self, capability: &str) -> bool {
        self.server_capabilities.get(capability).is_some_and(Value::is_object)
    }

    /// `tools/list` (every page), dropping the tools whose `x-mcp-header` annotations are
    /// invalid (XHDR-6) or whose schemas mcpgen refuses (JSCHEMA; a network `$ref` is refused,
    /// never fetched), each with a finding; the others stay usable.
    pub async fn list_tools(&mut self) -> Result<ToolList, ClientError> {
        let mut list = ToolList::default();
        let mut cursor: Option<Value> = None;
        self.bindings.clear();
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = self.request("tools/list", params).await?;
            for tool in result.get("tools").and_then(Value::as_array).cloned().unwrap_or_default() {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                let schema = tool.get("inputSchema").cloned().unwrap_or_else(|| json!({}));
                let verdict = match header_bindings(&schema) {
                    Err(e) => Err(e.to_string()),
                    Ok(b) => mcpgen::tools::check_tool(&tool).map(|()| b).map_err(|e| e.to_string()),
                };
                match verdict {
                    Ok(bindings) => {
                        self.bindings.insert(name.clone(), bindings);
                        list.usable.push(ListedTool { name, raw: tool });
                    }
                    Err(reason) => {
                        self.shared.note(format!("dropped tool {name:?}: {reason}"));
                        list.dropped.push((name, reason));
                    }
                }
            }
            match result.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => break,
            }
        }
        Ok(list)
    }

    /// Sends a notification (legacy sessions; modern servers get none from this client).
    pub async fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        let bytes = serde_json::to_vec(&msg).expect("JSON");
        self.shared.observe(Sender::Client, &bytes);
        let headers = self.shared.legacy_headers();
        let reply = self.shared.transport.post(bytes, &headers).await?;
        if !(200..300).contains(&reply.status) {
            return Err(ClientError::Status { status: reply.status, body: body_text(reply.body) });
        }
        Ok(())
    }

    /// One request; returns its result (after every MRTR round), or the peer's error.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        match self.era {
            SessionEra::Legacy(_) => self.request_legacy(method, params).await,
            SessionEra::Modern(_) if method == "tools/call" => self.call_tool_modern(params).await,
            SessionEra::Modern(_) => self.request_modern(method, params).await,
        }
    }

    async fn request_legacy(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let id = self.next_id();
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let bytes = serde_json::to_vec(&msg).expect("JSON");
        self.shared.observe(Sender::Client, &bytes);
        let task_augmented = params.get("task").is_some();
        let headers = if method == "initialize" { Vec::new() } else { self.shared.legacy_headers() };
        let (tx, rx) = oneshot::channel();
        self.shared.pending.lock().expect("not poisoned").insert(id, tx);
        let reply = self.shared.transport.post(bytes, &headers).await;
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                self.shared.pending.lock().expect("not poisoned").remove(&id);
                return Err(e);
            }
        };
        let response = match reply.body {
            Body::Json(b) => {
                self.shared.observe(Sender::Server, &b);
                b
            }
            Body::Sse(stream) => {
                let r = self.legacy_stream(id, stream, rx).await;
                self.shared.pending.lock().expect("not poisoned").remove(&id);
                r?
            }
            other => return Err(ClientError::Status { status: reply.status, body: body_text(other) }),
        };
        self.result_of(&response, method, task_augmented)
    }

    /// Reads a legacy request's SSE stream until its response, answering the server's requests
    /// on the way; a stream that ends first is resumed with GET and `Last-Event-ID` after the
    /// server's `retry` (SEP-1699).
    async fn legacy_stream(
        &mut self,
        id: i64,
        stream: EventStream,
        mut elsewhere: oneshot::Receiver<Vec<u8>>,
    ) -> Result<Vec<u8>, ClientError> {
        let shared = Arc::clone(&self.shared);
        let mut resume = ResumeState::default();
        let mut stream = stream;
        for attempt in 0..=MAX_RECONNECTS {
            tokio::select! {
                r = shared.pump(Some(id), &mut stream, &mut resume) => {
                    if let Some(response) = r? {
                        return Ok(response);
                    }
                }
                Ok(response) = &mut elsewhere => return Ok(response),
            }
            if attempt == MAX_RECONNECTS {
                break;
            }
            tokio::select! {
                _ = tokio::time::sleep(resume.reconnect_delay()) => {}
                Ok(response) = &mut elsewhere => return Ok(response),
            }
            let reply = shared.transport.get(resume.last_event_id.as_deref(), &shared.legacy_headers()).await?;
            stream = match reply.body {
                Body::Sse(s) => s,
                other => return Err(ClientError::Status { status: reply.status, body: body_text(other) }),
            };
        }
        Err(ClientError::StreamEnded { id, reconnects: MAX_RECONNECTS })
    }

    fn modern_message(&self, id: i64, method: &str, params: &Value) -> Value {
        let mut p = params.as_object().cloned().unwrap_or_default();
        let mut meta = p.remove("_meta").and_then(|m| m.as_object().cloned()).unwrap_or_default();
        meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!(self.revision().as_str()));
        let mut caps = capabilities_for(self.revision());
        if self.declaring_tasks {
            caps["extensions"] = json!({ mcpgen::ext::tasks::EXTENSION_ID: {} });
        }
        meta.insert("io.modelcontextprotocol/clientCapabilities".into(), caps);
        meta.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
        p.insert("_meta".into(), Value::Object(meta));
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": Value::Object(p)})
    }

    /// HTTP-8, HTTP-10, XHDR-7: the headers a modern POST carries.
    fn modern_headers(&self, method: &str, params: &Value) -> Result<Vec<(String, String)>, ClientError> {
        let mut headers = vec![("MCP-Protocol-Version".to_owned(), self.revision().as_str().to_owned())];
        headers.extend(standard_headers(method, Some(params)));
        if method == "tools/call" {
            let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
            if let Some(bindings) = self.bindings.get(name) {
                let args = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
                headers.extend(param_headers(bindings, &args).map_err(ClientError::Header)?);
            }
        }
        Ok(headers)
    }

    async fn request_modern(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let mut params = params;
        let mut rounds = 0;
        let mut renegotiated = false;
        loop {
            // MRTR-9 / ID-2: every attempt, retry or not, gets a fresh id.
            let id = self.next_id();
            let msg = self.modern_message(id, method, &params);
            let headers = self.modern_headers(method, &msg["params"])?;
            let bytes = serde_json::to_vec(&msg).expect("JSON");
            self.shared.observe(Sender::Client, &bytes);
            let reply = self.shared.transport.post(bytes, &headers).await?;
            let response = match reply.body {
                Body::Json(b) => {
                    self.shared.observe(Sender::Server, &b);
                    b
                }
                Body::Sse(mut stream) => {
                    let mut resume = ResumeState::default();
                    // No resumption in the modern era (HTTP-7): a stream that ends early fails.
                    match self.shared.pump(Some(id), &mut stream, &mut resume).await? {
                        Some(b) => b,
                        None => return Err(ClientError::StreamEnded { id, reconnects: 0 }),
                    }
                }
                Body::Other(b) if (400..500).contains(&reply.status) => match classify_refusal(reply.status, &b) {
                    Refusal::Legacy if method == "server/discover" => {
                        // The refusal belongs to the connection's conversation: the checker
                        // sees the whole fallback, not a discover left unanswered.
                        if serde_json::from_slice::<Value>(&b).is_ok() {
                            self.shared.observe(Sender::Server, &b);
                        }
                        return Err(ClientError::LegacyServer);
                    }
                    Refusal::RetryWith(versions) if !renegotiated => {
                        self.shared.observe(Sender::Server, &b);
                        renegotiated = true;
                        let pick =
                            versions.iter().find_map(|v| Revision::parse(v)).expect("filtered to known revisions");
                        self.shared.note(format!("version {} refused (-32022): retrying with {pick}", self.revision()));
                        self.set_era(SessionEra::Modern(pick));
                        continue;
                    }
                    Refusal::NoCommonVersion(v) => return Err(ClientError::NoCommonVersion(v)),
                    _ => {
                        self.shared.observe(Sender::Server, &b);
                        b
                    }
                },
                Body::Empty if method == "server/discover" && (400..500).contains(&reply.status) => {
                    return Err(ClientError::LegacyServer)
                }
                other => return Err(ClientError::Status { status: reply.status, body: body_text(other) }),
            };
            let result = self.result_of(&response, method, false)?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            rounds += 1;
            if rounds > MAX_INPUT_ROUNDS {
                return Err(ClientError::Protocol(format!(
                    "{method}: still input_required after {MAX_INPUT_ROUNDS} rounds"
                )));
            }
            let answers = self.fulfil(result.get("inputRequests"));
            params = retry_params(&params, answers, result.get("requestState"));
        }
    }

    /// MRTR-7: an answer for every input request, by key.
    fn fulfil(&mut self, requests: Option<&Value>) -> Map<String, Value> {
        let mut answers = Map::new();
        for (key, req) in requests.and_then(Value::as_object).into_iter().flatten() {
            let method = req.get("method").and_then(Value::as_str).unwrap_or_default();
            match input::answer(method, req.get("params").unwrap_or(&json!({}))) {
                Ok(result) => {
                    answers.insert(key.clone(), result);
                }
                Err(e) => self.shared.note(format!("input request {key:?} ({method}) not answered: {}", e.message)),
            }
        }
        answers
    }

    /// Checks a response with mcpgen and returns its result as JSON, or the peer's error.
    fn result_of(&mut self, response: &[u8], method: &str, task_augmented: bool) -> Result<Value, ClientError> {
        let revision = self.revision();
        let checked = {
            let mut check = self.shared.check.lock().expect("not poisoned");
            if self.declaring_tasks {
                check.response_with_tasks(response, method, revision)
            } else {
                check.response(response, method, task_augmented, revision)
            }
        };
        match checked {
            Ok(CheckedResponse::Error { code, message, data, .. }) => {
                Err(ClientError::Remote { code, message, data: data.as_ref().map(Value::from) })
            }
            Ok(CheckedResponse::Result { .. }) | Err(_) => {
                // An invalid result is reported above and still used: the scenario decides.
                let v: Value = serde_json::from_slice(response)
                    .map_err(|e| ClientError::Protocol(format!("response to {method} is not JSON: {e}")))?;
                match v.get("result") {
                    Some(r) => Ok(r.clone()),
                    None => match v.get("error") {
                        Some(e) => Err(ClientError::Remote {
                            code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
                            message: e.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
                            data: e.get("data").cloned(),
                        }),
                        None => {
                            Err(ClientError::Protocol(format!("response to {method} has neither result nor error")))
                        }
                    },
                }
            }
        }
    }
}

fn body_text(body: Body) -> String {
    match body {
        Body::Json(b) | Body::Other(b) => String::from_utf8_lossy(&b).into_owned(),
        Body::Sse(_) => "(an SSE stream)".into(),
        Body::Empty => String::new(),
    }
}
