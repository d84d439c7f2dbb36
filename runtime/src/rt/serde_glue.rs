//! serde glue (cargo feature `serde`): what the generated `Serialize` / `Deserialize` impls
//! call, and serde impls for the JSON building blocks ([`Value`], [`Number`], [`ObjectMap`]).
//!
//! `Deserialize` of a generated type is the generated decoder behind serde's interface, never
//! a second decoder: the serde input is read once, through a [`Visitor`], into a [`Tape`] (the
//! structure the native byte decoder reads: one node array, one text buffer holding every
//! string and number), then the type's generated validator and builder run on that tape with
//! the lossless policy. So serde accepts exactly what the validator accepts, fails with the
//! validator's messages and JSON pointers, and decodes unions by their IR strategy; and since
//! it is the same `TapeView` the byte decoder uses, no second copy of the validators is
//! instantiated. Buffers come from a small per-thread pool, so decoding message after message
//! does not allocate for the tape.
//!
//! What serde cannot carry: number text. serde's data model hands over `u64`, `i64` or `f64`,
//! so `0.50` comes back as `0.5` and `1e3` as `1000.0` (equal values); the native
//! `Decode::decode_bytes` / `ToJson` path keeps the lexeme.

use std::cell::Cell;
use std::fmt::{self, Write as _};

use ::serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{self, SerializeMap, SerializeSeq, Serializer};

pub use ::serde as _serde;

use crate::decode::{Decode, DecodeError};
use crate::json::tape::{Node, Tag, DEFAULT_MAX_DEPTH};
use crate::json::{Number, ObjectMap, Tape, Value};
use crate::validate::{Options, Policy};

// ---- Deserialize: serde input → tape → generated validator and builder ------------------------

/// Deserializes a generated type `T` with the lossless policy (what generated `Deserialize`
/// impls call).
#[inline]
pub fn deserialize<'de, T: Decode, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    deserialize_with_policy(d, Policy::Lossless)
}

/// Deserializes a generated type `T` with the given unknown-key policy (for
/// `#[serde(deserialize_with = …)]` helpers).
pub fn deserialize_with_policy<'de, T: Decode, D: Deserializer<'de>>(d: D, policy: Policy) -> Result<T, D::Error> {
    let mut reader = TapeReader::take();
    let read = d.deserialize_any(&mut reader);
    let decoded = read.map(|()| {
        let tape = Tape::from_parts(&reader.text, std::mem::take(&mut reader.nodes));
        let decoded = T::decode_view(&tape.root(), Options::decoding(policy));
        reader.nodes = tape.into_nodes();
        decoded
    });
    reader.give_back();
    match decoded? {
        Ok(v) => Ok(v),
        Err(e) => Err(de::Error::custom(DecodeFailure { name: T::NAME, error: e })),
    }
}

/// The serde error text of a refused value: the validator's messages with their JSON pointers
/// (relative to the value being deserialized), one line each.
struct DecodeFailure {
    name: &'static str,
    error: DecodeError,
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.error {
            DecodeError::Invalid(errors) => {
                write!(f, "invalid {}: ", self.name)?;
                for (i, e) in errors.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
            other => write!(f, "invalid {}: {other}", self.name),
        }
    }
}

thread_local! {
    static SPARE: Cell<(String, Vec<Node>)> = const { Cell::new((String::new(), Vec::new())) };
}

/// Largest text buffer (bytes) the per-thread pool keeps.
const POOL_MAX_TEXT: usize = 1 << 20;

/// Builds a [`Tape`] from serde's events: strings and number lexemes go into `text`, nodes
/// follow the tape layout (containers: element count and the index one past their subtree).
struct TapeReader {
    text: String,
    nodes: Vec<Node>,
    depth: usize,
}

impl TapeReader {
    fn take() -> TapeReader {
        let (mut text, mut nodes) = SPARE.try_with(Cell::take).unwrap_or_default();
        text.clear();
        nodes.clear();
        TapeReader { text, nodes, depth: 0 }
    }

    fn give_back(self) {
        if self.text.capacity() <= POOL_MAX_TEXT && self.nodes.capacity() <= crate::json::tape::POOL_MAX_NODES {
            let _ = SPARE.try_with(|cell| cell.set((self.text, self.nodes)));
        }
    }

    /// Appends `s` to the text and returns its offset and length as node fields.
    #[inline]
    fn push_text<E: de::Error>(&mut self, s: &str) -> Result<(u32, u32), E> {
        let start = self.text.len();
        if start + s.len() >= u32::MAX as usize {
            return Err(E::custom("input larger than 4 GiB"));
        }
        self.text.push_str(s);
        Ok((start as u32, s.len() as u32))
    }

    #[inline]
    fn scalar<E: de::Error>(&mut self, tag: Tag, text: &str) -> Result<(), E> {
        let (a, b) = self.push_text(text)?;
        self.nodes.push(Node { tag, a, b });
        Ok(())
    }

    #[inline]
    fn open<E: de::Error>(&mut self, tag: Tag) -> Result<usize, E> {
        if self.depth >= DEFAULT_MAX_DEPTH {
            return Err(E::custom(format_args!("nesting deeper than {DEFAULT_MAX_DEPTH} levels")));
        }
        self.depth += 1;
        let idx = self.nodes.len();
        if idx >= u32::MAX as usize {
            return Err(E::custom("input larger than 4 GiB"));
        }
        self.nodes.push(Node { tag, a: 0, b: 0 });
        Ok(idx)
    }

    #[inline]
    fn close(&mut self, idx: usize, count: u32) {
        self.depth -= 1;
        let end = self.nodes.len() as u32;
        let node = &mut self.nodes[idx];
        node.a = count;
        node.b = end;
    }

