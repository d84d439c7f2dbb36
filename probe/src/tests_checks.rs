//! Tool names (TOOL-2) judged as written out here; the origin check (`header/origin`, HTTP-2) against a scripted transport with headers: a
//! server that refuses the foreign `Origin` with 403 passes; one that accepts it fails where it
//! listens on a loopback host and is warned elsewhere; another refusal status is judged by the
//! revision's text (403 from 2025-11-25 on, any refusal before it). The verdicts are written
//! out here, not computed with the check's own code.

use serde_json::{json, Value};

use super::*;
use mcpgen::rules::id;

/// How the scripted server answers a request carrying an `Origin` header.
#[derive(Clone, Copy, PartialEq, Debug)]
enum OnOrigin {
    /// HTTP 403 (the right answer).
    Forbid,
    /// As if there were no `Origin` (the seeded fault).
    Accept,
    /// HTTP 400 with a JSON-RPC error.
    BadRequest,
}

/// A server of 2026-07-28 and one legacy revision (`legacy`), over a transport with headers
/// at `host`.
struct Guarded {
    host: &'static str,
    legacy: &'static str,
    on_origin: OnOrigin,
    carried: Option<Carried>,
    initialized: bool,
    /// The error code of the answer to a method it does not serve (-32601 is right).
    unknown_method: i64,
}

fn guarded(host: &'static str, legacy: &'static str, on_origin: OnOrigin) -> Guarded {
    Guarded { host, legacy, on_origin, carried: None, initialized: false, unknown_method: -32601 }
}

impl Guarded {
    fn answer(&mut self, request: &Value) -> Value {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "guarded", "version": "1"}});
        let result = match request["method"].as_str().unwrap_or("") {
            "server/discover" => json!({"resultType": "complete", "supportedVersions": ["2026-07-28", self.legacy],
                "capabilities": {}, "_meta": meta, "ttlMs": 0, "cacheScope": "public"}),
            "initialize" if !self.initialized => {
                self.initialized = true;
                json!({"protocolVersion": self.legacy, "capabilities": {},
                    "serverInfo": {"name": "guarded", "version": "1"}})
            }
            "ping" if self.initialized => json!({}),
            _ => return json!({"jsonrpc": "2.0", "id": id, "error": {"code": self.unknown_method, "message": "no"}}),
        };
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }

    fn reply(&mut self, status: u16, body: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, PeerError> {
        self.carried = Some(Carried {
            request_headers: vec![],
            status: Some(status),
            content_type: Some("application/json".into()),
        });
        Ok(body)
    }
}

impl Peer for Guarded {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        self.send_edited(message, id, &[])
    }

    fn send_edited(
        &mut self,
        message: &[u8],
        id: Option<&Value>,
        edits: &[HeaderEdit],
    ) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        let origin = edits.iter().any(|e| matches!(e, HeaderEdit::Set(k, _) if k.eq_ignore_ascii_case("origin")));
        if origin {
            match self.on_origin {
                OnOrigin::Forbid => {
                    self.carried = Some(Carried { request_headers: vec![], status: Some(403), content_type: None });
                    return Err(PeerError::Refused { status: 403, detail: "Forbidden: Origin".into() });
                }
                OnOrigin::BadRequest => {
                    let error = json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32600, "message": "bad origin"}});
                    return self.reply(400, vec![error.to_string().into_bytes()]);
                }
                OnOrigin::Accept => {}
            }
        }
        if id.is_none() {
            return self.reply(202, Vec::new());
        }
        let answer = self.answer(&request);
        self.reply(200, vec![answer.to_string().into_bytes()])
    }

    fn has_headers(&self) -> bool {
        true
    }

    fn carried(&self) -> Option<&Carried> {
        self.carried.as_ref()
    }

    fn target_host(&self) -> Option<String> {
        Some(self.host.to_owned())
    }
}

