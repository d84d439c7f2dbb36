//! `mcpgen proxy --metrics ADDR`: Prometheus metrics of both proxies, served as the text
//! exposition format on `http://ADDR/metrics` (docs/observability.md lists them).
//!
//! What is counted and where:
//! - messages by kind, method and sender, responses by error class, tool calls by tool,
//!   findings by rule and level, `--enforce` refusals, and the request → response time: by the
//!   checker thread ([`Observer`]), after the message was relayed — never on the relay's path;
//! - the proxy's added time (a message read whole → written on): by the relays, two clock
//!   reads per message;
//! - the checker queue's bytes and messages, and every bound that was hit ([`Limit`]).
//!
//! Label values a peer chooses (method and tool names) are hostile: each label keeps at most
//! [`MAX_LABEL_VALUES`] distinct values, of at most [`MAX_LABEL_BYTES`] bytes and without
//! control characters; any other value is counted under `other` (and the overflow under
//! `mcpgen_proxy_limit_hits_total{limit="label_values"}`). No message body, id or session id
//! is exported.
//!
//! The server is a thread of its own with its own bounds: [`MAX_SCRAPE_CONNECTIONS`] at once,
//! one request per connection, header section at most 8 KiB, the whole exchange within
//! [`SCRAPE_TIMEOUT`]; on a loopback address `Host` and `Origin` must be loopback names
//! (DNS-rebinding protection, as `--listen`).

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use mcpgen::conversation::{Sender, Severity};
use mcpgen::http::{HostPolicy, HostRefusal};
use mcpgen::json::{Kind, Tape};
use mcpgen::JsonView;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use tokio::sync::Semaphore;

use crate::UsageError;

/// Distinct values one peer-chosen label keeps; later new values are `other`.
pub const MAX_LABEL_VALUES: usize = 256;
/// The longest peer-chosen label value kept; a longer one is `other`.
pub const MAX_LABEL_BYTES: usize = 128;
/// The label value of everything past the caps.
pub const OTHER: &str = "other";
/// Requests waiting for their response that the checker times at once (per proxy); past it a
/// request is counted but not timed.
pub const MAX_PENDING: usize = 4096;
/// Scrapes served at once; more wait in the listen backlog.
pub const MAX_SCRAPE_CONNECTIONS: usize = 8;
/// A scrape connection's whole life: request in, exposition out.
pub const SCRAPE_TIMEOUT: Duration = Duration::from_secs(10);
/// Header section of a scrape request (hyper's smallest read buffer).
const MAX_SCRAPE_HEADER_BYTES: usize = 8192;

