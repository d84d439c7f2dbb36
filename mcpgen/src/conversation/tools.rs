//! Tools: the session's tool definitions as its `tools/list` results gave them (every page),
//! each compiled once with the tool-schema checks of [`crate::tools`] (dialects, `$ref` policy,
//! cost limits), and the calls and answers judged against them:
//!
//! - a client `tools/call` whose arguments break the listed `inputSchema` (TOOL-7, pointing
//!   into `params.arguments`), and the server's answer to it: a success is TOOL-5 (servers
//!   validate all tool inputs), a JSON-RPC error is TOOL-8 where the revision makes input
//!   validation errors tool execution errors (2025-11-25 on), a result with `isError: true` is
//!   what every revision allows;
//! - a result's `structuredContent` against the listed `outputSchema`, and a result without it
//!   where the tool has one (TOOL-4);
//! - a call of a tool the session never listed (TOOL-9), once a complete list was seen;
//! - a definition that changes between two lists with no `notifications/tools/list_changed`
//!   between them, where the server owed one (TOOL-10).
//!
//! Bounded: at most `max_tools` definitions and `max_tool_schema_bytes` of their schemas are
//! kept (past either, further tools are not kept, calls of unlisted tools are no longer judged:
//! `POLICY-STATE`, once). A schema the checks refuse (unsupported dialect, a refused or
//! unresolvable `$ref`, past a cost limit, invalid) is reported once (`POLICY-TOOLS`) and its
//! calls are not judged. The checker never fetches a `$ref`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::json::{JsonView, Kind};
use crate::rules::id;
use crate::tools::answer::to_json;
use crate::tools::pin::canonical_noting;
use crate::tools::{
    judge_call_error, judge_call_result, AnswerFault, ArgumentsVerdict, CompiledTool, Limits, SchemaOptions,
    ToolCallError, ToolDrift, ToolsBaseline,
};

use super::facts::{Facts, Sender};
use super::finding::{rule_finding, Finding};
use super::keys::{view_digest, Text};
use super::options::ConversationOptions;
use super::state::{Pending, Session, Table};
use super::tool_table::{ToolCall, ToolDef, ToolTable};

impl ToolTable {
    pub fn new(opts: &ConversationOptions) -> ToolTable {
        ToolTable {
            defs: HashMap::default(),
            max_tools: opts.max_tools,
            max_schema_bytes: opts.max_tool_schema_bytes,
            schema_bytes: 0,
            limits: opts.tool_limits,
            listed: false,
            partial: false,
            epoch: 0,
            baseline: opts.tools_baseline.clone(),
            pinned_seen: HashSet::default(),
            scratch: Vec::new(),
            in_list: HashSet::default(),
        }
    }

    /// How many definitions are kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// Bytes of the kept definitions' schemas.
    #[cfg(test)]
    pub fn schema_bytes(&self) -> usize {
        self.schema_bytes
    }

    /// A `notifications/tools/list_changed` from the server: the next list may differ.
    pub fn list_changed(&mut self) {
        self.epoch += 1;
    }

    /// A `tools/list` result that is not valid: its tools are not known.
    pub fn invalid_list(&mut self) {
        self.partial = true;
    }
}

/// Bytes of the digest buffer a session keeps between tools ([`ToolTable::scratch`]): a larger
/// definition's buffer is dropped after use.
const SCRATCH_KEPT: usize = 16 * 1024;
/// Names of one list the set a session keeps between lists may hold ([`ToolTable::in_list`]).
const IN_LIST_KEPT: usize = 256;

/// Whether the server owed a `notifications/tools/list_changed` for a change: it declared
/// `tools.listChanged`, and (modern) a listen stream asked for `toolsListChanged`.
fn notification_owed(modern: bool, s: &Session) -> bool {
    let declared = s
        .server_caps
        .as_ref()
        .and_then(|c| c.get("tools"))
        .and_then(|t| t.get("listChanged"))
        .and_then(|x| x.as_bool())
        == Some(true);
    if !declared {
        return false;
    }
    !modern
        || s.subs.iter_ordered().any(|(_, sub)| {
            sub.unchecked
                || sub.filter.as_ref().and_then(|f| f.get("toolsListChanged")).and_then(|x| x.as_bool()) == Some(true)
        })
}

