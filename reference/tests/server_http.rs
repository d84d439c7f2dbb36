//! The reference server over Streamable HTTP on 127.0.0.1, both eras, with every message it
//! sends fed to mcpgen's conversation checker: a finding fails the test.

use std::sync::Arc;

use mcpgen_reference::server::fixtures::Fixtures;
use mcpgen_reference::server::state::StateSigner;
use mcpgen_reference::server::{http, Server};
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";

struct Peer {
    server: Arc<Server>,
    url: String,
    http: reqwest::Client,
}

async fn start() -> Peer {
    start_with(Server::new(true)).await
}

async fn start_with(server: Server) -> Peer {
    let server = Arc::new(server);
    let (listener, addr) = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    tokio::spawn(http::serve(Arc::clone(&server), listener));
    Peer { server, url: format!("http://{addr}/mcp"), http: reqwest::Client::new() }
}

struct Answer {
    status: u16,
    content_type: String,
    session: Option<String>,
    /// Every JSON-RPC message of the body (one for JSON, each event for SSE).
    messages: Vec<Value>,
}

impl Answer {
    fn last(&self) -> &Value {
        self.messages.last().expect("a message")
    }
}

fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": caps,
    })
}

impl Peer {
    /// A POST of a modern `method` request, with the transport's headers (body to add).
    fn modern_post(&self, method: &str) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", method)
    }

    async fn post(&self, body: &Value, headers: &[(&str, &str)]) -> Answer {
        let mut r = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        let resp = r.body(body.to_string()).send().await.unwrap();
        let status = resp.status().as_u16();
        let content_type =
            resp.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        let session = resp.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
        let text = resp.text().await.unwrap();
        let messages = if content_type.starts_with("text/event-stream") {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| serde_json::from_str(d.trim()).unwrap())
                .collect()
        } else if text.is_empty() {
            Vec::new()
        } else {
            vec![serde_json::from_str(&text).unwrap()]
        };
        Answer { status, content_type, session, messages }
    }

    /// A modern request with conformant `_meta` and header.
    async fn modern(&self, id: i64, method: &str, mut params: Value, caps: Value) -> Answer {
        params["_meta"] = meta(caps);
        self.send_modern(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await
    }

    /// A modern message with the standard headers derived from its body.
    async fn send_modern(&self, body: &Value) -> Answer {
        let version =
            body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str().unwrap_or(MODERN).to_owned();
        let method = body["method"].as_str().unwrap().to_owned();
        let name = body["params"].get("name").or(body["params"].get("uri")).and_then(Value::as_str).map(str::to_owned);
        let mut h = vec![("mcp-protocol-version", version.as_str()), ("mcp-method", method.as_str())];
        if let Some(n) = &name {
            h.push(("mcp-name", n.as_str()));
        }
        self.post(body, &h).await
    }

    fn findings(&self) -> Vec<String> {
        self.server.self_check().unwrap().findings().iter().map(|(k, f)| format!("{k}: {f}")).collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_requests_are_served_statelessly_with_the_spec_codes() {
    let p = start().await;

    let d = p.modern(1, "server/discover", json!({}), json!({})).await;
    assert_eq!(d.status, 200);
    let r = &d.last()["result"];
    let supported = r["supportedVersions"].clone();
    assert_eq!(supported[0], MODERN, "the modern version first");
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mcpgen-reference-server");

    let l = p.modern(2, "tools/list", json!({}), json!({})).await;
    let r = &l.last()["result"];
    assert_eq!((r["ttlMs"].as_u64(), r["cacheScope"].as_str()), (Some(300000), Some("public")));
    let names: Vec<&str> = r["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"test_input_required_result_multi_round"));
    assert!(!names.contains(&"test_sampling"), "legacy-only tools are not listed in the modern era");

    // Refusals: code, HTTP status, data.
    let bare = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}});
    let a = p.send_modern(&bare).await;
    assert_eq!((a.status, a.last()["error"]["code"].as_i64()), (400, Some(-32602)));

    let mut v999 =
        json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover", "params": {"_meta": meta(json!({}))}});
    v999["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999");
    let a = p.send_modern(&v999).await;
    assert_eq!((a.status, a.last()["error"]["code"].as_i64()), (400, Some(-32022)));
    assert_eq!(a.last()["error"]["data"]["supported"], supported, "the versions server/discover names");
    assert_eq!(a.last()["error"]["data"]["requested"], "v999");

    let a = p.post(&v999, &[("mcp-protocol-version", MODERN), ("mcp-method", "server/discover")]).await;
    assert_eq!((a.status, a.last()["error"]["code"].as_i64()), (400, Some(-32020)));
    let list = json!({"jsonrpc": "2.0", "id": 41, "method": "tools/list", "params": {"_meta": meta(json!({}))}});
    let a = p.post(&list, &[("mcp-protocol-version", MODERN), ("mcp-method", "prompts/list")]).await;
    assert_eq!((a.status, a.last()["error"]["code"].as_i64()), (400, Some(-32020)), "Mcp-Method differs");

    for removed in ["ping", "initialize", "logging/setLevel", "resources/subscribe", "unknown/method"] {
        let a = p.modern(5, removed, json!({}), json!({})).await;
        assert_eq!((a.status, a.last()["error"]["code"].as_i64()), (404, Some(-32601)), "{removed}");
    }

    let a = p.modern(6, "tools/call", json!({"name": "test_missing_capability"}), json!({})).await;
    assert_eq!((a.status, a.last()["error"]["code"].as_i64()), (400, Some(-32021)));
    assert_eq!(a.last()["error"]["data"]["requiredCapabilities"], json!({"sampling": {}}));

    let a = p.modern(7, "resources/read", json!({"uri": "test://nope"}), json!({})).await;
    assert_eq!(a.last()["error"]["code"], -32602);
    assert_eq!(a.last()["error"]["data"]["uri"], "test://nope");

    // Logs only for requests that opted in (LOG-1).
    let a = p.modern(8, "tools/call", json!({"name": "test_logging_tool"}), json!({})).await;
    assert_eq!(a.messages.len(), 1, "no log without logLevel: {:?}", a.messages);
    let mut params = json!({"name": "test_logging_tool", "_meta": meta(json!({}))});
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let a = p.send_modern(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})).await;
    assert!(a.content_type.starts_with("text/event-stream"));
    assert_eq!(a.messages[0]["method"], "notifications/message");

    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mrtr_rounds_carry_signed_state_and_tampering_is_refused() {
    let p = start().await;
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    let call = |id, extra: Value| {
        let mut params = json!({"name": "test_input_required_result_multi_round", "arguments": {}});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        p.modern(id, "tools/call", params, caps.clone())
    };
    let r1 = call(1, json!({})).await.last()["result"].clone();
    assert_eq!(r1["resultType"], "input_required");
    assert!(r1["inputRequests"]["step1"].is_object());
    let state1 = r1["requestState"].as_str().unwrap().to_owned();

    let answer = |content: Value| json!({"action": "accept", "content": content});
    let r2 =
        call(2, json!({"requestState": state1, "inputResponses": {"step1": answer(json!({"name": "Alice"}))}})).await;
    let r2 = r2.last()["result"].clone();
    assert!(r2["inputRequests"]["step2"].is_object(), "{r2}");
    let state2 = r2["requestState"].as_str().unwrap().to_owned();

    let r3 =
        call(3, json!({"requestState": state2, "inputResponses": {"step2": answer(json!({"color": "blue"}))}})).await;
    assert_eq!(r3.last()["result"]["content"][0]["text"], "Multi-round complete for Alice who likes blue");

    let t = call(4, json!({"requestState": format!("{state2}-TAMPERED"), "inputResponses": {"step2": answer(json!({"color": "x"}))}})).await;
    assert_eq!(t.last()["error"]["code"], -32602);

    // Issue 38, cause 15: a state is good for one retry (a replay used to be accepted again).
    let replay =
        call(7, json!({"requestState": state2, "inputResponses": {"step2": answer(json!({"color": "red"}))}})).await;
    assert_eq!(replay.last()["error"]["code"], -32602, "{:?}", replay.messages);
    assert!(replay.last()["error"]["message"].as_str().unwrap().contains("already used"));

    // Input requests only for declared capabilities: undeclared elicitation is -32021.
    let a = p.modern(5, "tools/call", json!({"name": "test_input_required_result_elicitation"}), json!({})).await;
    assert_eq!((a.status, a.last()["error"]["code"].as_i64()), (400, Some(-32021)));
    let a = p
        .modern(6, "tools/call", json!({"name": "test_input_required_result_capabilities"}), json!({"sampling": {}}))
        .await;
    let asked = a.last()["result"]["inputRequests"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(asked, ["sample_input"]);

    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_acknowledge_first_then_deliver_what_was_asked() {
    let p = Arc::new(start().await);
    let mut params = json!({"notifications": {"toolsListChanged": true}, "_meta": meta(json!({}))});
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let req = json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": params});
    let resp = p.modern_post("subscriptions/listen").body(req.to_string()).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let mut body = resp.bytes_stream();
    use futures_util::StreamExt;
    let mut text = String::new();
    let mut events = Vec::new();
    let mut triggered = false;
    while events.len() < 2 {
        let chunk =
            tokio::time::timeout(std::time::Duration::from_secs(5), body.next()).await.unwrap().unwrap().unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = text.find("\n\n") {
            let event: String = text.drain(..end + 2).collect();
            if let Some(d) = event.lines().find_map(|l| l.strip_prefix("data:")) {
                events.push(serde_json::from_str::<Value>(d.trim()).unwrap());
            }
        }
        if !events.is_empty() && !triggered {
            triggered = true;
            let a = p.modern(2, "tools/call", json!({"name": "test_trigger_tool_change"}), json!({})).await;
            assert!(a.last()["result"].is_object());
        }
    }
    assert_eq!(events[0]["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(events[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1");
    assert_eq!(events[1]["method"], "notifications/tools/list_changed");
    assert_eq!(events[1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1");
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sessions_negotiate_stream_and_ask_the_client() {
    let p = Arc::new(start().await);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
        "clientInfo": {"name": "test", "version": "1"}}});
    let a = p.post(&init, &[]).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.last()["result"]["protocolVersion"], "2025-11-25");
    let sid = a.session.clone().expect("Mcp-Session-Id");
    let h = [("mcp-session-id", sid.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let a = p.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), &h).await;
    assert_eq!(a.status, 202);

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "tok"}}});
    let a = p.post(&call, &h).await;
    assert!(a.content_type.starts_with("text/event-stream"));
    let progress: Vec<&Value> = a.messages.iter().filter(|m| m["method"] == "notifications/progress").collect();
    assert_eq!(progress.len(), 3);
    assert_eq!(a.last()["result"]["content"][0]["text"], "tok");

    // Sampling: the server's request arrives on the call's stream; the answer is a POST.
    let peer = Arc::clone(&p);
    let sid2 = sid.clone();
    let answering = tokio::spawn(async move {
        // Poll the server for the request's id by answering id 1 (the session's first request).
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m", "stopReason": "endTurn"}});
        peer.post(&answer, &[("mcp-session-id", sid2.as_str())]).await.status
    });
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_sampling", "arguments": {"prompt": "Capital?"}}});
    let a = p.post(&call, &h).await;
    assert_eq!(answering.await.unwrap(), 202);
    assert_eq!(a.messages[0]["method"], "sampling/createMessage");
    assert_eq!(a.last()["result"]["content"][0]["text"], "LLM response: Paris");

    let a = p
        .post(&json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "error"}}), &h)
        .await;
    assert_eq!(a.last()["result"], json!({}));
    let a = p
        .post(
            &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "test_tool_with_logging"}}),
            &h,
        )
        .await;
    assert_eq!(a.messages.len(), 1, "info logs are below the session's level `error`");

    let del = p.http.delete(&p.url).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(del.status().as_u16(), 200);
    let a = p.post(&json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}), &h).await;
    assert_eq!(a.status, 404);

    assert_eq!(p.findings(), Vec::<String>::new());
}

