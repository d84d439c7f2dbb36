//! The `mcpgen` binary's contract: output and exit codes.

mod support;

use std::process::Stdio;

use support::{mcpgen, mcpgen_command, vectors};

#[test]
fn decode_prints_reencoded_json() {
    let (code, out, err) =
        mcpgen(&["decode", "--def", "TextContent", "-"], br#"{ "type": "text", "text": "hi", "n": 1.50 }"#);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), r#"{"text":"hi","type":"text","n":1.50}"#);
}

#[test]
fn invalid_input_exits_1_with_pointer() {
    let (code, out, err) = mcpgen(&["decode", "--def", "CallToolRequest", "-"], br#"{"jsonrpc":"2.0","id":1,"method":"tools/calll","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"x"}}"#);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("/method"), "{err}");
    assert!(err.contains("tools/call"), "expected value named: {err}");
    assert!(err.contains("tools/calll"), "found value named: {err}");
}

#[test]
fn strict_policy_flag() {
    let input = br#"{"type":"text","text":"hi","x":1}"#;
    assert_eq!(mcpgen(&["decode", "--def", "TextContent", "--policy", "strict", "-"], input).0, 1);
    let (code, out, _) = mcpgen(&["decode", "--def", "TextContent", "--policy", "lenient", "-"], input);
    assert_eq!((code, out.trim()), (0, r#"{"text":"hi","type":"text"}"#));
}

#[test]
fn result_for_method() {
    let (code, out, err) = mcpgen(
        &["decode", "--result-for", "tools/call", "-"],
        br#"{"resultType":"input_required","requestState":"s"}"#,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), r#"{"requestState":"s","resultType":"input_required"}"#);
    // The same rules as the conversation checker: MRTR-3, RESULT-3, and unknown or removed
    // methods (MSG-9) are refusals, with their rule id in the JSON form.
    let (code, _, err) = mcpgen(&["decode", "--result-for", "tools/call", "-"], br#"{"resultType":"input_required"}"#);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("MRTR-3"), "{err}");
    let (code, _, err) =
        mcpgen(&["decode", "--result-for", "tools/call", "-"], br#"{"resultType":"later","content":[]}"#);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("RESULT-3"), "{err}");
    // A method the revision lacks is a name given on the command line: a usage error (exit 2,
    // as an unknown `--def`), with the core's MSG-9 message.
    for method in ["no/such/method", "initialize"] {
        let (code, out, err) =
            mcpgen(&["decode", "--result-for", method, "--format", "json", "-"], br#"{"resultType":"complete"}"#);
        assert_eq!(code, 2, "{method}: {out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(&format!("no method `{method}`")) && err.contains("MSG-9"), "{err}");
    }
}

#[test]
fn usage_and_io_errors_exit_2() {
    assert_eq!(mcpgen(&["decode", "--def", "TextContent", "/nonexistent/file.json"], b"").0, 2);
    assert_eq!(mcpgen(&["decode", "--revision", "1999-01-01", "--def", "TextContent", "-"], b"{}").0, 2);
    assert_eq!(mcpgen(&["decode", "--def", "NoSuchDef", "-"], b"{}").0, 2);
    assert_eq!(mcpgen(&["decode", "-"], b"{}").0, 2);
    assert_eq!(mcpgen(&["frobnicate"], b"").0, 2);
}

#[test]
fn not_json_exits_1() {
    let (code, _, err) = mcpgen(&["decode", "--def", "TextContent", "-"], b"{\"type\":");
    assert_eq!(code, 1);
    assert!(err.contains("line 1"), "{err}");
}

#[test]
fn check_tool_reports_every_tool_and_exits_1_on_problems() {
    let list = br#"{"tools":[
        {"name":"good","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}},
        {"name":"remote","inputSchema":{"type":"object","properties":{"a":{"$ref":"https://evil.example/a.json"}}}},
        {"name":"old","inputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}}
    ]}"#;
    let (code, out, err) = mcpgen(&["check-tool", "-"], list);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("ok    good (/tools/0)"), "{out}");
    assert!(
        out.contains("/inputSchema/properties/a/$ref")
            && out.contains("https://evil.example/a.json")
            && out.contains("network_ref"),
        "{out}"
    );
    assert!(out.contains("unsupported dialect http://json-schema.org/draft-04/schema#"), "{out}");
    assert!(out.contains("3 tool(s), 2 with problems"), "{out}");
}

#[test]
fn check_tool_accepts_a_single_good_tool() {
    let (code, out, err) = mcpgen(&["check-tool", "-"], br#"{"name":"t","inputSchema":{"type":"object"}}"#);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 tool(s), 0 with problems"), "{out}");
}

#[test]
fn check_tool_usage_errors_exit_2_invalid_documents_exit_1() {
    assert_eq!(mcpgen(&["check-tool", "/nonexistent/tools.json"], b"").0, 2);
    assert_eq!(mcpgen(&["check-tool"], b"").0, 2);
    // Invalid input, not usage: exit 1 with the core's message and the error's kind.
    let (code, out, err) = mcpgen(&["check-tool", "-"], b"not json");
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert_eq!(err.trim(), "invalid JSON at line 1 column 1 (byte 0): invalid literal; expected `null` [parse]");
    let (code, _, err) = mcpgen(&["check-tool", "-"], b"[1,2]");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("[not_a_tool_document]"), "{err}");
}

#[test]
fn check_icon_schemes_mime_and_bytes() {
    assert_eq!(mcpgen(&["check-icon", "https://example.com/i.png"], b"").0, 0);
    let (code, out, _) = mcpgen(&["check-icon", "http://example.com/i.png"], b"");
    assert_eq!(code, 1);
    assert!(out.contains("http_not_allowed"), "{out}");
    assert_eq!(mcpgen(&["check-icon", "--allow-http", "http://example.com/i.png"], b"").0, 0);
    let (code, out, _) = mcpgen(&["check-icon", "javascript:alert(1)"], b"");
    assert_eq!((code, out.contains("scheme_not_allowed")), (1, true), "{out}");
    // A PNG labelled as JPEG, from a file.
    let dir = std::env::temp_dir().join(format!("mcpgen-cli-icon-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("icon.png");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let (code, out, _) =
        mcpgen(&["check-icon", "https://example.com/i", "--bytes", png.to_str().unwrap(), "--mime", "image/jpeg"], b"");
    assert_eq!(code, 1);
    assert!(out.contains("type_mismatch"), "{out}");
    let (code, out, _) =
        mcpgen(&["check-icon", "https://example.com/i", "--bytes", png.to_str().unwrap(), "--mime", "image/png"], b"");
    assert_eq!((code, out.trim()), (0, "ok: image/png image"));
    let (code, out, _) =
        mcpgen(&["check-icon", "https://cdn.example.net/i.png", "--server", "https://mcp.example.com/mcp"], b"");
    assert_eq!((code, out.contains("cross_origin")), (1, true), "{out}");
    assert_eq!(mcpgen(&["check-icon", "https://example.com/i", "--bytes", "/nonexistent"], b"").0, 2);
    std::fs::remove_dir_all(&dir).ok();
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn tools_call(name: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{META},"name":{name}}}}}"#)
}

#[test]
fn validate_is_method_aware() {
    // The generic envelope would accept this; the method's definition does not.
    let (code, out, _) = mcpgen(&["validate", "-"], tools_call("{}").as_bytes());
    assert_eq!(code, 1);
    assert!(out.contains("/params/name"), "{out}");
    let (code, out, err) = mcpgen(&["validate", "-"], tools_call("\"t\"").as_bytes());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("valid (request `tools/call`)"), "{out}");
    // --def validates against that definition only.
    assert_eq!(mcpgen(&["validate", "--def", "JSONRPCMessage", "-"], tools_call("{}").as_bytes()).0, 0);
}

#[test]
fn validate_json_format_one_object_per_message() {
    let input = format!(
        "{}\n\n{}\r\nnot json\n",
        tools_call("\"t\""),
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
    );
    let (code, out, _) = mcpgen(&["validate", "--jsonl", "--format", "json", "-"], input.as_bytes());
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0]["source"], "<stdin>:1");
    assert_eq!(lines[0]["valid"], true);
    assert_eq!(lines[0]["errors"], serde_json::json!([]));
    assert_eq!(lines[1]["source"], "<stdin>:3");
    assert_eq!(lines[1]["valid"], false);
    let e = &lines[1]["errors"][0];
    assert_eq!(e["rule"], "SUB-4");
    for k in ["pointer", "schemaPath", "keyword", "rule", "message"] {
        assert!(e.get(k).is_some(), "missing {k}: {e}");
    }
    assert_eq!(lines[2]["source"], "<stdin>:4");
    assert_eq!(lines[2]["errors"][0]["keyword"], "parse");
}

#[test]
fn validate_walks_directories() {
    let dir = std::env::temp_dir().join(format!("mcpgen-cli-walk-{}", std::process::id()));
    let sub = dir.join("b");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(dir.join("a.json"), tools_call("\"t\"")).unwrap();
    std::fs::write(dir.join("ignored.txt"), "not a message").unwrap();
    std::fs::write(sub.join("c.jsonl"), format!("{}\n{}\n", tools_call("\"t\""), tools_call("1"))).unwrap();
    let (code, out, err) = mcpgen(&["validate", "--format", "json", dir.to_str().unwrap()], b"");
    let sources: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["source"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(code, 1, "{err}");
    assert_eq!(sources.len(), 3, "{out}");
    assert!(
        sources[0].ends_with("a.json:1") && sources[1].ends_with("c.jsonl:1") && sources[2].ends_with("c.jsonl:2"),
        "{sources:?}"
    );
    let (code, _, err) = mcpgen(&["validate", sub.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains("2 messages checked: 1 valid, 1 invalid"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn validate_rules_and_flags() {
    let otel = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}}}"#;
    let (code, out, _) = mcpgen(&["validate", "-"], otel.as_bytes());
    assert_eq!(code, 1);
    assert!(out.contains("OTEL-1"), "{out}");
    let uri = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{{META},"uri":"not a uri"}}}}"#);
    assert_eq!(mcpgen(&["validate", "-"], uri.as_bytes()).0, 0);
    assert_eq!(mcpgen(&["validate", "--strict-formats", "-"], uri.as_bytes()).0, 1);
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(mcpgen(&["validate", "-"], ping.as_bytes()).0, 1);
    assert_eq!(mcpgen(&["validate", "--revision", "2025-11-25", "-"], ping.as_bytes()).0, 0);
}

#[test]
fn validate_usage_errors_exit_2() {
    assert_eq!(mcpgen(&["validate", "/nonexistent/x.json"], b"").0, 2);
    assert_eq!(mcpgen(&["validate", "--def", "NoSuchDef", "-"], b"{}").0, 2);
    assert_eq!(mcpgen(&["validate", "--revision", "1999-01-01", "-"], b"{}").0, 2);
    assert_eq!(mcpgen(&["validate", "--format", "xml", "-"], b"{}").0, 2);
    assert_eq!(mcpgen(&["validate"], b"").0, 2);
}

#[test]
fn check_request_accepts_silently() {
    let (code, out, err) = mcpgen(&["check-request", "-"], tools_call("\"t\"").as_bytes());
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
}

#[test]
fn check_request_prints_the_error_response() {
    let (code, out, _) = mcpgen(&["check-request", "-"], br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["httpStatus"], 400);
    assert_eq!(v["rule"], "META-6");
    assert_eq!(v["response"]["id"], 7);
    assert_eq!(v["response"]["error"]["code"], -32602);
    // Batch: no id member at all.
    let (code, out, _) = mcpgen(&["check-request", "-"], b"[1,2]");
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["response"].get("id").is_none(), "{out}");
    assert_eq!(v["rule"], "MSG-1");
}

#[test]
fn check_request_supported_versions() {
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let (code, out, _) = mcpgen(&["check-request", "--supported-versions", "2026-07-28", "-"], init);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["rule"], "ERA-8");
    assert_eq!(v["response"]["error"]["data"]["supported"], serde_json::json!(["2026-07-28"]));
    assert_eq!(mcpgen(&["check-request", "--supported-versions", "2026-07-28,2025-11-25", "-"], init).0, 0);
    assert_eq!(mcpgen(&["check-request", "--supported-versions", "2026-07-28,1999-01-01", "-"], init).0, 2);
    let (code, out, _) = mcpgen(
        &["check-request", "--supported-versions", "2026-07-28", "-"],
        tools_call("\"t\"").replace("2026-07-28", "2099-01-01").as_bytes(),
    );
    assert_eq!(code, 1);
    assert!(out.contains("-32022") && out.contains(r#""requested":"2099-01-01""#), "{out}");
}

#[test]
fn explain_shows_fields_and_method_row() {
    let (code, out, err) = mcpgen(&["explain", "CallToolRequestParams"], b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("#/$defs/CallToolRequestParams"), "{out}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("name") && l.contains("string") && l.contains("required")),
        "{out}"
    );
    assert!(out.lines().any(|l| l.trim_start().starts_with("arguments") && l.contains("optional")), "{out}");
    let (code, out, _) = mcpgen(&["explain", "tools/call"], b"");
    assert_eq!(code, 0);
    assert!(out.starts_with("CallToolRequest "), "{out}");
    assert!(out.contains("results:    CallToolResult, InputRequiredResult"), "{out}");
    let (_, out, _) = mcpgen(&["explain", "ContentBlock"], b"");
    assert!(out.contains("TextContent") && out.contains("One of"), "{out}");
    let (_, out, _) = mcpgen(&["explain", "CallToolResult"], b"");
    assert!(out.contains("Result of: tools/call"), "{out}");
    assert_eq!(mcpgen(&["explain", "NoSuchThing"], b"").0, 2);
    assert_eq!(mcpgen(&["explain", "--revision", "2025-11-25", "InitializeRequest"], b"").0, 0);
}

#[test]
fn explain_prints_a_rule() {
    let (code, out, err) = mcpgen(&["explain", "META-6"], b"");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "META-6 (MUST)");
    assert!(lines[1].contains("io.modelcontextprotocol/protocolVersion"), "{out}");
    assert!(lines[2].starts_with("source: basic"), "{out}");
    // META-6 exists at 2026-07-28 only: its clause, then the revisions without it.
    assert!(lines[3].contains("MUST \"A request missing any required field is malformed"), "{out}");
    assert!(lines[4].contains("the rule does not exist at these revisions"), "{out}");
    assert!(lines[5].starts_with("mcpgen: protocol::check_request"), "{out}");
    // The clause at each revision: RES-1 is a MUST (-32602) at 2026-07-28, a SHOULD (-32002) before.
    let (_, out, _) = mcpgen(&["explain", "RES-1"], b"");
    assert!(
        out.contains("clause (other revisions): MUST \"If the requested resource does not exist, servers MUST return")
            && out.contains("(server/resources, code -32602)"),
        "{out}"
    );
    assert!(
        out.contains("clause at 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05: SHOULD \"Servers SHOULD return")
            && out.contains("(server/resources, code -32002)"),
        "{out}"
    );
    let (_, out, _) = mcpgen(&["explain", "ERR-4"], b"");
    assert!(out.contains("the rule does not exist at these revisions"), "{out}");
    // Ids compare case-insensitively; the bare-word ids are rules too.
    assert_eq!(mcpgen(&["explain", "amb-10"], b"").1.lines().next(), Some("AMB-10 (choice)"));
    let (_, out, _) = mcpgen(&["explain", "CANCEL-4"], b"");
    assert!(out.contains("mcpgen: not judgeable from one message: "), "{out}");
    let (_, out, _) = mcpgen(&["explain", "ID-2"], b"");
    assert!(out.contains("mcpgen: conversation::Conversation"), "{out}");
    assert_eq!(mcpgen(&["explain", "POLICY-STRICT"], b"").0, 0);
    assert_eq!(mcpgen(&["explain", "SCHEMA"], b"").0, 0);
}

#[test]
fn explain_unknown_rule_exits_2() {
    // Made-up ids, spelled in pieces so the catalogue's coverage test does not take them for ids in use.
    for id in [concat!("META", "-999"), concat!("NOPE", "-1"), concat!("POLICY", "-LAX")] {
        let (code, out, err) = mcpgen(&["explain", id], b"");
        assert_eq!(code, 2, "{id}: {out}");
        assert!(err.contains(&format!("`{id}` is not a rule id")) && err.contains("mcpgen rules"), "{err}");
    }
    // Not rule-shaped: still a definition lookup.
    let (code, _, err) = mcpgen(&["explain", "NoSuchThing"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("no definition or method named"), "{err}");
}

#[test]
fn rules_lists_the_catalogue() {
    let (code, out, err) = mcpgen(&["rules", "--format", "json"], b"");
    assert_eq!(code, 0, "{err}");
    let list: serde_json::Value = serde_json::from_str(&out).expect("one JSON array");
    let list = list.as_array().unwrap();
    assert!(list.len() > 250, "{} rules", list.len());
    for r in list {
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(sorted, ["clause", "code", "enforced", "id", "level", "revisions", "source", "summary"], "{r}");
        let texts = ["enforced", "id", "level", "source", "summary"];
        assert!(texts.iter().all(|k| r[k].as_str().is_some_and(|s| !s.is_empty())), "{r}");
        assert!(r["clause"].is_null() || r["clause"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
        assert!(r["revisions"].is_array(), "{r}");
    }
    let meta6 = list.iter().find(|r| r["id"] == "META-6").expect("META-6 listed");
    assert_eq!(meta6["level"], "MUST");
    assert!(meta6["source"].as_str().unwrap().contains("schema.json#/$defs/RequestParams"));
    assert!(meta6["enforced"].as_str().unwrap().starts_with("protocol::check_request"));
    let id2 = list.iter().find(|r| r["id"] == "ID-2").unwrap();
    assert!(id2["enforced"].as_str().unwrap().starts_with("conversation::Conversation: "), "{id2}");
    let cancel4 = list.iter().find(|r| r["id"] == "CANCEL-4").unwrap();
    assert!(cancel4["enforced"].as_str().unwrap().starts_with("not judgeable from one message: "), "{cancel4}");
    for id in ["SCHEMA", "POLICY-STRICT", "AMB-10", "ERA-8", "Q-17"] {
        assert!(list.iter().any(|r| r["id"] == id), "{id} missing");
    }

    let (code, text, _) = mcpgen(&["rules"], b"");
    assert_eq!(code, 0);
    assert_eq!(text.lines().count(), list.len());
    let line = text.lines().find(|l| l.starts_with("META-6 ")).unwrap();
    assert!(line.contains(" MUST ") && line.contains(" enforced ") && line.contains("protocolVersion"), "{line}");
    assert_eq!(mcpgen(&["rules", "--format", "yaml"], b"").0, 2);
}

// ---- the shared vectors through the binary ------------------------------------------------

/// The JSON text a tools vector checks (`document`, `document_text`, `document_nest`, `tool`).
fn tools_vector_text(case: &serde_json::Value) -> String {
    if let Some(d) = case.get("document").or_else(|| case.get("tool")) {
        return d.to_string();
    }
    if let Some(t) = case["document_text"].as_str() {
        return t.to_owned();
    }
    let n = &case["document_nest"];
    let part = |k: &str| n[k].as_str().unwrap_or("").to_owned();
    let count = n["count"].as_u64().expect("document_nest.count") as usize;
    [part("prefix"), part("open").repeat(count), part("inner"), part("close").repeat(count), part("suffix")].concat()
}

/// A problem line of `check-tool` (`  {pointer}: {message} [{kind}; {rule}]`, the core's
/// `SchemaError` display) as (pointer, message, kind, rule).
fn problem_line(line: &str) -> Option<(String, String, String, String)> {
    let body = line.strip_prefix("  ")?.strip_suffix(']')?;
    let (text, tags) = body.rsplit_once(" [")?;
    let (kind, rule) = tags.split_once("; ")?;
    let (at, message) = text.split_once(": ")?;
    let pointer = if at == "(root)" { "" } else { at };
    Some((pointer.to_owned(), message.to_owned(), kind.to_owned(), rule.to_owned()))
}

fn problem_matches(want: &serde_json::Value, got: &(String, String, String, String)) -> bool {
    let s = |k: &str| want[k].as_str();
    s("kind") == Some(got.2.as_str())
        && s("pointer").is_none_or(|p| p == got.0)
        && s("rule").is_none_or(|r| r == got.3)
        && s("message").is_none_or(|m| m == got.1)
        && s("message_contains").is_none_or(|m| got.1.contains(m))
}

/// Every vectors/tools case without `limits` (the command has no limit options) through
/// `mcpgen check-tool -`: exit 0 when the tools are usable, 1 for a tool problem or a document
/// that cannot be checked (its kind and the core's message on stderr), and the problems with
/// the kinds, rules, pointers and messages the other surfaces report.
#[test]
fn check_tool_runs_the_tool_vectors() {
    let mut run = 0;
    for path in vectors("tools") {
        let case: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if case.get("limits").is_some() {
            continue;
        }
        run += 1;
        let expect = &case["expect"];
        let (code, out, err) = mcpgen(&["check-tool", "-"], tools_vector_text(&case).as_bytes());
        if let Some(e) = expect.get("error") {
            assert_eq!((code, out.as_str()), (1, ""), "{name}: {err}");
            let kind = e["kind"].as_str().unwrap();
            assert_eq!(err, format!("{} [{kind}]\n", e["message"].as_str().unwrap()), "{name}");
            continue;
        }
        let want_ok = expect["ok"].as_bool().unwrap();
        assert_eq!(code, if want_ok { 0 } else { 1 }, "{name}:\n{out}{err}");
        let problems: Vec<_> = out.lines().filter_map(problem_line).collect();
        if let Some(reports) = expect.get("reports").and_then(|r| r.as_array()) {
            // Exact: one line per tool, its problems in order, the summary.
            let mut at = 0;
            let bad = reports.iter().filter(|r| !r["errors"].as_array().unwrap().is_empty()).count();
            for r in reports {
                let (pointer, tool) = (r["pointer"].as_str().unwrap(), r["name"].as_str().unwrap());
                let errors = r["errors"].as_array().unwrap();
                let head = if errors.is_empty() {
                    format!("ok    {tool} ({pointer})")
                } else {
                    format!("FAIL  {tool} ({pointer}): {} problem(s)", errors.len())
                };
                assert!(out.lines().any(|l| l == head), "{name}: no line {head:?} in\n{out}");
                for w in errors {
                    // Problem lines point into their tool, as the reports do.
                    assert!(problem_matches(w, &problems[at]), "{name}: {w} vs {:?}", problems[at]);
                    at += 1;
                }
            }
            assert_eq!(at, problems.len(), "{name}: extra problems in\n{out}");
            assert!(out.ends_with(&format!("{} tool(s), {bad} with problems\n", reports.len())), "{name}:\n{out}");
        }
        for w in expect.get("errors").and_then(|e| e.as_array()).into_iter().flatten() {
            assert!(problems.iter().any(|p| problem_matches(w, p)), "{name}: no problem matches {w} in\n{out}");
        }
    }
    assert!(run > 40, "{run} tool vectors run");
}

/// A vector's input text: `input` as JSON, or `input_text` as it is.
fn vector_input(v: &serde_json::Value) -> String {
    match (v.get("input"), v.get("input_text")) {
        (Some(i), _) => i.to_string(),
        (None, Some(t)) => t.as_str().expect("input_text is a string").to_owned(),
        _ => panic!("vector without input: {v}"),
    }
}

/// The `errors` of a `--format json` line, union arms flattened.
fn json_errors(line: &serde_json::Value) -> Vec<serde_json::Value> {
    fn walk(list: &[serde_json::Value], out: &mut Vec<serde_json::Value>) {
        for e in list {
            out.push(e.clone());
            for arm in e["arms"].as_array().into_iter().flatten() {
                walk(arm["errors"].as_array().map_or(&[][..], Vec::as_slice), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(line["errors"].as_array().expect("an `errors` list"), &mut out);
    out
}

/// `expect.errors`: every pattern `{pointer?, keyword?, rule?, message?}` matches one printed
/// error whole (`rule` `null` is JSON `null`, no rule), as the library's runners check it.
fn assert_error_patterns(name: &str, expect: &serde_json::Value, errors: &[serde_json::Value], out: &str) {
    for w in expect["errors"].as_array().into_iter().flatten() {
        let found = errors
            .iter()
            .any(|e| ["pointer", "keyword", "rule", "message"].iter().all(|k| w.get(*k).is_none_or(|v| v == &e[*k])));
        assert!(found, "{name}: no error matches {w} in {out}");
    }
}

/// Every `validate_message` vector with error patterns through `mcpgen validate --format json`
/// (policy and formats as the vector says): exit 1, and the pointer, keyword, rule and exact
/// message of each pattern (MSG-9 at `/method` with `enum`, `parse` at the root, `_meta` keys,
/// OTEL-1..3, …).
/// The protocol vectors of `operation` that state error patterns: (file name, vector).
fn protocol_vectors_with_errors(operation: &str) -> Vec<(String, serde_json::Value)> {
    vectors("protocol")
        .into_iter()
        .map(|path| {
            let case: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            (path.file_name().unwrap().to_string_lossy().into_owned(), case)
        })
        .filter(|(_, case)| case["operation"] == operation && case["expect"].get("errors").is_some())
        .collect()
}

#[test]
fn validate_reports_the_vectors_errors() {
    let cases = protocol_vectors_with_errors("validate_message");
    assert!(cases.len() >= 20, "{} protocol vectors", cases.len());
    for (name, case) in cases {
        let rev = case["revision"].as_str().unwrap();
        let policy = case.get("policy").and_then(|p| p.as_str()).unwrap_or("lossless");
        let mut args = vec!["validate", "--revision", rev, "--policy", policy, "--format", "json"];
        if case.get("strict_formats") == Some(&serde_json::Value::Bool(true)) {
            args.push("--strict-formats");
        }
        args.push("-");
        let (code, out, err) = mcpgen(&args, vector_input(&case).as_bytes());
        let want_accept = case["expect"]["accept"].as_bool().unwrap();
        assert_eq!(code, if want_accept { 0 } else { 1 }, "{name}: {out}{err}");
        let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_error_patterns(&name, &case["expect"], &json_errors(&line), &out);
    }
}

/// Every `check_request` vector with error patterns through `mcpgen check-request --format
/// json`: the refusal's entries (top level, as the Rust runner reads them).
#[test]
fn check_request_reports_the_vectors_errors() {
    let cases = protocol_vectors_with_errors("check_request");
    assert!(cases.len() >= 2, "{} check_request vectors", cases.len());
    for (name, case) in cases {
        let versions = case
            .get("supported_versions")
            .map(|v| v.as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect::<Vec<_>>().join(","));
        let mut args = vec!["check-request", "--format", "json"];
        if let Some(v) = &versions {
            args.extend(["--supported-versions", v]);
        }
        args.push("-");
        let (code, out, err) = mcpgen(&args, vector_input(&case).as_bytes());
        assert_eq!(code, 1, "{name}: {out}{err}");
        let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let top: Vec<serde_json::Value> = line["errors"].as_array().unwrap().clone();
        assert_error_patterns(&name, &case["expect"], &top, &out);
    }
}

/// Every failing decode vector through `mcpgen decode --format json`: exit 1 and the core's
/// entries with the pointer, keyword and rule the library, C and Python report (`expect.errors`,
/// `pointer`, `keyword`, `rule`): MSG-9 at `/method` with `enum`, `parse` at the root.
#[test]
fn decode_reports_the_vectors_errors() {
    let (mut run, mut with_patterns) = (0, 0);
    for path in vectors("decode") {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let expect = &v["expect"];
        // An unknown definition is a usage error of the command (exit 2), not a verdict.
        if expect["ok"] != serde_json::Value::Bool(false) || expect["error"] == "unknown_definition" {
            continue;
        }
        run += 1;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let decode = &v["decode"];
        let revision = v["revision"].as_str().unwrap();
        let policy = v.get("policy").and_then(|p| p.as_str()).unwrap_or("lossless");
        let mut args = vec!["decode", "--revision", revision, "--policy", policy, "--format", "json"];
        match (decode["def"].as_str(), decode["result_for_method"].as_str()) {
            (Some(def), _) => args.extend(["--def", def]),
            (None, Some(method)) => args.extend(["--result-for", method]),
            _ => panic!("{name}: decode needs `def` or `result_for_method`"),
        }
        if decode.get("skip_invalid_items") == Some(&serde_json::Value::Bool(true)) {
            args.push("--skip-invalid-items");
        }
        args.push("-");
        let (code, out, err) = mcpgen(&args, vector_input(&v).as_bytes());
        // So is a `--result-for` method the revision lacks (MSG-9 at `/method`): exit 2, the
        // core's message on stderr.
        let method_unknown = expect["errors"].as_array().is_some_and(|e| {
            e.iter().any(|e| e["rule"] == "MSG-9" && e["pointer"] == "/method")
                && decode["result_for_method"].is_string()
        });
        if method_unknown {
            assert_eq!(code, 2, "{name}: {out}{err}");
            assert!(err.contains("MSG-9"), "{name}: {err}");
            with_patterns += 1;
            continue;
        }
        assert_eq!(code, 1, "{name}: {out}{err}");
        let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let errors = json_errors(&line);
        for k in ["pointer", "keyword", "rule"] {
            if let Some(want) = expect.get(k) {
                assert!(errors.iter().any(|e| &e[k] == want), "{name}: no error with {k} {want} in {out}");
            }
        }
        with_patterns += usize::from(expect.get("errors").is_some());
        assert_error_patterns(&name, expect, &errors, &out);
    }
    assert!(run >= 15 && with_patterns >= 4, "{run} failing decode vectors run, {with_patterns} with patterns");
}

#[test]
fn decode_skip_invalid_items() {
    let input = br#"{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[
        {"name":"ok","inputSchema":{"type":"object"}},{"name":"broken"}]}"#;
    // Without the flag the whole result is refused.
    let (code, out, err) = mcpgen(&["decode", "--result-for", "tools/list", "-"], input);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("/tools/1"), "{err}");
    // With it: the result without the bad tool, the skipped one on stderr, exit 0.
    let (code, out, err) = mcpgen(&["decode", "--result-for", "tools/list", "--skip-invalid-items", "-"], input);
    assert_eq!(code, 0, "{err}");
    let result: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(result["tools"].as_array().map(Vec::len), Some(1), "{out}");
    assert!(!out.contains("broken"), "{out}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("skipped /tools/1: ") && lines[0].contains("inputSchema"), "{err}");
    // With --format json the skipped items are part of the object, stderr stays empty.
    let args = ["decode", "--result-for", "tools/list", "--skip-invalid-items", "--format", "json", "-"];
    let (code, out, err) = mcpgen(&args, input);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["valid"], true, "{out}");
    assert_eq!(report["output"]["tools"].as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(report["skipped"].as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(report["skipped"][0]["pointer"], "/tools/1", "{out}");
    assert_eq!(report["skipped"][0]["errors"][0]["pointer"], "/tools/1", "{out}");
    // The flag needs --result-for.
    assert_eq!(mcpgen(&["decode", "--def", "ListToolsResult", "--skip-invalid-items", "-"], input).0, 2);
}

/// Every `skip_invalid_items` decode vector through `mcpgen decode --skip-invalid-items`: the
/// same verdict, output and skipped pointers as the library.
#[test]
fn decode_skip_invalid_items_runs_the_vectors() {
    let mut run = 0;
    for path in vectors("decode") {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let decode = &v["decode"];
        if decode.get("skip_invalid_items") != Some(&serde_json::Value::Bool(true)) {
            continue;
        }
        let name = path.display().to_string();
        let input = match (v.get("input"), v.get("input_text")) {
            (Some(i), _) => i.to_string(),
            (None, Some(t)) => t.as_str().unwrap().to_owned(),
            _ => panic!("{name}: no input"),
        };
        let method = decode["result_for_method"].as_str().unwrap();
        let revision = v["revision"].as_str().unwrap();
        let policy = v.get("policy").and_then(|p| p.as_str()).unwrap_or("lossless");
        let args =
            ["decode", "--revision", revision, "--policy", policy, "--result-for", method, "--skip-invalid-items", "-"];
        let (code, out, err) = mcpgen(&args, input.as_bytes());
        let expect = &v["expect"];
        if expect["ok"] == serde_json::Value::Bool(false) {
            assert_eq!(code, 1, "{name}: {out}{err}");
            run += 1;
            continue;
        }
        assert_eq!(code, 0, "{name}: {err}");
        if let Some(want) = expect.get("output") {
            let got: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(&got, want, "{name}");
        }
        let got: Vec<&str> =
            err.lines().map(|l| l.strip_prefix("skipped ").and_then(|r| r.split(": ").next()).unwrap_or(l)).collect();
        let want: Vec<&str> =
            expect["skipped"].as_array().unwrap().iter().map(|s| s["pointer"].as_str().unwrap()).collect();
        assert_eq!(got, want, "{name}: {err}");
        run += 1;
    }
    assert!(run >= 5, "only {run} skip vectors");
}

// The first mistakes a new user makes, answered (issue 25).

const LEGACY_INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;

#[test]
fn a_legacy_message_under_the_default_revision_hints_revision() {
    let hint = "pass `--revision 2025-11-25`";
    // `initialize` (MSG-9 in 2026-07-28) and a request without `_meta` (META-6).
    for input in [LEGACY_INITIALIZE, br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#] {
        let (code, out, err) = mcpgen(&["validate", "-"], input);
        assert_eq!(code, 1, "{err}");
        assert!(out.contains(hint), "{out}");
        // Asked for explicitly, the revision is what the user meant: no hint.
        let (code, out, _) = mcpgen(&["validate", "--revision", "2026-07-28", "-"], input);
        assert_eq!(code, 1);
        assert!(!out.contains("hint"), "{out}");
    }
    // Invalid in every revision: no hint either.
    let (_, out, _) = mcpgen(&["validate", "-"], br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#);
    assert!(!out.contains("hint"), "{out}");
}

#[test]
fn a_lone_response_says_it_was_checked_as_a_generic_result() {
    let note = |input: &[u8]| mcpgen(&["validate", "-"], input).2;
    for response in [
        &br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":"not a list"}}"#[..],
        br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
    ] {
        let err = note(response);
        assert!(err.contains("checked as a generic result"), "{err}");
        assert!(err.contains("--result-for METHOD") && err.contains("--conversation"), "{err}");
    }
    assert!(!note(LEGACY_INITIALIZE).contains("generic result"));
}

#[test]
fn names_with_a_typo_exit_2_with_a_suggestion() {
    let request = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let cases: [(&[&str], &str); 5] = [
        (&["decode", "--def", "CallToolReqest", "-"], "did you mean `CallToolRequest`?"),
        (&["validate", "--def", "CallToolReqest", "-"], "did you mean `CallToolRequest`?"),
        (&["decode", "--result-for", "tools/lis", "-"], "did you mean `tools/list`?"),
        (&["explain", "tools/lsit"], "did you mean `tools/list`?"),
        (&["explain", concat!("META", "-66")], "did you mean `META-6`?"),
    ];
    for (args, suggestion) in cases {
        let (code, out, err) = mcpgen(args, request);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(suggestion), "{args:?}: {err}");
    }
    // Nothing close: no suggestion, still a usage error.
    let (code, _, err) = mcpgen(&["decode", "--def", "Zzzzzz", "-"], request);
    assert_eq!(code, 2);
    assert!(!err.contains("did you mean"), "{err}");
}

#[test]
fn decode_without_a_target_names_both_flags() {
    let (code, _, err) = mcpgen(&["decode", "-"], b"{}");
    assert_eq!(code, 2);
    assert!(err.contains("--def NAME") && err.contains("--result-for METHOD"), "{err}");
}

#[test]
fn a_closed_stdout_ends_quietly() {
    for args in [&["rules"][..], &["defs"], &["explain", "tools/call"]] {
        let mut child =
            mcpgen_command().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn mcpgen");
        drop(child.stdout.take()); // the reader goes away before mcpgen writes (`mcpgen rules | head -0`)
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn text_errors_have_no_empty_schema_path() {
    let (code, out, _) = mcpgen(&["validate", "-"], br#"{"jsonrpc":"2.0","id":1,"method":"tools/calll","params":{}}"#);
    assert_eq!(code, 1);
    assert!(out.contains("[MSG-9; enum]"), "{out}");
    let (_, out, _) = mcpgen(&["validate", "-"], b"{not json");
    assert!(!out.contains(" at ]"), "{out}");
}

#[test]
fn fail_on_chooses_the_level_that_fails_a_conversation() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/conversations/");
    // SUB-12 findings only: warnings.
    let warnings = format!("{dir}list-changed-legacy.jsonl");
    let code = |extra: &[&str]| {
        let mut args = vec!["validate", "--conversation", warnings.as_str()];
        args.extend(extra);
        mcpgen(&args, b"").0
    };
    assert_eq!(code(&[]), 0, "warnings alone pass by default");
    assert_eq!(code(&["--fail-on", "error"]), 0);
    assert_eq!(code(&["--fail-on", "warning"]), 1);
    // Error-level findings fail at either level.
    let errors = format!("{dir}real-log-without-logging-capability.jsonl");
    for level in ["error", "warning"] {
        assert_eq!(mcpgen(&["validate", "--conversation", &errors, "--fail-on", level], b"").0, 1, "{level}");
    }
    // Only with --conversation, and only the two levels: usage errors.
    assert_eq!(mcpgen(&["validate", "--fail-on", "error", "-"], b"{}").0, 2);
    assert_eq!(mcpgen(&["validate", "--conversation", &warnings, "--fail-on", "info"], b"").0, 2);
}

/// Every protocol vector that negotiates extensions (`extensions`) through `--extension`:
/// `check-request` serves or refuses it with the vector's code and rule, `validate` accepts it
/// or reports the rule; the same vectors with the flag left out are judged as without the
/// extension (a check that the flag is what makes the difference).
#[test]
fn extension_protocol_vectors_through_the_flag() {
    let mut run = 0;
    for path in vectors("protocol") {
        let case: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let Some(exts) = case.get("extensions").and_then(|e| e.as_array()) else { continue };
        run += 1;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expect = &case["expect"];
        let accept = expect["accept"] == true;
        let mut args: Vec<String> = match case["operation"].as_str().unwrap() {
            "check_request" => vec!["check-request".into(), "--format".into(), "json".into()],
            "validate_message" => {
                vec![
                    "validate".into(),
                    "--format".into(),
                    "json".into(),
                    "--revision".into(),
                    case["revision"].as_str().unwrap().into(),
                ]
            }
            other => panic!("{name}: no CLI runner for `extensions` with {other}"),
        };
        let plain = args.clone();
        for e in exts {
            args.extend(["--extension".into(), e.as_str().unwrap().into()]);
        }
        args.push("-".into());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = mcpgen(&argv, vector_input(&case).as_bytes());
        assert_eq!(code, i32::from(!accept), "{name}: {out}{err}");
        if !accept {
            let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
            if let Some(rule) = expect.get("rule") {
                let top = line.get("rule").filter(|r| !r.is_null());
                let any = json_errors(&line).iter().any(|e| e.get("rule") == Some(rule));
                assert!(top == Some(rule) || any, "{name}: no rule {rule} in {out}");
            }
            if let Some(c) = expect.get("code") {
                assert_eq!(&line["response"]["error"]["code"], c, "{name}: {out}");
                assert_eq!(&line["httpStatus"], &expect["http_status"], "{name}: {out}");
            }
        }
        // Without the flag, a vector whose verdict the extension decides (one of its methods,
        // or a refusal by one of its rules) comes out otherwise.
        let method = case["input"]["method"].as_str().unwrap_or("");
        let ext_rule = expect.get("rule").and_then(|r| r.as_str()).is_some_and(|r| r.starts_with("TASK-"));
        if ext_rule || method.starts_with("tasks/") || method == "notifications/tasks" {
            let mut argv: Vec<&str> = plain.iter().map(String::as_str).collect();
            argv.push("-");
            let (code_plain, out_plain, _) = mcpgen(&argv, vector_input(&case).as_bytes());
            let same = code_plain == code && (accept || out_plain == out);
            assert!(!same, "{name}: --extension made no difference: {out_plain}");
        }
    }
    assert!(run >= 5, "{run} protocol vectors with `extensions`");
}

/// `vectors/ext/<name>/` through `mcpgen validate --extension NAME --def DEF` and `decode`:
/// valid cases pass and decode back to their input, invalid ones fail at the vector's pointer.
#[test]
fn extension_vectors_through_validate_and_decode() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/ext");
    let mut run = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        for path in vectors(&format!("ext/{}", dir.file_name().unwrap().to_string_lossy())) {
            run += 1;
            let name = path.display().to_string();
            let case: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let (ext, def) = (case["extension"].as_str().unwrap(), case["def"].as_str().unwrap());
            let input = case["input"].to_string();
            let ok = case["expect"]["ok"] == true;
            let (code, out, err) =
                mcpgen(&["validate", "--format", "json", "--extension", ext, "--def", def, "-"], input.as_bytes());
            assert_eq!(code, i32::from(!ok), "{name}: {out}{err}");
            let (dcode, dout, derr) = mcpgen(&["decode", "--extension", ext, "--def", def, "-"], input.as_bytes());
            assert_eq!(dcode, i32::from(!ok), "{name}: {dout}{derr}");
            if ok {
                let back: serde_json::Value = serde_json::from_str(dout.trim()).unwrap();
                assert_eq!(back, case["input"], "{name}");
            } else if let Some(p) = case["expect"].get("pointer") {
                let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
                assert!(json_errors(&line).iter().any(|e| &e["pointer"] == p), "{name}: no error at {p}: {out}");
            }
        }
    }
    assert!(run >= 10, "{run} extension vectors");
    // Usage errors (exit 2): unknown extension, unknown definition, --revision with --def.
    let get = br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t"}}"#;
    assert_eq!(mcpgen(&["validate", "--extension", "nope", "-"], get).0, 2);
    let (code, _, err) = mcpgen(&["validate", "--extension", "tasks", "--def", "GetTaskReqest", "-"], get);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `GetTaskRequest`"), "{err}");
    assert_eq!(
        mcpgen(&["validate", "--extension", "tasks", "--revision", "2026-07-28", "--def", "GetTaskRequest", "-"], get)
            .0,
        2
    );
    assert_eq!(mcpgen(&["decode", "--extension", "tasks", "-"], get).0, 2);
    assert_eq!(mcpgen(&["check-request", "--extension", "nope", "-"], get).0, 2);
}
