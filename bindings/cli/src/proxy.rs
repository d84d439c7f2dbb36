//! `mcpgen proxy [--report FILE] [--record FILE] [--enforce] -- COMMAND [ARGS…]`: runs COMMAND as
//! a stdio MCP server and relays newline-delimited JSON both ways, unchanged and in order, while
//! one [`Conversation`] checks every message.
//!
//! Three threads besides the main one: client → server and server → client relays (buffered
//! reads, one write and, when no further complete line is buffered, one flush per message), and
//! the checker, fed over a channel. A relay hands a message to the channel *before* forwarding
//! it, so the checker sees every message after the messages that caused it (a response after
//! its request) — the channel's order is a causal order of the conversation — and the relays
//! never wait for a check. Findings, the record and the report are written by the checker.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};

use mcpgen::conversation::{Conversation, ConversationOptions, Finding, Sender};
use mcpgen::json::{Kind, Tape, Value};
use mcpgen::protocol::{check_request, ServerConfig};
use mcpgen::JsonView;

use crate::conversation::{record_line, report_object};
use crate::UsageError;

pub struct Settings {
    pub report: Option<PathBuf>,
    pub record: Option<PathBuf>,
    pub enforce: bool,
    pub command: Vec<OsString>,
    pub options: ConversationOptions,
    /// Exit 1 (when the server itself exits 0) once a finding at this level or above was made.
    pub fail_on: Option<crate::FailOn>,
}

/// What the checker saw: messages with an error-level finding, and with warnings only.
#[derive(Default)]
struct Tally {
    errors: usize,
    warnings: usize,
}

/// Messages waiting for the checker at most; past it the relays wait (bounded memory).
const CHANNEL_CAPACITY: usize = 4096;
/// Read buffer of each relay.
const READ_BUFFER: usize = 64 * 1024;

