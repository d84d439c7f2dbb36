//! Protocol rules the schema cannot express (every rule id is in the catalogue, [`crate::rules`]
//! and `docs/rules.md`): method-aware message validation, the server-side request check, the client-side response check, version
//! negotiation, `_meta` key grammar, and era detection.
//!
//! API CONTRACT (bindings code against these signatures): every function below keeps its
//! signature.
//!
//! Choices where the spec is silent (each documented at its function):
//! - [`check_request`] follows mcpgen's check order (AMB-9); HTTP status 400 for -32700/-32600/-32022/META-6 and
//!   refused notifications, 404 for -32601, **200** for other -32602 (AMB-10). Rule id `SCHEMA`
//!   marks a refusal that comes from the method's schema definition rather than a named rule.
//! - On receipt, invalid `_meta` keys (META-1), invalid W3C values (OTEL-1..3, dropped by the
//!   application) and unprefixed extension keys (EXT-1) do not refuse a request;
//!   [`validate_message`] reports them as rule errors.
//! - META-3 (keys under reserved prefixes that the spec does not define) and RESULT-3 in
//!   [`validate_message`] (a `resultType` that is not core) are reported only with
//!   [`Policy::Strict`](crate::Policy::Strict): both are legitimate when an extension defines them.
//! - Rule errors carry the JSON Schema keyword that would express the rule (`propertyNames`
//!   for META-1, `format` for OTEL, `uniqueKeys` for MRTR-4, `enum` for unknown methods) and an
//!   empty `schema_path`.

// The signatures are the bindings' contract; refusals are the rare path, and the error carries
// everything needed for the reply, so it is returned by value.
#![allow(clippy::result_large_err)]

mod capability;
mod client;
mod envelope;
pub(crate) mod hook;
pub(crate) mod http;
mod message;
mod meta;
mod otel;
mod response;
mod result_check;
mod rules;
mod server;

pub use capability::{missing_capabilities, missing_capability_error, required_capability};
pub use message::{is_modern, LISTEN_STREAM_NOTIFICATIONS};
pub(crate) use message::{validate_classified, validate_collecting, Envelope};
pub use meta::MetaKeyError;
pub use otel::{check_baggage, check_traceparent, check_tracestate, OtelError};
pub use response::{
    complete_response, complete_result, invalid_params_error, result_response, unsupported_version_error, ResultError,
};
pub(crate) use result_check::{check_result_view, find_method};
pub(crate) use rules::rule_error;
pub(crate) use server::invalid_params;

use std::borrow::Cow;

use mcpgen_runtime::__rt::single;

use crate::decode::{AnyDecoded, DecodeError, DecodedResult};
use crate::error_codes;
use crate::json::{JsonSource, JsonView, Map, Value, ViewFn};
use crate::validate::ValidationError;
use crate::CoreError;
use crate::Revision;

/// Server settings for [`check_request`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// Protocol versions the server implements, preferred first. Default: every revision of
    /// this build. A legacy version (≤ 2025-11-25) here means the server is dual-era: a legacy
    /// `initialize` is accepted for routing instead of refused (ERA-1, ERA-8).
    pub supported_versions: Vec<String>,
    /// Extensions the server serves (default: none). With the Tasks extension
    /// ([`crate::ext::tasks::extension`]), `tasks/get`, `tasks/update` and `tasks/cancel` are accepted from
    /// requests that declare it and refused with -32021 otherwise (TASK-24), as is a
    /// `subscriptions/listen` asking for task notifications (TASK-23); without it they are
    /// unknown methods (-32601).
    pub extensions: Vec<crate::ext::Extension>,
}

/// Builders: `#[non_exhaustive]`, so start from `ServerConfig::default()` (or its constructor) and set
/// what differs.
impl ServerConfig {
    /// The same, with [`ServerConfig::supported_versions`] set.
    pub fn supported_versions(mut self, supported_versions: Vec<String>) -> Self {
        self.supported_versions = supported_versions;
        self
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            supported_versions: Revision::all().iter().map(|r| r.as_str().to_owned()).collect(),
            extensions: Vec::new(),
        }
    }
}

impl ServerConfig {
    pub fn new<S: Into<String>>(versions: impl IntoIterator<Item = S>) -> Self {
        ServerConfig { supported_versions: versions.into_iter().map(Into::into).collect(), extensions: Vec::new() }
    }

