//! Extension schemas: the loader's normalisation of the other generator's spellings, and the
//! workspace generation of an extension module (method rows, core copies, errata, refusals),
//! on small hand-written schemas in the ext-tasks style.

mod support;

use mcpgen_codegen::ir::{self, DeclKind};
use mcpgen_codegen::{generate_workspace_with_extensions, load, ExtensionInput, RevisionInput};
use serde_json::{json, Value};

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn rules() -> String {
    support::rules_without_revisions()
}

fn input(name: &str, schema: &Value, errata: &str) -> RevisionInput {
    RevisionInput {
        revision: name.into(),
        schema: serde_json::to_vec(schema).unwrap(),
        schema_sha256: "0".repeat(64),
        errata: Some(errata.as_bytes().to_vec()),
        ..Default::default()
    }
}

fn core() -> Value {
    json!({"$schema": DIALECT, "$defs": {
        "Result": {"type": "object", "properties": {"resultType": {"type": "string"}}, "additionalProperties": {}},
        "Req": {"type": "object", "properties": {"method": {"type": "string"}, "id": {"type": "integer"}}, "required": ["method", "id"]},
        "Ping": {"allOf": [{"$ref": "#/$defs/Req"}, {"type": "object", "properties": {"method": {"type": "string", "const": "core/ping"}}}]}
    }})
}

/// An extension in the ext-tasks style: a per-definition `$schema`, `allOf` of a `$ref` and an
/// object, an enum as `anyOf` of consts, a closed capability spelled `{not: {}}`, and copies
/// of the core's `Result`, `Req` and `Ping` (a core request).
fn ext_schema(result_copy: Value) -> Value {
    json!({"$schema": DIALECT, "$defs": {
        "Status": {"$schema": DIALECT, "anyOf": [{"type": "string", "const": "on"}, {"type": "string", "const": "off"}]},
        "Cap": {"$schema": DIALECT, "type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {"not": {}}},
        "GetThing": {"$schema": DIALECT, "allOf": [{"$ref": "#/$defs/Req"}, {"type": "object", "properties": {"method": {"type": "string", "const": "things/get"}}, "required": ["method"]}]},
        "GetThingResult": {"$schema": DIALECT, "allOf": [{"$ref": "#/$defs/Result"}, {"anyOf": [
            {"type": "object", "properties": {"status": {"type": "string", "const": "on"}, "a": {"type": "string"}}, "required": ["status", "a"]},
            {"type": "object", "properties": {"status": {"type": "string", "const": "off"}}, "required": ["status"]}
        ]}]},
        "Result": result_copy,
        "Req": {"type": "object", "properties": {"method": {"type": "string"}, "id": {"type": "integer"}}, "required": ["method", "id"]},
        "Ping": {"allOf": [{"$ref": "#/$defs/Req"}, {"type": "object", "properties": {"method": {"type": "string", "const": "core/ping"}}}]}
    }})
}

fn result_copy() -> Value {
    json!({"type": "object", "properties": {"resultType": {"type": "string"}}, "additionalProperties": {}})
}

fn ext(schema: &Value, errata: &str) -> ExtensionInput {
    ExtensionInput {
        id: "example.org/things".into(),
        name: "things".into(),
        layers_on: "2099-01-01".into(),
        client_to_server: vec!["things/get".into()],
        server_to_client: Vec::new(),
        input: RevisionInput { c_code: Some(1), ..input("ext-things", schema, errata) },
    }
}

const EMPTY: &str = r#"{"revision": "ext-things", "errata": []}"#;

fn generate(e: &ExtensionInput) -> Result<mcpgen_codegen::FileMap, String> {
    let core = input("2099-01-01", &core(), r#"{"revision": "2099-01-01", "errata": []}"#);
    let mut core = core;
    core.c_code = Some(1);
    generate_workspace_with_extensions(&[core], std::slice::from_ref(e), &rules()).map_err(|d| d.to_string())
}

#[test]
fn the_loader_reads_the_other_generators_spellings() {
    let m = ir::lower(&load::load(&input("ext-things", &ext_schema(result_copy()), EMPTY)).unwrap()).unwrap();
    let kind = |name: &str| &m.decls.iter().find(|d| d.name == name).unwrap_or_else(|| panic!("no decl {name}")).kind;
    assert!(
        matches!(kind("Status"), DeclKind::Enum(e) if e.values.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>() == ["on", "off"]),
        "anyOf of consts is an enum"
    );
    assert!(
        matches!(kind("Cap"), DeclKind::Object(o) if matches!(o.unknown, ir::Unknown::Forbidden)),
        "additionalProperties {{not: {{}}}} is closed"
    );
    // allOf [Result, anyOf [X, Y]] is distributed: each arm carries Result's members.
    match kind("GetThingResult") {
        DeclKind::Union(u) => assert_eq!(u.arms.len(), 2),
        other => panic!("GetThingResult lowered as {other:?}"),
    }
}

#[test]
fn a_definition_in_another_dialect_is_refused() {
    let mut s = ext_schema(result_copy());
    s["$defs"]["Status"]["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    let err = load::load(&input("ext-things", &s, EMPTY)).unwrap_err().to_string();
    assert!(err.contains("/$defs/Status/$schema") && err.contains("another dialect"), "{err}");
}

#[test]
fn the_module_has_the_extensions_methods_only_and_sorts_core_copies() {
    let files = generate(&ext(&ext_schema(result_copy()), EMPTY)).unwrap();
    let methods = files.get("generated/src/ext_things/methods.rs").unwrap();
    assert!(methods.contains("\"things/get\""), "{methods}");
    assert!(!methods.contains("\"core/ping\""), "a copy of a core request is not the extension's row: {methods}");
    let root = files.get("generated/src/ext_things/mod.rs").unwrap();
    assert!(root.contains("pub const EXTENSION_ID: &str = \"example.org/things\";"), "{root}");
    assert!(root.contains("pub const LAYERS_ON: &str = \"2099-01-01\";"), "{root}");
    assert!(root.contains("pub const CORE_DIFFERS: &[&str] = &[];"), "{root}");
    let lib = files.get("generated/src/lib.rs").unwrap();
    assert!(lib.contains("#[cfg(all(feature = \"ext-things\", feature = \"rev-2099-01-01\"))]"), "{lib}");
    let manifest = files.get("generated/Cargo.toml").unwrap();
    assert!(manifest.contains("ext-things = [\"rev-2099-01-01\"]"), "{manifest}");
    assert!(files.get("generated/src/extensions.rs").unwrap().contains("Things"));

    // A copy that drifts from the core is named.
    let narrowed = json!({"type": "object", "properties": {"resultType": {"type": "string"}, "note": {"type": "integer"}}, "additionalProperties": {}});
    let files = generate(&ext(&ext_schema(narrowed), EMPTY)).unwrap();
    let root = files.get("generated/src/ext_things/mod.rs").unwrap();
    assert!(root.contains("pub const CORE_DIFFERS: &[&str] = &[\"Result\"];"), "{root}");
}

#[test]
fn a_changed_extension_schema_changes_the_generated_module() {
    let a = generate(&ext(&ext_schema(result_copy()), EMPTY)).unwrap();
    let mut s = ext_schema(result_copy());
    s["$defs"]["Status"]["anyOf"][1]["const"] = json!("paused");
    let b = generate(&ext(&s, EMPTY)).unwrap();
    let path = "generated/src/ext_things/types.rs";
    assert_ne!(a.get(path), b.get(path), "codegen --check must notice a modified pin");
    assert!(b.get(path).unwrap().contains("Paused"));
}

#[test]
fn an_erratum_whose_old_value_no_longer_matches_is_refused() {
    let ledger = r#"{"revision": "ext-things", "errata": [{"id": "Q-1", "pointer": "/$defs/Status/anyOf/1/const",
        "expect": "standby", "replace": "paused", "reason": "test"}]}"#;
    let err = generate(&ext(&ext_schema(result_copy()), ledger)).unwrap_err();
    assert!(err.contains("/$defs/Status/anyOf/1/const"), "{err}");
    // With the value found there today it applies.
    let ledger = ledger.replace("standby", "off");
    let files = generate(&ext(&ext_schema(result_copy()), &ledger)).unwrap();
    assert!(files.get("generated/src/ext_things/types.rs").unwrap().contains("Paused"));
}

