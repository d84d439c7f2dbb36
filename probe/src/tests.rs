//! The engine against a scripted server: a right one probes clean, each seeded fault is found
//! with its rule.
//!
//! The scripted server answers literally: its refusals and its verdict on tool arguments are
//! written out here, never computed with mcpgen's own checks (`check_request`,
//! `validate_tool_arguments`), so a bug in those shows up as a finding on the right server
//! instead of agreeing with itself.

use serde_json::{json, Value};

use super::*;
use mcpgen::rules::id;

/// A small modern server: refuses the probe's protocol negatives (by rules written out in
/// [`refusal`]), serves discover, one page of tools, `tools/call` (an `isError` result for
/// arguments [`echo_accepts`] refuses), one prompt, one resource and completions; `fault`
/// changes one answer.
struct Scripted {
    fault: Option<&'static str>,
    calls: Vec<Value>,
}

fn scripted(fault: Option<&'static str>) -> Scripted {
    Scripted { fault, calls: Vec::new() }
}

fn tools() -> Value {
    json!([
        {"name": "echo", "inputSchema": {"type": "object",
            "properties": {"text": {"type": "string", "maxLength": 32}, "times": {"type": "integer", "minimum": 1, "maximum": 3}},
            "required": ["text"], "additionalProperties": false},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}},
        {"name": "stats", "inputSchema": {"type": "object"},
         "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}},
        {"name": "delete_everything", "inputSchema": {"type": "object"}}
    ])
}

/// Whether `arguments` meet the `inputSchema` of `tool` (of [`tools`]), by hand: echo wants a
/// `text` string of at most 32 characters, an optional `times` integer in 1..=3 and nothing
/// else; the other tools take any object.
fn echo_accepts(tool: &str, arguments: &Value) -> bool {
    let Some(args) = arguments.as_object() else { return false };
    if tool != "echo" {
        return true;
    }
    let text_ok = args.get("text").and_then(Value::as_str).is_some_and(|t| t.chars().count() <= 32);
    let times_ok = match args.get("times") {
        None => true,
        Some(t) => {
            t.as_i64().is_some_and(|n| (1..=3).contains(&n))
                || t.as_f64().is_some_and(|f| f.fract() == 0.0 && (1.0..=3.0).contains(&f))
        }
    };
    text_ok && times_ok && args.keys().all(|k| k == "text" || k == "times")
}

/// The refusal a 2026-07-28-only server owes `request`, written out: a broken envelope is
/// -32600, a request without the protocol version in `_meta` -32602, another version -32022
/// naming the supported ones. Unknown methods are the dispatcher's (-32601).
fn refusal(request: &Value) -> Option<(i64, Value)> {
    let envelope_ok = request["jsonrpc"] == "2.0"
        && request["method"].is_string()
        && request.get("params").is_none_or(Value::is_object);
    if !envelope_ok {
        return Some((-32600, Value::Null));
    }
    match request.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str) {
        None => Some((-32602, Value::Null)),
        Some("2026-07-28") => None,
        Some(other) => Some((-32022, json!({"supported": ["2026-07-28"], "requested": other}))),
    }
}

