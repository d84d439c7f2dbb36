//! `mcpgen-reference-server`: a dual-era MCP server on the public API of `mcpgen`.
//!
//! The request path, the same for Streamable HTTP ([`http`]) and stdio ([`stdio`]):
//! 1. [`Server::process`] parses the message; on HTTP, `mcpgen::protocol::check_http_headers`
//!    checks a modern request's standard headers against its body (-32020); a response from the client is routed to the
//!    legacy session request waiting for it.
//! 2. A request on an established legacy session (HTTP: `Mcp-Session-Id`; stdio: after
//!    `initialize`) is validated with `mcpgen::protocol::validate_message` under the session's
//!    revision. Anything else goes through `mcpgen::protocol::check_request`: a legacy
//!    `initialize` opens a session, a modern request (`_meta`) is served statelessly under its
//!    `_meta` version, and every refusal comes back with the code, data and HTTP status the
//!    spec requires.
//!    On HTTP, a modern `tools/call` of a tool with `x-mcp-header` bindings then goes through
//!    `mcpgen::protocol::check_param_headers` (its `Mcp-Param-*` headers against the
//!    arguments, -32020 with HTTP 400).
//! 3. [`Server::handle`](dispatch) serves the method from the fixture set (task tools and
//!    `tasks/*` in [`task_jobs`], over the table in [`tasks`]); the messages it
//!    sends on the way (progress, logs, legacy sampling/elicitation requests) and the final
//!    response travel as [`Frame`]s; the transport writes them as JSON or as an SSE stream.
//! 4. Modern results are stamped (`resultType`, `serverInfo` in `_meta`, caching hints).
//! 5. With self-checking on, every message in and out is fed to a
//!    `mcpgen::conversation::Conversation` (one per legacy session, one per modern request,
//!    listen streams included); findings on messages the server sent are logged and kept
//!    ([`SelfCheck`]). A modern request's conversation starts from the server's own
//!    `server/discover` exchange, so what the request gets is judged against the capabilities
//!    the server declares there (LOG-5, CAP-2, …).

pub mod dispatch;
pub mod fixtures;
pub mod http;
mod legacy;
pub mod self_check;
pub mod session;
pub mod state;
pub mod stdio;
pub mod task_jobs;
pub mod tasks;
pub mod wire;
pub mod write_timeout;

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use mcpgen::conversation::Sender;
use mcpgen::protocol::{check_request, ServerConfig};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use dispatch::Era;
use fixtures::Fixtures;
use mcpgen::json::ParseError;
use self_check::REQUEST_KEY_PREFIX;
pub use self_check::{SelfCheck, MAX_KEPT_FINDINGS};
use session::{Listeners, Session, Sessions, TableLimits};
use state::StateSigner;
use tasks::{TaskLimits, Tasks};
use wire::{EchoId, Inbound, Outbound, RpcError};

/// The stateless revision this server serves per request: the newest modern revision of this
/// build ([`mcpgen::protocol::latest_modern`]; empty in a build with legacy revisions only).
pub fn modern_version() -> &'static str {
    mcpgen::protocol::latest_modern().map_or("", |r| r.as_str())
}
/// The session revisions this server accepts through `initialize`, preferred first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The frames a request's stream holds for a client that does not read them; the handler
/// then waits (backpressure) until the client reads or goes away.
pub const FRAME_QUEUE: usize = 32;

/// One message on a request's stream.
#[derive(Debug, Clone)]
pub enum Frame {
    /// A notification or a server-to-client request.
    Message(Value),
    /// The response that ends the stream, with its HTTP status.
    Final(Value, u16),
}

/// What the transport sends back for one incoming message.
pub enum Reply {
    /// Nothing to answer (a notification, or a response from the client): HTTP 202.
    Accepted,
    /// Refused before any handler ran: one message with its HTTP status.
    Immediate(Value, u16),
    /// A served request: its frames, ending with [`Frame::Final`] (a listen stream never
    /// ends). `session` is set when this request opened a legacy session; `lasting` when the
    /// stream lasts as long as the client wants (`subscriptions/listen`).
    Stream { frames: mpsc::Receiver<Frame>, session: Option<String>, lasting: bool },
}

