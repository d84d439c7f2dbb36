//! Compact JSON output.

use super::tape::scan_string;
use super::{Map, Number, ObjectMap, Value};

/// Appends compact JSON text to a byte buffer.
///
/// Separators are derived from the previous byte (`{`/`[` means "first member"), so generated
/// encoders need no state beyond the buffer.
#[derive(Default, Debug)]
pub struct JsonWriter {
    buf: Vec<u8>,
}

impl JsonWriter {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn with_buffer(mut buf: Vec<u8>) -> Self {
        buf.clear();
        JsonWriter { buf }
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }
    #[inline]
    pub fn begin_object(&mut self) {
        self.buf.push(b'{');
    }
    #[inline]
    pub fn end_object(&mut self) {
        self.buf.push(b'}');
    }
    #[inline]
    pub fn begin_array(&mut self) {
        self.buf.push(b'[');
    }
    #[inline]
    pub fn end_array(&mut self) {
        self.buf.push(b']');
    }
    /// Starts an object member: separator, quoted key and colon.
    #[inline]
    pub fn key(&mut self, key: &str) {
        self.separator();
        self.string(key);
        self.buf.push(b':');
    }
    /// Starts an array element (writes the separator).
    #[inline]
    pub fn element(&mut self) {
        self.separator();
    }
    #[inline]
    fn separator(&mut self) {
        if !matches!(self.buf.last(), Some(b'{' | b'[') | None) {
            self.buf.push(b',');
        }
    }
    pub fn null(&mut self) {
        self.buf.extend_from_slice(b"null");
    }
    pub fn bool(&mut self, b: bool) {
        self.buf.extend_from_slice(if b { b"true" } else { b"false" });
    }
    pub fn number(&mut self, n: &Number) {
        n.write_to(&mut self.buf);
    }
    /// Writes an integer literal (for `const` codes).
    pub fn int(&mut self, v: i64) {
        self.buf.extend_from_slice(v.to_string().as_bytes());
    }
    /// Writes a quoted, escaped string: the runs of plain bytes are found with the parser's
    /// string scan (the same stop set: `"`, `\\`, control characters) and copied whole.
    pub fn string(&mut self, s: &str) {
        self.buf.push(b'"');
        let bytes = s.as_bytes();
        let mut start = 0;
        loop {
            let (stop, _) = scan_string(bytes, start);
            self.buf.extend_from_slice(&bytes[start..stop]);
            let Some(&c) = bytes.get(stop) else { break };
            let esc: &[u8] = match c {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                _ => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.buf.extend_from_slice(&[
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[usize::from(c >> 4)],
                        HEX[usize::from(c & 15)],
                    ]);
                    start = stop + 1;
                    continue;
                }
            };
            self.buf.extend_from_slice(esc);
            start = stop + 1;
        }
        self.buf.push(b'"');
    }
}

/// Types that write themselves as JSON.
pub trait ToJson {
    fn write_json(&self, w: &mut JsonWriter);

    /// Compact JSON bytes.
    fn to_json_vec(&self) -> Vec<u8> {
        let mut w = JsonWriter::new();
        self.write_json(&mut w);
        w.into_bytes()
    }
    /// Compact JSON text.
    fn to_json_string(&self) -> String {
        String::from_utf8(self.to_json_vec()).expect("the JSON writer only writes UTF-8")
    }
    /// As an owned [`Value`] (via the text, so number lexemes survive).
    fn to_value(&self) -> Value {
        let bytes = self.to_json_vec();
        match super::Tape::parse_bytes(&bytes) {
            Ok(t) => super::JsonView::to_value(&t.root()),
            Err(_) => Value::Null,
        }
    }
}

impl Value {
    /// Compact JSON text.
    pub fn to_json_string(&self) -> String {
        to_json_string(self)
    }
}

/// Compact JSON text of any [`ToJson`] value.
pub fn to_json_string<T: ToJson + ?Sized>(v: &T) -> String {
    v.to_json_string()
}

/// Compact JSON bytes of any [`ToJson`] value.
pub fn to_json_vec<T: ToJson + ?Sized>(v: &T) -> Vec<u8> {
    v.to_json_vec()
}

impl ToJson for Value {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            Value::Null => w.null(),
            Value::Bool(b) => w.bool(*b),
            Value::Number(n) => w.number(n),
            Value::String(s) => w.string(s),
            Value::Array(a) => a.write_json(w),
            Value::Object(m) => m.write_json(w),
        }
    }
    fn to_value(&self) -> Value {
        self.clone()
    }
}

impl<T: ToJson> ToJson for ObjectMap<T> {
    fn write_json(&self, w: &mut JsonWriter) {
        w.begin_object();
        self.write_members(w);
        w.end_object();
    }
}

impl<T: ToJson> ObjectMap<T> {
    /// Writes the entries as members of an object the caller has opened (used for unknown keys).
    pub fn write_members(&self, w: &mut JsonWriter) {
        for (k, v) in self.iter() {
            w.key(k);
            v.write_json(w);
        }
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, w: &mut JsonWriter) {
        w.begin_array();
        for v in self {
            w.element();
            v.write_json(w);
        }
        w.end_array();
    }
}

impl<T: ToJson> ToJson for Box<T> {
    fn write_json(&self, w: &mut JsonWriter) {
        (**self).write_json(w)
    }
}

impl ToJson for String {
    fn write_json(&self, w: &mut JsonWriter) {
        w.string(self)
    }
}
impl ToJson for str {
    fn write_json(&self, w: &mut JsonWriter) {
        w.string(self)
    }
}
impl ToJson for bool {
    fn write_json(&self, w: &mut JsonWriter) {
        w.bool(*self)
    }
}
impl ToJson for Number {
    fn write_json(&self, w: &mut JsonWriter) {
        w.number(self)
    }
}
impl ToJson for serde_json::Value {
    fn write_json(&self, w: &mut JsonWriter) {
        Value::from(self).write_json(w)
    }
}

impl Map {
    /// Entries as a slice (crate-internal fast path for views).
    pub(crate) fn as_slice(&self) -> &[(String, Value)] {
        self.entries_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::JsonWriter;
    use crate::json::tape::force_portable_scan;

    fn written(s: &str) -> String {
        let mut w = JsonWriter::new();
        w.string(s);
        String::from_utf8(w.into_bytes()).expect("UTF-8")
    }

    /// Every ASCII byte and some multi-byte characters, at every offset of runs that cross the
    /// scan's 16- and 32-byte steps, on both scan paths: the escaping is serde_json's.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let specials: Vec<String> = (0u8..0x80)
            .map(|b| char::from(b).to_string())
            .chain(["é", "€", "😀", "\u{2028}"].map(String::from))
            .collect();
        for portable in [false, true] {
            force_portable_scan(portable, || {
                for special in &specials {
                    for lead in [0, 1, 15, 16, 17, 31, 32, 33, 47] {
                        for tail in [0, 1, 16, 40] {
                            let s = format!("{}{special}{}{special}", "a".repeat(lead), "z".repeat(tail));
                            let want = serde_json::to_string(&s).expect("serialises");
                            assert_eq!(written(&s), want, "portable={portable} {s:?}");
                        }
                    }
                }
            });
        }
        assert_eq!(written(""), "\"\"");
    }
}
