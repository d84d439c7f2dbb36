//! Requests the probe gets wrong on purpose, each answer judged by the oracle
//! ([`super::oracle`]): the answers the clause of the revision in play accepts, decided from the
//! spec text (never from what mcpgen's own `check_request` would answer), at that clause's
//! level. The request is the probe's own mistake; only the answer is judged.
//!
//! The list (`cases`): a request without `_meta` (META-6), an unsupported version (VER-1),
//! an unknown method and methods 2026-07-28 removed (`ping`, `logging/setLevel`,
//! `resources/subscribe`: MSG-9, a dual-era server may still serve them), and malformed
//! envelopes (`jsonrpc` not `"2.0"`, `params` not an object, no `method`, a `method` that is no
//! string: ERR-1, each with every standard code JSON-RPC 2.0 allows). Then (`run`):
//! - requests for capabilities the server did not declare: the list method of each undeclared
//!   feature (a result is the conversation checker's TOOL-1, PROMPT-1 or CAP-2), and
//!   `completion/complete` without `completions`, which should get -32601 (COMP-2);
//! - `notifications/cancelled` for a request id never sent: ignored, never answered (a
//!   response to it breaks MSG-12, JSON-RPC 2.0's "The Server MUST NOT reply to a
//!   Notification"; CANCEL-5).
//!
//! Not sent: two requests with the same id in flight. A [`super::Peer`] carries one request
//! at a time, and the spec fixes no answer to the second (ID-2 is the sender's duty).

use serde_json::{json, Value};

use mcpgen::conversation::Conversation;

use super::{modern_request, Run};

/// One negative: its name (the check is `negative/<name>`) and the request.
pub(super) struct Negative {
    pub name: &'static str,
    pub request: Value,
}

/// Negatives without a readable `method`: the conversation checker cannot pair the answer
/// with them, so its "response to an id never sent" (ID-3) on that answer is the probe's own
/// doing, not the server's, and is not reported.
const UNPAIRED: [&str; 2] = ["missing-method", "method-not-string"];

/// Negatives whose envelope is malformed: a server answers them at once or drops them.
const MALFORMED: [&str; 4] = ["bad-envelope", "params-not-object", "missing-method", "method-not-string"];

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
    let mut params_array = modern_request(next(), "tools/list", json!({}));
    params_array["params"] = json!([]);
    let mut no_method = modern_request(next(), "tools/list", json!({}));
    no_method.as_object_mut().map(|o| o.remove("method"));
    let mut method_number = modern_request(next(), "tools/list", json!({}));
    method_number["method"] = json!(42);
    vec![
        Negative {
            name: "missing-meta",
            request: json!({"jsonrpc": "2.0", "id": next(), "method": "tools/list", "params": {}}),
        },
        Negative { name: "unsupported-version", request: unsupported },
        Negative { name: "unknown-method", request: modern_request(next(), "mcpgen/probe-unknown-method", json!({})) },
        Negative { name: "removed-ping", request: modern_request(next(), "ping", json!({})) },
        Negative {
            name: "removed-logging-set-level",
            request: modern_request(next(), "logging/setLevel", json!({"level": "info"})),
        },
        Negative {
            name: "removed-resources-subscribe",
            request: modern_request(next(), "resources/subscribe", json!({"uri": super::resources::UNKNOWN_URI})),
        },
        Negative { name: "bad-envelope", request: bad_envelope },
        Negative { name: "params-not-object", request: params_array },
        Negative { name: "missing-method", request: no_method },
        Negative { name: "method-not-string", request: method_number },
    ]
}

