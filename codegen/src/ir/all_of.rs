//! `allOf` merging: the subschemas (their `$ref`s resolved) merged into one schema before it
//! is lowered, with every merge that would change the meaning reported.

use serde_json::{Map, Value};

use super::lower::Lowerer;

impl<'a> Lowerer<'a> {
    /// Merges `allOf` subschemas (resolving `$ref`s) into one schema. Exact for what the MCP
    /// schemas use it for (refining `Error.code` with a const); anything where merging would
    /// change the meaning (`additionalProperties` in a branch, conflicting consts) is reported.
    pub(super) fn merge_all_of(&mut self, outer: &Map<String, Value>, all: &Value, sp: &str) -> Value {
        let mut merged = Map::new();
        for (k, v) in outer {
            if k != "allOf" {
                merged.insert(k.clone(), v.clone());
            }
        }
        let Some(list) = all.as_array() else {
            self.diag(&format!("{sp}/allOf"), "`allOf` must be an array");
            return Value::Object(merged);
        };
        let mut sources = Vec::new();
        for (i, part) in list.iter().enumerate() {
            let mut part = part.clone();
            if let Some(r) = part.get("$ref").and_then(Value::as_str) {
                let target = r.strip_prefix(&format!("#/{}/", self.defs_key)).unwrap_or(r).to_owned();
                sources.push(target.clone());
                match self.raw.get(&target) {
                    Some(t) => part = t.clone(),
                    None => {
                        self.diag(&format!("{sp}/allOf/{i}/$ref"), format!("unresolvable `$ref` {r}"));
                        continue;
                    }
                }
            }
            let Some(pobj) = part.as_object() else { continue };
            for (k, v) in pobj {
                match k.as_str() {
                    "additionalProperties" if v != &Value::Bool(true) && v != &Value::Object(Map::new()) => {
                        self.diag(
                            &format!("{sp}/allOf/{i}"),
                            "`additionalProperties` inside `allOf` cannot be merged exactly",
                        );
                    }
                    "properties" => {
                        let dst = merged.entry("properties").or_insert_with(|| Value::Object(Map::new()));
                        if let (Some(dst), Some(src)) = (dst.as_object_mut(), v.as_object()) {
                            for (pk, pv) in src {
                                match dst.get_mut(pk) {
                                    None => {
                                        dst.insert(pk.clone(), pv.clone());
                                    }
                                    Some(existing) => {
                                        if let (Some(e), Some(n)) = (existing.as_object_mut(), pv.as_object()) {
                                            for (nk, nv) in n {
                                                match e.get(nk) {
                                                    Some(ev) if ev != nv && nk != "description" => {
                                                        self.diags.push(
                                                            self.rev,
                                                            Some(&self.current_def.clone()),
                                                            sp.trim_start_matches('#'),
                                                            format!("`allOf` branches disagree on `{pk}.{nk}`"),
                                                        );
                                                    }
                                                    Some(_) if nk == "description" => {}
                                                    _ => {
                                                        e.insert(nk.clone(), nv.clone());
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    "required" => {
                        let dst = merged.entry("required").or_insert_with(|| Value::Array(Vec::new()));
                        if let (Some(dst), Some(src)) = (dst.as_array_mut(), v.as_array()) {
                            for r in src {
                                if !dst.contains(r) {
                                    dst.push(r.clone());
                                }
                            }
                        }
                    }
                    "description" => {
                        merged.entry("description").or_insert_with(|| v.clone());
                    }
                    _ => match merged.get(k) {
                        Some(existing) if existing != v => {
                            self.diag(&format!("{sp}/allOf/{i}/{k}"), format!("`allOf` branches disagree on `{k}`"));
                        }
                        _ => {
                            merged.insert(k.clone(), v.clone());
                        }
                    },
                }
            }
        }
        if !sources.is_empty() {
            let note =
                format!("Refines {}.", sources.iter().map(|s| format!("{{@link {s}}}")).collect::<Vec<_>>().join(", "));
            let desc = match merged.get("description").and_then(Value::as_str) {
                Some(d) => format!("{d}\n\n{note}"),
                None => note,
            };
            merged.insert("description".into(), Value::String(desc));
        }
        Value::Object(merged)
    }
}
