//! The reference server's request path (`mcpgen_reference::server::Server::process`) on
//! arbitrary bytes, the way a transport calls it.
//!
//! Input: an optional mode byte, then the body. A first byte of 0x20 or more is the body's
//! (mode 0). Modes:
//! - 0: no session, no headers (stdio before `initialize`; a modern request is served statelessly);
//! - 1: HTTP, with the standard headers derived from the body (`MCP-Protocol-Version` from
//!   `_meta`, `Mcp-Method`, `Mcp-Name`), so header checks pass and the body goes on;
//! - 2: HTTP, with the headers given in the input: `NAME:VALUE` lines, a 0x00 byte, the body;
//! - 3: a legacy session opened by an `initialize` (2025-11-25) first, the body on it;
//! - other values below 0x20 are read as mode (value & 3).
//!
//! Invariants:
//! - no panic; handlers run on a current-thread tokio runtime with a paused clock (timers fire
//!   as soon as the runtime is idle), and a reply's stream is read until its final frame
//!   within an hour of that clock (a listen stream, which never ends, until its first frame);
//! - every answer is one JSON-RPC 2.0 message with exactly one of `result` / `error` (an
//!   integer `code`, a string `message`); its `id` is the request's `id` as received, byte for
//!   byte after parsing (numbers compared by their text: `1e400`, `-0`, 2^64 come back as
//!   sent);
//! - a listen stream's acknowledgement carries that `id`, as received, as its `subscriptionId`;
//! - input that is not JSON is answered -32700, a request whose id is unusable -32600 (-32602
//!   on a legacy session), a request with more than one `id` member -32600, a message without an id (a refused notification, a batch) only with
//!   an error; all with a null or absent `id`; messages before the final frame are requests or
//!   notifications (a `method`, no `result` / `error`).
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcpgen::json::Tape;
use mcpgen::JsonView;
use mcpgen_reference::server::wire::EchoId;
use mcpgen_reference::server::{Frame, Incoming, Reply, Server};
use tokio::runtime::Runtime;

/// How long (on the paused clock) a reply's stream may take to reach its final frame.
const STREAM_BOUND: Duration = Duration::from_secs(3600);

fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().expect("a runtime")
    })
}

/// `None` when the body is not JSON; else the request's `id` (the last `id` member, the one the
/// server reads), losslessly (number text kept), if the body is an object with one.
fn request_id(body: &[u8]) -> Option<Option<mcpgen::Value>> {
    let tape = Tape::parse_bytes(body).ok()?;
    let root = tape.root();
    if root.kind() != mcpgen::json::Kind::Object {
        return Some(None);
    }
    Some(root.entries().filter(|(k, _)| *k == "id").last().map(|(_, v)| JsonView::to_value(&v)))
}

/// Whether the body is an object with more than one `id` member: which one is meant cannot be
/// told, so the server answers -32600 with a null `id` (it refuses any repeated member name).
fn id_repeated(body: &[u8]) -> bool {
    Tape::parse_bytes(body).is_ok_and(|t| t.root().entries().filter(|(k, _)| *k == "id").count() > 1)
}

/// A usable request id: a string or an integer literal (AMB-12: not `1.0`, not `1e2`).
fn usable(id: &mcpgen::Value) -> bool {
    match id {
        mcpgen::Value::String(_) => true,
        mcpgen::Value::Number(n) => !n.to_string().contains(['.', 'e', 'E']),
        _ => false,
    }
}

/// Checks one final message (`text` as written on the wire) against the request `body`.
/// `legacy`: on a legacy session, where a malformed request is refused -32602 (validated under
/// the session's revision) rather than -32600.
fn check_final(body: &[u8], text: &str, legacy: bool) {
    let tape = Tape::parse_bytes(text.as_bytes()).unwrap_or_else(|e| panic!("answer is not JSON ({e}): {text}"));
    let root = tape.root();
    assert!(root.get("jsonrpc").is_some_and(|j| j.str_eq("2.0")), "no jsonrpc 2.0: {text}");
    let (result, error) = (root.get("result"), root.get("error"));
    assert!(result.is_some() != error.is_some(), "not exactly one of result/error: {text}");
    assert!(root.get("method").is_none(), "a final answer with a method: {text}");
    let code = error.as_ref().map(|e| {
        assert!(e.get("message").is_some_and(|m| m.as_str().is_some()), "error without a message: {text}");
        let c = e.get("code").and_then(|c| c.as_f64()).unwrap_or_else(|| panic!("no numeric code: {text}"));
        assert!(c.fract() == 0.0, "code is not an integer: {text}");
        c as i64
    });
    let answered = root.get("id").map(|v| JsonView::to_value(&v));
    let null_or_absent = answered.as_ref().is_none_or(|v| *v == mcpgen::Value::Null);
    match request_id(body) {
        None => {
            assert_eq!(code, Some(-32700), "unparseable input not answered -32700: {text}");
            assert!(null_or_absent, "unparseable input answered with an id: {text}");
        }
        Some(None) => {
            // A refused notification may be answered with an error that has no id (the
            // Streamable HTTP transport: "a JSON-RPC error response that has no id").
            assert!(code.is_some(), "a message without an id answered with a result: {text}");
            assert!(null_or_absent, "a message without an id answered with an id: {text}");
        }
        Some(Some(_)) if id_repeated(body) => {
            assert_eq!(code, Some(-32600), "a repeated `id` not refused -32600: {text}");
            assert!(null_or_absent, "a repeated `id` answered with one of them: {text}");
        }
        Some(Some(id)) => {
            if usable(&id) {
                assert_eq!(answered.as_ref(), Some(&id), "id not echoed as received: {text}");
            } else if answered.as_ref() != Some(&id) {
                // An unusable id is refused without it (on a legacy session, validated against
                // the session revision's schema, where `1.0` is an integer, it may be echoed).
                let refused = matches!(code, Some(-32600 | -32700)) || (legacy && code == Some(-32602));
                assert!(refused && null_or_absent, "an unusable id neither refused nor echoed: {text}");
            }
        }
    }
}

