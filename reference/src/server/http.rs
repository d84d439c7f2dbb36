//! Streamable HTTP at `/mcp` (axum): POST answers with JSON or an SSE stream, GET opens a
//! legacy session's stream, DELETE ends a legacy session. Every request first passes the
//! Host/Origin allow-list (DNS-rebinding protection: loopback names only).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::mpsc;

use super::{Frame, Incoming, Reply, Server};

const SESSION_HEADER: &str = "mcp-session-id";

#[derive(Clone)]
struct App {
    server: Arc<Server>,
    port: u16,
}

/// The axum router for `server`, answering for loopback names on `port`.
pub fn router(server: Arc<Server>, port: u16) -> Router {
    Router::new().route("/mcp", post(post_mcp).get(get_mcp).delete(delete_mcp)).with_state(App { server, port })
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

/// Serves until the process ends.
pub async fn serve(server: Arc<Server>, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    axum::serve(listener, router(server, port)).await
}

/// DNS-rebinding protection: `Host` must name a loopback host (on our port), and `Origin`,
/// when sent, a loopback origin.
fn allowed(headers: &HeaderMap, port: u16) -> bool {
    let loopback = |host: &str| matches!(host, "localhost" | "127.0.0.1" | "[::1]");
    let host_ok = headers.get(header::HOST).and_then(|h| h.to_str().ok()).is_some_and(|h| match h.rsplit_once(':') {
        Some((name, p)) if !name.is_empty() && !h.ends_with(']') => loopback(name) && p.parse() == Ok(port),
        _ => loopback(h),
    });
    let origin_ok = match headers.get(header::ORIGIN).map(|o| o.to_str()) {
        None => true,
        Some(Err(_)) => false,
        Some(Ok(o)) => {
            let rest = o.strip_prefix("http://").or_else(|| o.strip_prefix("https://")).unwrap_or("");
            let host = match rest.rsplit_once(':') {
                Some((name, p)) if !rest.ends_with(']') && p.chars().all(|c| c.is_ascii_digit()) => name,
                _ => rest,
            };
            loopback(host)
        }
    };
    host_ok && origin_ok
}

fn forbidden() -> Response {
    (StatusCode::FORBIDDEN, "Forbidden: Host or Origin is not a loopback name (DNS-rebinding protection)")
        .into_response()
}

fn header_str(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

fn json_response(body: &serde_json::Value, status: u16, session: Option<&str>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response();
    if let Some(sid) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        r.headers_mut().insert(SESSION_HEADER, sid);
    }
    r
}

async fn post_mcp(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Response {
    if !allowed(&headers, app.port) {
        return forbidden();
    }
    let pairs =
        headers.iter().filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned()))).collect();
    let incoming = Incoming { session: header_str(&headers, SESSION_HEADER), http_headers: Some(pairs) };
    let accepts_sse = header_str(&headers, header::ACCEPT.as_str()).is_some_and(|a| a.contains("text/event-stream"));
    match app.server.process(&body, &incoming) {
        Reply::Accepted => StatusCode::ACCEPTED.into_response(),
        Reply::Immediate(v, status) => json_response(&v, status, None),
        Reply::Stream { mut frames, session } => match frames.recv().await {
            Some(Frame::Final(v, status)) => json_response(&v, status, session.as_deref()),
            Some(Frame::Message(first)) if accepts_sse => sse_response(first, frames),
            Some(Frame::Message(_)) => {
                // A client that takes JSON only gets the final response alone.
                while let Some(f) = frames.recv().await {
                    if let Frame::Final(v, status) = f {
                        return json_response(&v, status, session.as_deref());
                    }
                }
                StatusCode::INTERNAL_SERVER_ERROR.into_response()
            }
            None => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        },
    }
}

fn event(message: &serde_json::Value) -> Result<Event, Infallible> {
    Ok(Event::default().event("message").data(message.to_string()))
}

/// The frames as SSE events, ending after the final response.
fn frames_stream(
    first: serde_json::Value,
    frames: mpsc::UnboundedReceiver<Frame>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let rest = stream::unfold(Some(frames), |state| async move {
        let mut rx = state?;
        match rx.recv().await? {
            Frame::Message(m) => Some((event(&m), Some(rx))),
            Frame::Final(v, _) => Some((event(&v), None)),
        }
    });
    stream::once(async move { event(&first) }).chain(rest)
}

fn sse_response(first: serde_json::Value, frames: mpsc::UnboundedReceiver<Frame>) -> Response {
    Sse::new(frames_stream(first, frames))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

async fn get_mcp(State(app): State<App>, headers: HeaderMap) -> Response {
    if !allowed(&headers, app.port) {
        return forbidden();
    }
    let Some(sid) = header_str(&headers, SESSION_HEADER) else {
        // The modern era has no GET stream (subscriptions/listen replaces it).
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "POST, DELETE")]).into_response();
    };
    if app.server.session(&sid).is_none() {
        return (StatusCode::NOT_FOUND, "Unknown or ended session").into_response();
    }
    // The session's standalone stream: this server sends nothing unprompted, so it only
    // keeps the connection alive until the client closes it.
    let idle = stream::pending::<Result<Event, Infallible>>();
    Sse::new(idle).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

async fn delete_mcp(State(app): State<App>, headers: HeaderMap) -> Response {
    if !allowed(&headers, app.port) {
        return forbidden();
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
        assert!(allowed(&h("127.0.0.1:8080", None), 8080));
        assert!(allowed(&h("localhost:8080", Some("http://localhost:3000")), 8080));
        assert!(allowed(&h("[::1]:8080", Some("http://[::1]")), 8080));
        assert!(!allowed(&h("evil.example.com", Some("http://evil.example.com")), 8080));
        assert!(!allowed(&h("127.0.0.1:8080", Some("http://evil.example.com")), 8080));
        assert!(!allowed(&h("localhost:9999", None), 8080));
        assert!(!allowed(&HeaderMap::new(), 8080));
    }
}
