//! Hostile input through the reference server's request path (`Server::process`), a stable
//! complement of the `reference_server` fuzz target: a few hundred deterministic inputs made
//! from the official example requests (the cache `schema/2026-07-28/examples`, filled by
//! `cargo xtask schema pull`). Per class the expected answer is written out: its error code
//! (or "any answer"), and its `id`, compared as text with the request's id as sent.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcpgen::json::Tape;
use mcpgen::JsonView;
use mcpgen_reference::server::{Frame, Incoming, Reply, Server};

/// A guard against a hang, not a measurement: a reply's stream that has not ended by then is
/// a failure.
const HANG_GUARD: Duration = Duration::from_secs(30);

/// What one input got back.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    /// Nothing to answer (a notification or a response).
    Accepted,
    /// One final message: its error code (`None` for a result) and its `id` as written (`None`
    /// when absent), with the HTTP status.
    Final { code: Option<i64>, id: Option<String>, status: u16, text: String },
}

/// The expected id of an answer.
#[derive(Debug, Clone, Copy)]
enum IdIs<'a> {
    /// Exactly this text.
    Echo(&'a str),
    /// `null` or no `id` member (the id could not be read).
    NullOrAbsent,
}

fn examples_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/2026-07-28/examples");
    assert!(
        dir.is_dir(),
        "official examples not found at {}; run `cargo xtask schema pull` (add --from DIR for a mirror)",
        dir.display()
    );
    dir
}

