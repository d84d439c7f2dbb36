//! The conversation file (JSON Lines, one message per line, in order) and
//! `mcpgen validate --conversation FILE|-`.
//!
//! ```text
//! {"from": "client"|"server", "message": <JSON-RPC message>}
//! {"from": "client"|"server", "raw": "<the exact text sent>"}
//! ```
//! plus an optional `"session": "<id>"` on any line (independent conversations in one file),
//! and an optional `"http"` member with what Streamable HTTP carried with the message
//! (`mcpgen proxy --listen` records it): `{"headers": [[name, value], …]}` on a client POST,
//! `{"status": N, "contentType": "…"}` on a server message that opens a response, and
//! `{"exchange": N}` on every message of one exchange outside a session (its requests are
//! paired with the answers of the same exchange only, [`Conversation::observe_in`]); the
//! replay judges those with the transport's rules ([`Conversation::check_http`]).
//! `mcpgen proxy --record` writes this format ([`record_line`]); a `message` is the sent text
//! embedded verbatim, so replaying it checks exactly what was sent.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use mcpgen::conversation::{Conversation, ConversationOptions, Finding, HttpFacts, Sender};
use mcpgen::json::{Kind, Map, ParseOptions, Tape, TapeBuffer, Value};
use mcpgen::JsonView;

use crate::UsageError;

/// What one conversation line carries besides its sender and session.
enum Payload<'t, 'a> {
    /// A JSON-RPC message, read in place from the line's tape.
    Message(mcpgen::json::TapeView<'t, 'a>),
    /// The exact text that was sent (not JSON, or text the `message` form cannot keep).
    Raw(String),
}

/// A line that is not `{"from": …, "message"|"raw": …, "session"?: …}`.
#[derive(Debug)]
pub struct LineError(pub String);

/// Reads one conversation line (already parsed) into its sender, session and payload.
/// One line's parts: sender, session, the HTTP facts (when the line has `http`), payload.
type LineParts<'t, 'a> = (Sender, Option<String>, Option<HttpFacts>, Payload<'t, 'a>);

fn read_line<'t, 'a>(tape: &'t Tape<'a>) -> Result<LineParts<'t, 'a>, LineError> {
    let root = tape.root();
    if root.kind() != Kind::Object {
        return Err(LineError(format!("a conversation line is a JSON object, found {}", root.describe())));
    }
    let from = match root.get("from") {
        None => return Err(LineError("missing \"from\" (\"client\" or \"server\")".into())),
        Some(v) => match v.as_str() {
            Some(s) => s.parse::<Sender>().map_err(|e| LineError(format!("\"from\": {e}")))?,
            None => {
                return Err(LineError(format!("\"from\" must be \"client\" or \"server\", found {}", v.describe())))
            }
        },
    };
    let session = match root.get("session") {
        None => None,
        Some(v) => match v.as_str() {
            Some(s) => Some(s.into_owned()),
            None => return Err(LineError(format!("\"session\" must be a string, found {}", v.describe()))),
        },
    };
    let http = root.get("http").map(|h| read_http(&h)).transpose()?;
    let payload = match (root.get("message"), root.get("raw")) {
        (Some(m), None) => Payload::Message(m),
        (None, Some(r)) => match r.as_str() {
            Some(s) => Payload::Raw(s.into_owned()),
            None => return Err(LineError(format!("\"raw\" must be a string, found {}", r.describe()))),
        },
        (Some(_), Some(_)) => return Err(LineError("give either \"message\" or \"raw\", not both".into())),
        (None, None) => return Err(LineError("missing \"message\" (a JSON-RPC message) or \"raw\" (text)".into())),
    };
    Ok((from, session, http, payload))
}

