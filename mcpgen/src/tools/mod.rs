//! Tool `inputSchema` / `outputSchema`: checking the schemas a server declares and validating
//! `tools/call` arguments and `structuredContent` against them (JSCHEMA-1..10, TOOL-4, TOOL-5).
//!
//! Tool schemas are arbitrary JSON Schemas written by strangers. This module compiles them with
//! the [`jsonschema`] crate, configured so that it never touches the network, and adds around it
//! what a hostile schema needs:
//!
//! - **dialects** (JSCHEMA-1..3, AMB-21): no `$schema` means 2020-12; draft-07, 2019-09 and
//!   2020-12 are accepted, spelled with `http` or `https` and with or without a trailing `#`;
//!   anything else is [`SchemaErrorKind::UnsupportedDialect`] naming the URI;
//! - **meta-schema check** (JSCHEMA-4) against the meta-schemas bundled in `jsonschema`;
//! - **references** (JSCHEMA-5..7): same-document references resolve; any other reference is
//!   refused with its URI ([`SchemaErrorKind::NetworkRef`]) and never fetched, unless the
//!   opt-in [`FetchPolicy`] is given;
//! - **bounded cost** (JSCHEMA-8): a static pass over every subschema enforces [`Limits`]
//!   (depth, subschema count, `enum` size, pattern length and shape), rejects `$ref` cycles that
//!   never move into the instance, and bounds the subschema evaluations one instance location can
//!   cost by unfolding the reference graph; at validation time the regex backtrack limit and the
//!   instance depth are bounded too. Each limit has its own error kind.
//!
//! ```
//! use serde_json::json;
//! let tool = json!({
//!     "name": "get_weather",
//!     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
//! });
//! assert!(mcpgen::tools::validate_tool_arguments(&tool, &json!({"city": "Paris"})).is_ok());
//! let err = mcpgen::tools::validate_tool_arguments(&tool, &json!({"city": 42})).unwrap_err();
//! assert_eq!(err.errors()[0].pointer, "/city");
//! ```

mod analyze;
#[cfg(feature = "schemars")]
mod from_types;
mod pattern;
mod resolve;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use serde_json::Value;

use crate::json::{JsonView, Kind, ParseError, ParseOptions, Tape};
use crate::validate::ValidationError;

#[cfg(feature = "schemars")]
pub use from_types::{schema_for, tool_for, ToolBuilder};
pub use resolve::{
    forbidden_address, FetchError, FetchPolicy, FetchRequest, HostResolver, SchemaFetcher, SystemResolver,
};

/// How deep a tool (or a schema given to [`compile_schema`]) may nest arrays and objects: the
/// JSON parser's limit, so that every tool a surface can read from text is one it can check.
/// A deeper one is refused as [`SchemaErrorKind::TooDeep`] (JSCHEMA-8) at the first location
/// past the limit, whether it came as text or as a value.
pub const MAX_JSON_DEPTH: usize = crate::json::tape::DEFAULT_MAX_DEPTH;

/// A JSON Schema dialect mcpgen validates tool schemas with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    Draft07,
    Draft201909,
    /// The default when a schema has no `$schema` (JSCHEMA-1).
    Draft202012,
}

impl Dialect {
    /// Recognizes a `$schema` URI: `http` and `https` spellings, with or without a trailing
    /// empty fragment `#` (AMB-21).
    pub fn from_uri(uri: &str) -> Option<Dialect> {
        let trimmed = uri.strip_suffix('#').unwrap_or(uri);
        let rest = trimmed.strip_prefix("https://").or_else(|| trimmed.strip_prefix("http://"))?;
        match rest {
            "json-schema.org/draft-07/schema" => Some(Dialect::Draft07),
            "json-schema.org/draft/2019-09/schema" => Some(Dialect::Draft201909),
            "json-schema.org/draft/2020-12/schema" => Some(Dialect::Draft202012),
            _ => None,
        }
    }

    /// The canonical meta-schema URI.
    pub fn uri(self) -> &'static str {
        match self {
            Dialect::Draft07 => "http://json-schema.org/draft-07/schema#",
            Dialect::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            Dialect::Draft202012 => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    /// Short name: `draft-07`, `2019-09`, `2020-12`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Draft07 => "draft-07",
            Dialect::Draft201909 => "2019-09",
            Dialect::Draft202012 => "2020-12",
        }
    }

    fn draft(self) -> jsonschema::Draft {
        match self {
            Dialect::Draft07 => jsonschema::Draft::Draft7,
            Dialect::Draft201909 => jsonschema::Draft::Draft201909,
            Dialect::Draft202012 => jsonschema::Draft::Draft202012,
        }
    }

    /// The dialect a schema declares; `Err` names an unsupported `$schema`.
    pub fn of(schema: &Value) -> Result<Dialect, SchemaError> {
        match schema.get("$schema") {
            None => Ok(Dialect::Draft202012),
            Some(Value::String(uri)) => Dialect::from_uri(uri).ok_or_else(|| {
                SchemaError::new(
                    SchemaErrorKind::UnsupportedDialect,
                    "/$schema",
                    format!(
                        "unsupported dialect {uri} (supported: draft-07, 2019-09, 2020-12; no `$schema` means 2020-12)"
                    ),
                )
                .with_uri(uri)
            }),
            Some(other) => Err(SchemaError::new(
                SchemaErrorKind::InvalidSchema,
                "/$schema",
                format!("`$schema` must be a URI string, found {other}"),
            )),
        }
    }
}

