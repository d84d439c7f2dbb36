//! Tool schemas (JSCHEMA-1..10, TOOL-4, TOOL-5): marshalling around `mcpgen::tools`.
//!
//! The core works on `serde_json::Value`. A tool or instance given as JSON text is parsed with
//! the GIL released (by the package's parser, so bad JSON is the usual `ParseError`); Python data
//! is read through [`crate::view::PyView`]. Either way the result is Rust-owned, so compiling and
//! validating run with the GIL released.
//!
//! A `ToolChecker` built with `fetch=` carries the core's opt-in [`FetchPolicy`] (JSCHEMA-6):
//! the core vets every non-local `$ref` and calls back into Python (re-acquiring the GIL) only
//! through [`PyFetcher`] and [`PyResolver`].

use std::cell::RefCell;
use std::io;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use mcpgen::tools::{
    self, CompiledTool, FetchError, FetchPolicy, FetchRequest, HostResolver, Limits, SchemaFetcher, SchemaOptions,
    ToolCallError, ToolChecker as CoreChecker,
};
use mcpgen::JsonView;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyString, PyTuple};
use pyo3::PyTraverseError;
use serde_json::Value as Json;

use crate::convert::{input_bytes_to, py_type, schema_problems, with_input, with_input_to, Failure, Input};
use crate::view::TOOL_MAX_DEPTH;
use crate::with_tape;

/// A tool as JSON text (read as the core reads tool text: only text that is not JSON is a
/// `ParseError`, a tool nested past the parser's limit is then `too_deep`) or Python data (read
/// to [`TOOL_MAX_DEPTH`] levels, so that a tool past the parser's limit is `too_deep` too).
fn tool_arg(py: Python<'_>, data: &Bound<'_, PyAny>) -> Result<Json, Failure> {
    let input = Input::from_data(data)?;
    let value = with_input_to(py, &input, TOOL_MAX_DEPTH, tools::tool_from_json, |v| Ok(Json::from(&v.to_value())))?;
    Ok(value?)
}

/// An instance (arguments, structured content) as JSON text or Python data.
fn json_arg(py: Python<'_>, data: &Bound<'_, PyAny>) -> Result<Json, Failure> {
    let input = Input::from_data(data)?;
    let value = with_input(
        py,
        &input,
        |bytes| with_tape(bytes, |root| Ok(Json::from(&root.to_value()))),
        |v| Ok(Json::from(&v.to_value())),
    )?;
    Ok(value?)
}

/// The `limits=` argument: a dict overriding some of the core's default [`Limits`].
fn limits_arg(limits: Option<&Bound<'_, PyAny>>) -> Result<Limits, Failure> {
    let mut out = Limits::default();
    let Some(obj) = limits else { return Ok(out) };
    let Ok(dict) = obj.cast::<PyDict>() else {
        return Err(Failure::Python(PyTypeError::new_err(format!(
            "limits must be a dict, found `{}`",
            type_name(obj)
        ))));
    };
    for (k, v) in dict.iter() {
        let Ok(key) = k.extract::<String>() else {
            return Err(Failure::Usage(format!("limits keys must be str, found {k:?}")));
        };
        // `bool` is an `int` subclass, but `True` is no limit.
        let n =
            if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() { v.extract::<u64>().ok() } else { None };
        let Some(n) = n else {
            return Err(Failure::Usage(format!("limit `{key}` must be an int from 0 to 2**64-1, found {v:?}")));
        };
        out.set(&key, n)?;
    }
    Ok(out)
}

/// The options of a call, or `None` for the defaults (the core's process-wide checker).
fn options_arg(limits: Option<&Bound<'_, PyAny>>, validate_formats: bool) -> Result<Option<SchemaOptions>, Failure> {
    if limits.is_none() && !validate_formats {
        return Ok(None);
    }
    Ok(Some(SchemaOptions::default().limits(limits_arg(limits)?).validate_formats(validate_formats).fetch(None)))
}

/// Which instance a validation call checks.
#[derive(Clone, Copy)]
enum Instance {
    Arguments,
    StructuredContent,
}

fn validate_compiled(tool: &CompiledTool, which: Instance, value: &Json) -> Result<(), ToolCallError> {
    match which {
        Instance::Arguments => tool.validate_arguments(value),
        Instance::StructuredContent => tool.validate_structured_content(value),
    }
}

