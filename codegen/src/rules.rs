//! The rules catalogue: `schema/rules.toml` → checked entries → the Rust table behind
//! `mcpgen::rules` (a module of crate `mcpgen-schema`) and `docs/rules.md`.
//!
//! The data file's format is described at its top. Everything that can be wrong with it (a
//! duplicate id, an unknown level, a rule outside its family, a multi-line summary, a text
//! naming an id the catalogue lacks…) is a diagnostic naming the rule.

use std::collections::HashSet;

use crate::workspace::SCHEMA_CRATE_DIR;
use crate::{Diagnostics, FileMap};

mod clauses;
mod render;

pub use clauses::{AtRevisions, Clause};
pub use render::{id_const, markdown, rust_ids, rust_table};

/// The data file, relative to the workspace root.
pub const RULES_FILE: &str = "schema/rules.toml";
/// The rendered catalogue, relative to the workspace root.
pub const RULES_DOC: &str = "docs/rules.md";
/// The module of crate `mcpgen-schema` that holds the table.
pub const TABLE_MODULE: &str = "rule_table";
/// The rule id constants (`mcpgen_runtime::rules::id`, read as `mcpgen::rules::id`): in the
/// runtime, the bottom crate, so every crate names a rule through them.
pub const ID_MODULE_PATH: &str = "runtime/src/rules/id.rs";

/// The specification pages that `source` paths are relative to.
const SPEC_BASE: &str = "https://modelcontextprotocol.io/specification/2026-07-28/";
const JSON_RPC: &str = "JSON-RPC 2.0";
const JSON_RPC_URL: &str = "https://www.jsonrpc.org/specification";

/// Levels, strongest first, as the data file spells them (and `mcpgen_runtime::rules::Level`
/// names them).
pub const LEVELS: [(&str, &str); 7] = [
    ("MUST", "Must"),
    ("MUST NOT", "MustNot"),
    ("SHOULD", "Should"),
    ("SHOULD NOT", "ShouldNot"),
    ("MAY", "May"),
    ("informal", "Informal"),
    ("choice", "Choice"),
];

/// The keys of a `[[rule]]`.
const RULE_KEYS: [&str; 10] =
    ["id", "level", "summary", "source", "clause", "code", "revision", "enforced", "not_enforced", "stateful"];

/// A summary longer than this is not one line any more.
const MAX_SUMMARY: usize = 200;

/// Prefixes of `WORD-N` tokens that are standards, not rule ids (`UTF-8`, `RFC-5424`).
pub const NOT_RULE_PREFIXES: [&str; 5] = ["UTF", "RFC", "ISO", "ECMA", "SEP"];

/// A group of rules sharing an id prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    pub prefix: String,
    pub title: String,
}

/// What mcpgen does about a rule (mirrors `mcpgen_runtime::rules::Enforcement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enforcement {
    Enforced(String),
    NotEnforced(String),
    Stateful(String),
}

