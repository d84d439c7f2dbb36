//! What the Streamable HTTP transport carried with a message, judged by the transport's own
//! rules ([`super::Conversation::check_http`]): an intermediary (`mcpgen proxy --listen`) or a
//! recording of one hands the facts in, the rules are decided here.
//!
//! - A client POST's standard headers against its body: [`crate::protocol::check_http_headers`]
//!   (ERA-10, HTTP-8, HTTP-11, TASK-28), an error each.
//! - A server message that opens a response (its JSON body, or the first event of its SSE
//!   stream): the response's `Content-Type` is `application/json` or `text/event-stream`
//!   (HTTP-6); a -32020 HeaderMismatch error comes with HTTP 400 (ERR-8), a -32022
//!   UnsupportedProtocolVersion error with HTTP 400 (HTTP-9).

use crate::error_codes;
use crate::http::is_media;
use crate::json::JsonView;
use crate::rules::id;

use super::facts::Sender;
use super::finding::{rule_finding, Finding};

/// The HTTP facts of one message, as an intermediary saw them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpFacts {
    /// A client POST: its request headers (name, value), in the order sent.
    pub request_headers: Option<Vec<(String, String)>>,
    /// A server message that opens a response: that response's HTTP status.
    pub status: Option<u16>,
    /// … and its `Content-Type` (`None`: the response had none).
    pub content_type: Option<String>,
    /// The exchange (one POST and its answer, one GET and its stream) that carried the
    /// message, numbered by the intermediary, when requests are paired per exchange
    /// ([`super::Conversation::observe_in`]): traffic outside a session. `None`: the
    /// session's requests are one id space.
    pub exchange: Option<u64>,
}

impl HttpFacts {
    /// No facts at all: nothing to judge.
    pub fn is_empty(&self) -> bool {
        self.request_headers.is_none()
            && self.status.is_none()
            && self.content_type.is_none()
            && self.exchange.is_none()
    }
}

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";

/// The transport findings of a message from `from` with `facts`: `message` is the message
/// parsed, `None` when its text is not JSON (then only what the headers say is judged). Era and
/// revision not yet set.
pub(super) fn findings_of<'v, V: JsonView<'v>>(from: Sender, message: Option<&V>, facts: &HttpFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    if let (Sender::Client, Some(headers), Some(message)) = (from, &facts.request_headers, message) {
        let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        if let Err(e) = crate::protocol::http::check_view(pairs, message) {
            out.push(rule_finding(e.rule, "", "", format!("HTTP headers: {}", e.message)));
        }
    }
    let Some(status) = facts.status.filter(|_| from == Sender::Server) else { return out };
    if let Some(finding) = content_type_finding(facts.content_type.as_deref()) {
        out.push(finding);
    }
    let code = message.and_then(|m| m.get("error")).and_then(|e| e.get("code")).and_then(|c| c.to_number());
    if let Some(finding) = code.and_then(|n| n.as_i64()).and_then(|code| error_status_finding(code, status)) {
        out.push(finding);
    }
    out
}