/// The `http` member: `{"headers": [[name, value], …], "status": N, "contentType": "…"}`, every
/// member optional.
fn read_http<'v>(h: &impl JsonView<'v>) -> Result<HttpFacts, LineError> {
    let bad = |what: &str| LineError(format!("\"http\": {what}"));
    if h.kind() != Kind::Object {
        return Err(bad("must be an object"));
    }
    let mut facts = HttpFacts::default();
    if let Some(headers) = h.get("headers") {
        if headers.kind() != Kind::Array {
            return Err(bad("\"headers\" must be an array of [name, value] pairs"));
        }
        let mut pairs = Vec::new();
        for pair in headers.items() {
            let mut it = pair.items();
            match (it.next().and_then(|n| n.as_str()), it.next().and_then(|v| v.as_str()), it.next()) {
                (Some(n), Some(v), None) if pair.kind() == Kind::Array => pairs.push((n.into_owned(), v.into_owned())),
                _ => return Err(bad("\"headers\" must be an array of [name, value] pairs")),
            }
        }
        facts.request_headers = Some(pairs);
    }
    if let Some(status) = h.get("status") {
        let n = status.to_number().and_then(|n| n.as_u64()).and_then(|n| u16::try_from(n).ok());
        facts.status = Some(n.ok_or_else(|| bad("\"status\" must be an HTTP status code"))?);
    }
    if let Some(t) = h.get("contentType") {
        facts.content_type = Some(t.as_str().ok_or_else(|| bad("\"contentType\" must be a string"))?.into_owned());
    }
    if let Some(e) = h.get("exchange") {
        let n = e.to_number().and_then(|n| n.as_u64());
        facts.exchange = Some(n.ok_or_else(|| bad("\"exchange\" must be a non-negative integer"))?);
    }
    Ok(facts)
}

/// The conversation-file line recording `text` (one message as sent, without its `\n`) from
/// `from`: `"message"` with the text embedded verbatim when it is JSON that the line can carry
/// unchanged, else `"raw"` (not JSON, surrounding whitespace, nesting at the parser's limit).
/// Bytes that are not UTF-8 cannot be carried by either form: they become U+FFFD in `raw`.
pub fn record_line(from: Sender, session: Option<&str>, text: &[u8]) -> String {
    record_line_with(from, session, None, text)
}

/// [`record_line`] with the message's HTTP facts (the `http` member), when it has any.
pub fn record_line_with(from: Sender, session: Option<&str>, http: Option<&HttpFacts>, text: &[u8]) -> String {
    let mut line = String::with_capacity(text.len() + 48);
    line.push_str("{\"from\":\"");
    line.push_str(from.as_str());
    line.push('"');
    if let Some(s) = session {
        line.push_str(",\"session\":");
        line.push_str(&Value::String(s.to_owned()).to_json_string());
    }
    if let Some(h) = http.filter(|h| !h.is_empty()) {
        line.push_str(",\"http\":");
        line.push_str(&http_json(h).to_json_string());
    }
    let head = line.len();
    if let Ok(s) = std::str::from_utf8(text) {
        let trimmed = s.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
        if trimmed.len() == s.len() && Tape::parse(s).is_ok() {
            line.push_str(",\"message\":");
            line.push_str(s);
            line.push('}');
            // The message is one level deeper in the line: keep it only if the line still parses.
            if Tape::parse_with(&line, ParseOptions::default(), TapeBuffer::default()).is_ok() {
                return line;
            }
            line.truncate(head);
        }
    }
    line.push_str(",\"raw\":");
    line.push_str(&Value::String(String::from_utf8_lossy(text).into_owned()).to_json_string());
    line.push('}');
    line
}

/// The `http` member of a line.
fn http_json(h: &HttpFacts) -> Value {
    let text = |s: &str| Value::String(s.to_owned());
    let mut m = Map::new();
    if let Some(headers) = &h.request_headers {
        let pairs = headers.iter().map(|(k, v)| Value::Array(vec![text(k), text(v)])).collect();
        m.push("headers", Value::Array(pairs));
    }
    if let Some(status) = h.status {
        m.push("status", Value::Number(i64::from(status).into()));
    }
    if let Some(t) = &h.content_type {
        m.push("contentType", text(t));
    }
    if let Some(e) = h.exchange {
        m.push("exchange", Value::Number(e.into()));
    }
    Value::Object(m)
}

