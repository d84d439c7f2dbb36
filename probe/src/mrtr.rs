//! `mrtr/request-state-tamper` (2026-07-28, MRTR-11): "If `requestState` influences
//! authorization, resource access, or business logic, servers MUST protect its integrity ...
//! and MUST reject state that fails verification. Integrity protection MAY be omitted only
//! when tampering can cause nothing worse than request failure."
//!
//! The engine keeps the first `input_required` result of the modern session that carries a
//! `requestState` and asks for no input; at the end of the session that request is
//! retried with the state changed (its last character). An error, or another `input_required`
//! round (the server asks again: nothing was done on the changed state), passes. A `complete`
//! result is a warning, not an error: whether the state influences authorization, access or
//! business logic — the MUST's condition — cannot be seen from outside. No such result in the
//! run (the probe declares no client capabilities, and calls only the tools its policy
//! allows): skipped, with why. Replay (the same state twice) is a SHOULD with server-chosen
//! bounds (MRTR-12), not judged.

use serde_json::{json, Value};

use mcpgen::conversation::{Conversation, Severity};
use mcpgen::rules::id;

use super::Run;

/// The check's name.
pub const CHECK: &str = "mrtr/request-state-tamper";

/// An `input_required` result the probe could retry on its own.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    /// The request it answered.
    request: Value,
    /// Its `requestState`.
    state: String,
}

/// What the engine saw of `input_required` results in the modern session.
#[derive(Debug, Clone, Default)]
pub(crate) struct Mrtr {
    seen: Option<Seen>,
    /// Some carried input requests the probe cannot answer (no client capabilities).
    with_inputs: bool,
}

/// Looks at `response` to `request` (modern session): the first `input_required` result with a
/// `requestState` and no input requests, to a request that carried no state, is kept.
pub(crate) fn observe(mrtr: &mut Mrtr, request: &Value, response: &Value) {
    let Some(result) = response.get("result") else { return };
    if mrtr.seen.is_some() || result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return;
    }
    let Some(state) = result.get("requestState").and_then(Value::as_str) else { return };
    if request.pointer("/params/requestState").is_some() {
        return;
    }
    let asks = result.get("inputRequests").and_then(Value::as_object).is_some_and(|m| !m.is_empty());
    if asks {
        mrtr.with_inputs = true;
        return;
    }
    mrtr.seen = Some(Seen { request: request.clone(), state: state.to_owned() });
}

/// `state` with its last character changed (an empty state becomes `A`).
pub fn tampered(state: &str) -> String {
    let mut out: String = state.to_owned();
    match out.pop() {
        Some('A') => out.push('B'),
        Some(_) | None => out.push('A'),
    }
    out
}

/// The retry with the changed state, judged; or the check reported skipped.
pub(super) fn tamper(r: &mut Run<'_>, conv: &mut Conversation) {
    let Some(seen) = r.mrtr.seen.take() else {
        let why = if r.mrtr.with_inputs {
            "every `input_required` result with a `requestState` asked for input the probe cannot give (it declares no client capabilities)"
        } else {
            "no `input_required` result with a `requestState` came (the probe declares no client capabilities and calls only the tools its policy allows)"
        };
        return r.skip(CHECK, why.into());
    };
    let mut retry = seen.request.clone();
    retry["id"] = json!(r.id());
    let changed = tampered(&seen.state);
    retry["params"]["requestState"] = json!(changed);
    let Some(answer) = r.exchange(CHECK, conv, retry) else { return };
    let Some(result) = answer.get("result") else { return };
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return;
    }
    let method = seen.request.get("method").and_then(Value::as_str).unwrap_or("?");
    let message = format!(
        "a `{method}` retried with its `requestState` changed (the last character) was answered with a result: \
         servers MUST reject state that fails verification where the state influences authorization, resource \
         access or business logic, and MAY leave it unprotected where tampering can cause nothing worse than \
         request failure; which applies cannot be seen from outside, so this is a warning"
    );
    let at = r.last_exchange();
    r.finding(CHECK, Some(id::MRTR_11), Severity::Warning, "/result", message, at);
}
