//! Oracle test: mcpgen's generated validators against the `jsonschema` crate, over the same
//! patched schema (errata applied), on the official examples and a deterministic mutation
//! corpus made from them (see `mcpgen_oracle`). Plain schema semantics on both sides:
//! `Options::default()` (no `resultType` discriminator, lossless policy, formats as
//! annotations) and `jsonschema` with format assertions off.
//!
//! Every message is checked against its definition in every revision that has a definition of
//! that name, and JSON-RPC messages also against the generic `JSONRPCMessage` and the
//! direction unions (`ClientRequest`, …). mcpgen is run twice, on the `serde_json::Value` and
//! on the bytes (tape parser); the two must agree with each other and with the oracle.
//!
//! A disagreement fails the test unless it is in [`EXPECTED`] with its reason; an entry of
//! [`EXPECTED`] that no longer occurs fails the test too (the table cannot go stale).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use mcpgen::{DecodeError, Options, Revision};
use mcpgen_oracle::{corpus, is_request, load_examples, Config, Example, Mutant, Vocabulary};
use serde_json::Value;

/// Disagreements that are expected, with the reason. Matched on revision (`*` = any),
/// definition, and a prefix of the mutation kind and of the mutated pointer.
struct Expected {
    revision: &'static str,
    def: &'static str,
    kind_prefix: &'static str,
    pointer_prefix: &'static str,
    /// What mcpgen says (`true` = valid) where the oracle says the opposite.
    mcpgen_valid: bool,
    reason: &'static str,
}

const EXPECTED: &[Expected] = &[Expected {
    revision: "*",
    def: "*",
    kind_prefix: "dup-key:bad-first:",
    pointer_prefix: "",
    mcpgen_valid: false,
    reason:
        "duplicated member names (RFC 8259 leaves their meaning open): serde_json, and so jsonschema, keeps only the \
             last occurrence; mcpgen decodes the last one too but validates every occurrence, so a wrong-typed earlier \
             duplicate is rejected instead of silently ignored",
}];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `schema/`: the git-ignored cache of `<rev>/schema.json` and `2026-07-28/examples` that
/// `cargo xtask schema pull` fills and checks against the pins (never skipped when missing).
fn inputs_dir() -> Result<PathBuf, String> {
    let dir = workspace().join("schema");
    let missing: Vec<String> = std::iter::once("2026-07-28/examples".to_owned())
        .chain(Revision::ALL.iter().map(|rev| format!("{}/schema.json", rev.as_str())))
        .filter(|rel| !dir.join(rel).exists())
        .collect();
    if missing.is_empty() {
        Ok(dir)
    } else {
        Err(format!(
            "official inputs not found in {}: {}; run `cargo xtask schema pull` (add --from DIR for a mirror)",
            dir.display(),
            missing.join(", ")
        ))
    }
}

/// The patched schema document of a revision (errata ledger applied, as codegen does).
fn patched_schema(cache: &Path, rev: &str) -> Result<Value, String> {
    let path = cache.join(rev).join("schema.json");
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut doc: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let ledger_path = workspace().join("schema/errata").join(format!("{rev}.json"));
    let ledger = std::fs::read(&ledger_path).map_err(|e| format!("{}: {e}", ledger_path.display()))?;
    mcpgen_codegen::errata::apply(rev, &mut doc, &ledger).map_err(|e| e.to_string())?;
    Ok(doc)
}

/// One revision's oracle: a `jsonschema` validator per definition, compiled once.
struct Oracle {
    doc: Value,
    defs_key: &'static str,
    draft: jsonschema::Draft,
    compiled: BTreeMap<String, jsonschema::Validator>,
}

impl Oracle {
    fn new(doc: Value) -> Result<Oracle, String> {
        let dialect = doc.get("$schema").and_then(Value::as_str).unwrap_or("");
        let (defs_key, draft) = if dialect.contains("2020-12") {
            ("$defs", jsonschema::Draft::Draft202012)
        } else if dialect.contains("draft-07") {
            ("definitions", jsonschema::Draft::Draft7)
        } else {
            return Err(format!("unexpected dialect {dialect}"));
        };
        Ok(Oracle { doc, defs_key, draft, compiled: BTreeMap::new() })
    }

    fn has(&self, def: &str) -> bool {
        self.doc.get(self.defs_key).and_then(|d| d.get(def)).is_some()
    }

