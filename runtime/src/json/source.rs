//! [`JsonSource`]: what a function that reads JSON takes, so one entry point serves bytes, text
//! and every [`JsonView`] (a tape, a `Value`, a `serde_json::Value`, Python objects).

use super::{JsonView, ParseError, Tape};

/// JSON a function can read: text, parsed on the spot (`[u8]`, `str`, `Vec<u8>`, `String`, byte
/// arrays; not UTF-8 or not JSON is a [`ParseError`]), a [`Value`](super::Value) or a
/// `serde_json::Value`, or any [`JsonView`] (a tape's root, …), read in place.
///
/// ```
/// use mcpgen_runtime::json::{JsonSource, JsonView, Tape, Value};
///
/// fn count_members(input: &(impl JsonSource + ?Sized)) -> Result<usize, mcpgen_runtime::json::ParseError> {
///     input.read(Len)
/// }
/// struct Len;
/// impl mcpgen_runtime::json::ViewFn for Len {
///     type Output = usize;
///     fn call<'v, V: JsonView<'v>>(self, v: &V) -> usize {
///         v.len()
///     }
/// }
/// assert_eq!(count_members(br#"{"a":1,"b":2}"#).unwrap(), 2);
/// assert_eq!(count_members(r#"{"a":1}"#).unwrap(), 1);
/// let tape = Tape::parse("[1,2,3]").unwrap();
/// assert_eq!(count_members(&tape.root()).unwrap(), 3);
/// let value = Value::Array(vec![Value::Null]);
/// assert_eq!(count_members(&value).unwrap(), 1);
/// assert_eq!(count_members(&serde_json::json!({"k": [1]})).unwrap(), 1);
/// assert!(count_members(b"{").is_err());
/// ```
pub trait JsonSource {
    /// Runs `f` on the JSON: on a tape parsed from text, or on the view itself.
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError>;
}

/// A function over any [`JsonView`] (what [`JsonSource::read`] runs): closures cannot be generic
/// over the view type, so the callers of `read` name theirs.
pub trait ViewFn {
    type Output;
    fn call<'v, V: JsonView<'v>>(self, v: &V) -> Self::Output;
}

impl JsonSource for [u8] {
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError> {
        Tape::with_parsed(self, |tape| f.call(&tape.root()))
    }
}

impl<const N: usize> JsonSource for [u8; N] {
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError> {
        self[..].read(f)
    }
}

impl JsonSource for Vec<u8> {
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError> {
        self[..].read(f)
    }
}

impl JsonSource for str {
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError> {
        self.as_bytes().read(f)
    }
}

impl JsonSource for String {
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError> {
        self.as_bytes().read(f)
    }
}

impl JsonSource for super::Value {
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError> {
        Ok(f.call(&self))
    }
}

impl JsonSource for serde_json::Value {
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError> {
        Ok(f.call(&self))
    }
}

impl<'v, V: JsonView<'v>> JsonSource for V {
    fn read<F: ViewFn>(&self, f: F) -> Result<F::Output, ParseError> {
        Ok(f.call(self))
    }
}
