//! `mcpgen._native`: the Python face of the mcpgen core. It only marshals: every verdict comes
//! from the `mcpgen` crate, so Python, Rust, C and the CLI agree.
//!
//! - JSON text (`bytes`, `str`, `bytearray`, `memoryview`) is parsed and checked with the GIL
//!   released.
//! - Python data (`dict`, `list`, …) is read in place through [`view::PyView`], a
//!   [`mcpgen::JsonView`]: no JSON text round trip.
//! - Tool schemas ([`tools`]) and icons ([`icons`]): the core works on Rust-owned data, so those
//!   checks run with the GIL released whatever the input.
//! - Every core error becomes a Python exception in one place, [`convert::Failure::into_pyerr`].

mod conversation;
mod convert;
mod icons;
mod tools;
mod view;

use std::sync::OnceLock;

use mcpgen::ext::Extension;
use mcpgen::json::{Tape, TapeView};
use mcpgen::protocol::{self, CheckedResponse, DetectedEra, MessageKind, ServerConfig};
use mcpgen::{DecodeError, MessageOptions, Options, Policy, ResultOptions, Revision, Schema};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use convert::{error_details, input_bytes, json_to_py, py_type, str_text, value_to_py, with_input, Failure, Input};

/// Parses JSON text and runs `f` on the root, reusing this thread's node buffer (the
/// runtime's pool).
pub(crate) fn with_tape<T>(
    bytes: &[u8],
    f: impl FnOnce(&TapeView<'_, '_>) -> Result<T, DecodeError>,
) -> Result<T, DecodeError> {
    Tape::with_parsed(bytes, |tape| f(&tape.root()))?
}

fn revisions() -> &'static [Revision] {
    static ALL: OnceLock<Vec<Revision>> = OnceLock::new();
    ALL.get_or_init(Revision::all)
}

/// The `revision=` argument: a revision name of this build, default the newest.
fn revision_arg(revision: Option<&Bound<'_, PyString>>) -> Result<Revision, Failure> {
    let all = revisions();
    let Some(name) = revision else {
        return all.first().copied().ok_or_else(|| Failure::Usage("this build has no revision".into()));
    };
    let name = str_text(name)?;
    all.iter().copied().find(|r| r.as_str() == name).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|r| r.as_str()).collect();
        Failure::Usage(format!("unknown revision {name:?} (this build has {})", names.join(", ")))
    })
}

pub(crate) fn policy_arg(policy: Option<&Bound<'_, PyString>>) -> Result<Policy, Failure> {
    match policy {
        None => Ok(Policy::Lossless),
        Some(p) => str_text(p)?.parse::<Policy>().map_err(|e| Failure::Usage(e.to_string())),
    }
}

/// An extension named by its identifier (`io.modelcontextprotocol/tasks`) or short name (`tasks`).
fn extension_named(name: &str) -> Result<Extension, Failure> {
    Extension::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Extension::ALL.iter().map(|e| e.id()).collect();
        Failure::Usage(format!("unknown extension {name:?} (this build has {})", names.join(", ")))
    })
}

/// The `revision=` / `extension=` pair of a by-name call.
fn schema_arg(
    revision: Option<&Bound<'_, PyString>>,
    extension: Option<&Bound<'_, PyString>>,
) -> Result<Schema, Failure> {
    match (revision, extension) {
        (Some(_), Some(_)) => Err(Failure::Usage(
            "give revision= or extension=, not both: an extension's definitions are its own schema's".into(),
        )),
        (_, Some(e)) => Ok(Schema::Extension(extension_named(&str_text(e)?)?)),
        (r, None) => Ok(Schema::Revision(revision_arg(r)?)),
    }
}

/// The `extensions=` argument: the extensions negotiated (a server serves them, a message of
/// theirs is judged instead of unknown).
fn extensions_arg(extensions: Option<Vec<String>>) -> Result<Vec<Extension>, Failure> {
    extensions.unwrap_or_default().iter().map(|e| extension_named(e)).collect()
}

