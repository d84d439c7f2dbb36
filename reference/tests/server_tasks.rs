//! The reference server's Tasks extension (`io.modelcontextprotocol/tasks`) and `Mcp-Param-*`
//! validation over Streamable HTTP on 127.0.0.1. Every server runs with self-checking on: each
//! test ends by asserting that mcpgen's conversation checker found nothing in what the server
//! sent.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use mcpgen_reference::server::tasks::TaskLimits;
use mcpgen_reference::server::{http, Server};
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";

struct Peer {
    server: Arc<Server>,
    url: String,
    http: reqwest::Client,
}

async fn start_with(server: Server) -> Peer {
    let server = Arc::new(server);
    let (listener, addr) = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    tokio::spawn(http::serve(Arc::clone(&server), listener));
    Peer { server, url: format!("http://{addr}/mcp"), http: reqwest::Client::new() }
}

async fn start() -> Peer {
    start_with(Server::new(true)).await
}

fn tasks_caps() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// One response: HTTP status and the final JSON-RPC message.
struct Answer {
    status: u16,
    message: Value,
}

impl Answer {
    fn result(&self) -> &Value {
        assert!(self.message.get("result").is_some(), "expected a result: {}", self.message);
        &self.message["result"]
    }
    fn code(&self) -> i64 {
        self.message["error"]["code"].as_i64().unwrap_or_else(|| panic!("expected an error: {}", self.message))
    }
}

