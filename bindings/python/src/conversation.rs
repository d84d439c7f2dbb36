//! `mcpgen.Conversation`: one MCP session, fed its messages in order (`mcpgen::conversation`).

use std::sync::{Arc, Mutex};

use mcpgen::conversation::{Conversation as Core, ConversationOptions, Finding, Sender};
use mcpgen::tools::{PinLimits, ToolsBaseline};
use mcpgen::Options;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::convert::{input_bytes, py_type, str_text, Failure, Input};
use crate::policy_arg;

/// The checker of one session. Thread-safe: calls on one object are serialised (the messages of
/// a session have one order).
#[pyclass(module = "mcpgen._native", name = "Conversation", frozen)]
pub struct Conversation {
    inner: Mutex<Core>,
}

fn sender_arg(sender: &Bound<'_, PyString>) -> Result<Sender, Failure> {
    str_text(sender)?.parse::<Sender>().map_err(|e| Failure::Usage(e.to_string()))
}

fn finding_to_py<'py>(class: &Bound<'py, PyAny>, f: Finding) -> PyResult<Bound<'py, PyAny>> {
    let (era, revision) = (f.era.map(|e| e.as_str()), f.revision.map(|r| r.as_str()));
    class.call1((f.rule, f.level.as_str(), f.pointer, f.schema_path, f.keyword, f.message, era, revision))
}

#[pymethods]
impl Conversation {
    #[new]
    #[pyo3(signature = (*, strict_formats=false, policy=None, extension_result_types=None, tools_baseline=None, max_tools=None, max_tool_schema_bytes=None))]
    fn new(
        py: Python<'_>,
        strict_formats: bool,
        policy: Option<&Bound<'_, PyString>>,
        extension_result_types: Option<Vec<String>>,
        tools_baseline: Option<&Bound<'_, PyAny>>,
        max_tools: Option<usize>,
        max_tool_schema_bytes: Option<usize>,
    ) -> PyResult<Self> {
        let run = || -> Result<Conversation, Failure> {
            let validation = Options::default().policy(policy_arg(policy)?).strict_formats(strict_formats);
            let defaults = ConversationOptions::default();
            let baseline = match tools_baseline {
                None => None,
                Some(text) => {
                    let bytes = input_bytes(py, &Input::from_data(text)?)?;
                    let pin = ToolsBaseline::parse(&bytes, &PinLimits::default()).map_err(Failure::Pin)?;
                    Some(Arc::new(pin))
                }
            };
            let options = defaults
                .clone()
                .validation(validation)
                .extension_result_types(extension_result_types.unwrap_or_default())
                .tools_baseline(baseline)
                .max_tools(max_tools.unwrap_or(defaults.max_tools))
                .max_tool_schema_bytes(max_tool_schema_bytes.unwrap_or(defaults.max_tool_schema_bytes));
            Ok(Conversation { inner: Mutex::new(Core::with_options(options)) })
        };
        run().map_err(|f| f.into_pyerr(py))
    }

    /// Checks the next message sent by `sender` (`"client"` or `"server"`) and returns its
    /// findings (empty when there are none). `data` is the exact text sent (`bytes`, `str`, …:
    /// text that is not JSON is a finding, MSG-8) or already-parsed data (`dict`, …).
    fn observe<'py>(
        &self,
        py: Python<'py>,
        sender: &Bound<'py, PyString>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let run = || -> Result<Vec<Finding>, Failure> {
            let from = sender_arg(sender)?;
            // Python data is turned into JSON text first, so data that is not JSON (a set, a
            // float NaN) is refused before the session state changes.
            let bytes = input_bytes(py, &Input::from_data(data)?)?;
            let inner = &self.inner;
            Ok(py.detach(|| {
                let mut c = inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                c.observe(from, &bytes)
            }))
        };
        let findings = run().map_err(|f| f.into_pyerr(py))?;
        let class = py_type(py, "Finding")?;
        findings.into_iter().map(|f| finding_to_py(&class, f)).collect()
    }

    /// The revision the session negotiated (legacy `initialize`) or last used (modern `_meta`),
    /// or None while unknown.
    #[getter]
    fn revision(&self) -> Option<&'static str> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).revision().map(|r| r.as_str())
    }
}
