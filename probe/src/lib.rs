//! `mcpgen-probe`: drives any MCP server through a [`Peer`] and judges every answer with the
//! same checker as everything else in mcpgen (the conversation checker, `check_request`'s
//! verdict for the requests whose right answer the spec fixes). It is built on `mcpgen`'s
//! public API only, and is the one crate of the family that spawns processes, threads and
//! sockets: `mcpgen` itself does no I/O (`cargo xtask core-io` holds it to that), so the C
//! library and the Python package, which depend on `mcpgen` alone, carry no probe.
//!
//! Peers: [`stdio::StdioPeer`] (a child process, one message per line) and, with the cargo
//! feature `http` (on by default), [`http::HttpPeer`] (a Streamable HTTP client on a one-thread
//! tokio runtime). Without `http` the crate has no async stack. `mcpgen probe` (crate
//! `mcpgen-cli`) parses flags, opens one of these and renders the [`Report`].
//!
//! One run ([`run`]):
//! 1. **Modern era**: `server/discover` (2026-07-28, per-request `_meta`); what it declares
//!    (supported versions, capabilities) decides the rest.
//! 2. **Inventory**: every list the capabilities declare (`tools/list`, `prompts/list`,
//!    `resources/list`, `resources/templates/list`), every page (at most
//!    [`ProbeOptions::max_pages`]).
//! 3. **Protocol negatives** ([`negatives`]): requests whose right answer `check_request`
//!    knows — missing `_meta`, an unsupported version, unknown and removed methods, malformed
//!    envelopes; the server's error code must be the one `check_request` gives, else a finding
//!    with its rule. Then requests for undeclared capabilities and a cancellation of a request
//!    never sent.
//! 4. **Header negatives**, on a transport with headers ([`Peer::has_headers`], Streamable
//!    HTTP): a request sent with its headers changed ([`Peer::send_edited`], [`HeaderEdit`]) so
//!    that they disagree with the body — `Mcp-Method`, `MCP-Protocol-Version`, `Mcp-Name`, an
//!    allowed tool's `Mcp-Param-*` — judged against what
//!    [`check_http_headers`](mcpgen::protocol::check_http_headers) /
//!    [`check_param_headers`](mcpgen::protocol::check_param_headers) answer for the headers
//!    actually sent ([`Peer::carried`]). Without headers (stdio) they are listed in
//!    [`Report::skipped`], not run.
//! 5. **Tool calls** ([`tools`]), only as [`ToolPolicy`] allows (default: tools annotated
//!    `readOnlyHint: true` and `openWorldHint: false`): the argument cases of [`cases`] (valid and invalid, deterministic
//!    under [`ProbeOptions::seed`]), each answer judged exactly, a failing case shrunk before it
//!    is reported; the first valid call carries a progress token. On HTTP a modern call carries
//!    its `Mcp-Param-*` headers, and one more call leaves the first out (XHDR-9).
//! 6. **Prompts** ([`prompts`]) and **resources** ([`resources`]): each got or read, with the
//!    negatives whose answer is -32602 (a missing required argument, an unknown URI).
//! 7. **Legacy era**: an `initialize` session at each legacy revision the server names, each on
//!    a fresh connection from a [`Connect`] ([`run_with`]; stdio: a new process, HTTP: a new
//!    session); over one connection ([`run`]) the preferred revision only, the rest reported
//!    skipped. Without `server/discover`, 2025-11-25 on the same connection. What a client of
//!    each era saw is one [`EraSeen`] each. A legacy session runs steps 2, 5 and 6.
//!
//! Every answer goes through the conversation checker, and where the transport carried HTTP
//! facts ([`Carried`]) through [`Conversation::check_http`] too (the status and `Content-Type`
//! with the message that opens a response: HTTP-6, ERR-8, HTTP-9). Findings on the server's
//! messages only count: the probe's own negatives are meant to be wrong. Every exchange is kept
//! ([`Report::exchanges`]) so a finding can be shown and replayed; an [`Observer`] sees each
//! step (progress) and each message with its conversation and HTTP facts (a record that
//! `validate --conversation` replays to the same findings).
//!
//! Bounded: pages, cases, tool calls, shrink steps, prompts, resources, exchanges kept and
//! legacy sessions each have a limit in [`ProbeOptions`], and the whole run a time budget ([`ProbeOptions::budget`], PROBE-3 when it
//! runs out); the peer owns the waits (its timeouts) and the size of a message.