/// What is wrong with a tool or its schema. Stable names ([`SchemaErrorKind::as_str`]) are
/// what the vectors, the CLI and the C and Python bindings report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// The tool object itself is malformed (no `name`, not an object…).
    InvalidTool,
    /// `inputSchema` is not an object with root `"type": "object"` (JSCHEMA-9), or a schema is
    /// neither an object nor a boolean.
    RootNotObject,
    /// `$schema` names a dialect mcpgen does not validate (JSCHEMA-3).
    UnsupportedDialect,
    /// The schema is not valid under its dialect's meta-schema (JSCHEMA-4), or `jsonschema`
    /// refused to compile it.
    InvalidSchema,
    /// A `$ref` to a non-local URI, which is never fetched by default (JSCHEMA-5).
    NetworkRef,
    /// The opt-in resolver refused a URI (host not allowed, private address, too large,
    /// fetch failed) (JSCHEMA-6).
    RefRefused,
    /// A `$ref` that resolves to nothing (JSCHEMA-7).
    UnresolvedRef,
    /// Subschemas nested deeper than [`Limits::max_depth`] (JSCHEMA-8).
    TooDeep,
    /// More subschemas than [`Limits::max_subschemas`] (JSCHEMA-8).
    TooManySubschemas,
    /// An `enum` longer than [`Limits::max_enum_values`] (JSCHEMA-8).
    EnumTooLarge,
    /// A pattern longer than [`Limits::max_pattern_length`] (JSCHEMA-8).
    PatternTooLong,
    /// A pattern that can backtrack exponentially, or compiles too big (JSCHEMA-8).
    CatastrophicPattern,
    /// A `$ref` cycle that never moves into the instance (JSCHEMA-8).
    RefCycle,
    /// One instance location could cost more than [`Limits::max_steps`] subschema evaluations
    /// (JSCHEMA-8).
    StepBudgetExceeded,
}

impl SchemaErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaErrorKind::InvalidTool => "invalid_tool",
            SchemaErrorKind::RootNotObject => "root_not_object",
            SchemaErrorKind::UnsupportedDialect => "unsupported_dialect",
            SchemaErrorKind::InvalidSchema => "invalid_schema",
            SchemaErrorKind::NetworkRef => "network_ref",
            SchemaErrorKind::RefRefused => "ref_refused",
            SchemaErrorKind::UnresolvedRef => "unresolved_ref",
            SchemaErrorKind::TooDeep => "too_deep",
            SchemaErrorKind::TooManySubschemas => "too_many_subschemas",
            SchemaErrorKind::EnumTooLarge => "enum_too_large",
            SchemaErrorKind::PatternTooLong => "pattern_too_long",
            SchemaErrorKind::CatastrophicPattern => "catastrophic_pattern",
            SchemaErrorKind::RefCycle => "ref_cycle",
            SchemaErrorKind::StepBudgetExceeded => "step_budget_exceeded",
        }
    }

    /// The protocol rule the check comes from.
    pub fn rule(self) -> &'static str {
        match self {
            SchemaErrorKind::InvalidTool | SchemaErrorKind::RootNotObject => "JSCHEMA-9",
            SchemaErrorKind::UnsupportedDialect => "JSCHEMA-3",
            SchemaErrorKind::InvalidSchema => "JSCHEMA-4",
            SchemaErrorKind::NetworkRef => "JSCHEMA-5",
            SchemaErrorKind::RefRefused => "JSCHEMA-6",
            SchemaErrorKind::UnresolvedRef => "JSCHEMA-7",
            _ => "JSCHEMA-8",
        }
    }

    /// Every kind, for bindings and documentation.
    pub const ALL: &'static [SchemaErrorKind] = &[
        SchemaErrorKind::InvalidTool,
        SchemaErrorKind::RootNotObject,
        SchemaErrorKind::UnsupportedDialect,
        SchemaErrorKind::InvalidSchema,
        SchemaErrorKind::NetworkRef,
        SchemaErrorKind::RefRefused,
        SchemaErrorKind::UnresolvedRef,
        SchemaErrorKind::TooDeep,
        SchemaErrorKind::TooManySubschemas,
        SchemaErrorKind::EnumTooLarge,
        SchemaErrorKind::PatternTooLong,
        SchemaErrorKind::CatastrophicPattern,
        SchemaErrorKind::RefCycle,
        SchemaErrorKind::StepBudgetExceeded,
    ];
}

impl fmt::Display for SchemaErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem with a tool's schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    pub kind: SchemaErrorKind,
    /// JSON pointer into the tool object (`/inputSchema/properties/q/pattern`), or into the
    /// schema itself for [`compile_schema`].
    pub pointer: String,
    /// The URI concerned: the unsupported dialect or the refused reference.
    pub uri: Option<String>,
    pub message: String,
}

impl SchemaError {
    pub(crate) fn new(kind: SchemaErrorKind, pointer: &str, message: String) -> SchemaError {
        SchemaError { kind, pointer: pointer.to_owned(), uri: None, message }
    }

    pub(crate) fn with_uri(mut self, uri: &str) -> SchemaError {
        self.uri = Some(uri.to_owned());
        self
    }

    pub fn rule(&self) -> &'static str {
        self.kind.rule()
    }

    fn prefixed(mut self, prefix: &str) -> SchemaError {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "(root)" } else { self.pointer.as_str() };
        write!(f, "{at}: {} [{}; {}]", self.message, self.kind, self.kind.rule())
    }
}

impl std::error::Error for SchemaError {}

