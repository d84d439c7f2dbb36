//! Tool schemas (JSCHEMA-1..10, TOOL-4, TOOL-5): marshalling around `mcpgen::tools`.
//!
//! The core works on `serde_json::Value`. A tool or instance given as JSON text is parsed with
//! the GIL released (by the package's parser, so bad JSON is the usual `ParseError`); Python data
//! is read through [`crate::view::PyView`]. Either way the result is Rust-owned, so compiling and
//! validating run with the GIL released.

use mcpgen::tools::{self, CompiledTool, Limits, SchemaOptions, ToolCallError, ToolChecker as CoreChecker};
use mcpgen::JsonView;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyTuple};
use serde_json::Value as Json;

use crate::convert::{input_bytes, py_type, schema_problems, with_input, Failure, Input};
use crate::with_tape;

/// JSON text or Python data as a `serde_json::Value`.
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

/// The names of [`Limits`]' fields, in declaration order (the `limits` dict's keys).
const LIMIT_KEYS: [&str; 9] = [
    "max_depth",
    "max_subschemas",
    "max_enum_values",
    "max_pattern_length",
    "regex_size_limit",
    "backtrack_limit",
    "max_steps",
    "max_instance_depth",
    "max_errors",
];

fn limit_fields(l: &Limits) -> [u64; 9] {
    let u = |n: usize| n as u64;
    [
        u(l.max_depth),
        u(l.max_subschemas),
        u(l.max_enum_values),
        u(l.max_pattern_length),
        u(l.regex_size_limit),
        u(l.backtrack_limit),
        l.max_steps,
        u(l.max_instance_depth),
        u(l.max_errors),
    ]
}

fn set_limit(l: &mut Limits, key: &str, n: u64) -> Result<(), Failure> {
    let size = || usize::try_from(n).map_err(|_| Failure::Usage(format!("limit `{key}` is too large for this platform: {n}")));
    match key {
        "max_depth" => l.max_depth = size()?,
        "max_subschemas" => l.max_subschemas = size()?,
        "max_enum_values" => l.max_enum_values = size()?,
        "max_pattern_length" => l.max_pattern_length = size()?,
        "regex_size_limit" => l.regex_size_limit = size()?,
        "backtrack_limit" => l.backtrack_limit = size()?,
        "max_steps" => l.max_steps = n,
        "max_instance_depth" => l.max_instance_depth = size()?,
        "max_errors" => l.max_errors = size()?,
        other => return Err(Failure::Usage(format!("unknown limit `{other}` (known: {})", LIMIT_KEYS.join(", ")))),
    }
    Ok(())
}

/// The `limits=` argument: a dict overriding some of the core's default [`Limits`].
fn limits_arg(limits: Option<&Bound<'_, PyAny>>) -> Result<Limits, Failure> {
    let mut out = Limits::default();
    let Some(obj) = limits else { return Ok(out) };
    let Ok(dict) = obj.cast::<PyDict>() else {
        let found = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(Failure::Python(PyTypeError::new_err(format!("limits must be a dict, found `{found}`"))));
    };
    for (k, v) in dict.iter() {
        let Ok(key) = k.extract::<String>() else {
            return Err(Failure::Usage(format!("limits keys must be str, found {k:?}")));
        };
        // `bool` is an `int` subclass, but `True` is no limit.
        let n = if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() { v.extract::<u64>().ok() } else { None };
        let Some(n) = n else {
            return Err(Failure::Usage(format!("limit `{key}` must be an int from 0 to 2**64-1, found {v:?}")));
        };
        set_limit(&mut out, &key, n)?;
    }
    Ok(out)
}

