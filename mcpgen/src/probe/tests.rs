//! The engine against a scripted server: a right one probes clean, each seeded fault is found
//! with its rule.

use serde_json::{json, Value};

use super::*;
use crate::protocol::{check_request, ServerConfig};
use crate::rules::id;

/// A small modern server: refuses what `check_request` refuses, serves discover, one page of
/// tools and `tools/call`; `fault` changes one answer.
struct Scripted {
    fault: Option<&'static str>,
    calls: Vec<Value>,
}

impl Scripted {
    fn answer(&mut self, request: &Value) -> Vec<Value> {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let bytes = request.to_string();
        if let Err(e) = check_request(bytes.as_bytes(), &ServerConfig::new(["2026-07-28"])) {
            let mut response = e.to_response_json();
            if self.fault == Some("unknown-method-internal") && e.code == -32601 {
                response =
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "oops"}}).to_string();
            }
            return vec![serde_json::from_str(&response).unwrap()];
        }
        let method = request["method"].as_str().unwrap_or("");
        let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "1"}});
        let result = match method {
            "server/discover" => json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}}, "_meta": meta, "ttlMs": 0, "cacheScope": "public"}),
            "tools/list" => json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public", "tools": [
                {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                 "annotations": {"readOnlyHint": true}},
                {"name": "delete_everything", "inputSchema": {"type": "object"}}
            ]}),
            "tools/call" => {
                self.calls.push(request["params"].clone());
                json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]})
            }
            _ => return vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})],
        };
        let mut out = Vec::new();
        if self.fault == Some("log-without-capability") && method == "tools/call" {
            out.push(
                json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}}),
            );
        }
        out.push(json!({"jsonrpc": "2.0", "id": id, "result": result}));
        out
    }
}

impl Peer for Scripted {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        if id.is_none() {
            return Ok(Vec::new());
        }
        Ok(self.answer(&request).iter().map(|v| v.to_string().into_bytes()).collect())
    }
}

fn modern_only() -> ProbeOptions {
    ProbeOptions { legacy: false, ..ProbeOptions::default() }
}

fn rules(report: &Report) -> Vec<(String, Option<&'static str>)> {
    report.findings.iter().map(|f| (f.check.clone(), f.rule)).collect()
}

#[test]
fn a_right_server_probes_clean_and_only_read_only_tools_are_called() {
    let mut peer = Scripted { fault: None, calls: Vec::new() };
    let report = run(&mut peer, &modern_only());
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(report.eras, ["modern"]);
    for check in [
        "discover",
        "inventory/tools/list",
        "negative/missing-meta",
        "negative/unsupported-version",
        "negative/unknown-method",
        "negative/bad-envelope",
        "tool/echo",
    ] {
        assert!(report.checks.iter().any(|c| c == check), "{check} not run: {:?}", report.checks);
    }
    // The destructive tool was never called; the read-only one with schema-valid arguments.
    assert_eq!(
        peer.calls,
        [json!({"name": "echo", "arguments": {"text": "p"}, "_meta": peer.calls[0]["_meta"].clone()})]
    );
}

#[test]
fn a_wrong_error_code_is_reported_with_the_rule_check_request_gives() {
    let mut peer = Scripted { fault: Some("unknown-method-internal"), calls: Vec::new() };
    let report = run(&mut peer, &modern_only());
    assert_eq!(rules(&report), [("negative/unknown-method".to_owned(), Some(id::MSG_9))], "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!(f.pointer, "/error/code");
    assert!(f.message.contains("-32603") && f.message.contains("-32601"), "{}", f.message);
    let shown = &report.exchanges[f.exchange.unwrap()];
    assert_eq!(shown.sent["method"], "mcpgen/probe-unknown-method");
}

#[test]
fn the_conversation_checker_judges_what_the_server_sends() {
    let mut peer = Scripted { fault: Some("log-without-capability"), calls: Vec::new() };
    let report = run(&mut peer, &modern_only());
    // Undeclared `logging` (LOG-5), and sent to a request that did not ask for logs (LOG-1).
    let want = [("tool/echo".to_owned(), Some(id::LOG_5)), ("tool/echo".to_owned(), Some(id::LOG_1))];
    assert_eq!(rules(&report), want, "{:#?}", report.findings);
    assert!(report.has_errors());
}

#[test]
fn tool_policies() {
    for (policy, want) in [
        (ToolPolicy::None, 0),
        (ToolPolicy::ReadOnly, 1),
        (ToolPolicy::All, 2),
        (ToolPolicy::Named(vec!["delete_everything".into()]), 1),
    ] {
        let mut peer = Scripted { fault: None, calls: Vec::new() };
        run(&mut peer, &ProbeOptions { call_tools: policy.clone(), ..modern_only() });
        assert_eq!(peer.calls.len(), want, "{policy:?}");
    }
    // At most `max_tool_calls`, whatever the policy allows.
    let mut peer = Scripted { fault: None, calls: Vec::new() };
    run(&mut peer, &ProbeOptions { call_tools: ToolPolicy::All, max_tool_calls: 1, ..modern_only() });
    assert_eq!(peer.calls.len(), 1);
}

/// A peer that never answers: every request is a finding (MSG-11), nothing hangs.
struct Silent;

impl Peer for Silent {
    fn send(&mut self, _: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        if id.is_some() {
            Err(PeerError::Timeout { after_ms: 5 })
        } else {
            Ok(Vec::new())
        }
    }
}

#[test]
fn a_server_that_never_answers_is_reported_not_waited_for() {
    let report = run(&mut Silent, &ProbeOptions::default());
    assert!(report.eras.is_empty());
    // discover, then the legacy fallback's initialize.
    assert_eq!(rules(&report), [("discover".into(), Some(id::MSG_11)), ("legacy/2025-11-25".into(), Some(id::MSG_11))]);
    assert_eq!(report.exchanges[0].peer_error.as_deref(), Some("no answer within 5 ms"));
}

/// A server whose cursor never ends: read `max_pages` pages, then a PROBE-1 warning.
struct EndlessPages;

impl Peer for EndlessPages {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        let Some(id) = id else { return Ok(Vec::new()) };
        let result = match request["method"].as_str() {
            Some("server/discover") => json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                "capabilities": {"prompts": {}}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
                "ttlMs": 0, "cacheScope": "public"}),
            Some("prompts/list") => {
                json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public", "prompts": [], "nextCursor": "again"})
            }
            _ => {
                return Ok(vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})
                    .to_string()
                    .into_bytes()])
            }
        };
        Ok(vec![json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string().into_bytes()])
    }
}

#[test]
fn an_endless_cursor_is_read_up_to_the_page_limit() {
    let options = ProbeOptions { max_pages: 3, ..modern_only() };
    let report = run(&mut EndlessPages, &options);
    let pages = report.checks.iter().filter(|c| *c == "inventory/prompts/list").count();
    assert_eq!(pages, 3);
    let probe_1: Vec<_> = report.findings.iter().filter(|f| f.rule == Some(id::PROBE_1)).collect();
    assert_eq!(probe_1.len(), 1, "{:#?}", report.findings);
    assert_eq!(probe_1[0].level, Level::Warning);
}

#[test]
fn exchanges_past_the_cap_are_counted_not_kept() {
    let options = ProbeOptions { max_exchanges: 2, ..modern_only() };
    let mut peer = Scripted { fault: None, calls: Vec::new() };
    let report = run(&mut peer, &options);
    assert_eq!(report.exchanges.len(), 2);
    assert!(report.dropped_exchanges > 0);
    assert_eq!(report.exchanges.len() + report.dropped_exchanges, report.checks.len());
}
