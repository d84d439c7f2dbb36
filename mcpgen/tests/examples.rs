//! Data-driven tests: every official example of the 2026-07-28 schema, and every project
//! vector in `vectors/`, one test each.
//!
//! Official examples: `schema/2026-07-28/examples/<Def>/*.json`, the git-ignored cache that
//! `cargo xtask schema pull` fills and checks against `schema/examples.sha256`. Each must
//! decode as the definition its folder names and re-encode to equal JSON (objects compared as
//! sets of members, numbers by their text). A missing cache fails the run; it is never skipped.

mod support;

use std::path::{Path, PathBuf};
use support::{example_files, expected_example_failures, vector_files};

use libtest_mimic::{Arguments, Failed, Trial};
use mcpgen::json::{Tape, Value};
use mcpgen::{JsonView, Policy, Revision, ToJson};

/// JSON equality with objects as member sets and numbers compared by their text.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_eq(v, w)),
        _ => a == b,
    }
}

fn parse_value(bytes: &[u8]) -> Result<Value, String> {
    Tape::parse_bytes(bytes).map(|t| t.root().to_value()).map_err(|e| e.to_string())
}

/// One official example; `expected`: the examples expected to fail (`decode` in
/// `vectors/official-examples.json`), with the reason.
fn example_trial(def: String, path: PathBuf, expected: &[(String, String)]) -> Trial {
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    let key = format!("{def}/{stem}");
    let expected_failure = expected.iter().find(|(n, _)| *n == key).map(|(_, why)| why.clone());
    Trial::test(format!("example::{def}::{stem}"), move || {
        let outcome = run_example(&def, &path);
        match (outcome, expected_failure) {
            (Ok(()), None) => Ok(()),
            (Err(e), Some(_)) => {
                let _ = e;
                Ok(())
            }
            (Ok(()), Some(why)) => Err(Failed::from(format!(
                "listed as an expected failure ({why}) but passes: remove it from vectors/official-examples.json"
            ))),
            (Err(e), None) => Err(Failed::from(e)),
        }
    })
}

fn run_example(def: &str, path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rev = Revision::parse("2026-07-28").ok_or("revision 2026-07-28 not in this build")?;
    let decoded =
        mcpgen::decode(rev, def, &bytes, Policy::Lossless).map_err(|e| format!("decode as {def} failed:\n{e}"))?;
    let out = decoded.to_json_string();
    let a = parse_value(&bytes)?;
    let b = parse_value(out.as_bytes())?;
    if !json_eq(&a, &b) {
        return Err(format!("re-encoded JSON differs\n input: {}\noutput: {out}", a.to_json_string()));
    }
    // Strict policy: official examples use only declared keys except where the schema is open
    // on purpose; lenient must always decode.
    mcpgen::decode(rev, def, &bytes, Policy::Lenient).map_err(|e| format!("lenient decode failed: {e}"))?;
    Ok(())
}

/// A project vector: see `vectors/README.md` for the format.
fn vector_trial(path: PathBuf) -> Trial {
    let name = format!("vector::{}", path.file_stem().unwrap().to_string_lossy());
    Trial::test(name, move || run_vector(&path).map_err(Failed::from))
}

