//! The `mcpgen` binary's contract: output and exit codes.

use std::io::Write;
use std::process::{Command, Stdio};

fn mcpgen(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpgen");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn decode_prints_reencoded_json() {
    let (code, out, err) = mcpgen(&["decode", "--def", "TextContent", "-"], br#"{ "type": "text", "text": "hi", "n": 1.50 }"#);
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
    let (code, out, err) = mcpgen(&["decode", "--result-for", "tools/call", "-"], br#"{"resultType":"input_required","requestState":"s"}"#);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), r#"{"requestState":"s","resultType":"input_required"}"#);
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
    assert!(out.contains("/inputSchema/properties/a/$ref") && out.contains("https://evil.example/a.json") && out.contains("network_ref"), "{out}");
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
fn check_tool_usage_errors_exit_2() {
    assert_eq!(mcpgen(&["check-tool", "/nonexistent/tools.json"], b"").0, 2);
    assert_eq!(mcpgen(&["check-tool", "-"], b"not json").0, 2);
    assert_eq!(mcpgen(&["check-tool", "-"], b"[1,2]").0, 2);
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
    let (code, out, _) = mcpgen(&["check-icon", "https://example.com/i", "--bytes", png.to_str().unwrap(), "--mime", "image/jpeg"], b"");
    assert_eq!(code, 1);
    assert!(out.contains("type_mismatch"), "{out}");
    let (code, out, _) = mcpgen(&["check-icon", "https://example.com/i", "--bytes", png.to_str().unwrap(), "--mime", "image/png"], b"");
    assert_eq!((code, out.trim()), (0, "ok: image/png image"));
    let (code, out, _) = mcpgen(&["check-icon", "https://cdn.example.net/i.png", "--server", "https://mcp.example.com/mcp"], b"");
    assert_eq!((code, out.contains("cross_origin")), (1, true), "{out}");
    assert_eq!(mcpgen(&["check-icon", "https://example.com/i", "--bytes", "/nonexistent"], b"").0, 2);
    std::fs::remove_dir_all(&dir).ok();
}
