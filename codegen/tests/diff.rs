//! The revision diff on small hand-written schema pairs: one pair per kind of change, each with
//! the changes and the breakage it must report, plus the rendered Markdown and JSON.

use mcpgen_codegen::diff::{self, Breaks, ChangeKind, RevisionDiff, Subject};
use mcpgen_codegen::{ir, load, RevisionInput};
use serde_json::{json, Value};

fn module(revision: &str, defs: Value) -> ir::Module {
    let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs});
    let input = RevisionInput {
        revision: revision.into(),
        schema: serde_json::to_vec(&schema).unwrap(),
        schema_sha256: revision.chars().filter(char::is_ascii_digit).collect(),
        errata: None,
        ..Default::default()
    };
    ir::lower(&load::load(&input).unwrap()).unwrap_or_else(|d| panic!("{d}"))
}

fn diff_defs(old: Value, new: Value) -> RevisionDiff {
    diff::diff(&module("2000-01-01", old), &module("2000-02-02", new))
}

/// Every change as `Subject/path kind breaks`.
fn changes(old: Value, new: Value) -> Vec<String> {
    lines(&diff_defs(old, new))
}

fn lines(d: &RevisionDiff) -> Vec<String> {
    d.changes
        .iter()
        .map(|c| {
            let scope = match &c.subject {
                Subject::Definition { name, .. } => name.clone(),
                Subject::Method { method, .. } => format!("method {method}"),
            };
            format!("{scope}{} {} {}", c.subject.path(), c.kind.as_str(), c.breaks.as_str())
        })
        .collect()
}

/// An object definition with `props`, `required` and, when `closed`, `additionalProperties: false`.
fn obj(props: Value, required: &[&str], closed: bool) -> Value {
    let mut o = json!({"type": "object", "properties": props, "required": required});
    if closed {
        o["additionalProperties"] = json!(false);
    }
    o
}

#[test]
fn identical_revisions_have_no_changes() {
    let defs = json!({
        "A": obj(json!({"x": {"type": "string"}, "b": {"$ref": "#/$defs/B"}}), &["x"], true),
        "B": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/A"}]},
        "E": {"type": "string", "enum": ["a", "b"]}
    });
    assert_eq!(changes(defs.clone(), defs), Vec::<String>::new());
}

#[test]
fn definitions_added_and_removed_break_no_one() {
    let got = changes(
        json!({"Old": {"type": "string"}, "Kept": {"type": "string"}}),
        json!({"New": {"type": "integer"}, "Kept": {"type": "string"}}),
    );
    assert_eq!(got, ["New definition_added none", "Old definition_removed none"]);
}

#[test]
fn fields_added() {
    let old = json!({"Open": obj(json!({}), &[], false), "Closed": obj(json!({}), &[], true)});
    let new = json!({
        "Open": obj(json!({"opt": {"type": "string"}, "req": {"type": "string"}}), &["req"], false),
        "Closed": obj(json!({"opt": {"type": "string"}, "req": {"type": "string"}}), &["req"], true)
    });
    assert_eq!(
        changes(old, new),
        [
            // Old readers reject any undeclared key of a closed object; old writers lack `req`.
            "Closed/opt field_added readers",
            "Closed/req field_added both",
            "Open/opt field_added none",
            "Open/req field_added writers",
        ]
    );
}

#[test]
fn fields_removed() {
    let old = json!({
        "Open": obj(json!({"opt": {"type": "string"}, "req": {"type": "string"}}), &["req"], false),
        "Closed": obj(json!({"opt": {"type": "string"}, "req": {"type": "string"}}), &["req"], true)
    });
    let new = json!({"Open": obj(json!({}), &[], false), "Closed": obj(json!({}), &[], true)});
    assert_eq!(
        changes(old, new),
        [
            // Old writers still send them and a closed object rejects them; old readers miss `req`.
            "Closed/opt field_removed writers",
            "Closed/req field_removed both",
            "Open/opt field_removed none",
            "Open/req field_removed readers",
        ]
    );
}

