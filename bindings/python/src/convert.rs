//! Marshalling between Python and the core: input kinds, JSON → Python objects, and the one
//! function that turns every core error into a Python exception ([`Failure::into_pyerr`]).

use std::borrow::Cow;

use mcpgen::icons::IconError;
use mcpgen::json::ParseError;
use mcpgen::json::{Kind, Tape};
use mcpgen::protocol::{MetaKeyError, ProtocolError, ResponseError};
use mcpgen::tools::{LimitError, SchemaError, ToolCallError, ToolSchemaErrors, ToolsJsonError};
use mcpgen::ArmFailure;
use mcpgen::{CoreError, DecodeError, JsonView, ToJson, ValidationError, Value};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyMemoryView, PyString, PyTuple};

use crate::view::{NotJsonData, Problem, PyView, ViewCx, MAX_DEPTH};

/// What a caller passed as `data`.
pub enum Input<'py> {
    /// JSON text in an immutable `bytes` (read without the GIL).
    Bytes(Bound<'py, PyBytes>),
    /// JSON text copied out of a mutable buffer (`bytearray`, `memoryview`).
    Buffer(Vec<u8>),
    /// JSON text in a `str`.
    Text(Bound<'py, PyString>),
    /// Already-parsed data (`dict`, `list`, …), read in place through [`PyView`].
    Object(Bound<'py, PyAny>),
}

impl<'py> Input<'py> {
    pub fn from_data(data: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
        // The common case of data, a plain dict: one pointer comparison.
        if data.is_exact_instance_of::<PyDict>() {
            return Ok(Input::Object(data.clone()));
        }
        if let Ok(b) = data.cast::<PyBytes>() {
            return Ok(Input::Bytes(b.clone()));
        }
        if let Ok(s) = data.cast::<PyString>() {
            return Ok(Input::Text(s.clone()));
        }
        if let Ok(b) = data.cast::<PyByteArray>() {
            return Ok(Input::Buffer(b.to_vec()));
        }
        if data.cast::<PyMemoryView>().is_ok() {
            let b = data.call_method0("tobytes")?;
            return Ok(Input::Buffer(b.cast::<PyBytes>()?.as_bytes().to_vec()));
        }
        Ok(Input::Object(data.clone()))
    }
}

/// UTF-8 of a Python `str`, borrowed where the ABI allows.
pub fn str_text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    crate::view::str_text(s)
}

/// Runs `f` on a JSON text input with the GIL released, or on a [`PyView`] of Python data with
/// it held. Python data is walked whole first, as the parser reads the whole text, and to the
/// parser's depth: a value with no JSON form anywhere in it is a [`Failure::NotJson`].
pub fn with_input<'py, T: Send>(
    py: Python<'py>,
    input: &Input<'py>,
    on_text: impl FnOnce(&[u8]) -> T + Send,
    on_view: impl FnOnce(&PyView<'_>) -> T,
) -> Result<T, Failure> {
    with_input_to(py, input, MAX_DEPTH, on_text, on_view)
}

/// [`with_input`] reading Python data to `max_depth` levels.
pub fn with_input_to<'py, T: Send>(
    py: Python<'py>,
    input: &Input<'py>,
    max_depth: usize,
    on_text: impl FnOnce(&[u8]) -> T + Send,
    on_view: impl FnOnce(&PyView<'_>) -> T,
) -> Result<T, Failure> {
    match input {
        Input::Bytes(b) => {
            let bytes = b.as_bytes();
            Ok(py.detach(|| on_text(bytes)))
        }
        Input::Buffer(v) => Ok(py.detach(|| on_text(v))),
        Input::Text(s) => {
            let text = str_text(s).map_err(Failure::Python)?;
            let bytes = text.as_bytes();
            Ok(py.detach(|| on_text(bytes)))
        }
        Input::Object(o) => {
            // SAFETY: `o` is alive for the whole call and the GIL is held; neither the walk nor
            // the view runs Python code, so the data cannot change meanwhile.
            let cx = unsafe { ViewCx::read(o.as_ptr(), max_depth) }.map_err(|e| not_json(py, e))?;
            Ok(on_view(&cx.root()))
        }
    }
}

/// Serializes any input to JSON bytes (for the protocol checks, which read messages as bytes).
pub fn input_bytes<'py>(py: Python<'py>, input: &Input<'py>) -> Result<Vec<u8>, Failure> {
    input_bytes_to(py, input, MAX_DEPTH)
}

