//! # mcpgen
//!
//! Exact Rust types for every revision of the Model Context Protocol schema, generated from the
//! official JSON Schema, with validators that report JSON pointers and a decoder that keeps
//! what it reads: unknown keys (per policy), number text, and presence of empty objects.
//!
//! ```
//! use mcpgen::rev_2026_07_28::CallToolRequest;
//! use mcpgen::{Decode, Policy, ToJson};
//!
//! let bytes = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
//!     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!              "io.modelcontextprotocol/clientCapabilities":{},
//!              "com.example/trace":"abc"},
//!     "name":"get_weather","arguments":{"ratio":0.50}}}"#;
//! let req = CallToolRequest::decode_bytes(bytes, Policy::Lossless).unwrap();
//! assert_eq!(req.params.name, "get_weather");
//! // The custom `_meta` key and the number text survive a round trip.
//! let out = req.to_json_string();
//! assert!(out.contains(r#""com.example/trace":"abc""#));
//! assert!(out.contains("0.50"));
//! ```
//!
//! Building messages: every generated struct has a builder (`T::builder()`, a setter per
//! member taking `impl Into<…>`, `const` members filled in, `build()` naming every missing
//! required member by its wire name) and, when no member is required, `Default`:
//!
//! ```
//! use mcpgen::rev_2026_07_28::{CallToolResult, CallToolResultResponse, Error, JSONRPCErrorResponse, TextContent};
//! use mcpgen::ToJson;
//!
//! // A `tools/call` result with one text block, as the answer to request 7.
//! let result = CallToolResult::builder()
//!     .content(vec![TextContent::builder().text("18 °C, light rain").build()?.into()])
//!     .result_type("complete")
//!     .build()?;
//! let response = CallToolResultResponse::builder().id(7).result(result).build()?;
//! assert_eq!(
//!     response.to_json_string(),
//!     r#"{"id":7,"jsonrpc":"2.0","result":{"content":[{"text":"18 °C, light rain","type":"text"}],"resultType":"complete"}}"#
//! );
//!
//! // A -32602 error response; a missing required member is named by its wire name.
//! let error = Error::builder().code(-32602).message("Invalid params: unknown tool `get_wether`").build()?;
//! let refusal = JSONRPCErrorResponse::builder().id(8).error(error).build()?;
//! assert_eq!(
//!     refusal.to_json_string(),
//!     r#"{"error":{"code":-32602,"message":"Invalid params: unknown tool `get_wether`"},"id":8,"jsonrpc":"2.0"}"#
//! );
//! let missing = Error::builder().code(-32602).build().unwrap_err();
//! assert_eq!(missing.to_string(), "cannot build Error: missing required field `message`");
//! # Ok::<(), mcpgen::BuildError>(())
//! ```
//!
//! Entry points:
//! - per revision (`rev_2026_07_28`, `rev_2025_11_25`, …, each behind a cargo feature, all on
//!   by default): one type per schema definition, spec names kept; [`Decode`] on each; the
//!   method table `METHODS`;
//! - [`decode_result()`]: a result by the request it answers, with [`ResultOptions`] (policy,
//!   task augmentation, extension `resultType`s, invalid list items left out with diagnostics);
//! - [`decode()`] / [`validate()`]: by revision and definition name at run time (what the C,
//!   Python and command-line surfaces use);
//! - [`json`]: the lossless JSON value, number and parser the rest is built on;
//! - [`protocol`]: the rules beyond the schema, for servers and clients, and the responses a
//!   peer sends (`result_response`, `complete_result`, the typed error responses);
//! - [`conversation`]: whole sessions — results against their requests and the rules that span
//!   messages (`docs/conversations.md`);
//! - [`http`]: the Streamable HTTP headers that mirror a body (`Mcp-Method`, `Mcp-Name`,
//!   `x-mcp-header` / `Mcp-Param-*`);
//! - [`tools`] and [`icons`]: tool schemas, arguments and icons from untrusted peers;
//! - [`rules`]: the catalogue of every rule id the errors carry (`docs/rules.md`).
//!
//! The crate is the public face of three: `mcpgen-runtime` (hand-written, schema-agnostic:
//! JSON, validation primitives, decode traits), `mcpgen-schema` (generated: the revision
//! modules) and this one (the protocol rules and everything built on both).

mod by_name;
pub mod conversation;
pub mod ext;
pub mod http;
pub mod icons;
mod message_options;
pub mod protocol;
mod result_options;
mod results;
pub mod rules;
#[cfg(feature = "serde")]
pub mod serde_policy;
pub mod tools;

pub use mcpgen_runtime::{json, methods};
pub use mcpgen_runtime::{
    AnyDecoded, ArmFailure, BuildError, CoreError, Decode, DecodeError, DecodedResult, DefEntry, FieldEntry, FromJson,
    JsonSource, JsonView, Number, Options, Policy, SkippedItem, ToJson, UnknownPolicy, Validate, ValidationError,
    Value,
};
pub use mcpgen_schema::*;