    /// The same configuration, serving these extensions too.
    ///
    /// ```
    /// use mcpgen::ext::Extension;
    /// use mcpgen::protocol::{check_request, ServerConfig};
    ///
    /// let tasks = Extension::from_id("io.modelcontextprotocol/tasks").unwrap();
    /// let config = ServerConfig::new(["2026-07-28"]).with_extensions([tasks]);
    /// let declared = br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"_meta":{
    ///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}},
    ///     "taskId":"t1"}}"#;
    /// assert_eq!(check_request(declared, &config).unwrap().extension, Some(tasks));
    /// let undeclared = br#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"_meta":{
    ///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities":{}},"taskId":"t1"}}"#;
    /// let e = check_request(undeclared, &config).unwrap_err();
    /// assert_eq!((e.code, e.http_status, e.rule), (-32021, 400, "TASK-24"));
    /// // A server that does not serve the extension does not know the method.
    /// let e = check_request(declared, &ServerConfig::new(["2026-07-28"])).unwrap_err();
    /// assert_eq!(e.code, -32601);
    /// ```
    pub fn with_extensions(mut self, extensions: impl IntoIterator<Item = crate::ext::Extension>) -> Self {
        for e in extensions {
            if !self.extensions.contains(&e) {
                self.extensions.push(e);
            }
        }
        self
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
    /// The extension whose method it is (`tasks/get`: the Tasks extension; its value is then
    /// one of that extension's types, `mcpgen::ext::tasks::GetTaskRequest`), `None` for the
    /// revision's own methods.
    pub extension: Option<crate::ext::Extension>,
    /// `tasks/update` only: the `inputResponses` keys whose value fails the schema, set aside
    /// (left out of `request`) rather than refused. Each names the request it answers, which
    /// only the server holding the task knows: the handler refuses one for an outstanding key
    /// (-32602) and ignores the others, as the extension says for keys not outstanding (TASK-19).
    pub set_aside_input_responses: Vec<String>,
}

/// Why a server must refuse a request: everything needed for the reply.
///
/// `#[non_exhaustive]`: build one with [`ProtocolError::new`] (or the typed constructors
/// [`invalid_params_error`], [`unsupported_version_error`], [`missing_capability_error`]). As a
/// [`CoreError`]: kind from the code ([`ErrorCategory::as_str`]: `method_not_found`, …), its
/// rule, and its validation errors, or one entry with its rule and message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProtocolError {
    /// JSON-RPC error code (-32700, -32600, -32601, -32602, -32021, -32022, …).
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
    /// The request id to echo; `None` when it could not be read (ID-4: then no `id` member).
    pub id: Option<Value>,
    /// HTTP status the spec requires for this failure on Streamable HTTP.
    pub http_status: u16,
    /// Rule id (`META-6`, `VER-1`, `MSG-1`, …), or `SCHEMA` when the method's schema definition
    /// refuses the params; [`crate::rules::lookup`] says what it means.
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
        let mut error = Map::new();
        error.push("code", Value::Number(self.code.into()));
        error.push("message", Value::String(self.message.clone()));
        if let Some(d) = &self.data {
            error.push("data", d.clone());
        }
        let mut m = Map::new();
        m.push("jsonrpc", Value::String("2.0".into()));
        if let Some(id) = &self.id {
            m.push("id", id.clone());
        }
        m.push("error", Value::Object(error));
        Value::Object(m)
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

impl CoreError for ProtocolError {
    fn kind(&self) -> &'static str {
        ErrorCategory::of(self.code).as_str()
    }
    fn rule(&self) -> Option<&'static str> {
        Some(self.rule)
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        if self.errors.is_empty() {
            return single("", "", Some(self.rule), self.message.clone());
        }
        Cow::Borrowed(&self.errors)
    }
}

