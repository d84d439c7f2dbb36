//! Transport refusals (PROBE-5): no verdict on the server's protocol.

use serde_json::{json, Value};

use mcpgen::conversation::Severity;
use mcpgen::rules::id;

use super::*;

/// A server behind a transport that refuses: every request from the `from`-th on (1-based)
/// gets `error`; before it, `server/discover` is answered and anything else gets -32601.
struct Refusing {
    from: usize,
    error: PeerError,
    sent: Vec<String>,
}

impl Peer for Refusing {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        let request: Value = serde_json::from_slice(message).unwrap();
        self.sent.push(request["method"].as_str().unwrap_or("").to_owned());
        if self.sent.len() >= self.from {
            return Err(self.error.clone());
        }
        let Some(id) = id else { return Ok(Vec::new()) };
        let answer = if request["method"] == "server/discover" {
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                "supportedVersions": [modern_revision()], "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "refusing", "version": "1"}},
                "ttlMs": 0, "cacheScope": "public"}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})
        };
        Ok(vec![serde_json::to_vec(&answer).unwrap()])
    }
}

fn refusing(from: usize, error: PeerError) -> Refusing {
    Refusing { from, error, sent: Vec::new() }
}

#[test]
fn a_refused_first_exchange_stops_the_run_without_a_finding() {
    for error in [
        PeerError::Refused { status: 403, detail: "Invalid Host header".into() },
        PeerError::Refused { status: 401, detail: "www-authenticate: Bearer".into() },
        PeerError::Unreachable("127.0.0.1:9: Connection refused (os error 111)".into()),
    ] {
        let mut peer = refusing(1, error.clone());
        let report = run(&mut peer, &ProbeOptions::default());
        assert_eq!(report.refused, Some(Refusal { check: "discover".into(), error: error.clone() }), "{error}");
        assert!(report.findings.is_empty(), "{error}: {:?}", report.findings);
        // Nothing after the refused `server/discover`: no legacy fallback, no negatives.
        assert_eq!(peer.sent, ["server/discover"], "{error}");
        assert!(report.era_summaries.is_empty() && report.eras.is_empty(), "{error}");
    }
}

#[test]
fn a_refusal_later_in_the_run_is_a_warning_never_msg_11() {
    let error = PeerError::Refused { status: 403, detail: String::new() };
    let mut peer = refusing(2, error);
    let report = run(&mut peer, &ProbeOptions::default());
    assert_eq!(report.refused, None);
    assert!(peer.sent.len() > 2, "the run goes on after a refusal: {:?}", peer.sent);
    assert!(report.findings.iter().all(|f| f.rule != Some(id::MSG_11)), "{:?}", report.findings);
    let refusals: Vec<_> = report.findings.iter().filter(|f| f.rule == Some(id::PROBE_5)).collect();
    assert!(!refusals.is_empty(), "{:?}", report.findings);
    for f in refusals {
        assert_eq!(f.level, Severity::Warning);
        assert!(f.message.starts_with("the server refused the request: HTTP 403 Forbidden"), "{}", f.message);
    }
    // Every refusal is a warning: nothing the transport did is an error.
    assert!(!report.has_errors(), "{:?}", report.findings);
}

#[test]
fn a_timeout_and_a_closed_connection_are_warnings_not_refusals() {
    // Not refusals: the server got the request and did not answer it.
    assert!(!PeerError::Closed.is_refusal());
    assert!(!PeerError::Timeout { after_ms: 5 }.is_refusal());
    assert!(!PeerError::Io("reading the response: reset".into()).is_refusal());
    // A transport that stops reading at its wait (HTTP): the probe gave up, which is no verdict
    // (over stdio the answer is still awaited, and one that never comes is MSG-11: tests_late).
    let mut peer = refusing(2, PeerError::Timeout { after_ms: 5 });
    let report = run(&mut peer, &ProbeOptions::default());
    assert_eq!(report.refused, None);
    assert!(report.findings.iter().any(|f| f.rule == Some(id::MSG_11) && f.level == Severity::Warning));
    assert!(!report.has_errors(), "{:?}", report.findings);
    // A connection closed mid-run (a server that exited): no JSON-RPC answer can come, which
    // is transport trouble, not a broken MUST: one PROBE-5 warning, the rest skipped.
    let mut peer = refusing(2, PeerError::Closed);
    let report = run(&mut peer, &ProbeOptions::default());
    assert_eq!(report.refused, None);
    assert!(!report.has_errors(), "{:?}", report.findings);
    assert_eq!(report.findings.iter().filter(|f| f.rule == Some(id::PROBE_5)).count(), 1, "{:?}", report.findings);
}