/// A `tools/list` result (any page): each tool's definition kept and compiled (once per
/// definition), a definition that changed without notification reported (TOOL-10).
#[inline(never)]
pub(super) fn listed<'v, V: JsonView<'v>>(f: &Facts<'v, V>, result: &V, s: &mut Session, out: &mut Vec<Finding>) {
    let owed = notification_owed(f.modern, s) && f.exchange.is_none();
    let Some(tools) = result.get("tools").filter(|t| t.kind() == Kind::Array) else { return };
    // The names of this list so far, in a set the table keeps between lists (no allocation).
    let mut seen = std::mem::take(&mut s.tools.in_list);
    seen.clear();
    for (i, tool) in tools.items().enumerate() {
        let Some(name) = tool.get("name").and_then(|n| n.as_str()) else { continue };
        let key = Text::new(&name);
        // A name listed twice in one list (TOOL-2) is not a change of definition.
        if !seen.insert(key.clone()) {
            continue;
        }
        list_tool(&tool, &name, key, (i, owed), s, out);
    }
    // A set grown by a long list is not kept.
    if seen.capacity() <= IN_LIST_KEPT {
        s.tools.in_list = seen;
    }
    if result.get("nextCursor").is_none() {
        list_complete(s, out);
    }
}

/// One tool of a list (`i`: its index), the first of its name in it: checked against the pin,
/// kept unless it is the definition already kept, reported where it changed without the
/// notification `owed` (TOOL-10), and compiled when it fits the caps.
#[inline]
fn list_tool<'v, V: JsonView<'v>>(
    tool: &V,
    name: &str,
    key: Text,
    (i, owed): (usize, bool),
    s: &mut Session,
    out: &mut Vec<Finding>,
) {
    let epoch = s.tools.epoch;
    let Some(sent) = sent_digest_if_new(tool, &key, epoch, &mut s.tools) else { return };
    let json = to_json(tool);
    let at = format!("/result/tools/{i}");
    if let Some(pin) = s.tools.baseline.clone() {
        against_pin(&pin, &json, name, &at, &mut s.tools, out);
    }
    let mut text = String::new();
    let [input, output] = canonical_noting(&json, &["_meta"], ["inputSchema", "outputSchema"], &mut text);
    let (input, output) = (input.map_or("", |r| &text[r]), output.map_or("", |r| &text[r]));
    let digest = Text::new(&text);
    if let Some(def) = s.tools.defs.get_mut(&key) {
        if def.digest == digest {
            def.epoch = epoch;
            def.sent = sent;
            return;
        }
        if owed && def.epoch == epoch {
            out.push(rule_finding(
                id::TOOL_10,
                at.clone(),
                "",
                format!(
                    "the definition of tool `{}` differs from the one this session listed before, with no `notifications/tools/list_changed` between the two lists",
                    key.shown()
                ),
            ));
        }
    }
    let bytes = input.len() + output.len();
    let Some(total) = fits_caps(s, &key, bytes, out) else { return };
    let compiled = compile_listed(s.tools.limits, &json, [name, input, output], &at, &key, out);
    let table = &mut s.tools;
    table.schema_bytes = total;
    table.defs.insert(key, ToolDef { digest, sent, epoch, schema_bytes: bytes, compiled });
}

/// The digest of `tool` as sent; `None` when it is the definition the last list gave and no
/// pin is set (a pin reports every list's drift): that definition is kept for this list
/// (`epoch`), with nothing to build or judge again. Most lists repeat the last.
#[inline]
fn sent_digest_if_new<'v, V: JsonView<'v>>(
    tool: &V,
    key: &Text,
    epoch: u64,
    table: &mut ToolTable,
) -> Option<[u64; 2]> {
    let sent = view_digest(tool, &mut table.scratch);
    if table.scratch.capacity() > SCRATCH_KEPT {
        table.scratch = Vec::new();
    }
    if table.baseline.is_none() {
        if let Some(def) = table.defs.get_mut(key).filter(|d| d.sent == sent) {
            def.epoch = epoch;
            return None;
        }
    }
    Some(sent)
}

/// The kept schemas' bytes once this definition (`bytes` of schemas) replaces the one kept
/// under `key`; `None` when that passes `max_tools` or `max_tool_schema_bytes`: then the
/// definition is forgotten, the table partial, and the cap reported (`POLICY-STATE`, once).
#[inline]
fn fits_caps(s: &mut Session, key: &Text, bytes: usize, out: &mut Vec<Finding>) -> Option<usize> {
    let (known, freed) = s.tools.defs.get(key).map_or((false, 0), |d| (true, d.schema_bytes));
    let total = s.tools.schema_bytes - freed + bytes;
    let why = if !known && s.tools.defs.len() >= s.tools.max_tools {
        format!("more than {} tools are listed", s.tools.max_tools)
    } else if total > s.tools.max_schema_bytes {
        format!("the listed tools' schemas pass {} bytes", s.tools.max_schema_bytes)
    } else {
        return Some(total);
    };
    // A changed definition that does not fit is forgotten, not judged by its old schemas.
    if s.tools.defs.remove(key).is_some() {
        s.tools.schema_bytes -= freed;
    }
    s.tools.partial = true;
    s.capped(
        Table::Tools,
        format_args!(
            "{why}; tool `{}` and any further tool that does not fit are not kept, so their calls are not judged and calls of unlisted tools are no longer reported (TOOL-9)",
            key.shown()
        ),
        out,
    );
    None
}

