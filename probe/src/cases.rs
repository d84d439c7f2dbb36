//! Tool argument cases from a tool's `inputSchema`, deterministic under a seed, and the smaller
//! variants of a case that shrinking tries.
//!
//! From the valid instance [`super::args::valid_arguments`] builds (the *base*), each top-level
//! member of the argument object gives variants:
//! - meant valid: every optional member on (all at once, and each alone), each `enum` member,
//!   each of `examples`, the `default`, the bounds (`minimum`, `maximum`, the integers next to
//!   `exclusiveMinimum` / `exclusiveMaximum`, `minLength`, `maxLength`, `minItems`,
//!   `maxItems`), `true` for a boolean, and one value drawn by the seed within the bounds
//!   (at most [`RANDOM_SPAN`] from the bound where the other side is open);
//! - meant invalid: each required member missing, a value of the wrong type, each bound
//!   overstepped by one, a value outside the `enum`, and an extra member where
//!   `additionalProperties` is `false`.
//!
//! What a case *is* is not the generator's intent: every case is checked against the schema
//! with [`mcpgen::tools::validate_tool_arguments`], and only that verdict makes it valid or
//! invalid; a case the validator cannot judge (a schema it cannot compile, a cost limit) is
//! dropped. Duplicates are dropped too. At most `max` cases are kept: the base first, then
//! valid and invalid ones in turn, each list in an order the seed shuffles.
//!
//! Limits: strings are built at most [`MAX_STRING`] characters long (a longer `maxLength` is
//! not reached, and not overstepped), arrays at most [`MAX_ITEMS`] items. Against a hostile
//! schema (issue 38): at most [`MAX_VARIANTS`] variants, and each spends the size of the
//! argument object from the tool's [`Budget`] (so a tool with thousands of members gets fewer
//! variants, not thousands of copies of thousands of members); the base must be built within
//! the budget, else the tool has no cases ([`NoCases::Limit`]).

use serde_json::{json, Map, Value};

use mcpgen::tools::{validate_tool_arguments, ToolCallError};

use super::args::{self, Budget, GenLimit};

/// Longest string a case holds.
pub const MAX_STRING: u64 = 256;
/// Most items of an array a case holds.
pub const MAX_ITEMS: u64 = 16;
/// How far from its bound a number open on one side (or both: from 0) is drawn.
pub const RANDOM_SPAN: f64 = 3.0;
/// Most variants built for one tool (before duplicates and those the validator cannot judge
/// are dropped).
pub const MAX_VARIANTS: usize = 256;
/// The member added where `additionalProperties` is `false`.
pub const EXTRA_MEMBER: &str = "mcpgenProbeExtra";

/// A small, documented generator (SplitMix64, Steele, Lea and Flood 2014): the same seed gives
/// the same cases on every platform and with every dependency version, which is the point of
/// `--seed` (a run can be repeated from the seed its summary prints).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// Fisher–Yates.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// One argument object to send, and what the validator says it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// What the variant changes (`base`, `enum /mode #2`, `missing /text`, …).
    pub name: String,
    pub arguments: Value,
    /// Whether the arguments satisfy the `inputSchema` (the validator's verdict).
    pub valid: bool,
}

/// The validator's verdict on `arguments`: `Some(true)` valid, `Some(false)` invalid, `None`
/// when it cannot judge (the tool's schema does not compile, or a cost limit).
pub fn classify(tool: &Value, arguments: &Value) -> Option<bool> {
    match validate_tool_arguments(tool, arguments) {
        Ok(()) => Some(true),
        Err(ToolCallError::Invalid(_)) => Some(false),
        Err(_) => None,
    }
}

/// Why a tool has no cases.
#[derive(Debug, Clone, PartialEq)]
pub enum NoCases {
    /// Building the base instance hit a limit of the [`Budget`].
    Limit(GenLimit),
    /// The base instance does not satisfy the schema (or the validator cannot judge it): why.
    Invalid(String),
}

impl std::fmt::Display for NoCases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoCases::Limit(l) => l.fmt(f),
            NoCases::Invalid(why) => f.write_str(why),
        }
    }
}