/// Cost limits (JSCHEMA-8). The defaults admit every real-world tool schema we know of and
/// reject the hostile shapes in `vectors/tools/` at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum nesting depth of subschemas (default 64).
    pub max_depth: usize,
    /// Maximum number of subschemas, booleans included (default 10 000).
    pub max_subschemas: usize,
    /// Maximum length of one `enum` (default 10 000).
    pub max_enum_values: usize,
    /// Maximum length of one pattern, in characters (default 1 000).
    pub max_pattern_length: usize,
    /// Maximum compiled size of a linear-time pattern, in bytes (default 1 MiB).
    pub regex_size_limit: usize,
    /// Backtracking steps a look-around / back-reference pattern may take per match (default
    /// 100 000); reaching it fails the validation with keyword `pattern`, rule JSCHEMA-8.
    pub backtrack_limit: usize,
    /// Maximum subschema evaluations at one instance location, references unfolded (default
    /// 1 000 000).
    pub max_steps: u64,
    /// Maximum nesting depth of a validated instance (default 128, the parser's own limit).
    pub max_instance_depth: usize,
    /// Validation errors collected per call at most (default 100).
    pub max_errors: usize,
}

impl Limits {
    /// The limits' names, in declaration order: what the vectors, the C enum
    /// `mcpgen_tool_limit` (1-based, same order) and Python's `limits=` dict use.
    pub const NAMES: [&'static str; 9] = [
        "max_depth",
        "max_subschemas",
        "max_enum_values",
        "max_pattern_length",
        "regex_size_limit",
        "backtrack_limit",
        "max_steps",
        "max_instance_depth",
        "max_errors",
    ];

    /// The value of the limit called `name` ([`Limits::NAMES`]), `None` for another name.
    pub fn get(&self, name: &str) -> Option<u64> {
        let size = |n: usize| n as u64;
        Some(match name {
            "max_depth" => size(self.max_depth),
            "max_subschemas" => size(self.max_subschemas),
            "max_enum_values" => size(self.max_enum_values),
            "max_pattern_length" => size(self.max_pattern_length),
            "regex_size_limit" => size(self.regex_size_limit),
            "backtrack_limit" => size(self.backtrack_limit),
            "max_steps" => self.max_steps,
            "max_instance_depth" => size(self.max_instance_depth),
            "max_errors" => size(self.max_errors),
            _ => return None,
        })
    }

    /// Sets the limit called `name`; `Err` says why: an unknown name, or a value too large for
    /// this platform's `usize`.
    pub fn set(&mut self, name: &str, value: u64) -> Result<(), LimitError> {
        let slot = match name {
            "max_steps" => {
                self.max_steps = value;
                return Ok(());
            }
            "max_depth" => &mut self.max_depth,
            "max_subschemas" => &mut self.max_subschemas,
            "max_enum_values" => &mut self.max_enum_values,
            "max_pattern_length" => &mut self.max_pattern_length,
            "regex_size_limit" => &mut self.regex_size_limit,
            "backtrack_limit" => &mut self.backtrack_limit,
            "max_instance_depth" => &mut self.max_instance_depth,
            "max_errors" => &mut self.max_errors,
            other => return Err(LimitError::UnknownName { name: other.to_owned() }),
        };
        let name = Limits::NAMES.iter().copied().find(|n| *n == name).unwrap_or("?");
        *slot = usize::try_from(value).map_err(|_| LimitError::TooLarge { name, value })?;
        Ok(())
    }
}

/// Why [`Limits::set`] refused a limit. No rule: the caller asked for something that does not
/// exist. Its [`fmt::Display`] is the one message every surface shows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LimitError {
    /// No limit has this name ([`Limits::NAMES`] lists them).
    UnknownName { name: String },
    /// The value does not fit this platform's `usize`.
    TooLarge { name: &'static str, value: u64 },
}

impl LimitError {
    /// Stable snake_case name of the variant: `unknown_limit` or `limit_too_large`.
    pub fn kind(&self) -> &'static str {
        match self {
            LimitError::UnknownName { .. } => "unknown_limit",
            LimitError::TooLarge { .. } => "limit_too_large",
        }
    }

    /// The limit name given.
    pub fn name(&self) -> &str {
        match self {
            LimitError::UnknownName { name } => name,
            LimitError::TooLarge { name, .. } => name,
        }
    }
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::UnknownName { name } => {
                write!(f, "unknown limit `{name}` (known: {})", Limits::NAMES.join(", "))
            }
            LimitError::TooLarge { name, value } => {
                write!(f, "limit `{name}` is too large for this platform: {value}")
            }
        }
    }
}

impl std::error::Error for LimitError {}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 64,
            max_subschemas: 10_000,
            max_enum_values: 10_000,
            max_pattern_length: 1_000,
            regex_size_limit: 1 << 20,
            backtrack_limit: 100_000,
            max_steps: 1_000_000,
            max_instance_depth: 128,
            max_errors: 100,
        }
    }
}

/// How tool schemas are compiled.
#[derive(Clone, Default)]
pub struct SchemaOptions {
    pub limits: Limits,
    /// Check `format` as an assertion (off by default: an annotation in 2020-12).
    pub validate_formats: bool,
    /// Opt-in fetching of non-local `$ref`s (JSCHEMA-6). `None` (the default): every non-local
    /// reference is refused without any I/O.
    pub fetch: Option<FetchPolicy>,
}

impl fmt::Debug for SchemaOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaOptions")
            .field("limits", &self.limits)
            .field("validate_formats", &self.validate_formats)
            .field("fetch", &self.fetch.as_ref().map(|_| "FetchPolicy"))
            .finish()
    }
}

/// Which of a tool's schemas: the input one must have root `type: "object"` (JSCHEMA-9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaRole {
    Input,
    Output,
}

impl SchemaRole {
    fn member(self) -> &'static str {
        match self {
            SchemaRole::Input => "inputSchema",
            SchemaRole::Output => "outputSchema",
        }
    }
}

/// A checked, compiled schema, ready to validate many instances (thread-safe).
pub struct CompiledSchema {
    dialect: Dialect,
    role: SchemaRole,
    limits: Limits,
    validator: jsonschema::Validator,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema").field("dialect", &self.dialect).field("role", &self.role).finish()
    }
}

