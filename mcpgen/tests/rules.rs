//! The rules catalogue is complete: every rule id the project's code, documentation, bindings
//! and test vectors use is in `mcpgen::rules` (generated from `schema/rules.toml`), and
//! `docs/rules.md` says what the table says.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcpgen::rules::{catalogue, lookup, Level};
use regex::Regex;

/// What is scanned, relative to the workspace root: hand-written sources, tests, docs and
/// vectors. Left out: `generated/` and the generated Python modules `mcpgen/rev_*` (rendered
/// from codegen, which is scanned, and from the schema's own prose, which cites SEP and RFC
/// numbers), `docs/rules.md` and `schema/rules.toml` (the catalogue itself; codegen checks the
/// ids its texts mention), and this file, whose fixtures are made-up ids.
const ROOTS: &[&str] = &[
    "README.md",
    "docs",
    "vectors",
    "schema/README.md",
    "schema/errata",
    "mcpgen/src",
    "mcpgen/tests",
    "runtime/src",
    "probe/src",
    "codegen/src",
    "codegen/tests",
    "bindings",
    "xtask/src",
    "oracle/src",
    "oracle/tests",
    "bench/src",
    "bench/benches",
    "fuzz/fuzz_targets",
    "reference/src",
];
const SKIPPED: &[&str] = &["docs/rules.md", "bindings/python/python/mcpgen/rev_", "mcpgen/tests/rules.rs"];
const EXTENSIONS: &[&str] = &["rs", "md", "json", "py", "pyi", "c", "h", "cpp", "go", "sh", "toml", "txt", "in"];

/// `WORD-N` prefixes that name standards, not rules (`UTF-8`, `RFC-5424`, `ECMA-262`, `SEP-2596`).
const NOT_RULES: &[&str] = &["UTF", "RFC", "ISO", "ECMA", "SEP"];
/// Upper-case string literals in the core that are not rule ids (besides the level names).
const NOT_RULE_LITERALS: &[&str] = &["RIFF", "WEBP"];
/// Where every upper-case string literal is taken for a rule id (the code that emits them).
const CORE_SOURCES: &[&str] = &["mcpgen/src/", "runtime/src/"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) {
    if SKIPPED.iter().any(|s| rel.starts_with(s)) {
        return;
    }
    if dir.is_file() {
        if EXTENSIONS.iter().any(|e| rel.ends_with(&format!(".{e}"))) {
            out.push((rel.to_owned(), dir.to_path_buf()));
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "target" || name == "__pycache__" || name.starts_with('.') {
            continue;
        }
        walk(&e.path(), &format!("{rel}/{name}"), out);
    }
}

/// Rule ids in one file's text, with their line numbers.
struct Scanner {
    numbered: Regex,
    policy: Regex,
    literal: Regex,
}

impl Scanner {
    fn new() -> Scanner {
        Scanner {
            // `META-6`, and the continuations `OTEL-1..3`, `ICON-4/5`, `RESULT-2, -5, -6`.
            numbered: Regex::new(r"\b([A-Z]+)-([0-9]+)\b((?:(?:\.\.|/|, -)[0-9]{1,2}\b)*)").unwrap(),
            policy: Regex::new(r"\bPOLICY-[A-Z]+\b").unwrap(),
            literal: Regex::new(r#""([A-Z]{2,}(?:-[A-Z0-9]+)*)""#).unwrap(),
        }
    }

    fn ids(&self, rel: &str, text: &str) -> Vec<(String, usize)> {
        let mut found = Vec::new();
        let core = rel.ends_with(".rs") && CORE_SOURCES.iter().any(|p| rel.starts_with(p));
        for (n, line) in text.lines().enumerate() {
            for c in self.numbered.captures_iter(line) {
                let family = &c[1];
                if NOT_RULES.contains(&family) {
                    continue;
                }
                let mut last: u32 = c[2].parse().unwrap();
                found.push((format!("{family}-{last}"), n + 1));
                let tail = &c[3];
                let mut rest = tail;
                while !rest.is_empty() {
                    let (range, digits) = if let Some(r) = rest.strip_prefix("..") {
                        (true, r)
                    } else {
                        (false, rest.trim_start_matches([',', ' ', '-', '/']))
                    };
                    let end = digits.find(|ch: char| !ch.is_ascii_digit()).unwrap_or(digits.len());
                    let to: u32 = digits[..end].parse().unwrap();
                    let from = if range { last + 1 } else { to };
                    for k in from..=to {
                        found.push((format!("{family}-{k}"), n + 1));
                    }
                    last = to;
                    rest = &digits[end..];
                }
            }
            for m in self.policy.find_iter(line) {
                found.push((m.as_str().to_owned(), n + 1));
            }
            if core {
                for c in self.literal.captures_iter(line) {
                    let lit = &c[1];
                    let standard = NOT_RULES.iter().any(|p| lit.starts_with(&format!("{p}-")));
                    let level = Level::ALL.iter().any(|l| l.as_str() == lit);
                    if !standard && !level && !NOT_RULE_LITERALS.contains(&lit) {
                        found.push((lit.to_owned(), n + 1));
                    }
                }
            }
        }
        if rel.ends_with(".json") {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
                rule_fields(&v, &mut |id| found.push((id.to_owned(), 0)));
            }
        }
        found
    }
}

/// Every upper-case string `rule` member, at any depth (the vectors' expectations; the
/// runners' lower-case `parse` means "did not parse", no rule).
fn rule_fields(v: &serde_json::Value, f: &mut dyn FnMut(&str)) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("rule", serde_json::Value::String(id)) if !id.bytes().any(|b| b.is_ascii_lowercase()) => f(id),
                    _ => rule_fields(x, f),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|x| rule_fields(x, f)),
        _ => {}
    }
}

