//! Tool calls: the cases of [`super::cases`] for every tool [`super::ToolPolicy`] allows,
//! each judged exactly, and a failing case shrunk before it is reported.
//!
//! The verdict on one `tools/call` (`judge`: a JSON-RPC error by the oracle's entries,
//! [`super::oracle`]; a result by [`mcpgen::tools::judge_call_result`], the very judgement the
//! conversation checker makes, so the two agree on every case):
//! - a **valid** case (its arguments satisfy the `inputSchema`) gets a `CallToolResult`;
//!   `isError: true` is allowed (a failure inside the tool), and so are -32603 (a server error,
//!   which the tools page lists among the protocol errors) and, modern, -32021 (the tool needs
//!   a client capability the probe does not declare, META-9); another JSON-RPC error says the
//!   request itself was wrong: PROBE-4, a warning (the page says so without a BCP 14 keyword);
//! - an **invalid** case (by the validator's verdict, not the builder's intent) gets a tool error (`isError: true`) or a protocol error, whichever
//!   code: the revisions since 2025-11-25 make input validation a tool-execution error, the
//!   earlier ones list invalid arguments among protocol errors (AMB-15); a result that is not an
//!   error means the server accepted what the schema refuses (TOOL-5);
//! - a result of a tool with an `outputSchema` that is not a tool error has `structuredContent`
//!   conforming to it (TOOL-4), for every case.
//!
//! Everything else in the answer (the result's shape against `tools/call`, progress, logs)
//! is the conversation checker's. The first valid call of a session carries a
//! `progressToken`, so the progress a server sends is judged too (PROG-2, PROG-3).
//!
//! Each session also calls a tool the server does not list (`unknown_tool`, TOOL-11).
//!
//! **Shrinking**: a case that fails is made smaller ([`super::cases::smaller`]: members
//! dropped, strings and arrays halved, numbers moved toward their bound) as long as the
//! validator's verdict stays the same and the server fails the same way (same rule, same
//! kind of answer), at most [`super::ProbeOptions::max_shrink_steps`] calls per case; the
//! finding shows the smallest failing arguments and points at their exchange. Shrink calls
//! count toward [`super::ProbeOptions::max_tool_calls`]; what the conversation checker says
//! about them is not reported again (it was said about the case itself).

use serde_json::{json, Value};

use mcpgen::conversation::{Conversation, Severity};
use mcpgen::rules::id;
use mcpgen::tools::{judge_call_result, AnswerFault, ArgumentsVerdict};

use super::args::Budget;
use super::cases::{self, Case};
use super::http_negatives;
use super::{oracle, Run};

/// Why one answer fails its case.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Failure {
    pub rule: &'static str,
    pub pointer: &'static str,
    pub message: String,
    /// What must stay the same while shrinking: the rule and the kind of answer.
    pub signature: String,
}

fn failure(rule: &'static str, pointer: &'static str, kind: &str, message: String) -> Failure {
    Failure { rule, pointer, message, signature: format!("{rule} {kind}") }
}

