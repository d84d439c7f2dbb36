//! Choosing the unknown-key policy on the serde path (cargo feature `serde`).
//!
//! A generated type's `Deserialize` decodes with the lossless policy (undeclared keys kept in
//! `extra` and re-emitted). For a field of your own serde type that must be strict (refuse
//! undeclared keys) or lenient (accept and drop them), name one of these functions:
//!
//! ```
//! use mcpgen::rev_2026_07_28::TextContent;
//!
//! #[derive(serde::Deserialize)]
//! struct Envelope {
//!     #[serde(deserialize_with = "mcpgen::serde_policy::strict")]
//!     strict: TextContent,
//!     #[serde(deserialize_with = "mcpgen::serde_policy::lenient")]
//!     lenient: TextContent,
//! }
//!
//! let ok: Envelope = serde_json::from_str(
//!     r#"{"strict":{"type":"text","text":"a"},"lenient":{"type":"text","text":"b","x":1}}"#,
//! ).unwrap();
//! assert!(ok.lenient.extra.is_empty());
//! let err = serde_json::from_str::<Envelope>(
//!     r#"{"strict":{"type":"text","text":"a","x":1},"lenient":{"type":"text","text":"b"}}"#,
//! ).err().unwrap();
//! // The pointer is relative to the value serde handed over (`/x` inside `strict`).
//! assert!(err.to_string().starts_with("invalid TextContent: /x: unknown property `x`"), "{err}");
//! ```
//!
//! Outside serde, the native API takes the policy per call:
//! `T::decode_bytes(bytes, Policy::Strict)`, `mcpgen::decode(rev, name, bytes, policy)`.

use crate::{Decode, Policy};

/// Deserializes with the strict policy: undeclared keys on closed-by-intent objects are refused
/// (`_meta` and `additionalProperties` maps still accept theirs).
pub fn strict<'de, T: Decode, D: serde::Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    with_policy(d, Policy::Strict)
}

/// Deserializes with the lenient policy: undeclared keys are accepted and dropped.
pub fn lenient<'de, T: Decode, D: serde::Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    with_policy(d, Policy::Lenient)
}

/// Deserializes with the lossless policy (what `T::deserialize` does).
pub fn lossless<'de, T: Decode, D: serde::Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    with_policy(d, Policy::Lossless)
}

/// Deserializes a generated type with any policy: the generated validator and builder behind
/// serde's interface, as `T::deserialize` but with `policy`.
pub fn with_policy<'de, T: Decode, D: serde::Deserializer<'de>>(d: D, policy: Policy) -> Result<T, D::Error> {
    mcpgen_runtime::__rt::serde_glue::deserialize_with_policy(d, policy)
}
