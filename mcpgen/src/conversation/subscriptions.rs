//! Subscriptions: modern `subscriptions/listen` streams (acknowledged once, first: SUB-2; the
//! acknowledgment within the filter: SUB-3; only what the filter asked for: SUB-1; on an open
//! stream: SUB-4; never a non-stream notification on one: SUB-11) and legacy
//! `resources/subscribe` (updates only for subscribed URIs: SUB-12).

use crate::json::{JsonView, Kind, Value};
use crate::rules::id;

use super::facts::{Facts, Sender};
use super::finding::{ptr, rule_finding, Finding};
use super::keys::IdKey;
use super::keys::Text;
use super::state::{fits, Session, Subscription, Table};

const SUBSCRIPTION_ID_POINTER: &str = "/params/_meta/io.modelcontextprotocol~1subscriptionId";

/// A client request: a modern listen opens a stream; a legacy `resources/subscribe` /
/// `unsubscribe` adds or removes a URI.
pub(super) fn request<'v, V: JsonView<'v>>(
    f: &Facts<'v, V>,
    method: &str,
    id: &IdKey,
    s: &mut Session,
    out: &mut Vec<Finding>,
) {
    if f.from == Sender::Client
        && matches!(method, "subscriptions/listen" | "resources/subscribe" | "resources/unsubscribe")
    {
        subscribing(f, method, id, s, out);
    }
}

#[inline(never)]
fn subscribing<'v, V: JsonView<'v>>(
    f: &Facts<'v, V>,
    method: &str,
    id: &IdKey,
    s: &mut Session,
    out: &mut Vec<Finding>,
) {
    match method {
        "subscriptions/listen" if f.modern => {
            let asked = f.param("notifications");
            let mut budget = s.max_entry_bytes;
            let unchecked = asked.as_ref().is_some_and(|x| !fits(x, &mut budget));
            let filter = if unchecked { None } else { asked.map(|x| x.to_value()) };
            if unchecked {
                let max = s.max_entry_bytes;
                s.capped(
                    Table::Filter,
                    format_args!(
                        "the filter of listen stream {id} takes more than {max} bytes and is not kept, so SUB-1 and SUB-3 are not checked on that stream"
                    ),
                    out,
                );
            }
            s.ended_subs.remove(id);
            s.cancelled_subs.remove(id);
            if let Some((old, _)) = s.subs.insert(id.clone(), Subscription { acked: false, filter, unchecked }) {
                // Messages on the forgotten stream are accepted unchecked, like those crossing a
                // cancellation.
                s.cancelled_subs.insert(old.clone());
                let cap = s.subs.cap();
                s.capped(
                    Table::ListenStreams,
                    format_args!(
                        "more than {cap} listen streams are open; the oldest ({old}) is forgotten, so messages on it are no longer checked"
                    ),
                    out,
                );
            }
        }
        "resources/subscribe" | "resources/unsubscribe" if !f.modern => {
            if let Some(uri) = f.uri() {
                let uri = Text::new(&uri);
                if method == "resources/unsubscribe" {
                    s.resource_subs.remove(&uri);
                } else if let Some((old, ())) = s.resource_subs.insert(uri, ()) {
                    let cap = s.resource_subs.cap();
                    s.capped(
                        Table::ResourceSubscriptions,
                        format_args!(
                            "more than {cap} resources are subscribed; the oldest (`{}`) is forgotten, so an update for it reads as not subscribed (SUB-12)",
                            old.shown()
                        ),
                        out,
                    );
                }
            }
        }
        _ => {}
    }
}

/// SUB-11: a notification that never travels on a stream (progress, a server's log message)
/// carries a subscription id.
pub(super) fn off_stream<'v, V: JsonView<'v>>(f: &Facts<'v, V>, method: &str, out: &mut Vec<Finding>) {
    let never_on_a_stream = match method {
        "notifications/progress" => true,
        "notifications/message" => f.from == Sender::Server,
        _ => false,
    };
    if never_on_a_stream && f.subscription_id.is_some() {
        out.push(rule_finding(
            id::SUB_11,
            SUBSCRIPTION_ID_POINTER,
            "not",
            format!("`{method}` never travels on a subscriptions/listen stream, yet it carries a subscription id"),
        ));
    }
}

/// SUB-12, legacy: `notifications/resources/updated` for a URI that was not subscribed.
#[inline(never)]
pub(super) fn legacy_resource_updated<'v, V: JsonView<'v>>(f: &Facts<'v, V>, s: &Session, out: &mut Vec<Finding>) {
    let Some(uri) = f.uri() else { return };
    if !s.resource_subs.contains(&Text::new(&uri)) {
        out.push(rule_finding(
            id::SUB_12,
            "/params/uri",
            "",
            format!("`{uri}` was not subscribed with resources/subscribe"),
        ));
    }
}