#[test]
fn fields_added_to_or_removed_from_a_typed_map() {
    let map = |props: Value| json!({"type": "object", "properties": props, "additionalProperties": {"type": "string"}});
    // A string field fits the extra-key schema; an integer one does not.
    let got = changes(
        json!({"M": map(json!({"gone": {"type": "integer"}}))}),
        json!({"M": map(json!({"s": {"type": "string"}, "n": {"type": "integer"}}))}),
    );
    assert_eq!(got, ["M/gone field_removed writers", "M/s field_added none", "M/n field_added readers"]);
}

#[test]
fn required_and_optional() {
    let old = json!({"A": obj(json!({"a": {"type": "string"}, "b": {"type": "string"}}), &["a"], false)});
    let new = json!({"A": obj(json!({"a": {"type": "string"}, "b": {"type": "string"}}), &["b"], false)});
    assert_eq!(changes(old, new), ["A/a field_optional readers", "A/b field_required writers"]);
}

#[test]
fn members_readers_tolerate_missing_are_not_demanded() {
    // `resultType` (RESULT-2): required by the schema, but clients treat its absence as "complete".
    let old = json!({"R": obj(json!({}), &[], false)});
    let new = json!({"R": obj(json!({"resultType": {"type": "string"}, "other": {"type": "string"}}), &["resultType", "other"], false)});
    let d = diff_defs(old, new);
    assert_eq!(lines(&d), ["R/resultType field_added none", "R/other field_added writers"]);
    assert_eq!(d.changes[0].new.as_deref(), Some("required (readers tolerate absence) string"));
}

#[test]
fn type_changes() {
    let old = json!({"A": obj(json!({
        "s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"},
        "any": {}, "obj": {"type": "object"}, "c": {"type": "string", "const": "x"}
    }), &[], false)});
    let new = json!({"A": obj(json!({
        "s": {"type": "integer"}, "i": {"type": "number"}, "n": {"type": "integer"},
        "any": {"type": "boolean"}, "obj": {}, "c": {"type": "string"}
    }), &[], false)});
    assert_eq!(
        changes(old, new),
        [
            "A/s type_changed both",
            "A/i type_changed readers",
            "A/n type_changed writers",
            "A/any type_changed writers",
            "A/obj type_changed readers",
            "A/c type_changed readers",
        ]
    );
}

#[test]
fn const_changes() {
    let old = json!({"A": obj(json!({"v": {"type": "string", "const": "1.0"}, "code": {"type": "integer", "const": -1}}), &["v"], false)});
    let new = json!({"A": obj(json!({"v": {"type": "string", "const": "2.0"}, "code": {"type": "integer", "const": -2}}), &["v"], false)});
    let d = diff_defs(old, new);
    assert_eq!(lines(&d), ["A/v const_changed both", "A/code const_changed both"]);
    assert_eq!((d.changes[0].old.as_deref(), d.changes[0].new.as_deref()), (Some("\"1.0\""), Some("\"2.0\"")));
}

#[test]
fn enum_values() {
    let old = json!({"Level": {"type": "string", "enum": ["debug", "info", "trace"]}});
    let new = json!({"Level": {"type": "string", "enum": ["debug", "info", "warning"]}});
    assert_eq!(changes(old, new), ["Level enum_value_removed writers", "Level enum_value_added readers"]);
    // A const that becomes an enum keeps its value and gains others.
    let got = changes(
        json!({"A": obj(json!({"k": {"type": "string", "const": "a"}}), &[], false)}),
        json!({"A": obj(json!({"k": {"type": "string", "enum": ["a", "b"]}}), &[], false)}),
    );
    assert_eq!(got, ["A/k enum_value_added readers"]);
}

#[test]
fn union_arms() {
    let one = |k: &str| obj(json!({k: {"type": "string"}}), &[k], true);
    let old = json!({
        "T": one("t"), "U": one("u"), "V": one("v"),
        "Content": {"anyOf": [{"$ref": "#/$defs/T"}, {"$ref": "#/$defs/U"}]},
        "Id": {"type": "string"}
    });
    let new = json!({
        "T": one("t"), "U": one("u"), "V": one("v"),
        "Content": {"anyOf": [{"$ref": "#/$defs/T"}, {"$ref": "#/$defs/V"}]},
        "Id": {"type": ["string", "integer"]}
    });
    let d = diff_defs(old, new);
    assert_eq!(
        lines(&d),
        ["Content union_arm_removed writers", "Content union_arm_added readers", "Id union_arm_added readers"]
    );
    assert_eq!(d.changes[0].old.as_deref(), Some("U"));
    assert_eq!(d.changes[2].new.as_deref(), Some("integer"));
}

