//! Checking and compiling one schema ([`compile_schema`]: dialect, limits, meta-schema,
//! references) and validating instances with it ([`CompiledSchema::validate`]).

use crate::rules::id;
use std::fmt;

use serde_json::Value;

use super::dialect::Dialect;
use super::errors::{SchemaError, SchemaErrorKind, ToolCallError};
use super::limits::Limits;
use super::resolve::{self, FetchPolicy};
use super::{analyze, depth};
use crate::validate::ValidationError;

/// How tool schemas are compiled.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct SchemaOptions {
    pub limits: Limits,
    /// Check `format` as an assertion (off by default: an annotation in 2020-12).
    pub validate_formats: bool,
    /// Opt-in fetching of non-local `$ref`s (JSCHEMA-6). `None` (the default): every non-local
    /// reference is refused without any I/O.
    pub fetch: Option<FetchPolicy>,
}

/// Builders: `#[non_exhaustive]`, so start from `SchemaOptions::default()` (or its constructor) and set
/// what differs.
impl SchemaOptions {
    /// The same, with [`SchemaOptions::limits`] set.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
    /// The same, with [`SchemaOptions::validate_formats`] set.
    pub fn validate_formats(mut self, validate_formats: bool) -> Self {
        self.validate_formats = validate_formats;
        self
    }
    /// The same, with [`SchemaOptions::fetch`] set.
    pub fn fetch(mut self, fetch: Option<FetchPolicy>) -> Self {
        self.fetch = fetch;
        self
    }
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
    pub(super) fn member(self) -> &'static str {
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
    if let Some(e) = depth::too_deep_error(schema) {
        return Err(vec![e]);
    }
    root_shape(schema, role).map_err(|e| vec![e])?;
    let dialect = Dialect::of(schema).map_err(|e| vec![e])?;
    let errors = analyze::analyze(schema, dialect, &options.limits);
    if !errors.is_empty() {
        return Err(errors);
    }
    let meta_errors = meta_schema_errors(schema, dialect, options.limits.max_errors);
    if !meta_errors.is_empty() {
        return Err(meta_errors);
    }
    let validator = build_validator(schema, dialect, options)?;
    Ok(CompiledSchema { dialect, role, limits: options.limits, validator })
}

/// The root a role needs: an `inputSchema` is an object schema with `"type": "object"` (tool
/// arguments are objects), an `outputSchema` any schema object (or boolean).
fn root_shape(schema: &Value, role: SchemaRole) -> Result<(), SchemaError> {
    match (role, schema) {
        (SchemaRole::Input, Value::Object(map)) => {
            if map.get("type") != Some(&Value::String("object".into())) {
                let found = map.get("type").map_or("no `type`".to_owned(), |t| format!("`type: {t}`"));
                return Err(SchemaError::new(
                    SchemaErrorKind::RootNotObject,
                    "",
                    format!(
                        "inputSchema must have root `\"type\": \"object\"` (tool arguments are objects); found {found}"
                    ),
                ));
            }
            Ok(())
        }
        (SchemaRole::Output, Value::Object(_) | Value::Bool(_)) => Ok(()),
        (_, other) => Err(SchemaError::new(
            SchemaErrorKind::RootNotObject,
            "",
            format!("{} must be a JSON Schema object, found {}", role.member(), kind_name(other)),
        )),
    }
}

/// Where `schema` breaks its dialect's meta-schema (at most `max_errors`).
fn meta_schema_errors(schema: &Value, dialect: Dialect, max_errors: usize) -> Vec<SchemaError> {
    let meta = match dialect {
        Dialect::Draft07 => jsonschema::draft7::meta::validator(),
        Dialect::Draft201909 => jsonschema::draft201909::meta::validator(),
        Dialect::Draft202012 => jsonschema::draft202012::meta::validator(),
    };
    meta.iter_errors(schema)
        .take(max_errors)
        .map(|e| {
            SchemaError::new(
                SchemaErrorKind::InvalidSchema,
                e.instance_path().as_str(),
                format!("not a valid {} schema: {}", dialect.as_str(), truncate(&e.to_string())),
            )
        })
        .collect()
}

/// The `jsonschema` validator of `schema`, its non-local references going through the
/// retriever (refused, or fetched under the opt-in policy). When the build fails: every
/// refused reference, one error each, or else the build's own error.
fn build_validator(
    schema: &Value,
    dialect: Dialect,
    options: &SchemaOptions,
) -> Result<jsonschema::Validator, Vec<SchemaError>> {
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
        Ok(validator) => return Ok(validator),
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
    let refs = depth::ref_locations(schema);
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
            SchemaError::new(r.kind, pointer, r.message).with_uri(r.uri)
        })
        .collect()
}

pub(super) fn kind_name(v: &Value) -> &'static str {
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
                out = out.with_uri(u);
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
    depth::ref_locations(schema).into_iter().find(|(_, r)| ref_names(r, uri)).map(|(at, _)| at)
}

/// Whether the reference text `r` (as written) may be the one `jsonschema` resolved to `uri`.
fn ref_names(r: &str, uri: &str) -> bool {
    let r_base = r.split('#').next().unwrap_or(r);
    let u_base = uri.split('#').next().unwrap_or(uri);
    r == uri || (!r_base.is_empty() && (r_base == u_base || u_base.ends_with(r_base)))
}

impl CompiledSchema {
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Validates an instance; pointers in the errors point into the instance.
    pub fn validate(&self, instance: &Value) -> Result<(), ToolCallError> {
        let rule = match self.role {
            SchemaRole::Input => id::TOOL_5,
            SchemaRole::Output => id::TOOL_4,
        };
        if let Some(pointer) = depth::first_value_deeper(instance, self.limits.max_instance_depth) {
            return Err(ToolCallError::LimitExceeded(vec![ValidationError::new(
                pointer,
                "maxDepth",
                format!(
                    "the value nests deeper than {} levels (limit max_instance_depth)",
                    self.limits.max_instance_depth
                ),
            )
            .with_schema_path("#")
            .with_rule(id::JSCHEMA_8)]));
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
                .with_rule(if over_budget { id::JSCHEMA_8 } else { rule });
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