/// (revision, level) of each HTTP-2 finding, and any other finding on the origin check, a
/// refusal warning (PROBE-5) or "no answer" (MSG-11).
fn origin_findings(server: Guarded) -> (Vec<(&'static str, Severity)>, Vec<String>) {
    let report = run(&mut { server }, &ProbeOptions::default());
    let ran: Vec<&str> =
        report.checks.iter().filter(|c| c.name == "header/origin").map(|c| c.revision.as_str()).collect();
    assert_eq!(ran.len(), 2, "one origin check per era: {:?}", report.checks);
    let mut http_2 = Vec::new();
    let mut other = Vec::new();
    for f in &report.findings {
        if f.rule == Some(id::HTTP_2) {
            assert_eq!(f.check, "header/origin");
            http_2.push((f.revision.map_or("-", |r| r.as_str()), f.level));
        } else if f.check == "header/origin" || matches!(f.rule, Some(id::PROBE_5 | id::MSG_11)) {
            // The server's other answers are not this test's (its negatives are not right).
            other.push(format!("{} {:?}: {}", f.check, f.rule, f.message));
        }
    }
    (http_2, other)
}

#[test]
fn a_403_to_a_foreign_origin_passes_and_is_no_refusal_warning() {
    for legacy in ["2025-11-25", "2025-06-18"] {
        let (found, other) = origin_findings(guarded("127.0.0.1", legacy, OnOrigin::Forbid));
        assert_eq!(found, [], "{legacy}");
        assert_eq!(other, Vec::<String>::new(), "{legacy}: no PROBE-5, no MSG-11");
    }
}

#[test]
fn a_foreign_origin_accepted_on_a_loopback_host_is_an_error_elsewhere_a_warning() {
    for host in ["127.0.0.1", "localhost", "[::1]", "127.8.0.1", "mcp.localhost"] {
        let (found, other) = origin_findings(guarded(host, "2025-11-25", OnOrigin::Accept));
        assert_eq!(found, [("2026-07-28", Severity::Error), ("2025-11-25", Severity::Error)], "{host}");
        assert_eq!(other, Vec::<String>::new(), "{host}");
    }
    // The MUST to validate `Origin` is there before 2025-11-25 too.
    let (found, _) = origin_findings(guarded("127.0.0.1", "2025-06-18", OnOrigin::Accept));
    assert_eq!(found, [("2026-07-28", Severity::Error), ("2025-06-18", Severity::Error)]);
    for host in ["mcp.example.com", "10.0.0.8", "localhost.example.com", "[2001:db8::1]"] {
        let (found, _) = origin_findings(guarded(host, "2025-11-25", OnOrigin::Accept));
        assert_eq!(found, [("2026-07-28", Severity::Warning), ("2025-11-25", Severity::Warning)], "{host}");
    }
}

#[test]
fn another_refusal_status_is_an_error_where_the_revision_names_403_only() {
    let (found, _) = origin_findings(guarded("127.0.0.1", "2025-11-25", OnOrigin::BadRequest));
    assert_eq!(found, [("2026-07-28", Severity::Error), ("2025-11-25", Severity::Error)]);
    // 2025-06-18 says the header MUST be validated, not how a refusal is answered.
    let (found, _) = origin_findings(guarded("127.0.0.1", "2025-06-18", OnOrigin::BadRequest));
    assert_eq!(found, [("2026-07-28", Severity::Error)]);
}

#[test]
fn the_message_names_the_origin_and_the_host() {
    let report = run(&mut guarded("127.0.0.1", "2025-11-25", OnOrigin::Accept), &ProbeOptions::default());
    let f = report.findings.iter().find(|f| f.rule == Some(id::HTTP_2)).expect("an HTTP-2 finding");
    assert!(
        f.message.contains("Origin: http://mcpgen-probe.invalid") && f.message.contains("127.0.0.1"),
        "{}",
        f.message
    );
    assert!(f.clause.is_some_and(|c| c.quote.is_some_and(|q| q.contains("403"))), "{:?}", f.clause);
    let report = run(&mut guarded("mcp.example.com", "2025-11-25", OnOrigin::Accept), &ProbeOptions::default());
    let f = report.findings.iter().find(|f| f.rule == Some(id::HTTP_2)).expect("an HTTP-2 finding");
    assert!(f.message.contains("cannot be known"), "{}", f.message);
}

/// MSG-9's MUST (-32601 for an unknown method) is a sentence of the Streamable HTTP page: over
/// a transport with headers another code is an error (over stdio a warning: `tests_oracle`).
#[test]
fn an_unknown_method_answered_with_another_code_over_http_is_an_error() {
    let server = Guarded { unknown_method: -32603, ..guarded("127.0.0.1:8000", "2025-11-25", OnOrigin::Forbid) };
    let report = run(&mut { server }, &ProbeOptions::default());
    let found: Vec<(&str, Option<&str>, Severity)> = report
        .findings
        .iter()
        .filter(|f| f.check == "negative/unknown-method")
        .map(|f| (f.check.as_str(), f.rule, f.level))
        .collect();
    assert_eq!(found, [("negative/unknown-method", Some(id::MSG_9), Severity::Error)], "{:#?}", report.findings);
    let right = run(&mut { guarded("127.0.0.1:8000", "2025-11-25", OnOrigin::Forbid) }, &ProbeOptions::default());
    assert!(right.findings.iter().all(|f| f.check != "negative/unknown-method"), "{:#?}", right.findings);
}

#[test]
fn tool_names_the_tools_page_recommends_pass_the_rest_are_named() {
    use crate::tools::tool_name_problem;
    for ok in ["getUser", "DATA_EXPORT_v2", "admin.tools.list", "a", &"x".repeat(128)] {
        assert_eq!(tool_name_problem(ok), None, "{ok}");
    }
    let bad = [
        ("", "is empty; tool names SHOULD be between 1 and 128 characters in length (inclusive)"),
        (
            &"x".repeat(129) as &str,
            "has 129 characters; tool names SHOULD be between 1 and 128 characters in length (inclusive)",
        ),
        (
            "read file",
            "has space; the only characters a tool name SHOULD have are ASCII letters, digits, `_`, `-` and `.`",
        ),
        (
            "a/b:c/d",
            "has '/', ':'; the only characters a tool name SHOULD have are ASCII letters, digits, `_`, `-` and `.`",
        ),
        ("café", "has 'é'; the only characters a tool name SHOULD have are ASCII letters, digits, `_`, `-` and `.`"),
    ];
    for (name, want) in bad {
        assert_eq!(tool_name_problem(name).as_deref(), Some(want), "{name:?}");
    }
}

#[test]
fn tool_names_are_judged_from_2025_11_25_on_only() {
    let (at_modern, at_legacy) = (Revision::parse("2026-07-28"), Revision::parse("2025-06-18"));
    assert_eq!(oracle::clause_at(id::TOOL_2, at_modern).map(|c| oracle::level_of(c.level)), Some(Severity::Warning));
    assert!(oracle::clause_at(id::TOOL_2, at_legacy).is_none(), "no tool-name guidance before 2025-11-25");
}

#[test]
fn caching_hints_are_required_on_complete_results_of_cacheable_methods_only() {
    use crate::caching::missing_hints;
    let both = json!({"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "public"});
    assert_eq!(missing_hints("tools/list", &both), []);
    let bare = json!({"resultType": "complete", "contents": []});
    assert_eq!(
        missing_hints("resources/read", &bare),
        [
            ("/result", "a `resources/read` result without `ttlMs`".to_owned()),
            ("/result", "a `resources/read` result without `cacheScope`".to_owned())
        ]
    );
    let negative = json!({"resultType": "complete", "prompts": [], "ttlMs": -5, "cacheScope": "private"});
    assert_eq!(
        missing_hints("prompts/list", &negative),
        [(
            "/result/ttlMs",
            "a `prompts/list` result with `ttlMs: -5`; servers MUST provide a `ttlMs` value that is `>= 0`".to_owned()
        )]
    );
    // Not cacheable: another method, or an interim `input_required` result.
    assert_eq!(missing_hints("tools/call", &bare), []);
    assert_eq!(missing_hints("prompts/get", &bare), []);
    let interim = json!({"resultType": "input_required", "inputRequests": {}});
    assert_eq!(missing_hints("resources/read", &interim), []);
}

/// A modern server with one read-only tool, `stepwise`, that answers a first call with an
/// `input_required` result carrying `requestState: "s1-A9"` and no input requests, and a
/// retry by the state it carries: `s1-A9` completes, another state is refused with -32602;
/// `checks: false` (the seeded fault) completes whatever state comes back.
struct Stepwise {
    checks: bool,
    states: Vec<Option<String>>,
}

impl Peer for Stepwise {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        let Some(id) = id.cloned() else { return Ok(Vec::new()) };
        let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "stepwise", "version": "1"}});
        let error = |code: i64| json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "no"}});
        let answer = match request["method"].as_str().unwrap_or("") {
            "server/discover" => json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "_meta": meta,
                "ttlMs": 0, "cacheScope": "public"}}),
            "tools/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                "ttlMs": 0, "cacheScope": "public", "tools": [{"name": "stepwise",
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
                "annotations": {"readOnlyHint": true, "openWorldHint": false}}]}}),
            "tools/call" if request["params"]["name"] == "stepwise" => {
                let state = request.pointer("/params/requestState").and_then(Value::as_str).map(str::to_owned);
                self.states.push(state.clone());
                match state.as_deref() {
                    None => json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required",
                        "requestState": "s1-A9"}}),
                    Some("s1-A9") => json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                        "content": [{"type": "text", "text": "done"}]}}),
                    Some(_) if self.checks => error(-32602),
                    Some(_) => json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                        "content": [{"type": "text", "text": "done anyway"}]}}),
                }
            }
            "tools/call" => error(-32602),
            _ => error(-32601),
        };
        Ok(vec![answer.to_string().into_bytes()])
    }
}