/// SUB-1..4 for a server notification tagged with a subscription id.
#[inline(never)]
pub(super) fn stream_message<'v, V: JsonView<'v>>(
    f: &Facts<'v, V>,
    method: &str,
    sid: &IdKey,
    s: &mut Session,
    out: &mut Vec<Finding>,
) {
    let Some(sub) = s.subs.get_mut(sid) else {
        not_open(sid, s, out);
        return;
    };
    if method == "notifications/subscriptions/acknowledged" {
        acknowledgment(f, sid, sub, out);
        return;
    }
    if !sub.acked {
        out.push(rule_finding(
            id::SUB_2,
            "/method",
            "",
            format!("`{method}` travels on subscription {sid} before its acknowledgment"),
        ));
    }
    if !sub.unchecked && !filter_asked_for(f, method, sub.filter.as_ref()) {
        out.push(rule_finding(
            id::SUB_1,
            "/method",
            "",
            format!("subscription {sid} did not ask for `{method}` in its filter"),
        ));
    }
}

/// SUB-4: a message on a stream that is not open; one the server ended, or an unknown one (a
/// stream forgotten or crossing a cancellation is accepted unchecked).
fn not_open(sid: &IdKey, s: &Session, out: &mut Vec<Finding>) {
    if s.ended_subs.contains(sid) {
        out.push(rule_finding(
            id::SUB_4,
            SUBSCRIPTION_ID_POINTER,
            "",
            format!("the server already ended subscription {sid}; nothing more travels on it"),
        ));
    } else if !s.cancelled_subs.contains(sid) {
        out.push(rule_finding(
            id::SUB_4,
            SUBSCRIPTION_ID_POINTER,
            "",
            format!("{sid} is not the id of an open subscriptions/listen request"),
        ));
    }
}

/// The stream's acknowledgment: once, first (SUB-2), granting no more than its listen request
/// asked for (SUB-3, where the filter was kept).
fn acknowledgment<'v, V: JsonView<'v>>(f: &Facts<'v, V>, sid: &IdKey, sub: &mut Subscription, out: &mut Vec<Finding>) {
    if sub.acked {
        out.push(rule_finding(
            id::SUB_2,
            "/method",
            "",
            format!("subscription {sid} is already acknowledged; the acknowledgment comes once, first"),
        ));
        return;
    }
    sub.acked = true;
    let Some(ack) = f.param("notifications").filter(|_| !sub.unchecked) else { return };
    // SUB-3: the acknowledged filter is a subset of the requested one.
    let requested = sub.filter.as_ref();
    for (k, x) in ack.entries() {
        let asked = requested.and_then(|r| r.get(&k));
        let ok = match x.kind() {
            Kind::Bool => x.as_bool() != Some(true) || asked.and_then(|x| x.as_bool()) == Some(true),
            Kind::Array => x.items().all(|u| {
                let u = u.as_str();
                asked.and_then(Value::as_array).is_some_and(|a| a.iter().any(|y| y.as_str() == u.as_deref()))
            }),
            _ => true,
        };
        if !ok {
            out.push(rule_finding(
                id::SUB_3,
                ptr("/params/notifications", &k),
                "",
                format!("the acknowledgment grants `{k}` beyond what the listen request asked for"),
            ));
        }
    }
}

/// Whether the stream's filter (`requested`) asked for `method` (SUB-1): a list-changed flag,
/// or the updated resource's URI among `resourceSubscriptions`; other notifications always.
#[inline]
fn filter_asked_for<'v, V: JsonView<'v>>(f: &Facts<'v, V>, method: &str, requested: Option<&Value>) -> bool {
    let flag = |k: &str| requested.and_then(|r| r.get(k)).and_then(|x| x.as_bool()) == Some(true);
    match method {
        "notifications/tools/list_changed" => flag("toolsListChanged"),
        "notifications/prompts/list_changed" => flag("promptsListChanged"),
        "notifications/resources/list_changed" => flag("resourcesListChanged"),
        "notifications/resources/updated" => {
            let uri = f.uri();
            let list = requested.and_then(|r| r.get("resourceSubscriptions")).and_then(Value::as_array);
            match (uri, list) {
                (Some(u), Some(l)) => l.iter().any(|x| x.as_str() == Some(u.as_ref())),
                (None, _) => true,
                _ => false,
            }
        }
        _ => true,
    }
}

/// A listen request answered with an error: the stream is over.
#[inline(never)]
pub(super) fn ended_by_error(id: IdKey, s: &mut Session) {
    if s.subs.remove(&id).is_some() {
        s.ended_subs.insert(id);
    }
}

/// The result that closes a listen stream: it carries the stream's id (SUB-4) and comes after
/// the acknowledgment (SUB-2).
#[inline(never)]
pub(super) fn closing_result<'v, V: JsonView<'v>>(id: IdKey, result: &V, s: &mut Session, out: &mut Vec<Finding>) {
    let echoed = result.get("_meta").and_then(|m| m.get(super::facts::SUBSCRIPTION_ID)).and_then(|x| IdKey::of(&x));
    if echoed.as_ref().is_some_and(|e| e != id.as_sent()) {
        out.push(rule_finding(
            id::SUB_4,
            "/result/_meta/io.modelcontextprotocol~1subscriptionId",
            "const",
            format!(
                "the closing result of subscription {id} must carry its id, not {}",
                echoed.map(|e| e.to_string()).unwrap_or_default()
            ),
        ));
    }
    if let Some(sub) = s.subs.remove(&id) {
        if !sub.acked {
            out.push(rule_finding(
                id::SUB_2,
                "/result",
                "",
                format!("subscription {id} ends before its acknowledgment"),
            ));
        }
        s.ended_subs.insert(id);
    }
}
