//! `mcpgen proxy`: the command's flags, and which relay runs ([`crate::proxy`] for stdio,
//! [`crate::proxy::http`] for `--listen`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use mcpgen::conversation::ConversationOptions;

use crate::checker::{
    Limits, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_QUEUED_BYTES, DEFAULT_MAX_REPEATS, DEFAULT_MAX_SESSIONS,
};
use crate::flags::{seconds_or_duration, CheckFlags, FailOnFlag, MaxSessionsFlag};
use crate::proxy::http::{
    HttpLimits, HttpSettings, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_HEADER_BYTES,
};
use crate::UsageError;

/// Run a stdio MCP server behind a checking relay: every message between the client (this
/// process's stdin/stdout) and COMMAND is relayed unchanged, byte for byte and in order, and
/// checked as one conversation (docs/proxy.md). With --listen and --upstream instead of
/// COMMAND: a checking reverse proxy for a Streamable HTTP server.
///
/// Findings go to --report (JSON Lines: the objects of `validate --format json` plus
/// "from") or to stderr; the server's stderr passes through. Exits with the server's
/// status (or its signal); 2 when COMMAND cannot be started. SIGTERM, SIGINT and SIGHUP
/// are forwarded to the server; on Linux the server is killed if the proxy dies.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Write findings here (JSON Lines) instead of stderr.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Record the conversation here, in the format `validate --conversation` replays.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Answer a client request that `check-request` refuses with its error response instead
    /// of forwarding it; also a `tools/call` whose arguments break the listed `inputSchema`
    /// from 2025-11-25 on a tool result with `isError: true`, before it error -32602.
    #[arg(long)]
    enforce: bool,
    /// With --enforce and --tools-baseline: also refuse (-32602) a call of a tool this session
    /// did not list, or whose listed definition differs from the pin.
    #[arg(long, requires_all = ["enforce", "tools_baseline"])]
    enforce_tools_baseline: bool,
    /// Compare every `tools/list` result with this pin (`mcpgen tools pin`): each tool added,
    /// removed or changed is a TOOL-12 warning in the report.
    #[arg(long, value_name = "FILE")]
    tools_baseline: Option<PathBuf>,
    #[command(flatten)]
    check: CheckFlags,
    #[command(flatten)]
    fail_on: FailOnFlag,
    /// Check messages (lines without their line end) up to this size; a longer line is
    /// relayed unchanged in chunks, neither checked nor recorded, and reported once
    /// (POLICY-SIZE, a warning). Default 16 MiB.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    max_message_bytes: usize,
    /// What the messages waiting for the checker may hold in all (at least one message of
    /// --max-message-bytes); past it the proxy reads no further until the checker catches
    /// up. Default 64 MiB.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_QUEUED_BYTES)]
    max_queued_bytes: usize,
    /// Show at most N findings of one kind (sender, rule, keyword, schema path, level);
    /// later ones are counted, with a summary when the count reaches N×10, N×100, … and
    /// at the end.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_REPEATS)]
    max_repeats: usize,
    #[command(flatten)]
    max_sessions: MaxSessionsFlag,
    /// Serve Prometheus metrics on http://ADDR/metrics (`127.0.0.1:0` picks a free port; the
    /// URL is printed on stderr as `metrics on http://…`): messages by method, responses by
    /// error class, findings by rule and level, latencies, limits hit. No message bodies.
    #[arg(long, value_name = "ADDR")]
    metrics: Option<std::net::SocketAddr>,
    /// Allow a --metrics address that is not loopback.
    #[arg(long, requires = "metrics")]
    metrics_allow_non_loopback: bool,
    /// Export OpenTelemetry traces (OTLP over HTTP, protobuf) to this collector base URL
    /// (`http://127.0.0.1:4318`; `/v1/traces` is appended): one span per request/response
    /// exchange, findings as span events. Also on with OTEL_EXPORTER_OTLP_ENDPOINT or
    /// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. No message bodies.
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// Give a request that carries no W3C `traceparent` in `params._meta` one (fresh ids,
    /// the id of the proxy's span for it) before forwarding it, so the server's spans continue
    /// the proxy's trace. Rewrites such requests (compact JSON); needs traces on.
    #[arg(long)]
    otlp_inject_traceparent: bool,
    /// Put each message's text (up to 16 KiB) on its span: tool arguments, results, prompts —
    /// whatever the peers sent goes to the collector. Off by default; needs traces on.
    #[arg(long)]
    otlp_include_bodies: bool,
    #[command(flatten)]
    http: HttpArgs,
    /// The server command and its arguments (after `--`).
    #[arg(last = true, required_unless_present = "listen", value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// The flags of the Streamable HTTP form.
