//! Streamable HTTP at `/mcp` (axum on hyper): POST answers with JSON or an SSE stream, GET opens a
//! legacy session's stream, DELETE ends a legacy session. Every request first passes the
//! Host/Origin allow-list (DNS-rebinding protection: loopback names only; a repeated `Host` is
//! refused with 400), then the transport's media types: a POST must accept both
//! `application/json` and `text/event-stream` (406) and send `application/json` (415); a GET
//! must accept `text/event-stream` (406).
//!
//! The connections are served by hyper's HTTP/1 connection builder, with [`HttpLimits`]: a
//! cap on open connections (a semaphore taken before each accept: at the cap, new connections
//! wait in the listen backlog), a header-read timeout that hyper starts when a connection opens
//! and again whenever it falls idle after a response (so it is the keep-alive idle timeout
//! too), and a deadline for a POST's whole body (408).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures_util::stream::{self, Stream, StreamExt};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use super::wire::{self, EchoId, RpcError};
use super::write_timeout::WriteTimeout;
use super::{Frame, Incoming, Reply, Server};
use mcpgen::http::{HostRefusal, SESSION_ID as SESSION_HEADER};

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";

/// The default of [`HttpLimits::header_read_timeout`].
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`HttpLimits::body_timeout`].
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`HttpLimits::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// The default of [`HttpLimits::max_streams`]: half the connections, so that streams alone
/// never take every connection.
pub const DEFAULT_MAX_STREAMS: usize = DEFAULT_MAX_CONNECTIONS / 2;
/// The default of [`HttpLimits::write_timeout`].
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// What one HTTP peer can hold of the server: connections and the time they take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// A connection must deliver a request's whole header section within this time of opening,
    /// and of its previous response ending (hyper's `header_read_timeout`: the keep-alive idle
    /// timeout too); else hyper closes it.
    pub header_read_timeout: Duration,
    /// A POST's whole body must arrive within this time of its headers; else 408 and the
    /// connection is closed.
    pub body_timeout: Duration,
    /// Connections served at once; at the cap the server accepts no more until one closes
    /// (they wait in the kernel's listen backlog).
    pub max_connections: usize,
    /// Streams that last as long as the client wants (`subscriptions/listen`, a legacy
    /// session's GET stream) open at once; one more gets 503. Kept below
    /// [`HttpLimits::max_connections`] so that other clients still get a connection.
    pub max_streams: usize,
    /// A write to a connection that makes no progress for this long (the client stopped
    /// reading) fails, and the connection is closed, freeing its slot.
    pub write_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> HttpLimits {
        HttpLimits {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_streams: DEFAULT_MAX_STREAMS,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
        }
    }
}

#[derive(Clone)]
struct App {
    server: Arc<Server>,
    port: u16,
    body_timeout: Duration,
    /// [`HttpLimits::max_streams`]: a lasting stream holds one permit while it is open.
    streams: Arc<Semaphore>,
}

/// The axum router for `server`, answering for loopback names on `port` (with the default
/// limits).
pub fn router(server: Arc<Server>, port: u16) -> Router {
    router_with(server, port, &HttpLimits::default())
}

fn router_with(server: Arc<Server>, port: u16, limits: &HttpLimits) -> Router {
    let streams = Arc::new(Semaphore::new(limits.max_streams.max(1)));
    let app = App { server, port, body_timeout: limits.body_timeout, streams };
    Router::new().route("/mcp", post(post_mcp).get(get_mcp).delete(delete_mcp)).with_state(app)
}

/// Why the server cannot listen.
#[derive(Debug)]
pub enum ListenError {
    /// The address is not a loopback address (the allow-list admits loopback names only).
    NotLoopback(SocketAddr),
    Io(std::io::Error),
}

impl std::fmt::Display for ListenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListenError::NotLoopback(a) => {
                write!(f, "{a} is not a loopback address; this server listens on loopback only")
            }
            ListenError::Io(e) => write!(f, "{e}"),
        }
    }
}
impl std::error::Error for ListenError {}

/// Binds `addr` (loopback only) and returns the listener and the bound address (port 0 picks
/// a free port).
pub async fn bind(addr: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr), ListenError> {
    if !addr.ip().is_loopback() {
        return Err(ListenError::NotLoopback(addr));
    }
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(ListenError::Io)?;
    let local = listener.local_addr().map_err(ListenError::Io)?;
    Ok((listener, local))
}

/// Serves until the process ends, with the default [`HttpLimits`].
pub async fn serve(server: Arc<Server>, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    serve_with(server, listener, HttpLimits::default()).await
}

/// Serves until the process ends: one task per connection, at most
/// [`HttpLimits::max_connections`] at once, and a task that ends the legacy sessions idle
/// for longer than the server's [`TableLimits::session_idle_timeout`](super::session::TableLimits).
pub async fn serve_with(
    server: Arc<Server>,
    mut listener: tokio::net::TcpListener,
    limits: HttpLimits,
) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    spawn_session_sweeper(Arc::downgrade(&server), server.limits().session_idle_timeout);
    let app = router_with(server, port, &limits);
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
    loop {
        // Taken before accepting: at the cap, new connections wait in the listen backlog.
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else { return Ok(()) };
        // axum's accept: retries after transient errors (and waits a little after EMFILE).
        let (stream, _) = axum::serve::Listener::accept(&mut listener).await;
        let stream = WriteTimeout::new(stream, limits.write_timeout);
        let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        tokio::spawn(async move {
            // An error here is the peer's (gone, too slow, malformed): the connection is over.
            let _ = connection.await;
            drop(slot);
        });
    }
}

/// Ends idle legacy sessions, and drops expired tasks (stopping their jobs), every quarter of
/// the idle timeout (between 10 ms and 30 s), until the server is gone.
fn spawn_session_sweeper(server: Weak<Server>, idle: Duration) {
    let period = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(30));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(server) = server.upgrade() else { return };
            server.expire_idle_sessions();
            server.tasks().expire();
        }
    });
}

/// The refusals every method gets before anything else (DNS-rebinding protection,
/// [`mcpgen::http::HostPolicy`]): a repeated `Host` (400: which one would the allow-list
/// judge?), then a `Host` or `Origin` that is not a loopback name (403).
fn refuse_host(headers: &HeaderMap, port: u16) -> Option<Response> {
    let hosts: Vec<&str> = headers.get_all(header::HOST).iter().map(|h| h.to_str().unwrap_or("")).collect();
    let origins: Vec<Option<&str>> = headers.get_all(header::ORIGIN).iter().map(|o| o.to_str().ok()).collect();
    match mcpgen::http::HostPolicy::loopback(port).check(&hosts, &origins) {
        Ok(()) => None,
        Err(HostRefusal::RepeatedHost) => {
            Some((StatusCode::BAD_REQUEST, "Bad Request: more than one Host header").into_response())
        }
        Err(HostRefusal::NotAllowed) => {
            let text = "Forbidden: Host or Origin is not a loopback name (DNS-rebinding protection)";
            Some((StatusCode::FORBIDDEN, text).into_response())
        }
    }
}

/// Whether the `Accept` headers admit `media` (`type/subtype`): named as itself, as `type/*` or
/// as `*/*`, with a `q` other than 0. No `Accept` admits nothing here: the transport requires
/// clients to list what they take (HTTP-3; what a server does otherwise is its choice, AMB-23,
/// and this one refuses with 406 like the official SDKs).
fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let kind = media.split('/').next().unwrap_or(media);
    let ranges = headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(','));
    ranges.into_iter().any(|range| {
        let mut parts = range.split(';');
        let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let refused = parts
            .filter_map(|p| p.split_once('='))
            .any(|(k, v)| k.trim().eq_ignore_ascii_case("q") && v.trim().parse::<f32>().is_ok_and(|q| q <= 0.0));
        let named = name == media || name == "*/*" || name.strip_suffix("/*") == Some(kind);
        named && !refused
    })
}

/// Whether the request has exactly one `Content-Type`, `application/json` (any parameters).
fn sends_json(headers: &HeaderMap) -> bool {
    let mut types = headers.get_all(header::CONTENT_TYPE).iter();
    let (Some(t), None) = (types.next(), types.next()) else { return false };
    mcpgen::http::is_media(t.to_str().ok(), JSON)
}

fn not_acceptable(what: &'static str) -> Response {
    (StatusCode::NOT_ACCEPTABLE, what).into_response()
}

fn header_str(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

fn json_response(body: String, status: u16, session: Option<&str>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = (status, [(header::CONTENT_TYPE, JSON)], body).into_response();
    if let Some(sid) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        r.headers_mut().insert(SESSION_HEADER, sid);
    }
    r
}

async fn post_mcp(State(app): State<App>, request: Request) -> Response {
    let headers = request.headers().clone();
    if let Some(refusal) = refuse_host(&headers, app.port) {
        return refusal;
    }
    if !(accepts(&headers, JSON) && accepts(&headers, EVENT_STREAM)) {
        return not_acceptable("Not Acceptable: a POST must accept both application/json and text/event-stream");
    }
    if !sends_json(&headers) {
        let text = "Unsupported Media Type: the body must be one JSON-RPC message, Content-Type: application/json";
        return (StatusCode::UNSUPPORTED_MEDIA_TYPE, text).into_response();
    }
    // The whole body within the deadline (axum's `Bytes` keeps its size limit: 413).
    let body = match tokio::time::timeout(app.body_timeout, Bytes::from_request(request, &())).await {
        Ok(Ok(body)) => body,
        Ok(Err(rejection)) => return rejection.into_response(),
        Err(_) => {
            let text = format!("Request Timeout: the body did not arrive within {:?}", app.body_timeout);
            return (StatusCode::REQUEST_TIMEOUT, [(header::CONNECTION, "close")], text).into_response();
        }
    };
    let pairs =
        headers.iter().filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned()))).collect();
    let incoming = Incoming { session: header_str(&headers, SESSION_HEADER), http_headers: Some(pairs) };
    let parsed = wire::parse(&body);
    // A listen stream needs a stream slot, taken before the listener is opened; it is held
    // for as long as the stream is.
    let mut slot = None;
    if let Some(inbound) = parsed.as_ref().ok().filter(|p| p.method() == Some("subscriptions/listen")) {
        match Arc::clone(&app.streams).try_acquire_owned() {
            Ok(s) => slot = Some(s),
            Err(_) => return streams_full(inbound),
        }
    }
    let (reply, echo) = app.server.process_parsed(&body, parsed, &incoming);
    match reply {
        Reply::Accepted => StatusCode::ACCEPTED.into_response(),
        Reply::Immediate(v, status) => json_response(echo.render(&v), status, None),
        Reply::Stream { mut frames, session, lasting } => match frames.recv().await {
            Some(Frame::Final(v, status)) => json_response(echo.render(&v), status, session.as_deref()),
            Some(Frame::Message(first)) => sse_response(first, frames, echo, slot.filter(|_| lasting)),
            None => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        },
    }
}

/// A listen stream refused at [`HttpLimits::max_streams`]: -32603 with HTTP 503, and the
/// connection closed.
fn streams_full(request: &wire::Inbound) -> Response {
    let err = RpcError::new(-32603, "the server has as many open streams as it allows; try again later");
    let id = request.value.get("id").cloned().unwrap_or(serde_json::Value::Null);
    let mut r = json_response(request.echo.render(&super::error_response(Some(&id), &err)), 503, None);
    // Closed after the answer: a refused client must not keep the connection slot instead.
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

fn event(text: String) -> Result<Event, Infallible> {
    Ok(Event::default().event("message").data(text))
}

/// The frames as SSE events, ending after the final response. Read only as fast as hyper
/// writes them out: the queue behind it is bounded, so a client that does not read holds the
/// handler back instead of filling memory.
fn frames_stream(
    first: serde_json::Value,
    frames: mpsc::Receiver<Frame>,
    echo: EchoId,
) -> impl Stream<Item = Result<Event, Infallible>> {
    // A listen stream's frames carry its id too (`subscriptionId`): each is rendered by `echo`.
    let head = event(echo.render(&first));
    let rest = stream::unfold(Some((frames, echo)), |state| async move {
        let (mut rx, echo) = state?;
        match rx.recv().await? {
            Frame::Message(m) => Some((event(echo.render(&m)), Some((rx, echo)))),
            Frame::Final(v, _) => Some((event(echo.render(&v)), None)),
        }
    });
    stream::once(async move { head }).chain(rest)
}

/// `slot`: the stream slot a listen stream holds until it ends.
fn sse_response(
    first: serde_json::Value,
    frames: mpsc::Receiver<Frame>,
    echo: EchoId,
    slot: Option<OwnedSemaphorePermit>,
) -> Response {
    let stream = frames_stream(first, frames, echo).map(move |event| {
        let _held = &slot;
        event
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

async fn get_mcp(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(refusal) = refuse_host(&headers, app.port) {
        return refusal;
    }
    let Some(sid) = header_str(&headers, SESSION_HEADER) else {
        // The modern era has no GET stream (subscriptions/listen replaces it).
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "POST, DELETE")]).into_response();
    };
    if !accepts(&headers, EVENT_STREAM) {
        return not_acceptable("Not Acceptable: the GET stream is text/event-stream");
    }
    let Some(session) = app.server.session(&sid) else {
        return (StatusCode::NOT_FOUND, "Unknown or ended session").into_response();
    };
    // The session's standalone stream: this server sends nothing unprompted, so it only keeps
    // the connection alive. It holds the session (in use: not evicted, not expired) until the
    // client closes it or the session ends (DELETE), which ends the stream.
    let Ok(slot) = Arc::clone(&app.streams).try_acquire_owned() else {
        let text = "Service Unavailable: the server has as many open streams as it allows";
        return (StatusCode::SERVICE_UNAVAILABLE, [(header::CONNECTION, "close")], text).into_response();
    };
    let until_ended = stream::once(async move {
        session.closed().await;
        drop(slot);
    })
    .filter_map(|()| async { None::<Result<Event, Infallible>> });
    Sse::new(until_ended).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

async fn delete_mcp(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(refusal) = refuse_host(&headers, app.port) {
        return refusal;
    }
    match header_str(&headers, SESSION_HEADER) {
        None => (StatusCode::BAD_REQUEST, "Missing Mcp-Session-Id").into_response(),
        Some(sid) if app.server.end_session(&sid) => StatusCode::OK.into_response(),
        Some(_) => (StatusCode::NOT_FOUND, "Unknown or ended session").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            m.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        m
    }

    #[test]
    fn host_and_origin_allow_list_admits_loopback_names_only() {
        let allowed = |h: &HeaderMap, port| refuse_host(h, port).is_none();
        assert!(allowed(&h("127.0.0.1:8080", None), 8080));
        assert!(allowed(&h("localhost:8080", Some("http://localhost:3000")), 8080));
        assert!(allowed(&h("[::1]:8080", Some("http://[::1]")), 8080));
        assert!(!allowed(&h("evil.example.com", Some("http://evil.example.com")), 8080));
        assert!(!allowed(&h("127.0.0.1:8080", Some("http://evil.example.com")), 8080));
        assert!(!allowed(&h("localhost:9999", None), 8080));
        assert!(!allowed(&HeaderMap::new(), 8080));
        let status = |h: &HeaderMap| refuse_host(h, 8080).map(|r| r.status().as_u16());
        assert_eq!(status(&h("evil.example.com", None)), Some(403));
        let mut twice = h("127.0.0.1:8080", None);
        twice.append(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert_eq!(status(&twice), Some(400));
    }
}