impl Enforcement {
    /// The data file's key and the runtime's variant name.
    fn names(&self) -> (&'static str, &'static str) {
        match self {
            Enforcement::Enforced(_) => ("enforced", "Enforced"),
            Enforcement::NotEnforced(_) => ("not_enforced", "NotEnforced"),
            Enforcement::Stateful(_) => ("stateful", "Stateful"),
        }
    }
    fn text(&self) -> &str {
        match self {
            Enforcement::Enforced(s) | Enforcement::NotEnforced(s) | Enforcement::Stateful(s) => s,
        }
    }
    /// As `mcpgen_runtime::rules::Enforcement`'s `Display` renders it.
    pub fn rendered(&self) -> String {
        match self {
            Enforcement::Enforced(s) => s.clone(),
            Enforcement::NotEnforced(s) => format!("not enforced: {s}"),
            Enforcement::Stateful(s) => format!("not judgeable from one message: {s}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub id: String,
    /// As spelled in the data file (one of [`LEVELS`]).
    pub level: String,
    pub summary: String,
    pub source: String,
    /// The quoted sentence, on the first page of `source`; `None` where not recorded yet.
    pub clause: Option<String>,
    pub code: Option<i64>,
    /// Where a revision differs, or lacks the rule.
    pub revisions: Vec<AtRevisions>,
    pub enforcement: Enforcement,
}

impl Rule {
    pub fn family(&self) -> &str {
        self.id.split('-').next().unwrap_or(&self.id)
    }

    /// The page of the rule's own clause: the first part of `source`.
    pub fn page(&self) -> &str {
        self.source.split(", ").next().unwrap_or(&self.source)
    }
}

/// The checked catalogue: families in file order, rules grouped by family in that order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogue {
    /// The pinned revisions, newest first.
    pub revisions: Vec<String>,
    pub families: Vec<Family>,
    pub rules: Vec<Rule>,
}

/// Reads and checks the data file, then renders the table and the document. `revisions` are
/// the pinned revision names, newest first (what `[[rule.revision]]` may name).
pub fn generate(text: &str, revisions: &[&str]) -> Result<FileMap, Diagnostics> {
    let catalogue = parse(text, revisions)?;
    let mut files = FileMap::default();
    files.insert(format!("{SCHEMA_CRATE_DIR}/src/{TABLE_MODULE}.rs"), rust_table(&catalogue));
    files.insert(ID_MODULE_PATH, rust_ids(&catalogue));
    files.insert(RULES_DOC, markdown(&catalogue));
    Ok(files)
}

fn string_field(
    entry: &toml::Table,
    key: &str,
    at: &str,
    who: Option<&str>,
    diags: &mut Diagnostics,
) -> Option<String> {
    match entry.get(key) {
        Some(toml::Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(toml::Value::String(_)) => {
            diags.push(RULES_FILE, who, at, format!("`{key}` is empty"));
            None
        }
        Some(other) => {
            diags.push(RULES_FILE, who, at, format!("`{key}` must be a string, found a {}", other.type_str()));
            None
        }
        None => {
            diags.push(RULES_FILE, who, at, format!("missing `{key}`"));
            None
        }
    }
}

fn tables<'t>(doc: &'t toml::Table, key: &str, diags: &mut Diagnostics) -> Vec<&'t toml::Table> {
    match doc.get(key) {
        Some(toml::Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                toml::Value::Table(t) => Some(t),
                _ => {
                    diags.push(RULES_FILE, None, format!("/{key}/{i}"), format!("`{key}` entries are tables"));
                    None
                }
            })
            .collect(),
        Some(_) => {
            diags.push(
                RULES_FILE,
                None,
                format!("/{key}"),
                format!("`{key}` must be an array of tables (`[[{key}]]`)"),
            );
            Vec::new()
        }
        None => {
            diags.push(RULES_FILE, None, "", format!("no `[[{key}]]` entries"));
            Vec::new()
        }
    }
}

/// A rule id: `FAMILY-N` (the number), or a bare upper-case word, possibly hyphenated
/// (`SCHEMA`, `POLICY-STRICT`: `None`).
fn id_shape(id: &str) -> Result<Option<u32>, String> {
    let upper_word = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_uppercase());
    let mut parts = id.split('-');
    let family = parts.next().unwrap_or_default();
    let rest: Vec<&str> = parts.collect();
    match rest.as_slice() {
        _ if !upper_word(family) => Err(format!("`{id}` does not start with an upper-case family name")),
        [] => Ok(None),
        [n] if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0') => {
            n.parse().map(Some).map_err(|_| format!("`{id}`: number too large"))
        }
        words if words.iter().all(|w| upper_word(w)) => Ok(None),
        _ => Err(format!("`{id}` is neither FAMILY-N nor an upper-case word")),
    }
}

