//! `mcpgen-reference-client`: an MCP client over Streamable HTTP that speaks both eras and
//! checks everything it receives with mcpgen. The conformance suite drives it with
//! `conformance client --command mcpgen-reference-client`: the scenario comes in
//! `MCP_CONFORMANCE_SCENARIO`, the version to speak in `MCP_CONFORMANCE_PROTOCOL_VERSION`,
//! scenario data in `MCP_CONFORMANCE_CONTEXT`.
//!
//! The request path: [`era::start_for`] picks `initialize` or per-request `_meta`;
//! [`session::Session`] builds each message, sends it with the headers mcpgen derives from the
//! body ([`mcpgen::http`]), reads the JSON or SSE answer ([`sse`]), answers what the server
//! asks ([`input`], [`mrtr`]), and hands every message to [`check::SelfCheck`] (mcpgen's
//! conversation checker and `check_response`).

pub mod check;
pub mod era;
pub mod input;
pub mod mrtr;
pub mod scenarios;
pub mod session;
pub mod sse;
pub mod transport;

use std::time::Duration;

use serde_json::Value;

/// What went wrong for the client.
#[derive(Debug)]
pub enum ClientError {
    BadUrl(String),
    Http(reqwest::Error),
    /// An HTTP status the exchange did not allow, with the body.
    Status {
        status: u16,
        body: String,
    },
    Sse(String),
    /// The server's JSON-RPC error.
    Remote {
        code: i64,
        message: String,
        /// The error's `data` (a -32021's `requiredCapabilities`, …).
        data: Option<Value>,
    },
    /// A response stream ended without the response, after this many reconnections.
    StreamEnded {
        id: i64,
        reconnects: usize,
    },
    /// The server speaks only these versions, none of which this client can use.
    NoCommonVersion(Vec<String>),
    /// `server/discover` was refused the way a legacy server refuses (ERA-5).
    LegacyServer,
    Version(era::UnknownVersion),
    Header(mcpgen::http::ParamHeaderError),
    Protocol(String),
    Scenario(String),
    /// A wait passed its limit ([`Limits`]).
    Timeout {
        phase: Phase,
        after: Duration,
    },
    /// A response body or SSE event passed `max_message_bytes`.
    TooLarge {
        what: &'static str,
        limit: usize,
    },
}

/// Which wait timed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Connecting to the server (`--connect-timeout`).
    Connect,
    /// Waiting for the server's next bytes (`--read-timeout`).
    Read,
    /// The whole run (`--timeout`).
    Run,
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::BadUrl(u) => write!(f, "bad server URL {u}"),
            ClientError::Http(e) => write!(f, "HTTP: {e}"),
            ClientError::Status { status, body } => write!(f, "HTTP {status}: {body}"),
            ClientError::Sse(e) => write!(f, "SSE: {e}"),
            ClientError::Remote { code, message, .. } => write!(f, "the server answered error {code}: {message}"),
            ClientError::StreamEnded { id, reconnects } => {
                write!(f, "the stream of request {id} ended without its response ({reconnects} reconnections)")
            }
            ClientError::NoCommonVersion(v) => {
                write!(f, "no protocol version in common (the server speaks {})", v.join(", "))
            }
            ClientError::LegacyServer => write!(f, "the server is legacy"),
            ClientError::Version(e) => e.fmt(f),
            ClientError::Header(e) => e.fmt(f),
            ClientError::Protocol(m) | ClientError::Scenario(m) => f.write_str(m),
            ClientError::Timeout { phase, after } => {
                let s = after.as_secs_f64();
                match phase {
                    Phase::Connect => {
                        write!(f, "timed out: could not connect to the server within {s} s (--connect-timeout)")
                    }
                    Phase::Read => write!(f, "timed out: the server sent nothing for {s} s (--read-timeout)"),
                    Phase::Run => write!(f, "timed out: the run did not finish within {s} s (--timeout); gave up"),
                }
            }
            ClientError::TooLarge { what, limit } => {
                write!(f, "{what} from the server exceeds {limit} bytes (--max-message-bytes); refused")
            }
        }
    }
}
impl std::error::Error for ClientError {}

