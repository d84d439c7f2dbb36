//! The oracle against a dual-era server whose answers are written out literally: every answer
//! a clause allows gives no finding, an answer it does not allow gives a finding on the check's
//! rule at the level of its clause at the revision in play, in both eras.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::*;
use mcpgen::rules::id;

/// One answer, literally.
#[derive(Debug, Clone)]
enum A {
    Error(i64),
    /// An error with `id: null`.
    NullIdError(i64),
    /// An error without `id` (the id could not be read: 2026-07-28's schema leaves it out).
    NoIdError(i64),
    Result(Value),
    /// Nothing (the peer's wait runs out).
    Silent,
}

/// A server of 2026-07-28 and 2025-11-25: each request the probe judges has a key (`KEY` or,
/// for one era only, `legacy:KEY` / `modern:KEY`) whose answer [`Literal::right`] writes out
/// and a test may replace.
struct Literal {
    answers: HashMap<String, A>,
    initialized: bool,
}

const TOOL: &str = "echo";

impl Literal {
    fn right() -> Literal {
        let answers = [
            ("missing-meta", A::Error(-32602)),
            ("batch", A::NoIdError(-32600)),
            ("unsupported-version", A::Error(-32022)),
            ("bad-envelope", A::Error(-32600)),
            ("params-not-object", A::Error(-32600)),
            ("missing-method", A::Error(-32600)),
            ("method-not-string", A::Error(-32600)),
            ("unknown-method", A::Error(-32601)),
            ("ping", A::Error(-32601)),
            ("logging/setLevel", A::Error(-32601)),
            ("resources/subscribe", A::Error(-32601)),
            ("completion/complete", A::Error(-32601)),
            ("unknown-tool", A::Error(-32602)),
            ("modern:unknown-resource", A::Error(-32602)),
            ("legacy:unknown-resource", A::Error(-32002)),
            ("prompt-missing", A::Error(-32602)),
            ("valid-call", A::Result(json!({"content": [{"type": "text", "text": "ok"}]}))),
            ("invalid-call", A::Result(json!({"isError": true, "content": [{"type": "text", "text": "bad"}]}))),
        ];
        Literal { answers: answers.into_iter().map(|(k, a)| (k.to_owned(), a)).collect(), initialized: false }
    }

    /// `key` answered with `answer` (in both eras, for a key without an era).
    fn with(mut self, key: &str, answer: A) -> Literal {
        if !key.contains(':') {
            self.answers.remove(&format!("modern:{key}"));
            self.answers.remove(&format!("legacy:{key}"));
        }
        self.answers.insert(key.to_owned(), answer);
        self
    }

