//! A hundred and twenty hostile tool schemas (cycles, deep nesting, huge `required`, `allOf` fans,
//! `$ref` chains), drawn from a fixed seed, through argument building and case generation:
//! each ends within the node budget and well within a time bound (issue 38, cause 1 and 2).
//! The same shapes are fuzzed by `fuzz/fuzz_targets/probe_args.rs`.

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use mcpgen_probe::args::{valid_arguments_within, Budget, GenLimit, MAX_NODES};
use mcpgen_probe::cases::{cases_within, Rng, MAX_VARIANTS};

/// One run of building may take this long on a slow, shared machine (it takes milliseconds).
const TIME_BOUND: Duration = Duration::from_secs(3);

fn fan(width: usize, target: &str) -> Value {
    Value::Array((0..width).map(|_| json!({"$ref": target})).collect())
}

/// A hostile schema of shape `kind`, sized by `n`.
fn hostile(kind: u64, n: usize, rng: &mut Rng) -> Value {
    match kind {
        // `allOf` fans of the root itself.
        0 => json!({"allOf": fan(n % 12 + 2, "#"), "required": ["a"]}),
        // A required member per child, each a reference to the root.
        1 => {
            let names: Vec<String> = (0..n % 8 + 2).map(|i| format!("m{i}")).collect();
            let props: Map<String, Value> = names.iter().map(|k| (k.clone(), json!({"$ref": "#"}))).collect();
            json!({"type": "object", "required": names, "properties": props})
        }
        // Deep nesting of distinct schemas, arrays of 8 at each level.
        2 => {
            let mut s = json!({"type": "string", "minLength": 64});
            for _ in 0..(n % 200 + 1) {
                s = if rng.below(2) == 0 {
                    json!({"type": "array", "minItems": 8, "items": s})
                } else {
                    json!({"type": "object", "required": ["x", "y"], "properties": {"x": s, "y": {"type": "integer"}}})
                };
            }
            json!({"type": "object", "required": ["root"], "properties": {"root": s}})
        }
        // A huge `required`, with properties.
        3 => {
            let count = 200 + n * 97 % 2000;
            let names: Vec<String> = (0..count).map(|i| format!("p{i}")).collect();
            let props: Map<String, Value> =
                names.iter().map(|k| (k.clone(), json!({"type": "string", "maxLength": 8}))).collect();
            json!({"type": "object", "required": names, "properties": props, "additionalProperties": false})
        }
        // A `$ref` chain through `$defs` that closes on itself, with `allOf` fans on the way.
        _ => {
            let len = n % 30 + 2;
            let defs: Map<String, Value> = (0..len)
                .map(|i| {
                    let next = format!("#/$defs/d{}", (i + 1) % len);
                    (
                        format!("d{i}"),
                        json!({"allOf": fan(4, &next), "required": [format!("r{i}")],
                        "properties": {format!("r{i}"): {"$ref": next}}}),
                    )
                })
                .collect();
            json!({"$defs": defs, "$ref": "#/$defs/d0"})
        }
    }
}

#[test]
fn hostile_schemas_end_within_the_node_and_time_bounds() {
    let mut rng = Rng::new(38);
    let mut limited = 0;
    for i in 0..120 {
        let kind = rng.below(5);
        let n = rng.below(1000) as usize;
        let schema = hostile(kind, n, &mut rng);
        let start = Instant::now();
        let mut budget = Budget::for_tool(None);
        let built = valid_arguments_within(&schema, &mut budget);
        assert!(budget.spent() <= MAX_NODES, "#{i} kind {kind}: {} nodes", budget.spent());
        match built {
            Ok(v) => assert!(v.is_object(), "#{i} kind {kind}: {v}"),
            Err(GenLimit::Nodes { limit }) => {
                assert_eq!(limit, MAX_NODES);
                limited += 1;
            }
            Err(GenLimit::Time) => panic!("#{i} kind {kind}: no deadline was set"),
        }
        let tool = json!({"name": "t", "inputSchema": schema});
        let mut budget = Budget::for_tool(None);
        let cases = cases_within(&tool, i, 16, &mut budget);
        assert!(budget.spent() <= MAX_NODES, "#{i} kind {kind}: {} nodes", budget.spent());
        if let Ok(cases) = cases {
            assert!(cases.len() <= 16.min(MAX_VARIANTS + 1), "#{i} kind {kind}: {} cases", cases.len());
        }
        assert!(start.elapsed() < TIME_BOUND, "#{i} kind {kind}: {:?}", start.elapsed());
    }
    // The deep shapes do reach the limit: the bound is exercised, not only never approached.
    assert!(limited > 5, "{limited} schemas hit the node limit");
}

#[test]
fn a_deadline_ends_building_inside_a_large_schema() {
    let mut rng = Rng::new(1);
    let schema = hostile(2, 199, &mut rng);
    let start = Instant::now();
    let mut budget = Budget::new(usize::MAX, Some(Instant::now() + Duration::from_millis(50)));
    assert_eq!(valid_arguments_within(&schema, &mut budget), Err(GenLimit::Time));
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
}
