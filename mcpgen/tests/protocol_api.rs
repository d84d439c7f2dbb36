//! The protocol rules through the public API: request checks (ID-1, MSG-1, META-6, VER-1, MSG-9,
//! ERA-8…), response checks (RESULT-2/3/5, MRTR-3), `_meta` keys and extensions, plus the
//! helpers. (The data-driven vectors in `vectors/protocol/` run from `protocol_vectors.rs`.)

use mcpgen::json::{Tape, Value};
use mcpgen::protocol::{
    check_meta_key, check_request, check_response, detect_era_from_http_400, detect_era_from_probe,
    missing_capabilities, missing_capability_error, negotiate_version, required_capability, validate_message,
    CheckedResponse, DetectedEra, ErrorCategory, MessageKind, ProtocolError, ServerConfig,
};
use mcpgen::{DecodeError, JsonView, MessageOptions, Options, Policy, ResultOptions, Revision};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn json(s: &str) -> Value {
    Tape::parse(s).unwrap().root().to_value()
}

fn modern_only() -> ServerConfig {
    ServerConfig::new(["2026-07-28"])
}

fn refused(bytes: &str, config: &ServerConfig) -> ProtocolError {
    match check_request(bytes.as_bytes(), config) {
        Ok(a) => panic!("expected a refusal, accepted {} ({:?})", a.method, a.request),
        Err(e) => e,
    }
}

fn rev(name: &str) -> Revision {
    Revision::parse(name).unwrap()
}

#[test]
fn v28_1_null_id() {
    let e =
        refused(&format!(r#"{{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{{{META}}}}}"#), &modern_only());
    assert_eq!((e.code, e.http_status, e.rule, e.id.is_none()), (-32600, 400, "ID-1", true));
    let resp = e.to_response();
    assert!(resp.get("id").is_none(), "no id member: {}", resp.to_json_string());
    assert_eq!(resp.get("jsonrpc").and_then(Value::as_str), Some("2.0"));
}

#[test]
fn v28_2_fractional_ids() {
    for id in ["1.5", "1.0", "1e0"] {
        let e = refused(
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{META}}}}}"#),
            &modern_only(),
        );
        assert_eq!((e.code, e.http_status, e.id.is_none()), (-32600, 400, true), "id {id}");
    }
    // Huge integer literals keep their text.
    let a = check_request(
        format!(r#"{{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list","params":{{{META}}}}}"#)
            .as_bytes(),
        &modern_only(),
    )
    .unwrap();
    assert_eq!(a.id.unwrap().to_json_string(), "123456789012345678901234567890");
}

#[test]
fn v28_3_batch() {
    let one = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
    let e = refused(&format!("[{one},{one}]"), &modern_only());
    assert_eq!((e.code, e.http_status, e.rule, e.id.is_none()), (-32600, 400, "MSG-1", true));
}

