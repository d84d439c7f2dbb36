//! The proxies' checker, shared by the stdio form and the Streamable HTTP form: the relays hand
//! every message over a bounded channel ([`ToChecker`], its bytes capped by [`Budget`]) to one
//! thread that checks them in order — one conversation per session ([`Sessions`], capped at
//! `--max-sessions`) — and writes the record and the report ([`check_all`]).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use mcpgen::conversation::{ConversationOptions, Era, Finding, HttpFacts, Level, Sender};
use mcpgen::json::{Kind, Map, Number, Tape, Value};
use mcpgen::rules::id;
use mcpgen::JsonView;

use super::repeats::{Repeats, Summary, Verdict};
use crate::conversation::{check_line, finding_json, record_line, record_line_with, Checked, Sessions};

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

/// Messages waiting for the checker at most (besides their bytes, [`Budget`]).
pub const CHANNEL_CAPACITY: usize = 4096;
/// What one message costs in the [`Budget`] besides its bytes (its event and bookkeeping).
const EVENT_COST: usize = 64;

pub enum Event {
    /// One message as relayed: its line (`\n` included, when it had one); `refused` when
    /// `--enforce` answered it instead of forwarding (rule, message). `cost`: its share of the
    /// budget, given back once checked. The HTTP form names its `session` (`None`: outside a
    /// legacy session) and the message's `http` facts.
    Message {
        from: Sender,
        line: Arc<Vec<u8>>,
        refused: Option<(&'static str, String)>,
        cost: usize,
        session: Option<Arc<str>>,
        http: Option<Box<HttpFacts>>,
    },
    /// A line longer than `--max-message-bytes` is being relayed unchecked.
    TooLarge { from: Sender, cost: usize },
    /// Every relayed message has been sent: finish.
    Stop,
}

/// The bytes of the messages handed to the checker and not yet checked, with a cap: a relay
/// waits for room before it hands over (and so before it reads further).
pub struct Budget {
    state: Mutex<Room>,
    freed: Condvar,
    cap: usize,
}

#[derive(Default)]
struct Room {
    used: usize,
    /// Relays waiting in [`Budget::take`]: only then does freeing room wake anyone (a condvar
    /// notify is a system call even when nobody waits, and room is freed after every message).
    waiting: usize,
    /// The checker is gone: nothing waits any more.
    closed: bool,
}

impl Budget {
    pub fn new(limits: &Limits) -> Budget {
        // At least one message of the largest checked size always fits.
        let cap = limits.max_queued_bytes.max(limits.max_message_bytes.saturating_add(2 + EVENT_COST));
        Budget { state: Mutex::default(), freed: Condvar::new(), cap }
    }

    fn lock(&self) -> MutexGuard<'_, Room> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `bytes` fit, takes them, and returns what was taken.
    fn take(&self, bytes: usize) -> usize {
        let n = bytes.saturating_add(EVENT_COST).min(self.cap);
        let mut room = self.lock();
        while room.used + n > self.cap && !room.closed {
            room.waiting += 1;
            room = self.freed.wait(room).unwrap_or_else(PoisonError::into_inner);
            room.waiting -= 1;
        }
        room.used += n;
        n
    }

    fn give_back(&self, n: usize) {
        let mut room = self.lock();
        room.used = room.used.saturating_sub(n);
        let waiting = room.waiting > 0;
        drop(room);
        if waiting {
            self.freed.notify_all();
        }
    }

