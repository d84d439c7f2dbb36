//! `mcpgen probe -- CMD`: runs [`mcpgen::probe`] on a stdio server and prints what it found
//! (text or JSON Lines), optionally as JUnit XML for CI dashboards. The engine decides; this
//! only starts the process and renders the report.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Duration;

use mcpgen::conversation::Level;
use mcpgen::probe::stdio::{StdioLimits, StdioPeer};
use mcpgen::probe::{ProbeOptions, Report, ToolPolicy};
use serde_json::json;

use crate::UsageError;

fn policy(text: &str) -> Result<ToolPolicy, UsageError> {
    Ok(match text {
        "none" => ToolPolicy::None,
        "read-only" => ToolPolicy::ReadOnly,
        "all" => ToolPolicy::All,
        names => {
            let list: Vec<String> =
                names.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned).collect();
            if list.is_empty() {
                return Err(UsageError("--call-tools: none, read-only, all, or tool names separated by commas".into()));
            }
            ToolPolicy::Named(list)
        }
    })
}

/// The flags that shape a run.
pub struct Run<'a> {
    pub call_tools: &'a str,
    pub timeout_ms: u64,
    pub legacy: bool,
    pub seed: u64,
}

pub fn run(
    flags: &Run<'_>,
    junit: Option<&Path>,
    json_out: bool,
    command: &[OsString],
) -> Result<ExitCode, UsageError> {
    let Run { call_tools, timeout_ms, legacy, seed } = *flags;
    let options = ProbeOptions { call_tools: policy(call_tools)?, legacy, seed, ..ProbeOptions::default() };
    let (program, args) = command.split_first().ok_or_else(|| UsageError("give the server command after --".into()))?;
    let mut cmd = Command::new(program);
    cmd.args(args);
    let limits = StdioLimits { timeout: Duration::from_millis(timeout_ms), ..StdioLimits::default() };
    let mut peer = StdioPeer::spawn(cmd, limits)
        .map_err(|e| UsageError(format!("cannot start {}: {e}", program.to_string_lossy())))?;
    eprintln!("mcpgen probe: probing {} …", program.to_string_lossy());
    let report = mcpgen::probe::run(&mut peer, &options);
    drop(peer);
    print(&report, json_out)?;
    if let Some(path) = junit {
        std::fs::write(path, junit_xml(&report))
            .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(if report.has_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn print(report: &Report, json_out: bool) -> Result<(), UsageError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let io = crate::output_error;
    for f in &report.findings {
        if json_out {
            let exchange = f.exchange.and_then(|i| report.exchanges.get(i));
            let line = json!({
                "check": f.check, "rule": f.rule, "level": f.level.as_str(), "pointer": f.pointer,
                "message": f.message,
                "sent": exchange.map(|e| &e.sent), "received": exchange.map(|e| &e.received),
            });
            writeln!(out, "{line}").map_err(io)?;
        } else {
            let rule = f.rule.map(|r| format!(" ({r})")).unwrap_or_default();
            let at = if f.pointer.is_empty() { String::new() } else { format!(" at {}", f.pointer) };
            writeln!(out, "{}: {}{rule}{at}: {}", f.check, f.level.as_str(), f.message).map_err(io)?;
        }
    }
    let errors = report.findings.iter().filter(|f| f.level == Level::Error).count();
    let summary = format!(
        "{} checks, {} exchanges, eras: {}; {} errors, {} warnings (seed {})",
        report.checks.len(),
        report.exchanges.len() + report.dropped_exchanges,
        if report.eras.is_empty() { "none".to_owned() } else { report.eras.join(", ") },
        errors,
        report.findings.len() - errors,
        report.seed
    );
    if json_out {
        writeln!(out, "{}", json!({"summary": summary, "errors": errors, "eras": report.eras, "seed": report.seed}))
            .map_err(io)?;
    } else {
        writeln!(out, "{summary}").map_err(io)?;
    }
    out.flush().map_err(io)
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push_str(&format!("&#x{:x};", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// One `<testcase>` per distinct check (in the order run), a `<failure>` per error-level finding.
pub(crate) fn junit_xml(report: &Report) -> String {
    let mut checks: Vec<&str> = Vec::new();
    for c in &report.checks {
        if !checks.contains(&c.as_str()) {
            checks.push(c);
        }
    }
    let failed =
        checks.iter().filter(|c| report.findings.iter().any(|f| f.check == **c && f.level == Level::Error)).count();
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"mcpgen probe\" tests=\"{}\" failures=\"{failed}\">\n",
        checks.len()
    );
    for c in checks {
        xml.push_str(&format!("  <testcase classname=\"mcpgen.probe\" name=\"{}\">", xml_escape(c)));
        for f in report.findings.iter().filter(|f| f.check == c && f.level == Level::Error) {
            let rule = f.rule.unwrap_or("SCHEMA");
            xml.push_str(&format!(
                "\n    <failure type=\"{}\" message=\"{}\">{} at {}</failure>",
                xml_escape(rule),
                xml_escape(&f.message),
                xml_escape(rule),
                xml_escape(if f.pointer.is_empty() { "/" } else { &f.pointer })
            ));
        }
        xml.push_str("</testcase>\n");
    }
    xml.push_str("</testsuite>\n");
    xml
}
