//! `mcpgen-reference-server`: the reference MCP server (both eras) over Streamable HTTP or stdio.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use mcpgen_reference::log;
use mcpgen_reference::server::http::{self, HttpLimits};
use mcpgen_reference::server::session::{self, TableLimits};
use mcpgen_reference::server::state::{self, StateLimits};
use mcpgen_reference::server::stdio::{self, StdioLimits};
use mcpgen_reference::server::tasks::{self, TaskLimits};
use mcpgen_reference::server::Server;

/// A dual-era MCP server (2025-11-25 sessions and 2026-07-28 stateless requests on one
/// endpoint) built on mcpgen and scored by the official conformance suite.
#[derive(Parser)]
#[command(name = "mcpgen-reference-server", version)]
struct Args {
    /// Serve Streamable HTTP at http://ADDR/mcp (loopback addresses only; port 0 picks a free
    /// port). The bound URL is printed on stdout.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:3000", conflicts_with = "stdio")]
    listen: SocketAddr,
    /// Serve one connection over stdin/stdout instead.
    #[arg(long)]
    stdio: bool,
    /// Feed every message through mcpgen's conversation checker; findings on messages the
    /// server sent go to stderr.
    #[arg(long)]
    self_check: bool,

    // Limits on what a peer can hold (docs/security.md).
    /// Legacy sessions kept at once. At the cap a new `initialize` evicts the least recently
    /// used session not in use (no request in flight, no GET stream open), or gets HTTP 503
    /// when all are in use. An evicted session's id then gets 404.
    #[arg(long, value_name = "N", default_value_t = session::DEFAULT_MAX_SESSIONS,
          value_parser = positive)]
    max_sessions: usize,
    /// A legacy session not in use for this long is ended; its id then gets 404 (HTTP only:
    /// a stdio session lasts as long as its connection).
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(session::DEFAULT_SESSION_IDLE_TIMEOUT))]
    session_idle_timeout: Seconds,
    /// Open `subscriptions/listen` streams at once; one more gets HTTP 503 (-32603 on stdio).
    #[arg(long, value_name = "N", default_value_t = session::DEFAULT_MAX_LISTENERS, value_parser = positive)]
    max_listeners: usize,
    /// Resources one legacy session may be subscribed to; one more `resources/subscribe` gets
    /// -32603 (unsubscribing frees a place).
    #[arg(long, value_name = "N", default_value_t = session::DEFAULT_MAX_SUBSCRIPTIONS, value_parser = positive)]
    max_subscriptions: usize,
    /// A `requestState` is refused (-32602) this long after it was issued.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(state::DEFAULT_STATE_TTL))]
    state_ttl: Seconds,
    /// Redeemed `requestState`s remembered (each until it expires) to refuse replays; with
    /// that many unexpired, a retry gets -32603 (HTTP 503).
    #[arg(long, value_name = "N", default_value_t = state::DEFAULT_MAX_REDEEMED, value_parser = positive)]
    max_redeemed_states: usize,
    /// Self-check lines printed on stderr per second at most; the others are counted and the
    /// count printed with the next line.
    #[arg(long, value_name = "N", default_value_t = log::DEFAULT_LINES_PER_SECOND, value_parser = clap::value_parser!(u32).range(1..))]
    max_log_lines_per_second: u32,
    /// stdio: the longest input line (bytes, newline excluded); a longer one gets -32600 and
    /// is skipped to its newline.
    #[arg(long, value_name = "BYTES", default_value_t = stdio::DEFAULT_MAX_LINE_BYTES, value_parser = positive)]
    max_line_bytes: usize,
    /// stdio: requests served at once; at the cap no more input is read until one is answered.
    #[arg(long, value_name = "N", default_value_t = stdio::DEFAULT_MAX_IN_FLIGHT, value_parser = positive)]
    max_in_flight: usize,
    /// stdio: messages waiting to be written to stdout; while the queue is full (the client
    /// does not read), no more input is read.
    #[arg(long, value_name = "N", default_value_t = stdio::DEFAULT_MAX_QUEUED_ANSWERS, value_parser = positive)]
    max_queued_answers: usize,
    /// Tasks (Tasks extension) kept at once. At the cap expired tasks are dropped first; when
    /// none is expired a `tools/call` that would create a task gets -32603 (HTTP 503).
    #[arg(long, value_name = "N", default_value_t = tasks::DEFAULT_MAX_TASKS, value_parser = positive)]
    max_tasks: usize,
    /// A task is kept this long after its creation (its `ttlMs`); then it is dropped, its job
    /// stopped, and its id gets -32602.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(tasks::DEFAULT_TASK_TTL))]
    task_ttl: Seconds,
    /// HTTP connections served at once; at the cap new connections wait (in the listen
    /// backlog) until one closes.
    #[arg(long, value_name = "N", default_value_t = http::DEFAULT_MAX_CONNECTIONS,
          value_parser = positive)]
    max_connections: usize,
    /// A connection must send a request's whole header section within this time of opening,
    /// or of its previous response ending (so it is also the keep-alive idle timeout); else it
    /// is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(http::DEFAULT_HEADER_READ_TIMEOUT))]
    header_read_timeout: Seconds,
    /// A POST's whole body must arrive within this time of its headers; else HTTP 408 and the
    /// connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(http::DEFAULT_BODY_TIMEOUT))]
    body_timeout: Seconds,
    /// Listen streams and legacy GET streams open at once (HTTP); one more gets 503. Keep it
    /// below --max-connections, so streams never take every connection.
    #[arg(long, value_name = "N", default_value_t = http::DEFAULT_MAX_STREAMS, value_parser = positive)]
    max_streams: usize,
    /// A write to a connection that makes no progress for this long (the client stopped
    /// reading) closes the connection (HTTP).
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(http::DEFAULT_WRITE_TIMEOUT))]
    write_timeout: Seconds,
}