    /// `{"allOf": [{"$ref": "#/<defs>/D"}], "<defs>": …}`: the wrapper keeps `$ref` alone in its
    /// schema, which draft-07 requires (siblings of `$ref` are ignored there).
    fn validator(&mut self, def: &str) -> Result<&jsonschema::Validator, String> {
        if !self.compiled.contains_key(def) {
            let mut root = serde_json::Map::new();
            root.insert("$schema".into(), self.doc["$schema"].clone());
            root.insert("allOf".into(), serde_json::json!([{ "$ref": format!("#/{}/{}", self.defs_key, def) }]));
            root.insert(self.defs_key.into(), self.doc[self.defs_key].clone());
            let v = jsonschema::options()
                .with_draft(self.draft)
                .should_validate_formats(false)
                .build(&Value::Object(root))
                .map_err(|e| format!("jsonschema cannot compile {def}: {e}"))?;
            self.compiled.insert(def.to_owned(), v);
        }
        Ok(&self.compiled[def])
    }
}

/// Definitions a message is also checked against, besides its own.
fn also_against(v: &Value) -> Vec<&'static str> {
    let Some(m) = v.as_object() else { return Vec::new() };
    let mut out = Vec::new();
    if m.contains_key("jsonrpc") {
        out.push("JSONRPCMessage");
    }
    match (m.contains_key("method"), m.contains_key("id")) {
        (true, true) => out.extend(["ClientRequest", "ServerRequest"]),
        (true, false) => out.extend(["ClientNotification", "ServerNotification"]),
        _ => {}
    }
    out
}

#[derive(Default)]
struct Stats {
    messages: usize,
    validations: usize,
    valid: usize,
    invalid: usize,
    disagreements: Vec<String>,
    expected_hits: Vec<usize>,
    /// Invalid validations whose jsonschema errors (leaves, through `anyOf`) all come from one
    /// keyword: evidence that a check of that keyword missing from mcpgen would be caught.
    sole_cause: BTreeMap<&'static str, usize>,
    /// Invalid validations where a union (`anyOf`) rejected the instance.
    union_rejections: usize,
    used_keywords: std::collections::BTreeSet<String>,
    /// Valid messages decoded (lossless) and re-encoded to equal JSON.
    round_trips: usize,
    /// Valid messages that decoding refuses through the `resultType` discriminator (RESULT-6).
    discriminated: usize,
}

/// Validation keywords whose failure the corpus must isolate, when the schema uses them.
const ASSERTED_KEYWORDS: &[&str] = &["type", "const", "enum", "required", "minimum", "maximum", "maxItems"];

/// Leaf keywords of a jsonschema error (through `anyOf` contexts); records whether a union failed.
fn leaf_keywords(e: &jsonschema::ValidationError<'_>, out: &mut std::collections::BTreeSet<String>, union: &mut bool) {
    match e.kind() {
        jsonschema::error::ValidationErrorKind::AnyOf { context } => {
            *union = true;
            for arm in context {
                for inner in arm {
                    leaf_keywords(inner, out, union);
                }
            }
        }
        k => {
            out.insert(k.keyword().to_owned());
        }
    }
}

/// Keywords a schema document uses (keys of schema objects, not property names).
fn schema_keywords(doc: &Value) -> std::collections::BTreeSet<String> {
    fn walk(v: &Value, in_props: bool, out: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if !in_props {
                        out.insert(k.clone());
                    }
                    walk(x, !in_props && matches!(k.as_str(), "properties" | "$defs" | "definitions"), out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, false, out)),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(doc, false, &mut out);
    out
}

/// What mcpgen says on the bytes (tape parser) and, unless the wire text carries duplicated
/// keys that `serde_json` folds, on the `serde_json::Value` too; an internal error is a failure.
fn mcpgen_verdict(rev: Revision, def: &str, v: &Value, bytes: &[u8], same_views: bool) -> Result<bool, String> {
    let opts = Options::default();
    let on_value = mcpgen::validate_view(rev, def, &v, opts);
    let on_bytes = mcpgen::validate(rev, def, bytes, opts);
    let verdict = |r: &Result<(), DecodeError>| match r {
        Ok(()) => Ok(true),
        Err(DecodeError::Invalid(errors)) if !errors.is_empty() => Ok(false),
        Err(e) => Err(format!("mcpgen failed instead of judging: {e}")),
    };
    let a = verdict(&on_value)?;
    let b = verdict(&on_bytes)?;
    if a != b && same_views {
        return Err(format!(
            "mcpgen disagrees with itself: serde_json view says valid={a}, tape (bytes) says valid={b}"
        ));
    }
    Ok(b)
}

