//! Cancellation: `notifications/cancelled` names a request of the sender in progress (CANCEL-2);
//! a modern server sends it only to end a listen stream (CANCEL-7).

use super::facts::{Facts, Sender};
use super::finding::{rule_finding, Finding};
use super::state::Session;
use crate::json::JsonView;
use crate::rules::id;

/// `notifications/cancelled`: marks the request cancelled (and ends a listen stream it names),
/// or reports what it cannot name.
#[inline(never)]
pub(super) fn notification<'v, V: JsonView<'v>>(f: &Facts<'v, V>, s: &mut Session, out: &mut Vec<Finding>) {
    let Some(target) = f.request_id.clone() else { return };
    if f.modern && f.from == Sender::Server {
        if s.subs.remove(&target).is_some() {
            s.ended_subs.insert(target.clone());
            if let Some(p) = s.pending[Sender::Client.ix()].get_mut(&target) {
                p.cancelled = true;
            }
        } else if !s.ended_subs.contains(&target) {
            out.push(rule_finding(
                id::CANCEL_7,
                "/params/requestId",
                "",
                format!("a server sends `notifications/cancelled` only to end a subscriptions/listen stream, and {target} names no open one"),
            ));
        }
        return;
    }
    let ix = f.from.ix();
    if let Some(p) = s.pending[ix].get_mut(&target) {
        p.cancelled = true;
        if f.from == Sender::Client && s.subs.remove(&target).is_some() {
            s.cancelled_subs.insert(target);
        }
    } else if !s.answered[ix].contains(&target) && f.exchange.is_none() {
        // (Per exchange, a cancellation on a POST of its own may come from any client: which
        // request it names is not known, so it is not judged.)
        out.push(rule_finding(
            id::CANCEL_2,
            "/params/requestId",
            "",
            format!(
                "the {} cancels request {target}, which it never issued or which is not in progress",
                f.from.as_str()
            ),
        ));
    }
}
