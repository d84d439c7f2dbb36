//! An owned JSON value that keeps key order and number text.

use super::Number;

/// An ordered JSON object: keys keep the order they were read or inserted in.
///
/// Lookup is linear, which is the fastest choice for the small objects MCP messages carry;
/// [`ObjectMap::get`] returns the last entry for a key, as most JSON parsers do for duplicates.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ObjectMap<T> {
    entries: Vec<(String, T)>,
}

/// A JSON object of arbitrary values.
pub type Map = ObjectMap<Value>;

impl<T> Default for ObjectMap<T> {
    fn default() -> Self {
        ObjectMap { entries: Vec::new() }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for ObjectMap<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.entries.iter().map(|(k, v)| (k, v))).finish()
    }
}

impl<T> ObjectMap<T> {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn with_capacity(n: usize) -> Self {
        ObjectMap { entries: Vec::with_capacity(n) }
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The value for `key` (the last one if the key was duplicated on the wire).
    pub fn get(&self, key: &str) -> Option<&T> {
        self.entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn get_mut(&mut self, key: &str) -> Option<&mut T> {
        self.entries.iter_mut().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn contains_key(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }
    /// Sets `key`, replacing an existing entry in place (keeping its position).
    pub fn insert(&mut self, key: impl Into<String>, value: T) -> Option<T> {
        let key = key.into();
        if let Some(slot) = self.get_mut(&key) {
            return Some(std::mem::replace(slot, value));
        }
        self.entries.push((key, value));
        None
    }
    /// Appends without looking for an existing key (used by decoders to keep wire order).
    pub fn push(&mut self, key: impl Into<String>, value: T) {
        self.entries.push((key.into(), value));
    }
    pub fn remove(&mut self, key: &str) -> Option<T> {
        let pos = self.entries.iter().rposition(|(k, _)| k == key)?;
        Some(self.entries.remove(pos).1)
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &T)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }
    pub fn values(&self) -> impl ExactSizeIterator<Item = &T> {
        self.entries.iter().map(|(_, v)| v)
    }
    pub fn clear(&mut self) {
        self.entries.clear()
    }
    pub(crate) fn entries_slice(&self) -> &[(String, T)] {
        &self.entries
    }
}

impl<T> FromIterator<(String, T)> for ObjectMap<T> {
    fn from_iter<I: IntoIterator<Item = (String, T)>>(iter: I) -> Self {
        let mut m = ObjectMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl<T> IntoIterator for ObjectMap<T> {
    type Item = (String, T);
    type IntoIter = std::vec::IntoIter<(String, T)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// Any JSON value. Unlike `serde_json::Value` it keeps object key order and number text, so a
/// decode/encode round trip reproduces what was read.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map),
}

impl Value {
    pub fn kind(&self) -> super::Kind {
        use super::Kind;
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    /// Member lookup on objects; `None` for other kinds.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }
}

impl From<&serde_json::Value> for Value {
    fn from(v: &serde_json::Value) -> Self {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Number(n.into()),
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(a) => Value::Array(a.iter().map(Value::from).collect()),
            serde_json::Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), Value::from(v))).collect()),
        }
    }
}

impl From<&Value> for serde_json::Value {
    fn from(v: &Value) -> Self {
        match v {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::Value::Number(n.into()),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Array(a) => serde_json::Value::Array(a.iter().map(Into::into).collect()),
            Value::Object(m) => serde_json::Value::Object(m.iter().map(|(k, v)| (k.to_owned(), v.into())).collect()),
        }
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<Number> for Value {
    fn from(n: Number) -> Self {
        Value::Number(n)
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Object(m)
    }
}
impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Self {
        Value::Array(a)
    }
}
