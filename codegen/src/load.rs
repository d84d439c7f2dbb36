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
    let dialect_uri = doc.get("$schema").and_then(Value::as_str).unwrap_or("");
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
