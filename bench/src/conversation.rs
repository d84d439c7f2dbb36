//! A realistic conversation mix for the checker benchmark (`benches/conversation.rs`): sessions
//! of both eras, deterministic for a seed, made of requests with their results and notifications
//! the way SDK clients and servers exchange them.
//!
//! - legacy (2025-11-25): `initialize` (client: sampling, roots; server: tools, resources,
//!   prompts, logging), `notifications/initialized`, then rounds of `tools/list`, `tools/call`
//!   (with a progress token, progress notifications and log messages), `resources/read`,
//!   `prompts/get`, a server `sampling/createMessage` answered by the client, `ping`;
//! - modern (2026-07-28): `server/discover`, then rounds of `tools/list`, `tools/call` with
//!   `logLevel` and a progress token (progress, log messages), one in four answered
//!   `input_required` and retried, `resources/read`, `prompts/get`, and a `subscriptions/listen`
//!   stream (acknowledgment, list-changed notifications).
//!
//! Every message is valid and the whole mix raises no finding (the benchmark checks that
//! before timing).

use serde_json::{json, Value};

/// Which side sent a message (the benchmark maps it to `mcpgen::conversation::Sender`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    Client,
    Server,
}

/// One session: its revision and its messages in order.
#[derive(Debug, Clone)]
pub struct Session {
    pub revision: &'static str,
    pub messages: Vec<(From, Vec<u8>)>,
}

/// Sessions alternating legacy and modern until `messages` messages are reached.
pub fn generate(messages: usize, seed: u64) -> Vec<Session> {
    let mut rng = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407) | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut out = Vec::new();
    let mut total = 0;
    let mut k = 0;
    while total < messages {
        let s = if k % 2 == 0 { legacy(40, &mut next) } else { modern(40, &mut next) };
        total += s.messages.len();
        out.push(s);
        k += 1;
    }
    out
}

fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).expect("JSON")
}

fn tools(n: usize) -> Value {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"),
                "description": "Looks things up in the knowledge base and returns the best matches.",
                "inputSchema": {"type": "object", "properties": {
                    "query": {"type": "string", "description": "What to look for"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50}
                }, "required": ["query"]}
            })
        })
        .collect();
    Value::Array(tools)
}

fn text(s: &str) -> Value {
    json!([{"type": "text", "text": s}])
}

fn legacy(rounds: usize, next: &mut impl FnMut() -> u64) -> Session {
    let mut m = Vec::new();
    let c = |m: &mut Vec<(From, Vec<u8>)>, v: Value| m.push((From::Client, bytes(&v)));
    let s = |m: &mut Vec<(From, Vec<u8>)>, v: Value| m.push((From::Server, bytes(&v)));
    c(
        &mut m,
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",
        "capabilities":{"sampling":{},"roots":{"listChanged":true}},"clientInfo":{"name":"bench-client","version":"1.0.0"}}}),
    );
    s(
        &mut m,
        json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25",
        "capabilities":{"tools":{"listChanged":true},"resources":{},"prompts":{},"logging":{}},
        "serverInfo":{"name":"bench-server","version":"1.0.0"}}}),
    );
    c(&mut m, json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    let mut id = 1u64;
    for r in 0..rounds {
        c(&mut m, json!({"jsonrpc":"2.0","id":id,"method":"tools/list"}));
        s(&mut m, json!({"jsonrpc":"2.0","id":id,"result":{"tools":tools(3 + (next() % 4) as usize)}}));
        id += 1;
        let tok = format!("p{id}");
        c(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"tool_1",
            "arguments":{"query":"weather in Paris","limit":5},"_meta":{"progressToken":tok}}}),
        );
        for p in 1..=2 {
            s(
                &mut m,
                json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":tok,"progress":p,"total":2}}),
            );
        }
        s(
            &mut m,
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"tools","data":"looked up 5 documents"}}),
        );
        s(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"result":{"content":text("Sunny, 21 °C, light wind from the west."),"isError":false}}),
        );
        id += 1;
        c(&mut m, json!({"jsonrpc":"2.0","id":id,"method":"resources/read","params":{"uri":"file:///docs/readme.md"}}));
        s(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"result":{"contents":[{"uri":"file:///docs/readme.md","mimeType":"text/markdown","text":"# Readme\n\nHello."}]}}),
        );
        id += 1;
        c(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"method":"prompts/get","params":{"name":"summarize","arguments":{"style":"short"}}}),
        );
        s(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Summarize briefly."}}]}}),
        );
        id += 1;
        if r % 4 == 0 {
            s(
                &mut m,
                json!({"jsonrpc":"2.0","id":1000 + r,"method":"sampling/createMessage","params":{
                "messages":[{"role":"user","content":{"type":"text","text":"Draft a reply"}}],"maxTokens":200}}),
            );
            c(
                &mut m,
                json!({"jsonrpc":"2.0","id":1000 + r,"result":{"role":"assistant","content":{"type":"text","text":"Thanks!"},"model":"m-1","stopReason":"endTurn"}}),
            );
            c(&mut m, json!({"jsonrpc":"2.0","id":id,"method":"ping"}));
            s(&mut m, json!({"jsonrpc":"2.0","id":id,"result":{}}));
            id += 1;
        }
    }
    Session { revision: "2025-11-25", messages: m }
}