/// A finding as `validate --format json` prints it.
pub fn finding_json(f: &Finding) -> Value {
    let mut m = Map::new();
    m.push("pointer", Value::String(f.pointer.clone()));
    m.push("schemaPath", Value::String(f.schema_path.clone()));
    m.push("keyword", Value::String(f.keyword.to_owned()));
    m.push("rule", f.rule.map(|r| Value::String(r.to_owned())).unwrap_or(Value::Null));
    m.push("level", Value::String(f.level.as_str().to_owned()));
    m.push("message", Value::String(f.message.clone()));
    let name = |s: Option<&'static str>| s.map_or(Value::Null, |s| Value::String(s.to_owned()));
    m.push("era", name(f.era.map(|e| e.as_str())));
    m.push("revision", name(f.revision.map(|r| r.as_str())));
    Value::Object(m)
}

/// The `validate --format json` object of one message: `valid` is false only when an
/// error-level finding exists.
pub fn report_object(source: String, from: Option<Sender>, findings: &[Finding]) -> Map {
    let mut m = Map::new();
    m.push("source", Value::String(source));
    if let Some(from) = from {
        m.push("from", Value::String(from.as_str().to_owned()));
    }
    m.push("valid", Value::Bool(!findings.iter().any(Finding::is_error)));
    m.push("errors", Value::Array(findings.iter().map(finding_json).collect()));
    m
}

/// A session id as the table keys it: the default session (lines without `session`), an id
/// up to [`KEPT_ID`] bytes verbatim, or a longer one by a 128-bit keyed digest (so one session
/// costs a bounded number of bytes whatever its id).
#[derive(Clone, PartialEq, Eq, Hash)]
enum SessionKey {
    Default,
    Named(Box<str>),
    Long([u64; 2], Box<str>),
}

/// Session ids longer than this are keyed by a digest.
const KEPT_ID: usize = 256;

impl SessionKey {
    fn new(session: Option<&str>) -> SessionKey {
        use std::hash::BuildHasher;
        use std::sync::OnceLock;
        static KEYS: OnceLock<[std::collections::hash_map::RandomState; 2]> = OnceLock::new();
        match session {
            None => SessionKey::Default,
            Some(s) if s.len() <= KEPT_ID => SessionKey::Named(s.into()),
            Some(s) => {
                let [a, b] = KEYS.get_or_init(Default::default);
                let cut = (0..=40).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                SessionKey::Long([a.hash_one(s), b.hash_one(s)], format!("{}…", &s[..cut]).into())
            }
        }
    }

    /// How the eviction note names the session.
    fn describe(&self) -> String {
        match self {
            SessionKey::Default => "the session of the lines without \"session\"".to_owned(),
            SessionKey::Named(s) | SessionKey::Long(_, s) => {
                format!("session {}", Value::String(s.to_string()).to_json_string())
            }
        }
    }
}

/// One open session: its checker and when it was last used.
struct Open {
    conversation: Conversation,
    /// The tick of its last line (its key in [`Sessions::idle`]).
    used: u64,
    /// The 1-based file line of its last message.
    line: usize,
}

/// A session closed to make room (the least recently used one).
pub struct Evicted {
    /// `session "id"`, or the default session.
    pub session: String,
    /// The file line of its last message.
    pub last_line: usize,
}

/// One session's checker per session id (`None`: lines without `session`), at most `max` at
/// once: opening one more evicts the least recently used (its state is forgotten; a later line
/// of it starts it anew).
pub struct Sessions {
    options: ConversationOptions,
    open: HashMap<SessionKey, Open>,
    /// Open sessions by the tick of their last line, oldest first.
    idle: BTreeMap<u64, SessionKey>,
    tick: u64,
    max: usize,
    /// Sessions started (an evicted one that comes back counts again).
    started: usize,
    /// Sessions evicted.
    evicted: usize,
}

impl Sessions {
    /// At most `max` sessions open at once (at least one).
    pub fn with_max(options: ConversationOptions, max: usize) -> Self {
        Sessions {
            options,
            open: HashMap::new(),
            idle: BTreeMap::new(),
            tick: 0,
            max: max.max(1),
            started: 0,
            evicted: 0,
        }
    }

