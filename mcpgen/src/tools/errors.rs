//! The error types of tool checking: what is wrong with a tool's schema ([`SchemaError`], by
//! [`SchemaErrorKind`]), with a tool ([`ToolSchemaErrors`]), with a `tools/call` instance
//! ([`ToolCallError`]), with a document of tools ([`ToolsJsonError`]), and a fetcher's failure
//! ([`FetchError`]). Every type is `#[non_exhaustive]`: a new field or variant is not a breaking
//! change. Build them with their constructors, read them with their accessors; the surfaces map
//! them by variant and kind, never by message text.

use crate::rules::id;
use std::borrow::Cow;
use std::fmt;

use mcpgen_runtime::__rt::single;

use crate::json::ParseError;
use crate::validate::ValidationError;
use crate::CoreError;

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
    /// Subschemas nested deeper than [`Limits::max_depth`](super::limits::Limits::max_depth)
    /// (JSCHEMA-8), or a value nested deeper than the JSON parser reads.
    TooDeep,
    /// More subschemas than [`Limits::max_subschemas`](super::limits::Limits::max_subschemas)
    /// (JSCHEMA-8).
    TooManySubschemas,
    /// An `enum` longer than [`Limits::max_enum_values`](super::limits::Limits::max_enum_values)
    /// (JSCHEMA-8).
    EnumTooLarge,
    /// A pattern longer than
    /// [`Limits::max_pattern_length`](super::limits::Limits::max_pattern_length) (JSCHEMA-8).
    PatternTooLong,
    /// A pattern that can backtrack exponentially, or compiles too big (JSCHEMA-8).
    CatastrophicPattern,
    /// A `$ref` cycle that never moves into the instance (JSCHEMA-8).
    RefCycle,
    /// One instance location could cost more than
    /// [`Limits::max_steps`](super::limits::Limits::max_steps) subschema evaluations (JSCHEMA-8).
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
            SchemaErrorKind::InvalidTool | SchemaErrorKind::RootNotObject => id::JSCHEMA_9,
            SchemaErrorKind::UnsupportedDialect => id::JSCHEMA_3,
            SchemaErrorKind::InvalidSchema => id::JSCHEMA_4,
            SchemaErrorKind::NetworkRef => id::JSCHEMA_5,
            SchemaErrorKind::RefRefused => id::JSCHEMA_6,
            SchemaErrorKind::UnresolvedRef => id::JSCHEMA_7,
            _ => id::JSCHEMA_8,
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

/// One problem with a tool's schema. The fields can be read directly; [`SchemaError::new`]
/// builds one (the struct is `#[non_exhaustive]`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaError {
    pub kind: SchemaErrorKind,
    /// JSON pointer into the tool object (`/inputSchema/properties/q/pattern`), or into the
    /// schema itself for [`compile_schema`](super::compile::compile_schema).
    pub pointer: String,
    /// The URI concerned: the unsupported dialect or the refused reference.
    pub uri: Option<String>,
    pub message: String,
}

impl SchemaError {
    pub fn new(kind: SchemaErrorKind, pointer: impl Into<String>, message: impl Into<String>) -> SchemaError {
        SchemaError { kind, pointer: pointer.into(), uri: None, message: message.into() }
    }

    /// The same error naming `uri` (the dialect or the reference).
    pub fn with_uri(mut self, uri: impl Into<String>) -> SchemaError {
        self.uri = Some(uri.into());
        self
    }

    /// The same error with `prefix` put before its pointer (a schema's error made relative to
    /// the tool holding it: `/inputSchema`).
    pub fn with_pointer_prefix(mut self, prefix: &str) -> SchemaError {
        self.pointer.insert_str(0, prefix);
        self
    }

    pub fn kind(&self) -> SchemaErrorKind {
        self.kind
    }

    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    pub fn uri(&self) -> Option<&str> {
        self.uri.as_deref()
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn rule(&self) -> &'static str {
        self.kind.rule()
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "(root)" } else { self.pointer.as_str() };
        write!(f, "{at}: {} [{}; {}]", self.message, self.kind, self.kind.rule())
    }
}

impl std::error::Error for SchemaError {}

/// The family's face ([`CoreError`]): kind [`SchemaErrorKind::as_str`], the kind's rule, one
/// entry at the error's pointer. (The inherent [`SchemaError::kind`] returns the enum.)
impl CoreError for SchemaError {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }
    fn rule(&self) -> Option<&'static str> {
        Some(self.kind.rule())
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        single(self.pointer.clone(), "", Some(self.kind.rule()), self.message.clone())
    }
}

/// Every problem of one tool's schemas.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolSchemaErrors {
    /// The tool's `name` (empty when it has none).
    pub tool: String,
    pub errors: Vec<SchemaError>,
}

impl ToolSchemaErrors {
    pub fn new(tool: impl Into<String>, errors: Vec<SchemaError>) -> ToolSchemaErrors {
        ToolSchemaErrors { tool: tool.into(), errors }
    }

    /// The tool's `name` (empty when it has none).
    pub fn tool(&self) -> &str {
        &self.tool
    }

