//! Tool schemas from Rust types (cargo feature `schemars`):
//! `cargo test -p mcpgen --features schemars --test schemars`.
#![cfg(feature = "schemars")]

use mcpgen::tools::{schema_for, tool_for, Dialect, SchemaErrorKind};
use serde_json::json;

#[allow(dead_code)]
#[derive(schemars::JsonSchema)]
struct SearchArgs {
    /// What to look for.
    query: String,
    limit: Option<u32>,
    filters: Vec<Filter>,
}

#[allow(dead_code)]
#[derive(schemars::JsonSchema)]
enum Field {
    Title,
    Body,
}

#[allow(dead_code)]
#[derive(schemars::JsonSchema)]
struct Filter {
    field: Field,
    value: String,
}

#[allow(dead_code)]
#[derive(schemars::JsonSchema)]
struct SearchResult {
    hits: Vec<String>,
    total: u64,
}

#[allow(dead_code)]
#[derive(schemars::JsonSchema)]
enum NotAnObject {
    A(String),
    B(u8),
}

#[test]
fn input_and_output_schemas_come_from_types() {
    let schema = schema_for::<SearchArgs>();
    assert_eq!(Dialect::of(&schema).unwrap(), Dialect::Draft202012);
    assert_eq!(schema["type"], "object");
    assert!(schema["$defs"]["Filter"].is_object(), "nested types go to $defs: {schema}");

    let builder = tool_for::<SearchArgs>("search").description("Full-text search").output::<SearchResult>();
    let tool = builder.build().unwrap();
    assert_eq!(tool.name, "search");
    assert_eq!(tool.description.as_deref(), Some("Full-text search"));
    assert!(tool.output_schema.is_some());

    // The built tool validates through the same checker.
    let compiled = builder.compile().unwrap();
    let ok = json!({"query": "mcp", "filters": [{"field": "Title", "value": "x"}]});
    assert!(compiled.validate_arguments(&ok).is_ok());
    let bad = json!({"query": "mcp", "filters": [{"field": "Author", "value": "x"}]});
    let err = compiled.validate_arguments(&bad).unwrap_err();
    assert_eq!(err.errors()[0].pointer, "/filters/0/field");
    let err = compiled.validate_arguments(&json!({"filters": []})).unwrap_err();
    assert_eq!(err.errors()[0].keyword, "required");
    assert!(compiled.validate_structured_content(&json!({"hits": ["a"], "total": 1})).is_ok());
    assert!(compiled.validate_structured_content(&json!({"hits": ["a"], "total": -1})).is_err());
    // And the typed tool is a tool source too.
    assert!(mcpgen::tools::validate_tool_arguments(&tool, &ok).is_ok());
}

#[test]
fn a_type_that_is_not_an_object_is_refused_as_input() {
    let err = tool_for::<NotAnObject>("bad").build().unwrap_err();
    assert_eq!(err.errors[0].kind, SchemaErrorKind::RootNotObject);
    assert_eq!(err.errors[0].pointer, "/inputSchema");
    // As an output schema any schema is fine.
    assert!(tool_for::<SearchArgs>("ok").output::<NotAnObject>().build().is_ok());
}
