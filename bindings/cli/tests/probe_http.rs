//! `mcpgen probe URL` on Streamable HTTP servers, all on 127.0.0.1: a small server with seeded
//! HTTP faults (tests/probe/faulty_http_server.py) probes clean without a fault and with each
//! fault shows exactly its rule; the reference server probes clean in both eras; the record
//! replays to the same findings; every limit of the HTTP peer holds (against the scripted
//! upstream of `http_support`).

mod http_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_support::{scratch, Reply, Step, Upstream};
use serde_json::{json, Value};

/// The faulty HTTP server, started with `fault`; its stderr goes to `log`.
struct Faulty {
    child: Child,
    url: String,
    log: std::path::PathBuf,
}

impl Faulty {
    fn start(test: &str, fault: Option<&str>) -> Faulty {
        let dir = scratch(test);
        let log = dir.join("server.log");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/faulty_http_server.py");
        let mut cmd = Command::new("python3");
        cmd.arg(script).stdout(Stdio::piped()).stderr(std::fs::File::create(&log).unwrap());
        if let Some(f) = fault {
            cmd.args(["--fault", f]);
        }
        let mut child = cmd.spawn().expect("start python3 faulty_http_server.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening on ").expect("the server's URL").to_owned();
        Faulty { child, url, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Faulty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn probe(url: &str, args: &[&str]) -> (i32, String, String) {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("probe")
        .args(args)
        .args(["--timeout-ms", "5000", url])
        .output()
        .expect("run mcpgen probe");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn lines(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).collect()
}

/// (check, rule, level) of each finding of a JSON Lines report.
fn findings(stdout: &str) -> Vec<(String, String, String)> {
    lines(stdout)
        .into_iter()
        .filter(|v| v.get("check").is_some())
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or("").to_owned();
            (s("check"), s("rule"), s("level"))
        })
        .collect()
}

fn summary(stdout: &str) -> Value {
    lines(stdout).into_iter().find(|v| v.get("summary").is_some()).expect("a summary")
}

#[test]
fn the_right_http_server_probes_clean_in_both_eras_and_each_session_is_deleted() {
    let server = Faulty::start("clean", None);
    let (code, out, err) = probe(&server.url, &["--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(findings(&out).is_empty(), "{out}");
    assert_eq!(summary(&out)["eras"], json!(["modern", "legacy 2025-11-25", "legacy 2025-06-18"]), "{out}");
    // What a client of each era saw: a line each.
    let eras: Vec<(String, String)> = lines(&out)
        .iter()
        .filter(|v| v.get("era").is_some())
        .map(|v| (v["era"].as_str().unwrap().to_owned(), v["revision"].as_str().unwrap().to_owned()))
        .collect();
    let want = [("modern", "2026-07-28"), ("legacy", "2025-11-25"), ("legacy", "2025-06-18")];
    assert_eq!(eras, want.map(|(a, b)| (a.to_owned(), b.to_owned())), "{out}");
    // The header negatives ran: the checks skipped are the argument case of `lookup` whose
    // header-bound `region` has the wrong type (no Mcp-Param-* form, so it is not sent), and
    // the requestState tamper (the server has no multi round-trip tool).
    let skipped: Vec<Value> = lines(&out).into_iter().filter(|v| v.get("reason").is_some()).collect();
    // `tool/lookup` ran its other cases: the summary counts only the tamper check as skipped.
    assert!(!skipped.is_empty(), "{out}");
    assert_eq!(summary(&out)["skipped"], 1, "{out}");
    for k in &skipped {
        if k["skipped"] == "mrtr/request-state-tamper" {
            continue;
        }
        assert_eq!(k["skipped"], "tool/lookup", "{out}");
        assert!(k["reason"].as_str().unwrap().starts_with("a case not sent: "), "{out}");
    }
    assert!(err.contains("mcpgen probe: header/method-mismatch\n"), "{err}");
    assert!(err.contains("mcpgen probe: header/param-missing/lookup\n"), "{err}");
    let log = server.log();
    assert!(!log.contains("wipe was called"), "{log}");
    // Each legacy session was ended with a DELETE.
    assert_eq!(log.matches("faulty_http_server: DELETE ").count(), 2, "{log}");
}

#[test]
fn each_seeded_http_fault_is_found_with_its_rule_and_nothing_else() {
    for (fault, check, rule, count) in [
        ("content-type-text", "inventory/tools/list", "HTTP-6", 1),
        // Every header negative's -32020 comes with HTTP 200.
        ("mismatch-200", "header/", "ERR-8", 6),
        ("ignore-method", "header/method-mismatch", "HTTP-11", 1),
        ("ignore-param", "header/param-missing/lookup", "XHDR-9", 1),
        ("version-500", "negative/unsupported-version", "HTTP-9", 1),
        // A foreign Origin served on 127.0.0.1: once per era (modern, two legacy sessions).
        ("origin-ignored", "header/origin", "HTTP-2", 3),
    ] {
        let server = Faulty::start(fault, Some(fault));
        let (code, out, err) = probe(&server.url, &["--format", "json", "--quiet"]);
        assert_eq!(code, 1, "{fault}: {out}{err}");
        assert!(err.is_empty(), "--quiet: {err}");
        let got = findings(&out);
        assert_eq!(got.len(), count, "{fault}: {got:?}");
        assert!(got.iter().all(|(c, r, l)| c.starts_with(check) && r == rule && l == "error"), "{fault}: {got:?}");
    }
}

/// The rules of the findings `validate --conversation` gives on the server's lines of `record`.
fn replayed_server_rules(record: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(record).unwrap();
    let from: Vec<String> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["from"].as_str().unwrap().to_owned()).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["validate", "--format", "json", "--conversation"])
        .arg(record)
        .output()
        .unwrap();
    let mut rules = Vec::new();
    for v in lines(&String::from_utf8_lossy(&out.stdout)) {
        let Some(source) = v["source"].as_str() else { continue };
        let n: usize = source.rsplit(':').next().unwrap().parse().unwrap();
        if from[n - 1] != "server" {
            continue;
        }
        for e in v["errors"].as_array().unwrap() {
            rules.push(e["rule"].as_str().unwrap_or("").to_owned());
        }
    }
    rules.sort();
    rules
}

#[test]
fn the_record_replays_to_the_same_findings_on_the_servers_messages() {
    for fault in [None, Some("mismatch-200"), Some("content-type-text"), Some("version-500")] {
        let name = format!("record-{}", fault.unwrap_or("clean"));
        let server = Faulty::start(&name, fault);
        let record = scratch(&format!("{name}-out")).join("probe.jsonl");
        let (_, out, _) = probe(&server.url, &["--format", "json", "--quiet", "--record", record.to_str().unwrap()]);
        let mut probed: Vec<String> = findings(&out).into_iter().map(|(_, r, _)| r).collect();
        probed.sort();
        // The envelope negatives without a (string) `method` are no request to the checker, so
        // their -32600 answers are unsolicited (ID-3) on replay; the probe itself drops that
        // ID-3 (`negatives::UNPAIRED`). Everything else must agree.
        let replayed: Vec<String> = replayed_server_rules(&record).into_iter().filter(|r| r != "ID-3").collect();
        assert_eq!(replayed, probed, "{fault:?}");
        // The record holds the legacy sessions as sessions of their own, and the HTTP facts.
        let text = std::fs::read_to_string(&record).unwrap();
        assert!(text.contains(r#""session":"legacy/2025-06-18""#), "{fault:?}");
        assert!(text.contains(r#""http":{"status":"#), "{fault:?}");
    }
}

/// The reference server on 127.0.0.1, in this process.
fn reference_server() -> (tokio::runtime::Runtime, String) {
    use mcpgen_reference::server::{http, Server};
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let url = runtime.block_on(async {
        let (listener, addr) = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
        tokio::spawn(http::serve(Arc::new(Server::new(true)), listener));
        format!("http://{addr}/mcp")
    });
    (runtime, url)
}

#[test]
fn the_reference_server_probes_clean_in_both_eras_over_http() {
    let (_runtime, url) = reference_server();
    // `--get-prompts all`: its embedded-resource prompt takes a `resourceUri`, which the default skips.
    let (code, out, err) = probe(&url, &["--format", "json", "--quiet", "--get-prompts", "all"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(findings(&out).is_empty(), "{out}");
    let s = summary(&out);
    let eras = s["eras"].as_array().unwrap();
    assert_eq!(eras[0], "modern", "{out}");
    assert!(eras.iter().filter(|e| e.as_str().unwrap().starts_with("legacy ")).count() >= 2, "{out}");
    // Only the requestState tamper: no tool that answers `input_required` is called by default.
    assert_eq!(s["skipped"], 1, "{out}");
}

/// A scripted server whose `server/discover` answer is `reply`; everything else -32601.
fn scripted(reply: impl Fn() -> Reply + Send + Sync + 'static) -> Upstream {
    Upstream::start(move |seen| {
        let body: Value = serde_json::from_slice(&seen.body).unwrap_or(Value::Null);
        if body["method"] == "server/discover" {
            return reply();
        }
        let error = json!({"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32601, "message": "no"}});
        Reply::Whole(200, vec![("content-type".into(), "application/json".into())], error.to_string().into_bytes())
    })
}

/// The finding at `discover`: MSG-11 (no answer: its message) or, past one of the probe's own
/// limits, a POLICY-SIZE warning (its message between `not judged: ` and ` — `), as
/// `RULE: message`.
fn discover_failure(out: &str) -> String {
    let v = lines(out)
        .into_iter()
        .find(|v| v["check"] == "discover" && (v["rule"] == "MSG-11" || v["rule"] == "POLICY-SIZE"));
    let v = v.unwrap_or_else(|| panic!("no MSG-11 or POLICY-SIZE at discover: {out}"));
    let message = v["message"].as_str().unwrap();
    if v["rule"] == "POLICY-SIZE" {
        assert_eq!(v["level"], "warning", "the probe's limit is no verdict on the server: {v}");
        let core = message.strip_prefix("not judged: ").and_then(|m| m.split(" — ").next()).unwrap();
        return format!("POLICY-SIZE: {core}");
    }
    match v["level"].as_str() {
        Some("error") => format!("MSG-11: {message}"),
        level => format!("MSG-11 {}: {message}", level.unwrap_or("?")),
    }
}

#[test]
fn a_server_that_does_not_answer_is_given_up_on_after_the_timeout() {
    let server = Upstream::start(|_| Reply::Never);
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "--format", "json", "-q", "--modern-only", "--timeout-ms", "300", &server.url])
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    // The probe stopped waiting: a warning, not an error (the spec sets no time).
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        discover_failure(&String::from_utf8_lossy(&out.stdout)),
        "MSG-11 warning: no answer within 300 ms (this transport stops reading an answer at its wait; a warning: the spec sets no time, raise --timeout for a slow server)"
    );
}

fn limited(server: &Upstream, flag: &str, value: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "--format", "json", "-q", "--modern-only", flag, value, &server.url])
        .output()
        .unwrap();
    let failure = discover_failure(&String::from_utf8_lossy(&out.stdout));
    // An error fails the run; the probe's own limit is a warning only.
    let code = if failure.starts_with("MSG-11") { 1 } else { 0 };
    assert_eq!(out.status.code(), Some(code), "{failure}: {}", String::from_utf8_lossy(&out.stderr));
    failure
}

const JSON: (&str, &str) = ("content-type", "application/json");

#[test]
fn a_body_above_the_cap_is_not_read() {
    let server = scripted(|| Reply::Whole(200, vec![(JSON.0.into(), JSON.1.into())], vec![b' '; 5000]));
    assert_eq!(limited(&server, "--max-body-bytes", "1000"), "POLICY-SIZE: a message above the 1000-byte limit");
    // Below the cap the same body is read (and holds no message).
    assert_eq!(limited(&server, "--max-body-bytes", "6000"), "MSG-11: no answer: HTTP 200 with no message in the body");
}

#[test]
fn an_event_stream_is_read_up_to_the_event_and_message_caps() {
    let priming = || Reply::Stream(vec![], vec![Step::Chunk(b"data:\n\n".repeat(50))]);
    assert_eq!(limited(&scripted(priming), "--max-events", "10"), "POLICY-SIZE: more than 10 events in one answer");
    let note = r#"data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
    let flood = move || Reply::Stream(vec![], vec![Step::Chunk(format!("{note}\n\n").repeat(50).into_bytes())]);
    assert_eq!(limited(&scripted(flood), "--max-messages", "10"), "POLICY-SIZE: more than 10 messages in one answer");
    let long = || Reply::Stream(vec![], vec![Step::Chunk(format!("data: {}\n\n", "x".repeat(5000)).into_bytes())]);
    assert_eq!(
        limited(&scripted(long), "--max-body-bytes", "1000"),
        "POLICY-SIZE: a message above the 1000-byte limit"
    );
}

#[test]
fn notifications_before_the_response_on_a_stream_are_kept_and_judged() {
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}});
    let result = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "supportedVersions": ["2026-07-28"],
        "capabilities": {}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
        "ttlMs": 0, "cacheScope": "public"}});
    let stream = format!("id: 0\nretry: 10\n\ndata: {note}\n\ndata: {result}\n\n");
    let server = scripted(move || Reply::Stream(vec![], vec![Step::Chunk(stream.clone().into_bytes())]));
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "--format", "json", "-q", "--modern-only", &server.url])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    // The log notification is judged (no request asked for logs: LOG-1) and shown with the response.
    let f = lines(&out).into_iter().find(|v| v["check"] == "discover" && v["rule"] == "LOG-1");
    let f = f.unwrap_or_else(|| panic!("{out}"));
    assert_eq!(f["received"].as_array().unwrap().len(), 2, "{f}");
    assert!(summary(&out)["eras"] == json!(["modern"]), "{out}");
}

