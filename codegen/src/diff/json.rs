//! The report as JSON (`cargo xtask diff --format json`): the counts and every change.

use serde_json::{json, Value};

use super::{Counts, RevisionDiff, RevisionId, Subject};

impl Counts {
    fn json(self) -> Value {
        json!({"total": self.total, "readers": self.readers, "writers": self.writers, "both": self.both, "none": self.none})
    }
}

impl RevisionDiff {
    /// The report as JSON: `from`, `to`, `summary` (counts) and every change.
    pub fn to_json(&self) -> Value {
        let (all, by_kind) = self.counts();
        let rev = |r: &RevisionId| json!({"revision": r.revision, "sha256": r.sha256});
        let by_kind: serde_json::Map<String, Value> =
            by_kind.iter().map(|(k, c)| (k.as_str().to_owned(), c.json())).collect();
        let changes: Vec<Value> = self
            .changes
            .iter()
            .map(|c| {
                let subject = match &c.subject {
                    Subject::Definition { name, path } => json!({"definition": name, "path": path}),
                    Subject::Method { method, path } => json!({"method": method, "path": path}),
                };
                json!({
                    "subject": subject,
                    "kind": c.kind.as_str(),
                    "old": c.old,
                    "new": c.new,
                    "breaks": {"old_readers": c.breaks.old_readers, "old_writers": c.breaks.old_writers},
                })
            })
            .collect();
        json!({
            "from": rev(&self.from),
            "to": rev(&self.to),
            "summary": {"changes": all.json(), "by_kind": by_kind},
            "changes": changes,
        })
    }

    /// [`RevisionDiff::to_json`] as pretty-printed text with a final newline.
    pub fn to_json_string(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.to_json()).expect("JSON values always serialize");
        s.push('\n');
        s
    }
}