/// [`input_bytes`] reading Python data to `max_depth` levels.
pub fn input_bytes_to<'py>(py: Python<'py>, input: &Input<'py>, max_depth: usize) -> Result<Vec<u8>, Failure> {
    with_input_to(py, input, max_depth, |b| b.to_vec(), |v| v.to_value().to_json_vec())
}

/// The message of data with no JSON form: where, and what.
fn not_json(py: Python<'_>, e: NotJsonData) -> Failure {
    let type_name = |obj: *mut pyo3::ffi::PyObject| -> String {
        // SAFETY: the object is part of the caller's data, alive for the call.
        let any = unsafe { Bound::from_borrowed_ptr(py, obj) };
        any.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
    };
    let what = match e.problem {
        Problem::Unsupported(obj) => {
            format!("`{}` is not JSON data (expected dict, list, tuple, str, int, float, bool or None)", type_name(obj))
        }
        Problem::NonStrKey(obj) => format!("dict keys must be str, found `{}`", type_name(obj)),
        Problem::NonFinite(f) => format!("{f} is not a JSON number"),
        Problem::BadString => "a str is not valid Unicode (lone surrogate): it has no UTF-8 form".into(),
        Problem::TooDeep(max) => format!("data nested deeper than {max} levels (or containing itself)"),
        Problem::TooLarge => "data with more than 2**32 - 2 values (counting shared ones each time)".into(),
    };
    let pointer = e.pointer();
    let at = if pointer.is_empty() { "the root".to_owned() } else { format!("`{pointer}`") };
    Failure::NotJson(format!("not JSON data at {at}: {what}"))
}

// ---- JSON → Python ------------------------------------------------------------------------------

/// Builds plain Python data from any JSON view: objects → dict, arrays → list, integer
/// literals → int (any size), other numbers → float.
pub fn to_py<'py, 'v, V: JsonView<'v>>(py: Python<'py>, v: &V) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v.kind() {
        Kind::Null => py.None().into_bound(py),
        Kind::Bool => pyo3::types::PyBool::new(py, v.as_bool().unwrap_or(false)).to_owned().into_any(),
        Kind::String => PyString::new(py, &v.as_str().unwrap_or_default()).into_any(),
        Kind::Number => {
            let n = v.to_number().ok_or_else(|| PyRuntimeError::new_err("number without text"))?;
            if n.is_integer_literal() {
                if let Some(i) = n.as_i64() {
                    i.into_pyobject(py)?.into_any()
                } else if let Some(u) = n.as_u64() {
                    u.into_pyobject(py)?.into_any()
                } else {
                    // Beyond 64 bits: Python's int parses the decimal text.
                    let text = n.to_string();
                    py.get_type::<pyo3::types::PyInt>().call1((text,))?
                }
            } else {
                n.as_f64().into_pyobject(py)?.into_any()
            }
        }
        Kind::Array => {
            let list = PyList::empty(py);
            for item in v.items() {
                list.append(to_py(py, &item)?)?;
            }
            list.into_any()
        }
        Kind::Object => {
            let dict = PyDict::new(py);
            for (k, x) in v.entries() {
                dict.set_item(PyString::new(py, &k), to_py(py, &x)?)?;
            }
            dict.into_any()
        }
    })
}

/// Parses JSON text the core produced and builds Python data from it.
pub fn json_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let tape = Tape::parse(text)
        .map_err(|e| PyRuntimeError::new_err(format!("internal error: core produced invalid JSON: {e}")))?;
    to_py(py, &tape.root())
}

pub fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, &v)
}

// ---- errors -------------------------------------------------------------------------------------

/// Every way a call can fail. [`Failure::into_pyerr`] is the one place that maps them to
/// Python exceptions.
pub enum Failure {
    Decode(DecodeError),
    Protocol(Box<ProtocolError>),
    Response(Box<ResponseError>),
    /// A tool whose own schemas are unusable (JSCHEMA-*).
    ToolSchema(Box<ToolSchemaErrors>),
    /// A tool-call instance refused: the tool's schema, the instance, or a cost limit.
    ToolCall(Box<ToolCallError>),
    /// An icon refused (ICON-*).
    Icon(IconError),
    /// A `_meta` key outside the META-1 grammar.
    MetaKey(MetaKeyError),
    /// A `limits=` key the core has no limit for.
    Limit(LimitError),
    /// A `check_tools` document that cannot be checked.
    ToolsJson(ToolsJsonError),
    /// Python data with a value that has no JSON form (its message): a `ParseError`, as the
    /// text form of such data is not JSON either.
    NotJson(String),
    /// A tools pin file that cannot be used (`Conversation(tools_baseline=…)`).
    Pin(mcpgen::tools::PinError),
    /// A bad argument (unknown revision or policy…).
    Usage(String),
    /// A Python error raised while reading the arguments.
    Python(PyErr),
}