impl Peer {
    async fn post(&self, body: &Value, headers: &[(String, String)]) -> Answer {
        let mut r = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (k, v) in headers {
            r = r.header(k, v);
        }
        let resp = r.body(body.to_string()).send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        let message = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| serde_json::from_str::<Value>(d.trim()).unwrap())
            .next_back()
            .unwrap_or_else(|| serde_json::from_str(&text).unwrap());
        Answer { status, message }
    }

    /// A modern request with `_meta` and the standard headers mcpgen derives from the body
    /// (`Mcp-Name` = `taskId` for `tasks/*`), plus `extra` headers.
    async fn call(&self, id: i64, method: &str, mut params: Value, caps: Value, extra: &[(&str, &str)]) -> Answer {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": caps,
        });
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut headers = vec![("MCP-Protocol-Version".to_owned(), MODERN.to_owned())];
        headers.extend(mcpgen::http::standard_headers(method, Some(&body["params"])));
        headers.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        self.post(&body, &headers).await
    }

    async fn tool(&self, id: i64, name: &str, arguments: Value, caps: Value) -> Answer {
        self.call(id, "tools/call", json!({"name": name, "arguments": arguments}), caps, &[]).await
    }

    async fn get(&self, id: i64, task: &str) -> Value {
        self.call(id, "tasks/get", json!({"taskId": task}), tasks_caps(), &[]).await.result().clone()
    }

    /// Polls `tasks/get` until `done` holds (at most 5 s).
    async fn poll_until(&self, task: &str, done: impl Fn(&Value) -> bool) -> Value {
        for i in 0..100 {
            let t = self.get(1000 + i, task).await;
            if done(&t) {
                return t;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("task {task} did not reach the expected state");
    }

    fn findings(&self) -> Vec<String> {
        self.server.self_check().unwrap().findings().iter().map(|(k, f)| format!("{k}: {f}")).collect()
    }
}

fn terminal(t: &Value) -> bool {
    ["completed", "failed", "cancelled"].contains(&t["status"].as_str().unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_goes_from_created_to_input_required_to_completed_through_tasks_update() {
    let p = start().await;
    let created = p.tool(1, "confirm_delete", json!({"filename": "a.txt"}), tasks_caps()).await;
    let c = created.result();
    assert_eq!((c["resultType"].as_str(), c["status"].as_str()), (Some("task"), Some("working")));
    for absent in ["result", "error", "inputRequests", "requestState"] {
        assert!(c.get(absent).is_none(), "CreateTaskResult carries {absent}");
    }
    assert!(c["ttlMs"].as_u64().is_some() && c["pollIntervalMs"].as_u64().is_some());
    let id = c["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32, "128 random bits (TASK-29)");

    let waiting = p.poll_until(&id, |t| t["status"] == "input_required").await;
    assert_eq!(waiting["resultType"], "complete");
    assert_eq!(waiting["inputRequests"]["confirm"]["method"], "elicitation/create");

    // An answer that is not an ElicitResult is refused; an unknown key is ignored.
    let bad = json!({"taskId": id, "inputResponses": {"confirm": {"action": "maybe"}}});
    assert_eq!(p.call(2, "tasks/update", bad, tasks_caps(), &[]).await.code(), -32602);
    let unknown = json!({"taskId": id, "inputResponses": {"unknown-key": {"ignored": true}}});
    let ack = p.call(3, "tasks/update", unknown, tasks_caps(), &[]).await;
    assert_eq!(ack.result()["resultType"], "complete");
    assert_eq!(p.get(4, &id).await["status"], "input_required");

    let answer =
        json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    let ack = p.call(5, "tasks/update", answer, tasks_caps(), &[]).await;
    let ack = ack.result();
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("taskId").is_none() && ack.get("status").is_none(), "an empty acknowledgement: {ack}");

    let done = p.poll_until(&id, terminal).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "Deleted a.txt (confirm: true)");
    assert!(done.get("inputRequests").is_none());
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_errors_complete_protocol_errors_fail_and_unknown_tasks_are_invalid_params() {
    let p = start().await;
    let t = p.tool(1, "failing_job", json!({}), tasks_caps()).await.result()["taskId"].as_str().unwrap().to_owned();
    let done = p.poll_until(&t, terminal).await;
    assert_eq!((done["status"].as_str(), done["result"]["isError"].as_bool()), (Some("completed"), Some(true)));
    let t =
        p.tool(2, "protocol_error_job", json!({}), tasks_caps()).await.result()["taskId"].as_str().unwrap().to_owned();
    let failed = p.poll_until(&t, terminal).await;
    assert_eq!((failed["status"].as_str(), failed["error"]["code"].as_i64()), (Some("failed"), Some(-32603)));
    assert!(failed.get("result").is_none());
    for method in ["tasks/get", "tasks/cancel"] {
        let a = p.call(3, method, json!({"taskId": "no-such-task"}), tasks_caps(), &[]).await;
        assert_eq!(a.code(), -32602, "{method}");
    }
    let a = p.call(4, "tasks/update", json!({"taskId": "no-such-task", "inputResponses": {}}), tasks_caps(), &[]).await;
    assert_eq!(a.code(), -32602);
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_extension_required_tools_get_32021_and_optional_ones_run_synchronously() {
    let p = start().await;
    let a = p.tool(1, "failing_job", json!({}), json!({})).await;
    assert_eq!((a.status, a.code()), (400, -32021));
    assert_eq!(
        a.message["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    let a = p.tool(2, "slow_compute", json!({"seconds": 0, "label": "sync"}), json!({})).await;
    let r = a.result();
    assert_eq!(r["resultType"], "complete");
    assert!(r.get("taskId").is_none());
    assert_eq!(r["content"][0]["text"], "Computed sync after 0 s");
    let a = p.call(3, "tasks/get", json!({"taskId": "x"}), json!({}), &[]).await;
    assert_eq!(a.code(), -32021);
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_task_settles_cancelled_and_stays_so() {
    let p = start().await;
    let t = p.tool(1, "slow_compute", json!({"seconds": 60}), tasks_caps()).await.result()["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let ack = p.call(2, "tasks/cancel", json!({"taskId": t}), tasks_caps(), &[]).await;
    assert_eq!(ack.result()["resultType"], "complete");
    let done = p.poll_until(&t, terminal).await;
    assert_eq!(done["status"], "cancelled");
    // Cancelling a terminal task is acknowledged the same way and changes nothing (TASK-32).
    let again = p.call(3, "tasks/cancel", json!({"taskId": t}), tasks_caps(), &[]).await;
    assert_eq!(again.result()["resultType"], "complete");
    assert_eq!(p.get(4, &t).await["status"], "cancelled");
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_past_its_ttl_is_dropped_and_unknown_afterwards() {
    let limits = TaskLimits { ttl: Duration::from_millis(300), ..TaskLimits::default() };
    let p = start_with(Server::new(true).with_task_limits(limits)).await;
    let c = p.tool(1, "slow_compute", json!({"seconds": 60}), tasks_caps()).await;
    assert_eq!(c.result()["ttlMs"], 300);
    let t = c.result()["taskId"].as_str().unwrap().to_owned();
    assert_eq!(p.get(2, &t).await["status"], "working");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(p.call(3, "tasks/get", json!({"taskId": t}), tasks_caps(), &[]).await.code(), -32602);
    assert_eq!(p.server.tasks().len(), 0, "the expired task left the table");
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_task_cap_a_new_task_is_refused_until_one_expires() {
    let limits = TaskLimits { max_tasks: 2, ttl: Duration::from_millis(600) };
    let p = start_with(Server::new(true).with_task_limits(limits)).await;
    for id in 1..=2 {
        assert_eq!(
            p.tool(id, "slow_compute", json!({"seconds": 60}), tasks_caps()).await.result()["resultType"],
            "task"
        );
    }
    let refused = p.tool(3, "slow_compute", json!({"seconds": 60}), tasks_caps()).await;
    assert_eq!((refused.status, refused.code()), (503, -32603));
    assert_eq!(p.server.tasks().len(), 2);
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(p.tool(4, "slow_compute", json!({"seconds": 60}), tasks_caps()).await.result()["resultType"], "task");
    assert_eq!(p.server.tasks().len(), 1, "the expired tasks made room");
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_notifications_arrive_on_a_listen_stream_that_names_the_task() {
    let p = start().await;
    let t = p.tool(1, "slow_compute", json!({"seconds": 0.3, "label": "n"}), tasks_caps()).await.result()["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = json!({"jsonrpc": "2.0", "id": "listen-t", "method": "subscriptions/listen", "params": {
        "notifications": {"taskIds": [t, "not-a-task"]},
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": tasks_caps()}}});
    let resp = p
        .http
        .post(&p.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "subscriptions/listen")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let mut stream = resp.bytes_stream();
    let (mut text, mut events) = (String::new(), Vec::<Value>::new());
    while !events.iter().any(|e| e["method"] == "notifications/tasks" && e["params"]["status"] == "completed") {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next()).await.unwrap().unwrap().unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = text.find("\n\n") {
            let event: String = text.drain(..end + 2).collect();
            if let Some(d) = event.lines().find_map(|l| l.strip_prefix("data:")) {
                events.push(serde_json::from_str(d.trim()).unwrap());
            }
        }
    }
    assert_eq!(events[0]["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(events[0]["params"]["notifications"]["taskIds"], json!([t]), "only tasks the server keeps");
    let last = events.last().unwrap();
    assert_eq!(last["params"]["taskId"], t.as_str());
    assert_eq!(last["params"]["result"]["content"][0]["text"], "Computed n after 0.3 s");
    assert_eq!(last["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-t");
    drop(stream);

    // Without the extension declared, asking for task notifications is -32021 (TASK-23).
    let mut refused = body.clone();
    refused["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let headers = [
        ("MCP-Protocol-Version".to_owned(), MODERN.to_owned()),
        ("Mcp-Method".to_owned(), "subscriptions/listen".to_owned()),
    ];
    assert_eq!(p.post(&refused, &headers).await.code(), -32021);
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_param_headers_must_match_the_arguments_of_the_tool() {
    let p = start().await;
    let call = |id, region: &'static str, headers: Vec<(&'static str, &'static str)>| {
        let p = &p;
        async move {
            p.call(
                id,
                "tools/call",
                json!({"name": "test_header_params", "arguments": {"region": region}}),
                json!({}),
                &headers,
            )
            .await
        }
    };
    let ok = call(1, "Hello", vec![("Mcp-Param-Region", "Hello")]).await;
    assert_eq!((ok.status, ok.result()["content"][0]["text"].as_str()), (200, Some("region=Hello")));
    assert_eq!(call(2, "Hello", vec![("mcp-param-region", "=?base64?SGVsbG8=?=")]).await.status, 200);
    for (n, headers) in [
        (3, vec![]),
        (4, vec![("Mcp-Param-Region", "=?base64?SGVsbG8?=")]),
        (5, vec![("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")]),
        (6, vec![("Mcp-Param-Region", "World")]),
        (7, vec![("Mcp-Param-Region", "Hello"), ("Mcp-Param-Priority", "1")]),
    ] {
        let a = call(n, "Hello", headers).await;
        assert_eq!((a.status, a.code()), (400, -32020), "case {n}: {}", a.message);
        assert_eq!(a.message["id"], n);
    }
    // A tool without bindings takes no Mcp-Param-* headers into account.
    let a = p.tool(8, "greet", json!({"name": "x"}), json!({})).await;
    assert_eq!(a.status, 200);
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mrtr_rounds_resolve_before_the_task_is_created() {
    let p = start().await;
    let first = p.tool(1, "test_tool_with_task", json!({}), tasks_caps()).await;
    let r = first.result().clone();
    assert_eq!(r["resultType"], "input_required");
    assert!(r.get("taskId").is_none());
    let params = json!({"name": "test_tool_with_task", "arguments": {},
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
        "requestState": r["requestState"]});
    let second = p.call(2, "tools/call", params, tasks_caps(), &[]).await;
    let c = second.result();
    assert_eq!(c["resultType"], "task");
    assert!(c.get("requestState").is_none() && c.get("inputRequests").is_none());
    let done = p.poll_until(c["taskId"].as_str().unwrap(), terminal).await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");
    assert_eq!(p.findings(), Vec::<String>::new());
}

/// The self-check is live on task traffic: a fixture task whose input request is malformed
/// (`message` must be a string) is reported when `tasks/get` shows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_self_check_faults_a_malformed_task_state() {
    use mcpgen_reference::server::fixtures::{Fixtures, FIXTURES_JSON};
    use mcpgen_reference::server::state::StateSigner;
    let mut spec: Value = serde_json::from_str(FIXTURES_JSON).unwrap();
    spec["tools"].as_array_mut().unwrap().push(json!({
        "tool": {"name": "bad_input_task", "inputSchema": {"type": "object"}},
        "behavior": "task", "taskSupport": "required", "eras": ["modern"],
        "job": {"kind": "input", "inputs": {"k": {"method": "elicitation/create", "params": {"message": 5, "requestedSchema": {"type": "object", "properties": {}}}}}},
        "result": {"content": []}
    }));
    let fixtures = Fixtures::parse(&spec.to_string()).unwrap();
    let p = start_with(Server::with_fixtures(fixtures, StateSigner::random(), true)).await;
    let t = p.tool(1, "bad_input_task", json!({}), tasks_caps()).await.result()["taskId"].as_str().unwrap().to_owned();
    p.poll_until(&t, |t| t["status"] == "input_required").await;
    assert!(!p.findings().is_empty(), "the malformed inputRequests went unnoticed");
}

/// The HTTP transport's periodic sweep drops expired tasks (and stops their jobs) even when
/// nobody asks for them again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_tasks_are_swept_without_being_looked_up() {
    use mcpgen_reference::server::session::TableLimits;
    let tables = TableLimits { session_idle_timeout: Duration::from_millis(40), ..TableLimits::default() };
    let limits = TaskLimits { ttl: Duration::from_millis(200), ..TaskLimits::default() };
    let p = start_with(Server::new(true).with_limits(tables).with_task_limits(limits)).await;
    for id in 1..=3 {
        assert_eq!(
            p.tool(id, "slow_compute", json!({"seconds": 60}), tasks_caps()).await.result()["resultType"],
            "task"
        );
    }
    assert_eq!(p.server.tasks().len(), 3);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(p.server.tasks().len(), 0, "the sweep dropped the expired tasks");
    assert_eq!(p.findings(), Vec::<String>::new());
}
