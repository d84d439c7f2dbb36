//! `mcpgen-reference-client` against hostile servers on 127.0.0.1: one that accepts and never
//! answers, one whose listen queue is full (connect never completes), one that streams a single
//! endless SSE event, one that sends an endless JSON body, one that keeps a stream alive with
//! keep-alives forever. Each run ends within the short limit the test sets, with exit status 2
//! and a message naming the limit; the endless bodies in bounded memory (the client's peak RSS,
//! from `wait4`).
#![cfg(target_os = "linux")]

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use futures_util::{stream, StreamExt};

const MIB: usize = 1024 * 1024;

/// Serves `app` on 127.0.0.1 from a thread of its own; returns the MCP URL.
fn serve(app: Router) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    url
}

/// A response of `content_type` whose body is `first`, then `chunk` forever.
fn endless(content_type: &'static str, first: &'static [u8], chunk: &'static [u8]) -> Response {
    let body = stream::iter([Ok::<_, Infallible>(Bytes::from_static(first))])
        .chain(stream::repeat_with(move || Ok(Bytes::from_static(chunk))));
    Response::builder().header(CONTENT_TYPE, content_type).body(Body::from_stream(body)).unwrap()
}

/// Runs the client with `flags` against `url`; returns its status, stderr and peak RSS (bytes).
/// The client must exit within `limit`.
fn client(flags: &[&str], url: &str, limit: Duration) -> (ExitStatus, String, usize, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen-reference-client"))
        .args(flags)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = {
        let mut pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut pipe, &mut s);
            s
        })
    };
    let (status, peak) = wait_with_peak(&mut child, limit);
    (status, stderr.join().unwrap(), peak, started.elapsed())
}

fn wait_with_peak(child: &mut Child, limit: Duration) -> (ExitStatus, usize) {
    let pid = child.id() as libc::pid_t;
    let deadline = Instant::now() + limit;
    loop {
        let mut status = 0;
        // SAFETY: wait4 on our own child into locals.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            return (ExitStatus::from_raw(status), usage.ru_maxrss as usize * 1024);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the client still runs after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_server_that_never_answers_times_out_at_the_read_timeout() {
    // Accepts every connection and holds it, never reading nor writing.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming().flatten() {
            held.push(s);
        }
    });
    let (status, stderr, _, took) = client(&["--read-timeout", "1", "--timeout", "30"], &url, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("timed out: the server sent nothing for 1 s (--read-timeout)"), "{stderr}");
    assert!(took >= Duration::from_secs(1), "not before the timeout: {took:?}");
}

#[test]
fn a_connection_that_never_completes_times_out_at_the_connect_timeout() {
    // A listener with a backlog of 0 that never accepts: once its queue is full, the kernel
    // drops further SYNs and a connect waits.
    // SAFETY: plain socket calls on a descriptor this test owns (closed when the test ends).
    let addr = unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let mut sa: libc::sockaddr_in = std::mem::zeroed();
        sa.sin_family = libc::AF_INET as libc::sa_family_t;
        sa.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        assert_eq!(libc::bind(fd, std::ptr::addr_of!(sa).cast(), len), 0);
        assert_eq!(libc::listen(fd, 0), 0);
        let mut bound: libc::sockaddr_in = std::mem::zeroed();
        let mut blen = len;
        assert_eq!(libc::getsockname(fd, std::ptr::addr_of_mut!(bound).cast(), &mut blen), 0);
        SocketAddr::from(([127, 0, 0, 1], u16::from_be(bound.sin_port)))
    };
    // Fill the queue: connect until one connect does not complete.
    let mut fillers = Vec::new();
    loop {
        match TcpStream::connect_timeout(&addr, Duration::from_millis(300)) {
            Ok(s) => fillers.push(s),
            Err(_) => break,
        }
        assert!(fillers.len() < 64, "the kernel keeps accepting: cannot fill the listen queue");
    }
    let url = format!("http://{addr}/mcp");
    let flags = ["--connect-timeout", "1", "--read-timeout", "20", "--timeout", "30"];
    let (status, stderr, _, _) = client(&flags, &url, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("could not connect to the server within 1 s (--connect-timeout)"), "{stderr}");
}