#[test]
fn union_arms_another_arm_covers_break_no_one() {
    // Every `Specific` is also a `Result` (an open object): dropping or adding the arm changes
    // nothing a validator accepts.
    let defs = |arms: &[&str]| {
        json!({
            "Result": obj(json!({"_meta": {"type": "object"}}), &[], false),
            "Specific": obj(json!({"x": {"type": "string"}}), &["x"], false),
            "Any": refs(arms)
        })
    };
    let d = diff_defs(defs(&["Result", "Specific"]), defs(&["Result"]));
    assert_eq!(lines(&d), ["Any union_arm_removed none"]);
    assert_eq!(d.changes[0].new.as_deref(), Some("accepted as Result"));
    let d = diff_defs(defs(&["Result"]), defs(&["Result", "Specific"]));
    assert_eq!(lines(&d), ["Any union_arm_added none"]);
    assert_eq!(d.changes[0].old.as_deref(), Some("accepted as Result"));
}

#[test]
fn union_arms_are_matched_by_their_tag_when_they_change_form() {
    // The `text` arm moves from a referenced definition to an inline object with the same tag.
    let text = obj(json!({"type": {"type": "string", "const": "text"}, "x": {"type": "string"}}), &["type"], false);
    let image = obj(json!({"type": {"type": "string", "const": "image"}}), &["type"], false);
    let old = json!({"Text": text, "Image": image, "Content": {"anyOf": [{"$ref": "#/$defs/Text"}, {"$ref": "#/$defs/Image"}]}});
    let inline = obj(json!({"type": {"type": "string", "const": "text"}}), &["type"], false);
    let new = json!({"Text": text, "Image": image, "Content": inline});
    assert_eq!(
        changes(old, new),
        ["Content union_arm_removed writers", "Content<Text> ref_changed none", "Content<Text>/x field_removed none"]
    );
}

#[test]
fn open_and_closed_objects() {
    let old = json!({"A": obj(json!({"x": {"type": "string"}}), &[], false), "B": obj(json!({"x": {"type": "string"}}), &[], true)});
    let new = json!({"A": obj(json!({"x": {"type": "string"}}), &[], true), "B": obj(json!({"x": {"type": "string"}}), &[], false)});
    assert_eq!(changes(old, new), ["A object_closed writers", "B object_opened readers"]);
}

#[test]
fn constraints() {
    let old = json!({"A": obj(json!({
        "list": {"type": "array", "items": {"type": "string"}},
        "n": {"type": "integer", "minimum": 1, "maximum": 10},
        "uri": {"type": "string"},
        "date": {"type": "string", "format": "date-time"}
    }), &[], false)});
    let new = json!({"A": obj(json!({
        "list": {"type": "array", "items": {"type": "string"}, "maxItems": 100},
        "n": {"type": "integer", "minimum": 0, "maximum": 5},
        "uri": {"type": "string", "format": "uri"},
        "date": {"type": "string"}
    }), &[], false)});
    assert_eq!(
        changes(old, new),
        [
            "A/list constraint_changed writers",
            "A/n constraint_changed readers",
            "A/n constraint_changed writers",
            "A/uri constraint_changed writers",
            "A/date constraint_changed readers",
        ]
    );
}

#[test]
fn nested_positions_have_instance_paths() {
    let item = |t: &str| json!({"type": "object", "properties": {"v": {"type": t}}});
    let old = json!({"A": obj(json!({"list": {"type": "array", "items": item("string")}, "map": {"type": "object", "additionalProperties": item("string")}}), &[], false)});
    let new = json!({"A": obj(json!({"list": {"type": "array", "items": item("number")}, "map": {"type": "object", "additionalProperties": item("number")}}), &[], false)});
    assert_eq!(changes(old, new), ["A/list[]/v type_changed both", "A/map{}/v type_changed both"]);
}