impl Scripted {
    fn answer(&mut self, request: &Value) -> Vec<Value> {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        if let Some((code, data)) = refusal(request) {
            let mut error = json!({"code": code, "message": "refused"});
            if !data.is_null() {
                error["data"] = data;
            }
            if !request.is_object() {
                // A batch: no id could be read, and 2026-07-28 leaves it out (ID-4).
                return vec![json!({"jsonrpc": "2.0", "error": error})];
            }
            return vec![json!({"jsonrpc": "2.0", "id": id, "error": error})];
        }
        let method = request["method"].as_str().unwrap_or("");
        let params = &request["params"];
        let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "1"}});
        let error = |code: i64| vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "no"}})];
        let mut out = Vec::new();
        let result = match method {
            "server/discover" => {
                let mut caps = json!({"tools": {}, "prompts": {}, "resources": {}, "completions": {}});
                if self.fault == Some("completion-wrong-code") {
                    caps.as_object_mut().unwrap().remove("completions");
                }
                json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                "capabilities": caps, "_meta": meta, "ttlMs": 0, "cacheScope": "public"})
            }
            "tools/list" => {
                let mut tools = tools();
                if self.fault == Some("tool-name-odd") {
                    // Not read-only, so never called: only the name checks see it.
                    tools.as_array_mut().unwrap().push(json!({"name": "read file", "inputSchema": {"type": "object"}}));
                }
                if self.fault == Some("tool-name-twice") {
                    tools
                        .as_array_mut()
                        .unwrap()
                        .push(json!({"name": "delete_everything", "inputSchema": {"type": "object"}}));
                }
                if self.fault == Some("network-ref") {
                    // Not read-only, so never called: only the schema checks see it.
                    tools.as_array_mut().unwrap().push(json!({"name": "remote",
                        "inputSchema": {"type": "object", "properties": {"q": {"$ref": "https://schemas.example/q.json"}}}}));
                }
                json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public", "tools": tools})
            }
            "tools/call" => {
                if params["name"] == "mcpgen-probe-no-such-tool" {
                    return error(match self.fault {
                        Some("unknown-tool-internal") => -32603,
                        _ => -32602,
                    });
                }
                self.calls.push(params.clone());
                let valid = echo_accepts(params["name"].as_str().unwrap_or(""), &params["arguments"]);
                if let Some(token) = params.pointer("/_meta/progressToken") {
                    let token =
                        if self.fault == Some("progress-unknown-token") { &json!("not-the-token") } else { token };
                    for p in if self.fault == Some("progress-backwards") { [2, 1] } else { [1, 2] } {
                        out.push(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": token, "progress": p}}));
                    }
                }
                if self.fault == Some("log-without-capability") {
                    out.push(json!({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "hi"}}));
                }
                if self.fault == Some("refuses-times-3") && params["arguments"]["times"] == 3 {
                    return error(-32602);
                }
                // A server error is a protocol error the tools page allows.
                if self.fault == Some("server-error-times-3") && params["arguments"]["times"] == 3 {
                    return error(-32603);
                }
                if !valid && self.fault != Some("accepts-invalid") {
                    json!({"resultType": "complete", "isError": true, "content": [{"type": "text", "text": "bad arguments"}]})
                } else if params["name"] == "stats" {
                    let count = if self.fault == Some("bad-structured") { json!("many") } else { json!(1) };
                    json!({"resultType": "complete", "content": [], "structuredContent": {"count": count}})
                } else {
                    json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]})
                }
            }
            "prompts/list" => json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public", "prompts": [
                {"name": "greet", "arguments": [{"name": "who", "required": true}, {"name": "tone"}]}]}),
            "prompts/get" => {
                if params.pointer("/arguments/who").is_none() {
                    return error(if self.fault == Some("prompt-internal") { -32603 } else { -32602 });
                }
                json!({"resultType": "complete", "messages": [{"role": "user",
                    "content": {"type": "text", "text": format!("hello {}", params["arguments"]["who"])}}]})
            }
            "completion/complete" => {
                if self.fault == Some("completion-wrong-code") {
                    return error(-32603);
                }
                json!({"resultType": "complete", "completion": {"values": ["ada", "bob"]}})
            }
            "resources/list" => json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public",
                "resources": [{"uri": "file:///a.txt", "name": "a"}]}),
            "resources/read" => {
                if params["uri"] != "file:///a.txt" {
                    if self.fault == Some("resource-empty") {
                        json!({"resultType": "complete", "contents": [], "ttlMs": 0, "cacheScope": "public"})
                    } else {
                        return error(-32602);
                    }
                } else {
                    let mut read = json!({"resultType": "complete", "contents": [{"uri": "file:///a.txt", "text": "a"}],
                        "ttlMs": 60000, "cacheScope": "private"});
                    match self.fault {
                        Some("read-without-hints") => {
                            read.as_object_mut().map(|o| o.remove("ttlMs"));
                            read.as_object_mut().map(|o| o.remove("cacheScope"));
                        }
                        Some("negative-ttl") => read["ttlMs"] = json!(-1),
                        _ => {}
                    }
                    read
                }
            }
            // Unknown, and the methods 2026-07-28 removed.
            _ => return error(if self.fault == Some("unknown-method-internal") { -32603 } else { -32601 }),
        };
        out.push(json!({"jsonrpc": "2.0", "id": id, "result": result}));
        out
    }
}