impl From<DecodeError> for Failure {
    fn from(e: DecodeError) -> Self {
        Failure::Decode(e)
    }
}
impl From<ProtocolError> for Failure {
    fn from(e: ProtocolError) -> Self {
        Failure::Protocol(Box::new(e))
    }
}
impl From<ResponseError> for Failure {
    fn from(e: ResponseError) -> Self {
        Failure::Response(Box::new(e))
    }
}
impl From<ToolSchemaErrors> for Failure {
    fn from(e: ToolSchemaErrors) -> Self {
        Failure::ToolSchema(Box::new(e))
    }
}
impl From<ToolCallError> for Failure {
    fn from(e: ToolCallError) -> Self {
        match e {
            ToolCallError::Schema(e) => Failure::ToolSchema(Box::new(e)),
            e => Failure::ToolCall(Box::new(e)),
        }
    }
}
impl From<IconError> for Failure {
    fn from(e: IconError) -> Self {
        Failure::Icon(e)
    }
}
impl From<MetaKeyError> for Failure {
    fn from(e: MetaKeyError) -> Self {
        Failure::MetaKey(e)
    }
}
impl From<LimitError> for Failure {
    fn from(e: LimitError) -> Self {
        Failure::Limit(e)
    }
}
impl From<ToolsJsonError> for Failure {
    fn from(e: ToolsJsonError) -> Self {
        match e {
            ToolsJsonError::Parse(p) => Failure::Decode(DecodeError::Parse(p)),
            e => Failure::ToolsJson(e),
        }
    }
}
impl From<ParseError> for Failure {
    fn from(e: ParseError) -> Self {
        Failure::Decode(DecodeError::Parse(e))
    }
}
impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Python(e)
    }
}
impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        Python::attach(|py| f.into_pyerr(py))
    }
}

static TYPES: PyOnceLock<Py<pyo3::types::PyModule>> = PyOnceLock::new();

/// A class from `mcpgen._types`.
pub fn py_type<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let module = TYPES.get_or_try_init(py, || py.import("mcpgen._types").map(Bound::unbind))?;
    module.bind(py).getattr(name)
}

fn kwargs<'py>(py: Python<'py>, items: &[(&str, Bound<'py, PyAny>)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in items {
        d.set_item(*k, v)?;
    }
    Ok(d)
}

pub fn error_details<'py>(py: Python<'py>, errors: &[ValidationError]) -> PyResult<Bound<'py, PyList>> {
    let detail = py_type(py, "ErrorDetail")?;
    let arm_failure = py_type(py, "ArmFailure")?;
    fn one<'py>(
        py: Python<'py>,
        e: &ValidationError,
        detail: &Bound<'py, PyAny>,
        arm_failure: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arms: Vec<Bound<'py, PyAny>> = e
            .arms
            .iter()
            .map(|a: &ArmFailure| {
                let errs: Vec<Bound<'py, PyAny>> =
                    a.errors.iter().map(|x| one(py, x, detail, arm_failure)).collect::<PyResult<_>>()?;
                arm_failure.call1((a.arm, PyTuple::new(py, errs)?))
            })
            .collect::<PyResult<_>>()?;
        detail.call1((
            e.pointer.as_str(),
            e.schema_path.as_str(),
            e.keyword,
            e.rule,
            e.message.as_str(),
            PyTuple::new(py, arms)?,
        ))
    }
    let items: Vec<Bound<'py, PyAny>> =
        errors.iter().map(|e| one(py, e, &detail, &arm_failure)).collect::<PyResult<_>>()?;
    PyList::new(py, items)
}

/// `SchemaProblem` records (kind, pointer, uri, rule, message) of a tool's schema errors.
pub fn schema_problems<'py>(py: Python<'py>, errors: &[SchemaError]) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let class = py_type(py, "SchemaProblem")?;
    errors.iter().map(|e| class.call1((e.kind().as_str(), e.pointer(), e.uri(), e.rule(), e.message()))).collect()
}

