//! The Tasks extension on the server: the fixture tools that run as tasks (`"behavior": "task"`),
//! the jobs that drive them, and the `tasks/get`, `tasks/update` and `tasks/cancel` handlers.
//!
//! A task tool's entry says how it runs (`job`) and whether it needs a task (`taskSupport`):
//! `required` tools answer -32021 naming the extension to a request that did not declare it
//! (TASK-4); `optional` ones then run to their result synchronously. A request that declared
//! the extension gets a `CreateTaskResult` (after the tool's MRTR `rounds`, if any, resolved
//! synchronously). Every status change goes to the listen streams that asked for the task
//! (`notifications/tasks`).
//!
//! Jobs: `sleep` (`ms`, or the `seconds` argument, then the rendered `result`), `error` (`ms`,
//! then the JSON-RPC `error`: the task fails), `input` (parks the task in `input_required` with
//! the rendered `inputs`, then renders `result` with the answers under `/answers`). Every wait
//! ends early on `tasks/cancel` (the task is then `cancelled`) or expiry.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::dispatch::{check_input_response, from_serde, Era};
use super::fixtures::{render, Entry};
use super::tasks::{Outcome, Task};
use super::wire::RpcError;
use super::Server;

/// The longest a `sleep` job sleeps (its `seconds` argument is clamped to this).
const MAX_SLEEP: Duration = Duration::from_secs(600);

/// Whether the request declared the Tasks extension in its own client capabilities (TASK-1).
fn declared(era: &Era) -> bool {
    mcpgen::ext::tasks::declares(&&era.client_capabilities())
}

impl Server {
    /// A `"behavior": "task"` tool; `cx` is the rendering context (with `/answers` after MRTR).
    pub(super) async fn call_task_tool(
        self: &Arc<Self>,
        entry: &Entry,
        era: &Era,
        cx: Value,
    ) -> Result<Value, RpcError> {
        let required = entry.str("taskSupport") == Some("required");
        let job = entry.spec.get("job").cloned().unwrap_or_else(|| json!({"kind": "sleep", "ms": 0}));
        if !declared(era) {
            if required {
                return Err(mcpgen::ext::tasks::missing_extension_error(None).into());
            }
            return run_inline(entry, &job, &cx).await;
        }
        // Input requests the client cannot answer are refused now, not parked forever (CAP-4).
        if let Some(inputs) = job.get("inputs").and_then(Value::as_object) {
            let caps = from_serde(&era.client_capabilities());
            for request in inputs.values() {
                let needed = mcpgen::protocol::required_capability(&from_serde(request));
                if let Some(missing) = mcpgen::protocol::missing_capabilities(&caps, &needed) {
                    return Err(mcpgen::protocol::missing_capability_error(None, missing).into());
                }
            }
        }
        let task = self.tasks.create().map_err(|full| RpcError::new(-32603, full.to_string()).with_http_status(503))?;
        let created = task.created();
        let server = Arc::clone(self);
        let entry = entry.clone();
        tokio::spawn(async move { server.run_job(task, entry, job, cx).await });
        Ok(created)
    }

    async fn run_job(self: Arc<Self>, task: Arc<Task>, entry: Entry, job: Value, mut cx: Value) {
        let outcome = match job["kind"].as_str().unwrap_or("sleep") {
            "input" => {
                let requests = render(&job["inputs"], &cx).as_object().cloned().unwrap_or_default();
                let keys: Vec<String> = requests.keys().cloned().collect();
                if !task.ask(requests) {
                    // Too many requests, or a key used before (TASK-17/18): the job cannot go
                    // on (a task already terminal stays as it is, see `Task::finish`).
                    Outcome::Failed(RpcError::new(-32603, "the task's input requests cannot be issued"))
                } else {
                    self.notify_task(&task);
                    match task.answers(&keys).await {
                        Some(answers) => {
                            cx["answers"] = Value::Object(answers);
                            Outcome::Completed(render(&entry.spec["result"], &cx))
                        }
                        None => Outcome::Cancelled,
                    }
                }
            }
            _ => {
                tokio::select! {
                    outcome = run_inline(&entry, &job, &cx) => match outcome {
                        Ok(result) => Outcome::Completed(result),
                        Err(e) => Outcome::Failed(e),
                    },
                    () = task.cancelled() => Outcome::Cancelled,
                }
            }
        };
        // A cancel that raced the end of the work still counts: the client asked first.
        let outcome = if task.cancel_requested() { Outcome::Cancelled } else { outcome };
        if task.finish(outcome) {
            self.notify_task(&task);
        }
    }

    /// Sends the task's current state to every listen stream that asked for it.
    pub(super) fn notify_task(&self, task: &Task) {
        self.listeners.notify_task(&task.id, &task.detailed());
    }

    /// `tasks/get`, `tasks/update`, `tasks/cancel` (accepted by `check_request`, so the request
    /// declared the extension, TASK-24). An unknown or expired task is -32602 (TASK-25).
    pub(super) fn task_request(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        let id = params.get("taskId").and_then(Value::as_str).unwrap_or_default();
        let unknown = || RpcError::invalid_params(format!("Task not found (or expired): {id}"));
        match method {
            "tasks/get" => Ok(self.tasks.get(id).ok_or_else(unknown)?.detailed()),
            "tasks/update" => {
                let task = self.tasks.get(id).ok_or_else(unknown)?;
                let responses = match params.get("inputResponses") {
                    Some(Value::Object(m)) => m.clone(),
                    _ => return Err(RpcError::invalid_params("inputResponses must be an object")),
                };
                // Answers to outstanding keys must be what their request asks for; the others
                // are ignored (the extension: keys never issued, or already answered).
                let outstanding = task.input_requests();
                let mut kept = Map::new();
                for (key, answer) in responses {
                    if let Some(request) = outstanding.get(&key) {
                        check_input_response(request, &key, &answer)?;
                        kept.insert(key, answer);
                    }
                }
                if task.answer(&kept) {
                    self.notify_task(&task);
                }
                Ok(json!({}))
            }
            "tasks/cancel" => {
                self.tasks.cancel(id).ok_or_else(unknown)?;
                Ok(json!({}))
            }
            other => Err(RpcError::new(-32601, format!("Method not found: {other}")).with_http_status(404)),
        }
    }
}

/// A job run to its result without a task (an `optional` tool for a client without the
/// extension), or the work part of a task's job.
async fn run_inline(entry: &Entry, job: &Value, cx: &Value) -> Result<Value, RpcError> {
    let wait = match job.get("ms").and_then(Value::as_u64) {
        Some(ms) => Duration::from_millis(ms),
        None => {
            let seconds = cx.pointer("/args/seconds").and_then(Value::as_f64).unwrap_or(0.0);
            Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(MAX_SLEEP).min(MAX_SLEEP)
        }
    };
    tokio::time::sleep(wait).await;
    match job["kind"].as_str() {
        Some("error") => {
            let code = job.pointer("/error/code").and_then(Value::as_i64).unwrap_or(-32603);
            let message = job.pointer("/error/message").and_then(Value::as_str).unwrap_or("Internal error");
            Err(RpcError::new(code, message))
        }
        Some("input") => Err(RpcError::new(-32603, "this tool needs client input, which only a task can carry")),
        _ => Ok(render(&entry.spec["result"], cx)),
    }
}