#[test]
fn a_new_reference_is_compared_with_what_it_replaces() {
    // The inline `_meta` becomes a shared definition that requires a new member.
    let meta = json!({"type": "object", "properties": {"progressToken": {"type": "string"}}});
    let old = json!({"Params": obj(json!({"_meta": meta}), &[], false)});
    let new = json!({
        "Meta": obj(json!({"progressToken": {"type": "string"}, "io.modelcontextprotocol/protocolVersion": {"type": "string"}}), &["io.modelcontextprotocol/protocolVersion"], false),
        "Params": obj(json!({"_meta": {"$ref": "#/$defs/Meta"}}), &["_meta"], false)
    });
    let d = diff_defs(old, new);
    assert_eq!(
        lines(&d),
        [
            "Meta definition_added none",
            "Params/_meta field_required writers",
            "Params/_meta ref_changed none",
            "Params/_meta/io.modelcontextprotocol~1protocolVersion field_added writers",
        ]
    );
    assert_eq!(d.changes[2].new.as_deref(), Some("Meta"));
}

#[test]
fn recursive_definitions_terminate() {
    let node =
        |name: &str, t: &str| obj(json!({"v": {"type": t}, "next": {"$ref": format!("#/$defs/{name}")}}), &[], false);
    let old = json!({"N1": node("N1", "string"), "Holder": obj(json!({"n": {"$ref": "#/$defs/N1"}}), &[], false)});
    let new = json!({"N2": node("N2", "integer"), "Holder": obj(json!({"n": {"$ref": "#/$defs/N2"}}), &[], false)});
    assert_eq!(
        changes(old, new),
        [
            "Holder/n ref_changed none",
            "Holder/n/v type_changed both",
            // `next` is the pair being compared again: equal by assumption, not compared twice.
            "N1 definition_removed none",
            "N2 definition_added none",
        ]
    );
}

#[test]
fn a_union_of_every_json_value_is_any() {
    // Narrowing such a union is narrowing `any`, not removing its arms.
    let narrowed = changes(
        json!({"JSONValue": {"type": ["string", "number", "boolean", "null", "array", "object"]}, "A": obj(json!({"data": {"$ref": "#/$defs/JSONValue"}}), &[], false)}),
        json!({"JSONValue": {"type": ["string", "number", "boolean", "null", "array", "object"]}, "A": obj(json!({"data": {"type": "string"}}), &[], false)}),
    );
    assert_eq!(narrowed, ["A/data type_changed writers"]);

    let json_value = json!({"anyOf": [
        {"$ref": "#/$defs/JSONObject"},
        {"type": "array", "items": {"$ref": "#/$defs/JSONValue"}},
        {"type": ["string", "number", "boolean", "null"]}
    ]});
    let old = json!({"Caps": obj(json!({"experimental": {"type": "object", "additionalProperties": {}}}), &[], false)});
    let new = json!({
        "JSONValue": json_value,
        "JSONObject": {"type": "object", "additionalProperties": {"$ref": "#/$defs/JSONValue"}},
        "Caps": obj(json!({"experimental": {"$ref": "#/$defs/JSONObject"}}), &[], false)
    });
    assert_eq!(
        changes(old, new),
        [
            "Caps/experimental ref_changed none",
            "Caps/experimental{} ref_changed none",
            "JSONObject definition_added none",
            "JSONValue definition_added none",
        ]
    );
}

/// A method `name` (request `<Stem>Request` with `id`, its result `<Stem>Result`).
fn request(stem: &str, method: &str) -> (String, Value, String, Value) {
    let req = obj(
        json!({"jsonrpc": {"type": "string", "const": "2.0"}, "id": {"type": "integer"}, "method": {"type": "string", "const": method}}),
        &["jsonrpc", "id", "method"],
        false,
    );
    (format!("{stem}Request"), req, format!("{stem}Result"), obj(json!({}), &[], false))
}

fn defs_with(entries: Vec<(String, Value)>) -> Value {
    Value::Object(entries.into_iter().collect())
}

