//! [`HttpPeer`], the probe's Streamable HTTP client (cargo feature `http`; `mcpgen probe URL`). Each message is a POST
//! with the headers the transport prescribes — `Content-Type: application/json`,
//! `Accept: application/json, text/event-stream`, `MCP-Protocol-Version` (a modern request's
//! `_meta` revision, or the revision a legacy session agreed on; none on `initialize`), for a
//! modern request `Mcp-Method` and `Mcp-Name` (`mcpgen::http::standard_headers`), and in a
//! legacy session its `Mcp-Session-Id` — unless the engine asks for them changed
//! ([`HeaderEdit`]). The answer is a JSON body (one message) or an event stream, read event by
//! event up to the response with the request's id (the server's requests and notifications on
//! the stream before it are kept). A legacy session is ended with a DELETE when the peer is
//! dropped.
//!
//! Bounded ([`HttpLimits`]): one exchange (connect, headers, body) within `timeout`; a body, or
//! the bytes of one event stream, at most `max_body_bytes`; at most `max_events` events and
//! `max_messages` messages kept while waiting for one response. Past any of them the exchange
//! fails with a typed [`PeerError`] (an MSG-11 finding of the probe) and the stream is dropped.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Method, Request, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use mcpgen::http::is_media;
use mcpgen::http::sse::{SseEvent, SseSplitter};
use serde_json::Value;

use crate::{modern_revision, Carried, Connect, HeaderEdit, Peer, PeerError};
use mcpgen::http::{PROTOCOL_VERSION, SESSION_ID as SESSION};

/// `--max-body-bytes`: a response body, or one event stream, at most this long.
pub const DEFAULT_MAX_BODY_BYTES: usize = 16 << 20;
/// `--max-events`: events read from one response's stream at most.
pub const DEFAULT_MAX_EVENTS: usize = 4096;
/// `--max-messages`: messages kept while waiting for one response (the stdio peer's cap too).
pub const DEFAULT_MAX_MESSAGES: usize = 1024;

/// What one HTTP server can make the probe hold, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    pub timeout: Duration,
    pub max_body_bytes: usize,
    pub max_events: usize,
    pub max_messages: usize,
}

/// Why [`HttpTarget::new`] refused a URL or could not start.
#[derive(Debug)]
pub enum TargetError {
    /// The text is not a URL.
    NotUrl { url: String, why: String },
    /// A scheme other than `http` (https is not supported yet).
    NotHttp { url: String },
    /// The URL names no host.
    NoHost { url: String },
    /// The tokio runtime the client runs on could not start.
    Runtime(std::io::Error),
    /// A header given to [`HttpTarget::with_headers`] is not a valid HTTP header.
    BadHeader { header: String, why: String },
    /// [`HttpTarget::with_headers`] after a peer was opened.
    InUse,
}

impl std::fmt::Display for TargetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetError::NotUrl { url, why } => write!(f, "{url}: not a URL: {why}"),
            TargetError::NotHttp { url } => write!(f, "{url}: give an http:// URL (https is not supported yet)"),
            TargetError::NoHost { url } => write!(f, "{url}: the URL names no host"),
            TargetError::Runtime(e) => write!(f, "cannot start the runtime: {e}"),
            TargetError::BadHeader { header, why } => write!(f, "header {header}: {why}"),
            TargetError::InUse => f.write_str("headers are set before the first peer is opened"),
        }
    }
}

impl std::error::Error for TargetError {}

/// The server at one URL: opens [`HttpPeer`]s (each a client without a session).
pub struct HttpTarget {
    shared: Arc<Shared>,
}

struct Shared {
    runtime: tokio::runtime::Runtime,
    client: Client<HttpConnector, Full<Bytes>>,
    url: Uri,
    limits: HttpLimits,
    /// Sent with every request ([`HttpTarget::with_headers`]), never recorded.
    extra: Vec<(HeaderName, HeaderValue)>,
}

