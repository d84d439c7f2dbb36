//! `proxy --enforce`'s tool gate: the tools the server listed (every page, compiled once with
//! the tool-schema checks of [`mcpgen::tools`]), and a client `tools/call` judged against them
//! *before* it is forwarded. A call whose arguments break the listed `inputSchema` is answered
//! by the proxy with what the revision in play requires:
//!
//! - 2025-11-25 on (and when the revision is unknown): a tool result with `isError: true`
//!   ("input validation errors" are tool execution errors, server/tools "Error Handling"; every
//!   revision allows that answer, 2026-07-28 also -32602);
//! - before 2025-11-25: a JSON-RPC error -32602 (those revisions list invalid arguments among
//!   the protocol errors and allow both; mcpgen answers as their example does).
//!
//! With `--enforce-tools-baseline` the gate also refuses (-32602, as an unknown tool is) a call
//! of a tool the session did not list and of one whose listed definition differs from the pin.
//!
//! The gate learns from the server's answers to the client's `tools/list` and `initialize`
//! requests; it is updated before the answer is relayed, so a client never calls a tool the
//! gate has not seen listed. A tool is compiled once per name and schemas, whichever table
//! lists it (a [`ToolChecker`]'s cache). The HTTP form keeps one table per legacy session and one for the
//! requests outside a session. Bounded: at most [`MAX_SESSIONS`] tables (a new one forgets
//! the oldest), [`MAX_PENDING`] requests awaited per table and [`MAX_TOOLS`] tools kept per
//! table (a tool past it is not kept: its calls are forwarded unjudged, or refused as unlisted
//! under `--enforce-tools-baseline`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use mcpgen::rules::id;
use mcpgen::tools::{CompiledTool, SchemaOptions, ToolCallError, ToolChecker, ToolsBaseline};
use serde_json::{json, Value};

/// Most `tools/list` / `initialize` requests awaited at once (the oldest is forgotten).
pub const MAX_PENDING: usize = 1024;
/// Most tools kept (as the conversation checker's default `max_tools`).
pub const MAX_TOOLS: usize = 1024;
/// Most sessions with a table of their own (as the checker's default `--max-sessions`).
pub const MAX_SESSIONS: usize = 1024;
/// The first revision whose input validation errors are tool execution errors.
const IS_ERROR_FROM: &str = "2025-11-25";
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

#[derive(Clone, Copy)]
enum Awaited {
    ToolsList,
    Initialize,
}

struct GateTool {
    /// `None`: the checks refused its schema (the conversation checker reports it): its calls
    /// are forwarded unjudged.
    compiled: Option<Arc<CompiledTool>>,
    /// Its definition is the pinned one.
    pinned: bool,
}

#[derive(Default)]
struct State {
    /// Request ids (as JSON text) awaited, oldest first.
    pending: VecDeque<(String, Awaited)>,
    tools: HashMap<String, GateTool>,
    /// The revision the legacy handshake agreed on.
    legacy_revision: Option<String>,
}

/// What the proxy answers instead of forwarding, and why.
pub struct Refusal {
    pub rule: &'static str,
    pub message: String,
    /// The response to the client (one line of JSON, no line end).
    pub response: String,
}

/// The tables, by session (`None`: stdio, or HTTP requests outside a session), oldest first.
#[derive(Default)]
struct Sessions {
    tables: HashMap<Option<Arc<str>>, State>,
    order: VecDeque<Option<Arc<str>>>,
}

impl Sessions {
    fn get(&mut self, session: Option<&Arc<str>>) -> &mut State {
        let key = session.cloned();
        if !self.tables.contains_key(&key) {
            if self.tables.len() >= MAX_SESSIONS {
                if let Some(oldest) = self.order.pop_front() {
                    self.tables.remove(&oldest);
                }
            }
            self.order.push_back(key.clone());
        }
        self.tables.entry(key).or_default()
    }
}

pub struct ToolGate {
    state: Mutex<Sessions>,
    baseline: Option<Arc<ToolsBaseline>>,
    /// The compiled tools of every table, by name and schemas: a server that lists the same
    /// tools on each stateless `tools/list` has them compiled once (bounded, as the checker's).
    compiled: ToolChecker,
}