/// A listen stream's acknowledgement: its `subscriptionId` is the request's id as received.
fn check_ack(body: &[u8], text: &str) {
    let tape = Tape::parse_bytes(text.as_bytes()).unwrap_or_else(|e| panic!("ack is not JSON ({e}): {text}"));
    let sub = tape
        .root()
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/subscriptionId"))
        .map(|v| JsonView::to_value(&v));
    let id = request_id(body).flatten();
    assert!(id.as_ref().is_some_and(usable) && sub == id, "subscriptionId is not the request's id as received: {text}");
}

/// Reads a reply to the end (bounded) and checks every frame; returns the legacy session it
/// opened.
fn drain(body: &[u8], reply: Reply, echo: &EchoId, legacy: bool) -> Option<String> {
    match reply {
        Reply::Accepted => None,
        Reply::Immediate(message, status) => {
            assert!((200..600).contains(&status), "HTTP status {status}");
            check_final(body, &echo.render(&message), legacy);
            None
        }
        Reply::Stream { mut frames, session, lasting } => {
            let rt = runtime();
            let read = async {
                while let Some(frame) = frames.recv().await {
                    match frame {
                        Frame::Message(m) => {
                            let text = echo.render(&m);
                            assert!(
                                m.get("method").is_some_and(|x| x.is_string()),
                                "a stream message without a method: {text}"
                            );
                            assert!(m.get("result").is_none() && m.get("error").is_none(), "{text}");
                            if lasting {
                                // The acknowledgement carries the request's id (SUB-4).
                                check_ack(body, &text);
                                return true;
                            }
                        }
                        Frame::Final(m, status) => {
                            assert!((200..600).contains(&status), "HTTP status {status}");
                            check_final(body, &echo.render(&m), legacy);
                            return true;
                        }
                    }
                }
                false
            };
            let ended = rt.block_on(async { tokio::time::timeout(STREAM_BOUND, read).await });
            match ended {
                Ok(true) => {}
                Ok(false) => panic!("a stream ended without its final frame"),
                Err(_) => panic!("no final frame within {STREAM_BOUND:?} (paused clock)"),
            }
            session
        }
    }
}

/// The standard headers a client would send with `body` (mode 1).
fn derived_headers(body: &[u8]) -> Vec<(String, String)> {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) else { return Vec::new() };
    let mut out = Vec::new();
    if let Some(p) = v.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").and_then(|p| p.as_str()) {
        out.push(("MCP-Protocol-Version".to_owned(), p.to_owned()));
    }
    if let Some(m) = v.get("method").and_then(|m| m.as_str()) {
        out.extend(mcpgen::http::standard_headers(m, v.get("params")));
    }
    out
}

/// `NAME:VALUE` lines (mode 2).
fn given_headers(text: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(text)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .take(64)
        .collect()
}

const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;

fuzz_target!(|data: &[u8]| {
    let (mode, rest) = match data.first() {
        Some(&b) if b < 0x20 => (b & 3, &data[1..]),
        _ => (0, data),
    };
    let server = Arc::new(Server::new(true));
    let _guard = runtime().enter();
    let (body, incoming) = match mode {
        1 => (rest, Incoming { session: None, http_headers: Some(derived_headers(rest)) }),
        2 => {
            let (head, body) = match rest.iter().position(|&b| b == 0) {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (&[][..], rest),
            };
            (body, Incoming { session: None, http_headers: Some(given_headers(head)) })
        }
        3 => {
            let (reply, echo) = server.process(INITIALIZE, &Incoming::default());
            let sid = drain(INITIALIZE, reply, &echo, false).expect("initialize opens a session");
            (rest, Incoming { session: Some(sid), http_headers: None })
        }
        _ => (rest, Incoming::default()),
    };
    let (reply, echo) = server.process(body, &incoming);
    drain(body, reply, &echo, incoming.session.is_some());
    // Let what the request left running (task jobs, listen streams whose reader is gone) end
    // on the paused clock before the next input.
    drop(server);
    runtime().block_on(tokio::time::sleep(Duration::from_secs(700)));
});
