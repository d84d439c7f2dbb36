//! The errata ledger: explicit, asserted patches to an upstream schema.
//!
//! Each entry names a JSON pointer, the value expected there today and its replacement. If the
//! expected value is not found (upstream fixed or changed it), generation stops and says so, so
//! a stale patch can never silently apply to a different schema.

use serde_json::Value;

use crate::Diagnostics;

/// One applied patch, for reporting.
#[derive(Debug, Clone)]
pub struct Applied {
    pub id: String,
    pub pointer: String,
    pub reason: String,
}

/// Applies the ledger `errata` (JSON text) to `schema`.
pub fn apply(revision: &str, schema: &mut Value, errata: &[u8]) -> Result<Vec<Applied>, Diagnostics> {
    let mut diags = Diagnostics::default();
    let ledger: Value = match serde_json::from_slice(errata) {
        Ok(v) => v,
        Err(e) => {
            diags.push(revision, None, "", format!("errata ledger is not valid JSON: {e}"));
            return Err(diags);
        }
    };
    if let Some(r) = ledger.get("revision").and_then(Value::as_str) {
        if r != revision {
            diags.push(revision, None, "/revision", format!("errata ledger is for revision {r}, not {revision}"));
            return Err(diags);
        }
    }
    let Some(entries) = ledger.get("errata").and_then(Value::as_array) else {
        diags.push(revision, None, "/errata", "errata ledger needs an `errata` array");
        return Err(diags);
    };
    let mut applied = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let at = format!("errata/{i}");
        let id = e.get("id").and_then(Value::as_str).unwrap_or("?").to_owned();
        let (Some(pointer), Some(expect), Some(replace), Some(reason)) = (
            e.get("pointer").and_then(Value::as_str),
            e.get("expect"),
            e.get("replace"),
            e.get("reason").and_then(Value::as_str),
        ) else {
            diags.push(revision, None, at, format!("erratum {id} needs `pointer`, `expect`, `replace` and `reason`"));
            continue;
        };
        match schema.pointer_mut(pointer) {
            None => diags.push(
                revision,
                None,
                pointer,
                format!("erratum {id}: nothing at this pointer any more; upstream changed the schema — review and remove the entry"),
            ),
            Some(slot) if slot != expect => diags.push(
                revision,
                None,
                pointer,
                format!(
                    "erratum {id}: expected {} but the schema has {}; upstream fixed or changed this — review and remove the entry",
                    expect, slot
                ),
            ),
            Some(slot) => {
                *slot = replace.clone();
                applied.push(Applied { id, pointer: pointer.to_owned(), reason: reason.to_owned() });
            }
        }
    }
    diags.into_result(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_and_detects_upstream_fix() {
        let mut s: Value = serde_json::json!({"$defs": {"A": {"type": ["string", "integer"]}}});
        let ledger = br#"{"revision":"r","errata":[{"id":"Q-1","pointer":"/$defs/A/type","expect":["string","integer"],"replace":["string","number"],"reason":"TS says number"}]}"#;
        let applied = apply("r", &mut s, ledger).unwrap();
        assert_eq!(applied.len(), 1);
        assert_eq!(s["$defs"]["A"]["type"], serde_json::json!(["string", "number"]));
        // Applying again: the expected old value is gone, so generation must stop.
        let err = apply("r", &mut s, ledger).unwrap_err();
        assert!(err.to_string().contains("upstream fixed or changed"), "{err}");
    }

    #[test]
    fn wrong_revision_is_refused() {
        let mut s = serde_json::json!({});
        assert!(apply("a", &mut s, br#"{"revision":"b","errata":[]}"#).is_err());
    }
}
