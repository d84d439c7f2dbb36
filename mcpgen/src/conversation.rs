//! Whole conversations: a checker fed every message of one MCP session in order, with its
//! sender, that returns the findings for each message — per-message validation
//! ([`crate::protocol::validate_message`]) plus the rules that span messages: a result checked
//! against the request it answers (method, task augmentation, revision), ids (ID-2, MSG-11,
//! ID-3), directions (MSG-10), capabilities (LOG-5, CAP-5, MRTR-6, …), MRTR retries, listen
//! streams, progress, cancellation and logging. The full list, and the rules no stream can
//! show, are in `docs/conversations.md`.
//!
//! One [`Conversation`] is one session; every message is parsed once and read in place. These
//! types and signatures are the contract the C, Python and command-line surfaces code against.
//!
//! Layout: `observe` is the pass over one message: `facts` reads it once (kind, method and its
//! row, id, the `params` and `_meta` members the rules need, the revision it is judged under),
//! per-message validation runs, then one module per rule family, each a function of the facts
//! and the session state: `ids` (directions, ids, answers), `results` (results by request,
//! pages), `capabilities`, `mrtr`, `subscriptions`, `progress`, `cancellation`, `logging`.
//! `state` holds the session's state in one place, `era` the connection's era and revision
//! (the one state every family reads and only the pass moves), `keys` the id keys and bounded
//! tables, `finding` the findings and their levels.
//!
//! ```
//! use mcpgen::conversation::{Conversation, Severity, Sender};
//!
//! let mut c = Conversation::new();
//! // A legacy handshake: the server declares tools but not `logging`.
//! let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",
//!     "capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
//! let done = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25",
//!     "capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;
//! assert!(c.observe(Sender::Client, init).is_empty());
//! assert!(c.observe(Sender::Server, done).is_empty());
//! assert_eq!(c.revision().map(|r| r.as_str()), Some("2025-11-25"));
//!
//! // A task-augmented tools/call is answered with a CreateTaskResult: accepted.
//! let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call",
//!     "params":{"name":"slow","arguments":{},"task":{"ttl":60000}}}"#;
//! let task = br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working",
//!     "createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":60000}}}"#;
//! assert!(c.observe(Sender::Client, call).is_empty());
//! assert!(c.observe(Sender::Server, task).is_empty());
//!
//! // Log notifications need the `logging` capability (LOG-5, a MUST: an error).
//! let log = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;
//! let findings = c.observe(Sender::Server, log);
//! assert_eq!(findings.len(), 1);
//! assert_eq!((findings[0].rule, findings[0].level), (Some("LOG-5"), Severity::Error));
//!
//! // A second answer to request 1 (MSG-11), and text that is not JSON (MSG-8).
//! assert_eq!(c.observe(Sender::Server, task)[0].rule, Some("MSG-11"));
//! assert_eq!(c.observe(Sender::Client, b"{not json")[0].rule, Some("MSG-8"));
//! ```

mod cancellation;
mod capabilities;
mod era;
mod facts;
mod finding;
mod hook;
mod ids;
mod keys;
mod logging;
mod mrtr;
mod observe;
mod options;
mod progress;
mod results;
mod state;
mod subscriptions;
mod tool_table;
mod tools;
mod transport;

pub use facts::{Sender, UnknownSender};

/// What an extension's conversation step (`crate::ext`'s hooks) may use of the checker: the
/// facts of a message, the findings it reports, the kept keys and the pending request.
pub(crate) mod ext_api {
    pub(crate) use super::facts::{Facts, Sender};
    pub(crate) use super::finding::{rule_finding, validation_finding, Finding};
    pub(crate) use super::hook::ConversationHooks;
    pub(crate) use super::keys::{Bounded, IdKey, Text, BLOCK, KEPT_TEXT};
    pub(crate) use super::options::ConversationOptions;
    pub(crate) use super::state::capped_finding;
}
pub use finding::{Era, Finding, Severity};
pub use options::ConversationOptions;
pub use transport::HttpFacts;

use crate::json::{JsonView, Tape, TapeView};
use crate::Revision;

