//! Tool arguments from a tool's `inputSchema`: one valid instance, built the way a careful
//! client would (a `const`, the `default`, the first of `examples` or `enum`, else the least
//! value of the type within its bounds), required members only (over `allOf`, the first arm of
//! `anyOf` / `oneOf`, `then` and `else`). Deterministic: the same schema gives the same
//! arguments. The probe checks the result against the schema before it sends it
//! ([`mcpgen::tools::validate_tool_arguments`]), so an instance this builder gets wrong is never
//! sent as a valid call.

use serde_json::{json, Map, Value};

/// Deepest nesting followed; deeper required members get `null` (and the check below drops
/// the instance if that is wrong).
const MAX_DEPTH: usize = 16;

/// A valid argument object for `schema` (a tool's `inputSchema`), `{}` when none can be built.
pub fn valid_arguments(schema: &Value) -> Value {
    match instance(schema, schema, 0) {
        v @ Value::Object(_) => v,
        _ => json!({}),
    }
}

pub(super) fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => root.pointer(pointer).unwrap_or(schema),
        None => schema,
    }
}

pub(super) fn instance(root: &Value, schema: &Value, depth: usize) -> Value {
    let schema = resolve(root, schema);
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(d) = schema.get("default") {
        return d.clone();
    }
    if let Some(e) = schema.get("examples").and_then(Value::as_array).and_then(|e| e.first()) {
        return e.clone();
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return e.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
            return instance(root, first, depth + 1);
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "object",
    };
    match ty {
        "object" => {
            let mut required = Vec::new();
            collect_required(root, schema, depth, &mut required);
            let mut out = Map::new();
            for name in required {
                let member = property(root, schema, &name, depth).unwrap_or(&Value::Null);
                let value = instance(root, member, depth + 1);
                out.insert(name, value);
            }
            Value::Object(out)
        }
        "array" => {
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0).min(8);
            let items = schema.get("items").unwrap_or(&Value::Null);
            Value::Array((0..min).map(|_| instance(root, items, depth + 1)).collect())
        }
        "string" => {
            let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0).min(64) as usize;
            match schema.get("format").and_then(Value::as_str) {
                Some("uri") => json!("https://example.com/"),
                Some("date-time") => json!("2026-01-01T00:00:00Z"),
                Some("date") => json!("2026-01-01"),
                Some("email") => json!("probe@example.com"),
                _ => Value::String("p".repeat(min.max(1))),
            }
        }
        "integer" => number(schema, true),
        "number" => number(schema, false),
        "boolean" => Value::Bool(false),
        _ => Value::Null,
    }
}

/// The members an object must have, over every part that may apply to it: its own `required`,
/// those of `allOf` members, of the first arm of `anyOf` / `oneOf`, and of both `then` and
/// `else` (an instance with more members than needed still satisfies `required`; one that
/// still fails is caught by the check after).
pub(super) fn collect_required(root: &Value, schema: &Value, depth: usize, out: &mut Vec<String>) {
    let schema = resolve(root, schema);
    if depth > MAX_DEPTH {
        return;
    }
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        if !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
        }
    }
    for member in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        collect_required(root, member, depth + 1, out);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
            collect_required(root, first, depth + 1, out);
        }
    }
    for key in ["then", "else"] {
        if let Some(branch) = schema.get(key) {
            collect_required(root, branch, depth + 1, out);
        }
    }
}

/// The schema of member `name`: in `properties`, or in those of an `allOf` member.
fn property<'a>(root: &'a Value, schema: &'a Value, name: &str, depth: usize) -> Option<&'a Value> {
    let schema = resolve(root, schema);
    if depth > MAX_DEPTH {
        return None;
    }
    schema.get("properties").and_then(|p| p.get(name)).or_else(|| {
        schema.get("allOf").and_then(Value::as_array)?.iter().find_map(|m| property(root, m, name, depth + 1))
    })
}

/// The least value within `minimum` / `exclusiveMinimum` (0 when unbounded below and allowed).
fn number(schema: &Value, integer: bool) -> Value {
    let min = schema.get("minimum").and_then(Value::as_f64);
    let exclusive = schema.get("exclusiveMinimum").and_then(Value::as_f64);
    let max = schema.get("maximum").and_then(Value::as_f64);
    let mut v = match (min, exclusive) {
        (Some(m), _) => m,
        (None, Some(e)) => {
            if integer {
                e.floor() + 1.0
            } else {
                e + 1.0
            }
        }
        (None, None) => 0.0,
    };
    if let Some(m) = max {
        if v > m {
            v = m;
        }
    }
    if integer {
        json!(v.ceil() as i64)
    } else if v.fract() == 0.0 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_members_get_the_least_value_of_their_type() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "minLength": 3},
                "b": {"type": "integer", "minimum": 5},
                "c": {"type": "number", "exclusiveMinimum": 0},
                "d": {"type": "boolean"},
                "e": {"enum": ["x", "y"]},
                "f": {"type": "array", "minItems": 2, "items": {"type": "integer"}},
                "g": {"$ref": "#/$defs/G"},
                "h": {"type": "string", "default": "dflt"},
                "optional": {"type": "string"}
            },
            "required": ["a", "b", "c", "d", "e", "f", "g", "h"],
            "$defs": {"G": {"type": "object", "properties": {"x": {"const": 1}}, "required": ["x"]}}
        });
        assert_eq!(
            valid_arguments(&schema),
            json!({"a": "ppp", "b": 5, "c": 1, "d": false, "e": "x", "f": [0, 0], "g": {"x": 1}, "h": "dflt"})
        );
    }

    #[test]
    fn members_required_by_combinators_are_included() {
        // The conformance suite's 2020-12 tool: one of phone/email, and email unless contactMethod is phone.
        let schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "contactMethod": {"enum": ["phone", "email"]},
                           "phone": {"type": "string"}, "email": {"type": "string"}},
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        });
        assert_eq!(valid_arguments(&schema), json!({"phone": "p", "email": "p"}));
    }

    #[test]
    fn a_schema_that_is_no_object_gives_an_empty_object() {
        assert_eq!(valid_arguments(&json!({"type": "string"})), json!({}));
        assert_eq!(valid_arguments(&Value::Null), json!({}));
        // Nesting past the depth limit ends in null instead of recursing forever.
        let looped = json!({"type": "object", "properties": {"n": {"$ref": "#"}}, "required": ["n"]});
        let mut v = &valid_arguments(&looped);
        let mut depth = 0;
        while let Some(n) = v.get("n") {
            v = n;
            depth += 1;
        }
        assert!(depth <= MAX_DEPTH + 1, "{depth}");
    }
}