/// The verdict on `response`, the answer to a `tools/call` of `tool` with `arguments` in a
/// `modern` session or a legacy one; `None` when the answer is one the spec accepts, or when
/// there is none (the missing answer is reported where it is noticed). The arguments are judged
/// by the validator ([`mcpgen::tools::ArgumentsVerdict`]), never by what the case meant to be. A
/// JSON-RPC error goes by the oracle's entries `tool/NAME` and `tool/NAME (invalid arguments)`;
/// a result by [`mcpgen::tools::judge_call_result`], the conversation checker's own judgement
/// (TOOL-5, TOOL-4), so the two agree on every case.
pub(super) fn judge(tool: &Value, arguments: &Value, modern: bool, response: Option<&Value>) -> Option<Failure> {
    let response = response?;
    let compiled = mcpgen::tools::compile_tool(tool).ok()?;
    let verdict = ArgumentsVerdict::of(&compiled.validate_arguments(arguments))?;
    if response.get("error").is_some() {
        let pattern = if verdict.breaks_schema() { "tool/NAME (invalid arguments)" } else { "tool/NAME" };
        let accepts = oracle::accepts(pattern, modern)?;
        let refused = accepts.judge(response)?;
        return Some(failure(
            id::PROBE_4,
            refused.pointer,
            &refused.got,
            format!(
                "answered arguments that satisfy the inputSchema with {}; the spec accepts {} (a protocol error says the request itself was wrong)",
                refused.got,
                accepts.describe()
            ),
        ));
    }
    let result = response.get("result")?;
    // The first fault decides (shrinking keeps its kind); a structuredContent past a cost limit
    // is the checker's POLICY-TOOLS finding, not a verdict on the server.
    judge_call_result(&compiled, verdict, &result).into_iter().find_map(|fault| match fault {
        AnswerFault::AcceptedInvalidArguments { pointer } => Some(failure(
            id::TOOL_5,
            pointer,
            "accepted",
            "accepted arguments that fail the inputSchema (a tool error `isError: true` or a protocol error is due)"
                .into(),
        )),
        AnswerFault::MissingStructuredContent => Some(failure(
            id::TOOL_4,
            "/result",
            "missing",
            "no `structuredContent`, though the tool declares an outputSchema".into(),
        )),
        AnswerFault::StructuredContentInvalid(errors) => {
            let first = errors.first().map(|v| format!("{}: {}", v.pointer, v.message)).unwrap_or_default();
            Some(failure(
                id::TOOL_4,
                "/result/structuredContent",
                "invalid",
                format!("`structuredContent` does not conform to the outputSchema ({first})"),
            ))
        }
        _ => None,
    })
}

/// Every listed tool through the tool-schema checks ([`mcpgen::tools::check_tool`]: dialect,
/// `$ref`s — a network reference is refused, never fetched —, the compile limits), each error a
/// finding with its JSCHEMA rule, whether the tool may be called or not.
pub(super) fn schema_checks(r: &mut Run<'_>, tools: &[Value]) {
    name_checks(r, tools);
    for tool in tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
        let check = format!("inventory/tool-schema/{name}");
        r.ran(&check);
        if let Err(errors) = mcpgen::tools::check_tool(tool) {
            for e in &errors.errors {
                r.violation(&check, e.rule(), &e.pointer, e.message.clone(), None, None);
            }
        }
    }
}

/// The most characters a tool name should have (`server/tools`, Tool Names, from 2025-11-25).
pub const MAX_TOOL_NAME: usize = 128;

/// Why `name` is not a tool name of the form the tools page recommends (TOOL-2), in words;
/// `None` when it is one: 1 to [`MAX_TOOL_NAME`] characters, each an ASCII letter, digit,
/// `_`, `-` or `.`.
pub fn tool_name_problem(name: &str) -> Option<String> {
    let length = name.chars().count();
    if length == 0 {
        return Some("is empty; tool names SHOULD be between 1 and 128 characters in length (inclusive)".into());
    }
    if length > MAX_TOOL_NAME {
        return Some(format!(
            "has {length} characters; tool names SHOULD be between 1 and 128 characters in length (inclusive)"
        ));
    }
    let mut odd: Vec<String> = Vec::new();
    for c in name.chars().filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))) {
        let shown = if c == ' ' { "space".to_owned() } else { format!("{c:?}") };
        if !odd.contains(&shown) {
            odd.push(shown);
        }
    }
    (!odd.is_empty()).then(|| {
        format!(
            "has {}; the only characters a tool name SHOULD have are ASCII letters, digits, `_`, `-` and `.`",
            odd.join(", ")
        )
    })
}

