//! `mcpgen_error`: every failure the core reports, flattened for C getters.

use std::any::Any;

use core_api::conversation::{Finding, Severity};
use core_api::icons::IconError;
use core_api::json::ParseError;
use core_api::protocol::{MetaKeyError, ProtocolError, ResponseError};
use core_api::tools::{LimitError, PinError, SchemaError, ToolCallError, ToolsJsonError};
use core_api::ValidationError;
use core_api::{CoreError, DecodeError};

use crate::{boundary, clear, object, put, required, McpgenStr, OwnedStr, Status};

/// One validation error (or the single entry of a parse error / protocol violation).
#[derive(Debug)]
struct Entry {
    pointer: OwnedStr,
    schema_path: OwnedStr,
    keyword: OwnedStr,
    rule: OwnedStr,
    message: OwnedStr,
    arm: OwnedStr,
    depth: usize,
    /// The stable snake_case kind of a tool-schema problem or an icon refusal (empty for
    /// schema validation errors).
    kind: OwnedStr,
    /// The URI a tool-schema problem is about (dialect or reference), else empty.
    uri: OwnedStr,
    /// A conversation finding's level; every other entry is an error.
    level: Severity,
    /// A conversation finding's era (`modern`, `legacy`) and revision, else empty.
    era: OwnedStr,
    revision: OwnedStr,
}

impl Default for Entry {
    fn default() -> Entry {
        Entry {
            pointer: OwnedStr::default(),
            schema_path: OwnedStr::default(),
            keyword: OwnedStr::default(),
            rule: OwnedStr::default(),
            message: OwnedStr::default(),
            arm: OwnedStr::default(),
            depth: 0,
            kind: OwnedStr::default(),
            uri: OwnedStr::default(),
            level: Severity::Error,
            era: OwnedStr::default(),
            revision: OwnedStr::default(),
        }
    }
}

/// `mcpgen_level` values.
pub(crate) const LEVEL_ERROR: u32 = 1;
pub(crate) const LEVEL_WARNING: u32 = 2;

/// `mcpgen_error`.
#[derive(Debug)]
pub struct ErrorObject {
    pub(crate) status: Status,
    text: OwnedStr,
    entries: Vec<Entry>,
    rule: OwnedStr,
    response_json: OwnedStr,
    code: i64,
    http_status: u16,
    legacy_initialize: bool,
}

impl ErrorObject {
    fn bare(status: Status, text: String) -> ErrorObject {
        ErrorObject {
            status,
            text: OwnedStr::new(text),
            entries: Vec::new(),
            rule: OwnedStr::default(),
            response_json: OwnedStr::default(),
            code: 0,
            http_status: 0,
            legacy_initialize: false,
        }
    }

    /// A local error about the call itself (NULL argument, unknown revision, …).
    pub fn call(status: Status, text: String) -> ErrorObject {
        ErrorObject::bare(status, text)
    }

    /// A verdict without details (validation asked for no error object).
    pub fn verdict(status: Status) -> ErrorObject {
        ErrorObject::bare(status, String::new())
    }

    /// A panic caught at the boundary.
    pub fn panic(payload: Box<dyn Any + Send>) -> ErrorObject {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic payload".to_owned());
        ErrorObject::bare(Status::Panic, format!("internal error (please report): panic: {what}"))
    }

    /// Any error of the core, marshalled as the core states it: the text is its `Display`, the
    /// protocol rule its rule, one entry per `CoreError::errors` (union arms flattened).
    /// `kinded`: each entry carries the error's kind (every error but a list of schema
    /// validation errors, whose entries have none).
    fn core(status: Status, e: &(impl CoreError + ?Sized), kinded: bool) -> ErrorObject {
        let mut out = ErrorObject::bare(status, e.to_string());
        out.rule = OwnedStr::new(e.rule().unwrap_or_default());
        flatten(&e.errors(), 0, "", if kinded { e.kind() } else { "" }, &mut out.entries);
        out
    }

    /// A decoding or validation failure of the core: the status by variant.
    pub fn decode(e: DecodeError) -> ErrorObject {
        let status = match &e {
            DecodeError::Parse(_) => Status::ParseError,
            DecodeError::Invalid(_) => Status::Invalid,
            DecodeError::Protocol { .. } | DecodeError::UnknownMethod { .. } => Status::ProtocolViolation,
            // Call errors (and the internal one) have no entries: the text says it all.
            DecodeError::UnknownDefinition { .. } => {
                return ErrorObject::call(Status::UnknownDefinition, e.to_string())
            }
            _ => return ErrorObject::call(Status::Internal, e.to_string()),
        };
        ErrorObject::core(status, &e, !matches!(e, DecodeError::Invalid(_)))
    }

