//! Header negatives, for a transport with headers (Streamable HTTP): a modern request whose
//! standard headers disagree with its body, and a `tools/call` whose `Mcp-Param-*` headers
//! disagree with its arguments. Each is judged against what
//! [`check_http_headers`] / [`check_param_headers`] answer for the headers actually sent and
//! the body: the server's error code must be theirs (-32020); the HTTP status that goes with it
//! (400) is the conversation checker's rule (ERR-8, [`Conversation::check_http`]). On a
//! transport without headers (stdio) they are not run, and the report says so.

use serde_json::{json, Value};

use mcpgen::conversation::{Conversation, Severity};
use mcpgen::protocol::{check_http_headers, check_param_headers, ProtocolError};
use mcpgen::rules::id;

use super::{is_loopback_host, modern_request, HeaderEdit, PeerError, Run};

/// The standard-header negatives: (name, request, edits). `tools`: the server declared the
/// tools capability (the `Mcp-Name` case is a `tools/call` of a tool that does not exist, so a
/// server that ignores the header still calls nothing).
fn cases(r: &mut Run<'_>, tools: bool) -> Vec<(&'static str, Value, Vec<HeaderEdit>)> {
    let set = |k: &str, v: &str| HeaderEdit::Set(k.to_owned(), v.to_owned());
    let remove = |k: &str| HeaderEdit::Remove(k.to_owned());
    let mut out = vec![
        ("method-mismatch", modern_request(r.id(), "tools/list", json!({})), vec![set("Mcp-Method", "ping")]),
        ("method-missing", modern_request(r.id(), "tools/list", json!({})), vec![remove("Mcp-Method")]),
        ("version-missing", modern_request(r.id(), "tools/list", json!({})), vec![remove("MCP-Protocol-Version")]),
        // The header names the modern revision and the body's `_meta` another one: the
        // header alone puts the request in the modern era, so a dual-era server cannot read it
        // as a legacy request (which a legacy version in the header would allow it to).
        (
            "version-mismatch",
            body_version(modern_request(r.id(), "tools/list", json!({})), "2025-11-25"),
            vec![set("MCP-Protocol-Version", super::modern_revision())],
        ),
    ];
    if tools {
        let call = modern_request(r.id(), "tools/call", json!({"name": "mcpgen-probe-no-such-tool", "arguments": {}}));
        out.push(("name-mismatch", call, vec![set("Mcp-Name", "mcpgen-probe-other-tool")]));
    }
    out
}

/// `request` with `version` as its `_meta` protocol version.
fn body_version(mut request: Value, version: &str) -> Value {
    request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(version);
    request
}

/// The check whose verdict waits for the legacy era: a request without `MCP-Protocol-Version`.
pub(super) const VERSION_MISSING: &str = "header/version-missing";

/// Settles [`VERSION_MISSING`] once the eras are known. 2026-07-28 (basic/transports/
/// streamable-http): "A server that supports clients implementing protocol versions earlier
/// than `2025-06-18` … **MAY** treat a request that omits the header as protocol version
/// `2025-03-26`. A server that does not support such clients **MUST** reject a request without
/// the header". The probe cannot ask which legacy versions a server supports; one that served
/// the legacy era may be one of the first kind, so its answer is not judged (the check is
/// skipped, saying why, and the findings on the answer go — but a `null` id, ID-4, is wrong in
/// every revision and stays). Without the legacy era probed (`--era modern`) the same holds.
/// Judged as any answer: a -32020 refusal (the modern reading, ERR-8 on its status too), and
/// every answer of a server that refused `initialize`.
pub(super) fn settle_version_missing(r: &mut Run<'_>) {
    let legacy_served = r.report.eras.iter().any(|e| e.starts_with("legacy"));
    let legacy_probed = r.opts.era.legacy();
    if legacy_probed && !legacy_served {
        return;
    }
    // Answered -32020, the server read the request as modern and refused it: the answer is
    // judged like any (its HTTP status, ERR-8, too).
    let refused_as_modern = r.report.exchanges.iter().filter(|x| x.check == VERSION_MISSING).any(|x| {
        x.received.iter().any(|m| {
            serde_json::from_str::<Value>(m).ok().and_then(|v| v.pointer("/error/code").and_then(Value::as_i64))
                == Some(-32020)
        })
    });
    if refused_as_modern {
        return;
    }
    let modern = super::modern_revision();
    let mut i = 0;
    let (mut errors, mut warnings, mut dropped) = (0, 0, false);
    while i < r.report.findings.len() {
        let f = &r.report.findings[i];
        let this = f.check == VERSION_MISSING && f.revision.is_none_or(|v| v.as_str() == modern);
        if this && f.rule != Some(mcpgen::rules::id::ID_4) {
            match f.level {
                mcpgen::conversation::Severity::Error => errors += 1,
                _ => warnings += 1,
            }
            r.report.findings.remove(i);
            dropped = true;
        } else {
            i += 1;
        }
    }
    if !dropped || !r.report.checks.iter().any(|c| c.name == VERSION_MISSING && c.revision == modern) {
        return;
    }
    r.report.checks.retain(|c| !(c.name == VERSION_MISSING && c.revision == modern));
    if let Some(seen) = r.report.era_summaries.iter_mut().find(|s| s.era == "modern") {
        seen.errors -= errors.min(seen.errors);
        seen.warnings -= warnings.min(seen.warnings);
    }
    let why = if legacy_served { "the server also serves the legacy era" } else { "the legacy era was not probed" };
    let reason = format!(
        "{why}: a server that supports clients of versions before 2025-06-18 MAY treat a request without the header as 2025-03-26 (2026-07-28 basic/transports/streamable-http), and which versions it supports is not known; its answer is not judged"
    );
    r.report.skipped.push(super::Skipped { check: VERSION_MISSING.to_owned(), reason, revision: modern.to_owned() });
}

