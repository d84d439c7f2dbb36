//! Arbitrary bytes → `mcpgen::protocol::check_request` with the default configuration (every
//! revision: dual-era) and a modern-only one. Invariants: no panic; a refusal renders a
//! JSON-RPC error response that parses back, with `jsonrpc` "2.0", an integer `code` equal to
//! the error's, the echoed `id` when there is one, and an HTTP status in 200..600; an accepted
//! request re-encodes to JSON that parses.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::json::Tape;
use mcpgen::protocol::{check_request, ServerConfig};
use mcpgen::JsonView;

fuzz_target!(|data: &[u8]| {
    for config in [ServerConfig::default(), ServerConfig::new(["2026-07-28"])] {
        match check_request(data, &config) {
            Ok(accepted) => {
                let out = accepted.request.to_json_string();
                assert!(Tape::parse_bytes(out.as_bytes()).is_ok(), "accepted request re-encodes to invalid JSON: {out}");
                assert!(!accepted.method.is_empty());
            }
            Err(e) => {
                assert!((200..600).contains(&e.http_status), "HTTP status {}", e.http_status);
                assert!(!e.rule.is_empty() && !e.message.is_empty());
                let text = e.to_response_json();
                let tape = Tape::parse_bytes(text.as_bytes()).unwrap_or_else(|p| panic!("error response is not JSON ({p}): {text}"));
                let resp = tape.root();
                assert!(resp.get("jsonrpc").is_some_and(|j| j.str_eq("2.0")), "{text}");
                let code = resp.get("error").and_then(|er| er.get("code")).and_then(|c| c.as_f64());
                assert_eq!(code, Some(e.code as f64), "{text}");
                assert_eq!(resp.get("id").is_some(), e.id.is_some(), "{text}");
            }
        }
    }
});
