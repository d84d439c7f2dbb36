//! Requests whose right answer the spec fixes, judged against what
//! [`check_request`] gives for the same bytes under the
//! versions the server declared: the server's error code must be that one. The request is the
//! probe's own mistake; only the answer is judged.

use serde_json::{json, Value};

use crate::conversation::{Conversation, Level};
use crate::protocol::{check_request, ProtocolError, ServerConfig};

use super::{modern_request, Run, MODERN};

/// One negative: its name (the check is `negative/<name>`) and the request.
pub(super) struct Negative {
    pub name: &'static str,
    pub request: Value,
}

/// The negatives, with ids from `first_id` on.
pub(super) fn cases(first_id: u64) -> Vec<Negative> {
    let mut id = first_id;
    let mut next = || {
        id += 1;
        id
    };
    let mut unsupported = modern_request(next(), "tools/list", json!({}));
    unsupported["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1999-01-01");
    let mut bad_envelope = modern_request(next(), "tools/list", json!({}));
    bad_envelope["jsonrpc"] = json!("1.0");
    vec![
        Negative {
            name: "missing-meta",
            request: json!({"jsonrpc": "2.0", "id": next(), "method": "tools/list", "params": {}}),
        },
        Negative { name: "unsupported-version", request: unsupported },
        Negative { name: "unknown-method", request: modern_request(next(), "mcpgen/probe-unknown-method", json!({})) },
        Negative { name: "bad-envelope", request: bad_envelope },
    ]
}

/// Sends each negative and compares the server's error code with `check_request`'s.
pub(super) fn run(r: &mut Run<'_>, conv: &mut Conversation, supported: &[String]) {
    let versions: Vec<String> = if supported.is_empty() { vec![MODERN.to_owned()] } else { supported.to_vec() };
    let config = ServerConfig::new(versions);
    let first = r.next_id;
    let cases = cases(first);
    r.next_id += cases.len() as u64;
    for case in cases {
        let check = format!("negative/{}", case.name);
        let bytes = case.request.to_string();
        let Err(expected) = check_request(bytes.as_bytes(), &config) else {
            // Served as it is: nothing to judge (a bug of this list, caught by its unit test).
            continue;
        };
        let Some(answer) = r.exchange(&check, conv, case.request) else { continue };
        judge(r, &check, &expected, &answer);
    }
}

/// The server's `answer` against `expected`, the refusal the spec fixes: its error code must be
/// that one (else an error with the refusal's rule), and a -32022 names what the server
/// supports (VER-1).
pub(super) fn judge(r: &mut Run<'_>, check: &str, expected: &ProtocolError, answer: &Value) {
    let at = r.last_exchange();
    match answer.pointer("/error/code").and_then(Value::as_i64) {
        Some(code) if code == expected.code => {}
        Some(code) => r.finding(
            check,
            Some(expected.rule),
            Level::Error,
            "/error/code",
            format!("answered {code}; the spec's answer is {} ({})", expected.code, expected.message),
            at,
        ),
        None => r.finding(
            check,
            Some(expected.rule),
            Level::Error,
            "",
            format!("served a request the spec refuses with {} ({})", expected.code, expected.message),
            at,
        ),
    }
    // -32022 names what the server supports (VER-1).
    if expected.code == -32022 && answer.pointer("/error/data/supported").is_none_or(|s| !s.is_array()) {
        r.finding(
            check,
            Some(crate::rules::id::VER_1),
            Level::Error,
            "/error/data",
            "-32022 without `data.supported` (the versions the server supports)".into(),
            at,
        );
    }
}
