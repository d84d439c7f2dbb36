//! SARIF 2.1.0 (OASIS, the format GitHub code scanning reads) for `validate --sarif FILE`,
//! `validate --conversation FILE --sarif FILE` and `probe --sarif FILE`: one run, the driver
//! `mcpgen` with one `reportingDescriptor` per rule id that occurs (catalogue summary, clause,
//! `helpUri` into `docs/rules.md`), one result per finding. Built with `serde_json`: the log is
//! a handful of objects, not worth a typed model of the whole schema.
//!
//! Where a result is: a file and line (the message's line in a JSON Lines file or a recorded
//! session; line 1 for a whole `.json` file) as `physicalLocation`, and the JSON pointer into the
//! message as a `logicalLocation` and in `properties.pointer`; for the probe, the check name as
//! the logical location (no file: the probe reads a live server).

use std::collections::BTreeMap;
use std::path::Path;

use mcpgen::conversation::Severity;
use mcpgen::rules::Clause;
use serde_json::{json, Map, Value};

use crate::UsageError;

/// The schema a log names (`$schema`): the OASIS 2.1.0 schema with errata 01.
pub(crate) const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The rule id of a finding without one: a plain schema violation.
const SCHEMA_RULE: &str = "SCHEMA";

/// Where a result is.
pub(crate) enum Place<'a> {
    /// A line of a file (`None`: standard input, which has no URI: the line goes to `properties`).
    File { path: Option<&'a Path>, line: usize },
    /// A check of the probe.
    Check(&'a str),
}

/// One finding, as every command has it.
pub(crate) struct Entry<'a> {
    pub rule: Option<&'static str>,
    pub level: Severity,
    pub message: &'a str,
    pub pointer: &'a str,
    /// The clause at the revision the finding was judged under, with that revision's name.
    pub clause: Option<(Clause, &'a str)>,
    /// Further properties (`from`, `era`, `accepts`…).
    pub extra: Map<String, Value>,
}

/// A SARIF log being filled: the results in order, the rules they use.
#[derive(Default)]
pub(crate) struct SarifLog {
    results: Vec<(String, Value)>,
    notifications: Vec<Value>,
}

impl SarifLog {
    pub(crate) fn push(&mut self, e: Entry<'_>, at: Place<'_>) {
        let rule = e.rule.unwrap_or(SCHEMA_RULE).to_owned();
        let pointer = if e.pointer.is_empty() { "/" } else { e.pointer };
        let mut props = Map::new();
        props.insert("pointer".into(), Value::String(e.pointer.to_owned()));
        if let Some((c, revision)) = e.clause {
            props.insert(
                "clause".into(),
                json!({"revision": revision, "keyword": c.level.as_str(), "quote": c.quote, "url": c.url(revision),
                    "code": c.code}),
            );
        }
        props.extend(e.extra);
        let mut logical = vec![json!({"fullyQualifiedName": pointer, "kind": "member"})];
        let mut location = Map::new();
        match at {
            Place::File { path: Some(path), line } => {
                location.insert(
                    "physicalLocation".into(),
                    json!({"artifactLocation": {"uri": file_uri(path)}, "region": {"startLine": line.max(1)}}),
                );
            }
            Place::File { path: None, line } => {
                props.insert("line".into(), json!(line));
                props.insert("input".into(), json!("<stdin>"));
            }
            Place::Check(check) => {
                props.insert("check".into(), json!(check));
                logical.insert(0, json!({"name": check, "fullyQualifiedName": check, "kind": "function"}));
            }
        }
        location.insert("logicalLocations".into(), Value::Array(logical));
        let level = match e.level {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let result = json!({
            "ruleId": rule, "level": level, "message": {"text": e.message},
            "locations": [Value::Object(location)], "properties": Value::Object(props),
        });
        self.results.push((rule, result));
    }

    /// A note on the run itself (a check the probe skipped, why nothing was judged): a
    /// `toolExecutionNotification` of the invocation, at `level` (`note`, `warning`, `error`).
    pub(crate) fn notify(&mut self, level: &str, text: &str, check: Option<&str>) {
        let mut n = json!({"level": level, "message": {"text": text}});
        if let Some(check) = check {
            n["locations"] = json!([{"logicalLocations": [{"name": check, "kind": "function"}]}]);
        }
        self.notifications.push(n);
    }

    /// The whole log: `successful` is whether the command judged everything it was given;
    /// `properties` describe the invocation (the probed server, the input files).
    pub(crate) fn to_value(&self, successful: bool, properties: Value) -> Value {
        let ids: BTreeMap<&str, usize> = {
            let mut ids: Vec<&str> = self.results.iter().map(|(r, _)| r.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            ids.into_iter().enumerate().map(|(i, r)| (r, i)).collect()
        };
        let rules: Vec<Value> = ids.keys().map(|id| descriptor(id)).collect();
        let results: Vec<Value> = self
            .results
            .iter()
            .map(|(rule, r)| {
                let mut r = r.clone();
                r["ruleIndex"] = json!(ids[rule.as_str()]);
                r
            })
            .collect();
        json!({
            "$schema": SCHEMA_URI,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "mcpgen",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }},
                "invocations": [{
                    "executionSuccessful": successful,
                    "toolExecutionNotifications": self.notifications,
                    "properties": properties,
                }],
                "results": results,
            }],
        })
    }

    /// Writes the log to `path`.
    pub(crate) fn write(&self, path: &Path, successful: bool, properties: Value) -> Result<(), UsageError> {
        let text = serde_json::to_string_pretty(&self.to_value(successful, properties))
            .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?;
        std::fs::write(path, text + "\n").map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))
    }
}