    /// A refusal with the JSON-RPC error response to send (`check_request`,
    /// `negotiate_version`).
    pub fn protocol(status: Status, e: ProtocolError) -> ErrorObject {
        let mut text = e.to_string();
        append_errors(&mut text, &e.errors);
        let mut out = ErrorObject::bare(status, text);
        flatten(&e.errors(), 0, "", "", &mut out.entries);
        out.rule = OwnedStr::new(e.rule);
        out.response_json = OwnedStr::new(e.to_response_json());
        out.code = e.code;
        out.http_status = e.http_status;
        out.legacy_initialize = e.legacy_initialize;
        out
    }

    /// A response the client must treat as invalid.
    pub fn response(e: ResponseError) -> ErrorObject {
        let mut text = e.to_string();
        append_errors(&mut text, &e.errors);
        let mut out = ErrorObject::bare(Status::ResponseInvalid, text);
        flatten(&e.errors(), 0, "", "", &mut out.entries);
        out.rule = OwnedStr::new(e.rule.unwrap_or_default());
        out
    }

    /// One error with a kind (and maybe a rule and a pointer): the text and the single entry's
    /// message are both the core's `Display` (the tool-schema errors, which are no `CoreError`
    /// yet).
    fn kinded(status: Status, text: String, kind: &str, rule: Option<&str>, pointer: Option<&str>) -> ErrorObject {
        let mut out = ErrorObject::bare(status, text.clone());
        out.rule = OwnedStr::new(rule.unwrap_or_default());
        out.entries.push(Entry {
            pointer: OwnedStr::new(pointer.unwrap_or_default()),
            rule: OwnedStr::new(rule.unwrap_or_default()),
            message: OwnedStr::new(text),
            kind: OwnedStr::new(kind),
            ..Entry::default()
        });
        out
    }

    /// A `_meta` key that breaks the META-1 grammar: `MCPGEN_META_KEY_INVALID`, one entry with
    /// the variant's kind (`label_start`, …), rule META-1 and the core's message.
    pub fn meta_key(e: MetaKeyError) -> ErrorObject {
        ErrorObject::core(Status::MetaKeyInvalid, &e, true)
    }

    /// JSON text that could not be read (the tool calls, which parse before calling the core):
    /// `MCPGEN_PARSE_ERROR`, kind and keyword `parse`, the core's message.
    pub fn parse(e: &ParseError) -> ErrorObject {
        ErrorObject::core(Status::ParseError, e, true)
    }

    /// A document `mcpgen_check_tools` cannot check: not JSON (`MCPGEN_PARSE_ERROR`), or JSON
    /// that is no tool document (`MCPGEN_INVALID`); by variant, with its kind and pointer.
    pub fn tools_json(e: ToolsJsonError) -> ErrorObject {
        let status = match e {
            ToolsJsonError::Parse(ref p) => return ErrorObject::parse(p),
            _ => Status::Invalid,
        };
        ErrorObject::kinded(status, e.to_string(), e.kind(), e.rule(), e.pointer())
    }

    /// A refused limit (`mcpgen_tool_checker_set_limit*`): `MCPGEN_INVALID_ARGUMENT`, kind
    /// `unknown_limit` or `limit_too_large`.
    pub fn limit(e: LimitError) -> ErrorObject {
        ErrorObject::kinded(Status::InvalidArgument, e.to_string(), e.kind(), None, None)
    }