fn meta(extra: Value) -> Value {
    let mut m = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},
        "io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}});
    if let (Some(m), Some(e)) = (m.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            m.insert(k.clone(), v.clone());
        }
    }
    m
}

fn modern(rounds: usize, next: &mut impl FnMut() -> u64) -> Session {
    let mut m = Vec::new();
    let c = |m: &mut Vec<(From, Vec<u8>)>, v: Value| m.push((From::Client, bytes(&v)));
    let s = |m: &mut Vec<(From, Vec<u8>)>, v: Value| m.push((From::Server, bytes(&v)));
    let server_meta = json!({"io.modelcontextprotocol/serverInfo":{"name":"bench-server","version":"1.0.0"}});
    c(&mut m, json!({"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":meta(json!({}))}}));
    s(
        &mut m,
        json!({"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],
        "capabilities":{"tools":{"listChanged":true},"resources":{},"prompts":{},"logging":{}},"ttlMs":60000,"cacheScope":"public","_meta":server_meta}}),
    );
    c(
        &mut m,
        json!({"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"_meta":meta(json!({})),"notifications":{"toolsListChanged":true}}}),
    );
    s(
        &mut m,
        json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}),
    );
    let mut id = 1u64;
    for r in 0..rounds {
        c(&mut m, json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":{"_meta":meta(json!({}))}}));
        s(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"complete","tools":tools(3 + (next() % 4) as usize),"ttlMs":60000,"cacheScope":"public","_meta":server_meta}}),
        );
        id += 1;
        let tok = format!("p{id}");
        let params = json!({"name":"tool_1","arguments":{"query":"weather in Paris","limit":5},
            "_meta":meta(json!({"progressToken":tok,"io.modelcontextprotocol/logLevel":"info"}))});
        c(&mut m, json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params}));
        for p in 1..=2 {
            s(
                &mut m,
                json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":tok,"progress":p,"total":2}}),
            );
        }
        s(
            &mut m,
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"tools","data":"looked up 5 documents"}}),
        );
        if r % 4 == 0 {
            s(
                &mut m,
                json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create",
                "params":{"mode":"form","message":"Use metric units?","requestedSchema":{"type":"object","properties":{"metric":{"type":"boolean"}}}}}},
                "requestState":format!("state-{id}")}}),
            );
            let retry = json!({"name":"tool_1","arguments":{"query":"weather in Paris","limit":5},
                "inputResponses":{"confirm":{"action":"accept","content":{"metric":true}}},"requestState":format!("state-{id}"),
                "_meta":meta(json!({}))});
            id += 1;
            c(&mut m, json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":retry}));
        }
        s(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"complete","content":text("Sunny, 21 °C, light wind from the west."),"isError":false,"_meta":server_meta}}),
        );
        id += 1;
        c(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"method":"resources/read","params":{"uri":"file:///docs/readme.md","_meta":meta(json!({}))}}),
        );
        s(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"complete","contents":[{"uri":"file:///docs/readme.md","mimeType":"text/markdown","text":"# Readme\n\nHello."}],"ttlMs":0,"cacheScope":"private"}}),
        );
        id += 1;
        c(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"method":"prompts/get","params":{"name":"summarize","arguments":{"style":"short"},"_meta":meta(json!({}))}}),
        );
        s(
            &mut m,
            json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"Summarize briefly."}}]}}),
        );
        id += 1;
        if r % 8 == 7 {
            s(
                &mut m,
                json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}),
            );
        }
    }
    Session { revision: "2026-07-28", messages: m }
}
