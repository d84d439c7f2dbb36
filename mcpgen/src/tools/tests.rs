//! Resolver, cache and dialect tests (the shared cases are in `vectors/tools/`).

use crate::rules::id;
use std::io;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::*;

/// A fetcher that records every call and serves a fixed schema.
#[derive(Default)]
struct FakeFetcher {
    calls: AtomicUsize,
    seen: Mutex<Vec<String>>,
    body: Vec<u8>,
}

impl SchemaFetcher for FakeFetcher {
    fn fetch(&self, request: &FetchRequest<'_>) -> Result<Vec<u8>, FetchError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.seen.lock().unwrap().push(format!("{} via {:?}", request.uri, request.addrs));
        Ok(self.body.clone())
    }
}

/// A DNS table; an unknown name is an error.
struct FakeDns(Vec<(&'static str, Vec<IpAddr>)>);

impl HostResolver for FakeDns {
    fn resolve(&self, host: &str, _port: u16) -> io::Result<Vec<IpAddr>> {
        self.0
            .iter()
            .find(|(h, _)| *h == host)
            .map(|(_, a)| a.clone())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such host"))
    }
}

fn fetch_options(fetcher: Arc<FakeFetcher>, dns: FakeDns) -> SchemaOptions {
    let policy = FetchPolicy::new(fetcher).with_resolver(Arc::new(dns));
    SchemaOptions { fetch: Some(policy), ..SchemaOptions::default() }
}

fn schema_with_ref(uri: &str) -> Value {
    json!({"type": "object", "properties": {"x": {"$ref": uri}}})
}

fn kinds(errors: &[SchemaError]) -> Vec<&'static str> {
    errors.iter().map(|e| e.kind.as_str()).collect()
}

#[test]
fn network_ref_is_refused_by_default_naming_the_uri() {
    // Default options: no fetch policy at all, so no code path can reach a fetcher.
    let errors =
        compile_schema(&schema_with_ref("https://example.com/s.json"), SchemaRole::Input, &SchemaOptions::default())
            .unwrap_err();
    assert_eq!(kinds(&errors), ["network_ref"]);
    assert_eq!(errors[0].uri.as_deref(), Some("https://example.com/s.json"));
    assert_eq!(errors[0].pointer, "/properties/x/$ref");
    assert!(errors[0].message.contains("https://example.com/s.json"));
}

#[test]
fn a_fetch_policy_is_not_consulted_for_local_references() {
    let fetcher = Arc::new(FakeFetcher::default());
    let opts = fetch_options(fetcher.clone(), FakeDns(vec![]));
    let schema =
        json!({"type": "object", "$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}}});
    assert!(compile_schema(&schema, SchemaRole::Input, &opts).is_ok());
    assert_eq!(fetcher.calls.load(Ordering::SeqCst), 0);
}

#[test]
fn resolver_refuses_private_addresses_before_connecting() {
    let literals = [
        "127.0.0.1",
        "127.1.2.3",
        "[::1]",
        "169.254.169.254",
        "10.0.0.8",
        "192.168.1.1",
        "172.16.0.1",
        "172.31.255.254",
        "0.0.0.0",
        "[fe80::1]",
        "[fd00::1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:10.1.1.1]",
        "100.64.0.1",
    ];
    for host in literals {
        let fetcher = Arc::new(FakeFetcher::default());
        let opts = fetch_options(fetcher.clone(), FakeDns(vec![])).clone();
        let uri = format!("https://{host}/s.json");
        let errors = compile_schema(&schema_with_ref(&uri), SchemaRole::Input, &opts).unwrap_err();
        assert_eq!(kinds(&errors), ["ref_refused"], "{host}: {errors:?}");
        assert!(errors[0].message.contains("address"), "{host}: {}", errors[0].message);
        assert_eq!(fetcher.calls.load(Ordering::SeqCst), 0, "{host} reached the fetcher");
        assert!(opts.fetch.as_ref().unwrap().fetched().is_empty());
    }
}

#[test]
fn resolver_checks_the_addresses_a_name_resolves_to() {
    for (ip, why) in [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("169.254.1.1", "link-local"),
        ("::1", "loopback"),
        ("192.168.0.10", "private"),
        ("172.20.0.1", "private"),
    ] {
        let fetcher = Arc::new(FakeFetcher::default());
        let dns = FakeDns(vec![("schemas.example.com", vec!["93.184.216.34".parse().unwrap(), ip.parse().unwrap()])]);
        let opts = fetch_options(fetcher.clone(), dns);
        let errors = compile_schema(&schema_with_ref("https://schemas.example.com/s.json"), SchemaRole::Input, &opts)
            .unwrap_err();
        assert_eq!(kinds(&errors), ["ref_refused"]);
        assert!(errors[0].message.contains(why), "{ip}: {}", errors[0].message);
        assert_eq!(fetcher.calls.load(Ordering::SeqCst), 0, "{ip} reached the fetcher");
    }
}

#[test]
fn resolver_applies_allowlist_scheme_and_size_cap() {
    let public = || {
        FakeDns(vec![
            ("schemas.example.com", vec!["93.184.216.34".parse().unwrap()]),
            ("evil.example.net", vec!["93.184.216.35".parse().unwrap()]),
        ])
    };
    // Host outside the allowlist.
    let fetcher = Arc::new(FakeFetcher { body: br#"{"type":"string"}"#.to_vec(), ..FakeFetcher::default() });
    let mut opts = fetch_options(fetcher.clone(), public());
    opts.fetch = opts.fetch.map(|p| p.allow_hosts(["schemas.example.com"]));
    let errors =
        compile_schema(&schema_with_ref("https://evil.example.net/s.json"), SchemaRole::Input, &opts).unwrap_err();
    assert_eq!(kinds(&errors), ["ref_refused"]);
    assert!(errors[0].message.contains("allowlist"));
    // Plain http is refused unless allowed.
    let errors =
        compile_schema(&schema_with_ref("http://schemas.example.com/s.json"), SchemaRole::Input, &opts).unwrap_err();
    assert!(errors[0].message.contains("scheme"), "{}", errors[0].message);
    assert_eq!(fetcher.calls.load(Ordering::SeqCst), 0);
    // Allowed host, public address: fetched once, logged, and used.
    let compiled =
        compile_schema(&schema_with_ref("https://schemas.example.com/s.json"), SchemaRole::Input, &opts).unwrap();
    assert_eq!(fetcher.calls.load(Ordering::SeqCst), 1);
    assert_eq!(opts.fetch.as_ref().unwrap().fetched(), ["https://schemas.example.com/s.json"]);
    assert!(fetcher.seen.lock().unwrap()[0].contains("93.184.216.34:443"));
    assert!(compiled.validate(&json!({"x": "s"})).is_ok());
    assert!(compiled.validate(&json!({"x": 1})).is_err());
    // A body over the cap is refused.
    let big = Arc::new(FakeFetcher { body: vec![b' '; 2048], ..FakeFetcher::default() });
    let mut opts = fetch_options(big, public());
    opts.fetch.as_mut().unwrap().max_bytes = 1024;
    let errors =
        compile_schema(&schema_with_ref("https://schemas.example.com/s.json"), SchemaRole::Input, &opts).unwrap_err();
    assert!(errors[0].message.contains("cap"), "{}", errors[0].message);
}

#[test]
fn forbidden_addresses() {
    for ip in [
        "127.0.0.1",
        "::1",
        "169.254.0.1",
        "fe80::abcd",
        "10.255.255.255",
        "172.16.0.0",
        "172.31.0.1",
        "192.168.255.1",
        "fc00::1",
        "fdff::1",
        "0.0.0.0",
        "::",
        "::ffff:192.168.1.1",
        "64:ff9b::a00:1",
    ] {
        assert!(forbidden_address(ip.parse().unwrap()).is_some(), "{ip} should be forbidden");
    }
    for ip in
        ["93.184.216.34", "172.15.0.1", "172.32.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "169.253.0.1"]
    {
        assert!(forbidden_address(ip.parse().unwrap()).is_none(), "{ip} should be allowed");
    }
}

#[test]
fn dialect_spellings() {
    for uri in [
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft-07/schema#",
    ] {
        assert_eq!(Dialect::from_uri(uri), Some(Dialect::Draft07), "{uri}");
    }
    assert_eq!(Dialect::from_uri("https://json-schema.org/draft/2020-12/schema#"), Some(Dialect::Draft202012));
    assert_eq!(Dialect::from_uri("http://json-schema.org/draft/2019-09/schema"), Some(Dialect::Draft201909));
    for uri in [
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-06/schema#",
        "https://json-schema.org/draft/2020-12/schema##",
        "json-schema.org/draft-07/schema",
        "",
    ] {
        assert_eq!(Dialect::from_uri(uri), None, "{uri}");
    }
    assert_eq!(Dialect::of(&json!({})).unwrap(), Dialect::Draft202012);
    let e = Dialect::of(&json!({"$schema": "urn:x"})).unwrap_err();
    assert_eq!((e.kind, e.uri.as_deref()), (SchemaErrorKind::UnsupportedDialect, Some("urn:x")));
}

#[test]
fn each_dialect_is_checked_against_its_own_meta_schema() {
    // `dependencies` is draft-07; in 2020-12 it is an unknown keyword (annotation). A non-array
    // `required` is invalid everywhere. `exclusiveMinimum: true` is draft-04 syntax: invalid in 07.
    let d7 = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"n": {"exclusiveMinimum": true}}});
    assert_eq!(
        kinds(&compile_schema(&d7, SchemaRole::Input, &SchemaOptions::default()).unwrap_err()),
        ["invalid_schema"]
    );
    let ok =
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "dependencies": {"a": ["b"]}});
    assert!(compile_schema(&ok, SchemaRole::Input, &SchemaOptions::default()).is_ok());
}

#[test]
fn limits_are_configurable_and_distinct() {
    let schema = json!({"type": "object", "properties": {"a": {"enum": [1, 2, 3]}, "b": {"properties": {"c": {"not": {"not": {}}}}}}});
    let strict =
        SchemaOptions { limits: Limits { max_enum_values: 2, ..Limits::default() }, ..SchemaOptions::default() };
    assert_eq!(kinds(&compile_schema(&schema, SchemaRole::Input, &strict).unwrap_err()), ["enum_too_large"]);
    let shallow = SchemaOptions { limits: Limits { max_depth: 3, ..Limits::default() }, ..SchemaOptions::default() };
    assert_eq!(kinds(&compile_schema(&schema, SchemaRole::Input, &shallow).unwrap_err()), ["too_deep"]);
    let few = SchemaOptions { limits: Limits { max_subschemas: 4, ..Limits::default() }, ..SchemaOptions::default() };
    assert_eq!(kinds(&compile_schema(&schema, SchemaRole::Input, &few).unwrap_err()), ["too_many_subschemas"]);
    let cheap = SchemaOptions { limits: Limits { max_steps: 5, ..Limits::default() }, ..SchemaOptions::default() };
    assert_eq!(kinds(&compile_schema(&schema, SchemaRole::Input, &cheap).unwrap_err()), ["step_budget_exceeded"]);
    assert!(compile_schema(&schema, SchemaRole::Input, &SchemaOptions::default()).is_ok());
}

#[test]
fn backtrack_limit_is_a_limit_error_at_validation() {
    // Back-references without nested repetition: accepted statically, but a tiny backtrack
    // limit makes a long subject undecidable, reported as a JSCHEMA-8 limit, not as "invalid".
    let schema = json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^(.*)(.*)\\2\\1x$"}}});
    let opts =
        SchemaOptions { limits: Limits { backtrack_limit: 10, ..Limits::default() }, ..SchemaOptions::default() };
    let compiled = compile_schema(&schema, SchemaRole::Input, &opts).unwrap();
    let err = compiled.validate(&json!({"s": "a".repeat(200) + "b"})).unwrap_err();
    assert_eq!(err.kind(), "limit_exceeded", "{err}");
    assert_eq!(err.errors()[0].rule, Some(id::JSCHEMA_8));
    assert_eq!(err.errors()[0].pointer, "/s");
}

#[test]
fn checker_compiles_once_per_tool_and_is_shared_across_threads() {
    let checker = Arc::new(ToolChecker::default());
    let tool = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}});
    let first = checker.compile(&tool).unwrap();
    let again = checker.compile(&tool).unwrap();
    assert!(Arc::ptr_eq(&first, &again), "the second compile must come from the cache");
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let checker = checker.clone();
            let tool = tool.clone();
            std::thread::spawn(move || {
                assert!(checker.validate_arguments(&tool, &json!({"n": i})).is_ok());
                assert!(checker.validate_arguments(&tool, &json!({"n": "x"})).is_err());
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(checker.cached(), 1);
    // Same name, another schema: another entry (a server that changed its tool).
    let changed = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"type": "string"}}}});
    assert!(checker.validate_arguments(&changed, &json!({"n": "x"})).is_ok());
    assert_eq!(checker.cached(), 2);
    // Bounded.
    let small = ToolChecker::default().with_capacity(2);
    for i in 0..5 {
        small.compile(&json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}})).unwrap();
    }
    assert_eq!(small.cached(), 2);
}