#[test]
fn an_extension_on_an_unpinned_revision_is_refused() {
    let mut e = ext(&ext_schema(result_copy()), EMPTY);
    e.layers_on = "1999-01-01".into();
    let err = generate(&e).unwrap_err();
    assert!(err.contains("layers on revision \"1999-01-01\", which is not pinned"), "{err}");
}

#[test]
fn an_extension_needs_its_c_code() {
    let mut e = ext(&ext_schema(result_copy()), EMPTY);
    e.input.c_code = None;
    let err = generate(&e).unwrap_err();
    assert!(err.contains("has no `c_code`"), "{err}");
    e.input.c_code = Some(2);
    let err = generate(&e).unwrap_err();
    assert!(err.contains("`c_code = 2`; the extension codes are 1..=1"), "{err}");
    e.input.c_code = Some(1);
    let files = generate(&e).unwrap();
    let header = files.get("bindings/c/include/mcpgen_schema.h").unwrap();
    assert!(header.contains("MCPGEN_EXTENSION_THINGS = 1\n"), "{header}");
    assert!(header.contains("#define MCPGEN_EXTENSION_THINGS_ID \"example.org/things\""), "{header}");
    assert!(header.contains("#define MCPGEN_METHOD_THINGS_GET \"things/get\""), "{header}");
    let py = files.get("bindings/python/python/mcpgen/ext_things/__init__.py").unwrap();
    assert!(py.contains("EXTENSION_ID = \"example.org/things\""), "{py}");
    assert!(py.contains("Status: _te.TypeAlias = _t.Literal[\"on\", \"off\"]"), "{py}");
}

/// `[extension.directions]`: the pinned senders land in the method rows; a method left without
/// one, or a pinned name the extension does not add, is refused (an upstream rename is noticed).
#[test]
fn directions_come_from_the_pin_and_cover_every_method() {
    let files = generate(&ext(&ext_schema(result_copy()), EMPTY)).unwrap();
    let methods = files.get("generated/src/ext_things/methods.rs").unwrap();
    assert!(methods.contains("Direction::ClientToServer"), "{methods}");
    assert!(!methods.contains("Direction::Unspecified"), "{methods}");
    let both = ExtensionInput { server_to_client: vec!["things/get".into()], ..ext(&ext_schema(result_copy()), EMPTY) };
    let methods = generate(&both).unwrap().get("generated/src/ext_things/methods.rs").unwrap().to_owned();
    assert!(methods.contains("Direction::Both"), "{methods}");

    let none = ExtensionInput { client_to_server: Vec::new(), ..ext(&ext_schema(result_copy()), EMPTY) };
    let err = generate(&none).unwrap_err();
    assert!(err.contains("`things/get`") && err.contains("has no direction"), "{err}");
    let stale = ExtensionInput {
        client_to_server: vec!["things/get".into(), "things/gone".into()],
        ..ext(&ext_schema(result_copy()), EMPTY)
    };
    let err = generate(&stale).unwrap_err();
    assert!(err.contains("`things/gone`") && err.contains("not a method the extension"), "{err}");
}