/// Transport facts the core needs (HTTP headers; stdio has none).
#[derive(Debug, Default, Clone)]
pub struct Incoming {
    /// `Mcp-Session-Id` (HTTP) or the stdio connection's session once initialized.
    pub session: Option<String>,
    /// The HTTP request's headers (name, value); `None` on stdio, where no header rules apply.
    pub http_headers: Option<Vec<(String, String)>>,
}

/// The id of the `server/discover` request a modern request's conversation starts from.
const DISCOVER_ID: &str = "mcpgen-self-check-discover";

/// A listen stream in [`Listeners`]: dropped when the stream's task ends, however it ends
/// (client gone, subscription ended, runtime shut down), it takes the entry and the stream's
/// self-check conversation with it.
struct OpenListener {
    server: Arc<Server>,
    n: u64,
    key: String,
}

impl Drop for OpenListener {
    fn drop(&mut self) {
        self.server.listeners.close(self.n);
        self.server.forget(&self.key);
    }
}

/// The server: fixtures, sessions, listen streams, the `requestState` key.
pub struct Server {
    pub fixtures: Fixtures,
    config: ServerConfig,
    signer: StateSigner,
    limits: TableLimits,
    sessions: Sessions,
    listeners: Listeners,
    tasks: Tasks,
    check: Option<SelfCheck>,
    requests: AtomicU64,
}

impl Server {
    /// A server over the built-in fixtures; `self_check` feeds every message to the
    /// conversation checker.
    pub fn new(self_check: bool) -> Server {
        Server::with_fixtures(Fixtures::builtin(), StateSigner::random(), self_check)
    }

    pub fn with_fixtures(fixtures: Fixtures, signer: StateSigner, self_check: bool) -> Server {
        let versions = std::iter::once(modern_version()).chain(LEGACY_VERSIONS);
        let limits = TableLimits::default();
        let server = Server {
            fixtures,
            config: ServerConfig::new(versions).with_extensions(mcpgen::ext::tasks::extension()),
            signer,
            limits,
            sessions: Sessions::new(limits.max_sessions),
            listeners: Listeners::new(limits.max_listeners),
            tasks: Tasks::new(TaskLimits::default()),
            check: self_check.then(SelfCheck::default),
            requests: AtomicU64::new(0),
        };
        if let Some(c) = &server.check {
            let meta = json!({
                "io.modelcontextprotocol/protocolVersion": modern_version(),
                "io.modelcontextprotocol/clientCapabilities": {},
            });
            let request =
                json!({"jsonrpc": "2.0", "id": DISCOVER_ID, "method": "server/discover", "params": {"_meta": meta}});
            let result = server.finish_modern_result("server/discover", server.discover_result());
            c.start_modern(&request, &json!({"jsonrpc": "2.0", "id": DISCOVER_ID, "result": result}));
        }
        server
    }

    /// The same server with other table limits (sessions, listen streams).
    pub fn with_limits(mut self, limits: TableLimits) -> Server {
        self.limits = limits;
        self.sessions = Sessions::new(limits.max_sessions);
        self.listeners = Listeners::new(limits.max_listeners);
        self
    }

    /// The same server printing at most `n` self-check lines a second.
    pub fn with_log_lines_per_second(mut self, n: u32) -> Server {
        if let Some(c) = &mut self.check {
            c.set_lines_per_second(n);
        }
        self
    }

    /// The same server with other `requestState` limits (expiry, redeemed states kept).
    pub fn with_state_limits(mut self, limits: state::StateLimits) -> Server {
        self.signer = self.signer.with_limits(limits);
        self
    }

    /// The same server with other task-table limits (cap, TTL).
    pub fn with_task_limits(mut self, limits: TaskLimits) -> Server {
        self.tasks = Tasks::new(limits);
        self
    }