    /// The checker of `session`, now the most recently used; opening it may evict the least
    /// recently used session.
    pub(crate) fn get(&mut self, session: Option<&str>, line: usize) -> (&mut Conversation, Option<Evicted>) {
        let key = SessionKey::new(session);
        self.tick += 1;
        let mut evicted = None;
        if self.open.len() >= self.max && !self.open.contains_key(&key) {
            if let Some(gone) = self.idle.pop_first().and_then(|(_, oldest)| self.open.remove_entry(&oldest)) {
                self.evicted += 1;
                evicted = Some(Evicted { session: gone.0.describe(), last_line: gone.1.line });
            }
        }
        let open = match self.open.entry(key.clone()) {
            Entry::Occupied(e) => {
                let open = e.into_mut();
                self.idle.remove(&open.used);
                open
            }
            Entry::Vacant(e) => {
                self.started += 1;
                let conversation = Conversation::with_options(self.options.clone());
                e.insert(Open { conversation, used: 0, line })
            }
        };
        open.used = self.tick;
        open.line = line;
        self.idle.insert(self.tick, key);
        (&mut open.conversation, evicted)
    }

    /// The revision `session` negotiated or last used, when it is open and knows one.
    pub fn revision(&self, session: Option<&str>) -> Option<mcpgen::Revision> {
        self.open.get(&SessionKey::new(session)).and_then(|o| o.conversation.revision())
    }

    /// Sessions started so far (an evicted session that comes back counts again).
    pub fn started(&self) -> usize {
        self.started
    }
}

/// One checked conversation line: its sender, its findings, and the session evicted to make
/// room for its own, if any.
pub struct Checked {
    pub from: Sender,
    pub findings: Vec<Finding>,
    pub evicted: Option<Evicted>,
}

/// Checks one conversation line (its 1-based number in the file is `number`): the findings, or
/// the line's shape error.
pub fn check_line(sessions: &mut Sessions, line: &[u8], number: usize) -> Result<Checked, LineError> {
    let tape = Tape::parse_bytes(line).map_err(|e| LineError(format!("not a JSON object: {e}")))?;
    let (from, session, http, payload) = read_line(&tape)?;
    let (conversation, evicted) = sessions.get(session.as_deref(), number);
    let http = http.unwrap_or_default();
    let findings = match &payload {
        Payload::Message(view) => conversation.observe_http_view(from, view, &http),
        Payload::Raw(text) => conversation.observe_http(from, text.as_bytes(), &http),
    };
    Ok(Checked { from, findings, evicted })
}

/// `--max-sessions` by default.
pub const MAX_SESSIONS: usize = 1024;
/// `--max-line-bytes` by default (64 MiB).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Limits of `validate --conversation`.
pub struct Limits {
    /// `--max-sessions`.
    pub max_sessions: usize,
    /// `--max-line-bytes`.
    pub max_line_bytes: usize,
}

/// Eviction notes printed one by one; past this many, only the summary counts them.
const EVICTION_NOTES: usize = 10;

/// What [`next_line`] read.
pub(crate) enum Line {
    /// A whole line (without its `\n`) is in the buffer.
    Read,
    /// The line was longer than the limit: skipped up to its end, this many bytes.
    TooLong(u64),
    End,
}

/// Reads the next line into `buf` (cleared first), keeping at most `max` bytes of it: a longer
/// line is read past, not kept.
pub(crate) fn next_line(r: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> std::io::Result<Line> {
    buf.clear();
    let (mut seen, mut any) = (0u64, false);
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        seen += part.len() as u64;
        if seen <= max as u64 {
            buf.extend_from_slice(part);
        } else {
            buf.clear();
        }
        let used = part.len() + usize::from(done);
        r.consume(used);
        if done {
            break;
        }
    }
    Ok(match (any, seen > max as u64) {
        (false, _) => Line::End,
        (true, true) => Line::TooLong(seen),
        (true, false) => Line::Read,
    })
}

/// The conversation file (or standard input, `-`): its name in messages, and a reader.
pub(crate) fn open(path: &Path) -> Result<(String, Box<dyn BufRead>), UsageError> {
    if path.as_os_str() == "-" {
        return Ok(("<stdin>".to_owned(), Box::new(std::io::stdin().lock())));
    }
    let file = std::fs::File::open(path).map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
    Ok((path.display().to_string(), Box::new(std::io::BufReader::with_capacity(64 << 10, file))))
}