impl Peer for Scripted {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        if let (Some(items), Some("batch-answered")) = (request.as_array(), self.fault) {
            // Processes the batch as if batches were supported: an array of the answers.
            let answers: Vec<Value> = items.iter().flat_map(|m| self.answer(m)).collect();
            return Ok(vec![Value::Array(answers).to_string().into_bytes()]);
        }
        if let (Some(Value::String(text)), Some("id-retyped")) = (id, self.fault) {
            // Echoes a string id of digits as a number: `7` for `"7"`.
            let number: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            let mut answers = self.answer(&request);
            for a in &mut answers {
                if a.get("method").is_none() {
                    a["id"] = number.clone();
                }
            }
            return Ok(answers.iter().map(|v| v.to_string().into_bytes()).collect());
        }
        if id.is_none() {
            if self.fault == Some("answers-notifications") {
                return Ok(vec![br#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"unknown request"}}"#.to_vec()]);
            }
            return Ok(Vec::new());
        }
        Ok(self.answer(&request).iter().map(|v| v.to_string().into_bytes()).collect())
    }
}

fn modern_only() -> ProbeOptions {
    ProbeOptions { era: EraChoice::Modern, ..ProbeOptions::default() }
}

fn rules(report: &Report) -> Vec<(String, Option<&'static str>)> {
    report.findings.iter().map(|f| (f.check.clone(), f.rule)).collect()
}

/// The distinct (check, rule) pairs found, in order.
fn distinct(report: &Report) -> Vec<(String, Option<&'static str>)> {
    let mut out = Vec::new();
    for f in rules(report) {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

fn called(peer: &Scripted, name: &str) -> Vec<Value> {
    peer.calls.iter().filter(|c| c["name"] == name).map(|c| c["arguments"].clone()).collect()
}

#[test]
fn a_right_server_probes_clean_and_only_read_only_tools_are_called() {
    let mut peer = scripted(None);
    let report = run(&mut peer, &modern_only());
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(report.eras, ["modern"]);
    assert_eq!(report.seed, DEFAULT_SEED);
    for check in [
        "discover",
        "inventory/tools/list",
        "negative/missing-meta",
        "negative/unsupported-version",
        "negative/unknown-method",
        "negative/removed-ping",
        "negative/bad-envelope",
        "negative/missing-method",
        "negative/cancel-unknown",
        "tool/echo",
        "tool/stats",
        "prompt/greet/complete",
        "prompt/greet",
        "prompt/greet/missing-argument",
        "resource/read",
        "resource/unknown",
        "id/string",
        "batch/one-request",
    ] {
        assert!(report.checks.iter().any(|c| c == check), "{check} not run: {:?}", report.checks);
    }
    // The destructive tool was never called; the read-only ones with their cases.
    assert!(called(&peer, "delete_everything").is_empty());
    let echo = called(&peer, "echo");
    assert_eq!(echo[0], json!({"text": "p"}));
    assert!(echo.len() > 4 && echo.len() <= 16, "{echo:?}");
    let valid = echo.iter().filter(|a| echo_accepts("echo", a)).count();
    assert!(valid > 1 && valid < echo.len(), "both kinds: {echo:?}");
    // The first call carried a progress token (progress was sent and judged).
    assert!(peer.calls[0].pointer("/_meta/progressToken").is_some(), "{:?}", peer.calls[0]);
    // The prompt got its argument from completion/complete.
    let got = report.exchanges.iter().find(|e| e.check == "prompt/greet").unwrap();
    assert_eq!(got.sent["params"]["arguments"]["who"], "ada");
}

#[test]
fn a_wrong_error_code_is_reported_with_the_clause_it_breaks() {
    let mut peer = scripted(Some("unknown-method-internal"));
    let report = run(&mut peer, &modern_only());
    // The unknown method and the three removed ones.
    let want: Vec<_> = ["unknown-method", "removed-ping", "removed-logging-set-level", "removed-resources-subscribe"]
        .iter()
        .map(|n| (format!("negative/{n}"), Some(id::MSG_9)))
        .collect();
    assert_eq!(rules(&report), want, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!(f.pointer, "/error/code");
    assert!(f.message.contains("error code -32603") && f.message.contains("-32601"), "{}", f.message);
    // The clause is a MUST of the Streamable HTTP page; this peer is stdio: a warning that says
    // why (over HTTP an error, `tests_checks`).
    assert_eq!((f.level, f.revision.map(|r| r.as_str())), (Severity::Warning, Some("2026-07-28")));
    assert!(f.message.contains("Streamable HTTP page"), "{}", f.message);
    assert_eq!(f.accepts.as_deref(), Some("error code -32601"));
    let clause = f.clause.expect("the clause");
    assert_eq!(clause.level, mcpgen::rules::Level::Must);
    assert!(clause.quote.is_some_and(|q| q.contains("-32601")), "{clause:?}");
    let shown = &report.exchanges[f.exchange.unwrap()];
    assert_eq!(shown.sent["method"], "mcpgen/probe-unknown-method");
}

#[test]
fn each_seeded_fault_is_found_with_its_rule() {
    for (fault, want) in [
        // Undeclared `logging` (LOG-5), and sent to a request that did not ask for logs (LOG-1).
        (
            "log-without-capability",
            vec![
                ("tool/echo", id::LOG_5),
                ("tool/echo", id::LOG_1),
                ("tool/stats", id::LOG_5),
                ("tool/stats", id::LOG_1),
            ],
        ),
        ("accepts-invalid", vec![("tool/echo", id::TOOL_5)]),
        ("refuses-times-3", vec![("tool/echo", id::PROBE_4)]),
        // A server error to a valid call is a protocol error the tools page allows.
        ("server-error-times-3", vec![]),
        ("progress-unknown-token", vec![("tool/echo", id::PROG_2)]),
        ("unknown-tool-internal", vec![("negative/unknown-tool", id::TOOL_11)]),
        ("bad-structured", vec![("tool/stats", id::TOOL_4)]),
        ("progress-backwards", vec![("tool/echo", id::PROG_3)]),
        ("prompt-internal", vec![("prompt/greet/missing-argument", id::PROMPT_2)]),
        ("completion-wrong-code", vec![("undeclared/completions", id::COMP_2)]),
        ("resource-empty", vec![("resource/unknown", id::RES_1)]),
        ("answers-notifications", vec![("negative/cancel-unknown", id::MSG_12)]),
        // `7` for `"7"`: the answer (no MSG-11), with the wrong type.
        ("id-retyped", vec![("id/string", id::ID_3)]),
        // The one-request batch answered as a batch: a server message that is an array.
        ("batch-answered", vec![("batch/one-request", id::MSG_1)]),
        // Tool names the tools page recommends against (SHOULD: warnings).
        ("tool-name-odd", vec![("inventory/tool-name/read file", id::TOOL_2)]),
        ("tool-name-twice", vec![("inventory/tool-name/delete_everything", id::TOOL_2)]),
        // Caching hints a client may do without, but a server MUST send (2026-07-28).
        ("read-without-hints", vec![("resource/read", id::CACHE_1)]),
        ("negative-ttl", vec![("resource/read", id::CACHE_1)]),
    ] {
        let mut peer = scripted(Some(fault));
        let report = run(&mut peer, &modern_only());
        let want: Vec<_> = want.into_iter().map(|(c, r)| (c.to_owned(), Some(r))).collect();
        assert_eq!(distinct(&report), want, "{fault}: {:#?}", report.findings);
    }
}

#[test]
fn a_failing_case_is_shrunk_to_a_minimal_one() {
    let mut peer = scripted(Some("accepts-invalid"));
    let report = run(&mut peer, &modern_only());
    let found: Vec<_> = report.findings.iter().filter(|f| f.rule == Some(id::TOOL_5)).collect();
    assert!(!found.is_empty());
    // Every invalid case the server accepts shrinks to `{}` (the required `text` missing: the
    // smallest instance the schema refuses), and the finding shows that exchange.
    for f in &found {
        let sent = &report.exchanges[f.exchange.unwrap()].sent;
        assert_eq!(sent["params"]["arguments"], json!({}), "{}", f.message);
        assert!(f.message.contains("minimal arguments: {}"), "{}", f.message);
    }
    assert!(found.iter().any(|f| f.message.contains("shrunk in")), "{found:#?}");
    // Bounded: one step per case at most.
    let mut peer = scripted(Some("accepts-invalid"));
    let once = run(&mut peer, &ProbeOptions { max_shrink_steps: 1, ..modern_only() });
    let f = once.findings.iter().find(|f| f.message.contains("wrong type /times")).expect("the wrong-type case");
    assert!(f.message.contains("shrunk in 1 steps"), "{}", f.message);
    assert_ne!(once.exchanges[f.exchange.unwrap()].sent["params"]["arguments"], json!({}));
}

#[test]
fn a_server_that_drops_a_member_the_schema_does_not_allow_is_not_blamed() {
    // The server accepts every invalid case: each is TOOL-5, but for the `extra member` case,
    // whose only fault is a member `additionalProperties: false` refuses (the server may drop
    // it and run the tool).
    let mut peer = scripted(Some("accepts-invalid"));
    let report = run(&mut peer, &modern_only());
    let cases: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.rule == Some(id::TOOL_5))
        .map(|f| f.message.split("(case `").nth(1).and_then(|m| m.split('`').next()).unwrap_or(""))
        .collect();
    assert!(!cases.is_empty());
    assert!(!cases.contains(&"extra member"), "{cases:?}");
    // It was sent, though, and answered with a success.
    let sent = report.exchanges.iter().any(|x| x.sent["params"]["arguments"].get("mcpgenProbeExtra").is_some());
    assert!(sent, "the extra-member case was not sent");
}

#[test]
fn a_valid_case_that_fails_keeps_what_makes_it_fail() {
    let mut peer = scripted(Some("refuses-times-3"));
    let report = run(&mut peer, &modern_only());
    let f = report.findings.iter().find(|f| f.rule == Some(id::PROBE_4)).expect("a finding with id::PROBE_4");
    let arguments = &report.exchanges[f.exchange.unwrap()].sent["params"]["arguments"];
    assert_eq!(arguments["times"], 3, "{}", f.message);
}

#[test]
fn cases_are_capped_per_tool_and_in_total_and_repeat_under_a_seed() {
    let mut peer = scripted(None);
    run(&mut peer, &ProbeOptions { max_cases_per_tool: 3, ..modern_only() });
    assert_eq!(called(&peer, "echo").len(), 3);
    let mut peer = scripted(None);
    run(&mut peer, &ProbeOptions { max_tool_calls: 5, ..modern_only() });
    assert_eq!(peer.calls.len(), 5);
    let calls = |seed| {
        let mut peer = scripted(None);
        let report = run(&mut peer, &ProbeOptions { seed, ..modern_only() });
        assert_eq!(report.seed, seed);
        called(&peer, "echo")
    };
    assert_eq!(calls(5), calls(5));
    assert_ne!(calls(5), calls(6));
}

#[test]
fn tool_policies() {
    for (policy, want) in [
        (ToolPolicy::None, vec![]),
        (ToolPolicy::ReadOnly, vec!["echo", "stats"]),
        (ToolPolicy::All, vec!["echo", "stats", "delete_everything"]),
        (ToolPolicy::Named(vec!["delete_everything".into()]), vec!["delete_everything"]),
    ] {
        let mut peer = scripted(None);
        run(&mut peer, &ProbeOptions { call_tools: policy.clone(), ..modern_only() });
        let mut names: Vec<&str> = Vec::new();
        for c in &peer.calls {
            let n = c["name"].as_str().unwrap();
            if !names.contains(&n) {
                names.push(n);
            }
        }
        assert_eq!(names, want, "{policy:?}");
    }
}

/// A peer that never answers: every request is a finding (MSG-11), nothing hangs.
struct Silent;

impl Peer for Silent {
    fn send(&mut self, _: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        if id.is_some() {
            Err(PeerError::Timeout { after_ms: 5 })
        } else {
            Ok(Vec::new())
        }
    }
}

#[test]
fn a_server_that_never_answers_is_reported_not_waited_for() {
    let report = run(&mut Silent, &ProbeOptions::default());
    assert!(report.eras.is_empty());
    // discover, then the legacy fallback's initialize.
    assert_eq!(rules(&report), [("discover".into(), Some(id::MSG_11)), ("legacy/2025-11-25".into(), Some(id::MSG_11))]);
    assert_eq!(report.exchanges[0].peer_error.as_deref(), Some("no answer within 5 ms"));
}

/// A server whose cursor never ends: read `max_pages` pages, then a PROBE-1 warning.
struct EndlessPages;

impl Peer for EndlessPages {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        let Some(id) = id else { return Ok(Vec::new()) };
        let result = match request["method"].as_str() {
            Some("server/discover") => json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                "capabilities": {"prompts": {}}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
                "ttlMs": 0, "cacheScope": "public"}),
            Some("prompts/list") => {
                json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public", "prompts": [], "nextCursor": "again"})
            }
            _ => {
                return Ok(vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})
                    .to_string()
                    .into_bytes()])
            }
        };
        Ok(vec![json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string().into_bytes()])
    }
}