/// As the Rust API, an unknown definition name is reported even when the data is not JSON.
/// The name is not looked up beforehand (that would cost a lookup on every call): the
/// generated dispatch reports an unknown name, and only a parse error needs the check.
fn unknown_name_first(schema: Schema, name: &str, e: DecodeError) -> DecodeError {
    match e {
        DecodeError::Parse(_) => schema.definition(name).err().unwrap_or(e),
        e => e,
    }
}

/// [`unknown_name_first`] for Python data with no JSON form (refused before any validator,
/// which would have reported the name, runs).
fn unknown_name_over_data<T>(schema: Schema, name: &str, r: Result<T, Failure>) -> Result<T, Failure> {
    match r {
        Err(Failure::NotJson(m)) => Err(schema.definition(name).err().map_or(Failure::NotJson(m), Failure::Decode)),
        r => r,
    }
}

/// `is_valid`'s verdict on Python data with no JSON form: false, as on text that is not JSON.
fn false_when_not_json<T>(r: Result<T, Failure>, not_json: T) -> Result<T, Failure> {
    match r {
        Err(Failure::NotJson(_)) => Ok(not_json),
        r => r,
    }
}

fn check(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    def_name: Option<&Bound<'_, PyString>>,
    revision: Option<&Bound<'_, PyString>>,
    extension: Option<&Bound<'_, PyString>>,
    opts: Options,
) -> Result<(), Failure> {
    let schema = schema_arg(revision, extension)?;
    let input = Input::from_data(data)?;
    let result = match def_name {
        Some(name) => {
            let name = str_text(name)?;
            let name = &*name;
            let run = with_input(
                py,
                &input,
                |bytes| {
                    with_tape(bytes, |root| schema.validate_view(name, root, opts))
                        .map_err(|e| unknown_name_first(schema, name, e))
                },
                |v| schema.validate_view(name, v, opts),
            );
            unknown_name_over_data(schema, name, run)?
        }
        None => {
            let rev = message_revision(schema)?;
            let opts = MessageOptions::from(opts);
            with_input(
                py,
                &input,
                |bytes| with_tape(bytes, |root| protocol::validate_message(rev, root, &opts).map(drop)),
                |v| protocol::validate_message(rev, v, &opts).map(drop),
            )?
        }
    };
    Ok(result?)
}

/// Without `def_name` a call judges a whole message, which has a revision, not an extension.
fn message_revision(schema: Schema) -> Result<Revision, Failure> {
    match schema {
        Schema::Revision(rev) => Ok(rev),
        Schema::Extension(e) => Err(Failure::Usage(format!(
            "extension= names a definition's schema, so it needs def_name; to judge a whole message where {} is \
             negotiated, call validate_message(data, extensions=[{:?}])",
            e.id(),
            e.id()
        ))),
    }
}

/// Validates JSON text or Python data against a definition (or, without `def_name`, as an MCP
/// message, checked against the definition its `method` selects plus the protocol rules).
#[pyfunction]
#[pyo3(signature = (data, def_name=None, *, revision=None, extension=None, strict_formats=false, policy=None))]
fn validate(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    def_name: Option<&Bound<'_, PyString>>,
    revision: Option<&Bound<'_, PyString>>,
    extension: Option<&Bound<'_, PyString>>,
    strict_formats: bool,
    policy: Option<&Bound<'_, PyString>>,
) -> PyResult<()> {
    let run = || -> Result<(), Failure> {
        let opts = Options::default().policy(policy_arg(policy)?).strict_formats(strict_formats);
        check(py, data, def_name, revision, extension, opts)
    };
    run().map_err(|f| f.into_pyerr(py))
}

