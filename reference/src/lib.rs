//! The reference MCP peer built on the public API of `mcpgen`: a dual-era server
//! ([`server`], binary `mcpgen-reference-server`), scored by the official conformance suite
//! (`cargo xtask conformance`, `docs/reference.md`). Not published.

pub mod server;
