//! The Tasks extension's rules wherever a message is judged: its
//! methods exist only where it is negotiated, `resultType: "task"` selects the extension's
//! `CreateTaskResult` only for a supported request that declared it, and the results of its
//! methods are judged by the task's status (TASK-* in the rules catalogue).
//!
//! Negotiation is per request: a request declares the extension in its own
//! `_meta["io.modelcontextprotocol/clientCapabilities"].extensions` (TASK-1: earlier
//! declarations do not count). Where no request is at hand (a notification, a result judged
//! alone) the caller says what was negotiated.

use crate::decode::{DecodeError, DecodedResult};
use crate::ext::Extension;
use crate::json::{JsonView, Kind, Map, Value};
use crate::methods::{MethodInfo, MethodKind};
use crate::rules::id;
use crate::validate::{Options, Path, Policy, ValidationError};
use crate::Revision;

use crate::protocol::{check_result_view, find_method, rule_error, validate_collecting, ProtocolError};

use super::negotiation::{
    extension, supports_tasks, Answering, EXTENSION_ID, STATUS_NOTIFICATION, SUPPORTED_REQUESTS, TASK_RESULT_TYPE,
};

/// The extension's row of `method` under `rev` (the revision it layers on), if it adds it.
pub(crate) fn row(rev: Revision, method: &str) -> Option<&'static MethodInfo> {
    let ext = extension()?;
    (ext.layers_on() == rev).then(|| ext.method(method)).flatten()
}

/// Whether `info` is a row of the extension's method table (not of a revision's).
pub(crate) fn is_row(info: &MethodInfo) -> bool {
    extension().and_then(|e| e.method(info.method)).is_some_and(|r| std::ptr::eq(r, info))
}

/// -32021 (HTTP 400) naming the extension in `data.requiredCapabilities` (TASK-4, TASK-23,
/// TASK-24): what a server answers a request that needs the extension but did not declare it.
pub fn missing_extension_error(id: Option<Value>) -> ProtocolError {
    let mut e = crate::protocol::missing_capability_error(id, required_capabilities());
    e.rule = id::TASK_4;
    e
}

/// `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`.
pub fn required_capabilities() -> Value {
    let mut ext = Map::new();
    ext.push(EXTENSION_ID, Value::Object(Map::new()));
    let mut caps = Map::new();
    caps.push("extensions", Value::Object(ext));
    Value::Object(caps)
}

/// Runs an extension validator in collecting mode (fail-fast first); errors go to `errors`.
pub(crate) fn validate_ext_at<'v, V: JsonView<'v>>(
    ext: Extension,
    name: &str,
    v: &V,
    p: &Path<'_>,
    opts: Options,
    errors: &mut Vec<ValidationError>,
) -> bool {
    let owner = || format!("extension {}", ext.id());
    validate_collecting(owner, name, p, opts, errors, |cx| ext.validate_view(name, v, p, cx))
}

/// Validates a request or notification of the extension: `params` against the row's params
/// definition (errors inside `/params`), or the whole message.
pub(crate) fn validate_message_of_row<'v, V: JsonView<'v>>(
    info: &MethodInfo,
    v: &V,
    params: Option<&V>,
    opts: Options,
    errors: &mut Vec<ValidationError>,
) {
    let Some(ext) = extension() else { return };
    let root = Path::Root;
    match (info.params_type.filter(|pt| ext.definition(pt).is_some()), params) {
        (Some(pt), Some(params)) => {
            validate_ext_at(ext, pt, params, &root.key("params"), opts, errors);
        }
        _ => {
            validate_ext_at(ext, info.request_def, v, &root, opts, errors);
        }
    }
    if info.method == STATUS_NOTIFICATION {
        if let Some(p) = params {
            status_members(p, "/params", errors);
        }
    }
}

/// What the extension makes of a result: `None` when the core judges it (no `task` result, not
/// one of the extension's methods, or the extension not negotiated for them); else the
/// definition it was judged against, or the errors (pointers relative to the result).
pub(crate) fn judge_result<'v, V: JsonView<'v>>(
    rev: Revision,
    req: &Answering<'_>,
    result: &V,
    opts: Options,
) -> Option<Result<&'static str, Vec<ValidationError>>> {
    let ext = extension()?;
    if ext.layers_on() != rev || result.kind() != Kind::Object {
        return None;
    }
    let mut opts = opts;
    opts.client_leniency = true;
    opts.discriminate_results = true;
    let rt = result.get("resultType");
    if let Some(info) = ext.method(req.method).filter(|i| i.kind == MethodKind::Request) {
        if !req.negotiated {
            return None;
        }
        return Some(own_method_result((ext, rev), req, info, result, rt.as_ref(), opts));
    }
    if !rt.as_ref().is_some_and(|r| r.str_eq(TASK_RESULT_TYPE)) {
        return handle_sent_complete(req, result, rt.as_ref()).map(Err);
    }
    Some(create_task_result(ext, req, result, opts))
}

