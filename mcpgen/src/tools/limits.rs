//! The cost limits of tool checking (JSCHEMA-8): [`Limits`], set by name from the surfaces
//! ([`Limits::set`], refused with a [`LimitError`]), and the parser depth every tool must fit.

use std::fmt;

/// How deep a tool (or a schema given to [`compile_schema`](super::compile::compile_schema))
/// may nest arrays and objects: the JSON parser's limit, so that every tool a surface can read
/// from text is one it can check. A deeper one is refused as
/// [`SchemaErrorKind::TooDeep`](super::errors::SchemaErrorKind::TooDeep) (JSCHEMA-8) at the first location
/// past the limit, whether it came as text or as a value.
pub const MAX_JSON_DEPTH: usize = crate::json::tape::DEFAULT_MAX_DEPTH;

/// Cost limits (JSCHEMA-8). The defaults admit every real-world tool schema we know of and
/// reject the hostile shapes in `vectors/tools/` at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

/// Builders: `#[non_exhaustive]`, so start from `Limits::default()` (or its constructor) and set
/// what differs.
impl Limits {
    /// The same, with [`Limits::max_depth`] set.
    pub const fn max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }
    /// The same, with [`Limits::max_subschemas`] set.
    pub const fn max_subschemas(mut self, max_subschemas: usize) -> Self {
        self.max_subschemas = max_subschemas;
        self
    }
    /// The same, with [`Limits::max_enum_values`] set.
    pub const fn max_enum_values(mut self, max_enum_values: usize) -> Self {
        self.max_enum_values = max_enum_values;
        self
    }
    /// The same, with [`Limits::max_pattern_length`] set.
    pub const fn max_pattern_length(mut self, max_pattern_length: usize) -> Self {
        self.max_pattern_length = max_pattern_length;
        self
    }
    /// The same, with [`Limits::regex_size_limit`] set.
    pub const fn regex_size_limit(mut self, regex_size_limit: usize) -> Self {
        self.regex_size_limit = regex_size_limit;
        self
    }
    /// The same, with [`Limits::backtrack_limit`] set.
    pub const fn backtrack_limit(mut self, backtrack_limit: usize) -> Self {
        self.backtrack_limit = backtrack_limit;
        self
    }
    /// The same, with [`Limits::max_steps`] set.
    pub const fn max_steps(mut self, max_steps: u64) -> Self {
        self.max_steps = max_steps;
        self
    }
    /// The same, with [`Limits::max_instance_depth`] set.
    pub const fn max_instance_depth(mut self, max_instance_depth: usize) -> Self {
        self.max_instance_depth = max_instance_depth;
        self
    }
    /// The same, with [`Limits::max_errors`] set.
    pub const fn max_errors(mut self, max_errors: usize) -> Self {
        self.max_errors = max_errors;
        self
    }
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

    /// The value refused as too large ([`LimitError::TooLarge`]).
    pub fn value(&self) -> Option<u64> {
        match self {
            LimitError::TooLarge { value, .. } => Some(*value),
            LimitError::UnknownName { .. } => None,
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

/// The family's face ([`crate::CoreError`]): the inherent [`LimitError::kind`], no rule, one
/// entry naming the limit.
impl crate::CoreError for LimitError {
    fn kind(&self) -> &'static str {
        LimitError::kind(self)
    }
    fn rule(&self) -> Option<&'static str> {
        None
    }
    fn errors(&self) -> std::borrow::Cow<'_, [crate::ValidationError]> {
        mcpgen_runtime::__rt::single(format!("/{}", self.name()), "enum", None, self.to_string())
    }
}

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
