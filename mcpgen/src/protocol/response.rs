//! The responses a peer sends: the result envelope, results stamped as the revision requires
//! (RESULT-1, RESULT-7 / META-11), and the typed error responses built on [`ProtocolError`].

use crate::error_codes;
use crate::json::{Map, ToJson, Value};
use crate::meta_keys;
use crate::methods::ResultShape;
use crate::rules::id;
use crate::validate::{Options, ValidationError};
use crate::Revision;

use super::{AcceptedRequest, ProtocolError};

/// Why a result could not be completed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultError {
    /// The result is not a JSON object (`found`: what it is).
    #[non_exhaustive]
    NotAnObject { found: &'static str },
    /// The result's `_meta` is not an object.
    #[non_exhaustive]
    MetaNotAnObject { found: &'static str },
    /// The server info is not a valid `Implementation` of the revision (`name` and `version`
    /// are required).
    InvalidServerInfo(Vec<ValidationError>),
    /// The request is a notification: it has no id to answer.
    #[non_exhaustive]
    Notification { method: String },
}

/// Kinds `not_an_object`, `meta_not_an_object`, `invalid_server_info` (the validation errors,
/// pointers into the server info) and `notification`; no rule.
impl crate::CoreError for ResultError {
    fn kind(&self) -> &'static str {
        match self {
            ResultError::NotAnObject { .. } => "not_an_object",
            ResultError::MetaNotAnObject { .. } => "meta_not_an_object",
            ResultError::InvalidServerInfo(_) => "invalid_server_info",
            ResultError::Notification { .. } => "notification",
        }
    }
    fn rule(&self) -> Option<&'static str> {
        None
    }
    fn errors(&self) -> std::borrow::Cow<'_, [ValidationError]> {
        let message = self.to_string();
        match self {
            ResultError::InvalidServerInfo(errors) => std::borrow::Cow::Borrowed(errors),
            ResultError::NotAnObject { .. } => mcpgen_runtime::__rt::single("", "type", None, message),
            ResultError::MetaNotAnObject { .. } => mcpgen_runtime::__rt::single("/_meta", "type", None, message),
            ResultError::Notification { .. } => mcpgen_runtime::__rt::single("", "", None, message),
        }
    }
}

impl std::fmt::Display for ResultError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResultError::NotAnObject { found } => write!(f, "a result must be a JSON object, found {found}"),
            ResultError::MetaNotAnObject { found } => write!(f, "/_meta: `_meta` must be an object, found {found}"),
            ResultError::InvalidServerInfo(errors) => {
                write!(f, "the server info is not a valid `Implementation`:")?;
                for e in errors {
                    write!(f, " {e};")?;
                }
                Ok(())
            }
            ResultError::Notification { method } => write!(f, "`{method}` is a notification: there is no id to answer"),
        }
    }
}
impl std::error::Error for ResultError {}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The success response to the request `id` (echoed exactly, string or integer: ID-3):
/// `{"jsonrpc":"2.0","id":…,"result":…}`. `result` is any result: a generated type, a
/// [`Value`], or the output of [`complete_result`].
///
/// ```
/// use mcpgen::protocol::result_response;
/// use mcpgen::Value;
///
/// let result = mcpgen::json::Tape::parse(r#"{"resultType":"complete"}"#).unwrap();
/// let response = result_response(&Value::from("req-7"), &mcpgen::json::JsonView::to_value(&result.root()));
/// assert_eq!(response.to_json_string(), r#"{"jsonrpc":"2.0","id":"req-7","result":{"resultType":"complete"}}"#);
/// ```
pub fn result_response<R: ToJson + ?Sized>(id: &Value, result: &R) -> Value {
    let mut m = Map::new();
    m.push("jsonrpc", Value::String("2.0".into()));
    m.push("id", id.clone());
    m.push("result", result.to_value());
    Value::Object(m)
}

/// The shape `complete_result` stamps by: the method's, or the generic `Result`'s for a
/// method the revision does not define.
fn shape_for(revision: Revision, method: &str) -> &'static ResultShape {
    revision.result_shape(method).unwrap_or_else(|| revision.generic_result_shape())
}

