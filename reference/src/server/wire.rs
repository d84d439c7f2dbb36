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
    /// Where an object repeats a member name (the first such object's pointer and the name):
    /// the validator and the handler could read different members, so such a message is
    /// refused as an invalid request before either looks at it.
    pub duplicate: Option<(String, String)>,
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
    let mut pointer = String::new();
    let duplicate = first_duplicate(&lossless, &mut pointer);
    Ok(Inbound { value: to_serde(&lossless), echo: EchoId::of(&lossless), duplicate })
}

/// The first object (depth first) that repeats a member name: its pointer and the name.
fn first_duplicate(v: &mcpgen::Value, pointer: &mut String) -> Option<(String, String)> {
    let len = pointer.len();
    let found = match v {
        mcpgen::Value::Object(m) => {
            let mut seen = std::collections::HashSet::with_capacity(m.len());
            match m.keys().find(|k| !seen.insert(*k)) {
                Some(name) => Some((pointer.clone(), name.to_owned())),
                None => m.iter().find_map(|(k, child)| {
                    pointer.truncate(len);
                    mcpgen::json::pointer::push(pointer, k);
                    first_duplicate(child, pointer)
                }),
            }
        }
        mcpgen::Value::Array(items) => items.iter().enumerate().find_map(|(i, child)| {
            pointer.truncate(len);
            pointer.push('/');
            pointer.push_str(&i.to_string());
            first_duplicate(child, pointer)
        }),
        _ => None,
    };
    pointer.truncate(len);
    found
}

/// A request id's exact text, when serde_json cannot write it back as received: a number
/// beyond 64 bits, with a fraction or an exponent, or `-0` (serde_json holds those as `f64`
/// and would answer `1e+30` to `1000000000000000000000000000000`). Ids serde_json keeps
/// exactly (strings, 64-bit integers) need nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EchoId(Option<(mcpgen::Value, Value)>);

/// Where a listen request's id travels besides a response's `id` (SUB-4: echoed exactly), in
/// the acknowledgement's `params._meta` and the closing result's `_meta`.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

impl EchoId {
    fn of(message: &mcpgen::Value) -> EchoId {
        let Some(exact @ mcpgen::Value::Number(n)) = message.get("id") else { return EchoId(None) };
        let lossy = Value::Number(n.into());
        let written = serde_json::to_string(&lossy).unwrap_or_default();
        EchoId((n.to_string() != written).then(|| (exact.clone(), lossy)))
    }

    /// `message` as JSON text; where it carries the request's id as serde_json holds it (the
    /// response's `id`, a listen stream's `subscriptionId`), the id is written as received.
    pub fn render(&self, message: &Value) -> String {
        let (Some((exact, lossy)), Value::Object(m)) = (&self.0, message) else { return message.to_string() };
        let in_meta = |outer: &str| m.get(outer).and_then(|o| o.get("_meta")).and_then(|x| x.get(SUBSCRIPTION_ID));
        let at = [m.get("id") == Some(lossy), in_meta("params") == Some(lossy), in_meta("result") == Some(lossy)];
        if !at.contains(&true) {
            return message.to_string();
        }
        let mut out = mcpgen::Value::from(message);
        if let mcpgen::Value::Object(o) = &mut out {
            if at[0] {
                o.insert("id", exact.clone());
            }
            for (outer, hit) in [("params", at[1]), ("result", at[2])] {
                let meta = o.get_mut(outer).and_then(|v| match v {
                    mcpgen::Value::Object(p) => p.get_mut("_meta"),
                    _ => None,
                });
                if let (true, Some(mcpgen::Value::Object(meta))) = (hit, meta) {
                    meta.insert(SUBSCRIPTION_ID, exact.clone());
                }
            }
        }
        out.to_json_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo_of(text: &str) -> (EchoId, Value) {
        let inbound = parse(text.as_bytes()).unwrap();
        let lossy = inbound.echo.0.as_ref().expect("an id serde_json cannot hold").1.clone();
        (inbound.echo, lossy)
    }

    #[test]
    fn the_exact_id_is_written_in_the_response_and_in_both_subscription_ids() {
        for id in ["-0", "18446744073709551616", "1e2"] {
            let (echo, lossy) = echo_of(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen"}}"#));
            let meta = json!({ SUBSCRIPTION_ID: lossy });
            let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"_meta": meta}});
            let closing = json!({"jsonrpc": "2.0", "id": lossy, "result": {"_meta": meta}});
            // The member ends the `_meta` object, so `-0.0` does not pass for `-0`.
            let sub = format!(r#""io.modelcontextprotocol/subscriptionId":{id}}}"#);
            let ack = echo.render(&ack);
            assert!(ack.contains(&sub), "{ack}");
            let closing = echo.render(&closing);
            assert!(closing.contains(&sub) && closing.contains(&format!(r#""id":{id},"#)), "{closing}");
        }
        // Another value equal to nothing of the request's is left as it is.
        let (echo, _) = echo_of(r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#);
        assert_eq!(echo.render(&json!({"id": 5})), r#"{"id":5}"#);
    }
}