/// TOOL-2 on every listed tool's name (`inventory/tool-name/NAME`): its length and characters,
/// and a name listed twice (tool names SHOULD be unique within a server). A SHOULD from
/// 2025-11-25 on (a warning); no finding at a revision without the guidance.
fn name_checks(r: &mut Run<'_>, tools: &[Value]) {
    let mut seen: Vec<&str> = Vec::new();
    for tool in tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
        let check = format!("inventory/tool-name/{name}");
        r.ran(&check);
        if let Some(problem) = tool_name_problem(name) {
            let shown: String = name.chars().take(64).collect();
            let message = format!("the tool name {shown:?} {problem}");
            r.violation(&check, id::TOOL_2, "/name", message, Some("1 to 128 of A-Z a-z 0-9 _ - .".into()), None);
        }
        if seen.contains(&name) {
            let message =
                format!("the tool name {name:?} is listed twice; tool names SHOULD be unique within a server");
            r.violation(&check, id::TOOL_2, "/name", message, Some("a name no other tool has".into()), None);
        } else {
            seen.push(name);
        }
    }
}

/// The tool calls of one session (`modern` or legacy): every allowed tool's cases.
pub(super) fn call_tools(r: &mut Run<'_>, conv: &mut Conversation, tools: &[Value], modern: bool) {
    let mut calls = 0;
    let mut progress_sent = false;
    for tool in tools {
        if !r.opts.call_tools.allows(tool) {
            continue;
        }
        if calls >= r.opts.max_tool_calls {
            break;
        }
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
        let check = format!("tool/{name}");
        // The run's deadline bounds building too (`--budget-ms`), besides the node budget.
        let mut budget = Budget::for_tool(r.deadline);
        let cases = cases::cases_within(tool, r.opts.seed ^ fnv(&name), r.opts.max_cases_per_tool, &mut budget);
        let cases = match cases {
            Ok(cases) if !cases.is_empty() => cases,
            // The builder could not satisfy the schema (or hit a limit): say so rather than
            // send a call whose failure would be the probe's fault.
            other => {
                let why = other.err().map_or_else(|| "no case".into(), |e| e.to_string());
                r.ran(&check);
                r.finding(
                    &check,
                    Some(id::PROBE_2),
                    Severity::Warning,
                    "",
                    format!("not called: no valid arguments could be built from its inputSchema ({why})"),
                    None,
                );
                continue;
            }
        };
        let first_valid = cases.iter().find(|c| c.valid).map(|c| c.arguments.clone());
        for case in cases {
            if calls >= r.opts.max_tool_calls {
                break;
            }
            calls += 1;
            let progress = case.valid && !progress_sent;
            progress_sent |= progress;
            let (response, at) = call(r, conv, &check, tool, &case.arguments, modern, progress);
            let Some(fail) = judge(tool, &case.arguments, modern, response.as_ref()) else { continue };
            let (minimal, at, steps) =
                shrink(r, conv, tool, &case, &fail, modern, &mut calls).unwrap_or((case.arguments.clone(), at, 0));
            let kind = if case.valid { "valid" } else { "invalid" };
            let shrunk = if steps > 0 { format!(", shrunk in {steps} steps") } else { String::new() };
            let pattern = if case.valid { "tool/NAME" } else { "tool/NAME (invalid arguments)" };
            let accepts = oracle::accepts(pattern, modern).map(oracle::Accepts::describe);
            r.violation(
                &check,
                fail.rule,
                fail.pointer,
                format!("{} (case `{}`, {kind}{shrunk}; minimal arguments: {minimal})", fail.message, case.name),
                if fail.rule == id::TOOL_4 { None } else { accepts },
                at,
            );
        }
        if let Some(arguments) = first_valid.filter(|_| modern && r.peer().has_headers()) {
            if calls < r.opts.max_tool_calls {
                calls += 1;
                param_mismatch(r, conv, tool, &arguments);
            }
        }
    }
}

