//! The Tasks extension's table (`io.modelcontextprotocol/tasks`): the tasks a `tools/call`
//! created, each a small state machine (`working` → `input_required` ⇄ `working` → one of the
//! terminal `completed` / `failed` / `cancelled`, TASK-32), kept in memory until its TTL
//! elapses. The table is capped ([`TaskLimits::max_tasks`]): expired tasks go first, and when
//! every task left is alive a new one is refused ([`TasksFull`]). A leaf of the server: the
//! jobs that drive a task ([`super::task_jobs`]) and the method handlers use it.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Map, Value};
use tokio::sync::{watch, Notify};

use super::wire::RpcError;

/// The default of [`TaskLimits::max_tasks`].
pub const DEFAULT_MAX_TASKS: usize = 1024;
/// The default of [`TaskLimits::ttl`].
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(600);
/// The `pollIntervalMs` the server suggests.
pub const POLL_INTERVAL_MS: u64 = 100;
/// The `inputResponses` a task keeps before its job reads them (keys it asked for only, so at
/// most this many outstanding input requests per task; fixtures ask for two).
pub const MAX_INPUT_REQUESTS: usize = 16;

/// What the server keeps of tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// Tasks kept at once (at least one). At the cap expired tasks are dropped first; when
    /// none is expired, a `tools/call` that would create a task is refused ([`TasksFull`]).
    pub max_tasks: usize,
    /// How long a task is kept after its creation (its `ttlMs`); then it is dropped (a running
    /// job is stopped) and its id is unknown (-32602).
    pub ttl: Duration,
}

impl Default for TaskLimits {
    fn default() -> TaskLimits {
        TaskLimits { max_tasks: DEFAULT_MAX_TASKS, ttl: DEFAULT_TASK_TTL }
    }
}

/// A task's status (the extension's `TaskStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
    /// `completed`, `failed` and `cancelled` are final (TASK-32).
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// How a task ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The request's result (a `CallToolResult`, `isError` included: TASK-7).
    Completed(Value),
    /// The JSON-RPC error the request produced (TASK-14).
    Failed(RpcError),
    /// Stopped after `tasks/cancel`.
    Cancelled,
}

#[derive(Debug)]
struct State {
    status: Status,
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    /// Outstanding input requests, by key.
    input_requests: Map<String, Value>,
    /// Every key ever issued (TASK-17/18: never reused).
    issued: HashSet<String>,
    /// Answers received for outstanding keys, not yet taken by the job.
    responses: Map<String, Value>,
    result: Option<Value>,
    error: Option<Value>,
}

/// One task.
#[derive(Debug)]
pub struct Task {
    pub id: String,
    created: Instant,
    ttl: Duration,
    state: Mutex<State>,
    /// Set by `tasks/cancel` (or expiry): the job stops at its next wait.
    cancel: watch::Sender<bool>,
    /// Woken when answers arrive.
    input: Notify,
}

impl Task {
    /// The task as `tasks/get` and `notifications/tasks` show it (`DetailedTask`, without
    /// `resultType`).
    pub fn detailed(&self) -> Value {
        let s = self.state.lock().unwrap();
        let mut m = self.base(&s);
        match s.status {
            Status::InputRequired => {
                m.insert("inputRequests".into(), Value::Object(s.input_requests.clone()));
            }
            Status::Completed => {
                m.insert("result".into(), s.result.clone().unwrap_or_else(|| json!({"content": []})));
            }
            Status::Failed => {
                m.insert(
                    "error".into(),
                    s.error.clone().unwrap_or_else(|| json!({"code": -32603, "message": "failed"})),
                );
            }
            Status::Working | Status::Cancelled => {}
        }
        Value::Object(m)
    }

    /// The `CreateTaskResult` members (`resultType: "task"` and the seed state, no payload).
    pub fn created(&self) -> Value {
        let s = self.state.lock().unwrap();
        let mut m = self.base(&s);
        m.insert("resultType".into(), "task".into());
        Value::Object(m)
    }