/// The listed tool compiled, `[name, input, output]` its name and canonical schemas; `None`
/// when the checks refuse a schema, reported (`POLICY-TOOLS`) at `at`. With the default
/// limits, through the process-wide bounded cache of compiled tools: the same definition listed
/// in many sessions (a gateway's) is compiled once.
#[inline]
fn compile_listed(
    limits: Limits,
    json: &serde_json::Value,
    [name, input, output]: [&str; 3],
    at: &str,
    key: &Text,
    out: &mut Vec<Finding>,
) -> Option<Arc<CompiledTool>> {
    let compiled = if limits == Limits::default() {
        let cache_key = crate::tools::ToolChecker::key_of(name, input, output);
        crate::tools::default_checker().compile_keyed(json, cache_key)
    } else {
        let options = SchemaOptions { limits, ..SchemaOptions::default() };
        CompiledTool::compile(json, &options).map(Arc::new)
    };
    match compiled {
        Ok(c) => Some(c),
        Err(errors) => {
            let (pointer, what) = match errors.errors().first() {
                Some(e) => (format!("{at}{}", e.pointer()), format!("{} ({}): {}", e.kind(), e.rule(), e.message())),
                None => (at.to_owned(), "refused".to_owned()),
            };
            out.push(rule_finding(
                id::POLICY_TOOLS,
                pointer,
                "",
                format!("tool `{}` is not judged: its schema is refused, {what}", key.shown()),
            ));
            None
        }
    }
}

/// A complete list (a page without `nextCursor`): calls of unlisted tools are judged from now
/// on, and a pinned tool none of its pages gave is reported removed (TOOL-12).
fn list_complete(s: &mut Session, out: &mut Vec<Finding>) {
    s.tools.listed = true;
    if let Some(pin) = s.tools.baseline.clone() {
        for name in pin.tools.keys() {
            if !s.tools.pinned_seen.contains(&Text::new(name)) {
                out.push(rule_finding(
                    id::TOOL_12,
                    "/result/tools",
                    "",
                    format!("tool `{name}` is pinned but this list (with its earlier pages) does not have it: removed"),
                ));
            }
        }
        s.tools.pinned_seen.clear();
    }
}

/// One listed tool against the user's pin (TOOL-12): a tool the pin lacks, or a definition other
/// than the pinned one, with the changed members.
fn against_pin(
    pin: &ToolsBaseline,
    json: &serde_json::Value,
    name: &str,
    at: &str,
    table: &mut ToolTable,
    out: &mut Vec<Finding>,
) {
    if pin.tools.contains_key(name) {
        table.pinned_seen.insert(Text::new(name));
    }
    match pin.compare_tool(json) {
        None => {}
        Some(ToolDrift::Added(_)) => out.push(rule_finding(
            id::TOOL_12,
            format!("{at}/name"),
            "",
            format!("tool `{name}` is listed but not pinned: added"),
        )),
        Some(ToolDrift::Changed(change)) => {
            let first = change.members.first().map_or("", |m| m.pointer.as_str());
            out.push(rule_finding(
                id::TOOL_12,
                format!("{at}{first}"),
                "",
                format!(
                    "tool `{name}` differs from its pinned definition (sha256 {} pinned, {} listed): {change}",
                    change.pinned_sha256, change.listed_sha256
                ),
            ));
        }
    }
}