impl HttpTarget {
    /// `url` must be an `http://` URL naming a host.
    pub fn new(url: &str, limits: HttpLimits) -> Result<HttpTarget, TargetError> {
        let uri: Uri = url.parse().map_err(|e| TargetError::NotUrl { url: url.to_owned(), why: format!("{e}") })?;
        if uri.scheme_str() != Some("http") {
            return Err(TargetError::NotHttp { url: url.to_owned() });
        }
        if uri.authority().is_none() {
            return Err(TargetError::NoHost { url: url.to_owned() });
        }
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(TargetError::Runtime)?;
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(limits.timeout));
        let client = {
            let _guard = runtime.enter();
            Client::builder(TokioExecutor::new())
                .pool_timer(TokioTimer::new())
                .timer(TokioTimer::new())
                .build(connector)
        };
        Ok(HttpTarget { shared: Arc::new(Shared { runtime, client, url: uri, limits, extra: Vec::new() }) })
    }

    /// Sends `headers` (name, value) with every request besides the transport's own — an
    /// `Authorization` for a server that requires one. They are not part of [`Carried`], so
    /// neither the conversation checker nor a record sees them (a token stays out of files).
    /// Call before the first [`HttpTarget::peer`].
    pub fn with_headers(mut self, headers: &[(String, String)]) -> Result<HttpTarget, TargetError> {
        let mut extra = Vec::with_capacity(headers.len());
        for (k, v) in headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|e| TargetError::BadHeader { header: k.clone(), why: e.to_string() })?;
            let value = HeaderValue::from_str(v)
                .map_err(|e| TargetError::BadHeader { header: k.clone(), why: e.to_string() })?;
            extra.push((name, value));
        }
        let shared = Arc::get_mut(&mut self.shared).ok_or(TargetError::InUse)?;
        shared.extra = extra;
        Ok(self)
    }

    pub fn peer(&self) -> HttpPeer {
        HttpPeer { shared: Arc::clone(&self.shared), session: None, legacy_version: None, last: None }
    }
}

impl Connect for HttpTarget {
    fn connect(&mut self) -> Result<Box<dyn Peer>, PeerError> {
        Ok(Box::new(self.peer()))
    }
}

/// One client of the server: stateless for the modern era, one legacy session once an
/// `initialize` is answered with an `Mcp-Session-Id`.
pub struct HttpPeer {
    shared: Arc<Shared>,
    session: Option<String>,
    /// The revision a legacy `initialize` agreed on: the `MCP-Protocol-Version` from then on.
    legacy_version: Option<String>,
    last: Option<Carried>,
}

/// The headers the transport prescribes for `body`.
fn headers_for(body: &Value, session: Option<&str>, legacy_version: Option<&str>) -> Vec<(String, String)> {
    let mut h = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
    ];
    let method = body.get("method").and_then(Value::as_str);
    match (legacy_version, method) {
        (Some(v), _) => h.push(("MCP-Protocol-Version".to_owned(), v.to_owned())),
        (None, Some("initialize")) | (None, None) => {}
        (None, Some(method)) => {
            let version = body
                .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or(modern_revision());
            h.push(("MCP-Protocol-Version".to_owned(), version.to_owned()));
            h.extend(mcpgen::http::standard_headers(method, body.get("params")));
        }
    }
    if let Some(s) = session {
        h.push(("Mcp-Session-Id".to_owned(), s.to_owned()));
    }
    h
}

/// `headers` with `edits` applied (names compare case-insensitively).
fn edited(mut headers: Vec<(String, String)>, edits: &[HeaderEdit]) -> Vec<(String, String)> {
    for e in edits {
        match e {
            HeaderEdit::Remove(name) => headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name)),
            HeaderEdit::Set(name, value) => match headers.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(name)) {
                Some(slot) => slot.1.clone_from(value),
                None => headers.push((name.clone(), value.clone())),
            },
        }
    }
    headers
}

/// Whether `bytes` is the response to the request with `id` (by value: `7` answers `"7"`,
/// and the engine judges the type).
fn answers(bytes: &[u8], id: &Value) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|v| crate::peer::is_answer(&v, id))
}

