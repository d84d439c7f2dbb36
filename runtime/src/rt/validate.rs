//! Validation runtime used by the generated validators: JSON pointers built lazily, the error
//! type, per-call options, and the keyword checks shared by every definition; unions (`anyOf`,
//! type lists) in the `unions` submodule, re-exported here.

use std::fmt;

use crate::json::{JsonView, Kind, Map, Value};
use crate::rules::id;

mod unions;
pub use unions::{candidate_arms, check_union, select_arm, ArmDesc, ArmFilter, ArmFn, UnionDesc};

/// What to do with object keys the schema does not declare (on objects that are open only
/// implicitly; maps, `_meta` objects and `additionalProperties` schemas always accept keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Reject undeclared keys (keyword `additionalProperties`, rule `POLICY-STRICT`).
    Strict,
    /// Accept and drop them.
    Lenient,
    /// Accept, keep, and re-emit them. The default.
    #[default]
    Lossless,
}

impl Policy {
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Strict => "strict",
            Policy::Lenient => "lenient",
            Policy::Lossless => "lossless",
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = UnknownPolicy;
    fn from_str(s: &str) -> Result<Self, UnknownPolicy> {
        match s {
            "strict" => Ok(Policy::Strict),
            "lenient" => Ok(Policy::Lenient),
            "lossless" => Ok(Policy::Lossless),
            other => Err(UnknownPolicy { name: other.to_owned() }),
        }
    }
}

/// A policy name that is none of `strict`, `lenient`, `lossless` ([`Policy`]'s `FromStr`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownPolicy {
    /// The name given.
    pub name: String,
}

impl UnknownPolicy {
    /// Stable snake_case kind: `unknown_policy`.
    pub fn kind(&self) -> &'static str {
        "unknown_policy"
    }
}

impl fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown policy `{}` (expected strict, lenient or lossless)", self.name)
    }
}

impl std::error::Error for UnknownPolicy {}

/// Per-call options for validation and decoding.
///
/// `#[non_exhaustive]`: start from [`Options::new`] (or `Default`) and set what differs with
/// the builders ([`Options::policy`], [`Options::strict_formats`], …).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Options {
    /// Unknown-key policy.
    pub policy: Policy,
    /// Check `format` (`uri`, `uri-template`, `byte`) as assertions instead of annotations.
    pub strict_formats: bool,
    /// Client-side leniency when reading results (on in `decode_result`): a result without
    /// `resultType` reads as `complete` (RESULT-2), and absent `ttlMs`/`cacheScope` or a
    /// negative `ttlMs` are tolerated instead of failing the schema (CACHE-3, AMB-16).
    pub client_leniency: bool,
    /// RESULT-6: unions of `InputRequiredResult` and a method's result are discriminated by
    /// `resultType` alone (decoding does this; plain schema validation uses `anyOf` semantics).
    pub discriminate_results: bool,
}

/// One reason an instance does not conform: the one error entry every mcpgen error is made of
/// (see [`CoreError::errors`](crate::CoreError::errors)), and, through [`ValidationError::to_json`],
/// the one JSON form every surface prints.
///
/// `#[non_exhaustive]`: build one with [`ValidationError::new`] and the `with_*` methods.
///
/// ```
/// use mcpgen_runtime::ValidationError;
///
/// let e = ValidationError::new("/method", "enum", "unknown method `tools/calll`").with_rule("MSG-9");
/// assert_eq!(e.to_string(), "/method: unknown method `tools/calll` [MSG-9; enum]");
/// assert_eq!(
///     mcpgen_runtime::ToJson::to_json_string(&e.to_json()),
///     r#"{"pointer":"/method","schemaPath":"","keyword":"enum","rule":"MSG-9","message":"unknown method `tools/calll`"}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidationError {
    /// JSON pointer (RFC 6901) into the instance; `""` is the root.
    pub pointer: String,
    /// Location of the failing keyword in the schema (`#/$defs/Tool/properties/name/type`);
    /// empty when a rule or the parser, not the schema, fails.
    pub schema_path: String,
    /// The JSON Schema keyword that failed (`type`, `required`, `const`, `anyOf`, …), the keyword
    /// that would express a protocol rule (`enum` for an unknown method, `propertyNames` for a
    /// `_meta` key), or `parse` for text that is not JSON.
    pub keyword: &'static str,
    /// Protocol rule id when a rule rather than the schema fails (`META-1`, `POLICY-STRICT`, …;
    /// the rules catalogue, `docs/rules.md`, says what each means).
    pub rule: Option<&'static str>,
    /// A sentence a person can act on: what was expected and what was found.
    pub message: String,
    /// For unions: why each candidate arm failed, closest arm first.
    pub arms: Vec<ArmFailure>,
}