    /// The Tasks extension's table.
    pub fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    /// The limits of the session and listener tables.
    pub fn limits(&self) -> TableLimits {
        self.limits
    }

    /// The open listen streams.
    pub fn listeners(&self) -> &Listeners {
        &self.listeners
    }

    /// How many legacy sessions are open.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// `server/discover`'s result before the modern stamps.
    fn discover_result(&self) -> Value {
        json!({
            "supportedVersions": self.supported_versions(),
            "capabilities": self.capabilities(true),
            "instructions": self.fixtures.instructions,
        })
    }

    /// The self-check findings (empty when self-checking is off).
    pub fn self_check(&self) -> Option<&SelfCheck> {
        self.check.as_ref()
    }

    /// `server/discover`'s `supportedVersions`: the configured versions, as `check_request`
    /// lists them in a -32022's `data.supported` (AMB-8: a dual-era server names its legacy
    /// versions too; they are usable through `initialize` only).
    fn supported_versions(&self) -> &[String] {
        &self.config.supported_versions
    }

    /// Server capabilities for either era (the fixtures' `capabilities`): `initialize` and
    /// `server/discover` declare them.
    fn capabilities(&self, modern: bool) -> Value {
        if modern {
            self.fixtures.modern_capabilities.clone()
        } else {
            self.fixtures.legacy_capabilities.clone()
        }
    }

    /// The legacy session `id` (marked as used now).
    pub fn session(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions.get(id)
    }

    /// Ends a legacy session (HTTP DELETE); false when there was none.
    pub fn end_session(&self, id: &str) -> bool {
        self.forget(id);
        self.sessions.remove(id).is_some()
    }

    /// Ends the legacy sessions idle for longer than [`TableLimits::session_idle_timeout`]
    /// (the HTTP transport calls this periodically); returns how many ended. Their ids then
    /// get 404, and the self-check forgets their conversations.
    pub fn expire_idle_sessions(&self) -> usize {
        let expired = self.sessions.expire(self.limits.session_idle_timeout, Instant::now());
        for s in &expired {
            self.forget(&s.id);
        }
        expired.len()
    }

    /// Feeds `message` to the self-check as it goes over the wire (its id as received).
    fn observe(&self, key: &str, from: Sender, message: &Value, echo: &EchoId) {
        if let Some(c) = &self.check {
            c.observe(key, from, &echo.render(message));
        }
    }

    /// Handles one incoming message (the request path in the module docs). The answer's text
    /// is the [`EchoId`]'s to write ([`EchoId::render`]), so the id goes back as received.
    pub fn process(self: &Arc<Self>, bytes: &[u8], incoming: &Incoming) -> (Reply, EchoId) {
        self.process_parsed(bytes, wire::parse(bytes), incoming)
    }

    /// [`Server::process`] for a message the transport has parsed already ([`wire::parse`]:
    /// stdio looks at it first), so that each message is parsed once.
    pub fn process_parsed(
        self: &Arc<Self>,
        bytes: &[u8],
        parsed: Result<Inbound, ParseError>,
        incoming: &Incoming,
    ) -> (Reply, EchoId) {
        let echo = parsed.as_ref().map(|p| p.echo.clone()).unwrap_or_default();
        if let Ok(Inbound { value, duplicate: Some((at, name)), .. }) = &parsed {
            // JSON leaves repeated names to the reader; a request that reads two ways is not
            // served either way.
            let ambiguous_id = at.is_empty() && name == "id";
            let id = value.get("id").filter(|id| !ambiguous_id && (id.is_string() || id.is_number()));
            let where_ = if at.is_empty() { "the message".to_owned() } else { format!("`{at}`") };
            let err =
                RpcError::new(-32600, format!("Invalid Request: {where_} has the member `{name}` more than once"));
            return (Reply::Immediate(error_response(Some(id.unwrap_or(&Value::Null)), &err), 400), echo);
        }
        let reply = self.route(bytes, parsed.map(|p| p.value), incoming, &echo);
        (reply, echo)
    }

