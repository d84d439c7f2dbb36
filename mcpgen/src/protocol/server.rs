//! Server side: [`super::check_request`] in mcpgen's check order (AMB-9), for the stdio message or
//! the HTTP body; the HTTP-only checks (`Origin`, method verb, header validation) belong to the
//! transport.

use crate::error_codes;
use crate::ext::{Negotiated, Registry};
use crate::json::{JsonView, Kind, Map, Tape, Value};
use crate::methods::{Direction, MethodInfo, MethodKind};
use crate::rules::id;
use crate::validate::{Options, Path, Policy, ValidationError};
use crate::CoreError;
use crate::Revision;

use super::hook::ProtocolRegistry;
use super::message::{self, is_modern, read_id, IdRead};
use super::result_check::find_method;
use super::{AcceptedRequest, ProtocolError, ServerConfig};

pub(crate) fn string_array(items: &[String]) -> Value {
    Value::Array(items.iter().map(|s| Value::String(s.clone())).collect())
}

fn refuse(code: i64, message: String, id: Option<Value>, http_status: u16, rule: &'static str) -> ProtocolError {
    ProtocolError::new(code, message, id, http_status, rule)
}

/// Versions of the config this build can serve, split by era.
struct Versions<'c> {
    config: &'c ServerConfig,
    modern: Vec<Revision>,
    legacy: Vec<Revision>,
}

impl<'c> Versions<'c> {
    fn new(config: &'c ServerConfig) -> Self {
        let mut modern = Vec::new();
        let mut legacy = Vec::new();
        for v in &config.supported_versions {
            if let Some(r) = Revision::parse(v) {
                if is_modern(r) {
                    modern.push(r);
                } else {
                    legacy.push(r);
                }
            }
        }
        Versions { config, modern, legacy }
    }
    fn supported_list(&self) -> String {
        self.config.supported_versions.join(", ")
    }
    /// -32022 with `data.supported` (the configured versions) and `data.requested`.
    fn unsupported(&self, requested: &str, id: Option<Value>, rule: &'static str) -> ProtocolError {
        let mut e = super::unsupported_version_error(id, requested, &self.config.supported_versions);
        e.rule = rule;
        e
    }
}

/// The `data` of a -32602 built from validation errors: pointers and messages a client can act on.
fn errors_data(errors: &[ValidationError]) -> Value {
    let mut list = Vec::new();
    for e in errors.iter().take(16) {
        let mut m = Map::new();
        m.push("pointer", Value::String(e.pointer.clone()));
        m.push("message", Value::String(e.message.clone()));
        list.push(Value::Object(m));
    }
    let mut data = Map::new();
    data.push("errors", Value::Array(list));
    Value::Object(data)
}

