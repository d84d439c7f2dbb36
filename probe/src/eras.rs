//! The legacy era: an `initialize` session at each legacy revision the server names, each on a
//! connection of its own when the run can open one ([`super::Connect`]), else the preferred
//! revision only, on the one connection there is; and what a client of each era saw
//! ([`EraSeen`]).

use serde_json::{json, Value};

use mcpgen::conversation::{Conversation, Severity};

use super::Run;

/// The revision a modern session speaks: the newest modern revision of this build
/// ([`mcpgen::protocol::latest_modern`]; empty in a build with legacy revisions only).
pub fn modern_revision() -> &'static str {
    mcpgen::protocol::latest_modern().map_or("", |r| r.as_str())
}

/// What a client of one era (or one legacy revision) saw: one line of the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraSeen {
    /// `modern`, or `legacy`.
    pub era: String,
    /// The revision the probe asked for.
    pub revision: String,
    /// What the server did with it: `served; offers tools, prompts`, `answered 2025-11-25`, …
    pub outcome: String,
    /// The checks run (each once, as [`crate::Report::outcomes`] counts them), and the
    /// findings, in that era's steps.
    pub checks: usize,
    pub errors: usize,
    pub warnings: usize,
}

/// Where the report stood when an era began.
#[derive(Clone, Copy)]
pub(super) struct Mark {
    checks: usize,
    findings: usize,
}

impl Mark {
    pub(super) fn of(r: &Run<'_>) -> Mark {
        Mark { checks: r.report.checks.len(), findings: r.report.findings.len() }
    }
}

/// Records what the era begun at `start` saw.
pub(super) fn seen(r: &mut Run<'_>, start: Mark, era: &str, revision: &str, outcome: String) {
    let found = &r.report.findings[start.findings..];
    let errors = found.iter().filter(|f| f.level == Severity::Error).count();
    let mut distinct: Vec<(&str, &str)> = Vec::new();
    for c in &r.report.checks[start.checks..] {
        if !distinct.contains(&(c.name.as_str(), c.revision.as_str())) {
            distinct.push((&c.name, &c.revision));
        }
    }
    let checks = distinct.len();
    r.report.era_summaries.push(EraSeen {
        era: era.to_owned(),
        revision: revision.to_owned(),
        outcome,
        checks,
        errors,
        warnings: found.len() - errors,
    });
}

/// The capabilities a server declared, named (`tools, prompts`; `nothing`).
pub(super) fn offered(caps: &Value) -> String {
    let names: Vec<&str> = caps.as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
    if names.is_empty() {
        "nothing".to_owned()
    } else {
        names.join(", ")
    }
}

/// A session at each of `versions` (legacy revisions the server named, preferred first), at
/// most [`super::ProbeOptions::max_legacy_sessions`]: each on a fresh connection from `more`;
/// without it, the first on the run's connection and the rest skipped.
pub(super) fn legacy_sessions(r: &mut Run<'_>, mut more: Option<&mut dyn super::Connect>, versions: &[String]) {
    for (n, version) in versions.iter().enumerate() {
        let check = format!("legacy/{version}");
        if mcpgen::Revision::parse(version).is_none() {
            r.skip(&check, format!("`{version}` is not a revision mcpgen knows: no session opened"));
            continue;
        }
        if n >= r.opts.max_legacy_sessions {
            r.skip(&check, format!("past the limit of {} legacy sessions", r.opts.max_legacy_sessions));
            continue;
        }
        if r.report.out_of_time {
            r.skip(&check, "the time budget ran out".into());
            continue;
        }
        match more.as_deref_mut() {
            Some(connect) => match connect.connect() {
                Ok(peer) => {
                    r.own = Some(peer);
                    let lost = r.lost.take();
                    legacy_session(r, version);
                    // Dropping the connection ends the session (stdio: the process; HTTP: DELETE).
                    r.own = None;
                    r.lost = lost;
                }
                // Transport trouble, not the server's protocol: the session is not run.
                Err(e) => r.skip(&check, format!("cannot open a connection: {e}")),
            },
            None if n == 0 => legacy_session(r, version),
            None => {
                r.skip(&check, "one connection holds one legacy session: only the preferred revision is probed".into())
            }
        }
    }
}

/// One legacy session at `version`: `initialize`, `notifications/initialized`, then the
/// session's steps (lists, tool calls, prompts, resources); its messages are the conversation
/// `legacy/VERSION`.
pub(super) fn legacy_session(r: &mut Run<'_>, version: &str) {
    debug_assert_ne!(version, modern_revision());
    let start = Mark::of(r);
    let before = r.rev;
    r.rev = mcpgen::Revision::parse(version);
    let mut conv = Conversation::with_options(r.opts.conversation());
    let check = format!("legacy/{version}");
    r.label = Some(check.clone());
    let id = r.id();
    let init = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "mcpgen-probe", "version": env!("CARGO_PKG_VERSION")}
    }});
    let outcome = match r.exchange(&check, &mut conv, init) {
        None => "no answer to `initialize`".to_owned(),
        Some(answer) => match answer.get("result") {
            None => {
                let code = answer.pointer("/error/code").map_or_else(|| "?".to_owned(), Value::to_string);
                format!("`initialize` refused ({code})")
            }
            Some(result) => {
                let agreed = result.get("protocolVersion").and_then(Value::as_str).unwrap_or(version).to_owned();
                r.report.eras.push(format!("legacy {agreed}"));
                // The revision in play is the one the server answered with, where mcpgen knows it.
                if let Some(rev) = mcpgen::Revision::parse(&agreed) {
                    r.rev = Some(rev);
                }
                r.exchange(&check, &mut conv, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
                let caps = result.get("capabilities").cloned().unwrap_or(Value::Null);
                super::session(r, &mut conv, &caps, false);
                if agreed == version {
                    format!("accepted; offers {}", offered(&caps))
                } else {
                    format!("answered with {agreed} instead; offers {}", offered(&caps))
                }
            }
        },
    };
    r.label = None;
    seen(r, start, "legacy", version, outcome);
    r.rev = before;
}
