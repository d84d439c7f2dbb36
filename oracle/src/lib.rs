//! A deterministic mutation corpus built from the official MCP examples, for oracle testing.
//!
//! The corpus is a pure function of the examples, the schema (for `const`/`enum` vocabularies)
//! and a fixed seed: systematic enumeration of every mutation operator at every node, plus a
//! seeded sample of value swaps and double mutations (a local splitmix64 generator; no OS
//! entropy). The `oracle` test compares mcpgen's generated validators with the `jsonschema`
//! crate over it.
//!
//! Mutation operators (the `kind` of a [`Mutant`]):
//! - `original`: the example itself;
//! - `type:<kind>`: the node replaced by a value of another JSON kind (string, integer,
//!   fraction, boolean, null, array, object);
//! - `drop:<key>`: an object member removed (required fields, union tags, `_meta`…);
//! - `add-key`, `add-meta`, `empty-object`: an undeclared member, a `_meta` member, `{}`;
//! - `empty-array`, `dup-item`, `grow`, `append-wrong`: arrays emptied, lengthened (past
//!   `maxItems`), or given an item of the wrong kind;
//! - `str-empty`, `str-other`, `vocab`: strings emptied, changed, or swapped for another value
//!   the same key takes elsewhere (another `method`, content `type`, `jsonrpc` version, enum
//!   member…), which is how wrong union arms and broken consts are produced;
//! - `number`: boundary numbers (0, -1, 1, 1.0, 1.0000001, -0.5, 2^53+1, 2^64, -2^63-1, 1e300…)
//!   and, under `code`, every error code the schema names (also as `-32602.0`);
//! - `bool-flip`;
//! - `swap`: a value replaced by one another example holds under the same key (content blocks
//!   of other types, other `params`, other results…);
//! - `double`: two seeded mutations applied one after the other;
//! - `as:<Def>`: an example validated as another definition (whole-message wrong arm);
//! - wire-text mutations, which `serde_json` reads as the same value: `escape-string` and
//!   `escape-key:<k>` (a `\uXXXX` escape and `\/`), `lexeme:<text>` (`1e2`, `-0`, `1.0e0`…), and
//!   `dup-key:bad-first:<k>` / `dup-key:bad-last:<k>` (a member repeated with a wrong-kind
//!   value before or after it; `serde_json` keeps the last).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mcpgen_runtime::json::pointer::{escape, unescape};
use serde_json::{json, Map, Value};

mod single;

use self::single::single_mutants;

/// One official example: the definition it is an instance of, its file stem, its value.
#[derive(Clone, Debug)]
pub struct Example {
    pub def: String,
    pub name: String,
    pub value: Value,
    /// The file's bytes for an official example; `None` for an instance derived from one.
    pub raw: Option<Vec<u8>>,
}

/// One corpus message: validated against `def`.
#[derive(Clone, Debug)]
pub struct Mutant {
    /// Definition to validate against.
    pub def: String,
    /// `<Def>/<example>` the message was made from.
    pub origin: String,
    /// Mutation operator (see the module docs).
    pub kind: String,
    /// JSON pointer of the mutated node (`""` for the root / whole-message mutations).
    pub pointer: String,
    /// The message as `serde_json` reads it (for duplicated keys: the last one wins).
    pub value: Value,
    /// The exact wire text when it says more than `value` (escapes, number lexemes,
    /// duplicated keys); `None` means the compact serialization of `value`.
    pub bytes: Option<Vec<u8>>,
}

impl Mutant {
    /// The wire text of the message.
    pub fn wire(&self) -> Vec<u8> {
        match &self.bytes {
            Some(b) => b.clone(),
            None => serde_json::to_vec(&self.value).unwrap_or_default(),
        }
    }
}

/// Reads `<dir>/<Def>/*.json`, sorted by definition then file name.
pub fn load_examples(dir: &Path) -> Result<Vec<Example>, String> {
    let mut out = Vec::new();
    let mut defs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    defs.sort();
    for d in defs {
        let def = d.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .map_err(|e| format!("{}: {e}", d.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            let bytes = std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            let value: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", f.display()))?;
            let name = f.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            out.push(Example { def: def.clone(), name, value, raw: Some(bytes) });
        }
    }
    Ok(out)
}

/// splitmix64: a tiny, well-mixed, seedable generator (deterministic across platforms).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Up to `k` distinct elements of `items`, in a seeded order.
    pub fn pick<T: Clone>(&mut self, items: &[T], k: usize) -> Vec<T> {
        let mut idx: Vec<usize> = (0..items.len()).collect();
        let k = k.min(idx.len());
        for i in 0..k {
            let j = i + self.below(idx.len() - i);
            idx.swap(i, j);
        }
        idx[..k].iter().map(|&i| items[i].clone()).collect()
    }
}

