//! `mcpgen-interop probe`: `mcpgen probe` against real servers — the SDK servers of the matrix
//! (TypeScript SDK v2, Python SDK, `server-everything`) and the reference server — each in the
//! transports it serves. Every finding must be listed in the baseline's `[[probe]]` entries
//! with a reason; a reference server's finding never is. An entry nothing matched is stale
//! and fails the run too (when every target ran). Writes `probe-results.json`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::process::Command;

use crate::baseline::Baseline;
use crate::plan::{Launch, Places, Server, Transport};
use crate::run::start_server;

/// How long one probe may run (its own waits are `--timeout-ms` each).
const PROBE_RUN: Duration = Duration::from_secs(180);
/// Each answer's wait inside the probe: above the 10 s that server-everything's
/// `trigger-long-running-operation` takes with its default arguments.
const ANSWER_TIMEOUT_MS: &str = "15000";

/// One server the probe is pointed at, in one transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub server: Server,
    pub transport: Transport,
}

impl Target {
    /// `ts-v2-server:dual over http`: what the table prints and a `[[probe]]` entry names.
    pub fn id(&self) -> String {
        let variant = self.server.variant().map(|v| format!(":{v}")).unwrap_or_default();
        format!("{}{variant} over {}", self.server.peer(), self.transport.as_str())
    }

    fn slug(&self) -> String {
        self.id().replace(" over ", "--").replace([':', ' '], "-")
    }
}

/// Every target, in run order: the servers that speak stdio over stdio too.
pub fn targets() -> Vec<Target> {
    let mut out = Vec::new();
    for server in [Server::Reference, Server::Everything, Server::Python("stdio")] {
        out.push(Target { server, transport: Transport::Stdio });
    }
    for server in [
        Server::Reference,
        Server::Everything,
        Server::TsV2("dual"),
        Server::TsV2("modern"),
        Server::TsV2("sessionful"),
        Server::Python("sessionful"),
        Server::Python("stateless"),
    ] {
        out.push(Target { server, transport: Transport::Http });
    }
    out
}

/// One finding of a probe, as `mcpgen probe --format json` prints it, with the baseline entry
/// that lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeFinding {
    pub check: String,
    /// The rule id, `schema` for a plain schema violation.
    pub rule: String,
    pub level: String,
    pub message: String,
    pub listed_by: Option<usize>,
}

/// What probing one target gave.
#[derive(Debug, Clone)]
pub struct ProbeOutcome {
    pub target: Target,
    pub seconds: f64,
    /// The probe's summary line (`12 checks, 40 exchanges, eras: modern, 2025-11-25; …`).
    pub summary: String,
    pub findings: Vec<ProbeFinding>,
    /// The probe could not be run to its end (the server did not start, no summary, a time-out).
    pub error: Option<String>,
}

impl ProbeOutcome {
    fn unlisted(&self) -> impl Iterator<Item = &ProbeFinding> {
        self.findings.iter().filter(|f| f.listed_by.is_none())
    }
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.unlisted().next().is_none()
    }
}

/// Reads `mcpgen probe --format json` output: its findings (the lines with a `level`), then
/// its summary line.
pub fn parse_output(stdout: &str) -> Result<(Vec<ProbeFinding>, String), String> {
    let mut findings = Vec::new();
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("probe printed a line that is not JSON ({e}): {line}"))?;
        if let Some(summary) = v.get("summary").and_then(Value::as_str) {
            return Ok((findings, summary.to_owned()));
        }
        // The other lines: a check skipped (`skipped`), one era's or revision's summary (`era`).
        if v.get("level").is_none() {
            continue;
        }
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        findings.push(ProbeFinding {
            check: text("check"),
            rule: v.get("rule").and_then(Value::as_str).unwrap_or("schema").to_owned(),
            level: text("level"),
            message: text("message"),
            listed_by: None,
        });
    }
    Err("probe ended without its summary line".into())
}

/// The command line of the probe for `target` (`url` for HTTP).
fn probe_launch(places: &Places, target: &Target, url: Option<&str>, dir: &Path) -> Launch {
    let mut args: Vec<String> =
        ["probe", "--format", "json", "--timeout-ms", ANSWER_TIMEOUT_MS, "--junit"].map(String::from).to_vec();
    args.push(dir.join("probe.junit.xml").display().to_string());
    args.push("--record".into());
    args.push(dir.join("probe.record.jsonl").display().to_string());
    // The probe stops itself (PROBE-3) well before it would be killed.
    args.push("--budget-ms".into());
    args.push((PROBE_RUN.as_millis() * 3 / 4).to_string());
    match url {
        Some(u) => args.push(u.to_owned()),
        None => {
            let server = places.server(target.server, Transport::Stdio);
            args.push("--".into());
            args.push(server.program.display().to_string());
            args.extend(server.args);
            let env = server.env;
            return Launch { program: places.bin.join("mcpgen"), args, env };
        }
    }
    Launch { program: places.bin.join("mcpgen"), args, env: Vec::new() }
}

