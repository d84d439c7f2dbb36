//! `mcpgen validate --conversation`, and `--jsonl` / `--format json` of `check-request` and
//! `decode`: output shapes and exit codes.

mod support;

use serde_json::Value;
use support::mcpgen;

fn objects(out: &str) -> Vec<Value> {
    out.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn good_call(id: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"a","arguments":{{}},{MODERN_META}}}}}"#
    )
}

fn bad_call(id: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":5,"arguments":{{}},{MODERN_META}}}}}"#
    )
}

#[test]
fn conversation_json_output_has_one_object_per_line() {
    let file = format!(
        "{}\n\n{}\n{}\n",
        format_args!(r#"{{"from":"client","message":{}}}"#, good_call(1)),
        format_args!(r#"{{"from":"client","session":"s2","message":{}}}"#, bad_call(1)),
        r#"{"from":"server","raw":"{not json"}"#,
    );
    let (code, out, err) = mcpgen(&["validate", "--format", "json", "--conversation", "-"], file.as_bytes());
    assert_eq!(code, 1, "{err}");
    let objs = objects(&out);
    let sources: Vec<&str> = objs.iter().map(|o| o["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["<stdin>:1", "<stdin>:3", "<stdin>:4"], "blank lines are skipped, numbering kept");
    assert_eq!(objs[0]["valid"], true, "{}", objs[0]);
    assert_eq!(objs[0]["errors"], Value::Array(vec![]));
    assert_eq!(objs[1]["valid"], false);
    let e = &objs[1]["errors"][0];
    assert_eq!(
        (e["pointer"].as_str(), e["rule"].is_null(), e["level"].as_str()),
        (Some("/params/name"), true, Some("error"))
    );
    for k in ["pointer", "schemaPath", "keyword", "rule", "level", "message", "era", "revision"] {
        assert!(e.get(k).is_some(), "{k} missing in {e}");
    }
    assert_eq!(objs[2]["errors"][0]["rule"], "MSG-8");
}

#[test]
fn conversation_text_output_and_exit_codes() {
    let good = format!(r#"{{"from":"client","message":{}}}"#, good_call(1));
    let (code, out, err) = mcpgen(&["validate", "--conversation", "-"], good.as_bytes());
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("1 message checked in 1 session: 1 valid, 0 invalid"), "{err}");
    let bad = format!(r#"{{"from":"client","message":{}}}"#, bad_call(1));
    let (code, out, _) = mcpgen(&["validate", "--conversation", "-"], bad.as_bytes());
    assert_eq!(code, 1);
    assert!(out.starts_with("<stdin>:1: invalid (client message)\n  error at /params/name"), "{out}");
}

#[test]
fn lines_that_are_not_conversation_lines_are_usage_errors_with_their_place() {
    let file = format!(
        "{}\n[1]\n{{\"from\":\"peer\",\"raw\":\"x\"}}\n{{\"from\":\"client\"}}\n{{\"from\":\"client\",\"raw\":1}}\n{{\"from\":\"client\",\"raw\":\"a\",\"message\":{{}}}}\nnot json\n",
        format_args!(r#"{{"from":"client","message":{}}}"#, good_call(1)),
    );
    let (code, out, err) = mcpgen(&["validate", "--format", "json", "--conversation", "-"], file.as_bytes());
    assert_eq!(code, 2, "{err}");
    assert_eq!(objects(&out).len(), 1, "the good line is still checked: {out}");
    for line in 2..=7 {
        assert!(err.contains(&format!("<stdin>:{line}: not a conversation line")), "line {line}: {err}");
    }
    assert!(err.contains("unknown sender \"peer\""), "{err}");
}

#[test]
fn conversation_refuses_per_message_flags() {
    for flags in [&["--revision", "2025-11-25"][..], &["--def", "Tool"], &["--jsonl"]] {
        let mut args = vec!["validate"];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["--conversation", "-"]);
        let (code, _, err) = mcpgen(&args, b"");
        assert_eq!(code, 2, "{flags:?}: {err}");
    }
    let (code, _, err) = mcpgen(&["validate", "--conversation", "/nonexistent/file.jsonl"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("cannot read /nonexistent/file.jsonl"), "{err}");
}

#[test]
fn check_request_jsonl_and_json() {
    let input = format!("{}\n\n{}\n", good_call(1), bad_call(2));
    let (code, out, err) = mcpgen(&["check-request", "--jsonl", "--format", "json", "-"], input.as_bytes());
    assert_eq!(code, 1, "{err}");
    let objs = objects(&out);
    assert_eq!(objs.len(), 2);
    assert_eq!(objs[0]["source"], "<stdin>:1");
    assert_eq!(
        (&objs[0]["valid"], &objs[0]["method"], &objs[0]["revision"]),
        (&Value::Bool(true), &Value::from("tools/call"), &Value::from("2026-07-28"))
    );
    assert_eq!(objs[1]["source"], "<stdin>:3");
    assert_eq!(objs[1]["valid"], false);
    assert_eq!(objs[1]["response"]["id"], 2);
    assert_eq!(objs[1]["response"]["error"]["code"], -32602);
    assert!(objs[1]["httpStatus"].is_u64() && objs[1]["rule"].is_string(), "{}", objs[1]);
    assert_eq!(objs[1]["errors"][0]["pointer"], "/params/name", "{}", objs[1]);

    // Text with --jsonl: each refusal prefixed with its place, a summary on stderr.
    let (code, out, err) = mcpgen(&["check-request", "--jsonl", "-"], input.as_bytes());
    assert_eq!(code, 1);
    assert!(out.starts_with("<stdin>:3: {\"response\":"), "{out}");
    assert_eq!(out.lines().count(), 1);
    assert!(err.contains("2 requests checked: 1 served, 1 refused"), "{err}");

    // One document, JSON output.
    let (code, out, _) = mcpgen(&["check-request", "--format", "json", "-"], good_call(3).as_bytes());
    assert_eq!(code, 0);
    assert_eq!(objects(&out)[0]["valid"], true);
}

#[test]
fn decode_jsonl_and_json() {
    let input = "{ \"type\": \"text\", \"text\": \"hi\", \"n\": 1.50 }\n{\"type\":\"text\"}\n\n{\"type\":\"text\",\"text\":\"b\"}\n";
    let (code, out, err) = mcpgen(&["decode", "--def", "TextContent", "--jsonl", "-"], input.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(out, "{\"text\":\"hi\",\"type\":\"text\",\"n\":1.50}\n{\"text\":\"b\",\"type\":\"text\"}\n");
    assert!(err.starts_with("<stdin>:2: "), "{err}");

    let (code, out, _) =
        mcpgen(&["decode", "--def", "TextContent", "--jsonl", "--format", "json", "-"], input.as_bytes());
    assert_eq!(code, 1);
    let objs = objects(&out);
    let sources: Vec<&str> = objs.iter().map(|o| o["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["<stdin>:1", "<stdin>:2", "<stdin>:4"]);
    assert_eq!(objs[0]["output"]["text"], "hi");
    assert!(out.lines().next().unwrap().contains("\"n\":1.50"), "number text kept: {out}");
    assert_eq!(objs[1]["valid"], false);
    assert_eq!(objs[1]["errors"][0]["keyword"], "required");
    assert!(objs[1].get("output").is_none());

    // --result-for with JSON output; an unknown definition stays a usage error.
    let (code, out, _) = mcpgen(
        &["decode", "--result-for", "tools/call", "--format", "json", "-"],
        br#"{"resultType":"input_required","requestState":"s"}"#,
    );
    assert_eq!(code, 0);
    assert_eq!(objects(&out)[0]["output"]["requestState"], "s");
    let (code, _, err) = mcpgen(&["decode", "--def", "Nope", "--jsonl", "-"], b"{}\n");
    assert_eq!(code, 2, "{err}");
}

/// `validate --conversation --format json` over every conversation vector gives the findings
/// the Rust runner (mcpgen/tests/conversations.rs) expects: (line, rule, level, pointer) as a
/// multiset, nothing on other lines.
#[test]
fn conversation_vectors_give_the_expected_findings() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/conversations");
    let mut vectors: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    vectors.sort();
    assert!(!vectors.is_empty(), "no vectors in {}", dir.display());
    let mut failures = Vec::new();
    for v in &vectors {
        let expect: Value =
            serde_json::from_str(&std::fs::read_to_string(v.with_extension("expect.json")).unwrap()).unwrap();
        let mut want: Vec<(u64, Value, String, String)> = expect["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["line"].as_u64().unwrap(),
                    f["rule"].clone(),
                    f["level"].as_str().unwrap().into(),
                    f["pointer"].as_str().unwrap().into(),
                )
            })
            .collect();
        let (code, out, err) = mcpgen(&["validate", "--format", "json", "--conversation", v.to_str().unwrap()], b"");
        let mut got = Vec::new();
        for o in objects(&out) {
            let line: u64 = o["source"].as_str().unwrap().rsplit(':').next().unwrap().parse().unwrap();
            for e in o["errors"].as_array().unwrap() {
                // Every finding names the era and revision its message was judged under.
                assert!(matches!(e["era"].as_str(), Some("modern" | "legacy")), "{}:{line}: era in {e}", v.display());
                assert!(
                    e["revision"].as_str().is_some_and(|r| !r.is_empty()),
                    "{}:{line}: revision in {e}",
                    v.display()
                );
                got.push((
                    line,
                    e["rule"].clone(),
                    e["level"].as_str().unwrap().to_owned(),
                    e["pointer"].as_str().unwrap().to_owned(),
                ));
            }
        }
        let any_error = want.iter().any(|w| w.2 == "error");
        want.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        got.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        if got != want || code != i32::from(any_error) {
            failures.push(format!("{}: exit {code} ({err})\n  want {want:?}\n  got  {got:?}", v.display()));
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors differ:\n{}", failures.len(), vectors.len(), failures.join("\n"));
}