fn validate_with(
    py: Python<'_>,
    checker: Option<&CoreChecker>,
    options: Option<&SchemaOptions>,
    tool: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    which: Instance,
) -> Result<(), Failure> {
    let tool = tool_arg(py, tool)?;
    let value = json_arg(py, value)?;
    py.detach(|| match (checker, options, which) {
        (Some(c), _, Instance::Arguments) => c.validate_arguments(&tool, &value),
        (Some(c), _, Instance::StructuredContent) => c.validate_structured_content(&tool, &value),
        (None, Some(o), _) => CompiledTool::compile(&tool, o)
            .map_err(ToolCallError::Schema)
            .and_then(|t| validate_compiled(&t, which, &value)),
        (None, None, Instance::Arguments) => tools::validate_tool_arguments(&tool, &value),
        (None, None, Instance::StructuredContent) => tools::validate_structured_content(&tool, &value),
    })?;
    Ok(())
}

/// JSCHEMA-1..10: checks and compiles a tool's `inputSchema` and `outputSchema`.
#[pyfunction]
#[pyo3(signature = (tool, *, limits=None, validate_formats=false))]
pub fn check_tool(
    py: Python<'_>,
    tool: &Bound<'_, PyAny>,
    limits: Option<&Bound<'_, PyAny>>,
    validate_formats: bool,
) -> PyResult<()> {
    let run = || -> Result<(), Failure> {
        let options = options_arg(limits, validate_formats)?;
        let tool = tool_arg(py, tool)?;
        py.detach(|| match &options {
            None => tools::check_tool(&tool),
            Some(o) => CompiledTool::compile(&tool, o).map(drop),
        })?;
        Ok(())
    };
    run().map_err(|f| f.into_pyerr(py))
}

/// Checks every tool of a `Tool`, a `tools/list` result or a JSON-RPC response carrying one.
#[pyfunction]
#[pyo3(signature = (data, *, limits=None, validate_formats=false))]
pub fn check_tools<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    limits: Option<&Bound<'py, PyAny>>,
    validate_formats: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let run = || -> Result<Vec<tools::ToolReport>, Failure> {
        let options = options_arg(limits, validate_formats)?.unwrap_or_default();
        let bytes = input_bytes_to(py, &Input::from_data(data)?, TOOL_MAX_DEPTH)?;
        Ok(py.detach(|| tools::check_tools_json(&bytes, &options))?)
    };
    let reports = run().map_err(|f| f.into_pyerr(py))?;
    let class = py_type(py, "ToolReport")?;
    reports
        .iter()
        .map(|r| class.call1((r.pointer(), r.name(), PyTuple::new(py, schema_problems(py, r.errors())?)?)))
        .collect()
}

/// TOOL-5: validates `tools/call` arguments against the tool's `inputSchema`.
#[pyfunction]
#[pyo3(signature = (tool, arguments, *, limits=None, validate_formats=false))]
pub fn validate_tool_arguments(
    py: Python<'_>,
    tool: &Bound<'_, PyAny>,
    arguments: &Bound<'_, PyAny>,
    limits: Option<&Bound<'_, PyAny>>,
    validate_formats: bool,
) -> PyResult<()> {
    let run = || {
        let options = options_arg(limits, validate_formats)?;
        validate_with(py, None, options.as_ref(), tool, arguments, Instance::Arguments)
    };
    run().map_err(|f| f.into_pyerr(py))
}

/// TOOL-4: validates a result's `structuredContent` against the tool's `outputSchema`.
#[pyfunction]
#[pyo3(signature = (tool, value, *, limits=None, validate_formats=false))]
pub fn validate_structured_content(
    py: Python<'_>,
    tool: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    limits: Option<&Bound<'_, PyAny>>,
    validate_formats: bool,
) -> PyResult<()> {
    let run = || {
        let options = options_arg(limits, validate_formats)?;
        validate_with(py, None, options.as_ref(), tool, value, Instance::StructuredContent)
    };
    run().map_err(|f| f.into_pyerr(py))
}

// ---- opt-in fetching (JSCHEMA-6) ----------------------------------------------------------------