impl ValidationError {
    /// An error at `pointer` from `keyword`, with no rule, schema path or arms.
    pub fn new(pointer: impl Into<String>, keyword: &'static str, message: impl Into<String>) -> ValidationError {
        ValidationError {
            pointer: pointer.into(),
            schema_path: String::new(),
            keyword,
            rule: None,
            message: message.into(),
            arms: Vec::new(),
        }
    }

    /// The same error, raised by protocol rule `rule` (an id of `rules::id`).
    pub fn with_rule(mut self, rule: impl Into<Option<&'static str>>) -> ValidationError {
        self.rule = rule.into();
        self
    }

    /// The same error, at `schema_path` in the schema.
    pub fn with_schema_path(mut self, schema_path: impl Into<String>) -> ValidationError {
        self.schema_path = schema_path.into();
        self
    }

    /// The same error, with why each union arm failed.
    pub fn with_arms(mut self, arms: Vec<ArmFailure>) -> ValidationError {
        self.arms = arms;
        self
    }

    /// The one JSON form of an error, printed by every surface (`mcpgen validate --format json`,
    /// `mcpgen decode --format json`, …): `{"pointer", "schemaPath", "keyword", "rule", "message"}`
    /// (`rule` `null` when none), plus `"arms": [{"arm", "errors": [...]}]` for a union.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.push("pointer", Value::String(self.pointer.clone()));
        m.push("schemaPath", Value::String(self.schema_path.clone()));
        m.push("keyword", Value::String(self.keyword.to_owned()));
        m.push("rule", self.rule.map_or(Value::Null, |r| Value::String(r.to_owned())));
        m.push("message", Value::String(self.message.clone()));
        if !self.arms.is_empty() {
            let arms = self.arms.iter().map(|a| {
                let mut am = Map::new();
                am.push("arm", Value::String(a.arm.to_owned()));
                am.push("errors", Value::Array(a.errors.iter().map(ValidationError::to_json).collect()));
                Value::Object(am)
            });
            m.push("arms", Value::Array(arms.collect()));
        }
        Value::Object(m)
    }
}

/// Why one arm of a union rejected the instance.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArmFailure {
    /// The arm's definition (or variant) name.
    pub arm: &'static str,
    pub errors: Vec<ValidationError>,
}

impl ArmFailure {
    pub fn new(arm: &'static str, errors: Vec<ValidationError>) -> ArmFailure {
        ArmFailure { arm, errors }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "(root)" } else { self.pointer.as_str() };
        write!(f, "{at}: {}", self.message)?;
        // `[RULE; keyword at #/schema/path]`, each part only when there is one (a rule-only
        // finding has neither keyword nor schema path).
        let mut tag = self.rule.map(str::to_owned).unwrap_or_default();
        if !self.keyword.is_empty() {
            tag += &format!("{}{}", if tag.is_empty() { "" } else { "; " }, self.keyword);
            if !self.schema_path.is_empty() {
                tag += &format!(" at {}", self.schema_path);
            }
        }
        if !tag.is_empty() {
            write!(f, " [{tag}]")?;
        }
        for arm in &self.arms {
            for e in &arm.errors {
                write!(f, "\n    as {}: {}", arm.arm, e.to_string().replace('\n', "\n    "))?;
            }
        }
        Ok(())
    }
}

/// A location in the instance, built on the stack and only rendered when an error is reported.
#[derive(Clone, Copy, Debug)]
pub enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl<'p> Path<'p> {
    #[inline]
    pub fn key(&'p self, k: &'p str) -> Path<'p> {
        Path::Key(self, k)
    }
    #[inline]
    pub fn index(&'p self, i: usize) -> Path<'p> {
        Path::Index(self, i)
    }
    /// RFC 6901 rendering (`/params/arguments/a~1b`).
    pub fn pointer(&self) -> String {
        fn render(p: &Path<'_>, out: &mut String) {
            match p {
                Path::Root => {}
                Path::Key(parent, k) => {
                    render(parent, out);
                    crate::json::pointer::push(out, k);
                }
                Path::Index(parent, i) => {
                    render(parent, out);
                    out.push('/');
                    out.push_str(&i.to_string());
                }
            }
        }
        let mut out = String::new();
        render(self, &mut out);
        out
    }
}

/// Validation state: options plus the errors found so far.
#[derive(Debug)]
pub struct Cx {
    pub opts: Options,
    errors: Vec<ValidationError>,
    collect: bool,
}