#[test]
fn v28_4_no_params() {
    let e = refused(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#, &modern_only());
    assert_eq!((e.code, e.http_status, e.rule), (-32602, 400, "META-6"));
    assert_eq!(e.to_response().get("id").map(|i| i.to_json_string()), Some("7".into()));
}

#[test]
fn v28_5_no_client_capabilities() {
    let e = refused(
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        &modern_only(),
    );
    assert_eq!((e.code, e.http_status, e.rule), (-32602, 400, "META-6"));
    assert!(e.message.contains("clientCapabilities"), "{}", e.message);
    assert_eq!(e.id, Some(Value::String("a".into())));
}

#[test]
fn v28_6_unsupported_version() {
    let e = refused(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        &ServerConfig::default(),
    );
    assert_eq!((e.code, e.http_status, e.rule), (-32022, 400, "VER-1"));
    let data = e.data.clone().unwrap();
    assert_eq!(data.get("requested").and_then(Value::as_str), Some("1900-01-01"));
    assert!(!data.get("supported").unwrap().as_array().unwrap().is_empty());
    // The rendered response is a schema-valid UnsupportedProtocolVersionError.
    mcpgen::validate(
        rev("2026-07-28"),
        "UnsupportedProtocolVersionError",
        e.to_response_json().as_bytes(),
        Options::default(),
    )
    .unwrap();
}

#[test]
fn v28_6b_legacy_version_in_meta_is_unsupported() {
    // AMB-8: a legacy version is usable only through `initialize`.
    let e = refused(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        &ServerConfig::default(),
    );
    assert_eq!((e.code, e.rule), (-32022, "VER-1"));
}

#[test]
fn v28_7_discover_accepted_and_result_checked() {
    let a = check_request(
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#).as_bytes(),
        &modern_only(),
    )
    .unwrap();
    assert_eq!((a.method.as_str(), a.revision, a.legacy), ("server/discover", rev("2026-07-28"), false));
    assert!(a.request.as_any().is::<mcpgen::rev_2026_07_28::DiscoverRequest>());
    let resp = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
    match check_response(rev("2026-07-28"), resp.as_bytes(), &ResultOptions::method("server/discover")).unwrap() {
        CheckedResponse::Result { id, result } => {
            assert_eq!(id.to_json_string(), "1");
            assert_eq!(result.variant, "DiscoverResult");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn v28_8_gone_method() {
    let e = refused(&format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{{META}}}}}"#), &modern_only());
    assert_eq!((e.code, e.http_status, e.rule), (-32601, 404, "MSG-9"));
    // Without `_meta`, step 6 comes first.
    let e = refused(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#, &modern_only());
    assert_eq!(e.code, -32602);
}

const LEGACY_INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;

#[test]
fn v28_9_legacy_initialize_modern_only() {
    let e = refused(LEGACY_INIT, &modern_only());
    assert!(e.legacy_initialize);
    assert_eq!(e.rule, "ERA-8");
    assert!(e.message.contains("2026-07-28"), "{}", e.message);
    let supported = e.data.as_ref().and_then(|d| d.get("supported")).unwrap();
    assert_eq!(supported.to_json_string(), r#"["2026-07-28"]"#);
    assert_eq!(e.id, Some(json("0")));
}

#[test]
fn legacy_initialize_dual_era() {
    let a =
        check_request(LEGACY_INIT.as_bytes(), &ServerConfig::new(["2026-07-28", "2025-11-25", "2025-06-18"])).unwrap();
    assert!(a.legacy);
    assert_eq!((a.revision, a.method.as_str()), (rev("2025-11-25"), "initialize"));
    assert!(a.request.as_any().is::<mcpgen::rev_2025_11_25::InitializeRequest>());
    // A client version the server lacks: decoded under the server's preferred legacy version.
    let a = check_request(
        LEGACY_INIT.replace("2025-11-25", "2024-11-05").as_bytes(),
        &ServerConfig::new(["2026-07-28", "2025-06-18"]),
    )
    .unwrap();
    assert_eq!(a.revision, rev("2025-06-18"));
}

#[test]
fn parse_errors_have_no_id() {
    for bad in [&b"{\"jsonrpc\":"[..], b"\xff\xfe", b"nope"] {
        let e = check_request(bad, &ServerConfig::default()).unwrap_err();
        assert_eq!((e.code, e.http_status, e.id.is_none()), (-32700, 400, true));
        assert!(e.to_response().get("id").is_none());
    }
}

#[test]
fn params_schema_error_points_inside_params() {
    let e = refused(
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{META},"name":5}}}}"#),
        &modern_only(),
    );
    assert_eq!((e.code, e.http_status, e.rule), (-32602, 200, "SCHEMA"));
    assert!(e.errors.iter().any(|x| x.pointer == "/params/name"), "{:?}", e.errors);
    let data = e.data.unwrap();
    assert!(data.to_json_string().contains("/params/name"));
}

#[test]
fn notifications_accepted_or_refused_without_id() {
    let a = check_request(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        &modern_only(),
    )
    .unwrap();
    assert!(a.id.is_none());
    let a = check_request(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &modern_only()).unwrap();
    assert_eq!(a.method, "notifications/initialized");
    let e = check_request(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}"#,
        &modern_only(),
    )
    .unwrap_err();
    assert_eq!((e.code, e.http_status, e.id.is_none()), (-32602, 400, true));
}