/// LOG-5 in the modern era: `test_tool_with_logging` sends `notifications/message` to a request
/// that opts in with a log level, so `server/discover` must declare `logging`. The self-check
/// starts each modern request's conversation from the server's own discover exchange: with the
/// capability declared it finds nothing; with `logging` taken out of the modern capabilities it
/// reports LOG-5 on each log notification (this test fails if the fixtures drop `logging`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_log_notifications_need_logging_in_discover() {
    for declared in [true, false] {
        let mut fixtures = Fixtures::builtin();
        if !declared {
            fixtures.modern_capabilities.as_object_mut().unwrap().remove("logging");
        }
        let p = start_with(Server::with_fixtures(fixtures, StateSigner::random(), true)).await;
        let d = p.modern(1, "server/discover", json!({}), json!({})).await;
        assert_eq!(d.last()["result"]["capabilities"].get("logging").is_some(), declared);

        let mut params = json!({"name": "test_tool_with_logging", "arguments": {}, "_meta": meta(json!({}))});
        params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
        let a = p.send_modern(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})).await;
        let logs = a.messages.iter().filter(|m| m["method"] == "notifications/message").count();
        assert_eq!(logs, 3, "{:?}", a.messages);
        assert_eq!(a.last()["result"]["resultType"], "complete");

        let rules: Vec<Option<&str>> = p.server.self_check().unwrap().findings().iter().map(|(_, f)| f.rule).collect();
        if declared {
            assert_eq!(p.findings(), Vec::<String>::new());
        } else {
            assert_eq!(rules, vec![Some("LOG-5"); 3], "{:?}", p.findings());
        }
    }
}

