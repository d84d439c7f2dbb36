//! Arbitrary bytes → `mcpgen::decode` for a few definitions of two revisions, under every
//! policy, and `decode_result` by method. Invariants:
//! - no panic; an error is `Parse`, `Invalid` (with at least one error) or `Protocol`, never
//!   `Internal` (validator and builder disagreeing);
//! - policies nest: strict accepts ⇒ lenient accepts ⇔ lossless accepts;
//! - re-encoding is a fixpoint: the output decodes again (same definition, same policy) and
//!   re-encodes to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::{DecodeError, Policy, Revision};

const DEFS: &[(&str, &str)] = &[
    ("2026-07-28", "JSONRPCMessage"),
    ("2026-07-28", "CallToolRequest"),
    ("2026-07-28", "CallToolResult"),
    ("2026-07-28", "ListToolsResult"),
    ("2026-07-28", "ReadResourceResult"),
    ("2026-07-28", "ContentBlock"),
    ("2026-07-28", "ElicitRequest"),
    ("2026-07-28", "CreateMessageResult"),
    ("2026-07-28", "InputRequiredResult"),
    ("2025-11-25", "JSONRPCMessage"),
    ("2025-11-25", "InitializeRequest"),
    ("2025-11-25", "CallToolResult"),
];

const METHODS: &[(&str, &str)] = &[("2026-07-28", "tools/call"), ("2026-07-28", "resources/read"), ("2025-11-25", "tools/call")];

const POLICIES: [Policy; 3] = [Policy::Strict, Policy::Lenient, Policy::Lossless];

fn outcome(r: &Result<Box<dyn mcpgen::AnyDecoded>, DecodeError>, what: &str) -> Option<String> {
    match r {
        Ok(d) => Some(d.to_json_string()),
        Err(DecodeError::Invalid(errors)) => {
            assert!(!errors.is_empty(), "{what}: Invalid without errors");
            None
        }
        Err(DecodeError::Parse(_)) | Err(DecodeError::Protocol { .. }) => None,
        Err(e) => panic!("{what}: {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    for &(rev, def) in DEFS {
        let r = Revision::parse(rev).unwrap();
        let mut accepted = [false; 3];
        for (i, policy) in POLICIES.into_iter().enumerate() {
            let what = format!("{rev} {def} {}", policy.as_str());
            let Some(out) = outcome(&mcpgen::decode(r, def, data, policy), &what) else { continue };
            accepted[i] = true;
            let again = mcpgen::decode(r, def, out.as_bytes(), policy);
            let again = outcome(&again, &format!("{what} (re-decoding its own output {out})"))
                .unwrap_or_else(|| panic!("{what}: re-encoded output does not decode again: {out}"));
            assert_eq!(again, out, "{what}: re-encoding is not a fixpoint");
        }
        let [strict, lenient, lossless] = accepted;
        assert!(!strict || lenient, "{rev} {def}: strict accepts but lenient refuses");
        assert_eq!(lenient, lossless, "{rev} {def}: lenient and lossless disagree");
    }
    for &(rev, method) in METHODS {
        let r = Revision::parse(rev).unwrap();
        for policy in POLICIES {
            let opts = mcpgen::ResultOptions::method(method).policy(policy);
            match mcpgen::decode_result(r, data, &opts) {
                Ok(d) => {
                    let out = d.value.to_json_string();
                    let again = mcpgen::decode_result(r, out.as_bytes(), &opts)
                        .unwrap_or_else(|e| panic!("{rev} {method} result: output does not decode again: {e}\n{out}"));
                    assert_eq!(again.variant, d.variant, "{rev} {method}: variant changes on re-decoding {out}");
                    assert_eq!(again.value.to_json_string(), out, "{rev} {method}: re-encoding is not a fixpoint");
                }
                Err(DecodeError::Internal(e)) => panic!("{rev} {method} result: internal error {e}"),
                Err(DecodeError::Invalid(errors)) => assert!(!errors.is_empty()),
                Err(_) => {}
            }
        }
    }
});