/// A client's `tools/call`: its arguments against the listed `inputSchema` (TOOL-7), or a call
/// of a tool never listed (TOOL-9). Returns what the answer is judged by.
#[inline(never)]
pub(super) fn call<'v, V: JsonView<'v>>(
    f: &Facts<'v, V>,
    s: &Session,
    out: &mut Vec<Finding>,
) -> Option<Box<ToolCall>> {
    if f.from != Sender::Client {
        return None;
    }
    // A name that is not a string is per-message validation's to report.
    let name = f.param("name")?.as_str()?;
    let key = Text::new(&name);
    let table = &s.tools;
    let Some(def) = table.defs.get(&key) else {
        if table.listed && !table.partial && f.exchange.is_none() {
            out.push(rule_finding(
                id::TOOL_9,
                "/params/name",
                "",
                format!("tool `{}` was not in any `tools/list` result of this session", key.shown()),
            ));
        }
        return None;
    };
    let compiled = def.compiled.clone()?;
    let arguments = match f.param("arguments") {
        Some(a) => to_json(&a),
        None => serde_json::Value::Object(serde_json::Map::new()),
    };
    let validation = compiled.validate_arguments(&arguments);
    let verdict = ArgumentsVerdict::of(&validation);
    match validation {
        Ok(()) => {}
        Err(ToolCallError::Invalid(errors)) => {
            for e in errors {
                let mut finding = rule_finding(
                    id::TOOL_7,
                    format!("/params/arguments{}", e.pointer),
                    e.keyword,
                    format!(
                        "the arguments break the `inputSchema` tool `{}` was listed with: {}",
                        key.shown(),
                        e.message
                    ),
                );
                finding.schema_path = e.schema_path;
                out.push(finding);
            }
        }
        Err(e) => {
            let pointer = e.errors().first().map_or(String::new(), |x| x.pointer.clone());
            out.push(rule_finding(
                id::POLICY_TOOLS,
                format!("/params/arguments{pointer}"),
                "",
                format!(
                    "the arguments of tool `{}` are not judged: validation stopped at a cost limit: {e}",
                    key.shown()
                ),
            ));
        }
    }
    Some(Box::new(ToolCall { compiled, arguments: verdict? }))
}

/// A JSON-RPC error answering a call whose arguments broke the `inputSchema`: TOOL-8 by
/// [`judge_call_error`] (the catalogue drops it before 2025-11-25).
pub(super) fn error_answer(p: &Pending, code: Option<i64>, out: &mut Vec<Finding>) {
    let Some(call) = &p.tool else { return };
    if let Some(fault) = judge_call_error(call.arguments, p.rev.as_str(), code) {
        out.push(answer_finding(&call.compiled.name, fault));
    }
}

/// A complete `tools/call` result, by [`judge_call_result`]: not a success when the arguments
/// broke the schema (TOOL-5); `structuredContent` present and valid where the tool has an
/// `outputSchema` (TOOL-4). An `isError: true` result is a tool execution error: neither applies.
#[inline(never)]
pub(super) fn answered<'v, V: JsonView<'v>>(p: &Pending, result: &V, out: &mut Vec<Finding>) {
    let Some(call) = &p.tool else { return };
    for fault in judge_call_result(&call.compiled, call.arguments, result) {
        match fault {
            AnswerFault::StructuredContentInvalid(errors) => {
                let name = &call.compiled.name;
                for e in errors {
                    let mut finding = rule_finding(
                        id::TOOL_4,
                        format!("/result/structuredContent{}", e.pointer),
                        e.keyword,
                        format!(
                            "`structuredContent` breaks the `outputSchema` tool `{name}` was listed with: {}",
                            e.message
                        ),
                    );
                    finding.schema_path = e.schema_path;
                    out.push(finding);
                }
            }
            fault => out.push(answer_finding(&call.compiled.name, fault)),
        }
    }
}

/// The finding of one answer fault (all but [`AnswerFault::StructuredContentInvalid`], one
/// finding per schema error).
fn answer_finding(name: &str, fault: AnswerFault) -> Finding {
    let rule = fault.rule();
    match fault {
        AnswerFault::AcceptedInvalidArguments { pointer } => rule_finding(
            rule,
            pointer,
            "",
            format!(
                "the server answers with a success a call of tool `{name}` whose arguments break its `inputSchema`; it validates all tool inputs and reports a failure"
            ),
        ),
        AnswerFault::MissingStructuredContent => rule_finding(
            rule,
            "/result",
            "required",
            format!("tool `{name}` was listed with an `outputSchema`, but its result has no `structuredContent`"),
        ),
        AnswerFault::StructuredContentNotJudged(e) => {
            let pointer = e.errors().first().map_or(String::new(), |x| x.pointer.clone());
            rule_finding(
                rule,
                format!("/result/structuredContent{pointer}"),
                "",
                format!("the `structuredContent` of tool `{name}` is not judged: validation stopped at a cost limit: {e}"),
            )
        }
        AnswerFault::ProtocolErrorForInvalidArguments => rule_finding(
            rule,
            "/error",
            "",
            format!(
                "the arguments broke the `inputSchema` of tool `{name}`: an input validation error is a tool execution error, a result with `isError: true`"
            ),
        ),
        AnswerFault::StructuredContentInvalid(errors) => rule_finding(
            rule,
            "/result/structuredContent",
            "",
            format!("`structuredContent` breaks the `outputSchema` tool `{name}` was listed with ({} errors)", errors.len()),
        ),
    }
}

#[cfg(test)]
#[path = "pin_tests.rs"]
mod pin_tests;

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tools_tests;