    fn route(
        self: &Arc<Self>,
        bytes: &[u8],
        parsed: Result<Value, ParseError>,
        incoming: &Incoming,
        echo: &EchoId,
    ) -> Reply {
        if let Some(sid) = &incoming.session {
            return self.route_to_session(sid, parsed, echo);
        }
        // A client's answer to a server request carries no method (stdio sessions route here
        // only before `initialize`, where there are no server requests).
        let key = self.request_key();
        if let Ok(v) = &parsed {
            self.observe(&key, Sender::Client, v, echo);
            // The standard headers must match the body (-32020, HTTP 400): checked before the
            // body itself, so a mismatch is reported as such.
            if let Some(headers) = &incoming.http_headers {
                let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
                if let Err(e) = mcpgen::protocol::check_http_headers(pairs, bytes) {
                    let body = wire::to_serde(&e.to_response());
                    self.observe(&key, Sender::Server, &body, echo);
                    self.forget(&key);
                    return Reply::Immediate(body, e.http_status);
                }
            }
        }
        let accepted = match check_request(bytes, &self.config) {
            Ok(a) => a,
            Err(e) => {
                let body: Value = wire::to_serde(&e.to_response());
                if e.id.is_some() || parsed.as_ref().is_ok_and(|v| v.get("id").is_some()) {
                    self.observe(&key, Sender::Server, &body, echo);
                }
                self.forget(&key);
                return Reply::Immediate(body, e.http_status);
            }
        };
        // `check_request` parses with the same parser, so it accepts nothing that failed here.
        let Ok(v) = parsed else {
            let err = RpcError::new(-32700, "Parse error");
            return Reply::Immediate(error_response(Some(&Value::Null), &err), 400);
        };
        // XHDR-9: a `tools/call` of a tool with `x-mcp-header` bindings carries matching
        // `Mcp-Param-*` headers (-32020, HTTP 400).
        if let (Some(headers), false) = (&incoming.http_headers, accepted.legacy) {
            if let Err(e) = self.check_param_headers(&v, headers, bytes) {
                let body = wire::to_serde(&e.to_response());
                self.observe(&key, Sender::Server, &body, echo);
                self.forget(&key);
                return Reply::Immediate(body, e.http_status);
            }
        }
        let Some(id) = v.get("id").cloned() else {
            self.forget(&key);
            return Reply::Accepted; // a notification: nothing to answer (MSG-4)
        };
        if accepted.legacy {
            return self.initialize(accepted.revision, id, &v, key, echo);
        }
        let meta = v.pointer("/params/_meta").cloned().unwrap_or_else(|| json!({}));
        self.serve(Era::Modern { meta }, id, v, key, echo)
    }

    /// XHDR-9 for a modern `tools/call`: the called tool's bindings (none for an unknown tool,
    /// which the handler refuses) against the request's `Mcp-Param-*` headers.
    fn check_param_headers(
        &self,
        v: &Value,
        headers: &[(String, String)],
        bytes: &[u8],
    ) -> Result<(), Box<mcpgen::protocol::ProtocolError>> {
        if v["method"] != "tools/call" {
            return Ok(());
        }
        let name = v.pointer("/params/name").and_then(Value::as_str).unwrap_or_default();
        let Some(entry) = self.fixtures.tool(name, true) else { return Ok(()) };
        // A tool whose annotations are invalid has no usable bindings (XHDR-6: clients drop it).
        let Ok(bindings) = mcpgen::http::header_bindings(&entry.spec["tool"]["inputSchema"]) else { return Ok(()) };
        let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        mcpgen::protocol::check_param_headers(pairs, &bindings, bytes).map_err(Box::new)
    }

    fn forget(&self, key: &str) {
        if let Some(c) = &self.check {
            c.forget(key);
        }
    }

    /// A new self-check key for a message outside any legacy session.
    fn request_key(&self) -> String {
        format!("{REQUEST_KEY_PREFIX}{}", self.requests.fetch_add(1, Ordering::Relaxed))
    }

