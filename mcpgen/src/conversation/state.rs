//! The state of one session, in one place: the era, what each side declared, the requests in
//! flight and lately answered, progress tokens, listen streams, MRTR retries awaited, legacy
//! resource subscriptions and list cursors. Every table is bounded (see [`Session::new`]).
//! The rule families read and update it; only the observe pass moves the era.

use crate::json::{JsonView, Value};
use crate::methods::MethodInfo;
use crate::rules::id;
use crate::Revision;

use crate::ext::{Negotiated, Registry};

use super::era::EraState;
use super::facts::Sender;
use super::finding::{rule_finding, Finding};
use super::hook::ConversationRegistry;
use super::keys::{Bounded, IdKey, Recent, Text, BLOCK};
use super::options::ConversationOptions;

/// How many answered request ids (per sender) and closed subscriptions are remembered, to tell
/// a second response or a late stream message from an unknown one.
pub(super) const RECENT: usize = 1024;

/// A request in flight.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub info: Option<&'static MethodInfo>,
    pub rev: Revision,
    /// `_meta` carried `protocolVersion` (the era state reads the answer).
    pub versioned: bool,
    /// `params.task` was present (2025-11-25 task augmentation).
    pub task: bool,
    pub progress_token: Option<IdKey>,
    /// Modern: the request opted into log notifications (`logLevel`, LOG-1).
    pub log: bool,
    /// Modern: the request's `clientCapabilities`, kept for MRTR-6 where the method may answer
    /// `input_required`.
    pub caps: Option<ClientCaps>,
    pub cancelled: bool,
    /// A later page of a list (`params.cursor`): the `cacheScope` of the page that gave the
    /// cursor (CACHE-6).
    pub page_scope: Option<Option<Text>>,
    /// The extensions the request declared in its own `_meta` client capabilities.
    pub negotiated: Negotiated,
    /// What each extension keeps of the request until its answer (one slot each).
    pub ext: <Registry as ConversationRegistry>::Pending,
    /// A client `tools/call` of a listed, compiled tool: what its answer is judged by.
    pub tool: Option<Box<super::tool_table::ToolCall>>,
}

/// An open `subscriptions/listen` stream.
#[derive(Debug, Clone)]
pub(super) struct Subscription {
    pub acked: bool,
    /// The listen request's `params.notifications`.
    pub filter: Option<Value>,
    /// The filter was larger than `max_entry_bytes` and not kept: SUB-1 and SUB-3 are skipped.
    pub unchecked: bool,
}

/// An `input_required` result awaiting its retry (MRTR-7..10).
#[derive(Debug, Clone)]
pub(super) struct Awaiting {
    pub method: &'static str,
    pub id: IdKey,
    /// The keys of `inputRequests`; `Some(None)`: there were more bytes of them than
    /// `max_entry_bytes`, so the retry's keys are not checked.
    pub keys: Option<Option<Vec<Text>>>,
    pub state: Option<Text>,
}

/// An active progress token.
#[derive(Debug, Clone)]
pub(super) struct Progress {
    pub last: Option<f64>,
}

/// What a modern request's `clientCapabilities` declare, as far as input requests need it
/// (CAP-4): kept as bits instead of a copy of the object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct ClientCaps(u8);

impl ClientCaps {
    const FORM: u8 = 1;
    const URL: u8 = 2;
    const SAMPLING: u8 = 4;
    const SAMPLING_TOOLS: u8 = 8;
    const SAMPLING_CONTEXT: u8 = 16;
    const ROOTS: u8 = 32;

    pub fn of<'v, V: JsonView<'v>>(caps: &V) -> ClientCaps {
        let mut bits = 0;
        for (k, x) in caps.entries() {
            match k.as_ref() {
                "elicitation" => {
                    let (mut form, mut url) = (false, false);
                    for (m, _) in x.entries() {
                        form |= m == "form";
                        url |= m == "url";
                    }
                    // CAP-3: `elicitation: {}` declares form mode.
                    if form || !url {
                        bits |= Self::FORM;
                    }
                    if url {
                        bits |= Self::URL;
                    }
                }
                "sampling" => {
                    bits |= Self::SAMPLING;
                    for (m, _) in x.entries() {
                        match m.as_ref() {
                            "tools" => bits |= Self::SAMPLING_TOOLS,
                            "context" => bits |= Self::SAMPLING_CONTEXT,
                            _ => {}
                        }
                    }
                }
                "roots" => bits |= Self::ROOTS,
                _ => {}
            }
        }
        ClientCaps(bits)
    }

