//! The fixture set the conformance suite expects (tools, prompts, resources, templates,
//! caching hints), kept as data in `reference/fixtures/server.json`, and the small template
//! language its payloads use.
//!
//! Templates are JSON strings with `{{…}}` holes filled from a context object:
//! `{{/json/pointer}}` inserts the value (strings as is, anything else as JSON text),
//! `{{json:/ptr}}` inserts JSON text, `{{#/ptr}}` the length of an array or object and
//! `{{keys:/ptr}}` an object's keys joined with `,`. A missing value renders as `unknown`.

use serde_json::{Map, Value};

/// The fixture file, compiled into the binary.
pub const FIXTURES_JSON: &str = include_str!("../../fixtures/server.json");

/// Which era a fixture entry is offered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraSet {
    Both,
    Legacy,
    Modern,
}

impl EraSet {
    fn of(entry: &Value) -> EraSet {
        let eras: Vec<&str> = entry
            .get("eras")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match (eras.contains(&"legacy"), eras.contains(&"modern")) {
            (true, false) => EraSet::Legacy,
            (false, true) => EraSet::Modern,
            _ => EraSet::Both,
        }
    }
    /// Whether the entry is offered in the modern (`true`) or legacy (`false`) era.
    pub fn offers(self, modern: bool) -> bool {
        match self {
            EraSet::Both => true,
            EraSet::Legacy => !modern,
            EraSet::Modern => modern,
        }
    }
}

/// One fixture entry (tool, prompt, resource or template) with its era set.
#[derive(Debug, Clone)]
pub struct Entry {
    pub eras: EraSet,
    /// The whole entry as written in the file (`tool`/`prompt`/…, `behavior`, `result`, …).
    pub spec: Value,
}

impl Entry {
    pub fn str(&self, key: &str) -> Option<&str> {
        self.spec.get(key).and_then(Value::as_str)
    }
}

/// The parsed fixture file.
#[derive(Debug, Clone)]
pub struct Fixtures {
    pub server_info: Value,
    pub instructions: Option<String>,
    /// What `initialize` declares (`capabilities.legacy`) and what `server/discover` declares
    /// (`capabilities.modern`): each must name every feature the server uses in that era
    /// (the self-check holds the server to it, e.g. `logging` for log notifications, LOG-5).
    pub legacy_capabilities: Value,
    pub modern_capabilities: Value,
    /// Per-method caching hints (`ttlMs`, `cacheScope`) for modern results.
    pub caching: Map<String, Value>,
    pub tools: Vec<Entry>,
    pub prompts: Vec<Entry>,
    pub resources: Vec<Entry>,
    pub templates: Vec<Entry>,
}

/// Why the fixture file cannot be used.
#[derive(Debug)]
pub struct FixtureError(pub String);

impl std::fmt::Display for FixtureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fixtures: {}", self.0)
    }
}
impl std::error::Error for FixtureError {}

impl Fixtures {
    /// The built-in fixture set.
    pub fn builtin() -> Fixtures {
        Fixtures::parse(FIXTURES_JSON).expect("the built-in fixture file is valid (a unit test checks it)")
    }