/// Probes one target; its files (`probe.stdout`, `probe.stderr`, `probe.junit.xml`, the
/// server's `server.stderr` for HTTP) go into `dir`.
pub async fn probe_target(places: &Places, target: &Target, dir: &Path, baseline: &Baseline) -> ProbeOutcome {
    let start = Instant::now();
    let mut outcome =
        ProbeOutcome { target: *target, seconds: 0.0, summary: String::new(), findings: Vec::new(), error: None };
    if let Err(e) = std::fs::create_dir_all(dir) {
        outcome.error = Some(format!("cannot create {}: {e}", dir.display()));
        return outcome;
    }
    let server = match target.transport {
        Transport::Http => match start_server(&places.server(target.server, Transport::Http), dir).await {
            Ok(s) => Some(s),
            Err(e) => {
                outcome.error = Some(e);
                return outcome;
            }
        },
        Transport::Stdio => None,
    };
    let launch = probe_launch(places, target, server.as_ref().map(|s| s.url.as_str()), dir);
    match run_probe(&launch, dir).await {
        Ok(stdout) => match parse_output(&stdout) {
            Ok((findings, summary)) => {
                outcome.findings = findings;
                outcome.summary = summary;
            }
            Err(e) => outcome.error = Some(format!("{e} (see {})", dir.join("probe.stderr").display())),
        },
        Err(e) => outcome.error = Some(e),
    }
    drop(server);
    for f in &mut outcome.findings {
        f.listed_by = baseline.listed_probe_finding(&target.id(), &f.rule, &f.check);
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    outcome
}

/// Runs the probe to its end (exit 0 or 1: findings are judged here), keeping its stdout.
async fn run_probe(l: &Launch, dir: &Path) -> Result<String, String> {
    let err = std::fs::File::create(dir.join("probe.stderr")).map_err(|e| e.to_string())?;
    let mut c = Command::new(&l.program);
    c.args(&l.args).envs(l.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))).kill_on_drop(true);
    let child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", l.program.display()))?;
    let out = match tokio::time::timeout(PROBE_RUN, child.wait_with_output()).await {
        Ok(out) => out.map_err(|e| e.to_string())?,
        Err(_) => return Err(format!("the probe did not end within {PROBE_RUN:?}")),
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    std::fs::write(dir.join("probe.stdout"), &stdout).map_err(|e| e.to_string())?;
    match out.status.code() {
        Some(0 | 1) => Ok(stdout),
        other => Err(format!(
            "the probe exited with {other:?} (a usage or start error; see {})",
            dir.join("probe.stderr").display()
        )),
    }
}

/// The `[[probe]]` entries no finding matched (only meaningful when every target ran).
pub fn stale_probe_entries(outcomes: &[ProbeOutcome], baseline: &Baseline) -> Vec<String> {
    baseline
        .probe
        .iter()
        .enumerate()
        .filter(|(i, _)| !outcomes.iter().any(|o| o.findings.iter().any(|f| f.listed_by == Some(*i))))
        .map(|(i, e)| format!("probe {} ({} {}): stale, nothing matched it: {}", i + 1, e.target, e.rule, e.reason))
        .collect()
}

/// Why the run fails, one line each.
pub fn problems(outcomes: &[ProbeOutcome], stale: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for o in outcomes {
        let id = o.target.id();
        if let Some(e) = &o.error {
            out.push(format!("{id}: {e}"));
        }
        for f in o.unlisted() {
            out.push(format!("{id}: {} {} ({}) not in the baseline: {}", f.check, f.level, f.rule, f.message));
        }
    }
    out.extend(stale.iter().cloned());
    out
}

/// The table: per target, the summary, the findings listed and new.
pub fn table(outcomes: &[ProbeOutcome]) -> String {
    let mut out = String::from("| target | probe summary | listed | new | s |\n|---|---|---|---|---|\n");
    for o in outcomes {
        let listed = o.findings.len() - o.unlisted().count();
        let summary = o.error.as_deref().map_or_else(|| o.summary.clone(), |e| format!("ERROR: {e}"));
        out.push_str(&format!(
            "| {} | {summary} | {listed} | {} | {:.1} |\n",
            o.target.id(),
            o.unlisted().count(),
            o.seconds
        ));
    }
    out
}

