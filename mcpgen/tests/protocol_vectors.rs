//! Data-driven protocol tests, one test each:
//! - `vectors/protocol/*.json` (format in `vectors/README.md`): `check_request`,
//!   `validate_message`, `check_response`, era detection, `negotiate_version`, `check_meta_key`,
//!   `check_http_headers`;
//! - every official 2026-07-28 example that is a whole JSON-RPC message must pass
//!   `validate_message`; the client requests among them must pass `check_request`, and the
//!   result responses `check_response` for the method their result definition belongs to.

mod support;

use std::path::Path;
use support::{example_files, expected_example_failures, vector_files};

use libtest_mimic::{Arguments, Failed, Trial};
use mcpgen::json::{Tape, Value};
use mcpgen::protocol::{self, CheckedResponse, DetectedEra, MessageKind, ServerConfig};
use mcpgen::{CoreError, JsonView, MessageOptions, Options, Policy, ResultOptions, Revision, ValidationError};

fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_eq(v, w)),
        (Value::Number(x), Value::Number(y)) => x.to_string() == y.to_string() || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// What an operation produced, in the terms `expect` speaks.
#[derive(Default, Debug)]
struct Outcome {
    accept: bool,
    code: Option<i64>,
    http_status: Option<u16>,
    /// The single rule of a refusal (check_request, check_response).
    rule: Option<String>,
    /// `Some(id)` / `Some(None)` when the operation has an id to report.
    id: Option<Option<Value>>,
    data: Option<Value>,
    message: String,
    legacy: Option<bool>,
    legacy_initialize: Option<bool>,
    method: Option<String>,
    revision: Option<String>,
    kind: Option<String>,
    variant: Option<String>,
    errors: Vec<ValidationError>,
    era: Option<String>,
    supported: Option<Vec<String>>,
    reserved: Option<bool>,
    prefix: Option<Option<String>>,
    name: Option<String>,
    /// A typed error stated whole (`expect.error`): kind, rule, pointer, message.
    error: Option<TypedError>,
}

#[derive(Debug)]
struct TypedError {
    kind: &'static str,
    rule: Option<&'static str>,
    pointer: Option<String>,
    message: String,
}

fn flatten(list: &[ValidationError], out: &mut Vec<ValidationError>) {
    for e in list {
        out.push(e.clone());
        for arm in &e.arms {
            flatten(&arm.errors, out);
        }
    }
}

fn str_field(v: &Value, k: &str) -> Result<Option<String>, String> {
    match v.get(k) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("`{k}` must be a string, found {}", other.to_json_string())),
    }
}

/// `extensions`: the extensions this side negotiates, by identifier (`check_request` serves
/// them, `validate_message` judges their messages).
fn extensions(v: &Value) -> Result<Vec<mcpgen::ext::Extension>, String> {
    str_list(v, "extensions")?
        .unwrap_or_default()
        .iter()
        .map(|id| mcpgen::ext::Extension::from_id(id).ok_or_else(|| format!("extension {id} is not in this build")))
        .collect()
}

fn str_list(v: &Value, k: &str) -> Result<Option<Vec<String>>, String> {
    match v.get(k) {
        None => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map(str::to_owned).ok_or(format!("`{k}` must hold strings")))
            .collect::<Result<_, _>>()
            .map(Some),
        Some(_) => Err(format!("`{k}` must be an array of strings")),
    }
}

fn revision(v: &Value) -> Result<Revision, String> {
    let name = str_field(v, "revision")?.ok_or("vector lacks `revision`")?;
    Revision::parse(&name).ok_or_else(|| format!("revision {name} not in this build"))
}

fn input(v: &Value) -> Result<Option<Vec<u8>>, String> {
    match (v.get("input"), v.get("input_text")) {
        (Some(i), _) => Ok(Some(i.to_json_string().into_bytes())),
        (None, Some(Value::String(t))) => Ok(Some(t.clone().into_bytes())),
        (None, Some(_)) => Err("input_text must be a string".into()),
        (None, None) => Ok(None),
    }
}

fn kind_name(k: &MessageKind) -> &'static str {
    match k {
        MessageKind::Request { .. } => "request",
        MessageKind::Notification { .. } => "notification",
        MessageKind::Result => "result",
        MessageKind::Error { .. } => "error",
    }
}