/// HTTP-6: a response to a POST is `application/json` or `text/event-stream`.
fn content_type_finding(content_type: Option<&str>) -> Option<Finding> {
    if is_media(content_type, JSON) || is_media(content_type, EVENT_STREAM) {
        return None;
    }
    // Shown as the media type alone (its parameters are not what is wrong).
    let found = content_type.map(|t| t.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
    Some(rule_finding(
        id::HTTP_6,
        "",
        "",
        format!(
            "the response carrying this message has Content-Type {}: a response to a POST is {JSON} or {EVENT_STREAM}",
            found.map_or_else(|| "(none)".to_owned(), |t| format!("`{t}`"))
        ),
    ))
}

/// ERR-8 / HTTP-9: a -32020 HeaderMismatch or -32022 UnsupportedProtocolVersion error comes
/// with HTTP 400.
fn error_status_finding(code: i64, status: u16) -> Option<Finding> {
    let (rule, name) = match code {
        error_codes::HEADER_MISMATCH_ERROR => (id::ERR_8, "HeaderMismatch"),
        error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR => (id::HTTP_9, "UnsupportedProtocolVersion"),
        _ => return None,
    };
    (status != 400).then(|| {
        rule_finding(
            rule,
            "/error/code",
            "",
            format!("{code} {name} must be answered with HTTP 400, the response has HTTP {status}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Tape, TapeView};

    /// The transport findings of `message` (the text as sent).
    fn findings(from: Sender, message: &[u8], facts: &HttpFacts) -> Vec<Finding> {
        match Tape::parse_bytes(message) {
            Ok(tape) => findings_of(from, Some(&tape.root()), facts),
            Err(_) => findings_of::<TapeView<'_, '_>>(from, None, facts),
        }
    }

    const MODERN: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

    fn rules(from: Sender, message: &[u8], facts: &HttpFacts) -> Vec<&'static str> {
        findings(from, message, facts).iter().filter_map(|f| f.rule).collect()
    }

    fn headers(pairs: &[(&str, &str)]) -> HttpFacts {
        let h = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        HttpFacts { request_headers: Some(h), ..HttpFacts::default() }
    }

    fn response(status: u16, content_type: Option<&str>) -> HttpFacts {
        HttpFacts { status: Some(status), content_type: content_type.map(str::to_owned), ..HttpFacts::default() }
    }

    #[test]
    fn a_post_whose_headers_disagree_with_its_body_is_a_finding() {
        let good = headers(&[("mcp-protocol-version", "2026-07-28"), ("Mcp-Method", "tools/list")]);
        assert!(rules(Sender::Client, MODERN, &good).is_empty());
        let wrong = headers(&[("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Method", "tools/list")]);
        assert_eq!(rules(Sender::Client, MODERN, &wrong), ["HTTP-8"]);
        assert_eq!(rules(Sender::Client, MODERN, &headers(&[("MCP-Protocol-Version", "2026-07-28")])), ["HTTP-11"]);
        assert_eq!(rules(Sender::Client, MODERN, &headers(&[])), ["ERA-10"]);
        // Headers on a server message are not a POST's: nothing to compare.
        assert!(rules(Sender::Server, MODERN, &headers(&[])).is_empty());
    }

    #[test]
    fn a_response_is_json_or_an_event_stream() {
        let result = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
        assert!(rules(Sender::Server, result, &response(200, Some("application/json; charset=utf-8"))).is_empty());
        assert!(rules(Sender::Server, result, &response(200, Some("Text/Event-Stream"))).is_empty());
        assert_eq!(rules(Sender::Server, result, &response(200, Some("text/plain"))), ["HTTP-6"]);
        assert_eq!(rules(Sender::Server, result, &response(200, None)), ["HTTP-6"]);
        // Without a status the message does not open a response (a later SSE event).
        assert!(rules(Sender::Server, result, &HttpFacts::default()).is_empty());
    }

    #[test]
    fn header_mismatch_and_unsupported_version_errors_come_with_400() {
        let mismatch = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}"#;
        let version = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported"}}"#;
        let other = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}"#;
        assert!(rules(Sender::Server, mismatch, &response(400, Some(JSON))).is_empty());
        assert_eq!(rules(Sender::Server, mismatch, &response(200, Some(JSON))), ["ERR-8"]);
        assert_eq!(rules(Sender::Server, version, &response(500, Some(JSON))), ["HTTP-9"]);
        assert!(rules(Sender::Server, version, &response(400, Some(JSON))).is_empty());
        assert!(rules(Sender::Server, other, &response(200, Some(JSON))).is_empty());
        // Not JSON: nothing to read the code from (MSG-8 is the conversation's finding).
        assert!(rules(Sender::Server, b"{oops", &response(400, Some(JSON))).is_empty());
    }
}
