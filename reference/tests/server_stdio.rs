//! The reference server over stdio: the same request path as HTTP, one message per line.

use std::sync::Arc;

use mcpgen_reference::server::{stdio, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn stdio_serves_a_legacy_session_and_modern_requests_on_one_connection() {
    let server = Arc::new(Server::new(true));
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server_end);
    let task = tokio::spawn(stdio::serve_on(Arc::clone(&server), server_in, server_out));
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
    let task = tokio::spawn(stdio::serve_on(Arc::clone(&server), server_in, server_out));
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