mod answers;
pub mod args;
pub mod caching;
pub mod cases;
mod eras;
mod failed;
#[cfg(feature = "http")]
pub mod http;
mod http_negatives;
mod inventory;
mod jsonrpc;
pub mod late;
pub mod mrtr;
pub mod negatives;
mod options;
pub mod oracle;
mod peer;
pub mod prompts;
mod report;
pub mod resources;
pub mod stdio;
pub mod tools;

use std::time::Instant;

use serde_json::{json, Value};

use mcpgen::conversation::{Conversation, Finding, Sender, Severity};
use mcpgen::Revision;

pub use eras::{modern_revision, EraSeen};
pub use peer::{answers_id, is_loopback_host, Carried, Connect, HeaderEdit, Observer, Peer, PeerError, Unobserved};

pub use options::{EraChoice, ProbeOptions, PromptPolicy, ToolPolicy, DEFAULT_SEED};
pub use report::{CheckRun, Exchange, Outcome, ProbeFinding, Refusal, Report, Skipped, Status};

/// The JSON type of an id, as a finding names it.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Null => "null",
        _ => "neither a string nor a number",
    }
}

/// An error response with `id: null` or none (the id could not be read: JSON-RPC 2.0 says
/// `null`, 2026-07-28's schema leaves it out).
fn is_null_id_error(v: &Value) -> bool {
    v.get("id").is_none_or(Value::is_null) && v.get("error").is_some() && v.get("method").is_none()
}

/// The `_meta` every modern request carries.
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": modern_revision(),
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcpgen-probe", "version": env!("CARGO_PKG_VERSION")}
    })
}

/// A modern request with the probe's `_meta` merged into `params`.
pub(crate) fn modern_request(id: u64, method: &str, params: Value) -> Value {
    let mut params = if params.is_object() { params } else { json!({}) };
    params["_meta"] = modern_meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The state of one run: the peer, the conversations, the report.
struct Run<'p> {
    peer: &'p mut dyn Peer,
    /// The connection of the legacy session under way, when it has one of its own.
    own: Option<Box<dyn Peer>>,
    observer: &'p mut dyn Observer,
    /// The conversation under way, as the record names it (`None`: the modern one).
    label: Option<String>,
    opts: ProbeOptions,
    report: Report,
    next_id: u64,
    deadline: Option<Instant>,
    last_step: String,
    /// Requests whose answer did not come in time ([`late`]).
    pending: Vec<late::Pending>,
    /// The next exchange waits [`ProbeOptions::short_wait`], not the peer's timeout.
    short: bool,
    /// The revision in play: [`modern_revision()`], or the legacy session's.
    rev: Option<Revision>,
    /// The next message is no valid request (a malformed envelope): no answer to it is a
    /// warning ([`no_answer`]), not MSG-11.
    invalid: bool,
    /// Some exchange got through to the server (a refusal after it is mid-run, PROBE-5).
    heard: bool,
    /// The next exchange's transport error is the check's to judge ([`Run::kept`]), not
    /// MSG-11 or PROBE-5: a request the server may rightly refuse in the transport (`Origin`).
    keep_error: bool,
    /// The transport error of the last exchange sent with [`Run::keep_error`].
    kept: Option<PeerError>,
    /// The `input_required` results of the modern session ([`mrtr`]).
    mrtr: mrtr::Mrtr,
    /// Bytes of the server's messages kept in the report ([`ProbeOptions::max_kept_bytes`]).
    kept_bytes: usize,
    /// The connection under way is gone ([`PeerError::is_lost`]), and why: the rest of its
    /// checks are skipped, not failed. Cleared with each new connection.
    lost: Option<String>,
    /// The size of the last exchange's answer, in bytes (0: none): what a list's pages cost.
    answer_bytes: usize,
}