/// Every `WORD-N` token of `text` that is not a standard's name (see [`NOT_RULE_PREFIXES`]).
pub fn numbered_ids(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = bytes[i].is_ascii_uppercase() && (i == 0 || !is_word_byte(bytes[i - 1]));
        if !starts_word {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_uppercase() {
            j += 1;
        }
        let mut k = j + 1;
        while k < bytes.len() && bytes[k].is_ascii_digit() {
            k += 1;
        }
        let is_id = j < bytes.len()
            && bytes[j] == b'-'
            && k > j + 1
            && (k == bytes.len() || !is_word_byte(bytes[k]))
            && !NOT_RULE_PREFIXES.contains(&&text[i..j]);
        if is_id {
            found.push(&text[i..k]);
            i = k;
        } else {
            i = j.max(i + 1);
        }
    }
    found
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A `source` part: a specification page path, `schema.json[#/$defs/Name]`, an extension's
/// pinned text (`ext-tasks/tasks.md#anchor`), JSON-RPC, mcpgen.
fn valid_source(part: &str) -> bool {
    if part == JSON_RPC || part == "mcpgen" || part == "schema.json" {
        return true;
    }
    if let Some((dir, rest)) = part.split_once('/').filter(|(d, _)| d.starts_with("ext-")) {
        let (file, anchor) = rest.split_once('#').unwrap_or((rest, ""));
        let word =
            |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        return word(dir) && file.strip_suffix(".md").is_some_and(word) && (anchor.is_empty() || word(anchor));
    }
    if let Some(name) = part.strip_prefix("schema.json#/$defs/") {
        return !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric());
    }
    !part.is_empty()
        && part.split('/').all(|seg| {
            !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// Parses and checks the data file; `revisions` are the pinned revision names.
pub fn parse(text: &str, revisions: &[&str]) -> Result<Catalogue, Diagnostics> {
    let mut diags = Diagnostics::default();
    let doc: toml::Table = match text.parse() {
        Ok(doc) => doc,
        Err(e) => {
            diags.push(RULES_FILE, None, "", format!("not valid TOML: {e}"));
            return Err(diags);
        }
    };
    for key in doc.keys().filter(|k| !matches!(k.as_str(), "family" | "rule")) {
        diags.push(RULES_FILE, None, format!("/{key}"), format!("unknown top-level key `{key}`"));
    }

    let mut families = Vec::new();
    for (i, t) in tables(&doc, "family", &mut diags).into_iter().enumerate() {
        let at = format!("/family/{i}");
        for key in t.keys().filter(|k| !matches!(k.as_str(), "prefix" | "title")) {
            diags.push(RULES_FILE, None, &at, format!("unknown family key `{key}`"));
        }
        let (Some(prefix), Some(title)) =
            (string_field(t, "prefix", &at, None, &mut diags), string_field(t, "title", &at, None, &mut diags))
        else {
            continue;
        };
        if !prefix.bytes().all(|b| b.is_ascii_uppercase()) {
            diags.push(RULES_FILE, None, &at, format!("family prefix `{prefix}` must be upper-case letters"));
        }
        if families.iter().any(|f: &Family| f.prefix == prefix) {
            diags.push(RULES_FILE, None, &at, format!("family `{prefix}` is declared twice"));
        }
        families.push(Family { prefix, title });
    }

    let mut rules: Vec<Rule> = Vec::new();
    let mut seen = HashSet::new();
    // The family being listed, the last number seen in it, and the families already listed.
    let mut current: Option<usize> = None;
    let mut last_number: Option<u32> = None;
    let mut listed = HashSet::new();
    for (i, t) in tables(&doc, "rule", &mut diags).into_iter().enumerate() {
        let at = format!("/rule/{i}");
        let Some(id) = string_field(t, "id", &at, None, &mut diags) else { continue };
        let who = Some(id.as_str());
        for key in t.keys() {
            if !RULE_KEYS.contains(&key.as_str()) {
                diags.push(RULES_FILE, who, &at, format!("unknown rule key `{key}`"));
            }
        }
        let number = match id_shape(&id) {
            Ok(n) => n,
            Err(e) => {
                diags.push(RULES_FILE, who, &at, e);
                continue;
            }
        };
        if !seen.insert(id.clone()) {
            diags.push(RULES_FILE, who, &at, format!("`{id}` is listed twice"));
        }
        let family = id.split('-').next().unwrap_or_default();
        match families.iter().position(|f| f.prefix == family) {
            None => diags.push(RULES_FILE, who, &at, format!("no `[[family]]` with prefix `{family}`")),
            Some(pos) if current == Some(pos) => {
                if let (Some(last), Some(n)) = (last_number, number) {
                    if n <= last {
                        diags.push(
                            RULES_FILE,
                            who,
                            &at,
                            format!("`{id}` comes after {family}-{last}: numbers ascend within a family"),
                        );
                    }
                }
                last_number = number.or(last_number);
            }
            Some(pos) => {
                if listed.contains(&pos) {
                    diags.push(
                        RULES_FILE,
                        who,
                        &at,
                        format!("`{id}` is separated from the other {family} rules: list a family's rules together"),
                    );
                } else if pos != current.map_or(0, |c| c + 1) {
                    diags.push(
                        RULES_FILE,
                        who,
                        &at,
                        format!(
                            "the {family} rules are out of the `[[family]]` order: list families' rules in that order"
                        ),
                    );
                }
                listed.insert(pos);
                current = Some(pos);
                last_number = number;
            }
        }

        let level = string_field(t, "level", &at, who, &mut diags);
        if let Some(l) = &level {
            if !LEVELS.iter().any(|(name, _)| name == l) {
                let known: Vec<&str> = LEVELS.iter().map(|(name, _)| *name).collect();
                diags.push(RULES_FILE, who, &at, format!("unknown level `{l}` (one of: {})", known.join(", ")));
            }
        }
        let summary = string_field(t, "summary", &at, who, &mut diags);
        if let Some(s) = &summary {
            if s.contains('\n') {
                diags.push(RULES_FILE, who, &at, "the summary is one line");
            }
            if s.chars().count() > MAX_SUMMARY {
                diags.push(
                    RULES_FILE,
                    who,
                    &at,
                    format!("the summary has {} characters (at most {MAX_SUMMARY})", s.chars().count()),
                );
            }
            if !s.ends_with('.') {
                diags.push(RULES_FILE, who, &at, "the summary is a sentence ending in `.`");
            }
        }
        let source = string_field(t, "source", &at, who, &mut diags);
        if let Some(s) = &source {
            for part in s.split(", ").filter(|p| !valid_source(p)) {
                diags.push(
                    RULES_FILE,
                    who,
                    &at,
                    format!(
                        "source `{part}` is not a spec page path, `schema.json#/$defs/Name`, `{JSON_RPC}` or `mcpgen`"
                    ),
                );
            }
        }
        let present: Vec<&str> =
            ["enforced", "not_enforced", "stateful"].into_iter().filter(|k| t.contains_key(*k)).collect();
        let enforcement = match present.as_slice() {
            [key] => string_field(t, key, &at, who, &mut diags).map(|text| match *key {
                "enforced" => Enforcement::Enforced(text),
                "not_enforced" => Enforcement::NotEnforced(text),
                _ => Enforcement::Stateful(text),
            }),
            _ => {
                diags.push(
                    RULES_FILE,
                    who,
                    &at,
                    format!(
                        "give exactly one of `enforced`, `not_enforced`, `stateful` (found {})",
                        if present.is_empty() { "none".to_owned() } else { present.join(", ") }
                    ),
                );
                None
            }
        };
        if let Some(e) = &enforcement {
            if e.text().contains('\n') {
                diags.push(RULES_FILE, who, &at, format!("`{}` is one line", e.names().0));
            }
        }
        let (clause, code) = clauses::own(t, &at, who, &mut diags);
        let page = source.as_deref().map_or("", |s| s.split(", ").next().unwrap_or(s));
        let at_revisions = clauses::revisions(t, &at, who, revisions, page, &mut diags);
        if let (Some(level), Some(summary), Some(source), Some(enforcement)) = (level, summary, source, enforcement) {
            rules.push(Rule { id, level, summary, source, clause, code, revisions: at_revisions, enforcement });
        }
    }

    for (i, r) in rules.iter().enumerate() {
        for text in [&r.summary, r.enforcement.text()] {
            for id in numbered_ids(text) {
                if !seen.contains(id) {
                    diags.push(
                        RULES_FILE,
                        Some(&r.id),
                        format!("/rule/{i}"),
                        format!("mentions `{id}`, which the catalogue lacks"),
                    );
                }
            }
        }
    }
    for f in &families {
        if !rules.iter().any(|r| r.family() == f.prefix) {
            diags.push(RULES_FILE, None, "/family", format!("family `{}` has no rules", f.prefix));
        }
    }
    let revisions = revisions.iter().map(|r| (*r).to_owned()).collect();
    diags.into_result(Catalogue { revisions, families, rules })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"
[[family]]
prefix = "META"
title = "`_meta`"

[[rule]]
id = "META-1"
level = "MUST"
summary = "Keys follow the grammar."
source = "basic, schema.json#/$defs/MetaObject"
clause = "Keys MUST follow the grammar."
code = -32602
enforced = "protocol::check_meta_key"

[[rule.revision]]
revisions = ["2025-11-25", "2025-06-18"]
level = "SHOULD"
clause = "Keys SHOULD follow the grammar."
source = "basic/lifecycle"
code = -32002

[[rule.revision]]
revisions = ["2024-11-05"]
absent = "no `_meta` keys then"

[[rule]]
id = "META-2"
level = "SHOULD"
summary = "Prefixes are reverse-DNS, unlike META-1's grammar."
source = "basic"
not_enforced = "cannot be told"

[[family]]
prefix = "SCHEMA"
title = "Schema validation"

[[rule]]
id = "SCHEMA"
level = "MUST"
summary = "Messages satisfy the schema."
source = "schema.json"
stateful = "x"
"#;

    const REVISIONS: [&str; 4] = ["2026-07-28", "2025-11-25", "2025-06-18", "2024-11-05"];

    fn problems(text: &str) -> Vec<String> {
        match parse(text, &REVISIONS) {
            Ok(_) => Vec::new(),
            Err(d) => d.0.into_iter().map(|d| d.message).collect(),
        }
    }

    #[test]
    fn a_well_formed_catalogue_renders_both_files() {
        let files = generate(OK, &REVISIONS).unwrap();
        let table = files.get("generated/src/rule_table.rs").unwrap();
        assert!(table.contains("pub static RULES: [Rule; 3] = ["));
        assert!(table.contains("enforcement: Enforcement::NotEnforced(\"cannot be told\"),"));
        let doc = files.get(RULES_DOC).unwrap();
        assert!(doc.contains("3 rules. By level: 2 MUST, 1 SHOULD. By what mcpgen does: 1 enforced, 1 not enforced, 1 not judgeable from one message."));
        assert!(doc.contains("- [META: `_meta`](#meta-_meta) (2)"));
        assert!(doc.contains("| <a id=\"meta-2\"></a>META-2 | SHOULD | Prefixes are reverse-DNS, unlike META-1's grammar. | [`basic`](https://modelcontextprotocol.io/specification/2026-07-28/basic) | — | not enforced: cannot be told |"));
        assert!(doc.contains("| not judgeable from one message: x |"));
        let ids = files.get(ID_MODULE_PATH).unwrap();
        assert!(ids.contains("pub const META_2: &str = \"META-2\";"), "{ids}");
    }

    /// Each (from, to, expected): `OK` with `from` replaced by `to` gives a problem naming `expected`.
    fn each_named(cases: &[(&str, &str, &str)]) {
        for (from, to, expected) in cases {
            assert!(OK.contains(from), "{from}");
            let found = problems(&OK.replacen(from, to, 1));
            assert!(found.iter().any(|m| m.contains(expected)), "{expected:?} not among {found:?}");
        }
    }

    #[test]
    fn every_mistake_is_named() {
        let cases: [(&str, &str, &str); 12] = [
            (
                "level = \"SHOULD\"\nsummary = \"Prefixes",
                "level = \"should\"\nsummary = \"Prefixes",
                "unknown level `should`",
            ),
            ("id = \"META-2\"", "id = \"META-1\"", "`META-1` is listed twice"),
            ("id = \"META-2\"", "id = \"META-02\"", "neither FAMILY-N nor an upper-case word"),
            ("id = \"META-2\"", "id = \"MSG-2\"", "no `[[family]]` with prefix `MSG`"),
            ("Keys follow the grammar.", "Keys follow\\nthe grammar.", "the summary is one line"),
            ("Keys follow the grammar.", "Keys follow the grammar", "ending in `.`"),
            (
                "not_enforced = \"cannot be told\"",
                "",
                "exactly one of `enforced`, `not_enforced`, `stateful` (found none)",
            ),
            ("stateful = \"x\"", "stateful = \"x\"\nenforced = \"y\"", "(found enforced, stateful)"),
            ("source = \"basic\"", "source = \"Basic Page\"", "source `Basic Page` is not a spec page path"),
            ("source = \"basic\"", "source = \"ext-tasks/tasks.txt\"", "source `ext-tasks/tasks.txt` is not"),
            (
                "source = \"basic\"",
                "source = \"ext-tasks/tasks.md#Bad Anchor\"",
                "source `ext-tasks/tasks.md#Bad Anchor` is not",
            ),
            ("unlike META-1's", "unlike META-9's", "mentions `META-9`, which the catalogue lacks"),
        ];
        each_named(&cases);
        let reordered = OK.replacen("id = \"META-1\"", "id = \"META-3\"", 1);
        assert!(problems(&reordered).iter().any(|m| m.contains("numbers ascend")));
        let interleaved = format!("{OK}\n[[rule]]\nid = \"META-4\"\nlevel = \"MAY\"\nsummary = \"Late.\"\nsource = \"basic\"\nstateful = \"x\"\n");
        assert!(problems(&interleaved).iter().any(|m| m.contains("separated from the other META rules")));
    }

    #[test]
    fn clauses_render_per_revision() {
        let files = generate(OK, &REVISIONS).unwrap();
        let table = files.get("generated/src/rule_table.rs").unwrap();
        assert!(
            table.contains("clause: Some(\"Keys MUST follow the grammar.\"),\n        code: Some(-32602),"),
            "{table}"
        );
        assert!(table.contains("AtRevisions { revisions: &[\"2025-11-25\", \"2025-06-18\"], clause: Some(Clause { level: Level::Should, quote: Some(\"Keys SHOULD follow the grammar.\"), source: \"basic/lifecycle\", code: Some(-32002) }) },"), "{table}");
        assert!(table.contains("AtRevisions { revisions: &[\"2024-11-05\"], clause: None },"));
        assert!(table.contains("clause: None,\n        code: None,\n        revisions: &[],"));
        let doc = files.get(RULES_DOC).unwrap();
        assert!(doc.contains("| MUST “Keys MUST follow the grammar.” ([`basic`](https://modelcontextprotocol.io/specification/2026-07-28/basic), code -32602)<br>2025-11-25, 2025-06-18: SHOULD “Keys SHOULD follow the grammar.” ([`basic/lifecycle`](https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle), code -32002)<br>2024-11-05: absent (no `_meta` keys then) |"), "{doc}");
        assert!(doc.contains("1 rules quote their clause; 2 do not yet."));
    }

    #[test]
    fn every_clause_mistake_is_named() {
        let cases: [(&str, &str, &str); 9] = [
            (
                "revisions = [\"2024-11-05\"]",
                "revisions = [\"2024-11-06\"]",
                "unknown revision `2024-11-06` (pinned in",
            ),
            ("revisions = [\"2024-11-05\"]", "revisions = [\"2025-06-18\"]", "revision `2025-06-18` is in two"),
            ("revisions = [\"2024-11-05\"]", "revisions = []", "`revisions` is empty"),
            ("clause = \"Keys MUST follow the grammar.\"", "clause = \"\"", "`clause` is empty"),
            ("clause = \"Keys SHOULD follow the grammar.\"\n", "", "missing `clause`"),
            ("level = \"SHOULD\"\nclause = \"Keys", "level = \"may\"\nclause = \"Keys", "unknown level `may`"),
            ("absent = \"no `_meta` keys then\"", "absent = \"x\"\ncode = 1", "an `absent` entry has no `code`"),
            ("source = \"basic/lifecycle\"", "source = \"basic, basic/lifecycle\"", "the one page its clause is on"),
            ("code = -32602", "code = \"-32602\"", "`code` must be an integer"),
        ];
        each_named(&cases);
    }

    #[test]
    fn numbered_ids_skip_standards_and_partial_words() {
        assert_eq!(
            numbered_ids("META-6, UTF-8, RFC-5424, xMETA-1, META-1x, (AMB-10) and ERR-3/ERR-4"),
            ["META-6", "AMB-10", "ERR-3", "ERR-4"]
        );
    }
}
