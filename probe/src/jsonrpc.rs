//! JSON-RPC envelope checks every server owes, in either era: the response's `id` echoed with
//! its type (`id/string`), and a batch refused where the revision has none (`batch/one-request`).
//!
//! - `id/string`: a request whose `id` is a string of digits (`"7"`). The engine matches an
//!   answer to its request by value ([`crate::answers_id`]), so `7` for `"7"` is the answer, not
//!   a missing one, and judges its type: ID-3 (JSON-RPC 2.0, section 5: the response's `id`
//!   "MUST be the same as the value of the id member in the Request Object"). Every other
//!   request of the run has a number `id`, judged the same way.
//! - `batch/one-request`: a one-element array holding a valid request, in a session whose
//!   revision has no batches (2025-06-18 removed them; 2026-07-28 and 2025-11-25 say the body
//!   of a POST MUST be a single message, stdio that each message is a single one). The spec
//!   says nothing of what a server answers to one, so every answer is accepted: an error (any
//!   code), an HTTP error status, or no answer at all; a timeout is no verdict. A server that
//!   answers it as a batch (an array) sends a message that is not a single JSON-RPC message:
//!   the conversation checker's MSG-1, at that rule's level for the revision. 2025-03-26 has
//!   batches (servers MUST receive them) and 2024-11-05 says nothing of them: not run there.

use serde_json::{json, Value};

use mcpgen::conversation::Conversation;

use super::{modern_request, PeerError, Run};

/// Revisions whose text has no JSON-RPC batches (2025-06-18 removed them).
fn without_batches(rev: &str) -> bool {
    rev >= "2025-06-18"
}

/// A harmless request of the era with id `id`: `server/discover` (modern) or `ping`.
fn harmless(id: Value, modern: bool) -> Value {
    if modern {
        let mut request = modern_request(0, "server/discover", json!({}));
        request["id"] = id;
        request
    } else {
        json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
    }
}

pub(super) fn run(r: &mut Run<'_>, conv: &mut Conversation, modern: bool) {
    // `id/string`: the id-type verdict is the engine's, on every exchange.
    let id = json!(r.id().to_string());
    r.exchange("id/string", conv, harmless(id, modern));

    // 2025-03-26 has batches (a batch is no negative there), 2024-11-05 says nothing of
    // them: not run, as the oracle's table says.
    let check = "batch/one-request";
    if !without_batches(&r.rev_name()) {
        return;
    }
    let id = json!(r.id());
    let batch = json!([harmless(id, modern)]);
    let before = r.report.findings.len();
    r.short = true;
    r.keep_error = true;
    r.exchange(check, conv, batch);
    r.short = false;
    r.keep_error = false;
    // The checker cannot read a batch the client sends, so the request in it is pending
    // nowhere: an answer carrying its id is "an id no request has" (ID-3) to the checker, and
    // one without an id (none could be read from an array: JSON-RPC 2.0 says `null`, the
    // schemas say no member) is judged as if a request's id had been readable (ID-4, the
    // schema's `required`). Each is an answer the text allows: those findings on the batch's
    // answer are the probe's own doing, not the server's. MSG-1 on an array answer stays.
    let mut at = 0;
    r.report.findings.retain(|f| {
        at += 1;
        at <= before || f.check != check || !about_the_id(f)
    });
    if let Some(e @ PeerError::Unreachable(_)) = r.kept.take() {
        r.skip(check, format!("no verdict: {e}"));
    }
}

/// Whether `f` (a checker's finding on the batch's answer) is about the answer's `id`.
fn about_the_id(f: &crate::ProbeFinding) -> bool {
    use mcpgen::rules::id;
    match f.rule {
        Some(rule) => rule == id::ID_3 || rule == id::ID_4,
        None => (f.pointer.is_empty() || f.pointer == "/id") && f.message.contains("`id`"),
    }
}
