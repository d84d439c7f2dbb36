//! Tool arguments from a tool's `inputSchema`: one valid instance, built the way a careful
//! client would (a `const`, the `default`, the first of `examples` or `enum`, else the least
//! value of the type within its bounds), required members only (over `allOf`, the first arm of
//! `anyOf` / `oneOf`, `then` and `else`). Deterministic: the same schema gives the same
//! arguments. The probe checks the result against the schema before it sends it
//! ([`mcpgen::tools::validate_tool_arguments`]), so an instance this builder gets wrong is never
//! sent as a valid call.
//!
//! **Bounded against a hostile schema** (the server writes it): every step spends from a
//! [`Budget`] of nodes (a schema visited, a value built; a copied `const` / `default` /
//! `examples` value costs its [`weight`]) and checks the run's deadline, so building ends after
//! at most [`MAX_NODES`] nodes or at the deadline with a [`GenLimit`] (the probe then skips the
//! tool with a PROBE-2 warning naming the limit). Cycles are cut: the members required over
//! `allOf` / `$ref` are collected visiting each schema once (an `allOf` fan of `$ref: "#"` is
//! linear, not exponential), and a value whose schema is already being built further up (a
//! required member that `$ref`s an ancestor) is `null`, which the check then refuses.

use std::collections::HashSet;
use std::fmt;
use std::time::Instant;

use serde_json::{json, Map, Value};

/// Deepest nesting followed; deeper required members get `null` (and the check below drops
/// the instance if that is wrong).
const MAX_DEPTH: usize = 16;

/// Nodes (schemas visited, values built) one tool's argument building may spend, the base
/// instance and the case variants together ([`Budget::for_tool`]).
pub const MAX_NODES: usize = 200_000;

/// Why building arguments stopped before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenLimit {
    /// More than `limit` nodes.
    Nodes { limit: usize },
    /// The run's time budget (`--budget-ms`) ran out while building.
    Time,
}

impl fmt::Display for GenLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenLimit::Nodes { limit } => write!(f, "building arguments took more than {limit} schema nodes"),
            GenLimit::Time => f.write_str("the time budget ran out while building arguments"),
        }
    }
}

/// What argument building may still spend: nodes, and time until a deadline.
#[derive(Debug, Clone)]
pub struct Budget {
    left: usize,
    limit: usize,
    deadline: Option<Instant>,
    spent: usize,
}

impl Budget {
    /// `limit` nodes, until `deadline` (none: no time limit).
    pub fn new(limit: usize, deadline: Option<Instant>) -> Budget {
        Budget { left: limit, limit, deadline, spent: 0 }
    }

    /// [`MAX_NODES`] until `deadline`.
    pub fn for_tool(deadline: Option<Instant>) -> Budget {
        Budget::new(MAX_NODES, deadline)
    }

    /// Nodes spent so far.
    pub fn spent(&self) -> usize {
        self.spent
    }

    /// Whether `n` nodes are left (nothing is spent).
    pub fn affords(&self, n: usize) -> bool {
        n <= self.left
    }

    /// Spends `n` nodes; the deadline is read before the first node, before each spend of more
    /// than one, and every 64 nodes (a spent deadline spends nothing).
    pub fn spend(&mut self, n: usize) -> Result<(), GenLimit> {
        if n > self.left {
            self.left = 0;
            return Err(GenLimit::Nodes { limit: self.limit });
        }
        let due = self.spent == 0 || n > 1 || (self.spent + n) >> 6 != self.spent >> 6;
        if due && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.left = 0;
            return Err(GenLimit::Time);
        }
        self.left -= n;
        self.spent += n;
        Ok(())
    }
}

/// What copying `v` costs: one node per value, plus one per 64 bytes of text (an 8 MB
/// `default` is worth 131,072 nodes, not one).
pub fn weight(v: &Value) -> usize {
    match v {
        Value::String(s) => 1 + s.len() / 64,
        Value::Array(a) => 1 + a.iter().map(weight).sum::<usize>(),
        Value::Object(o) => 1 + o.iter().map(|(k, v)| k.len() / 64 + weight(v)).sum::<usize>(),
        _ => 1,
    }
}

/// A valid argument object for `schema` (a tool's `inputSchema`), `{}` when none can be built
/// (within [`MAX_NODES`]).
pub fn valid_arguments(schema: &Value) -> Value {
    valid_arguments_within(schema, &mut Budget::for_tool(None)).unwrap_or_else(|_| json!({}))
}

