//! What a conversation keeps of the Tasks extension (its state slots behind the hook): its
//! tasks by id and what a pending request of the extension remembers (data only;
//! `session.rs` judges).

use crate::conversation::ext_api::{capped_finding, Bounded, Finding, IdKey, Text, BLOCK, KEPT_TEXT};

/// One task the session saw created.
#[derive(Debug, Clone)]
pub(crate) struct Task {
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
pub(crate) struct Key {
    pub key: Text,
    pub digest: u64,
    pub delivered: bool,
    pub outstanding: bool,
}

/// The session's tasks.
#[derive(Debug, Clone)]
pub(crate) struct TaskTable {
    pub table: Bounded<Text, Task>,
    /// Most keys kept per task (from `max_entry_bytes`).
    pub max_keys: usize,
    /// The caps ([`TaskTable::TASKS`], [`TaskTable::KEYS`]) that already forgot something
    /// (POLICY-STATE, reported once each per session).
    reported: u8,
}

impl TaskTable {
    /// The cap of the table of tasks.
    pub const TASKS: u8 = 1;
    /// The cap of one task's `inputRequests` keys.
    pub const KEYS: u8 = 2;

    pub fn new(max_tasks: usize, max_entry_bytes: usize) -> TaskTable {
        let per_key = std::mem::size_of::<Key>() + KEPT_TEXT + BLOCK;
        TaskTable { table: Bounded::new(max_tasks), max_keys: (max_entry_bytes / per_key).max(1), reported: 0 }
    }

    /// A cap forgot an entry: POLICY-STATE, the first time for that cap in this session.
    pub fn capped(&mut self, cap: u8, what: std::fmt::Arguments<'_>, out: &mut Vec<Finding>) {
        if self.reported & cap == 0 {
            self.reported |= cap;
            out.push(capped_finding(what));
        }
    }
}

/// What a request of the extension remembers until its answer.
#[derive(Debug, Clone)]
pub(crate) struct TaskRequest {
    pub task_id: Text,
    /// `tasks/update`: its `inputResponses` keys, delivered once acknowledged.
    pub keys: Vec<Text>,
}
