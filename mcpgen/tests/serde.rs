//! serde both ways against the native decoder, one test per official example and per decode
//! vector (cargo feature `serde`).
//!
//! Each official 2026-07-28 example goes through `serde_json::from_slice::<T>` and
//! `serde_json::from_value::<T>`, and back through `serde_json::to_vec`; every result must
//! equal what the native `mcpgen::decode` + `ToJson` gives (objects as member sets, numbers by
//! value: serde has no number text). Each `vectors/decode` case with a definition runs through
//! serde with its policy (`mcpgen::serde_policy::with_policy`): serde must accept exactly what
//! the native decoder accepts, and refuse with the native decoder's first message and pointer.

mod support;

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use mcpgen::json::{Tape, Value};
use mcpgen::{Decode, JsonView, Policy, Revision, ToJson};
use support::{example_files, vector_files};

/// Examples expected to fail natively (see `examples.rs`); serde must fail on them too.
const NATIVE_FAILURES: &[&str] = &["ReadResourceResultResponse/read-resource-result-response"];

/// JSON equality with objects as member sets and numbers compared by value.
fn json_eq_by_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq_by_value(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_eq_by_value(v, w))
        }
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        _ => a == b,
    }
}

fn parse(bytes: &[u8]) -> Result<Value, String> {
    Tape::parse_bytes(bytes).map(|t| t.root().to_value()).map_err(|e| e.to_string())
}

fn differ(what: &str, a: &Value, b: &Value) -> Result<(), String> {
    if json_eq_by_value(a, b) {
        Ok(())
    } else {
        Err(format!("{what} differ\n  native: {}\n   serde: {}", a.to_json_string(), b.to_json_string()))
    }
}

/// What serde made of one input, for a definition type `T`.
struct SerdeOutcome {
    /// `ToJson` of the value serde deserialized.
    decoded: Value,
    /// `serde_json::to_vec` of that value.
    serialized: Value,
}

/// Through serde with `policy`: from bytes, and (lossless only) from a `serde_json::Value`.
fn through_serde<T: Decode + serde::Serialize + serde::de::DeserializeOwned>(
    bytes: &[u8],
    policy: Policy,
) -> Result<SerdeOutcome, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = mcpgen::serde_policy::with_policy(&mut de, policy).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    if policy == Policy::Lossless {
        // `T::deserialize` is the lossless `with_policy`; and the same from a serde_json::Value.
        let plain: T = serde_json::from_slice(bytes).map_err(|e| format!("from_slice: {e}"))?;
        let tree: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let from_tree: T = serde_json::from_value(tree).map_err(|e| format!("from_value: {e}"))?;
        differ("from_slice and with_policy(lossless)", &parse(&value.to_json_vec())?, &parse(&plain.to_json_vec())?)?;
        differ("from_slice and from_value", &parse(&value.to_json_vec())?, &parse(&from_tree.to_json_vec())?)?;
        let as_tree = serde_json::to_value(&value).map_err(|e| e.to_string())?;
        let via_tree = parse(serde_json::to_string(&as_tree).map_err(|e| e.to_string())?.as_bytes())?;
        differ("to_vec and to_value", &parse(&serde_json::to_vec(&value).map_err(|e| e.to_string())?)?, &via_tree)?;
    }
    let serialized = serde_json::to_vec(&value).map_err(|e| e.to_string())?;
    Ok(SerdeOutcome { decoded: parse(&value.to_json_vec())?, serialized: parse(&serialized)? })
}

/// Aliases of plain types (`InputRequests` is a map of `InputRequest`): serde's impls of the
/// container, the generated decoder on each generated element; lossless only.
fn through_serde_plain<T: ToJson + serde::Serialize + serde::de::DeserializeOwned>(
    bytes: &[u8],
    policy: Policy,
) -> Result<SerdeOutcome, String> {
    if policy != Policy::Lossless {
        return Err(format!("an alias of a plain type has no {policy:?} serde path"));
    }
    let value: T = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let serialized = serde_json::to_vec(&value).map_err(|e| e.to_string())?;
    Ok(SerdeOutcome { decoded: parse(&value.to_json_vec())?, serialized: parse(&serialized)? })
}

type Runner = fn(&[u8], Policy) -> Result<SerdeOutcome, String>;

/// `fn lookup(name) -> Option<Runner>`: the serde runner of each definition of a revision.
macro_rules! lookup_fn {
    ($($name:literal => $how:ident $ty:ty),*) => {
        pub fn lookup(name: &str) -> Option<super::Runner> {
            match name {
                $($name => Some(lookup_fn!(@$how $ty)),)*
                _ => None,
            }
        }
    };
    (@decoded $ty:ty) => { super::through_serde::<$ty> as super::Runner };
    (@plain $ty:ty) => { super::through_serde_plain::<$ty> as super::Runner };
}
mod r2026_07_28 {
    mcpgen::__serde_definitions_rev_2026_07_28!(lookup_fn);
}
mod r2025_11_25 {
    mcpgen::__serde_definitions_rev_2025_11_25!(lookup_fn);
}
mod r2024_11_05 {
    mcpgen::__serde_definitions_rev_2024_11_05!(lookup_fn);
}

