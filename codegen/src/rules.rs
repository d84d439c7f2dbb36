//! The rules catalogue: `schema/rules.toml` → checked entries → the Rust table behind
//! `mcpgen::rules` (a module of crate `mcpgen-schema`) and `docs/rules.md`.
//!
//! The data file's format is described at its top. Everything that can be wrong with it (a
//! duplicate id, an unknown level, a rule outside its family, a multi-line summary, a text
//! naming an id the catalogue lacks…) is a diagnostic naming the rule.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use crate::workspace::{header, SCHEMA_CRATE_DIR};
use crate::{Diagnostics, FileMap};

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
    pub enforcement: Enforcement,
}

impl Rule {
    pub fn family(&self) -> &str {
        self.id.split('-').next().unwrap_or(&self.id)
    }
}

/// The checked catalogue: families in file order, rules grouped by family in that order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogue {
    pub families: Vec<Family>,
    pub rules: Vec<Rule>,
}

/// Reads and checks the data file, then renders the table and the document.
pub fn generate(text: &str) -> Result<FileMap, Diagnostics> {
    let catalogue = parse(text)?;
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

/// Parses and checks the data file.
pub fn parse(text: &str) -> Result<Catalogue, Diagnostics> {
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
            if !matches!(key.as_str(), "id" | "level" | "summary" | "source" | "enforced" | "not_enforced" | "stateful")
            {
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
        if let (Some(level), Some(summary), Some(source), Some(enforcement)) = (level, summary, source, enforcement) {
            rules.push(Rule { id, level, summary, source, enforcement });
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
    diags.into_result(Catalogue { families, rules })
}

/// `generated/src/rule_table.rs`: the table, already in a fixed layout (the module is
/// `#[rustfmt::skip]`).
pub fn rust_table(c: &Catalogue) -> String {
    let mut s = header("//", "", Some(RULES_FILE), "the rules catalogue as a table.");
    s.push_str(
        "\n//! The rules catalogue, generated from `schema/rules.toml`. Read it through `mcpgen::rules`.\n\n\
         use mcpgen_runtime::rules::{Enforcement, Level, Rule};\n\n\
         /// Every rule, in catalogue order: families as listed, numbers ascending within one.\n",
    );
    let _ = writeln!(s, "pub static RULES: [Rule; {}] = [", c.rules.len());
    for r in &c.rules {
        let level = LEVELS.iter().find(|(name, _)| *name == r.level).map_or("Choice", |(_, v)| v);
        let _ = writeln!(
            s,
            "    Rule {{\n        id: {:?},\n        level: Level::{level},\n        summary: {:?},\n        source: {:?},\n        enforcement: Enforcement::{}({:?}),\n    }},",
            r.id,
            r.summary,
            r.source,
            r.enforcement.names().1,
            r.enforcement.text()
        );
    }
    s.push_str("];\n");
    s
}

/// The Rust constant of a rule id: `MSG-9` → `MSG_9`, `POLICY-STRICT` → `POLICY_STRICT`.
pub fn id_const(id: &str) -> String {
    id.replace('-', "_")
}

/// `runtime/src/rules/id.rs`: one `&str` constant per rule, so a mistyped id is a compile error.
pub fn rust_ids(c: &Catalogue) -> String {
    let mut s = header("//", "", Some("schema/rules.toml"), "one constant per rule id.");
    s.push_str(
        "\n//! Every rule id of the catalogue as a constant (`id::MSG_9 == \"MSG-9\"`): code that names a\n\
         //! rule names it through these, so a mistyped id does not compile. What each rule says:\n\
         //! `mcpgen::rules::lookup(id)`, `docs/rules.md`.\n\n",
    );
    for r in &c.rules {
        let _ = writeln!(s, "/// {} ({}): {}", r.id, r.level, r.summary.replace('\n', " "));
        let _ = writeln!(s, "pub const {}: &str = {:?};", id_const(&r.id), r.id);
    }
    s
}

/// GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|ch| match ch {
            ' ' => Some('-'),
            '-' | '_' => Some(ch),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn sources_cell(source: &str) -> String {
    let parts: Vec<String> = source
        .split(", ")
        .map(|part| match part {
            JSON_RPC => format!("[{JSON_RPC}]({JSON_RPC_URL})"),
            "mcpgen" => "mcpgen".to_owned(),
            p if p.starts_with("schema.json") || p.starts_with("ext-") => format!("`{p}`"),
            p => format!("[`{p}`]({SPEC_BASE}{p})"),
        })
        .collect();
    cell(&parts.join(", "))
}

fn count_list<'a>(counts: impl Iterator<Item = (&'a str, usize)>) -> String {
    counts.filter(|(_, n)| *n > 0).map(|(name, n)| format!("{n} {name}")).collect::<Vec<_>>().join(", ")
}

/// `docs/rules.md`.
pub fn markdown(c: &Catalogue) -> String {
    let mut s = header("<!--", " -->", Some(RULES_FILE), "the rules catalogue.");
    s.push_str(
        "\n# Rules catalogue\n\n\
         Every rule id mcpgen emits (the `rule` of a validation error, `ProtocolError::rule`, the\n\
         `rule()` of a tool-schema or icon error) or names in its documentation and test vectors. The\n\
         same catalogue is `mcpgen::rules` in Rust, `mcpgen rules [--format json]` and\n\
         `mcpgen explain RULE-ID` on the command line.\n\n\
         The rules restate, in mcpgen's words, what MCP revision 2026-07-28 requires that a protocol\n\
         core can check or support; `AMB-*` are mcpgen's readings where the spec is ambiguous or\n\
         silent, `Q-*` the defects and limits of its JSON Schema and how mcpgen works around them,\n\
         and `SCHEMA` and `POLICY-STRICT` mcpgen's own ids.\n\n\
         | column | meaning |\n\
         |---|---|\n\
         | level | `MUST`, `MUST NOT`, `SHOULD`, `SHOULD NOT`, `MAY`: the strongest BCP 14 keyword of the rule; `informal`: the spec states it without such a keyword; `choice`: mcpgen's decision |\n",
    );
    let _ = writeln!(
        s,
        "| source | a page of the [specification]({SPEC_BASE}) (its path below that address), a definition of the revision's `schema.json`, an extension's normative text as pinned in `schema/sources.toml` (`ext-tasks/tasks.md#section`), [{JSON_RPC}]({JSON_RPC_URL}), or `mcpgen` |"
    );
    s.push_str(
        "| mcpgen | the check that enforces it (Rust paths in crate `mcpgen`); `not enforced:` why mcpgen leaves it out; `not judgeable from one message:` the conversation state it needs |\n\n",
    );

    let mut by_level: BTreeMap<usize, usize> = BTreeMap::new();
    let mut by_kind = [0usize; 3];
    for r in &c.rules {
        *by_level.entry(LEVELS.iter().position(|(name, _)| *name == r.level).unwrap_or(0)).or_default() += 1;
        by_kind[match r.enforcement {
            Enforcement::Enforced(_) => 0,
            Enforcement::NotEnforced(_) => 1,
            Enforcement::Stateful(_) => 2,
        }] += 1;
    }
    let levels = count_list(by_level.iter().map(|(&i, &n)| (LEVELS[i].0, n)));
    let kinds = count_list(
        ["enforced", "not enforced", "not judgeable from one message"].into_iter().zip(by_kind.iter().copied()),
    );
    let _ = writeln!(s, "{} rules. By level: {levels}. By what mcpgen does: {kinds}.\n", c.rules.len());

    for f in &c.families {
        let heading = format!("{}: {}", f.prefix, f.title);
        let n = c.rules.iter().filter(|r| r.family() == f.prefix).count();
        let _ = writeln!(s, "- [{heading}](#{}) ({n})", slug(&heading));
    }
    for f in &c.families {
        let _ = writeln!(s, "\n## {}: {}\n", f.prefix, f.title);
        s.push_str("| id | level | rule | source | mcpgen |\n|---|---|---|---|---|\n");
        for r in c.rules.iter().filter(|r| r.family() == f.prefix) {
            let _ = writeln!(
                s,
                "| <a id=\"{}\"></a>{} | {} | {} | {} | {} |",
                r.id.to_ascii_lowercase(),
                r.id,
                r.level,
                cell(&r.summary),
                sources_cell(&r.source),
                cell(&r.enforcement.rendered())
            );
        }
    }
    s
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
enforced = "protocol::check_meta_key"

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

    fn problems(text: &str) -> Vec<String> {
        match parse(text) {
            Ok(_) => Vec::new(),
            Err(d) => d.0.into_iter().map(|d| d.message).collect(),
        }
    }

    #[test]
    fn a_well_formed_catalogue_renders_both_files() {
        let files = generate(OK).unwrap();
        let table = files.get("generated/src/rule_table.rs").unwrap();
        assert!(table.contains("pub static RULES: [Rule; 3] = ["));
        assert!(table.contains("enforcement: Enforcement::NotEnforced(\"cannot be told\"),"));
        let doc = files.get(RULES_DOC).unwrap();
        assert!(doc.contains("3 rules. By level: 2 MUST, 1 SHOULD. By what mcpgen does: 1 enforced, 1 not enforced, 1 not judgeable from one message."));
        assert!(doc.contains("- [META: `_meta`](#meta-_meta) (2)"));
        assert!(doc.contains("| <a id=\"meta-2\"></a>META-2 | SHOULD | Prefixes are reverse-DNS, unlike META-1's grammar. | [`basic`](https://modelcontextprotocol.io/specification/2026-07-28/basic) | not enforced: cannot be told |"));
        assert!(doc.contains("| not judgeable from one message: x |"));
        let ids = files.get(ID_MODULE_PATH).unwrap();
        assert!(ids.contains("pub const META_2: &str = \"META-2\";"), "{ids}");
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
        for (from, to, expected) in cases {
            assert!(OK.contains(from), "{from}");
            let found = problems(&OK.replacen(from, to, 1));
            assert!(found.iter().any(|m| m.contains(expected)), "{expected:?} not among {found:?}");
        }
        let reordered = OK.replacen("id = \"META-1\"", "id = \"META-3\"", 1);
        assert!(problems(&reordered).iter().any(|m| m.contains("numbers ascend")));
        let interleaved = format!("{OK}\n[[rule]]\nid = \"META-4\"\nlevel = \"MAY\"\nsummary = \"Late.\"\nsource = \"basic\"\nstateful = \"x\"\n");
        assert!(problems(&interleaved).iter().any(|m| m.contains("separated from the other META rules")));
    }

    #[test]
    fn numbered_ids_skip_standards_and_partial_words() {
        assert_eq!(
            numbered_ids("META-6, UTF-8, RFC-5424, xMETA-1, META-1x, (AMB-10) and ERR-3/ERR-4"),
            ["META-6", "AMB-10", "ERR-3", "ERR-4"]
        );
    }
}