impl Cx {
    /// A context that records every error with its details.
    pub fn collecting(opts: Options) -> Cx {
        Cx { opts, errors: Vec::new(), collect: true }
    }
    /// A context that stops at the first error and records nothing (fast `is_valid`).
    pub fn fail_fast(opts: Options) -> Cx {
        Cx { opts, errors: Vec::new(), collect: false }
    }
    /// True when validators should return at the first failure.
    #[inline]
    pub fn stop_early(&self) -> bool {
        !self.collect
    }
    #[inline]
    pub fn is_collecting(&self) -> bool {
        self.collect
    }
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }
    pub fn into_errors(self) -> Vec<ValidationError> {
        self.errors
    }
    /// Records an error; the message closure runs only when collecting.
    #[inline]
    pub fn fail(
        &mut self,
        p: &Path<'_>,
        schema_path: &'static str,
        keyword: &'static str,
        message: impl FnOnce() -> String,
    ) {
        if self.collect {
            self.errors.push(ValidationError {
                pointer: p.pointer(),
                schema_path: schema_path.to_owned(),
                keyword,
                rule: None,
                message: message(),
                arms: Vec::new(),
            });
        }
    }
    /// Records an error that a protocol rule (not the schema) raises.
    pub fn fail_rule(
        &mut self,
        p: &Path<'_>,
        schema_path: &'static str,
        keyword: &'static str,
        rule: &'static str,
        message: impl FnOnce() -> String,
    ) {
        if self.collect {
            self.errors.push(ValidationError {
                pointer: p.pointer(),
                schema_path: schema_path.to_owned(),
                keyword,
                rule: Some(rule),
                message: message(),
                arms: Vec::new(),
            });
        }
    }
    pub fn push(&mut self, e: ValidationError) {
        if self.collect {
            self.errors.push(e);
        }
    }
    #[inline]
    pub fn mark(&self) -> usize {
        self.errors.len()
    }
    pub fn rollback(&mut self, mark: usize) {
        self.errors.truncate(mark);
    }
    pub fn take_since(&mut self, mark: usize) -> Vec<ValidationError> {
        self.errors.split_off(mark)
    }
}

/// JSON Schema `type` names (`integer` is distinct from `number`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JType {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
}

impl JType {
    pub fn name(self) -> &'static str {
        match self {
            JType::Null => "null",
            JType::Boolean => "boolean",
            JType::Integer => "integer",
            JType::Number => "number",
            JType::String => "string",
            JType::Array => "array",
            JType::Object => "object",
        }
    }
    #[inline]
    pub fn accepts<'v, V: JsonView<'v>>(self, v: &V) -> bool {
        match (self, v.kind()) {
            (JType::Null, Kind::Null)
            | (JType::Boolean, Kind::Bool)
            | (JType::Number, Kind::Number)
            | (JType::String, Kind::String)
            | (JType::Array, Kind::Array)
            | (JType::Object, Kind::Object) => true,
            (JType::Integer, Kind::Number) => v.is_integer(),
            _ => false,
        }
    }
}

fn list_names(types: &[JType]) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
    match names.len() {
        1 => names[0].to_owned(),
        _ => format!("one of {}", names.join(", ")),
    }
}

/// `type` with one type.
#[inline]
pub fn check_type<'v, V: JsonView<'v>>(v: &V, t: JType, p: &Path<'_>, sp: &'static str, cx: &mut Cx) -> bool {
    if t.accepts(v) {
        return true;
    }
    cx.fail(p, sp, "type", || format!("expected {}, found {}", t.name(), v.describe()));
    false
}

/// `type` with a list of types.
pub fn check_types<'v, V: JsonView<'v>>(v: &V, ts: &[JType], p: &Path<'_>, sp: &'static str, cx: &mut Cx) -> bool {
    if ts.iter().any(|t| t.accepts(v)) {
        return true;
    }
    cx.fail(p, sp, "type", || format!("expected {}, found {}", list_names(ts), v.describe()));
    false
}

/// `const` with a string value.
#[inline]
pub fn check_const_str<'v, V: JsonView<'v>>(
    v: &V,
    c: &'static str,
    p: &Path<'_>,
    sp: &'static str,
    cx: &mut Cx,
) -> bool {
    if v.str_eq(c) {
        return true;
    }
    cx.fail(p, sp, "const", || format!("expected the constant {c:?}, found {}", v.describe()));
    false
}