    /// Runs the handler on its own task; its frames end with the final response.
    fn serve(self: &Arc<Self>, era: Era, id: Value, v: Value, key: String, echo: &EchoId) -> Reply {
        let (tx, frames) = mpsc::channel(FRAME_QUEUE);
        let method = v["method"].as_str().unwrap_or_default().to_owned();
        let params = v.get("params").cloned().unwrap_or_else(|| json!({}));
        if method == "subscriptions/listen" {
            return self.listen(id, &params, tx, frames, key, echo);
        }
        let server = Arc::clone(self);
        let echo = echo.clone();
        tokio::spawn(async move {
            let (check_tx, mut check_rx) = mpsc::unbounded_channel::<Frame>();
            let out = Outbound::new(check_tx);
            let handler = {
                let server = Arc::clone(&server);
                let era = era.clone();
                let method = method.clone();
                async move { server.handle(&era, &method, &params, &out).await }
            };
            tokio::pin!(handler);
            // Forward the handler's messages as they come, through the self-check. The stream's
            // queue is bounded: while it is full the handler waits for the client to read (a
            // client that went away makes the sends fail at once).
            let outcome = loop {
                tokio::select! {
                    Some(frame) = check_rx.recv() => {
                        if let Frame::Message(m) = &frame {
                            server.observe(&key, Sender::Server, m, &echo);
                        }
                        let _ = tx.send(frame).await;
                    }
                    outcome = &mut handler => break outcome,
                }
            };
            while let Ok(frame) = check_rx.try_recv() {
                if let Frame::Message(m) = &frame {
                    server.observe(&key, Sender::Server, m, &echo);
                }
                let _ = tx.send(frame).await;
            }
            let modern = era.is_modern();
            // The request is done: its legacy session is no longer in use, even if the client
            // is slow to read the response.
            drop(era);
            let (body, status) = match outcome {
                Ok(result) => {
                    let result = if modern { server.finish_modern_result(&method, result) } else { result };
                    (json!({"jsonrpc": "2.0", "id": id, "result": result}), 200)
                }
                Err(e) => (error_response(Some(&id), &e), e.http_status()),
            };
            server.observe(&key, Sender::Server, &body, &echo);
            if modern {
                server.forget(&key);
            }
            let _ = tx.send(Frame::Final(body, status)).await;
        });
        Reply::Stream { frames, session: None, lasting: false }
    }

