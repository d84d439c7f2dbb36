//! `mcpgen-interop`: the official MCP SDKs against the reference peers, every message tapped
//! and checked by mcpgen (`cargo xtask interop`, docs/reference.md). The SDK sides are driver
//! scripts in `interop/drivers/`; what the SDKs are allowed to get wrong is in
//! `interop/baseline.toml`. `cargo xtask interop` installs the pinned SDKs and runs the
//! binary's `all` ([`step`]).
//!
//! 1. [`plan`]: the matrix — each SDK client in each version mode against
//!    `mcpgen-reference-server` over Streamable HTTP and stdio, and `mcpgen-reference-client`
//!    against each SDK server configuration, in auto and legacy modes.
//! 2. [`tap`]: every exchange goes through a tap that records it ([`trace`]) in the
//!    conversation format before passing it on; the HTTP tap also checks each modern POST's
//!    standard headers.
//! 3. [`check`]: each trace is checked by `mcpgen validate --conversation`; [`baseline`]
//!    excuses the SDKs' known deviations (never the reference peers').
//! 4. [`run`]: per pairing, per operation, the table and `results.json`.
//! 5. [`probed`]: `mcpgen probe` against the SDK servers, the real-server panel and the
//!    reference server, its findings judged against the baseline's `[[probe]]` entries, each
//!    with its clause (`probe-results.json`, the table `panel.md`).
//! 6. [`concurrent`]: several SDK clients at once through one `proxy --listen` and through
//!    stdio proxies: no finding, every operation working.
//! 7. [`gate`]: SDK clients calling a tool with invalid arguments through both proxies,
//!    without and with `--enforce`; the server's own log shows what reached it.
//! 8. [`step`]: the five runs of `cargo xtask interop` in one command.

pub mod baseline;
pub mod check;
pub mod concurrent;
pub mod gate;
pub mod plan;
pub mod probed;
pub mod proxied;
pub mod run;
pub mod step;
pub mod tap;
pub mod trace;

use std::path::Path;
use std::time::Instant;

use baseline::Baseline;
use plan::{matrix, Places};

/// Runs the matrix (the pairings whose id contains `only`, when given), prints the table and
/// what went wrong, writes `results.json` into `places.dir`; true when everything passed.
pub async fn run_all(places: &Places, baseline_path: &Path, only: Option<&str>) -> Result<bool, String> {
    let text =
        std::fs::read_to_string(baseline_path).map_err(|e| format!("cannot read {}: {e}", baseline_path.display()))?;
    let baseline = Baseline::parse(&text).map_err(|e| format!("{}: {e}", baseline_path.display()))?;
    let start = Instant::now();
    let pairings: Vec<_> = matrix()
        .into_iter()
        .filter(|p| only.is_none_or(|o| p.id().contains(o)))
        .filter(|p| !places.via_proxy || p.transport == plan::Transport::Http)
        .collect();
    if pairings.is_empty() {
        return Err(format!("no pairing matches {:?}", only.unwrap_or_default()));
    }
    let mut outcomes = Vec::new();
    for (i, p) in pairings.iter().enumerate() {
        let o = run::run_pairing(p, places, &run::run_dir(places, p), &baseline).await;
        let verdict = if o.passed() { "ok" } else { "FAILED" };
        println!("[{}/{}] {} — {verdict} ({:.1} s)", i + 1, pairings.len(), p.id(), o.seconds);
        outcomes.push(o);
    }
    // An entry is stale only if the pairings it could match all ran.
    let stale = if only.is_none() && !places.via_proxy { run::stale_entries(&outcomes, &baseline) } else { Vec::new() };
    let seconds = start.elapsed().as_secs_f64();
    println!("\n{}", run::table(&outcomes));
    let results = run::results_json(&outcomes, &baseline, &stale, seconds);
    let path = places.results_file();
    let pretty = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
    std::fs::write(&path, pretty + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("baseline ({}): findings excused per entry", baseline_path.display());
    for (i, e) in baseline.finding.iter().enumerate() {
        let n: usize = outcomes.iter().map(|o| o.findings.iter().filter(|j| j.excused_by == Some(i)).count()).sum();
        let method = e.method.as_deref().map(|m| format!(" {m}")).unwrap_or_default();
        let reason: String = e.reason.chars().take(60).collect();
        println!("  {n:4}  {} {}{method}: {reason}…", e.sdk, e.rule);
    }
    let excused: usize = outcomes.iter().map(|o| o.findings.iter().filter(|j| j.excused_by.is_some()).count()).sum();
    println!(
        "{} pairing(s) in {seconds:.1} s; {excused} finding(s) excused by {}; results in {}",
        outcomes.len(),
        baseline_path.display(),
        path.display()
    );
    let problems = run::problems(&outcomes, &stale);
    for p in &problems {
        println!("  {p}");
    }
    Ok(problems.is_empty())
}
