//! The taps: what a client and a server send each other, recorded on its way through
//! ([`super::trace`]) before it is passed on, so the trace has the order the peers saw.
//!
//! - [`HttpTap`]: a loopback reverse proxy for Streamable HTTP. POST bodies are client
//!   messages (their standard headers are checked with `mcpgen::protocol::check_http_headers`);
//!   JSON bodies of a POST's answer and every SSE event of a response or GET stream are server
//!   messages. The body of a GET's or DELETE's answer that is no stream (a 405 with a JSON-RPC
//!   error in it) answers no JSON-RPC message: the transport does not make it an MCP message,
//!   and it is not recorded.
//! - [`stdio`]: run as `mcpgen-interop tap-stdio …` in place of a stdio server: it starts the
//!   server and passes every line through, one trace file per process (a client that probes on
//!   a sibling process gets one trace per process).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use axum::Router;
use futures_util::StreamExt;
use mcpgen::conversation::Sender;
use mcpgen::http::sse::{SseEvent, SseSplitter};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::trace::TraceWriter;

/// The largest request body the HTTP tap passes on; larger ones get 413 (a peer cannot make
/// the tap hold more).
pub const MAX_BODY: usize = 16 << 20;
/// The longest SSE event (or stdio line) the tap keeps for the trace; a longer event is passed
/// on whole and recorded as `TOO_LARGE_EVENT`, a longer line recorded cut.
pub const MAX_EVENT: usize = 16 << 20;
/// What the trace holds for an SSE event above [`MAX_EVENT`] (not JSON: the check reports it).
const TOO_LARGE_EVENT: &str = "(an SSE event above the tap's 16 MiB limit, passed on but not kept)";

/// Whether the tap drops the header `name`: one hop's ([`mcpgen::http::is_hop_by_hop`]), or
/// one the tap sets itself (`host` names the upstream; `content-length` follows the body;
/// `accept-encoding` is dropped so bodies arrive uncompressed and readable).
fn dropped(name: &str) -> bool {
    matches!(name, "host" | "content-length" | "accept-encoding") || mcpgen::http::is_hop_by_hop(name, &[])
}

#[derive(Clone)]
struct Tap {
    upstream: String,
    http: reqwest::Client,
    trace: TraceWriter,
}

