//! Method-table types (the tables themselves are generated per revision) and the
//! `resultType`-first classification of results.

use crate::decode::DecodeError;
use crate::json::{JsonView, Kind};
use crate::rules::id;
use crate::validate::ValidationError;

/// Request or notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MethodKind {
    Request,
    Notification,
}

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    ClientToServer,
    ServerToClient,
    /// Sent by either side (e.g. `ping` before 2026-07-28).
    Both,
    /// An input request embedded in `InputRequiredResult.inputRequests` (2026-07-28), never a
    /// JSON-RPC request of its own.
    EmbeddedInput,
    /// The schema's direction unions do not list it.
    Unspecified,
}

/// One row of a revision's method table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodInfo {
    pub method: &'static str,
    pub kind: MethodKind,
    pub direction: Direction,
    /// Definition of the whole request or notification (`CallToolRequest`).
    pub request_def: &'static str,
    /// Type of `params` (`CallToolRequestParams`), when the schema names one.
    pub params_type: Option<&'static str>,
    pub params_required: bool,
    /// Result definitions: the complete result first, then `InputRequiredResult` where the
    /// method may answer `input_required`.
    pub result_defs: &'static [&'static str],
    /// Whether the method may answer `resultType: "input_required"` (RESULT-5).
    pub input_required: bool,
    /// The result of a task-augmented request (`params.task`, 2025-11-25): `CreateTaskResult`
    /// where the method supports task augmentation, else `None`.
    pub task_result: Option<&'static str>,
}

/// The definition an error response's `error.code` selects (one row of the generated
/// `mcpgen::error_codes::ERROR_DEFS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorDef {
    pub code: i64,
    pub def: &'static str,
    /// True when the definition is a whole error response (`{jsonrpc, id, error}`: the MCP
    /// codes); false when it is a bare `Error` object (the JSON-RPC codes, Q-11).
    pub whole_response: bool,
}

/// What a request method's complete result carries (one row of a revision's generated
/// `RESULT_SHAPES`): what a peer must stamp on the results it sends, and which array a
/// lenient list decode may thin out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultShape {
    pub method: &'static str,
    /// The complete result's definition (`ListToolsResult`).
    pub result_def: &'static str,
    /// The definition declares `resultType` (2026-07-28 and later; RESULT-1).
    pub result_type: bool,
    /// The `_meta` keys the definition declares (`io.modelcontextprotocol/serverInfo` from
    /// 2026-07-28 on; none before).
    pub meta_keys: &'static [&'static str],
    /// For a paginated list result, its items.
    pub list: Option<ListItems>,
}

impl ResultShape {
    /// Whether the result's `_meta` declares `key`.
    pub fn declares_meta_key(&self, key: &str) -> bool {
        self.meta_keys.contains(&key)
    }
}

/// The items of a paginated list result: the required array member and its item definition
/// (`tools` of `Tool`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListItems {
    pub key: &'static str,
    pub item_def: &'static str,
}

/// What selects a result's definition: the method of the request it answers, whether that
/// request was task-augmented (`params.task`, 2025-11-25), and the `resultType` values of the
/// extensions the client negotiated (RESULT-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultFor<'a> {
    pub method: &'a str,
    pub task_augmented: bool,
    pub extension_result_types: &'a [&'a str],
}

impl<'a> ResultFor<'a> {
    /// A plain (not task-augmented) request of `method`, no extensions.
    pub const fn method(method: &'a str) -> Self {
        ResultFor { method, task_augmented: false, extension_result_types: &[] }
    }
    /// The same, task-augmented or not.
    pub const fn task_augmented(self, yes: bool) -> Self {
        ResultFor { task_augmented: yes, ..self }
    }
    /// The same, accepting these extension `resultType` values.
    pub const fn extensions(self, extension_result_types: &'a [&'a str]) -> Self {
        ResultFor { extension_result_types, ..self }
    }
}

fn invalid(pointer: &str, keyword: &'static str, rule: Option<&'static str>, message: String) -> DecodeError {
    DecodeError::Invalid(vec![ValidationError::new(pointer, keyword, message).with_rule(rule)])
}

/// The definition a result is checked and decoded against, chosen by `resultType` first, then by
/// the request (RESULT-1, -2, -3, -5, MRTR-3): `Ok(None)` for a negotiated extension's
/// `resultType` (kept raw). `info` is the request method's row in the `revision`'s table.
///
/// Errors: an unknown method (also one removed in this revision) is
/// [`DecodeError::UnknownMethod`]; a notification gets no result (MSG-4); a `resultType` that is
/// not core and not negotiated is RESULT-3; `input_required` for a method that may not answer it
/// is RESULT-5, and without `inputRequests` or `requestState` MRTR-3.
pub fn result_definition<'v, V: JsonView<'v>>(
    v: &V,
    req: &ResultFor<'_>,
    info: Option<&'static MethodInfo>,
    revision: &'static str,
    has_result_type: bool,
) -> Result<Option<&'static str>, DecodeError> {
    let method = req.method;
    let Some(info) = info else {
        return Err(DecodeError::unknown_method(revision, method));
    };
    if info.kind == MethodKind::Notification {
        return Err(DecodeError::Protocol {
            rule: id::MSG_4,
            pointer: String::new(),
            message: format!("`{method}` is a notification: it is never answered, so it has no result"),
        });
    }
    if v.kind() != Kind::Object {
        return Err(invalid("", "type", None, format!("a result must be an object, found {}", v.describe())));
    }
    let complete = info.result_defs.iter().copied().find(|r| *r != "InputRequiredResult");
    let complete = if req.task_augmented { info.task_result.or(complete) } else { complete };
    let Some(complete) = complete else {
        return Err(DecodeError::Internal(format!("`{method}` has no result definition in {revision}")));
    };
    if !has_result_type {
        return Ok(Some(complete));
    }
    let Some(rt) = v.get("resultType") else {
        // RESULT-2: an earlier-revision server's result is `complete`.
        return Ok(Some(complete));
    };
    let Some(rt) = rt.as_str() else {
        return Err(invalid(
            "/resultType",
            "type",
            Some(id::RESULT_1),
            format!("`resultType` must be a string, found {}", rt.describe()),
        ));
    };
    match rt.as_ref() {
        "complete" => Ok(Some(complete)),
        "input_required" if v.get("inputRequests").is_none() && v.get("requestState").is_none() => {
            Err(DecodeError::Protocol {
                rule: id::MRTR_3,
                pointer: String::new(),
                message: "an `input_required` result needs `inputRequests`, `requestState`, or both".into(),
            })
        }
        "input_required" if !info.input_required => Err(DecodeError::Protocol {
            rule: id::RESULT_5,
            pointer: "/resultType".into(),
            message: format!(
                "`{method}` may not answer `input_required` (only tools/call, prompts/get and resources/read may)"
            ),
        }),
        "input_required" => Ok(Some("InputRequiredResult")),
        other if req.extension_result_types.contains(&other) => Ok(None),
        other => Err(DecodeError::Protocol {
            rule: id::RESULT_3,
            pointer: "/resultType".into(),
            message: format!(
                "unknown `resultType` `{other}`: not a core value (`complete`, `input_required`) and not one of the negotiated extensions' values"
            ),
        }),
    }
}
