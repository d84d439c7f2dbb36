//! The reference server's limits over HTTP on 127.0.0.1, each at its limit with a short setting:
//! the legacy session table (cap, LRU eviction, 503, idle expiry), listen streams (pruned when
//! they close, capped, ended when their client stops reading), hyper's header-read timeout,
//! the body deadline, the connection cap, and the transport's media types and `Host`.
//! Every wait is bounded (seconds); the self-check runs throughout and must find nothing.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcpgen_reference::server::http::{self, HttpLimits};
use mcpgen_reference::server::session::TableLimits;
use mcpgen_reference::server::Server;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
/// The longest any single step of these tests may take.
const STEP: Duration = Duration::from_secs(5);

/// An in-process server and a client of it.
struct Peer {
    server: Arc<Server>,
    client: Client,
}

impl std::ops::Deref for Peer {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

/// HTTP to a server at `addr`.
struct Client {
    addr: SocketAddr,
    url: String,
    http: reqwest::Client,
}

impl Client {
    fn new(addr: SocketAddr) -> Client {
        Client { addr, url: format!("http://{addr}/mcp"), http: reqwest::Client::new() }
    }
}

async fn start(tables: TableLimits, limits: HttpLimits) -> Peer {
    let server = Arc::new(Server::new(true).with_limits(tables));
    let (listener, addr) = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    tokio::spawn(http::serve_with(Arc::clone(&server), listener, limits));
    Peer { server, client: Client::new(addr) }
}

fn tables(max_sessions: usize, idle: Duration, max_listeners: usize) -> TableLimits {
    TableLimits { max_sessions, session_idle_timeout: idle, max_listeners, ..TableLimits::default() }
}

/// Polls `done` every 20 ms until it holds; panics with `what` after [`STEP`].
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + STEP;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "not within {STEP:?}: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn listen_body(id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
    "notifications": {"toolsListChanged": true},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }}})
}

impl Client {
    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string())
    }

    /// Opens a legacy session; its id.
    async fn initialize(&self) -> String {
        let r = self.initialize_status().await;
        assert_eq!(r.0, 200, "{}", r.1);
        r.2.expect("Mcp-Session-Id")
    }

    /// A legacy `initialize`: status, body, session id.
    async fn initialize_status(&self) -> (u16, Value, Option<String>) {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
        let resp = self.post(&init).send().await.unwrap();
        let status = resp.status().as_u16();
        let sid = resp.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
        (status, serde_json::from_str(&resp.text().await.unwrap()).unwrap(), sid)
    }

    /// A `ping` on session `sid`: the HTTP status.
    async fn ping(&self, sid: &str) -> u16 {
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let resp = self.post(&ping).header("mcp-session-id", sid).header("mcp-protocol-version", LEGACY);
        resp.send().await.unwrap().status().as_u16()
    }

    /// A modern `subscriptions/listen` request, its response's headers read.
    async fn listen(&self, id: &str) -> reqwest::Response {
        let resp = self
            .post(&listen_body(id))
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "subscriptions/listen")
            .send()
            .await
            .unwrap();
        resp
    }

    /// A raw connection (for what reqwest will not send: half requests, slow bodies, repeated
    /// headers).
    async fn raw(&self) -> TcpStream {
        TcpStream::connect(self.addr).await.unwrap()
    }
}

impl Peer {
    fn findings(&self) -> Vec<String> {
        self.server.self_check().unwrap().findings().iter().map(|(k, f)| format!("{k}: {f}")).collect()
    }

    fn conversations(&self) -> usize {
        self.server.self_check().unwrap().conversation_count()
    }
}

/// Reads until the server closes the connection; panics if it has not within [`STEP`].
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let read = tokio::time::timeout(STEP, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    });
    read.await.unwrap_or_else(|_| panic!("the server kept the connection open: {}", String::from_utf8_lossy(&got)));
    String::from_utf8_lossy(&got).into_owned()
}

/// A whole HTTP/1.1 `subscriptions/listen` request with id `id`, for a raw connection.
fn raw_listen(p: &Peer, id: &str) -> String {
    let body = listen_body(id).to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        p.addr,
        body.len()
    )
}

