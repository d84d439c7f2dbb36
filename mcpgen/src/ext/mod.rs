//! The pinned MCP extensions (`[[extension]]` in `schema/sources.toml`), negotiated in
//! `capabilities.extensions`: one folder each (`ext/<name>/`: its generated types and the rules
//! it adds to the core, behind the crate-private hooks: negotiation in `hooks.rs`, the
//! protocol checks' call points in `protocol/hook.rs`, the conversation checker's in
//! `conversation/hook.rs`), and [`Extension`] over them.
//!
//! Each module is generated from the extension's own `schema.json` exactly like a revision
//! module: types, validators, serde, builders, and the method rows of the methods the
//! extension adds ([`tasks::METHODS`], [`tasks::method`]). It carries `EXTENSION_ID` (the
//! capability key), `LAYERS_ON` (the core revision it layers on) and `EXTENSION_METHODS`. The
//! schema's copies of core definitions (`Tool`, `Result`, …) are generated in the module too
//! (`CORE_COPIES` lists those whose shape equals the core revision's, `CORE_DIFFERS` the others),
//! so a value is judged exactly as the extension's schema says.
//!
//! Validation and decoding by definition name work as for revisions:
//!
//! ```
//! use mcpgen::ext::{self, Extension};
//! let tasks = Extension::from_id("io.modelcontextprotocol/tasks").unwrap();
//! assert_eq!(tasks.layers_on().as_str(), "2026-07-28");
//! assert!(tasks.method("tasks/get").is_some());
//! ext::validate(tasks, "GetTaskRequest",
//!     br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t1"}}"#,
//!     mcpgen::Options::default()).unwrap();
//! let err = ext::validate(tasks, "GetTaskRequest",
//!     br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}"#,
//!     mcpgen::Options::default()).unwrap_err();
//! assert!(err.to_string().contains("/params"));
//! ```

use crate::by_name;
use crate::{AnyDecoded, DecodeError, DefEntry, JsonView, Options, Policy};

pub use mcpgen_schema::Extension;

mod hooks;
#[cfg(test)]
mod probe;
mod registry;
pub mod tasks;

pub(crate) use hooks::{Answering, ExtensionHooks, Negotiated};
pub(crate) use registry::hook_registry;

/// The registry: every extension the core calls, one line each, in the order their hooks run
/// (a type-level list: `protocol/hook.rs` and `conversation/hook.rs` loop over it). Adding an extension is its folder `ext/<name>/` and a
/// line here (`docs/maintaining.md`, "Adding an extension").
pub(crate) type Registry = (
    tasks::Tasks, // io.modelcontextprotocol/tasks
    Tail,
);

/// The end of the registry; in unit tests, the probe extension that records every call point.
#[cfg(not(test))]
pub(crate) type Tail = ();
#[cfg(test)]
pub(crate) type Tail = (probe::Probe, ());

/// Looks up a definition of the extension's schema, or says which extension lacks it.
pub fn definition(ext: Extension, name: &str) -> Result<&'static DefEntry, DecodeError> {
    by_name::definition(ext, name)
}

/// Validates JSON bytes against definition `name` of the extension's schema.
pub fn validate(ext: Extension, name: &str, bytes: &[u8], opts: Options) -> Result<(), DecodeError> {
    by_name::validate(ext, name, bytes, opts)
}

/// Whether any JSON view is valid against definition `name` (fail-fast, no error built);
/// `None` when the extension has no such definition.
pub fn is_valid_view<'v, V: JsonView<'v>>(ext: Extension, name: &str, v: &V, opts: Options) -> Option<bool> {
    by_name::is_valid_view(ext, name, v, opts)
}

/// Validates any JSON view against definition `name`: a fail-fast pass, then, only when
/// invalid, a pass that collects every error (each with its JSON pointer).
pub fn validate_view<'v, V: JsonView<'v>>(ext: Extension, name: &str, v: &V, opts: Options) -> Result<(), DecodeError> {
    by_name::validate_view(ext, name, v, opts)
}

/// Decodes JSON bytes as definition `name` of the extension into its generated type.
pub fn decode(ext: Extension, name: &str, bytes: &[u8], policy: Policy) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    by_name::decode(ext, name, bytes, policy)
}

/// Like [`decode()`], from any JSON view.
pub fn decode_view<'v, V: JsonView<'v>>(
    ext: Extension,
    name: &str,
    v: &V,
    policy: Policy,
) -> Result<Box<dyn AnyDecoded>, DecodeError> {
    by_name::decode_view(ext, name, v, policy)
}
