//! `mcpgen proxy --listen` against hostile peers on 127.0.0.1 (issue 38): a header section
//! counted exactly at `--max-header-bytes`, an upstream whose answer body stalls, is silent or
//! declares 10^12 bytes (`--upstream-idle-timeout`, `--max-answer-bytes`: 504/502 or the
//! stream ended, a note in the report and no finding), and clients that open streams and never
//! read them (`--write-timeout`: their connections are closed and their slots freed).
#![cfg(unix)]

mod http_support;

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_support::*;

/// An upstream on 127.0.0.1 that answers each request (by its body) with raw bytes, then, when
/// `endless`, SSE comment chunks of 64 KiB for as long as they can be written, else holds the
/// connection open until the proxy closes it.
fn raw_upstream(answer: impl Fn(&[u8]) -> (Vec<u8>, bool) + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let answer = Arc::clone(&answer);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let Some((_, headers)) = read_head(&mut reader) else { return };
                let body = read_body(&mut reader, &headers);
                let (bytes, endless) = answer(&body);
                let mut out = stream;
                if out.write_all(&bytes).is_err() {
                    return;
                }
                let comment = [b": ".as_slice(), &[b'x'; 65536], b"\n\n"].concat();
                let chunk = [format!("{:x}\r\n", comment.len()).into_bytes(), comment, b"\r\n".to_vec()].concat();
                while endless && out.write_all(&chunk).is_ok() {}
                let mut sink = [0u8; 1024];
                while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
            });
        }
    });
    url
}

const JSON_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";
const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
const ANSWER: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}"#;

fn json_answer() -> Vec<u8> {
    format!("{JSON_HEAD}content-length: {}\r\n\r\n{ANSWER}", ANSWER.len()).into_bytes()
}

/// The report's lines, and the transport notes among them; no line may be a finding.
fn notes(report: &std::path::Path) -> Vec<String> {
    let lines = json_lines(report);
    assert!(lines.iter().all(|l| l.get("errors").is_none()), "transport trouble is no finding: {lines:?}");
    lines.iter().filter_map(|l| l["transport"].as_str().map(str::to_owned)).collect()
}

/// A raw POST whose header section is exactly `size` bytes (padded with `x-pad`).
fn post_with_head_of(addr: std::net::SocketAddr, size: usize) -> u16 {
    let body = modern(1, "tools/list", "");
    let head = |pad: usize| {
        format!(
            "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\ncontent-length: {}\r\nx-pad: {}\r\n\r\n",
            body.len(),
            "y".repeat(pad)
        )
    };
    let pad = size - head(0).len();
    let head = head(pad);
    assert_eq!(head.len(), size);
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes()));
    answer_head(&mut BufReader::new(stream)).0
}

#[test]
fn a_header_section_of_exactly_64_kib_passes_and_one_byte_more_is_431() {
    let upstream = raw_upstream(|_| (json_answer(), false));
    let proxy = Proxy::start(&upstream, &["--max-header-bytes", "65536"]);
    assert_eq!(post_with_head_of(proxy.addr, 65536), 200);
    assert_eq!(post_with_head_of(proxy.addr, 65537), 431);
    assert_eq!(post_with_head_of(proxy.addr, 100_000), 431);
}

#[test]
fn an_upstream_body_that_stalls_is_504_and_a_noted_not_a_finding() {
    // Declares 100 bytes, sends 10, then nothing.
    let upstream =
        raw_upstream(|_| (format!("{JSON_HEAD}content-length: 100\r\n\r\n{}", &ANSWER[..10]).into_bytes(), false));
    let dir = scratch("stall");
    let report = dir.join("report.jsonl");
    let proxy = Proxy::start(&upstream, &["--upstream-idle-timeout", "0.5", "--report", report.to_str().unwrap()]);
    let started = Instant::now();
    let answer = post(proxy.addr, &modern_headers("tools/list"), &modern(1, "tools/list", ""));
    assert_eq!(answer.status, 504, "{:?}", String::from_utf8_lossy(&answer.body));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(notes(&report), ["upstream-stalled"]);
}

#[test]
fn an_answer_declaring_10_to_the_12_bytes_is_502() {
    let upstream =
        raw_upstream(|_| (format!("{JSON_HEAD}content-length: 1000000000000\r\n\r\n{{").into_bytes(), false));
    let dir = scratch("huge");
    let report = dir.join("report.jsonl");
    let proxy = Proxy::start(&upstream, &["--report", report.to_str().unwrap()]);
    let answer = post(proxy.addr, &modern_headers("tools/list"), &modern(1, "tools/list", ""));
    assert_eq!(answer.status, 502);
    proxy.stop();
    assert_eq!(notes(&report), ["upstream-too-large"]);
}

#[test]
fn a_silent_sse_answer_is_ended_at_the_idle_timeout() {
    let upstream = raw_upstream(|_| (SSE_HEAD.as_bytes().to_vec(), false));
    let dir = scratch("silent");
    let report = dir.join("report.jsonl");
    let proxy = Proxy::start(&upstream, &["--upstream-idle-timeout", "0.5", "--report", report.to_str().unwrap()]);
    let headers = modern_headers("tools/list");
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut reader = send_request(proxy.addr, "POST", &h, modern(1, "tools/list", "").as_bytes());
    assert_eq!(answer_head(&mut reader).0, 200);
    let started = Instant::now();
    // The stream ends (cut: the connection is closed) instead of lasting forever.
    while read_chunk(&mut reader).is_some() {}
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    proxy.stop();
    assert_eq!(notes(&report), ["upstream-stalled"]);
}

#[test]
fn streams_nobody_reads_are_closed_and_free_their_connection_slots() {
    // A stream for each `prompts/list`, a JSON answer for anything else.
    let upstream = raw_upstream(|body| {
        if String::from_utf8_lossy(body).contains("prompts/list") {
            (SSE_HEAD.as_bytes().to_vec(), true)
        } else {
            (json_answer(), false)
        }
    });
    let dir = scratch("unread");
    let report = dir.join("report.jsonl");
    let flags = ["--max-connections", "4", "--write-timeout", "0.5", "--report", report.to_str().unwrap()];
    let proxy = Proxy::start(&upstream, &flags);
    let headers = modern_headers("prompts/list");
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // Every slot holds a stream whose client reads nothing (not even the answer's head).
    let unread: Vec<BufReader<TcpStream>> =
        (0..4).map(|_| send_request(proxy.addr, "POST", &h, modern(1, "prompts/list", "").as_bytes())).collect();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let answer = post(proxy.addr, &modern_headers("tools/list"), &modern(1, "tools/list", ""));
    assert_eq!(answer.status, 200);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    drop(unread);
    proxy.stop();
    let notes = notes(&report);
    assert!(!notes.is_empty() && notes.iter().all(|n| n == "client-not-reading"), "{notes:?}");
}
