//! What the client does once connected, per conformance scenario. Most scenarios need the same
//! thing — use what the server offers: list and call every usable tool, read every resource,
//! get every prompt — so one explorer serves them; the scenario name only picks arguments
//! (from `MCP_CONFORMANCE_CONTEXT`) or a special round trip.

use serde_json::{json, Value};

use super::session::Session;
use super::ClientError;

/// The scenarios this client does not attempt, with the reason.
pub fn not_attempted(scenario: &str) -> Option<&'static str> {
    scenario.starts_with("auth/").then_some("OAuth flows are out of scope for the reference client")
}

/// Runs `scenario` (or the plain explorer) on a connected session. Errors of single calls are
/// collected, not fatal: the explorer goes on with the next tool.
pub async fn run(session: &mut Session, scenario: Option<&str>, context: Option<&Value>) -> Vec<ClientError> {
    let mut errors = Vec::new();
    match scenario {
        Some("json-schema-2020-12-preservation") => {
            if let Err(e) = echo_schema(session).await {
                errors.push(e);
            }
        }
        _ => explore(session, context, &mut errors).await,
    }
    errors
}

/// Lists and calls every usable tool (with the context's arguments when it names the tool,
/// else arguments made from its schema), reads every resource, gets every prompt — each only
/// when the server declared the capability.
async fn explore(session: &mut Session, context: Option<&Value>, errors: &mut Vec<ClientError>) {
    if session.server_has("tools") {
        match session.list_tools().await {
            Ok(list) => {
                let planned = planned_calls(context);
                for tool in &list.usable {
                    let calls: Vec<Value> = match &planned {
                        Some(p) => p.iter().filter(|(n, _)| n == &tool.name).map(|(_, a)| a.clone()).collect(),
                        None => vec![sample_arguments(tool.raw.get("inputSchema").unwrap_or(&json!({})))],
                    };
                    for arguments in calls {
                        let params = json!({"name": tool.name, "arguments": arguments});
                        if let Err(e) = session.request("tools/call", params).await {
                            errors.push(e);
                        }
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if session.server_has("resources") {
        match session.request("resources/list", json!({})).await {
            Ok(result) => {
                for r in result.get("resources").and_then(Value::as_array).cloned().unwrap_or_default() {
                    let Some(uri) = r.get("uri").and_then(Value::as_str) else { continue };
                    if let Err(e) = session.request("resources/read", json!({"uri": uri})).await {
                        errors.push(e);
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if session.server_has("prompts") {
        match session.request("prompts/list", json!({})).await {
            Ok(result) => {
                for p in result.get("prompts").and_then(Value::as_array).cloned().unwrap_or_default() {
                    let Some(name) = p.get("name").and_then(Value::as_str) else { continue };
                    let mut arguments = serde_json::Map::new();
                    for a in p.get("arguments").and_then(Value::as_array).into_iter().flatten() {
                        if a.get("required").and_then(Value::as_bool) == Some(true) {
                            if let Some(n) = a.get("name").and_then(Value::as_str) {
                                arguments.insert(n.to_owned(), json!("example"));
                            }
                        }
                    }
                    if let Err(e) = session.request("prompts/get", json!({"name": name, "arguments": arguments})).await
                    {
                        errors.push(e);
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
}

/// `MCP_CONFORMANCE_CONTEXT`'s `toolCalls`: `[{"name", "arguments"}]`, in order.
fn planned_calls(context: Option<&Value>) -> Option<Vec<(String, Value)>> {
    let calls = context?.get("toolCalls")?.as_array()?;
    Some(
        calls
            .iter()
            .filter_map(|c| {
                Some((c.get("name")?.as_str()?.to_owned(), c.get("arguments").cloned().unwrap_or_else(|| json!({}))))
            })
            .collect(),
    )
}

/// Arguments for a tool from its `inputSchema`: every required property gets its `default`, its
/// first `enum` value, or a small value of its type.
pub fn sample_arguments(schema: &Value) -> Value {
    let mut args = serde_json::Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let prop = props.and_then(|p| p.get(name)).cloned().unwrap_or_else(|| json!({}));
        let value = if let Some(d) = prop.get("default") {
            d.clone()
        } else if let Some(e) = prop.get("enum").and_then(|e| e.get(0)) {
            e.clone()
        } else {
            match prop.get("type").and_then(Value::as_str) {
                Some("integer") => json!(2),
                Some("number") => json!(3),
                Some("boolean") => json!(true),
                Some("object") => sample_arguments(&prop),
                Some("array") => json!([]),
                Some("null") => Value::Null,
                _ => json!("example"),
            }
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

/// json-schema-2020-12-preservation: hand the focal tool's `inputSchema` back, exactly as
/// received, through the echo tool.
async fn echo_schema(session: &mut Session) -> Result<(), ClientError> {
    let list = session.list_tools().await?;
    let focal = list
        .usable
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .ok_or_else(|| ClientError::Scenario("the server lists no json_schema_2020_12_tool".into()))?;
    let schema = focal.raw.get("inputSchema").cloned().unwrap_or_else(|| json!({}));
    session.request("tools/call", json!({"name": "json_schema_echo", "arguments": {"schema": schema}})).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_arguments_fill_required_properties_only() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "number"}, "b": {"type": "integer"}, "c": {"type": "string", "enum": ["x", "y"]},
            "d": {"type": "string"}}, "required": ["a", "b", "c"]});
        assert_eq!(sample_arguments(&schema), json!({"a": 3, "b": 2, "c": "x"}));
    }

    #[test]
    fn context_tool_calls_are_read_in_order() {
        let ctx = json!({"toolCalls": [{"name": "t1", "arguments": {"x": 1}}, {"name": "t2"}]});
        assert_eq!(planned_calls(Some(&ctx)).unwrap(), vec![("t1".into(), json!({"x": 1})), ("t2".into(), json!({}))]);
        assert_eq!(planned_calls(None), None);
        assert_eq!(not_attempted("auth/basic-cimd"), Some("OAuth flows are out of scope for the reference client"));
        assert_eq!(not_attempted("sse-retry"), None);
    }
}