/// Server side: decides whether a request (or notification) should be served, in mcpgen's check
/// order (AMB-9; the spec defines none): parse → envelope → `_meta` → version → method → params.
///
/// | step | failure | code | HTTP | rule | `id` |
/// |---|---|---|---|---|---|
/// | parse | not UTF-8 / not JSON | -32700 | 400 | MSG-8 / CORE-2 | none |
/// | envelope | batch array | -32600 | 400 | MSG-1 | none |
/// | envelope | `id` null, `1.5`, `1.0`, object… | -32600 | 400 | ID-1 (AMB-12) | none |
/// | envelope | `jsonrpc`, `method`, `params` shape, response body | -32600 | 400 | CORE-2 / MSG-5 | echoed |
/// | legacy `initialize` on a modern-only server | -32022 (-32600 without `protocolVersion`), `data.supported` | | 400 | ERA-8 | echoed |
/// | `_meta` | missing `protocolVersion` / `clientCapabilities` | -32602 | 400 | META-6 | echoed |
/// | version | not configured, or a legacy version in `_meta` (AMB-8) | -32022 | 400 | VER-1 | echoed |
/// | method | unknown / not a client request | -32601 | 404 | MSG-9 | echoed |
/// | params | schema | -32602, `data.errors` | 200 (AMB-10) | SCHEMA | echoed |
///
/// A legacy `initialize` (no modern `_meta`) is accepted with `legacy: true`, decoded under
/// the client's legacy version if configured (else the first configured legacy version), when
/// the configuration lists a legacy version (ERA-1). Notifications (no `id`) are accepted:
/// known ones decoded by their definition (a schema failure refuses with no `id` and HTTP 400,
/// HTTP-5), unknown ones as the generic `JSONRPCNotification` (MSG-9: ignored, never answered).
/// The -32021 check belongs to the handler: see [`missing_capability_error`].
///
/// The check is stateless: it recognizes the modern per-request path and a legacy `initialize`.
/// Requests on an established legacy session (which carry no modern `_meta`) are the legacy
/// adapter's to decode (`mcpgen::decode` or [`validate_message`] with the session's revision);
/// here they are refused by META-6.
pub fn check_request(bytes: &[u8], config: &ServerConfig) -> Result<AcceptedRequest, ProtocolError> {
    server::check_request(bytes, config)
}

/// Streamable HTTP: the standard headers of a modern request (its body names a version in
/// `_meta`) against its body, before [`check_request`]. Every failure is -32020 HeaderMismatch
/// with HTTP 400 (ERR-8), the message naming the header:
///
/// | header | failure | rule |
/// |---|---|---|
/// | `MCP-Protocol-Version` | missing | ERA-10 |
/// | `MCP-Protocol-Version` | differs from `_meta`'s `protocolVersion` | HTTP-8 |
/// | `Mcp-Method` | missing, or differs from `method` | HTTP-11 |
/// | `Mcp-Name` | missing, unreadable or differing, for `tools/call` / `prompts/get` (`params.name`) and `resources/read` (`params.uri`) | HTTP-11 |
///
/// Header names compare case-insensitively, values case-sensitively after trimming optional
/// whitespace (HTTP-12). `Mcp-Name` is compared after decoding the Base64 sentinel form that
/// [`crate::http::standard_headers`] writes for a name that is not header-safe (XHDR-8/9); a
/// sentinel that does not hold Base64 of UTF-8, or a plain value with a byte that is not
/// visible ASCII, is refused. A body that is not JSON or not a modern request passes: it is
/// [`check_request`]'s to judge. A notification (no `id` member) passes too: the
/// 2026-07-28 transport page says "header requirements for notification POSTs are not
/// defined by this revision". Custom `Mcp-Param-*` headers are [`check_param_headers`]'s.
///
/// ```
/// let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
/// let headers = [("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Method", "tools/list")];
/// let e = mcpgen::protocol::check_http_headers(headers, body).unwrap_err();
/// assert_eq!((e.code, e.http_status, e.rule), (-32020, 400, "HTTP-8"));
/// ```
pub fn check_http_headers<'h>(
    headers: impl IntoIterator<Item = (&'h str, &'h str)>,
    body: &[u8],
) -> Result<(), ProtocolError> {
    http::check(headers, body)
}

