//! Peak RSS of a listen stream whose client never reads, while 40,000 notifications fire
//! (before the queues were bounded: +39 MB). Alone in its test binary, so the process's peak
//! is this test's.

use std::sync::Arc;
use std::time::Duration;

use mcpgen_reference::server::{http, Server};
use serde_json::json;
use tokio::io::AsyncWriteExt;

/// `VmHWM` of this process, in KB.
fn peak_rss_kb() -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_that_never_reads_holds_bounded_memory_while_40000_notifications_fire() {
    let server = Arc::new(Server::new(false));
    let (listener, addr) = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    tokio::spawn(http::serve(Arc::clone(&server), listener));
    let body = json!({"jsonrpc": "2.0", "id": "deaf", "method": "subscriptions/listen", "params": {
    "notifications": {"toolsListChanged": true},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }}})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut deaf = tokio::net::TcpStream::connect(addr).await.unwrap();
    deaf.write_all(request.as_bytes()).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while server.listeners().is_empty() {
        assert!(tokio::time::Instant::now() < deadline, "the listen stream did not open");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let before = peak_rss_kb();
    for i in 0..40_000 {
        server.listeners().notify("notifications/tools/list_changed");
        if i % 64 == 0 {
            tokio::task::yield_now().await;
        }
    }
    // Let the stream's task and hyper take what they will.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let grown = peak_rss_kb() - before;
    assert!(server.listeners().is_empty(), "the stream whose client does not read was ended");
    assert!(grown < 8 * 1024, "peak RSS grew {grown} KB for a listener that never reads");
    drop(deaf);
}
