//! `mcpgen proxy --metrics` scraped by a real Prometheus: the test starts `prometheus` on
//! 127.0.0.1 with a 1 s scrape of the stdio proxy's metrics, runs a known session through the
//! proxy, and reads the request and finding counts back through Prometheus's HTTP API.
//!
//! Needs the `prometheus` binary (Debian's package; `.ci/run` installs it), found as
//! `$MCPGEN_PROMETHEUS` or on `PATH`. Missing, the test fails; `MCPGEN_SKIP_PROMETHEUS=1`
//! opts out (docs/testing.md).
#![cfg(unix)]

mod support;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{drain, scratch, spawn_proxy};

const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stdio_server.py");

/// How long Prometheus may take to start, scrape and answer with the expected values.
const PATIENCE: Duration = Duration::from_secs(90);

fn prometheus_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MCPGEN_PROMETHEUS") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("prometheus")).find(|p| p.is_file())
}

/// A port nobody listens on now (bound, read, closed).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `GET target` over HTTP/1.0 (no chunking): status and body.
fn get(addr: SocketAddr, target: &str) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(s, "GET {target} HTTP/1.0\r\nHost: {addr}\r\n\r\n")?;
    let mut text = String::new();
    s.read_to_string(&mut text)?;
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    Ok((status, body.to_owned()))
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The value of an instant query's single sample, if it has exactly one.
fn query(prometheus: SocketAddr, promql: &str) -> Option<f64> {
    let (status, body) = get(prometheus, &format!("/api/v1/query?query={}", percent_encode(promql))).ok()?;
    if status != 200 {
        return None;
    }
    let v: Value = serde_json::from_str(&body).ok()?;
    let result = v["data"]["result"].as_array()?;
    if result.len() != 1 {
        return None;
    }
    result[0]["value"][1].as_str()?.parse().ok()
}

/// Prometheus, killed on drop.
struct Prometheus(Child);

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_prometheus(binary: &Path, dir: &Path, target: SocketAddr) -> (Prometheus, SocketAddr) {
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: mcpgen\n    scrape_interval: 1s\n    scrape_timeout: 1s\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .unwrap();
    let web: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let log = std::fs::File::create(dir.join("prometheus.log")).unwrap();
    let child = Command::new(binary)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", dir.join("tsdb").display()))
        .arg(format!("--web.listen-address={web}"))
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    (Prometheus(child), web)
}

#[test]
fn a_real_prometheus_reads_back_the_request_and_finding_counts_of_a_known_session() {
    let Some(binary) = prometheus_binary() else {
        if std::env::var_os("MCPGEN_SKIP_PROMETHEUS").is_some_and(|v| v == "1") {
            eprintln!("MCPGEN_SKIP_PROMETHEUS=1: the Prometheus scrape test is skipped");
            return;
        }
        panic!(
            "no `prometheus` binary on PATH (nor $MCPGEN_PROMETHEUS): install Debian's package \
             (`apt-get install -y --no-install-recommends prometheus`, as .ci/run does), or set \
             MCPGEN_SKIP_PROMETHEUS=1 to skip this test (docs/testing.md)"
        );
    };
    let dir = scratch("metrics", "prometheus");
    let report = dir.join("report.jsonl");
    let log = dir.join("server.log");
    let mut proxy = spawn_proxy(
        &["--report", report.to_str().unwrap(), "--metrics", "127.0.0.1:0"],
        &[OsStr::new("python3"), OsStr::new(SERVER), log.as_os_str()],
    );
    let mut err = BufReader::new(proxy.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let metrics: SocketAddr = first
        .trim()
        .strip_prefix("mcpgen proxy: metrics on http://")
        .and_then(|u| u.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("first stderr line: {first:?}"))
        .parse()
        .unwrap();
    let stderr = drain(err);

    // The known session. Its findings under the newest revision (2026-07-28), from the spec:
    // `ping` was removed (MSG-9, twice); `notifications/progress` is the server's to send
    // (MSG-10); `{broken` is not JSON (MSG-8).
    let mut stdin = proxy.stdin.take().unwrap();
    let mut stdout = BufReader::new(proxy.stdout.take().unwrap());
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
        "{broken",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{}}}"#,
    ] {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }
    // Three answers, one per request.
    for _ in 0..3 {
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        assert!(answer.contains("\"result\""), "{answer:?}");
    }

    let (_prometheus, web) = start_prometheus(&binary, &dir, metrics);
    let expected: &[(&str, f64)] = &[
        (r#"up{job="mcpgen"}"#, 1.0),
        (r#"mcpgen_proxy_requests_total{from="client",method="ping"}"#, 2.0),
        (r#"mcpgen_proxy_requests_total{from="client",method="tools/call"}"#, 1.0),
        (r#"mcpgen_proxy_notifications_total{from="client",method="notifications/progress"}"#, 1.0),
        (r#"mcpgen_proxy_responses_total{from="server",method="ping",class="ok"}"#, 2.0),
        (r#"mcpgen_proxy_tool_calls_total{tool="add"}"#, 1.0),
        (r#"mcpgen_proxy_unparsable_total{from="client"}"#, 1.0),
        (r#"mcpgen_proxy_findings_total{rule="MSG-9",level="error"}"#, 2.0),
        (r#"mcpgen_proxy_findings_total{rule="MSG-10",level="error"}"#, 1.0),
        (r#"mcpgen_proxy_findings_total{rule="MSG-8",level="error"}"#, 1.0),
        (r#"mcpgen_proxy_request_duration_seconds_count{method="ping"}"#, 2.0),
        (r#"sum(mcpgen_proxy_added_seconds_count{from="client"})"#, 5.0),
    ];
    let deadline = Instant::now() + PATIENCE;
    let mut last: Vec<(&str, Option<f64>)>;
    loop {
        last = expected.iter().map(|(q, _)| (*q, query(web, q))).collect();
        if last.iter().zip(expected).all(|((_, got), (_, want))| *got == Some(*want)) {
            break;
        }
        if Instant::now() > deadline {
            let log = std::fs::read_to_string(dir.join("prometheus.log")).unwrap_or_default();
            let tail: String = log.lines().rev().take(20).collect::<Vec<_>>().join("\n");
            panic!("Prometheus did not return the expected values within {PATIENCE:?}: {last:?}\nprometheus.log (last lines, newest first):\n{tail}");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    // No warning-level finding in this session, and no refusal (no --enforce).
    assert_eq!(query(web, r#"sum(mcpgen_proxy_findings_total{level="warning"})"#), None);
    assert_eq!(query(web, "sum(mcpgen_proxy_refused_total)"), None);

    drop(stdin);
    let status = proxy.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
    assert!(stderr.is_empty(), "{stderr}");
}
