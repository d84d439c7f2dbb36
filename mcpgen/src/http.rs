//! Streamable HTTP headers that mirror a message body (HTTP-10, XHDR-1..9): the standard
//! `Mcp-Method` / `Mcp-Name` request headers, the `x-mcp-header` bindings a tool declares in its
//! `inputSchema`, the `Mcp-Param-*` headers of a `tools/call`, and the Base64 sentinel that
//! carries values which are not header-safe.
//!
//! A client computes the headers from the body it is about to send; a server decodes them with
//! [`decode_header_value`] and compares them with the body. [`sse`] reads the events of a
//! response stream as they arrive. The header names, the hop-by-hop list and the
//! DNS-rebinding policy every mcpgen peer uses ([`HostPolicy`]) are here too.
//!
//! ```
//! use serde_json::json;
//! use mcpgen::http::{header_bindings, param_headers, standard_headers};
//!
//! let schema = json!({"type": "object", "properties": {
//!     "region": {"type": "string", "x-mcp-header": "Region"},
//!     "query": {"type": "string"}}});
//! let bindings = header_bindings(&schema).unwrap();
//! let params = json!({"name": "search", "arguments": {"region": "Hello, 世界", "query": "x"}});
//! let mut headers = standard_headers("tools/call", Some(&params));
//! headers.extend(param_headers(&bindings, &params["arguments"]).unwrap());
//! assert_eq!(headers, vec![
//!     ("Mcp-Method".to_owned(), "tools/call".to_owned()),
//!     ("Mcp-Name".to_owned(), "search".to_owned()),
//!     ("Mcp-Param-Region".to_owned(), "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()),
//! ]);
//! ```

pub mod sse;
mod vocab;

pub use vocab::{
    is_hop_by_hop, HostPolicy, HostRefusal, HOP_BY_HOP, LAST_EVENT_ID, METHOD, NAME, PROTOCOL_VERSION, SESSION_ID,
};

use std::borrow::Cow;
use std::fmt;

use crate::json::pointer as json_pointer;
use crate::json::{JsonView, Kind};
use crate::rules::id;
use crate::{CoreError, ValidationError};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use mcpgen_runtime::__rt::single;

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// The largest integer a mirrored header may carry (XHDR-4: ±(2^53 − 1)).
pub const MAX_HEADER_INTEGER: i64 = (1 << 53) - 1;

/// XHDR-8: the header form of `value`. Plain when it is visible ASCII (0x21–0x7E) with inner
/// spaces only and does not look like a sentinel; otherwise `=?base64?<standard padded Base64
/// of the UTF-8>?=`. The empty string is Base64-encoded too (`=?base64??=`), since some HTTP
/// stacks drop empty header values (AMB-13).
pub fn encode_header_value(value: &str) -> Cow<'_, str> {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !looks_like_sentinel(value);
    if plain {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("{SENTINEL_START}{}{SENTINEL_END}", STANDARD.encode(value.as_bytes())))
    }
}

fn looks_like_sentinel(value: &str) -> bool {
    value.len() >= SENTINEL_START.len() + SENTINEL_END.len()
        && value.starts_with(SENTINEL_START)
        && value.ends_with(SENTINEL_END)
}

/// Why a header value cannot be decoded (XHDR-9).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderValueError {
    /// The sentinel's payload is not standard Base64.
    #[non_exhaustive]
    Base64 { value: String },
    /// The Base64 payload is not UTF-8.
    #[non_exhaustive]
    Utf8 { value: String },
    /// A plain value with a byte that is not visible ASCII or a space.
    #[non_exhaustive]
    InvalidCharacter { value: String, byte: u8 },
}

impl fmt::Display for HeaderValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderValueError::Base64 { value } => {
                write!(f, "header value {value:?}: the sentinel does not hold Base64")
            }
            HeaderValueError::Utf8 { value } => write!(f, "header value {value:?}: the Base64 payload is not UTF-8"),
            HeaderValueError::InvalidCharacter { value, byte } => {
                write!(f, "header value {value:?}: byte 0x{byte:02x} is not allowed in a plain value")
            }
        }
    }
}
impl std::error::Error for HeaderValueError {}