impl ToolGate {
    /// `baseline`: the pin `--enforce-tools-baseline` holds calls to (`None`: only the schemas).
    pub fn new(baseline: Option<Arc<ToolsBaseline>>) -> ToolGate {
        ToolGate {
            state: Mutex::new(Sessions::default()),
            baseline,
            compiled: ToolChecker::new(SchemaOptions::default()),
        }
    }

    /// A client message, before it is forwarded: a `tools/call` the gate refuses, else `None`
    /// (and a `tools/list` or `initialize` request is remembered, to read its answer).
    pub fn client(&self, session: Option<&Arc<str>>, body: &[u8]) -> Option<Refusal> {
        let msg: Value = serde_json::from_slice(body).ok()?;
        let id = msg.get("id")?;
        let method = msg.get("method")?.as_str()?;
        let mut sessions = self.state.lock().ok()?;
        let state = sessions.get(session);
        let awaited = match method {
            "tools/list" => Awaited::ToolsList,
            "initialize" => Awaited::Initialize,
            "tools/call" => return self.call(state, &msg, id),
            _ => return None,
        };
        if state.pending.len() >= MAX_PENDING {
            state.pending.pop_front();
        }
        state.pending.push_back((id.to_string(), awaited));
        None
    }

    /// A server message, before it is relayed: the answer to an awaited request is read.
    pub fn server(&self, session: Option<&Arc<str>>, body: &[u8]) {
        let Ok(mut sessions) = self.state.lock() else { return };
        let state = sessions.get(session);
        if state.pending.is_empty() {
            return;
        }
        let Ok(msg) = serde_json::from_slice::<Value>(body) else { return };
        let Some(id) = msg.get("id").filter(|_| msg.get("method").is_none()) else { return };
        let key = id.to_string();
        let Some(at) = state.pending.iter().position(|(k, _)| *k == key) else { return };
        let (_, awaited) = state.pending.remove(at).expect("a position in the queue");
        let Some(result) = msg.get("result") else { return };
        match awaited {
            Awaited::Initialize => {
                state.legacy_revision = result.get("protocolVersion").and_then(Value::as_str).map(str::to_owned);
            }
            Awaited::ToolsList => {
                for tool in result.get("tools").and_then(Value::as_array).into_iter().flatten() {
                    let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
                    if !state.tools.contains_key(name) && state.tools.len() >= MAX_TOOLS {
                        continue;
                    }
                    let compiled = self.compiled.compile(tool).ok();
                    let pinned = self.baseline.as_ref().is_some_and(|pin| pin.compare_tool(tool).is_none());
                    state.tools.insert(name.to_owned(), GateTool { compiled, pinned });
                }
            }
        }
    }

    fn call(&self, state: &State, msg: &Value, id: &Value) -> Option<Refusal> {
        let params = msg.get("params");
        let name = params.and_then(|p| p.get("name")).and_then(Value::as_str)?;
        let tool = state.tools.get(name);
        if self.baseline.is_some() {
            let why = match tool {
                None => Some((id::TOOL_9, format!("tool `{name}` was not listed in this session"))),
                Some(t) if !t.pinned => {
                    Some((id::TOOL_12, format!("tool `{name}` differs from its pinned definition")))
                }
                Some(_) => None,
            };
            if let Some((rule, why)) = why {
                let message = format!("{why}: refused (--enforce-tools-baseline)");
                return Some(Refusal { rule, response: invalid_params(id, &message), message });
            }
        }
        let compiled = tool?.compiled.as_ref()?;
        let empty = json!({});
        let arguments = params.and_then(|p| p.get("arguments")).unwrap_or(&empty);
        let Err(ToolCallError::Invalid(errors)) = compiled.validate_arguments(arguments) else { return None };
        let first = errors.first()?;
        let message = format!(
            "the arguments break the `inputSchema` tool `{name}` was listed with, at /params/arguments{}: {}{}",
            first.pointer,
            first.message,
            if errors.len() > 1 { format!(" (and {} more)", errors.len() - 1) } else { String::new() }
        );
        let modern = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(VERSION_KEY)).and_then(Value::as_str);
        let revision = modern.or(state.legacy_revision.as_deref());
        let response = match revision {
            Some(rev) if rev < IS_ERROR_FROM => invalid_params(id, &message),
            _ => {
                let mut result = json!({"content": [{"type": "text", "text": message}], "isError": true});
                if modern.is_some() {
                    result["resultType"] = json!("complete");
                }
                json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
            }
        };
        Some(Refusal { rule: id::TOOL_7, message, response })
    }
}