/// True when `validate` would return without raising a validation error.
#[pyfunction]
#[pyo3(signature = (data, def_name=None, *, revision=None, extension=None, strict_formats=false, policy=None))]
fn is_valid(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    def_name: Option<&Bound<'_, PyString>>,
    revision: Option<&Bound<'_, PyString>>,
    extension: Option<&Bound<'_, PyString>>,
    strict_formats: bool,
    policy: Option<&Bound<'_, PyString>>,
) -> PyResult<bool> {
    let run = || -> Result<bool, Failure> {
        let opts = Options::default().policy(policy_arg(policy)?).strict_formats(strict_formats);
        let schema = schema_arg(revision, extension)?;
        let input = Input::from_data(data)?;
        match def_name {
            Some(name) => {
                let name = str_text(name)?;
                let name = &*name;
                // Fail-fast only: no error is built. `None`: no such definition.
                let run = with_input(
                    py,
                    &input,
                    |bytes| {
                        with_tape(bytes, |root| Ok(schema.is_valid_view(name, root, opts))).or_else(|e| {
                            match unknown_name_first(schema, name, e) {
                                DecodeError::Parse(_) => Ok(Some(false)),
                                e => Err(e),
                            }
                        })
                    },
                    |v| Ok(schema.is_valid_view(name, v, opts)),
                );
                let verdict = false_when_not_json(unknown_name_over_data(schema, name, run), Ok(Some(false)))??;
                verdict.ok_or_else(|| Failure::Decode(DecodeError::unknown_definition(schema.label(), name)))
            }
            None => {
                let rev = message_revision(schema)?;
                let opts = MessageOptions::from(opts);
                let run = with_input(
                    py,
                    &input,
                    |bytes| protocol::is_valid_message(rev, bytes, &opts),
                    |v| protocol::is_valid_message(rev, v, &opts),
                );
                false_when_not_json(run, false)
            }
        }
    };
    run().map_err(|f| f.into_pyerr(py))
}

/// Method-aware validation of a whole message; returns what the message is.
#[pyfunction]
#[pyo3(signature = (data, *, revision=None, strict_formats=false, policy=None, extensions=None))]
fn validate_message<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    revision: Option<&Bound<'py, PyString>>,
    strict_formats: bool,
    policy: Option<&Bound<'py, PyString>>,
    extensions: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyAny>> {
    let run = || -> Result<MessageKind, Failure> {
        let rev = revision_arg(revision)?;
        let extensions = extensions_arg(extensions)?;
        let opts =
            MessageOptions::new().policy(policy_arg(policy)?).strict_formats(strict_formats).negotiated(&extensions);
        let input = Input::from_data(data)?;
        let kind = with_input(
            py,
            &input,
            |bytes| with_tape(bytes, |root| protocol::validate_message(rev, root, &opts)),
            |v| protocol::validate_message(rev, v, &opts),
        )?;
        Ok(kind?)
    };
    let (kind, method, code) = match run().map_err(|f| f.into_pyerr(py))? {
        MessageKind::Request { method } => ("request", Some(method), None),
        MessageKind::Notification { method } => ("notification", Some(method), None),
        MessageKind::Result => ("result", None, None),
        MessageKind::Error { code } => ("error", None, Some(code)),
    };
    py_type(py, "Message")?.call1((kind, method, code))
}

/// Decodes to the compact JSON text of the decoded value.
fn decode_text(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    def_name: &Bound<'_, PyString>,
    revision: Option<&Bound<'_, PyString>>,
    extension: Option<&Bound<'_, PyString>>,
    policy: Option<&Bound<'_, PyString>>,
) -> Result<String, Failure> {
    let schema = schema_arg(revision, extension)?;
    let policy = policy_arg(policy)?;
    let name = str_text(def_name)?;
    let name = &*name;
    let input = Input::from_data(data)?;
    let run = with_input(
        py,
        &input,
        |bytes| {
            with_tape(bytes, |root| schema.decode_view(name, root, policy).map(|d| d.to_json_string()))
                .map_err(|e| unknown_name_first(schema, name, e))
        },
        |v| schema.decode_view(name, v, policy).map(|d| d.to_json_string()),
    );
    let out = unknown_name_over_data(schema, name, run)?;
    Ok(out?)
}

/// Decodes as a definition under an unknown-key policy and returns plain Python data.
#[pyfunction]
#[pyo3(signature = (data, def_name, *, revision=None, extension=None, policy=None))]
fn decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    def_name: &Bound<'py, PyString>,
    revision: Option<&Bound<'py, PyString>>,
    extension: Option<&Bound<'py, PyString>>,
    policy: Option<&Bound<'py, PyString>>,
) -> PyResult<Bound<'py, PyAny>> {
    let text = decode_text(py, data, def_name, revision, extension, policy).map_err(|f| f.into_pyerr(py))?;
    json_to_py(py, &text)
}

