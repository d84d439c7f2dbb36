//! Running the matrix: per pairing, start the server (behind the HTTP tap, or under the client
//! behind the stdio tap), run the client to the end, check the traces, and judge the result
//! against the baseline; then the table and `results.json`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::baseline::Baseline;
use crate::check::{check_dir, TraceFinding};
use crate::plan::{Client, Launch, Pairing, Places, Server, Transport};
use crate::proxied;
use crate::tap::HttpTap;
use crate::trace::TraceWriter;

/// How long a server may take to print its URL, and a client to finish.
const SERVER_START: Duration = Duration::from_secs(30);
const CLIENT_RUN: Duration = Duration::from_secs(120);

/// One operation a client reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub op: String,
    pub target: Option<String>,
    /// `ok`, `tool_error`, `skipped`, `failed`.
    pub status: String,
    pub detail: String,
    /// The baseline entry expecting this failure.
    pub expected: Option<usize>,
}

/// One finding with the baseline entry that excuses it.
#[derive(Debug, Clone)]
pub struct Judged {
    pub finding: TraceFinding,
    pub excused_by: Option<usize>,
}

/// What one pairing did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub pairing: Pairing,
    pub seconds: f64,
    pub ops: Vec<Op>,
    pub findings: Vec<Judged>,
    /// `self-check:` lines of the reference server (each a finding on a message it sent).
    pub server_self_check: Vec<String>,
    /// The reference client's own count (`done: … M self-check finding(s)`), for information:
    /// the traces are checked by the same checker.
    pub client_self_check: Option<usize>,
    /// The run could not be completed (a side did not start, a trace could not be checked).
    pub error: Option<String>,
    /// `--via-proxy`: how the proxy's findings differ from the tap's (empty: the same).
    pub proxy_differences: Vec<String>,
}

impl Outcome {
    fn failed_ops(&self) -> impl Iterator<Item = &Op> {
        self.ops.iter().filter(|o| o.status == "failed" && o.expected.is_none())
    }
    fn new_findings(&self) -> impl Iterator<Item = &Judged> {
        self.findings.iter().filter(|j| j.excused_by.is_none())
    }
    /// Whether the pairing passed: no error, no unexpected failure, no unexcused finding, no
    /// reference-server self-check finding.
    pub fn passed(&self) -> bool {
        self.error.is_none()
            && self.failed_ops().next().is_none()
            && self.new_findings().next().is_none()
            && self.server_self_check.is_empty()
            && self.proxy_differences.is_empty()
    }
}

/// A started child whose stdout is drained into a file after its URL line.
pub(crate) struct Started {
    child: Child,
    pub(crate) url: String,
}

fn command(l: &Launch) -> Command {
    let mut c = Command::new(&l.program);
    c.args(&l.args).envs(l.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))).kill_on_drop(true);
    c
}

/// Starts an HTTP server and reads its stdout until `listening on URL`.
pub(crate) async fn start_server(l: &Launch, dir: &Path) -> Result<Started, String> {
    let stderr = std::fs::File::create(dir.join("server.stderr")).map_err(|e| e.to_string())?;
    let mut child = command(l)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", l.program.display()))?;
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let found = tokio::time::timeout(SERVER_START, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.split("listening on ").nth(1) {
                return Some(url.trim().to_owned());
            }
        }
        None
    })
    .await;
    let url = match found {
        Ok(Some(url)) => url,
        Ok(None) => return Err(format!("{} ended without printing its URL (see server.stderr)", l.program.display())),
        Err(_) => return Err(format!("{} printed no URL within {SERVER_START:?}", l.program.display())),
    };
    // Keep reading stdout so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Started { child, url })
}

/// Runs the client to the end (or the time limit); its output goes to `client.stdout` /
/// `client.stderr`.
async fn run_client(l: &Launch, dir: &Path) -> Result<(Option<i32>, bool), String> {
    let out = std::fs::File::create(dir.join("client.stdout")).map_err(|e| e.to_string())?;
    let err = std::fs::File::create(dir.join("client.stderr")).map_err(|e| e.to_string())?;
    let mut child = command(l)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", l.program.display()))?;
    match tokio::time::timeout(CLIENT_RUN, child.wait()).await {
        Ok(status) => Ok((status.map_err(|e| e.to_string())?.code(), false)),
        Err(_) => {
            let _ = child.kill().await;
            Ok((None, true))
        }
    }
}

/// The operations an SDK driver printed on `stdout`: its `@@op` lines, each a JSON object
/// (`op`, `target`, `status`, `detail`, `code`); a line that is no JSON is skipped.
pub(crate) fn op_lines(stdout: &str) -> impl Iterator<Item = Value> + '_ {
    stdout.lines().filter_map(|l| l.strip_prefix("@@op ")).filter_map(|l| serde_json::from_str::<Value>(l).ok())
}