/// What the client waits for and accepts at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connecting to the server (TCP).
    pub connect_timeout: Duration,
    /// The longest the server may stay silent: from a request until its answer's headers, and
    /// between the bytes of a body or SSE stream. (An idle standalone stream of a legacy
    /// session is reopened instead of failing.)
    pub read_timeout: Duration,
    /// The whole run: connect, scenario, close.
    pub timeout: Duration,
    /// The largest JSON (or other) response body and SSE event, in bytes.
    pub max_message_bytes: usize,
    /// Finding lines printed on stderr per second at most; the others are counted and the
    /// count printed with the next line.
    pub max_log_lines_per_second: u32,
}

pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            read_timeout: DEFAULT_READ_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_log_lines_per_second: crate::log::DEFAULT_LINES_PER_SECOND,
        }
    }
}

/// One run of the client.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub url: String,
    /// `MCP_CONFORMANCE_SCENARIO`.
    pub scenario: Option<String>,
    /// `MCP_CONFORMANCE_PROTOCOL_VERSION` (default: the newest revision).
    pub protocol_version: Option<String>,
    /// `MCP_CONFORMANCE_CONTEXT`, parsed.
    pub context: Option<Value>,
    pub limits: Limits,
}

/// How one operation of a run went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpStatus {
    /// Answered with a result.
    Ok,
    /// A tool answered with `isError: true`: an answer, but not a success.
    ToolError,
    /// Not attempted, with the reason in the detail.
    Skipped,
    /// The request failed (the peer's JSON-RPC error, a transport or protocol failure).
    Failed,
}

impl OpStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OpStatus::Ok => "ok",
            OpStatus::ToolError => "tool_error",
            OpStatus::Skipped => "skipped",
            OpStatus::Failed => "failed",
        }
    }
}

/// One thing the client did (a method, and the tool, prompt or resource it was about).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub method: String,
    pub target: Option<String>,
    pub status: OpStatus,
    pub detail: String,
}

impl Operation {
    /// The report line (`MCPGEN_CLIENT_REPORT`): one JSON object.
    pub fn to_json(&self) -> Value {
        serde_json::json!({"op": self.method, "target": self.target, "status": self.status.as_str(), "detail": self.detail})
    }
}

/// How a run ended.
#[derive(Debug)]
pub struct Outcome {
    /// Calls that failed, in order.
    pub errors: Vec<ClientError>,
    /// Self-check findings on what was sent and received (the first
    /// [`check::MAX_FINDINGS`]).
    pub findings: Vec<String>,
    /// Every self-check finding, kept or not.
    pub finding_count: u64,
    /// Every operation, in order, with how it went.
    pub operations: Vec<Operation>,
}

/// Connects, runs the scenario, closes — within `config.limits.timeout`.
pub async fn run(config: &Config) -> Result<Outcome, ClientError> {
    let after = config.limits.timeout;
    tokio::time::timeout(after, run_unbounded(config))
        .await
        .unwrap_or(Err(ClientError::Timeout { phase: Phase::Run, after }))
}

async fn run_unbounded(config: &Config) -> Result<Outcome, ClientError> {
    if let Some(reason) = config.scenario.as_deref().and_then(scenarios::not_attempted) {
        return Err(ClientError::Scenario(format!(
            "scenario {:?} not attempted: {reason}",
            config.scenario.as_deref().unwrap_or("")
        )));
    }
    let start = era::start_for(config.protocol_version.as_deref()).map_err(ClientError::Version)?;
    let check = check::SelfCheck::new().with_lines_per_second(config.limits.max_log_lines_per_second);
    let mut session = session::Session::connect_with(&config.url, start, check, config.limits).await?;
    let connected = match session.era() {
        session::SessionEra::Legacy(r) => format!("legacy session, {r}"),
        session::SessionEra::Modern(r) => format!("modern, {r}"),
    };
    let mut report = scenarios::Report::default();
    report.push("connect", None, OpStatus::Ok, connected);
    scenarios::run(&mut session, config.scenario.as_deref(), config.context.as_ref(), &mut report).await;
    let check = session.close().await;
    check.finish();
    report.push("close", None, OpStatus::Ok, String::new());
    Ok(Outcome {
        errors: report.errors,
        findings: check.findings().to_vec(),
        finding_count: check.finding_count(),
        operations: report.operations,
    })
}
