//! Loading a schema document: JSON parse, errata, and the definitions table.

use serde_json::{Map, Value};

use crate::{errata, Diagnostics, RevisionInput};

/// JSON Schema dialect of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// 2020-12, definitions under `$defs`.
    Draft2020_12,
    /// draft-07, definitions under `definitions`.
    Draft07,
}

/// A parsed, patched schema document.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub revision: String,
    pub sha256: String,
    pub dialect: Dialect,
    /// `$defs` or `definitions`.
    pub defs_key: &'static str,
    pub defs: Map<String, Value>,
    pub errata: Vec<errata::Applied>,
}

/// Parses `input.schema`, applies the errata ledger and finds the definitions.
pub fn load(input: &RevisionInput) -> Result<Loaded, Diagnostics> {
    let rev = input.revision.as_str();
    let mut diags = Diagnostics::default();
    let mut doc: Value = match serde_json::from_slice(&input.schema) {
        Ok(v) => v,
        Err(e) => {
            diags.push(rev, None, "", format!("schema is not valid JSON: {e}"));
            return Err(diags);
        }
    };
    let applied = match &input.errata {
        Some(ledger) => errata::apply(rev, &mut doc, ledger)?,
        None => Vec::new(),
    };
    let dialect_uri = doc.get("$schema").and_then(Value::as_str).unwrap_or("").to_owned();
    let (dialect, defs_key) = if dialect_uri.contains("2020-12") {
        (Dialect::Draft2020_12, "$defs")
    } else if dialect_uri.contains("draft-07") {
        (Dialect::Draft07, "definitions")
    } else if doc.get("$defs").is_some() {
        (Dialect::Draft2020_12, "$defs")
    } else if doc.get("definitions").is_some() {
        (Dialect::Draft07, "definitions")
    } else {
        diags.push(rev, None, "/$schema", format!("unsupported dialect `{dialect_uri}` and no `$defs`/`definitions`"));
        return Err(diags);
    };
    if let Some(defs) = doc.get_mut(defs_key) {
        normalize(rev, Some(dialect_uri.as_str()), defs, &format!("/{defs_key}"), false, &mut diags);
    }
    let Some(defs) = doc.get(defs_key).and_then(Value::as_object).cloned() else {
        diags.push(rev, None, format!("/{defs_key}"), format!("`{defs_key}` must be an object"));
        return Err(diags);
    };
    for key in doc.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()).unwrap_or_default() {
        if key != "$schema"
            && key != defs_key
            && key != "$id"
            && key != "$comment"
            && key != "title"
            && key != "description"
        {
            diags.push(rev, None, format!("/{key}"), format!("unsupported top-level keyword `{key}`"));
        }
    }
    diags.into_result(Loaded {
        revision: rev.to_owned(),
        sha256: input.schema_sha256.clone(),
        dialect,
        defs_key,
        defs,
        errata: applied,
    })
}