/// The operations of a client: `@@op` lines (the SDK drivers) or the report file
/// (`mcpgen-reference-client`, one JSON object per line).
fn read_ops(dir: &Path, report: &Path, reference: bool) -> Vec<Op> {
    let ops: Vec<Value> = if reference {
        let text = std::fs::read_to_string(report).unwrap_or_default();
        text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).collect()
    } else {
        op_lines(&std::fs::read_to_string(dir.join("client.stdout")).unwrap_or_default()).collect()
    };
    ops.into_iter()
        .map(|v| {
            let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            Op {
                op: s("op"),
                target: v["target"].as_str().map(str::to_owned),
                status: s("status"),
                detail: s("detail"),
                expected: None,
            }
        })
        .collect()
}

fn self_check_lines(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("server.stderr")).unwrap_or_default();
    text.lines().filter(|l| l.starts_with("self-check:")).map(str::to_owned).collect()
}

/// `done: N failed call(s), M self-check finding(s)` of the reference client.
fn client_self_check(dir: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(dir.join("client.stderr")).unwrap_or_default();
    let line = text.lines().rev().find(|l| l.contains(" self-check finding(s)"))?;
    line.rsplit(", ").next()?.split(' ').next()?.parse().ok()
}

/// Runs one pairing in `run_dir` (emptied first).
pub async fn run_pairing(p: &Pairing, places: &Places, run_dir: &Path, baseline: &Baseline) -> Outcome {
    let start = Instant::now();
    let mut outcome = Outcome {
        pairing: *p,
        seconds: 0.0,
        ops: Vec::new(),
        findings: Vec::new(),
        server_self_check: Vec::new(),
        client_self_check: None,
        error: None,
        proxy_differences: Vec::new(),
    };
    let _ = std::fs::remove_dir_all(run_dir);
    if let Err(e) = std::fs::create_dir_all(run_dir) {
        outcome.error = Some(format!("cannot create {}: {e}", run_dir.display()));
        return outcome;
    }
    let report = run_dir.join("client-report.jsonl");
    let ran = match p.transport {
        Transport::Http => run_http(p, places, run_dir, &report).await,
        Transport::Stdio => {
            let client = places.client(p, None, run_dir, &report);
            run_client(&client, run_dir).await
        }
    };
    let reference_client = matches!(p.client, Client::Reference(_));
    outcome.ops = read_ops(run_dir, &report, reference_client);
    match ran {
        Err(e) => outcome.error = Some(e),
        Ok((code, timed_out)) => {
            let finished = outcome.ops.iter().any(|o| o.op == "close");
            let connected = outcome.ops.iter().any(|o| o.op == "connect" && o.status != "failed");
            if timed_out || (!finished && connected) {
                let why = if timed_out { format!("timed out after {CLIENT_RUN:?}") } else { format!("exit {code:?}") };
                outcome.ops.push(op_failed("close", &format!("the client did not finish ({why}; see client.stderr)")));
            } else if !connected && !outcome.ops.iter().any(|o| o.op == "connect") {
                let err = std::fs::read_to_string(run_dir.join("client.stderr")).unwrap_or_default();
                let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output").to_owned();
                outcome.ops.insert(0, op_failed("connect", &last));
            }
        }
    }
    for o in &mut outcome.ops {
        if o.status == "failed" {
            o.expected = baseline.expected_failure(&p.id(), &o.op, o.target.as_deref());
        }
    }
    match check_dir(&places.bin.join("mcpgen"), run_dir) {
        Ok(mut found) => {
            if places.via_proxy && p.transport == Transport::Http {
                match proxied::report_findings(&run_dir.join("proxy-report.jsonl")) {
                    Ok(by_proxy) => {
                        outcome.proxy_differences = proxied::differences(&found, &by_proxy);
                        // What only the proxy can see is judged like the rest.
                        found.extend(
                            by_proxy.into_iter().filter(|f| proxied::TRANSPORT_ONLY.contains(&f.rule.as_str())),
                        );
                    }
                    Err(e) => outcome.error = Some(e),
                }
            }
            outcome.findings =
                found.into_iter().map(|f| Judged { excused_by: baseline.excuse(p, &f), finding: f }).collect();
        }
        Err(e) => outcome.error = Some(e.to_string()),
    }
    if p.server == Server::Reference {
        outcome.server_self_check = self_check_lines(run_dir);
    }
    if reference_client {
        outcome.client_self_check = client_self_check(run_dir);
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    outcome
}

fn op_failed(op: &str, detail: &str) -> Op {
    Op { op: op.into(), target: None, status: "failed".into(), detail: detail.into(), expected: None }
}

async fn run_http(p: &Pairing, places: &Places, dir: &Path, report: &Path) -> Result<(Option<i32>, bool), String> {
    let mut server = start_server(&places.server(p.server, Transport::Http), dir).await?;
    let trace = TraceWriter::create(&dir.join("http.jsonl"), Some(&dir.join("headers.jsonl")))
        .map_err(|e| format!("cannot create the trace: {e}"))?;
    let proxy = match places.via_proxy {
        true => Some(proxied::start(&places.bin.join("mcpgen"), &server.url, dir).await?),
        false => None,
    };
    let upstream = proxy.as_ref().map_or(server.url.as_str(), |p| p.url.as_str());
    let tap = HttpTap::start(upstream, trace).await.map_err(|e| format!("cannot start the HTTP tap: {e}"))?;
    let ran = run_client(&places.client(p, Some(&tap.url), dir, report), dir).await;
    // Let a last stream event reach the trace before the server goes.
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(tap);
    if let Some(proxy) = proxy {
        proxy.stop().await;
    }
    let _ = server.child.kill().await;
    ran
}

/// The table's columns: a heading and the operations it counts.
const COLUMNS: [(&str, &[&str]); 9] = [
    ("connect", &["connect"]),
    ("ping", &["ping"]),
    ("logging", &["logging"]),
    ("tools", &["tools/list", "tools/call"]),
    ("prompts", &["prompts/list", "prompts/get"]),
    ("resources", &["resources/list", "resources/read", "resources/templates/list"]),
    ("completion", &["completion/complete"]),
    ("subscriptions", &["subscriptions"]),
    ("close", &["close", "driver"]),
];

/// One cell: `ok` / `skip` / `FAIL` for one operation, `n/m` answered of attempted for several
/// (with skipped and expected failures noted), `—` when the client has no such operation.
pub fn cell(ops: &[&Op]) -> String {
    if ops.is_empty() {
        return "—".into();
    }
    let answered = ops.iter().filter(|o| o.status == "ok" || o.status == "tool_error").count();
    let skipped = ops.iter().filter(|o| o.status == "skipped").count();
    let xfail = ops.iter().filter(|o| o.status == "failed" && o.expected.is_some()).count();
    let failed = ops.iter().filter(|o| o.status == "failed" && o.expected.is_none()).count();
    if ops.len() == 1 {
        return match (answered, skipped, xfail) {
            (1, _, _) => "ok".into(),
            (_, 1, _) => "skip".into(),
            (_, _, 1) => "xfail".into(),
            _ => "FAIL".into(),
        };
    }
    let mut s = format!("{answered}/{}", ops.len() - skipped);
    let mut notes = Vec::new();
    if skipped > 0 {
        notes.push(format!("{skipped} skip"));
    }
    if xfail > 0 {
        notes.push(format!("{xfail} xfail"));
    }
    if !notes.is_empty() {
        s.push_str(&format!(" ({})", notes.join(", ")));
    }
    if failed > 0 {
        s.push_str(" FAIL");
    }
    s
}

fn findings_cell(o: &Outcome) -> String {
    let new = o.new_findings().count();
    let total = o.findings.len();
    let mut s = match (total, new) {
        (0, _) => "0".to_owned(),
        (t, 0) => format!("{t} (baselined)"),
        (t, n) => format!("{t} ({n} NEW)"),
    };
    if !o.server_self_check.is_empty() {
        s.push_str(&format!(", server self-check {} FAIL", o.server_self_check.len()));
    }
    s
}

/// The table in Markdown (what `cargo xtask interop` prints and docs/reference.md shows).
pub fn table(outcomes: &[Outcome]) -> String {
    let mut out = String::from("| pairing |");
    for (h, _) in COLUMNS {
        out.push_str(&format!(" {h} |"));
    }
    out.push_str(" findings | s |\n|---|");
    out.push_str(&"---|".repeat(COLUMNS.len() + 2));
    out.push('\n');
    for o in outcomes {
        out.push_str(&format!("| {} |", o.pairing.id()));
        for (_, names) in COLUMNS {
            let ops: Vec<&Op> = o.ops.iter().filter(|x| names.contains(&x.op.as_str())).collect();
            out.push_str(&format!(" {} |", cell(&ops)));
        }
        let error = o.error.as_ref().map(|e| format!(" ERROR: {e}")).unwrap_or_default();
        out.push_str(&format!(" {}{error} | {:.1} |\n", findings_cell(o), o.seconds));
    }
    out
}

/// `results.json`: every pairing's operations and findings, the baseline's use, the verdict.
pub fn results_json(outcomes: &[Outcome], baseline: &Baseline, stale: &[String], seconds: f64) -> Value {
    let pairings: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            json!({
                "id": o.pairing.id(),
                "client": o.pairing.client.peer(),
                "mode": o.pairing.client.mode(),
                "server": o.pairing.server.peer(),
                "server_variant": o.pairing.server.variant(),
                "transport": o.pairing.transport.as_str(),
                "passed": o.passed(),
                "seconds": (o.seconds * 10.0).round() / 10.0,
                "error": o.error,
                "operations": o.ops.iter().map(|x| json!({
                    "op": x.op, "target": x.target, "status": x.status, "detail": x.detail,
                    "expected_failure": x.expected.map(|i| &baseline.operation[i].reason),
                })).collect::<Vec<_>>(),
                "findings": o.findings.iter().map(|j| json!({
                    "source": j.finding.source, "from": j.finding.from, "method": j.finding.method,
                    "rule": j.finding.rule, "level": j.finding.level, "pointer": j.finding.pointer,
                    "message": j.finding.message,
                    "baseline": j.excused_by.map(|i| &baseline.finding[i].reason),
                })).collect::<Vec<_>>(),
                "server_self_check": o.server_self_check,
                "client_self_check": o.client_self_check,
                "proxy_differences": o.proxy_differences,
            })
        })
        .collect();
    json!({
        "passed": outcomes.iter().all(Outcome::passed) && stale.is_empty(),
        "seconds": (seconds * 10.0).round() / 10.0,
        "pairings": pairings,
        "stale_baseline_entries": stale,
    })
}