fn results_json(outcomes: &[ProbeOutcome], stale: &[String], seconds: f64) -> Value {
    json!({
        "seconds": seconds,
        "stale": stale,
        "targets": outcomes.iter().map(|o| json!({
            "target": o.target.id(),
            "passed": o.passed(),
            "seconds": o.seconds,
            "summary": o.summary,
            "error": o.error,
            "findings": o.findings.iter().map(|f| json!({
                "check": f.check, "rule": f.rule, "level": f.level, "message": f.message,
                "listed_by": f.listed_by.map(|i| i + 1),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The directory of one target's run.
pub fn probe_dir(places: &Places, target: &Target) -> PathBuf {
    places.dir.join("probes").join(target.slug())
}

/// Probes every target (those whose id contains `only`, when given), prints the table and what
/// went wrong, writes `probe-results.json`; true when everything passed.
pub async fn probe_all(places: &Places, baseline_path: &Path, only: Option<&str>) -> Result<bool, String> {
    let text =
        std::fs::read_to_string(baseline_path).map_err(|e| format!("cannot read {}: {e}", baseline_path.display()))?;
    let baseline = Baseline::parse(&text).map_err(|e| format!("{}: {e}", baseline_path.display()))?;
    let start = Instant::now();
    let chosen: Vec<Target> = targets().into_iter().filter(|t| only.is_none_or(|o| t.id().contains(o))).collect();
    if chosen.is_empty() {
        return Err(format!("no probe target matches {:?}", only.unwrap_or_default()));
    }
    let mut outcomes = Vec::new();
    for (i, t) in chosen.iter().enumerate() {
        let o = probe_target(places, t, &probe_dir(places, t), &baseline).await;
        let verdict = if o.passed() { "ok" } else { "FAILED" };
        println!("[probe {}/{}] {} — {verdict} ({:.1} s)", i + 1, chosen.len(), t.id(), o.seconds);
        outcomes.push(o);
    }
    let stale = if only.is_none() { stale_probe_entries(&outcomes, &baseline) } else { Vec::new() };
    let seconds = start.elapsed().as_secs_f64();
    println!("\n{}", table(&outcomes));
    let path = places.probe_results_file();
    let pretty = serde_json::to_string_pretty(&results_json(&outcomes, &stale, seconds)).map_err(|e| e.to_string())?;
    std::fs::write(&path, pretty + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let listed: usize = outcomes.iter().map(|o| o.findings.iter().filter(|f| f.listed_by.is_some()).count()).sum();
    println!(
        "{} target(s) probed in {seconds:.1} s; {listed} finding(s) listed in {}; results in {}",
        outcomes.len(),
        baseline_path.display(),
        path.display()
    );
    let problems = problems(&outcomes, &stale);
    for p in &problems {
        println!("  {p}");
    }
    Ok(problems.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_output_is_read_to_its_summary() {
        let out = concat!(
            r#"{"check":"negative/unknown-method","rule":"MSG-9","level":"error","pointer":"/error/code","message":"m"}"#,
            "\n",
            r#"{"check":"list/tools","rule":null,"level":"error","pointer":"","message":"s"}"#,
            "\n",
            r#"{"reason":"the transport has no headers (stdio)","skipped":"header/method-mismatch"}"#,
            "\n",
            r#"{"checks":9,"era":"modern","errors":0,"outcome":"served","revision":"2026-07-28","warnings":0}"#,
            "\n",
            r#"{"summary":"7 checks","errors":2,"eras":["modern"]}"#,
            "\n"
        );
        let (findings, summary) = parse_output(out).unwrap();
        assert_eq!(summary, "7 checks");
        assert_eq!(findings.len(), 2);
        assert_eq!((findings[0].rule.as_str(), findings[1].rule.as_str()), ("MSG-9", "schema"));
        assert!(parse_output(&out[..out.rfind("{\"summary").unwrap()]).is_err(), "no summary: not a whole run");
        assert!(parse_output("not json\n").is_err());
    }

    #[test]
    fn targets_have_distinct_ids_and_the_reference_server_is_probed_in_both_transports() {
        let ids: Vec<String> = targets().iter().map(Target::id).collect();
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        assert!(ids.contains(&"reference-server over stdio".to_owned()));
        assert!(ids.contains(&"reference-server over http".to_owned()));
        assert!(ids.contains(&"ts-v2-server:sessionful over http".to_owned()));
    }

    #[test]
    fn unlisted_findings_and_stale_entries_fail_the_run() {
        let baseline = Baseline::parse(
            "[[probe]]\ntarget = \"server-everything over stdio\"\nrule = \"LOG-5\"\nreason = \"r\"\n\
             [[probe]]\ntarget = \"server-everything over stdio\"\nrule = \"MSG-9\"\nreason = \"r\"\n",
        )
        .unwrap();
        let target = Target { server: Server::Everything, transport: Transport::Stdio };
        let finding = |rule: &str| ProbeFinding {
            check: "c".into(),
            rule: rule.into(),
            level: "error".into(),
            message: String::new(),
            listed_by: baseline.listed_probe_finding(&target.id(), rule, "c"),
        };
        let o = ProbeOutcome {
            target,
            seconds: 0.0,
            summary: String::new(),
            findings: vec![finding("LOG-5"), finding("VER-1")],
            error: None,
        };
        assert!(!o.passed());
        let stale = stale_probe_entries(std::slice::from_ref(&o), &baseline);
        assert_eq!(stale.len(), 1, "MSG-9 matched nothing: {stale:?}");
        let problems = problems(&[o], &stale);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("VER-1"));
    }
}
