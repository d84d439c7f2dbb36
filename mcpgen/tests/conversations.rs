//! The conversation vectors (`vectors/conversations/*.jsonl` with their `.expect.json`): each
//! conversation replayed through `mcpgen::conversation::Conversation`, one checker per session;
//! the findings must equal the expected ones as a multiset of (line, rule, level, pointer), and
//! every line not listed must have none. One test per vector.

mod support;

use std::collections::HashMap;

use libtest_mimic::{Arguments, Trial};
use mcpgen::conversation::{Conversation, Sender};
use mcpgen::json::{JsonView, Kind, Tape};

type Key = (usize, Option<String>, String, String);

fn run(v: &support::ConversationVector) -> Result<(), String> {
    let text = std::fs::read_to_string(&v.jsonl).map_err(|e| format!("{}: {e}", v.jsonl.display()))?;
    let expect_text = std::fs::read_to_string(&v.expect).map_err(|e| format!("{}: {e}", v.expect.display()))?;
    let expect: serde_json::Value =
        serde_json::from_str(&expect_text).map_err(|e| format!("{}: {e}", v.expect.display()))?;
    for k in expect.as_object().ok_or("expect: not an object")?.keys() {
        if !matches!(k.as_str(), "description" | "rules" | "findings") {
            return Err(format!("expect: unknown member `{k}`"));
        }
    }
    let mut want: Vec<Key> = Vec::new();
    for f in expect["findings"].as_array().ok_or("expect.findings must be an array")? {
        let line = f["line"].as_u64().ok_or("finding.line must be a number")? as usize;
        let rule = f["rule"].as_str().map(str::to_owned);
        let level = f["level"].as_str().ok_or("finding.level must be a string")?.to_owned();
        let pointer = f["pointer"].as_str().ok_or("finding.pointer must be a string")?.to_owned();
        want.push((line, rule, level, pointer));
    }
    let rules: Vec<&str> =
        expect["rules"].as_array().ok_or("expect.rules must be an array")?.iter().filter_map(|r| r.as_str()).collect();
    for r in &rules {
        if mcpgen::rules::lookup(r).is_none() {
            return Err(format!("expect.rules names {r}, which the catalogue lacks"));
        }
    }
    let mut sessions: HashMap<Option<String>, Conversation> = HashMap::new();
    let mut got: Vec<Key> = Vec::new();
    let mut shown: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.trim().is_empty() {
            continue;
        }
        let tape = Tape::parse(line).map_err(|e| format!("line {n}: not JSON: {e}"))?;
        let row = tape.root();
        if row.kind() != Kind::Object {
            return Err(format!("line {n}: not an object"));
        }
        let from: Sender = row
            .get("from")
            .and_then(|f| f.as_str())
            .ok_or(format!("line {n}: no `from`"))?
            .parse()
            .map_err(|e| format!("line {n}: {e}"))?;
        let session = row.get("session").and_then(|s| s.as_str()).map(|s| s.into_owned());
        let conv = sessions.entry(session).or_default();
        let findings = match (row.get("message"), row.get("raw")) {
            (Some(m), None) => conv.observe_view(from, &m),
            (None, Some(r)) => {
                conv.observe(from, r.as_str().ok_or(format!("line {n}: `raw` must be a string"))?.as_bytes())
            }
            _ => return Err(format!("line {n}: exactly one of `message` and `raw`")),
        };
        for f in findings {
            shown.push(format!("  line {n}: {f} [{:?}]", f.rule));
            got.push((n, f.rule.map(str::to_owned), f.level.as_str().to_owned(), f.pointer));
        }
    }
    let mut missing = want.clone();
    let mut extra = Vec::new();
    for g in &got {
        match missing.iter().position(|w| w == g) {
            Some(i) => {
                missing.remove(i);
            }
            None => extra.push(g.clone()),
        }
    }
    // Every rule the vector says it shows has a finding (or it is a vector of accepted traffic).
    for r in &rules {
        if !want.iter().any(|w| w.1.as_deref() == Some(*r)) && !want.is_empty() {
            return Err(format!("expect.rules names {r} but no expected finding carries it"));
        }
    }
    if missing.is_empty() && extra.is_empty() {
        return Ok(());
    }
    Err(format!("missing: {missing:?}\nunexpected: {extra:?}\nall findings:\n{}", shown.join("\n")))
}

fn main() {
    let args = Arguments::from_args();
    let trials = support::conversation_vectors()
        .into_iter()
        .map(|v| Trial::test(format!("conversation::{}", v.name), move || run(&v).map_err(Into::into)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
