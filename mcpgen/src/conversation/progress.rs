//! Progress: a token unique among the sender's active requests (PROG-1), progress only for a
//! request in progress (PROG-2), and growing (PROG-3).

use super::facts::Facts;
use super::finding::{rule_finding, Finding};
use super::state::{Progress, Session, Table};
use crate::json::JsonView;
use crate::rules::id;

/// A request carrying `_meta.progressToken`: PROG-1, and the token is active from now on.
pub(super) fn request<'v, V: JsonView<'v>>(f: &Facts<'v, V>, s: &mut Session, out: &mut Vec<Finding>) {
    let Some(tok) = &f.progress_token else { return };
    let active = &mut s.progress[f.from.ix()];
    if !active.is_empty() && active.contains(tok) {
        out.push(rule_finding(
            id::PROG_1,
            "/params/_meta/progressToken",
            "uniqueItems",
            format!("progress token {tok} is already used by another active request of the {}", f.from.as_str()),
        ));
    }
    if let Some((old, _)) = active.insert(tok.clone(), Progress { last: None }) {
        let cap = active.cap();
        s.capped(
            Table::Progress,
            format_args!(
                "more than {cap} progress tokens of the {} are active; the oldest ({old}) is forgotten, so progress for it reads as unknown",
                f.from.as_str()
            ),
            out,
        );
    }
}

/// `notifications/progress`: PROG-2, PROG-3.
pub(super) fn notification<'v, V: JsonView<'v>>(f: &Facts<'v, V>, s: &mut Session, out: &mut Vec<Finding>) {
    let Some(tok) = &f.progress_token else { return };
    let value = f.progress;
    let peer = f.from.peer();
    match s.progress[peer.ix()].get_mut(tok) {
        None => out.push(rule_finding(
            id::PROG_2,
            "/params/progressToken",
            "",
            format!("progress token {tok} belongs to no request of the {} in progress", peer.as_str()),
        )),
        Some(p) => {
            if let (Some(last), Some(now)) = (p.last, value) {
                if now <= last {
                    out.push(rule_finding(
                        id::PROG_3,
                        "/params/progress",
                        "exclusiveMinimum",
                        format!("progress {now} does not grow past the previous {last} for token {tok}"),
                    ));
                }
            }
            if value.is_some() {
                p.last = value;
            }
        }
    }
}
