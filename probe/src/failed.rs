//! What a failed exchange means ([`Run::failed`]): the peer's error sorted into a transport
//! refusal or a lost connection (PROBE-5: no protocol verdict; the first exchange ends the run
//! as "cannot probe"), the probe's own limit (POLICY-SIZE: not judged), a wait the probe gave up
//! (a warning: the spec sets no time; over stdio the request is still awaited, [`super::late`]),
//! or no answer (MSG-11; ERR-1 for a malformed envelope).

use std::time::Instant;

use mcpgen::conversation::Severity;
use serde_json::Value;

use super::{PeerError, Refusal, Run};

/// The exchange that failed, as [`Run::exchange_edited`] sent it.
pub(super) struct Sent {
    /// The request's id (`None`: a notification).
    pub id: Option<Value>,
    /// Its place in the report's exchanges, when kept.
    pub index: Option<usize>,
    pub at: Instant,
    /// A malformed envelope: no answer is ERR-1, not MSG-11.
    pub invalid: bool,
    /// The check judges the transport's error itself ([`Run::kept`]).
    pub keep: bool,
}

impl Run<'_> {
    /// Reports what the peer's error `e` means for `check` (see the module documentation).
    pub(super) fn failed(&mut self, check: &str, e: PeerError, sent: Sent) {
        if sent.keep {
            self.kept = Some(e);
            return;
        }
        if e.is_refusal() || (e.is_lost() && !self.heard) {
            self.refused(check, e, sent.index);
            return;
        }
        if e.is_lost() {
            // The server exited or closed its output mid-run: transport trouble, not a
            // protocol verdict. Said once; the checks that would follow are skipped.
            let message = format!(
                "{e} before answering; no JSON-RPC answer can come on this connection, so this check and \
                 the ones after it on the connection are not judged (a server that exits mid-session is \
                 worth a look: its stderr says why)"
            );
            self.finding(check, Some(mcpgen::rules::id::PROBE_5), Severity::Warning, "", message, sent.index);
            self.lost = Some(format!("the server closed the connection at `{check}`"));
            return;
        }
        if let PeerError::TooLarge { .. } | PeerError::TooMany { .. } = e {
            // The probe's own limit, no verdict on the server: a spec sets no size.
            let message = format!(
                "not judged: {e} — a limit of the probe's (--max-body-bytes, --max-events, --max-messages), \
                 not of the spec"
            );
            self.finding(check, Some(mcpgen::rules::id::POLICY_SIZE), Severity::Warning, "", message, sent.index);
            if matches!(e, PeerError::TooLarge { .. }) && self.peer().reads_late() {
                // Over stdio the reading stopped inside the line: nothing more can be read.
                self.lost = Some(format!("reading stopped at a line above the limit at `{check}`"));
            }
            return;
        }
        let Some(id) = sent.id else { return };
        let message = match e {
            PeerError::Timeout { after_ms } if self.peer().reads_late() => {
                self.pend(check, id, sent.index, sent.at, after_ms, sent.invalid);
                return;
            }
            PeerError::Timeout { after_ms } => {
                // The probe stopped waiting, which is no verdict: the spec sets no time.
                let rule = if sent.invalid { mcpgen::rules::id::ERR_1 } else { mcpgen::rules::id::MSG_11 };
                let message = format!(
                    "no answer within {after_ms} ms (this transport stops reading an answer at its wait; a \
                     warning: the spec sets no time, raise --timeout for a slow server)"
                );
                self.finding(check, Some(rule), Severity::Warning, "", message, sent.index);
                return;
            }
            e => format!("no answer: {e}"),
        };
        no_answer(self, check, message, sent.index, sent.invalid);
    }

    /// The transport refused `check`'s exchange or could not carry it (PROBE-5). Before the
    /// server was heard at all, the run cannot probe anything: it stops ([`Report::refused`]).
    /// Later, a warning: a refusal is no JSON-RPC answer, so the check is not judged, and the
    /// statuses a server may refuse with are the transport's to allow (403 for an `Origin` it
    /// refuses, 401/403 for authorization) — never MSG-11.
    pub(super) fn refused(&mut self, check: &str, error: PeerError, exchange: Option<usize>) {
        if !self.heard {
            self.report.refused = Some(Refusal { check: check.to_owned(), error });
            return;
        }
        let message = format!(
            "{error}; a transport refusal is no JSON-RPC answer, so this check is not judged (Streamable HTTP \
             lets a server refuse with 403 a request whose Origin it does not accept, and with 401 or 403 one \
             it does not authorize)"
        );
        self.finding(check, Some(mcpgen::rules::id::PROBE_5), Severity::Warning, "", message, exchange);
    }
}

/// A request never answered: MSG-11 (JSON-RPC 2.0: a call MUST get a response); for a message
/// that is no valid request (`invalid`) a warning on ERR-1 instead, since whether such a
/// message is a "call" JSON-RPC must answer is arguable.
pub(super) fn no_answer(r: &mut Run<'_>, check: &str, message: String, exchange: Option<usize>, invalid: bool) {
    if invalid {
        let message = format!(
            "{message} to a message that is not a valid request (JSON-RPC 2.0 answers it with -32600 or -32700)"
        );
        r.violation(check, mcpgen::rules::id::ERR_1, "", message, Some("error code -32600 or -32700".into()), exchange);
    } else {
        r.violation(check, mcpgen::rules::id::MSG_11, "", message, None, exchange);
    }
}
