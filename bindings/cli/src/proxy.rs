//! `mcpgen proxy [--report FILE] [--record FILE] [--enforce [--enforce-tools-baseline]] -- COMMAND [ARGS…]`: runs COMMAND as
//! a stdio MCP server and relays newline-delimited JSON both ways, unchanged and in order, while
//! one [`Conversation`] checks every message.
//!
//! Three threads besides the main one (and, on Unix, one that forwards signals to the server,
//! [`signals`]): client → server and server → client relays (buffered reads, one write and, when
//! no further complete line is buffered, one flush per message), and the checker, fed over a
//! bounded queue. A relay hands a message to the queue *before* forwarding
//! it, so the checker sees every message after the messages that caused it (a response after
//! its request) — the channel's order is a causal order of the conversation — and the relays
//! never wait for a check, only for room — and the checker is woken only *after* the message
//! (or the burst of buffered messages) is forwarded, so the wake-up is not part of the time a
//! message spends in the proxy: the messages in the queue hold at most
//! `--max-queued-bytes`, and a relay that finds no room waits before it reads on
//! (backpressure: the peer's writes block, nothing piles up). A line longer than
//! `--max-message-bytes` is relayed in chunks as it arrives ([`frames`]) and reported once,
//! unchecked. Findings, the record and the report are written by the checker
//! ([`crate::checker`]), the first `--max-repeats` of each kind only.
//!
//! The command's flags are in [`crate::cmd::proxy`]; this module and its children are the
//! relays.

mod accept;
mod frames;
pub mod http;
pub mod inject;
pub mod metrics;
#[cfg(unix)]
mod signals;
pub mod tool_gate;
pub mod traces;

use std::ffi::OsString;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use mcpgen::conversation::{ConversationOptions, Sender};
use mcpgen::protocol::{check_request, ServerConfig};

use crate::checker::{body, is_blank, is_request, CheckerSettings, CheckerThread, Limits, ToChecker};
use crate::UsageError;
use frames::{frames, Frame, READ_BUFFER};
use metrics::Metrics;
use tool_gate::ToolGate;

pub struct Settings {
    pub report: Option<PathBuf>,
    pub record: Option<PathBuf>,
    pub enforce: bool,
    /// `--enforce`'s tool gate (calls judged against the listed tools, and the pin).
    pub tool_gate: Option<Arc<ToolGate>>,
    pub command: Vec<OsString>,
    pub options: ConversationOptions,
    /// Exit 1 (when the server itself exits 0) once a finding at this level or above was made.
    pub fail_on: Option<crate::FailOn>,
    pub limits: Limits,
    /// `--metrics`: counted by the checker and the relays, served elsewhere.
    pub metrics: Option<Arc<Metrics>>,
    /// `--otlp-endpoint`: spans made by the checker.
    pub traces: Option<traces::Tracing>,
    /// `--otlp-inject-traceparent`: requests without trace context get one before forwarding.
    pub inject: Option<Arc<inject::Injector>>,
}

/// The client's side of the proxy: our stdout, shared by the server relay and `--enforce`.
type ClientOut = Arc<Mutex<BufWriter<std::io::Stdout>>>;

