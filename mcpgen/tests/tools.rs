//! Data-driven tests for tool schemas (`vectors/tools/*.json`) and icons
//! (`vectors/icons/*.json`), one test per case; the format is in `vectors/README.md`. The C and
//! Python bindings run the same files.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use mcpgen::icons::{IconPolicy, IconSource};
use mcpgen::tools::{self, CompiledTool, LimitError, Limits, SchemaError, SchemaOptions};
use serde_json::Value;

fn vectors(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("vectors").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", root.display());
    files
}

fn read(path: &Path) -> Result<Value, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The options of a case's `limits`, or the typed error [`Limits::set`] refused one with.
fn limits_from(v: Option<&Value>) -> Result<Result<Limits, LimitError>, String> {
    let mut limits = Limits::default();
    let Some(Value::Object(map)) = v else { return Ok(Ok(limits)) };
    for (k, v) in map {
        let n = v.as_u64().ok_or_else(|| format!("limit {k} must be a number"))?;
        if let Err(e) = limits.set(k, n) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(limits))
}

/// `expect.error`: a typed error stated whole (`kind`, `rule`, `pointer`, `message`; `null`
/// for none), compared exactly.
fn check_typed_error(
    want: &Value,
    kind: &str,
    rule: Option<&str>,
    pointer: Option<&str>,
    message: &str,
) -> Result<(), String> {
    let got = serde_json::json!({"kind": kind, "rule": rule, "pointer": pointer, "message": message});
    for member in ["kind", "rule", "pointer", "message"] {
        let w = want.get(member).ok_or_else(|| format!("expect.error needs `{member}` (null for none)"))?;
        if w != &got[member] {
            return Err(format!("expect.error.{member}: expected {w}, got {}", got[member]));
        }
    }
    if let Some(extra) = want.as_object().and_then(|o| o.keys().find(|k| !got.as_object().unwrap().contains_key(*k))) {
        return Err(format!("unknown member expect.error.{extra}"));
    }
    Ok(())
}

/// One error pattern of `expect.errors` / a report's `errors` against a schema error: `kind`
/// required; `pointer`, `uri`, `rule`, `message` exact and `message_contains` when given.
fn schema_error_matches(w: &Value, got: &SchemaError) -> bool {
    let s = |k: &str| w.get(k).and_then(Value::as_str);
    s("kind") == Some(got.kind.as_str())
        && s("pointer").is_none_or(|p| p == got.pointer)
        && s("uri").is_none_or(|u| Some(u) == got.uri.as_deref())
        && s("rule").is_none_or(|r| r == got.rule())
        && s("message").is_none_or(|m| m == got.message)
        && s("message_contains").is_none_or(|m| got.message.contains(m))
}

/// The JSON text of a case's `document` / `document_text` / `document_nest`, if any.
fn document_text(case: &Value) -> Result<Option<String>, String> {
    if let Some(d) = case.get("document") {
        return Ok(Some(d.to_string()));
    }
    if let Some(t) = case.get("document_text") {
        return t.as_str().map(|t| Some(t.to_owned())).ok_or_else(|| "document_text must be a string".into());
    }
    let Some(n) = case.get("document_nest") else { return Ok(None) };
    let part = |k: &str| n.get(k).and_then(Value::as_str).unwrap_or("");
    let count = n.get("count").and_then(Value::as_u64).ok_or("document_nest.count must be a number")? as usize;
    Ok(Some(format!(
        "{}{}{}{}{}",
        part("prefix"),
        part("open").repeat(count),
        part("inner"),
        part("close").repeat(count),
        part("suffix")
    )))
}