#[test]
fn the_budget_stops_the_run_with_a_warning() {
    let server = Upstream::start(|seen| {
        std::thread::sleep(Duration::from_millis(200));
        let body: Value = serde_json::from_slice(&seen.body).unwrap_or(Value::Null);
        let error = json!({"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32601, "message": "no"}});
        Reply::Whole(200, vec![(JSON.0.into(), JSON.1.into())], error.to_string().into_bytes())
    });
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "--format", "json", "--budget-ms", "100", &server.url])
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    let text = String::from_utf8_lossy(&out.stdout);
    let got = findings(&text);
    assert!(got.iter().any(|(_, r, l)| r == "PROBE-3" && l == "warning"), "{got:?}");
    assert_eq!(summary(&text)["out_of_time"], true, "{text}");
    // Discover (refused, after 200 ms) was sent; the fallback's initialize no more.
    assert_eq!(server.requests().len(), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mcpgen probe: discover\n"), "{err}");
}

#[test]
fn usage_errors_of_the_url_form() {
    for (args, want) in [
        (vec!["https://127.0.0.1:1/mcp"], "give an http:// URL"),
        (vec!["not a url"], "not a URL"),
        (vec!["--max-events", "0", "http://127.0.0.1:1/mcp"], "give at least 1"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mcpgen")).arg("probe").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(want),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "http://127.0.0.1:1/mcp", "--", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn over_stdio_the_header_negatives_are_reported_skipped() {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/faulty_server.py");
    let junit = scratch("stdio-skipped").join("probe.xml");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "-q", "--junit", junit.to_str().unwrap(), "--", "python3", server])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("header/method-mismatch: skipped: the transport has no headers (stdio)\n"), "{text}");
    assert!(text.contains("header/origin: skipped: the transport has no headers (stdio)\n"), "{text}");
    // The five header checks, the origin check and the requestState tamper (no such tool).
    assert!(text.lines().last().unwrap().contains(" checks (0 failed, 7 skipped), "), "{text}");
    // JUnit shows them as skipped cases.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains(" skipped=\"7\">"), "{xml}");
    assert!(
        xml.contains("name=\"header/name-mismatch\"><skipped message=\"the transport has no headers (stdio)\"/>"),
        "{xml}"
    );
}