#[test]
fn an_endless_sse_event_is_refused_at_the_cap_in_bounded_memory() {
    let app =
        Router::new().route("/mcp", post(|| async { endless("text/event-stream", b"data: ", &[b'a'; 64 * 1024]) }));
    let url = serve(app);
    let flags = ["--max-message-bytes", "1048576", "--read-timeout", "10", "--timeout", "30"];
    let (status, stderr, peak, _) = client(&flags, &url, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("an SSE event from the server exceeds 1048576 bytes (--max-message-bytes)"), "{stderr}");
    assert!(peak < 32 * MIB, "peak RSS {} MiB with a 1 MiB cap", peak / MIB);
}

#[test]
fn an_endless_json_body_is_refused_at_the_cap_in_bounded_memory() {
    let app =
        Router::new().route("/mcp", post(|| async { endless("application/json", b"{\"a\":\"", &[b'a'; 64 * 1024]) }));
    let url = serve(app);
    let flags = ["--max-message-bytes", "1048576", "--read-timeout", "10", "--timeout", "30"];
    let (status, stderr, peak, _) = client(&flags, &url, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a response body from the server exceeds 1048576 bytes (--max-message-bytes)"), "{stderr}");
    assert!(peak < 32 * MIB, "peak RSS {} MiB with a 1 MiB cap", peak / MIB);
}

#[test]
fn a_stream_kept_alive_forever_ends_at_the_overall_timeout() {
    // Keep-alive comments, 20 a second: never silent, never an event, never an answer.
    let app = Router::new().route(
        "/mcp",
        post(|| async {
            let ticks = stream::unfold((), |()| async {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Some((Ok::<_, Infallible>(Bytes::from_static(b": keep-alive\n\n")), ()))
            });
            Response::builder().header(CONTENT_TYPE, "text/event-stream").body(Body::from_stream(ticks)).unwrap()
        }),
    );
    let url = serve(app);
    let (status, stderr, _, took) = client(&["--read-timeout", "5", "--timeout", "1"], &url, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("timed out: the run did not finish within 1 s (--timeout)"), "{stderr}");
    assert!(took >= Duration::from_secs(1), "not before the timeout: {took:?}");
}

/// Issue 38, cause 10: a flood of small, faulty SSE notifications (each one a finding) used to
/// grow the client by ~36 MB/s in memory and ~34 MB/s on stderr. Findings are now kept up to
/// a cap and printed at most `--max-log-lines-per-second`, with the count of the others.
#[test]
fn a_flood_of_faulty_notifications_is_logged_at_the_rate_in_bounded_memory() {
    const EVENT: &[u8] = b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n";
    let chunk: &'static [u8] = EVENT.repeat(256).leak();
    let app = Router::new().route("/mcp", post(move || async move { endless("text/event-stream", b"", chunk) }));
    let url = serve(app);
    let flags = ["--max-log-lines-per-second", "5", "--read-timeout", "10", "--timeout", "3"];
    let (status, stderr, peak, _) = client(&flags, &url, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2), "{}", &stderr[..stderr.len().min(2000)]);
    let lines = stderr.lines().count();
    // 3 s at 5 lines a second, each possibly preceded by a count line, plus the final lines.
    assert!(lines <= 40, "{lines} lines on stderr: {}", &stderr[..stderr.len().min(2000)]);
    assert!(stderr.contains("line(s) dropped (more than 5 a second)"), "{stderr}");
    assert!(peak < 64 * MIB, "peak RSS {} MiB", peak / MIB);
}

#[test]
fn limits_and_their_defaults_are_in_the_help() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen-reference-client")).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for (flag, default) in [
        ("--connect-timeout", "[default: 10]"),
        ("--read-timeout", "[default: 60]"),
        ("--timeout", "[default: 300]"),
        ("--max-message-bytes", "[default: 16777216]"),
        ("--max-log-lines-per-second", "[default: 20]"),
    ] {
        let at = help.find(flag).unwrap_or_else(|| panic!("{flag} missing: {help}"));
        let section = &help[at..];
        let next = section[2..].find("\n  -").map_or(section.len(), |i| i + 2);
        assert!(section[..next].contains(default), "{flag} {default}: {help}");
    }
}
