//! The Tasks extension (`io.modelcontextprotocol/tasks`) over a session: tasks created by a
//! `CreateTaskResult`, then polled (`tasks/get`), updated (`tasks/update`), cancelled
//! (`tasks/cancel`) and reported (`notifications/tasks`). A task remembers the method of the
//! request it answers (a completed task's `result` is judged as that method's result, TASK-13),
//! its terminal status (TASK-32) and its `inputRequests` keys with a digest of each request
//! (TASK-17, TASK-18, TASK-19). The table is capped by `ConversationOptions::max_tasks`, the
//! keys of one task by `max_entry_bytes`.

use std::hash::BuildHasher;

use crate::conversation::ext_api::{
    rule_finding, validation_finding, ConversationOptions, Facts, Finding, IdKey, Sender, Text,
};
use crate::json::{JsonView, Kind};
use crate::methods::MethodInfo;
use crate::rules::id;
use crate::validate::ValidationError;
use crate::Revision;

use super::rules as ext;
use super::table::{Key, Task, TaskRequest, TaskTable};
use super::{EXTENSION_ID, TASK_REQUESTS, TASK_RESULT_TYPE};

/// A request: what its answer needs (task id, update keys); TASK-19 for a `tasks/update`
/// answering keys that are not outstanding.
pub(super) fn request<'v, V: JsonView<'v>>(
    f: &Facts<'v, V>,
    method: &str,
    s: &TaskTable,
    out: &mut Vec<Finding>,
) -> Option<Box<TaskRequest>> {
    if f.from != Sender::Client || !TASK_REQUESTS.contains(&method) || !f.info.is_some_and(ext::is_row) {
        return None;
    }
    let task_id = f.param("taskId").and_then(|t| t.as_str()).map(|t| Text::new(&t))?;
    let mut keys = Vec::new();
    if method == "tasks/update" {
        // Judged only for a task whose `input_required` state was seen, with every key kept.
        let task = s.table.get(&task_id).filter(|t| t.seen_input && t.keys.len() < s.max_keys);
        if let Some(responses) = f.param("inputResponses").filter(|r| r.kind() == Kind::Object) {
            for (k, _) in responses.entries() {
                if let Some(task) = task {
                    let found = task.keys.iter().find(|x| x.key.is(&k));
                    if !found.is_some_and(|x| x.outstanding) {
                        let why = match found {
                            Some(x) if x.delivered => "already answered",
                            Some(_) => "no longer outstanding",
                            None => "never requested by the task",
                        };
                        out.push(rule_finding(
                            id::TASK_19,
                            crate::json::pointer::from_tokens(["params", "inputResponses", &k]),
                            "propertyNames",
                            format!("`inputResponses` key `{k}` names no outstanding `inputRequests` key of task {} ({why})", task_id.shown()),
                        ));
                    }
                }
                if keys.len() < s.max_keys {
                    keys.push(Text::new(&k));
                }
            }
        }
    }
    Some(Box::new(TaskRequest { task_id, keys }))
}

/// The method of the request a task answers, for judging a `tasks/get` result (TASK-13).
fn task_of(s: &TaskTable, mine: &Option<Box<TaskRequest>>) -> Option<&'static str> {
    let t = mine.as_ref()?;
    s.table.get(&t.task_id).map(|t| t.method)
}

/// A result of the extension's methods, or a `task` result, judged by the extension; `None`
/// when the core judges it. Errors point into `/result`.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_result<'v, V: JsonView<'v>>(
    s: &TaskTable,
    opts: &ConversationOptions,
    info: &'static MethodInfo,
    rev: Revision,
    declared: bool,
    mine: &Option<Box<TaskRequest>>,
    result: &V,
    out: &mut Vec<Finding>,
) -> Option<bool> {
    if ext::is_row(info) && !declared {
        out.push(rule_finding(
            id::TASK_24,
            "/result",
            "not",
            format!(
                "this `{}` did not declare `{}` in its own `_meta` client capabilities: the server answers -32021, not a result",
                info.method,
                EXTENSION_ID
            ),
        ));
        return Some(false);
    }
    let answering =
        super::negotiation::Answering { method: info.method, negotiated: declared, task_of: task_of(s, mine) };
    let verdict = ext::judge_result(rev, &answering, result, opts.validation)?;
    match verdict {
        Ok(_) => Some(true),
        Err(errors) => {
            for mut e in errors {
                e.pointer.insert_str(0, "/result");
                if !out.iter().any(|f| f.rule == e.rule && f.pointer == e.pointer && f.message == e.message) {
                    out.push(validation_finding(e));
                }
            }
            Some(false)
        }
    }
}

