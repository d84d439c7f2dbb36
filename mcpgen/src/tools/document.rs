//! Tools read from JSON text: [`tool_from_json`] and [`check_tools_json`] (a `Tool`, a
//! `tools/list` result, or a JSON-RPC response carrying one), with one [`ToolReport`] per tool.

use serde_json::Value;

use super::checker::CompiledTool;
use super::compile::SchemaOptions;
use super::errors::{SchemaError, ToolsJsonError};
use super::limits::MAX_JSON_DEPTH;
use crate::json::{JsonView, Kind, ParseError, ParseOptions, Tape};

/// The report for one tool of a [`check_tools_json`] input.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolReport {
    /// JSON pointer of the tool in the input (`""` for a single tool, `/tools/3` in a list).
    pub pointer: String,
    pub name: String,
    pub errors: Vec<SchemaError>,
}

impl ToolReport {
    /// JSON pointer of the tool in the input (`""` for a single tool, `/tools/3` in a list).
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// The tool's `name` (empty when it has none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's problems; empty when it is fine.
    pub fn errors(&self) -> &[SchemaError] {
        &self.errors
    }
}

/// Nesting levels kept when a tool is read from text: [`MAX_JSON_DEPTH`] for the tool, 3 for
/// its place in a JSON-RPC response (`/result/tools/3`), and 1 so that the first level past the
/// limit is still there to be reported. Deeper values are checked for syntax and skipped.
const TOOL_TEXT_DEPTH: usize = MAX_JSON_DEPTH + 4;

fn parse_tool_text(bytes: &[u8]) -> Result<Tape<'_>, ParseError> {
    Tape::parse_bytes_with(
        bytes,
        ParseOptions::default().max_depth(TOOL_TEXT_DEPTH).skip_deeper(true),
        Default::default(),
    )
}

/// Reads a tool from JSON text with the core's parser (what the C and Python surfaces do with
/// tool text). Only text that is not JSON is an `Err`: JSON nested deeper than the parser's
/// limit is read far enough for [`CompiledTool::compile`] to refuse the tool as `too_deep`
/// (JSCHEMA-8), with the pointer of the first location past [`MAX_JSON_DEPTH`].
pub fn tool_from_json(bytes: &[u8]) -> Result<Value, ParseError> {
    let tape = parse_tool_text(bytes)?;
    Ok(Value::from(&tape.root().to_value()))
}

/// Checks a document that is a `Tool`, a `tools/list` result (`{"tools": [...]}`) or a whole
/// JSON-RPC response carrying one; one report per tool, in order (JSCHEMA-3: a bad tool is
/// reported, the others are still checked). The text is read as [`tool_from_json`] reads it:
/// a tool nesting deeper than [`MAX_JSON_DEPTH`] is reported as `too_deep`, and only text that
/// is not JSON is [`ToolsJsonError::Parse`].
pub fn check_tools_json(bytes: &[u8], options: &SchemaOptions) -> Result<Vec<ToolReport>, ToolsJsonError> {
    let tape = parse_tool_text(bytes)?;
    let doc = tape.root();
    let (prefix, list) = match (doc.get("tools"), doc.get("result").and_then(|r| r.get("tools"))) {
        (Some(list), _) => ("/tools", list),
        (None, Some(list)) => ("/result/tools", list),
        (None, None) if doc.get("inputSchema").is_some() || doc.get("name").is_some() => {
            return Ok(vec![report_for(&Value::from(&doc.to_value()), String::new(), options)]);
        }
        _ => return Err(ToolsJsonError::NotAToolDocument),
    };
    if list.kind() != Kind::Array {
        return Err(ToolsJsonError::ToolsNotArray { pointer: prefix.to_owned() });
    }
    // Each tool on its own: the rest of the document is never converted.
    Ok(list
        .items()
        .enumerate()
        .map(|(i, t)| report_for(&Value::from(&t.to_value()), format!("{prefix}/{i}"), options))
        .collect())
}

fn report_for(tool: &Value, pointer: String, options: &SchemaOptions) -> ToolReport {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let errors = match CompiledTool::compile(tool, options) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors,
    };
    ToolReport { pointer, name, errors }
}