fn refs(names: &[&str]) -> Value {
    json!({"anyOf": names.iter().map(|n| json!({"$ref": format!("#/$defs/{n}")})).collect::<Vec<_>>()})
}

#[test]
fn methods_added_removed_and_moved() {
    let (pr, p, pres, presv) = request("Ping", "ping");
    let (ir, i, ires, iresv) = request("Init", "initialize");
    let (dr, d, dres, dresv) = request("Discover", "server/discover");
    let old = defs_with(vec![
        (pr.clone(), p.clone()),
        (pres.clone(), presv.clone()),
        (ir.clone(), i),
        (ires, iresv),
        ("ClientRequest".into(), refs(&["InitRequest", "PingRequest"])),
    ]);
    let new = defs_with(vec![
        (pr, p),
        (pres, presv),
        (dr, d),
        (dres, dresv),
        ("ClientRequest".into(), refs(&["DiscoverRequest"])),
        ("ServerRequest".into(), refs(&["PingRequest"])),
    ]);
    let diff = diff_defs(old, new);
    assert_eq!(
        lines(&diff),
        [
            "method initialize method_removed writers",
            "method ping direction_changed both",
            "method server/discover method_added readers",
            "ClientRequest union_arm_removed writers",
            "ClientRequest union_arm_removed writers",
            "ClientRequest union_arm_added readers",
            "DiscoverRequest definition_added none",
            "DiscoverResult definition_added none",
            "InitRequest definition_removed none",
            "InitResult definition_removed none",
            "ServerRequest definition_added none",
        ]
    );
    let ping = &diff.changes[1];
    assert_eq!((ping.old.as_deref(), ping.new.as_deref()), (Some("client → server"), Some("server → client")));
    assert_eq!(diff.changes[2].new.as_deref(), Some("request, client → server: DiscoverRequest → DiscoverResult"));
}

#[test]
fn method_kind_and_results() {
    // `Thing` goes from a request (it has an `id`) to a notification (its lost result is part of
    // that change); `tools/call` may now answer with an `InputRequiredResult`.
    let thing = |id: bool| {
        let mut props = json!({"method": {"type": "string", "const": "thing"}});
        if id {
            props["id"] = json!({"type": "integer"});
        }
        obj(props, &["method"], false)
    };
    let (cr, c, cres, cresv) = request("CallTool", "tools/call");
    let response = obj(json!({"result": refs(&["InputRequiredResult", "CallToolResult"])}), &["result"], false);
    let old = defs_with(vec![
        ("Thing".into(), thing(true)),
        ("Result".into(), obj(json!({}), &[], false)),
        (cr.clone(), c.clone()),
        (cres.clone(), cresv.clone()),
    ]);
    let new = defs_with(vec![
        ("Thing".into(), thing(false)),
        ("Result".into(), obj(json!({}), &[], false)),
        (cr, c),
        (cres, cresv),
        (
            "InputRequiredResult".into(),
            obj(json!({"resultType": {"type": "string", "const": "input_required"}}), &["resultType"], false),
        ),
        ("CallToolResultResponse".into(), response),
    ]);
    assert_eq!(
        changes(old, new),
        [
            "method thing method_kind_changed both",
            "method tools/call/result union_arm_added readers",
            "CallToolResultResponse definition_added none",
            "InputRequiredResult definition_added none",
            "Thing/id field_removed none",
        ]
    );
}

