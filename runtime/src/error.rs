//! [`CoreError`]: what every error of mcpgen's family says the same way, so that a surface (the C
//! library, the Python package, the CLI) marshals any of them without deciding anything itself.

use std::borrow::Cow;

use crate::json::{Map, Value};
use crate::validate::{UnknownPolicy, ValidationError};

/// The error family's common face: a stable kind, the rule id, the error as
/// [`ValidationError`] entries, and one JSON form.
///
/// Every error type of the core implements it (`DecodeError`, `ParseError`, `BuildError`,
/// `UnknownPolicy` here; `ProtocolError`, `ResponseError`, `ResultError`, `MetaKeyError`,
/// `OtelError`, the `http`, `icons` and `tools` errors in `mcpgen`; `mcpgen/tests/error_family.rs`
/// lists them). Surfaces map an error to their own
/// types by its variant and read everything else from this trait, never from its text.
///
/// ```
/// use mcpgen_runtime::json::Tape;
/// use mcpgen_runtime::{CoreError, DecodeError};
///
/// let e = DecodeError::from(Tape::parse("{not json").unwrap_err());
/// assert_eq!(e.kind(), "parse");
/// let entries = e.errors();
/// assert_eq!((entries[0].pointer.as_str(), entries[0].keyword), ("", "parse"));
/// assert_eq!(e.to_json().get("kind").and_then(|k| k.as_str()), Some("parse"));
/// ```
pub trait CoreError: std::error::Error {
    /// Stable snake_case name of the error's kind (`parse`, `invalid`, `unknown_method`,
    /// `label_start`, `scheme_not_allowed`, …): what the vectors and the surfaces key on.
    fn kind(&self) -> &'static str;

    /// The rule id when one protocol rule decides the error (`MSG-9`, `META-1`, `VER-1`, …).
    fn rule(&self) -> Option<&'static str>;

    /// The error as entries, never empty: the validation errors when it comes from validation,
    /// else one entry with its pointer, the keyword that would express it, its rule and message.
    fn errors(&self) -> Cow<'_, [ValidationError]>;

    /// `{"kind", "rule", "message", "errors": [...]}`: `rule` `null` when none, `message` the
    /// error's `Display`, `errors` each in [`ValidationError::to_json`]'s form.
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.push("kind", Value::String(self.kind().to_owned()));
        m.push("rule", self.rule().map_or(Value::Null, |r| Value::String(r.to_owned())));
        m.push("message", Value::String(self.to_string()));
        m.push("errors", Value::Array(self.errors().iter().map(ValidationError::to_json).collect()));
        Value::Object(m)
    }
}

/// The one entry of an error that is not a list of validation errors (what `CoreError::errors`
/// returns for most of the family).
pub fn single(
    pointer: impl Into<String>,
    keyword: &'static str,
    rule: Option<&'static str>,
    message: impl Into<String>,
) -> Cow<'static, [ValidationError]> {
    Cow::Owned(vec![ValidationError::new(pointer, keyword, message).with_rule(rule)])
}

impl CoreError for UnknownPolicy {
    fn kind(&self) -> &'static str {
        UnknownPolicy::kind(self)
    }
    fn rule(&self) -> Option<&'static str> {
        None
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        single("", "enum", None, self.to_string())
    }
}