fn run_vector(path: &Path) -> Result<(), String> {
    let text = std::fs::read(path).map_err(|e| e.to_string())?;
    let tape = Tape::parse_bytes(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let v = tape.root();
    let field = |k: &str| v.get(k).ok_or_else(|| format!("vector lacks `{k}`"));
    let revision = field("revision")?.as_str().ok_or("revision must be a string")?.into_owned();
    let rev = Revision::parse(&revision).ok_or_else(|| format!("revision {revision} not in this build"))?;
    let policy: Policy = match v.get("policy") {
        Some(p) => {
            p.as_str().ok_or("policy must be a string")?.parse().map_err(|e: mcpgen::UnknownPolicy| e.to_string())?
        }
        None => Policy::Lossless,
    };
    let input: Vec<u8> = match (v.get("input"), v.get("input_text")) {
        (Some(i), _) => i.to_value().to_json_vec(),
        (None, Some(t)) => t.as_str().ok_or("input_text must be a string")?.into_owned().into_bytes(),
        _ => return Err("vector needs `input` or `input_text`".into()),
    };
    let decode = field("decode")?;
    let expect = field("expect")?;
    let skip_invalid_items = match decode.get("skip_invalid_items") {
        Some(x) => x.as_bool().ok_or("decode.skip_invalid_items must be a boolean")?,
        None => false,
    };
    let mut skipped: Vec<mcpgen::SkippedItem> = Vec::new();
    let result: Result<(String, String), mcpgen::DecodeError> = if let Some(def) = decode.get("def") {
        let def = def.as_str().ok_or("decode.def must be a string")?;
        mcpgen::decode(rev, &def, &input, policy).map(|d| (def.to_string(), d.to_json_string()))
    } else if let Some(m) = decode.get("result_for_method") {
        let m = m.as_str().ok_or("decode.result_for_method must be a string")?;
        let opts = mcpgen::ResultOptions::method(&m).policy(policy).skip_invalid_items(skip_invalid_items);
        mcpgen::decode_result(rev, &input, &opts).map(|d| {
            skipped = d.skipped;
            (d.variant.to_owned(), d.value.to_json_string())
        })
    } else {
        return Err("decode needs `def` or `result_for_method`".into());
    };
    let want_ok = expect.get("ok").and_then(|x| x.as_bool()).ok_or("expect.ok must be a boolean")?;
    match (result, want_ok) {
        (Ok((variant, out)), true) => {
            if let Some(want) = expect.get("variant") {
                if !want.str_eq(&variant) {
                    return Err(format!("decoded as {variant}, expected {}", want.describe()));
                }
            }
            if let Some(want) = expect.get("output") {
                let got = parse_value(out.as_bytes())?;
                if !json_eq(&got, &want.to_value()) {
                    return Err(format!("output differs\n   got: {out}\nwanted: {}", want.to_value().to_json_string()));
                }
            }
            for key in expect.get("output_contains").map(|x| x.items().collect::<Vec<_>>()).unwrap_or_default() {
                let s = key.as_str().ok_or("output_contains entries must be strings")?;
                if !out.contains(s.as_ref()) {
                    return Err(format!("output lacks {s:?}: {out}"));
                }
            }
            for key in expect.get("output_lacks").map(|x| x.items().collect::<Vec<_>>()).unwrap_or_default() {
                let s = key.as_str().ok_or("output_lacks entries must be strings")?;
                if out.contains(s.as_ref()) {
                    return Err(format!("output should not contain {s:?}: {out}"));
                }
            }
            check_skipped(expect.get("skipped").as_ref(), &skipped, skip_invalid_items)
        }
        (Ok((variant, out)), false) => Err(format!("expected a failure, but it decoded as {variant}: {out}")),
        (Err(e), true) => Err(format!("expected success, got:\n{e}")),
        (Err(e), false) => {
            // The core's entries (`DecodeError::errors`: every failure has at least one), union
            // arms included (the closest arm's error is the one a person reads).
            fn flatten(list: &[mcpgen::ValidationError], out: &mut Vec<mcpgen::ValidationError>) {
                for e in list {
                    out.push(e.clone());
                    for arm in &e.arms {
                        flatten(&arm.errors, out);
                    }
                }
            }
            let mut all_errors = Vec::new();
            flatten(&e.errors(), &mut all_errors);
            let errors = all_errors.as_slice();
            if let Some(want) = expect.get("pointer") {
                if !errors.iter().any(|x| want.str_eq(&x.pointer)) {
                    return Err(format!("expected an error at {}, got {e}", want.describe()));
                }
            }
            if let Some(want) = expect.get("keyword") {
                if !errors.iter().any(|x| want.str_eq(x.keyword)) {
                    return Err(format!("expected keyword {}, got {e}", want.describe()));
                }
            }
            if let Some(want) = expect.get("rule") {
                if !errors.iter().any(|x| x.rule.is_some_and(|r| want.str_eq(r))) {
                    return Err(format!("expected rule {}, got {e}", want.describe()));
                }
            }
            for pattern in expect.get("errors").map(|x| x.items().collect::<Vec<_>>()).unwrap_or_default() {
                if !errors.iter().any(|x| error_matches(&pattern, x)) {
                    return Err(format!("no error matches {}; got {e}", pattern.to_value().to_json_string()));
                }
            }
            if let Some(want) = expect.get("error") {
                if !want.str_eq(e.kind()) {
                    return Err(format!("expected a {} error, got {}: {e}", want.describe(), e.kind()));
                }
            }
            Ok(())
        }
    }
}

/// `expect.errors` patterns: every member given (`pointer`, `keyword`, `rule` — `null` for
/// none —, `message`) holds for the one error.
fn error_matches<'v>(pattern: &impl JsonView<'v>, e: &mcpgen::ValidationError) -> bool {
    let str_is = |k: &str, got: &str| pattern.get(k).is_none_or(|w| w.str_eq(got));
    let rule_is = pattern.get("rule").is_none_or(|w| match e.rule {
        Some(r) => w.str_eq(r),
        None => w.kind() == mcpgen::json::Kind::Null,
    });
    str_is("pointer", &e.pointer) && str_is("keyword", e.keyword) && str_is("message", &e.message) && rule_is
}

