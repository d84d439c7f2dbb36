//! `mcpgen proxy --enforce` (stdio) with tools: a `tools/call` whose arguments break the listed
//! `inputSchema` is answered by the proxy, as the revision in play requires, and never reaches
//! the server (`tests/fixtures/tools_server.py` logs every line it receives); with
//! `--enforce-tools-baseline`, calls of unlisted tools and of tools changed against the pin
//! are refused too.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use serde_json::{json, Value};
use support::{json_lines, mcpgen_command, scratch, spawn_proxy};

const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tools_server.py");

/// A proxy in front of the tools server; each request waits for its answer, as a client does.
struct Session {
    child: std::process::Child,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start(dir: &Path, flags: &[&str], server_flags: &[&str]) -> Session {
        let report = dir.join("report.jsonl");
        let flags = [&["--enforce", "--report", report.to_str().unwrap()][..], flags].concat();
        let log = dir.join("server.log");
        let server = [&["python3", SERVER, log.to_str().unwrap()][..], server_flags].concat();
        let mut child = spawn_proxy(&flags, &server);
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Session { child, stdout }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn ask(&mut self, message: Value) -> Value {
        self.send(&message);
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    fn end(mut self) {
        drop(self.child.stdin.take());
        let out = self.child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    request(id, method, params)
}

/// A legacy session at `version`, both pages listed.
fn legacy(s: &mut Session, version: &str) {
    let init = request(
        1,
        "initialize",
        json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    );
    assert_eq!(s.ask(init)["result"]["protocolVersion"], version);
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert!(s.ask(request(2, "tools/list", json!({})))["result"]["nextCursor"].is_string());
    assert!(s.ask(request(3, "tools/list", json!({"cursor": "2"})))["result"]["tools"].is_array());
}

/// The `tools/call` lines the server received.
fn calls_received(dir: &Path) -> Vec<Value> {
    json_lines(&dir.join("server.log")).into_iter().filter(|m| m["method"] == "tools/call").collect()
}

/// (rule, pointer) of the findings on client messages in the report.
fn client_findings(dir: &Path) -> Vec<(String, String)> {
    let mut all = Vec::new();
    for line in json_lines(&dir.join("report.jsonl")) {
        if line["from"] != "client" {
            continue;
        }
        for e in line["errors"].as_array().into_iter().flatten() {
            all.push((e["rule"].as_str().unwrap_or_default().to_owned(), e["pointer"].as_str().unwrap().to_owned()));
        }
    }
    all
}

#[test]
fn before_2025_11_25_an_invalid_call_is_answered_32602_and_never_forwarded() {
    let dir = scratch("tools_enforce", "legacy_2025_06_18");
    let mut s = Session::start(&dir, &[], &[]);
    legacy(&mut s, "2025-06-18");
    let bad = s.ask(request(4, "tools/call", json!({"name": "echo", "arguments": {"text": 5}})));
    assert_eq!(bad["id"], 4);
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(bad["error"]["message"].as_str().unwrap().contains("at /params/arguments/text"), "{bad}");
    let good = s.ask(request(5, "tools/call", json!({"name": "echo", "arguments": {"text": "hi"}})));
    assert_eq!(good["result"]["content"][0]["text"], "called", "{good}");
    s.end();
    let received = calls_received(&dir);
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0]["id"], 5);
    assert_eq!(client_findings(&dir), [("TOOL-7".to_owned(), "/params/arguments/text".to_owned())]);
}

#[test]
fn from_2025_11_25_an_invalid_call_is_a_tool_error_result_in_both_eras() {
    let dir = scratch("tools_enforce", "legacy_2025_11_25");
    let mut s = Session::start(&dir, &[], &[]);
    legacy(&mut s, "2025-11-25");
    let bad = s.ask(request(4, "tools/call", json!({"name": "add", "arguments": {"a": 1}})));
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    assert!(bad["result"].get("resultType").is_none(), "no resultType before 2026-07-28: {bad}");
    assert!(bad["result"]["content"][0]["text"].as_str().unwrap().contains("tool `add`"), "{bad}");
    s.end();
    assert_eq!(calls_received(&dir), Vec::<Value>::new());
    assert_eq!(client_findings(&dir), [("TOOL-7".to_owned(), "/params/arguments".to_owned())]);

    let dir = scratch("tools_enforce", "modern");
    let mut s = Session::start(&dir, &[], &[]);
    s.ask(modern(1, "tools/list", json!({})));
    s.ask(modern(2, "tools/list", json!({"cursor": "2"})));
    let bad = s.ask(modern(3, "tools/call", json!({"name": "echo", "arguments": {"text": "x".repeat(21)}})));
    assert_eq!((&bad["result"]["isError"], &bad["result"]["resultType"]), (&json!(true), &json!("complete")), "{bad}");
    let good = s.ask(modern(4, "tools/call", json!({"name": "echo", "arguments": {"text": "fine"}})));
    assert_eq!(good["result"]["content"][0]["text"], "called");
    s.end();
    let received = calls_received(&dir);
    assert_eq!(received.iter().map(|m| m["id"].clone()).collect::<Vec<_>>(), [json!(4)]);
}

#[test]
fn enforce_tools_baseline_refuses_unlisted_and_changed_tools() {
    let dir = scratch("tools_enforce", "baseline");
    let pin = dir.join("pin.json");
    let out = mcpgen_command()
        .args(["tools", "pin", "-o", pin.to_str().unwrap(), "--", "python3", SERVER])
        .arg(dir.join("pin.log"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let flags = ["--tools-baseline", pin.to_str().unwrap(), "--enforce-tools-baseline"];
    let mut s = Session::start(&dir, &flags, &["--description", "Echo the text, then mail it"]);
    legacy(&mut s, "2025-11-25");
    let changed = s.ask(request(4, "tools/call", json!({"name": "echo", "arguments": {"text": "hi"}})));
    assert_eq!(changed["error"]["code"], -32602, "{changed}");
    assert!(changed["error"]["message"].as_str().unwrap().contains("differs from its pinned definition"));
    let unlisted = s.ask(request(5, "tools/call", json!({"name": "rm", "arguments": {}})));
    assert_eq!(unlisted["error"]["code"], -32602, "{unlisted}");
    let pinned = s.ask(request(6, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})));
    assert_eq!(pinned["result"]["content"][0]["text"], "called", "{pinned}");
    s.end();
    let received = calls_received(&dir);
    assert_eq!(received.iter().map(|m| m["id"].clone()).collect::<Vec<_>>(), [json!(6)]);
}

#[test]
fn enforce_tools_baseline_needs_enforce_and_a_pin() {
    let out = mcpgen_command().args(["proxy", "--enforce-tools-baseline", "--", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}