/// Rewrites spellings that other schema generators use for what the core's generator writes
/// differently, so that one lowering reads both (extension schemas, e.g. ext-tasks, come from a
/// zod-based generator). Each rewrite is exact, never an approximation:
///
/// - a `$schema` inside a definition that names the document's own dialect is dropped (it
///   says nothing new); one naming another dialect is an error;
/// - `propertyNames: {"type": "string"}` is dropped (JSON object keys are always strings);
/// - `additionalProperties: {"not": {}}` becomes `additionalProperties: false` (the same
///   set of instances);
/// - an `anyOf` whose every arm is exactly `{"type": "string", "const": c}` (two or more,
///   distinct) becomes `{"type": "string", "enum": [c, …]}`, in arm order;
/// - an `allOf` with one member that is only an `anyOf` (`allOf: [A, {anyOf: [B1, B2]}]`, with
///   no `anyOf` beside it) is distributed: `anyOf: [{allOf: [A, B1]}, {allOf: [A, B2]}]`. The
///   same instances (A ∧ (B1 ∨ B2) = (A ∧ B1) ∨ (A ∧ B2)); the lowering merges each arm's
///   `allOf` into one object, so every arm knows all its members (a strict unknown-key
///   policy then judges each arm whole).
///
/// Anything else is left to the lowering, which refuses keywords it does not support.
///
/// `is_schema` is false for a map of names to schemas (`$defs`, `properties`), whose keys are
/// names, not keywords (a property may be called `$schema`).
pub fn normalize(rev: &str, dialect: Option<&str>, v: &mut Value, at: &str, is_schema: bool, diags: &mut Diagnostics) {
    match v {
        Value::Object(obj) if !is_schema => {
            for (k, child) in obj.iter_mut() {
                let esc = k.replace('~', "~0").replace('/', "~1");
                normalize(rev, dialect, child, &format!("{at}/{esc}"), true, diags);
            }
        }
        Value::Object(obj) => {
            if let Some(inner) = obj.get("$schema") {
                if inner.as_str().is_some() && inner.as_str() == dialect {
                    obj.remove("$schema");
                } else {
                    diags.push(
                        rev,
                        None,
                        format!("{at}/$schema"),
                        format!("a definition declares another dialect ({inner}) than its document"),
                    );
                }
            }
            if obj.get("propertyNames") == Some(&serde_json::json!({"type": "string"})) {
                obj.remove("propertyNames");
            }
            distribute_all_of(obj);
            if let Some(values) = string_const_arms(obj.get("anyOf")) {
                obj.remove("anyOf");
                obj.insert("type".to_owned(), Value::String("string".to_owned()));
                obj.insert("enum".to_owned(), Value::Array(values));
            }
            if obj.get("additionalProperties") == Some(&serde_json::json!({"not": {}})) {
                obj.insert("additionalProperties".to_owned(), Value::Bool(false));
            }
            for (k, child) in obj.iter_mut() {
                if matches!(k.as_str(), "const" | "enum" | "default" | "examples") {
                    continue; // instance data, not schemas
                }
                let esc = k.replace('~', "~0").replace('/', "~1");
                let names = matches!(k.as_str(), "properties" | "patternProperties" | "$defs" | "definitions");
                normalize(rev, dialect, child, &format!("{at}/{esc}"), !names, diags);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                normalize(rev, dialect, child, &format!("{at}/{i}"), true, diags);
            }
        }
        _ => {}
    }
}

/// The values of an `anyOf` made only of string `const` arms (see [`normalize`]).
fn string_const_arms(any: Option<&Value>) -> Option<Vec<Value>> {
    let arms = any?.as_array()?;
    if arms.len() < 2 {
        return None;
    }
    let mut values = Vec::new();
    for arm in arms {
        let o = arm.as_object()?;
        if o.len() != 2 || o.get("type")?.as_str()? != "string" {
            return None;
        }
        let c = o.get("const")?;
        if !c.is_string() || values.contains(c) {
            return None;
        }
        values.push(c.clone());
    }
    Some(values)
}

/// The `allOf`/`anyOf` distribution of [`normalize`].
fn distribute_all_of(obj: &mut Map<String, Value>) {
    if obj.contains_key("anyOf") {
        return;
    }
    let Some(Value::Array(all)) = obj.get("allOf") else { return };
    let is_any_only =
        |v: &Value| v.as_object().is_some_and(|o| o.len() == 1 && o.get("anyOf").is_some_and(Value::is_array));
    let anys: Vec<usize> = all.iter().enumerate().filter(|(_, v)| is_any_only(v)).map(|(i, _)| i).collect();
    let [at] = anys[..] else { return };
    let mut rest = all.clone();
    let Value::Object(mut any) = rest.remove(at) else { return };
    let Some(Value::Array(arms)) = any.remove("anyOf") else { return };
    let distributed: Vec<Value> = arms
        .into_iter()
        .map(|arm| {
            let mut members = rest.clone();
            members.push(arm);
            serde_json::json!({ "allOf": members })
        })
        .collect();
    obj.remove("allOf");
    obj.insert("anyOf".to_owned(), Value::Array(distributed));
}
