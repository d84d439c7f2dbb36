//! `mcpgen proxy [--report FILE] [--record FILE] [--enforce] -- COMMAND [ARGS…]`: runs COMMAND as
//! a stdio MCP server and relays newline-delimited JSON both ways, unchanged and in order, while
//! one [`Conversation`] checks every message.
//!
//! Three threads besides the main one (and, on Unix, one that forwards signals to the server,
//! [`signals`]): client → server and server → client relays (buffered reads, one write and, when
//! no further complete line is buffered, one flush per message), and the checker, fed over a
//! channel. A relay hands a message to the channel *before* forwarding
//! it, so the checker sees every message after the messages that caused it (a response after
//! its request) — the channel's order is a causal order of the conversation — and the relays
//! never wait for a check, only for room: the messages in the channel hold at most
//! `--max-queued-bytes`, and a relay that finds no room waits before it reads on
//! (backpressure: the peer's writes block, nothing piles up). A line longer than
//! `--max-message-bytes` is relayed in chunks as it arrives ([`frames`]) and reported once,
//! unchecked. Findings, the record and the report are written by the checker, the first
//! `--max-repeats` of each kind only ([`repeats`]).

mod frames;
mod repeats;
#[cfg(unix)]
mod signals;

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use mcpgen::conversation::{Conversation, ConversationOptions, Era, Finding, Level, Sender};
use mcpgen::json::{Kind, Map, Number, Tape, Value};
use mcpgen::protocol::{check_request, ServerConfig};
use mcpgen::rules::id;
use mcpgen::JsonView;

use crate::conversation::{finding_json, record_line};
use crate::UsageError;
use frames::{frames, Frame, READ_BUFFER};
use repeats::{Repeats, Summary, Verdict};

/// `--max-message-bytes`: longer messages are relayed unchecked.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// `--max-queued-bytes`: what the messages waiting for the checker may hold.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 64 * 1024 * 1024;
/// `--max-repeats`: findings of one kind shown before they are only counted.
pub const DEFAULT_MAX_REPEATS: usize = 20;

/// The proxy's bounds on what a peer can make it hold or print.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_message_bytes: usize,
    pub max_queued_bytes: usize,
    pub max_repeats: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            max_repeats: DEFAULT_MAX_REPEATS,
        }
    }
}

pub struct Settings {
    pub report: Option<PathBuf>,
    pub record: Option<PathBuf>,
    pub enforce: bool,
    pub command: Vec<OsString>,
    pub options: ConversationOptions,
    /// Exit 1 (when the server itself exits 0) once a finding at this level or above was made.
    pub fail_on: Option<crate::FailOn>,
    pub limits: Limits,
}

/// What the checker saw: messages with an error-level finding, and with warnings only.
#[derive(Default)]
struct Tally {
    errors: usize,
    warnings: usize,
}

/// Messages waiting for the checker at most (besides their bytes, [`Budget`]).
const CHANNEL_CAPACITY: usize = 4096;
/// What one message costs in the [`Budget`] besides its bytes (its event and bookkeeping).
const EVENT_COST: usize = 64;

