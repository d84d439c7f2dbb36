//! The client against a small in-process 2025-11-25 server on 127.0.0.1 that refuses
//! `server/discover`: the client falls back to `initialize` with the refusal observed by the
//! connection's one checker; a tool that requires a task is task-augmented where the server
//! runs tool tasks and skipped (with its reason) where it does not; a tool's `isError` answer is
//! reported as a tool error, never as a success; prompt arguments come from
//! `completion/complete`.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use mcpgen::conversation::Sender;
use mcpgen_reference::client::check::SelfCheck;
use mcpgen_reference::client::era::Start;
use mcpgen_reference::client::session::{Session, SessionEra};
use mcpgen_reference::client::{run, Config, OpStatus};
use serde_json::{json, Value};

#[derive(Default)]
struct Server {
    /// Declare `tasks.requests.tools.call`.
    tasks: bool,
    /// Answer `server/discover` with HTTP 200 and a JSON-RPC error instead of HTTP 400.
    refuse_in_band: bool,
    /// Every request's method and params, in order.
    seen: Mutex<Vec<(String, Value)>>,
    polls: Mutex<u32>,
}

const TASK: &str = "t-1";

fn task(status: &str) -> Value {
    json!({"taskId": TASK, "status": status, "createdAt": "2025-11-25T10:00:00Z",
           "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 60000, "pollInterval": 10})
}

async fn on_post(State(s): State<Arc<Server>>, Json(msg): Json<Value>) -> Response {
    let id = msg.get("id").cloned();
    let method = msg["method"].as_str().unwrap_or_default().to_owned();
    let params = msg.get("params").cloned().unwrap_or(json!({}));
    s.seen.lock().unwrap().push((method.clone(), params.clone()));
    let mut caps = json!({"tools": {}, "prompts": {}, "completions": {}});
    if s.tasks {
        caps["tasks"] = json!({"requests": {"tools": {"call": {}}}});
    }
    let result = match method.as_str() {
        "server/discover" => {
            let refusal = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}});
            let status = if s.refuse_in_band { StatusCode::OK } else { StatusCode::BAD_REQUEST };
            return (status, Json(refusal)).into_response();
        }
        "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": caps,
                               "serverInfo": {"name": "explore-test", "version": "1"}}),
        "tools/list" => json!({"tools": [
            {"name": "plain", "inputSchema": {"type": "object"}},
            {"name": "fails", "inputSchema": {"type": "object"}},
            {"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
        ]}),
        "tools/call" if params.get("task").is_some() => json!({"task": task("working")}),
        "tools/call" if params["name"] == "fails" => {
            json!({"isError": true, "content": [{"type": "text", "text": "it broke"}]})
        }
        "tools/call" => json!({"content": [{"type": "text", "text": "done"}]}),
        "tasks/get" => {
            let mut polls = s.polls.lock().unwrap();
            *polls += 1;
            task(if *polls < 2 { "working" } else { "completed" })
        }
        "tasks/result" => json!({"content": [{"type": "text", "text": "report"}]}),
        "prompts/list" => json!({"prompts": [{"name": "paint", "arguments": [{"name": "color", "required": true}]}]}),
        "completion/complete" => json!({"completion": {"values": ["azure", "amber"], "hasMore": false}}),
        "prompts/get" => {
            let text = format!("paint it {}", params["arguments"]["color"].as_str().unwrap_or("?"));
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}]})
        }
        _ if id.is_none() => return StatusCode::ACCEPTED.into_response(),
        _ => json!({}),
    };
    Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}

async fn start(server: Server) -> (String, Arc<Server>) {
    let server = Arc::new(server);
    let app = Router::new()
        .route("/mcp", post(on_post).get(|| async { StatusCode::METHOD_NOT_ALLOWED }))
        .with_state(Arc::clone(&server));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/mcp"), server)
}