    /// The declaration as a `ClientCapabilities`-shaped object, for
    /// [`crate::protocol::missing_capabilities`].
    pub fn to_value(self) -> Value {
        let mut m = crate::json::Map::new();
        let empty = || Value::Object(crate::json::Map::new());
        let has = |b: u8| self.0 & b != 0;
        if has(Self::FORM | Self::URL) {
            let mut e = crate::json::Map::new();
            if has(Self::FORM) {
                e.push("form", empty());
            }
            if has(Self::URL) {
                e.push("url", empty());
            }
            m.push("elicitation", Value::Object(e));
        }
        if has(Self::SAMPLING) {
            let mut e = crate::json::Map::new();
            if has(Self::SAMPLING_TOOLS) {
                e.push("tools", empty());
            }
            if has(Self::SAMPLING_CONTEXT) {
                e.push("context", empty());
            }
            m.push("sampling", Value::Object(e));
        }
        if has(Self::ROOTS) {
            m.push("roots", empty());
        }
        Value::Object(m)
    }
}

/// Whether a copy of `v` (a [`Value`]) takes at most `budget` bytes: each value and object
/// entry its own size, each string, key and number its text and one [`BLOCK`] (its
/// allocation), each array and object one [`BLOCK`]. Stops reading once past the budget.
pub(super) fn fits<'v, V: JsonView<'v>>(v: &V, budget: &mut usize) -> bool {
    use crate::json::Kind;
    fn take(budget: &mut usize, n: usize) -> bool {
        match budget.checked_sub(n) {
            Some(left) => {
                *budget = left;
                true
            }
            None => false,
        }
    }
    let text = match v.kind() {
        Kind::String => v.as_str().map_or(0, |s| s.len()) + BLOCK,
        Kind::Number => v.to_number().map_or(0, |n| n.to_string().len()) + BLOCK,
        Kind::Array | Kind::Object => BLOCK,
        Kind::Null | Kind::Bool => 0,
    };
    if !take(budget, std::mem::size_of::<Value>() + text) {
        return false;
    }
    match v.kind() {
        Kind::Array => v.items().all(|x| fits(&x, budget)),
        Kind::Object => v.entries().all(|(k, x)| {
            let entry = std::mem::size_of::<(String, Value)>() - std::mem::size_of::<Value>() + k.len() + BLOCK;
            take(budget, entry) && fits(&x, budget)
        }),
        _ => true,
    }
}

/// POLICY-STATE: a cap forgot an entry; `what` says what was lost, as a clause. Each table
/// reports it once per session ([`Session::capped`]; an extension's tables, through its own
/// state).
#[cold]
#[inline(never)]
pub(crate) fn capped_finding(what: std::fmt::Arguments<'_>) -> Finding {
    rule_finding(
        id::POLICY_STATE,
        "",
        "",
        format!("{what}; further entries this table forgets in this session are not reported"),
    )
}

/// The tables whose cap, when it forgets an entry, is reported once per session (POLICY-STATE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Table {
    Progress,
    ListenStreams,
    ResourceSubscriptions,
    Cursors,
    Awaiting,
    Filter,
    InputKeys,
    Tools,
}

impl Table {
    fn bit(self) -> u16 {
        1 << self as u8
    }
}

/// The state of one session.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    /// The era and revision: read by every family through the facts, moved only by the observe
    /// pass.
    pub(super) era: EraState,
    /// Legacy: the client's `initialize` capabilities.
    pub(super) client_caps: Option<Value>,
    /// The server's capabilities (legacy `InitializeResult`, modern `DiscoverResult`).
    pub(super) server_caps: Option<Value>,
    /// Requests in flight, by the side that sent them.
    pub(super) pending: [Bounded<IdKey, Pending>; 2],
    /// Requests answered lately, by the side that sent them.
    pub(super) answered: [Recent<IdKey>; 2],
    /// Active progress tokens, by the side whose request carries them.
    pub(super) progress: [Bounded<IdKey, Progress>; 2],
    /// Open `subscriptions/listen` streams, by the listen request's id.
    pub(super) subs: Bounded<IdKey, Subscription>,
    /// Streams the server ended (a result, or its own `notifications/cancelled`).
    pub(super) ended_subs: Recent<IdKey>,
    /// Streams the client ended (a late message may cross the cancellation), and streams
    /// forgotten at the cap (no longer checked).
    pub(super) cancelled_subs: Recent<IdKey>,
    pub(super) awaiting: Bounded<u64, Awaiting>,
    pub(super) awaiting_seq: u64,
    /// Pending client requests that opted into log notifications (modern).
    pub(super) log_opted: usize,
    /// Legacy `resources/subscribe` URIs.
    pub(super) resource_subs: Bounded<Text, ()>,
    /// `nextCursor`s given by list results, with the `cacheScope` of their page (CACHE-6).
    pub(super) cursors: Bounded<(&'static str, Text), Option<Text>>,
    pub(super) max_pending: usize,
    /// `max_entry_bytes` of the options.
    pub(super) max_entry_bytes: usize,
    /// The extensions some client request declared (their notifications exist in this
    /// session from then on).
    pub(super) negotiated: Negotiated,
    /// What each extension keeps of the session (one slot each).
    pub(crate) ext: <Registry as ConversationRegistry>::Session,
    /// The tools the server listed, compiled.
    pub(super) tools: super::tool_table::ToolTable,
    /// By the side that sent it: whether that side's last message was an invalid one that is
    /// no response, not yet answered — by an error response without a readable id (the answer
    /// JSON-RPC 2.0 gives when "there was an error in detecting the id") or with the id it
    /// carried (readable, so echoed) — and that id, if it had one.
    pub(super) malformed_last: [Option<Option<IdKey>>; 2],
    /// The same for Streamable HTTP exchanges: the exchanges (at most [`MAX_MALFORMED`], the
    /// oldest forgotten) in which a side sent such a message, with its id.
    pub(super) malformed_in: [std::collections::VecDeque<(u64, Option<IdKey>)>; 2],
    /// The [`Table`]s whose cap already forgot something (reported once each).
    reported: u16,
}