/// Checks a schema (dialect, limits, meta-schema, references) and compiles it. Error pointers
/// are relative to the schema.
pub fn compile_schema(
    schema: &Value,
    role: SchemaRole,
    options: &SchemaOptions,
) -> Result<CompiledSchema, Vec<SchemaError>> {
    if let Some(e) = too_deep_error(schema) {
        return Err(vec![e]);
    }
    match (role, schema) {
        (SchemaRole::Input, Value::Object(map)) => {
            if map.get("type") != Some(&Value::String("object".into())) {
                let found = map.get("type").map_or("no `type`".to_owned(), |t| format!("`type: {t}`"));
                return Err(vec![SchemaError::new(
                    SchemaErrorKind::RootNotObject,
                    "",
                    format!(
                        "inputSchema must have root `\"type\": \"object\"` (tool arguments are objects); found {found}"
                    ),
                )]);
            }
        }
        (SchemaRole::Output, Value::Object(_) | Value::Bool(_)) => {}
        (_, other) => {
            return Err(vec![SchemaError::new(
                SchemaErrorKind::RootNotObject,
                "",
                format!("{} must be a JSON Schema object, found {}", role.member(), kind_name(other)),
            )])
        }
    }
    let dialect = Dialect::of(schema).map_err(|e| vec![e])?;
    let errors = analyze::analyze(schema, dialect, &options.limits);
    if !errors.is_empty() {
        return Err(errors);
    }
    let meta = match dialect {
        Dialect::Draft07 => jsonschema::draft7::meta::validator(),
        Dialect::Draft201909 => jsonschema::draft201909::meta::validator(),
        Dialect::Draft202012 => jsonschema::draft202012::meta::validator(),
    };
    let meta_errors: Vec<SchemaError> = meta
        .iter_errors(schema)
        .take(options.limits.max_errors)
        .map(|e| {
            SchemaError::new(
                SchemaErrorKind::InvalidSchema,
                e.instance_path().as_str(),
                format!("not a valid {} schema: {}", dialect.as_str(), truncate(&e.to_string())),
            )
        })
        .collect();
    if !meta_errors.is_empty() {
        return Err(meta_errors);
    }
    let build = |retriever: resolve::Retriever| {
        jsonschema::options()
            .with_draft(dialect.draft())
            .with_retriever(retriever)
            .should_validate_formats(options.validate_formats)
            .with_pattern_options(
                jsonschema::PatternOptions::fancy_regex()
                    .backtrack_limit(options.limits.backtrack_limit)
                    .size_limit(options.limits.regex_size_limit),
            )
            .build(schema)
            .map_err(|e| build_error(schema, &e))
    };
    let retriever = resolve::Retriever::new(options.fetch.clone());
    let refusals = retriever.refusals();
    let error = match build(retriever) {
        Ok(validator) => return Ok(CompiledSchema { dialect, role, limits: options.limits, validator }),
        Err(e) => e,
    };
    let mut refused = std::mem::take(&mut *refusals.lock().unwrap_or_else(|p| p.into_inner()));
    if options.fetch.is_none() && !refused.is_empty() {
        // The build stopped at the first refusal `jsonschema` met, in hash order: without a fetch
        // policy every refusal is known without I/O, so collect them all with placeholders.
        let placeholders = resolve::Retriever::placeholders();
        let all = placeholders.refusals();
        let _ = build(placeholders);
        refused.append(&mut all.lock().unwrap_or_else(|p| p.into_inner()));
    }
    let errors = refusal_errors(schema, refused, options.limits.max_errors);
    Err(if errors.is_empty() { vec![error] } else { errors })
}

/// The refused references, one error each, in the order their `$ref`s appear in the schema
/// (so the report is the same on every run); a refused URI no `$ref` is found for comes last,
/// with an empty pointer.
fn refusal_errors(schema: &Value, refused: Vec<resolve::Refusal>, max_errors: usize) -> Vec<SchemaError> {
    let refs = ref_locations(schema);
    let mut located: Vec<(usize, resolve::Refusal)> = Vec::new();
    for r in refused {
        if !located.iter().any(|(_, seen)| seen.uri == r.uri) {
            let at = refs.iter().position(|(_, text)| ref_names(text, &r.uri)).unwrap_or(usize::MAX);
            located.push((at, r));
        }
    }
    located.sort_by(|(a, x), (b, y)| a.cmp(b).then_with(|| x.uri.cmp(&y.uri)));
    located
        .into_iter()
        .take(max_errors.max(1))
        .map(|(at, r)| {
            let pointer = refs.get(at).map_or("", |(p, _)| p.as_str());
            SchemaError::new(r.kind, pointer, r.message).with_uri(&r.uri)
        })
        .collect()
}