/// One `tools/call` of `tool`; the response and the index of its exchange. On HTTP a modern
/// call mirrors its `x-mcp-header` arguments in `Mcp-Param-*` headers (XHDR-9); a case whose
/// arguments have no header form is not sent, and said so.
fn call(
    r: &mut Run<'_>,
    conv: &mut Conversation,
    check: &str,
    tool: &Value,
    arguments: &Value,
    modern: bool,
    progress: bool,
) -> (Option<Value>, Option<usize>) {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let edits = if modern && r.peer().has_headers() {
        match http_negatives::param_edits(tool, arguments) {
            Ok(edits) => edits,
            Err(reason) => {
                r.skip(check, format!("a case not sent: its arguments have no Mcp-Param-* form ({reason})"));
                return (None, None);
            }
        }
    } else {
        Vec::new()
    };
    let id = r.id();
    let mut request = r.request(id, "tools/call", json!({"name": name, "arguments": arguments}), modern);
    if progress {
        request["params"]["_meta"]["progressToken"] = json!(format!("mcpgen-probe-progress-{id}"));
    }
    let kept = r.report.findings.len();
    let response = r.exchange_edited(check, conv, request, &edits);
    // The checker judges the answer by the listed tool too; TOOL-4 and TOOL-5 are the probe's
    // own verdicts here ([`judge`], with the case and its shrunk form), so the checker's copies
    // go. Its TOOL-8 (a protocol error for arguments the schema refuses) stays: only it says so.
    let mut i = kept;
    while i < r.report.findings.len() {
        if matches!(r.report.findings[i].rule, Some(id::TOOL_4 | id::TOOL_5)) {
            r.report.findings.remove(i);
        } else {
            i += 1;
        }
    }
    (response, r.last_exchange())
}

/// On HTTP, the first valid case of `tool` once more without its first `Mcp-Param-*` header
/// (XHDR-9: the server must refuse it), when the tool binds any argument to a header.
fn param_mismatch(r: &mut Run<'_>, conv: &mut Conversation, tool: &Value, arguments: &Value) {
    let Ok(edits) = http_negatives::param_edits(tool, arguments) else { return };
    if edits.is_empty() {
        return;
    }
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let id = r.id();
    let request = r.request(id, "tools/call", json!({"name": name, "arguments": arguments}), true);
    http_negatives::param_mismatch(r, conv, tool, request, &edits);
}

/// Shrinks a failing case: returns the smallest arguments that still fail as `fail` does,
/// their exchange and the steps taken; `None` when no smaller one fails the same way.
#[allow(clippy::too_many_arguments)]
fn shrink(
    r: &mut Run<'_>,
    conv: &mut Conversation,
    tool: &Value,
    case: &Case,
    fail: &Failure,
    modern: bool,
    calls: &mut usize,
) -> Option<(Value, Option<usize>, usize)> {
    let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let check = format!("tool/{name}");
    let mut best: Option<(Value, Option<usize>)> = None;
    let mut current = case.arguments.clone();
    let mut steps = 0;
    'outer: loop {
        for candidate in cases::smaller(schema, &current) {
            if cases::classify(tool, &candidate) != Some(case.valid) {
                continue;
            }
            if steps >= r.opts.max_shrink_steps || *calls >= r.opts.max_tool_calls {
                break 'outer;
            }
            steps += 1;
            *calls += 1;
            // The checker's findings on a shrink call repeat the case's own: not kept.
            let kept = r.report.findings.len();
            let (response, at) = call(r, conv, &check, tool, &candidate, modern, false);
            r.report.findings.truncate(kept);
            if judge(tool, &candidate, modern, response.as_ref()).is_some_and(|f| f.signature == fail.signature) {
                current = candidate.clone();
                best = Some((candidate, at));
                continue 'outer;
            }
        }
        break;
    }
    best.map(|(v, at)| (v, at, steps))
}

/// FNV-1a of a tool's name: each tool's cases get their own stream of the seed.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The name of the tool `unknown_tool` calls: no server has it (and if one lists it, the
/// check is not run).
pub const UNKNOWN_TOOL: &str = "mcpgen-probe-no-such-tool";