fn invalid_params(id: &Value, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list_answer(id: u64, tools: &[Value]) -> Vec<u8> {
        json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}}).to_string().into_bytes()
    }

    fn tool(n: usize) -> Value {
        json!({"name": format!("t{n}"), "inputSchema": {"type": "object", "required": ["x"]}})
    }

    fn call(id: u64, name: &str) -> Vec<u8> {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}})
            .to_string()
            .into_bytes()
    }

    fn listed(gate: &ToolGate, session: Option<&Arc<str>>, id: u64, tools: &[Value]) {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string();
        assert!(gate.client(session, request.as_bytes()).is_none());
        gate.server(session, &list_answer(id, tools));
    }

    #[test]
    fn past_max_tools_a_tool_is_not_kept_its_calls_forwarded_or_refused_as_unlisted_with_a_pin() {
        let tools: Vec<Value> = (0..=MAX_TOOLS).map(tool).collect();
        let gate = ToolGate::new(None);
        listed(&gate, None, 1, &tools);
        let last_kept = format!("t{}", MAX_TOOLS - 1);
        assert_eq!(gate.client(None, &call(2, &last_kept)).map(|r| r.rule), Some(id::TOOL_7));
        assert!(gate.client(None, &call(3, &format!("t{MAX_TOOLS}"))).is_none(), "not kept: forwarded unjudged");

        let pin = Arc::new(ToolsBaseline::from_tools(None, &tools).unwrap());
        let gate = ToolGate::new(Some(pin));
        listed(&gate, None, 1, &tools);
        assert_eq!(gate.client(None, &call(3, &format!("t{MAX_TOOLS}"))).map(|r| r.rule), Some(id::TOOL_9));
    }

    #[test]
    fn past_max_pending_the_oldest_awaited_list_is_forgotten() {
        let gate = ToolGate::new(None);
        for id in 0..=MAX_PENDING as u64 {
            let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string();
            assert!(gate.client(None, request.as_bytes()).is_none());
        }
        // The answer to request 0 comes after MAX_PENDING later requests: it is not read.
        gate.server(None, &list_answer(0, &[tool(0)]));
        assert!(gate.client(None, &call(9, "t0")).is_none());
        gate.server(None, &list_answer(1, &[tool(1)]));
        assert!(gate.client(None, &call(9, "t1")).is_some());
    }

    #[test]
    fn past_max_sessions_the_oldest_session_is_forgotten_and_sessions_are_apart() {
        let gate = ToolGate::new(None);
        let first: Arc<str> = Arc::from("s0");
        listed(&gate, Some(&first), 1, &[tool(0)]);
        assert!(gate.client(None, &call(2, "t0")).is_none(), "another table: not listed there");
        assert!(gate.client(Some(&first), &call(2, "t0")).is_some());
        for n in 1..MAX_SESSIONS {
            let s: Arc<str> = Arc::from(format!("s{n}"));
            listed(&gate, Some(&s), 1, &[]);
        }
        assert!(
            gate.client(Some(&first), &call(3, "t0")).is_none(),
            "s0 was the oldest of {} tables",
            MAX_SESSIONS + 1
        );
    }

    #[test]
    fn a_tool_listed_again_is_compiled_once_and_a_changed_schema_anew() {
        let gate = ToolGate::new(None);
        let s: Arc<str> = Arc::from("s");
        for id in 1..=3 {
            listed(&gate, None, id, &[tool(0)]);
        }
        listed(&gate, Some(&s), 4, &[tool(0)]);
        assert_eq!(gate.compiled.cached(), 1, "one tool, listed four times in two tables");
        assert_eq!(gate.client(Some(&s), &call(5, "t0")).map(|r| r.rule), Some(id::TOOL_7));

        let relaxed = json!({"name": "t0", "inputSchema": {"type": "object"}});
        listed(&gate, None, 6, &[relaxed]);
        assert_eq!(gate.compiled.cached(), 2, "the same name with another schema is another tool");
        assert!(gate.client(None, &call(7, "t0")).is_none(), "judged by the schema listed last");
        assert!(gate.client(Some(&s), &call(8, "t0")).is_some(), "the session's table keeps its own");
    }
}