/// The pointer of the first array or object, in document order, nested inside `max` others
/// (`max` = 128: the 129th level); iterative, since the value may be hostile.
fn first_nested_deeper(v: &Value, max: usize) -> Option<String> {
    enum Children<'a> {
        Array(std::iter::Enumerate<std::slice::Iter<'a, Value>>),
        Object(serde_json::map::Iter<'a>),
    }
    enum Segment<'a> {
        Index(usize),
        Key(&'a str),
    }
    fn children(v: &Value) -> Option<Children<'_>> {
        match v {
            Value::Array(items) => Some(Children::Array(items.iter().enumerate())),
            Value::Object(map) => Some(Children::Object(map.iter())),
            _ => None,
        }
    }
    fn render(path: &[Segment<'_>]) -> String {
        let mut out = String::new();
        for s in path {
            match s {
                Segment::Index(i) => out.push_str(&format!("/{i}")),
                Segment::Key(k) => {
                    out.push('/');
                    out.push_str(&k.replace('~', "~0").replace('/', "~1"));
                }
            }
        }
        out
    }
    let root = children(v)?;
    if max == 0 {
        return Some(String::new());
    }
    // `stack[i]` iterates a container nested inside `i` others; `path[i]` is the segment of
    // `stack[i + 1]` in `stack[i]`.
    let mut stack = vec![root];
    let mut path: Vec<Segment<'_>> = Vec::new();
    while let Some(top) = stack.last_mut() {
        let next = match top {
            Children::Array(items) => items.next().map(|(i, x)| (Segment::Index(i), x)),
            Children::Object(entries) => entries.next().map(|(k, x)| (Segment::Key(k.as_str()), x)),
        };
        let Some((segment, child)) = next else {
            stack.pop();
            path.pop();
            continue;
        };
        if let Some(grandchildren) = children(child) {
            path.push(segment);
            if stack.len() >= max {
                return Some(render(&path));
            }
            stack.push(grandchildren);
        }
    }
    None
}

/// [`MAX_JSON_DEPTH`]: the `too_deep` error of a value nested deeper than the parser reads.
fn too_deep_error(v: &Value) -> Option<SchemaError> {
    first_nested_deeper(v, MAX_JSON_DEPTH).map(|pointer| {
        SchemaError::new(
            SchemaErrorKind::TooDeep,
            &pointer,
            format!("arrays and objects nested deeper than {MAX_JSON_DEPTH} levels (the JSON parser's limit)"),
        )
    })
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn truncate(s: &str) -> String {
    const MAX: usize = 400;
    if s.len() <= MAX {
        return s.to_owned();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Maps a `jsonschema` build failure to our kinds (refused references aside: see
/// [`refusal_errors`]).
fn build_error(schema: &Value, e: &jsonschema::ValidationError<'_>) -> SchemaError {
    use jsonschema::error::ValidationErrorKind as K;
    match e.kind() {
        K::Referencing(err) => {
            let text = err.to_string();
            let uri = match err {
                jsonschema::ReferencingError::Unretrievable { uri, .. } => Some(uri.clone()),
                _ => None,
            };
            let pointer = uri.as_deref().and_then(|u| ref_pointer(schema, u)).unwrap_or_default();
            let mut out = SchemaError::new(
                SchemaErrorKind::UnresolvedRef,
                &pointer,
                format!("unresolvable reference: {}", truncate(&text)),
            );
            if let Some(u) = uri {
                out = out.with_uri(&u);
            }
            out
        }
        _ => SchemaError::new(
            SchemaErrorKind::InvalidSchema,
            e.schema_path().as_str(),
            format!("cannot compile the schema: {}", truncate(&e.to_string())),
        ),
    }
}

/// Where in the schema a `$ref` to `uri` is written (best effort, for the error pointer).
fn ref_pointer(schema: &Value, uri: &str) -> Option<String> {
    ref_locations(schema).into_iter().find(|(_, r)| ref_names(r, uri)).map(|(at, _)| at)
}

/// Every `$ref` / `$dynamicRef` of the schema in document order: (pointer to the keyword, text).
fn ref_locations(schema: &Value) -> Vec<(String, String)> {
    fn walk(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(map) => {
                for key in ["$ref", "$dynamicRef"] {
                    if let Some(Value::String(r)) = map.get(key) {
                        out.push((format!("{at}/{key}"), r.clone()));
                    }
                }
                for (k, v) in map {
                    walk(v, &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(schema, "", &mut out);
    out
}

/// Whether the reference text `r` (as written) may be the one `jsonschema` resolved to `uri`.
fn ref_names(r: &str, uri: &str) -> bool {
    let r_base = r.split('#').next().unwrap_or(r);
    let u_base = uri.split('#').next().unwrap_or(uri);
    r == uri || (!r_base.is_empty() && (r_base == u_base || u_base.ends_with(r_base)))
}

/// Why an instance was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolCallError {
    /// The tool's own schema cannot be used; nothing was validated.
    Schema(ToolSchemaErrors),
    /// The instance does not conform: every error (up to [`Limits::max_errors`]), each with a
    /// JSON pointer into the instance, the keyword and rule `TOOL-5` (arguments) or `TOOL-4`
    /// (structured content).
    Invalid(Vec<ValidationError>),
    /// Validation stopped at a cost limit (rule JSCHEMA-8): the pattern backtrack limit or the
    /// instance depth.
    LimitExceeded(Vec<ValidationError>),
}

impl ToolCallError {
    /// `schema`, `invalid` or `limit_exceeded`.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolCallError::Schema(_) => "schema",
            ToolCallError::Invalid(_) => "invalid",
            ToolCallError::LimitExceeded(_) => "limit_exceeded",
        }
    }

    /// The instance errors (empty for [`ToolCallError::Schema`]).
    pub fn errors(&self) -> &[ValidationError] {
        match self {
            ToolCallError::Schema(_) => &[],
            ToolCallError::Invalid(e) | ToolCallError::LimitExceeded(e) => e,
        }
    }
}

impl fmt::Display for ToolCallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolCallError::Schema(e) => write!(f, "{e}"),
            ToolCallError::Invalid(errors) | ToolCallError::LimitExceeded(errors) => {
                for (i, e) in errors.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ToolCallError {}

impl CompiledSchema {
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Validates an instance; pointers in the errors point into the instance.
    pub fn validate(&self, instance: &Value) -> Result<(), ToolCallError> {
        let rule = match self.role {
            SchemaRole::Input => "TOOL-5",
            SchemaRole::Output => "TOOL-4",
        };
        if let Some(pointer) = too_deep(instance, self.limits.max_instance_depth) {
            return Err(ToolCallError::LimitExceeded(vec![ValidationError::new(
                pointer,
                "maxDepth",
                format!(
                    "the value nests deeper than {} levels (limit max_instance_depth)",
                    self.limits.max_instance_depth
                ),
            )
            .with_schema_path("#")
            .with_rule("JSCHEMA-8")]));
        }
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        let mut limit = Vec::new();
        let mut invalid = Vec::new();
        for e in self.validator.iter_errors(instance).take(self.limits.max_errors) {
            use jsonschema::error::ValidationErrorKind as K;
            let over_budget = matches!(e.kind(), K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. });
            let converted = ValidationError::new(e.instance_path().as_str(), keyword_of(&e), truncate(&e.to_string()))
                .with_schema_path(format!("#{}", e.schema_path().as_str()))
                .with_rule(if over_budget { "JSCHEMA-8" } else { rule });
            if over_budget {
                limit.push(converted);
            } else {
                invalid.push(converted);
            }
        }
        if !limit.is_empty() {
            return Err(ToolCallError::LimitExceeded(limit));
        }
        if invalid.is_empty() {
            // `is_valid` and `iter_errors` disagreed; report rather than accept.
            invalid.push(
                ValidationError::new("", "schema", "the value does not conform to the schema")
                    .with_schema_path("#")
                    .with_rule(rule),
            );
        }
        Err(ToolCallError::Invalid(invalid))
    }
}

/// The first location deeper than `max`, iteratively (the instance may be hostile).
fn too_deep(v: &Value, max: usize) -> Option<String> {
    let mut stack: Vec<(&Value, usize, String)> = vec![(v, 0, String::new())];
    while let Some((v, depth, at)) = stack.pop() {
        if depth > max {
            return Some(at);
        }
        match v {
            Value::Array(items) => {
                stack.extend(items.iter().enumerate().map(|(i, x)| (x, depth + 1, format!("{at}/{i}"))))
            }
            Value::Object(map) => stack.extend(
                map.iter().map(|(k, x)| (x, depth + 1, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")))),
            ),
            _ => {}
        }
    }
    None
}

/// The keyword that failed; a `false` subschema is named after the keyword holding it
/// (`additionalProperties`, `items`…) or `false`.
fn keyword_of(e: &jsonschema::ValidationError<'_>) -> &'static str {
    if matches!(e.kind(), jsonschema::error::ValidationErrorKind::FalseSchema) {
        let path = e.schema_path().as_str();
        let last = path.rsplit('/').next().unwrap_or("");
        return match static_keyword(last) {
            "schema" => "false",
            k => k,
        };
    }
    static_keyword(e.kind().keyword())
}

fn static_keyword(k: &str) -> &'static str {
    const KEYWORDS: &[&str] = &[
        "additionalItems",
        "additionalProperties",
        "allOf",
        "anyOf",
        "const",
        "contains",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "dependencies",
        "dependentRequired",
        "dependentSchemas",
        "enum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "false",
        "format",
        "if",
        "items",
        "maxContains",
        "maxItems",
        "maxLength",
        "maxProperties",
        "maximum",
        "minContains",
        "minItems",
        "minLength",
        "minProperties",
        "minimum",
        "multipleOf",
        "not",
        "oneOf",
        "pattern",
        "patternProperties",
        "prefixItems",
        "properties",
        "propertyNames",
        "required",
        "type",
        "unevaluatedItems",
        "unevaluatedProperties",
        "uniqueItems",
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
    ];
    KEYWORDS.iter().find(|x| **x == k).copied().unwrap_or("schema")
}

/// Every problem of one tool's schemas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSchemaErrors {
    /// The tool's `name` (empty when it has none).
    pub tool: String,
    pub errors: Vec<SchemaError>,
}

impl fmt::Display for ToolSchemaErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool `{}`: ", self.tool)?;
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                write!(f, "; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolSchemaErrors {}

/// A tool whose schemas are checked and compiled.
#[derive(Debug)]
pub struct CompiledTool {
    pub name: String,
    pub input: CompiledSchema,
    pub output: Option<CompiledSchema>,
}

impl CompiledTool {
    /// Checks and compiles both schemas of a `Tool` JSON object; reports the problems of both.
    pub fn compile(tool: &Value, options: &SchemaOptions) -> Result<CompiledTool, ToolSchemaErrors> {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        let fail = |errors| ToolSchemaErrors { tool: name.clone(), errors };
        if let Some(e) = too_deep_error(tool) {
            return Err(fail(vec![e]));
        }
        let Value::Object(map) = tool else {
            return Err(fail(vec![SchemaError::new(
                SchemaErrorKind::InvalidTool,
                "",
                format!("a tool must be an object, found {}", kind_name(tool)),
            )]));
        };
        let mut errors = Vec::new();
        if !matches!(map.get("name"), Some(Value::String(_))) {
            errors.push(SchemaError::new(SchemaErrorKind::InvalidTool, "/name", "a tool needs a string `name`".into()));
        }
        let input = match map.get("inputSchema") {
            None => {
                errors.push(SchemaError::new(
                    SchemaErrorKind::RootNotObject,
                    "/inputSchema",
                    "a tool needs an `inputSchema` (JSCHEMA-9)".into(),
                ));
                None
            }
            Some(schema) => compile_schema(schema, SchemaRole::Input, options)
                .map_err(|e| errors.extend(e.into_iter().map(|e| e.prefixed("/inputSchema"))))
                .ok(),
        };
        let output = match map.get("outputSchema") {
            None => None,
            Some(schema) => compile_schema(schema, SchemaRole::Output, options)
                .map_err(|e| errors.extend(e.into_iter().map(|e| e.prefixed("/outputSchema"))))
                .ok(),
        };
        match input {
            Some(input) if errors.is_empty() => Ok(CompiledTool { name, input, output }),
            _ => Err(fail(errors)),
        }
    }

    /// Validates `tools/call` arguments (pass `{}` when the request has none) (TOOL-5).
    pub fn validate_arguments(&self, arguments: &Value) -> Result<(), ToolCallError> {
        self.input.validate(arguments)
    }

    /// Validates a result's `structuredContent` (TOOL-4); a tool without `outputSchema`
    /// accepts any value.
    pub fn validate_structured_content(&self, value: &Value) -> Result<(), ToolCallError> {
        match &self.output {
            Some(schema) => schema.validate(value),
            None => Ok(()),
        }
    }
}

/// Anything a tool can be read from: `serde_json::Value`, [`crate::Value`], or a generated
/// `Tool` of any revision.
pub trait ToolSource {
    fn tool_json(&self) -> Cow<'_, Value>;
}

impl ToolSource for Value {
    fn tool_json(&self) -> Cow<'_, Value> {
        Cow::Borrowed(self)
    }
}

impl ToolSource for crate::Value {
    fn tool_json(&self) -> Cow<'_, Value> {
        Cow::Owned(self.into())
    }
}

macro_rules! tool_source_for_revisions {
    ($($feature:literal => $module:ident),*) => {$(
        #[cfg(feature = $feature)]
        impl ToolSource for crate::$module::Tool {
            fn tool_json(&self) -> Cow<'_, Value> {
                let text = crate::ToJson::to_json_string(self);
                Cow::Owned(serde_json::from_str(&text).unwrap_or(Value::Null))
            }
        }
    )*};
}

mcpgen_schema::for_each_revision!(tool_source_for_revisions);

/// Compiles tools once and keeps them, keyed by name and schema text, so a server or client
/// validating many calls pays the compile step once per tool (thread-safe; bounded).
pub struct ToolChecker {
    options: SchemaOptions,
    capacity: usize,
    cache: RwLock<HashMap<String, Arc<CompiledTool>>>,
}

impl fmt::Debug for ToolChecker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolChecker").field("options", &self.options).field("cached", &self.cached()).finish()
    }
}

impl Default for ToolChecker {
    fn default() -> Self {
        ToolChecker::new(SchemaOptions::default())
    }
}

impl ToolChecker {
    /// Default cache capacity in tools.
    pub const DEFAULT_CAPACITY: usize = 1024;

    pub fn new(options: SchemaOptions) -> ToolChecker {
        ToolChecker { options, capacity: Self::DEFAULT_CAPACITY, cache: RwLock::new(HashMap::new()) }
    }

    /// Sets how many compiled tools are kept (past it, an arbitrary one is dropped).
    pub fn with_capacity(mut self, capacity: usize) -> ToolChecker {
        self.capacity = capacity.max(1);
        self
    }

    pub fn options(&self) -> &SchemaOptions {
        &self.options
    }

    /// Number of compiled tools in the cache.
    pub fn cached(&self) -> usize {
        self.cache.read().map(|c| c.len()).unwrap_or(0)
    }

    fn key(tool: &Value) -> String {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        let text = |k| tool.get(k).map(|s| s.to_string()).unwrap_or_default();
        format!("{name}\u{0}{}\u{0}{}", text("inputSchema"), text("outputSchema"))
    }

    /// The compiled tool, from the cache or compiled now. Failures are not cached.
    pub fn compile<T: ToolSource + ?Sized>(&self, tool: &T) -> Result<Arc<CompiledTool>, ToolSchemaErrors> {
        let tool = tool.tool_json();
        let key = Self::key(&tool);
        if let Some(hit) = self.cache.read().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(hit);
        }
        let compiled = Arc::new(CompiledTool::compile(&tool, &self.options)?);
        if let Ok(mut cache) = self.cache.write() {
            if cache.len() >= self.capacity {
                if let Some(evict) = cache.keys().next().cloned() {
                    cache.remove(&evict);
                }
            }
            cache.insert(key, compiled.clone());
        }
        Ok(compiled)
    }

    /// See [`validate_tool_arguments`].
    pub fn validate_arguments<T: ToolSource + ?Sized>(&self, tool: &T, arguments: &Value) -> Result<(), ToolCallError> {
        self.compile(tool).map_err(ToolCallError::Schema)?.validate_arguments(arguments)
    }

    /// See [`validate_structured_content`].
    pub fn validate_structured_content<T: ToolSource + ?Sized>(
        &self,
        tool: &T,
        value: &Value,
    ) -> Result<(), ToolCallError> {
        self.compile(tool).map_err(ToolCallError::Schema)?.validate_structured_content(value)
    }
}

fn default_checker() -> &'static ToolChecker {
    static CHECKER: OnceLock<ToolChecker> = OnceLock::new();
    CHECKER.get_or_init(ToolChecker::default)
}

/// Checks a tool's schemas with the default options (no network, default [`Limits`]).
pub fn check_tool<T: ToolSource + ?Sized>(tool: &T) -> Result<(), ToolSchemaErrors> {
    default_checker().compile(tool).map(|_| ())
}

/// Validates `tools/call` arguments against the tool's `inputSchema` (TOOL-5), with the default
/// options and a process-wide cache of compiled tools. Pass `{}` when the request has no
/// `arguments`.
pub fn validate_tool_arguments<T: ToolSource + ?Sized>(tool: &T, arguments: &Value) -> Result<(), ToolCallError> {
    default_checker().validate_arguments(tool, arguments)
}

/// Validates a `CallToolResult.structuredContent` against the tool's `outputSchema` (TOOL-4),
/// with the default options and the process-wide cache.
pub fn validate_structured_content<T: ToolSource + ?Sized>(tool: &T, value: &Value) -> Result<(), ToolCallError> {
    default_checker().validate_structured_content(tool, value)
}

/// The report for one tool of a [`check_tools_json`] input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolReport {
    /// JSON pointer of the tool in the input (`""` for a single tool, `/tools/3` in a list).
    pub pointer: String,
    pub name: String,
    pub errors: Vec<SchemaError>,
}