    pub fn errors(&self) -> &[SchemaError] {
        &self.errors
    }
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

/// The family's face ([`CoreError`]): kind `tool_schema`, the rule when every problem has the
/// same one, an entry per problem. (The inherent [`ToolSchemaErrors::errors`] returns the
/// [`SchemaError`]s.)
impl CoreError for ToolSchemaErrors {
    fn kind(&self) -> &'static str {
        "tool_schema"
    }
    fn rule(&self) -> Option<&'static str> {
        let first = self.errors.first()?.rule();
        self.errors.iter().all(|e| e.rule() == first).then_some(first)
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        if self.errors.is_empty() {
            return single("", "", None, self.to_string());
        }
        Cow::Owned(self.errors.iter().flat_map(|e| CoreError::errors(e).into_owned()).collect())
    }
}

/// Why an instance was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolCallError {
    /// The tool's own schema cannot be used; nothing was validated.
    Schema(ToolSchemaErrors),
    /// The instance does not conform: every error (up to
    /// [`Limits::max_errors`](super::limits::Limits::max_errors)), each with a JSON pointer into
    /// the instance, the keyword and rule `TOOL-5` (arguments) or `TOOL-4` (structured content).
    Invalid(Vec<ValidationError>),
    /// Validation stopped at a cost limit (rule JSCHEMA-8): the pattern backtrack limit or the
    /// instance depth.
    LimitExceeded(Vec<ValidationError>),
}

impl ToolCallError {
    /// Whether the instance was refused only for members the schema does not allow
    /// (`additionalProperties`, `unevaluatedProperties`): arguments a server may accept by
    /// dropping those members (the TOOL-5 reading of the checker and the probe).
    pub fn only_extra_members(&self) -> bool {
        match self {
            ToolCallError::Invalid(errors) => {
                errors.iter().all(|e| matches!(e.keyword, "additionalProperties" | "unevaluatedProperties"))
            }
            _ => false,
        }
    }

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

    /// The tool's schema problems, for [`ToolCallError::Schema`].
    pub fn schema_errors(&self) -> Option<&ToolSchemaErrors> {
        match self {
            ToolCallError::Schema(e) => Some(e),
            _ => None,
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

/// The family's face ([`CoreError`]): the inherent [`ToolCallError::kind`]; the rule when every
/// entry has the same one; the instance errors, or the schema's problems for
/// [`ToolCallError::Schema`] (the inherent [`ToolCallError::errors`] has only the former).
impl CoreError for ToolCallError {
    fn kind(&self) -> &'static str {
        ToolCallError::kind(self)
    }
    fn rule(&self) -> Option<&'static str> {
        match self {
            ToolCallError::Schema(e) => CoreError::rule(e),
            ToolCallError::Invalid(errors) | ToolCallError::LimitExceeded(errors) => {
                let first = errors.first()?.rule;
                errors.iter().all(|e| e.rule == first).then_some(first).flatten()
            }
        }
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        match self {
            ToolCallError::Schema(e) => CoreError::errors(e),
            ToolCallError::Invalid(errors) | ToolCallError::LimitExceeded(errors) if !errors.is_empty() => {
                Cow::Borrowed(errors)
            }
            _ => single("", "", None, self.to_string()),
        }
    }
}

/// Why [`check_tools_json`](super::document::check_tools_json) could not check a document at
/// all (a document whose tools have problems is not an error: see
/// [`ToolReport`](super::document::ToolReport)). No rule applies; [`fmt::Display`] is the one
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

    /// The parse error, for [`ToolsJsonError::Parse`].
    pub fn parse_error(&self) -> Option<&ParseError> {
        match self {
            ToolsJsonError::Parse(e) => Some(e),
            _ => None,
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

/// The family's face ([`CoreError`]): the inherent [`ToolsJsonError::kind`], no rule, the
/// parse error's entry or one at the error's pointer.
impl CoreError for ToolsJsonError {
    fn kind(&self) -> &'static str {
        ToolsJsonError::kind(self)
    }
    fn rule(&self) -> Option<&'static str> {
        match self {
            ToolsJsonError::Parse(e) => CoreError::rule(e),
            _ => None,
        }
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        match self {
            ToolsJsonError::Parse(e) => Cow::Owned(CoreError::errors(e).into_owned()),
            ToolsJsonError::NotAToolDocument => single("", "type", None, self.to_string()),
            ToolsJsonError::ToolsNotArray { pointer } => single(pointer.clone(), "type", None, self.to_string()),
        }
    }
}

impl From<ParseError> for ToolsJsonError {
    fn from(e: ParseError) -> Self {
        ToolsJsonError::Parse(e)
    }
}

/// Why a [`SchemaFetcher`](super::resolve::SchemaFetcher) returned no body. Its text becomes
/// part of the `ref_refused` message (`fetching <uri> failed: <text>`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FetchError {
    /// What went wrong, in the fetcher's words (`connection refused`, `HTTP 404`…).
    pub message: String,
}

impl FetchError {
    pub fn new(message: impl Into<String>) -> FetchError {
        FetchError { message: message.into() }
    }

    /// What went wrong, in the fetcher's words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for FetchError {
    fn from(message: String) -> Self {
        FetchError { message }
    }
}

impl From<&str> for FetchError {
    fn from(message: &str) -> Self {
        FetchError::new(message)
    }
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FetchError {}

/// The family's face ([`CoreError`]): kind `fetch_failed`, rule JSCHEMA-6 (a reference the
/// resolver could not fetch is refused), one entry with the fetcher's words.
impl CoreError for FetchError {
    fn kind(&self) -> &'static str {
        "fetch_failed"
    }
    fn rule(&self) -> Option<&'static str> {
        Some(id::JSCHEMA_6)
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        single("", "$ref", Some(id::JSCHEMA_6), self.message.clone())
    }
}
