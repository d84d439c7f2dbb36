//! Ids and directions: who may send a method (MSG-10, MSG-5), a request id reused while pending
//! (ID-2), the request a response answers (ID-3, MSG-11), and the cap on requests in flight
//! (POLICY-PENDING).

use crate::json::JsonView;
use crate::methods::{Direction, MethodInfo, MethodKind};
use crate::rules::id;

use super::facts::{Facts, Sender};
use super::finding::{rule_finding, Finding};
use super::keys::IdKey;
use super::state::{Pending, Session};

/// MSG-10: a method sent by the side that does not send it.
pub(super) fn direction(from: Sender, info: &MethodInfo, out: &mut Vec<Finding>) {
    let wrong = match info.direction {
        Direction::ClientToServer => from == Sender::Server,
        Direction::ServerToClient => from == Sender::Client,
        _ => false,
    };
    if wrong {
        let (kind, by) = match info.kind {
            MethodKind::Request => ("request", from.peer().as_str()),
            MethodKind::Notification => ("notification", from.peer().as_str()),
        };
        out.push(rule_finding(
            id::MSG_10,
            "/method",
            "enum",
            format!("`{}` is a {kind} only the {by} sends; here the {} sent it", info.method, from.as_str()),
        ));
    }
}

/// ID-2: the sender's request id is still pending; the old request is forgotten.
pub(super) fn reused_id(from: Sender, id: &IdKey, s: &mut Session, out: &mut Vec<Finding>) {
    let pending = &mut s.pending[from.ix()];
    if pending.is_empty() || !pending.contains(id) {
        return;
    }
    out.push(rule_finding(
        id::ID_2,
        "/id",
        "uniqueItems",
        format!("id {id} is still pending among the {}'s requests; a new request needs a new id", from.as_str()),
    ));
    if let Some(old) = pending.remove(id) {
        s.forget(from, &old);
    }
}

/// Tracks the request as pending; POLICY-PENDING when the table was full and the oldest request
/// is forgotten.
pub(super) fn track(from: Sender, id: IdKey, entry: Pending, s: &mut Session, out: &mut Vec<Finding>) {
    let ix = from.ix();
    // `answered` is read only for an id that is not pending, so a reused id needs no removal
    // here (one table operation less per request); a request that stops being pending without
    // an answer, the evicted one, leaves it instead.
    if let Some((old_id, old)) = s.pending[ix].insert(id, entry) {
        s.answered[ix].remove(&old_id);
        s.forget(from, &old);
        out.push(rule_finding(
            id::POLICY_PENDING,
            "/id",
            "",
            format!(
                "more than {} requests of the {} are pending; the oldest (id {old_id}) is forgotten, so a late response to it reads as unknown",
                s.max_pending,
                from.as_str()
            ),
        ));
    }
}

/// The request a response answers, now answered: MSG-5 for a client response judged modern,
/// MSG-11 for a second answer, ID-3 for an id no pending request has.
pub(super) fn answered<'v, V: JsonView<'v>>(
    f: &Facts<'v, V>,
    s: &mut Session,
    out: &mut Vec<Finding>,
) -> Option<(IdKey, Pending)> {
    if f.modern && f.from == Sender::Client {
        out.push(rule_finding(
            id::MSG_5,
            "",
            "",
            "in the per-request-metadata era servers send no requests, so a client sends no responses".into(),
        ));
        return None;
    }
    let id = f.id.clone()?;
    let peer = f.from.peer();
    let Some(p) = s.pending[peer.ix()].remove(&id) else {
        let (rule, msg) = if s.answered[peer.ix()].contains(&id) {
            (
                id::MSG_11,
                format!(
                    "request {id} of the {} is already answered; a request gets exactly one response",
                    peer.as_str()
                ),
            )
        } else {
            (
                id::ID_3,
                format!("id {id} names no pending request of the {} (a notification is never answered)", peer.as_str()),
            )
        };
        out.push(rule_finding(rule, "/id", "", msg));
        return None;
    };
    s.answered[peer.ix()].insert(id.clone());
    s.forget(peer, &p);
    Some((id, p))
}