/// Nesting levels kept when a tool is read from text: [`MAX_JSON_DEPTH`] for the tool, 3 for
/// its place in a JSON-RPC response (`/result/tools/3`), and 1 so that the first level past the
/// limit is still there to be reported. Deeper values are checked for syntax and skipped.
const TOOL_TEXT_DEPTH: usize = MAX_JSON_DEPTH + 4;

fn parse_tool_text(bytes: &[u8]) -> Result<Tape<'_>, ParseError> {
    Tape::parse_bytes_with(bytes, ParseOptions { max_depth: TOOL_TEXT_DEPTH, skip_deeper: true }, Default::default())
}

/// Reads a tool from JSON text with the core's parser (what the C and Python surfaces do with
/// tool text). Only text that is not JSON is an `Err`: JSON nested deeper than the parser's
/// limit is read far enough for [`CompiledTool::compile`] to refuse the tool as `too_deep`
/// (JSCHEMA-8), with the pointer of the first location past [`MAX_JSON_DEPTH`].
pub fn tool_from_json(bytes: &[u8]) -> Result<Value, ParseError> {
    let tape = parse_tool_text(bytes)?;
    Ok(Value::from(&tape.root().to_value()))
}

/// Why [`check_tools_json`] could not check a document at all (a document whose tools have
/// problems is not an error: see [`ToolReport`]). No rule applies; [`fmt::Display`] is the one
/// message every surface shows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolsJsonError {
    /// The text is not JSON. (JSON nested deeper than the parser's limit is JSON: the tool
    /// holding the deep value is reported as `too_deep`.)
    Parse(ParseError),
    /// JSON, but neither a `Tool` (with `name` or `inputSchema`), a `tools/list` result (with
    /// `tools`) nor a JSON-RPC response carrying one.
    NotAToolDocument,
    /// `tools` is not an array; `pointer` is `/tools` or `/result/tools`.
    ToolsNotArray { pointer: String },
}

