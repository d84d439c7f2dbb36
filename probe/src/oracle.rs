//! The probe's oracle: for every check the probe makes, the rule it rests on and the answers
//! that rule's clause accepts, per era. The clause itself (its level, quoted sentence and page)
//! comes from the rules catalogue at the revision in play ([`mcpgen::rules::at`]): a MUST or
//! MUST NOT is an error, a SHOULD, MAY or informal wording a warning, and a rule the revision
//! lacks gives no finding at all. The answers are decided from the spec text, never from what
//! mcpgen's own `check_request` or reference server would answer: where the spec leaves a
//! choice (which standard code a malformed envelope gets, whether a failing tool input is a
//! tool error or a protocol error), every answer it allows is accepted.
//!
//! [`CHECKS`] is the one table: the engine looks each check up here ([`entry`]) and judges the
//! answer with [`Accepts::judge`]; `docs/probe.md` shows it ([`markdown_table`], a test keeps
//! the page and the table the same).

use serde_json::Value;

use mcpgen::conversation::Severity;
use mcpgen::rules::{self, id, Clause, Level as Keyword};
use mcpgen::Revision;

/// What the clause of a check accepts as the server's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// A JSON-RPC error with one of these codes.
    Codes(&'static [i64]),
    /// Any JSON-RPC error (a result is judged by the conversation checker).
    AnyError,
    /// A result, or a JSON-RPC error with one of these codes.
    ResultOr(&'static [i64]),
    /// A tool error (a result with `isError: true`) or any JSON-RPC error: not a plain result.
    NotAResult,
    /// No answer at all (a notification is never answered).
    Nothing,
    /// Whatever the conversation checker accepts: the check has no verdict of its own.
    Checker,
    /// An HTTP refusal of the request (the origin check): 403 where the revision names it
    /// (2025-11-25 on), any 4xx before; a JSON-RPC answer is no refusal.
    Forbidden,
    /// A response whose `id` is the request's, by value and JSON type (the engine judges it
    /// on every exchange).
    SameId,
    /// What the check itself judges, in words (a listed item, nothing sent).
    Judged(&'static str),
    /// Anything but a batch: an error, an HTTP error status, or no answer (the spec says
    /// nothing of the answer; a batch answer is the checker's MSG-1).
    NotABatch,
}

/// Why an answer is not one the clause accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Where in the answer (a JSON pointer).
    pub pointer: &'static str,
    /// What the answer was, in words (`error code -32603`, `a result`).
    pub got: String,
}

impl Refused {
    /// `answer` (a response), as a finding names it.
    pub fn of(answer: &Value) -> Refused {
        let error = answer.get("error");
        match (error, error.and_then(|e| e.get("code")).and_then(Value::as_i64)) {
            (Some(_), Some(code)) => Refused { pointer: "/error/code", got: format!("error code {code}") },
            (Some(_), None) => Refused { pointer: "/error", got: "an error without an integer code".into() },
            (None, _) if is_tool_error(answer) => Refused { pointer: "/result/isError", got: "a tool error".into() },
            (None, _) => Refused { pointer: "/result", got: "a result".into() },
        }
    }
}

impl Accepts {
    /// The verdict on `answer` (a response): `None` when the clause accepts it.
    pub fn judge(self, answer: &Value) -> Option<Refused> {
        let error = answer.get("error");
        let code = error.and_then(|e| e.get("code")).and_then(Value::as_i64);
        let got = || Refused::of(answer);
        let ok = match self {
            Accepts::Codes(codes) => code.is_some_and(|c| codes.contains(&c)),
            Accepts::AnyError => error.is_some(),
            Accepts::ResultOr(codes) => error.is_none() || code.is_some_and(|c| codes.contains(&c)),
            Accepts::NotAResult => error.is_some() || is_tool_error(answer),
            Accepts::Nothing => false,
            Accepts::Checker => true,
            Accepts::Forbidden => false,
            Accepts::SameId | Accepts::Judged(_) => true,
            Accepts::NotABatch => !answer.is_array(),
        };
        (!ok).then(got)
    }

    /// The accepted answers, in words.
    pub fn describe(self) -> String {
        let codes = |codes: &[i64]| codes.iter().map(i64::to_string).collect::<Vec<_>>().join(" or ");
        match self {
            Accepts::Codes(c) => format!("error code {}", codes(c)),
            Accepts::AnyError => "any error".into(),
            Accepts::ResultOr(c) => format!("a result, or error code {}", codes(c)),
            Accepts::NotAResult => "a tool error (`isError: true`) or any error".into(),
            Accepts::Nothing => "no answer".into(),
            Accepts::Checker => "what the conversation checker accepts".into(),
            Accepts::Forbidden => "HTTP 403 (from 2025-11-25 on; before it any HTTP 4xx refusal)".into(),
            Accepts::SameId => "the request's `id`, same value and JSON type".into(),
            Accepts::NotABatch => "any error, an HTTP error status, or no answer".into(),
            Accepts::Judged(what) => what.into(),
        }
    }
}

fn is_tool_error(answer: &Value) -> bool {
    answer.pointer("/result/isError") == Some(&Value::Bool(true))
}

/// One check of the probe.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// As the probe reports it (`NAME` stands for a tool's or prompt's name, `VERSION` for a
    /// revision).
    pub name: &'static str,
    /// The rule its verdict rests on; `None` when the conversation checker's rules alone judge
    /// the answer (`docs/rules.md`).
    pub rule: Option<&'static str>,
    /// What the clause accepts in a modern (2026-07-28) session; `None`: not run there.
    pub modern: Option<Accepts>,
    /// What the clause accepts in a legacy (`initialize`) session; `None`: not run there.
    pub legacy: Option<Accepts>,
    /// Why these answers, in one line (where the spec leaves the choice, or what else applies).
    pub note: &'static str,
}

