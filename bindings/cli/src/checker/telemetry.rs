//! The checker's hand-over to `--metrics` and `--otlp-endpoint`: each message, once checked,
//! to the metrics' [`Observer`](crate::proxy::metrics::Observer) and to the
//! [`Spans`](crate::proxy::traces::Spans).

use std::time::{Instant, SystemTime};

use mcpgen::conversation::{Finding, HttpFacts, Sender};

use super::Checker;
use crate::proxy::traces::Relayed;

impl Checker {
    /// One relayed message (its text without the line end), handed over at `at` (monotonic and
    /// wall clock), with its findings. Ids are matched within a session, or within one HTTP
    /// exchange.
    pub(super) fn telemetry(
        &mut self,
        from: Sender,
        text: &[u8],
        (session, http): (Option<&str>, Option<&HttpFacts>),
        (at, wall): (Instant, SystemTime),
        findings: &[Finding],
    ) {
        let exchange = http.and_then(|h| h.exchange);
        let scope = match (session, exchange) {
            (None, None) => String::new(),
            (s, e) => format!("{}\u{0}{}", s.unwrap_or(""), e.unwrap_or(0)),
        };
        if let Some(observer) = self.observer.as_mut() {
            observer.message(from, text, &scope, at);
        }
        if let Some(spans) = self.spans.as_mut() {
            let revision = self.sessions.revision(session).map(|r| r.as_str());
            let seen = Relayed { from, scope: &scope, session, revision, at: wall, findings };
            spans.message(text, &seen);
        }
    }
}