#[test]
fn an_endless_cursor_is_read_up_to_the_page_limit() {
    let options = ProbeOptions { max_pages: 3, ..modern_only() };
    let report = run(&mut EndlessPages, &options);
    let pages = report.checks.iter().filter(|c| *c == "inventory/prompts/list").count();
    assert_eq!(pages, 3);
    let probe_1: Vec<_> = report.findings.iter().filter(|f| f.rule == Some(id::PROBE_1)).collect();
    assert_eq!(probe_1.len(), 1, "{:#?}", report.findings);
    assert_eq!(probe_1[0].level, Severity::Warning);
}

#[test]
fn exchanges_past_the_cap_are_counted_not_kept() {
    let options = ProbeOptions { max_exchanges: 2, ..modern_only() };
    let mut peer = scripted(None);
    let report = run(&mut peer, &options);
    assert_eq!(report.exchanges.len(), 2);
    assert!(report.dropped_exchanges > 0);
    // Each exchange is a check; the tool-schema and tool-name checks are checks without one.
    let schema_checks = report.checks.iter().filter(|c| c.name.starts_with("inventory/tool-schema/")).count();
    assert_eq!(schema_checks, 3, "one per listed tool");
    let name_checks = report.checks.iter().filter(|c| c.name.starts_with("inventory/tool-name/")).count();
    assert_eq!(name_checks, 3, "one per listed tool");
    assert_eq!(report.exchanges.len() + report.dropped_exchanges + schema_checks + name_checks, report.checks.len());
}