/// A result of one of the extension's own requests (`tasks/get`, `tasks/update`,
/// `tasks/cancel`; `info` its row): its `resultType` (`rt`) is `complete`, then the result is
/// judged by its method. The definition judged against, or the errors.
#[inline]
fn own_method_result<'v, V: JsonView<'v>>(
    (ext, rev): (Extension, Revision),
    req: &Answering<'_>,
    info: &MethodInfo,
    result: &V,
    rt: Option<&V>,
    opts: Options,
) -> Result<&'static str, Vec<ValidationError>> {
    let mut errors = Vec::new();
    let def = info.result_defs.first().copied().unwrap_or("Result");
    if let Some(rt) = rt.filter(|r| !r.str_eq("complete")) {
        errors.push(not_complete(req.method, rt));
    }
    let wrong_type = !errors.is_empty();
    if req.method == "tasks/get" {
        task_status_result((ext, rev), req.task_of, def, result, opts, &mut errors);
    } else if !wrong_type {
        acknowledgement(ext, req.method, def, result, opts, &mut errors);
    }
    if wrong_type {
        // The rule error at `/resultType` says what the schema's `const` would.
        errors.retain(|e| e.pointer != "/resultType" || e.schema_path.is_empty());
    }
    dedup(&mut errors);
    if errors.is_empty() {
        Ok(def)
    } else {
        Err(errors)
    }
}

/// TASK-15, TASK-20, TASK-21 (TASK-6 for `task`): the `resultType` of a result of the
/// extension's `method`, other than `complete`.
fn not_complete<'v, V: JsonView<'v>>(method: &str, rt: &V) -> ValidationError {
    let (rule, what) = if method == "tasks/get" {
        (id::TASK_15, "a `tasks/get` result carries `resultType: \"complete\"`")
    } else if method == "tasks/update" {
        (id::TASK_20, "a `tasks/update` acknowledgement carries `resultType: \"complete\"`")
    } else {
        (id::TASK_21, "a `tasks/cancel` acknowledgement carries `resultType: \"complete\"`")
    };
    let is_task = rt.str_eq(TASK_RESULT_TYPE);
    let rule = if is_task { id::TASK_6 } else { rule };
    let extra = if is_task { " (`task` is only for a `CreateTaskResult`)" } else { "" };
    rule_error("/resultType".into(), "const", rule, format!("{what}, not {}{extra}", rt.describe()))
}

/// A `tasks/get` result, by status: the result envelope, then the definition of that status
/// (`def` when it has none, TASK-10), the members the status requires, and a completed task's
/// `result` as the result of the task's method (`task_of`, when known).
#[inline]
fn task_status_result<'v, V: JsonView<'v>>(
    (ext, rev): (Extension, Revision),
    task_of: Option<&str>,
    def: &str,
    result: &V,
    opts: Options,
    errors: &mut Vec<ValidationError>,
) {
    let root = Path::Root;
    validate_ext_at(ext, "Result", result, &root, opts, errors);
    match status_def(result) {
        Some(arm) => {
            let mut found = Vec::new();
            if !validate_ext_at(ext, def, result, &root, opts, &mut found) {
                // The status's own definition says precisely what is wrong; it does not
                // declare the result's `resultType` and `_meta`.
                found.clear();
                validate_ext_at(ext, arm, result, &root, opts, &mut found);
                found.retain(|e| {
                    !(e.rule == Some(id::POLICY_STRICT) && (e.pointer == "/resultType" || e.pointer == "/_meta"))
                });
                if found.is_empty() {
                    validate_ext_at(ext, def, result, &root, opts, &mut found);
                }
            }
            status_members(result, "", &mut found);
            errors.extend(found);
        }
        None => {
            validate_ext_at(ext, def, result, &root, opts, errors);
            tag_all(errors, id::TASK_10);
        }
    }
    if let (Some(method), Some(inner)) = (task_of, completed_result(result)) {
        inner_result(rev, method, &inner, "/result", opts, errors);
    }
}