    /// A tool whose schemas cannot be used: one entry per problem, pointers into the document
    /// (each problem's pointer is prefixed with `prefix`, the tool's place in the document).
    pub fn tool_schema<'a>(problems: impl IntoIterator<Item = (&'a str, &'a SchemaError)>) -> ErrorObject {
        let mut out = ErrorObject::bare(Status::ToolSchemaInvalid, String::new());
        let mut text = String::from("the tool's schemas cannot be used:");
        for (prefix, e) in problems {
            let at = e.clone().with_pointer_prefix(prefix);
            text.push_str(&format!("\n  {at}"));
            out.entries.push(Entry {
                pointer: OwnedStr::new(at.pointer()),
                rule: OwnedStr::new(e.rule()),
                message: OwnedStr::new(e.message()),
                kind: OwnedStr::new(e.kind().as_str()),
                uri: OwnedStr::new(e.uri().unwrap_or_default()),
                ..Entry::default()
            });
        }
        out.text = OwnedStr::new(text);
        out
    }

    /// Arguments or structured content a tool's schema does not accept.
    pub fn tool_call(e: ToolCallError) -> ErrorObject {
        match e {
            ToolCallError::Schema(s) => ErrorObject::tool_schema(s.errors().iter().map(|e| ("", e))),
            ToolCallError::LimitExceeded(errors) => {
                instance(Status::LimitExceeded, "validation stopped at a cost limit (JSCHEMA-8):", &errors)
            }
            ToolCallError::Invalid(errors) => {
                instance(Status::Invalid, "the value does not conform to the tool's schema:", &errors)
            }
            // A variant a later mcpgen adds: its instance errors, as a refusal.
            other => instance(Status::Invalid, "the tool refused the value:", other.errors()),
        }
    }

    /// A tools pin file that cannot be used (`mcpgen_context_set_tools_baseline`):
    /// `MCPGEN_PIN_FILE_INVALID`, one entry with the variant's kind (`PinErrorKind::as_str`:
    /// `not_json`, `too_large`, …), its JSON pointer into the file and the core's message; the
    /// text is the core's `Display` (kind, place and message). No rule: the pin is the user's
    /// file, not a clause of the spec.
    pub fn pin(e: PinError) -> ErrorObject {
        let mut out = ErrorObject::bare(Status::PinFileInvalid, e.to_string());
        out.entries.push(Entry {
            pointer: OwnedStr::new(&e.pointer),
            message: OwnedStr::new(&e.message),
            kind: OwnedStr::new(e.kind.as_str()),
            ..Entry::default()
        });
        out
    }

    /// A refused icon: one entry with its kind, rule and message.
    pub fn icon(e: IconError) -> ErrorObject {
        ErrorObject::core(Status::IconRefused, &e, true)
    }

    /// The findings of one conversation message, in the checker's order: one entry each, with
    /// its level, rule, pointer, schema path, keyword and message.
    pub fn findings(status: Status, findings: Vec<Finding>) -> ErrorObject {
        let mut text = String::new();
        for f in &findings {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&f.to_string());
        }
        let mut out = ErrorObject::bare(status, text);
        out.entries = findings
            .into_iter()
            .map(|f| Entry {
                pointer: OwnedStr::new(f.pointer),
                schema_path: OwnedStr::new(f.schema_path),
                keyword: OwnedStr::new(f.keyword),
                rule: OwnedStr::new(f.rule.unwrap_or_default()),
                message: OwnedStr::new(f.message),
                level: f.level,
                era: OwnedStr::new(f.era.map(|e| e.as_str()).unwrap_or_default()),
                revision: OwnedStr::new(f.revision.map(|r| r.as_str()).unwrap_or_default()),
                ..Entry::default()
            })
            .collect();
        out
    }

    fn entry(&self, index: usize) -> Result<&Entry, ErrorObject> {
        self.entries.get(index).ok_or_else(|| {
            ErrorObject::call(
                Status::IndexOutOfRange,
                format!("entry {index} of an error with {} entries", self.entries.len()),
            )
        })
    }
}

/// Errors about an instance (tool arguments or structured content).
fn instance(status: Status, head: &str, errors: &[ValidationError]) -> ErrorObject {
    let mut text = head.to_owned();
    append_errors(&mut text, errors);
    let mut out = ErrorObject::bare(status, text);
    flatten(errors, 0, "", "", &mut out.entries);
    out
}

fn append_errors(text: &mut String, errors: &[ValidationError]) {
    for e in errors {
        text.push_str("\n  ");
        text.push_str(&e.to_string().replace('\n', "\n  "));
    }
}

/// Depth-first: each error, then the errors of each union arm it tried; every entry gets `kind`.
fn flatten(errors: &[ValidationError], depth: usize, arm: &str, kind: &str, out: &mut Vec<Entry>) {
    for e in errors {
        out.push(Entry {
            pointer: OwnedStr::new(&e.pointer),
            schema_path: OwnedStr::new(&e.schema_path),
            keyword: OwnedStr::new(e.keyword),
            rule: OwnedStr::new(e.rule.unwrap_or_default()),
            message: OwnedStr::new(&e.message),
            arm: OwnedStr::new(arm),
            depth,
            kind: OwnedStr::new(kind),
            ..Entry::default()
        });
        for a in &e.arms {
            flatten(&a.errors, depth + 1, a.arm, kind, out);
        }
    }
}