/// Streamable HTTP, server side (XHDR-9): the `Mcp-Param-*` headers of a modern `tools/call`
/// against its arguments, for the called tool's `bindings` ([`crate::http::header_bindings`]
/// of its `inputSchema`). Each header's value is decoded (the Base64 sentinel, XHDR-8) and
/// must equal the argument as [`crate::http::param_headers`] writes it; a header that cannot
/// be decoded, differs, is missing for a present non-null argument, or is sent for an absent
/// one is -32020 HeaderMismatch with HTTP 400 and rule XHDR-9. A body that is not a
/// `tools/call` passes. Run it after [`check_http_headers`] and [`check_request`].
///
/// ```
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
/// let bindings = mcpgen::http::header_bindings(&schema).unwrap();
/// let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"region":"eu"}}}"#;
/// assert!(mcpgen::protocol::check_param_headers([("Mcp-Param-Region", "eu")], &bindings, body).is_ok());
/// let e = mcpgen::protocol::check_param_headers([], &bindings, body).unwrap_err();
/// assert_eq!((e.code, e.http_status, e.rule), (-32020, 400, "XHDR-9"));
/// ```
pub fn check_param_headers<'h>(
    headers: impl IntoIterator<Item = (&'h str, &'h str)>,
    bindings: &[crate::http::HeaderBinding],
    body: &[u8],
) -> Result<(), ProtocolError> {
    http::check_params(headers, bindings, body)
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
/// an error the peer sent). `#[non_exhaustive]`: build one with [`ResponseError::new`]. As a
/// [`CoreError`]: kind `invalid_response`, its rule, and its errors (or one entry with its
/// message).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResponseError {
    pub rule: Option<&'static str>,
    pub message: String,
    /// Details, pointers relative to the whole response (`/result/...`).
    pub errors: Vec<ValidationError>,
}

impl ResponseError {
    /// A refusal by `rule` (an id of [`crate::rules::id`], or `None` for a plain schema failure).
    pub fn new(rule: Option<&'static str>, message: impl Into<String>) -> ResponseError {
        ResponseError { rule, message: message.into(), errors: Vec::new() }
    }

    /// The same refusal, with its details.
    pub fn with_errors(mut self, errors: Vec<ValidationError>) -> ResponseError {
        self.errors = errors;
        self
    }
}

impl CoreError for ResponseError {
    fn kind(&self) -> &'static str {
        "invalid_response"
    }
    fn rule(&self) -> Option<&'static str> {
        self.rule
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        if self.errors.is_empty() {
            return single("", "", self.rule, self.message.clone());
        }
        Cow::Borrowed(&self.errors)
    }
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

/// Client side: checks a response to the request `options` describes
/// ([`ResultOptions`](crate::ResultOptions): its method, task augmentation, the `resultType`
/// values of negotiated extensions, the extensions the request declared) under `revision`,
/// from JSON text (`&[u8]`, `&str`, …) or any JSON view, as [`crate::decode_result`] reads it.
///
/// In order: JSON (MSG-8), one object (MSG-1), not a request (MSG-5), `jsonrpc`, exactly one
/// of `result`/`error` (MSG-2). An error response is returned as [`CheckedResponse::Error`]
/// (a remote error, ERR-7), accepting `"id": null` or no `id` (Q-17). A result must echo an
/// integer-literal or string `id` (ID-3), unique `inputRequests` keys (MRTR-4), and then be
/// decoded by the request ([`crate::decode_result`], the rules of
/// [`methods::result_definition`](crate::methods::result_definition)): a method of the revision
/// (unknown and removed ones are MSG-9), a string `resultType` (RESULT-1) that is core — unknown
/// values are invalid (RESULT-3) unless a negotiated extension defines them
/// ([`ResultOptions::extensions`](crate::ResultOptions::extensions): they are then kept raw;
/// RESULT-3/4, AMB-18: the client's own declaration on that request decides) — and, when
/// `input_required`, carrying `inputRequests` or `requestState` (MRTR-3) and allowed for the
/// method (RESULT-5); RESULT-2 and CACHE-3 leniency. A task-augmented request
/// (`params.task` in 2025-11-25, [`ResultOptions::task_augmented`](crate::ResultOptions::task_augmented))
/// is answered by a `CreateTaskResult`. Error pointers are relative to the whole response
/// (`/result/...`).
///
/// With the Tasks extension declared on the request
/// ([`ResultOptions::negotiated`](crate::ResultOptions::negotiated)), `resultType: "task"`
/// answering a `tools/call` is its `CreateTaskResult` (any other method: TASK-3); not declared,
/// a `task` result is invalid (TASK-1). The extension's own methods are judged where it was
/// declared: a `tasks/get` result by its `status` (TASK-10/11/13/14), with
/// `resultType: "complete"` (TASK-15), a completed task's `result` as the complete result of
/// [`ResultOptions::task_of`](crate::ResultOptions::task_of) when given (TASK-13); `tasks/update`
/// and `tasks/cancel` by their empty acknowledgement (TASK-20/21).
///
/// ```
/// use mcpgen::ext::Extension;
/// use mcpgen::protocol::{check_response, CheckedResponse};
/// use mcpgen::{ResultOptions, Revision};
///
/// let rev = Revision::parse("2025-11-25").unwrap();
/// let task = br#"{"jsonrpc":"2.0","id":3,"result":{"task":{"taskId":"t1","status":"working",
///     "createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}"#;
/// let call = ResultOptions::method("tools/call").task_augmented(true);
/// match check_response(rev, task, &call).unwrap() {
///     CheckedResponse::Result { result, .. } => assert_eq!(result.variant, "CreateTaskResult"),
///     other => panic!("{other:?}"),
/// }
/// // The same result answering a plain `tools/call` is invalid.
/// assert!(check_response(rev, task, &ResultOptions::method("tools/call")).is_err());
///
/// let rev = Revision::parse("2026-07-28").unwrap();
/// let tasks = [Extension::from_id("io.modelcontextprotocol/tasks").unwrap()];
/// let handle = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t1","status":"working",
///     "createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}}"#;
/// let call = ResultOptions::method("tools/call").negotiated(&tasks);
/// assert!(check_response(rev, handle, &call).is_ok());
/// // The request did not declare the extension (TASK-1).
/// let e = check_response(rev, handle, &ResultOptions::method("tools/call")).unwrap_err();
/// assert_eq!(e.rule, Some("TASK-1"));
/// ```
pub fn check_response<S: JsonSource + ?Sized>(
    revision: Revision,
    input: &S,
    options: &crate::ResultOptions<'_>,
) -> Result<CheckedResponse, ResponseError> {
    client::check_response(revision, input, options)
}

