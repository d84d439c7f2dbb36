//! JSON plumbing shared by every generated module: a lossless owned [`Value`], numbers that keep
//! their text ([`Number`]), a borrowed [`Tape`] parser, a compact writer, and the [`JsonView`]
//! trait that lets one generated validator read a tape, a [`Value`], a `serde_json::Value` or
//! (in the Python binding) Python objects.

mod number;
mod parse_options;
pub mod pointer;
mod source;
pub mod tape;
mod value;
mod view;
mod write;

pub use number::Number;
pub use source::{JsonSource, ViewFn};
pub use tape::{ParseError, ParseOptions, Tape, TapeBuffer, TapeView};
pub use value::{Map, ObjectMap, Value};
pub use view::{JsonView, SerdeEntries, ValueEntries};
pub use write::{to_json_string, to_json_vec, JsonWriter, ToJson};

/// The six JSON kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    /// The name used in error messages (`string`, `object`, …).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Parsing and writing together: here, so that the tape and the writer need not know each
    // other.
    fn roundtrip(s: &str) -> String {
        let t = Tape::parse(s).unwrap();
        to_json_string(&t.root().to_value())
    }

    #[test]
    fn parses_and_roundtrips() {
        assert_eq!(
            roundtrip(r#" {"a": [1, 2.50, -0, 1e3], "b": {"c": null, "d": true}, "e": "x\"y\u00e9"} "#),
            r#"{"a":[1,2.50,-0,1e3],"b":{"c":null,"d":true},"e":"x\"yé"}"#
        );
        assert_eq!(roundtrip("[]"), "[]");
        assert_eq!(roundtrip("{}"), "{}");
        assert_eq!(roundtrip(r#""\ud83d\ude00""#), "\"😀\"");
    }
}