#[test]
fn otel_invalid_value_is_dropped_not_fatal() {
    let msg = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}}}"#;
    check_request(msg.as_bytes(), &modern_only())
        .expect("served despite the invalid traceparent (OTEL-1: dropped, not fatal)");
    let err = validate_message(rev("2026-07-28"), msg.as_bytes(), &MessageOptions::new()).unwrap_err();
    let e = &err.errors()[0];
    assert_eq!((e.rule, e.pointer.as_str()), (Some("OTEL-1"), "/params/_meta/traceparent"));
}

#[test]
fn v28_19_legacy_result_without_result_type() {
    let r = check_response(
        rev("2026-07-28"),
        br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
        &ResultOptions::method("tools/call"),
    )
    .unwrap();
    match r {
        CheckedResponse::Result { result, .. } => assert_eq!(result.variant, "CallToolResult"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn v28_20_unknown_result_type() {
    let body = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task_created","task":{"id":"t"}}}"#;
    let e = check_response(rev("2026-07-28"), body, &ResultOptions::method("tools/call")).unwrap_err();
    assert_eq!(e.rule, Some("RESULT-3"));
    match check_response(rev("2026-07-28"), body, &ResultOptions::method("tools/call").extensions(&["task_created"]))
        .unwrap()
    {
        CheckedResponse::Result { result, .. } => assert_eq!(result.variant, "Raw"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn v28_21_input_required_on_list() {
    let e = check_response(
        rev("2026-07-28"),
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"x"}}"#,
        &ResultOptions::method("tools/list"),
    )
    .unwrap_err();
    assert_eq!(e.rule, Some("RESULT-5"));
}

#[test]
fn v28_22_empty_input_required() {
    let msg = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}"#;
    assert_eq!(
        check_response(rev("2026-07-28"), msg, &ResultOptions::method("tools/call")).unwrap_err().rule,
        Some("MRTR-3")
    );
    let err = validate_message(rev("2026-07-28"), msg, &MessageOptions::new()).unwrap_err();
    assert!(err.errors().iter().any(|e| e.rule == Some("MRTR-3")), "{err}");
}

#[test]
fn v28_23_missing_capability() {
    let req = json(
        r#"{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x","elicitationId":"e"}}"#,
    );
    let required = required_capability(&req);
    assert_eq!(required.to_json_string(), r#"{"elicitation":{"url":{}}}"#);
    let declared = json(r#"{"elicitation":{}}"#);
    let missing = missing_capabilities(&declared, &required).unwrap();
    assert_eq!(missing.to_json_string(), r#"{"elicitation":{"url":{}}}"#);
    let e = missing_capability_error(Some(json("4")), missing);
    assert_eq!((e.code, e.http_status), (-32021, 400));
    mcpgen::validate(
        rev("2026-07-28"),
        "MissingRequiredClientCapabilityError",
        e.to_response_json().as_bytes(),
        Options::default(),
    )
    .unwrap();
    // CAP-3: `elicitation: {}` declares form mode.
    let form =
        required_capability(&json(r#"{"method":"elicitation/create","params":{"message":"m","requestedSchema":{}}}"#));
    assert_eq!(missing_capabilities(&declared, &form), None);
    let sampling = required_capability(&json(
        r#"{"method":"sampling/createMessage","params":{"tools":[],"includeContext":"thisServer"}}"#,
    ));
    assert_eq!(sampling.to_json_string(), r#"{"sampling":{"tools":{},"context":{}}}"#);
    assert_eq!(required_capability(&json(r#"{"method":"roots/list"}"#)).to_json_string(), r#"{"roots":{}}"#);
}

#[test]
fn v28_25_retired_codes() {
    for code in [-32002, -32042, -32050] {
        let msg = format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m"}}}}"#);
        let err = validate_message(rev("2026-07-28"), msg.as_bytes(), &MessageOptions::new()).unwrap_err();
        assert!(err.errors().iter().any(|e| matches!(e.rule, Some("ERR-3" | "ERR-4"))), "{code}: {err}");
    }
    let r = check_response(
        rev("2026-07-28"),
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"not found"}}"#,
        &ResultOptions::method("resources/read"),
    )
    .unwrap();
    assert_eq!(r.error_category(), Some(ErrorCategory::ResourceNotFound));
    assert!(r.may_be_resource_not_found("resources/read"));
}

#[test]
fn v28_26_meta_keys() {
    assert!(check_meta_key("com.example/foo").is_ok());
    assert_eq!(check_meta_key("example/").unwrap().name, "");
    for bad in ["1abc/x", "com.-ex/x", "com.example/-x", ""] {
        assert!(check_meta_key(bad).is_err(), "{bad}");
    }
    assert!(check_meta_key("io.mcp/x").unwrap().reserved);
    assert!(!check_meta_key("com.example.mcp/x").unwrap().reserved);
    assert!(!check_meta_key("mcp/x").unwrap().reserved);
    assert!(mcpgen::protocol::is_valid_meta_key("a.b/c"));
}

#[test]
fn v28_27_extension_keys() {
    let bad = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"tasks":{}}}}}}"#.to_owned();
    let err = validate_message(rev("2026-07-28"), bad.as_bytes(), &MessageOptions::new()).unwrap_err();
    let e = &err.errors()[0];
    assert_eq!(e.rule, Some("EXT-1"));
    assert_eq!(e.pointer, "/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions/tasks");
    let good = bad.replace(r#""tasks""#, r#""io.modelcontextprotocol/tasks""#);
    assert_eq!(
        validate_message(rev("2026-07-28"), good.as_bytes(), &MessageOptions::new()).unwrap(),
        MessageKind::Request { method: "tools/list".into() }
    );
}

#[test]
fn negotiate() {
    assert_eq!(negotiate_version("2026-07-28", &["2026-07-28"]).unwrap(), "2026-07-28");
    let e = negotiate_version("2027-01-01", &["2026-07-28", "2025-11-25"]).unwrap_err();
    assert_eq!((e.code, e.http_status, e.rule), (-32022, 400, "VER-1"));
    assert_eq!(
        e.data.unwrap().to_json_string(),
        r#"{"supported":["2026-07-28","2025-11-25"],"requested":"2027-01-01"}"#
    );
}

#[test]
fn method_aware_validation_points_inside_params() {
    let msg = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{META},"name":{{"x":1}},"arguments":[]}}}}"#
    );
    // The generic envelope accepts it…
    mcpgen::validate(rev("2026-07-28"), "JSONRPCMessage", msg.as_bytes(), Options::default()).unwrap();
    // …the method's definition does not.
    let err = validate_message(rev("2026-07-28"), msg.as_bytes(), &MessageOptions::new()).unwrap_err();
    let entries = err.errors();
    let pointers: Vec<&str> = entries.iter().map(|e| e.pointer.as_str()).collect();
    assert!(pointers.contains(&"/params/name") && pointers.contains(&"/params/arguments"), "{pointers:?}");
}

#[test]
fn unknown_method_reported() {
    let msg = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/calll","params":{{{META}}}}}"#);
    let err = validate_message(rev("2026-07-28"), msg.as_bytes(), &MessageOptions::new()).unwrap_err();
    assert_eq!(err.errors()[0].rule, Some("MSG-9"));
    assert!(
        matches!(validate_message(rev("2026-07-28"), b"[]", &MessageOptions::new()), Err(DecodeError::Invalid(e)) if e[0].rule == Some("MSG-1"))
    );
}

#[test]
fn era_detection() {
    assert_eq!(detect_era_from_probe(None), DetectedEra::Legacy);
    let modern = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"],"requested":"2027-01-01"}}}"#;
    assert_eq!(detect_era_from_probe(Some(modern)), DetectedEra::Modern { supported: vec!["2026-07-28".into()] });
    assert_eq!(detect_era_from_http_400(modern), DetectedEra::Modern { supported: vec!["2026-07-28".into()] });
    // -32022 without the required data is not recognized (AMB-7).
    assert_eq!(
        detect_era_from_http_400(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m"}}"#),
        DetectedEra::Legacy
    );
    assert_eq!(
        detect_era_from_probe(Some(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#)),
        DetectedEra::Legacy
    );
    assert_eq!(detect_era_from_http_400(b""), DetectedEra::Legacy);
    let discover = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}"#;
    assert_eq!(
        detect_era_from_probe(Some(discover)),
        DetectedEra::Modern { supported: vec!["2026-07-28".into(), "2025-11-25".into()] }
    );
    let mismatch =
        br#"{"jsonrpc":"2.0","error":{"code":-32020,"message":"MCP-Protocol-Version header does not match"}}"#;
    assert_eq!(detect_era_from_http_400(mismatch), DetectedEra::Modern { supported: vec![] });
}

#[test]
fn strict_policy_reports_reserved_and_unknown_result_types() {
    let msg = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task_created","_meta":{"io.modelcontextprotocol/madeUp":1}}}"#;
    validate_message(rev("2026-07-28"), msg.as_bytes(), &MessageOptions::new()).unwrap();
    let strict = Options::default().policy(Policy::Strict);
    let err = validate_message(rev("2026-07-28"), msg.as_bytes(), &MessageOptions::from(strict)).unwrap_err();
    let rules: Vec<_> = err.errors().iter().filter_map(|e| e.rule).collect();
    assert!(rules.contains(&"META-3") && rules.contains(&"RESULT-3"), "{rules:?}");
}

/// One entry per operation: `validate_message` and `check_response` read text and every JSON
/// view alike (the answers written out, not derived from each other).
#[test]
fn one_entry_reads_text_and_views_alike() {
    let r = rev("2026-07-28");
    let bad = r#"{"jsonrpc":"2.0","id":1,"method":"tools/calll","params":{}}"#;
    let tape = Tape::parse(bad).unwrap();
    let value = tape.root().to_value();
    let serde: serde_json::Value = serde_json::from_str(bad).unwrap();
    let opts = MessageOptions::new();
    for (how, got) in [
        ("bytes", validate_message(r, bad.as_bytes(), &opts)),
        ("str", validate_message(r, bad, &opts)),
        ("String", validate_message(r, &bad.to_owned(), &opts)),
        ("tape view", validate_message(r, &tape.root(), &opts)),
        ("Value", validate_message(r, &value, &opts)),
        ("serde_json", validate_message(r, &serde, &opts)),
    ] {
        let e = got.expect_err(how);
        assert_eq!((e.errors()[0].rule, e.errors()[0].pointer.as_str()), (Some("MSG-9"), "/method"), "{how}");
    }
    assert!(!mcpgen::protocol::is_valid_message(r, bad, &opts));
    let ping = r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#;
    assert!(mcpgen::protocol::is_valid_message(rev("2025-06-18"), ping, &opts));
    // Not JSON: a parse error (MSG-8 only for text that is not UTF-8).
    let e = validate_message(r, "{", &opts).unwrap_err();
    assert_eq!((e.errors()[0].keyword, e.errors()[0].rule), ("parse", None), "{e}");
    let e = validate_message(r, &b"\"\xff\""[..], &opts).unwrap_err();
    assert_eq!((e.errors()[0].keyword, e.errors()[0].rule), ("parse", Some("MSG-8")), "{e}");

    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#;
    let call = ResultOptions::method("tools/call");
    let answer_json: serde_json::Value = serde_json::from_str(answer).unwrap();
    for got in [check_response(r, answer, &call), check_response(r, &answer_json, &call)] {
        match got.unwrap() {
            CheckedResponse::Result { result, .. } => assert_eq!(result.variant, "CallToolResult"),
            other => panic!("{other:?}"),
        }
    }
    let e = check_response(r, "{\"jsonrpc\"", &call).unwrap_err();
    assert_eq!(e.rule, None, "{e}");
    assert!(e.message.starts_with("not JSON: "), "{e}");
}
