//! Multi-round-trip requests: an `input_required` result asks only for declared client
//! capabilities (MRTR-6), and its retry answers every input request (MRTR-7), echoes the
//! `requestState` (MRTR-8), is a new request (MRTR-9) of the same method (MRTR-10).

use crate::rules::id;
use std::borrow::Cow;

use crate::json::{JsonView, Kind};
use crate::methods::MethodInfo;
use crate::protocol;

use super::facts::{Facts, Sender};
use super::finding::{ptr, rule_finding, Finding};
use super::keys::{IdKey, Text};
use super::state::{Awaiting, ClientCaps, Pending, Session, Table};

/// What a modern client request declares, kept while it is pending when its method may answer
/// `input_required`.
pub(super) fn caps_for<'v, V: JsonView<'v>>(f: &Facts<'v, V>) -> Option<ClientCaps> {
    match (f.modern, f.from, f.info) {
        (true, Sender::Client, Some(i)) if i.input_required => f.client_caps.as_ref().map(ClientCaps::of),
        _ => None,
    }
}

/// MRTR-7..10: a modern client request carrying `inputResponses` / `requestState`.
pub(super) fn retry<'v, V: JsonView<'v>>(
    f: &Facts<'v, V>,
    method: &str,
    id: &IdKey,
    s: &mut Session,
    out: &mut Vec<Finding>,
) {
    if let (true, Sender::Client, true, Some(params)) = (f.modern, f.from, f.retry, &f.params) {
        retried(params, method, id, s, out);
    }
}

#[inline(never)]
fn retried<'v, V: JsonView<'v>>(params: &V, method: &str, id: &IdKey, s: &mut Session, out: &mut Vec<Finding>) {
    let state = params.get("requestState").and_then(|s| s.as_str()).map(|s| Text::new(&s));
    let mut same_state = None;
    let mut same_method = None;
    let mut other_method = None;
    for (k, a) in s.awaiting.iter_ordered() {
        if a.method == method {
            same_method = Some(*k);
            if a.state.is_some() && a.state == state {
                same_state = Some(*k);
            }
        } else if state.is_some() && a.state == state {
            other_method = Some(a.method);
        }
    }
    let Some(key) = same_state.or(same_method) else {
        if let Some(other) = other_method {
            out.push(rule_finding(
                id::MRTR_10,
                "/params/requestState",
                "",
                format!("this `requestState` was given for a `{other}` request; it applies only to the retry of that request"),
            ));
        }
        return;
    };
    let Some(a) = s.awaiting.remove(&key) else { return };
    // By the id as sent: the retry comes on a POST of its own.
    if a.id.as_sent() == id.as_sent() {
        out.push(rule_finding(
            id::MRTR_9,
            "/id",
            "not",
            format!("the retry reuses id {id} of the request it retries; a retry is a new request with a new id"),
        ));
    }
    if a.state != state {
        let msg = match &a.state {
            Some(_) if state.is_none() => "the retry must echo the `requestState` of the `input_required` result".to_owned(),
            Some(_) => "the retry's `requestState` differs from the one the `input_required` result gave; it must be echoed exactly".to_owned(),
            None => "the `input_required` result gave no `requestState`, so the retry carries none".to_owned(),
        };
        let at = if state.is_some() { "/params/requestState" } else { "/params" };
        out.push(rule_finding(id::MRTR_8, at, "const", msg));
    }
    let responses = params.get("inputResponses").filter(|r| r.kind() == Kind::Object);
    let shown = |keys: &[&Text]| keys.iter().map(|k| k.shown()).collect::<Vec<_>>().join(", ");
    match (&a.keys, responses) {
        // Too many keys to keep: whether they are all answered is not checked.
        (Some(None), _) => {}
        (Some(Some(keys)), None) if !keys.is_empty() => out.push(rule_finding(
            id::MRTR_7,
            "/params",
            "required",
            format!(
                "the retry answers none of the input requests ({}); the client fulfils them before retrying",
                shown(&keys.iter().collect::<Vec<_>>())
            ),
        )),
        (keys, Some(r)) => {
            let empty = Vec::new();
            let keys = keys.as_ref().and_then(Option::as_ref).unwrap_or(&empty);
            let got: Vec<Cow<'_, str>> = r.entries().map(|(k, _)| k).collect();
            let missing: Vec<&Text> = keys.iter().filter(|k| !got.iter().any(|g| k.is(g))).collect();
            let extra: Vec<&str> = got.iter().filter(|g| !keys.iter().any(|k| k.is(g))).map(|g| g.as_ref()).collect();
            if !missing.is_empty() || !extra.is_empty() {
                let mut msg = String::from("`inputResponses` must be keyed like the `inputRequests` it answers");
                if !missing.is_empty() {
                    msg.push_str(&format!("; missing: {}", shown(&missing)));
                }
                if !extra.is_empty() {
                    msg.push_str(&format!("; not asked for: {}", extra.join(", ")));
                }
                out.push(rule_finding(id::MRTR_8, "/params/inputResponses", "propertyNames", msg));
            }
        }
        _ => {}
    }
}

/// An `input_required` result: MRTR-6, and the retry it asks for is awaited.
#[inline(never)]
pub(super) fn input_required<'v, V: JsonView<'v>>(
    info: &'static MethodInfo,
    p: &Pending,
    id: IdKey,
    result: &V,
    s: &mut Session,
    out: &mut Vec<Finding>,
) {
    let requests = result.get("inputRequests").filter(|r| r.kind() == Kind::Object);
    let declared = p.caps.unwrap_or_default().to_value();
    let mut keys = None;
    if let Some(reqs) = &requests {
        let mut ks = Vec::new();
        let mut budget = s.max_entry_bytes;
        let mut kept = true;
        for (k, r) in reqs.entries() {
            let needed = protocol::required_capability(r.clone());
            if let Some(missing) = protocol::missing_capabilities(&declared, &needed) {
                out.push(rule_finding(
                    id::MRTR_6,
                    ptr("/result/inputRequests", &k),
                    "",
                    format!(
                        "input request `{k}` needs the client capability {}, which the request did not declare",
                        crate::json::to_json_string(&missing)
                    ),
                ));
            }
            let cost = Text::cost(k.len(), super::keys::BLOCK);
            kept = kept
                && budget.checked_sub(cost).is_some_and(|left| {
                    budget = left;
                    true
                });
            if kept {
                ks.push(Text::new(&k));
            }
        }
        if !kept {
            let max = s.max_entry_bytes;
            s.capped(
                Table::InputKeys,
                format_args!(
                    "the keys of `inputRequests` take more than {max} bytes and are not kept, so whether the retry answers them is not checked (MRTR-7, MRTR-8)"
                ),
                out,
            );
        }
        ks.shrink_to_fit();
        keys = Some(kept.then_some(ks));
    }
    let state = result.get("requestState").and_then(|s| s.as_str()).map(|s| Text::new(&s));
    s.awaiting_seq += 1;
    if let Some((_, old)) = s.awaiting.insert(s.awaiting_seq, Awaiting { method: info.method, id, keys, state }) {
        let cap = s.awaiting.cap();
        s.capped(
            Table::Awaiting,
            format_args!(
                "more than {cap} `input_required` results await their retry; the oldest (request {} of `{}`) is forgotten, so its retry is not checked (MRTR-7..10)",
                old.id, old.method
            ),
            out,
        );
    }
}
