//! The generated Tasks extension module (`mcpgen::ext::tasks`), driven by data:
//!
//! - every project vector in `vectors/ext/tasks/` (valid ones decode and re-encode equal;
//!   invalid ones fail at the expected JSON pointer / keyword);
//! - every JSON message in the pinned normative text (`schema/ext-tasks/tasks.md`, pulled by
//!   `cargo xtask schema pull`) that is a message of the extension validates against the
//!   definition its method (or the request it answers) selects.
//!
//! A missing cache fails the run; it is never skipped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mcpgen::ext::{self, tasks, Extension};
use mcpgen::json::{Tape, Value};
use mcpgen::{JsonView, Options, Policy};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn parse(bytes: &[u8]) -> Value {
    Tape::parse_bytes(bytes).map(|t| t.root().to_value()).unwrap_or_else(|e| panic!("not JSON: {e}"))
}

fn tasks_ext() -> Extension {
    Extension::from_id("io.modelcontextprotocol/tasks").expect("the build has the tasks extension")
}

fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_eq(v, w)),
        _ => a == b,
    }
}

fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Object(m) => m.get(key),
        _ => None,
    }
}

fn as_str(v: Option<&Value>) -> Option<&str> {
    match v {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    }
}

#[test]
fn module_says_what_it_is() {
    let e = tasks_ext();
    assert_eq!(e.id(), tasks::EXTENSION_ID);
    assert_eq!(e.layers_on(), mcpgen::Revision::parse(tasks::LAYERS_ON).unwrap());
    assert_eq!(e.module_name(), "ext-tasks");
    assert_eq!(Extension::parse("tasks"), Some(e));
    let mut methods: Vec<&str> = e.methods().iter().map(|m| m.method).collect();
    methods.sort_unstable();
    assert_eq!(methods, ["notifications/tasks", "tasks/cancel", "tasks/get", "tasks/update"]);
    assert_eq!(e.method_names().len(), e.methods().len());
    // The schema's copies of core requests are types here, not rows: the core owns them.
    assert!(e.method("sampling/createMessage").is_none());
    assert!(e.definition("CreateMessageRequest").is_some());
    assert_eq!(e.method("tasks/get").unwrap().result_defs, ["GetTaskResult"]);
    // Every copy of a core definition lowers to the core's shape once the shared errata are
    // applied; a copy that drifts from the core is listed, and this test then names it.
    assert_eq!(tasks::CORE_DIFFERS, &[] as &[&str], "extension copies that differ from {}", tasks::LAYERS_ON);
    assert!(tasks::CORE_COPIES.contains(&"Tool") && tasks::CORE_COPIES.contains(&"Result"));
    for name in tasks::CORE_COPIES {
        assert!(mcpgen::definition(e.layers_on(), name).is_ok(), "{name} is not a core definition");
    }
    assert!(ext::definition(e, "NoSuchThing").is_err());
}

#[test]
fn project_vectors() {
    let dir = root().join("vectors/ext/tasks");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "too few vectors in {}", dir.display());
    let mut failures = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for file in &files {
        let case = parse(&std::fs::read(file).unwrap());
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let ext = Extension::from_id(as_str(get(&case, "extension")).unwrap()).unwrap();
        let def = as_str(get(&case, "def")).unwrap();
        let input = get(&case, "input").unwrap();
        let expect = get(&case, "expect").unwrap();
        let ok = matches!(get(expect, "ok"), Some(Value::Bool(true)));
        let got = ext::validate_view(ext, def, &input, Options::default());
        match (ok, got) {
            (true, Ok(())) => {
                valid += 1;
                match ext::decode_view(ext, def, &input, Policy::Lossless) {
                    Ok(x) => {
                        let back = parse(x.to_json_string().as_bytes());
                        if !json_eq(&back, input) {
                            failures.push(format!("{name}: re-encodes as {}", x.to_json_string()));
                        }
                    }
                    Err(e) => failures.push(format!("{name}: valid but does not decode: {e}")),
                }
            }
            (true, Err(e)) => failures.push(format!("{name}: expected valid as {def}, got {e}")),
            (false, Ok(())) => failures.push(format!("{name}: expected invalid as {def}, but it passed")),
            (false, Err(e)) => {
                invalid += 1;
                let errors = e.errors();
                let pointer = as_str(get(expect, "pointer"));
                let keyword = as_str(get(expect, "keyword"));
                let hit = errors
                    .iter()
                    .any(|err| pointer.is_none_or(|p| err.pointer == p) && keyword.is_none_or(|k| err.keyword == k));
                if !hit {
                    failures.push(format!("{name}: no error at {pointer:?} with keyword {keyword:?}; got {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} vector(s) failed:\n{}", failures.len(), failures.join("\n"));
    assert!(valid > 0 && invalid > 0, "vectors must hold valid and invalid cases ({valid}/{invalid})");
}

/// The ```json blocks of the pinned `tasks.md`.
fn spec_messages() -> Vec<Value> {
    let path = root().join("schema/ext-tasks/tasks.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run `cargo xtask schema pull`", path.display()));
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("```json\n") {
        let body = &rest[start + 8..];
        let end = body.find("```").expect("unterminated code block in tasks.md");
        out.push(parse(&body.as_bytes()[..end]));
        rest = &body[end + 3..];
    }
    out
}

#[test]
fn every_message_of_the_normative_text_validates() {
    let e = tasks_ext();
    let messages = spec_messages();
    assert!(messages.len() >= 20, "tasks.md has {} JSON blocks", messages.len());
    // Requests by id, to judge a result by the request it answers (ids repeat in the text, so
    // the latest request with that id counts).
    let mut requests: HashMap<String, String> = HashMap::new();
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let id = get(m, "id").map(|v| v.to_json_string());
        let judged: Option<(&str, &Value)> = if let Some(method) = as_str(get(m, "method")) {
            if let Some(id) = &id {
                requests.insert(id.clone(), method.to_owned());
            }
            e.method(method).map(|row| (row.request_def, m))
        } else if let Some(result) = get(m, "result") {
            if as_str(get(result, "resultType")) == Some("task") {
                Some(("CreateTaskResult", result))
            } else {
                let method = id.as_ref().and_then(|id| requests.get(id));
                method
                    .and_then(|method| e.method(method))
                    .and_then(|row| row.result_defs.first())
                    .map(|def| (*def, result))
            }
        } else {
            None // error responses and the core's own requests: the core judges them
        };
        let Some((def, v)) = judged else { continue };
        checked.push(def);
        if let Err(err) = ext::validate_view(e, def, &v, Options::default()) {
            failures.push(format!("block {i} as {def}: {err}"));
        }
    }
    assert!(failures.is_empty(), "tasks.md messages rejected:\n{}", failures.join("\n"));
    for def in [
        "CreateTaskResult",
        "GetTaskRequest",
        "GetTaskResult",
        "UpdateTaskRequest",
        "UpdateTaskResult",
        "TaskStatusNotification",
    ] {
        assert!(checked.contains(&def), "no message of tasks.md was judged as {def}: {checked:?}");
    }
}

#[test]
fn typed_values_round_trip() {
    let bytes = br#"{"taskId":"t","status":"input_required","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,
        "resultType":"complete","inputRequests":{"k":{"method":"roots/list"}}}"#;
    let v = &parse(bytes);
    let out = ext::decode_view(tasks_ext(), "GetTaskResult", &v, Policy::Strict).unwrap();
    assert!(json_eq(&parse(out.to_json_string().as_bytes()), v));
    assert_eq!(tasks::TaskStatus::InputRequired.as_str(), "input_required");
}