#[test]
fn typed_tools_of_every_revision_are_sources() {
    use crate::Decode;
    let bytes = br#"{"name":"get_weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"outputSchema":{"type":"object","required":["t"]}}"#;
    let tool = crate::rev_2026_07_28::Tool::decode_bytes(bytes, crate::Policy::Lossless).unwrap();
    assert!(validate_tool_arguments(&tool, &json!({"city": "Paris"})).is_ok());
    let err = validate_tool_arguments(&tool, &json!({})).unwrap_err();
    assert_eq!((err.kind(), err.errors()[0].keyword, err.errors()[0].rule), ("invalid", "required", Some(id::TOOL_5)));
    let err = validate_structured_content(&tool, &json!({})).unwrap_err();
    assert_eq!(err.errors()[0].rule, Some(id::TOOL_4));
    let old = crate::rev_2024_11_05::Tool::decode_bytes(
        br#"{"name":"t","inputSchema":{"type":"object"}}"#,
        crate::Policy::Lossless,
    )
    .unwrap();
    assert!(check_tool(&old).is_ok());
    // No outputSchema: any structured content is accepted.
    assert!(validate_structured_content(&old, &json!([1])).is_ok());
}

#[test]
fn tools_list_reports_every_tool() {
    let doc = br#"{"tools":[
        {"name":"good","inputSchema":{"type":"object"}},
        {"name":"remote","inputSchema":{"type":"object","properties":{"a":{"$ref":"https://x.example/a.json"}}}},
        {"name":"old","inputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}}
    ]}"#;
    let reports = check_tools_json(doc, &SchemaOptions::default()).unwrap();
    assert_eq!(reports.len(), 3);
    assert!(reports[0].errors.is_empty());
    assert_eq!(reports[1].pointer, "/tools/1");
    assert_eq!(kinds(&reports[1].errors), ["network_ref"]);
    assert_eq!(kinds(&reports[2].errors), ["unsupported_dialect"]);
    assert!(check_tools_json(b"[1]", &SchemaOptions::default()).is_err());
    assert!(check_tools_json(b"{", &SchemaOptions::default()).is_err());
}