impl ToolsJsonError {
    /// Stable snake_case name of the variant: `parse`, `not_a_tool_document` or
    /// `tools_not_an_array`.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolsJsonError::Parse(_) => "parse",
            ToolsJsonError::NotAToolDocument => "not_a_tool_document",
            ToolsJsonError::ToolsNotArray { .. } => "tools_not_an_array",
        }
    }

    /// Where in the document: `None` for a parse error (see its offset, line and column).
    pub fn pointer(&self) -> Option<&str> {
        match self {
            ToolsJsonError::Parse(_) => None,
            ToolsJsonError::NotAToolDocument => Some(""),
            ToolsJsonError::ToolsNotArray { pointer } => Some(pointer),
        }
    }

    /// The protocol rule: none applies to these (kept for symmetry with the other errors).
    pub fn rule(&self) -> Option<&'static str> {
        None
    }
}

impl fmt::Display for ToolsJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolsJsonError::Parse(e) => write!(f, "{e}"),
            ToolsJsonError::NotAToolDocument => f.write_str(
                "expected a Tool object (with `name` and `inputSchema`) or a tools/list result (with `tools`)",
            ),
            ToolsJsonError::ToolsNotArray { pointer } => write!(f, "{pointer} must be an array"),
        }
    }
}

impl std::error::Error for ToolsJsonError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ToolsJsonError::Parse(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ParseError> for ToolsJsonError {
    fn from(e: ParseError) -> Self {
        ToolsJsonError::Parse(e)
    }
}

/// Checks a document that is a `Tool`, a `tools/list` result (`{"tools": [...]}`) or a whole
/// JSON-RPC response carrying one; one report per tool, in order (JSCHEMA-3: a bad tool is
/// reported, the others are still checked). The text is read as [`tool_from_json`] reads it:
/// a tool nesting deeper than [`MAX_JSON_DEPTH`] is reported as `too_deep`, and only text that
/// is not JSON is [`ToolsJsonError::Parse`].
pub fn check_tools_json(bytes: &[u8], options: &SchemaOptions) -> Result<Vec<ToolReport>, ToolsJsonError> {
    let tape = parse_tool_text(bytes)?;
    let doc = tape.root();
    let (prefix, list) = match (doc.get("tools"), doc.get("result").and_then(|r| r.get("tools"))) {
        (Some(list), _) => ("/tools", list),
        (None, Some(list)) => ("/result/tools", list),
        (None, None) if doc.get("inputSchema").is_some() || doc.get("name").is_some() => {
            return Ok(vec![report_for(&Value::from(&doc.to_value()), String::new(), options)]);
        }
        _ => return Err(ToolsJsonError::NotAToolDocument),
    };
    if list.kind() != Kind::Array {
        return Err(ToolsJsonError::ToolsNotArray { pointer: prefix.to_owned() });
    }
    // Each tool on its own: the rest of the document is never converted.
    Ok(list
        .items()
        .enumerate()
        .map(|(i, t)| report_for(&Value::from(&t.to_value()), format!("{prefix}/{i}"), options))
        .collect())
}

fn report_for(tool: &Value, pointer: String, options: &SchemaOptions) -> ToolReport {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let errors = match CompiledTool::compile(tool, options) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors,
    };
    ToolReport { pointer, name, errors }
}

#[cfg(test)]
mod tests;
