//! Every public error type of the core speaks through [`CoreError`] (issue 33, item 6): the
//! surfaces marshal any of them without deciding anything. The compile-time list names each
//! type (a type that loses its impl fails to build); the cases write out what the tools errors,
//! which joined the family last, say through it.

use mcpgen::tools::{
    check_tools_json, FetchError, LimitError, Limits, PinError, PinLimits, SchemaError, SchemaErrorKind, SchemaOptions,
    ToolCallError, ToolSchemaErrors, ToolsBaseline, ToolsJsonError,
};
use mcpgen::CoreError;

fn family<E: CoreError>() {}

#[test]
fn every_public_error_type_is_in_the_family() {
    family::<mcpgen::DecodeError>();
    family::<mcpgen::json::ParseError>();
    family::<mcpgen::BuildError>();
    family::<mcpgen::UnknownPolicy>();
    family::<mcpgen::protocol::ProtocolError>();
    family::<mcpgen::protocol::ResponseError>();
    family::<mcpgen::protocol::ResultError>();
    family::<mcpgen::protocol::MetaKeyError>();
    family::<mcpgen::protocol::OtelError>();
    family::<mcpgen::http::HeaderValueError>();
    family::<mcpgen::http::HeaderBindingError>();
    family::<mcpgen::http::ParamHeaderError>();
    family::<mcpgen::icons::IconError>();
    family::<SchemaError>();
    family::<ToolSchemaErrors>();
    family::<ToolCallError>();
    family::<ToolsJsonError>();
    family::<FetchError>();
    family::<PinError>();
    family::<LimitError>();
}

/// `(pointer, keyword, rule)` of one entry.
type Entry = (String, &'static str, Option<&'static str>);

/// `(kind, rule, entries)` of an error, through the trait only.
fn face(e: &dyn CoreError) -> (&'static str, Option<&'static str>, Vec<Entry>) {
    let entries = e.errors().iter().map(|x| (x.pointer.clone(), x.keyword, x.rule)).collect();
    (e.kind(), e.rule(), entries)
}

#[test]
fn the_tools_errors_speak_through_the_family() {
    let e = SchemaError::new(SchemaErrorKind::NetworkRef, "/inputSchema/$ref", "not fetched");
    assert_eq!(face(&e), ("network_ref", Some("JSCHEMA-5"), vec![("/inputSchema/$ref".into(), "", Some("JSCHEMA-5"))]));

    let two = ToolSchemaErrors::new(
        "t",
        vec![
            SchemaError::new(SchemaErrorKind::TooDeep, "/inputSchema/a", "deep"),
            SchemaError::new(SchemaErrorKind::EnumTooLarge, "/inputSchema/b", "long"),
        ],
    );
    assert_eq!(
        face(&two),
        (
            "tool_schema",
            Some("JSCHEMA-8"),
            vec![("/inputSchema/a".into(), "", Some("JSCHEMA-8")), ("/inputSchema/b".into(), "", Some("JSCHEMA-8"))]
        )
    );
    let mixed = ToolSchemaErrors::new(
        "t",
        vec![
            SchemaError::new(SchemaErrorKind::TooDeep, "/a", "deep"),
            SchemaError::new(SchemaErrorKind::NetworkRef, "/b", "remote"),
        ],
    );
    assert_eq!(CoreError::rule(&mixed), None);
    assert_eq!(face(&ToolCallError::Schema(two.clone())).0, "schema");
    assert_eq!(CoreError::errors(&ToolCallError::Schema(two)).len(), 2);

    let fetch = FetchError::new("HTTP 404");
    assert_eq!(face(&fetch), ("fetch_failed", Some("JSCHEMA-6"), vec![("".into(), "$ref", Some("JSCHEMA-6"))]));

    let mut limits = Limits::default();
    let e = limits.set("max_nothing", 1).unwrap_err();
    assert_eq!(face(&e), ("unknown_limit", None, vec![("/max_nothing".into(), "enum", None)]));

    let e = check_tools_json(b"[1]", &SchemaOptions::default()).unwrap_err();
    assert_eq!(face(&e), ("not_a_tool_document", None, vec![("".into(), "type", None)]));
    let e = check_tools_json(br#"{"tools":{}}"#, &SchemaOptions::default()).unwrap_err();
    assert_eq!(face(&e), ("tools_not_an_array", None, vec![("/tools".into(), "type", None)]));
    let e = check_tools_json(b"{", &SchemaOptions::default()).unwrap_err();
    assert_eq!(face(&e), ("parse", None, vec![("".into(), "parse", None)]));

    let e = ToolsBaseline::parse(b"{", &PinLimits::default()).unwrap_err();
    assert_eq!(face(&e), ("not_json", None, vec![("".into(), "", None)]));
}

#[test]
fn option_structs_build_from_their_defaults() {
    // `#[non_exhaustive]` structs are built from `Default` with one builder per field: each
    // builder sets its field and nothing else (values written out).
    let o = mcpgen::Options::new().policy(mcpgen::Policy::Strict).strict_formats(true);
    assert_eq!(
        (o.policy, o.strict_formats, o.client_leniency, o.discriminate_results),
        (mcpgen::Policy::Strict, true, false, false)
    );
    let limits = Limits::default().max_depth(3).max_errors(7);
    assert_eq!((limits.max_depth, limits.max_errors, limits.max_subschemas), (3, 7, 10_000));
    let pin = PinLimits::default().max_tools(2);
    assert_eq!((pin.max_bytes, pin.max_tools), (16 << 20, 2));
    let c = mcpgen::conversation::ConversationOptions::default().max_pending(5).max_tasks(6);
    assert_eq!((c.max_pending, c.max_tasks, c.max_listen_streams), (5, 6, 256));
    let icons = mcpgen::icons::IconPolicy::default().allow_svg(true);
    assert_eq!((icons.allow_svg, icons.allow_webp, icons.max_bytes), (true, true, 1 << 20));
    let s = SchemaOptions::default().validate_formats(true);
    assert!(s.validate_formats && s.fetch.is_none());
    let server = mcpgen::protocol::ServerConfig::default().supported_versions(vec!["2026-07-28".into()]);
    assert_eq!(server.supported_versions, ["2026-07-28"]);
    let p = mcpgen::json::ParseOptions::default().skip_deeper(true);
    assert!(p.skip_deeper);
}
