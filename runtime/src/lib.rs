//! # mcpgen-runtime
//!
//! The hand-written base of mcpgen, which knows nothing of any MCP schema: the lossless JSON
//! tape parser, [`Value`] and [`Number`] (which keeps the text it was read from), the
//! [`JsonView`] trait every generated validator reads through, the decode traits, [`Policy`] and
//! [`Options`], [`ValidationError`] and [`CoreError`] (what every error of the family says the
//! same way), and the types of the rules catalogue ([`rules`]).
//!
//! Use it through the `mcpgen` crate, which re-exports what users need. Generated code (crate
//! `mcpgen-schema`) calls the validation primitives in the hidden [`__rt`] module, which is not
//! part of the public API.

mod error;
pub mod json;
pub mod methods;
pub mod rules;

#[doc(hidden)]
#[path = "rt/mod.rs"]
pub mod __rt;

// Paths inside this crate (`crate::decode::…`) read as they did before the split.
use __rt::{build, decode, formats, validate};

pub use build::BuildError;
pub use decode::{
    AnyDecoded, Decode, DecodeError, DecodedResult, DefEntry, FieldEntry, FromJson, SkippedItem, Validate,
};
pub use error::CoreError;
pub use json::{JsonSource, JsonView, Number, ToJson, Value};
pub use validate::{ArmFailure, Options, Policy, UnknownPolicy, ValidationError};