/// [`valid_arguments`] within `budget`.
pub fn valid_arguments_within(schema: &Value, budget: &mut Budget) -> Result<Value, GenLimit> {
    match Walk::new(schema, budget).instance(schema, 0)? {
        v @ Value::Object(_) => Ok(v),
        _ => Ok(json!({})),
    }
}

/// One instance of `schema` (a part of `root`), one level down, within `budget`.
pub(super) fn instance_within(root: &Value, schema: &Value, budget: &mut Budget) -> Result<Value, GenLimit> {
    Walk::new(root, budget).instance(schema, 1)
}

/// The members `root` requires (see [`Walk::collect_required`]), within `budget`.
pub(super) fn required_within(root: &Value, budget: &mut Budget) -> Result<Vec<String>, GenLimit> {
    let mut out = Vec::new();
    Walk::new(root, budget).collect_required(root, 0, &mut Seen::default(), &mut out)?;
    Ok(out)
}

pub(super) fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => root.pointer(pointer).unwrap_or(schema),
        None => schema,
    }
}

/// One building walk over `root`: the budget, and the schemas being built on the current path.
struct Walk<'a, 'b> {
    root: &'a Value,
    budget: &'b mut Budget,
    path: Vec<&'a Value>,
}

/// Whether `schema` (by identity) is in `path`.
fn has(path: &[&Value], schema: &Value) -> bool {
    path.iter().any(|s| std::ptr::eq(*s, schema))
}

/// The schemas (by address) and member names one collection has met.
#[derive(Default)]
struct Seen {
    schemas: HashSet<usize>,
    names: HashSet<String>,
}

impl Seen {
    /// Records `schema`; `false` when it was met before.
    fn insert(&mut self, schema: &Value) -> bool {
        self.schemas.insert(schema as *const Value as usize)
    }
}

impl<'a, 'b> Walk<'a, 'b> {
    fn new(root: &'a Value, budget: &'b mut Budget) -> Walk<'a, 'b> {
        Walk { root, budget, path: Vec::new() }
    }

    fn copy(&mut self, v: &Value) -> Result<Value, GenLimit> {
        self.budget.spend(weight(v))?;
        Ok(v.clone())
    }

    fn instance(&mut self, schema: &'a Value, depth: usize) -> Result<Value, GenLimit> {
        let schema = resolve(self.root, schema);
        self.budget.spend(1)?;
        if depth > MAX_DEPTH || has(&self.path, schema) {
            return Ok(Value::Null);
        }
        for key in ["const", "default"] {
            if let Some(c) = schema.get(key) {
                return self.copy(c);
            }
        }
        for key in ["examples", "enum"] {
            if let Some(e) = schema.get(key).and_then(Value::as_array).and_then(|e| e.first()) {
                return self.copy(e);
            }
        }
        self.path.push(schema);
        let out = self.typed(schema, depth);
        self.path.pop();
        out
    }