/// A `tools/call` of a tool the server did not list (`negative/unknown-tool`, TOOL-11): a
/// protocol error is due, -32602 in the page's example; nothing is called.
pub(super) fn unknown_tool(r: &mut Run<'_>, conv: &mut Conversation, tools: &[Value], modern: bool) {
    let check = "negative/unknown-tool";
    if r.opts.call_tools == super::ToolPolicy::None {
        return r.skip(check, "`--call-tools none`: no `tools/call` is sent".into());
    }
    if tools.iter().any(|t| t.get("name").and_then(Value::as_str) == Some(UNKNOWN_TOOL)) {
        return r.skip(check, format!("the server lists a tool named `{UNKNOWN_TOOL}`"));
    }
    let id = r.id();
    let request = r.request(id, "tools/call", json!({"name": UNKNOWN_TOOL, "arguments": {}}), modern);
    let Some(answer) = r.exchange(check, conv, request) else { return };
    r.judge(check, &answer, &format!("A `tools/call` of `{UNKNOWN_TOOL}`, a tool the server does not list,"));
}

#[cfg(test)]
mod agreement_tests {
    //! The probe's verdict on a tool answer and the conversation checker's, case by case: both
    //! must give the rule written out here (TOOL-4, TOOL-5 or none) for the same call and answer.

    use mcpgen::conversation::{Conversation, Sender};
    use serde_json::{json, Value};

    use super::judge;
    use mcpgen::rules::id;

    fn tool() -> Value {
        json!({
            "name": "add",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
                            "additionalProperties": false},
            "outputSchema": {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
        })
    }

    /// The rules of TOOL-4 / TOOL-5 the checker reports on the answer, in a legacy session that
    /// listed `tool()` and called it with `arguments`.
    fn checker_rules(arguments: &Value, result: &Value) -> Vec<&'static str> {
        let mut c = Conversation::new();
        let init = [
            (
                Sender::Client,
                json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}),
            ),
            (
                Sender::Server,
                json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}),
            ),
            (Sender::Client, json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
            (Sender::Client, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"})),
            (Sender::Server, json!({"jsonrpc":"2.0","id":1,"result":{"tools":[tool()]}})),
            (
                Sender::Client,
                json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":arguments}}),
            ),
        ];
        for (from, m) in init {
            c.observe(from, m.to_string().as_bytes());
        }
        let answer = json!({"jsonrpc":"2.0","id":2,"result":result});
        let mut rules: Vec<_> = c
            .observe(Sender::Server, answer.to_string().as_bytes())
            .iter()
            .filter_map(|f| f.rule)
            .filter(|r| [id::TOOL_4, id::TOOL_5].contains(r))
            .collect();
        rules.dedup();
        rules
    }

    #[test]
    fn the_probe_and_the_checker_judge_every_case_alike() {
        let ok = json!({"content": [], "structuredContent": {"sum": 3}});
        let no_structured = json!({"content": []});
        let bad_structured = json!({"content": [], "structuredContent": {"sum": "3"}});
        let tool_error = json!({"content": [], "isError": true});
        let not_error = json!({"content": [], "isError": false, "structuredContent": {"sum": 3}});
        let cases: [(&str, Value, &Value, Option<&str>); 9] = [
            ("valid, success", json!({"a": 1}), &ok, None),
            ("valid, tool error", json!({"a": 1}), &tool_error, None),
            ("valid, no structuredContent", json!({"a": 1}), &no_structured, Some(id::TOOL_4)),
            ("valid, structuredContent breaks outputSchema", json!({"a": 1}), &bad_structured, Some(id::TOOL_4)),
            ("invalid, success", json!({"a": "x"}), &ok, Some(id::TOOL_5)),
            ("invalid, isError false", json!({}), &not_error, Some(id::TOOL_5)),
            ("invalid, tool error", json!({"a": "x"}), &tool_error, None),
            // Only a member the schema does not allow: a server may drop it and run the tool.
            ("extra member only, success", json!({"a": 1, "b": 2}), &ok, None),
            ("extra member and a wrong type, success", json!({"a": "x", "b": 2}), &ok, Some(id::TOOL_5)),
        ];
        for (name, arguments, result, expected) in cases {
            let response = json!({"jsonrpc": "2.0", "id": 2, "result": result});
            let probe = judge(&tool(), &arguments, false, Some(&response)).map(|f| f.rule);
            assert_eq!(probe, expected, "probe, case {name}");
            let checker = checker_rules(&arguments, result);
            assert_eq!(checker.first().copied(), expected, "checker, case {name}: {checker:?}");
        }
    }
}