/// `TypeName: message` of a Python exception, for the core's error string. The exception is
/// owned by `err` (fetched, so no longer the thread's current exception) and dropped here.
fn exception_text(py: Python<'_>, err: &PyErr) -> String {
    let name = err.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "exception".into());
    // `str()` can itself raise; that second error is dropped (cleared) as well.
    match err.value(py).str() {
        Ok(text) if text.len().is_ok_and(|n| n > 0) => format!("{name}: {text}"),
        _ => name,
    }
}

thread_local! {
    /// A `KeyboardInterrupt`, `SystemExit`… (a `BaseException` that is no `Exception`) raised by
    /// a callable during this thread's current compilation. It is no reason to refuse a `$ref`
    /// but a request to stop: the `ToolChecker` method re-raises it once the core returns (the
    /// core calls the callables on the thread that compiles).
    static INTERRUPT: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// The core's error string for an exception a callable raised; an interrupt is also kept for
/// [`take_interrupt`].
fn callable_error(py: Python<'_>, err: PyErr) -> String {
    let text = exception_text(py, &err);
    if !err.is_instance_of::<PyException>(py) {
        INTERRUPT.with(|slot| {
            slot.borrow_mut().get_or_insert(err);
        });
    }
    text
}

fn take_interrupt() -> Option<PyErr> {
    INTERRUPT.with(|slot| slot.borrow_mut().take())
}

/// Runs a `ToolChecker` call: an interrupt raised by a callable wins over the verdict.
fn checker_call<T>(py: Python<'_>, call: impl FnOnce() -> Result<T, Failure>) -> PyResult<T> {
    drop(take_interrupt());
    let out = call();
    match take_interrupt() {
        Some(interrupt) => Err(interrupt),
        None => out.map_err(|f| f.into_pyerr(py)),
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

/// The `fetch=` callable as the core's [`SchemaFetcher`]. The core calls it from inside
/// compilation, which runs with the GIL released: it attaches to call Python.
struct PyFetcher(Py<PyAny>);

impl PyFetcher {
    fn call(&self, py: Python<'_>, request: &FetchRequest<'_>) -> PyResult<Vec<u8>> {
        let addrs: Vec<(String, u16)> = request.addrs.iter().map(|a| (a.ip().to_string(), a.port())).collect();
        let req = py_type(py, "FetchRequest")?.call1((
            request.uri,
            request.host,
            request.port,
            PyTuple::new(py, addrs)?,
            request.timeout.as_secs_f64(),
            request.max_bytes,
        ))?;
        let body = self.0.bind(py).call1((req,))?;
        if let Ok(b) = body.cast::<PyBytes>() {
            return Ok(b.as_bytes().to_vec());
        }
        if let Ok(b) = body.cast::<PyByteArray>() {
            return Ok(b.to_vec());
        }
        Err(PyTypeError::new_err(format!("fetch must return bytes or bytearray, returned `{}`", type_name(&body))))
    }
}

impl SchemaFetcher for PyFetcher {
    fn fetch(&self, request: &FetchRequest<'_>) -> Result<Vec<u8>, FetchError> {
        Python::attach(|py| self.call(py, request).map_err(|e| FetchError::new(callable_error(py, e))))
    }
}

/// The `resolve=` callable as the core's [`HostResolver`]: `(host, port)` → IP address strings.
struct PyResolver(Py<PyAny>);

impl PyResolver {
    fn call(&self, py: Python<'_>, host: &str, port: u16) -> PyResult<Vec<IpAddr>> {
        let answer = self.0.bind(py).call1((host, port))?;
        // A `str` is iterable too: "10.0.0.1" would read as ten one-character "addresses".
        if answer.is_instance_of::<PyString>() || answer.is_instance_of::<PyBytes>() {
            return Err(PyTypeError::new_err(format!(
                "resolve must return a sequence of IP address strings, returned a `{}`",
                type_name(&answer)
            )));
        }
        let mut out = Vec::new();
        for item in answer.try_iter()? {
            let item = item?;
            let Ok(text) = item.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "resolve must return IP address strings, returned a `{}`",
                    type_name(&item)
                )));
            };
            let text = text.to_cow()?;
            match text.parse::<IpAddr>() {
                Ok(ip) => out.push(ip),
                Err(_) => {
                    return Err(PyValueError::new_err(format!("resolve returned {text:?}, which is not an IP address")))
                }
            }
        }
        Ok(out)
    }
}

