//! The extension's identifiers and how capabilities declare it (TASK-1).

use crate::ext::Extension;
use crate::json::{JsonView, Kind};
use crate::meta_keys::CLIENT_CAPABILITIES;

/// The extension identifier, the key under `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

/// The core revision the extension layers on.
pub const LAYERS_ON: &str = "2026-07-28";

/// The `resultType` of a `CreateTaskResult`.
pub const TASK_RESULT_TYPE: &str = "task";

/// The requests a server may answer with a `CreateTaskResult` (TASK-3).
pub const SUPPORTED_REQUESTS: [&str; 1] = ["tools/call"];

/// The extension's requests (client to server), each naming its task in `params.taskId`.
pub const TASK_REQUESTS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// The extension's status notification (server to client).
pub const STATUS_NOTIFICATION: &str = "notifications/tasks";

/// The Tasks extension, when this build has it.
pub fn extension() -> Option<Extension> {
    Extension::from_id(EXTENSION_ID)
}

/// Whether a capabilities object (a request's `clientCapabilities`, a server's `capabilities`)
/// declares the extension: `extensions["io.modelcontextprotocol/tasks"]` is an object.
pub fn declares<'v, V: JsonView<'v>>(capabilities: &V) -> bool {
    capabilities.get("extensions").and_then(|e| e.get(EXTENSION_ID)).is_some_and(|x| x.kind() == Kind::Object)
}

/// Whether a request declares the extension in its own `_meta` client capabilities.
pub fn request_declares<'v, V: JsonView<'v>>(request: &V) -> bool {
    params_declare(request.get("params").as_ref())
}

/// [`request_declares`] of the `params` member.
pub(crate) fn params_declare<'v, V: JsonView<'v>>(params: Option<&V>) -> bool {
    params.and_then(|p| p.get("_meta")).and_then(|m| m.get(CLIENT_CAPABILITIES)).is_some_and(|c| declares(&c))
}

/// Whether requests of `method` may be answered with a `CreateTaskResult` (TASK-3).
pub fn supports_tasks(method: &str) -> bool {
    SUPPORTED_REQUESTS.contains(&method)
}

/// Who the result answers, for `rules::judge_result`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Answering<'a> {
    /// The request's method.
    pub method: &'a str,
    /// The request declared the extension (or the caller says it was negotiated).
    pub negotiated: bool,
    /// For a `tasks/get` result: the method of the request the task answers, when known.
    pub task_of: Option<&'a str>,
}