#[test]
fn every_listed_tool_schema_goes_through_the_tool_schema_checks() {
    let clean = run(&mut scripted(None), &modern_only());
    assert!(clean.checks.iter().any(|c| c == "inventory/tool-schema/echo"), "{:?}", clean.checks);
    assert!(clean.findings.iter().all(|f| !f.check.starts_with("inventory/tool-schema/")), "{:?}", clean.findings);
    let report = run(&mut scripted(Some("network-ref")), &modern_only());
    let found: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.check.starts_with("inventory/tool-schema/"))
        .map(|f| (f.check.as_str(), f.rule))
        .collect();
    assert_eq!(found, [("inventory/tool-schema/remote", Some(id::JSCHEMA_5))], "{:?}", report.findings);
}

#[test]
fn a_list_past_its_byte_cap_is_not_followed() {
    // Each page of EndlessPages is one answer of well over 16 bytes: the first page passes the
    // cap, so no second page is asked for.
    let options = ProbeOptions { max_list_bytes: 16, ..modern_only() };
    let report = run(&mut EndlessPages, &options);
    let pages = report.checks.iter().filter(|c| *c == "inventory/prompts/list").count();
    assert_eq!(pages, 1);
    let probe_1: Vec<_> = report.findings.iter().filter(|f| f.rule == Some(id::PROBE_1)).collect();
    assert_eq!(probe_1.len(), 1, "{:#?}", report.findings);
    assert!(probe_1[0].message.contains("at most 16 bytes of one list"), "{}", probe_1[0].message);
    assert_eq!(probe_1[0].level, Severity::Warning);
}

