//! Judging a pairing's traces: each trace file is one conversation, checked by
//! `mcpgen validate --conversation FILE --format json` (mcpgen's conversation checker, exactly
//! as a user runs it on a recording), plus the header mismatches the HTTP tap found. Every
//! finding is tied to the peer that sent the message and to the message's method (for a
//! response: the method of the request it answers), which is what a baseline entry names.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// One finding on one message of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceFinding {
    /// The trace file and line (`runs/…/http.jsonl:12`).
    pub source: String,
    /// `client` or `server`: who sent the message.
    pub from: String,
    /// The message's method, or the method of the request a response answers (`""` unknown).
    pub method: String,
    /// The catalogue id, `schema` for a plain schema violation.
    pub rule: String,
    /// `error` or `warning`.
    pub level: String,
    pub pointer: String,
    pub message: String,
}

/// Why a trace could not be checked.
#[derive(Debug)]
pub struct CheckError(pub String);

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for CheckError {}

/// Every finding of the trace files in `dir` (`http.jsonl`, `stdio-<pid>.jsonl`), checked
/// with the `mcpgen` command at `cli` (header mismatches included: the lines carry the headers).
pub fn check_dir(cli: &Path, dir: &Path) -> Result<Vec<TraceFinding>, CheckError> {
    let mut out = Vec::new();
    for trace in trace_files(dir)? {
        out.extend(check_trace(cli, &trace)?);
    }
    // The header mismatches are the replay's own findings: each client POST's line carries its
    // headers (`http`), which `validate --conversation` judges (`headers.jsonl`, the tap's
    // own list of them, is kept for reading only; counting it too would count each twice).
    Ok(out)
}

/// The trace files of a run directory, in name order.
pub fn trace_files(dir: &Path) -> Result<Vec<PathBuf>, CheckError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CheckError(format!("cannot read {}: {e}", dir.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name == "http.jsonl" || (name.starts_with("stdio-") && name.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// One conversation file through `mcpgen validate --conversation --format json`.
pub fn check_trace(cli: &Path, trace: &Path) -> Result<Vec<TraceFinding>, CheckError> {
    let output = Command::new(cli)
        .args(["validate", "--conversation"])
        .arg(trace)
        .args(["--format", "json"])
        .output()
        .map_err(|e| CheckError(format!("cannot run {}: {e}", cli.display())))?;
    // 0: no error-level finding, 1: some; anything else is a usage or I/O error.
    if !matches!(output.status.code(), Some(0 | 1)) {
        return Err(CheckError(format!(
            "{} validate --conversation {} failed ({}): {}",
            cli.display(),
            trace.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    let text =
        std::fs::read_to_string(trace).map_err(|e| CheckError(format!("cannot read {}: {e}", trace.display())))?;
    let methods = methods_by_line(&text);
    let mut out = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines().filter(|l| !l.trim().is_empty()) {
        let report: Value =
            serde_json::from_str(line).map_err(|e| CheckError(format!("unexpected mcpgen output {line:?}: {e}")))?;
        let source = report["source"].as_str().unwrap_or_default();
        let number: usize = source.rsplit(':').next().and_then(|n| n.parse().ok()).unwrap_or(0);
        let (from, method) = methods.get(&number).cloned().unwrap_or_default();
        for e in report["errors"].as_array().into_iter().flatten() {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            out.push(TraceFinding {
                source: format!("{}:{number}", trace.display()),
                from: report.get("from").and_then(Value::as_str).map_or_else(|| from.clone(), str::to_owned),
                method: method.clone(),
                rule: e.get("rule").and_then(Value::as_str).unwrap_or("schema").to_owned(),
                level: s("level"),
                pointer: s("pointer"),
                message: s("message"),
            });
        }
    }
    Ok(out)
}

/// For every line of a trace (1-based): its sender and method — a request's or
/// notification's own, a response's from the request with its id sent by the other side
/// (per session).
pub fn methods_by_line(trace: &str) -> HashMap<usize, (String, String)> {
    let mut pending: HashMap<(String, String, String), String> = HashMap::new();
    let mut out = HashMap::new();
    for (i, line) in trace.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
        let from = v["from"].as_str().unwrap_or_default().to_owned();
        let session = v["session"].as_str().unwrap_or_default().to_owned();
        let message = match (&v.get("message"), v.get("raw").and_then(Value::as_str)) {
            (Some(m), _) => (*m).clone(),
            (None, Some(raw)) => serde_json::from_str(raw).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let id = message.get("id").map(Value::to_string).unwrap_or_default();
        let method = match message.get("method").and_then(Value::as_str) {
            Some(m) => {
                if message.get("id").is_some() {
                    pending.insert((session.clone(), from.clone(), id), m.to_owned());
                }
                m.to_owned()
            }
            None => {
                let asker = if from == "client" { "server" } else { "client" };
                pending.remove(&(session, asker.to_owned(), id)).unwrap_or_default()
            }
        };
        out.insert(i + 1, (from, method));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_take_the_method_of_the_request_they_answer() {
        let trace = r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"from":"server","message":{"jsonrpc":"2.0","id":7,"method":"roots/list"}}
{"from":"client","message":{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}}
{"from":"server","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"}
{"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{}}}"#;
        let m = methods_by_line(trace);
        assert_eq!(m[&1], ("client".into(), "tools/list".into()));
        assert_eq!(m[&3], ("client".into(), "roots/list".into()));
        assert_eq!(m[&4], ("server".into(), "tools/list".into()));
        assert_eq!(m[&5], ("server".into(), String::new()), "a second answer answers nothing pending");
    }
}
