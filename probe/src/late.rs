//! Late answers: time is not a protocol verdict. A request whose answer did not come within
//! the peer's wait is *pending*, not failed; on a peer that keeps reading
//! ([`Peer::reads_late`](crate::Peer::reads_late), stdio) its answer may arrive with a later
//! exchange or in the drain at the end of the run (`finish`): it is then attached to its own
//! exchange, fed to the conversation checker, recorded, and reported as a warning naming the
//! delay. Only a request still unanswered at the end of the run is MSG-11 ("no answer within
//! N ms, nor before the end of the run").
//!
//! Bounded: at most [`MAX_PENDING`] requests wait at once (past it the oldest is given up:
//! MSG-11 at once), and the drain lasts at most [`crate::ProbeOptions::drain`] and never past
//! the run's budget.

use std::time::{Duration, Instant};

use serde_json::Value;

use mcpgen::conversation::{Conversation, Sender, Severity};

use super::Run;

/// Requests waiting for a late answer at most.
pub const MAX_PENDING: usize = 256;

/// A request whose answer did not come in time.
pub(crate) struct Pending {
    id: Value,
    check: String,
    exchange: Option<usize>,
    /// The conversation it belongs to (as [`Run::label`]).
    label: Option<String>,
    sent: Instant,
    waited_ms: u64,
    /// The request was no valid request: unanswered is a warning ([`super::no_answer`]).
    invalid: bool,
    /// The revision in play when it was sent.
    rev: Option<mcpgen::Revision>,
}

impl Run<'_> {
    /// `id` (sent at `sent` for `check`) had no answer within `waited_ms`: pending.
    pub(crate) fn pend(
        &mut self,
        check: &str,
        id: Value,
        exchange: Option<usize>,
        sent: Instant,
        waited_ms: u64,
        invalid: bool,
    ) {
        if self.pending.len() >= MAX_PENDING {
            let oldest = self.pending.remove(0);
            self.unanswered(oldest, &format!("; given up: more than {MAX_PENDING} requests were waiting"));
        }
        let (label, rev) = (self.label.clone(), self.rev);
        self.pending.push(Pending { id, check: check.to_owned(), exchange, label, sent, waited_ms, invalid, rev });
    }

    /// Whether `bytes` answers a pending request; if so it is attached to that request's
    /// exchange, judged by `conv` (when it is that request's conversation), observed, and
    /// reported as late.
    pub(crate) fn late(&mut self, conv: &mut Conversation, bytes: &[u8]) -> bool {
        let Ok(v) = serde_json::from_slice::<Value>(bytes) else { return false };
        if v.get("method").is_some() {
            return false;
        }
        let Some(at) = self.pending.iter().position(|p| crate::peer::answers_id(v.get("id"), &p.id)) else {
            return false;
        };
        let p = self.pending.remove(at);
        let delay = p.sent.elapsed().as_millis();
        let now = std::mem::replace(&mut self.rev, p.rev);
        if p.label == self.label {
            for f in conv.observe(Sender::Server, bytes) {
                self.checker_finding(&p.check, f, p.exchange);
            }
        }
        self.observer.message(Sender::Server, p.label.as_deref(), None, bytes);
        if let Some(i) = p.exchange {
            self.keep_received(i, bytes, true);
            if let Some(e) = self.report.exchanges.get_mut(i) {
                e.peer_error = None;
            }
        }
        self.finding(
            &p.check,
            None,
            Severity::Warning,
            "",
            format!("answered after {delay} ms, later than the probe's wait of {} ms (the answer is judged and recorded; the check's own verdict on it is not run)", p.waited_ms),
            p.exchange,
        );
        self.rev = now;
        true
    }

    fn unanswered(&mut self, p: Pending, why: &str) {
        let message = format!("no answer within {} ms, nor before the end of the run{why}", p.waited_ms);
        let now = std::mem::replace(&mut self.rev, p.rev);
        super::failed::no_answer(self, &p.check, message, p.exchange, p.invalid);
        self.rev = now;
    }
}

/// The end of a run: what the peer still sends within the drain (and the budget) is matched
/// to the pending requests; those still unanswered are MSG-11.
pub(crate) fn finish(r: &mut Run<'_>, conv: &mut Conversation) {
    if !r.pending.is_empty() && r.peer().reads_late() {
        let left = r.deadline.map_or(r.opts.drain, |d| d.saturating_duration_since(Instant::now()));
        let grace = r.opts.drain.min(left);
        if grace > Duration::ZERO {
            r.label = None;
            for bytes in r.peer().drain(grace) {
                if !r.late(conv, &bytes) {
                    // Not an answer to a pending request: recorded and judged as it came.
                    let found = conv.observe(Sender::Server, &bytes);
                    r.observer.message(Sender::Server, None, None, &bytes);
                    for f in found {
                        r.finding("drain", f.rule, f.level, &f.pointer, f.message, None);
                    }
                }
            }
        }
    }
    for p in std::mem::take(&mut r.pending) {
        r.unanswered(p, "");
    }
}
