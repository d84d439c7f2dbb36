//! How a run goes: [`ProbeOptions`] and the policies it holds.

use std::time::Duration;

use serde_json::Value;

/// Which tools the probe may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolPolicy {
    /// None.
    None,
    /// Tools annotated `readOnlyHint: true` **and** `openWorldHint: false` (the default):
    /// never a tool that may change anything or reach outside the server (fetch a URL, run a
    /// search) unless named. Each hint is read with the default the spec documents for it
    /// (`ToolAnnotations`: `readOnlyHint` absent is `false`, `openWorldHint` absent is `true`),
    /// so a tool must say both explicitly to be called.
    ReadOnly,
    /// Every tool the server lists.
    All,
    /// Exactly these tools (by name), whatever their annotations.
    Named(Vec<String>),
}

impl ToolPolicy {
    /// Whether `tool` (a `Tool` of a `tools/list` result) may be called.
    pub fn allows(&self, tool: &Value) -> bool {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
        match self {
            ToolPolicy::None => false,
            ToolPolicy::All => true,
            ToolPolicy::Named(names) => names.iter().any(|n| n == name),
            ToolPolicy::ReadOnly => {
                let hint = |name: &str, default: bool| {
                    tool.get("annotations").and_then(|a| a.get(name)).and_then(Value::as_bool).unwrap_or(default)
                };
                hint("readOnlyHint", false) && !hint("openWorldHint", true)
            }
        }
    }
}

/// Which prompts the probe gets ([`prompts`](crate::prompts)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptPolicy {
    /// Those without an argument a server may act on outside itself (a URL, a path, a
    /// command, a query: [`prompts::acting_argument`](crate::prompts::acting_argument)); the rest are skipped (the default).
    Safe,
    /// Every prompt listed.
    All,
}

/// Which eras the probe drives ([`ProbeOptions::era`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraChoice {
    /// `server/discover` and per-request `_meta` only.
    Modern,
    /// `initialize` sessions only.
    Legacy,
    /// Both, where both are served (the default): a server that answers `initialize` is probed
    /// in the legacy era even when its `server/discover` lists modern versions only.
    Both,
}

impl EraChoice {
    pub fn modern(self) -> bool {
        self != EraChoice::Legacy
    }

    pub fn legacy(self) -> bool {
        self != EraChoice::Modern
    }
}

/// The seed a run uses unless told otherwise.
pub const DEFAULT_SEED: u64 = 23;

/// How a run goes; [`ProbeOptions::default`] is what `mcpgen probe` does without flags.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    pub call_tools: ToolPolicy,
    pub get_prompts: PromptPolicy,
    /// Pages read of each list (a server whose cursor never ends is reported, not followed).
    pub max_pages: usize,
    /// `tools/call` requests sent at most per session (cases, shrink steps and the progress
    /// call together).
    pub max_tool_calls: usize,
    /// Argument cases per tool at most ([`cases::cases`](crate::cases::cases)).
    pub max_cases_per_tool: usize,
    /// Calls spent shrinking one failing case at most.
    pub max_shrink_steps: usize,
    /// Prompts got and resources read at most per session, each.
    pub max_items: usize,
    /// The seed of the argument cases: the same seed, the same cases (printed in the
    /// summary, so a run can be repeated).
    pub seed: u64,
    /// Exchanges kept in the report; later ones still count, their messages are not kept.
    pub max_exchanges: usize,
    /// Bytes of the server's messages kept in the report's exchanges, all together. Past it a
    /// message is not kept (counted in [`Exchange::unkept`](crate::Exchange::unkept)), except
    /// an exchange's last message of at most [`SMALL_ANSWER_BYTES`](crate::SMALL_ANSWER_BYTES)
    /// (the answer, which the report's checks read): so the report stays under this plus
    /// `max_exchanges` small answers, whatever the server sends.
    pub max_kept_bytes: usize,
    /// Bytes of the answers of one list's pages, all together: past it no further page is
    /// asked for (a PROBE-1 warning), so the items the run holds stay bounded by this.
    pub max_list_bytes: usize,
    /// Items of one list kept and probed (tools, prompts, resources), all pages together — the
    /// conversation checker's `max_tools` default: past it the rest is not read (a PROBE-1
    /// warning).
    pub max_list_items: usize,
    /// The eras probed: the legacy one at the legacy revisions `server/discover` names (else
    /// the newest legacy revision mcpgen knows).
    pub era: EraChoice,
    /// Legacy sessions opened at most (one per revision the server names; the rest are
    /// reported as skipped).
    pub max_legacy_sessions: usize,
    /// The whole run's time: once it is spent no further message is sent, the run ends with
    /// what it did and a PROBE-3 warning. Checked before each message, so a message already
    /// sent may take its peer's own timeout beyond it. `None`: no limit.
    pub budget: Option<Duration>,
    /// The wait for an answer that is immediate or never (the malformed-envelope negatives),
    /// instead of the peer's own timeout: a server that drops them costs this, not the timeout.
    pub short_wait: Duration,
    /// How long the end of the run waits for late answers to requests still pending
    /// ([`late`](crate::late)), within the budget.
    pub drain: Duration,
    /// A pin of the server's tools (`mcpgen tools pin`): every `tools/list` result the run
    /// gets is compared with it, each tool added, removed or changed a TOOL-12 warning.
    pub tools_baseline: Option<std::sync::Arc<mcpgen::tools::ToolsBaseline>>,
}

impl ProbeOptions {
    /// The checker's options for a session of the run.
    pub(crate) fn conversation(&self) -> mcpgen::conversation::ConversationOptions {
        mcpgen::conversation::ConversationOptions::default().tools_baseline(self.tools_baseline.clone())
    }
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions {
            call_tools: ToolPolicy::ReadOnly,
            get_prompts: PromptPolicy::Safe,
            max_pages: 32,
            max_tool_calls: 64,
            max_cases_per_tool: 16,
            max_shrink_steps: 32,
            max_items: 16,
            seed: DEFAULT_SEED,
            max_exchanges: 4096,
            max_kept_bytes: 64 << 20,
            max_list_bytes: 32 << 20,
            max_list_items: 1024,
            era: EraChoice::Both,
            max_legacy_sessions: 8,
            budget: None,
            short_wait: Duration::from_secs(2),
            drain: Duration::from_secs(2),
            tools_baseline: None,
        }
    }
}