    fn float<E: de::Error>(&mut self, v: f64) -> Result<(), E> {
        if !v.is_finite() {
            return Err(E::custom(format_args!("{v} is not a JSON number")));
        }
        // `{:?}` is the shortest text that reads back as `v`, and always a JSON number
        // lexeme (`0.5`, `1.0`, `1e300`, `-0.0`).
        let start = self.text.len();
        let _ = write!(self.text, "{v:?}");
        let len = self.text.len() - start;
        self.nodes.push(Node { tag: Tag::Num, a: start as u32, b: len as u32 });
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for &mut TapeReader {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut TapeReader {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        if v {
            self.scalar(Tag::True, "true")
        } else {
            self.scalar(Tag::False, "false")
        }
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        let mut buf = itoa::Buffer::new();
        self.scalar(Tag::Int, buf.format(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        let mut buf = itoa::Buffer::new();
        self.scalar(Tag::Int, buf.format(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<(), E> {
        self.scalar(Tag::Int, &v.to_string())
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<(), E> {
        self.scalar(Tag::Int, &v.to_string())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.float(v)
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<(), E> {
        self.scalar(Tag::Str, v.encode_utf8(&mut [0; 4]))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.scalar(Tag::Str, v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar(Tag::Null, "null")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.scalar(Tag::Null, "null")
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let idx = self.open(Tag::Array)?;
        let mut count = 0u32;
        while seq.next_element_seed(&mut *self)?.is_some() {
            count += 1;
        }
        self.close(idx, count);
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let idx = self.open(Tag::Object)?;
        let mut count = 0u32;
        while map.next_key_seed(KeySeed(&mut *self))?.is_some() {
            map.next_value_seed(&mut *self)?;
            count += 1;
        }
        self.close(idx, count);
        Ok(())
    }
}

/// An object key: a string node.
struct KeySeed<'r>(&'r mut TapeReader);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.scalar(Tag::Str, v)
    }
}

/// Deserializes a string `const` (the literal types).
pub fn deserialize_str_literal<'de, D: Deserializer<'de>>(d: D, value: &'static str) -> Result<(), D::Error> {
    struct Lit(&'static str);
    impl<'de> Visitor<'de> for Lit {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "the constant {:?}", self.0)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
            if v == self.0 {
                Ok(())
            } else {
                Err(E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
    }
    d.deserialize_str(Lit(value))
}

/// Deserializes an integer `const` (error codes such as `-32602`; `-32602.0` counts, as for
/// the validator).
pub fn deserialize_int_literal<'de, D: Deserializer<'de>>(d: D, value: i64) -> Result<(), D::Error> {
    struct Lit(i64);
    impl Lit {
        fn check<E: de::Error>(&self, ok: bool, found: de::Unexpected<'_>) -> Result<(), E> {
            if ok {
                Ok(())
            } else {
                Err(E::invalid_value(found, self))
            }
        }
    }
    impl<'de> Visitor<'de> for Lit {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "the constant {}", self.0)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
            self.check(v == self.0, de::Unexpected::Signed(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
            self.check(i64::try_from(v) == Ok(self.0), de::Unexpected::Unsigned(v))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
            self.check(v == self.0 as f64, de::Unexpected::Float(v))
        }
    }
    d.deserialize_any(Lit(value))
}

// ---- Serialize helpers ------------------------------------------------------------------------

/// Writes the members of `extra` / `additional` into an open map (after the declared ones, as
/// `ToJson` does).
#[inline]
pub fn members<M: SerializeMap, T: ser::Serialize>(m: &mut M, map: &ObjectMap<T>) -> Result<(), M::Error> {
    for (k, v) in map.iter() {
        m.serialize_entry(k, v)?;
    }
    Ok(())
}

impl ser::Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some(v) = self.as_u64() {
            if self.is_integer_literal() {
                return s.serialize_u64(v);
            }
        }
        if let Some(v) = self.as_i64() {
            if self.is_integer_literal() {
                return s.serialize_i64(v);
            }
        }
        // Fractions, exponents, `-0` and integers beyond 64 bits: serde has no lexeme.
        s.serialize_f64(self.as_f64())
    }
}

impl<T: ser::Serialize> ser::Serialize for ObjectMap<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.len()))?;
        members(&mut m, self)?;
        m.end()
    }
}

impl ser::Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(v) => s.serialize_str(v),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            Value::Object(m) => m.serialize(s),
        }
    }
}

// ---- Deserialize for the building blocks ------------------------------------------------------

impl<'de> de::Deserialize<'de> for Value {
    /// Any JSON value, key order and duplicates kept (numbers as serde gives them).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        let mut reader = TapeReader::take();
        let read = d.deserialize_any(&mut reader);
        let value = read.map(|()| {
            use crate::json::JsonView;
            let tape = Tape::from_parts(&reader.text, std::mem::take(&mut reader.nodes));
            let value = tape.root().to_value();
            reader.nodes = tape.into_nodes();
            value
        });
        reader.give_back();
        value
    }
}

impl<'de> de::Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        match Value::deserialize(d)? {
            Value::Number(n) => Ok(n),
            other => Err(de::Error::custom(format_args!("expected a number, found {}", other.kind().name()))),
        }
    }
}

impl<'de, T: de::Deserialize<'de>> de::Deserialize<'de> for ObjectMap<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ObjectMap<T>, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: de::Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = ObjectMap<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ObjectMap<T>, A::Error> {
                let mut out = ObjectMap::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((k, v)) = map.next_entry::<String, T>()? {
                    out.push(k, v);
                }
                Ok(out)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}
