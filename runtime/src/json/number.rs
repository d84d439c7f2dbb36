//! JSON numbers that keep their kind and their text.
//!
//! `50` stays `50`, `1.5` stays `1.5`, `1e3` stays `1e3`: a decoded number re-encodes to the
//! exact lexeme it was read from. Canonical integers are stored inline (no allocation); every
//! other lexeme (fractions, exponents, `-0`, integers beyond 64 bits) is stored as text.

use std::fmt;

/// A JSON number, stored losslessly.
#[derive(Clone)]
pub struct Number(Repr);

#[derive(Clone)]
enum Repr {
    /// Canonical non-negative integer (`0`, `42`), text = decimal rendering.
    PosInt(u64),
    /// Canonical negative integer (`-7`), text = decimal rendering.
    NegInt(i64),
    /// Any other valid JSON number lexeme (`1.5`, `1e3`, `-0`, `1.0`, huge integers).
    Lexeme(Box<str>),
}

/// Returns true when `s` matches the RFC 8259 number grammar exactly.
pub fn is_valid_lexeme(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !matches!(b.get(i), Some(b'0'..=b'9')) {
            return false;
        }
        while matches!(b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !matches!(b.get(i), Some(b'0'..=b'9')) {
            return false;
        }
        while matches!(b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    i == b.len()
}

impl Number {
    /// Builds a number from a lexeme the caller has already checked against the JSON grammar
    /// (the tape parser does). `is_int_lexeme` says the lexeme has no fraction or exponent.
    pub(crate) fn from_checked_lexeme(s: &str, is_int_lexeme: bool) -> Number {
        if is_int_lexeme {
            if let Some(rest) = s.strip_prefix('-') {
                if rest != "0" {
                    if let Ok(v) = s.parse::<i64>() {
                        return Number(Repr::NegInt(v));
                    }
                }
            } else if let Ok(v) = s.parse::<u64>() {
                return Number(Repr::PosInt(v));
            }
        }
        Number(Repr::Lexeme(s.into()))
    }

    /// Parses a JSON number lexeme; `None` when `s` is not valid JSON number text.
    pub fn from_lexeme(s: &str) -> Option<Number> {
        if !is_valid_lexeme(s) {
            return None;
        }
        let is_int = !s.bytes().any(|c| matches!(c, b'.' | b'e' | b'E'));
        Some(Number::from_checked_lexeme(s, is_int))
    }

    /// A finite `f64` as a number (shortest round-trip text); `None` for NaN and infinities.
    pub fn from_f64(v: f64) -> Option<Number> {
        if !v.is_finite() {
            return None;
        }
        // `{:?}` prints the shortest text that round-trips (`0.1`, `1e300`, `100.0`).
        Number::from_lexeme(&format!("{v:?}"))
    }

    /// The value as `i64`, when it is an integer in range (`1.0` and `1e2` count as integers).
    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::PosInt(v) => i64::try_from(*v).ok(),
            Repr::NegInt(v) => Some(*v),
            Repr::Lexeme(s) => {
                let f: f64 = s.parse().ok()?;
                (f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64).then_some(f as i64)
            }
        }
    }

    /// The value as `u64`, when it is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            Repr::PosInt(v) => Some(*v),
            Repr::NegInt(_) => None,
            Repr::Lexeme(_) => self.as_i64().and_then(|v| u64::try_from(v).ok()),
        }
    }

    /// The value as `f64` (may round for integers beyond 2^53 and long fractions).
    pub fn as_f64(&self) -> f64 {
        match &self.0 {
            Repr::PosInt(v) => *v as f64,
            Repr::NegInt(v) => *v as f64,
            Repr::Lexeme(s) => s.parse().unwrap_or(f64::NAN),
        }
    }

    /// True when the number is integer-valued in the JSON Schema sense (`1.0` is an integer).
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::PosInt(_) | Repr::NegInt(_) => true,
            Repr::Lexeme(s) => lexeme_is_integer(s),
        }
    }

    /// True when the lexeme is a plain integer literal (no fraction, no exponent).
    pub fn is_integer_literal(&self) -> bool {
        match &self.0 {
            Repr::PosInt(_) | Repr::NegInt(_) => true,
            Repr::Lexeme(s) => !s.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')),
        }
    }

    /// Writes the exact lexeme.
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        match &self.0 {
            Repr::PosInt(v) => out.extend_from_slice(itoa_u64(*v, &mut [0u8; 20])),
            Repr::NegInt(v) => out.extend_from_slice(v.to_string().as_bytes()),
            Repr::Lexeme(s) => out.extend_from_slice(s.as_bytes()),
        }
    }
}

