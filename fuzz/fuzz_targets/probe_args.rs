//! The probe's argument generator over hostile tool schemas: arbitrary bytes → a `Tool` (or a
//! bare `inputSchema`) → `mcpgen_probe::args` and `mcpgen_probe::cases`.
//!
//! Invariants:
//! - no panic, hang or OOM, whatever the schema (cycles, `allOf` fans, `$ref` chains, deep
//!   nesting, huge `required`);
//! - building spends at most its node budget, and ends with a value or a typed limit;
//! - a deadline in the past ends building at once with the time limit, nothing spent;
//! - the cases are at most the cap asked for, the base first and valid.
#![no_main]

use std::time::Instant;

use libfuzzer_sys::fuzz_target;
use mcpgen_probe::args::{valid_arguments_within, Budget, GenLimit};
use mcpgen_probe::cases::cases_within;
use serde_json::{json, Value};

/// A budget small enough that one execution stays far under libFuzzer's 1 s timeout.
const NODES: usize = 20_000;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = serde_json::from_slice::<Value>(data) else { return };
    let (tool, schema) = match doc.get("inputSchema") {
        Some(s) => (doc.clone(), s.clone()),
        None => (json!({"name": "fuzz", "inputSchema": doc}), doc),
    };
    let mut budget = Budget::new(NODES, None);
    match valid_arguments_within(&schema, &mut budget) {
        Ok(v) => assert!(v.is_object(), "not an object: {v}"),
        Err(GenLimit::Nodes { limit }) => assert_eq!(limit, NODES),
        Err(GenLimit::Time) => panic!("no deadline was set"),
    }
    assert!(budget.spent() <= NODES, "{} nodes", budget.spent());

    let mut past = Budget::new(usize::MAX, Some(Instant::now()));
    if let Err(limit) = valid_arguments_within(&schema, &mut past) {
        assert_eq!(limit, GenLimit::Time);
    }
    assert_eq!(past.spent(), 0, "nodes spent after the deadline");

    let mut budget = Budget::new(NODES, None);
    if let Ok(cases) = cases_within(&tool, 1, 8, &mut budget) {
        assert!(cases.len() <= 8);
        if let Some(first) = cases.first() {
            assert!(first.name == "base" && first.valid);
        }
    }
    assert!(budget.spent() <= NODES, "{} nodes", budget.spent());
});