/// A refusal of the first exchange (PROBE-5): exit 2, what to try, nothing judged.
fn refused_probe(url: &str, extra: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "-q", "--timeout-ms", "5000"])
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_403_at_the_first_exchange_is_exit_2_with_the_host_to_try() {
    let server = Upstream::start(|_| {
        Reply::Whole(403, vec![("content-type".into(), "text/plain".into())], b"Invalid Host header".to_vec())
    });
    let authority = server.url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let junit = scratch("refused-403").join("probe.xml");
    let (code, out, err) = refused_probe(&server.url, &["--junit", junit.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "no findings, no summary: {out}");
    assert!(
        err.contains(&format!(
            "cannot probe {}: the server refused the request: HTTP 403 Forbidden (Invalid Host header)",
            server.url
        )),
        "{err}"
    );
    assert!(err.contains(&format!("The probe sent `Host: {authority}` and no Origin")), "{err}");
    // Nothing after the refused discover: no fallback to `initialize`.
    assert_eq!(server.requests().len(), 1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains(r#"errors="1""#) && xml.contains(r#"<error type="PROBE-5""#), "{xml}");
    // The same as JSON on stdout.
    let (code, out, _) = refused_probe(&server.url, &["--format", "json"]);
    assert_eq!(code, 2);
    let line: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!((line["status"].as_u64(), line["check"].as_str()), (Some(403), Some("discover")), "{line}");
}

#[test]
fn a_401_says_to_give_a_header_and_the_header_is_sent() {
    let server = Upstream::start(|seen| {
        let body: Value = serde_json::from_slice(&seen.body).unwrap_or(Value::Null);
        if seen.header("authorization") != Some("Bearer t0ken") {
            return Reply::Whole(401, vec![("www-authenticate".into(), "Bearer".into())], Vec::new());
        }
        let error = json!({"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32601, "message": "no"}});
        Reply::Whole(200, vec![(JSON.0.into(), JSON.1.into())], error.to_string().into_bytes())
    });
    let (code, _, err) = refused_probe(&server.url, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("HTTP 401 Unauthorized (www-authenticate: Bearer)"), "{err}");
    assert!(err.contains("--header 'Authorization: Bearer TOKEN'"), "{err}");
    let record = scratch("refused-401").join("record.jsonl");
    let (code, out, err) = refused_probe(
        &server.url,
        &["--modern-only", "--header", "Authorization: Bearer t0ken", "--record", record.to_str().unwrap()],
    );
    assert_ne!(code, 2, "with the header the server is probed: {out}{err}");
    assert!(server.requests().iter().skip(1).all(|r| r.header("authorization") == Some("Bearer t0ken")));
    // The token is never written down.
    assert!(!std::fs::read_to_string(&record).unwrap().contains("t0ken"));
    assert!(!out.contains("t0ken"));
}

#[test]
fn nothing_listening_is_exit_2() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (code, out, err) = refused_probe(&url, &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(&format!("cannot probe {url}: cannot reach the server: 127.0.0.1:{port}: ")), "{err}");
    assert!(err.contains("Is the server running"), "{err}");
}

#[test]
fn a_refusal_later_in_the_run_is_a_warning_not_msg_11() {
    let server = Upstream::start(|seen| {
        let body: Value = serde_json::from_slice(&seen.body).unwrap_or(Value::Null);
        let answer = match body["method"].as_str() {
            Some("server/discover") => json!({"jsonrpc": "2.0", "id": body["id"], "result": {"resultType": "complete",
                "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
                "ttlMs": 0, "cacheScope": "public"}}),
            Some("tools/list") => return Reply::Whole(403, vec![], b"forbidden".to_vec()),
            _ => json!({"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32601, "message": "no"}}),
        };
        Reply::Whole(200, vec![(JSON.0.into(), JSON.1.into())], answer.to_string().into_bytes())
    });
    let (code, out, err) = refused_probe(&server.url, &["--format", "json", "--modern-only"]);
    assert_ne!(code, 2, "{out}{err}");
    let got = findings(&out);
    assert!(got.contains(&("inventory/tools/list".into(), "PROBE-5".into(), "warning".into())), "{got:?}");
    assert!(!got.iter().any(|(c, r, _)| c == "inventory/tools/list" && r == "MSG-11"), "{got:?}");
}
