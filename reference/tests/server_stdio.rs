//! The reference server over stdio: the same request path as HTTP, one message per line.

use std::sync::Arc;

use mcpgen_reference::server::stdio::{self, StdioLimits};
use mcpgen_reference::server::Server;
use serde_json::{json, Value};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn stdio_serves_a_legacy_session_and_modern_requests_on_one_connection() {
    let server = Arc::new(Server::new(true));
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server_end);
    let task = tokio::spawn(stdio::serve_on(Arc::clone(&server), server_in, server_out, StdioLimits::default()));
    let (client_in, mut client_out) = tokio::io::split(client_end);
    let mut lines = BufReader::new(client_in).lines();
    let send = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {
            "name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}}),
    ];
    for message in &send {
        client_out.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["result"]["protocolVersion"], "2025-11-25");
    let second: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(second["result"]["messages"][0]["content"]["text"], "Prompt with arguments: arg1='a', arg2='b'");

    // A modern request on the same connection is served statelessly (no header rules on stdio).
    let modern = json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    client_out.write_all(format!("{modern}\n").as_bytes()).await.unwrap();
    let third: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(third["id"], 3);
    assert_eq!(third["result"]["resultType"], "complete");

    // Closing the client's end (both halves) is the server's end of input.
    drop(client_out);
    drop(lines);
    tokio::time::timeout(std::time::Duration::from_secs(10), task)
        .await
        .expect("the server ends at EOF")
        .unwrap()
        .unwrap();
    let findings: Vec<String> =
        server.self_check().unwrap().findings().into_iter().map(|(k, f)| format!("{k}: {f}")).collect();
    assert_eq!(findings, Vec::<String>::new());
}

/// A listen stream lasts as long as the connection: when the client closes stdin with a
/// subscription open, the server still ends (it used to wait for the stream forever).
#[tokio::test]
async fn end_of_input_ends_open_listen_streams() {
    let server = Arc::new(Server::new(true));
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server_end);
    let task = tokio::spawn(stdio::serve_on(Arc::clone(&server), server_in, server_out, StdioLimits::default()));
    let (client_in, mut client_out) = tokio::io::split(client_end);
    let mut lines = BufReader::new(client_in).lines();
    let listen = json!({"jsonrpc": "2.0", "id": "l1", "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    client_out.write_all(format!("{listen}\n").as_bytes()).await.unwrap();
    let ack: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    drop(client_out);
    drop(lines);
    tokio::time::timeout(std::time::Duration::from_secs(10), task)
        .await
        .expect("the server ends at EOF, listen stream and all")
        .unwrap()
        .unwrap();
    assert_eq!(server.self_check().unwrap().findings(), Vec::new());
}

/// A stdio server on an in-memory pipe of `pipe` bytes each way.
struct Pipe {
    to_server: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

fn pipe(server: Server, limits: StdioLimits, pipe: usize) -> Pipe {
    let (client_end, server_end) = tokio::io::duplex(pipe);
    let (server_in, server_out) = tokio::io::split(server_end);
    let task = tokio::spawn(stdio::serve_on(Arc::new(server), server_in, server_out, limits));
    let (client_in, to_server) = tokio::io::split(client_end);
    Pipe { to_server, lines: BufReader::new(client_in).lines(), task }
}

impl Pipe {
    async fn send(&mut self, bytes: &[u8]) {
        self.to_server.write_all(bytes).await.unwrap();
    }
    async fn next(&mut self) -> String {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line()).await;
        line.expect("an answer within 10 s").unwrap().expect("a line before EOF")
    }
    async fn next_json(&mut self) -> Value {
        serde_json::from_str(&self.next().await).unwrap()
    }
    /// Ends input and waits for the server to end, which it must do cleanly.
    async fn close(self) {
        drop(self.to_server);
        drop(self.lines);
        let ended = tokio::time::timeout(Duration::from_secs(10), self.task).await;
        ended.expect("the server ends at EOF").unwrap().expect("no I/O error: bad input does not end the server");
    }
}

fn ping(id: impl Into<Value>) -> String {
    format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": id.into(), "method": "server/discover", "params": {"_meta": modern_meta()}})
    )
}

fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

/// Issue 38, cause 12: a line that is not UTF-8 used to end the server (exit 1).
#[tokio::test]
async fn invalid_utf8_gets_a_parse_error_and_the_next_line_is_served() {
    let mut p = pipe(Server::new(false), StdioLimits::default(), 1 << 16);
    p.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}\n").await;
    p.send(ping(2).as_bytes()).await;
    let refused = p.next_json().await;
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert_eq!(p.next_json().await["id"], 2);
    p.close().await;
}