/// Every official example of a request definition (`*Request`, not results): (name, bytes).
fn example_requests() -> Vec<(String, Vec<u8>)> {
    let mut defs: Vec<PathBuf> = std::fs::read_dir(examples_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    defs.sort();
    let mut out = Vec::new();
    for def in defs {
        let name = def.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with("Request") {
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&def).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.into_iter().filter(|f| f.extension().is_some_and(|x| x == "json")) {
            let bytes = std::fs::read(&f).unwrap();
            let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            // Only complete requests: a method and an id (some examples are fragments).
            if v.get("method").is_some() && v.get("id").is_some() {
                out.push((format!("{name}/{}", f.file_name().unwrap().to_string_lossy()), bytes));
            }
        }
    }
    assert!(out.len() >= 10, "too few example requests: {}", out.len());
    out
}

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Whether `m` is a listen stream's acknowledgement.
fn lasting_ack(m: &serde_json::Value) -> bool {
    m["method"] == "notifications/subscriptions/acknowledged"
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// Sends `bytes` to a fresh server (self-checking on) and reads the reply to its end.
fn ask(rt: &tokio::runtime::Runtime, bytes: &[u8], incoming: &Incoming) -> Answer {
    let server = Arc::new(Server::new(true));
    let _guard = rt.enter();
    let (reply, echo) = server.process(bytes, incoming);
    let (message, status) = match reply {
        Reply::Accepted => return Answer::Accepted,
        Reply::Immediate(m, s) => (m, s),
        Reply::Stream { mut frames, lasting, .. } => {
            // A listen stream never ends: its acknowledgement, which carries the request's id
            // as `subscriptionId` (SUB-4), stands for the answer.
            let last = rt.block_on(async {
                tokio::time::timeout(HANG_GUARD, async {
                    while let Some(f) = frames.recv().await {
                        match f {
                            Frame::Final(m, s) => return Some((m, s)),
                            Frame::Message(m) if lasting => return Some((m, 200)),
                            Frame::Message(_) => {}
                        }
                    }
                    None
                })
                .await
            });
            last.expect("no final frame within the hang guard").expect("stream ended without a final frame")
        }
    };
    if lasting_ack(&message) {
        let text = echo.render(&message);
        let tape = Tape::parse_bytes(text.as_bytes()).unwrap_or_else(|e| panic!("ack is not JSON ({e}): {text}"));
        let sub = tape.root().get("params").and_then(|p| p.get("_meta")).and_then(|m| m.get(SUBSCRIPTION_ID));
        let id = sub.map(|v| JsonView::to_value(&v).to_json_string());
        return Answer::Final { code: None, id, status, text };
    }
    let text = echo.render(&message);
    let tape = Tape::parse_bytes(text.as_bytes()).unwrap_or_else(|e| panic!("answer is not JSON ({e}): {text}"));
    let root = tape.root();
    assert!(root.get("jsonrpc").is_some_and(|j| j.str_eq("2.0")), "{text}");
    assert!(root.get("result").is_some() != root.get("error").is_some(), "{text}");
    let code = root.get("error").map(|e| {
        let c = e.get("code").and_then(|c| c.as_f64()).unwrap_or_else(|| panic!("no code: {text}"));
        c as i64
    });
    let id = root.get("id").map(|v| JsonView::to_value(&v).to_json_string());
    Answer::Final { code, id, status, text }
}

/// Checks `answer` against the class's expectation (`codes` empty: any result or error);
/// returns what is wrong.
fn check(case: &str, answer: &Answer, codes: &[i64], id: IdIs) -> Result<(), String> {
    let Answer::Final { code, id: got, text, .. } = answer else { return Err(format!("{case}: no answer")) };
    let short = &text[..text.len().min(300)];
    if !codes.is_empty() && !code.is_some_and(|c| codes.contains(&c)) {
        return Err(format!("{case}: expected an error {codes:?}, got {short}"));
    }
    match id {
        IdIs::Echo(want) => {
            // Both as mcpgen writes them: number text kept, strings in one escaping.
            let want = JsonView::to_value(&Tape::parse(want).unwrap().root()).to_json_string();
            if got.as_deref() != Some(want.as_str()) {
                return Err(format!("{case}: id not echoed as sent: {short}"));
            }
        }
        IdIs::NullOrAbsent => {
            if got.as_deref().is_some_and(|g| g != "null") {
                return Err(format!("{case}: expected a null or absent id: {short}"));
            }
        }
    }
    Ok(())
}

/// `request` with its `id` member replaced by the JSON text `id` (kept as written).
fn with_id(request: &[u8], id: &str) -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_slice(request).unwrap();
    let mut m = v.as_object().unwrap().clone();
    m.remove("id");
    let rest = serde_json::Value::Object(m).to_string();
    format!("{{\"id\":{id},{}", &rest[1..]).into_bytes()
}

/// `request` with member `key` set to the JSON text `value`.
fn with_member(request: &[u8], key: &str, value: &str) -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_slice(request).unwrap();
    let mut m = v.as_object().unwrap().clone();
    m.remove(key);
    let rest = serde_json::Value::Object(m).to_string();
    format!("{{\"{key}\":{value},{}", &rest[1..]).into_bytes()
}

/// A modern `tools/list` whose `params` carries a value nested so that the whole message has
/// `depth` levels of containers.
fn nested(depth: usize) -> Vec<u8> {
    // The message object, `params` and `_meta`'s sibling `x` make 3 levels around the arrays.
    let arrays = depth - 2;
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}},"x":{}{}}}}}"#,
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
    .into_bytes()
}