fn run_operation(v: &Value) -> Result<Outcome, String> {
    let op = str_field(v, "operation")?.ok_or("vector lacks `operation`")?;
    let need_input = || input(v)?.ok_or_else(|| "vector needs `input` or `input_text`".to_owned());
    let mut o = Outcome::default();
    match op.as_str() {
        "check_request" => {
            let config = match str_list(v, "supported_versions")? {
                Some(list) => ServerConfig::new(list),
                None => ServerConfig::default(),
            }
            .with_extensions(extensions(v)?);
            match protocol::check_request(&need_input()?, &config) {
                Ok(a) => {
                    o.accept = true;
                    o.id = Some(a.id.clone());
                    o.legacy = Some(a.legacy);
                    o.method = Some(a.method.clone());
                    o.revision = Some(a.revision.to_string());
                }
                Err(e) => {
                    let resp = e.to_response();
                    // The rendered response must itself be a JSON-RPC error response.
                    mcpgen::validate(
                        Revision::parse("2026-07-28").unwrap(),
                        "JSONRPCErrorResponse",
                        e.to_response_json().as_bytes(),
                        Options::default(),
                    )
                    .map_err(|x| {
                        format!("rendered response is not a valid JSONRPCErrorResponse: {x}\n{}", e.to_response_json())
                    })?;
                    o.code = Some(e.code);
                    o.http_status = Some(e.http_status);
                    o.rule = Some(e.rule.to_owned());
                    o.id = Some(resp.get("id").cloned());
                    o.data = e.data.clone();
                    o.message = e.message.clone();
                    o.legacy_initialize = Some(e.legacy_initialize);
                    // The core's entries, top level only.
                    o.errors = e.errors().into_owned();
                }
            }
        }
        "validate_message" => {
            let rev = revision(v)?;
            let mut opts = Options::default();
            if let Some(p) = str_field(v, "policy")? {
                opts.policy = p.parse::<Policy>().map_err(|e| e.to_string())?;
            }
            opts.strict_formats = matches!(v.get("strict_formats"), Some(Value::Bool(true)));
            match protocol::validate_message(
                rev,
                &need_input()?,
                &MessageOptions::from(opts).negotiated(&extensions(v)?),
            ) {
                Ok(k) => {
                    o.accept = true;
                    o.kind = Some(kind_name(&k).to_owned());
                    if let MessageKind::Request { method } | MessageKind::Notification { method } = &k {
                        o.method = Some(method.clone());
                    }
                    if let MessageKind::Error { code } = k {
                        o.code = Some(code);
                    }
                }
                Err(e) => {
                    o.message = e.to_string();
                    flatten(&e.errors(), &mut o.errors);
                    if let mcpgen::DecodeError::Parse(_) = e {
                        o.rule = Some("parse".into());
                    }
                }
            }
        }
        "check_response" => {
            let rev = revision(v)?;
            let method = str_field(v, "request_method")?.ok_or("check_response needs `request_method`")?;
            let ext = str_list(v, "extension_result_types")?.unwrap_or_default();
            let ext: Vec<&str> = ext.iter().map(String::as_str).collect();
            match protocol::check_response(rev, &need_input()?, &ResultOptions::method(&method).extensions(&ext)) {
                Ok(CheckedResponse::Result { id, result }) => {
                    o.accept = true;
                    o.kind = Some("result".into());
                    o.id = Some(Some(id));
                    o.variant = Some(result.variant.to_owned());
                }
                Ok(CheckedResponse::Error { id, code, message, data }) => {
                    o.accept = true;
                    o.kind = Some("error".into());
                    o.id = Some(id);
                    o.code = Some(code);
                    o.message = message;
                    o.data = data;
                }
                Err(e) => {
                    o.rule = e.rule.map(str::to_owned);
                    o.message = e.message.clone();
                    flatten(&e.errors(), &mut o.errors);
                }
            }
        }
        "detect_era_probe" | "detect_era_http_400" => {
            let bytes = input(v)?;
            let era = if op == "detect_era_probe" {
                protocol::detect_era_from_probe(bytes.as_deref())
            } else {
                protocol::detect_era_from_http_400(
                    &bytes.ok_or("detect_era_http_400 needs an input (may be empty text)")?,
                )
            };
            o.accept = true;
            match era {
                DetectedEra::Modern { supported } => {
                    o.era = Some("modern".into());
                    o.supported = Some(supported);
                }
                DetectedEra::Legacy => o.era = Some("legacy".into()),
            }
        }
        "negotiate_version" => {
            let requested = str_field(v, "requested")?.ok_or("negotiate_version needs `requested`")?;
            let supported = str_list(v, "supported_versions")?.ok_or("negotiate_version needs `supported_versions`")?;
            let supported: Vec<&str> = supported.iter().map(String::as_str).collect();
            match protocol::negotiate_version(&requested, &supported) {
                Ok(_) => o.accept = true,
                Err(e) => {
                    o.code = Some(e.code);
                    o.http_status = Some(e.http_status);
                    o.rule = Some(e.rule.to_owned());
                    o.data = e.data.clone();
                    o.message = e.message.clone();
                }
            }
        }
        "check_http_headers" => {
            let Some(Value::Array(pairs)) = v.get("headers") else {
                return Err("check_http_headers needs `headers`: an array of [name, value] pairs".into());
            };
            let mut headers = Vec::new();
            for pair in pairs {
                match pair {
                    Value::Array(p) if p.len() == 2 && p.iter().all(|x| x.as_str().is_some()) => {
                        headers.push((p[0].as_str().unwrap_or_default(), p[1].as_str().unwrap_or_default()));
                    }
                    _ => return Err(format!("header {} is not a [name, value] pair", pair.to_json_string())),
                }
            }
            match protocol::check_http_headers(headers, &need_input()?) {
                Ok(()) => o.accept = true,
                Err(e) => {
                    mcpgen::validate(
                        Revision::parse("2026-07-28").unwrap(),
                        "JSONRPCErrorResponse",
                        e.to_response_json().as_bytes(),
                        Options::default(),
                    )
                    .map_err(|x| format!("rendered response is not a valid JSONRPCErrorResponse: {x}"))?;
                    o.code = Some(e.code);
                    o.http_status = Some(e.http_status);
                    o.rule = Some(e.rule.to_owned());
                    o.id = Some(e.to_response().get("id").cloned());
                    o.message = e.message.clone();
                }
            }
        }
        "check_meta_key" => {
            let key = str_field(v, "input")?.ok_or("check_meta_key needs a string `input`")?;
            match protocol::check_meta_key(&key) {
                Ok(k) => {
                    o.accept = true;
                    o.reserved = Some(k.reserved);
                    o.prefix = Some(k.prefix);
                    o.name = Some(k.name);
                }
                Err(e) => {
                    o.message = e.to_string();
                    o.error = Some(TypedError {
                        kind: e.kind(),
                        rule: Some(e.rule()),
                        pointer: None,
                        message: e.to_string(),
                    });
                }
            }
        }
        other => return Err(format!("unknown operation `{other}`")),
    }
    Ok(o)
}