/// Kinds `base64`, `utf8`, `invalid_character`; rule XHDR-9.
impl CoreError for HeaderValueError {
    fn kind(&self) -> &'static str {
        match self {
            HeaderValueError::Base64 { .. } => "base64",
            HeaderValueError::Utf8 { .. } => "utf8",
            HeaderValueError::InvalidCharacter { .. } => "invalid_character",
        }
    }
    fn rule(&self) -> Option<&'static str> {
        Some(id::XHDR_9)
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        single("", "", Some(id::XHDR_9), self.to_string())
    }
}

/// XHDR-9: the value a header carries, the sentinel decoded.
pub fn decode_header_value(value: &str) -> Result<Cow<'_, str>, HeaderValueError> {
    if looks_like_sentinel(value) {
        let payload = &value[SENTINEL_START.len()..value.len() - SENTINEL_END.len()];
        let bytes = STANDARD.decode(payload).map_err(|_| HeaderValueError::Base64 { value: value.to_owned() })?;
        return String::from_utf8(bytes)
            .map(Cow::Owned)
            .map_err(|_| HeaderValueError::Utf8 { value: value.to_owned() });
    }
    match value.bytes().find(|b| !(0x20..=0x7e).contains(b) && *b != b'\t') {
        Some(byte) => Err(HeaderValueError::InvalidCharacter { value: value.to_owned(), byte }),
        None => Ok(Cow::Borrowed(value)),
    }
}

/// Whether a `Content-Type` value (`None`: the header was absent) names the media type `media`
/// (`application/json`, `text/event-stream`): the type before any `;` parameters, trimmed,
/// compared without regard to case. The one `Content-Type` reading of mcpgen: the conversation
/// checker (HTTP-6), `mcpgen proxy --listen`, the probe's HTTP peer and the reference peers all
/// decide by it. `text/event-streamx` is not `text/event-stream`.
///
/// ```
/// use mcpgen::http::is_media;
/// assert!(is_media(Some("Text/Event-Stream; charset=utf-8"), "text/event-stream"));
/// assert!(!is_media(Some("text/event-streamx"), "text/event-stream"));
/// assert!(!is_media(None, "application/json"));
/// ```
pub fn is_media(content_type: Option<&str>, media: &str) -> bool {
    content_type.and_then(|t| t.split(';').next()).is_some_and(|t| t.trim().eq_ignore_ascii_case(media))
}

/// HTTP-10: the standard headers of a request POST — `Mcp-Method` (the body's `method`) and,
/// for `tools/call` and `prompts/get`, `Mcp-Name` (`params.name`), for `resources/read`
/// `Mcp-Name` (`params.uri`), for an extension's methods the member it names (the Tasks
/// extension's `tasks/get`, `tasks/update` and `tasks/cancel`: `params.taskId`, TASK-28),
/// encoded by [`encode_header_value`].
pub fn standard_headers<'v>(method: &str, params: Option<impl JsonView<'v>>) -> Vec<(String, String)> {
    let mut out = vec![("Mcp-Method".to_owned(), method.to_owned())];
    if let Some(name) = name_param(method).and_then(|k| params?.get(k)?.as_str()) {
        out.push(("Mcp-Name".to_owned(), encode_header_value(&name).into_owned()));
    }
    out
}

/// HTTP-10: the member of `params` that `Mcp-Name` mirrors for `method` (`name` for
/// `tools/call` and `prompts/get`, `uri` for `resources/read`, the member a pinned extension
/// names for its methods — `taskId` for the Tasks extension's `tasks/get`, `tasks/update` and
/// `tasks/cancel`, TASK-28), `None` when the method has no `Mcp-Name`. What
/// [`standard_headers`] writes and [`crate::protocol::check_http_headers`] checks.
pub fn name_param(method: &str) -> Option<&'static str> {
    name_header(method).map(|(member, _)| member)
}

/// [`name_param`] and the rule that requires the header (HTTP-11, or the extension's).
pub(crate) fn name_header(method: &str) -> Option<(&'static str, &'static str)> {
    match method {
        "tools/call" | "prompts/get" => Some(("name", id::HTTP_11)),
        "resources/read" => Some(("uri", id::HTTP_11)),
        _ => crate::ext::Negotiated::name_header(method),
    }
}

/// The JSON type of a mirrored parameter (XHDR-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderValueKind {
    String,
    Integer,
    Boolean,
}

/// One `x-mcp-header` annotation: the argument at `path` is mirrored as `Mcp-Param-<header>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderBinding {
    /// Property names from the root of `arguments` to the annotated one.
    pub path: Vec<String>,
    /// The annotation's value, as written (`Region`).
    pub header: String,
    pub kind: HeaderValueKind,
}

