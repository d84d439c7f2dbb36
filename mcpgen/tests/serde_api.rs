//! The serde surface beyond the data-driven cases of `serde.rs`: what it keeps, what it cannot
//! carry, its errors, and generated types inside a user's own serde types.
#![cfg(feature = "serde")]

use mcpgen::rev_2026_07_28::{self as mcp, CallToolRequest, ContentBlock, TextContent};
use mcpgen::{Decode, Policy, ToJson, Value};

const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
    "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
             "io.modelcontextprotocol/clientCapabilities":{},
             "com.example/trace":"abc"},
    "name":"get_weather","arguments":{"ratio":0.50,"big":1e3,"n":7},"x-extra":true}}"#;

#[test]
fn number_text_is_the_one_thing_serde_loses() {
    let native = CallToolRequest::decode_str(REQUEST).unwrap();
    let via_serde: CallToolRequest = serde_json::from_str(REQUEST).unwrap();
    let native_text = native.to_json_string();
    assert!(native_text.contains(r#""ratio":0.50"#) && native_text.contains(r#""big":1e3"#), "{native_text}");
    // serde hands over f64s: the values survive, the lexemes do not.
    let serde_text = via_serde.to_json_string();
    assert!(serde_text.contains(r#""ratio":0.5,"#) && serde_text.contains(r#""big":1000.0"#), "{serde_text}");
    assert!(serde_text.contains(r#""n":7"#));
    // Everything else is kept: unknown keys (lossless), custom `_meta` keys, key order.
    assert!(serde_text.contains(r#""x-extra":true"#) && serde_text.contains(r#""com.example/trace":"abc""#));
    // Serialize writes what ToJson writes.
    assert_eq!(
        serde_json::to_string(&native).unwrap().replace("0.50", "0.5").replace("1e3", "1000.0"),
        native_text.replace("0.50", "0.5").replace("1e3", "1000.0")
    );
}

#[test]
fn errors_carry_the_validators_message_and_pointer() {
    let bad = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},
        "name":5}}"#;
    let e = serde_json::from_str::<CallToolRequest>(bad).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "invalid CallToolRequest: /params/name: expected string, found number `5` [type at \
             #/$defs/CallToolRequestParams/properties/name/type]"
        ),
        "{e}"
    );
    // Unions by their strategy: the `type` tag picks the arm, so the error is the text arm's.
    let e = serde_json::from_str::<ContentBlock>(r#"{"type":"text","text":1}"#).unwrap_err().to_string();
    assert!(e.contains("/text: expected string"), "{e}");
    // A const is checked, never coerced.
    assert!(serde_json::from_str::<mcp::lit::V2_0>(r#""1.0""#).is_err());
    assert!(serde_json::from_str::<mcp::lit::V2_0>(r#""2.0""#).is_ok());
}

#[test]
fn generated_types_nest_in_user_types() {
    #[derive(Debug, serde::Serialize, serde::Deserialize)]
    struct Log {
        seq: u32,
        message: CallToolRequest,
        blocks: Vec<ContentBlock>,
    }
    let text = format!(r#"{{"seq":3,"message":{REQUEST},"blocks":[{{"type":"text","text":"hi"}}]}}"#);
    let log: Log = serde_json::from_str(&text).unwrap();
    assert_eq!(log.message.params.name, "get_weather");
    assert_eq!(log.blocks, vec![ContentBlock::from(TextContent::builder().text("hi").build().unwrap())]);
    let out = serde_json::to_string(&log).unwrap();
    assert!(out.starts_with(r#"{"seq":3,"message":{"id":1,"jsonrpc":"2.0","method":"tools/call""#), "{out}");
    // An error inside is reported at the position serde_json knows, with the pointer relative to
    // the generated value.
    let bad = r#"{"seq":3,"message":{"jsonrpc":"2.0"},"blocks":[]}"#;
    let e = serde_json::from_str::<Log>(bad).unwrap_err().to_string();
    assert!(e.contains("invalid CallToolRequest: (root): missing required property"), "{e}");
}

#[test]
fn from_a_serde_json_value_too() {
    let tree: serde_json::Value = serde_json::from_str(REQUEST).unwrap();
    let req: CallToolRequest = serde_json::from_value(tree.clone()).unwrap();
    assert_eq!(serde_json::to_value(&req).unwrap(), tree);
}

#[test]
fn mcpgen_values_keep_order_and_duplicates() {
    let v: Value = serde_json::from_str(r#"{"b":1,"a":[true,null,"x"],"b":2.5}"#).unwrap();
    assert_eq!(v.to_json_string(), r#"{"b":1,"a":[true,null,"x"],"b":2.5}"#);
    assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"b":1,"a":[true,null,"x"],"b":2.5}"#);
    let n: mcpgen::Number = serde_json::from_str("-12").unwrap();
    assert_eq!(n.as_i64(), Some(-12));
}

#[test]
fn nesting_is_bounded_and_numbers_must_be_finite() {
    let deep = "[".repeat(200) + &"]".repeat(200);
    assert!(serde_json::from_str::<Value>(&deep).is_err());
    // serde_json's own limit is 128 as well; from a serde_json::Value (no limit) ours applies.
    let mut tree = serde_json::Value::Null;
    for _ in 0..200 {
        tree = serde_json::Value::Array(vec![tree]);
    }
    let e = serde_json::from_value::<Value>(tree).unwrap_err().to_string();
    assert!(e.contains("nesting deeper than 128 levels"), "{e}");
}

#[test]
fn policy_helpers_choose_strict_or_lenient() {
    let strict = mcpgen::serde_policy::with_policy::<CallToolRequest, _>(
        &mut serde_json::Deserializer::from_str(REQUEST),
        Policy::Strict,
    );
    let e = strict.unwrap_err().to_string();
    assert!(e.contains("/params/x-extra: unknown property `x-extra`"), "{e}");
    let lenient: CallToolRequest =
        mcpgen::serde_policy::lenient(&mut serde_json::Deserializer::from_str(REQUEST)).unwrap();
    assert!(lenient.params.extra.is_empty());
    // `_meta` keys survive every policy (META-4).
    assert!(lenient.to_json_string().contains("com.example/trace"));
}