/// A `tasks/update` or `tasks/cancel` acknowledgement (`method`): an empty result, judged
/// against `def`, each member beyond `resultType` and `_meta` reported, every error under
/// TASK-20 or TASK-21.
#[inline]
fn acknowledgement<'v, V: JsonView<'v>>(
    ext: Extension,
    method: &str,
    def: &str,
    result: &V,
    opts: Options,
    errors: &mut Vec<ValidationError>,
) {
    let before = errors.len();
    validate_ext_at(ext, def, result, &Path::Root, opts, errors);
    let rule = if method == "tasks/update" { id::TASK_20 } else { id::TASK_21 };
    for (k, _) in result.entries() {
        if k != "resultType" && k != "_meta" {
            errors.push(rule_error(
                format!("/{k}"),
                "additionalProperties",
                rule,
                format!("`{method}` is acknowledged with an empty result; `{k}` is not part of it"),
            ));
        }
    }
    for e in &mut errors[before..] {
        e.rule.get_or_insert(rule);
    }
}

/// TASK-5: a task handle (`taskId`, `status`, no `content`) sent as a complete result (`rt`
/// its `resultType`, not `task`) to a request that negotiated tasks and supports them.
#[inline]
fn handle_sent_complete<'v, V: JsonView<'v>>(
    req: &Answering<'_>,
    result: &V,
    rt: Option<&V>,
) -> Option<Vec<ValidationError>> {
    let handle = result.get("taskId").is_some() && result.get("status").is_some() && result.get("content").is_none();
    if !(req.negotiated && supports_tasks(req.method) && handle) {
        return None;
    }
    Some(vec![rule_error(
        "/resultType".into(),
        "const",
        id::TASK_5,
        format!(
            "this `{}` result is a task handle (`taskId`, `status`) but its `resultType` is {}: a `CreateTaskResult` carries `resultType: \"task\"`",
            req.method,
            rt.map_or("absent".into(), |r| r.describe())
        ),
    )])
}

/// A `CreateTaskResult` (`resultType: "task"`): only for a request that declared the extension
/// (TASK-1) and that the extension supports tasks for (TASK-3; TASK-6 for its own methods),
/// then judged against its definition.
fn create_task_result<'v, V: JsonView<'v>>(
    ext: Extension,
    req: &Answering<'_>,
    result: &V,
    opts: Options,
) -> Result<&'static str, Vec<ValidationError>> {
    if !req.negotiated {
        return Err(vec![rule_error(
            "/resultType".into(),
            "enum",
            id::TASK_1,
            format!(
                "a `CreateTaskResult` (`resultType: \"task\"`) answers only a request that declared `{EXTENSION_ID}` in its own `_meta` client capabilities; this `{}` did not",
                req.method
            ),
        )]);
    }
    if !supports_tasks(req.method) {
        return Err(vec![rule_error(
            "/resultType".into(),
            "enum",
            if ext.method(req.method).is_some() { id::TASK_6 } else { id::TASK_3 },
            format!(
                "`{}` may not be answered with a task: the extension supports tasks for {} only, so this `CreateTaskResult` is an invalid response",
                req.method,
                SUPPORTED_REQUESTS.join(", ")
            ),
        )]);
    }
    let mut errors = Vec::new();
    if validate_ext_at(ext, "CreateTaskResult", result, &Path::Root, opts, &mut errors) {
        Ok("CreateTaskResult")
    } else {
        Err(errors)
    }
}

/// The definition of a task's status (`WorkingTask`, …), `None` for a missing or unknown one.
fn status_def<'v, V: JsonView<'v>>(task: &V) -> Option<&'static str> {
    let status = task.get("status")?;
    let s = status.as_str()?;
    Some(match s.as_ref() {
        "working" => "WorkingTask",
        "input_required" => "InputRequiredTask",
        "completed" => "CompletedTask",
        "failed" => "FailedTask",
        "cancelled" => "CancelledTask",
        _ => return None,
    })
}

/// A completed task's `result` member, when it is an object.
pub(crate) fn completed_result<'v, V: JsonView<'v>>(task: &V) -> Option<V> {
    if !task.get("status").is_some_and(|s| s.str_eq("completed")) {
        return None;
    }
    task.get("result").filter(|r| r.kind() == Kind::Object)
}