    /// The key of `request`, by hand.
    fn key(request: &Value) -> Option<&'static str> {
        if request.is_array() {
            return Some("batch");
        }
        let meta = request.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion");
        let modern = meta.is_some();
        if request["jsonrpc"] != "2.0" {
            return Some("bad-envelope");
        }
        match request.get("method") {
            None => return Some("missing-method"),
            Some(m) if !m.is_string() => return Some("method-not-string"),
            _ => {}
        }
        if request.get("params").is_some_and(Value::is_array) {
            return Some("params-not-object");
        }
        let method = request["method"].as_str().unwrap_or("");
        let params = &request["params"];
        if modern && meta != Some(&json!("2026-07-28")) {
            return Some("unsupported-version");
        }
        Some(match method {
            "mcpgen/probe-unknown-method" => "unknown-method",
            "ping" => "ping",
            "logging/setLevel" => "logging/setLevel",
            "resources/subscribe" => "resources/subscribe",
            "completion/complete" => "completion/complete",
            "tools/call" if params["name"] != TOOL => "unknown-tool",
            "tools/call" => {
                let args = &params["arguments"];
                let ok = args.as_object().is_some_and(|o| {
                    o.keys().all(|k| k == "text")
                        && o.get("text").and_then(Value::as_str).is_some_and(|t| t.chars().count() <= 8)
                });
                if ok {
                    "valid-call"
                } else {
                    "invalid-call"
                }
            }
            "resources/read" => "unknown-resource",
            "prompts/get" if params.pointer("/arguments/who").is_none() => "prompt-missing",
            _ => return None,
        })
    }

    fn answer(&mut self, request: &Value) -> Option<Value> {
        // A batch's answers carry the id of the request in it.
        let id = request.get("id").or_else(|| request.pointer("/0/id")).cloned().unwrap_or(Value::Null);
        let modern = request.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").is_some();
        let method = request["method"].as_str().unwrap_or("");
        let era = if modern { "modern" } else { "legacy" };
        // Without `_meta` and outside a legacy session: the missing-meta negative.
        let key = if !modern && !self.initialized && method == "tools/list" && request["params"].is_object() {
            Some("missing-meta")
        } else {
            Literal::key(request)
        };
        let respond = |a: &A| match a {
            A::Error(-32021) => Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32021, "message": "no",
                "data": {"requiredCapabilities": {"sampling": {}}}}})),
            A::Error(code) => Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "no"}})),
            A::NullIdError(code) => {
                Some(json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": "no"}}))
            }
            A::NoIdError(code) => Some(json!({"jsonrpc": "2.0", "error": {"code": code, "message": "no"}})),
            A::Result(r) => {
                let mut r = r.clone();
                if modern {
                    r["resultType"] = json!("complete");
                }
                Some(json!({"jsonrpc": "2.0", "id": id, "result": r}))
            }
            A::Silent => None,
        };
        if let Some(key) = key {
            let a = self.answers.get(&format!("{era}:{key}")).or_else(|| self.answers.get(key));
            if let Some(a) = a {
                let mut out = respond(a);
                if key == "unsupported-version" {
                    if let Some(o) = &mut out {
                        if o.pointer("/error/code") == Some(&json!(-32022)) {
                            o["error"]["data"] =
                                json!({"supported": ["2026-07-28", "2025-11-25"], "requested": "1999-01-01"});
                        }
                    }
                }
                return out;
            }
        }
        let caps = json!({"tools": {}, "prompts": {}, "resources": {}});
        let list = |key: &str, items: Value| {
            let mut r = json!({ key: items });
            if modern {
                r["resultType"] = json!("complete");
                r["ttlMs"] = json!(0);
                r["cacheScope"] = json!("public");
            }
            r
        };
        let result = match method {
            "server/discover" => json!({"resultType": "complete", "supportedVersions": ["2026-07-28", "2025-11-25"],
                "capabilities": caps, "ttlMs": 0, "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "literal", "version": "1"}}}),
            "initialize" => {
                self.initialized = true;
                json!({"protocolVersion": request["params"]["protocolVersion"], "capabilities": caps,
                    "serverInfo": {"name": "literal", "version": "1"}})
            }
            "tools/list" => list(
                "tools",
                json!([{"name": TOOL, "inputSchema": {"type": "object",
                    "properties": {"text": {"type": "string", "maxLength": 8}}, "required": ["text"], "additionalProperties": false},
                    "annotations": {"readOnlyHint": true, "openWorldHint": false}}]),
            ),
            "prompts/list" => {
                list("prompts", json!([{"name": "greet", "arguments": [{"name": "who", "required": true}]}]))
            }
            "prompts/get" => {
                let mut r = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]});
                if modern {
                    r["resultType"] = json!("complete");
                }
                r
            }
            "resources/list" => list("resources", json!([])),
            "resources/templates/list" => list("resourceTemplates", json!([])),
            _ => return Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})),
        };
        Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }
}

impl Peer for Literal {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        if id.is_none() {
            if request["method"] == "notifications/cancelled" {
                if let Some(A::Error(code)) = self.answers.get("cancel") {
                    let answer = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": "no"}});
                    return Ok(vec![answer.to_string().into_bytes()]);
                }
            }
            return Ok(Vec::new());
        }
        match self.answer(&request) {
            Some(answer) => Ok(vec![answer.to_string().into_bytes()]),
            None => Err(PeerError::Timeout { after_ms: 5 }),
        }
    }
}