    pub fn parse(text: &str) -> Result<Fixtures, FixtureError> {
        let v: Value = serde_json::from_str(text).map_err(|e| FixtureError(format!("not JSON: {e}")))?;
        let list = |key: &str, inner: &str| -> Result<Vec<Entry>, FixtureError> {
            let items = v
                .get(key)
                .and_then(Value::as_array)
                .ok_or_else(|| FixtureError(format!("`{key}` must be an array")))?;
            items
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    if e.get(inner).is_none_or(|x| !x.is_object()) {
                        return Err(FixtureError(format!("/{key}/{i} lacks the object `{inner}`")));
                    }
                    Ok(Entry { eras: EraSet::of(e), spec: e.clone() })
                })
                .collect()
        };
        let capabilities = |era: &str| {
            v.pointer(&format!("/capabilities/{era}"))
                .filter(|c| c.is_object())
                .cloned()
                .ok_or_else(|| FixtureError(format!("`capabilities.{era}` must be an object")))
        };
        Ok(Fixtures {
            server_info: v.get("serverInfo").cloned().ok_or_else(|| FixtureError("`serverInfo` is missing".into()))?,
            instructions: v.get("instructions").and_then(Value::as_str).map(str::to_owned),
            legacy_capabilities: capabilities("legacy")?,
            modern_capabilities: capabilities("modern")?,
            caching: v.get("caching").and_then(Value::as_object).cloned().unwrap_or_default(),
            tools: list("tools", "tool")?,
            prompts: list("prompts", "prompt")?,
            resources: list("resources", "resource")?,
            templates: list("resourceTemplates", "template")?,
        })
    }

    pub fn tool(&self, name: &str, modern: bool) -> Option<&Entry> {
        self.tools.iter().find(|e| e.eras.offers(modern) && e.spec["tool"]["name"] == name)
    }

    pub fn prompt(&self, name: &str, modern: bool) -> Option<&Entry> {
        self.prompts.iter().find(|e| e.eras.offers(modern) && e.spec["prompt"]["name"] == name)
    }

    /// The contents of a resource by URI: a static resource, or a template match with its
    /// variables (`vars`) and the `uri` in the rendering context.
    pub fn read_resource(&self, uri: &str, modern: bool) -> Option<Value> {
        if let Some(r) = self.resources.iter().find(|e| e.eras.offers(modern) && e.spec["resource"]["uri"] == uri) {
            return r.spec.get("contents").cloned();
        }
        for t in self.templates.iter().filter(|e| e.eras.offers(modern)) {
            let Some(pattern) = t.spec["template"]["uriTemplate"].as_str() else { continue };
            if let Some(vars) = match_uri_template(pattern, uri) {
                let cx = serde_json::json!({ "uri": uri, "vars": vars });
                return t.spec.get("contents").map(|c| render(c, &cx));
            }
        }
        None
    }

    /// `completion/complete`: the values the entry behind `reference` (a `ref/prompt` by name,
    /// a `ref/resource` by its template) lists for `argument` in its `complete` member, those
    /// starting with `prefix`, in order.
    pub fn completions(&self, reference: &Value, argument: &str, prefix: &str, modern: bool) -> Vec<String> {
        let entry = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => reference.get("name").and_then(Value::as_str).and_then(|n| self.prompt(n, modern)),
            Some("ref/resource") => reference.get("uri").and_then(Value::as_str).and_then(|uri| {
                self.templates.iter().find(|e| e.eras.offers(modern) && e.spec["template"]["uriTemplate"] == uri)
            }),
            _ => None,
        };
        let values =
            entry.and_then(|e| e.spec.pointer(&format!("/complete/{}", mcpgen::json::pointer::escape(argument))));
        values
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|v| v.starts_with(prefix))
            .map(str::to_owned)
            .collect()
    }

    /// The listed objects (`tool`, `prompt`, …) of a list offered in one era.
    pub fn listed(entries: &[Entry], inner: &str, modern: bool) -> Vec<Value> {
        entries.iter().filter(|e| e.eras.offers(modern)).map(|e| e.spec[inner].clone()).collect()
    }
}

/// Matches a level-1 URI template (`{name}` holes matching a non-empty run without `/`).
pub fn match_uri_template(template: &str, uri: &str) -> Option<Map<String, Value>> {
    let mut vars = Map::new();
    let (mut t, mut u) = (template, uri);
    while !t.is_empty() {
        if let Some(rest) = t.strip_prefix('{') {
            let end = rest.find('}')?;
            let name = &rest[..end];
            t = &rest[end + 1..];
            let stop = t.chars().next();
            let len = u.find(|c: char| c == '/' || Some(c) == stop).unwrap_or(u.len());
            if len == 0 {
                return None;
            }
            vars.insert(name.to_owned(), Value::String(u[..len].to_owned()));
            u = &u[len..];
        } else {
            let lit = t.find('{').unwrap_or(t.len());
            u = u.strip_prefix(&t[..lit])?;
            t = &t[lit..];
        }
    }
    u.is_empty().then_some(vars)
}