/// Shared body of the string getters: `out` required, cleared first.
fn get_str(out: *mut McpgenStr, f: impl FnOnce() -> Result<McpgenStr, ErrorObject>) -> Status {
    clear(out, McpgenStr::NULL);
    boundary(std::ptr::null_mut(), || {
        required(out, "out")?;
        put(out, f()?);
        Ok(Status::Ok)
    })
}

/// Shared body of the per-entry string getters.
fn entry_str(error: *const ErrorObject, index: usize, out: *mut McpgenStr, field: fn(&Entry) -> &OwnedStr) -> Status {
    get_str(out, || {
        let e = object(error, "error")?;
        Ok(field(e.entry(index)?).as_c())
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_free(error: *mut ErrorObject) {
    crate::free_object(error)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_status(error: *const ErrorObject, status_out: *mut Status) -> Status {
    clear(status_out, Status::Ok);
    boundary(std::ptr::null_mut(), || {
        required(status_out, "status_out")?;
        put(status_out, object(error, "error")?.status);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_text(error: *const ErrorObject, text_out: *mut McpgenStr) -> Status {
    get_str(text_out, || Ok(object(error, "error")?.text.as_c()))
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_count(error: *const ErrorObject, count_out: *mut usize) -> Status {
    clear(count_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(count_out, "count_out")?;
        put(count_out, object(error, "error")?.entries.len());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_pointer(error: *const ErrorObject, index: usize, out: *mut McpgenStr) -> Status {
    entry_str(error, index, out, |e| &e.pointer)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_schema_path(
    error: *const ErrorObject,
    index: usize,
    out: *mut McpgenStr,
) -> Status {
    entry_str(error, index, out, |e| &e.schema_path)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_keyword(error: *const ErrorObject, index: usize, out: *mut McpgenStr) -> Status {
    entry_str(error, index, out, |e| &e.keyword)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_rule(error: *const ErrorObject, index: usize, out: *mut McpgenStr) -> Status {
    entry_str(error, index, out, |e| &e.rule)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_message(error: *const ErrorObject, index: usize, out: *mut McpgenStr) -> Status {
    entry_str(error, index, out, |e| &e.message)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_era(error: *const ErrorObject, index: usize, out: *mut McpgenStr) -> Status {
    entry_str(error, index, out, |e| &e.era)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_revision(error: *const ErrorObject, index: usize, out: *mut McpgenStr) -> Status {
    entry_str(error, index, out, |e| &e.revision)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_kind(error: *const ErrorObject, index: usize, out: *mut McpgenStr) -> Status {
    entry_str(error, index, out, |e| &e.kind)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_uri(error: *const ErrorObject, index: usize, out: *mut McpgenStr) -> Status {
    entry_str(error, index, out, |e| &e.uri)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_arm(
    error: *const ErrorObject,
    index: usize,
    depth_out: *mut usize,
    arm_out: *mut McpgenStr,
) -> Status {
    clear(depth_out, 0);
    clear(arm_out, McpgenStr::NULL);
    boundary(std::ptr::null_mut(), || {
        required(depth_out, "depth_out")?;
        let e = object(error, "error")?.entry(index)?;
        put(depth_out, e.depth);
        put(arm_out, e.arm.as_c());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_protocol_rule(error: *const ErrorObject, out: *mut McpgenStr) -> Status {
    get_str(out, || Ok(object(error, "error")?.rule.as_c()))
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_response_json(error: *const ErrorObject, out: *mut McpgenStr) -> Status {
    get_str(out, || Ok(object(error, "error")?.response_json.as_c()))
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_jsonrpc_code(
    error: *const ErrorObject,
    code_out: *mut i64,
    http_status_out: *mut u16,
) -> Status {
    clear(code_out, 0);
    clear(http_status_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(code_out, "code_out")?;
        let e = object(error, "error")?;
        put(code_out, e.code);
        put(http_status_out, e.http_status);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_legacy_initialize(error: *const ErrorObject, legacy_out: *mut bool) -> Status {
    clear(legacy_out, false);
    boundary(std::ptr::null_mut(), || {
        required(legacy_out, "legacy_out")?;
        put(legacy_out, object(error, "error")?.legacy_initialize);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_error_level(error: *const ErrorObject, index: usize, level_out: *mut u32) -> Status {
    clear(level_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(level_out, "level_out")?;
        let level = match object(error, "error")?.entry(index)?.level {
            Severity::Error => LEVEL_ERROR,
            Severity::Warning => LEVEL_WARNING,
        };
        put(level_out, level);
        Ok(Status::Ok)
    })
}