/// The cases for `tool` (a `Tool` of a `tools/list` result), at most `max`; see the module
/// documentation. Empty when the base instance cannot be built or is not valid.
pub fn cases(tool: &Value, seed: u64, max: usize) -> Vec<Case> {
    cases_within(tool, seed, max, &mut Budget::for_tool(None)).unwrap_or_default()
}

/// [`cases`] within `budget`: the base instance must be built within it (else
/// [`NoCases::Limit`]); the variants stop where it (or [`MAX_VARIANTS`]) runs out.
pub fn cases_within(tool: &Value, seed: u64, max: usize, budget: &mut Budget) -> Result<Vec<Case>, NoCases> {
    let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
    let base = args::valid_arguments_within(schema, budget).map_err(NoCases::Limit)?;
    if let Err(e) = validate_tool_arguments(tool, &base) {
        return Err(NoCases::Invalid(e.to_string()));
    }
    if max == 0 {
        return Ok(Vec::new());
    }
    let mut rng = Rng::new(seed);
    let mut seen = vec![base.clone()];
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    for (name, arguments) in variants(schema, &base, &mut rng, budget) {
        if seen.contains(&arguments) {
            continue;
        }
        match classify(tool, &arguments) {
            Some(true) => valid.push(Case { name, arguments: arguments.clone(), valid: true }),
            Some(false) => invalid.push(Case { name, arguments: arguments.clone(), valid: false }),
            None => continue,
        }
        seen.push(arguments);
    }
    rng.shuffle(&mut valid);
    rng.shuffle(&mut invalid);
    let mut out = vec![Case { name: "base".into(), arguments: base, valid: true }];
    let (mut v, mut i) = (valid.into_iter(), invalid.into_iter());
    while out.len() < max {
        let (a, b) = (v.next(), i.next());
        if a.is_none() && b.is_none() {
            break;
        }
        out.extend(a);
        if out.len() < max {
            out.extend(b);
        }
    }
    Ok(out)
}

/// The variants being built: each costs the base's [`args::weight`] plus its new value's, from
/// the budget; once that or [`MAX_VARIANTS`] runs out, no more are taken.
struct Variants<'b> {
    list: Vec<(String, Value)>,
    base_cost: usize,
    budget: &'b mut Budget,
    full: bool,
}

impl Variants<'_> {
    fn push(&mut self, name: String, base: &Value, member: &str, value: Value) {
        if self.full {
            return;
        }
        if self.list.len() >= MAX_VARIANTS || self.budget.spend(self.base_cost + args::weight(&value)).is_err() {
            self.full = true;
            return;
        }
        self.list.push((name, with(base, member, value)));
    }

    fn push_whole(&mut self, name: String, arguments: impl FnOnce() -> Value) {
        if self.full {
            return;
        }
        if self.list.len() >= MAX_VARIANTS || self.budget.spend(self.base_cost).is_err() {
            self.full = true;
            return;
        }
        self.list.push((name, arguments()));
    }
}

/// The top-level members the argument object may have, each with its (resolved) schema.
fn members(root: &Value) -> Vec<(&str, &Value)> {
    let schema = args::resolve(root, root);
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    props.iter().map(|(k, v)| (k.as_str(), args::resolve(root, v))).collect()
}

fn with(base: &Value, name: &str, value: Value) -> Value {
    let mut out = base.clone();
    if let Some(o) = out.as_object_mut() {
        o.insert(name.to_owned(), value);
    }
    out
}

fn without(base: &Value, name: &str) -> Value {
    let mut out = base.clone();
    if let Some(o) = out.as_object_mut() {
        o.remove(name);
    }
    out
}

fn number(v: f64, integer: bool) -> Value {
    if integer || (v.fract() == 0.0 && v.abs() < 9.0e15) {
        json!(v as i64)
    } else {
        json!(v)
    }
}

fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

fn string_of(len: u64) -> Value {
    Value::String("p".repeat(len.min(MAX_STRING) as usize))
}