/// Sends `request` (a whole HTTP/1.1 request) on a new connection; the status line's code.
async fn raw_status(p: &Peer, request: &str) -> u16 {
    let mut s = p.raw().await;
    s.write_all(request.as_bytes()).await.unwrap();
    let text = read_to_close(&mut s).await;
    text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("no status line in {text:?}"))
}

fn default_tables() -> TableLimits {
    TableLimits::default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_session_cap_the_least_recently_used_idle_session_is_evicted() {
    let p = start(tables(3, Duration::from_secs(600), 16), HttpLimits::default()).await;
    let s1 = p.initialize().await;
    let s2 = p.initialize().await;
    let s3 = p.initialize().await;
    assert_eq!(p.ping(&s1).await, 200, "s1 is now more recently used than s2");
    let s4 = p.initialize().await;
    assert_eq!(p.server.session_count(), 3);
    assert_eq!(p.ping(&s2).await, 404, "the least recently used session was evicted");
    for s in [&s1, &s3, &s4] {
        assert_eq!(p.ping(s).await, 200);
    }
    assert_eq!(p.conversations(), 3, "the evicted session's self-check conversation is forgotten");
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_session_cap_with_every_session_in_use_initialize_gets_503() {
    let p = start(tables(2, Duration::from_secs(600), 16), HttpLimits::default()).await;
    let (s1, s2) = (p.initialize().await, p.initialize().await);
    let get = |sid: String| {
        let req = p.http.get(&p.url).header("accept", "text/event-stream").header("mcp-session-id", sid);
        async move { req.header("mcp-protocol-version", LEGACY).send().await.unwrap() }
    };
    // An open GET stream keeps its session in use.
    let (g1, g2) = (get(s1.clone()).await, get(s2.clone()).await);
    assert_eq!((g1.status().as_u16(), g2.status().as_u16()), (200, 200));
    let (status, body, sid) = p.initialize_status().await;
    assert_eq!((status, sid), (503, None), "{body}");
    assert_eq!(body["error"]["code"], -32603);
    assert_eq!(p.server.session_count(), 2);

    // Once s1's stream is closed, s1 is idle again and makes room.
    drop(g1);
    let deadline = tokio::time::Instant::now() + STEP;
    let s3 = loop {
        let (status, _, sid) = p.initialize_status().await;
        if status == 200 {
            break sid.unwrap();
        }
        assert!(tokio::time::Instant::now() < deadline, "initialize still refused after s1's stream closed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(p.ping(&s1).await, 404);
    assert_eq!((p.ping(&s2).await, p.ping(&s3).await), (200, 200));
    drop(g2);
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_expire_their_ids_get_404_and_their_state_is_forgotten() {
    let p = start(tables(1024, Duration::from_millis(300), 16), HttpLimits::default()).await;
    let kept = p.initialize().await;
    let mut idle = Vec::new();
    for _ in 0..20 {
        idle.push(p.initialize().await);
    }
    assert_eq!(p.server.session_count(), 21);
    // `kept` is used every 50 ms, well within the idle timeout; the others expire.
    let deadline = tokio::time::Instant::now() + STEP;
    while p.server.session_count() > 1 {
        assert!(tokio::time::Instant::now() < deadline, "{} sessions left", p.server.session_count());
        assert_eq!(p.ping(&kept).await, 200);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for sid in &idle {
        assert_eq!(p.ping(sid).await, 404);
        let del = p.http.delete(&p.url).header("mcp-session-id", sid).send().await.unwrap();
        assert_eq!(del.status().as_u16(), 404);
    }
    assert_eq!(p.ping(&kept).await, 200);
    assert_eq!(p.conversations(), 1, "only the kept session's conversation is left");
    // Left alone, the kept session expires too, and the table is empty. The sweeper ends the
    // session first and then forgets its conversation: wait for both.
    eventually("the last session expires and its conversation is forgotten", || {
        p.server.session_count() == 0 && p.conversations() == 0
    })
    .await;
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_listen_streams_opened_and_closed_leave_the_table_empty() {
    let p = Arc::new(start(default_tables(), HttpLimits::default()).await);
    for batch in 0..20 {
        let mut open = Vec::new();
        for i in 0..50 {
            let p = Arc::clone(&p);
            open.push(tokio::spawn(async move {
                let mut resp = p.listen(&format!("listen-{batch}-{i}")).await;
                assert_eq!(resp.status().as_u16(), 200);
                let ack = tokio::time::timeout(STEP, resp.chunk()).await.unwrap().unwrap().unwrap();
                assert!(String::from_utf8_lossy(&ack).contains("notifications/subscriptions/acknowledged"));
                resp // closed when dropped
            }));
        }
        for o in open {
            drop(o.await.unwrap());
        }
    }
    eventually("every closed listen stream leaves the table", || p.server.listeners().is_empty()).await;
    eventually("and its self-check conversation", || p.conversations() == 0).await;
    assert_eq!(p.findings(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_beyond_the_cap_gets_503() {
    let p = start(tables(16, Duration::from_secs(600), 2), HttpLimits::default()).await;
    let (a, b) = (p.listen("a").await, p.listen("b").await);
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    let c = p.listen("c").await;
    assert_eq!(c.status().as_u16(), 503);
    let body: Value = serde_json::from_str(&c.text().await.unwrap()).unwrap();
    assert_eq!((body["id"].as_str(), body["error"]["code"].as_i64()), (Some("c"), Some(-32603)));
    drop(a);
    eventually("a's entry goes", || p.server.listeners().len() == 1).await;
    assert_eq!(p.listen("d").await.status().as_u16(), 200);
    drop(b);
    assert_eq!(p.findings(), Vec::<String>::new());
}

/// Issue 38, cause 6: streams that are never read used to hold every connection slot. Listen
/// streams now need a stream slot (`max_streams`, below the connection cap): one more gets
/// 503, and other requests are still served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_beyond_the_stream_cap_get_503_and_other_requests_get_through() {
    let limits = HttpLimits { max_connections: 3, max_streams: 2, ..HttpLimits::default() };
    let p = start(default_tables(), limits).await;
    let (a, b) = (p.listen("a").await, p.listen("b").await);
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    // The third, on a connection of its own: refused, and the connection closed (a refused
    // client that keeps its connection would hold the last slot instead).
    let mut c = p.raw().await;
    c.write_all(raw_listen(&p, "c").as_bytes()).await.unwrap();
    let answer = read_to_close(&mut c).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    let refused: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!((refused["id"].as_str(), refused["error"]["code"].as_i64()), (Some("c"), Some(-32603)));
    assert_eq!(p.server.listeners().len(), 2, "the refused stream was never opened");
    let sid = tokio::time::timeout(STEP, p.initialize()).await.expect("a plain request gets a connection");
    assert_eq!(p.ping(&sid).await, 200);
    drop(a);
    eventually("a's entry goes", || p.server.listeners().len() == 1).await;
    assert_eq!(p.listen("d").await.status().as_u16(), 200);
    drop(b);
}

/// Issue 38, cause 3: a legacy session's subscriptions were kept without a bound (1.9 GB in
/// 12.6 s). At the cap a new URI gets -32603; one already held and unsubscribing still work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_subscribes_up_to_the_cap_and_one_more_gets_an_internal_error() {
    let p = start(TableLimits { max_subscriptions: 3, ..default_tables() }, HttpLimits::default()).await;
    let sid = p.initialize().await;
    let call = |id: u64, method: &str, uri: &str| {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": uri}});
        let request = p.post(&body).header("mcp-session-id", sid.as_str()).header("mcp-protocol-version", LEGACY);
        async move { serde_json::from_str::<Value>(&request.send().await.unwrap().text().await.unwrap()).unwrap() }
    };
    for i in 0..3 {
        assert!(call(i, "resources/subscribe", &format!("test://r{i}")).await["result"].is_object());
    }
    let refused = call(10, "resources/subscribe", "test://r3").await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(call(11, "resources/subscribe", "test://r0").await["result"].is_object(), "one already held");
    assert_eq!(p.server.session(&sid).unwrap().subscription_count(), 3);
    assert!(call(12, "resources/unsubscribe", "test://r1").await["result"].is_object());
    assert!(call(13, "resources/subscribe", "test://r3").await["result"].is_object());
    assert_eq!(p.server.session(&sid).unwrap().subscription_count(), 3);
}

/// A listener whose client never reads: its queue fills, the server ends the subscription
/// (the entry leaves the table, nothing more is queued for it), and when the client finally
/// reads, the stream ends with the closing result (SUB-7), tagged with the subscription id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_that_never_reads_is_ended_not_grown() {
    let p = start(default_tables(), HttpLimits::default()).await;
    let mut s = p.raw().await;
    s.write_all(raw_listen(&p, "slow").as_bytes()).await.unwrap();
    eventually("the listener is open", || p.server.listeners().len() == 1).await;
    let mut queued = 0;
    loop {
        assert!(queued < 200_000, "200,000 notifications queued for a client that reads nothing");
        p.server.listeners().notify("notifications/tools/list_changed");
        if p.server.listeners().is_empty() {
            break; // that one found the queue full
        }
        queued += 1;
        if queued % 64 == 0 {
            tokio::task::yield_now().await;
        }
    }
    // Once ended, the stream is not in the table: nothing more is queued for it.
    for _ in 0..1000 {
        p.server.listeners().notify("notifications/tools/list_changed");
    }
    let text = read_until(&mut s, "\r\n0\r\n\r\n").await;
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(last["id"], "slow", "the closing result answers the listen request: {last}");
    assert_eq!(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "slow");
    assert_eq!(last["result"]["resultType"], "complete");
    let notes = events.iter().filter(|e| e["method"] == "notifications/tools/list_changed").count();
    assert_eq!(notes, queued, "what was queued before the end is delivered, nothing after");
    eventually("the stream's conversation is forgotten", || p.conversations() == 0).await;
    assert_eq!(p.findings(), Vec::<String>::new());
}

/// Reads until `needle` has arrived (the server may keep the connection open afterwards).
async fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut got = Vec::new();
    let read = tokio::time::timeout(STEP * 2, async {
        let mut buf = vec![0u8; 1 << 16];
        while !String::from_utf8_lossy(&got).contains(needle) {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    });
    read.await.unwrap_or_else(|_| panic!("no {needle} in {} bytes", got.len()));
    String::from_utf8_lossy(&got).into_owned()
}

fn short(header_read: Duration, body: Duration, max_connections: usize) -> HttpLimits {
    HttpLimits { header_read_timeout: header_read, body_timeout: body, max_connections, ..HttpLimits::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_that_send_half_a_request_are_closed_at_the_header_timeout() {
    let p = start(default_tables(), short(Duration::from_millis(300), Duration::from_secs(30), 512)).await;
    let mut conns = Vec::new();
    for _ in 0..100 {
        let mut s = p.raw().await;
        s.write_all(format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: app", p.addr).as_bytes()).await.unwrap();
        conns.push(s);
    }
    let closing: Vec<_> =
        conns.into_iter().map(|mut s| tokio::spawn(async move { read_to_close(&mut s).await })).collect();
    for c in closing {
        let said = c.await.unwrap();
        assert!(said.is_empty() || said.starts_with("HTTP/1.1 408"), "{said}");
    }
    // A connection that sends nothing at all is closed the same way.
    let mut silent = p.raw().await;
    read_to_close(&mut silent).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_sent_slowly_is_cut_at_the_body_timeout() {
    let p = start(default_tables(), short(Duration::from_secs(30), Duration::from_millis(400), 512)).await;
    let mut s = p.raw().await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{",
        p.addr
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let (mut read, mut write) = s.into_split();
    // One byte every 50 ms: 100 bytes would take 5 s.
    let drip = tokio::spawn(async move {
        for _ in 0..99 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if write.write_all(b" ").await.is_err() {
                return;
            }
        }
    });
    let mut got = Vec::new();
    tokio::time::timeout(STEP, read.read_to_end(&mut got)).await.expect("the slow body was not cut").ok();
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.to_ascii_lowercase().contains("connection: close"), "{text}");
    drip.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_connection_cap_a_new_connection_waits_for_a_free_slot() {
    let p = start(default_tables(), short(Duration::from_secs(30), Duration::from_secs(30), 2)).await;
    let idle1 = p.raw().await;
    let _idle2 = p.raw().await;
    let url = p.url.clone();
    let mut request = tokio::spawn(async move {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
        let r = reqwest::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init.to_string());
        r.send().await.unwrap().status().as_u16()
    });
    let waited = tokio::time::timeout(Duration::from_millis(500), &mut request).await;
    assert!(waited.is_err(), "served beyond the cap of 2 connections");
    drop(idle1);
    let status = tokio::time::timeout(STEP, request).await.expect("still waiting after a slot was freed").unwrap();
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_connection_cap_idle_connections_are_closed_and_a_request_gets_through() {
    let p = start(default_tables(), short(Duration::from_millis(300), Duration::from_secs(30), 4)).await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(p.raw().await);
    }
    let status = tokio::time::timeout(STEP, p.initialize_status()).await.expect("the request never got a slot").0;
    assert_eq!(status, 200);
    for mut s in idle {
        assert_eq!(read_to_close(&mut s).await, "", "an idle connection is closed without an answer");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn media_types_are_enforced_and_a_repeated_host_is_refused() {
    let p = start(default_tables(), HttpLimits::default()).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let post = |content_type: Option<&str>, accept: &str| {
        let mut r = p.http.post(&p.url).header("accept", accept).body(init.to_string());
        if let Some(t) = content_type {
            r = r.header("content-type", t);
        }
        async move { r.send().await.unwrap().status().as_u16() }
    };
    let both = "application/json, text/event-stream";
    assert_eq!(post(None, both).await, 415);
    assert_eq!(post(Some("text/plain"), both).await, 415);
    assert_eq!(post(Some("application/json-seq"), both).await, 415);
    assert_eq!(post(Some("Application/JSON; charset=utf-8"), both).await, 200);
    assert_eq!(post(Some("application/json"), "application/json").await, 406);
    assert_eq!(post(Some("application/json"), "text/event-stream").await, 406);
    assert_eq!(post(Some("application/json"), "application/json, text/event-stream;q=0").await, 406);
    assert_eq!(post(Some("application/json"), "text/html").await, 406);
    assert_eq!(post(Some("application/json"), "*/*").await, 200);
    assert_eq!(post(Some("application/json"), "application/*;q=0.5, text/*").await, 200);
    assert_eq!(post(Some("application/json"), "TEXT/EVENT-STREAM;q=1, application/json;q=0.9").await, 200);

    let sid = p.initialize().await;
    let get = |accept: &str| {
        let r = p.http.get(&p.url).header("accept", accept).header("mcp-session-id", &sid);
        async move { r.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(get("application/json").await, 406);
    assert_eq!(get("text/event-stream").await, 200);

    let host = p.addr.to_string();
    let len = init.to_string().len();
    let base = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: {both}\r\nContent-Length: {len}\r\nConnection: close\r\n"
    );
    let raw = |extra: String| format!("{base}{extra}\r\n{init}");
    assert_eq!(raw_status(&p, &raw(format!("Host: {host}\r\n"))).await, 200, "the raw request itself is fine");
    assert_eq!(raw_status(&p, &raw(format!("Host: {host}\r\nHost: evil.example.com\r\n"))).await, 400);
    assert_eq!(raw_status(&p, &raw(format!("Host: {host}\r\nHost: {host}\r\n"))).await, 400);
    let origins = format!("Host: {host}\r\nOrigin: http://localhost\r\nOrigin: http://evil.example.com\r\n");
    assert_eq!(raw_status(&p, &raw(origins)).await, 403);
    let no_accept = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n{init}"
    );
    assert_eq!(raw_status(&p, &no_accept).await, 406, "no Accept at all");
    assert_eq!(p.findings(), Vec::<String>::new());
}

/// The server binary, killed when the test ends (even by a panic).
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The server binary with the session cap: 4,000 sessions opened and never closed, with the
/// self-check (about 4.7 KB each when kept), leave its peak RSS within a few MB of where 200
/// left it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_binary_with_capped_sessions_stays_small() {
    use std::io::BufRead;
    let mut child = Child(
        std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen-reference-server"))
            .args(["--listen", "127.0.0.1:0", "--self-check", "--max-sessions", "100"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    std::io::BufReader::new(child.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("listening on ").unwrap();
    let c = Arc::new(Client::new(url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap()));
    let open = |n: usize| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let c = Arc::clone(&c);
                tokio::spawn(async move {
                    for _ in 0..n / 4 {
                        c.initialize().await;
                    }
                })
            })
            .collect();
        async move {
            for w in workers {
                w.await.unwrap();
            }
        }
    };
    open(200).await;
    let before = peak_rss_kb(child.0.id());
    open(4000).await;
    let after = peak_rss_kb(child.0.id());
    assert!(after - before < 6 * 1024, "peak RSS grew {} KB over 4,000 sessions (cap 100)", after - before);
}

/// `VmHWM` of process `pid`, in KB.
fn peak_rss_kb(pid: u32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