fn probe(server: Literal) -> Report {
    run(&mut { server }, &ProbeOptions::default())
}

fn show(report: &Report) -> Vec<(String, Option<&'static str>, Severity, &'static str, String)> {
    report
        .findings
        .iter()
        .map(|f| (f.check.clone(), f.rule, f.level, f.revision.map_or("-", |r| r.as_str()), f.message.clone()))
        .collect()
}

#[test]
fn the_right_server_probes_clean_in_both_eras() {
    let report = probe(Literal::right());
    assert!(report.findings.is_empty(), "{:#?}", show(&report));
    assert_eq!(report.eras, ["modern", "legacy 2025-11-25"]);
    let ran = |name: &str, revision: &str| report.checks.iter().any(|c| c.name == name && c.revision == revision);
    for check in [
        "negative/missing-meta",
        "negative/bad-envelope",
        "negative/params-not-object",
        "negative/removed-ping",
        "undeclared/completions",
        "negative/unknown-tool",
        "resource/unknown",
        "prompt/greet/missing-argument",
        "tool/echo",
    ] {
        assert!(ran(check, "2026-07-28"), "{check} not run: {:?}", report.checks);
    }
    for check in ["negative/unknown-tool", "resource/unknown", "prompt/greet/missing-argument", "tool/echo"] {
        assert!(ran(check, "2025-11-25"), "{check} not run in the legacy era: {:?}", report.checks);
    }
}

#[test]
fn every_answer_a_clause_allows_gives_no_finding() {
    for (key, answer) in [
        // JSON-RPC 2.0: Invalid Request, or Parse error from a server that reads no request.
        ("bad-envelope", A::Error(-32700)),
        ("missing-method", A::Error(-32700)),
        ("method-not-string", A::Error(-32700)),
        // An error without the id, and the code is still judged (and right).
        ("missing-method", A::NoIdError(-32600)),
        ("method-not-string", A::NoIdError(-32700)),
        // JSON-RPC allows array params; MCP's schema does not: either code.
        ("params-not-object", A::Error(-32602)),
        // A dual-era server may still serve the methods 2026-07-28 removed.
        ("ping", A::Result(json!({}))),
        // Invalid tool input: a tool error, as the page shows.
        ("invalid-call", A::Result(json!({"isError": true, "content": [{"type": "text", "text": "no"}]}))),
        ("modern:invalid-call", A::Error(-32602)),
        // A valid call that fails on the server's side: a server error is a protocol error.
        ("valid-call", A::Error(-32603)),
        ("valid-call", A::Result(json!({"isError": true, "content": [{"type": "text", "text": "down"}]}))),
        ("modern:valid-call", A::Error(-32021)),
        // A batch where the revision has none: the spec says nothing of the answer.
        ("batch", A::Error(-32600)),
        ("batch", A::Error(-32601)),
        ("batch", A::Silent),
        ("batch", A::NullIdError(-32600)),
        ("batch", A::Result(json!({"resultType": "complete"}))),
    ] {
        let report = probe(Literal::right().with(key, answer.clone()));
        assert!(report.findings.is_empty(), "{key} {answer:?}: {:#?}", show(&report));
    }
}