impl HeaderBinding {
    /// The full header name, `Mcp-Param-<header>`.
    pub fn header_name(&self) -> String {
        format!("Mcp-Param-{}", self.header)
    }
}

/// Why a tool's `x-mcp-header` annotations make it unusable over HTTP (XHDR-6: drop the tool,
/// keep the others).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeaderBindingError {
    /// XHDR-2 (name), XHDR-3 (duplicate), XHDR-4 (type) or XHDR-5 (position).
    pub rule: &'static str,
    /// JSON pointer to the offending annotation inside `inputSchema`.
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for HeaderBindingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "(root)" } else { &self.pointer };
        write!(f, "x-mcp-header at {at} ({}): {}", self.rule, self.message)
    }
}
impl std::error::Error for HeaderBindingError {}

/// Kind by rule: `header_name` (XHDR-2), `duplicate_header` (XHDR-3), `header_type` (XHDR-4),
/// `header_position` (XHDR-5); one entry at its pointer with keyword `x-mcp-header`.
impl CoreError for HeaderBindingError {
    fn kind(&self) -> &'static str {
        match self.rule {
            id::XHDR_2 => "header_name",
            id::XHDR_3 => "duplicate_header",
            id::XHDR_4 => "header_type",
            _ => "header_position",
        }
    }
    fn rule(&self) -> Option<&'static str> {
        Some(self.rule)
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        single(self.pointer.clone(), "x-mcp-header", Some(self.rule), self.message.clone())
    }
}

/// Keywords whose value is one subschema, an array of them, or a map of them; an annotation
/// below any of them is not on a `properties` path (XHDR-5).
const SUBSCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "unevaluatedItems",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
    "additionalProperties",
    "patternProperties",
    "unevaluatedProperties",
    "dependentSchemas",
    "propertyNames",
];

/// XHDR-2..5: the `x-mcp-header` bindings of a tool's `inputSchema` (in `serde_json` map order), or the
/// first reason the tool must be dropped. Only keyword positions count: a property *named*
/// `x-mcp-header`, or the text inside `const`/`default`/`enum`/`examples`, is not an annotation.
pub fn header_bindings<'v>(input_schema: impl JsonView<'v>) -> Result<Vec<HeaderBinding>, HeaderBindingError> {
    let mut out = Vec::new();
    walk(&input_schema, &mut Vec::new(), true, &mut String::new(), &mut out)?;
    Ok(out)
}

/// A value as JSON text, for messages.
fn json_text<'v>(v: &impl JsonView<'v>) -> String {
    crate::json::to_json_string(&v.to_value())
}

/// One schema of the walk (`path`: the property names from the root, all through `properties`
/// while `on_property_path`; `pointer`: where it is): its binding, then every schema below it.
fn walk<'v, V: JsonView<'v>>(
    schema: &V,
    path: &mut Vec<String>,
    on_property_path: bool,
    pointer: &mut String,
    out: &mut Vec<HeaderBinding>,
) -> Result<(), HeaderBindingError> {
    if schema.kind() != Kind::Object {
        return Ok(());
    }
    if let Some(annotation) = schema.get("x-mcp-header") {
        let found = binding(schema, &annotation, (path, on_property_path), pointer, out)?;
        out.push(found);
    }
    for (key, value) in schema.entries() {
        let len = pointer.len();
        json_pointer::push(pointer, &key);
        if key == "properties" {
            if value.kind() == Kind::Object {
                walk_properties(&value, path, on_property_path, pointer, out)?;
            }
        } else if SUBSCHEMA_KEYWORDS.contains(&key.as_ref()) {
            walk_subschemas(&key, &value, path, pointer, out)?;
        }
        pointer.truncate(len);
    }
    Ok(())
}

