//! Read access to any JSON representation.

use std::borrow::Cow;

use super::{Kind, Map, Number, Value};

/// Read-only access to one JSON value in some representation.
///
/// Generated validators and decoders are generic over this trait, so the same code checks a
/// [`super::Tape`] parsed from bytes, an owned [`Value`], a `serde_json::Value`, or Python
/// objects. `'v` is the lifetime of strings borrowed from the underlying data.
pub trait JsonView<'v>: Clone {
    type Entries: Iterator<Item = (Cow<'v, str>, Self)>;
    type Items: Iterator<Item = Self>;

    fn kind(&self) -> Kind;
    fn as_bool(&self) -> Option<bool>;
    /// String contents with escapes decoded.
    fn as_str(&self) -> Option<Cow<'v, str>>;
    /// Compares a string value without allocating where the representation allows.
    fn str_eq(&self, s: &str) -> bool {
        matches!(self.as_str(), Some(x) if x == s)
    }
    /// True for numbers with an integral value (JSON Schema `integer`, so `1.0` counts).
    fn is_integer(&self) -> bool;
    fn as_f64(&self) -> Option<f64>;
    /// The number with its text preserved where the representation has it.
    fn to_number(&self) -> Option<Number>;
    /// Object member (the last one for duplicated keys).
    fn get(&self, key: &str) -> Option<Self>;
    /// Number of entries (objects) or elements (arrays); 0 otherwise.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Object entries in order (empty for non-objects).
    fn entries(&self) -> Self::Entries;
    /// Array elements in order (empty for non-arrays).
    fn items(&self) -> Self::Items;

    /// Appends to `out` a form of this value read straight from its source text, without
    /// decoding anything, where the representation keeps that text (a parsed
    /// [`super::Tape`]); returns `false`, appending nothing, where it does not. Two values that
    /// append the same bytes are the same JSON text up to the whitespace around the value, so
    /// a digest of the form tells a value already seen from a new one cheaply; the same value
    /// written differently (other whitespace, escapes, number text) appends different bytes.
    #[doc(hidden)]
    fn source_form(&self, out: &mut Vec<u8>) -> bool {
        let _ = out;
        false
    }

    /// A short rendering for error messages ("number `5`", "object").
    fn describe(&self) -> String {
        match self.kind() {
            Kind::Null => "null".into(),
            Kind::Bool => format!("boolean `{}`", self.as_bool().unwrap_or(false)),
            Kind::Number => format!("number `{}`", self.to_number().map(|n| n.to_string()).unwrap_or_default()),
            Kind::String => {
                let s = self.as_str().unwrap_or_default();
                if s.chars().count() > 40 {
                    let cut: String = s.chars().take(40).collect();
                    format!("string {cut:?}…")
                } else {
                    format!("string {s:?}")
                }
            }
            Kind::Array => format!("array of {} elements", self.len()),
            Kind::Object => "object".into(),
        }
    }

    /// Copies the value into an owned [`Value`].
    fn to_value(&self) -> Value {
        match self.kind() {
            Kind::Null => Value::Null,
            Kind::Bool => Value::Bool(self.as_bool().unwrap_or(false)),
            Kind::Number => self.to_number().map(Value::Number).unwrap_or(Value::Null),
            Kind::String => Value::String(self.as_str().map(Cow::into_owned).unwrap_or_default()),
            Kind::Array => Value::Array(self.items().map(|v| v.to_value()).collect()),
            Kind::Object => {
                let mut m = Map::with_capacity(self.len());
                for (k, v) in self.entries() {
                    m.push(k.into_owned(), v.to_value());
                }
                Value::Object(m)
            }
        }
    }
}

/// Entries of an owned [`Value`] object, keys borrowed (empty for non-objects).
#[derive(Clone, Debug)]
pub struct ValueEntries<'v>(std::slice::Iter<'v, (String, Value)>);

impl<'v> Iterator for ValueEntries<'v> {
    type Item = (Cow<'v, str>, &'v Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (Cow::Borrowed(k.as_str()), v))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

/// Entries of a `serde_json::Value` object, keys borrowed (empty for non-objects).
#[derive(Clone, Debug)]
pub struct SerdeEntries<'v>(Option<serde_json::map::Iter<'v>>);