/// Ids used but missing from the catalogue, each with the places that use it.
fn missing(files: &[(String, String)]) -> BTreeMap<String, Vec<String>> {
    let scanner = Scanner::new();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (rel, text) in files {
        for (id, line) in scanner.ids(rel, text) {
            if lookup(&id).is_none_or(|r| r.id != id) {
                let at = if line == 0 { rel.clone() } else { format!("{rel}:{line}") };
                out.entry(id).or_default().push(at);
            }
        }
    }
    out
}

/// Every scanned file under `roots` (workspace-relative), as (relative path, path).
fn files_under(roots: &[&str]) -> Vec<(String, PathBuf)> {
    let root = root();
    let mut paths = Vec::new();
    for r in roots {
        let r = r.trim_end_matches('/');
        walk(&root.join(r), r, &mut paths);
    }
    paths
}

#[test]
fn every_rule_id_in_use_is_in_the_catalogue() {
    let paths = files_under(ROOTS);
    assert!(paths.len() > 300, "only {} files scanned: is the workspace root right?", paths.len());
    let files: Vec<(String, String)> =
        paths.into_iter().filter_map(|(rel, p)| std::fs::read_to_string(p).ok().map(|t| (rel, t))).collect();
    let gaps = missing(&files);
    if !gaps.is_empty() {
        let lines: Vec<String> = gaps
            .iter()
            .map(|(id, places)| {
                let more = if places.len() > 3 { format!(" and {} more", places.len() - 3) } else { String::new() };
                format!("  {id}: {}{more}", places[..places.len().min(3)].join(", "))
            })
            .collect();
        panic!(
            "{} rule id(s) in use but missing from the catalogue:\n{}\nadd them to schema/rules.toml (or fix the id), then run `cargo xtask codegen`",
            gaps.len(),
            lines.join("\n")
        );
    }
}