/// The binding an `x-mcp-header` `annotation` of `schema` makes (at `pointer`): on a property
/// path (XHDR-5), a token name (XHDR-2) no earlier binding in `out` has (XHDR-3), on a
/// `string`, `integer` or `boolean` property (XHDR-4).
fn binding<'v, V: JsonView<'v>>(
    schema: &V,
    annotation: &V,
    (path, on_property_path): (&[String], bool),
    pointer: &str,
    out: &[HeaderBinding],
) -> Result<HeaderBinding, HeaderBindingError> {
    let at = format!("{pointer}/x-mcp-header");
    let fail = |rule, message: String| Err(HeaderBindingError { rule, pointer: at.clone(), message });
    if !on_property_path || path.is_empty() {
        return fail(id::XHDR_5, "only a property reached from the root through `properties` may be mirrored".into());
    }
    let Some(name) = annotation.as_str() else {
        return fail(id::XHDR_2, format!("the header name must be a string, found {}", json_text(annotation)));
    };
    if name.is_empty() {
        return fail(id::XHDR_2, "the header name is empty".into());
    }
    if let Some(c) = name.chars().find(|c| !is_tchar(*c)) {
        return fail(
            id::XHDR_2,
            format!("the header name {name:?} has {c:?}, which is not an RFC 9110 token character"),
        );
    }
    if let Some(first) = out.iter().find(|b| b.header.eq_ignore_ascii_case(&name)) {
        return fail(
            id::XHDR_3,
            format!(
                "header name {name:?} is already used by `{}` (names compare case-insensitively)",
                first.path.join(".")
            ),
        );
    }
    let kind = match schema.get("type").and_then(|t| t.as_str()).as_deref() {
        Some("string") => HeaderValueKind::String,
        Some("integer") => HeaderValueKind::Integer,
        Some("boolean") => HeaderValueKind::Boolean,
        _ => {
            let found =
                schema.get("type").map_or_else(|| "no `type`".to_owned(), |t| format!("type {}", json_text(&t)));
            return fail(
                id::XHDR_4,
                format!("only `string`, `integer` and `boolean` properties may be mirrored, found {found}"),
            );
        }
    };
    Ok(HeaderBinding { path: path.to_vec(), header: name.into_owned(), kind })
}

/// The schemas of a `properties` object: each property's, its name added to `path`.
fn walk_properties<'v, V: JsonView<'v>>(
    properties: &V,
    path: &mut Vec<String>,
    on_property_path: bool,
    pointer: &mut String,
    out: &mut Vec<HeaderBinding>,
) -> Result<(), HeaderBindingError> {
    for (name, sub) in properties.entries() {
        let len = pointer.len();
        json_pointer::push(pointer, &name);
        path.push(name.into_owned());
        let r = walk(&sub, path, on_property_path, pointer, out);
        path.pop();
        pointer.truncate(len);
        r?;
    }
    Ok(())
}

/// The schemas below a subschema keyword (`key`): an array of them, a map of them, or one.
/// None of them is on a property path.
fn walk_subschemas<'v, V: JsonView<'v>>(
    key: &str,
    value: &V,
    path: &mut Vec<String>,
    pointer: &mut String,
    out: &mut Vec<HeaderBinding>,
) -> Result<(), HeaderBindingError> {
    match value.kind() {
        Kind::Array => {
            for (i, sub) in value.items().enumerate() {
                let len = pointer.len();
                pointer.push_str(&format!("/{i}"));
                let r = walk(&sub, path, false, pointer, out);
                pointer.truncate(len);
                r?;
            }
        }
        Kind::Object if is_schema_map(key) => {
            for (name, sub) in value.entries() {
                let len = pointer.len();
                json_pointer::push(pointer, &name);
                let r = walk(&sub, path, false, pointer, out);
                pointer.truncate(len);
                r?;
            }
        }
        _ => walk(value, path, false, pointer, out)?,
    }
    Ok(())
}

fn is_schema_map(keyword: &str) -> bool {
    matches!(keyword, "$defs" | "definitions" | "patternProperties" | "dependentSchemas")
}

/// RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Why a `tools/call` argument cannot be mirrored (XHDR-4, XHDR-7): the call fails locally.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamHeaderError {
    /// The argument's JSON type is not the annotated property's type.
    #[non_exhaustive]
    WrongType { header: String, expected: HeaderValueKind, found: String },
    /// An integer beyond ±(2^53 − 1).
    #[non_exhaustive]
    OutOfRange { header: String, value: String },
}

impl fmt::Display for ParamHeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamHeaderError::WrongType { header, expected, found } => {
                write!(f, "Mcp-Param-{header}: expected a {expected:?} argument, found {found}")
            }
            ParamHeaderError::OutOfRange { header, value } => {
                write!(f, "Mcp-Param-{header}: {value} is beyond ±(2^53 − 1) (XHDR-4)")
            }
        }
    }
}
impl std::error::Error for ParamHeaderError {}