/// A complete result for a request of `method` under `revision`, stamped where the
/// revision's result definition declares the fields (the generated `ResultShape` table):
/// `resultType: "complete"` (RESULT-1; set, replacing any other value), and
/// `_meta["io.modelcontextprotocol/serverInfo"]` from `server_info` (RESULT-7 / META-11; an
/// entry the result already has is kept, `None` means configured off). Legacy revisions
/// (≤ 2025-11-25) declare neither field: the result is returned as it is, and `server_info`
/// is not used. Everything else in `result` is kept.
///
/// ```
/// use mcpgen::protocol::{complete_result, result_response};
/// use mcpgen::{json::Tape, json::JsonView, MessageOptions, Revision, Value};
///
/// let rev = Revision::parse("2026-07-28").unwrap();
/// let server = Tape::parse(r#"{"name":"weather","version":"1.0.0"}"#).unwrap().root().to_value();
/// let tool_result = Tape::parse(r#"{"content":[{"type":"text","text":"Sunny"}]}"#).unwrap().root().to_value();
/// let result = complete_result(rev, "tools/call", &tool_result, Some(&server)).unwrap();
/// let response = result_response(&Value::Number(7.into()), &result);
/// let text = response.to_json_string();
/// assert!(text.contains(r#""resultType":"complete""#));
/// assert!(text.contains(r#""io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}"#));
/// mcpgen::protocol::validate_message(rev, &text, &MessageOptions::new()).unwrap();
///
/// // 2025-11-25 results have neither field: nothing is added.
/// let legacy = Revision::parse("2025-11-25").unwrap();
/// let result = complete_result(legacy, "tools/call", &tool_result, Some(&server)).unwrap();
/// assert_eq!(result, tool_result);
/// ```
pub fn complete_result<R: ToJson + ?Sized>(
    revision: Revision,
    method: &str,
    result: &R,
    server_info: Option<&Value>,
) -> Result<Value, ResultError> {
    let shape = shape_for(revision, method);
    let mut result = result.to_value();
    let Value::Object(m) = &mut result else { return Err(ResultError::NotAnObject { found: kind_name(&result) }) };
    if shape.result_type {
        m.insert("resultType", Value::String("complete".into()));
    }
    if let Some(info) = server_info.filter(|_| shape.declares_meta_key(meta_keys::SERVER_INFO)) {
        // The revision's own definition of the value: one validator, the schema's.
        crate::validate_view(revision, "Implementation", &info, Options::default()).map_err(|e| match e {
            crate::DecodeError::Invalid(errors) => ResultError::InvalidServerInfo(errors),
            other => ResultError::InvalidServerInfo(vec![ValidationError::new("", "$ref", other.to_string())]),
        })?;
        if m.get("_meta").is_none() {
            m.insert("_meta", Value::Object(Map::new()));
        }
        match m.get_mut("_meta") {
            Some(Value::Object(meta)) if !meta.contains_key(meta_keys::SERVER_INFO) => {
                meta.insert(meta_keys::SERVER_INFO, info.clone());
            }
            Some(Value::Object(_)) | None => {}
            Some(other) => return Err(ResultError::MetaNotAnObject { found: kind_name(other) }),
        }
    }
    Ok(result)
}

/// [`complete_result`] wrapped in [`result_response`] for a request [`super::check_request`]
/// accepted: its revision, method and id.
pub fn complete_response<R: ToJson + ?Sized>(
    request: &AcceptedRequest,
    result: &R,
    server_info: Option<&Value>,
) -> Result<Value, ResultError> {
    let Some(id) = &request.id else { return Err(ResultError::Notification { method: request.method.clone() }) };
    let result = complete_result(request.revision, &request.method, result, server_info)?;
    Ok(result_response(id, &result))
}

impl ProtocolError {
    /// The one constructor every refusal goes through: JSON-RPC `code` (one of
    /// [`crate::error_codes`], or an application's), the message, the request id to echo
    /// (`None`: no `id` member), the HTTP status and the rule (an id of [`crate::rules::id`]).
    /// No `data`, no validation errors: add them with [`ProtocolError::with_data`] and
    /// [`ProtocolError::with_errors`].
    pub fn new(code: i64, message: impl Into<String>, id: Option<Value>, http_status: u16, rule: &'static str) -> Self {
        ProtocolError {
            code,
            message: message.into(),
            data: None,
            id,
            http_status,
            rule,
            errors: Vec::new(),
            legacy_initialize: false,
        }
    }

    /// The same error with `error.data`.
    pub fn with_data(mut self, data: Option<Value>) -> Self {
        self.data = data;
        self
    }

    /// The same error with the validation errors behind it.
    pub fn with_errors(mut self, errors: Vec<ValidationError>) -> Self {
        self.errors = errors;
        self
    }

    /// The same error answering request `id` (errors built before the id is known, such as
    /// [`super::negotiate_version`]'s, have none).
    pub fn with_id(mut self, id: Option<Value>) -> Self {
        self.id = id;
        self
    }
}

/// -32602 Invalid params (ERR-1, ERR-11: an unknown tool, a bad argument, an unknown resource)
/// answering request `id`, with optional `data`. HTTP 200: the request itself was well formed
/// (AMB-10). Send it with [`ProtocolError::to_response`].
///
/// ```
/// use mcpgen::protocol::invalid_params_error;
/// use mcpgen::Value;
///
/// let e = invalid_params_error(Some(Value::Number(3.into())), "Unknown tool: `get_wether`", None);
/// assert_eq!(
///     e.to_response_json(),
///     r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: `get_wether`"}}"#
/// );
/// ```
pub fn invalid_params_error(id: Option<Value>, message: impl Into<String>, data: Option<Value>) -> ProtocolError {
    let mut e = ProtocolError::new(error_codes::INVALID_PARAMS_ERROR, message, id, 200, id::ERR_1);
    e.data = data;
    e
}

/// -32022 Unsupported protocol version (VER-1, ERR-10, HTTP 400) answering request `id`:
/// `data.supported` (the server's versions) and `data.requested` (echoed).
///
/// ```
/// use mcpgen::protocol::unsupported_version_error;
/// use mcpgen::Value;
///
/// let e = unsupported_version_error(Some(Value::from("a")), "2099-01-01", &["2026-07-28"]);
/// assert_eq!(
///     e.to_response_json(),
///     concat!(r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32022,"#,
///         r#""message":"Unsupported protocol version `2099-01-01`; supported: 2026-07-28","#,
///         r#""data":{"supported":["2026-07-28"],"requested":"2099-01-01"}}}"#)
/// );
/// ```
pub fn unsupported_version_error<S: AsRef<str>>(id: Option<Value>, requested: &str, supported: &[S]) -> ProtocolError {
    let list: Vec<&str> = supported.iter().map(AsRef::as_ref).collect();
    let mut data = Map::new();
    data.push("supported", Value::Array(list.iter().map(|s| Value::String((*s).to_owned())).collect()));
    data.push("requested", Value::String(requested.to_owned()));
    let mut e = ProtocolError::new(
        error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR,
        format!("Unsupported protocol version `{requested}`; supported: {}", list.join(", ")),
        id,
        400,
        id::VER_1,
    );
    e.data = Some(Value::Object(data));
    e
}
