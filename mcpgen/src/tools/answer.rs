//! The judgement on a server's answer to a `tools/call` (TOOL-4, TOOL-5, TOOL-8), given what the
//! call's arguments were by the listed `inputSchema`: one function for every caller — the
//! conversation checker and the probe — so the two never disagree on a case.
//!
//! ```
//! use mcpgen::tools::{judge_call_result, AnswerFault, ArgumentsVerdict, CompiledTool, SchemaOptions};
//! use serde_json::json;
//! let tool = json!({"name": "add", "inputSchema": {"type": "object", "required": ["a"]}});
//! let tool = CompiledTool::compile(&tool, &SchemaOptions::default()).unwrap();
//! let arguments = ArgumentsVerdict::of(&tool.validate_arguments(&json!({}))).unwrap();
//! assert_eq!(arguments, ArgumentsVerdict::Invalid);
//! // A success for arguments the schema refuses: TOOL-5.
//! let faults = judge_call_result(&tool, arguments, &&json!({"content": []}));
//! assert!(matches!(faults[..], [AnswerFault::AcceptedInvalidArguments { .. }]));
//! // A tool error is the answer the page shows: nothing to say.
//! assert!(judge_call_result(&tool, arguments, &&json!({"content": [], "isError": true})).is_empty());
//! ```

use crate::json::{JsonView, Kind};
use crate::rules::id;
use crate::validate::ValidationError;

use super::checker::CompiledTool;
use super::errors::ToolCallError;

/// What a call's arguments were, by the `inputSchema` the tool was listed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgumentsVerdict {
    /// They satisfy the schema.
    Valid,
    /// Their only faults are members the schema does not allow (`additionalProperties`,
    /// `unevaluatedProperties`): a server that drops them and runs the tool has validated what
    /// it uses — no sentence says it must refuse them — so a success is no fault.
    ExtraMembersOnly,
    /// They break the schema otherwise: the answer must not be a success.
    Invalid,
}

impl ArgumentsVerdict {
    /// The verdict of [`CompiledTool::validate_arguments`]; `None` when nothing was judged (the
    /// schema cannot be used, or validation stopped at a cost limit): then no answer is judged
    /// either.
    pub fn of(validation: &Result<(), ToolCallError>) -> Option<ArgumentsVerdict> {
        match validation {
            Ok(()) => Some(ArgumentsVerdict::Valid),
            Err(e @ ToolCallError::Invalid(_)) if e.only_extra_members() => Some(ArgumentsVerdict::ExtraMembersOnly),
            Err(ToolCallError::Invalid(_)) => Some(ArgumentsVerdict::Invalid),
            Err(_) => None,
        }
    }

    /// Whether the arguments break the schema at all (TOOL-7 is the client's fault either way).
    pub fn breaks_schema(self) -> bool {
        self != ArgumentsVerdict::Valid
    }
}

/// One fault of an answer to a `tools/call`.
#[derive(Debug)]
#[non_exhaustive]
pub enum AnswerFault {
    /// TOOL-5: a success answering arguments that break the `inputSchema` ([`ArgumentsVerdict::Invalid`]).
    /// `pointer`: `/result/isError` when the result has an `isError` that is not `true`, else `/result`.
    AcceptedInvalidArguments { pointer: &'static str },
    /// TOOL-4: the tool was listed with an `outputSchema`, the (non-error) result has no
    /// `structuredContent`.
    MissingStructuredContent,
    /// TOOL-4: `structuredContent` breaks the `outputSchema`; each error points into it.
    StructuredContentInvalid(Vec<ValidationError>),
    /// POLICY-TOOLS: `structuredContent` not judged — validation stopped at a cost limit.
    StructuredContentNotJudged(ToolCallError),
    /// TOOL-8: a JSON-RPC error answering arguments that break the schema, where input
    /// validation errors are tool execution errors (`isError: true`). Where the revision says
    /// nothing of it (before 2025-11-25) the rule catalogue drops it by revision.
    ProtocolErrorForInvalidArguments,
}

impl AnswerFault {
    /// The rule the fault breaks.
    pub fn rule(&self) -> &'static str {
        match self {
            AnswerFault::AcceptedInvalidArguments { .. } => id::TOOL_5,
            AnswerFault::MissingStructuredContent | AnswerFault::StructuredContentInvalid(_) => id::TOOL_4,
            AnswerFault::StructuredContentNotJudged(_) => id::POLICY_TOOLS,
            AnswerFault::ProtocolErrorForInvalidArguments => id::TOOL_8,
        }
    }
}

/// The faults of a complete `tools/call` result (`resultType` absent or `"complete"`; an
/// input-required round trip is judged when it completes). A result with `isError: true` is a
/// tool execution error: neither TOOL-4 nor TOOL-5 applies to it.
pub fn judge_call_result<'v, V: JsonView<'v>>(
    tool: &CompiledTool,
    arguments: ArgumentsVerdict,
    result: &V,
) -> Vec<AnswerFault> {
    let mut faults = Vec::new();
    if result.get("resultType").is_some_and(|t| t.kind() == Kind::String && !t.str_eq("complete")) {
        return faults;
    }
    let is_error = result.get("isError");
    if is_error.as_ref().and_then(JsonView::as_bool) == Some(true) {
        return faults;
    }
    if arguments == ArgumentsVerdict::Invalid {
        let pointer = if is_error.is_some() { "/result/isError" } else { "/result" };
        faults.push(AnswerFault::AcceptedInvalidArguments { pointer });
    }
    if tool.output.is_none() {
        return faults;
    }
    let Some(structured) = result.get("structuredContent") else {
        faults.push(AnswerFault::MissingStructuredContent);
        return faults;
    };
    match tool.validate_structured_content(&to_json(&structured)) {
        Ok(()) => {}
        Err(ToolCallError::Invalid(errors)) => faults.push(AnswerFault::StructuredContentInvalid(errors)),
        Err(e) => faults.push(AnswerFault::StructuredContentNotJudged(e)),
    }
    faults
}

/// The fault of a JSON-RPC error (`code`, when it is an integer) answering a `tools/call` in
/// `revision`: TOOL-8 for arguments that break the schema, except -32602 from 2026-07-28 on,
/// whose schema description lists "invalid tool arguments" among its uses (the spec allows both
/// answers there). An error answering valid arguments is no fault of this kind.
pub fn judge_call_error(arguments: ArgumentsVerdict, revision: &str, code: Option<i64>) -> Option<AnswerFault> {
    let schema_allows = code == Some(-32602) && revision >= "2026-07-28";
    (arguments.breaks_schema() && !schema_allows).then_some(AnswerFault::ProtocolErrorForInvalidArguments)
}

/// The value as a `serde_json::Value` (what the compiled schemas validate), built straight from
/// the view: the same value as `serde_json::Value::from(&v.to_value())` (a key given twice keeps
/// its last value) without the intermediate copy.
pub(crate) fn to_json<'v, V: JsonView<'v>>(v: &V) -> serde_json::Value {
    use serde_json::Value as J;
    match v.kind() {
        Kind::Null => J::Null,
        Kind::Bool => J::Bool(v.as_bool().unwrap_or(false)),
        Kind::Number => v.to_number().map_or(J::Null, |n| J::Number((&n).into())),
        Kind::String => J::String(v.as_str().map(std::borrow::Cow::into_owned).unwrap_or_default()),
        Kind::Array => J::Array(v.items().map(|x| to_json(&x)).collect()),
        Kind::Object => {
            let mut map = serde_json::Map::new();
            for (k, x) in v.entries() {
                map.insert(k.into_owned(), to_json(&x));
            }
            J::Object(map)
        }
    }
}