/// `const` with an integer value (error codes).
pub fn check_const_int<'v, V: JsonView<'v>>(v: &V, c: i64, p: &Path<'_>, sp: &'static str, cx: &mut Cx) -> bool {
    if v.kind() == Kind::Number && v.as_f64() == Some(c as f64) {
        return true;
    }
    cx.fail(p, sp, "const", || format!("expected the constant {c}, found {}", v.describe()));
    false
}

/// `enum` of strings.
pub fn check_enum_str<'v, V: JsonView<'v>>(
    v: &V,
    values: &'static [&'static str],
    p: &Path<'_>,
    sp: &'static str,
    cx: &mut Cx,
) -> bool {
    if values.iter().any(|c| v.str_eq(c)) {
        return true;
    }
    cx.fail(p, sp, "enum", || format!("expected one of {}, found {}", quote_list(values), v.describe()));
    false
}

pub(crate) fn quote_list(values: &[&str]) -> String {
    values.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
}

/// Keys a client tolerates missing from results ([`Options::client_leniency`]).
pub const CLIENT_RELAXED_KEYS: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// `required`: one error per missing key, reported at the object. The keys in
/// [`CLIENT_RELAXED_KEYS`] are excused when [`Options::client_leniency`] is on.
pub fn check_required<'v, V: JsonView<'v>>(
    v: &V,
    keys: &'static [&'static str],
    p: &Path<'_>,
    sp: &'static str,
    cx: &mut Cx,
) -> bool {
    let mut ok = true;
    for &k in keys {
        if v.get(k).is_none() {
            if cx.opts.client_leniency && CLIENT_RELAXED_KEYS.contains(&k) {
                continue;
            }
            ok = false;
            cx.fail(p, sp, "required", || format!("missing required property `{k}`"));
            if cx.stop_early() {
                return false;
            }
        }
    }
    ok
}

/// `minimum`.
pub fn check_minimum<'v, V: JsonView<'v>>(v: &V, min: f64, p: &Path<'_>, sp: &'static str, cx: &mut Cx) -> bool {
    match v.as_f64() {
        Some(x) if x < min => {
            cx.fail(p, sp, "minimum", || format!("expected a number ≥ {min}, found {}", v.describe()));
            false
        }
        _ => true,
    }
}

/// `maximum`.
pub fn check_maximum<'v, V: JsonView<'v>>(v: &V, max: f64, p: &Path<'_>, sp: &'static str, cx: &mut Cx) -> bool {
    match v.as_f64() {
        Some(x) if x > max => {
            cx.fail(p, sp, "maximum", || format!("expected a number ≤ {max}, found {}", v.describe()));
            false
        }
        _ => true,
    }
}

/// `maxItems`.
pub fn check_max_items<'v, V: JsonView<'v>>(v: &V, max: usize, p: &Path<'_>, sp: &'static str, cx: &mut Cx) -> bool {
    if v.kind() == Kind::Array && v.len() > max {
        cx.fail(p, sp, "maxItems", || format!("expected at most {max} items, found {}", v.len()));
        return false;
    }
    true
}

/// `format` assertions, applied only with [`Options::strict_formats`] (annotations otherwise,
/// as JSON Schema 2020-12 specifies by default).
pub fn check_format<'v, V: JsonView<'v>>(
    v: &V,
    format: &'static str,
    p: &Path<'_>,
    sp: &'static str,
    cx: &mut Cx,
) -> bool {
    if !cx.opts.strict_formats {
        return true;
    }
    let Some(s) = v.as_str() else { return true };
    let ok = match format {
        "uri" => crate::formats::is_uri(&s),
        "uri-template" => crate::formats::is_uri_template(&s),
        "byte" => crate::formats::is_base64(&s),
        _ => true,
    };
    if !ok {
        cx.fail(p, sp, "format", || format!("expected a valid `{format}`, found {}", v.describe()));
    }
    ok
}

/// Strict policy: every key must be declared.
#[inline]
pub fn reject_unknown_key(key: &str, p: &Path<'_>, sp: &'static str, cx: &mut Cx) -> bool {
    if cx.opts.policy != Policy::Strict {
        return true;
    }
    cx.fail_rule(p, sp, "additionalProperties", id::POLICY_STRICT, || {
        format!("unknown property `{key}` (rejected by the strict unknown-key policy)")
    });
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_escapes() {
        let root = Path::Root;
        let a = root.key("a/b");
        let b = a.index(3);
        let c = b.key("m~n");
        assert_eq!(c.pointer(), "/a~1b/3/m~0n");
        assert_eq!(Path::Root.pointer(), "");
    }
}
