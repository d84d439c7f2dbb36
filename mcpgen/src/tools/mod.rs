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
//!
//! Layout, one concern per file (everything public is re-exported here): `errors` (the error
//! types, all `#[non_exhaustive]`), `limits` ([`Limits`], [`LimitError`]), `dialect`, `compile`
//! (one schema: [`compile_schema`], [`CompiledSchema::validate`]), `analyze` (the static pass of
//! JSCHEMA-8) with `pattern`, `resolve` (the opt-in fetch of JSCHEMA-6), `checker` (whole tools
//! and the cache: [`CompiledTool`], [`ToolChecker`]), `answer` (the judgement on a server's answer
//! to a `tools/call`, shared by the conversation checker and the probe: [`judge_call_result`]), `document` (tools read from text:
//! [`check_tools_json`]), `pin` (pinned definitions and their diff: [`ToolsBaseline`]), and `depth`, the one iterative walker every depth-bounded pass uses
//! (the parser-depth check of a tool, the instance depth, the `$ref` locations and the
//! subschema walk of `analyze`).

mod analyze;
pub(crate) mod answer;
mod checker;
pub(crate) use checker::default_checker;
mod compile;
mod depth;
mod dialect;
mod document;
mod errors;
#[cfg(feature = "schemars")]
mod from_types;
mod limits;
mod pattern;
pub(crate) mod pin;
mod resolve;

pub use answer::{judge_call_error, judge_call_result, AnswerFault, ArgumentsVerdict};
pub use checker::{
    check_tool, compile_tool, validate_structured_content, validate_tool_arguments, CompiledTool, ToolChecker,
    ToolSource,
};
pub use compile::{compile_schema, CompiledSchema, SchemaOptions, SchemaRole};
pub use dialect::Dialect;
pub use document::{check_tools_json, tool_from_json, ToolReport};
pub use errors::{FetchError, SchemaError, SchemaErrorKind, ToolCallError, ToolSchemaErrors, ToolsJsonError};
#[cfg(feature = "schemars")]
pub use from_types::{schema_for, tool_for, ToolBuilder};
pub use limits::{LimitError, Limits, MAX_JSON_DEPTH};
pub use pin::{
    canonical_json, MemberChange, PinError, PinErrorKind, PinLimits, PinnedTool, ToolChange, ToolDrift, ToolsBaseline,
    ToolsDiff, MAX_MEMBER_CHANGES, MAX_SHOWN_CHARS, PIN_FORMAT, PIN_FORMAT_KEY,
};
pub use resolve::{forbidden_address, FetchPolicy, FetchRequest, HostResolver, SchemaFetcher, SystemResolver};

#[cfg(test)]
mod tests;
