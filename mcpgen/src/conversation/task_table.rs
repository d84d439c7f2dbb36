//! What the session keeps of the Tasks extension: its tasks by id and what a pending request
//! of the extension remembers (data only; [`super::tasks`] judges). A leaf, so the session's
//! state can hold it and the checks can read the session.

use super::keys::{Bounded, IdKey, Text, BLOCK, KEPT_TEXT};

/// One task the session saw created.
#[derive(Debug, Clone)]
pub(super) struct Task {
    /// The method of the request the task answers (`tools/call`).
    pub method: &'static str,
    /// That request's id.
    pub request: IdKey,
    /// The terminal status it reached (`completed`, `failed`, `cancelled`).
    pub terminal: Option<&'static str>,
    /// Its `inputRequests` keys: the key, a digest of its request, whether an acknowledged
    /// `tasks/update` answered it, whether the last status seen lists it (outstanding).
    pub keys: Vec<Key>,
    /// An `input_required` status was seen (TASK-19 is judged only then).
    pub seen_input: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Key {
    pub key: Text,
    pub digest: u64,
    pub delivered: bool,
    pub outstanding: bool,
}

/// The session's tasks.
#[derive(Debug, Clone)]
pub(super) struct Tasks {
    /// Some client request declared the extension: its notifications exist in this session.
    pub declared: bool,
    pub table: Bounded<Text, Task>,
    /// Most keys kept per task (from `max_entry_bytes`).
    pub max_keys: usize,
}

impl Tasks {
    pub fn new(max_tasks: usize, max_entry_bytes: usize) -> Tasks {
        let per_key = std::mem::size_of::<Key>() + KEPT_TEXT + BLOCK;
        Tasks { declared: false, table: Bounded::new(max_tasks), max_keys: (max_entry_bytes / per_key).max(1) }
    }
}

/// What a request of the extension remembers until its answer.
#[derive(Debug, Clone)]
pub(super) struct TaskRequest {
    pub task_id: Text,
    /// `tasks/update`: its `inputResponses` keys, delivered once acknowledged.
    pub keys: Vec<Text>,
}
