//! The default policies: which tools and prompts the probe touches without flags.

use serde_json::json;

use super::prompts::acting_argument;
use super::ToolPolicy;

#[test]
fn read_only_needs_both_hints_said_explicitly() {
    let tool = |annotations: serde_json::Value| json!({"name": "t", "annotations": annotations});
    let cases = [
        (json!({"readOnlyHint": true, "openWorldHint": false}), true),
        (json!({"readOnlyHint": true, "openWorldHint": true}), false),
        // Absent openWorldHint: true by the spec's default.
        (json!({"readOnlyHint": true}), false),
        // Absent readOnlyHint: false by the spec's default.
        (json!({"openWorldHint": false}), false),
        (json!({"readOnlyHint": false, "openWorldHint": false}), false),
        (json!({}), false),
        // A hint that is not a boolean is not said.
        (json!({"readOnlyHint": "true", "openWorldHint": false}), false),
    ];
    for (annotations, allowed) in cases {
        assert_eq!(ToolPolicy::ReadOnly.allows(&tool(annotations.clone())), allowed, "{annotations}");
    }
    assert!(!ToolPolicy::ReadOnly.allows(&json!({"name": "t"})));
    assert!(ToolPolicy::All.allows(&json!({"name": "t"})));
}

#[test]
fn prompts_with_arguments_a_server_acts_on_are_not_got_by_default() {
    let prompt = |arguments: serde_json::Value| json!({"name": "p", "arguments": arguments});
    for acting in [
        json!([{"name": "url"}]),
        json!([{"name": "who"}, {"name": "pageUrl", "required": true}]),
        json!([{"name": "source_uri"}]),
        json!([{"name": "target", "description": "The file to summarize"}]),
        json!([{"name": "cmd"}]),
        json!([{"name": "Path"}]),
        json!([{"name": "q", "description": "Search query to fetch results for"}]),
    ] {
        let why = acting_argument(&prompt(acting.clone()));
        assert!(why.as_deref().is_some_and(|w| w.contains("--get-prompts all")), "{acting}: {why:?}");
    }
    for safe in [
        json!([{"name": "who", "required": true}, {"name": "tone"}]),
        json!([{"name": "profile", "description": "A style of greeting"}]),
        json!([{"name": "language", "description": "The language to answer in"}]),
        json!([]),
    ] {
        assert_eq!(acting_argument(&prompt(safe.clone())), None, "{safe}");
    }
    assert_eq!(acting_argument(&json!({"name": "p"})), None);
}