const RPC_MALFORMED: &[i64] = &[-32600, -32700];

/// The tool names the tools page recommends.
const TOOL_NAME: &str = "1 to 128 characters, each an ASCII letter, digit, `_`, `-` or `.`; unique in the list";

/// Every check the probe makes.
pub const CHECKS: &[Check] = &[
    Check {
        name: "discover",
        rule: None,
        modern: Some(Accepts::Checker),
        legacy: None,
        note: "a `DiscoverResult`, or anything else from a legacy server (ERA-2: the client falls back)",
    },
    Check {
        name: "inventory/METHOD",
        rule: None,
        modern: Some(Accepts::Checker),
        legacy: Some(Accepts::Checker),
        note: "every page of each list the capabilities declare (PROBE-1 past the page limit)",
    },
    Check {
        name: "inventory/tool-schema/NAME",
        rule: None,
        modern: Some(Accepts::Checker),
        legacy: Some(Accepts::Checker),
        note: "the listed tool's schemas through the tool-schema checks (JSCHEMA rules); nothing sent",
    },
    Check {
        name: "inventory/tool-name/NAME",
        rule: Some(id::TOOL_2),
        modern: Some(Accepts::Judged(TOOL_NAME)),
        legacy: Some(Accepts::Judged(TOOL_NAME)),
        note: "every listed tool's name: 1 to 128 characters, only ASCII letters, digits, `_`, `-`, `.`, none listed twice (the tools page's Tool Names, from 2025-11-25); nothing sent",
    },
    Check {
        name: "negative/missing-meta",
        rule: Some(id::META_6),
        modern: Some(Accepts::Codes(&[-32602])),
        legacy: None,
        note: "a request without `_meta`",
    },
    Check {
        name: "negative/unsupported-version",
        rule: Some(id::VER_1),
        modern: Some(Accepts::Codes(&[-32022])),
        legacy: None,
        note: "`_meta` names version 1999-01-01; the error's `data.supported` lists the versions (VER-1)",
    },
    Check {
        name: "negative/unknown-method",
        rule: Some(id::MSG_9),
        modern: Some(Accepts::Codes(&[-32601])),
        legacy: None,
        note: "a method no revision defines; over stdio a warning (the MUST is the Streamable HTTP page's; the stdio page has none)",
    },
    Check {
        name: "negative/removed-METHOD",
        rule: Some(id::MSG_9),
        modern: Some(Accepts::ResultOr(&[-32601])),
        legacy: None,
        note: "`ping`, `logging/setLevel`, `resources/subscribe` (removed in 2026-07-28): a server not implementing one answers -32601; a dual-era server may still serve it (ERA-1); over stdio another code is a warning, as `unknown-method`",
    },
    Check {
        name: "negative/bad-envelope",
        rule: Some(id::ERR_1),
        modern: Some(Accepts::Codes(RPC_MALFORMED)),
        legacy: None,
        note: "`jsonrpc: \"1.0\"`: JSON-RPC 2.0's Invalid Request (-32600), or Parse error (-32700) from a server that reads the text as no request at all; no answer is a warning",
    },
    Check {
        name: "negative/params-not-object",
        rule: Some(id::ERR_1),
        modern: Some(Accepts::Codes(&[-32600, -32602])),
        legacy: None,
        note: "`params: []`: JSON-RPC 2.0 allows array params, MCP's schema does not: Invalid Request or Invalid params",
    },
    Check {
        name: "negative/missing-method",
        rule: Some(id::ERR_1),
        modern: Some(Accepts::Codes(RPC_MALFORMED)),
        legacy: None,
        note: "no `method`: as `bad-envelope`; the error's `id` may be `null` (the id could not be read)",
    },
    Check {
        name: "negative/method-not-string",
        rule: Some(id::ERR_1),
        modern: Some(Accepts::Codes(RPC_MALFORMED)),
        legacy: None,
        note: "`method: 42`: as `bad-envelope`",
    },
    Check {
        name: "negative/cancel-unknown",
        rule: Some(id::MSG_12),
        modern: Some(Accepts::Nothing),
        legacy: None,
        note: "`notifications/cancelled` for a request never sent: ignored (CANCEL-5), never answered",
    },
    Check {
        name: "undeclared/FEATURE",
        rule: None,
        modern: Some(Accepts::Checker),
        legacy: None,
        note: "the list method of a feature not declared: any error is right, a result is the checker's TOOL-1, PROMPT-1 or CAP-2",
    },
    Check {
        name: "undeclared/completions",
        rule: Some(id::COMP_2),
        modern: Some(Accepts::Codes(&[-32601])),
        legacy: None,
        note: "`completion/complete` without the `completions` capability (a result is the checker's CAP-2)",
    },
    Check {
        name: "header/NAME",
        rule: Some(id::HTTP_8),
        modern: Some(Accepts::Codes(&[-32020])),
        legacy: None,
        note: "HTTP only: a standard header that disagrees with the body; the rule is the one `check_http_headers` names for the headers sent (HTTP-8, HTTP-11, ERA-10), HTTP 400 is ERR-8. A missing `MCP-Protocol-Version` is judged only for a server that refused `initialize` (one serving older clients MAY read the request as 2025-03-26)",
    },
    Check {
        name: "header/origin",
        rule: Some(id::HTTP_2),
        modern: Some(Accepts::Forbidden),
        legacy: Some(Accepts::Forbidden),
        note: "HTTP only: a request with the foreign `Origin: http://mcpgen-probe.invalid`. Answered as usual: an error on a loopback host or `localhost` (the DNS-rebinding case), a warning elsewhere (a public server's allow-list cannot be known); a timeout is no verdict",
    },
    Check {
        name: "id/string",
        rule: Some(id::ID_3),
        modern: Some(Accepts::SameId),
        legacy: Some(Accepts::SameId),
        note: "a request with the id `\"N\"` (a string of digits; every other request has a number id): `N` for `\"N\"` is the answer, judged ID-3 (JSON-RPC 2.0 section 5: the id MUST be the same as the request's), not a missing one",
    },
    Check {
        name: "batch/one-request",
        rule: Some(id::MSG_1),
        modern: Some(Accepts::NotABatch),
        legacy: Some(Accepts::NotABatch),
        note: "a one-element array holding a valid request, where the revision has no batches (2025-06-18 on; not run at 2025-03-26, which has them, nor 2024-11-05): the spec says nothing of the answer, so all are accepted; an array answer is the checker's MSG-1",
    },
    Check {
        name: "header/param-missing/NAME",
        rule: Some(id::XHDR_9),
        modern: Some(Accepts::Codes(&[-32020])),
        legacy: None,
        note: "HTTP only: a tool call without one of its `Mcp-Param-*` headers",
    },
    Check {
        name: "tool/NAME",
        rule: Some(id::PROBE_4),
        modern: Some(Accepts::ResultOr(&[-32603, -32021])),
        legacy: Some(Accepts::ResultOr(&[-32603])),
        note: "arguments that satisfy the `inputSchema`: a `CallToolResult` (`isError: true` too), a server error (-32603) or, modern, a missing client capability (-32021)",
    },
    Check {
        name: "tool/NAME (invalid arguments)",
        rule: Some(id::TOOL_5),
        modern: Some(Accepts::NotAResult),
        legacy: Some(Accepts::NotAResult),
        note: "arguments the `inputSchema` refuses: not a success. A tool error (`isError: true`) is what the page shows; from 2025-11-25 on a protocol error is TOOL-8 (informal: a warning, from the checker) except, from 2026-07-28, -32602 (the schema names it for invalid tool arguments); before 2025-11-25 either",
    },
    Check {
        name: "tool/NAME (output schema)",
        rule: Some(id::TOOL_4),
        modern: Some(Accepts::Checker),
        legacy: Some(Accepts::Checker),
        note: "a result that is not a tool error has `structuredContent` conforming to the `outputSchema`",
    },
    Check {
        name: "tool/NAME (progress)",
        rule: Some(id::PROG_3),
        modern: Some(Accepts::Checker),
        legacy: Some(Accepts::Checker),
        note: "the first valid call carries a `progressToken`: progress only for that token while the call runs (PROG-2), growing (PROG-3)",
    },
    Check {
        name: "negative/unknown-tool",
        rule: Some(id::TOOL_11),
        modern: Some(Accepts::Codes(&[-32602])),
        legacy: Some(Accepts::Codes(&[-32602])),
        note: "a tool no server has: a protocol error, -32602 as in the page's example",
    },
    Check {
        name: "mrtr/request-state-tamper",
        rule: Some(id::MRTR_11),
        modern: Some(Accepts::Judged("any error, or another `input_required` round")),
        legacy: None,
        note: "the first `input_required` result with a `requestState` and no input requests, retried with the state changed: a result is a warning (the MUST applies where the state influences authorization, access or business logic, which cannot be seen from outside); skipped when none comes",
    },
    Check {
        name: "prompt/NAME",
        rule: None,
        modern: Some(Accepts::Checker),
        legacy: Some(Accepts::Checker),
        note: "`prompts/get` with every argument filled (an error is no finding: placeholders may be refused)",
    },
    Check {
        name: "prompt/NAME/complete",
        rule: None,
        modern: Some(Accepts::Checker),
        legacy: Some(Accepts::Checker),
        note: "`completion/complete` for each argument, where `completions` is declared",
    },
    Check {
        name: "prompt/NAME/missing-argument",
        rule: Some(id::PROMPT_2),
        modern: Some(Accepts::Codes(&[-32602])),
        legacy: Some(Accepts::Codes(&[-32602])),
        note: "`prompts/get` without a required argument",
    },
    Check {
        name: "resource/read",
        rule: None,
        modern: Some(Accepts::Checker),
        legacy: Some(Accepts::Checker),
        note: "`resources/read` of each listed resource",
    },
    Check {
        name: "resource/unknown",
        rule: Some(id::RES_1),
        modern: Some(Accepts::Codes(&[-32602])),
        legacy: Some(Accepts::Codes(&[-32002])),
        note: "`resources/read` of a URI no server serves; 2026-07-28 replaced -32002 with -32602",
    },
    Check {
        name: "resource/subscribe",
        rule: None,
        modern: None,
        legacy: Some(Accepts::Checker),
        note: "legacy, where `resources.subscribe` is declared: `resources/subscribe` and `resources/unsubscribe`",
    },
    Check {
        name: "legacy/VERSION",
        rule: None,
        modern: None,
        legacy: Some(Accepts::Checker),
        note: "`initialize` at each legacy revision the server names (else the newest): a result, or a refusal",
    },
];

