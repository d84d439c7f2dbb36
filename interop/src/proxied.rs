//! The HTTP pairings again with `mcpgen proxy --listen` between the tap and the server
//! (`mcpgen-interop run --via-proxy`): client → tap → proxy → server. The tap's trace is what a
//! direct tap gives (the proxy is transparent to it); the proxy's report must hold the same
//! findings, and every operation must work as it does directly (the same baseline judges it).
//! The findings only the proxy can make (the transport's rules on answers: HTTP-6, HTTP-9,
//! ERR-8) are judged like any other finding.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::check::TraceFinding;

/// Rules the proxy judges on what the HTTP layer carried and a tap's trace cannot show.
pub const TRANSPORT_ONLY: [&str; 3] = ["HTTP-6", "HTTP-9", "ERR-8"];

/// A running proxy; SIGTERM ends it (it then writes out its report).
pub struct RunningProxy {
    child: Child,
    pub url: String,
}

/// Starts `mcpgen proxy --listen 127.0.0.1:0 --upstream URL` with its report and record in
/// `dir` (`proxy-report.jsonl`, `proxy-record.jsonl`; stderr in `proxy.stderr`).
pub async fn start(mcpgen: &Path, upstream: &str, dir: &Path) -> Result<RunningProxy, String> {
    start_with(mcpgen, upstream, dir, &[]).await
}

/// [`start`] with more options (`--enforce`).
pub async fn start_with(mcpgen: &Path, upstream: &str, dir: &Path, options: &[&str]) -> Result<RunningProxy, String> {
    let stderr = std::fs::File::create(dir.join("proxy.stderr")).map_err(|e| e.to_string())?;
    let mut child = Command::new(mcpgen)
        .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--max-repeats", "1000000"])
        .args(options)
        .arg("--report")
        .arg(dir.join("proxy-report.jsonl"))
        .arg("--record")
        .arg(dir.join("proxy-record.jsonl"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", mcpgen.display()))?;
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .map_err(|_| "the proxy printed no URL within 30 s".to_owned())?
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
    match line.strip_prefix("listening on ") {
        Some(url) => Ok(RunningProxy { child, url: url.trim().to_owned() }),
        None => Err(format!("the proxy did not print its URL (got {line:?}; see proxy.stderr)")),
    }
}

impl RunningProxy {
    /// SIGTERM, and waits (at most 10 s) for it to exit.
    pub async fn stop(mut self) {
        if let Some(pid) = self.child.id() {
            let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status().await;
        }
        if tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await.is_err() {
            let _ = self.child.kill().await;
        }
    }
}

/// `(from, rule)` → count.
type Tally = BTreeMap<(String, String), usize>;

/// The findings of the proxy's report, `(from, rule)` each (`schema` for a plain schema
/// violation, as the trace check names it).
pub fn report_findings(report: &Path) -> Result<Vec<TraceFinding>, String> {
    let text = std::fs::read_to_string(report).map_err(|e| format!("cannot read {}: {e}", report.display()))?;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{}: not JSON: {e}", report.display()))?;
        let from = v["from"].as_str().unwrap_or_default().to_owned();
        for e in v["errors"].as_array().into_iter().flatten() {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            out.push(TraceFinding {
                source: v["source"].as_str().unwrap_or_default().to_owned(),
                from: from.clone(),
                method: String::new(),
                rule: e.get("rule").and_then(Value::as_str).unwrap_or("schema").to_owned(),
                level: s("level"),
                pointer: s("pointer"),
                message: format!("proxy: {}", s("message")),
            });
        }
    }
    Ok(out)
}

fn tally<'f>(findings: impl Iterator<Item = &'f TraceFinding>) -> Tally {
    let mut t = Tally::new();
    for f in findings {
        *t.entry((f.from.clone(), f.rule.clone())).or_default() += 1;
    }
    t
}

/// How the proxy's findings differ from the tap's, `(from, rule)` by `(from, rule)` (the
/// transport-only rules left out): one line per difference.
pub fn differences(tap: &[TraceFinding], proxy: &[TraceFinding]) -> Vec<String> {
    let shared = |f: &&TraceFinding| !TRANSPORT_ONLY.contains(&f.rule.as_str());
    let (a, b) = (tally(tap.iter().filter(shared)), tally(proxy.iter().filter(shared)));
    let mut keys: Vec<&(String, String)> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (a.get(k).copied().unwrap_or(0), b.get(k).copied().unwrap_or(0));
            (x != y).then(|| format!("{} finding(s) on {} messages: {x} by the tap, {y} by the proxy", k.1, k.0))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(from: &str, rule: &str) -> TraceFinding {
        TraceFinding {
            source: String::new(),
            from: from.into(),
            method: String::new(),
            rule: rule.into(),
            level: "error".into(),
            pointer: String::new(),
            message: String::new(),
        }
    }

    #[test]
    fn findings_are_compared_by_sender_and_rule_and_count() {
        let tap = [f("server", "LOG-5"), f("server", "LOG-5"), f("client", "HTTP-8")];
        let same = [f("client", "HTTP-8"), f("server", "LOG-5"), f("server", "LOG-5"), f("server", "HTTP-6")];
        assert!(differences(&tap, &same).is_empty(), "order and transport-only rules do not count");
        let fewer = [f("server", "LOG-5"), f("client", "HTTP-8")];
        assert_eq!(differences(&tap, &fewer), ["LOG-5 finding(s) on server messages: 2 by the tap, 1 by the proxy"]);
        assert_eq!(differences(&[], &[f("client", "schema")]).len(), 1);
    }
}