/// The state of one session, fed its messages in order.
///
/// Memory is bounded by construction: answered requests are forgotten (only the last 1024 ids
/// per side are remembered, to recognize a second response); at most
/// [`ConversationOptions::max_pending`] requests per side are tracked (past that the oldest is
/// dropped with a `POLICY-PENDING` warning), and every other table has its cap in
/// [`ConversationOptions`] (past one, the oldest entry is dropped with one `POLICY-STATE`
/// warning per table). Long ids and texts are kept as digests, so one entry costs a bounded
/// number of bytes; `docs/conversations.md` ("Memory") gives them.
#[derive(Debug, Clone)]
pub struct Conversation {
    options: ConversationOptions,
    session: state::Session,
}

impl Default for Conversation {
    fn default() -> Self {
        Conversation::new()
    }
}

impl Conversation {
    pub fn new() -> Self {
        Conversation::with_options(ConversationOptions::default())
    }

    /// The session state (for the extensions' tests).
    #[cfg(test)]
    pub(crate) fn session(&self) -> &state::Session {
        &self.session
    }

    pub fn with_options(options: ConversationOptions) -> Self {
        let session = state::Session::new(&options);
        Conversation { options, session }
    }

    /// The revision the session negotiated (legacy `initialize`) or last used (modern `_meta`),
    /// once known.
    pub fn revision(&self) -> Option<Revision> {
        self.session.revision()
    }

    /// Checks the next message, given as the exact text that was sent. Text that is not JSON is
    /// a finding (MSG-8), not an error of the call.
    pub fn observe(&mut self, from: Sender, bytes: &[u8]) -> Vec<Finding> {
        self.observe_in(from, None, bytes)
    }

    /// [`Conversation::observe`] for a message of one Streamable HTTP exchange (a POST and its
    /// answer, or a GET and its stream) where requests are judged per exchange: outside a
    /// session, each POST may come from a different client, and each client numbers its own
    /// requests, so a request's id is paired only with the answer on its own exchange and may
    /// repeat in another (no ID-2, no MSG-11 across exchanges). What the session declared
    /// (capabilities, revision, tasks, cursors) is still one state. `None` is
    /// [`Conversation::observe`].
    ///
    /// ```
    /// use mcpgen::conversation::{Conversation, Sender};
    ///
    /// let mut c = Conversation::new();
    /// let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
    ///     "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let done = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}"#;
    /// // Two clients, each on its own POST, both use id 1: two requests, two answers.
    /// assert!(c.observe_in(Sender::Client, Some(1), call).is_empty());
    /// assert!(c.observe_in(Sender::Client, Some(2), call).is_empty());
    /// assert!(c.observe_in(Sender::Server, Some(2), done).is_empty());
    /// assert!(c.observe_in(Sender::Server, Some(1), done).is_empty());
    /// // A second answer on the same exchange is still one too many.
    /// assert_eq!(c.observe_in(Sender::Server, Some(1), done)[0].rule, Some("MSG-11"));
    /// ```
    pub fn observe_in(&mut self, from: Sender, exchange: Option<u64>, bytes: &[u8]) -> Vec<Finding> {
        match Tape::parse_bytes(bytes) {
            Ok(tape) => self.observe_view_in(from, exchange, &tape.root()),
            Err(e) => {
                let mut out = vec![finding::not_json(&e)];
                let (era, rev) = self.session.era.current();
                finding::judged_under(&mut out, era, rev);
                out
            }
        }
    }

    /// The Streamable HTTP transport's rules on what carried `message` (the text as sent) from
    /// `from`: a client POST's headers against its body (ERA-10, HTTP-8, HTTP-11, TASK-28), and
    /// for a server message that opens a response its `Content-Type` (HTTP-6) and the status of
    /// a -32020 (ERR-8) or -32022 (HTTP-9) error. Findings only; the session's state does not
    /// change (the message itself goes to [`Conversation::observe`]).
    ///
    /// ```
    /// use mcpgen::conversation::{Conversation, HttpFacts, Sender};
    ///
    /// let c = Conversation::new();
    /// let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version"}}"#;
    /// let facts = HttpFacts { status: Some(200), content_type: Some("application/json".into()), ..HttpFacts::default() };
    /// assert_eq!(c.check_http(Sender::Server, error, &facts)[0].rule, Some("HTTP-9"));
    /// ```
    pub fn check_http(&self, from: Sender, message: &[u8], facts: &HttpFacts) -> Vec<Finding> {
        match Tape::parse_bytes(message) {
            Ok(tape) => self.check_http_view(from, Some(&tape.root()), facts),
            Err(_) => self.check_http_view::<TapeView<'_, '_>>(from, None, facts),
        }
    }

