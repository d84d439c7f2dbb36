//! `mcpgen-interop invalid-args`: the official SDK clients (TypeScript `@modelcontextprotocol/client`
//! 2.x and Python `mcp`, both eras) call a real server's tool with arguments that break its
//! `inputSchema`, through the stdio proxy and through `proxy --listen`, without and with
//! `--enforce` (issue 35). The server is `drivers/py-server.py` on the Python SDK, run with
//! `--call-log`: its own log of every `tools/call` it received, written before the SDK looks
//! at the arguments.
//!
//! Each client lists the tools, calls `add` once with valid arguments, then once with `a` a
//! string where the schema asks a number. Every run must show:
//! - the proxy's report: exactly one finding, TOOL-7 on the client's call, at
//!   `/params/arguments/a` (the valid call and the server's answers have none: mcp 2.3.0
//!   answers invalid arguments with a tool error, which TOOL-8 accepts at every revision);
//! - without `--enforce`: both calls in the server's log, and the client gets the server's
//!   tool error;
//! - with `--enforce`: only the valid call in the server's log, and the client gets the
//!   proxy's answer for the revision in play (docs/proxy.md, "Tools at the gateway"): a tool
//!   error `isError: true` in 2025-11-25 and 2026-07-28 alike (the SDK clients speak no older
//!   revision; the -32602 of 2024-11-05 to 2025-06-18 is tested with mcpgen's own client in
//!   `bindings/cli/tests/tools_enforce.rs`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::process::Command;

use crate::check::TraceFinding;
use crate::concurrent::client_launch;
use crate::plan::{Client, Places, Server, Transport, LEGACY, MODERN};
use crate::proxied;
use crate::run::start_server;

/// What `--only` is compared with.
pub const ID: &str = "SDK clients with invalid tool arguments through the proxies";
/// How long each client may run.
const CLIENT_RUN: Duration = Duration::from_secs(60);
/// How many cases run at once (each is a server, a proxy and a client).
const AT_ONCE: usize = 4;

/// The clients: both languages, both eras (the TypeScript v1 SDK is 2025-era only, like
/// the v2 client in `legacy`).
pub const CLIENTS: [Client; 4] =
    [Client::TsV2(LEGACY), Client::TsV2(MODERN), Client::Python(LEGACY), Client::Python(MODERN)];
/// The tool called: `add(a: number, b: number)` of `drivers/py-server.py`.
pub const TOOL: &str = "add";
/// Where the one schema error of [`invalid_arguments`] is.
pub const POINTER: &str = "/params/arguments/a";

/// Arguments the listed schema accepts.
pub fn valid_arguments() -> Value {
    json!({"a": 2, "b": 3})
}

/// Arguments with exactly one fault: `a` is a string, the schema asks a number.
pub fn invalid_arguments() -> Value {
    json!({"a": "two", "b": 3})
}

/// One run: a client, a proxy on one transport, with or without `--enforce`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Case {
    pub client: Client,
    pub transport: Transport,
    pub enforce: bool,
}

impl Case {
    /// `py-client:legacy over stdio --enforce`.
    pub fn id(&self) -> String {
        let enforce = if self.enforce { " --enforce" } else { "" };
        format!("{}:{} over {}{enforce}", self.client.peer(), self.client.mode(), self.transport.as_str())
    }
    fn slug(&self) -> String {
        self.id().replace([' ', ':'], "-").replace("--", "-")
    }
}

/// Every case, in run order.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for enforce in [false, true] {
        for transport in [Transport::Stdio, Transport::Http] {
            out.extend(CLIENTS.iter().map(|&client| Case { client, transport, enforce }));
        }
    }
    out
}

/// One `@@op` line of a driver.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOp {
    pub op: String,
    pub target: Option<String>,
    pub status: String,
    pub detail: String,
    /// The JSON-RPC error code that ended it, if one did.
    pub code: Option<i64>,
}

/// What one case did.
#[derive(Debug, Clone, Default)]
pub struct CaseRun {
    pub ops: Vec<CallOp>,
    /// The server's log: one `{"id", "name", "arguments"}` per `tools/call` it received.
    pub server_calls: Vec<Value>,
    /// The proxy's report.
    pub findings: Vec<TraceFinding>,
    /// Did not start, or did not end within its time.
    pub error: Option<String>,
}

