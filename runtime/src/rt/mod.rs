//! What generated code calls: validation context and primitives, decode plumbing, formats.
//! Not public API: the `mcpgen` crate re-exports the parts users need.

pub mod build;
pub mod decode;
pub mod formats;
mod options;
#[cfg(feature = "serde")]
pub mod serde_glue;
pub mod validate;

pub use crate::error::single;
pub use crate::json;
pub use crate::methods;