impl HostResolver for PyResolver {
    fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<IpAddr>> {
        Python::attach(|py| self.call(py, host, port).map_err(|e| io::Error::other(callable_error(py, e))))
    }
}

/// The core's default; the `ToolChecker` signature and the stubs spell it out (a change here
/// makes their default count as "given" and fails the tests).
const DEFAULT_TIMEOUT: f64 = FetchPolicy::DEFAULT_TIMEOUT.as_secs_f64();
/// As [`DEFAULT_TIMEOUT`].
const DEFAULT_MAX_BYTES: i128 = FetchPolicy::DEFAULT_MAX_BYTES as i128;

/// The Python callables a checker holds (for the garbage collector).
#[derive(Default)]
struct Callables {
    fetch: Option<Arc<PyFetcher>>,
    resolve: Option<Arc<PyResolver>>,
}

fn callable_arg(name: &str, obj: Option<&Bound<'_, PyAny>>) -> Result<Option<Py<PyAny>>, Failure> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_callable() => Ok(Some(o.clone().unbind())),
        Some(o) => {
            Err(Failure::Python(PyTypeError::new_err(format!("{name} must be callable, found `{}`", type_name(o)))))
        }
    }
}

fn allow_hosts_arg(obj: &Bound<'_, PyAny>) -> Result<Vec<String>, Failure> {
    let bad = || {
        Failure::Python(PyTypeError::new_err(format!(
            "allow_hosts must be an iterable of str (host names), found `{}`",
            type_name(obj)
        )))
    };
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(bad());
    }
    let mut hosts = Vec::new();
    for item in obj.try_iter().map_err(|_| bad())? {
        let item = item?;
        let Ok(host) = item.cast::<PyString>() else {
            return Err(Failure::Python(PyTypeError::new_err(format!(
                "allow_hosts must contain str host names, found `{}`",
                type_name(&item)
            ))));
        };
        hosts.push(host.to_cow()?.into_owned());
    }
    Ok(hosts)
}

/// The `fetch=` group of `ToolChecker` arguments as a [`FetchPolicy`] (`None` without `fetch`).
struct FetchArgs<'a, 'py> {
    fetch: Option<&'a Bound<'py, PyAny>>,
    resolve: Option<&'a Bound<'py, PyAny>>,
    allow_hosts: Option<&'a Bound<'py, PyAny>>,
    allow_http: bool,
    timeout: f64,
    max_bytes: i128,
}

impl FetchArgs<'_, '_> {
    fn policy(&self) -> Result<(Option<FetchPolicy>, Callables), Failure> {
        if self.max_bytes < 0 {
            return Err(Failure::Usage(format!("fetch_max_bytes must be >= 0, found {}", self.max_bytes)));
        }
        // Beyond the address space is as good as no cap.
        let max_bytes = usize::try_from(self.max_bytes).unwrap_or(usize::MAX);
        let timeout = if self.timeout > 0.0 { Duration::try_from_secs_f64(self.timeout).ok() } else { None };
        let Some(timeout) = timeout else {
            return Err(Failure::Usage(format!(
                "fetch_timeout must be a finite number of seconds > 0, found {}",
                self.timeout
            )));
        };
        let fetch = callable_arg("fetch", self.fetch)?;
        let resolve = callable_arg("resolve", self.resolve)?;
        let Some(fetch) = fetch else {
            let mut given = Vec::new();
            if resolve.is_some() {
                given.push("resolve");
            }
            if self.allow_hosts.is_some() {
                given.push("allow_hosts");
            }
            if self.allow_http {
                given.push("allow_http");
            }
            if self.timeout != DEFAULT_TIMEOUT {
                given.push("fetch_timeout");
            }
            if self.max_bytes != DEFAULT_MAX_BYTES {
                given.push("fetch_max_bytes");
            }
            if !given.is_empty() {
                return Err(Failure::Usage(format!(
                    "{} only apply with fetch= (without it, no $ref is ever fetched)",
                    given.join(", ")
                )));
            }
            return Ok((None, Callables::default()));
        };
        let fetcher = Arc::new(PyFetcher(fetch));
        let mut policy = FetchPolicy::new(fetcher.clone());
        let resolver = resolve.map(|r| Arc::new(PyResolver(r)));
        if let Some(r) = &resolver {
            policy = policy.with_resolver(r.clone());
        }
        if let Some(hosts) = self.allow_hosts {
            policy = policy.allow_hosts(allow_hosts_arg(hosts)?);
        }
        policy.allow_http = self.allow_http;
        policy.timeout = timeout;
        policy.max_bytes = max_bytes;
        Ok((Some(policy), Callables { fetch: Some(fetcher), resolve: resolver }))
    }
}

