//! `mcpgen proxy --listen ADDR --upstream URL`: a checking reverse proxy for the Streamable
//! HTTP transport.
//!
//! Every request is relayed to the upstream unchanged — method, path, query, body byte for
//! byte, headers except the hop-by-hop ones (RFC 9110 §7.6.1: `Connection` and those it names,
//! `Keep-Alive`, `Transfer-Encoding`, `TE`, `Trailer`, `Upgrade`, `Proxy-*`), `Host` rewritten to
//! the upstream and `Accept-Encoding` dropped (so that bodies arrive readable) — and so is the
//! answer: status, headers, and the body, a JSON body whole, an SSE stream chunk by chunk as it
//! arrives (each event's bytes unchanged, `id`/`retry` and a client's `Last-Event-ID` intact).
//!
//! Each message is handed to the shared checker ([`crate::checker`]) before it is passed on:
//! a POST body (with its headers) as a client message, a JSON body or each SSE event's data as
//! a server message (the first with the response's status and `Content-Type`). Messages of a
//! legacy session (`Mcp-Session-Id`) form that session's conversation; a legacy `initialize`
//! joins the session its response opens; everything else is the conversation of the requests
//! outside a session.
//!
//! `--enforce`: a POST outside a session that [`check_http_headers`] or [`check_request`]
//! refuses is answered with the refusal's JSON-RPC error and HTTP status, and the upstream never
//! sees it; so is a `tools/call` the tool gate refuses ([`super::tool_gate`], in or outside a
//! session).
//!
//! Bounds ([`HttpLimits`], and the checker's [`Limits`]): connections served at once (at the
//! cap new ones wait in the listen backlog), the size of a request's header section (hyper
//! answers 431) and of an upstream answer's, the time to deliver a request's headers (and the
//! keep-alive idle time) and body (408), the time the upstream may take to answer (504), the
//! size of a request body (413); a response body or an SSE event longer than
//! `--max-message-bytes` is relayed unchecked and reported once (POLICY-SIZE).

use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use mcpgen::conversation::{ConversationOptions, HttpFacts, Sender};
use mcpgen::http::is_media;
use mcpgen::json::{Kind, Tape};
use mcpgen::protocol::{check_http_headers, check_request, ServerConfig};
use mcpgen::JsonView;
use tokio::sync::Semaphore;

mod body;
mod head;
mod hosts;

use self::body::{relay_events, relay_whole, ProxyBody};
use self::hosts::AllowedHosts;
use super::metrics::Limit;
use crate::checker::{header_pairs, CheckerSettings, CheckerThread, Http, Limits, ToChecker};
use crate::UsageError;
use mcpgen::http::SESSION_ID as SESSION;

/// The default of [`HttpLimits::header_read_timeout`] (`--header-timeout`).
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`HttpLimits::body_timeout`] (`--body-timeout`).
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`HttpLimits::upstream_timeout`] (`--upstream-timeout`).
pub const DEFAULT_UPSTREAM_TIMEOUT: Duration = Duration::from_secs(60);
/// The default of [`HttpLimits::max_connections`] (`--max-connections`).
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// The default of [`HttpLimits::max_header_bytes`] (`--max-header-bytes`).
pub const DEFAULT_MAX_HEADER_BYTES: usize = 64 * 1024;
/// The default of [`HttpLimits::write_timeout`] (`--write-timeout`).
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`HttpLimits::upstream_idle_timeout`] (`--upstream-idle-timeout`).
pub const DEFAULT_UPSTREAM_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// The default of [`HttpLimits::max_answer_bytes`] (`--max-answer-bytes`): 1 GiB.
pub const DEFAULT_MAX_ANSWER_BYTES: u64 = 1 << 30;