impl Failure {
    /// The one conversion from core errors to Python exceptions.
    pub fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self.build(py) {
            Ok(e) => e,
            Err(e) => e,
        }
    }

    /// The exception for this failure, by variant (a Python error raised on the way instead).
    fn build(self, py: Python<'_>) -> PyResult<PyErr> {
        match self {
            Failure::Decode(e) => decode_exception(py, e),
            Failure::Protocol(e) => protocol_exception(py, &e),
            Failure::Response(e) => response_exception(py, &e),
            Failure::ToolSchema(e) => tool_schema_exception(py, &e),
            Failure::ToolCall(e) => tool_call_exception(py, &e),
            Failure::Icon(e) => icon_exception(py, &e),
            Failure::MetaKey(e) => meta_key_exception(py, &e),
            Failure::Limit(e) => limit_exception(py, &e),
            Failure::ToolsJson(e) => tools_json_exception(py, &e),
            Failure::NotJson(m) => not_json_exception(py, m),
            Failure::Pin(e) => pin_exception(py, &e),
            Failure::Usage(m) => Ok(PyValueError::new_err(m)),
            Failure::Python(e) => Ok(e),
        }
    }
}

/// An instance of the `mcpgen._types` exception `class`, made from `args` and `kw`, as the
/// error to raise.
fn raise(py: Python<'_>, class: &str, args: Bound<'_, PyTuple>, kw: Bound<'_, PyDict>) -> PyResult<PyErr> {
    let exc = py_type(py, class)?.call(args, Some(&kw))?;
    Ok(PyErr::from_value(exc))
}

/// A decode failure's exception: every one carries the core's entries
/// (`DecodeError::errors`); the variant picks the exception class.
fn decode_exception(py: Python<'_>, e: DecodeError) -> PyResult<PyErr> {
    match e {
        DecodeError::Parse(ref p) => {
            let kw = kwargs(
                py,
                &[
                    ("offset", p.offset.into_pyobject(py)?.into_any()),
                    ("line", p.line.into_pyobject(py)?.into_any()),
                    ("column", p.column.into_pyobject(py)?.into_any()),
                ],
            )?;
            let errors = error_details(py, &p.errors())?;
            raise(
                py,
                "ParseError",
                PyTuple::new(py, [p.to_string().into_pyobject(py)?.into_any(), errors.into_any()])?,
                kw,
            )
        }
        e @ (DecodeError::Invalid(_) | DecodeError::Protocol { .. } | DecodeError::UnknownMethod { .. }) => {
            let kind = if let DecodeError::Invalid(_) = e { "invalid" } else { "protocol" };
            let errors = error_details(py, &e.errors())?;
            raise(
                py,
                "ValidationError",
                PyTuple::new(
                    py,
                    [
                        e.to_string().into_pyobject(py)?.into_any(),
                        errors.into_any(),
                        kind.into_pyobject(py)?.into_any(),
                    ],
                )?,
                PyDict::new(py),
            )
        }
        ref e @ DecodeError::UnknownDefinition { revision, ref name, .. } => {
            let kw = kwargs(
                py,
                &[("revision", revision.into_pyobject(py)?.into_any()), ("name", name.into_pyobject(py)?.into_any())],
            )?;
            raise(py, "UnknownDefinitionError", PyTuple::new(py, [e.to_string()])?, kw)
        }
        e => Ok(PyRuntimeError::new_err(e.to_string())),
    }
}

/// A refused message's `ProtocolError`: the JSON-RPC error (code, data, id), its HTTP status,
/// rule and entries, and the whole response to send.
fn protocol_exception(py: Python<'_>, e: &ProtocolError) -> PyResult<PyErr> {
    let errors = error_details(py, &e.errors())?;
    let data = match &e.data {
        Some(d) => value_to_py(py, d)?,
        None => py.None().into_bound(py),
    };
    let id = match &e.id {
        Some(d) => value_to_py(py, d)?,
        None => py.None().into_bound(py),
    };
    let response = value_to_py(py, &e.to_response())?;
    let kw = kwargs(
        py,
        &[
            ("code", e.code.into_pyobject(py)?.into_any()),
            ("data", data),
            ("id", id),
            ("http_status", e.http_status.into_pyobject(py)?.into_any()),
            ("rule", e.rule.into_pyobject(py)?.into_any()),
            ("errors", errors.into_any()),
            ("legacy_initialize", pyo3::types::PyBool::new(py, e.legacy_initialize).to_owned().into_any()),
            ("response", response),
        ],
    )?;
    raise(py, "ProtocolError", PyTuple::new(py, [e.message.as_str()])?, kw)
}

/// A refused response's `ResponseError`: its rule and entries.
fn response_exception(py: Python<'_>, e: &ResponseError) -> PyResult<PyErr> {
    let errors = error_details(py, &e.errors())?;
    let kw = kwargs(py, &[("rule", e.rule.into_pyobject(py)?.into_any()), ("errors", errors.into_any())])?;
    raise(py, "ResponseError", PyTuple::new(py, [e.message.as_str()])?, kw)
}

