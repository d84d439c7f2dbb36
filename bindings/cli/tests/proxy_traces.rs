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

/// `traceparent` = `00-{trace}-{parent span}-{flags}` in a request's `_meta`: its trace and span
/// ids.
fn injected_ids(request: &serde_json::Value) -> (String, String) {
    let value =
        request["params"]["_meta"]["traceparent"].as_str().unwrap_or_else(|| panic!("no traceparent: {request}"));
    let parts: Vec<&str> = value.split('-').collect();
    assert_eq!((parts.len(), parts[0], parts[3]), (4, "00", "01"), "{value}");
    assert!(parts[1].len() == 32 && parts[2].len() == 16, "{value}");
    (parts[1].to_owned(), parts[2].to_owned())
}

#[test]
fn with_injection_a_request_without_trace_context_carries_the_proxys_span_to_the_server() {
    let receiver = Upstream::start(|_| {
        Reply::Whole(200, vec![("content-type".into(), "application/x-protobuf".into())], Vec::new())
    });
    let collector = receiver.url.strip_suffix("/mcp").unwrap().to_owned();
    let upstream = mcp_upstream();
    let proxy = Proxy::start(&upstream.url, &["--otlp-endpoint", &collector, "--otlp-inject-traceparent"]);

    let list = modern(5, "tools/list", "");
    let answer = post(proxy.addr, &modern_headers("tools/list"), &list);
    assert_eq!((answer.status, answer.json()["id"].as_u64()), (200, Some(5)));
    // A request with trace context of its own goes as it came.
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"traceparent":"00-{TRACE_ID}-{PARENT_ID}-01"}},"name":"add","arguments":{{}}}}}}"#
    );
    let mut headers = modern_headers("tools/call");
    headers.push(("mcp-name", "add".to_owned()));
    assert_eq!(post(proxy.addr, &headers, &call).status, 200);
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(0), "{stderr}");

    let got = upstream.requests();
    assert_eq!(got.len(), 2);
    let first: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    let (trace, span) = injected_ids(&first);
    // Everything else as the client sent it; the length header follows the new body.
    let mut without = first.clone();
    without["params"]["_meta"].as_object_mut().unwrap().remove("traceparent");
    assert_eq!(without, serde_json::from_str::<serde_json::Value>(&list).unwrap());
    assert_eq!(got[0].header("content-length"), Some(got[0].body.len().to_string().as_str()));
    assert_eq!(String::from_utf8_lossy(&got[1].body), call, "untouched");

    let spans = spans(&receiver);
    assert_eq!(spans.len(), 2, "{spans:#?}");
    let list_span = spans.iter().find(|s| s.name == "tools/list").unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!(
        (hex(&list_span.trace_id), hex(&list_span.span_id)),
        (trace, span),
        "the server's parent is the proxy's span"
    );
    assert!(list_span.parent_span_id.is_empty(), "a root: the client sent no trace context");
    let call_span = spans.iter().find(|s| s.name == "tools/call add").unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!((hex(&call_span.trace_id), hex(&call_span.parent_span_id)), (TRACE_ID.to_owned(), PARENT_ID.to_owned()));
}

