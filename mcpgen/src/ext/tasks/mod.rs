//! The Tasks extension (`io.modelcontextprotocol/tasks`), layering on revision 2026-07-28: its
//! generated types (with the `ext-tasks` feature), its identifiers and how a request declares
//! it, and everything it adds to the core, through the extension hook (`hook.rs`):
//!
//! - `negotiation.rs`: the identifiers, and whether capabilities declare the extension (TASK-1);
//! - `rules.rs`: its methods and results wherever a message is judged (TASK-3..21);
//! - `gate.rs`: what a server serving it accepts and refuses (TASK-23, TASK-24);
//! - `session.rs` and `table.rs`: its tasks over a conversation (TASK-13, TASK-17..19,
//!   TASK-22, TASK-24, TASK-32).
//!
//! Its pinned inputs: the `[[extension]]` entry of `schema/sources.toml` (schema, types, spec
//! text), its errata ledger `schema/errata/ext-tasks.json`, its rules (`TASK-*`) in `schema/rules.toml`.

#[cfg(feature = "ext-tasks")]
pub use mcpgen_schema::ext_tasks::*;

mod gate;
mod hook;
mod negotiation;
mod rules;
mod session;
mod table;
#[cfg(test)]
mod tests;

pub use negotiation::{
    declares, extension, request_declares, supports_tasks, EXTENSION_ID, LAYERS_ON, STATUS_NOTIFICATION,
    SUPPORTED_REQUESTS, TASK_REQUESTS, TASK_RESULT_TYPE,
};
pub use rules::{missing_extension_error, required_capabilities};

pub(crate) use hook::Tasks;
