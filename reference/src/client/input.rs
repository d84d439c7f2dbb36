//! The client's answers to what a server asks of it — a server-to-client request in the legacy
//! era, an input request of an `InputRequiredResult` in the modern era (MRTR-7). The reference
//! client has no user: it accepts every form elicitation with the schema's defaults (SEP-1034),
//! answers sampling with a fixed text, and has no roots.

use serde_json::{json, Map, Value};

/// The capabilities this client declares (both eras): everything the responder answers.
pub fn client_capabilities() -> Value {
    json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})
}

/// A request the responder does not answer: JSON-RPC code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unanswerable {
    pub code: i64,
    pub message: String,
}

/// The result for `method` with `params`.
pub fn answer(method: &str, params: &Value) -> Result<Value, Unanswerable> {
    match method {
        "elicitation/create" => Ok(elicit(params)),
        "sampling/createMessage" => Ok(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "This is a reply from the mcpgen reference client."},
            "model": "mcpgen-reference-client",
            "stopReason": "endTurn"
        })),
        "roots/list" => Ok(json!({"roots": []})),
        "ping" => Ok(json!({})),
        other => Err(Unanswerable { code: -32601, message: format!("Method not found: {other}") }),
    }
}

/// A form elicitation is accepted with [`form_defaults`]; a URL elicitation is declined (there
/// is nobody to open it).
fn elicit(params: &Value) -> Value {
    if params.get("mode").and_then(Value::as_str) == Some("url") {
        return json!({"action": "decline"});
    }
    let content = params.get("requestedSchema").map(form_defaults).unwrap_or_default();
    json!({"action": "accept", "content": content})
}

/// SEP-1034: the form a user who changes nothing submits — every property with a `default`
/// gets it; a required property without one gets a placeholder of its type (the first `enum`
/// value, `""`, `0`, `false`); optional ones without a default are left out.
pub fn form_defaults(requested_schema: &Value) -> Map<String, Value> {
    let mut content = Map::new();
    let Some(props) = requested_schema.get("properties").and_then(Value::as_object) else { return content };
    let required: Vec<&str> = requested_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, prop) in props {
        if let Some(default) = prop.get("default") {
            content.insert(name.clone(), default.clone());
        } else if required.contains(&name.as_str()) {
            content.insert(name.clone(), placeholder(prop));
        }
    }
    content
}

fn placeholder(prop: &Value) -> Value {
    if let Some(first) = prop.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    if let Some(first) = prop.get("oneOf").and_then(|e| e.get(0)).and_then(|o| o.get("const")) {
        return first.clone();
    }
    match prop.get("type").and_then(Value::as_str) {
        Some("integer") | Some("number") => json!(0),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        _ => json!(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_applied_for_every_type() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
            "note": {"type": "string"}
        }, "required": []});
        let got = form_defaults(&schema);
        assert_eq!(
            Value::Object(got),
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
        );
    }

    #[test]
    fn required_fields_without_defaults_get_placeholders() {
        let schema = json!({"properties": {
            "color": {"type": "string", "enum": ["red", "green"]},
            "n": {"type": "integer"}, "ok": {"type": "boolean"}}, "required": ["color", "n", "ok"]});
        assert_eq!(Value::Object(form_defaults(&schema)), json!({"color": "red", "n": 0, "ok": false}));
        let accepted = answer("elicitation/create", &json!({"message": "m", "requestedSchema": schema})).unwrap();
        assert_eq!(accepted["action"], "accept");
        assert_eq!(
            answer("elicitation/create", &json!({"mode": "url", "url": "https://x"})).unwrap()["action"],
            "decline"
        );
        assert_eq!(answer("tasks/get", &json!({})).unwrap_err().code, -32601);
    }
}