/// What a replay counted: messages, those with errors, with warnings only, and lines that
/// could not be checked.
#[derive(Default)]
struct Counts {
    total: usize,
    invalid: usize,
    warned: usize,
    bad_lines: usize,
}

/// `mcpgen validate --conversation FILE|-`: the file is read line by line, so memory is bounded
/// by the longest line and the open sessions, whatever the file's size.
pub fn run(
    path: &Path,
    options: ConversationOptions,
    limits: Limits,
    fail_on: crate::FailOn,
    json: bool,
    sarif_path: Option<&Path>,
) -> Result<ExitCode, UsageError> {
    let (name, mut input) = open(path)?;
    let mut replay = Replay {
        file: (path.as_os_str() != "-").then_some(path),
        sessions: Sessions::with_max(options, limits.max_sessions),
        max_sessions: limits.max_sessions,
        stdout: std::io::BufWriter::new(std::io::stdout().lock()),
        n: Counts::default(),
        json,
        sarif_path,
        sarif: crate::sarif::SarifLog::default(),
        name,
    };
    let mut buf = Vec::new();
    let mut number = 0usize;
    loop {
        number += 1;
        let read = next_line(&mut input, &mut buf, limits.max_line_bytes)
            .map_err(|e| UsageError(format!("cannot read {}: {e}", replay.name)))?;
        let line = match read {
            Line::End => break,
            Line::Read => buf.strip_suffix(b"\r").unwrap_or(&buf),
            Line::TooLong(len) => {
                replay.too_long(number, len, limits.max_line_bytes)?;
                continue;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let source = format!("{}:{number}", replay.name);
        match check_line(&mut replay.sessions, line, number) {
            Ok(checked) => replay.report(source, number, checked)?,
            Err(LineError(why)) => {
                replay.not_a_line(&source, &why)?;
                continue;
            }
        }
        // A long line's buffer is not kept for the short ones after it.
        if buf.capacity() > 1 << 20 {
            buf = Vec::new();
        }
    }
    replay.finish(fail_on)
}

/// A replay of a conversation file: its sessions, where it reports, and what it has counted.
struct Replay<'p> {
    /// The file's name in messages (`<stdin>` for `-`).
    name: String,
    /// The file, for SARIF locations (`None`: standard input).
    file: Option<&'p Path>,
    sessions: Sessions,
    /// `--max-sessions`.
    max_sessions: usize,
    stdout: std::io::BufWriter<std::io::StdoutLock<'static>>,
    n: Counts,
    json: bool,
    /// `--sarif FILE`, and the log written there at the end.
    sarif_path: Option<&'p Path>,
    sarif: crate::sarif::SarifLog,
}

impl Replay<'_> {
    /// A line longer than `--max-line-bytes`: said on stderr and counted, not checked.
    fn too_long(&mut self, number: usize, len: u64, max_line_bytes: usize) -> Result<(), UsageError> {
        self.stdout.flush().map_err(crate::output_error)?;
        eprintln!(
            "mcpgen: {}:{number}: not checked: the line has {len} bytes, more than --max-line-bytes ({max_line_bytes})",
            self.name
        );
        self.n.bad_lines += 1;
        Ok(())
    }

    /// A line that is not a conversation line: the shape of the file is the caller's fault, so
    /// say where and keep going (the exit code is 2).
    fn not_a_line(&mut self, source: &str, why: &str) -> Result<(), UsageError> {
        self.stdout.flush().map_err(crate::output_error)?;
        eprintln!("mcpgen: {source}: not a conversation line: {why}");
        self.n.bad_lines += 1;
        Ok(())
    }

    /// A checked line: the session it evicted (noted), its findings in the SARIF log and the
    /// counts, and its report on stdout (a JSON line, or text when it has findings).
    fn report(&mut self, source: String, number: usize, checked: Checked) -> Result<(), UsageError> {
        let io = crate::output_error;
        let Checked { from, findings, evicted } = checked;
        if let Some(gone) = evicted.filter(|_| self.sessions.evicted <= EVICTION_NOTES) {
            self.stdout.flush().map_err(io)?;
            note_eviction(&source, &gone, self.sessions.evicted, self.max_sessions);
        }
        self.n.total += 1;
        if self.sarif_path.is_some() {
            for f in &findings {
                self.sarif.push(sarif_entry(from, f), crate::sarif::Place::File { path: self.file, line: number });
            }
        }
        let is_invalid = findings.iter().any(Finding::is_error);
        self.n.invalid += usize::from(is_invalid);
        self.n.warned += usize::from(!is_invalid && !findings.is_empty());
        if self.json {
            writeln!(self.stdout, "{}", Value::Object(report_object(source, None, &findings)).to_json_string())
                .map_err(io)?;
        } else if !findings.is_empty() {
            let verdict = if is_invalid { "invalid" } else { "warning" };
            writeln!(self.stdout, "{source}: {verdict} ({} message)", from.as_str()).map_err(io)?;
            for f in &findings {
                writeln!(self.stdout, "  {}", f.to_string().replace('\n', "\n  ")).map_err(io)?;
            }
        }
        Ok(())
    }

    /// The end of the replay: the summary, the SARIF log, and the exit code (an error when a
    /// line could not be checked).
    fn finish(mut self, fail_on: crate::FailOn) -> Result<ExitCode, UsageError> {
        let n = &self.n;
        self.stdout.flush().map_err(crate::output_error)?;
        summarise(n, &self.sessions, self.max_sessions, self.json);
        if let Some(out) = self.sarif_path {
            let props = serde_json::json!({"command": "validate --conversation", "inputs": [self.name], "messages": n.total,
                "sessions": self.sessions.started(), "notChecked": n.bad_lines});
            self.sarif.write(out, n.bad_lines == 0, props)?;
        }
        if n.bad_lines > 0 {
            let (name, bad) = (&self.name, n.bad_lines);
            return Err(UsageError(format!("{name}: {bad} line(s) that are not conversation lines (see above)")));
        }
        Ok(if fail_on.fails(n.invalid, n.warned) { ExitCode::from(1) } else { ExitCode::SUCCESS })
    }
}