    /// No checker any more (it finished, or panicked): the relays stop waiting for room.
    fn close(&self) {
        self.lock().closed = true;
        self.freed.notify_all();
    }
}

/// Closes the budget when the checker ends, however it ends.
pub struct CloseOnDrop(Arc<Budget>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// A relay's way to the checker.
#[derive(Clone)]
pub struct ToChecker {
    pub tx: SyncSender<Event>,
    pub budget: Arc<Budget>,
}

impl ToChecker {
    pub fn message(&self, from: Sender, line: Arc<Vec<u8>>, refused: Option<(&'static str, String)>) {
        self.message_in(from, line, refused, None, None);
    }

    /// A message of the HTTP form: its session and HTTP facts. Waits for room like
    /// [`ToChecker::message`].
    pub fn message_in(
        &self,
        from: Sender,
        line: Arc<Vec<u8>>,
        refused: Option<(&'static str, String)>,
        session: Option<Arc<str>>,
        http: Option<Box<HttpFacts>>,
    ) {
        let cost = self.budget.take(line.len());
        if self.tx.send(Event::Message { from, line, refused, cost, session, http }).is_err() {
            self.budget.give_back(cost);
        }
    }

    pub fn too_large(&self, from: Sender) {
        let cost = self.budget.take(0);
        if self.tx.send(Event::TooLarge { from, cost }).is_err() {
            self.budget.give_back(cost);
        }
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
pub struct Output {
    pub source_name: String,
    pub report: Option<BufWriter<File>>,
    pub record: Option<BufWriter<File>>,
    pub limits: Limits,
    pub budget: Arc<Budget>,
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
        level: Level,
    },
    /// A request `--enforce` refused, by rule.
    Refused {
        rule: &'static str,
    },
    /// Findings of kinds beyond the table's size.
    Other {
        from: Sender,
        level: Level,
    },
}

/// The checker thread: every message in order through one conversation; record and report.
/// Eviction notes printed on stderr; later evictions are only counted.
const EVICTION_NOTES: usize = 10;

pub fn check_all(rx: Receiver<Event>, options: ConversationOptions, mut out: Output) -> Tally {
    let _close = CloseOnDrop(Arc::clone(&out.budget));
    let mut sessions = Sessions::with_max(options, out.limits.max_sessions);
    let mut evictions = 0usize;
    let mut tally = Tally::default();
    let mut repeats: Repeats<FindingKind> = Repeats::new(out.limits.max_repeats);
    let mut n = 0usize;
    loop {
        let event = match rx.try_recv() {
            Ok(e) => e,
            Err(TryRecvError::Empty) => {
                // Idle: put what was written so far on disk before waiting.
                for w in [&mut out.report, &mut out.record].into_iter().flatten() {
                    let _ = w.flush();
                }
                match rx.recv() {
                    Ok(e) => e,
                    Err(_) => break,
                }
            }
            Err(TryRecvError::Disconnected) => break,
        };
        let (from, findings, cost) = match event {
            Event::Stop => break,
            Event::Message { from, line, refused, cost, session, http } => {
                let text = body(&line);
                n += 1;
                let findings = if session.is_none() && http.is_none() {
                    let findings = sessions.get(None, n).0.observe(from, text);
                    if let Some(w) = out.record.as_mut() {
                        let _ = writeln!(w, "{}", record_line(from, None, text));
                    }
                    findings
                } else {
                    // Checked as the replay checks it: the record line itself.
                    let recorded = record_line_with(from, session.as_deref(), http.as_deref(), text);
                    let findings = match check_line(&mut sessions, recorded.as_bytes(), n) {
                        Ok(Checked { findings, evicted, .. }) => {
                            if let Some(gone) = evicted {
                                evictions += 1;
                                if evictions <= EVICTION_NOTES {
                                    eprintln!(
                                        "mcpgen proxy: note: more than {} sessions are open: {} (last message {}) is forgotten, the least recently used{}",
                                        out.limits.max_sessions,
                                        gone.session,
                                        gone.last_line,
                                        if evictions == EVICTION_NOTES { " (further ones are only counted)" } else { "" }
                                    );
                                }
                            }
                            findings
                        }
                        // The line is ours and well formed: not reached.
                        Err(_) => Vec::new(),
                    };
                    if let Some(w) = out.record.as_mut() {
                        let _ = writeln!(w, "{recorded}");
                    }
                    findings
                };
                drop(line);
                if let Some((rule, message)) = refused {
                    let source = format!("{}:{n}", out.source_name);
                    // (Refusals come in one kind per rule: the overflow kind is never needed.)
                    let overflow = || FindingKind::Other { from, level: Level::Error };
                    match repeats.see(FindingKind::Refused { rule }, overflow, &source) {
                        Verdict::Show => eprintln!(
                            "mcpgen proxy: {source}: refused the client's request (--enforce, {rule}): {message}"
                        ),
                        Verdict::Hide(Some(summary)) => summarise(&mut out, &summary),
                        Verdict::Hide(None) => {}
                    }
                }
                (from, findings, cost)
            }
            // Not checked, not recorded: its place is after message `n`.
            Event::TooLarge { from, cost } => {
                (from, vec![too_large(from, n, &out.limits, sessions.revision(None))], cost)
            }
        };
        out.budget.give_back(cost);
        if findings.is_empty() {
            continue;
        }
        if findings.iter().any(Finding::is_error) {
            tally.errors += 1;
        } else {
            tally.warnings += 1;
        }
        let source = format!("{}:{n}", out.source_name);
        let mut shown = Vec::with_capacity(findings.len());
        for f in &findings {
            let kind = FindingKind::Finding {
                from,
                rule: f.rule,
                keyword: f.keyword,
                schema_path: f.schema_path.clone(),
                level: f.level,
            };
            match repeats.see(kind, || FindingKind::Other { from, level: f.level }, &source) {
                Verdict::Show => shown.push(f),
                Verdict::Hide(Some(summary)) => summarise(&mut out, &summary),
                Verdict::Hide(None) => {}
            }
        }
        if !shown.is_empty() {
            report(&mut out, source, from, &findings, &shown);
        }
    }
    for summary in repeats.finish() {
        summarise(&mut out, &summary);
    }
    for w in [&mut out.report, &mut out.record].into_iter().flatten() {
        let _ = w.flush();
    }
    tally
}

/// The finding for a line longer than `--max-message-bytes` (POLICY-SIZE).
fn too_large(from: Sender, after: usize, limits: &Limits, revision: Option<mcpgen::Revision>) -> Finding {
    // Judged, like the checker's own findings, under the newest revision until one is known.
    let revision = revision.or_else(mcpgen::Revision::latest);
    let era = revision.map(|r| if mcpgen::protocol::is_modern(r) { Era::Modern } else { Era::Legacy });
    Finding {
        level: Level::Warning,
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

/// One message's findings: a JSON Lines object in the report, else lines on stderr. `valid`
/// speaks for every finding; `shown` are those `--max-repeats` lets through.
fn report(out: &mut Output, source: String, from: Sender, findings: &[Finding], shown: &[&Finding]) {
    match out.report.as_mut() {
        Some(w) => {
            let mut m = Map::new();
            m.push("source", Value::String(source));
            m.push("from", Value::String(from.as_str().to_owned()));
            m.push("valid", Value::Bool(!findings.iter().any(Finding::is_error)));
            m.push("errors", Value::Array(shown.iter().map(|f| finding_json(f)).collect()));
            let _ = writeln!(w, "{}", Value::Object(m).to_json_string());
        }
        None => {
            let mut err = std::io::stderr().lock();
            for f in shown {
                let _ = writeln!(err, "mcpgen proxy: {source} ({} message): {}", from.as_str(), one_line(f));
            }
        }
    }
}

/// A count of findings of one kind beyond `--max-repeats`: a `{"repeated": …}` object in the
/// report, else a line on stderr (refusals, which are never in the report: always stderr).
fn summarise(out: &mut Output, s: &Summary<FindingKind>) {
    let hidden = s.count - s.shown;
    let limit = out.limits.max_repeats;
    let (from, rule, keyword, schema_path, level) = match &s.kind {
        FindingKind::Finding { from, rule, keyword, schema_path, level } => {
            (Some(*from), *rule, *keyword, schema_path.as_str(), Some(*level))
        }
        FindingKind::Refused { rule } => (Some(Sender::Client), Some(*rule), "--enforce", "", Some(Level::Error)),
        FindingKind::Other { from, level } => (Some(*from), None, "", "", Some(*level)),
    };
    let report = match s.kind {
        FindingKind::Refused { .. } => None,
        _ => out.report.as_mut(),
    };
    match report {
        Some(w) => {
            let name = |s: &str| Value::String(s.to_owned());
            let mut kind = Map::new();
            kind.push("from", from.map_or(Value::Null, |f| name(f.as_str())));
            kind.push("rule", rule.map_or(Value::Null, name));
            kind.push("keyword", name(keyword));
            kind.push("schemaPath", name(schema_path));
            kind.push("level", level.map_or(Value::Null, |l| name(l.as_str())));
            let mut m = Map::new();
            m.push("repeated", Value::Object(kind));
            m.push("count", int(s.count));
            m.push("shown", int(s.shown));
            m.push("last", name(&s.last));
            let _ = writeln!(w, "{}", Value::Object(m).to_json_string());
        }
        None => {
            let what = match &s.kind {
                FindingKind::Refused { rule } => format!("--enforce refusals ({rule})"),
                FindingKind::Other { .. } => "findings of other kinds".to_owned(),
                FindingKind::Finding { .. } => format!(
                    "{} findings{}{}",
                    level.map_or("", Level::as_str),
                    rule.map_or(String::new(), |r| format!(" ({r})")),
                    if rule.is_some() || keyword.is_empty() { String::new() } else { format!(" [{keyword}]") }
                ),
            };
            let who = from.map_or("", Sender::as_str);
            eprintln!(
                "mcpgen proxy: {hidden} more {what} in {who} messages not shown ({} in all, the last at {}; --max-repeats {limit})",
                s.count, s.last
            );
        }
    }
}

/// A count as a JSON number.
fn int(n: u64) -> Value {
    Number::from_lexeme(&n.to_string()).map_or(Value::Null, Value::Number)
}

fn one_line(f: &Finding) -> String {
    f.to_string().replace('\n', " ")
}
