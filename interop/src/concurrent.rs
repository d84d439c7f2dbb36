//! `mcpgen-interop concurrent`: several SDK clients at once, each numbering its request ids
//! from 1, through one `mcpgen proxy --listen` in front of the reference server, and each
//! through its own stdio `mcpgen proxy` (a stdio proxy has one client by nature) started at
//! the same time. The traffic is correct, so every proxy report must be empty and every
//! operation must work: ids are unique per sender, and over Streamable HTTP a response
//! travels on its own POST, so a proxy that paired across POSTs or clients would report ID-2
//! or MSG-11 here (issue 34 item 4).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::process::Command;

use crate::baseline::Baseline;
use crate::plan::{Client, Launch, Pairing, Places, Server, Transport, AUTO, LEGACY, MODERN};
use crate::proxied;
use crate::run::start_server;

/// What `--only` is compared with.
pub const ID: &str = "concurrent SDK clients through the proxies";
/// How long each client may run.
const CLIENT_RUN: Duration = Duration::from_secs(120);

/// The clients run at once: both TypeScript SDKs and the Python SDK, both eras. None of them
/// has a finding with the reference server in the matrix.
pub const CLIENTS: [Client; 6] = [
    Client::TsV1,
    Client::TsV2(LEGACY),
    Client::Python(LEGACY),
    Client::Python(MODERN),
    Client::TsV2(MODERN),
    Client::Python(AUTO),
];

/// What one client did through a proxy.
#[derive(Debug, Clone)]
pub struct ClientRun {
    /// `py-client:legacy over http`.
    pub id: String,
    pub ops: usize,
    /// Operations that failed, `op target: detail` each.
    pub failed: Vec<String>,
    /// Did not start, or did not end within its time.
    pub error: Option<String>,
    /// The findings of this client's proxy (stdio) — over HTTP the shared proxy's are counted once.
    pub findings: Vec<String>,
}

/// The client's command line, pointed at `url` (HTTP) or at the stdio `proxy` command.
pub(crate) fn client_launch(
    places: &Places,
    client: Client,
    url: Option<&str>,
    proxy: &[String],
    dir: &Path,
) -> Launch {
    let p = Pairing { client, server: Server::Reference, transport: Transport::Http };
    let mut l = places.client(&p, Some(url.unwrap_or("http://127.0.0.1:1/mcp")), dir, &dir.join("report.jsonl"));
    if url.is_none() {
        // Put the proxy command where the URL was (the drivers take everything after `--command`).
        let at = l.args.iter().position(|a| a == "--url").expect("an SDK driver takes --url");
        l.args.truncate(at);
        l.args.push("--command".into());
        l.args.extend(proxy.iter().cloned());
    }
    l
}

/// Starts every client at once; waits for all (each at most [`CLIENT_RUN`]).
async fn run_clients(launches: Vec<(String, Launch, PathBuf)>) -> Vec<ClientRun> {
    let mut waiting = Vec::new();
    for (id, l, dir) in launches {
        waiting.push(tokio::spawn(async move {
            let mut run = ClientRun { id, ops: 0, failed: Vec::new(), error: None, findings: Vec::new() };
            if let Err(e) = std::fs::create_dir_all(&dir) {
                run.error = Some(e.to_string());
                return run;
            }
            let (Ok(out), Ok(err)) =
                (std::fs::File::create(dir.join("client.stdout")), std::fs::File::create(dir.join("client.stderr")))
            else {
                run.error = Some(format!("cannot create the client's output files in {}", dir.display()));
                return run;
            };
            let mut c = Command::new(&l.program);
            c.args(&l.args).envs(l.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))).kill_on_drop(true);
            match c.stdin(Stdio::null()).stdout(out).stderr(err).spawn() {
                Err(e) => run.error = Some(format!("cannot start {}: {e}", l.program.display())),
                Ok(mut child) => {
                    if tokio::time::timeout(CLIENT_RUN, child.wait()).await.is_err() {
                        let _ = child.kill().await;
                        run.error = Some(format!("did not end within {CLIENT_RUN:?}"));
                    }
                }
            }
            let stdout = std::fs::read_to_string(dir.join("client.stdout")).unwrap_or_default();
            for v in crate::run::op_lines(&stdout) {
                run.ops += 1;
                if v["status"] == "failed" {
                    let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
                    run.failed.push(format!("{} {}: {}", s("op"), s("target"), s("detail")));
                }
            }
            if run.ops == 0 && run.error.is_none() {
                run.error = Some("reported no operation (see client.stderr)".into());
            }
            run
        }));
    }
    let mut out = Vec::new();
    for w in waiting {
        match w.await {
            Ok(run) => out.push(run),
            Err(e) => out.push(ClientRun {
                id: "?".into(),
                ops: 0,
                failed: Vec::new(),
                error: Some(e.to_string()),
                findings: Vec::new(),
            }),
        }
    }
    out
}