impl HttpPeer {
    fn post(&mut self, message: &[u8], id: Option<&Value>, edits: &[HeaderEdit]) -> Result<Vec<Vec<u8>>, PeerError> {
        let body: Value = serde_json::from_slice(message).unwrap_or(Value::Null);
        let headers = edited(headers_for(&body, self.session.as_deref(), self.legacy_version.as_deref()), edits);
        self.last = Some(Carried { request_headers: headers.clone(), status: None, content_type: None });
        let mut request = Request::new(Full::new(Bytes::copy_from_slice(message)));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.shared.url.clone();
        for (k, v) in &headers {
            let name = HeaderName::from_bytes(k.as_bytes()).map_err(|e| PeerError::Io(format!("header {k}: {e}")))?;
            let value = HeaderValue::from_str(v).map_err(|e| PeerError::Io(format!("header {k}: {e}")))?;
            request.headers_mut().append(name, value);
        }
        for (name, value) in &self.shared.extra {
            request.headers_mut().insert(name.clone(), value.clone());
        }
        let limits = self.shared.limits;
        let deadline = Instant::now() + limits.timeout;
        let timeout = PeerError::Timeout { after_ms: limits.timeout.as_millis() as u64 };
        let shared = Arc::clone(&self.shared);
        let response = shared
            .runtime
            .block_on(async { tokio::time::timeout_at(deadline.into(), shared.client.request(request)).await })
            .map_err(|_| timeout.clone())?
            .map_err(|e| request_error(&shared.url, &e))?;
        let status = response.status().as_u16();
        let ct = response.headers().get(CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let session = response.headers().get(SESSION).and_then(|v| v.to_str().ok()).map(str::to_owned);
        self.last = Some(Carried { request_headers: headers, status: Some(status), content_type: ct.clone() });
        if matches!(status, 401 | 403 | 407) {
            let challenge =
                [hyper::header::WWW_AUTHENTICATE, hyper::header::PROXY_AUTHENTICATE].into_iter().find_map(|name| {
                    let value = response.headers().get(&name)?;
                    Some(format!("{name}: {}", String::from_utf8_lossy(value.as_bytes())))
                });
            let body = shared
                .runtime
                .block_on(async { tokio::time::timeout_at(deadline.into(), body_start(response.into_body())).await })
                .unwrap_or_default();
            return Err(PeerError::Refused { status, detail: refusal_detail(challenge, &body) });
        }
        let body_stream = response.into_body();
        let read = async {
            if is_media(ct.as_deref(), "text/event-stream") {
                read_events(body_stream, id, &limits).await
            } else {
                read_whole(body_stream, id, status, ct.as_deref(), &limits).await
            }
        };
        let got = shared
            .runtime
            .block_on(async { tokio::time::timeout_at(deadline.into(), read).await })
            .map_err(|_| timeout)??;
        // A legacy `initialize` answered: the session it opens, at the revision agreed on.
        if body.get("method").and_then(Value::as_str) == Some("initialize") && self.session.is_none() {
            let result = got.last().and_then(|b| serde_json::from_slice::<Value>(b).ok());
            if let Some(v) = result.as_ref().and_then(|r| r.pointer("/result/protocolVersion")).and_then(Value::as_str)
            {
                self.legacy_version = Some(v.to_owned());
                self.session = session;
            }
        }
        Ok(got)
    }
}

/// The transport's error for a request that got no response: [`PeerError::Unreachable`] when
/// no connection could be made (nothing listens, the name does not resolve, the connect
/// timed out), else [`PeerError::Io`]. The message names the deepest cause ("Connection
/// refused (os error 111)"), which hyper's own text leaves out.
fn request_error(url: &Uri, e: &hyper_util::client::legacy::Error) -> PeerError {
    let mut cause = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    let authority = url.authority().map_or("", |a| a.as_str());
    if e.is_connect() {
        PeerError::Unreachable(format!("{authority}: {cause}"))
    } else {
        PeerError::Io(format!("POST {url}: {cause}"))
    }
}

/// The first [`REFUSAL_DETAIL_BYTES`](crate::peer::REFUSAL_DETAIL_BYTES) of a refusal's body.
async fn body_start(mut body: Incoming) -> Vec<u8> {
    let limit = crate::peer::REFUSAL_DETAIL_BYTES;
    let mut held = Vec::new();
    while let Some(Ok(frame)) = body.frame().await {
        if let Ok(data) = frame.into_data() {
            held.extend_from_slice(&data[..data.len().min(limit - held.len())]);
            if held.len() >= limit {
                break;
            }
        }
    }
    held
}

/// What a refusal said, on one line: the authentication challenge, then the body's start (a
/// JSON-RPC error's message when the body is one).
fn refusal_detail(challenge: Option<String>, body: &[u8]) -> String {
    let body_text = match serde_json::from_slice::<Value>(body) {
        Ok(v) => v.pointer("/error/message").and_then(Value::as_str).map(str::to_owned),
        Err(_) => None,
    }
    .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut parts = Vec::new();
    if let Some(c) = challenge {
        parts.push(one_line(&c));
    }
    let body_text = one_line(&body_text);
    if !body_text.is_empty() {
        parts.push(body_text);
    }
    let mut out = parts.join("; ");
    if out.len() > crate::peer::REFUSAL_DETAIL_BYTES {
        let mut cut = crate::peer::REFUSAL_DETAIL_BYTES;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// A body that is not an event stream: one message (or, for a notification, possibly none).
async fn read_whole(
    mut body: Incoming,
    id: Option<&Value>,
    status: u16,
    ct: Option<&str>,
    limits: &HttpLimits,
) -> Result<Vec<Vec<u8>>, PeerError> {
    let mut held = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| PeerError::Io(format!("reading the response: {e}")))?;
        let Ok(data) = frame.into_data() else { continue };
        if held.len() + data.len() > limits.max_body_bytes {
            return Err(PeerError::TooLarge { limit: limits.max_body_bytes });
        }
        held.extend_from_slice(&data);
    }
    if held.iter().all(u8::is_ascii_whitespace) {
        return match id {
            None => Ok(Vec::new()),
            Some(_) => Err(PeerError::Io(format!("HTTP {status} with no message in the body"))),
        };
    }
    // A body declared JSON, or one that is JSON whatever it is declared (HTTP-6 judges the type).
    if is_media(ct, "application/json") || serde_json::from_slice::<Value>(&held).is_ok() {
        return Ok(vec![held]);
    }
    Err(PeerError::Io(format!(
        "HTTP {status} with a {} body that is not a JSON-RPC message",
        ct.unwrap_or("(no Content-Type)")
    )))
}

/// An event stream: every event's data up to the response to `id`.
async fn read_events(mut body: Incoming, id: Option<&Value>, limits: &HttpLimits) -> Result<Vec<Vec<u8>>, PeerError> {
    let mut splitter = SseSplitter::new(limits.max_body_bytes);
    let (mut bytes, mut events, mut got) = (0usize, 0usize, Vec::new());
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| PeerError::Io(format!("reading the event stream: {e}")))?;
        let Ok(data) = frame.into_data() else { continue };
        bytes += data.len();
        if bytes > limits.max_body_bytes {
            return Err(PeerError::TooLarge { limit: limits.max_body_bytes });
        }
        for event in splitter.push(&data) {
            events += 1;
            if events > limits.max_events {
                return Err(PeerError::TooMany { limit: limits.max_events, what: "events" });
            }
            match event {
                SseEvent::TooLarge => return Err(PeerError::TooLarge { limit: limits.max_body_bytes }),
                // An event without data (a priming event) carries no message.
                SseEvent::Data(d) if d.trim().is_empty() => {}
                SseEvent::Data(d) => {
                    let done = id.is_some_and(|id| answers(d.as_bytes(), id));
                    got.push(d.into_bytes());
                    if done {
                        return Ok(got);
                    }
                    if got.len() >= limits.max_messages {
                        return Err(PeerError::TooMany { limit: limits.max_messages, what: "messages" });
                    }
                }
            }
        }
    }
    match id {
        None => Ok(got),
        Some(_) => Err(PeerError::Io("the event stream ended without the response".into())),
    }
}