/// Why a case fails, one line each (empty: passed). The expectations are written out here,
/// not derived from the checker.
pub fn problems(case: &Case, run: &CaseRun) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(e) = &run.error {
        out.push(e.clone());
    }
    let listed = run.ops.iter().any(|o| o.op == "tools/list" && o.status == "ok");
    if !listed {
        out.push("tools/list did not succeed".into());
    }
    let calls: Vec<&CallOp> = run.ops.iter().filter(|o| o.op == "tools/call").collect();
    match calls.as_slice() {
        [valid, invalid] => {
            if valid.status != "ok" {
                out.push(format!("the valid call: {} ({}), not a result", valid.status, valid.detail));
            }
            let proxy_text = invalid.detail.starts_with("the arguments break");
            match (case.enforce, invalid.status.as_str()) {
                // docs/proxy.md: from 2025-11-25 on the proxy answers with a tool error.
                (true, "tool_error") if proxy_text => {}
                (false, "tool_error") if !proxy_text => {}
                (enforce, status) => out.push(format!(
                    "the invalid call: {status} {:?} ({}); expected {}",
                    invalid.code,
                    invalid.detail.lines().next().unwrap_or_default(),
                    if enforce {
                        "the proxy's tool error (`isError: true`, \"the arguments break …\")"
                    } else {
                        "the server's own tool error"
                    }
                )),
            }
        }
        other => out.push(format!("{} tools/call operation(s) reported, expected 2", other.len())),
    }
    let logged: Vec<&Value> = run.server_calls.iter().map(|c| &c["arguments"]).collect();
    let (valid, invalid) = (valid_arguments(), invalid_arguments());
    let expected: Vec<&Value> = if case.enforce { vec![&valid] } else { vec![&valid, &invalid] };
    if logged != expected {
        out.push(format!(
            "the server's log holds the calls with arguments {}; expected {}",
            Value::from(logged.into_iter().cloned().collect::<Vec<_>>()),
            Value::from(expected.into_iter().cloned().collect::<Vec<_>>())
        ));
    }
    if run.server_calls.iter().any(|c| c["name"] != TOOL) {
        out.push(format!("the server's log names another tool than {TOOL}"));
    }
    let one =
        |f: &TraceFinding| f.rule == "TOOL-7" && f.from == "client" && f.level == "warning" && f.pointer == POINTER;
    if !(run.findings.len() == 1 && one(&run.findings[0])) {
        let got: Vec<String> = run
            .findings
            .iter()
            .map(|f| format!("{} {} {} at {}: {}", f.from, f.level, f.rule, f.pointer, f.message))
            .collect();
        out.push(format!(
            "the proxy reported [{}]; expected exactly one: client warning TOOL-7 at {POINTER}",
            got.join("; ")
        ));
    }
    out
}

/// The `@@op` lines of a driver's stdout.
fn read_ops(stdout: &str) -> Vec<CallOp> {
    crate::run::op_lines(stdout)
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            CallOp {
                op: s("op"),
                target: v["target"].as_str().map(str::to_owned),
                status: s("status"),
                detail: s("detail"),
                code: v["code"].as_i64(),
            }
        })
        .collect()
}

/// The server's call log (missing: no call arrived).
fn read_call_log(path: &Path) -> Result<Vec<Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: not JSON: {e}", path.display())))
        .collect()
}

/// The client's arguments: `--calls` put before `--url` / `--command` (the drivers read
/// everything after `--command` as the server's command line).
fn with_calls(mut args: Vec<String>) -> Vec<String> {
    let calls = json!([[TOOL, valid_arguments()], [TOOL, invalid_arguments()]]).to_string();
    let at = args.iter().position(|a| a == "--url" || a == "--command").unwrap_or(args.len());
    args.splice(at..at, ["--calls".to_owned(), calls]);
    args
}

/// Runs one case in `dir` (emptied first).
async fn run_case(places: &Places, case: Case, dir: &Path) -> CaseRun {
    let mut run = CaseRun::default();
    let _ = std::fs::remove_dir_all(dir);
    if let Err(e) = std::fs::create_dir_all(dir) {
        run.error = Some(format!("cannot create {}: {e}", dir.display()));
        return run;
    }
    let mcpgen = places.bin.join("mcpgen");
    let log = dir.join("server-calls.jsonl");
    let report = dir.join("proxy-report.jsonl");
    let enforce: &[&str] = if case.enforce { &["--enforce"] } else { &[] };
    let mode = if case.transport == Transport::Http { "sessionful" } else { "stdio" };
    let mut server = places.server(Server::Python(mode), case.transport);
    server.args.extend(["--call-log".to_owned(), log.display().to_string()]);
    let ran = match case.transport {
        Transport::Stdio => {
            let mut proxy = vec![mcpgen.display().to_string(), "proxy".into()];
            proxy.extend(enforce.iter().map(|s| (*s).to_owned()));
            proxy.extend(["--report".into(), report.display().to_string(), "--record".into()]);
            proxy.extend([dir.join("proxy-record.jsonl").display().to_string(), "--".into()]);
            proxy.push(server.program.display().to_string());
            proxy.extend(server.args.iter().cloned());
            let mut l = client_launch(places, case.client, None, &proxy, dir);
            l.args = with_calls(l.args);
            run_client(&l, dir).await
        }
        Transport::Http => match start_server(&server, dir).await {
            Err(e) => Err(e),
            Ok(started) => match proxied::start_with(&mcpgen, &started.url, dir, enforce).await {
                Err(e) => Err(e),
                Ok(proxy) => {
                    let mut l = client_launch(places, case.client, Some(&proxy.url), &[], dir);
                    l.args = with_calls(l.args);
                    let ran = run_client(&l, dir).await;
                    proxy.stop().await;
                    drop(started);
                    ran
                }
            },
        },
    };
    if let Err(e) = ran {
        run.error = Some(e);
    }
    run.ops = read_ops(&std::fs::read_to_string(dir.join("client.stdout")).unwrap_or_default());
    match read_call_log(&log) {
        Ok(calls) => run.server_calls = calls,
        Err(e) => run.error = run.error.take().or(Some(e)),
    }
    match proxied::report_findings(&report) {
        Ok(f) => run.findings = f,
        Err(e) => run.error = run.error.take().or(Some(e)),
    }
    run
}