/// One line per finding of a proxy report, except those the baseline lists as mcpgen's false
/// positives (`allowed_by`) on a message of one of [`CLIENTS`]' SDKs (these clients have no
/// deviation of their own with the reference server). A finding's method is read from the
/// record line the report points at (`source`: `FILE:LINE`).
fn findings(report: &Path, baseline: &Baseline) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for f in proxied::report_findings(report)? {
        let method = record_method(&f.source).unwrap_or_default();
        let excused = baseline.finding.iter().any(|e| {
            e.allowed_by.is_some()
                && f.from == "client"
                && CLIENTS.iter().any(|c| c.peer() == e.sdk)
                && e.rule == f.rule
                && e.method.as_ref().is_none_or(|m| *m == method)
        });
        if !excused {
            out.push(format!("{} {} on a {} {method} message: {}", f.level, f.rule, f.from, f.message));
        }
    }
    Ok(out)
}

/// The method of the message at `FILE:LINE` of a proxy record (a response's: none).
fn record_method(source: &str) -> Option<String> {
    let (file, line) = source.rsplit_once(':')?;
    let n: usize = line.parse().ok()?;
    let text = std::fs::read_to_string(file).ok()?;
    let v: Value = serde_json::from_str(text.lines().nth(n.checked_sub(1)?)?).ok()?;
    v["message"]["method"].as_str().map(str::to_owned)
}

/// Why the runs fail, one line each (empty: passed).
pub fn problems(http: &[ClientRun], http_findings: &[String], stdio: &[ClientRun]) -> Vec<String> {
    let mut out = Vec::new();
    for r in http.iter().chain(stdio) {
        if let Some(e) = &r.error {
            out.push(format!("{}: {e}", r.id));
        }
        out.extend(r.failed.iter().map(|f| format!("{}: failed: {f}", r.id)));
        out.extend(r.findings.iter().map(|f| format!("{}: its stdio proxy reported {f}", r.id)));
    }
    out.extend(http_findings.iter().map(|f| format!("the shared `proxy --listen` reported {f}")));
    out
}

