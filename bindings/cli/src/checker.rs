//! The checker thread, shared by both proxies (stdio and `--listen`) and by any command that
//! checks live traffic: relays hand every message over a bounded queue ([`ToChecker`], its
//! bytes and events capped: [`queue`]) to one thread that checks them in order — one conversation per
//! session ([`Sessions`], capped at `--max-sessions`) — and writes the record and the report
//! ([`check_all`]). [`CheckerThread`] starts and ends it.
//!
//! A new command reuses it in four steps (the stdio proxy, `crate::proxy::run`, is the full
//! example):
//!
//! ```ignore
//! let checker = CheckerThread::start(CheckerSettings {
//!     report: args.report.as_deref(),           // JSON Lines findings, else stderr
//!     record: args.record.as_deref(),           // what `validate --conversation` replays
//!     options: ConversationOptions::default().validation(args.check.options()?),
//!     limits: Limits { max_sessions: args.max_sessions.get_or(DEFAULT_MAX_SESSIONS), ..Limits::default() },
//! })?;
//! let to_checker = checker.sender();            // one clone per relaying thread
//! // … for each message, before passing it on (waits while the checker is behind):
//! to_checker.message(Sender::Client, Arc::new(line), None);
//! // … once every message is handed over:
//! let tally = checker.finish();
//! if let Some(code) = tally.fail_exit(args.fail_on.fail_on) {
//!     return Ok(code);
//! }
//! ```

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Instant, SystemTime};

use bytes::Bytes;
use hyper::header::HeaderMap;
use mcpgen::conversation::{ConversationOptions, Era, Finding, HttpFacts, Sender, Severity};
use mcpgen::json::{Kind, Tape};
use mcpgen::rules::id;
use mcpgen::JsonView;

mod queue;
mod repeats;
mod report;
mod telemetry;

use crate::conversation::{check_line, record_line, record_line_with, Checked, Evicted, Sessions};
use crate::proxy::metrics::{Limit, Metrics, Observer};
use crate::proxy::traces::{Spans, Tracing};
use crate::UsageError;
use queue::{Queue, Wake, EVENT_COST};
use repeats::{Repeats, Verdict};

/// `--max-message-bytes`: longer messages are relayed unchecked.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// `--max-queued-bytes`: what the messages waiting for the checker may hold.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 64 * 1024 * 1024;
/// `--max-repeats`: findings of one kind shown before they are only counted.
pub const DEFAULT_MAX_REPEATS: usize = 20;
/// `--max-sessions`: the same default as `validate --conversation`, so a record replays alike.
pub const DEFAULT_MAX_SESSIONS: usize = crate::conversation::MAX_SESSIONS;

/// The proxy's bounds on what a peer can make it hold or print.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_message_bytes: usize,
    pub max_queued_bytes: usize,
    pub max_repeats: usize,
    /// `--max-sessions`: conversations checked at once (the HTTP form: one per legacy session,
    /// and one for the requests outside a session); past it the least recently used is
    /// forgotten, as `validate --conversation --max-sessions` does on the replay.
    pub max_sessions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            max_repeats: DEFAULT_MAX_REPEATS,
            max_sessions: DEFAULT_MAX_SESSIONS,
        }
    }
}

/// What the checker saw: messages with an error-level finding, and with warnings only.
#[derive(Default)]
pub struct Tally {
    pub errors: usize,
    pub warnings: usize,
}

impl Tally {
    /// `Some(exit 1)`, said on stderr, when a message had a finding at the `--fail-on` level.
    pub fn fail_exit(&self, fail_on: Option<crate::FailOn>) -> Option<ExitCode> {
        if !fail_on.is_some_and(|level| level.fails(self.errors, self.warnings)) {
            return None;
        }
        eprintln!(
            "mcpgen proxy: {} message(s) with errors, {} with warnings only (--fail-on): exit 1",
            self.errors, self.warnings
        );
        Some(ExitCode::from(1))
    }
}

