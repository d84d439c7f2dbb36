//! Builders and `Default` of the generated structs: setters, consts filled in, missing
//! required members named by wire name, `extra`, and every built value valid where it must be.

use mcpgen::json::Map;
use mcpgen::rev_2026_07_28 as mcp;
use mcpgen::{BuildError, Decode, Policy, ToJson, Value};

#[test]
fn missing_required_members_are_named_by_wire_name_in_schema_order() {
    let err: BuildError = mcp::Tool::builder().title("Weather").build().unwrap_err();
    assert_eq!(err.type_name(), "Tool");
    assert_eq!(err.missing(), ["inputSchema", "name"]);
    assert!(err.declared_in_extra().is_empty());
    assert_eq!(err.to_string(), "cannot build Tool: missing required fields `inputSchema`, `name`");
    let one = mcp::TextContent::builder().build().unwrap_err();
    assert_eq!(one.to_string(), "cannot build TextContent: missing required field `text`");
    // 2026-07-28 requires `_meta` in request params: both are named.
    let two = mcp::CallToolRequestParams::builder().build().unwrap_err();
    assert_eq!(two.missing(), ["_meta", "name"]);
    // A typed error: usable as `Box<dyn Error>` and with `?`.
    let boxed: Box<dyn std::error::Error> = Box::new(one.clone());
    assert_eq!(boxed.to_string(), one.to_string());
}

#[test]
fn consts_are_filled_in_and_re_encoded() {
    let text = mcp::TextContent::builder().text("hi").build().unwrap();
    assert_eq!(text.r#type, mcp::lit::Text);
    assert_eq!(text.to_json_string(), r#"{"text":"hi","type":"text"}"#);
    // `jsonrpc` and `method` of a request are literal types: no setter exists for them, and
    // the built request is what the decoder reads back.
    use mcpgen::rev_2025_11_25::PingRequest;
    let req = PingRequest::builder().id("a-1").build().unwrap();
    let json = req.to_json_string();
    assert_eq!(json, r#"{"id":"a-1","jsonrpc":"2.0","method":"ping"}"#);
    assert_eq!(PingRequest::decode_str(&json).unwrap(), req);
}

#[test]
fn optional_consts_are_filled_in_too() {
    let schema = mcp::ElicitRequestFormParamsRequestedSchema::builder()
        .properties(mcpgen::json::ObjectMap::new())
        .build()
        .unwrap();
    let params =
        mcp::ElicitRequestFormParams::builder().message("Your name?").requested_schema(schema).build().unwrap();
    assert_eq!(params.mode, Some(mcp::lit::Form));
    assert!(params.to_json_string().contains(r#""mode":"form""#));
}

#[test]
fn extra_keeps_undeclared_members_and_refuses_declared_ones() {
    let tool = mcp::Tool::builder()
        .name("get_weather")
        .input_schema(mcp::ToolInputSchema::builder().build().unwrap())
        .extra("com.example/owner", "ops")
        .build()
        .unwrap();
    let json = tool.to_json_string();
    assert!(json.contains(r#""com.example/owner":"ops""#), "{json}");
    let back = mcp::Tool::decode_bytes(json.as_bytes(), Policy::Lossless).unwrap();
    assert_eq!(back, tool);

    let err = mcp::Tool::builder().extra("name", "x").extra("other", true).build().unwrap_err();
    assert_eq!(err.missing(), ["inputSchema", "name"]);
    assert_eq!(err.declared_in_extra(), ["name"]);
    assert_eq!(
        err.to_string(),
        "cannot build Tool: missing required fields `inputSchema`, `name`; declared member `name` given to \
         extra() (use the member's own setter)"
    );
}

#[test]
fn additional_properties_have_their_own_setter() {
    // `ToolInputSchema.properties` is a map; `_meta` objects are extension points (`extra`).
    let meta = mcp::MetaObject::builder().extra("com.example/trace", "abc").build().unwrap();
    assert_eq!(meta.to_json_string(), r#"{"com.example/trace":"abc"}"#);
}

#[test]
fn default_exists_exactly_when_no_member_is_required() {
    // No required member (consts aside): `Default` equals an empty build.
    assert_eq!(mcp::ToolAnnotations::default(), mcp::ToolAnnotations::builder().build().unwrap());
    assert_eq!(mcp::ToolInputSchema::default().to_json_string(), r#"{"type":"object"}"#);
    assert_eq!(mcp::MetaObject::default().extra, Map::new());
    fn has_default<T: Default>() {}
    has_default::<mcp::ServerCapabilities>();
    has_default::<mcp::ClientCapabilities>();
    has_default::<mcpgen::rev_2024_11_05::ClientCapabilities>();
}

#[test]
fn setters_take_into_and_boxes_and_unions_convert() {
    // `impl Into<FieldType>`: &str for strings, integers for numbers and request ids.
    let err = mcp::Error::builder().code(-32602).message(String::from("bad")).data(Value::from(true)).build().unwrap();
    assert_eq!(err.to_json_string(), r#"{"code":-32602,"data":true,"message":"bad"}"#);
    let resp = mcp::JSONRPCErrorResponse::builder().id(3u32).error(err).build().unwrap();
    assert_eq!(resp.id, Some(mcp::RequestId::Integer(3.into())));
    let valid = mcp::JSONRPCErrorResponse::decode_str(&resp.to_json_string()).unwrap();
    assert_eq!(valid, resp);
}

#[test]
fn every_revision_has_builders() {
    use mcpgen::{rev_2024_11_05, rev_2025_03_26, rev_2025_06_18, rev_2025_11_25};
    let a = rev_2024_11_05::TextContent::builder().text("x").build().unwrap();
    let b = rev_2025_03_26::TextContent::builder().text("x").build().unwrap();
    let c = rev_2025_06_18::TextContent::builder().text("x").build().unwrap();
    let d = rev_2025_11_25::TextContent::builder().text("x").build().unwrap();
    for json in [a.to_json_string(), b.to_json_string(), c.to_json_string(), d.to_json_string()] {
        assert_eq!(json, r#"{"text":"x","type":"text"}"#);
    }
}
