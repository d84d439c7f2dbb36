//! `proxy --otlp-inject-traceparent`: a request that carries no W3C `traceparent` in
//! `params._meta` gets one, so the server's own spans continue the proxy's trace.
//!
//! The relay rewrites the request before forwarding it: `params._meta.traceparent` (MCP reserves
//! the key for trace context propagation in every revision's `_meta`) is
//! `00-{trace id}-{span id}-01`, with fresh random ids. The proxy's span of that exchange is then
//! made with exactly those ids (a root span, since the client sent no parent), so the server's
//! span whose parent is the injected id hangs under it. Key order, number text and every other
//! member are kept; the whitespace between tokens is not (the message is written compact), and
//! string escapes are written in their shortest form.
//!
//! Left as they are: anything that is not a JSON object with a string `method` and an `id`
//! (notifications, responses, batches, text that is not JSON or that the checker's parser
//! refuses, such as a number past `f64` or nesting past its depth limit), a request that already carries
//! a `traceparent`, a request whose `params` or `params._meta` is not an object, and a line
//! past `--max-message-bytes` (relayed in pieces, never parsed). At most
//! [`MAX_PENDING_INJECTIONS`] injected ids wait for the checker to make their span; past that
//! a request is forwarded as it came (and counted).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use mcpgen::json::{Kind, Tape, Value};
use mcpgen::JsonView;
use opentelemetry::trace::{SpanId, TraceId};
use opentelemetry_sdk::trace::{IdGenerator, RandomIdGenerator};

/// Injected span ids whose span the checker has not made yet; past this many no more are
/// injected until it catches up. The checker's queue is bounded by bytes, so this bound keeps
/// a flood of tiny requests from growing the table.
pub const MAX_PENDING_INJECTIONS: usize = 4096;

/// The relay's side (rewrites requests) and the checker's side (claims the ids it finds).
pub struct Injector {
    ids: RandomIdGenerator,
    pending: Mutex<HashSet<SpanId>>,
    /// Requests forwarded without a `traceparent` because [`MAX_PENDING_INJECTIONS`] were
    /// pending.
    skipped: AtomicU64,
}

impl Default for Injector {
    fn default() -> Self {
        Injector { ids: RandomIdGenerator::default(), pending: Mutex::new(HashSet::new()), skipped: AtomicU64::new(0) }
    }
}

impl Injector {
    /// `line` (one message, with its line ending if it had one) with a `traceparent` added, or
    /// `None` when it is left as it is (see the module's documentation).
    pub fn inject(&self, line: &[u8]) -> Option<Vec<u8>> {
        // The line ending (`\n` or `\r\n`, if any) goes back after the rewritten message.
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let ending = &line[body.len()..];
        let tape = Tape::parse_bytes(body).ok()?;
        let root = tape.root();
        let is_request = root.kind() == Kind::Object
            && root.get("method").is_some_and(|m| m.kind() == Kind::String)
            && root.get("id").is_some();
        if !is_request {
            return None;
        }
        let params = root.get("params");
        let meta = params.as_ref().and_then(|p| p.get("_meta"));
        let usable = params.as_ref().is_none_or(|p| p.kind() == Kind::Object)
            && meta.as_ref().is_none_or(|m| m.kind() == Kind::Object && m.get("traceparent").is_none());
        if !usable {
            return None;
        }
        let (trace, span) = self.claim_ids()?;
        let mut message = root.to_value();
        let Value::Object(top) = &mut message else { return None };
        if top.get("params").is_none() {
            top.push("params", Value::Object(Default::default()));
        }
        let Some(Value::Object(params)) = top.get_mut("params") else { return None };
        if params.get("_meta").is_none() {
            params.push("_meta", Value::Object(Default::default()));
        }
        let Some(Value::Object(meta)) = params.get_mut("_meta") else { return None };
        meta.push("traceparent", Value::String(format!("00-{trace}-{span}-01")));
        let mut out = message.to_json_string().into_bytes();
        out.extend_from_slice(ending);
        Some(out)
    }