fn status_of(outcome: &mcpgen_reference::client::Outcome, op: &str, target: &str) -> (OpStatus, String) {
    let o = outcome.operations.iter().find(|o| o.method == op && o.target.as_deref() == Some(target));
    let o = o.unwrap_or_else(|| panic!("no {op} {target} in {:#?}", outcome.operations));
    (o.status, o.detail.clone())
}

/// ERA-5: a refused `server/discover` (HTTP 400, or a JSON-RPC error in an HTTP 200) means a
/// legacy server; the client sends `initialize` on the same connection, and its one checker
/// saw the probe, the refusal and the handshake, in order.
#[tokio::test]
async fn a_refused_discover_falls_back_to_initialize_under_one_checker() {
    for refuse_in_band in [false, true] {
        let (url, _server) = start(Server { refuse_in_band, ..Server::default() }).await;
        let start = Start::Modern("2026-07-28".into());
        let session = Session::connect(&url, start, SelfCheck::recording()).await.unwrap();
        assert_eq!(session.era(), &SessionEra::Legacy(mcpgen::Revision::parse("2025-11-25").unwrap()));
        let check = session.close().await;
        let seen: Vec<(Sender, Value)> =
            check.recorded().iter().map(|(s, t)| (*s, serde_json::from_str(t).unwrap())).collect();
        assert_eq!(seen[0].0, Sender::Client);
        assert_eq!(seen[0].1["method"], "server/discover");
        assert_eq!((seen[1].0, seen[1].1["error"]["code"].as_i64()), (Sender::Server, Some(-32601)), "{seen:?}");
        assert_eq!(seen[2].1["method"], "initialize");
        assert_eq!(seen[3].1["result"]["protocolVersion"], "2025-11-25");
    }
}

/// A tool that requires a task is called task-augmented (`params.task`, then `tasks/get` until
/// it completes, then `tasks/result`); `isError` is a tool error; a prompt's required argument
/// is the first completion.
#[tokio::test]
async fn task_tools_are_task_augmented_and_prompt_arguments_completed() {
    let (url, server) = start(Server { tasks: true, ..Server::default() }).await;
    let config = Config { url, protocol_version: Some("2025-11-25".into()), ..Config::default() };
    let outcome = run(&config).await.unwrap();
    assert_eq!(status_of(&outcome, "tools/call", "plain").0, OpStatus::Ok);
    assert_eq!(status_of(&outcome, "tools/call", "fails"), (OpStatus::ToolError, "it broke".into()));
    assert_eq!(status_of(&outcome, "tools/call", "research").0, OpStatus::Ok);
    assert_eq!(status_of(&outcome, "prompts/get", "paint").0, OpStatus::Ok);
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let seen = server.seen.lock().unwrap();
    let methods: Vec<&str> = seen.iter().map(|(m, _)| m.as_str()).collect();
    let call = seen.iter().find(|(m, p)| m == "tools/call" && p["name"] == "research").unwrap();
    assert_eq!(call.1["task"]["ttl"], 60000);
    assert_eq!(methods.iter().filter(|m| **m == "tasks/get").count(), 2, "{methods:?}");
    assert!(methods.contains(&"tasks/result"));
    let get = seen.iter().find(|(m, _)| m == "prompts/get").unwrap();
    assert_eq!(get.1["arguments"], json!({"color": "azure"}));
    assert!(outcome.findings.is_empty(), "{:#?}", outcome.findings);
}

/// Without tool tasks on offer, a tool that requires one is not called: skipped, with why.
#[tokio::test]
async fn task_tools_are_skipped_where_the_server_runs_no_tool_tasks() {
    let (url, server) = start(Server::default()).await;
    let config = Config { url, protocol_version: Some("2025-11-25".into()), ..Config::default() };
    let outcome = run(&config).await.unwrap();
    let (status, why) = status_of(&outcome, "tools/call", "research");
    assert_eq!(status, OpStatus::Skipped);
    assert!(why.contains("requires task-augmented execution"), "{why}");
    let seen = server.seen.lock().unwrap();
    assert!(!seen.iter().any(|(m, p)| m == "tools/call" && p["name"] == "research"), "called anyway: {seen:?}");
}