/// What [`CheckerThread::start`] needs: where to write, what to check with, the bounds.
pub struct CheckerSettings<'a> {
    /// Findings as JSON Lines here (created, or truncated), else on stderr.
    pub report: Option<&'a Path>,
    /// The conversation here (created, or truncated), as `validate --conversation` replays it;
    /// its name is the source of the findings (`FILE:N`, else `proxy:N`).
    pub record: Option<&'a Path>,
    pub options: ConversationOptions,
    pub limits: Limits,
    /// `--metrics`: what the checker counts (messages, findings, refusals, limits hit).
    pub metrics: Option<Arc<Metrics>>,
    /// `--otlp-endpoint`: a span per exchange, made by the checker.
    pub traces: Option<Tracing>,
}

/// The running checker: [`CheckerThread::sender`] for the relays, [`CheckerThread::finish`]
/// once they handed everything over.
pub struct CheckerThread {
    to: ToChecker,
    thread: JoinHandle<Tally>,
}

impl CheckerThread {
    /// Creates the report and record files, then starts the thread.
    pub fn start(settings: CheckerSettings<'_>) -> Result<CheckerThread, UsageError> {
        let create = |p: &Path, what: &str| {
            File::create(p)
                .map(BufWriter::new)
                .map_err(|e| UsageError(format!("cannot create {what} file {}: {e}", p.display())))
        };
        let report = settings.report.map(|p| create(p, "report")).transpose()?;
        let record = settings.record.map(|p| create(p, "record")).transpose()?;
        let source_name = settings.record.map_or_else(|| "proxy".to_owned(), |p| p.display().to_string());
        let limits = settings.limits;
        let metrics = settings.metrics;
        // At least one message of the largest checked size always fits.
        let cap = limits.max_queued_bytes.max(limits.max_message_bytes.saturating_add(2 + EVENT_COST));
        let budget = Arc::new(Queue::new(cap, metrics.clone()));
        let to = ToChecker::new(Arc::clone(&budget), metrics.is_some() || settings.traces.is_some());
        let spans = settings.traces.map(Spans::new);
        let out = Output { source_name, report, record, limits, budget: Arc::clone(&budget), scratch: Vec::new() };
        let options = settings.options;
        let thread = std::thread::Builder::new()
            .name("mcpgen-proxy-checker".into())
            .spawn(move || check_all(options, out, metrics.map(Observer::new), spans))
            .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?;
        Ok(CheckerThread { to, thread })
    }

    /// A way to the checker for one relay (clone it for more).
    pub fn sender(&self) -> ToChecker {
        self.to.clone()
    }

    /// Tells the checker every message was handed over, waits until it checked them all, and
    /// returns what it saw. Messages senders still hand over after this are not checked.
    pub fn finish(self) -> Tally {
        self.to.queue.push(None, Wake::Now, |_| Event::Stop);
        self.thread.join().unwrap_or_default()
    }
}

enum Event {
    /// One message as relayed: its line (`\n` included, when it had one); `refused` when
    /// `--enforce` answered it instead of forwarding (rule, message). `cost`: its share of the
    /// budget, given back once checked. The HTTP form names its `session` (`None`: outside a
    /// legacy session) and the message's `http` facts.
    Message {
        from: Sender,
        line: Line,
        refused: Option<(&'static str, String)>,
        cost: usize,
        session: Option<Arc<str>>,
        http: Option<Box<Http>>,
        /// When it was handed over (`--metrics`, `--otlp-endpoint`: the request → response time).
        at: Option<(Instant, SystemTime)>,
    },
    /// A line longer than `--max-message-bytes` is being relayed unchecked.
    TooLarge { from: Sender, cost: usize },
    /// Transport trouble (a stalled upstream, a client that reads nothing): a report line of
    /// its own, never a finding — it says nothing about the protocol.
    Note { what: &'static str, text: String },
    /// Every relayed message has been sent: finish.
    Stop,
}

/// A message's bytes as its relay holds them: a stdio line, or an HTTP body (`Bytes`, shared
/// with hyper's side of the relay rather than copied).
enum Line {
    Shared(Arc<Vec<u8>>),
    Body(Bytes),
}

impl std::ops::Deref for Line {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Line::Shared(line) => line,
            Line::Body(body) => body,
        }
    }
}