/// (rule, level) of each finding on the tamper check, the states the server got, the report.
type Tampered = (Vec<(Option<&'static str>, Severity)>, Vec<Option<String>>, Report);

fn tamper_findings(checks: bool) -> Tampered {
    let mut server = Stepwise { checks, states: Vec::new() };
    let options = ProbeOptions { era: EraChoice::Modern, ..ProbeOptions::default() };
    let report = run(&mut server, &options);
    let found =
        report.findings.iter().filter(|f| f.check == "mrtr/request-state-tamper").map(|f| (f.rule, f.level)).collect();
    (found, server.states, report)
}

#[test]
fn a_tampered_request_state_refused_passes_one_served_is_a_warning() {
    let (found, states, report) = tamper_findings(true);
    assert_eq!(found, [], "{:#?}", report.findings);
    // The retry carried the state with its last character changed.
    assert!(states.contains(&Some("s1-AA".to_owned())), "{states:?}");
    assert!(report.checks.iter().any(|c| c == "mrtr/request-state-tamper"));
    let (found, _, report) = tamper_findings(false);
    assert_eq!(found, [(Some(id::MRTR_11), Severity::Warning)], "{:#?}", report.findings);
}

#[test]
fn without_a_request_state_the_tamper_check_is_skipped_with_why() {
    // The scripted origin server has no such tool: nothing to retry.
    let report = run(&mut guarded("127.0.0.1", "2025-11-25", OnOrigin::Forbid), &ProbeOptions::default());
    let skipped = report.skipped.iter().find(|s| s.check == "mrtr/request-state-tamper").expect("skipped");
    assert!(skipped.reason.starts_with("no `input_required` result with a `requestState` came"), "{skipped:?}");
    assert_eq!(crate::mrtr::tampered("abc"), "abA");
    assert_eq!(crate::mrtr::tampered("abA"), "abB");
    assert_eq!(crate::mrtr::tampered(""), "A");
}
