//! `mcpgen_probe` against the reference server over stdio: it probes clean in both eras (the
//! modern era through `server/discover`, the legacy one through `initialize` at the revision it
//! prefers), with its read-only tools called.

use std::process::Command;
use std::time::Duration;

use mcpgen_probe::stdio::{StdioLimits, StdioPeer};
use mcpgen_probe::{run, ProbeOptions, ToolPolicy};

fn server() -> StdioPeer {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen-reference-server"));
    cmd.arg("--stdio");
    let limits = StdioLimits { timeout: Duration::from_secs(20), ..StdioLimits::default() };
    StdioPeer::spawn(cmd, limits).expect("start mcpgen-reference-server --stdio")
}

#[test]
fn the_reference_server_probes_clean_in_both_eras() {
    let report = run(&mut server(), &ProbeOptions::default());
    let errors: Vec<_> =
        report.findings.iter().map(|f| format!("{}: {:?} {} at {}", f.check, f.rule, f.message, f.pointer)).collect();
    assert!(errors.is_empty(), "findings on the reference server:\n{}", errors.join("\n"));
    assert_eq!(report.eras.first().map(String::as_str), Some("modern"), "{:?}", report.eras);
    assert!(report.eras.iter().any(|e| e.starts_with("legacy ")), "{:?}", report.eras);
    for check in ["discover", "inventory/tools/list", "negative/missing-meta", "negative/unknown-method"] {
        assert!(report.checks.iter().any(|c| c == check), "{check} not run: {:?}", report.checks);
    }
    // The unknown resource in both eras: -32602 in 2026-07-28, -32002 in a legacy session
    // (each revision's resources page), so no RES-1 finding above.
    let eras = report.checks.iter().filter(|c| c.name == "resource/unknown").count();
    assert_eq!(eras, 2, "{:?}", report.checks);
}

#[test]
fn every_tool_call_of_the_reference_server_is_judged() {
    // Every tool (the reference server's fixtures change nothing outside the process).
    let report = run(
        &mut server(),
        &ProbeOptions { call_tools: ToolPolicy::All, era: mcpgen_probe::EraChoice::Modern, ..ProbeOptions::default() },
    );
    let called = report.checks.iter().filter(|c| c.name.starts_with("tool/")).count();
    assert!(called >= 3, "{called} tools called: {:?}", report.checks);
    let errors: Vec<_> =
        report.findings.iter().map(|f| format!("{}: {:?} {} at {}", f.check, f.rule, f.message, f.pointer)).collect();
    assert!(errors.is_empty(), "findings:\n{}", errors.join("\n"));
}

/// A fresh reference server process per legacy session.
struct Fresh;

impl mcpgen_probe::Connect for Fresh {
    fn connect(&mut self) -> Result<Box<dyn mcpgen_probe::Peer>, mcpgen_probe::PeerError> {
        Ok(Box::new(server()))
    }
}

#[test]
fn with_a_process_per_session_every_legacy_revision_it_names_probes_clean() {
    let mut first = server();
    let report =
        mcpgen_probe::run_with(&mut first, Some(&mut Fresh), &ProbeOptions::default(), &mut mcpgen_probe::Unobserved);
    let errors: Vec<_> =
        report.findings.iter().map(|f| format!("{}: {:?} {} at {}", f.check, f.rule, f.message, f.pointer)).collect();
    assert!(errors.is_empty(), "findings on the reference server:\n{}", errors.join("\n"));
    let legacy = report.era_summaries.iter().filter(|e| e.era == "legacy").count();
    assert!(legacy >= 2, "{:?}", report.era_summaries);
    assert!(report.era_summaries.iter().all(|e| e.errors == 0), "{:?}", report.era_summaries);
    // Stdio has no headers: the header negatives are listed, not run.
    assert!(report.skipped.iter().any(|s| s.check == "header/method-mismatch"), "{:?}", report.skipped);
}