/// The core's `ToolChecker`: compiled tools cached by name and schema text (thread-safe).
#[pyclass(module = "mcpgen._native", name = "ToolChecker", frozen)]
pub struct ToolChecker {
    inner: CoreChecker,
    /// The same callables the core's fetch policy holds (the GC visits them from here).
    callables: Callables,
}

#[pymethods]
impl ToolChecker {
    #[new]
    #[pyo3(signature = (
        *,
        limits=None,
        validate_formats=false,
        fetch=None,
        resolve=None,
        allow_hosts=None,
        allow_http=false,
        fetch_timeout=5.0,
        fetch_max_bytes=1048576,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new<'py>(
        py: Python<'py>,
        limits: Option<&Bound<'py, PyAny>>,
        validate_formats: bool,
        fetch: Option<&Bound<'py, PyAny>>,
        resolve: Option<&Bound<'py, PyAny>>,
        allow_hosts: Option<&Bound<'py, PyAny>>,
        allow_http: bool,
        fetch_timeout: f64,
        fetch_max_bytes: i128,
    ) -> PyResult<Self> {
        let run = || -> Result<ToolChecker, Failure> {
            let limits = limits_arg(limits)?;
            let args = FetchArgs {
                fetch,
                resolve,
                allow_hosts,
                allow_http,
                timeout: fetch_timeout,
                max_bytes: fetch_max_bytes,
            };
            let (fetch, callables) = args.policy()?;
            Ok(ToolChecker {
                inner: CoreChecker::new(
                    SchemaOptions::default().limits(limits).validate_formats(validate_formats).fetch(fetch),
                ),
                callables,
            })
        };
        run().map_err(|f| f.into_pyerr(py))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(f) = &self.callables.fetch {
            visit.call(&f.0)?;
        }
        if let Some(r) = &self.callables.resolve {
            visit.call(&r.0)?;
        }
        Ok(())
    }

    /// JSCHEMA-6: every URI fetched so far, in order (empty without `fetch`).
    #[getter]
    fn fetched<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let log = self.inner.options().fetch.as_ref().map(FetchPolicy::fetched).unwrap_or_default();
        PyTuple::new(py, log)
    }

    /// Checks and compiles the tool (kept in the cache when it is usable).
    fn check_tool(&self, py: Python<'_>, tool: &Bound<'_, PyAny>) -> PyResult<()> {
        checker_call(py, || {
            let tool = tool_arg(py, tool)?;
            py.detach(|| self.inner.compile(&tool).map(drop))?;
            Ok(())
        })
    }

    /// TOOL-5: validates `tools/call` arguments.
    fn validate_arguments(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        arguments: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        checker_call(py, || validate_with(py, Some(&self.inner), None, tool, arguments, Instance::Arguments))
    }

    /// TOOL-4: validates a result's `structuredContent`.
    fn validate_structured_content(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        checker_call(py, || validate_with(py, Some(&self.inner), None, tool, value, Instance::StructuredContent))
    }

    /// Number of compiled tools in the cache.
    #[getter]
    fn cached(&self) -> usize {
        self.inner.cached()
    }

    /// The limits in force, every key filled in.
    #[getter]
    fn limits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let limits = &self.inner.options().limits;
        for name in Limits::NAMES {
            d.set_item(name, limits.get(name))?;
        }
        Ok(d)
    }

    #[getter]
    fn validate_formats(&self) -> bool {
        self.inner.options().validate_formats
    }

    fn __repr__(&self) -> String {
        format!(
            "ToolChecker(cached={}, validate_formats={})",
            self.inner.cached(),
            if self.inner.options().validate_formats { "True" } else { "False" }
        )
    }
}