impl<'v> Iterator for SerdeEntries<'v> {
    type Item = (Cow<'v, str>, &'v serde_json::Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.as_mut()?.next().map(|(k, v)| (Cow::Borrowed(k.as_str()), v))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.as_ref().map_or((0, Some(0)), |it| it.size_hint())
    }
}

impl<'v> JsonView<'v> for &'v Value {
    type Entries = ValueEntries<'v>;
    type Items = std::slice::Iter<'v, Value>;

    #[inline]
    fn kind(&self) -> Kind {
        Value::kind(self)
    }
    #[inline]
    fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    #[inline]
    fn as_str(&self) -> Option<Cow<'v, str>> {
        match *self {
            Value::String(s) => Some(Cow::Borrowed(s.as_str())),
            _ => None,
        }
    }
    #[inline]
    fn str_eq(&self, s: &str) -> bool {
        matches!(self, Value::String(x) if x == s)
    }
    #[inline]
    fn is_integer(&self) -> bool {
        matches!(self, Value::Number(n) if n.is_integer())
    }
    #[inline]
    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(n.as_f64()),
            _ => None,
        }
    }
    fn to_number(&self) -> Option<Number> {
        match self {
            Value::Number(n) => Some(n.clone()),
            _ => None,
        }
    }
    #[inline]
    fn get(&self, key: &str) -> Option<Self> {
        match *self {
            Value::Object(m) => m.get(key),
            _ => None,
        }
    }
    #[inline]
    fn len(&self) -> usize {
        match self {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        }
    }
    #[inline]
    fn entries(&self) -> Self::Entries {
        let slice: &'v [(String, Value)] = match *self {
            Value::Object(m) => m.as_slice(),
            _ => &[],
        };
        ValueEntries(slice.iter())
    }
    #[inline]
    fn items(&self) -> Self::Items {
        match *self {
            Value::Array(a) => a.iter(),
            _ => [].iter(),
        }
    }
    fn to_value(&self) -> Value {
        (*self).clone()
    }
}

impl<'v> JsonView<'v> for &'v serde_json::Value {
    type Entries = SerdeEntries<'v>;
    type Items = std::slice::Iter<'v, serde_json::Value>;

    #[inline]
    fn kind(&self) -> Kind {
        match self {
            serde_json::Value::Null => Kind::Null,
            serde_json::Value::Bool(_) => Kind::Bool,
            serde_json::Value::Number(_) => Kind::Number,
            serde_json::Value::String(_) => Kind::String,
            serde_json::Value::Array(_) => Kind::Array,
            serde_json::Value::Object(_) => Kind::Object,
        }
    }
    #[inline]
    fn as_bool(&self) -> Option<bool> {
        serde_json::Value::as_bool(self)
    }
    #[inline]
    fn as_str(&self) -> Option<Cow<'v, str>> {
        match *self {
            serde_json::Value::String(s) => Some(Cow::Borrowed(s.as_str())),
            _ => None,
        }
    }
    #[inline]
    fn str_eq(&self, s: &str) -> bool {
        matches!(self, serde_json::Value::String(x) if x == s)
    }
    #[inline]
    fn is_integer(&self) -> bool {
        match self {
            serde_json::Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
            }
            _ => false,
        }
    }
    #[inline]
    fn as_f64(&self) -> Option<f64> {
        serde_json::Value::as_f64(self)
    }
    fn to_number(&self) -> Option<Number> {
        match self {
            serde_json::Value::Number(n) => Some(n.into()),
            _ => None,
        }
    }
    #[inline]
    fn get(&self, key: &str) -> Option<Self> {
        serde_json::Value::get(self, key)
    }
    #[inline]
    fn len(&self) -> usize {
        match self {
            serde_json::Value::Object(m) => m.len(),
            serde_json::Value::Array(a) => a.len(),
            _ => 0,
        }
    }
    #[inline]
    fn entries(&self) -> Self::Entries {
        match *self {
            serde_json::Value::Object(m) => SerdeEntries(Some(m.iter())),
            _ => SerdeEntries(None),
        }
    }
    #[inline]
    fn items(&self) -> Self::Items {
        match *self {
            serde_json::Value::Array(a) => a.iter(),
            _ => [].iter(),
        }
    }
}