/// The HTTP facts of a message as a relay hands them over: a client POST's request headers as
/// hyper holds them, turned into [`HttpFacts::request_headers`] on the checker thread (the
/// relay thread makes no strings of them).
pub struct Http {
    pub facts: HttpFacts,
    /// A client POST's headers; the facts' own `request_headers` are then not read.
    pub request_headers: Option<Arc<HeaderMap>>,
}

impl From<HttpFacts> for Http {
    fn from(facts: HttpFacts) -> Http {
        Http { facts, request_headers: None }
    }
}

impl Http {
    /// The facts, the request headers as (name, value) pairs in the order sent.
    fn into_facts(self) -> HttpFacts {
        let mut facts = self.facts;
        if let Some(headers) = self.request_headers {
            facts.request_headers = Some(header_pairs(&headers));
        }
        facts
    }
}

/// Headers as (name, value) pairs in the order sent, values not UTF-8 with U+FFFD.
pub fn header_pairs(headers: &HeaderMap) -> Vec<(String, String)> {
    headers.iter().map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect()
}

/// Closes the budget when the checker ends, however it ends.
struct CloseOnDrop(Arc<Queue<Event>>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// A relay's way to the checker (the checker stops once every one is dropped).
pub struct ToChecker {
    queue: Arc<Queue<Event>>,
    /// `--metrics`: each message carries the time it was handed over.
    timed: bool,
}

impl Clone for ToChecker {
    fn clone(&self) -> Self {
        ToChecker::new(Arc::clone(&self.queue), self.timed)
    }
}

impl Drop for ToChecker {
    fn drop(&mut self) {
        self.queue.detach();
    }
}

impl ToChecker {
    fn new(queue: Arc<Queue<Event>>, timed: bool) -> ToChecker {
        queue.attach();
        ToChecker { queue, timed }
    }

    pub fn message(&self, from: Sender, line: Arc<Vec<u8>>, refused: Option<(&'static str, String)>) {
        let at = self.timed.then(|| (Instant::now(), SystemTime::now()));
        let bytes = line.len();
        self.queue.push(Some(bytes), Wake::IfAsleep, |cost| Event::Message {
            from,
            line: Line::Shared(line),
            refused,
            cost,
            session: None,
            http: None,
            at,
        });
    }

    /// A relayed message handed over without waking the checker: the relay forwards it, then
    /// calls [`ToChecker::wake`], so the wake-up is not between reading and forwarding.
    /// Waits for room like [`ToChecker::message`] (and then wakes the checker first).
    pub fn relayed(&self, from: Sender, line: Arc<Vec<u8>>) {
        let at = self.timed.then(|| (Instant::now(), SystemTime::now()));
        let bytes = line.len();
        self.queue.push_quiet(bytes, |cost| Event::Message {
            from,
            line: Line::Shared(line),
            refused: None,
            cost,
            session: None,
            http: None,
            at,
        });
    }

    /// Wakes the checker for the messages handed over with [`ToChecker::relayed`].
    pub fn wake(&self) {
        self.queue.wake();
    }

    /// A message of the HTTP form (the body as hyper holds it): its session and HTTP facts.
    /// Waits for room like
    /// [`ToChecker::message`]. Wakes the checker only when it sleeps: lingering, it takes the
    /// message within the queue's linger (1 ms), so under steady traffic the HTTP relay does
    /// not pay a wake-up per message.
    pub fn message_in(
        &self,
        from: Sender,
        line: Bytes,
        refused: Option<(&'static str, String)>,
        session: Option<Arc<str>>,
        http: Option<Http>,
    ) {
        let at = self.timed.then(|| (Instant::now(), SystemTime::now()));
        let bytes = line.len();
        let http = http.map(Box::new);
        self.queue.push(Some(bytes), Wake::IfAsleep, |cost| Event::Message {
            from,
            line: Line::Body(line),
            refused,
            cost,
            session,
            http,
            at,
        });
    }

    /// Transport trouble, `what` by kind (`upstream-stalled`, …): reported after the messages
    /// handed over before it, counted as nothing (`--fail-on` ignores it).
    pub fn note(&self, what: &'static str, text: String) {
        self.queue.push(None, Wake::Now, |_| Event::Note { what, text });
    }

    pub fn too_large(&self, from: Sender) {
        self.queue.push(Some(0), Wake::Now, |cost| Event::TooLarge { from, cost });
    }
}

/// The line without its `\n` (and a `\r` before it).
pub fn body(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// A JSON-RPC request (an object with `method` and `id`): what `--enforce` may answer.
pub fn is_request(body: &[u8]) -> bool {
    Tape::parse_bytes(body)
        .map(|t| {
            let root = t.root();
            root.kind() == Kind::Object && root.get("method").is_some() && root.get("id").is_some()
        })
        .unwrap_or(false)
}

/// Where the checker writes, and what bounds it.
struct Output {
    source_name: String,
    report: Option<BufWriter<File>>,
    record: Option<BufWriter<File>>,
    limits: Limits,
    budget: Arc<Queue<Event>>,
    /// The buffer each report line is written into, reused.
    scratch: Vec<u8>,
}

/// What makes two findings "the same" for `--max-repeats`: who sent it, and what it is
/// (rule, keyword, schema location, level) — not where in the message nor its wording.
#[derive(Clone, PartialEq, Eq, Hash)]
enum FindingKind {
    Finding {
        from: Sender,
        rule: Option<&'static str>,
        keyword: &'static str,
        schema_path: String,
        level: Severity,
    },
    /// A request `--enforce` refused, by rule.
    Refused {
        rule: &'static str,
    },
    /// Findings of kinds beyond the table's size.
    Other {
        from: Sender,
        level: Severity,
    },
}

/// Eviction notes printed on stderr; later evictions are only counted.
const EVICTION_NOTES: usize = 10;

/// The checker thread's state: the conversations, what it counted, where it writes.
struct Checker {
    out: Output,
    sessions: Sessions,
    evictions: usize,
    tally: Tally,
    repeats: Repeats<FindingKind>,
    /// Messages seen so far (the `:N` of a finding's source).
    n: usize,
    /// `--metrics`: counts every message, finding, refusal and limit hit.
    observer: Option<Observer>,
    /// `--otlp-endpoint`: the spans of the exchanges.
    spans: Option<Spans>,
}

/// The checker thread: every message in order through one conversation; record and report.
fn check_all(options: ConversationOptions, out: Output, observer: Option<Observer>, spans: Option<Spans>) -> Tally {
    let _close = CloseOnDrop(Arc::clone(&out.budget));
    let mut checker = Checker {
        sessions: Sessions::with_max(options, out.limits.max_sessions),
        evictions: 0,
        tally: Tally::default(),
        repeats: Repeats::new(out.limits.max_repeats),
        n: 0,
        out,
        observer,
        spans,
    };
    while let Some(event) = checker.next() {
        let (from, findings, cost) = match event {
            Event::Stop => break,
            Event::Message { from, line, refused, cost, session, http, at } => {
                let http = http.map(|h| h.into_facts());
                let findings = checker.check(from, &line, session.as_deref(), http.as_ref());
                if let (Some(at), false) = (at, is_blank(&line)) {
                    checker.telemetry(from, body(&line), (session.as_deref(), http.as_ref()), at, &findings);
                }
                drop(line);
                if let Some((rule, message)) = refused {
                    checker.refused(from, rule, &message);
                }
                (from, findings, cost)
            }
            // Not checked, not recorded: its place is after message `n`.
            Event::Note { what, text } => {
                if let Some(o) = &checker.observer {
                    o.metrics().transport_note(what);
                }
                checker.note(what, &text);
                continue;
            }
            Event::TooLarge { from, cost } => {
                if let Some(o) = &checker.observer {
                    o.metrics().limit_hit(Limit::MaxMessageBytes);
                }
                let revision = checker.sessions.revision(None);
                (from, vec![too_large(from, checker.n, &checker.out.limits, revision)], cost)
            }
        };
        checker.out.budget.give_back(cost);
        checker.report_findings(from, &findings);
    }
    checker.finish()
}

impl Checker {
    /// The next event; before waiting for one, what was written so far goes to disk.
    fn next(&mut self) -> Option<Event> {
        if let Some(e) = self.out.budget.try_pop() {
            return Some(e);
        }
        self.flush();
        self.out.budget.pop()
    }

    fn flush(&mut self) {
        for w in [&mut self.out.report, &mut self.out.record].into_iter().flatten() {
            let _ = w.flush();
        }
    }

    /// One message through its conversation, and into the record.
    fn check(&mut self, from: Sender, line: &[u8], session: Option<&str>, http: Option<&HttpFacts>) -> Vec<Finding> {
        let text = body(line);
        self.n += 1;
        if session.is_none() && http.is_none() {
            let findings = self.sessions.get(None, self.n).0.observe(from, text);
            if let Some(w) = self.out.record.as_mut() {
                let _ = writeln!(w, "{}", record_line(from, None, text));
            }
            return findings;
        }
        let http = http.filter(|h| !h.is_empty());
        if std::str::from_utf8(text).is_err() {
            // A record line carries such text with U+FFFD in place of what is not UTF-8, and
            // the replay judges that text: so does the live check.
            return self.check_as_recorded(from, text, session, http);
        }
        // Checked as the replay checks its record line (`check_line`), without making and
        // parsing that line: the same session, the same exchange, the message's own text
        // (a line embeds UTF-8 text unchanged or carries it `raw`, and either way the replay
        // judges that text), the transport's rules when the line carries HTTP facts.
        // `observe_http` with no facts is `observe_in(from, None, …)`: no exchange, and the
        // transport's rules find nothing without headers or a status.
        let none = HttpFacts::default();
        let (conversation, evicted) = self.sessions.get(session, self.n);
        let findings = conversation.observe_http(from, text, http.unwrap_or(&none));
        if let Some(gone) = evicted {
            self.note_eviction(&gone);
        }
        if let Some(w) = self.out.record.as_mut() {
            let _ = writeln!(w, "{}", record_line_with(from, session, http, text));
        }
        findings
    }

    /// One message checked through its record line, as the replay checks it.
    fn check_as_recorded(
        &mut self,
        from: Sender,
        text: &[u8],
        session: Option<&str>,
        http: Option<&HttpFacts>,
    ) -> Vec<Finding> {
        let recorded = record_line_with(from, session, http, text);
        let findings = match check_line(&mut self.sessions, recorded.as_bytes(), self.n) {
            Ok(Checked { findings, evicted, .. }) => {
                if let Some(gone) = evicted {
                    self.note_eviction(&gone);
                }
                findings
            }
            // The line is ours and well formed: not reached.
            Err(_) => Vec::new(),
        };
        if let Some(w) = self.out.record.as_mut() {
            let _ = writeln!(w, "{recorded}");
        }
        findings
    }

    fn note_eviction(&mut self, gone: &Evicted) {
        self.evictions += 1;
        if let Some(o) = &self.observer {
            o.metrics().limit_hit(Limit::MaxSessions);
        }
        if self.evictions <= EVICTION_NOTES {
            eprintln!(
                "mcpgen proxy: note: more than {} sessions are open: {} (last message {}) is forgotten, the least recently used{}",
                self.out.limits.max_sessions,
                gone.session,
                gone.last_line,
                if self.evictions == EVICTION_NOTES { " (further ones are only counted)" } else { "" }
            );
        }
    }

    /// Transport trouble: `{"source", "transport", "message"}` in the report, else a line on
    /// stderr.
    fn note(&mut self, what: &'static str, text: &str) {
        let source = format!("{}:{}", self.out.source_name, self.n);
        report::note(&mut self.out, &source, what, text);
    }

    /// A request `--enforce` answered instead of forwarding: a line on stderr.
    fn refused(&mut self, from: Sender, rule: &'static str, message: &str) {
        if let Some(o) = &self.observer {
            o.metrics().refused(rule);
        }
        let source = format!("{}:{}", self.out.source_name, self.n);
        // (Refusals come in one kind per rule: the overflow kind is never needed.)
        let overflow = || FindingKind::Other { from, level: Severity::Error };
        match self.repeats.see(FindingKind::Refused { rule }, overflow, &source) {
            Verdict::Show => {
                eprintln!("mcpgen proxy: {source}: refused the client's request (--enforce, {rule}): {message}")
            }
            Verdict::Hide(Some(summary)) => report::summarise(&mut self.out, &summary),
            Verdict::Hide(None) => {}
        }
    }

    /// One message's findings: counted, and shown unless `--max-repeats` hides them.
    fn report_findings(&mut self, from: Sender, findings: &[Finding]) {
        if findings.is_empty() {
            return;
        }
        if let Some(o) = &self.observer {
            for f in findings {
                o.metrics().finding(f.rule, f.level);
            }
        }
        if findings.iter().any(Finding::is_error) {
            self.tally.errors += 1;
        } else {
            self.tally.warnings += 1;
        }
        let source = format!("{}:{}", self.out.source_name, self.n);
        let mut shown = Vec::with_capacity(findings.len());
        for f in findings {
            let kind = FindingKind::Finding {
                from,
                rule: f.rule,
                keyword: f.keyword,
                schema_path: f.schema_path.clone(),
                level: f.level,
            };
            match self.repeats.see(kind, || FindingKind::Other { from, level: f.level }, &source) {
                Verdict::Show => shown.push(f),
                Verdict::Hide(Some(summary)) => report::summarise(&mut self.out, &summary),
                Verdict::Hide(None) => {}
            }
        }
        if !shown.is_empty() {
            report::report(&mut self.out, &source, from, findings, &shown);
        }
    }

    /// The counts of hidden repeats, the files on disk, and the tally.
    fn finish(mut self) -> Tally {
        for summary in self.repeats.finish() {
            report::summarise(&mut self.out, &summary);
        }
        self.flush();
        if let Some(spans) = self.spans.take() {
            spans.finish();
        }
        self.tally
    }
}

/// The finding for a line longer than `--max-message-bytes` (POLICY-SIZE).
fn too_large(from: Sender, after: usize, limits: &Limits, revision: Option<mcpgen::Revision>) -> Finding {
    // Judged, like the checker's own findings, under the newest revision until one is known.
    let revision = revision.or_else(mcpgen::Revision::latest);
    let era = revision.map(|r| if mcpgen::protocol::is_modern(r) { Era::Modern } else { Era::Legacy });
    Finding {
        level: Severity::Warning,
        rule: Some(id::POLICY_SIZE),
        pointer: String::new(),
        schema_path: String::new(),
        keyword: "",
        message: format!(
            "a {} message of more than {} bytes (--max-message-bytes), after message {after}: relayed unchanged, not checked and not recorded",
            from.as_str(),
            limits.max_message_bytes
        ),
        era,
        revision,
    }
}