/// The entry of the check named `name` as reported (`tool/echo` is `tool/NAME`).
pub fn entry(name: &str) -> Option<&'static Check> {
    CHECKS
        .iter()
        .find(|c| c.name == name)
        .or_else(|| CHECKS.iter().find(|c| matches(c.name, name, false)))
        .or_else(|| CHECKS.iter().find(|c| matches(c.name, name, true)))
}

/// What the entry named exactly `pattern` (`tool/NAME (invalid arguments)`) accepts in an era.
pub fn accepts(pattern: &str, modern: bool) -> Option<Accepts> {
    let c = CHECKS.iter().find(|c| c.name == pattern)?;
    if modern {
        c.modern
    } else {
        c.legacy
    }
}

/// Whether the reported `name` is an instance of `pattern` (upper-case words are placeholders;
/// a parenthesised suffix is a facet of the same check). `spread`: the placeholder ending a
/// two-part pattern takes a name with slashes in it (`tool/a/b`).
fn matches(pattern: &str, name: &str, spread: bool) -> bool {
    let pattern = pattern.split(" (").next().unwrap_or(pattern);
    let (p, n): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), name.split('/').collect());
    if p.len() != n.len() {
        return spread && p.len() == 2 && n.len() > 2 && p[0] == n[0] && is_placeholder(p[1]);
    }
    p.iter().zip(&n).all(|(p, n)| p == n || is_placeholder(p) || placeholder_suffix(p, n))
}

