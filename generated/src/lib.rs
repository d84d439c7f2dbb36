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
//! Entry points:
//! - per revision (`rev_2026_07_28`, `rev_2025_11_25`, …, each behind a cargo feature, all on
//!   by default): one type per schema definition, spec names kept; [`Decode`] on each;
//!   `decode_result(method, …)` and the method table `METHODS`;
//! - [`decode()`] / [`validate()`]: by revision and definition name at run time (what the C,
//!   Python and command-line surfaces use);
//! - [`json`]: the lossless JSON value, number and parser the rest is built on.

pub mod decode;
pub mod formats;
pub mod json;
pub mod methods;
pub mod protocol;
pub mod tools;
pub mod icons;
pub mod validate;
mod revisions;

pub use decode::{AnyDecoded, Decode, DecodeError, DefEntry, FromJson, Validate};
pub use json::{JsonView, Number, ToJson, Value};
pub use revisions::*;
pub use validate::{Options, Policy, ValidationError};

use json::Tape;
use validate::{Cx, Path};

/// Looks up a definition, or says which revision lacks it.
pub fn definition(revision: Revision, name: &str) -> Result<&'static DefEntry, DecodeError> {
    revision
        .definition(name)
        .ok_or_else(|| DecodeError::UnknownDefinition { revision: revision.as_str(), name: name.to_owned() })
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
pub fn decode(revision: Revision, name: &str, bytes: &[u8], policy: Policy) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    definition(revision, name)?;
    Tape::with_parsed(bytes, |tape| decode_view(revision, name, &tape.root(), policy))?
}

/// Like [`decode()`], from any JSON view (`&serde_json::Value`, `&mcpgen::Value`, a tape…).
pub fn decode_view<'v, V: JsonView<'v>>(revision: Revision, name: &str, v: &V, policy: Policy) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    let opts = Options::decoding(policy);
    validate_view(revision, name, v, opts)?;
    match revision.build_view(name, v, &decode::Builder::new(opts)) {
        Some(Some(x)) => Ok(x),
        Some(None) => Err(DecodeError::Internal(format!("{name} accepted by the validator but not by the builder"))),
        None => Err(DecodeError::UnknownDefinition { revision: revision.as_str(), name: name.to_owned() }),
    }
}

/// Validates JSON bytes against the definition `name` of `revision` with schema semantics.
pub fn validate(revision: Revision, name: &str, bytes: &[u8], opts: Options) -> Result<(), DecodeError> {
    definition(revision, name)?;
    Tape::with_parsed(bytes, |tape| validate_view(revision, name, &tape.root(), opts))?
}

/// Validates any JSON view against the definition `name` of `revision`: first a fail-fast
/// pass, then, only when invalid, a pass that collects every error.
pub fn validate_view<'v, V: JsonView<'v>>(revision: Revision, name: &str, v: &V, opts: Options) -> Result<(), DecodeError> {
    let unknown = || DecodeError::UnknownDefinition { revision: revision.as_str(), name: name.to_owned() };
    if revision.validate_view(name, v, &Path::Root, &mut Cx::fail_fast(opts)).ok_or_else(unknown)? {
        return Ok(());
    }
    let mut cx = Cx::collecting(opts);
    revision.validate_view(name, v, &Path::Root, &mut cx);
    let errors = cx.into_errors();
    if errors.is_empty() {
        return Err(DecodeError::Internal(format!("{name} rejected without an error message")));
    }
    Err(DecodeError::Invalid(errors))
}