/// Values seen under each key: from the examples (strings, numbers, whole values) and from the
/// schema (`const` and `enum` members of properties with that name).
#[derive(Default, Debug)]
pub struct Vocabulary {
    /// Scalar strings per key (`method` → every method name…).
    pub strings: BTreeMap<String, BTreeSet<String>>,
    /// Integer consts per key (`code` → error codes).
    pub ints: BTreeMap<String, BTreeSet<i64>>,
    /// Whole values per key (`content` → every content array; `content[]` → every block).
    pub values: BTreeMap<String, Vec<(String, Value)>>,
}

impl Vocabulary {
    /// Collects `const`/`enum` values under `properties/<key>` anywhere in each schema document.
    pub fn add_schema(&mut self, schema: &Value) {
        fn walk(v: &Value, voc: &mut Vocabulary) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::Object(props)) = m.get("properties") {
                        for (k, p) in props {
                            collect_consts(k, p, voc);
                        }
                    }
                    for x in m.values() {
                        walk(x, voc);
                    }
                }
                Value::Array(a) => a.iter().for_each(|x| walk(x, voc)),
                _ => {}
            }
        }
        fn collect_consts(key: &str, p: &Value, voc: &mut Vocabulary) {
            match p.get("const") {
                Some(Value::String(s)) => {
                    voc.strings.entry(key.to_owned()).or_default().insert(s.clone());
                }
                Some(Value::Number(n)) => {
                    if let Some(i) = n.as_i64() {
                        voc.ints.entry(key.to_owned()).or_default().insert(i);
                    }
                }
                _ => {}
            }
            if let Some(Value::Array(vals)) = p.get("enum") {
                for s in vals.iter().filter_map(Value::as_str) {
                    voc.strings.entry(key.to_owned()).or_default().insert(s.to_owned());
                }
            }
            for k in ["allOf", "anyOf"] {
                if let Some(Value::Array(parts)) = p.get(k) {
                    parts.iter().for_each(|x| collect_consts(key, x, voc));
                }
            }
        }
        walk(schema, self);
    }

    /// Collects values from an example.
    pub fn add_example(&mut self, origin: &str, v: &Value) {
        fn walk(origin: &str, key: Option<&str>, v: &Value, voc: &mut Vocabulary) {
            if let Some(k) = key {
                voc.values.entry(k.to_owned()).or_default().push((origin.to_owned(), v.clone()));
                if let Value::String(s) = v {
                    voc.strings.entry(k.to_owned()).or_default().insert(s.clone());
                }
            }
            match v {
                Value::Object(m) => {
                    for (k, x) in m {
                        walk(origin, Some(k), x, voc);
                    }
                }
                Value::Array(a) => {
                    let ik = key.map(|k| format!("{k}[]"));
                    for x in a {
                        walk(origin, ik.as_deref(), x, voc);
                    }
                }
                _ => {}
            }
        }
        walk(origin, None, v, self);
    }
}

/// The replacement values of each JSON kind, by name.
fn kind_samples() -> Vec<(&'static str, Value)> {
    vec![
        ("string", json!("oracle")),
        ("integer", json!(7)),
        ("fraction", json!(2.5)),
        ("boolean", json!(true)),
        ("null", Value::Null),
        ("array", json!([])),
        ("object", json!({})),
    ]
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "fraction",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Boundary numbers, as JSON text so `1.0` stays a float and the big ones keep their size.
pub const BOUNDARY_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "1.0",
    "0.0",
    "-0.0",
    "1.0000001",
    "0.9999999",
    "-0.5",
    "100",
    "101",
    "1e2",
    "9007199254740993",
    "18446744073709551616",
    "-9223372036854775809",
    "1e300",
    "-1e300",
];

