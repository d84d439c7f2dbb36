//! Streamable HTTP, client side: one POST per message, JSON or SSE answers, the legacy
//! `Mcp-Session-Id`, and GET streams for resumption.
//!
//! Bounded by [`Limits`]: reqwest's connect and read timeouts (the read timeout runs from the
//! request until its headers, then between the chunks of the body or stream), bodies read up to
//! `max_message_bytes`, SSE events counted by [`EventGuard`] before the parser buffers them.

use std::pin::Pin;
use std::sync::{Arc, Mutex};

use futures_util::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use sse_stream::{Sse, SseStream};

use super::sse::{EventGuard, EventTooLarge};
use super::{ClientError, Limits, Phase};
use mcpgen::http::{LAST_EVENT_ID, SESSION_ID};

/// The events of one SSE response.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<Sse, sse_stream::Error>> + Send>>;

/// Why the bytes of an SSE response stopped: what `sse_stream::Error::Body` carries.
#[derive(Debug)]
pub enum StreamError {
    /// Nothing came for the read timeout.
    Timeout(std::time::Duration),
    /// An event passed `max_message_bytes`.
    TooLarge(EventTooLarge),
    /// The connection failed or was cut.
    Http(reqwest::Error),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Timeout(after) => write!(f, "nothing came for {} s", after.as_secs_f64()),
            StreamError::TooLarge(e) => write!(f, "an event of more than {} bytes", e.limit),
            StreamError::Http(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for StreamError {}

/// The client's error for an SSE stream that failed: `None` when it was merely cut (a stream cut
/// mid-event ends like a closed one, and is resumed the same way).
pub fn stream_failure(e: &(dyn std::error::Error + Send + Sync + 'static)) -> Option<ClientError> {
    match e.downcast_ref::<StreamError>()? {
        StreamError::Timeout(after) => Some(ClientError::Timeout { phase: Phase::Read, after: *after }),
        StreamError::TooLarge(t) => Some(ClientError::TooLarge { what: "an SSE event", limit: t.limit }),
        StreamError::Http(_) => None,
    }
}

/// What an HTTP answer carried.
pub enum Body {
    Json(Vec<u8>),
    Sse(EventStream),
    /// No body (202 Accepted for notifications and responses).
    Empty,
    /// Another content type, or an error status: the raw bytes.
    Other(Vec<u8>),
}

pub struct Reply {
    pub status: u16,
    pub body: Body,
}

/// HTTP-3: every POST accepts both answer forms.
const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// Cheap to clone: clones share the connection pool and the session id.
#[derive(Clone)]
pub struct Transport {
    http: reqwest::Client,
    url: reqwest::Url,
    /// The legacy session id the server assigned, sent back on every later request.
    session_id: Arc<Mutex<Option<String>>>,
    limits: Limits,
}

impl Transport {
    /// A transport with the default [`Limits`].
    pub fn new(url: &str) -> Result<Transport, ClientError> {
        Transport::with_limits(url, Limits::default())
    }

    pub fn with_limits(url: &str, limits: Limits) -> Result<Transport, ClientError> {
        let url = reqwest::Url::parse(url).map_err(|e| ClientError::BadUrl(format!("{url}: {e}")))?;
        let http = reqwest::Client::builder()
            .connect_timeout(limits.connect_timeout)
            .read_timeout(limits.read_timeout)
            .build()
            .map_err(ClientError::Http)?;
        Ok(Transport { http, url, session_id: Arc::new(Mutex::new(None)), limits })
    }

    /// A reqwest error as the client's: timeouts by phase.
    fn http_error(&self, e: reqwest::Error) -> ClientError {
        match (e.is_timeout(), e.is_connect()) {
            (true, true) => ClientError::Timeout { phase: Phase::Connect, after: self.limits.connect_timeout },
            (true, false) => ClientError::Timeout { phase: Phase::Read, after: self.limits.read_timeout },
            _ => ClientError::Http(e),
        }
    }

    /// The whole body, refused past `max_message_bytes` (before it is read, when the
    /// `Content-Length` says so).
    async fn body(&self, mut resp: reqwest::Response) -> Result<Vec<u8>, ClientError> {
        let limit = self.limits.max_message_bytes;
        let too_large = || ClientError::TooLarge { what: "a response body", limit };
        if resp.content_length().is_some_and(|n| n > limit as u64) {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| self.http_error(e))? {
            if bytes.len() + chunk.len() > limit {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }

    /// The legacy session id, once the server assigned one.
    pub fn session_id(&self) -> Option<String> {
        self.session_id.lock().expect("not poisoned").clone()
    }

    fn headers(&self, extra: &[(String, String)]) -> Result<HeaderMap, ClientError> {
        let mut map = HeaderMap::new();
        if let Some(id) = self.session_id() {
            map.insert(SESSION_ID, value(&id)?);
        }
        for (name, v) in extra {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| ClientError::Protocol(format!("{name:?} is not a header name")))?;
            map.append(name, value(v)?);
        }
        Ok(map)
    }

    /// POSTs one JSON-RPC message.
    pub async fn post(&self, body: Vec<u8>, extra: &[(String, String)]) -> Result<Reply, ClientError> {
        let resp = self
            .http
            .post(self.url.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, ACCEPT_BOTH)
            .headers(self.headers(extra)?)
            .body(body)
            .send()
            .await
            .map_err(|e| self.http_error(e))?;
        self.reply(resp).await
    }

    /// Opens (or resumes, with `Last-Event-ID`) the GET stream of a legacy session.
    pub async fn get(&self, last_event_id: Option<&str>, extra: &[(String, String)]) -> Result<Reply, ClientError> {
        let mut headers = self.headers(extra)?;
        if let Some(id) = last_event_id {
            headers.insert(LAST_EVENT_ID, value(id)?);
        }
        let resp = self
            .http
            .get(self.url.clone())
            .header(ACCEPT, "text/event-stream")
            .headers(headers)
            .send()
            .await
            .map_err(|e| self.http_error(e))?;
        self.reply(resp).await
    }

    /// Ends a legacy session (the server may refuse; that changes nothing for the client).
    pub async fn delete(&self, extra: &[(String, String)]) {
        if self.session_id().is_none() {
            return;
        }
        if let Ok(headers) = self.headers(extra) {
            let _ = self.http.delete(self.url.clone()).headers(headers).send().await;
        }
    }

    async fn reply(&self, resp: reqwest::Response) -> Result<Reply, ClientError> {
        let status = resp.status().as_u16();
        if let Some(id) = resp.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()) {
            *self.session_id.lock().expect("not poisoned") = Some(id.to_owned());
        }
        let content_type = resp.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let is = |media: &str| mcpgen::http::is_media(content_type.as_deref(), media);
        if is("text/event-stream") && resp.status().is_success() {
            let mut guard = EventGuard::new(self.limits.max_message_bytes);
            let read_timeout = self.limits.read_timeout;
            let bytes = resp.bytes_stream().map(move |chunk| match chunk {
                Ok(b) => guard.feed(&b).map(|()| b).map_err(StreamError::TooLarge),
                Err(e) if e.is_timeout() => Err(StreamError::Timeout(read_timeout)),
                Err(e) => Err(StreamError::Http(e)),
            });
            let stream = SseStream::from_bytes_stream(bytes);
            return Ok(Reply { status, body: Body::Sse(Box::pin(stream)) });
        }
        let bytes = self.body(resp).await?;
        let body = if bytes.is_empty() {
            Body::Empty
        } else if is("application/json") && (200..300).contains(&status) {
            Body::Json(bytes)
        } else {
            Body::Other(bytes)
        };
        Ok(Reply { status, body })
    }
}

fn value(v: &str) -> Result<HeaderValue, ClientError> {
    HeaderValue::from_str(v).map_err(|_| ClientError::Protocol(format!("{v:?} is not a valid header value")))
}