    /// [`Conversation::check_http`] on a message already parsed (`None`: its text is not JSON,
    /// so only what the headers say is judged).
    pub fn check_http_view<'v, V: JsonView<'v>>(
        &self,
        from: Sender,
        message: Option<&V>,
        facts: &HttpFacts,
    ) -> Vec<Finding> {
        let mut out = transport::findings_of(from, message, facts);
        let (era, rev) = self.session.era.current();
        finding::judged_under(&mut out, era, rev);
        out
    }

    /// [`Conversation::observe_in`] on the exchange of `facts`, then
    /// [`Conversation::check_http`]: a message that crossed Streamable HTTP judged whole, its
    /// text parsed once. With empty facts it is [`Conversation::observe`].
    ///
    /// ```
    /// use mcpgen::conversation::{Conversation, HttpFacts, Sender};
    ///
    /// let mut c = Conversation::new();
    /// let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version"}}"#;
    /// let facts = HttpFacts { status: Some(200), content_type: Some("application/json".into()), ..HttpFacts::default() };
    /// let rules: Vec<_> = c.observe_http(Sender::Server, error, &facts).iter().map(|f| f.rule).collect();
    /// assert!(rules.contains(&Some("HTTP-9")));
    /// ```
    pub fn observe_http(&mut self, from: Sender, message: &[u8], facts: &HttpFacts) -> Vec<Finding> {
        match Tape::parse_bytes(message) {
            Ok(tape) => self.observe_http_view(from, &tape.root(), facts),
            Err(_) => {
                let mut out = self.observe_in(from, facts.exchange, message);
                out.extend(self.check_http_view::<TapeView<'_, '_>>(from, None, facts));
                out
            }
        }
    }

    /// [`Conversation::observe_http`] on any JSON view.
    pub fn observe_http_view<'v, V: JsonView<'v>>(&mut self, from: Sender, v: &V, facts: &HttpFacts) -> Vec<Finding> {
        let mut out = self.observe_view_in(from, facts.exchange, v);
        out.extend(self.check_http_view(from, Some(v), facts));
        out
    }

    /// [`Conversation::observe`] on any JSON view (Python objects, `serde_json::Value`, …).
    pub fn observe_view<'v, V: JsonView<'v>>(&mut self, from: Sender, v: &V) -> Vec<Finding> {
        self.session.observe(&self.options, (from, None), v)
    }

