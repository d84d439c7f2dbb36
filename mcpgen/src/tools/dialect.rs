//! The JSON Schema dialects tool schemas are validated with (JSCHEMA-1..3, AMB-21).

use serde_json::Value;

use super::errors::{SchemaError, SchemaErrorKind};

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

    pub(crate) fn draft(self) -> jsonschema::Draft {
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
