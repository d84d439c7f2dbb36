//! `mcpgen proxy --listen … --upstream …` against scripted upstreams on 127.0.0.1
//! (`http_support`): relay exactness both ways, SSE events passed on as they arrive,
//! resumption with `Last-Event-ID`, the report and record → replay, `--enforce`, the
//! transport's rules, and the limits of both legs.
#![cfg(unix)]

mod http_support;

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Mutex;

use http_support::*;
use serde_json::Value;

const LIST: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{ \"tools\" : [], \"n\":1.50 }}";

fn json_reply(body: &[u8]) -> Reply {
    Reply::Whole(200, vec![("content-type".into(), "application/json".into())], body.to_vec())
}

#[test]
fn json_answers_and_requests_are_relayed_byte_for_byte_with_host_rewritten() {
    let upstream = Upstream::start(|_| {
        Reply::Whole(
            200,
            vec![
                ("content-type".into(), "application/json".into()),
                ("mcp-session-id".into(), "sess-1".into()),
                ("x-custom".into(), "kept".into()),
                ("connection".into(), "keep-alive, x-hop".into()),
                ("x-hop".into(), "dropped".into()),
            ],
            LIST.to_vec(),
        )
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let body = modern(1, "tools/list", "");
    let body = format!("  {body}\n");
    let mut headers = modern_headers("tools/list");
    headers.push(("mcp-session-id", "client-said".into()));
    headers.push(("x-trace", "t1".into()));
    headers.push(("accept-encoding", "gzip".into()));
    let answer = post(proxy.addr, &headers, &body);
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body, LIST, "the answer's body, byte for byte");
    assert_eq!(answer.header("mcp-session-id"), Some("sess-1"));
    assert_eq!(answer.header("x-custom"), Some("kept"));
    assert_eq!(answer.header("x-hop"), None, "named by Connection: hop-by-hop");
    let seen = upstream.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].body, body.as_bytes(), "the request's body, byte for byte");
    assert_eq!(seen[0].target, "/mcp");
    let upstream_authority = upstream.url.trim_start_matches("http://").trim_end_matches("/mcp");
    assert_eq!(seen[0].header("host"), Some(upstream_authority), "Host names the upstream");
    assert_eq!(seen[0].header("mcp-session-id"), Some("client-said"));
    assert_eq!(seen[0].header("x-trace"), Some("t1"));
    assert_eq!(seen[0].header("mcp-method"), Some("tools/list"));
    assert_eq!(seen[0].header("accept-encoding"), None, "bodies must arrive readable");
}

#[test]
fn sse_events_are_passed_on_as_they_arrive_unchanged() {
    let (go, wait) = mpsc::channel::<()>();
    let wait = Mutex::new(Some(wait));
    let first = b"id: 1\nretry: 500\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n".to_vec();
    let last = b"id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\n".to_vec();
    let steps_first = first.clone();
    let steps_last = last.clone();
    let upstream = Upstream::start(move |_| {
        let wait = wait.lock().unwrap().take().expect("one stream");
        Reply::Stream(
            vec![],
            vec![
                Step::Chunk(b": priming\n\n".to_vec()),
                Step::Chunk(steps_first.clone()),
                Step::Wait(wait),
                // One event split over two chunks.
                Step::Chunk(steps_last[..10].to_vec()),
                Step::Chunk(steps_last[10..].to_vec()),
            ],
        )
    });
    let dir = scratch("sse");
    let record = dir.join("record.jsonl");
    let proxy = Proxy::start(&upstream.url, &["--record", record.to_str().unwrap()]);
    let headers: Vec<(&str, String)> = modern_headers("tools/list");
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut reader = send_request(proxy.addr, "POST", &h, modern(1, "tools/list", "").as_bytes());
    let (status, head) = answer_head(&mut reader);
    assert_eq!(status, 200);
    assert!(head.iter().any(|(k, v)| k == "content-type" && v == "text/event-stream"), "{head:?}");
    let mut got = Vec::new();
    // The upstream holds the last event back until the first has reached the client.
    while got.len() < b": priming\n\n".len() + first.len() {
        got.extend(read_chunk(&mut reader).expect("the first event before the stream ends"));
    }
    assert_eq!(got, [b": priming\n\n".as_slice(), &first].concat());
    go.send(()).unwrap();
    while let Some(chunk) = read_chunk(&mut reader) {
        got.extend(chunk);
    }
    assert_eq!(got, [b": priming\n\n".as_slice(), &first, &last].concat(), "the stream, byte for byte");
    let (_, stderr) = proxy.stop();
    let lines = json_lines(&record);
    let from: Vec<&str> = lines.iter().map(|l| l["from"].as_str().unwrap()).collect();
    assert_eq!(from, ["client", "server", "server"], "{lines:?}\n{stderr}");
    assert_eq!(lines[1]["http"]["status"], 200, "the first event carries the answer's status");
    assert_eq!(lines[1]["http"]["contentType"], "text/event-stream");
    assert_eq!(lines[2]["http"], serde_json::json!({"exchange": lines[1]["http"]["exchange"]}), "the POST's exchange");
    assert_eq!(lines[0]["http"]["exchange"], lines[1]["http"]["exchange"]);
    assert_eq!(lines[2]["message"]["result"]["tools"], Value::Array(vec![]));
}

