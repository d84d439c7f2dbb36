//! What the client does once connected, per conformance scenario. Most scenarios need the same
//! thing — use what the server offers: list and call every usable tool, read every resource,
//! get every prompt — so one explorer serves them; the scenario name only picks arguments
//! (from `MCP_CONFORMANCE_CONTEXT`) or a special round trip.

use serde_json::{json, Map, Value};

use super::session::Session;
use super::{ClientError, OpStatus, Operation};

/// The scenarios this client does not attempt, with the reason.
pub fn not_attempted(scenario: &str) -> Option<&'static str> {
    scenario.starts_with("auth/").then_some("OAuth flows are out of scope for the reference client")
}

/// What a run did: every operation with its status, and the failed calls among them.
#[derive(Debug, Default)]
pub struct Report {
    pub operations: Vec<Operation>,
    /// The calls that failed (the exit status counts them).
    pub errors: Vec<ClientError>,
}

impl Report {
    pub fn push(&mut self, method: &str, target: Option<&str>, status: OpStatus, detail: String) {
        self.operations.push(Operation {
            method: method.to_owned(),
            target: target.map(str::to_owned),
            status,
            detail,
        });
    }

    /// Records a request's outcome (a failure is also a failed call) and hands the result
    /// back.
    fn record(&mut self, method: &str, target: Option<&str>, outcome: Result<Value, ClientError>) -> Option<Value> {
        match outcome {
            Ok(result) if method == "tools/call" && result.get("isError") == Some(&Value::Bool(true)) => {
                // An answer, but not a success: reported as the tool's error, never as "ok".
                let text = result.pointer("/content/0/text").and_then(Value::as_str).unwrap_or_default();
                eprintln!("mcpgen-reference-client: tool {} answered with isError: {text}", target.unwrap_or(""));
                self.push(method, target, OpStatus::ToolError, text.to_owned());
                Some(result)
            }
            Ok(result) => {
                self.push(method, target, OpStatus::Ok, String::new());
                Some(result)
            }
            Err(e) => {
                self.push(method, target, OpStatus::Failed, e.to_string());
                self.errors.push(e);
                None
            }
        }
    }
}

/// Runs `scenario` (or the plain explorer) on a connected session. Errors of single calls are
/// collected, not fatal: the explorer goes on with the next tool.
pub async fn run(session: &mut Session, scenario: Option<&str>, context: Option<&Value>, report: &mut Report) {
    match scenario {
        Some("json-schema-2020-12-preservation") => {
            let outcome = echo_schema(session).await;
            report.record("tools/call", Some("json_schema_echo"), outcome);
        }
        _ => explore(session, context, report).await,
    }
}

/// Lists and calls every usable tool (with the context's arguments when it names the tool,
/// else arguments made from its schema; a tool that requires a task is task-augmented where
/// the server runs tool tasks, else skipped), reads every resource, gets every prompt (its
/// required arguments filled from `completion/complete` where the server offers completions)
/// — each only when the server declared the capability.
async fn explore(session: &mut Session, context: Option<&Value>, report: &mut Report) {
    if session.server_has("tools") {
        match session.list_tools().await {
            Ok(list) => {
                report.push("tools/list", None, OpStatus::Ok, format!("{} usable tool(s)", list.usable.len()));
                let planned = planned_calls(context);
                for tool in &list.usable {
                    let calls: Vec<Value> = match &planned {
                        Some(p) => p.iter().filter(|(n, _)| n == &tool.name).map(|(_, a)| a.clone()).collect(),
                        None => vec![sample_arguments(tool.raw.get("inputSchema").unwrap_or(&json!({})))],
                    };
                    let needs_task =
                        tool.raw.pointer("/execution/taskSupport").and_then(Value::as_str) == Some("required");
                    for arguments in calls {
                        let params = json!({"name": tool.name, "arguments": arguments});
                        let outcome = if !needs_task {
                            session.request("tools/call", params).await
                        } else if session.server_runs_tool_tasks() {
                            session.request_as_task("tools/call", params).await
                        } else {
                            let why = format!(
                                "tool {:?} requires task-augmented execution (execution.taskSupport \"required\") \
                                 and this session offers no tool tasks (tasks are a 2025-11-25 feature the server \
                                 must declare as tasks.requests.tools.call): not called",
                                tool.name
                            );
                            eprintln!("mcpgen-reference-client: {why}");
                            report.push("tools/call", Some(&tool.name), OpStatus::Skipped, why);
                            continue;
                        };
                        report.record("tools/call", Some(&tool.name), outcome);
                    }
                }
            }
            Err(e) => {
                report.record("tools/list", None, Err(e));
            }
        }
    }
    if session.server_has("resources") {
        match session.request("resources/list", json!({})).await {
            Ok(result) => {
                report.push("resources/list", None, OpStatus::Ok, String::new());
                for r in result.get("resources").and_then(Value::as_array).cloned().unwrap_or_default() {
                    let Some(uri) = r.get("uri").and_then(Value::as_str) else { continue };
                    let outcome = session.request("resources/read", json!({"uri": uri})).await;
                    report.record("resources/read", Some(uri), outcome);
                }
            }
            Err(e) => {
                report.record("resources/list", None, Err(e));
            }
        }
    }
    if session.server_has("prompts") {
        match session.request("prompts/list", json!({})).await {
            Ok(result) => {
                report.push("prompts/list", None, OpStatus::Ok, String::new());
                for p in result.get("prompts").and_then(Value::as_array).cloned().unwrap_or_default() {
                    let Some(name) = p.get("name").and_then(Value::as_str) else { continue };
                    let arguments = prompt_arguments(session, name, &p, report).await;
                    let outcome = session.request("prompts/get", json!({"name": name, "arguments": arguments})).await;
                    report.record("prompts/get", Some(name), outcome);
                }
            }
            Err(e) => {
                report.record("prompts/list", None, Err(e));
            }
        }
    }
}

/// A prompt's required arguments: each the first value `completion/complete` suggests for it
/// (with the arguments filled so far as context), when the server offers completions and has
/// one; else `"example"`.
async fn prompt_arguments(
    session: &mut Session,
    name: &str,
    prompt: &Value,
    report: &mut Report,
) -> Map<String, Value> {
    let mut arguments = Map::new();
    for a in prompt.get("arguments").and_then(Value::as_array).into_iter().flatten() {
        if a.get("required").and_then(Value::as_bool) != Some(true) {
            continue;
        }
        let Some(arg) = a.get("name").and_then(Value::as_str) else { continue };
        let mut value = None;
        if session.server_has("completions") {
            let params = json!({
                "ref": {"type": "ref/prompt", "name": name},
                "argument": {"name": arg, "value": ""},
                "context": {"arguments": arguments},
            });
            let outcome = session.request("completion/complete", params).await;
            value = report
                .record("completion/complete", Some(&format!("{name}/{arg}")), outcome)
                .and_then(|r| r.pointer("/completion/values/0").and_then(Value::as_str).map(str::to_owned));
        }
        arguments.insert(arg.to_owned(), json!(value.unwrap_or_else(|| "example".to_owned())));
    }
    arguments
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
async fn echo_schema(session: &mut Session) -> Result<Value, ClientError> {
    let list = session.list_tools().await?;
    let focal = list
        .usable
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .ok_or_else(|| ClientError::Scenario("the server lists no json_schema_2020_12_tool".into()))?;
    let schema = focal.raw.get("inputSchema").cloned().unwrap_or_else(|| json!({}));
    session.request("tools/call", json!({"name": "json_schema_echo", "arguments": {"schema": schema}})).await
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