/// Kinds `wrong_type` (XHDR-7: the argument is not of the annotated type) and `out_of_range`
/// (XHDR-4).
impl CoreError for ParamHeaderError {
    fn kind(&self) -> &'static str {
        match self {
            ParamHeaderError::WrongType { .. } => "wrong_type",
            ParamHeaderError::OutOfRange { .. } => "out_of_range",
        }
    }
    fn rule(&self) -> Option<&'static str> {
        Some(match self {
            ParamHeaderError::WrongType { .. } => id::XHDR_7,
            ParamHeaderError::OutOfRange { .. } => id::XHDR_4,
        })
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        single("", "", CoreError::rule(self), self.to_string())
    }
}

/// XHDR-7: the `Mcp-Param-*` headers of a `tools/call` with these `arguments`: an absent or
/// `null` argument gets no header; strings go as they are, integers in decimal, booleans as
/// `true`/`false`, each encoded by [`encode_header_value`].
pub fn param_headers<'v>(
    bindings: &[HeaderBinding],
    arguments: impl JsonView<'v>,
) -> Result<Vec<(String, String)>, ParamHeaderError> {
    let mut out = Vec::new();
    for b in bindings {
        if let Some(text) = param_value(b, arguments.clone())? {
            out.push((b.header_name(), encode_header_value(&text).into_owned()));
        }
    }
    Ok(out)
}

