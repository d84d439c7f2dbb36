//! The responses a peer sends (`mcpgen::protocol::{result_response, complete_result,
//! complete_response, invalid_params_error, missing_capability_error,
//! unsupported_version_error}`): every output, for every revision of the build, must pass
//! `validate_message` for that revision, and results must read back through `check_response`.

use mcpgen::json::{JsonView, Tape, Value};
use mcpgen::methods::Direction;
use mcpgen::protocol::{
    check_request, check_response, complete_response, complete_result, invalid_params_error, missing_capability_error,
    negotiate_version, result_response, unsupported_version_error, validate_message, CheckedResponse, MessageKind,
    ResultError, ServerConfig,
};
use mcpgen::CoreError;
use mcpgen::{MessageOptions, ResultOptions, Revision};

fn json(text: &str) -> Value {
    Tape::parse(text).unwrap().root().to_value()
}

/// The ids a response must echo exactly (ID-3): a string and an integer.
fn ids() -> Vec<Value> {
    vec![json(r#""req-1""#), json("42")]
}

fn valid(rev: Revision, message: &Value) -> MessageKind {
    let text = message.to_json_string();
    validate_message(rev, text.as_bytes(), &MessageOptions::new())
        .unwrap_or_else(|e| panic!("{rev}: {text} is not a valid message:\n{e}"))
}

fn server_info() -> Value {
    json(r#"{"name":"example-server","version":"1.2.3"}"#)
}

#[test]
fn error_responses_are_valid_in_every_revision() {
    let mut checked = 0;
    for &rev in Revision::ALL {
        for id in ids() {
            let errors = [
                invalid_params_error(Some(id.clone()), "Unknown tool: `x`", None),
                invalid_params_error(Some(id.clone()), "Bad argument", Some(json(r#"{"pointer":"/a"}"#))),
                missing_capability_error(Some(id.clone()), json(r#"{"elicitation":{"url":{}}}"#)),
                unsupported_version_error(Some(id.clone()), "2099-01-01", &["2026-07-28", "2025-11-25"]),
                negotiate_version("1999-01-01", &["2026-07-28"]).unwrap_err().with_id(Some(id.clone())),
            ];
            for e in errors {
                let response = e.to_response();
                assert_eq!(response.get("id"), Some(&id), "{rev}: the id is echoed exactly");
                assert_eq!(response.get("jsonrpc").and_then(Value::as_str), Some("2.0"));
                assert_eq!(valid(rev, &response), MessageKind::Error { code: e.code });
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} error responses checked");
}

#[test]
fn typed_error_data() {
    let e = unsupported_version_error(None, "2099-01-01", &["2026-07-28"]);
    assert_eq!((e.code, e.http_status, e.rule), (-32022, 400, "VER-1"));
    let data = e.data.as_ref().unwrap();
    assert_eq!(data.get("requested"), Some(&json(r#""2099-01-01""#)));
    assert_eq!(data.get("supported"), Some(&json(r#"["2026-07-28"]"#)));
    // negotiate_version builds the same error (one construction path).
    assert_eq!(negotiate_version("2099-01-01", &["2026-07-28"]).unwrap_err(), e);

    let e = missing_capability_error(Some(json("1")), json(r#"{"roots":{}}"#));
    assert_eq!((e.code, e.http_status), (-32021, 400));
    assert_eq!(e.data.as_ref().unwrap().get("requiredCapabilities"), Some(&json(r#"{"roots":{}}"#)));

    let e = invalid_params_error(Some(json("1")), "Unknown tool", None);
    assert_eq!((e.code, e.http_status), (-32602, 200));
    assert!(e.to_response().get("error").unwrap().get("data").is_none());
}

#[test]
fn the_server_check_refuses_with_the_same_error() {
    let request = br#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2099-01-01",
        "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let e = check_request(request, &ServerConfig::new(["2026-07-28"])).unwrap_err();
    assert_eq!(e, unsupported_version_error(Some(json(r#""x""#)), "2099-01-01", &["2026-07-28"]));
}

#[test]
fn complete_results_follow_the_result_shape_of_every_method_and_revision() {
    let info = server_info();
    let mut checked = 0;
    for &rev in Revision::ALL {
        for shape in rev.result_shapes() {
            for id in ids() {
                let result = complete_result(rev, shape.method, &json(r#"{"x-app":1}"#), Some(&info)).unwrap();
                assert_eq!(result.get("x-app"), Some(&json("1")), "{rev} {}: other members are kept", shape.method);
                assert_eq!(
                    result.get("resultType").and_then(Value::as_str),
                    shape.result_type.then_some("complete"),
                    "{rev} {}",
                    shape.method
                );
                let stamped = result.get("_meta").and_then(|m| m.get(mcpgen::meta_keys::SERVER_INFO));
                assert_eq!(
                    stamped.is_some(),
                    shape.declares_meta_key(mcpgen::meta_keys::SERVER_INFO),
                    "{rev} {}",
                    shape.method
                );
                // 2026-07-28 input responses (`elicitation/create`…) travel inside a retried
                // request, never as a JSON-RPC response: their definitions declare neither field.
                let embedded =
                    rev.methods().iter().any(|m| m.method == shape.method && m.direction == Direction::EmbeddedInput);
                if embedded {
                    assert!(!shape.result_type && shape.meta_keys.is_empty(), "{rev} {}", shape.method);
                    continue;
                }
                let response = result_response(&id, &result);
                assert_eq!(response.get("id"), Some(&id));
                assert_eq!(valid(rev, &response), MessageKind::Result);
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} results checked");
    // 2026-07-28 results carry both fields; legacy ones neither.
    let modern = Revision::parse("2026-07-28").unwrap();
    assert!(modern
        .result_shape("tools/call")
        .is_some_and(|s| s.result_type && s.declares_meta_key(mcpgen::meta_keys::SERVER_INFO)));
    let legacy = Revision::parse("2025-11-25").unwrap();
    assert!(legacy.result_shapes().iter().all(|s| !s.result_type && s.meta_keys.is_empty()));
}

#[test]
fn stamped_results_read_back_by_method() {
    let info = server_info();
    for &rev in Revision::ALL {
        let cases = [
            ("tools/call", r#"{"content":[{"type":"text","text":"Sunny"}]}"#, "CallToolResult"),
            ("tools/list", r#"{"tools":[],"ttlMs":0,"cacheScope":"public"}"#, "ListToolsResult"),
        ];
        for (method, result, variant) in cases {
            let result = complete_result(rev, method, &json(result), Some(&info)).unwrap();
            let response = result_response(&json("5"), &result).to_json_string();
            match check_response(rev, response.as_bytes(), &ResultOptions::method(method)) {
                Ok(CheckedResponse::Result { id, result }) => {
                    assert_eq!(id, json("5"));
                    assert_eq!(result.variant, variant, "{rev} {method}");
                }
                other => panic!("{rev} {method}: {response} read back as {other:?}"),
            }
        }
    }
}

#[test]
fn unknown_methods_use_the_generic_result() {
    let rev = Revision::parse("2026-07-28").unwrap();
    let result = complete_result(rev, "vendor/method", &json("{}"), Some(&server_info())).unwrap();
    assert_eq!(result.get("resultType").and_then(Value::as_str), Some("complete"));
    assert!(result.get("_meta").and_then(|m| m.get(mcpgen::meta_keys::SERVER_INFO)).is_some());
}

#[test]
fn stamping_keeps_what_the_result_says() {
    let rev = Revision::parse("2026-07-28").unwrap();
    let mine = r#"{"content":[],"resultType":"other","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mine","version":"0"},"com.example/k":1}}"#;
    let result = complete_result(rev, "tools/call", &json(mine), Some(&server_info())).unwrap();
    assert_eq!(result.get("resultType").and_then(Value::as_str), Some("complete"));
    let meta = result.get("_meta").unwrap();
    assert_eq!(meta.get(mcpgen::meta_keys::SERVER_INFO), Some(&json(r#"{"name":"mine","version":"0"}"#)));
    assert_eq!(meta.get("com.example/k"), Some(&json("1")));
    // Configured off: no server info.
    let result = complete_result(rev, "tools/call", &json(r#"{"content":[]}"#), None).unwrap();
    assert!(result.get("_meta").is_none());
}

#[test]
fn bad_inputs_are_typed_errors() {
    let rev = Revision::parse("2026-07-28").unwrap();
    assert!(matches!(
        complete_result(rev, "tools/call", &json("[]"), None),
        Err(ResultError::NotAnObject { found: "an array", .. })
    ));
    let e = complete_result(rev, "tools/call", &json(r#"{"_meta":1}"#), Some(&server_info())).unwrap_err();
    assert!(matches!(e, ResultError::MetaNotAnObject { found: "a number", .. }), "{e:?}");
    // As every core error: a kind and entries with pointers.
    assert_eq!((CoreError::kind(&e), CoreError::errors(&e)[0].pointer.as_str()), ("meta_not_an_object", "/_meta"));
    match complete_result(rev, "tools/call", &json("{}"), Some(&json(r#"{"name":"no version"}"#))) {
        Err(ResultError::InvalidServerInfo(errors)) => {
            assert!(errors.iter().any(|e| e.keyword == "required"), "{errors:?}")
        }
        other => panic!("expected InvalidServerInfo, got {other:?}"),
    }
}

#[test]
fn complete_response_answers_an_accepted_request() {
    let request = br#"{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather"}}"#;
    let accepted = check_request(request, &ServerConfig::default()).unwrap();
    let response = complete_response(&accepted, &json(r#"{"content":[]}"#), Some(&server_info())).unwrap();
    assert_eq!(response.get("id"), Some(&json(r#""abc""#)));
    assert_eq!(valid(accepted.revision, &response), MessageKind::Result);

    let note = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let accepted = check_request(note, &ServerConfig::default()).unwrap();
    assert!(matches!(complete_response(&accepted, &json("{}"), None), Err(ResultError::Notification { .. })));
}