pub use by_name::Schema;
pub use message_options::MessageOptions;
pub use result_options::ResultOptions;
pub use results::decode_result;

// Paths inside this crate (`crate::decode::…`) name the runtime's modules.
use mcpgen_runtime::__rt::{decode, validate};

/// Looks up a definition, or says which revision lacks it.
pub fn definition(revision: Revision, name: &str) -> Result<&'static DefEntry, DecodeError> {
    by_name::definition(revision, name)
}

/// Decodes JSON bytes as the definition `name` of `revision`, chosen at run time, and returns
/// the typed value behind [`AnyDecoded`] (downcast with `as_any`, or re-encode with
/// `to_json_string`).
///
/// ```
/// let out = mcpgen::decode(mcpgen::Revision::parse("2026-07-28").unwrap(), "TextContent",
///     br#"{"type":"text","text":"hi","x":1}"#, mcpgen::Policy::Lossless).unwrap();
/// assert_eq!(out.to_json_string(), r#"{"text":"hi","type":"text","x":1}"#);
/// ```
pub fn decode(
    revision: Revision,
    name: &str,
    bytes: &[u8],
    policy: Policy,
) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    by_name::decode(revision, name, bytes, policy)
}

/// Like [`decode()`], from any JSON view (`&serde_json::Value`, `&mcpgen::Value`, a tape…).
pub fn decode_view<'v, V: JsonView<'v>>(
    revision: Revision,
    name: &str,
    v: &V,
    policy: Policy,
) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    by_name::decode_view(revision, name, v, policy)
}

/// Validates JSON bytes against the definition `name` of `revision` with schema semantics.
pub fn validate(revision: Revision, name: &str, bytes: &[u8], opts: Options) -> Result<(), DecodeError> {
    by_name::validate(revision, name, bytes, opts)
}

/// Whether any JSON view is valid against the definition `name` of `revision`: the fail-fast
/// pass only, so no error is built (what a verdict-only caller wants). `None` when the revision
/// has no such definition.
#[inline]
pub fn is_valid_view<'v, V: JsonView<'v>>(revision: Revision, name: &str, v: &V, opts: Options) -> Option<bool> {
    by_name::is_valid_view(revision, name, v, opts)
}

/// Validates any JSON view against the definition `name` of `revision`: first a fail-fast
/// pass, then, only when invalid, a pass that collects every error.
pub fn validate_view<'v, V: JsonView<'v>>(
    revision: Revision,
    name: &str,
    v: &V,
    opts: Options,
) -> Result<(), DecodeError> {
    by_name::validate_view(revision, name, v, opts)
}

/// The README's Rust snippets, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// `docs/rust.md`'s Rust snippets, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
pub struct RustGuideDoctests;

/// `docs/conversations.md`'s Rust snippets, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/conversations.md")]
pub struct ConversationsDoctests;

#[cfg(test)]
mod tests {
    use super::Revision;

    /// `mcpgen`'s cargo features forward one-to-one to the generated `mcpgen-schema` ones, so a
    /// pinned revision added by `cargo xtask codegen` cannot be silently missing here.
    #[test]
    fn revision_features_forward_to_the_schema_crate() {
        let manifest = include_str!("../Cargo.toml");
        let generated = include_str!("../../generated/Cargo.toml");
        let default = manifest.lines().find(|l| l.starts_with("default = ")).expect("a default feature list");
        for rev in Revision::ALL {
            let feature = format!("rev-{rev}");
            let forward = format!("{feature} = [\"mcpgen-schema/{feature}\"]");
            assert!(manifest.lines().any(|l| l == forward), "mcpgen/Cargo.toml lacks `{forward}`");
            assert!(default.contains(&format!("\"{feature}\"")), "mcpgen's default features lack {feature}");
            assert!(generated.lines().any(|l| l == format!("{feature} = []")), "generated/Cargo.toml lacks {feature}");
        }
        // serde: on by default in both crates, forwarded to the generated impls.
        assert!(manifest.lines().any(|l| l == "serde = [\"mcpgen-schema/serde\"]"), "mcpgen must forward `serde`");
        assert!(default.contains("\"serde\""), "serde is a default feature of mcpgen");
        let generated_default = generated.lines().find(|l| l.starts_with("default = ")).expect("a default list");
        assert!(generated_default.contains("\"serde\""), "serde is a default feature of mcpgen-schema");
        let forwarded = manifest.lines().filter(|l| l.starts_with("rev-")).count();
        assert_eq!(
            forwarded,
            Revision::ALL.len(),
            "mcpgen/Cargo.toml forwards a revision the schema crate does not have"
        );
    }
}