    fn base(&self, s: &State) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("taskId".into(), self.id.clone().into());
        m.insert("status".into(), s.status.as_str().into());
        if let Some(msg) = &s.status_message {
            m.insert("statusMessage".into(), msg.clone().into());
        }
        m.insert("createdAt".into(), s.created_at.clone().into());
        m.insert("lastUpdatedAt".into(), s.last_updated_at.clone().into());
        m.insert("ttlMs".into(), u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX).into());
        m.insert("pollIntervalMs".into(), POLL_INTERVAL_MS.into());
        m
    }

    /// The outstanding input requests, by key.
    pub fn input_requests(&self) -> Map<String, Value> {
        self.state.lock().unwrap().input_requests.clone()
    }

    pub fn status(&self) -> Status {
        self.state.lock().unwrap().status
    }

    fn expired(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.created) > self.ttl
    }

    /// Whether `tasks/cancel` (or expiry) asked the job to stop.
    pub fn cancel_requested(&self) -> bool {
        *self.cancel.borrow()
    }

    /// Resolves once the task is asked to stop.
    pub async fn cancelled(&self) {
        let mut rx = self.cancel.subscribe();
        let _ = rx.wait_for(|&c| c).await;
    }

    /// Parks the task in `input_required` with these requests (keys new to the task); returns
    /// false when the task is already terminal, or a key was used before (TASK-17/18).
    pub fn ask(&self, requests: Map<String, Value>) -> bool {
        let mut s = self.state.lock().unwrap();
        if s.status.is_terminal()
            || requests.len() > MAX_INPUT_REQUESTS
            || requests.keys().any(|k| s.issued.contains(k))
        {
            return false;
        }
        for (k, r) in requests {
            s.issued.insert(k.clone());
            s.input_requests.insert(k, r);
        }
        s.status = Status::InputRequired;
        s.status_message = Some("Waiting for the client's input".into());
        s.last_updated_at = now_iso();
        true
    }

    /// `tasks/update`: keeps the answers to outstanding keys (others are ignored, as the
    /// extension says); the answered keys stop being outstanding at once, and the task goes
    /// back to `working` when none is left. Returns whether anything changed.
    pub fn answer(&self, responses: &Map<String, Value>) -> bool {
        let mut s = self.state.lock().unwrap();
        if s.status.is_terminal() {
            return false;
        }
        let mut changed = false;
        for (k, v) in responses {
            if s.input_requests.remove(k).is_some() {
                s.responses.insert(k.clone(), v.clone());
                changed = true;
            }
        }
        if changed {
            if s.input_requests.is_empty() {
                s.status = Status::Working;
                s.status_message = None;
            }
            s.last_updated_at = now_iso();
            drop(s);
            self.input.notify_one();
        }
        changed
    }

    /// Waits until every key in `keys` is answered (or the task is asked to stop: `None`);
    /// returns the answers.
    pub async fn answers(&self, keys: &[String]) -> Option<Map<String, Value>> {
        loop {
            {
                let s = self.state.lock().unwrap();
                if keys.iter().all(|k| s.responses.contains_key(k)) {
                    return Some(keys.iter().filter_map(|k| Some((k.clone(), s.responses.get(k)?.clone()))).collect());
                }
            }
            tokio::select! {
                () = self.input.notified() => {}
                () = self.cancelled() => return None,
            }
        }
    }

    /// Ends the task (a terminal task stays as it is, TASK-32); returns whether it changed.
    pub fn finish(&self, outcome: Outcome) -> bool {
        let mut s = self.state.lock().unwrap();
        if s.status.is_terminal() {
            return false;
        }
        s.input_requests.clear();
        match outcome {
            Outcome::Completed(result) => {
                s.status = Status::Completed;
                s.status_message = None;
                s.result = Some(result);
            }
            Outcome::Failed(e) => {
                s.status = Status::Failed;
                let object = e.to_error_object();
                s.status_message = object["message"].as_str().map(|m| format!("The request failed: {m}"));
                s.error = Some(object);
            }
            Outcome::Cancelled => {
                s.status = Status::Cancelled;
                s.status_message = Some("Cancelled by the client".into());
            }
        }
        s.last_updated_at = now_iso();
        true
    }
}

/// A new task was refused: [`TaskLimits::max_tasks`] live tasks are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TasksFull {
    pub max: usize,
}

impl std::fmt::Display for TasksFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the server already keeps {} live tasks; try again later", self.max)
    }
}

/// The task table.
#[derive(Debug)]
pub struct Tasks {
    limits: TaskLimits,
    table: Mutex<HashMap<String, Arc<Task>>>,
}

impl Tasks {
    pub fn new(limits: TaskLimits) -> Tasks {
        let limits = TaskLimits { max_tasks: limits.max_tasks.max(1), ..limits };
        Tasks { limits, table: Mutex::new(HashMap::new()) }
    }

    pub fn limits(&self) -> TaskLimits {
        self.limits
    }