#[test]
fn hostile_requests_get_one_answer_with_the_id_as_sent() {
    let rt = runtime();
    let stdio = Incoming::default();
    let requests = example_requests();
    let mut cases = 0usize;
    let mut failures = Vec::new();
    let mut expect = |case: &str, answer: &Answer, codes: &[i64], id: IdIs| {
        cases += 1;
        if let Err(e) = check(case, answer, codes, id) {
            failures.push(e);
        }
    };

    // Truncations: never JSON, so -32700 and no id (it could not be read).
    for (name, bytes) in &requests {
        let n = bytes.trim_ascii_end().len();
        for cut in [1, n / 4, n / 2, n - 1] {
            let a = ask(&rt, &bytes[..cut], &stdio);
            expect(&format!("{name} cut at {cut}"), &a, &[-32700], IdIs::NullOrAbsent);
        }
    }

    // Nesting: 128 levels (the parser's limit) is a message, answered with its id; 129 is not JSON
    // for this server.
    for (depth, parses) in [(127, true), (128, true), (129, false)] {
        let a = ask(&rt, &nested(depth), &stdio);
        if parses {
            expect(&format!("depth {depth}"), &a, &[], IdIs::Echo("7"));
        } else {
            expect(&format!("depth {depth}"), &a, &[-32700], IdIs::NullOrAbsent);
        }
    }

    // Huge and odd ids, echoed as sent, whatever the answer; except a number beyond f64
    // (`1e400`), which this server's parser refuses (no JSON consumer can hold it): -32700.
    let long = format!("\"{}\"", "i".repeat(100_000));
    let odd_ids = [
        "-0",
        "18446744073709551616",
        "18446744073709551615",
        "-9223372036854775809",
        "\"\"",
        "\"\\u0000\\ud83d\\ude00\"",
        long.as_str(),
    ];
    for (name, bytes) in &requests {
        for id in odd_ids {
            let a = ask(&rt, &with_id(bytes, id), &stdio);
            expect(&format!("{name} id {}", &id[..id.len().min(24)]), &a, &[], IdIs::Echo(id));
        }
        for id in ["1e400", "-1e400"] {
            let a = ask(&rt, &with_id(bytes, id), &stdio);
            expect(&format!("{name} id {id}"), &a, &[-32700], IdIs::NullOrAbsent);
        }
        // A number that is not an integer literal is no request id (AMB-12): -32600, no id.
        for id in ["1.5", "0.1e-400", "1E+2", "1.0"] {
            let a = ask(&rt, &with_id(bytes, id), &stdio);
            expect(&format!("{name} id {id}"), &a, &[-32600], IdIs::NullOrAbsent);
        }
    }

    // Ids of the wrong type: an invalid request (-32600), answered without an id.
    for (name, bytes) in requests.iter().take(6) {
        for id in ["null", "true", "{}", "[1]"] {
            let a = ask(&rt, &with_id(bytes, id), &stdio);
            expect(&format!("{name} id {id}"), &a, &[-32600], IdIs::NullOrAbsent);
        }
    }

    // Long strings: a 1 MB method name is an unknown method (-32601); a 1 MB string in params
    // still gets an answer with the id.
    let big = "m".repeat(1 << 20);
    for (name, bytes) in requests.iter().take(4) {
        let a = ask(&rt, &with_member(bytes, "method", &format!("\"{big}\"")), &stdio);
        let id = serde_json::from_slice::<serde_json::Value>(bytes).unwrap()["id"].to_string();
        expect(&format!("{name} long method"), &a, &[-32601], IdIs::Echo(&id));
    }

    // Invalid UTF-8 inside a string: not JSON text (RFC 8259 §8.1), -32700 without an id.
    for (name, bytes) in &requests {
        let at = bytes.iter().rposition(|&b| b == b'"').unwrap();
        for bad in [&[0xFFu8][..], &[0xC0, 0xAF], &[0xED, 0xA0, 0x80]] {
            let mut b = bytes[..at].to_vec();
            b.extend_from_slice(bad);
            b.extend_from_slice(&bytes[at..]);
            let a = ask(&rt, &b, &stdio);
            expect(&format!("{name} invalid UTF-8 {bad:02x?}"), &a, &[-32700], IdIs::NullOrAbsent);
        }
    }

    // Wrong member types: an invalid request (-32600) or, for `params`, invalid params
    // (-32602); the id is readable, so it is echoed.
    for (name, bytes) in &requests {
        let id = serde_json::from_slice::<serde_json::Value>(bytes).unwrap()["id"].to_string();
        for (key, value, codes) in [
            ("jsonrpc", "2", &[-32600][..]),
            ("jsonrpc", "\"1.0\"", &[-32600]),
            ("method", "5", &[-32600]),
            ("method", "null", &[-32600]),
            ("params", "[]", &[-32600, -32602]),
            ("params", "\"x\"", &[-32600, -32602]),
        ] {
            let a = ask(&rt, &with_member(bytes, key, value), &stdio);
            expect(&format!("{name} {key}: {value}"), &a, codes, IdIs::Echo(&id));
        }
    }

    // Duplicate keys (RFC 8259 §4: names SHOULD be unique, and readers differ on which one
    // counts): a message that reads two ways is refused, -32600. Three `id` members: which id
    // to answer is unknown, so none is echoed; two `method` members (even the same one twice,
    // or a repeated name deep inside `params`): refused with the id.
    for (name, bytes) in requests.iter().take(6) {
        let id = serde_json::from_slice::<serde_json::Value>(bytes).unwrap()["id"].to_string();
        let rest = std::str::from_utf8(&bytes[1..]).unwrap();
        let a = ask(&rt, format!(r#"{{"id":"dup-a","id":"dup-b",{rest}"#).as_bytes(), &stdio);
        expect(&format!("{name} duplicate id"), &a, &[-32600], IdIs::NullOrAbsent);
        let a = ask(&rt, format!(r#"{{"method":"ping",{rest}"#).as_bytes(), &stdio);
        expect(&format!("{name} duplicate method"), &a, &[-32600], IdIs::Echo(&id));
        let deep = with_member(bytes, "params", r#"{"_meta":{"a":1,"a":1}}"#);
        let a = ask(&rt, &deep, &stdio);
        expect(&format!("{name} duplicate inside params"), &a, &[-32600], IdIs::Echo(&id));
    }

    // Batches: JSON-RPC batches are not MCP messages since 2025-06-18; one error, no id.
    for (name, bytes) in requests.iter().take(6) {
        let one = String::from_utf8(bytes.clone()).unwrap();
        for batch in [format!("[{one}]"), format!("[{one},{one}]"), "[]".to_owned()] {
            let a = ask(&rt, batch.as_bytes(), &stdio);
            expect(&format!("{name} batch of {}", batch.len()), &a, &[-32600], IdIs::NullOrAbsent);
        }
    }

    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
    assert!(cases >= 300, "only {cases} cases");
}

/// One message to `server` on the legacy session `sid`: the error's code and the id answered.
fn ask_in_session(server: &Arc<Server>, sid: &str, bytes: &[u8]) -> (i64, serde_json::Value) {
    let incoming = Incoming { session: Some(sid.to_owned()), http_headers: None };
    let (reply, _) = server.process(bytes, &incoming);
    let Reply::Immediate(m, _) = reply else { panic!("not an immediate error for {}", String::from_utf8_lossy(bytes)) };
    (m["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {m}")), m["id"].clone())
}

#[test]
fn a_legacy_sessions_malformed_requests_get_the_json_rpc_code_of_what_is_wrong() {
    let rt = runtime();
    let _guard = rt.enter();
    let server = Arc::new(Server::new(true));
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (reply, _) = server.process(init, &Incoming::default());
    let Reply::Stream { session: Some(sid), .. } = reply else { panic!("no session opened") };
    let cases: [(&[u8], i64, serde_json::Value); 5] = [
        // Only a parameter is wrong (`cursor` is a string): invalid params.
        (br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":5}}"#, -32602, 2.into()),
        // `params` that is no object is a wrong parameter (JSON-RPC allows -32600 too).
        (br#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[]}"#, -32602, 4.into()),
        // The envelope is wrong: invalid request, with the id when it is one.
        (br#"{"jsonrpc":"1.0","id":3,"method":"tools/list"}"#, -32600, 3.into()),
        // An id that is no JSON-RPC id is not echoed.
        (br#"{"jsonrpc":"2.0","id":true,"method":"tools/list"}"#, -32600, serde_json::Value::Null),
        (br#"{"jsonrpc":"2.0","id":5,"method":"no/such"}"#, -32601, 5.into()),
    ];
    for (bytes, code, id) in cases {
        assert_eq!(ask_in_session(&server, &sid, bytes), (code, id), "{}", String::from_utf8_lossy(bytes));
    }
    // A batch is answered (one error, no id), never left waiting.
    let batch = br#"[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]"#;
    assert_eq!(ask_in_session(&server, &sid, batch), (-32600, serde_json::Value::Null));
}
