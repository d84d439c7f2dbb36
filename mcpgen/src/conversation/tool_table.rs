//! The tool tables a session keeps: the tools it listed ([`ToolTable`]) and what a pending
//! `tools/call` keeps for judging its answer ([`ToolCall`]). A leaf both the session state
//! (`state`) and the tool rules (`tools`, which holds their behaviour) use.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::tools::{ArgumentsVerdict, CompiledTool, Limits, ToolsBaseline};

use super::keys::Text;

/// The definitions of the tools the session listed, by name.
#[derive(Debug, Clone)]
pub(super) struct ToolTable {
    pub(super) defs: HashMap<Text, ToolDef, foldhash::quality::RandomState>,
    pub(super) max_tools: usize,
    pub(super) max_schema_bytes: usize,
    /// Bytes of the kept definitions' schemas (canonical JSON of `inputSchema` and
    /// `outputSchema`).
    pub(super) schema_bytes: usize,
    pub(super) limits: Limits,
    /// A complete list (a page without `nextCursor`) was seen.
    pub(super) listed: bool,
    /// A listed tool was not kept (a cap, an invalid `tools/list` result): calls of unlisted
    /// tools are no longer judged.
    pub(super) partial: bool,
    /// Counts the server's `notifications/tools/list_changed`.
    pub(super) epoch: u64,
    /// The user's pin (TOOL-12).
    pub(super) baseline: Option<Arc<ToolsBaseline>>,
    /// The pinned tools listed since the last complete list (at most the pin's tools): at the
    /// next complete list, the pinned tools not among them are reported removed.
    pub(super) pinned_seen: HashSet<Text, foldhash::quality::RandomState>,
    /// The buffer a listed definition is flattened into for its digest, kept between tools so
    /// that a repeated list allocates nothing (at most `SCRATCH_KEPT` bytes are kept).
    pub(super) scratch: Vec<u8>,
    /// The names given so far by the list being read (a name listed twice is not a change),
    /// kept between lists so that reading one allocates nothing (at most `IN_LIST_KEPT`).
    pub(super) in_list: HashSet<Text, foldhash::quality::RandomState>,
}

/// One listed tool.
#[derive(Debug, Clone)]
pub(super) struct ToolDef {
    /// The canonical JSON of the definition without `_meta` (long ones as a digest).
    pub(super) digest: Text,
    /// The digest of the definition as sent ([`super::keys::view_digest`]): the same bytes
    /// again skip building the canonical form.
    pub(super) sent: [u64; 2],
    /// The [`ToolTable::epoch`] of the list that last gave it.
    pub(super) epoch: u64,
    pub(super) schema_bytes: usize,
    /// `None`: the checks refused a schema (reported once): its calls are not judged.
    pub(super) compiled: Option<Arc<CompiledTool>>,
}

/// A pending `tools/call` of a compiled tool: what its answer is judged by.
#[derive(Debug, Clone)]
pub(super) struct ToolCall {
    pub(super) compiled: Arc<CompiledTool>,
    /// What the arguments were by the `inputSchema` (TOOL-7 when they break it): what the
    /// answer is judged by.
    pub(super) arguments: ArgumentsVerdict,
}
