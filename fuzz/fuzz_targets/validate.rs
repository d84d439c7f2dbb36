//! Arbitrary bytes → the tape parser and `mcpgen::validate`. Invariants:
//! - no panic; the tape parser accepts everything `serde_json` accepts;
//! - `validate` on bytes (tape) and `validate_view` on the `serde_json::Value` agree (unless the
//!   input repeats a key, which serde_json folds to the last occurrence);
//! - an invalid verdict carries errors, each with a JSON pointer that exists in the instance
//!   and a schema path into the definitions.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::json::{Tape, Value};
use mcpgen::{DecodeError, JsonView, Options, Policy, Revision};

const DEFS: &[(&str, &str)] = &[
    ("2026-07-28", "JSONRPCMessage"),
    ("2026-07-28", "ClientRequest"),
    ("2026-07-28", "ServerResult"),
    ("2026-07-28", "CallToolResultResponse"),
    ("2026-07-28", "Tool"),
    ("2025-11-25", "JSONRPCMessage"),
    ("2025-11-25", "ClientRequest"),
    ("2024-11-05", "JSONRPCMessage"),
];

fn has_duplicate_keys(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&str> = m.iter().map(|(k, _)| k).collect();
            keys.sort_unstable();
            keys.windows(2).any(|w| w[0] == w[1]) || m.iter().any(|(_, x)| has_duplicate_keys(x))
        }
        Value::Array(a) => a.iter().any(has_duplicate_keys),
        _ => false,
    }
}

fn verdict(r: Result<(), DecodeError>, what: &str) -> Result<(), Vec<mcpgen::ValidationError>> {
    match r {
        Ok(()) => Ok(()),
        Err(DecodeError::Invalid(errors)) => {
            assert!(!errors.is_empty(), "{what}: Invalid without errors");
            Err(errors)
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let serde: Option<serde_json::Value> = serde_json::from_slice(data).ok();
    let tape = Tape::parse_bytes(data);
    if serde.is_some() {
        assert!(tape.is_ok(), "serde_json reads the input but the tape parser refuses it: {:?}", tape.err());
    }
    let Ok(tape) = tape else { return };
    let owned = tape.root().to_value();
    let dups = has_duplicate_keys(&owned);
    let options = [
        Options::default(),
        Options::default().policy(Policy::Strict).strict_formats(true),
        Options::default().discriminate_results(true).client_leniency(true),
    ];
    for &(rev, def) in DEFS {
        let r = Revision::parse(rev).unwrap();
        for opts in options {
            let what = format!("{rev} {def} {opts:?}");
            let on_bytes = verdict(mcpgen::validate(r, def, data, opts), &what);
            let on_owned = verdict(mcpgen::validate_view(r, def, &&owned, opts), &what);
            assert_eq!(on_bytes.is_ok(), on_owned.is_ok(), "{what}: tape and owned Value disagree");
            if let Some(s) = &serde {
                let on_serde = verdict(mcpgen::validate_view(r, def, &s, opts), &what);
                if !dups {
                    assert_eq!(on_bytes.is_ok(), on_serde.is_ok(), "{what}: tape and serde_json::Value disagree");
                }
            }
            if let (Err(errors), false) = (on_bytes, dups) {
                for e in errors {
                    assert!(pointer_exists(&owned, &e.pointer), "{what}: error pointer {:?} is not in the instance ({e})", e.pointer);
                    assert!(e.schema_path.starts_with("#/"), "{what}: schema path {:?}", e.schema_path);
                    assert!(!e.message.is_empty());
                }
            }
        }
    }
});

fn pointer_exists(v: &Value, ptr: &str) -> bool {
    if ptr.is_empty() {
        return true;
    }
    let Some(rest) = ptr.strip_prefix('/') else { return false };
    let (seg, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let seg = seg.replace("~1", "/").replace("~0", "~");
    match v {
        Value::Object(m) => m.get(&seg).is_some_and(|x| pointer_exists(x, tail)),
        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)).is_some_and(|x| pointer_exists(x, tail)),
        _ => false,
    }
}
