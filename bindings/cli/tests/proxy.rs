//! `mcpgen proxy` against a tiny stdio server (`tests/fixtures/stdio_server.py`, run with
//! `python3`): relay exactness both ways, order, the report, record → replay, `--enforce`, exit
//! status and signals, and the server's stderr passing through.

mod support;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Output, Stdio};

use serde_json::Value;
use support::{json_lines, mcpgen_command, scratch, spawn_proxy};

const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stdio_server.py");

/// `mcpgen proxy FLAGS -- python3 stdio_server.py LOG`, with piped stdio.
fn start(dir: &Path, flags: &[&str]) -> Child {
    let log = dir.join("server.log");
    spawn_proxy(flags, &[OsStr::new("python3"), OsStr::new(SERVER), log.as_os_str()])
}

/// Sends everything, closes stdin, and collects the proxy's output.
fn run(dir: &Path, flags: &[&str], input: &[u8]) -> Output {
    let mut child = start(dir, flags);
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn server_log(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("server.log")).unwrap_or_default()
}

/// A `test/say` request making the server write `lines` verbatim.
fn say(id: u32, lines: &[&str]) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "test/say", "params": {"lines": lines}}).to_string()
}

#[test]
fn relays_both_directions_byte_for_byte_and_in_order() {
    let dir = scratch("proxy", "exact");
    let server_lines = [
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"é \u00e9 1.50"}}"#,
        "  {\"jsonrpc\" : \"2.0\", \"id\" : 1, \"result\" : {}}  ",
        "not json at all",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\r",
    ];
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}\n");
    input.extend_from_slice(b"  { \"jsonrpc\":\"2.0\", \"id\":2.0, \"method\":\"ping\" }\r\n");
    input.extend_from_slice(b"{broken\n");
    input.extend_from_slice(b"\n");
    input.extend_from_slice(format!("{}\n", say(3, &server_lines)).as_bytes());
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");
    let out = run(&dir, &[], &input);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(server_log(&dir), input, "the server must receive exactly what the client sent");
    let mut want = Vec::new();
    want.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}\n");
    want.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2.0,\"result\":{}}\n");
    for l in server_lines {
        want.extend_from_slice(l.as_bytes());
        want.push(b'\n');
    }
    want.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n");
    assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&want));
    // Without --report, findings go to stderr: the invalid JSON of both sides is reported.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(client message)") && err.contains("MSG-8"), "{err}");
    assert!(err.contains("(server message)"), "{err}");
}

