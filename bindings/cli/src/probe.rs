//! `mcpgen probe (URL | -- CMD)`: runs [`mcpgen_probe`] on a Streamable HTTP server
//! ([`mcpgen_probe::http::HttpPeer`]) or a stdio one, and prints what it found (text or JSON Lines),
//! optionally as JUnit XML for CI dashboards and a record of the traffic that
//! `validate --conversation` replays. The engine decides; this only opens the connections,
//! watches the run (progress on stderr, the record) and renders the report.

mod watch;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Duration;

use mcpgen::conversation::Severity;
use mcpgen_probe::http;
use mcpgen_probe::stdio::{StdioLimits, StdioPeer};
use mcpgen_probe::{
    Connect, EraChoice, Peer, PeerError, ProbeFinding, ProbeOptions, PromptPolicy, Refusal, Report, Status, ToolPolicy,
};
use serde_json::json;

use crate::flags::millis_or_duration;
use crate::UsageError;

pub use http::{DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_EVENTS, DEFAULT_MAX_MESSAGES};

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

/// `--era`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Era {
    Modern,
    Legacy,
    Both,
}

/// `--get-prompts`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GetPrompts {
    Safe,
    All,
}

/// What `mcpgen probe` was asked (its flags).
#[derive(clap::Args)]
pub struct Settings {
    /// Which tools to call: `none`, `read-only` (the default: only tools annotated both
    /// `readOnlyHint: true` and `openWorldHint: false`; an absent hint counts as the spec's
    /// default, `readOnlyHint` false and `openWorldHint` true, so a tool must say both), `all`,
    /// or a comma-separated list of tool names.
    #[arg(long, value_name = "POLICY", default_value = "read-only")]
    pub call_tools: String,
    /// Which prompts to get: `safe` (the default: not a prompt with an argument whose name or
    /// description names a URL, path, file, command or query, which a placeholder value could
    /// make the server fetch, open or run; those are reported skipped) or `all`.
    #[arg(long, value_name = "POLICY", value_enum, default_value_t = GetPrompts::Safe)]
    pub get_prompts: GetPrompts,
    /// Longest wait for one answer: `10s`, `500ms`, `2m`; a bare number is milliseconds
    /// (`--timeout-ms` is the same flag).
    #[arg(long = "timeout", alias = "timeout-ms", value_name = "DURATION", default_value = "10s", value_parser = millis_or_duration)]
    pub timeout: Duration,
    /// The whole run's time (`2m`, `90s`; a bare number is milliseconds; `--budget-ms` is the
    /// same flag): once spent, no further message is sent and the report says where it
    /// stopped (PROBE-3). Default: no limit.
    #[arg(long = "budget", alias = "budget-ms", value_name = "DURATION", value_parser = millis_or_duration)]
    pub budget: Option<Duration>,
    /// The eras to probe: `modern` (`server/discover`, per-request `_meta`), `legacy`
    /// (`initialize` sessions) or `both` (the default: a server that answers `initialize` is
    /// probed in the legacy era even if `server/discover` names modern versions only).
    #[arg(long, value_name = "ERA", value_enum, default_value_t = Era::Both)]
    pub era: Era,
    /// Same as `--era modern` (kept for older scripts).
    #[arg(long, hide = true, conflicts_with = "era")]
    pub modern_only: bool,
    /// Compare every `tools/list` result with this pin (`mcpgen tools pin`): each tool added,
    /// removed or changed is a TOOL-12 warning.
    #[arg(long, value_name = "FILE")]
    pub tools_baseline: Option<std::path::PathBuf>,
    /// The seed of the tool-argument cases: the same seed gives the same cases (the summary
    /// names the seed a run used).
    #[arg(long, value_name = "N", default_value_t = mcpgen_probe::DEFAULT_SEED)]
    pub seed: u64,
    /// Also write a JUnit XML report (one test case per check) to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write the findings as SARIF 2.1.0 to FILE (docs/observability.md): each finding at
    /// its check (a logical location), the server in the invocation's properties.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Also write a self-contained HTML page to FILE: the exchanges of each check in order,
    /// each finding marked at its exchange with its rule and clause, totals by rule and level
    /// (docs/observability.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Record every message here, in the format `validate --conversation` replays.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// HTTP: the longest response body (or event stream) read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES, value_parser = at_least_one)]
    pub max_body_bytes: usize,
    /// HTTP: the most events read from one response's stream.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_EVENTS, value_parser = at_least_one)]
    pub max_events: usize,
    /// The most messages kept while waiting for one answer.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGES, value_parser = at_least_one)]
    pub max_messages: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = crate::Format::Text)]
    pub format: crate::Format,
    /// HTTP: a header sent with every request besides the transport's own, `NAME: VALUE`
    /// (repeatable) — `--header 'Authorization: Bearer TOKEN'` for a server that requires
    /// authorization. Never written to the record or the report.
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = header)]
    pub headers: Vec<(String, String)>,
    /// The server's Streamable HTTP endpoint (`http://HOST:PORT/PATH`).
    #[arg(value_name = "URL", required_unless_present = "command", conflicts_with = "command")]
    pub url: Option<String>,
    /// The stdio server's command and its arguments.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// `--header NAME: VALUE`.
