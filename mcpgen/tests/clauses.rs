//! Every rule the core can emit (named through `rules::id` in the conversation checker, the
//! protocol rules and the probe) quotes the clause it rests on (`clause` in `schema/rules.toml`),
//! unless it is mcpgen's own `choice`: a finding's level is read from that clause at the
//! revision it was judged under, so a rule without one would be judged by its bare `level`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcpgen::rules::{catalogue, Level};

/// Where the rules a peer's messages are judged by are emitted.
/// Where findings and refusals are made: folders are read whole, files alone.
const EMITTERS: &[&str] = &[
    "mcpgen/src/conversation",
    "mcpgen/src/conversation.rs",
    "mcpgen/src/protocol",
    "mcpgen/src/protocol.rs",
    "probe/src",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn sources(path: &Path, out: &mut Vec<String>) {
    if path.is_file() {
        if path.extension().is_some_and(|e| e == "rs") {
            out.push(std::fs::read_to_string(path).unwrap());
        }
        return;
    }
    let entries =
        std::fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e} (is EMITTERS up to date?)", path.display()));
    for entry in entries {
        sources(&entry.unwrap().path(), out);
    }
}

/// The catalogue ids named as `id::CONST` in the emitters.
fn emitted() -> BTreeSet<&'static str> {
    let mut texts = Vec::new();
    for dir in EMITTERS {
        sources(&root().join(dir), &mut texts);
    }
    let mut found = BTreeSet::new();
    for text in &texts {
        for (at, _) in text.match_indices("id::") {
            let name: String = text[at + 4..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if let Some(rule) = catalogue().iter().find(|r| !name.is_empty() && r.id.replace('-', "_") == name) {
                found.insert(rule.id);
            }
        }
    }
    found
}

#[test]
fn every_emitted_rule_quotes_its_clause() {
    let emitted = emitted();
    assert!(emitted.len() > 80, "only {} emitted rules found: are the emitter paths right?", emitted.len());
    let missing: Vec<&str> = emitted
        .iter()
        .copied()
        .filter(|id| catalogue().iter().any(|r| r.id == *id && r.level != Level::Choice && r.clause.is_none()))
        .collect();
    assert!(missing.is_empty(), "emitted rules without a `clause` in schema/rules.toml: {missing:?}");
}

/// Every revision entry quotes its clause, on a page of its own (no `, `), where it exists.
#[test]
fn revision_entries_are_complete() {
    for rule in catalogue() {
        for entry in rule.revisions {
            assert!(!entry.revisions.is_empty(), "{}: an entry names no revision", rule.id);
            if let Some(c) = entry.clause {
                assert!(c.quote.is_some_and(|q| !q.is_empty()), "{}: an entry without its clause", rule.id);
                assert!(!c.source.contains(", "), "{}: an entry's page is one page", rule.id);
            }
        }
    }
}
