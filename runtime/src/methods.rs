//! Method-table types (the tables themselves are generated per revision) and the
//! `resultType`-first classification of results.

use crate::decode::DecodeError;
use crate::json::{JsonView, Kind};
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

/// How a result is to be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultClass {
    Complete,
    InputRequired,
    /// Unknown method or unknown `resultType`: keep the JSON as it is.
    Raw,
}

/// Classifies a result by `resultType` first, then by the method (RESULT-2, -5, -6).
pub fn classify_result<'v, V: JsonView<'v>>(
    v: &V,
    method: &str,
    info: Option<&MethodInfo>,
    has_result_type: bool,
) -> Result<ResultClass, DecodeError> {
    if v.kind() != Kind::Object {
        return Err(DecodeError::Invalid(vec![ValidationError {
            pointer: String::new(),
            schema_path: String::new(),
            keyword: "type",
            rule: None,
            message: format!("a result must be an object, found {}", v.describe()),
            arms: Vec::new(),
        }]));
    }
    let known = if info.is_some() { ResultClass::Complete } else { ResultClass::Raw };
    if !has_result_type {
        return Ok(known);
    }
    let Some(rt) = v.get("resultType") else {
        // RESULT-2: an earlier-revision server's result is `complete`.
        return Ok(known);
    };
    let Some(rt) = rt.as_str() else {
        return Err(DecodeError::Invalid(vec![ValidationError {
            pointer: "/resultType".into(),
            schema_path: String::new(),
            keyword: "type",
            rule: Some("RESULT-1"),
            message: format!("`resultType` must be a string, found {}", rt.describe()),
            arms: Vec::new(),
        }]));
    };
    match rt.as_ref() {
        "complete" => Ok(known),
        "input_required" => match info {
            Some(i) if i.input_required => Ok(ResultClass::InputRequired),
            Some(_) => Err(DecodeError::Protocol {
                rule: "RESULT-5",
                pointer: "/resultType".into(),
                message: format!(
                    "`{method}` may not answer `input_required` (only tools/call, prompts/get and resources/read may)"
                ),
            }),
            None => Ok(ResultClass::Raw),
        },
        _ => Ok(ResultClass::Raw),
    }
}