fn header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once(':').ok_or("give NAME: VALUE")?;
    let name = name.trim();
    if name.is_empty() {
        return Err("the header has no name (give NAME: VALUE)".into());
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// A count or size of at least 1 (a limit of 0 would refuse everything).
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("give at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// A stdio server: each connection a new process.
struct StdioServer {
    command: Vec<OsString>,
    limits: StdioLimits,
}

impl StdioServer {
    fn spawn(&self) -> std::io::Result<StdioPeer> {
        let (program, args) = self.command.split_first().ok_or_else(|| std::io::Error::other("no command"))?;
        let mut cmd = Command::new(program);
        cmd.args(args);
        StdioPeer::spawn(cmd, self.limits)
    }
}

impl Connect for StdioServer {
    fn connect(&mut self) -> Result<Box<dyn Peer>, PeerError> {
        self.spawn().map(|p| Box::new(p) as Box<dyn Peer>).map_err(|e| PeerError::Io(format!("cannot start: {e}")))
    }
}

pub fn run(s: Settings) -> Result<ExitCode, UsageError> {
    let options = ProbeOptions {
        call_tools: policy(&s.call_tools)?,
        get_prompts: match s.get_prompts {
            GetPrompts::Safe => PromptPolicy::Safe,
            GetPrompts::All => PromptPolicy::All,
        },
        era: match (s.modern_only, s.era) {
            (true, _) | (_, Era::Modern) => EraChoice::Modern,
            (_, Era::Legacy) => EraChoice::Legacy,
            (_, Era::Both) => EraChoice::Both,
        },
        budget: s.budget,
        seed: s.seed,
        tools_baseline: s.tools_baseline.as_deref().map(crate::cmd::tools::load_baseline).transpose()?,
        ..ProbeOptions::default()
    };
    let timeout = s.timeout;
    let mut watch = watch::Watch::new(!s.quiet, s.record.as_deref())?;
    let report = match (&s.url, s.command.is_empty()) {
        (Some(url), true) => {
            let limits = http::HttpLimits {
                timeout,
                max_body_bytes: s.max_body_bytes,
                max_events: s.max_events,
                max_messages: s.max_messages,
            };
            let mut target = http::HttpTarget::new(url, limits)
                .and_then(|t| t.with_headers(&s.headers))
                .map_err(|e| UsageError(e.to_string()))?;
            watch.say(&format!("probing {url}"));
            let mut peer = target.peer();
            let report = mcpgen_probe::run_with(&mut peer, Some(&mut target), &options, &mut watch);
            drop(peer);
            report
        }
        (None, false) if !s.headers.is_empty() => {
            return Err(UsageError("--header is for an HTTP server (a URL); a stdio server has no headers".into()))
        }
        (None, false) => {
            let limits = StdioLimits { timeout, max_messages_per_answer: s.max_messages, ..StdioLimits::default() };
            // What the server starts is ended with it, even a daemon that left its process
            // group and session (crate::reaper), at the end and on SIGTERM/SIGINT/SIGHUP.
            #[cfg(unix)]
            {
                crate::reaper::become_subreaper();
                crate::reaper::end_all_on_signal("mcpgen probe")
                    .map_err(|e| UsageError(format!("cannot install signal handlers: {e}")))?;
            }
            let mut server = StdioServer { command: s.command.clone(), limits };
            let program = s.command[0].to_string_lossy().into_owned();
            let mut peer = server.spawn().map_err(|e| UsageError(format!("cannot start {program}: {e}")))?;
            watch.say(&format!("probing {}", server_name(&s.command)));
            let report = mcpgen_probe::run_with(&mut peer, Some(&mut server), &options, &mut watch);
            #[cfg(unix)]
            crate::reaper::wait_if_stopping();
            drop(peer);
            #[cfg(unix)]
            crate::reaper::end_descendants();
            report
        }
        _ => return Err(UsageError("give either the server's URL or its command after --".into())),
    };
    watch.finish()?;
    if let Some(refusal) = &report.refused {
        return cannot_probe(refusal, &s);
    }
    print(&report, s.format == crate::Format::Json)?;
    if let Some(path) = &s.junit {
        std::fs::write(path, junit_xml(&report))
            .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?;
    }
    if let Some(path) = &s.sarif {
        crate::sarif::probe_log(&report).write(path, true, server_json(&s))?;
    }
    if let Some(path) = &s.html {
        crate::html::write(path, &crate::html::from_probe(&report, &target_name(&s)))?;
    }
    Ok(if report.has_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The server probed: its URL, or its command line.
fn target_name(s: &Settings) -> String {
    s.url.clone().unwrap_or_else(|| s.command.iter().map(|w| w.to_string_lossy()).collect::<Vec<_>>().join(" "))
}

/// The probed server in the SARIF invocation's properties (never the `--header` values).
fn server_json(s: &Settings) -> serde_json::Value {
    let command: Vec<String> = s.command.iter().map(|w| w.to_string_lossy().into_owned()).collect();
    json!({"command": "probe", "url": s.url, "serverCommand": command, "seed": s.seed})
}

/// The server a command starts, as the progress line names it: the script or package an
/// interpreter or launcher runs (`node build/index.js` is `build/index.js`, `npx -y
/// @scope/server` is `@scope/server`, `python3 -m pkg` is `pkg`), else the program.
fn server_name(command: &[OsString]) -> String {
    const LAUNCHERS: &[&str] = &[
        "node", "nodejs", "deno", "bun", "python", "python3", "pypy3", "uv", "uvx", "npx", "pnpm", "pnpx", "yarn",
        "bunx", "sh", "bash", "ruby", "java", "dotnet", "docker", "run", "exec", "dlx", "tool",
    ];
    let words: Vec<String> = command.iter().map(|w| w.to_string_lossy().into_owned()).collect();
    let base = |w: &str| std::path::Path::new(w).file_name().map_or(w.to_owned(), |n| n.to_string_lossy().into_owned());
    let Some(program) = words.first() else { return String::new() };
    if !LAUNCHERS.contains(&base(program).trim_end_matches(".exe")) {
        return program.clone();
    }
    let mut rest = words[1..].iter();
    while let Some(w) = rest.next() {
        if w == "-m" || w == "--from" || w == "--package" || w == "-p" {
            if let Some(next) = rest.next() {
                return next.clone();
            }
        } else if !w.starts_with('-') && !LAUNCHERS.contains(&w.as_str()) {
            return w.clone();
        }
    }
    program.clone()
}

/// A message on one line: a server's text may hold line breaks, which would run a finding
/// into the next line (or the summary).
fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// The clause of a finding, as JSON (`null` without one).
fn clause_json(f: &ProbeFinding) -> serde_json::Value {
    match f.clause {
        None => serde_json::Value::Null,
        Some(c) => json!({
            "revision": f.revision.map(|r| r.as_str()), "keyword": c.level.as_str(), "quote": c.quote,
            "url": f.clause_url(), "code": c.code,
        }),
    }
}

/// The clause line under a finding: `  clause (2026-07-28, MUST): "…" <URL>`, and what the
/// check accepts.
fn clause_text(f: &ProbeFinding) -> String {
    let mut out = String::new();
    if let Some(c) = f.clause {
        let rev = f.revision.map_or(mcpgen::rules::CATALOGUE_REVISION, |r| r.as_str());
        out.push_str(&format!("\n  clause ({rev}, {})", c.level.as_str()));
        if let Some(q) = c.quote {
            out.push_str(&format!(": \"{}\"", one_line(q)));
        }
        if let Some(url) = f.clause_url() {
            out.push_str(&format!(" <{url}>"));
        }
    }
    if let Some(a) = &f.accepts {
        out.push_str(&format!("\n  accepted: {a}"));
    }
    out
}

/// The counts the summary and the JUnit report share: checks (each once per era, the skipped
/// ones among them), failed, skipped.
struct Counts {
    checks: usize,
    failed: usize,
    skipped: usize,
}

fn counts(report: &Report) -> Counts {
    let outcomes = report.outcomes();
    Counts {
        checks: outcomes.len(),
        failed: outcomes.iter().filter(|o| o.status == Status::Failed).count(),
        skipped: outcomes.iter().filter(|o| matches!(o.status, Status::Skipped(_))).count(),
    }
}

/// The first exchange was refused or could not reach the server (PROBE-5): nothing was
/// judged. Says so on stderr with what to try (and on stdout as JSON, in the JUnit file as an
/// `<error>`); exit status 2.
fn cannot_probe(refusal: &Refusal, s: &Settings) -> Result<ExitCode, UsageError> {
    let target = s.url.clone().unwrap_or_else(|| s.command[0].to_string_lossy().into_owned());
    let advice = advice(&refusal.error, s.url.as_deref());
    if s.format == crate::Format::Json {
        let status = match refusal.error {
            PeerError::Refused { status, .. } => Some(status),
            _ => None,
        };
        let line = json!({"cannot_probe": target, "check": refusal.check, "error": refusal.error.to_string(),
            "status": status, "advice": advice});
        crate::write_out(&format!("{line}\n"))?;
    }
    if let Some(path) = &s.junit {
        let xml = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"mcpgen probe\" tests=\"1\" failures=\"0\" errors=\"1\">\n  <testcase classname=\"mcpgen.probe\" name=\"{}\"><error type=\"PROBE-5\" message=\"{}\">{}</error></testcase>\n</testsuite>\n",
            xml_escape(&refusal.check),
            xml_escape(&refusal.error.to_string()),
            xml_escape(&advice)
        );
        std::fs::write(path, xml).map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?;
    }
    if let Some(path) = &s.sarif {
        let mut log = crate::sarif::SarifLog::default();
        let text = format!("cannot probe {target}: {} (nothing was judged). {advice}", refusal.error);
        log.notify("error", &text, Some(&refusal.check));
        log.write(path, false, server_json(s))?;
    }
    eprintln!("mcpgen probe: cannot probe {target}: {} (at `{}`; nothing was judged)", refusal.error, refusal.check);
    eprintln!("  {advice}");
    Ok(ExitCode::from(2))
}

/// What to try after a refusal.
fn advice(error: &PeerError, url: Option<&str>) -> String {
    let authority = url
        .and_then(|u| u.parse::<hyper::Uri>().ok())
        .and_then(|u| u.authority().map(|a| a.as_str().to_owned()))
        .unwrap_or_default();
    match error {
        PeerError::Unreachable(_) => format!(
            "Is the server running, and listening at {authority}? A server started on `localhost` may listen \
             on one of 127.0.0.1 and [::1] only: try the other."
        ),
        PeerError::Refused { status: 401, .. } => "The server requires authorization: give it with \
             --header 'Authorization: Bearer TOKEN' (sent with every request, never recorded)."
            .to_owned(),
        PeerError::Refused { status: 407, .. } => "Authentication is required on the way to the server: give it \
             with --header 'Proxy-Authorization: …'."
            .to_owned(),
        PeerError::Refused { .. } => format!(
            "A server refuses with 403 a request whose Host or Origin it does not accept (protection against \
             DNS rebinding) or that it does not authorize. The probe sent `Host: {authority}` and no Origin: if \
             the server accepts only `localhost` (or only `127.0.0.1`), give the URL with that host, or allow this \
             one in the server's settings; for authorization use --header 'Authorization: …'."
        ),
        PeerError::Closed if url.is_none() => "The server closed its output before answering the first request: \
             it may have exited (its error output, above, says why — a wrong argument, a missing dependency) or may \
             not speak MCP over stdio. Run the command by hand to see."
            .to_owned(),
        _ => "Check that the server starts and answers.".to_owned(),
    }
}

fn print(report: &Report, json_out: bool) -> Result<(), UsageError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let io = crate::output_error;
    for f in &report.findings {
        if json_out {
            let exchange = f.exchange.and_then(|i| report.exchanges.get(i));
            let mut line = json!({
                "check": f.check, "rule": f.rule, "level": f.level.as_str(), "pointer": f.pointer,
                "message": f.message, "revision": f.revision.map(|r| r.as_str()), "clause": clause_json(f),
                "accepts": f.accepts,
                "sent": exchange.map(|e| &e.sent), "received": exchange.map(|e| &e.received),
            });
            if let Some(unkept) = exchange.map(|e| e.unkept).filter(|n| *n > 0) {
                // Messages the report did not keep (ProbeOptions::max_kept_bytes): said, not hidden.
                line["unkept"] = json!(unkept);
            }
            writeln!(out, "{line}").map_err(io)?;
        } else {
            let rule = f.rule.map(|r| format!(" ({r})")).unwrap_or_default();
            let at = if f.pointer.is_empty() { String::new() } else { format!(" at {}", f.pointer) };
            writeln!(out, "{}: {}{rule}{at}: {}{}", f.check, f.level.as_str(), one_line(&f.message), clause_text(f))
                .map_err(io)?;
        }
    }
    for k in &report.skipped {
        if json_out {
            writeln!(out, "{}", json!({"skipped": k.check, "reason": k.reason, "revision": k.revision})).map_err(io)?;
        } else {
            writeln!(out, "{}: skipped: {}", k.check, one_line(&k.reason)).map_err(io)?;
        }
    }
    // What a client of each era saw.
    for e in &report.era_summaries {
        if json_out {
            let line = json!({"era": e.era, "revision": e.revision, "outcome": e.outcome,
                "checks": e.checks, "errors": e.errors, "warnings": e.warnings});
            writeln!(out, "{line}").map_err(io)?;
        } else {
            writeln!(
                out,
                "{} client at {}: {}; {} checks, {} errors, {} warnings",
                e.era,
                e.revision,
                one_line(&e.outcome),
                e.checks,
                e.errors,
                e.warnings
            )
            .map_err(io)?;
        }
    }
    let errors = report.findings.iter().filter(|f| f.level == Severity::Error).count();
    let n = counts(report);
    let summary = format!(
        "{} checks ({} failed, {} skipped), {} exchanges, eras: {}; {} errors, {} warnings (seed {})",
        n.checks,
        n.failed,
        n.skipped,
        report.exchanges.len() + report.dropped_exchanges,
        if report.eras.is_empty() { "none".to_owned() } else { report.eras.join(", ") },
        errors,
        report.findings.len() - errors,
        report.seed
    );
    if json_out {
        let line = json!({"summary": summary, "checks": n.checks, "failed": n.failed, "errors": errors,
            "eras": report.eras, "skipped": n.skipped, "out_of_time": report.out_of_time, "seed": report.seed});
        writeln!(out, "{line}").map_err(io)?;
    } else {
        // A blank line: the last finding never runs into the summary.
        writeln!(out, "\n{summary}").map_err(io)?;
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

/// One `<testcase>` per check of [`Report::outcomes`] (each check once per era: the checks the
/// text summary counts), a `<failure>` per error-level finding with its clause, the warnings
/// in `<system-out>`, a `<skipped>` for a check not run.
pub(crate) fn junit_xml(report: &Report) -> String {
    let n = counts(report);
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"mcpgen probe\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
        n.checks, n.failed, n.skipped
    );
    for o in report.outcomes() {
        let class = if o.revision == mcpgen_probe::modern_revision() {
            "mcpgen.probe.modern".to_owned()
        } else {
            format!("mcpgen.probe.legacy-{}", o.revision)
        };
        xml.push_str(&format!("  <testcase classname=\"{}\" name=\"{}\">", xml_escape(&class), xml_escape(&o.name)));
        if let Status::Skipped(reason) = &o.status {
            xml.push_str(&format!("<skipped message=\"{}\"/></testcase>\n", xml_escape(reason)));
            continue;
        }
        let mine = report.findings.iter().filter(|f| {
            f.check == o.name && f.revision.map_or(mcpgen_probe::modern_revision(), |r| r.as_str()) == o.revision
        });
        let mut warnings = String::new();
        for f in mine {
            let rule = f.rule.unwrap_or("SCHEMA");
            let at = if f.pointer.is_empty() { "/" } else { &f.pointer };
            let body = format!("{rule} at {at}: {}{}", f.message, clause_text(f));
            if f.level == Severity::Error {
                xml.push_str(&format!(
                    "\n    <failure type=\"{}\" message=\"{}\">{}</failure>",
                    xml_escape(rule),
                    xml_escape(&f.message),
                    xml_escape(&body)
                ));
            } else {
                warnings.push_str(&format!("warning: {body}\n"));
            }
        }
        if !warnings.is_empty() {
            xml.push_str(&format!("\n    <system-out>{}</system-out>", xml_escape(&warnings)));
        }
        xml.push_str("</testcase>\n");
    }
    xml.push_str("</testsuite>\n");
    xml
}
