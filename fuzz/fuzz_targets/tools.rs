//! Tool schemas from untrusted servers: arbitrary bytes → `mcpgen::tools`.
//!
//! Input: `DOC [SEP INSTANCE]`. `DOC` is read as a `Tool` or a `tools/list` result (bare or in
//! a JSON-RPC response) by `check_tools_json`; `SEP` is the first byte below 0x02 (never in
//! JSON text): 0x00 validates without, 0x01 with `format` assertions; `INSTANCE` (default `{}`)
//! is validated as `tools/call` arguments and as `structuredContent` of every tool that compiles.
//! Everything runs under tight [`Limits`] so one execution stays well under the 1 s timeout.
//!
//! Invariants:
//! - no panic, hang or OOM;
//! - every reported problem has a kind, its rule, a message and a pointer into the tool (or
//!   the document, for `check_tools_json`): an existing location, or a missing member of an
//!   object in it;
//! - `check_tools_json` and `ToolChecker::compile` agree, tool by tool, on the same problems;
//! - limits only restrict: a tool that compiles under the tight limits compiles under the
//!   defaults (`check_tool`), and a value it accepts is accepted by `validate_tool_arguments` /
//!   `validate_structured_content` (default limits);
//! - a refused value carries 1..=max_errors errors, each with a pointer into the value, a
//!   keyword, a schema path and rule TOOL-5 (arguments), TOOL-4 (structured content) or
//!   JSCHEMA-8 (a cost limit); a tool that compiled never fails with a schema error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::tools::{self, Limits, SchemaErrorKind, SchemaOptions, ToolCallError, ToolChecker};
use serde_json::Value;

/// At most this many tools of a list are compiled one by one (each is also in the report).
const MAX_TOOLS: usize = 4;

fn tight(validate_formats: bool) -> SchemaOptions {
    SchemaOptions::default().limits(Limits::default().max_depth(24).max_subschemas(256).max_enum_values(64).max_pattern_length(128).regex_size_limit(64 << 10).backtrack_limit(10_000).max_steps(2_000).max_instance_depth(24).max_errors(8)).validate_formats(validate_formats).fetch(None)
}

/// Whether `ptr` (RFC 6901) names a location of `v`.
fn pointer_exists(v: &Value, ptr: &str) -> bool {
    v.pointer(ptr).is_some()
}

/// Whether `ptr` names a location of `v` or a missing member of an object in `v` (a problem
/// such as "a tool needs an `inputSchema`" points where the member should be).
fn pointer_or_missing_member(v: &Value, ptr: &str) -> bool {
    if pointer_exists(v, ptr) {
        return true;
    }
    let Some(i) = ptr.rfind('/') else { return false };
    let parent = &ptr[..i];
    matches!(v.pointer(parent), Some(Value::Object(_)))
}

fn check_schema_error(e: &tools::SchemaError, doc: &Value, what: &str) {
    assert!(SchemaErrorKind::ALL.contains(&e.kind), "{what}: unknown kind {:?}", e.kind);
    assert_eq!(e.rule(), e.kind.rule());
    assert!(!e.message.is_empty(), "{what}: empty message ({e:?})");
    assert!(!e.to_string().is_empty());
    assert!(
        pointer_or_missing_member(doc, &e.pointer),
        "{what}: pointer {:?} is neither in the document nor a missing member ({e})",
        e.pointer
    );
}

/// A sortable form of a problem list (the order two runs report in is not part of the contract).
fn problem_set(errors: &[tools::SchemaError]) -> Vec<(String, &'static str, String)> {
    let mut v: Vec<_> = errors.iter().map(|e| (e.pointer.clone(), e.kind.as_str(), e.message.clone())).collect();
    v.sort();
    v
}

