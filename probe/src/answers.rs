//! The server's messages after a request ([`Run::exchange_edited`]): each fed to the
//! conversation checker and its findings reported (with what the probe knows better than the
//! checker: whose id an answer in another JSON type is, and a malformed request's excuse),
//! kept with the exchange, and the response picked out.

use mcpgen::conversation::{Conversation, Finding, HttpFacts, Sender, Severity};
use serde_json::Value;

use super::{answers_id, is_null_id_error, json_type, peer, Run};

/// A request [`Run::exchange_edited`] sent, as its answers are judged.
pub(super) struct Asked<'c> {
    pub check: &'c str,
    /// The request's id (`None`: a notification).
    pub id: Option<Value>,
    /// Its place in the report's exchanges, when kept.
    pub index: Option<usize>,
    /// A malformed envelope ([`excused_if_malformed`]).
    pub invalid: bool,
}

/// A finding on the answer to a request: when the request was malformed (`invalid`), ID-4 is a
/// warning.
fn excused_if_malformed(mut f: Finding, invalid: bool) -> Finding {
    if invalid && f.rule == Some(mcpgen::rules::id::ID_4) && f.level == Severity::Error {
        // The request was malformed: "except in error cases where the ID could not
        // be read due a malformed request" may be the server's reading, though the
        // id was there to read. A warning, not a MUST broken beyond argument.
        f.level = Severity::Warning;
        f.message.push_str(
            " (the request was malformed, and the clause excepts error cases where the id could not be read due to one: a warning)",
        );
    }
    f
}

impl Run<'_> {
    /// The server's messages after `asked` (the late answers to earlier requests aside), each
    /// judged ([`Run::hear`]; `opening`: the response's HTTP facts, with the first) and kept
    /// with the exchange; returns the response: the answer to `asked`'s id, else an error
    /// whose id the server could not read.
    pub(super) fn hear_all(
        &mut self,
        asked: &Asked<'_>,
        conv: &mut Conversation,
        mut received: Vec<Vec<u8>>,
        mut opening: Option<HttpFacts>,
        label: Option<&str>,
    ) -> Option<Value> {
        self.heard = true;
        self.answer_bytes = 0;
        let mut response = None;
        received.retain(|bytes| !self.late(conv, bytes));
        for bytes in &received {
            let Some(v) = self.hear(asked, conv, bytes, opening.take(), label) else { continue };
            if asked.id.as_ref().is_some_and(|sent| peer::is_answer(&v, sent)) {
                self.answer_bytes = bytes.len();
                response = Some(v);
            } else if response.is_none() && is_null_id_error(&v) {
                // An error whose id the server could not read: still this request's answer,
                // and its code is judged (the checker judges the `null`).
                response = Some(v);
            }
        }
        if let Some(i) = asked.index {
            let last = received.len().saturating_sub(1);
            for (n, bytes) in received.iter().enumerate() {
                self.keep_received(i, bytes, n == last);
            }
        }
        response
    }

    /// One server message after `asked`: fed to `conv` (with the HTTP `facts` of the response
    /// when it is the first), shown to the observer, its findings reported, an id answered in
    /// another JSON type reported (ID-3); returns it parsed.
    fn hear(
        &mut self,
        asked: &Asked<'_>,
        conv: &mut Conversation,
        bytes: &[u8],
        facts: Option<HttpFacts>,
        label: Option<&str>,
    ) -> Option<Value> {
        let mut found = conv.observe(Sender::Server, bytes);
        if let Some(facts) = &facts {
            found.extend(conv.check_http(Sender::Server, bytes, facts));
        }
        self.observer.message(Sender::Server, label, facts.as_ref(), bytes);
        let parsed = serde_json::from_slice::<Value>(bytes).ok();
        let retyped = parsed.as_ref().zip(asked.id.as_ref()).filter(|(v, sent)| {
            v.get("method").is_none() && v.get("id") != Some(*sent) && answers_id(v.get("id"), sent)
        });
        if retyped.is_some() {
            // The checker sees an id no request has (ID-3); the probe knows whose it is.
            found.retain(|f| !(f.rule == Some(mcpgen::rules::id::ID_3) && f.pointer == "/id"));
        }
        for f in found {
            self.checker_finding(asked.check, excused_if_malformed(f, asked.invalid), asked.index);
        }
        if let Some((v, sent)) = retyped {
            let message = format!(
                "answered request id {sent} ({}) with id {} ({}): the same value in another JSON type; \
                 JSON-RPC 2.0 (section 5) says the response's id MUST be the same as the request's",
                json_type(sent),
                v["id"],
                json_type(&v["id"])
            );
            let accepts = Some(format!("`id: {sent}`"));
            self.violation(asked.check, mcpgen::rules::id::ID_3, "/id", message, accepts, asked.index);
        }
        parsed
    }
}