/// The names of the standard-header checks, for the report of a transport without headers.
const CHECKS: [&str; 5] = ["method-mismatch", "method-missing", "version-missing", "version-mismatch", "name-mismatch"];

/// Sends each standard-header negative (or, on a transport without headers, reports them
/// skipped).
pub(super) fn run(r: &mut Run<'_>, conv: &mut Conversation, tools: bool) {
    if !r.peer().has_headers() {
        for name in CHECKS.iter().take(if tools { 5 } else { 4 }) {
            r.skip(&format!("header/{name}"), "the transport has no headers (stdio)".into());
        }
        return;
    }
    for (name, request, edits) in cases(r, tools) {
        let check = format!("header/{name}");
        let body = request.to_string();
        let Some(answer) = r.exchange_edited(&check, conv, request, &edits) else { continue };
        let sent = r.peer().carried().map(|c| c.request_headers.clone()).unwrap_or_default();
        let verdict = check_http_headers(sent.iter().map(|(k, v)| (k.as_str(), v.as_str())), body.as_bytes());
        judge(r, &check, verdict, &answer);
    }
}

/// The `Mcp-Param-*` headers of a modern `tools/call` of `tool` with `arguments` (XHDR-7), as
/// edits; `Err` with why when the tool's `x-mcp-header` bindings are unusable.
pub(super) fn param_edits(tool: &Value, arguments: &Value) -> Result<Vec<HeaderEdit>, String> {
    let schema = tool.get("inputSchema").cloned().unwrap_or_else(|| json!({}));
    let bindings = mcpgen::http::header_bindings(&schema).map_err(|e| e.to_string())?;
    let headers = mcpgen::http::param_headers(&bindings, arguments).map_err(|e| e.to_string())?;
    Ok(headers.into_iter().map(|(k, v)| HeaderEdit::Set(k, v)).collect())
}

/// XHDR-9: `request` (an allowed `tools/call` of `name` with `Mcp-Param-*` headers, `edits`)
/// once more, without its first parameter header. Only for a tool the policy lets the probe
/// call: a server that ignores the mismatch runs it.
pub(super) fn param_mismatch(
    r: &mut Run<'_>,
    conv: &mut Conversation,
    tool: &Value,
    request: Value,
    edits: &[HeaderEdit],
) {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let check = format!("header/param-missing/{name}");
    let mut request = request;
    request["id"] = json!(r.id());
    let body = request.to_string();
    let (removed, rest) = match edits.split_first() {
        Some((HeaderEdit::Set(k, _), rest)) => (k.clone(), rest),
        _ => return,
    };
    let mut changed: Vec<HeaderEdit> = rest.to_vec();
    changed.push(HeaderEdit::Remove(removed));
    let Some(answer) = r.exchange_edited(&check, conv, request, &changed) else { return };
    let sent = r.peer().carried().map(|c| c.request_headers.clone()).unwrap_or_default();
    let schema = tool.get("inputSchema").cloned().unwrap_or_else(|| json!({}));
    let Ok(bindings) = mcpgen::http::header_bindings(&schema) else { return };
    let verdict = check_param_headers(sent.iter().map(|(k, v)| (k.as_str(), v.as_str())), &bindings, body.as_bytes());
    judge(r, &check, verdict, &answer);
}