#[test]
fn every_change_is_classified_as_the_rules_say() {
    // The breakage of the kinds whose classification does not depend on context.
    let d = diff_defs(
        json!({"E": {"type": "string", "enum": ["a"]}, "U": {"type": ["string", "null"]}, "Gone": {"type": "string"}}),
        json!({"E": {"type": "string", "enum": ["b"]}, "U": {"type": ["string", "integer"]}, "New": {"type": "string"}}),
    );
    for c in &d.changes {
        let expected = match c.kind {
            ChangeKind::EnumValueAdded | ChangeKind::UnionArmAdded => Breaks::READERS,
            ChangeKind::EnumValueRemoved | ChangeKind::UnionArmRemoved => Breaks::WRITERS,
            ChangeKind::DefinitionAdded | ChangeKind::DefinitionRemoved => Breaks::NONE,
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(c.breaks, expected, "{c:?}");
    }
    assert_eq!(d.changes.len(), 6);
}

fn small_pair() -> RevisionDiff {
    diff_defs(
        json!({"Tool": obj(json!({"name": {"type": "string"}, "title": {"type": "string"}}), &["name"], true)}),
        json!({"Tool": obj(json!({"name": {"type": "string"}, "icons": {"type": "array", "items": {"type": "string"}}}), &["name"], true), "Icon": {"type": "string"}}),
    )
}

#[test]
fn markdown_report() {
    let md = small_pair().to_markdown();
    assert!(md.starts_with("# MCP schema changes: 2000-01-01 → 2000-02-02\n"), "{md}");
    assert!(md.contains("computed by `cargo xtask diff 2000-01-01 2000-02-02`"), "{md}");
    assert!(md.contains(diff::SEMANTICS), "the report states its rules");
    assert!(md.contains("3 changes: 1 break old readers only, 1 old writers only, 0 both, 1 no one."), "{md}");
    // Icon is added, Tool changed; title removed from a closed object, icons added to it.
    let expected = "\
## Definitions

### Added definitions (1)

| name | what | breaks |
|---|---|---|
| `Icon` | `string` | – |

### Changed definitions (1)

#### `Tool`

| at | change | old | new | breaks |
|---|---|---|---|---|
| `/title` | field removed | `optional string` |  | **old writers** |
| `/icons` | field added |  | `optional array of string` | **old readers** |
";
    assert!(md.ends_with(expected), "{md}");
    assert!(md.contains("| field added | 1 | 1 | 0 | 0 | 0 |\n"), "{md}");
    assert!(md.contains("| **all** | 3 | 1 | 1 | 0 | 1 |\n"), "{md}");
}

#[test]
fn json_report() {
    let d = small_pair();
    assert_eq!(
        d.to_json(),
        json!({
            "from": {"revision": "2000-01-01", "sha256": "20000101"},
            "to": {"revision": "2000-02-02", "sha256": "20000202"},
            "summary": {
                "changes": {"total": 3, "readers": 1, "writers": 1, "both": 0, "none": 1},
                "by_kind": {
                    "definition_added": {"total": 1, "readers": 0, "writers": 0, "both": 0, "none": 1},
                    "field_added": {"total": 1, "readers": 1, "writers": 0, "both": 0, "none": 0},
                    "field_removed": {"total": 1, "readers": 0, "writers": 1, "both": 0, "none": 0}
                }
            },
            "changes": [
                {"subject": {"definition": "Icon", "path": ""}, "kind": "definition_added", "old": null, "new": "string",
                 "breaks": {"old_readers": false, "old_writers": false}},
                {"subject": {"definition": "Tool", "path": "/title"}, "kind": "field_removed", "old": "optional string", "new": null,
                 "breaks": {"old_readers": false, "old_writers": true}},
                {"subject": {"definition": "Tool", "path": "/icons"}, "kind": "field_added", "old": null, "new": "optional array of string",
                 "breaks": {"old_readers": true, "old_writers": false}}
            ]
        })
    );
    assert!(d.to_json_string().ends_with("}\n"));
}

#[test]
fn workspace_reports_only_for_pinned_pairs() {
    let a = module("2025-11-25", json!({"A": {"type": "string"}}));
    let b = module("2026-07-28", json!({"A": {"type": "integer"}}));
    let pairs = [("2025-11-25".to_owned(), "2026-07-28".to_owned())];
    let files = diff::workspace_reports(&[b.clone(), a.clone()], &pairs);
    let path = diff::report_path("2025-11-25", "2026-07-28");
    assert_eq!(path, "docs/revision-diff-2025-11-25-to-2026-07-28.md");
    let text = files.get(&path).expect("the committed report");
    assert!(text.starts_with("<!-- @generated by mcpgen-codegen"), "{text}");
    assert!(text.ends_with(&diff::diff(&a, &b).to_markdown()), "{text}");
    assert!(diff::workspace_reports(&[a], &pairs).is_empty(), "no report without both revisions");
}