#[derive(clap::Args)]
struct HttpArgs {
    /// Streamable HTTP: listen here (`127.0.0.1:0` picks a free port; the URL is printed
    /// on stdout as `listening on http://…`) and relay to --upstream.
    #[arg(long, value_name = "ADDR", requires = "upstream", conflicts_with = "command")]
    listen: Option<std::net::SocketAddr>,
    /// Streamable HTTP: the server's endpoint URL (`http://127.0.0.1:3000/mcp`).
    #[arg(long, value_name = "URL", requires = "listen")]
    upstream: Option<String>,
    /// Streamable HTTP: allow a --listen address that is not loopback.
    #[arg(long, requires = "listen")]
    allow_non_loopback: bool,
    /// Streamable HTTP: a host name clients may use in `Host` and `Origin` besides the
    /// loopback names (repeatable).
    #[arg(long, value_name = "HOST", requires = "listen")]
    allow_host: Vec<String>,
    /// Streamable HTTP: connections served at once (more wait in the listen backlog).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// Streamable HTTP: the largest request or response header section (431 / 502 past it),
    /// counted as sent (the request or status line, each header line with its CRLF).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_HEADER_BYTES)]
    max_header_bytes: usize,
    /// Streamable HTTP: how long a connection may take to send a request's headers (and stay
    /// idle between requests): `30s`, `500ms`, `2m`; a bare number is seconds.
    #[arg(long, value_name = "DURATION", default_value = HEADER_TIMEOUT, value_parser = seconds_or_duration)]
    header_timeout: Duration,
    /// Streamable HTTP: how long a request's body may take to arrive (408 past it): `30s`,
    /// `500ms`, `2m`; a bare number is seconds.
    #[arg(long, value_name = "DURATION", default_value = BODY_TIMEOUT, value_parser = seconds_or_duration)]
    body_timeout: Duration,
    /// Streamable HTTP: how long the upstream may take to answer with its headers (504):
    /// `60s`, `500ms`, `2m`; a bare number is seconds.
    #[arg(long, value_name = "DURATION", default_value = UPSTREAM_TIMEOUT, value_parser = seconds_or_duration)]
    upstream_timeout: Duration,
    /// Streamable HTTP: how long an upstream answer's body may send nothing (a JSON body then
    /// gets 504, a stream is ended and its connection closed): `300s`, `2m`; a bare number is
    /// seconds.
    #[arg(long, value_name = "DURATION", default_value = UPSTREAM_IDLE_TIMEOUT, value_parser = seconds_or_duration)]
    upstream_idle_timeout: Duration,
    /// Streamable HTTP: how long a client may take none of an answer's data (it reads
    /// nothing); then its connection is closed and its slot freed: `30s`, `500ms`.
    #[arg(long, value_name = "DURATION", default_value = WRITE_TIMEOUT, value_parser = seconds_or_duration)]
    write_timeout: Duration,
    /// Streamable HTTP: the largest upstream answer body (a larger Content-Length is 502, a
    /// stream past it is ended). Default 1 GiB.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_ANSWER_BYTES)]
    max_answer_bytes: u64,
}

/// The timeouts' defaults as `--help` shows them: [`HttpLimits::default`]'s (a test keeps them
/// equal).
const HEADER_TIMEOUT: &str = "30s";
const BODY_TIMEOUT: &str = "30s";
const UPSTREAM_TIMEOUT: &str = "60s";
const UPSTREAM_IDLE_TIMEOUT: &str = "300s";
const WRITE_TIMEOUT: &str = "30s";

pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let tools_baseline = args.tools_baseline.as_deref().map(crate::cmd::tools::load_baseline).transpose()?;
    let options = ConversationOptions::default().validation(args.check.options()?).tools_baseline(tools_baseline);
    let limits = Limits {
        max_message_bytes: args.max_message_bytes,
        max_queued_bytes: args.max_queued_bytes,
        max_repeats: args.max_repeats,
        max_sessions: args.max_sessions.get_or(DEFAULT_MAX_SESSIONS),
    };
    let (metrics, traces, inject) = observers(&args)?;
    let (fail_on, report, record, enforce) = (args.fail_on.fail_on, args.report, args.record, args.enforce);
    let pin = if args.enforce_tools_baseline { options.tools_baseline.clone() } else { None };
    let tool_gate = enforce.then(|| std::sync::Arc::new(crate::proxy::tool_gate::ToolGate::new(pin)));
    let HttpArgs { listen, upstream, .. } = &args.http;
    if let (Some(listen), Some(upstream)) = (*listen, upstream.clone()) {
        let http = HttpLimits {
            header_read_timeout: args.http.header_timeout,
            body_timeout: args.http.body_timeout,
            upstream_timeout: args.http.upstream_timeout,
            max_connections: args.http.max_connections,
            max_header_bytes: args.http.max_header_bytes,
            write_timeout: args.http.write_timeout,
            upstream_idle_timeout: args.http.upstream_idle_timeout,
            max_answer_bytes: args.http.max_answer_bytes,
        };
        return crate::proxy::http::run(HttpSettings {
            listen,
            upstream,
            allow_non_loopback: args.http.allow_non_loopback,
            allowed_hosts: args.http.allow_host,
            report,
            record,
            enforce,
            tool_gate,
            options,
            fail_on,
            limits,
            http,
            metrics,
            traces,
            inject,
        });
    }
    let command = args.command;
    crate::proxy::run(crate::proxy::Settings {
        report,
        record,
        enforce,
        tool_gate,
        command,
        options,
        fail_on,
        limits,
        metrics,
        traces,
        inject,
    })
}

/// `--metrics` (served from here on), `--otlp-endpoint` and `--otlp-inject-traceparent`.
type Observers = (
    Option<std::sync::Arc<crate::proxy::metrics::Metrics>>,
    Option<crate::proxy::traces::Tracing>,
    Option<std::sync::Arc<crate::proxy::inject::Injector>>,
);

fn observers(args: &Args) -> Result<Observers, UsageError> {
    let metrics = match args.metrics {
        Some(addr) => {
            let metrics = std::sync::Arc::new(crate::proxy::metrics::Metrics::new());
            let local = crate::proxy::metrics::serve(addr, args.metrics_allow_non_loopback, metrics.clone())?;
            // On stderr: stdout is the client's (stdio) or says where to connect (--listen).
            eprintln!("mcpgen proxy: metrics on http://{local}/metrics");
            Some(metrics)
        }
        None => None,
    };
    let mut traces = match crate::proxy::traces::endpoint(args.otlp_endpoint.as_deref())? {
        Some(url) => {
            let transport = if args.http.listen.is_some() { "tcp" } else { "pipe" };
            Some(crate::proxy::traces::Tracing::start(url, transport, metrics.clone())?)
        }
        None => None,
    };
    match (args.otlp_include_bodies, traces.as_mut()) {
        (true, Some(tracing)) => {
            tracing.include_bodies();
            eprintln!("mcpgen proxy: --otlp-include-bodies: message bodies (tool arguments, results, prompts) are exported to the collector");
        }
        (true, None) => {
            return Err(UsageError(
                "--otlp-include-bodies: traces are off; give --otlp-endpoint URL (or set OTEL_EXPORTER_OTLP_ENDPOINT)"
                    .into(),
            ))
        }
        (false, _) => {}
    }
    let inject = match (args.otlp_inject_traceparent, traces.as_mut()) {
        (false, _) => None,
        (true, Some(tracing)) => Some(tracing.inject_traceparent()),
        (true, None) => return Err(UsageError(
            "--otlp-inject-traceparent: traces are off; give --otlp-endpoint URL (or set OTEL_EXPORTER_OTLP_ENDPOINT)"
                .into(),
        )),
    };
    Ok((metrics, traces, inject))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeout_defaults_in_help_are_the_relays_defaults() {
        let defaults = HttpLimits::default();
        assert_eq!(seconds_or_duration(HEADER_TIMEOUT), Ok(defaults.header_read_timeout));
        assert_eq!(seconds_or_duration(BODY_TIMEOUT), Ok(defaults.body_timeout));
        assert_eq!(seconds_or_duration(UPSTREAM_TIMEOUT), Ok(defaults.upstream_timeout));
        assert_eq!(seconds_or_duration(UPSTREAM_IDLE_TIMEOUT), Ok(defaults.upstream_idle_timeout));
        assert_eq!(seconds_or_duration(WRITE_TIMEOUT), Ok(defaults.write_timeout));
    }
}
