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

use crate::baseline::{level_agrees, Baseline};
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

/// Every target, in run order: the servers that speak stdio over stdio too. The real-server
/// panel is every target but the reference server: the SDK servers the drivers write,
/// `server-everything`, `mcp-server-time` and a FastMCP server in each language.
pub fn targets() -> Vec<Target> {
    let mut out = Vec::new();
    for server in [
        Server::Reference,
        Server::Everything,
        Server::Python("stdio"),
        Server::Time,
        Server::FastMcp,
        Server::TsFastMcp,
    ] {
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
        Server::FastMcp,
        Server::TsFastMcp,
    ] {
        out.push(Target { server, transport: Transport::Http });
    }
    out
}

/// What a target's server is, as installed: `npm package@version`, `PyPI package==version` (with the SDK it runs on where
/// that is what the driver pins), read from the installed package's own metadata so the table
/// cannot disagree with what ran. `?` where the package is not installed.
pub fn installed_version(places: &Places, server: Server) -> String {
    let npm = |modules: &Path, package: &str| {
        let manifest = modules.join(package).join("package.json");
        let version = std::fs::read_to_string(manifest)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v["version"].as_str().map(str::to_owned))
            .unwrap_or_else(|| "?".into());
        format!("npm {package}@{version}")
    };
    let pypi = |venv: &Path, package: &str| format!("PyPI {package}=={}", pypi_version(venv, package));
    match server {
        Server::Reference => format!("mcpgen-reference {}", env!("CARGO_PKG_VERSION")),
        Server::Everything => npm(&places.node_modules(), "@modelcontextprotocol/server-everything"),
        Server::TsV2(_) => npm(&places.node_modules(), "@modelcontextprotocol/server"),
        Server::Python(_) => pypi(&places.dir.join("venv"), "mcp"),
        Server::Time => {
            format!("{} (on {})", pypi(&places.panel_venv(), "mcp-server-time"), pypi(&places.panel_venv(), "mcp"))
        }
        Server::FastMcp => {
            format!("{} (on {})", pypi(&places.panel_venv(), "fastmcp"), pypi(&places.panel_venv(), "mcp"))
        }
        Server::TsFastMcp => format!(
            "{} (on {})",
            npm(&places.panel_node_modules(), "fastmcp"),
            npm(&places.panel_node_modules(), "@modelcontextprotocol/sdk")
        ),
    }
}

/// The version of a PyPI distribution in a venv, from its `NAME-VERSION.dist-info` directory
/// (names compared as PyPI normalizes them: case and `-`/`_`/`.` alike); `?` if absent.
fn pypi_version(venv: &Path, package: &str) -> String {
    let norm = |n: &str| n.to_ascii_lowercase().replace(['-', '.'], "_");
    let want = norm(package);
    let Ok(lib) = std::fs::read_dir(venv.join("lib")) else { return "?".into() };
    for python in lib.flatten() {
        let Ok(entries) = std::fs::read_dir(python.path().join("site-packages")) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some((dist, version)) = name.strip_suffix(".dist-info").and_then(|d| d.split_once('-')) {
                if norm(dist) == want {
                    return version.to_owned();
                }
            }
        }
    }
    "?".into()
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
    /// The keyword of the listing entry's clause when the finding's level does not agree with
    /// it (an error on a SHOULD, a warning on a MUST): the run fails.
    pub misgraded: Option<String>,
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
    fn misgraded(&self) -> impl Iterator<Item = &ProbeFinding> {
        self.findings.iter().filter(|f| f.misgraded.is_some())
    }
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.unlisted().next().is_none() && self.misgraded().next().is_none()
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
            misgraded: None,
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
        judge(f, &target.id(), baseline);
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    outcome
}

