//! Data-driven tests for tool schemas (`vectors/tools/*.json`) and icons
//! (`vectors/icons/*.json`), one test per case; the format is in `vectors/README.md`. The C and
//! Python bindings run the same files.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use mcpgen::icons::{IconPolicy, IconSource};
use mcpgen::tools::{CompiledTool, Limits, SchemaOptions, ToolCallError};
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

fn limits_from(v: Option<&Value>) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let Some(Value::Object(map)) = v else { return Ok(limits) };
    for (k, v) in map {
        let n = v.as_u64().ok_or_else(|| format!("limit {k} must be a number"))?;
        limits.set(k, n).map_err(|e| e.to_string())?;
    }
    Ok(limits)
}

fn run_tool_case(path: &Path) -> Result<(), String> {
    let case = read(path)?;
    let tool = case.get("tool").ok_or("case has no `tool`")?;
    let options = SchemaOptions { limits: limits_from(case.get("limits"))?, ..SchemaOptions::default() };
    let expect = case.get("expect").ok_or("case has no `expect`")?;
    let want_ok = expect.get("ok").and_then(Value::as_bool).ok_or("expect.ok must be a boolean")?;
    let compiled = CompiledTool::compile(tool, &options);
    match (&compiled, want_ok) {
        (Ok(_), true) => {}
        (Err(e), true) => return Err(format!("expected the tool to be accepted, got:\n{e}")),
        (Ok(_), false) => return Err("expected the tool to be rejected, but it compiled".into()),
        (Err(e), false) => {
            let wanted = expect.get("errors").and_then(Value::as_array).ok_or("a rejected case needs expect.errors")?;
            for w in wanted {
                let found = e.errors.iter().any(|got| {
                    w.get("kind").and_then(Value::as_str) == Some(got.kind.as_str())
                        && w.get("pointer").and_then(Value::as_str).is_none_or(|p| p == got.pointer)
                        && w.get("uri").and_then(Value::as_str).is_none_or(|u| Some(u) == got.uri.as_deref())
                        && w.get("message_contains").and_then(Value::as_str).is_none_or(|m| got.message.contains(m))
                });
                if !found {
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
                    let errors = match &e {
                        ToolCallError::Invalid(v) | ToolCallError::LimitExceeded(v) => v.clone(),
                        ToolCallError::Schema(_) => Vec::new(),
                    };
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