/// A message both validators accept decodes losslessly and re-encodes to equal JSON; `false`
/// when decoding refuses it through the `resultType` discriminator, which plain schema
/// validation does not apply (RESULT-6).
fn round_trip(rev: Revision, def: &str, v: &Value, bytes: &[u8]) -> Result<bool, String> {
    match mcpgen::decode(rev, def, bytes, mcpgen::Policy::Lossless) {
        Ok(d) => {
            let out = d.to_json_string();
            let back: Value = serde_json::from_str(&out)
                .map_err(|e| format!("decoded value re-encodes to invalid JSON ({e}): {out}"))?;
            if !same_json(&back, v, false) {
                return Err(format!("lossless decode does not round-trip: re-encoded as {out}"));
            }
            Ok(true)
        }
        Err(DecodeError::Invalid(_))
            if mcpgen::validate(rev, def, bytes, Options::default().discriminate_results(true)).is_err() =>
        {
            Ok(false)
        }
        Err(e) => Err(format!("valid for the schema but decode fails: {e}")),
    }
}

/// JSON equality (objects as member sets); numbers compare as `serde_json` reads them, except
/// under `code`, where an integer const (error codes) re-encodes canonically: `-32602.0` is
/// accepted as the constant `-32602` (JSON Schema compares numbers by value) and written back
/// as `-32602`, since a literal type has exactly one spelling.
fn same_json(a: &Value, b: &Value, under_code: bool) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if under_code => x.as_f64() == y.as_f64(),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w, k == "code")))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_json(v, w, false))
        }
        _ => a == b,
    }
}

fn run_revision(rev_name: &str, cache: &Path, corpus: &[Mutant], stats_out: &mut Stats) -> Result<(), String> {
    let rev = Revision::parse(rev_name).ok_or_else(|| format!("revision {rev_name} not in this build"))?;
    let mut oracle = Oracle::new(patched_schema(cache, rev_name)?)?;
    let st = stats_out;
    st.used_keywords = schema_keywords(&oracle.doc);
    st.expected_hits = vec![0; EXPECTED.len()];
    for m in corpus {
        if !oracle.has(&m.def) {
            continue;
        }
        st.messages += 1;
        let bytes = m.wire();
        let mut defs = vec![m.def.as_str()];
        if m.kind == "original" || !m.kind.starts_with("as:") {
            defs.extend(also_against(&m.value).into_iter().filter(|d| oracle.has(d)));
        }
        for def in defs {
            st.validations += 1;
            let want = oracle.validator(def)?.is_valid(&m.value);
            if want {
                st.valid += 1;
            } else {
                st.invalid += 1;
                let mut leaves = std::collections::BTreeSet::new();
                let mut union = false;
                for e in oracle.validator(def)?.iter_errors(&m.value) {
                    leaf_keywords(&e, &mut leaves, &mut union);
                }
                st.union_rejections += usize::from(union);
                if leaves.len() == 1 {
                    if let Some(k) = ASSERTED_KEYWORDS.iter().find(|k| leaves.contains(**k)) {
                        *st.sole_cause.entry(k).or_default() += 1;
                    }
                }
            }
            let got = match mcpgen_verdict(rev, def, &m.value, &bytes, !m.kind.starts_with("dup-key")) {
                Ok(g) => g,
                Err(e) => {
                    st.disagreements.push(format!(
                        "{rev_name} {def} [{} at {:?} from {}]: {e}\n  instance: {}",
                        m.kind, m.pointer, m.origin, m.value
                    ));
                    continue;
                }
            };
            if got == want {
                if got && !m.kind.starts_with("dup-key") {
                    match round_trip(rev, def, &m.value, &bytes) {
                        Ok(true) => st.round_trips += 1,
                        Ok(false) => st.discriminated += 1,
                        Err(e) => st.disagreements.push(format!(
                            "{rev_name} {def} [{} at {:?} from {}]: {e}\n  instance: {}",
                            m.kind,
                            m.pointer,
                            m.origin,
                            String::from_utf8_lossy(&bytes)
                        )),
                    }
                }
                continue;
            }
            let hit = EXPECTED.iter().position(|x| {
                (x.revision == "*" || x.revision == rev_name)
                    && (x.def == "*" || x.def == def)
                    && m.kind.starts_with(x.kind_prefix)
                    && m.pointer.starts_with(x.pointer_prefix)
                    && x.mcpgen_valid == got
            });
            if let Some(i) = hit {
                st.expected_hits[i] += 1;
                continue;
            }
            let detail = if got {
                let errs = oracle
                    .validator(def)?
                    .iter_errors(&m.value)
                    .map(|e| format!("{} at {}", e, e.instance_path()))
                    .take(3)
                    .collect::<Vec<_>>();
                format!("jsonschema rejects: {}", errs.join("; "))
            } else {
                match mcpgen::validate(rev, def, &bytes, Options::default()) {
                    Err(e) => format!("mcpgen rejects: {e}"),
                    Ok(()) => "mcpgen rejects".into(),
                }
            };
            st.disagreements.push(format!(
                "{rev_name} {def} [{} at {:?} from {}]: mcpgen valid={got}, jsonschema valid={want}; {detail}\n  instance: {}",
                m.kind,
                m.pointer,
                m.origin,
                String::from_utf8_lossy(&bytes)
            ));
        }
    }
    Ok(())
}