fn runner(revision: &str, name: &str) -> Result<Runner, String> {
    let found = match revision {
        "2026-07-28" => r2026_07_28::lookup(name),
        "2025-11-25" => r2025_11_25::lookup(name),
        "2024-11-05" => r2024_11_05::lookup(name),
        other => return Err(format!("no serde runner table for revision {other}: add one")),
    };
    found.ok_or_else(|| format!("{revision} has no generated type with a decoder named {name}"))
}

fn example_trial(def: String, path: PathBuf) -> Trial {
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    let native_fails = NATIVE_FAILURES.contains(&format!("{def}/{stem}").as_str());
    Trial::test(format!("serde::example::{def}::{stem}"), move || {
        run_example(&def, &path, native_fails).map_err(Failed::from)
    })
}

fn run_example(def: &str, path: &Path, native_fails: bool) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rev = Revision::parse("2026-07-28").ok_or("revision 2026-07-28 not in this build")?;
    let native = mcpgen::decode(rev, def, &bytes, Policy::Lossless);
    let serde = runner("2026-07-28", def)?(&bytes, Policy::Lossless);
    match (native, serde) {
        (Ok(native), Ok(serde)) if !native_fails => {
            let native = parse(native.to_json_string().as_bytes())?;
            differ("decoded values", &native, &serde.decoded)?;
            differ("serde's Serialize and ToJson", &native, &serde.serialized)
        }
        (Err(_), Err(_)) if native_fails => Ok(()),
        (native, serde) => Err(format!(
            "native and serde disagree: native {}, serde {}",
            native.map(|_| "accepts".to_owned()).unwrap_or_else(|e| format!("refuses ({e})")),
            serde.map(|_| "accepts".to_owned()).unwrap_or_else(|e| format!("refuses ({e})"))
        )),
    }
}

fn vector_trial(path: PathBuf) -> Trial {
    let name = format!("serde::vector::{}", path.file_stem().unwrap().to_string_lossy());
    // Read the case up front: cases serde cannot express are listed as ignored, with the reason
    // in the test name, never dropped.
    match not_applicable(&path) {
        Ok(Some(why)) => Trial::test(format!("{name} (not through serde: {why})"), || Ok(())).with_ignored_flag(true),
        Ok(None) => Trial::test(name, move || run_vector(&path).map_err(Failed::from)),
        Err(e) => Trial::test(name, move || Err(Failed::from(e.clone()))),
    }
}

/// Why a decode vector has no serde counterpart, if it has none.
fn not_applicable(path: &Path) -> Result<Option<&'static str>, String> {
    let text = std::fs::read(path).map_err(|e| e.to_string())?;
    let tape = Tape::parse_bytes(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let decode = tape.root().get("decode").ok_or("vector lacks `decode`")?;
    if decode.get("result_for_method").is_some() {
        return Ok(Some("a result decoded by the method of its request has no single serde type"));
    }
    let expect = tape.root().get("expect").ok_or("vector lacks `expect`")?;
    if expect.get("error").is_some_and(|e| e.str_eq("unknown_definition")) {
        return Ok(Some("an unknown definition name has no type"));
    }
    Ok(None)
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
    let def = field("decode")?.get("def").and_then(|d| d.as_str()).ok_or("decode.def must be a string")?;
    let native = mcpgen::decode(rev, &def, &input, policy);
    let serde = runner(&revision, &def)?(&input, policy);
    match (native, serde) {
        (Ok(native), Ok(serde)) => {
            let native = parse(native.to_json_string().as_bytes())?;
            differ("decoded values", &native, &serde.decoded)?;
            differ("serde's Serialize and ToJson", &native, &serde.serialized)
        }
        (Err(mcpgen::DecodeError::Parse(_)), Err(_)) => Ok(()),
        (Err(native), Err(serde)) => {
            // The validator's first error, pointer and message, is what serde reports.
            let entries = native.errors();
            let first = entries.first().ok_or_else(|| format!("native error without details: {native}"))?;
            let want = first.to_string();
            let want = want.lines().next().unwrap_or_default();
            if serde.contains(want) {
                Ok(())
            } else {
                Err(format!("serde's error lacks the validator's\n  native: {want}\n   serde: {serde}"))
            }
        }
        (Ok(native), Err(serde)) => {
            Err(format!("native accepts ({}), serde refuses: {serde}", native.to_json_string()))
        }
        (Err(native), Ok(serde)) => {
            Err(format!("native refuses ({native}), serde accepts: {}", serde.decoded.to_json_string()))
        }
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    match example_files() {
        Ok(files) => trials.extend(files.into_iter().map(|(def, f)| example_trial(def, f))),
        Err(e) => trials.push(Trial::test("serde::example::directory", move || Err(Failed::from(e.clone())))),
    }
    trials.extend(vector_files("decode").into_iter().map(vector_trial));
    libtest_mimic::run(&args, trials).exit();
}