pub fn run(settings: Settings) -> Result<ExitCode, UsageError> {
    let (program, args) =
        settings.command.split_first().ok_or_else(|| UsageError("give the server command after `--`".into()))?;
    let limits = settings.limits;
    let (report, record) = (settings.report.as_deref(), settings.record.as_deref());
    let metrics = settings.metrics.clone();
    let checker = CheckerThread::start(CheckerSettings {
        report,
        record,
        options: settings.options.clone(),
        limits,
        metrics: metrics.clone(),
        traces: settings.traces,
    })?;
    // Caught from before the server exists: a signal in between waits to be forwarded.
    #[cfg(unix)]
    let caught = signals::catch().map_err(|e| UsageError(format!("cannot install signal handlers: {e}")))?;
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
    // Started from this (the main) thread, which lives as long as the proxy: PR_SET_PDEATHSIG
    // is bound to the thread that started the child.
    #[cfg(unix)]
    signals::die_with_parent(&mut command);
    // The server's descendants become ours when their parents die (crate::reaper), so they
    // are ended when the server exits: none keeps the proxy waiting on the server's stdout.
    #[cfg(unix)]
    crate::reaper::become_subreaper();
    let mut child: Child =
        command.spawn().map_err(|e| UsageError(format!("cannot start {}: {e}", program.to_string_lossy())))?;
    #[cfg(unix)]
    let server = caught.forward_to(&child).map_err(|e| UsageError(format!("cannot forward signals: {e}")))?;
    let server_in = child.stdin.take().ok_or_else(|| UsageError("the server's stdin is not piped".into()))?;
    let server_out = child.stdout.take().ok_or_else(|| UsageError("the server's stdout is not piped".into()))?;

    let to_checker = checker.sender();
    let client_out: ClientOut = Arc::new(Mutex::new(BufWriter::with_capacity(READ_BUFFER, std::io::stdout())));
    let client = ClientSide {
        checker: to_checker.clone(),
        out: client_out.clone(),
        enforce: settings.enforce,
        gate: settings.tool_gate.clone(),
        inject: settings.inject.clone(),
    };
    start_client_relay(server_in, client, limits.max_message_bytes, metrics.clone())?;
    let server_relay = {
        let client_out = client_out.clone();
        let gate = settings.tool_gate.clone();
        std::thread::Builder::new()
            .name("mcpgen-proxy-server".into())
            .spawn(move || relay_server(server_out, to_checker, client_out, gate, limits.max_message_bytes, metrics))
            .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?
    };

    #[cfg(unix)]
    let status = server.wait(&mut child);
    #[cfg(not(unix))]
    let status = child.wait();
    let status = status.map_err(|e| UsageError(format!("cannot wait for the server: {e}")))?;
    // The session is over: what the server left running is ended (Linux; elsewhere a child
    // holding the server's stdout keeps the relay open until it ends). What the server wrote
    // before it exited is still in the pipe and relayed; the pipe ends once no process holds
    // it.
    #[cfg(unix)]
    crate::reaper::end_descendants();
    let _ = server_relay.join();
    // The client relay may still be blocked reading our stdin: it is not joined. Messages it
    // handed over are checked before the checker finishes.
    let tally = checker.finish();
    if let Ok(mut out) = client_out.lock() {
        let _ = out.flush();
    }
    if status.success() {
        if let Some(code) = tally.fail_exit(settings.fail_on) {
            return Ok(code);
        }
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

/// What `--enforce` judges a request against, on stdio and on HTTP alike: every pinned revision
/// and every pinned extension (the proxy cannot know which extensions its upstream serves, so it
/// refuses only what no server could accept).
pub(crate) fn enforce_config() -> ServerConfig {
    ServerConfig::default().with_extensions(mcpgen::ext::Extension::ALL.iter().copied())
}

/// What the client relay hands requests to, answers refused ones on, and judges them by.
struct ClientSide {
    checker: ToChecker,
    out: ClientOut,
    enforce: bool,
    gate: Option<Arc<ToolGate>>,
    inject: Option<Arc<inject::Injector>>,
}

/// The client relay's thread ([`relay_client`]).
fn start_client_relay(
    server_in: ChildStdin,
    client: ClientSide,
    max: usize,
    metrics: Option<Arc<Metrics>>,
) -> Result<(), UsageError> {
    std::thread::Builder::new()
        .name("mcpgen-proxy-client".into())
        .spawn(move || relay_client(server_in, client, max, metrics))
        .map(drop)
        .map_err(|e| UsageError(format!("cannot start a thread: {e}")))
}

/// Client (our stdin) → server.
fn relay_client(server_in: ChildStdin, side: ClientSide, max: usize, metrics: Option<Arc<Metrics>>) {
    let ClientSide { checker, out: client_out, enforce, gate, inject } = side;
    let config = enforce_config();
    let mut to_server = BufWriter::with_capacity(READ_BUFFER, server_in);
    // `check_request` judges modern requests (and a legacy `initialize`) on their own; once a
    // legacy `initialize` is accepted, the session's requests belong to the legacy handshake's
    // revision, which a stateless check cannot know: they are forwarded (and still checked).
    let mut legacy_session = false;
    frames(std::io::stdin().lock(), max, |frame| match frame {
        Frame::Line { line, more } => {
            let started = metrics.as_ref().map(|_| Instant::now());
            let blank = is_blank(&line);
            if !blank && enforce && !legacy_session && is_request(body(&line)) {
                let checked = check_request(body(&line), &config);
                legacy_session = matches!(&checked, Ok(accepted) if accepted.legacy);
                if let Err(e) = checked {
                    refuse(&checker, &client_out, line, (e.rule, e.message.clone()), e.to_response_json());
                    return true;
                }
            }
            if let Some(refusal) = gate.as_ref().filter(|_| !blank).and_then(|g| g.client(None, body(&line))) {
                refuse(&checker, &client_out, line, (refusal.rule, refusal.message), refusal.response);
                return true;
            }
            // `--otlp-inject-traceparent`: what the server gets, and so what is checked.
            let line = Arc::new(match inject.as_ref().filter(|_| !blank).and_then(|i| i.inject(&line)) {
                Some(injected) => injected,
                None => line,
            });
            if !blank {
                checker.relayed(Sender::Client, Arc::clone(&line));
            }
            let written = to_server.write_all(&line).is_ok() && (more || to_server.flush().is_ok());
            // The checker runs once the server has its message (or the burst of them).
            if !more {
                checker.wake();
            }
            if let (Some(m), Some(started)) = (&metrics, started) {
                m.added(Sender::Client, started.elapsed());
            }
            written
        }
        // Too long to check (or to judge for --enforce): forwarded as it comes.
        Frame::LongStart => {
            checker.too_large(Sender::Client);
            true
        }
        Frame::Chunk(bytes) => to_server.write_all(bytes).is_ok(),
        Frame::LongEnd { more } => more || to_server.flush().is_ok(),
    });
    checker.wake();
    // Dropping the writer closes the server's stdin: it sees the client's EOF.
    let _ = to_server.flush();
}

/// A client request `--enforce` answers instead of forwarding: checked and recorded as relayed
/// (the request, then `response` as the server's answer), and `response` written to the client.
fn refuse(checker: &ToChecker, client_out: &ClientOut, line: Vec<u8>, why: (&'static str, String), response: String) {
    checker.message(Sender::Client, Arc::new(line), Some(why));
    checker.message(Sender::Server, Arc::new(response.as_bytes().to_vec()), None);
    if let Ok(mut out) = client_out.lock() {
        let _ = out.write_all(response.as_bytes());
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
}

/// Server (its stdout) → client (our stdout).
fn relay_server(
    server_out: ChildStdout,
    checker: ToChecker,
    client_out: ClientOut,
    gate: Option<Arc<ToolGate>>,
    max: usize,
    metrics: Option<Arc<Metrics>>,
) {
    // After the client went away, keep reading (and checking) so the server never blocks.
    let mut client_gone = false;
    let out = &*client_out;
    // A long line holds the client's side from its first chunk to its end, so that no
    // `--enforce` answer lands inside it.
    let mut long: Option<MutexGuard<'_, BufWriter<std::io::Stdout>>> = None;
    frames(server_out, max, |frame| {
        match frame {
            Frame::Line { line, more } => {
                let started = metrics.as_ref().map(|_| Instant::now());
                let line = Arc::new(line);
                if !is_blank(&line) {
                    if let Some(gate) = &gate {
                        // Before the client sees the list: it calls only tools the gate knows.
                        gate.server(None, body(&line));
                    }
                    checker.relayed(Sender::Server, Arc::clone(&line));
                }
                if !client_gone {
                    client_gone = match out.lock() {
                        Ok(mut w) => w.write_all(&line).and_then(|()| if more { Ok(()) } else { w.flush() }).is_err(),
                        Err(_) => true,
                    };
                }
                if !more {
                    checker.wake();
                }
                if let (Some(m), Some(started)) = (&metrics, started) {
                    m.added(Sender::Server, started.elapsed());
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
    checker.wake();
}