fn check_expect(o: &Outcome, expect: &Value) -> Result<(), String> {
    let Value::Object(members) = expect else { return Err("`expect` must be an object".into()) };
    let ctx = || {
        format!(
            "\noutcome: accept={} code={:?} http={:?} rule={:?} message={:?}\nerrors: {:#?}",
            o.accept, o.code, o.http_status, o.rule, o.message, o.errors
        )
    };
    for (k, want) in members.iter() {
        let fail = |what: String| Err(format!("{k}: {what}{}", ctx()));
        match k {
            "accept" => {
                if want != &Value::Bool(o.accept) {
                    return fail(format!("expected accept={}, got {}", want.to_json_string(), o.accept));
                }
            }
            "code" => match (want, o.code) {
                (Value::Number(n), Some(c)) if n.as_i64() == Some(c) => {}
                _ => return fail(format!("expected {}, got {:?}", want.to_json_string(), o.code)),
            },
            "http_status" => match (want, o.http_status) {
                (Value::Number(n), Some(c)) if n.as_i64() == Some(i64::from(c)) => {}
                _ => return fail(format!("expected {}, got {:?}", want.to_json_string(), o.http_status)),
            },
            "rule" => {
                let w = want.as_str().ok_or("rule must be a string")?;
                let found = o.rule.as_deref() == Some(w) || o.errors.iter().any(|e| e.rule == Some(w));
                if !found {
                    return fail(format!("expected rule {w}"));
                }
            }
            "has_id" => {
                let has = matches!(&o.id, Some(Some(_)));
                if want != &Value::Bool(has) {
                    return fail(format!("expected has_id={}, got id {:?}", want.to_json_string(), o.id));
                }
            }
            "id" => match &o.id {
                Some(Some(id)) if json_eq(id, want) => {}
                _ => return fail(format!("expected id {}, got {:?}", want.to_json_string(), o.id)),
            },
            "data" => {
                let (Value::Object(w), Some(Value::Object(d))) = (want, &o.data) else {
                    return fail(format!(
                        "expected data members {}, got {:?}",
                        want.to_json_string(),
                        o.data.as_ref().map(|d| d.to_json_string())
                    ));
                };
                for (dk, dv) in w.iter() {
                    if !d.get(dk).is_some_and(|x| json_eq(x, dv)) {
                        return fail(format!(
                            "data.{dk}: expected {}, got {:?}",
                            dv.to_json_string(),
                            d.get(dk).map(|x| x.to_json_string())
                        ));
                    }
                }
            }
            "message_contains" => {
                let w = want.as_str().ok_or("message_contains must be a string")?;
                if !o.message.contains(w) {
                    return fail(format!("message lacks {w:?}"));
                }
            }
            "legacy" | "legacy_initialize" | "reserved" => {
                let got = match k {
                    "legacy" => o.legacy,
                    "legacy_initialize" => o.legacy_initialize,
                    _ => o.reserved,
                };
                if got.map(Value::Bool).as_ref() != Some(want) {
                    return fail(format!("expected {}, got {got:?}", want.to_json_string()));
                }
            }
            "method" | "revision" | "kind" | "variant" | "era" | "name" => {
                let got = match k {
                    "method" => &o.method,
                    "revision" => &o.revision,
                    "kind" => &o.kind,
                    "variant" => &o.variant,
                    "era" => &o.era,
                    _ => &o.name,
                };
                if got.as_deref() != want.as_str() {
                    return fail(format!("expected {}, got {got:?}", want.to_json_string()));
                }
            }
            "prefix" => {
                let w = want.as_str().map(str::to_owned);
                if o.prefix.as_ref() != Some(&w) {
                    return fail(format!("expected {}, got {:?}", want.to_json_string(), o.prefix));
                }
            }
            "supported" => {
                let w = str_list(expect, "supported")?.unwrap_or_default();
                if o.supported.as_ref() != Some(&w) {
                    return fail(format!("expected {w:?}, got {:?}", o.supported));
                }
            }
            "errors" => {
                let Value::Array(list) = want else { return Err("expect.errors must be an array".into()) };
                for pattern in list {
                    let p = |f: &str| pattern.get(f).and_then(Value::as_str);
                    let matched = o.errors.iter().any(|e| {
                        p("pointer").is_none_or(|x| e.pointer == x)
                            && p("keyword").is_none_or(|x| e.keyword == x)
                            && p("rule").is_none_or(|x| e.rule == Some(x))
                            && p("message").is_none_or(|x| e.message == x)
                    });
                    if !matched {
                        return fail(format!("no error matches {}", pattern.to_json_string()));
                    }
                }
            }
            "error" => {
                let Some(e) = &o.error else { return fail("expected a typed error".into()) };
                let null_or = |x: Option<&str>| x.map_or(Value::Null, |s| Value::String(s.to_owned()));
                let got = [
                    ("kind", Value::String(e.kind.to_owned())),
                    ("rule", null_or(e.rule)),
                    ("pointer", null_or(e.pointer.as_deref())),
                    ("message", Value::String(e.message.clone())),
                ];
                let Value::Object(w) = want else { return Err("expect.error must be an object".into()) };
                if w.len() != got.len() {
                    return fail(format!(
                        "expect.error states kind, rule, pointer and message, got {}",
                        want.to_json_string()
                    ));
                }
                for (member, value) in &got {
                    if w.get(member) != Some(value) {
                        return fail(format!(
                            "error.{member}: expected {}, got {}",
                            w.get(member).map_or("nothing".into(), |x| x.to_json_string()),
                            value.to_json_string()
                        ));
                    }
                }
            }
            "error_count" => {
                if want.to_json_string() != o.errors.len().to_string() {
                    return fail(format!("expected {} errors, got {}", want.to_json_string(), o.errors.len()));
                }
            }
            other => return Err(format!("unknown expect key `{other}` (see vectors/README.md)")),
        }
    }
    if !members.contains_key("accept") {
        return Err("expect.accept is required".into());
    }
    Ok(())
}