#[test]
fn every_kind_has_a_distinct_name_and_a_rule() {
    let mut names: Vec<&str> = SchemaErrorKind::ALL.iter().map(|k| k.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), SchemaErrorKind::ALL.len());
    assert!(SchemaErrorKind::ALL.iter().all(|k| k.rule().starts_with("JSCHEMA-")));
}

#[test]
fn limits_by_name_cover_every_field() {
    let mut limits = Limits::default();
    for (i, name) in Limits::NAMES.iter().enumerate() {
        let value = 1000 + i as u64;
        limits.set(name, value).unwrap();
        assert_eq!(limits.get(name), Some(value), "{name}");
    }
    // Every field was reached: no two names share one.
    let expected = Limits {
        max_depth: 1000,
        max_subschemas: 1001,
        max_enum_values: 1002,
        max_pattern_length: 1003,
        regex_size_limit: 1004,
        backtrack_limit: 1005,
        max_steps: 1006,
        max_instance_depth: 1007,
        max_errors: 1008,
    };
    assert_eq!(limits, expected);
    assert_eq!(limits.get("max_dept"), None);
    let err = limits.set("max_dept", 1).unwrap_err();
    assert_eq!(err, LimitError::UnknownName { name: "max_dept".into() });
    assert_eq!((err.kind(), err.name()), ("unknown_limit", "max_dept"));
    assert_eq!(
        err.to_string(),
        "unknown limit `max_dept` (known: max_depth, max_subschemas, max_enum_values, max_pattern_length, \
         regex_size_limit, backtrack_limit, max_steps, max_instance_depth, max_errors)"
    );
}