/// -32002, resource not found: what servers before 2026-07-28 send (ERR-5), retired since
/// (ERR-4). No pinned schema defines it, so it is not in the generated `error_codes`.
pub(crate) const RESOURCE_NOT_FOUND_LEGACY: i64 = -32002;

/// What an error code means to a client (ERR-2, ERR-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCategory {
    Parse,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    Internal,
    HeaderMismatch,
    MissingClientCapability,
    UnsupportedProtocolVersion,
    /// -32002 from an older server (ERR-5).
    ResourceNotFound,
    /// -32000..-32019 other than -32002: legacy, implementation-defined, no meaning (ERR-2).
    LegacyImplementationDefined,
    /// -32023..-32099: reserved for the spec, undefined in this revision (ERR-3).
    ReservedUndefined,
    /// Any other code (application-defined).
    Application,
}

impl ErrorCategory {
    /// Stable snake_case name (`parse`, `invalid_request`, `method_not_found`, …,
    /// `application`): a [`ProtocolError`]'s kind.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCategory::Parse => "parse",
            ErrorCategory::InvalidRequest => "invalid_request",
            ErrorCategory::MethodNotFound => "method_not_found",
            ErrorCategory::InvalidParams => "invalid_params",
            ErrorCategory::Internal => "internal",
            ErrorCategory::HeaderMismatch => "header_mismatch",
            ErrorCategory::MissingClientCapability => "missing_client_capability",
            ErrorCategory::UnsupportedProtocolVersion => "unsupported_protocol_version",
            ErrorCategory::ResourceNotFound => "resource_not_found",
            ErrorCategory::LegacyImplementationDefined => "legacy_implementation_defined",
            ErrorCategory::ReservedUndefined => "reserved_undefined",
            ErrorCategory::Application => "application",
        }
    }

    pub fn of(code: i64) -> ErrorCategory {
        match code {
            error_codes::PARSE_ERROR => ErrorCategory::Parse,
            error_codes::INVALID_REQUEST_ERROR => ErrorCategory::InvalidRequest,
            error_codes::METHOD_NOT_FOUND_ERROR => ErrorCategory::MethodNotFound,
            error_codes::INVALID_PARAMS_ERROR => ErrorCategory::InvalidParams,
            error_codes::INTERNAL_ERROR => ErrorCategory::Internal,
            error_codes::HEADER_MISMATCH_ERROR => ErrorCategory::HeaderMismatch,
            error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY_ERROR => ErrorCategory::MissingClientCapability,
            error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR => ErrorCategory::UnsupportedProtocolVersion,
            RESOURCE_NOT_FOUND_LEGACY => ErrorCategory::ResourceNotFound,
            -32019..=-32000 => ErrorCategory::LegacyImplementationDefined,
            -32099..=-32023 => ErrorCategory::ReservedUndefined,
            _ => ErrorCategory::Application,
        }
    }
}