/// A bound of the proxy that was reached: `mcpgen_proxy_limit_hits_total{limit}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A message longer than `--max-message-bytes`: relayed unchecked (stdio, HTTP answers).
    MaxMessageBytes,
    /// A request body longer than `--max-message-bytes`: 413 (HTTP).
    RequestTooLarge,
    /// `--max-queued-bytes` full: a relay waited for the checker.
    MaxQueuedBytes,
    /// `--max-sessions` passed: the least recently used conversation was forgotten.
    MaxSessions,
    /// A request's body took longer than `--body-timeout`: 408.
    BodyTimeout,
    /// The upstream answered no headers within `--upstream-timeout`: 504.
    UpstreamTimeout,
    /// A header section longer than `--max-header-bytes` (431, or 502 for the upstream's).
    MaxHeaderBytes,
    /// A peer-chosen label value was replaced by `other`.
    LabelValues,
    /// More than [`MAX_PENDING`] requests waiting: one was not timed.
    PendingRequests,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::MaxMessageBytes => "max_message_bytes",
            Limit::RequestTooLarge => "request_too_large",
            Limit::MaxQueuedBytes => "max_queued_bytes",
            Limit::MaxSessions => "max_sessions",
            Limit::BodyTimeout => "body_timeout",
            Limit::UpstreamTimeout => "upstream_timeout",
            Limit::MaxHeaderBytes => "max_header_bytes",
            Limit::LabelValues => "label_values",
            Limit::PendingRequests => "pending_requests",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByMethod {
    from: &'static str,
    method: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByResponse {
    from: &'static str,
    method: String,
    class: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByTool {
    tool: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByFinding {
    rule: &'static str,
    level: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByRule {
    rule: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByFrom {
    from: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByLimit {
    limit: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByNote {
    what: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByMethodOnly {
    method: String,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// One label's values as a peer chose them, capped.
struct LabelValues {
    seen: Mutex<HashSet<String>>,
}

impl LabelValues {
    fn new() -> LabelValues {
        LabelValues { seen: Mutex::new(HashSet::new()) }
    }

    /// `value` itself while it is known or there is room for it; else [`OTHER`].
    fn get(&self, value: &str) -> Result<String, ()> {
        if value == OTHER {
            return Ok(OTHER.to_owned());
        }
        if value.len() > MAX_LABEL_BYTES || value.chars().any(char::is_control) {
            return Err(());
        }
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.contains(value) {
            return Ok(value.to_owned());
        }
        if seen.len() < MAX_LABEL_VALUES {
            seen.insert(value.to_owned());
            return Ok(value.to_owned());
        }
        Err(())
    }
}

/// The proxy's metrics, shared by the relays, the checker and the metrics server.
pub struct Metrics {
    registry: Registry,
    requests: Family<ByMethod, Counter>,
    notifications: Family<ByMethod, Counter>,
    responses: Family<ByResponse, Counter>,
    unparsable: Family<ByFrom, Counter>,
    tool_calls: Family<ByTool, Counter>,
    findings: Family<ByFinding, Counter>,
    refused: Family<ByRule, Counter>,
    limit_hits: Family<ByLimit, Counter>,
    transport_notes: Family<ByNote, Counter>,
    request_seconds: Histograms<ByMethodOnly>,
    upstream_seconds: Histogram,
    added_seconds: Histograms<ByFrom>,
    queued_bytes: Gauge,
    queued_messages: Gauge,
    spans_dropped: Counter,
    methods: LabelValues,
    tools: LabelValues,
}

fn request_histogram() -> Histogram {
    // 100 µs … 13 s.
    Histogram::new(exponential_buckets(0.0001, 2.0, 18))
}

fn added_histogram() -> Histogram {
    // 5 µs … 0.16 s.
    Histogram::new(exponential_buckets(0.000_005, 2.0, 16))
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("mcpgen_proxy");
        let m = Metrics {
            requests: Family::default(),
            notifications: Family::default(),
            responses: Family::default(),
            unparsable: Family::default(),
            tool_calls: Family::default(),
            findings: Family::default(),
            refused: Family::default(),
            limit_hits: Family::default(),
            transport_notes: Family::default(),
            request_seconds: Family::new_with_constructor(request_histogram),
            upstream_seconds: request_histogram(),
            added_seconds: Family::new_with_constructor(added_histogram),
            queued_bytes: Gauge::default(),
            queued_messages: Gauge::default(),
            spans_dropped: Counter::default(),
            methods: LabelValues::new(),
            tools: LabelValues::new(),
            registry: Registry::default(),
        };
        registry.register("requests", "JSON-RPC requests relayed, by sender and method", m.requests.clone());
        registry.register(
            "notifications",
            "JSON-RPC notifications relayed, by sender and method",
            m.notifications.clone(),
        );
        registry.register(
            "responses",
            "JSON-RPC responses relayed, by sender, the method of their request and class (ok, or the error code's class)",
            m.responses.clone(),
        );
        registry.register("unparsable", "Messages that are not JSON-RPC objects, by sender", m.unparsable.clone());
        registry.register("tool_calls", "tools/call requests, by tool name", m.tool_calls.clone());
        registry.register("findings", "Findings of the checker, by rule and level", m.findings.clone());
        registry.register("refused", "Requests --enforce answered instead of forwarding, by rule", m.refused.clone());
        registry.register("limit_hits", "Bounds of the proxy that were reached, by bound", m.limit_hits.clone());
        registry.register(
            "transport_notes",
            "Transport trouble noted (a stalled upstream, a client that reads nothing), by kind",
            m.transport_notes.clone(),
        );
        registry.register(
            "request_duration_seconds",
            "From a request handed to the checker to its response handed to the checker, by method",
            m.request_seconds.clone(),
        );
        registry.register(
            "upstream_seconds",
            "Streamable HTTP: from a request sent upstream to the upstream's answer headers",
            m.upstream_seconds.clone(),
        );
        registry.register(
            "added_seconds",
            "Time a message spent in the proxy (read whole, checked over, written on), by sender",
            m.added_seconds.clone(),
        );
        registry.register("queued_bytes", "Bytes of messages waiting for the checker", m.queued_bytes.clone());
        registry.register("queued_messages", "Messages waiting for the checker", m.queued_messages.clone());
        registry.register(
            "spans_dropped",
            "Trace spans not exported (--otlp-endpoint): the queue was full, or the collector did not take them",
            m.spans_dropped.clone(),
        );
        Metrics { registry, ..m }
    }

    /// The text exposition format (version 0.0.4).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String does not fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }

    pub fn limit_hit(&self, limit: Limit) {
        self.limit_hits.get_or_create(&ByLimit { limit: limit.as_str() }).inc();
    }

    pub fn transport_note(&self, what: &'static str) {
        self.transport_notes.get_or_create(&ByNote { what }).inc();
    }

    pub fn finding(&self, rule: Option<&'static str>, level: Severity) {
        self.findings.get_or_create(&ByFinding { rule: rule.unwrap_or("none"), level: level.as_str() }).inc();
    }

    pub fn refused(&self, rule: &'static str) {
        self.refused.get_or_create(&ByRule { rule }).inc();
    }

    /// The checker's queue now: bytes and messages waiting.
    pub fn queue(&self, bytes: usize, messages: usize) {
        self.queued_bytes.set(i64::try_from(bytes).unwrap_or(i64::MAX));
        self.queued_messages.set(i64::try_from(messages).unwrap_or(i64::MAX));
    }

    /// A message went through a relay in `spent`.
    pub fn added(&self, from: Sender, spent: Duration) {
        self.added_seconds.get_or_create(&ByFrom { from: from.as_str() }).observe(spent.as_secs_f64());
    }

    /// `--otlp-endpoint`: spans that will not reach the collector.
    pub fn spans_dropped(&self, n: u64) {
        self.spans_dropped.inc_by(n);
    }

    pub fn upstream(&self, spent: Duration) {
        self.upstream_seconds.observe(spent.as_secs_f64());
    }

    fn method(&self, name: &str) -> String {
        self.methods.get(name).unwrap_or_else(|()| {
            self.limit_hit(Limit::LabelValues);
            OTHER.to_owned()
        })
    }

    fn tool(&self, name: &str) -> String {
        self.tools.get(name).unwrap_or_else(|()| {
            self.limit_hit(Limit::LabelValues);
            OTHER.to_owned()
        })
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// The class of a JSON-RPC error code (JSON-RPC 2.0 §5.1).
fn error_class(code: Option<f64>) -> &'static str {
    let Some(code) = code.filter(|c| c.fract() == 0.0) else { return "invalid" };
    match code as i64 {
        -32700 => "parse_error",
        -32600 => "invalid_request",
        -32601 => "method_not_found",
        -32602 => "invalid_params",
        -32603 => "internal_error",
        -32099..=-32000 => "server_error",
        -32768..=-32000 => "reserved",
        _ => "application",
    }
}

/// The checker thread's side of the metrics: it classifies each message after it was relayed
/// and times requests to their responses (by scope, sender and id).
pub struct Observer {
    metrics: Arc<Metrics>,
    /// (scope, requester, id as JSON) → (method label, handed over at).
    pending: HashMap<(String, Sender, String), (String, Instant)>,
}

impl Observer {
    pub fn new(metrics: Arc<Metrics>) -> Observer {
        Observer { metrics, pending: HashMap::new() }
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// One message (without its line end) as handed over at `at`; `scope` names its
    /// conversation (a session, or an HTTP exchange), so that ids are matched within it.
    pub fn message(&mut self, from: Sender, text: &[u8], scope: &str, at: Instant) {
        let Ok(tape) = Tape::parse_bytes(text) else {
            self.metrics.unparsable.get_or_create(&ByFrom { from: from.as_str() }).inc();
            return;
        };
        let root = tape.root();
        match root.kind() {
            Kind::Object => self.one(from, &root, scope, at),
            // A batch (2025-03-26): each member. The message is at most --max-message-bytes.
            Kind::Array => {
                for item in root.items() {
                    self.one(from, &item, scope, at);
                }
            }
            _ => {
                self.metrics.unparsable.get_or_create(&ByFrom { from: from.as_str() }).inc();
            }
        }
    }

    fn one<'v, V: JsonView<'v>>(&mut self, from: Sender, m: &V, scope: &str, at: Instant) {
        let metrics = Arc::clone(&self.metrics);
        if m.kind() != Kind::Object {
            metrics.unparsable.get_or_create(&ByFrom { from: from.as_str() }).inc();
            return;
        }
        let id = m.get("id").filter(|id| matches!(id.kind(), Kind::String | Kind::Number));
        let method = m.get("method").and_then(|v| v.as_str());
        match (method, id) {
            (Some(method), Some(id)) => {
                let label = metrics.method(&method);
                metrics.requests.get_or_create(&ByMethod { from: from.as_str(), method: label.clone() }).inc();
                if method == "tools/call" {
                    if let Some(tool) = m.get("params").and_then(|p| p.get("name")).and_then(|n| n.as_str()) {
                        metrics.tool_calls.get_or_create(&ByTool { tool: metrics.tool(&tool) }).inc();
                    }
                }
                let key = (scope.to_owned(), from, id.to_value().to_json_string());
                if self.pending.len() < MAX_PENDING || self.pending.contains_key(&key) {
                    self.pending.insert(key, (label, at));
                } else {
                    metrics.limit_hit(Limit::PendingRequests);
                }
            }
            (Some(method), None) => {
                let label = metrics.method(&method);
                metrics.notifications.get_or_create(&ByMethod { from: from.as_str(), method: label }).inc();
            }
            (None, id) => {
                let class = match m.get("error") {
                    Some(e) => error_class(e.get("code").and_then(|c| c.as_f64())),
                    None if m.get("result").is_some() => "ok",
                    None => "invalid",
                };
                let asked = id.and_then(|id| {
                    self.pending.remove(&(scope.to_owned(), from.peer(), id.to_value().to_json_string()))
                });
                let method = match asked {
                    Some((method, asked_at)) => {
                        let label = ByMethodOnly { method: method.clone() };
                        metrics.request_seconds.get_or_create(&label).observe((at - asked_at).as_secs_f64());
                        method
                    }
                    None => "unknown".to_owned(),
                };
                metrics.responses.get_or_create(&ByResponse { from: from.as_str(), method, class }).inc();
            }
        }
    }
}

/// Starts the metrics server on `addr` (a thread of its own, for the life of the process) and
/// returns the bound address. Refuses an address that is not loopback unless
/// `allow_non_loopback`.
pub fn serve(addr: SocketAddr, allow_non_loopback: bool, metrics: Arc<Metrics>) -> Result<SocketAddr, UsageError> {
    if !addr.ip().is_loopback() && !allow_non_loopback {
        return Err(UsageError(format!(
            "--metrics {addr}: not a loopback address; add --metrics-allow-non-loopback to serve metrics there"
        )));
    }
    let listener = std::net::TcpListener::bind(addr)
        .map_err(|e| UsageError(format!("--metrics: cannot listen on {addr}: {e}")))?;
    let local = listener.local_addr().map_err(|e| UsageError(format!("--metrics: cannot listen: {e}")))?;
    listener.set_nonblocking(true).map_err(|e| UsageError(format!("--metrics: {e}")))?;
    // On a loopback address, only loopback names (a page elsewhere cannot read it through
    // DNS rebinding); on an address given explicitly, any name.
    let hosts = local.ip().is_loopback().then(|| HostPolicy::with_names(local.port(), Vec::new()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| UsageError(format!("--metrics: cannot start the runtime: {e}")))?;
    std::thread::Builder::new()
        .name("mcpgen-proxy-metrics".into())
        .spawn(move || {
            runtime.block_on(async move {
                if let Ok(listener) = tokio::net::TcpListener::from_std(listener) {
                    accept(listener, Arc::new(Scrape { metrics, hosts })).await;
                }
            });
        })
        .map_err(|e| UsageError(format!("cannot start a thread: {e}")))?;
    Ok(local)
}

struct Scrape {
    metrics: Arc<Metrics>,
    hosts: Option<HostPolicy>,
}

async fn accept(listener: tokio::net::TcpListener, scrape: Arc<Scrape>) {
    let slots = Arc::new(Semaphore::new(MAX_SCRAPE_CONNECTIONS));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .keep_alive(false)
        .header_read_timeout(SCRAPE_TIMEOUT)
        .max_buf_size(MAX_SCRAPE_HEADER_BYTES);
    while let Some((stream, slot)) = super::accept::accept_within(&listener, &slots).await {
        let scrape = Arc::clone(&scrape);
        let service = hyper::service::service_fn(move |request| {
            let scrape = Arc::clone(&scrape);
            async move { Ok::<_, Infallible>(answer(&scrape, &request)) }
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(SCRAPE_TIMEOUT, connection).await;
            drop(slot);
        });
    }
}

fn text(status: StatusCode, body: String, content_type: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

fn answer<B>(scrape: &Scrape, request: &Request<B>) -> Response<Full<Bytes>> {
    const PLAIN: &str = "text/plain; charset=utf-8";
    if let Some(policy) = &scrape.hosts {
        let headers = request.headers();
        let hosts: Vec<&str> = headers.get_all(header::HOST).iter().map(|h| h.to_str().unwrap_or("")).collect();
        let origins: Vec<Option<&str>> = headers.get_all(header::ORIGIN).iter().map(|o| o.to_str().ok()).collect();
        match policy.check(&hosts, &origins) {
            Ok(()) => {}
            Err(HostRefusal::RepeatedHost) => {
                return text(StatusCode::BAD_REQUEST, "Bad Request: more than one Host header\n".into(), PLAIN)
            }
            Err(HostRefusal::NotAllowed) => {
                let why = "Forbidden: Host or Origin is not a loopback name (DNS-rebinding protection)\n";
                return text(StatusCode::FORBIDDEN, why.into(), PLAIN);
            }
        }
    }
    if request.uri().path() != "/metrics" {
        return text(StatusCode::NOT_FOUND, "Not Found: the metrics are at /metrics\n".into(), PLAIN);
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed: GET /metrics\n".into(), PLAIN);
        r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    text(StatusCode::OK, scrape.metrics.encode(), prometheus_client::encoding::prometheus_text::CONTENT_TYPE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observe(o: &mut Observer, from: Sender, text: &str) {
        o.message(from, text.as_bytes(), "", Instant::now());
    }

    fn line_of<'t>(exposition: &'t str, start: &str) -> Option<&'t str> {
        exposition.lines().find(|l| l.starts_with(start))
    }

    #[test]
    fn peer_chosen_method_names_keep_at_most_the_cap_then_other() {
        let metrics = Arc::new(Metrics::new());
        let mut o = Observer::new(Arc::clone(&metrics));
        for i in 0..MAX_LABEL_VALUES + 44 {
            observe(&mut o, Sender::Client, &format!(r#"{{"jsonrpc":"2.0","method":"m{i}"}}"#));
        }
        let text = metrics.encode();
        let series = text.lines().filter(|l| l.starts_with("mcpgen_proxy_notifications_total{")).count();
        // 256 names of their own and `other`.
        assert_eq!(series, 257, "{text}");
        assert_eq!(
            line_of(&text, r#"mcpgen_proxy_notifications_total{from="client",method="other"}"#),
            Some(r#"mcpgen_proxy_notifications_total{from="client",method="other"} 44"#)
        );
        assert_eq!(
            line_of(&text, r#"mcpgen_proxy_limit_hits_total{limit="label_values"}"#),
            Some(r#"mcpgen_proxy_limit_hits_total{limit="label_values"} 44"#)
        );
        // A name seen before the cap keeps its own series.
        observe(&mut o, Sender::Client, r#"{"jsonrpc":"2.0","method":"m7"}"#);
        let text = metrics.encode();
        assert!(text.contains("mcpgen_proxy_notifications_total{from=\"client\",method=\"m7\"} 2\n"), "{text}");
    }

    #[test]
    fn long_names_and_control_characters_are_other_and_quotes_are_escaped() {
        let metrics = Arc::new(Metrics::new());
        let mut o = Observer::new(Arc::clone(&metrics));
        let long = "x".repeat(MAX_LABEL_BYTES + 1);
        observe(&mut o, Sender::Client, &format!(r#"{{"jsonrpc":"2.0","method":"{long}"}}"#));
        observe(&mut o, Sender::Client, r#"{"jsonrpc":"2.0","method":"a\nb"}"#);
        observe(&mut o, Sender::Client, r#"{"jsonrpc":"2.0","method":"a\"} 9 b"}"#);
        let text = metrics.encode();
        assert!(text.contains("mcpgen_proxy_notifications_total{from=\"client\",method=\"other\"} 2\n"), "{text}");
        assert!(!text.contains(&long), "{text}");
        // The quote of a name is escaped: one line, one series.
        assert!(text.contains(r#"method="a\"} 9 b"} 1"#), "{text}");
    }

    #[test]
    fn requests_responses_tools_and_durations_are_counted_by_method_and_class() {
        let metrics = Arc::new(Metrics::new());
        let mut o = Observer::new(Arc::clone(&metrics));
        observe(&mut o, Sender::Client, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#);
        observe(&mut o, Sender::Client, r#"{"jsonrpc":"2.0","id":"b","method":"ping"}"#);
        observe(&mut o, Sender::Server, r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#);
        observe(&mut o, Sender::Server, r#"{"jsonrpc":"2.0","id":"b","result":{}}"#);
        // An answer to nothing asked, and a request of the server's.
        observe(&mut o, Sender::Server, r#"{"jsonrpc":"2.0","id":9,"result":{}}"#);
        observe(&mut o, Sender::Server, r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#);
        observe(&mut o, Sender::Client, "{broken");
        let text = metrics.encode();
        for want in [
            r#"mcpgen_proxy_requests_total{from="client",method="tools/call"} 1"#,
            r#"mcpgen_proxy_requests_total{from="client",method="ping"} 1"#,
            r#"mcpgen_proxy_requests_total{from="server",method="roots/list"} 1"#,
            r#"mcpgen_proxy_responses_total{from="server",method="tools/call",class="invalid_params"} 1"#,
            r#"mcpgen_proxy_responses_total{from="server",method="ping",class="ok"} 1"#,
            r#"mcpgen_proxy_responses_total{from="server",method="unknown",class="ok"} 1"#,
            r#"mcpgen_proxy_tool_calls_total{tool="add"} 1"#,
            r#"mcpgen_proxy_unparsable_total{from="client"} 1"#,
            r#"mcpgen_proxy_request_duration_seconds_count{method="ping"} 1"#,
            r#"mcpgen_proxy_request_duration_seconds_count{method="tools/call"} 1"#,
        ] {
            assert!(text.lines().any(|l| l == want), "missing {want}:\n{text}");
        }
        // The server's pending request is not answered by the client's id 1 of before.
        assert_eq!(o.pending.len(), 1);
    }

    #[test]
    fn error_codes_fall_in_their_json_rpc_classes() {
        assert_eq!(error_class(Some(-32700.0)), "parse_error");
        assert_eq!(error_class(Some(-32601.0)), "method_not_found");
        assert_eq!(error_class(Some(-32002.0)), "server_error");
        assert_eq!(error_class(Some(-32500.0)), "reserved");
        assert_eq!(error_class(Some(-1.0)), "application");
        assert_eq!(error_class(Some(1.5)), "invalid");
        assert_eq!(error_class(None), "invalid");
    }

    #[test]
    fn pending_requests_past_the_cap_are_counted_not_timed() {
        let metrics = Arc::new(Metrics::new());
        let mut o = Observer::new(Arc::clone(&metrics));
        for i in 0..MAX_PENDING + 3 {
            observe(&mut o, Sender::Client, &format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#));
        }
        assert_eq!(o.pending.len(), MAX_PENDING);
        let text = metrics.encode();
        assert!(text.contains("mcpgen_proxy_limit_hits_total{limit=\"pending_requests\"} 3\n"), "{text}");
    }
}