/// [`Scripted`] with a 10 KiB log notification before every answer.
struct Chatty(Scripted);

impl Peer for Chatty {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let mut got = self.0.send(message, id)?;
        if id.is_some() {
            let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "x".repeat(10 * 1024)}});
            got.insert(0, note.to_string().into_bytes());
        }
        Ok(got)
    }
}

#[test]
fn the_report_keeps_at_most_max_kept_bytes_of_messages_and_the_verdicts_do_not_change() {
    let unbounded = run(&mut Chatty(scripted(Some("accepts-invalid"))), &modern_only());
    assert!(unbounded.exchanges.iter().all(|e| e.unkept == 0));
    let options = ProbeOptions { max_kept_bytes: 50_000, ..modern_only() };
    let bounded = run(&mut Chatty(scripted(Some("accepts-invalid"))), &options);
    let kept: usize = bounded.exchanges.iter().flat_map(|e| &e.received).map(String::len).sum();
    // Past the cap only answers of at most 4 KiB are kept, one per exchange.
    assert!(kept <= 50_000 + bounded.exchanges.len() * 4096, "{kept} bytes kept");
    let unkept: usize = bounded.exchanges.iter().map(|e| e.unkept).sum();
    assert!(unkept > 0, "the notifications past the cap are counted");
    // Every notification is 10 KiB: past the cap none is kept, and every answer still is.
    let answered = |r: &Report| r.exchanges.iter().filter(|e| e.received.iter().any(|m| m.contains("\"id\""))).count();
    assert_eq!(answered(&bounded), answered(&unbounded));
    assert_eq!(rules(&bounded), rules(&unbounded), "what the report keeps does not change a verdict");
    assert!(rules(&bounded).iter().any(|(_, r)| *r == Some(id::TOOL_5)), "the seeded fault is found");
}