/// Every variant of `base`, named, before the validator sorts them (as many as the budget
/// and [`MAX_VARIANTS`] allow).
fn variants(root: &Value, base: &Value, rng: &mut Rng, budget: &mut Budget) -> Vec<(String, Value)> {
    let required = args::required_within(root, budget).unwrap_or_default();
    let members = members(root);
    let mut out = Variants { list: Vec::new(), base_cost: args::weight(base), budget, full: false };
    // Optional members on: all at once (first), then each alone.
    let mut all = base.clone();
    let mut alone = Vec::new();
    for (name, schema) in &members {
        if out.full || required.iter().any(|r| r == name) {
            continue;
        }
        let Ok(value) = args::instance_within(root, schema, out.budget) else { break };
        if let Some(o) = all.as_object_mut() {
            o.insert((*name).to_owned(), value.clone());
        }
        alone.push((*name, value));
    }
    out.push_whole("all members".into(), || all);
    for (name, value) in alone {
        out.push(format!("optional /{name}"), base, name, value);
    }
    for (name, schema) in &members {
        member_variants(name, schema, base, rng, &mut out);
        if required.iter().any(|r| r == name) {
            out.push_whole(format!("missing /{name}"), || without(base, name));
        }
        if out.full {
            break;
        }
    }
    if args::resolve(root, root).get("additionalProperties") == Some(&Value::Bool(false)) {
        out.push("extra member".into(), base, EXTRA_MEMBER, json!(true));
    }
    out.list
}

/// The variants one member gives (valid and invalid alike).
fn member_variants(name: &str, schema: &Value, base: &Value, rng: &mut Rng, out: &mut Variants<'_>) {
    // An array's item is made before any variant, from the budget they spend.
    let items = schema.get("items").unwrap_or(&Value::Null);
    let item = match type_of(schema) {
        Some("array") => args::instance_within(schema, items, out.budget).ok(),
        _ => None,
    };
    let mut push = |what: String, value: Value| out.push(format!("{what} /{name}"), base, name, value);
    listed_variants(schema, &mut push);
    match type_of(schema) {
        Some(ty @ ("integer" | "number")) => number_variants(schema, ty == "integer", rng, &mut push),
        Some("string") => string_variants(schema, rng, &mut push),
        Some("array") => {
            if let Some(item) = item {
                array_variants(schema, &item, &mut push);
            }
        }
        Some("boolean") => {
            push("true".into(), json!(true));
            push("wrong type".into(), json!("true"));
        }
        Some("object") => push("wrong type".into(), json!("mcpgen-probe")),
        _ => {}
    }
}

/// The values a member's schema lists (its first 16 `enum` members and `examples`, its
/// `default`), and a value outside its `enum`.
fn listed_variants(schema: &Value, push: &mut impl FnMut(String, Value)) {
    for key in ["enum", "examples"] {
        for (i, v) in schema.get(key).and_then(Value::as_array).into_iter().flatten().enumerate().take(16) {
            push(format!("{key} #{i}"), v.clone());
        }
    }
    if let Some(d) = schema.get("default") {
        push("default".into(), d.clone());
    }
    if schema.get("enum").is_some() {
        push("not in enum".into(), json!("mcpgen-probe-not-a-member"));
    }
}

/// A number member's variants: at and past each bound, one at random near them, a string, and
/// (an integer) a fraction.
fn number_variants(schema: &Value, integer: bool, rng: &mut Rng, push: &mut impl FnMut(String, Value)) {
    let f = |k: &str| schema.get(k).and_then(Value::as_f64);
    let step = if integer { 1.0 } else { 0.5 };
    let lo = f("minimum").or(f("exclusiveMinimum").map(|e| e + step));
    let hi = f("maximum").or(f("exclusiveMaximum").map(|e| e - step));
    if let Some(lo) = lo {
        push("minimum".into(), number(lo, integer));
        push("below minimum".into(), number(lo - step, integer));
    }
    if let Some(hi) = hi {
        push("maximum".into(), number(hi, integer));
        push("above maximum".into(), number(hi + step, integer));
    }
    // Near a bound when the other side is open: a number is often a size or a wait.
    let (a, b) = match (lo, hi) {
        (Some(lo), Some(hi)) => (lo, hi),
        (Some(lo), None) => (lo, lo + RANDOM_SPAN),
        (None, Some(hi)) => (hi - RANDOM_SPAN, hi),
        (None, None) => (0.0, RANDOM_SPAN),
    };
    if a <= b {
        let span = (b - a).min(1.0e9).floor() as u64;
        push("random".into(), number(a + rng.below(span + 1) as f64, integer));
    }
    push("wrong type".into(), json!("mcpgen-probe"));
    if integer {
        push("fraction".into(), json!(lo.unwrap_or(0.0) + 0.5));
    }
}

