//! Streamable HTTP, client side: one POST per message, JSON or SSE answers, the legacy
//! `Mcp-Session-Id`, and GET streams for resumption.

use std::pin::Pin;
use std::sync::{Arc, Mutex};

use futures_util::Stream;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use sse_stream::{Sse, SseStream};

use super::ClientError;

/// The events of one SSE response.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<Sse, sse_stream::Error>> + Send>>;

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
const SESSION_ID: &str = "mcp-session-id";

/// Cheap to clone: clones share the connection pool and the session id.
#[derive(Clone)]
pub struct Transport {
    http: reqwest::Client,
    url: reqwest::Url,
    /// The legacy session id the server assigned, sent back on every later request.
    session_id: Arc<Mutex<Option<String>>>,
}

impl Transport {
    pub fn new(url: &str) -> Result<Transport, ClientError> {
        let url = reqwest::Url::parse(url).map_err(|e| ClientError::BadUrl(format!("{url}: {e}")))?;
        let http = reqwest::Client::builder().build().map_err(ClientError::Http)?;
        Ok(Transport { http, url, session_id: Arc::new(Mutex::new(None)) })
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
            .map_err(ClientError::Http)?;
        self.reply(resp).await
    }

    /// Opens (or resumes, with `Last-Event-ID`) the GET stream of a legacy session.
    pub async fn get(&self, last_event_id: Option<&str>, extra: &[(String, String)]) -> Result<Reply, ClientError> {
        let mut headers = self.headers(extra)?;
        if let Some(id) = last_event_id {
            headers.insert("last-event-id", value(id)?);
        }
        let resp = self
            .http
            .get(self.url.clone())
            .header(ACCEPT, "text/event-stream")
            .headers(headers)
            .send()
            .await
            .map_err(ClientError::Http)?;
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
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
            .unwrap_or_default();
        if content_type == "text/event-stream" && resp.status().is_success() {
            let stream = SseStream::from_bytes_stream(resp.bytes_stream());
            return Ok(Reply { status, body: Body::Sse(Box::pin(stream)) });
        }
        let bytes = resp.bytes().await.map_err(ClientError::Http)?.to_vec();
        let body = if bytes.is_empty() {
            Body::Empty
        } else if content_type == "application/json" && (200..300).contains(&status) {
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
