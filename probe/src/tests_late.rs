//! Late answers and short waits ([`super::late`]).

use std::time::Duration;

use serde_json::{json, Value};

use mcpgen::conversation::{HttpFacts, Sender, Severity};

use super::*;

/// A server whose `tools/list` answer comes late: never within the wait; with the next
/// exchange (`Next`), in the drain (`Drain`) or not at all (`Never`).
#[derive(Clone, Copy, PartialEq)]
enum When {
    Next,
    Drain,
    Never,
}

struct Slow {
    when: When,
    reads_late: bool,
    held: Vec<Vec<u8>>,
    /// The wait each request was sent with (`set_wait`), by method.
    waits: Vec<(String, Option<Duration>)>,
    wait: Option<Duration>,
}

fn slow(when: When, reads_late: bool) -> Slow {
    Slow { when, reads_late, held: Vec::new(), waits: Vec::new(), wait: None }
}

impl Peer for Slow {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        let method = request["method"].as_str().unwrap_or("").to_owned();
        self.waits.push((method.clone(), self.wait));
        let Some(id) = id else { return Ok(Vec::new()) };
        let result = |body: Value| {
            let mut body = body;
            body["resultType"] = json!("complete");
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": body})).unwrap()
        };
        let answer = match method.as_str() {
            "server/discover" => {
                result(json!({"supportedVersions": [modern_revision()], "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "slow", "version": "1"}}, "ttlMs": 0, "cacheScope": "public"}))
            }
            "tools/list" => {
                let late = result(json!({"tools": [], "ttlMs": 0, "cacheScope": "public"}));
                if self.when != When::Never {
                    self.held.push(late);
                }
                return Err(PeerError::Timeout { after_ms: 100 });
            }
            _ => serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}))
                .unwrap(),
        };
        let mut got = if self.when == When::Next { std::mem::take(&mut self.held) } else { Vec::new() };
        got.push(answer);
        Ok(got)
    }

    fn set_wait(&mut self, wait: Option<Duration>) {
        self.wait = wait;
    }

    fn reads_late(&self) -> bool {
        self.reads_late
    }

    fn drain(&mut self, _: Duration) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.held)
    }
}

/// Counts the server messages the observer saw.
#[derive(Default)]
struct Seen(Vec<String>);

impl Observer for Seen {
    fn message(&mut self, from: Sender, _: Option<&str>, _: Option<&HttpFacts>, text: &[u8]) {
        if from == Sender::Server {
            self.0.push(String::from_utf8_lossy(text).into_owned());
        }
    }
}

fn probe(peer: &mut Slow) -> (Report, Seen) {
    let mut seen = Seen::default();
    let options = ProbeOptions { era: EraChoice::Modern, ..ProbeOptions::default() };
    let report = run_with(peer, None, &options, &mut seen);
    (report, seen)
}

fn on_list(report: &Report) -> Vec<&ProbeFinding> {
    report.findings.iter().filter(|f| f.check == "inventory/tools/list").collect()
}

#[test]
fn a_late_answer_is_attached_recorded_and_a_warning_not_msg_11() {
    for when in [When::Next, When::Drain] {
        let mut peer = slow(when, true);
        let (report, seen) = probe(&mut peer);
        let list = on_list(&report);
        assert_eq!(list.len(), 1, "{list:?}");
        assert_eq!((list[0].level, list[0].rule), (Severity::Warning, None));
        assert!(
            list[0].message.contains("answered after") && list[0].message.contains("100 ms"),
            "{}",
            list[0].message
        );
        let exchange = &report.exchanges[list[0].exchange.unwrap()];
        assert_eq!(exchange.check, "inventory/tools/list");
        assert_eq!(exchange.received.len(), 1, "the late answer is its exchange's");
        assert!(exchange.received[0].contains("\"tools\""));
        assert!(seen.0.iter().any(|m| m.contains("\"tools\":[]")), "the record has the late answer");
        assert!(!report.findings.iter().any(|f| f.rule == Some(mcpgen::rules::id::ID_3)), "{:?}", report.findings);
    }
}

#[test]
fn a_request_never_answered_is_msg_11_at_the_end_of_the_run() {
    let mut peer = slow(When::Never, true);
    let (report, _) = probe(&mut peer);
    let list = on_list(&report);
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!((list[0].level, list[0].rule), (Severity::Error, Some(mcpgen::rules::id::MSG_11)));
    assert_eq!(list[0].message, "no answer within 100 ms, nor before the end of the run");
}

#[test]
fn a_transport_that_stops_reading_reports_the_timeout_at_once() {
    let mut peer = slow(When::Next, false);
    let (report, _) = probe(&mut peer);
    let list = on_list(&report);
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0].rule, Some(mcpgen::rules::id::MSG_11));
    assert!(list[0].message.starts_with("no answer within 100 ms ("), "{}", list[0].message);
}

#[test]
fn malformed_envelopes_get_the_short_wait_and_nothing_else_does() {
    let mut peer = slow(When::Next, true);
    probe(&mut peer);
    let short: Vec<&(String, Option<Duration>)> = peer.waits.iter().filter(|(_, w)| w.is_some()).collect();
    // The four malformed envelopes and the one-request batch (a method-less array).
    assert_eq!(short.len(), 5, "{:?}", peer.waits);
    assert_eq!(short.iter().filter(|(m, _)| m.is_empty()).count(), 3, "{:?}", peer.waits);
    assert!(short.iter().all(|(_, w)| *w == Some(ProbeOptions::default().short_wait)));
    // The wait is restored after each: the next request goes with the peer's own.
    let last = peer.waits.last().unwrap();
    assert_eq!(last.1, None);
}

#[test]
fn pending_requests_are_capped() {
    let mut r_peer = slow(When::Never, true);
    let mut observer = Unobserved;
    let mut r = Run::new(&mut r_peer, &mut observer, &ProbeOptions::default());
    for i in 0..late::MAX_PENDING + 3 {
        r.pend("c", json!(i), None, std::time::Instant::now(), 10, false);
    }
    assert_eq!(r.pending.len(), late::MAX_PENDING);
    assert_eq!(r.report.findings.len(), 3);
    assert!(r.report.findings[0].message.contains("given up"));
}