/// A conversation finding as a SARIF result, with its sender, era and revision.
pub(crate) fn sarif_entry(from: Sender, f: &Finding) -> crate::sarif::Entry<'_> {
    let revision = f.revision.map_or(mcpgen::rules::CATALOGUE_REVISION, |r| r.as_str());
    let mut extra = serde_json::Map::new();
    extra.insert("from".into(), from.as_str().into());
    extra.insert("keyword".into(), f.keyword.into());
    extra.insert("era".into(), f.era.map(|e| e.as_str()).into());
    extra.insert("revision".into(), f.revision.map(|r| r.as_str()).into());
    crate::sarif::Entry {
        rule: f.rule,
        level: f.level,
        message: &f.message,
        pointer: &f.pointer,
        clause: f.clause().map(|c| (c, revision)),
        extra,
    }
}

/// The note for the `evictions`th session evicted (the last one printed says so).
fn note_eviction(source: &str, gone: &Evicted, evictions: usize, max_sessions: usize) {
    eprintln!(
        "note: {source}: more than {max_sessions} sessions are open: {} (last line {}) is evicted, the least recently used; its findings are reported above and a later line of it starts it anew{}",
        gone.session,
        gone.last_line,
        if evictions == EVICTION_NOTES { " (further evictions are only counted)" } else { "" }
    );
}

/// The replay's summary on stderr: the counts (text output), and the evictions.
fn summarise(n: &Counts, sessions: &Sessions, max_sessions: usize, json: bool) {
    let started = sessions.started();
    if !json {
        let warned = n.warned;
        let warnings = if warned == 0 { String::new() } else { format!(", {warned} with warnings only") };
        eprintln!(
            "{} message{} checked in {started} session{}: {} valid, {} invalid{warnings}",
            n.total,
            if n.total == 1 { "" } else { "s" },
            if started == 1 { "" } else { "s" },
            n.total - n.invalid,
            n.invalid
        );
    }
    if sessions.evicted > 0 {
        eprintln!(
            "note: {} idle session{} evicted at --max-sessions {max_sessions}",
            sessions.evicted,
            if sessions.evicted == 1 { " was" } else { "s were" },
        );
    }
}