fn is_placeholder(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase())
}

/// `removed-METHOD` matches `removed-ping`.
fn placeholder_suffix(pattern: &str, name: &str) -> bool {
    match pattern.rsplit_once('-') {
        Some((head, tail)) if is_placeholder(tail) => name.strip_prefix(head).is_some_and(|r| r.starts_with('-')),
        _ => false,
    }
}

/// Rules whose clause at the modern revision is a sentence of the Streamable HTTP page alone
/// (its source page is `basic/transports/streamable-http`) although the probe also judges
/// them over stdio. MSG-9: "If the server does not implement the requested RPC method, it
/// MUST respond with `404 Not Found` and a JSON-RPC error with code `-32601`" is on that page;
/// the stdio page says nothing of unknown methods, and the schema's `MethodNotFoundError`
/// describes -32601 without a BCP 14 keyword. Over stdio such a finding is a warning.
const HTTP_PAGE_ONLY: &[&str] = &[id::MSG_9];

/// The level of a finding on `rule` whose clause is `clause`, on a transport with HTTP
/// headers or not (stdio), and why it is lower than the clause's keyword where it is.
pub fn level_on(rule: &str, clause: &Clause, http: bool) -> (Severity, Option<&'static str>) {
    let page_only = HTTP_PAGE_ONLY.contains(&rule) && clause.source.starts_with("basic/transports/streamable-http");
    if !http && page_only && level_of(clause.level) == Severity::Error {
        let why =
            "the clause is the Streamable HTTP page's, and over stdio the revision has no keyword for it: a warning";
        return (Severity::Warning, Some(why));
    }
    (level_of(clause.level), None)
}

