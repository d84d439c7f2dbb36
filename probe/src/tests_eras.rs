//! The engine's transport and era parts against scripted peers: a session per legacy revision
//! when connections can be opened (one otherwise), the header negatives skipped where there are
//! no headers, the HTTP facts judged, the budget, and what an observer sees.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use serde_json::{json, Value};

use super::*;
use mcpgen::conversation::HttpFacts;
use mcpgen::rules::id;

const LEGACY: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// A dual-era server: discover names both legacy revisions; `initialize` agrees to the one
/// asked; every legacy session starts on `initialize` (a second one on one connection is
/// refused). With `http`, it reports HTTP facts: `status` for every answer.
struct DualEra {
    initialized: bool,
    http: Option<u16>,
    carried: Option<Carried>,
    sent: Rc<RefCell<Vec<String>>>,
}

impl DualEra {
    fn new(sent: &Rc<RefCell<Vec<String>>>) -> DualEra {
        DualEra { initialized: false, http: None, carried: None, sent: Rc::clone(sent) }
    }

    fn answer(&mut self, request: &Value) -> Value {
        let id = request["id"].clone();
        let method = request["method"].as_str().unwrap_or("");
        self.sent.borrow_mut().push(method.to_owned());
        let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "dual", "version": "1"}});
        let result = match method {
            "server/discover" => {
                json!({"resultType": "complete", "supportedVersions": ["2026-07-28", LEGACY[0], LEGACY[1], "1999-01-01"],
                "capabilities": {}, "_meta": meta, "ttlMs": 0, "cacheScope": "public"})
            }
            "initialize" if !self.initialized => {
                self.initialized = true;
                json!({"protocolVersion": request["params"]["protocolVersion"], "capabilities": {},
                    "serverInfo": {"name": "dual", "version": "1"}})
            }
            _ => return json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}),
        };
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }
}

impl Peer for DualEra {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        self.carried = self.http.map(|status| Carried {
            request_headers: vec![],
            status: Some(status),
            content_type: Some("application/json".into()),
        });
        if id.is_none() {
            return Ok(Vec::new());
        }
        Ok(vec![self.answer(&request).to_string().into_bytes()])
    }

    fn carried(&self) -> Option<&Carried> {
        self.carried.as_ref()
    }
}

struct Factory {
    sent: Rc<RefCell<Vec<String>>>,
    opened: usize,
}

impl Connect for Factory {
    fn connect(&mut self) -> Result<Box<dyn Peer>, PeerError> {
        self.opened += 1;
        Ok(Box::new(DualEra::new(&self.sent)))
    }
}

#[test]
fn with_a_connection_per_session_every_legacy_revision_is_probed() {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let mut first = DualEra::new(&sent);
    let mut more = Factory { sent: Rc::clone(&sent), opened: 0 };
    let report = run_with(&mut first, Some(&mut more), &ProbeOptions::default(), &mut Unobserved);
    assert_eq!(more.opened, 2);
    assert_eq!(report.eras, ["modern", "legacy 2025-11-25", "legacy 2025-06-18"]);
    let seen: Vec<(&str, &str)> = report.era_summaries.iter().map(|e| (e.era.as_str(), e.revision.as_str())).collect();
    assert_eq!(seen, [("modern", "2026-07-28"), ("legacy", LEGACY[0]), ("legacy", LEGACY[1])]);
    assert!(report.era_summaries[1].outcome.starts_with("accepted"), "{:?}", report.era_summaries);
    // A revision mcpgen does not know is not tried, and that is said.
    assert!(report.skipped.iter().any(|s| s.check == "legacy/1999-01-01"), "{:?}", report.skipped);
}

#[test]
fn with_one_connection_only_the_preferred_revision_is_probed_and_the_rest_reported() {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let report = run(&mut DualEra::new(&sent), &ProbeOptions::default());
    assert_eq!(report.eras, ["modern", "legacy 2025-11-25"]);
    let skipped: Vec<&str> = report.skipped.iter().map(|s| s.check.as_str()).collect();
    assert!(skipped.contains(&"legacy/2025-06-18"), "{skipped:?}");
    // And at most `max_legacy_sessions`, whatever the connections.
    let mut more = Factory { sent: Rc::clone(&sent), opened: 0 };
    let options = ProbeOptions { max_legacy_sessions: 1, ..ProbeOptions::default() };
    let report = run_with(&mut DualEra::new(&sent), Some(&mut more), &options, &mut Unobserved);
    assert_eq!(more.opened, 1);
    let past = report.skipped.iter().find(|s| s.check == "legacy/2025-06-18").expect("skipped");
    assert!(past.reason.contains("limit of 1"), "{past:?}");
}

#[test]
fn without_headers_the_header_negatives_are_skipped_not_silently() {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let report = run(&mut DualEra::new(&sent), &ProbeOptions { era: EraChoice::Modern, ..ProbeOptions::default() });
    let skipped: Vec<&str> =
        report.skipped.iter().filter(|s| s.check.starts_with("header/")).map(|s| s.check.as_str()).collect();
    assert_eq!(
        skipped,
        [
            "header/method-mismatch",
            "header/method-missing",
            "header/version-missing",
            "header/version-mismatch",
            "header/origin"
        ]
    );
    assert!(!report.checks.iter().any(|c| c.name.starts_with("header/")));
}