pub(crate) fn invalid_params(
    method: &str,
    errors: Vec<ValidationError>,
    id: Option<Value>,
    http_status: u16,
) -> ProtocolError {
    // MSG-7: one short sentence; the details are in `data.errors`.
    let first = errors
        .first()
        .map(|e| format!("{}: {}", if e.pointer.is_empty() { "(root)" } else { &e.pointer }, e.message))
        .unwrap_or_default();
    let more = match errors.len() {
        0 | 1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    let mut e = refuse(
        error_codes::INVALID_PARAMS_ERROR,
        format!("Invalid params for `{method}`: {first}{more}"),
        id,
        http_status,
        id::SCHEMA,
    );
    e.data = Some(errors_data(&errors));
    e.errors = errors;
    e
}

/// Validates the whole request definition and builds the typed value (lossless: unknown keys
/// and `_meta` entries survive, META-4).
fn decode_request<'v, V: JsonView<'v>>(
    rev: Revision,
    info: &MethodInfo,
    v: &V,
    id: Option<Value>,
    legacy: bool,
    refused_status: u16,
) -> Result<AcceptedRequest, ProtocolError> {
    let opts = Options::decoding(Policy::Lossless);
    let mut errors = Vec::new();
    if !message::validate_def_at(rev, info.request_def, v, &Path::Root, opts, &mut errors) {
        return Err(invalid_params(info.method, errors, id, refused_status));
    }
    match rev.build_view(info.request_def, v, &crate::decode::Builder::new(opts)) {
        Some(Some(request)) => Ok(AcceptedRequest {
            revision: rev,
            method: info.method.to_owned(),
            id,
            legacy,
            request,
            extension: None,
            set_aside_input_responses: Vec::new(),
        }),
        _ => Err(refuse(
            error_codes::INTERNAL_ERROR,
            format!("Internal error: `{}` validated but could not be built", info.request_def),
            id,
            500,
            id::ERR_1,
        )),
    }
}

/// Whether a server receives this method as a JSON-RPC request or notification.
fn served(info: &MethodInfo, kind: MethodKind) -> bool {
    info.kind == kind && matches!(info.direction, Direction::ClientToServer | Direction::Both)
}

pub(crate) fn check_request(bytes: &[u8], config: &ServerConfig) -> Result<AcceptedRequest, ProtocolError> {
    // Parse: UTF-8 and JSON (-32700, no id).
    let tape = Tape::parse_bytes(bytes).map_err(|e| {
        let rule = e.rule().unwrap_or(id::CORE_2);
        // The parser's entry (keyword `parse` at the root), as every surface reports it.
        refuse(error_codes::PARSE_ERROR, format!("Parse error: {e}"), None, 400, rule)
            .with_errors(e.errors().into_owned())
    })?;
    let v = tape.root();
    let versions = Versions::new(config);

    // Envelope (-32600), with the id when it can be read.
    let (id, method) = read_envelope(&v)?;
    let meta_version =
        v.get("params").and_then(|p| p.get("_meta")).and_then(|m| m.get(crate::meta_keys::PROTOCOL_VERSION));

    let Some(id) = id else {
        return check_notification(&v, &method, meta_version.and_then(|x| x.as_str()).as_deref(), &versions);
    };

    // ERA-1 / ERA-8: a legacy `initialize` has no modern `_meta`.
    if method == "initialize" && meta_version.is_none() {
        return legacy_initialize(&v, id, &versions);
    }

    let rev = match required_meta(&v).and_then(|()| request_revision(meta_version, &versions)) {
        Ok(rev) => rev,
        Err(e) => return Err(echoing(e, Some(id))),
    };

    // The extensions the server serves: a request of theirs is theirs to accept or refuse.
    let served_extensions = Negotiated::of(&config.extensions);
    if !served_extensions.is_empty() {
        if let Some(verdict) = Registry::gate(served_extensions, rev, &method, &v, &id) {
            return verdict;
        }
    }

    let info = match served_request(rev, &method, &versions) {
        Ok(info) => info,
        Err(e) => return Err(echoing(e, Some(id))),
    };

    // Params schema (-32602; HTTP 200 with the error body, AMB-10).
    decode_request(rev, info, &v, Some(id), false, 200)
}

/// The refusal `e`, built before the id was at hand, echoing `id`.
#[inline]
fn echoing(mut e: ProtocolError, id: Option<Value>) -> ProtocolError {
    e.id = id;
    e
}

/// The envelope (-32600): an object with a readable `id`, `jsonrpc: "2.0"`, a string `method`
/// and object `params`. The id (`None`: a notification) and the method; the refusal echoes the
/// id when it could be read.
#[inline]
fn read_envelope<'v, V: JsonView<'v>>(v: &V) -> Result<(Option<Value>, String), ProtocolError> {
    one_object(v)?;
    let id = match read_id(v) {
        IdRead::Absent => None,
        IdRead::Valid(id) => Some(id),
        IdRead::Invalid(msg) => {
            return Err(refuse(
                error_codes::INVALID_REQUEST_ERROR,
                format!("Invalid Request: {msg}"),
                None,
                400,
                id::ID_1,
            ))
        }
    };
    match jsonrpc_version(v).and_then(|()| method_of(v)).and_then(|m| params_object(v).map(|()| m)) {
        Ok(method) => Ok((id, method)),
        Err(e) => Err(echoing(e, id)),
    }
}

/// A message is one JSON object: not a batch (MSG-1), nothing else (CORE-2).
#[inline]
fn one_object<'v, V: JsonView<'v>>(v: &V) -> Result<(), ProtocolError> {
    match v.kind() {
        Kind::Object => Ok(()),
        Kind::Array => Err(refuse(
            error_codes::INVALID_REQUEST_ERROR,
            "Invalid Request: JSON-RPC batches are not supported; send one message per line or POST".into(),
            None,
            400,
            id::MSG_1,
        )),
        _ => Err(refuse(
            error_codes::INVALID_REQUEST_ERROR,
            format!("Invalid Request: a message must be a JSON object, found {}", v.describe()),
            None,
            400,
            id::CORE_2,
        )),
    }
}

/// `jsonrpc` is `"2.0"` (CORE-2); the refusal has no id yet.
#[inline]
fn jsonrpc_version<'v, V: JsonView<'v>>(v: &V) -> Result<(), ProtocolError> {
    if v.get("jsonrpc").is_some_and(|j| j.str_eq("2.0")) {
        return Ok(());
    }
    Err(refuse(
        error_codes::INVALID_REQUEST_ERROR,
        "Invalid Request: `jsonrpc` must be \"2.0\"".into(),
        None,
        400,
        id::CORE_2,
    ))
}

/// The `method`, a string (CORE-2); a response has none (MSG-5). The refusal has no id yet.
#[inline]
fn method_of<'v, V: JsonView<'v>>(v: &V) -> Result<String, ProtocolError> {
    match v.get("method") {
        Some(m) => match m.as_str() {
            Some(s) => Ok(s.into_owned()),
            None => Err(refuse(
                error_codes::INVALID_REQUEST_ERROR,
                format!("Invalid Request: `method` must be a string, found {}", m.describe()),
                None,
                400,
                id::CORE_2,
            )),
        },
        None if v.get("result").is_some() || v.get("error").is_some() => Err(refuse(
            error_codes::INVALID_REQUEST_ERROR,
            "Invalid Request: a server accepts requests and notifications, not responses".into(),
            None,
            400,
            id::MSG_5,
        )),
        None => Err(refuse(
            error_codes::INVALID_REQUEST_ERROR,
            "Invalid Request: missing `method`".into(),
            None,
            400,
            id::CORE_2,
        )),
    }
}

/// `params`, when present, is an object (CORE-2); the refusal has no id yet.
#[inline]
fn params_object<'v, V: JsonView<'v>>(v: &V) -> Result<(), ProtocolError> {
    match v.get("params") {
        Some(p) if p.kind() != Kind::Object => Err(refuse(
            error_codes::INVALID_REQUEST_ERROR,
            format!("Invalid Request: `params` must be an object, found {}", p.describe()),
            None,
            400,
            id::CORE_2,
        )),
        _ => Ok(()),
    }
}

/// Required `_meta` fields (-32602, HTTP 400, META-6), even for unknown methods; the refusal
/// has no id yet.
#[inline]
fn required_meta<'v, V: JsonView<'v>>(v: &V) -> Result<(), ProtocolError> {
    let Some((at, msg)) = message::missing_request_meta(v) else { return Ok(()) };
    let mut e = refuse(error_codes::INVALID_PARAMS_ERROR, format!("Invalid params: {msg}"), None, 400, id::META_6);
    e.errors.push(super::rules::rule_error(at, "required", id::META_6, msg));
    Err(e)
}

/// The revision `_meta` asks for (-32022, HTTP 400). Legacy versions are usable only through
/// `initialize`, never in per-request `_meta` (AMB-8). The refusal has no id yet.
#[inline]
fn request_revision<'v, V: JsonView<'v>>(
    meta_version: Option<V>,
    versions: &Versions<'_>,
) -> Result<Revision, ProtocolError> {
    let requested = meta_version.and_then(|x| x.as_str()).map(|s| s.into_owned()).unwrap_or_default();
    match versions.modern.iter().copied().find(|r| r.as_str() == requested) {
        Some(rev) => Ok(rev),
        None => Err(versions.unsupported(&requested, None, id::VER_1)),
    }
}

/// The method's row when a server receives it as a request (-32601, HTTP 404, MSG-9); the
/// refusal has no id yet.
#[inline]
fn served_request(rev: Revision, method: &str, versions: &Versions<'_>) -> Result<&'static MethodInfo, ProtocolError> {
    match find_method(rev, method) {
        Some(info) if served(info, MethodKind::Request) => Ok(info),
        _ => {
            let extra = if method == "initialize" {
                format!(" (this server uses per-request metadata; it supports: {})", versions.supported_list())
            } else {
                String::new()
            };
            // As `validate_message` and `DecodeError::errors` report it: `enum` at `/method`.
            let message = format!("Method not found: `{method}`{extra}");
            let entry = super::rules::rule_error("/method".into(), "enum", id::MSG_9, message.clone());
            Err(refuse(error_codes::METHOD_NOT_FOUND_ERROR, message, None, 404, id::MSG_9).with_errors(vec![entry]))
        }
    }
}

/// Notifications are never answered (MSG-4); a refused one gets an id-less error and HTTP 400
/// (HTTP-5); an unknown one is accepted and ignored (MSG-9, lib choice: 202).
fn check_notification<'v, V: JsonView<'v>>(
    v: &V,
    method: &str,
    meta_version: Option<&str>,
    versions: &Versions<'_>,
) -> Result<AcceptedRequest, ProtocolError> {
    let rev = match meta_version {
        Some(req) => match versions.modern.iter().chain(&versions.legacy).copied().find(|r| r.as_str() == req) {
            Some(r) => r,
            None => return Err(versions.unsupported(req, None, id::VER_1)),
        },
        None => match versions.modern.first().or(versions.legacy.first()) {
            Some(r) => *r,
            None => return Err(versions.unsupported("", None, id::VER_1)),
        },
    };
    if let Some(info) = find_method(rev, method).filter(|i| served(i, MethodKind::Notification)) {
        return decode_request(rev, info, v, None, false, 400);
    }
    // Unknown notification: keep it as a generic JSON-RPC notification.
    let def = message::envelope_def(rev, &message::Class::Notification(method.into()));
    let opts = Options::decoding(Policy::Lossless);
    let mut errors = Vec::new();
    if !message::validate_def_at(rev, def, v, &Path::Root, opts, &mut errors) {
        let mut e = refuse(
            error_codes::INVALID_REQUEST_ERROR,
            format!("Invalid Request: notification `{method}` is malformed"),
            None,
            400,
            id::CORE_2,
        );
        e.errors = errors;
        return Err(e);
    }
    match rev.build_view(def, v, &crate::decode::Builder::new(opts)) {
        Some(Some(request)) => Ok(AcceptedRequest {
            revision: rev,
            method: method.to_owned(),
            id: None,
            legacy: false,
            request,
            extension: None,
            set_aside_input_responses: Vec::new(),
        }),
        _ => Err(refuse(
            error_codes::INTERNAL_ERROR,
            format!("Internal error: `{def}` validated but could not be built"),
            None,
            500,
            id::ERR_1,
        )),
    }
}

/// ERA-1 (dual-era: route to the legacy adapter) or ERA-8 (modern-only: refuse, naming the
/// supported versions).
fn legacy_initialize<'v, V: JsonView<'v>>(
    v: &V,
    id: Value,
    versions: &Versions<'_>,
) -> Result<AcceptedRequest, ProtocolError> {
    let requested =
        v.get("params").and_then(|p| p.get("protocolVersion")).and_then(|x| x.as_str()).map(|s| s.into_owned());
    if versions.legacy.is_empty() {
        let mut data = Map::new();
        data.push("supported", string_array(&versions.config.supported_versions));
        let code = match &requested {
            Some(r) => {
                data.push("requested", Value::String(r.clone()));
                error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR
            }
            None => error_codes::INVALID_REQUEST_ERROR,
        };
        let mut e = refuse(
            code,
            format!(
                "This server only supports MCP protocol versions: {} (it does not use `initialize`; send per-request `_meta` instead)",
                versions.supported_list()
            ),
            Some(id),
            400,
            id::ERA_8,
        );
        e.data = Some(Value::Object(data));
        e.legacy_initialize = true;
        return Err(e);
    }
    // The client's version when the server has it, else the server's preferred legacy version
    // (the legacy handshake negotiates in the `initialize` result).
    let rev = requested
        .as_deref()
        .and_then(|r| versions.legacy.iter().copied().find(|x| x.as_str() == r))
        .unwrap_or(versions.legacy[0]);
    let info = find_method(rev, "initialize").ok_or_else(|| {
        refuse(
            error_codes::INTERNAL_ERROR,
            format!("revision {rev} lacks `initialize`"),
            Some(id.clone()),
            500,
            id::ERR_1,
        )
    })?;
    decode_request(rev, info, v, Some(id), true, 200)
}