/// Like `decode`, but returns the decoded value as compact JSON text (number text kept exactly).
#[pyfunction]
#[pyo3(signature = (data, def_name, *, revision=None, extension=None, policy=None))]
fn decode_json(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    def_name: &Bound<'_, PyString>,
    revision: Option<&Bound<'_, PyString>>,
    extension: Option<&Bound<'_, PyString>>,
    policy: Option<&Bound<'_, PyString>>,
) -> PyResult<String> {
    decode_text(py, data, def_name, revision, extension, policy).map_err(|f| f.into_pyerr(py))
}

/// Decodes a result by the method of the request it answers (`resultType` first). With
/// `skip_invalid_items`, the invalid items of a list result are left out and returned beside
/// the result: `(DecodedResult, [SkippedItem, ...])`.
#[pyfunction]
#[pyo3(signature = (data, request_method, *, revision=None, policy=None, skip_invalid_items=false))]
fn decode_result<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    request_method: &Bound<'py, PyString>,
    revision: Option<&Bound<'py, PyString>>,
    policy: Option<&Bound<'py, PyString>>,
    skip_invalid_items: bool,
) -> PyResult<Bound<'py, PyAny>> {
    type Decoded = (&'static str, String, Vec<mcpgen::SkippedItem>);
    let run = || -> Result<Decoded, Failure> {
        let rev = revision_arg(revision)?;
        let policy = policy_arg(policy)?;
        let method = str_text(request_method)?;
        let method = &*method;
        let input = Input::from_data(data)?;
        let opts = mcpgen::ResultOptions::method(method).policy(policy).skip_invalid_items(skip_invalid_items);
        let done = |d: mcpgen::DecodedResult| (d.variant, d.value.to_json_string(), d.skipped);
        let out = with_input(
            py,
            &input,
            |bytes| with_tape(bytes, |root| mcpgen::decode_result(rev, root, &opts).map(done)),
            |v| mcpgen::decode_result(rev, v, &opts).map(done),
        )?;
        Ok(out?)
    };
    let (variant, text, skipped) = run().map_err(|f| f.into_pyerr(py))?;
    let value = json_to_py(py, &text)?;
    let result = py_type(py, "DecodedResult")?.call1((variant, value, text))?;
    if !skip_invalid_items {
        return Ok(result);
    }
    let class = py_type(py, "SkippedItem")?;
    let items = PyList::empty(py);
    for item in &skipped {
        items.append(class.call1((item.pointer.as_str(), item.index, error_details(py, &item.errors)?))?)?;
    }
    Ok(PyTuple::new(py, [result, items.into_any()])?.into_any())
}

/// Server side: decides whether a request (or notification) should be served.
#[pyfunction]
#[pyo3(signature = (data, *, supported_versions=None, extensions=None))]
fn check_request<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    supported_versions: Option<Vec<String>>,
    extensions: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyAny>> {
    let run = || -> Result<_, Failure> {
        let config = match supported_versions {
            Some(v) => ServerConfig::new(v),
            None => ServerConfig::default(),
        }
        .with_extensions(extensions_arg(extensions)?);
        let bytes = input_bytes(py, &Input::from_data(data)?)?;
        let accepted = py.detach(|| {
            protocol::check_request(&bytes, &config)
                .map(|a| (a.revision, a.method, a.id, a.legacy, a.request.to_json_string()))
                .map_err(Failure::from)
        })?;
        Ok(accepted)
    };
    let (revision, method, id, legacy, request) = run().map_err(|f| f.into_pyerr(py))?;
    let id = match id {
        Some(id) => value_to_py(py, &id)?,
        None => py.None().into_bound(py),
    };
    let request = json_to_py(py, &request)?;
    py_type(py, "AcceptedRequest")?.call1((revision.as_str(), method, id, legacy, request))
}