/// TASK-13: a completed task's `result` judged as the complete result of `method` (errors
/// point below `at`).
pub(crate) fn inner_result<'v, V: JsonView<'v>>(
    rev: Revision,
    method: &str,
    inner: &V,
    at: &str,
    opts: Options,
    errors: &mut Vec<ValidationError>,
) {
    let Some(info) = find_method(rev, method) else { return };
    if let Some(rt) = inner.get("resultType").filter(|r| !r.str_eq("complete")) {
        errors.push(rule_error(
            format!("{at}/resultType"),
            "const",
            id::TASK_13,
            format!("a completed task's `result` is the final result of its `{method}`, so its `resultType` is `complete`, not {}", rt.describe()),
        ));
        return;
    }
    let req = crate::methods::ResultFor::method(method);
    if let Err(found) = check_result_view(rev, info, &req, inner, opts) {
        for mut e in found {
            e.pointer.insert_str(0, at);
            e.rule.get_or_insert(id::TASK_13);
            errors.push(e);
        }
    }
}

/// TASK-11/13/14: the member a status requires, checked by rule (a notification's `params` or
/// a result; `at` is its pointer).
pub(crate) fn status_members<'v, V: JsonView<'v>>(task: &V, at: &str, errors: &mut Vec<ValidationError>) {
    let Some(status) = task.get("status").and_then(|s| s.as_str()) else { return };
    let (member, rule) = match status.as_ref() {
        "input_required" => ("inputRequests", id::TASK_11),
        "completed" => ("result", id::TASK_13),
        "failed" => ("error", id::TASK_14),
        _ => return,
    };
    let schema_said =
        errors.iter().any(|e| e.pointer == at && e.keyword == "required" && e.message.contains(&format!("`{member}`")));
    if task.get(member).is_none() && !schema_said {
        errors.push(rule_error(
            at.to_owned(),
            "required",
            rule,
            format!("a task with status `{status}` carries `{member}`"),
        ));
    }
    tag_status_errors(errors, at);
}

/// Gives the schema's complaints about a status's member the rule that requires it.
fn tag_status_errors(errors: &mut [ValidationError], at: &str) {
    for e in errors.iter_mut().filter(|e| e.rule.is_none()) {
        let rule = if e.pointer.starts_with(&format!("{at}/inputRequests")) || e.message.contains("`inputRequests`") {
            id::TASK_11
        } else if e.pointer.starts_with(&format!("{at}/error")) || e.message.contains("`error`") {
            id::TASK_14
        } else if e.pointer.starts_with(&format!("{at}/result")) || e.message.contains("`result`") {
            id::TASK_13
        } else {
            id::TASK_10
        };
        e.rule = Some(rule);
    }
}

fn tag_all(errors: &mut [ValidationError], rule: &'static str) {
    for e in errors.iter_mut() {
        e.rule.get_or_insert(rule);
    }
}

fn dedup(errors: &mut Vec<ValidationError>) {
    let mut seen = std::collections::HashSet::new();
    errors.retain(|e| seen.insert((e.pointer.clone(), e.keyword, e.message.clone())));
    // A rule error and the schema's `required` for the same member say one thing.
    let rule_required: Vec<(String, &'static str)> = errors
        .iter()
        .filter(|e| e.keyword == "required" && e.schema_path.is_empty())
        .filter_map(|e| e.rule.map(|r| (e.pointer.clone(), r)))
        .collect();
    errors.retain(|e| {
        !(e.keyword == "required"
            && !e.schema_path.is_empty()
            && rule_required.iter().any(|(p, r)| *p == e.pointer && e.rule == Some(*r)))
    });
}

/// Decodes a result the extension owns ([`judge_result`] said so): `None` when the core
/// decodes it.
pub(crate) fn decode_result_view<'v, V: JsonView<'v>>(
    rev: Revision,
    req: &Answering<'_>,
    result: &V,
    policy: Policy,
) -> Option<Result<DecodedResult, DecodeError>> {
    let verdict = judge_result(rev, req, result, Options::decoding(policy))?;
    let ext = extension()?;
    Some(match verdict {
        Ok(def) => crate::ext::decode_view(ext, def, result, policy).map(|value| DecodedResult::new(def, value)),
        Err(errors) => Err(DecodeError::Invalid(errors)),
    })
}