/// `levels` nested arrays around `0`, as the `default` of an input schema.
fn deep_tool_text(levels: usize) -> String {
    format!(
        r#"{{"name":"deep","inputSchema":{{"type":"object","default":{}0{}}}}}"#,
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

#[test]
fn tools_nested_past_the_parser_limit_are_too_deep() {
    // The tool object is level 1, inputSchema 2; the arrays of `default` start at level 3, so
    // 126 of them make 128 levels (allowed) and 127 make 129.
    let ok = tool_from_json(deep_tool_text(126).as_bytes()).unwrap();
    assert!(CompiledTool::compile(&ok, &SchemaOptions::default()).is_ok());
    for levels in [127, 300, 100_000] {
        let tool = tool_from_json(deep_tool_text(levels).as_bytes()).unwrap();
        let e = CompiledTool::compile(&tool, &SchemaOptions::default()).unwrap_err();
        assert_eq!(e.errors.len(), 1, "{e}");
        let p = format!("/inputSchema/default{}", "/0".repeat(126));
        assert_eq!((e.errors[0].kind, e.errors[0].pointer.as_str()), (SchemaErrorKind::TooDeep, p.as_str()), "{e}");
        assert_eq!(e.errors[0].rule(), id::JSCHEMA_8);
        assert_eq!(e.errors[0].message, "arrays and objects nested deeper than 128 levels (the JSON parser's limit)");
    }
    // The same from a value (no parser involved), and from a list: pointers are into the tool.
    let mut v = json!(0);
    for _ in 0..127 {
        v = Value::Array(vec![v]);
    }
    let value = json!({"name": "deep", "inputSchema": {"type": "object", "default": v}});
    assert_eq!(check_tool(&value).unwrap_err().errors[0].pointer, format!("/inputSchema/default{}", "/0".repeat(126)));
    let list = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{},{}]}}}}"#, OK_TOOL, deep_tool_text(300));
    let reports = check_tools_json(list.as_bytes(), &SchemaOptions::default()).unwrap();
    assert_eq!(reports.len(), 2);
    assert!(reports[0].errors.is_empty());
    assert_eq!((reports[1].pointer.as_str(), reports[1].name.as_str()), ("/result/tools/1", "deep"));
    assert_eq!(reports[1].errors[0].pointer, format!("/inputSchema/default{}", "/0".repeat(126)));
    // Deep values outside every tool are not looked at.
    let aside = format!(r#"{{"tools":[{OK_TOOL}],"_meta":{{"x":{}{}}}}}"#, "[".repeat(5000), "]".repeat(5000));
    assert!(check_tools_json(aside.as_bytes(), &SchemaOptions::default()).unwrap()[0].errors.is_empty());
}

