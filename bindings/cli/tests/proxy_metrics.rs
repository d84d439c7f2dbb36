//! `mcpgen proxy --listen … --metrics ADDR`: what the HTTP proxy counts (requests, responses by
//! class, `--enforce` refusals, limits hit, the upstream's time), and the metrics server's own
//! rules (only `GET /metrics`, loopback names, loopback addresses unless allowed).
#![cfg(unix)]

mod http_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use http_support::*;

const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}"#;

/// `METHOD target` with `host` over HTTP/1.0: status and body.
fn call(addr: SocketAddr, method: &str, target: &str, host: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "{method} {target} HTTP/1.0\r\nHost: {host}\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0), body.to_owned())
}

/// The proxy's metrics address, from its first stderr line.
fn metrics_addr(proxy: &mut Proxy) -> SocketAddr {
    let mut err = BufReader::new(proxy.child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    // The rest of stderr is read (and dropped) so the proxy never blocks on it.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    first
        .trim()
        .strip_prefix("mcpgen proxy: metrics on http://")
        .and_then(|u| u.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("first stderr line: {first:?}"))
        .parse()
        .unwrap()
}

/// Scrapes until every `want` line is in the exposition (the checker counts after relaying).
fn scrape_until(addr: SocketAddr, want: &[&str]) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, text) = call(addr, "GET", "/metrics", &addr.to_string());
        assert_eq!(status, 200, "{text}");
        if want.iter().all(|w| text.lines().any(|l| l == *w)) {
            return text;
        }
        assert!(Instant::now() < deadline, "missing some of {want:?} in:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_http_proxy_counts_requests_responses_refusals_and_limits_hit() {
    let upstream =
        Upstream::start(|_| Reply::Whole(200, vec![("content-type".into(), "application/json".into())], LIST.to_vec()));
    let mut proxy =
        Proxy::start(&upstream.url, &["--enforce", "--max-message-bytes", "4096", "--metrics", "127.0.0.1:0"]);
    let metrics = metrics_addr(&mut proxy);
    let headers =
        [("content-type", "application/json".to_owned()), ("accept", "application/json, text/event-stream".to_owned())];
    // Refused by --enforce (no `_meta`: META-6), answered -32602 by the proxy.
    let refused = post(proxy.addr, &headers, r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    assert_eq!(refused.status, 400);
    // Forwarded, answered by the upstream.
    let served = post(proxy.addr, &modern_headers("tools/list"), &modern(7, "tools/list", ""));
    assert_eq!((served.status, served.body.as_slice()), (200, LIST));
    // Past --max-message-bytes: 413, never forwarded.
    let big = format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{{"x":"{}"}}}}"#, "a".repeat(5000));
    assert_eq!(post(proxy.addr, &modern_headers("tools/list"), &big).status, 413);
    assert_eq!(upstream.requests().len(), 1);

    let text = scrape_until(
        metrics,
        &[
            r#"mcpgen_proxy_requests_total{from="client",method="tools/list"} 2"#,
            r#"mcpgen_proxy_responses_total{from="server",method="tools/list",class="invalid_params"} 1"#,
            r#"mcpgen_proxy_responses_total{from="server",method="tools/list",class="ok"} 1"#,
            r#"mcpgen_proxy_refused_total{rule="META-6"} 1"#,
            r#"mcpgen_proxy_limit_hits_total{limit="request_too_large"} 1"#,
            "mcpgen_proxy_upstream_seconds_count 1",
            r#"mcpgen_proxy_added_seconds_count{from="client"} 1"#,
            r#"mcpgen_proxy_added_seconds_count{from="server"} 1"#,
            "mcpgen_proxy_queued_messages 0",
        ],
    );
    // The refusal is the checker's finding too (META-6, an error).
    assert!(
        text.lines().any(|l| l.starts_with(r#"mcpgen_proxy_findings_total{rule="META-6",level="error"} "#)),
        "{text}"
    );
    // No message body, id or session reaches the exposition.
    assert!(!text.contains("\"id\"") && !text.contains("aaaa"), "{text}");
}

#[test]
fn the_metrics_server_answers_get_metrics_only_and_to_loopback_names_only() {
    let upstream = Upstream::start(|_| Reply::Never);
    let mut proxy = Proxy::start(&upstream.url, &["--metrics", "127.0.0.1:0"]);
    let metrics = metrics_addr(&mut proxy);
    let host = metrics.to_string();
    assert_eq!(call(metrics, "GET", "/metrics", &host).0, 200);
    assert_eq!(call(metrics, "HEAD", "/metrics", &host).0, 200);
    assert_eq!(call(metrics, "GET", "/", &host).0, 404);
    assert_eq!(call(metrics, "POST", "/metrics", &host).0, 405);
    // DNS rebinding: a page of evil.example that resolves to 127.0.0.1 reads nothing.
    let (status, body) = call(metrics, "GET", "/metrics", "evil.example:80");
    assert_eq!(status, 403, "{body}");
    assert!(!body.contains("mcpgen_proxy"), "{body}");
    assert_eq!(call(metrics, "GET", "/metrics", &format!("localhost:{}", metrics.port())).0, 200);
}

#[test]
fn silent_connections_fill_the_metrics_servers_slots_only_until_its_timeout() {
    let upstream = Upstream::start(|_| Reply::Never);
    let mut proxy = Proxy::start(&upstream.url, &["--metrics", "127.0.0.1:0"]);
    let metrics = metrics_addr(&mut proxy);
    // Every slot (8) taken by a connection that sends nothing: a scrape waits in the backlog
    // until the scrape timeout (10 s) closes them, then is answered.
    let silent: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(metrics).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    assert_eq!(call(metrics, "GET", "/metrics", &metrics.to_string()).0, 200);
    assert!(started.elapsed() >= Duration::from_secs(5), "answered while every slot was held: {:?}", started.elapsed());
    for mut s in silent {
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut buf = [0u8; 1024];
        // Closed by the server (EOF, or a 408 then EOF), not left open.
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) => assert_ne!(e.kind(), std::io::ErrorKind::WouldBlock, "a silent connection stayed open"),
            }
            break;
        }
    }
}

#[test]
fn a_non_loopback_metrics_address_needs_the_explicit_flag() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--metrics", "0.0.0.0:0", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--metrics 0.0.0.0:0: not a loopback address") && err.contains("--metrics-allow-non-loopback"),
        "{err}"
    );
}