/// A finding's level from its clause: errors for MUST / MUST NOT (and mcpgen's choices, which
/// are errors the schema justifies), warnings for SHOULD, SHOULD NOT, MAY and informal wording.
pub fn level_of(keyword: Keyword) -> Severity {
    match keyword {
        Keyword::Must | Keyword::MustNot | Keyword::Choice => Severity::Error,
        Keyword::Should | Keyword::ShouldNot | Keyword::May | Keyword::Informal => Severity::Warning,
    }
}

/// The clause of `rule` at `revision` (the rule's own entry without one); `None` where the
/// rule does not exist at that revision.
pub fn clause_at(rule: &str, revision: Option<Revision>) -> Option<Clause> {
    match revision {
        Some(rev) => rules::at(rule, rev),
        None => rules::lookup(rule).map(|r| r.clause()),
    }
}

/// The revisions of each era the docs table shows: the modern one, and the legacy ones
/// newest first.
fn eras() -> (Vec<Revision>, Vec<Revision>) {
    let mut all = Revision::all();
    all.reverse();
    let modern = all.iter().copied().filter(|r| r.as_str() == crate::modern_revision()).collect();
    let legacy = all.into_iter().filter(|r| r.as_str() != crate::modern_revision()).collect();
    (modern, legacy)
}