#[test]
fn the_http_facts_of_an_answer_are_judged() {
    // A response declared `text/html`: HTTP-6 on the message that opens each response.
    let sent = Rc::new(RefCell::new(Vec::new()));
    let peer = DualEra { http: Some(200), ..DualEra::new(&sent) };
    struct Typed(DualEra);
    impl Peer for Typed {
        fn send(&mut self, m: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
            let got = self.0.send(m, id);
            if let Some(c) = &mut self.0.carried {
                c.content_type = Some("text/html".into());
            }
            got
        }
        fn carried(&self) -> Option<&Carried> {
            self.0.carried()
        }
    }
    let report = run(&mut Typed(peer), &ProbeOptions { era: EraChoice::Modern, ..ProbeOptions::default() });
    let http_6 = report.findings.iter().filter(|f| f.rule == Some(id::HTTP_6)).count();
    // One per response (a notification, `notifications/cancelled` among the negatives, has none).
    let answered = report.exchanges.iter().filter(|e| !e.received.is_empty()).count();
    assert!(answered > 1);
    assert_eq!(http_6, answered, "{:#?}", report.findings);
}

#[test]
fn a_spent_budget_sends_nothing_more_and_says_so() {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let options = ProbeOptions { budget: Some(Duration::ZERO), ..ProbeOptions::default() };
    let report = run(&mut DualEra::new(&sent), &options);
    assert!(sent.borrow().is_empty(), "{:?}", sent.borrow());
    assert!(report.out_of_time);
    let rules: Vec<_> = report.findings.iter().map(|f| (f.check.as_str(), f.rule, f.level)).collect();
    assert_eq!(rules, [("discover", Some(id::PROBE_3), Severity::Warning)]);
    // A budget that is not spent changes nothing.
    let options = ProbeOptions { budget: Some(Duration::from_secs(60)), ..ProbeOptions::default() };
    let report = run(&mut DualEra::new(&sent), &options);
    assert!(!report.out_of_time && report.findings.iter().all(|f| f.rule != Some(id::PROBE_3)));
}

#[derive(Default)]
struct Seen {
    steps: Vec<String>,
    messages: Vec<(Sender, Option<String>, bool)>,
}

impl Observer for Seen {
    fn step(&mut self, check: &str) {
        self.steps.push(check.to_owned());
    }
    fn message(&mut self, from: Sender, conversation: Option<&str>, http: Option<&HttpFacts>, _: &[u8]) {
        self.messages.push((from, conversation.map(str::to_owned), http.is_some()));
    }
}

#[test]
fn an_observer_sees_each_step_once_and_each_message_with_its_conversation() {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let mut seen = Seen::default();
    let report = run_with(&mut DualEra::new(&sent), None, &ProbeOptions::default(), &mut seen);
    let mut unique = seen.steps.clone();
    unique.dedup();
    assert_eq!(unique, seen.steps);
    assert_eq!(seen.steps[0], "discover");
    let exchanges = report.exchanges.len();
    // Every request and its answer; a notification (`notifications/initialized`, the
    // cancellation of an unknown request) has none.
    let notifications = report.exchanges.iter().filter(|e| e.sent.is_object() && e.sent.get("id").is_none()).count();
    assert_eq!(notifications, 2);
    assert_eq!(seen.messages.len(), 2 * exchanges - notifications);
    let legacy = seen.messages.iter().filter(|m| m.1.as_deref() == Some("legacy/2025-11-25")).count();
    assert_eq!(
        legacy, 7,
        "initialize, its answer, notifications/initialized, id/string and batch/one-request with theirs"
    );
    assert!(seen.messages.iter().all(|m| !m.2), "no HTTP facts on a transport without them");
}

/// The headers of one exchange and the body's `_meta` protocol version.
type Sent = (Vec<(String, String)>, Value);

/// A server over a transport with headers, answering the header negatives as it reads them:
/// a request without `MCP-Protocol-Version` as a 2025-03-26 request outside a session
/// (-32600), a header that differs from the body's version with -32020; everything else as
/// [`DualEra`]. With `legacy: false` it refuses `initialize` (a modern-only server).
struct Headed {
    inner: DualEra,
    legacy: bool,
    carried: Option<Carried>,
    /// The headers and body version of every exchange, as sent.
    seen: Rc<RefCell<Vec<Sent>>>,
}