/// A tool whose own schemas are unusable: `ToolSchemaError` with the tool and its problems.
fn tool_schema_exception(py: Python<'_>, e: &ToolSchemaErrors) -> PyResult<PyErr> {
    let errors = PyList::new(py, schema_problems(py, e.errors())?)?;
    let kw = kwargs(py, &[("tool", e.tool().into_pyobject(py)?.into_any()), ("errors", errors.into_any())])?;
    raise(py, "ToolSchemaError", PyTuple::new(py, [e.to_string()])?, kw)
}

/// A refused tool call's exception: `LimitExceededError` for a cost limit, else
/// `ValidationError`, with the instance's entries.
fn tool_call_exception(py: Python<'_>, e: &ToolCallError) -> PyResult<PyErr> {
    // `Schema` never gets here (see `From<ToolCallError>`); it has no instance errors.
    let class = match *e {
        ToolCallError::LimitExceeded(_) => "LimitExceededError",
        _ => "ValidationError",
    };
    let errors = error_details(py, e.errors())?;
    raise(
        py,
        class,
        PyTuple::new(py, [e.to_string().into_pyobject(py)?.into_any(), errors.into_any()])?,
        PyDict::new(py),
    )
}

/// A refused icon's `IconError`: its kind, rule and the core's message.
fn icon_exception(py: Python<'_>, e: &IconError) -> PyResult<PyErr> {
    let kw = kwargs(
        py,
        &[
            ("kind", e.kind.as_str().into_pyobject(py)?.into_any()),
            ("rule", e.rule().into_pyobject(py)?.into_any()),
            ("message", e.message.as_str().into_pyobject(py)?.into_any()),
        ],
    )?;
    raise(py, "IconError", PyTuple::new(py, [e.to_string()])?, kw)
}

/// A `_meta` key outside the grammar: `MetaKeyError` with its kind, rule and the key.
fn meta_key_exception(py: Python<'_>, e: &MetaKeyError) -> PyResult<PyErr> {
    let kw = kwargs(
        py,
        &[
            ("kind", e.kind().into_pyobject(py)?.into_any()),
            ("rule", e.rule().into_pyobject(py)?.into_any()),
            ("key", e.key().into_pyobject(py)?.into_any()),
        ],
    )?;
    raise(py, "MetaKeyError", PyTuple::new(py, [e.to_string()])?, kw)
}

/// An unknown `limits=` key: `LimitError` with its kind and the name.
fn limit_exception(py: Python<'_>, e: &LimitError) -> PyResult<PyErr> {
    let kw = kwargs(
        py,
        &[("kind", e.kind().into_pyobject(py)?.into_any()), ("name", e.name().into_pyobject(py)?.into_any())],
    )?;
    raise(py, "LimitError", PyTuple::new(py, [e.to_string()])?, kw)
}

/// A tools document that cannot be checked: `ToolDocumentError` with its kind and pointer.
fn tools_json_exception(py: Python<'_>, e: &ToolsJsonError) -> PyResult<PyErr> {
    let kw = kwargs(
        py,
        &[("kind", e.kind().into_pyobject(py)?.into_any()), ("pointer", e.pointer().into_pyobject(py)?.into_any())],
    )?;
    raise(py, "ToolDocumentError", PyTuple::new(py, [e.to_string()])?, kw)
}

/// Python data with no JSON form: a `ParseError` as the parser's, one entry at `""` with
/// keyword `parse`, no rule, and no text position (offset, line and column 0).
fn not_json_exception(py: Python<'_>, m: String) -> PyResult<PyErr> {
    let errors = error_details(py, &[ValidationError::new("", "parse", m.as_str())])?;
    raise(py, "ParseError", PyTuple::new(py, [m.into_pyobject(py)?.into_any(), errors.into_any()])?, PyDict::new(py))
}

/// A tools pin file that cannot be used: `PinFileError` with its kind and pointer.
fn pin_exception(py: Python<'_>, e: &mcpgen::tools::PinError) -> PyResult<PyErr> {
    let kw = kwargs(
        py,
        &[
            ("kind", e.kind.as_str().into_pyobject(py)?.into_any()),
            ("pointer", e.pointer.as_str().into_pyobject(py)?.into_any()),
        ],
    )?;
    raise(py, "PinFileError", PyTuple::new(py, [e.to_string()])?, kw)
}