/// A valid result: a `CreateTaskResult` creates its task, a `tasks/get` result moves it, an
/// acknowledged `tasks/update` delivers its keys.
pub(super) fn answered<'v, V: JsonView<'v>>(
    info: &'static MethodInfo,
    mine: &Option<Box<TaskRequest>>,
    request: &IdKey,
    result: &V,
    s: &mut TaskTable,
    out: &mut Vec<Finding>,
) {
    if super::supports_tasks(info.method) && result.get("resultType").is_some_and(|r| r.str_eq(TASK_RESULT_TYPE)) {
        let Some(task_id) = result.get("taskId").and_then(|t| t.as_str()) else { return };
        let task =
            Task { method: info.method, request: request.clone(), terminal: None, keys: Vec::new(), seen_input: false };
        if let Some((old, _)) = s.table.insert(Text::new(&task_id), task) {
            let cap = s.table.cap();
            s.capped(
                TaskTable::TASKS,
                format_args!("more than {cap} tasks are remembered; the oldest ({}) is forgotten, so its later states are not checked (TASK-13, TASK-17..19, TASK-32)", old.shown()),
                out,
            );
        }
        status(&task_id, result, "/result", None, s, out);
        return;
    }
    let Some(t) = mine else { return };
    match info.method {
        "tasks/get" => {
            // Only the task it asked about.
            if let Some(x) = result.get("taskId").and_then(|x| x.as_str()).filter(|x| t.task_id.is(x)) {
                status(&x, result, "/result", None, s, out);
            }
        }
        "tasks/update" => {
            if let Some(task) = s.table.get_mut(&t.task_id) {
                for k in &t.keys {
                    if let Some(x) = task.keys.iter_mut().find(|x| x.key == *k) {
                        x.delivered = true;
                        x.outstanding = false;
                    }
                }
            }
        }
        _ => {}
    }
}

/// `notifications/tasks`: the task's state, as a `tasks/get` result would give it, with a
/// completed task's `result` judged as its request's result (TASK-13).
pub(super) fn notification<'v, V: JsonView<'v>>(
    f: &Facts<'v, V>,
    opts: &ConversationOptions,
    s: &mut TaskTable,
    out: &mut Vec<Finding>,
) {
    let Some(params) = f.params.as_ref() else { return };
    let Some(task_id) = params.get("taskId").and_then(|t| t.as_str()) else { return };
    let method = s.table.get(&Text::new(&task_id)).map(|t| t.method);
    let judge = method.map(|m| (m, opts.validation, f.rev));
    status(&task_id, params, "/params", judge, s, out);
}

