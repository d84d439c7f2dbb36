//! The client against a small in-process legacy server on 127.0.0.1 whose `tools/call` stream
//! ends after a priming event: the client must wait the server's `retry`, resume with GET and
//! `Last-Event-ID`, and take the response from the resumed stream (SEP-1699).

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures_util::stream;
use mcpgen_reference::client::{run, Config};
use serde_json::{json, Value};

const RETRY: Duration = Duration::from_millis(300);

#[derive(Default)]
struct Seen {
    /// When the `tools/call` stream was ended, and the pending call's id.
    closed: Option<(Instant, Value)>,
    /// Each resumption: its `Last-Event-ID` and when it came.
    resumed: Vec<(String, Instant)>,
}

type Shared = Arc<Mutex<Seen>>;

fn session(mut r: Response) -> Response {
    r.headers_mut().insert("mcp-session-id", "s-1".parse().unwrap());
    r
}

async fn on_post(State(seen): State<Shared>, Json(msg): Json<Value>) -> Response {
    let id = msg.get("id").cloned();
    let result = match msg["method"].as_str() {
        Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                     "serverInfo": {"name": "resume-test", "version": "1"}}),
        Some("tools/list") => json!({"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}),
        Some("tools/call") => {
            seen.lock().unwrap().closed = Some((Instant::now(), id.clone().unwrap()));
            // A priming event, then the stream ends without the response.
            let priming = Event::default().id("e1").retry(RETRY).data("");
            let events = stream::iter(vec![Ok::<_, Infallible>(priming)]);
            return session(Sse::new(events).into_response());
        }
        _ if id.is_none() => return session(StatusCode::ACCEPTED.into_response()),
        _ => json!({}),
    };
    session(Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response())
}

async fn on_get(State(seen): State<Shared>, headers: HeaderMap) -> Response {
    let Some(last) = headers.get("last-event-id").and_then(|v| v.to_str().ok()) else {
        // No standalone stream on this server.
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    };
    let mut s = seen.lock().unwrap();
    s.resumed.push((last.to_owned(), Instant::now()));
    let id = s.closed.as_ref().map(|(_, id)| id.clone()).unwrap();
    let response = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "done"}]}});
    let event = Event::default().id("e2").data(response.to_string());
    session(Sse::new(stream::iter(vec![Ok::<_, Infallible>(event)])).into_response())
}

#[tokio::test]
async fn a_stream_that_ends_early_is_resumed_after_retry_with_last_event_id() {
    let seen: Shared = Arc::default();
    let app = Router::new().route("/mcp", post(on_post).get(on_get)).with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let config = Config { url, protocol_version: Some("2025-11-25".into()), ..Config::default() };
    let outcome = run(&config).await.expect("the client runs");
    assert!(outcome.errors.is_empty(), "failed calls: {:?}", outcome.errors);

    let seen = seen.lock().unwrap();
    let (closed_at, _) = seen.closed.clone().expect("the tool was called");
    assert_eq!(seen.resumed.len(), 1, "one resumption, not {:?}", seen.resumed);
    let (last_event_id, at) = &seen.resumed[0];
    assert_eq!(last_event_id, "e1");
    let delay = at.duration_since(closed_at);
    assert!(delay >= RETRY, "resumed after {delay:?}, before the server's retry");
    // The server's retry, not the client's default (1 s), decided the wait.
    assert!(delay < Duration::from_millis(900), "resumed after {delay:?}: the retry field was ignored");
}