/// The most exchanges [`Session::malformed_in`] keeps per side: past it the oldest is
/// forgotten (it only softens ID-4 on an `id: null` answer there, or lets an error echo the
/// invalid message's readable id without ID-3).
pub(super) const MAX_MALFORMED: usize = 64;

impl Session {
    /// A session whose tables hold at most what `opts` allows; answered ids and closed streams
    /// the last [`RECENT`]. Progress tokens belong to pending requests, so their tables hold
    /// one more than `max_pending` (a new request's token is counted before the oldest request
    /// is forgotten).
    pub fn new(opts: &ConversationOptions) -> Self {
        let max_pending = opts.max_pending.max(1);
        let tokens = max_pending.saturating_add(1);
        Session {
            era: EraState::new(),
            client_caps: None,
            server_caps: None,
            pending: [Bounded::new(max_pending), Bounded::new(max_pending)],
            answered: [Recent::new(RECENT), Recent::new(RECENT)],
            progress: [Bounded::new(tokens), Bounded::new(tokens)],
            subs: Bounded::new(opts.max_listen_streams),
            ended_subs: Recent::new(RECENT),
            cancelled_subs: Recent::new(RECENT),
            awaiting: Bounded::new(opts.max_awaiting),
            awaiting_seq: 0,
            log_opted: 0,
            resource_subs: Bounded::new(opts.max_resource_subscriptions),
            cursors: Bounded::new(opts.max_cursors),
            max_pending,
            max_entry_bytes: opts.max_entry_bytes,
            negotiated: Negotiated::NONE,
            ext: Registry::new_session(opts),
            tools: super::tool_table::ToolTable::new(opts),
            malformed_last: [None, None],
            malformed_in: Default::default(),
            reported: 0,
        }
    }

    /// The revision the session negotiated (legacy) or last used (modern), once known.
    pub fn revision(&self) -> Option<Revision> {
        self.era.revision()
    }

    /// Drops what a finished (or forgotten) request held.
    pub(super) fn forget(&mut self, from: Sender, p: &Pending) {
        if let Some(tok) = &p.progress_token {
            self.progress[from.ix()].remove(tok);
        }
        if p.log {
            self.log_opted = self.log_opted.saturating_sub(1);
        }
    }

    /// A cap forgot an entry of `table` (or an entry was too large to keep): POLICY-STATE, the
    /// first time for that table in this session. `what` says what was lost, as a clause.
    #[cold]
    #[inline(never)]
    pub(super) fn capped(&mut self, table: Table, what: std::fmt::Arguments<'_>, out: &mut Vec<Finding>) {
        if self.reported & table.bit() != 0 {
            return;
        }
        self.reported |= table.bit();
        out.push(capped_finding(what));
    }

    /// How many requests of `sender` are in flight (for the bounded-memory tests).
    #[cfg(test)]
    pub fn pending_len(&self, sender: Sender) -> usize {
        self.pending[sender.ix()].len()
    }

    #[cfg(test)]
    pub fn tracked(&self) -> usize {
        self.pending.iter().map(|p| p.len()).sum::<usize>()
            + self.progress.iter().map(|p| p.len()).sum::<usize>()
            + self.subs.len()
            + self.awaiting.len()
            + self.resource_subs.len()
            + self.cursors.len()
            + Registry::tracked(&self.ext)
            + self.tools.len()
    }
}