    /// How many tasks are kept (expired ones included until the next sweep).
    pub fn len(&self) -> usize {
        self.table.lock().unwrap().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A new `working` task, in the table before this returns (TASK-8: `tasks/get` resolves
    /// it at once). Expired tasks are dropped first; at the cap it is refused.
    pub fn create(&self) -> Result<Arc<Task>, TasksFull> {
        let mut table = self.table.lock().unwrap();
        sweep(&mut table, Instant::now());
        if table.len() >= self.limits.max_tasks {
            return Err(TasksFull { max: self.limits.max_tasks });
        }
        let now = now_iso();
        let task = Arc::new(Task {
            id: new_task_id(),
            created: Instant::now(),
            ttl: self.limits.ttl,
            state: Mutex::new(State {
                status: Status::Working,
                status_message: Some("The operation is in progress".into()),
                created_at: now.clone(),
                last_updated_at: now,
                input_requests: Map::new(),
                issued: HashSet::new(),
                responses: Map::new(),
                result: None,
                error: None,
            }),
            cancel: watch::Sender::new(false),
            input: Notify::new(),
        });
        table.insert(task.id.clone(), Arc::clone(&task));
        Ok(task)
    }

    /// The task `id`, unless unknown or expired (TASK-25: the caller answers -32602).
    pub fn get(&self, id: &str) -> Option<Arc<Task>> {
        let mut table = self.table.lock().unwrap();
        sweep(&mut table, Instant::now());
        table.get(id).cloned()
    }

    /// `tasks/cancel`: asks the job to stop (cooperative; a terminal task is left as it is).
    /// `None` for an unknown task.
    pub fn cancel(&self, id: &str) -> Option<Arc<Task>> {
        let task = self.get(id)?;
        if !task.status().is_terminal() {
            task.cancel.send_replace(true);
        }
        Some(task)
    }

    /// Drops the expired tasks now (their jobs are told to stop); returns how many.
    pub fn expire(&self) -> usize {
        let mut table = self.table.lock().unwrap();
        let before = table.len();
        sweep(&mut table, Instant::now());
        before - table.len()
    }
}

fn sweep(table: &mut HashMap<String, Arc<Task>>, now: Instant) {
    table.retain(|_, t| {
        let keep = !t.expired(now);
        if !keep {
            t.cancel.send_replace(true);
        }
        keep
    });
}

/// TASK-29: 128 random bits, hex.
fn new_task_id() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).expect("the OS random source is available");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Now as an ISO 8601 UTC timestamp with milliseconds (`2026-12-03T09:30:00.123Z`).
pub fn now_iso() -> String {
    let d = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    iso(d)
}

fn iso(since_epoch: Duration) -> String {
    let secs = since_epoch.as_secs();
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since_epoch.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(iso(Duration::from_millis(0)), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(Duration::from_millis(1_764_754_200_123)), "2025-12-03T09:30:00.123Z");
        assert_eq!(iso(Duration::from_secs(951_782_400)), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn a_terminal_task_never_changes() {
        let tasks = Tasks::new(TaskLimits::default());
        let t = tasks.create().unwrap();
        assert!(t.finish(Outcome::Completed(json!({"content": []}))));
        assert!(!t.finish(Outcome::Cancelled));
        assert_eq!(t.status(), Status::Completed);
        assert!(!t.ask(Map::new()));
    }

    #[test]
    fn keys_are_never_reused_and_only_outstanding_answers_count() {
        let tasks = Tasks::new(TaskLimits::default());
        let t = tasks.create().unwrap();
        let ask = |k: &str| json!({k: {"method": "elicitation/create", "params": {}}}).as_object().cloned().unwrap();
        assert!(t.ask(ask("a")));
        assert!(!t.answer(&ask("b")));
        assert_eq!(t.status(), Status::InputRequired);
        assert!(t.answer(&ask("a")));
        assert_eq!(t.status(), Status::Working);
        assert!(!t.ask(ask("a")), "a key answered once is never issued again");
    }

    #[test]
    fn a_task_holds_at_most_max_input_requests() {
        let tasks = Tasks::new(TaskLimits::default());
        let t = tasks.create().unwrap();
        let many: Map<String, Value> = (0..=MAX_INPUT_REQUESTS).map(|i| (format!("k{i}"), json!({}))).collect();
        assert!(!t.ask(many));
        assert_eq!(t.status(), Status::Working, "nothing was parked");
        let enough: Map<String, Value> = (0..MAX_INPUT_REQUESTS).map(|i| (format!("k{i}"), json!({}))).collect();
        assert!(t.ask(enough));
    }
}
