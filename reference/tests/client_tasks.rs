//! The reference client against the reference server (127.0.0.1) on the Tasks extension: a
//! tool that needs a task answers -32021 naming the extension; the client repeats the call
//! declaring the extension in that request's `_meta`, polls `tasks/get`, answers the task's
//! `inputRequests` with `tasks/update` and returns the completed task's result. Both peers'
//! checkers see the whole exchange and find nothing.

use std::sync::Arc;

use mcpgen::conversation::Sender;
use mcpgen_reference::client::check::SelfCheck;
use mcpgen_reference::client::era::Start;
use mcpgen_reference::client::session::Session;
use mcpgen_reference::client::ClientError;
use mcpgen_reference::server::{http, Server};
use serde_json::{json, Value};

async fn server() -> (Arc<Server>, String) {
    let server = Arc::new(Server::new(true));
    let (listener, addr) = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    tokio::spawn(http::serve(Arc::clone(&server), listener));
    (server, format!("http://{addr}/mcp"))
}

fn methods_sent(check: &SelfCheck) -> Vec<String> {
    check
        .recorded()
        .iter()
        .filter(|(from, _)| *from == Sender::Client)
        .filter_map(|(_, m)| serde_json::from_str::<Value>(m).ok()?.get("method")?.as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_needs_a_task_is_called_as_one_and_its_input_requests_answered() {
    let (server, url) = server().await;
    let mut session = Session::connect(&url, Start::Modern("2026-07-28".into()), SelfCheck::recording()).await.unwrap();
    assert!(session.server_offers_tasks());
    let result =
        session.request("tools/call", json!({"name": "confirm_delete", "arguments": {"filename": "f.txt"}})).await;
    let result = result.unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Deleted f.txt"), "{text}");
    // A task that fails ends the call with the task's JSON-RPC error.
    let failed = session.request("tools/call", json!({"name": "protocol_error_job", "arguments": {}})).await;
    assert!(matches!(failed, Err(ClientError::Remote { code: -32603, .. })), "{failed:?}");
    let check = session.close().await;
    let sent = methods_sent(&check);
    let calls = sent.iter().filter(|m| *m == "tools/call").count();
    assert!(calls >= 2, "the first call, then the one declaring the extension: {sent:?}");
    assert!(sent.iter().any(|m| m == "tasks/get") && sent.iter().any(|m| m == "tasks/update"), "{sent:?}");
    let findings: Vec<&String> = check.findings().iter().filter(|f| !f.contains("calling it as a task")).collect();
    assert!(findings.is_empty(), "client findings: {findings:?}");
    let server_findings: Vec<String> =
        server.self_check().unwrap().findings().iter().map(|(k, f)| format!("{k}: {f}")).collect();
    assert_eq!(server_findings, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_that_completes_with_a_tool_error_is_a_tool_error_result() {
    let (_server, url) = server().await;
    let mut session = Session::connect(&url, Start::Modern("2026-07-28".into()), SelfCheck::quiet()).await.unwrap();
    // failing_job needs a task and ends with a tool error: a result with isError.
    let r = session.request("tools/call", json!({"name": "failing_job", "arguments": {}})).await.unwrap();
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "The job failed: the simulated backend is unavailable");
    let check = session.close().await;
    assert!(methods_sent_quiet(&check), "findings: {:?}", check.findings());
}

/// Only the client's own note about switching to a task, no checker finding.
fn methods_sent_quiet(check: &SelfCheck) -> bool {
    check.findings().iter().all(|f| f.contains("calling it as a task"))
}
