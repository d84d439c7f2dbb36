//! Checker settings.

use crate::Options;

/// Checker settings.
///
/// Every table a session keeps has a cap here, so a session's memory is bounded whatever its
/// peers send (docs/conversations.md, "Memory" gives the bytes). Past `max_pending` the
/// oldest request is forgotten with a `POLICY-PENDING` warning; past any other cap the oldest
/// entry is forgotten with one `POLICY-STATE` warning per table and session.
#[derive(Debug, Clone)]
pub struct ConversationOptions {
    /// Per-message validation options (policy, formats).
    pub validation: Options,
    /// Most requests tracked as pending per sender (and so progress tokens per sender: one per
    /// pending request); past it the oldest is forgotten and a finding reports it. Default 4096.
    pub max_pending: usize,
    /// `resultType` values of negotiated extensions to accept (RESULT-3).
    pub extension_result_types: Vec<String>,
    /// Most open `subscriptions/listen` streams tracked. Default 256.
    pub max_listen_streams: usize,
    /// Most legacy `resources/subscribe` URIs tracked. Default 1024.
    pub max_resource_subscriptions: usize,
    /// Most `nextCursor`s of list pages remembered (CACHE-6). Default 1024.
    pub max_cursors: usize,
    /// Most `input_required` results awaiting their retry (MRTR-7..10). Default 256.
    pub max_awaiting: usize,
    /// Most bytes of a listen stream's filter, or of the `inputRequests` keys of one
    /// `input_required` result, kept for the checks that read them (SUB-1, SUB-3, MRTR-7,
    /// MRTR-8); a larger one is not kept, its checks are skipped and `POLICY-STATE` says so.
    /// Default 4096. It also caps the `inputRequests` keys kept per task (TASK-17..19).
    pub max_entry_bytes: usize,
    /// Most tasks of the Tasks extension remembered (TASK-13, TASK-17..19, TASK-22, TASK-32).
    /// Default 1024.
    pub max_tasks: usize,
    /// Most tool definitions remembered from `tools/list` results (TOOL-4, TOOL-5, TOOL-7..10);
    /// past it further tools are not kept (their calls are not judged, calls of unlisted tools
    /// no longer reported) and `POLICY-STATE` says so. Default 1024.
    pub max_tools: usize,
    /// Most bytes of the remembered tools' `inputSchema` and `outputSchema` together (as
    /// canonical JSON); a tool that does not fit is not kept, as past `max_tools`. Default
    /// 4 MiB.
    pub max_tool_schema_bytes: usize,
    /// The cost limits each listed tool's schemas are compiled and applied with (JSCHEMA-8);
    /// a schema past one is reported once (`POLICY-TOOLS`) and its calls are not judged.
    /// Non-local `$ref`s are never fetched. Default [`crate::tools::Limits::default`].
    pub tool_limits: crate::tools::Limits,
    /// The user's pin of the server's tools (TOOL-12, a warning: the pin is the user's choice,
    /// not a spec clause): every `tools/list` result is compared with it, each tool it lacks
    /// or lists with another definition is a finding (with the changed members), and each
    /// pinned tool missing from a complete list (the pages since the last one without
    /// `nextCursor`). Default none.
    pub tools_baseline: Option<std::sync::Arc<crate::tools::ToolsBaseline>>,
}

impl Default for ConversationOptions {
    fn default() -> Self {
        ConversationOptions {
            validation: Options::default(),
            max_pending: 4096,
            extension_result_types: Vec::new(),
            max_listen_streams: 256,
            max_resource_subscriptions: 1024,
            max_cursors: 1024,
            max_awaiting: 256,
            max_entry_bytes: 4096,
            max_tasks: 1024,
            max_tools: 1024,
            max_tool_schema_bytes: 4 << 20,
            tool_limits: crate::tools::Limits::default(),
            tools_baseline: None,
        }
    }
}