/// One request at a time, waiting for each answer: the proxy flushes every message.
fn round_trip(stdin: &mut ChildStdin, stdout: &mut BufReader<ChildStdout>, request: &str) -> String {
    stdin.write_all(request.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    line
}

#[test]
fn interactive_round_trips_are_not_held_in_buffers() {
    let dir = scratch("proxy", "interactive");
    let mut child = start(&dir, &[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for id in 0..200 {
        let answer = round_trip(&mut stdin, &mut stdout, &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        assert_eq!(answer, format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n"));
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn many_messages_are_neither_lost_nor_reordered() {
    let dir = scratch("proxy", "many");
    let n = 5000;
    let input: String = (0..n).map(|i| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n")).collect();
    let out = run(&dir, &["--report", dir.join("report.jsonl").to_str().unwrap()], input.as_bytes());
    assert!(out.status.success());
    let want: String = (0..n).map(|i| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{}}}}\n")).collect();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    assert_eq!(server_log(&dir), input.as_bytes());
}

#[test]
fn report_holds_the_validate_objects_plus_from() {
    let dir = scratch("proxy", "report");
    let report = dir.join("report.jsonl");
    let input = format!("{}\n{{broken\n", say(1, &["also {broken"]));
    let out = run(&dir, &["--report", report.to_str().unwrap()], input.as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = json_lines(&report);
    let broken: Vec<&Value> = lines.iter().filter(|o| o["errors"][0]["rule"] == "MSG-8").collect();
    assert_eq!(broken.len(), 2, "{lines:?}");
    let froms: Vec<&str> = broken.iter().map(|o| o["from"].as_str().unwrap()).collect();
    assert!(froms.contains(&"client") && froms.contains(&"server"), "{froms:?}");
    for o in &lines {
        // (Key order aside: serde_json may or may not preserve it, by workspace features.)
        let mut keys: Vec<&str> = o.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["errors", "from", "source", "valid"], "{o}");
        assert!(o["source"].as_str().unwrap().starts_with("proxy:"), "{o}");
        assert_eq!(o["valid"], false);
        for e in o["errors"].as_array().unwrap() {
            for k in ["pointer", "schemaPath", "keyword", "rule", "level", "message"] {
                assert!(e.get(k).is_some(), "{k} missing in {e}");
            }
        }
    }
    // Findings went to the file, not to stderr.
    assert!(!String::from_utf8_lossy(&out.stderr).contains("MSG-8"));
}

#[test]
fn record_replays_with_the_same_findings() {
    let dir = scratch("proxy", "record");
    let (report, record) = (dir.join("report.jsonl"), dir.join("record.jsonl"));
    let server_says = [
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}",
        " {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}",
        "{nope",
    ];
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"a":1,"a":2}}"#.to_owned(),
        "{oops".to_owned(),
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.to_owned() + "\r",
        say(4, &server_says),
    ]
    .join("\n")
        + "\n";
    let out =
        run(&dir, &["--report", report.to_str().unwrap(), "--record", record.to_str().unwrap()], input.as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Every message is recorded, in order; the exact text survives in `message` or `raw`.
    let recorded = json_lines(&record);
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.lines().next().unwrap().ends_with(r#""message":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#), "{text}");
    assert!(text.contains(r#""params":{"a":1,"a":2}"#), "duplicate keys kept verbatim: {text}");
    let raws: Vec<&str> = recorded.iter().filter_map(|l| l.get("raw").and_then(Value::as_str)).collect();
    assert_eq!(raws, ["{oops", " {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}", "{nope"],);
    // (A `\r` before the `\n` belongs to the line end: the ping with id 3 is a `message`.)
    assert_eq!(recorded.len(), 5 + 3 + server_says.len(), "{text}");
    // Replay: the same findings on the same lines as the live report.
    let replay =
        mcpgen_command().args(["validate", "--format", "json", "--conversation"]).arg(&record).output().unwrap();
    assert_eq!(replay.status.code(), Some(1), "{}", String::from_utf8_lossy(&replay.stderr));
    let replayed: Vec<Value> = String::from_utf8(replay.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|o: &Value| !o["errors"].as_array().unwrap().is_empty())
        .collect();
    let live = json_lines(&report);
    assert_eq!(live.len(), replayed.len(), "live {live:?}\nreplayed {replayed:?}");
    let prefix = format!("{}:", record.display());
    for (l, r) in live.iter().zip(&replayed) {
        assert_eq!(l["source"], r["source"]);
        assert!(l["source"].as_str().unwrap().starts_with(&prefix), "{l}");
        assert_eq!(l["errors"], r["errors"]);
        assert_eq!(l["valid"], r["valid"]);
    }
}

#[test]
fn enforce_answers_refused_requests_instead_of_forwarding() {
    let dir = scratch("proxy", "enforce");
    let refused = r#"{"jsonrpc":"2.0","id":7,"method":"tools/calll","params":{}}"#;
    let served = r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#;
    let notification = r#"{"jsonrpc":"2.0","method":"notifications/bogus"}"#;
    let input = format!("{refused}\n{notification}\n{served}\n");
    let out = run(&dir, &["--enforce"], input.as_bytes());
    assert!(out.status.success());
    let Err(refusal) = mcpgen::protocol::check_request(refused.as_bytes(), &mcpgen::protocol::ServerConfig::default())
    else {
        panic!("check_request must refuse the test request");
    };
    let want = refusal.to_response_json();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], want, "the exact error response");
    // `ping` may itself be refused by check_request (era rules): then it is answered too.
    let ping_refusal = mcpgen::protocol::check_request(served.as_bytes(), &mcpgen::protocol::ServerConfig::default())
        .err()
        .map(|e| e.to_response_json());
    let forwarded_ping = ping_refusal.is_none();
    let want_second = ping_refusal.unwrap_or_else(|| "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}".to_owned());
    assert_eq!(lines[1..], [want_second.as_str()]);
    // Notifications are never answered: forwarded whatever the check says.
    let log = String::from_utf8(server_log(&dir)).unwrap();
    let mut want_log = format!("{notification}\n");
    if forwarded_ping {
        want_log.push_str(&format!("{served}\n"));
    }
    assert_eq!(log, want_log, "the refused request never reaches the server");
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused the client's request (--enforce"));
}

#[test]
fn enforce_forwards_the_requests_of_a_pinned_extension() {
    // `tasks/get` is a method of the Tasks extension: a server serving it accepts the request, so
    // --enforce (on stdio as on HTTP) forwards it instead of answering -32601 itself.
    let dir = scratch("proxy", "enforce-extension");
    let request = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"_meta":{"#,
        r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
        r#""io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}},"#,
        r#""taskId":"786512e2-9e0d-44bd-8f29-789f320fe840"}}"#,
        "\n"
    );
    assert!(
        mcpgen::protocol::check_request(request.trim_end().as_bytes(), &mcpgen::protocol::ServerConfig::default())
            .is_err(),
        "without the extension the request is refused: the test would show nothing"
    );
    let out = run(&dir, &["--enforce"], request.as_bytes());
    assert!(out.status.success());
    assert_eq!(server_log(&dir), request.as_bytes(), "forwarded to the server");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
}

#[test]
fn enforce_forwards_the_requests_of_a_legacy_session() {
    let dir = scratch("proxy", "enforce-legacy");
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        "\n",
    );
    let out = run(&dir, &["--enforce"], input.as_bytes());
    assert!(out.status.success());
    assert_eq!(server_log(&dir), input.as_bytes(), "both forwarded");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
    );
}

#[test]
fn exits_with_the_servers_status_and_passes_its_stderr() {
    let dir = scratch("proxy", "exit");
    let input = r#"{"jsonrpc":"2.0","id":1,"method":"test/stderr","params":{"text":"hello from the server\n"}}
{"jsonrpc":"2.0","id":2,"method":"test/exit","params":{"code":3}}
"#;
    let out = run(&dir, &[], input.as_bytes());
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hello from the server\n"));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
}

#[cfg(unix)]
#[test]
fn dies_of_the_servers_signal() {
    use std::os::unix::process::ExitStatusExt;
    let dir = scratch("proxy", "signal");
    let mut child = start(&dir, &[]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"test/kill\"}\n").unwrap();
    stdin.flush().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(15), "{status:?}");
}

#[test]
fn a_command_that_cannot_start_is_a_usage_error() {
    let out = mcpgen_command().args(["proxy", "--", "/nonexistent/mcp-server"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /nonexistent/mcp-server"));
}

#[test]
fn fail_on_turns_findings_into_exit_1_when_the_server_succeeds() {
    let dir = scratch("proxy", "fail-on");
    let not_json = b"{broken\n"; // MSG-8: an error-level finding
    let out = run(&dir, &[], not_json);
    assert_eq!(out.status.code(), Some(0), "without --fail-on, the server's status");
    for level in ["error", "warning"] {
        let out = run(&dir, &["--fail-on", level], not_json);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{level}: {stderr}");
        assert!(stderr.contains("1 message(s) with errors") && stderr.contains("--fail-on"), "{stderr}");
    }
    // No findings: the server's status.
    assert_eq!(run(&dir, &["--fail-on", "warning"], b"").status.code(), Some(0));
    // A failing server's status wins over --fail-on.
    let exit = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "test/exit", "params": {"code": 3}}).to_string();
    let out = run(&dir, &["--fail-on", "error"], format!("{{broken\n{exit}\n").as_bytes());
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
}

/// One client on stdio may use an id again once its request is answered (ids are unique among
/// the requests in flight): no finding. Reusing it while the request is pending is ID-2.
#[test]
fn an_id_reused_after_its_answer_is_no_finding_one_reused_while_pending_is_id_2() {
    let dir = scratch("proxy", "id-reuse");
    let report = dir.join("report.jsonl");
    let mut child = start(&dir, &["--report", report.to_str().unwrap()]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for _ in 0..3 {
        assert_eq!(round_trip(&mut stdin, &mut stdout, ping), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    }
    // Two at once: the second reuses a pending id.
    stdin.write_all(format!("{ping}\n{ping}\n").as_bytes()).unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let lines = json_lines(&report);
    // (`ping` is not a method of the newest revision: MSG-9 and a missing `resultType` are
    // beside the point here.) Only the pairing's rules.
    let pairing: Vec<(&str, &str)> = lines
        .iter()
        .flat_map(|o| o["errors"].as_array().unwrap().iter().map(move |e| (o, e)))
        .filter_map(|(o, e)| {
            let rule = e["rule"].as_str()?;
            (rule.starts_with("ID-") || rule == "MSG-11").then(|| (o["source"].as_str().unwrap(), rule))
        })
        .collect();
    assert_eq!(pairing, [("proxy:8", "ID-2"), ("proxy:10", "MSG-11")], "{lines:?}");
}
