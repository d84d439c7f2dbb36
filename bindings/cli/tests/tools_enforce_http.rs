//! `mcpgen proxy --listen … --enforce` with tools: a modern `tools/call` whose arguments break
//! the listed `inputSchema` is answered by the proxy (a tool result with `isError: true`) and
//! never reaches the upstream, which records every request it receives.
#![cfg(unix)]

mod http_support;

use http_support::*;
use serde_json::{json, Value};

fn upstream() -> Upstream {
    Upstream::start(|seen| {
        let msg: Value = serde_json::from_slice(&seen.body).unwrap_or(Value::Null);
        let result = match msg["method"].as_str() {
            Some("initialize") => {
                let result = json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "u", "version": "1"}});
                let body = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result}).to_string();
                let headers =
                    vec![("content-type".into(), "application/json".into()), ("mcp-session-id".into(), "s1".into())];
                return Reply::Whole(200, headers, body.into_bytes());
            }
            Some("tools/list") => json!({"resultType": "complete", "tools": [{
                "name": "echo",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
            }]}),
            _ => json!({"resultType": "complete", "content": [{"type": "text", "text": "called"}]}),
        };
        let body = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result}).to_string();
        Reply::Whole(200, vec![("content-type".into(), "application/json".into())], body.into_bytes())
    })
}

fn call_headers() -> Vec<(&'static str, String)> {
    let mut h = modern_headers("tools/call");
    h.push(("mcp-name", "echo".to_owned()));
    h
}

#[test]
fn an_invalid_call_is_a_tool_error_from_the_proxy_and_never_reaches_the_upstream() {
    let upstream = upstream();
    let dir = scratch("tools_enforce_http");
    let report = dir.join("report.jsonl");
    let proxy = Proxy::start(&upstream.url, &["--enforce", "--report", report.to_str().unwrap()]);
    let listed = post(proxy.addr, &modern_headers("tools/list"), &modern(1, "tools/list", ""));
    assert_eq!(listed.json()["result"]["tools"][0]["name"], "echo");

    let bad = post(proxy.addr, &call_headers(), &modern(2, "tools/call", r#""name":"echo","arguments":{"text":7}"#));
    assert_eq!(bad.status, 200);
    let answer = bad.json();
    assert_eq!((&answer["id"], &answer["result"]["isError"]), (&json!(2), &json!(true)), "{answer}");
    assert_eq!(answer["result"]["resultType"], "complete");

    let good =
        post(proxy.addr, &call_headers(), &modern(3, "tools/call", r#""name":"echo","arguments":{"text":"hi"}"#));
    assert_eq!(good.json()["result"]["content"][0]["text"], "called");
    let (_, err) = proxy.stop();
    assert!(err.contains("(--enforce, TOOL-7)"), "{err}");

    let calls: Vec<Value> = upstream
        .requests()
        .iter()
        .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap())
        .filter(|m| m["method"] == "tools/call")
        .collect();
    assert_eq!(calls.iter().map(|m| m["id"].clone()).collect::<Vec<_>>(), [json!(3)], "{calls:?}");
    let pointers: Vec<String> = json_lines(&report)
        .iter()
        .filter(|l| l["from"] == "client")
        .flat_map(|l| l["errors"].as_array().cloned().unwrap_or_default())
        .map(|e| format!("{} {}", e["rule"].as_str().unwrap_or(""), e["pointer"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(pointers, ["TOOL-7 /params/arguments/text"]);
}

#[test]
fn in_a_2025_06_18_session_an_invalid_call_is_answered_32602_and_never_reaches_the_upstream() {
    let upstream = upstream();
    let proxy = Proxy::start(&upstream.url, &["--enforce"]);
    let base = vec![
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
    ];
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let opened = post(proxy.addr, &base, init);
    assert_eq!(opened.header("mcp-session-id"), Some("s1"));
    let mut session = base.clone();
    session.push(("mcp-session-id", "s1".to_owned()));
    session.push(("mcp-protocol-version", "2025-06-18".to_owned()));
    post(proxy.addr, &session, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let listed = post(proxy.addr, &session, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert_eq!(listed.json()["result"]["tools"][0]["name"], "echo");
    let bad = post(
        proxy.addr,
        &session,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
    );
    assert_eq!((bad.status, &bad.json()["error"]["code"]), (200, &json!(-32602)), "{}", bad.json());
    // Outside the session nothing was listed: the same call is forwarded.
    let outside = post(proxy.addr, &call_headers(), &modern(4, "tools/call", r#""name":"echo","arguments":{}"#));
    assert_eq!(outside.json()["result"]["content"][0]["text"], "called");
    drop(proxy);
    let ids: Vec<Value> = upstream
        .requests()
        .iter()
        .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap_or(Value::Null))
        .filter(|m| m["method"] == "tools/call")
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(ids, [json!(4)]);
}