/// `expect.skipped`: exactly the skipped items, in order, each `{pointer, errors?}` where every
/// listed error `{pointer?, keyword?}` matches some error of that item. Required when the
/// vector decodes with `skip_invalid_items`, refused otherwise.
fn check_skipped<'v>(
    want: Option<&impl JsonView<'v>>,
    got: &[mcpgen::SkippedItem],
    skip_mode: bool,
) -> Result<(), String> {
    let Some(want) = want else {
        return if skip_mode { Err("a skip_invalid_items vector needs `expect.skipped`".into()) } else { Ok(()) };
    };
    if !skip_mode {
        return Err("`expect.skipped` needs `decode.skip_invalid_items`".into());
    }
    let want: Vec<_> = want.items().collect();
    let got_pointers: Vec<&str> = got.iter().map(|s| s.pointer.as_str()).collect();
    if want.len() != got.len() {
        return Err(format!("expected {} skipped items, got {got_pointers:?}", want.len()));
    }
    for (w, g) in want.iter().zip(got) {
        let p = w.get("pointer").ok_or("expect.skipped entries need `pointer`")?;
        if !p.str_eq(&g.pointer) {
            return Err(format!("expected skipped item {}, got {got_pointers:?}", p.describe()));
        }
        for e in w.get("errors").map(|x| x.items().collect::<Vec<_>>()).unwrap_or_default() {
            let matches = g.errors.iter().any(|x| {
                e.get("pointer").is_none_or(|p| p.str_eq(&x.pointer))
                    && e.get("keyword").is_none_or(|k| k.str_eq(x.keyword))
            });
            if !matches {
                let reasons: Vec<String> = g.errors.iter().map(|x| format!("{x} [{}]", x.keyword)).collect();
                return Err(format!(
                    "{}: no error matches {}; got {reasons:?}",
                    g.pointer,
                    e.to_value().to_json_string()
                ));
            }
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    let expected = expected_example_failures("decode");
    match example_files() {
        Ok(files) => {
            // A listed example the cache lacks is a stale entry (renamed or dropped upstream).
            let keys: Vec<String> =
                files.iter().map(|(def, f)| format!("{def}/{}", f.file_stem().unwrap().to_string_lossy())).collect();
            let stale: Vec<String> = expected.iter().map(|(k, _)| k.clone()).filter(|k| !keys.contains(k)).collect();
            trials.push(Trial::test("example::expected_failures_exist", move || match stale.is_empty() {
                true => Ok(()),
                false => Err(Failed::from(format!(
                    "vectors/official-examples.json lists examples that do not exist: {}",
                    stale.join(", ")
                ))),
            }));
            trials.extend(files.into_iter().map(|(def, f)| example_trial(def, f, &expected)));
        }
        Err(e) => trials.push(Trial::test("example::directory", move || Err(Failed::from(e.clone())))),
    }
    trials.extend(vector_files("decode").into_iter().map(vector_trial));
    libtest_mimic::run(&args, trials).exit();
}