fn run_vector(path: &Path) -> Result<(), String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v = Tape::parse_bytes(&text).map_err(|e| format!("{}: {e}", path.display()))?.root().to_value();
    str_field(&v, "description")?.ok_or("vector lacks `description`")?;
    let expect = v.get("expect").ok_or("vector lacks `expect`")?;
    let outcome = run_operation(&v)?;
    check_expect(&outcome, expect)
}

/// Official examples that are whole messages: validate_message, and check_request /
/// check_response where the example is a client request / a result response.
fn run_example(def: &str, path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rev = Revision::parse("2026-07-28").ok_or("revision 2026-07-28 not in this build")?;
    protocol::validate_message(rev, &bytes, &MessageOptions::new()).map_err(|e| format!("validate_message: {e}"))?;
    if let Some(info) = rev.methods().iter().find(|m| m.request_def == def) {
        if info.kind == mcpgen::methods::MethodKind::Request
            && info.direction == mcpgen::methods::Direction::ClientToServer
        {
            let a = protocol::check_request(&bytes, &ServerConfig::default())
                .map_err(|e| format!("check_request: {e}\n{}", e.to_response_json()))?;
            if a.method != info.method {
                return Err(format!("check_request read method {}, expected {}", a.method, info.method));
            }
        }
    }
    if let Some(result_def) = def.strip_suffix("Response") {
        let method = rev
            .methods()
            .iter()
            .find(|m| m.result_defs.first() == Some(&result_def))
            .ok_or_else(|| format!("no method answers with {result_def}"))?;
        match protocol::check_response(rev, &bytes, &ResultOptions::method(method.method))
            .map_err(|e| format!("check_response({}): {e}", method.method))?
        {
            CheckedResponse::Result { result, .. }
                if result.variant == result_def || result.variant == "InputRequiredResult" => {}
            other => return Err(format!("check_response({}) gave {other:?}", method.method)),
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for path in vector_files("protocol") {
        let name = format!("vector::{}", path.file_stem().unwrap().to_string_lossy());
        trials.push(Trial::test(name, move || run_vector(&path).map_err(Failed::from)));
    }
    // Official examples expected to fail a protocol check, with the reason (the `protocol` list
    // of vectors/official-examples.json; a listed example that passes fails the run).
    let expected_protocol = expected_example_failures("protocol");
    match example_files() {
        Ok(files) => {
            for (def, f) in files {
                // Only whole JSON-RPC messages.
                let is_message = std::fs::read(&f)
                    .ok()
                    .and_then(|b| Tape::parse_bytes(&b).ok().map(|t| t.root().get("jsonrpc").is_some()))
                    .unwrap_or(false);
                if !is_message {
                    continue;
                }
                let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
                let name = format!("example::{def}::{stem}");
                let key = format!("{def}/{stem}");
                let expected = expected_protocol.iter().find(|(n, _)| *n == key).map(|(_, why)| why.clone());
                trials.push(Trial::test(name, move || match (run_example(&def, &f), expected) {
                    (Ok(()), None) | (Err(_), Some(_)) => Ok(()),
                    (Ok(()), Some(why)) => {
                        Err(Failed::from(format!("listed as an expected failure ({why}) but passes")))
                    }
                    (Err(e), None) => Err(Failed::from(e)),
                }));
            }
        }
        Err(e) => trials.push(Trial::test("example::directory", move || Err(Failed::from(e.clone())))),
    }
    libtest_mimic::run(&args, trials).exit();
}
