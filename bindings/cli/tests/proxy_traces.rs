//! `mcpgen proxy --otlp-endpoint URL`: the spans both proxies export, decoded by a receiver in
//! the test with the official OTLP protobuf definitions (`opentelemetry-proto`): names,
//! attributes of the MCP and JSON-RPC semantic conventions, the parent taken from
//! `_meta.traceparent`, findings as events; and relaying unaffected when the collector is down,
//! with the spans counted as not exported.
#![cfg(unix)]

mod http_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use http_support::*;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::{span::SpanKind, status::StatusCode, Span};
use prost::Message;

const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID: &str = "b7ad6b7169203331";
const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stdio_server.py");

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attr<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a AnyValue> {
    attributes.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.as_ref()).and_then(|v| v.value.as_ref())
}

fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    match attr(attributes, key) {
        Some(AnyValue::StringValue(s)) => Some(s.clone()),
        _ => None,
    }
}

/// Every span of every export the receiver got.
fn spans(receiver: &Upstream) -> Vec<Span> {
    let mut out = Vec::new();
    for seen in receiver.requests() {
        assert_eq!(seen.method, "POST");
        assert_eq!(seen.target, "/v1/traces");
        assert_eq!(seen.header("content-type"), Some("application/x-protobuf"));
        let request = ExportTraceServiceRequest::decode(seen.body.as_slice()).expect("an OTLP protobuf export");
        for resource in request.resource_spans {
            let service = resource.resource.as_ref().and_then(|r| text(&r.attributes, "service.name"));
            assert_eq!(service.as_deref(), Some("mcpgen-proxy"));
            for scope in resource.scope_spans {
                out.extend(scope.spans);
            }
        }
    }
    out
}

/// The upstream MCP server: `tools/call` gets a JSON-RPC error, anything else an empty result.
fn mcp_upstream() -> Upstream {
    Upstream::start(|seen| {
        let v: serde_json::Value = serde_json::from_slice(&seen.body).unwrap_or_default();
        let answer = if v["method"] == "tools/call" {
            serde_json::json!({"jsonrpc": "2.0", "id": v["id"], "error": {"code": -32602, "message": "no such tool"}})
        } else {
            serde_json::json!({"jsonrpc": "2.0", "id": v["id"], "result": {}})
        };
        Reply::Whole(200, vec![("content-type".into(), "application/json".into())], answer.to_string().into_bytes())
    })
}