#[test]
fn an_answer_a_clause_refuses_is_a_finding_at_the_clauses_level_in_its_era() {
    use Severity::{Error as E, Warning as W};
    const MODERN_REV: &str = "2026-07-28";
    const LEGACY_REV: &str = "2025-11-25";
    for (key, answer, check, rule, want) in [
        // ERR-1 is informal: a warning.
        ("bad-envelope", A::Error(-32601), "negative/bad-envelope", id::ERR_1, vec![(MODERN_REV, W)]),
        // A wrong code in an answer with `id: null` (the checker's ID-4 besides) or without an
        // id is still judged.
        ("missing-method", A::NullIdError(-32601), "negative/missing-method", id::ERR_1, vec![(MODERN_REV, W)]),
        // `id: null` answering a malformed request whose id was there: the clause excepts
        // "error cases where the ID could not be read due a malformed request" — a warning.
        ("missing-method", A::NullIdError(-32600), "negative/missing-method", id::ID_4, vec![(MODERN_REV, W)]),
        ("method-not-string", A::NoIdError(-32601), "negative/method-not-string", id::ERR_1, vec![(MODERN_REV, W)]),
        // Dropped: at most a warning, never MSG-11.
        ("bad-envelope", A::Silent, "negative/bad-envelope", id::ERR_1, vec![(MODERN_REV, W)]),
        ("params-not-object", A::Error(-32603), "negative/params-not-object", id::ERR_1, vec![(MODERN_REV, W)]),
        ("missing-meta", A::Error(-32600), "negative/missing-meta", id::META_6, vec![(MODERN_REV, E)]),
        // MSG-9's MUST is the Streamable HTTP page's: over stdio (this peer) a warning; over
        // HTTP an error (`tests_checks`).
        ("unknown-method", A::Error(-32603), "negative/unknown-method", id::MSG_9, vec![(MODERN_REV, W)]),
        ("ping", A::Error(-32603), "negative/removed-ping", id::MSG_9, vec![(MODERN_REV, W)]),
        ("completion/complete", A::Error(-32603), "undeclared/completions", id::COMP_2, vec![(MODERN_REV, W)]),
        (
            "unknown-tool",
            A::Error(-32603),
            "negative/unknown-tool",
            id::TOOL_11,
            vec![(MODERN_REV, W), (LEGACY_REV, W)],
        ),
        (
            "unknown-tool",
            A::Result(json!({"isError": true, "content": []})),
            "negative/unknown-tool",
            id::TOOL_11,
            vec![(MODERN_REV, W), (LEGACY_REV, W)],
        ),
        // The unknown resource: 2026-07-28 MUST -32602, 2025-11-25 SHOULD -32002.
        ("legacy:unknown-resource", A::Error(-32602), "resource/unknown", id::RES_1, vec![(LEGACY_REV, W)]),
        ("modern:unknown-resource", A::Error(-32603), "resource/unknown", id::RES_1, vec![(MODERN_REV, E)]),
        (
            "unknown-resource",
            A::Result(json!({"contents": [], "ttlMs": 0, "cacheScope": "public"})),
            "resource/unknown",
            id::RES_1,
            vec![(MODERN_REV, E), (LEGACY_REV, W)],
        ),
        (
            "prompt-missing",
            A::Error(-32603),
            "prompt/greet/missing-argument",
            id::PROMPT_2,
            vec![(MODERN_REV, W), (LEGACY_REV, W)],
        ),
        ("valid-call", A::Error(-32602), "tool/echo", id::PROBE_4, vec![(MODERN_REV, W), (LEGACY_REV, W)]),
        (
            "invalid-call",
            A::Result(json!({"content": []})),
            "tool/echo",
            id::TOOL_5,
            vec![(MODERN_REV, E), (LEGACY_REV, E)],
        ),
        // Invalid tool input answered with a protocol error, whichever code: from 2025-11-25 on
        // input validation errors are tool execution errors (informal: a warning).
        // 2026-07-28's schema names -32602 for invalid tool arguments too: only the legacy era.
        ("invalid-call", A::Error(-32602), "tool/echo", id::TOOL_8, vec![(LEGACY_REV, W)]),
        ("invalid-call", A::Error(-32603), "tool/echo", id::TOOL_8, vec![(MODERN_REV, W), (LEGACY_REV, W)]),
        ("cancel", A::Error(-32600), "negative/cancel-unknown", id::MSG_12, vec![(MODERN_REV, E)]),
    ] {
        let report = probe(Literal::right().with(key, answer.clone()));
        let mut got: Vec<(&str, Severity)> = Vec::new();
        for f in report.findings.iter().filter(|f| f.check == check && f.rule == Some(rule)) {
            let seen = (f.revision.map_or("-", |r| r.as_str()), f.level);
            if !got.contains(&seen) {
                got.push(seen);
            }
            // The finding carries the clause it rests on, at its revision, and what is accepted.
            let clause = f.clause.expect("a clause");
            assert_eq!(Some(clause.level), mcpgen::rules::at(rule, f.revision.unwrap()).map(|c| c.level));
            assert!(clause.quote.is_some(), "{rule}");
            assert!(
                f.clause_url().is_some_and(|u| u.contains(seen.0) || u.contains("jsonrpc")),
                "{:?}",
                f.clause_url()
            );
        }
        assert_eq!(got, want, "{key} {answer:?}: {:#?}", show(&report));
        // Nothing else is blamed on the oracle's side.
        let others: Vec<_> = report.findings.iter().filter(|f| f.rule == Some(rule) && f.check != check).collect();
        assert!(others.is_empty(), "{key}: {others:#?}");
    }
}

