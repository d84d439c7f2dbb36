//! Lowering and emission on small hand-written schemas: union strategies, allOf merging,
//! presence, and diagnostics for what the generator does not support.

use mcpgen_codegen::ir::{self, DeclKind, Ty, Unknown};
use mcpgen_codegen::{load, RevisionInput};

fn input(schema: serde_json::Value) -> RevisionInput {
    RevisionInput {
        revision: "test".into(),
        schema: serde_json::to_vec(&schema).unwrap(),
        schema_sha256: "0".repeat(64),
        errata: None,
        ..Default::default()
    }
}

fn lower(schema: serde_json::Value) -> Result<ir::Module, mcpgen_codegen::Diagnostics> {
    ir::lower(&load::load(&input(schema))?)
}

fn defs(d: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": d})
}

fn union<'m>(m: &'m ir::Module, name: &str) -> &'m ir::UnionDecl {
    match &m.decls.iter().find(|d| d.name == name).unwrap().kind {
        DeclKind::Union(u) => u,
        _ => panic!("{name} is not a union"),
    }
}

#[test]
fn const_tag_union_with_default_arm() {
    let m = lower(defs(serde_json::json!({
        "Form": {"type": "object", "properties": {"mode": {"type": "string", "const": "form"}, "message": {"type": "string"}}, "required": ["message"]},
        "Url": {"type": "object", "properties": {"mode": {"type": "string", "const": "url"}, "url": {"type": "string"}}, "required": ["mode", "url"]},
        "Params": {"anyOf": [{"$ref": "#/$defs/Form"}, {"$ref": "#/$defs/Url"}]}
    })))
    .unwrap();
    let u = union(&m, "Params");
    assert_eq!(u.info.tag.as_deref(), Some("mode"));
    assert_eq!(u.info.arms[0].tag_values, ["form"]);
    assert!(!u.info.arms[0].tag_required, "form arm is the default when `mode` is absent");
    assert!(u.info.arms[1].tag_required);
}

#[test]
fn presence_and_kind_unions() {
    let m = lower(defs(serde_json::json!({
        "Text": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "Blob": {"type": "object", "properties": {"blob": {"type": "string"}}, "required": ["blob"]},
        "Contents": {"anyOf": [{"$ref": "#/$defs/Text"}, {"$ref": "#/$defs/Blob"}]},
        "Id": {"type": ["string", "integer"]}
    })))
    .unwrap();
    let c = union(&m, "Contents");
    assert!(c.info.tag.is_none());
    assert!(c.info.strategy.contains("present"), "{}", c.info.strategy);
    let id = union(&m, "Id");
    assert!(id.type_list);
    assert!(id.info.strategy.contains("JSON type"), "{}", id.info.strategy);
}

#[test]
fn all_of_merges_and_keeps_the_const() {
    let m = lower(defs(serde_json::json!({
        "Error": {"type": "object", "description": "An error.", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}, "required": ["code", "message"]},
        "Specific": {"type": "object", "properties": {"error": {"allOf": [{"$ref": "#/$defs/Error"}, {"type": "object", "properties": {"code": {"type": "integer", "const": -32022}}, "required": ["code"]}]}}}
    })))
    .unwrap();
    let d = m.decls.iter().find(|d| d.name == "SpecificError").expect("inline merged type");
    let DeclKind::Object(o) = &d.kind else { panic!() };
    let code = o.props.iter().find(|p| p.key == "code").unwrap();
    assert!(matches!(code.schema.ty, Ty::Lit(_)), "the const from the refinement wins");
    assert!(o.props.iter().any(|p| p.key == "message" && p.required));
    assert!(d.doc.as_deref().unwrap_or("").contains("Refines"), "metadata kept: {:?}", d.doc);
}

#[test]
fn presence_and_extension_objects() {
    let m = lower(defs(serde_json::json!({
        "Caps": {"type": "object", "properties": {"roots": {"type": "object", "properties": {}}, "n": {"type": "integer"}}},
        "RequestMetaObject": {"type": "object", "properties": {"progressToken": {"type": "string"}}}
    })))
    .unwrap();
    let caps = m.decls.iter().find(|d| d.name == "Caps").unwrap();
    let DeclKind::Object(o) = &caps.kind else { panic!() };
    assert!(o.props.iter().find(|p| p.key == "roots").unwrap().presence_significant);
    assert!(!o.props.iter().find(|p| p.key == "n").unwrap().presence_significant);
    assert!(matches!(o.unknown, Unknown::Open));
    let meta = m.decls.iter().find(|d| d.name == "RequestMetaObject").unwrap();
    let DeclKind::Object(o) = &meta.kind else { panic!() };
    assert!(matches!(o.unknown, Unknown::Extension));
}

#[test]
fn unsupported_constructs_are_all_reported_with_pointers() {
    let err = lower(defs(serde_json::json!({
        "A": {"oneOf": [{"type": "string"}]},
        "B": {"type": "object", "patternProperties": {"^x": {}}},
        "C": {"$ref": "https://example.com/remote.json"},
        "D": {"type": "object", "properties": {"a": {"not": {}}}}
    })))
    .unwrap_err();
    let text = err.to_string();
    assert_eq!(err.len(), 4, "{text}");
    assert!(text.contains("A: unsupported keyword `oneOf` (at /$defs/A/oneOf)"), "{text}");
    assert!(text.contains("B: unsupported keyword `patternProperties`"), "{text}");
    assert!(text.contains("C: unresolvable or non-local `$ref`"), "{text}");
    assert!(text.contains("/$defs/D/properties/a/not"), "{text}");
}

#[test]
fn garbage_input_is_a_diagnostic_not_a_panic() {
    let bad = RevisionInput {
        revision: "x".into(),
        schema: b"{not json".to_vec(),
        schema_sha256: String::new(),
        errata: None,
        ..Default::default()
    };
    assert!(mcpgen_codegen::generate_revision(&bad, "out").is_err());
    let no_defs = input(serde_json::json!({"$schema": "https://example.com/unknown-dialect"}));
    assert!(mcpgen_codegen::generate_revision(&no_defs, "out")
        .unwrap_err()
        .to_string()
        .contains("unsupported dialect"));
}

#[test]
fn emits_formatted_rust_with_header() {
    let files = mcpgen_codegen::generate_revision(
        &input(defs(serde_json::json!({
            "Role": {"type": "string", "enum": ["user", "assistant"]},
            "Msg": {"type": "object", "description": "See {@link Role}.", "properties": {"role": {"$ref": "#/$defs/Role"}, "jsonrpc": {"type": "string", "const": "2.0"}}, "required": ["role", "jsonrpc"]}
        }))),
        "out/rev_test",
    )
    .unwrap();
    let types = files.get("out/rev_test/types.rs").unwrap();
    assert!(types.starts_with("// @generated by mcpgen-codegen"), "{types}");
    assert!(types.contains("Do not edit; run `cargo xtask codegen`."));
    assert!(types.contains("/// See [`Role`]."), "{types}");
    assert!(types.contains("pub jsonrpc: lit::V2_0"), "{types}");
    assert!(types.contains("pub enum Role"), "{types}");
    let lit = files.get("out/rev_test/lit.rs").unwrap();
    assert!(lit.contains(r#"V2_0 = "2.0""#), "{lit}");
}