enum Event {
    /// One message as relayed: its line (`\n` included, when it had one); `refused` when
    /// `--enforce` answered it instead of forwarding (rule, message). `cost`: its share of the
    /// budget, given back once checked.
    Message { from: Sender, line: Arc<Vec<u8>>, refused: Option<(&'static str, String)>, cost: usize },
    /// A line longer than `--max-message-bytes` is being relayed unchecked.
    TooLarge { from: Sender, cost: usize },
    /// Every relayed message has been sent: finish.
    Stop,
}

/// The bytes of the messages handed to the checker and not yet checked, with a cap: a relay
/// waits for room before it hands over (and so before it reads further).
struct Budget {
    state: Mutex<Room>,
    freed: Condvar,
    cap: usize,
}

#[derive(Default)]
struct Room {
    used: usize,
    /// The checker is gone: nothing waits any more.
    closed: bool,
}

impl Budget {
    fn new(limits: &Limits) -> Budget {
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
            room = self.freed.wait(room).unwrap_or_else(PoisonError::into_inner);
        }
        room.used += n;
        n
    }

    fn give_back(&self, n: usize) {
        let mut room = self.lock();
        room.used = room.used.saturating_sub(n);
        drop(room);
        self.freed.notify_all();
    }

    /// No checker any more (it finished, or panicked): the relays stop waiting for room.
    fn close(&self) {
        self.lock().closed = true;
        self.freed.notify_all();
    }
}

/// Closes the budget when the checker ends, however it ends.
struct CloseOnDrop(Arc<Budget>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// A relay's way to the checker.
#[derive(Clone)]
struct ToChecker {
    tx: SyncSender<Event>,
    budget: Arc<Budget>,
}

impl ToChecker {
    fn message(&self, from: Sender, line: Arc<Vec<u8>>, refused: Option<(&'static str, String)>) {
        let cost = self.budget.take(line.len());
        if self.tx.send(Event::Message { from, line, refused, cost }).is_err() {
            self.budget.give_back(cost);
        }
    }

    fn too_large(&self, from: Sender) {
        let cost = self.budget.take(0);
        if self.tx.send(Event::TooLarge { from, cost }).is_err() {
            self.budget.give_back(cost);
        }
    }
}

/// The client's side of the proxy: our stdout, shared by the server relay and `--enforce`.
type ClientOut = Arc<Mutex<BufWriter<std::io::Stdout>>>;

pub fn run(settings: Settings) -> Result<ExitCode, UsageError> {
    let (program, args) =
        settings.command.split_first().ok_or_else(|| UsageError("give the server command after `--`".into()))?;
    let create = |p: &PathBuf, what: &str| {
        File::create(p)
            .map(BufWriter::new)
            .map_err(|e| UsageError(format!("cannot create {what} file {}: {e}", p.display())))
    };
    let report = settings.report.as_ref().map(|p| create(p, "report")).transpose()?;
    let record = settings.record.as_ref().map(|p| create(p, "record")).transpose()?;
    let source_name = settings.record.as_ref().map_or_else(|| "proxy".to_owned(), |p| p.display().to_string());
    let limits = settings.limits;

    // Caught from before the server exists: a signal in between waits to be forwarded.
    #[cfg(unix)]
    let caught = signals::catch().map_err(|e| UsageError(format!("cannot install signal handlers: {e}")))?;
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
    // Started from this (the main) thread, which lives as long as the proxy: PR_SET_PDEATHSIG
    // is bound to the thread that started the child.
    #[cfg(unix)]
    signals::die_with_parent(&mut command);
    let mut child: Child =
        command.spawn().map_err(|e| UsageError(format!("cannot start {}: {e}", program.to_string_lossy())))?;
    #[cfg(unix)]
    let server = caught.forward_to(&child).map_err(|e| UsageError(format!("cannot forward signals: {e}")))?;
    let server_in = child.stdin.take().ok_or_else(|| UsageError("the server's stdin is not piped".into()))?;
    let server_out = child.stdout.take().ok_or_else(|| UsageError("the server's stdout is not piped".into()))?;

    let (tx, rx) = mpsc::sync_channel::<Event>(CHANNEL_CAPACITY);
    let budget = Arc::new(Budget::new(&limits));
    let to_checker = ToChecker { tx: tx.clone(), budget: Arc::clone(&budget) };
    let checker = {
        let options = settings.options.clone();
        let out = Output { source_name, report, record, limits, budget };
        std::thread::Builder::new()
            .name("mcpgen-proxy-checker".into())
            .spawn(move || check_all(rx, Conversation::with_options(options), out))
            .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?
    };
    let client_out: ClientOut = Arc::new(Mutex::new(BufWriter::with_capacity(READ_BUFFER, std::io::stdout())));
    {
        let (to_checker, client_out, enforce) = (to_checker.clone(), client_out.clone(), settings.enforce);
        std::thread::Builder::new()
            .name("mcpgen-proxy-client".into())
            .spawn(move || relay_client(server_in, to_checker, client_out, enforce, limits.max_message_bytes))
            .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?;
    }
    let server_relay = {
        let client_out = client_out.clone();
        std::thread::Builder::new()
            .name("mcpgen-proxy-server".into())
            .spawn(move || relay_server(server_out, to_checker, client_out, limits.max_message_bytes))
            .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?
    };

    #[cfg(unix)]
    let status = server.wait(&mut child);
    #[cfg(not(unix))]
    let status = child.wait();
    let status = status.map_err(|e| UsageError(format!("cannot wait for the server: {e}")))?;
    // Everything the server wrote is relayed once its stdout ends (it may outlive the process
    // when the server handed it to a child of its own).
    let _ = server_relay.join();
    // The client relay may still be blocked reading our stdin: it is not joined. Messages it
    // handed over are in the channel before `Stop`.
    let _ = tx.send(Event::Stop);
    let tally = checker.join().unwrap_or_default();
    if let Ok(mut out) = client_out.lock() {
        let _ = out.flush();
    }
    let failed = settings.fail_on.is_some_and(|level| level.fails(tally.errors, tally.warnings));
    if failed && status.success() {
        eprintln!(
            "mcpgen proxy: {} message(s) with errors, {} with warnings only (--fail-on): exit 1",
            tally.errors, tally.warnings
        );
        return Ok(ExitCode::from(1));
    }
    Ok(exit_like(status))
}

/// Our exit for the server's status: its code, or (Unix) the same signal.
fn exit_like(status: std::process::ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        // Exit codes beyond 255 do not exist on Unix; on Windows they are truncated here.
        return ExitCode::from(code as u8);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            // SAFETY: resetting a signal to its default action and raising it in our own
            // process; nothing else runs (the relays are done or blocked in a read).
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
            // Not reached for a terminating signal; the shell convention otherwise.
            return ExitCode::from((128 + signal) as u8);
        }
    }
    ExitCode::from(1)
}

/// The line without its `\n` (and a `\r` before it).
fn body(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// A JSON-RPC request (an object with `method` and `id`): what `--enforce` may answer.
fn is_request(body: &[u8]) -> bool {
    Tape::parse_bytes(body)
        .map(|t| {
            let root = t.root();
            root.kind() == Kind::Object && root.get("method").is_some() && root.get("id").is_some()
        })
        .unwrap_or(false)
}

/// Client (our stdin) → server.
fn relay_client(server_in: ChildStdin, checker: ToChecker, client_out: ClientOut, enforce: bool, max: usize) {
    let config = ServerConfig::default();
    let mut to_server = BufWriter::with_capacity(READ_BUFFER, server_in);
    // `check_request` judges modern requests (and a legacy `initialize`) on their own; once a
    // legacy `initialize` is accepted, the session's requests belong to the legacy handshake's
    // revision, which a stateless check cannot know: they are forwarded (and still checked).
    let mut legacy_session = false;
    frames(std::io::stdin().lock(), max, |frame| match frame {
        Frame::Line { line, more } => {
            let blank = is_blank(&line);
            if !blank && enforce && !legacy_session && is_request(body(&line)) {
                let checked = check_request(body(&line), &config);
                legacy_session = matches!(&checked, Ok(accepted) if accepted.legacy);
                if let Err(e) = checked {
                    let response = e.to_response_json();
                    checker.message(Sender::Client, Arc::new(line), Some((e.rule, e.message.clone())));
                    checker.message(Sender::Server, Arc::new(response.as_bytes().to_vec()), None);
                    if let Ok(mut out) = client_out.lock() {
                        let _ = out.write_all(response.as_bytes());
                        let _ = out.write_all(b"\n");
                        let _ = out.flush();
                    }
                    return true;
                }
            }
            let line = Arc::new(line);
            if !blank {
                checker.message(Sender::Client, Arc::clone(&line), None);
            }
            to_server.write_all(&line).is_ok() && (more || to_server.flush().is_ok())
        }
        // Too long to check (or to judge for --enforce): forwarded as it comes.
        Frame::LongStart => {
            checker.too_large(Sender::Client);
            true
        }
        Frame::Chunk(bytes) => to_server.write_all(bytes).is_ok(),
        Frame::LongEnd { more } => more || to_server.flush().is_ok(),
    });
    // Dropping the writer closes the server's stdin: it sees the client's EOF.
    let _ = to_server.flush();
}

/// Server (its stdout) → client (our stdout).
fn relay_server(server_out: ChildStdout, checker: ToChecker, client_out: ClientOut, max: usize) {
    // After the client went away, keep reading (and checking) so the server never blocks.
    let mut client_gone = false;
    let out = &*client_out;
    // A long line holds the client's side from its first chunk to its end, so that no
    // `--enforce` answer lands inside it.
    let mut long: Option<MutexGuard<'_, BufWriter<std::io::Stdout>>> = None;
    frames(server_out, max, |frame| {
        match frame {
            Frame::Line { line, more } => {
                let line = Arc::new(line);
                if !is_blank(&line) {
                    checker.message(Sender::Server, Arc::clone(&line), None);
                }
                if !client_gone {
                    client_gone = match out.lock() {
                        Ok(mut w) => w.write_all(&line).and_then(|()| if more { Ok(()) } else { w.flush() }).is_err(),
                        Err(_) => true,
                    };
                }
            }
            Frame::LongStart => {
                checker.too_large(Sender::Server);
                long = out.lock().ok();
                client_gone |= long.is_none();
            }
            Frame::Chunk(bytes) => {
                if let (false, Some(w)) = (client_gone, long.as_mut()) {
                    client_gone = w.write_all(bytes).is_err();
                }
            }
            Frame::LongEnd { more } => {
                if let (false, Some(w)) = (client_gone, long.as_mut()) {
                    client_gone = !more && w.flush().is_err();
                }
                long = None;
            }
        }
        true
    });
}

/// Where the checker writes, and what bounds it.
struct Output {
    source_name: String,
    report: Option<BufWriter<File>>,
    record: Option<BufWriter<File>>,
    limits: Limits,
    budget: Arc<Budget>,
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
fn check_all(rx: Receiver<Event>, mut conversation: Conversation, mut out: Output) -> Tally {
    let _close = CloseOnDrop(Arc::clone(&out.budget));
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
            Event::Message { from, line, refused, cost } => {
                let text = body(&line);
                n += 1;
                let findings = conversation.observe(from, text);
                if let Some(w) = out.record.as_mut() {
                    let _ = writeln!(w, "{}", record_line(from, None, text));
                }
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
            Event::TooLarge { from, cost } => (from, vec![too_large(from, n, &out.limits, &conversation)], cost),
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
fn too_large(from: Sender, after: usize, limits: &Limits, conversation: &Conversation) -> Finding {
    // Judged, like the checker's own findings, under the newest revision until one is known.
    let revision = conversation.revision().or_else(mcpgen::Revision::latest);
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