/// Client side: checks a response to a request of `request_method`.
#[pyfunction]
#[pyo3(signature = (data, request_method, *, revision=None, extension_result_types=None))]
fn check_response<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    request_method: &Bound<'py, PyString>,
    revision: Option<&Bound<'py, PyString>>,
    extension_result_types: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyAny>> {
    let run = || -> Result<CheckedResponse, Failure> {
        let rev = revision_arg(revision)?;
        let method = str_text(request_method)?;
        let bytes = input_bytes(py, &Input::from_data(data)?)?;
        let ext = extension_result_types.unwrap_or_default();
        let ext: Vec<&str> = ext.iter().map(String::as_str).collect();
        Ok(py.detach(|| protocol::check_response(rev, &bytes, &ResultOptions::method(&method).extensions(&ext)))?)
    };
    match run().map_err(|f| f.into_pyerr(py))? {
        CheckedResponse::Result { id, result } => {
            let value = json_to_py(py, &result.value.to_json_string())?;
            py_type(py, "ResultResponse")?.call1((value_to_py(py, &id)?, result.variant, value))
        }
        CheckedResponse::Error { id, code, message, data } => {
            let id = match id {
                Some(id) => value_to_py(py, &id)?,
                None => py.None().into_bound(py),
            };
            let data = match data {
                Some(d) => value_to_py(py, &d)?,
                None => py.None().into_bound(py),
            };
            py_type(py, "ErrorResponse")?.call1((id, code, message, data))
        }
    }
}

/// Streamable HTTP: a modern request's `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
/// headers (`Mcp-Name` after decoding its Base64 sentinel form) against its body, before
/// `check_request`; raises the -32020 `ProtocolError` on a mismatch. `headers`: a mapping or
/// (name, value) pairs.
#[pyfunction]
fn check_http_headers(py: Python<'_>, headers: &Bound<'_, PyAny>, data: &Bound<'_, PyAny>) -> PyResult<()> {
    let pairs: Vec<(String, String)> = match headers.cast::<PyDict>() {
        Ok(d) => d.items().extract()?,
        Err(_) => headers.try_iter()?.map(|p| p.and_then(|p| p.extract())).collect::<PyResult<_>>()?,
    };
    let run = || -> Result<(), Failure> {
        let bytes = input_bytes(py, &Input::from_data(data)?)?;
        py.detach(|| {
            protocol::check_http_headers(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())), &bytes)
                .map_err(Failure::from)
        })
    };
    run().map_err(|f| f.into_pyerr(py))
}

/// VER-1: returns `requested` when supported, else raises the -32022 `ProtocolError`.
#[pyfunction]
fn negotiate_version(py: Python<'_>, requested: String, supported: Vec<String>) -> PyResult<String> {
    let supported: Vec<&str> = supported.iter().map(String::as_str).collect();
    protocol::negotiate_version(&requested, &supported).map_err(|e| Failure::from(e).into_pyerr(py))
}

/// META-1: True when `key` follows the `_meta` key grammar.
#[pyfunction]
fn is_valid_meta_key(key: String) -> bool {
    protocol::is_valid_meta_key(&key)
}

/// META-1: splits a `_meta` key, or raises `MetaKeyError` (kind, rule, message).
#[pyfunction]
fn check_meta_key<'py>(py: Python<'py>, key: String) -> PyResult<Bound<'py, PyAny>> {
    match protocol::check_meta_key(&key) {
        Ok(k) => py_type(py, "MetaKey")?.call1((k.prefix, k.name, k.reserved)),
        Err(e) => Err(Failure::from(e).into_pyerr(py)),
    }
}