impl CheckedResponse {
    /// For an error response, what its code means ([`ErrorCategory::of`]).
    pub fn error_category(&self) -> Option<ErrorCategory> {
        match self {
            CheckedResponse::Error { code, .. } => Some(ErrorCategory::of(*code)),
            CheckedResponse::Result { .. } => None,
        }
    }
    /// ERR-5: -32002 (any era) means the resource was not found; a -32602 answering
    /// `resources/read` may mean it too (a hint only: -32602 has other causes).
    pub fn may_be_resource_not_found(&self, request_method: &str) -> bool {
        matches!(self, CheckedResponse::Error { code: RESOURCE_NOT_FOUND_LEGACY, .. })
            || (request_method == "resources/read"
                && matches!(self, CheckedResponse::Error { code: error_codes::INVALID_PARAMS_ERROR, .. }))
    }
}

/// What a message is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageKind {
    Request { method: String },
    Notification { method: String },
    Result,
    Error { code: i64 },
}

/// Method-aware validation of one message under `revision`, from JSON text (`&[u8]`, `&str`,
/// …) or any JSON view (Python objects, `serde_json::Value`, a tape's root), with the
/// validation options and the extensions negotiated on the session ([`MessageOptions`](crate::MessageOptions)):
/// the message is checked against the exact definition its `method` (or error `code`) selects,
/// plus the protocol rules; unknown methods are reported as such. Errors carry rule ids where
/// a rule (not the schema) is violated; text that is not JSON is MSG-8.
///
/// Order: structural classification (MSG-1 batch, MSG-2 both/neither `result`/`error`, MSG-4
/// an `id` key makes a request), the envelope definition, then by kind: requests and
/// notifications by their method's definition (`params` errors point inside `/params`;
/// unknown methods are MSG-9, a notification sent with an `id` MSG-4, an input request sent as a
/// JSON-RPC request MSG-5, a missing `id` ID-1, `id` null or `1.0` ID-1, missing `_meta` fields
/// META-6, listen-stream notifications without `subscriptionId` SUB-4); error responses by their
/// `code`'s definition (`-32022` → `UnsupportedProtocolVersionError`…; ERR-3/ERR-4 for codes that
/// must not be sent; `id: null` is ID-4); results by the generic envelope (the method is unknown
/// here: use [`check_response`]), `input_required` ones as `InputRequiredResult` plus MRTR-3.
/// Finally the walk over the whole message: META-1 on every `_meta` key, META-3 (strict),
/// OTEL-1..3, EXT-1, MRTR-4.
///
/// Negotiated extensions ([`MessageOptions::negotiated`](crate::MessageOptions::negotiated)):
/// with the Tasks extension, `notifications/tasks` is judged by its definition (and a status's
/// members, TASK-11/13/14) and a `resultType: "task"` result as a `CreateTaskResult`; without it
/// they are an unknown method and an unknown `resultType` (RESULT-3, strict mode). The
/// extension's requests (`tasks/get`, …) are judged by its definitions where it was negotiated,
/// or where they declare it in their own `_meta` client capabilities; otherwise they are
/// unknown methods (MSG-9).
///
/// ```
/// use mcpgen::ext::Extension;
/// use mcpgen::protocol::validate_message;
/// use mcpgen::{MessageOptions, Revision};
///
/// let rev = Revision::parse("2026-07-28").unwrap();
/// let tasks = [Extension::from_id("io.modelcontextprotocol/tasks").unwrap()];
/// let note = br#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1",
///     "status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null}}"#;
/// // Not negotiated: an unknown method.
/// assert!(validate_message(rev, note, &MessageOptions::new()).is_err());
/// // Negotiated: a completed task carries its `result` (TASK-13).
/// let e = validate_message(rev, note, &MessageOptions::new().negotiated(&tasks)).unwrap_err();
/// assert!(e.errors().iter().any(|e| e.rule == Some("TASK-13")));
/// ```
pub fn validate_message<S: JsonSource + ?Sized>(
    revision: Revision,
    input: &S,
    options: &crate::MessageOptions<'_>,
) -> Result<MessageKind, DecodeError> {
    struct Run<'o, 'a> {
        revision: Revision,
        options: &'o crate::MessageOptions<'a>,
    }
    impl ViewFn for Run<'_, '_> {
        type Output = Result<MessageKind, DecodeError>;
        fn call<'v, V: JsonView<'v>>(self, v: &V) -> Self::Output {
            let o = self.options;
            message::validate_message_negotiated(self.revision, v, o.validation, o.negotiated_set())
        }
    }
    input.read(Run { revision, options })?
}

