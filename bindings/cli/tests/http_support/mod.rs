//! For the HTTP proxy tests: a scripted upstream on 127.0.0.1 (plain HTTP/1.1 on std threads:
//! every request it gets is kept, each answer is what the test's handler says, byte for byte),
//! a raw HTTP/1.1 client, and `mcpgen proxy --listen` started against an upstream.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Every wait in these tests is bounded by this.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("proxy-http").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub target: String,
    /// Names lowercased, values as sent, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// What the upstream answers.
pub enum Reply {
    /// Status, headers, body (Content-Length added).
    Whole(u16, Vec<(String, String)>, Vec<u8>),
    /// 200 `text/event-stream`, chunked: each step writes a chunk, or waits for the test.
    Stream(Vec<(String, String)>, Vec<Step>),
    /// Never answers (the connection stays open until the peer closes it).
    Never,
}

pub enum Step {
    Chunk(Vec<u8>),
    /// Waits until the test sends (or drops its sender).
    Wait(Receiver<()>),
}

pub type Handler = dyn Fn(&Seen) -> Reply + Send + Sync;

pub struct Upstream {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    pub connections: Arc<AtomicUsize>,
}

impl Upstream {
    pub fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        {
            let (seen, connections) = (Arc::clone(&seen), Arc::clone(&connections));
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { return };
                    connections.fetch_add(1, Ordering::SeqCst);
                    let (seen, handler) = (Arc::clone(&seen), Arc::clone(&handler));
                    std::thread::spawn(move || serve(stream, &seen, &*handler));
                }
            });
        }
        Upstream { url: format!("http://{addr}/mcp"), seen, connections }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Vec<Seen>>, handler: &Handler) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let Some((start, headers)) = read_head(&mut reader) else { return };
        let mut parts = start.split(' ');
        let (method, target) = (parts.next().unwrap_or("").to_owned(), parts.next().unwrap_or("").to_owned());
        let body = read_body(&mut reader, &headers);
        let request = Seen { method, target, headers, body };
        seen.lock().unwrap().push(request.clone());
        match handler(&request) {
            Reply::Whole(status, headers, body) => {
                let mut head = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len());
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                if out.write_all(head.as_bytes()).and_then(|()| out.write_all(&body)).is_err() {
                    return;
                }
            }
            Reply::Stream(headers, steps) => {
                let mut head =
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n".to_owned();
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                if out.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for step in steps {
                    match step {
                        Step::Chunk(c) => {
                            let framed = [format!("{:x}\r\n", c.len()).into_bytes(), c, b"\r\n".to_vec()].concat();
                            if out.write_all(&framed).and_then(|()| out.flush()).is_err() {
                                return;
                            }
                        }
                        Step::Wait(rx) => {
                            let _ = rx.recv_timeout(PATIENCE);
                        }
                    }
                }
                if out.write_all(b"0\r\n\r\n").is_err() {
                    return;
                }
            }
            Reply::Never => {
                let mut sink = [0u8; 1024];
                while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
                return;
            }
        }
    }
}

/// A request or status line and the headers (names lowercased); `None` at the end.
pub fn read_head(reader: &mut impl BufRead) -> Option<(String, Vec<(String, String)>)> {
    let mut start = String::new();
    if reader.read_line(&mut start).ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    Some((start.trim_end().to_owned(), headers))
}

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// A Content-Length or chunked body, whole.
pub fn read_body(reader: &mut impl BufRead, headers: &[(String, String)]) -> Vec<u8> {
    if header(headers, "transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        let mut body = Vec::new();
        while let Some(chunk) = read_chunk(reader) {
            body.extend(chunk);
        }
        return body;
    }
    let n: usize = header(headers, "content-length").and_then(|n| n.parse().ok()).unwrap_or(0);
    let mut body = vec![0; n];
    let _ = reader.read_exact(&mut body);
    body
}

/// The next chunk of a chunked body; `None` after the last.
pub fn read_chunk(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut size = String::new();
    if reader.read_line(&mut size).ok()? == 0 {
        return None;
    }
    let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
    if n == 0 {
        let mut end = String::new();
        let _ = reader.read_line(&mut end);
        return None;
    }
    let mut chunk = vec![0; n + 2];
    reader.read_exact(&mut chunk).ok()?;
    chunk.truncate(n);
    Some(chunk)
}

/// An answer as the client got it.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

/// Opens a connection to `addr` and sends one request (`Host: addr`, Content-Length).
pub fn send_request(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &[u8]) -> BufReader<TcpStream> {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut head = format!("{method} /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-length: {}\r\n", body.len());
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut w = stream.try_clone().unwrap();
    // A proxy that refuses early may close before it has read it all: the answer says why.
    let _ = w.write_all(head.as_bytes()).and_then(|()| w.write_all(body));
    BufReader::new(stream)
}

/// Reads an answer's head.
pub fn answer_head(reader: &mut impl BufRead) -> (u16, Vec<(String, String)>) {
    let (status, headers) = read_head(reader).expect("an answer");
    let code = status.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (code, headers)
}

/// One request, its whole answer.
pub fn request(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    let mut reader = send_request(addr, method, headers, body);
    let (status, headers) = answer_head(&mut reader);
    let body = read_body(&mut reader, &headers);
    Answer { status, headers, body }
}

/// The headers a modern POST of `method` carries.
pub fn modern_headers(method: &str) -> Vec<(&'static str, String)> {
    vec![
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
        ("mcp-protocol-version", "2026-07-28".to_owned()),
        ("mcp-method", method.to_owned()),
    ]
}

/// A modern request body.
pub fn modern(id: u64, method: &str, params: &str) -> String {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let params = if params.is_empty() { format!("{{{meta}}}") } else { format!("{{{meta},{params}}}") };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

pub fn post(addr: SocketAddr, headers: &[(&str, String)], body: &str) -> Answer {
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    request(addr, "POST", &h, body.as_bytes())
}

/// A running `mcpgen proxy --listen 127.0.0.1:0 --upstream URL FLAGS`, killed (SIGTERM) on drop.
pub struct Proxy {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Proxy {
    pub fn start(upstream: &str, flags: &[&str]) -> Proxy {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream])
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpgen proxy");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("first line: {line:?}"));
        let addr = url.strip_suffix("/mcp").unwrap_or_else(|| panic!("no /mcp: {url}")).parse().unwrap();
        Proxy { child, addr }
    }

    /// SIGTERM, then its exit status and stderr.
    pub fn stop(mut self) -> (Option<i32>, String) {
        // SAFETY: kill(2) on our own child.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let mut err = String::new();
        let _ = self.child.stderr.take().unwrap().read_to_string(&mut err);
        let status = self.child.wait().unwrap();
        (status.code(), err)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

/// Makes a FIFO at `path` (for a `--record` nobody reads yet) and opens it for reading without waiting for a writer (so the
/// proxy's open for writing succeeds at once); nothing is read from it until the test does.
pub fn fifo_reader(path: &Path) -> std::fs::File {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "{}", std::io::Error::last_os_error());
    // SAFETY: open with a NUL-terminated path and fcntl on the descriptor it returns (made
    // blocking again for the reads), which the File then owns.
    unsafe {
        let fd = libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_NONBLOCK);
        assert!(fd >= 0, "{}", std::io::Error::last_os_error());
        assert_eq!(libc::fcntl(fd, libc::F_SETFL, 0), 0);
        <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd)
    }
}
