//! Checker settings.

use crate::Options;

/// Checker settings.
///
/// Every table a session keeps has a cap here, so a session's memory is bounded whatever its
/// peers send (docs/conversations.md, "Memory" gives the bytes). Past `max_pending` the
/// oldest request is forgotten with a `POLICY-PENDING` warning; past any other cap the oldest
/// entry is forgotten with one `POLICY-STATE` warning per table and session.
#[derive(Debug, Clone)]
#[non_exhaustive]
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

/// Builders: `#[non_exhaustive]`, so start from `ConversationOptions::default()` (or its constructor) and set
/// what differs.
impl ConversationOptions {
    /// The same, with [`ConversationOptions::validation`] set.
    pub fn validation(mut self, validation: Options) -> Self {
        self.validation = validation;
        self
    }
    /// The same, with [`ConversationOptions::max_pending`] set.
    pub fn max_pending(mut self, max_pending: usize) -> Self {
        self.max_pending = max_pending;
        self
    }
    /// The same, with [`ConversationOptions::extension_result_types`] set.
    pub fn extension_result_types(mut self, extension_result_types: Vec<String>) -> Self {
        self.extension_result_types = extension_result_types;
        self
    }
    /// The same, with [`ConversationOptions::max_listen_streams`] set.
    pub fn max_listen_streams(mut self, max_listen_streams: usize) -> Self {
        self.max_listen_streams = max_listen_streams;
        self
    }
    /// The same, with [`ConversationOptions::max_resource_subscriptions`] set.
    pub fn max_resource_subscriptions(mut self, max_resource_subscriptions: usize) -> Self {
        self.max_resource_subscriptions = max_resource_subscriptions;
        self
    }
    /// The same, with [`ConversationOptions::max_cursors`] set.
    pub fn max_cursors(mut self, max_cursors: usize) -> Self {
        self.max_cursors = max_cursors;
        self
    }
    /// The same, with [`ConversationOptions::max_awaiting`] set.
    pub fn max_awaiting(mut self, max_awaiting: usize) -> Self {
        self.max_awaiting = max_awaiting;
        self
    }
    /// The same, with [`ConversationOptions::max_entry_bytes`] set.
    pub fn max_entry_bytes(mut self, max_entry_bytes: usize) -> Self {
        self.max_entry_bytes = max_entry_bytes;
        self
    }
    /// The same, with [`ConversationOptions::max_tasks`] set.
    pub fn max_tasks(mut self, max_tasks: usize) -> Self {
        self.max_tasks = max_tasks;
        self
    }
    /// The same, with [`ConversationOptions::max_tools`] set.
    pub fn max_tools(mut self, max_tools: usize) -> Self {
        self.max_tools = max_tools;
        self
    }
    /// The same, with [`ConversationOptions::max_tool_schema_bytes`] set.
    pub fn max_tool_schema_bytes(mut self, max_tool_schema_bytes: usize) -> Self {
        self.max_tool_schema_bytes = max_tool_schema_bytes;
        self
    }
    /// The same, with [`ConversationOptions::tool_limits`] set.
    pub fn tool_limits(mut self, tool_limits: crate::tools::Limits) -> Self {
        self.tool_limits = tool_limits;
        self
    }
    /// The same, with [`ConversationOptions::tools_baseline`] set.
    pub fn tools_baseline(mut self, tools_baseline: Option<std::sync::Arc<crate::tools::ToolsBaseline>>) -> Self {
        self.tools_baseline = tools_baseline;
        self
    }
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