/// Whether [`validate_message`] accepts the message: the same verdict, without the errors.
///
/// ```
/// use mcpgen::protocol::is_valid_message;
/// use mcpgen::{MessageOptions, Revision};
///
/// let rev = Revision::parse("2025-06-18").unwrap();
/// assert!(is_valid_message(rev, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &MessageOptions::new()));
/// assert!(!is_valid_message(rev, r#"{"jsonrpc":"2.0","id":1,"method":"pong"}"#, &MessageOptions::new()));
/// assert!(!is_valid_message(rev, "{", &MessageOptions::new()));
/// ```
pub fn is_valid_message<S: JsonSource + ?Sized>(
    revision: Revision,
    input: &S,
    options: &crate::MessageOptions<'_>,
) -> bool {
    validate_message(revision, input, options).is_ok()
}

/// VER-1: `Ok(requested)` when the server supports it, else the -32022 error with
/// `data.supported` and `data.requested` (HTTP 400; [`unsupported_version_error`], without an
/// id: add the request's with [`ProtocolError::with_id`]).
/// Versions are opaque strings compared exactly (VER-6).
pub fn negotiate_version(requested: &str, supported: &[&str]) -> Result<String, ProtocolError> {
    if supported.contains(&requested) {
        return Ok(requested.to_owned());
    }
    Err(unsupported_version_error(None, requested, supported))
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

/// META-1 grammar check; the [`MetaKeyError`] says what is wrong (its `Display` is the message
/// every surface shows).
///
/// `^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`,
/// except that the empty key is rejected (AMB-5). `reserved` compares the second label
/// case-insensitively (AMB-5); a single-label prefix (`mcp/`) is not reserved (literal rule).
pub fn check_meta_key(key: &str) -> Result<MetaKey, MetaKeyError> {
    meta::check_meta_key(key)
}

/// META-1: true when `key` follows the `_meta` key grammar.
pub fn is_valid_meta_key(key: &str) -> bool {
    check_meta_key(key).is_ok()
}

/// The newest modern revision of this build (per-request `_meta`, no `initialize`;
/// [`is_modern`]): what "the current revision" means where a peer starts a modern session.
/// `None` in a build with legacy revisions only. [`Revision::latest`] is the newest of any era.
///
/// ```
/// let rev = mcpgen::protocol::latest_modern().unwrap();
/// assert!(mcpgen::protocol::is_modern(rev));
/// assert_eq!(rev.as_str(), "2026-07-28");
/// ```
pub fn latest_modern() -> Option<Revision> {
    Revision::ALL.iter().copied().find(|&r| is_modern(r))
}

/// Which protocol era a peer speaks, as detected from its answer (ERA-2/3/5). The era a
/// finding was judged under is [`crate::conversation::Era`], a plain tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DetectedEra {
    /// Per-request `_meta` (2026-07-28 and later); the versions the server named, if any.
    Modern { supported: Vec<String> },
    /// `initialize` handshake (2025-11-25 and earlier): fall back to `initialize`.
    Legacy,
}

/// ERA-2/3: classifies the answer to a stdio `server/discover` probe (`None` = no answer /
/// timeout, which means legacy).
///
/// Modern: a result with a `supportedVersions` array of strings (a `DiscoverResult`), or a
/// recognized modern error (AMB-7: -32020/-32021/-32022 whose response is schema-valid under a
/// modern revision; `supported` comes from a -32022's `data.supported`). Anything else — other
/// errors, unparseable text, no answer — is legacy (ERA-3: never one specific code).
pub fn detect_era_from_probe(response: Option<&[u8]>) -> DetectedEra {
    client::detect_era_from_probe(response)
}

/// ERA-5: classifies the body of an HTTP 400 answering a modern request.
///
/// Modern only for a recognized modern error (AMB-7); an empty or unrecognized body is legacy.
pub fn detect_era_from_http_400(body: &[u8]) -> DetectedEra {
    client::detect_era_from_http_400(body)
}