enum Event {
    /// One message (a line without its `\n`) as relayed; `refused` when `--enforce` answered
    /// it instead of forwarding (rule, message).
    Message { from: Sender, line: Vec<u8>, refused: Option<(&'static str, String)> },
    /// Every relayed message has been sent: finish.
    Stop,
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

    let mut child: Child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| UsageError(format!("cannot start {}: {e}", program.to_string_lossy())))?;
    let server_in = child.stdin.take().expect("stdin is piped");
    let server_out = child.stdout.take().expect("stdout is piped");

    let (tx, rx) = mpsc::sync_channel::<Event>(CHANNEL_CAPACITY);
    let checker = {
        let options = settings.options.clone();
        std::thread::Builder::new()
            .name("mcpgen-proxy-checker".into())
            .spawn(move || check_all(rx, Conversation::with_options(options), source_name, report, record))
            .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?
    };
    let client_out: ClientOut = Arc::new(Mutex::new(BufWriter::with_capacity(READ_BUFFER, std::io::stdout())));
    {
        let (tx, client_out, enforce) = (tx.clone(), client_out.clone(), settings.enforce);
        std::thread::Builder::new()
            .name("mcpgen-proxy-client".into())
            .spawn(move || relay_client(server_in, tx, client_out, enforce))
            .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?;
    }
    let server_relay = {
        let (tx, client_out) = (tx.clone(), client_out.clone());
        std::thread::Builder::new()
            .name("mcpgen-proxy-server".into())
            .spawn(move || relay_server(server_out, tx, client_out))
            .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?
    };

    let status = child.wait().map_err(|e| UsageError(format!("cannot wait for the server: {e}")))?;
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

/// Flush when no complete line waits in `reader`: the next read would block, so the peer must
/// have everything relayed so far.
fn should_flush<R: std::io::Read>(reader: &BufReader<R>) -> bool {
    !reader.buffer().contains(&b'\n')
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
fn relay_client(server_in: ChildStdin, tx: SyncSender<Event>, client_out: ClientOut, enforce: bool) {
    let config = ServerConfig::default();
    let stdin = std::io::stdin();
    let mut reader = BufReader::with_capacity(READ_BUFFER, stdin.lock());
    let mut to_server = BufWriter::with_capacity(READ_BUFFER, server_in);
    let mut line = Vec::with_capacity(1024);
    // `check_request` judges modern requests (and a legacy `initialize`) on their own; once a
    // legacy `initialize` is accepted, the session's requests belong to the legacy handshake's
    // revision, which a stateless check cannot know: they are forwarded (and still checked).
    let mut legacy_session = false;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if !is_blank(&line) {
            let text = body(&line);
            if enforce && !legacy_session && is_request(text) {
                let checked = check_request(text, &config);
                legacy_session = matches!(&checked, Ok(accepted) if accepted.legacy);
                if let Err(e) = checked {
                    let response = e.to_response_json();
                    let refused = Some((e.rule, e.message.clone()));
                    let _ = tx.send(Event::Message { from: Sender::Client, line: text.to_vec(), refused });
                    let _ = tx.send(Event::Message {
                        from: Sender::Server,
                        line: response.as_bytes().to_vec(),
                        refused: None,
                    });
                    if let Ok(mut out) = client_out.lock() {
                        let _ = out.write_all(response.as_bytes());
                        let _ = out.write_all(b"\n");
                        let _ = out.flush();
                    }
                    continue;
                }
            }
            let _ = tx.send(Event::Message { from: Sender::Client, line: text.to_vec(), refused: None });
        }
        if to_server.write_all(&line).is_err() {
            break;
        }
        if should_flush(&reader) && to_server.flush().is_err() {
            break;
        }
    }
    // Dropping the writer closes the server's stdin: it sees the client's EOF.
    let _ = to_server.flush();
}

/// Server (its stdout) → client (our stdout).
fn relay_server(server_out: ChildStdout, tx: SyncSender<Event>, client_out: ClientOut) {
    let mut reader = BufReader::with_capacity(READ_BUFFER, server_out);
    let mut line = Vec::with_capacity(1024);
    // After the client went away, keep reading (and checking) so the server never blocks.
    let mut client_gone = false;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if !is_blank(&line) {
            let _ = tx.send(Event::Message { from: Sender::Server, line: body(&line).to_vec(), refused: None });
        }
        if client_gone {
            continue;
        }
        let Ok(mut out) = client_out.lock() else { break };
        let mut sent = out.write_all(&line);
        if sent.is_ok() && should_flush(&reader) {
            sent = out.flush();
        }
        client_gone = sent.is_err();
    }
}

/// The checker thread: every message in order through one conversation; record and report.
fn check_all(
    rx: Receiver<Event>,
    mut conversation: Conversation,
    source_name: String,
    mut report: Option<BufWriter<File>>,
    mut record: Option<BufWriter<File>>,
) -> Tally {
    let mut tally = Tally::default();
    let mut n = 0usize;
    let stderr = std::io::stderr();
    loop {
        let event = match rx.try_recv() {
            Ok(e) => e,
            Err(TryRecvError::Empty) => {
                // Idle: put what was written so far on disk before waiting.
                for w in [&mut report, &mut record].into_iter().flatten() {
                    let _ = w.flush();
                }
                match rx.recv() {
                    Ok(e) => e,
                    Err(_) => break,
                }
            }
            Err(TryRecvError::Disconnected) => break,
        };
        let Event::Message { from, line, refused } = event else { break };
        n += 1;
        let findings = conversation.observe(from, &line);
        let source = format!("{source_name}:{n}");
        if let Some(w) = record.as_mut() {
            let _ = writeln!(w, "{}", record_line(from, None, &line));
        }
        if let Some((rule, message)) = refused {
            let _ = writeln!(
                stderr.lock(),
                "mcpgen proxy: {source}: refused the client's request (--enforce, {rule}): {message}"
            );
        }
        if findings.is_empty() {
            continue;
        }
        if findings.iter().any(Finding::is_error) {
            tally.errors += 1;
        } else {
            tally.warnings += 1;
        }
        match report.as_mut() {
            Some(w) => {
                let _ = writeln!(w, "{}", Value::Object(report_object(source, Some(from), &findings)).to_json_string());
            }
            None => {
                let mut err = stderr.lock();
                for f in &findings {
                    let _ = writeln!(err, "mcpgen proxy: {source} ({} message): {}", from.as_str(), one_line(f));
                }
            }
        }
    }
    for w in [&mut report, &mut record].into_iter().flatten() {
        let _ = w.flush();
    }
    tally
}

fn one_line(f: &Finding) -> String {
    f.to_string().replace('\n', " ")
}
