//! Logging: modern requests opt into log notifications (`_meta` `logLevel`, LOG-1), and a
//! server sends them only having declared `logging` (LOG-5).

use super::facts::{Facts, Sender, LOG_LEVEL};
use super::finding::{rule_finding, Finding};
use super::state::Session;
use crate::json::JsonView;
use crate::rules::id;

/// A request: whether it opts into log notifications (counted while it is pending).
pub(super) fn request<'v, V: JsonView<'v>>(f: &Facts<'v, V>, s: &mut Session) -> bool {
    let log = f.modern && f.from == Sender::Client && f.log_level;
    if log {
        s.log_opted += 1;
    }
    log
}

/// A server's `notifications/message`: LOG-5, then (modern) LOG-1.
pub(super) fn message<'v, V: JsonView<'v>>(f: &Facts<'v, V>, s: &Session, out: &mut Vec<Finding>) {
    if let Some(caps) = &s.server_caps {
        if caps.get("logging").is_none() {
            out.push(rule_finding(
                id::LOG_5,
                "/method",
                "",
                "the server sends log notifications but did not declare the `logging` capability".into(),
            ));
        }
    }
    if f.modern && s.log_opted == 0 {
        out.push(rule_finding(
            id::LOG_1,
            "",
            "",
            format!("no request in progress opted into log notifications with `_meta[\"{LOG_LEVEL}\"]`"),
        ));
    }
}
