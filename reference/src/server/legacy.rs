//! Legacy sessions (`initialize`, 2025-11-25 and before): opening one, and the messages that
//! arrive on it, validated under the session's revision.

use std::sync::Arc;

use mcpgen::conversation::Sender;
use mcpgen::json::ParseError;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::dispatch::Era;
use super::session::Session;
use super::wire::{EchoId, RpcError};
use super::{error_response, Frame, Reply, Server};

impl Server {
    /// A message on a legacy session: validated under the session's revision; an unknown
    /// session is 404.
    pub(super) fn route_to_session(
        self: &Arc<Self>,
        sid: &str,
        parsed: Result<Value, ParseError>,
        echo: &EchoId,
    ) -> Reply {
        let Some(session) = self.session(sid) else {
            let err = RpcError::new(-32600, format!("Unknown or ended session `{sid}`"));
            let id = parsed.as_ref().ok().and_then(|v| v.get("id")).cloned().unwrap_or(Value::Null);
            let body = error_response(Some(&id), &err);
            if let Ok(v) = &parsed {
                let key = self.request_key();
                self.observe(&key, Sender::Client, v, echo);
                self.observe(&key, Sender::Server, &body, echo);
                self.forget(&key);
            }
            return Reply::Immediate(body, 404);
        };
        match parsed {
            Ok(v) => self.process_legacy(session, v, echo),
            Err(e) => Reply::Immediate(error_response(None, &RpcError::new(-32700, format!("Parse error: {e}"))), 400),
        }
    }

    /// A legacy `initialize` accepted by `check_request`: open a session.
    pub(super) fn initialize(
        self: &Arc<Self>,
        revision: mcpgen::Revision,
        id: Value,
        v: &Value,
        key: String,
        echo: &EchoId,
    ) -> Reply {
        let sid = new_session_id();
        let caps = v.pointer("/params/capabilities").cloned().unwrap_or_else(|| json!({}));
        match self.sessions.open(Arc::new(Session::new(sid.clone(), revision, caps, self.limits.max_subscriptions))) {
            Ok(Some(evicted)) => self.forget(&evicted.id),
            Ok(None) => {}
            Err(full) => {
                let body = error_response(Some(&id), &RpcError::new(-32603, full.to_string()));
                self.observe(&key, Sender::Server, &body, echo);
                self.forget(&key);
                return Reply::Immediate(body, 503);
            }
        }
        let result = json!({
            "protocolVersion": revision.as_str(),
            "capabilities": self.capabilities(false),
            "serverInfo": self.fixtures.server_info,
            "instructions": self.fixtures.instructions,
        });
        let body = json!({"jsonrpc": "2.0", "id": id, "result": result});
        // The session's conversation starts with its handshake.
        self.observe(&sid, Sender::Client, v, echo);
        self.observe(&sid, Sender::Server, &body, echo);
        self.forget(&key);
        let (tx, frames) = mpsc::channel(1);
        let _ = tx.try_send(Frame::Final(body, 200));
        Reply::Stream { frames, session: Some(sid), lasting: false }
    }

    fn process_legacy(self: &Arc<Self>, session: Arc<Session>, v: Value, echo: &EchoId) -> Reply {
        self.observe(&session.id, Sender::Client, &v, echo);
        if v.is_array() {
            // A batch has no id of its own: one error, id null (JSON-RPC 2.0). 2025-03-26 asks
            // servers to receive batches; this server does not (docs/reference.md), and says so
            // rather than leave the client waiting.
            let why = if session.revision.as_str() == "2025-03-26" {
                "this server does not accept JSON-RPC batches; send each message on its own"
            } else {
                "a JSON-RPC batch is not an MCP message in this revision"
            };
            let body = error_response(Some(&Value::Null), &RpcError::new(-32600, format!("Invalid Request: {why}")));
            self.observe(&session.id, Sender::Server, &body, echo);
            return Reply::Immediate(body, 400);
        }
        let is_response = v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some());
        if is_response {
            session.deliver(v);
            return Reply::Accepted;
        }
        let bytes = v.to_string();
        if let Err(e) =
            mcpgen::protocol::validate_message(session.revision, bytes.as_bytes(), &mcpgen::MessageOptions::new())
        {
            let Some(id) = v.get("id").cloned() else { return Reply::Accepted };
            let unknown_method = rules_of(&e).contains(&"MSG-9");
            // JSON-RPC: -32602 when only the parameters are wrong, -32600 when the request is.
            let err = if unknown_method {
                RpcError::new(-32601, format!("Method not found: {}", v["method"]))
            } else if only_in_params(&e) {
                RpcError::invalid_params(format!("Invalid params: {e}"))
            } else {
                RpcError::new(-32600, format!("Invalid Request: {e}"))
            };
            let id = if id.is_string() || id.is_number() { id } else { Value::Null };
            let body = error_response(Some(&id), &err);
            self.observe(&session.id, Sender::Server, &body, echo);
            return Reply::Immediate(body, 200);
        }
        let Some(id) = v.get("id").cloned() else { return Reply::Accepted };
        if v["method"] == "initialize" {
            let err = RpcError::new(-32600, "The session is already initialized");
            let body = error_response(Some(&id), &err);
            self.observe(&session.id, Sender::Server, &body, echo);
            return Reply::Immediate(body, 400);
        }
        let key = session.id.clone();
        self.serve(Era::Legacy(session), id, v, key, echo)
    }
}

/// Whether every error of `e` lies inside `/params`.
fn only_in_params(e: &mcpgen::DecodeError) -> bool {
    let inside = |p: &str| p == "/params" || p.starts_with("/params/");
    match e {
        mcpgen::DecodeError::Invalid(errs) => !errs.is_empty() && errs.iter().all(|e| inside(&e.pointer)),
        mcpgen::DecodeError::Protocol { pointer, .. } => inside(pointer),
        _ => false,
    }
}

fn rules_of(e: &mcpgen::DecodeError) -> Vec<&'static str> {
    match e {
        mcpgen::DecodeError::Invalid(errs) => errs.iter().filter_map(|e| e.rule).collect(),
        mcpgen::DecodeError::Protocol { rule, .. } => vec![*rule],
        _ => Vec::new(),
    }
}

fn new_session_id() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).expect("the OS random source is available");
    b.iter().map(|x| format!("{x:02x}")).collect()
}