const OK_TOOL: &str = r#"{"name":"ok","inputSchema":{"type":"object"}}"#;

#[test]
fn tool_documents_that_cannot_be_checked() {
    let check = |text: &str| check_tools_json(text.as_bytes(), &SchemaOptions::default()).unwrap_err();
    // Not JSON, even when it is also deep: a parse error.
    let e = check("{\"tools\":[");
    assert_eq!((e.kind(), e.pointer(), e.rule()), ("parse", None, None));
    assert_eq!(e.to_string(), "invalid JSON at line 1 column 11 (byte 10): unexpected end of input");
    let broken_deep = format!("{{\"tools\":[{}", &deep_tool_text(300)[..400]);
    assert_eq!(check(&broken_deep).kind(), "parse");
    assert!(tool_from_json(broken_deep.as_bytes()).is_err());
    let e = check("[1,2]");
    assert_eq!((e.kind(), e.pointer()), ("not_a_tool_document", Some("")));
    let e = check(r#"{"result":{"tools":{}}}"#);
    assert_eq!((e.kind(), e.pointer()), ("tools_not_an_array", Some("/result/tools")));
    assert_eq!(e.to_string(), "/result/tools must be an array");
}

#[test]
fn every_refused_reference_is_reported_in_document_order_on_every_run() {
    // `jsonschema` asks for external documents in hash order and stops at the first refusal, so
    // with several refused references the one reported used to change from run to run (found
    // by the `tools` fuzz target: `ToolChecker::compile` and `check_tools_json` disagreed on the
    // same tool). Every compile gets a fresh hasher, so repeating it shows any dependence.
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "fs/a21"},
            "b": {"anyOf": [{"$ref": "+#/$defs/x"}, {"$ref": "https://example.com/s.json"}]},
            "c": {"$ref": "#/$defs/missing"}
        }
    });
    let report = |errors: Vec<SchemaError>| -> Vec<(String, &'static str, Option<String>)> {
        errors.into_iter().map(|e| (e.pointer, e.kind.as_str(), e.uri)).collect()
    };
    let first = report(compile_schema(&schema, SchemaRole::Input, &SchemaOptions::default()).unwrap_err());
    assert_eq!(
        first,
        [
            ("/properties/a/$ref".to_owned(), "unresolved_ref", Some("json-schema:///fs/a21".to_owned())),
            ("/properties/b/anyOf/0/$ref".to_owned(), "unresolved_ref", Some("json-schema:///+".to_owned())),
            ("/properties/b/anyOf/1/$ref".to_owned(), "network_ref", Some("https://example.com/s.json".to_owned())),
        ]
    );
    for _ in 0..32 {
        let again = report(compile_schema(&schema, SchemaRole::Input, &SchemaOptions::default()).unwrap_err());
        assert_eq!(again, first);
    }
    // The cap on errors applies, keeping the first ones.
    let options = SchemaOptions { limits: Limits { max_errors: 1, ..Limits::default() }, ..SchemaOptions::default() };
    let capped = report(compile_schema(&schema, SchemaRole::Input, &options).unwrap_err());
    assert_eq!(capped, first[..1]);
}
