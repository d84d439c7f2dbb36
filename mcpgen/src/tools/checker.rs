//! Tools as a whole: [`CompiledTool`] (both schemas of one tool, checked and compiled),
//! [`ToolChecker`] (a bounded cache of compiled tools) and the one-call functions over a
//! process-wide checker ([`check_tool`], [`validate_tool_arguments`],
//! [`validate_structured_content`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use serde_json::Value;

use super::compile::{compile_schema, kind_name, CompiledSchema, SchemaOptions, SchemaRole};
use super::depth;
use super::errors::{SchemaError, SchemaErrorKind, ToolCallError, ToolSchemaErrors};
use super::pin::canonical_json;

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
        let fail = |errors| ToolSchemaErrors::new(name.clone(), errors);
        if let Some(e) = depth::too_deep_error(tool) {
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
            errors.push(SchemaError::new(SchemaErrorKind::InvalidTool, "/name", "a tool needs a string `name`"));
        }
        let input = match map.get("inputSchema") {
            None => {
                errors.push(SchemaError::new(
                    SchemaErrorKind::RootNotObject,
                    "/inputSchema",
                    "a tool needs an `inputSchema` (JSCHEMA-9)",
                ));
                None
            }
            Some(schema) => compile_schema(schema, SchemaRole::Input, options)
                .map_err(|e| errors.extend(e.into_iter().map(|e| e.with_pointer_prefix("/inputSchema"))))
                .ok(),
        };
        let output = match map.get("outputSchema") {
            None => None,
            Some(schema) => compile_schema(schema, SchemaRole::Output, options)
                .map_err(|e| errors.extend(e.into_iter().map(|e| e.with_pointer_prefix("/outputSchema"))))
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

/// Compiles tools once and keeps them, keyed by name and schemas (canonical JSON), so a server
/// or client validating many calls pays the compile step once per tool (thread-safe; bounded).
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

    /// The cache key: the name and both schemas as canonical JSON (so member order does not
    /// matter), as [`ToolChecker::key_of`] joins them.
    fn key(tool: &Value) -> String {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        let text = |k| tool.get(k).map(canonical_json).unwrap_or_default();
        Self::key_of(name, &text("inputSchema"), &text("outputSchema"))
    }

    /// The cache key of a tool named `name` whose `inputSchema` and `outputSchema` have the
    /// canonical JSON `input` and `output` (empty: absent).
    pub(crate) fn key_of(name: &str, input: &str, output: &str) -> String {
        format!("{name}\u{0}{input}\u{0}{output}")
    }

    /// The compiled tool, from the cache or compiled now. Failures are not cached.
    pub fn compile<T: ToolSource + ?Sized>(&self, tool: &T) -> Result<Arc<CompiledTool>, ToolSchemaErrors> {
        let tool = tool.tool_json();
        let key = Self::key(&tool);
        self.compile_keyed(&tool, key)
    }

    /// [`ToolChecker::compile`] for a caller that holds the canonical texts already: `key` is
    /// [`ToolChecker::key_of`] the tool's name and schemas.
    pub(crate) fn compile_keyed(&self, tool: &Value, key: String) -> Result<Arc<CompiledTool>, ToolSchemaErrors> {
        if let Some(hit) = self.cache.read().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(hit);
        }
        let compiled = Arc::new(CompiledTool::compile(tool, &self.options)?);
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

pub(crate) fn default_checker() -> &'static ToolChecker {
    static CHECKER: OnceLock<ToolChecker> = OnceLock::new();
    CHECKER.get_or_init(ToolChecker::default)
}

/// The tool checked and compiled with the default options, from the process-wide cache (what
/// [`judge_call_result`](super::judge_call_result) takes).
pub fn compile_tool<T: ToolSource + ?Sized>(tool: &T) -> Result<Arc<CompiledTool>, ToolSchemaErrors> {
    default_checker().compile(tool)
}

/// Checks a tool's schemas with the default options (no network, default
/// [`Limits`](super::limits::Limits)).
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
