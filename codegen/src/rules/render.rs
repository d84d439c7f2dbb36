//! Rendering the checked catalogue: the Rust table, the id constants and `docs/rules.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Catalogue, Clause, Enforcement, Rule, JSON_RPC, JSON_RPC_URL, LEVELS, RULES_FILE, SPEC_BASE};
use crate::workspace::header;

/// `generated/src/rule_table.rs`: the table, already in a fixed layout (the module is
/// `#[rustfmt::skip]`).
pub fn rust_table(c: &Catalogue) -> String {
    let mut s = header("//", "", Some(RULES_FILE), "the rules catalogue as a table.");
    s.push_str(
        "\n//! The rules catalogue, generated from `schema/rules.toml`. Read it through `mcpgen::rules`.\n\n\
         use mcpgen_runtime::rules::{AtRevisions, Clause, Enforcement, Level, Rule};\n\n\
         /// Every rule, in catalogue order: families as listed, numbers ascending within one.\n",
    );
    let _ = writeln!(
        s,
        "/// The revision of each rule's own entry (`level`, `clause`, `source`, `code`): the newest pinned.\npub const REVISION: &str = {:?};\n",
        c.revisions.first().map_or("", String::as_str)
    );
    let _ = writeln!(s, "pub static RULES: [Rule; {}] = [", c.rules.len());
    for r in &c.rules {
        let _ = writeln!(
            s,
            "    Rule {{\n        id: {:?},\n        level: Level::{},\n        summary: {:?},\n        source: {:?},\n        clause: {},\n        code: {:?},\n        revisions: &[{}],\n        enforcement: Enforcement::{}({:?}),\n    }},",
            r.id,
            level_variant(&r.level),
            r.summary,
            r.source,
            r.clause.as_ref().map_or("None".to_owned(), |q| format!("Some({q:?})")),
            r.code,
            rust_revisions(r),
            r.enforcement.names().1,
            r.enforcement.text()
        );
    }
    s.push_str("];\n");
    s
}

fn level_variant(level: &str) -> &'static str {
    LEVELS.iter().find(|(name, _)| *name == level).map_or("Choice", |(_, v)| v)
}

/// The `[[rule.revision]]` entries as `AtRevisions` literals.
fn rust_revisions(r: &Rule) -> String {
    let entries: Vec<String> = r
        .revisions
        .iter()
        .map(|e| {
            let clause = match &e.at {
                Err(_) => "None".to_owned(),
                Ok(c) => format!(
                    "Some(Clause {{ level: Level::{}, quote: Some({:?}), source: {:?}, code: {:?} }})",
                    level_variant(&c.level),
                    c.quote,
                    c.source,
                    c.code
                ),
            };
            format!("\n            AtRevisions {{ revisions: &{:?}, clause: {clause} }},", e.revisions)
        })
        .collect();
    if entries.is_empty() {
        String::new()
    } else {
        format!("{}\n        ", entries.concat())
    }
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

/// Where a clause's page is at `revision`.
fn page_url(page: &str, revision: &str) -> Option<String> {
    match page {
        JSON_RPC => Some(JSON_RPC_URL.to_owned()),
        p if p == "mcpgen" || p.starts_with("ext-") => None,
        p => match p.strip_prefix("schema.json") {
            Some(def) => Some(format!(
                "https://modelcontextprotocol.io/specification/{revision}/schema{}",
                def.strip_prefix("#/$defs/").map(|d| format!("#{}", d.to_ascii_lowercase())).unwrap_or_default()
            )),
            None => Some(format!("https://modelcontextprotocol.io/specification/{revision}/{p}")),
        },
    }
}

/// `LEVEL “quote” (page linked at `revision`, code N)`.
fn clause_text(level: &str, quote: &str, page: &str, code: Option<i64>, revision: &str) -> String {
    let at = match page_url(page, revision) {
        Some(url) => format!("[`{page}`]({url})"),
        None => format!("`{page}`"),
    };
    let code = code.map(|c| format!(", code {c}")).unwrap_or_default();
    format!("{level} “{quote}” ({at}{code})")
}

/// The rule's own clause (at `newest` and every revision not listed), then each revision entry.
/// A rule absent at `newest` (one of the legacy revisions only) links its own clause at the
/// newest revision it holds at.
fn clause_cell(r: &Rule, newest: &str, revisions: &[String]) -> String {
    let named = |rev: &str| r.revisions.iter().any(|e| e.revisions.iter().any(|n| n == rev));
    let own_at = revisions.iter().map(String::as_str).find(|rev| !named(rev)).unwrap_or(newest);
    let own = match &r.clause {
        Some(q) => clause_text(&r.level, q, r.page(), r.code, own_at),
        None => "—".to_owned(),
    };
    let mut parts = vec![own];
    for e in &r.revisions {
        let names = e.revisions.join(", ");
        parts.push(match &e.at {
            Ok(Clause { level, quote, source, code }) => {
                let first = e.revisions.first().map_or(newest, String::as_str);
                format!("{names}: {}", clause_text(level, quote, source, *code, first))
            }
            Err(why) => format!("{names}: absent ({why})"),
        });
    }
    cell(&parts.join("<br>"))
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
    let _ = writeln!(
        s,
        "| clause | the sentence the rule rests on, quoted from the page it links to, with the level and the error code it demands: first at {} and every revision not named after it, then (`<br>`-separated) at the revisions where it differs or does not exist. A finding takes its level from the clause of the revision it was judged under: `MUST`/`MUST NOT` give errors; `SHOULD`, `SHOULD NOT`, `MAY` and `informal` give warnings |",
        c.revisions.first().map_or("the newest revision", String::as_str)
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
    let quoted = c.rules.iter().filter(|r| r.clause.is_some()).count();
    let _ = writeln!(s, "{quoted} rules quote their clause; {} do not yet.\n", c.rules.len() - quoted);
    let newest = c.revisions.first().map_or("2026-07-28", String::as_str);

    for f in &c.families {
        let heading = format!("{}: {}", f.prefix, f.title);
        let n = c.rules.iter().filter(|r| r.family() == f.prefix).count();
        let _ = writeln!(s, "- [{heading}](#{}) ({n})", slug(&heading));
    }
    for f in &c.families {
        let _ = writeln!(s, "\n## {}: {}\n", f.prefix, f.title);
        s.push_str("| id | level | rule | source | clause | mcpgen |\n|---|---|---|---|---|---|\n");
        for r in c.rules.iter().filter(|r| r.family() == f.prefix) {
            let _ = writeln!(
                s,
                "| <a id=\"{}\"></a>{} | {} | {} | {} | {} | {} |",
                r.id.to_ascii_lowercase(),
                r.id,
                r.level,
                cell(&r.summary),
                sources_cell(&r.source),
                clause_cell(r, newest, &c.revisions),
                cell(&r.enforcement.rendered())
            );
        }
    }
    s
}