#[test]
fn the_scan_finds_what_it_should() {
    let files = vec![
        ("vectors/x.json".to_owned(), r#"{"expect": {"errors": [{"rule": "FAKE-RULE"}], "rule": "parse"}}"#.to_owned()),
        (
            "mcpgen/src/x.rs".to_owned(),
            r#"refuse(1, "SCHEMA", "MUST", "NOPE"); // META-6, OTEL-1..3, FAKE-2/4, UTF-8"#.to_owned(),
        ),
        ("docs/x.md".to_owned(), "RESULT-2, -5, -99; POLICY-LAX; \"NOTCORE\"; RFC-5424 ECMA-262 xFAKE-9".to_owned()),
    ];
    let gaps = missing(&files);
    let ids: Vec<&str> = gaps.keys().map(String::as_str).collect();
    assert_eq!(ids, ["FAKE-2", "FAKE-4", "FAKE-RULE", "NOPE", "POLICY-LAX", "RESULT-99"]);
    assert_eq!(gaps["FAKE-RULE"], ["vectors/x.json"]);
    assert_eq!(gaps["NOPE"], ["mcpgen/src/x.rs:1"]);
}

/// `docs/rules.md` (generated by codegen) renders each rule as the table and the runtime's
/// `Display` do.
#[test]
fn the_document_agrees_with_the_table() {
    let doc = std::fs::read_to_string(root().join("docs/rules.md")).unwrap();
    for r in catalogue() {
        let row = format!(
            "| <a id=\"{}\"></a>{} | {} | {} |",
            r.id.to_ascii_lowercase(),
            r.id,
            r.level,
            r.summary.replace('|', "\\|")
        );
        assert!(doc.contains(&row), "docs/rules.md lacks the row start {row:?}; run `cargo xtask codegen`");
        let enforced = format!(" | {} |\n", r.enforcement.to_string().replace('|', "\\|"));
        assert!(doc.contains(&enforced), "docs/rules.md lacks {enforced:?} for {}", r.id);
    }
    assert!(doc.contains(&format!("\n{} rules. ", catalogue().len())));
}

/// Sources naming a schema definition name one the newest revision has.
#[test]
fn schema_sources_name_real_definitions() {
    let Some(rev) = mcpgen::Revision::parse("2026-07-28") else { return };
    for r in catalogue() {
        for part in r.source.split(", ") {
            if let Some(name) = part.strip_prefix("schema.json#/$defs/") {
                assert!(rev.definition(name).is_some(), "{}: revision {rev} has no definition {name}", r.id);
            }
        }
    }
}

#[test]
fn json_form_has_the_eight_members() {
    let v = lookup("META-6").unwrap().to_value();
    let keys: Vec<&str> = v.as_object().unwrap().iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["id", "level", "summary", "source", "clause", "code", "revisions", "enforced"]);
    let res = lookup("RES-1").unwrap().to_value();
    let legacy = &res.get("revisions").unwrap().as_array().unwrap()[0];
    assert_eq!(legacy.get("level").and_then(|l| l.as_str()), Some("SHOULD"));
    assert_eq!(legacy.get("code"), Some(&mcpgen::Value::Number((-32002i64).into())));
    let stateful = lookup("CANCEL-4").unwrap().to_value();
    assert!(stateful.get("enforced").unwrap().as_str().unwrap().starts_with("not judgeable from one message: "));
}

/// Core files whose code still spells rule ids as string literals, with the reason; the lint
/// below skips them (a listed prefix that matches no offending file fails it: remove it).
const LITERAL_IDS_PENDING: &[(&str, &str)] = &[];

/// `line` without a trailing `//` comment (one outside a string literal).
fn code_part(line: &str) -> &str {
    let (mut in_string, mut escaped) = (false, false);
    for (i, b) in line.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'/' if !in_string && line[i + 1..].starts_with('/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The rule ids a core source's code (not its comments, not its `#[cfg(test)]` module) spells as
/// string literals, with line numbers.
fn literal_ids(text: &str) -> Vec<(usize, String)> {
    let literal = Regex::new(r#""([A-Z]+(?:-[A-Z0-9]+)*)""#).unwrap();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        for c in literal.captures_iter(code_part(line)) {
            if lookup(&c[1]).is_some_and(|r| r.id == &c[1]) {
                out.push((n + 1, c[1].to_owned()));
            }
        }
    }
    out
}

/// Core code names a rule through `mcpgen::rules::id` (generated from `schema/rules.toml`), so
/// a mistyped id is a compile error rather than a finding no one can look up.
#[test]
fn core_code_names_rule_ids_through_the_constants() {
    let paths = files_under(CORE_SOURCES);
    let mut offences = Vec::new();
    let mut pending_used = vec![false; LITERAL_IDS_PENDING.len()];
    for (rel, path) in paths.iter().filter(|(rel, _)| rel.ends_with(".rs") && rel != "runtime/src/rules/id.rs") {
        let found = literal_ids(&std::fs::read_to_string(path).unwrap());
        if found.is_empty() {
            continue;
        }
        if let Some(i) = LITERAL_IDS_PENDING.iter().position(|(prefix, _)| rel.starts_with(prefix)) {
            pending_used[i] = true;
            continue;
        }
        offences.extend(
            found
                .into_iter()
                .map(|(line, id)| format!("  {rel}:{line}: \"{id}\" (use rules::id::{})", id.replace('-', "_"))),
        );
    }
    assert!(offences.is_empty(), "rule ids spelled as literals in core code:\n{}", offences.join("\n"));
    for ((prefix, _), used) in LITERAL_IDS_PENDING.iter().zip(pending_used) {
        assert!(used, "{prefix} names no rule id as a literal any more: remove it from LITERAL_IDS_PENDING");
    }
}

#[test]
fn the_literal_id_lint_sees_code_only() {
    let text = "let r = \"MSG-9\"; // \"META-1\"\n/// \"ERR-1\"\nlet u = \"a//b\\\"\"; f(\"ID-1\");\nlet x = \"NOT-A-RULE\";\n#[cfg(test)]\nmod tests { \"CORE-2\" }\n";
    assert_eq!(literal_ids(text), [(1, "MSG-9".to_owned()), (3, "ID-1".to_owned())]);
}