/// Issue 38, cause 5: a message nested exactly 128 levels (mcpgen's limit, which it accepts)
/// used to panic the server: a second parse by serde_json (which stops at 127) disagreed.
/// One parser now: 128 levels are served, 129 are a parse error, and the server goes on.
#[tokio::test]
async fn a_message_at_the_nesting_limit_is_served_and_one_level_deeper_is_refused() {
    let mut p = pipe(Server::new(true), StdioLimits::default(), 1 << 16);
    // The envelope is one level and `params` another: 126 more arrays make 128.
    let nested = |levels: usize| "[".repeat(levels) + &"]".repeat(levels);
    let at_limit = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{{\"_meta\":{},\"deep\":{}}}}}\n",
        modern_meta(),
        nested(126)
    );
    p.send(at_limit.as_bytes()).await;
    let served = p.next_json().await;
    assert_eq!(
        (served["id"].clone(), served["result"]["resultType"].clone()),
        (json!(1), json!("complete")),
        "{served}"
    );
    let deeper = at_limit.replace("\"id\":1", "\"id\":2").replace(&nested(126), &nested(127));
    p.send(deeper.as_bytes()).await;
    let refused = p.next_json().await;
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("nesting deeper than 128"), "{refused}");
    p.send(ping(3).as_bytes()).await;
    assert_eq!(p.next_json().await["id"], 3);
    p.close().await;
}

/// An over-long line gets -32600 and is skipped to its newline: the next line is served.
#[tokio::test]
async fn a_line_over_the_limit_is_refused_and_reading_resyncs_at_the_next_newline() {
    let limits = StdioLimits { max_line_bytes: 1024, ..StdioLimits::default() };
    let mut p = pipe(Server::new(false), limits, 1 << 16);
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{{\"pad\":\"{}\"}}}}\n",
        "x".repeat(200_000)
    );
    let writer = tokio::spawn(async move {
        p.send(long.as_bytes()).await;
        p.send(ping(2).as_bytes()).await;
        p
    });
    let mut p = writer.await.unwrap();
    let refused = p.next_json().await;
    assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (Value::Null, json!(-32600)), "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("longer than 1024 bytes"), "{refused}");
    assert_eq!(p.next_json().await["id"], 2);
    p.close().await;
}

/// Issue 38, cause 16: ids the server cannot hold in 64 bits went back as floats (`1e+30`).
#[tokio::test]
async fn numeric_ids_are_echoed_exactly_as_received() {
    let mut p = pipe(Server::new(false), StdioLimits::default(), 1 << 16);
    for id in ["1000000000000000000000000000000", "18446744073709551616", "-0", "-9223372036854775809"] {
        let line = ping(0).replacen("\"id\":0", &format!("\"id\":{id}"), 1);
        p.send(line.as_bytes()).await;
        let answer = p.next().await;
        // The `id` member as sent, wherever the writer puts it (serde_json's member order
        // depends on the features a workspace build unifies).
        let member = format!("\"id\":{id}");
        assert!(answer.contains(&format!("{member},")) || answer.contains(&format!("{member}}}")), "{id}: {answer}");
        assert!(serde_json::from_str::<Value>(&answer).unwrap()["result"].is_object(), "{answer}");
    }
    // An id serde_json holds exactly is written as before.
    p.send(ping(7).as_bytes()).await;
    assert_eq!(p.next_json().await["id"], 7);
    p.close().await;
}

/// Issue 38, cause 4: a client that never reads stdout used to make the server queue every
/// answer (12.5 GB for 1 M requests). Now the server stops reading input once its in-flight
/// requests and queued answers are full; when the client reads again, every answer arrives.
#[tokio::test]
async fn a_client_that_does_not_read_stops_the_server_reading_and_loses_nothing() {
    let limits = StdioLimits { max_in_flight: 4, max_queued_answers: 4, ..StdioLimits::default() };
    let Pipe { mut to_server, mut lines, task } = pipe(Server::new(false), limits, 4096);
    let total = 5000usize;
    let written = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&written);
    let writer = tokio::spawn(async move {
        for i in 0..total {
            to_server.write_all(ping(i).as_bytes()).await.unwrap();
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        to_server
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stalled_at = written.load(std::sync::atomic::Ordering::SeqCst);
    // Each ping is ~140 bytes: the 4 KiB pipes hold ~60 of them, the server ~10 more.
    assert!(stalled_at < 200, "the server kept reading: {stalled_at} of {total} requests taken");
    let mut seen = vec![false; total];
    for _ in 0..total {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await.unwrap().unwrap().unwrap();
        let id = serde_json::from_str::<Value>(&line).unwrap()["id"].as_u64().unwrap();
        seen[id as usize] = true;
    }
    assert!(seen.iter().all(|s| *s), "every request answered once the client reads");
    let to_server = writer.await.unwrap();
    Pipe { to_server, lines, task }.close().await;
}