impl Headed {
    fn exchange(&mut self, message: &[u8], id: Option<&Value>, edits: &[HeaderEdit]) -> Vec<Vec<u8>> {
        let request: Value = serde_json::from_slice(message).unwrap();
        let version = request.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").cloned();
        let mut headers: Vec<(String, String)> = Vec::new();
        if let Some(v) = version.as_ref().and_then(Value::as_str) {
            headers.push(("MCP-Protocol-Version".into(), v.into()));
        }
        if let Some(m) = request["method"].as_str() {
            headers.push(("Mcp-Method".into(), m.into()));
        }
        for edit in edits {
            match edit {
                HeaderEdit::Set(k, v) => {
                    headers.retain(|(h, _)| !h.eq_ignore_ascii_case(k));
                    headers.push((k.clone(), v.clone()));
                }
                HeaderEdit::Remove(k) => headers.retain(|(h, _)| !h.eq_ignore_ascii_case(k)),
            }
        }
        self.seen.borrow_mut().push((headers.clone(), version.clone().unwrap_or(Value::Null)));
        let status = |status: u16| {
            Some(Carried {
                request_headers: headers.clone(),
                status: Some(status),
                content_type: Some("application/json".into()),
            })
        };
        self.carried = status(202);
        let Some(id) = id else { return Vec::new() };
        let header = headers.iter().find(|(h, _)| h == "MCP-Protocol-Version").map(|(_, v)| json!(v));
        let error =
            |code: i64, message: &str| json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        let answer = if version.is_some() && header.is_none() {
            error(-32600, "Bad Request: Missing session ID")
        } else if version.is_some() && header != version {
            error(-32020, "Header mismatch")
        } else if request["method"] == "initialize" && !self.legacy {
            error(-32601, "Method not found")
        } else {
            self.inner.answer(&request)
        };
        let code = answer.pointer("/error/code").and_then(Value::as_i64);
        self.carried = status(if matches!(code, Some(-32020 | -32600)) { 400 } else { 200 });
        vec![answer.to_string().into_bytes()]
    }
}

impl Peer for Headed {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        Ok(self.exchange(message, id, &[]))
    }
    fn send_edited(
        &mut self,
        message: &[u8],
        id: Option<&Value>,
        edits: &[HeaderEdit],
    ) -> Result<Vec<Vec<u8>>, PeerError> {
        Ok(self.exchange(message, id, edits))
    }
    fn has_headers(&self) -> bool {
        true
    }
    fn carried(&self) -> Option<&Carried> {
        self.carried.as_ref()
    }
}

fn headed(legacy: bool, era: EraChoice) -> (Report, Vec<Sent>) {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut peer = Headed { inner: DualEra::new(&sent), legacy, carried: None, seen: Rc::clone(&seen) };
    let report = run(&mut peer, &ProbeOptions { era, ..ProbeOptions::default() });
    let seen = seen.borrow().clone();
    (report, seen)
}

#[test]
fn a_request_without_the_version_header_is_judged_only_when_the_server_serves_no_legacy_client() {
    let on = |r: &Report| -> Vec<(String, Option<&'static str>)> {
        r.findings.iter().filter(|f| f.check == "header/version-missing").map(|f| (f.check.clone(), f.rule)).collect()
    };
    // Dual-era: it MAY read the request as 2025-03-26 (a legacy request outside a session is
    // refused -32600): not judged, and the report says why.
    let (dual, _) = headed(true, EraChoice::Both);
    assert_eq!(on(&dual), vec![], "{:#?}", dual.findings);
    let skip = dual.skipped.iter().find(|s| s.check == "header/version-missing").expect("skipped");
    assert!(skip.reason.contains("MAY treat a request without the header as 2025-03-26"), "{skip:?}");
    assert!(skip.reason.contains("also serves the legacy era"), "{skip:?}");
    assert!(dual
        .outcomes()
        .iter()
        .any(|o| o.name == "header/version-missing" && matches!(o.status, Status::Skipped(_))));
    // Legacy not probed: not known either.
    let (modern_only_probe, _) = headed(true, EraChoice::Modern);
    assert_eq!(on(&modern_only_probe), vec![]);
    assert!(modern_only_probe
        .skipped
        .iter()
        .any(|s| s.check == "header/version-missing" && s.reason.contains("legacy era was not probed")));
    // A server that refuses `initialize` supports no such client: it MUST answer -32020.
    let (modern_only, _) = headed(false, EraChoice::Both);
    assert_eq!(
        on(&modern_only),
        vec![("header/version-missing".to_owned(), Some(id::ERA_10))],
        "{:#?}",
        modern_only.findings
    );
    let f = modern_only.findings.iter().find(|f| f.check == "header/version-missing").unwrap();
    assert_eq!(f.level, Severity::Error);
    let seen = modern_only.era_summaries.iter().find(|s| s.era == "modern").unwrap();
    assert!(seen.errors >= 1);
}

#[test]
fn the_version_mismatch_names_the_modern_revision_in_the_header_and_another_in_the_body() {
    let (report, seen) = headed(true, EraChoice::Both);
    // The mismatch exchange: header 2026-07-28, body 2025-11-25 — never a legacy version in the
    // header, which a dual-era server could rightly read as a legacy request.
    let mismatch = seen
        .iter()
        .find(|(h, v)| *v == json!("2025-11-25") && h.iter().any(|(k, _)| k == "MCP-Protocol-Version"))
        .expect("a request whose body names 2025-11-25");
    assert!(mismatch.0.contains(&("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned())), "{mismatch:?}");
    // Answered -32020: nothing to report on it.
    assert!(!report.findings.iter().any(|f| f.check == "header/version-mismatch"), "{:#?}", report.findings);
}
