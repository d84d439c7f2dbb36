//! Tool schemas from Rust types (cargo feature `schemars`): the way a Rust server author
//! declares a tool. The generated schemas are 2020-12 (JSCHEMA-1), and the tool is passed
//! through the same checker as any schema received from a peer.
//!
//! ```
//! #[derive(schemars::JsonSchema)]
//! struct WeatherArgs { city: String, days: Option<u8> }
//! #[derive(schemars::JsonSchema)]
//! struct Forecast { summary: String }
//!
//! let tool = mcpgen::tools::tool_for::<WeatherArgs>("get_weather")
//!     .description("Weather forecast for a city")
//!     .output::<Forecast>()
//!     .build()
//!     .unwrap();
//! assert_eq!(tool.name, "get_weather");
//! assert!(tool.output_schema.is_some());
//! ```

use schemars::JsonSchema;
use serde_json::{Map, Value};

use super::checker::CompiledTool;
use super::compile::SchemaOptions;
use super::errors::{SchemaError, SchemaErrorKind, ToolSchemaErrors};
use crate::Decode;

/// The 2020-12 schema of a Rust type, with `$defs` for the types it uses.
pub fn schema_for<T: JsonSchema>() -> Value {
    schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>().to_value()
}

/// Starts a tool whose `inputSchema` is the schema of `I` (which must be a struct or map:
/// root `type: "object"`, JSCHEMA-9).
pub fn tool_for<I: JsonSchema>(name: &str) -> ToolBuilder {
    let mut json = Map::new();
    json.insert("name".into(), Value::String(name.to_owned()));
    json.insert("inputSchema".into(), schema_for::<I>());
    ToolBuilder { json, options: SchemaOptions::default() }
}

/// A tool under construction; [`ToolBuilder::build`] checks it.
#[derive(Debug, Clone)]
pub struct ToolBuilder {
    json: Map<String, Value>,
    options: SchemaOptions,
}

impl ToolBuilder {
    pub fn description(mut self, text: &str) -> ToolBuilder {
        self.json.insert("description".into(), Value::String(text.to_owned()));
        self
    }

    pub fn title(mut self, text: &str) -> ToolBuilder {
        self.json.insert("title".into(), Value::String(text.to_owned()));
        self
    }

    /// Sets `outputSchema` to the schema of `O`.
    pub fn output<O: JsonSchema>(mut self) -> ToolBuilder {
        self.json.insert("outputSchema".into(), schema_for::<O>());
        self
    }

    /// Checks with these options instead of the defaults.
    pub fn options(mut self, options: SchemaOptions) -> ToolBuilder {
        self.options = options;
        self
    }

    /// The tool as JSON, unchecked.
    pub fn to_json(&self) -> Value {
        Value::Object(self.json.clone())
    }

    /// Checks both schemas and returns the tool, compiled.
    pub fn compile(&self) -> Result<CompiledTool, ToolSchemaErrors> {
        CompiledTool::compile(&self.to_json(), &self.options)
    }

    /// Checks both schemas and returns the typed `Tool` of the current revision.
    pub fn build(&self) -> Result<crate::rev_2026_07_28::Tool, ToolSchemaErrors> {
        self.compile()?;
        let json = self.to_json();
        crate::rev_2026_07_28::Tool::decode_view(&&json, crate::Options::decoding(crate::Policy::Strict)).map_err(|e| {
            ToolSchemaErrors {
                tool: self.json.get("name").and_then(Value::as_str).unwrap_or_default().to_owned(),
                errors: vec![SchemaError::new(SchemaErrorKind::InvalidTool, "", format!("not a valid Tool: {e}"))],
            }
        })
    }
}