/// `completion/complete` answers from the fixtures' `complete` lists, in both eras.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_come_from_the_fixtures() {
    let p = start().await;
    let params = json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                        "argument": {"name": "arg1", "value": "al"}});
    let a = p.modern(1, "completion/complete", params, json!({})).await;
    assert_eq!(a.last()["result"]["completion"]["values"], json!(["alpha", "alpine"]));
    let params = json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                        "argument": {"name": "id", "value": ""}});
    let a = p.modern(2, "completion/complete", params, json!({})).await;
    assert_eq!(a.last()["result"]["completion"]["values"], json!(["123", "124", "456"]));
    assert_eq!(p.findings(), Vec::<String>::new());
}

/// XHDR-8/9: a URI that is not header-safe travels in `Mcp-Name` in the Base64 sentinel form
/// (`mcpgen::http::standard_headers`); the server decodes it before comparing, and refuses the
/// encoded form of another URI with -32020.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_encoded_mcp_name_is_compared_after_decoding() {
    let p = start().await;
    let uri = "test://template/caf\u{e9}/data";
    let mut params = json!({"uri": uri, "_meta": meta(json!({}))});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": params.clone()});
    let headers = mcpgen::http::standard_headers("resources/read", Some(&params));
    assert!(headers[1].1.starts_with("=?base64?"), "{headers:?}");
    let mut h: Vec<(&str, &str)> = vec![("mcp-protocol-version", MODERN)];
    h.extend(headers.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let a = p.post(&body, &h).await;
    assert_eq!(a.status, 200, "{:?}", a.messages);
    assert_eq!(a.last()["result"]["contents"][0]["uri"], uri);

    params["uri"] = json!("test://template/cafe/data");
    let other = mcpgen::http::standard_headers("resources/read", Some(&params));
    let a = p.post(&body, &[h[0], h[1], ("mcp-name", other[1].1.as_str())]).await;
    assert_eq!((a.status, a.last()["error"]["code"].as_i64()), (400, Some(-32020)));
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_host_or_origin_is_refused() {
    let p = start().await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta(json!({}))}});
    let r = p
        .http
        .post(&p.url)
        .header("host", "evil.example.com")
        .header("origin", "http://evil.example.com")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
}