/// What one HTTP peer can make the proxy hold, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// A connection must deliver a request's whole header section within this time of
    /// opening, and of its previous response ending (so it is the keep-alive idle timeout too);
    /// else it is closed.
    pub header_read_timeout: Duration,
    /// A request's whole body must arrive within this time of its headers; else 408 and the
    /// connection is closed.
    pub body_timeout: Duration,
    /// The upstream must answer (its status and headers) within this time; else 504. A body,
    /// an SSE stream in particular, may take as long as it takes.
    pub upstream_timeout: Duration,
    /// Client connections served at once; at the cap no more are accepted until one closes.
    pub max_connections: usize,
    /// The largest header section read, from a client (else 431) or from the upstream
    /// (else 502), counted as sent: the request (status) line and each `name: value` line
    /// with its CRLF, and the blank line. At least 8 KiB.
    pub max_header_bytes: usize,
    /// A client that takes none of an answer's queued chunks for this long is not reading:
    /// its connection is closed and its slot freed.
    pub write_timeout: Duration,
    /// An upstream answer's body that sends nothing for this long is given up: a JSON body
    /// not yet passed on gets 504, a stream is ended and its connection closed.
    pub upstream_idle_timeout: Duration,
    /// The largest upstream answer body: a larger `Content-Length` is 502, a stream that
    /// passes it is ended and its connection closed.
    pub max_answer_bytes: u64,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            upstream_timeout: DEFAULT_UPSTREAM_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            upstream_idle_timeout: DEFAULT_UPSTREAM_IDLE_TIMEOUT,
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
        }
    }
}

pub struct HttpSettings {
    pub listen: SocketAddr,
    pub upstream: String,
    /// Listening on an address that is not loopback was asked for explicitly.
    pub allow_non_loopback: bool,
    /// Host names (with or without `:port`) admitted in `Host` and `Origin` besides the
    /// loopback names.
    pub allowed_hosts: Vec<String>,
    pub report: Option<PathBuf>,
    pub record: Option<PathBuf>,
    pub enforce: bool,
    /// `--enforce`'s tool gate (calls judged against the listed tools, and the pin).
    pub tool_gate: Option<Arc<super::tool_gate::ToolGate>>,
    pub options: ConversationOptions,
    pub fail_on: Option<crate::FailOn>,
    pub limits: Limits,
    pub http: HttpLimits,
    /// `--metrics`: counted by the checker and the relay, served elsewhere.
    pub metrics: Option<Arc<super::metrics::Metrics>>,
    /// `--otlp-endpoint`: spans made by the checker.
    pub traces: Option<super::traces::Tracing>,
    /// `--otlp-inject-traceparent`: requests without trace context get one before forwarding.
    pub inject: Option<Arc<super::inject::Injector>>,
}

type Upstream = Client<HttpConnector, Full<Bytes>>;

/// The proxy's shared state.
struct Proxy {
    /// `http://host:port` of the upstream.
    origin: String,
    /// The `Host` the upstream is sent.
    authority: HeaderValue,
    client: Upstream,
    checker: ToChecker,
    enforce: bool,
    tool_gate: Option<Arc<super::tool_gate::ToolGate>>,
    config: ServerConfig,
    limits: Limits,
    http: HttpLimits,
    hosts: AllowedHosts,
    /// The number of the next exchange outside a session ([`HttpFacts::exchange`]).
    exchanges: std::sync::atomic::AtomicU64,
    metrics: Option<Arc<super::metrics::Metrics>>,
    inject: Option<Arc<super::inject::Injector>>,
}

/// The bound address and the path of the upstream URL: where clients go.
fn listen_url(local: SocketAddr, path: &str) -> String {
    format!("http://{local}{path}")
}