/// Integer-valued in the JSON Schema sense: the mathematical value has no fractional part.
pub(crate) fn lexeme_is_integer(s: &str) -> bool {
    if !s.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) {
        return true;
    }
    match s.parse::<f64>() {
        Ok(f) => f.is_finite() && f.fract() == 0.0,
        Err(_) => false,
    }
}

fn itoa_u64(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[i..]
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::PosInt(v) => write!(f, "{v}"),
            Repr::NegInt(v) => write!(f, "{v}"),
            Repr::Lexeme(s) => f.write_str(s),
        }
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

/// Numbers compare by their text: `1.0` and `1` are different lexemes.
impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::PosInt(a), Repr::PosInt(b)) => a == b,
            (Repr::NegInt(a), Repr::NegInt(b)) => a == b,
            (Repr::Lexeme(a), Repr::Lexeme(b)) => a == b,
            _ => false,
        }
    }
}
impl Eq for Number {}

impl std::hash::Hash for Number {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.to_string().hash(state)
    }
}

impl Default for Number {
    fn default() -> Self {
        Number(Repr::PosInt(0))
    }
}

macro_rules! from_unsigned {
    ($($t:ty),*) => {$(
        impl From<$t> for Number {
            fn from(v: $t) -> Self { Number(Repr::PosInt(v as u64)) }
        }
    )*};
}
macro_rules! from_signed {
    ($($t:ty),*) => {$(
        impl From<$t> for Number {
            fn from(v: $t) -> Self {
                if v >= 0 { Number(Repr::PosInt(v as u64)) } else { Number(Repr::NegInt(v as i64)) }
            }
        }
    )*};
}
from_unsigned!(u8, u16, u32, u64, usize);
from_signed!(i8, i16, i32, i64, isize);

impl From<&serde_json::Number> for Number {
    fn from(n: &serde_json::Number) -> Self {
        if let Some(v) = n.as_u64() {
            Number(Repr::PosInt(v))
        } else if let Some(v) = n.as_i64() {
            Number(Repr::NegInt(v))
        } else {
            Number(Repr::Lexeme(n.to_string().into()))
        }
    }
}

impl From<&Number> for serde_json::Number {
    fn from(n: &Number) -> Self {
        match &n.0 {
            Repr::PosInt(v) => (*v).into(),
            Repr::NegInt(v) => (*v).into(),
            Repr::Lexeme(s) => serde_json::from_str::<serde_json::Number>(s)
                .unwrap_or_else(|_| serde_json::Number::from_f64(n.as_f64()).unwrap_or(0.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_text() {
        for s in ["0", "50", "-7", "1.5", "1.50", "1e3", "1E+3", "-0", "1.0", "18446744073709551616"] {
            assert_eq!(Number::from_lexeme(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn grammar() {
        for bad in ["", "-", "01", "1.", ".5", "1e", "+1", "0x1", "1.5.2", "NaN", " 1"] {
            assert!(Number::from_lexeme(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn integer_sense() {
        assert!(Number::from_lexeme("1.0").unwrap().is_integer());
        assert!(Number::from_lexeme("1e2").unwrap().is_integer());
        assert!(!Number::from_lexeme("1.5").unwrap().is_integer());
        assert!(!Number::from_lexeme("1.0").unwrap().is_integer_literal());
        assert_eq!(Number::from_lexeme("1e2").unwrap().as_i64(), Some(100));
        assert_eq!(Number::from(-3i32).as_i64(), Some(-3));
        assert_eq!(Number::from_f64(0.1).unwrap().to_string(), "0.1");
    }
}