    /// Fresh ids, remembered until the checker claims them; `None` at the limit.
    fn claim_ids(&self) -> Option<(TraceId, SpanId)> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if pending.len() >= MAX_PENDING_INJECTIONS {
            self.skipped.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let span = self.ids.new_span_id();
        pending.insert(span);
        Some((self.ids.new_trace_id(), span))
    }

    /// True (once) when `span` is an id this proxy injected: its span is made with it.
    pub fn take(&self, span: SpanId) -> bool {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner).remove(&span)
    }

    /// Requests forwarded without a `traceparent` because the table was full.
    pub fn skipped(&self) -> u64 {
        self.skipped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `traceparent` the injector wrote into `out`, split into its four fields.
    fn fields(out: &[u8]) -> Vec<String> {
        let text = std::str::from_utf8(out).unwrap();
        let at = text.find(r#""traceparent":""#).expect("a traceparent") + r#""traceparent":""#.len();
        let value = &text[at..at + 55];
        value.split('-').map(str::to_owned).collect()
    }

    #[test]
    fn a_request_without_trace_context_gets_one_and_keeps_the_rest() {
        let injector = Injector::default();
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"x\":1.50,\"big\":1E+2},\"_meta\":{\"progressToken\":3}}}\r\n";
        let out = injector.inject(line).expect("injected");
        let text = String::from_utf8(out.clone()).unwrap();
        let f = fields(&out);
        let expected = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"t\",\"arguments\":{{\"x\":1.50,\"big\":1E+2}},\"_meta\":{{\"progressToken\":3,\"traceparent\":\"00-{}-{}-01\"}}}}}}\r\n",
            f[1], f[2]
        );
        assert_eq!(text, expected);
        assert_eq!((f[0].as_str(), f[1].len(), f[2].len(), f[3].as_str()), ("00", 32, 16, "01"));
        assert!(f[1].bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()) && f[1] != "0".repeat(32));
        assert!(f[2] != "0".repeat(16));
        // The checker claims the span id once.
        let span = SpanId::from_hex(&f[2]).unwrap();
        assert!(injector.take(span));
        assert!(!injector.take(span));
    }

    #[test]
    fn params_and_meta_are_made_where_there_were_none() {
        let injector = Injector::default();
        let out = injector.inject(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).expect("injected");
        let f = fields(&out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                r#"{{"jsonrpc":"2.0","id":"a","method":"ping","params":{{"_meta":{{"traceparent":"00-{}-{}-01"}}}}}}"#,
                f[1], f[2]
            )
        );
        let out = injector.inject(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#).unwrap();
        let f = fields(&out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"traceparent":"00-{}-{}-01"}}}}}}"#,
                f[1], f[2]
            )
        );
    }

    #[test]
    fn what_is_not_a_request_without_trace_context_is_left_alone() {
        let injector = Injector::default();
        for line in [
            &br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":null}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            b"{not json",
            // Refused by the parser the checker uses (a number past f64): relayed as it came.
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":1e400}}"#,
        ] {
            assert_eq!(injector.inject(line), None, "{}", String::from_utf8_lossy(line));
        }
        assert_eq!(injector.pending.lock().unwrap().len(), 0);
    }

    #[test]
    fn past_the_pending_limit_requests_go_unchanged_and_are_counted() {
        let injector = Injector::default();
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let mut first = None;
        for _ in 0..MAX_PENDING_INJECTIONS {
            let out = injector.inject(ping).expect("room left");
            first.get_or_insert(out);
        }
        assert_eq!(injector.inject(ping), None);
        assert_eq!(injector.skipped(), 1);
        // The checker claims one: room for one more.
        let span = SpanId::from_hex(&fields(first.as_ref().unwrap())[2]).unwrap();
        assert!(injector.take(span));
        assert!(injector.inject(ping).is_some());
        assert_eq!(injector.skipped(), 1);
    }
}