pub fn run(settings: HttpSettings) -> Result<ExitCode, UsageError> {
    let uri: Uri = settings
        .upstream
        .parse()
        .map_err(|e| UsageError(format!("--upstream {}: not a URL: {e}", settings.upstream)))?;
    if uri.scheme_str() != Some("http") {
        return Err(UsageError(format!("--upstream {}: give an http:// URL", settings.upstream)));
    }
    let Some(authority) = uri.authority().cloned() else {
        return Err(UsageError(format!("--upstream {}: the URL names no host", settings.upstream)));
    };
    if !settings.listen.ip().is_loopback() && !settings.allow_non_loopback {
        return Err(UsageError(format!(
            "--listen {}: not a loopback address; add --allow-non-loopback to listen there (and --allow-host for the names clients use)",
            settings.listen
        )));
    }
    let limits = settings.limits;
    let (report, record) = (settings.report.as_deref(), settings.record.as_deref());
    let (options, metrics, traces) = (settings.options.clone(), settings.metrics.clone(), settings.traces);
    let checker = CheckerThread::start(CheckerSettings { report, record, options, limits, metrics, traces })?;

    // One thread relays, one checks. A second relaying thread made the proxy slower, not
    // faster: the wake-ups between two workers cost more than the relaying they share (`cargo
    // xtask bench`, on two cores: 101 µs added at 1 client with two workers, 40 µs with one).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .thread_name("mcpgen-proxy-http")
        .enable_all()
        .build()
        .map_err(|e| UsageError(format!("cannot start the runtime: {e}")))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(settings.listen))
        .map_err(|e| UsageError(format!("cannot listen on {}: {e}", settings.listen)))?;
    let local = listener.local_addr().map_err(|e| UsageError(format!("cannot listen: {e}")))?;

    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector.set_connect_timeout(Some(settings.http.upstream_timeout));
    let client = {
        let _guard = runtime.enter();
        Client::builder(TokioExecutor::new())
            .http1_max_buf_size(head::buffer_for(settings.http.max_header_bytes))
            .pool_timer(TokioTimer::new())
            .timer(TokioTimer::new())
            .build(connector)
    };
    let proxy = Arc::new(Proxy {
        origin: format!("http://{authority}"),
        authority: HeaderValue::from_str(authority.as_str())
            .map_err(|e| UsageError(format!("--upstream {}: {e}", settings.upstream)))?,
        client,
        checker: checker.sender(),
        enforce: settings.enforce,
        tool_gate: settings.tool_gate.clone(),
        config: super::enforce_config(),
        limits,
        http: settings.http,
        hosts: AllowedHosts(mcpgen::http::HostPolicy::with_names(local.port(), settings.allowed_hosts.clone())),
        exchanges: std::sync::atomic::AtomicU64::new(1),
        metrics: settings.metrics.clone(),
        inject: settings.inject.clone(),
    });

    println!("listening on {}", listen_url(local, uri.path()));
    let _ = std::io::stdout().flush();
    runtime.block_on(async {
        tokio::select! {
            () = serve(Arc::clone(&proxy), listener) => {}
            () = stop_signal() => {}
        }
    });
    // Connections still open are dropped with the runtime; what they handed over is checked.
    drop(proxy);
    runtime.shutdown_timeout(Duration::from_millis(100));
    let tally = checker.finish();
    Ok(tally.fail_exit(settings.fail_on).unwrap_or(ExitCode::SUCCESS))
}

/// SIGINT, or (Unix) SIGTERM: the proxy stops.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Accepts connections, at most [`HttpLimits::max_connections`] at once.
async fn serve(proxy: Arc<Proxy>, listener: tokio::net::TcpListener) {
    let slots = Arc::new(Semaphore::new(proxy.http.max_connections.max(1)));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(proxy.http.header_read_timeout)
        .max_buf_size(head::buffer_for(proxy.http.max_header_bytes));
    while let Some((stream, slot)) = super::accept::accept_within(&listener, &slots).await {
        let _ = stream.set_nodelay(true);
        let proxy = Arc::clone(&proxy);
        // A relay that gives up on its client or upstream closes the whole connection.
        let close = Arc::new(tokio::sync::Notify::new());
        let closer = Arc::clone(&close);
        let service = hyper::service::service_fn(move |request| {
            let (proxy, close) = (Arc::clone(&proxy), Arc::clone(&closer));
            async move { Ok::<_, Infallible>(handle(proxy, close, request).await) }
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            // An error here is the peer's (gone, too slow, malformed): the connection is over.
            tokio::select! {
                _ = connection => {}
                () = close.notified() => {}
            }
            drop(slot);
        });
    }
}