/// A duration flag: a positive number of seconds, fractions allowed (`0.5`).
#[derive(Clone, Copy)]
struct Seconds(Duration);

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

impl std::str::FromStr for Seconds {
    type Err = String;
    fn from_str(s: &str) -> Result<Seconds, String> {
        match s.parse::<f64>().ok().and_then(|x| Duration::try_from_secs_f64(x).ok()) {
            Some(d) if !d.is_zero() => Ok(Seconds(d)),
            _ => Err(format!("`{s}` is not a positive number of seconds")),
        }
    }
}

/// A count flag: at least 1.
fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a whole number above 0")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let tables = TableLimits {
        max_sessions: args.max_sessions,
        session_idle_timeout: args.session_idle_timeout.0,
        max_listeners: args.max_listeners,
        max_subscriptions: args.max_subscriptions,
    };
    let limits = HttpLimits {
        header_read_timeout: args.header_read_timeout.0,
        body_timeout: args.body_timeout.0,
        max_connections: args.max_connections,
        max_streams: args.max_streams,
        write_timeout: args.write_timeout.0,
    };
    let stdio_limits = StdioLimits {
        max_line_bytes: args.max_line_bytes,
        max_in_flight: args.max_in_flight,
        max_queued_answers: args.max_queued_answers,
    };
    let state_limits = StateLimits { ttl: args.state_ttl.0, max_redeemed: args.max_redeemed_states };
    let task_limits = TaskLimits { max_tasks: args.max_tasks, ttl: args.task_ttl.0 };
    let server = Server::new(args.self_check)
        .with_limits(tables)
        .with_task_limits(task_limits)
        .with_state_limits(state_limits)
        .with_log_lines_per_second(args.max_log_lines_per_second);
    let server = Arc::new(server);
    let outcome = if args.stdio {
        let served = stdio::serve(Arc::clone(&server), stdio_limits).await.map_err(|e| e.to_string());
        if let Some(c) = server.self_check() {
            c.finish();
        }
        served
    } else {
        match http::bind(args.listen).await {
            Ok((listener, addr)) => {
                println!("listening on http://{addr}/mcp");
                http::serve_with(server, listener, limits).await.map_err(|e| e.to_string())
            }
            Err(e) => Err(format!("cannot listen on {}: {e}", args.listen)),
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcpgen-reference-server: {e}");
            ExitCode::FAILURE
        }
    }
}