/// The options of a call, or `None` for the defaults (the core's process-wide checker).
fn options_arg(limits: Option<&Bound<'_, PyAny>>, validate_formats: bool) -> Result<Option<SchemaOptions>, Failure> {
    if limits.is_none() && !validate_formats {
        return Ok(None);
    }
    Ok(Some(SchemaOptions { limits: limits_arg(limits)?, validate_formats, fetch: None }))
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
    let tool = json_arg(py, tool)?;
    let value = json_arg(py, value)?;
    py.detach(|| match (checker, options, which) {
        (Some(c), _, Instance::Arguments) => c.validate_arguments(&tool, &value),
        (Some(c), _, Instance::StructuredContent) => c.validate_structured_content(&tool, &value),
        (None, Some(o), _) => CompiledTool::compile(&tool, o).map_err(ToolCallError::Schema).and_then(|t| validate_compiled(&t, which, &value)),
        (None, None, Instance::Arguments) => tools::validate_tool_arguments(&tool, &value),
        (None, None, Instance::StructuredContent) => tools::validate_structured_content(&tool, &value),
    })?;
    Ok(())
}

/// JSCHEMA-1..10: checks and compiles a tool's `inputSchema` and `outputSchema`.
#[pyfunction]
#[pyo3(signature = (tool, *, limits=None, validate_formats=false))]
pub fn check_tool(py: Python<'_>, tool: &Bound<'_, PyAny>, limits: Option<&Bound<'_, PyAny>>, validate_formats: bool) -> PyResult<()> {
    let run = || -> Result<(), Failure> {
        let options = options_arg(limits, validate_formats)?;
        let tool = json_arg(py, tool)?;
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
        let bytes = input_bytes(py, &Input::from_data(data)?)?;
        py.detach(|| tools::check_tools_json(&bytes, &options)).map_err(Failure::Usage)
    };
    let reports = run().map_err(|f| f.into_pyerr(py))?;
    let class = py_type(py, "ToolReport")?;
    reports
        .iter()
        .map(|r| class.call1((r.pointer.as_str(), r.name.as_str(), PyTuple::new(py, schema_problems(py, &r.errors)?)?)))
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

/// The core's `ToolChecker`: compiled tools cached by name and schema text (thread-safe).
#[pyclass(module = "mcpgen._native", name = "ToolChecker", frozen)]
pub struct ToolChecker {
    inner: CoreChecker,
}

#[pymethods]
impl ToolChecker {
    #[new]
    #[pyo3(signature = (*, limits=None, validate_formats=false))]
    fn new(py: Python<'_>, limits: Option<&Bound<'_, PyAny>>, validate_formats: bool) -> PyResult<Self> {
        let limits = limits_arg(limits).map_err(|f| f.into_pyerr(py))?;
        Ok(ToolChecker { inner: CoreChecker::new(SchemaOptions { limits, validate_formats, fetch: None }) })
    }

    /// Checks and compiles the tool (kept in the cache when it is usable).
    fn check_tool(&self, py: Python<'_>, tool: &Bound<'_, PyAny>) -> PyResult<()> {
        let run = || -> Result<(), Failure> {
            let tool = json_arg(py, tool)?;
            py.detach(|| self.inner.compile(&tool).map(drop))?;
            Ok(())
        };
        run().map_err(|f| f.into_pyerr(py))
    }

    /// TOOL-5: validates `tools/call` arguments.
    fn validate_arguments(&self, py: Python<'_>, tool: &Bound<'_, PyAny>, arguments: &Bound<'_, PyAny>) -> PyResult<()> {
        validate_with(py, Some(&self.inner), None, tool, arguments, Instance::Arguments).map_err(|f| f.into_pyerr(py))
    }

    /// TOOL-4: validates a result's `structuredContent`.
    fn validate_structured_content(&self, py: Python<'_>, tool: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        validate_with(py, Some(&self.inner), None, tool, value, Instance::StructuredContent).map_err(|f| f.into_pyerr(py))
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
        for (k, v) in LIMIT_KEYS.iter().zip(limit_fields(&self.inner.options().limits)) {
            d.set_item(*k, v)?;
        }
        Ok(d)
    }

    #[getter]
    fn validate_formats(&self) -> bool {
        self.inner.options().validate_formats
    }

    fn __repr__(&self) -> String {
        format!("ToolChecker(cached={}, validate_formats={})", self.inner.cached(), if self.inner.options().validate_formats { "True" } else { "False" })
    }
}