/// The probe's report as a log: each finding at its check, each skipped check a `note`.
pub(crate) fn probe_log(report: &mcpgen_probe::Report) -> SarifLog {
    let mut log = SarifLog::default();
    for f in &report.findings {
        let revision = f.revision.map_or(mcpgen::rules::CATALOGUE_REVISION, |r| r.as_str());
        let mut extra = Map::new();
        extra.insert("revision".into(), f.revision.map(|r| r.as_str()).into());
        if let Some(a) = &f.accepts {
            extra.insert("accepts".into(), a.clone().into());
        }
        let entry = Entry {
            rule: f.rule,
            level: f.level,
            message: &f.message,
            pointer: &f.pointer,
            clause: f.clause.map(|c| (c, revision)),
            extra,
        };
        log.push(entry, Place::Check(&f.check));
    }
    for k in &report.skipped {
        log.notify("note", &format!("skipped at {}: {}", k.revision, k.reason), Some(&k.check));
    }
    if report.out_of_time {
        log.notify("warning", "the --budget ran out: the steps after it were not run", None);
    }
    log
}

/// Where a rule is explained: its anchor in `docs/rules.md` (the anchors are the ids in lower
/// case, `<a id="meta-6">`).
pub(crate) fn help_uri(id: &str) -> String {
    format!("{}/blob/main/docs/rules.md#{}", env!("CARGO_PKG_REPOSITORY"), id.to_ascii_lowercase())
}

/// The `reportingDescriptor` of rule `id`: the catalogue's summary, its own clause (level,
/// quoted sentence, page) and its help URI.
fn descriptor(id: &str) -> Value {
    let Some(rule) = mcpgen::rules::lookup(id) else {
        return json!({"id": id, "helpUri": help_uri(id)});
    };
    let clause = rule.clause();
    let mut d = json!({
        "id": rule.id,
        "shortDescription": {"text": rule.summary},
        "helpUri": help_uri(rule.id),
        "properties": {
            "level": rule.level.as_str(), "source": rule.source, "clause": rule.clause,
            "url": clause.url(mcpgen::rules::CATALOGUE_REVISION), "revision": mcpgen::rules::CATALOGUE_REVISION,
        },
    });
    if let Some(quote) = rule.clause {
        d["fullDescription"] = json!({"text": format!("{} \u{201c}{quote}\u{201d}", rule.level.as_str())});
    }
    d
}

/// A file's URI reference: a relative path stays relative (code scanning resolves it against
/// the checkout), `/` separated, with every byte outside RFC 3986's unreserved set and `/`
/// percent-encoded; an absolute path becomes a `file://` URI.
pub(crate) fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(text.len());
    if path.is_absolute() {
        out.push_str("file://");
        if !text.starts_with('/') {
            out.push('/');
        }
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris() {
        assert_eq!(file_uri(Path::new("logs/a session.jsonl")), "logs/a%20session.jsonl");
        assert_eq!(file_uri(Path::new("/tmp/x#1.jsonl")), "file:///tmp/x%231.jsonl");
        assert_eq!(file_uri(Path::new("é.json")), "%C3%A9.json");
    }
}