/// An exchange's last message of at most this many bytes is kept in the report past
/// [`ProbeOptions::max_kept_bytes`]: answers are what the report's own checks read.
pub const SMALL_ANSWER_BYTES: usize = 4096;

impl<'p> Run<'p> {
    /// A run over `peer` that has sent nothing yet; its deadline starts now.
    fn new(peer: &'p mut dyn Peer, observer: &'p mut dyn Observer, options: &ProbeOptions) -> Run<'p> {
        Run {
            peer,
            own: None,
            observer,
            label: None,
            opts: options.clone(),
            report: Report { seed: options.seed, ..Report::default() },
            next_id: 0,
            deadline: options.budget.map(|b| Instant::now() + b),
            last_step: String::new(),
            pending: Vec::new(),
            short: false,
            rev: Revision::parse(modern_revision()),
            invalid: false,
            heard: false,
            keep_error: false,
            kept: None,
            mrtr: mrtr::Mrtr::default(),
            kept_bytes: 0,
            answer_bytes: 0,
            lost: None,
        }
    }
}

impl Run<'_> {
    fn peer(&mut self) -> &mut dyn Peer {
        match &mut self.own {
            Some(p) => p.as_mut(),
            None => &mut *self.peer,
        }
    }

    /// Whether the budget is spent; the first time it is, a PROBE-3 warning says so.
    fn out_of_time(&mut self, check: &str) -> bool {
        if self.report.out_of_time {
            return true;
        }
        if self.deadline.is_none_or(|d| Instant::now() < d) {
            return false;
        }
        self.report.out_of_time = true;
        let ms = self.opts.budget.map_or(0, |b| b.as_millis());
        self.finding(
            check,
            Some(mcpgen::rules::id::PROBE_3),
            Severity::Warning,
            "",
            format!("the probe's time budget ({ms} ms) ran out here: this step and the ones after it were not run"),
            None,
        );
        true
    }

    /// The name of the revision in play.
    fn rev_name(&self) -> String {
        self.rev.map_or(modern_revision(), |r| r.as_str()).to_owned()
    }

    /// A check run (once per exchange).
    fn ran(&mut self, check: &str) {
        let revision = self.rev_name();
        self.report.checks.push(CheckRun { name: check.to_owned(), revision });
    }

    /// A checker's finding on the answer to `check`, at the revision in play.
    fn checker_finding(&mut self, check: &str, f: Finding, exchange: Option<usize>) {
        let mut found = ProbeFinding::of_checker(check, f, exchange);
        if found.clause.is_none() && found.revision.is_none() {
            found.clause = found.rule.and_then(|rule| oracle::clause_at(rule, self.rev));
        }
        found.revision = self.rev;
        self.report.findings.push(found);
    }

    /// The verdict of the oracle on `answer` to `check`: when the clause of the check's rule
    /// at the revision in play does not accept it, a finding at that clause's level (none
    /// where the revision lacks the rule). `what` says what was asked, for the message.
    fn judge(&mut self, check: &str, answer: &Value, what: &str) {
        let Some(entry) = oracle::entry(check) else { return };
        let Some(rule) = entry.rule else { return };
        let modern = self.rev.is_none_or(|r| r.as_str() == modern_revision());
        let Some(accepts) = (if modern { entry.modern } else { entry.legacy }) else { return };
        let Some(refused) = accepts.judge(answer) else { return };
        let at = self.last_exchange();
        let message = format!("{what} got {}; the spec accepts {}", refused.got, accepts.describe());
        self.violation(check, rule, refused.pointer, message, Some(accepts.describe()), at);
    }

    /// A finding on `rule` at the level of its clause at the revision in play; nothing where
    /// the revision does not have the rule.
    fn violation(
        &mut self,
        check: &str,
        rule: &'static str,
        pointer: &str,
        message: String,
        accepts: Option<String>,
        exchange: Option<usize>,
    ) {
        let Some(clause) = oracle::clause_at(rule, self.rev) else { return };
        let (level, lowered) = oracle::level_on(rule, &clause, self.peer().has_headers());
        let message = match lowered {
            Some(why) => format!("{message} ({why})"),
            None => message,
        };
        self.report.findings.push(ProbeFinding {
            check: check.to_owned(),
            rule: Some(rule),
            level,
            pointer: pointer.to_owned(),
            message,
            exchange,
            revision: self.rev,
            clause: Some(clause),
            accepts,
        });
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends `message`, feeds both sides to `conv`, keeps the exchange and turns the server's
    /// findings into the report's. Returns the response (the last message with the request's
    /// id), if one came.
    fn exchange(&mut self, check: &str, conv: &mut Conversation, message: Value) -> Option<Value> {
        self.exchange_edited(check, conv, message, &[])
    }

    /// [`Run::exchange`] with the transport's headers changed by `edits` (none: as the
    /// transport sends them). The HTTP facts go through [`Conversation::check_http`]: the
    /// response's status and `Content-Type` with the first server message.
    fn exchange_edited(
        &mut self,
        check: &str,
        conv: &mut Conversation,
        message: Value,
        edits: &[HeaderEdit],
    ) -> Option<Value> {
        if !self.may_send(check) {
            return None;
        }
        if self.last_step != check {
            check.clone_into(&mut self.last_step);
            self.observer.step(check);
        }
        let text = message.to_string();
        let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
        let modern_request = self.rev.is_none_or(|r| r.as_str() == modern_revision()).then(|| message.clone());
        // A batch waits for the answer to the request in it.
        let id = message.get("id").or_else(|| message.get(0).and_then(|m| m.get("id"))).cloned();
        conv.observe(Sender::Client, text.as_bytes());
        let invalid = std::mem::take(&mut self.invalid);
        let keep = std::mem::take(&mut self.keep_error);
        let (sent_at, got) = self.send(text.as_bytes(), id.as_ref(), edits);
        let carried = self.peer().carried().cloned();
        let label = self.label.clone();
        let client_facts = carried.as_ref().map(Carried::client_facts);
        self.observer.message(Sender::Client, label.as_deref(), client_facts.as_ref(), text.as_bytes());
        let index = self.keep_exchange(check, message);
        self.ran(check);
        let received = match got {
            Ok(r) => r,
            Err(e) => {
                if let Some(i) = index {
                    self.report.exchanges[i].peer_error = Some(e.to_string());
                }
                self.failed(check, e, failed::Sent { id, index, at: sent_at, invalid, keep });
                return None;
            }
        };
        let asked = answers::Asked { check, id, index, invalid };
        let opening = carried.as_ref().and_then(Carried::response_facts);
        let response = self.hear_all(&asked, conv, received, opening, label.as_deref());
        if let (Some(method), Some(answer)) = (&method, &response) {
            caching::judge(self, check, method, answer, index);
        }
        if let (Some(request), Some(answer)) = (&modern_request, &response) {
            mrtr::observe(&mut self.mrtr, request, answer);
        }
        response
    }

    /// Whether `check` may send: not once the server refused the run or the time is up, nor on
    /// a lost connection (skipped, said once per check).
    fn may_send(&mut self, check: &str) -> bool {
        if self.report.refused.is_some() || self.out_of_time(check) {
            return false;
        }
        if let Some(why) = &self.lost {
            let reason = format!("not sent: {why}");
            if !self.report.skipped.last().is_some_and(|s| s.check == check && s.reason == reason) {
                self.skip(check, reason);
            }
            return false;
        }
        true
    }

    /// Sends `text` (its headers changed by `edits`, if any), waiting the short wait when the
    /// check asked for it; when it was sent, and the server's messages.
    fn send(
        &mut self,
        text: &[u8],
        id: Option<&Value>,
        edits: &[HeaderEdit],
    ) -> (Instant, Result<Vec<Vec<u8>>, PeerError>) {
        let short = std::mem::take(&mut self.short).then_some(self.opts.short_wait);
        if short.is_some() {
            self.peer().set_wait(short);
        }
        let sent_at = Instant::now();
        let got = if edits.is_empty() { self.peer().send(text, id) } else { self.peer().send_edited(text, id, edits) };
        if short.is_some() {
            self.peer().set_wait(None);
        }
        (sent_at, got)
    }

    /// Keeps the exchange of `message` in the report while there is room (else counts it
    /// dropped): its index there.
    fn keep_exchange(&mut self, check: &str, message: Value) -> Option<usize> {
        if self.report.exchanges.len() < self.opts.max_exchanges {
            self.report.exchanges.push(Exchange {
                check: check.to_owned(),
                sent: message,
                received: Vec::new(),
                peer_error: None,
                unkept: 0,
            });
            Some(self.report.exchanges.len() - 1)
        } else {
            self.report.dropped_exchanges += 1;
            None
        }
    }

    fn skip(&mut self, check: &str, reason: String) {
        let revision = self.rev_name();
        self.report.skipped.push(Skipped { check: check.to_owned(), reason, revision });
    }

    /// A finding at a level the probe sets (its own limits, a late answer); the clause of
    /// `rule` at the revision in play is attached.
    fn finding(
        &mut self,
        check: &str,
        rule: Option<&'static str>,
        level: Severity,
        pointer: &str,
        message: String,
        exchange: Option<usize>,
    ) {
        let clause = rule.and_then(|r| oracle::clause_at(r, self.rev));
        self.report.findings.push(ProbeFinding {
            check: check.to_owned(),
            rule,
            level,
            pointer: pointer.to_owned(),
            message,
            exchange,
            revision: self.rev,
            clause,
            accepts: None,
        });
    }

    fn last_exchange(&self) -> Option<usize> {
        (self.report.dropped_exchanges == 0 && !self.report.exchanges.is_empty())
            .then(|| self.report.exchanges.len() - 1)
    }

    /// Keeps a message of the server in exchange `i` while the report holds less than
    /// [`ProbeOptions::max_kept_bytes`]; past it only an exchange's `last` message of at most
    /// [`SMALL_ANSWER_BYTES`], the others counted in [`Exchange::unkept`].
    fn keep_received(&mut self, i: usize, bytes: &[u8], last: bool) {
        let Some(exchange) = self.report.exchanges.get_mut(i) else { return };
        let fits = self.kept_bytes.saturating_add(bytes.len()) <= self.opts.max_kept_bytes;
        if fits || (last && bytes.len() <= SMALL_ANSWER_BYTES) {
            self.kept_bytes = self.kept_bytes.saturating_add(bytes.len());
            exchange.received.push(String::from_utf8_lossy(bytes).into_owned());
        } else {
            exchange.unkept += 1;
        }
    }

    /// A request of either era: modern ones carry the probe's `_meta`.
    fn request(&self, id: u64, method: &str, params: Value, modern: bool) -> Value {
        if modern {
            modern_request(id, method, params)
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        }
    }
}