    /// [`Conversation::observe_in`] on any JSON view.
    pub fn observe_view_in<'v, V: JsonView<'v>>(&mut self, from: Sender, exchange: Option<u64>, v: &V) -> Vec<Finding> {
        self.session.observe(&self.options, (from, exchange), v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: u64, token: Option<u64>) -> String {
        let progress = token.map(|t| format!(r#","progressToken":{t}"#)).unwrap_or_default();
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}{progress}}},"name":"a","arguments":{{}}}}}}"#
        )
    }

    fn done(id: u64) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[]}}}}"#)
    }

    /// `observe_http` judges the message (its exchange from the facts) and its transport in one
    /// step: the rules below are written out, not computed by `observe_in` or `check_http`.
    #[test]
    fn observe_http_judges_the_message_and_what_carried_it() {
        const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        const UNSUPPORTED: &[u8] = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported"}}"#;
        fn rules(f: Vec<Finding>) -> Vec<&'static str> {
            f.iter().filter_map(|f| f.rule).collect()
        }
        fn post(version: &str, exchange: u64) -> HttpFacts {
            let h = [("MCP-Protocol-Version", version), ("Mcp-Method", "tools/list")];
            let h = h.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            HttpFacts { request_headers: Some(h), exchange: Some(exchange), ..HttpFacts::default() }
        }
        let answer = |status, content_type: &str, exchange| HttpFacts {
            status: Some(status),
            content_type: Some(content_type.to_owned()),
            exchange: Some(exchange),
            ..HttpFacts::default()
        };
        let mut c = Conversation::new();
        assert_eq!(rules(c.observe_http(Sender::Client, LIST, &post("2025-11-25", 1))), ["HTTP-8"]);
        // Id 1 again, on its own exchange: no duplicate (ID-2), the facts' exchange was used.
        assert!(rules(c.observe_http(Sender::Client, LIST, &post("2026-07-28", 2))).is_empty());
        assert_eq!(rules(c.observe_http(Sender::Server, UNSUPPORTED, &answer(200, "application/json", 2))), ["HTTP-9"]);
        // Text that is not JSON: the conversation's finding, then the transport's.
        let f = rules(c.observe_http(Sender::Server, b"{oops", &answer(400, "text/plain", 1)));
        assert_eq!(f.last(), Some(&"HTTP-6"), "{f:?}");
        assert_eq!(f.len(), 2, "{f:?}");
        // Empty facts: the message alone, as `observe` judges it.
        assert!(rules(c.observe_http(Sender::Client, LIST, &HttpFacts::default())).is_empty());
    }

    /// Answered requests are forgotten: a long session holds no more state than its open
    /// requests.
    #[test]
    fn answered_requests_are_forgotten() {
        let mut c = Conversation::new();
        for id in 0..20_000 {
            assert!(c.observe(Sender::Client, call(id, Some(id)).as_bytes()).is_empty());
            assert!(c.observe(Sender::Server, done(id).as_bytes()).is_empty());
        }
        assert_eq!(c.session.tracked(), 0);
        assert_eq!(c.revision().map(|r| r.as_str()), Some("2026-07-28"));
    }

    /// Past `max_pending`, the oldest request is dropped with a POLICY-PENDING warning, and a
    /// late answer to it reads as unknown (ID-3) rather than growing the state.
    #[test]
    fn pending_requests_are_capped() {
        let mut c = Conversation::with_options(ConversationOptions { max_pending: 8, ..Default::default() });
        for id in 0..8 {
            assert!(c.observe(Sender::Client, call(id, Some(id)).as_bytes()).is_empty());
        }
        for id in 8..1000 {
            let f = c.observe(Sender::Client, call(id, Some(id)).as_bytes());
            assert_eq!(f.len(), 1, "{f:?}");
            assert_eq!((f[0].rule, f[0].level), (Some("POLICY-PENDING"), Severity::Warning));
        }
        assert_eq!(c.session.pending_len(Sender::Client), 8);
        assert!(c.session.tracked() <= 16, "tracked {}", c.session.tracked());
        let late = c.observe(Sender::Server, done(0).as_bytes());
        assert_eq!(late.iter().map(|f| f.rule).collect::<Vec<_>>(), vec![Some("ID-3")]);
        assert!(c.observe(Sender::Server, done(999).as_bytes()).is_empty());
    }

    /// An answered id may be reused; when that second request is dropped at the cap, a late
    /// answer to it is unknown (ID-3), not a second answer to the first (MSG-11). A second
    /// answer while it is pending is no finding; after it, MSG-11.
    #[test]
    fn a_reused_id_dropped_at_the_cap_is_unknown() {
        let mut c = Conversation::with_options(ConversationOptions { max_pending: 2, ..Default::default() });
        let rules = |f: Vec<Finding>| f.iter().map(|f| f.rule).collect::<Vec<_>>();
        assert!(c.observe(Sender::Client, call(7, None).as_bytes()).is_empty());
        assert!(c.observe(Sender::Server, done(7).as_bytes()).is_empty());
        assert!(c.observe(Sender::Client, call(7, None).as_bytes()).is_empty());
        assert!(c.observe(Sender::Server, done(7).as_bytes()).is_empty());
        assert_eq!(rules(c.observe(Sender::Server, done(7).as_bytes())), vec![Some("MSG-11")]);
        assert!(c.observe(Sender::Client, call(7, None).as_bytes()).is_empty());
        assert!(c.observe(Sender::Client, call(8, None).as_bytes()).is_empty());
        assert_eq!(rules(c.observe(Sender::Client, call(9, None).as_bytes())), vec![Some("POLICY-PENDING")]);
        assert_eq!(rules(c.observe(Sender::Server, done(7).as_bytes())), vec![Some("ID-3")]);
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn listen(id: &str, filter: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{{META},"notifications":{filter}}}}}"#
        )
    }

    fn rules(f: &[Finding]) -> Vec<Option<&'static str>> {
        f.iter().map(|f| f.rule).collect()
    }

    /// A legacy session after its handshake (the server declares resources with subscribe).
    fn legacy(options: ConversationOptions) -> Conversation {
        let mut c = Conversation::with_options(options);
        let init = br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let done = br#"{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"s","version":"1"}}}"#;
        assert!(c.observe(Sender::Client, init).is_empty());
        assert!(c.observe(Sender::Server, done).is_empty());
        c
    }

    /// Unanswered listen streams, awaited retries and cursors are bounded too; each table's cap
    /// is reported once (POLICY-STATE), whatever the number of entries it forgets.
    #[test]
    fn other_tables_are_bounded() {
        let options =
            ConversationOptions { max_pending: 4, max_listen_streams: 4, max_awaiting: 8, ..Default::default() };
        let mut c = Conversation::with_options(options);
        let mut state = Vec::new();
        for id in 0..500 {
            let mut f = c.observe(Sender::Client, listen(&id.to_string(), r#"{"toolsListChanged":true}"#).as_bytes());
            c.observe(Sender::Client, call(10_000 + id, None).as_bytes());
            let ir = format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","requestState":"s{id}"}}}}"#,
                10_000 + id
            );
            f.extend(c.observe(Sender::Server, ir.as_bytes()));
            state.extend(f.into_iter().filter(|f| f.rule == Some(crate::rules::id::POLICY_STATE)).map(|f| f.message));
        }
        assert!(c.session.tracked() <= 4 + 4 + 8, "tracked {}", c.session.tracked());
        assert_eq!(state.len(), 2, "{state:?}");
        assert!(state[0].contains("more than 4 listen streams") && state[0].contains("the oldest (0)"), "{state:?}");
        assert!(state[1].contains("more than 8 `input_required` results"), "{state:?}");
        // A message on a forgotten stream is not checked (no SUB-4: it was open).
        let on_stream = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":0}}}"#;
        assert_eq!(rules(&c.observe(Sender::Server, on_stream.as_bytes())), vec![], "forgotten stream");
    }

    /// Legacy resource subscriptions: one URI subscribed a million times is one entry; past
    /// the cap the oldest URI is forgotten, reported once, and an update for it reads SUB-12.
    #[test]
    fn resource_subscriptions_are_capped() {
        use crate::rules::id;
        let sub = |id: usize, uri: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/subscribe","params":{{"uri":"{uri}"}}}}"#)
        };
        let mut c = legacy(ConversationOptions { max_resource_subscriptions: 3, ..Default::default() });
        for n in 0..2000 {
            assert!(c.observe(Sender::Client, sub(n, "file:///a").as_bytes()).is_empty());
            assert!(c.observe(Sender::Server, done_legacy(n).as_bytes()).is_empty());
        }
        assert_eq!(c.session.resource_subs.slots(), 1);
        let mut capped = Vec::new();
        for (n, uri) in ["file:///b", "file:///c", "file:///d", "file:///e"].iter().enumerate() {
            capped.extend(c.observe(Sender::Client, sub(5000 + n, uri).as_bytes()));
        }
        assert_eq!(rules(&capped), vec![Some(id::POLICY_STATE)]);
        assert_eq!(capped[0].level, Severity::Warning);
        assert!(capped[0].message.contains("`file:///a`"), "{}", capped[0].message);
        let update = |uri: &str| {
            format!(r#"{{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{{"uri":"{uri}"}}}}"#)
        };
        assert_eq!(rules(&c.observe(Sender::Server, update("file:///b").as_bytes())), vec![Some(id::SUB_12)]);
        assert!(c.observe(Sender::Server, update("file:///e").as_bytes()).is_empty());
        // A long URI is kept as a digest and still matched exactly.
        let long = format!("file:///{}", "l".repeat(10_000));
        c.observe(Sender::Client, sub(9000, &long).as_bytes());
        assert!(c.observe(Sender::Server, update(&long).as_bytes()).is_empty());
        assert_eq!(rules(&c.observe(Sender::Server, update(&format!("{long}x")).as_bytes())), vec![Some(id::SUB_12)]);
    }

    fn done_legacy(id: usize) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
    }

    /// List cursors: one `nextCursor` given again and again is one entry; past the cap the
    /// oldest is forgotten, reported once.
    #[test]
    fn cursors_are_capped() {
        use crate::rules::id;
        let list = |id: usize| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{META}}}}}"#);
        let page = |id: usize, cursor: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","tools":[],"nextCursor":"{cursor}","ttlMs":0,"cacheScope":"public"}}}}"#
            )
        };
        let mut c = Conversation::with_options(ConversationOptions { max_cursors: 2, ..Default::default() });
        for n in 0..2000 {
            assert!(c.observe(Sender::Client, list(n).as_bytes()).is_empty());
            assert!(c.observe(Sender::Server, page(n, "same").as_bytes()).is_empty(), "{n}");
        }
        assert_eq!(c.session.cursors.slots(), 1);
        let mut capped = Vec::new();
        for n in 0..5 {
            c.observe(Sender::Client, list(3000 + n).as_bytes());
            capped.extend(c.observe(Sender::Server, page(3000 + n, &format!("c{n}")).as_bytes()));
        }
        assert_eq!(rules(&capped), vec![Some(id::POLICY_STATE)]);
        assert!(capped[0].message.contains("more than 2 list cursors"), "{}", capped[0].message);
        assert_eq!(c.session.cursors.len(), 2);
    }

    /// A listen filter or an `input_required` result's keys larger than `max_entry_bytes` are
    /// not kept: their checks are skipped, reported once each.
    #[test]
    fn entries_larger_than_the_budget_are_not_kept() {
        use crate::rules::id;
        let mut c = Conversation::with_options(ConversationOptions { max_entry_bytes: 512, ..Default::default() });
        let uris: Vec<String> = (0..100).map(|i| format!(r#""file:///r{i}""#)).collect();
        let big = format!(r#"{{"resourceSubscriptions":[{}]}}"#, uris.join(","));
        let f = c.observe(Sender::Client, listen("1", &big).as_bytes());
        assert_eq!(rules(&f), vec![Some(id::POLICY_STATE)]);
        assert!(f[0].message.contains("filter of listen stream 1"), "{}", f[0].message);
        assert!(c.observe(Sender::Client, listen("2", &big).as_bytes()).is_empty(), "reported once");
        // Not kept: SUB-1 is not checked on the stream (the filter asked for no tool changes).
        let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}"#;
        assert!(c.observe(Sender::Server, ack.as_bytes()).is_empty());
        let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#;
        assert!(c.observe(Sender::Server, changed.as_bytes()).is_empty());
        // A small filter is kept and checked.
        c.observe(Sender::Client, listen("3", r#"{"promptsListChanged":true}"#).as_bytes());
        let ack3 = ack.replace(
            r#"subscriptionId":1},"notifications":{"toolsListChanged":true}"#,
            r#"subscriptionId":3},"notifications":{}"#,
        );
        assert!(c.observe(Sender::Server, ack3.as_bytes()).is_empty());
        let changed3 = changed.replace("subscriptionId\":1", "subscriptionId\":3");
        assert_eq!(rules(&c.observe(Sender::Server, changed3.as_bytes())), vec![Some(id::SUB_1)]);

        // input_required with more keys than the budget: its retry's keys are not checked.
        let inputs: Vec<String> = (0..100).map(|i| format!(r#""k{i}":{{"method":"roots/list"}}"#)).collect();
        c.observe(Sender::Client, call(50, None).as_bytes());
        let ir = format!(
            r#"{{"jsonrpc":"2.0","id":50,"result":{{"resultType":"input_required","inputRequests":{{{}}}}}}}"#,
            inputs.join(",")
        );
        let f = c.observe(Sender::Server, ir.as_bytes());
        assert!(rules(&f).contains(&Some(id::POLICY_STATE)), "{f:?}");
        let retry = format!(
            r#"{{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{{{META},"name":"a","arguments":{{}},"inputResponses":{{"k0":{{"roots":[]}}}}}}}}"#
        );
        let f = c.observe(Sender::Client, retry.as_bytes());
        assert!(!rules(&f).contains(&Some(id::MRTR_8)) && !rules(&f).contains(&Some(id::MRTR_7)), "{f:?}");
    }

    /// Ids, tokens and `requestState`s past KEPT_TEXT bytes are kept as digests: matched
    /// exactly, shown by their first characters.
    #[test]
    fn long_ids_are_matched_exactly() {
        use crate::rules::id;
        let long = "i".repeat(5000);
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":"{long}","method":"tools/call","params":{{{META},"name":"a","arguments":{{}}}}}}"#
        );
        let answer =
            |id: &str| format!(r#"{{"jsonrpc":"2.0","id":"{id}","result":{{"resultType":"complete","content":[]}}}}"#);
        let mut c = Conversation::new();
        assert!(c.observe(Sender::Client, call.as_bytes()).is_empty());
        let f = c.observe(Sender::Server, answer(&format!("{long}j")).as_bytes());
        assert_eq!(rules(&f), vec![Some(id::ID_3)]);
        assert!(f[0].message.contains(&format!("\"{}…\" (5001 bytes)", "i".repeat(20))), "{}", f[0].message);
        assert!(c.observe(Sender::Server, answer(&long).as_bytes()).is_empty());
        assert_eq!(rules(&c.observe(Sender::Server, answer(&long).as_bytes())), vec![Some(id::MSG_11)]);
    }

    /// What the checker hands per-message validation instead of having it read again (the id
    /// read as a key, a complete `_meta`) never hides a per-message error: where those facts do
    /// not hold, the checker reports exactly what `validate_message` reports.
    #[test]
    fn shared_facts_do_not_hide_per_message_errors() {
        let rev = Revision::parse("2026-07-28").expect("built with 2026-07-28");
        let meta =
            r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;
        let cases = [
            (Sender::Client, format!(r#"{{"jsonrpc":"2.0","id":1.0,"method":"tools/list","params":{{"_meta":{{{meta}}}}}}}"#)),
            (Sender::Client, format!(r#"{{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{{"_meta":{{{meta}}}}}}}"#)),
            (Sender::Client, format!(r#"{{"jsonrpc":"2.0","id":{{}},"method":"tools/list","params":{{"_meta":{{{meta}}}}}}}"#)),
            (
                Sender::Client,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":5}}"#.into(),
            ),
            (
                Sender::Client,
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5,"io.modelcontextprotocol/clientCapabilities":{}},"name":5}}"#.into(),
            ),
            (
                Sender::Client,
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]},"name":5}}"#.into(),
            ),
            (Sender::Server, r#"{"jsonrpc":"2.0","id":1.5,"result":{"resultType":"complete"}}"#.into()),
            (Sender::Server, r#"{"jsonrpc":"2.0","id":[1],"error":{"code":-32603,"message":"m"}}"#.into()),
        ];
        for (from, text) in &cases {
            let key = |rule: Option<&str>, pointer: &str| format!("{} {pointer}", rule.unwrap_or("schema"));
            let mut want: Vec<String> =
                match crate::protocol::validate_message(rev, text, &crate::MessageOptions::new()) {
                    Err(crate::DecodeError::Invalid(errors)) => {
                        errors.iter().map(|e| key(e.rule, &e.pointer)).collect()
                    }
                    other => panic!("{text}: expected per-message errors, got {other:?}"),
                };
            let mut got: Vec<String> =
                Conversation::new().observe(*from, text.as_bytes()).iter().map(|f| key(f.rule, &f.pointer)).collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{text}");
        }
    }

    /// Each finding names the era and revision its message was judged under: after a refused
    /// probe the fallback session is legacy, and the ERA-11 fallback after an answered probe is
    /// judged as the legacy `initialize` it is.
    #[test]
    fn findings_name_their_era() {
        let discover = br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let found = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}"#;
        let init = br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let mut c = Conversation::new();
        assert!(c.observe(Sender::Client, discover).is_empty());
        assert!(c.observe(Sender::Server, found).is_empty());
        let f = c.observe(Sender::Client, init);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, Some(crate::rules::id::ERA_11));
        assert_eq!((f[0].era, f[0].revision.map(|r| r.as_str())), (Some(Era::Legacy), Some("2025-06-18")));
        // A modern request without `_meta` in the modern connection: META-6, judged modern.
        let mut c = Conversation::new();
        c.observe(Sender::Client, discover);
        c.observe(Sender::Server, found);
        let f = c.observe(Sender::Client, br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
        assert_eq!((f[0].rule, f[0].era), (Some("META-6"), Some(Era::Modern)));
    }

    /// A session listing 10,000 tools, each with a schema nested 40 levels deep: at most
    /// `max_tools` definitions and `max_tool_schema_bytes` of schemas are kept, the cap is
    /// reported once (POLICY-STATE), kept tools are judged (TOOL-7) and calls of tools past the
    /// cap are not (neither judged nor TOOL-9).
    #[test]
    fn listed_tools_are_bounded() {
        use crate::rules::id;
        let deep = |n: usize| {
            let mut schema = r#"{"type":"string"}"#.to_owned();
            for _ in 0..40 {
                schema = format!(r#"{{"type":"object","properties":{{"x":{schema}}},"required":["x"]}}"#);
            }
            format!(
                r#"{{"name":"t{n}","inputSchema":{{"type":"object","properties":{{"a":{schema}}},"required":["a"]}}}}"#
            )
        };
        let tools: Vec<String> = (0..10_000).map(deep).collect();
        let list = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
        let page =
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","tools":[{}]}}}}"#, tools.join(","));
        let call = |id: usize, name: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"{name}","arguments":{{}}}}}}"#
            )
        };
        let options = ConversationOptions { max_tools: 300, ..Default::default() };
        let mut c = Conversation::with_options(options);
        assert!(c.observe(Sender::Client, list.as_bytes()).is_empty());
        let f = c.observe(Sender::Server, page.as_bytes());
        assert_eq!(rules(&f), vec![Some(id::POLICY_STATE)], "{f:?}");
        assert!(f[0].message.contains("more than 300 tools") && f[0].message.contains("`t300`"), "{}", f[0].message);
        assert_eq!(c.session.tools.len(), 300);
        let per_tool = c.session.tools.schema_bytes() / 300;
        assert!(per_tool > 40 * 40, "each kept schema is deep: {per_tool} bytes");
        assert_eq!(rules(&c.observe(Sender::Client, call(2, "t299").as_bytes())), vec![Some(id::TOOL_7)]);
        assert!(c.observe(Sender::Client, call(3, "t300").as_bytes()).is_empty(), "past the cap: not judged");
        assert!(c.observe(Sender::Client, call(4, "t9999").as_bytes()).is_empty());
        assert!(c.observe(Sender::Client, call(5, "never").as_bytes()).is_empty(), "no TOOL-9 once tools were dropped");

        // The byte cap: room for 10 of these schemas.
        let options = ConversationOptions { max_tool_schema_bytes: per_tool * 10 + per_tool / 2, ..Default::default() };
        let mut c = Conversation::with_options(options);
        c.observe(Sender::Client, list.as_bytes());
        let f = c.observe(Sender::Server, page.as_bytes());
        assert_eq!(rules(&f), vec![Some(id::POLICY_STATE)], "{f:?}");
        assert!(f[0].message.contains("schemas pass"), "{}", f[0].message);
        assert_eq!(c.session.tools.len(), 10);
        assert!(c.session.tools.schema_bytes() <= per_tool * 10 + per_tool / 2);

        // The defaults keep 1024 of them.
        let mut c = Conversation::new();
        c.observe(Sender::Client, list.as_bytes());
        assert_eq!(rules(&c.observe(Sender::Server, page.as_bytes())), vec![Some(id::POLICY_STATE)]);
        assert_eq!(c.session.tools.len(), 1024);
        assert!(c.session.tools.schema_bytes() <= 4 << 20);
    }

    #[test]
    fn levels_follow_the_catalogue() {
        assert_eq!(finding::level_at(Some("SUB-12"), None), Some(Severity::Warning));
        assert_eq!(finding::level_at(Some("LOG-5"), None), Some(Severity::Error));
        assert_eq!(finding::level_at(Some("SUB-3"), None), Some(Severity::Warning), "informal: never an error");
        assert_eq!(finding::level_at(None, None), Some(Severity::Error));
    }

    /// A finding's level is its rule's clause at the revision in play: RES-1 is a SHOULD in
    /// 2025-11-25 and a MUST in 2026-07-28; ERR-4 does not exist before 2026-07-28.
    #[test]
    fn levels_follow_the_revision_in_play() {
        let (Some(legacy), Some(modern)) = (Revision::parse("2025-11-25"), Revision::parse("2026-07-28")) else {
            return;
        };
        assert_eq!(finding::level_at(Some("RES-1"), Some(legacy)), Some(Severity::Warning));
        assert_eq!(finding::level_at(Some("RES-1"), Some(modern)), Some(Severity::Error));
        assert_eq!(finding::level_at(Some("ERR-4"), Some(legacy)), None);
        assert_eq!(finding::level_at(Some("ERR-4"), Some(modern)), Some(Severity::Error));
        let mut out = vec![finding::rule_finding("ERR-4", "/error/code", "not", "x".into())];
        finding::judged_under(&mut out, Some(Era::Legacy), Some(legacy));
        assert!(out.is_empty(), "a rule the revision lacks finds nothing: {out:?}");
        let mut out = vec![finding::rule_finding("RES-1", "/error/code", "const", "x".into())];
        finding::judged_under(&mut out, Some(Era::Legacy), Some(legacy));
        assert_eq!((out[0].level, out[0].revision), (Severity::Warning, Some(legacy)));
        let clause = out[0].clause().unwrap();
        assert_eq!((clause.code, clause.source), (Some(-32002), "server/resources"));
        assert!(clause.quote.is_some_and(|q| q.contains("SHOULD")), "{clause:?}");
        assert_eq!(
            out[0].clause_url().as_deref(),
            Some("https://modelcontextprotocol.io/specification/2025-11-25/server/resources")
        );
    }
}