/// A running HTTP tap in front of one server.
pub struct HttpTap {
    /// The URL to give the client (the upstream's path on the tap's address).
    pub url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HttpTap {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl HttpTap {
    /// Listens on 127.0.0.1 (a free port) and forwards to `upstream` (`http://127.0.0.1:P/mcp`).
    pub async fn start(upstream: &str, trace: TraceWriter) -> std::io::Result<HttpTap> {
        let url = reqwest::Url::parse(upstream).map_err(std::io::Error::other)?;
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let port = listener.local_addr()?.port();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(std::io::Error::other)?;
        let origin = format!("{}://{}", url.scheme(), url.authority());
        let tap = Tap { upstream: origin, http, trace };
        let router = Router::new().fallback(forward).with_state(Arc::new(tap));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Ok(HttpTap { url: format!("http://127.0.0.1:{port}{}", url.path()), task })
    }
}

fn header_pairs(headers: &HeaderMap) -> Vec<(String, String)> {
    headers.iter().map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect()
}

fn plain(status: StatusCode, text: String) -> Response {
    let mut r = Response::new(Body::from(text));
    *r.status_mut() = status;
    r
}

async fn forward(State(tap): State<Arc<Tap>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(e) => return plain(StatusCode::PAYLOAD_TOO_LARGE, format!("mcpgen-interop tap: {e}")),
    };
    if !body.is_empty() {
        let headers = header_pairs(&parts.headers);
        let line = tap.trace.message(Sender::Client, &body, Some(&headers));
        let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        if let Err(e) = mcpgen::protocol::check_http_headers(pairs, &body) {
            let method = serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(str::to_owned))
                .unwrap_or_default();
            tap.trace.header_finding(line, &method, &e);
        }
    }
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut out = tap.http.request(parts.method.clone(), format!("{}{path}", tap.upstream));
    for (k, v) in &parts.headers {
        if !dropped(k.as_str()) {
            out = out.header(k, v);
        }
    }
    let upstream = match out.body(body).send().await {
        Ok(r) => r,
        Err(e) => return plain(StatusCode::BAD_GATEWAY, format!("mcpgen-interop tap: upstream: {e}")),
    };
    let status = upstream.status();
    let mut headers = HeaderMap::new();
    for (k, v) in upstream.headers() {
        if !dropped(k.as_str()) {
            headers.append(HeaderName::from(k), HeaderValue::from(v));
        }
    }
    let content_type = headers.get("content-type").and_then(|v| v.to_str().ok());
    let sse = mcpgen::http::is_media(content_type, "text/event-stream");
    let body = if sse {
        Body::from_stream(relay_events(upstream, tap.trace.clone()))
    } else {
        let bytes = match read_capped(upstream, MAX_BODY).await {
            Ok(b) => b,
            Err(e) => return plain(StatusCode::BAD_GATEWAY, format!("mcpgen-interop tap: upstream body: {e}")),
        };
        let json = headers.get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("json"));
        let answers_a_post = parts.method == axum::http::Method::POST;
        if answers_a_post
            && !bytes.is_empty()
            && (json || serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok())
        {
            tap.trace.message(Sender::Server, &bytes, None);
        }
        Body::from(bytes)
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// A whole (non-stream) response body, refused past `limit` bytes.
async fn read_capped(upstream: reqwest::Response, limit: usize) -> Result<Bytes, String> {
    let mut body = Vec::new();
    let mut chunks = upstream.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        if body.len() + chunk.len() > limit {
            return Err(format!("larger than {limit} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(body))
}

/// An SSE response passed on chunk by chunk; each event's data is recorded before the chunk
/// that completes it goes to the client (so an answer to a server request can never precede
/// the request in the trace). Ends when either side does.
fn relay_events(
    upstream: reqwest::Response,
    trace: TraceWriter,
) -> impl futures_util::Stream<Item = Result<Bytes, Infallible>> + Send {
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        let mut events = SseSplitter::new(MAX_EVENT);
        let mut chunks = upstream.bytes_stream();
        loop {
            let chunk = tokio::select! {
                c = chunks.next() => match c {
                    Some(Ok(c)) => c,
                    _ => break,
                },
                // The client went away: dropping the upstream stream closes it too, at once
                // (not at the server's next keep-alive).
                () = tx.closed() => break,
            };
            for event in events.push(&chunk) {
                match event {
                    // An event without data (a priming event: id and retry only) is no message.
                    SseEvent::Data(data) if data.trim().is_empty() => {}
                    SseEvent::Data(data) => {
                        trace.message(Sender::Server, data.as_bytes(), None);
                    }
                    // Passed on whole, recorded as what it is (and so reported as not JSON).
                    SseEvent::TooLarge => {
                        trace.message(Sender::Server, TOO_LARGE_EVENT.as_bytes(), None);
                    }
                }
            }
            if tx.send(chunk).await.is_err() {
                break;
            }
        }
    });
    futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (Ok(b), rx)) })
}

/// `mcpgen-interop tap-stdio --trace-dir DIR --stderr FILE -- PROGRAM ARG…`: starts the
/// server, passes every line of stdin to it and every line it writes back, recording each in
/// `DIR/stdio-<pid>.jsonl` first; the server's stderr is appended to FILE. Returns the
/// server's exit code (143 when the tap was ended by SIGTERM, the server killed with it).
pub async fn stdio(trace_dir: &Path, stderr: &Path, program: &str, args: &[String]) -> std::io::Result<i32> {
    let trace = TraceWriter::create(&trace_dir.join(format!("stdio-{}.jsonl", std::process::id())), None)?;
    let log = std::fs::OpenOptions::new().create(true).append(true).open(stderr)?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()?;
    let to_server = child.stdin.take().expect("piped");
    let from_server = child.stdout.take().expect("piped");
    // When the client closes stdin, so does the server's (dropping `to_server`).
    let inbound = tokio::spawn(pass_lines(tokio::io::stdin(), to_server, trace.clone(), Sender::Client));
    // A client that ends its server with SIGTERM ends the tap: the server goes with it.
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        copied = pass_lines(from_server, tokio::io::stdout(), trace, Sender::Server) => copied?,
        _ = term.recv() => {
            let _ = child.kill().await;
            return Ok(143);
        }
    }
    inbound.abort();
    let status = child.wait().await?;
    Ok(status.code().unwrap_or(1))
}