fn check_instance_verdict(
    r: &Result<(), ToolCallError>,
    instance: &Value,
    rule: &str,
    max_errors: usize,
    what: &str,
) -> bool {
    let errors = match r {
        Ok(()) => return true,
        Err(ToolCallError::Schema(e)) => panic!("{what}: a compiled tool failed with a schema error: {e}"),
        Err(ToolCallError::Invalid(errors)) => {
            for e in errors {
                assert_eq!(e.rule, Some(rule), "{what}: {e}");
            }
            errors
        }
        Err(ToolCallError::LimitExceeded(errors)) => {
            for e in errors {
                assert_eq!(e.rule, Some("JSCHEMA-8"), "{what}: {e}");
            }
            errors
        }
        Err(other) => panic!("{what}: an error of a kind this target does not know: {other}"),
    };
    assert!(!errors.is_empty() && errors.len() <= max_errors, "{what}: {} errors (max {max_errors})", errors.len());
    for e in errors {
        assert!(
            pointer_exists(instance, &e.pointer),
            "{what}: error pointer {:?} is not in the value ({e})",
            e.pointer
        );
        assert!(e.schema_path.starts_with('#'), "{what}: schema path {:?}", e.schema_path);
        assert!(!e.keyword.is_empty() && !e.message.is_empty(), "{what}: {e:?}");
    }
    false
}

fuzz_target!(|data: &[u8]| {
    let (doc_bytes, formats, instance) = match data.iter().position(|&b| b < 2) {
        Some(i) => (&data[..i], data[i] == 1, Some(&data[i + 1..])),
        None => (data, false, None),
    };
    let options = tight(formats);
    let max_errors = options.limits.max_errors;

    let reports = tools::check_tools_json(doc_bytes, &options);
    let Ok(doc) = serde_json::from_slice::<Value>(doc_bytes) else {
        assert!(reports.is_err(), "check_tools_json accepts a document serde_json cannot read");
        return;
    };
    // The tools of the document, as check_tools_json finds them.
    let listed = doc.get("tools").or_else(|| doc.get("result").and_then(|r| r.get("tools")));
    let tool_values: Vec<(String, &Value)> = match listed {
        Some(Value::Array(list)) => {
            let prefix = if doc.get("tools").is_some() { "/tools" } else { "/result/tools" };
            list.iter().enumerate().map(|(i, t)| (format!("{prefix}/{i}"), t)).collect()
        }
        Some(_) => Vec::new(),
        None if doc.get("inputSchema").is_some() || doc.get("name").is_some() => vec![(String::new(), &doc)],
        None => Vec::new(),
    };
    let reports = match reports {
        Ok(reports) => {
            assert_eq!(reports.len(), tool_values.len(), "check_tools_json reports a different number of tools");
            for (r, (pointer, _)) in reports.iter().zip(&tool_values) {
                assert_eq!(&r.pointer, pointer);
                for e in &r.errors {
                    let at = e.clone().with_pointer_prefix(&r.pointer);
                    check_schema_error(&at, &doc, "check_tools_json");
                }
            }
            reports
        }
        Err(e) => {
            assert!(tool_values.is_empty(), "check_tools_json refuses a document with tools: {e}");
            return;
        }
    };

    let checker = ToolChecker::new(options).with_capacity(MAX_TOOLS);
    let instance = match instance {
        None => Some(Value::Object(Default::default())),
        Some(bytes) => serde_json::from_slice::<Value>(bytes).ok(),
    };
    for ((_, tool), report) in tool_values.iter().zip(&reports).take(MAX_TOOLS) {
        let tool: &Value = tool;
        let compiled = checker.compile(tool);
        match &compiled {
            Ok(_) => assert!(report.errors.is_empty(), "compile accepts what check_tools_json refuses: {report:?}"),
            Err(e) => {
                assert!(!e.errors.is_empty(), "a refusal without problems");
                assert_eq!(problem_set(&e.errors), problem_set(&report.errors), "compile and check_tools_json differ");
                for err in &e.errors {
                    check_schema_error(err, tool, "compile");
                }
                continue;
            }
        }
        // Limits only restrict.
        if let Err(e) = tools::check_tool(tool) {
            panic!("compiles under the tight limits but not under the defaults: {e}");
        }
        let Some(instance) = &instance else { continue };
        let args = checker.validate_arguments(tool, instance);
        if check_instance_verdict(&args, instance, "TOOL-5", max_errors, "arguments") {
            if let Err(e) = tools::validate_tool_arguments(tool, instance) {
                panic!("arguments accepted under the tight limits, refused under the defaults: {e}");
            }
        }
        let structured = checker.validate_structured_content(tool, instance);
        if check_instance_verdict(&structured, instance, "TOOL-4", max_errors, "structured content") {
            if let Err(e) = tools::validate_structured_content(tool, instance) {
                panic!("structured content accepted under the tight limits, refused under the defaults: {e}");
            }
        }
    }
});
