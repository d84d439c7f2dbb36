//! The HTTP peer tells a transport refusal from an answer (PROBE-5): against a one-shot HTTP
//! server on 127.0.0.1 that writes its response out literally.
#![cfg(feature = "http")]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::thread;
use std::time::Duration;

use serde_json::json;

use mcpgen_probe::http::{HttpLimits, HttpTarget};
use mcpgen_probe::{Peer, PeerError};

fn limits() -> HttpLimits {
    HttpLimits { timeout: Duration::from_secs(10), max_body_bytes: 1 << 20, max_events: 64, max_messages: 64 }
}

/// Serves one connection: reads the request's head and body, answers `response`, and hands
/// the request text back.
fn one_shot(response: &'static str) -> (String, thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let handle = thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        // The head, then Content-Length bytes of body.
        loop {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "the client closed before its request was whole");
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(0);
                if got.len() >= end + 4 + length {
                    break;
                }
            }
        }
        stream.write_all(response.as_bytes()).unwrap();
        String::from_utf8_lossy(&got).into_owned()
    });
    (url, handle)
}

const DISCOVER: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;

fn send(url: &str, headers: &[(String, String)]) -> Result<Vec<Vec<u8>>, PeerError> {
    let target = HttpTarget::new(url, limits()).unwrap().with_headers(headers).unwrap();
    let mut peer = target.peer();
    peer.send(DISCOVER, Some(&json!(1)))
}

#[test]
fn a_403_is_a_refusal_with_what_the_server_said() {
    let (url, server) = one_shot(
        "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 19\r\nConnection: close\r\n\r\nInvalid Host header",
    );
    assert_eq!(send(&url, &[]), Err(PeerError::Refused { status: 403, detail: "Invalid Host header".into() }));
    server.join().unwrap();
}

#[test]
fn a_401_names_the_challenge_and_a_json_rpc_body_its_message() {
    let body = r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"missing token"}}"#;
    let response: &'static str = Box::leak(
        format!(
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"mcp\"\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_boxed_str(),
    );
    let (url, server) = one_shot(response);
    let got = send(&url, &[]);
    assert_eq!(
        got,
        Err(PeerError::Refused { status: 401, detail: "www-authenticate: Bearer realm=\"mcp\"; missing token".into() })
    );
    assert!(got.unwrap_err().to_string().starts_with("the server refused the request: HTTP 401 Unauthorized"));
    server.join().unwrap();
}

#[test]
fn nothing_listening_is_unreachable() {
    // A port that was just free: bound, then closed.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    match send(&format!("http://127.0.0.1:{port}/mcp"), &[]) {
        Err(PeerError::Unreachable(why)) => {
            assert!(why.starts_with(&format!("127.0.0.1:{port}: ")), "{why}");
            assert!(why.to_lowercase().contains("refused"), "names the cause: {why}");
        }
        other => panic!("expected Unreachable, got {other:?}"),
    }
}

#[test]
fn extra_headers_are_sent_and_kept_out_of_what_was_carried() {
    let body = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#;
    let response: &'static str = Box::leak(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_boxed_str(),
    );
    let (url, server) = one_shot(response);
    let target = HttpTarget::new(&url, limits())
        .unwrap()
        .with_headers(&[("Authorization".into(), "Bearer s3cret".into())])
        .unwrap();
    let mut peer = target.peer();
    assert_eq!(peer.send(DISCOVER, Some(&json!(1))).unwrap(), [body.as_bytes().to_vec()]);
    let request = server.join().unwrap();
    assert!(request.to_ascii_lowercase().contains("authorization: bearer s3cret"), "{request}");
    let carried = peer.carried().unwrap();
    assert!(carried
        .request_headers
        .iter()
        .all(|(k, v)| !k.eq_ignore_ascii_case("authorization") && !v.contains("s3cret")));
}

#[test]
fn a_header_that_is_no_header_is_refused_before_any_request() {
    let target = HttpTarget::new("http://127.0.0.1:1/mcp", limits()).unwrap();
    let err = target.with_headers(&[("Bad Name".into(), "x".into())]).err().expect("refused");
    assert!(err.to_string().starts_with("header Bad Name: "), "{err}");
}