/// Copies `from` to `to` as it comes, recording each line (one message) before the byte that
/// ends it is passed on. A line is kept for the trace up to [`MAX_EVENT`] bytes; a longer one
/// is passed on whole but recorded cut (and so reported as not JSON).
async fn pass_lines<R, W>(from: R, mut to: W, trace: TraceWriter, sender: Sender) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(from);
    let mut line = Vec::new();
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(());
        }
        let (chunk, ends_line) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..=at], true),
            None => (buf, false),
        };
        let keep = chunk.len().min(MAX_EVENT.saturating_sub(line.len()));
        line.extend_from_slice(&chunk[..keep]);
        if ends_line {
            trace.message(sender, strip_eol(&line), None);
            line.clear();
        }
        to.write_all(chunk).await?;
        to.flush().await?;
        let n = chunk.len();
        reader.consume(n);
    }
}

fn strip_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines pass through unchanged and are recorded one message each, also when a line
    /// arrives in pieces or several arrive at once.
    #[tokio::test]
    async fn stdio_lines_pass_through_and_are_recorded_one_each() {
        let dir = std::env::temp_dir().join(format!("mcpgen-interop-tap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.jsonl");
        let trace = TraceWriter::create(&path, None).unwrap();
        let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\nnot json\n{\"a\":1}";
        let (mut w, r) = tokio::io::duplex(4);
        let writer = tokio::spawn(async move {
            w.write_all(input).await.unwrap();
        });
        let mut out = Vec::new();
        pass_lines(r, &mut out, trace, Sender::Client).await.unwrap();
        writer.await.unwrap();
        assert_eq!(out, input, "passed on unchanged");
        let recorded = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = recorded.lines().collect();
        assert_eq!(lines.len(), 2, "the unterminated last line is no message: {recorded}");
        assert!(lines[0].ends_with(",\"message\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}"), "{}", lines[0]);
        assert_eq!(lines[1], "{\"from\":\"client\",\"raw\":\"not json\"}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A POST's JSON answer is a server message; a GET's 405 with a JSON-RPC error in its body
    /// (what a server without a standalone stream may send) answers no JSON-RPC message and is
    /// passed on but not recorded. Neither is a notification POST without `Mcp-Method` judged.
    #[tokio::test]
    async fn a_gets_405_body_is_passed_on_but_is_no_server_message() {
        use axum::routing::post;
        const ERROR: &str = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}"#;
        const RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let upstream = Router::new().route(
            "/mcp",
            post(|| async { ([("content-type", "application/json")], RESULT) })
                .get(|| async { (StatusCode::METHOD_NOT_ALLOWED, [("content-type", "application/json")], ERROR) }),
        );
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move { axum::serve(listener, upstream).await });
        let dir = std::env::temp_dir().join(format!("mcpgen-interop-tap-get-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (path, header_path) = (dir.join("t.jsonl"), dir.join("h.jsonl"));
        let trace = TraceWriter::create(&path, Some(&header_path)).unwrap();
        let tap = HttpTap::start(&format!("http://127.0.0.1:{port}/mcp"), trace).await.unwrap();
        let client = reqwest::Client::new();
        let got = client.get(&tap.url).send().await.unwrap();
        assert_eq!(got.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(got.text().await.unwrap(), ERROR, "passed on unchanged");
        let notification = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let sent = client.post(&tap.url).header("MCP-Protocol-Version", "2026-07-28").body(notification);
        assert_eq!(sent.send().await.unwrap().text().await.unwrap(), RESULT);
        let recorded = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = recorded.lines().collect();
        assert_eq!(lines.len(), 2, "the notification and the POST's answer only: {recorded}");
        assert!(lines[0].starts_with(r#"{"from":"client""#), "{}", lines[0]);
        assert!(lines[1].starts_with(r#"{"from":"server""#) && lines[1].contains(r#""id":1"#), "{}", lines[1]);
        assert!(!recorded.contains("-32000"), "{recorded}");
        let header_findings = std::fs::read_to_string(&header_path).unwrap();
        assert_eq!(header_findings, "", "a notification POST needs no Mcp-Method");
        server.abort();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