fn report(rev: &str, st: &Stats) -> Result<(), Failed> {
    println!(
        "oracle {rev}: {} messages, {} validations ({} valid, {} invalid per jsonschema), {} unexpected disagreements, {} expected",
        st.messages,
        st.validations,
        st.valid,
        st.invalid,
        st.disagreements.len(),
        st.expected_hits.iter().sum::<usize>()
    );
    println!(
        "oracle {rev}: {} valid messages decoded and re-encoded to equal JSON, {} refused by the resultType discriminator",
        st.round_trips, st.discriminated
    );
    println!(
        "oracle {rev}: invalid by one keyword alone: {}; rejected by a union: {}",
        st.sole_cause.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", "),
        st.union_rejections
    );
    let mut problems = Vec::new();
    for k in ASSERTED_KEYWORDS {
        if st.used_keywords.contains(*k) && !st.sole_cause.contains_key(k) {
            problems.push(format!(
                "the corpus never isolates a `{k}` failure, though the schema uses `{k}`: add a mutation operator"
            ));
        }
    }
    if st.used_keywords.contains("anyOf") && st.union_rejections == 0 {
        problems.push("the corpus never makes a union reject".to_owned());
    }
    if st.messages == 0 {
        problems.push("no message was checked".to_owned());
    }
    if !st.disagreements.is_empty() {
        let shown: Vec<&String> = st.disagreements.iter().take(25).collect();
        problems.push(format!(
            "{} disagreement(s) with jsonschema (first {}):\n{}",
            st.disagreements.len(),
            shown.len(),
            shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
        ));
    }
    for (i, x) in EXPECTED.iter().enumerate() {
        if (x.revision == "*" || x.revision == rev) && st.expected_hits[i] == 0 {
            problems.push(format!(
                "expected disagreement no longer occurs, remove it: {} {} {} ({})",
                x.revision, x.def, x.kind_prefix, x.reason
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// The claim: the generic envelope accepts many invalid requests. Counts the request
/// mutants of 2026-07-28 that are invalid for their own definition (per jsonschema) and how
/// many of them the generic `JSONRPCMessage` still accepts (per jsonschema and per mcpgen).
fn generic_claim(cache: &Path, corpus: &[Mutant], examples: &[Example]) -> Result<(), Failed> {
    let rev = Revision::parse("2026-07-28").ok_or("2026-07-28 not in this build")?;
    let mut oracle = Oracle::new(patched_schema(cache, "2026-07-28")?)?;
    let request_defs: Vec<&str> = examples.iter().filter(|e| is_request(&e.value)).map(|e| e.def.as_str()).collect();
    let (mut invalid, mut generic_oracle, mut generic_mcpgen) = (0usize, 0usize, 0usize);
    for m in corpus.iter().filter(|m| !m.kind.starts_with("as:") && request_defs.contains(&m.def.as_str())) {
        if oracle.validator(&m.def)?.is_valid(&m.value) {
            continue;
        }
        invalid += 1;
        if oracle.validator("JSONRPCMessage")?.is_valid(&m.value) {
            generic_oracle += 1;
        }
        if mcpgen::validate_view(rev, "JSONRPCMessage", &&m.value, Options::default()).is_ok() {
            generic_mcpgen += 1;
        }
    }
    println!(
        "generic JSONRPCMessage (2026-07-28) accepts {generic_oracle} of {invalid} invalid request mutants per jsonschema ({:.1}%), {generic_mcpgen} per mcpgen",
        100.0 * generic_oracle as f64 / invalid.max(1) as f64
    );
    if invalid == 0 || generic_oracle == 0 || generic_oracle >= invalid || generic_oracle != generic_mcpgen {
        return Err(format!("implausible counts: invalid={invalid}, generic jsonschema={generic_oracle}, generic mcpgen={generic_mcpgen}").into());
    }
    Ok(())
}

/// Instances of the 2026-07-28 definitions that have no official example: up to
/// [`DERIVED_PER_DEF`] distinct nodes of the examples that jsonschema accepts for each (chosen
/// with the corpus seed), so that their mutants reach every definition, not only through the
/// definitions that hold them.
const DERIVED_PER_DEF: usize = 3;

fn derive_examples(cache: &Path, examples: &[Example]) -> Result<Vec<Example>, String> {
    let mut oracle = Oracle::new(patched_schema(cache, "2026-07-28")?)?;
    let with_examples: std::collections::BTreeSet<&str> = examples.iter().map(|e| e.def.as_str()).collect();
    let defs: Vec<String> =
        oracle.doc[oracle.defs_key].as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
    let candidates = mcpgen_oracle::distinct_nodes(examples);
    let mut rng = mcpgen_oracle::Rng::new(Config::default().seed ^ 0x0de7_17ed);
    let mut out = Vec::new();
    for def in defs.iter().filter(|d| !with_examples.contains(d.as_str())) {
        let v = oracle.validator(def)?;
        let matching: Vec<&(String, Value)> = candidates.iter().filter(|(_, n)| v.is_valid(n)).collect();
        for (at, node) in rng.pick(&matching, DERIVED_PER_DEF) {
            out.push(Example { def: def.clone(), name: format!("derived@{at}"), value: node.clone(), raw: None });
        }
    }
    Ok(out)
}

fn main() {
    let args = Arguments::from_args();
    let setup = (|| -> Result<(PathBuf, Vec<Example>, Vec<Mutant>), String> {
        let cache = inputs_dir()?;
        let examples = load_examples(&cache.join("2026-07-28/examples"))?;
        let mut voc = Vocabulary::default();
        for rev in Revision::ALL {
            voc.add_schema(&patched_schema(&cache, rev.as_str())?);
        }
        for e in &examples {
            voc.add_example(&format!("{}/{}", e.def, e.name), &e.value);
        }
        let derived = derive_examples(&cache, &examples)?;
        let official = examples.len();
        let mut all = examples.clone();
        all.extend(derived);
        let corpus = corpus(&all, &voc, &Config::default());
        let originals = corpus.iter().filter(|m| m.kind == "original").count();
        println!(
            "oracle corpus: {} messages ({official} official examples, {} instances of {} more definitions found inside them, {} mutants)",
            corpus.len(),
            originals - official,
            all[official..].iter().map(|e| &e.def).collect::<std::collections::BTreeSet<_>>().len(),
            corpus.len() - originals
        );
        Ok((cache, examples, corpus))
    })();
    let trials = match setup {
        Err(e) => vec![Trial::test("oracle::setup", move || Err(e.clone().into()))],
        Ok((cache, examples, corpus)) => {
            let shared = Arc::new((cache, examples, corpus));
            let mut trials: Vec<Trial> = Revision::ALL
                .iter()
                .map(|rev| {
                    let rev = rev.as_str();
                    let s = Arc::clone(&shared);
                    Trial::test(format!("oracle::{rev}"), move || {
                        let mut st = Stats::default();
                        run_revision(rev, &s.0, &s.2, &mut st)?;
                        report(rev, &st)
                    })
                })
                .collect();
            let s = Arc::clone(&shared);
            trials.push(Trial::test("oracle::generic-envelope-claim", move || generic_claim(&s.0, &s.2, &s.1)));
            trials
        }
    };
    libtest_mimic::run(&args, trials).exit();
}