fn num(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// Every node of `v`: (pointer, key the node sits under — `k[]` for array items —, node).
fn nodes(v: &Value) -> Vec<(String, Option<String>, &Value)> {
    fn walk<'a>(ptr: String, key: Option<String>, v: &'a Value, out: &mut Vec<(String, Option<String>, &'a Value)>) {
        out.push((ptr.clone(), key.clone(), v));
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    walk(format!("{ptr}/{}", escape(k)), Some(k.clone()), x, out);
                }
            }
            Value::Array(a) => {
                let ik = key.map(|k| format!("{k}[]"));
                for (i, x) in a.iter().enumerate() {
                    walk(format!("{ptr}/{i}"), ik.clone(), x, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(String::new(), None, v, &mut out);
    out
}

/// `root` with the node at `ptr` replaced by `f(node)`; `None` removes a member/item.
fn replace_at(root: &Value, ptr: &str, f: impl FnOnce(&Value) -> Option<Value>) -> Value {
    let mut out = root.clone();
    if ptr.is_empty() {
        return f(root).unwrap_or(Value::Null);
    }
    let (parent, last) = ptr.rsplit_once('/').unwrap_or(("", ptr));
    let last = unescape(last).into_owned();
    let Some(p) = out.pointer_mut(parent) else { return out };
    match p {
        Value::Object(m) => {
            let Some(old) = m.get(&last) else { return out };
            match f(old) {
                Some(new) => {
                    m.insert(last, new);
                }
                None => {
                    m.shift_remove(&last);
                }
            }
        }
        Value::Array(a) => {
            let Ok(i) = last.parse::<usize>() else { return out };
            let Some(old) = a.get(i) else { return out };
            match f(old) {
                Some(new) => a[i] = new,
                None => {
                    a.remove(i);
                }
            }
        }
        _ => {}
    }
    out
}

/// Corpus parameters.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    /// Vocabulary replacements per string node (seeded sample when more are known).
    pub vocab_per_node: usize,
    /// Cross-example swaps per node.
    pub swaps_per_node: usize,
    /// Number of double mutations.
    pub doubles: usize,
    /// Length an array grows to with `grow` (past every `maxItems` in the schemas: 100).
    pub grow_to: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config { seed: 0x6d63_7067_656e_0001, vocab_per_node: 4, swaps_per_node: 2, doubles: 3000, grow_to: 101 }
    }
}

/// Placeholder swapped for raw text after serialization.
const PLACEHOLDER: &str = "\u{1}oracle-raw\u{1}";

/// Number lexemes `serde_json` reads as the same value but the tape keeps as text.
pub const LEXEMES: &[&str] = &[
    "1e2",
    "1E+2",
    "1.0e0",
    "-0",
    "0.10",
    "1.5e1",
    "1e-1",
    "100.00",
    "0e0",
    "-1e-7",
    "12345678901234567890123",
    "-3.2602e4",
    "-32602e0",
];

/// A JSON string literal with its first character as a `\uXXXX` escape and `/` as `\/`.
fn escaped_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in s.chars().enumerate() {
        if i == 0 {
            let mut buf = [0u16; 2];
            for u in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else if c == '/' {
            out.push_str("\\/");
        } else {
            let lit = serde_json::to_string(&c.to_string()).unwrap_or_default();
            out.push_str(&lit[1..lit.len() - 1]);
        }
    }
    out.push('"');
    out
}

/// Rebuilds `m` with member `key` handled by `f(key, value, &mut out)`.
fn rebuild(m: &Map<String, Value>, key: &str, f: impl Fn(&str, &Value, &mut Map<String, Value>)) -> Value {
    let mut out = Map::new();
    for (k, v) in m {
        if k == key {
            f(k, v, &mut out);
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// Mutations of the wire text that `serde_json` reads as an equal (or, for duplicated keys,
/// last-wins) value: escaped strings and keys, number lexemes, duplicated keys.
fn raw_mutants(ex: &Example) -> Vec<Mutant> {
    let origin = format!("{}/{}", ex.def, ex.name);
    let root = &ex.value;
    let ph_json = serde_json::to_string(PLACEHOLDER).unwrap_or_default();
    let mut out = Vec::new();
    let mut push = |kind: String, pointer: &str, with_ph: Value, replacement: String| {
        let text = serde_json::to_string(&with_ph).unwrap_or_default();
        debug_assert_eq!(text.matches(&ph_json).count(), 1);
        let text = text.replacen(&ph_json, &replacement, 1);
        // Only text serde_json reads (e.g. not 1e400) can be judged by the oracle.
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            out.push(Mutant {
                def: ex.def.clone(),
                origin: origin.clone(),
                kind,
                pointer: pointer.to_owned(),
                value,
                bytes: Some(text.into_bytes()),
            });
        }
    };
    for (ptr, _key, node) in nodes(root) {
        match node {
            Value::String(s) if !s.is_empty() => {
                push(
                    "escape-string".into(),
                    &ptr,
                    replace_at(root, &ptr, |_| Some(json!(PLACEHOLDER))),
                    escaped_literal(s),
                );
            }
            Value::Number(_) => {
                for lx in LEXEMES {
                    push(
                        format!("lexeme:{lx}"),
                        &ptr,
                        replace_at(root, &ptr, |_| Some(json!(PLACEHOLDER))),
                        (*lx).to_owned(),
                    );
                }
            }
            Value::Object(m) => {
                for k in m.keys() {
                    let child = format!("{ptr}/{}", escape(k));
                    let renamed = rebuild(m, k, |_, v, o| {
                        o.insert(PLACEHOLDER.into(), v.clone());
                    });
                    if !k.is_empty() {
                        push(
                            format!("escape-key:{k}"),
                            &child,
                            replace_at(root, &ptr, |_| Some(renamed)),
                            escaped_literal(k),
                        );
                    }
                    let key_lit = serde_json::to_string(k).unwrap_or_default();
                    let bad = if m[k].is_string() { json!(42) } else { json!("oracle") };
                    let first = rebuild(m, k, |k, v, o| {
                        o.insert(PLACEHOLDER.into(), bad.clone());
                        o.insert(k.to_owned(), v.clone());
                    });
                    push(
                        format!("dup-key:bad-first:{k}"),
                        &child,
                        replace_at(root, &ptr, |_| Some(first)),
                        key_lit.clone(),
                    );
                    let last = rebuild(m, k, |k, v, o| {
                        o.insert(k.to_owned(), v.clone());
                        o.insert(PLACEHOLDER.into(), bad.clone());
                    });
                    push(format!("dup-key:bad-last:{k}"), &child, replace_at(root, &ptr, |_| Some(last)), key_lit);
                }
            }
            _ => {}
        }
    }
    out
}

/// The corpus: originals, single mutations, double mutations, and every example read as every
/// other definition that has examples.
pub fn corpus(examples: &[Example], voc: &Vocabulary, cfg: &Config) -> Vec<Mutant> {
    let mut rng = Rng::new(cfg.seed);
    let mut out = Vec::new();
    for ex in examples {
        out.push(Mutant {
            def: ex.def.clone(),
            origin: format!("{}/{}", ex.def, ex.name),
            kind: "original".into(),
            pointer: String::new(),
            value: ex.value.clone(),
            bytes: ex.raw.clone(),
        });
        let singles = single_mutants(ex, voc, cfg, &mut rng);
        out.extend(singles);
    }
    let raw: Vec<Mutant> = examples.iter().flat_map(raw_mutants).collect();
    // Double mutations: two seeded single mutants of the same example at unrelated nodes
    // (neither pointer inside the other), combined.
    let singles: Vec<&Mutant> = out.iter().filter(|m| m.kind != "original").collect();
    let mut by_origin: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, m) in singles.iter().enumerate() {
        by_origin.entry(m.origin.as_str()).or_default().push(i);
    }
    let mut doubles = Vec::new();
    let mut attempts = 0;
    while doubles.len() < cfg.doubles && attempts < cfg.doubles * 10 && !singles.is_empty() {
        attempts += 1;
        let first = singles[rng.below(singles.len())];
        let same = &by_origin[first.origin.as_str()];
        let second = singles[same[rng.below(same.len())]];
        let related = |a: &str, b: &str| a == b || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/"));
        if related(&first.pointer, &second.pointer) {
            continue;
        }
        let replacement = second.value.pointer(&second.pointer).cloned();
        if first.value.pointer(&second.pointer).is_none() {
            continue;
        }
        let value = replace_at(&first.value, &second.pointer, |_| replacement);
        doubles.push(Mutant {
            def: first.def.clone(),
            origin: first.origin.clone(),
            kind: format!("double:{}+{}", first.kind, second.kind),
            pointer: format!("{} {}", first.pointer, second.pointer),
            value,
            bytes: None,
        });
    }
    out.extend(doubles);
    out.extend(raw);
    // Whole-message wrong arm: each official example as every other definition that has
    // examples (official or derived).
    let defs: BTreeSet<&str> = examples.iter().map(|e| e.def.as_str()).collect();
    for ex in examples.iter().filter(|e| e.raw.is_some()) {
        for d in &defs {
            if *d != ex.def {
                out.push(Mutant {
                    def: (*d).to_owned(),
                    origin: format!("{}/{}", ex.def, ex.name),
                    kind: format!("as:{d}"),
                    pointer: String::new(),
                    value: ex.value.clone(),
                    bytes: None,
                });
            }
        }
    }
    // Every fifth message goes over the wire pretty-printed (whitespace for the tape parser).
    for (i, m) in out.iter_mut().enumerate() {
        if i % 5 == 0 && m.bytes.is_none() {
            m.bytes = serde_json::to_vec_pretty(&m.value).ok();
        }
    }
    out
}

/// Every distinct node of the examples (objects, arrays and scalars, roots included) with the
/// `<Def>/<example>#<pointer>` it was first seen at, in a stable order: the candidates for
/// instances of definitions that have no official example.
pub fn distinct_nodes(examples: &[Example]) -> Vec<(String, Value)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for ex in examples {
        for (ptr, _, node) in nodes(&ex.value) {
            if seen.insert(node.to_string()) {
                out.push((format!("{}/{}#{ptr}", ex.def, ex.name), node.clone()));
            }
        }
    }
    out
}

/// `true` when the value is a JSON-RPC request (has `method` and `id`).
pub fn is_request(v: &Value) -> bool {
    let m: Option<&Map<String, Value>> = v.as_object();
    m.is_some_and(|m| m.contains_key("method") && m.contains_key("id") && m.contains_key("jsonrpc"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic() {
        let mut a = Rng::new(1);
        let mut b = Rng::new(1);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_eq!(a.pick(&[1, 2, 3, 4, 5], 3).len(), 3);
    }

    #[test]
    fn mutations_cover_each_operator() {
        let ex = Example {
            def: "X".into(),
            name: "x".into(),
            value: json!({"type": "text", "n": 1, "a": [1], "o": {"k": true}}),
            raw: None,
        };
        let mut voc = Vocabulary::default();
        voc.add_example("X/x", &ex.value);
        voc.strings.entry("type".into()).or_default().insert("image".into());
        let all = corpus(&[ex], &voc, &Config { doubles: 5, ..Config::default() });
        let esc = all.iter().find(|m| m.kind == "escape-key:type").unwrap();
        assert_eq!(esc.value, all[0].value);
        assert!(String::from_utf8_lossy(esc.bytes.as_ref().unwrap()).contains(r#""\u0074ype":"text""#));
        let dup = all.iter().find(|m| m.kind == "dup-key:bad-first:n").unwrap();
        assert!(String::from_utf8_lossy(dup.bytes.as_ref().unwrap()).contains(r#""n":"oracle","n":1"#));
        assert_eq!(dup.value, all[0].value);
        let lx = all.iter().find(|m| m.kind == "lexeme:1e2").unwrap();
        assert!(String::from_utf8_lossy(lx.bytes.as_ref().unwrap()).contains(r#""n":1e2"#));
        let kinds: BTreeSet<String> = all.iter().map(|m| m.kind.split(':').next().unwrap_or("").to_owned()).collect();
        for k in [
            "original",
            "type",
            "drop",
            "add-key",
            "add-meta",
            "empty-object",
            "empty-array",
            "dup-item",
            "grow",
            "append-wrong",
            "str-empty",
            "str-other",
            "vocab",
            "number",
            "bool-flip",
            "double",
            "escape-string",
            "escape-key",
            "lexeme",
            "dup-key",
        ] {
            assert!(kinds.contains(k), "no {k} mutant: {kinds:?}");
        }
        let dropped = all.iter().find(|m| m.kind == "drop:type").unwrap();
        assert_eq!(dropped.value, json!({"n": 1, "a": [1], "o": {"k": true}}));
        let vocab = all.iter().find(|m| m.kind == "vocab").unwrap();
        assert_eq!(vocab.value["type"], json!("image"));
        // Same input, same corpus.
        let again = corpus(
            &[Example { def: "X".into(), name: "x".into(), value: all[0].value.clone(), raw: None }],
            &voc,
            &Config { doubles: 5, ..Config::default() },
        );
        assert_eq!(format!("{:?}", all), format!("{:?}", again));
    }
}