    /// `subscriptions/listen`: the acknowledgement first (SUB-2), then every list-changed
    /// notification the client opted in to, until the client closes the stream. Each goes
    /// through the self-check on its way out, in the listen request's conversation. The
    /// stream's entry in [`Listeners`] goes when the stream ends, whichever side ends it; a
    /// client that stops reading gets its subscription ended ([`Listeners::notify`]).
    fn listen(
        self: &Arc<Self>,
        id: Value,
        params: &Value,
        tx: mpsc::Sender<Frame>,
        frames: mpsc::Receiver<Frame>,
        key: String,
        echo: &EchoId,
    ) -> Reply {
        let (mut honored, wants) = listen_filter(params);
        // The Tasks extension: status notifications for the tasks named in `taskIds` that the
        // server keeps (TASK-23: only for a request that declared the extension).
        let mut task_ids = Vec::new();
        if let Some(asked) = params.pointer("/notifications/taskIds").and_then(Value::as_array) {
            let caps =
                params.pointer("/_meta/io.modelcontextprotocol~1clientCapabilities").cloned().unwrap_or_default();
            if !mcpgen::ext::tasks::declares(&&caps) {
                let err =
                    wire::RpcError::from(mcpgen::ext::tasks::missing_extension_error(Some(dispatch::from_serde(&id))));
                return self.refuse(&key, &id, &err, err.http_status(), echo);
            }
            for t in asked.iter().filter_map(Value::as_str) {
                if !task_ids.iter().any(|x| x == t) && self.tasks.get(t).is_some() {
                    task_ids.push(t.to_owned());
                }
            }
            honored.insert("taskIds".into(), json!(task_ids));
        }
        let (stream_tx, mut stream_rx) = mpsc::channel::<Frame>(session::LISTENER_QUEUE);
        let n = match self.listeners.open(id.clone(), wants, task_ids.iter().cloned().collect(), stream_tx) {
            Ok(n) => n,
            Err(full) => return self.refuse(&key, &id, &RpcError::new(-32603, full.to_string()), 503, echo),
        };
        let ack = json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": id }, "notifications": honored }
        });
        self.observe(&key, Sender::Server, &ack, echo);
        // The queue is new and empty: the acknowledgement is its first frame.
        let _ = tx.try_send(Frame::Message(ack));
        // Each task's current state first, so a task that is already terminal is reported too.
        for t in task_ids.iter().filter_map(|t| self.tasks.get(t)) {
            self.listeners.notify_task(&t.id, &t.detailed());
        }
        let open = OpenListener { server: Arc::clone(self), n, key };
        let echo = echo.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    frame = stream_rx.recv() => {
                        let Some(frame) = frame else { break };
                        if let Frame::Message(m) = &frame {
                            open.server.observe(&open.key, Sender::Server, m, &echo);
                        }
                        if tx.send(frame).await.is_err() {
                            return;
                        }
                    }
                    () = tx.closed() => return,
                }
            }
            // `Listeners::notify` dropped the stream (its client stopped reading): end the
            // subscription with its closing result (SUB-7) once the client reads it.
            let meta = json!({ "io.modelcontextprotocol/subscriptionId": id });
            let result = open.server.finish_modern_result("subscriptions/listen", json!({ "_meta": meta }));
            let body = json!({"jsonrpc": "2.0", "id": id, "result": result});
            open.server.observe(&open.key, Sender::Server, &body, &echo);
            let _ = tx.send(Frame::Final(body, 200)).await;
        });
        Reply::Stream { frames, session: None, lasting: true }
    }

    /// Answers request `id` of conversation `key` with `err` (and HTTP `status`) before any
    /// handler ran; the conversation ends.
    fn refuse(&self, key: &str, id: &Value, err: &RpcError, status: u16, echo: &EchoId) -> Reply {
        let body = error_response(Some(id), err);
        self.observe(key, Sender::Server, &body, echo);
        self.forget(key);
        Reply::Immediate(body, status)
    }

    /// Modern results: `resultType` (RESULT-1), the server's identity in `_meta`, and the
    /// caching hints of cacheable methods (CACHE).
    pub fn finish_modern_result(&self, method: &str, mut result: Value) -> Value {
        let Value::Object(m) = &mut result else { return result };
        m.entry("resultType").or_insert_with(|| "complete".into());
        let complete = m["resultType"] == "complete";
        if complete {
            if let Some(Value::Object(hints)) = self.fixtures.caching.get(method) {
                for (k, v) in hints {
                    m.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
        let meta = m.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(meta) = meta {
            meta.insert("io.modelcontextprotocol/serverInfo".into(), self.fixtures.server_info.clone());
        }
        result
    }
}

/// The list-changed notifications a listen request opts in to that this server sends: the
/// acknowledgement's `notifications` and the filter keys.
fn listen_filter(params: &Value) -> (serde_json::Map<String, Value>, HashSet<String>) {
    let supported = ["toolsListChanged", "promptsListChanged"];
    let mut honored = serde_json::Map::new();
    let mut wants = HashSet::new();
    for (k, on) in params.get("notifications").and_then(Value::as_object).into_iter().flatten() {
        if on == &Value::Bool(true) && supported.contains(&k.as_str()) {
            honored.insert(k.clone(), Value::Bool(true));
            wants.insert(k.clone());
        }
    }
    (honored, wants)
}

/// A JSON-RPC error response (no `id` member when the id is unknown).
pub fn error_response(id: Option<&Value>, e: &RpcError) -> Value {
    match id {
        Some(id) => json!({"jsonrpc": "2.0", "id": id, "error": e.to_error_object()}),
        None => json!({"jsonrpc": "2.0", "error": e.to_error_object()}),
    }
}