/// Finds the entry that lists `f` on `target`, and whether `f`'s level agrees with that
/// entry's clause (an entry with `allowed_by` lists a false positive at whatever level).
pub fn judge(f: &mut ProbeFinding, target: &str, baseline: &Baseline) {
    f.listed_by = baseline.listed_probe_finding(target, &f.rule, &f.check);
    f.misgraded = f.listed_by.and_then(|i| {
        let entry = &baseline.probe[i];
        let clause = entry.clause.as_ref()?;
        let ok = match &entry.warning_by {
            Some(_) => f.level == "warning",
            None => level_agrees(&f.level, &clause.keyword),
        };
        (!ok).then(|| match &entry.warning_by {
            Some(w) => format!("{} (a warning by its exception: {w})", clause.keyword),
            None => clause.keyword.clone(),
        })
    });
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
        for f in o.misgraded() {
            out.push(format!(
                "{id}: {} {} ({}) is listed with a {} clause: the probe grades it at another level than \
                 the clause states (list it with `allowed_by` as a probe false positive, or quote the right clause)",
                f.check,
                f.level,
                f.rule,
                f.misgraded.as_deref().unwrap_or_default()
            ));
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

/// The panel's table (`panel.md`): per target its server as installed, the transport, and
/// each finding with its rule, level, the probe check and the clause it rests on (revision
/// and keyword, from the baseline entry that lists it; `false positive` for an entry with
/// `allowed_by`, `not listed` for a finding the baseline lacks). A target without findings
/// gets one row with `none`.
pub fn panel_table(outcomes: &[ProbeOutcome], baseline: &Baseline, places: &Places) -> String {
    let mut out = String::from(
        "| server | version | transport | rule | level | check | clause |\n|---|---|---|---|---|---|---|\n",
    );
    for o in outcomes {
        let server = match o.target.server.variant() {
            Some(v) => format!("{}:{v}", o.target.server.peer()),
            None => o.target.server.peer().to_owned(),
        };
        let head =
            format!("| {server} | {} | {} |", installed_version(places, o.target.server), o.target.transport.as_str());
        if let Some(e) = &o.error {
            out.push_str(&format!("{head} — | — | did not run to its end: {} | — |\n", e.replace('|', "\\|")));
            continue;
        }
        if o.findings.is_empty() {
            out.push_str(&format!("{head} none | — | — | — |\n"));
        }
        for f in &o.findings {
            let entry = f.listed_by.map(|i| &baseline.probe[i]);
            let clause = match entry {
                None => "not listed".to_owned(),
                Some(e) => match (&e.clause, &e.allowed_by) {
                    (Some(c), _) => format!("{} {} ({})", c.revision, c.keyword, c.page),
                    (None, Some(a)) => format!("false positive: {} {} allows it", a.revision, a.page),
                    (None, None) => "—".to_owned(),
                },
            };
            out.push_str(&format!("{head} {} | {} | `{}` | {clause} |\n", f.rule, f.level, f.check));
        }
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
                "listed_by": f.listed_by.map(|i| i + 1), "misgraded": f.misgraded,
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
    let panel = panel_table(&outcomes, &baseline, places);
    let panel_path = places.panel_file();
    std::fs::write(&panel_path, &panel).map_err(|e| format!("cannot write {}: {e}", panel_path.display()))?;
    println!("The panel: every finding with its clause ({})\n\n{panel}", panel_path.display());
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

    /// Two entries for server-everything over stdio: LOG-5 with its MUST clause, PROMPT-1 as a
    /// false positive (`allowed_by`).
    const BASELINE: &str = "[[probe]]\ntarget = \"server-everything over stdio\"\nrule = \"LOG-5\"\n\
        clause = { revision = \"2025-11-25\", page = \"server/utilities/logging\", keyword = \"MUST\", text = \"MUST declare the `logging` capability\" }\n\
        reason = \"r\"\n\
        [[probe]]\ntarget = \"server-everything over stdio\"\nrule = \"PROMPT-1\"\n\
        allowed_by = { revision = \"2026-07-28\", page = \"server/prompts\", text = \"Servers **SHOULD** return\" }\n\
        reason = \"r\"\n";

    fn finding(baseline: &Baseline, target: &Target, rule: &str, level: &str) -> ProbeFinding {
        let mut f = ProbeFinding {
            check: "c".into(),
            rule: rule.into(),
            level: level.into(),
            message: String::new(),
            listed_by: None,
            misgraded: None,
        };
        judge(&mut f, &target.id(), baseline);
        f
    }

    #[test]
    fn unlisted_findings_and_stale_entries_fail_the_run() {
        let baseline = Baseline::parse(BASELINE).unwrap();
        let target = Target { server: Server::Everything, transport: Transport::Stdio };
        let o = ProbeOutcome {
            target,
            seconds: 0.0,
            summary: String::new(),
            findings: vec![
                finding(&baseline, &target, "LOG-5", "error"),
                finding(&baseline, &target, "VER-1", "error"),
            ],
            error: None,
        };
        assert!(!o.passed());
        let stale = stale_probe_entries(std::slice::from_ref(&o), &baseline);
        assert_eq!(stale.len(), 1, "PROMPT-1 matched nothing: {stale:?}");
        let problems = problems(&[o], &stale);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("VER-1"));
    }

    #[test]
    fn a_finding_at_another_level_than_its_clause_fails_the_run() {
        let baseline = Baseline::parse(BASELINE).unwrap();
        let target = Target { server: Server::Everything, transport: Transport::Stdio };
        let right = finding(&baseline, &target, "LOG-5", "error");
        assert_eq!((right.listed_by, right.misgraded.as_deref()), (Some(0), None));
        // Seeded fault: the probe grades a MUST as a warning.
        let wrong = finding(&baseline, &target, "LOG-5", "warning");
        assert_eq!((wrong.listed_by, wrong.misgraded.as_deref()), (Some(0), Some("MUST")));
        // A false-positive entry lists the finding at whatever level the probe gives it.
        let false_positive = finding(&baseline, &target, "PROMPT-1", "warning");
        assert_eq!((false_positive.listed_by, false_positive.misgraded.as_deref()), (Some(1), None));
        let o = ProbeOutcome { target, seconds: 0.0, summary: String::new(), findings: vec![wrong], error: None };
        assert!(!o.passed());
        // An entry whose clause's exception makes the MUST a warning lists warnings only.
        let excepted = Baseline::parse(
            "[[probe]]\ntarget = \"server-everything over stdio\"\nrule = \"LOG-5\"\n\
             clause = { revision = \"2025-11-25\", page = \"server/utilities/logging\", keyword = \"MUST\", text = \"MUST declare the `logging` capability\" }\n\
             warning_by = \"the `logging` capability\"\nreason = \"r\"\n",
        )
        .unwrap();
        assert_eq!(finding(&excepted, &target, "LOG-5", "warning").misgraded, None);
        assert!(finding(&excepted, &target, "LOG-5", "error").misgraded.is_some());
        // Its words must be the clause's.
        let bad = "[[probe]]\ntarget = \"server-everything over stdio\"\nrule = \"LOG-5\"\n\
             clause = { revision = \"2025-11-25\", page = \"server/utilities/logging\", keyword = \"MUST\", text = \"MUST declare the `logging` capability\" }\n\
             warning_by = \"not there\"\nreason = \"r\"\n";
        assert!(Baseline::parse(bad).unwrap_err().to_string().contains("not in the clause"));
        let problems = problems(&[o], &[]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("c warning (LOG-5) is listed with a MUST clause"), "{}", problems[0]);
    }

    #[test]
    fn the_panel_table_gives_each_finding_its_clause() {
        let baseline = Baseline::parse(BASELINE).unwrap();
        let dir = std::env::temp_dir().join(format!("mcpgen-interop-panel-{}", std::process::id()));
        let modules = dir.join("node_modules/@modelcontextprotocol/server-everything");
        std::fs::create_dir_all(&modules).unwrap();
        std::fs::write(
            modules.join("package.json"),
            r#"{"name":"@modelcontextprotocol/server-everything","version":"9.9.9"}"#,
        )
        .unwrap();
        let places =
            Places { root: dir.clone(), dir: dir.clone(), bin: dir.clone(), node: "node".into(), via_proxy: false };
        let everything = Target { server: Server::Everything, transport: Transport::Stdio };
        let time = Target { server: Server::Time, transport: Transport::Stdio };
        let outcome = |target: Target, findings| ProbeOutcome {
            target,
            seconds: 0.0,
            summary: String::new(),
            findings,
            error: None,
        };
        let outcomes = [
            outcome(
                everything,
                vec![
                    finding(&baseline, &everything, "LOG-5", "error"),
                    finding(&baseline, &everything, "PROMPT-1", "warning"),
                    finding(&baseline, &everything, "VER-1", "error"),
                ],
            ),
            outcome(time, Vec::new()),
        ];
        let table = panel_table(&outcomes, &baseline, &places);
        let rows: Vec<&str> = table.lines().collect();
        assert_eq!(rows[0], "| server | version | transport | rule | level | check | clause |");
        assert_eq!(
            rows[2],
            "| server-everything | npm @modelcontextprotocol/server-everything@9.9.9 | stdio | LOG-5 | error | `c` | 2025-11-25 MUST (server/utilities/logging) |"
        );
        assert_eq!(
            rows[3],
            "| server-everything | npm @modelcontextprotocol/server-everything@9.9.9 | stdio | PROMPT-1 | warning | `c` | false positive: 2026-07-28 server/prompts allows it |"
        );
        assert!(rows[4].ends_with("| VER-1 | error | `c` | not listed |"), "{}", rows[4]);
        assert_eq!(
            rows[5],
            "| mcp-server-time | PyPI mcp-server-time==? (on PyPI mcp==?) | stdio | none | — | — | — |"
        );
        assert_eq!(rows.len(), 6);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn installed_python_versions_are_read_from_the_dist_info() {
        let dir = std::env::temp_dir().join(format!("mcpgen-interop-dist-info-{}", std::process::id()));
        let site = dir.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("mcp_server_time-2026.10.19.dist-info")).unwrap();
        std::fs::create_dir_all(site.join("mcp-2.3.0.dist-info")).unwrap();
        std::fs::create_dir_all(site.join("mcp_types-2.3.1.dist-info")).unwrap();
        assert_eq!(pypi_version(&dir, "mcp-server-time"), "2026.10.19");
        assert_eq!(pypi_version(&dir, "mcp"), "2.3.0");
        assert_eq!(pypi_version(&dir, "fastmcp"), "?");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_panel_driver_is_where_the_plan_looks() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
        let places = Places {
            root: root.clone(),
            dir: root.join("x"),
            bin: root.join("x"),
            node: "node".into(),
            via_proxy: false,
        };
        let mut scripts = std::collections::BTreeSet::new();
        for t in targets() {
            for arg in places.server(t.server, t.transport).args {
                if arg.starts_with(root.to_str().unwrap()) && !arg.contains("/x/") {
                    scripts.insert(arg);
                }
            }
        }
        // ts-server.mjs, py-server.py, the loopback preload and the two FastMCP drivers.
        assert_eq!(scripts.len(), 5, "{scripts:?}");
        for s in &scripts {
            assert!(Path::new(s).is_file(), "{s} is missing");
        }
        let ids: Vec<String> = targets().iter().map(Target::id).collect();
        for panel in [
            "server-everything over stdio",
            "server-everything over http",
            "mcp-server-time over stdio",
            "fastmcp-server over stdio",
            "fastmcp-server over http",
            "ts-fastmcp-server over stdio",
            "ts-fastmcp-server over http",
        ] {
            assert!(ids.contains(&panel.to_owned()), "{panel} is not probed: {ids:?}");
        }
    }
}