    /// The instance of a schema without `const`, `default`, `examples` or `enum`.
    fn typed(&mut self, schema: &'a Value, depth: usize) -> Result<Value, GenLimit> {
        for key in ["anyOf", "oneOf"] {
            if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
                return self.instance(first, depth + 1);
            }
        }
        let ty = match schema.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => {
                types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null")
            }
            _ => "object",
        };
        Ok(match ty {
            "object" => {
                let mut required = Vec::new();
                self.collect_required(schema, depth, &mut Seen::default(), &mut required)?;
                let mut out = Map::new();
                for name in required {
                    let member = self.property(schema, &name, depth, &mut Seen::default())?.unwrap_or(&Value::Null);
                    let value = self.instance(member, depth + 1)?;
                    out.insert(name, value);
                }
                Value::Object(out)
            }
            "array" => {
                let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0).min(8);
                let items = schema.get("items").unwrap_or(&Value::Null);
                let mut out = Vec::new();
                for _ in 0..min {
                    out.push(self.instance(items, depth + 1)?);
                }
                Value::Array(out)
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
        })
    }

    /// The members an object must have, over every part that may apply to it: its own
    /// `required`, those of `allOf` members, of the first arm of `anyOf` / `oneOf`, and of both
    /// `then` and `else` (an instance with more members than needed still satisfies `required`;
    /// one that still fails is caught by the check after). Each schema is visited once (`seen`):
    /// what a second visit would add is already there.
    fn collect_required(
        &mut self,
        schema: &'a Value,
        depth: usize,
        seen: &mut Seen,
        out: &mut Vec<String>,
    ) -> Result<(), GenLimit> {
        let schema = resolve(self.root, schema);
        self.budget.spend(1)?;
        if depth > MAX_DEPTH || !seen.insert(schema) {
            return Ok(());
        }
        for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            self.budget.spend(1)?;
            if seen.names.insert(name.to_owned()) {
                out.push(name.to_owned());
            }
        }
        let mut parts: Vec<&'a Value> = schema.get("allOf").and_then(Value::as_array).into_iter().flatten().collect();
        for key in ["anyOf", "oneOf"] {
            parts.extend(schema.get(key).and_then(Value::as_array).and_then(|a| a.first()));
        }
        parts.extend(["then", "else"].iter().filter_map(|k| schema.get(*k)));
        for part in parts {
            self.collect_required(part, depth + 1, seen, out)?;
        }
        Ok(())
    }

    /// The schema of member `name`: in `properties`, or in those of an `allOf` member (each
    /// schema looked at once).
    fn property(
        &mut self,
        schema: &'a Value,
        name: &str,
        depth: usize,
        seen: &mut Seen,
    ) -> Result<Option<&'a Value>, GenLimit> {
        let schema = resolve(self.root, schema);
        self.budget.spend(1)?;
        if depth > MAX_DEPTH || !seen.insert(schema) {
            return Ok(None);
        }
        if let Some(p) = schema.get("properties").and_then(|p| p.get(name)) {
            return Ok(Some(p));
        }
        for member in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            if let Some(p) = self.property(member, name, depth + 1, seen)? {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }
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

    #[test]
    fn an_all_of_fan_of_self_references_is_linear() {
        // Issue 38 cause 1: 80 bytes that took k^17 steps.
        let fan = json!({"allOf": [{"$ref": "#"}, {"$ref": "#"}, {"$ref": "#"}, {"$ref": "#"}], "required": ["a"]});
        let mut budget = Budget::for_tool(None);
        // `a` has no schema, so an object (the least value of no type) is built.
        assert_eq!(valid_arguments_within(&fan, &mut budget), Ok(json!({"a": {}})));
        assert!(budget.spent() < 100, "{}", budget.spent());
    }

    #[test]
    fn a_required_member_that_refers_to_an_ancestor_is_cut() {
        let tree = json!({"type": "object", "required": ["l", "r", "x", "y"],
            "properties": {"l": {"$ref": "#"}, "r": {"$ref": "#"}, "x": {"$ref": "#"}, "y": {"$ref": "#"}}});
        let mut budget = Budget::for_tool(None);
        let got = valid_arguments_within(&tree, &mut budget).unwrap();
        assert_eq!(got, json!({"l": null, "r": null, "x": null, "y": null}));
        assert!(budget.spent() < 100, "{}", budget.spent());
    }

    #[test]
    fn the_node_budget_ends_a_wide_and_deep_schema() {
        // Arrays of 8 items nested 16 deep, each level a distinct schema: 8^16 values unbounded.
        let mut schema = json!({"type": "integer"});
        for _ in 0..16 {
            schema = json!({"type": "array", "minItems": 8, "items": schema});
        }
        let root = json!({"type": "object", "required": ["a"], "properties": {"a": schema}});
        let mut budget = Budget::new(10_000, None);
        assert_eq!(valid_arguments_within(&root, &mut budget), Err(GenLimit::Nodes { limit: 10_000 }));
        // A large `default` costs its size, not one node.
        let big = json!({"type": "object", "required": ["a"],
            "properties": {"a": {"default": "x".repeat(1 << 20)}}});
        assert_eq!(
            valid_arguments_within(&big, &mut Budget::new(10_000, None)),
            Err(GenLimit::Nodes { limit: 10_000 })
        );
        assert!(valid_arguments_within(&big, &mut Budget::new(20_000, None)).is_ok());
    }

    #[test]
    fn a_spent_deadline_ends_building() {
        let root = json!({"type": "object", "required": ["a"], "properties": {"a": {"default": "x".repeat(1000)}}});
        let past = Some(Instant::now() - std::time::Duration::from_millis(1));
        assert_eq!(valid_arguments_within(&root, &mut Budget::new(MAX_NODES, past)), Err(GenLimit::Time));
        let later = Some(Instant::now() + std::time::Duration::from_secs(60));
        assert!(valid_arguments_within(&root, &mut Budget::new(MAX_NODES, later)).is_ok());
    }
}