/// The server's answer against the check's verdict on what was sent: the code of the refusal
/// the headers sent call for, else a finding on its rule at its clause's level.
fn judge(r: &mut Run<'_>, check: &str, verdict: Result<(), ProtocolError>, answer: &Value) {
    let expected = match verdict {
        Err(expected) => expected,
        // The transport did not send the mistake asked for: nothing to judge, and said so.
        Ok(()) => return r.skip(check, "the headers sent agree with the body: no mismatch to judge".into()),
    };
    if answer.pointer("/error/code").and_then(Value::as_i64) != Some(expected.code) {
        let refused = super::oracle::Refused::of(answer);
        let at = r.last_exchange();
        let message = format!(
            "answered headers that disagree with the body with {}; the spec's answer is {} ({})",
            refused.got, expected.code, expected.message
        );
        let accepts = format!("error code {}", expected.code);
        r.violation(check, expected.rule, refused.pointer, message, Some(accepts), at);
    }
    super::negatives::version_data(r, check, answer);
}

/// The `Origin` the origin check sends: a foreign one (`.invalid` never resolves, RFC 6761),
/// so no server can have it on an allow-list it means.
pub(crate) const FOREIGN_ORIGIN: &str = "http://mcpgen-probe.invalid";

/// Whether the revision in play says how a refused `Origin` is answered (403, from 2025-11-25
/// on); before, the transport only says the header MUST be validated.
fn says_403(r: &Run<'_>) -> bool {
    r.rev.is_none_or(|rev| rev.as_str() >= "2025-11-25")
}

/// HTTP-2: one request of the session's era (modern: `server/discover`; legacy: `ping`) with
/// the foreign `Origin`. HTTP 403 is the answer the transport names (2025-11-25 on; before it
/// any 4xx refusal). A server that answers it as usual did not refuse the foreign `Origin`:
/// an error where the URL's host is a loopback address or `localhost` (the DNS-rebinding case
/// the MUST exists for), a warning elsewhere (a public server's allow-list cannot be known).
/// A timeout or other transport trouble is no verdict (skipped, with why).
pub(super) fn origin(r: &mut Run<'_>, conv: &mut Conversation, modern: bool) {
    let check = "header/origin";
    if !r.peer().has_headers() {
        return r.skip(check, "the transport has no headers (stdio)".into());
    }
    let id = r.id();
    let request = if modern {
        modern_request(id, "server/discover", json!({}))
    } else {
        json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
    };
    let ran = r.report.checks.len();
    r.keep_error = true;
    let answer = r.exchange_edited(check, conv, request, &[HeaderEdit::Set("Origin".into(), FOREIGN_ORIGIN.into())]);
    r.keep_error = false;
    let kept = r.kept.take();
    if r.report.checks.len() == ran {
        return; // not sent (the budget ran out, or the run was refused)
    }
    let status = r.peer().carried().and_then(|c| c.status);
    let at = r.last_exchange();
    let accepts = if says_403(r) { "HTTP 403" } else { "an HTTP 4xx refusal" };
    match (kept, status) {
        (Some(PeerError::Refused { status: 403, .. }), _) => {}
        (Some(e @ PeerError::Refused { .. }), _) => r.refused(check, e, at),
        (_, Some(s)) if s >= 400 => {
            if says_403(r) {
                let message = format!(
                    "refused the request with the foreign `Origin: {FOREIGN_ORIGIN}` with HTTP {s}; the transport's answer to an invalid `Origin` is 403 Forbidden"
                );
                r.violation(check, id::HTTP_2, "", message, Some(accepts.into()), at);
            }
        }
        (Some(e), _) => r.skip(check, format!("no verdict: {e} (transport trouble is not judged)")),
        (None, _) if answer.is_none() && status.is_none() => {
            r.skip(check, "no verdict: no HTTP response came".into());
        }
        (None, _) => {
            let host = r.peer().target_host().unwrap_or_default();
            let got = status.map_or_else(|| "an answer".to_owned(), |s| format!("HTTP {s}"));
            if is_loopback_host(&host) {
                let message = format!(
                    "accepted the request with the foreign `Origin: {FOREIGN_ORIGIN}` ({got}) on the loopback host {host}: \
                     a web page on any site could drive this server by DNS rebinding; the server MUST validate `Origin` and refuse this one"
                );
                r.violation(check, id::HTTP_2, "", message, Some(accepts.into()), at);
            } else {
                let message = format!(
                    "accepted the request with the foreign `Origin: {FOREIGN_ORIGIN}` ({got}) on {host}: a warning, not an error, since \
                     which origins a public server allows cannot be known from outside; a server on a loopback host would fail here"
                );
                r.finding(check, Some(id::HTTP_2), Severity::Warning, "", message, at);
            }
        }
    }
}