/// Probes the server behind `peer`; see the module documentation for the steps. One
/// connection: one legacy session, on `peer` after the modern steps.
pub fn run(peer: &mut dyn Peer, options: &ProbeOptions) -> Report {
    run_with(peer, None, options, &mut Unobserved)
}

/// [`run`], with `more` to open a fresh connection for each legacy session (every legacy
/// revision the server names is then probed, each in a session of its own), and `observer`
/// told of each step and message as it goes.
pub fn run_with(
    peer: &mut dyn Peer,
    more: Option<&mut dyn Connect>,
    options: &ProbeOptions,
    observer: &mut dyn Observer,
) -> Report {
    let mut r = Run::new(peer, observer, options);
    let mut modern = Conversation::with_options(r.opts.conversation());
    // The newest legacy revision: where a server names none, the one `initialize` asks for.
    let newest_legacy = Revision::all().iter().map(|rev| rev.as_str()).find(|v| *v != modern_revision());
    if !r.opts.era.modern() {
        if let Some(version) = newest_legacy {
            eras::legacy_session(&mut r, version);
        }
        late::finish(&mut r, &mut modern);
        return r.report;
    }
    let id = r.id();
    let start = eras::Mark::of(&r);
    let discover = r.exchange("discover", &mut modern, modern_request(id, "server/discover", json!({})));
    if r.report.refused.is_some() {
        return r.report;
    }
    let legacy_versions: Vec<String> = match discover.as_ref().and_then(|d| d.get("result")) {
        Some(result) => {
            r.report.eras.push("modern".into());
            let supported: Vec<String> = result
                .get("supportedVersions")
                .and_then(Value::as_array)
                .map(|v| v.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            let caps = result.get("capabilities").cloned().unwrap_or(Value::Null);
            session(&mut r, &mut modern, &caps, true);
            eras::seen(&mut r, start, "modern", modern_revision(), format!("served; offers {}", eras::offered(&caps)));
            // The legacy revisions it names, preferred first; naming none does not mean it
            // serves no `initialize` (a dual-era server may list its modern versions only).
            let named: Vec<String> = supported.into_iter().filter(|v| v != modern_revision()).collect();
            if named.is_empty() {
                newest_legacy.into_iter().map(str::to_owned).collect()
            } else {
                named
            }
        }
        // No discover: a modern-only client stops here, a dual-era one falls back to
        // `initialize` at the newest legacy revision, on the same connection.
        None => {
            eras::seen(&mut r, start, "modern", modern_revision(), "not served (no `server/discover` result)".into());
            if r.opts.era.legacy() {
                if let Some(version) = newest_legacy {
                    eras::legacy_session(&mut r, version);
                }
            }
            late::finish(&mut r, &mut modern);
            return r.report;
        }
    };
    if r.opts.era.legacy() {
        eras::legacy_sessions(&mut r, more, &legacy_versions);
    }
    late::finish(&mut r, &mut modern);
    http_negatives::settle_version_missing(&mut r);
    r.report
}

/// One session's inventory and exercises: every list the capabilities `caps` declare, the
/// protocol and header negatives (`modern` only), the tool calls (and one of a tool that does
/// not exist), the prompts and the resources.
fn session(r: &mut Run<'_>, conv: &mut Conversation, caps: &Value, modern: bool) {
    let lists: [(&str, &str, &str); 4] = [
        ("tools", "tools/list", "tools"),
        ("prompts", "prompts/list", "prompts"),
        ("resources", "resources/list", "resources"),
        ("resources", "resources/templates/list", "resourceTemplates"),
    ];
    let (mut tools, mut prompts, mut resources) = (Vec::new(), Vec::new(), Vec::new());
    for (cap, method, key) in lists {
        if caps.get(cap).is_some_and(Value::is_object) {
            let items = r.list_all(conv, method, key, modern);
            match method {
                "tools/list" => tools = items,
                "prompts/list" => prompts = items,
                "resources/list" => resources = items,
                _ => {}
            }
        }
    }
    if modern {
        negatives::run(r, conv, caps);
        http_negatives::run(r, conv, caps.get("tools").is_some_and(Value::is_object));
    }
    http_negatives::origin(r, conv, modern);
    jsonrpc::run(r, conv, modern);
    tools::schema_checks(r, &tools);
    tools::call_tools(r, conv, &tools, modern);
    if caps.get("tools").is_some_and(Value::is_object) {
        tools::unknown_tool(r, conv, &tools, modern);
    }
    prompts::run(r, conv, &prompts, caps, modern);
    resources::run(r, conv, &resources, caps, modern);
    if modern {
        mrtr::tamper(r, conv);
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_checks;
#[cfg(test)]
mod tests_eras;
#[cfg(test)]
mod tests_late;
#[cfg(test)]
mod tests_oracle;
#[cfg(test)]
mod tests_refused;
#[cfg(test)]
mod tests_safety;