/// A server with an endless list of prompts, five a page.
struct FivePromptsAPage(usize);

impl Peer for FivePromptsAPage {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        if request["method"] == "prompts/list" {
            let Some(id) = id else { return Ok(Vec::new()) };
            let prompts: Vec<Value> = (0..5).map(|i| json!({"name": format!("p{}", self.0 + i)})).collect();
            self.0 += 5;
            let result = json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public", "prompts": prompts,
                "nextCursor": "again"});
            return Ok(vec![json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string().into_bytes()]);
        }
        EndlessPages.send(message, id)
    }
}

#[test]
fn a_list_past_its_item_cap_is_cut_and_said() {
    let options = ProbeOptions { max_list_items: 7, get_prompts: crate::PromptPolicy::All, ..modern_only() };
    let mut peer = FivePromptsAPage(0);
    let report = run(&mut peer, &options);
    // Two pages give ten prompts: seven are kept, no third page is asked for.
    let pages = report.checks.iter().filter(|c| *c == "inventory/prompts/list").count();
    assert_eq!(pages, 2);
    let got: Vec<&str> = report.checks.iter().filter_map(|c| c.name.strip_prefix("prompt/")).collect();
    assert_eq!(got.len(), 7, "{got:?}");
    let probe_1: Vec<_> = report.findings.iter().filter(|f| f.rule == Some(id::PROBE_1)).collect();
    assert_eq!(probe_1.len(), 1, "{:#?}", report.findings);
    assert!(probe_1[0].message.contains("more than 7 items"), "{}", probe_1[0].message);
}

/// [`Scripted`] whose connection is gone after `answers` exchanges: every later send fails
/// with [`PeerError::Closed`], as a stdio server that exited.
struct Dies {
    inner: Scripted,
    answers: usize,
}

impl Peer for Dies {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        if self.answers == 0 {
            return Err(PeerError::Closed);
        }
        self.answers -= 1;
        self.inner.send(message, id)
    }
}

#[test]
fn a_server_that_exits_mid_run_is_one_warning_and_the_rest_is_skipped_not_failed() {
    let mut peer = Dies { inner: scripted(None), answers: 3 };
    let report = run(&mut peer, &modern_only());
    assert!(report.refused.is_none());
    let found: Vec<_> = report.findings.iter().map(|f| (f.rule, f.level)).collect();
    assert_eq!(found, [(Some(id::PROBE_5), Severity::Warning)], "{:#?}", report.findings);
    assert!(report.findings[0].message.starts_with("the server closed the connection before answering"));
    assert!(!report.has_errors());
    assert!(
        report.skipped.iter().any(|s| s.reason.starts_with("not sent: the server closed the connection at `")),
        "{:#?}",
        report.skipped
    );
    // Each check skipped once, however many messages it would have sent.
    let mut checks: Vec<&str> = report.skipped.iter().map(|s| s.check.as_str()).collect();
    let all = checks.len();
    checks.dedup();
    assert_eq!(checks.len(), all);
}

#[test]
fn a_server_that_exits_before_its_first_answer_cannot_be_probed() {
    let mut peer = Dies { inner: scripted(None), answers: 0 };
    let report = run(&mut peer, &modern_only());
    let refused = report.refused.as_ref().expect("nothing was judged");
    assert_eq!(refused.error, PeerError::Closed);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}