#[test]
fn the_http_proxy_exports_one_span_per_exchange_with_its_conventions_parent_and_findings() {
    let receiver = Upstream::start(|_| {
        Reply::Whole(200, vec![("content-type".into(), "application/x-protobuf".into())], Vec::new())
    });
    let collector = receiver.url.strip_suffix("/mcp").unwrap().to_owned();
    let upstream = mcp_upstream();
    let proxy = Proxy::start(&upstream.url, &["--otlp-endpoint", &collector]);

    let call = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"traceparent":"00-{TRACE_ID}-{PARENT_ID}-01"}},"name":"add","arguments":{{}}}}}}"#
    );
    let mut headers = modern_headers("tools/call");
    headers.push(("mcp-name", "add".to_owned()));
    let answer = post(proxy.addr, &headers, &call);
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json()["error"]["code"], -32602);
    // `ping` is no method of 2026-07-28 (MSG-9 on /method): a finding on the request.
    let answer = post(proxy.addr, &modern_headers("ping"), &modern(8, "ping", ""));
    assert_eq!(answer.status, 200);
    // SIGTERM: the proxy exports what is left before it exits.
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("not exported"), "{stderr}");

    let spans = spans(&receiver);
    assert_eq!(spans.len(), 2, "{spans:#?}");
    let call = spans.iter().find(|s| s.name == "tools/call add").unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!(hex(&call.trace_id), TRACE_ID, "the span continues the client's trace");
    assert_eq!(hex(&call.parent_span_id), PARENT_ID);
    assert_eq!(call.kind, SpanKind::Server as i32);
    assert_eq!(text(&call.attributes, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(text(&call.attributes, "jsonrpc.request.id").as_deref(), Some("7"));
    assert_eq!(text(&call.attributes, "mcp.protocol.version").as_deref(), Some("2026-07-28"));
    assert_eq!(text(&call.attributes, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(text(&call.attributes, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(text(&call.attributes, "network.transport").as_deref(), Some("tcp"));
    assert_eq!(text(&call.attributes, "rpc.response.status_code").as_deref(), Some("-32602"));
    assert_eq!(text(&call.attributes, "error.type").as_deref(), Some("-32602"));
    assert_eq!(call.status.as_ref().map(|s| s.code), Some(StatusCode::Error as i32));
    assert!(call.end_time_unix_nano >= call.start_time_unix_nano);

    let ping = spans.iter().find(|s| s.name == "ping").unwrap_or_else(|| panic!("{spans:#?}"));
    assert_ne!(hex(&ping.trace_id), TRACE_ID, "no traceparent: a trace of its own");
    assert!(ping.parent_span_id.is_empty());
    assert_eq!(text(&ping.attributes, "jsonrpc.request.id").as_deref(), Some("8"));
    assert!(attr(&ping.attributes, "rpc.response.status_code").is_none());
    let finding = ping
        .events
        .iter()
        .find(|e| e.name == "mcpgen.finding" && text(&e.attributes, "mcpgen.rule.id").as_deref() == Some("MSG-9"))
        .unwrap_or_else(|| panic!("no MSG-9 event: {:#?}", ping.events));
    assert_eq!(text(&finding.attributes, "mcpgen.finding.level").as_deref(), Some("error"));
    assert_eq!(text(&finding.attributes, "mcpgen.finding.pointer").as_deref(), Some("/method"));
    let clause = text(&finding.attributes, "mcpgen.finding.clause").unwrap_or_default();
    assert!(clause.starts_with("https://modelcontextprotocol.io/specification/2026-07-28/"), "{clause}");
    // No body reaches the collector: the arguments and the error message are not in any export.
    for seen in receiver.requests() {
        let body = String::from_utf8_lossy(&seen.body);
        assert!(!body.contains("no such tool") && !body.contains("arguments"), "{body}");
    }
}

/// The metrics address from the first stderr line.
fn metrics_addr(line: &str) -> SocketAddr {
    line.trim()
        .strip_prefix("mcpgen proxy: metrics on http://")
        .and_then(|u| u.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("first stderr line: {line:?}"))
        .parse()
        .unwrap()
}

fn scrape(addr: SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn with_the_collector_down_the_stdio_proxy_relays_unchanged_ends_promptly_and_counts_the_spans() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let dir = scratch("collector-down");
    let log = dir.join("server.log");
    let collector = format!("http://{closed}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--report", dir.join("report.jsonl").to_str().unwrap()])
        .args(["--otlp-endpoint", &collector, "--metrics", "127.0.0.1:0", "--", "python3", SERVER])
        .arg(&log)
        // Export attempts every 100 ms, so the drop is seen while the session runs.
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let metrics = metrics_addr(&first);
    let stderr = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = err.read_to_string(&mut rest);
        rest
    });
    let input = concat!(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        "  {\"jsonrpc\" : \"2.0\", \"id\" : \"b\", \"method\" : \"tools/list\"}\r\n",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n",
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answers = String::new();
    for _ in 0..3 {
        stdout.read_line(&mut answers).unwrap();
    }
    assert_eq!(
        answers,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n"
    );
    // Three exchanges, three spans the collector never took: counted while the proxy runs.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = scrape(metrics);
        if text.lines().any(|l| l == "mcpgen_proxy_spans_dropped_total 3") {
            break;
        }
        assert!(Instant::now() < deadline, "no drop counted:\n{text}");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(stdin);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the proxy did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    assert!(started.elapsed() < Duration::from_secs(10), "ended after {:?}", started.elapsed());
    assert_eq!(std::fs::read_to_string(&log).unwrap(), input, "the server got the bytes unchanged");
    let stderr = stderr.join().unwrap();
    assert!(stderr.contains(&format!("3 of 3 span(s) not exported to {collector}/v1/traces")), "{stderr}");
}

#[test]
fn an_endpoint_that_is_not_http_or_another_otlp_protocol_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--otlp-endpoint", "https://collector.example:4318", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give an http:// URL"));
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--", "true"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("http/protobuf"), "{}", String::from_utf8_lossy(&out.stderr));
}
