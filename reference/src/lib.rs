//! The reference MCP peers built on the public API of `mcpgen`: a dual-era server
//! ([`server`], binary `mcpgen-reference-server`) and client ([`client`], binary
//! `mcpgen-reference-client`), scored by the official conformance suite
//! (`cargo xtask conformance`, `docs/reference.md`) and run against the official SDKs by the
//! crate `mcpgen-interop` (`interop/`, `cargo xtask interop`). Not published.

pub mod client;
pub mod log;
pub mod server;
