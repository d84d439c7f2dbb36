//! What the handlers and the legacy session both send: the [`RpcError`] a request is answered
//! with, and the [`Outbound`] sink for the messages of a request's stream. A leaf of the server:
//! the handlers ([`super::dispatch`]) and the legacy session ([`super::session`]) both use it,
//! so neither needs the other for these.

use mcpgen::protocol::ProtocolError;
use serde_json::{json, Map, Value};

use super::Frame;

/// A JSON-RPC error to answer with, and the HTTP status it travels with.
#[derive(Debug, Clone, PartialEq)]
pub enum RpcError {
    /// The core's refusal, kept as the core made it (code, message, data, HTTP status, rule).
    Protocol(Box<ProtocolError>),
    /// A refusal of the peer's own: an unknown fixture, a client that did not answer, ….
    Peer { code: i64, message: String, data: Option<Value>, http_status: u16 },
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError::Peer { code, message: message.into(), data: None, http_status: 200 }
    }
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(-32602, message)
    }
    /// With `data` in the error object (a peer error; the core's carries its own).
    pub fn with_data(mut self, value: Value) -> RpcError {
        if let RpcError::Peer { data, .. } = &mut self {
            *data = Some(value);
        }
        self
    }
    /// With another HTTP status (a peer error; the core's carries the one the spec requires).
    pub fn with_http_status(mut self, status: u16) -> RpcError {
        if let RpcError::Peer { http_status, .. } = &mut self {
            *http_status = status;
        }
        self
    }
    /// The HTTP status the error travels with on Streamable HTTP.
    pub fn http_status(&self) -> u16 {
        match self {
            RpcError::Protocol(e) => e.http_status,
            RpcError::Peer { http_status, .. } => *http_status,
        }
    }
    /// The error object of a response.
    pub fn to_error_object(&self) -> Value {
        let (code, message, data) = match self {
            RpcError::Protocol(e) => (e.code, e.message.clone(), e.data.as_ref().map(to_serde)),
            RpcError::Peer { code, message, data, .. } => (*code, message.clone(), data.clone()),
        };
        let mut m = Map::new();
        m.insert("code".into(), code.into());
        m.insert("message".into(), message.into());
        if let Some(d) = data {
            m.insert("data".into(), d);
        }
        Value::Object(m)
    }
}

impl From<ProtocolError> for RpcError {
    fn from(e: ProtocolError) -> RpcError {
        RpcError::Protocol(Box::new(e))
    }
}

/// mcpgen's lossless value as serde_json (the peer builds its messages with serde_json).
pub fn to_serde(v: &mcpgen::Value) -> Value {
    Value::from(v)
}

/// Where a handler sends the messages of its request's stream.
#[derive(Clone)]
pub struct Outbound {
    tx: tokio::sync::mpsc::UnboundedSender<Frame>,
}

impl Outbound {
    pub fn new(tx: tokio::sync::mpsc::UnboundedSender<Frame>) -> Outbound {
        Outbound { tx }
    }
    /// Sends a message; a closed stream (the client went away) drops it.
    pub fn send(&self, message: Value) {
        let _ = self.tx.send(Frame::Message(message));
    }
    pub fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }
}

/// A message as read from a peer: parsed once, by mcpgen's own parser (its UTF-8 check, its
/// nesting limit of [`mcpgen::json::tape::DEFAULT_MAX_DEPTH`] levels, the one `check_request`
/// applies, so no later step can disagree about what is JSON), then kept as serde_json for
/// the handlers, with the request id's text for echoing it exactly.
#[derive(Debug, Clone)]
pub struct Inbound {
    pub value: Value,
    pub echo: EchoId,
}

impl Inbound {
    /// Whether the message names a modern revision in `_meta` (served statelessly).
    pub fn is_modern(&self) -> bool {
        self.value.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").is_some()
    }
    pub fn method(&self) -> Option<&str> {
        self.value.get("method").and_then(Value::as_str)
    }
}

/// Parses a peer's bytes (see [`Inbound`]).
pub fn parse(bytes: &[u8]) -> Result<Inbound, mcpgen::json::ParseError> {
    let tape = mcpgen::json::Tape::parse_bytes(bytes)?;
    let lossless = mcpgen::json::JsonView::to_value(&tape.root());
    Ok(Inbound { value: to_serde(&lossless), echo: EchoId::of(&lossless) })
}

/// A request id's exact text, when serde_json cannot write it back as received: a number
/// beyond 64 bits, with a fraction or an exponent, or `-0` (serde_json holds those as `f64`
/// and would answer `1e+30` to `1000000000000000000000000000000`). Ids serde_json keeps
/// exactly (strings, 64-bit integers) need nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EchoId(Option<(String, Value)>);

impl EchoId {
    fn of(message: &mcpgen::Value) -> EchoId {
        let Some(mcpgen::Value::Number(n)) = message.get("id") else { return EchoId(None) };
        let text = n.to_string();
        let lossy = Value::Number(n.into());
        let written = serde_json::to_string(&lossy).unwrap_or_default();
        EchoId((text != written).then_some((text, lossy)))
    }

    /// `message` as JSON text; when its `id` is the request's (as serde_json holds it: the
    /// request itself, its response), the id is written as received.
    pub fn render(&self, message: &Value) -> String {
        let (Some((text, lossy)), Value::Object(m)) = (&self.0, message) else { return message.to_string() };
        if m.get("id") != Some(lossy) {
            return message.to_string();
        }
        let mut rest = m.clone();
        rest.remove("id");
        let rest = Value::Object(rest).to_string();
        let members = &rest[1..rest.len() - 1];
        let comma = if members.is_empty() { "" } else { "," };
        format!("{{\"id\":{text}{comma}{members}}}")
    }
}