/// The status a task shows (a `CreateTaskResult`, a `tasks/get` result, a notification's
/// `params`; `at` its pointer): TASK-32, the keys of `inputRequests` (TASK-17, TASK-18), and
/// for a notification the completed `result` (`judge`: the task's method).
fn status<'v, V: JsonView<'v>>(
    task_id: &str,
    v: &V,
    at: &str,
    judge: Option<(&'static str, crate::Options, crate::Revision)>,
    s: &mut TaskTable,
    out: &mut Vec<Finding>,
) {
    let max_keys = s.max_keys;
    let Some(task) = s.table.get_mut(&Text::new(task_id)) else { return };
    let Some(status) = v.get("status").and_then(|x| x.as_str()) else { return };
    let terminal = match status.as_ref() {
        "completed" => Some("completed"),
        "failed" => Some("failed"),
        "cancelled" => Some("cancelled"),
        _ => None,
    };
    if let Some(was) = task.terminal {
        if terminal != Some(was) {
            out.push(rule_finding(
                id::TASK_32,
                format!("{at}/status"),
                "const",
                format!("task {task_id} already reached the terminal status `{was}`; it cannot become `{status}`"),
            ));
        }
        return;
    }
    task.terminal = terminal;
    for k in &mut task.keys {
        k.outstanding = false;
    }
    let mut capped = false;
    if status == "input_required" {
        task.seen_input = true;
        if let Some(requests) = v.get("inputRequests").filter(|r| r.kind() == Kind::Object) {
            capped = input_request_keys(task, &requests, (task_id, at), max_keys, out);
        }
    }
    if capped {
        s.capped(
            TaskTable::KEYS,
            format_args!("task {task_id} has more than {max_keys} `inputRequests` keys (`max_entry_bytes`); the others are not checked (TASK-17..19)"),
            out,
        );
    }
    if let (Some((method, opts, rev)), Some(inner)) = (judge, ext::completed_result(v)) {
        let mut errors: Vec<ValidationError> = Vec::new();
        ext::inner_result(rev, method, &inner, &format!("{at}/result"), opts, &mut errors);
        for e in errors {
            out.push(validation_finding(e));
        }
    }
}

/// The keys of an `input_required` status's `inputRequests` (`(task_id, at)`: the task and the
/// status's pointer): each outstanding, a key naming a new request reported (TASK-17, or
/// TASK-18 once answered), new keys kept up to `max_keys`. Whether a key was not kept.
fn input_request_keys<'v, V: JsonView<'v>>(
    task: &mut Task,
    requests: &V,
    (task_id, at): (&str, &str),
    max_keys: usize,
    out: &mut Vec<Finding>,
) -> bool {
    let mut capped = false;
    for (key, request) in requests.entries() {
        let digest = digest(&request);
        let full = task.keys.len() >= max_keys;
        match task.keys.iter_mut().find(|x| x.key.is(&key)) {
            Some(x) if x.digest != digest => {
                x.outstanding = true;
                let (rule, why) = if x.delivered {
                    (id::TASK_18, "a response for it was already delivered; a new request needs a new key")
                } else {
                    (id::TASK_17, "it named a different request earlier in the task's lifetime")
                };
                out.push(rule_finding(
                    rule,
                    &{
                        let mut p = format!("{at}/inputRequests");
                        crate::json::pointer::push(&mut p, &key);
                        p
                    },
                    "uniqueKeys",
                    format!("`inputRequests` key `{key}` of task {task_id} names a new request: {why}"),
                ));
            }
            Some(x) => x.outstanding = !x.delivered,
            None if !full => task.keys.push(Key { key: Text::new(&key), digest, delivered: false, outstanding: true }),
            None => capped = true,
        }
    }
    capped
}

/// TASK-22: `notifications/cancelled` naming a request that became a task.
pub(super) fn cancelled<'v, V: JsonView<'v>>(f: &Facts<'v, V>, s: &TaskTable, out: &mut Vec<Finding>) {
    let Some(rid) = &f.request_id else { return };
    if f.from != Sender::Client || s.table.is_empty() {
        return;
    }
    if let Some((task_id, _)) = s.table.iter_ordered().find(|(_, t)| t.request == *rid) {
        out.push(rule_finding(
            id::TASK_22,
            "/params/requestId",
            "not",
            format!(
                "request {rid} became task {}: cancel it with `tasks/cancel`, not `notifications/cancelled`",
                task_id.shown()
            ),
        ));
    }
}

/// A digest of an input request, to tell a repeated request from a new one under one key.
fn digest<'v, V: JsonView<'v>>(v: &V) -> u64 {
    static KEY: std::sync::OnceLock<foldhash::quality::RandomState> = std::sync::OnceLock::new();
    KEY.get_or_init(foldhash::quality::RandomState::default).hash_one(crate::json::to_json_string(&v.to_value()))
}
