//! Tasks from the client side: 2025-11-25 task-augmented requests (`params.task`, polled with
//! `tasks/get`, then `tasks/result`) and the 2026-07-28 Tasks extension (a tool that needs a
//! task is learnt from its -32021, called again declaring the extension, its task followed).

use serde_json::{json, Map, Value};

use super::{ClientError, Session, SessionEra};

/// `tasks/get` polls of one task before the client gives up on it, and the bounds of the
/// interval between them (the server's `pollInterval`, clamped).
const MAX_TASK_POLLS: usize = 120;
const TASK_POLL_MS: (u64, u64) = (50, 1000);
/// The retention a task-augmented request asks for (`params.task.ttl`).
const TASK_TTL_MS: u64 = 60_000;

impl Session {
    /// Whether `tools/call` can be task-augmented here: a 2025-11-25 session whose server
    /// declared `tasks.requests.tools.call` (tasks are not part of 2026-07-28's core).
    pub fn server_runs_tool_tasks(&self) -> bool {
        matches!(self.era, SessionEra::Legacy(r) if r.as_str() >= "2025-11-25")
            && self.server_capabilities.pointer("/tasks/requests/tools/call").is_some_and(Value::is_object)
    }

    /// A task-augmented request (2025-11-25 tasks): `params.task` asks for a task, the
    /// `CreateTaskResult`'s task is polled with `tasks/get` at its `pollInterval` (clamped, at
    /// most [`MAX_TASK_POLLS`] times) until it leaves `working`, then `tasks/result` fetches
    /// the request's own result.
    pub async fn request_as_task(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let mut params = params;
        params["task"] = json!({ "ttl": TASK_TTL_MS });
        let created = self.request(method, params).await?;
        let missing = |what: &str| ClientError::Protocol(format!("{method}: the task-augmented answer has no {what}"));
        let task = created.get("task").ok_or_else(|| missing("`task`"))?;
        let id = task.get("taskId").and_then(Value::as_str).ok_or_else(|| missing("`task.taskId`"))?.to_owned();
        let poll_interval = |t: &Value| {
            let ms = t.get("pollInterval").and_then(Value::as_u64).unwrap_or(TASK_POLL_MS.0);
            std::time::Duration::from_millis(ms.clamp(TASK_POLL_MS.0, TASK_POLL_MS.1))
        };
        let mut status = task.get("status").and_then(Value::as_str).unwrap_or("working").to_owned();
        let mut interval = poll_interval(task);
        let mut polls = 0;
        while status == "working" {
            if polls == MAX_TASK_POLLS {
                return Err(ClientError::Protocol(format!(
                    "{method}: task {id} still working after {MAX_TASK_POLLS} polls"
                )));
            }
            polls += 1;
            tokio::time::sleep(interval).await;
            let t = self.request("tasks/get", json!({ "taskId": id })).await?;
            status = t.get("status").and_then(Value::as_str).unwrap_or("working").to_owned();
            interval = poll_interval(&t);
        }
        if status == "cancelled" {
            return Err(ClientError::Protocol(format!("{method}: task {id} was cancelled")));
        }
        // completed, failed, or input_required (tasks/result then carries the server's
        // requests on its stream until the task ends).
        self.request("tasks/result", json!({ "taskId": id })).await
    }

    /// Whether the server declared the Tasks extension in `server/discover`.
    pub fn server_offers_tasks(&self) -> bool {
        matches!(self.era, SessionEra::Modern(_)) && mcpgen::ext::tasks::declares(&&self.server_capabilities)
    }

    /// A modern `tools/call`. The extension has no per-tool declaration (the server decides per
    /// request), so a tool that needs a task is learnt from its -32021 naming the extension
    /// (TASK-4): where the server offers tasks, the call is repeated declaring the extension in
    /// its own `_meta` (TASK-1), and the task it creates is followed to its end.
    pub(super) async fn call_tool_modern(&mut self, params: Value) -> Result<Value, ClientError> {
        match self.request_modern("tools/call", params.clone()).await {
            Err(ClientError::Remote { code: -32021, data: Some(data), .. })
                if self.server_offers_tasks() && names_tasks(&data) =>
            {
                let name = params.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                self.shared.note(format!("tool {name:?} needs the Tasks extension (-32021): calling it as a task"));
                let created = self.request_declaring_tasks("tools/call", params).await?;
                if created.get("resultType").and_then(Value::as_str) == Some(mcpgen::ext::tasks::TASK_RESULT_TYPE) {
                    self.follow_task(created).await
                } else {
                    Ok(created)
                }
            }
            other => other,
        }
    }

    /// A modern request with the Tasks extension declared in its `_meta` client capabilities.
    async fn request_declaring_tasks(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.declaring_tasks = true;
        let out = self.request_modern(method, params).await;
        self.declaring_tasks = false;
        out
    }

    /// Polls a task (`tasks/get` at its `pollIntervalMs`, clamped, at most [`MAX_TASK_POLLS`]
    /// times) to a terminal status, answering each new `inputRequests` key once with
    /// `tasks/update` (keys already answered are not answered again). `completed` gives the
    /// task's `result`; `failed` its JSON-RPC error; `cancelled` a protocol error.
    async fn follow_task(&mut self, created: Value) -> Result<Value, ClientError> {
        let id = created.get("taskId").and_then(Value::as_str).unwrap_or_default().to_owned();
        let mut answered = std::collections::HashSet::new();
        let mut task = created;
        for _ in 0..MAX_TASK_POLLS {
            match task.get("status").and_then(Value::as_str).unwrap_or("working") {
                "completed" => return Ok(task.get("result").cloned().unwrap_or_else(|| json!({}))),
                "failed" => {
                    let e = task.get("error").cloned().unwrap_or_else(|| json!({}));
                    return Err(ClientError::Remote {
                        code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
                        message: e.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
                        data: e.get("data").cloned(),
                    });
                }
                "cancelled" => return Err(ClientError::Protocol(format!("task {id} was cancelled"))),
                "input_required" => {
                    let fresh: Map<String, Value> = task
                        .get("inputRequests")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .filter(|(k, _)| !answered.contains(k.as_str()))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    answered.extend(fresh.keys().cloned());
                    let answers = self.fulfil(Some(&Value::Object(fresh)));
                    if !answers.is_empty() {
                        let params = json!({ "taskId": id, "inputResponses": answers });
                        self.request_declaring_tasks("tasks/update", params).await?;
                    }
                }
                _ => {}
            }
            let ms = task.get("pollIntervalMs").and_then(Value::as_u64).unwrap_or(TASK_POLL_MS.0);
            tokio::time::sleep(std::time::Duration::from_millis(ms.clamp(TASK_POLL_MS.0, TASK_POLL_MS.1))).await;
            let params = json!({ "taskId": id });
            task = self.request_declaring_tasks("tasks/get", params).await?;
        }
        Err(ClientError::Protocol(format!("task {id} not finished after {MAX_TASK_POLLS} polls")))
    }
}

/// Whether a -32021's `data` names the Tasks extension in `requiredCapabilities`.
fn names_tasks(data: &Value) -> bool {
    data.get("requiredCapabilities").is_some_and(|c| mcpgen::ext::tasks::declares(&c))
}
