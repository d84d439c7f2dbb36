//! The pinned MCP extensions, one generated module each (from `schema/sources.toml`'s
//! `[[extension]]` entries), negotiated in `capabilities.extensions`.
//!
//! Each module is generated from the extension's own `schema.json` exactly like a revision
//! module: types, validators ([`tasks::definition`]`(name)` → a [`DefEntry`](crate::DefEntry)
//! whose `validate` / `decode` work on any JSON), serde, builders, and the method rows of the
//! methods the extension adds ([`tasks::METHODS`], [`tasks::method`]). It also carries
//! `EXTENSION_ID` (the capability key), `LAYERS_ON` (the core revision it layers on) and
//! `EXTENSION_METHODS`. The schema's copies of core definitions (`Tool`, `Result`, …) are
//! generated in the module too (listed in `CORE_COPIES` / `CORE_DIFFERS`), so a value is judged
//! exactly as the extension's schema says.

/// The Tasks extension (`io.modelcontextprotocol/tasks`), layering on revision 2026-07-28.
#[cfg(feature = "ext-tasks")]
pub use mcpgen_schema::ext_tasks as tasks;

/// `(extension id, revision it layers on, method names it adds)` of every extension in this
/// build.
pub const ALL: &[(&str, &str, &[&str])] = &[
    #[cfg(feature = "ext-tasks")]
    (tasks::EXTENSION_ID, tasks::LAYERS_ON, tasks::EXTENSION_METHODS),
];
