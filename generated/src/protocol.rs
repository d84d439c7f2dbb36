//! Protocol rules the schema cannot express (`shared/design/protocol-rules.md`): method-aware
//! message validation, the server-side request check, the client-side response check, version
//! negotiation, `_meta` key grammar, and era detection.
//!
//! API CONTRACT (bindings code against these signatures): every function below keeps its
//! signature; bodies marked `todo!` are being implemented.

use crate::decode::{AnyDecoded, DecodeError, DecodedResult};
use crate::json::{JsonView, Value};
use crate::validate::{Options, ValidationError};
use crate::Revision;

/// Server settings for [`check_request`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Protocol versions the server implements, preferred first. Default: every revision of
    /// this build. A legacy version (≤ 2025-11-25) here means the server is dual-era: a legacy
    /// `initialize` is accepted for routing instead of refused (ERA-1, ERA-8).
    pub supported_versions: Vec<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig { supported_versions: Revision::all().iter().map(|r| r.as_str().to_owned()).collect() }
    }
}

impl ServerConfig {
    pub fn new<S: Into<String>>(versions: impl IntoIterator<Item = S>) -> Self {
        ServerConfig { supported_versions: versions.into_iter().map(Into::into).collect() }
    }
}

/// A request the server should serve.
#[derive(Debug)]
pub struct AcceptedRequest {
    /// The revision whose types decoded it.
    pub revision: Revision,
    pub method: String,
    /// The request id exactly as sent (string or integer), `None` for notifications.
    pub id: Option<Value>,
    /// True for a legacy `initialize` accepted by a dual-era configuration: route it to the
    /// legacy adapter (ERA-1).
    pub legacy: bool,
    /// The decoded request (or notification), typed by its method.
    pub request: Box<dyn AnyDecoded>,
}

/// Why a server must refuse a request: everything needed for the reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolError {
    /// JSON-RPC error code (-32700, -32600, -32601, -32602, -32021, -32022, …).
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
    /// The request id to echo; `None` when it could not be read (ID-4: then no `id` member).
    pub id: Option<Value>,
    /// HTTP status the spec requires for this failure on Streamable HTTP.
    pub http_status: u16,
    /// Rule id from protocol-rules.md (`META-6`, `VER-1`, `MSG-1`, …).
    pub rule: &'static str,
    /// Schema-level details, when the refusal comes from validation.
    pub errors: Vec<ValidationError>,
    /// True when the request was a legacy `initialize` refused by a modern-only server (ERA-8):
    /// a dual-era server would route it instead.
    pub legacy_initialize: bool,
}

impl ProtocolError {
    /// The JSON-RPC error response to send (`{"jsonrpc":"2.0","id":…,"error":{…}}`; no `id`
    /// member when the id is unknown).
    pub fn to_response(&self) -> Value {
        todo!("protocol helper")
    }
    /// [`ProtocolError::to_response`] as compact JSON text.
    pub fn to_response_json(&self) -> String {
        crate::json::to_json_string(&self.to_response())
    }
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, HTTP {}): {}", self.code, self.rule, self.http_status, self.message)
    }
}
impl std::error::Error for ProtocolError {}

/// Server side: decides whether a request (or notification) should be served, in the check
/// order of protocol-rules.md §0 (parse → envelope → `_meta` → version → method → params).
pub fn check_request(bytes: &[u8], config: &ServerConfig) -> Result<AcceptedRequest, ProtocolError> {
    let _ = (bytes, config);
    todo!("protocol helper")
}

/// A response a client received, checked.
#[derive(Debug)]
pub enum CheckedResponse {
    /// A result, decoded by the request's method (`resultType` first).
    Result { id: Value, result: DecodedResult },
    /// A JSON-RPC error from the peer (a remote error, ERR-7).
    Error { id: Option<Value>, code: i64, message: String, data: Option<Value> },
}

/// A response that the client must treat as invalid (a local error, ERR-7: never mistaken for
/// an error the peer sent).
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseError {
    pub rule: Option<&'static str>,
    pub message: String,
    pub errors: Vec<ValidationError>,
}

impl std::fmt::Display for ResponseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.rule {
            Some(r) => write!(f, "invalid response ({r}): {}", self.message),
            None => write!(f, "invalid response: {}", self.message),
        }
    }
}
impl std::error::Error for ResponseError {}

/// Client side: checks a response to a request of `request_method` under `revision`.
pub fn check_response(bytes: &[u8], request_method: &str, revision: Revision) -> Result<CheckedResponse, ResponseError> {
    let _ = (bytes, request_method, revision);
    todo!("protocol helper")
}

/// What a message is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageKind {
    Request { method: String },
    Notification { method: String },
    Result,
    Error { code: i64 },
}

/// Method-aware validation: the message is checked against the exact definition its `method`
/// (or error `code`) selects, plus the protocol rules; unknown methods are reported as such.
/// Errors carry rule ids where a rule (not the schema) is violated.
pub fn validate_message(revision: Revision, bytes: &[u8], opts: Options) -> Result<MessageKind, DecodeError> {
    let tape = crate::json::Tape::parse_bytes(bytes)?;
    validate_message_view(revision, &tape.root(), opts)
}

/// [`validate_message`] on any JSON view (Python objects, `serde_json::Value`, …).
pub fn validate_message_view<'v, V: JsonView<'v>>(revision: Revision, v: &V, opts: Options) -> Result<MessageKind, DecodeError> {
    let _ = (revision, v, opts);
    todo!("protocol helper")
}

/// VER-1: `Ok(requested)` when the server supports it, else the -32022 error with
/// `data.supported` and `data.requested` (HTTP 400).
pub fn negotiate_version(requested: &str, supported: &[&str]) -> Result<String, ProtocolError> {
    let _ = (requested, supported);
    todo!("protocol helper")
}

/// A `_meta` key split by the META-1 grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaKey {
    /// Prefix without the trailing `/` (`io.modelcontextprotocol`), if any.
    pub prefix: Option<String>,
    pub name: String,
    /// META-3: the prefix's second label is `modelcontextprotocol` or `mcp`.
    pub reserved: bool,
}

/// META-1 grammar check; the error says what is wrong.
pub fn check_meta_key(key: &str) -> Result<MetaKey, String> {
    let _ = key;
    todo!("protocol helper")
}

/// META-1: true when `key` follows the `_meta` key grammar.
pub fn is_valid_meta_key(key: &str) -> bool {
    check_meta_key(key).is_ok()
}

/// Which protocol era a peer speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    /// Per-request `_meta` (2026-07-28 and later); the versions the server named, if any.
    Modern { supported: Vec<String> },
    /// `initialize` handshake (2025-11-25 and earlier): fall back to `initialize`.
    Legacy,
}

/// ERA-2/3: classifies the answer to a stdio `server/discover` probe (`None` = no answer /
/// timeout, which means legacy).
pub fn detect_era_from_probe(response: Option<&[u8]>) -> Era {
    let _ = response;
    todo!("protocol helper")
}

/// ERA-5: classifies the body of an HTTP 400 answering a modern request.
pub fn detect_era_from_http_400(body: &[u8]) -> Era {
    let _ = body;
    todo!("protocol helper")
}