/// Renders every string of `template` against the context `cx` (see the module docs).
pub fn render(template: &Value, cx: &Value) -> Value {
    match template {
        Value::String(s) => Value::String(render_str(s, cx)),
        Value::Array(a) => Value::Array(a.iter().map(|x| render(x, cx)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), render(x, cx))).collect()),
        other => other.clone(),
    }
}

fn render_str(s: &str, cx: &Value) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start..].find("}}") else { break };
        out.push_str(&rest[..start]);
        out.push_str(&hole(&rest[start + 2..start + len], cx));
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

fn hole(expr: &str, cx: &Value) -> String {
    let (kind, ptr) = match expr.split_once(':') {
        Some((k, p)) if k == "json" || k == "keys" => (k, p),
        _ => match expr.strip_prefix('#') {
            Some(p) => ("#", p),
            None => ("", expr),
        },
    };
    let Some(v) = cx.pointer(ptr) else {
        return match kind {
            "json" => "{}".into(),
            "#" => "0".into(),
            _ => "unknown".into(),
        };
    };
    match (kind, v) {
        ("json", v) => v.to_string(),
        ("#", Value::Array(a)) => a.len().to_string(),
        ("#", Value::Object(m)) => m.len().to_string(),
        ("#", _) => "0".into(),
        ("keys", Value::Object(m)) => m.keys().cloned().collect::<Vec<_>>().join(","),
        (_, Value::String(s)) => s.clone(),
        (_, other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtin_fixtures_parse() {
        let f = Fixtures::parse(FIXTURES_JSON).unwrap();
        assert!(f.tool("test_simple_text", false).is_some());
        assert!(f.tool("test_sampling", true).is_none(), "legacy-only tool offered in the modern era");
        assert!(f.tool("test_missing_capability", false).is_none(), "modern-only tool offered in the legacy era");
    }

    #[test]
    fn completions_come_from_the_entry_and_match_the_prefix() {
        let f = Fixtures::builtin();
        let prompt = json!({"type": "ref/prompt", "name": "test_prompt_with_arguments"});
        assert_eq!(f.completions(&prompt, "arg1", "al", true), ["alpha", "alpine"]);
        assert_eq!(f.completions(&prompt, "arg1", "", false), ["alpha", "alpine", "beta"]);
        assert!(f.completions(&prompt, "nope", "", true).is_empty());
        let template = json!({"type": "ref/resource", "uri": "test://template/{id}/data"});
        assert_eq!(f.completions(&template, "id", "12", true), ["123", "124"]);
        assert!(f.completions(&json!({"type": "ref/resource", "uri": "test://x"}), "id", "", true).is_empty());
    }

    #[test]
    fn templates_render_pointers_lengths_keys_and_json() {
        let cx = json!({"a": {"b": "x", "n": 3}, "l": [1, 2], "o": {"k1": 1, "k2": 2}});
        assert_eq!(
            render(&json!("<{{/a/b}}|{{/a/n}}|{{#/l}}|{{keys:/o}}|{{json:/a}}|{{/zz}}>"), &cx),
            json!(r#"<x|3|2|k1,k2|{"b":"x","n":3}|unknown>"#)
        );
    }

    #[test]
    fn uri_templates_match_level_one_holes() {
        let vars = match_uri_template("test://template/{id}/data", "test://template/123/data").unwrap();
        assert_eq!(vars["id"], "123");
        assert!(match_uri_template("test://template/{id}/data", "test://template//data").is_none());
        assert!(match_uri_template("test://template/{id}/data", "test://template/1/other").is_none());
    }
}