impl Peer for HttpPeer {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        self.post(message, id, &[])
    }

    fn send_edited(
        &mut self,
        message: &[u8],
        id: Option<&Value>,
        edits: &[HeaderEdit],
    ) -> Result<Vec<Vec<u8>>, PeerError> {
        self.post(message, id, edits)
    }

    fn has_headers(&self) -> bool {
        true
    }

    fn target_host(&self) -> Option<String> {
        self.shared.url.host().map(str::to_owned)
    }

    fn carried(&self) -> Option<&Carried> {
        self.last.as_ref()
    }
}

impl Drop for HttpPeer {
    /// Ends a legacy session: DELETE with its `Mcp-Session-Id`, within the timeout, its answer
    /// not waited for past it.
    fn drop(&mut self) {
        let Some(session) = self.session.take() else { return };
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = Method::DELETE;
        *request.uri_mut() = self.shared.url.clone();
        if let Ok(v) = HeaderValue::from_str(&session) {
            request.headers_mut().insert(SESSION, v);
        }
        if let Some(v) = self.legacy_version.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
            request.headers_mut().insert(PROTOCOL_VERSION, v);
        }
        let shared = &self.shared;
        let _ = shared
            .runtime
            .block_on(async { tokio::time::timeout(shared.limits.timeout, shared.client.request(request)).await });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn modern_requests_carry_the_standard_headers_legacy_ones_the_agreed_version() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let names = |h: Vec<(String, String)>| h.into_iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>();
        assert_eq!(
            names(headers_for(&call, None, None))[2..],
            ["MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: echo"]
        );
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
        assert_eq!(headers_for(&init, None, None).len(), 2);
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        assert_eq!(
            names(headers_for(&list, Some("s1"), Some("2025-06-18")))[2..],
            ["MCP-Protocol-Version: 2025-06-18", "Mcp-Session-Id: s1"]
        );
        let edits = [HeaderEdit::Remove("mcp-method".into()), HeaderEdit::Set("mcp-name".into(), "other".into())];
        assert_eq!(
            names(edited(headers_for(&call, None, None), &edits))[2..],
            ["MCP-Protocol-Version: 2026-07-28", "Mcp-Name: other"]
        );
    }
}