/// Runs both halves (skipped when `only` is given and not part of [`ID`]), prints what failed,
/// findings judged with `baseline_path`'s false-positive entries (`findings`),
/// writes `concurrent-results.json`; true when every client worked and no proxy found anything.
pub async fn run_concurrent(places: &Places, baseline_path: &Path, only: Option<&str>) -> Result<bool, String> {
    let text =
        std::fs::read_to_string(baseline_path).map_err(|e| format!("cannot read {}: {e}", baseline_path.display()))?;
    let baseline = Baseline::parse(&text).map_err(|e| format!("{}: {e}", baseline_path.display()))?;
    if only.is_some_and(|o| !ID.contains(o)) {
        return Err(format!("nothing in {ID:?} matches {:?}", only.unwrap_or_default()));
    }
    let start = Instant::now();
    let dir = places.dir.join("concurrent");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mcpgen = places.bin.join("mcpgen");

    // Streamable HTTP: one reference server, one proxy, every client at once.
    let server = start_server(&places.server(Server::Reference, Transport::Http), &dir).await?;
    let proxy = proxied::start(&mcpgen, &server.url, &dir).await?;
    let launches = CLIENTS
        .iter()
        .map(|&c| {
            let id = format!("{}:{} over http", c.peer(), c.mode());
            let run_dir = dir.join(id.replace([' ', ':'], "-"));
            (id, client_launch(places, c, Some(&proxy.url), &[], &run_dir), run_dir)
        })
        .collect();
    let http = run_clients(launches).await;
    proxy.stop().await;
    drop(server);
    let http_findings = findings(&dir.join("proxy-report.jsonl"), &baseline)?;

    // stdio: each client starts its own `mcpgen proxy -- mcpgen-reference-server --stdio`.
    let reference = places.server(Server::Reference, Transport::Stdio);
    let launches = CLIENTS
        .iter()
        .map(|&c| {
            let id = format!("{}:{} over stdio", c.peer(), c.mode());
            let run_dir = dir.join(id.replace([' ', ':'], "-"));
            let mut proxy = vec![mcpgen.display().to_string(), "proxy".into(), "--report".into()];
            proxy.push(run_dir.join("proxy-report.jsonl").display().to_string());
            proxy.push("--".into());
            proxy.push(reference.program.display().to_string());
            proxy.extend(reference.args.iter().cloned());
            (id, client_launch(places, c, None, &proxy, &run_dir), run_dir)
        })
        .collect();
    let mut stdio = run_clients(launches).await;
    for r in &mut stdio {
        let report = dir.join(r.id.replace([' ', ':'], "-")).join("proxy-report.jsonl");
        match findings(&report, &baseline) {
            Ok(f) => r.findings = f,
            Err(e) => r.error = r.error.take().or(Some(e)),
        }
    }

    let problems = problems(&http, &http_findings, &stdio);
    let seconds = start.elapsed().as_secs_f64();
    let runs = |rs: &[ClientRun]| {
        rs.iter()
            .map(|r| json!({"client": r.id, "operations": r.ops, "failed": r.failed, "error": r.error, "findings": r.findings}))
            .collect::<Vec<_>>()
    };
    let results = json!({"seconds": seconds, "http": runs(&http), "http_proxy_findings": http_findings,
        "stdio": runs(&stdio), "problems": problems});
    let path = places.concurrent_results_file();
    let pretty = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
    std::fs::write(&path, pretty + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    for r in http.iter().chain(&stdio) {
        println!("  {} — {} operation(s), {} failed", r.id, r.ops, r.failed.len());
    }
    println!(
        "{} clients at once through one `proxy --listen` and {} stdio proxies in {seconds:.1} s: {} finding(s) \
         (mcpgen's false positives the baseline lists left out); results in {}",
        http.len(),
        stdio.len(),
        http_findings.len() + stdio.iter().map(|r| r.findings.len()).sum::<usize>(),
        path.display()
    );
    for p in &problems {
        println!("  {p}");
    }
    Ok(problems.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
        Places { root: root.clone(), dir: root.join("x"), bin: root.join("bin"), node: "node".into(), via_proxy: false }
    }

    #[test]
    fn the_clients_are_both_languages_and_the_stdio_ones_start_the_proxy() {
        let peers: std::collections::BTreeSet<&str> = CLIENTS.iter().map(|c| c.peer()).collect();
        assert!(peers.contains("py-client") && peers.contains("ts-v2-client"), "{peers:?}");
        let proxy: Vec<String> = ["/bin/mcpgen", "proxy", "--", "srv", "--stdio"].map(String::from).to_vec();
        let l = client_launch(&places(), Client::Python(LEGACY), None, &proxy, Path::new("/d"));
        let at = l.args.iter().position(|a| a == "--command").unwrap();
        assert_eq!(l.args[at + 1..], proxy[..]);
        assert!(!l.args.contains(&"--url".to_owned()));
        let http = client_launch(&places(), Client::TsV1, Some("http://127.0.0.1:9/mcp"), &[], Path::new("/d"));
        assert!(http.args.windows(2).any(|w| w[0] == "--url" && w[1] == "http://127.0.0.1:9/mcp"), "{:?}", http.args);
    }

    #[test]
    fn only_mcpgen_false_positives_on_these_clients_messages_are_left_out() {
        let dir = std::env::temp_dir().join(format!("mcpgen-interop-concurrent-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let record = dir.join("record.jsonl");
        std::fs::write(
            &record,
            "{\"from\":\"client\",\"message\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}\n\
             {\"from\":\"client\",\"message\":{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}}\n",
        )
        .unwrap();
        let line = |n: usize, rule: &str| {
            format!(
                "{{\"source\":\"{}:{n}\",\"from\":\"client\",\"errors\":[{{\"rule\":\"{rule}\",\"level\":\"error\",\"pointer\":\"\",\"message\":\"m\"}}]}}\n",
                record.display()
            )
        };
        let report = dir.join("report.jsonl");
        // HTTP-11 on the notification: listed (allowed_by); HTTP-11 on tools/list and ID-2: not.
        std::fs::write(&report, line(2, "HTTP-11") + &line(1, "HTTP-11") + &line(1, "ID-2")).unwrap();
        let baseline = Baseline::parse(
            "[[finding]]\nsdk = \"ts-v2-client\"\nrule = \"HTTP-11\"\nmethod = \"notifications/cancelled\"\n\
             allowed_by = { revision = \"2026-07-28\", page = \"basic/transports/streamable-http\", text = \"All requests\" }\n\
             reason = \"r\"\n",
        )
        .unwrap();
        let kept = findings(&report, &baseline).unwrap();
        assert_eq!(
            kept,
            [
                "error HTTP-11 on a client tools/list message: proxy: m",
                "error ID-2 on a client tools/list message: proxy: m"
            ]
        );
        assert_eq!(findings(&report, &Baseline::default()).unwrap().len(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_finding_a_failed_operation_or_a_client_that_did_not_run_fails() {
        let ok = |id: &str| ClientRun { id: id.into(), ops: 5, failed: Vec::new(), error: None, findings: Vec::new() };
        assert!(problems(&[ok("a over http")], &[], &[ok("a over stdio")]).is_empty());
        let shared = problems(&[ok("a over http")], &["error ID-2 on a client message".into()], &[]);
        assert_eq!(shared, ["the shared `proxy --listen` reported error ID-2 on a client message"]);
        let mut failed = ok("b over stdio");
        failed.failed.push("tools/call echo: boom".into());
        failed.findings.push("error MSG-11".into());
        failed.error = Some("did not end".into());
        assert_eq!(problems(&[], &[], &[failed]).len(), 3);
    }
}