/// A string member's variants: at and past each length bound, one of a random length within
/// them, and a number.
fn string_variants(schema: &Value, rng: &mut Rng, push: &mut impl FnMut(String, Value)) {
    let u = |k: &str| schema.get(k).and_then(Value::as_u64);
    let min = u("minLength").unwrap_or(0);
    let max = u("maxLength");
    if min > 0 {
        push("minLength".into(), string_of(min));
        push("below minLength".into(), string_of(min - 1));
    }
    if let Some(max) = max {
        push("maxLength".into(), string_of(max));
        if max < MAX_STRING {
            push("above maxLength".into(), string_of(max + 1));
        }
    }
    let top = max.unwrap_or(32).min(MAX_STRING).max(min);
    push("random".into(), string_of(min + rng.below(top - min.min(top) + 1)));
    push("wrong type".into(), json!(12345));
}

/// An array member's variants, made of copies of `item`: at and past each length bound, and
/// a string.
fn array_variants(schema: &Value, item: &Value, push: &mut impl FnMut(String, Value)) {
    let u = |k: &str| schema.get(k).and_then(Value::as_u64);
    let of = |n: u64| Value::Array(vec![item.clone(); n.min(MAX_ITEMS) as usize]);
    let min = u("minItems").unwrap_or(0);
    if min > 0 {
        push("minItems".into(), of(min));
        push("below minItems".into(), of(min - 1));
    }
    if let Some(max) = u("maxItems") {
        push("maxItems".into(), of(max));
        if max < MAX_ITEMS {
            push("above maxItems".into(), of(max + 1));
        }
    }
    push("wrong type".into(), json!("mcpgen-probe"));
}