#[test]
fn the_stdio_proxy_injects_too_and_only_with_traces_on() {
    let receiver = Upstream::start(|_| {
        Reply::Whole(200, vec![("content-type".into(), "application/x-protobuf".into())], Vec::new())
    });
    let collector = receiver.url.strip_suffix("/mcp").unwrap().to_owned();
    let dir = scratch("inject-stdio");
    let log = dir.join("server.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--otlp-endpoint", &collector, "--otlp-inject-traceparent", "--", "python3", SERVER])
        .arg(&log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    let mut answer = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut answer).unwrap();
    assert_eq!(answer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let got = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = got.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 2, "{got:?}");
    assert!(lines[0].ends_with("}\r\n"), "the line ending is kept: {got:?}");
    let ping: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    let (trace, span) = injected_ids(&ping);
    assert_eq!(
        lines[1], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        "a notification is untouched"
    );
    let spans = spans(&receiver);
    assert_eq!(spans.len(), 1, "{spans:#?}");
    assert_eq!((hex(&spans[0].trace_id), hex(&spans[0].span_id)), (trace, span));

    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--otlp-inject-traceparent", "--", "true"])
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("traces are off"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `mcp.notification` events of a span: (method, sender, progress, total).
fn notification_events(span: &Span) -> Vec<(String, String, Option<f64>, Option<f64>)> {
    let number = |e: &opentelemetry_proto::tonic::trace::v1::span::Event, k: &str| match attr(&e.attributes, k) {
        Some(AnyValue::DoubleValue(n)) => Some(*n),
        _ => None,
    };
    span.events
        .iter()
        .filter(|e| e.name == "mcp.notification")
        .map(|e| {
            (
                text(&e.attributes, "mcp.method.name").unwrap_or_default(),
                text(&e.attributes, "mcpgen.sender").unwrap_or_default(),
                number(e, "mcp.progress.progress"),
                number(e, "mcp.progress.total"),
            )
        })
        .collect()
}

#[test]
fn progress_and_cancellation_are_events_on_the_span_of_their_request() {
    let receiver = Upstream::start(|_| {
        Reply::Whole(200, vec![("content-type".into(), "application/x-protobuf".into())], Vec::new())
    });
    let collector = receiver.url.strip_suffix("/mcp").unwrap().to_owned();
    // HTTP: the answer's stream carries a progress notification for the call's token, then the
    // result; a progress notification for another token belongs to no span.
    let upstream = Upstream::start(|seen| {
        let v: serde_json::Value = serde_json::from_slice(&seen.body).unwrap_or_default();
        let event = |m: serde_json::Value| format!("event: message\ndata: {m}\n\n").into_bytes();
        let progress = |token: &str, n: u64| {
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": n, "total": 4, "message": "secret text"}})
        };
        let result =
            serde_json::json!({"jsonrpc": "2.0", "id": v["id"], "result": {"resultType": "complete", "content": []}});
        Reply::Stream(
            vec![("content-type".into(), "text/event-stream".into())],
            vec![
                Step::Chunk(event(progress("p1", 1))),
                Step::Chunk(event(progress("other", 2))),
                Step::Chunk(event(result)),
            ],
        )
    });
    let proxy = Proxy::start(&upstream.url, &["--otlp-endpoint", &collector]);
    let call = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"},"name":"add","arguments":{}}}"#;
    let mut headers = modern_headers("tools/call");
    headers.push(("mcp-name", "add".to_owned()));
    headers.push(("accept", "application/json, text/event-stream".to_owned()));
    let answer = post(proxy.addr, &headers, call);
    assert_eq!(answer.status, 200);
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(0), "{stderr}");
    let http_spans = spans(&receiver);
    assert_eq!(http_spans.len(), 1, "{http_spans:#?}");
    assert_eq!(
        notification_events(&http_spans[0]),
        [("notifications/progress".to_owned(), "server".to_owned(), Some(1.0), Some(4.0))]
    );
    for seen in receiver.requests() {
        assert!(!String::from_utf8_lossy(&seen.body).contains("secret text"), "a notification's text is exported");
    }

    // stdio: a request the server never answers, cancelled by the client.
    let receiver = Upstream::start(|_| {
        Reply::Whole(200, vec![("content-type".into(), "application/x-protobuf".into())], Vec::new())
    });
    let collector = receiver.url.strip_suffix("/mcp").unwrap().to_owned();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--otlp-endpoint", &collector, "--", "sh", "-c", "cat >/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            concat!(
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}\n",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":4,\"reason\":\"secret reason\"}}\n",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5}}\n",
            )
            .as_bytes(),
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdio_spans = spans(&receiver);
    assert_eq!(stdio_spans.len(), 1, "{stdio_spans:#?}");
    assert_eq!(
        notification_events(&stdio_spans[0]),
        [("notifications/cancelled".to_owned(), "client".to_owned(), None, None)]
    );
    for seen in receiver.requests() {
        assert!(!String::from_utf8_lossy(&seen.body).contains("secret reason"));
    }
}

#[test]
fn with_include_bodies_the_messages_text_is_on_the_span_cut_at_16_kib() {
    let receiver = Upstream::start(|_| {
        Reply::Whole(200, vec![("content-type".into(), "application/x-protobuf".into())], Vec::new())
    });
    let collector = receiver.url.strip_suffix("/mcp").unwrap().to_owned();
    let upstream = mcp_upstream();
    let proxy = Proxy::start(&upstream.url, &["--otlp-endpoint", &collector, "--otlp-include-bodies"]);
    let small = modern(3, "tools/list", "");
    assert_eq!(post(proxy.addr, &modern_headers("tools/list"), &small).status, 200);
    // A 20,000-byte request: its attribute stops at 16 KiB.
    let big = modern(4, "tools/list", &format!(r#""cursor":"{}""#, "x".repeat(20_000)));
    assert_eq!(post(proxy.addr, &modern_headers("tools/list"), &big).status, 200);
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("message bodies (tool arguments, results, prompts) are exported"), "{stderr}");
    let spans = spans(&receiver);
    let by_id = |id: &str| {
        spans
            .iter()
            .find(|s| text(&s.attributes, "jsonrpc.request.id").as_deref() == Some(id))
            .unwrap_or_else(|| panic!("{spans:#?}"))
    };
    let first = by_id("3");
    assert_eq!(text(&first.attributes, "mcpgen.request.body").as_deref(), Some(small.as_str()));
    let answer: serde_json::Value =
        serde_json::from_str(&text(&first.attributes, "mcpgen.response.body").unwrap()).unwrap();
    assert_eq!(answer, serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    let cut = text(&by_id("4").attributes, "mcpgen.request.body").unwrap();
    assert_eq!(cut, format!("{}…", &big[..16 * 1024]));

    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--otlp-include-bodies", "--", "true"])
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("traces are off"));
}