#[test]
fn a_cut_sse_stream_resumes_with_last_event_id_through_the_proxy() {
    let event = |id: u32, body: &str| format!("id: {id}\ndata: {body}\n\n").into_bytes();
    let progress = |n: u32| {
        format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{n}"}}}}"#)
    };
    let (e1, e2, e3) =
        (event(1, &progress(1)), event(2, &progress(2)), event(3, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#));
    let (c1, c2, c3) = (e1.clone(), e2.clone(), e3.clone());
    let upstream = Upstream::start(move |seen| match (seen.method.as_str(), seen.header("last-event-id")) {
        // The first stream sends one event, then hangs: the client cuts it.
        ("POST", _) => Reply::Stream(vec![], vec![Step::Chunk(c1.clone()), Step::Wait(mpsc::channel().1)]),
        ("GET", Some("1")) => Reply::Stream(vec![], vec![Step::Chunk(c2.clone()), Step::Chunk(c3.clone())]),
        _ => Reply::Whole(400, vec![], b"no".to_vec()),
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let legacy = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}"#;
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-session-id", "sess-9"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let mut first = send_request(proxy.addr, "POST", &headers, legacy.as_bytes());
    assert_eq!(answer_head(&mut first).0, 200);
    assert_eq!(read_chunk(&mut first).expect("event 1"), e1);
    // Cut mid-way: the connection is closed.
    drop(first);
    let resume = [("accept", "text/event-stream"), ("mcp-session-id", "sess-9"), ("last-event-id", "1")];
    let answer = request(proxy.addr, "GET", &resume, b"");
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body, [e2, e3].concat(), "the events after 1, unchanged");
    let get = upstream.requests().into_iter().find(|s| s.method == "GET").expect("the GET reached the upstream");
    assert_eq!(get.header("last-event-id"), Some("1"));
    assert_eq!(get.header("mcp-session-id"), Some("sess-9"));
}

/// `(source, errors)` of each report object, for comparing the live report and the replay.
fn findings_by_source(objects: &[Value]) -> Vec<(String, Value)> {
    objects
        .iter()
        .filter(|o| o["errors"].as_array().is_some_and(|e| !e.is_empty()))
        .map(|o| (o["source"].as_str().unwrap().to_owned(), o["errors"].clone()))
        .collect()
}

#[test]
fn the_record_replays_with_the_findings_of_the_live_report() {
    let upstream = Upstream::start(|seen| {
        let body = String::from_utf8_lossy(&seen.body).into_owned();
        if body.contains("\"wrong-type\"") {
            // HTTP-6: a JSON answer declared as text.
            Reply::Whole(
                200,
                vec![("content-type".into(), "text/plain".into())],
                br#"{"jsonrpc":"2.0","id":2,"result":{}}"#.to_vec(),
            )
        } else if body.contains("\"bad-version\"") {
            // HTTP-9: -32022 with 200.
            json_reply(br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2099-01-01"}}}"#)
        } else if body.contains("notifications/") {
            Reply::Whole(202, vec![], Vec::new())
        } else if body.contains("initialize") {
            Reply::Whole(
                200,
                vec![("content-type".into(), "application/json".into()), ("mcp-session-id".into(), "legacy-1".into())],
                br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#.to_vec(),
            )
        } else if seen.header("mcp-session-id").is_some() {
            // LOG-5: logging without the capability, in the legacy session.
            json_reply(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#)
        } else {
            json_reply(LIST)
        }
    });
    let dir = scratch("replay");
    let (report, record) = (dir.join("report.jsonl"), dir.join("record.jsonl"));
    let proxy =
        Proxy::start(&upstream.url, &["--report", report.to_str().unwrap(), "--record", record.to_str().unwrap()]);
    // A header mismatch (HTTP-8), then the two odd answers.
    let mut wrong = modern_headers("tools/list");
    wrong[2].1 = "2025-11-25".into();
    post(proxy.addr, &wrong, &modern(1, "tools/list", ""));
    post(proxy.addr, &modern_headers("tools/call"), &modern(2, "tools/call", r#""name":"wrong-type""#));
    post(proxy.addr, &modern_headers("tools/call"), &modern(3, "tools/call", r#""name":"bad-version""#));
    // A legacy session: its initialize joins the session its answer opens.
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let legacy =
        [("content-type", "application/json".to_owned()), ("accept", "application/json, text/event-stream".to_owned())];
    let answer = post(proxy.addr, &legacy, init);
    assert_eq!(answer.header("mcp-session-id"), Some("legacy-1"));
    let mut in_session = legacy.to_vec();
    in_session.push(("mcp-session-id", "legacy-1".into()));
    post(proxy.addr, &in_session, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    post(proxy.addr, &in_session, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(0), "{stderr}");

    let live = json_lines(&report);
    let rules: Vec<&str> =
        live.iter().flat_map(|o| o["errors"].as_array().unwrap().iter().filter_map(|e| e["rule"].as_str())).collect();
    for rule in ["HTTP-8", "HTTP-6", "HTTP-9", "LOG-5"] {
        assert!(rules.contains(&rule), "{rule} in the live report: {live:?}");
    }
    let lines = json_lines(&record);
    let sessions: Vec<Option<&str>> = lines.iter().map(|l| l["session"].as_str()).collect();
    assert_eq!(&sessions[6..], [Some("legacy-1"); 5], "the initialize and its answer belong to the session: {lines:?}");
    let replay = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["validate", "--conversation", record.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(1), "errors: exit 1");
    let replayed: Vec<Value> =
        String::from_utf8(replay.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(findings_by_source(&replayed), findings_by_source(&live));
}

#[test]
fn enforce_answers_a_request_without_meta_with_32602_and_400_and_never_reaches_the_upstream() {
    let upstream = Upstream::start(|_| json_reply(LIST));
    let dir = scratch("enforce");
    let record = dir.join("record.jsonl");
    let proxy = Proxy::start(&upstream.url, &["--enforce", "--record", record.to_str().unwrap()]);
    let bare = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#;
    let headers =
        [("content-type", "application/json".to_owned()), ("accept", "application/json, text/event-stream".to_owned())];
    let refused = post(proxy.addr, &headers, bare);
    assert_eq!(refused.status, 400);
    assert_eq!(refused.header("content-type"), Some("application/json"));
    assert_eq!(refused.json()["error"]["code"], -32602);
    assert_eq!(refused.json()["id"], 5);
    // A header mismatch is refused too: -32020, 400.
    let mut wrong = modern_headers("tools/list");
    wrong[3].1 = "prompts/list".into();
    let mismatch = post(proxy.addr, &wrong, &modern(6, "tools/list", ""));
    assert_eq!((mismatch.status, mismatch.json()["error"]["code"].as_i64()), (400, Some(-32020)));
    assert_eq!(upstream.requests().len(), 0, "refused requests never reach the upstream");
    assert_eq!(upstream.connections.load(Ordering::SeqCst), 0);
    // A good request does (so the count above could have moved).
    let served = post(proxy.addr, &modern_headers("tools/list"), &modern(7, "tools/list", ""));
    assert_eq!((served.status, served.body.as_slice()), (200, LIST));
    assert_eq!(upstream.requests().len(), 1);
    let (_, stderr) = proxy.stop();
    assert!(stderr.contains("refused the client's request (--enforce, META-6)"), "{stderr}");
    let lines = json_lines(&record);
    assert_eq!(lines[1]["http"]["status"], 400, "the refusal is recorded as the answer: {lines:?}");
    assert_eq!(lines[1]["message"]["error"]["code"], -32602);
}

#[test]
fn the_upstream_down_is_502_and_a_stalled_one_504() {
    // A port with nothing behind it: bind, take the port, close.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let proxy = Proxy::start(&format!("http://{free}/mcp"), &[]);
    let answer = post(proxy.addr, &modern_headers("tools/list"), &modern(1, "tools/list", ""));
    assert_eq!(answer.status, 502);
    let stalled = Upstream::start(|_| Reply::Never);
    let proxy = Proxy::start(&stalled.url, &["--upstream-timeout", "0.3"]);
    let answer = post(proxy.addr, &modern_headers("tools/list"), &modern(1, "tools/list", ""));
    assert_eq!(answer.status, 504);
}

#[test]
fn a_body_above_max_message_bytes_is_413_and_not_forwarded_one_of_exactly_the_limit_is() {
    let upstream = Upstream::start(|_| json_reply(LIST));
    let body = modern(1, "tools/list", "");
    let limit = body.len().to_string();
    let proxy = Proxy::start(&upstream.url, &["--max-message-bytes", &limit]);
    assert_eq!(post(proxy.addr, &modern_headers("tools/list"), &body).status, 200);
    let longer = format!("{body} ");
    let answer = post(proxy.addr, &modern_headers("tools/list"), &longer);
    assert_eq!(answer.status, 413);
    assert_eq!(upstream.requests().len(), 1);
}

#[test]
fn an_answer_above_max_message_bytes_is_relayed_unchecked_and_reported_once() {
    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[],"pad":"{}"}}}}"#, "x".repeat(4000));
    let sent = big.clone();
    let event = format!("id: 1\ndata: {big}\n\n");
    let sent_event = event.clone();
    let upstream = Upstream::start(move |seen| {
        if String::from_utf8_lossy(&seen.body).contains("\"id\":2") {
            Reply::Stream(vec![], vec![Step::Chunk(sent_event.clone().into_bytes())])
        } else {
            json_reply(sent.as_bytes())
        }
    });
    let dir = scratch("big-answer");
    let report = dir.join("report.jsonl");
    let proxy = Proxy::start(&upstream.url, &["--max-message-bytes", "1000", "--report", report.to_str().unwrap()]);
    let answer = post(proxy.addr, &modern_headers("tools/list"), &modern(1, "tools/list", ""));
    assert_eq!(answer.body, big.as_bytes(), "relayed whole");
    let answer = post(proxy.addr, &modern_headers("tools/list"), &modern(2, "tools/list", ""));
    assert_eq!(answer.body, event.as_bytes(), "the long event, relayed whole");
    proxy.stop();
    let rules: Vec<String> = json_lines(&report)
        .iter()
        .flat_map(|o| {
            o["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["rule"].as_str().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(rules, ["POLICY-SIZE", "POLICY-SIZE"], "one for the body, one for the event");
}

#[test]
fn a_header_section_above_max_header_bytes_is_431_and_not_forwarded() {
    let upstream = Upstream::start(|_| json_reply(LIST));
    let proxy = Proxy::start(&upstream.url, &["--max-header-bytes", "8192"]);
    let mut headers = modern_headers("tools/list");
    headers.push(("x-pad", "y".repeat(9000)));
    let answer = post(proxy.addr, &headers, &modern(1, "tools/list", ""));
    assert_eq!(answer.status, 431);
    assert_eq!(upstream.requests().len(), 0);
}

#[test]
fn an_upstream_header_section_above_max_header_bytes_is_502() {
    let upstream = Upstream::start(|_| {
        Reply::Whole(
            200,
            vec![("content-type".into(), "application/json".into()), ("x-pad".into(), "y".repeat(9000))],
            LIST.to_vec(),
        )
    });
    let proxy = Proxy::start(&upstream.url, &["--max-header-bytes", "8192"]);
    assert_eq!(post(proxy.addr, &modern_headers("tools/list"), &modern(1, "tools/list", "")).status, 502);
}

#[test]
fn a_body_that_does_not_arrive_in_time_is_408() {
    let upstream = Upstream::start(|_| json_reply(LIST));
    let proxy = Proxy::start(&upstream.url, &["--body-timeout", "0.3"]);
    let mut stream = TcpStream::connect(proxy.addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{",
        proxy.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut reader = std::io::BufReader::new(stream);
    assert_eq!(answer_head(&mut reader).0, 408);
    assert_eq!(upstream.requests().len(), 0);
}

#[test]
fn a_connection_that_sends_no_headers_in_time_is_closed() {
    let upstream = Upstream::start(|_| json_reply(LIST));
    let proxy = Proxy::start(&upstream.url, &["--header-timeout", "0.3"]);
    let mut stream = TcpStream::connect(proxy.addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nhost: x").unwrap();
    let mut rest = Vec::new();
    // Closed by the proxy (hyper may say 408 first): the read ends well before PATIENCE.
    let _ = stream.read_to_end(&mut rest);
    let text = String::from_utf8_lossy(&rest);
    assert!(rest.is_empty() || text.starts_with("HTTP/1.1 408"), "{text}");
    assert_eq!(upstream.requests().len(), 0);
}

#[test]
fn at_max_connections_a_new_connection_waits_until_one_closes() {
    let upstream = Upstream::start(|_| json_reply(LIST));
    let proxy = Proxy::start(&upstream.url, &["--max-connections", "1"]);
    let holder = TcpStream::connect(proxy.addr).unwrap();
    // The holder's connection is served (one request answered on it), and stays open.
    let mut holder_reader = std::io::BufReader::new(holder.try_clone().unwrap());
    let body = modern(1, "tools/list", "");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\ncontent-length: {}\r\n\r\n{body}",
        proxy.addr,
        body.len()
    );
    (&holder).write_all(head.as_bytes()).unwrap();
    assert_eq!(answer_head(&mut holder_reader).0, 200);
    let (tx, rx) = mpsc::channel();
    let addr = proxy.addr;
    std::thread::spawn(move || {
        let answer = post(addr, &modern_headers("tools/list"), &modern(2, "tools/list", ""));
        let _ = tx.send(answer.status);
    });
    // The second client's request is not served while the first connection is open…
    assert!(rx.recv_timeout(std::time::Duration::from_millis(500)).is_err(), "served past the cap");
    assert_eq!(upstream.requests().len(), 1);
    drop(holder_reader);
    drop(holder);
    // … and is once it closes.
    assert_eq!(rx.recv_timeout(PATIENCE), Ok(200));
}

#[test]
fn host_and_origin_outside_the_allow_list_are_403_and_not_forwarded() {
    let upstream = Upstream::start(|_| json_reply(LIST));
    let proxy = Proxy::start(&upstream.url, &[]);
    let mut reader = {
        let mut stream = TcpStream::connect(proxy.addr).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream.write_all(b"POST /mcp HTTP/1.1\r\nhost: evil.example.com\r\ncontent-length: 2\r\n\r\n{}").unwrap();
        std::io::BufReader::new(stream)
    };
    assert_eq!(answer_head(&mut reader).0, 403);
    let mut headers = modern_headers("tools/list");
    headers.push(("origin", "http://evil.example.com".into()));
    assert_eq!(post(proxy.addr, &headers, &modern(1, "tools/list", "")).status, 403);
    assert_eq!(upstream.requests().len(), 0);
    let _ = reader.fill_buf();
}

#[test]
fn a_non_loopback_listen_address_needs_the_explicit_flag() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["proxy", "--listen", "0.0.0.0:0", "--upstream", "http://127.0.0.1:9/mcp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-non-loopback"));
}

#[test]
fn past_max_sessions_the_least_recently_used_session_is_forgotten() {
    let upstream = Upstream::start(|_| json_reply(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
    let proxy = Proxy::start(&upstream.url, &["--max-sessions", "2"]);
    for sid in ["a", "b", "c"] {
        let headers = [("content-type", "application/json".to_owned()), ("mcp-session-id", sid.to_owned())];
        post(proxy.addr, &headers, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    }
    let (_, stderr) = proxy.stop();
    assert!(stderr.contains("more than 2 sessions are open: session \"a\""), "{stderr}");
}

#[test]
fn a_checker_that_cannot_keep_up_holds_the_requests_back_until_it_does() {
    let dir = scratch("backpressure");
    // The record is a FIFO nobody reads yet: once its pipe buffer is full the checker blocks,
    // the messages handed to it fill --max-queued-bytes, and the relay waits for room.
    let fifo = dir.join("record.fifo");
    let mut record = fifo_reader(&fifo);
    let upstream = Upstream::start(|_| json_reply(LIST));
    let flags = ["--max-message-bytes", "65536", "--max-queued-bytes", "131072", "--record", fifo.to_str().unwrap()];
    let proxy = Proxy::start(&upstream.url, &flags);
    let (requests, answered) = (12usize, std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0)));
    let client = {
        let (addr, answered) = (proxy.addr, std::sync::Arc::clone(&answered));
        std::thread::spawn(move || {
            let pad = "a".repeat(60_000);
            for id in 0..requests {
                let answer = post(
                    addr,
                    &modern_headers("tools/list"),
                    &modern(id as u64, "tools/list", &format!(r#""pad":"{pad}""#)),
                );
                assert_eq!(answer.status, 200);
                answered.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (held_answered, held_seen) = (answered.load(Ordering::SeqCst), upstream.requests().len());
    // Now the record is read: everything goes through.
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        record.read_to_end(&mut all).unwrap();
        all
    });
    client.join().unwrap();
    assert!(
        held_answered < requests,
        "the proxy must hold requests back while the checker is stuck ({held_answered} answered)"
    );
    assert!(held_seen < requests, "and not forward them ({held_seen} forwarded)");
    assert_eq!(upstream.requests().len(), requests, "every request forwarded once the checker caught up");
    let (code, err) = proxy.stop();
    assert_eq!(code, Some(0), "{err}");
    let record = reader.join().unwrap();
    assert_eq!(record.iter().filter(|&&b| b == b'\n').count(), 2 * requests, "every message recorded");
}

/// Clients outside a session each number their own requests (the spec's ids are unique per
/// sender), so three clients may all have request 1 in flight at once. The upstream here holds
/// every request until all three clients' requests of a round have arrived, so the rounds
/// overlap every time. Each request pairs with the answer on its own POST: no finding. The
/// record replays clean too; without its exchange numbers (every POST in one id space, as the
/// proxy paired them before) the same traffic reads as ID-2 and MSG-11, 12 wrong errors.
#[test]
fn concurrent_clients_reusing_ids_1_2_3_pair_per_post_and_have_no_findings() {
    const CLIENTS: usize = 3;
    let round = std::sync::Arc::new(std::sync::Barrier::new(CLIENTS));
    let upstream = Upstream::start(move |seen| {
        round.wait();
        let request: Value = serde_json::from_slice(&seen.body).unwrap();
        json_reply(
            format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"complete","tools":[]}}}}"#, request["id"])
                .as_bytes(),
        )
    });
    let dir = scratch("exchanges");
    let (record, report) = (dir.join("record.jsonl"), dir.join("report.jsonl"));
    let proxy =
        Proxy::start(&upstream.url, &["--record", record.to_str().unwrap(), "--report", report.to_str().unwrap()]);
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let addr = proxy.addr;
            std::thread::spawn(move || {
                for id in 1..=3 {
                    let answer = post(addr, &modern_headers("tools/list"), &modern(id, "tools/list", ""));
                    assert_eq!((answer.status, answer.json()["id"].as_u64()), (200, Some(id)));
                }
            })
        })
        .collect();
    clients.into_iter().for_each(|c| c.join().unwrap());
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(json_lines(&report), Vec::<Value>::new(), "no finding on correct traffic\n{stderr}");
    let lines = json_lines(&record);
    assert_eq!(lines.len(), 2 * 3 * CLIENTS);
    let exchanges: std::collections::BTreeSet<u64> =
        lines.iter().map(|l| l["http"]["exchange"].as_u64().expect("every line has its exchange")).collect();
    assert_eq!(exchanges.len(), 3 * CLIENTS, "one exchange per POST");

    let replay = |path: &std::path::Path| {
        let out =
            Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(["validate", "--conversation"]).arg(path).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    assert_eq!(replay(&record), (Some(0), String::new()));
    let one_space = dir.join("one-id-space.jsonl");
    let stripped: String = lines
        .into_iter()
        .map(|mut l| {
            l["http"].as_object_mut().unwrap().remove("exchange");
            format!("{l}\n")
        })
        .collect();
    std::fs::write(&one_space, stripped).unwrap();
    let (code, out) = replay(&one_space);
    assert_eq!(code, Some(1), "{out}");
    let (reused, answered_twice) = (out.matches("(ID-2)").count(), out.matches("(MSG-11)").count());
    assert_eq!((reused, answered_twice), (6, 6), "{out}");
}