/// Baseline entries nothing matched (only meaningful when the whole matrix ran).
pub fn stale_entries(outcomes: &[Outcome], baseline: &Baseline) -> Vec<String> {
    let mut out = Vec::new();
    for (i, e) in baseline.finding.iter().enumerate() {
        if !outcomes.iter().any(|o| o.findings.iter().any(|j| j.excused_by == Some(i))) {
            out.push(format!("finding {} ({} {}): {}", i + 1, e.sdk, e.rule, e.reason));
        }
    }
    for (i, e) in baseline.operation.iter().enumerate() {
        if !outcomes.iter().any(|o| o.ops.iter().any(|x| x.expected == Some(i))) {
            out.push(format!("operation {} ({} {}): {}", i + 1, e.pairing, e.op, e.reason));
        }
    }
    out
}

/// What went wrong, for the end of the output (empty when the run passed).
pub fn problems(outcomes: &[Outcome], stale: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for o in outcomes {
        let id = o.pairing.id();
        if let Some(e) = &o.error {
            out.push(format!("{id}: {e}"));
        }
        for x in o.failed_ops() {
            let target = x.target.as_deref().map(|t| format!(" {t}")).unwrap_or_default();
            out.push(format!("{id}: {}{target} failed: {}", x.op, x.detail));
        }
        for j in o.new_findings() {
            let f = &j.finding;
            out.push(format!(
                "{id}: {} message at {} ({}): {} {} at {}: {}",
                f.from, f.source, f.method, f.level, f.rule, f.pointer, f.message
            ));
        }
        for l in &o.server_self_check {
            out.push(format!("{id}: reference server {l}"));
        }
        for d in &o.proxy_differences {
            out.push(format!("{id}: through the proxy: {d}"));
        }
    }
    out.extend(stale.iter().map(|s| format!("stale baseline entry: {s}")));
    out
}

/// The run's directory for one pairing.
pub fn run_dir(places: &Places, p: &Pairing) -> PathBuf {
    places.dir.join(if places.via_proxy { "runs-via-proxy" } else { "runs" }).join(p.slug())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(status: &str, expected: bool) -> Op {
        Op {
            op: "tools/call".into(),
            target: None,
            status: status.into(),
            detail: String::new(),
            expected: expected.then_some(0),
        }
    }

    #[test]
    fn cells_count_answers_of_attempts_and_mark_failures() {
        let (ok, err, skip, fail, xfail) =
            (op("ok", false), op("tool_error", false), op("skipped", false), op("failed", false), op("failed", true));
        assert_eq!(cell(&[]), "—");
        assert_eq!(cell(&[&ok]), "ok");
        assert_eq!(cell(&[&skip]), "skip");
        assert_eq!(cell(&[&fail]), "FAIL");
        assert_eq!(cell(&[&xfail]), "xfail");
        assert_eq!(cell(&[&ok, &err, &skip]), "2/2 (1 skip)");
        assert_eq!(cell(&[&ok, &fail, &xfail]), "1/3 (1 xfail) FAIL");
    }
}