/// Smaller variants of `arguments`, most promising first: each member dropped, each string and
/// array cut to half its length, each number moved halfway toward its bound (its `minimum`,
/// else 0). Shrinking keeps one only if the validator still gives the same verdict and the
/// server still fails the same way.
pub fn smaller(root: &Value, arguments: &Value) -> Vec<Value> {
    let Some(object) = arguments.as_object() else { return Vec::new() };
    let schemas: Map<String, Value> = members(root).into_iter().map(|(k, v)| (k.to_owned(), v.clone())).collect();
    let mut out = Vec::new();
    for name in object.keys() {
        out.push(without(arguments, name));
    }
    for (name, value) in object {
        let shorter = match value {
            Value::String(s) if s.chars().count() > 1 => {
                Some(Value::String(s.chars().take(s.chars().count() / 2).collect()))
            }
            Value::Array(a) if !a.is_empty() => Some(Value::Array(a[..a.len() / 2].to_vec())),
            Value::Number(n) => {
                let schema = schemas.get(name).unwrap_or(&Value::Null);
                let integer = n.is_i64() || n.is_u64();
                let target = schema.get("minimum").and_then(Value::as_f64).unwrap_or(0.0);
                let v = n.as_f64().unwrap_or(0.0);
                let mid = if integer { (v + (target - v) / 2.0).trunc() } else { v + (target - v) / 2.0 };
                (mid != v && (mid - v).abs() >= 1e-9).then(|| number(mid, integer))
            }
            _ => None,
        };
        if let Some(s) = shorter {
            out.push(with(arguments, name, s));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(schema: Value) -> Value {
        json!({"name": "t", "inputSchema": schema})
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "minLength": 2, "maxLength": 8},
                "times": {"type": "integer", "minimum": 1, "maximum": 3},
                "mode": {"enum": ["a", "b", "c"]},
                "loud": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}
            },
            "required": ["text"],
            "additionalProperties": false
        })
    }

    /// Whether `args` meet [`schema`], written out: `text` (2 to 8 characters) required,
    /// `times` an integer 1..=3, `mode` one of a/b/c, `loud` a boolean, `tags` at most two
    /// strings, nothing else.
    fn by_hand(args: &Value) -> bool {
        let Some(o) = args.as_object() else { return false };
        let member = |k: &str, ok: &dyn Fn(&Value) -> bool| o.get(k).is_none_or(ok);
        let integer = |v: &Value| v.as_i64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64));
        o.get("text").is_some()
            && member("text", &|v| v.as_str().is_some_and(|t| (2..=8).contains(&t.chars().count())))
            && member("times", &|v| integer(v).is_some_and(|n| (1..=3).contains(&n)))
            && member("mode", &|v| ["a", "b", "c"].iter().any(|m| v == m))
            && member("loud", &Value::is_boolean)
            && member("tags", &|v| v.as_array().is_some_and(|a| a.len() <= 2 && a.iter().all(Value::is_string)))
            && o.keys().all(|k| ["text", "times", "mode", "loud", "tags"].contains(&k.as_str()))
    }

    #[test]
    fn the_generator_is_deterministic_and_the_seed_matters() {
        assert_eq!(Rng::new(7).next_u64(), Rng::new(7).next_u64());
        // SplitMix64's published first output for seed 0 (so the sequence is the same everywhere).
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let t = tool(schema());
        assert_eq!(cases(&t, 1, 16), cases(&t, 1, 16));
        assert_ne!(cases(&t, 1, 16), cases(&t, 2, 16));
    }

    #[test]
    fn every_case_is_what_the_validator_says_and_both_kinds_are_there() {
        let t = tool(schema());
        let all = cases(&t, 1, 1000);
        assert_eq!(all[0].name, "base");
        // Each case's label against the schema read by hand, not by the validator `cases` uses.
        for c in &all {
            assert_eq!(by_hand(&c.arguments), c.valid, "{c:?}");
        }
        let names =
            |valid: bool| -> Vec<&str> { all.iter().filter(|c| c.valid == valid).map(|c| c.name.as_str()).collect() };
        for want in ["all members", "enum #1 /mode", "enum #2 /mode", "maxLength /text", "maximum /times", "true /loud"]
        {
            assert!(names(true).contains(&want), "{want}: {:?}", names(true));
        }
        for want in [
            "missing /text",
            "wrong type /times",
            "below minimum /times",
            "above maximum /times",
            "below minLength /text",
            "above maxLength /text",
            "above maxItems /tags",
            "not in enum /mode",
            "extra member",
        ] {
            assert!(names(false).contains(&want), "{want}: {:?}", names(false));
        }
        // No duplicates.
        for (i, c) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|d| d.arguments != c.arguments), "{c:?}");
        }
    }

    #[test]
    fn the_cap_keeps_the_base_and_alternates_kinds() {
        let t = tool(schema());
        let some = cases(&t, 3, 5);
        assert_eq!(some.len(), 5);
        assert_eq!(some[0].name, "base");
        assert_eq!(some.iter().map(|c| c.valid).collect::<Vec<_>>(), [true, true, false, true, false]);
        assert!(cases(&t, 3, 0).is_empty());
        // No valid base, no cases: the probe reports the tool instead.
        assert!(cases(&tool(json!({"type": "object", "required": ["x"], "properties": {"x": {"not": {}}}})), 1, 16)
            .is_empty());
    }

    #[test]
    fn smaller_variants_drop_cut_and_move_toward_the_bound() {
        let s = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 2}}});
        let got = smaller(&s, &json!({"a": "abcd", "n": 10, "l": [1, 2]}));
        assert!(got.contains(&json!({"n": 10, "l": [1, 2]})));
        assert!(got.contains(&json!({"a": "ab", "n": 10, "l": [1, 2]})));
        assert!(got.contains(&json!({"a": "abcd", "n": 6, "l": [1, 2]})));
        assert!(got.contains(&json!({"a": "abcd", "n": 10, "l": [1]})));
        // At the bound, and nothing left to cut: only the drops.
        assert_eq!(smaller(&s, &json!({"n": 2})), [json!({})]);
        assert!(smaller(&s, &json!("not an object")).is_empty());
    }
}