fn text_response(status: StatusCode, text: String, close: bool) -> Response<ProxyBody> {
    let mut r = Response::new(ProxyBody::Whole(Some(Bytes::from(text))));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    if close {
        r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    r
}

/// Hop-by-hop headers ([`mcpgen::http::is_hop_by_hop`]: RFC 9110 §7.6.1 and the names the
/// `Connection` header lists) and those the proxy sets itself (`Content-Length`, `Host`).
fn is_hop_by_hop(name: &HeaderName, connection: &[&str]) -> bool {
    matches!(name.as_str(), "content-length" | "host") || mcpgen::http::is_hop_by_hop(name.as_str(), connection)
}

/// The end-to-end headers of `from`.
fn end_to_end(from: &HeaderMap, also_drop: &[HeaderName]) -> HeaderMap {
    let connection: Vec<&str> = from.get_all(header::CONNECTION).iter().filter_map(|v| v.to_str().ok()).collect();
    let mut out = HeaderMap::with_capacity(from.len());
    for (k, v) in from {
        if !is_hop_by_hop(k, &connection) && !also_drop.contains(k) {
            out.append(k.clone(), v.clone());
        }
    }
    out
}

fn session_of(headers: &HeaderMap) -> Option<Arc<str>> {
    headers.get(SESSION).map(|v| Arc::from(String::from_utf8_lossy(v.as_bytes()).as_ref()))
}

fn content_type(headers: &HeaderMap) -> Option<String> {
    headers.get(header::CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// A legacy `initialize` (a request without the modern `_meta`): it joins the session its
/// response opens.
fn is_legacy_initialize(body: &[u8]) -> bool {
    // Most bodies are not one: the substring test spares them a parse.
    body.windows(b"initialize".len()).any(|w| w == b"initialize")
        && Tape::parse_bytes(body).is_ok_and(|t| {
            let root = t.root();
            root.kind() == Kind::Object
                && root.get("method").is_some_and(|m| m.str_eq("initialize"))
                && root.get("id").is_some()
        })
}

impl Proxy {
    /// Hands a message to the checker; when the checker's budget is full, waits for room
    /// (backpressure: the relaying thread, and so every peer, waits until the checker catches
    /// up; the checker is a thread of its own, so it always does).
    fn check(&self, from: Sender, text: Bytes, session: Option<Arc<str>>, http: Option<Http>, refused: Refusal) {
        if let (Sender::Server, Some(gate)) = (from, &self.tool_gate) {
            // Before the answer is passed on: the client calls only tools the gate has seen.
            gate.server(session.as_ref(), &text);
        }
        self.checker.message_in(from, text, refused, session, http);
    }

    fn too_large(&self, from: Sender) {
        self.checker.too_large(from);
    }

    /// Sends a request upstream and waits (at most `--upstream-timeout`) for its answer's
    /// headers; else the 502 or 504 to answer with. `started`: when the proxy began with the
    /// request (`--metrics`: its added time, and the upstream's).
    async fn send(
        &self,
        upstream: Request<Full<Bytes>>,
        started: Option<std::time::Instant>,
    ) -> Result<Response<Incoming>, Response<ProxyBody>> {
        let sent = started.map(|started| {
            if let Some(m) = &self.metrics {
                m.added(Sender::Client, started.elapsed());
            }
            std::time::Instant::now()
        });
        match tokio::time::timeout(self.http.upstream_timeout, self.client.request(upstream)).await {
            Ok(Ok(answer)) => {
                if let (Some(m), Some(sent)) = (&self.metrics, sent) {
                    m.upstream(sent.elapsed());
                }
                Ok(answer)
            }
            Ok(Err(e)) => {
                Err(text_response(StatusCode::BAD_GATEWAY, format!("Bad Gateway: mcpgen proxy: upstream: {e}"), false))
            }
            Err(_) => {
                self.limit_hit(Limit::UpstreamTimeout);
                let text = format!(
                    "Gateway Timeout: mcpgen proxy: the upstream did not answer within {:?}",
                    self.http.upstream_timeout
                );
                Err(text_response(StatusCode::GATEWAY_TIMEOUT, text, false))
            }
        }
    }

    /// `--metrics`: a bound was reached.
    fn limit_hit(&self, limit: Limit) {
        if let Some(m) = &self.metrics {
            m.limit_hit(limit);
        }
    }
}

type Refusal = Option<(&'static str, String)>;

/// The HTTP facts of an answer's messages: `first` goes with the first (a POST's status and
/// `Content-Type`), and every message carries its `exchange`.
struct Facts {
    first: Option<HttpFacts>,
    exchange: Option<u64>,
    /// The answer is a POST's: a body that is no stream is a message. A GET's or DELETE's
    /// (a 405 with a JSON-RPC error in it) answers no JSON-RPC message and is not checked.
    post: bool,
}

impl Facts {
    /// The facts of the next message.
    fn next(&mut self) -> Option<HttpFacts> {
        let exchange = self.exchange;
        self.first.take().or_else(|| exchange.map(|e| HttpFacts { exchange: Some(e), ..HttpFacts::default() }))
    }
}

/// Reads a body whole, at most `max` bytes.
async fn read_capped(mut body: Incoming, max: usize) -> Result<Bytes, ReadError> {
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| ReadError::Broken)?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > max {
                return Err(ReadError::TooLarge);
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(out))
}

enum ReadError {
    TooLarge,
    Broken,
}

/// A request's body, read whole within `--body-timeout` and `--max-message-bytes`; else the
/// refusal to answer with (the connection is closed).
async fn read_body(proxy: &Proxy, body: Incoming) -> Result<Bytes, Response<ProxyBody>> {
    let max = proxy.limits.max_message_bytes;
    match tokio::time::timeout(proxy.http.body_timeout, read_capped(body, max)).await {
        Ok(Ok(body)) => Ok(body),
        Ok(Err(ReadError::TooLarge)) => {
            proxy.limit_hit(Limit::RequestTooLarge);
            let text =
                format!("Payload Too Large: the body is longer than {max} bytes (mcpgen proxy --max-message-bytes)");
            Err(text_response(StatusCode::PAYLOAD_TOO_LARGE, text, true))
        }
        Ok(Err(ReadError::Broken)) => {
            Err(text_response(StatusCode::BAD_REQUEST, "Bad Request: the body could not be read".into(), true))
        }
        Err(_) => {
            proxy.limit_hit(Limit::BodyTimeout);
            let text = format!("Request Timeout: the body did not arrive within {:?}", proxy.http.body_timeout);
            Err(text_response(StatusCode::REQUEST_TIMEOUT, text, true))
        }
    }
}

/// `--enforce`: the answer to a POST outside a session that the header or request checks
/// refuse (both messages handed to the checker), or `None` to forward it.
fn enforce(proxy: &Proxy, body: &Bytes, headers: &HeaderMap, client_facts: Http) -> Option<Response<ProxyBody>> {
    let headers = header_pairs(headers);
    let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    let e = check_http_headers(pairs, body).err().or_else(|| check_request(body, &proxy.config).err())?;
    let answer = Bytes::from(e.to_response_json());
    let status = StatusCode::from_u16(e.http_status).unwrap_or(StatusCode::BAD_REQUEST);
    Some(answer_here(proxy, body, None, client_facts, Some((e.rule, e.message.clone())), answer, status))
}

/// `--enforce`'s tool gate refused a `tools/call`: its answer (HTTP 200, as an answer about a
/// request's params is), both messages handed to the checker.
fn tool_refusal(
    proxy: &Proxy,
    body: &Bytes,
    session: Option<Arc<str>>,
    client_facts: Http,
    refusal: super::tool_gate::Refusal,
) -> Response<ProxyBody> {
    let refused = Some((refusal.rule, refusal.message));
    answer_here(proxy, body, session, client_facts, refused, Bytes::from(refusal.response), StatusCode::OK)
}

/// A request the proxy answers itself with the JSON `answer` at `status`: the request (with
/// why it was refused) and the answer handed to the checker as one exchange.
fn answer_here(
    proxy: &Proxy,
    body: &Bytes,
    session: Option<Arc<str>>,
    client_facts: Http,
    refused: Refusal,
    answer: Bytes,
    status: StatusCode,
) -> Response<ProxyBody> {
    let exchange = client_facts.facts.exchange;
    proxy.check(Sender::Client, body.clone(), session.clone(), Some(client_facts), refused);
    let facts = HttpFacts {
        status: Some(status.as_u16()),
        content_type: Some("application/json".into()),
        exchange,
        ..HttpFacts::default()
    };
    proxy.check(Sender::Server, answer.clone(), session, Some(facts.into()), None);
    let mut r = Response::new(ProxyBody::Whole(Some(answer)));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// `--otlp-inject-traceparent`: the POST's body with a `traceparent` added where the request
/// had none (its `Content-Length` then goes: the client sets the new one), else as it came.
fn injected(proxy: &Proxy, headers: &mut HeaderMap, body: Bytes) -> Bytes {
    match proxy.inject.as_ref().and_then(|i| i.inject(&body)) {
        Some(injected) => {
            headers.remove(header::CONTENT_LENGTH);
            Bytes::from(injected)
        }
        None => body,
    }
}

/// The request to the upstream: the client's method, target, end-to-end headers (without
/// `Accept-Encoding`: the checker reads the answer) and `body`; `None` for an unusable target.
fn upstream_request(proxy: &Proxy, parts: &hyper::http::request::Parts, body: Bytes) -> Option<Request<Full<Bytes>>> {
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut upstream = Request::new(Full::new(body));
    *upstream.method_mut() = parts.method.clone();
    *upstream.uri_mut() = format!("{}{path}", proxy.origin).parse().ok()?;
    *upstream.headers_mut() = end_to_end(&parts.headers, &[header::ACCEPT_ENCODING]);
    upstream.headers_mut().insert(header::HOST, proxy.authority.clone());
    Some(upstream)
}

/// Relays one request to the upstream and its answer back, each message checked on the way
/// (see the module documentation), or answers it here with a refusal.
async fn handle(proxy: Arc<Proxy>, close: Arc<tokio::sync::Notify>, request: Request<Incoming>) -> Response<ProxyBody> {
    if let Some(refusal) = head::refuse_request(&request, proxy.http.max_header_bytes) {
        proxy.limit_hit(Limit::MaxHeaderBytes);
        return refusal;
    }
    if let Some(refusal) = proxy.hosts.refuse(request.headers()) {
        return refusal;
    }
    let (mut parts, body) = request.into_parts();
    let body = match read_body(&proxy, body).await {
        Ok(body) => body,
        Err(refusal) => return refusal,
    };
    // `--metrics`: the request's share of the proxy's time runs from here to the upstream.
    let started = proxy.metrics.as_ref().map(|_| std::time::Instant::now());
    let route = Route::of(&proxy, &parts, &body);
    if let Some(refusal) = refuse_here(&proxy, &route, &body) {
        return refusal;
    }
    // `--otlp-inject-traceparent`: what the upstream gets, and so what is checked.
    let body = if route.post { injected(&proxy, &mut parts.headers, body) } else { body };
    if route.post && !route.deferred {
        proxy.check(Sender::Client, body.clone(), route.session.clone(), Some(route.client_facts()), None);
    }
    let Some(upstream) = upstream_request(&proxy, &parts, body.clone()) else {
        return text_response(StatusCode::BAD_REQUEST, "Bad Request: unusable request target".into(), false);
    };
    let answer = match proxy.send(upstream, started).await {
        Ok(answer) => answer,
        Err(refusal) => {
            if route.deferred {
                proxy.check(Sender::Client, body, None, Some(route.client_facts()), None);
            }
            return refusal;
        }
    };
    relay_answer(proxy, close, route, body, answer).await
}

/// What a request is to the checker: whose conversation it joins, and whether it is a message.
struct Route {
    /// The request's legacy session (`Mcp-Session-Id`).
    session: Option<Arc<str>>,
    /// A POST with a body: a client message.
    post: bool,
    /// A legacy `initialize` outside a session: checked once its response names the session.
    deferred: bool,
    /// Its exchange outside a session ([`HttpFacts::exchange`]).
    exchange: Option<u64>,
    /// A POST's headers, which go with its message (as pairs on the checker thread).
    headers: Option<Arc<HeaderMap>>,
}

impl Route {
    /// The route of a request with this head and `body` (an exchange outside a session takes
    /// the proxy's next number).
    #[inline]
    fn of(proxy: &Proxy, parts: &hyper::http::request::Parts, body: &Bytes) -> Route {
        let session = session_of(&parts.headers);
        let post = parts.method == Method::POST && !body.is_empty();
        let deferred = post && session.is_none() && is_legacy_initialize(body);
        // Outside a session, each request and its answer are an exchange of their own: another
        // POST may come from another client, with ids of its own.
        let exchange = (session.is_none() && !deferred)
            .then(|| proxy.exchanges.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let headers = post.then(|| Arc::new(parts.headers.clone()));
        Route { session, post, deferred, exchange, headers }
    }

    /// The HTTP facts of the request's message: its headers and its exchange.
    #[inline]
    fn client_facts(&self) -> Http {
        let facts = HttpFacts { exchange: self.exchange, ..HttpFacts::default() };
        Http { facts, request_headers: self.headers.clone() }
    }
}

/// `--enforce`: the proxy's own answer to a request the checks ([`enforce`]) or the tool gate
/// ([`tool_refusal`]) refuse, or `None` to forward it.
#[inline]
fn refuse_here(proxy: &Proxy, route: &Route, body: &Bytes) -> Option<Response<ProxyBody>> {
    if proxy.enforce && route.post && route.session.is_none() {
        let none = HeaderMap::new();
        let headers = route.headers.as_deref().unwrap_or(&none);
        if let Some(refusal) = enforce(proxy, body, headers, route.client_facts()) {
            return Some(refusal);
        }
    }
    let gate = proxy.tool_gate.as_ref().filter(|_| route.post && !route.deferred)?;
    let refusal = gate.client(route.session.as_ref(), body)?;
    Some(tool_refusal(proxy, body, route.session.clone(), route.client_facts(), refusal))
}

/// The upstream's `answer` relayed to the client: a deferred `initialize` checked in the
/// session the answer opens, the answer's head bounded, its body relayed (a stream event by
/// event) with each message checked.
#[inline]
async fn relay_answer(
    proxy: Arc<Proxy>,
    close: Arc<tokio::sync::Notify>,
    route: Route,
    body: Bytes,
    answer: Response<Incoming>,
) -> Response<ProxyBody> {
    let (mut answer_parts, answer_body) = answer.into_parts();
    let key = route.session.clone().or_else(|| session_of(&answer_parts.headers));
    if route.deferred {
        if let Some(gate) = &proxy.tool_gate {
            // The `initialize` of the session its answer opens: the gate reads the revision.
            gate.client(key.as_ref(), &body);
        }
        proxy.check(Sender::Client, body, key.clone(), Some(route.client_facts()), None);
    }
    if let Some(refusal) = head::refuse_answer(&proxy, &answer_parts) {
        proxy.limit_hit(Limit::MaxHeaderBytes);
        return refusal;
    }
    let ct = content_type(&answer_parts.headers);
    let (post, exchange) = (route.post, route.exchange);
    // The status and Content-Type go with the first message of a POST's answer.
    let facts = Facts {
        first: post.then(|| HttpFacts {
            status: Some(answer_parts.status.as_u16()),
            content_type: ct.clone(),
            exchange,
            ..HttpFacts::default()
        }),
        exchange,
        post,
    };
    answer_parts.headers = end_to_end(&answer_parts.headers, &[]);
    let body = if is_media(ct.as_deref(), "text/event-stream") {
        relay_events(Arc::clone(&proxy), close, answer_body, key, facts)
    } else {
        match relay_whole(&proxy, close, answer_body, key, facts, ct.as_deref()).await {
            Ok(body) => body,
            Err(refusal) => return refusal,
        }
    };
    Response::from_parts(answer_parts, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_are_dropped() {
        let mut m = HeaderMap::new();
        m.insert(header::CONNECTION, HeaderValue::from_static("keep-alive, X-Trace"));
        m.insert("x-trace", HeaderValue::from_static("1"));
        m.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        m.insert(header::TRANSFER_ENCODING, HeaderValue::from_static("chunked"));
        m.insert("mcp-session-id", HeaderValue::from_static("abc"));
        m.insert("last-event-id", HeaderValue::from_static("7"));
        m.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        let out = end_to_end(&m, &[header::ACCEPT_ENCODING]);
        let names: Vec<&str> = out.keys().map(HeaderName::as_str).collect();
        assert_eq!(names, ["mcp-session-id", "last-event-id"]);
    }

    #[test]
    fn only_a_legacy_initialize_request_waits_for_its_session() {
        assert!(is_legacy_initialize(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#));
        assert!(!is_legacy_initialize(br#"{"jsonrpc":"2.0","method":"initialize"}"#));
        assert!(!is_legacy_initialize(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#));
        assert!(!is_legacy_initialize(b"{broken"));
    }
}