/// The keywords of `rule` over `revisions`, grouped: `SHOULD`, or `MUST (2025-11-25), informal
/// (2024-11-05)`, `absent (…)` where a revision lacks the rule.
fn keywords(rule: &str, revisions: &[Revision]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for rev in revisions {
        let word = rules::at(rule, *rev).map_or_else(|| "absent".to_owned(), |c| c.level.as_str().to_owned());
        match groups.iter_mut().find(|(w, _)| *w == word) {
            Some((_, revs)) => revs.push(rev.as_str()),
            None => groups.push((word, vec![rev.as_str()])),
        }
    }
    if groups.len() == 1 {
        return groups.remove(0).0;
    }
    groups.iter().map(|(w, revs)| format!("{w} ({})", revs.join(", "))).collect::<Vec<_>>().join(", ")
}

/// The table of `docs/probe.md`: one row per check, its rule, the clause's keyword in each era
/// and the answers accepted there.
pub fn markdown_table() -> String {
    let (modern, legacy) = eras();
    let mut out = String::from(
        "| check | rule | modern (2026-07-28): clause, answers accepted | legacy (initialize): clause, answers accepted | why |\n|---|---|---|---|---|\n",
    );
    for c in CHECKS {
        let era = |accepts: Option<Accepts>, revs: &[Revision]| match (accepts, c.rule) {
            (None, _) => "not run".to_owned(),
            (Some(a), Some(rule)) => format!("{}: {}", keywords(rule, revs), a.describe()),
            (Some(a), None) => a.describe(),
        };
        let rule = c.rule.map_or_else(|| "the checker's".to_owned(), |r| format!("`{r}`"));
        out.push_str(&format!(
            "| `{}` | {rule} | {} | {} | {} |\n",
            c.name,
            era(c.modern, &modern),
            era(c.legacy, &legacy),
            c.note.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(code: i64) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}})
    }

    #[test]
    fn each_kind_of_answer_is_judged_as_written() {
        let result = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        let tool_error = json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true, "content": []}});
        let codeless = json!({"jsonrpc": "2.0", "id": null, "error": {"message": "x"}});
        let malformed = Accepts::Codes(&[-32600, -32700]);
        assert_eq!(malformed.judge(&error(-32600)), None);
        assert_eq!(malformed.judge(&error(-32700)), None);
        assert_eq!(
            malformed.judge(&error(-32601)),
            Some(Refused { pointer: "/error/code", got: "error code -32601".into() })
        );
        assert_eq!(malformed.judge(&result), Some(Refused { pointer: "/result", got: "a result".into() }));
        assert_eq!(
            malformed.judge(&codeless),
            Some(Refused { pointer: "/error", got: "an error without an integer code".into() })
        );
        assert_eq!(Accepts::AnyError.judge(&error(1)), None);
        assert!(Accepts::AnyError.judge(&result).is_some());
        assert_eq!(Accepts::ResultOr(&[-32603]).judge(&result), None);
        assert_eq!(Accepts::ResultOr(&[-32603]).judge(&error(-32603)), None);
        assert!(Accepts::ResultOr(&[-32603]).judge(&error(-32602)).is_some());
        assert_eq!(Accepts::NotAResult.judge(&tool_error), None);
        assert_eq!(Accepts::NotAResult.judge(&error(-32603)), None);
        assert!(Accepts::NotAResult.judge(&result).is_some());
        assert!(Accepts::Nothing.judge(&error(-32600)).is_some());
        assert_eq!(Accepts::Checker.judge(&result), None);
        // The origin check takes a refusal only: any JSON-RPC answer came through.
        assert!(Accepts::Forbidden.judge(&result).is_some());
        assert!(Accepts::Forbidden.judge(&error(-32600)).is_some());
        let batch = json!([{"jsonrpc": "2.0", "id": 1, "result": {}}]);
        assert_eq!(Accepts::NotABatch.judge(&error(-32600)), None);
        assert_eq!(Accepts::NotABatch.judge(&result), None);
        assert!(Accepts::NotABatch.judge(&batch).is_some());
    }

    #[test]
    fn reported_names_find_their_entry() {
        for (name, pattern) in [
            ("negative/bad-envelope", "negative/bad-envelope"),
            ("negative/removed-ping", "negative/removed-METHOD"),
            ("negative/removed-logging-set-level", "negative/removed-METHOD"),
            ("undeclared/tools", "undeclared/FEATURE"),
            ("undeclared/completions", "undeclared/completions"),
            ("tool/echo", "tool/NAME"),
            ("negative/unknown-tool", "negative/unknown-tool"),
            ("tool/unknown", "tool/NAME"),
            ("tool/a/b", "tool/NAME"),
            ("prompt/greet/missing-argument", "prompt/NAME/missing-argument"),
            ("prompt/greet", "prompt/NAME"),
            ("header/method-mismatch", "header/NAME"),
            ("header/param-missing/echo", "header/param-missing/NAME"),
            ("header/origin", "header/origin"),
            ("id/string", "id/string"),
            ("batch/one-request", "batch/one-request"),
            ("inventory/tools/list", "inventory/METHOD"),
            ("inventory/tool-name/echo", "inventory/tool-name/NAME"),
            ("legacy/2025-11-25", "legacy/VERSION"),
        ] {
            assert_eq!(entry(name).map(|c| c.name), Some(pattern), "{name}");
        }
        assert!(entry("nonsense").is_none());
    }

    #[test]
    fn every_rule_of_the_table_has_a_quoted_clause_where_it_exists() {
        for c in CHECKS {
            let Some(rule) = c.rule else { continue };
            for rev in Revision::all() {
                if let Some(clause) = rules::at(rule, rev) {
                    assert!(clause.quote.is_some(), "{} ({rule}) at {}: no quoted clause", c.name, rev.as_str());
                }
            }
        }
    }

    /// `docs/probe.md` shows [`markdown_table`] between these markers; with `MCPGEN_BLESS=1`
    /// the test writes it there instead of failing.
    #[test]
    fn the_docs_show_the_table() {
        const BEGIN: &str = "<!-- oracle table: generated from mcpgen_probe::oracle::markdown_table -->\n";
        const END: &str = "<!-- end of oracle table -->";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/probe.md");
        let page = std::fs::read_to_string(path).unwrap();
        let start = page.find(BEGIN).expect("the begin marker in docs/probe.md") + BEGIN.len();
        let end = start + page[start..].find(END).expect("the end marker in docs/probe.md");
        let want = markdown_table();
        if page[start..end] != want {
            if std::env::var_os("MCPGEN_BLESS").is_some() {
                std::fs::write(path, format!("{}{want}{}", &page[..start], &page[end..])).unwrap();
            } else {
                panic!("docs/probe.md's table of checks is stale: run `MCPGEN_BLESS=1 cargo test -p mcpgen-probe the_docs_show_the_table`; it should be:\n{want}");
            }
        }
    }

    #[test]
    fn levels_follow_the_keyword() {
        assert_eq!(level_of(Keyword::Must), Severity::Error);
        assert_eq!(level_of(Keyword::MustNot), Severity::Error);
        assert_eq!(level_of(Keyword::Should), Severity::Warning);
        assert_eq!(level_of(Keyword::Informal), Severity::Warning);
        // The unknown resource: a MUST with -32602 in 2026-07-28, a SHOULD with -32002 before.
        let modern = Revision::parse("2026-07-28");
        let legacy = Revision::parse("2025-11-25");
        assert_eq!(clause_at(id::RES_1, modern).map(|c| level_of(c.level)), Some(Severity::Error));
        assert_eq!(clause_at(id::RES_1, legacy).map(|c| level_of(c.level)), Some(Severity::Warning));
        assert_eq!(clause_at(id::COMP_2, Revision::parse("2024-11-05")), None);
    }

    #[test]
    fn a_clause_of_the_http_page_alone_is_a_warning_over_stdio() {
        let modern = Revision::parse("2026-07-28");
        let msg_9 = clause_at(id::MSG_9, modern).unwrap();
        assert_eq!(level_on(id::MSG_9, &msg_9, true), (Severity::Error, None));
        let (level, why) = level_on(id::MSG_9, &msg_9, false);
        assert_eq!(level, Severity::Warning);
        assert!(why.is_some_and(|w| w.contains("Streamable HTTP")), "{why:?}");
        // MSG-1 is on the stdio page too: an error on both transports.
        let msg_1 = clause_at(id::MSG_1, modern).unwrap();
        assert_eq!(level_on(id::MSG_1, &msg_1, false), (Severity::Error, None));
    }
}
