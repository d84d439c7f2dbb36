//! The reference MCP peers built on the public API of `mcpgen`: a dual-era server
//! ([`server`], binary `mcpgen-reference-server`) and client ([`client`], binary
//! `mcpgen-reference-client`), scored by the official conformance suite
//! (`cargo xtask conformance`, `docs/reference.md`), and the harness that runs the official
//! SDKs against them ([`interop`], binary `mcpgen-interop`, `cargo xtask interop`). Not
//! published.

pub mod client;
pub mod interop;
pub mod log;
pub mod server;