/// The raw text of a POST's answer (JSON), for what a parsed value cannot show.
async fn post_raw(p: &Peer, body: String) -> (u16, String) {
    let resp = p.modern_post("server/discover").body(body).send().await.unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

/// Issue 38, causes 5 and 16 over HTTP: a message at the nesting limit is served (it used to
/// panic the handler), and a numeric id comes back as its exact text (it came back a float).
#[tokio::test]
async fn a_message_at_the_nesting_limit_is_served_and_big_ids_are_echoed_exactly() {
    let p = start().await;
    let ping = |id: &str, extra: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{"_meta":{}{extra}}}}}"#,
            meta(json!({}))
        )
    };
    let deep = |levels: usize| format!(r#","deep":{}{}"#, "[".repeat(levels), "]".repeat(levels));
    let (status, text) = post_raw(&p, ping("1", &deep(126))).await;
    assert_eq!(status, 200, "{text}");
    assert!(serde_json::from_str::<Value>(&text).unwrap()["result"].is_object(), "{text}");
    let (status, text) = post_raw(&p, ping("2", &deep(127))).await;
    assert_eq!(status, 400, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["error"]["code"], -32700, "{text}");
    for id in ["1000000000000000000000000000000", "18446744073709551616", "-0", "-9223372036854775809"] {
        let (status, text) = post_raw(&p, ping(id, "")).await;
        assert_eq!(status, 200, "{text}");
        // The `id` member as sent (the only `id` of a discover answer; member order is the
        // writer's, and serde_json's depends on the features the build unifies).
        let member = format!(r#""id":{id}"#);
        assert!(text.contains(&format!("{member},")) || text.contains(&format!("{member}}}")), "{id}: {text}");
    }
    assert_eq!(p.server.self_check().unwrap().findings(), Vec::new());
}