/// Runs the client to its end (at most [`CLIENT_RUN`]); its output into `client.stdout` /
/// `client.stderr`. A stdio proxy is the client's child: it has written its report when the
/// client has ended it.
async fn run_client(l: &crate::plan::Launch, dir: &Path) -> Result<(), String> {
    let out = std::fs::File::create(dir.join("client.stdout")).map_err(|e| e.to_string())?;
    let err = std::fs::File::create(dir.join("client.stderr")).map_err(|e| e.to_string())?;
    let mut c = Command::new(&l.program);
    c.args(&l.args).envs(l.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))).kill_on_drop(true);
    let mut child = c
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", l.program.display()))?;
    match tokio::time::timeout(CLIENT_RUN, child.wait()).await {
        Ok(_) => Ok(()),
        Err(_) => {
            let _ = child.kill().await;
            Err(format!("the client did not end within {CLIENT_RUN:?} (see client.stderr)"))
        }
    }
}

/// Runs every case (`AT_ONCE` at a time; skipped when `only` is given and not part of
/// [`ID`]), prints one line per case and what failed, writes `invalid-args-results.json`;
/// true when every case showed what the module's docs say.
pub async fn run_invalid_args(places: &Places, only: Option<&str>) -> Result<bool, String> {
    if only.is_some_and(|o| !ID.contains(o)) {
        return Err(format!("nothing in {ID:?} matches {:?}", only.unwrap_or_default()));
    }
    for (what, path) in [("mcpgen", places.bin.join("mcpgen")), ("the SDK venv", places.python())] {
        if !path.exists() {
            return Err(format!("{what} is not built or installed: no {}", path.display()));
        }
    }
    let start = Instant::now();
    let root = places.dir.join("invalid-args");
    std::fs::create_dir_all(&root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let all = cases();
    let mut results = Vec::new();
    let mut failed = 0;
    for chunk in all.chunks(AT_ONCE) {
        let mut waiting = Vec::new();
        for &case in chunk {
            let (places, dir): (Places, PathBuf) = (places.clone(), root.join(case.slug()));
            waiting.push(tokio::spawn(async move {
                let started = Instant::now();
                let run = run_case(&places, case, &dir).await;
                (case, run, started.elapsed().as_secs_f64())
            }));
        }
        for w in waiting {
            let (case, run, seconds) = w.await.map_err(|e| e.to_string())?;
            let problems = problems(&case, &run);
            let verdict = if problems.is_empty() { "ok" } else { "FAILED" };
            println!("  {} — {verdict} ({seconds:.1} s)", case.id());
            for p in &problems {
                println!("    {p}");
            }
            failed += usize::from(!problems.is_empty());
            results.push(json!({
                "case": case.id(),
                "passed": problems.is_empty(),
                "seconds": (seconds * 10.0).round() / 10.0,
                "operations": run.ops.iter().map(|o| json!({"op": o.op, "target": o.target, "status": o.status, "detail": o.detail, "code": o.code})).collect::<Vec<_>>(),
                "server_calls": run.server_calls,
                "findings": run.findings.iter().map(|f| json!({"from": f.from, "rule": f.rule, "level": f.level, "pointer": f.pointer, "message": f.message})).collect::<Vec<_>>(),
                "problems": problems,
            }));
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let path = places.invalid_args_results_file();
    let doc = json!({"passed": failed == 0, "seconds": (seconds * 10.0).round() / 10.0, "cases": results});
    let pretty = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(&path, pretty + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "{} case(s) in {seconds:.1} s, {failed} failed: SDK clients calling {TOOL} with invalid arguments through \
         both proxies; results in {}",
        all.len(),
        path.display()
    );
    Ok(failed == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &str, pointer: &str) -> TraceFinding {
        TraceFinding {
            source: String::new(),
            from: "client".into(),
            method: String::new(),
            rule: rule.into(),
            level: "warning".into(),
            pointer: pointer.into(),
            message: String::new(),
        }
    }

    fn op(op: &str, status: &str, detail: &str) -> CallOp {
        CallOp { op: op.into(), target: None, status: status.into(), detail: detail.into(), code: None }
    }

    /// What a passing enforced case shows.
    fn enforced() -> CaseRun {
        CaseRun {
            ops: vec![
                op("tools/list", "ok", ""),
                op("tools/call", "ok", ""),
                op("tools/call", "tool_error", "the arguments break the tool's inputSchema: …"),
                op("close", "ok", ""),
            ],
            server_calls: vec![json!({"id": 2, "name": "add", "arguments": {"a": 2, "b": 3}})],
            findings: vec![finding("TOOL-7", "/params/arguments/a")],
            error: None,
        }
    }

    const ENFORCED: Case = Case { client: Client::Python(LEGACY), transport: Transport::Stdio, enforce: true };
    const RELAYED: Case = Case { client: Client::TsV2(MODERN), transport: Transport::Http, enforce: false };

    #[test]
    fn an_enforced_case_passes_only_when_the_server_never_saw_the_invalid_call() {
        assert_eq!(problems(&ENFORCED, &enforced()), Vec::<String>::new());
        let mut leaked = enforced();
        leaked.server_calls.push(json!({"id": 3, "name": "add", "arguments": {"a": "two", "b": 3}}));
        let p = problems(&ENFORCED, &leaked);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("the server's log holds the calls with arguments [{\"a\":2,\"b\":3},{\"a\":\"two\""),
            "{p:?}"
        );
        // The server's own tool error instead of the proxy's: the call got through.
        let mut answered_by_server = enforced();
        answered_by_server.ops[2].detail = "Error executing tool add".into();
        assert_eq!(problems(&ENFORCED, &answered_by_server).len(), 1);
        // A JSON-RPC error is not the revision's answer from 2025-11-25 on.
        let mut error = enforced();
        error.ops[2] = CallOp { code: Some(-32602), ..op("tools/call", "failed", "the arguments break …") };
        assert_eq!(problems(&ENFORCED, &error).len(), 1);
    }

    #[test]
    fn a_relayed_case_needs_both_calls_logged_and_the_server_s_answer() {
        let mut run = enforced();
        run.ops[2].detail = "Error executing tool add: 1 validation error".into();
        run.server_calls.push(json!({"id": 3, "name": "add", "arguments": {"a": "two", "b": 3}}));
        assert_eq!(problems(&RELAYED, &run), Vec::<String>::new());
        run.server_calls.pop();
        assert_eq!(problems(&RELAYED, &run).len(), 1, "the invalid call must reach the server");
    }

    #[test]
    fn exactly_one_tool_7_at_the_pointer_is_expected() {
        let mut none = enforced();
        none.findings.clear();
        let mut two = enforced();
        two.findings.push(finding("TOOL-8", ""));
        let mut elsewhere = enforced();
        elsewhere.findings[0].pointer = "/params/arguments/b".into();
        let mut error_level = enforced();
        error_level.findings[0].level = "error".into();
        for run in [none, two, elsewhere, error_level] {
            let p = problems(&ENFORCED, &run);
            assert_eq!(p.len(), 1, "{p:?}");
            assert!(p[0].contains("expected exactly one: client warning TOOL-7 at /params/arguments/a"), "{p:?}");
        }
    }

    #[test]
    fn a_run_without_operations_fails_on_each_count() {
        let p = problems(&RELAYED, &CaseRun { error: Some("did not start".into()), ..CaseRun::default() });
        assert_eq!(p[0], "did not start");
        assert!(p.iter().any(|l| l == "0 tools/call operation(s) reported, expected 2"), "{p:?}");
        assert!(p.iter().any(|l| l == "tools/list did not succeed"), "{p:?}");
    }

    #[test]
    fn the_calls_go_before_the_target_and_every_case_is_distinct() {
        let args = with_calls(["d.py", "--mode", "legacy", "--command", "mcpgen", "proxy"].map(String::from).to_vec());
        assert_eq!(args[3], "--calls");
        assert_eq!(args[4], r#"[["add",{"a":2,"b":3}],["add",{"a":"two","b":3}]]"#);
        assert_eq!(args[5..], ["--command", "mcpgen", "proxy"]);
        let all = cases();
        assert_eq!(all.len(), 16);
        let slugs: std::collections::HashSet<String> = all.iter().map(Case::slug).collect();
        assert_eq!(slugs.len(), 16);
        assert!(all.iter().any(|c| c.id() == "ts-v2-client:2026-07-28 over http --enforce"));
    }
}
