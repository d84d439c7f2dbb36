//! A rule's clauses: the quoted sentence it rests on (`clause`), the error code it demands
//! (`code`), and the `[[rule.revision]]` entries where a revision differs (level, clause, page,
//! code) or lacks the rule (`absent`).

use std::collections::HashSet;

use super::{string_field, valid_source, LEVELS, RULES_FILE};
use crate::Diagnostics;

/// A quote longer than this is a paragraph, not a sentence to find.
const MAX_CLAUSE: usize = 400;

/// The keys of a `[[rule.revision]]` entry.
const REVISION_KEYS: [&str; 6] = ["revisions", "level", "clause", "source", "code", "absent"];

/// The clause at some revisions (mirrors `mcpgen_runtime::rules::Clause`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    /// As spelled in the data file (one of [`LEVELS`]).
    pub level: String,
    pub quote: String,
    /// One source part: the page the quote is on.
    pub source: String,
    pub code: Option<i64>,
}

/// A `[[rule.revision]]` entry: the clause at `revisions`, or why the rule does not exist there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtRevisions {
    pub revisions: Vec<String>,
    pub at: Result<Clause, String>,
}

/// `clause` and `code` of the rule's own entry.
pub(super) fn own(
    t: &toml::Table,
    at: &str,
    who: Option<&str>,
    diags: &mut Diagnostics,
) -> (Option<String>, Option<i64>) {
    let clause = t.get("clause").and_then(|_| string_field(t, "clause", at, who, diags));
    if let Some(q) = &clause {
        check_quote(q, at, who, diags);
    }
    (clause, code(t, at, who, diags))
}

fn check_quote(q: &str, at: &str, who: Option<&str>, diags: &mut Diagnostics) {
    if q.contains('\n') || q.trim() != q {
        diags.push(RULES_FILE, who, at, "a clause is one line, without surrounding blanks");
    }
    if q.chars().count() > MAX_CLAUSE {
        diags.push(
            RULES_FILE,
            who,
            at,
            format!("the clause has {} characters (at most {MAX_CLAUSE})", q.chars().count()),
        );
    }
}

fn code(t: &toml::Table, at: &str, who: Option<&str>, diags: &mut Diagnostics) -> Option<i64> {
    match t.get("code") {
        None => None,
        Some(toml::Value::Integer(c)) => Some(*c),
        Some(other) => {
            diags.push(RULES_FILE, who, at, format!("`code` must be an integer, found a {}", other.type_str()));
            None
        }
    }
}

/// The `[[rule.revision]]` entries of one rule; `known` are the pinned revisions, `page` the
/// page of the rule's own clause (an entry's default `source`).
pub(super) fn revisions(
    t: &toml::Table,
    at: &str,
    who: Option<&str>,
    known: &[&str],
    page: &str,
    diags: &mut Diagnostics,
) -> Vec<AtRevisions> {
    let entries = match t.get("revision") {
        None => return Vec::new(),
        Some(toml::Value::Array(items)) => items,
        Some(_) => {
            diags.push(RULES_FILE, who, at, "`revision` must be an array of tables (`[[rule.revision]]`)");
            return Vec::new();
        }
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, item) in entries.iter().enumerate() {
        let at = format!("{at}/revision/{i}");
        let Some(e) = item.as_table() else {
            diags.push(RULES_FILE, who, &at, "`revision` entries are tables");
            continue;
        };
        for key in e.keys().filter(|k| !REVISION_KEYS.contains(&k.as_str())) {
            diags.push(RULES_FILE, who, &at, format!("unknown `[[rule.revision]]` key `{key}`"));
        }
        let names = revision_names(e, &at, who, known, diags);
        for n in &names {
            if !seen.insert(n.clone()) {
                diags.push(RULES_FILE, who, &at, format!("revision `{n}` is in two `[[rule.revision]]` entries"));
            }
        }
        if let Some(entry) = entry_clause(e, &at, who, page, diags) {
            out.push(AtRevisions { revisions: names, at: entry });
        }
    }
    out
}

fn revision_names(
    e: &toml::Table,
    at: &str,
    who: Option<&str>,
    known: &[&str],
    diags: &mut Diagnostics,
) -> Vec<String> {
    let Some(toml::Value::Array(list)) = e.get("revisions") else {
        diags.push(RULES_FILE, who, at, "`revisions` (a non-empty array of revision names) is missing");
        return Vec::new();
    };
    if list.is_empty() {
        diags.push(RULES_FILE, who, at, "`revisions` is empty");
    }
    let mut names = Vec::new();
    for v in list {
        match v.as_str() {
            Some(name) if known.contains(&name) => names.push(name.to_owned()),
            Some(name) => diags.push(
                RULES_FILE,
                who,
                at,
                format!("unknown revision `{name}` (pinned in schema/sources.toml: {})", known.join(", ")),
            ),
            None => diags.push(RULES_FILE, who, at, "`revisions` holds revision names (strings)"),
        }
    }
    names
}

/// `Err(reason)` for `absent = "why"`; else the level, clause, page and code there.
fn entry_clause(
    e: &toml::Table,
    at: &str,
    who: Option<&str>,
    page: &str,
    diags: &mut Diagnostics,
) -> Option<Result<Clause, String>> {
    if e.contains_key("absent") {
        if let Some(other) = ["level", "clause", "source", "code"].into_iter().find(|k| e.contains_key(*k)) {
            diags.push(RULES_FILE, who, at, format!("an `absent` entry has no `{other}`"));
        }
        return string_field(e, "absent", at, who, diags).map(Err);
    }
    let level = string_field(e, "level", at, who, diags);
    if let Some(l) = level.as_deref().filter(|l| !LEVELS.iter().any(|(name, _)| name == l)) {
        diags.push(RULES_FILE, who, at, format!("unknown level `{l}`"));
    }
    let quote = string_field(e, "clause", at, who, diags);
    if let Some(q) = &quote {
        check_quote(q, at, who, diags);
    }
    let source = match e.get("source") {
        None => Some(page.to_owned()),
        Some(_) => string_field(e, "source", at, who, diags),
    };
    if let Some(s) = source.as_deref().filter(|s| s.contains(", ") || !valid_source(s)) {
        diags.push(RULES_FILE, who, at, format!("an entry's `source` is the one page its clause is on, not `{s}`"));
    }
    let code = code(e, at, who, diags);
    Some(Ok(Clause { level: level?, quote: quote?, source: source?, code }))
}