/// XHDR-7: the text the argument bound by `b` mirrors, before encoding; `None` when the
/// argument is absent or `null` (no header).
pub(crate) fn param_value<'v>(
    b: &HeaderBinding,
    arguments: impl JsonView<'v>,
) -> Result<Option<String>, ParamHeaderError> {
    let mut at = Some(arguments);
    for key in &b.path {
        at = at.and_then(|v| v.get(key));
    }
    let Some(value) = at.filter(|v| v.kind() != Kind::Null) else { return Ok(None) };
    let wrong = || ParamHeaderError::WrongType { header: b.header.clone(), expected: b.kind, found: json_text(&value) };
    let text = match (b.kind, value.kind()) {
        (HeaderValueKind::String, Kind::String) => value.as_str().unwrap_or_default().into_owned(),
        (HeaderValueKind::Boolean, Kind::Bool) => value.as_bool().unwrap_or_default().to_string(),
        (HeaderValueKind::Integer, Kind::Number) => {
            let Some(n) = value.to_number() else { return Err(wrong()) };
            let int = n
                .as_i64()
                .or_else(|| Some(n.as_f64()).filter(|f| f.fract() == 0.0 && f.abs() < 1e19).map(|f| f as i64));
            match int {
                Some(i) if i.abs() <= MAX_HEADER_INTEGER => i.to_string(),
                Some(_) => return Err(ParamHeaderError::OutOfRange { header: b.header.clone(), value: n.to_string() }),
                None if n.as_u64().is_some() => {
                    return Err(ParamHeaderError::OutOfRange { header: b.header.clone(), value: n.to_string() })
                }
                None => return Err(wrong()),
            }
        }
        _ => return Err(wrong()),
    };
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn a_media_type_matches_whole_without_parameters_or_case() {
        for (value, media, want) in [
            (Some("text/event-stream"), "text/event-stream", true),
            (Some(" TEXT/Event-Stream ;charset=utf-8"), "text/event-stream", true),
            (Some("application/json;charset=UTF-8"), "application/json", true),
            (Some("text/event-streamx"), "text/event-stream", false),
            (Some("text/event-stream-x; a=b"), "text/event-stream", false),
            (Some("xtext/event-stream"), "text/event-stream", false),
            (Some("application/json-seq"), "application/json", false),
            (Some("text/event"), "text/event-stream", false),
            (Some(""), "application/json", false),
            (None, "application/json", false),
        ] {
            assert_eq!(is_media(value, media), want, "{value:?} as {media}");
        }
    }

    #[test]
    fn plain_values_stay_plain_and_unsafe_ones_use_the_sentinel() {
        for plain in ["us-west1", "us west 1", "42", "SELECT * FROM users", "file:///a%20b.txt"] {
            assert_eq!(encode_header_value(plain), plain);
        }
        for (value, encoded) in [
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("\tindented", "=?base64?CWluZGVudGVk?="),
            ("", "=?base64??="),
            ("=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="),
        ] {
            assert_eq!(encode_header_value(value), encoded, "{value:?}");
            assert_eq!(decode_header_value(encoded).unwrap(), value);
        }
        assert_eq!(decode_header_value("us-west1").unwrap(), "us-west1");
        assert!(matches!(decode_header_value("=?base64?***?="), Err(HeaderValueError::Base64 { .. })));
        assert!(matches!(decode_header_value("a\u{7f}"), Err(HeaderValueError::InvalidCharacter { byte: 0x7f, .. })));
    }

    #[test]
    fn standard_headers_name_the_task() {
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let h = standard_headers(method, Some(&json!({"taskId": "786512e2", "inputResponses": {}})));
            assert_eq!(
                h,
                vec![("Mcp-Method".to_owned(), method.to_owned()), ("Mcp-Name".to_owned(), "786512e2".to_owned())]
            );
        }
    }

    #[test]
    fn standard_headers_name_the_tool_prompt_or_resource() {
        let h = standard_headers("resources/read", Some(&json!({"uri": "https://e.com/r?id=1"})));
        assert_eq!(h[1], ("Mcp-Name".to_owned(), "https://e.com/r?id=1".to_owned()));
        assert_eq!(standard_headers("tools/list", Some(&json!({}))).len(), 1);
        assert_eq!(standard_headers("prompts/get", Some(&json!({"name": "é"})))[1].1, "=?base64?w6k=?=");
    }

    fn rule_of(schema: Value) -> &'static str {
        header_bindings(&schema).unwrap_err().rule
    }

    #[test]
    fn invalid_annotations_name_their_rule() {
        let prop = |p: Value| json!({"type": "object", "properties": {"v": p}});
        assert_eq!(rule_of(prop(json!({"type": "string", "x-mcp-header": ""}))), "XHDR-2");
        assert_eq!(rule_of(prop(json!({"type": "string", "x-mcp-header": "My Region"}))), "XHDR-2");
        assert_eq!(rule_of(prop(json!({"type": "string", "x-mcp-header": "Région"}))), "XHDR-2");
        assert_eq!(rule_of(prop(json!({"type": "string", "x-mcp-header": "A:B"}))), "XHDR-2");
        assert_eq!(rule_of(prop(json!({"type": "string", "x-mcp-header": "A\t1"}))), "XHDR-2");
        for t in ["object", "array", "null", "number"] {
            assert_eq!(rule_of(prop(json!({"type": t, "x-mcp-header": "V"}))), "XHDR-4", "{t}");
        }
        assert_eq!(rule_of(prop(json!({"x-mcp-header": "V"}))), "XHDR-4");
        let dup = json!({"properties": {
            "a": {"type": "string", "x-mcp-header": "MyField"},
            "b": {"type": "string", "x-mcp-header": "myfield"}}});
        assert_eq!(rule_of(dup), "XHDR-3");
        let under_items =
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}});
        assert_eq!(rule_of(under_items), "XHDR-5");
        assert_eq!(rule_of(json!({"$defs": {"x": {"type": "string", "x-mcp-header": "X"}}})), "XHDR-5");
        assert_eq!(rule_of(json!({"type": "object", "x-mcp-header": "Root"})), "XHDR-5");
    }

    #[test]
    fn bindings_follow_nested_properties_and_ignore_non_keyword_positions() {
        let schema = json!({"type": "object", "properties": {
            "x-mcp-header": {"type": "string"},
            "outer": {"type": "object", "properties": {"inner": {"type": "integer", "x-mcp-header": "Inner"}}},
            "flag": {"type": "boolean", "x-mcp-header": "Flag", "default": {"x-mcp-header": "Nope"}}}});
        let b = header_bindings(&schema).unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b.iter().find(|b| b.header == "Inner").unwrap().path, vec!["outer", "inner"]);
        let args = json!({"outer": {"inner": 42.0}, "flag": false});
        let h = param_headers(&b, &args).unwrap();
        assert_eq!(h.len(), 2);
        assert!(h.contains(&("Mcp-Param-Inner".into(), "42".into())));
        assert!(h.contains(&("Mcp-Param-Flag".into(), "false".into())));
        assert!(param_headers(&b, &json!({"flag": null})).unwrap().is_empty());
        assert!(matches!(
            param_headers(&b, &json!({"outer": {"inner": 9007199254740992u64}})),
            Err(ParamHeaderError::OutOfRange { .. })
        ));
        assert!(matches!(param_headers(&b, &json!({"flag": "yes"})), Err(ParamHeaderError::WrongType { .. })));
    }
}