fn run_tool_case(path: &Path) -> Result<(), String> {
    let case = read(path)?;
    let expect = case.get("expect").ok_or("case has no `expect`")?;
    let want_ok = expect.get("ok").and_then(Value::as_bool).ok_or("expect.ok must be a boolean")?;
    let limits = match limits_from(case.get("limits"))? {
        Ok(limits) => limits,
        Err(e) => {
            let want = expect.get("error").ok_or_else(|| format!("the limits were refused: {e}"))?;
            if want_ok {
                return Err("expect.ok must be false when expect.error is given".into());
            }
            return check_typed_error(want, e.kind(), None, None, &e.to_string());
        }
    };
    let options = SchemaOptions::default().limits(limits);
    let text = document_text(&case)?;
    match case.get("operation").and_then(Value::as_str).unwrap_or("check_tool") {
        "check_tools" => {
            return run_check_tools(text.ok_or("check_tools needs a document")?.as_bytes(), &options, expect)
        }
        "check_tool" => {}
        other => return Err(format!("unknown operation `{other}`")),
    }
    let tool = match (&text, case.get("tool")) {
        (Some(t), _) => match tools::tool_from_json(t.as_bytes()) {
            Ok(tool) => tool,
            Err(e) => {
                let want = expect.get("error").ok_or_else(|| format!("the tool text is not JSON: {e}"))?;
                return check_typed_error(want, "parse", None, None, &e.to_string());
            }
        },
        (None, Some(t)) => t.clone(),
        (None, None) => return Err("case has no `tool` (or document)".into()),
    };
    if expect.get("error").is_some() {
        return Err("expect.error given, but the tool was read and checked".into());
    }
    let tool = &tool;
    let compiled = CompiledTool::compile(tool, &options);
    match (&compiled, want_ok) {
        (Ok(_), true) => {}
        (Err(e), true) => return Err(format!("expected the tool to be accepted, got:\n{e}")),
        (Ok(_), false) => return Err("expected the tool to be rejected, but it compiled".into()),
        (Err(e), false) => {
            let wanted = expect.get("errors").and_then(Value::as_array).ok_or("a rejected case needs expect.errors")?;
            for w in wanted {
                if !e.errors.iter().any(|got| schema_error_matches(w, got)) {
                    return Err(format!("expected an error {w}, got:\n{e}"));
                }
            }
            return Ok(());
        }
    }
    let compiled = compiled.unwrap();
    for (member, output) in [("arguments", false), ("structured_content", true)] {
        let Some(cases) = case.get(member).and_then(Value::as_array) else { continue };
        for (i, c) in cases.iter().enumerate() {
            let value = c.get("value").ok_or_else(|| format!("{member}[{i}] has no value"))?;
            let ok =
                c.get("ok").and_then(Value::as_bool).ok_or_else(|| format!("{member}[{i}].ok must be a boolean"))?;
            let got =
                if output { compiled.validate_structured_content(value) } else { compiled.validate_arguments(value) };
            match (got, ok) {
                (Ok(()), true) => {}
                (Err(e), true) => return Err(format!("{member}[{i}] should be valid, got:\n{e}")),
                (Ok(()), false) => return Err(format!("{member}[{i}] should be invalid, but validated")),
                (Err(e), false) => {
                    let kind = c.get("error").and_then(Value::as_str).unwrap_or("invalid");
                    if e.kind() != kind {
                        return Err(format!("{member}[{i}]: expected a `{kind}` error, got `{}`:\n{e}", e.kind()));
                    }
                    let errors = e.errors();
                    if let Some(p) = c.get("pointer").and_then(Value::as_str) {
                        if !errors.iter().any(|x| x.pointer == p) {
                            return Err(format!("{member}[{i}]: no error at pointer {p}:\n{e}"));
                        }
                    }
                    if let Some(k) = c.get("keyword").and_then(Value::as_str) {
                        if !errors.iter().any(|x| x.keyword == k) {
                            return Err(format!("{member}[{i}]: no error from keyword {k}:\n{e}"));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// `operation: check_tools`: the document error, or every report in order.
fn run_check_tools(bytes: &[u8], options: &SchemaOptions, expect: &Value) -> Result<(), String> {
    let want_ok = expect.get("ok").and_then(Value::as_bool).ok_or("expect.ok must be a boolean")?;
    let reports = match tools::check_tools_json(bytes, options) {
        Ok(r) => r,
        Err(e) => {
            let want = expect.get("error").ok_or_else(|| format!("the document was refused: {e}"))?;
            if want_ok {
                return Err("expect.ok must be false when expect.error is given".into());
            }
            return check_typed_error(want, e.kind(), e.rule(), e.pointer(), &e.to_string());
        }
    };
    if expect.get("error").is_some() {
        return Err(format!("expected the document to be refused, got {} report(s)", reports.len()));
    }
    let ok = reports.iter().all(|r| r.errors.is_empty());
    if ok != want_ok {
        return Err(format!("expected ok={want_ok}, got the reports {reports:#?}"));
    }
    let Some(wanted) = expect.get("reports") else { return Ok(()) };
    let wanted = wanted.as_array().ok_or("expect.reports must be an array")?;
    if wanted.len() != reports.len() {
        return Err(format!("expected {} report(s), got {}: {reports:#?}", wanted.len(), reports.len()));
    }
    for (i, (w, got)) in wanted.iter().zip(&reports).enumerate() {
        let s = |k: &str| w.get(k).and_then(Value::as_str);
        if s("pointer") != Some(got.pointer.as_str()) || s("name") != Some(got.name.as_str()) {
            return Err(format!("reports[{i}]: expected {w}, got {} {:?}", got.pointer, got.name));
        }
        let errors = w.get("errors").and_then(Value::as_array).ok_or_else(|| format!("reports[{i}] needs errors"))?;
        if errors.len() != got.errors.len() || !errors.iter().zip(&got.errors).all(|(w, e)| schema_error_matches(w, e))
        {
            return Err(format!(
                "reports[{i}].errors: expected {}, got {:#?}",
                Value::from(errors.clone()),
                got.errors
            ));
        }
    }
    Ok(())
}

fn policy_from(v: Option<&Value>) -> Result<IconPolicy, String> {
    let mut p = IconPolicy::default();
    let Some(Value::Object(map)) = v else { return Ok(p) };
    for (k, v) in map {
        match (k.as_str(), v) {
            ("allow_http", Value::Bool(b)) => p.allow_http = *b,
            ("allow_svg", Value::Bool(b)) => p.allow_svg = *b,
            ("allow_webp", Value::Bool(b)) => p.allow_webp = *b,
            ("allow_gif", Value::Bool(b)) => p.allow_gif = *b,
            ("max_bytes", Value::Number(n)) => p.max_bytes = n.as_u64().ok_or("max_bytes")? as usize,
            ("trusted_origins", Value::Array(a)) => {
                p.trusted_origins = a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()
            }
            _ => return Err(format!("unknown policy field {k}")),
        }
    }
    Ok(p)
}

fn base64(s: &str) -> Result<Vec<u8>, String> {
    mcpgen::icons::decode_base64(s).ok_or_else(|| format!("bytes_base64 is not Base64: {s}"))
}

fn run_icon_case(file_policy: &IconPolicy, case: &Value) -> Result<(), String> {
    let policy = match case.get("policy") {
        Some(p) => policy_from(Some(p))?,
        None => file_policy.clone(),
    };
    let mime = case.get("mime_type").and_then(Value::as_str);
    let repeated = case.get("src_repeat").map(|r| {
        let unit = r.get("unit").and_then(Value::as_str).unwrap_or("");
        let count = r.get("count").and_then(Value::as_u64).unwrap_or(0) as usize;
        format!("{}{}", r.get("prefix").and_then(Value::as_str).unwrap_or(""), unit.repeat(count))
    });
    let result = if let Some(src) = repeated.as_deref().or(case.get("src").and_then(Value::as_str)) {
        policy
            .check_icon(src, mime)
            .map(|s| match s {
                IconSource::Data { image, .. } => Some(image.mime()),
                IconSource::Remote { .. } => None,
            })
            .and_then(|r| match case.get("server").and_then(Value::as_str) {
                Some(server) => policy.check_origin(src, server).map(|_| r),
                None => Ok(r),
            })
    } else if let Some(b) = case.get("bytes_base64").and_then(Value::as_str) {
        let bytes = base64(b)?;
        policy.check_bytes(&bytes, mime).map(|t| Some(t.mime()))
    } else if let Some(text) = case.get("bytes_text").and_then(Value::as_str) {
        policy.check_bytes(text.as_bytes(), mime).map(|t| Some(t.mime()))
    } else {
        return Err("an icon case needs src, bytes_base64 or bytes_text".into());
    };
    let expect = case.get("expect").ok_or("case has no expect")?;
    let ok = expect.get("ok").and_then(Value::as_bool).ok_or("expect.ok must be a boolean")?;
    match (result, ok) {
        (Ok(image), true) => {
            if let Some(want) = expect.get("image").and_then(Value::as_str) {
                if image != Some(want) {
                    return Err(format!("expected image {want}, got {image:?}"));
                }
            }
            Ok(())
        }
        (Ok(_), false) => {
            Err(format!("expected rejection ({}), but it was accepted", expect.get("kind").unwrap_or(&Value::Null)))
        }
        (Err(e), true) => Err(format!("expected acceptance, got: {e}")),
        (Err(e), false) => match expect.get("kind").and_then(Value::as_str) {
            Some(k) if k != e.kind.as_str() => Err(format!("expected kind {k}, got: {e}")),
            _ => Ok(()),
        },
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for path in vectors("tools") {
        let name = format!("tools::{}", path.file_stem().unwrap().to_string_lossy());
        trials.push(Trial::test(name, move || run_tool_case(&path).map_err(Failed::from)));
    }
    for path in vectors("icons") {
        let file = read(&path).unwrap();
        let policy = policy_from(file.get("policy")).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let cases = file
            .get("cases")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_else(|| panic!("{}: no cases", path.display()));
        assert!(!cases.is_empty(), "{}: empty cases", path.display());
        for case in cases {
            let name = format!("icons::{stem}::{}", case.get("name").and_then(Value::as_str).unwrap_or("?"));
            let policy = policy.clone();
            trials.push(Trial::test(name, move || run_icon_case(&policy, &case).map_err(Failed::from)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