#[test]
fn a_finding_says_what_the_clause_accepts_in_its_era() {
    let report = probe(Literal::right().with("unknown-resource", A::Error(-32603)));
    let accepts: Vec<(&str, Option<&str>)> = report
        .findings
        .iter()
        .filter(|f| f.rule == Some(id::RES_1))
        .map(|f| (f.revision.unwrap().as_str(), f.accepts.as_deref()))
        .collect();
    assert_eq!(
        accepts,
        [("2026-07-28", Some("error code -32602")), ("2025-11-25", Some("error code -32002"))],
        "{:#?}",
        show(&report)
    );
    let f = &report.findings[0];
    assert!(f.message.contains("error code -32603"), "{}", f.message);
}

#[test]
fn a_server_naming_only_modern_versions_is_still_probed_in_the_legacy_era() {
    struct ModernListed(Literal);
    impl Peer for ModernListed {
        fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
            let mut got = self.0.send(message, id)?;
            for m in &mut got {
                let mut v: Value = serde_json::from_slice(m).unwrap();
                if v.pointer("/result/supportedVersions").is_some() {
                    v["result"]["supportedVersions"] = json!(["2026-07-28"]);
                    *m = v.to_string().into_bytes();
                }
            }
            Ok(got)
        }
    }
    let report = run(&mut ModernListed(Literal::right()), &ProbeOptions::default());
    assert_eq!(report.eras, ["modern", "legacy 2025-11-25"], "{:#?}", show(&report));
    // `--era` forces one.
    let only = |era| run(&mut ModernListed(Literal::right()), &ProbeOptions { era, ..ProbeOptions::default() }).eras;
    assert_eq!(only(EraChoice::Modern), ["modern"]);
    assert_eq!(only(EraChoice::Legacy), ["legacy 2025-11-25"]);
}

#[test]
fn outcomes_count_each_check_once_per_era() {
    let report = probe(Literal::right().with("prompt-missing", A::Error(-32603)));
    let outcomes = report.outcomes();
    let prompt: Vec<_> = outcomes.iter().filter(|o| o.name == "prompt/greet/missing-argument").collect();
    assert_eq!(prompt.len(), 2, "{prompt:?}");
    assert!(prompt.iter().all(|o| o.status == Status::Warned), "{prompt:?}");
    // The tool's several cases are one check per era.
    assert_eq!(outcomes.iter().filter(|o| o.name == "tool/echo").count(), 2);
    let distinct = {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for c in &report.checks {
            if !seen.contains(&(c.name.as_str(), c.revision.as_str())) {
                seen.push((&c.name, &c.revision));
            }
        }
        seen.len()
    };
    let skipped = outcomes.iter().filter(|o| matches!(o.status, Status::Skipped(_))).count();
    assert_eq!(outcomes.len(), distinct + skipped);
    // The eras' counts add up to the same checks.
    let by_era: usize = report.era_summaries.iter().map(|e| e.checks).sum();
    assert_eq!(by_era, distinct);
}