/// ERA-2/3/5: which era a peer speaks, from the answer to a `server/discover` probe (None: no
/// answer or a timeout) or from the body of an HTTP 400 answering a modern request.
#[pyfunction]
#[pyo3(signature = (probe_response=None, *, http_400_body=None))]
fn detect_era<'py>(
    py: Python<'py>,
    probe_response: Option<&Bound<'py, PyAny>>,
    http_400_body: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let run = || -> Result<DetectedEra, Failure> {
        match (probe_response, http_400_body) {
            (Some(_), Some(_)) => {
                Err(Failure::Usage("pass either a probe response or an HTTP 400 body, not both".into()))
            }
            (None, Some(body)) => {
                let bytes = input_bytes(py, &Input::from_data(body)?)?;
                Ok(protocol::detect_era_from_http_400(&bytes))
            }
            (Some(r), None) => {
                let bytes = input_bytes(py, &Input::from_data(r)?)?;
                Ok(protocol::detect_era_from_probe(Some(&bytes)))
            }
            (None, None) => Ok(protocol::detect_era_from_probe(None)),
        }
    };
    let era = run().map_err(|f| f.into_pyerr(py))?;
    let (modern, supported) = match era {
        DetectedEra::Modern { supported } => (true, supported),
        DetectedEra::Legacy => (false, Vec::new()),
    };
    py_type(py, "Era")?.call1((modern, PyTuple::new(py, supported)?))
}

/// Names of every definition of a revision, in schema order.
#[pyfunction]
#[pyo3(signature = (revision=None))]
fn definitions(py: Python<'_>, revision: Option<&Bound<'_, PyString>>) -> PyResult<Vec<&'static str>> {
    let rev = revision_arg(revision).map_err(|f| f.into_pyerr(py))?;
    Ok(rev.definitions().iter().map(|d| d.name).collect())
}

/// The method table of a revision (method → request definition, params, results, direction).
#[pyfunction]
#[pyo3(signature = (revision=None))]
fn methods<'py>(py: Python<'py>, revision: Option<&Bound<'py, PyString>>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    use mcpgen::methods::{Direction, MethodKind};
    let rev = revision_arg(revision).map_err(|f| f.into_pyerr(py))?;
    let class = py_type(py, "MethodInfo")?;
    rev.methods()
        .iter()
        .map(|m| {
            let kind = match m.kind {
                MethodKind::Request => "request",
                MethodKind::Notification => "notification",
            };
            let direction = match m.direction {
                Direction::ClientToServer => "client_to_server",
                Direction::ServerToClient => "server_to_client",
                Direction::Both => "both",
                Direction::EmbeddedInput => "embedded_input",
                Direction::Unspecified => "unspecified",
            };
            let results = PyTuple::new(py, m.result_defs.iter().copied())?;
            class.call1((
                m.method,
                kind,
                direction,
                m.request_def,
                m.params_type,
                m.params_required,
                results,
                m.input_required,
            ))
        })
        .collect()
}

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let names: Vec<&str> = revisions().iter().map(|r| r.as_str()).collect();
    m.add("REVISIONS", PyTuple::new(py, names)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(is_valid, m)?)?;
    m.add_function(wrap_pyfunction!(validate_message, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(decode_json, m)?)?;
    m.add_function(wrap_pyfunction!(decode_result, m)?)?;
    m.add_function(wrap_pyfunction!(check_request, m)?)?;
    m.add_function(wrap_pyfunction!(check_http_headers, m)?)?;
    m.add_function(wrap_pyfunction!(check_response, m)?)?;
    m.add_function(wrap_pyfunction!(negotiate_version, m)?)?;
    m.add_function(wrap_pyfunction!(is_valid_meta_key, m)?)?;
    m.add_function(wrap_pyfunction!(check_meta_key, m)?)?;
    m.add_function(wrap_pyfunction!(detect_era, m)?)?;
    m.add_function(wrap_pyfunction!(definitions, m)?)?;
    m.add_function(wrap_pyfunction!(methods, m)?)?;
    m.add_function(wrap_pyfunction!(tools::check_tool, m)?)?;
    m.add_function(wrap_pyfunction!(tools::check_tools, m)?)?;
    m.add_function(wrap_pyfunction!(tools::validate_tool_arguments, m)?)?;
    m.add_function(wrap_pyfunction!(tools::validate_structured_content, m)?)?;
    m.add_class::<tools::ToolChecker>()?;
    m.add_class::<conversation::Conversation>()?;
    m.add_function(wrap_pyfunction!(icons::check_icon, m)?)?;
    m.add_function(wrap_pyfunction!(icons::check_icon_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(icons::same_origin, m)?)?;
    m.add_function(wrap_pyfunction!(icons::sniff_image, m)?)?;
    Ok(())
}