/// Sends each negative and judges the answer by the oracle ([`super::oracle`]): the answers
/// the clause of the revision in play accepts, at that clause's level.
pub(super) fn run(r: &mut Run<'_>, conv: &mut Conversation, caps: &Value) {
    let first = r.next_id;
    let cases = cases(first);
    r.next_id += cases.len() as u64;
    for case in cases {
        let check = format!("negative/{}", case.name);
        let kept = r.report.findings.len();
        // A malformed envelope is answered at once or never: a short wait (ProbeOptions::short_wait),
        // and no answer is not MSG-11.
        let malformed = MALFORMED.contains(&case.name);
        r.short = malformed;
        r.invalid = malformed;
        let what = what(&case.request);
        let answer = r.exchange(&check, conv, case.request);
        if UNPAIRED.contains(&case.name) {
            let mut i = kept;
            while i < r.report.findings.len() {
                if r.report.findings[i].rule == Some(mcpgen::rules::id::ID_3) {
                    r.report.findings.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        let Some(answer) = answer else { continue };
        r.judge(&check, &answer, &what);
        version_data(r, &check, &answer);
    }
    undeclared(r, conv, caps);
    cancel_unknown(r, conv);
}

/// The request, in words, for a finding's message.
fn what(request: &Value) -> String {
    match request.get("method").and_then(Value::as_str) {
        Some(m) => format!("`{m}`"),
        None => "a request without a string `method`".into(),
    }
}

/// -32022 names what the server supports (VER-1).
pub(super) fn version_data(r: &mut Run<'_>, check: &str, answer: &Value) {
    if answer.pointer("/error/code").and_then(Value::as_i64) != Some(-32022) {
        return;
    }
    if answer.pointer("/error/data/supported").is_none_or(|s| !s.is_array()) {
        let at = r.last_exchange();
        r.violation(
            check,
            mcpgen::rules::id::VER_1,
            "/error/data",
            "-32022 without `data.supported` (the versions the server supports)".into(),
            None,
            at,
        );
    }
}

/// The list method of each feature the server did not declare (any error is right; a result
/// is the checker's TOOL-1, PROMPT-1 or CAP-2), and `completion/complete` without
/// `completions` (COMP-2).
fn undeclared(r: &mut Run<'_>, conv: &mut Conversation, caps: &Value) {
    for (feature, method) in [("tools", "tools/list"), ("prompts", "prompts/list"), ("resources", "resources/list")] {
        if caps.get(feature).is_none() {
            let id = r.id();
            r.exchange(&format!("undeclared/{feature}"), conv, modern_request(id, method, json!({})));
        }
    }
    if caps.get("completions").is_some() {
        return;
    }
    let check = "undeclared/completions";
    let id = r.id();
    let params = json!({"ref": {"type": "ref/prompt", "name": "mcpgen-probe"}, "argument": {"name": "a", "value": ""}});
    let Some(answer) = r.exchange(check, conv, modern_request(id, "completion/complete", params)) else { return };
    // A result is the checker's CAP-2: only an error's code is the oracle's.
    if answer.get("error").is_some() {
        r.judge(check, &answer, "`completion/complete` to a server without `completions`");
    }
}

/// The id the cancellation names: never sent by the probe.
pub const NEVER_SENT: &str = "mcpgen-probe-never-sent";

/// `notifications/cancelled` for [`NEVER_SENT`]: whatever response comes back breaks MSG-12.
fn cancel_unknown(r: &mut Run<'_>, conv: &mut Conversation) {
    let check = "negative/cancel-unknown";
    let mut note = modern_request(0, "notifications/cancelled", json!({"requestId": NEVER_SENT, "reason": "probe"}));
    note.as_object_mut().map(|o| o.remove("id"));
    let kept = r.report.exchanges.len();
    r.exchange(check, conv, note);
    let Some(exchange) = r.report.exchanges.get(kept) else { return };
    let answered = exchange.received.iter().any(|m| {
        serde_json::from_str::<Value>(m)
            .is_ok_and(|v| v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some()))
    });
    if answered {
        r.violation(
            check,
            mcpgen::rules::id::MSG_12,
            "",
            format!("answered `notifications/cancelled` for `{NEVER_SENT}`, a request never sent; a notification is never answered (CANCEL-5: ignore it)"),
            Some(super::oracle::Accepts::Nothing.describe()),
            Some(kept),
        );
    }
}
